//! The language server over stdio. Only this module knows LSP, JSON-RPC,
//! tokio and ropey; it translates to and from the core.

mod convert;
mod document;
mod server;

pub use server::FIX_ALL_KIND;

/// Serves one client over stdin/stdout until it exits.
pub fn run() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (service, socket) = tower_lsp_server::LspService::new(server::Server::new);
        tower_lsp_server::Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    Ok(())
}
