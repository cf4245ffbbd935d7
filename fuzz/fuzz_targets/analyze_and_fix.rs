//! Arbitrary bytes through parse + validate + every fix + fix-all + hover:
//! nothing panics, every fix applies, and fix-all is idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let analysis = report_core::analyze_bytes(data.to_vec());
    let text: &str = &analysis.text;
    for diagnostic in &analysis.diagnostics {
        assert!(diagnostic.range.end <= text.len());
        if let Some(fix) = &diagnostic.fix {
            let fixed =
                report_core::fix::apply(text, &fix.edits).expect("a fix applies to its own text");
            let _ = report_core::analyze(&fixed);
        }
    }
    for offset in [0, text.len() / 2, text.len()] {
        let mut offset = offset;
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let _ = report_core::hover::hover(&analysis, offset);
    }
    if let Some(fixed) = report_core::fix_all::fix_all(text) {
        assert_eq!(
            report_core::fix_all::fix_all(&fixed),
            None,
            "fix-all is idempotent"
        );
    }
});
