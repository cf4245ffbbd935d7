//! The positioned JSON tree of a report: the only user of `jsonc-parser`.
//!
//! Parsing is strict JSON (RFC 8259), and it never fails. `jsonc-parser`'s
//! scanner, with every leniency off, cuts the text into tokens; a thin
//! adapter (`Tokens`) checks what the scanner lets through (raw control
//! characters in strings, vertical tab, form feed and Unicode spaces as
//! whitespace) and, where the scanner stops at an error, gives the bad token
//! the extent a person would see and scans on after it. A state machine over
//! an explicit stack of open containers builds a flat tree straight from the
//! tokens: one small record per value, in document order, holding byte
//! ranges into the text the tree owns, so a report of several megabytes
//! costs a few allocations and no recursion. Strings are not copied; only
//! the rare string with escapes is decoded (by the scanner), once.
//!
//! Parsing returns the tree *and* its errors, for any text. At a syntax
//! error the parser reports it once and recovers, as a person would read the
//! text: a missing comma, colon or closing bracket is taken as there, a
//! missing value becomes an empty [`Value::Error`] node, stray characters
//! become an error node or are skipped. Every container around an error that
//! made the parser guess is marked [`Node::is_broken`]; checks skip broken
//! parts rather than report what the break caused. Errors that leave the
//! value known (a trailing comma, a comment, a raw tab in a string, a
//! repeated key) are reported without breaking anything. At most a few
//! errors are reported per container and [`MAX_SYNTAX_ERRORS`] in all.

use std::borrow::Cow;
// foldhash: keys are paths and member names of the report, hashed by the
// hundred thousand; its seeds are random per process.
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

use jsonc_parser::errors::{ParseError, ParseErrorKind};
use jsonc_parser::tokens::Token;
use jsonc_parser::{ParseStringErrorKind, Scanner, ScannerOptions};

use crate::text::TextRange;

/// Deepest nesting accepted. Nothing recurses over the tree's depth except
/// `validate::same_json`, which this bounds; reports are a few levels deep.
pub const MAX_NESTING_DEPTH: usize = 512;

/// What kind of value a node holds, for messages ("expected a string, found an array").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
    /// A value lost to a syntax error (see [`Node::is_error`]).
    Error,
}

impl JsonType {
    pub fn with_article(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Bool => "a boolean",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
            JsonType::Error => "a broken value",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Null,
    False,
    True,
    Number,
    String,
    Array,
    Object,
    /// Missing or unreadable: a syntax error stands where a value should.
    Error,
}

/// No key: the node is an array item or the root.
const NO_KEY: u32 = u32::MAX;

/// One value. `subtree_end` is the index after its last descendant, so its
/// first child is the next record and each child's `subtree_end` is the next sibling.
#[derive(Clone, Copy, Debug)]
struct Record {
    start: u32,
    end: u32,
    key_start: u32,
    key_end: u32,
    subtree_end: u32,
    kind: Kind,
    /// Whether the value (a string) or the key has escapes, decoded in the tree's side tables.
    value_escaped: bool,
    key_escaped: bool,
    /// [`BROKEN`] and [`INCOMPLETE`].
    flags: u8,
}

/// A parsed JSON document: the text and its values.
#[derive(Clone, Debug)]
pub struct Tree {
    text: Arc<String>,
    records: Vec<Record>,
    /// Decoded strings with escapes, by record index (values) ...
    escaped_values: HashMap<u32, Box<str>>,
    /// ... and keys.
    escaped_keys: HashMap<u32, Box<str>>,
}

impl Tree {
    pub fn root(&self) -> Node<'_> {
        Node {
            tree: self,
            index: 0,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// How many values the document holds.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// A value in a [`Tree`]: a cheap handle.
#[derive(Clone, Copy)]
pub struct Node<'t> {
    tree: &'t Tree,
    index: u32,
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.tree, other.tree) && self.index == other.index
    }
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}@{:?}", self.json_type(), self.range())
    }
}

/// A value's content, for matching.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'t> {
    Null,
    Bool(bool),
    /// The number as written, so integers and their spelling can be checked.
    Number(&'t str),
    /// The string after JSON unescaping.
    String(&'t str),
    Array,
    Object,
    /// Missing or unreadable because of a syntax error.
    Error,
}

/// One `"key": value` pair of an object.
#[derive(Clone, Copy, Debug)]
pub struct Member<'t> {
    /// The key after JSON unescaping.
    pub key: &'t str,
    /// The key's range, quotes included.
    pub key_range: TextRange,
    pub value: Node<'t>,
}

impl Member<'_> {
    /// Whether a syntax error broke the member: its value (see
    /// [`Node::is_broken`]) or its key (an unterminated string).
    pub fn is_broken(&self) -> bool {
        self.value.is_broken() || self.value.record().flags & KEY_BROKEN != 0
    }

    /// From the start of the key to the end of the value.
    pub fn range(&self) -> TextRange {
        TextRange::new(self.key_range.start, self.value.range().end)
    }
}

impl<'t> Node<'t> {
    fn record(self) -> &'t Record {
        &self.tree.records[self.index as usize]
    }

    pub fn range(self) -> TextRange {
        let r = self.record();
        TextRange::new(r.start as usize, r.end as usize)
    }

    pub fn json_type(self) -> JsonType {
        match self.record().kind {
            Kind::Null => JsonType::Null,
            Kind::False | Kind::True => JsonType::Bool,
            Kind::Number => JsonType::Number,
            Kind::String => JsonType::String,
            Kind::Array => JsonType::Array,
            Kind::Object => JsonType::Object,
            Kind::Error => JsonType::Error,
        }
    }

    pub fn value(self) -> Value<'t> {
        let r = self.record();
        match r.kind {
            Kind::Null => Value::Null,
            Kind::False => Value::Bool(false),
            Kind::True => Value::Bool(true),
            Kind::Number => Value::Number(&self.tree.text[r.start as usize..r.end as usize]),
            Kind::String => Value::String(self.string_at(
                r.start,
                r.end,
                r.value_escaped,
                &self.tree.escaped_values,
            )),
            Kind::Array => Value::Array,
            Kind::Object => Value::Object,
            Kind::Error => Value::Error,
        }
    }

    /// Whether the node stands for a value lost to a syntax error: missing
    /// (an empty range where the value belongs, as after `"op_type": `) or
    /// unreadable (an unterminated string, stray characters).
    pub fn is_error(self) -> bool {
        self.record().kind == Kind::Error
    }

    /// Whether the node is an error with nothing written: a missing value.
    pub fn is_missing(self) -> bool {
        self.is_error() && self.range().is_empty()
    }

    /// Whether a syntax error that made the parser guess lies in this
    /// node: it is an error node, or a container with one inside, or one
    /// whose brackets, commas, colons or keys had to be recovered. What a
    /// broken node holds cannot be trusted to be what the author meant, so
    /// checks skip it.
    pub fn is_broken(self) -> bool {
        self.record().flags & BROKEN != 0
    }

    /// Whether an array or object may be missing members or items: it is
    /// not closed before the text ends, or content in it was skipped.
    /// Checks that need all of it ("missing field", "names no entry") say
    /// nothing about an incomplete one.
    pub fn is_incomplete(self) -> bool {
        self.record().flags & INCOMPLETE != 0
    }

    fn string_at(
        self,
        start: u32,
        end: u32,
        escaped: bool,
        decoded: &'t HashMap<u32, Box<str>>,
    ) -> &'t str {
        match escaped {
            true => &decoded[&self.index],
            false => &self.tree.text[start as usize + 1..end as usize - 1],
        }
    }

    pub fn as_str(self) -> Option<&'t str> {
        match self.value() {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(self) -> Option<bool> {
        match self.value() {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn is_null(self) -> bool {
        self.record().kind == Kind::Null
    }

    pub fn is_array(self) -> bool {
        self.record().kind == Kind::Array
    }

    pub fn is_object(self) -> bool {
        self.record().kind == Kind::Object
    }

    /// The children of an array or object, in order (empty for scalars).
    fn children(self) -> impl Iterator<Item = Node<'t>> + Clone + 't {
        let tree = self.tree;
        let end = self.record().subtree_end;
        let mut next = self.index + 1;
        std::iter::from_fn(move || {
            if next >= end {
                return None;
            }
            let node = Node { tree, index: next };
            next = node.record().subtree_end;
            Some(node)
        })
    }

    /// The items of an array, None for anything else.
    pub fn items(self) -> Option<impl Iterator<Item = Node<'t>> + Clone + 't> {
        self.is_array().then(|| self.children())
    }

    /// The members of an object, None for anything else.
    pub fn members(self) -> Option<impl Iterator<Item = Member<'t>> + Clone + 't> {
        self.is_object()
            .then(|| self.children().map(|value| value.as_member()))
    }

    fn as_member(self) -> Member<'t> {
        let r = self.record();
        Member {
            key: self.string_at(
                r.key_start,
                r.key_end,
                r.key_escaped,
                &self.tree.escaped_keys,
            ),
            key_range: TextRange::new(r.key_start as usize, r.key_end as usize),
            value: self,
        }
    }

    /// The member named `key`. When a key is repeated the last one wins, as
    /// in the JSON parsers of the report's consumers (the repeat itself is a
    /// syntax diagnostic).
    pub fn member(self, key: &str) -> Option<Member<'t>> {
        if !self.is_object() {
            return None;
        }
        // A plain loop over the children's records, comparing bytes only
        // when the lengths match: the checks look keys up all the time.
        let records = &self.tree.records;
        let text = self.tree.text.as_bytes();
        let wanted = key.as_bytes();
        let object = &records[self.index as usize];
        let (end, repeats) = (object.subtree_end, object.flags & REPEATED_KEYS != 0);
        let mut next = self.index + 1;
        let mut found = None;
        while next < end {
            let r = &records[next as usize];
            // Quotes included: a key of `wanted.len()` bytes spans two more.
            if r.key_end.wrapping_sub(r.key_start) as usize == wanted.len() + 2 || r.key_escaped {
                let node = Node {
                    tree: self.tree,
                    index: next,
                };
                let matches = match r.key_escaped {
                    true => node.as_member().key == key,
                    // The first byte tells most keys of one length apart
                    // without a call to memcmp.
                    false => {
                        let written = &text[r.key_start as usize + 1..r.key_end as usize - 1];
                        written.first() == wanted.first() && written == wanted
                    }
                };
                if matches {
                    found = Some(node);
                    if !repeats {
                        break;
                    }
                }
            }
            next = r.subtree_end;
        }
        found.map(Node::as_member)
    }

    pub fn get(self, key: &str) -> Option<Node<'t>> {
        self.member(key).map(|m| m.value)
    }

    /// The node at an RFC 6901 JSON pointer (`""` is the node itself).
    pub fn lookup(self, pointer: &str) -> Option<Node<'t>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut node = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            node = match node.record().kind {
                Kind::Object => node.get(&token)?,
                Kind::Array => node.children().nth(parse_array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The chain of nodes from this one down to the innermost that touches
    /// `offset`, with the member each step went through (None for array items).
    pub fn path_to(self, offset: usize) -> Vec<(Option<Member<'t>>, Node<'t>)> {
        if !self.range().touches(offset) {
            return Vec::new();
        }
        let mut path = vec![(None, self)];
        let mut node = self;
        loop {
            let next = match node.record().kind {
                Kind::Object => node
                    .children()
                    .map(|n| n.as_member())
                    .find(|m| m.range().touches(offset))
                    .map(|m| (Some(m), m.value)),
                Kind::Array => node
                    .children()
                    .find(|n| n.range().touches(offset))
                    .map(|n| (None, n)),
                _ => None,
            };
            match next {
                Some(step) => {
                    node = step.1;
                    path.push(step);
                }
                None => return path,
            }
        }
    }
}

fn parse_array_index(token: &str) -> Option<usize> {
    if token.is_empty()
        || (token.len() > 1 && token.starts_with('0'))
        || !token.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    token.parse().ok()
}

/// A reason the text is not one strict JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// The text has no value at all (empty or only whitespace).
    Empty,
    /// What the scanner or our grammar found wrong, as a clause.
    Invalid(String),
    /// Arrays and objects nest deeper than [`MAX_NESTING_DEPTH`].
    NestingTooDeep,
    /// A key repeated in one object; `first` is the range of its first occurrence.
    DuplicateKey { key: String, first: TextRange },
    /// The text is longer than positions can address (4 GiB).
    TooLarge,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    pub range: TextRange,
}

/// A parse: the tree and every syntax error found. The tree is there for
/// any text holding at least one token; where the text is broken it holds
/// [`Value::Error`] nodes and [`Node::is_broken`] containers.
#[derive(Clone, Debug, Default)]
pub struct Parse {
    pub tree: Option<Tree>,
    pub errors: Vec<SyntaxError>,
}

impl Parse {
    pub fn root(&self) -> Option<Node<'_>> {
        self.tree.as_ref().map(Tree::root)
    }
}

/// Syntax errors reported at most for one text; parsing goes on quietly after them.
pub const MAX_SYNTAX_ERRORS: usize = 100;

/// Syntax errors reported at most directly inside one array or object (or
/// around the root), so that one break cannot cascade through its siblings.
pub(crate) const ERRORS_PER_CONTAINER: u16 = 3;

/// Parses `text` as strict JSON into a positioned tree.
pub fn parse(text: &str) -> Parse {
    parse_shared(Arc::new(text.to_string()))
}

/// Parses a text the caller already holds in an `Arc`, without copying it.
pub fn parse_shared(text: Arc<String>) -> Parse {
    parse_nested(text, 0)
}

/// Parses `text` as a value that sits inside `enclosing` open arrays and
/// objects of a larger document (one entry of a report sits inside two), so
/// that the nesting limit counts as it would in the whole document.
pub fn parse_nested(text: Arc<String>, enclosing: usize) -> Parse {
    if text.len() >= u32::MAX as usize {
        return Parse {
            tree: None,
            errors: vec![SyntaxError {
                kind: SyntaxErrorKind::TooLarge,
                range: TextRange::empty(0),
            }],
        };
    }
    let mut parser = Parser::new(&text);
    parser.depth_limit = MAX_NESTING_DEPTH.saturating_sub(enclosing);
    parser.run();
    let Parser {
        mut records,
        escaped_values,
        escaped_keys,
        mut errors,
        ..
    } = parser;
    if records.is_empty() {
        if errors.is_empty() {
            errors.push(SyntaxError {
                kind: SyntaxErrorKind::Empty,
                range: TextRange::new(0, text.len()),
            });
        }
        return Parse { tree: None, errors };
    }
    // Large vectors live in their own mapping, so shrinking is a remap, not a copy.
    records.shrink_to_fit();
    Parse {
        tree: Some(Tree {
            text: text.clone(),
            records,
            escaped_values,
            escaped_keys,
        }),
        errors,
    }
}

// ---------------------------------------------------------------------------
// The tokens: `jsonc-parser`'s scanner, made strict and made to recover.
//
// `jsonc_parser::Scanner`, with every leniency off, does the tokenizing:
// punctuation, literals, numbers, strings (their escapes checked and, when
// there are any, decoded) and comments. What it lets through is checked
// here: whitespace other than JSON's four (vertical tab, form feed, Unicode
// spaces), which it skips, and raw control characters in strings, which it
// keeps. Each token is scanned by a new scanner over the rest of the text
// (a scanner is a few words), so a token can end where we decide. Where the
// scanner stops at an error, the error is reported once and the bad token
// is given the extent a person would see: a whole bare word (the scanner's
// words are identifiers), a whole malformed number, a string up to where it
// ends. A string that runs past a line break the next line does not close
// is being typed: it is ended at that line break.
//
// Hand-written scanning is left only where the scanner cannot say: the end
// of a bare word or malformed number, of a single-quoted string (refused
// outright) and of a string after its first bad escape (the scanner gives
// up there and cannot resume inside a string); the raw control characters
// in a string; and the recovery's lookaheads (`bogus_end`, `peek_byte`,
// `continues_after_break`).

/// Every leniency off: strict JSON (RFC 8259), comments aside.
const STRICT: ScannerOptions = ScannerOptions {
    allow_single_quoted_strings: false,
    allow_hexadecimal_numbers: false,
    allow_unary_plus_numbers: false,
    allow_bare_decimal_point_numbers: false,
    allow_non_finite_numbers: false,
    allow_extended_string_escapes: false,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
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
struct LexError {
    range: TextRange,
    message: String,
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

/// The token source of the [`Parser`]: a thin adapter over `jsonc_parser::Scanner`.
struct Tokens<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The current token's end ...
    pos: usize,
    /// ... and start.
    start: usize,
    /// The current string token's value, when it has escapes.
    decoded: Option<String>,
    /// For a bad or single-quoted string: where its content ends.
    content_end: usize,
    /// The current string token ended at a line break or the end of the
    /// text without its closing quote.
    unterminated: bool,
    /// The first problem in the current token, for the parser to report.
    error: Option<LexError>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a str) -> Tokens<'a> {
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

    fn range(&self) -> TextRange {
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

    /// Ends the current token at `end`, where the next scan starts.
    fn skip_to(&mut self, end: usize) {
        self.pos = end;
    }

    /// Where a bogus value that starts with the current token ends: before
    /// the next `,`, bracket or line end on its line, or after a quote that
    /// closes a string whose opening quote is missing.
    fn bogus_end(&self) -> usize {
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
    fn peek_byte(&self) -> Option<u8> {
        self.bytes[self.pos..]
            .iter()
            .copied()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    }

    #[inline(always)]
    fn scan(&mut self) -> Tok {
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

/// A word as it appears in a message, cut short when long.
fn shown(word: &str) -> String {
    match word.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &word[..cut]),
        None => word.to_string(),
    }
}

// ---------------------------------------------------------------------------
// The parser: an explicit stack of open containers, recovering from every error.

const BROKEN: u8 = 1;
const INCOMPLETE: u8 = 2;
/// On a member's value: the member's key is unreadable (an unterminated string).
const KEY_BROKEN: u8 = 4;
/// On an object: some key in it is repeated, so a lookup must find the last.
const REPEATED_KEYS: u8 = 8;
/// No child yet, in [`Frame::last_child`].
const NO_CHILD: u32 = u32::MAX;

/// One open array or object.
struct Frame {
    index: u32,
    is_object: bool,
    /// Where this object's keys start in `Parser::keys`.
    keys_base: usize,
    /// Built once an object has many keys, so duplicate checks stay linear.
    key_set: Option<HashMap<String, TextRange>>,
    /// The last two children, for recovering a missing bracket.
    last_child: u32,
    prev_child: u32,
    /// Syntax errors reported directly inside it.
    errors: u16,
}

/// What the grammar expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
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
enum Step {
    /// Consumed; go on in this state.
    Next(Expect),
    /// Not consumed; handle it again in this state.
    Again(Expect),
}

use Step::{Again, Next};

struct Parser<'a> {
    text: &'a str,
    tokens: Tokens<'a>,
    records: Vec<Record>,
    stack: Vec<Frame>,
    /// The keys of the open objects, innermost last.
    keys: Vec<(Cow<'a, str>, TextRange)>,
    /// The key waiting for its value.
    pending_key: Option<(TextRange, Option<Box<str>>)>,
    /// Whether that key is unreadable.
    pending_key_broken: bool,
    escaped_values: HashMap<u32, Box<str>>,
    escaped_keys: HashMap<u32, Box<str>>,
    errors: Vec<SyntaxError>,
    /// Syntax errors reported, duplicate keys aside.
    reported: usize,
    /// Errors reported outside every container.
    root_errors: u16,
    /// The end of the last token consumed, for "expected a comma" positions.
    last_end: usize,
    /// The end of the last value completed or container opened: where a
    /// missing closing bracket belongs.
    value_end: usize,
    /// The end of the last colon.
    colon_end: usize,
    /// The kind of the last token consumed.
    prev: Tok,
    /// An error was reported for the current token already (one each).
    token_reported: bool,
    /// The previous token was a string left unterminated at a line break:
    /// the missing comma or colon that follows is part of that one error.
    quiet: bool,
    /// The open arrays and objects, to tell at once whether a stray closing
    /// bracket matches one.
    open_arrays: usize,
    open_objects: usize,
    /// The root once closed, in case a comma shows it was closed too early.
    closed_root: Option<Frame>,
    /// Nothing more to say at the end: the text ended in a region already reported.
    quiet_end: bool,
    /// Containers that may be open at once.
    depth_limit: usize,
}

/// Keys an object may have before duplicate checks switch from a scan to a set.
const LINEAR_KEYS: usize = 16;

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            tokens: Tokens::new(text),
            // A pretty-printed report holds about one value per 25 to 30 bytes;
            // the vector grows past this and is shrunk to fit at the end.
            records: Vec::with_capacity(text.len() / 24),
            stack: Vec::new(),
            keys: Vec::new(),
            pending_key: None,
            pending_key_broken: false,
            escaped_values: HashMap::new(),
            escaped_keys: HashMap::new(),
            errors: Vec::new(),
            reported: 0,
            root_errors: 0,
            last_end: 0,
            value_end: 0,
            colon_end: 0,
            prev: Tok::Eof,
            token_reported: false,
            quiet: false,
            open_arrays: 0,
            open_objects: 0,
            closed_root: None,
            quiet_end: false,
            depth_limit: MAX_NESTING_DEPTH,
        }
    }

    /// Marks the open containers broken (those already marked have their
    /// outer ones marked too).
    fn broke(&mut self) {
        for frame in self.stack.iter().rev() {
            let flags = &mut self.records[frame.index as usize].flags;
            if *flags & BROKEN != 0 {
                break;
            }
            *flags |= BROKEN;
        }
    }

    /// Marks the innermost container as possibly missing members or items.
    fn lost_content(&mut self) {
        if let Some(frame) = self.stack.last() {
            self.records[frame.index as usize].flags |= INCOMPLETE;
        }
        self.broke();
    }

    /// Marks the open containers incomplete from the innermost out to the
    /// nearest array, that one included.
    fn lost_content_up_to_an_array(&mut self) {
        for frame in self.stack.iter().rev() {
            self.records[frame.index as usize].flags |= INCOMPLETE;
            if !frame.is_object {
                break;
            }
        }
        self.broke();
    }

    /// Reports a syntax error unless the current token has one already or a
    /// limit is reached; `breaks` marks the open containers broken either way.
    fn report(&mut self, range: TextRange, kind: impl FnOnce() -> SyntaxErrorKind, breaks: bool) {
        if breaks {
            self.broke();
        }
        if self.token_reported || self.quiet {
            return;
        }
        self.token_reported = true;
        let count = match self.stack.last_mut() {
            Some(frame) => &mut frame.errors,
            None => &mut self.root_errors,
        };
        if *count >= ERRORS_PER_CONTAINER || self.reported >= MAX_SYNTAX_ERRORS {
            return;
        }
        *count += 1;
        self.reported += 1;
        self.errors.push(SyntaxError {
            kind: kind(),
            range: clamp(self.text, range.start, range.end),
        });
    }

    fn invalid(&mut self, range: TextRange, message: impl FnOnce() -> String, breaks: bool) {
        self.report(range, || SyntaxErrorKind::Invalid(message()), breaks);
    }

    fn token_text(&self) -> &'a str {
        &self.text[self.tokens.range().as_range()]
    }

    fn run(&mut self) {
        let mut expect = Expect::Value { after_comma: false };
        loop {
            let tok = self.tokens.scan();
            self.token_reported = false;
            if expect == Expect::Skip {
                if tok == Tok::Eof {
                    return;
                }
                continue;
            }
            if let Some(error) = self.tokens.error.take() {
                // Comments, raw control characters in strings, a byte order
                // mark: reported, but the value stays what is written.
                let breaks = !matches!(tok, Tok::Junk | Tok::Str);
                let quiet = std::mem::take(&mut self.quiet);
                self.invalid(error.range, || error.message, breaks);
                self.quiet = quiet;
            }
            if tok == Tok::Junk {
                continue;
            }
            if tok == Tok::Eof {
                self.finish(expect);
                return;
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
            self.quiet = tok == Tok::BadStr && self.tokens.unterminated;
            self.prev = tok;
            self.last_end = self.tokens.pos;
        }
    }

    #[inline(always)]
    fn step(&mut self, expect: Expect, tok: Tok) -> Step {
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

    fn after_value(&self) -> Expect {
        match self.stack.is_empty() {
            true => Expect::End,
            false => Expect::CommaOrClose,
        }
    }

    fn in_object(&self) -> bool {
        self.stack.last().is_some_and(|f| f.is_object)
    }

    fn in_array(&self) -> bool {
        self.stack.last().is_some_and(|f| !f.is_object)
    }

    /// Adds a record for a value at `start..end` with the pending key.
    fn push(&mut self, kind: Kind, start: usize, end: usize) -> u32 {
        let index = self.records.len() as u32;
        let (key_start, key_end, key_escaped) = match self.pending_key.take() {
            Some((key_range, decoded)) => {
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
            flags: match (kind, std::mem::take(&mut self.pending_key_broken)) {
                (Kind::Error, _) => BROKEN,
                (_, true) => KEY_BROKEN,
                _ => 0,
            },
        });
        index
    }

    /// A bogus value at `start..end`, standing in for one that is missing or unreadable.
    fn push_error(&mut self, start: usize, end: usize) {
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
        let index = self.push(kind, start, self.tokens.pos);
        self.stack.push(Frame {
            index,
            is_object,
            keys_base: self.keys.len(),
            key_set: None,
            last_child: NO_CHILD,
            prev_child: NO_CHILD,
            errors: 0,
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

    /// An opening bracket deeper than the limit: reported, and its whole
    /// content skipped as one bogus value.
    fn too_deep(&mut self) -> Expect {
        let range = self.tokens.range();
        self.report(range, || SyntaxErrorKind::NestingTooDeep, true);
        let end = self.skip_balanced();
        self.push_error(range.start, end);
        self.after_value()
    }

    /// Skips from the opening bracket just scanned to its matching closing
    /// one, or to the end of the text; returns where the skip ended.
    fn skip_balanced(&mut self) -> usize {
        let mut depth = 1usize;
        loop {
            let end = self.tokens.pos;
            match self.tokens.scan() {
                Tok::OpenBrace | Tok::OpenBracket => depth += 1,
                Tok::CloseBrace | Tok::CloseBracket => {
                    depth -= 1;
                    if depth == 0 {
                        return self.tokens.pos;
                    }
                }
                Tok::Eof => {
                    self.quiet_end = true;
                    return end;
                }
                _ => {}
            }
        }
    }

    /// Closes the innermost container, ending it at `end`.
    fn close(&mut self, end: usize) {
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

    /// Closes the innermost container where its closing bracket is missing.
    fn close_missing(&mut self) {
        if let Some(frame) = self.stack.last() {
            self.records[frame.index as usize].flags |= BROKEN;
        }
        self.close(self.value_end);
    }

    fn value(&mut self, tok: Tok, after_comma: bool) -> Step {
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
    fn key(&mut self, key: Cow<'a, str>, range: TextRange) {
        self.pending_key_broken = false;
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
        self.pending_key = Some((range, decoded));
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
            self.pending_key_broken = true;
        }
    }

    fn key_or_close(&mut self, tok: Tok, after_comma: bool) -> Step {
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

    fn colon(&mut self, tok: Tok) -> Step {
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

    fn comma_or_close(&mut self, tok: Tok) -> Step {
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

    /// Whether the innermost container is an object that is an array's item.
    fn object_in_array(&self) -> bool {
        let n = self.stack.len();
        n >= 2 && self.stack[n - 1].is_object && !self.stack[n - 2].is_object
    }

    /// An array or object starts where the innermost object should go on:
    /// that object's `}` is missing, and this is the array's next item.
    fn unclosed_before_next_item(&mut self) -> Step {
        let at = TextRange::empty(self.value_end);
        self.invalid(
            at,
            || "expected `}`: the object is not closed before the next item".into(),
            true,
        );
        self.close_missing();
        Again(Expect::Value { after_comma: true })
    }

    /// The last record is a string value just read, a direct child of the innermost container.
    fn last_is_string_child(&self) -> bool {
        let last = self.records.len().wrapping_sub(1) as u32;
        self.stack.last().is_some_and(|f| {
            f.last_child == last && self.records[last as usize].kind == Kind::String
        })
    }

    fn prev_value_is_error(&self) -> bool {
        matches!(self.prev, Tok::Word | Tok::BadNum)
            && self
                .records
                .last()
                .is_some_and(|r| r.kind == Kind::Error && r.end as usize == self.last_end)
    }

    /// A colon after a string value: the string was a key after all. Either
    /// the bracket that opens its object is missing, or (in an object) the
    /// member before it has no value, or (in an array) the array's `]` is missing.
    fn key_after_all(&mut self, colon: TextRange) -> Step {
        let s = self.records.len() - 1;
        let string = self.records[s];
        let frame = self.stack.last().expect("inside a container");
        let key: Cow<'a, str> = match string.value_escaped {
            true => Cow::Owned(
                self.escaped_values
                    .remove(&(s as u32))
                    .unwrap_or_default()
                    .into(),
            ),
            false => Cow::Borrowed(&self.text[string.start as usize + 1..string.end as usize - 1]),
        };
        let key_range = TextRange::new(string.start as usize, string.end as usize);
        self.records[s].value_escaped = false;
        let opens_object = match frame.is_object {
            // On a line of its own, deeper than the member's key: the first
            // key of an object whose `{` is missing; else the next key,
            // after a missing value (a value being typed).
            true => {
                let member_key = string.key_start as usize;
                let between = &self.text[member_key..string.start as usize];
                between.contains('\n')
                    && column(self.text, string.start as usize) > column(self.text, member_key)
            }
            // After items that are no objects: the array's `]` is missing.
            false => {
                let prev = frame.prev_child;
                prev == NO_CHILD || self.records[prev as usize].kind == Kind::Object
            }
        };
        let can_open = self.stack.len() < self.depth_limit;
        if opens_object && can_open {
            let at = TextRange::empty(string.start as usize);
            self.invalid(at, || "expected `{` before this key".into(), true);
            self.records[s].kind = Kind::Object;
            self.stack.push(Frame {
                index: s as u32,
                is_object: true,
                keys_base: self.keys.len(),
                key_set: None,
                last_child: NO_CHILD,
                prev_child: NO_CHILD,
                errors: 0,
            });
            self.open_objects += 1;
            self.records[s].flags |= BROKEN;
            self.broke();
        } else if frame.is_object {
            // After the member's colon; a member may have lost its colon too.
            let colon_end = self.colon_end.max(string.key_end as usize);
            let at = TextRange::empty(colon_end);
            self.invalid(at, || "expected a value after the colon".into(), true);
            let record = &mut self.records[s];
            record.kind = Kind::Error;
            record.flags |= BROKEN;
            (record.start, record.end) = (colon_end as u32, colon_end as u32);
            self.broke();
        } else {
            let stack_len = self.stack.len();
            if stack_len < 2 || !self.stack[stack_len - 2].is_object {
                self.invalid(colon, || "unexpected `:` in an array".into(), true);
                return Next(Expect::CommaOrClose);
            }
            let before = match frame.prev_child {
                NO_CHILD => self.records[frame.index as usize].start as usize + 1,
                prev => self.records[prev as usize].end as usize,
            };
            let at = TextRange::empty(before);
            self.invalid(
                at,
                || "expected `]`: the array is not closed before this key".into(),
                true,
            );
            self.records.pop();
            self.value_end = before;
            self.close_missing();
        }
        self.key(key, key_range);
        self.colon_end = colon.end;
        Next(Expect::Value { after_comma: false })
    }

    fn discard(&mut self, tok: Tok) -> Step {
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

    fn end(&mut self, tok: Tok) -> Step {
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

    /// At the end of the text: what is open is closed, and reported once.
    fn finish(&mut self, expect: Expect) {
        let quiet = self.quiet_end || (self.prev == Tok::BadStr && self.tokens.unterminated);
        match expect {
            Expect::Colon => self.push_error(self.last_end, self.last_end),
            Expect::Value { .. } if self.in_object() => {
                self.push_error(self.last_end, self.last_end)
            }
            _ => {}
        }
        let Some(innermost) = self.stack.last() else {
            return;
        };
        let record = self.records[innermost.index as usize];
        let what = if innermost.is_object {
            "object"
        } else {
            "array"
        };
        if !quiet {
            let start = record.start as usize;
            self.token_reported = false;
            self.invalid(
                TextRange::new(start, start + 1),
                || format!("unterminated {what}: the text ends before it is closed"),
                true,
            );
        }
        for frame in &self.stack {
            self.records[frame.index as usize].flags |= BROKEN | INCOMPLETE;
        }
        self.value_end = self.last_end;
        while !self.stack.is_empty() {
            self.close(self.last_end);
        }
    }
}

/// The column of `offset` in bytes from its line's start.
fn column(text: &str, offset: usize) -> usize {
    offset - text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

fn clamp(text: &str, start: usize, end: usize) -> TextRange {
    let mut end = end.min(text.len());
    let mut start = start.min(end);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while !text.is_char_boundary(end) {
        end += 1;
    }
    TextRange::new(start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> SyntaxError {
        let parse = parse(text);
        assert!(!parse.errors.is_empty(), "{text:?} parsed without errors");
        parse.errors[0].clone()
    }

    fn message_of(text: &str) -> String {
        match error_of(text).kind {
            SyntaxErrorKind::Invalid(message) => message,
            other => panic!("{text:?}: {other:?}"),
        }
    }

    #[test]
    fn builds_a_positioned_tree() {
        let text = r#"{"a": [1, "x\u00e9"], "b": {"c": null}}"#;
        let parse = parse(text);
        let root = parse.root().unwrap();
        let a = root.member("a").unwrap();
        assert_eq!(&text[a.key_range.as_range()], "\"a\"");
        assert_eq!(&text[a.value.range().as_range()], r#"[1, "x\u00e9"]"#);
        assert_eq!(root.lookup("/a/1").unwrap().as_str(), Some("xé"));
        assert_eq!(root.lookup("/a/0").unwrap().value(), Value::Number("1"));
        assert_eq!(root.lookup("/b/c").unwrap().json_type(), JsonType::Null);
        assert_eq!(root.lookup("/a/01"), None);
        assert_eq!(root.lookup(""), Some(root));
        assert_eq!(
            root.members().unwrap().map(|m| m.key).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(root.get("b").unwrap().members().unwrap().count(), 1);
        assert_eq!(parse.tree.as_ref().unwrap().len(), 6);
    }

    #[test]
    fn escaped_keys_and_strings_are_decoded() {
        let text = r#"{"a\/b": {"~": "\ud83d\ude00\n"}, "plain": "x"}"#;
        let parse = parse(text);
        let root = parse.root().unwrap();
        assert_eq!(root.lookup("/a~1b/~0").unwrap().as_str(), Some("😀\n"));
        assert_eq!(root.members().unwrap().next().unwrap().key, "a/b");
    }

    #[test]
    fn empty_containers_and_scalars_at_the_root() {
        for (text, json_type) in [
            ("{}", JsonType::Object),
            ("[]", JsonType::Array),
            (" 1 ", JsonType::Number),
            ("\"s\"", JsonType::String),
            ("[[], {}]", JsonType::Array),
        ] {
            let parse = parse(text);
            assert!(parse.errors.is_empty(), "{text:?}: {:?}", parse.errors);
            assert_eq!(parse.root().unwrap().json_type(), json_type, "{text:?}");
        }
        let parse = parse("[[], {}, [1]]");
        let items: Vec<_> = parse
            .root()
            .unwrap()
            .items()
            .unwrap()
            .map(|n| n.json_type())
            .collect();
        assert_eq!(items, [JsonType::Array, JsonType::Object, JsonType::Array]);
    }

    #[test]
    fn path_to_descends_to_the_innermost_node() {
        let text = r#"{"a": [1, {"b": true}]}"#;
        let parse = parse(text);
        let path = parse.root().unwrap().path_to(text.find("true").unwrap());
        let keys: Vec<_> = path.iter().map(|(m, _)| m.map(|m| m.key)).collect();
        assert_eq!(keys, [None, Some("a"), None, Some("b")]);
    }

    #[test]
    fn every_leniency_is_rejected_with_a_clear_message() {
        let cases = [
            ("{\"a\": 1,}", "trailing commas are not allowed"),
            ("[1,]", "trailing commas are not allowed"),
            ("{\"a\": 1 // c\n}", "comments are not allowed in JSON"),
            ("{a: 1}", "keys must be double-quoted strings, found `a`"),
            ("{\"a\": 'x'}", "single-quoted strings are not allowed"),
            ("{\"a\": 0x1F}", "hexadecimal numbers are not allowed"),
            ("{\"a\": +1}", "unary plus on numbers is not allowed"),
            (
                "{\"a\": .5}",
                "leading or trailing decimal points on numbers are not allowed",
            ),
            (
                "{\"a\": 5.}",
                "leading or trailing decimal points on numbers are not allowed",
            ),
            ("{\"a\": NaN}", "unexpected `NaN`; expected a JSON value"),
            ("{\"a\": 1 \"b\": 2}", "expected a comma"),
            ("{\"a\": 01}", "expected a comma"),
            (
                "{\"a\": \"x\ty\"}",
                "a raw tab inside a string; write it as \\t",
            ),
            (
                "{} {}",
                "more than one JSON value: a report is a single object",
            ),
            ("{\"a\" 1}", "expected a colon after the key"),
            ("[1}", "mismatched bracket: expected `,` or `]`"),
            ("{\"a\": [1, 2}", "mismatched bracket: expected `,` or `]`"),
            ("{\"a\": }", "expected a value, found `}`"),
            ("[\"abc", "unterminated string literal"),
            (
                "{\"a\": [1, 2",
                "unterminated array: the text ends before it is closed",
            ),
            (
                "{\"a\": 1",
                "unterminated object: the text ends before it is closed",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(message_of(text), expected, "{text:?}");
        }
        for text in [
            "{\"a\": \"x\u{1}y\"}",
            "\u{b}{}",
            "\u{c}{}",
            "\u{feff}{}",
            "{\"a\": \"\\ud800\"}",
            "{\"a\": \"\\x41\"}",
        ] {
            assert!(
                matches!(error_of(text).kind, SyntaxErrorKind::Invalid(_)),
                "{text:?}"
            );
        }
    }

    #[test]
    fn empty_text_is_its_own_error() {
        for text in ["", "  \n"] {
            assert_eq!(error_of(text).kind, SyntaxErrorKind::Empty);
        }
    }

    #[test]
    fn duplicate_keys_point_at_the_repeat_and_the_first() {
        let text = r#"{"a": 1, "b": 2, "a": 3}"#;
        let error = error_of(text);
        assert_eq!(error.range, TextRange::new(17, 20));
        assert_eq!(
            error.kind,
            SyntaxErrorKind::DuplicateKey {
                key: "a".into(),
                first: TextRange::new(1, 4)
            }
        );
        // The last occurrence wins, as in the consumers' parsers.
        let parse = parse(text);
        assert_eq!(
            parse.root().unwrap().get("a").unwrap().value(),
            Value::Number("3")
        );
    }

    #[test]
    fn duplicate_keys_are_found_in_large_objects_and_not_across_objects() {
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{i}\": {{\"k{i}\": 1}}, "));
        }
        text.push_str("\"k3\": 0}");
        let parse = parse(&text);
        assert_eq!(parse.errors.len(), 1, "{:?}", parse.errors);
        assert!(
            matches!(parse.errors[0].kind, SyntaxErrorKind::DuplicateKey { ref key, .. } if key == "k3")
        );
        // Past the linear scan too, the last occurrence wins.
        let root = parse.root().unwrap();
        assert_eq!(root.get("k3").unwrap().value(), Value::Number("0"));
        assert!(root.get("k4").unwrap().is_object());
    }

    #[test]
    fn a_huge_object_is_checked_in_linear_time() {
        let mut text = String::from("{");
        for i in 0..200_000 {
            text.push_str(&format!("\"k{i}\": {i},"));
        }
        text.push_str("\"end\": 0}");
        let parse = parse(&text);
        assert!(parse.errors.is_empty());
        assert_eq!(parse.root().unwrap().members().unwrap().count(), 200_001);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(100_000);
        assert_eq!(error_of(&text).kind, SyntaxErrorKind::NestingTooDeep);
        let text = format!(
            "{}{}",
            "[".repeat(MAX_NESTING_DEPTH),
            "]".repeat(MAX_NESTING_DEPTH)
        );
        assert!(parse(&text).errors.is_empty());
    }

    #[test]
    fn error_ranges_stay_on_character_boundaries() {
        for text in ["{\"é\": é}", "{\"a\": \"é", "[1, 2 é]"] {
            let error = error_of(text);
            assert!(
                text.is_char_boundary(error.range.start) && text.is_char_boundary(error.range.end),
                "{text:?}"
            );
        }
    }

    /// Every error of `text`, as messages (duplicate keys shown by key).
    fn messages(text: &str) -> Vec<String> {
        parse(text)
            .errors
            .iter()
            .map(|e| match &e.kind {
                SyntaxErrorKind::Invalid(message) => message.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    /// Each class of text strict JSON accepts, in small cases of our own.
    #[test]
    fn strict_json_is_accepted_in_every_form() {
        for text in [
            "-0",
            "0.5e-3",
            "1E+2",
            "-1.25e10",
            "1e999",
            "123456789012345678901234567890",
            r#""\"\\\/\b\f\n\r\t""#,
            r#""\u0000\u001f\u00e9\uD834\uDD1E""#,
            "\"é 日本 😀 \u{2028} \u{7f}\"",
            "\"\"",
            "{\"\": 1}",
            "[[[]], {}, [{}], {\"a\": []}]",
            " \t\r\n[ 1 , 2 ]\r\n ",
            "true",
            "null",
            "[false, true, null]",
            "{\"a\": {\"b\": {\"c\": [1, \"x\", null]}}}",
        ] {
            let parse = parse(text);
            assert!(parse.errors.is_empty(), "{text:?}: {:?}", parse.errors);
            let root = parse.root().unwrap();
            assert!(!root.is_broken() && !root.is_incomplete(), "{text:?}");
        }
        assert_eq!(
            parse(r#""\uD834\uDD1E""#).root().unwrap().as_str(),
            Some("𝄞")
        );
    }

    /// Each class of text strict JSON rejects: every one is an error.
    #[test]
    fn every_kind_of_invalid_json_is_rejected() {
        for text in [
            // Numbers.
            "-",
            "1.",
            ".1",
            "+1",
            "1e",
            "1e+",
            "0x10",
            "Infinity",
            "-Infinity",
            "NaN",
            "1.5.3",
            "12px",
            "- 1",
            "[01]",
            "[-01]",
            "2.e3",
            // Literals.
            "tru",
            "True",
            "nul",
            "falsey",
            "[true false]",
            // Strings.
            "\"abc",
            "\"a\\x\"",
            "\"\\'\"",
            "\"\\U0041\"",
            "\"\\u12\"",
            "\"\\u12zz\"",
            "\"\\",
            "'a'",
            "\"\\uDD1E\"",
            "\"\\uD834x\"",
            // Structure.
            "[1,]",
            "[,1]",
            "[1,,2]",
            "{\"a\":1,}",
            "{,}",
            "{\"a\"}",
            "{\"a\" 1}",
            "{1:1}",
            "{'a':1}",
            "[\"a\" \"b\"]",
            "[1]]",
            "[1",
            "{",
            "]",
            "}",
            "[}",
            "{]",
            ":",
            ",",
            "[1]x",
            "{} {}",
            "[1] 2",
            "{\"a\" : : 1}",
            "{:1}",
            "{\"a\":1 \"b\":2}",
            // What is no whitespace, and what is no JSON at all.
            "// c\n1",
            "/* c */ 1",
            "\u{feff}1",
            "\u{b}1",
            "\u{c}1",
            "\u{a0}1",
            "1\u{0}",
            "#",
            "\u{3000}",
            "",
        ] {
            assert!(!parse(text).errors.is_empty(), "{text:?} was accepted");
        }
    }

    /// Invariant 1: a raw control character inside a string is an error,
    /// line feed and carriage return included, and the message says how to
    /// escape it.
    #[test]
    fn raw_control_characters_in_strings_say_how_to_escape_them() {
        for byte in 0u8..0x20 {
            let text = format!("[\"a{}b\"]", byte as char);
            let messages = messages(&text);
            let expected = match byte {
                b'\n' => "\\n".to_string(),
                b'\r' => "\\r".to_string(),
                b'\t' => "\\t".to_string(),
                _ => format!("\\u{byte:04x}"),
            };
            assert_eq!(messages.len(), 1, "U+{byte:04X}: {messages:?}");
            assert!(
                messages[0].contains(&expected),
                "U+{byte:04X}: {messages:?}"
            );
        }
        // The value is still what is written: the string breaks nothing.
        let parse = parse("{\"op\": \"re\nwrite\", \"b\": 1}");
        let root = parse.root().unwrap();
        assert_eq!(root.get("op").unwrap().as_str(), Some("re\nwrite"));
        assert!(!root.is_broken());
    }

    /// The members of an object as `key=value` (`key=!` for an error node).
    fn shape(node: Node<'_>) -> String {
        let render = |n: Node<'_>| match n.value() {
            Value::Error if n.is_missing() => "!missing".to_string(),
            Value::Error => "!".to_string(),
            Value::Object => format!("{{{}}}", shape(n)),
            Value::Array => format!(
                "[{}]",
                n.items()
                    .unwrap()
                    .map(|i| match i.value() {
                        Value::Object => format!("{{{}}}", shape(i)),
                        Value::Error => "!".into(),
                        _ => n.tree.text()[i.range().as_range()].to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            _ => n.tree.text()[n.range().as_range()].to_string(),
        };
        match node.members() {
            Some(members) => members
                .map(|m| format!("{}={}", m.key, render(m.value)))
                .collect::<Vec<_>>()
                .join(" "),
            None => render(node),
        }
    }

    /// Each way of breaking JSON: one error, and the tree a reader would see.
    #[test]
    fn each_break_gives_one_error_and_the_tree_around_it() {
        let cases = [
            // Missing comma, extra comma, missing colon, missing value.
            ("{\"a\": 1 \"b\": 2}", "a=1 b=2", "expected a comma"),
            ("{\"a\": 1,, \"b\": 2}", "a=1 b=2", "an extra comma"),
            (
                "{\"a\" 1, \"b\": 2}",
                "a=1 b=2",
                "expected a colon after the key",
            ),
            (
                "{\"a\": , \"b\": 2}",
                "a=!missing b=2",
                "expected a value, found `,`",
            ),
            (
                "{\n  \"a\": \n  \"b\": 2}",
                "a=!missing b=2",
                "expected a value after the colon",
            ),
            (
                "{\"a\"\n  \"b\": 2}",
                "a=!missing b=2",
                "expected a colon after the key",
            ),
            // Unterminated strings: a value being typed, a key being typed.
            (
                "{\"a\": \"de\n  \"b\": 2}",
                "a=! b=2",
                "unterminated string literal: the line ends before its closing `\"`; a line break inside a string is written \\n",
            ),
            (
                "{\"a\": 1,\n  \"b\n  \"c\": 2}",
                "a=1 b=!missing c=2",
                "unterminated string literal: the line ends before its closing `\"`; a line break inside a string is written \\n",
            ),
            (
                "{\"a\": \"n, \"b\": 2}",
                "a=! b=2",
                "unterminated string literal: it has no closing `\"` before the next string",
            ),
            (
                "{\"a\": \"n \"b\": 2}",
                "a=! b=2",
                "unterminated string literal: it has no closing `\"` before the next string",
            ),
            // Missing brackets.
            (
                "{\"e\": [{\"x\": 1, {\"x\": 2}]}",
                "e=[{x=1} {x=2}]",
                "expected `}`: the object is not closed before the next item",
            ),
            (
                "{\"e\": [{\"x\": 1}, \"x\": 2}]}",
                "e=[{x=1} {x=2}]",
                "expected `{` before this key",
            ),
            (
                "{\n  \"s\":\n    \"x\": 1, \"y\": 2},\n  \"b\": 3}",
                "s={x=1 y=2} b=3",
                "expected `{` before this key",
            ),
            (
                "{\"a\": \"b\": 2}",
                "a=!missing b=2",
                "expected a value after the colon",
            ),
            (
                "{\"a\": [\"x\", \"b\": 2}",
                "a=[\"x\"] b=2",
                "expected `]`: the array is not closed before this key",
            ),
            (
                "{\"a\": [1, 2}",
                "a=[1 2]",
                "mismatched bracket: expected `,` or `]`",
            ),
            (
                "{\"e\": [{\"x\": 1\n]}",
                "e=[{x=1}]",
                "mismatched bracket: expected `,` or `}`",
            ),
            (
                "{\"a\": {\"x\": 1}}, \"b\": 2}",
                "a={x=1} b=2",
                "this bracket closes the document too early: more follows after it",
            ),
            // Stray characters.
            (
                "{\"a\": foo, \"b\": 2}",
                "a=! b=2",
                "unexpected `foo`; expected a JSON value",
            ),
            (
                "{\"a\": 2026-11-29T18:42:07Z\", \"b\": 2}",
                "a=! b=2",
                "unexpected `2026-11-29T18:42:07Z\"`; expected a JSON value (is a string missing its opening quote?)",
            ),
            (
                "{\"a\": 1, @@ \"b\": 2}",
                "a=1 b=2",
                "keys must be double-quoted strings, found `@@`",
            ),
            (
                "{\"a\": 1 @@, \"b\": 2}",
                "a=1 b=2",
                "unexpected `@@`; expected `,` or `}`",
            ),
            (
                "{a: 1, \"b\": 2}",
                "a=1 b=2",
                "keys must be double-quoted strings, found `a`",
            ),
            // Errors that break nothing.
            (
                "{\"a\": 1, \"b\": 2,}",
                "a=1 b=2",
                "trailing commas are not allowed",
            ),
            (
                "{\"a\": 1, /* c */ \"b\": 2}",
                "a=1 b=2",
                "comments are not allowed in JSON",
            ),
        ];
        for (text, expected_shape, expected_message) in cases {
            let parse = parse(text);
            let root = parse.root().unwrap();
            assert_eq!(shape(root), expected_shape, "{text:?}");
            assert_eq!(messages(text), [expected_message], "{text:?}");
            check_ranges(&parse);
        }
        // Only what made the parser guess breaks the containers around it.
        assert!(!parse("{\"a\": [1, 2,]}").root().unwrap().is_broken());
        let parse = parse("{\"e\": [{\"x\": 1, {\"x\": 2}]}");
        let items: Vec<_> = parse
            .root()
            .unwrap()
            .lookup("/e")
            .unwrap()
            .items()
            .unwrap()
            .collect();
        assert!(items[0].is_broken() && !items[1].is_broken());
        assert!(parse.root().unwrap().is_broken() && !parse.root().unwrap().is_incomplete());
    }

    #[test]
    fn a_value_skipped_where_a_key_belongs_may_be_items_of_the_array_around() {
        // The `{` may open the array's next item, whose object lost its `}`:
        // the objects out to the array, and the array, may lack what they hold.
        let text = "{\"e\": [{\"k\": {\"x\": 1, {\"y\": 2}}, {\"z\": 3}], \"p\": 1}";
        let parsed = parse(text);
        let root = parsed.root().unwrap();
        let array = root.get("e").unwrap();
        assert!(array.is_incomplete(), "{:?}", messages(text));
        let first = array.items().unwrap().next().unwrap();
        assert!(first.is_incomplete());
        assert!(first.get("k").unwrap().is_incomplete());
        // Outside the array nothing is lost.
        assert!(!root.is_incomplete());
        assert_eq!(root.get("p").unwrap().value(), Value::Number("1"));
    }

    #[test]
    fn a_root_split_off_by_an_error_may_lack_what_follows() {
        // A stray `}` ends the root, and its last member is skipped as a
        // second value: the root is incomplete, so no check calls it missing.
        let text = "{\"a\": {\"b\": 1}},\n\"c\": [] }";
        let parsed = parse(text);
        assert!(parsed.root().unwrap().is_incomplete());
        let text = "{\"a\": {\"b\": 1}}}\n\"c\": [] }";
        let parsed = parse(text);
        let root = parsed.root().unwrap();
        assert!(root.is_incomplete(), "{:?}", messages(text));
        assert!(root.get("c").is_none());
        // A complete root stays complete.
        assert!(!parse("{\"a\": 1}").root().unwrap().is_incomplete());
    }

    #[test]
    fn unclosed_text_keeps_what_it_holds_and_is_incomplete() {
        let text = "{\"e\": [{\"x\": 1}, {\"x\": 2, \"y\": [3";
        let parse = parse(text);
        assert_eq!(
            messages(text),
            ["unterminated array: the text ends before it is closed"]
        );
        let root = parse.root().unwrap();
        assert_eq!(shape(root), "e=[{x=1} {x=2 y=[3]}]");
        assert!(root.is_incomplete());
        let entries = root.get("e").unwrap();
        assert!(!entries.items().unwrap().next().unwrap().is_broken());
        assert_eq!(root.range().end, text.len());
        // Truncated inside a string: that is the one error.
        assert_eq!(messages("{\"e\": [\"ab"), ["unterminated string literal"]);
    }

    /// What a completion needs from half-typed text: the member being typed, and its value.
    #[test]
    fn a_half_typed_value_is_found_by_its_path() {
        for (text, missing) in [
            ("{\"entries\": [{\"path\": \"a\", \"op_type\": \"de", false),
            ("{\"entries\": [{\"path\": \"a\", \"op_type\": ", true),
            (
                "{\"entries\": [{\"path\": \"a\", \"op_type\": \n  }]}",
                true,
            ),
        ] {
            let parse = parse(text);
            let offset = text.trim_end_matches(['\n', ' ', '}', ']']).len();
            let path = parse.root().unwrap().path_to(offset);
            let keys: Vec<_> = path.iter().map(|(m, _)| m.map(|m| m.key)).collect();
            assert_eq!(
                keys,
                [None, Some("entries"), None, Some("op_type")],
                "{text:?}"
            );
            let value = path.last().unwrap().1;
            assert!(value.is_error(), "{text:?}");
            assert_eq!(value.is_missing(), missing, "{text:?}");
        }
    }

    /// Every node lies inside the text and inside its parent, in order.
    fn check_ranges(parse: &Parse) {
        let Some(tree) = &parse.tree else { return };
        let len = tree.text().len();
        let mut stack = vec![tree.root()];
        while let Some(node) = stack.pop() {
            let range = node.range();
            assert!(range.start <= range.end && range.end <= len, "{range:?}");
            let mut previous_end = range.start;
            for child in node.children() {
                let r = child.range();
                assert!(
                    r.start >= previous_end && r.end <= range.end,
                    "{r:?} in {range:?}"
                );
                if let Some(members) = node.members() {
                    let _ = members.count();
                    let m = child.as_member();
                    assert!(
                        m.key_range.start >= previous_end && m.key_range.end <= r.start,
                        "{:?} before {r:?}",
                        m.key_range
                    );
                }
                previous_end = r.end;
                stack.push(child);
            }
        }
        for error in &parse.errors {
            assert!(error.range.end <= len);
        }
    }

    #[test]
    fn bad_input_gives_a_bounded_number_of_errors() {
        let mut rng = fastrand::Rng::with_seed(5);
        let alphabet: Vec<char> = "{}[],:\"'\\ \n\t1-.eE0tfnu#@xé😀/*".chars().collect();
        let garbage: String = (0..1 << 20)
            .map(|_| alphabet[rng.usize(..alphabet.len())])
            .collect();
        let line = "x!".repeat(1 << 19);
        for text in [
            "[".repeat(100_000),
            "{".repeat(100_000),
            "]".repeat(100_000),
            "{\"a\":[".repeat(50_000),
            ",".repeat(100_000),
            "\"".repeat(100_001),
            garbage,
            format!("{{\"a\": {line}}}"),
            format!("[{line}"),
        ] {
            let parse = parse(&text);
            assert!(parse.root().is_some());
            let syntax = parse
                .errors
                .iter()
                .filter(|e| !matches!(e.kind, SyntaxErrorKind::DuplicateKey { .. }))
                .count();
            assert!((1..=MAX_SYNTAX_ERRORS).contains(&syntax), "{syntax} errors");
            check_ranges(&parse);
        }
        // A member that lost its colon, then turns out to be followed by a key.
        check_ranges(&parse("{\"a\": 1, \"k\" \"v\" /**/ : 2}"));
        for _ in 0..3000 {
            let len = rng.usize(0..40);
            let text: String = (0..len)
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect();
            let parse = parse(&text);
            check_ranges(&parse);
            assert!(
                parse.errors.len() <= 3 * len + 1,
                "{text:?}: {:?}",
                parse.errors
            );
        }
    }

    fn to_serde(node: Node<'_>) -> serde_json::Value {
        match node.value() {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(raw) => serde_json::from_str(raw).unwrap(),
            Value::String(s) => serde_json::Value::String(s.to_string()),
            Value::Array => serde_json::Value::Array(node.items().unwrap().map(to_serde).collect()),
            Value::Object => serde_json::Value::Object(
                node.members()
                    .unwrap()
                    .map(|m| (m.key.to_string(), to_serde(m.value)))
                    .collect(),
            ),
            Value::Error => panic!("an error node"),
        }
    }

    /// On random short texts, whatever a strict parser accepts parses
    /// without errors to the same value, and whatever it rejects for its
    /// syntax has an error here.
    #[test]
    fn agrees_with_a_strict_parser_on_random_text() {
        let mut rng = fastrand::Rng::with_seed(9);
        let pieces = [
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\n",
            "\"a\"",
            "\"b\"",
            "\"\\u00e9\"",
            "\"\\n\"",
            "1",
            "-2.5e3",
            "/**/",
            "'",
            "0",
            "true",
            "null",
            "\"",
            "\\",
            "x",
            "é",
        ];
        let mut accepted = 0;
        for _ in 0..20_000 {
            let text: String = (0..rng.usize(1..12))
                .map(|_| pieces[rng.usize(..pieces.len())])
                .collect();
            let parse = parse(&text);
            check_ranges(&parse);
            let only_duplicates = parse
                .errors
                .iter()
                .all(|e| matches!(e.kind, SyntaxErrorKind::DuplicateKey { .. }));
            match serde_json::from_str::<serde_json::Value>(&text) {
                Ok(expected) => {
                    accepted += 1;
                    assert!(only_duplicates, "{text:?}: {:?}", parse.errors);
                    if parse.errors.is_empty() {
                        assert_eq!(to_serde(parse.root().unwrap()), expected, "{text:?}");
                    }
                }
                // Numbers of any size are JSON; serde_json refuses those past f64.
                Err(error) if error.to_string().contains("number out of range") => {}
                Err(error) if error.is_syntax() || error.is_eof() => {
                    assert!(!only_duplicates, "{text:?} accepted");
                }
                Err(_) => {}
            }
        }
        assert!(accepted > 500, "{accepted}");
    }
}
