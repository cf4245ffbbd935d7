//! The Neovim plugin in a real headless Neovim against the real server: it
//! sees the diagnostics, applies the tier fix, saves, and hovers the trace.
//! Skipped when `nvim` is missing locally; a failure when `CI` is set.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use report_core::text::Encoding;
use serde_json::Value;

fn nvim_available() -> bool {
    let found = Command::new("nvim")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found && std::env::var_os("CI").is_some() {
        panic!("nvim is required in CI (.ci/run installs Debian's neovim)");
    }
    found
}

#[test]
fn plugin_shows_diagnostics_applies_the_tier_fix_and_hovers_the_trace() {
    if !nvim_available() {
        eprintln!("skipping: nvim is not installed");
        return;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("机器-invalid.report.json");
    let original =
        std::fs::read_to_string(common::golden_dir().join("invalid.report.json")).unwrap();
    std::fs::write(&file, &original).unwrap();
    let out = dir.path().join("observed.json");
    let fixed = dir.path().join("机器-fixed.report.json");

    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "--cmd"])
        .arg(format!(
            "set rtp+={}",
            root.join("editors/neovim").display()
        ))
        .arg("-c")
        .arg(format!(
            "luafile {}",
            root.join("editors/neovim/test/e2e.lua").display()
        ))
        .env("REPORT_LSP_BIN", env!("CARGO_BIN_EXE_report-lsp"))
        .env("REPORT_LSP_FILE", &file)
        .env("REPORT_LSP_OUT", &out)
        .env("REPORT_LSP_FIXED", &fixed)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("nvim did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let observed: Value = serde_json::from_str(
        &std::fs::read_to_string(&out).expect("the Lua test wrote its observations"),
    )
    .unwrap();
    assert!(
        observed.get("error").is_none(),
        "the Lua test failed: {}",
        observed["error"]
    );

    // What Neovim shows is what the core finds: same lines, columns and codes.
    let analysis = report_core::analyze(&original);
    let expected: Vec<Value> = analysis
        .diagnostics
        .iter()
        .map(|d| {
            let p = analysis
                .line_index()
                .line_col(&original, d.range.start, Encoding::Utf16);
            serde_json::json!({"line": p.line, "col": p.col, "code": d.code.as_str()})
        })
        .collect();
    assert_eq!(observed["before"], Value::Array(expected));

    assert_eq!(
        observed["applied"],
        "Set safety_tier to \"confirm\" (derived)"
    );
    let tier_line = observed["tier_line"].as_u64().unwrap() as usize;
    let saved = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        saved.lines().nth(tier_line).unwrap().trim(),
        "\"safety_tier\": \"confirm\","
    );
    assert_eq!(saved.lines().count(), original.lines().count());
    let after = observed["after"].as_array().unwrap();
    assert_eq!(after.len(), analysis.diagnostics.len() - 1);
    assert!(
        !after
            .iter()
            .any(|d| d["line"] == tier_line as u64 && d["code"] == "tier-mismatch")
    );

    let hover = observed["hover"].as_str().unwrap();
    assert!(hover.contains("derive_safety_tier(op_type="), "{hover}");

    // Fix-all, resolved by Neovim on demand, gave what the core's fix-all gives.
    assert_eq!(observed["fixed_all"], true);
    let fixed_all = std::fs::read_to_string(&fixed).unwrap();
    assert_eq!(Some(fixed_all), report_core::fix_all::fix_all(&saved));
}
