//! The tokens: `jsonc-parser`'s scanner, made strict and made to recover.
//!
//! `jsonc_parser::Scanner`, with every leniency off, does the tokenizing:
//! punctuation, literals, numbers, strings (their escapes checked and, when
//! there are any, decoded) and comments. What it lets through is checked
//! here: whitespace other than JSON's four (vertical tab, form feed, Unicode
//! spaces), which it skips, and raw control characters in strings, which it
//! keeps. Each token is scanned by a new scanner over the rest of the text
//! (a scanner is a few words), so a token can end where we decide. Where the
//! scanner stops at an error, the error is reported once and the bad token
//! is given the extent a person would see: a whole bare word (the scanner's
//! words are identifiers), a whole malformed number, a string up to where it
//! ends. A string that runs past a line break the next line does not close
//! is being typed: it is ended at that line break.
//!
//! Hand-written scanning is left only where the scanner cannot say: the end
//! of a bare word or malformed number, of a single-quoted string (refused
//! outright) and of a string after its first bad escape (the scanner gives
//! up there and cannot resume inside a string); the raw control characters
//! in a string; and the recovery's lookaheads (`bogus_end`, `peek_byte`,
//! `continues_after_break`).
//!
//! This file is the only user of `jsonc-parser` (`tests/architecture.rs`
//! checks it): the rest of `syntax` sees [`Tok`]s and [`Tokens`].

use std::borrow::Cow;

use jsonc_parser::errors::{ParseError, ParseErrorKind};
use jsonc_parser::tokens::Token;
use jsonc_parser::{ParseStringErrorKind, Scanner, ScannerOptions};

use super::error::clamp;
use crate::text::TextRange;

/// Every leniency off: strict JSON (RFC 8259), comments aside.
const STRICT: ScannerOptions = ScannerOptions {
    allow_single_quoted_strings: false,
    allow_hexadecimal_numbers: false,
    allow_unary_plus_numbers: false,
    allow_bare_decimal_point_numbers: false,
    allow_non_finite_numbers: false,
    allow_extended_string_escapes: false,
};

/// A token, as the parser's grammar tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    OpenBrace,
    CloseBrace,
    OpenBracket,
    CloseBracket,
    Comma,
    Colon,
    /// A string that stands for a known value (raw control characters in
    /// it are reported, but its value is what is written).
    Str,
    /// A string whose value is unknown: unterminated, a bad escape, single quotes.
    BadStr,
    Num,
    /// Something number-like that is no JSON number (`+1`, `.5`, `0x1F`).
    BadNum,
    True,
    False,
    Null,
    /// A bare word or stray characters.
    Word,
    /// Something to skip once reported: a comment, control characters
    /// outside strings, a byte order mark.
    Junk,
    Eof,
}

/// A problem found in the current token.
pub(super) struct LexError {
    pub(super) range: TextRange,
    pub(super) message: String,
}

/// Bytes that end a bare word: whitespace, structure, quotes and control characters.
static WORD_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b <= 0x20 {
        table[b] = true;
        b += 1;
    }
    let stops = b"{}[],:\"'";
    let mut i = 0;
    while i < stops.len() {
        table[stops[i] as usize] = true;
        i += 1;
    }
    table
};

/// The token source of the parser (`Parser`, in the `parser` module): a thin adapter over `jsonc_parser::Scanner`.
pub(super) struct Tokens<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The current token's end ...
    pub(super) pos: usize,
    /// ... and start.
    start: usize,
    /// The current string token's value, when it has escapes.
    pub(super) decoded: Option<String>,
    /// For a bad or single-quoted string: where its content ends.
    pub(super) content_end: usize,
    /// The current string token ended at a line break or the end of the
    /// text without its closing quote.
    pub(super) unterminated: bool,
    /// The first problem in the current token, for the parser to report.
    pub(super) error: Option<LexError>,
}

impl<'a> Tokens<'a> {
    pub(super) fn new(text: &'a str) -> Tokens<'a> {
        Tokens {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            start: 0,
            decoded: None,
            content_end: 0,
            unterminated: false,
            error: None,
        }
    }

    pub(super) fn range(&self) -> TextRange {
        TextRange::new(self.start, self.pos)
    }

    fn problem(&mut self, range: TextRange, message: impl FnOnce() -> String) {
        if self.error.is_none() {
            self.error = Some(LexError {
                range,
                message: message(),
            });
        }
    }

    /// Leaves the current token to be scanned again.
    pub(super) fn unscan(&mut self) {
        self.pos = self.start;
    }

    /// Ends the current token at `end`, where the next scan starts.
    pub(super) fn skip_to(&mut self, end: usize) {
        self.pos = end;
    }

    /// Where a bogus value that starts with the current token ends: before
    /// the next `,`, bracket or line end on its line, or after a quote that
    /// closes a string whose opening quote is missing.
    pub(super) fn bogus_end(&self) -> usize {
        let bytes = self.bytes;
        let mut q = self.pos;
        while let Some(&b) = bytes.get(q) {
            match b {
                b',' | b'}' | b']' | b'{' | b'[' | b'\n' | b'\r' => break,
                b'"' => {
                    let after = bytes[q + 1..].iter().find(|b| !matches!(b, b' ' | b'\t'));
                    if matches!(after, None | Some(b'\n' | b'\r' | b',' | b'}' | b']')) {
                        q += 1;
                    }
                    break;
                }
                _ => q += 1,
            }
        }
        while q > self.pos && matches!(bytes[q - 1], b' ' | b'\t') {
            q -= 1;
        }
        q
    }

    /// The next byte after whitespace, without consuming anything.
    pub(super) fn peek_byte(&self) -> Option<u8> {
        self.bytes[self.pos..]
            .iter()
            .copied()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    }

    #[inline(always)]
    pub(super) fn scan(&mut self) -> Tok {
        self.error = None;
        self.decoded = None;
        // JSON's whitespace is skipped here, so that what the scanner skips
        // on its own (vertical tab, form feed, Unicode spaces) shows.
        let bytes = self.bytes;
        let mut p = self.pos;
        while p < bytes.len() && matches!(bytes[p], b' ' | b'\t' | b'\n' | b'\r') {
            p += 1;
        }
        self.start = p;
        // Punctuation is one byte and half of a report's tokens: it needs no
        // scanner. Everything else (strings, numbers, literals, comments) is
        // the scanner's.
        let punctuation = match bytes.get(p) {
            Some(b'{') => Tok::OpenBrace,
            Some(b'}') => Tok::CloseBrace,
            Some(b'[') => Tok::OpenBracket,
            Some(b']') => Tok::CloseBracket,
            Some(b',') => Tok::Comma,
            Some(b':') => Tok::Colon,
            _ => Tok::Eof,
        };
        if punctuation != Tok::Eof {
            self.pos = p + 1;
            return punctuation;
        }
        // One token from a scanner over the rest of the text: a scanner is a
        // few words, and this way every token can end where we decide (after
        // an error, mostly) and errors count lines from here only.
        let mut scanner = Scanner::new(&self.text[p..], &STRICT);
        let scanned = scanner.scan();
        if scanner.token_start() != 0 {
            return self.stray();
        }
        self.pos = p + scanner.token_end();
        let token = match scanned {
            Ok(Some(token)) => token,
            Ok(None) => return Tok::Eof,
            Err(error) => return self.scan_error(&error),
        };
        let tok = match token {
            Token::OpenBrace => Tok::OpenBrace,
            Token::CloseBrace => Tok::CloseBrace,
            Token::OpenBracket => Tok::OpenBracket,
            Token::CloseBracket => Tok::CloseBracket,
            Token::Comma => Tok::Comma,
            Token::Colon => Tok::Colon,
            Token::String(value) => {
                // Most strings: no raw control characters, and closed.
                let quote = self.pos - 1;
                let followed_by_word = self
                    .bytes
                    .get(self.pos)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
                if followed_by_word || has_control(&self.bytes[self.start + 1..quote]) {
                    return self.string(Ok(value));
                }
                if let Cow::Owned(value) = value {
                    self.decoded = Some(value);
                }
                return Tok::Str;
            }
            Token::Number(_) => Tok::Num,
            Token::Boolean(true) => Tok::True,
            Token::Boolean(false) => Tok::False,
            Token::Null => Tok::Null,
            Token::Word(_) => return self.word(),
            Token::CommentLine(_) | Token::CommentBlock(_) => return self.comment(self.pos),
        };
        // `12px`, `2026-11-29T18`, `true_x`: one word that starts like a
        // number or a literal. (`01` stays two numbers: a missing comma.)
        if matches!(tok, Tok::Num | Tok::True | Tok::False | Tok::Null)
            && self
                .bytes
                .get(self.pos)
                .is_some_and(|&b| !WORD_STOP[b as usize] && !b.is_ascii_digit())
        {
            return self.word();
        }
        tok
    }

    /// Where the scanner stopped at an error: the bad token, in full.
    #[cold]
    fn scan_error(&mut self, error: &ParseError) -> Tok {
        let next = self.bytes.get(self.start + 1);
        match error.kind() {
            ParseErrorKind::String(ParseStringErrorKind::UnterminatedStringLiteral) => {
                self.string(Err(None))
            }
            ParseErrorKind::String(_) => self.string(Err(Some(self.start + error.range().start))),
            ParseErrorKind::UnterminatedCommentBlock => self.comment(self.text.len()),
            ParseErrorKind::SingleQuotedStringsNotAllowed => self.single_quoted(),
            ParseErrorKind::UnexpectedToken => self.stray(),
            // `-Infinity`, `-x`, a lone `-` or `+`: words.
            _ if matches!(self.bytes[self.start], b'-' | b'+')
                && !next.is_some_and(u8::is_ascii_digit) =>
            {
                self.word()
            }
            kind => {
                let message = match kind {
                    ParseErrorKind::UnaryPlusNumbersNotAllowed => {
                        "unary plus on numbers is not allowed"
                    }
                    ParseErrorKind::HexadecimalNumbersNotAllowed => {
                        "hexadecimal numbers are not allowed"
                    }
                    ParseErrorKind::BareDecimalPointNumbersNotAllowed => {
                        "leading or trailing decimal points on numbers are not allowed"
                    }
                    _ => "a number's exponent needs digits, as in 1e5",
                };
                // It runs on over number-like bytes.
                let rest = &self.bytes[self.start..];
                let len = rest
                    .iter()
                    .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-')))
                    .unwrap_or(rest.len());
                self.skip_to(self.start + len);
                self.problem(self.range(), || message.into());
                Tok::BadNum
            }
        }
    }

    /// What starts at `self.start` is no token: control characters, a byte
    /// order mark or a bare word.
    #[cold]
    fn stray(&mut self) -> Tok {
        let at = self.start;
        let b = self.bytes[at];
        if b < 0x20 {
            let len = self.bytes[at..]
                .iter()
                .position(|&b| b >= 0x20 || matches!(b, b'\t' | b'\n' | b'\r'))
                .unwrap_or(self.bytes.len() - at);
            self.skip_to(at + len);
            self.problem(self.range(), || {
                format!("control character U+{b:04X} is not allowed in JSON; inside a string write it as \\u{b:04x}")
            });
            return Tok::Junk;
        }
        if at == 0 && self.text.starts_with('\u{feff}') {
            self.skip_to(3);
            self.problem(self.range(), || {
                "a byte order mark precedes the JSON text; reports are UTF-8 without one".into()
            });
            return Tok::Junk;
        }
        self.word()
    }

    /// A bare word from `self.start`: up to whitespace, structure or a quote
    /// (the scanner's words are identifiers, and end at any other character).
    #[cold]
    fn word(&mut self) -> Tok {
        let rest = &self.bytes[self.start..];
        let len = rest
            .iter()
            .position(|&b| WORD_STOP[b as usize])
            .unwrap_or(rest.len())
            .max(1);
        self.skip_to(self.start + len);
        Tok::Word
    }

    #[cold]
    fn comment(&mut self, end: usize) -> Tok {
        self.skip_to(end);
        self.problem(self.range(), || "comments are not allowed in JSON".into());
        Tok::Junk
    }

    /// The scanner refuses single-quoted strings outright; we read one to
    /// its closing quote on the same line.
    #[cold]
    fn single_quoted(&mut self) -> Tok {
        let from = self.start + 1;
        let end = memchr::memchr3(b'\'', b'\n', b'\r', &self.bytes[from..])
            .map_or(self.bytes.len(), |i| from + i);
        self.content_end = end;
        self.unterminated = false;
        self.skip_to(end + usize::from(self.bytes.get(end) == Some(&b'\'')));
        self.problem(self.range(), || {
            "single-quoted strings are not allowed".into()
        });
        Tok::BadStr
    }

    /// A string token: its value as the scanner read it (to the closing
    /// quote), or the offset of the bad escape the scanner stopped at
    /// (`None`: the text ended inside it).
    #[cold]
    fn string(&mut self, scanned: Result<Cow<'a, str>, Option<usize>>) -> Tok {
        self.unterminated = false;
        let checked_to = match scanned {
            Ok(_) => self.pos - 1,
            Err(Some(escape)) => escape,
            Err(None) => self.bytes.len(),
        };
        if let Some(at) = self.raw_control_characters(self.start + 1, checked_to) {
            return self.unterminated_at(at, || {
                "unterminated string literal: the line ends before its closing `\"`; a line break inside a string is written \\n".into()
            });
        }
        match scanned {
            Ok(value) => {
                let tok = self.closed(self.pos - 1, false);
                if let (Tok::Str, Cow::Owned(value)) = (tok, value) {
                    self.decoded = Some(value);
                }
                tok
            }
            Err(Some(escape)) => {
                let from = self.bad_escape(escape);
                self.rest_of_bad_string(from)
            }
            Err(None) => {
                self.unterminated_at(self.bytes.len(), || "unterminated string literal".into())
            }
        }
    }

    /// Reports each raw control character in the string content `from..to`
    /// (the first one only, as for every problem). At a raw line break the
    /// string does not go on over, it returns where the string ends.
    fn raw_control_characters(&mut self, from: usize, to: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut p = from;
        while let Some(i) = first_control(&bytes[p..to]) {
            p += i;
            let c = bytes[p];
            if matches!(c, b'\n' | b'\r') && !self.continues_after_break(p) {
                return Some(p);
            }
            let len = if c == b'\r' && bytes.get(p + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            self.problem(TextRange::new(p, p + len), || match c {
                b'\n' => "a raw line feed inside a string; write it as \\n".into(),
                b'\r' => "a raw carriage return inside a string; write it as \\r".into(),
                b'\t' => "a raw tab inside a string; write it as \\t".into(),
                _ => format!(
                    "a raw control character U+{c:04X} inside a string; write it as \\u{c:04x}"
                ),
            });
            p += len;
        }
        None
    }

    /// The string closes with the quote at `quote`, unless a word follows
    /// that quote: `"n, "pitch": ...`, `"n "pitch": ...` mean the quote
    /// opens the next string, and this one was not closed before its last
    /// comma or blanks.
    fn closed(&mut self, quote: usize, bad: bool) -> Tok {
        let bytes = self.bytes;
        if bytes
            .get(quote + 1)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            let content = &bytes[self.start + 1..quote];
            let blanks = content.iter().rev().take_while(|&&b| b == b' ').count();
            let split = content
                .iter()
                .rposition(|&b| b == b',')
                .or((blanks > 0).then(|| content.len() - blanks));
            if let Some(split) = split {
                return self.unterminated_at(self.start + 1 + split, || {
                    "unterminated string literal: it has no closing `\"` before the next string"
                        .into()
                });
            }
        }
        self.content_end = quote;
        self.pos = quote + 1;
        if bad { Tok::BadStr } else { Tok::Str }
    }

    /// Ends the current string, unterminated, at `end`.
    fn unterminated_at(&mut self, end: usize, message: impl FnOnce() -> String) -> Tok {
        self.skip_to(end);
        self.content_end = end;
        self.unterminated = true;
        self.problem(self.range(), message);
        Tok::BadStr
    }

    /// Reports the bad escape at `at` (a backslash) the scanner stopped at;
    /// returns where the rest of the string starts.
    fn bad_escape(&mut self, at: usize) -> usize {
        if self.bytes.get(at + 1) == Some(&b'u') {
            let unit = self
                .text
                .get(at + 2..at + 6)
                .filter(|digits| digits.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|digits| u32::from_str_radix(digits, 16).ok());
            let Some(unit) = unit else {
                self.problem(clamp(self.text, at, at + 6), || {
                    "a \\u escape needs four hexadecimal digits, as in \\u00e9".into()
                });
                return at + 2;
            };
            // The scanner refuses no other \u escape than a lone surrogate.
            let half = match unit {
                0xDC00..=0xDFFF => "second half of a surrogate pair without its first half",
                _ => "first half of a surrogate pair without its second half",
            };
            self.problem(TextRange::new(at, at + 6), || {
                format!("\\u{unit:04x} is the {half}, which encodes no character")
            });
            return at + 6;
        }
        let end = match self.text[at + 1..].chars().next() {
            Some(c) if c != '\n' && c != '\r' && c != '"' => at + 1 + c.len_utf8(),
            _ => at + 1,
        };
        self.problem(TextRange::new(at, end), || {
            format!(
                "`{}` is not a JSON escape; the escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX",
                &self.text[at..end]
            )
        });
        end
    }

    /// The rest of a string after a bad escape, from `from`: the scanner
    /// gives up at a string's first bad escape and cannot go on inside it,
    /// so its end is found here. Its value is unknown, and only its first
    /// problem is reported.
    fn rest_of_bad_string(&mut self, from: usize) -> Tok {
        let bytes = self.bytes;
        let mut p = from;
        loop {
            match bytes[p..]
                .iter()
                .position(|b| matches!(b, b'"' | b'\\' | b'\n' | b'\r'))
            {
                Some(i) => p += i,
                None => {
                    return self
                        .unterminated_at(bytes.len(), || "unterminated string literal".into());
                }
            }
            match bytes[p] {
                b'"' => return self.closed(p, true),
                b'\\' if matches!(bytes.get(p + 1), Some(b'\n' | b'\r')) => p += 1,
                b'\\' => p = (p + 2).min(bytes.len()),
                _ if self.continues_after_break(p) => p += 1,
                _ => {
                    return self.unterminated_at(p, || {
                        "unterminated string literal: the line ends before its closing `\"`; a line break inside a string is written \\n".into()
                    });
                }
            }
        }
    }

    /// At a raw line break inside a string: whether the string goes on over
    /// it (the next line closes it, and structure follows the quote) rather
    /// than ending unterminated at it, as a string being typed does.
    fn continues_after_break(&self, p: usize) -> bool {
        let bytes = self.bytes;
        let mut q = p + 1;
        if bytes[p] == b'\r' && bytes.get(q) == Some(&b'\n') {
            q += 1;
        }
        while let Some(&b) = bytes.get(q) {
            match b {
                b'\n' | b'\r' => return false,
                b'\\' if !matches!(bytes.get(q + 1), Some(b'\n' | b'\r')) => q += 2,
                b'"' => {
                    let after = bytes[q + 1..].iter().find(|b| !matches!(b, b' ' | b'\t'));
                    return matches!(
                        after,
                        None | Some(b'\n' | b'\r' | b',' | b'}' | b']' | b':')
                    );
                }
                _ => q += 1,
            }
        }
        false
    }
}

/// Whether `bytes` hold a byte below 0x20, eight at a time (strings are
/// most of a report, and hold none).
fn has_control(bytes: &[u8]) -> bool {
    const LOW: u64 = 0x2020_2020_2020_2020;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // A byte below 0x20 borrows in `x - LOW` and sets its high bit, which `!x` keeps.
    let below = |x: u64| x.wrapping_sub(LOW) & !x & HIGH != 0;
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    match bytes.len() {
        0..8 => bytes.iter().any(|&b| b < 0x20),
        len => (0..len - 8).step_by(8).any(|at| below(word(at))) || below(word(len - 8)),
    }
}

/// Where the first byte below 0x20 is.
fn first_control(bytes: &[u8]) -> Option<usize> {
    match has_control(bytes) {
        true => bytes.iter().position(|&b| b < 0x20),
        false => None,
    }
}
