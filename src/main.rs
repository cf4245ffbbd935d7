//! Argument dispatch only: `check` validates files, `explain` tells what a
//! code means; no arguments or `serve` runs the language server.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use report_lsp::cli::{self, CheckOptions, Format};

#[derive(Parser)]
#[command(
    name = "report-lsp",
    version,
    about = "Language server and validator for machine report files"
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    /// Accepted and ignored: editors pass it to say the server speaks over stdio.
    #[arg(long, global = true, hide = true)]
    stdio: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Validate report files, or folders searched for them, like a compiler.
    Check {
        /// Files (always checked) and folders (searched for report files).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = FormatArg::Human)]
        format: FormatArg,
        /// When to colour human output.
        #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
        color: ColorArg,
    },
    /// Explain a diagnostic code: the invariant it enforces, in words.
    Explain {
        /// A code as diagnostics show it, e.g. `tier-mismatch`.
        code: String,
    },
    /// Run the language server over stdio (the default).
    Serve,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Human,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() {
                cli::EXIT_USAGE_OR_IO
            } else {
                0
            });
        }
    };
    match args.command {
        Some(Command::Check {
            paths,
            format,
            color,
        }) => {
            let options = CheckOptions {
                paths,
                format: match format {
                    FormatArg::Human => Format::Human,
                    FormatArg::Json => Format::Json,
                },
                color: match color {
                    ColorArg::Always => true,
                    ColorArg::Never => false,
                    ColorArg::Auto => {
                        std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                    }
                },
            };
            let code = cli::run_check(
                &options,
                &mut std::io::stdout().lock(),
                &mut std::io::stderr().lock(),
            );
            ExitCode::from(code)
        }
        Some(Command::Explain { code }) => cli::run_explain(
            &code,
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        )
        .into(),
        Some(Command::Serve) | None => match report_lsp::lsp::run() {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("report-lsp: cannot start the server: {error}");
                ExitCode::from(cli::EXIT_USAGE_OR_IO)
            }
        },
    }
}
