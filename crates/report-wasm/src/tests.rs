//! The module's answers against the core's own, natively (the Node tests
//! in `editors/web/test` run the built module against the CLI).

use std::path::PathBuf;

use serde_json::{Value, json};

use super::Document;
use super::abi::{rl_alloc, rl_call, rl_close, rl_open, rl_reply};
use report_core::text::LineIndex;
use report_core::wire::Positions;

/// A file of the golden examples.
fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/golden")
        .join(name)
}

fn golden() -> Vec<PathBuf> {
    let root = example("");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("invalid"), root.join("valid")] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 20, "the golden examples are there");
    files
}

/// Every golden example: the document's diagnostics are the whole
/// analysis' (what `check` lists), in the wire's shape, none left out.
#[test]
fn every_golden_example_has_the_analysis_diagnostics() {
    for path in golden() {
        let bytes = std::fs::read(&path).unwrap();
        let analysis = report_core::analyze_with(bytes.clone(), Default::default());
        let at = Positions {
            text: &analysis.text,
            index: analysis.line_index(),
        };
        let expected: Vec<Value> = analysis
            .diagnostics
            .iter()
            .map(|d| at.diagnostic(d))
            .collect();
        let answer = Document::open(bytes, "x")
            .call("diagnostics", &Value::Null)
            .unwrap();
        assert_eq!(
            answer["diagnostics"],
            Value::Array(expected),
            "{}",
            path.display()
        );
        assert_eq!(answer["omitted"], 0);
    }
}

/// A request through the C ABI as a host makes it.
fn call(handle: u32, request: &str) -> Value {
    let ptr = rl_alloc(request.len());
    // SAFETY: `ptr` holds `request.len()` bytes from `rl_alloc`, taken by `rl_call`.
    let len = unsafe {
        std::ptr::copy_nonoverlapping(request.as_ptr(), ptr, request.len());
        rl_call(handle, ptr, request.len())
    };
    // SAFETY: the reply buffer holds `len` bytes until the next call.
    let reply = unsafe { std::slice::from_raw_parts(rl_reply(), len) };
    serde_json::from_slice(reply).unwrap()
}

fn open(text: &[u8], name: &str) -> u32 {
    let put = |bytes: &[u8]| {
        let ptr = rl_alloc(bytes.len());
        // SAFETY: `ptr` holds `bytes.len()` bytes from `rl_alloc`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, bytes.len()) };
        ptr
    };
    let (t, n) = (put(text), put(name.as_bytes()));
    // SAFETY: both buffers come from `rl_alloc`, taken by `rl_open`.
    unsafe { rl_open(t, text.len(), n, name.len()) }
}

/// Handles are never 0 nor given twice, and every bad
/// request gets an error reply, not a trap.
#[test]
fn the_abi_answers_every_request_and_refuses_bad_ones_in_words() {
    let text = std::fs::read(example("invalid.report.json")).unwrap();
    let a = open(&text, "invalid.report.json");
    let b = open(b"{", "broken.json");
    assert!(a != 0 && b != 0 && a != b);
    let diagnostics = call(a, r#"{"method": "diagnostics"}"#);
    assert_eq!(diagnostics["result"]["name"], "invalid.report.json");
    assert!(
        diagnostics["result"]["diagnostics"]
            .as_array()
            .unwrap()
            .len()
            > 3
    );
    let broken = call(b, r#"{"method": "diagnostics", "params": {}}"#);
    assert_eq!(broken["result"]["diagnostics"][0]["severity"], "error");
    for (request, error) in [
        ("not json", "the request is not JSON"),
        (r#"{"params": {}}"#, "the request has no `method`"),
        (r#"{"method": "rename"}"#, "no method `rename`"),
        (
            r#"{"method": "hover"}"#,
            "a position needs a whole number `line`",
        ),
        (
            r#"{"method": "hover", "params": {"position": {"line": 1, "character": -1}}}"#,
            "a position needs a whole number `character`",
        ),
        (
            r#"{"method": "summary", "params": {"format": "pdf"}}"#,
            "the summary's format is one of markdown, text, html, json, not `pdf`",
        ),
    ] {
        let reply = call(a, request);
        assert!(
            reply["error"].as_str().unwrap().starts_with(error),
            "{request}: {reply}"
        );
    }
    // A position past the end is clamped, as the server clamps a sloppy client's.
    assert_eq!(
        call(
            a,
            r#"{"method": "hover", "params": {"position": {"line": 99999, "character": 0}}}"#
        ),
        json!({"result": null})
    );
    rl_close(b);
    assert_eq!(
        call(b, r#"{"method": "diagnostics"}"#)["error"],
        "no such document: it was closed, or never opened"
    );
    assert_eq!(
        call(0, r#"{"method": "diagnostics"}"#)["error"],
        "no such document: it was closed, or never opened"
    );
    rl_close(b);
    rl_close(12345);
    let c = open(b"[]", "c.json");
    assert!(c != b && c != a, "a closed handle is never given again");
    assert_eq!(
        call(b, r#"{"method": "diagnostics"}"#)["error"],
        "no such document: it was closed, or never opened"
    );
    assert_eq!(
        call(a, r#"{"method": "diagnostics"}"#),
        diagnostics,
        "the other document stays"
    );
    rl_close(a);
    rl_close(c);
}

/// Positions in and out count UTF-16 units: after CJK and an emoji, the
/// hover of a value is found at its UTF-16 column and its range given in them.
#[test]
fn positions_are_utf16_both_ways() {
    let text = std::fs::read_to_string(example("valid.report.json")).unwrap();
    let at = text.find("\"op_type\": \"").unwrap();
    // A path of CJK and an emoji before the value on the same line.
    let text = text.replacen("\"op_type\": \"", "\"表😀\": 1, \"op_type\": \"", 1);
    let value = at + "\"表😀\": 1, \"op_type\": \"".len();
    let lines = LineIndex::new(&text);
    let line = lines
        .line_col(&text, value, report_core::text::Encoding::Utf8)
        .line;
    let line_start = text[..value].rfind('\n').map_or(0, |n| n + 1);
    let utf16 = text[line_start..value].encode_utf16().count();
    let document = Document::open(text.clone().into_bytes(), "valid.report.json");
    let hover = document
        .call(
            "hover",
            &json!({"position": {"line": line, "character": utf16 + 1}}),
        )
        .unwrap();
    assert_eq!(
        hover["range"]["start"],
        json!({"line": line, "character": utf16 - 1}),
        "{hover}"
    );
    assert!(
        hover["markdown"]
            .as_str()
            .unwrap()
            .contains("derive_safety_tier"),
        "{hover}"
    );
    let trace = document
        .call(
            "trace",
            &json!({"position": {"line": line, "character": utf16}}),
        )
        .unwrap();
    assert!(
        trace["markdown"]
            .as_str()
            .unwrap()
            .starts_with("**safety_tier** of `entries[0]`"),
        "{trace}"
    );
}

/// Bytes that are not UTF-8 are analysed as `check` reads them.
#[test]
fn bytes_that_are_not_utf8_get_their_diagnostic() {
    let answer = Document::open(b"{\"a\": \"\xff\"}".to_vec(), "x")
        .call("diagnostics", &Value::Null)
        .unwrap();
    assert_eq!(answer["diagnostics"][0]["code"], "invalid-utf8", "{answer}");
}

/// Every other method answers on a report: the outline names its keys,
/// completion offers values, fix-all edits, the summary counts entries and
/// draws its page.
#[test]
fn each_method_answers_on_a_report() {
    let text = std::fs::read(example("invalid.report.json")).unwrap();
    let document = Document::open(text, "invalid.report.json");
    let outline = document.call("outline", &Value::Null).unwrap();
    let names: Vec<&str> = outline
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"entries") && names.contains(&"shortlist"),
        "{names:?}"
    );
    let kinds: Vec<&str> = (outline.as_array().unwrap().iter())
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"Field") && kinds.contains(&"Array"),
        "{kinds:?}"
    );
    // The quick fixes at a problem's range are its fix, from the host.
    let diagnostics = document.call("diagnostics", &Value::Null).unwrap();
    let tier = (diagnostics["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "tier-mismatch")
        .unwrap();
    let fixes = document
        .call("quickFixes", &json!({"range": tier["range"]}))
        .unwrap();
    assert_eq!(fixes.as_array().unwrap().len(), 1, "{fixes}");
    assert_eq!(fixes[0], *tier);
    let none = json!({"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}});
    assert_eq!(document.call("quickFixes", &none).unwrap(), json!([]));
    let fix_all = document.call("fixAll", &Value::Null).unwrap();
    assert!(fix_all["new_text"].is_string(), "{fix_all}");
    // As the server's `report-lsp/summary` answers: the content, and each
    // entry it names with its range (entries[5] starts on line 199).
    let summary = document.call("summary", &Value::Null).unwrap();
    assert_eq!(summary["format"], "json");
    assert_eq!(summary["content"]["summary_version"], 1);
    assert_eq!(summary["content"]["entries"], 12);
    let named = summary["entries"].as_array().unwrap();
    let five = named.iter().find(|e| e["index"] == 5).unwrap();
    assert_eq!(five["range"]["start"]["line"], 198, "{five}");
    let html = document
        .call("summary", &json!({"format": "html"}))
        .unwrap();
    assert_eq!(html["format"], "html");
    assert!(
        html["content"].as_str().unwrap().contains("<svg"),
        "pictures"
    );
    assert_eq!(html["entries"], summary["entries"]);
    let markdown = document
        .call("summary", &json!({"format": "markdown"}))
        .unwrap();
    assert!(
        markdown["content"]
            .as_str()
            .unwrap()
            .starts_with("## Report summary: `invalid.report.json`"),
        "{markdown}"
    );
    assert_eq!(
        Document::open(b"[]".to_vec(), "x")
            .call("summary", &Value::Null)
            .unwrap(),
        Value::Null
    );
}

/// Where the project's facts would show, the hover says why they do not,
/// after the glossary's line, as the editor's does in a restricted workspace.
#[test]
fn the_hover_says_why_the_workspace_checks_are_off() {
    let text = std::fs::read_to_string(example("valid.report.json")).unwrap();
    let at = text.find("\"raw_tokens\"").unwrap() + 2;
    let line = text[..at].matches('\n').count();
    let character = at - text[..at].rfind('\n').map_or(0, |n| n + 1);
    let document = Document::open(text.into_bytes(), "valid.report.json");
    let hover = document
        .call(
            "hover",
            &json!({"position": {"line": line, "character": character}}),
        )
        .unwrap();
    let markdown = hover["markdown"].as_str().unwrap();
    assert!(markdown.starts_with("**raw_tokens**: "), "{markdown}");
    assert!(
        markdown.ends_with(&format!(
            "\n\n---\n\n**Project not read**: {}.\n",
            super::WORKSPACE_CHECKS_OFF
        )),
        "{markdown}"
    );
}

/// Past the editor's cap: the most severe 1 000, then the summary of the
/// rest, last, as the server publishes it; every problem counted.
#[test]
fn past_the_cap_the_summary_comes_last() {
    use report_core::generate::{GenerateOptions, generate_report};
    let text = generate_report(GenerateOptions {
        entries: 3_000,
        seed: 5,
        violation_every: 2,
    });
    let all = report_core::analyze(&text).diagnostics.len();
    assert!(all > 1_000, "{all} problems");
    let answer = Document::open(text.into_bytes(), "x")
        .call("diagnostics", &Value::Null)
        .unwrap();
    let listed = answer["diagnostics"].as_array().unwrap();
    assert_eq!(listed.len(), 1_001);
    assert_eq!(listed[1_000]["code"], "too-many-diagnostics");
    assert!(
        listed[..1_000]
            .iter()
            .all(|d| d["code"] != "too-many-diagnostics")
    );
    assert_eq!(answer["omitted"].as_u64().unwrap() as usize + 1_000, all);
}
