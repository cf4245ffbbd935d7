//! Writes a generated report to stdout:
//! `cargo run --release -p report-gen -- --entries 10000 [--seed 1] [--violation-every 0]`.
//! It depends on the core alone, so a fresh clone builds it in well under a minute.

use report_core::generate::{GenerateOptions, generate_report};

fn main() {
    let mut options = GenerateOptions {
        entries: 1000,
        seed: 1,
        violation_every: 0,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let value = pair
            .get(1)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{} needs a number", pair[0]));
        match pair[0].as_str() {
            "--entries" => options.entries = value as usize,
            "--seed" => options.seed = value,
            "--violation-every" => options.violation_every = value as usize,
            other => panic!("unknown option {other}"),
        }
    }
    print!("{}", generate_report(options));
}
