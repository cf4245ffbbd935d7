//! Panics in handlers become error replies: one broken request never takes
//! the server down.

use std::panic::{AssertUnwindSafe, catch_unwind};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

/// Runs `f`, turning a panic into an internal-error reply and a log line.
pub fn guarded<T>(name: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let f = || {
        inject_fault(name);
        f()
    };
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(panic) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            eprintln!("report-lsp: {name} panicked: {message}");
            tracing::error!("{name} panicked: {message}");
            Err(Error {
                code: ErrorCode::InternalError,
                message: format!("report-lsp: {name} failed: {message}").into(),
                data: None,
            })
        }
    }
}

/// Debug builds panic in the handler named by `REPORT_LSP_PANIC_IN`, so tests
/// can prove a panic is contained. Release builds never do.
fn inject_fault(name: &str) {
    if cfg!(debug_assertions) && std::env::var("REPORT_LSP_PANIC_IN").is_ok_and(|v| v == name) {
        panic!("injected fault in {name}");
    }
}
