//! What opening a big report costs the server when its project is at hand:
//! the report alone in its folder, `scan.project_root` that folder (so the
//! workspace checks run, and find every file it names missing), as issue 44
//! measured it. For each size and each binary: the server's CPU time from
//! the didOpen to the workspace checks' publication, the time to the first
//! diagnostics and to the workspace ones, and the RSS after and at its
//! peak. Beside them the floor: `serde_json` parsing the same text. Then,
//! in another server each, typing right after the open (a keystroke every
//! 20 ms for 3 s): the slowest and the median keystroke's time to its
//! publication while the workspace checks run, and how long after the
//! last the workspace diagnostics come (0 when they came meanwhile).
//!
//!     cargo bench --bench open_cost -- 10000 50000 [--bin NAME=PATH]... [--options JSON] [--git committed|changed]
//!
//! Each `--bin` is another build (a previous commit's), timed in the same
//! run; this build's server is always one. Three opens per binary and size,
//! each in a server of its own, interleaved; the medians are printed.
//! The only programs it starts are the servers under test: this build's
//! and those the developer names with `--bin` on the command line, and,
//! with `--git`, the developer's `git` to commit the report in its folder;
//! never one a repository, its git config or a report names. It is no part of
//! what ships: the workspace layer in `src/` reads and never runs
//! anything (`tests/architecture.rs::nothing_shipped_starts_a_process`).
//! `--options` are the servers' `initializationOptions` (`{"findReports":
//! false}`: no search of the folder, which reads the report from disk too
//! when it gets there before the didOpen). `--git committed` opens the
//! report as HEAD has it, as one reviewed from a commit; `--git changed`
//! commits it, then opens it with one entry's tokens changed, as one
//! generated since: the server compares it with HEAD's copy at the open,
//! and the open's figures run to that comparison's lens.

use std::time::{Duration, Instant};

use report_core::generate::{GenerateOptions, generate_report};
use serde_json::{Value, json};

#[path = "../tests/common/editor.rs"]
mod editor;
use editor::Editor;

const RUNS: usize = 3;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut sizes = Vec::new();
    let mut options = Value::Null;
    let mut git = None;
    let mut binaries = vec![(
        "this build".to_string(),
        env!("CARGO_BIN_EXE_report-lsp").to_string(),
    )];
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bin" => {
                let named = args.next().expect("--bin NAME=PATH");
                let (name, path) = named.split_once('=').expect("--bin NAME=PATH");
                binaries.push((name.to_string(), path.to_string()));
            }
            "--options" => {
                let json = args.next().expect("--options JSON");
                options = serde_json::from_str(&json).expect("--options JSON");
            }
            "--git" => {
                let how = args.next().expect("--git committed|changed");
                assert!(
                    ["committed", "changed"].contains(&how.as_str()),
                    "--git committed|changed"
                );
                git = Some(how);
            }
            // cargo bench passes `--bench`; other flags are not ours.
            _ => sizes.extend(arg.parse::<usize>().ok()),
        }
    }
    if sizes.is_empty() {
        sizes.push(10_000);
    }
    for entries in sizes {
        run(entries, &binaries, &options, git.as_deref());
    }
}

/// One open's figures.
#[derive(Clone, Copy, Default)]
struct Open {
    cpu_ms: f64,
    first_ms: f64,
    workspace_ms: f64,
    rss_kb: u64,
    peak_kb: u64,
}

fn run(entries: usize, binaries: &[(String, String)], options: &Value, git: Option<&str>) {
    let generated = generate_report(GenerateOptions {
        entries,
        seed: 1,
        violation_every: 0,
    });
    // Its project is its own folder, where no file it names is.
    let text = generated.replacen("\"/home/dev/monorepo\"", "\".\"", 1);
    assert_ne!(text, generated, "the generator names its root");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("huge.report.json");
    std::fs::write(&file, &text).unwrap();
    let text = match git {
        Some(how) => committed(dir.path(), &file, text, how == "changed"),
        None => text,
    };
    let uri = format!("file://{}", file.display());
    let mut opens: Vec<Vec<Open>> = vec![Vec::new(); binaries.len()];
    let mut typed: Vec<Vec<Typed>> = vec![Vec::new(); binaries.len()];
    for _ in 0..RUNS {
        for (i, (_, binary)) in binaries.iter().enumerate() {
            opens[i].push(open(
                binary,
                dir.path(),
                &uri,
                &text,
                options,
                git.is_some(),
            ));
            typed[i].push(typing(binary, dir.path(), &uri, &text, options));
        }
    }
    let floor = median(
        (0..5)
            .map(|_| {
                let started = Instant::now();
                let value: Value = serde_json::from_str(&text).unwrap();
                drop(value);
                started.elapsed().as_secs_f64() * 1000.0
            })
            .collect(),
    );
    println!(
        "open_cost entries={entries} bytes={} options={options} git={} floor_parse_and_drop={floor:.0}ms",
        text.len(),
        git.unwrap_or("none")
    );
    for ((name, _), runs) in binaries.iter().zip(&opens) {
        let of = |f: fn(&Open) -> f64| median(runs.iter().map(f).collect());
        println!(
            "open_cost entries={entries} binary=\"{name}\" cpu={:.2}s first={:.0}ms workspace={:.0}ms rss_after={:.0}MB peak={:.0}MB",
            of(|o| o.cpu_ms) / 1000.0,
            of(|o| o.first_ms),
            of(|o| o.workspace_ms),
            of(|o| o.rss_kb as f64 / 1024.0),
            of(|o| o.peak_kb as f64 / 1024.0),
        );
    }
    for ((name, _), runs) in binaries.iter().zip(&typed) {
        let of = |f: fn(&Typed) -> f64| median(runs.iter().map(f).collect());
        println!(
            "open_cost entries={entries} binary=\"{name}\" typing right after the open: slowest keystroke={:.0}ms median={:.1}ms workspace diagnostics {:.0}ms after the last",
            of(|t| t.slowest_ms),
            of(|t| t.median_ms),
            of(|t| t.workspace_after_ms),
        );
    }
}

/// Commits the report in its folder, a repository of its own; when
/// `changed`, writes it again with the first entry's tokens changed.
/// Returns the text to open.
fn committed(
    folder: &std::path::Path,
    file: &std::path::Path,
    text: String,
    changed: bool,
) -> String {
    // The developer's `git`, on a repository this bench just made, with
    // nothing configured anywhere able to name a program for it to run: no
    // system or global config (a filter, fsmonitor, pager or signing
    // program named there), no template (its hooks), no hooks, no
    // attributes outside the repository. The server under test never runs
    // git; only this bench does, to make its scratch repository.
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_TEMPLATE_DIR", "")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .arg("-C")
            .arg(folder)
            .args(["-c", "user.name=bench", "-c", "user.email=bench@localhost"])
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args([
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.attributesFile=/dev/null",
            ])
            .args(args)
            .status()
            .expect("git");
        assert!(status.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "the report"]);
    if !changed {
        return text;
    }
    let at = text.find("\"raw_tokens\": ").expect("an entry with tokens");
    let end = at + text[at..].find(',').expect("more after the tokens");
    let text = format!("{}\"raw_tokens\": 777777{}", &text[..at], &text[end..]);
    std::fs::write(file, &text).unwrap();
    text
}

/// Typing right after the open, while the workspace checks run.
#[derive(Clone, Copy, Default)]
struct Typed {
    /// The slowest keystroke's time to its publication, and the median's.
    slowest_ms: f64,
    median_ms: f64,
    /// From the last keystroke's publication to the workspace diagnostics.
    workspace_after_ms: f64,
}

/// How long the typing goes on after the first diagnostics.
const TYPING: Duration = Duration::from_secs(3);

/// Opens the report and types a space and takes it back at its end, every
/// 20 ms for [`TYPING`] from the first diagnostics, each keystroke waited
/// for: what a user typing at once feels while the workspace checks run.
fn typing(binary: &str, folder: &std::path::Path, uri: &str, text: &str, options: &Value) -> Typed {
    let mut editor = Editor::start_in_folders(binary, &[folder], options.clone());
    editor.stop_checking();
    editor.open(uri, text, 1);
    editor.diagnostics(uri);
    let line = text.matches('\n').count();
    let (at, after) = (
        json!({"line": line, "character": 0}),
        json!({"line": line, "character": 1}),
    );
    let mut took = Vec::new();
    let mut workspace = false;
    let started = Instant::now();
    let mut version = 1;
    while started.elapsed() < TYPING {
        version += 1;
        let change = match version % 2 {
            0 => json!([{"range": {"start": at, "end": at}, "text": " "}]),
            _ => json!([{"range": {"start": at, "end": after}, "text": ""}]),
        };
        let sent = Instant::now();
        editor.change(uri, version, change);
        let published = editor.next_matching(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == version
        });
        took.push(sent.elapsed().as_secs_f64() * 1000.0);
        workspace |= published["params"]["diagnostics"]
            .as_array()
            .is_some_and(|d| !d.is_empty());
        std::thread::sleep(Duration::from_millis(20));
    }
    let stopped = Instant::now();
    // Every file it names is missing: the workspace publication is not empty.
    while !workspace {
        let (_, diagnostics) = editor.diagnostics(uri);
        workspace = !diagnostics.is_empty();
    }
    let workspace_after_ms = stopped.elapsed().as_secs_f64() * 1000.0;
    editor.shutdown();
    Typed {
        slowest_ms: took.iter().copied().fold(0.0, f64::max),
        median_ms: median(took),
        workspace_after_ms,
    }
}

/// Opens the report in a new server and waits for its workspace diagnostics.
fn open(
    binary: &str,
    folder: &std::path::Path,
    uri: &str,
    text: &str,
    options: &Value,
    git: bool,
) -> Open {
    let mut editor = Editor::start_in_folders(binary, &[folder], options.clone());
    // Timed here: no checking thread on the cores.
    editor.stop_checking();
    let idle = cpu_ms(editor.pid());
    let frame = Editor::frame(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}}}));
    let started = Instant::now();
    editor.send_frame(&frame);
    drop(frame);
    let mut first = None;
    // Every file it names is missing: the workspace publication is the
    // first that is not empty (the report itself is valid).
    loop {
        let (_, diagnostics) = editor.diagnostics(uri);
        first.get_or_insert(started.elapsed());
        if !diagnostics.is_empty() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no workspace diagnostics"
        );
    }
    let workspace = started.elapsed();
    // In a repository, the comparison with HEAD is part of the open: its
    // lens is waited for (some builds compare after the workspace
    // publication), and the CPU and peak count it. Builds before it
    // (ee158a0) list no such command.
    let compares =
        editor.initialized["result"]["capabilities"]["executeCommandProvider"]["commands"]
            .as_array()
            .is_some_and(|c| c.iter().any(|c| c == "report-lsp.showDiffSinceHead"));
    while git && compares && !compared_with_head(&mut editor, uri) {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no comparison with HEAD"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let figures = Open {
        cpu_ms: cpu_ms(editor.pid()) - idle,
        first_ms: first.unwrap().as_secs_f64() * 1000.0,
        workspace_ms: workspace.as_secs_f64() * 1000.0,
        rss_kb: editor.memory_kb("VmRSS"),
        peak_kb: editor.memory_kb("VmHWM"),
    };
    editor.shutdown();
    figures
}

/// Whether the report's lenses hold the comparison with HEAD.
fn compared_with_head(editor: &mut Editor, uri: &str) -> bool {
    let lenses = editor.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    lenses["result"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|lens| lens["command"]["command"] == "report-lsp.showDiffSinceHead")
}

/// The process's user and system CPU time so far, from /proc.
fn cpu_ms(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's closing parenthesis; utime and stime
    // are the 14th and 15th of the line, in clock ticks.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    // SAFETY: sysconf only reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    ticks * 1000.0 / per_second
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}
