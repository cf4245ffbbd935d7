//! One version of a document as the features read it: its text and how it
//! is analysed. Every feature of `DocumentHost` is a function of a
//! [`Snapshot`] (in `ide/`, `hover`, `project_checks`), so a feature needs
//! nothing of how the host keeps its analysis up to date.
//!
//! The helpers here are the ways a feature reaches a tree: the entry
//! around an offset parsed in place ([`Snapshot::entry_at`]), each entry in
//! a range ([`Snapshot::each_entry_in`]), or whichever tree holds an offset
//! ([`Snapshot::at_tree`]); the checks over the whole report read it as
//! [`Snapshot::report_tree`] (its envelope, then each entry).

use std::borrow::Cow;

use super::analysed::Analysed;
use crate::diagnostic::{Diagnostic, Severity};
use crate::entry_text::EntryText;
use crate::envelope_text::EnvelopeText;
use crate::ide::ReportIndex;
use crate::incremental::Incremental;
use crate::paths::same_path;
use crate::publication::Own;
use crate::severities::{Level, Severities};
use crate::syntax::Node;
use crate::text::{Shift, SourceText, TextRange};
use crate::validate::EntryFacts;

/// A document's text and its analysis, as one version.
#[derive(Clone, Copy)]
pub struct Snapshot<'a> {
    pub(crate) text: &'a dyn SourceText,
    pub(crate) analysed: &'a Analysed,
}

/// The entry object around an offset, parsed in place from its text.
pub(crate) struct EntryAt<'a> {
    pub facts: &'a EntryFacts,
    pub entry: EntryText,
}

impl EntryAt<'_> {
    /// The document's `offset` in the entry's parsed text.
    pub fn local(&self, offset: usize) -> Option<usize> {
        self.entry.from_document(self.facts.range.start, offset)
    }

    /// What moves the parsed text's offsets back to the document.
    pub fn back(&self) -> Shift {
        self.entry.to_document(self.facts.range.start)
    }
}

impl<'a> Snapshot<'a> {
    pub(crate) fn read(&self, range: TextRange) -> String {
        self.text.slice(range)
    }

    pub(crate) fn is_report(&self) -> bool {
        self.analysed.is_report()
    }

    pub(crate) fn per_entry(&self) -> Option<&'a Incremental> {
        self.analysed.per_entry()
    }

    pub(crate) fn index(&self) -> Option<ReportIndex<'a>> {
        self.analysed.index()
    }

    /// The first `limit` diagnostics, in document order, of those that
    /// satisfy `want`, which looks only at what does not depend on entries'
    /// indices (code, severity, ranges): the per-entry analysis renders only
    /// those.
    pub(crate) fn diagnostics_where(
        &self,
        want: &dyn Fn(&Diagnostic) -> bool,
        limit: usize,
    ) -> Vec<Cow<'a, Diagnostic>> {
        match self.analysed {
            Analysed::PerEntry(incremental) => {
                let text = self.text;
                let read = move |range: TextRange| text.slice(range);
                incremental.diagnostics_where(&read, want, limit)
            }
            Analysed::Whole(full) => full
                .diagnostics
                .iter()
                .filter(|d| want(d))
                .take(limit)
                .map(Cow::Borrowed)
                .collect(),
            Analysed::NotAReport(_) => Vec::new(),
        }
    }

    /// The report's own diagnostics a publication under a cap of `max`
    /// can show at the levels of `severities` (see [`crate::publication::publish`]):
    /// at most `max` in all, the most severe first, and the count of the
    /// others that are not off. Only those offered are rendered: a
    /// keystroke that renumbers 50,000 entries renders the cap.
    pub(crate) fn own(&self, max: usize, severities: &Severities) -> Own<'a> {
        let level = |d: &Diagnostic| severities.level_of(d);
        let shown = match severities.is_empty() {
            true => self.analysed.count(),
            false => self.analysed.count_where(|d| level(d) != Level::Off),
        };
        let omitted = self.analysed.omitted().count as usize;
        if shown + omitted <= max {
            return Own {
                diagnostics: self.diagnostics_where(&|d| level(d) != Level::Off, usize::MAX),
                not_offered: omitted,
            };
        }
        let mut chosen = Vec::with_capacity(max.min(shown));
        for severity in [
            Severity::Error,
            Severity::Warning,
            Severity::Information,
            Severity::Hint,
        ] {
            let left = max - chosen.len();
            if left == 0 {
                break;
            }
            let at = Level::Report(severity);
            chosen.extend(self.diagnostics_where(&|d| level(d) == at, left));
        }
        Own {
            not_offered: shown - chosen.len() + omitted,
            diagnostics: chosen,
        }
    }

    /// The entry object around `offset`, parsed in place, when the report
    /// is kept per entry.
    pub(crate) fn entry_at(&self, offset: usize) -> Option<EntryAt<'a>> {
        let incremental = self.per_entry()?;
        let facts = incremental.entry_around(offset)?;
        let entry = incremental.entry_text(facts, |r| self.read(r))?;
        Some(EntryAt { facts, entry })
    }

    /// Runs `f` on the entry object that starts at `start`, parsed in place
    /// (or in the full analysis' tree), with its facts and what moves its
    /// tree's offsets to the document's.
    pub(crate) fn entry_starting(
        &self,
        start: usize,
        f: impl FnOnce(Node<'_>, &EntryFacts, Shift),
    ) {
        if self.per_entry().is_some() {
            if let Some(at) = self.entry_at(start)
                && at.facts.range.start == start
                && let Some(item) = at.entry.item()
            {
                f(item, at.facts, at.back());
            }
            return;
        }
        let mut f = Some(f);
        self.each_entry_in(TextRange::empty(start), |entry, facts| {
            if let Some(facts) = facts.filter(|e| e.range.start == start)
                && let Some(f) = f.take()
            {
                f(entry, facts, Shift { from: 0, delta: 0 });
            }
        });
    }

    /// Where each entry whose `path` is `key` as compared
    /// (`paths::same_path`) starts, in order: the per-entry analysis looks
    /// it up in its index by path; a full one's facts are read in turn.
    pub(crate) fn entries_naming(&self, key: &str) -> Vec<usize> {
        if let Some(incremental) = self.per_entry() {
            return incremental.entries_naming(key);
        }
        let Some(index) = self.index() else {
            return Vec::new();
        };
        index
            .entries
            .iter()
            .filter(|e| e.path.as_ref().is_some_and(|(p, _)| same_path(p, key)))
            .map(|e| e.range.start)
            .collect()
    }

    /// The text outside every entry around `offset`, parsed (see
    /// [`EnvelopeText::around`]), when the report is kept per entry.
    pub(crate) fn envelope(&self, offset: usize) -> Option<EnvelopeText> {
        Some(EnvelopeText::around(self.text, self.per_entry()?, offset))
    }

    /// Runs `f` on a tree that holds `offset`: the entry's text parsed in
    /// place when the offset is in a kept entry, the envelope's outside
    /// every entry, else the full analysis'. `f` gets the tree's root, its
    /// text and the offset in it; what it returns in that text's offsets is
    /// moved back by the returned [`TreeAt`].
    pub(crate) fn at_tree<R>(
        &self,
        offset: usize,
        f: impl FnOnce(Node<'_>, &str, usize) -> R,
    ) -> Option<(R, TreeAt)> {
        if let Some(at) = self.entry_at(offset) {
            let local = at.local(offset)?;
            let result = f(at.entry.root()?, at.entry.text(), local);
            return Some((result, TreeAt::Entry(at.back())));
        }
        match self.analysed {
            Analysed::Whole(full) | Analysed::NotAReport(full) => {
                Some((f(full.root()?, &full.text, offset), TreeAt::Whole))
            }
            Analysed::PerEntry(incremental) => {
                let envelope = EnvelopeText::around(self.text, incremental, offset);
                let local = envelope.into_cut(offset);
                let result = f(envelope.parse.root()?, &envelope.text, local);
                Some((result, TreeAt::Envelope(Box::new(envelope))))
            }
        }
    }

    /// The whole report, for the checks that read all of it; None for a
    /// document that is no report.
    pub(crate) fn report_tree(&self) -> Option<ReportTree<'a>> {
        match self.analysed {
            Analysed::Whole(full) => Some(ReportTree::Whole(full)),
            Analysed::NotAReport(_) => None,
            Analysed::PerEntry(incremental) => {
                let mut entries = incremental.entries();
                let first = entries.next().map(|e| e.range);
                let last = entries.last().map(|e| e.range).or(first);
                let all: Vec<(TextRange, &str)> = match (first, last) {
                    (Some(first), Some(last)) => vec![(TextRange::new(first.start, last.end), "")],
                    _ => Vec::new(),
                };
                Some(ReportTree::PerEntry {
                    envelope: Box::new(EnvelopeText::new(self.text, &all)),
                    incremental,
                    text: self.text,
                })
            }
        }
    }

    /// Runs `f` on each entry object overlapping `range`, parsed in place
    /// (or from the full analysis' tree), with its facts.
    pub(crate) fn each_entry_in(
        &self,
        range: TextRange,
        mut f: impl FnMut(Node<'_>, Option<&EntryFacts>),
    ) {
        match self.analysed {
            Analysed::PerEntry(incremental) => {
                let entries: Vec<&EntryFacts> = incremental.entries().collect();
                let first = entries.partition_point(|e| e.range.end < range.start);
                for facts in entries[first..]
                    .iter()
                    .take_while(|e| e.range.start <= range.end)
                {
                    if let Some(entry) = incremental.entry_text(facts, |r| self.read(r))
                        && let Some(item) = entry.item()
                    {
                        f(item, Some(facts));
                    }
                }
            }
            Analysed::Whole(full) => {
                let Some(items) = full
                    .root()
                    .and_then(|r| r.get("entries"))
                    .and_then(|e| e.items())
                else {
                    return;
                };
                for item in items.filter(|i| i.range().meets(range)) {
                    f(item, full.entry_facts(item.range()));
                }
            }
            Analysed::NotAReport(_) => {}
        }
    }
}

/// The whole report as the checks over all of it read it: the root with
/// every member but the entries ([`ReportTree::root`]), then each entry
/// ([`ReportTree::each_entry`]). A report kept per entry is not parsed
/// whole: its envelope is parsed with the entries cut out, and each entry
/// in place, one at a time.
pub(crate) enum ReportTree<'a> {
    Whole(&'a crate::Analysis),
    PerEntry {
        // Boxed: the parse it holds is most of its size.
        envelope: Box<EnvelopeText>,
        incremental: &'a Incremental,
        text: &'a dyn SourceText,
    },
}

impl ReportTree<'_> {
    /// The report's root; its `entries`, if read, are the whole text's
    /// (an empty array when kept per entry: read them with `each_entry`).
    pub(crate) fn root(&self) -> Option<Node<'_>> {
        match self {
            ReportTree::Whole(full) => full.root(),
            ReportTree::PerEntry { envelope, .. } => envelope.parse.root(),
        }
    }

    /// The document's range of a range in [`ReportTree::root`]'s text.
    pub(crate) fn back(&self, range: TextRange) -> TextRange {
        match self {
            ReportTree::Whole(_) => range,
            ReportTree::PerEntry { envelope, .. } => envelope.back_range(range),
        }
    }

    /// Runs `f` on each entry that is not broken, in order, with its facts
    /// and what moves its tree's offsets to the document's.
    pub(crate) fn each_entry(&self, mut f: impl FnMut(Node<'_>, Option<&EntryFacts>, Shift)) {
        match self {
            ReportTree::Whole(full) => {
                let Some(root) = full.root() else { return };
                let items = root.get("entries").and_then(|n| n.items());
                // Numbered before the broken ones are left out, as their facts are.
                let intact = items.into_iter().flatten().enumerate();
                for (index, entry) in intact.filter(|(_, e)| !e.is_broken()) {
                    // The facts are kept in order, one per entry (looked for when not).
                    let facts = match full.entries.get(index) {
                        Some(found) if found.index == index => Some(found),
                        _ => full.entries.iter().find(|e| e.index == index),
                    };
                    f(entry, facts, Shift { from: 0, delta: 0 });
                }
            }
            ReportTree::PerEntry {
                incremental, text, ..
            } => {
                for (facts, entry) in incremental.entry_texts(|r| text.slice(r)) {
                    if let Some(entry) = entry
                        && let Some(item) = entry.item().filter(|i| !i.is_broken())
                    {
                        f(item, Some(facts), entry.to_document(facts.range.start));
                    }
                }
            }
        }
    }
}

/// Which tree [`Snapshot::at_tree`] ran on, and how its ranges move back.
pub(crate) enum TreeAt {
    /// An entry's text parsed in place.
    Entry(Shift),
    /// The envelope without the entries.
    Envelope(Box<EnvelopeText>),
    /// The whole text.
    Whole,
}

impl TreeAt {
    pub(crate) fn range(&self, range: TextRange) -> TextRange {
        match self {
            TreeAt::Entry(shift) => shift.range(range),
            TreeAt::Envelope(envelope) => envelope.back_range(range),
            TreeAt::Whole => range,
        }
    }
}
