//! `annotail report`: one self-contained HTML page about the known errors in some logs, for the
//! people who look at an incident afterwards or attach it to a ticket.
//!
//! Owns the aggregation and the page. The inputs go through [`source::run`] (files or standard
//! input, every layout a run reads) with every event passed to a [`Collector`], a [`Writer`] that
//! only counts: per time bucket, severity and pod/container; per record (first and last seen,
//! distinct captured values); per chain (a primary match and each record it also matched). The
//! page is [`TEMPLATE`] with the vendored Chart.js and the aggregates as one JSON blob inlined;
//! its script renders every table and chart from that blob with DOM text nodes.
//!
//! Contract:
//! - Memory is bounded whatever the input's size: the timeline keeps at most [`MAX_FINE`] fine
//!   buckets per series (coarsening as the time span grows), at most [`MAX_GROUPS`] pods or
//!   containers get charts of their own, each record keeps [`SHOWN_VALUES`] captured values per
//!   capture name and the hashes of [`DISTINCT_CAP`] distinct ones, at most [`MAX_CHAINS`]
//!   chain pairs are kept. No event is kept.
//! - What is counted: an event with a primary match counts once, for that record, under the
//!   record's severity; an event no record matched counts as "unknown (no record)" when its level
//!   is `ERROR` or `WARN`. Such an event is on the timeline when its `@timestamp` came from the
//!   line (not `observed`) and parses as RFC 3339; the others are counted apart.
//! - Log text reaches the page only inside the JSON blob, with `<`, `>` and `&` written as
//!   `\u003c`, `\u003e`, `\u0026`, so that no log line can end the script element; the page's
//!   script puts it into the document as text, never as markup.
//! - The page loads nothing at view time: no network, no other file.
//! - The bucket width is the smallest of [`NICE_WIDTHS_MS`] (a multiple of the fine width) that
//!   gives at most [`TARGET_BUCKETS`] buckets: 48 to 120 (the widths grow by at most 2.5 times
//!   a step; fewer only for spans under half a second or over 30 years).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use crate::status::Status;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;
use serde_json::{Value, json};

use crate::catalog::Problem;
use crate::event::{Annotated, Flow, Writer};
use crate::framing;
use crate::matcher::Matcher;
use crate::source;

/// The options of `annotail report` (its `--help` text is these doc comments).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A catalog file or directory; repeatable; later paths override earlier ones by record id;
    /// `@embedded` names the catalog embedded in the binary.
    /// Default: the config file's `catalog`, else the catalog embedded in the binary.
    #[arg(short = 'c', long = "catalog", value_name = "PATH")]
    pub catalog: Vec<PathBuf>,

    /// Log files to report on (any layout annotail reads); '-' (or none) is standard input.
    pub files: Vec<PathBuf>,

    /// The HTML file to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
}

/// Why no report was written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A catalog path cannot be read, or no record is usable; the problems say why.
    #[error("{}the catalog could not be loaded", problems.iter().map(|p| format!("{p}\n")).collect::<String>())]
    Catalog { problems: Vec<Problem> },
    #[error("cannot read {}: {source}", path.display())]
    Input { path: PathBuf, source: io::Error },
    /// Reading failed part-way (the pipeline's diagnostics on standard error name the input).
    #[error("reading the input failed: {source}")]
    InputRun { source: source::RunError },
    #[error("cannot write {}: {source}", path.display())]
    Output { path: PathBuf, source: io::Error },
}

impl ReportError {
    /// 1 when the output cannot be written; 2 for the catalog and the inputs (nothing written).
    pub fn exit_status(&self) -> Status {
        match self {
            ReportError::Output { .. } => Status::Failed,
            _ => Status::Refused,
        }
    }
}

/// The page: the chart library and the data are put in at the two markers.
const TEMPLATE: &str = include_str!("report.html");
const CHART_JS_MARK: &str = "/*CHART_JS*/";
const DATA_MARK: &str = "/*DATA*/";
/// Chart.js 4.6.1 (MIT), `dist/chart.umd.min.js` as published on npm: see `vendor/chart.js/`.
const CHART_JS: &str = include_str!("../vendor/chart.js/chart.umd.min.js");

/// Fine buckets per series before the timeline coarsens: 4096 keeps a series' worst case at a few
/// hundred KiB while a one-hour log is still counted per second.
pub const MAX_FINE: i64 = 4096;
/// Fine widths the timeline steps through as the span grows (ms). Each divides every width of
/// [`NICE_WIDTHS_MS`] that the next span range can choose (at least span / 120 > 34 fine widths).
const FINE_WIDTHS_MS: [i64; 5] = [10, 1_000, 60_000, 3_600_000, 86_400_000];
/// Bucket widths a person reads at a glance (ms): 10 ms … 90 d.
#[rustfmt::skip]
pub const NICE_WIDTHS_MS: [i64; 31] = [
    10, 20, 50, 100, 200, 500, // ms
    1_000, 2_000, 5_000, 10_000, 15_000, 30_000, // s
    60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, // min
    3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, // h
    86_400_000, 172_800_000, 345_600_000, 604_800_000, 1_209_600_000, 2_592_000_000, // d
    5_184_000_000, 7_776_000_000,
];
/// At most this many buckets: a 1400-pixel chart still shows each bar.
pub const TARGET_BUCKETS: i64 = 120;
/// Pods or containers with a chart of their own; the rest share one ("other").
pub const MAX_GROUPS: usize = 24;
/// Captured values shown per capture name of a record (the first distinct ones met).
pub const SHOWN_VALUES: usize = 10;
/// Distinct captured values counted per capture name (as 8-byte hashes): beyond it the page says
/// "and N+ more".
pub const DISTINCT_CAP: usize = 1000;
/// A shown value is cut to this many bytes (a captured error chain can be kilobytes).
const VALUE_BYTES: usize = 300;
/// Chain pairs kept; pairs met later are counted together.
pub const MAX_CHAINS: usize = 10_000;
/// A first/last-seen timestamp is kept to this many bytes.
const TS_BYTES: usize = 64;
/// An unknown cluster's example text is cut here: enough to recognise the error.
const EXAMPLE_BYTES: usize = 400;

/// `annotail report`, as `main` runs it: `catalog` is the catalog paths after the config file
/// is taken into account. Writes the page; a one-line summary on standard error.
pub fn command(args: &Args, catalog: &[PathBuf], limits: framing::Limits) -> Status {
    match run(args, catalog, limits) {
        Ok(s) => {
            eprintln!(
                "annotail: wrote {} ({} event(s) with a known error, {} unknown ERROR/WARN, {} without a timestamp)",
                args.output.display(),
                s.known,
                s.unknown,
                s.untimed
            );
            Status::Success
        }
        Err(e) => {
            eprintln!("annotail: {e}");
            e.exit_status()
        }
    }
}

/// What a written report counted.
#[derive(Debug, Clone, Copy)]
pub struct Written {
    pub known: u64,
    pub unknown: u64,
    pub untimed: u64,
}

/// Load the catalog, read the inputs, write the page.
pub fn run(args: &Args, catalog: &[PathBuf], limits: framing::Limits) -> Result<Written, ReportError> {
    let inputs: Vec<PathBuf> = if args.files.is_empty() { vec![PathBuf::from("-")] } else { args.files.clone() };
    // Fail on an unreadable file before any work, naming it.
    for p in &inputs {
        crate::source::check_input(p).map_err(|source| ReportError::Input { path: p.to_owned(), source })?;
    }
    if let Some(head) = source::input_head(&inputs) {
        crate::matcher::skim::Rarity::learn_from(head);
    }
    let m = load(catalog)?;
    let mut c = Collector::new(&m);
    let mut cfg = source::RunConfig::collecting(inputs.clone(), limits);
    // Unknown ERROR/WARN events are counted and clustered too: lines at those levels are framed
    // without a prefilter hit (as `--unknown warn` does), the rest only when a record's literal
    // is in them.
    cfg.stage.unknown = Some(crate::unknown::Shared::new(crate::unknown::Levels::Warn, UNKNOWN_CAP));
    let (_, totals) = source::run(&m, &cfg, &mut c).map_err(|source| ReportError::InputRun { source })?;
    let written = Written { known: c.known, unknown: c.unknown.iter().sum(), untimed: c.untimed.values().sum() };
    let names: Vec<String> =
        inputs.iter().map(|p| if p.as_os_str() == "-" { "stdin".into() } else { p.display().to_string() }).collect();
    let data = c.data(&names, &totals);
    let page = render(&data);
    write_file(&args.output, page.as_bytes())
        .map_err(|source| ReportError::Output { path: args.output.clone(), source })?;
    // Freeing the compiled catalog takes longer than the OS needs to reclaim it.
    std::mem::forget(m);
    Ok(written)
}

/// The catalog as a run loads it; an error when a path cannot be read or no record is usable.
fn load(paths: &[PathBuf]) -> Result<Matcher, ReportError> {
    crate::matcher::warm_up();
    let (m, problems) = Matcher::new(crate::catalog::load(paths), crate::matcher::Limits::default());
    let fatal = problems.iter().any(crate::catalog::Problem::is_fatal);
    if fatal || m.entries.is_empty() {
        return Err(ReportError::Catalog { problems });
    }
    if !problems.is_empty() {
        tracing::warn!(
            problems = problems.len(),
            "catalog loaded with problems; records with errors are left out (run `annotail check`)"
        );
    }
    Ok(m)
}


/// Write next to the target and rename: a reader never sees half a page.
fn write_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| io::Error::other("not a file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The page: [`TEMPLATE`] with the chart library and `data` put in.
pub fn render(data: &Value) -> String {
    let json = script_safe_json(data);
    let mut out = String::with_capacity(TEMPLATE.len() + CHART_JS.len() + json.len());
    let (head, rest) = TEMPLATE.split_once(CHART_JS_MARK).expect("the template has the chart marker");
    let (mid, tail) = rest.split_once(DATA_MARK).expect("the template has the data marker");
    out.push_str(head);
    out.push_str(CHART_JS);
    out.push_str(mid);
    out.push_str(&json);
    out.push_str(tail);
    out
}

/// JSON that can sit inside a `<script>` element: `<`, `>`, `&` and the two JavaScript line
/// separators are written as `\u` escapes (only ever inside strings, so the JSON means the same).
pub fn script_safe_json(v: &Value) -> String {
    let s = serde_json::to_string(v).expect("a Value serialises");
    let mut out = String::with_capacity(s.len() + s.len() / 16);
    for ch in s.chars() {
        match ch {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The bucket width for a span of `span_ms`, counted in fine buckets `fine_ms` wide: the smallest
/// nice width, a multiple of `fine_ms`, that gives at most [`TARGET_BUCKETS`] buckets; past the
/// nice widths, a multiple of the largest.
pub fn bucket_width(span_ms: i64, fine_ms: i64) -> i64 {
    // Buckets start at multiples of the width, so the span's first bucket may start before it:
    // one more bucket than the span divided by the width.
    let fits = |w: i64| (span_ms + w - 1) / w < TARGET_BUCKETS;
    if let Some(&w) = NICE_WIDTHS_MS.iter().find(|&&w| w % fine_ms == 0 && fits(w)) {
        return w;
    }
    let unit = *NICE_WIDTHS_MS.last().expect("nice widths");
    let unit = unit.max(fine_ms) / fine_ms * fine_ms;
    unit * (span_ms / unit / (TARGET_BUCKETS - 1) + 1)
}

/// Counts per fine time bucket and series, coarsened as the span grows so that at most
/// [`MAX_FINE`] fine buckets are ever kept per series.
#[derive(Debug)]
struct Timeline {
    fine_ms: i64,
    /// Smallest and largest fine bucket index met.
    range: Option<(i64, i64)>,
    counts: FxHashMap<(i64, u32), u64>,
}

impl Timeline {
    fn new() -> Self {
        Timeline { fine_ms: FINE_WIDTHS_MS[0], range: None, counts: FxHashMap::default() }
    }

    fn add(&mut self, ms: i64, series: u32) {
        let mut idx = ms.div_euclid(self.fine_ms);
        let (lo, hi) = self.range.map_or((idx, idx), |(lo, hi)| (lo.min(idx), hi.max(idx)));
        self.range = Some((lo, hi));
        if hi - lo >= MAX_FINE {
            self.coarsen();
            idx = ms.div_euclid(self.fine_ms);
        }
        *self.counts.entry((idx, series)).or_default() += 1;
    }

    /// Step to the next fine width until the span fits in [`MAX_FINE`] buckets, merging counts.
    fn coarsen(&mut self) {
        let (lo, hi) = self.range.expect("coarsen after a first add");
        let (lo_ms, hi_ms) = (lo * self.fine_ms, hi * self.fine_ms);
        let mut fine = self.fine_ms;
        while (hi_ms.div_euclid(fine) - lo_ms.div_euclid(fine)) >= MAX_FINE {
            fine = FINE_WIDTHS_MS.iter().copied().find(|&f| f > fine).unwrap_or(fine * 10);
        }
        let ratio = fine / self.fine_ms;
        let mut merged = FxHashMap::default();
        for ((idx, s), n) in self.counts.drain() {
            *merged.entry((idx.div_euclid(ratio), s)).or_default() += n;
        }
        self.counts = merged;
        self.range = Some((lo.div_euclid(ratio), hi.div_euclid(ratio)));
        self.fine_ms = fine;
    }
}

/// Where and when a record was seen.
#[derive(Debug, Clone, Serialize)]
struct Seen {
    input: u32,
    line: u64,
    timestamp: Option<String>,
    /// The timestamp in milliseconds: first and last seen go by it
    /// ([`crate::discover::seen_before`]).
    #[serde(skip)]
    ms: Option<i64>,
}

impl Seen {
    /// `seen` as the first or the last of `first` and `last`, by time where both have one.
    fn place(first: &mut Option<Seen>, last: &mut Option<Seen>, seen: &Seen) {
        if first.as_ref().is_none_or(|f| crate::discover::seen_before(seen.ms, f.ms)) {
            *first = Some(seen.clone());
        }
        if last.as_ref().is_none_or(|l| crate::discover::seen_after(seen.ms, l.ms)) {
            *last = Some(seen.clone());
        }
    }
}

/// Distinct values of one capture name of a record.
#[derive(Debug, Default)]
struct Values {
    name: String,
    shown: Vec<(String, u64)>,
    hashes: FxHashSet<u64>,
    saturated: bool,
}

impl Values {
    fn add(&mut self, v: &str) {
        let h = xxhash_rust::xxh3::xxh3_64(v.as_bytes());
        let new = if self.hashes.contains(&h) {
            false
        } else if self.hashes.len() < DISTINCT_CAP {
            self.hashes.insert(h);
            true
        } else {
            self.saturated = true;
            false
        };
        let cut = cut(v, VALUE_BYTES);
        if let Some(s) = self.shown.iter_mut().find(|(s, _)| s == cut) {
            s.1 += 1;
        } else if new && self.shown.len() < SHOWN_VALUES {
            self.shown.push((cut.to_owned(), 1));
        }
    }
}

/// `s` cut to at most `n` bytes, at a character boundary.
fn cut(s: &str, n: usize) -> &str {
    if s.len() <= n {
        return s;
    }
    let mut end = n;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[derive(Debug, Default)]
struct RecordStats {
    primary: u64,
    /// Incidents among the primary matches (repeats within the window count once).
    incidents: u64,
    also: u64,
    /// Of `primary`, panics matched by their location, and the nearest of them (lines).
    located: u64,
    nearest: Option<u32>,
    first: Option<Seen>,
    last: Option<Seen>,
    values: Vec<Values>,
}

/// The timeline's categories of events no record matched.
const UNKNOWN_ERROR: &str = "unknown ERROR (no record)";
const UNKNOWN_WARN: &str = "unknown WARN (no record)";

/// The [`Writer`] that aggregates: it receives every event and keeps only counts.
pub struct Collector<'m> {
    m: &'m Matcher,
    records: Vec<RecordStats>,
    chains: FxHashMap<(u32, u32), u64>,
    chains_dropped: u64,
    timeline: Timeline,
    /// Severity names; a series is `group * categories + category`, packed in [`series`].
    categories: Vec<String>,
    /// Pods/containers seen ("" for events without), at most [`MAX_GROUPS`] + "other".
    groups: Vec<String>,
    inputs: Vec<String>,
    /// Events with a known error (primary match), unknown ERROR, unknown WARN.
    known: u64,
    unknown: [u64; 2],
    /// Counted events without a usable timestamp, per category name.
    untimed: FxHashMap<String, u64>,
    /// Events whose line had a timestamp that did not parse (counted in `untimed` too).
    unparsed: u64,
    /// Open incidents of the primary matches.
    repeats: crate::repeat::Repeats,
    /// Unknown clusters by id: template, events, first and last seen; at most [`UNKNOWN_CAP`],
    /// as the clusterer keeps (a cluster it let go and its stats here went on growing: 437 MB for
    /// 900,000 kinds, against a run's 60).
    clusters: FxHashMap<u64, ClusterStats>,
    /// Unknown events so far: when each cluster was last seen, in these.
    unknown_seen: u64,
    /// Clusters dropped from `clusters` at the cap.
    clusters_dropped: u64,
    /// Unknown events that a record matched (a known error over a cause no record explains):
    /// counted as known above, and in their cluster's count in the table.
    unknown_under_known: u64,
}

/// Clusters kept by the report's clusterer: as many as a run keeps by default, so memory stays
/// bounded on any input.
const UNKNOWN_CAP: usize = 10_000;
/// Unknown clusters listed on the page, the most severe first, then the most frequent.
const UNKNOWN_SHOWN: usize = 50;

#[derive(Debug)]
struct ClusterStats {
    template: String,
    count: u64,
    /// The highest of its events' severities (a panic's is an error).
    severity: crate::catalog::Severity,
    first: Option<Seen>,
    last: Option<Seen>,
    example: String,
    seen_at: u64,
}

impl<'m> Collector<'m> {
    pub fn new(m: &'m Matcher) -> Self {
        Collector {
            m,
            records: (0..m.entries.len()).map(|_| RecordStats::default()).collect(),
            chains: FxHashMap::default(),
            chains_dropped: 0,
            timeline: Timeline::new(),
            categories: Vec::new(),
            groups: vec![String::new()],
            inputs: Vec::new(),
            known: 0,
            unknown: [0; 2],
            untimed: FxHashMap::default(),
            unparsed: 0,
            repeats: crate::repeat::Repeats::new(crate::repeat::DEFAULT_WINDOW),
            clusters: FxHashMap::default(),
            unknown_seen: 0,
            clusters_dropped: 0,
            unknown_under_known: 0,
        }
    }

    fn category(&mut self, name: &str) -> u32 {
        match self.categories.iter().position(|c| c == name) {
            Some(i) => i as u32,
            None => {
                self.categories.push(name.to_owned());
                (self.categories.len() - 1) as u32
            }
        }
    }

    fn group(&mut self, ev: &Annotated<'_>) -> u32 {
        let (pod, container) = (ev.log.pod.as_deref(), ev.log.container.as_deref());
        if pod.is_none() && container.is_none() {
            return 0;
        }
        let name = match (pod, container) {
            (Some(p), Some(c)) => format!("{p}/{c}"),
            (Some(p), None) => p.to_owned(),
            (None, Some(c)) => c.to_owned(),
            (None, None) => unreachable!(),
        };
        if let Some(i) = self.groups.iter().position(|g| *g == name) {
            return i as u32;
        }
        if self.groups.len() <= MAX_GROUPS {
            self.groups.push(name);
            return (self.groups.len() - 1) as u32;
        }
        // The shared group of the pods/containers past the cap.
        match self.groups.iter().position(|g| g == "(other)") {
            Some(i) => i as u32,
            None => {
                self.groups.push("(other)".into());
                (self.groups.len() - 1) as u32
            }
        }
    }

    fn input(&mut self, ev: &Annotated<'_>) -> u32 {
        let name = ev.source.path.unwrap_or("stdin");
        if self.inputs.last().is_none_or(|l| l != name) {
            match self.inputs.iter().position(|i| i == name) {
                Some(i) => return i as u32,
                None => self.inputs.push(name.to_owned()),
            }
        }
        (self.inputs.len() - 1) as u32
    }

    /// The aggregates as the page's data (the JSON blob; `inputs`: the input names as given).
    /// The unknown clusters for the page: errors (panics among them) before warnings, then the
    /// most frequent (ties by id). By count alone, a storm's and a run's one-off warnings filled
    /// the table and two panics and a late new error were among the clusters not listed (found
    /// by an incident responder's reading).
    fn unknown_clusters(&self, ts_of: &dyn Fn(&Seen) -> Value) -> Vec<Value> {
        let mut v: Vec<(&u64, &ClusterStats)> = self.clusters.iter().collect();
        v.sort_by(|a, b| b.1.severity.cmp(&a.1.severity).then(b.1.count.cmp(&a.1.count)).then(a.0.cmp(b.0)));
        v.iter()
            .take(UNKNOWN_SHOWN)
            .map(|(id, c)| {
                json!({"cluster": format!("{id:016x}"), "template": c.template, "count": c.count,
                       "severity": c.severity.name(),
                       "first": c.first.as_ref().map(ts_of), "last": c.last.as_ref().map(ts_of), "example": c.example})
            })
            .collect()
    }

    pub fn data(&self, inputs: &[String], totals: &crate::counts::Totals) -> Value {
        let ts_of =
            |s: &Seen| json!({"input": self.inputs.get(s.input as usize), "line": s.line, "timestamp": s.timestamp});
        let mut order: Vec<usize> =
            (0..self.records.len()).filter(|&i| self.records[i].primary + self.records[i].also > 0).collect();
        // By every match, as `--summary` and `stats` rank them (by primary matches alone, a
        // wrapper they ranked first was row 649 here: an incident responder's reading).
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&self.records[a], &self.records[b]);
            (rb.primary + rb.also)
                .cmp(&(ra.primary + ra.also))
                .then(rb.primary.cmp(&ra.primary))
                .then(self.m.entries[a].rec.id.cmp(&self.m.entries[b].rec.id))
        });
        let records: Vec<Value> = order
            .iter()
            .map(|&i| {
                let r = &self.m.entries[i].rec;
                let s = &self.records[i];
                let values: Vec<Value> = s
                    .values
                    .iter()
                    .map(|v| {
                        json!({
                            "name": v.name,
                            "values": v.shown.iter().map(|(t, n)| json!({"value": t, "count": n})).collect::<Vec<_>>(),
                            "more": v.hashes.len().saturating_sub(v.shown.len()),
                            "more_at_least": v.saturated,
                        })
                    })
                    .collect();
                json!({
                    "id": r.id,
                    "slug": r.slug(),
                    "severity": r.severity.name(),
                    "error_class": r.str_field("errorClass"),
                    "template": r.template,
                    "count": s.primary,
                    "incidents": s.incidents,
                    "also_count": s.also,
                    "by_location": s.located,
                    "nearest_distance": s.nearest,
                    "first": s.first.as_ref().map(ts_of),
                    "last": s.last.as_ref().map(ts_of),
                    "captures": values,
                    "documentation": r.str_field("documentation"),
                    "solutions": r.solutions(),
                    "reference": r.str_field("githubUrl"),
                    "source_file": r.str_field("filePath"),
                    "source_line": r.source_line,
                })
            })
            .collect();
        let slug = |e: u32| self.m.entries[e as usize].rec.slug();
        let id = |e: u32| self.m.entries[e as usize].rec.id.as_str();
        let mut chains: Vec<(&(u32, u32), &u64)> = self.chains.iter().collect();
        chains.sort_by(|a, b| b.1.cmp(a.1).then(id(a.0.0).cmp(id(b.0.0))).then(id(a.0.1).cmp(id(b.0.1))));
        let chains: Vec<Value> = chains
            .iter()
            .map(|&(&(p, a), &n)| json!({"primary": id(p), "primary_slug": slug(p), "also": id(a), "also_slug": slug(a), "count": n}))
            .collect();
        let untimed: std::collections::BTreeMap<&String, &u64> = self.untimed.iter().collect();
        json!({
            "schema": "annotail-report/1",
            "generated": humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            "version": env!("CARGO_PKG_VERSION"),
            "inputs": inputs,
            "catalog_records": self.m.entries.len(),
            "totals": {
                "lines": totals.lines,
                "bytes": totals.bytes,
                "known": self.known,
                "unknown": {"ERROR": self.unknown[0], "WARN": self.unknown[1]},
                "untimed": self.untimed.values().sum::<u64>(),
                "untimed_by_severity": untimed,
                "unparsed_timestamps": self.unparsed,
            },
            "timeline": self.timeline_data(),
            "records": records,
            "chains": chains,
            "chains_dropped": self.chains_dropped,
            "unknown_clusters": self.unknown_clusters(&ts_of),
            "unknown_cluster_count": self.clusters.len(),
            "unknown_clusters_dropped": self.clusters_dropped,
            "unknown_under_known": self.unknown_under_known,
        })
    }

    fn timeline_data(&self) -> Value {
        let Some((lo, hi)) = self.timeline.range else {
            return json!({"bucket_ms": null, "start_ms": null, "buckets": 0, "groups": []});
        };
        let fine = self.timeline.fine_ms;
        let (lo_ms, hi_ms) = (lo * fine, hi * fine + fine);
        let width = bucket_width(hi_ms - lo_ms, fine);
        let start = lo_ms.div_euclid(width) * width;
        let buckets = ((hi_ms - 1).div_euclid(width) - start.div_euclid(width) + 1) as usize;
        let ncat = self.categories.len();
        // counts[group][category][bucket]
        let mut counts = vec![vec![vec![0u64; buckets]; ncat]; self.groups.len()];
        for (&(idx, series), &n) in &self.timeline.counts {
            let (g, c) = ((series >> 16) as usize, (series & 0xffff) as usize);
            let b = ((idx * fine).div_euclid(width) - start.div_euclid(width)) as usize;
            counts[g][c][b] += n;
        }
        // Categories in a fixed order: known severities most severe first, then unknown.
        let rank = |c: &str| match c {
            "critical" | "fatal" => 0,
            "error" => 1,
            "warning" | "warn" => 2,
            UNKNOWN_ERROR => 10,
            UNKNOWN_WARN => 11,
            _ => 5,
        };
        let mut cats: Vec<usize> = (0..ncat).collect();
        cats.sort_by(|&a, &b| {
            rank(&self.categories[a]).cmp(&rank(&self.categories[b])).then(self.categories[a].cmp(&self.categories[b]))
        });
        let series_of = |per_cat: &[Vec<u64>]| -> Vec<Value> {
            cats.iter()
                .filter(|&&c| per_cat[c].iter().any(|&n| n > 0))
                .map(|&c| {
                    let name = &self.categories[c];
                    json!({"name": name, "known": !name.starts_with("unknown "), "counts": per_cat[c]})
                })
                .collect()
        };
        let mut all = vec![vec![0u64; buckets]; ncat];
        for g in &counts {
            for (c, row) in g.iter().enumerate() {
                for (b, n) in row.iter().enumerate() {
                    all[c][b] += n;
                }
            }
        }
        let mut groups = vec![json!({"name": null, "series": series_of(&all)})];
        // Per pod/container only when the input named some.
        if self.groups.len() > 1 {
            for (g, per_cat) in counts.iter().enumerate() {
                if per_cat.iter().any(|r| r.iter().any(|&n| n > 0)) {
                    let name = if self.groups[g].is_empty() { "(no pod)" } else { self.groups[g].as_str() };
                    groups.push(json!({"name": name, "series": series_of(per_cat)}));
                }
            }
        }
        json!({"bucket_ms": width, "start_ms": start, "buckets": buckets, "groups": groups})
    }
}

/// A timeline series: a group (pod/container) in the high 16 bits, a category in the low 16
/// (both are far below 65,536: groups are capped, categories are the catalog's severities).
fn series(group: u32, category: u32) -> u32 {
    group << 16 | category
}

impl Writer for Collector<'_> {
    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow {
        let category = match ev.found.first() {
            Some(f) => {
                self.known += 1;
                self.m.entries[f.entry as usize].rec.severity.name().to_owned()
            }
            // An unknown event's severity is the clusterer's reading of its level, which also
            // counts a panic (no level word) as an error; the line's level word otherwise.
            None => match (ev.unknown.as_ref().map(|u| u.severity), ev.log.level.as_deref()) {
                (Some(crate::catalog::Severity::Error | crate::catalog::Severity::Critical), _) => {
                    self.unknown[0] += 1;
                    UNKNOWN_ERROR.to_owned()
                }
                (Some(crate::catalog::Severity::Warning), _) => {
                    self.unknown[1] += 1;
                    UNKNOWN_WARN.to_owned()
                }
                (None, Some(l)) if l.eq_ignore_ascii_case("ERROR") => {
                    self.unknown[0] += 1;
                    UNKNOWN_ERROR.to_owned()
                }
                (None, Some(l)) if l.eq_ignore_ascii_case("WARN") || l.eq_ignore_ascii_case("WARNING") => {
                    self.unknown[1] += 1;
                    UNKNOWN_WARN.to_owned()
                }
                _ => return Flow::Go,
            },
        };
        // `@timestamp` falls back to `observed` (the same string) when the line has none.
        let from_line = !std::ptr::eq(ev.timestamp.as_ptr(), ev.observed.as_ptr()) && ev.timestamp != ev.observed;
        let ms = if from_line { crate::framing::parse::parse_timestamp(ev.timestamp) } else { None };
        if from_line && ms.is_none() {
            self.unparsed += 1;
        }
        let cat = self.category(&category);
        let group = self.group(ev);
        match ms {
            Some(ms) => {
                self.timeline.add(ms, series(group, cat));
            }
            None => *self.untimed.entry(category).or_default() += 1,
        }
        if ev.unknown.is_none() && ev.found.is_empty() {
            return Flow::Go;
        }
        // Where and when, for the cluster's and the records' first and last seen.
        let seen = Seen {
            input: self.input(ev),
            line: ev.source.line,
            timestamp: from_line.then(|| cut(ev.timestamp, TS_BYTES).to_owned()),
            ms,
        };
        if let Some(u) = &ev.unknown {
            self.unknown_seen += 1;
            self.unknown_under_known += u64::from(!ev.found.is_empty());
            match self.clusters.get_mut(&u.cluster) {
                Some(c) => {
                    c.count += 1;
                    c.severity = c.severity.max(u.severity);
                    Seen::place(&mut c.first, &mut c.last, &seen);
                    c.seen_at = self.unknown_seen;
                    // A template only grows as events join it, and each carries it as it is
                    // then: the last event's is the cluster's at the end of the run.
                    if c.template != u.template {
                        c.template.clear();
                        c.template.push_str(u.template);
                    }
                }
                None => {
                    // Past the cap the least recently seen sixteenth goes, as the clusterer lets
                    // kinds go ([`crate::unknown::EVICT_FRACTION`]).
                    if self.clusters.len() >= UNKNOWN_CAP {
                        self.clusters_dropped += crate::unknown::drop_least_recent(&mut self.clusters, |c| c.seen_at);
                    }
                    self.clusters.insert(
                        u.cluster,
                        ClusterStats {
                            template: u.template.to_owned(),
                            count: 1,
                            severity: u.severity,
                            first: Some(seen.clone()),
                            last: Some(seen.clone()),
                            example: cut(&crate::discover::example(ev.raw, u.text), EXAMPLE_BYTES).to_owned(),
                            seen_at: self.unknown_seen,
                        },
                    );
                }
            }
        }
        let Some(first) = ev.found.first() else { return Flow::Go };
        let captures = ev.captures(first);
        let s = &mut self.records[first.entry as usize];
        s.primary += 1;
        if let Some(d) = first.distance {
            s.located += 1;
            s.nearest = Some(s.nearest.map_or(d, |n| n.min(d)));
        }
        // Incidents of the primary matches, with the default window and key (a run's counts
        // include the records an event also matched).
        let key = crate::repeat::Parts::of_found(ev, first).key(&crate::repeat::KeySpec::default());
        if self.repeats.observe(key, crate::repeat::event_millis(ev.timestamp)) == crate::repeat::Seen::First {
            s.incidents += 1;
        }
        Seen::place(&mut s.first, &mut s.last, &seen);
        for (name, value) in captures {
            let at = match s.values.iter().position(|v| v.name == name) {
                Some(i) => i,
                None => {
                    s.values.push(Values { name: name.to_owned(), ..Default::default() });
                    s.values.len() - 1
                }
            };
            s.values[at].add(&value);
        }
        for f in &ev.found[1..] {
            let s = &mut self.records[f.entry as usize];
            s.also += 1;
            // A record's first and last seen are where it was matched at all: a wrapper's error
            // that is mostly also-matched showed no time, or hours off (found by an incident
            // responder's reading).
            Seen::place(&mut s.first, &mut s.last, &seen);
            let key = (first.entry, f.entry);
            if let Some(n) = self.chains.get_mut(&key) {
                *n += 1;
            } else if self.chains.len() < MAX_CHAINS {
                self.chains.insert(key, 1);
            } else {
                self.chains_dropped += 1;
            }
        }
        Flow::Go
    }

    fn flush(&mut self) {}

    fn error(&self) -> Option<&io::Error> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_widths_give_at_most_120_buckets() {
        for span in
            [0, 5, 999, 40_000, 41_000, 120_000, 3_600_000, 4_200_000, 86_400_000, 30 * 86_400_000, 400 * 86_400_000i64]
        {
            for &fine in &FINE_WIDTHS_MS {
                let w = bucket_width(span, fine);
                assert_eq!(w % fine, 0, "span {span} fine {fine}: {w}");
                // Buckets aligned to multiples of the width: the span may touch one more.
                let most = (span + w - 1) / w + 1;
                assert!(most <= TARGET_BUCKETS, "span {span} fine {fine}: {w} ({most} buckets)");
            }
        }
        // A 2,000-line log over ~2 hours: 2-minute buckets.
        assert_eq!(bucket_width(7_200_000, 1_000), 120_000);
    }

    #[test]
    fn timeline_coarsens_and_keeps_every_count() {
        let mut t = Timeline::new();
        let mut n = 0;
        for i in 0..10_000i64 {
            t.add(1_772_438_400_000 + i * 37_000, (i % 3) as u32);
            n += 1;
        }
        assert!(t.counts.len() as i64 <= MAX_FINE * 3);
        assert_eq!(t.counts.values().sum::<u64>(), n);
        let (lo, hi) = t.range.unwrap();
        assert!(hi - lo < MAX_FINE);
    }

    #[test]
    fn script_json_cannot_close_the_script() {
        let v = json!({"m": "</script><script>alert(1)</script> & \u{2028}"});
        let s = script_safe_json(&v);
        assert!(!s.contains('<') && !s.contains('>') && !s.contains('&'), "{s}");
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v);
    }

    #[test]
    fn values_are_capped_and_counted() {
        let mut v = Values::default();
        for i in 0..(DISTINCT_CAP + 50) {
            v.add(&format!("v{i}"));
            v.add("v0");
        }
        assert_eq!(v.shown.len(), SHOWN_VALUES);
        assert_eq!(v.shown[0], ("v0".to_owned(), (DISTINCT_CAP + 50 + 1) as u64));
        assert_eq!(v.hashes.len(), DISTINCT_CAP);
        assert!(v.saturated);
    }
}
