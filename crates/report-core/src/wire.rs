//! Diagnostics and edits as plain JSON, their positions as the language
//! server sends them (0-based lines, UTF-16 columns): what `check --format
//! json` writes for each file and what the WebAssembly module gives (a
//! browser's strings are UTF-16 too). One shape, written here once.

use serde_json::{Value, json};

use crate::diagnostic::Diagnostic;
use crate::fix::TextEdit;
use crate::text::{Encoding, LineIndex, TextRange};

/// A text and its line index: turns byte offsets into positions.
#[derive(Clone, Copy)]
pub struct Positions<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
}

impl Positions<'_> {
    /// `{"line", "character"}` of `offset`.
    pub fn position(&self, offset: usize) -> Value {
        let p = self.index.line_col(self.text, offset, Encoding::Utf16);
        json!({"line": p.line, "character": p.col})
    }

    /// `{"start", "end"}` of `range`.
    pub fn range(&self, range: TextRange) -> Value {
        json!({"start": self.position(range.start), "end": self.position(range.end)})
    }

    /// `{"range", "new_text"}` of `edit`.
    pub fn edit(&self, edit: &TextEdit) -> Value {
        json!({"range": self.range(edit.range), "new_text": edit.new_text})
    }

    /// A diagnostic: its code, severity, message, range, related places and
    /// its fix's edits. `fixable` means that `check --fix` applies the fix
    /// (it is the preferred one); `fix` is any fix.
    pub fn diagnostic(&self, d: &Diagnostic) -> Value {
        let related: Vec<Value> = (d.related.iter())
            .map(|r| json!({"range": self.range(r.range), "message": r.message}))
            .collect();
        let fix = d.fix.as_ref().map(|fix| {
            let edits: Vec<Value> = fix.edits.iter().map(|e| self.edit(e)).collect();
            json!({"title": fix.title, "preferred": fix.preferred, "edits": edits})
        });
        json!({
            "code": d.code.as_str(),
            "severity": d.severity.as_str(),
            "message": d.message,
            "range": self.range(d.range),
            "related": related,
            "fixable": d.fix.as_ref().is_some_and(|f| f.preferred),
            "fix": fix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns count UTF-16 units: a CJK character is one, an emoji two.
    #[test]
    fn columns_are_utf16_units() {
        let text = "{\"path\": \"表😀\", \"x\": 1}\n  y";
        let index = LineIndex::new(text);
        let at = Positions {
            text,
            index: &index,
        };
        // `{"path": "` is 10 units, 表 one, 😀 two, `", ` three.
        let x = text.find("\"x\"").unwrap();
        assert_eq!(at.position(x), json!({"line": 0, "character": 16}));
        let y = text.find('y').unwrap();
        assert_eq!(
            at.range(TextRange::new(y, y + 1)),
            json!({"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 3}})
        );
    }
}
