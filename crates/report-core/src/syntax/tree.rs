//! The parsed tree: one small record per value, in document order, with
//! byte ranges into the text the tree owns, and [`Node`], the cheap handle
//! the checks read it through (`member`, `lookup(pointer)`, `path_to(offset)`).
//!
//! Only the parser (the `parser` and `recovery` modules) writes records; the
//! fields and flags are `pub(super)` for it and nothing else.

// foldhash: keys are paths and member names of the report, hashed by the
// hundred thousand; its seeds are random per process.
use foldhash::HashMap;
use std::borrow::Cow;
use std::sync::Arc;

use crate::text::TextRange;

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
pub(super) enum Kind {
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
pub(super) const NO_KEY: u32 = u32::MAX;

/// One value. `subtree_end` is the index after its last descendant, so its
/// first child is the next record and each child's `subtree_end` is the next sibling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Record {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) key_start: u32,
    pub(super) key_end: u32,
    pub(super) subtree_end: u32,
    pub(super) kind: Kind,
    /// Whether the value (a string) or the key has escapes, decoded in the tree's side tables.
    pub(super) value_escaped: bool,
    pub(super) key_escaped: bool,
    /// [`BROKEN`], [`INCOMPLETE`], [`KEY_BROKEN`], [`REPEATED_KEYS`] and [`LISTED`].
    pub(super) flags: u8,
}

/// Flags of a [`Record`]. A syntax error that made the parser guess lies in the value.
pub(super) const BROKEN: u8 = 1;
/// On an array or object: it may be missing members or items.
pub(super) const INCOMPLETE: u8 = 2;
/// On a member's value: the member's key is unreadable (an unterminated string).
pub(super) const KEY_BROKEN: u8 = 4;
/// On an object: some key in it is repeated, so a lookup must find the last.
pub(super) const REPEATED_KEYS: u8 = 8;
/// On an array that is a member of the root object: its items are in [`Tree`]'s `listed_items`.
pub(super) const LISTED: u8 = 16;

/// A parsed JSON document: the text and its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub(super) text: Arc<String>,
    pub(super) records: Vec<Record>,
    /// Decoded strings with escapes, by record index (values) ...
    pub(super) escaped_values: HashMap<u32, Box<str>>,
    /// ... and keys.
    pub(super) escaped_keys: HashMap<u32, Box<str>>,
    /// The items of the arrays that are members of the root object (the
    /// entries, the shortlist), in order: an array's are those after its
    /// index and before its `subtree_end`. Hopping from sibling to sibling
    /// misses the cache at each entry; through the list, counting them
    /// reads no record and `nth` is direct.
    pub(super) listed_items: Vec<u32>,
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
    // `pub(super)` for the tests, which read the text and walk the children.
    pub(super) tree: &'t Tree,
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

    /// The text the node spans, as written.
    pub fn source(self) -> &'t str {
        &self.tree.text[self.range().as_range()]
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
    pub(super) fn children(self) -> Children<'t> {
        let tree = self.tree;
        let record = self.record();
        let end = record.subtree_end;
        let listed = match record.flags & LISTED != 0 {
            true => {
                let items = &tree.listed_items;
                let from = items.partition_point(|&i| i <= self.index);
                &items[from..from + items[from..].partition_point(|&i| i < end)]
            }
            false => &[],
        };
        Children {
            tree,
            listed: listed.iter(),
            // A listed array's children are all in the list.
            next: if listed.is_empty() {
                self.index + 1
            } else {
                end
            },
            end,
        }
    }

    /// The children found from sibling to sibling, as an unlisted node's
    /// are: what a listed array's list must hold.
    #[cfg(test)]
    pub(super) fn chased_children(self) -> Vec<Node<'t>> {
        let mut children = Vec::new();
        let mut next = self.index + 1;
        while next < self.record().subtree_end {
            let child = Node {
                tree: self.tree,
                index: next,
            };
            children.push(child);
            next = child.record().subtree_end;
        }
        children
    }

    #[cfg(test)]
    pub(super) fn is_listed(self) -> bool {
        self.record().flags & LISTED != 0
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

    pub(super) fn as_member(self) -> Member<'t> {
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
            // Unescaped only where escaped: a lookup runs for every entry.
            let token = match token.contains('~') {
                true => Cow::Owned(token.replace("~1", "/").replace("~0", "~")),
                false => Cow::Borrowed(token),
            };
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

/// A node's children: from the tree's list for a listed array, else each
/// one after the last's subtree.
#[derive(Clone)]
pub(super) struct Children<'t> {
    tree: &'t Tree,
    listed: std::slice::Iter<'t, u32>,
    next: u32,
    end: u32,
}

impl<'t> Iterator for Children<'t> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        let tree = self.tree;
        if let Some(&index) = self.listed.next() {
            return Some(Node { tree, index });
        }
        if self.next >= self.end {
            return None;
        }
        let node = Node {
            tree,
            index: self.next,
        };
        self.next = node.record().subtree_end;
        Some(node)
    }

    fn nth(&mut self, n: usize) -> Option<Node<'t>> {
        match self.listed.len() {
            0 => {
                for _ in 0..n {
                    self.next()?;
                }
                self.next()
            }
            _ => self.listed.nth(n).map(|&index| Node {
                tree: self.tree,
                index,
            }),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.end.saturating_sub(self.next) as usize;
        let listed = self.listed.len();
        (listed + usize::from(left > 0), Some(listed + left))
    }

    fn count(self) -> usize {
        match self.listed.len() {
            0 => self.fold(0, |n, _| n + 1),
            listed => listed,
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
