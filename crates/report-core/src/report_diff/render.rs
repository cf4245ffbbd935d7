//! What a diff says to a person: the text `report-lsp diff` prints and
//! the editor's "since HEAD" command shows, and the lines the CLI's other
//! formats share.

use crate::analysis::Analysis;
use crate::rollup::grouped;
use crate::schema::SafetyTier;
use crate::text::Encoding;

use super::{ArrayDiff, FieldChange, ItemId, ReportDiff, TierChange, signed_short};

/// One side as the output names it.
#[derive(Clone, Copy)]
pub struct Generation<'a> {
    pub name: &'a str,
    pub analysis: &'a Analysis,
}

impl Generation<'_> {
    /// The 1-based line an offset is on.
    pub fn line(&self, offset: usize) -> u32 {
        let text = &self.analysis.text;
        self.analysis
            .line_index()
            .line_col(text, offset, Encoding::Utf16)
            .line
            + 1
    }
}

/// ANSI colours, or none.
pub struct Paint {
    pub on: bool,
}

impl Paint {
    fn wrap(&self, code: &str, text: &str) -> String {
        match self.on {
            true => format!("\x1b[{code}m{text}\x1b[0m"),
            false => text.to_string(),
        }
    }
    fn added(&self, text: &str) -> String {
        self.wrap("32", text)
    }
    fn gone(&self, text: &str) -> String {
        self.wrap("31", text)
    }
    fn changed(&self, text: &str) -> String {
        self.wrap("33", text)
    }
    fn bold(&self, text: &str) -> String {
        self.wrap("1", text)
    }
    fn dim(&self, text: &str) -> String {
        self.wrap("2", text)
    }
}

/// The whole comparison, grouped by array, with tier derivations.
pub fn human(diff: &ReportDiff, old: Generation<'_>, new: Generation<'_>, color: bool) -> String {
    let paint = Paint { on: color };
    let mut out = head(diff, old.name, new.name, &paint);
    if !diff.envelope.is_empty() {
        out.push('\n');
        for change in &diff.envelope {
            out.push_str(&format!(
                "  {} {}\n",
                paint.changed("~"),
                field_line(change)
            ));
        }
    }
    let sections = [
        ("entries", &diff.entries),
        ("shortlist", &diff.shortlist),
        ("promotion_candidates", &diff.candidates),
    ];
    for (name, array) in sections {
        if array.is_empty() {
            continue;
        }
        out.push_str(&format!(
            "\n{} {}\n",
            paint.bold(name),
            paint.dim(&counts(array))
        ));
        let sides = [
            (paint.added("+"), &array.added, new),
            (paint.gone("−"), &array.gone, old),
        ];
        for (sign, ids, generation) in sides {
            for id in ids {
                out.push_str(&format!(
                    "  {sign} {}{}  {}\n",
                    describe(id),
                    item_facts(id),
                    paint.dim(&place(generation, id))
                ));
            }
        }
        for change in &array.changed {
            out.push_str(&format!(
                "  {} {}  {}\n",
                paint.changed("~"),
                describe(&change.new),
                paint.dim(&format!(
                    "{} → {}",
                    place(old, &change.old),
                    place(new, &change.new)
                ))
            ));
            if let Some(tier) = &change.tier {
                out.push_str(&tier_lines(tier, &paint));
            }
            for field in &change.fields {
                out.push_str(&format!("      {}\n", field_line(field)));
            }
        }
    }
    out
}

/// What [`human`] says of a comparison that found nothing, without either
/// side's analysis (it names no item, so no line): see `super::unchanged`.
pub fn human_unchanged(diff: &ReportDiff, old_name: &str, new_name: &str) -> String {
    debug_assert!(diff.is_empty(), "only a comparison that found nothing");
    head(diff, old_name, new_name, &Paint { on: false })
}

/// The summary, the token line, and each side's errors.
fn head(diff: &ReportDiff, old_name: &str, new_name: &str, paint: &Paint) -> String {
    let mut out = format!("{old_name} → {new_name}: {}\n", paint.bold(&diff.summary()));
    out.push_str(&format!("  {}\n", token_line(diff)));
    for (name, side) in [(old_name, &diff.old), (new_name, &diff.new)] {
        if side.errors > 0 {
            out.push_str(&format!(
                "  {name} has {} error{} (`report-lsp check {name}` shows them); what parses is compared\n",
                grouped(side.errors as u64),
                if side.errors == 1 { "" } else { "s" },
            ));
        }
    }
    out
}

/// "raw tokens 13 185 → 13 147 (−38): stale −38, bloat ±0".
pub fn token_line(diff: &ReportDiff) -> String {
    let (old, new) = (&diff.old.rollup, &diff.new.rollup);
    let classes: Vec<String> = new
        .classes
        .iter()
        .map(|(class, n, _)| {
            let before = old
                .classes
                .iter()
                .find(|(c, _, _)| c == class)
                .map_or(0, |(_, b, _)| *b);
            format!(
                "{class} {}",
                signed_short(i128::from(*n) - i128::from(before))
            )
        })
        .collect();
    format!(
        "raw tokens {} → {} ({}): {}",
        grouped(old.raw_total),
        grouped(new.raw_total),
        signed_short(diff.token_delta()),
        classes.join(", ")
    )
}

fn counts(array: &ArrayDiff) -> String {
    let mut parts = vec![
        format!("+{}", array.added.len()),
        format!("−{}", array.gone.len()),
    ];
    if !array.changed.is_empty() {
        parts.push(format!("~{}", array.changed.len()));
    }
    if array.moved > 0 {
        parts.push(format!("{} moved", array.moved));
    }
    parts.join(" ")
}

/// "docs/x.md  delete-range".
pub fn describe(id: &ItemId) -> String {
    let path = if id.path.is_empty() {
        "(no path)"
    } else {
        &id.path
    };
    match id.kind.is_empty() {
        true => path.to_string(),
        false => format!("{path}  {}", id.kind),
    }
}

/// "  confirm  812 tok" for an entry.
pub fn item_facts(id: &ItemId) -> String {
    let mut out = String::new();
    if let Some(tier) = id.tier {
        out.push_str(&format!("  {tier}"));
    }
    if let Some(n) = id.raw_tokens {
        out.push_str(&format!("  {} tok", grouped(n)));
    }
    out
}

/// "new.json:140 entries[11]".
pub fn place(generation: Generation<'_>, id: &ItemId) -> String {
    let line = generation.line(id.range.start);
    format!("{}:{line} [{}]", generation.name, id.index)
}

pub fn field_line(change: &FieldChange) -> String {
    format!(
        "{}  {} → {}",
        change.field,
        change.old.as_deref().unwrap_or("(absent)"),
        change.new.as_deref().unwrap_or("(absent)")
    )
}

pub fn tier_name(tier: Option<SafetyTier>) -> &'static str {
    tier.map_or("(none)", |t| t.as_str())
}

pub fn tier_lines(tier: &TierChange, paint: &Paint) -> String {
    let (old, new) = tier.tiers();
    let mut out = format!(
        "      {}  {} → {}",
        paint.bold("tier"),
        tier_name(old),
        paint.bold(tier_name(new))
    );
    if tier.old_recorded != tier.new_recorded {
        out.push_str(&format!(
            "  (recorded {} → {})",
            tier_name(tier.old_recorded),
            tier_name(tier.new_recorded)
        ));
    }
    out.push('\n');
    for (label, derivation) in [("old", &tier.old_derivation), ("new", &tier.new_derivation)] {
        if let Some(d) = derivation {
            out.push_str(&format!(
                "        {label}  {} → {}: {}\n",
                d.inputs,
                d.tier,
                d.reason()
            ));
        }
    }
    out
}
