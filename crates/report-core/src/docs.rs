//! The words behind the codes: `invariants.md`, built in, so that hover and
//! `report-lsp explain` quote the same text the contract is written in.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::diagnostic::Code;

/// `invariants.md` as it was when this was built.
pub const INVARIANTS: &str = include_str!(concat!(env!("OUT_DIR"), "/invariants.md"));

/// `name -> meaning` from the `## Glossary` section of `invariants.md`.
pub fn glossary() -> &'static HashMap<&'static str, &'static str> {
    static GLOSSARY: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    GLOSSARY.get_or_init(|| {
        let section = INVARIANTS
            .split("\n## Glossary\n")
            .nth(1)
            .unwrap_or_default();
        section
            .lines()
            .filter_map(|line| line.strip_prefix("- `"))
            .filter_map(|line| line.split_once("`: "))
            .collect()
    })
}

/// The section of invariant `number`, from its heading to the next one.
pub fn invariant_section(number: u32) -> Option<&'static str> {
    let heading = format!("\n## {number}. ");
    let start = INVARIANTS.find(&heading)? + 1;
    let end = INVARIANTS[start..]
        .find("\n## ")
        .map_or(INVARIANTS.len(), |i| start + i);
    Some(INVARIANTS[start..end].trim_end())
}

/// The title of invariant `number`: its heading without `## N. `.
pub fn invariant_heading(number: u32) -> Option<&'static str> {
    let section = invariant_section(number)?;
    let heading = section.lines().next()?;
    Some(heading.split_once(". ").map_or(heading, |(_, title)| title))
}

/// The words of invariant `number`, without its heading and codes line.
pub fn invariant_body(number: u32) -> Option<&'static str> {
    let section = invariant_section(number)?;
    let body = section.split_once('\n').map_or("", |(_, body)| body);
    let body = body.split("\n**Codes:**").next().unwrap_or(body);
    Some(body.trim())
}

/// The invariant a code enforces, in the words of `invariants.md`: the code,
/// its severity and the invariant's section. SARIF rules' help text too.
pub fn explain(code: Code) -> String {
    let number = code.invariant();
    let section = invariant_section(number).unwrap_or("(invariants.md has no such section)");
    format!(
        "{code} ({severity}) enforces invariant {number} of invariants.md:\n\n{section}\n",
        severity = code.severity().as_str()
    )
}

/// An example report, by name: the golden examples, handed in by the caller
/// (the core reads no files).
#[derive(Clone, Copy, Debug)]
pub struct Example<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// What `report-lsp explain CODE` prints: [`explain`], then a failing example
/// (the first of `invalid` that has the code, around the diagnostic) and a
/// passing one (that spot with the diagnostic's fix applied, or else the same
/// field in `valid`).
pub fn explain_with_examples(code: Code, invalid: &[Example<'_>], valid: &Example<'_>) -> String {
    let mut text = explain(code);
    let found = invalid.iter().find_map(|example| {
        let analysis =
            crate::analyze_with(example.bytes.to_vec(), crate::AnalysisOptions::default());
        let diagnostic = analysis
            .diagnostics
            .iter()
            .find(|d| d.code == code)?
            .clone();
        Some((example, analysis, diagnostic))
    });
    let Some((example, analysis, diagnostic)) = found else {
        let why = match code.invariant() {
            13 => {
                "a workspace check judges the report against the project's files and git, not the file alone"
            }
            _ => "this is a limit of the language server, not a property of a report file",
        };
        text.push_str(&format!("\nNo example: {why}.\n"));
        return text;
    };
    let failing: &str = &analysis.text;
    let (first, last) = line_span(failing, diagnostic.range.start, diagnostic.range.end);
    text.push_str(&format!(
        "\nFailing example ({}, line {}):\n\n{}\n    {}[{code}]: {}\n",
        example.name,
        first + 1,
        excerpt(failing, first, last, Some(diagnostic.range.start)),
        diagnostic.severity.as_str(),
        diagnostic.message
    ));
    if let Some((title, passing, first, last)) = fixed_excerpt(failing, &diagnostic) {
        text.push_str(&format!(
            "\nPassing example (the same report after the fix: {title}):\n\n{}\n",
            excerpt(&passing, first, last, None)
        ));
    } else {
        let (passing, first, last) =
            same_field_in(failing, &analysis, diagnostic.range.start, valid).unwrap_or_else(|| {
                // A text with no tree to search has the whole valid report as its passing example.
                let text = String::from_utf8_lossy(valid.bytes).into_owned();
                let last = text.lines().count().saturating_sub(1);
                (text, 0, last)
            });
        text.push_str(&format!(
            "\nPassing example ({}, line {}):\n\n{}\n",
            valid.name,
            first + 1,
            excerpt(&passing, first, last, None)
        ));
    }
    text
}

/// The 0-based lines `start..end` span.
fn line_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    let line = |offset: usize| text[..offset.min(text.len())].matches('\n').count();
    (line(start), line(end.max(start)))
}

/// The diagnostic's fix applied: its title, the fixed text and the lines its first edit now covers.
fn fixed_excerpt(
    text: &str,
    diagnostic: &crate::diagnostic::Diagnostic,
) -> Option<(String, String, usize, usize)> {
    let fix = diagnostic.fix.as_ref()?;
    let fixed = crate::fix::apply(text, &fix.edits).ok()?;
    let edit = fix.edits.iter().min_by_key(|e| e.range.start)?;
    let (first, _) = line_span(text, edit.range.start, edit.range.start);
    let (_, last) = line_span(
        &fixed,
        edit.range.start,
        edit.range.start + edit.new_text.len(),
    );
    Some((fix.title.clone(), fixed, first, last))
}

/// The field at `offset` of the failing report, found by its key path
/// (array indices ignored) in the valid one; the enclosing field when the
/// valid report has no such field.
fn same_field_in(
    failing: &str,
    analysis: &crate::Analysis,
    offset: usize,
    valid: &Example<'_>,
) -> Option<(String, usize, usize)> {
    let root = analysis.root()?;
    let keys: Vec<Option<String>> = root
        .path_to(offset)
        .iter()
        .skip(1)
        .map(|(member, _)| {
            member.as_ref().map(|m| {
                failing[m.key_range.as_range()]
                    .trim_matches('"')
                    .to_string()
            })
        })
        .collect();
    let valid_text = String::from_utf8_lossy(valid.bytes).into_owned();
    let parse = crate::syntax::parse(&valid_text);
    let valid_root = parse.root()?;
    let (start, end) = (0..=keys.len())
        .rev()
        .find_map(|len| find_by_keys(valid_root, &keys[..len]))?;
    let (first, last) = line_span(&valid_text, start, end);
    Some((valid_text, first, last))
}

/// The range of the first member (or item) reached by `keys`, any array index matching.
fn find_by_keys(node: crate::syntax::Node<'_>, keys: &[Option<String>]) -> Option<(usize, usize)> {
    let Some((key, rest)) = keys.split_first() else {
        return Some((node.range().start, node.range().end));
    };
    match key {
        Some(key) => {
            let member = node.member(key)?;
            match find_by_keys(member.value, rest) {
                // A member is shown from its key.
                Some((start, end)) if rest.is_empty() => {
                    Some((start.min(member.key_range.start), end))
                }
                found => found,
            }
        }
        None => node.items()?.find_map(|item| find_by_keys(item, rest)),
    }
}

/// Lines `first..=last` of `text`, numbered and indented, at most
/// `MAX_LINES` of them; a long line is cut around `column_of`.
fn excerpt(text: &str, first: usize, last: usize, column_of: Option<usize>) -> String {
    const MAX_LINES: usize = 10;
    const MAX_WIDTH: usize = 100;
    let mut out = String::new();
    let mut line_start = text
        .split('\n')
        .take(first)
        .map(|l| l.len() + 1)
        .sum::<usize>();
    for (number, raw) in text
        .split('\n')
        .enumerate()
        .skip(first)
        .take(last - first + 1)
    {
        if number - first == MAX_LINES {
            out.push_str("         …\n");
            break;
        }
        let line = raw.trim_end_matches('\r');
        let shown = if line.chars().count() <= MAX_WIDTH {
            line.to_string()
        } else {
            let at = column_of
                .filter(|&o| o >= line_start && o <= line_start + line.len())
                .map_or(0, |o| line[..o - line_start].chars().count());
            let from = at.saturating_sub(MAX_WIDTH / 2);
            let cut: String = line.chars().skip(from).take(MAX_WIDTH).collect();
            format!("{}{cut}…", if from > 0 { "…" } else { "" })
        };
        out.push_str(&format!("    {:>4} | {shown}\n", number + 1));
        line_start += raw.len() + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_explained_by_the_section_that_lists_it() {
        for &code in Code::ALL {
            let text = explain(code);
            let listed = format!("`{code}`");
            assert!(text.contains(&listed), "{code} is not listed in:\n{text}");
            assert!(
                text.contains(&format!("## {}. ", code.invariant())),
                "{text}"
            );
        }
    }

    #[test]
    fn a_section_ends_before_the_next_heading() {
        let seven = invariant_section(7).unwrap();
        assert!(seven.starts_with("## 7. The safety tier is computed, never assigned"));
        assert!(!seven.contains("## 8."), "{seven}");
    }

    #[test]
    fn headings_and_bodies_split_a_section() {
        assert_eq!(
            invariant_heading(7),
            Some("The safety tier is computed, never assigned")
        );
        let body = invariant_body(7).unwrap();
        assert!(body.starts_with("This is the invariant"), "{body}");
        assert!(!body.contains("**Codes:**"), "{body}");
    }

    #[test]
    fn examples_come_from_the_reports_handed_in() {
        let failing = "{\"schema_version\": \"1\",\n \"tool_version\": 4}";
        let passing = "{\n  \"tool_version\": \"t 1.0\"\n}";
        let text = explain_with_examples(
            Code::WrongType,
            &[Example {
                name: "bad.json",
                bytes: failing.as_bytes(),
            }],
            &Example {
                name: "good.json",
                bytes: passing.as_bytes(),
            },
        );
        let examples = &text[text.find("\nFailing").unwrap()..];
        expect_test::expect![[r#"

            Failing example (bad.json, line 2):

                   2 |  "tool_version": 4}

                error[wrong-type]: `tool_version` must be a string, found a number

            Passing example (good.json, line 2):

                   2 |   "tool_version": "t 1.0"

        "#]]
        .assert_eq(examples);
        let none = explain_with_examples(
            Code::DocumentTooLarge,
            &[],
            &Example {
                name: "v",
                bytes: b"{}",
            },
        );
        assert!(none.contains("No example"), "{none}");
    }
}
