//! The summary as JSON, for scripts. Its shape is documented in
//! `editors/README.md` ("The report summary") and versioned by
//! `summary_version`; a place in the report is `{"index": i, ...}` plus
//! what the caller's `place` adds (the CLI: 1-based line and column; the
//! server: an LSP range).

use serde_json::{Map, Value, json};

use super::{
    Basis, CodeCount, EntryRef, Group, Live, Problems, Queue, Saving, Since, Summary, Tiers, Top,
};
use crate::schema::SafetyTier;
use crate::text::TextRange;

/// The shape's version: bumped when a field changes meaning or goes.
pub const SUMMARY_VERSION: u32 = 1;

/// How the caller names a place: fields added to `{"index": i}` (an
/// entry) or making up a problem's `first` (a range).
pub type Place<'a> = &'a dyn Fn(TextRange) -> Map<String, Value>;

/// `summary` as JSON, each place through `place`.
pub fn to_json(summary: &Summary, place: Place<'_>) -> Value {
    json!({
        "summary_version": SUMMARY_VERSION,
        "entries": summary.entries,
        "counted": summary.counted,
        "weighted_entries": summary.weighted,
        "total": group(&summary.total, place),
        "by_class": groups(&summary.by_class, place),
        "by_op_type": groups(&summary.by_op_type, place),
        "by_kind": groups(&summary.by_kind, place),
        "by_lifetime": groups(&summary.by_lifetime, place),
        "tiers": tiers(&summary.tiers, place),
        "queue": queue(&summary.queue, place),
        "largest": summary.largest.iter().map(|s| saving(s, place)).collect::<Vec<_>>(),
        "by_folder": top(&summary.by_folder, place),
        "by_file": top(&summary.by_file, place),
        "problems": problems(&summary.problems, place),
        "live": summary.live.as_ref().map(|l| live(l, place)),
        "since": summary.since.as_ref().map(|s| since(s, place)),
    })
}

pub(crate) fn tier(tier: Option<SafetyTier>) -> Value {
    tier.map_or(Value::Null, |t| Value::from(t.as_str()))
}

fn entry(entry: &EntryRef, place: Place<'_>) -> Value {
    let mut out = Map::new();
    out.insert("index".into(), entry.index.into());
    out.extend(place(entry.range));
    Value::Object(out)
}

/// Weighted tokens rounded to a tenth: sums of decimals print as written.
pub(crate) fn weighted(w: f64) -> Value {
    let rounded = (w * 10.0).round() / 10.0;
    serde_json::Number::from_f64(rounded).map_or(Value::Null, Value::Number)
}

fn group(group: &Group, place: Place<'_>) -> Value {
    let mut out = json!({
        "key": group.key,
        "entries": group.entries,
        "raw_tokens": group.raw_tokens,
        "weighted_tokens": weighted(group.weighted_tokens),
        "first_entry": group.first.as_ref().map(|e| entry(e, place)),
    });
    if !group.parts.is_empty() {
        out["parts"] = groups(&group.parts, place);
    }
    out
}

fn groups(groups: &[Group], place: Place<'_>) -> Value {
    Value::Array(groups.iter().map(|g| group(g, place)).collect())
}

fn top(top: &Top, place: Place<'_>) -> Value {
    json!({
        "shown": groups(&top.shown, place),
        "rest": top.rest.as_ref().map(|g| group(g, place)),
        "groups": top.groups,
    })
}

fn tiers(tiers: &Tiers, place: Place<'_>) -> Value {
    json!({
        "disagree": tiers.disagree,
        "pairs": tiers.pairs.iter().map(|p| {
            let mut out = group(&p.group, place);
            out["recorded"] = tier(p.recorded);
            out["derived"] = tier(p.derived);
            out["open"] = p.open.into();
            out["agrees"] = p.agrees.into();
            out
        }).collect::<Vec<_>>(),
    })
}

fn queue(queue: &Queue, place: Place<'_>) -> Value {
    json!({
        "basis": match queue.basis {
            Some(Basis::Live) => "live",
            _ => "text",
        },
        "auto": group(&queue.auto, place),
        "confirm": group(&queue.confirm, place),
        "reasons": groups(&queue.reasons, place),
        "underived": group(&queue.underived, place),
    })
}

fn saving(saving: &Saving, place: Place<'_>) -> Value {
    json!({
        "entry": entry(&saving.entry, place),
        "path": saving.path,
        "raw_tokens": saving.raw_tokens,
        "weighted_tokens": saving.weighted_tokens.map(weighted),
        "op": saving.op,
        "tier": tier(saving.tier),
    })
}

fn code(code: &CodeCount, place: Place<'_>) -> Value {
    json!({
        "code": code.code.as_str(),
        "severity": code.code.severity().as_str(),
        "count": code.count,
        "first": Value::Object(place(code.first)),
    })
}

fn problems(problems: &Problems, place: Place<'_>) -> Value {
    json!({
        "errors": problems.errors,
        "warnings": problems.warnings,
        "others": problems.others,
        "not_by_code": problems.not_by_code,
        "invariants": problems.invariants.iter().map(|i| json!({
            "invariant": i.invariant,
            "codes": i.codes.iter().map(|c| code(c, place)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn live(live: &Live, place: Place<'_>) -> Value {
    json!({
        "root": live.root,
        "not_read": live.not_read,
        "stale": group(&live.stale, place),
        "missing": group(&live.missing, place),
        "dirty": group(&live.dirty, place),
        "untracked": group(&live.untracked, place),
        "git_read_for": live.git_read_for,
        "git_absent": live.git_absent,
        "tier_shifts": live.tier_shifts.iter().map(|s| {
            let mut out = group(&s.group, place);
            out["recorded"] = tier(s.recorded);
            out["live"] = tier(Some(s.live));
            out
        }).collect::<Vec<_>>(),
    })
}

fn since(since: &Since, place: Place<'_>) -> Value {
    json!({
        "name": since.name,
        "unchanged": since.is_empty(),
        "added": group(&since.added, place),
        "gone": {
            "entries": since.gone.entries,
            "raw_tokens": since.gone.raw_tokens,
        },
        "changed": since.changed,
        "tier_changes": since.tier_changes.iter().map(|(from, to, n)| json!({
            "from": tier(*from),
            "to": tier(*to),
            "entries": n,
        })).collect::<Vec<_>>(),
        "old_entries": since.old_entries,
        "new_entries": since.new_entries,
        "changed_raw_delta": i64::try_from(since.changed_delta()).unwrap_or(i64::MAX),
        "old_raw_tokens": since.old_raw_tokens,
        "new_raw_tokens": since.new_raw_tokens,
        "raw_delta": i64::try_from(since.raw_delta()).unwrap_or(i64::MAX),
    })
}
