//! The command line's options for a run: what `annotail [OPTIONS] [PATH]...` takes (clap), each
//! overriding the config file's key of the same meaning ([`super::resolve`] merges them).
//!
//! Owns the options' names, their help text and their parsing; nothing here decides a default
//! or reads the config file. `main` flattens [`Cli`] into its parser beside the subcommands.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::config::{LogFormat, StartAt, WatchMode};
use crate::event::Format;

/// The options of a run (and the global ones: `--config`, `--log-level`, `--log-format`).
#[derive(Args, Debug, Clone, Default)]
pub struct Cli {
    /// Log files to read; '-' is standard input (the default). With --follow: files or globs
    /// to follow.
    pub paths: Vec<PathBuf>,

    /// Follow PATHs (files or quoted globs) as a daemon: across rotation, with checkpoints.
    /// Implied by a config file with [[sources]] when no PATH is given.
    #[arg(long)]
    pub follow: bool,

    /// Config file (TOML; see config/annotail.toml). Command-line options override it.
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub follow_opts: FollowArgs,

    #[command(flatten)]
    pub catalog: CatalogArgs,

    /// Output format [default: pretty when standard output is a terminal, json otherwise].
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// Write every event, not only known errors (`match` is null when nothing matched).
    #[arg(long)]
    pub all: bool,

    /// Complete a pending multi-line event after this many milliseconds without input
    /// (standard input, followed files). 0: an event is complete whenever the input pauses
    /// [default: 100].
    #[arg(long, value_name = "MS")]
    pub idle_timeout: Option<u64>,

    /// Cut lines longer than this many bytes; the event is marked truncated [default: 1048576].
    #[arg(long, value_name = "BYTES")]
    pub max_line_bytes: Option<usize>,

    /// Close a multi-line event after this many physical lines [default: 1000].
    #[arg(long, value_name = "N")]
    pub max_event_lines: Option<u32>,

    /// Threads for file input [default: the cores available]. Output stays in input order.
    /// Standard input is always read by one thread.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Which fields of a matched record events carry: default (all but the record's
    /// pass-through fields: source code, validation code, examples), all, none (id, slug and
    /// severity), or a comma-separated list of names [default: the config's
    /// output.record_fields, else default].
    #[arg(long, value_name = "FIELDS", value_parser = parse_record_fields)]
    pub record_fields: Option<crate::event::RecordFields>,

    /// Largest event in bytes (at least 1024); a larger one is cut to fit and stays valid JSON
    /// (README: event shaping) [default: the config's output.max_event_bytes, else no bound].
    #[arg(long, value_name = "BYTES", value_parser = parse_max_event_bytes)]
    pub max_event_bytes: Option<usize>,

    /// Colours in pretty output [default: auto: on a terminal, unless NO_COLOR is set].
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,

    /// At exit (end of input, Ctrl-C, SIGTERM), write a table of matches per severity and per
    /// record (and the top unknown clusters) to standard error.
    #[arg(long)]
    pub summary: bool,

    /// Pretty output annotates every occurrence in full: no collapse of repeats (incidents are
    /// still counted).
    #[arg(long)]
    pub no_collapse: bool,

    /// How long an incident lasts: repeats of a known error within this time of its first
    /// occurrence are collapsed and counted as one incident [default: 60s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub collapse_window: Option<Duration>,

    /// What makes two occurrences the same incident: a comma-separated list of record, captures,
    /// message, file, pod, namespace, container (the record is always part of it)
    /// [default: record,captures].
    #[arg(long, value_name = "PARTS", value_parser = crate::repeat::KeySpec::parse_list)]
    pub collapse_key: Option<crate::repeat::KeySpec>,
    #[command(flatten)]
    pub unknown: UnknownArgs,

    /// Serve Prometheus metrics at /metrics, liveness at /health and readiness at /ready on
    /// this address (e.g. 127.0.0.1:9464) [default: off, or the config's metrics.addr].
    #[arg(long, value_name = "ADDR")]
    pub metrics_addr: Option<std::net::SocketAddr>,

    /// Records with their own per-record metric series (the most matched); 0: none [default: 20].
    #[arg(long, value_name = "N")]
    pub metrics_top_records: Option<usize>,

    #[command(flatten)]
    pub diag: DiagArgs,
}

#[derive(Args, Debug, Clone, Default)]
pub struct CatalogArgs {
    /// A catalog file or directory; repeatable; later paths override earlier ones by record id;
    /// `@embedded` names the catalog embedded in the binary (`-c @embedded -c drafts.jsonl`).
    /// Default: the catalog embedded in the binary.
    #[arg(short = 'c', long = "catalog", value_name = "PATH")]
    pub catalog: Vec<PathBuf>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct UnknownArgs {
    /// Cluster the events no record explains, at these levels, into templates, and write them
    /// with an `unknown` field {cluster, template, count}: warn (WARN and ERROR), error, any
    /// (every event, with a level or not), off. With pretty or OTLP output files are then read
    /// by one thread [default: off, or the config's unknown.levels].
    #[arg(long, value_enum, value_name = "LEVELS")]
    pub unknown: Option<crate::unknown::Levels>,

    /// Clusters of unknown events kept at most (1 or more); at the cap the least recently seen
    /// sixteenth is dropped [default: 10000, or the config's unknown.max_clusters].
    #[arg(long, value_name = "N", value_parser = parse_cluster_cap, allow_negative_numbers = true)]
    pub unknown_max_clusters: Option<usize>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct DiagArgs {
    /// Level of annotail's own diagnostics on standard error (overrides RUST_LOG and the config)
    /// [default: info with --follow, warn otherwise].
    #[arg(long, value_name = "LEVEL", global = true)]
    pub log_level: Option<String>,

    /// Format of annotail's own diagnostics on standard error [default: text].
    #[arg(long, value_enum, value_name = "FORMAT", global = true)]
    pub log_format: Option<LogFormat>,
}

/// Follow mode options; each overrides the config file's key of the same name.
#[derive(Args, Debug, Clone, Default)]
pub struct FollowArgs {
    /// Directory for checkpoints [default: $STATE_DIRECTORY (systemd), else /var/lib/annotail].
    #[arg(long, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,

    /// Where a file found at start without a checkpoint is read from; files that appear later
    /// are always read from their beginning [default: beginning].
    #[arg(long, value_enum, value_name = "WHERE")]
    pub start_at: Option<StartAt>,

    /// How changes are noticed [default: auto].
    #[arg(long, value_enum, value_name = "MODE")]
    pub watch: Option<WatchMode>,

    /// Poll interval: how often globs are expanded and files checked without events
    /// [default: 1s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub poll_interval: Option<Duration>,

    /// A last line without its line break is held this long for the rest [default: 1s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub line_timeout: Option<Duration>,

    /// A rotated or deleted file is read until it has been quiet this long [default: 5s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub rotate_wait: Option<Duration>,

    /// Files the followed globs match that are not followed: a glob without '/' is matched
    /// against the file name ('*.old'), one with '/' against the whole path; repeatable
    /// [default: none, or each source's exclude]. Compressed files are never followed.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Where events go: -, file:PATH, tcp://HOST:PORT, unix:PATH, syslog+tcp://HOST:PORT,
    /// http(s)://URL, otlp+http(s)://HOST:PORT[/v1/logs]; repeatable [default: -, or the
    /// config's [[sinks]]].
    #[arg(long = "output", value_name = "URL")]
    pub outputs: Vec<String>,

    /// Only events whose record's severity is at least this, for the --output sinks.
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub min_severity: Option<crate::sink::Severity>,

    /// When a sink's queue is full: block (reading pauses) or drop (counted and logged)
    /// [default: block].
    #[arg(long, value_enum, value_name = "WHAT")]
    pub when_full: Option<crate::sink::WhenFull>,

    /// Checkpoints are written when an acknowledgement changes them, at most this often; bounds
    /// the events repeated after a crash [default: 100ms].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub checkpoint_interval: Option<Duration>,

    /// With --unknown, the clusters are written to the state directory at most this often (and
    /// when the daemon stops); a kill -9 loses at most this much of their counts [default: 60s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub clusters_interval: Option<Duration>,

    /// On SIGTERM/SIGINT, how long to wait for the output to take what was read [default: 10s].
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    pub shutdown_timeout: Option<Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Color {
    #[default]
    Auto,
    Always,
    Never,
}

/// `--record-fields`: a word or a comma-separated list.
pub fn parse_record_fields(s: &str) -> Result<crate::event::RecordFields, String> {
    let words: Vec<String> = s.split(',').map(|w| w.trim().to_owned()).collect();
    let single = words.len() == 1 && ["all", "none", "default"].contains(&words[0].as_str());
    crate::event::RecordFields::parse(&words, single)
}

/// A cap on clusters: a whole number, 1 or more. A negative one is read as the value it is (clap
/// took `-1` for an option and suggested `-- -1`, which then left the option without a value),
/// and refused by what the cap takes.
pub fn parse_cluster_cap(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{s:?}: a whole number of clusters, 1 or more")),
    }
}

pub fn parse_max_event_bytes(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{s:?}: {e}"))?;
    if n < crate::event::MIN_EVENT_BYTES {
        return Err(format!(
            "{n} is too small; at least {} (room for the event's envelope)",
            crate::event::MIN_EVENT_BYTES
        ));
    }
    Ok(n)
}
