//! The positioned JSON tree of a report: the only user of `jsonc-parser`.
//!
//! Parsing is strict JSON (RFC 8259): every leniency of `jsonc-parser` is
//! turned off, and the two it lacks a switch for (raw control characters in
//! strings, vertical tab and form feed as whitespace) are checked here.
//! Parsing returns the tree *and* its errors; a syntax error leaves no tree,
//! because `jsonc-parser` stops at the first one.

use std::collections::HashMap;

use jsonc_parser::ast;
use jsonc_parser::errors::ParseErrorKind;
use jsonc_parser::{CollectOptions, ParseOptions};

use crate::text::TextRange;

/// Deepest nesting `jsonc-parser` accepts (it stops with an error past it),
/// which also bounds every recursion of ours over the tree.
pub const MAX_NESTING_DEPTH: usize = 512;

/// One JSON value with the byte range of its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub range: TextRange,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    /// The number as written, so integers and their spelling can be checked.
    Number(Box<str>),
    /// The string after JSON unescaping.
    String(Box<str>),
    Array(Vec<Node>),
    Object(Vec<Member>),
}

/// One `"key": value` pair of an object.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    /// The key after JSON unescaping.
    pub key: Box<str>,
    /// The key's range, quotes included.
    pub key_range: TextRange,
    pub value: Node,
}

impl Member {
    /// From the start of the key to the end of the value.
    pub fn range(&self) -> TextRange {
        TextRange::new(self.key_range.start, self.value.range.end)
    }
}

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

impl Node {
    pub fn json_type(&self) -> JsonType {
        match self.value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Bool,
            Value::Number(_) => JsonType::Number,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&[Member]> {
        match &self.value {
            Value::Object(members) => Some(members),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// The member named `key`. When a key is repeated the last one wins, as
    /// in the JSON parsers of the report's consumers (the repeat itself is a
    /// syntax diagnostic).
    pub fn member(&self, key: &str) -> Option<&Member> {
        self.as_object()?.iter().rev().find(|m| &*m.key == key)
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.member(key).map(|m| &m.value)
    }

    /// The node at an RFC 6901 JSON pointer (`""` is the node itself).
    pub fn lookup(&self, pointer: &str) -> Option<&Node> {
        if pointer.is_empty() {
            return Some(self);
        }
        let mut node = self;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            node = match &node.value {
                Value::Object(_) => node.get(&token)?,
                Value::Array(items) => items.get(parse_array_index(&token)?)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The chain of nodes from this one down to the innermost that touches
    /// `offset`, with the member key each step went through (None for array items).
    pub fn path_to(&self, offset: usize) -> Vec<(Option<&Member>, &Node)> {
        let mut path = vec![(None, self)];
        let mut node = self;
        if !node.range.touches(offset) {
            return Vec::new();
        }
        loop {
            let next = match &node.value {
                Value::Object(members) => members
                    .iter()
                    .find(|m| m.range().touches(offset))
                    .map(|m| (Some(m), &m.value)),
                Value::Array(items) => items
                    .iter()
                    .find(|n| n.range.touches(offset))
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
    /// What `jsonc-parser` (or our strictness checks) reported, as a sentence.
    Invalid(String),
    /// Arrays and objects nest deeper than [`MAX_NESTING_DEPTH`].
    NestingTooDeep,
    /// A key repeated in one object; `first` is the range of its first occurrence.
    DuplicateKey { key: String, first: TextRange },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    pub range: TextRange,
}

/// A parse: the tree when the text is valid JSON, and every syntax error found.
#[derive(Clone, Debug, Default)]
pub struct Parse {
    pub root: Option<Node>,
    pub errors: Vec<SyntaxError>,
}

/// Parses `text` as strict JSON into a positioned tree.
pub fn parse(text: &str) -> Parse {
    if let Some(error) = find_forbidden_byte(text) {
        return Parse {
            root: None,
            errors: vec![error],
        };
    }
    let options = ParseOptions {
        allow_comments: false,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let parsed = match jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options) {
        Ok(parsed) => parsed,
        Err(error) => {
            let range = clamp(text, error.range().start, error.range().end);
            let kind = match error.kind() {
                ParseErrorKind::NestingDepthExceeded => SyntaxErrorKind::NestingTooDeep,
                ParseErrorKind::MultipleRootJsonValues => SyntaxErrorKind::Invalid(
                    "more than one JSON value: a report is a single object".into(),
                ),
                kind => SyntaxErrorKind::Invalid(sentence(&kind.to_string())),
            };
            return Parse {
                root: None,
                errors: vec![SyntaxError { kind, range }],
            };
        }
    };
    let Some(value) = parsed.value else {
        return Parse {
            root: None,
            errors: vec![SyntaxError {
                kind: SyntaxErrorKind::Empty,
                range: TextRange::new(0, text.len()),
            }],
        };
    };
    let mut errors = Vec::new();
    let root = convert(text, value, &mut errors);
    Parse {
        root: Some(root),
        errors,
    }
}

/// Bytes that strict JSON never allows outside an escape: a byte order mark,
/// and control characters other than tab, line feed and carriage return
/// (which `jsonc-parser` takes as whitespace or lets through inside strings).
/// Tabs inside strings are checked per string in [`convert`].
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
    Some(SyntaxError {
        kind: SyntaxErrorKind::Invalid(format!(
            "control character U+{:04X} is not allowed in JSON; inside a string write it as \\u{:04x}",
            text.as_bytes()[offset],
            text.as_bytes()[offset]
        )),
        range: TextRange::new(offset, offset + 1),
    })
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

/// `jsonc-parser` messages start with a capital and have no full stop; ours are lower-case clauses.
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

fn range_of(range: jsonc_parser::common::Range) -> TextRange {
    TextRange::new(range.start, range.end)
}

/// Converts the borrowed AST into our owned tree. The recursion is bounded by
/// the parser's nesting limit.
fn convert(text: &str, value: ast::Value<'_>, errors: &mut Vec<SyntaxError>) -> Node {
    match value {
        ast::Value::NullKeyword(null) => Node {
            range: range_of(null.range),
            value: Value::Null,
        },
        ast::Value::BooleanLit(b) => Node {
            range: range_of(b.range),
            value: Value::Bool(b.value),
        },
        ast::Value::NumberLit(n) => Node {
            range: range_of(n.range),
            value: Value::Number(n.value.into()),
        },
        ast::Value::StringLit(s) => {
            check_raw_string(text, range_of(s.range), errors);
            Node {
                range: range_of(s.range),
                value: Value::String(s.value.into()),
            }
        }
        ast::Value::Array(array) => Node {
            range: range_of(array.range),
            value: Value::Array(
                array
                    .elements
                    .into_iter()
                    .map(|v| convert(text, v, errors))
                    .collect(),
            ),
        },
        ast::Value::Object(object) => {
            let range = range_of(object.range);
            let mut members = Vec::with_capacity(object.properties.len());
            // Small objects are the rule; a linear scan beats hashing there.
            let mut seen: Option<HashMap<Box<str>, TextRange>> = None;
            for prop in object.properties {
                let (key, key_range) = match prop.name {
                    ast::ObjectPropName::String(s) => (s.value, range_of(s.range)),
                    // Unreachable with loose property names turned off; kept total.
                    ast::ObjectPropName::Word(w) => (w.value.into(), range_of(w.range)),
                };
                check_raw_string(text, key_range, errors);
                let first = match &mut seen {
                    Some(map) => map.get(&*key).copied(),
                    None => members
                        .iter()
                        .find(|m: &&Member| *m.key == *key)
                        .map(|m| m.key_range),
                };
                if let Some(first) = first {
                    errors.push(SyntaxError {
                        kind: SyntaxErrorKind::DuplicateKey {
                            key: key.to_string(),
                            first,
                        },
                        range: key_range,
                    });
                }
                let key: Box<str> = key.into();
                if members.len() >= 16 && seen.is_none() {
                    seen = Some(
                        members
                            .iter()
                            .map(|m: &Member| (m.key.clone(), m.key_range))
                            .collect(),
                    );
                }
                if let Some(map) = &mut seen {
                    map.entry(key.clone()).or_insert(key_range);
                }
                members.push(Member {
                    key,
                    key_range,
                    value: convert(text, prop.value, errors),
                });
            }
            Node {
                range,
                value: Value::Object(members),
            }
        }
    }
}

/// A raw tab inside a string literal is invalid JSON that `jsonc-parser` accepts.
fn check_raw_string(text: &str, range: TextRange, errors: &mut Vec<SyntaxError>) {
    let raw = &text.as_bytes()[range.as_range()];
    if let Some(i) = raw.iter().position(|&b| b == b'\t') {
        let offset = range.start + i;
        errors.push(SyntaxError {
            kind: SyntaxErrorKind::Invalid("a raw tab inside a string; write it as \\t".into()),
            range: TextRange::new(offset, offset + 1),
        });
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

    #[test]
    fn builds_a_positioned_tree() {
        let text = r#"{"a": [1, "x\u00e9"], "b": {"c": null}}"#;
        let root = parse(text).root.unwrap();
        let a = root.member("a").unwrap();
        assert_eq!(&text[a.key_range.as_range()], "\"a\"");
        assert_eq!(&text[a.value.range.as_range()], r#"[1, "x\u00e9"]"#);
        assert_eq!(root.lookup("/a/1").unwrap().as_str(), Some("xé"));
        assert_eq!(root.lookup("/b/c").unwrap().json_type(), JsonType::Null);
        assert_eq!(root.lookup("/a/01"), None);
        assert_eq!(root.lookup(""), Some(&root));
    }

    #[test]
    fn pointer_tokens_are_unescaped() {
        let root = parse(r#"{"a/b": {"~": 1}}"#).root.unwrap();
        assert_eq!(
            root.lookup("/a~1b/~0").unwrap().json_type(),
            JsonType::Number
        );
    }

    #[test]
    fn path_to_descends_to_the_innermost_node() {
        let text = r#"{"a": [1, {"b": true}]}"#;
        let root = parse(text).root.unwrap();
        let path = root.path_to(text.find("true").unwrap());
        let keys: Vec<_> = path.iter().map(|(m, _)| m.map(|m| &*m.key)).collect();
        assert_eq!(keys, [None, Some("a"), None, Some("b")]);
    }

    #[test]
    fn every_leniency_is_rejected() {
        for text in [
            "{\"a\": 1,}",
            "{\"a\": 1 // c\n}",
            "{a: 1}",
            "{\"a\": 'x'}",
            "{\"a\": 0x1F}",
            "{\"a\": +1}",
            "{\"a\": .5}",
            "{\"a\": 5.}",
            "{\"a\": NaN}",
            "{\"a\": \"\\x41\"}",
            "{\"a\": 1 \"b\": 2}",
            "{\"a\": 01}",
            "{\"a\": \"x\ty\"}",
            "{\"a\": \"x\u{1}y\"}",
            "\u{b}{}",
            "\u{c}{}",
            "\u{feff}{}",
            "{} {}",
            "{\"a\": \"\\ud800\"}",
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
        let root = parse(text).root.unwrap();
        assert_eq!(
            &*root
                .get("a")
                .map(|n| n.value.clone())
                .map(|v| format!("{v:?}"))
                .unwrap(),
            "Number(\"3\")"
        );
    }

    #[test]
    fn duplicate_keys_are_found_in_large_objects_too() {
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{i}\": {i}, "));
        }
        text.push_str("\"k3\": 0}");
        let error = error_of(&text);
        assert!(matches!(error.kind, SyntaxErrorKind::DuplicateKey { ref key, .. } if key == "k3"));
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
        let text = "{\"é\": é}";
        let error = error_of(text);
        assert!(text.is_char_boundary(error.range.start) && text.is_char_boundary(error.range.end));
    }
}
