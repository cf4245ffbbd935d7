//! Arbitrary text parsed in pieces, as `check` parses a large report on
//! every core: the tree and the errors are exactly those of one parse in
//! order, whatever the pieces (cut wherever the text seems to allow, down
//! to a byte) and in whatever order they run. The first two bytes choose
//! how many pieces and how small; the rest is the text.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use report_core::RunAll;
use report_core::syntax::{parse_shared, parse_split};

/// The jobs one after the other, the last first.
struct Backwards;

impl RunAll for Backwards {
    fn run_all<'s>(&self, jobs: Vec<Box<dyn FnOnce() + Send + 's>>) {
        for job in jobs.into_iter().rev() {
            job();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [pieces, min, text @ ..] = data else {
        return;
    };
    let text = Arc::new(String::from_utf8_lossy(text).into_owned());
    let pieces = 2 + usize::from(*pieces % 16);
    let min = 1 + usize::from(*min);
    let whole = parse_shared(text.clone());
    let split = parse_split(text, &Backwards, pieces, min);
    assert_eq!(split.errors, whole.errors);
    assert!(split == whole, "another tree in {pieces} pieces of {min}+ bytes");
});
