//! `report-lsp explain CODE`: the invariant behind a code, in the words of
//! `invariants.md`, with a failing and a passing example taken from the
//! golden examples (built into the binary).

use std::io::{self, Write};

use report_core::diagnostic::Code;

use super::{EXIT_OK, EXIT_USAGE_OR_IO};

mod golden {
    include!(concat!(env!("OUT_DIR"), "/golden_examples.rs"));
}

/// Runs `explain CODE`, writing the explanation to `out`.
pub fn run_explain(code: &str, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let Some(code) = Code::parse(code.trim()) else {
        let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let _ = writeln!(
            err,
            "report-lsp: no diagnostic code `{code}`; the codes are: {}",
            known.join(", ")
        );
        return EXIT_USAGE_OR_IO;
    };
    let text = report_core::docs::explain_with_examples(code, golden::INVALID, &golden::VALID);
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        // `explain CODE | head` is fine.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(_) => EXIT_USAGE_OR_IO,
    }
}
