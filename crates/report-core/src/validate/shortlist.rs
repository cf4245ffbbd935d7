//! Invariant 4: the shortlist holds project-root-relative paths, and every
//! entry's path is one of them.

// foldhash: keys are paths and member names of the report, hashed by the
// hundred thousand; its seeds are random per process.
use foldhash::{HashMap, HashMapExt};
use std::sync::{Arc, OnceLock};

use super::facts::EntryFacts;
use super::lifecycle;
use super::sink::{Place, Sink, check_relative_path, relative_path_problem};
use crate::diagnostic::{Code, Diagnostic};
use crate::fix::{self, Fix};
use crate::schema::SHORTLIST_OBJECT_FIELDS;
use crate::syntax::{self, Node, Value};
use crate::text::{Shift, TextRange};

/// What the membership check needs of the shortlist: its paths, exactly as
/// written after JSON unescaping, and where a missing one would be appended.
#[derive(Clone, Debug)]
pub(crate) struct Shortlist {
    /// Each path with the position of its first occurrence.
    paths: HashMap<Arc<str>, usize>,
    /// The range of each item's path value, in order (empty for an item
    /// without a string path).
    items: Vec<TextRange>,
    /// Each item's path, in order.
    names: Vec<Option<Arc<str>>>,
    /// Each item's range, in order.
    spans: Vec<TextRange>,
    /// Paths that occur again after their first occurrence, with the range
    /// of each repeat, in order: rare, so kept apart.
    repeats: Vec<(String, TextRange)>,
    /// The paths by loose form (see [`Loose`]), built on the first miss:
    /// only messages about near misses need it. The first of a form's
    /// paths (the one that occurs first) is the near miss.
    loose: OnceLock<Loose>,
    range: TextRange,
    appender: fix::Appender,
}

impl Shortlist {
    pub fn shift(&mut self, shift: Shift) {
        // Edits after the shortlist (in the entries, as a rule) move nothing of it.
        if shift.from > self.range.end {
            return;
        }
        self.range = shift.range(self.range);
        self.appender.offset = shift.offset(self.appender.offset);
        for range in self.items.iter_mut().chain(&mut self.spans) {
            *range = shift.range(*range);
        }
        for (_, range) in &mut self.repeats {
            *range = shift.range(*range);
        }
    }

    /// Where `path` is in the shortlist: the range of its first occurrence's value.
    pub fn find(&self, path: &str) -> Option<TextRange> {
        self.paths.get(path).map(|&i| self.items[i])
    }

    /// Everything it holds but the lazily built near-miss index, in an order
    /// that does not depend on hashing: two shortlists of the same text
    /// give the same.
    pub fn canonical(&self) -> String {
        let mut paths: Vec<(&str, usize)> = self.paths.iter().map(|(p, &i)| (&**p, i)).collect();
        paths.sort_unstable();
        format!(
            "paths {paths:?}\nitems {:?}\nnames {:?}\nspans {:?}\nrepeats {:?}\nrange {:?}\nappender {:?}",
            self.items, self.names, self.spans, self.repeats, self.range, self.appender
        )
    }

    /// Whether `path` is a member.
    pub fn contains(&self, path: &str) -> bool {
        self.paths.contains_key(path)
    }

    /// The range of each item, in order.
    pub fn spans(&self) -> &[TextRange] {
        &self.spans
    }

    /// The range of the shortlist's array.
    pub fn range(&self) -> TextRange {
        self.range
    }

    /// The range of each item's path value, in order (empty for an item
    /// without a string path).
    pub fn item_ranges(&self) -> &[TextRange] {
        &self.items
    }

    /// Every occurrence of `path`, in order.
    pub fn occurrences(&self, path: &str) -> Vec<TextRange> {
        let mut all: Vec<TextRange> = self.find(path).into_iter().collect();
        all.extend(
            self.repeats
                .iter()
                .filter(|(p, _)| p == path)
                .map(|(_, range)| *range),
        );
        all
    }

    /// The path whose value holds `offset`, with that value's range.
    pub fn path_at(&self, offset: usize) -> Option<TextRange> {
        let after = self.items.partition_point(|r| r.start <= offset);
        let range = *self.items.get(after.checked_sub(1)?)?;
        (range.start <= offset && offset <= range.end && !range.is_empty()).then_some(range)
    }

    /// The paths one of the two shortlists has and the other has not.
    pub fn changed_paths<'a>(&'a self, other: &'a Shortlist) -> Vec<&'a str> {
        let missing = |a: &'a Shortlist, b: &'a Shortlist| {
            a.paths
                .keys()
                .filter(move |p| !b.paths.contains_key(&***p))
                .map(|p| &**p)
        };
        missing(self, other).chain(missing(other, self)).collect()
    }

    /// Every path, each once, in no particular order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.keys().map(|p| &**p)
    }

    /// The paths by loose form, built at the first need.
    fn loose(&self) -> &Loose {
        self.loose.get_or_init(|| Loose::of(self.paths.keys()))
    }

    /// Builds the near-miss index now (about 20 ms at 50 000 paths), so
    /// that the first entry whose path the shortlist lacks does not wait
    /// for it. Nothing when it is built.
    pub fn index_near_misses(&self) {
        self.loose();
    }

    /// Whether the near-miss index is built.
    #[cfg(test)]
    pub(crate) fn near_misses_indexed(&self) -> bool {
        self.loose.get().is_some()
    }

    fn near_miss(&self, path: &str) -> Option<&str> {
        self.loose()
            .like(path)
            .min_by_key(|p| self.paths.get(&***p).copied().unwrap_or(usize::MAX))
            .map(|p| &**p)
    }

    /// Replaces the items at `at..at + removed` (ranges as before the edit
    /// that replaced them) by `added` (ranges after it): the items after
    /// them move by `shift`, the first occurrence of each path they name is
    /// found again, and the appender follows the last item (`separator` is
    /// the one a new first item calls for). Returns the paths that became
    /// members or stopped being members.
    pub(crate) fn splice(
        &mut self,
        at: usize,
        removed: usize,
        added: Vec<Item>,
        shift: Shift,
        separator: Option<String>,
    ) -> Vec<Arc<str>> {
        let end = at + removed;
        let mut touched: Vec<Arc<str>> = self.names[at..end].iter().flatten().cloned().collect();
        touched.extend(
            added
                .iter()
                .filter_map(|item| item.path.clone().map(|(p, _)| p)),
        );
        touched.sort_unstable();
        touched.dedup();
        let was: Vec<bool> = touched.iter().map(|p| self.paths.contains_key(p)).collect();
        // What the removed items held goes, in the ranges before the edit.
        let gone = |range: &TextRange| {
            let k = self.spans.partition_point(|s| s.end <= range.start);
            (at..end).contains(&k) && self.spans[k].start <= range.start
        };
        let repeats: Vec<(String, TextRange)> = std::mem::take(&mut self.repeats)
            .into_iter()
            .filter(|(_, r)| !gone(r))
            .collect();
        self.repeats = repeats;
        for path in &touched {
            if self
                .paths
                .get(path)
                .is_some_and(|&i| (at..end).contains(&i))
            {
                self.paths.remove(path);
            }
        }
        // The items after move, and so do their positions.
        for range in self.items[end..].iter_mut().chain(&mut self.spans[end..]) {
            *range = shift.range(*range);
        }
        for (_, range) in &mut self.repeats {
            *range = shift.range(*range);
        }
        self.range = shift.range(self.range);
        let count = added.len();
        if count != removed {
            for position in self.paths.values_mut().filter(|p| **p >= end) {
                *position = *position + count - removed;
            }
        }
        let (mut items, mut names, mut spans) = (Vec::new(), Vec::new(), Vec::new());
        for item in added {
            items.push(
                item.path
                    .as_ref()
                    .map_or(TextRange::empty(item.span.start), |p| p.1),
            );
            names.push(item.path.map(|(p, _)| p));
            spans.push(item.span);
        }
        self.items.splice(at..end, items);
        self.names.splice(at..end, names);
        self.spans.splice(at..end, spans);
        // Each path named by an item removed or added: its first occurrence
        // is a member, the others repeats.
        for path in &touched {
            let mut positions: Vec<usize> = self.paths.remove(path).into_iter().collect();
            for (p, range) in &self.repeats {
                if **p == **path {
                    let k = self.items.partition_point(|r| r.start < range.start);
                    positions.push(k);
                }
            }
            self.repeats.retain(|(p, _)| **p != **path);
            positions
                .extend((at..at + count).filter(|&k| self.names[k].as_deref() == Some(&**path)));
            positions.sort_unstable();
            positions.dedup();
            if let Some((&first, others)) = positions.split_first() {
                self.paths.insert(path.clone(), first);
                self.repeats
                    .extend(others.iter().map(|&k| (path.to_string(), self.items[k])));
            }
        }
        self.repeats.sort_by_key(|(_, r)| r.start);
        let changed: Vec<Arc<str>> = touched
            .into_iter()
            .zip(was)
            .filter(|(p, was)| self.paths.contains_key(p) != *was)
            .map(|(p, _)| p)
            .collect();
        if let Some(loose) = self.loose.get_mut() {
            for path in &changed {
                match self.paths.contains_key(path) {
                    true => loose.insert(path.clone()),
                    false => loose.remove(path),
                }
            }
        }
        self.appender.offset = self
            .spans
            .last()
            .map_or(self.range.start + 1, |last| last.end);
        match (self.spans.is_empty(), separator) {
            (true, _) => self.appender.set_separator(String::new()),
            (false, Some(separator)) => self.appender.set_separator(separator),
            (false, None) => {}
        }
        changed
    }
}

/// A shortlist item as [`Shortlist::splice`] takes it.
#[derive(Clone, Debug)]
pub(crate) struct Item {
    pub span: TextRange,
    /// Its path and the range of the path's value, when it has a string path.
    pub path: Option<(Arc<str>, TextRange)>,
}

/// What precedes a shortlist item parsed alone: the containers a report gives it.
const ITEM_BEFORE: &str = "{\"shortlist\":[";
const ITEM_AFTER: &str = "\n]}";

/// Checks the shortlist item whose text is `text`, at `start` of the
/// report, as item `index`: its diagnostics, in the report's offsets, and
/// the item. None unless it parses alone without syntax errors as one
/// complete value spanning the text (it then parses so in place, between
/// commas or brackets).
pub(crate) fn check_item_alone(
    text: &str,
    start: usize,
    index: usize,
) -> Option<(Item, Vec<Diagnostic>)> {
    let whole = format!("{ITEM_BEFORE}{text}{ITEM_AFTER}");
    let parse = syntax::parse(&whole);
    if !parse.errors.is_empty() {
        return None;
    }
    let root = parse.root()?;
    let mut items = root.get("shortlist")?.items()?;
    let item = items.next()?;
    let range = TextRange::new(ITEM_BEFORE.len(), ITEM_BEFORE.len() + text.len());
    if items.next().is_some()
        || item.range() != range
        || item.is_incomplete()
        || root.is_incomplete()
    {
        return None;
    }
    let mut sink = Sink::new(&whole, crate::diagnostic::Keep::ALL);
    let place = Place::ROOT.field("shortlist");
    let path = check_item(&mut sink, item, &place.index(index));
    let shift = Shift {
        from: 0,
        delta: start as isize - ITEM_BEFORE.len() as isize,
    };
    let mut diagnostics = sink.out.finish().0;
    for diagnostic in &mut diagnostics {
        diagnostic.shift(shift);
    }
    let item = Item {
        span: shift.range(item.range()),
        path: path.map(|(p, node)| (Arc::from(p), shift.range(node.range()))),
    };
    Some((item, diagnostics))
}

pub(super) fn check_shortlist(sink: &mut Sink, shortlist: Node<'_>) -> Shortlist {
    let place = Place::ROOT.field("shortlist");
    let mut paths: HashMap<Arc<str>, usize> = HashMap::new();
    let mut items = Vec::new();
    let mut names = Vec::new();
    let mut spans = Vec::new();
    let mut repeats = Vec::new();
    for (i, item) in shortlist.items().into_iter().flatten().enumerate() {
        let path = check_item(sink, item, &place.index(i));
        items.push(path.map_or(TextRange::empty(item.range().start), |(_, n)| n.range()));
        spans.push(item.range());
        match path {
            Some((path, node)) => {
                if let Some((first, _)) = paths.get_key_value(path) {
                    names.push(Some(first.clone()));
                    repeats.push((path.to_string(), node.range()));
                } else {
                    let path: Arc<str> = Arc::from(path);
                    names.push(Some(path.clone()));
                    paths.insert(path, i);
                }
            }
            None => names.push(None),
        }
    }
    Shortlist {
        paths,
        items,
        names,
        spans,
        repeats,
        loose: OnceLock::new(),
        range: shortlist.range(),
        appender: fix::Appender::new(sink.text, shortlist),
    }
}

/// Checks one shortlist item: its path and that path's node, when it has one.
fn check_item<'n>(
    sink: &mut Sink,
    item: Node<'n>,
    place: &Place<'_>,
) -> Option<(&'n str, Node<'n>)> {
    let path = match item.value() {
        Value::String(path) => Some((path, item)),
        Value::Object => check_aggregate(sink, item, place),
        _ => {
            sink.wrong_type(
                item,
                place,
                "a path string or a {\"path\", \"lifecycle\"} object",
            );
            None
        }
    };
    if let Some((path, node)) = path {
        check_relative_path(sink, path, node, place);
    }
    path
}

/// A `{path}` or `{path, lifecycle}` item: a file, or a directory-rule
/// aggregate, with a lifecycle signal when it carries one. `lifecycle` is
/// not required: an object without it is a plain member.
fn check_aggregate<'n>(
    sink: &mut Sink,
    item: Node<'n>,
    place: &Place<'_>,
) -> Option<(&'n str, Node<'n>)> {
    let path = sink.required_str(item, place, "path");
    if let Some(member) = item.member("lifecycle") {
        lifecycle::check_lifecycle(sink, member.value, &place.field("lifecycle"));
    }
    sink.unknown_fields(item, place, &[SHORTLIST_OBJECT_FIELDS]);
    path
}

/// Every entry path is a shortlist member: exact string equality, no normalization.
pub(crate) fn check_membership(shortlist: &Shortlist, entry: &EntryFacts) -> Option<Diagnostic> {
    let (path, range) = entry.path.as_ref()?;
    if shortlist.paths.contains_key(path.as_str()) {
        return None;
    }
    let near = shortlist
        .near_miss(path)
        .map(|candidate| {
            format!(" (the shortlist has \"{candidate}\", but paths must match exactly)")
        })
        .unwrap_or_default();
    Some(
        Diagnostic::new(
            Code::EntryPathNotInShortlist,
            *range,
            format!(
                "`entries[{}].path` \"{path}\" is not in the shortlist{near}; every entry's path must be a shortlist member",
                entry.index
            ),
        )
        .with_related(shortlist.range, "the shortlist the scanner produced")
        .with_fix(relative_path_problem(path).is_none().then(|| Fix {
            title: format!("Add \"{path}\" to shortlist"),
            edits: vec![shortlist.appender.edit(&fix::json_string(path))],
            // The entry's path may be the mistake instead, so this is not applied blindly.
            preferred: false,
        })),
    )
}

/// A loose form of a path, only to point out near misses in messages.
fn normalize(path: &str) -> String {
    path.trim_start_matches("./")
        .trim_end_matches('/')
        .to_lowercase()
}

/// The shortlist's paths by loose form: a hash of each one's loose form
/// with the path, sorted. One allocation of 24 bytes a path: a map of
/// forms to lists of paths took about 170 bytes a path in three (8 MB of
/// a 50 000-entry report's 37 MB).
#[derive(Clone, Debug, Default)]
struct Loose(Vec<(u64, Arc<str>)>);

impl Loose {
    fn of<'a>(paths: impl Iterator<Item = &'a Arc<str>>) -> Loose {
        let mut pairs: Vec<(u64, Arc<str>)> = paths.map(|p| (loose_hash(p), p.clone())).collect();
        pairs.sort_unstable();
        Loose(pairs)
    }

    /// The paths whose loose form is `path`'s.
    fn like<'a>(&'a self, path: &str) -> impl Iterator<Item = &'a Arc<str>> {
        let form = normalize(path);
        let hash = hash_of(&form);
        let from = self.0.partition_point(|(h, _)| *h < hash);
        self.0[from..]
            .iter()
            .take_while(move |(h, _)| *h == hash)
            .filter(move |(_, p)| normalize(p) == form)
            .map(|(_, p)| p)
    }

    fn insert(&mut self, path: Arc<str>) {
        let pair = (loose_hash(&path), path);
        if let Err(at) = self.0.binary_search(&pair) {
            self.0.insert(at, pair);
        }
    }

    fn remove(&mut self, path: &str) {
        let hash = loose_hash(path);
        if let Ok(at) = (self.0).binary_search_by(|(h, p)| (*h, &**p).cmp(&(hash, path))) {
            self.0.remove(at);
        }
    }
}

fn loose_hash(path: &str) -> u64 {
    hash_of(&normalize(path))
}

fn hash_of(form: &str) -> u64 {
    use std::hash::BuildHasher;
    // Seeded once: a path's hash is the same for as long as the index lives.
    static SEEDS: OnceLock<foldhash::fast::FixedState> = OnceLock::new();
    SEEDS
        .get_or_init(|| foldhash::fast::FixedState::with_seed(fastrand::u64(..)))
        .hash_one(form)
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::fixture::{fixes_at, report_with_entry};

    /// Built ahead (as the server does after publishing), the near-miss
    /// index answers as the one built at the first miss.
    #[test]
    fn the_near_miss_index_built_ahead_answers_as_at_need() {
        use crate::diagnostic::Keep;
        use crate::validate::sink::Sink;
        let text = r#"{"shortlist": ["Docs/A.md", "./docs/b.md/", "docs/c.md", "docs/a.md"]}"#;
        let parse = crate::syntax::parse(text);
        let node = parse.root().unwrap().get("shortlist").unwrap();
        let at_need = super::check_shortlist(&mut Sink::new(text, Keep::ALL), node);
        let ahead = at_need.clone();
        assert!(
            ahead.loose.get().is_none(),
            "not built before it is asked for"
        );
        ahead.index_near_misses();
        assert!(ahead.loose.get().is_some(), "built ahead");
        for path in ["DOCS/a.md", "docs/b.md", "./Docs/C.md/", "docs/d.md"] {
            assert_eq!(ahead.near_miss(path), at_need.near_miss(path), "{path}");
        }
        assert_eq!(
            ahead.near_miss("DOCS/a.md"),
            Some("Docs/A.md"),
            "the first occurrence"
        );
        assert_eq!(ahead.near_miss("docs/d.md"), None);
    }

    /// Paths under one hash whose loose forms differ (a collision, made
    /// here by hand): only those of the form asked for are near misses.
    #[test]
    fn a_path_that_only_shares_the_hash_is_no_near_miss() {
        let hash = super::hash_of("docs/a.md");
        let loose = super::Loose(vec![(hash, "Docs/A.md".into()), (hash, "docs/b.md".into())]);
        let like: Vec<&str> = loose.like("DOCS/a.md").map(|p| &**p).collect();
        assert_eq!(like, ["Docs/A.md"]);
    }

    #[test]
    fn missing_path_is_appended_to_the_shortlist_in_its_style() {
        let entry = r#"{"path": "docs/$0b.md", "category": {"class": "stale", "subtype": "contradicted"}, "signals": [],
      "op": "rewrite", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "confirm",
      "token_estimate": {"raw_tokens": 5}}"#;
        expect![[r#"
            Add "docs/b.md" to shortlist (entry-path-not-in-shortlist)
              "shortlist": ["docs/a.md", "docs/b.md"],
        "#]]
        .assert_eq(&fixes_at(&report_with_entry(entry)));
    }
}
