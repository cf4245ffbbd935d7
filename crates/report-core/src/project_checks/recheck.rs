//! The workspace checks again after some files changed in the facts while
//! the report's text did not (a target document typed in, its editor's
//! text laid over its file): only the entries that read one of them are
//! checked again, and the diagnostics of the others are kept. An entry
//! reads its `path` and, for a dedupe, its canonical copy; the other
//! entries of the same `path` are checked with it, since whether two edits
//! overlap is decided between all the entries of one file.

use std::collections::{BTreeMap, HashSet};

use super::WorkspaceFacts;
use super::checks::{Anchor, READ_NO_FILE, check_entry, generated_at, overlaps};
use crate::diagnostic::Diagnostic;
use crate::host::snapshot::Snapshot;
use crate::ide::links::{canonical_files, string_value};
use crate::text::TextRange;
use crate::validate::EntryFacts;

/// `diagnostics` (the workspace diagnostics of this text, sorted as
/// [`super::check`] sorts) with those of the entries reading a file of
/// `changed` (as the report writes it) made again from `facts`, in place.
/// Says whether they changed.
pub fn recheck(
    document: Snapshot<'_>,
    diagnostics: &mut Vec<Diagnostic>,
    facts: &WorkspaceFacts,
    changed: &HashSet<String>,
) -> bool {
    let Some(index) = document.index().filter(|_| facts.root.is_some()) else {
        return false;
    };
    // The files whose entries are checked again: a changed one (its
    // entries found through the index by path, however they write it),
    // and the one a dedupe removes from when its canonical copy changed.
    let mut files: HashSet<&str> = HashSet::new();
    let written = |start: usize| {
        let entry = index.entry_at(start).filter(|e| e.range.start == start)?;
        entry.path.as_ref().map(|(p, _)| p.as_str())
    };
    for name in changed {
        files.extend(
            document
                .entries_naming(name)
                .into_iter()
                .filter_map(written),
        );
    }
    let read = |range: TextRange| document.read(range);
    for entry in index.entries.iter() {
        if let Some((path, _)) = &entry.path
            && canonical_files(entry, &read).any(|copy| changed.contains(&copy))
        {
            files.insert(path);
        }
    }
    if files.is_empty() {
        return false;
    }
    let mut again: Vec<&EntryFacts> = files
        .iter()
        .flat_map(|path| document.entries_naming(path))
        .filter_map(|start| index.entry_at(start).filter(|e| e.range.start == start))
        .collect();
    again.sort_by_key(|e| e.range.start);
    again.dedup_by_key(|e| e.range.start);
    // The last one when the key repeats, as the whole check reads it.
    let generated = index.members.iter().rfind(|m| m.key == "generated_at");
    let generated = generated.and_then(|m| string_value(&document.read(m.value_range)));
    let generated_at = generated_at(generated.as_deref());
    let mut made: Vec<Diagnostic> = Vec::new();
    let mut anchors: BTreeMap<String, Vec<Anchor>> = BTreeMap::new();
    for entry in &again {
        document.entry_starting(entry.range.start, |node, entry_facts, back| {
            // As the whole check, which leaves a broken entry to the syntax errors.
            if node.is_broken() {
                return;
            }
            let mut found = Vec::new();
            let anchor = check_entry(facts, generated_at, node, Some(entry_facts), &mut found);
            if let Some((path, (start, end, range))) = anchor {
                let anchor = (start, end, back.range(range));
                anchors.entry(path.to_string()).or_default().push(anchor);
            }
            for diagnostic in &mut found {
                diagnostic.shift(back);
            }
            made.extend(found);
        });
    }
    overlaps(anchors, &mut made);
    made.sort_by(Diagnostic::order);
    // Those of the entries checked again go, but for the promotion
    // candidates' (on an entry's path too), which read no file.
    let mut gone = Vec::new();
    diagnostics.retain(|d| {
        let goes = !READ_NO_FILE.contains(&d.code) && inside_one(&again, d.range);
        if goes {
            gone.push(d.clone());
        }
        !goes
    });
    let differs = gone != made;
    // The kept ones are in order: the sort merges the two runs.
    diagnostics.extend(made);
    diagnostics.sort_by(Diagnostic::order);
    differs
}

/// Whether `range` lies inside one of `entries` (in document order).
fn inside_one(entries: &[&EntryFacts], range: TextRange) -> bool {
    let after = entries.partition_point(|e| e.range.start <= range.start);
    after
        .checked_sub(1)
        .is_some_and(|i| range.end <= entries[i].range.end)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};
    use std::sync::Arc;

    use super::super::{FileKind, check};
    use crate::diagnostic::Code;
    use crate::host::{DocumentHost, HostOptions};

    const OPTIONS: HostOptions = HostOptions {
        max_diagnostics: 1000,
        name_matches: true,
        max_document_bytes: 1 << 20,
    };

    /// The golden report with a second delete-range of `docs/old-api.md`
    /// overlapping the first (lines 50-70 against 22-61).
    fn report() -> (String, super::WorkspaceFacts) {
        let (text, mut facts) = crate::clean_edit::tests::golden();
        let analysis = crate::analyze(&text);
        let entries = analysis.root().unwrap().get("entries").unwrap();
        let third = entries.items().unwrap().nth(2).unwrap().range();
        let copy = text[third.as_range()]
            .replace("\"start_line\": 22", "\"start_line\": 50")
            .replace("\"end_line\": 61", "\"end_line\": 70");
        assert_ne!(copy, text[third.as_range()], "the anchor was rewritten");
        let text = format!("{},\n{copy}{}", &text[..third.end], &text[third.end..]);
        // Modified after the check ran: said whichever entries are checked again.
        facts.files.get_mut("docs/old-api.md").unwrap().modified_ms = Some(1 << 42);
        // A promotion candidate the report lacks, on the hand-off entry's path.
        facts.conventions = Some(
            r#"{"conventions": [{"name": "meeting-notes", "pitch": "p", "rule_refs": ["rules/handoff-notes"]}]}"#.into(),
        );
        // A broken entry first (a value missing): the whole check skips it,
        // and numbers the entries after it as their facts are.
        let first = text.find("\"entries\": [").unwrap() + "\"entries\": [".len();
        let broken = r#"{"path": "docs/old-api.md", "op": },"#;
        let text = format!("{}{broken}{}", &text[..first], &text[first..]);
        (text, facts)
    }

    /// Each way a target's text changes under an entry: a line of every
    /// anchor changed, a line inserted at the top (the content moves),
    /// the file cut to 30 lines (anchors past its end).
    fn changes(text: &str) -> Vec<(&'static str, String)> {
        let lines: Vec<&str> = text.lines().collect();
        let changed: String = lines
            .iter()
            .enumerate()
            .map(|(i, l)| match i % 7 {
                3 => "changed\n".to_string(),
                _ => format!("{l}\n"),
            })
            .collect();
        let cut: String = lines.iter().take(30).map(|l| format!("{l}\n")).collect();
        vec![
            ("changed", changed),
            ("moved", format!("a new first line\n{text}")),
            ("cut", cut),
        ]
    }

    #[test]
    fn checking_again_the_entries_of_a_changed_file_equals_checking_all() {
        let (text, before) = report();
        let whole_text = text.replacen("\"tool_version\"", ",\"tool_version\"", 1);
        let mut codes_changed: BTreeSet<Code> = BTreeSet::new();
        for text in [text, whole_text] {
            let analysis = crate::analyze(&text);
            let host = DocumentHost::new(text.clone(), None, OPTIONS);
            let previous = check(&analysis, &before);
            assert!(previous.iter().any(|d| d.code == Code::OverlappingEdits));
            assert!(previous.iter().any(|d| d.code == Code::ModifiedAfterCheck));
            assert!(
                previous
                    .iter()
                    .any(|d| d.code == Code::PromotionCandidateMissing)
            );
            let files: Vec<String> = before
                .files
                .iter()
                .filter(|(_, f)| f.kind == FileKind::File && f.text.is_some())
                .map(|(p, _)| p.clone())
                .collect();
            for path in files {
                let original = before.files[&path].text.clone().unwrap();
                for (how, changed_text) in changes(&original) {
                    let mut after = before.clone();
                    let file = after.files.get_mut(&path).unwrap();
                    file.text = Some(Arc::from(changed_text.as_str()));
                    file.sha256 = Some(format!("{:064}", changed_text.len()));
                    let changed = HashSet::from([path.clone()]);
                    let expected = check(&analysis, &after);
                    let mut again = previous.clone();
                    let differs = host.recheck_workspace(&mut again, &after, &changed);
                    assert_eq!(again, expected, "{path} {how}");
                    assert_eq!(differs, expected != previous, "{path} {how}");
                    // And back: the file as it was.
                    let mut back = again.clone();
                    host.recheck_workspace(&mut back, &before, &changed);
                    assert_eq!(back, previous, "{path} {how}, undone");
                    let codes = |d: &[crate::diagnostic::Diagnostic]| -> BTreeSet<Code> {
                        d.iter().map(|d| d.code).collect()
                    };
                    let gained = codes(&expected);
                    codes_changed.extend(gained.symmetric_difference(&codes(&previous)));
                    codes_changed.extend(
                        expected
                            .iter()
                            .filter(|d| !previous.contains(d))
                            .map(|d| d.code),
                    );
                }
            }
        }
        // The changes reached every check that reads a file's text.
        for code in [
            Code::StaleExactEdit,
            Code::AnchorPastEnd,
            Code::ReplaceMatchMissing,
            Code::DedupeDiverged,
            Code::OverlappingEdits,
        ] {
            assert!(codes_changed.contains(&code), "{code:?} never changed");
        }
    }

    #[test]
    fn a_change_no_entry_reads_keeps_the_diagnostics() {
        let (text, before) = report();
        let host = DocumentHost::new(text.clone(), None, OPTIONS);
        let previous = check(&crate::analyze(&text), &before);
        let changed = HashSet::from(["docs/not-named.md".to_string()]);
        let mut kept = previous.clone();
        assert!(!host.recheck_workspace(&mut kept, &before, &changed));
        assert_eq!(kept, previous);
    }

    /// The checks and their request read entry by entry (a report kept per
    /// entry) answer what they answer of a full analysis: in the envelope
    /// (the root unknown, the shortlist, `conventions.json`), in entries
    /// (a broken one first, overlapping edits, candidates) and after edits
    /// that move the entries and the envelope's members.
    #[test]
    fn a_report_kept_per_entry_is_checked_as_its_full_analysis() {
        let (text, mut facts) = report();
        let mut host = DocumentHost::new(text.clone(), None, OPTIONS);
        host.settle();
        // Every path the report names and the facts lack is missing.
        for request in super::super::request(&crate::analyze(&text)).paths {
            facts
                .files
                .entry(request.path)
                .or_insert_with(super::super::FileFacts::missing);
        }
        let unknown_root = super::super::WorkspaceFacts {
            root: None,
            ..facts.clone()
        };
        let unread_conventions = super::super::WorkspaceFacts {
            conventions: Some("{".into()),
            ..facts.clone()
        };
        let other_conventions = super::super::WorkspaceFacts {
            conventions: Some(
                r#"{"conventions": [{"name": "decision-log", "pitch": "another", "rule_refs": []}]}"#.into(),
            ),
            ..facts.clone()
        };
        let all = [facts, unknown_root, unread_conventions, other_conventions];
        let mut codes = BTreeSet::new();
        let mut assert_same = |host: &DocumentHost<String>, when: &str| {
            assert!(host.status().entries.is_some(), "per entry {when}");
            let full = crate::analyze(host.text());
            assert_eq!(
                *host.project_request(None),
                super::super::request(&full),
                "{when}"
            );
            for (i, facts) in all.iter().enumerate() {
                let ours = host.workspace_check(facts, None);
                assert_eq!(ours, check(&full, facts), "{when}, facts {i}");
                codes.extend(ours.iter().map(|d| d.code));
            }
        };
        assert_same(&host, "opened");
        // An entry inserted first, then the envelope before the entries
        // made longer: every entry and the shortlist move.
        // A copy of the first intact entry (the broken one comes first).
        let (at, copy) = {
            let full = crate::analyze(host.text());
            let entries = full.root().unwrap().get("entries").unwrap();
            let intact = entries.items().unwrap().find(|e| !e.is_broken()).unwrap();
            let range = intact.range();
            (range.start, host.text()[range.as_range()].to_string())
        };
        fn edit(host: &mut DocumentHost<String>, at: usize, inserted: &str) {
            let mut edited = host.text().clone();
            edited.insert_str(at, inserted);
            let edit = crate::text::ByteEdit {
                range: crate::text::TextRange::empty(at),
                new_len: inserted.len(),
            };
            host.update(edited, Some(&[edit]), OPTIONS);
            host.settle();
        }
        edit(&mut host, at, &format!("{copy},\n    "));
        let tool = host.text().find("\"tool_version\": \"").unwrap() + "\"tool_version\": \"".len();
        edit(&mut host, tool, "新しい😀 ");
        assert_same(&host, "edited");
        for code in [
            Code::WorkspaceRootUnknown,
            Code::PathMissing,
            Code::OverlappingEdits,
            Code::ModifiedAfterCheck,
            Code::PromotionCandidateMissing,
            Code::ConventionUnknown,
            Code::ConventionPitchMismatch,
        ] {
            assert!(codes.contains(&code), "{code:?} never said");
        }
    }
}
