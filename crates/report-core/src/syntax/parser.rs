//! The parser: a state machine over an explicit stack of open containers,
//! building the flat tree straight from the tokens. [`Expect`] is the
//! grammar's state; each step takes a token in one state and names the next.
//! What it does at an error that makes it guess (close a container early,
//! take a string for a key, skip a value) is in the `recovery` module.

use std::borrow::Cow;

// foldhash: keys are paths and member names of the report, hashed by the
// hundred thousand; its seeds are random per process.
use foldhash::{HashMap, HashMapExt};

use super::error::{
    MAX_ERRORS_PER_CONTAINER, MAX_NESTING_DEPTH, MAX_SYNTAX_ERRORS, SyntaxError, SyntaxErrorKind,
    clamp,
};
use super::lexer::{Tok, Tokens};
use super::tree::{BROKEN, INCOMPLETE, KEY_BROKEN, Kind, LISTED, NO_KEY, REPEATED_KEYS, Record};
use crate::cancel::Wanted;
use crate::text::TextRange;

/// No child yet, in [`Frame::last_child`].
pub(super) const NO_CHILD: u32 = u32::MAX;

/// One open array or object.
pub(super) struct Frame {
    pub(super) index: u32,
    pub(super) is_object: bool,
    /// Where this object's keys start in `Parser::keys`.
    pub(super) keys_base: usize,
    /// Built once an object has many keys, so duplicate checks stay linear.
    pub(super) key_set: Option<HashMap<String, TextRange>>,
    /// The last two children, for recovering a missing bracket.
    pub(super) last_child: u32,
    pub(super) prev_child: u32,
    /// Syntax errors reported directly inside it.
    pub(super) errors: u16,
    /// An array that is a member of the root object: its items go to `listed_items`.
    pub(super) listed: bool,
}

/// What the grammar expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
    /// A value; `after_comma` tells a trailing comma from an empty slot.
    Value {
        after_comma: bool,
    },
    /// A key or `}` (`after_comma`: a key only).
    KeyOrClose {
        after_comma: bool,
    },
    Colon,
    /// `,` or the closing bracket of the innermost container.
    CommaOrClose,
    /// A value with no key to belong to: skipped.
    Discard,
    /// Nothing: the root value is complete.
    End,
    /// A second value was reported: the rest is skipped quietly.
    Skip,
}

/// What to do with the current token after one step.
pub(super) enum ParseStep {
    /// Consumed; go on in this state.
    Next(Expect),
    /// Not consumed; handle it again in this state.
    Again(Expect),
}

pub(super) use ParseStep::{Again, Next};

/// Why the parser says nothing, if it says nothing: one reason at a time.
/// (These were two booleans; they never held at once, as [`Quiet::TextEnded`]
/// is set only by a skip that ran into the end, and the next token is the end.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Quiet {
    /// Errors are reported, up to the limits.
    No,
    /// The previous token was a string left unterminated at a line break:
    /// the missing comma or colon that follows is part of that one error.
    AfterUnterminatedString,
    /// A skip over a bracketed value ran into the end of the text, in a
    /// region already reported: there is nothing more to say at the end.
    TextEnded,
}

/// A key read and waiting for its value (the next record pushed).
pub(super) struct PendingKey {
    /// The key's range, quotes included.
    pub(super) range: TextRange,
    /// The key after unescaping, when it differs from what is written.
    pub(super) decoded: Option<Box<str>>,
    /// The key is unreadable (an unterminated string): which key was meant is unknown.
    pub(super) broken: bool,
}

/// The parser's state over one text; [`Parser::run`] fills `records` and `errors`.
pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) tokens: Tokens<'a>,
    pub(super) records: Vec<Record>,
    pub(super) stack: Vec<Frame>,
    /// The keys of the open objects, innermost last.
    pub(super) keys: Vec<(Cow<'a, str>, TextRange)>,
    /// The key waiting for its value.
    pub(super) pending_key: Option<PendingKey>,
    pub(super) escaped_values: HashMap<u32, Box<str>>,
    pub(super) escaped_keys: HashMap<u32, Box<str>>,
    /// The items of the arrays that are members of the root object (the tree's `listed_items`).
    pub(super) listed_items: Vec<u32>,
    pub(super) errors: Vec<SyntaxError>,
    /// Syntax errors reported, duplicate keys aside.
    pub(super) reported: usize,
    /// Errors reported outside every container.
    pub(super) root_errors: u16,
    /// The end of the last token consumed, for "expected a comma" positions.
    pub(super) last_end: usize,
    /// The end of the last value completed or container opened: where a
    /// missing closing bracket belongs.
    pub(super) value_end: usize,
    /// The end of the last colon.
    pub(super) colon_end: usize,
    /// The kind of the last token consumed.
    pub(super) prev: Tok,
    /// An error was reported for the current token already (one each).
    /// A flag of its own, not a state of [`Quiet`]: it lasts one token, while
    /// `quiet` outlives the junk tokens (comments) after an unterminated
    /// string, and a comment's error there sets both.
    pub(super) token_reported: bool,
    /// Why errors are not reported, if they are not.
    pub(super) quiet: Quiet,
    /// The open arrays and objects, to tell at once whether a stray closing
    /// bracket matches one.
    pub(super) open_arrays: usize,
    pub(super) open_objects: usize,
    /// The root once closed, in case a comma shows it was closed too early.
    pub(super) closed_root: Option<Frame>,
    /// Containers that may be open at once.
    pub(super) depth_limit: usize,
    /// Asked every [`ASK_EVERY_TOKENS`] tokens (see `cancel`).
    pub(super) wanted: Option<Wanted<'a>>,
    /// Something was reported or marked broken: a piece that guessed is
    /// not taken (`pieces`), its text is parsed again in order.
    pub(super) guessed: bool,
    /// [`Parser::run_from`] stops before the first token that starts here
    /// or later ([`Stop::AtCut`]); `usize::MAX` for never.
    pub(super) stop_at: usize,
    /// A piece's: with this many containers open, a `]` closes the array
    /// the piece lies in, which is not the piece's to close
    /// ([`Stop::AtClose`]); `usize::MAX` for never, as in a whole document.
    pub(super) close_at_depth: usize,
}

/// Why [`Parser::run_from`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The text ended and what was open is closed: the parse is complete.
    Done,
    /// The next token starts at or after `stop_at`: it is left to scan,
    /// and this is what the grammar expects of it.
    AtCut(Expect),
    /// A piece's: the next token is the `]` of the array it lies in, left to scan.
    AtClose(Expect),
    /// A piece's: the text ended, and nothing was closed.
    Ended(Expect),
}

/// How often the parser asks whether it is still wanted: about every
/// 200 KB of a report, a millisecond or two of parsing.
const ASK_EVERY_TOKENS: u32 = 1 << 15;

/// Keys an object may have before duplicate checks switch from a scan to a set.
const LINEAR_KEYS: usize = 16;

impl<'a> Parser<'a> {
    pub(super) fn new(text: &'a str) -> Parser<'a> {
        Parser::for_bytes(text, text.len())
    }

    /// A parser over `text` that expects to parse about `bytes` of it.
    pub(super) fn for_bytes(text: &'a str, bytes: usize) -> Parser<'a> {
        Parser {
            text,
            tokens: Tokens::new(text),
            // A pretty-printed report holds about one value per 25 to 30 bytes;
            // the vector grows past this and is shrunk to fit at the end.
            records: Vec::with_capacity(bytes / 24),
            stack: Vec::new(),
            keys: Vec::new(),
            pending_key: None,
            escaped_values: HashMap::new(),
            escaped_keys: HashMap::new(),
            listed_items: Vec::new(),
            errors: Vec::new(),
            reported: 0,
            root_errors: 0,
            last_end: 0,
            value_end: 0,
            colon_end: 0,
            prev: Tok::Eof,
            token_reported: false,
            quiet: Quiet::No,
            open_arrays: 0,
            open_objects: 0,
            closed_root: None,
            depth_limit: MAX_NESTING_DEPTH,
            wanted: None,
            guessed: false,
            stop_at: usize::MAX,
            close_at_depth: usize::MAX,
        }
    }

    /// Reports a syntax error unless the current token has one already or a
    /// limit is reached; `breaks` marks the open containers broken either way.
    pub(super) fn report(
        &mut self,
        range: TextRange,
        kind: impl FnOnce() -> SyntaxErrorKind,
        breaks: bool,
    ) {
        self.guessed = true;
        if breaks {
            self.broke();
        }
        if self.token_reported || self.quiet == Quiet::AfterUnterminatedString {
            return;
        }
        self.token_reported = true;
        let count = match self.stack.last_mut() {
            Some(frame) => &mut frame.errors,
            None => &mut self.root_errors,
        };
        if usize::from(*count) >= MAX_ERRORS_PER_CONTAINER || self.reported >= MAX_SYNTAX_ERRORS {
            return;
        }
        *count += 1;
        self.reported += 1;
        self.errors.push(SyntaxError {
            kind: kind(),
            range: clamp(self.text, range.start, range.end),
        });
    }

    pub(super) fn invalid(
        &mut self,
        range: TextRange,
        message: impl FnOnce() -> String,
        breaks: bool,
    ) {
        self.report(range, || SyntaxErrorKind::Invalid(message()), breaks);
    }

    fn token_text(&self) -> &'a str {
        &self.text[self.tokens.range().as_range()]
    }

    pub(super) fn run(&mut self) {
        self.run_from(Expect::Value { after_comma: false });
    }

    /// Parses on from the current token, expecting `expect` of it, to the
    /// end of the text or the first [`Stop`].
    pub(super) fn run_from(&mut self, mut expect: Expect) -> Stop {
        let mut until_asked = ASK_EVERY_TOKENS;
        loop {
            until_asked -= 1;
            if until_asked == 0 {
                until_asked = ASK_EVERY_TOKENS;
                crate::cancel::check(self.wanted);
            }
            let tok = self.tokens.scan();
            if self.tokens.range().start >= self.stop_at {
                self.tokens.unscan();
                return Stop::AtCut(expect);
            }
            if tok == Tok::CloseBracket && self.stack.len() == self.close_at_depth {
                self.tokens.unscan();
                return Stop::AtClose(expect);
            }
            self.token_reported = false;
            if expect == Expect::Skip {
                if tok == Tok::Eof {
                    return Stop::Done;
                }
                continue;
            }
            if let Some(error) = self.tokens.error.take() {
                // Comments, raw control characters in strings, a byte order
                // mark: reported, but the value stays what is written.
                let breaks = !matches!(tok, Tok::Junk | Tok::Str);
                // The token's own error is reported even right after an
                // unterminated string.
                let quiet = std::mem::replace(&mut self.quiet, Quiet::No);
                self.invalid(error.range, || error.message, breaks);
                self.quiet = quiet;
            }
            if tok == Tok::Junk {
                continue;
            }
            if tok == Tok::Eof {
                if self.close_at_depth != usize::MAX {
                    return Stop::Ended(expect);
                }
                self.finish(expect);
                return Stop::Done;
            }
            let mut steps = 0;
            expect = loop {
                steps += 1;
                debug_assert!(
                    steps <= MAX_NESTING_DEPTH + 8,
                    "a token is handled again and again"
                );
                match self.step(expect, tok) {
                    Next(next) => break next,
                    Again(next) => expect = next,
                }
            };
            if self.quiet != Quiet::TextEnded {
                self.quiet = match tok == Tok::BadStr && self.tokens.unterminated {
                    true => Quiet::AfterUnterminatedString,
                    false => Quiet::No,
                };
            }
            self.prev = tok;
            self.last_end = self.tokens.pos;
        }
    }

    #[inline(always)]
    fn step(&mut self, expect: Expect, tok: Tok) -> ParseStep {
        match expect {
            Expect::Value { after_comma } => self.value(tok, after_comma),
            Expect::KeyOrClose { after_comma } => self.key_or_close(tok, after_comma),
            Expect::Colon => self.colon(tok),
            Expect::CommaOrClose => self.comma_or_close(tok),
            Expect::Discard => self.discard(tok),
            Expect::End => self.end(tok),
            Expect::Skip => Next(Expect::Skip),
        }
    }

    pub(super) fn after_value(&self) -> Expect {
        match self.stack.is_empty() {
            true => Expect::End,
            false => Expect::CommaOrClose,
        }
    }

    pub(super) fn in_object(&self) -> bool {
        self.stack.last().is_some_and(|f| f.is_object)
    }

    fn in_array(&self) -> bool {
        self.stack.last().is_some_and(|f| !f.is_object)
    }

    /// Adds a record for a value at `start..end` with the pending key.
    fn push(&mut self, kind: Kind, start: usize, end: usize) -> u32 {
        let index = self.records.len() as u32;
        let mut key_broken = false;
        let (key_start, key_end, key_escaped) = match self.pending_key.take() {
            Some(PendingKey {
                range: key_range,
                decoded,
                broken,
            }) => {
                key_broken = broken;
                let escaped = decoded.is_some();
                if let Some(decoded) = decoded {
                    self.escaped_keys.insert(index, decoded);
                }
                (key_range.start as u32, key_range.end as u32, escaped)
            }
            None if self.in_object() => {
                // Every member has a key; recovery should have found one.
                debug_assert!(false, "a member without a key");
                self.escaped_keys.insert(index, "".into());
                (start as u32, start as u32, true)
            }
            None => (NO_KEY, NO_KEY, false),
        };
        if let Some(frame) = self.stack.last_mut() {
            frame.prev_child = frame.last_child;
            frame.last_child = index;
            if frame.listed {
                self.listed_items.push(index);
            }
        }
        self.records.push(Record {
            start: start as u32,
            end: end as u32,
            key_start,
            key_end,
            subtree_end: index + 1,
            kind,
            value_escaped: false,
            key_escaped,
            flags: match (kind, key_broken) {
                (Kind::Error, _) => BROKEN,
                (_, true) => KEY_BROKEN,
                _ => 0,
            },
        });
        index
    }

    /// A bogus value at `start..end`, standing in for one that is missing or unreadable.
    pub(super) fn push_error(&mut self, start: usize, end: usize) {
        self.push(Kind::Error, start, end);
        self.value_end = self.value_end.max(end);
    }

    /// A string, number or literal token as a value.
    fn scalar(&mut self, tok: Tok) -> Expect {
        let range = self.tokens.range();
        let kind = match tok {
            Tok::Str => Kind::String,
            Tok::Num => Kind::Number,
            Tok::True => Kind::True,
            Tok::False => Kind::False,
            Tok::Null => Kind::Null,
            _ => Kind::Error,
        };
        let index = self.push(kind, range.start, range.end);
        if kind == Kind::Error {
            self.broke();
        }
        if let (Tok::Str, Some(decoded)) = (tok, self.tokens.decoded.take()) {
            self.escaped_values.insert(index, decoded.into_boxed_str());
            self.records[index as usize].value_escaped = true;
        }
        self.value_end = range.end;
        self.after_value()
    }

    /// Opens an array or object at the current token (or, recovering, at `start`).
    fn open(&mut self, is_object: bool, start: usize) -> Option<Expect> {
        if self.stack.len() >= self.depth_limit {
            return None;
        }
        let kind = if is_object { Kind::Object } else { Kind::Array };
        // A member of the root object: only the root is open. (A piece's
        // stand-in, open alone, is an array: what it holds is an entry's.)
        let listed = !is_object && matches!(&self.stack[..], [root] if root.is_object);
        let index = self.push(kind, start, self.tokens.pos);
        if listed {
            self.records[index as usize].flags |= LISTED;
        }
        self.stack.push(Frame {
            index,
            is_object,
            keys_base: self.keys.len(),
            key_set: None,
            last_child: NO_CHILD,
            prev_child: NO_CHILD,
            errors: 0,
            listed,
        });
        match is_object {
            true => self.open_objects += 1,
            false => self.open_arrays += 1,
        }
        self.value_end = self.tokens.pos;
        Some(match is_object {
            true => Expect::KeyOrClose { after_comma: false },
            false => Expect::Value { after_comma: false },
        })
    }

    /// Closes the innermost container, ending it at `end`.
    pub(super) fn close(&mut self, end: usize) {
        let frame = self.stack.pop().expect("a container is open");
        match frame.is_object {
            true => self.open_objects -= 1,
            false => self.open_arrays -= 1,
        }
        let subtree_end = self.records.len() as u32;
        let record = &mut self.records[frame.index as usize];
        record.end = end as u32;
        record.subtree_end = subtree_end;
        self.value_end = end;
        if self.stack.is_empty() {
            self.closed_root = Some(frame);
        } else {
            self.keys.truncate(frame.keys_base);
        }
    }

    fn value(&mut self, tok: Tok, after_comma: bool) -> ParseStep {
        let range = self.tokens.range();
        match tok {
            Tok::OpenBrace | Tok::OpenBracket => Next(
                self.open(tok == Tok::OpenBrace, range.start)
                    .unwrap_or_else(|| self.too_deep()),
            ),
            Tok::Str
            | Tok::Num
            | Tok::True
            | Tok::False
            | Tok::Null
            | Tok::BadStr
            | Tok::BadNum => Next(self.scalar(tok)),
            Tok::Word => {
                // Up to where a value would end: `2026-11-29T18:42:07Z"` is one bogus value.
                let end = self.tokens.bogus_end();
                self.tokens.skip_to(end);
                let bogus = &self.text[range.start..end];
                let hint = match bogus.ends_with('"') {
                    true => " (is a string missing its opening quote?)",
                    false => "",
                };
                self.invalid(
                    TextRange::new(range.start, end),
                    || format!("unexpected `{}`; expected a JSON value{hint}", shown(bogus)),
                    true,
                );
                self.push_error(range.start, end);
                Next(self.after_value())
            }
            // `[]`: an empty array closes right away.
            Tok::CloseBracket if !after_comma && self.in_array() => {
                self.close(range.end);
                Next(self.after_value())
            }
            Tok::CloseBracket | Tok::CloseBrace if after_comma => {
                let comma = TextRange::new(self.last_end - 1, self.last_end);
                self.invalid(comma, || "trailing commas are not allowed".into(), false);
                Again(Expect::CommaOrClose)
            }
            Tok::CloseBracket | Tok::CloseBrace | Tok::Comma if self.in_object() => {
                // `"a": }`: the member has no value.
                let found = self.token_text();
                self.invalid(
                    range,
                    || format!("expected a value, found `{}`", found),
                    true,
                );
                self.push_error(self.last_end, self.last_end);
                Again(Expect::CommaOrClose)
            }
            Tok::CloseBracket | Tok::CloseBrace if !self.stack.is_empty() => {
                Again(Expect::CommaOrClose)
            }
            Tok::Comma if !self.stack.is_empty() => {
                let message = match after_comma {
                    true => "an extra comma".to_string(),
                    false => "expected a value, found `,`".to_string(),
                };
                self.invalid(range, || message, true);
                Next(Expect::Value { after_comma: true })
            }
            _ => {
                // At the root, or a colon: nothing to stand for.
                let found = self.token_text();
                self.invalid(
                    range,
                    || format!("expected a value, found `{}`", found),
                    true,
                );
                if self.stack.is_empty() {
                    self.push_error(range.start, range.end);
                    return Next(Expect::End);
                }
                Next(Expect::Value { after_comma })
            }
        }
    }

    /// A key token: remembered for its value, and checked against the object's other keys.
    pub(super) fn key(&mut self, key: Cow<'a, str>, range: TextRange) {
        let frame = self.stack.last_mut().expect("keys appear inside objects");
        let first = match &mut frame.key_set {
            Some(set) => set.get(&*key).copied(),
            None => self.keys[frame.keys_base..]
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, r)| *r),
        };
        if let Some(first) = first {
            self.records[frame.index as usize].flags |= REPEATED_KEYS;
            self.errors.push(SyntaxError {
                kind: SyntaxErrorKind::DuplicateKey {
                    key: key.to_string(),
                    first,
                },
                range,
            });
        }
        match &mut frame.key_set {
            Some(set) => {
                set.entry(key.to_string()).or_insert(range);
            }
            None => {
                self.keys.push((key.clone(), range));
                if self.keys.len() - frame.keys_base > LINEAR_KEYS {
                    let mut set = HashMap::new();
                    for (k, r) in self.keys.drain(frame.keys_base..) {
                        set.entry(k.into_owned()).or_insert(r);
                    }
                    frame.key_set = Some(set);
                }
            }
        }
        let decoded = match key {
            Cow::Owned(decoded) => Some(decoded.into_boxed_str()),
            Cow::Borrowed(_) => None,
        };
        self.pending_key = Some(PendingKey {
            range,
            decoded,
            broken: false,
        });
    }

    /// The current string token as a key.
    fn string_key(&mut self, tok: Tok) {
        let range = self.tokens.range();
        let key = match tok {
            Tok::Str => match self.tokens.decoded.take() {
                Some(decoded) => Cow::Owned(decoded),
                None => Cow::Borrowed(&self.text[range.start + 1..range.end - 1]),
            },
            // A bad string: its content as written.
            _ => Cow::Owned(self.text[range.start + 1..self.tokens.content_end].to_string()),
        };
        self.key(key, range);
        if tok == Tok::BadStr {
            // Which key it was meant to be is unknown: the object may lack any.
            self.lost_content();
            if let Some(pending) = &mut self.pending_key {
                pending.broken = true;
            }
        }
    }

    fn key_or_close(&mut self, tok: Tok, after_comma: bool) -> ParseStep {
        let range = self.tokens.range();
        match tok {
            Tok::Str | Tok::BadStr => {
                self.string_key(tok);
                Next(Expect::Colon)
            }
            Tok::CloseBrace => {
                if after_comma {
                    let comma = TextRange::new(self.last_end - 1, self.last_end);
                    self.invalid(comma, || "trailing commas are not allowed".into(), false);
                }
                self.close(range.end);
                Next(self.after_value())
            }
            Tok::CloseBracket => Again(Expect::CommaOrClose),
            // `{...}, {`: the object's `}` is missing, and this is the next item.
            Tok::OpenBrace | Tok::OpenBracket if after_comma && self.object_in_array() => {
                self.unclosed_before_next_item()
            }
            Tok::Word | Tok::Num | Tok::True | Tok::False | Tok::Null
                if self.tokens.peek_byte() == Some(b':') =>
            {
                // `{a: 1}`: taken as the key it was meant to be.
                let word = self.token_text();
                self.invalid(
                    range,
                    || {
                        format!(
                            "keys must be double-quoted strings, found `{}`",
                            shown(word)
                        )
                    },
                    true,
                );
                self.key(Cow::Owned(word.to_string()), range);
                Next(Expect::Colon)
            }
            Tok::Comma => {
                self.invalid(range, || "an extra comma".into(), true);
                Next(Expect::KeyOrClose { after_comma: true })
            }
            Tok::Colon => {
                self.invalid(
                    range,
                    || "expected a string key before the colon".into(),
                    true,
                );
                self.lost_content();
                Next(Expect::Discard)
            }
            Tok::OpenBrace | Tok::OpenBracket => {
                let found = self.token_text();
                self.invalid(
                    range,
                    || format!("expected a string key, found `{}`", found),
                    true,
                );
                // What is skipped may be items of the array around: the
                // objects up to it, and it, may all lack what they hold.
                self.lost_content_up_to_an_array();
                self.skip_balanced();
                Next(Expect::CommaOrClose)
            }
            _ => {
                let word = self.token_text();
                self.invalid(
                    range,
                    || match tok {
                        Tok::Word => format!(
                            "keys must be double-quoted strings, found `{}`",
                            shown(word)
                        ),
                        _ => format!("expected a string key, found `{}`", shown(word)),
                    },
                    true,
                );
                self.lost_content();
                Next(Expect::KeyOrClose { after_comma })
            }
        }
    }

    fn colon(&mut self, tok: Tok) -> ParseStep {
        let range = self.tokens.range();
        match tok {
            Tok::Colon => {
                self.colon_end = range.end;
                Next(Expect::Value { after_comma: false })
            }
            Tok::Str | Tok::BadStr if self.tokens.peek_byte() == Some(b':') => {
                // `"a"` then `"b": ...`: the key lost its colon and value.
                let at = TextRange::empty(self.last_end);
                self.invalid(at, || "expected a colon after the key".into(), true);
                self.push_error(self.last_end, self.last_end);
                self.string_key(tok);
                Next(Expect::Colon)
            }
            Tok::Comma | Tok::CloseBrace | Tok::CloseBracket => {
                let at = TextRange::empty(self.last_end);
                self.invalid(at, || "expected a colon after the key".into(), true);
                self.push_error(self.last_end, self.last_end);
                Again(Expect::CommaOrClose)
            }
            Tok::Word => {
                // `"a" = 1`: a wrong colon.
                let found = self.token_text();
                self.invalid(
                    range,
                    || format!("expected a colon after the key, found `{}`", shown(found)),
                    true,
                );
                Next(Expect::Value { after_comma: false })
            }
            _ => {
                self.invalid(range, || "expected a colon after the key".into(), true);
                Again(Expect::Value { after_comma: false })
            }
        }
    }

    fn comma_or_close(&mut self, tok: Tok) -> ParseStep {
        let range = self.tokens.range();
        let in_object = self.in_object();
        match tok {
            Tok::Comma if in_object => Next(Expect::KeyOrClose { after_comma: true }),
            Tok::Comma => Next(Expect::Value { after_comma: true }),
            Tok::CloseBrace if in_object => {
                self.close(range.end);
                Next(self.after_value())
            }
            Tok::CloseBracket if !in_object => {
                self.close(range.end);
                Next(self.after_value())
            }
            Tok::CloseBrace | Tok::CloseBracket => {
                let expected = if in_object { "`}`" } else { "`]`" };
                let matches_outer = match tok {
                    Tok::CloseBrace => self.open_objects > 0,
                    _ => self.open_arrays > 0,
                };
                if matches_outer {
                    // `{"a": [1}`: the array's `]` is missing.
                    let at = TextRange::new(self.value_end, range.end);
                    self.invalid(
                        at,
                        || format!("mismatched bracket: expected `,` or {expected}"),
                        true,
                    );
                    self.close_missing();
                    Again(Expect::CommaOrClose)
                } else {
                    self.invalid(
                        range,
                        || format!("mismatched bracket: expected `,` or {expected}"),
                        true,
                    );
                    Next(Expect::CommaOrClose)
                }
            }
            Tok::Colon if self.prev == Tok::Str && self.last_is_string_child() => {
                self.key_after_all(range)
            }
            Tok::Word if self.prev_value_is_error() => {
                // More of the same garbage.
                let last = self.records.len() - 1;
                self.records[last].end = range.end as u32;
                self.value_end = range.end;
                Next(Expect::CommaOrClose)
            }
            Tok::Word | Tok::Colon => {
                let expected = if in_object { "`}`" } else { "`]`" };
                let found = self.token_text();
                self.invalid(
                    range,
                    || format!("unexpected `{}`; expected `,` or {expected}", shown(found)),
                    true,
                );
                Next(Expect::CommaOrClose)
            }
            // `{...} {`: the object's `}` and a comma are missing.
            Tok::OpenBrace | Tok::OpenBracket if self.object_in_array() => {
                self.unclosed_before_next_item()
            }
            _ => {
                // A value where a comma belongs.
                let at = TextRange::empty(self.last_end);
                self.invalid(at, || "expected a comma".into(), true);
                Again(match in_object {
                    true => Expect::KeyOrClose { after_comma: true },
                    false => Expect::Value { after_comma: true },
                })
            }
        }
    }

    fn discard(&mut self, tok: Tok) -> ParseStep {
        match tok {
            Tok::OpenBrace | Tok::OpenBracket => {
                self.skip_balanced();
                Next(Expect::CommaOrClose)
            }
            Tok::Str
            | Tok::BadStr
            | Tok::Num
            | Tok::BadNum
            | Tok::True
            | Tok::False
            | Tok::Null
            | Tok::Word => Next(Expect::CommaOrClose),
            _ => Again(Expect::CommaOrClose),
        }
    }

    fn end(&mut self, tok: Tok) -> ParseStep {
        let range = self.tokens.range();
        let root = self.closed_root.take();
        match (tok, root) {
            (Tok::Comma, Some(root)) => {
                // `{...}}, "more": ...`: a `}` closed the root too early.
                let at = TextRange::new(self.value_end.saturating_sub(1), self.value_end);
                self.invalid(
                    at,
                    || "this bracket closes the document too early: more follows after it".into(),
                    true,
                );
                let is_object = root.is_object;
                self.records[root.index as usize].flags |= BROKEN | INCOMPLETE;
                match is_object {
                    true => self.open_objects += 1,
                    false => self.open_arrays += 1,
                }
                self.stack.push(root);
                Next(match is_object {
                    true => Expect::KeyOrClose { after_comma: true },
                    false => Expect::Value { after_comma: true },
                })
            }
            (_, root) => {
                self.invalid(
                    range,
                    || "more than one JSON value: a report is a single object".into(),
                    false,
                );
                // What is skipped may be the rest of the root, split off by
                // an error before it: the root may lack members it has.
                if let Some(root) = root {
                    self.records[root.index as usize].flags |= INCOMPLETE;
                }
                Next(Expect::Skip)
            }
        }
    }
}

/// A word as it appears in a message, cut short when long.
fn shown(word: &str) -> String {
    match word.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &word[..cut]),
        None => word.to_string(),
    }
}
