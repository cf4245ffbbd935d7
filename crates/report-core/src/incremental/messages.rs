//! Messages that name an entry's index (`entries[i]`), rendered again for
//! a new index from a [`Template`] instead of checking the entry again.

use crate::diagnostic::Diagnostic;

/// Two indices of the same width that an entry is checked with to find
/// where its diagnostics' texts write its index: they differ there alone.
/// Ten digits: wider than any real index, and within a 32-bit `usize`
/// (the core also runs as WebAssembly).
pub(super) const PROBES: [usize; 2] = [1_000_000_000, 2_000_000_000];

/// An entry's diagnostics as checked with index `PROBES[0]`, and where
/// each of their texts writes it: rendered for any index by writing that
/// index there, without checking the entry again.
#[derive(Clone, Debug)]
pub(super) struct Template {
    pub(super) diagnostics: Vec<Diagnostic>,
    /// For each diagnostic, for each of its texts (see [`texts_mut`]), the
    /// offsets where the index's digits start.
    marks: Vec<Vec<Vec<usize>>>,
}

impl Template {
    /// From an entry's diagnostics checked with each of [`PROBES`]; None
    /// unless they differ only in the digits of the index.
    pub(super) fn new(mut first: Vec<Diagnostic>, mut second: Vec<Diagnostic>) -> Option<Template> {
        if first.len() != second.len() {
            return None;
        }
        let (a, b) = (PROBES[0].to_string(), PROBES[1].to_string());
        let mut marks = Vec::with_capacity(first.len());
        for (x, y) in first.iter_mut().zip(&mut second) {
            let (tx, ty) = (texts_mut(x), texts_mut(y));
            if tx.len() != ty.len() {
                return None;
            }
            let mut found = Vec::with_capacity(tx.len());
            for (sx, sy) in tx.into_iter().zip(ty) {
                if sx.len() != sy.len() {
                    return None;
                }
                let at: Vec<usize> = (0..sx.len())
                    .filter(|&i| sx.as_bytes()[i] != sy.as_bytes()[i])
                    .collect();
                if at
                    .iter()
                    .any(|&i| sx.get(i..i + a.len()) != Some(a.as_str()))
                    || write_index(sx, &at, a.len(), &b) != *sy
                {
                    return None;
                }
                found.push(at);
            }
            marks.push(found);
        }
        // Everything else (codes, ranges, edits' ranges) must be the same.
        let same = first.iter().zip(&second).zip(&marks).all(|((x, y), at)| {
            let mut x = x.clone();
            for (text, at) in texts_mut(&mut x).into_iter().zip(at) {
                *text = write_index(text, at, a.len(), &b);
            }
            x == *y
        });
        same.then_some(Template {
            diagnostics: first,
            marks,
        })
    }

    /// The diagnostics written for entry `index`, unsorted.
    pub(super) fn render(&self, index: usize) -> Vec<Diagnostic> {
        let digits = index.to_string();
        let width = PROBES[0].to_string().len();
        self.diagnostics
            .iter()
            .zip(&self.marks)
            .map(|(diagnostic, marks)| {
                let mut diagnostic = diagnostic.clone();
                for (text, at) in texts_mut(&mut diagnostic).into_iter().zip(marks) {
                    if !at.is_empty() {
                        *text = write_index(text, at, width, &digits);
                    }
                }
                diagnostic
            })
            .collect()
    }
}

/// Every text of a diagnostic that may name its entry: the message, the
/// related messages, the fix's title and its edits' new texts.
pub(super) fn texts_mut(diagnostic: &mut Diagnostic) -> Vec<&mut String> {
    let mut texts = vec![&mut diagnostic.message];
    texts.extend(diagnostic.related.iter_mut().map(|r| &mut r.message));
    if let Some(fix) = &mut diagnostic.fix {
        texts.push(&mut fix.title);
        texts.extend(fix.edits.iter_mut().map(|e| &mut e.new_text));
    }
    texts
}

/// `text` with the `width` bytes at each of `at` replaced by `digits`.
pub(super) fn write_index(text: &str, at: &[usize], width: usize, digits: &str) -> String {
    let mut out = String::with_capacity(text.len() + at.len() * digits.len());
    let mut from = 0;
    for &i in at {
        out.push_str(&text[from..i]);
        out.push_str(digits);
        from = i + width;
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::diagnostic::Code;
    use crate::fixture::report_with_entry;
    use crate::incremental::slots::check_alone;
    use crate::text::TextRange;

    /// Without its `signals` and not in the fixture's shortlist: messages,
    /// related messages and a fix that name `entries[i]`.
    const ENTRY: &str = r#"{"path": "docs/b.md", "category": {"class": "stale", "subtype": "contradicted"},
      "op": "rewrite", "op_type": "generative", "is_destructive": false, "is_reversible": true,
      "safety_tier": "confirm", "token_estimate": {"raw_tokens": 5}}"#;

    /// `ENTRY`'s diagnostics checked alone as entry `index` of the fixture.
    fn checked(index: usize) -> Vec<Diagnostic> {
        let text = report_with_entry(ENTRY);
        let start = text.find(ENTRY).expect("the entry");
        let range = TextRange::new(start, start + ENTRY.len());
        let shortlist = crate::analyze(&text).cross.and_then(|c| c.shortlist);
        let slot = check_alone(ENTRY.to_string(), range, index, shortlist.as_ref());
        slot.expect("parses alone").diagnostics
    }

    fn probed() -> Option<Template> {
        Template::new(checked(PROBES[0]), checked(PROBES[1]))
    }

    #[test]
    fn a_template_renders_the_diagnostics_of_any_index() {
        let template = probed().expect("the probes differ in the index alone");
        for index in [0, 7, 12_345, usize::MAX] {
            assert_eq!(template.render(index), checked(index), "entries[{index}]");
        }
        let mut texts = String::new();
        for mut diagnostic in template.render(7) {
            for text in texts_mut(&mut diagnostic) {
                texts.push_str(&format!("{text}\n"));
            }
        }
        expect![[r#"
            `entries[7]` is missing the required field "signals"
            the object that lacks it
            `entries[7].path` "docs/b.md" is not in the shortlist; every entry's path must be a shortlist member
            the shortlist the scanner produced
            Add "docs/b.md" to shortlist
            , "docs/b.md"
        "#]].assert_eq(&texts);
    }

    #[test]
    fn no_template_when_the_probes_differ_beyond_the_index() {
        let mut fewer = checked(PROBES[1]);
        fewer.pop();
        assert!(Template::new(checked(PROBES[0]), fewer).is_none());
        let mut moved = checked(PROBES[1]);
        moved[0].range = TextRange::new(moved[0].range.start + 1, moved[0].range.end + 1);
        assert!(Template::new(checked(PROBES[0]), moved).is_none());
        // The same length, another word.
        let mut reworded = checked(PROBES[1]);
        let named = reworded.iter_mut().find(|d| d.message.contains("entries"));
        let message = &mut named.expect("a message names the entry").message;
        *message = message.replacen("entries", "ENTRIES", 1);
        assert!(Template::new(checked(PROBES[0]), reworded).is_none());
        // Digits that differ where the probe is not written.
        let shorter = PROBES[0].to_string()[1..].to_string();
        let first = vec![Diagnostic::new(
            Code::SyntaxError,
            TextRange::new(0, 1),
            shorter.clone(),
        )];
        let second = vec![Diagnostic::new(
            Code::SyntaxError,
            TextRange::new(0, 1),
            shorter.replacen('0', "1", 1),
        )];
        assert!(Template::new(first, second).is_none());
    }

    #[test]
    fn diagnostics_that_name_no_index_render_as_they_are() {
        let diagnostics = vec![Diagnostic::new(
            Code::SyntaxError,
            TextRange::new(3, 4),
            "expected a value",
        )];
        let template = Template::new(diagnostics.clone(), diagnostics.clone()).expect("no index");
        assert_eq!(template.render(42), diagnostics);
        assert_eq!(
            Template::new(Vec::new(), Vec::new()).map(|t| t.render(1)),
            Some(Vec::new())
        );
    }

    #[test]
    fn write_index_writes_the_digits_over_each_mark() {
        let text = "entries[1000].path and `entries[1000]`";
        assert_eq!(
            write_index(text, &[8, 32], 4, "7"),
            "entries[7].path and `entries[7]`"
        );
        assert_eq!(
            write_index(text, &[8], 4, "123456"),
            "entries[123456].path and `entries[1000]`"
        );
        assert_eq!(write_index("no index", &[], 4, "7"), "no index");
    }
}
