//! How long `report-lsp check` takes to print thousands of problems, by
//! format, on a pretty-printed report, the same report on one line, and ten
//! thousand duplicate keys on one line of 240 KB: one-line reports must not
//! cost more than pretty ones (a long line's window, its column found once).
//!
//! Then `check` of a valid generated report of 1 000, 10 000 and 50 000
//! entries beside its floor: a fresh process (this bench, run again) that
//! reads the file and parses it into a `serde_json::Value`, with and
//! without dropping it.
//!
//! Then `diff` of two generations of a 50 000-entry report (the second
//! shuffled, with 2% of its entries changed, 1% gone and 1% added, written
//! as the first was, then reformatted with its keys sorted), beside
//! `check` of one and a fresh process that reads and parses both, and the
//! comparison alone in this process, on the two analyses.
//!
//! Then `summary` of the same valid reports, as text and HTML and
//! `--since` another generation, beside `check` of each.
//!
//! `cargo bench --bench cli_output` (`REPORT_LSP_BENCH_BIN=path` times
//! another build). Prints the median of 5 runs of each.

#[path = "../tests/common/reports.rs"]
mod reports;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// Run again by itself as the floor: `--floor FILE drop|exit`, and
/// `--floor-pair OLD NEW` for `diff`'s. The only
/// programs this bench starts are this bench and the report-lsp under test,
/// by their own paths: nothing a repository, its git config or a report
/// names. (It is no part of what ships: `tests/architecture.rs` forbids
/// starting processes in `src/` and the core.)
const FLOOR: &str = "--floor";
/// `--floor-pair OLD NEW`: both read and parsed, one after the other.
const FLOOR_PAIR: &str = "--floor-pair";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, file, end] = &args[..]
        && flag == FLOOR
    {
        let text = std::fs::read_to_string(file).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        if end == "exit" {
            std::process::exit(i32::from(value.is_null()));
        }
        drop(value);
        return;
    }
    if let [_, flag, old, new] = &args[..]
        && flag == FLOOR_PAIR
    {
        for file in [old, new] {
            let text = std::fs::read_to_string(file).unwrap();
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            drop(value);
        }
        return;
    }
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    let dir = tempfile::tempdir().unwrap();
    let files = [
        ("pretty", reports::many_errors_report(3_000, false)),
        ("one_line", reports::many_errors_report(3_000, true)),
        ("duplicate_keys", reports::duplicate_keys_report(10_000)),
    ];
    for (name, text) in &files {
        std::fs::write(dir.path().join(format!("{name}.report.json")), text).unwrap();
    }
    for (name, _) in &files {
        let [human, json] =
            ["human", "json"].map(|format| median(&binary, dir.path(), name, format));
        println!(
            "cli_output report={name} human={human:.1}ms json={json:.1}ms human_over_json={:.2}",
            human / json
        );
    }
    check_beside_the_floor(&binary, dir.path());
    summary_beside_check(&binary, dir.path());
    diff_beside_the_floor(&binary, dir.path());
}

/// `summary` of the valid reports `check_beside_the_floor` wrote, as text
/// and as HTML (its size too), beside `check` of the same file in the same
/// run; at 50 000 entries also `--since` the 1 000-entry report's
/// generation (a second file read and compared).
fn summary_beside_check(binary: &str, dir: &Path) {
    for entries in [1_000, 10_000, 50_000] {
        let file = dir.join(format!("valid_{entries}.report.json"));
        let run = |args: &[&str]| {
            median_of(5, || {
                let mut command = Command::new(binary);
                command.args(args).arg(&file);
                command.stdout(Stdio::null());
                (command, Some(0))
            })
        };
        let check = run(&["check", "--color", "never"]);
        let text = run(&["summary"]);
        let html = run(&["summary", "--format", "html"]);
        let page = Command::new(binary)
            .args(["summary", "--format", "html"])
            .arg(&file)
            .output()
            .unwrap()
            .stdout
            .len();
        let since = dir.join("valid_1000.report.json");
        let since = run(&["summary", "--since", since.to_str().unwrap()]);
        println!(
            "cli_summary entries={entries} check={check:.1}ms summary_text={text:.1}ms summary_html={html:.1}ms summary_since_1k={since:.1}ms html_bytes={page} summary_over_check={:.2}",
            text / check
        );
    }
}

/// `check` of a valid report of each size, beside a fresh process that
/// reads and parses it (the median of 5 each).
fn check_beside_the_floor(binary: &str, dir: &Path) {
    for entries in [1_000, 10_000, 50_000] {
        let text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
            entries,
            seed: 1,
            violation_every: 0,
        });
        let file = dir.join(format!("valid_{entries}.report.json"));
        std::fs::write(&file, &text).unwrap();
        let check = median_of(5, || {
            let mut command = Command::new(binary);
            command.args(["check", "--color", "never"]).arg(&file);
            command.stdout(Stdio::null());
            (command, Some(0))
        });
        let floor = |end: &'static str| {
            median_of(5, || {
                let mut command = Command::new(std::env::current_exe().unwrap());
                command.args([FLOOR, file.to_str().unwrap(), end]);
                command.stdout(Stdio::null());
                (command, Some(0))
            })
        };
        let (exit, dropped) = (floor("exit"), floor("drop"));
        println!(
            "cli_check entries={entries} size={:.1}MB check={check:.1}ms floor_read_parse={exit:.1}ms floor_read_parse_drop={dropped:.1}ms check_over_floor={:.2}",
            text.len() as f64 / 1e6,
            check / exit
        );
    }
}

/// The second generation as the same writer would write it: the first's
/// entry texts shuffled, 1% gone, 1% copied under new paths, every 50th
/// with another `raw_tokens`.
fn next_generation_same_writer(old_text: &str, entries: usize) -> String {
    let parse = report_core::syntax::parse(old_text);
    let root = parse.root().unwrap();
    let items: Vec<_> = root.get("entries").unwrap().items().unwrap().collect();
    let (start, end) = (items[0].range().start, items[items.len() - 1].range().end);
    let mut texts: Vec<String> = items
        .iter()
        .map(|item| old_text[item.range().as_range()].to_string())
        .collect();
    let mut rng = fastrand::Rng::with_seed(7);
    rng.shuffle(&mut texts);
    texts.truncate(entries - entries / 100);
    for text in texts.iter_mut().step_by(50) {
        let at = text.find("\"raw_tokens\": ").unwrap() + "\"raw_tokens\": ".len();
        let digits = text[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
        text.replace_range(at..at + digits, &rng.u32(1..5000).to_string());
    }
    let added: Vec<String> = texts[..entries / 100]
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let at = text.find("\"path\": \"").unwrap() + "\"path\": \"".len();
            let close = at + text[at..].find('"').unwrap();
            let mut text = text.clone();
            text.replace_range(at..close, &format!("docs/added-{i}.md"));
            text
        })
        .collect();
    texts.extend(added);
    let separator = &old_text[items[0].range().end..items[1].range().start];
    format!(
        "{}{}{}",
        &old_text[..start],
        texts.join(separator),
        &old_text[end..]
    )
}

/// The same changes through `serde_json`: every object's keys sorted, so
/// no entry is written as before (a writer that changed its layout).
fn next_generation_reformatted(old_text: &str, entries: usize) -> String {
    let mut report: serde_json::Value = serde_json::from_str(old_text).unwrap();
    let list = report["entries"].as_array_mut().unwrap();
    let mut rng = fastrand::Rng::with_seed(7);
    rng.shuffle(list);
    list.truncate(entries - entries / 100);
    for entry in list.iter_mut().step_by(50) {
        entry["token_estimate"]["raw_tokens"] = serde_json::json!(rng.u32(1..5000));
    }
    let added: Vec<serde_json::Value> = list[..entries / 100]
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut e = e.clone();
            e["path"] = serde_json::json!(format!("docs/added-{i}.md"));
            e
        })
        .collect();
    list.extend(added);
    serde_json::to_string_pretty(&report).unwrap()
}

/// `diff` of two generations of 50 000 entries beside `check` of the new
/// one, both files read and parsed, and the comparison alone; the second
/// generation written by the same writer, then reformatted.
fn diff_beside_the_floor(binary: &str, dir: &Path) {
    let entries = 50_000;
    let old_text = report_core::generate::generate_report(report_core::generate::GenerateOptions {
        entries,
        seed: 1,
        violation_every: 0,
    });
    let old_file = dir.join("old_50000.json");
    std::fs::write(&old_file, &old_text).unwrap();
    let old = report_core::analyze(&old_text);
    let generations = [
        (
            "same_writer",
            next_generation_same_writer(&old_text, entries),
        ),
        (
            "reformatted",
            next_generation_reformatted(&old_text, entries),
        ),
    ];
    for (name, new_text) in generations {
        let new_file = dir.join(format!("new_50000_{name}.json"));
        std::fs::write(&new_file, &new_text).unwrap();
        let diff = median_of(5, || {
            let mut command = Command::new(binary);
            command
                .args(["diff", "--format", "json"])
                .args([&old_file, &new_file]);
            command.stdout(Stdio::null());
            (command, Some(0))
        });
        let check = median_of(5, || {
            let mut command = Command::new(binary);
            command.args(["check", "--color", "never"]).arg(&new_file);
            command.stdout(Stdio::null());
            // The added entries' paths are not in the shortlist.
            (command, Some(1))
        });
        let floor = median_of(5, || {
            let mut command = Command::new(std::env::current_exe().unwrap());
            command.arg(FLOOR_PAIR).args([&old_file, &new_file]);
            (command, Some(0))
        });
        let new = report_core::analyze(&new_text);
        let mut alone: Vec<f64> = (0..5)
            .map(|_| {
                let started = Instant::now();
                let diff = report_core::report_diff::diff(&old, &new).unwrap();
                let elapsed = started.elapsed().as_secs_f64() * 1000.0;
                assert_eq!(diff.entries.added.len(), entries / 100);
                assert_eq!(diff.entries.gone.len(), entries / 100);
                elapsed
            })
            .collect();
        alone.sort_by(|a, b| a.total_cmp(b));
        println!(
            "cli_diff entries={entries} new={name} sizes={:.1}+{:.1}MB diff={diff:.1}ms check_new={check:.1}ms floor_read_parse_both={floor:.1}ms compare_alone={:.1}ms diff_over_floor={:.2}",
            old_text.len() as f64 / 1e6,
            new_text.len() as f64 / 1e6,
            alone[alone.len() / 2],
            diff / floor
        );
    }
}

/// The median milliseconds of `runs` runs of the command `make` gives,
/// which must exit with the code it gives.
fn median_of(runs: usize, make: impl Fn() -> (Command, Option<i32>)) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let (mut command, code) = make();
            command.stderr(Stdio::null());
            let started = Instant::now();
            let status = command.status().unwrap();
            let elapsed = started.elapsed().as_secs_f64() * 1000.0;
            assert_eq!(status.code(), code, "{command:?}");
            elapsed
        })
        .collect();
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}

/// The median milliseconds of 5 checks of `name` in `format`, written to a file.
fn median(binary: &str, dir: &Path, name: &str, format: &str) -> f64 {
    median_of(5, || {
        let out = std::fs::File::create(dir.join("out.txt")).unwrap();
        let mut command = Command::new(binary);
        command
            .current_dir(dir)
            .args(["check", "--color", "never", "--format", format])
            .arg(format!("{name}.report.json"))
            .stdout(out);
        // Each is invalid.
        (command, Some(1))
    })
}
