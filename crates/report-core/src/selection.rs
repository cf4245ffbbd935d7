//! Which files are reports: by name (configurable globs) or by content (a
//! top-level object that looks like a report). Shared by the CLI's folder
//! search and the server's choice of documents to validate.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::schema::ENVELOPE_FIELDS;
use crate::syntax::Node;

/// The globs a report's file name matches unless configured otherwise.
pub const DEFAULT_REPORT_GLOBS: &[&str] = &["**/*.report.json", "**/machine-report*.json"];

/// A compiled set of report-name globs, matched against `/`-separated paths.
#[derive(Clone, Debug)]
pub struct ReportGlobs {
    set: GlobSet,
    /// As given, so that two sets can be compared.
    patterns: Vec<String>,
}

impl PartialEq for ReportGlobs {
    fn eq(&self, other: &ReportGlobs) -> bool {
        self.patterns == other.patterns
    }
}

impl ReportGlobs {
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<ReportGlobs, globset::Error> {
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            builder.add(Glob::new(pattern.as_ref())?);
        }
        Ok(ReportGlobs {
            set: builder.build()?,
            patterns: patterns.iter().map(|p| p.as_ref().to_string()).collect(),
        })
    }

    /// Globs relative to `folder` (a project file's, `/`-separated and
    /// absolute): each pattern that is not absolute is anchored there, so
    /// `out/*.json` is that folder's `out`, and `**/x.json` any `x.json` below it.
    pub fn under<S: AsRef<str>>(
        folder: &str,
        patterns: &[S],
    ) -> Result<ReportGlobs, globset::Error> {
        let base = globset::escape(folder.trim_end_matches('/'));
        let anchored: Vec<String> = patterns
            .iter()
            .map(|p| p.as_ref())
            .map(|p| match p.starts_with('/') {
                true => p.to_string(),
                false => format!("{base}/{}", p.trim_start_matches("./")),
            })
            .collect();
        ReportGlobs::new(&anchored)
    }

    /// The patterns, as given (anchored where [`ReportGlobs::under`] made them).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// True when `path` (any `/`-separated path, absolute or relative) matches a glob.
    pub fn matches(&self, path: &str) -> bool {
        // `**/x` must match a bare `x` too, so try the path below a root as well.
        self.set.is_match(path) || (!path.starts_with('/') && self.set.is_match(format!("/{path}")))
    }
}

impl Default for ReportGlobs {
    fn default() -> ReportGlobs {
        ReportGlobs::new(DEFAULT_REPORT_GLOBS).expect("the default globs are valid")
    }
}

/// A JSON document looks like a report when its top-level object has
/// `schema_version` and at least one other envelope key.
pub fn looks_like_report(root: Node<'_>) -> bool {
    has_report_keys(|key| root.get(key).is_some())
}

/// [`looks_like_report`] of a top level that `has` the keys it has.
pub(crate) fn has_report_keys(has: impl Fn(&str) -> bool) -> bool {
    has("schema_version")
        && ENVELOPE_FIELDS
            .iter()
            .filter(|&&key| key != "schema_version")
            .any(|key| has(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_under_a_folder_are_anchored_there_and_its_name_is_literal() {
        let globs = ReportGlobs::under(
            "/w/[项目] 🚀/",
            &["out/*.json", "./**/r.json", "/abs/*.json"],
        )
        .unwrap();
        assert!(globs.matches("/w/[项目] 🚀/out/a.json"));
        assert!(globs.matches("/w/[项目] 🚀/deep/er/r.json"));
        assert!(globs.matches("/abs/x.json"));
        assert!(
            !globs.matches("/w/项 🚀/out/a.json"),
            "brackets are not a class"
        );
        assert!(!globs.matches("/elsewhere/out/a.json"));
    }

    #[test]
    fn default_globs_match_report_names_anywhere() {
        let globs = ReportGlobs::default();
        for yes in [
            "a.report.json",
            "docs/a.report.json",
            "/home/u/proj/x.report.json",
            "machine-report.json",
            "out/machine-report-2026.json",
            "报告/😀.report.json",
        ] {
            assert!(globs.matches(yes), "{yes}");
        }
        for no in [
            "package.json",
            "report.json",
            "a.report.jsonc",
            "machine-report.txt",
            "docs/reportjson",
        ] {
            assert!(!globs.matches(no), "{no}");
        }
    }

    #[test]
    fn content_sniffing_needs_schema_version_and_another_envelope_key() {
        let looks = |t: &str| looks_like_report(crate::syntax::parse(t).root().unwrap());
        assert!(looks(r#"{"schema_version": "1", "entries": []}"#));
        assert!(!looks(r#"{"schema_version": "1"}"#));
        assert!(!looks(r#"{"name": "pkg", "version": "1.0.0"}"#));
        assert!(!looks(r#"[1]"#));
    }
}
