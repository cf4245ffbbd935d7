//! What every view of a report shows of its diagnostics: `check`, the open
//! document's publication and the unopened report's. One function, so that
//! the same report and project give the same answer in each: the project's
//! levels applied first (an `off` code takes no place), then the cap over
//! the report's own diagnostics and the workspace checks' together (the
//! most severe at their levels first), in document order, and how many
//! were left out, worded once as the `too-many-diagnostics` summary.

use std::borrow::Cow;

use crate::diagnostic::{Code, Diagnostic, Omitted, rank};
use crate::severities::{Level, Severities};
use crate::text::TextRange;

/// How many diagnostics an analysis keeps under a cap of `max`: twice as
/// many (at least 1,000), counting the rest, so that a report with millions
/// of problems takes the memory of its text, not of its problems. Every
/// view keeps the same, so those only counted are the same in each.
pub fn kept(max: usize) -> usize {
    max.saturating_mul(2).max(1000)
}

/// What a publication is made with.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// The most diagnostics shown (the summary aside).
    pub max: usize,
    /// The level the report's project sets for each code.
    pub severities: &'a Severities,
}

/// A report's own diagnostics as its analysis offers them: at their
/// default severities, and the count of those it does not offer, which
/// rank after every one offered (counted by its analysis only, or not
/// rendered since they could not reach the cap) and are not `off`.
#[derive(Debug)]
pub struct Own<'d> {
    pub diagnostics: Vec<Cow<'d, Diagnostic>>,
    pub not_offered: usize,
}

impl Own<'static> {
    /// All that a whole analysis kept (taken over), and those it counted.
    pub fn of_whole(diagnostics: Vec<Diagnostic>, omitted: &Omitted) -> Own<'static> {
        Own {
            diagnostics: diagnostics.into_iter().map(Cow::Owned).collect(),
            not_offered: omitted.len(),
        }
    }
}

/// The diagnostics a capped publication left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeftOut {
    /// Those not shown.
    pub count: usize,
    /// The problems in all, those shown and those left out.
    pub total: usize,
}

/// What a view shows of a report's diagnostics.
#[derive(Debug)]
pub struct Publication<'d> {
    /// At most the cap, at their levels, in document order.
    pub diagnostics: Vec<Cow<'d, Diagnostic>>,
    /// How many were left out, when any were.
    pub left_out: Option<LeftOut>,
    /// Those the cap dropped here, at their levels (the count of
    /// `left_out` holds those the analysis did not offer besides): what
    /// `check` adds to its analysis' counts.
    pub dropped: Omitted,
}

/// The report's own diagnostics and the workspace checks' (`workspace`, at
/// their default severities, any order) as a view shows them.
pub fn publish<'d>(own: Own<'d>, workspace: &'d [Diagnostic], o: &Options) -> Publication<'d> {
    let at_level = |d: Cow<'d, Diagnostic>| match d {
        Cow::Borrowed(d) => o.severities.apply(d),
        Cow::Owned(d) => o.severities.apply(&d).map(|d| Cow::Owned(d.into_owned())),
    };
    let mut shown: Vec<Cow<'d, Diagnostic>> = (own.diagnostics.into_iter())
        .chain(workspace.iter().map(Cow::Borrowed))
        .filter_map(at_level)
        .collect();
    let mut dropped = Omitted::default();
    if shown.len() > o.max {
        shown.select_nth_unstable_by(o.max, |a, b| rank(a, b));
        for d in shown.drain(o.max..) {
            dropped.push(&d);
        }
    }
    shown.sort_by(|a, b| Diagnostic::order(a, b));
    let count = own.not_offered + dropped.len();
    let left_out = (count > 0).then(|| LeftOut {
        count,
        total: shown.len() + count,
    });
    Publication {
        diagnostics: shown,
        left_out,
        dropped,
    }
}

/// The `too-many-diagnostics` summary of what `left_out` counts, at the
/// document's start and at its level (None when the project turns it
/// off). `limit` names the cap as the reader set it (`max-diagnostics = 40
/// in /p/report-lsp.toml`), `after` says where to see the rest.
pub fn summary(
    left_out: LeftOut,
    limit: &str,
    after: &str,
    severities: &Severities,
) -> Option<Diagnostic> {
    let LeftOut { count, total } = left_out;
    let summary = Diagnostic::new(
        Code::TooManyDiagnostics,
        TextRange::empty(0),
        format!(
            "{count} more problems are not shown ({total} in all; the limit is {limit}){after}"
        ),
    );
    match severities.level(Code::TooManyDiagnostics) {
        Level::Off => None,
        Level::Report(severity) => Some(Diagnostic {
            severity,
            ..summary
        }),
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::diagnostic::Severity;

    fn at(code: Code, start: usize) -> Diagnostic {
        Diagnostic::new(
            code,
            TextRange::new(start, start + 1),
            format!("at {start}"),
        )
    }

    fn shown(p: &Publication) -> String {
        let lines: Vec<String> = (p.diagnostics.iter())
            .map(|d| format!("{} {} {}", d.range.start, d.code, d.severity.as_str()))
            .collect();
        format!("{}\nleft out: {:?}", lines.join("\n"), p.left_out)
    }

    fn levels(set: &[(Code, Level)]) -> Severities {
        let mut severities = Severities::default();
        for &(code, level) in set {
            severities.set(code, level).unwrap();
        }
        severities
    }

    fn under(max: usize, severities: &Severities) -> Options<'_> {
        Options { max, severities }
    }

    fn own(diagnostics: &[Diagnostic], not_offered: usize) -> Own<'_> {
        Own {
            diagnostics: diagnostics.iter().map(Cow::Borrowed).collect(),
            not_offered,
        }
    }

    #[test]
    fn levels_are_applied_before_the_cap_and_a_raised_code_is_kept_first() {
        let report = [at(Code::UnknownField, 1), at(Code::UnknownField, 2)];
        let workspace = [at(Code::PathMissing, 9), at(Code::PathMissing, 5)];
        let severities = levels(&[(Code::PathMissing, Level::Report(Severity::Error))]);
        let p = publish(own(&report, 0), &workspace, &under(2, &severities));
        expect![[r#"
            5 path-missing error
            9 path-missing error
            left out: Some(LeftOut { count: 2, total: 4 })"#]]
        .assert_eq(&shown(&p));
        assert_eq!(p.dropped.count(Severity::Information), 2);
    }

    #[test]
    fn an_off_code_takes_no_place_and_is_not_counted() {
        let report = [
            at(Code::UnknownField, 1),
            at(Code::UnknownField, 2),
            at(Code::TierMismatch, 3),
        ];
        let workspace = [at(Code::PathMissing, 7)];
        let severities = levels(&[(Code::UnknownField, Level::Off)]);
        let p = publish(own(&report, 0), &workspace, &under(2, &severities));
        expect![[r#"
            3 tier-mismatch error
            7 path-missing warning
            left out: None"#]]
        .assert_eq(&shown(&p));
    }

    #[test]
    fn the_workspace_checks_are_under_the_cap_and_merged_in_document_order() {
        let report = [at(Code::TierMismatch, 8), at(Code::UnknownField, 2)];
        let workspace = [
            at(Code::PathMissing, 9),
            at(Code::PathMissing, 1),
            at(Code::PathMissing, 4),
        ];
        let plain = Severities::default();
        let o = under(3, &plain);
        let p = publish(own(&report, 5), &workspace, &o);
        expect![[r#"
            1 path-missing warning
            4 path-missing warning
            8 tier-mismatch error
            left out: Some(LeftOut { count: 7, total: 10 })"#]]
        .assert_eq(&shown(&p));
        let under = Options { max: 10, ..o };
        let all = publish(own(&report, 0), &workspace, &under);
        assert_eq!(all.diagnostics.len(), 5);
        assert_eq!(all.left_out, None);
    }

    #[test]
    fn the_summary_names_the_limit_at_its_level_or_not_at_all() {
        let left_out = LeftOut {
            count: 57,
            total: 60,
        };
        let limit = "the reportLsp.maxDiagnostics setting, 3";
        let after = "; `report-lsp check` lists them, up to its --max-diagnostics";
        let summary = summary(left_out, limit, after, &Severities::default()).unwrap();
        assert_eq!(summary.code, Code::TooManyDiagnostics);
        assert_eq!(summary.range, TextRange::empty(0));
        assert_eq!(summary.severity, Severity::Warning);
        expect!["57 more problems are not shown (60 in all; the limit is the reportLsp.maxDiagnostics setting, 3); `report-lsp check` lists them, up to its --max-diagnostics"]
            .assert_eq(&summary.message);
        let information = Level::Report(Severity::Information);
        let lowered = levels(&[(Code::TooManyDiagnostics, information)]);
        let lowered = self::summary(left_out, limit, after, &lowered).unwrap();
        assert_eq!(lowered.severity, Severity::Information);
        let off = levels(&[(Code::TooManyDiagnostics, Level::Off)]);
        assert!(self::summary(left_out, limit, after, &off).is_none());
    }
}
