//! The language server over stdio. Only this module knows LSP, JSON-RPC,
//! tokio and ropey; it translates to and from the core.

mod convert;
pub mod document;
mod server;
pub mod transport;

pub use server::FIX_ALL_KIND;

/// Serves one client over stdin/stdout until it exits.
pub fn run() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (service, socket) = tower_lsp_server::LspService::build(server::Server::new)
            .custom_method(
                transport::INVALID_MESSAGE_METHOD,
                server::Server::invalid_message,
            )
            .finish();
        transport::serve(tokio::io::stdin(), tokio::io::stdout(), service, socket).await;
    });
    // A read of stdin may still be pending in a blocking thread; do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(())
}
