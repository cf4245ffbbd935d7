//! One report text analysed in full: its tree, every diagnostic, and the
//! facts the incremental analysis and the hover need.

use std::sync::{Arc, OnceLock};

use crate::cancel::Wanted;
use crate::diagnostic::{self, Code, Collector, Diagnostic, Keep, Omitted};
use crate::parallel::Threads;
use crate::syntax::{self, Node, Parse, SyntaxErrorKind};
use crate::text::{LineIndex, TextRange};
use crate::validate::{self, EntryFacts};

/// The stack a thread running [`analyze`] should have. Parsing is
/// iterative; what still recurses (comparing lifecycle objects) is bounded by
/// the 512-level nesting limit. A stack overflow cannot be caught, so the
/// threads that run analyses (the server's, the CLI's pool) get a wide margin
/// rather than the 2 MiB of a default thread.
pub const ANALYSIS_STACK_BYTES: usize = 16 << 20;

/// The result of analysing one report text.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The text analysed, shared with the tree.
    pub text: Arc<String>,
    pub parse: Parse,
    /// Built on first use: only the CLI prints positions from it.
    line_index: OnceLock<LineIndex>,
    /// Sorted by position: those the [`Keep`] kept.
    pub diagnostics: Vec<Diagnostic>,
    /// Those it only counted.
    pub omitted: Omitted,
    pub entries: Vec<EntryFacts>,
    /// What the cross-entry checks need, for [`crate::incremental::Incremental`].
    pub(crate) cross: Option<validate::CrossEntry>,
}

impl Analysis {
    /// The line index of [`Analysis::text`].
    pub fn line_index(&self) -> &LineIndex {
        self.line_index.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Builds the line index now, on `threads`' runner if it lends one
    /// (`check`, before it prints).
    pub fn index_lines(&self, threads: Threads<'_>) -> &LineIndex {
        self.line_index.get_or_init(|| match threads.lent() {
            Some((runner, threads)) => LineIndex::new_on(&self.text, runner, threads),
            None => LineIndex::new(&self.text),
        })
    }

    pub fn root(&self) -> Option<Node<'_>> {
        self.parse.root()
    }

    /// The facts of the entry object at `range`.
    pub fn entry_facts(&self, range: TextRange) -> Option<&EntryFacts> {
        self.entries.iter().find(|e| e.range == range)
    }

    /// Whether the report satisfies every invariant (no error-severity diagnostic).
    pub fn is_valid(&self) -> bool {
        let error = diagnostic::Severity::Error;
        !self.diagnostics.iter().any(|d| d.severity == error) && self.omitted.count(error) == 0
    }

    /// How many problems it found: kept and left out.
    pub fn problems(&self) -> usize {
        self.diagnostics.len() + self.omitted.len()
    }
}

/// Parses and checks one report, keeping [`Keep::DEFAULT`]'s diagnostics.
pub fn analyze(text: &str) -> Analysis {
    analyze_with(Arc::new(text.to_string()), AnalysisOptions::default())
}

/// What [`analyze_with`] reads.
pub enum Input {
    /// A text the caller already holds in an `Arc`: kept, not copied.
    Text(Arc<String>),
    /// Raw bytes (a file), taken over as the text when they are UTF-8 (no
    /// copy). Bytes that are not UTF-8 get one `invalid-utf8` diagnostic at
    /// the first bad byte, over a lossy copy of the text (the offsets before
    /// that byte are the same in both).
    Bytes(Vec<u8>),
}

impl From<Arc<String>> for Input {
    fn from(text: Arc<String>) -> Input {
        Input::Text(text)
    }
}

impl From<Vec<u8>> for Input {
    fn from(bytes: Vec<u8>) -> Input {
        Input::Bytes(bytes)
    }
}

/// How [`analyze_with`] analyses: which diagnostics it keeps (and counts
/// the others), and on which threads it parses and checks.
#[derive(Clone, Copy, Debug)]
pub struct AnalysisOptions<'a> {
    pub keep: Keep,
    pub threads: Threads<'a>,
    /// Asked now and then by the parser and the checks: when it says no,
    /// the analysis unwinds with `cancel::Cancelled` (see `cancel`).
    pub wanted: Option<Wanted<'a>>,
}

impl Default for AnalysisOptions<'_> {
    fn default() -> Self {
        AnalysisOptions {
            keep: Keep::DEFAULT,
            threads: Threads::OneThread,
            wanted: None,
        }
    }
}

impl AnalysisOptions<'_> {
    /// The default options, keeping what `keep` says.
    pub fn keeping(keep: Keep) -> Self {
        AnalysisOptions {
            keep,
            ..AnalysisOptions::default()
        }
    }
}

/// Parses and checks one report: the one entry point of every analysis
/// but [`analyze`]'s shorthand, for a text or a file's bytes.
pub fn analyze_with(input: impl Into<Input>, options: AnalysisOptions<'_>) -> Analysis {
    match input.into() {
        Input::Text(text) => analyze_text(text, options),
        Input::Bytes(bytes) => analyze_bytes(bytes, options),
    }
}

fn analyze_text(text: Arc<String>, options: AnalysisOptions<'_>) -> Analysis {
    let AnalysisOptions {
        keep,
        threads,
        wanted,
    } = options;
    let parse = syntax::parse_unless_cancelled(text.clone(), 0, wanted, threads.lent());
    let mut entries = Vec::new();
    let mut cross = None;
    let mut out = Collector::new(keep);
    let mut omitted = Omitted::default();
    if let Some(root) = parse.root() {
        let validation = validate::validate_with(&text, root, keep, threads, wanted);
        omitted = validation.omitted;
        out.kept = validation.diagnostics;
        entries = validation.entries;
        cross = validation.cross;
    }
    for error in &parse.errors {
        out.push(syntax_diagnostic(error));
    }
    let (mut diagnostics, more) = out.finish();
    omitted.extend(more);
    diagnostics.sort_by(Diagnostic::order);
    Analysis {
        line_index: OnceLock::new(),
        text,
        parse,
        diagnostics,
        omitted,
        entries,
        cross,
    }
}

fn analyze_bytes(bytes: Vec<u8>, options: AnalysisOptions<'_>) -> Analysis {
    let error = match String::from_utf8(bytes) {
        Ok(text) => return analyze_text(Arc::new(text), options),
        Err(error) => error,
    };
    let offset = error.utf8_error().valid_up_to();
    let bytes = error.into_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let bad_len = text[offset..].chars().next().map_or(0, char::len_utf8);
    let message = format!(
        "the file is not valid UTF-8: byte 0x{:02X} at offset {offset} starts no UTF-8 character; reports are UTF-8 JSON",
        bytes[offset]
    );
    Analysis {
        line_index: OnceLock::new(),
        text: Arc::new(text),
        parse: Parse::default(),
        diagnostics: vec![Diagnostic::new(
            Code::InvalidUtf8,
            TextRange::new(offset, offset + bad_len),
            message,
        )],
        omitted: Omitted::default(),
        entries: Vec::new(),
        cross: None,
    }
}

impl Analysis {
    /// The analysis of no text: nothing parsed, nothing found.
    pub fn empty() -> Analysis {
        Analysis {
            line_index: OnceLock::new(),
            text: Arc::new(String::new()),
            parse: Parse::default(),
            diagnostics: Vec::new(),
            omitted: Omitted::default(),
            entries: Vec::new(),
            cross: None,
        }
    }
}

/// The analysis of a document over the size limit: one diagnostic, no checks.
pub fn too_large(text: Arc<String>, limit: usize) -> Analysis {
    let message = too_large_message(text.len(), limit);
    Analysis {
        line_index: OnceLock::new(),
        diagnostics: vec![Diagnostic::new(
            Code::DocumentTooLarge,
            TextRange::empty(0),
            message,
        )],
        text: Arc::new(String::new()),
        parse: Parse::default(),
        omitted: Omitted::default(),
        entries: Vec::new(),
        cross: None,
    }
}

/// What `document-too-large` says of a document of `bytes` over `limit`.
pub fn too_large_message(bytes: usize, limit: usize) -> String {
    format!(
        "the document is {bytes} bytes, over the limit of {limit} bytes (the maxDocumentBytes setting), so it is not validated; `report-lsp check` has no limit"
    )
}

pub(crate) fn syntax_diagnostic(error: &syntax::SyntaxError) -> Diagnostic {
    match &error.kind {
        SyntaxErrorKind::Empty => Diagnostic::new(
            Code::EmptyDocument,
            error.range,
            "the document is empty; a report is one JSON object with schema_version, tool_version, generated_at, scan, shortlist, entries and promotion_candidates",
        ),
        SyntaxErrorKind::Invalid(message) => Diagnostic::new(Code::SyntaxError, error.range, format!("invalid JSON: {message}")),
        SyntaxErrorKind::NestingTooDeep => Diagnostic::new(
            Code::NestingTooDeep,
            error.range,
            format!("arrays and objects nest deeper than {} levels; a report is a few levels deep", syntax::MAX_NESTING_DEPTH),
        ),
        SyntaxErrorKind::TooLarge => Diagnostic::new(
            Code::SyntaxError,
            error.range,
            "the document is larger than 4 GiB, more than positions can address",
        ),
        SyntaxErrorKind::DuplicateKey { key, first } => Diagnostic::new(
            Code::DuplicateKey,
            error.range,
            format!("duplicate key \"{key}\" in one object; consumers would silently keep only one of them"),
        )
        .with_related(*first, format!("first \"{key}\" here")),
    }
}
