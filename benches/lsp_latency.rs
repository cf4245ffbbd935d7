//! End-to-end latency of the real server, driven over stdio as an editor
//! does: time to the first diagnostics after didOpen, then one-character
//! incremental edits in the middle of the report, each timed from didChange
//! to the publishDiagnostics of its version; and the server's peak memory.
//!
//! `cargo bench --bench lsp_latency -- [ENTRIES...] [--violation-every N]`
//! (default 10000 entries, a valid report; with `--violation-every 5`, one
//! entry in five has a violation, 10 000 of them at 50 000 entries).
//! `REPORT_LSP_BENCH_BIN=path` drives that binary instead of this build's.
//! Then each edit kind of issue 12 (entries inserted, deleted, pasted; the
//! envelope; the shortlist; JSON broken and repaired, in a middle entry and
//! in the last; a whole-document replace), each timed from didChange to its
//! publication, `REPS` times, beside the floor (a `serde_json::Value` parse
//! of the same text) measured in the same run.

#[path = "../tests/common/editor.rs"]
mod editor;

use std::time::Instant;

use editor::Editor;
use report_core::generate::{GenerateOptions, generate_report};
use serde_json::{Value, json};

const EDITS: usize = 50;
const REPS: usize = 7;
const URI: &str = "file:///bench/huge.report.json";

/// Run again by itself to read a frame and drop it: `--drain`, the floor of
/// the transfer in [`open_phases`]. The only programs this bench starts are
/// itself (by `current_exe`) and the server under test (this build's, or
/// the one `REPORT_LSP_BENCH_BIN` names on the developer's command line):
/// nothing a repository, its git config or a report names. It is no part
/// of what ships (`tests/architecture.rs` forbids starting processes in
/// `src/` and the core).
const DRAIN: &str = "--drain";

fn main() {
    if std::env::args().nth(1).as_deref() == Some(DRAIN) {
        let mut sink = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut sink).unwrap();
        return;
    }
    let mut args = std::env::args().skip(1);
    let (mut sizes, mut violation_every) = (Vec::new(), 0);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--violation-every" => {
                violation_every = args.next().and_then(|n| n.parse().ok()).unwrap_or(0)
            }
            // cargo bench passes `--bench`; other flags are not ours.
            _ => sizes.extend(arg.parse::<usize>().ok()),
        }
    }
    let sizes = if sizes.is_empty() {
        vec![10_000]
    } else {
        sizes
    };
    for entries in sizes {
        run(entries, violation_every);
    }
}

fn run(entries: usize, violation_every: usize) {
    let text = generate_report(GenerateOptions {
        entries,
        seed: 1,
        violation_every,
    });
    // REPORT_LSP_BENCH_BIN times another build (a previous commit's) side by side.
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    let (mut editor, first, diagnostics) = open_in_a_new_server(&binary, &text);
    let peak_after_open_kb = editor.memory_kb("VmHWM");
    let published = diagnostics.len();
    assert_eq!(
        published == 0,
        violation_every == 0,
        "{published} diagnostics"
    );

    // A signals string near the middle: typing inside it keeps the report valid.
    let lines: Vec<&str> = text.lines().collect();
    let line = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].contains("\"signals\": [\""))
        .unwrap();
    let start_column = lines[line].find("[\"").unwrap() + 2;
    let mut latencies = Vec::with_capacity(EDITS);
    for i in 0..EDITS {
        let version = 2 + i as i64;
        let column = start_column + i;
        let at = json!({"line": line, "character": column});
        let sent = Instant::now();
        editor.change(
            URI,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "x"}]),
        );
        loop {
            let (v, diagnostics) = editor.diagnostics(URI);
            if v == Some(version) {
                assert_eq!(diagnostics.len(), published);
                break;
            }
        }
        latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    // A burst: 20 keystrokes sent without waiting, timed from the last to
    // the publication of its version.
    let burst_start = start_column + EDITS;
    let mut version = 2 + EDITS as i64;
    let mut sent = Instant::now();
    for i in 0..20 {
        version += 1;
        let at = json!({"line": line, "character": burst_start + i});
        sent = Instant::now();
        editor.change(
            URI,
            version,
            json!([{"range": {"start": at, "end": at}, "text": "y"}]),
        );
    }
    loop {
        let (v, _) = editor.diagnostics(URI);
        if v == Some(version) {
            break;
        }
    }
    let burst = sent.elapsed().as_secs_f64() * 1000.0;
    let mut kinds = edit_kinds(&mut editor, &text, lines.len() / 2, &mut version);
    let peak_before_replace_kb = editor.memory_kb("VmHWM");
    let (replaces, replace_peaks_kb) = whole_replaces(&mut editor, &text, &mut version);
    kinds.extend(replaces);
    let (generations, generation_peak_kb) =
        new_generations(&mut editor, &text, entries, violation_every, &mut version);
    let generation_median = median(generations);
    // The peak was started again for each replace: the session's is the largest.
    let peak_kb = (replace_peaks_kb.iter().copied())
        .chain([generation_peak_kb])
        .chain([editor.memory_kb("VmHWM"), peak_before_replace_kb])
        .max()
        .unwrap_or(0);
    editor.shutdown();
    // The open is timed twice more, each in a server of its own: one
    // sample of a 0.4 s open varies by ±10 % here.
    let mut opens = vec![first.as_secs_f64() * 1000.0];
    for _ in 0..2 {
        let (editor, time, _) = open_in_a_new_server(&binary, &text);
        editor.shutdown();
        opens.push(time.as_secs_f64() * 1000.0);
    }
    let runs = format!("{:.0}/{:.0}/{:.0}", opens[0], opens[1], opens[2]);
    let open = median(opens);
    // The floor: parsing the text into a `serde_json::Value` and dropping
    // it; the parse alone is printed beside it.
    let (parses, floors): (Vec<f64>, Vec<f64>) = (0..5)
        .map(|_| {
            let started = Instant::now();
            let value: Value = serde_json::from_str(&text).unwrap();
            let parsed = started.elapsed().as_secs_f64() * 1000.0;
            drop(value);
            (parsed, started.elapsed().as_secs_f64() * 1000.0)
        })
        .unzip();
    let (floor, parse_floor) = (median(floors), median(parses));
    println!("lsp_floor entries={entries} parse={parse_floor:.1}ms parse_and_drop={floor:.1}ms");
    // Not for another build's binary: the phases are this build's code.
    if std::env::var_os("REPORT_LSP_BENCH_BIN").is_none() {
        open_phases(entries, &text);
    }
    beside_a_big_analysis(entries, &text, violation_every);
    for (kind, mut times) in kinds {
        times.sort_by(|a, b| a.total_cmp(b));
        let median = times[times.len() / 2];
        let p95 = times[(times.len() * 95).div_ceil(100) - 1];
        println!(
            "lsp_edit entries={entries} kind={kind} median={median:.2}ms p95={p95:.2}ms floor={floor:.1}ms median_ratio={:.3} p95_ratio={:.3}",
            median / floor,
            p95 / floor
        );
    }

    latencies.sort_by(|a, b| a.total_cmp(b));
    let median = latencies[latencies.len() / 2];
    let p95 = latencies[(latencies.len() * 95).div_ceil(100) - 1];
    println!(
        "lsp_latency entries={entries} size={:.1}MB published={published} first_diagnostics={open:.1}ms ({runs}) open_ratio={:.2} keystroke_median={median:.2}ms keystroke_p95={p95:.2}ms burst_last_to_final={burst:.1}ms new_generation_median={:.1}ms peak_rss_after_open={:.0}MiB peak_rss_before_replace={:.0}MiB peak_rss_in_replace={:.0}MiB peak_rss_in_ranged_replace={:.0}MiB peak_rss_in_new_generation={:.0}MiB peak_rss={:.0}MiB",
        text.len() as f64 / 1e6,
        open / floor,
        generation_median,
        peak_after_open_kb as f64 / 1024.0,
        peak_before_replace_kb as f64 / 1024.0,
        replace_peaks_kb[0] as f64 / 1024.0,
        replace_peaks_kb[1] as f64 / 1024.0,
        generation_peak_kb as f64 / 1024.0,
        peak_kb as f64 / 1024.0
    );
}

/// Sends `changes` as the next version and waits for its publication: the
/// milliseconds from the write of its frame (encoded before, so that a
/// 40 MB text's encoding by the editor is not counted as the server's time).
fn timed(editor: &mut Editor, version: &mut i64, changes: Value) -> f64 {
    *version += 1;
    let frame = Editor::frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": URI, "version": *version}, "contentChanges": changes}}),
    );
    let sent = Instant::now();
    editor.send_frame(&frame);
    loop {
        let (v, _) = editor.diagnostics(URI);
        if v == Some(*version) {
            return sent.elapsed().as_secs_f64() * 1000.0;
        }
    }
}

fn pos(line: usize, character: usize) -> Value {
    json!({"line": line, "character": character})
}

fn replace(start: Value, end: Value, text: &str) -> Value {
    json!([{"range": {"start": start, "end": end}, "text": text}])
}

/// A new server given `text` in a didOpen: it, the time from the write of
/// the frame (the editor's own encoding of 40 MB is not the server's time)
/// to the first publication, and what was published.
fn open_in_a_new_server(binary: &str, text: &str) -> (Editor, std::time::Duration, Vec<Value>) {
    let mut editor = Editor::start_with(binary, &["utf-16"], &[], Value::Null);
    // Timed here: no checking thread on the cores (the tests check the messages).
    editor.stop_checking();
    let open = Editor::frame(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text}}}));
    let started = Instant::now();
    editor.send_frame(&open);
    drop(open);
    let (_, diagnostics) = editor.diagnostics(URI);
    (editor, started.elapsed(), diagnostics)
}

/// A small report's keystroke while the big one is analysed whole (its
/// text replaced by another generation, `REPS` times): the milliseconds
/// from the small one's change to its publication, beside the big one's
/// analysis from its replace to its publication. The property the test
/// `a_big_documents_analysis_does_not_delay_a_small_ones_diagnostics`
/// holds by structure (a thread each), measured.
fn beside_a_big_analysis(entries: usize, text: &str, violation_every: usize) {
    const SMALL: &str = "file:///bench/small.report.json";
    let binary = std::env::var("REPORT_LSP_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_report-lsp").to_string());
    let (mut editor, _, _) = open_in_a_new_server(&binary, text);
    let small = generate_report(GenerateOptions {
        entries: 3,
        seed: 5,
        violation_every: 0,
    });
    editor.open(SMALL, &small, 1);
    editor.diagnostics(SMALL);
    let other = generate_report(GenerateOptions {
        entries,
        seed: 43,
        violation_every,
    });
    let (mut smalls, mut bigs) = (Vec::new(), Vec::new());
    for rep in 0..REPS as i64 {
        let next = if rep % 2 == 0 { &other } else { text };
        let replace = Editor::frame(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": URI, "version": rep + 2}, "contentChanges": [{"text": next}]}}),
        );
        let typed = replace_at(pos(0, 1), " ");
        let sent = Instant::now();
        editor.send_frame(&replace);
        editor.change(SMALL, rep + 2, typed);
        let (mut small_at, mut big_at) = (None, None);
        while small_at.is_none() || big_at.is_none() {
            let published =
                editor.next_matching(|m| m["method"] == "textDocument/publishDiagnostics");
            let (uri, version) = (&published["params"]["uri"], &published["params"]["version"]);
            let at = Some(sent.elapsed().as_secs_f64() * 1000.0);
            if uri == SMALL && version == rep + 2 {
                small_at = at;
            } else if uri == URI && version == rep + 2 {
                big_at = at;
            }
        }
        smalls.push(small_at.unwrap());
        bigs.push(big_at.unwrap());
    }
    println!(
        "lsp_beside_big entries={entries} small_keystroke_median={:.2}ms big_replace_median={:.1}ms",
        median(smalls),
        median(bigs)
    );
    editor.shutdown();
}

fn replace_at(at: Value, text: &str) -> Value {
    replace(at.clone(), at, text)
}

/// Each edit kind, `REPS` times, each followed by its undo (timed too).
fn edit_kinds(
    editor: &mut Editor,
    text: &str,
    middle: usize,
    version: &mut i64,
) -> Vec<(&'static str, Vec<f64>)> {
    let lines: Vec<&str> = text.lines().collect();
    // An entry near the middle: its first line (`    {`) and its last (`    },`).
    let first = (middle..lines.len())
        .find(|&i| lines[i] == "    {")
        .unwrap();
    let last = (first..lines.len())
        .find(|&i| lines[i] == "    },")
        .unwrap();
    let entry: String = lines[first..=last]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    let hundred = entry.repeat(100);
    let path_line = entry
        .lines()
        .find(|l| l.trim_start().starts_with("\"path\": "))
        .unwrap();
    let stray = entry.replacen(
        path_line,
        "      \"path\": \"docs/not-in-the-shortlist.md\",",
        1,
    );
    let generated = lines
        .iter()
        .position(|l| l.contains("\"generated_at\""))
        .unwrap();
    let digit = lines[generated].find("T18").unwrap() - 1;
    let shortlist = lines
        .iter()
        .position(|l| l.contains("\"shortlist\": ["))
        .unwrap()
        + 1;
    let mut kinds: Vec<(&'static str, Vec<f64>)> = Vec::new();
    let record = |kinds: &mut Vec<(&'static str, Vec<f64>)>, kind, ms| match kinds
        .iter_mut()
        .find(|(k, _)| *k == kind)
    {
        Some((_, times)) => times.push(ms),
        None => kinds.push((kind, vec![ms])),
    };
    let height = last + 1 - first;
    let entries_line = lines
        .iter()
        .position(|l| l.contains("\"entries\": ["))
        .unwrap();
    let last_entry_end = (entries_line..lines.len())
        .find(|&i| lines[i] == "  ],")
        .unwrap()
        - 1;
    assert_eq!(lines[last_entry_end], "    }");
    for _ in 0..REPS {
        let ms = timed(
            editor,
            version,
            replace(pos(first, 0), pos(first, 0), &entry),
        );
        record(&mut kinds, "insert_entry", ms);
        let ms = timed(
            editor,
            version,
            replace(pos(first, 0), pos(first + height, 0), ""),
        );
        record(&mut kinds, "delete_entry", ms);
        // A copy whose path the shortlist lacks: it gains a membership error.
        let ms = timed(
            editor,
            version,
            replace(pos(first, 0), pos(first, 0), &stray),
        );
        record(&mut kinds, "insert_entry_not_in_shortlist", ms);
        let ms = timed(
            editor,
            version,
            replace(pos(first, 0), pos(first + height, 0), ""),
        );
        record(&mut kinds, "delete_entry_not_in_shortlist", ms);
        let ms = timed(
            editor,
            version,
            replace(pos(first, 0), pos(first, 0), &hundred),
        );
        record(&mut kinds, "paste_100_entries", ms);
        let ms = timed(
            editor,
            version,
            replace(pos(first, 0), pos(first + 100 * height, 0), ""),
        );
        record(&mut kinds, "delete_100_entries", ms);
        let d = pos(generated, digit);
        let ms = timed(
            editor,
            version,
            replace(d.clone(), pos(generated, digit + 1), "9"),
        );
        record(&mut kinds, "change_generated_at", ms);
        let original = &lines[generated][digit..digit + 1];
        timed(
            editor,
            version,
            replace(d, pos(generated, digit + 1), original),
        );
        let at = pos(shortlist, 0);
        let ms = timed(
            editor,
            version,
            replace(at.clone(), at, "    \"docs/added.md\",\n"),
        );
        record(&mut kinds, "add_shortlist_path", ms);
        let ms = timed(
            editor,
            version,
            replace(pos(shortlist, 0), pos(shortlist + 1, 0), ""),
        );
        record(&mut kinds, "remove_shortlist_path", ms);
        let brace = pos(last, 4);
        let ms = timed(editor, version, replace(brace.clone(), pos(last, 5), ""));
        record(&mut kinds, "break_json", ms);
        let ms = timed(editor, version, replace(brace.clone(), brace, "}"));
        record(&mut kinds, "repair_json", ms);
        // The last entry's `}`, which the array's `]` then closes.
        let brace = pos(last_entry_end, 4);
        let ms = timed(
            editor,
            version,
            replace(brace.clone(), pos(last_entry_end, 5), ""),
        );
        record(&mut kinds, "break_json_last_entry", ms);
        let ms = timed(editor, version, replace(brace.clone(), brace, "}"));
        record(&mut kinds, "repair_json_last_entry", ms);
    }
    kinds
}

/// The whole text sent again, 3 times each: without a range (what
/// formatters send) and with one over all of it (a select-all and paste).
/// The whole text sent again, without a range and then with one; beside
/// the times, each kind's own peak RSS (the peak started again before it).
fn whole_replaces(
    editor: &mut Editor,
    text: &str,
    version: &mut i64,
) -> (Vec<(&'static str, Vec<f64>)>, [u64; 2]) {
    editor.reset_peak_memory();
    let times = (0..3)
        .map(|_| timed(editor, version, json!([{"text": text}])))
        .collect();
    let peak_kb = editor.memory_kb("VmHWM");
    let last_line = text.rsplit('\n').next().unwrap_or("");
    let end = pos(text.matches('\n').count(), last_line.encode_utf16().count());
    editor.reset_peak_memory();
    let ranged = (0..3)
        .map(|_| timed(editor, version, replace(pos(0, 0), end.clone(), text)))
        .collect();
    let ranged_peak_kb = editor.memory_kb("VmHWM");
    let kinds = vec![
        ("replace_whole_identical", times),
        ("replace_whole_identical_with_range", ranged),
    ];
    (kinds, [peak_kb, ranged_peak_kb])
}

/// The report written again (another generation, its text new over most of
/// its length) and reloaded by the editor as one whole text, then the first
/// again, twice: the milliseconds to each publication, and the peak RSS.
fn new_generations(
    editor: &mut Editor,
    text: &str,
    entries: usize,
    violation_every: usize,
    version: &mut i64,
) -> (Vec<f64>, u64) {
    let other = generate_report(GenerateOptions {
        entries,
        seed: 2,
        violation_every,
    });
    editor.reset_peak_memory();
    let times = (0..2)
        .flat_map(|_| [&other, text])
        .map(|new| timed(editor, version, json!([{"text": new}])))
        .collect();
    (times, editor.memory_kb("VmHWM"))
}

/// The open's phases, each timed alone in this process with the server's
/// own code (median of 3): the frame through a pipe to a process that only
/// reads it (this bench, `--drain`: the floor of the transfer), the frame read from memory
/// and decoded by the server's reader, the didOpen params taken out of it,
/// the rope alone, the analysis to a host as the server opens (the parse in
/// pieces on the opening pool, the rope made once the tree is freed) and
/// the host's publication (of a valid report:
/// nothing; `--violation-every` gives it diagnostics; their conversion to
/// the protocol's form is not in it). The end-to-end open is about the
/// pipe, then the decode, then the analysis, then the publication.
fn open_phases(entries: usize, text: &str) {
    use report_core::host::{DocumentHost, HostOptions};
    use report_lsp::lsp::document::{Document, RopeText};
    use report_lsp::lsp::transport::{Incoming, Reader};
    use std::io::Write;
    use std::sync::Arc;

    let frame = Editor::frame(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": URI, "languageId": "json", "version": 1, "text": text}}}));
    let time = |run: &mut dyn FnMut()| {
        let started = Instant::now();
        run();
        started.elapsed().as_secs_f64() * 1000.0
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let options = HostOptions {
        name_matches: true,
        max_document_bytes: usize::MAX,
        max_diagnostics: 1000,
    };
    let (mut pipe, mut decode, mut params, mut rope, mut analysis, mut publication) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..3 {
        // Started before the clock: the transfer, not the process's start.
        let mut drain = std::process::Command::new(std::env::current_exe().unwrap())
            .arg(DRAIN)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("the bench runs itself");
        let mut input = drain.stdin.take();
        pipe.push(time(&mut || {
            input.take().unwrap().write_all(&frame).unwrap();
            drain.wait().unwrap();
        }));
        let mut message = None;
        decode.push(time(&mut || {
            message = runtime.block_on(Reader::new(&frame[..]).next()).unwrap();
        }));
        let Some(Incoming::Request(request)) = message else {
            panic!("the didOpen frame decodes to a notification");
        };
        // Moved out, as the server does: a clone would copy the text.
        let mut request = Some(request);
        let mut opened = None;
        params.push(time(&mut || {
            let (_, _, value) = request.take().unwrap().into_parts();
            let value: tower_lsp_server::ls_types::DidOpenTextDocumentParams =
                serde_json::from_value(value.unwrap()).unwrap();
            opened = Some(Arc::new(value.text_document.text));
        }));
        let whole = opened.unwrap();
        rope.push(time(&mut || drop(Document::new(&whole, 1))));
        // As the server opens: the parse in pieces on the opening pool, the
        // checks here, the rope made once the tree is freed.
        let mut host = None;
        analysis.push(time(&mut || {
            let runner = report_lsp::threads::OnPool(report_lsp::threads::opening_pool());
            host = Some(DocumentHost::open(
                whole.clone(),
                options,
                runner.parse_only(),
                |text| RopeText(ropey::Rope::from_str(text)),
            ))
        }));
        let host = host.unwrap();
        publication.push(time(&mut || {
            std::hint::black_box(host.published().diagnostics.len());
        }));
    }
    println!(
        "lsp_open_phases entries={entries} pipe_to_a_reader={:.1}ms read_and_decode={:.1}ms params={:.1}ms rope={:.1}ms analysis_and_rope={:.1}ms publication={:.2}ms",
        median(pipe),
        median(decode),
        median(params),
        median(rope),
        median(analysis),
        median(publication)
    );
}

/// The middle of `times` (for an even count, the upper of the two middles).
fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(|a, b| a.total_cmp(b));
    times[times.len() / 2]
}
