//! Core benches at 100 to 50 000 entries: parse with positions, validate,
//! the whole analyze, hover at a position, fix-all, and a keystroke of the
//! incremental analysis. Each group also times
//! `serde_json::from_str::<serde_json::Value>` on the same text: the floor.
//!
//! `cargo bench --bench core`

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use report_core::generate::{GenerateOptions, generate_report};

const SIZES: &[usize] = &[100, 1_000, 10_000, 50_000];

fn report(entries: usize, violation_every: usize) -> String {
    generate_report(GenerateOptions {
        entries,
        seed: 1,
        violation_every,
    })
}

/// The text as the server holds it: edits cost the edit, not a copy. The
/// server's own (`report_lsp::lsp::document::RopeText`) is out of reach
/// here: the core depends on no rope, and its benches not on the server.
struct Rope(ropey::Rope);

impl report_core::text::SourceText for Rope {
    fn len(&self) -> usize {
        self.0.len_bytes()
    }

    fn slice(&self, range: report_core::text::TextRange) -> String {
        self.0.byte_slice(range.as_range()).to_string()
    }

    fn whole(&self) -> String {
        self.0.to_string()
    }

    fn chunks(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.0.chunks())
    }

    fn chunks_reversed(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.0.chunks_at_byte(self.0.len_bytes()).0.reversed())
    }

    fn byte(&self, offset: usize) -> u8 {
        self.0.byte(offset)
    }
}

fn options_for_whole() -> report_core::host::HostOptions {
    report_core::host::HostOptions {
        name_matches: true,
        max_document_bytes: usize::MAX,
        max_diagnostics: 100_000,
    }
}

fn benches(c: &mut Criterion) {
    for &entries in SIZES {
        let text = report(entries, 0);
        let mut group = c.benchmark_group(format!("entries_{entries}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        if entries >= 10_000 {
            group.sample_size(10);
        }
        group.bench_function("floor_serde_json_value", |b| {
            b.iter(|| serde_json::from_str::<serde_json::Value>(&text).unwrap())
        });
        group.bench_function("parse", |b| b.iter(|| report_core::syntax::parse(&text)));
        let parse = report_core::syntax::parse(&text);
        let root = parse.root().unwrap();
        group.bench_function("validate", |b| {
            b.iter(|| {
                report_core::validate::validate(&text, root, report_core::diagnostic::Keep::DEFAULT)
            })
        });
        group.bench_function("analyze", |b| b.iter(|| report_core::analyze(&text)));
        let analysis = report_core::analyze(&text);
        let offset = text[text.len() / 2..].find("\"safety_tier\"").unwrap() + text.len() / 2 + 3;
        group.bench_function("derive_and_hover", |b| {
            b.iter(|| report_core::hover::hover(&analysis, offset).unwrap())
        });
        // A character typed into a string of a middle entry and deleted again:
        // two keystrokes, each an edit, an update and the diagnostics.
        let mut incremental = report_core::incremental::Incremental::new(&analysis).unwrap();
        let mut rope = ropey::Rope::from_str(&text);
        let at = text[text.len() / 2..].find("\"signals\": [\"").unwrap() + text.len() / 2 + 13;
        let typed = report_core::text::TextRange::new(at, at + 1);
        group.bench_function("incremental_type_and_delete", |b| {
            b.iter(|| {
                rope.insert_char(rope.byte_to_char(at), 'x');
                assert!(incremental.edit(report_core::text::TextRange::empty(at), 1));
                assert!(incremental.update(|r| rope.byte_slice(r.as_range()).to_string()));
                let typed_diagnostics = incremental.count();
                let char_at = rope.byte_to_char(at);
                rope.remove(char_at..char_at + 1);
                assert!(incremental.edit(typed, 0));
                assert!(incremental.update(|r| rope.byte_slice(r.as_range()).to_string()));
                typed_diagnostics + incremental.count()
            })
        });
        // Editor features through the document host, at a path of a middle entry.
        let host_options = report_core::host::HostOptions {
            name_matches: true,
            max_document_bytes: usize::MAX,
            max_diagnostics: 1000,
        };
        // An opening to the diagnostics it publishes: the analysis of the
        // editor's string, and the rope made from it once the tree is freed,
        // as the server opens (but on one thread). The host's drop is not
        // timed.
        let shared = std::sync::Arc::new(text.clone());
        group.bench_function("host_open_and_publish", |b| {
            b.iter_with_large_drop(|| {
                let host = report_core::host::DocumentHost::open(
                    shared.clone(),
                    host_options,
                    report_core::Threads::OneThread,
                    |text| Rope(ropey::Rope::from_str(text)),
                );
                let published = host.published().diagnostics.len();
                (host, published)
            })
        });
        let host = report_core::host::DocumentHost::new(text.clone(), None, host_options);
        let middle = text.len() / 2;
        let path_at = text[middle..].find("\"path\": \"").unwrap() + middle + 10;
        let op_type_at = text[middle..].find("\"op_type\": \"").unwrap() + middle + 12;
        group.bench_function("host_definition", |b| b.iter(|| host.definition(path_at)));
        group.bench_function("host_completion_op_type", |b| {
            b.iter(|| host.completions(op_type_at))
        });
        group.bench_function("host_completion_path", |b| {
            b.iter(|| host.completions(path_at))
        });
        // Definition's file target and the document links (the whole text).
        group.bench_function("host_file_ref_at", |b| b.iter(|| host.file_ref_at(path_at)));
        let whole = report_core::text::TextRange::new(0, text.len());
        group.bench_function("host_file_refs_whole", |b| b.iter(|| host.file_refs(whole)));
        group.bench_function("host_hover_envelope", |b| b.iter(|| host.hover(5)));
        // Outside the entries: on a shortlist item, between two entries, a root key's completion.
        let shortlist_item = text.find("\"shortlist\": [").unwrap() + 25;
        let between = text[middle..].find("},\n").unwrap() + middle + 2;
        let root_key = text.find("\"generated_at\"").unwrap() + 3;
        group.bench_function("host_hover_shortlist_item", |b| {
            b.iter(|| host.hover(shortlist_item))
        });
        group.bench_function("host_completion_between_entries", |b| {
            b.iter(|| host.completions(between))
        });
        group.bench_function("host_completion_root_key", |b| {
            b.iter(|| host.completions(root_key))
        });
        group.bench_function("host_symbols", |b| b.iter(|| host.symbols()));
        // The reviewer's summary from the host's analysis, and from a whole
        // one (the CLI's), rendered as text.
        let options = report_core::summary::SummaryOptions::default();
        group.bench_function("host_summary", |b| {
            b.iter(|| host.summary(options, None, None))
        });
        let whole = report_core::host::DocumentHost::of_whole(
            report_core::analyze(&text),
            options_for_whole(),
            |t| t.to_string(),
        );
        group.bench_function("whole_summary_text", |b| {
            b.iter(|| {
                let summary = whole.summary(options, None, None).unwrap();
                report_core::summary::render::text(&summary, "r", &|_| String::new())
            })
        });
        // Edits through the host, each with its publication (the capped
        // diagnostics a server sends), then undone: a keystroke in a middle
        // entry, a copy of an entry whose path the shortlist lacks, and a
        // digit of `generated_at`.
        let mut editing = report_core::host::DocumentHost::new(
            Rope(ropey::Rope::from_str(&text)),
            Some(text.clone()),
            host_options,
        );
        let signal = text[middle..].find("\"signals\": [\"").unwrap() + middle + 13;
        let entry_start = text[..middle].rfind("\n    {\n").unwrap() + 1;
        let entry_end = text[entry_start..].find("\n    },\n").unwrap() + entry_start + 8;
        let stray = text[entry_start..entry_end].replacen(
            &text[entry_start..entry_end]
                [..text[entry_start..entry_end].find("\"category\"").unwrap()],
            "    {\n      \"path\": \"docs/not-in-the-shortlist.md\",\n      ",
            1,
        );
        let generated = text.find("\"generated_at\": \"").unwrap() + 17;
        let mut edit_and_publish = |at: usize, removed: usize, inserted: &str| {
            let mut new = editing.text().0.clone();
            let start = new.byte_to_char(at);
            new.remove(start..new.byte_to_char(at + removed));
            new.insert(start, inserted);
            let edit = report_core::text::ByteEdit {
                range: report_core::text::TextRange::new(at, at + removed),
                new_len: inserted.len(),
            };
            editing.update(Rope(new), Some(&[edit]), host_options);
            editing.published().diagnostics.len()
        };
        group.bench_function("host_keystroke_and_publish", |b| {
            b.iter(|| edit_and_publish(signal, 0, "x") + edit_and_publish(signal, 1, ""))
        });
        group.bench_function("host_insert_entry_not_in_shortlist", |b| {
            b.iter(|| {
                edit_and_publish(entry_start, 0, &stray)
                    + edit_and_publish(entry_start, stray.len(), "")
            })
        });
        let digit = text[generated..generated + 1].to_string();
        group.bench_function("host_change_generated_at", |b| {
            b.iter(|| edit_and_publish(generated, 1, "9") + edit_and_publish(generated, 1, &digit))
        });
        let broken = report(entries, 10);
        group.bench_with_input(
            BenchmarkId::new("fix_all", "violation_every_10"),
            &broken,
            |b, t| b.iter(|| report_core::fix_all::fix_all(t)),
        );
        group.finish();
    }
}

criterion_group!(core, benches);
criterion_main!(core);
