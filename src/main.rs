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
use annotail::config::{Config, LogFormat, StartAt, WatchMode};
use annotail::event::{Format, OutWriter};
use annotail::matcher::{Limits, Matcher};
use annotail::metrics::Metrics;
use annotail::summary::{self, Summary};
use annotail::source::follow;
use annotail::status::Status;
use annotail::{check, framing, source};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

    /// Log files to read; '-' is standard input (the default). With --follow: files or globs
    /// to follow.
    paths: Vec<PathBuf>,

    /// Follow PATHs (files or quoted globs) as a daemon: across rotation, with checkpoints.
    /// Implied by a config file with [[sources]] when no PATH is given.
    #[arg(long)]
    follow: bool,

    /// Config file (TOML; see config/annotail.toml). Command-line options override it.
    #[arg(long, value_name = "FILE", global = true)]
    config: Option<PathBuf>,

    #[command(flatten)]
    follow_opts: FollowArgs,

    #[command(flatten)]
    catalog: CatalogArgs,

    /// Output format [default: pretty when standard output is a terminal, json otherwise].
    #[arg(long, value_enum)]
    format: Option<Format>,

    /// Write every event, not only known errors (`match` is null when nothing matched).
    #[arg(long)]
    all: bool,

    /// Complete a pending multi-line event after this many milliseconds without input
    /// (standard input, followed files). 0: an event is complete whenever the input pauses
    /// [default: 100].
    #[arg(long, value_name = "MS")]
    idle_timeout: Option<u64>,

    /// Cut lines longer than this many bytes; the event is marked truncated [default: 1048576].
    #[arg(long, value_name = "BYTES")]
    max_line_bytes: Option<usize>,

    /// Close a multi-line event after this many physical lines [default: 1000].
    #[arg(long, value_name = "N")]
    max_event_lines: Option<u32>,

    /// Threads for file input [default: the cores available]. Output stays in input order.
    /// Standard input is always read by one thread.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// Which fields of a matched record events carry: default (all but the record's
    /// pass-through fields: source code, validation code, examples), all, none (id, slug and
    /// severity), or a comma-separated list of names [default: the config's
    /// output.record_fields, else default].
    #[arg(long, value_name = "FIELDS", value_parser = parse_record_fields)]
    record_fields: Option<annotail::event::RecordFields>,

    /// Largest event in bytes (at least 1024); a larger one is cut to fit and stays valid JSON
    /// (README: event shaping) [default: the config's output.max_event_bytes, else no bound].
    #[arg(long, value_name = "BYTES", value_parser = parse_max_event_bytes)]
    max_event_bytes: Option<usize>,

    /// Colours in pretty output [default: auto: on a terminal, unless NO_COLOR is set].
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,

    /// At exit (end of input, Ctrl-C, SIGTERM), write a table of matches per severity and per
    /// record (and the top unknown clusters) to standard error.
    #[arg(long)]
    summary: bool,

    /// Pretty output annotates every occurrence in full: no collapse of repeats (incidents are
    /// still counted).
    #[arg(long)]
    no_collapse: bool,

    /// How long an incident lasts: repeats of a known error within this time of its first
    /// occurrence are collapsed and counted as one incident [default: 60s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    collapse_window: Option<Duration>,

    /// What makes two occurrences the same incident: a comma-separated list of record, captures,
    /// message, file, pod, namespace, container (the record is always part of it)
    /// [default: record,captures].
    #[arg(long, value_name = "PARTS", value_parser = annotail::repeat::KeySpec::parse_list)]
    collapse_key: Option<annotail::repeat::KeySpec>,
    #[command(flatten)]
    unknown: UnknownArgs,

    /// Serve Prometheus metrics at /metrics, liveness at /health and readiness at /ready on
    /// this address (e.g. 127.0.0.1:9464) [default: off, or the config's metrics.addr].
    #[arg(long, value_name = "ADDR")]
    metrics_addr: Option<std::net::SocketAddr>,

    /// Records with their own per-record metric series (the most matched); 0: none [default: 20].
    #[arg(long, value_name = "N")]
    metrics_top_records: Option<usize>,

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
struct UnknownArgs {
    /// Cluster the events no record explains, at these levels, into templates, and write them
    /// with an `unknown` field {cluster, template, count}: warn (WARN and ERROR), error, any
    /// (every event, with a level or not), off. Files are then read by one thread
    /// [default: off, or the config's unknown.levels].
    #[arg(long, value_enum, value_name = "LEVELS")]
    unknown: Option<annotail::unknown::Levels>,

    /// Clusters of unknown events kept at most; at the cap the least recently seen sixteenth is
    /// dropped [default: 10000, or the config's unknown.max_clusters].
    #[arg(long, value_name = "N")]
    unknown_max_clusters: Option<usize>,
}

#[derive(Args, Debug, Clone)]
struct DiagArgs {
    /// Level of annotail's own diagnostics on standard error (overrides RUST_LOG and the config)
    /// [default: info with --follow, warn otherwise].
    #[arg(long, value_name = "LEVEL", global = true)]
    log_level: Option<String>,

    /// Format of annotail's own diagnostics on standard error [default: text].
    #[arg(long, value_enum, value_name = "FORMAT", global = true)]
    log_format: Option<LogFormat>,
}

/// Follow mode options; each overrides the config file's key of the same name.
#[derive(Args, Debug, Clone, Default)]
struct FollowArgs {
    /// Directory for checkpoints [default: $STATE_DIRECTORY (systemd), else /var/lib/annotail].
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,

    /// Where a file found at start without a checkpoint is read from; files that appear later
    /// are always read from their beginning [default: beginning].
    #[arg(long, value_enum, value_name = "WHERE")]
    start_at: Option<StartAt>,

    /// How changes are noticed [default: auto].
    #[arg(long, value_enum, value_name = "MODE")]
    watch: Option<WatchMode>,

    /// Poll interval: how often globs are expanded and files checked without events
    /// [default: 1s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    poll_interval: Option<Duration>,

    /// A last line without its line break is held this long for the rest [default: 1s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    line_timeout: Option<Duration>,

    /// A rotated or deleted file is read until it has been quiet this long [default: 5s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    rotate_wait: Option<Duration>,

    /// Files the followed globs match that are not followed: a glob without '/' is matched
    /// against the file name ('*.old'), one with '/' against the whole path; repeatable
    /// [default: none, or each source's exclude]. Compressed files are never followed.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,

    /// Where events go: -, file:PATH, tcp://HOST:PORT, unix:PATH, syslog+tcp://HOST:PORT,
    /// http(s)://URL, otlp+http(s)://HOST:PORT[/v1/logs]; repeatable [default: -, or the
    /// config's [[sinks]]].
    #[arg(long = "output", value_name = "URL")]
    outputs: Vec<String>,

    /// Only events whose record's severity is at least this, for the --output sinks.
    #[arg(long, value_enum, value_name = "LEVEL")]
    min_severity: Option<annotail::sink::Severity>,

    /// When a sink's queue is full: block (reading pauses) or drop (counted and logged)
    /// [default: block].
    #[arg(long, value_enum, value_name = "WHAT")]
    when_full: Option<annotail::sink::WhenFull>,

    /// Checkpoints are written when an acknowledgement changes them, at most this often; bounds
    /// the events repeated after a crash [default: 100ms].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    checkpoint_interval: Option<Duration>,

    /// On SIGTERM/SIGINT, how long to wait for the output to take what was read [default: 10s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    shutdown_timeout: Option<Duration>,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Color {
    Auto,
    Always,
    Never,
}

/// `--record-fields`: a word or a comma-separated list.
fn parse_record_fields(s: &str) -> Result<annotail::event::RecordFields, String> {
    let words: Vec<String> = s.split(',').map(|w| w.trim().to_owned()).collect();
    let single = words.len() == 1 && ["all", "none", "default"].contains(&words[0].as_str());
    annotail::event::RecordFields::parse(&words, single)
}

fn parse_max_event_bytes(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{s:?}: {e}"))?;
    if n < annotail::event::MIN_EVENT_BYTES {
        return Err(format!(
            "{n} is too small; at least {} (room for the event's envelope)",
            annotail::event::MIN_EVENT_BYTES
        ));
    }
    Ok(n)
}

/// mimalloc rather than glibc's malloc: see Cargo.toml for the figures.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    ExitCode::from(run_main())
}

/// The command's status, decided here and nowhere else turned into an exit code.
fn run_main() -> Status {
    let opts = Opts::parse();
    // A daemon with many followed files, sink connections and scrapers needs descriptors: the
    // soft limit (often 1,024) is raised to the hard one the system allows.
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let config = match &opts.config {
        None => Config::default(),
        Some(path) => match Config::load(path) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("annotail: {e}");
                return Status::Refused;
            }
        },
    };
    let following = opts.command.is_none() && is_follow(&opts, &config);
    init_tracing(&opts.diag, &config, following);
    match real_main(opts, config) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("annotail: {e:#}");
            Status::Failed
        }
    }
}

fn is_follow(opts: &Opts, config: &Config) -> bool {
    opts.follow || (opts.paths.is_empty() && !config.sources.is_empty())
}

fn init_tracing(d: &DiagArgs, config: &Config, following: bool) {
    let default = if following { "info" } else { "warn" };
    let filter = match (&d.log_level, &config.log.level) {
        (Some(l), _) => tracing_subscriber::EnvFilter::new(l),
        (None, cfg) => tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(cfg.as_deref().unwrap_or(default))),
    };
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false);
    match d.log_format.or(config.log.format).unwrap_or(LogFormat::Text) {
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

/// The catalog paths: the command line's, else the config file's (else the embedded one).
fn catalog_paths(cli: &[PathBuf], config: &Config) -> Vec<PathBuf> {
    if cli.is_empty() { config.catalog.clone() } else { cli.to_vec() }
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

/// Output and framing choices shared by both modes.
struct Common {
    format: Format,
    color: bool,
    width: usize,
    emit: Emit,
    every_event: bool,
    idle: Duration,
    framing: framing::Limits,
    incidents: Arc<annotail::repeat::Incidents>,
    /// Standard output's shaping, and every sink's unless it has its own.
    shape: Arc<annotail::event::Shape>,
    unknown: Option<annotail::unknown::Shared>,
}

/// The `--unknown` clusterer of a run, none when off.
fn unknown_of(opts: &Opts, config: &Config) -> Option<annotail::unknown::Shared> {
    let levels = opts.unknown.unknown.or(config.unknown.levels).unwrap_or_default();
    let cap = opts
        .unknown
        .unknown_max_clusters
        .or(config.unknown.max_clusters)
        .unwrap_or(annotail::unknown::DEFAULT_CAP);
    levels.is_on().then(|| annotail::unknown::Shared::new(levels, cap))
}

fn common(opts: &Opts, config: &Config) -> Common {
    let tty = std::io::stdout().is_terminal();
    let format = opts.format.or(config.output.format).unwrap_or(if tty { Format::Pretty } else { Format::Json });
    let color = match opts.color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let all = opts.all || config.output.all.unwrap_or(false);
    let input = &config.input;
    let unknown = unknown_of(opts, config);
    let every_unknown = unknown.as_ref().is_some_and(|u| u.levels == annotail::unknown::Levels::Any);
    Common {
        unknown,
        format,
        color,
        width: width(),
        emit: if all { Emit::All } else { Emit::Matches },
        every_event: all || format == Format::Pretty || every_unknown,
        idle: opts
            .idle_timeout
            .map(Duration::from_millis)
            .or(input.idle_timeout.map(|d| d.0))
            .unwrap_or(Duration::from_millis(100)),
        framing: framing_limits(opts.max_line_bytes, opts.max_event_lines, input),
        incidents: Arc::new(annotail::repeat::Incidents::new(
            opts.collapse_key.clone().unwrap_or_else(|| {
                // Checked when the config was loaded.
                config.output.collapse_key.as_deref().map_or_else(Default::default, |k| {
                    annotail::repeat::KeySpec::parse_all(k).unwrap_or_default()
                })
            }),
            opts.collapse_window.or(config.output.collapse_window.map(|d| d.0)).unwrap_or(annotail::repeat::DEFAULT_WINDOW),
            !opts.no_collapse && config.output.collapse.unwrap_or(true),
        )),
        shape: Arc::new(annotail::event::Shape {
            fields: opts.record_fields.clone().or(config.output.record_fields.clone().map(|f| f.0)).unwrap_or_default(),
            max_event_bytes: opts.max_event_bytes.or(config.output.max_event_bytes),
        }),
    }
}

/// Framing limits: the command line's, else the config's `[input]`, else the defaults.
fn framing_limits(
    max_line_bytes: Option<usize>,
    max_event_lines: Option<u32>,
    input: &annotail::config::InputConfig,
) -> framing::Limits {
    let d = framing::Limits::default();
    framing::Limits {
        max_line_bytes: max_line_bytes.or(input.max_line_bytes).unwrap_or(d.max_line_bytes).max(1),
        max_event_lines: max_event_lines.or(input.max_event_lines).unwrap_or(d.max_event_lines).max(1),
        ..d
    }
}

/// The pipeline's configuration for a run to the end of its inputs.
fn run_config(
    c: &Common,
    paths: Vec<PathBuf>,
    threads: usize,
    metrics: &Arc<Metrics>,
    tally: Arc<annotail::metrics::Tally>,
) -> source::RunConfig {
    source::RunConfig {
        threads,
        color: c.color,
        width: c.width,
        paths,
        stage: annotail::stage::Setup {
            emit: c.emit,
            every_event: c.every_event,
            framing: c.framing,
            metrics: Some(metrics.clone()),
            tally: Some(tally),
            incidents: Some(c.incidents.clone()),
            unknown: c.unknown.clone(),
        },
        idle: c.idle,
        shape: c.shape.clone(),
    }
}

/// Columns for wrapping: $COLUMNS when set; else the terminal's width, read again at each
/// annotation ([`annotail::event::TERMINAL_WIDTH`]).
fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &usize| w > 0)
        .unwrap_or(annotail::event::TERMINAL_WIDTH)
}

/// After Ctrl-C (or SIGTERM) in a pipe, how long the input has to end by itself: the writer
/// upstream (`kubectl logs -f`) got the same Ctrl-C, and when its pipe closes in time the run
/// ends normally, with every line it wrote counted in the summary.
const INTERRUPT_GRACE: Duration = Duration::from_millis(500);

/// The metrics, and their endpoint when one is asked for. `Err` is the message for a bad or
/// busy address.
fn start_metrics(opts: &Opts, config: &Config) -> Result<Arc<Metrics>, String> {
    let top = opts.metrics_top_records.or(config.metrics.top_records).unwrap_or(annotail::metrics::DEFAULT_TOP_RECORDS);
    let metrics = Arc::new(Metrics::new(top));
    if let Some(addr) = opts.metrics_addr.or(config.metrics.addr) {
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
            .map(|k| summary::UnknownRow { cluster: annotail::unknown::id_text(k.id), template: k.template.clone(), count: k.count })
            .collect();
        top.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.cluster.cmp(&b.cluster)));
        top
    });
    let sum = Summary { lines, events, matched_events, records: metrics.record_counts(), ended, unknown };
    let tty = std::io::stderr().is_terminal();
    let color = tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let w = match width() {
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
            print_summary(&metrics, &printed, Some("interrupted"));
            std::process::exit(Status::Interrupted.code().into());
        }
    })?;
    Ok(())
}

/// How often globs are expanded and files checked without an event. A poll costs a directory
/// listing and one `stat` and one `fstat` per followed file (about 20 µs for 1,000 files,
/// measured): at 250 ms, 1,000 quiet files took 2-3% of a core; at 1 s, under 1%. inotify
/// wakes annotail at once anyway; the poll is for what events miss (NFS, some mounts), where
/// a second is what Vector's file source waits between globs too.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// Checkpoints are written when an acknowledgement changes them, at most this often: what a
/// kill -9 repeats (at 20,000 lines/s, about 2,000 lines, not the 20,000 of a second). See
/// BENCHMARKS.md, "Faults", for what the writes cost.
const DEFAULT_CHECKPOINT_INTERVAL: Duration = Duration::from_millis(100);

fn follow_settings(opts: &Opts, config: &Config) -> follow::Settings {
    let c = common(opts, config);
    let (f, input, state) = (&opts.follow_opts, &config.input, &config.state);
    let start_at = f.start_at.or(input.start_at).unwrap_or(StartAt::Beginning);
    let sources = if opts.follow && !opts.paths.is_empty() {
        let exclude: Vec<String> =
            f.exclude.iter().map(|e| if e.contains('/') { absolute(std::path::Path::new(e)) } else { e.clone() }).collect();
        opts.paths
            .iter()
            .map(|p| follow::SourceSpec { pattern: absolute(p), start_at, exclude: exclude.clone() })
            .collect()
    } else {
        config
            .sources
            .iter()
            .flat_map(|s| {
                let start_at = f.start_at.or(s.start_at).unwrap_or(start_at);
                let exclude = if f.exclude.is_empty() { s.exclude.clone() } else { f.exclude.clone() };
                s.paths.iter().map(move |p| follow::SourceSpec { pattern: p.clone(), start_at, exclude: exclude.clone() })
            })
            .collect()
    };
    let state_dir = state_dir_of(opts, config);
    let dur = |cli: Option<Duration>, cfg: Option<annotail::config::Dur>, default: Duration| {
        cli.or(cfg.map(|d| d.0)).unwrap_or(default)
    };
    follow::Settings {
        sources,
        watch: f.watch.or(input.watch).unwrap_or(WatchMode::Auto),
        poll_interval: dur(f.poll_interval, input.poll_interval, DEFAULT_POLL)
            .max(Duration::from_millis(1)),
        idle: c.idle,
        line_timeout: dur(f.line_timeout, input.line_timeout, Duration::from_secs(1)),
        rotate_wait: dur(f.rotate_wait, input.rotate_wait, Duration::from_secs(5)),
        checkpoint_interval: dur(f.checkpoint_interval, state.checkpoint_interval, DEFAULT_CHECKPOINT_INTERVAL)
            .max(Duration::from_millis(1)),
        shutdown_timeout: dur(f.shutdown_timeout, state.shutdown_timeout, Duration::from_secs(10)),
        state_dir: state_dir.0,
        state_dir_origin: state_dir.1,
        framing: c.framing,
        emit: c.emit,
        every_event: c.every_event,
        format: c.format,
        color: c.color,
        width: c.width,
        incidents: c.incidents.clone(),
        sinks: Vec::new(),
        unknown: c.unknown.clone(),
        shape: c.shape.clone(),
        watch_config: catalog_paths(&opts.catalog.catalog, config).into_iter().chain(opts.config.clone()).collect(),
    }
}

/// The state directory (checkpoints, dead-letter files) and what chose it.
fn state_dir_of(opts: &Opts, config: &Config) -> (PathBuf, &'static str) {
    match (&opts.follow_opts.state_dir, &config.state.dir) {
        (Some(d), _) => (d.clone(), "--state-dir"),
        (None, Some(d)) => (d.clone(), "state.dir"),
        (None, None) => default_state_dir(),
    }
}

/// Where checkpoints go when neither `--state-dir` nor `state.dir` says, and why there:
/// systemd's `$STATE_DIRECTORY`; `/var/lib/annotail` for root; else the user's state directory
/// (`$XDG_STATE_HOME/annotail`, `~/.local/state/annotail`), so that a first try without root
/// works.
fn default_state_dir() -> (PathBuf, &'static str) {
    use std::os::unix::fs::MetadataExt;
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(d) = env("STATE_DIRECTORY") {
        // systemd may list several, separated by ':'; annotail's unit sets one.
        let first = d.to_string_lossy().split(':').next().unwrap_or_default().to_owned();
        return (PathBuf::from(first), "$STATE_DIRECTORY");
    }
    // `/proc/self` belongs to the effective user: no libc call for one number.
    let root = std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false);
    if root {
        return (PathBuf::from("/var/lib/annotail"), "the default for root");
    }
    if let Some(d) = env("XDG_STATE_HOME").filter(|d| d.is_absolute()) {
        return (d.join("annotail"), "$XDG_STATE_HOME (not root)");
    }
    match env("HOME") {
        Some(h) => (h.join(".local/state/annotail"), "~/.local/state (not root)"),
        None => (PathBuf::from("/var/lib/annotail"), "the default (not root, and no $HOME)"),
    }
}

/// The sinks from --output (which replace the config's) or the config's [[sinks]].
fn sink_specs(opts: &Opts, config: &Config, format: Format) -> Result<Vec<annotail::sink::SinkSpec>, String> {
    use annotail::sink::SinkSpec;
    let shape = common(opts, config).shape;
    let stream_format = if format == Format::Pretty { Format::Json } else { format };
    let f = &opts.follow_opts;
    if f.outputs.is_empty() && config.sinks.is_empty() {
        // Standard output is the output: a filter applies to it as to any sink.
        return match f.min_severity {
            Some(min) => {
                let mut s = SinkSpec::new("-", format).map_err(|e| e.to_string())?;
                s.shape = shape.clone();
                s.min_severity = Some(min);
                Ok(vec![s])
            }
            None => Ok(Vec::new()),
        };
    }
    if !f.outputs.is_empty() {
        return f
            .outputs
            .iter()
            .map(|u| {
                let fmt = if u == "-" { format } else { stream_format };
                let mut s = SinkSpec::new(u, fmt).map_err(|e| format!("--output {e}"))?;
                s.shape = shape.clone();
                s.min_severity = f.min_severity;
                s.when_full = f.when_full.unwrap_or(s.when_full);
                Ok(s)
            })
            .collect();
    }
    config
        .sinks
        .iter()
        .map(|k| {
            let fmt = k.format.unwrap_or(if k.url == "-" { format } else { stream_format });
            let mut s = SinkSpec::new(&k.url, fmt).map_err(|e| e.to_string())?;
            s.min_severity = f.min_severity.or(k.min_severity);
            s.headers = k.headers.iter().map(|(a, b)| (a.clone(), b.clone())).collect();
            s.when_full = f.when_full.or(k.when_full).unwrap_or(s.when_full);
            s.max_events = k.max_buffer_events.unwrap_or(s.max_events);
            s.max_bytes = k.max_buffer_bytes.unwrap_or(s.max_bytes);
            s.batch_bytes = k.batch_max_bytes.unwrap_or(s.batch_bytes);
            s.batch_timeout = k.batch_timeout.map_or(s.batch_timeout, |d| d.0);
            s.timeout = k.timeout.map_or(s.timeout, |d| d.0);
            s.max_backoff = k.max_backoff.map_or(s.max_backoff, |d| d.0);
            s.tls_ca_file = k.tls_ca_file.clone();
            s.dedupe = k.dedupe.as_ref().map(|d| annotail::sink::dedupe::DedupeSpec {
                window: d.window.map_or(annotail::repeat::DEFAULT_WINDOW, |w| w.0),
                // Checked when the config was loaded.
                key: d.key.as_deref().map_or_else(Default::default, |k| {
                    annotail::repeat::KeySpec::parse_all(k).unwrap_or_default()
                }),
            });
            s.shape = if k.record_fields.is_none() && k.max_event_bytes.is_none() {
                shape.clone()
            } else {
                Arc::new(annotail::event::Shape {
                    fields: k.record_fields.clone().map_or_else(|| shape.fields.clone(), |f| f.0),
                    max_event_bytes: k.max_event_bytes.or(shape.max_event_bytes),
                })
            };
            s.compression = k.compression.unwrap_or(s.compression);
            s.compression_level = k.compression_level.unwrap_or(s.compression.levels().1);
            s.encoding = k.encoding.unwrap_or(s.encoding);
            s.facility = k.syslog_facility.unwrap_or(s.facility);
            s.concurrency = k.concurrency.unwrap_or(s.concurrency);
            Ok(s)
        })
        .collect()
}

/// Every sink's problems that retrying cannot fix ([`annotail::sink::SinkSpec::problems`]),
/// each named by where the sink was configured.
fn sink_problems(opts: &Opts, specs: &[annotail::sink::SinkSpec]) -> Vec<String> {
    let from_cli = !opts.follow_opts.outputs.is_empty();
    specs
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let at = if from_cli { format!("--output {}", s.url) } else { format!("sinks[{i}] ({})", s.url) };
            s.problems().into_iter().map(move |p| format!("{at}: {p}"))
        })
        .collect()
}

/// The sinks of a run, checked: `Err` is the message for standard error (exit status 2).
fn checked_sinks(opts: &Opts, config: &Config, format: Format) -> Result<Vec<annotail::sink::SinkSpec>, String> {
    let mut specs = sink_specs(opts, config, format).map_err(|e| format!("annotail: {e}"))?;
    let dead_letter = state_dir_of(opts, config).0.join("dead-letter");
    for s in &mut specs {
        s.dead_letter_dir = Some(dead_letter.clone());
    }
    let problems = sink_problems(opts, &specs);
    if problems.is_empty() {
        Ok(specs)
    } else {
        Err(problems.iter().map(|p| format!("annotail: {p}")).collect::<Vec<_>>().join("\n"))
    }
}

/// Globs are matched as absolute paths (a daemon's working directory is not the user's).
fn absolute(p: &std::path::Path) -> String {
    let abs = if p.is_absolute() { p.to_owned() } else { std::env::current_dir().unwrap_or_default().join(p) };
    abs.to_string_lossy().into_owned()
}

/// The follow-mode settings from the command line and the config, with everything that cannot
/// work refused (sinks, their TLS files and directories, sources, globs) before anything starts.
fn resolve_follow(opts: &Opts, config: &Config) -> Result<follow::Settings, String> {
    let mut settings = follow_settings(opts, config);
    settings.sinks = checked_sinks(opts, config, settings.format)?;
    if settings.sources.is_empty() {
        return Err("annotail: --follow needs at least one PATH (or [[sources]] in the config file)".into());
    }
    for s in &settings.sources {
        for p in std::iter::once(&s.pattern).chain(&s.exclude) {
            if let Err(e) = glob::Pattern::new(p) {
                return Err(format!("annotail: {p:?} is not a valid glob: {e}"));
            }
        }
    }
    Ok(settings)
}

fn run_follow(opts: Opts, config: Config) -> anyhow::Result<Status> {
    let want_summary = opts.summary;
    // What cannot work is refused before the runtime, the metrics endpoint or a sink starts.
    let settings = match resolve_follow(&opts, &config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Status::Refused);
        }
    };
    let mut runtime = follow::Runtime::start()?;
    let control = runtime.signals().expect("a runtime started with its signal handlers");
    let metrics = match start_metrics(&opts, &config) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Status::Refused);
        }
    };
    if let Some(tail) = followed_tail(&settings.sources) {
        annotail::matcher::skim::Rarity::learn_from(tail);
    }
    let m = match load_for_run(&catalog_paths(&opts.catalog.catalog, &config)) {
        Ok(m) => std::sync::Arc::new(m),
        Err(report) => {
            eprintln!("{report}");
            return Ok(Status::Refused);
        }
    };
    *metrics.unknown.lock().expect("unknown lock") = settings.unknown.clone();
    tracing::info!(records = m.entries.len(), sources = settings.sources.len(), "following");
    let reload: follow::Reloader = Box::new(move || {
        let config = match &opts.config {
            Some(path) => Config::load(path).map_err(|e| e.to_string())?,
            None => Config::default(),
        };
        let mut settings = follow_settings(&opts, &config);
        // Outputs are kept across a reload (their queues hold undelivered events).
        settings.sinks = sink_specs(&opts, &config, settings.format)?;
        // A reload is stricter than a start: the running catalog works, so a new one with any
        // error (a record that would be left out, a pattern too big) is refused, not applied.
        let (m, problems, _) = load(&catalog_paths(&opts.catalog.catalog, &config));
        let errors: Vec<String> = problems.iter().filter(|p| p.level == Level::Error).map(|p| p.to_string()).collect();
        if !errors.is_empty() || m.entries.is_empty() {
            let shown = errors.iter().take(5).cloned().collect::<Vec<_>>().join("; ");
            return Err(format!("{} catalog error(s) ({shown}); run `annotail check`", errors.len()));
        }
        Ok((std::sync::Arc::new(m), settings))
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

fn real_main(opts: Opts, config: Config) -> anyhow::Result<Status> {
    match &opts.command {
        Some(Command::Check { catalog, format }) => {
            let format = *format;
            let paths = catalog_paths(&catalog.catalog, &config);
            let config_problems = opts.config.as_deref().map(|f| config_problems(&opts, &config, f)).unwrap_or_default();
            return Ok(run_check(&paths, format, config_problems));
        }
        Some(Command::Explain { catalog, line, trace }) => {
            let (m, problems, _) = load(&catalog_paths(&catalog.catalog, &config));
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
                line.clone()
            };
            print!("{}", check::explain(&m, &line, *trace));
            return Ok(Status::Success);
        }
        Some(Command::Stats(args)) => {
            // `--against` files are framed as a run would frame them: the config's [input] limits.
            let limits = framing_limits(opts.max_line_bytes, opts.max_event_lines, &config.input);
            return Ok(annotail::stats::command(args, &catalog_paths(&args.catalog, &config), limits));
        }
        Some(Command::Report(args)) => {
            let limits = framing_limits(opts.max_line_bytes, opts.max_event_lines, &config.input);
            return Ok(annotail::report::command(args, &catalog_paths(&args.catalog, &config), limits));
        }
        Some(Command::Discover(args)) => {
            return Ok(run_discover(args, &catalog_paths(&args.catalog, &config), framing_limits(opts.max_line_bytes, opts.max_event_lines, &config.input)));
        }
        None => {}
    }
    if is_follow(&opts, &config) {
        return run_follow(opts, config);
    }
    let sinks = match checked_sinks(&opts, &config, common(&opts, &config).format) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Status::Refused);
        }
    };
    let metrics = match start_metrics(&opts, &config) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return Ok(Status::Refused);
        }
    };
    if let Some(head) = source::input_head(&opts.paths) {
        annotail::matcher::skim::Rarity::learn_from(head);
    }
    let m = match load_for_run(&catalog_paths(&opts.catalog.catalog, &config)) {
        Ok(m) => Arc::new(m),
        Err(report) => {
            eprintln!("{report}");
            return Ok(Status::Refused);
        }
    };
    let tally = metrics.generation(&m);
    metrics.set_ready(true);
    let (printed, interrupted) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    if opts.summary {
        summary_on_interrupt(metrics.clone(), printed.clone(), interrupted.clone())?;
    }
    let want_summary = opts.summary;
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
    if !sinks.is_empty() {
        return run_to_sinks(opts, config, m, sinks, metrics.clone(), tally).map(finish);
    }
    let c = common(&opts, &config);
    *metrics.unknown.lock().expect("unknown lock") = c.unknown.clone();
    let mut writer = OutWriter::new(std::io::stdout().lock(), c.format, c.color, c.width).with_shape(c.shape.clone());
    let mut threads = opts.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    if (c.format == Format::Pretty && c.incidents.collapse) || c.unknown.is_some() {
        // Collapsing decides each repeat in input order, as it is written; clusters depend on
        // the order lines arrive in: one reader keeps it the input's.
        threads = 1;
    }
    let cfg = run_config(&c, opts.paths, threads, &metrics, tally);
    let result = source::run(&m, &cfg, &mut writer);
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

fn run_discover(args: &annotail::discover::Args, catalog: &[PathBuf], limits: framing::Limits) -> Status {
    use annotail::discover::{self, DiscoverFormat};
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
    let reports = match discover::discover(&m, args, limits) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("annotail: {e}");
            return Status::Failed;
        }
    };
    std::mem::forget(m);
    let mut out = std::io::stdout().lock();
    let mut text = String::new();
    match args.format {
        DiscoverFormat::Text => text = discover::text(&reports),
        DiscoverFormat::Json => {
            for r in &reports {
                text.push_str(&serde_json::to_string(r).expect("a report serialises"));
                text.push('\n');
            }
        }
        DiscoverFormat::Catalog => {
            let mut skipped = 0;
            for r in &reports {
                if !discover::draftable(&r.template) {
                    skipped += 1;
                    continue;
                }
                text.push_str(&discover::draft(r).to_string());
                text.push('\n');
            }
            if skipped > 0 {
                eprintln!(
                    "annotail: {skipped} cluster(s) without a constant word of 4 characters or more have no draft (see --format text)"
                );
            }
        }
    }
    match std::io::Write::write_all(&mut out, text.as_bytes()) {
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
fn run_to_sinks(
    opts: Opts,
    config: Config,
    m: Arc<Matcher>,
    sinks: Vec<annotail::sink::SinkSpec>,
    metrics: Arc<Metrics>,
    tally: Arc<annotail::metrics::Tally>,
) -> anyhow::Result<Status> {
    let c = common(&opts, &config);
    *metrics.unknown.lock().expect("unknown lock") = c.unknown.clone();
    let deadline = opts
        .follow_opts
        .shutdown_timeout
        .or(config.state.shutdown_timeout.map(|d| d.0))
        .unwrap_or(Duration::from_secs(10));
    let cfg = run_config(&c, opts.paths, 1, &metrics, tally);
    let (result, delivered) =
        annotail::sink::with_sinks(sinks, c.emit == Emit::All, deadline, metrics.clone(), |w| source::run(&m, &cfg, w))?;
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

/// What `check --config FILE` finds wrong in the config beyond its syntax (which loading it
/// checked): sinks that cannot work (errors), sources that name no file now (warnings: the
/// files may appear later).
fn config_problems(opts: &Opts, config: &Config, file: &std::path::Path) -> Vec<catalog::Problem> {
    use catalog::{Origin, Problem, ProblemKind};
    let origin = Origin { file: file.display().to_string(), line: 0 };
    let mut out = Vec::new();
    let format = common(opts, config).format;
    match sink_specs(opts, config, format) {
        Ok(specs) => {
            for p in sink_problems(opts, &specs) {
                out.push(Problem::new(Level::Error, &origin, None, ProblemKind::Config, p));
            }
        }
        Err(e) => out.push(Problem::new(Level::Error, &origin, None, ProblemKind::Config, e)),
    }
    for (i, s) in config.sources.iter().enumerate() {
        for p in &s.paths {
            if follow::watch::matches_nothing(p, &s.exclude) {
                let msg = format!("sources[{i}].paths: {p:?} matches no file now");
                out.push(Problem::new(Level::Warning, &origin, None, ProblemKind::Config, msg));
            }
        }
    }
    out
}

fn run_check(paths: &[PathBuf], format: CheckFormat, config_problems: Vec<catalog::Problem>) -> Status {
    let (m, mut problems, read, left_out) = load_naming_left_out(paths);
    problems.extend(check::compile_all(&m));
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
            let left = if left_out.is_empty() { String::new() } else { format!(" ({} left out, named above)", left_out.len()) };
            println!(
                "{read} record(s) read, {} usable{left}, {} in the prefilter, {} without a literal; {errors} error(s), {warnings} warning(s)",
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
                "records_left_out": left_out.len(),
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
