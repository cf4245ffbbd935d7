//! The `diff` command: two generations of a report compared by meaning
//! (`report_core::report_diff`), printed for a person, as JSON, or as
//! GitHub annotations on the new file. It reads both files and writes nothing.

use std::io::{Read, Write};
use std::path::PathBuf;

use report_core::Analysis;
use report_core::report_diff::render::{
    self, Paint, describe, field_line, item_facts, tier_lines, tier_name, token_line,
};
use report_core::report_diff::{
    self, ArrayDiff, FieldChange, ItemChange, ItemId, NotComparable, ReportDiff,
};
use report_core::schema::SafetyTier;
use report_core::tier::Derivation;
use serde_json::{Value, json};

use super::targets::display_path;
use super::{EXIT_INVALID, EXIT_OK, EXIT_USAGE_OR_IO, STDIN_PATH, print};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    Human,
    Json,
    Github,
}

#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// The earlier generation; `-` is standard input.
    pub old: PathBuf,
    /// The later generation; `-` is standard input.
    pub new: PathBuf,
    pub format: DiffFormat,
    pub color: bool,
    /// Exit 1 when the generations differ, as `git diff --exit-code`.
    pub exit_code: bool,
}

/// One generation, read and analysed.
struct Generation {
    name: String,
    analysis: Analysis,
}

impl Generation {
    fn view(&self) -> render::Generation<'_> {
        render::Generation {
            name: &self.name,
            analysis: &self.analysis,
        }
    }
}

/// Runs `diff`: 0 when it printed (1 with `exit_code` and a difference),
/// 2 when a file cannot be read or is not a report.
pub fn run_diff(
    options: &DiffOptions,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    if options.old.as_os_str() == STDIN_PATH && options.new.as_os_str() == STDIN_PATH {
        let _ = writeln!(
            err,
            "report-lsp: only one of OLD and NEW can be standard input (-)"
        );
        return EXIT_USAGE_OR_IO;
    }
    let (old, new) = match read_both(options, stdin) {
        Ok(both) => both,
        Err(message) => {
            let _ = writeln!(err, "report-lsp: {message}");
            return EXIT_USAGE_OR_IO;
        }
    };
    let started = std::time::Instant::now();
    let compared = report_diff::diff(&old.analysis, &new.analysis);
    tracing::debug!(ms = crate::log::millis(started.elapsed()), "compared");
    let diff = match compared {
        Ok(diff) => diff,
        Err(not) => {
            let name = match not {
                NotComparable::OldIsNotAReport => &old.name,
                NotComparable::NewIsNotAReport => &new.name,
            };
            let _ = writeln!(
                err,
                "report-lsp: {name} is not a machine report (a JSON object with `schema_version` and another member of the envelope)"
            );
            return EXIT_USAGE_OR_IO;
        }
    };
    let text = match options.format {
        DiffFormat::Human => render::human(&diff, old.view(), new.view(), options.color),
        DiffFormat::Json => {
            let mut text = serde_json::to_string_pretty(&json_document(&diff, &old, &new))
                .expect("a diff serializes");
            text.push('\n');
            text
        }
        DiffFormat::Github => github(&diff, &old, &new),
    };
    match print(out, &text) {
        EXIT_OK if options.exit_code && !diff.is_empty() => EXIT_INVALID,
        code => code,
    }
}

/// Both files, read, then analysed side by side (each is a full analysis).
fn read_both(
    options: &DiffOptions,
    stdin: &mut dyn Read,
) -> Result<(Generation, Generation), String> {
    let mut stdin_bytes = None;
    if [&options.old, &options.new]
        .iter()
        .any(|p| p.as_os_str() == STDIN_PATH)
    {
        let mut bytes = Vec::new();
        stdin
            .read_to_end(&mut bytes)
            .map_err(|e| format!("<stdin>: cannot read: {e}"))?;
        stdin_bytes = Some(bytes);
    }
    let mut read = |path: &PathBuf| -> Result<(String, Vec<u8>), String> {
        if path.as_os_str() == STDIN_PATH {
            return Ok(("<stdin>".into(), stdin_bytes.take().unwrap_or_default()));
        }
        let name = display_path(path);
        match super::fix::ReadFile::read(path) {
            Ok((_, bytes)) => Ok((name, bytes)),
            Err(error) => Err(format!("{name}: cannot read: {error}")),
        }
    };
    let (old_name, old_bytes) = read(&options.old)?;
    let (new_name, new_bytes) = read(&options.new)?;
    let (old, new) = crate::threads::analysis_pool().join(
        || report_core::analyze_with(old_bytes, report_core::AnalysisOptions::default()),
        || report_core::analyze_with(new_bytes, report_core::AnalysisOptions::default()),
    );
    Ok((
        Generation {
            name: old_name,
            analysis: old,
        },
        Generation {
            name: new_name,
            analysis: new,
        },
    ))
}

// ---------------------------------------------------------------- json

fn json_document(diff: &ReportDiff, old: &Generation, new: &Generation) -> Value {
    let side = |g: &Generation, s: &report_diff::Side| {
        json!({
            "path": g.name,
            "entries": s.entries,
            "errors": s.errors,
            "raw_tokens": s.rollup.raw_total,
        })
    };
    let classes: serde_json::Map<String, Value> = diff
        .new
        .rollup
        .classes
        .iter()
        .map(|(class, n, _)| {
            let before = diff
                .old
                .rollup
                .classes
                .iter()
                .find(|(c, _, _)| c == class)
                .map_or(0, |(_, b, _)| *b);
            (
                class.to_string(),
                json!({"old": before, "new": n, "delta": i128::from(*n) - i128::from(before)}),
            )
        })
        .collect();
    json!({
        "old": side(old, &diff.old),
        "new": side(new, &diff.new),
        "changed": !diff.is_empty(),
        "summary": diff.summary(),
        "tokens": {
            "old": diff.old.rollup.raw_total,
            "new": diff.new.rollup.raw_total,
            "delta": diff.token_delta(),
            "by_class": classes,
        },
        "envelope": diff.envelope.iter().map(json_field).collect::<Vec<_>>(),
        "entries": json_array(&diff.entries, old, new),
        "shortlist": json_array(&diff.shortlist, old, new),
        "promotion_candidates": json_array(&diff.candidates, old, new),
    })
}

fn json_array(array: &ArrayDiff, old: &Generation, new: &Generation) -> Value {
    json!({
        "added": array.added.iter().map(|id| json_id(id, new)).collect::<Vec<_>>(),
        "gone": array.gone.iter().map(|id| json_id(id, old)).collect::<Vec<_>>(),
        "changed": array.changed.iter().map(|c| json_change(c, old, new)).collect::<Vec<_>>(),
        "moved": array.moved,
    })
}

fn json_id(id: &ItemId, generation: &Generation) -> Value {
    let mut value = json!({
        "index": id.index,
        "path": id.path,
        "line": generation.view().line(id.range.start),
    });
    if !id.kind.is_empty() {
        value["kind"] = json!(id.kind);
    }
    if let Some(tier) = id.tier {
        value["safety_tier"] = json!(tier.as_str());
    }
    if let Some(n) = id.raw_tokens {
        value["raw_tokens"] = json!(n);
    }
    value
}

fn json_change(change: &ItemChange, old: &Generation, new: &Generation) -> Value {
    let mut value = json!({
        "old": json_id(&change.old, old),
        "new": json_id(&change.new, new),
        "fields": change.fields.iter().map(json_field).collect::<Vec<_>>(),
    });
    if let Some(tier) = &change.tier {
        let (old_tier, new_tier) = tier.tiers();
        value["tier"] = json!({
            "old": tier_name(old_tier),
            "new": tier_name(new_tier),
            "old_recorded": tier.old_recorded.map(|t| t.as_str()),
            "new_recorded": tier.new_recorded.map(|t| t.as_str()),
            "old_derivation": tier.old_derivation.as_ref().map(json_derivation),
            "new_derivation": tier.new_derivation.as_ref().map(json_derivation),
        });
    }
    value
}

fn json_derivation(derivation: &Derivation) -> Value {
    json!({
        "call": derivation.inputs.to_string(),
        "tier": derivation.tier.as_str(),
        "reason": derivation.reason(),
        "steps": derivation.steps.iter().map(|s| json!({
            "rule": s.rule.question(),
            "answer": s.answer.as_str(),
            "outcome": format!("{:?}", s.outcome).to_lowercase(),
        })).collect::<Vec<_>>(),
    })
}

fn json_field(change: &FieldChange) -> Value {
    // The values are compact JSON: given back as JSON values.
    let value = |v: &Option<String>| -> Value {
        v.as_deref()
            .map(|text| serde_json::from_str(text).unwrap_or_else(|_| json!(text)))
            .unwrap_or(Value::Null)
    };
    json!({
        "field": change.field,
        "aspect": format!("{:?}", change.aspect).to_lowercase(),
        "old": value(&change.old),
        "new": value(&change.new),
        "present": {"old": change.old.is_some(), "new": change.new.is_some()},
    })
}

// ---------------------------------------------------------------- github

/// Annotations on the new file: an entry that now derives to `auto` (it
/// would run without a prompt) is a warning, every other change a notice;
/// what is gone is noted on the array it left.
fn github(diff: &ReportDiff, old: &Generation, new: &Generation) -> String {
    let mut out = String::new();
    let line = |id: &ItemId| new.view().line(id.range.start);
    let end_line = |id: &ItemId| new.view().line(id.range.end);
    let array_line = |key: &str| {
        new.analysis
            .root()
            .and_then(|root| root.member(key))
            .map_or(1, |m| new.view().line(m.key_range.start))
    };
    let file = super::github::escape_property(&new.name);
    let mut annotate = |level: &str, start: u32, end: u32, title: &str, message: &str| {
        out.push_str(&format!(
            "::{level} file={file},line={start},endLine={end},title={}::{}\n",
            super::github::escape_property(title),
            super::github::escape_data(message)
        ));
    };
    annotate(
        "notice",
        1,
        1,
        "report diff",
        &format!(
            "since {}: {}\n{}",
            old.name,
            diff.summary(),
            token_line(diff)
        ),
    );
    for (key, array) in [
        ("entries", &diff.entries),
        ("shortlist", &diff.shortlist),
        ("promotion_candidates", &diff.candidates),
    ] {
        for id in &array.added {
            let message = format!("{}{}", describe(id), item_facts(id));
            annotate(
                "notice",
                line(id),
                end_line(id),
                &format!("{key}: added"),
                &message,
            );
        }
        for id in &array.gone {
            let at = array_line(key);
            let message = format!(
                "{}{} (was {})",
                describe(id),
                item_facts(id),
                render::place(old.view(), id)
            );
            annotate("notice", at, at, &format!("{key}: gone"), &message);
        }
        for change in &array.changed {
            let mut message = describe(&change.new);
            let mut level = "notice";
            if let Some(tier) = &change.tier {
                let (before, after) = tier.tiers();
                if after == Some(SafetyTier::Auto) && before != after {
                    level = "warning";
                }
                for line in tier_lines(tier, &Paint { on: false }).lines() {
                    message.push('\n');
                    message.push_str(line.trim_start());
                }
            }
            for field in &change.fields {
                message.push_str(&format!("\n{}", field_line(field)));
            }
            let new_id = &change.new;
            annotate(
                level,
                line(new_id),
                end_line(new_id),
                &format!("{key}: changed"),
                message.trim_end(),
            );
        }
    }
    for change in &diff.envelope {
        annotate("notice", 1, 1, "report diff: envelope", &field_line(change));
    }
    out
}
