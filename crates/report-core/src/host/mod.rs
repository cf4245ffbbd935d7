//! One document's analysis, kept up to date edit by edit: the core's face
//! to an editor. A [`DocumentHost`] owns the text (through [`SourceText`],
//! so the server keeps its rope without the core knowing ropes), applies
//! each change to the per-entry or full analysis ([`update`]), and answers
//! every question a feature asks (diagnostics, hover, fixes, navigation,
//! status) by handing a [`Snapshot`] of the text and its analysis to the
//! feature's module. Everything is in byte offsets; a language server's
//! handler converts positions, calls one method, and converts back.
//!
//! - `analysed`: how the text is analysed (per entry, in full, not a report);
//! - `parked`: the per-entry analysis kept across an edit that broke an
//!   entry, for its repair;
//! - `snapshot`: the text and its analysis as the features read them;
//! - `tests`: edits in, the answers of a full analysis out.
//!
//! [`update`]: DocumentHost::update

mod analysed;
mod parked;
pub mod snapshot;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use crate::analysis::{self, Analysis};
use crate::cancel::Wanted;
use crate::clean_edit::{Combined, Targets};
use crate::diagnostic::{Code, Diagnostic, Keep, Severity};
use crate::fix::TextEdit;
use crate::fix_all::fix_all_edit;
use crate::hover::{self, HoverInfo};
use crate::ide::clean::{self, EntryClean};
use crate::ide::completion::{self, CompletionItem};
use crate::ide::inlay::{self, InlayHint};
use crate::ide::links::{self, FileRef};
use crate::ide::quick_fixes::{self, QuickFix};
use crate::ide::symbols::{self, Symbol};
use crate::ide::targets::{self, TargetIndex, TargetSpan};
use crate::ide::workspace_symbols::{self, EntrySymbol};
use crate::ide::{folding, navigation};
use crate::incremental::Incremental;
use crate::parallel::Threads;
use crate::project_checks::{self, WorkspaceFacts};
use crate::publication::{self, Own, Publication};
use crate::report_diff;
use crate::rollup::{self, Rollup};
use crate::selection::{has_report_keys, looks_like_report};
use crate::severities::Severities;
use crate::summary;
use crate::text::{ByteEdit, SourceText, TextRange, changed_range, spans_most_of};
use analysed::Analysed;
use parked::{Parked, Repair};
pub use snapshot::Snapshot;

/// An editor's default for [`HostOptions::max_document_bytes`] (the
/// server's setting, the WebAssembly module's): well above the largest
/// reports served (50 000 entries are about 42 MB), well below what would
/// exhaust a workstation.
pub const DEFAULT_MAX_DOCUMENT_BYTES: usize = 128 << 20;

/// An editor's default for [`HostOptions::max_diagnostics`]: enough to fix
/// a broken report, few enough that a report with thousands of problems
/// stays responsive.
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 1000;

/// What the host is told about a document besides its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostOptions {
    /// Whether its name marks it as a report; otherwise its content decides.
    pub name_matches: bool,
    /// Texts longer than this get one `document-too-large` diagnostic instead of checks.
    pub max_document_bytes: usize,
    /// The most diagnostics published. An analysis keeps
    /// [`publication::kept`] of them and counts the rest.
    pub max_diagnostics: usize,
}

impl HostOptions {
    /// How many diagnostics an analysis keeps.
    pub fn kept_diagnostics(&self) -> usize {
        publication::kept(self.max_diagnostics)
    }
}

/// How an update was analysed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateKind {
    /// Only the edited entries were checked again.
    Incremental,
    /// The whole text was analysed.
    Full,
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

/// One document's text and its analysis.
pub struct DocumentHost<T> {
    text: T,
    analysed: Analysed,
    /// While an edit within one entry broke it: the state before that edit,
    /// taken back when the text comes back to it, or to a text that differs
    /// from it within one entry (a repair).
    parked: Option<Box<Parked<T>>>,
    /// The analysis a repair replaced, freed when the caller is idle
    /// ([`DocumentHost::drop_retired`]) or before the next full analysis:
    /// freeing a big one takes longer than the repair and the edits after it.
    retired: Option<Analysed>,
    /// The outline and the folding ranges of the current text, made on the
    /// first request: they read all of it (12 and 47 ms at 50,000 entries).
    outline: OnceLock<Vec<Symbol>>,
    folding: Mutex<Option<(usize, Vec<TextRange>)>>,
    /// What the workspace checks ask of the project, made on the first
    /// request and kept while the text stays (new settings, a save, a file
    /// changed on disk ask again): it reads every entry.
    request: OnceLock<Arc<project_checks::ProjectRequest>>,
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

    /// Analyses `whole` in full, parsing and checking on `threads`, and
    /// only then has `text` make the same text as `T` (a rope): for a
    /// report kept per entry, once the analysis's tree is freed, so that
    /// the tree and the `T` are never held at once (an analysis kept
    /// whole keeps its tree).
    pub fn open(
        whole: Arc<String>,
        options: HostOptions,
        threads: Threads<'_>,
        text: impl FnOnce(&Arc<String>) -> T,
    ) -> DocumentHost<T> {
        let (analysed, text) = analysed_with_text(whole, options, threads, false, text);
        let mut host = DocumentHost::holding(text, options);
        host.full_analyses += 1;
        host.analysed = analysed;
        host
    }

    /// Takes `whole`, a text new over most of the current one (a report
    /// written again and reloaded), as [`DocumentHost::open`] takes an
    /// opening's: what the host holds of the current text is freed first
    /// ([`DocumentHost::release`]), and `text` makes the new `T` once the
    /// new analysis's tree is freed.
    pub fn reopen(
        &mut self,
        whole: Arc<String>,
        options: HostOptions,
        threads: Threads<'_>,
        text: impl FnOnce(&Arc<String>) -> T,
    ) where
        T: Default,
    {
        let was_report = self.analysed.is_report();
        self.release();
        self.options = options;
        let (analysed, text) = analysed_with_text(whole, options, threads, was_report, text);
        self.text = text;
        self.full_analyses += 1;
        self.analysed = analysed;
    }

    /// Frees the text, its analysis and the state parked before an edit
    /// that broke an entry (whose edits since lead to the old text, not
    /// the new) ahead of a [`DocumentHost::reopen`], which does it too: a
    /// caller can give the memory back to the system between the two.
    /// Until then the host answers for an empty text that is a report if
    /// it was one.
    pub fn release(&mut self)
    where
        T: Default,
    {
        self.analysed = Analysed::placeholder_of(self.analysed.is_report());
        self.parked = None;
        self.retired = None;
        self.text = T::default();
        self.outline = OnceLock::new();
        *self.folding.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
        self.request = OnceLock::new();
    }

    /// Takes over a full analysis (of [`analyze_file`], say) as `text`'s,
    /// `text` made from the text analysed.
    pub fn from_analysis(
        analysis: Analysis,
        options: HostOptions,
        text: impl FnOnce(&Arc<String>) -> T,
    ) -> DocumentHost<T> {
        let mut host = DocumentHost::holding(text(&analysis.text), options);
        host.adopt(analysis, false);
        host
    }

    /// A host of `text` with no analysis yet.
    fn holding(text: T, options: HostOptions) -> DocumentHost<T> {
        DocumentHost {
            text,
            analysed: Analysed::NotAReport(Analysis::empty()),
            parked: None,
            retired: None,
            outline: OnceLock::new(),
            folding: Mutex::new(None),
            request: OnceLock::new(),
            options,
            incremental_updates: 0,
            full_analyses: 0,
        }
    }

    /// Brings the analysis to `text`. `edits` (in bytes, in order) lead from
    /// the current text to it; None means it is unrelated (a whole-text
    /// change, new settings). Incremental when every edit falls inside one
    /// entry object that still parses alone, in full otherwise. The entries
    /// after such an edit are left lagging: only the diagnostics may be read
    /// before [`DocumentHost::settle`].
    pub fn update(
        &mut self,
        text: T,
        edits: Option<&[ByteEdit]>,
        options: HostOptions,
    ) -> UpdateKind {
        let same_options = options == self.options;
        // Put back where the text and options stay.
        let request = std::mem::take(&mut self.request);
        // No edits (the same text sent again): the analysis stands, and
        // what was made of the text.
        if edits.is_some_and(<[ByteEdit]>::is_empty) {
            if same_options {
                self.text = text;
                self.request = request;
                return UpdateKind::Incremental;
            }
        } else {
            self.outline = OnceLock::new();
            *self.folding.get_mut().unwrap_or_else(|e| e.into_inner()) = None;
        }
        let per_entry = self.analysed.per_entry();
        // A whole new text (a formatter's, a reload), one change over most
        // of the text (a client that replaces the whole buffer sends its
        // range) or a batch that spans most of it: what it really changed
        // is found by comparing the texts, a fraction of a full analysis.
        let wide = |edits: &[ByteEdit]| spans_most_of(edits, self.text.len());
        let narrowed;
        let edits = match edits {
            edits if same_options && per_entry.is_some() && edits.is_none_or(wide) => {
                match changed_range(&self.text, &text) {
                    None => {
                        self.text = text;
                        self.request = request;
                        return UpdateKind::Incremental;
                    }
                    Some(edit) => {
                        narrowed = [edit];
                        Some(&narrowed[..])
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
                Some(one) if per_entry.is_some_and(|i| i.accepts(one.range)) => {
                    composed = [one];
                    Some(&composed[..])
                }
                _ => Some(many),
            },
            edits => edits,
        };
        let fits = text.len() <= options.max_document_bytes;
        // Back to the text before an edit that broke an entry, or within
        // one entry of it: that text's per-entry analysis takes the edit.
        let mut parked = None;
        if let Some(old) = self.parked.take()
            && same_options
            && fits
        {
            match (*old).repair(&text, edits) {
                Repair::Repaired(repaired) => {
                    let broken =
                        std::mem::replace(&mut self.analysed, Analysed::PerEntry(repaired));
                    self.retired = Some(broken);
                    self.text = text;
                    self.incremental_updates += 1;
                    return UpdateKind::Incremental;
                }
                Repair::StillBroken(left) => parked = Some(left),
                Repair::Lost => {}
            }
        }
        if let Some(edits) = edits
            && fits
            && let Some(mut incremental) = self.take_per_entry()
        {
            let tracked = edits.iter().all(|e| incremental.edit(e.range, e.new_len))
                && incremental.len() == text.len()
                && incremental.update(|range| text.slice(range));
            if tracked {
                self.analysed = Analysed::PerEntry(incremental);
                self.text = text;
                self.options = options;
                self.incremental_updates += 1;
                return UpdateKind::Incremental;
            }
            // An edit that broke an entry object: kept for its repair. Not
            // another edit (in a scalar entry, say): a repair of it would be
            // refused again, and the state would only add to the memory.
            let edit = ByteEdit::compose(edits);
            if same_options
                && incremental.resume()
                && edit.is_some_and(|e| incremental.accepts(e.range))
            {
                let old = std::mem::replace(&mut self.text, text);
                self.parked = Some(Box::new(Parked {
                    text: old,
                    incremental,
                    since: edit,
                }));
                self.analyze_full(None, options);
                return UpdateKind::Full;
            }
        }
        self.parked = parked;
        self.text = text;
        self.analyze_full(None, options);
        UpdateKind::Full
    }

    /// The per-entry analysis, taken out to be edited; a placeholder stands
    /// in its place until the update puts an analysis back.
    fn take_per_entry(&mut self) -> Option<Incremental> {
        match std::mem::replace(&mut self.analysed, Analysed::placeholder()) {
            Analysed::PerEntry(incremental) => Some(incremental),
            other => {
                self.analysed = other;
                None
            }
        }
    }

    /// Whether it keeps a retired analysis (see [`DocumentHost::drop_retired`]).
    pub fn holds_retired(&self) -> bool {
        self.retired.is_some()
    }

    /// Frees the analysis a repair replaced by the per-entry one, if it
    /// keeps one: for a caller with nothing else to do.
    pub fn drop_retired(&mut self) {
        self.retired = None;
    }

    fn analyze_full(&mut self, whole: Option<String>, options: HostOptions) {
        let was_report = self.analysed.is_report();
        // Dropped before the full analysis, which needs the memory.
        self.analysed = Analysed::placeholder();
        self.retired = None;
        if options != self.options {
            self.parked = None;
        }
        self.options = options;
        let whole = whole.unwrap_or_else(|| self.text.whole());
        let analysis = analyze_within(Arc::new(whole), options, Threads::OneThread);
        self.adopt(analysis, was_report);
    }

    /// Keeps a full analysis of the text, per entry when it has that form.
    /// A host for one look at a full analysis (the CLI's summary, of a
    /// file analysed as `check` analyses it): kept whole, with nothing
    /// made per entry, which only edits would repay.
    pub fn of_whole(
        analysis: Analysis,
        options: HostOptions,
        text: impl FnOnce(&Arc<String>) -> T,
    ) -> DocumentHost<T> {
        let mut host = DocumentHost::holding(text(&analysis.text), options);
        host.full_analyses += 1;
        host.analysed = match takes_for_a_report(options, &analysis, false) {
            true => Analysed::Whole(analysis),
            false => Analysed::NotAReport(analysis),
        };
        host
    }

    fn adopt(&mut self, analysis: Analysis, was_report: bool) {
        let is_report = takes_for_a_report(self.options, &analysis, was_report);
        self.full_analyses += 1;
        self.analysed = analysed_of(analysis, is_report, |_| {});
        self.forget_parked_unless_needed();
    }

    /// Past the cap, the broken text's per-entry analysis refuses the
    /// repair (the candidates are judged again): the state before the break
    /// is kept for it; otherwise a new per-entry analysis forgets it.
    fn forget_parked_unless_needed(&mut self) {
        if let Analysed::PerEntry(incremental) = &self.analysed
            && incremental.omitted().count == 0
        {
            self.parked = None;
        }
    }

    pub fn text(&self) -> &T {
        &self.text
    }

    /// Takes `text`, the host's own text in the form the caller reads it,
    /// in place of a stand-in: a caller that gave [`DocumentHost::open`] or
    /// [`DocumentHost::reopen`] an empty `T` can publish the first
    /// diagnostics (which read the analysis, not the text) before it makes
    /// the `T` (a 40 MB report's rope takes 40 ms). Nothing may read the
    /// text in between. (Its length is not checked against the analysis's:
    /// a document over the size limit is analysed as an empty text.)
    pub fn made_text(&mut self, text: T) {
        self.text = text;
    }

    /// The current text and its analysis, as the features read them:
    /// after [`DocumentHost::settle`], when an update left entries lagging.
    pub fn snapshot(&self) -> Snapshot<'_> {
        debug_assert!(self.is_settled(), "settled before the features read");
        self.lagging_snapshot()
    }

    /// The snapshot the diagnostics are read from, which see through the
    /// lag (see [`DocumentHost::settle`]).
    fn lagging_snapshot(&self) -> Snapshot<'_> {
        Snapshot {
            text: &self.text,
            analysed: &self.analysed,
        }
    }

    /// Moves the entries an update left lagging (the entries after an edit
    /// within one are moved when first read, not at the update: see
    /// `incremental/lag.rs`). The diagnostics ([`DocumentHost::published`],
    /// [`DocumentHost::diagnostics`]) and updates read through the lag;
    /// every other question must come after this.
    pub fn settle(&mut self) {
        if let Analysed::PerEntry(incremental) = &mut self.analysed {
            incremental.settle();
        }
    }

    /// Builds now what the next edits would otherwise build at their first
    /// need: the shortlist's near-miss index, which an entry whose path the
    /// shortlist lacks asks for (about 20 ms at 50 000 paths, once per
    /// shortlist). A shortlist, opened or replaced by an edit, has none
    /// until this is called: the server calls it after publishing, when
    /// nothing waits, so that neither the first diagnostics nor the first
    /// such edit wait for it. Nothing when it is built.
    pub fn index_near_misses(&self) {
        if let Analysed::PerEntry(incremental) = &self.analysed {
            incremental.index_near_misses();
        }
    }

    /// Whether no entry lags (see [`DocumentHost::settle`]).
    pub fn is_settled(&self) -> bool {
        self.analysed
            .per_entry()
            .is_none_or(Incremental::is_settled)
    }

    /// Whether the document is validated at all; others get no diagnostics,
    /// hover or fixes.
    pub fn is_report(&self) -> bool {
        self.analysed.is_report()
    }

    /// Whether a full analysis (its tree and text) is held, which an update
    /// to an incremental one frees.
    pub fn holds_full_analysis(&self) -> bool {
        self.analysed.full().is_some()
    }

    pub fn status(&self) -> HostStatus {
        HostStatus {
            bytes: self.text.len(),
            is_report: self.is_report(),
            entries: self.analysed.per_entry().map(Incremental::entry_count),
            incremental_updates: self.incremental_updates,
            full_analyses: self.full_analyses,
        }
    }
}

/// The questions features ask, each answered by its own module from a
/// [`Snapshot`] of the current text.
impl<T: SourceText> DocumentHost<T> {
    /// Every diagnostic, in document order.
    pub fn diagnostics(&self) -> Vec<Cow<'_, Diagnostic>> {
        self.lagging_snapshot()
            .diagnostics_where(&|_| true, usize::MAX)
    }

    /// The report's own diagnostics a publication under
    /// [`HostOptions::max_diagnostics`] can show at the levels of
    /// `severities`: what [`publication::publish`] takes.
    pub fn own(&self, severities: &Severities) -> Own<'_> {
        self.lagging_snapshot()
            .own(self.options.max_diagnostics, severities)
    }

    /// The publication of its own diagnostics alone, at their default
    /// severities, under [`HostOptions::max_diagnostics`].
    pub fn published(&self) -> Publication<'_> {
        let severities = Severities::default();
        let o = publication::Options {
            max: self.options.max_diagnostics,
            severities: &severities,
        };
        publication::publish(self.own(&severities), &[], &o)
    }

    /// The hover at `offset`.
    pub fn hover(&self, offset: usize) -> Option<HoverInfo> {
        hover::hover_at(self.snapshot(), offset)
    }

    /// The hover at `offset` as an editor shows it: given the project's
    /// facts, the workspace hover (the edit preview, the live derivation, or
    /// why the project was not read) after it.
    pub fn hover_with(
        &self,
        offset: usize,
        workspace: Option<&WorkspaceFacts>,
    ) -> Option<HoverInfo> {
        let more = workspace.and_then(|facts| self.workspace_hover(offset, facts));
        match (self.hover(offset), more) {
            (Some(mut info), Some(more)) => {
                info.markdown = format!("{}\n\n---\n\n{}", info.markdown, more.markdown);
                Some(info)
            }
            (info, more) => info.or(more),
        }
    }

    /// The derivation trace of the entry around `offset`.
    pub fn trace(&self, offset: usize) -> Option<HoverInfo> {
        hover::trace_at(self.snapshot(), offset)
    }

    /// The workspace hover (edit preview, live derivation) at `offset`, from
    /// the facts the caller gathered; None outside an entry's `exact_edit`.
    pub fn workspace_hover(&self, offset: usize, facts: &WorkspaceFacts) -> Option<HoverInfo> {
        project_checks::hover_at(self.snapshot(), offset, facts)
    }

    /// The clean of the entry at `offset` on the files of `targets`.
    pub fn clean_at(&self, offset: usize, targets: Targets<'_>) -> Option<EntryClean> {
        clean::clean_at(self.snapshot(), offset, targets)
    }

    /// Whether some entry may derive `auto`, from what the analysis kept.
    pub fn may_clean_auto(&self) -> bool {
        clean::may_clean_auto(self.snapshot())
    }

    /// The cleans of every entry that derives `auto` now, as one edit.
    pub fn clean_auto(&self, targets: Targets<'_>) -> (Combined, Vec<EntryClean>) {
        clean::clean_auto(self.snapshot(), targets)
    }

    /// The files its entries name, kept of a report read from disk.
    pub fn target_index(&self) -> TargetIndex {
        TargetIndex::of(self.snapshot())
    }

    /// The spans of the entries naming `path`, for that file's editor.
    pub fn spans_naming(&self, path: &str, workspace: Option<&WorkspaceFacts>) -> Vec<TargetSpan> {
        targets::spans_naming(self.snapshot(), path, workspace)
    }

    /// The workspace diagnostics of this text again, in place, after the
    /// files `changed` (as the report writes them) changed in `facts`: only
    /// the entries that read one are checked again. Says whether they changed.
    pub fn recheck_workspace(
        &self,
        diagnostics: &mut Vec<Diagnostic>,
        facts: &WorkspaceFacts,
        changed: &HashSet<String>,
    ) -> bool {
        project_checks::recheck(self.snapshot(), diagnostics, facts, changed)
    }

    /// What it was last told besides the text.
    pub fn options(&self) -> HostOptions {
        self.options
    }

    /// What the workspace checks ask of the report's project (see
    /// [`project_checks::request`]), read entry by entry once a text.
    /// `wanted` is asked now and then (see `cancel`).
    pub fn project_request(
        &self,
        wanted: Option<Wanted<'_>>,
    ) -> Arc<project_checks::ProjectRequest> {
        let made = self.request.get_or_init(|| {
            let request = match self.snapshot().report_tree() {
                Some(report) => project_checks::request_of(&report, wanted),
                None => project_checks::ProjectRequest::default(),
            };
            Arc::new(request)
        });
        made.clone()
    }

    /// Every workspace diagnostic of this text under `facts`, sorted: the
    /// same as [`project_checks::check`] of its full analysis, without one.
    /// `wanted` is asked now and then (see `cancel`).
    pub fn workspace_check(
        &self,
        facts: &WorkspaceFacts,
        wanted: Option<Wanted<'_>>,
    ) -> Vec<Diagnostic> {
        match self.snapshot().report_tree() {
            Some(report) => project_checks::check_report(&report, facts, wanted),
            None => Vec::new(),
        }
    }

    /// `scan.project_root` as written, read outside the entries.
    pub fn project_root(&self) -> Option<String> {
        let (named, _) = self.snapshot().at_tree(0, |root, _, _| {
            let named = project_checks::project_root_of(root)?.as_str()?;
            Some(named.to_string())
        })?;
        named
    }

    /// Every entry's span by the file it names.
    pub fn all_target_spans(&self) -> HashMap<String, Vec<TargetSpan>> {
        targets::all_spans(self.snapshot(), None)
    }

    /// The fixes of the diagnostics whose range touches `range`, in document order.
    pub fn quick_fixes(&self, range: TextRange) -> Vec<QuickFix<'_>> {
        quick_fixes::quick_fixes(self.snapshot(), range)
    }

    /// Whether fix-all has anything to do.
    pub fn can_fix_all(&self) -> bool {
        quick_fixes::can_fix_all(self.snapshot())
    }

    /// Every unambiguous fix applied, as one minimal edit of the current text.
    /// It analyses the whole text, perhaps several times.
    pub fn fix_all(&self) -> Option<TextEdit> {
        if !self.is_report() {
            return None;
        }
        fix_all_edit(&self.text.whole())
    }

    /// Where the path under the cursor is defined (its shortlist item, or
    /// the entry a promotion candidate names).
    pub fn definition(&self, offset: usize) -> Vec<TextRange> {
        navigation::definition_at(self.snapshot(), offset)
    }

    pub fn references(&self, offset: usize, declaration: bool) -> Vec<TextRange> {
        navigation::references_at(self.snapshot(), offset, declaration)
    }

    /// The range a rename of the path under the cursor changes, and the path.
    pub fn prepare_rename(&self, offset: usize) -> Option<(TextRange, String)> {
        navigation::prepare_rename_at(self.snapshot(), offset)
    }

    /// The edits that rename the path under the cursor everywhere.
    pub fn rename(&self, offset: usize, new_path: &str) -> Result<Vec<TextEdit>, String> {
        navigation::rename_at(self.snapshot(), offset, new_path)
    }

    /// The outline, made once a text.
    pub fn symbols(&self) -> Vec<Symbol> {
        self.outline
            .get_or_init(|| {
                self.analysed
                    .index()
                    .map(|i| symbols::symbols(&i))
                    .unwrap_or_default()
            })
            .clone()
    }

    /// Every entry as a workspace symbol (not kept: a workspace query is rare).
    pub fn entry_symbols(&self) -> Vec<EntrySymbol> {
        self.analysed
            .index()
            .map(|i| workspace_symbols::entry_symbols(&i))
            .unwrap_or_default()
    }

    /// Multi-line objects and arrays, at most `limit`, made once a text and limit.
    pub fn folding_ranges(&self, limit: usize) -> Vec<TextRange> {
        if !self.is_report() {
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
        folding::selection_ranges_at(self.snapshot(), offsets)
    }

    /// The string values overlapping `range` that name a project file, in
    /// document order: what `documentLink` shows and definition opens.
    pub fn file_refs(&self, range: TextRange) -> Vec<FileRef> {
        links::file_refs(self.snapshot(), range)
    }

    /// At most `limit` of the whole text's file references, and whether
    /// some were left out.
    pub fn file_refs_up_to(&self, limit: usize) -> (Vec<FileRef>, bool) {
        links::file_refs_up_to(self.snapshot(), limit)
    }

    /// The file the string value at `offset` names, if it names one.
    pub fn file_ref_at(&self, offset: usize) -> Option<FileRef> {
        links::file_ref_at(self.snapshot(), offset)
    }

    /// Inlay hints of the entries overlapping `range`.
    pub fn inlay_hints(&self, range: TextRange) -> Vec<InlayHint> {
        inlay::inlay_hints_at(self.snapshot(), range)
    }

    /// Inlay hints with the live tier where the workspace facts make it
    /// differ from the recorded one.
    pub fn inlay_hints_live(
        &self,
        range: TextRange,
        workspace: Option<&WorkspaceFacts>,
    ) -> Vec<InlayHint> {
        inlay::inlay_hints_live(self.snapshot(), range, workspace)
    }

    /// The token roll-up of the report's entries.
    pub fn rollup(&self) -> Option<Rollup> {
        Some(rollup::rollup(
            self.analysed.index()?.entries.iter().copied(),
        ))
    }

    /// The report as one side of a comparison (`report_diff::side` of its
    /// full analysis): its entries, its errors kept and left out, and its
    /// roll-up. None where the comparison would find no report.
    pub fn diff_side(&self) -> Option<report_diff::Side> {
        let index = self.analysed.index()?;
        if !self.reads_as_a_report() {
            return None;
        }
        let kept = self.analysed.count_where(|d| d.severity == Severity::Error);
        Some(report_diff::Side {
            entries: index.entries.len(),
            errors: kept + self.analysed.omitted().errors as usize,
            rollup: rollup::rollup(index.entries.iter().copied()),
        })
    }

    /// The reviewer's summary of the whole report (see `summary`), with the
    /// project's facts and the workspace checks' diagnostics when it is at
    /// hand, and the comparison with an earlier generation, named.
    pub fn summary(
        &self,
        options: summary::SummaryOptions,
        at_hand: Option<summary::AtHand<'_>>,
        since: Option<(&str, &report_diff::ReportDiff)>,
    ) -> Option<summary::Summary> {
        if !self.reads_as_a_report() {
            return None;
        }
        summary::summarize(self.snapshot(), options, at_hand, since)
    }

    /// Whether the text reads as a report by its content (`looks_like_report`),
    /// whatever its name: what the comparison and the summary need.
    fn reads_as_a_report(&self) -> bool {
        match (self.analysed.whole(), self.analysed.index()) {
            (Some(full), _) => full.root().is_some_and(looks_like_report),
            (None, Some(index)) => has_report_keys(|key| index.member(key).is_some()),
            (None, None) => false,
        }
    }

    /// Code lenses: the roll-up on the `entries` key.
    pub fn code_lenses(&self) -> Vec<(TextRange, String)> {
        rollup::code_lenses(self.snapshot())
    }

    /// Completions at `offset`, in half-typed text too.
    pub fn completions(&self, offset: usize) -> Vec<CompletionItem> {
        completion::completions_at(self.snapshot(), offset)
    }
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

/// Whether `analysis` is taken for a report's (and then kept per entry
/// where it can be). Once taken for one, a document stays one while a
/// syntax error may hide what it is: until it parses intact as something
/// else.
fn takes_for_a_report(options: HostOptions, analysis: &Analysis, was_report: bool) -> bool {
    options.name_matches
        || analysis.root().is_some_and(|root| {
            looks_like_report(root) || (was_report && (root.is_broken() || root.is_error()))
        })
        || (was_report && analysis.root().is_none())
}

/// `whole` analysed in full on `threads` as a host keeps it, and the same
/// text as `T`, made by `text` once the analysis's tree is freed (or at the
/// end, for an analysis kept whole).
fn analysed_with_text<T>(
    whole: Arc<String>,
    options: HostOptions,
    threads: Threads<'_>,
    was_report: bool,
    text: impl FnOnce(&Arc<String>) -> T,
) -> (Analysed, T) {
    let analysis = analyze_within(whole, options, threads);
    let is_report = takes_for_a_report(options, &analysis, was_report);
    let (mut make, mut made) = (Some(text), None);
    let analysed = analysed_of(analysis, is_report, |whole| {
        made = make.take().map(|make| make(whole));
    });
    let text = match (made, make, &analysed) {
        (Some(made), _, _) => made,
        (None, Some(make), Analysed::Whole(analysis) | Analysed::NotAReport(analysis)) => {
            make(&analysis.text)
        }
        _ => unreachable!("a per-entry analysis made the text when it freed its tree"),
    };
    (analysed, text)
}

/// A full analysis as a host keeps it: per entry where it has that form
/// (`tree_freed` is then handed the text once its tree is freed).
fn analysed_of(
    analysis: Analysis,
    is_report: bool,
    tree_freed: impl FnOnce(&Arc<String>),
) -> Analysed {
    if !is_report {
        return Analysed::NotAReport(analysis);
    }
    // With an incremental analysis the full one is made again only on demand.
    match Incremental::from_analysis_then(analysis, tree_freed) {
        Ok(incremental) => Analysed::PerEntry(incremental),
        Err(analysis) => Analysed::Whole(*analysis),
    }
}

/// Analyses the bytes of a file as `check` does, under `options`' limits:
/// bytes that are not UTF-8 get `invalid-utf8` at the first bad byte, over
/// a lossy copy of the text. `wanted` is asked now and then (see `cancel`).
pub fn analyze_file(bytes: Vec<u8>, options: HostOptions, wanted: Option<Wanted<'_>>) -> Analysis {
    if bytes.len() > options.max_document_bytes {
        let whole = Arc::new(String::from_utf8_lossy(&bytes).into_owned());
        return analysis::too_large(whole, options.max_document_bytes);
    }
    let keep = Keep::at_most(options.kept_diagnostics());
    let options = analysis::AnalysisOptions {
        wanted,
        ..analysis::AnalysisOptions::keeping(keep)
    };
    analysis::analyze_with(bytes, options)
}

fn analyze_within(text: Arc<String>, options: HostOptions, threads: Threads<'_>) -> Analysis {
    match text.len() > options.max_document_bytes {
        true => analysis::too_large(text, options.max_document_bytes),
        false => analysis::analyze_with(
            text,
            analysis::AnalysisOptions {
                threads,
                ..analysis::AnalysisOptions::keeping(Keep::at_most(options.kept_diagnostics()))
            },
        ),
    }
}
