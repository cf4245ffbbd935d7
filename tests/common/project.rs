//! Throw-away projects for the workspace checks: a temp folder with files,
//! optionally a git repository, and a report describing it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        Project {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, relative: &str, text: &str) {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// `git init` and a first commit of everything written so far.
    pub fn commit_all(&self) {
        self.git(&["init", "-q", "-b", "main"]);
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "first"]);
    }

    pub fn git(&self, args: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(self.path())
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    pub fn report_path(&self) -> PathBuf {
        self.path().join("hygiene.report.json")
    }

    /// Writes the report (project_root "."); returns its text.
    pub fn write_report(&self, report: &Value) -> String {
        let text = serde_json::to_string_pretty(report).unwrap();
        std::fs::write(self.report_path(), &text).unwrap();
        text
    }
}

pub fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A report whose envelope is valid, with these shortlist items and entries.
pub fn report(
    generated_at: &str,
    shortlist: Vec<Value>,
    entries: Vec<Value>,
    candidates: Vec<Value>,
) -> Value {
    json!({
        "schema_version": "1.0",
        "tool_version": "test",
        "generated_at": generated_at,
        "scan": {"project_root": ".", "scope_globs": ["**/*.md"], "excluded_dirs": [], "files_scanned": 3},
        "shortlist": shortlist,
        "entries": entries,
        "promotion_candidates": candidates,
    })
}

/// A deterministic, auto entry with this exact edit.
pub fn edit_entry(path: &str, edit: Value) -> Value {
    let kind = edit["kind"].as_str().unwrap().to_string();
    json!({
        "path": path,
        "category": {"class": "stale", "subtype": "duplicated"},
        "signals": [],
        "op": kind,
        "op_type": "deterministic",
        "is_destructive": false,
        "is_reversible": true,
        "safety_tier": "auto",
        "token_estimate": {"raw_tokens": 1},
        "exact_edit": edit,
    })
}

/// A `delete` entry recorded `auto` on scanner-proven evidence.
pub fn delete_entry(path: &str, served: &str, sha: &str) -> Value {
    let lifecycle = json!({"rule_ref": "rules/plans", "lifetime": "delete-once-served", "served_when_path": served});
    json!({
        "path": path,
        "category": {"class": "stale", "subtype": "completed-in-place"},
        "signals": [],
        "op": "delete",
        "op_type": "deterministic",
        "is_destructive": true,
        "is_reversible": true,
        "safety_tier": "auto",
        "token_estimate": {"raw_tokens": 1},
        "lifecycle": lifecycle,
        "exact_edit": {"kind": "delete", "anchor": {"start_line": 1, "end_line": 1}, "lifecycle": lifecycle, "expected_sha256": sha},
    })
}

/// The o200k_base count of `text`, as the workspace checks recount it.
pub fn tokens(text: &str) -> u64 {
    tiktoken_rs::o200k_base()
        .unwrap()
        .encode_ordinary(text)
        .len() as u64
}

/// `entry` with its `raw_tokens` set.
pub fn with_raw_tokens(mut entry: Value, raw: u64) -> Value {
    entry["token_estimate"]["raw_tokens"] = json!(raw);
    entry
}

/// The documents a clean can edit, one per kind the preview shows: CJK and
/// emoji in names and text.
pub const SETUP: &str = "one\nrun 😀 make install\nthree\n";
pub const OLD_API: &str = "# API\nkeep\nold 1 — 路\nold 2\nkeep too\n";
pub const ROADMAP: &str = "# 2023\nshipped\nplanned\n";

fn anchor(start: u64, end: u64) -> Value {
    json!({"start_line": start, "end_line": end})
}

/// Writes the cleanable documents (and the lifecycle delete's served path)
/// and returns their entries: a replace-text and a move-to-archive that
/// derive auto, a delete-range that needs confirmation, and a lifecycle
/// delete that git proves auto once committed.
#[allow(dead_code)]
pub fn cleanable_entries(project: &Project) -> Vec<Value> {
    project.write("docs/setup.md", SETUP);
    project.write("docs/旧-api.md", OLD_API);
    project.write("docs/roadmap 🚀.md", ROADMAP);
    project.write("notes/scratch.md", "scratch\n");
    project.write("plans/done.md", "done\n");
    let mut confirm = edit_entry(
        "docs/旧-api.md",
        json!({"kind": "delete-range", "anchor": anchor(3, 4), "expected_sha256": sha256(OLD_API)}),
    );
    confirm["is_destructive"] = json!(true);
    confirm["is_reversible"] = json!(false);
    confirm["safety_tier"] = json!("confirm");
    vec![
        edit_entry(
            "docs/setup.md",
            json!({"kind": "replace-text", "anchor": anchor(2, 2), "match": "make install", "replacement": "cargo install", "expected_sha256": sha256(SETUP)}),
        ),
        confirm,
        edit_entry(
            "docs/roadmap 🚀.md",
            json!({"kind": "move-to-archive", "anchor": anchor(2, 2), "dest_path": "archive/roadmap.md", "expected_sha256": sha256(ROADMAP)}),
        ),
        delete_entry("notes/scratch.md", "plans/done.md", &sha256("scratch\n")),
    ]
}
