use std::fs;

use report_core::diagnostic::Severity;

use std::path::Path;

use super::*;

fn parsed(text: &str) -> (FileValues, Vec<(String, String)>) {
    let (values, problems) =
        parse(text, Kind::ReportLsp, Path::new("/p")).expect("a report-lsp.toml is ours");
    let problems = problems
        .into_iter()
        .map(|p| (text[p.range].to_string(), p.message))
        .collect();
    (values, problems)
}

#[test]
fn every_key_is_read() {
    let (values, problems) = parsed(
        r#"
files = ["reports/**/*.json"]
token-tolerance = 0.25
max-diagnostics = 50
max-document-bytes = 1_000_000
max-document-links = 0x10
workspace-checks = "off"
find-reports = false

[severity]
path-missing = "error"
invariant-12 = "hint"
too-many-diagnostics = "off"
"#,
    );
    assert_eq!(problems, []);
    let files = values.files.unwrap();
    assert!(files.matches("/p/reports/a/b.json"));
    assert!(!files.matches("/elsewhere/reports/a/b.json"));
    assert_eq!(values.token_tolerance, Some(0.25));
    assert_eq!(values.max_diagnostics, Some(50));
    assert_eq!(values.max_document_bytes, Some(1_000_000));
    assert_eq!(values.max_document_links, Some(16));
    assert_eq!(values.workspace_checks, Some(false));
    assert_eq!(values.find_reports, Some(false));
    let level = |code| values.severities.level(code);
    assert_eq!(level(Code::PathMissing), Level::Report(Severity::Error));
    // The invariant's key sets its codes; a code named alone keeps its own.
    assert_eq!(
        level(Code::DocumentOutOfSync),
        Level::Report(Severity::Hint)
    );
    assert_eq!(level(Code::TooManyDiagnostics), Level::Off);
    assert_eq!(level(Code::TierMismatch), Level::Report(Severity::Error));
}

#[test]
fn a_wrong_value_is_a_problem_at_its_place_and_the_others_hold() {
    let (values, problems) = parsed(
        r#"
files = "*.json"
token-tolerance = -1
max-diagnostics = 0
workspace-checks = "sometimes"
tokenTolerance = 0.5
colour = true
max-document-links = 7

[severity]
tier-mismatch = "warning"
invariant-7 = "off"
no-such-code = "hint"
path-missing = "loud"
"#,
    );
    assert_eq!(values.max_document_links, Some(7));
    assert_eq!(values.files, None);
    assert_eq!(values.token_tolerance, None);
    assert!(values.severities.is_empty());
    let shown: Vec<(&str, &str)> = problems
        .iter()
        .map(|(at, message)| (at.as_str(), message.as_str()))
        .collect();
    expect_test::expect![[r#"
        [
            (
                "\"*.json\"",
                "`files` refused: expected an array of glob strings, such as [\"**/*.report.json\"], found a string; the default is used",
            ),
            (
                "-1",
                "`token-tolerance` refused: expected a fraction of at least 0, such as 0.1 for 10%; the default is used",
            ),
            (
                "0",
                "`max-diagnostics` refused: expected a whole number of at least 1, found 0; the default is used",
            ),
            (
                "\"sometimes\"",
                "`workspace-checks` refused: expected true, false, \"on\" or \"off\", found a string; the default is used",
            ),
            (
                "tokenTolerance",
                "unknown key `tokenTolerance`: did you mean `token-tolerance`?",
            ),
            (
                "colour",
                "unknown key `colour`; the keys are `files`, `token-tolerance`, `max-diagnostics`, `max-document-bytes`, `max-document-links`, `workspace-checks`, `find-reports`, `severity`",
            ),
            (
                "\"warning\"",
                "`tier-mismatch` enforces invariant 7 of the report's contract, which makes it an error: a report that breaks it is invalid, so it cannot be set to warning",
            ),
            (
                "\"off\"",
                "`invariant-7` cannot be off: `unknown-safety-tier`, `tier-mismatch` enforce the report's contract and stay errors (a report that breaks them is invalid); name the other codes one by one",
            ),
            (
                "no-such-code",
                "unknown code `no-such-code`: a key is a code (`report-lsp explain CODE` lists one) or invariant-N, N from 1 to 13",
            ),
            (
                "\"loud\"",
                "`path-missing` refused: expected \"error\", \"warning\", \"information\", \"hint\" or \"off\"; its own severity is used",
            ),
        ]
    "#]]
    .assert_debug_eq(&shown);
}

#[test]
fn a_syntax_error_is_a_problem_and_what_parses_still_holds() {
    let (values, problems) = parsed("max-diagnostics = 5\ntoken-tolerance = \n");
    assert_eq!(values.max_diagnostics, Some(5));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].1.starts_with("TOML syntax: "), "{problems:?}");
}

#[test]
fn a_pyproject_is_ours_only_with_its_table() {
    assert!(
        parse(
            "[project]\nname = \"x\"\n",
            Kind::Pyproject,
            Path::new("/p")
        )
        .is_none()
    );
    assert!(
        parse(
            "[tool.ruff]\nline-length = 1\n",
            Kind::Pyproject,
            Path::new("/p")
        )
        .is_none()
    );
    // Someone else's broken file is not ours to report.
    assert!(parse("[project\n", Kind::Pyproject, Path::new("/p")).is_none());
    let (values, problems) = parse(
        "[project]\nname = \"x\"\n\n[tool.report-lsp]\nmax-diagnostics = 9\n",
        Kind::Pyproject,
        Path::new("/p"),
    )
    .unwrap();
    assert_eq!((values.max_diagnostics, problems), (Some(9), vec![]));
    let (_, problems) = parse(
        "[tool.report-lsp]\nmax-diagnostics = 9\n[[\n",
        Kind::Pyproject,
        Path::new("/p"),
    )
    .expect("a broken file with our table is ours");
    assert_eq!(problems.len(), 1);
}

#[test]
fn the_nearest_folder_governs_and_report_lsp_toml_comes_first() {
    let root = tempfile::tempdir().unwrap();
    let top = root.path().join("项目 🚀");
    let inner = top.join("reports/nightly");
    fs::create_dir_all(&inner).unwrap();
    fs::write(top.join(FILE_NAME), "max-diagnostics = 1\n").unwrap();
    fs::write(
        top.join("reports").join(PYPROJECT),
        "[tool.report-lsp]\nmax-diagnostics = 2\n",
    )
    .unwrap();
    fs::write(inner.join(PYPROJECT), "[project]\nname = \"not ours\"\n").unwrap();
    let files = ProjectFiles::default();
    let report = inner.join("a.report.json");
    let governing = files.governing(&report).unwrap();
    assert_eq!(governing.path, top.join("reports").join(PYPROJECT));
    assert_eq!(governing.values.max_diagnostics, Some(2));
    assert_eq!(
        files.governing(&top).unwrap().values.max_diagnostics,
        Some(1)
    );
    // Remembered until forgotten.
    fs::write(top.join("reports").join(FILE_NAME), "max-diagnostics = 3\n").unwrap();
    assert_eq!(
        files.governing(&report).unwrap().values.max_diagnostics,
        Some(2)
    );
    assert!(files.forget(&top.join("reports")).is_some());
    assert_eq!(
        files.governing(&report).unwrap().values.max_diagnostics,
        Some(3)
    );
    assert_eq!(files.take_read().len(), 3);
    assert!(files.take_read().is_empty());
}

#[test]
fn a_file_that_cannot_be_taken_whole_says_so() {
    let root = tempfile::tempdir().unwrap();
    let path = root.path().join(FILE_NAME);
    fs::write(&path, b"max-diagnostics = 1\n\xff\n").unwrap();
    let file = read(&path).unwrap();
    assert_eq!(file.values, FileValues::default());
    assert_eq!(file.problems[0].range, 20..20);
    assert!(file.problems[0].message.contains("not UTF-8"));
    assert_eq!(place(&file, &file.problems[0], "r.toml"), "r.toml:2:1");
    fs::write(&path, vec![b'#'; MAX_BYTES as usize + 1]).unwrap();
    assert!(
        read(&path).unwrap().problems[0]
            .message
            .contains("more than")
    );
    let big_pyproject = root.path().join(PYPROJECT);
    fs::write(&big_pyproject, vec![b'#'; MAX_BYTES as usize + 1]).unwrap();
    assert!(read(&big_pyproject).is_none());
}

#[test]
fn places_count_characters_from_one() {
    let text = "# 注释 🚀\nmax-diagnostics = \"x\"\n";
    let (values, problems) = parse(text, Kind::ReportLsp, Path::new("/p")).unwrap();
    let file = ProjectFile {
        path: PathBuf::from(FILE_NAME),
        values,
        problems,
        text: text.into(),
    };
    assert_eq!(place(&file, &file.problems[0], "r.toml"), "r.toml:2:19");
}
