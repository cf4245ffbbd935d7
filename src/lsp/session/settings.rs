//! The user's settings: each one's field, default and type check, merged
//! from `initializationOptions`, `didChangeConfiguration` and the answers
//! to `workspace/configuration` by [`Settings::apply`], the one place a
//! setting is read; and laid over a project file's values by
//! [`Settings::under_project`]: the editor's settings over the file's, over
//! the defaults.

use std::collections::BTreeSet;

use report_core::host::{DEFAULT_MAX_DIAGNOSTICS, DEFAULT_MAX_DOCUMENT_BYTES};
use report_core::selection::ReportGlobs;
use report_core::severities::Severities;

use crate::project_file::FileValues;

/// The user's settings (`initializationOptions`, `didChangeConfiguration`,
/// and the answers to `workspace/configuration`).
#[derive(Clone, Debug)]
pub struct Settings {
    pub globs: ReportGlobs,
    /// Diagnostics published per document at most; one summary stands for the rest.
    pub max_diagnostics: usize,
    /// Documents larger than this get one diagnostic instead of an analysis.
    pub max_document_bytes: usize,
    /// How far `raw_tokens` may be from the workspace check's recount, as a
    /// fraction of the recount (`tokenTolerance`).
    pub token_tolerance: f64,
    /// Document links per report at most (`maxDocumentLinks`); go to
    /// definition opens any named file.
    pub max_document_links: usize,
    /// Whether the workspace checks run at all (`workspaceChecks`: `"on"`,
    /// `"off"`): off, nothing under a project is read.
    pub workspace_checks: bool,
    /// Set by the VS Code extension in a restricted (untrusted) workspace
    /// (`restrictedWorkspace`): the workspace checks are off, whatever
    /// `workspaceChecks` says, and the hover says the workspace is restricted.
    pub restricted_workspace: bool,
    /// Whether a project root outside every workspace folder is read
    /// (`allowRootOutsideWorkspace`).
    pub allow_root_outside_workspace: bool,
    /// Whether diagnostics are pulled (`pullDiagnostics`), when the user
    /// says so; None lets the client's capabilities decide
    /// ([`super::ResolvedClientCapabilities::pulls_diagnostics`]). Read once,
    /// at `initialize`, where the server says whether it answers pulls.
    pub pull_diagnostics: Option<bool>,
    /// How much of the server's log goes to the client while its trace is
    /// on (`logLevel`: `off`, `error`, `warn`, `info`, `debug`, `trace`).
    pub log_level: tracing::level_filters::LevelFilter,
    /// Whether the workspace folders are searched for reports that are not
    /// open (`findReports`), for workspace diagnostics and symbols.
    pub find_reports: bool,
    /// Whether a client that takes pushes is sent the diagnostics of the
    /// reports found but not open (`diagnoseUnopenedReports`); a client
    /// that pulls gets them through `workspace/diagnostic` anyway.
    pub diagnose_unopened_reports: bool,
    /// Whether a document a report names gets a hint over each span a
    /// clean removes (`targetHints`), tagged so that editors fade it.
    pub target_hints: bool,
    /// The level of each code a project file sets (`[severity]`); the
    /// editor has no setting of its own for it.
    pub severities: Severities,
    /// The project file `max_diagnostics` comes from, when it does: the
    /// summary of what was left out names it.
    pub max_diagnostics_from: Option<std::path::PathBuf>,
    /// The settings the editor set itself (by their names): those a
    /// project file does not override.
    explicit: BTreeSet<&'static str>,
}

/// What the workspace checks take of the settings: a change of it checks
/// every open report against its project again.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WorkspaceSettings {
    pub token_tolerance: f64,
    /// Why the checks are off, for the hover; None when they run.
    pub off: Option<&'static str>,
    pub allow_root_outside_workspace: bool,
}

/// VS Code's JSON server computes at most 5,000 symbols and colours
/// (`json.maxItemsComputed`); links are as costly to send after each change.
const DEFAULT_MAX_DOCUMENT_LINKS: usize = 5000;

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            globs: ReportGlobs::default(),
            max_diagnostics: DEFAULT_MAX_DIAGNOSTICS,
            max_document_bytes: DEFAULT_MAX_DOCUMENT_BYTES,
            token_tolerance: crate::project::tokens::DEFAULT_TOLERANCE,
            max_document_links: DEFAULT_MAX_DOCUMENT_LINKS,
            workspace_checks: true,
            restricted_workspace: false,
            allow_root_outside_workspace: false,
            pull_diagnostics: None,
            log_level: tracing::level_filters::LevelFilter::INFO,
            find_reports: true,
            diagnose_unopened_reports: false,
            target_hints: true,
            severities: Severities::default(),
            max_diagnostics_from: None,
            explicit: BTreeSet::new(),
        }
    }
}

impl Settings {
    /// Merges the settings in `value` (under `reportLsp` or at the top level)
    /// into these. A setting `value` lacks (or sets to null) keeps its current
    /// value: clients send partial changes, and a change of one setting must
    /// not undo another. A value of the wrong type is refused, the current one
    /// kept; the returned messages say what was refused, for the client's log.
    pub fn apply(&mut self, value: Option<&serde_json::Value>) -> Vec<String> {
        let mut refused = Vec::new();
        let Some(value) = value else {
            return refused;
        };
        let section = value.get("reportLsp").unwrap_or(value);
        let setting = |name: &str| section.get(name).filter(|v| !v.is_null());
        if let Some(files) = setting("files") {
            match glob_list(files)
                .and_then(|patterns| ReportGlobs::new(&patterns).map_err(|error| error.to_string()))
            {
                Ok(globs) => {
                    self.globs = globs;
                    self.explicit.insert("files");
                }
                Err(why) => refused.push(refusal("files", files, &why)),
            }
        }
        if let Some(max) = setting("maxDiagnostics") {
            match positive(max) {
                Some(max) => {
                    self.max_diagnostics = max;
                    self.explicit.insert("maxDiagnostics");
                }
                None => refused.push(refusal("maxDiagnostics", max, POSITIVE)),
            }
        }
        if let Some(max) = setting("maxDocumentBytes") {
            match positive(max) {
                Some(max) => {
                    self.max_document_bytes = max;
                    self.explicit.insert("maxDocumentBytes");
                }
                None => refused.push(refusal("maxDocumentBytes", max, POSITIVE)),
            }
        }
        if let Some(max) = setting("maxDocumentLinks") {
            match positive(max) {
                Some(max) => {
                    self.max_document_links = max;
                    self.explicit.insert("maxDocumentLinks");
                }
                None => refused.push(refusal("maxDocumentLinks", max, POSITIVE)),
            }
        }
        if let Some(tolerance) = setting("tokenTolerance") {
            match tolerance.as_f64().filter(|t| t.is_finite() && *t >= 0.0) {
                Some(t) => {
                    self.token_tolerance = t;
                    self.explicit.insert("tokenTolerance");
                }
                None => refused.push(refusal("tokenTolerance", tolerance, FRACTION)),
            }
        }
        if let Some(checks) = setting("workspaceChecks") {
            match checks.as_str() {
                Some(on @ ("on" | "off")) => {
                    self.workspace_checks = on == "on";
                    self.explicit.insert("workspaceChecks");
                }
                _ => refused.push(refusal("workspaceChecks", checks, ON_OFF)),
            }
        }
        for (name, field) in [
            ("restrictedWorkspace", &mut self.restricted_workspace),
            (
                "allowRootOutsideWorkspace",
                &mut self.allow_root_outside_workspace,
            ),
            ("findReports", &mut self.find_reports),
            (
                "diagnoseUnopenedReports",
                &mut self.diagnose_unopened_reports,
            ),
            ("targetHints", &mut self.target_hints),
        ] {
            if let Some(value) = setting(name) {
                match value.as_bool() {
                    Some(yes) => {
                        *field = yes;
                        self.explicit.insert(name);
                    }
                    None => refused.push(refusal(name, value, BOOLEAN)),
                }
            }
        }
        if let Some(level) = setting("logLevel") {
            match level.as_str().and_then(crate::log::level_named) {
                Some(level) => self.log_level = level,
                None => refused.push(refusal("logLevel", level, LEVEL)),
            }
        }
        if let Some(pull) = setting("pullDiagnostics") {
            match pull.as_bool() {
                Some(yes) => self.pull_diagnostics = Some(yes),
                None => refused.push(refusal("pullDiagnostics", pull, BOOLEAN)),
            }
        }
        refused
    }

    /// These settings over the values of the project file at `path`: each value the file
    /// sets holds unless the editor set that setting itself.
    pub fn under_project(&self, file: &FileValues, path: &std::path::Path) -> Settings {
        let mut settings = self.clone();
        let unset = |name: &str| !self.explicit.contains(name);
        if let Some(globs) = file.files.as_ref().filter(|_| unset("files")) {
            settings.globs = globs.clone();
        }
        if file.max_diagnostics.is_some() && unset("maxDiagnostics") {
            settings.max_diagnostics_from = Some(path.to_path_buf());
        }
        for (value, name, field) in [
            (
                file.max_diagnostics,
                "maxDiagnostics",
                &mut settings.max_diagnostics,
            ),
            (
                file.max_document_bytes,
                "maxDocumentBytes",
                &mut settings.max_document_bytes,
            ),
            (
                file.max_document_links,
                "maxDocumentLinks",
                &mut settings.max_document_links,
            ),
        ] {
            if let Some(value) = value.filter(|_| unset(name)) {
                *field = value;
            }
        }
        if let Some(t) = file.token_tolerance.filter(|_| unset("tokenTolerance")) {
            settings.token_tolerance = t;
        }
        if let Some(on) = file.workspace_checks.filter(|_| unset("workspaceChecks")) {
            settings.workspace_checks = on;
        }
        if let Some(on) = file.find_reports.filter(|_| unset("findReports")) {
            settings.find_reports = on;
        }
        settings.severities = file.severities.clone();
        settings
    }

    pub fn workspace(&self) -> WorkspaceSettings {
        let off = if self.restricted_workspace {
            Some(
                "the workspace checks are off because the editor's workspace is restricted (not trusted); they run once you trust it",
            )
        } else if !self.workspace_checks {
            Some("the workspace checks are off (the setting `workspaceChecks` is `\"off\"`)")
        } else {
            None
        };
        WorkspaceSettings {
            token_tolerance: self.token_tolerance,
            off,
            allow_root_outside_workspace: self.allow_root_outside_workspace,
        }
    }
}

const ON_OFF: &str = "expected \"on\" or \"off\"";

const BOOLEAN: &str = "expected true or false";

const LEVEL: &str = "expected \"off\", \"error\", \"warn\", \"info\", \"debug\" or \"trace\"";

const FRACTION: &str = "expected a fraction of at least 0, such as 0.1 for 10%";

const POSITIVE: &str = "expected a whole number of at least 1";

/// A whole number of at least 1: `"10"`, `10.5`, `-1` and `0` are not.
fn positive(value: &serde_json::Value) -> Option<usize> {
    value
        .as_u64()
        .filter(|&n| n >= 1)
        .and_then(|n| usize::try_from(n).ok())
}

fn glob_list(value: &serde_json::Value) -> Result<Vec<String>, String> {
    let not_list = || "expected a list of glob strings".to_string();
    value
        .as_array()
        .ok_or_else(not_list)?
        .iter()
        .map(|p| p.as_str().map(str::to_string).ok_or_else(not_list))
        .collect()
}

fn refusal(name: &str, value: &serde_json::Value, why: &str) -> String {
    format!(
        "report-lsp: setting reportLsp.{name} = {value} refused ({why}); the previous value is kept"
    )
}

#[cfg(test)]
mod tests {
    use report_core::diagnostic::{Code, Severity};
    use report_core::severities::Level;

    use super::*;

    fn file_values() -> FileValues {
        let text = "max-diagnostics = 7\ntoken-tolerance = 0.5\nworkspace-checks = false\n[severity]\npath-missing = \"error\"\n";
        let kind = crate::project_file::Kind::ReportLsp;
        crate::project_file::parse(text, kind, std::path::Path::new("/p"))
            .unwrap()
            .0
    }

    #[test]
    fn the_editors_settings_beat_the_files_which_beat_the_defaults() {
        let file = file_values();
        let path = std::path::Path::new("/p/report-lsp.toml");
        let under = Settings::default().under_project(&file, path);
        assert_eq!(under.max_diagnostics, 7);
        assert_eq!(under.max_diagnostics_from.as_deref(), Some(path));
        assert_eq!(under.token_tolerance, 0.5);
        assert!(!under.workspace_checks);
        assert_eq!(
            under.severities.level(Code::PathMissing),
            Level::Report(Severity::Error)
        );
        // Left alone by the file: the default.
        assert_eq!(under.max_document_links, DEFAULT_MAX_DOCUMENT_LINKS);

        let mut editor = Settings::default();
        let refused = editor.apply(Some(&serde_json::json!({
            "reportLsp": {"maxDiagnostics": 20, "workspaceChecks": "on", "tokenTolerance": "x"}
        })));
        assert_eq!(refused.len(), 1, "{refused:?}");
        let under = editor.under_project(&file, path);
        assert_eq!(under.max_diagnostics, 20);
        assert_eq!(under.max_diagnostics_from, None);
        assert!(under.workspace_checks);
        // A value the editor sent but that was refused is not the editor's.
        assert_eq!(under.token_tolerance, 0.5);
    }
}
