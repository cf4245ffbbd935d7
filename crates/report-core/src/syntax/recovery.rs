//! What the parser does at an error that makes it guess, and what other
//! modules may rely on about it.
//!
//! The parser reads a broken text as a person would: a missing comma, colon
//! or closing bracket is taken as there, a missing value becomes an empty
//! error node, stray characters become an error node or are skipped. Every
//! container around such a guess is marked broken (`Node::is_broken`), and
//! incomplete (`Node::is_incomplete`) where content may be lost.
//!
//! How a container whose closing bracket is missing is closed:
//! - an object that is an array's item, whose `}` is missing before the
//!   array's next item (`{"a": 1,` then `{`), is closed where its last value
//!   ends, and the `{` opens the array's next item, as after any item and
//!   its comma (`unclosed_before_next_item`);
//! - a closing bracket that matches an outer container closes the inner ones,
//!   each where its last value ends (`close_missing`), so the last entry's
//!   missing `}` is closed by the array's `]`, which then closes the array;
//! - a string followed by a colon was a key after all: of an object whose
//!   `{` is missing, after a member whose value is missing, or after an
//!   array whose `]` is missing (`key_after_all`);
//! - at the end of the text, whatever is open is closed there, and reported
//!   once, at the innermost (`finish`).
//!
//! `entry_text` parses one entry of a report in place on these rules, and
//! relies on [`every_error_reported`] to know when a parse's errors say all
//! that the recovery did.

use std::borrow::Cow;

use super::error::SyntaxErrorKind;
use super::lexer::Tok;
use super::parser::{Again, Expect, Frame, NO_CHILD, Next, ParseStep, Parser, Quiet};
use super::tree::{BROKEN, INCOMPLETE, Kind};
use crate::text::TextRange;

pub use super::error::MAX_ERRORS_PER_CONTAINER;

/// Whether a parse that lists `errors` syntax errors (`Parse::errors.len()`;
/// repeated keys, which no limit holds back, may be among them) had none
/// held back by [`MAX_ERRORS_PER_CONTAINER`].
///
/// Below that many in all, no container reached its limit, so every guess
/// the recovery made was reported where it was made (one error per token;
/// the missing comma or colon after a string left open at a line break is
/// part of that string's error). In particular a container closed before
/// the end of its text, where its closing bracket was taken as missing,
/// comes with an error saying so. At that many or more, a container may
/// have been closed early in silence, and a broken value may end elsewhere
/// than its errors show.
pub fn every_error_reported(errors: usize) -> bool {
    errors < MAX_ERRORS_PER_CONTAINER
}

impl<'a> Parser<'a> {
    /// Marks the open containers broken (those already marked have their
    /// outer ones marked too).
    pub(super) fn broke(&mut self) {
        self.guessed = true;
        for frame in self.stack.iter().rev() {
            let flags = &mut self.records[frame.index as usize].flags;
            if *flags & BROKEN != 0 {
                break;
            }
            *flags |= BROKEN;
        }
    }

    /// Marks the innermost container as possibly missing members or items.
    pub(super) fn lost_content(&mut self) {
        if let Some(frame) = self.stack.last() {
            self.records[frame.index as usize].flags |= INCOMPLETE;
        }
        self.broke();
    }

    /// Marks the open containers incomplete from the innermost out to the
    /// nearest array, that one included.
    pub(super) fn lost_content_up_to_an_array(&mut self) {
        for frame in self.stack.iter().rev() {
            self.records[frame.index as usize].flags |= INCOMPLETE;
            if !frame.is_object {
                break;
            }
        }
        self.broke();
    }

    /// An opening bracket deeper than the limit: reported, and its whole
    /// content skipped as one bogus value.
    pub(super) fn too_deep(&mut self) -> Expect {
        let range = self.tokens.range();
        self.report(range, || SyntaxErrorKind::NestingTooDeep, true);
        let end = self.skip_balanced();
        self.push_error(range.start, end);
        self.after_value()
    }

    /// Skips from the opening bracket just scanned to its matching closing
    /// one, or to the end of the text; returns where the skip ended.
    pub(super) fn skip_balanced(&mut self) -> usize {
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
                    self.quiet = Quiet::TextEnded;
                    return end;
                }
                _ => {}
            }
        }
    }

    /// Closes the innermost container where its closing bracket is missing.
    pub(super) fn close_missing(&mut self) {
        if let Some(frame) = self.stack.last() {
            self.records[frame.index as usize].flags |= BROKEN;
        }
        self.close(self.value_end);
    }

    /// Whether the innermost container is an object that is an array's item.
    pub(super) fn object_in_array(&self) -> bool {
        let n = self.stack.len();
        n >= 2 && self.stack[n - 1].is_object && !self.stack[n - 2].is_object
    }

    /// An array or object starts where the innermost object should go on:
    /// that object's `}` is missing, and this is the array's next item.
    pub(super) fn unclosed_before_next_item(&mut self) -> ParseStep {
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
    pub(super) fn last_is_string_child(&self) -> bool {
        let last = self.records.len().wrapping_sub(1) as u32;
        self.stack.last().is_some_and(|f| {
            f.last_child == last && self.records[last as usize].kind == Kind::String
        })
    }

    pub(super) fn prev_value_is_error(&self) -> bool {
        matches!(self.prev, Tok::Word | Tok::BadNum)
            && self
                .records
                .last()
                .is_some_and(|r| r.kind == Kind::Error && r.end as usize == self.last_end)
    }

    /// A colon after a string value: the string was a key after all. Either
    /// the bracket that opens its object is missing, or (in an object) the
    /// member before it has no value, or (in an array) the array's `]` is missing.
    pub(super) fn key_after_all(&mut self, colon: TextRange) -> ParseStep {
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
                listed: false,
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
            // It was the array's last item: in the list if the array is listed.
            if self.listed_items.last() == Some(&(s as u32)) {
                self.listed_items.pop();
            }
            self.value_end = before;
            self.close_missing();
        }
        self.key(key, key_range);
        self.colon_end = colon.end;
        Next(Expect::Value { after_comma: false })
    }

    /// At the end of the text: what is open is closed, and reported once.
    pub(super) fn finish(&mut self, expect: Expect) {
        // Right after a string left unterminated, or a skip that ran into
        // the end, the end of the text was reported already.
        let quiet = self.quiet != Quiet::No;
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
