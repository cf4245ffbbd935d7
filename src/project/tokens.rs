//! Check 8's counting: the spans `raw_tokens` claims, recounted with an
//! offline tokenizer (`tiktoken-rs`, whose encodings are built in). The
//! encoding is built once per process, by the first count, on the thread
//! that makes it (in the server, the workspace thread): a pass with
//! nothing to count does not build it. Counts are cached
//! by the file's sha256 and the span, so a second pass counts nothing.

use std::collections::HashMap;
use std::sync::OnceLock;

use report_core::project_checks::{FileKind, TokenCounts, TokenSpan, WorkspaceFacts, span_text};
use tiktoken_rs::CoreBPE;

/// The encoding recounts use.
pub const ENCODING: &str = "o200k_base";

/// The default tolerance: a recorded count more than 10% off the recount is hinted.
pub const DEFAULT_TOLERANCE: f64 = 0.10;

/// A run of one kind (whitespace, or anything else) longer than this is
/// counted in pieces of this many bytes: the tokenizer's merge is quadratic
/// in a piece's length, so one long run (a base64 blob, a line of a million
/// `=`) would stall it. Prose never has such runs, so it counts as the
/// tokenizer counts it.
const MAX_RUN_BYTES: usize = 64;
/// Text is handed to the tokenizer in chunks of about this size, cut before
/// a whitespace run (where the encoding's pieces start anyway).
const CHUNK_BYTES: usize = 16 << 10;

fn encoding() -> Option<&'static CoreBPE> {
    static BPE: OnceLock<Option<CoreBPE>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().ok()).as_ref()
}

/// The number of tokens in `text`, or None when the encoding is not available.
pub fn count(text: &str) -> Option<u64> {
    let bpe = encoding()?;
    Some(
        chunks(text)
            .map(|chunk| bpe.encode_ordinary(chunk).len() as u64)
            .sum(),
    )
}

/// `text` in pieces the tokenizer handles in linear time (see
/// `MAX_RUN_BYTES`). A chunk ends before a single space between two
/// non-space characters, where the encoding's pieces (" word") start
/// anyway, so prose counts exactly as one call would count it.
fn chunks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let mut cut = rest.len();
        let mut run_start = 0;
        let mut previous: Option<char> = None;
        let mut chars = rest.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let space = c.is_whitespace();
            let same_run = previous.is_some_and(|p| p.is_whitespace() == space);
            if !same_run {
                run_start = at;
                let next_is_word = chars.peek().is_some_and(|(_, n)| !n.is_whitespace());
                if c == ' ' && previous.is_some() && next_is_word && at >= CHUNK_BYTES {
                    cut = at;
                    break;
                }
            } else if at - run_start >= MAX_RUN_BYTES {
                cut = at;
                break;
            }
            previous = Some(c);
        }
        let (chunk, after) = rest.split_at(cut);
        rest = after;
        Some(chunk)
    })
}

/// Recounts by the file's sha256 and the span.
#[derive(Default)]
pub struct TokenCache {
    counts: HashMap<(String, TokenSpan), u64>,
}

/// Recounts the spans of `spans` whose files `facts` holds the text of, and
/// hands them to the checks through `facts.tokens`.
pub fn recount(
    facts: &mut WorkspaceFacts,
    spans: Vec<(String, TokenSpan)>,
    tolerance: f64,
    cache: &mut TokenCache,
) {
    // The encoding is built by the first count (a fifth of a second): a
    // pass that counts nothing (every file missing, or counted before)
    // does not build it.
    let mut counts = HashMap::new();
    for (path, span) in spans {
        let Some(file) = facts.file(&path).filter(|f| f.kind == FileKind::File) else {
            continue;
        };
        let counted = match (&file.text, &file.sha256) {
            (Some(text), Some(sha)) => match span_text(text, span) {
                None => Err(format!("{span} lie outside the file")),
                Some(span_text) => {
                    let key = (sha.clone(), span);
                    match cache.counts.get(&key) {
                        Some(&n) => Ok(n),
                        None => {
                            // Without the encoding check 8 is silent.
                            let Some(n) = count(span_text) else { return };
                            cache.counts.insert(key, n);
                            Ok(n)
                        }
                    }
                }
            },
            _ => Err(format!(
                "the file's text was not read (not UTF-8, or over the {} MiB a recount reads)",
                super::files::MAX_TEXT_BYTES >> 20
            )),
        };
        counts.insert((path, span), counted);
    }
    facts.tokens = Some(TokenCounts {
        encoding: ENCODING.into(),
        tolerance,
        counts,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_counts_as_the_tokenizer_counts_it() {
        let bpe = encoding().unwrap();
        let prose = "# Setup\n\nRun `make install`, then 漢字 and 😀 emoji.\n\n".repeat(2000);
        assert!(prose.len() > 2 * CHUNK_BYTES);
        assert_eq!(
            count(&prose),
            Some(bpe.encode_ordinary(&prose).len() as u64)
        );
        assert_eq!(count(""), Some(0));
    }

    #[test]
    fn chunks_cover_the_text_and_cut_long_runs() {
        let text = format!("a {} b{}c", "x".repeat(1000), " ".repeat(300));
        let pieces: Vec<&str> = chunks(&text).collect();
        assert_eq!(pieces.concat(), text);
        assert!(
            pieces
                .iter()
                .all(|p| p.len() <= CHUNK_BYTES + MAX_RUN_BYTES)
        );
        assert!(pieces.len() > 1000 / MAX_RUN_BYTES);
        // Multi-byte characters are never split.
        let cjk = "漢".repeat(1000);
        assert_eq!(chunks(&cjk).collect::<Vec<_>>().concat(), cjk);
    }

    #[test]
    fn one_long_run_does_not_stall() {
        let blob = "A".repeat(4 << 20);
        let started = std::time::Instant::now();
        let n = count(&blob).unwrap();
        assert!(n > 0);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use report_core::project_checks::FileFacts;
    use std::sync::Arc;

    fn facts_with(text: &str, sha: &str) -> WorkspaceFacts {
        let mut file = FileFacts::of_kind(FileKind::File);
        file.text = Some(Arc::from(text));
        file.sha256 = Some(sha.into());
        let mut facts = WorkspaceFacts::default();
        facts.files.insert("a.md".into(), file);
        facts
    }

    #[test]
    fn recounts_are_cached_by_content_and_span() {
        let mut cache = TokenCache::default();
        let spans = vec![
            ("a.md".to_string(), TokenSpan::Lines(2, 2)),
            ("a.md".to_string(), TokenSpan::Lines(5, 9)),
        ];
        let mut facts = facts_with("one\ntwo words here\n", "s1");
        recount(&mut facts, spans.clone(), 0.1, &mut cache);
        let tokens = facts.tokens.as_ref().unwrap();
        assert_eq!(tokens.encoding, "o200k_base");
        let counted = tokens.counts[&("a.md".to_string(), TokenSpan::Lines(2, 2))].clone();
        assert_eq!(counted, Ok(count("two words here").unwrap()));
        assert!(tokens.counts[&("a.md".to_string(), TokenSpan::Lines(5, 9))].is_err());
        // Another text under the same sha256 gets the cached count: the cache is used.
        let mut facts = facts_with("one\nfar more words than before, many more\n", "s1");
        recount(&mut facts, spans.clone(), 0.1, &mut cache);
        assert_eq!(
            facts.tokens.unwrap().counts[&("a.md".to_string(), TokenSpan::Lines(2, 2))],
            counted
        );
        // A new sha256 is counted afresh.
        let mut facts = facts_with("one\nfar more words than before, many more\n", "s2");
        recount(&mut facts, spans, 0.1, &mut cache);
        assert_ne!(
            facts.tokens.unwrap().counts[&("a.md".to_string(), TokenSpan::Lines(2, 2))],
            counted
        );
    }
}
