//! The documents the reports name (a target document: Markdown, text, any
//! file an entry's `path` names), served from the reports' side: a code
//! lens on each span an entry anchors, naming its kind, tier, tokens and
//! whether the text changed since the report (stale), leading to the
//! entry; the hover with its signals and tier; go to definition to the
//! entry. A target document is never analysed: its path is looked up in
//! each known report's index (the open ones' for their current text, the
//! ones found on disk as read), and a document no entry names gets nothing.

use std::path::{Path, PathBuf};

use report_core::ide::targets::TargetSpan;
use ropey::Rope;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{self as lsp, Uri};

use crate::lsp::project_thread::ProjectThread;
use crate::lsp::services::Services;
use crate::lsp::session::{OpenDocument, Session, TextAsFile, lock};
use crate::project::overlay::TargetTexts;

/// The command of a target document's lens: its argument is the entry's
/// [`lsp::Location`], which the client is asked to show.
pub const SHOW_ENTRY: &str = "report-lsp.showEntry";

/// One entry naming the document, with where it is in its report.
pub struct NamingEntry {
    pub report: Uri,
    /// The report's file name, as the lens shows it.
    pub report_name: String,
    /// The range of the entry's `path` value in the report.
    pub range: lsp::Range,
    pub span: TargetSpan,
}

/// The target document at `uri` changed on disk or closed: the reports
/// that name it are checked again whole, against its file.
pub fn changed(projects: &ProjectThread, uri: &Uri) {
    projects.target_changed(uri);
}

/// The open target document at `uri` changed in the editor (opened,
/// typed in): the reports naming it get its text and check again only the
/// entries that read its file.
pub fn edited(projects: &ProjectThread, uri: &Uri) {
    projects.target_edited(uri);
}

/// Whether `uri` is open as a target document.
pub fn is_target(session: &Session, uri: &Uri) -> bool {
    lock(&session.documents)
        .get(uri)
        .is_some_and(|open| open.target)
}

/// The open target document's text (None when it is not one, or not in sync).
fn text_of(session: &Session, uri: &Uri) -> Option<TextAsFile> {
    lock(&session.documents)
        .get_mut(uri)
        .filter(|open| open.target)
        .and_then(OpenDocument::text_as_file)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// The entries of every known report that name the document at `uri`.
pub async fn entries_naming(session: &Session, services: &Services, uri: &Uri) -> Vec<NamingEntry> {
    let Some(path) = uri.to_file_path() else {
        return Vec::new();
    };
    let path: PathBuf = path.components().collect();
    let encoding = session.capabilities().encoding;
    let mut named = Vec::new();
    // The reports found on disk whose index names the file.
    for found in services.search.store.naming_file(&path) {
        if !found.is_read() {
            let max_document_bytes = session.settings_at(&found.path).max_document_bytes;
            let reading = found.clone();
            let read = move || reading.read(encoding, max_document_bytes);
            let _ = tokio::task::spawn_blocking(read).await;
        }
        named.extend(found.spans().iter().map(|(span, range)| NamingEntry {
            report: found.report.clone(),
            report_name: file_name(&found.path),
            range: *range,
            span: span.clone(),
        }));
    }
    let reports: Vec<Uri> = lock(&session.documents)
        .iter()
        .filter(|(_, open)| !open.target)
        .map(|(uri, _)| uri.clone())
        .collect();
    let folders = lock(&services.projects.folders).clone();
    // Every open report asked at once: each answers on its own thread.
    let asked = reports.into_iter().map(|report| {
        let path = path.clone();
        let report_path = report.to_file_path().map(|p| p.into_owned());
        let folders = folders.clone();
        async move {
            let spans = services
                .analysis
                .query(&report, "targetDocument", move |state| {
                    let spans = state.spans_naming(&path, report_path.as_deref(), &folders);
                    if spans.is_empty() {
                        return Ok(None);
                    }
                    let positions = state.positions(encoding);
                    let spans: Vec<(lsp::Range, TargetSpan)> = spans
                        .into_iter()
                        .map(|span| (positions.lsp_range(span.path_range), span))
                        .collect();
                    Ok(Some(spans))
                })
                .await;
            (report, spans)
        }
    });
    for (report, spans) in futures::future::join_all(asked).await {
        let Ok(Some(spans)) = spans else {
            continue;
        };
        let report_name = report
            .to_file_path()
            .map(|p| file_name(&p))
            .unwrap_or_else(|| report.as_str().to_string());
        named.extend(spans.into_iter().map(|(range, span)| NamingEntry {
            report: report.clone(),
            report_name: report_name.clone(),
            range,
            span,
        }));
    }
    named
}

/// The open target document's texts: the editor's, and its file's on
/// disk too when `why` (to say what changed); None when it is not one, or
/// not in sync.
fn texts_of(session: &Session, uri: &Uri, why: bool) -> Option<TargetTexts> {
    let editor = text_of(session, uri)?.get();
    let disk = why.then(|| uri.to_file_path()).flatten();
    Some(TargetTexts::read(editor, disk.as_deref()))
}

fn tier_name(span: &TargetSpan) -> &'static str {
    span.tier.map_or("tier unknown", |t| t.as_str())
}

/// The lens's words: `delete-range · confirm · 812 tok · stale — hygiene.report.json entries[412]`.
fn title(named: &NamingEntry, stale_now: bool) -> String {
    let span = &named.span;
    let mut title = span.op.clone().unwrap_or_else(|| "entry".into());
    title.push_str(&format!(" · {}", tier_name(span)));
    if let Some(tokens) = span.raw_tokens {
        title.push_str(&format!(" · {tokens} tok"));
    }
    if stale_now {
        title.push_str(" · stale");
    }
    format!("{title} — {} entries[{}]", named.report_name, span.entry)
}

/// Where the span starts in the document: its first anchored line, else the top.
fn start_line(span: &TargetSpan) -> u32 {
    let first = span.lines.map_or(1, |(start, _)| start);
    u32::try_from(first.saturating_sub(1)).unwrap_or(u32::MAX)
}

/// The span's lines as a range (to the start of the line after), None for the whole file.
fn lines_range(span: &TargetSpan) -> Option<lsp::Range> {
    let (start, end) = span.lines?;
    let line = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
    Some(lsp::Range::new(
        lsp::Position::new(line(start.saturating_sub(1)), 0),
        lsp::Position::new(line(end), 0),
    ))
}

pub async fn code_lens(
    session: &Session,
    services: &Services,
    uri: &Uri,
) -> Result<Option<Vec<lsp::CodeLens>>> {
    let named = entries_naming(session, services, uri).await;
    if named.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let texts = texts_of(session, uri, false);
    let stale = |span: &TargetSpan| texts.as_ref().is_some_and(|t| t.stale_for(span));
    let shows = session.capabilities().shows_documents;
    let lenses = named
        .iter()
        .map(|named| {
            let line = start_line(&named.span);
            let location = lsp::Location::new(named.report.clone(), named.range);
            lsp::CodeLens {
                range: lsp::Range::new(lsp::Position::new(line, 0), lsp::Position::new(line, 0)),
                command: Some(lsp::Command {
                    title: title(named, stale(&named.span)),
                    // Without `window/showDocument`, a title only (go to
                    // definition leads there), with a command a click runs harmlessly.
                    command: match shows {
                        true => SHOW_ENTRY.into(),
                        false => super::inlay::DISPLAY_ONLY.into(),
                    },
                    arguments: shows
                        .then(|| serde_json::to_value(location).ok())
                        .flatten()
                        .map(|a| vec![a]),
                }),
                data: None,
            }
        })
        .collect();
    Ok(Some(lenses))
}

/// The entries whose span holds `position`'s line.
async fn at_line(
    session: &Session,
    services: &Services,
    uri: &Uri,
    position: lsp::Position,
) -> Vec<NamingEntry> {
    let line = u64::from(position.line) + 1;
    let mut named = entries_naming(session, services, uri).await;
    named.retain(|n| n.span.holds_line(line));
    named
}

pub async fn hover(
    session: &Session,
    services: &Services,
    uri: &Uri,
    position: lsp::Position,
) -> Result<Option<lsp::Hover>> {
    let named = at_line(session, services, uri, position).await;
    if named.is_empty() {
        return Ok(None);
    }
    let texts = texts_of(session, uri, true);
    let sections: Vec<String> = named
        .iter()
        .map(|n| hover_section(n, texts.as_ref().and_then(|t| t.stale(&n.span))))
        .collect();
    let markdown = sections.join("\n\n---\n\n");
    let client = session.capabilities();
    let range = named.iter().find_map(|n| lines_range(&n.span));
    Ok(Some(lsp::Hover {
        contents: crate::lsp::convert::hover_contents(markdown, client.hover_markdown),
        range,
    }))
}

fn hover_section(named: &NamingEntry, stale_now: Option<String>) -> String {
    let span = &named.span;
    let op = span.op.as_deref().unwrap_or("entry");
    let mut lines = vec![format!(
        "**{op}** · {} — `{}` entries[{}]",
        tier_name(span),
        named.report_name,
        span.entry
    )];
    let mut facts = Vec::new();
    facts.push(match span.lines {
        Some((start, end)) => format!("lines {start}–{end}"),
        None => "the whole file".into(),
    });
    if let Some(tokens) = span.raw_tokens {
        facts.push(format!("{tokens} tok"));
    }
    lines.push(facts.join(" · "));
    if let Some(why) = stale_now {
        lines.push(format!(
            "**stale**: {why} (its sha256 is not `expected_sha256`: the edit is refused until the report is made again)"
        ));
    }
    if let Some(reason) = &span.reason {
        lines.push(format!("tier {} — {reason}", tier_name(span)));
    }
    if let Some(trace) = &span.trace {
        lines.push(trace.clone());
    }
    if !span.signals.is_empty() {
        lines.push(format!("signals: {}", span.signals.join("; ")));
    }
    if let Some(canonical) = &span.canonical_ref {
        lines.push(format!("canonical copy: `{canonical}`"));
    }
    lines.join("\n\n")
}

pub async fn definition(
    session: &Session,
    services: &Services,
    uri: &Uri,
    position: lsp::Position,
) -> Result<Option<lsp::GotoDefinitionResponse>> {
    let named = at_line(session, services, uri, position).await;
    if named.is_empty() {
        return Ok(None);
    }
    let locations = named
        .into_iter()
        .map(|n| lsp::Location::new(n.report, n.range))
        .collect();
    Ok(Some(lsp::GotoDefinitionResponse::Array(locations)))
}

/// `workspace/executeCommand` of [`SHOW_ENTRY`]: asks the client to show the entry.
pub async fn show_entry(
    client: &tower_lsp_server::Client,
    params: lsp::ExecuteCommandParams,
) -> Result<Option<serde_json::Value>> {
    let location = params
        .arguments
        .first()
        .and_then(|a| serde_json::from_value::<lsp::Location>(a.clone()).ok())
        .ok_or_else(|| Error::invalid_params("the command's argument is not a location"))?;
    let shown = client
        .show_document(lsp::ShowDocumentParams {
            uri: location.uri,
            external: None,
            take_focus: Some(true),
            selection: Some(location.range),
        })
        .await?;
    match shown {
        true => Ok(None),
        false => Err(Error::invalid_params("the editor did not show the entry")),
    }
}

/// A hint over each span a clean removes, naming its entry: tagged
/// `Unnecessary` where the client fades such spans.
fn hints(
    named: &[NamingEntry],
    rope: &Rope,
    texts: Option<&TargetTexts>,
    client: crate::lsp::session::ResolvedClientCapabilities,
) -> Vec<lsp::Diagnostic> {
    let positions = crate::lsp::convert::Positions::new(rope, client.encoding);
    let line_start = |line: u64| {
        let line = usize::try_from(line)
            .unwrap_or(usize::MAX)
            .min(rope.len_lines());
        positions.position(rope.line_to_byte(line))
    };
    named
        .iter()
        .filter(|n| n.span.removes())
        .map(|n| {
            let span = &n.span;
            let range = match span.lines {
                Some((start, end)) => lsp::Range::new(line_start(start - 1), line_start(end)),
                None => lsp::Range::new(line_start(0), positions.position(rope.len_bytes())),
            };
            let mut message = format!(
                "the clean removes this: {} · {} — {} entries[{}]",
                span.op.as_deref().unwrap_or("entry"),
                tier_name(span),
                n.report_name,
                span.entry
            );
            if let Some(why) = texts.and_then(|t| t.stale(span)) {
                message.push_str(&format!(" (stale: {why})"));
            }
            lsp::Diagnostic {
                range,
                severity: Some(lsp::DiagnosticSeverity::HINT),
                source: Some("report-lsp".into()),
                message,
                tags: client
                    .unnecessary_tags
                    .then(|| vec![lsp::DiagnosticTag::UNNECESSARY]),
                ..Default::default()
            }
        })
        .collect()
}

/// The hints of the target document at `uri` for its current text, empty
/// when the setting `targetHints` is off.
async fn hints_now(
    session: &Session,
    services: &Services,
    uri: &Uri,
) -> Option<(u64, Option<i32>, Vec<lsp::Diagnostic>)> {
    let (generation, version, rope) = {
        let mut documents = lock(&session.documents);
        let open = documents
            .get_mut(uri)
            .filter(|o| o.target && !o.document.out_of_sync)?;
        (
            open.generation,
            open.document.version,
            open.document.rope().clone(),
        )
    };
    if !session.settings_for(uri).target_hints {
        return Some((generation, Some(version), Vec::new()));
    }
    let named = entries_naming(session, services, uri).await;
    // A file no entry names (or only entries that remove nothing): no hints, nothing read.
    if !named.iter().any(|n| n.span.removes()) {
        return Some((generation, Some(version), Vec::new()));
    }
    let texts = texts_of(session, uri, true);
    let hints = hints(&named, &rope, texts.as_ref(), session.capabilities());
    Some((generation, Some(version), hints))
}

/// Pushes the hints of the target document at `uri`, unless its text
/// changed meanwhile (the later change pushes its own).
pub async fn publish_hints(session: &Session, services: &Services, uri: &Uri) {
    if session.pulls_diagnostics() {
        return;
    }
    let Some((generation, version, hints)) = hints_now(session, services, uri).await else {
        return;
    };
    let mut documents = lock(&session.documents);
    let Some(open) = documents
        .get_mut(uri)
        .filter(|o| o.generation == generation)
    else {
        return;
    };
    if hints.is_empty() && !open.published {
        return;
    }
    open.published = !hints.is_empty();
    session.publisher.publish(uri.clone(), version, hints);
}

/// `textDocument/diagnostic` of a target document: its hints.
pub async fn pulled_hints(
    session: &Session,
    services: &Services,
    uri: &Uri,
) -> Result<lsp::DocumentDiagnosticReportResult> {
    let items = hints_now(session, services, uri)
        .await
        .map(|(_, _, hints)| hints)
        .unwrap_or_default();
    Ok(lsp::DocumentDiagnosticReportResult::Report(
        lsp::DocumentDiagnosticReport::Full(lsp::RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport {
                result_id: None,
                items,
            },
        }),
    ))
}
