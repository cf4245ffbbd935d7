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
        // stdin goes through the guard, so a broken frame cannot end the transport's reading.
        let (guarded, input) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Err(error) = transport::guard(tokio::io::stdin(), guarded).await {
                eprintln!("report-lsp: reading stdin failed: {error}");
            }
        });
        tower_lsp_server::Server::new(input, tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    // A read of stdin may still be pending in a blocking thread; do not wait for it.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(())
}
