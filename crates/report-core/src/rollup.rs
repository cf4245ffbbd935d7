//! Token roll-ups, bottom-up from the entries as the spec asks: raw tokens
//! per class and subtype and in total, and, where the v2 fields are
//! present, the weighted savings per session against on demand.

use crate::host::snapshot::Snapshot;
use crate::schema::{CategoryClass, CategorySubtype, InjectionFrequency};
use crate::text::TextRange;
use crate::validate::EntryFacts;

/// A class's raw tokens, and its subtypes' that have any.
pub type ClassTotal = (CategoryClass, u64, Vec<(CategorySubtype, u64)>);

/// Code lenses: the roll-up's title on the `entries` key of a report.
pub fn code_lenses(document: Snapshot<'_>) -> Vec<(TextRange, String)> {
    let Some(index) = document.index() else {
        return Vec::new();
    };
    let Some(entries) = index.member("entries") else {
        return Vec::new();
    };
    let title = rollup(index.entries.iter().copied()).title();
    vec![(entries.key_range, title)]
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rollup {
    pub raw_total: u64,
    /// Entries with a valid `raw_tokens`.
    pub counted: usize,
    /// Each class with its raw tokens, per subtype in schema order.
    pub classes: Vec<ClassTotal>,
    /// Weighted tokens of auto-injected files: real savings every session.
    pub weighted_per_session: f64,
    /// Weighted tokens of on-demand docs: a theoretical maximum.
    pub weighted_on_demand: f64,
    /// Entries carrying both v2 fields.
    pub weighted_entries: usize,
}

pub fn rollup<'e>(entries: impl IntoIterator<Item = &'e EntryFacts>) -> Rollup {
    let mut rollup = Rollup::default();
    let mut by_subtype = [0u64; CategorySubtype::ALL.len()];
    let mut by_class = [0u64; CategoryClass::ALL.len()];
    for entry in entries {
        let summary = entry.summary();
        let Some((raw, _)) = summary.raw_tokens else {
            continue;
        };
        rollup.counted += 1;
        rollup.raw_total = rollup.raw_total.saturating_add(raw);
        if let Some(class) = summary.class {
            let at = CategoryClass::ALL
                .iter()
                .position(|c| *c == class)
                .unwrap_or(0);
            by_class[at] = by_class[at].saturating_add(raw);
        }
        if let Some(subtype) = summary.subtype {
            let at = CategorySubtype::ALL
                .iter()
                .position(|s| *s == subtype)
                .unwrap_or(0);
            by_subtype[at] = by_subtype[at].saturating_add(raw);
        }
        if let (Some(injection), Some(weighted)) = (summary.injection, summary.weighted_tokens) {
            rollup.weighted_entries += 1;
            match injection {
                InjectionFrequency::PerSession => rollup.weighted_per_session += weighted,
                InjectionFrequency::OnDemand => rollup.weighted_on_demand += weighted,
            }
        }
    }
    for (i, &class) in CategoryClass::ALL.iter().enumerate() {
        let subtypes = CategorySubtype::of_class(class)
            .map(|s| {
                let at = CategorySubtype::ALL
                    .iter()
                    .position(|x| *x == s)
                    .unwrap_or(0);
                (s, by_subtype[at])
            })
            .filter(|(_, n)| *n > 0)
            .collect();
        rollup.classes.push((class, by_class[i], subtypes));
    }
    rollup
}

impl Rollup {
    /// One line, for a code lens on `entries`.
    pub fn title(&self) -> String {
        let classes: Vec<String> = self
            .classes
            .iter()
            .map(|(class, n, _)| format!("{class} {}", grouped(*n)))
            .collect();
        let mut title = format!(
            "{} raw tokens ({})",
            grouped(self.raw_total),
            classes.join(", ")
        );
        if self.weighted_entries > 0 {
            title.push_str(&format!(
                " · weighted: {} per session, {} on demand",
                grouped(self.weighted_per_session.round() as u64),
                grouped(self.weighted_on_demand.round() as u64)
            ));
        }
        title
    }

    /// A Markdown table, for the hover on `entries`.
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "**Token roll-up** of {} entries (bottom-up from `raw_tokens`)\n\n| category | raw tokens |\n|---|---:|\n",
            self.counted
        );
        for (class, total, subtypes) in &self.classes {
            out.push_str(&format!("| **{class}** | **{}** |\n", grouped(*total)));
            for (subtype, n) in subtypes {
                out.push_str(&format!("| {class}/{subtype} | {} |\n", grouped(*n)));
            }
        }
        out.push_str(&format!(
            "| **total** | **{}** |\n",
            grouped(self.raw_total)
        ));
        if self.weighted_entries > 0 {
            out.push_str(&format!(
                "\nWeighted (v2, {} entries): {} per session (auto-injected: real savings every session), {} on demand (a theoretical maximum).",
                self.weighted_entries,
                grouped(self.weighted_per_session.round() as u64),
                grouped(self.weighted_on_demand.round() as u64)
            ));
        }
        out
    }
}

/// `1234567` as `1 234 567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}
