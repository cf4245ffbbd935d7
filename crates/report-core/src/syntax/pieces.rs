//! A large text parsed on several threads, into the tree one parse in
//! order gives (`parse_in_pieces`).
//!
//! A report is an object whose big member is an array of independent
//! entries, so the text is cut at a few places where an array's item seems
//! to start: a `{` right after `}` and `,` (`find_cuts`; no parse needed,
//! and a guess, as a `},{` may lie in a string). The first piece is parsed
//! by the document's own parser from the start, which reads on, in order,
//! into the next pieces while no helper job has claimed them; the helpers
//! claim pieces from the back (`Claims`), each parsed by a parser started
//! as if inside an array that is a member of the root object, having just
//! read `},` (`Piece::parse`). A thread the machine slows for a while
//! leaves more pieces to the others rather than keeping them idle, and
//! what the document's parser reads itself is not copied after.
//!
//! A piece is taken (`Parser::adopt`) only where the guess proves right:
//! the document's parser, having read up to the cut, is exactly where the
//! piece started (an item of an array in the root, right after `},`, at
//! the same offsets), and the piece parsed without reporting or guessing
//! anything, ending where the next piece starts, at its array's `]` or at
//! the end of the text. A clean piece's records depend on nothing but its
//! tokens and that state, so taking it gives the records a parse in order
//! would have written. Any other piece is dropped, and the document's
//! parser reads its text itself, up to the next cut: errors, recovery and
//! limits stay the one parser's, in order, as everywhere else.

use std::sync::{Mutex, OnceLock, PoisonError};

use foldhash::HashMap;

use super::lexer::Tok;
use super::parser::{Expect, Frame, NO_CHILD, Parser, Quiet, Stop};
use super::tree::{Kind, Record};
use crate::parallel::RunAll;

/// Below this a piece is not worth a job: about a millisecond of parsing.
pub(super) const MIN_PIECE_BYTES: usize = 512 << 10;

/// How many pieces each lent thread gets: a thread that the machine slows
/// for a while leaves its last pieces to the others.
pub(super) const PIECES_PER_THREAD: usize = 4;

/// How a text is cut and who parses the pieces.
#[derive(Clone, Copy)]
pub(super) struct Split<'r> {
    pub runner: &'r dyn RunAll,
    /// How many pieces, at most.
    pub pieces: usize,
    /// How many jobs beside the document's parser claim pieces.
    pub helpers: usize,
    /// The least a piece holds.
    pub min_bytes: usize,
}

/// The pieces no one has claimed yet, `front..back`: the document's parser
/// claims the front one, a helper the back one.
struct Claims(Mutex<(usize, usize)>);

impl Claims {
    fn front(&self) -> Option<usize> {
        let mut left = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        (left.0 < left.1).then(|| {
            left.0 += 1;
            left.0 - 1
        })
    }

    fn back(&self) -> Option<usize> {
        let mut left = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        (left.0 < left.1).then(|| {
            left.1 -= 1;
            left.1
        })
    }
}

/// How far past its target a cut is looked for.
const CUT_WINDOW: usize = 64 << 10;

/// Where a piece starts: at the `{` of what seems an array's next item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cut {
    /// The `{`.
    at: usize,
    /// After the `,` before it, and after the `}` before that: where a
    /// parse in order would have its last token and last value end.
    comma_end: usize,
    brace_end: usize,
}

/// Up to `pieces - 1` cuts, in order, splitting `text` into pieces of
/// about equal size and of at least `min_bytes` each.
pub(super) fn find_cuts(text: &str, pieces: usize, min_bytes: usize) -> Vec<Cut> {
    let bytes = text.as_bytes();
    let min_bytes = min_bytes.max(1);
    let pieces = pieces.min(bytes.len() / min_bytes);
    let mut cuts: Vec<Cut> = Vec::new();
    for k in 1..pieces {
        let target = bytes.len() / pieces * k;
        let from = cuts.last().map_or(0, |c| c.at + min_bytes).max(target);
        // The last piece too holds `min_bytes`.
        let Some(last_at) = bytes.len().checked_sub(min_bytes) else {
            break;
        };
        if from > last_at {
            break;
        }
        if let Some(cut) = cut_near(&bytes[..=last_at], from) {
            cuts.push(cut);
        }
    }
    cuts
}

/// The best cut at or after `from` in a window: a `{` after `}` and `,`
/// with only whitespace between, and of those the least indented `{`, most
/// likely an item of the outermost array (the report's entries) rather
/// than of an array inside one. Linear in the window, whatever the lines.
fn cut_near(bytes: &[u8], from: usize) -> Option<Cut> {
    let window = &bytes[from..bytes.len().min(from + CUT_WINDOW)];
    let mut best: Option<(usize, Cut)> = None;
    for i in memchr::memchr_iter(b'{', window) {
        let Some((indent, cut)) = after_brace_and_comma(bytes, from + i) else {
            continue;
        };
        if best.is_none_or(|(least, _)| indent < least) {
            best = Some((indent, cut));
        }
    }
    best.map(|(_, cut)| cut)
}

/// The cut at the `{` at `at`, if only whitespace, a `,`, whitespace and
/// a `}` come before it, with the `{`'s indentation: how far it is from
/// its line's start, or `usize::MAX` when the `,` is on its line (an array
/// written on one line).
fn after_brace_and_comma(bytes: &[u8], at: usize) -> Option<(usize, Cut)> {
    let before = |end: usize| {
        bytes[..end]
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    };
    let comma = before(at).filter(|&c| bytes[c] == b',')?;
    let brace = before(comma).filter(|&b| bytes[b] == b'}')?;
    let indent = bytes[comma + 1..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(usize::MAX, |n| at - (comma + 1 + n + 1));
    let cut = Cut {
        at,
        comma_end: comma + 1,
        brace_end: brace + 1,
    };
    Some((indent, cut))
}

/// One piece parsed on its own, from a [`Cut`] to where it stopped.
pub(super) struct Piece {
    /// A stand-in for the array the piece lies in, then the piece's values.
    records: Vec<Record>,
    escaped_values: HashMap<u32, Box<str>>,
    escaped_keys: HashMap<u32, Box<str>>,
    listed_items: Vec<u32>,
    stop: Stop,
    /// Where the parse stopped: the next token, not scanned.
    pos: usize,
    /// It reported or guessed nothing, and stopped in its array.
    clean: bool,
    /// The array's last two items in the piece (`NO_CHILD` if none).
    last_child: u32,
    prev_child: u32,
    prev: Tok,
    last_end: usize,
    value_end: usize,
    /// 0 if the piece has no colon.
    colon_end: usize,
}

impl Piece {
    /// Parses `text` from `cut` up to `end`, as inside an array that is a
    /// member of the root object, with `depth_limit` the document's.
    pub(super) fn parse(
        text: &str,
        cut: Cut,
        end: usize,
        depth_limit: usize,
        wanted: Option<crate::cancel::Wanted<'_>>,
    ) -> Piece {
        let mut parser = Parser::for_bytes(text, end.min(text.len()) - cut.at);
        parser.records.push(Record {
            start: cut.at as u32,
            end: cut.at as u32,
            key_start: super::tree::NO_KEY,
            key_end: super::tree::NO_KEY,
            subtree_end: 1,
            kind: Kind::Array,
            value_escaped: false,
            key_escaped: false,
            flags: 0,
        });
        parser.stack.push(Frame {
            index: 0,
            is_object: false,
            keys_base: 0,
            key_set: None,
            last_child: NO_CHILD,
            prev_child: NO_CHILD,
            errors: 0,
            listed: true,
        });
        parser.open_arrays = 1;
        // The root object and this array are open in the document; here only the array.
        parser.depth_limit = depth_limit.saturating_sub(1);
        parser.wanted = wanted;
        parser.stop_at = end;
        parser.close_at_depth = 1;
        parser.prev = Tok::Comma;
        parser.last_end = cut.comma_end;
        parser.value_end = cut.brace_end;
        parser.tokens.skip_to(cut.at);
        let stop = parser.run_from(Expect::Value { after_comma: true });
        // A broken piece may close the array it stands in.
        let (last_child, prev_child) = parser
            .stack
            .first()
            .map_or((NO_CHILD, NO_CHILD), |f| (f.last_child, f.prev_child));
        Piece {
            clean: !parser.guessed
                && parser.errors.is_empty()
                && parser.stack.len() == 1
                && parser.quiet == Quiet::No,
            last_child,
            prev_child,
            stop,
            pos: parser.tokens.pos,
            prev: parser.prev,
            last_end: parser.last_end,
            value_end: parser.value_end,
            colon_end: parser.colon_end,
            records: parser.records,
            escaped_values: parser.escaped_values,
            escaped_keys: parser.escaped_keys,
            listed_items: parser.listed_items,
        }
    }
}

impl Parser<'_> {
    /// Whether this parser, stopped at `cut`, is where a [`Piece`] from it
    /// started: expecting an item of an array that is a member of the root
    /// object, right after `},`, at the same offsets.
    fn is_at(&self, cut: Cut, expect: Expect) -> bool {
        expect == (Expect::Value { after_comma: true })
            && self.tokens.pos == cut.at
            && self.stack.len() == 2
            && self.stack[0].is_object
            && !self.stack[1].is_object
            && self.pending_key.is_none()
            && self.prev == Tok::Comma
            && self.last_end == cut.comma_end
            && self.value_end == cut.brace_end
            && self.quiet == Quiet::No
    }

    /// Takes a clean piece that starts where this parser stands: its values
    /// become the current array's next items, its state this parser's.
    fn adopt(&mut self, piece: Piece) -> Stop {
        // The piece's first record stands for the array; its next is this one's next.
        let offset = self.records.len() as u32 - 1;
        self.records
            .extend(piece.records[1..].iter().map(|r| Record {
                subtree_end: r.subtree_end + offset,
                ..*r
            }));
        let rebased = |(index, text): (u32, Box<str>)| (index + offset, text);
        self.escaped_values
            .extend(piece.escaped_values.into_iter().map(rebased));
        self.escaped_keys
            .extend(piece.escaped_keys.into_iter().map(rebased));
        self.listed_items
            .extend(piece.listed_items.iter().map(|index| index + offset));
        let frame = self.stack.last_mut().expect("inside the array");
        // `is_at` admits the entries array alone: the piece's list is its items.
        debug_assert!(frame.listed);
        match (piece.prev_child, piece.last_child) {
            (_, NO_CHILD) => {}
            (NO_CHILD, last) => {
                frame.prev_child = frame.last_child;
                frame.last_child = last + offset;
            }
            (prev, last) => {
                frame.prev_child = prev + offset;
                frame.last_child = last + offset;
            }
        }
        self.prev = piece.prev;
        self.last_end = piece.last_end;
        self.value_end = piece.value_end;
        if piece.colon_end != 0 {
            self.colon_end = piece.colon_end;
        }
        self.tokens.skip_to(piece.pos);
        piece.stop
    }
}

/// Runs `parser` over its whole text: it reads the pieces from the front,
/// in order, while `helpers` jobs of `runner` beside it parse the pieces
/// from the back; those are then taken in order where they prove right and
/// parsed again in order where not. Returns how many were taken.
pub(super) fn parse_in_pieces(
    parser: &mut Parser<'_>,
    runner: &dyn RunAll,
    helpers: usize,
    cuts: &[Cut],
) -> usize {
    let text = parser.text;
    let depth_limit = parser.depth_limit;
    let wanted = parser.wanted;
    // Piece `i` starts at `cuts[i]`; the text before the first is the parser's own.
    let pieces: Vec<OnceLock<Piece>> = cuts.iter().map(|_| OnceLock::new()).collect();
    let claims = Claims(Mutex::new((0, cuts.len())));
    let end_of = |i: usize| cuts.get(i + 1).map_or(usize::MAX, |c| c.at);
    let mut first = None;
    parser.stop_at = cuts.first().map_or(usize::MAX, |c| c.at);
    {
        let mut jobs: Vec<Box<dyn FnOnce() + Send + '_>> = Vec::with_capacity(helpers + 1);
        let main = &mut *parser;
        let first = &mut first;
        let (claims, pieces) = (&claims, &pieces);
        jobs.push(Box::new(move || {
            let mut stop = main.run_from(Expect::Value { after_comma: false });
            // The pieces after its own, in order, while no helper claims them.
            let mut read = 0;
            while let Stop::AtCut(expect) = stop
                && let Some(i) = claims.front()
            {
                main.stop_at = end_of(i);
                stop = main.run_from(expect);
                read = i + 1;
            }
            *first = Some((stop, read));
        }));
        for _ in 0..helpers {
            jobs.push(Box::new(move || {
                while let Some(i) = claims.back() {
                    let piece = Piece::parse(text, cuts[i], end_of(i), depth_limit, wanted);
                    let _ = pieces[i].set(piece);
                }
            }));
        }
        runner.run_all(jobs);
    }
    let (mut stop, read) = first.expect("every job ran");
    let mut taken = 0;
    for (i, piece) in pieces.into_iter().enumerate().skip(read) {
        // A piece taken ended its array: on in order to the next cut.
        if let Stop::AtClose(expect) | Stop::Ended(expect) = stop {
            parser.stop_at = cuts[i].at;
            stop = parser.run_from(expect);
        }
        let Stop::AtCut(expect) = stop else {
            break;
        };
        match piece.into_inner() {
            Some(piece) if piece.clean && parser.is_at(cuts[i], expect) => {
                stop = parser.adopt(piece);
                taken += 1;
            }
            // Wrong: read again in order.
            _ => {
                parser.stop_at = end_of(i);
                stop = parser.run_from(expect);
            }
        }
    }
    parser.stop_at = usize::MAX;
    match stop {
        Stop::Done => {}
        Stop::AtCut(expect) | Stop::AtClose(expect) | Stop::Ended(expect) => {
            parser.run_from(expect);
        }
    }
    taken
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use proptest::prelude::*;

    use super::*;
    use crate::fixture::{Backwards, InOrder, OnThreads};
    use crate::generate::{GenerateOptions, generate_report};
    use crate::syntax::tests::{PIECES, check_ranges};
    use crate::syntax::{Parse, parse_shared, parse_with};

    fn report(entries: usize, seed: u64) -> String {
        generate_report(GenerateOptions {
            entries,
            seed,
            violation_every: 4,
        })
    }

    /// The parse in pieces, and how many pieces were taken.
    fn in_pieces(
        text: &str,
        runner: &dyn RunAll,
        pieces: usize,
        helpers: usize,
        min: usize,
    ) -> (Parse, usize) {
        let split = Split {
            runner,
            pieces,
            helpers,
            min_bytes: min,
        };
        parse_with(Arc::new(text.to_string()), 0, None, Some(split))
    }

    /// Every runner, every number of pieces and of helpers: the parse in
    /// order, exactly. Returns how many pieces were taken when the helpers
    /// parse them all (they run first).
    fn assert_same_parse(text: &str, pieces: usize, min: usize) -> usize {
        let whole = parse_shared(Arc::new(text.to_string()));
        check_ranges(&whole);
        let mut all_apart = 0;
        let runners = [
            ("in order", &InOrder as &dyn RunAll),
            ("backwards", &Backwards),
            ("on threads", &OnThreads),
        ];
        for helpers in [1, 3] {
            for (name, runner) in runners {
                let (split, taken) = in_pieces(text, runner, pieces, helpers, min);
                let what = format!("{pieces} pieces of {min}+ bytes, {helpers} helpers, {name}");
                assert_eq!(split.errors, whole.errors, "{what}");
                assert!(split == whole, "{what}: another tree\n{text}");
                match name {
                    // The parser ran first and read every piece itself.
                    "in order" => assert_eq!(taken, 0, "{what}"),
                    "backwards" => all_apart = taken,
                    _ => {}
                }
            }
        }
        all_apart
    }

    #[test]
    fn each_piece_is_claimed_once_from_either_end() {
        let claims = Claims(Mutex::new((0, 5)));
        assert_eq!(claims.front(), Some(0));
        assert_eq!(claims.back(), Some(4));
        assert_eq!(claims.back(), Some(3));
        assert_eq!(claims.front(), Some(1));
        assert_eq!(claims.front(), Some(2));
        assert_eq!(claims.back(), None);
        assert_eq!(claims.front(), None);
    }

    #[test]
    fn cuts_fall_before_the_entries_of_a_pretty_report() {
        let text = report(300, 1);
        let cuts = find_cuts(&text, 6, 1);
        assert_eq!(cuts.len(), 5);
        let entries_at = text.find("\"entries\": [").unwrap();
        let candidates_at = text.find("\"promotion_candidates\"").unwrap();
        for pair in cuts.windows(2) {
            assert!(pair[0].at < pair[1].at);
        }
        for cut in &cuts {
            assert!((entries_at..candidates_at).contains(&cut.at), "{cut:?}");
            // An entry's `{`, on a line of its own at the entries' indentation.
            assert_eq!(&text[cut.at - 5..=cut.at], "\n    {", "{cut:?}");
            assert_eq!(&text[cut.comma_end - 2..cut.comma_end], "},");
            assert_eq!(text.as_bytes()[cut.brace_end - 1], b'}');
        }
        // Never closer than the least a piece may hold, and none in a small text.
        let cuts = find_cuts(&text, 6, text.len() / 3);
        assert!(cuts.len() <= 2, "{cuts:?}");
        assert!(find_cuts(&text, 6, text.len()).is_empty());
        assert!(find_cuts("", 4, 1).is_empty());
        assert!(find_cuts("{}", 4, 1).is_empty());
    }

    /// Cuts are found in a window, whatever the lines: a text of one line
    /// (where looking back for each `{`'s line start took minutes at 8 MiB)
    /// is cut as fast as any other, every piece holding its least.
    #[test]
    fn a_text_on_one_line_is_cut_in_a_window() {
        let items = "{},".repeat(3 << 20);
        let text = format!("{{\"entries\":[{}{{}}]}}", items);
        for (pieces, min) in [(2, 1), (8, 1), (8, 1 << 20), (3, text.len() / 4)] {
            let cuts = find_cuts(&text, pieces, min);
            assert_eq!(cuts.len(), pieces - 1, "{pieces} pieces of {min}+ bytes");
            let mut starts: Vec<usize> = cuts.iter().map(|c| c.at).collect();
            starts.insert(0, 0);
            starts.push(text.len());
            for piece in starts.windows(2) {
                assert!(piece[1] - piece[0] >= min, "{piece:?}");
            }
        }
        assert_same_parse(&text[..1 << 20], 8, 1);
    }

    #[test]
    fn a_report_is_parsed_in_pieces_into_the_tree_of_one_parse() {
        let text = report(400, 2);
        for pieces in [2, 3, 7, 40] {
            let cuts = find_cuts(&text, pieces, 1).len();
            assert!(cuts >= pieces / 2, "{pieces}: {cuts} cuts");
            // A valid report's pieces are all taken.
            assert_eq!(assert_same_parse(&text, pieces, 1), cuts, "{pieces}");
        }
        // Written on one line, `},{` and all.
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let minified = serde_json::to_string(&value).unwrap();
        assert!(minified.contains("},{"));
        let cuts = find_cuts(&minified, 5, 1).len();
        assert_eq!(cuts, 4);
        assert_eq!(assert_same_parse(&minified, 5, 1), cuts);
    }

    #[test]
    fn pieces_that_guess_wrong_are_parsed_again_in_order() {
        let text = report(200, 3);
        let entry = text.find("\"entries\": [").unwrap();
        let every = |text: &str, min: usize| {
            for pieces in [2, 3, 5, 9, 33] {
                assert_same_parse(text, pieces, min);
            }
        };
        // `},{` in strings: cuts inside a string are found and dropped.
        let tricky = text.replace("\"op\": \"", "\"op\": \"x},\\n    {\\\"y\\\": [{}], {");
        every(&tricky, 1);
        let raw = text.replacen("\"op\": \"", "\"op\": \"}, {", 50);
        every(&raw, 1);
        // On one line, where a cut in a string looks like any other.
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let minified = serde_json::to_string(&value)
            .unwrap()
            .replace("\"op\":\"", "\"op\":\"},{");
        let cuts = find_cuts(&minified, 9, 1).len();
        let taken = assert_same_parse(&minified, 9, 1);
        assert!(taken < cuts, "{taken} of {cuts}");
        // Arrays of objects inside entries: cuts a level too deep.
        let nested = text.replace(
            "\"signals\": [",
            "\"signals\": [{\"a\": 1},\n      {\"b\": [{}, {}]},\n      ",
        );
        every(&nested, 1);
        // Entries that are arrays, taken in pieces: their items are not listed as the entries'.
        let arrays = text.replace("},\n    {", "},\n    {}, [1, [2], {\"a\": [3]}],\n    {");
        assert!(assert_same_parse(&arrays, 5, 1) > 0);
        // A syntax error in one piece: the rest are still taken.
        let mut broken = text.clone();
        let at = entry + (text.len() - entry) / 2;
        let comma = at + broken[at..].find("\",").unwrap() + 1;
        broken.replace_range(comma..comma + 1, "");
        let whole = parse_shared(Arc::new(broken.clone()));
        assert!(!whole.errors.is_empty());
        let cuts = find_cuts(&broken, 8, 1).len();
        let taken = assert_same_parse(&broken, 8, 1);
        assert!(taken > 0 && taken < cuts, "{taken} of {cuts}");
        // A repeated key, escapes in keys and values, a comment.
        let mut varied = text.replacen("\"op\": ", "\"op\": \"a\", \"op\": ", 3);
        varied = varied.replace("\"path\": \"", "\"p\\u0061th\": \"\\t");
        varied = varied.replacen("\"signals\"", "/* c */ \"signals\"", 2);
        every(&varied, 1);
        // Cut where the entries' array ends, or never closes.
        let candidates = text.find("\"promotion_candidates\"").unwrap();
        every(&text[..candidates], 1);
        every(&text[..text.len() * 2 / 3], 1);
        let empty = format!("{}{}", &text[..entry], "\"entries\": []}");
        every(&empty, 1);
    }

    #[test]
    fn the_nesting_limit_counts_as_in_one_parse() {
        let text = report(60, 4);
        for depth in [
            MAX_DEPTH_IN_ENTRY - 1,
            MAX_DEPTH_IN_ENTRY,
            MAX_DEPTH_IN_ENTRY + 1,
        ] {
            let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            let nested = text.replacen("\"signals\": [", &format!("\"signals\": [{deep}, "), 40);
            let too_deep = parse_shared(Arc::new(nested.clone()))
                .errors
                .iter()
                .any(|e| e.kind == crate::syntax::SyntaxErrorKind::NestingTooDeep);
            // The root, the entries and the entry hold three levels; `signals` a fourth.
            assert_eq!(too_deep, depth > MAX_DEPTH_IN_ENTRY, "{depth}");
            assert_same_parse(&nested, 6, 1);
        }
    }

    /// How deep an array in an entry's `signals` may nest.
    const MAX_DEPTH_IN_ENTRY: usize = crate::syntax::MAX_NESTING_DEPTH - 4;

    #[test]
    fn a_cancelled_parse_in_pieces_unwinds_as_cancelled() {
        // Large enough for the parser to ask while a piece is parsed.
        let text = Arc::new(report(3000, 5));
        let no = || false;
        for runner in [&InOrder as &dyn RunAll, &Backwards, &OnThreads] {
            let cancelled = crate::cancel::catch(|| {
                let split = Split {
                    runner,
                    pieces: 4,
                    helpers: 1,
                    min_bytes: 1,
                };
                parse_with(
                    text.clone(),
                    0,
                    Some(crate::cancel::Wanted(&no)),
                    Some(split),
                )
            });
            assert!(cancelled.is_err());
        }
    }

    /// Bits of JSON and of strings that make cuts guess wrong and pieces
    /// break, beside the parser tests' (`PIECES`).
    const MORE_PIECES: &[&str] = &[
        "},",
        "},\n    {",
        "}, {",
        "},{",
        "\"a\": 1",
        "路径",
        "😀",
        "\t",
    ];

    fn edited(text: &str, edits: &[(usize, usize, usize)]) -> String {
        let mut text = text.to_string();
        for &(at, removed, piece) in edits {
            let mut at = at % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + removed).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let piece = piece % (PIECES.len() + MORE_PIECES.len());
            let piece = PIECES
                .get(piece)
                .unwrap_or_else(|| &MORE_PIECES[piece - PIECES.len()]);
            text.replace_range(at..end, piece);
        }
        text
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(64),
            ..ProptestConfig::default()
        })]

        /// Any report, broken anywhere, in any number of pieces of any
        /// size: the tree and the errors of one parse in order.
        #[test]
        fn pieces_give_the_parse_in_order(
            entries in 0usize..40,
            seed in 0u64..1000,
            edits in prop::collection::vec((any::<usize>(), 0usize..12, any::<usize>()), 0..4),
            pieces in 2usize..12,
            min in 1usize..400,
        ) {
            let text = edited(&report(entries, seed), &edits);
            assert_same_parse(&text, pieces, min);
        }
    }
}
