//! The checks of every invariant of the report schema over a parsed tree.
//!
//! Each entry is checked on its own ([`entry::check_entry`] sees only the
//! entry's node), producing its diagnostics and a small [`EntryFacts`]; the
//! facts that cross entries (shortlist membership, promotion candidates) are
//! checked afterwards from those facts. That split is what lets a later
//! incremental reparse recheck only the entry that changed.

mod entry;
mod envelope;
mod exact_edit;
mod facts;
mod lifecycle;
mod promotion;
mod safety_tier;
mod shortlist;
mod sink;

pub(crate) use envelope::check_generated_at;
pub(crate) use exact_edit::parse_canonical_ref;
pub(crate) use facts::names_project_file;
pub use facts::{EntryFacts, EntryLinks, EntrySummary, InEntry, KindTiers, TierCheck};
pub(crate) use promotion::{Candidate, classifier_judged, judge};
pub(crate) use shortlist::{Item as ShortlistItem, Shortlist, check_item_alone, check_membership};
pub(crate) use sink::{Sink, missing_key_range, relative_path_problem, same_json};

use crate::cancel::Wanted;
use crate::diagnostic::{Code, Collector, Diagnostic, Keep, Omitted};
use crate::parallel::{RunAll, Threads};
use crate::syntax::Node;
use crate::text::{Shift, TextRange};

/// Everything the checks of one report produce.
#[derive(Clone, Debug, Default)]
pub struct Validation {
    /// In no particular order.
    pub diagnostics: Vec<Diagnostic>,
    /// Those the [`Keep`] left out.
    pub omitted: Omitted,
    pub entries: Vec<EntryFacts>,
    /// What rechecking entries one at a time needs; None when the entries
    /// were not checked (the envelope stopped the checks, or `entries` is
    /// not an array).
    pub(crate) cross: Option<CrossEntry>,
}

/// What the checks across entries need besides the entries' facts.
#[derive(Clone, Debug)]
pub(crate) struct CrossEntry {
    pub shortlist: Option<Shortlist>,
    pub candidates: Vec<Candidate>,
    /// The report's own members, in order, for the outline.
    pub members: Vec<TopMember>,
}

/// A member of the report object: its key and where key and value are.
#[derive(Clone, Debug, PartialEq)]
pub struct TopMember {
    pub key: String,
    pub key_range: TextRange,
    pub value_range: TextRange,
    /// How many items its value has, when it is an array.
    pub items: Option<usize>,
}

impl TopMember {
    /// The member `key` of `members` when its value is an array.
    pub fn array<'m>(members: &'m [TopMember], key: &str) -> Option<&'m TopMember> {
        members.iter().find(|m| m.key == key && m.items.is_some())
    }

    /// The same, to change.
    pub fn array_mut<'m>(members: &'m mut [TopMember], key: &str) -> Option<&'m mut TopMember> {
        members
            .iter_mut()
            .find(|m| m.key == key && m.items.is_some())
    }

    pub fn shift(&mut self, shift: Shift) {
        self.key_range = shift.range(self.key_range);
        self.value_range = shift.range(self.value_range);
    }
}

/// A run of entries checked: their facts, and which of them a syntax
/// error broke.
type Checked = (Vec<EntryFacts>, Vec<usize>);

/// From how many entries [`Threads::Parallel`] splits them.
const SPLIT_FROM_ENTRIES: usize = 4096;

/// How many runs of entries each lent thread gets: runs of about equal
/// work, so that the thread that also checks the shortlist does not end last.
const RUNS_PER_THREAD: usize = 4;

/// `side` (the checks of the rest of the report), then each entry's
/// checks and facts, and which entries a syntax error broke (in order).
/// From `split_from` entries with a runner, `side` and the entries in
/// `runs` runs are checked as jobs, each into a sink of its own, absorbed
/// in that order after: the cap keeps the best-ranked diagnostics of all,
/// as one pass would.
fn check_entries<'t, A: Send>(
    sink: &mut Sink<'t>,
    items: &[Node<'_>],
    split: Option<(&dyn RunAll, usize)>,
    split_from: usize,
    wanted: Option<Wanted<'_>>,
    side: impl FnOnce(&mut Sink<'t>) -> A + Send,
) -> (A, Checked) {
    let Some((runner, runs)) = chunks(split, items.len(), split_from) else {
        let aside = side(sink);
        return (aside, check_entry_run(sink, items, 0, wanted));
    };
    let check =
        |sink: &mut Sink<'t>, run: &[Node<'_>], first| check_entry_run(sink, run, first, wanted);
    let (aside, checked) = in_chunks(sink, items, runner, runs, side, check);
    let mut entries = Vec::with_capacity(items.len());
    let mut broken = Vec::new();
    for (more, more_broken) in checked {
        entries.extend(more);
        broken.extend(more_broken);
    }
    (aside, (entries, broken))
}

/// How many chunks `len` items are cut into on `split`'s runner: from
/// `split_from` items, and two chunks at least; None for one pass.
fn chunks(
    split: Option<(&dyn RunAll, usize)>,
    len: usize,
    split_from: usize,
) -> Option<(&dyn RunAll, usize)> {
    match split {
        Some((runner, runs)) if runs >= 2 && len >= split_from.max(2) => {
            Some((runner, runs.min(len)))
        }
        _ => None,
    }
}

/// `side` and `job` over `items` in `runs` chunks (`job` is told where its
/// chunk starts), as jobs of `runner`, each into a sink of its own,
/// absorbed in order after (`side`'s first): the cap keeps the
/// best-ranked diagnostics of all, as one pass would.
fn in_chunks<'t, I: Sync, A: Send, R: Send>(
    sink: &mut Sink<'t>,
    items: &[I],
    runner: &dyn RunAll,
    runs: usize,
    side: impl FnOnce(&mut Sink<'t>) -> A + Send,
    job: impl Fn(&mut Sink<'t>, &[I], usize) -> R + Sync,
) -> (A, Vec<R>) {
    let (text, keep) = (sink.text, sink.out.keep());
    let size = items.len().div_ceil(runs);
    let mut aside = None;
    let mut results: Vec<Option<(R, Collector)>> =
        (0..items.len().div_ceil(size)).map(|_| None).collect();
    let mut jobs: Vec<Box<dyn FnOnce() + Send + '_>> = Vec::with_capacity(results.len() + 1);
    let aside_slot = &mut aside;
    jobs.push(Box::new(move || {
        let mut own = Sink::new(text, keep);
        *aside_slot = Some((side(&mut own), own.out));
    }));
    let job = &job;
    jobs.extend(results.iter_mut().zip(items.chunks(size)).enumerate().map(
        |(nth, (result, chunk))| {
            Box::new(move || {
                let mut own = Sink::new(text, keep);
                *result = Some((job(&mut own, chunk, nth * size), own.out));
            }) as Box<dyn FnOnce() + Send + '_>
        },
    ));
    runner.run_all(jobs);
    let (aside, out) = aside.expect("run_all runs every job");
    sink.out.absorb(out);
    let results = (results.into_iter())
        .map(|result| {
            let (result, out) = result.expect("run_all runs every job");
            sink.out.absorb(out);
            result
        })
        .collect();
    (aside, results)
}

/// The checks of `items`, the first of them entry `first`.
fn check_entry_run(
    sink: &mut Sink<'_>,
    items: &[Node<'_>],
    first: usize,
    wanted: Option<Wanted<'_>>,
) -> Checked {
    let mut entries = Vec::with_capacity(items.len());
    let mut broken = Vec::new();
    for (index, &item) in (first..).zip(items) {
        crate::cancel::at_entry(index, wanted);
        if item.is_broken() {
            broken.push(index);
            entries.push(broken_entry(item, index));
        } else {
            entries.push(entry::check_entry(sink, item, index));
        }
    }
    (entries, broken)
}

/// Checks a parsed report. A report with syntax errors is checked where it
/// parsed intact: an entry, shortlist item, promotion candidate or envelope
/// field that a syntax error broke ([`Node::is_broken`]) loses its checks,
/// and the checks across entries say nothing they cannot know because of it.
pub fn validate(text: &str, root: Node<'_>, keep: Keep) -> Validation {
    validate_with(text, root, keep, Threads::OneThread, None)
}

/// Like [`validate`], with the entries' checks where `threads` says.
/// `wanted` is asked now and then (see `cancel`).
pub fn validate_with(
    text: &str,
    root: Node<'_>,
    keep: Keep,
    threads: Threads<'_>,
    wanted: Option<Wanted<'_>>,
) -> Validation {
    // A broken text that does not even look like a report: nothing certain to say.
    if root.is_broken() && !crate::selection::looks_like_report(root) {
        return Validation::default();
    }
    let mut sink = Sink::new(text, keep);
    let Some(report) = envelope::check_envelope(&mut sink, root) else {
        let (mut diagnostics, mut omitted) = sink.out.finish();
        drop_broken(root, &mut diagnostics, &mut omitted);
        return Validation {
            diagnostics,
            omitted,
            ..Validation::default()
        };
    };
    let items: Vec<Node<'_>> = report
        .entries
        .and_then(Node::items)
        .into_iter()
        .flatten()
        .collect();
    let runs = threads
        .for_checks()
        .map(|(runner, threads)| (runner, threads * RUNS_PER_THREAD));
    let (shortlist, candidates) = (report.shortlist, report.promotion_candidates);
    let ((shortlist, candidates, members), (entries, broken)) = check_entries(
        &mut sink,
        &items,
        runs,
        SPLIT_FROM_ENTRIES,
        wanted,
        |sink| {
            let shortlist = shortlist.map(|node| shortlist::check_shortlist(sink, node));
            let candidates = candidates
                .map(|node| promotion::check_candidates(sink, node))
                .unwrap_or_default();
            // Counting a large array's items reads a record per item: here, beside the entries.
            (shortlist, candidates, top_members(root))
        },
    );
    let intact = |entry: &&EntryFacts| broken.binary_search(&entry.index).is_err();
    // A broken shortlist may have held any path.
    if let Some(shortlist) = &shortlist
        && !report.shortlist.is_some_and(Node::is_broken)
    {
        let runs = threads.for_checks();
        memberships(
            &mut sink,
            shortlist,
            &entries,
            &intact,
            runs,
            SPLIT_FROM_ENTRIES,
        );
    }
    let mut judged = Vec::new();
    if broken.is_empty() {
        promotion::judge_all(&candidates, &entries, &mut judged);
    } else {
        let intact: Vec<EntryFacts> = entries.iter().filter(intact).cloned().collect();
        promotion::judge_all(&candidates, &intact, &mut judged);
    }
    if root.is_broken() {
        drop_unknowable_judgements(root, &report, &entries, &broken, &mut judged);
    }
    for diagnostic in judged {
        sink.push(diagnostic);
    }
    let (mut diagnostics, mut omitted) = sink.out.finish();
    if root.is_broken() {
        drop_broken(root, &mut diagnostics, &mut omitted);
    }
    Validation {
        diagnostics,
        omitted,
        entries,
        cross: report.entries.is_some().then(|| CrossEntry {
            shortlist,
            candidates,
            members,
        }),
    }
}

fn top_members(root: Node<'_>) -> Vec<TopMember> {
    root.members()
        .into_iter()
        .flatten()
        .map(|member| TopMember {
            key: member.key.to_string(),
            key_range: member.key_range,
            value_range: member.value.range(),
            items: member.value.items().map(|items| items.count()),
        })
        .collect()
}

/// The facts of an entry a syntax error broke: only where it is, and its
/// path when that parsed intact (to know which promotion candidates may name it).
fn broken_entry(item: Node<'_>, index: usize) -> EntryFacts {
    EntryFacts {
        index,
        range: item.range(),
        path: item
            .get("path")
            .and_then(|node| Some((node.as_str()?.to_string(), node.range()))),
        evidence: None,
        tier: None,
        summary: None,
        links: EntryLinks::of(item),
    }
}

/// Removes the promotion-candidate judgements that a broken entry makes
/// unknowable: a candidate whose path a broken entry has (or may have, when
/// its path is unreadable or entries are missing) may name it.
fn drop_unknowable_judgements(
    root: Node<'_>,
    report: &envelope::Envelope<'_>,
    entries: &[EntryFacts],
    broken: &[usize],
    judged: &mut Vec<Diagnostic>,
) {
    let entries_lost = match root.get("entries") {
        Some(node) => node.is_error() || node.is_incomplete(),
        None => root.is_incomplete(),
    };
    let mut paths = Vec::new();
    let mut any_path = entries_lost;
    for &index in broken {
        match &entries[index].path {
            Some((path, _)) => paths.push(path.as_str()),
            None => any_path = true,
        }
    }
    if any_path {
        judged.clear();
        return;
    }
    let uncertain: Vec<TextRange> = report
        .promotion_candidates
        .and_then(Node::items)
        .into_iter()
        .flatten()
        .filter_map(|item| item.get("path"))
        .filter(|path| path.as_str().is_some_and(|p| paths.contains(&p)))
        .map(Node::range)
        .collect();
    judged.retain(|d| !uncertain.contains(&d.range));
}

/// Removes what the checks said inside the parts a syntax error broke, and
/// the missing fields of a report whose members may be lost.
fn drop_broken(root: Node<'_>, diagnostics: &mut Vec<Diagnostic>, omitted: &mut Omitted) {
    let mut regions = Vec::new();
    for member in root.members().into_iter().flatten() {
        let value = member.value;
        if !member.is_broken() {
            continue;
        }
        match (member.key, value.items()) {
            (_, _) if !value.is_broken() => regions.push(member.range()),
            ("shortlist" | "entries" | "promotion_candidates", Some(items)) => {
                regions.extend(items.filter(|item| item.is_broken()).map(Node::range));
            }
            _ => regions.push(member.range()),
        }
    }
    let lost_members = root.is_incomplete();
    diagnostics.retain(|d| {
        let inside = regions
            .iter()
            .any(|r| r.start <= d.range.start && d.range.end <= r.end);
        let lost =
            lost_members && d.code == Code::MissingField && d.range == missing_key_range(root);
        !inside && !lost
    });
    // Of one left out only its start is known; what starts in a region lies in it.
    omitted.retain(|o| {
        let start = o.start as usize;
        !regions.iter().any(|r| r.start <= start && start < r.end)
    });
}

/// The facts of one entry as its checks find them, broken or not: what the
/// fields that parsed say (for completion while the entry is half-typed).
pub(crate) fn entry_facts_as_parsed(text: &str, node: Node<'_>, index: usize) -> EntryFacts {
    let mut sink = Sink::new(text, Keep::ALL);
    entry::check_entry(&mut sink, node, index)
}

/// Checks one entry on its own: `text` is the entry's text alone and `node`
/// its root. What [`validate`] finds for it, membership aside, in offsets
/// into `text`.
pub(crate) fn check_entry_alone(
    text: &str,
    node: Node<'_>,
    index: usize,
) -> (EntryFacts, Vec<Diagnostic>) {
    // A syntax error broke it: as in [`validate`], it loses its checks.
    if node.is_broken() {
        return (broken_entry(node, index), Vec::new());
    }
    let mut sink = Sink::new(text, Keep::ALL);
    let facts = entry::check_entry(&mut sink, node, index);
    (facts, sink.out.finish().0)
}

/// Pushes the membership diagnostics of the entries that are `intact`
/// (not broken), in order: from `split_from` entries with a runner, a chunk of
/// them a thread, each into a sink of its own absorbed in order after (one
/// lookup an entry: they took 30 ms of a 50 000-entry `check`'s 240, alone
/// after the checks).
fn memberships(
    sink: &mut Sink<'_>,
    shortlist: &shortlist::Shortlist,
    entries: &[EntryFacts],
    intact: &(dyn Fn(&&EntryFacts) -> bool + Sync),
    runs: Option<(&dyn RunAll, usize)>,
    split_from: usize,
) {
    let missing = |sink: &mut Sink<'_>, entries: &[EntryFacts]| {
        let intact = entries.iter().filter(intact);
        for diagnostic in intact.filter_map(|entry| shortlist::check_membership(shortlist, entry)) {
            sink.push(diagnostic);
        }
    };
    match chunks(runs, entries.len(), split_from) {
        None => missing(sink, entries),
        Some((runner, runs)) => {
            let each = |sink: &mut Sink<'_>, chunk: &[EntryFacts], _| missing(sink, chunk);
            in_chunks(sink, entries, runner, runs, |_| (), each);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{Backwards, OnThreads};

    fn report(entries: usize, seed: u64, violation_every: usize) -> String {
        let options = crate::generate::GenerateOptions {
            entries,
            seed,
            violation_every,
        };
        crate::generate::generate_report(options)
    }

    /// The entries' memberships looked up in chunks (in any order, on any
    /// thread) are those of one pass, in its order, broken entries left out.
    #[test]
    fn memberships_in_chunks_are_those_of_one_pass() {
        let generated = report(23, 5, 0);
        // Every third entry's path not in the shortlist: a near miss there instead.
        let mut text = generated.clone();
        let paths: Vec<String> = (crate::analysis::analyze(&generated).entries.iter())
            .step_by(3)
            .filter_map(|entry| Some(entry.path.clone()?.0))
            .collect();
        assert_eq!(paths.len(), 8);
        for path in &paths {
            text = text.replacen(&format!("\"{path}\""), &format!("\"./{path}\""), 1);
        }
        let analysis = crate::analysis::analyze(&text);
        let parse = crate::syntax::parse(&text);
        let node = parse.root().unwrap().get("shortlist").unwrap();
        let shortlist = shortlist::check_shortlist(&mut Sink::new(&text, Keep::ALL), node);
        let entries = &analysis.entries;
        let run = |broken: &[usize], keep: Keep, split: Option<(&dyn RunAll, usize)>| {
            let mut sink = Sink::new(&text, keep);
            let intact = |entry: &&EntryFacts| broken.binary_search(&entry.index).is_err();
            memberships(&mut sink, &shortlist, entries, &intact, split, 2);
            let (kept, omitted) = sink.out.finish();
            let omitted: Vec<_> = (omitted.iter())
                .map(|o| (o.start, o.severity, o.fixable))
                .collect();
            (kept, omitted)
        };
        for broken in [vec![], vec![0, 3, 22]] {
            let (one_pass, _) = run(&broken, Keep::ALL, None);
            let expected = (analysis.diagnostics.iter())
                .filter(|d| d.code == Code::EntryPathNotInShortlist)
                .filter(|d| {
                    let inside = |i: &usize| {
                        entries[*i].range.start <= d.range.start
                            && d.range.end <= entries[*i].range.end
                    };
                    !broken.iter().any(inside)
                });
            assert_eq!(one_pass, expected.cloned().collect::<Vec<_>>());
            assert_eq!(
                one_pass.len(),
                8 - broken.iter().filter(|&&i| i % 3 == 0).count()
            );
            assert!(
                one_pass
                    .iter()
                    .all(|d| d.message.contains("the shortlist has \"./"))
            );
            for keep in [Keep::ALL, Keep::at_most(3)] {
                let one_pass = run(&broken, keep, None);
                for chunks in [2, 3, 5, 23, 40] {
                    for runner in [&Backwards as &dyn RunAll, &OnThreads] {
                        let split = run(&broken, keep, Some((runner, chunks)));
                        assert!(split == one_pass, "{keep:?}, {chunks} chunks");
                    }
                }
                if keep == Keep::at_most(3) {
                    assert_eq!(
                        (one_pass.0.len(), !one_pass.1.is_empty()),
                        (3, true),
                        "the cap is reached"
                    );
                }
            }
        }
    }

    /// The entries' checks split into chunks (run in any order, on any
    /// thread) give what one pass gives: the same facts, broken entries,
    /// kept diagnostics and counts, under a cap that each chunk alone would
    /// fill.
    #[test]
    fn entries_checked_in_chunks_give_what_one_pass_gives() {
        let generated = report(41, 7, 3);
        // Two entries broken by a syntax error (a member without its colon).
        let mut text = generated.clone();
        for nth in [4, 30] {
            let at = text.match_indices("\"op_type\": ").nth(nth).unwrap().0;
            text.replace_range(at..at + 12, "\"op_type\" ");
        }
        // Problems in the shortlist too, which is checked beside the entries.
        let shortlist = text.find("\"shortlist\": [").unwrap() + 14;
        text.insert_str(shortlist, "\"/abs.md\", 3, \"a/../b.md\", ");
        let middle = crate::text::TextRange::new(text.len() / 3, text.len() * 2 / 3);
        for keep in [Keep::at_most(7), Keep::ALL, Keep::touching(middle)] {
            let parse = crate::syntax::parse(&text);
            let root = parse.root().unwrap();
            let items: Vec<Node<'_>> = root.get("entries").unwrap().items().unwrap().collect();
            let run = |split: Option<(&dyn RunAll, usize)>| {
                let mut sink = Sink::new(&text, keep);
                let side = |sink: &mut Sink<'_>| {
                    let shortlist = root.get("shortlist").unwrap();
                    shortlist::check_shortlist(sink, shortlist).find("a/../b.md")
                };
                let (found, (entries, broken)) =
                    check_entries(&mut sink, &items, split, 2, None, side);
                assert!(found.is_some());
                let (mut kept, omitted) = sink.out.finish();
                kept.sort_by(Diagnostic::order);
                let mut at: Vec<_> = omitted
                    .iter()
                    .map(|o| (o.start, o.severity, o.fixable))
                    .collect();
                at.sort();
                (entries, broken, kept, at)
            };
            let one_pass = run(None);
            assert_eq!(one_pass.1.len(), 2, "two broken entries: {:?}", one_pass.1);
            assert!(!one_pass.2.is_empty(), "{keep:?}: nothing kept");
            if keep == Keep::at_most(7) {
                assert_eq!(one_pass.2.len(), 7, "the cap is reached");
                assert!(!one_pass.3.is_empty(), "and some are left out");
            }
            // Two chunks up to more chunks than entries (one entry each).
            for chunks in [2, 3, 5, 41, 100] {
                for runner in [&Backwards as &dyn RunAll, &OnThreads] {
                    assert!(
                        one_pass == run(Some((runner, chunks))),
                        "{keep:?}: one pass and {chunks} chunks differ"
                    );
                }
            }
            // One chunk, or too few entries to split: the calling thread alone.
            assert!(one_pass == run(Some((&Backwards, 1))));
        }
    }
}
