//! Logging, through `tracing`, for the CLI and the server. Events at the
//! level the environment variable `REPORT_LSP_LOG` names (`error`, `warn`,
//! `info`, `debug`, `trace`; unset or `off`: none) go to standard error;
//! the server adds a layer of its own that sends them to the client
//! (the server's `trace` module). Only report-lsp's own events are logged: the
//! libraries' are not ours to show, and sending a client message must not
//! log another.

use tracing::level_filters::LevelFilter;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;

/// The environment variable that sets the level logged to standard error.
pub const ENV: &str = "REPORT_LSP_LOG";

/// A level by its name, as `REPORT_LSP_LOG` and the `logLevel` setting take it.
pub fn level_named(name: &str) -> Option<LevelFilter> {
    match name.trim().to_ascii_lowercase().as_str() {
        "off" | "" => Some(LevelFilter::OFF),
        "error" => Some(LevelFilter::ERROR),
        "warn" | "warning" => Some(LevelFilter::WARN),
        "info" => Some(LevelFilter::INFO),
        "debug" => Some(LevelFilter::DEBUG),
        "trace" => Some(LevelFilter::TRACE),
        _ => None,
    }
}

/// A duration in milliseconds to a tenth, as the log gives timings.
pub fn millis(duration: std::time::Duration) -> f64 {
    (duration.as_secs_f64() * 10_000.0).round() / 10.0
}

/// Whether an event's target is one of ours.
pub fn is_ours(target: &str) -> bool {
    ["report_lsp", "report_core"]
        .iter()
        .any(|crate_name| target == *crate_name || target.starts_with(&format!("{crate_name}::")))
}

/// Installs the logger once per process: standard error at the level of
/// `REPORT_LSP_LOG`, and `extra` beside it (the server's client layer).
/// A level that is not one of the names is said once and logs nothing.
pub fn init<L>(extra: Option<L>)
where
    L: Layer<tracing_subscriber::Registry> + Send + Sync + 'static,
{
    let level = match std::env::var(ENV) {
        Err(_) => LevelFilter::OFF,
        Ok(name) => level_named(&name).unwrap_or_else(|| {
            eprintln!(
                "report-lsp: {ENV}={name:?} is not a level (off, error, warn, info, debug, trace); nothing is logged"
            );
            LevelFilter::OFF
        }),
    };
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(true)
        .with_filter(tracing_subscriber::filter::filter_fn(move |meta| {
            is_ours(meta.target()) && *meta.level() <= level
        }));
    let subscriber = tracing_subscriber::registry().with(extra).with(stderr);
    // A second call (tests run the server in-process) keeps the first.
    let _ = tracing::subscriber::set_global_default(subscriber);
}

/// [`init`] with standard error alone: the CLI's logger.
pub fn init_stderr() {
    init::<tracing_subscriber::layer::Identity>(None);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_read_by_name_and_only_our_targets_are_logged() {
        assert_eq!(level_named("DEBUG"), Some(LevelFilter::DEBUG));
        assert_eq!(level_named(" warn "), Some(LevelFilter::WARN));
        assert_eq!(level_named("off"), Some(LevelFilter::OFF));
        assert_eq!(level_named("loud"), None);
        assert!(is_ours("report_lsp::lsp::analysis::worker"));
        assert!(is_ours("report_core"));
        assert!(!is_ours("report_lsp_other"));
        assert!(!is_ours("tower_lsp_server::service"));
    }
}
