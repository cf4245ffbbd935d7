//! Invariant 4: the shortlist holds project-root-relative paths, and every
//! entry's path is one of them.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{EntryFacts, Place, Sink, check_relative_path, lifecycle, relative_path_problem};
use crate::diagnostic::{Code, Diagnostic};
use crate::fix::{self, Fix};
use crate::schema::SHORTLIST_OBJECT_FIELDS;
use crate::syntax::{Node, Value};
use crate::text::{Shift, TextRange};

/// What the membership check needs of the shortlist: its paths, exactly as
/// written after JSON unescaping, and where a missing one would be appended.
#[derive(Clone, Debug)]
pub(crate) struct Shortlist {
    /// Each path with the position of its first occurrence.
    paths: HashMap<String, usize>,
    /// The range of each item's path value, in order (empty for an item
    /// without a string path).
    items: Vec<TextRange>,
    /// Paths that occur again after their first occurrence, with the range
    /// of each repeat: rare, so kept apart.
    repeats: Vec<(String, TextRange)>,
    /// The first path of each loose form (see [`normalize`]), built on the
    /// first miss: only messages about near misses need it.
    loose: OnceLock<HashMap<String, String>>,
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
        for range in &mut self.items {
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
                .filter(move |p| !b.paths.contains_key(*p))
                .map(String::as_str)
        };
        missing(self, other).chain(missing(other, self)).collect()
    }

    /// Every path, each once, in no particular order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.keys().map(String::as_str)
    }

    fn near_miss(&self, path: &str) -> Option<&str> {
        let loose = self.loose.get_or_init(|| {
            let mut loose: HashMap<String, (usize, &str)> = HashMap::new();
            for (path, &position) in &self.paths {
                let first = loose.entry(normalize(path)).or_insert((position, path));
                if position < first.0 {
                    *first = (position, path);
                }
            }
            loose
                .into_iter()
                .map(|(form, (_, path))| (form, path.to_string()))
                .collect()
        });
        loose.get(&normalize(path)).map(String::as_str)
    }
}

pub(super) fn check_shortlist(sink: &mut Sink, shortlist: Node<'_>) -> Shortlist {
    let place = Place::ROOT.field("shortlist");
    let mut paths = HashMap::new();
    let mut items = Vec::new();
    let mut repeats = Vec::new();
    for (i, item) in shortlist.items().into_iter().flatten().enumerate() {
        let item_place = place.index(i);
        let path = match item.value() {
            Value::String(path) => Some((path, item)),
            Value::Object => check_aggregate(sink, item, &item_place),
            _ => {
                sink.wrong_type(
                    item,
                    &item_place,
                    "a path string or a {\"path\", \"lifecycle\"} object",
                );
                None
            }
        };
        items.push(path.map_or(TextRange::empty(item.range().start), |(_, n)| n.range()));
        if let Some((path, node)) = path {
            check_relative_path(sink, path, node, &item_place);
            if paths.contains_key(path) {
                repeats.push((path.to_string(), node.range()));
            } else {
                paths.insert(path.to_string(), i);
            }
        }
    }
    Shortlist {
        paths,
        items,
        repeats,
        loose: OnceLock::new(),
        range: shortlist.range(),
        appender: fix::Appender::new(sink.text, shortlist),
    }
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
    if shortlist.paths.contains_key(path) {
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

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use crate::fixture::{fixes_at, report_with_entry};

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
