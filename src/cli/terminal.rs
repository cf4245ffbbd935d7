//! Writing to the terminal: one document to standard output, and whether
//! to colour.

use std::io::{self, Write};

use super::{EXIT_OK, EXIT_USAGE_OR_IO};

/// Writes `text` to `out` for a command that prints one document; a reader
/// that stopped early is not an error.
pub fn print(out: &mut dyn Write, text: &str) -> u8 {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => EXIT_OK,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(error) => {
            eprintln!("report-lsp: cannot write: {error}");
            EXIT_USAGE_OR_IO
        }
    }
}

/// Whether `--color auto` colours: never with `NO_COLOR`; always with
/// `FORCE_COLOR` or `CLICOLOR_FORCE` (CI logs render colour but are no
/// terminal); otherwise when stdout is a terminal. Empty values and `0` are unset.
pub fn auto_color(
    stdout_is_terminal: bool,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> bool {
    let set = |name: &str| var(name).is_some_and(|v| !v.is_empty() && v != "0");
    if var("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    if set("FORCE_COLOR") || set("CLICOLOR_FORCE") {
        return true;
    }
    stdout_is_terminal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_environment_conventions() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| std::ffi::OsString::from(v))
            }
        };
        assert!(auto_color(true, env(&[])));
        assert!(!auto_color(false, env(&[])));
        assert!(auto_color(false, env(&[("FORCE_COLOR", "1")])));
        assert!(auto_color(false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!auto_color(false, env(&[("FORCE_COLOR", "0")])));
        assert!(!auto_color(true, env(&[("NO_COLOR", "1")])));
        assert!(!auto_color(
            true,
            env(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")])
        ));
        assert!(auto_color(true, env(&[("NO_COLOR", "")])));
    }
}
