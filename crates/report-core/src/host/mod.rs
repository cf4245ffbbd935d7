//! One document's analysis, kept up to date edit by edit: the core's face
//! to an editor. A [`DocumentHost`] owns the text (through [`SourceText`],
//! so the server keeps its rope without the core knowing ropes), chooses
//! between the per-entry [`Incremental`] analysis and a full [`Analysis`],
//! and answers every question a feature asks: diagnostics, hover, fixes,
//! fix-all, status. Everything is in byte offsets; a language server's
//! handler converts positions, calls one method, and converts back.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use crate::analysis::{self, Analysis};
use crate::diagnostic::{Code, Diagnostic, Keep, Severity};
use crate::envelope_text::EnvelopeText;
use crate::fix::{Fix, TextEdit};
use crate::fix_all::fix_all_edit;
use crate::hover::{self, HoverInfo};
use crate::ide::completion::{self, CompletionItem};
use crate::ide::inlay::{self, InlayHint};
use crate::ide::links::{self, FileRef};
use crate::ide::symbols::{self, Symbol};
use crate::ide::{ReportIndex, folding, navigation};
use crate::incremental::Incremental;
use crate::rollup::{self, Rollup};
use crate::selection::looks_like_report;
use crate::syntax::{self, Node};
use crate::text::{ByteEdit, Shift, SourceText, TextRange, changed_range};
use crate::validate::EntryFacts;

/// What the host is told about a document besides its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostOptions {
    /// Whether its name marks it as a report; otherwise its content decides.
    pub name_matches: bool,
    /// Texts longer than this get one `document-too-large` diagnostic instead of checks.
    pub max_document_bytes: usize,
    /// The most diagnostics published. An analysis keeps twice as many
    /// (at least 1,000) and counts the rest, so that a report with millions
    /// of problems takes the memory of its text, not of its problems.
    pub max_diagnostics: usize,
}

impl HostOptions {
    /// How many diagnostics an analysis keeps.
    pub fn kept_diagnostics(&self) -> usize {
        self.max_diagnostics.saturating_mul(2).max(1000)
    }
}

/// What a repair replaced (see [`DocumentHost::drop_retired`]).
#[derive(Debug)]
#[expect(dead_code, reason = "held only to be freed later, never read")]
enum Retired {
    Full(Analysis),
    PerEntry(Incremental),
}

/// How an update was analysed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateKind {
    /// Only the edited entries were checked again.
    Incremental,
    /// The whole text was analysed.
    Full,
}

/// The diagnostics to publish under a cap: errors first, then document order.
#[derive(Debug)]
pub struct Published<'h> {
    /// In document order.
    pub diagnostics: Vec<Cow<'h, Diagnostic>>,
    /// How many were left out, when any were: the caller words the
    /// `too-many-diagnostics` summary, naming its own setting of the cap.
    pub left_out: Option<LeftOut>,
}

/// The diagnostics a capped publication left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// Those not published.
    pub count: usize,
    /// The problems in all, those published and those left out.
    pub total: usize,
}

/// A quick fix offered for a diagnostic: one the host keeps, or one worked
/// out again for the cursor when the analysis left it out.
#[derive(Clone, Debug)]
pub struct QuickFix<'h> {
    pub diagnostic: Cow<'h, Diagnostic>,
}

impl QuickFix<'_> {
    pub fn fix(&self) -> &Fix {
        self.diagnostic
            .fix
            .as_ref()
            .expect("a quick fix's diagnostic has a fix")
    }
}

/// How a document has been analysed, for `report-lsp/status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostStatus {
    pub bytes: usize,
    pub is_report: bool,
    /// Present while the analysis is per entry.
    pub entries: Option<usize>,
    pub incremental_updates: u64,
    pub full_analyses: u64,
}

/// One document's text and analysis. Exactly one of `incremental` and
/// `full` describes the current text, except while an update replaces them.
pub struct DocumentHost<T> {
    text: T,
    /// Whether it is validated (its name matches, or it looks like a report).
    is_report: bool,
    /// The per-entry analysis, when the text has no syntax errors.
    incremental: Option<Incremental>,
    /// A full analysis, kept when there is no incremental one.
    full: Option<Analysis>,
    /// While an edit within one entry broke it: the text before that edit,
    /// its per-entry analysis, and one edit that leads from it to the
    /// current text when the edits since are known; taken back when the
    /// text comes back to it, or to a text that differs from it within one
    /// entry (a repair).
    parked: Option<Box<(T, Incremental, Option<ByteEdit>)>>,
    /// The analysis a repair replaced, freed when the caller is idle
    /// ([`DocumentHost::drop_retired`]) or before the next full analysis:
    /// freeing a big one takes longer than the repair and the edits after it.
    retired: Option<Retired>,
    /// The outline and the folding ranges of the current text, made on the
    /// first request: they read all of it (12 and 47 ms at 50,000 entries).
    outline: OnceLock<Vec<Symbol>>,
    folding: Mutex<Option<(usize, Vec<TextRange>)>>,
    /// What it was last told besides the text.
    options: HostOptions,
    incremental_updates: u64,
    full_analyses: u64,
}

impl<T: SourceText> DocumentHost<T> {
    /// Analyses `text` in full. `whole` is the same text as a string when the
    /// caller holds it already (a didOpen's): it saves a copy of a huge report.
    pub fn new(text: T, whole: Option<String>, options: HostOptions) -> DocumentHost<T> {
        let mut host = DocumentHost::holding(text, options);
        host.analyze_full(whole, options);
        host
    }

    /// Analyses `whole` in full and only then takes the same text as `T`
    /// from `text`: a caller that builds its `T` (a rope) from the string
    /// can build it meanwhile, on another thread (as an opening does).
    pub fn open(
        whole: Arc<String>,
        options: HostOptions,
        text: impl FnOnce() -> T,
    ) -> DocumentHost<T> {
        let analysis = analyze_within(whole, options);
        let mut host = DocumentHost::holding(text(), options);
        host.adopt(analysis);
        host
    }

    /// A host of `text` with no analysis yet.
    fn holding(text: T, options: HostOptions) -> DocumentHost<T> {
        DocumentHost {
            text,
            is_report: false,
            incremental: None,
            full: None,
            parked: None,
            retired: None,
            outline: OnceLock::new(),
            folding: Mutex::new(None),
            options,
            incremental_updates: 0,
            full_analyses: 0,
        }
    }

    /// Brings the analysis to `text`. `edits` (in bytes, in order) lead from
    /// the current text to it; None means it is unrelated (a whole-text
    /// change, new settings). Incremental when every edit falls inside one
    /// entry object that still parses alone, in full otherwise.
    pub fn update(
        &mut self,
        text: T,
        edits: Option<&[ByteEdit]>,
        options: HostOptions,
    ) -> UpdateKind {
        // No edits (the same text sent again): the analysis stands, and
        // what was made of the text.
        if !edits.is_some_and(<[ByteEdit]>::is_empty) {
            self.outline = OnceLock::new();
            *self.folding.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
        }
        // No edits (the same text sent again): the analysis stands.
        if edits.is_some_and(<[ByteEdit]>::is_empty) && options == self.options {
            self.text = text;
            return UpdateKind::Incremental;
        }
        // A whole new text (a formatter's, a reload) that differs little from
        // the current one is one edit: the span between what they share.
        let diffed;
        let edits = match edits {
            None if options == self.options && self.incremental.is_some() => {
                match changed_range(&self.text, &text) {
                    None => {
                        self.text = text;
                        return UpdateKind::Incremental;
                    }
                    Some(edit) => {
                        diffed = [edit];
                        Some(&diffed[..])
                    }
                }
            }
            edits => edits,
        };
        // A burst of keystrokes in one entry: one edit, so the offsets after
        // it move once, not once a keystroke.
        let composed;
        let edits = match edits {
            Some(many @ [_, _, ..]) => match ByteEdit::compose(many) {
                Some(one)
                    if self
                        .incremental
                        .as_ref()
                        .is_some_and(|i| i.accepts(one.range)) =>
                {
                    composed = [one];
                    Some(&composed[..])
                }
                _ => Some(many),
            },
            edits => edits,
        };
        // Back to the text before an edit that broke an entry, or within
        // one entry of it: that text's per-entry analysis takes the edit.
        let mut parked = None;
        if let Some(old) = self.parked.take()
            && options == self.options
            && text.len() <= options.max_document_bytes
        {
            let (old_text, mut incremental, since) = *old;
            // From the edits since (no need to compare the texts), else by comparing them.
            let edit = match (since, edits) {
                (Some(since), Some(edits)) => {
                    let all: Vec<ByteEdit> = std::iter::once(since)
                        .chain(edits.iter().copied())
                        .collect();
                    ByteEdit::compose(&all)
                }
                _ => None,
            };
            let edit = edit.or_else(|| changed_range(&old_text, &text));
            let tracked = match edit {
                None => true,
                Some(edit) => {
                    incremental.accepts(edit.range)
                        && incremental.edit(edit.range, edit.new_len)
                        && incremental.len() == text.len()
                        && incremental.update(|range| text.slice(range))
                }
            };
            if tracked {
                let broken = self.incremental.replace(incremental);
                self.retired = match (self.full.take(), broken) {
                    (Some(full), _) => Some(Retired::Full(full)),
                    (None, broken) => broken.map(Retired::PerEntry),
                };
                self.is_report = true;
                self.text = text;
                self.incremental_updates += 1;
                return UpdateKind::Incremental;
            }
            if incremental.resume() {
                parked = Some(Box::new((old_text, incremental, edit)));
            }
        }
        if let Some(edits) = edits
            && text.len() <= options.max_document_bytes
            && let Some(mut incremental) = self.incremental.take()
        {
            let tracked = edits.iter().all(|e| incremental.edit(e.range, e.new_len))
                && incremental.len() == text.len()
                && incremental.update(|range| text.slice(range));
            if tracked {
                self.incremental = Some(incremental);
                self.full = None;
                self.text = text;
                self.options = options;
                self.incremental_updates += 1;
                return UpdateKind::Incremental;
            }
            // An edit that broke an entry object: kept for its repair. Not
            // another edit (in a scalar entry, say): a repair of it would be
            // refused again, and the state would only add to the memory.
            let edit = ByteEdit::compose(edits);
            if options == self.options
                && incremental.resume()
                && edit.is_some_and(|e| incremental.accepts(e.range))
            {
                let old = std::mem::replace(&mut self.text, text);
                self.parked = Some(Box::new((old, incremental, edit)));
                self.analyze_full(None, options);
                return UpdateKind::Full;
            }
        }
        self.parked = parked;
        self.text = text;
        self.analyze_full(None, options);
        UpdateKind::Full
    }

    /// Whether it keeps a retired full analysis (see [`DocumentHost::drop_retired`]).
    pub fn holds_retired(&self) -> bool {
        self.retired.is_some()
    }

    /// Frees the full analysis a repair replaced by the per-entry one, if it
    /// keeps one: for a caller with nothing else to do.
    pub fn drop_retired(&mut self) {
        self.retired = None;
    }

    fn analyze_full(&mut self, whole: Option<String>, options: HostOptions) {
        // Dropped before the full analysis, which needs the memory.
        self.incremental = None;
        self.full = None;
        self.retired = None;
        if options != self.options {
            self.parked = None;
        }
        self.options = options;
        let whole = whole.unwrap_or_else(|| self.text.whole());
        let analysis = analyze_within(Arc::new(whole), options);
        self.adopt(analysis);
    }

    /// Keeps a full analysis of the text, per entry when it has that form.
    fn adopt(&mut self, analysis: Analysis) {
        // Once taken for a report, a document stays one while a syntax error
        // may hide what it is: until it parses intact as something else.
        let was_report = self.is_report;
        self.is_report = self.options.name_matches
            || analysis.root().is_some_and(|root| {
                looks_like_report(root) || (was_report && (root.is_broken() || root.is_error()))
            })
            || (was_report && analysis.root().is_none());
        self.full_analyses += 1;
        if !self.is_report {
            self.full = Some(analysis);
            return;
        }
        // With an incremental analysis the full one is made again only on demand.
        match Incremental::from_analysis(analysis) {
            Ok(incremental) => {
                // Past the cap, the broken text's per-entry analysis refuses
                // the repair (the candidates are judged again): keep the
                // state before the break for it.
                if incremental.omitted().count == 0 {
                    self.parked = None;
                }
                self.incremental = Some(incremental);
            }
            Err(analysis) => self.full = Some(*analysis),
        }
    }

    pub fn text(&self) -> &T {
        &self.text
    }

    /// Whether the document is validated at all; others get no diagnostics,
    /// hover or fixes.
    pub fn is_report(&self) -> bool {
        self.is_report
    }

    /// Whether a full analysis (its tree and text) is held, which an update
    /// to an incremental one frees.
    pub fn holds_full_analysis(&self) -> bool {
        self.full.is_some()
    }

    /// Every diagnostic, in document order.
    pub fn diagnostics(&self) -> Vec<Cow<'_, Diagnostic>> {
        self.diagnostics_where(&|_| true, usize::MAX)
    }

    /// The first `limit` diagnostics, in document order, of those that
    /// satisfy `want`, which looks only at what does not depend on entries'
    /// indices (code, severity, ranges): the per-entry analysis renders only
    /// those.
    fn diagnostics_where(
        &self,
        want: &dyn Fn(&Diagnostic) -> bool,
        limit: usize,
    ) -> Vec<Cow<'_, Diagnostic>> {
        if !self.is_report {
            return Vec::new();
        }
        match (&self.incremental, &self.full) {
            (Some(incremental), _) => {
                let read = |range: TextRange| self.text.slice(range);
                incremental.diagnostics_where(&read, want, limit)
            }
            (None, Some(full)) => full
                .diagnostics
                .iter()
                .filter(|d| want(d))
                .take(limit)
                .map(Cow::Borrowed)
                .collect(),
            (None, None) => Vec::new(),
        }
    }

    /// How many diagnostics the analysis counted but did not keep (see
    /// [`HostOptions::max_diagnostics`]), and whether any of them has a fix.
    pub fn omitted(&self) -> (usize, bool) {
        if !self.is_report {
            return (0, false);
        }
        match (&self.incremental, &self.full) {
            (Some(incremental), _) => {
                let omitted = incremental.omitted();
                (omitted.count as usize, omitted.fixable > 0)
            }
            (None, Some(full)) => (full.omitted.len(), full.omitted.fixable() > 0),
            (None, None) => (0, false),
        }
    }

    fn count(&self) -> usize {
        match (self.is_report, &self.incremental, &self.full) {
            (false, _, _) => 0,
            (true, Some(incremental), _) => incremental.count(),
            (true, None, Some(full)) => full.diagnostics.len(),
            (true, None, None) => 0,
        }
    }

    fn any_diagnostic(&self, test: impl Fn(&Diagnostic) -> bool) -> bool {
        match (self.is_report, &self.incremental, &self.full) {
            (false, _, _) => false,
            (true, Some(incremental), _) => incremental.any(test),
            (true, None, Some(full)) => full.diagnostics.iter().any(test),
            (true, None, None) => false,
        }
    }

    /// At most [`HostOptions::max_diagnostics`] diagnostics, errors before
    /// lesser severities, and how many were left out (those the analysis
    /// only counted among them). Only those published are rendered: a
    /// keystroke that renumbers 50,000 entries renders the cap.
    pub fn published(&self) -> Published<'_> {
        self.published_at_most(self.options.max_diagnostics)
    }

    fn published_at_most(&self, max: usize) -> Published<'_> {
        let kept = self.count();
        let total = kept + self.omitted().0;
        if total <= max {
            return Published {
                diagnostics: self.diagnostics(),
                left_out: None,
            };
        }
        let mut chosen = Vec::with_capacity(max.min(kept));
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
            chosen.extend(self.diagnostics_where(&|d| d.severity == severity, left));
        }
        chosen.sort_by(|a, b| Diagnostic::order(a, b));
        let left_out = LeftOut {
            count: total - chosen.len(),
            total,
        };
        Published {
            diagnostics: chosen,
            left_out: Some(left_out),
        }
    }

    /// The hover at `offset`. Inside an entry it is worked out from that
    /// entry's text alone; outside the entries from a parse of the whole
    /// text (no checks needed, nothing kept).
    pub fn hover(&self, offset: usize) -> Option<HoverInfo> {
        if !self.is_report {
            return None;
        }
        // On the `entries` key: its meaning, then the token roll-up.
        if let Some(index) = self.index()
            && let Some(entries) = index.member("entries")
            && entries.key_range.touches(offset)
        {
            return Some(hover::entries_hover(
                entries.key_range,
                index.entries.iter().copied(),
            ));
        }
        let Some(incremental) = &self.incremental else {
            return hover::hover(self.full.as_ref()?, offset);
        };
        if let Some(facts) = incremental.entry_around(offset) {
            let entry = incremental.entry_text(facts, |r| self.text.slice(r))?;
            return hover::hover_entry_text(facts, &entry, offset);
        }
        // Outside every entry object, so no entry's facts are needed.
        let envelope = self.envelope_text(incremental, offset);
        let info =
            hover::hover_in_tree(envelope.parse.root()?, envelope.into_cut(offset), |_| None)?;
        Some(HoverInfo {
            range: envelope.back_range(info.range),
            ..info
        })
    }

    /// The text a feature at `offset`, outside every entry, reads: the
    /// entries and the shortlist's items (unless `offset` is among them) cut out.
    fn envelope_text(&self, incremental: &Incremental, offset: usize) -> EnvelopeText {
        let mut cuts = Vec::new();
        let array = |key: &str| {
            incremental
                .members()
                .iter()
                .find(|m| m.key == key && m.items.is_some())
                .map(|m| m.value_range)
        };
        let entries: Vec<TextRange> = incremental.entries().map(|e| e.range).collect();
        if let (Some(first), Some(last)) = (entries.first(), entries.last()) {
            let all = TextRange::new(first.start, last.end);
            if offset < all.start || all.end < offset {
                cuts.push((all, ""));
            } else {
                // In a gap between entries: those on each side become `{}`.
                let after = entries.partition_point(|e| e.end <= offset);
                if after > 0 {
                    cuts.push((TextRange::new(all.start, entries[after - 1].end), "{}"));
                }
                if after < entries.len() {
                    cuts.push((TextRange::new(entries[after].start, all.end), "{}"));
                }
            }
        }
        if let Some(shortlist) = array("shortlist").filter(|s| s.len() > 2) {
            if !(shortlist.start <= offset && offset <= shortlist.end) {
                cuts.push((TextRange::new(shortlist.start + 1, shortlist.end - 1), ""));
            } else if let Some(list) = incremental.shortlist() {
                let runs = shortlist_runs_around(&self.text, list.item_ranges(), offset);
                cuts.extend(runs.into_iter().map(|run| (run, "\"\"")));
            }
        }
        cuts.sort_by_key(|(range, _)| range.start);
        EnvelopeText::new(&self.text, &cuts)
    }

    /// The workspace hover (edit preview, live derivation) at `offset`, from
    /// the facts the caller gathered; None outside an entry's `exact_edit`.
    pub fn workspace_hover(
        &self,
        offset: usize,
        facts: &crate::project_checks::WorkspaceFacts,
    ) -> Option<HoverInfo> {
        if !self.is_report {
            return None;
        }
        let Some(incremental) = &self.incremental else {
            let analysis = self.full.as_ref()?;
            let path = analysis.root()?.path_to(offset);
            let (_, entry) = path
                .get(2)
                .filter(|(_, _)| matches!(path.get(1), Some((Some(m), _)) if m.key == "entries"))?;
            let entry_facts = analysis.entries.iter().find(|e| e.range == entry.range());
            return crate::project_checks::hover(*entry, entry_facts, facts, offset);
        };
        let entry_facts = incremental.entry_around(offset)?;
        let start = entry_facts.range.start;
        let entry = incremental.entry_text(entry_facts, |r| self.text.slice(r))?;
        let inner = offset.checked_sub(start)? + entry.offset();
        let info = crate::project_checks::hover(entry.item()?, Some(entry_facts), facts, inner)?;
        let shift = crate::text::Shift {
            from: 0,
            delta: start as isize - entry.offset() as isize,
        };
        Some(HoverInfo {
            range: shift.range(info.range),
            ..info
        })
    }

    /// The fixes of the diagnostics whose range touches `range`, in document
    /// order. When the analysis left some diagnostics out, those at the range
    /// are worked out again: from the entry's text alone inside an entry,
    /// else from an analysis of the whole text that keeps only them.
    pub fn quick_fixes(&self, range: TextRange) -> Vec<QuickFix<'_>> {
        let touches = |d: &Diagnostic| d.range.start <= range.end && range.start <= d.range.end;
        let with_fix = |d: &Diagnostic| d.fix.is_some();
        // Per entry, every diagnostic left out lies in an entry.
        let beside_entries = self.incremental.as_ref().is_some_and(|i| {
            i.entries_span()
                .is_none_or(|span| range.end < span.start || span.end < range.start)
        });
        if self.omitted().1 && !beside_entries {
            let again = match &self.incremental {
                Some(incremental) => incremental
                    .entry_diagnostics(range.start, |r| self.text.slice(r))
                    .filter(|_| {
                        incremental
                            .entry_around(range.start)
                            .is_some_and(|e| range.end <= e.range.end)
                    }),
                None => None,
            };
            let again = again.unwrap_or_else(|| {
                let keep = Keep::touching(range);
                analysis::analyze_keeping(Arc::new(self.text.whole()), keep).diagnostics
            });
            return again
                .into_iter()
                .filter(|d| touches(d) && with_fix(d))
                .map(|d| QuickFix {
                    diagnostic: Cow::Owned(d),
                })
                .collect();
        }
        self.diagnostics_where(&|d| touches(d) && with_fix(d), usize::MAX)
            .into_iter()
            .map(|diagnostic| QuickFix { diagnostic })
            .collect()
    }

    /// Whether fix-all has anything to do: some diagnostic has a preferred
    /// fix (or a fix, among those left out).
    pub fn can_fix_all(&self) -> bool {
        self.omitted().1 || self.any_diagnostic(|d| d.fix.as_ref().is_some_and(|f| f.preferred))
    }

    /// Every unambiguous fix applied, as one minimal edit of the current text.
    /// It analyses the whole text, perhaps several times.
    pub fn fix_all(&self) -> Option<TextEdit> {
        if !self.is_report {
            return None;
        }
        fix_all_edit(&self.text.whole())
    }

    pub fn status(&self) -> HostStatus {
        HostStatus {
            bytes: self.text.len(),
            is_report: self.is_report,
            entries: self.incremental.as_ref().map(|i| i.entries().len()),
            incremental_updates: self.incremental_updates,
            full_analyses: self.full_analyses,
        }
    }
}

/// The editor features: each reads the facts the analysis kept
/// ([`ReportIndex`]) and, for what they do not hold, parses only the text
/// around the offset (the entry it is in, or else the whole text).
impl<T: SourceText> DocumentHost<T> {
    fn index(&self) -> Option<ReportIndex<'_>> {
        if !self.is_report {
            return None;
        }
        match (&self.incremental, &self.full) {
            (Some(incremental), _) => Some(ReportIndex {
                entries: incremental.entries().collect(),
                shortlist: incremental.shortlist(),
                candidates: incremental.candidates(),
                members: incremental.members(),
            }),
            (None, Some(full)) => {
                let cross = full.cross.as_ref();
                Some(ReportIndex {
                    entries: full.entries.iter().collect(),
                    shortlist: cross.and_then(|c| c.shortlist.as_ref()),
                    candidates: cross.map_or(&[][..], |c| &c.candidates[..]),
                    members: cross.map_or(&[][..], |c| &c.members[..]),
                })
            }
            (None, None) => None,
        }
    }

    /// Runs `f` on a tree that holds `offset`: the entry's text parsed in
    /// place when the offset is in a kept entry, the envelope's outside
    /// every entry, else the whole text's. `f` gets the tree's root, its
    /// text and the offset in it; what it returns in that text's offsets is
    /// moved back by the returned [`TreeAt`].
    fn at_tree<R>(
        &self,
        offset: usize,
        f: impl FnOnce(Node<'_>, &str, usize) -> R,
    ) -> Option<(R, TreeAt)> {
        if let Some(incremental) = &self.incremental
            && let Some(facts) = incremental.entry_around(offset)
            && let Some(entry) = incremental.entry_text(facts, |r| self.text.slice(r))
        {
            let local = offset - facts.range.start + entry.offset();
            let result = f(entry.root()?, entry.text(), local);
            let shift = Shift {
                from: 0,
                delta: facts.range.start as isize - entry.offset() as isize,
            };
            return Some((result, TreeAt::Entry(shift)));
        }
        if let Some(full) = &self.full {
            return Some((f(full.root()?, &full.text, offset), TreeAt::Whole));
        }
        let Some(incremental) = &self.incremental else {
            let text = Arc::new(self.text.whole());
            let parse = syntax::parse_shared(text.clone());
            return Some((f(parse.root()?, &text, offset), TreeAt::Whole));
        };
        let envelope = self.envelope_text(incremental, offset);
        let local = envelope.into_cut(offset);
        let result = f(envelope.parse.root()?, &envelope.text, local);
        Some((result, TreeAt::Envelope(Box::new(envelope))))
    }

    /// Where the path under the cursor is defined (its shortlist item, or
    /// the entry a promotion candidate names).
    pub fn definition(&self, offset: usize) -> Vec<TextRange> {
        let Some(index) = self.index() else {
            return Vec::new();
        };
        let read = |range: TextRange| self.text.slice(range);
        navigation::path_at(&index, &read, offset)
            .map(|at| navigation::definition(&index, &at))
            .unwrap_or_default()
    }

    pub fn references(&self, offset: usize, declaration: bool) -> Vec<TextRange> {
        let Some(index) = self.index() else {
            return Vec::new();
        };
        let read = |range: TextRange| self.text.slice(range);
        navigation::path_at(&index, &read, offset)
            .map(|at| navigation::references(&index, &at, declaration))
            .unwrap_or_default()
    }

    /// The range a rename of the path under the cursor changes, and the path.
    pub fn prepare_rename(&self, offset: usize) -> Option<(TextRange, String)> {
        let index = self.index()?;
        let read = |range: TextRange| self.text.slice(range);
        let at = navigation::path_at(&index, &read, offset)?;
        Some((navigation::prepare_rename(&at), at.path))
    }

    /// The edits that rename the path under the cursor everywhere.
    pub fn rename(&self, offset: usize, new_path: &str) -> Result<Vec<TextEdit>, String> {
        let index = self.index().ok_or("this document is not a report")?;
        let read = |range: TextRange| self.text.slice(range);
        let at =
            navigation::path_at(&index, &read, offset).ok_or("there is no path here to rename")?;
        navigation::rename(&index, &at, new_path)
    }

    pub fn symbols(&self) -> Vec<Symbol> {
        self.outline
            .get_or_init(|| {
                self.index()
                    .map(|i| symbols::symbols(&i))
                    .unwrap_or_default()
            })
            .clone()
    }

    /// Multi-line objects and arrays, at most `limit`.
    pub fn folding_ranges(&self, limit: usize) -> Vec<TextRange> {
        if !self.is_report {
            return Vec::new();
        }
        let mut kept = self.folding.lock().unwrap_or_else(|e| e.into_inner());
        match &*kept {
            Some((made_for, ranges)) if *made_for == limit => ranges.clone(),
            _ => {
                let ranges = folding::folding_ranges(&self.text.whole(), limit);
                *kept = Some((limit, ranges.clone()));
                ranges
            }
        }
    }

    /// For each offset, the ranges a selection widens through, innermost first.
    pub fn selection_ranges(&self, offsets: &[usize]) -> Vec<Vec<TextRange>> {
        // The root value's range: the text without the white space around it.
        let ws = |i: usize| self.text.byte(i).is_ascii_whitespace();
        let start = (0..self.text.len()).find(|&i| !ws(i)).unwrap_or(0);
        let end = (start..self.text.len())
            .rev()
            .find(|&i| !ws(i))
            .map_or(start, |i| i + 1);
        let whole = TextRange::new(start, end);
        let entries = self.index().and_then(|i| {
            let member = i.member("entries")?;
            Some((
                member.value_range,
                TextRange::new(member.key_range.start, member.value_range.end),
            ))
        });
        offsets
            .iter()
            .map(|&offset| {
                let Some((ranges, at)) = self.at_tree(offset, |root, _, local| {
                    folding::selection_ranges(root, local)
                }) else {
                    return Vec::new();
                };
                let mut ranges: Vec<TextRange> = ranges.into_iter().map(|r| at.range(r)).collect();
                // Parsed in place, an entry's outer ranges are the stand-ins' around
                // it: those of the report take their place.
                if matches!(at, TreeAt::Entry(_)) {
                    let entry = self
                        .incremental
                        .as_ref()
                        .and_then(|i| i.entry_around(offset));
                    if let Some(entry) = entry {
                        ranges.retain(|r| entry.range.start <= r.start && r.end <= entry.range.end);
                    }
                    if let Some((array, member)) = entries {
                        ranges.extend([array, member]);
                    }
                    ranges.push(whole);
                }
                ranges
            })
            .collect()
    }

    /// Runs `f` on each entry object overlapping `range`, parsed in place
    /// (or from the full analysis' tree), with its facts; what `f` finds in
    /// that tree's offsets is moved back by the shift it is given.
    fn each_entry_in(
        &self,
        range: TextRange,
        mut f: impl FnMut(Node<'_>, Option<&EntryFacts>, Shift),
    ) {
        let overlaps = |r: TextRange| r.start <= range.end && range.start <= r.end;
        if let Some(incremental) = &self.incremental {
            let entries: Vec<&EntryFacts> = incremental.entries().collect();
            let first = entries.partition_point(|e| e.range.end < range.start);
            for facts in entries[first..]
                .iter()
                .take_while(|e| e.range.start <= range.end)
            {
                if let Some(entry) = incremental.entry_text(facts, |r| self.text.slice(r))
                    && let Some(item) = entry.item()
                {
                    let shift = Shift {
                        from: 0,
                        delta: facts.range.start as isize - entry.offset() as isize,
                    };
                    f(item, Some(facts), shift);
                }
            }
            return;
        }
        let Some(full) = &self.full else { return };
        let Some(items) = full
            .root()
            .and_then(|r| r.get("entries"))
            .and_then(|e| e.items())
        else {
            return;
        };
        let none = Shift { from: 0, delta: 0 };
        for item in items.filter(|i| overlaps(i.range())) {
            let facts = full.entries.iter().find(|e| e.range == item.range());
            f(item, facts, none);
        }
    }

    /// The string values overlapping `range` that name a project file, in
    /// document order: what `documentLink` shows and definition opens.
    pub fn file_refs(&self, range: TextRange) -> Vec<FileRef> {
        let Some(index) = self.index() else {
            return Vec::new();
        };
        let read = |range: TextRange| self.text.slice(range);
        let mut refs = Vec::new();
        // From the facts the checks recorded: nothing is parsed.
        let first = index.entries.partition_point(|e| e.range.end < range.start);
        for facts in index.entries[first..]
            .iter()
            .take_while(|e| e.range.start <= range.end)
        {
            links::entry_refs(facts, &read, &mut refs);
        }
        links::outside_entries(&index, &read, range, &mut refs);
        refs.retain(|r| r.range.start <= range.end && range.start <= r.range.end);
        refs.sort_by_key(|r| r.range.start);
        refs
    }

    /// At most `limit` of the whole text's file references, in document
    /// order: the entries' first, then, if there is room, the shortlist's
    /// and the candidates'; and whether some were left out. A 50,000-entry
    /// report names some 110,000 files: links for all of them make a 22 MB
    /// answer after every change.
    pub fn file_refs_up_to(&self, limit: usize) -> (Vec<FileRef>, bool) {
        let Some(index) = self.index() else {
            return (Vec::new(), false);
        };
        let read = |range: TextRange| self.text.slice(range);
        let mut refs = Vec::new();
        for facts in index.entries.iter() {
            let from = refs.len();
            links::entry_refs(facts, &read, &mut refs);
            refs[from..].sort_by_key(|r| r.range.start);
            if refs.len() > limit {
                refs.truncate(limit);
                return (refs, true);
            }
        }
        let mut outside = Vec::new();
        links::outside_entries(
            &index,
            &read,
            TextRange::new(0, self.text.len()),
            &mut outside,
        );
        outside.sort_by_key(|r| r.range.start);
        let room = limit - refs.len();
        let more = outside.len() > room;
        refs.extend(outside.into_iter().take(room));
        refs.sort_by_key(|r| r.range.start);
        (refs, more)
    }

    /// The file the string value at `offset` names, if it names one.
    pub fn file_ref_at(&self, offset: usize) -> Option<FileRef> {
        self.file_refs(TextRange::empty(offset))
            .into_iter()
            .find(|r| r.range.start <= offset && offset <= r.range.end)
    }

    /// Inlay hints of the entries overlapping `range`.
    pub fn inlay_hints(&self, range: TextRange) -> Vec<InlayHint> {
        self.index()
            .map(|i| inlay::inlay_hints(&i, range))
            .unwrap_or_default()
    }

    /// Inlay hints with the live tier where the workspace facts (gathered
    /// by the caller) make it differ from the recorded one; it takes the
    /// place of the derived-tier hint there.
    pub fn inlay_hints_live(
        &self,
        range: TextRange,
        workspace: Option<&crate::project_checks::WorkspaceFacts>,
    ) -> Vec<InlayHint> {
        let mut hints = self.inlay_hints(range);
        let Some(workspace) = workspace.filter(|w| w.git.is_some()) else {
            return hints;
        };
        let mut live = Vec::new();
        self.each_entry_in(range, |entry, facts, _| {
            let lifecycle = facts
                .and_then(|f| f.tier.as_ref())
                .is_some_and(|t| t.derivation.inputs.lifecycle.is_some());
            if lifecycle
                && let Some(facts) = facts
                && let Some(hint) = inlay::live_hint(entry, facts, workspace)
            {
                live.push(hint);
            }
        });
        if live.is_empty() {
            return hints;
        }
        hints.retain(|h| !(h.label.starts_with('→') && live.iter().any(|l| l.offset == h.offset)));
        hints.extend(live);
        hints.sort_by_key(|h| h.offset);
        hints
    }

    /// The token roll-up of the report's entries.
    pub fn rollup(&self) -> Option<Rollup> {
        Some(rollup::rollup(self.index()?.entries.iter().copied()))
    }

    /// Code lenses: the roll-up on the `entries` key.
    pub fn code_lenses(&self) -> Vec<(TextRange, String)> {
        let Some(index) = self.index() else {
            return Vec::new();
        };
        let Some(entries) = index.member("entries") else {
            return Vec::new();
        };
        let title = rollup::rollup(index.entries.iter().copied()).title();
        vec![(entries.key_range, title)]
    }

    /// Completions at `offset`, in half-typed text too.
    pub fn completions(&self, offset: usize) -> Vec<CompletionItem> {
        let Some(index) = self.index() else {
            return Vec::new();
        };
        self.at_tree(offset, |root, text, local| {
            completion::completions(root, text, local, &index)
        })
        .map(|(items, at)| {
            items
                .into_iter()
                .map(|mut item| {
                    item.edit.range = at.range(item.edit.range);
                    item
                })
                .collect()
        })
        .unwrap_or_default()
    }
}

/// Which tree [`DocumentHost::at_tree`] ran on, and how its ranges move back.
enum TreeAt {
    /// An entry's text parsed in place.
    Entry(Shift),
    /// The envelope without the entries.
    Envelope(Box<EnvelopeText>),
    /// The whole text.
    Whole,
}

impl TreeAt {
    fn range(&self, range: TextRange) -> TextRange {
        match self {
            TreeAt::Entry(shift) => shift.range(range),
            TreeAt::Envelope(envelope) => envelope.back_range(range),
            TreeAt::Whole => range,
        }
    }
}

/// The runs of shortlist items before and after the one at `offset` (or
/// the gap it is in), each from a string item to a string item, so that only
/// whole items lie in it. `items` are the items' path values in order; a
/// string item's value is preceded by `[` or `,`, an object's path by `:`.
fn shortlist_runs_around(
    text: &(impl SourceText + ?Sized),
    items: &[TextRange],
    offset: usize,
) -> Vec<TextRange> {
    let is_item = |range: &TextRange| {
        let before = (0..range.start)
            .rev()
            .map(|i| text.byte(i))
            .find(|b| !b.is_ascii_whitespace());
        !range.is_empty() && matches!(before, Some(b'[' | b','))
    };
    let run = |items: &[TextRange]| {
        let first = items.iter().position(is_item)?;
        let last = items.iter().rposition(is_item)?;
        Some(TextRange::new(items[first].start, items[last].end))
    };
    let at = items.partition_point(|r| r.end < offset);
    let after = items.get(at + 1..).unwrap_or_default();
    [run(&items[..at]), run(after)]
        .into_iter()
        .flatten()
        .collect()
}

/// The one diagnostic of a document whose text the editor and the server no
/// longer agree on: the server stops checking it until it gets the whole text.
pub fn out_of_sync(reason: &dyn std::fmt::Display) -> Diagnostic {
    Diagnostic::new(
        Code::DocumentOutOfSync,
        TextRange::empty(0),
        format!(
            "report-lsp lost track of this document's text (an edit did not fit it: {reason}); checking resumes when the editor sends the whole text, for example after reopening the file"
        ),
    )
}

fn analyze_within(text: Arc<String>, options: HostOptions) -> Analysis {
    match text.len() > options.max_document_bytes {
        true => analysis::too_large(text, options.max_document_bytes),
        false => analysis::analyze_keeping(text, Keep::at_most(options.kept_diagnostics())),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::fixture::{cursor, report_with_entry};
    use crate::generate::{GenerateOptions, generate_report};

    const REPORT: HostOptions = HostOptions {
        name_matches: true,
        max_document_bytes: 1 << 20,
        max_diagnostics: 1000,
    };

    const WRONG_TIER: &str = r#"{"path": "docs/a.md", "category": {"class": "bloat", "subtype": "distill"}, "signals": [],
      "op": "distill", "op_type": "generative", "is_destructive": false, "is_reversible": true, "safety_tier": "au$0to",
      "token_estimate": {"raw_tokens": 5}}"#;

    fn report(entries: usize, violation_every: usize) -> String {
        generate_report(GenerateOptions {
            entries,
            seed: 3,
            violation_every,
        })
    }

    /// Replaces `range` of the host's text, telling the host the edit.
    fn edit(host: &mut DocumentHost<String>, range: TextRange, new_text: &str) -> UpdateKind {
        edit_with(host, range, new_text, REPORT)
    }

    fn edit_with(
        host: &mut DocumentHost<String>,
        range: TextRange,
        new_text: &str,
        options: HostOptions,
    ) -> UpdateKind {
        let mut text = host.text().clone();
        text.replace_range(range.as_range(), new_text);
        let edit = ByteEdit {
            range,
            new_len: new_text.len(),
        };
        host.update(text, Some(&[edit]), options)
    }

    fn assert_like_a_full_analysis(host: &DocumentHost<String>) {
        let full = crate::analyze(host.text());
        let diagnostics: Vec<Diagnostic> = host
            .diagnostics()
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        assert_eq!(diagnostics, full.diagnostics);
        let text = host.text();
        // Every offset: outside entries, hover and completion read the text
        // without them (and without the shortlist's items, away from it).
        let index = host.index().unwrap();
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
            assert_eq!(
                host.hover(offset),
                hover::hover(&full, offset),
                "hover at {offset}"
            );
            let completions = completion::completions(full.root().unwrap(), text, offset, &index);
            assert_eq!(
                host.completions(offset),
                completions,
                "completions at {offset}"
            );
            let selection = folding::selection_ranges(full.root().unwrap(), offset);
            assert_eq!(
                host.selection_ranges(&[offset]),
                [selection],
                "selection at {offset}"
            );
        }
    }

    #[test]
    fn hovers_inside_and_outside_entries_equal_those_of_a_full_analysis() {
        let host = DocumentHost::new(report(6, 2), None, REPORT);
        assert!(host.status().entries.is_some(), "kept per entry");
        assert!(!host.holds_full_analysis());
        assert_like_a_full_analysis(&host);
    }

    #[test]
    fn hovers_and_completions_among_shortlist_items_of_every_kind_equal_those_of_a_full_analysis() {
        let text = report(4, 0);
        let at = text.find("\"shortlist\": [").unwrap() + 14;
        let mixed = "\n    7, \"docs/cleared-0.md\",\n    {\"path\": \"docs/路.md\", \"lifecycle\": {}},\n    \"docs/a.md\" ,\"docs/b.md\",\n    {\"path\": \"docs/c.md\"},\n    \"docs/area-0/note-0-a.md\", [],\n";
        let text = format!("{}{mixed}{}", &text[..at], &text[at..]);
        let host = DocumentHost::new(text, None, REPORT);
        assert!(!host.holds_full_analysis());
        assert_like_a_full_analysis(&host);
    }

    #[test]
    fn edits_in_entries_between_them_and_in_the_envelope_are_incremental_syntax_errors_outside_entries_not()
     {
        let mut host = DocumentHost::new(report(6, 0), None, REPORT);
        let at = host.text().find("\"safety_tier\": \"confirm\"").unwrap() + 16;
        let kind = edit(&mut host, TextRange::new(at, at + 7), "auto");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_eq!(host.diagnostics()[0].code, Code::TierMismatch);
        assert_like_a_full_analysis(&host);

        let between = host.text().find("},\n    {").unwrap() + 2;
        let kind = edit(&mut host, TextRange::empty(between), " ");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        // The envelope is checked again without the entries.
        let version = host.text().find("\"tool_version\"").unwrap() + 1;
        let kind = edit(&mut host, TextRange::empty(version), "x");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        // A syntax error in the envelope is not.
        let kind = edit(&mut host, TextRange::empty(version), "\"");
        assert_eq!(kind, UpdateKind::Full);
        assert_like_a_full_analysis(&host);
        let status = host.status();
        assert_eq!(
            (status.incremental_updates, status.full_analyses),
            (3, 2),
            "{status:?}"
        );
    }

    #[test]
    fn an_update_without_edits_analyses_the_whole_text() {
        let mut host = DocumentHost::new(report(3, 0), None, REPORT);
        let broken = host.text().replacen("\"entries\": [", "\"entries\": [[", 1);
        assert_eq!(host.update(broken, None, REPORT), UpdateKind::Full);
        assert_eq!(host.status().entries, None);
        assert!(host.holds_full_analysis());
        assert_like_a_full_analysis(&host);
    }

    #[test]
    fn no_edits_leave_even_a_full_analysis_standing() {
        let broken = report(3, 1).replacen("\"entries\": [", "\"entries\": [[", 1);
        let mut host = DocumentHost::new(broken.clone(), None, REPORT);
        assert!(host.holds_full_analysis());
        let before = host.diagnostics().into_iter().map(|d| d.into_owned());
        let before: Vec<Diagnostic> = before.collect();
        assert_eq!(
            host.update(broken, Some(&[]), REPORT),
            UpdateKind::Incremental
        );
        assert_eq!(host.status().full_analyses, 1);
        let after: Vec<Diagnostic> = host
            .diagnostics()
            .into_iter()
            .map(|d| d.into_owned())
            .collect();
        assert_eq!(after, before);
        // New options are no edit: they are applied.
        let other = HostOptions {
            max_diagnostics: 1,
            ..REPORT
        };
        let text = host.text().clone();
        assert_eq!(host.update(text, Some(&[]), other), UpdateKind::Full);
    }

    #[test]
    fn publication_is_capped_errors_first_with_a_summary() {
        let host = DocumentHost::new(report(40, 2), None, REPORT);
        let all = host.diagnostics().len();
        assert!(all > 3, "{all}");
        let published = host.published_at_most(3);
        assert_eq!(published.diagnostics.len(), 3);
        assert!(
            published
                .diagnostics
                .windows(2)
                .all(|w| Diagnostic::order(&w[0], &w[1]).is_le())
        );
        let errors = host
            .diagnostics()
            .iter()
            .filter(|d| d.severity == crate::diagnostic::Severity::Error)
            .count();
        assert!(errors >= 3, "{errors}");
        assert!(
            published
                .diagnostics
                .iter()
                .all(|d| d.severity == crate::diagnostic::Severity::Error)
        );
        let left_out = LeftOut {
            count: all - 3,
            total: all,
        };
        assert_eq!(published.left_out, Some(left_out));
        assert!(host.published_at_most(all).left_out.is_none());
        assert!(host.published().left_out.is_none(), "under REPORT's cap");
    }

    #[test]
    fn past_the_cap_problems_are_counted_and_fixes_still_found() {
        // 3000 scalar entries (errors), then an entry with a wrong tier whose
        // error ranks past the 1000 kept: left out, counted, still fixable.
        let zeros = vec!["0"; 3000].join(",");
        let (text, offset) = cursor(&format!(
            "{{\"schema_version\":\"1\",\"entries\":[{zeros},{WRONG_TIER}]}}"
        ));
        let options = HostOptions {
            max_diagnostics: 10,
            ..REPORT
        };
        let mut host = DocumentHost::new(text.clone(), None, options);
        let full = crate::analyze(&text);
        let (omitted, fixable) = host.omitted();
        assert_eq!(host.diagnostics().len(), options.kept_diagnostics());
        assert_eq!(host.diagnostics().len() + omitted, full.problems());
        assert!(fixable);
        assert!(host.status().entries.is_some(), "still per entry");
        assert!(
            !host
                .diagnostics()
                .iter()
                .any(|d| d.code == Code::TierMismatch)
        );
        let published = host.published();
        assert_eq!(published.diagnostics.len(), 10);
        let total = full.problems();
        let left_out = LeftOut {
            count: total - 10,
            total,
        };
        assert_eq!(published.left_out, Some(left_out));
        // The fix at the cursor is worked out again from its entry.
        let titles: Vec<String> = host
            .quick_fixes(TextRange::empty(offset))
            .iter()
            .map(|q| format!("{} ({})", q.fix().title, q.diagnostic.code))
            .collect();
        assert_eq!(
            titles,
            ["Set safety_tier to \"confirm\" (derived) (tier-mismatch)"]
        );
        assert!(host.can_fix_all());
        let fixed = crate::fix::apply(host.text(), &[host.fix_all().unwrap()]).unwrap();
        assert!(
            !crate::analyze(&fixed)
                .diagnostics
                .iter()
                .any(|d| d.code == Code::TierMismatch)
        );
        // An edit in that entry is per entry, and publishes what a full analysis would.
        let at = text.find("\"docs/a.md\"").unwrap() + 1;
        assert_eq!(
            edit(&mut host, TextRange::new(at, at + 4), "docs"),
            UpdateKind::Incremental
        );
        let full = crate::analysis::analyze_keeping(
            Arc::new(host.text().clone()),
            Keep::at_most(options.kept_diagnostics()),
        );
        let published: Vec<Diagnostic> = host
            .published_at_most(10)
            .diagnostics
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        let mut expected = full.diagnostics.clone();
        expected.sort_by(crate::diagnostic::rank);
        expected.truncate(10);
        expected.sort_by(Diagnostic::order);
        assert_eq!(published, expected);
        assert_eq!(host.diagnostics().len() + host.omitted().0, full.problems());
    }

    #[test]
    fn after_an_entry_is_inserted_the_capped_publication_names_the_moved_entries() {
        let mut host = DocumentHost::new(report(40, 2), None, REPORT);
        let first = host.text().find("\"entries\": [\n    {").unwrap() + 17;
        let end = first + host.text()[first..].find("\n    }").unwrap() + 6;
        let entry = host.text()[first..end].to_string();
        let kind = edit(
            &mut host,
            TextRange::empty(first),
            &format!("{entry},\n    "),
        );
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        let fresh = DocumentHost::new(host.text().clone(), None, REPORT);
        for max in [1, 3, 10, 1000] {
            let (ours, theirs) = (host.published_at_most(max), fresh.published_at_most(max));
            assert_eq!(ours.diagnostics, theirs.diagnostics, "max {max}");
            assert_eq!(ours.left_out, theirs.left_out, "max {max}");
        }
        let at = |h: &DocumentHost<String>| {
            h.quick_fixes(TextRange::new(0, h.text().len()))
                .into_iter()
                .map(|q| (q.fix().clone(), q.diagnostic.into_owned()))
                .collect::<Vec<_>>()
        };
        assert_eq!(at(&host), at(&fresh));
        assert!(!at(&host).is_empty());
    }

    #[test]
    fn each_quick_fix_of_the_golden_invalid_report_applied_as_a_whole_text() {
        let text = include_str!("../../../examples/golden/invalid.report.json").to_string();
        let host = DocumentHost::new(text, None, REPORT);
        let all = host.text().len();
        let fixes: Vec<Fix> = host
            .quick_fixes(TextRange::new(0, all))
            .into_iter()
            .map(|q| q.fix().clone())
            .collect();
        for fix in fixes {
            let fixed = crate::fix::apply(host.text(), &fix.edits).unwrap();
            let mut host = DocumentHost::new(host.text().clone(), None, REPORT);
            host.update(fixed, None, REPORT);
            assert_like_a_full_analysis(&host);
        }
    }

    #[test]
    fn quick_fixes_are_those_of_the_diagnostics_at_the_range() {
        let (text, offset) = cursor(&report_with_entry(WRONG_TIER));
        let host = DocumentHost::new(text, None, REPORT);
        let titles: Vec<String> = host
            .quick_fixes(TextRange::empty(offset))
            .iter()
            .map(|q| format!("{} ({})", q.fix().title, q.diagnostic.code))
            .collect();
        expect![[r#"
            [
                "Set safety_tier to \"confirm\" (derived) (tier-mismatch)",
            ]
        "#]]
        .assert_debug_eq(&titles);
        assert!(host.quick_fixes(TextRange::empty(0)).is_empty());
        assert!(host.can_fix_all());
        let fixed = crate::fix::apply(host.text(), &[host.fix_all().unwrap()]).unwrap();
        assert!(crate::analyze(&fixed).is_valid());
    }

    #[test]
    fn a_document_that_is_not_a_report_gets_nothing() {
        let options = HostOptions {
            name_matches: false,
            ..REPORT
        };
        let host = DocumentHost::new(
            r#"{"name": "x", "safety_tier": 1}"#.to_string(),
            None,
            options,
        );
        assert!(!host.is_report());
        assert!(host.diagnostics().is_empty());
        assert_eq!(host.hover(4), None);
        assert!(host.quick_fixes(TextRange::new(0, 30)).is_empty());
        assert_eq!(host.fix_all(), None);
        // Its content alone makes a report of it.
        let (text, _) = cursor(&report_with_entry(WRONG_TIER));
        let host = DocumentHost::new(text, None, options);
        assert!(host.is_report());
        assert!(!host.diagnostics().is_empty());
    }

    #[test]
    fn a_report_known_by_its_content_stays_one_while_broken() {
        let options = HostOptions {
            name_matches: false,
            ..REPORT
        };
        let text = report(4, 0);
        let mut host = DocumentHost::new(text.clone(), None, options);
        assert!(host.is_report());
        // A closing brace deleted: a syntax error, still checked and published.
        let last = text.rfind('}').unwrap();
        let mut broken = text.clone();
        broken.remove(last);
        host.update(broken, None, options);
        assert!(host.is_report());
        let codes: Vec<Code> = host.diagnostics().iter().map(|d| d.code).collect();
        assert!(codes.contains(&Code::SyntaxError), "{codes:?}");
        // Replaced by intact JSON that is no report: no longer checked.
        host.update("{\"name\": \"x\"}".to_string(), None, options);
        assert!(!host.is_report());
        assert!(host.diagnostics().is_empty());
        // A document never taken for a report is not one because it is broken.
        let host = DocumentHost::new("{\"name\": ".to_string(), None, options);
        assert!(!host.is_report());
    }

    #[test]
    fn a_whole_new_text_that_changes_one_value_is_rechecked_per_entry() {
        let mut host = DocumentHost::new(report(20, 0), None, REPORT);
        let text = host.text().clone();
        let changed = text.replacen(
            "\"safety_tier\": \"confirm\"",
            "\"safety_tier\": \"auto\"",
            1,
        );
        assert_eq!(host.update(changed, None, REPORT), UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        assert_eq!(
            host.update(text.clone(), None, REPORT),
            UpdateKind::Incremental
        );
        assert!(host.diagnostics().is_empty());
        // New options are a new analysis, even of the same text.
        let other = HostOptions {
            max_document_bytes: 1 << 21,
            ..REPORT
        };
        assert_eq!(host.update(text, None, other), UpdateKind::Full);
    }

    /// Deletes the entry's closing brace at `brace`, then types `typed`
    /// there: both per entry, and as a full analysis finds them.
    fn delete_the_brace_and_type_in_its_place(
        host: &mut DocumentHost<String>,
        brace: usize,
        typed: &str,
    ) {
        let kind = edit(host, TextRange::new(brace, brace + 1), "");
        assert_eq!(kind, UpdateKind::Incremental);
        let syntax_error = |d: &Cow<'_, Diagnostic>| d.code == Code::SyntaxError;
        assert!(host.diagnostics().iter().any(syntax_error));
        assert_like_a_full_analysis(host);
        let kind = edit(host, TextRange::empty(brace), typed);
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(host);
    }

    #[test]
    fn an_entry_whose_brace_is_missing_before_the_next_is_rechecked_alone() {
        let mut host = DocumentHost::new(report(12, 4), None, REPORT);
        let original = host.text().clone();
        // A closing brace in the middle deleted: the entry ends where its
        // last value does, and the next one starts the next item.
        let brace = original.match_indices("}\n    },\n").nth(4).unwrap().0 + 6;
        assert_eq!(&original[brace..brace + 2], "},");
        // Typed in while broken, before its comma, and the comma deleted.
        delete_the_brace_and_type_in_its_place(&mut host, brace, "\"日本\": 1");
        let comma = brace + "\"日本\": 1".len();
        assert_eq!(&host.text()[comma..comma + 1], ",");
        let kind = edit(&mut host, TextRange::new(comma, comma + 1), "");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        let kind = edit(&mut host, TextRange::empty(comma), ",");
        assert_eq!(kind, UpdateKind::Incremental);
        // Repaired: a whole entry again.
        let kind = edit(&mut host, TextRange::new(brace, comma), "}");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_eq!(host.text(), &original);
        assert_like_a_full_analysis(&host);
        // The entry after an unclosed one is not edited alone.
        edit(&mut host, TextRange::new(brace, brace + 1), "");
        let next_path = brace + host.text()[brace..].find("\"path\": \"").unwrap() + 9;
        let kind = edit(&mut host, TextRange::empty(next_path), "x");
        assert_eq!(kind, UpdateKind::Full);
        assert_like_a_full_analysis(&host);
        // A text opened broken that way is kept per entry, and repaired alone.
        let mut host = DocumentHost::new(host.text().clone(), None, REPORT);
        assert!(host.status().entries.is_some(), "kept per entry");
        let kind = edit(&mut host, TextRange::new(next_path, next_path + 1), "");
        assert_eq!(kind, UpdateKind::Full, "the next entry edited");
        let kind = edit(&mut host, TextRange::empty(brace), "}");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_eq!(host.text(), &original);
        assert_like_a_full_analysis(&host);
    }

    #[test]
    fn the_last_entry_whose_brace_is_missing_before_the_bracket_is_rechecked_alone() {
        let mut host = DocumentHost::new(report(12, 4), None, REPORT);
        let original = host.text().clone();
        let brace = original.rfind("}\n  ],").unwrap();
        // Typed in while broken, right before the bracket.
        delete_the_brace_and_type_in_its_place(&mut host, brace, ", \"😀\": 1");
        let kind = edit(
            &mut host,
            TextRange::new(brace, brace + ", \"😀\": 1".len()),
            "",
        );
        assert_eq!(kind, UpdateKind::Incremental);
        // Opened broken: kept per entry, and repaired alone.
        let mut host = DocumentHost::new(host.text().clone(), None, REPORT);
        assert!(host.status().entries.is_some(), "kept per entry");
        let kind = edit(&mut host, TextRange::empty(brace), "}");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_eq!(host.text(), &original);
        assert_like_a_full_analysis(&host);
        // With a quote after the bracket on its line, a full analysis.
        let mut text = original.clone();
        text.replace_range(brace + 2..brace + 4, "], \"x\": 1,");
        let mut host = DocumentHost::new(text, None, REPORT);
        let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
        assert_eq!(kind, UpdateKind::Full);
        assert_like_a_full_analysis(&host);
    }

    #[test]
    fn past_the_cap_a_break_judged_again_is_refused_and_its_repair_takes_the_state_back() {
        let options = HostOptions {
            max_diagnostics: 10,
            max_document_bytes: 1 << 24,
            ..REPORT
        };
        let text = report(1500, 1);
        let mut host = DocumentHost::new(text.clone(), None, options);
        assert!(host.omitted().0 > 0, "{:?}", host.omitted());
        assert!(host.status().entries.is_some());
        assert!(
            text.contains("\"promotion_candidates\": [\n"),
            "candidates to judge"
        );
        let brace = text.match_indices("}\n    },\n").nth(700).unwrap().0 + 6;
        let edit = |host: &mut DocumentHost<String>, range, new_text| {
            edit_with(host, range, new_text, options)
        };
        // Broken, the entry's path leaves the judgements: with diagnostics
        // left out that is a full analysis, the state before it kept.
        let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
        assert_eq!(kind, UpdateKind::Full);
        let kind = edit(&mut host, TextRange::empty(brace), "}");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_eq!(host.text(), &text);
        let fresh = DocumentHost::new(text, None, options);
        assert_eq!(host.diagnostics(), fresh.diagnostics());
        assert_eq!(host.omitted(), fresh.omitted());
    }

    #[test]
    fn an_entry_broken_and_repaired_takes_back_the_analysis_before_the_break() {
        let mut host = DocumentHost::new(report(12, 4), None, REPORT);
        let original = host.text().clone();
        // The last entry's `signals` bracket deleted: its `]` then closes
        // the entries array, and the rest of the entry lands in the report
        // itself, a full analysis.
        let brace = original.rfind("\"signals\": [").unwrap() + 11;
        assert_eq!(&original[brace..brace + 1], "[");
        let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
        assert_eq!(kind, UpdateKind::Full);
        assert_like_a_full_analysis(&host);
        // Still broken after another edit elsewhere in it: a full analysis,
        // the analysis before the break kept.
        let path = host.text().rfind("\"path\": \"").unwrap() + 9;
        let kind = edit(&mut host, TextRange::empty(path), "日本/");
        assert_eq!(kind, UpdateKind::Full);
        assert_like_a_full_analysis(&host);
        // Repaired: an edit within that entry of the text before the break.
        let kind = edit(&mut host, TextRange::empty(brace + "日本/".len()), "[");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        // The broken text's analysis is kept to be freed when the caller is idle.
        assert!(host.holds_retired());
        host.drop_retired();
        assert!(!host.holds_retired());
        // Broken and put back exactly.
        let kind = edit(&mut host, TextRange::new(path, path + "日本/".len()), "");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_eq!(host.text(), &original);
        let kind = edit(&mut host, TextRange::new(brace, brace + 1), "");
        assert_eq!(kind, UpdateKind::Full);
        let kind = edit(&mut host, TextRange::empty(brace), "[");
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        // Repaired by a whole text (a formatter's, an undo): compared with the one kept.
        edit(&mut host, TextRange::new(brace, brace + 1), "");
        let kind = host.update(original.clone(), None, REPORT);
        assert_eq!(kind, UpdateKind::Incremental);
        assert_like_a_full_analysis(&host);
        assert_eq!(host.status().full_analyses, 5, "{:?}", host.status());
    }

    #[test]
    fn file_references_up_to_a_limit_are_the_entries_first_in_document_order() {
        let host = DocumentHost::new(report(6, 0), None, REPORT);
        let all = host.file_refs(TextRange::new(0, host.text().len()));
        let (every, more) = host.file_refs_up_to(usize::MAX);
        assert_eq!((every.clone(), more), (all.clone(), false));
        let entries = host.incremental.as_ref().unwrap().entries_span().unwrap();
        let in_entries: Vec<FileRef> = all
            .iter()
            .filter(|r| entries.start <= r.range.start && r.range.end <= entries.end)
            .cloned()
            .collect();
        assert!(in_entries.len() > 3 && in_entries.len() < all.len());
        for limit in [1, 3, in_entries.len()] {
            let (some, more) = host.file_refs_up_to(limit);
            assert_eq!(some, in_entries[..limit], "limit {limit}");
            assert!(more);
        }
        // Room past the entries: the shortlist's and candidates' first.
        let (some, more) = host.file_refs_up_to(in_entries.len() + 1);
        assert_eq!(some.len(), in_entries.len() + 1);
        assert_eq!(some[0], all[0]);
        assert!(more || all.len() == in_entries.len() + 1);
    }

    #[test]
    fn the_outline_and_folding_are_made_once_a_text_and_again_after_an_edit() {
        let mut host = DocumentHost::new(report(5, 0), None, REPORT);
        let fresh = |host: &DocumentHost<String>| {
            let index = host.index().unwrap();
            (
                symbols::symbols(&index),
                folding::folding_ranges(host.text(), 50),
            )
        };
        let first = (host.symbols(), host.folding_ranges(50));
        assert_eq!(first, fresh(&host));
        assert_eq!((host.symbols(), host.folding_ranges(50)), first);
        // Another limit is another answer.
        assert_eq!(
            host.folding_ranges(3),
            folding::folding_ranges(host.text(), 3)
        );
        // A path renamed and a line added before the entries: both change.
        let at = host.text().rfind("\"path\": \"").unwrap() + 9;
        edit(&mut host, TextRange::empty(at), "新/");
        let start = host.text().find("\"entries\"").unwrap();
        edit(&mut host, TextRange::empty(start), "\"x\": [\n1\n],\n  ");
        let after = (host.symbols(), host.folding_ranges(50));
        assert_ne!(after, first);
        assert_eq!(after, fresh(&host));
    }

    #[test]
    fn a_burst_of_keystrokes_in_the_shortlist_is_one_edit() {
        let mut host = DocumentHost::new(report(20, 0), None, REPORT);
        let mut text = host.text().clone();
        // Typing inside the first shortlist path: a path no entry has, then 😀.
        let at = text.find("\"shortlist\": [").unwrap();
        let at = at + text[at..].find("\"docs/").unwrap() + 6;
        let mut edits = Vec::new();
        for (i, c) in "新😀".char_indices() {
            text.insert(at + i, c);
            edits.push(ByteEdit {
                range: TextRange::empty(at + i),
                new_len: c.len_utf8(),
            });
        }
        assert_eq!(
            host.update(text, Some(&edits), REPORT),
            UpdateKind::Incremental
        );
        assert_like_a_full_analysis(&host);
        assert_eq!(host.status().full_analyses, 1);
    }

    #[test]
    fn a_burst_of_keystrokes_in_one_entry_is_one_edit() {
        let mut host = DocumentHost::new(report(20, 0), None, REPORT);
        let mut text = host.text().clone();
        let at = text.find("\"signals\": [\"").unwrap() + 13;
        let mut edits = Vec::new();
        for (i, c) in "typed".char_indices() {
            text.insert(at + i, c);
            edits.push(ByteEdit {
                range: TextRange::empty(at + i),
                new_len: 1,
            });
        }
        assert_eq!(
            host.update(text, Some(&edits), REPORT),
            UpdateKind::Incremental
        );
        assert_like_a_full_analysis(&host);
        // Edits in two entries cannot be one; each is still tracked.
        let mut text = host.text().clone();
        let first = text.find("\"signals\": [\"").unwrap() + 13;
        let second = text.rfind("\"signals\": [\"").unwrap() + 13;
        text.insert(second, 'y');
        text.insert(first, 'x');
        let edits = [
            ByteEdit {
                range: TextRange::empty(second),
                new_len: 1,
            },
            ByteEdit {
                range: TextRange::empty(first),
                new_len: 1,
            },
        ];
        assert_eq!(
            host.update(text, Some(&edits), REPORT),
            UpdateKind::Incremental
        );
        assert_like_a_full_analysis(&host);
    }

    #[test]
    fn a_text_over_the_limit_gets_one_diagnostic() {
        let options = HostOptions {
            max_document_bytes: 100,
            ..REPORT
        };
        let host = DocumentHost::new(report(3, 0), None, options);
        let codes: Vec<Code> = host.diagnostics().iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::DocumentTooLarge]);
    }

    #[test]
    fn out_of_sync_is_one_warning_at_the_start() {
        let warning = out_of_sync(&"line 9 is past the end");
        assert_eq!(warning.code, Code::DocumentOutOfSync);
        assert_eq!(warning.severity, crate::diagnostic::Severity::Warning);
        assert_eq!(warning.range, TextRange::empty(0));
        assert!(warning.message.contains("line 9 is past the end"));
    }
}
