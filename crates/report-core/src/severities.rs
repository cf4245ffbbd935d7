//! The severity a project reports each code at: a project file may raise any
//! code, lower or silence the codes that are ours (the server's limits, the
//! workspace checks, the contract's notes), but never lower an error the
//! contract makes one: a report that breaks invariants 1 to 11 is invalid
//! whatever a project says (see `invariants.md`, "Severities a project sets").

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::diagnostic::{Code, Diagnostic, Severity};

/// A code's level: a severity, or not reported at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Report(Severity),
    Off,
}

impl Level {
    /// `error`, `warning`, `information` (or `info`), `hint`, `off`.
    pub fn parse(text: &str) -> Option<Level> {
        Some(match text {
            "error" => Level::Report(Severity::Error),
            "warning" => Level::Report(Severity::Warning),
            "information" | "info" => Level::Report(Severity::Information),
            "hint" => Level::Report(Severity::Hint),
            "off" => Level::Off,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Report(severity) => severity.as_str(),
            Level::Off => "off",
        }
    }
}

/// The highest invariant of the contract itself; those above are the
/// validator's own (12: its limits, 13: the workspace checks).
pub const LAST_CONTRACT_INVARIANT: u32 = 11;

/// Why `code` cannot be set to `level`, or None when it can.
pub fn refusal(code: Code, level: Level) -> Option<String> {
    let lowered = level != Level::Report(Severity::Error);
    (code.severity() == Severity::Error && code.invariant() <= LAST_CONTRACT_INVARIANT && lowered)
        .then(|| {
            format!(
                "`{code}` enforces invariant {} of the report's contract, which makes it an error: a report that breaks it is invalid, so it cannot be set to {}",
                code.invariant(),
                level.as_str()
            )
        })
}

/// The levels a project sets, by code; the codes it does not name keep
/// their own severity.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Severities {
    levels: BTreeMap<Code, Level>,
}

impl Severities {
    /// Sets `code`'s level, unless [`refusal`] forbids it (then the reason).
    pub fn set(&mut self, code: Code, level: Level) -> Result<(), String> {
        match refusal(code, level) {
            Some(why) => Err(why),
            None => {
                self.levels.insert(code, level);
                Ok(())
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    pub fn level(&self, code: Code) -> Level {
        self.levels
            .get(&code)
            .copied()
            .unwrap_or(Level::Report(code.severity()))
    }

    /// The level `d` is reported at: its project's for its code, else its own severity.
    pub fn level_of(&self, d: &Diagnostic) -> Level {
        self.levels
            .get(&d.code)
            .copied()
            .unwrap_or(Level::Report(d.severity))
    }

    /// `d` at its project's level: None when the project turns it off.
    pub fn apply<'d>(&self, d: &'d Diagnostic) -> Option<Cow<'d, Diagnostic>> {
        match self.levels.get(&d.code) {
            None => Some(Cow::Borrowed(d)),
            Some(Level::Off) => None,
            Some(Level::Report(severity)) if *severity == d.severity => Some(Cow::Borrowed(d)),
            Some(Level::Report(severity)) => {
                let mut changed = d.clone();
                changed.severity = *severity;
                Some(Cow::Owned(changed))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::TextRange;

    #[test]
    fn the_contracts_errors_cannot_be_lowered_but_anything_can_be_raised() {
        let mut severities = Severities::default();
        let lowered = severities.set(Code::TierMismatch, Level::Report(Severity::Warning));
        assert!(lowered.unwrap_err().contains("invariant 7"));
        assert!(severities.set(Code::TierMismatch, Level::Off).is_err());
        assert!(
            severities
                .set(Code::TierMismatch, Level::Report(Severity::Error))
                .is_ok()
        );
        // The contract's notes and the validator's own codes are free.
        assert!(severities.set(Code::UnknownField, Level::Off).is_ok());
        assert!(
            severities
                .set(Code::DedupeDiverged, Level::Report(Severity::Warning))
                .is_ok()
        );
        assert!(
            severities
                .set(Code::TokenCountMismatch, Level::Report(Severity::Error))
                .is_ok()
        );
        assert_eq!(severities.level(Code::UnknownField), Level::Off);
        assert_eq!(
            severities.level(Code::TierMismatch),
            Level::Report(Severity::Error)
        );
        assert_eq!(
            severities.level(Code::PathMissing),
            Level::Report(Severity::Warning)
        );
    }

    #[test]
    fn applying_changes_severities_and_drops_what_is_off() {
        let mut severities = Severities::default();
        severities.set(Code::UnknownField, Level::Off).unwrap();
        severities
            .set(Code::TokenCountMismatch, Level::Report(Severity::Error))
            .unwrap();
        let diagnostics = [
            Diagnostic::new(Code::UnknownField, TextRange::empty(0), "a"),
            Diagnostic::new(Code::TokenCountMismatch, TextRange::empty(1), "b"),
            Diagnostic::new(Code::TierMismatch, TextRange::empty(2), "c"),
        ];
        assert!(severities.apply(&diagnostics[0]).is_none());
        assert_eq!(
            severities.apply(&diagnostics[1]).unwrap().severity,
            Severity::Error
        );
        assert!(matches!(
            severities.apply(&diagnostics[2]),
            Some(Cow::Borrowed(_))
        ));
    }

    #[test]
    fn levels_are_spelled_as_severities_are() {
        for level in ["error", "warning", "information", "hint", "off"] {
            assert_eq!(Level::parse(level).unwrap().as_str(), level);
        }
        assert_eq!(
            Level::parse("info"),
            Some(Level::Report(Severity::Information))
        );
        assert_eq!(Level::parse("fatal"), None);
    }
}
