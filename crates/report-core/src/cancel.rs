//! Stopping an analysis nobody waits for any more. A caller that may lose
//! interest half-way (the server's search for reports, reading from disk a
//! report the editor is opening meanwhile) hands [`Wanted`] in the
//! analysis options; the parser and the checks ask it now and then, and
//! when it says no the analysis unwinds with [`Cancelled`], as
//! rust-analyzer's queries do, for the caller to catch with [`catch`]. The
//! memory it held goes back before the work the user waits for needs it.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};

/// Asked whether the analysis is still wanted.
#[derive(Clone, Copy)]
pub struct Wanted<'a>(pub &'a (dyn Fn() -> bool + Sync));

impl std::fmt::Debug for Wanted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Wanted(..)")
    }
}

/// The payload an analysis unwinds with when it is no longer wanted.
#[derive(Debug, PartialEq, Eq)]
pub struct Cancelled;

/// How often a pass over a report's entries asks (see [`at_entry`]):
/// a few milliseconds of work between two questions.
const ASK_EVERY_ENTRIES: usize = 256;

/// Asked before the entry at `index` (0-based) of a pass over the
/// entries: every [`ASK_EVERY_ENTRIES`] entries, [`check`].
pub(crate) fn at_entry(index: usize, wanted: Option<Wanted<'_>>) {
    if index % ASK_EVERY_ENTRIES == ASK_EVERY_ENTRIES - 1 {
        check(wanted);
    }
}

/// Unwinds with [`Cancelled`] unless the analysis is still wanted.
pub(crate) fn check(wanted: Option<Wanted<'_>>) {
    if let Some(Wanted(wanted)) = wanted
        && !wanted()
    {
        resume_unwind(Box::new(Cancelled));
    }
}

/// Runs `f`; `Err(Cancelled)` when it was cancelled. Any other panic goes on.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Cancelled> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(value) => Ok(value),
        Err(payload) if payload.is::<Cancelled>() => Err(Cancelled),
        Err(payload) => resume_unwind(payload),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::analysis::{AnalysisOptions, analyze_with};
    use crate::generate::{GenerateOptions, generate_report};

    fn report(entries: usize) -> Arc<String> {
        Arc::new(generate_report(GenerateOptions {
            entries,
            seed: 7,
            violation_every: 5,
        }))
    }

    /// Analyses `text`, wanted for the first `asks` questions only; how
    /// many questions were asked, and the analysis unless it was given up.
    fn analysed(text: &Arc<String>, asks: usize) -> (usize, Result<crate::Analysis, Cancelled>) {
        let asked = AtomicUsize::new(0);
        let still = || asked.fetch_add(1, Ordering::Relaxed) < asks;
        let options = AnalysisOptions {
            wanted: Some(Wanted(&still)),
            ..AnalysisOptions::default()
        };
        let result = catch(|| analyze_with(text.clone(), options));
        (asked.load(Ordering::Relaxed), result)
    }

    #[test]
    fn an_analysis_still_wanted_is_the_same_and_one_given_up_stops_at_the_next_question() {
        let text = report(3000);
        let whole = analyze_with(text.clone(), AnalysisOptions::default());
        let (asked, wanted) = analysed(&text, usize::MAX);
        let wanted = wanted.expect("never given up");
        assert_eq!(wanted.diagnostics, whole.diagnostics);
        assert_eq!(wanted.entries.len(), 3000);
        // The parser asks about every 32 768 tokens, the checks every 256 entries.
        let parser_asks = asked - 3000 / 256;
        assert!(parser_asks >= 4, "{asked} questions");
        // Given up at the first question: the parser's. Then at the checks'.
        for asks in [0, parser_asks] {
            let (asked, given_up) = analysed(&text, asks);
            assert_eq!(given_up.err(), Some(Cancelled));
            assert_eq!(asked, asks + 1, "it stops at the question answered no");
        }
    }

    #[test]
    fn another_panic_is_not_taken_for_a_cancellation() {
        let panicked = std::panic::catch_unwind(|| catch(|| panic!("a bug")));
        let payload = panicked.expect_err("the panic goes on");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"a bug"));
        assert_eq!(catch(|| 7), Ok(7));
    }
}
