//! The language server over stdio. Only this module knows LSP, JSON-RPC,
//! tokio and ropey; it translates to and from the core's document host.
//!
//! `transport` frames messages; `server` dispatches each to its handler in
//! `handlers/`; `session` is the state they share with the `analysis`
//! thread, which owns each document's host; `services` holds the handles of
//! the analysis pool, the project reader and the search side by side;
//! `convert` is the only place that turns byte ranges into positions;
//! `document` is the rope.

mod analysis;
mod convert;
pub mod document;
mod file_links;
pub mod foreground;
mod found_reports;
mod guard;
mod handlers;
mod memory;
mod progress;
mod project_thread;
mod server;
mod services;
mod session;
mod trace;
pub mod transport;
mod watchers;

pub use handlers::code_action::FIX_ALL_KIND;

/// The request that reports how a document is being analysed.
pub const STATUS_METHOD: &str = "report-lsp/status";

/// Serves one client over stdin/stdout until it exits; says how it ended.
pub fn run() -> std::io::Result<transport::End> {
    memory::one_heap();
    transport::widen_input_pipe();
    crate::log::init(Some(trace::ClientTrace));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let end = runtime.block_on(async {
        let (notifications, notifications_out) = futures::channel::mpsc::unbounded();
        let foreground = std::sync::Arc::new(foreground::Foreground::default());
        let (service, socket) = tower_lsp_server::LspService::build(|client| {
            trace::connect(client.clone(), tokio::runtime::Handle::current());
            server::Server::new(client, notifications, foreground.clone())
        })
        .custom_method(
            transport::INVALID_MESSAGE_METHOD,
            server::Server::invalid_message,
        )
        .custom_method(STATUS_METHOD, server::Server::status)
        .custom_method(handlers::summary::SUMMARY_METHOD, server::Server::summary)
        .custom_method("$/setTrace", server::Server::set_trace)
        .finish();
        transport::serve(
            tokio::io::stdin(),
            tokio::io::stdout(),
            service,
            socket,
            notifications_out,
            Some(foreground),
        )
        .await
    });
    // A read of stdin may still be pending in a blocking thread; do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(end)
}
