//! The summary as one self-contained HTML page with pictures, for a
//! reviewer and a CI artifact: no script, no network, no font download,
//! only inline CSS and hand-drawn inline SVG. It says what `render.rs`
//! says, in the same sections, and adds charts: the queue (`auto` against
//! `confirm`, by count and by tokens) as stacked bars, the reasons for
//! `confirm`, the savings by category and by folder as sorted bars, the
//! change since an earlier generation as bars either side of zero, and
//! small bars in the share column of the other tables.
//!
//! What a reader and a test can rely on:
//! - Every chart is a `<figure>` whose `<svg role="img">` is labelled by
//!   its `<figcaption>`, and has a `<table>` beside it with the same numbers
//!   as text (for screen readers and for copying).
//! - Each section has a stable `id` (`totals`, `queue`, `reasons`,
//!   `by-class`, `by-op-type`, `by-kind`, `by-lifetime`, `tiers`,
//!   `largest`, `by-folder`, `by-file`, `problems`, `live`, `since`); each
//!   table a `data-table` of the same name, each row a `data-key`, each
//!   number cell a `data-col` and its exact integer in `data-value`. A
//!   number's text is `rollup::grouped`'s (groups of three digits split by
//!   a space, as the text and Markdown show them), signed as `render.rs`
//!   signs a change (`+`, `−`, `±`).
//! - An entry is named as `<a href="#" data-entry="I">entries[I]</a>`,
//!   its place (the caller's `place`, "line N") beside it, so an editor's
//!   webview can take the click.
//! - Colours keep their meaning in the light and the dark scheme
//!   (`prefers-color-scheme`): `auto` green, `confirm` orange, removal red,
//!   the groups left out grey.
//! - Everything the report wrote (paths, keys, the name) is escaped. The
//!   page is deterministic and its size is bounded by the summary's top N,
//!   not by the report's entries.

use std::fmt::Write;

use super::render::{Place, signed};
use super::{Basis, EntryRef, Group, Summary, Top};
use crate::rollup::grouped;
use crate::schema::SafetyTier;

/// The summary as a page of its own: no network, no external script or font.
pub fn html(summary: &Summary, name: &str, place: Place<'_>) -> String {
    let mut page = Page {
        out: String::with_capacity(64 * 1024),
        place,
        total: summary.total.raw_tokens,
        any_weighted: summary.weighted > 0,
    };
    page.write(summary, name);
    page.out
}

/// `text` escaped for HTML text and attribute values (and SVG's).
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;--bar:#0969da;--sub:#54aeff;--rest:#8c959f;--auto:#1a7f37;--confirm:#bc4c00;--none:#8c959f;--added:#1a7f37;--gone:#cf222e;--changed:#8250df;--on:#fff;--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;--bar:#4493f8;--sub:#1f6feb;--rest:#6e7681;--auto:#3fb950;--confirm:#f0883e;--none:#6e7681;--added:#3fb950;--gone:#f85149;--changed:#ab7df8;--on:#0d1117;--link:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:0 0 10px}
h1 code{font-size:20px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.92em;overflow-wrap:anywhere}
a{color:var(--link)}
p{margin:6px 0 10px}
.muted,.at{color:var(--muted)}
.at{font-size:.9em;margin-left:4px;white-space:nowrap}
nav{margin:6px 0 18px;font-size:13px}
nav a{margin-right:12px;white-space:nowrap}
section{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:16px 18px;margin:0 0 16px}
.stats{display:flex;flex-wrap:wrap;gap:10px;margin:0}
.stats div{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:120px}
.stats dt{color:var(--muted);font-size:12px}
.stats dd{margin:0;font-size:20px;font-weight:600;font-variant-numeric:tabular-nums;white-space:nowrap}
.stats dd.auto{color:var(--auto)}
.stats dd.confirm{color:var(--confirm)}
.stats dd.gone{color:var(--gone)}
.pair{display:grid;grid-template-columns:minmax(0,1.25fr) minmax(0,1fr);gap:18px;align-items:start}
.trio{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:18px;align-items:start}
@media (max-width:900px){.pair,.trio{grid-template-columns:minmax(0,1fr)}}
figure{margin:0}
figcaption{font-size:13px;color:var(--muted);margin:0 0 6px}
svg.chart{width:100%;height:auto;display:block}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;fill:var(--fg)}
svg .label{fill:var(--fg)}
svg .value{fill:var(--muted)}
svg .inside{fill:var(--on);font-weight:600}
svg .axis{stroke:var(--line);stroke-width:1}
.bar{fill:var(--bar)}.sub{fill:var(--sub)}.rest{fill:var(--rest)}
.auto{fill:var(--auto)}.confirm{fill:var(--confirm)}.none{fill:var(--none)}
.added{fill:var(--added)}.gone{fill:var(--gone)}.changed{fill:var(--changed)}
.table{overflow-x:auto}
section>.table,figure+.table{margin-top:12px}
.pair>.table{margin-top:0}
table{border-collapse:collapse;width:100%;font-size:13px}
caption{text-align:left;color:var(--muted);font-size:12px;padding-bottom:4px}
th,td{padding:4px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{font-weight:600;color:var(--muted);font-size:12px}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.sub td:first-child{padding-left:22px}
tr.rest td{color:var(--muted);font-style:italic}
td.m{width:20%;min-width:70px;vertical-align:middle}
td.m span{display:block;height:8px;border-radius:2px;background:var(--bar)}
tr.sub td.m span{background:var(--sub)}
tr.rest td.m span{background:var(--rest)}
.chip{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600;color:var(--on)}
.chip.auto{background:var(--auto)}.chip.confirm{background:var(--confirm)}.chip.none{background:var(--none)}
.key{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.key.auto{background:var(--auto)}.key.confirm{background:var(--confirm)}.key.none{background:var(--none)}
.key.bar{background:var(--bar)}.key.sub{background:var(--sub)}.key.rest{background:var(--rest)}
.key.added{background:var(--added)}.key.gone{background:var(--gone)}.key.changed{background:var(--changed)}
.legend{font-size:12px;color:var(--muted);margin:4px 0 0}
.legend span{margin-right:14px;white-space:nowrap}
footer{color:var(--muted);font-size:12px;margin-top:24px}
"#;

/// The width of every chart's view box, its label column and its bars.
const WIDTH: u32 = 640;
const LABEL: u32 = 180;
const BARS: u32 = 360;
/// The longest label a chart shows whole (its table shows every label whole).
const LABEL_CHARS: usize = 26;

/// One bar of a chart.
struct Bar {
    label: String,
    value: u64,
    /// Its CSS class (its colour): `bar`, `sub`, `rest`, ….
    class: &'static str,
}

/// One row of a table: its key, its class, its cells.
struct Row {
    key: String,
    class: &'static str,
    cells: Vec<Cell>,
}

enum Cell {
    /// Text already escaped (may hold markup).
    Html(String),
    /// A count, shown grouped, its value in `data-value`.
    Number(&'static str, i128),
    /// A signed change: `+1 234`, `−56`, `±0`.
    Signed(&'static str, i128),
    /// A share of the whole, as a percentage and a small bar.
    Share(u64, u64),
    /// A small bar alone, of this fraction.
    Meter(f64),
}

/// A block of a chart either side of zero: its title, and its rows'
/// labels, signed values and classes.
type Block<'a> = (&'a str, Vec<(&'a str, i128, &'static str)>);

struct Page<'a> {
    out: String,
    place: Place<'a>,
    total: u64,
    any_weighted: bool,
}

fn percent(part: u64, whole: u64) -> String {
    match whole {
        0 => "–".into(),
        _ => format!("{:.1} %", part as f64 * 100.0 / whole as f64),
    }
}

fn fraction(part: u64, whole: u64) -> f64 {
    match whole {
        0 => 0.0,
        _ => (part as f64 / whole as f64).clamp(0.0, 1.0),
    }
}

fn tier_name(tier: Option<SafetyTier>) -> &'static str {
    tier.map_or("none", |t| t.as_str())
}

fn chip(tier: Option<SafetyTier>) -> String {
    let name = tier_name(tier);
    format!("<span class=\"chip {name}\">{name}</span>")
}

/// A label cut to what a chart's label column holds.
fn short(label: &str) -> String {
    match label.chars().count() > LABEL_CHARS {
        true => label.chars().take(LABEL_CHARS - 1).collect::<String>() + "…",
        false => label.to_string(),
    }
}

/// Weighted tokens as a whole number.
fn weighted_value(group: &Group) -> i128 {
    group.weighted_tokens.round().max(0.0) as i128
}

impl Page<'_> {
    fn push(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// `entries[i]` as a link an editor can take, and its place beside it.
    fn entry(&self, entry: &EntryRef) -> String {
        let at = (self.place)(entry.range);
        let mut out = format!(
            "<a href=\"#\" class=\"entry\" data-entry=\"{i}\">entries[{i}]</a>",
            i = entry.index
        );
        if !at.is_empty() {
            let _ = write!(out, "<span class=\"at\">{}</span>", escape(&at));
        }
        out
    }

    fn first(&self, group: &Group) -> Cell {
        Cell::Html(
            group
                .first
                .as_ref()
                .map_or_else(|| "–".into(), |e| self.entry(e)),
        )
    }

    fn section(&mut self, id: &str, title: &str) {
        let _ = write!(
            self.out,
            "<section id=\"{id}\" aria-labelledby=\"{id}-h\"><h2 id=\"{id}-h\">{}</h2>",
            escape(title)
        );
    }

    fn end_section(&mut self) {
        self.push("</section>\n");
    }

    fn para(&mut self, html: &str) {
        let _ = write!(self.out, "<p>{html}</p>");
    }

    /// A table: `id` names it (`data-table`), `header` its columns (a
    /// column whose name starts with `#` holds numbers).
    fn table(&mut self, id: &str, caption: &str, header: &[&str], rows: &[Row]) {
        let _ = write!(
            self.out,
            "<div class=\"table\"><table data-table=\"{id}\"><caption>{}</caption><thead><tr>",
            escape(caption)
        );
        for column in header {
            match column.strip_prefix('#') {
                Some(name) => {
                    let _ = write!(self.out, "<th class=\"n\" scope=\"col\">{name}</th>");
                }
                None => {
                    let _ = write!(self.out, "<th scope=\"col\">{column}</th>");
                }
            }
        }
        self.push("</tr></thead><tbody>");
        for row in rows {
            let _ = write!(self.out, "<tr data-key=\"{}\"", escape(&row.key));
            if !row.class.is_empty() {
                let _ = write!(self.out, " class=\"{}\"", row.class);
            }
            self.push(">");
            for cell in &row.cells {
                match cell {
                    Cell::Html(html) => {
                        let _ = write!(self.out, "<td>{html}</td>");
                    }
                    Cell::Number(column, n) => {
                        let text = grouped(n.unsigned_abs().min(u64::MAX as u128) as u64);
                        let sign = if *n < 0 { "−" } else { "" };
                        let _ = write!(
                            self.out,
                            "<td class=\"n\" data-col=\"{column}\" data-value=\"{n}\">{sign}{text}</td>"
                        );
                    }
                    Cell::Signed(column, n) => {
                        let _ = write!(
                            self.out,
                            "<td class=\"n\" data-col=\"{column}\" data-value=\"{n}\">{}</td>",
                            signed(*n)
                        );
                    }
                    Cell::Share(part, whole) => {
                        let _ = write!(
                            self.out,
                            "<td class=\"n\" data-col=\"share\">{}</td>",
                            percent(*part, *whole)
                        );
                    }
                    Cell::Meter(f) => {
                        let _ = write!(
                            self.out,
                            "<td class=\"m\" aria-hidden=\"true\"><span style=\"width:{:.1}%\"></span></td>",
                            f * 100.0
                        );
                    }
                }
            }
            self.push("</tr>");
        }
        self.push("</tbody></table></div>");
    }

    fn figure_start(&mut self, id: &str, caption: &str, height: u32) {
        let _ = write!(
            self.out,
            "<figure id=\"{id}-chart\"><figcaption id=\"{id}-cap\">{}</figcaption><svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-labelledby=\"{id}-cap\">",
            escape(caption)
        );
    }

    fn figure_end(&mut self, legend: &[(&str, &str)]) {
        self.push("</svg>");
        if !legend.is_empty() {
            self.push("<p class=\"legend\" aria-hidden=\"true\">");
            for (class, label) in legend {
                let _ = write!(
                    self.out,
                    "<span><span class=\"key {class}\"></span>{}</span>",
                    escape(label)
                );
            }
            self.push("</p>");
        }
        self.push("</figure>");
    }

    /// Sorted horizontal bars, each scaled to the largest.
    fn bar_chart(&mut self, id: &str, caption: &str, bars: &[Bar], legend: &[(&str, &str)]) {
        const ROW: u32 = 24;
        let height = (bars.len() as u32 * ROW).max(ROW) + 8;
        self.figure_start(id, caption, height);
        let max = bars.iter().map(|b| b.value).max().unwrap_or(0);
        for (i, bar) in bars.iter().enumerate() {
            let y = 4 + i as u32 * ROW;
            let width = (fraction(bar.value, max) * f64::from(BARS)).round();
            let width = if bar.value > 0 { width.max(1.0) } else { 0.0 };
            let label = escape(&bar.label);
            let indent = if bar.class == "sub" { 14 } else { 0 };
            let _ = write!(
                self.out,
                "<g><title>{label}: {value}</title><text class=\"label\" x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{short}</text><rect class=\"{class}\" x=\"{LABEL}\" y=\"{ry}\" width=\"{width}\" height=\"16\" rx=\"2\"/><text class=\"value\" x=\"{vx}\" y=\"{ty}\">{value}</text></g>",
                value = grouped(bar.value),
                lx = LABEL - 8 - indent,
                ty = y + 13,
                short = escape(&short(&bar.label)),
                class = bar.class,
                ry = y + 1,
                vx = LABEL + width as u32 + 6,
            );
        }
        self.figure_end(legend);
    }

    /// Bars split into parts, each bar the whole (100 %).
    fn stacked_chart(
        &mut self,
        id: &str,
        caption: &str,
        rows: &[(&str, Vec<(&'static str, u64)>)],
        legend: &[(&str, &str)],
    ) {
        const ROW: u32 = 34;
        let height = rows.len() as u32 * ROW + 8;
        self.figure_start(id, caption, height);
        for (i, (label, parts)) in rows.iter().enumerate() {
            let y = 4 + i as u32 * ROW;
            let whole: u64 = parts.iter().map(|p| p.1).sum();
            let _ = write!(
                self.out,
                "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
                LABEL - 8,
                y + 17,
                escape(label)
            );
            if whole == 0 {
                let _ = write!(
                    self.out,
                    "<rect class=\"none\" x=\"{LABEL}\" y=\"{}\" width=\"{BARS}\" height=\"24\" rx=\"2\" opacity=\"0.3\"/>",
                    y + 1
                );
                continue;
            }
            let mut x = f64::from(LABEL);
            let mut sum = 0u64;
            for (class, value) in parts {
                let start = x;
                sum += value;
                // The end of each part from the running sum, so the parts fill the bar exactly.
                x = f64::from(LABEL) + fraction(sum, whole) * f64::from(BARS);
                let width = x - start;
                if *value == 0 {
                    continue;
                }
                let share = percent(*value, whole);
                let _ = write!(
                    self.out,
                    "<g><title>{class}: {} ({share})</title><rect class=\"{class}\" x=\"{start:.1}\" y=\"{}\" width=\"{width:.1}\" height=\"24\"/>",
                    grouped(*value),
                    y + 1
                );
                if width >= 56.0 {
                    let _ = write!(
                        self.out,
                        "<text class=\"inside\" x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{share}</text>",
                        start + width / 2.0,
                        y + 17
                    );
                }
                self.push("</g>");
            }
            let _ = write!(
                self.out,
                "<text class=\"value\" x=\"{}\" y=\"{}\">{}</text>",
                LABEL + BARS + 6,
                y + 17,
                grouped(whole)
            );
        }
        self.figure_end(legend);
    }

    /// Bars either side of a zero line: blocks of rows, each block scaled
    /// to its own largest magnitude.
    fn diverging_chart(
        &mut self,
        id: &str,
        caption: &str,
        blocks: &[Block<'_>],
        legend: &[(&str, &str)],
    ) {
        const ROW: u32 = 22;
        const HEAD: u32 = 22;
        let rows: u32 = blocks.iter().map(|b| b.1.len() as u32).sum();
        let height = rows * ROW + blocks.len() as u32 * HEAD + 8;
        self.figure_start(id, caption, height);
        let center = LABEL + BARS / 2;
        // Room for the number at a bar's end, on either side.
        let reach = f64::from(BARS / 2 - 80);
        let mut y = 4;
        for (title, rows) in blocks {
            let _ = write!(
                self.out,
                "<text class=\"value\" x=\"8\" y=\"{}\" font-weight=\"600\">{}</text>",
                y + 15,
                escape(title)
            );
            let top = y + HEAD;
            let max = rows.iter().map(|r| r.1.unsigned_abs()).max().unwrap_or(0);
            for (i, (label, value, class)) in rows.iter().enumerate() {
                let ry = top + i as u32 * ROW;
                let width = match max {
                    0 => 0.0,
                    _ => (value.unsigned_abs() as f64 / max as f64 * reach).max(1.0),
                };
                let width = if *value == 0 { 0.0 } else { width };
                let (x, vx, anchor) = match *value < 0 {
                    true => (
                        f64::from(center) - width,
                        f64::from(center) - width - 6.0,
                        "end",
                    ),
                    false => (f64::from(center), f64::from(center) + width + 6.0, "start"),
                };
                let _ = write!(
                    self.out,
                    "<g><title>{label}: {text}</title><text class=\"label\" x=\"{lx}\" y=\"{ty}\" text-anchor=\"end\">{label}</text><rect class=\"{class}\" x=\"{x:.1}\" y=\"{by}\" width=\"{width:.1}\" height=\"14\" rx=\"2\"/><text class=\"value\" x=\"{vx:.1}\" y=\"{ty}\" text-anchor=\"{anchor}\">{text}</text></g>",
                    label = escape(label),
                    text = signed(*value),
                    lx = LABEL - 8,
                    ty = ry + 12,
                    by = ry + 1,
                );
            }
            let _ = write!(
                self.out,
                "<line class=\"axis\" x1=\"{center}\" x2=\"{center}\" y1=\"{}\" y2=\"{}\"/>",
                top - 2,
                top + rows.len() as u32 * ROW
            );
            y = top + rows.len() as u32 * ROW;
        }
        self.figure_end(legend);
    }

    /// The usual row of a group: entries, raw tokens, share, small bar.
    fn group_row(&self, key: &str, label: String, class: &'static str, group: &Group) -> Row {
        let mut cells = vec![
            Cell::Html(label),
            Cell::Number("entries", group.entries as i128),
            Cell::Number("raw_tokens", i128::from(group.raw_tokens)),
            Cell::Share(group.raw_tokens, self.total),
        ];
        if self.any_weighted {
            cells.push(Cell::Number("weighted_tokens", weighted_value(group)));
        }
        cells.push(Cell::Meter(fraction(group.raw_tokens, self.total)));
        Row {
            key: key.to_string(),
            class,
            cells,
        }
    }

    fn group_header(&self, first: &'static str) -> Vec<&'static str> {
        let mut header = vec![first, "#entries", "#raw tokens", "#share"];
        if self.any_weighted {
            header.push("#weighted");
        }
        header.push("");
        header
    }

    fn write(&mut self, summary: &Summary, name: &str) {
        let name_html = escape(name);
        let _ = write!(
            self.out,
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta name=\"color-scheme\" content=\"light dark\"><title>Report summary: {name_html}</title><style>{STYLE}</style></head>\n<body><main>\n<header><h1>Report summary: <code>{name_html}</code></h1>"
        );
        let mut nav = vec![
            ("queue", "Queue"),
            ("by-class", "Categories"),
            ("by-op-type", "Ops"),
            ("tiers", "Tiers"),
        ];
        if !summary.largest.is_empty() {
            nav.push(("largest", "Largest"));
        }
        if summary.by_folder.groups > 0 {
            nav.push(("by-folder", "Folders"));
            nav.push(("by-file", "Files"));
        }
        nav.push(("problems", "Problems"));
        if summary.live.is_some() {
            nav.push(("live", "The project now"));
        }
        if summary.since.is_some() {
            nav.push(("since", "Since"));
        }
        self.push("<nav aria-label=\"Sections\">");
        for (id, label) in nav {
            let _ = write!(self.out, "<a href=\"#{id}\">{label}</a>");
        }
        self.push("</nav></header>\n");
        self.totals(summary);
        self.queue(summary);
        self.classes(summary);
        self.small_tables(summary);
        self.tiers(summary);
        self.largest(summary);
        self.folders(summary);
        self.problems(summary);
        self.live(summary);
        self.since(summary);
        self.push(
            "<footer>Written by <code>report-lsp summary --format html</code>: one file, no script, nothing fetched. Numbers are grouped by threes with spaces; each number cell holds its exact value in <code>data-value</code>. Bars are raw tokens unless their caption says otherwise.</footer>\n</main></body></html>\n",
        );
    }

    fn totals(&mut self, summary: &Summary) {
        let queue = &summary.queue;
        self.section("totals", "At a glance");
        self.push("<dl class=\"stats\">");
        let mut stats: Vec<(&str, &str, i128, &str)> = vec![
            ("entries", "entries", summary.entries as i128, ""),
            (
                "raw-tokens",
                "raw tokens",
                i128::from(summary.total.raw_tokens),
                "",
            ),
        ];
        if self.any_weighted {
            stats.push((
                "weighted-tokens",
                "weighted tokens",
                weighted_value(&summary.total),
                "",
            ));
        }
        stats.extend([
            (
                "auto-tokens",
                "raw tokens auto (no prompt)",
                i128::from(queue.auto.raw_tokens),
                "auto",
            ),
            (
                "confirm-tokens",
                "raw tokens confirm (approval)",
                i128::from(queue.confirm.raw_tokens),
                "confirm",
            ),
            (
                "errors",
                "errors",
                summary.problems.errors as i128,
                if summary.problems.errors > 0 {
                    "gone"
                } else {
                    ""
                },
            ),
        ]);
        for (id, label, value, class) in stats {
            let _ = write!(
                self.out,
                "<div><dt>{label}</dt><dd id=\"total-{id}\" class=\"{class}\" data-value=\"{value}\">{}</dd></div>",
                grouped(value.max(0) as u64)
            );
        }
        self.push("</dl>");
        let mut notes = Vec::new();
        if self.any_weighted {
            notes.push(format!(
                "{} entries have weighted tokens.",
                grouped(summary.weighted as u64)
            ));
        }
        if summary.counted < summary.entries {
            notes.push(format!(
                "{} entries have no valid <code>raw_tokens</code>.",
                grouped((summary.entries - summary.counted) as u64)
            ));
        }
        if !notes.is_empty() {
            self.para(&format!("<span class=\"muted\">{}</span>", notes.join(" ")));
        }
        self.end_section();
    }

    fn queue(&mut self, summary: &Summary) {
        let queue = &summary.queue;
        self.section("queue", "What the cleaner may do");
        self.para(match queue.basis {
            Some(Basis::Live) => {
                "Tiers derived with the project's git state and evidence as read now."
            }
            _ => {
                "Tiers derived from the report's text alone: a fact it does not hold (git's state) is unknown, and unknown never yields <code>auto</code>."
            }
        });
        self.push("<div class=\"pair\">");
        let parts = |of: &dyn Fn(&Group) -> u64| {
            let mut parts = vec![("auto", of(&queue.auto)), ("confirm", of(&queue.confirm))];
            if queue.underived.entries > 0 {
                parts.push(("none", of(&queue.underived)));
            }
            parts
        };
        let mut legend = vec![
            ("auto", "auto (no prompt)"),
            ("confirm", "confirm (approval)"),
        ];
        if queue.underived.entries > 0 {
            legend.push(("none", "not derivable"));
        }
        self.stacked_chart(
            "queue",
            "auto against confirm, by entries and by raw tokens",
            &[
                ("entries", parts(&|g| g.entries as u64)),
                ("raw tokens", parts(&|g| g.raw_tokens)),
            ],
            &legend,
        );
        let mut rows = Vec::new();
        for (key, label, group) in [
            ("auto", "auto (no prompt)", &queue.auto),
            ("confirm", "confirm (approval)", &queue.confirm),
            ("underived", "not derivable", &queue.underived),
        ] {
            if key == "underived" && group.entries == 0 {
                continue;
            }
            let tier = match key {
                "auto" => "auto",
                "confirm" => "confirm",
                _ => "none",
            };
            rows.push(Row {
                key: key.into(),
                class: "",
                cells: vec![
                    Cell::Html(format!(
                        "<span class=\"key {tier}\" aria-hidden=\"true\"></span>{label}"
                    )),
                    Cell::Number("entries", group.entries as i128),
                    Cell::Number("raw_tokens", i128::from(group.raw_tokens)),
                    Cell::Share(group.raw_tokens, self.total),
                ],
            });
        }
        self.table(
            "queue",
            "The queue by derived tier",
            &["tier", "#entries", "#raw tokens", "#share"],
            &rows,
        );
        self.push("</div>");
        self.end_section();

        if queue.reasons.is_empty() {
            return;
        }
        self.section("reasons", "Why confirm");
        self.push("<div class=\"pair\">");
        let bars: Vec<Bar> = queue
            .reasons
            .iter()
            .map(|g| Bar {
                label: g.key.clone(),
                value: g.entries as u64,
                class: "confirm",
            })
            .collect();
        self.bar_chart(
            "reasons",
            "Entries waiting for approval, by the rule that decided their tier",
            &bars,
            &[],
        );
        let rows: Vec<Row> = queue
            .reasons
            .iter()
            .map(|g| Row {
                key: g.key.clone(),
                class: "",
                cells: vec![
                    Cell::Html(escape(&g.key)),
                    Cell::Number("entries", g.entries as i128),
                    Cell::Number("raw_tokens", i128::from(g.raw_tokens)),
                    self.first(g),
                ],
            })
            .collect();
        self.table(
            "reasons",
            "Reasons for confirm",
            &["reason", "#entries", "#raw tokens", "first"],
            &rows,
        );
        self.push("</div>");
        self.end_section();
    }

    fn classes(&mut self, summary: &Summary) {
        self.section("by-class", "Savings by category");
        let shown: Vec<&Group> = summary.by_class.iter().filter(|c| c.entries > 0).collect();
        if shown.is_empty() {
            self.para("No entries.");
            self.end_section();
            return;
        }
        self.push("<div class=\"pair\">");
        let mut bars = Vec::new();
        let mut rows = Vec::new();
        for class in &shown {
            bars.push(Bar {
                label: class.key.clone(),
                value: class.raw_tokens,
                class: "bar",
            });
            rows.push(self.group_row(
                &class.key,
                format!("<strong>{}</strong>", escape(&class.key)),
                "",
                class,
            ));
            for part in class.parts.iter().filter(|p| p.entries > 0) {
                bars.push(Bar {
                    label: part.key.clone(),
                    value: part.raw_tokens,
                    class: "sub",
                });
                rows.push(self.group_row(
                    &format!("{}/{}", class.key, part.key),
                    escape(&part.key),
                    "sub",
                    part,
                ));
            }
        }
        self.bar_chart(
            "by-class",
            "Raw tokens by category class, and by subtype within it",
            &bars,
            &[("bar", "class"), ("sub", "subtype")],
        );
        let header = self.group_header("category");
        self.table("by-class", "Savings by category", &header, &rows);
        self.push("</div>");
        self.end_section();
    }

    fn small_tables(&mut self, summary: &Summary) {
        for (id, title, column, groups) in [
            ("by-op-type", "By op type", "op_type", &summary.by_op_type),
            (
                "by-kind",
                "By exact edit",
                "exact_edit.kind",
                &summary.by_kind,
            ),
            (
                "by-lifetime",
                "By lifetime",
                "lifecycle lifetime",
                &summary.by_lifetime,
            ),
        ] {
            self.section(id, title);
            let rows: Vec<Row> = groups
                .iter()
                .filter(|g| g.entries > 0)
                .map(|g| self.group_row(&g.key, format!("<code>{}</code>", escape(&g.key)), "", g))
                .collect();
            let header = self.group_header(column);
            self.table(id, title, &header, &rows);
            self.end_section();
        }
    }

    fn tiers(&mut self, summary: &Summary) {
        self.section(
            "tiers",
            "Recorded tiers against those derived from the report's text",
        );
        self.para(&match summary.tiers.disagree {
            0 => "Every recorded tier is one <code>derive_safety_tier</code> allows.".to_string(),
            n => format!(
                "<strong>{}</strong> entries record a tier <code>derive_safety_tier</code> does not allow (<code>tier-mismatch</code>).",
                grouped(n as u64)
            ),
        });
        let rows: Vec<Row> = summary
            .tiers
            .pairs
            .iter()
            .map(|pair| {
                let derived = match (pair.derived, pair.open) {
                    (Some(SafetyTier::Confirm), true) => {
                        format!(
                            "{} <span class=\"muted\">(auto possible with facts the report does not hold)</span>",
                            chip(pair.derived)
                        )
                    }
                    (tier, _) => chip(tier),
                };
                Row {
                    key: format!(
                        "{}/{}{}",
                        tier_name(pair.recorded),
                        tier_name(pair.derived),
                        if pair.open { "/open" } else { "" }
                    ),
                    class: "",
                    cells: vec![
                        Cell::Html(chip(pair.recorded)),
                        Cell::Html(derived),
                        Cell::Html(
                            match (pair.recorded, pair.derived, pair.agrees) {
                                (None, _, _) | (_, None, _) => "–",
                                (_, _, true) => "yes",
                                (_, _, false) => "<strong>no</strong>",
                            }
                            .into(),
                        ),
                        Cell::Number("entries", pair.group.entries as i128),
                        Cell::Number("raw_tokens", i128::from(pair.group.raw_tokens)),
                        self.first(&pair.group),
                    ],
                }
            })
            .collect();
        self.table(
            "tiers",
            "Recorded tier, derived tier",
            &[
                "recorded",
                "derived",
                "agrees",
                "#entries",
                "#raw tokens",
                "first",
            ],
            &rows,
        );
        self.end_section();
    }

    fn largest(&mut self, summary: &Summary) {
        if summary.largest.is_empty() {
            return;
        }
        self.section("largest", "Largest savings");
        let max = summary.largest.first().map_or(0, |s| s.raw_tokens);
        let rows: Vec<Row> = summary
            .largest
            .iter()
            .map(|s| Row {
                key: s.entry.index.to_string(),
                class: "",
                cells: vec![
                    Cell::Html(self.entry(&s.entry)),
                    Cell::Html(format!("<code>{}</code>", escape(&s.path))),
                    Cell::Html(escape(&s.op)),
                    Cell::Html(chip(s.tier)),
                    Cell::Number("raw_tokens", i128::from(s.raw_tokens)),
                    Cell::Meter(fraction(s.raw_tokens, max)),
                ],
            })
            .collect();
        self.table(
            "largest",
            "The entries that save the most raw tokens",
            &["entry", "path", "op", "tier", "#raw tokens", ""],
            &rows,
        );
        self.end_section();
    }

    fn top_rows(&self, top: &Top) -> Vec<Row> {
        top.shown
            .iter()
            .map(|g| self.group_row(&g.key, format!("<code>{}</code>", escape(&g.key)), "", g))
            .chain(
                top.rest
                    .as_ref()
                    .map(|g| self.group_row("rest", escape(&g.key), "rest", g)),
            )
            .collect()
    }

    fn folders(&mut self, summary: &Summary) {
        if summary.by_folder.groups == 0 {
            return;
        }
        let top = &summary.by_folder;
        self.section("by-folder", "Savings by folder");
        self.push("<div class=\"pair\">");
        let bars: Vec<Bar> = top
            .shown
            .iter()
            .map(|g| Bar {
                label: g.key.clone(),
                value: g.raw_tokens,
                class: "bar",
            })
            .chain(top.rest.as_ref().map(|g| Bar {
                label: g.key.clone(),
                value: g.raw_tokens,
                class: "rest",
            }))
            .collect();
        self.bar_chart(
            "by-folder",
            &format!(
                "Raw tokens by top-level folder, the largest {} of {}",
                top.shown.len(),
                grouped(top.groups as u64)
            ),
            &bars,
            match top.rest {
                Some(_) => &[("bar", "folder"), ("rest", "the others, summed")],
                None => &[],
            },
        );
        let rows = self.top_rows(top);
        let header = self.group_header("folder");
        self.table("by-folder", "Savings by folder", &header, &rows);
        self.push("</div>");
        self.end_section();

        let top = &summary.by_file;
        self.section("by-file", "Savings by file");
        let rows = self.top_rows(top);
        let header = self.group_header("file");
        self.table(
            "by-file",
            &format!(
                "The largest {} files of {}",
                top.shown.len(),
                grouped(top.groups as u64)
            ),
            &header,
            &rows,
        );
        self.end_section();
    }

    fn problems(&mut self, summary: &Summary) {
        let problems = &summary.problems;
        self.section("problems", "Problems");
        self.push("<dl class=\"stats\">");
        for (id, label, value, class) in [
            ("errors", "errors", problems.errors, "gone"),
            ("warnings", "warnings", problems.warnings, "confirm"),
            ("others", "others", problems.others, ""),
        ] {
            let class = if value > 0 { class } else { "" };
            let _ = write!(
                self.out,
                "<div><dt>{label}</dt><dd id=\"problems-{id}\" class=\"{class}\" data-value=\"{value}\">{}</dd></div>",
                grouped(value as u64)
            );
        }
        self.push("</dl>");
        if !problems.invariants.is_empty() {
            let max = problems
                .invariants
                .iter()
                .flat_map(|i| i.codes.iter().map(|c| c.count))
                .max()
                .unwrap_or(0);
            let mut rows = Vec::new();
            for invariant in &problems.invariants {
                for count in &invariant.codes {
                    let at = (self.place)(count.first);
                    rows.push(Row {
                        key: count.code.as_str().into(),
                        class: "",
                        cells: vec![
                            Cell::Html(format!("#{}", invariant.invariant)),
                            Cell::Html(format!("<code>{}</code>", count.code.as_str())),
                            Cell::Html(count.code.severity().as_str().into()),
                            Cell::Number("count", count.count as i128),
                            Cell::Html(if at.is_empty() {
                                "–".into()
                            } else {
                                format!("<span class=\"at\">{}</span>", escape(&at))
                            }),
                            Cell::Meter(fraction(count.count as u64, max as u64)),
                        ],
                    });
                }
            }
            self.table(
                "problems",
                "Problems by invariant and code",
                &["invariant", "code", "severity", "#count", "first", ""],
                &rows,
            );
        }
        if problems.not_by_code > 0 {
            self.para(&format!(
                "{} more were counted past the diagnostics cap, not by code.",
                grouped(problems.not_by_code as u64)
            ));
        }
        self.end_section();
    }

    fn live(&mut self, summary: &Summary) {
        let Some(live) = &summary.live else {
            return;
        };
        self.section("live", "The project now");
        if let Some(why) = &live.not_read {
            self.para(&format!("Not read: {}.", escape(why)));
            self.end_section();
            return;
        }
        self.para(&format!("Read at <code>{}</code>.", escape(&live.root)));
        let rows: Vec<Row> = [
            ("stale", "stale (file changed since the check)", &live.stale),
            ("missing", "missing (path does not exist)", &live.missing),
            ("dirty", "dirty (uncommitted changes)", &live.dirty),
            ("untracked", "untracked by git", &live.untracked),
        ]
        .into_iter()
        .map(|(key, label, group)| Row {
            key: key.into(),
            class: "",
            cells: vec![
                Cell::Html(label.into()),
                Cell::Number("entries", group.entries as i128),
                Cell::Number("raw_tokens", i128::from(group.raw_tokens)),
                self.first(group),
            ],
        })
        .collect();
        self.table(
            "live",
            "What the project says now",
            &["fact", "#entries", "#raw tokens", "first"],
            &rows,
        );
        self.para(&match &live.git_absent {
            Some(why) => format!("Git's state is unknown: {}.", escape(why)),
            None => format!(
                "Git's state was read for the {} lifecycle entries, whose tier rests on it.",
                grouped(live.git_read_for as u64)
            ),
        });
        if live.tier_shifts.is_empty() {
            self.para("Every lifecycle tier derives today as recorded.");
        } else {
            let rows: Vec<Row> = live
                .tier_shifts
                .iter()
                .map(|shift| Row {
                    key: format!("{}/{}", tier_name(shift.recorded), shift.live.as_str()),
                    class: "",
                    cells: vec![
                        Cell::Html(chip(shift.recorded)),
                        Cell::Html(chip(Some(shift.live))),
                        Cell::Number("entries", shift.group.entries as i128),
                        self.first(&shift.group),
                    ],
                })
                .collect();
            self.table(
                "tier-shifts",
                "Tiers that derive otherwise today",
                &["recorded", "derives today", "#entries", "first"],
                &rows,
            );
        }
        self.end_section();
    }

    fn since(&mut self, summary: &Summary) {
        let Some(since) = &summary.since else {
            return;
        };
        self.section("since", &format!("Since {}", since.name));
        if since.is_empty() {
            self.para("No changes.");
            self.end_section();
            return;
        }
        self.push("<div class=\"pair\">");
        let added = i128::from(since.added.raw_tokens);
        let gone = i128::from(since.gone.raw_tokens);
        self.diverging_chart(
            "since",
            &format!("The change since {}", since.name),
            &[
                (
                    "entries",
                    vec![
                        ("added", since.added.entries as i128, "added"),
                        ("gone", -(since.gone.entries as i128), "gone"),
                        ("changed", since.changed as i128, "changed"),
                        (
                            "net",
                            since.new_entries as i128 - since.old_entries as i128,
                            "bar",
                        ),
                    ],
                ),
                (
                    "raw tokens",
                    vec![
                        ("added", added, "added"),
                        ("gone", -gone, "gone"),
                        ("net", since.raw_delta(), "bar"),
                    ],
                ),
            ],
            &[
                ("added", "added"),
                ("gone", "gone"),
                ("changed", "changed"),
                ("bar", "net"),
            ],
        );
        let mut rows = vec![
            Row {
                key: "added".into(),
                class: "",
                cells: vec![
                    Cell::Html(match &since.added.first {
                        Some(e) => format!(
                            "added <span class=\"muted\">(first {})</span>",
                            self.entry(e)
                        ),
                        None => "added".into(),
                    }),
                    Cell::Number("entries", since.added.entries as i128),
                    Cell::Signed("raw_tokens", added),
                ],
            },
            Row {
                key: "gone".into(),
                class: "",
                cells: vec![
                    Cell::Html("gone".into()),
                    Cell::Number("entries", since.gone.entries as i128),
                    Cell::Signed("raw_tokens", -gone),
                ],
            },
            Row {
                key: "changed".into(),
                class: "",
                cells: vec![
                    Cell::Html("changed".into()),
                    Cell::Number("entries", since.changed as i128),
                    Cell::Signed("raw_tokens", since.changed_delta()),
                ],
            },
        ];
        for (key, label, entries, tokens) in [
            (
                "before",
                format!("before ({})", escape(&since.name)),
                since.old_entries,
                since.old_raw_tokens,
            ),
            (
                "now",
                "now".to_string(),
                since.new_entries,
                since.new_raw_tokens,
            ),
        ] {
            rows.push(Row {
                key: key.into(),
                class: "",
                cells: vec![
                    Cell::Html(label),
                    Cell::Number("entries", entries as i128),
                    Cell::Number("raw_tokens", i128::from(tokens)),
                ],
            });
        }
        rows.push(Row {
            key: "net".into(),
            class: "",
            cells: vec![
                Cell::Html("<strong>net</strong>".into()),
                Cell::Signed(
                    "entries",
                    since.new_entries as i128 - since.old_entries as i128,
                ),
                Cell::Signed("raw_tokens", since.raw_delta()),
            ],
        });
        self.table(
            "since",
            &format!("The change since {}", since.name),
            &["change", "#entries", "#raw tokens"],
            &rows,
        );
        self.push("</div>");
        if !since.tier_changes.is_empty() {
            let rows: Vec<Row> = since
                .tier_changes
                .iter()
                .map(|(from, to, n)| Row {
                    key: format!("{}/{}", tier_name(*from), tier_name(*to)),
                    class: "",
                    cells: vec![
                        Cell::Html(chip(*from)),
                        Cell::Html(chip(*to)),
                        Cell::Number("entries", *n as i128),
                    ],
                })
                .collect();
            self.table(
                "tier-changes",
                "Recorded tier changes of matched entries",
                &["recorded tier", "now", "#entries"],
                &rows,
            );
        }
        self.end_section();
    }
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
