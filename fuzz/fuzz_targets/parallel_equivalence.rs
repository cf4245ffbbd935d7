//! Arbitrary text parsed in pieces, as `check` parses a large report on
//! every core: the tree and the errors are exactly those of one parse in
//! order, whatever the pieces (cut wherever the text seems to allow, down
//! to a byte) and whoever parses them: the document's parser reading on in
//! order, or helpers parsing them apart. The first two bytes choose how
//! many pieces and how small, and the first one's top bit which; the rest
//! is the text.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use report_core::RunAll;
use report_core::syntax::{parse_shared, parse_split};

/// The jobs one after the other, the last first when `backwards`: the
/// helpers then parse every piece apart, else the parser reads them all.
struct InTurn {
    backwards: bool,
}

impl RunAll for InTurn {
    fn run_all<'s>(&self, mut jobs: Vec<Box<dyn FnOnce() + Send + 's>>) {
        if self.backwards {
            jobs.reverse();
        }
        for job in jobs {
            job();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [pieces, min, text @ ..] = data else {
        return;
    };
    let text = Arc::new(String::from_utf8_lossy(text).into_owned());
    let runner = InTurn {
        backwards: *pieces & 0x80 != 0,
    };
    let pieces = 2 + usize::from(*pieces % 16);
    let min = 1 + usize::from(*min);
    let whole = parse_shared(text.clone());
    let split = parse_split(text, &runner, pieces, min);
    assert_eq!(split.errors, whole.errors);
    assert!(split == whole, "another tree in {pieces} pieces of {min}+ bytes");
});
