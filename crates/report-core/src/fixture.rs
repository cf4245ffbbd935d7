//! Test fixtures: a small report around one entry, `$0` cursor markers,
//! and runners for the jobs the core hands a caller with threads.

use crate::parallel::RunAll;

/// Runs the jobs in reverse order, one after the other: a join must not
/// depend on when each job ran.
pub struct Backwards;

impl RunAll for Backwards {
    fn run_all<'s>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 's>>) {
        for job in jobs.into_iter().rev() {
            job();
        }
    }
}

/// Runs each job on a thread of its own, as a caller with threads does,
/// and resumes the first panic with its own payload (as rayon does).
pub struct OnThreads;

impl RunAll for OnThreads {
    fn run_all<'s>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 's>>) {
        let panics: Vec<_> = std::thread::scope(|scope| {
            let running: Vec<_> = jobs.into_iter().map(|job| scope.spawn(job)).collect();
            running.into_iter().filter_map(|t| t.join().err()).collect()
        });
        if let Some(payload) = panics.into_iter().next() {
            std::panic::resume_unwind(payload);
        }
    }
}

/// Runs the jobs in order, one after the other.
pub struct InOrder;

impl RunAll for InOrder {
    fn run_all<'s>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 's>>) {
        for job in jobs {
            job();
        }
    }
}

/// Removes the `$0` marker from `text` and returns the text and its offset.
pub fn cursor(text: &str) -> (String, usize) {
    let offset = text.find("$0").expect("a $0 cursor marker");
    (text.replacen("$0", "", 1), offset)
}

/// A valid envelope whose only entry is `entry` (a JSON object text) for `docs/a.md`.
pub fn report_with_entry(entry: &str) -> String {
    format!(
        r#"{{
  "schema_version": "1",
  "tool_version": "t",
  "generated_at": "2026-11-29T18:42:07Z",
  "scan": {{"project_root": "/p", "scope_globs": [], "excluded_dirs": [], "files_scanned": 1}},
  "shortlist": ["docs/a.md"],
  "entries": [
    {entry}
  ],
  "promotion_candidates": []
}}
"#
    )
}

/// Every fix offered at the `$0` cursor of `text`, applied: the title and
/// the lines that changed (from the first changed line to the last).
pub fn fixes_at(text: &str) -> String {
    let (text, offset) = cursor(text);
    let analysis = crate::analyze(&text);
    let mut out = String::new();
    for diagnostic in analysis
        .diagnostics
        .iter()
        .filter(|d| d.range.touches(offset))
    {
        let Some(fix) = &diagnostic.fix else {
            continue;
        };
        let fixed = crate::fix::apply(&text, &fix.edits).expect("a fix applies");
        out.push_str(&format!(
            "{} ({})\n{}",
            fix.title,
            diagnostic.code,
            changed_lines(&text, &fixed)
        ));
    }
    out
}

fn changed_lines(before: &str, after: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    let top = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let bottom = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let end = b.len().saturating_sub(bottom).max(top);
    b[top..end].iter().map(|l| format!("{l}\n")).collect()
}
