//! What every group of checks reports through: the [`Sink`] that collects
//! diagnostics, with its helpers for required fields, types and closed
//! enums, and [`Place`], where in the report a node sits, for messages.

use std::fmt;

use crate::diagnostic::{Code, Collector, Diagnostic, Keep};
use crate::schema::ClosedEnum;
use crate::syntax::{JsonType, Member, Node, Value};
use crate::text::TextRange;

/// Collects diagnostics; its helpers check presence and types of fields.
pub(crate) struct Sink<'t> {
    /// The text the tree was parsed from, for fixes that match its layout.
    pub text: &'t str,
    pub out: Collector,
}

impl Sink<'_> {
    pub(super) fn new(text: &str, keep: Keep) -> Sink<'_> {
        Sink {
            text,
            out: Collector::new(keep),
        }
    }

    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.out.push(diagnostic);
    }

    pub fn report(&mut self, code: Code, range: TextRange, message: impl Into<String>) {
        self.push(Diagnostic::new(code, range, message));
    }

    /// The member `key` of `object`, or a `missing-field` on the object.
    pub fn required<'n>(
        &mut self,
        object: Node<'n>,
        place: &Place<'_>,
        key: &str,
    ) -> Option<Member<'n>> {
        let member = object.member(key);
        if member.is_none() {
            self.push(missing_key(
                Code::MissingField,
                object,
                format!("{place} is missing the required field \"{key}\""),
            ));
        }
        member
    }

    /// True when `node` has type `expected`; otherwise a `wrong-type` on it.
    pub fn expect_type(&mut self, node: Node<'_>, place: &Place<'_>, expected: JsonType) -> bool {
        if node.json_type() == expected {
            return true;
        }
        self.wrong_type(node, place, expected.with_article());
        false
    }

    pub fn wrong_type(&mut self, node: Node<'_>, place: &Place<'_>, expected: &str) {
        self.report(
            Code::WrongType,
            node.range(),
            format!(
                "{place} must be {expected}, found {}",
                node.json_type().with_article()
            ),
        );
    }

    /// A required string field: its value and node, when present and a string.
    pub fn required_str<'n>(
        &mut self,
        object: Node<'n>,
        place: &Place<'_>,
        key: &'static str,
    ) -> Option<(&'n str, Node<'n>)> {
        let member = self.required(object, place, key)?;
        self.str_value(member.value, &place.field(key))
    }

    pub fn str_value<'n>(
        &mut self,
        node: Node<'n>,
        place: &Place<'_>,
    ) -> Option<(&'n str, Node<'n>)> {
        match node.as_str() {
            Some(s) => Some((s, node)),
            None => {
                self.wrong_type(node, place, "a string");
                None
            }
        }
    }

    /// A required field of the closed set `T`: the range of its string
    /// value, with the value it spells (None after a `code` diagnostic).
    pub fn required_enum<T: ClosedEnum>(
        &mut self,
        object: Node<'_>,
        place: &Place<'_>,
        key: &'static str,
        code: Code,
    ) -> Option<(Option<T>, TextRange)> {
        let (text, value) = self.required_str(object, place, key)?;
        let parsed = self.closed_enum(text, value, &place.field(key), code, T::expected_list);
        Some((parsed, value.range()))
    }

    /// The value of the closed set `T` that `text`, the string at `value`,
    /// spells; otherwise a `code` diagnostic on it that says what the field
    /// accepts: `expected`, usually `T::expected_list` (a field may also
    /// accept null, or only some of `T`), rendered only then.
    pub fn closed_enum<T: ClosedEnum>(
        &mut self,
        text: &str,
        value: Node<'_>,
        place: &Place<'_>,
        code: Code,
        expected: impl FnOnce() -> String,
    ) -> Option<T> {
        let parsed = T::parse(text);
        if parsed.is_none() {
            self.report(
                code,
                value.range(),
                format!(
                    "{place} \"{text}\" is not {}; expected one of {}",
                    T::WHAT,
                    expected()
                ),
            );
        }
        parsed
    }

    pub fn required_bool(
        &mut self,
        object: Node<'_>,
        place: &Place<'_>,
        key: &'static str,
    ) -> Option<(bool, TextRange)> {
        let member = self.required(object, place, key)?;
        match member.value.as_bool() {
            Some(b) => Some((b, member.value.range())),
            None => {
                self.wrong_type(member.value, &place.field(key), "a boolean (true or false)");
                None
            }
        }
    }

    /// An array of strings (`signals`, `scope_globs`, `excluded_dirs`).
    pub fn string_array(&mut self, node: Node<'_>, place: &Place<'_>) {
        let Some(items) = node.items() else {
            self.wrong_type(node, place, "an array of strings");
            return;
        };
        for (i, item) in items.enumerate() {
            if item.as_str().is_none() {
                self.wrong_type(item, &place.index(i), "a string");
            }
        }
    }

    /// A non-negative integer written without fraction or exponent.
    pub fn count(&mut self, node: Node<'_>, place: &Place<'_>) -> Option<u64> {
        let Value::Number(raw) = node.value() else {
            self.wrong_type(node, place, "a non-negative integer");
            return None;
        };
        match parse_count(raw) {
            Some(n) => Some(n),
            None => {
                self.report(
                    Code::InvalidCount,
                    node.range(),
                    format!("{place} must be a non-negative integer, found {raw}"),
                );
                None
            }
        }
    }

    /// An `unknown-field` for each member of `object` not named in `known`.
    pub fn unknown_fields(&mut self, object: Node<'_>, place: &Place<'_>, known: &[&[&str]]) {
        let Some(members) = object.members() else {
            return;
        };
        for member in members {
            if known.iter().any(|set| set.contains(&&*member.key)) {
                continue;
            }
            let suggestion = known
                .iter()
                .flat_map(|set| set.iter())
                .filter(|k| object.member(k).is_none())
                .map(|k| (strsim::damerau_levenshtein(member.key, k), *k))
                .filter(|(distance, k)| *distance <= 2.max(k.len() / 4))
                .min();
            let mut message = format!(
                "unknown field \"{}\" in {place}; consumers ignore it",
                member.key
            );
            if let Some((_, k)) = suggestion {
                message.push_str(&format!(" (did you mean \"{k}\"?)"));
            }
            self.report(Code::UnknownField, member.key_range, message);
        }
    }
}

/// A diagnostic about a key `object` lacks. It sits on the object's opening
/// brace, with the whole object as related information: underlining the
/// object itself would cover a whole entry, or the whole document.
pub(crate) fn missing_key(code: Code, object: Node<'_>, message: String) -> Diagnostic {
    Diagnostic::new(code, missing_key_range(object), message)
        .with_related(object.range(), "the object that lacks it")
}

/// The opening brace of `object`, where [`missing_key`] reports.
pub(crate) fn missing_key_range(object: Node<'_>) -> TextRange {
    let start = object.range().start;
    TextRange::new(start, start + 1)
}

/// Digits only, no sign, fraction, exponent or leading zero; however many
/// (a count past u64 is still a count, and saturates).
pub(super) fn parse_count(raw: &str) -> Option<u64> {
    if raw.is_empty()
        || !raw.bytes().all(|b| b.is_ascii_digit())
        || (raw.len() > 1 && raw.starts_with('0'))
    {
        return None;
    }
    Some(raw.parse().unwrap_or(u64::MAX))
}

/// Where in the report a node sits, for messages: `entries[3].exact_edit`.
/// A chain of borrowed steps, so that building one costs nothing until a
/// message is rendered.
#[derive(Clone, Copy)]
pub(crate) struct Place<'p> {
    parent: Option<&'p Place<'p>>,
    step: PlaceStep,
}

#[derive(Clone, Copy)]
enum PlaceStep {
    Root,
    Field(&'static str),
    Index(usize),
}

impl<'p> Place<'p> {
    pub const ROOT: Place<'static> = Place {
        parent: None,
        step: PlaceStep::Root,
    };

    pub fn field(&'p self, name: &'static str) -> Place<'p> {
        Place {
            parent: Some(self),
            step: PlaceStep::Field(name),
        }
    }

    pub fn index(&'p self, index: usize) -> Place<'p> {
        Place {
            parent: Some(self),
            step: PlaceStep::Index(index),
        }
    }

    fn write_path(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.write_path(f)?;
        }
        match self.step {
            PlaceStep::Root => Ok(()),
            PlaceStep::Field(name)
                if matches!(self.parent.map(|p| p.step), Some(PlaceStep::Root)) =>
            {
                f.write_str(name)
            }
            PlaceStep::Field(name) => write!(f, ".{name}"),
            PlaceStep::Index(i) => write!(f, "[{i}]"),
        }
    }
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.step {
            PlaceStep::Root => f.write_str("the report"),
            _ => {
                f.write_str("`")?;
                self.write_path(f)?;
                f.write_str("`")
            }
        }
    }
}

/// A project-root-relative path: not empty, not absolute (no leading `/` or
/// `\`, no drive letter), no `..` segment. Returns why not, when it is not.
pub(crate) fn relative_path_problem(path: &str) -> Option<&'static str> {
    let bytes = path.as_bytes();
    if path.is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') || path.starts_with('\\') {
        return Some("is absolute");
    }
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("starts with a drive letter");
    }
    if path.split(['/', '\\']).any(|segment| segment == "..") {
        return Some("has a `..` segment");
    }
    None
}

/// Reports `path-not-relative` when the string at `node` is not a project-root-relative path.
pub(crate) fn check_relative_path(sink: &mut Sink, path: &str, node: Node<'_>, place: &Place<'_>) {
    if let Some(problem) = relative_path_problem(path) {
        sink.report(
            Code::PathNotRelative,
            node.range(),
            format!("{place} {problem}: \"{path}\"; expected a project-root-relative path such as \"docs/notes.md\""),
        );
    }
}

/// JSON equality that ignores positions and key order (the last of repeated keys wins).
/// Its recursion is bounded by the parser's nesting limit.
pub(crate) fn same_json(a: Node<'_>, b: Node<'_>) -> bool {
    match (a.value(), b.value()) {
        (Value::Object, Value::Object) => {
            let (ma, mb) = (sorted_keys(a), sorted_keys(b));
            ma == mb
                && ma
                    .iter()
                    .all(|k| matches!((a.get(k), b.get(k)), (Some(x), Some(y)) if same_json(x, y)))
        }
        (Value::Array, Value::Array) => {
            let (ia, ib) = (
                a.items().into_iter().flatten(),
                b.items().into_iter().flatten(),
            );
            ia.clone().count() == ib.clone().count() && ia.zip(ib).all(|(x, y)| same_json(x, y))
        }
        (Value::Number(x), Value::Number(y)) => {
            x == y || x.parse::<f64>().ok() == y.parse::<f64>().ok()
        }
        (x, y) => x == y,
    }
}

fn sorted_keys<'t>(object: Node<'t>) -> Vec<&'t str> {
    let mut keys: Vec<&str> = object
        .members()
        .into_iter()
        .flatten()
        .map(|m| m.key)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_render_as_paths() {
        let root = Place::ROOT;
        let entries = root.field("entries");
        let entry = entries.index(3);
        let edit = entry.field("exact_edit");
        assert_eq!(root.to_string(), "the report");
        assert_eq!(entries.to_string(), "`entries`");
        assert_eq!(edit.to_string(), "`entries[3].exact_edit`");
    }

    #[test]
    fn counts_are_plain_non_negative_integers() {
        assert_eq!(parse_count("0"), Some(0));
        assert_eq!(parse_count("120"), Some(120));
        // 2^64: a count past u64 is still a count.
        assert_eq!(parse_count("18446744073709551616"), Some(u64::MAX));
        for bad in ["-1", "1.0", "1e3", "01", "", "1_000"] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }

    #[test]
    fn relative_paths() {
        for ok in [
            "docs/a.md",
            "a",
            "docs/",
            "./a.md",
            "a..b/c",
            "日本語/😀.md",
        ] {
            assert_eq!(relative_path_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "\\share",
            "C:/x",
            "c:x",
            "../x",
            "a/../b",
            "a/..",
            "a\\..\\b",
        ] {
            assert!(relative_path_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn same_json_ignores_order_and_spacing() {
        let same = |a: &str, b: &str| {
            let (a, b) = (crate::syntax::parse(a), crate::syntax::parse(b));
            same_json(a.root().unwrap(), b.root().unwrap())
        };
        assert!(same(r#"{"a": 1, "b": [true]}"#, r#"{"b":[true],"a":1}"#));
        assert!(!same(r#"{"a": 1}"#, r#"{"a": 1, "b": 2}"#));
        assert!(!same(r#"{"a": "1"}"#, r#"{"a": 1}"#));
        assert!(same(r#"[1.0]"#, r#"[1]"#));
        assert!(!same(r#"[1, 2]"#, r#"[1]"#));
    }
}
