//! Operational metrics: what annotail has read, matched and delivered, in Prometheus form.
//!
//! Owns the [`Metrics`] registry (built on `prometheus-client`, which does the encoding) and
//! the per-record [`Tally`]. Contract:
//! - Updating is cheap and synchronous: counters are atomics, updated by the reader per read
//!   (not per line) and by the sinks per batch. The matcher core never sees this module; the
//!   annotator bumps one atomic per matched record through [`Tally::add`].
//! - Values that are cheaper to compute when asked (record top-K, per-severity totals, file
//!   lag, checkpoint age) are filled in by [`Metrics::encode`] just before encoding.
//! - Label sets are bounded: sources are the configured globs (or `stdin`, or the path read
//!   to its end), sinks the configured outputs, files the ones followed now (a file's series is
//!   removed when it is dropped), records the top [`Metrics::top_records`] by matches.
//! - Besides annotail's own series (prefix `annotail_`, with `annotail_build_info`), the
//!   process's: `process_cpu_seconds_total`, `process_resident_memory_bytes`,
//!   `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds` and
//!   `process_start_time_seconds`, under the names every Prometheus client library uses (read
//!   from /proc at each scrape).
//!
//! The HTTP endpoint that serves them is [`serve`] (the tokio edge).

pub mod serve;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::info::Info;
use prometheus_client::registry::Registry;

use crate::matcher::Matcher;

/// Records exported one by one by default: enough to see the errors that matter on a dashboard,
/// few enough that a noisy catalog cannot blow up the series count (4,350 records).
pub const DEFAULT_TOP_RECORDS: usize = 20;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SourceLabel {
    pub source: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SeverityLabel {
    pub severity: String,
}

/// The `level` labels of `annotail_unknown_events_total` ([`crate::unknown::level_label`]).
const UNKNOWN_LABELS: [&str; 5] = ["error", "warn", "info", "debug", "none"];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LevelLabel {
    pub level: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RecordLabel {
    pub record: String,
    /// The record's slug (its id when it has none): readable on a dashboard.
    pub slug: String,
    pub severity: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BuildLabel {
    pub version: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SinkLabel {
    pub sink: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SinkResultLabel {
    pub sink: String,
    pub result: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct PathLabel {
    pub path: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabel {
    pub result: &'static str,
}

/// One source's read counters (clones share the values).
#[derive(Debug, Clone, Default)]
pub struct SourceMetrics {
    lines: Counter,
    bytes: Counter,
}

/// One sink's counters (clones share the values).
#[derive(Debug, Clone, Default)]
pub struct SinkMetrics {
    pub sent: Counter,
    pub failed: Counter,
    /// Batches split in two after the receiver refused them whole (400, 413, 422).
    pub split: Counter,
    pub retries: Counter,
    pub dropped: Counter,
    pub queued: Gauge,
    /// Events a receiver refused one by one, parked in the dead-letter file.
    pub dead_letter: Counter,
    /// The process-wide count of dead-lettered events (the exit status).
    pub dead_letter_all: Arc<AtomicU64>,
    /// Summaries a sink's `dedupe` sent, and the repeats they counted.
    pub dedupe_summaries: Counter,
    pub dedupe_held: Counter,
    /// Records an OTLP receiver rejected in a partial success.
    pub rejected: Counter,
    /// The process-wide count of those (the exit status).
    pub rejected_all: Arc<AtomicU64>,
}

/// A sink URL without its user information (`https://user:secret@host/` → `https://host/`).
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}{}", &url[..scheme + 3], &url[at + 1..]),
        _ => url.to_owned(),
    }
}

/// Matches per catalog entry of one matcher (indexed like [`Matcher::entries`]).
#[derive(Debug)]
pub struct Tally {
    counts: Vec<AtomicU64>,
    /// Per entry: incidents (first occurrences of a key within the repeat window, see
    /// [`crate::repeat`]); zero where nobody tracks them.
    incidents: Vec<AtomicU64>,
    /// Per entry: matches of a panic by its location, not its message
    /// ([`crate::matcher::Matcher::by_location`]): `--summary` says so, or a crash reads as
    /// the error logged near it.
    located: Vec<AtomicU64>,
}

impl Tally {
    pub fn new(entries: usize) -> Tally {
        Tally {
            counts: (0..entries).map(|_| AtomicU64::new(0)).collect(),
            incidents: (0..entries).map(|_| AtomicU64::new(0)).collect(),
            located: (0..entries).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub fn add_incident(&self, entry: u32) {
        if let Some(c) = self.incidents.get(entry as usize) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn incidents(&self, entry: usize) -> u64 {
        self.incidents.get(entry).map_or(0, |c| c.load(Ordering::Relaxed))
    }

    pub fn add_located(&self, entry: u32) {
        if let Some(c) = self.located.get(entry as usize) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn located(&self, entry: usize) -> u64 {
        self.located.get(entry).map_or(0, |c| c.load(Ordering::Relaxed))
    }

    pub fn add(&self, entry: u32) {
        if let Some(c) = self.counts.get(entry as usize) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn get(&self, entry: usize) -> u64 {
        self.counts.get(entry).map_or(0, |c| c.load(Ordering::Relaxed))
    }
}

/// Matches of one record, summed over every catalog generation (reloads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordCount {
    pub id: String,
    pub title: String,
    pub severity: String,
    pub count: u64,
    /// Distinct incidents among the matches (see [`crate::repeat`]).
    pub incidents: u64,
    /// Of `count`, the panics matched by their location.
    pub located: u64,
}

/// Per-record counts across reloads: the current generation's tally plus what earlier
/// generations counted, folded by record id.
#[derive(Default)]
struct Tallies {
    folded: HashMap<String, RecordCount>,
    current: Option<(Arc<Matcher>, Arc<Tally>)>,
}

impl Tallies {
    fn fold(m: &Matcher, t: &Tally, into: &mut HashMap<String, RecordCount>) {
        for (i, e) in m.entries.iter().enumerate() {
            let n = t.get(i);
            if n == 0 {
                continue;
            }
            let rc = into.entry(e.rec.id.clone()).or_insert_with(|| RecordCount {
                    id: e.rec.id.clone(),
                    title: e.rec.slug().unwrap_or(&e.rec.id).to_owned(),
                    severity: e.rec.severity.name().to_owned(),
                    count: 0,
                    incidents: 0,
                    located: 0,
                });
            rc.count += n;
            rc.incidents += t.incidents(i);
            rc.located += t.located(i);
        }
    }
}

/// Refreshes values kept elsewhere (file lag from the checkpoints) before an encoding.
pub type Refresh = Box<dyn Fn(&Metrics) + Send>;

/// Every metric annotail exports. Shared (`Arc`) by the reader, the sinks and the endpoint.
pub struct Metrics {
    registry: Registry,
    pub lines_read: Family<SourceLabel, Counter>,
    pub bytes_read: Family<SourceLabel, Counter>,
    pub events: Counter,
    pub events_written: Counter,
    /// `events_written` is counted as the sinks acknowledge batches ([`crate::sink::with_sinks`],
    /// follow mode), not as the reader writes them.
    pub written_on_delivery: std::sync::atomic::AtomicBool,
    matches: Family<SeverityLabel, Counter>,
    record_matches: Family<RecordLabel, Counter>,
    incidents: Family<SeverityLabel, Counter>,
    record_incidents: Family<RecordLabel, Counter>,
    pub candidates: Counter,
    pub examined: Counter,
    pub confirmed: Counter,
    pub parse_errors: Counter,
    pub truncated_lines: Counter,
    pub internal_errors: Counter,
    pub context_matches: Counter,
    pub sink_batches: Family<SinkResultLabel, Counter>,
    pub sink_retries: Family<SinkLabel, Counter>,
    pub sink_dropped: Family<SinkLabel, Counter>,
    pub sink_dead_letter: Family<SinkLabel, Counter>,
    pub sink_dedupe_summaries: Family<SinkLabel, Counter>,
    pub sink_dedupe_repeats: Family<SinkLabel, Counter>,
    /// Events parked in dead-letter files by every sink: a run that parked some exits 1.
    pub dead_lettered: Arc<AtomicU64>,
    pub sink_rejected: Family<SinkLabel, Counter>,
    /// Records OTLP receivers rejected (partial success): a run with some exits 1.
    pub rejected: Arc<AtomicU64>,
    process: Process,
    pub sink_queue_events: Family<SinkLabel, Gauge>,
    pub file_lag: Family<PathLabel, Gauge>,
    pub files: Gauge,
    /// Paths a followed glob names that cannot be opened or read now (retried every poll).
    pub files_unreadable: Gauge,
    /// Sources (globs) that match no file now.
    pub sources_empty: Gauge,
    checkpoint_age: Gauge<f64, AtomicU64>,
    pub catalog_records: Gauge,
    pub reloads: Family<ResultLabel, Counter>,
    /// Events clustered as unknown (`--unknown`), per level (error, warn, info, debug, none).
    pub unknown_events: Family<LevelLabel, Counter>,
    /// `unknown_events`' counter of each label, once an event has had it: the family's lookup
    /// (a lock and a SipHash of the label) cost about 250 instructions an event with `--unknown
    /// any`. Filled on first use, not at start, so that a level's series appears when its first
    /// event does, as it did.
    unknown_counters: [std::sync::OnceLock<Counter>; UNKNOWN_LABELS.len()],
    unknown_clusters: Gauge,
    unknown_evicted: Gauge,
    /// The run's clusterer, read for the clusters gauges and `--summary`.
    pub unknown: Mutex<Option<crate::unknown::Shared>>,
    tallies: Mutex<Tallies>,
    /// When the checkpoints on disk were last known to match what was delivered; `None` while
    /// they still match (an idle daemon: nothing delivered since the last write).
    checkpoint_current: Mutex<Option<Instant>>,
    /// Called before each encoding to refresh values kept elsewhere (file lag).
    refresh: Mutex<Option<Refresh>>,
    ready: AtomicBool,
    stopping: AtomicBool,
    top_records: usize,
    /// Lines read from every source (the summary's total).
    lines_all: AtomicU64,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").field("top_records", &self.top_records).finish_non_exhaustive()
    }
}

impl Metrics {
    /// `top_records`: how many records get their own `annotail_record_matches_total` series.
    pub fn new(top_records: usize) -> Metrics {
        let mut r = Registry::with_prefix("annotail");
        // A new metric, registered under `name` (the registry keeps a clone sharing its value).
        fn reg<M: prometheus_client::registry::Metric + Clone + Default>(
            r: &mut Registry,
            name: &str,
            help: &str,
        ) -> M {
            let m = M::default();
            r.register(name, help, m.clone());
            m
        }
        let lines_read = reg(&mut r, "lines_read", "Lines read, per source (glob, stdin or file)");
        let bytes_read = reg(&mut r, "bytes_read", "Bytes read, per source");
        let events = reg(&mut r, "events", "Events framed (a multi-line event counts once)");
        let events_written = reg(
            &mut r,
            "events_written",
            "Events delivered: acknowledged by every sink, or written to standard output",
        );
        let matches = reg(&mut r, "matches", "Record matches, per record severity");
        let record_matches = reg(&mut r, "record_matches", "Matches of the most matched records (top K)");
        let incidents = reg(
            &mut r,
            "incidents",
            "Distinct incidents among the matches (repeats of a key within the repeat window count once), per record severity",
        );
        let record_incidents =
            reg(&mut r, "record_incidents", "Distinct incidents of the most matched records (top K, the same as record_matches)");
        let candidates = reg(&mut r, "prefilter_candidates", "Candidate records the prefilter passed to confirmation");
        let examined = reg(&mut r, "prefilter_events", "Events with at least one prefilter candidate");
        let confirmed = reg(&mut r, "confirmed_events", "Events a record's regex confirmed");
        let parse_errors = reg(&mut r, "parse_errors", "Lines that looked like JSON but did not parse");
        let truncated_lines = reg(&mut r, "truncated_lines", "Lines cut at max_line_bytes");
        let internal_errors = reg(&mut r, "internal_errors", "Events skipped after an internal error");
        let context_matches = reg(
            &mut r,
            "context_matches",
            "Matches reported as context: found only in a span field of an INFO/DEBUG/TRACE line",
        );
        let sink_batches = reg(
            &mut r,
            "sink_batches",
            "Sink deliveries: sent, failed (each failed attempt) or split (refused whole: sent again in halves)",
        );
        let sink_retries = reg(&mut r, "sink_retries", "Delivery attempts after a failure");
        let sink_dead_letter = reg(
            &mut r,
            "sink_dead_letter_events",
            "Events a receiver refused one by one (400, 413, 422), parked in the sink's dead-letter file",
        );
        let sink_dedupe_summaries = reg(
            &mut r,
            "sink_dedupe_summaries",
            "Summary events a sink's dedupe sent at the end of a window (repeat.count in each)",
        );
        let sink_dedupe_repeats =
            reg(&mut r, "sink_dedupe_repeats", "Repeats a sink's dedupe held back and counted in a summary instead");
        let sink_rejected = reg(
            &mut r,
            "sink_rejected_events",
            "Records an OTLP receiver took a request without (partial_success.rejected_log_records)",
        );
        let sink_dropped =
            reg(&mut r, "sink_dropped_events", "Events dropped because a queue was full (when_full = drop)");
        r.register("build", "annotail's version", Info::new(BuildLabel { version: env!("CARGO_PKG_VERSION") }));
        let sink_queue_events = reg(&mut r, "sink_queue_events", "Events queued for a sink, not yet delivered");
        let file_lag = reg(&mut r, "file_lag_bytes", "Bytes of a followed file not yet delivered and checkpointed");
        let files = reg(&mut r, "files_followed", "Files followed now (rotated ones still being read included)");
        let files_unreadable = reg(
            &mut r,
            "files_unreadable",
            "Files a followed glob names that cannot be opened or read (retried every poll)",
        );
        let sources_empty = reg(&mut r, "sources_empty", "Sources (globs) that match no file now");
        let checkpoint_age =
            reg(&mut r, "checkpoint_age_seconds", "Seconds since the checkpoint file last matched what was delivered");
        let catalog_records = reg(&mut r, "catalog_records", "Catalog records loaded and usable");
        let reloads: Family<ResultLabel, Counter> =
            reg(&mut r, "catalog_reloads", "Catalog and config reloads, ok or failed");
        // Both outcomes exist from the start: a rate over a series that appears later misses
        // its first increment.
        for result in ["ok", "failed"] {
            drop(reloads.get_or_create(&ResultLabel { result }));
        }
        let unknown_events: Family<LevelLabel, Counter> =
            reg(&mut r, "unknown_events", "Events no record explains, clustered (--unknown), per event level");
        for level in ["error", "warn"] {
            drop(unknown_events.get_or_create(&LevelLabel { level }));
        }
        let unknown_clusters = reg(&mut r, "unknown_clusters", "Clusters of unknown events alive (at most the cap)");
        let unknown_evicted =
            reg(&mut r, "unknown_clusters_evicted", "Clusters of unknown events dropped at the cap (least recently seen)");
        Metrics {
            registry: r,
            unknown_events,
            unknown_counters: Default::default(),
            unknown_clusters,
            unknown_evicted,
            unknown: Mutex::new(None),
            lines_read,
            bytes_read,
            events,
            events_written,
            written_on_delivery: Default::default(),
            matches,
            record_matches,
            incidents,
            record_incidents,
            candidates,
            examined,
            confirmed,
            parse_errors,
            truncated_lines,
            internal_errors,
            context_matches,
            sink_batches,
            sink_retries,
            sink_dropped,
            sink_dead_letter,
            sink_dedupe_summaries,
            sink_dedupe_repeats,
            dead_lettered: Arc::default(),
            sink_rejected,
            rejected: Arc::default(),
            process: Process::new(),
            sink_queue_events,
            file_lag,
            files,
            files_unreadable,
            sources_empty,
            checkpoint_age,
            catalog_records,
            reloads,
            tallies: Mutex::default(),
            checkpoint_current: Mutex::new(None),
            refresh: Mutex::new(None),
            ready: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            top_records,
            lines_all: AtomicU64::new(0),
        }
    }

    /// The counters of one sink, looked up once. `url` is shown without credentials.
    /// Count an event clustered as unknown under its `level` label.
    pub fn unknown_event(&self, level: &'static str) {
        match UNKNOWN_LABELS.iter().position(|&l| l == level) {
            Some(i) => self.unknown_counters[i]
                .get_or_init(|| self.unknown_events.get_or_create(&LevelLabel { level }).clone())
                .inc(),
            None => self.unknown_events.get_or_create(&LevelLabel { level }).inc(),
        };
    }

    pub fn sink(&self, url: &str) -> SinkMetrics {
        let name = redact(url);
        let l = SinkLabel { sink: name.clone() };
        let r = |result| SinkResultLabel { sink: name.clone(), result };
        SinkMetrics {
            sent: self.sink_batches.get_or_create_owned(&r("sent")),
            failed: self.sink_batches.get_or_create_owned(&r("failed")),
            split: self.sink_batches.get_or_create_owned(&r("split")),
            retries: self.sink_retries.get_or_create_owned(&l),
            dropped: self.sink_dropped.get_or_create_owned(&l),
            dead_letter: self.sink_dead_letter.get_or_create_owned(&l),
            dead_letter_all: self.dead_lettered.clone(),
            rejected: self.sink_rejected.get_or_create_owned(&l),
            rejected_all: self.rejected.clone(),
            queued: self.sink_queue_events.get_or_create_owned(&l),
            dedupe_summaries: self.sink_dedupe_summaries.get_or_create_owned(&l),
            dedupe_held: self.sink_dedupe_repeats.get_or_create_owned(&l),
        }
    }

    /// A new catalog generation: earlier counts are folded by record id; the returned tally is
    /// the one annotators of `m` add to.
    pub fn generation(&self, m: &Arc<Matcher>) -> Arc<Tally> {
        let tally = Arc::new(Tally::new(m.entries.len()));
        let mut t = self.tallies.lock().expect("tallies lock");
        if let Some((om, ot)) = t.current.take() {
            Tallies::fold(&om, &ot, &mut t.folded);
        }
        t.current = Some((m.clone(), tally.clone()));
        self.catalog_records.set(m.entries.len() as i64);
        tally
    }

    /// Matches per record, most matched first (ties by id).
    pub fn record_counts(&self) -> Vec<RecordCount> {
        let t = self.tallies.lock().expect("tallies lock");
        let mut all = t.folded.clone();
        if let Some((m, tally)) = &t.current {
            Tallies::fold(m, tally, &mut all);
        }
        drop(t);
        let mut v: Vec<RecordCount> = all.into_values().collect();
        v.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.id.cmp(&b.id)));
        v
    }

    /// The read counters of one source, looked up once (not per read).
    pub fn source(&self, source: &str) -> SourceMetrics {
        let label = SourceLabel { source: source.to_owned() };
        SourceMetrics {
            lines: self.lines_read.get_or_create_owned(&label),
            bytes: self.bytes_read.get_or_create_owned(&label),
        }
    }

    /// Count what one source read and one annotator saw since its last report.
    pub fn add_read(&self, source: &SourceMetrics, d: &crate::counts::Totals) {
        source.lines.inc_by(d.lines);
        source.bytes.inc_by(d.bytes);
        self.truncated_lines.inc_by(d.truncated_lines);
        self.lines_all.fetch_add(d.lines, Ordering::Relaxed);
        let c = &d.counters;
        self.events.inc_by(c.events);
        self.candidates.inc_by(c.candidates);
        self.examined.inc_by(c.examined);
        self.confirmed.inc_by(c.matched);
        self.parse_errors.inc_by(c.json_errors);
        self.internal_errors.inc_by(c.internal_errors);
        self.context_matches.inc_by(c.context);
    }

    /// Lines, events and events confirmed so far, from every source.
    /// Events clustered as unknown in this run, every level.
    pub fn unknown_events_total(&self) -> u64 {
        UNKNOWN_LABELS.iter().map(|&level| self.unknown_events.get_or_create(&LevelLabel { level }).get()).sum()
    }

    pub fn read_totals(&self) -> (u64, u64, u64) {
        (self.lines_all.load(Ordering::Relaxed), self.events.get(), self.confirmed.get())
    }

    /// The checkpoints on disk match what was delivered (just written, or nothing changed).
    pub fn checkpoint_current(&self) {
        *self.checkpoint_current.lock().expect("checkpoint lock") = Some(Instant::now());
    }

    /// The checkpoints on disk match what was delivered and go on matching until the next
    /// delivery ([`Metrics::checkpoint_current`] then): the age reads 0 meanwhile. An idle
    /// daemon's age grew without end, which an alert on a stale checkpoint took for a failing disk.
    pub fn checkpoint_idle(&self) {
        *self.checkpoint_current.lock().expect("checkpoint lock") = None;
    }

    /// Install the hook that refreshes values kept elsewhere before each encoding.
    pub fn set_refresh(&self, f: Refresh) {
        *self.refresh.lock().expect("refresh lock") = Some(f);
    }

    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }

    pub fn set_stopping(&self) {
        self.stopping.store(true, Ordering::Relaxed);
    }

    /// Why the process is not ready, if it is not. A daemon that follows no file while some
    /// named by its globs cannot be read is not ready: it runs, but does nothing it was asked to.
    pub fn not_ready(&self) -> Option<&'static str> {
        if self.stopping.load(Ordering::Relaxed) {
            Some("stopping")
        } else if !self.ready.load(Ordering::Relaxed) {
            Some("starting")
        } else if self.files.get() == 0 && self.files_unreadable.get() > 0 {
            Some("no followed file can be read (see annotail_files_unreadable and the log)")
        } else {
            None
        }
    }

    /// The OpenMetrics text exposition of every metric, refreshed now.
    pub fn encode(&self) -> String {
        // Held to the end: two scrapes at once must not interleave the top-K rebuild.
        let refresh = self.refresh.lock().expect("refresh lock");
        if let Some(f) = refresh.as_ref() {
            f(self);
        }
        let counts = self.record_counts();
        let mut per_sev: HashMap<&str, (u64, u64)> = HashMap::new();
        for r in &counts {
            let s = per_sev.entry(r.severity.as_str()).or_default();
            s.0 += r.count;
            s.1 += r.incidents;
        }
        for (sev, (n, i)) in per_sev {
            let label = SeverityLabel { severity: sev.to_owned() };
            self.matches.get_or_create(&label).inner().store(n, Ordering::Relaxed);
            self.incidents.get_or_create(&label).inner().store(i, Ordering::Relaxed);
        }
        self.record_matches.clear();
        self.record_incidents.clear();
        for r in counts.iter().take(self.top_records) {
            let label = RecordLabel { record: r.id.clone(), slug: r.title.clone(), severity: r.severity.clone() };
            self.record_matches.get_or_create(&label).inner().store(r.count, Ordering::Relaxed);
            self.record_incidents.get_or_create(&label).inner().store(r.incidents, Ordering::Relaxed);
        }
        if let Some(u) = self.unknown.lock().expect("unknown lock").as_ref() {
            let c = u.clusters.lock().expect("clusterer lock");
            self.unknown_clusters.set(c.alive() as i64);
            self.unknown_evicted.set(c.evicted as i64);
        }
        let age = self.checkpoint_current.lock().expect("checkpoint lock").map_or(0.0, |at| at.elapsed().as_secs_f64());
        self.checkpoint_age.set(age);
        self.process.refresh();
        let mut out = String::new();
        prometheus_client::encoding::text::encode_registry(&mut out, &self.process.registry)
            .expect("encoding to a String");
        prometheus_client::encoding::text::encode(&mut out, &self.registry).expect("encoding to a String");
        out
    }
}

/// The process's own series, under the standard names (no `annotail_` prefix): what Prometheus
/// client libraries export and dashboards expect.
struct Process {
    registry: Registry,
    cpu: Counter<f64, AtomicU64>,
    resident: Gauge,
    virtual_bytes: Gauge,
    open_fds: Gauge,
    max_fds: Gauge,
    start_time: Gauge<f64, AtomicU64>,
}

impl Process {
    fn new() -> Process {
        let mut registry = Registry::default();
        let p = Process {
            cpu: Counter::default(),
            resident: Gauge::default(),
            virtual_bytes: Gauge::default(),
            open_fds: Gauge::default(),
            max_fds: Gauge::default(),
            start_time: Gauge::default(),
            registry: Registry::default(),
        };
        registry.register("process_cpu_seconds", "User and system CPU time spent, in seconds", p.cpu.clone());
        registry.register("process_resident_memory_bytes", "Resident memory size in bytes", p.resident.clone());
        registry.register("process_virtual_memory_bytes", "Virtual memory size in bytes", p.virtual_bytes.clone());
        registry.register("process_open_fds", "Open file descriptors", p.open_fds.clone());
        registry.register("process_max_fds", "The open file descriptors limit (soft)", p.max_fds.clone());
        registry.register(
            "process_start_time_seconds",
            "Start time of the process since the Unix epoch, in seconds",
            p.start_time.clone(),
        );
        Process { registry, ..p }
    }

    /// Read /proc/self now; a value that cannot be read keeps its last one.
    fn refresh(&self) {
        let Ok(me) = procfs::process::Process::myself() else { return };
        let tps = procfs::ticks_per_second() as f64;
        if let Ok(stat) = me.stat() {
            let cpu = (stat.utime + stat.stime) as f64 / tps;
            // A counter set to the kernel's total: the kernel's count only grows.
            self.cpu.inner().store(cpu.to_bits(), Ordering::Relaxed);
            self.resident.set((stat.rss * procfs::page_size()) as i64);
            self.virtual_bytes.set(stat.vsize as i64);
            if let Ok(boot) = procfs::boot_time_secs() {
                self.start_time.set(boot as f64 + stat.starttime as f64 / tps);
            }
        }
        if let Ok(n) = me.fd_count() {
            self.open_fds.set(n as i64);
        }
        if let Ok(limits) = me.limits()
            && let procfs::process::LimitValue::Value(n) = limits.max_open_files.soft_limit
        {
            self.max_fds.set(n as i64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_names_hide_credentials() {
        assert_eq!(redact("https://user:secret@logs.example:8443/in"), "https://logs.example:8443/in");
        assert_eq!(redact("tcp://127.0.0.1:5170"), "tcp://127.0.0.1:5170");
        assert_eq!(redact("file:/var/log/a@b.json"), "file:/var/log/a@b.json");
    }

    fn value(text: &str, series: &str) -> Option<f64> {
        text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn counters_and_per_record_top_k_are_encoded() {
        let cat =
            crate::catalog::load(&[std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/catalog/seeds")]);
        let (m, _) = Matcher::new(cat, crate::matcher::Limits::default());
        let m = Arc::new(m);
        let metrics = Metrics::new(1);
        let tally = metrics.generation(&m);
        tally.add(0);
        tally.add(0);
        tally.add_incident(0);
        tally.add(1);
        tally.add_incident(1);
        let mut d = crate::counts::Totals { lines: 10, bytes: 100, ..Default::default() };
        d.counters.matched = 3;
        metrics.add_read(&metrics.source("stdin"), &d);
        let text = metrics.encode();
        assert_eq!(value(&text, "annotail_lines_read_total{source=\"stdin\"}"), Some(10.0), "{text}");
        assert_eq!(value(&text, "annotail_bytes_read_total{source=\"stdin\"}"), Some(100.0));
        assert_eq!(value(&text, "annotail_confirmed_events_total"), Some(3.0));
        assert_eq!(value(&text, "annotail_catalog_records"), Some(2.0));
        // Top 1: only the most matched record has its own series.
        let rec0 = &m.entries[0].rec;
        let series = format!(
            "annotail_record_matches_total{{record=\"{}\",slug=\"{}\",severity=\"{}\"}}",
            rec0.id,
            rec0.slug().unwrap(),
            rec0.severity.name()
        );
        assert_eq!(value(&text, &series), Some(2.0), "{text}");
        assert_eq!(text.matches("annotail_record_matches_total{").count(), 1);
        // Two matches of record 0 were one incident.
        let series = format!(
            "annotail_record_incidents_total{{record=\"{}\",slug=\"{}\",severity=\"{}\"}}",
            rec0.id,
            rec0.slug().unwrap(),
            rec0.severity.name()
        );
        assert_eq!(value(&text, &series), Some(1.0), "{text}");
        let sev = format!("annotail_incidents_total{{severity=\"{}\"}}", rec0.severity.name());
        let both = if m.entries[1].rec.severity == rec0.severity { 2.0 } else { 1.0 };
        assert_eq!(value(&text, &sev), Some(both), "{text}");
        assert!(text.ends_with("# EOF\n"));
        assert_eq!(text.matches("# EOF").count(), 1, "one exposition: {text}");
        let build = format!("annotail_build_info{{version=\"{}\"}}", env!("CARGO_PKG_VERSION"));
        assert_eq!(value(&text, &build), Some(1.0), "{text}");
        // The process's series: this test process's own values.
        assert!(value(&text, "process_cpu_seconds_total").is_some_and(|v| v > 0.0), "{text}");
        assert!(value(&text, "process_resident_memory_bytes").is_some_and(|v| v > 1e6));
        assert!(value(&text, "process_virtual_memory_bytes").is_some_and(|v| v > 1e6));
        assert!(value(&text, "process_open_fds").is_some_and(|v| v >= 3.0));
        assert!(value(&text, "process_max_fds").is_some_and(|v| v >= value(&text, "process_open_fds").unwrap()));
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
        assert!(value(&text, "process_start_time_seconds").is_some_and(|v| v > now - 3600.0 && v <= now + 1.0));
        // Readiness: starting, ready, stopping.
        assert_eq!(metrics.not_ready(), Some("starting"));
        metrics.set_ready(true);
        assert_eq!(metrics.not_ready(), None);
        metrics.set_stopping();
        assert_eq!(metrics.not_ready(), Some("stopping"));
        // A reload keeps the counts (folded by record id).
        let tally2 = metrics.generation(&m);
        tally2.add(0);
        tally2.add_incident(0);
        assert_eq!(metrics.record_counts()[0].count, 3);
        assert_eq!(metrics.record_counts()[0].incidents, 2);
    }
}
