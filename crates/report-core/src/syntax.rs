//! The positioned JSON tree of a report: the only user of `jsonc-parser`.
//!
//! Parsing is strict JSON (RFC 8259). We drive `jsonc-parser`'s scanner with
//! every leniency off and build a flat tree straight from its tokens: one
//! small record per value, in document order, holding byte ranges into the
//! text the tree owns, so a report of several megabytes costs a few
//! allocations and no recursion. Strings are not copied; only the rare
//! string with escapes is decoded, once. Raw control characters in strings,
//! vertical tab and form feed as whitespace, which the scanner lets through,
//! are checked here. Parsing returns the tree *and* its errors; a syntax
//! error leaves no tree.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use jsonc_parser::errors::ParseErrorKind;
use jsonc_parser::tokens::Token;
use jsonc_parser::{Scanner, ScannerOptions};

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
        }
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
        self.members()?.filter(|m| m.key == key).last()
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

/// A parse: the tree when the text is valid JSON, and every syntax error found.
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
    let failed = |error: SyntaxError| Parse {
        tree: None,
        errors: vec![error],
    };
    if text.len() >= u32::MAX as usize {
        return failed(SyntaxError {
            kind: SyntaxErrorKind::TooLarge,
            range: TextRange::empty(0),
        });
    }
    if let Some(error) = find_forbidden_byte(&text) {
        return failed(error);
    }
    let mut builder = Builder::new(&text);
    builder.depth_limit = MAX_NESTING_DEPTH.saturating_sub(enclosing);
    match builder.run() {
        Err(error) => failed(error),
        Ok(()) if builder.records.is_empty() => failed(SyntaxError {
            kind: SyntaxErrorKind::Empty,
            range: TextRange::new(0, text.len()),
        }),
        Ok(()) => {
            let Builder {
                mut records,
                escaped_values,
                escaped_keys,
                duplicates,
                ..
            } = builder;
            // Large vectors live in their own mapping, so shrinking is a remap, not a copy.
            records.shrink_to_fit();
            Parse {
                tree: Some(Tree {
                    text: text.clone(),
                    records,
                    escaped_values,
                    escaped_keys,
                }),
                errors: duplicates,
            }
        }
    }
}

/// Bytes that strict JSON never allows outside an escape: a byte order mark,
/// and control characters other than tab, line feed and carriage return
/// (which the scanner takes as whitespace or lets through inside strings).
/// Tabs inside strings are checked per string.
fn find_forbidden_byte(text: &str) -> Option<SyntaxError> {
    if text.starts_with('\u{feff}') {
        return Some(SyntaxError {
            kind: SyntaxErrorKind::Invalid(
                "a byte order mark precedes the JSON text; reports are UTF-8 without one".into(),
            ),
            range: TextRange::new(0, 3),
        });
    }
    let offset = text
        .bytes()
        .position(|b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))?;
    let byte = text.as_bytes()[offset];
    Some(SyntaxError {
        kind: SyntaxErrorKind::Invalid(format!(
            "control character U+{byte:04X} is not allowed in JSON; inside a string write it as \\u{byte:04x}"
        )),
        range: TextRange::new(offset, offset + 1),
    })
}

/// One open array or object.
struct Frame {
    index: u32,
    is_object: bool,
    /// Where this object's keys start in `Builder::keys`.
    keys_base: usize,
    /// Built once an object has many keys, so duplicate checks stay linear.
    key_set: Option<HashMap<String, TextRange>>,
}

/// What the grammar expects next.
#[derive(Clone, Copy, PartialEq, Eq)]
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
    /// Nothing: the root value is complete.
    End,
}

struct Builder<'a> {
    text: &'a str,
    scanner: Scanner<'a>,
    records: Vec<Record>,
    stack: Vec<Frame>,
    /// The keys of the open objects, innermost last.
    keys: Vec<(Cow<'a, str>, TextRange)>,
    /// The key waiting for its value.
    pending_key: Option<(TextRange, Option<Box<str>>)>,
    escaped_values: HashMap<u32, Box<str>>,
    escaped_keys: HashMap<u32, Box<str>>,
    duplicates: Vec<SyntaxError>,
    /// The end of the last token, for "expected a comma" positions.
    last_end: usize,
    /// Containers that may be open at once.
    depth_limit: usize,
}

/// Keys an object may have before duplicate checks switch from a scan to a set.
const LINEAR_KEYS: usize = 16;

impl<'a> Builder<'a> {
    fn new(text: &'a str) -> Builder<'a> {
        let options = ScannerOptions {
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        };
        Builder {
            text,
            scanner: Scanner::new(text, &options),
            // A pretty-printed report holds about one value per 25 to 30 bytes;
            // the vector grows past this and is shrunk to fit at the end.
            records: Vec::with_capacity(text.len() / 24),
            stack: Vec::new(),
            keys: Vec::new(),
            pending_key: None,
            escaped_values: HashMap::new(),
            escaped_keys: HashMap::new(),
            duplicates: Vec::new(),
            last_end: 0,
            depth_limit: MAX_NESTING_DEPTH,
        }
    }

    fn error(&self, range: TextRange, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            kind: SyntaxErrorKind::Invalid(message.into()),
            range: clamp(self.text, range.start, range.end),
        }
    }

    fn token_range(&self) -> TextRange {
        TextRange::new(self.scanner.token_start(), self.scanner.token_end())
    }

    fn run(&mut self) -> Result<(), SyntaxError> {
        let mut expect = Expect::Value { after_comma: false };
        loop {
            let token = match self.scanner.scan() {
                Ok(token) => token,
                Err(error) => {
                    let range = clamp(self.text, error.range().start, error.range().end);
                    let message = match error.kind() {
                        ParseErrorKind::UnexpectedToken => {
                            format!(
                                "unexpected `{}`; expected a JSON value",
                                &self.text[range.as_range()]
                            )
                        }
                        kind => sentence(&kind.to_string()),
                    };
                    return Err(self.error(range, message));
                }
            };
            let range = self.token_range();
            let Some(token) = token else {
                return match expect {
                    Expect::End => Ok(()),
                    Expect::Value { after_comma: false } if self.stack.is_empty() => Ok(()),
                    _ => Err(self.unterminated()),
                };
            };
            if let Token::CommentLine(_) | Token::CommentBlock(_) = token {
                return Err(self.error(range, "comments are not allowed in JSON"));
            }
            expect = match expect {
                Expect::End => {
                    return Err(self.error(
                        range,
                        "more than one JSON value: a report is a single object",
                    ));
                }
                Expect::Value { after_comma } => self.value(token, range, after_comma)?,
                Expect::KeyOrClose { after_comma } => match token {
                    Token::String(key) => {
                        self.key(key, range)?;
                        Expect::Colon
                    }
                    Token::CloseBrace if !after_comma => self.close(range),
                    Token::CloseBrace => {
                        return Err(
                            self.error(self.comma_before(range), "trailing commas are not allowed")
                        );
                    }
                    Token::Word(word) => {
                        return Err(self.error(
                            range,
                            format!("keys must be double-quoted strings, found `{word}`"),
                        ));
                    }
                    _ => {
                        return Err(self.error(
                            range,
                            format!("expected a string key, found `{}`", token.as_str()),
                        ));
                    }
                },
                Expect::Colon => match token {
                    Token::Colon => Expect::Value { after_comma: false },
                    _ => return Err(self.error(range, "expected a colon after the key")),
                },
                Expect::CommaOrClose => {
                    let in_object = self.stack.last().is_some_and(|f| f.is_object);
                    match token {
                        Token::Comma if in_object => Expect::KeyOrClose { after_comma: true },
                        Token::Comma => Expect::Value { after_comma: true },
                        Token::CloseBrace if in_object => self.close(range),
                        Token::CloseBracket if !in_object => self.close(range),
                        Token::CloseBrace | Token::CloseBracket => {
                            let expected = if in_object { "`}`" } else { "`]`" };
                            return Err(self.error(
                                range,
                                format!("mismatched bracket: expected `,` or {expected}"),
                            ));
                        }
                        _ => {
                            return Err(
                                self.error(TextRange::empty(self.last_end), "expected a comma")
                            );
                        }
                    }
                }
            };
            self.last_end = range.end;
        }
    }

    /// A value token where a value is expected.
    fn value(
        &mut self,
        token: Token<'a>,
        range: TextRange,
        after_comma: bool,
    ) -> Result<Expect, SyntaxError> {
        let kind = match token {
            Token::OpenBrace => Kind::Object,
            Token::OpenBracket => Kind::Array,
            Token::String(_) => Kind::String,
            Token::Number(_) => Kind::Number,
            Token::Boolean(true) => Kind::True,
            Token::Boolean(false) => Kind::False,
            Token::Null => Kind::Null,
            Token::CloseBracket
                if !after_comma && self.stack.last().is_some_and(|f| !f.is_object) =>
            {
                // `[]`: an empty array closes right away.
                return Ok(self.close(range));
            }
            Token::CloseBracket | Token::CloseBrace if after_comma => {
                return Err(self.error(self.comma_before(range), "trailing commas are not allowed"));
            }
            Token::Word(word) => {
                return Err(
                    self.error(range, format!("unexpected `{word}`; expected a JSON value"))
                );
            }
            other => {
                return Err(self.error(
                    range,
                    format!("expected a value, found `{}`", other.as_str()),
                ));
            }
        };
        let index = self.records.len() as u32;
        let (key_start, key_end, key_escaped) = match self.pending_key.take() {
            Some((key_range, decoded)) => {
                let escaped = decoded.is_some();
                if let Some(decoded) = decoded {
                    self.escaped_keys.insert(index, decoded);
                }
                (key_range.start as u32, key_range.end as u32, escaped)
            }
            None => (NO_KEY, NO_KEY, false),
        };
        let mut value_escaped = false;
        if let Token::String(value) = &token {
            self.check_raw_string(range)?;
            if let Cow::Owned(decoded) = value {
                self.escaped_values
                    .insert(index, decoded.clone().into_boxed_str());
                value_escaped = true;
            }
        }
        self.records.push(Record {
            start: range.start as u32,
            end: range.end as u32,
            key_start,
            key_end,
            subtree_end: index + 1,
            kind,
            value_escaped,
            key_escaped,
        });
        match kind {
            Kind::Object | Kind::Array => {
                if self.stack.len() >= self.depth_limit {
                    return Err(SyntaxError {
                        kind: SyntaxErrorKind::NestingTooDeep,
                        range,
                    });
                }
                self.stack.push(Frame {
                    index,
                    is_object: kind == Kind::Object,
                    keys_base: self.keys.len(),
                    key_set: None,
                });
                Ok(match kind {
                    Kind::Object => Expect::KeyOrClose { after_comma: false },
                    _ => Expect::Value { after_comma: false },
                })
            }
            _ => Ok(self.after_value()),
        }
    }

    fn after_value(&self) -> Expect {
        match self.stack.is_empty() {
            true => Expect::End,
            false => Expect::CommaOrClose,
        }
    }

    /// A key: remembered for its value, and checked against the object's other keys.
    fn key(&mut self, key: Cow<'a, str>, range: TextRange) -> Result<(), SyntaxError> {
        self.check_raw_string(range)?;
        let frame = self.stack.last_mut().expect("keys appear inside objects");
        let first = match &mut frame.key_set {
            Some(set) => set.get(&*key).copied(),
            None => self.keys[frame.keys_base..]
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, r)| *r),
        };
        if let Some(first) = first {
            self.duplicates.push(SyntaxError {
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
        Ok(())
    }

    /// Closes the innermost container at the bracket `range`.
    fn close(&mut self, range: TextRange) -> Expect {
        let frame = self.stack.pop().expect("a container is open");
        self.keys.truncate(frame.keys_base);
        let end = self.records.len() as u32;
        let record = &mut self.records[frame.index as usize];
        record.end = range.end as u32;
        record.subtree_end = end;
        self.after_value()
    }

    /// The comma before a closing bracket, for "trailing comma" errors.
    fn comma_before(&self, close: TextRange) -> TextRange {
        let before = &self.text[..close.start];
        match before.trim_end().strip_suffix(',') {
            Some(rest) => TextRange::new(rest.len(), rest.len() + 1),
            None => close,
        }
    }

    fn unterminated(&self) -> SyntaxError {
        let frame = self.stack.last();
        let (what, start) = match frame {
            Some(f) if f.is_object => ("object", self.records[f.index as usize].start as usize),
            Some(f) => ("array", self.records[f.index as usize].start as usize),
            None => ("value", self.text.len()),
        };
        self.error(
            TextRange::new(start, (start + 1).min(self.text.len())),
            format!("unterminated {what}: the text ends before it is closed"),
        )
    }

    /// A raw tab inside a string literal is invalid JSON that the scanner accepts.
    fn check_raw_string(&self, range: TextRange) -> Result<(), SyntaxError> {
        let raw = &self.text.as_bytes()[range.as_range()];
        match raw.iter().position(|&b| b == b'\t') {
            None => Ok(()),
            Some(i) => Err(self.error(
                TextRange::new(range.start + i, range.start + i + 1),
                "a raw tab inside a string; write it as \\t",
            )),
        }
    }
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

/// The scanner's messages start with a capital and may end with a full stop; ours are clauses.
fn sentence(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first
            .to_lowercase()
            .chain(chars)
            .collect::<String>()
            .trim_end_matches('.')
            .to_string(),
        None => String::new(),
    }
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
}
