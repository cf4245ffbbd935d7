//! Completion: closed-enum values, the derived tier, shortlist paths, the
//! keys an object lacks, a whole new entry.

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types as lsp;

use report_core::ide::completion::CompletionKind;

use crate::lsp::analysis::AnalysisPool;
use crate::lsp::convert;
use crate::lsp::session::Session;

pub async fn completion(
    session: &Session,
    analysis: &AnalysisPool,
    params: lsp::CompletionParams,
) -> Result<Option<lsp::CompletionResponse>> {
    let at = params.text_document_position;
    let client = session.capabilities();
    analysis
        .query(&at.text_document.uri, "completion", move |state| {
            let positions = state.positions(client.encoding);
            let items = state.host.completions(positions.offset(at.position));
            let items = items
                .into_iter()
                .map(|item| {
                    let snippet = item.snippet && client.snippets;
                    let new_text = match item.snippet && !client.snippets {
                        true => strip_snippet(&item.edit.new_text),
                        false => item.edit.new_text.clone(),
                    };
                    lsp::CompletionItem {
                        label: item.label,
                        kind: Some(item_kind(item.kind, client.lists_completion_kinds)),
                        detail: item.detail,
                        documentation: item.documentation.map(|markdown| {
                            match client.completion_markdown {
                                true => lsp::Documentation::MarkupContent(lsp::MarkupContent {
                                    kind: lsp::MarkupKind::Markdown,
                                    value: markdown,
                                }),
                                false => lsp::Documentation::String(convert::plain_text(&markdown)),
                            }
                        }),
                        preselect: (item.preselect && client.preselect).then_some(true),
                        // Clients filter by what the edit replaces: the quotes
                        // included, not the blank it reaches over to the cursor.
                        filter_text: Some(positions_text(new_text.trim_start())),
                        insert_text_format: Some(match snippet {
                            true => lsp::InsertTextFormat::SNIPPET,
                            false => lsp::InsertTextFormat::PLAIN_TEXT,
                        }),
                        text_edit: Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit::new(
                            positions.lsp_range(item.edit.range),
                            new_text,
                        ))),
                        ..Default::default()
                    }
                })
                .collect();
            Ok(Some(lsp::CompletionResponse::Array(items)))
        })
        .await
}

/// The protocol's kind of an item, among those the client reads: a closed
/// enum's value is an `EnumMember`, or a `Value` to a client of the first
/// kinds only.
fn item_kind(kind: CompletionKind, lists_kinds: bool) -> lsp::CompletionItemKind {
    use lsp::CompletionItemKind as Kind;
    match kind {
        CompletionKind::EnumMember if lists_kinds => Kind::ENUM_MEMBER,
        CompletionKind::EnumMember => Kind::VALUE,
        CompletionKind::Property => Kind::PROPERTY,
        CompletionKind::Path => Kind::FILE,
        CompletionKind::Snippet => Kind::SNIPPET,
    }
}

/// The text of an item as a client filters it against what was typed.
fn positions_text(new_text: &str) -> String {
    new_text.lines().next().unwrap_or_default().to_string()
}

/// A snippet's text for a client without snippets: placeholders become
/// their first choice or default, tab stops nothing.
fn strip_snippet(snippet: &str) -> String {
    let mut out = String::new();
    let mut rest = snippet;
    while let Some(start) = rest.find('$') {
        out.push_str(&rest[..start]);
        rest = &rest[start + 1..];
        if let Some(inner) = rest.strip_prefix('{') {
            let end = inner.find('}').unwrap_or(inner.len());
            let body = &inner[..end];
            let value = body.split_once(':').map(|(_, d)| d).or_else(|| {
                body.split_once('|')
                    .map(|(_, c)| c.split([',', '|']).next().unwrap_or(""))
            });
            out.push_str(value.unwrap_or(""));
            rest = inner.get(end + 1..).unwrap_or("");
        } else {
            rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn snippets_become_plain_text() {
        assert_eq!(
            super::strip_snippet("\"is_destructive\": ${1|false,true|}"),
            "\"is_destructive\": false"
        );
        assert_eq!(
            super::strip_snippet("\"raw_tokens\": ${1:0}, $2"),
            "\"raw_tokens\": 0, "
        );
        assert_eq!(super::strip_snippet("[$1]"), "[]");
    }
}
