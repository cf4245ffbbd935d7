//! The summary as an editor asks for it (`report-lsp/summary`): `{format,
//! content, entries}`, the content in one of the four formats and each
//! entry it names with its range, so that a client can link to them. The
//! server and the WebAssembly module answer with this one function; the
//! caller writes ranges and lines as its positions count them.

use serde_json::{Map, Value, json};

use super::{Summary, html, json as summary_json, render};
use crate::text::TextRange;

/// What a client asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Text,
    Html,
    Json,
}

/// The formats' names, as a client spells them.
pub const FORMAT_NAMES: &str = "markdown, text, html, json";

impl Format {
    /// The format a client names; None for another word.
    pub fn named(name: &str) -> Option<Format> {
        match name {
            "markdown" => Some(Format::Markdown),
            "text" => Some(Format::Text),
            "html" => Some(Format::Html),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Text => "text",
            Format::Html => "html",
            Format::Json => "json",
        }
    }
}

/// `summary` in `format`, `name` naming the report: `range` writes a range
/// as the caller's positions do, `line` gives an offset's 0-based line.
pub fn answer(
    summary: &Summary,
    format: Format,
    name: &str,
    range: &dyn Fn(TextRange) -> Value,
    line: &dyn Fn(usize) -> u32,
) -> Value {
    let words = |at: TextRange| format!("line {}", line(at.start) + 1);
    let place = |at: TextRange| {
        let mut map = Map::new();
        map.insert("range".into(), range(at));
        map
    };
    let content = match format {
        Format::Markdown => Value::String(render::markdown(summary, name, &words)),
        Format::Text => Value::String(render::text(summary, name, &words)),
        Format::Html => Value::String(html::html(summary, name, &words)),
        Format::Json => summary_json::to_json(summary, &place),
    };
    let entries: Vec<Value> = (summary.named_entries().into_iter())
        .map(|entry| json!({"index": entry.index, "range": range(entry.range)}))
        .collect();
    json!({"format": format.name(), "content": content, "entries": entries})
}
