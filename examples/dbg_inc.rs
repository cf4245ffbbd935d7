use report_lsp::*;
use std::time::Instant;
fn main() {
    let mut text = generate::generate_report(generate::GenerateOptions {
        entries: 50000,
        seed: 1,
        violation_every: 5,
    });
    let a = analyze(&text);
    println!("diags {}", a.diagnostics.len());
    let mut inc = incremental::Incremental::from_analysis(a).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let line = (lines.len() / 2..lines.len())
        .find(|&i| lines[i].contains("\"signals\": [\""))
        .unwrap();
    let off: usize = lines[..line].iter().map(|l| l.len() + 1).sum::<usize>()
        + lines[line].find("[\"").unwrap()
        + 2;
    drop(lines);
    for i in 0..5 {
        let t = Instant::now();
        assert!(inc.edit(text::TextRange::empty(off + i), 1));
        let t1 = t.elapsed();
        text.insert(off + i, 'x');
        let t = Instant::now();
        assert!(inc.update(|r| text[r.as_range()].to_string()));
        let t2 = t.elapsed();
        let t = Instant::now();
        let d = inc.diagnostics();
        let t3 = t.elapsed();
        let t = Instant::now();
        let mut chosen = d.clone();
        chosen.sort_by_key(|d| d.severity);
        chosen.truncate(1000);
        chosen.sort_by(|a, b| diagnostic::Diagnostic::order(a, b));
        println!(
            "edit {:?} update {:?} diagnostics {:?} ({}) cap {:?}",
            t1,
            t2,
            t3,
            d.len(),
            t.elapsed()
        );
    }
}
