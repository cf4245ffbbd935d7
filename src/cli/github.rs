//! `--format github`: GitHub Actions workflow commands, one line per
//! diagnostic, which the runner turns into annotations on the changed files.

use std::io::{self, Write};

use report_core::diagnostic::Severity;

use super::{Outcome, all_diagnostics, one_based, one_based_range};

pub(super) fn write(out: &mut dyn Write, outcome: &Outcome) -> io::Result<()> {
    for failure in &outcome.failures {
        let file = failure
            .path
            .as_deref()
            .map(|p| format!(" file={},", escape_property(p)))
            .unwrap_or_else(|| " ".into());
        writeln!(
            out,
            "::error{file}title=report-lsp::{}",
            escape_data(&failure.message)
        )?;
    }
    for (file, diagnostic) in all_diagnostics(outcome) {
        let command = match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information | Severity::Hint => "notice",
        };
        let (start, end) = one_based_range(&file.analysis, diagnostic.range);
        let mut message = diagnostic.message.clone();
        for related in &diagnostic.related {
            let at = one_based(&file.analysis, related.range.start);
            message.push_str(&format!(
                "\n{}:{}:{}: {}",
                file.path, at.line, at.column, related.message
            ));
        }
        if let Some(fix) = &diagnostic.fix {
            message.push_str(&format!("\nfix: {}", fix.title));
        }
        writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape_property(&file.path),
            start.line,
            start.column,
            end.line,
            end.column,
            escape_property(diagnostic.code.as_str()),
            escape_data(&message)
        )?;
    }
    for file in outcome
        .files
        .iter()
        .filter(|f| !f.analysis.omitted.is_empty())
    {
        writeln!(
            out,
            "::warning file={},title=report-lsp::{}",
            escape_property(&file.path),
            escape_data(&format!(
                "{} more problems are not shown (past --max-diagnostics)",
                file.analysis.omitted.len()
            ))
        )?;
    }
    Ok(())
}

/// A command's message: `%`, CR and LF are encoded, as the runner decodes them.
pub(super) fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: as data, and `:` and `,` too, which end a property.
pub(super) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_the_runner_decodes() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
