//! A seeded generator of realistic reports, for benchmarks and tests: every
//! exact-edit kind, both classes, lifecycle objects, cleared shortlist files
//! and promotion candidates, with violations injected on request.

use std::fmt::Write;

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct GenerateOptions {
    pub entries: usize,
    pub seed: u64,
    /// Every `n`th entry gets one violation (0: none, a valid report).
    pub violation_every: usize,
}

/// One entry template: kind or generative op, category and characterization.
struct Template {
    op: &'static str,
    deterministic: bool,
    class: &'static str,
    subtype: &'static str,
    is_destructive: bool,
    is_reversible: bool,
    tier: &'static str,
}

const TEMPLATES: &[Template] = &[
    Template {
        op: "replace-text",
        deterministic: true,
        class: "stale",
        subtype: "contradicted",
        is_destructive: false,
        is_reversible: true,
        tier: "auto",
    },
    Template {
        op: "dedupe",
        deterministic: true,
        class: "stale",
        subtype: "duplicated",
        is_destructive: false,
        is_reversible: true,
        tier: "auto",
    },
    Template {
        op: "delete-range",
        deterministic: true,
        class: "stale",
        subtype: "orphaned",
        is_destructive: true,
        is_reversible: false,
        tier: "confirm",
    },
    Template {
        op: "move-to-archive",
        deterministic: true,
        class: "stale",
        subtype: "superseded",
        is_destructive: false,
        is_reversible: true,
        tier: "auto",
    },
    Template {
        op: "insert-frontmatter",
        deterministic: true,
        class: "bloat",
        subtype: "freeze",
        is_destructive: false,
        is_reversible: true,
        tier: "auto",
    },
    Template {
        op: "distill",
        deterministic: false,
        class: "bloat",
        subtype: "distill",
        is_destructive: true,
        is_reversible: false,
        tier: "confirm",
    },
    Template {
        op: "rewrite",
        deterministic: false,
        class: "stale",
        subtype: "contradicted",
        is_destructive: false,
        is_reversible: true,
        tier: "confirm",
    },
    Template {
        op: "delete",
        deterministic: true,
        class: "stale",
        subtype: "provisional",
        is_destructive: true,
        is_reversible: false,
        tier: "auto",
    },
    Template {
        op: "extract-then-delete",
        deterministic: true,
        class: "stale",
        subtype: "completed-in-place",
        is_destructive: true,
        is_reversible: false,
        tier: "confirm",
    },
];

/// What the generator wrote for one entry: the manifest a test sums to
/// know a report's totals by construction, without reading it back.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedEntry {
    pub path: String,
    pub class: &'static str,
    pub subtype: &'static str,
    pub op: &'static str,
    pub op_type: &'static str,
    /// `exact_edit.kind` as written (a violation writes an unknown one).
    pub kind: Option<&'static str>,
    pub lifetime: Option<&'static str>,
    pub recorded_tier: &'static str,
    /// What `derive_safety_tier` gives from the text, by the template's
    /// characterization: `confirm` for a generative, destructive or
    /// irreversible op, and for a lifecycle op whose evidence the text
    /// cannot prove (git's state and the age are unknown).
    pub derived_tier: &'static str,
    /// Whether the recorded tier is one the derivation allows: a
    /// scanner-proven delete may record either.
    pub agrees: bool,
    pub raw_tokens: u64,
    pub weighted_tokens: f64,
}

/// Generates a report as pretty-printed JSON (two-space indentation, `\n` line ends).
pub fn generate_report(options: GenerateOptions) -> String {
    generate_with_manifest(options).0
}

/// [`generate_report`] and what it wrote of each entry.
pub fn generate_with_manifest(options: GenerateOptions) -> (String, Vec<GeneratedEntry>) {
    let mut manifest = Vec::with_capacity(options.entries);
    let mut rng = fastrand::Rng::with_seed(options.seed);
    let mut shortlist = String::new();
    let mut entries = String::new();
    let mut candidates = Vec::new();
    for i in 0..options.entries {
        let template = &TEMPLATES[rng.usize(0..TEMPLATES.len())];
        let path = format!(
            "docs/area-{}/note-{i}-{}.md",
            i % 97,
            ["a", "路径", "😀", "b"][i % 4]
        );
        let judged = template.op == "extract-then-delete";
        let lifecycle = match template.op {
            "delete" => Some(r#"{"rule_ref": "rules/scratch", "lifetime": "temporary"}"#.to_string()),
            "extract-then-delete" => Some(r#"{"rule_ref": "rules/handoff", "lifetime": "delete-once-served", "served_when": "decisions recorded"}"#.to_string()),
            _ => None,
        };
        let violation = options.violation_every > 0
            && i % options.violation_every == options.violation_every - 1;
        if i > 0 {
            shortlist.push_str(",\n");
            entries.push_str(",\n");
        }
        match &lifecycle {
            Some(l) => write!(
                shortlist,
                "    {{\"path\": \"{path}\", \"lifecycle\": {l}}}"
            )
            .unwrap(),
            None => write!(shortlist, "    \"{path}\"").unwrap(),
        }
        if i % 10 == 0 {
            write!(shortlist, ",\n    \"docs/cleared-{i}.md\"").unwrap();
        }
        if judged && candidates.len() < 50 {
            candidates.push(format!(
                "    {{\"path\": \"{path}\", \"name\": \"decision-log\", \"pitch\": \"Record decisions as they are made.\"}}"
            ));
        }
        let tier = match (violation, i % 3) {
            (true, 0) => {
                if template.tier == "auto" {
                    "confirm"
                } else {
                    "auto"
                }
            }
            _ => template.tier,
        };
        let start = rng.u32(1..400);
        let end = start + rng.u32(0..60);
        let sha: String = (0..4).map(|_| format!("{:016x}", rng.u64(..))).collect();
        writeln!(entries, "    {{").unwrap();
        writeln!(entries, "      \"path\": \"{path}\",").unwrap();
        writeln!(
            entries,
            "      \"category\": {{\"class\": \"{}\", \"subtype\": \"{}\"}},",
            template.class, template.subtype
        )
        .unwrap();
        writeln!(
            entries,
            "      \"signals\": [\"last edited {} days ago\", \"{} inbound links\"],",
            rng.u32(30..900),
            rng.u32(0..5)
        )
        .unwrap();
        writeln!(entries, "      \"op\": \"{}\",", template.op).unwrap();
        writeln!(
            entries,
            "      \"op_type\": \"{}\",",
            if template.deterministic {
                "deterministic"
            } else {
                "generative"
            }
        )
        .unwrap();
        writeln!(
            entries,
            "      \"is_destructive\": {},",
            template.is_destructive
        )
        .unwrap();
        writeln!(
            entries,
            "      \"is_reversible\": {},",
            template.is_reversible
        )
        .unwrap();
        writeln!(entries, "      \"safety_tier\": \"{tier}\",").unwrap();
        let frequency = if i % 5 == 0 {
            "\"per-session\""
        } else {
            "\"on-demand\""
        };
        let raw = rng.u32(0..5000);
        write!(entries, "      \"token_estimate\": {{\"raw_tokens\": {raw}, \"injection_frequency\": {frequency}, \"weighted_tokens\": {}.5}}", raw / 10).unwrap();
        if let Some(l) = &lifecycle {
            write!(entries, ",\n      \"lifecycle\": {l}").unwrap();
        }
        if template.deterministic {
            let kind = match (violation, i % 3) {
                (true, 1) => "rename",
                _ => template.op,
            };
            write!(
                entries,
                ",\n      \"exact_edit\": {{\n        \"kind\": \"{kind}\",\n"
            )
            .unwrap();
            match template.op {
                "replace-text" => write!(entries, "        \"anchor\": {{\"start_line\": {start}, \"end_line\": {end}}},\n        \"match\": \"make install\",\n        \"replacement\": \"cargo install --path .\",\n"),
                "dedupe" => write!(entries, "        \"anchor\": {{\"start_line\": {start}, \"end_line\": {end}}},\n        \"canonical_ref\": \"docs/overview.md#L{start}-L{end}\",\n"),
                "delete-range" => writeln!(entries, "        \"anchor\": {{\"start_line\": {start}, \"end_line\": {end}}},"),
                "move-to-archive" => write!(entries, "        \"anchor\": {{\"start_line\": {start}, \"end_line\": {end}}},\n        \"dest_path\": \"docs/archive/note-{i}.md\",\n"),
                "insert-frontmatter" => write!(entries, "        \"key\": \"hygiene\",\n        \"value\": \"frozen\",\n"),
                "delete" => write!(entries, "        \"anchor\": {{\"start_line\": 1, \"end_line\": {end}}},\n        \"lifecycle\": {},\n", lifecycle.as_deref().unwrap_or_default()),
                _ => write!(entries, "        \"anchor\": {{\"start_line\": 1, \"end_line\": {end}}},\n        \"lifecycle\": {},\n        \"extraction_target\": \"repo-durable\",\n        \"target_doc\": \"docs/decisions.md\",\n", lifecycle.as_deref().unwrap_or_default()),
            }
            .unwrap();
            let sha = if violation && i % 3 == 2 {
                &sha[..40]
            } else {
                &sha
            };
            write!(entries, "        \"expected_sha256\": \"{sha}\"\n      }}").unwrap();
        }
        write!(entries, "\n    }}").unwrap();
        let lifecycle_op = matches!(template.op, "delete" | "extract-then-delete");
        let derived_tier = match template.deterministic
            && !lifecycle_op
            && !template.is_destructive
            && template.is_reversible
        {
            true => "auto",
            false => "confirm",
        };
        manifest.push(GeneratedEntry {
            path,
            class: template.class,
            subtype: template.subtype,
            op: template.op,
            op_type: if template.deterministic {
                "deterministic"
            } else {
                "generative"
            },
            kind: template.deterministic.then_some(match (violation, i % 3) {
                (true, 1) => "rename",
                _ => template.op,
            }),
            lifetime: match template.op {
                "delete" => Some("temporary"),
                "extract-then-delete" => Some("delete-once-served"),
                _ => None,
            },
            recorded_tier: tier,
            derived_tier,
            agrees: tier == derived_tier || template.op == "delete",
            raw_tokens: u64::from(raw),
            weighted_tokens: f64::from(raw / 10) + 0.5,
        });
    }
    let candidates = if candidates.is_empty() {
        "[]".to_string()
    } else {
        format!("[\n{}\n  ]", candidates.join(",\n"))
    };
    let text = format!(
        "{{\n  \"schema_version\": \"1.0\",\n  \"tool_version\": \"doc-hygiene 0.4.2\",\n  \"generated_at\": \"2026-11-29T18:42:07Z\",\n  \"scan\": {{\"project_root\": \"/home/dev/monorepo\", \"scope_globs\": [\"**/*.md\"], \"excluded_dirs\": [\".git\", \"node_modules\"], \"files_scanned\": {}}},\n  \"shortlist\": [\n{shortlist}\n  ],\n  \"entries\": [\n{entries}\n  ],\n  \"promotion_candidates\": {candidates}\n}}\n",
        options.entries * 3
    );
    (text, manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_reports_are_valid_and_deterministic() {
        let options = GenerateOptions {
            entries: 300,
            seed: 1,
            violation_every: 0,
        };
        let text = generate_report(options);
        assert_eq!(text, generate_report(options));
        let analysis = crate::analyze(&text);
        assert!(
            analysis.diagnostics.is_empty(),
            "{:?}",
            analysis.diagnostics.first()
        );
        assert_eq!(analysis.entries.len(), 300);
    }

    #[test]
    fn injected_violations_are_found() {
        let text = generate_report(GenerateOptions {
            entries: 300,
            seed: 2,
            violation_every: 10,
        });
        let analysis = crate::analyze(&text);
        // Some injection points do not apply to their template (a scanner-proven delete accepts either tier).
        assert!(
            analysis.diagnostics.len() >= 15,
            "{}",
            analysis.diagnostics.len()
        );
    }
}
