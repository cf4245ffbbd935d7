//! The positioned JSON tree of a report, and the recovering parser that builds it.
//!
//! Parsing is strict JSON (RFC 8259), and it never fails. `jsonc-parser`'s
//! scanner, with every leniency off, cuts the text into tokens; a thin
//! adapter (`lexer::Tokens`) checks what the scanner lets through (raw control
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
//! errors are reported per container ([`recovery::MAX_ERRORS_PER_CONTAINER`])
//! and [`MAX_SYNTAX_ERRORS`] in all.
//!
//! One job a file, bottom up:
//! - `tree`: [`Tree`], [`Node`], [`Member`], [`Value`], [`JsonType`]; the
//!   records the parser writes, `lookup(pointer)`, `path_to(offset)`;
//! - `error`: [`SyntaxError`], [`SyntaxErrorKind`] and the limits
//!   ([`MAX_NESTING_DEPTH`], [`MAX_SYNTAX_ERRORS`]);
//! - `lexer`: the tokens, over `jsonc-parser`'s scanner (its only user);
//! - `parser`: the grammar, a state machine over the stack of open containers;
//! - [`recovery`]: what the parser does at an error that makes it guess, and
//!   what other modules may rely on about it;
//! - `pieces`: a large text parsed in pieces on the threads a caller
//!   lends, into the tree one parse in order gives ([`parse_split`]);
//! - `tests`: the parser's tests, text in, tree and errors out.

mod error;
mod lexer;
mod parser;
mod pieces;
pub mod recovery;
mod tree;

#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use error::{MAX_NESTING_DEPTH, MAX_SYNTAX_ERRORS, SyntaxError, SyntaxErrorKind};
pub use tree::{JsonType, Member, Node, Tree, Value};

use crate::parallel::RunAll;
use crate::text::TextRange;
use parser::Parser;

/// A parse: the tree and every syntax error found. The tree is there for
/// any text holding at least one token; where the text is broken it holds
/// [`Value::Error`] nodes and [`Node::is_broken`] containers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    parse_unless_cancelled(text, enclosing, None, None)
}

/// [`parse_shared`]'s parse, with the text cut into about `pieces` pieces
/// of at least `min_piece_bytes`, parsed by the parser in order and by
/// `pieces - 1` jobs of `runner` beside it, and joined:
/// the tree and the errors are exactly those of one parse in order (see
/// the `pieces` module for why).
pub fn parse_split(
    text: Arc<String>,
    runner: &dyn RunAll,
    pieces: usize,
    min_piece_bytes: usize,
) -> Parse {
    let split = pieces::Split {
        runner,
        pieces,
        helpers: pieces.saturating_sub(1).max(1),
        min_bytes: min_piece_bytes,
    };
    parse_with(text, 0, None, Some(split)).0
}

/// [`parse_nested`], asking `wanted` now and then (see `cancel`), in
/// pieces on `split`'s runner when it lends one and the text is large.
pub(crate) fn parse_unless_cancelled(
    text: Arc<String>,
    enclosing: usize,
    wanted: Option<crate::cancel::Wanted<'_>>,
    split: Option<(&dyn RunAll, usize)>,
) -> Parse {
    let split = split
        .filter(|&(_, threads)| threads > 1)
        .map(|(runner, threads)| pieces::Split {
            runner,
            pieces: threads * pieces::PIECES_PER_THREAD,
            helpers: threads - 1,
            min_bytes: pieces::MIN_PIECE_BYTES,
        });
    parse_with(text, enclosing, wanted, split).0
}

/// The parse, and how many pieces after the first were parsed apart and taken.
fn parse_with(
    text: Arc<String>,
    enclosing: usize,
    wanted: Option<crate::cancel::Wanted<'_>>,
    split: Option<pieces::Split<'_>>,
) -> (Parse, usize) {
    if text.len() >= u32::MAX as usize {
        let error = SyntaxError {
            kind: SyntaxErrorKind::TooLarge,
            range: TextRange::empty(0),
        };
        return (
            Parse {
                tree: None,
                errors: vec![error],
            },
            0,
        );
    }
    let mut parser = Parser::new(&text);
    parser.depth_limit = MAX_NESTING_DEPTH.saturating_sub(enclosing);
    parser.wanted = wanted;
    // Pieces start inside an array of the root object: only a whole document is cut.
    let cuts = match split {
        Some(split) if enclosing == 0 => Some((
            split,
            pieces::find_cuts(&text, split.pieces, split.min_bytes),
        )),
        _ => None,
    };
    let taken = match cuts {
        Some((split, cuts)) if !cuts.is_empty() => {
            pieces::parse_in_pieces(&mut parser, split.runner, split.helpers, &cuts)
        }
        _ => {
            parser.run();
            0
        }
    };
    let Parser {
        mut records,
        escaped_values,
        escaped_keys,
        mut listed_items,
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
        return (Parse { tree: None, errors }, taken);
    }
    // Large vectors live in their own mapping, so shrinking is a remap, not a copy.
    records.shrink_to_fit();
    listed_items.shrink_to_fit();
    let tree = Tree {
        text: text.clone(),
        records,
        escaped_values,
        escaped_keys,
        listed_items,
    };
    let parse = Parse {
        tree: Some(tree),
        errors,
    };
    (parse, taken)
}
