//! Argument dispatch only: `check` validates files, `diff` compares two
//! generations of a report, `explain` tells what a
//! code means, `schema` prints the report's JSON Schema; no arguments or
//! `serve` runs the language server. `completions` and `man` (hidden) print
//! what packagers install.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use report_core::diagnostic::Severity;
use report_lsp::cli::{self, CheckOptions, DiffFormat, DiffOptions, FixMode, Format};

#[derive(Parser)]
#[command(
    name = "report-lsp",
    version = env!("REPORT_LSP_VERSION"),
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
    ///
    /// Exit status: 0 when nothing fails, 1 when a report is invalid (or has
    /// a diagnostic that --deny makes fail, or --diff has changes to show),
    /// 2 when a path cannot be read, no report is found, or the usage is wrong.
    Check {
        /// Files (always checked), folders (searched for report files), or - for standard input.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = FormatArg::Human)]
        format: FormatArg,
        /// When to colour human output (auto honours NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE).
        #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
        color: ColorArg,
        /// The name shown for the report read from standard input (`-`).
        #[arg(long, value_name = "NAME")]
        stdin_filename: Option<String>,
        /// Succeed when the folders given hold no report.
        #[arg(long)]
        allow_empty: bool,
        /// Print problems only, without the summary line.
        #[arg(long, short)]
        quiet: bool,
        /// Make diagnostics of this severity (and more severe ones) fail the check too.
        #[arg(long, value_enum, value_name = "SEVERITY")]
        deny: Option<DenyArg>,
        /// Apply the fixes the editor's fix-all offers to the files, then report what is left.
        #[arg(long)]
        fix: bool,
        /// Print the fixes --fix would write as a unified diff, and write nothing (exit 1 when there is one).
        #[arg(long, conflicts_with = "format")]
        diff: bool,
        /// The project the reports describe, for the workspace checks (default: scan.project_root, absolute or relative to the report's folder).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Show at most this many problems per file, errors first; the others are counted (in the summary and the exit code too) [default: the project file's max-diagnostics, else 100000].
        #[arg(long, value_name = "N")]
        max_diagnostics: Option<usize>,
        /// How far `raw_tokens` may be from the offline recount of its span, as a fraction of the recount (workspace checks) [default: the project file's token-tolerance, else 0.1].
        #[arg(long, value_name = "FRACTION", value_parser = parse_tolerance)]
        token_tolerance: Option<f64>,
        /// Read this project file for every path, instead of each path's nearest report-lsp.toml or pyproject.toml with [tool.report-lsp].
        #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
        config: Option<PathBuf>,
        /// Read no project file: the flags and the defaults only.
        #[arg(long)]
        isolated: bool,
        /// Print what a clean would do to the project's documents, as a unified diff per entry (refused and held edits say why), instead of the problems; nothing is written.
        #[arg(long, conflicts_with_all = ["format", "fix", "diff"])]
        preview: bool,
    },
    /// Compare two generations of a report by meaning: entries matched by path and kind.
    ///
    /// Tells entries added and gone, tier changes with both derivations,
    /// exact edits whose target or hash changed, lifecycle and shortlist
    /// changes, promotion candidates and the token roll-up's delta; a
    /// reordered or reformatted report is no change. Exit status: 0 (with
    /// --exit-code, 1 when they differ), 2 when a file cannot be read or is
    /// not a report.
    Diff {
        /// The earlier report (or - for standard input, e.g. `git show HEAD:report.json`).
        old: PathBuf,
        /// The later report (or -).
        new: PathBuf,
        #[arg(long, value_enum, default_value_t = DiffFormatArg::Human)]
        format: DiffFormatArg,
        /// When to colour human output (auto honours NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE).
        #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
        color: ColorArg,
        /// Exit 1 when the reports differ.
        #[arg(long)]
        exit_code: bool,
    },
    /// Sum up a report for a reviewer: tokens by category, op and lifetime,
    /// what runs without a prompt and what waits for approval and why, the
    /// largest savings, savings by folder and file, problems by invariant,
    /// the project's live facts when it is here, and the change since an
    /// earlier generation. Writes nothing. Exit status: 0, or 2 when a file
    /// cannot be read or is not a report.
    Summary {
        /// The report (or - for standard input).
        report: PathBuf,
        #[arg(long, value_enum, default_value_t = SummaryFormatArg::Text)]
        format: SummaryFormatArg,
        /// An earlier generation to compare with: a file, or HEAD for git's
        /// committed copy of the report (read in-process; ./HEAD names a file).
        #[arg(long, value_name = "OLD")]
        since: Option<PathBuf>,
        /// How many of the largest savings, folders and files to list.
        #[arg(long, default_value_t = report_core::summary::DEFAULT_TOP)]
        top: usize,
        /// The project root (default: scan.project_root).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Read this project file instead of looking for one, as `check --config`.
        #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
        config: Option<PathBuf>,
        /// Read no project file, as `check --isolated`.
        #[arg(long)]
        isolated: bool,
    },
    /// Explain a diagnostic code: the invariant it enforces, with a failing and a passing example.
    Explain {
        /// A code as diagnostics show it, e.g. `tier-mismatch`.
        code: String,
    },
    /// Print the JSON Schema (draft 2020-12) of a report, generated from the validator's model.
    Schema,
    /// Run the language server over stdio (the default).
    Serve,
    /// Print a shell completion script.
    #[command(hide = true)]
    Completions { shell: clap_complete::Shell },
    /// Print the man page (roff).
    #[command(hide = true)]
    Man,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    /// Compiler-style snippets and a summary line.
    Human,
    /// One JSON object: files, diagnostics, failures and a summary.
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

#[derive(Clone, Copy, ValueEnum)]
enum SummaryFormatArg {
    Text,
    Markdown,
    Json,
    Html,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum DiffFormatArg {
    /// What changed, grouped by array, with tier derivations.
    Human,
    /// One JSON object.
    Json,
    /// GitHub Actions annotations on the new file.
    Github,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum DenyArg {
    Warnings,
    Information,
    Hints,
}

/// A tolerance: a fraction of at least 0 (`0.1` is 10%).
fn parse_tolerance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err("expected a fraction of at least 0, such as 0.1 for 10%".into()),
    }
}

fn colour(choice: ColorArg) -> bool {
    match choice {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => cli::auto_color(std::io::stdout().is_terminal(), |name| {
            std::env::var_os(name)
        }),
    }
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
    if !matches!(args.command, Some(Command::Serve) | None) {
        report_lsp::log::init_stderr();
    }
    // Locked per command: the server writes stdout from its own threads.
    let out = || std::io::stdout().lock();
    // Not locked: the log writes standard error from the analysis threads.
    let err = std::io::stderr;
    match args.command {
        Some(Command::Check {
            paths,
            format,
            color,
            stdin_filename,
            allow_empty,
            quiet,
            deny,
            fix,
            diff,
            root,
            max_diagnostics,
            token_tolerance,
            config,
            isolated,
            preview,
        }) => {
            let options = CheckOptions {
                paths,
                format: match format {
                    FormatArg::Human => Format::Human,
                    FormatArg::Json => Format::Json,
                    FormatArg::Sarif => Format::Sarif,
                    FormatArg::Github => Format::Github,
                },
                color: colour(color),
                stdin_filename,
                allow_empty,
                quiet,
                fail_at: match deny {
                    None => Severity::Error,
                    Some(DenyArg::Warnings) => Severity::Warning,
                    Some(DenyArg::Information) => Severity::Information,
                    Some(DenyArg::Hints) => Severity::Hint,
                },
                fix: match (fix, diff) {
                    (_, true) => FixMode::Diff,
                    (true, false) => FixMode::Write,
                    (false, false) => FixMode::Off,
                },
                root,
                max_diagnostics,
                token_tolerance,
                project_file: match (config, isolated) {
                    (Some(file), _) => cli::ProjectFileChoice::Given(file),
                    (None, true) => cli::ProjectFileChoice::Isolated,
                    (None, false) => cli::ProjectFileChoice::Nearest,
                },
                preview,
            };
            ExitCode::from(cli::run_check(
                &options,
                &mut std::io::stdin().lock(),
                &mut out(),
                &mut err(),
            ))
        }
        Some(Command::Diff {
            old,
            new,
            format,
            color,
            exit_code,
        }) => {
            let options = DiffOptions {
                old,
                new,
                format: match format {
                    DiffFormatArg::Human => DiffFormat::Human,
                    DiffFormatArg::Json => DiffFormat::Json,
                    DiffFormatArg::Github => DiffFormat::Github,
                },
                color: colour(color),
                exit_code,
            };
            ExitCode::from(cli::run_diff(
                &options,
                &mut std::io::stdin().lock(),
                &mut out(),
                &mut err(),
            ))
        }
        Some(Command::Summary {
            report,
            format,
            since,
            top,
            root,
            config,
            isolated,
        }) => {
            let options = cli::SummaryCommand {
                report,
                format: match format {
                    SummaryFormatArg::Text => cli::SummaryFormat::Text,
                    SummaryFormatArg::Markdown => cli::SummaryFormat::Markdown,
                    SummaryFormatArg::Json => cli::SummaryFormat::Json,
                    SummaryFormatArg::Html => cli::SummaryFormat::Html,
                },
                since: since.map(|p| match p.as_os_str() == "HEAD" {
                    true => cli::SinceArg::Head,
                    false => cli::SinceArg::File(p),
                }),
                top,
                root,
                project_file: match (config, isolated) {
                    (Some(file), _) => cli::ProjectFileChoice::Given(file),
                    (None, true) => cli::ProjectFileChoice::Isolated,
                    (None, false) => cli::ProjectFileChoice::Nearest,
                },
            };
            ExitCode::from(cli::run_summary(
                &options,
                &mut std::io::stdin().lock(),
                &mut out(),
                &mut err(),
            ))
        }
        Some(Command::Explain { code }) => cli::run_explain(&code, &mut out(), &mut err()).into(),
        Some(Command::Schema) => {
            let schema = report_core::json_schema::report_schema();
            let text = serde_json::to_string_pretty(&schema).expect("a schema serializes");
            cli::print(&mut out(), &format!("{text}\n")).into()
        }
        Some(Command::Completions { shell }) => {
            let mut buffer = Vec::new();
            clap_complete::generate(shell, &mut Args::command(), "report-lsp", &mut buffer);
            cli::print(&mut out(), &String::from_utf8_lossy(&buffer)).into()
        }
        Some(Command::Man) => {
            let mut buffer = Vec::new();
            if let Err(error) = clap_mangen::Man::new(Args::command()).render(&mut buffer) {
                eprintln!("report-lsp: cannot render the man page: {error}");
                return ExitCode::from(cli::EXIT_USAGE_OR_IO);
            }
            cli::print(&mut out(), &String::from_utf8_lossy(&buffer)).into()
        }
        Some(Command::Serve) | None => {
            // Editors never attach a terminal; a person who typed the bare command gets told what it is.
            if std::io::stdin().is_terminal() {
                eprintln!(
                    "report-lsp: speaking the Language Server Protocol on stdin/stdout (for editors); to validate files run `report-lsp check PATH`"
                );
            }
            match report_lsp::lsp::run() {
                Ok(report_lsp::lsp::transport::End::Clean) => ExitCode::SUCCESS,
                Ok(report_lsp::lsp::transport::End::ExitWithoutShutdown) => ExitCode::FAILURE,
                Err(error) => {
                    eprintln!("report-lsp: cannot start the server: {error}");
                    ExitCode::from(cli::EXIT_USAGE_OR_IO)
                }
            }
        }
    }
}
