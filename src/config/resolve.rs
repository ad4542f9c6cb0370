//! Resolution: the command line ([`Cli`]) over the config file ([`Config`]), merged into one
//! value and checked before anything starts.
//!
//! Owns every precedence rule (an option, else the file's key, else the default), every
//! default of a run, and the checks that need both sides: the sinks (URLs, TLS CA files,
//! headers, a file sink's directory), the followed globs, the state directory (it exists or can
//! be made, and a file can be made in it). What the file alone can get wrong is refused when it
//! is loaded ([`Config::parse`]), with its line.
//!
//! Contract: [`Config::resolve`] returns the [`Resolved`] a run is started from, or the first
//! [`ResolveError`]. It starts nothing, binds no address and opens no input (in follow mode it
//! makes the state directory when missing, as the daemon would): the runtime, the
//! metrics endpoint, the sinks and the readers start from what it returns, so whatever it
//! refuses is refused before any of them. `check --config` reports the same sink and source
//! problems as a list ([`Config::problems`]); a follow-mode reload takes the merge without the
//! checks ([`Config::follow_settings`]): its sinks and state directory are the running ones.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::cli::{Cli, Color};
use super::{Config, LogFormat, StartAt, WatchMode};
use crate::annotate::Emit;
use crate::catalog::{self, Level};
use crate::event::{Format, Shape};
use crate::framing;
use crate::repeat::{Incidents, KeySpec};
use crate::sink::{SinkSpec, TargetError};
use crate::source::follow::checkpoint::StateError;
use crate::source::{self, follow};
use crate::stage::Setup;

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
/// The unknown clusters' file holds every cluster alive (1.6 MB at the default cap): written
/// with every checkpoint, a trickle of unknown events rewrote and fsynced it nearly every
/// 100 ms (196 MB in 21 s, found by a second reader). Once a minute is at most 2.3 GB a day at
/// the cap with a change every minute, and a kill -9 loses at most a minute of counts (ids do
/// not depend on them).
const DEFAULT_CLUSTERS_INTERVAL: Duration = Duration::from_secs(60);

/// A pending multi-line event is complete after this long without input: `kubectl logs -f`
/// writes an event's lines together, well within it, and a person watching does not wait.
const DEFAULT_IDLE: Duration = Duration::from_millis(100);

const DEFAULT_LINE_TIMEOUT: Duration = Duration::from_secs(1);
const DEFAULT_ROTATE_WAIT: Duration = Duration::from_secs(5);
const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// A run, resolved: everything `main` starts, decided and checked.
#[derive(Debug)]
pub struct Resolved {
    /// Catalog files and directories; empty: the embedded catalog.
    pub catalog: Vec<PathBuf>,
    pub metrics: MetricsSettings,
    /// `--summary`: the table at exit.
    pub summary: bool,
    pub mode: Mode,
}

/// The metrics registry and its endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsSettings {
    /// Where `/metrics`, `/health` and `/ready` are served; none: no endpoint.
    pub addr: Option<std::net::SocketAddr>,
    /// Records with their own per-record series.
    pub top_records: usize,
}

#[derive(Debug)]
pub enum Mode {
    /// Standard input or files, read to their end.
    Read(Read),
    /// Files followed as a daemon.
    Follow(follow::Settings),
}

/// A run of inputs to their end.
#[derive(Debug)]
pub struct Read {
    /// The inputs and how each is staged. Its `stage.metrics` and `stage.tally` are the run's,
    /// set by the caller once the metrics and the catalog exist.
    pub run: source::RunConfig,
    /// Standard output's format when it is the output.
    pub format: Format,
    /// Where events go; empty: standard output.
    pub sinks: Vec<SinkSpec>,
    /// How long the sinks have to take what was read once the input ended.
    pub shutdown_timeout: Duration,
}

/// annotail's own diagnostics on standard error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Log {
    /// `--log-level`: overrides `RUST_LOG` and the file.
    pub level: Option<String>,
    /// The filter when neither `--log-level` nor `RUST_LOG` says: the file's, else the mode's.
    pub fallback: String,
    pub format: LogFormat,
}

/// What cannot work, found before anything starts. Each message names where the value came
/// from (an option, a key of the file) and is one line, except [`ResolveError::Sinks`]: one
/// line per problem.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("--output {0}")]
    Output(TargetError),
    /// A `[[sinks]]` URL (the file's loading refuses a bad one, with its index, first).
    #[error("{0}")]
    SinkUrl(TargetError),
    #[error("{}", lines(.0))]
    Sinks(Vec<SinkProblem>),
    #[error("--follow needs at least one PATH (or [[sources]] in the config file)")]
    NoSources,
    #[error("{pattern:?} is not a valid glob: {source}")]
    Glob { pattern: String, source: glob::PatternError },
    /// The state directory cannot be made or written (the store's own error).
    #[error(transparent)]
    StateDir(StateError),
}

/// A sink's problem that retrying cannot fix ([`SinkSpec::problems`]), with where the sink
/// was configured (`--output URL`, `sinks[i] (URL)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinkProblem {
    pub at: String,
    pub problem: String,
}

impl std::fmt::Display for SinkProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.problem)
    }
}

fn lines(problems: &[SinkProblem]) -> String {
    problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n")
}

/// Output and framing choices shared by both modes.
struct Common {
    format: Format,
    color: bool,
    width: usize,
    idle: Duration,
    stage: Setup,
    /// Standard output's shaping, and every sink's unless it has its own.
    shape: Arc<Shape>,
}

impl Config {
    /// The run `cli` asks for over this file, merged and checked; see the module's contract.
    pub fn resolve(cli: &Cli, file: &Config) -> Result<Resolved, ResolveError> {
        let mode = if file.follows(cli) {
            let settings = file.follow_settings(cli)?;
            checked(cli, &settings.sinks)?;
            if settings.sources.is_empty() {
                return Err(ResolveError::NoSources);
            }
            for s in &settings.sources {
                for p in std::iter::once(&s.pattern).chain(&s.exclude) {
                    glob::Pattern::new(p).map_err(|source| ResolveError::Glob { pattern: p.clone(), source })?;
                }
            }
            usable_state_dir(&settings.state_dir).map_err(ResolveError::StateDir)?;
            Mode::Follow(settings)
        } else {
            Mode::Read(file.read(cli)?)
        };
        Ok(Resolved {
            catalog: file.catalog_paths(&cli.catalog.catalog),
            metrics: MetricsSettings {
                addr: cli.metrics_addr.or(file.metrics.addr),
                top_records: cli
                    .metrics_top_records
                    .or(file.metrics.top_records)
                    .unwrap_or(crate::metrics::DEFAULT_TOP_RECORDS),
            },
            summary: cli.summary,
            mode,
        })
    }

    /// Whether `cli` follows files: `--follow`, or no PATH and `[[sources]]` in the file.
    pub fn follows(&self, cli: &Cli) -> bool {
        cli.follow || (cli.paths.is_empty() && !self.sources.is_empty())
    }

    /// annotail's diagnostics: info by default when following, warn otherwise.
    pub fn log(&self, cli: &Cli, following: bool) -> Log {
        let default = if following { "info" } else { "warn" };
        Log {
            level: cli.diag.log_level.clone(),
            fallback: self.log.level.clone().unwrap_or_else(|| default.to_owned()),
            format: cli.diag.log_format.or(self.log.format).unwrap_or(LogFormat::Text),
        }
    }

    /// The catalog paths: the command line's, else the file's (else, empty, the embedded one).
    pub fn catalog_paths(&self, cli: &[PathBuf]) -> Vec<PathBuf> {
        if cli.is_empty() { self.catalog.clone() } else { cli.to_vec() }
    }

    /// Framing limits: the command line's, else the file's `[input]`, else the defaults.
    pub fn framing(&self, cli: &Cli) -> framing::Limits {
        let (d, input) = (framing::Limits::default(), &self.input);
        framing::Limits {
            max_line_bytes: cli.max_line_bytes.or(input.max_line_bytes).unwrap_or(d.max_line_bytes).max(1),
            max_event_lines: cli.max_event_lines.or(input.max_event_lines).unwrap_or(d.max_event_lines).max(1),
            ..d
        }
    }

    /// The follow-mode settings, merged but not checked (what a reload applies: its sinks and
    /// state directory are the running daemon's). `Err` only for a sink URL that names no sink.
    pub fn follow_settings(&self, cli: &Cli) -> Result<follow::Settings, ResolveError> {
        let c = self.common(cli);
        let (f, input, state) = (&cli.follow_opts, &self.input, &self.state);
        let start_at = f.start_at.or(input.start_at).unwrap_or(StartAt::Beginning);
        let sources = if cli.follow && !cli.paths.is_empty() {
            let exclude: Vec<String> =
                f.exclude.iter().map(|e| if e.contains('/') { absolute(Path::new(e)) } else { e.clone() }).collect();
            cli.paths
                .iter()
                .map(|p| follow::SourceSpec { pattern: absolute(p), start_at, exclude: exclude.clone() })
                .collect()
        } else {
            self.sources
                .iter()
                .flat_map(|s| {
                    let start_at = f.start_at.or(s.start_at).unwrap_or(start_at);
                    let exclude = if f.exclude.is_empty() { s.exclude.clone() } else { f.exclude.clone() };
                    s.paths.iter().map(move |p| follow::SourceSpec {
                        pattern: p.clone(),
                        start_at,
                        exclude: exclude.clone(),
                    })
                })
                .collect()
        };
        let (state_dir, state_dir_origin) = self.state_dir(cli);
        let dur = |cli: Option<Duration>, cfg: Option<super::Dur>, default: Duration| {
            cli.or(cfg.map(|d| d.0)).unwrap_or(default)
        };
        let sinks = self.sinks(cli, c.format, &c.shape, &state_dir)?;
        Ok(follow::Settings {
            sources,
            watch: f.watch.or(input.watch).unwrap_or(WatchMode::Auto),
            poll_interval: dur(f.poll_interval, input.poll_interval, DEFAULT_POLL).max(Duration::from_millis(1)),
            idle: c.idle,
            line_timeout: dur(f.line_timeout, input.line_timeout, DEFAULT_LINE_TIMEOUT),
            rotate_wait: dur(f.rotate_wait, input.rotate_wait, DEFAULT_ROTATE_WAIT),
            checkpoint_interval: dur(f.checkpoint_interval, state.checkpoint_interval, DEFAULT_CHECKPOINT_INTERVAL)
                .max(Duration::from_millis(1)),
            clusters_interval: dur(f.clusters_interval, state.clusters_interval, DEFAULT_CLUSTERS_INTERVAL)
                .max(Duration::from_millis(1)),
            shutdown_timeout: dur(f.shutdown_timeout, state.shutdown_timeout, DEFAULT_SHUTDOWN_TIMEOUT),
            state_dir,
            state_dir_origin,
            stage: c.stage,
            format: c.format,
            color: c.color,
            width: c.width,
            sinks,
            shape: c.shape,
            watch_config: self.catalog_paths(&cli.catalog.catalog).into_iter().chain(cli.config.clone()).collect(),
        })
    }

    /// What `check --config FILE` finds wrong beyond the file's syntax (which loading it
    /// checked): sinks that cannot work (errors), sources that name no file now (warnings: the
    /// files may appear later).
    pub fn problems(&self, cli: &Cli, file: &Path) -> Vec<catalog::Problem> {
        use catalog::{Origin, Problem, ProblemKind};
        let origin = Origin { file: file.display().to_string(), line: 0 };
        let mut out = Vec::new();
        let c = self.common(cli);
        match self.sink_specs(cli, c.format, &c.shape) {
            Ok(specs) => {
                for p in sink_problems(cli, &specs) {
                    out.push(Problem::new(Level::Error, &origin, None, ProblemKind::Config, p.to_string()));
                }
            }
            Err(e) => out.push(Problem::new(Level::Error, &origin, None, ProblemKind::Config, e.to_string())),
        }
        for (i, s) in self.sources.iter().enumerate() {
            for p in &s.paths {
                if follow::watch::matches_nothing(p, &s.exclude) {
                    let msg = format!("sources[{i}].paths: {p:?} matches no file now");
                    out.push(Problem::new(Level::Warning, &origin, None, ProblemKind::Config, msg));
                }
            }
        }
        out
    }

    /// A run of inputs to their end, with its sinks checked.
    fn read(&self, cli: &Cli) -> Result<Read, ResolveError> {
        let c = self.common(cli);
        let sinks = self.sinks(cli, c.format, &c.shape, &self.state_dir(cli).0)?;
        checked(cli, &sinks)?;
        let threads = if !sinks.is_empty() {
            // The sinks take events in input order from one reader.
            1
        } else if (c.format == Format::Pretty && c.stage.incidents.as_ref().is_some_and(|i| i.collapse))
            || (c.stage.unknown.is_some() && !matches!(c.format, Format::Json | Format::Ecs))
        {
            // Collapsing decides each repeat in input order, as it is written; clusters depend on
            // the order lines arrive in. Several threads cluster only for JSON and ECS output,
            // whose reader clusters the workers' unknown events in input order and splices their
            // `unknown` objects in (JSON) or completes and renders their events (ECS), bounding
            // them to --max-event-bytes there; pretty and OTLP output keep one reader.
            1
        } else {
            cli.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
        };
        let shutdown_timeout = cli
            .follow_opts
            .shutdown_timeout
            .or(self.state.shutdown_timeout.map(|d| d.0))
            .unwrap_or(DEFAULT_SHUTDOWN_TIMEOUT);
        Ok(Read {
            run: source::RunConfig {
                threads,
                color: c.color,
                width: c.width,
                paths: cli.paths.clone(),
                stage: c.stage,
                idle: c.idle,
                line_timeout: cli
                    .follow_opts
                    .line_timeout
                    .or(self.input.line_timeout.map(|d| d.0))
                    .unwrap_or(DEFAULT_LINE_TIMEOUT),
                shape: c.shape,
            },
            format: c.format,
            sinks,
            shutdown_timeout,
        })
    }

    fn common(&self, cli: &Cli) -> Common {
        let tty = std::io::stdout().is_terminal();
        let format = cli.format.or(self.output.format).unwrap_or(if tty { Format::Pretty } else { Format::Json });
        let color = match cli.color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        };
        let all = cli.all || self.output.all.unwrap_or(false);
        let levels = cli.unknown.unknown.or(self.unknown.levels).unwrap_or_default();
        let cap = cli.unknown.unknown_max_clusters.or(self.unknown.max_clusters).unwrap_or(crate::unknown::DEFAULT_CAP);
        let unknown = levels.is_on().then(|| crate::unknown::Shared::new(levels, cap));
        let every_unknown = levels == crate::unknown::Levels::Any;
        let incidents = Incidents::new(
            cli.collapse_key.clone().unwrap_or_else(|| {
                // Checked when the file was loaded.
                self.output
                    .collapse_key
                    .as_deref()
                    .map_or_else(Default::default, |k| KeySpec::parse_all(k).unwrap_or_default())
            }),
            cli.collapse_window.or(self.output.collapse_window.map(|d| d.0)).unwrap_or(crate::repeat::DEFAULT_WINDOW),
            !cli.no_collapse && self.output.collapse.unwrap_or(true),
        );
        Common {
            format,
            color,
            width: width(),
            idle: cli
                .idle_timeout
                .map(Duration::from_millis)
                .or(self.input.idle_timeout.map(|d| d.0))
                .unwrap_or(DEFAULT_IDLE),
            stage: Setup {
                emit: if all { Emit::All } else { Emit::Matches },
                every_event: all || format == Format::Pretty || every_unknown,
                framing: self.framing(cli),
                tally: None,
                incidents: Some(Arc::new(incidents)),
                unknown,
                metrics: None,
            },
            shape: Arc::new(Shape {
                fields: cli
                    .record_fields
                    .clone()
                    .or(self.output.record_fields.clone().map(|f| f.0))
                    .unwrap_or_default(),
                max_event_bytes: cli.max_event_bytes.or(self.output.max_event_bytes),
            }),
        }
    }

    /// The state directory (checkpoints, dead-letter files) and what chose it.
    fn state_dir(&self, cli: &Cli) -> (PathBuf, &'static str) {
        match (&cli.follow_opts.state_dir, &self.state.dir) {
            (Some(d), _) => (d.clone(), "--state-dir"),
            (None, Some(d)) => (d.clone(), "state.dir"),
            (None, None) => default_state_dir(),
        }
    }

    /// The sinks, each with its dead-letter directory in `state_dir`.
    fn sinks(
        &self,
        cli: &Cli,
        format: Format,
        shape: &Arc<Shape>,
        state_dir: &Path,
    ) -> Result<Vec<SinkSpec>, ResolveError> {
        let mut specs = self.sink_specs(cli, format, shape)?;
        let dead_letter = state_dir.join("dead-letter");
        for s in &mut specs {
            s.dead_letter_dir = Some(dead_letter.clone());
        }
        Ok(specs)
    }

    /// The sinks from --output (which replace the file's) or the file's [[sinks]]; none when
    /// standard output, unfiltered, is the output.
    fn sink_specs(&self, cli: &Cli, format: Format, shape: &Arc<Shape>) -> Result<Vec<SinkSpec>, ResolveError> {
        let stream_format = if format == Format::Pretty { Format::Json } else { format };
        let f = &cli.follow_opts;
        if f.outputs.is_empty() && self.sinks.is_empty() {
            // Standard output is the output: a filter applies to it as to any sink.
            return match f.min_severity {
                Some(min) => {
                    let mut s = SinkSpec::new("-", format).map_err(ResolveError::SinkUrl)?;
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
                    let mut s = SinkSpec::new(u, fmt).map_err(ResolveError::Output)?;
                    s.shape = shape.clone();
                    s.min_severity = f.min_severity;
                    s.when_full = f.when_full.unwrap_or(s.when_full);
                    Ok(s)
                })
                .collect();
        }
        self.sinks
            .iter()
            .map(|k| {
                let fmt = k.format.unwrap_or(if k.url == "-" { format } else { stream_format });
                let mut s = SinkSpec::new(&k.url, fmt).map_err(ResolveError::SinkUrl)?;
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
                s.dedupe = k.dedupe.as_ref().map(|d| crate::sink::dedupe::DedupeSpec {
                    window: d.window.map_or(crate::repeat::DEFAULT_WINDOW, |w| w.0),
                    // Checked when the file was loaded.
                    key: d.key.as_deref().map_or_else(Default::default, |k| KeySpec::parse_all(k).unwrap_or_default()),
                });
                s.shape = if k.record_fields.is_none() && k.max_event_bytes.is_none() {
                    shape.clone()
                } else {
                    Arc::new(Shape {
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
}

/// `specs`, or every problem they have.
fn checked(cli: &Cli, specs: &[SinkSpec]) -> Result<(), ResolveError> {
    let problems = sink_problems(cli, specs);
    if problems.is_empty() { Ok(()) } else { Err(ResolveError::Sinks(problems)) }
}

/// Every sink's problems that retrying cannot fix, each named by where the sink was configured.
fn sink_problems(cli: &Cli, specs: &[SinkSpec]) -> Vec<SinkProblem> {
    let from_cli = !cli.follow_opts.outputs.is_empty();
    specs
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let at = if from_cli { format!("--output {}", s.url) } else { format!("sinks[{i}] ({})", s.url) };
            s.problems().into_iter().map(move |problem| SinkProblem { at: at.clone(), problem })
        })
        .collect()
}

/// The state directory can hold checkpoints: it exists or can be made, and a file can be made
/// in it. Its lock and its checkpoints are the store's, opened when the daemon starts
/// ([`follow::checkpoint::Store::open`], which reports another daemon holding the lock). The
/// error is the store's own, so that it reads the same whichever finds it.
fn usable_state_dir(dir: &Path) -> Result<(), StateError> {
    let err = |source| StateError::Dir { dir: dir.to_owned(), source };
    std::fs::create_dir_all(dir).map_err(err)?;
    // A name of this process's own: a daemon already using the directory is not disturbed.
    let probe = dir.join(format!(".probe-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(err)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
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

/// Globs are matched as absolute paths (a daemon's working directory is not the user's).
fn absolute(p: &Path) -> String {
    let abs = if p.is_absolute() { p.to_owned() } else { std::env::current_dir().unwrap_or_default().join(p) };
    abs.to_string_lossy().into_owned()
}

/// Columns for wrapping: $COLUMNS when set; else the terminal's width, read again at each
/// annotation ([`crate::event::TERMINAL_WIDTH`]).
pub fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|&w: &usize| w > 0)
        .unwrap_or(crate::event::TERMINAL_WIDTH)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> Config {
        Config::parse(text, Path::new("/etc/annotail/annotail.toml")).expect("a valid file")
    }

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn an_option_wins_over_the_file_and_the_file_over_the_default() {
        let set = "[input]\npoll_interval = \"2s\"\nline_timeout = \"3s\"\nrotate_wait = \"4s\"\nidle_timeout = \"5s\"\n\
                   [state]\ncheckpoint_interval = \"6s\"\nshutdown_timeout = \"7s\"\n";
        let mut cli = Cli::default();
        let f = file("").follow_settings(&cli).unwrap();
        let got = (f.poll_interval, f.line_timeout, f.rotate_wait, f.idle, f.checkpoint_interval, f.shutdown_timeout);
        assert_eq!(got, (secs(1), secs(1), secs(5), Duration::from_millis(100), Duration::from_millis(100), secs(10)));
        let f = file(set).follow_settings(&cli).unwrap();
        let got = (f.poll_interval, f.line_timeout, f.rotate_wait, f.idle, f.checkpoint_interval, f.shutdown_timeout);
        assert_eq!(got, (secs(2), secs(3), secs(4), secs(5), secs(6), secs(7)));
        let o = &mut cli.follow_opts;
        (o.poll_interval, o.line_timeout, o.rotate_wait) = (Some(secs(12)), Some(secs(13)), Some(secs(14)));
        (o.checkpoint_interval, o.shutdown_timeout) = (Some(secs(16)), Some(secs(17)));
        cli.idle_timeout = Some(15_000);
        let f = file(set).follow_settings(&cli).unwrap();
        let got = (f.poll_interval, f.line_timeout, f.rotate_wait, f.idle, f.checkpoint_interval, f.shutdown_timeout);
        assert_eq!(got, (secs(12), secs(13), secs(14), secs(15), secs(16), secs(17)));
    }

    #[test]
    fn where_sources_come_from() {
        let text = "[input]\nstart_at = \"end\"\n[[sources]]\npaths = [\"/a/*.log\"]\nexclude = [\"*.old\"]\n\
                    [[sources]]\npaths = [\"/b/*.log\"]\nstart_at = \"beginning\"\n";
        let cfg = file(text);
        let spec = |s: &follow::SourceSpec| (s.pattern.clone(), s.start_at, s.exclude.clone());
        let sources = |cli: &Cli| cfg.follow_settings(cli).unwrap().sources.iter().map(spec).collect::<Vec<_>>();
        let mut cli = Cli::default();
        assert_eq!(
            sources(&cli),
            [
                ("/a/*.log".into(), StartAt::End, vec!["*.old".to_owned()]),
                ("/b/*.log".into(), StartAt::Beginning, vec![])
            ]
        );
        // --exclude and --start-at replace every source's own.
        cli.follow_opts.exclude = vec!["*.gz".into()];
        cli.follow_opts.start_at = Some(StartAt::Beginning);
        assert!(sources(&cli).iter().all(|(_, at, ex)| *at == StartAt::Beginning && ex == &["*.gz"]));
        // PATHs with --follow replace the file's sources, made absolute (a path glob too).
        cli.follow = true;
        cli.paths = vec![PathBuf::from("rel/*.log")];
        cli.follow_opts.exclude = vec!["x/*.old".into(), "*.gz".into()];
        cli.follow_opts.start_at = None;
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            sources(&cli),
            [(
                cwd.join("rel/*.log").display().to_string(),
                StartAt::End,
                vec![cwd.join("x/*.old").display().to_string(), "*.gz".to_owned()]
            )]
        );
    }

    #[test]
    fn follow_mode_is_chosen_by_the_option_or_by_sources_without_paths() {
        let with_sources = file("[[sources]]\npaths = [\"/a/*.log\"]\n");
        let cases = [
            (false, false, false, false),
            (false, true, false, true),
            (false, true, true, false),
            (true, false, false, true),
            (true, true, true, true),
        ];
        for (follow, sources, paths, want) in cases {
            let cli = Cli { follow, paths: if paths { vec!["x.log".into()] } else { vec![] }, ..Cli::default() };
            let cfg = if sources { &with_sources } else { &Config::default() };
            assert_eq!(cfg.follows(&cli), want, "follow {follow}, sources {sources}, paths {paths}");
        }
    }

    #[test]
    fn framing_limits_and_the_state_directory() {
        let cfg = file("[input]\nmax_line_bytes = 100\nmax_event_lines = 3\n[state]\ndir = \"st\"\n");
        let mut cli = Cli::default();
        let d = framing::Limits::default();
        let l = Config::default().framing(&cli);
        assert_eq!((l.max_line_bytes, l.max_event_lines), (d.max_line_bytes, d.max_event_lines));
        let l = cfg.framing(&cli);
        assert_eq!((l.max_line_bytes, l.max_event_lines), (100, 3));
        (cli.max_line_bytes, cli.max_event_lines) = (Some(0), Some(9));
        let l = cfg.framing(&cli);
        assert_eq!((l.max_line_bytes, l.max_event_lines), (1, 9), "0 from the command line is the least, 1");
        assert_eq!(cfg.state_dir(&cli), (PathBuf::from("/etc/annotail/st"), "state.dir"));
        cli.follow_opts.state_dir = Some("/x".into());
        assert_eq!(cfg.state_dir(&cli), (PathBuf::from("/x"), "--state-dir"));
    }

    #[test]
    fn log_level_and_format() {
        let cfg = file("[log]\nlevel = \"debug\"\nformat = \"json\"\n");
        let mut cli = Cli::default();
        let want = |level: Option<&str>, fallback: &str, format| Log {
            level: level.map(Into::into),
            fallback: fallback.into(),
            format,
        };
        assert_eq!(Config::default().log(&cli, true), want(None, "info", LogFormat::Text));
        assert_eq!(Config::default().log(&cli, false), want(None, "warn", LogFormat::Text));
        assert_eq!(cfg.log(&cli, true), want(None, "debug", LogFormat::Json));
        cli.diag.log_level = Some("trace".into());
        cli.diag.log_format = Some(LogFormat::Text);
        assert_eq!(cfg.log(&cli, true), want(Some("trace"), "debug", LogFormat::Text));
    }

    #[test]
    fn follow_mode_needs_a_source_and_a_usable_state_directory() {
        let dir = tempfile::tempdir().unwrap();
        let mut cli = Cli { follow: true, ..Cli::default() };
        cli.follow_opts.state_dir = Some(dir.path().join("state"));
        assert!(matches!(Config::resolve(&cli, &Config::default()), Err(ResolveError::NoSources)));
        assert!(!dir.path().join("state").exists(), "nothing made for a run refused before");
        cli.paths = vec![dir.path().join("*.log")];
        let r = Config::resolve(&cli, &Config::default()).unwrap();
        assert!(matches!(r.mode, Mode::Follow(_)));
        assert!(dir.path().join("state").is_dir(), "made");
        assert_eq!(std::fs::read_dir(dir.path().join("state")).unwrap().count(), 0, "the probe is removed");
        std::fs::write(dir.path().join("file"), b"").unwrap();
        cli.follow_opts.state_dir = Some(dir.path().join("file/state"));
        let e = Config::resolve(&cli, &Config::default()).unwrap_err();
        assert!(matches!(e, ResolveError::StateDir(StateError::Dir { .. })), "{e}");
        assert!(
            e.to_string().starts_with(&format!("cannot use state directory {}/file/state: ", dir.path().display())),
            "{e}"
        );
    }

    #[test]
    fn threads_and_sinks_of_a_run_to_the_end() {
        let read = |cli: &Cli, cfg: &Config| match Config::resolve(cli, cfg).unwrap().mode {
            Mode::Read(r) => r,
            Mode::Follow(_) => panic!("not a follow run"),
        };
        let mut cli = Cli { threads: Some(3), format: Some(Format::Json), ..Cli::default() };
        assert_eq!(read(&cli, &Config::default()).run.threads, 3);
        assert!(read(&cli, &Config::default()).sinks.is_empty(), "standard output");
        cli.unknown.unknown = Some(crate::unknown::Levels::Warn);
        assert_eq!(read(&cli, &Config::default()).run.threads, 3, "JSON: the reader clusters in input order");
        cli.format = Some(Format::Ecs);
        assert_eq!(read(&cli, &Config::default()).run.threads, 3, "ECS: the reader completes the events");
        cli.max_event_bytes = Some(4096);
        assert_eq!(read(&cli, &Config::default()).run.threads, 3, "ECS: the reader bounds the events it completes");
        cli.max_event_bytes = None;
        for other in [Format::Pretty, Format::Otlp] {
            cli.format = Some(other);
            assert_eq!(read(&cli, &Config::default()).run.threads, 1, "{other:?}: one reader keeps the input's order");
        }
        cli.format = Some(Format::Json);
        cli.max_event_bytes = Some(4096);
        assert_eq!(read(&cli, &Config::default()).run.threads, 3, "JSON: the reader bounds the events it splices");
        cli.max_event_bytes = None;
        cli.unknown.unknown = None;
        let cfg = file("[[sinks]]\nurl = \"tcp://127.0.0.1:9\"\n");
        let r = read(&cli, &cfg);
        assert_eq!((r.run.threads, r.sinks.len()), (1, 1));
        cli.follow_opts.outputs = vec!["-".into(), "tcp://127.0.0.1:8".into()];
        let r = read(&cli, &cfg);
        assert_eq!(
            r.sinks.iter().map(|s| s.url.as_str()).collect::<Vec<_>>(),
            ["-", "tcp://127.0.0.1:8"],
            "--output replaces"
        );
        assert!(r.sinks.iter().all(|s| s.dead_letter_dir.as_ref().is_some_and(|d| d.ends_with("dead-letter"))));
    }
}
