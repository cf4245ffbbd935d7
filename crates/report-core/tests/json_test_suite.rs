//! Strictness against a public conformance suite, when it is at hand:
//! `JSON_TEST_SUITE=/path/to/JSONTestSuite/test_parsing cargo test -p report-core --test json_test_suite -- --ignored --nocapture`.
//! Files named `y_` must parse without syntax errors (a repeated key is
//! valid JSON, an error of reports only) and `n_` must not; `i_` are the
//! implementation's choice. Bytes that are not UTF-8 are rejected before
//! parsing, as `analyze_bytes` does. The suite's files are not part of this
//! repository; the syntax module's own tests cover each class of case.

#[test]
#[ignore = "needs JSON_TEST_SUITE pointing at a test_parsing folder"]
fn json_test_suite_verdicts() {
    let dir = std::env::var("JSON_TEST_SUITE").expect("JSON_TEST_SUITE is set");
    let mut wrong = Vec::new();
    let mut counts = [0usize; 6];
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let accepted = match String::from_utf8(bytes) {
            Ok(text) => {
                let parse = report_core::syntax::parse(&text);
                check_tree(&text, &parse);
                // A repeated key is valid JSON; only reports forbid it.
                parse.errors.iter().all(|e| {
                    matches!(
                        e.kind,
                        report_core::syntax::SyntaxErrorKind::DuplicateKey { .. }
                    )
                })
            }
            Err(_) => false,
        };
        let class = match &name[..2] {
            "y_" => 0,
            "n_" => 2,
            _ => 4,
        };
        counts[class + usize::from(!accepted)] += 1;
        if (class == 0 && !accepted) || (class == 2 && accepted) {
            wrong.push(name);
        }
    }
    println!(
        "y_: {} accepted, {} rejected; n_: {} accepted, {} rejected; i_: {} accepted, {} rejected",
        counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]
    );
    assert!(wrong.is_empty(), "wrong verdicts: {wrong:?}");
}

/// Every node lies inside the text and inside its parent.
fn check_tree(text: &str, parse: &report_core::syntax::Parse) {
    let Some(root) = parse.root() else { return };
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let range = node.range();
        assert!(range.start <= range.end && range.end <= text.len());
        let children: Vec<_> = match (node.items(), node.members()) {
            (Some(items), _) => items.collect(),
            (_, Some(members)) => members.map(|m| m.value).collect(),
            _ => Vec::new(),
        };
        for child in children {
            assert!(child.range().start >= range.start && child.range().end <= range.end);
            stack.push(child);
        }
    }
}
