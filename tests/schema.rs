//! The generated JSON Schema, checked by a maintained JSON Schema validator:
//! it is a valid draft 2020-12 schema, the valid golden report passes, and
//! every invalid golden example is rejected, except those whose violation
//! no schema can express (listed below with the reason).

mod common;

use std::path::Path;
use std::process::Command;

use common::{golden_dir, invalid_examples};

/// Invalid examples a schema validator accepts, and why. None today: each
/// also breaks something a schema expresses. The violations no schema can
/// express are tested one by one in `violations_no_schema_can_express_pass_it`.
const ACCEPTED_BY_THE_SCHEMA: &[(&str, &str)] = &[(
    "08-dedupe-preserves-nothing.report.json",
    "that canonical_ref points into the span its own entry removes compares two fields' meanings",
)];

/// Invalid examples that are not JSON a schema validator can read at all:
/// the parser refuses them before any schema applies, as it must.
const NOT_JSON: &[(&str, &str)] = &[
    ("01-empty.report.json", "an empty file is no JSON value"),
    ("01-invalid-utf8.report.json", "JSON is UTF-8 text"),
    (
        "01-trailing-comma.report.json",
        "a trailing comma is not JSON",
    ),
    (
        "01-nesting-too-deep.report.json",
        "the parser's own depth limit refuses it",
    ),
];

fn validator() -> jsonschema::Validator {
    let schema = report_core::json_schema::report_schema();
    jsonschema::draft202012::meta::validate(&schema).expect("a valid draft 2020-12 schema");
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// serde_json keeps the last of duplicate keys, as the validator reads them.
fn parse(path: &Path) -> Option<serde_json::Value> {
    let bytes = std::fs::read(path).unwrap();
    serde_json::from_slice(&bytes).ok()
}

#[test]
fn the_valid_golden_reports_pass() {
    let validator = validator();
    let mut paths = common::valid_examples();
    paths.push(golden_dir().join("valid.report.json"));
    for path in paths {
        let report = parse(&path).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    }
}

#[test]
fn generated_reports_pass() {
    let validator = validator();
    for seed in 0..20 {
        let text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
            entries: 30,
            seed,
            violation_every: 0,
        });
        assert!(report_core::analyze(&text).is_valid(), "seed {seed}");
        let report: serde_json::Value = serde_json::from_str(&text).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "seed {seed}: {errors:#?}");
    }
}

#[test]
fn invalid_golden_reports_are_rejected_where_a_schema_can_tell() {
    let validator = validator();
    let mut examples = invalid_examples();
    examples.push(golden_dir().join("invalid.report.json"));
    for path in examples {
        let name = name(&path);
        let Some(report) = parse(&path) else {
            assert!(
                NOT_JSON.iter().any(|(n, _)| *n == name),
                "{name} is not JSON but not listed in NOT_JSON"
            );
            continue;
        };
        assert!(
            !NOT_JSON.iter().any(|(n, _)| *n == name),
            "{name} is listed in NOT_JSON but parses"
        );
        let accepted = validator.is_valid(&report);
        let expected = ACCEPTED_BY_THE_SCHEMA.iter().any(|(n, _)| *n == name);
        assert_eq!(
            accepted, expected,
            "{name}: accepted by the schema: {accepted}, expected {expected}"
        );
    }
}

/// The valid report with the first `from` replaced by `to`, as JSON, after
/// checking that the validator rejects it.
fn invalid_variant(what: &str, from: &str, to: &str) -> serde_json::Value {
    let valid = std::fs::read_to_string(golden_dir().join("valid.report.json")).unwrap();
    assert!(valid.contains(from), "{what}: no {from}");
    let text = valid.replacen(from, to, 1);
    assert!(
        !report_core::analyze(&text).is_valid(),
        "{what}: the validator accepts it"
    );
    serde_json::from_str(&text).unwrap()
}

/// Each violation a schema can express, on its own in the valid report:
/// the schema rejects it, as the validator does.
#[test]
fn single_violations_are_rejected_by_the_schema_and_the_validator() {
    let validator = validator();
    let cases: &[(&str, &str, &str)] = &[
        // (what, from, to): each replaces the first occurrence of `from`.
        (
            "op_type deterministic without exact_edit",
            "\"exact_edit\": {",
            "\"exact_edit_x\": {",
        ),
        (
            "wrong tier of a reversible op",
            "\"safety_tier\": \"auto\"",
            "\"safety_tier\": \"confirm\"",
        ),
        (
            "unknown kind",
            "\"kind\": \"replace-text\"",
            "\"kind\": \"rename\"",
        ),
        ("uppercase digest", "\"8fb6d5f37e", "\"8FB6D5F37E"),
        (
            "absolute shortlist path",
            "\"docs/setup.md\",",
            "\"/docs/setup.md\",",
        ),
        (
            "bad timestamp",
            "2026-11-29T18:42:07Z",
            "2026-11-29 18:42:07",
        ),
        (
            "schema major 2",
            "\"schema_version\": \"1.0\"",
            "\"schema_version\": \"2.0\"",
        ),
        (
            "subtype of the other class",
            "\"subtype\": \"contradicted\"",
            "\"subtype\": \"distill\"",
        ),
        (
            "both served fields",
            "\"served_when_path\": \"docs/migrations/2026-q3.md\"",
            "\"served_when_path\": \"docs/migrations/2026-q3.md\", \"served_when\": \"x\"",
        ),
        (
            "negative count",
            "\"files_scanned\": 184",
            "\"files_scanned\": -1",
        ),
    ];
    for (what, from, to) in cases {
        let report = invalid_variant(what, from, to);
        assert!(
            !validator.is_valid(&report),
            "{what}: the schema accepts it"
        );
    }
}

/// What the schema's `$comment` says it cannot express, shown: each of these
/// breaks the validator and passes the schema.
#[test]
fn violations_no_schema_can_express_pass_it() {
    let validator = validator();
    let cases: &[(&str, &str, &str)] = &[
        (
            "entry path not in the shortlist",
            "\"path\": \"docs/setup.md\"",
            "\"path\": \"docs/setup-2.md\"",
        ),
        (
            "anchor ending before it starts",
            "\"start_line\": 14",
            "\"start_line\": 15",
        ),
        (
            "a date that does not exist",
            "2026-11-29T18:42:07Z",
            "2026-02-30T18:42:07Z",
        ),
        (
            "entry and exact_edit lifecycles differ",
            "\"rule_ref\": \"rules/migration-plans\",\n          \"lifetime\"",
            "\"rule_ref\": \"rules/other\",\n          \"lifetime\"",
        ),
        (
            "promotion candidate naming no entry",
            "\"path\": \"handoff/会议记录-😀.md\",\n      \"name\"",
            "\"path\": \"docs/none.md\",\n      \"name\"",
        ),
    ];
    for (what, from, to) in cases {
        let report = invalid_variant(what, from, to);
        assert!(validator.is_valid(&report), "{what}: the schema rejects it");
    }
}

#[test]
fn the_schema_command_prints_the_generated_schema() {
    let output = Command::new(env!("CARGO_BIN_EXE_report-lsp"))
        .arg("schema")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed, report_core::json_schema::report_schema());
    assert_eq!(
        printed["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    let comment = printed["$comment"].as_str().unwrap();
    assert!(comment.contains("shortlist membership"), "{comment}");
}
