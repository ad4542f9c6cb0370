//! The `annotail` command: parse arguments, set up diagnostics, run, map the result to an exit
//! status (0 ok, 1 runtime error, 2 usage or catalog error).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};

use annotail::annotate::Emit;
use annotail::catalog::{self, Level};
use annotail::event::{Format, OutWriter};
use annotail::matcher::{Limits, Matcher};
use annotail::{check, framing, pipeline};

/// Annotate known RisingWave errors in log streams.
///
/// Reads each PATH to its end (no PATH, or '-': standard input) and writes one event per known
/// error. `kubectl logs -f meta-0 | annotail` streams: each event is written as soon as it is
/// complete.
#[derive(Parser, Debug)]
#[command(name = "annotail", version, args_conflicts_with_subcommands = true)]
struct Opts {
    #[command(subcommand)]
    command: Option<Command>,

    /// Log files to read; '-' is standard input (the default).
    paths: Vec<PathBuf>,

    #[command(flatten)]
    catalog: CatalogArgs,

    /// Output format [default: pretty when standard output is a terminal, json otherwise].
    #[arg(long, value_enum)]
    format: Option<Format>,

    /// Write every event, not only known errors (`match` is null when nothing matched).
    #[arg(long)]
    all: bool,

    /// Complete a pending multi-line event after this many milliseconds without input
    /// (standard input). 0: an event is complete whenever the input pauses.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    idle_timeout: u64,

    /// Cut lines longer than this many bytes; the event is marked truncated.
    #[arg(long, value_name = "BYTES", default_value_t = framing::Limits::default().max_line_bytes)]
    max_line_bytes: usize,

    /// Close a multi-line event after this many physical lines.
    #[arg(long, value_name = "N", default_value_t = framing::Limits::default().max_event_lines)]
    max_event_lines: u32,

    /// Threads for file input [default: the cores available]. Output stays in input order.
    /// Standard input is always read by one thread.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// Colours in pretty output [default: auto: on a terminal, unless NO_COLOR is set].
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,

    #[command(flatten)]
    diag: DiagArgs,
}

#[derive(Args, Debug, Clone)]
struct CatalogArgs {
    /// A catalog file or directory; repeatable; later paths override earlier ones by record id.
    /// Default: the catalog embedded in the binary.
    #[arg(short = 'c', long = "catalog", value_name = "PATH")]
    catalog: Vec<PathBuf>,
}

#[derive(Args, Debug, Clone)]
struct DiagArgs {
    /// Level of annotail's own diagnostics on standard error (overrides RUST_LOG).
    #[arg(long, value_name = "LEVEL", global = true)]
    log_level: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Validate catalogs: report every problem; exit status 2 when there are errors.
    Check {
        #[command(flatten)]
        catalog: CatalogArgs,
        /// Report format.
        #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
        format: CheckFormat,
    },
    /// Show how LINE is parsed, which literals fired, which records confirmed or were rejected,
    /// and the captures. LINE may hold several lines (a multi-line event).
    Explain {
        #[command(flatten)]
        catalog: CatalogArgs,
        /// The log line (or event) to explain; '-' reads it from standard input.
        line: String,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let opts = Opts::parse();
    init_tracing(&opts.diag);
    match real_main(opts) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("annotail: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn init_tracing(d: &DiagArgs) {
    let filter = match &d.log_level {
        Some(l) => tracing_subscriber::EnvFilter::new(l),
        None => tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .init();
}

/// Load and compile the catalog, reporting problems on standard error.
fn load(paths: &[PathBuf]) -> (Matcher, Vec<catalog::Problem>, usize) {
    let cat = catalog::load(paths);
    let read = cat.read;
    let (m, problems) = Matcher::new(cat, Limits::default());
    (m, problems, read)
}

fn real_main(opts: Opts) -> anyhow::Result<ExitCode> {
    match opts.command {
        Some(Command::Check { catalog, format }) => return Ok(run_check(&catalog.catalog, format)),
        Some(Command::Explain { catalog, line }) => {
            let (m, problems, _) = load(&catalog.catalog);
            if m.entries.is_empty() {
                for p in &problems {
                    eprintln!("{p}");
                }
                eprintln!("annotail: no usable record in the catalog");
                return Ok(ExitCode::from(2));
            }
            let line = if line == "-" {
                let mut s = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                    .context("reading the line from standard input")?;
                s.trim_end_matches('\n').to_owned()
            } else {
                line
            };
            print!("{}", check::explain(&m, &line));
            return Ok(ExitCode::SUCCESS);
        }
        None => {}
    }
    let (m, problems, _) = load(&opts.catalog.catalog);
    let errors = problems.iter().filter(|p| p.level == Level::Error).count();
    let fatal = problems.iter().any(|p| p.line == 0 && p.level == Level::Error);
    if fatal || m.entries.is_empty() {
        for p in &problems {
            eprintln!("{p}");
        }
        eprintln!("annotail: the catalog could not be loaded");
        return Ok(ExitCode::from(2));
    }
    if !problems.is_empty() {
        for p in problems.iter().take(5) {
            tracing::warn!(problem = %p, "catalog problem");
        }
        tracing::warn!(
            problems = problems.len(),
            errors,
            records = m.entries.len(),
            "catalog loaded with problems; records with errors are left out (run `annotail check`)"
        );
    }
    let stdout = std::io::stdout();
    let tty = stdout.is_terminal();
    let format = opts.format.unwrap_or(if tty { Format::Pretty } else { Format::Json });
    let color = match opts.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100);
    let mut writer = OutWriter::new(stdout.lock(), format, color, width);
    let threads = opts.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let cfg = pipeline::RunConfig {
        threads,
        format,
        color,
        width,
        paths: opts.paths,
        emit: if opts.all { Emit::All } else { Emit::Matches },
        every_event: opts.all || format == Format::Pretty,
        idle: Duration::from_millis(opts.idle_timeout),
        framing: framing::Limits {
            max_line_bytes: opts.max_line_bytes.max(1),
            max_event_lines: opts.max_event_lines.max(1),
            ..framing::Limits::default()
        },
    };
    let result = pipeline::run(&m, &cfg, &mut writer);
    drop(writer);
    // Freeing the compiled catalog takes longer than the OS needs to reclaim it.
    std::mem::forget(m);
    match result {
        Ok((_, totals)) => {
            tracing::info!(
                lines = totals.lines,
                bytes = totals.bytes,
                events = totals.counters.events,
                examined = totals.counters.examined,
                candidates = totals.counters.candidates,
                matched = totals.counters.matched,
                written = totals.counters.written,
                truncated_lines = totals.truncated_lines,
                "done"
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("annotail: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

fn run_check(paths: &[PathBuf], format: CheckFormat) -> ExitCode {
    let (m, mut problems, read) = load(paths);
    problems.extend(check::compile_all(&m));
    let errors = problems.iter().filter(|p| p.level == Level::Error).count();
    let warnings = problems.len() - errors;
    match format {
        CheckFormat::Text => {
            for p in &problems {
                println!("{p}");
            }
            println!(
                "{read} record(s) read, {} usable, {} in the prefilter, {} without a literal; {errors} error(s), {warnings} warning(s)",
                m.entries.len(),
                m.entries.len() - m.unkeyed.len(),
                m.unkeyed.len()
            );
        }
        CheckFormat::Json => {
            let v = serde_json::json!({
                "records_read": read,
                "records_usable": m.entries.len(),
                "records_without_literal": m.unkeyed.len(),
                "errors": errors,
                "warnings": warnings,
                "problems": problems,
            });
            println!("{v}");
        }
    }
    if errors > 0 || m.entries.is_empty() { ExitCode::from(2) } else { ExitCode::SUCCESS }
}
