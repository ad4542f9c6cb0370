//! The `annotail` command: parse arguments, resolve them with the config file into one checked
//! run ([`Config::resolve`]: nothing starts before it), start what that run needs, and map the
//! result to an exit status (0 ok, 1 runtime error, 2 usage or catalog error).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};

use annotail::annotate::Emit;
use annotail::catalog::{self, Level};
use annotail::config::cli::{CatalogArgs, Cli};
use annotail::config::resolve::{Log, Mode, Read, ResolveError, Resolved};
use annotail::config::{Config, LogFormat};
use annotail::event::OutWriter;
use annotail::matcher::{Limits, Matcher};
use annotail::metrics::Metrics;
use annotail::source::follow;
use annotail::status::Status;
use annotail::summary::{self, Summary};
use annotail::{check, framing, source};

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

    #[command(flatten)]
    cli: Cli,
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
    /// Explain LINE: the record it matches, its documentation and solutions, the captured
    /// values, the code it comes from, the other matches; with --trace, how LINE was parsed,
    /// which literals fired and which records were confirmed or rejected. LINE may hold several
    /// lines (a multi-line event).
    Explain {
        #[command(flatten)]
        catalog: CatalogArgs,
        /// The log line (or event) to explain; '-' reads it from standard input.
        line: String,
        /// Also show the matcher's trace: the layout, the literals found, the candidate records
        /// with their regexes (confirmed or rejected), and the event as JSON.
        #[arg(long)]
        trace: bool,
    },
    /// Catalog maintenance report: records whose sample lines other records also match, records
    /// that never match real logs (--against), and the records slowest to confirm.
    Stats(annotail::stats::Args),
    /// Incident report: one self-contained HTML page with a timeline of the known (and unknown)
    /// errors, the records that fired with their captured values, and the chains.
    Report(annotail::report::Args),
    /// Cluster the WARN/ERROR events no record explains and report each cluster (template,
    /// count, levels, targets, first and last seen, examples), or write draft records for them
    /// (--format catalog) to review and add with -c.
    Discover(annotail::discover::Args),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
}

/// mimalloc rather than glibc's malloc: see Cargo.toml for the figures.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(run_main())
}

/// The command's status, decided here and nowhere else turned into an exit code.
fn run_main() -> Status {
    let Opts { command, cli } = match Opts::try_parse() {
        Ok(o) => o,
        Err(e) => {
            let _ = e.print();
            if !e.use_stderr() {
                // `--help`, `--version`.
                return Status::Success;
            }
            if let Some(word) = subcommand_after_options(&raw_args()) {
                misplaced_subcommand(word);
            }
            return Status::Refused;
        }
    };
    // `annotail -c drafts.jsonl discover x.log`: options before the subcommand make it a PATH
    // (clap reads a subcommand only as the first word), and the run then said that no file
    // `discover` could be read (found by a developer's reading). With `--` it is a path.
    if command.is_none()
        && let Some(word) = cli.paths.first().and_then(|p| p.to_str()).filter(|p| SUBCOMMANDS.contains(p))
        && subcommand_after_options(&raw_args()) == Some(word)
    {
        misplaced_subcommand(word);
        return Status::Refused;
    }
    // A daemon with many followed files, sink connections and scrapers needs descriptors: the
    // soft limit (often 1,024) is raised to the hard one the system allows.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let config = match Config::load_or_default(cli.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("annotail: {e}");
            return Status::Refused;
        }
    };
    let following = command.is_none() && config.follows(&cli);
    init_tracing(&config.log(&cli, following));
    let result = match command {
        Some(command) => tool(command, &cli, &config),
        None => match Config::resolve(&cli, &config) {
            Ok(resolved) => run(resolved, cli),
            Err(e) => {
                refuse(&e);
                return Status::Refused;
            }
        },
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("annotail: {e:#}");
            Status::Failed
        }
    }
}

/// The subcommands' names: a PATH of one of these names is `./NAME`.
const SUBCOMMANDS: [&str; 5] = ["check", "explain", "stats", "report", "discover"];

/// The command line's arguments after the program's name.
fn raw_args() -> Vec<String> {
    std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect()
}

/// A subcommand's name that options came before (`annotail -c X discover x.log`), before any
/// `--` and not an option's value (`--format discover`, `-c discover`; a flag's next word,
/// `--all discover`, is no value): clap reads a subcommand only as the first word.
fn subcommand_after_options(args: &[String]) -> Option<&str> {
    use clap::CommandFactory;
    if !args.first().is_some_and(|a| a.starts_with('-')) {
        return None;
    }
    let cmd = Opts::command();
    let takes_value = |a: &str| match a.strip_prefix("--") {
        Some(long) => {
            !long.contains('=')
                && cmd.get_arguments().any(|x| x.get_long() == Some(long) && x.get_action().takes_values())
        }
        None => {
            let mut c = a.chars().skip(1);
            match (c.next(), c.next()) {
                (Some(short), None) => {
                    cmd.get_arguments().any(|x| x.get_short() == Some(short) && x.get_action().takes_values())
                }
                _ => false,
            }
        }
    };
    args.iter()
        .enumerate()
        .take_while(|(_, a)| *a != "--")
        .find(|(i, a)| *i > 0 && SUBCOMMANDS.contains(&a.as_str()) && !takes_value(&args[i - 1]))
        .map(|(_, a)| a.as_str())
}

/// Say that a subcommand goes first.
fn misplaced_subcommand(word: &str) {
    eprintln!(
        "annotail: `{word}` is a subcommand only as the first word, with its options after it \
         (`annotail {word} -c CATALOG ...`); a file of that name is `./{word}`"
    );
}

/// A run refused before it started: each line of the reason on standard error.
fn refuse(e: &ResolveError) {
    for line in e.to_string().lines() {
        eprintln!("annotail: {line}");
    }
}

fn init_tracing(log: &Log) {
    let filter = match &log.level {
        Some(l) => tracing_subscriber::EnvFilter::new(l),
        None => tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&log.fallback)),
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false);
    match log.format {
        LogFormat::Json => builder.json().with_current_span(false).init(),
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
    }
}

/// Load and compile the catalog, reporting problems on standard error.
fn load(paths: &[PathBuf]) -> (Matcher, Vec<catalog::Problem>, usize) {
    let (m, problems, read, _) = load_naming_left_out(paths);
    (m, problems, read)
}

/// [`load`], with the records the merge left out (overridden, repeated) named.
fn load_naming_left_out(paths: &[PathBuf]) -> (Matcher, Vec<catalog::Problem>, usize, Vec<catalog::LeftOut>) {
    annotail::matcher::warm_up();
    let mut cat = catalog::load(paths);
    let read = cat.read;
    let left_out = std::mem::take(&mut cat.left_out);
    tracing::debug!(records = read, "catalog read");
    let (m, problems) = Matcher::new(cat, Limits::default());
    tracing::debug!(records = m.entries.len(), "catalog compiled");
    (m, problems, read, left_out)
}

/// The end of the first file a followed glob names now: what the daemon reads next will look
/// like it, so the skim learns from it ([`source::input_head`]).
fn followed_tail(sources: &[follow::SourceSpec]) -> Option<Vec<u8>> {
    let path = sources
        .iter()
        .filter_map(|s| glob::glob(&s.pattern).ok())
        .flat_map(|paths| paths.flatten())
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() > 0))?;
    source::sample_of(&path, true)
}

/// Load the catalog for a run; `Err` holds the report when nothing usable is left.
fn load_for_run(paths: &[PathBuf]) -> Result<Matcher, String> {
    let (m, problems, _) = load(paths);
    let errors = problems.iter().filter(|p| p.level == Level::Error).count();
    let fatal = problems.iter().any(catalog::Problem::is_fatal);
    if fatal || m.entries.is_empty() {
        let mut report: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        report.push("annotail: the catalog could not be loaded".into());
        return Err(report.join("\n"));
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
    Ok(m)
}

/// After Ctrl-C (or SIGTERM) in a pipe, how long the input has to end by itself: the writer
/// upstream (`kubectl logs -f`) got the same Ctrl-C, and when its pipe closes in time the run
/// ends normally, with every line it wrote counted in the summary.
const INTERRUPT_GRACE: Duration = Duration::from_millis(500);

/// The metrics, and their endpoint when one is asked for. `Err` is the message for a busy
/// address.
fn start_metrics(r: &Resolved) -> Result<Arc<Metrics>, String> {
    let metrics = Arc::new(Metrics::new(r.metrics.top_records));
    if let Some(addr) = r.metrics.addr {
        let local = annotail::metrics::serve::spawn(addr, metrics.clone())
            .map_err(|e| format!("annotail: cannot serve metrics on {addr}: {e}"))?;
        tracing::info!(addr = %local, "metrics endpoint: /metrics, /health, /ready");
    }
    Ok(metrics)
}

/// Write the summary to standard error, once (the end of the run and Ctrl-C may race).
fn print_summary(metrics: &Metrics, printed: &AtomicBool, ended: Option<&'static str>) {
    if printed.swap(true, Ordering::SeqCst) {
        return;
    }
    let (lines, events, matched_events) = metrics.read_totals();
    let unknown = metrics.unknown.lock().expect("unknown lock").as_ref().map(|u| {
        let c = u.clusters.lock().unwrap_or_else(|e| e.into_inner());
        let mut top: Vec<summary::UnknownRow> = c
            .clusters()
            .map(|k| summary::UnknownRow {
                cluster: annotail::unknown::id_text(k.id),
                template: k.template.clone(),
                count: k.count,
            })
            .collect();
        top.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.cluster.cmp(&b.cluster)));
        summary::Unknown { events: metrics.unknown_events_total(), evicted: c.evicted, top }
    });
    let sum = Summary { lines, events, matched_events, records: metrics.record_counts(), ended, unknown };
    let tty = std::io::stderr().is_terminal();
    let color = tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let w = match annotail::config::resolve::width() {
        annotail::event::TERMINAL_WIDTH => annotail::event::terminal_width(),
        w => w,
    };
    let text = summary::render(&sum, w, color);
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
}

/// One-shot runs with --summary: Ctrl-C or SIGTERM prints the summary (after
/// [`INTERRUPT_GRACE`], unless the run ends first and prints it) and exits 130.
fn summary_on_interrupt(
    metrics: Arc<Metrics>,
    printed: Arc<AtomicBool>,
    interrupted: Arc<AtomicBool>,
) -> anyhow::Result<()> {
    on_interrupt(interrupted, move || {
        print_summary(&metrics, &printed, Some("interrupted"));
        Status::Interrupted
    })
}

/// On Ctrl-C or SIGTERM: `interrupted` is set, and after [`INTERRUPT_GRACE`] (the run, ending
/// first, exits the process itself) `report` runs and annotail exits with its status.
fn on_interrupt(interrupted: Arc<AtomicBool>, report: impl FnOnce() -> Status + Send + 'static) -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    // The flag is set inside the signal handler itself: when the writer upstream dies of the
    // same Ctrl-C and the input ends, the run already knows it was interrupted (a flag set
    // later by a thread lost that race in CI).
    for sig in [SIGINT, SIGTERM] {
        signal_hook::flag::register(sig, interrupted.clone())?;
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new().name("annotail-signals".into()).spawn(move || {
        if signals.forever().next().is_some() {
            std::thread::sleep(INTERRUPT_GRACE);
            std::process::exit(report().code().into());
        }
    })?;
    Ok(())
}

/// A subcommand: only the catalog and the config's `[input]` limits matter to it (and to
/// `check --config`, the file's sinks and sources).
fn tool(command: Command, cli: &Cli, config: &Config) -> anyhow::Result<Status> {
    match command {
        Command::Check { catalog, format } => {
            let paths = config.catalog_paths(&catalog.catalog);
            let config_problems = cli.config.as_deref().map(|f| config.problems(cli, f)).unwrap_or_default();
            Ok(run_check(&paths, format, config_problems))
        }
        Command::Explain { catalog, line, trace } => {
            let (m, problems, _) = load(&config.catalog_paths(&catalog.catalog));
            if m.entries.is_empty() {
                for p in &problems {
                    eprintln!("{p}");
                }
                eprintln!("annotail: no usable record in the catalog");
                return Ok(Status::Refused);
            }
            let line = if line == "-" {
                let mut s = String::new();
                std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                    .context("reading the line from standard input")?;
                s.trim_end_matches('\n').to_owned()
            } else {
                line
            };
            print!("{}", check::explain(&m, &line, trace));
            Ok(Status::Success)
        }
        // `--against` files are framed as a run would frame them: the config's [input] limits.
        Command::Stats(args) => {
            Ok(annotail::stats::command(&args, &config.catalog_paths(&args.catalog), config.framing(cli)))
        }
        Command::Report(args) => {
            Ok(annotail::report::command(&args, &config.catalog_paths(&args.catalog), config.framing(cli)))
        }
        Command::Discover(args) => Ok(run_discover(&args, &config.catalog_paths(&args.catalog), config.framing(cli))),
    }
}

/// The resolved run: its metrics (and endpoint), its catalog, then its inputs.
fn run(r: Resolved, cli: Cli) -> anyhow::Result<Status> {
    if let Mode::Follow(_) = r.mode {
        return run_follow(r, cli);
    }
    let metrics = match start_metrics(&r) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Status::Refused);
        }
    };
    let Resolved { catalog, summary: want_summary, mode: Mode::Read(read), .. } = r else {
        unreachable!("follow mode returned above")
    };
    if let Some(head) = source::input_head(&read.run.paths) {
        annotail::matcher::skim::Rarity::learn_from(head);
    }
    let m = match load_for_run(&catalog) {
        Ok(m) => Arc::new(m),
        Err(report) => {
            eprintln!("{report}");
            return Ok(Status::Refused);
        }
    };
    let tally = metrics.generation(&m);
    metrics.set_ready(true);
    let (printed, interrupted) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    if want_summary {
        summary_on_interrupt(metrics.clone(), printed.clone(), interrupted.clone())?;
    }
    let finish = |code: Status| {
        if want_summary {
            let int = interrupted.load(Ordering::SeqCst);
            print_summary(&metrics, &printed, int.then_some("interrupted"));
            if int {
                return Status::Interrupted;
            }
        }
        code
    };
    let Read { mut run, format, sinks, shutdown_timeout } = read;
    *metrics.unknown.lock().expect("unknown lock") = run.stage.unknown.clone();
    run.stage.metrics = Some(metrics.clone());
    run.stage.tally = Some(tally);
    if !sinks.is_empty() {
        return run_to_sinks(&run, m, sinks, shutdown_timeout, metrics.clone()).map(finish);
    }
    let mut writer =
        OutWriter::new(std::io::stdout().lock(), format, run.color, run.width).with_shape(run.shape.clone());
    let result = source::run(&m, &run, &mut writer);
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
            Ok(finish(Status::Success))
        }
        Err(e) => {
            eprintln!("annotail: {e}");
            Ok(finish(Status::Failed))
        }
    }
}

/// Standard input or files read to their end, delivered to `--output` sinks.
fn run_to_sinks(
    run: &source::RunConfig,
    m: Arc<Matcher>,
    sinks: Vec<annotail::sink::SinkSpec>,
    deadline: Duration,
    metrics: Arc<Metrics>,
) -> anyhow::Result<Status> {
    let all = run.stage.emit == Emit::All;
    let (result, delivered) =
        annotail::sink::with_sinks(sinks, all, deadline, metrics.clone(), |w| source::run(&m, run, w))?;
    std::mem::forget(m);
    match result {
        Ok(_) if delivered => Ok(dead_letter_status(&metrics, Status::Success)),
        Ok(_) => {
            eprintln!("annotail: some events could not be delivered before the deadline");
            Ok(Status::Failed)
        }
        Err(e) => {
            eprintln!("annotail: {e}");
            Ok(Status::Failed)
        }
    }
}

/// Files followed as a daemon until a signal stops it; SIGHUP (or a changed catalog or config)
/// reloads the catalog and the config.
fn run_follow(r: Resolved, cli: Cli) -> anyhow::Result<Status> {
    let mut runtime = follow::Runtime::start()?;
    let control = runtime.signals().expect("a runtime started with its signal handlers");
    let metrics = match start_metrics(&r) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Status::Refused);
        }
    };
    let Resolved { catalog, summary: want_summary, mode: Mode::Follow(settings), .. } = r else {
        unreachable!("run_follow is given follow mode")
    };
    if let Some(tail) = followed_tail(&settings.sources) {
        annotail::matcher::skim::Rarity::learn_from(tail);
    }
    let m = match load_for_run(&catalog) {
        Ok(m) => Arc::new(m),
        Err(report) => {
            eprintln!("{report}");
            return Ok(Status::Refused);
        }
    };
    *metrics.unknown.lock().expect("unknown lock") = settings.stage.unknown.clone();
    tracing::info!(records = m.entries.len(), sources = settings.sources.len(), "following");
    let reload: follow::Reloader = Box::new(move || {
        let config = Config::load_or_default(cli.config.as_deref()).map_err(|e| e.to_string())?;
        // Outputs are kept across a reload (their queues hold undelivered events), and so is
        // the state directory: the merge is not checked again.
        let settings = config.follow_settings(&cli).map_err(|e| e.to_string())?;
        // A reload is stricter than a start: the running catalog works, so a new one with any
        // error (a record that would be left out, a pattern too big) is refused, not applied.
        let (m, problems, _) = load(&config.catalog_paths(&cli.catalog.catalog));
        let errors: Vec<String> = problems.iter().filter(|p| p.level == Level::Error).map(|p| p.to_string()).collect();
        if !errors.is_empty() || m.entries.is_empty() {
            let shown = errors.iter().take(5).cloned().collect::<Vec<_>>().join("; ");
            return Err(format!("{} catalog error(s) ({shown}); run `annotail check`", errors.len()));
        }
        Ok((Arc::new(m), settings))
    });
    let result = follow::run(runtime, control, m, settings, reload, metrics.clone());
    if want_summary {
        print_summary(&metrics, &AtomicBool::new(false), None);
    }
    match result {
        Ok(outcome) => {
            tracing::info!(?outcome, "stopped");
            Ok(dead_letter_status(&metrics, Status::Success))
        }
        Err(follow::FollowError::State(e)) => {
            eprintln!("annotail: {e}");
            Ok(Status::Refused)
        }
        Err(e) => {
            eprintln!("annotail: {e}");
            Ok(Status::Failed)
        }
    }
}

fn run_discover(args: &annotail::discover::Args, catalog: &[PathBuf], limits: framing::Limits) -> Status {
    use annotail::discover::Discovery;
    if let Some(head) = source::input_head(&args.files) {
        annotail::matcher::skim::Rarity::learn_from(head);
    }
    let m = match load_for_run(catalog) {
        Ok(m) => m,
        Err(report) => {
            eprintln!("{report}");
            return Status::Refused;
        }
    };
    let d = Discovery::new(args);
    let (printed, interrupted) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    if let Err(e) = discover_on_interrupt(args.format, d.clone(), printed.clone(), interrupted.clone()) {
        eprintln!("annotail: cannot watch for Ctrl-C: {e}");
        return Status::Failed;
    }
    // An input that cannot be read fails the run, but what the other inputs gave is still
    // reported (a rotated-away file among several must not cost the drafts of the rest).
    let unread = match d.run(&m, &args.files, limits) {
        Ok(()) => false,
        Err(e @ source::RunError::Inputs { .. }) => {
            eprintln!("annotail: {e}");
            true
        }
        Err(e) => {
            eprintln!("annotail: {e}");
            return Status::Failed;
        }
    };
    std::mem::forget(m);
    let status = write_discovery(args.format, &d, &printed);
    if unread && status == Status::Success {
        return Status::Failed;
    }
    if interrupted.load(Ordering::SeqCst) && status == Status::Success { Status::Interrupted } else { status }
}

/// `discover` interrupted (Ctrl-C, SIGTERM): the clusters read so far are reported, as they are
/// at the end of input. With `kubectl logs -f … | annotail discover` the same Ctrl-C stops
/// kubectl, and the run ends at the end of what it wrote; a writer that ignores the signal is
/// waited for [`INTERRUPT_GRACE`], then the report is written from what was read and annotail
/// exits 130.
fn discover_on_interrupt(
    format: annotail::discover::DiscoverFormat,
    d: annotail::discover::Discovery,
    printed: Arc<AtomicBool>,
    interrupted: Arc<AtomicBool>,
) -> anyhow::Result<()> {
    on_interrupt(interrupted, move || match write_discovery(format, &d, &printed) {
        Status::Success => Status::Interrupted,
        failed => failed,
    })
}

/// Write `discover`'s report once (the run's end or an interrupt, whichever comes first; the
/// other waits for the process to exit).
fn write_discovery(
    format: annotail::discover::DiscoverFormat,
    d: &annotail::discover::Discovery,
    printed: &AtomicBool,
) -> Status {
    use annotail::discover::{self, DiscoverFormat};
    if printed.swap(true, Ordering::SeqCst) {
        // The interrupt's thread writes it and exits the process.
        loop {
            std::thread::park();
        }
    }
    let reports = d.reports();
    let dropped = d.dropped();
    if dropped > 0 {
        eprintln!(
            "annotail: {dropped} cluster(s) were dropped at --max-clusters, the least recently seen: their events are not in the report"
        );
    }
    let mut out = std::io::stdout().lock();
    let mut text = String::new();
    match format {
        DiscoverFormat::Text => text = discover::text(&reports),
        DiscoverFormat::Json => {
            for r in &reports {
                text.push_str(&serde_json::to_string(r).expect("a report serialises"));
                text.push('\n');
            }
        }
        DiscoverFormat::Catalog => {
            let drafts = d.catalog(&reports);
            let (skipped, untexted, generic) = (drafts.skipped, drafts.untexted, drafts.generic);
            if drafts.unmatched > 0 {
                eprintln!(
                    "annotail: {} cluster(s) have no draft: the draft made of their template matched none of their own example lines (such as `{}`: its values run across what the matcher reads as a field or a link of the line); see --format text",
                    drafts.unmatched,
                    drafts.unmatched_example.as_deref().unwrap_or_default()
                );
            }
            text = drafts.text;
            if skipped > 0 {
                eprintln!(
                    "annotail: {skipped} cluster(s) without 4 letters or digits between two variables of their template have no draft (see --format text)"
                );
            }
            if untexted > 0 {
                eprintln!(
                    "annotail: {untexted} cluster(s) of lines with no text of their own, clustered by their target, have no draft: it would match every line of the target (see --format text)"
                );
            }
            if !generic.is_empty() {
                let shown: Vec<&str> = generic.iter().take(5).map(String::as_str).collect();
                let more = if generic.len() > 5 { format!(" and {} more", generic.len() - 5) } else { String::new() };
                eprintln!(
                    "annotail: {} draft(s) say one word of their own (`discovered.generic`: {}{more}): they may match lines of other errors; review them before adding them",
                    generic.len(),
                    shown.join(", ")
                );
            }
        }
    }
    match std::io::Write::write_all(&mut out, text.as_bytes()).and_then(|()| std::io::Write::flush(&mut out)) {
        Ok(()) => Status::Success,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Status::Success,
        Err(e) => {
            eprintln!("annotail: cannot write the report: {e}");
            Status::Failed
        }
    }
}

/// Exit status 1 when a receiver refused events (parked in dead-letter files): a run that could
/// not deliver everything does not end as if it had.
fn dead_letter_status(metrics: &Metrics, ok: Status) -> Status {
    let n = metrics.dead_lettered.load(Ordering::Relaxed);
    let rejected = metrics.rejected.load(Ordering::Relaxed);
    if n == 0 && rejected == 0 {
        return ok;
    }
    if n > 0 {
        eprintln!("annotail: {n} event(s) refused by a receiver are in the dead-letter file(s) of the state directory");
    }
    if rejected > 0 {
        eprintln!(
            "annotail: {rejected} record(s) rejected by an OTLP receiver (partial success; its reasons are in the log)"
        );
    }
    Status::Failed
}

/// Standard input or files read to their end, delivered to `--output` sinks.
fn run_check(paths: &[PathBuf], format: CheckFormat, config_problems: Vec<catalog::Problem>) -> Status {
    let (m, mut problems, read, left_out) = load_naming_left_out(paths);
    let (compiled, broken) = check::compile_all(&m);
    problems.extend(compiled);
    // Records whose regex does not compile never match: not usable (they were counted usable
    // beside their error; found by a catalog keeper). With those the matcher refused (a
    // pattern that matches any line, or none that compiles), they are the records refused, and
    // the counts add up.
    let broken_unkeyed = broken.iter().filter(|&&i| m.entries[i].key.is_none()).count();
    let usable = m.entries.len() - broken.len();
    let refused = read.saturating_sub(left_out.len() + usable);
    let in_prefilter = m.entries.len() - m.unkeyed.len() - (broken.len() - broken_unkeyed);
    let without_literal = m.unkeyed.len() - broken_unkeyed;
    problems.extend(config_problems);
    let errors = problems.iter().filter(|p| p.level == Level::Error).count();
    let warnings = problems.len() - errors;
    match format {
        CheckFormat::Text => {
            for p in &problems {
                println!("{p}");
            }
            for l in &left_out {
                println!("{l}");
            }
            let pn = check::positional_names(&m);
            println!(
                "positional placeholders ({{}}, {{0}}): {} in {} record(s); {} named from sourceCode, {} kept as _N in {} record(s) (--format json lists them)",
                pn.placeholders,
                pn.records,
                pn.named,
                pn.kept,
                pn.kept_in.len()
            );
            let mut apart = Vec::new();
            if !left_out.is_empty() {
                apart.push(format!("{} left out", left_out.len()));
            }
            if refused > 0 {
                apart.push(format!("{refused} refused"));
            }
            let apart = if apart.is_empty() { String::new() } else { format!(" ({}, named above)", apart.join(", ")) };
            println!(
                "{read} record(s) read, {usable} usable{apart}, {in_prefilter} in the prefilter, {without_literal} without a literal; {errors} error(s), {warnings} warning(s)",
            );
        }
        CheckFormat::Json => {
            let v = serde_json::json!({
                "records_read": read,
                "records_usable": usable,
                "records_without_literal": without_literal,
                "records_left_out": left_out.len(),
                "records_refused": refused,
                "left_out": left_out,
                "errors": errors,
                "warnings": warnings,
                "problems": problems,
                "positional_names": check::positional_names(&m),
            });
            println!("{v}");
        }
    }
    if errors > 0 || m.entries.is_empty() { Status::Refused } else { Status::Success }
}
