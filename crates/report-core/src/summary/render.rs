//! The summary in words: text for the terminal, Markdown for a CI step
//! summary, a pull request comment or an editor's scratch buffer. Both are
//! made of the same sections and tables, so they say the same.

use unicode_width::UnicodeWidthStr;

use super::{Basis, Group, Summary, Top};
use crate::rollup::grouped;
use crate::schema::SafetyTier;
use crate::text::TextRange;

/// How an entry's place is shown besides `entries[i]` (the CLI: "line 12").
pub type Place<'a> = &'a dyn Fn(TextRange) -> String;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Text,
    Markdown,
}

/// The summary as text for a terminal.
pub fn text(summary: &Summary, name: &str, place: Place<'_>) -> String {
    write(summary, name, place, Style::Text)
}

/// The summary as GitHub-flavoured Markdown.
pub fn markdown(summary: &Summary, name: &str, place: Place<'_>) -> String {
    write(summary, name, place, Style::Markdown)
}

/// A table: its header and rows. The first `left` columns and a `first`
/// column (an entry's name) are text, aligned left; the others numbers,
/// aligned right.
struct Table {
    header: Vec<&'static str>,
    left: usize,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new(header: Vec<&'static str>, left: usize) -> Table {
        Table {
            header,
            left,
            rows: Vec::new(),
        }
    }

    fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    fn is_text(&self, column: usize) -> bool {
        column < self.left || self.header[column] == "first"
    }

    fn write(&self, out: &mut String, style: Style) {
        match style {
            Style::Markdown => {
                out.push_str(&format!("| {} |\n|", self.header.join(" | ")));
                for i in 0..self.header.len() {
                    out.push_str(if self.is_text(i) { "---|" } else { "---:|" });
                }
                out.push('\n');
                for row in &self.rows {
                    let cells: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
                    out.push_str(&format!("| {} |\n", cells.join(" | ")));
                }
            }
            Style::Text => {
                let width = |i: usize| {
                    self.rows
                        .iter()
                        .map(|r| r[i].width())
                        .chain([self.header[i].width()])
                        .max()
                        .unwrap_or(0)
                };
                let widths: Vec<usize> = (0..self.header.len()).map(width).collect();
                let line = |cells: &[String]| {
                    let mut line = String::from("  ");
                    for (i, cell) in cells.iter().enumerate() {
                        let pad = widths[i] - cell.width();
                        if i > 0 {
                            line.push_str("  ");
                        }
                        if self.is_text(i) {
                            line.push_str(cell);
                            if i + 1 < cells.len() {
                                line.push_str(&" ".repeat(pad));
                            }
                        } else {
                            line.push_str(&" ".repeat(pad));
                            line.push_str(cell);
                        }
                    }
                    line.trim_end().to_string()
                };
                let header: Vec<String> = self.header.iter().map(|h| h.to_string()).collect();
                out.push_str(&line(&header));
                out.push('\n');
                for row in &self.rows {
                    out.push_str(&line(row));
                    out.push('\n');
                }
            }
        }
        out.push('\n');
    }
}

fn heading(out: &mut String, style: Style, title: &str) {
    match style {
        Style::Markdown => out.push_str(&format!("### {title}\n\n")),
        Style::Text => out.push_str(&format!("{title}\n")),
    }
}

fn para(out: &mut String, style: Style, text: &str) {
    match style {
        Style::Markdown => out.push_str(&format!("{text}\n\n")),
        Style::Text => out.push_str(&format!("  {text}\n\n")),
    }
}

/// A string from the report as shown: its control characters escaped (a
/// line break would split a table's row), and in Markdown a code span
/// fenced by more backticks than it holds in a row, so that nothing in it
/// is read as Markdown or HTML (a pull request comment would fetch an
/// image it named).
fn code(style: Style, text: &str) -> String {
    let text = plain(text);
    match style {
        Style::Markdown => {
            let mut longest = 0;
            let mut run = 0;
            for c in text.chars() {
                run = if c == '`' { run + 1 } else { 0 };
                longest = longest.max(run);
            }
            let fence = "`".repeat(longest + 1);
            // A span starting or ending in a backtick, or empty, is padded.
            let pad = text.is_empty() || text.starts_with('`') || text.ends_with('`');
            match pad {
                true => format!("{fence} {text} {fence}"),
                false => format!("{fence}{text}{fence}"),
            }
        }
        Style::Text => text,
    }
}

/// `text` with its control characters escaped (`\n`, `\u{7}`).
pub(crate) fn plain(text: &str) -> String {
    match text.chars().any(char::is_control) {
        false => text.to_string(),
        true => text
            .chars()
            .map(|c| match c.is_control() {
                true => c.escape_debug().to_string(),
                false => c.to_string(),
            })
            .collect(),
    }
}

/// `n thing` or `n things`, `n` grouped.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", grouped(n as u64), if n == 1 { one } else { many })
}

/// Weighted tokens as a whole number, or a dash when no entry has any.
fn weighted(group: &Group, any: bool) -> String {
    match any {
        true => grouped(group.weighted_tokens.round().max(0.0) as u64),
        false => "–".into(),
    }
}

fn percent(part: u64, whole: u64) -> String {
    match whole {
        0 => "–".into(),
        _ => format!("{:.1} %", part as f64 * 100.0 / whole as f64),
    }
}

fn entry_name(style: Style, index: usize, range: TextRange, place: Place<'_>) -> String {
    let at = place(range);
    let name = code(style, &format!("entries[{index}]"));
    match at.is_empty() {
        true => name,
        false => format!("{name} ({at})"),
    }
}

fn tier_name(tier: Option<SafetyTier>) -> &'static str {
    tier.map_or("none", |t| t.as_str())
}

fn write(summary: &Summary, name: &str, place: Place<'_>, style: Style) -> String {
    let mut out = String::new();
    let any_weighted = summary.weighted > 0;
    let total = summary.total.raw_tokens;
    match style {
        Style::Markdown => out.push_str(&format!("## Report summary: {}\n\n", code(style, name))),
        Style::Text => out.push_str(&format!("Report summary: {}\n\n", plain(name))),
    }
    let mut line = format!(
        "{}, {} raw tokens",
        count(summary.entries, "entry", "entries"),
        grouped(total)
    );
    if any_weighted {
        line.push_str(&format!(
            " ({} weighted, {} weighted)",
            weighted(&summary.total, true),
            count(summary.weighted, "entry", "entries")
        ));
    }
    if summary.counted < summary.entries {
        let missing = summary.entries - summary.counted;
        line.push_str(&format!(
            "; {} no valid raw_tokens",
            match missing {
                1 => "1 entry has".to_string(),
                n => format!("{} entries have", grouped(n as u64)),
            }
        ));
    }
    para(&mut out, style, &line);

    // The queue first: it is what a reviewer decides on.
    let queue = &summary.queue;
    heading(&mut out, style, "What the cleaner may do");
    let basis = match queue.basis {
        Some(Basis::Live) => "Tiers derived with the project's git state and evidence as read now.",
        _ => {
            "Tiers derived from the report's text alone: a fact it does not hold (git's state) is unknown, and unknown never yields auto."
        }
    };
    para(&mut out, style, basis);
    let mut table = Table::new(vec!["tier", "entries", "raw tokens", "share"], 1);
    for (label, group) in [
        ("auto (no prompt)", &queue.auto),
        ("confirm (approval)", &queue.confirm),
    ] {
        table.row(vec![
            label.into(),
            grouped(group.entries as u64),
            grouped(group.raw_tokens),
            percent(group.raw_tokens, total),
        ]);
    }
    if queue.underived.entries > 0 {
        table.row(vec![
            "not derivable".into(),
            grouped(queue.underived.entries as u64),
            grouped(queue.underived.raw_tokens),
            percent(queue.underived.raw_tokens, total),
        ]);
    }
    table.write(&mut out, style);
    if !queue.reasons.is_empty() {
        heading(&mut out, style, "Why confirm");
        let mut table = Table::new(vec!["reason", "entries", "raw tokens", "first"], 1);
        for group in &queue.reasons {
            table.row(vec![
                group.key.clone(),
                grouped(group.entries as u64),
                grouped(group.raw_tokens),
                first(style, group, place),
            ]);
        }
        table.write(&mut out, style);
    }

    heading(&mut out, style, "Savings by category");
    let mut table = Table::new(
        vec!["category", "entries", "raw tokens", "share", "weighted"],
        1,
    );
    for class in &summary.by_class {
        if class.entries == 0 {
            continue;
        }
        table.row(vec![
            match style {
                Style::Markdown => format!("**{}**", class.key),
                Style::Text => class.key.clone(),
            },
            grouped(class.entries as u64),
            grouped(class.raw_tokens),
            percent(class.raw_tokens, total),
            weighted(class, any_weighted),
        ]);
        for part in class.parts.iter().filter(|p| p.entries > 0) {
            table.row(vec![
                format!("{}/{}", class.key, part.key),
                grouped(part.entries as u64),
                grouped(part.raw_tokens),
                percent(part.raw_tokens, total),
                weighted(part, any_weighted),
            ]);
        }
    }
    table.write(&mut out, style);

    for (title, column, groups) in [
        ("By op type", "op_type", &summary.by_op_type),
        ("By exact edit", "exact_edit.kind", &summary.by_kind),
        ("By lifetime", "lifecycle lifetime", &summary.by_lifetime),
    ] {
        heading(&mut out, style, title);
        let mut table = Table::new(vec![column, "entries", "raw tokens", "share"], 1);
        for group in groups.iter().filter(|g| g.entries > 0) {
            table.row(vec![
                group.key.clone(),
                grouped(group.entries as u64),
                grouped(group.raw_tokens),
                percent(group.raw_tokens, total),
            ]);
        }
        table.write(&mut out, style);
    }

    heading(
        &mut out,
        style,
        "Recorded tiers against those derived from the report's text",
    );
    para(
        &mut out,
        style,
        &match summary.tiers.disagree {
            0 => "Every recorded tier is one derive_safety_tier allows.".to_string(),
            n => format!(
                "{} entries record a tier derive_safety_tier does not allow (tier-mismatch).",
                grouped(n as u64)
            ),
        },
    );
    let mut table = Table::new(
        vec![
            "recorded",
            "derived",
            "agrees",
            "entries",
            "raw tokens",
            "first",
        ],
        3,
    );
    for pair in &summary.tiers.pairs {
        let derived = match (pair.derived, pair.open) {
            (Some(SafetyTier::Confirm), true) => {
                "confirm (auto possible with facts the report does not hold)".to_string()
            }
            (Some(tier), _) => tier.as_str().to_string(),
            (None, _) => "not derivable".to_string(),
        };
        let agrees = match (pair.recorded, pair.derived, pair.agrees) {
            (None, _, _) | (_, None, _) => "–",
            (_, _, true) => "yes",
            (_, _, false) => "no",
        };
        table.row(vec![
            pair.recorded.map_or("no valid tier", |t| t.as_str()).into(),
            derived,
            agrees.into(),
            grouped(pair.group.entries as u64),
            grouped(pair.group.raw_tokens),
            first(style, &pair.group, place),
        ]);
    }
    table.write(&mut out, style);

    if !summary.largest.is_empty() {
        heading(&mut out, style, "Largest savings");
        let mut table = Table::new(vec!["entry", "path", "op", "tier", "raw tokens"], 4);
        for saving in &summary.largest {
            table.row(vec![
                entry_name(style, saving.entry.index, saving.entry.range, place),
                code(style, &saving.path),
                code(style, &saving.op),
                tier_name(saving.tier).into(),
                grouped(saving.raw_tokens),
            ]);
        }
        table.write(&mut out, style);
    }
    for (title, column, top) in [
        ("Savings by folder", "folder", &summary.by_folder),
        ("Savings by file", "file", &summary.by_file),
    ] {
        if top.groups == 0 {
            continue;
        }
        heading(&mut out, style, title);
        top_table(&mut out, style, column, top, total);
    }

    heading(&mut out, style, "Problems");
    let problems = &summary.problems;
    para(
        &mut out,
        style,
        &format!(
            "{}, {}, {}.",
            count(problems.errors, "error", "errors"),
            count(problems.warnings, "warning", "warnings"),
            count(problems.others, "other", "others")
        ),
    );
    if !problems.invariants.is_empty() {
        let mut table = Table::new(vec!["invariant", "code", "count", "first"], 2);
        for invariant in &problems.invariants {
            for count in &invariant.codes {
                let at = place(count.first);
                table.row(vec![
                    format!("#{}", invariant.invariant),
                    code(style, count.code.as_str()),
                    grouped(count.count as u64),
                    if at.is_empty() { "–".into() } else { at },
                ]);
            }
        }
        table.write(&mut out, style);
    }
    if problems.not_by_code > 0 {
        para(
            &mut out,
            style,
            &format!(
                "{} more were counted past the diagnostics cap, not by code.",
                grouped(problems.not_by_code as u64)
            ),
        );
    }

    if let Some(live) = &summary.live {
        heading(&mut out, style, "The project now");
        match &live.not_read {
            Some(why) => para(&mut out, style, &format!("Not read: {why}.")),
            None => {
                para(
                    &mut out,
                    style,
                    &format!("Read at {}.", code(style, &live.root)),
                );
                let mut table = Table::new(vec!["fact", "entries", "raw tokens", "first"], 1);
                for (label, group) in [
                    ("stale (file changed since the check)", &live.stale),
                    ("entries whose path is missing", &live.missing),
                    ("dirty (uncommitted changes)", &live.dirty),
                    ("untracked by git", &live.untracked),
                ] {
                    table.row(vec![
                        label.into(),
                        grouped(group.entries as u64),
                        grouped(group.raw_tokens),
                        first(style, group, place),
                    ]);
                }
                table.write(&mut out, style);
                let git = match &live.git_absent {
                    Some(why) => format!("Git's state is unknown: {why}."),
                    None => format!(
                        "Git's state was read for the {} lifecycle entries, whose tier rests on it.",
                        grouped(live.git_read_for as u64)
                    ),
                };
                para(&mut out, style, &git);
                if live.tier_shifts.is_empty() {
                    para(
                        &mut out,
                        style,
                        "Every lifecycle tier derives today as recorded.",
                    );
                } else {
                    let mut table =
                        Table::new(vec!["recorded", "derives today", "entries", "first"], 2);
                    for shift in &live.tier_shifts {
                        table.row(vec![
                            tier_name(shift.recorded).into(),
                            shift.live.as_str().into(),
                            grouped(shift.group.entries as u64),
                            first(style, &shift.group, place),
                        ]);
                    }
                    table.write(&mut out, style);
                }
            }
        }
    }

    if let Some(since) = &summary.since {
        heading(&mut out, style, &format!("Since {}", since.name));
        if since.is_empty() {
            para(&mut out, style, "No changes.");
        } else {
            let mut table = Table::new(vec!["change", "entries", "raw tokens"], 1);
            table.row(vec![
                "added".into(),
                grouped(since.added.entries as u64),
                format!("+{}", grouped(since.added.raw_tokens)),
            ]);
            table.row(vec![
                "gone".into(),
                grouped(since.gone.entries as u64),
                format!("−{}", grouped(since.gone.raw_tokens)),
            ]);
            table.row(vec![
                "changed".into(),
                grouped(since.changed as u64),
                signed(since.changed_delta()),
            ]);
            table.row(vec![
                "total".into(),
                format!(
                    "{} → {}",
                    grouped(since.old_entries as u64),
                    grouped(since.new_entries as u64)
                ),
                signed(since.raw_delta()),
            ]);
            table.write(&mut out, style);
            if !since.tier_changes.is_empty() {
                let mut table = Table::new(vec!["recorded tier", "now", "entries"], 2);
                for (from, to, n) in &since.tier_changes {
                    table.row(vec![
                        tier_name(*from).into(),
                        tier_name(*to).into(),
                        grouped(*n as u64),
                    ]);
                }
                table.write(&mut out, style);
            }
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// `+1 234`, `−56`, `±0`.
pub(crate) fn signed(n: i128) -> String {
    let sign = match n.signum() {
        1 => "+",
        -1 => "−",
        _ => "±",
    };
    format!(
        "{sign}{}",
        grouped(n.unsigned_abs().min(u64::MAX as u128) as u64)
    )
}

fn first(style: Style, group: &Group, place: Place<'_>) -> String {
    group.first.as_ref().map_or_else(
        || "–".into(),
        |e| entry_name(style, e.index, e.range, place),
    )
}

fn top_table(out: &mut String, style: Style, column: &'static str, top: &Top, total: u64) {
    let mut table = Table::new(vec![column, "entries", "raw tokens", "share"], 1);
    for (group, rest) in
        (top.shown.iter().map(|g| (g, false))).chain(top.rest.iter().map(|g| (g, true)))
    {
        table.row(vec![
            // A path in code; the rest's words as they are.
            match rest || group.key == super::NO_PATH {
                true => group.key.clone(),
                false => code(style, &group.key),
            },
            grouped(group.entries as u64),
            grouped(group.raw_tokens),
            percent(group.raw_tokens, total),
        ]);
    }
    table.write(out, style);
}
