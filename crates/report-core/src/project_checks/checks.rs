//! The workspace checks of invariant 13, each a function of the facts the
//! caller gathered: paths exist, edits are not stale, anchors fit, edits do
//! not overlap, dedupes are verified, the live lifecycle tier, promotion
//! candidates against `conventions.json`, freshness, replace-text matches.

use std::collections::BTreeMap;

use super::conventions::{Convention, entry_candidates, parse_conventions};
use super::{
    FileFacts, FileKind, Sourced, TokenSpan, WorkspaceFacts, anchored_lines, items, token_span,
};
use crate::Analysis;
use crate::cancel::Wanted;
use crate::diagnostic::{Code, Diagnostic};
use crate::host::snapshot::ReportTree;
use crate::schema::SafetyTier;
use crate::syntax::{Node, Value};
use crate::text::TextRange;
use crate::tier::{self, Derivation, Evidence, Fact, LifecycleInput, Outcome, TierInputs};
use crate::validate::EntryFacts;

/// The editor refuses to read the project root `shown` (as shown to people):
/// it lies outside every workspace folder. One information diagnostic on
/// `scan.project_root` (at `range`, [`super::ProjectRequest::root_range`])
/// says so and names the setting that allows it.
pub fn root_outside_workspace(range: TextRange, shown: &str) -> Diagnostic {
    Diagnostic::new(
        Code::RootOutsideWorkspace,
        range,
        format!(
            "the project root `{shown}` lies outside every workspace folder and is not read: the report is not checked against its files and git (the setting allowRootOutsideWorkspace allows it)"
        ),
    )
}

/// Every workspace diagnostic of `analysis` under `facts`, sorted.
pub fn check(analysis: &Analysis, facts: &WorkspaceFacts) -> Vec<Diagnostic> {
    check_report(&ReportTree::Whole(analysis), facts, None)
}

/// [`check`] of a report however it is analysed: its root and then each
/// entry in turn, so that one kept per entry is never parsed whole.
/// `wanted` is asked now and then (see `cancel`).
pub(crate) fn check_report(
    report: &ReportTree<'_>,
    facts: &WorkspaceFacts,
    wanted: Option<Wanted<'_>>,
) -> Vec<Diagnostic> {
    let Some(root) = report.root() else {
        return Vec::new();
    };
    // Those found in the root's text, moved to the document's at the end.
    let mut in_root = Vec::new();
    if facts.root.is_none() {
        let range = super::project_root_of(root).map_or(TextRange::empty(0), |n| n.range());
        in_root.push(Diagnostic::new(
            Code::WorkspaceRootUnknown,
            range,
            "no project root found (scan.project_root does not name a folder, and no workspace folder holds the report): the report is not checked against the project's files and git",
        ));
        return moved_back(report, in_root);
    }
    let mut shortlist = Vec::new();
    for item in items(root, "shortlist") {
        let node = match item.as_str() {
            Some(_) => Some(item),
            None => item.get("path"),
        };
        if let Some(node) = node {
            path_exists(facts, node, &mut shortlist);
        }
    }
    // Moved now, and the entries' added to them: a big report's shortlist
    // and entries are not held in two lists at once.
    let mut out = moved_back(report, shortlist);
    let generated_at = generated_at(root.get("generated_at").and_then(Node::as_str));
    let conventions = facts.conventions.as_deref().map(parse_conventions);
    let adoptable = match &conventions {
        Some(Ok(conventions)) => conventions.as_slice(),
        _ => &[],
    };
    let mut anchors: BTreeMap<String, Vec<Anchor>> = BTreeMap::new();
    let mut expected = Vec::new();
    let mut index = 0;
    report.each_entry(|entry, entry_facts, back| {
        crate::cancel::at_entry(index, wanted);
        index += 1;
        let mut found = Vec::new();
        if let Some((path, (start, end, range))) =
            check_entry(facts, generated_at, entry, entry_facts, &mut found)
        {
            let anchor = (start, end, back.range(range));
            anchors.entry(path.to_string()).or_default().push(anchor);
        }
        for (path, convention) in entry_candidates(entry, adoptable) {
            let written = path.as_str().unwrap_or("").to_string();
            expected.push((written, back.range(path.range()), convention));
        }
        for diagnostic in &mut found {
            diagnostic.shift(back);
        }
        out.extend(found);
    });
    overlaps(anchors, &mut out);
    if let Some(conventions) = &conventions {
        promotion(conventions, root, &expected, &mut in_root, &mut out);
    }
    out.extend(moved_back(report, in_root));
    out.sort_by(Diagnostic::order);
    out
}

/// Diagnostics found in `report`'s root, with the document's ranges.
fn moved_back(report: &ReportTree<'_>, mut found: Vec<Diagnostic>) -> Vec<Diagnostic> {
    for diagnostic in &mut found {
        diagnostic.range = report.back(diagnostic.range);
        for related in &mut diagnostic.related {
            related.range = report.back(related.range);
        }
        for edit in diagnostic.fix.iter_mut().flat_map(|f| f.edits.iter_mut()) {
            edit.range = report.back(edit.range);
        }
    }
    found
}

/// The codes of the checks that read no file's facts (only the report and
/// `conventions.json`): a change of files leaves them as they were, even
/// on the entries checked again (by the recheck).
pub(super) const READ_NO_FILE: [Code; 3] = [
    Code::ConventionUnknown,
    Code::ConventionPitchMismatch,
    Code::PromotionCandidateMissing,
];

/// The report's `generated_at`, when it is a valid timestamp.
pub(super) fn generated_at(written: Option<&str>) -> Option<jiff::Timestamp> {
    written
        .filter(|t| crate::validate::check_generated_at(t).is_ok())
        .and_then(|t| t.replace(',', ".").parse::<jiff::Timestamp>().ok())
}

/// An exact edit's anchored lines and the range of its `anchor`, which
/// [`overlaps`] compares with the other edits of the same file.
pub(super) type Anchor = (u64, u64, TextRange);

/// The checks of one entry: its path, its file's freshness, its exact
/// edit, its live tier and its token count. Returns the path and anchor
/// that [`overlaps`] compares across the entries, when its edit has one.
pub(super) fn check_entry<'t>(
    facts: &WorkspaceFacts,
    generated_at: Option<jiff::Timestamp>,
    entry: Node<'t>,
    facts_of_entry: Option<&EntryFacts>,
    out: &mut Vec<Diagnostic>,
) -> Option<(&'t str, Anchor)> {
    let path_node = entry.get("path")?;
    let path = path_node.as_str()?;
    path_exists(facts, path_node, out);
    let file = facts.file(path);
    if let (Some(at), Some(modified)) = (generated_at, file.and_then(|f| f.modified_ms))
        && modified > at.as_millisecond()
    {
        out.push(Diagnostic::new(
            Code::ModifiedAfterCheck,
            path_node.range(),
            format!("`{path}` was modified after the check ran ({}): the entry may describe an older version", format_ms(modified)),
        ));
    }
    let anchor = entry
        .get("exact_edit")
        .and_then(|edit| exact_edit(facts, path, file, edit, out));
    if let Some(live) = live_derivation(facts, entry, facts_of_entry) {
        live_tier(entry, facts_of_entry, &live, out);
    }
    token_count(facts, entry, out);
    anchor.map(|anchor| (path, anchor))
}

/// Check 1: the path names a file (a folder, for `dir/`) inside the root.
fn path_exists(facts: &WorkspaceFacts, node: Node<'_>, out: &mut Vec<Diagnostic>) {
    let Some(path) = node.as_str() else { return };
    let Some(file) = facts.file(path) else { return };
    let wants_folder = path.ends_with('/');
    let problem = match (&file.kind, wants_folder) {
        (FileKind::File, false) | (FileKind::Directory, true) => return,
        (FileKind::Missing, _) => (
            Code::PathMissing,
            format!("`{path}` no longer exists: the report is older than the tree"),
        ),
        (FileKind::File, true) => (
            Code::PathMissing,
            format!(
                "`{path}` names a folder, but a file is there: the report is older than the tree"
            ),
        ),
        (FileKind::Directory, false) => (
            Code::PathMissing,
            format!(
                "`{path}` names a file, but a folder is there: the report is older than the tree"
            ),
        ),
        (FileKind::Refused(why), _) => (
            Code::PathOutsideRoot,
            format!("`{path}` is not read: {why}"),
        ),
        (FileKind::Unreadable(why), _) => (
            Code::PathUnreadable,
            format!("`{path}` cannot be read: {why}"),
        ),
    };
    out.push(Diagnostic::new(problem.0, node.range(), problem.1));
}

fn number(node: Option<Node<'_>>) -> Option<u64> {
    match node?.value() {
        Value::Number(n) => n.parse().ok(),
        _ => None,
    }
}

/// The anchor's `(start_line, end_line)`, when both are integers.
pub(crate) fn anchor_of(edit: Node<'_>) -> Option<(u64, u64, Node<'_>)> {
    let anchor = edit.get("anchor")?;
    Some((
        number(anchor.get("start_line"))?,
        number(anchor.get("end_line"))?,
        anchor,
    ))
}

/// Checks 2, 3 and 7 on one exact edit; its anchor, when it is one that
/// must not overlap another edit's.
fn exact_edit(
    facts: &WorkspaceFacts,
    path: &str,
    file: Option<&FileFacts>,
    edit: Node<'_>,
    out: &mut Vec<Diagnostic>,
) -> Option<Anchor> {
    let file = file.filter(|f| f.kind == FileKind::File)?;
    if let (Some(expected), Some(actual)) = (
        edit.get("expected_sha256").filter(|n| n.as_str().is_some()),
        &file.sha256,
    ) && expected.as_str() != Some(actual.as_str())
    {
        out.push(Diagnostic::new(
            Code::StaleExactEdit,
            expected.range(),
            format!("`{path}` has changed since the check (its sha256 is now {actual}): the cleaner would refuse this cached edit; regenerate the report"),
        ));
    }
    let kind = edit.get("kind").and_then(Node::as_str);
    let whole_file = matches!(kind, Some("delete" | "extract-then-delete"));
    let (start, end, anchor) = anchor_of(edit)?;
    let text = file.text.as_ref()?;
    let Some(lines) = anchored_lines(text, start, end) else {
        out.push(Diagnostic::new(
            Code::AnchorPastEnd,
            anchor.range(),
            format!(
                "lines {start}-{end} lie outside `{path}`, which has {} lines now",
                text.lines().count()
            ),
        ));
        return None;
    };
    match kind {
        Some("replace-text") => {
            if let Some(pattern) = edit.get("match")
                && let Some(wanted) = pattern.as_str()
                && !lines.join("\n").contains(wanted)
            {
                out.push(Diagnostic::new(
                    Code::ReplaceMatchMissing,
                    pattern.range(),
                    format!("`match` no longer occurs in lines {start}-{end} of `{path}`: the replacement would do nothing"),
                ));
            }
        }
        Some("dedupe") => dedupe(facts, path, &lines, edit, out),
        _ => {}
    }
    (!whole_file).then_some((start, end, anchor.range()))
}

/// Check 3: the removed span must survive verbatim at `canonical_ref`.
fn dedupe(
    facts: &WorkspaceFacts,
    path: &str,
    removed: &[&str],
    edit: Node<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let Some(reference) = edit.get("canonical_ref") else {
        return;
    };
    let Some(Ok((target, start, end))) =
        reference.as_str().map(crate::validate::parse_canonical_ref)
    else {
        return;
    };
    let Some(text) = facts
        .file(target)
        .filter(|f| f.kind == FileKind::File)
        .and_then(|f| f.text.as_deref())
    else {
        return;
    };
    let kept = anchored_lines(text, start, end);
    let message = match kept {
        None => format!(
            "`canonical_ref` points at lines {start}-{end} of `{target}`, which has {} lines: the removed span of `{path}` is preserved nowhere, so this dedupe would lose information (is_destructive false and tier auto are wrong)",
            text.lines().count()
        ),
        Some(kept) if kept != removed => format!(
            "lines {start}-{end} of `{target}` differ from the span removed from `{path}`: the removed span is not preserved verbatim, so this dedupe would lose information (is_destructive false and tier auto are wrong)"
        ),
        Some(_) => return,
    };
    out.push(Diagnostic::new(
        Code::DedupeDiverged,
        reference.range(),
        message,
    ));
}

/// Two deterministic edits of one file must not touch the same lines.
pub(super) fn overlaps<P: AsRef<str>>(
    anchors: BTreeMap<P, Vec<Anchor>>,
    out: &mut Vec<Diagnostic>,
) {
    for (path, mut spans) in anchors {
        let path = path.as_ref();
        spans.sort();
        for pair in spans.windows(2) {
            let ((s1, e1, r1), (s2, e2, r2)) = (pair[0], pair[1]);
            if s2 <= e1 {
                out.push(
                    Diagnostic::new(
                        Code::OverlappingEdits,
                        r2,
                        format!("lines {s2}-{e2} of `{path}` overlap lines {s1}-{e1}, which another exact edit changes: the second edit would apply to text the first has changed"),
                    )
                    .with_related(r1, "the other edit's anchor"),
                );
            }
        }
    }
}

/// The facts of the live derivation of one lifecycle entry, each with its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveFacts {
    pub satisfied: Sourced,
    pub tracked: Sourced,
    pub clean: Sourced,
    pub derivation: Derivation,
}

/// Check 4's derivation: the lifecycle argument from the tree, through
/// `derive_safety_tier` (the only code that computes a tier).
pub(crate) fn live_derivation(
    facts: &WorkspaceFacts,
    entry: Node<'_>,
    entry_facts: Option<&EntryFacts>,
) -> Option<LiveFacts> {
    let inputs: TierInputs = entry_facts?.tier.as_ref()?.derivation.inputs;
    let lifecycle = inputs.lifecycle?;
    let path = entry.get("path")?.as_str()?;
    let satisfied = match lifecycle.evidence {
        Evidence::ServedWhenPath => {
            let served = [
                entry.lookup("/lifecycle/served_when_path"),
                entry.lookup("/exact_edit/lifecycle/served_when_path"),
            ]
            .into_iter()
            .flatten()
            .find_map(Node::as_str);
            match served.and_then(|s| Some((s, facts.file(s)?))) {
                Some((s, f)) => match &f.kind {
                    FileKind::File | FileKind::Directory => Sourced {
                        fact: Fact::Yes,
                        source: format!("`{s}` exists"),
                    },
                    FileKind::Missing => Sourced {
                        fact: Fact::No,
                        source: format!("`{s}` does not exist"),
                    },
                    FileKind::Refused(why) | FileKind::Unreadable(why) => Sourced {
                        fact: Fact::Unknown,
                        source: format!("`{s}` not read: {why}"),
                    },
                },
                None => unknown("the served path was not looked at"),
            }
        }
        Evidence::TemporaryAge => unknown("the retention age is the scanner's computation"),
        _ => unknown("no scanner-proven evidence"),
    };
    let (tracked, clean) = match &facts.git {
        Some(git) => (git.tracked(path), git.clean(path)),
        None => {
            let why = facts.git_absent.as_deref().unwrap_or("no git work tree");
            (unknown(why), unknown(why))
        }
    };
    let derivation = tier::derive_safety_tier(TierInputs {
        lifecycle: Some(LifecycleInput {
            evidence: lifecycle.evidence,
            satisfied: satisfied.fact,
            tracked: tracked.fact,
            clean: clean.fact,
        }),
        ..inputs
    });
    Some(LiveFacts {
        satisfied,
        tracked,
        clean,
        derivation,
    })
}

fn unknown(source: &str) -> Sourced {
    Sourced {
        fact: Fact::Unknown,
        source: source.into(),
    }
}

/// Check 4: a recorded `auto` that the live state no longer gives.
fn live_tier(
    entry: Node<'_>,
    entry_facts: Option<&EntryFacts>,
    live: &LiveFacts,
    out: &mut Vec<Diagnostic>,
) {
    let recorded = entry_facts.and_then(|f| Some((f.tier.as_ref()?, f.range.start)));
    let Some(range) = recorded
        .filter(|(t, _)| t.recorded == Some(SafetyTier::Auto))
        .and_then(|(t, start)| Some(t.recorded_range?.at(start)))
    else {
        return;
    };
    // Only a known fact that changed is reported: an unknown one (no git) is
    // shown in the hover, since it says nothing about the tree.
    let Some(step) = live
        .derivation
        .deciding_rule()
        .filter(|s| s.outcome == Outcome::Failed)
    else {
        return;
    };
    let source = match step.rule {
        tier::Rule::LifecycleSatisfied => &live.satisfied.source,
        tier::Rule::LifecycleTracked => &live.tracked.source,
        tier::Rule::LifecycleClean => &live.clean.source,
        _ => return,
    };
    let path = entry.get("path").and_then(Node::as_str).unwrap_or("");
    out.push(Diagnostic::new(
        Code::LiveTierConfirm,
        range,
        format!(
            "`safety_tier` is \"auto\", but derived from the tree now it is \"confirm\": {} for `{path}` is no ({source})",
            step.rule.question()
        ),
    ));
}

/// Check 5: candidates against `conventions.json` and the finalize rule.
/// `expected` holds the candidates the entries call for (the path as
/// written, its range in the document, the convention); what is found in
/// `root` goes to `in_root`, what is found on an entry to `out`.
fn promotion(
    conventions: &Result<Vec<Convention>, String>,
    root: Node<'_>,
    expected: &[(String, TextRange, &Convention)],
    in_root: &mut Vec<Diagnostic>,
    out: &mut Vec<Diagnostic>,
) {
    let conventions = match conventions {
        Ok(conventions) => conventions,
        Err(why) => {
            let range = root
                .get("promotion_candidates")
                .map_or(TextRange::empty(0), |n| n.range());
            in_root.push(Diagnostic::new(
                Code::ConventionUnknown,
                range,
                format!("conventions.json is not read: {why}"),
            ));
            return;
        }
    };
    let mut present = Vec::new();
    for candidate in items(root, "promotion_candidates") {
        let path = candidate.get("path").and_then(Node::as_str);
        let Some(name_node) = candidate.get("name") else {
            continue;
        };
        let Some(name) = name_node.as_str() else {
            continue;
        };
        present.push((path.unwrap_or(""), name));
        match conventions.iter().find(|c| c.name == name) {
            None => in_root.push(Diagnostic::new(
                Code::ConventionUnknown,
                name_node.range(),
                format!("conventions.json has no convention named \"{name}\""),
            )),
            Some(convention) => {
                if let Some(pitch) = candidate.get("pitch")
                    && pitch.as_str().is_some_and(|p| p != convention.pitch)
                {
                    in_root.push(Diagnostic::new(
                        Code::ConventionPitchMismatch,
                        pitch.range(),
                        format!(
                            "the pitch of \"{name}\" in conventions.json is \"{}\"",
                            convention.pitch
                        ),
                    ));
                }
            }
        }
    }
    for (path, range, convention) in expected {
        if !present.contains(&(path.as_str(), convention.name.as_str())) {
            out.push(Diagnostic::new(
                Code::PromotionCandidateMissing,
                *range,
                format!(
                    "the finalize rule gives a promotion candidate for `{path}` the report lacks: {{\"path\": \"{path}\", \"name\": \"{}\", \"pitch\": \"{}\"}}",
                    convention.name, convention.pitch
                ),
            ));
        }
    }
}

/// What check 8 found for one entry's `raw_tokens`.
pub(super) struct Recount<'t> {
    /// The `raw_tokens` value node.
    pub raw: Node<'t>,
    pub recorded: Option<u64>,
    pub path: &'t str,
    /// The recounted span, or why none is recounted.
    pub span: Result<TokenSpan, &'static str>,
    /// The tokenizer's count of the span, or why there is none.
    pub counted: Result<u64, String>,
}

/// Check 8's facts for `entry`, or None when it has no `raw_tokens` or
/// nothing was recounted.
pub(super) fn recount<'t>(facts: &WorkspaceFacts, entry: Node<'t>) -> Option<Recount<'t>> {
    let tokens = facts.tokens.as_ref()?;
    let raw = entry.lookup("/token_estimate/raw_tokens")?;
    let path = entry.get("path").and_then(Node::as_str).unwrap_or("");
    let span =
        token_span(entry)
            .map(|(_, span)| span)
            .ok_or_else(|| match entry.get("exact_edit") {
                None => "no exact edit: a generative op's reduction is the model's rewrite",
                Some(_) if path.ends_with('/') => "a folder's tokens are not recounted",
                Some(_) => "this exact edit removes no span of the file",
            });
    let counted = match &span {
        Err(why) => Err(why.to_string()),
        Ok(span) => match tokens.counts.get(&(path.to_string(), *span)) {
            Some(counted) => counted.clone(),
            None => Err("not recounted: the file was not read".into()),
        },
    };
    Some(Recount {
        raw,
        recorded: number(Some(raw)),
        path,
        span,
        counted,
    })
}

/// Check 8: `raw_tokens` against the tokenizer's recount of its span.
fn token_count(facts: &WorkspaceFacts, entry: Node<'_>, out: &mut Vec<Diagnostic>) {
    let (Some(tokens), Some(found)) = (&facts.tokens, recount(facts, entry)) else {
        return;
    };
    let (Some(recorded), Ok(counted), Ok(span)) = (found.recorded, &found.counted, found.span)
    else {
        return;
    };
    if !tokens.differs(recorded, *counted) {
        return;
    }
    out.push(Diagnostic::new(
        Code::TokenCountMismatch,
        found.raw.range(),
        format!(
            "`raw_tokens` is {recorded}, but {} counts {counted} tokens in {span} of `{}` now (more than {}% apart)",
            tokens.encoding,
            found.path,
            percent(tokens.tolerance)
        ),
    ));
}

/// A fraction as a percentage for people: 0.1 is "10".
pub(super) fn percent(fraction: f64) -> String {
    let value = fraction * 100.0;
    if (value - value.round()).abs() < 1e-9 {
        format!("{}", value.round() as i64)
    } else {
        format!("{value:.1}")
    }
}

/// A time in ms since the epoch, as ISO-8601 UTC.
pub(super) fn format_ms(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map_or_else(|_| ms.to_string(), |t| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project_checks::{FileFacts, GitFacts, Worktree};

    const REPORT: &str = r#"{"schema_version": "1.0", "tool_version": "t", "generated_at": "2099-01-01T00:00:00Z",
"scan": {"project_root": ".", "scope_globs": [], "excluded_dirs": [], "files_scanned": 1},
"shortlist": ["p.md"],
"entries": [{"path": "p.md", "category": {"class": "stale", "subtype": "completed-in-place"}, "signals": [],
 "op": "delete", "op_type": "deterministic", "is_destructive": true, "is_reversible": true, "safety_tier": "auto",
 "token_estimate": {"raw_tokens": 1},
 "lifecycle": {"rule_ref": "r", "lifetime": "delete-once-served", "served_when_path": "done.md"},
 "exact_edit": {"kind": "delete", "anchor": {"start_line": 1, "end_line": 1},
  "lifecycle": {"rule_ref": "r", "lifetime": "delete-once-served", "served_when_path": "done.md"},
  "expected_sha256": "0000000000000000000000000000000000000000000000000000000000000000"}}],
"promotion_candidates": []}"#;

    fn facts(git: Option<GitFacts>) -> WorkspaceFacts {
        let mut file = FileFacts::of_kind(FileKind::File);
        file.sha256 = Some("0".repeat(64));
        let mut facts = WorkspaceFacts {
            root: Some("/p".into()),
            git,
            ..Default::default()
        };
        facts.files.insert("p.md".into(), file.clone());
        facts.files.insert("done.md".into(), file);
        facts
    }

    #[test]
    fn the_live_tier_is_auto_only_on_known_tracked_clean_facts() {
        let analysis = crate::analyze(REPORT);
        assert!(analysis.is_valid(), "{:?}", analysis.diagnostics);
        let mut git = GitFacts::default();
        git.insert("p.md", true, Worktree::Clean);
        assert_eq!(check(&analysis, &facts(Some(git.clone()))), vec![]);
        git.insert(
            "p.md",
            true,
            Worktree::Changed("modified in the worktree".into()),
        );
        let found = check(&analysis, &facts(Some(git)));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, Code::LiveTierConfirm);
        // Undecided by reading (a filter applies): unknown, so confirm, but
        // no fact of the tree changed.
        let mut filtered = GitFacts::default();
        filtered.insert("p.md", true, Worktree::Undecided("a filter applies".into()));
        let entry = analysis.root().unwrap().lookup("/entries/0").unwrap();
        let live = live_derivation(
            &facts(Some(filtered.clone())),
            entry,
            analysis.entries.first(),
        )
        .unwrap();
        assert_eq!(live.derivation.tier, SafetyTier::Confirm);
        assert_eq!(live.clean.fact, Fact::Unknown);
        assert_eq!(live.clean.source, "a filter applies");
        assert_eq!(check(&analysis, &facts(Some(filtered))), vec![]);
        // A path git was not asked about is unknown too, never clean.
        let live = live_derivation(
            &facts(Some(GitFacts::default())),
            entry,
            analysis.entries.first(),
        )
        .unwrap();
        assert_eq!(live.derivation.tier, SafetyTier::Confirm);
        assert_eq!(live.tracked.fact, Fact::Unknown);
        // Without git the facts are unknown: the tier is confirm, but no fact changed.
        let entry = analysis.root().unwrap().lookup("/entries/0").unwrap();
        let live = live_derivation(&facts(None), entry, analysis.entries.first()).unwrap();
        assert_eq!(live.derivation.tier, SafetyTier::Confirm);
        assert_eq!(live.tracked.fact, Fact::Unknown);
        assert_eq!(check(&analysis, &facts(None)), vec![]);
    }

    fn with_tokens(mut facts: WorkspaceFacts, counted: Result<u64, String>) -> WorkspaceFacts {
        let mut tokens = super::super::TokenCounts {
            encoding: "o200k_base".into(),
            tolerance: 0.1,
            ..Default::default()
        };
        tokens
            .counts
            .insert(("p.md".into(), TokenSpan::WholeFile), counted);
        facts.tokens = Some(tokens);
        facts
    }

    #[test]
    fn raw_tokens_far_from_the_recount_get_a_hint_and_both_show_in_the_hover() {
        let analysis = crate::analyze(REPORT);
        let mut git = GitFacts::default();
        git.insert("p.md", true, Worktree::Clean);
        let plain = facts(Some(git));
        // Nothing recounted: silent.
        assert_eq!(check(&analysis, &plain), vec![]);
        // Recorded 1, recounted 1: within the tolerance.
        assert_eq!(check(&analysis, &with_tokens(plain.clone(), Ok(1))), vec![]);
        let found = check(&analysis, &with_tokens(plain.clone(), Ok(40)));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, Code::TokenCountMismatch);
        assert_eq!(found[0].severity, crate::diagnostic::Severity::Hint);
        assert_eq!(&REPORT[found[0].range.start..found[0].range.end], "1");
        assert_eq!(
            found[0].message,
            "`raw_tokens` is 1, but o200k_base counts 40 tokens in the whole file of `p.md` now (more than 10% apart)"
        );
        // A count that could not be made says nothing.
        let unread = with_tokens(plain.clone(), Err("not read".into()));
        assert_eq!(check(&analysis, &unread), vec![]);

        let entry = analysis.root().unwrap().lookup("/entries/0").unwrap();
        let at = REPORT.find("\"raw_tokens\"").unwrap() + 2;
        let hover = |facts: &WorkspaceFacts| {
            crate::project_checks::hover(entry, analysis.entries.first(), facts, at)
                .map(|h| h.markdown)
        };
        let markdown = hover(&with_tokens(plain.clone(), Ok(40))).unwrap();
        assert_eq!(
            markdown,
            "**Token recount** (o200k_base, offline)\n\n- recorded: 1\n- recounted: 40, in the whole file of `p.md` as it is now\n\nmore than the tolerance of 10%\n"
        );
        let markdown = hover(&unread).unwrap();
        assert!(
            markdown.contains("- recounted: none (not read)"),
            "{markdown}"
        );
        // Without recounts the hover there is the glossary's alone.
        assert_eq!(hover(&plain), None);
    }

    #[test]
    fn no_root_is_said_once() {
        let analysis = crate::analyze(REPORT);
        let found = check(&analysis, &WorkspaceFacts::default());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, Code::WorkspaceRootUnknown);
    }

    #[test]
    fn a_root_outside_the_workspace_is_said_on_project_root_and_the_hover_says_why() {
        let analysis = crate::analyze(REPORT);
        let range = super::super::request(&analysis).root_range;
        let said = root_outside_workspace(range, "/elsewhere");
        assert_eq!(said.code, Code::RootOutsideWorkspace);
        assert_eq!(said.severity, crate::diagnostic::Severity::Information);
        assert_eq!(&REPORT[said.range.start..said.range.end], "\".\"");
        assert!(
            said.message.contains("`/elsewhere`")
                && said.message.contains("allowRootOutsideWorkspace"),
            "{}",
            said.message
        );

        // Facts not read: where they would show, the hover says why, and nothing else.
        let not_read = WorkspaceFacts {
            not_read: Some("the workspace checks are off".into()),
            ..facts(None)
        };
        let entry = analysis.root().unwrap().lookup("/entries/0").unwrap();
        let hover = |needle: &str| {
            let at = REPORT.find(needle).unwrap() + 2;
            crate::project_checks::hover(entry, analysis.entries.first(), &not_read, at)
                .map(|h| h.markdown)
        };
        for needle in ["\"exact_edit\"", "\"raw_tokens\""] {
            assert_eq!(
                hover(needle).as_deref(),
                Some("**Project not read**: the workspace checks are off.\n"),
                "{needle}"
            );
        }
        assert_eq!(hover("\"op_type\""), None);
    }
}
