//! `annotail stats`: a maintenance report on a catalog, for the people and CI jobs that keep it.
//!
//! Owns three measurements, each made through the same stages the daemon runs (framing, the
//! prefilter, [`Annotator`], [`Matcher::confirm`]), never through a shortcut of its own:
//!
//! 1. **Overlaps.** Every usable record with a message template gets a *sample line*: the
//!    template with each placeholder filled by a plausible value ([`sample_message`]), printed as
//!    the message of a RisingWave `ERROR` line. All samples go through framing and annotate as
//!    one log. A record B ≠ A confirmed on A's sample is an overlap pair (A, B); a record not
//!    confirmed on its own sample is a *self mismatch*: its regex and its template disagree.
//!    Records without a template have no sample and are only counted.
//! 2. **Matches.** With `--against FILE`, the files go through [`source::run`] (any layout the
//!    daemon reads) into a counting [`Writer`]; every record confirmed in an event counts one
//!    match (and one primary match when it ranks first). Records with no match are reported.
//! 3. **Cost.** For each event the writer receives, the event's haystacks are scanned by the
//!    prefilter again and each candidate record is confirmed alone, timed with [`Instant`]. The
//!    events are the `--against` files' when given, else the samples. The time is that of
//!    [`Matcher::confirm`] for one candidate (literal checks, the literal-sequence matcher or the
//!    regex, captures), including the clock reads: the steady cost per event, the fastest of
//!    [`REPEATS`] runs, after [`WARMUP`] untimed runs on the record's first event (compilation
//!    and the filling of lazy DFAs are one-off costs).
//!
//! Contract: the report depends only on the catalog and the inputs, except for the timings.
//! A catalog that cannot be loaded (an unreadable path, no usable record) and an `--against` file
//! that cannot be read are errors ([`StatsError`]); single bad records are left out as in a run
//! and counted in the report.

use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;
use crate::status::Status;
use std::time::Instant;

use serde::Serialize;

use crate::annotate::SourceMeta;
use crate::stage::{Setup, Stage};
use crate::catalog::template::{self, Part};
use crate::catalog::{self, Level, Problem};
use crate::event::{Annotated, Flow, Writer};
use crate::framing;
use crate::matcher::{Limits, Matcher, Scratch};
use crate::source;

/// The options of `annotail stats` (its `--help` text is these doc comments).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A catalog file or directory; repeatable; later paths override earlier ones by record id;
    /// `@embedded` names the catalog embedded in the binary.
    /// Default: the config file's `catalog`, else the catalog embedded in the binary.
    #[arg(short = 'c', long = "catalog", value_name = "PATH")]
    pub catalog: Vec<PathBuf>,

    /// A log file (any layout annotail reads) to count each record's matches in; repeatable;
    /// '-' is standard input. The confirm timings are then measured on these events.
    #[arg(long, value_name = "FILE")]
    pub against: Vec<PathBuf>,

    /// Report format: text for people, json (one object) for CI pipelines.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,

    /// How many records the most-matched and slowest lists hold, and how many never-matched ids
    /// the text report lists.
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub top: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
}

/// Why no report could be made.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    /// A catalog path cannot be read, or no record is usable; the problems say why.
    #[error("the catalog could not be loaded ({} problem(s))", problems.len())]
    Catalog { problems: Vec<Problem> },
    #[error("cannot read --against file {}: {source}", path.display())]
    Against { path: PathBuf, source: io::Error },
    /// Reading failed part-way (the pipeline's diagnostics on standard error say how).
    #[error("cannot read --against file {}: {source}", path.display())]
    AgainstRun { path: PathBuf, source: source::RunError },
}

/// Timestamp of every sample line: any valid one would do.
const SAMPLE_TS: &str = "2026-03-02T08:00:00.000000000Z";
/// Level and target of every sample line. `ERROR` is where catalog messages are printed; the
/// target is not RisingWave's, so no record's literal is in it and the header adds no prefilter
/// hit of its own: an overlap is the messages' doing.
const SAMPLE_HEADER: &str = "ERROR annotail_stats::sample";

/// One overlap: the record whose sample it is, and the other records confirmed on that sample.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Overlap {
    pub record: String,
    pub also_matched_by: Vec<String>,
}

/// A record its own sample does not confirm.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct SelfMismatch {
    pub record: String,
    pub sample: String,
}

/// A record's matches in the `--against` files.
#[derive(Debug, Clone, Serialize)]
pub struct Matched {
    pub record: String,
    /// Events in which the record was confirmed.
    pub matches: u64,
    /// Events in which it was the primary match.
    pub primary: u64,
    /// Distinct incidents among the matches: repeats of the same record and captured values
    /// within a minute count once (see `--collapse-window` in the README).
    pub incidents: u64,
}

/// What one record's confirmation cost.
#[derive(Debug, Clone, Serialize)]
pub struct Cost {
    pub record: String,
    /// Events on which the record was a candidate and so confirmed.
    pub calls: u64,
    /// Microseconds, to the nanosecond: a small log's totals are well under one.
    pub total_us: f64,
    pub mean_ns: u64,
}

/// What the `--against` files held.
#[derive(Debug, Clone, Serialize)]
pub struct Against {
    pub files: Vec<String>,
    pub lines: u64,
    pub bytes: u64,
    /// Events with at least one confirmed record.
    pub matched_events: u64,
}

/// The report; serialised as is for `--format json`.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Usable records (compiled, in the matcher).
    pub records: usize,
    /// Records read from the catalog files, before merging and before bad ones were left out.
    pub records_read: usize,
    /// Problems met loading the catalog (`annotail check` lists them).
    pub catalog_errors: usize,
    pub catalog_warnings: usize,
    /// Usable records with a sample (a message template).
    pub samples: usize,
    /// Usable records without a template: no sample, left out of overlaps and self mismatches.
    pub without_template: usize,
    /// Pairs (A, B): A's sample is also confirmed by B.
    pub overlap_pairs: usize,
    pub overlaps: Vec<Overlap>,
    pub self_mismatch: Vec<SelfMismatch>,
    /// `None` without `--against`.
    pub against: Option<Against>,
    /// Ids of the records never confirmed in the `--against` files (`None` without them).
    pub never_matched: Option<Vec<String>>,
    pub never_matched_count: Option<usize>,
    /// The `--top` records with the most matches (empty without `--against`).
    pub top_matched: Vec<Matched>,
    /// What the timings were measured on: `against` or `samples`.
    pub timed_over: &'static str,
    /// The `--top` records whose confirmation took longest in total.
    pub slowest: Vec<Cost>,
    /// Wall-clock time of the whole command, catalog loading included.
    pub elapsed_ms: u64,
    /// The `--top` the lists were cut to (the text report also cuts `never_matched` to it).
    #[serde(skip)]
    top: usize,
    /// Slugs by record id, for the text report.
    #[serde(skip)]
    slugs: rustc_hash::FxHashMap<String, String>,
}

/// Load the catalog as a run does; an error when nothing usable is left or a path is unreadable.
pub fn load(paths: &[PathBuf]) -> Result<(Matcher, Vec<Problem>, usize), StatsError> {
    let cat = catalog::load(paths);
    let read = cat.read;
    let (m, problems) = Matcher::new(cat, Limits::default());
    let fatal = problems.iter().any(catalog::Problem::is_fatal);
    if fatal || m.entries.is_empty() {
        return Err(StatsError::Catalog { problems });
    }
    Ok((m, problems, read))
}

/// Make the report. `started`: when the command started, for `elapsed_ms`; `limits`: the
/// framing limits a run would use on the `--against` files (the config's `[input]`).
#[allow(clippy::too_many_arguments)]
pub fn report(
    m: &Matcher,
    problems: &[Problem],
    read: usize,
    against: &[PathBuf],
    top: usize,
    started: Instant,
    limits: framing::Limits,
) -> Result<Report, StatsError> {
    // Fail on an unreadable file before any work, naming it.
    for p in against {
        crate::source::check_input(p).map_err(|source| StatsError::Against { path: p.to_owned(), source })?;
    }
    warm(m);
    let timed_over = if against.is_empty() { "samples" } else { "against" };
    let sampled = sample_pass(m, against.is_empty());
    let (against, counted) = match against_pass(m, against, limits)? {
        Some((a, rec)) => (Some(a), Some(rec)),
        None => (None, None),
    };
    let cost = counted.as_ref().map_or(&sampled.cost, |t| &t.cost);
    let mut never_matched = None;
    let mut top_matched = Vec::new();
    if let Some(t) = &counted {
        let mut ids: Vec<String> =
            (0..m.entries.len()).filter(|&e| t.matches[e] == 0).map(|e| id(m, e).to_owned()).collect();
        ids.sort();
        never_matched = Some(ids);
        let mut by_count: Vec<usize> = (0..m.entries.len()).filter(|&e| t.matches[e] > 0).collect();
        by_count.sort_by(|&x, &y| t.matches[y].cmp(&t.matches[x]).then_with(|| id(m, x).cmp(id(m, y))));
        top_matched = by_count
            .iter()
            .take(top)
            .map(|&e| Matched {
                record: id(m, e).to_owned(),
                matches: t.matches[e],
                primary: t.primary[e],
                incidents: t.incidents[e],
            })
            .collect();
    }
    let mut by_time: Vec<usize> = (0..m.entries.len()).filter(|&e| cost[e].0 > 0).collect();
    by_time.sort_by(|&x, &y| cost[y].1.cmp(&cost[x].1).then_with(|| id(m, x).cmp(id(m, y))));
    let slowest = by_time
        .iter()
        .take(top)
        .map(|&e| {
            let (calls, ns) = cost[e];
            Cost { record: id(m, e).to_owned(), calls, total_us: ns as f64 / 1000.0, mean_ns: ns / calls.max(1) }
        })
        .collect();
    let errors = problems.iter().filter(|p| p.level == Level::Error).count();
    let slugs = m.entries.iter().filter_map(|e| e.rec.slug().map(|s| (e.rec.id.clone(), s.to_owned()))).collect();
    Ok(Report {
        records: m.entries.len(),
        records_read: read,
        catalog_errors: errors,
        catalog_warnings: problems.len() - errors,
        samples: sampled.samples,
        without_template: m.entries.len() - sampled.samples,
        overlap_pairs: sampled.overlaps.iter().map(|o| o.also_matched_by.len()).sum(),
        overlaps: sampled.overlaps,
        self_mismatch: sampled.self_mismatch,
        never_matched_count: never_matched.as_ref().map(Vec::len),
        never_matched,
        against,
        top_matched,
        timed_over,
        slowest,
        elapsed_ms: started.elapsed().as_millis() as u64,
        top,
        slugs,
    })
}

/// What the samples showed.
struct SamplePass {
    samples: usize,
    overlaps: Vec<Overlap>,
    self_mismatch: Vec<SelfMismatch>,
    /// Per record: (calls, nanoseconds), when timed.
    cost: Vec<(u64, u64)>,
}

/// Run every record's sample through framing and annotate as one log.
fn sample_pass(m: &Matcher, timed: bool) -> SamplePass {
    let (samples, owners) = samples(m);
    let mut rec = Recorder::new(m, timed, true);
    {
        let mut stage = Stage::new(m, &Setup::every_event(), &mut rec, SourceMeta::stdin());
        stage.feed(samples.text.as_bytes(), std::time::SystemTime::now());
        stage.finish();
    }
    // Which records each sample confirmed: a sample is one event, unless a line of its message
    // looks like the start of another; then the sample is the union of its events.
    let mut hits: Vec<Vec<u32>> = vec![Vec::new(); owners.len()];
    for (line, found) in rec.events.iter().flatten() {
        let i = samples.first_lines.partition_point(|&l| l <= *line);
        if i > 0 {
            hits[i - 1].extend(found);
        }
    }
    let mut overlaps = Vec::new();
    let mut self_mismatch = Vec::new();
    for (i, &e) in owners.iter().enumerate() {
        let found = &mut hits[i];
        found.sort_unstable();
        found.dedup();
        if !found.contains(&e) {
            self_mismatch
                .push(SelfMismatch { record: id(m, e as usize).to_owned(), sample: samples.messages[i].clone() });
        }
        let mut others: Vec<String> =
            found.iter().filter(|&&f| f != e).map(|&f| id(m, f as usize).to_owned()).collect();
        if !others.is_empty() {
            others.sort();
            overlaps.push(Overlap { record: id(m, e as usize).to_owned(), also_matched_by: others });
        }
    }
    overlaps.sort_by(|a, b| a.record.cmp(&b.record));
    self_mismatch.sort_by(|a, b| a.record.cmp(&b.record));
    SamplePass { samples: owners.len(), overlaps, self_mismatch, cost: rec.cost }
}

/// Run the `--against` files through the pipeline into a counting, timing writer; `None` when
/// there are none.
fn against_pass<'m>(
    m: &'m Matcher,
    files: &[PathBuf],
    limits: framing::Limits,
) -> Result<Option<(Against, Recorder<'m>)>, StatsError> {
    if files.is_empty() {
        return Ok(None);
    }
    let mut rec = Recorder::new(m, true, false);
    let mut a = Against { files: Vec::new(), lines: 0, bytes: 0, matched_events: 0 };
    for p in files {
        let mut cfg = source::RunConfig::collecting(vec![p.clone()], limits);
        // Repeats are decided per file, with the default window and key. (`collecting` frames
        // sparsely: only events with a prefilter hit can have a candidate.)
        cfg.stage.incidents =
            Some(std::sync::Arc::new(crate::repeat::Incidents::new(Default::default(), crate::repeat::DEFAULT_WINDOW, true)));
        let (_, totals) =
            source::run(m, &cfg, &mut rec).map_err(|source| StatsError::AgainstRun { path: p.clone(), source })?;
        a.lines += totals.lines;
        a.bytes += totals.bytes;
        a.matched_events += totals.counters.matched;
        a.files.push(p.display().to_string());
    }
    Ok(Some((a, rec)))
}

fn id(m: &Matcher, e: usize) -> &str {
    &m.entries[e].rec.id
}


/// Compile the regexes that confirmation may need before anything is timed: the daemon compiles
/// each once, on first use, and that one-off cost is not what `slowest` measures.
fn warm(m: &Matcher) {
    for e in &m.entries {
        if e.seq.is_none() {
            let _ = e.regex();
        }
        let _ = e.absent_regex();
    }
}

/// The samples as one log text, with the 1-based line each sample starts at.
struct Samples {
    text: String,
    first_lines: Vec<u64>,
    /// Each sample's message (without the header).
    messages: Vec<String>,
}

/// Sample lines for every entry with a template; the entry index of each sample.
fn samples(m: &Matcher) -> (Samples, Vec<u32>) {
    let mut s = Samples { text: String::new(), first_lines: Vec::new(), messages: Vec::new() };
    let mut owners = Vec::new();
    let mut line = 1u64;
    for (i, e) in m.entries.iter().enumerate() {
        let Some(t) = e.rec.template.as_deref() else { continue };
        let msg = sample_message(t);
        s.first_lines.push(line);
        line += 1 + msg.matches('\n').count() as u64;
        let _ = writeln!(s.text, "{SAMPLE_TS} {SAMPLE_HEADER}: {msg}");
        s.messages.push(msg);
        owners.push(i as u32);
    }
    (s, owners)
}

/// The text a template prints with plausible values in its placeholders (see [`sample_value`]).
pub fn sample_message(template: &str) -> String {
    let parts = template::parse(template);
    let mut out = String::with_capacity(template.len() + 16);
    for p in &parts {
        match p {
            Part::Lit(l) => out.push_str(l),
            Part::Ph { name, spec } => out.push_str(sample_value(name, spec)),
        }
    }
    out
}

/// A value for a placeholder, chosen by its name and format spec. Values are short, have no
/// `=` (a ` key=` would start a field and cut the match), no `: ` (an error-chain link) and no
/// line break, and are plain words that few catalog literals contain, so that an overlap is the
/// records' doing, not the value's.
pub fn sample_value(name: &str, spec: &str) -> &'static str {
    let debug = spec.contains('?');
    let name = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| name == *w || name.ends_with(&format!("_{w}")));
    if name.starts_with('_') && name[1..].bytes().all(|b| b.is_ascii_digit()) {
        // Unnamed: Debug output of an unknown value, or Display of one.
        return if debug { "\"sample\"" } else { "sample" };
    }
    if has(&["e", "err", "error", "source", "cause", "reason", "msg", "message", "why", "details", "status"]) {
        return "sample failure";
    }
    if has(&[
        "id", "ids", "epoch", "count", "num", "n", "len", "size", "index", "idx", "port", "version", "secs", "nsecs",
        "ms", "millis", "offset", "limit", "capacity", "max", "min", "bytes", "code",
    ]) {
        return "42";
    }
    if has(&["url", "uri", "endpoint"]) {
        return "http://127.0.0.1:4566/sample";
    }
    if has(&["addr", "address", "host"]) {
        return "127.0.0.1:4566";
    }
    if has(&["path", "file", "dir", "location", "prefix"]) {
        return "/tmp/sample";
    }
    if has(&["ty", "type", "kind", "data_type", "unit"]) {
        return if debug { "Int64" } else { "bigint" };
    }
    if debug { "\"sample_1\"" } else { "sample_1" }
}

/// Untimed confirmations of a record before its first timed one. A regex's lazy DFAs fill in
/// over its first searches: the mongodb record `...status: (.+?)(.+?)` took 30, 29, 6, 1.4 and
/// 0.9 µs on the same line. That one-off cost is not the record's cost per line.
const WARMUP: usize = 3;
/// Timed confirmations per record and event, of which the fastest counts. Confirming the same
/// event is deterministic work: the minimum drops preemption and clock noise, which once put a
/// 0.2 µs record at 14 µs on a busy 2-core machine.
const REPEATS: usize = 3;

/// The counting writer: per record, matches and primary matches; optionally the cost of
/// confirming each candidate of each event; for the sample pass, what each event confirmed.
struct Recorder<'m> {
    m: &'m Matcher,
    matches: Vec<u64>,
    primary: Vec<u64>,
    incidents: Vec<u64>,
    /// Per record: (calls, nanoseconds).
    cost: Vec<(u64, u64)>,
    /// Records already warmed up (see [`WARMUP`]).
    warmed: Vec<bool>,
    timed: bool,
    /// (first line, confirmed records) of every event written, for the sample pass; `None` for
    /// `--against` files, whose events need not be kept.
    events: Option<Vec<(u64, Vec<u32>)>>,
    scratch: Scratch,
    hits: Vec<crate::matcher::prefilter::Hit>,
    cands: Vec<u32>,
}

impl<'m> Recorder<'m> {
    fn new(m: &'m Matcher, timed: bool, keep_events: bool) -> Self {
        let n = m.entries.len();
        Recorder {
            m,
            matches: vec![0; n],
            primary: vec![0; n],
            incidents: vec![0; n],
            cost: vec![(0, 0); n],
            warmed: vec![false; n],
            timed,
            events: keep_events.then(Vec::new),
            scratch: Scratch::default(),
            hits: Vec::new(),
            cands: Vec::new(),
        }
    }

    /// Confirm each candidate of the event alone and time it. Only candidates: timing every
    /// record against every sample of the 4,350-record catalog (19 million confirmations, one timed
    /// run each) took
    /// 2.3 s instead of 0.13 s, and ranked records by clock noise, since a record whose literals
    /// are missing is rejected in tens of nanoseconds.
    fn time(&mut self, ev: &Annotated<'_>) {
        self.hits.clear();
        for h in ev.hays {
            self.m.scan(h.text, &mut self.hits, &mut self.scratch);
        }
        self.m.candidates(self.hits.iter().map(|h| h.literal), &mut self.scratch);
        let mut cands = std::mem::take(&mut self.cands);
        cands.clear();
        cands.extend_from_slice(&self.scratch.cands);
        for &c in &cands {
            let runs = if self.warmed[c as usize] { 0 } else { WARMUP };
            self.warmed[c as usize] = true;
            for _ in 0..runs {
                self.confirm_one(c, ev);
            }
            let ns = (0..REPEATS).map(|_| self.confirm_one(c, ev)).min().unwrap_or(0);
            let slot = &mut self.cost[c as usize];
            slot.0 += 1;
            slot.1 += ns;
        }
        self.cands = cands;
    }

    /// Confirm one candidate on the event; the nanoseconds it took.
    fn confirm_one(&mut self, c: u32, ev: &Annotated<'_>) -> u64 {
        self.scratch.cands.clear();
        self.scratch.cands.push(c);
        let t = Instant::now();
        self.m.confirm(ev.hays, &mut self.scratch);
        t.elapsed().as_nanos() as u64
    }
}

impl Writer for Recorder<'_> {
    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow {
        for (i, f) in ev.found.iter().enumerate() {
            self.matches[f.entry as usize] += 1;
            if ev.seen.get(i) == Some(&crate::repeat::Seen::First) {
                self.incidents[f.entry as usize] += 1;
            }
        }
        if let Some(f) = ev.found.first() {
            self.primary[f.entry as usize] += 1;
        }
        if self.timed {
            self.time(ev);
        }
        if let Some(events) = &mut self.events {
            events.push((ev.source.line, ev.found.iter().map(|f| f.entry).collect()));
        }
        Flow::Go
    }

    fn flush(&mut self) {}

    fn error(&self) -> Option<&io::Error> {
        None
    }
}

impl Report {
    /// The text report.
    pub fn text(&self) -> String {
        let mut o = String::new();
        let slug = |id: &str| self.slugs.get(id).map_or(String::new(), |s| format!(" ({s})"));
        let _ = writeln!(
            o,
            "catalog: {} record(s) usable of {} read ({} error(s), {} warning(s); see `annotail check`)",
            self.records, self.records_read, self.catalog_errors, self.catalog_warnings
        );
        let _ = writeln!(
            o,
            "samples: {} record(s) with a template, {} without (skipped)",
            self.samples, self.without_template
        );
        let _ = writeln!(o, "\n== Overlaps: {} pair(s) in {} record(s)", self.overlap_pairs, self.overlaps.len());
        let _ = writeln!(o, "   a record's sample line is also matched by the records after the arrow");
        for ov in &self.overlaps {
            let _ = writeln!(o, "  {}{} -> {}", ov.record, slug(&ov.record), ov.also_matched_by.join(", "));
        }
        let _ = writeln!(o, "\n== Self mismatches: {} record(s)", self.self_mismatch.len());
        let _ = writeln!(o, "   a record's regex does not match the sample made from its own template");
        for s in &self.self_mismatch {
            let _ = writeln!(o, "  {}{}: {:?}", s.record, slug(&s.record), s.sample);
        }
        match (&self.against, &self.never_matched) {
            (Some(a), Some(never)) => {
                let _ = writeln!(
                    o,
                    "\n== Never matched: {} of {} record(s) in {} ({} line(s), {} event(s) with a match)",
                    never.len(),
                    self.records,
                    a.files.join(", "),
                    a.lines,
                    a.matched_events
                );
                for id in never.iter().take(self.top) {
                    let _ = writeln!(o, "  {id}{}", slug(id));
                }
                if never.len() > self.top {
                    let _ = writeln!(o, "  … and {} more", never.len() - self.top);
                }
                let _ = writeln!(o, "\n== Most matched (top {})", self.top);
                let _ = writeln!(o, "  {:>8} {:>8} {:>9}  record", "matches", "primary", "incidents");
                for t in &self.top_matched {
                    let _ =
                        writeln!(o, "  {:>8} {:>8} {:>9}  {}{}", t.matches, t.primary, t.incidents, t.record, slug(&t.record));
                }
            }
            _ => {
                let _ = writeln!(o, "\n== Never matched / most matched: give --against FILE (a real log)");
            }
        }
        let over = if self.timed_over == "against" { "the --against events" } else { "the sample lines" };
        let _ = writeln!(
            o,
            "\n== Slowest records (top {}, confirm time over {over} where the record was a candidate)",
            self.top
        );
        let _ = writeln!(o, "  {:>10} {:>8} {:>9}  record", "total_us", "calls", "mean_ns");
        for c in &self.slowest {
            let _ =
                writeln!(o, "  {:>10.1} {:>8} {:>9}  {}{}", c.total_us, c.calls, c.mean_ns, c.record, slug(&c.record));
        }
        let _ = writeln!(o, "\ntook {} ms", self.elapsed_ms);
        o
    }
}

/// `annotail stats`, as `main` runs it: `catalog` is the catalog paths after the config file is
/// taken into account. Prints the report on standard output, errors on standard error; exit
/// status 0, or 2 when the catalog or an `--against` file cannot be read.
pub fn command(args: &Args, catalog: &[PathBuf], limits: framing::Limits) -> Status {
    let started = Instant::now();
    let result = load(catalog).and_then(|(m, problems, read)| {
        let r = report(&m, &problems, read, &args.against, args.top, started, limits);
        // Freeing the compiled catalog takes longer than the OS needs to reclaim it.
        std::mem::forget(m);
        r
    });
    match result {
        Ok(r) => {
            match args.format {
                ReportFormat::Text => print!("{}", r.text()),
                ReportFormat::Json => println!("{}", serde_json::to_string(&r).expect("a report serialises")),
            }
            Status::Success
        }
        Err(StatsError::Catalog { problems }) => {
            for p in &problems {
                eprintln!("{p}");
            }
            eprintln!("annotail: the catalog could not be loaded");
            Status::Refused
        }
        Err(e) => {
            eprintln!("annotail: {e}");
            Status::Refused
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_message_fills_placeholders_by_name_and_spec() {
        let cases: &[(&str, &str)] = &[
            (
                "should not pause when having snapshot backfill job {job_id}",
                "should not pause when having snapshot backfill job 42",
            ),
            ("Storage error: {0}", "Storage error: sample"),
            ("failed to list splits: {e}", "failed to list splits: sample failure"),
            ("table {table_name:?} not found", "table \"sample_1\" not found"),
            ("unexpected {}: {:?}", "unexpected sample: \"sample\""),
            ("bad value {v} (expected {{x}})", "bad value sample_1 (expected {x})"),
            ("cannot open {path} at {self.addr}", "cannot open /tmp/sample at 127.0.0.1:4566"),
            ("cast to {data_type:?} from {ty}", "cast to Int64 from bigint"),
            ("Not supported: {0}\nHINT: {1}", "Not supported: sample\nHINT: sample"),
            ("no placeholders", "no placeholders"),
            ("unclosed { brace", "unclosed { brace"),
        ];
        for (t, want) in cases {
            assert_eq!(sample_message(t), *want, "{t}");
        }
    }

    #[test]
    fn sample_values_are_inert() {
        let names = ["_1", "e", "job_id", "url", "addr", "path", "ty", "name", "x.source", "REDIS_VALUE_TYPE"];
        for n in names {
            for spec in ["", ":?", ":#?"] {
                let v = sample_value(n, spec);
                assert!(
                    !v.is_empty() && !v.contains('=') && !v.contains(": ") && !v.contains('\n'),
                    "{n}{spec}: {v:?}"
                );
            }
        }
    }

    /// Drive the report over an in-memory catalog: the overlap, the self mismatch and the sample
    /// mapping come out of the real framing and annotate path.
    #[test]
    fn report_finds_overlap_and_self_mismatch() {
        let text = r#"{"id":"wide","errorMessage":"connection to {addr} refused","messagePattern":"connection to (.+?) refused"}
{"id":"narrow","errorMessage":"connection to meta {addr} refused"}
{"id":"alone","errorMessage":"barrier collection failed for actor {actor_id}"}
{"id":"liar","errorMessage":"cannot drop table {name}","messagePattern":"cannot drop view (.+?)"}
"#;
        let (m, problems) = Matcher::new(catalog::from_text("t.jsonl", text), Limits::default());
        assert!(problems.is_empty(), "{problems:?}");
        let r = report(&m, &problems, 4, &[], 5, Instant::now(), framing::Limits::default()).unwrap();
        assert_eq!(r.overlaps, vec![Overlap { record: "narrow".into(), also_matched_by: vec!["wide".into()] }]);
        assert_eq!(r.overlap_pairs, 1);
        assert_eq!(r.self_mismatch.len(), 1, "{:?}", r.self_mismatch);
        assert_eq!(r.self_mismatch[0].record, "liar");
        assert_eq!(r.self_mismatch[0].sample, "cannot drop table sample_1");
        assert_eq!((r.samples, r.without_template, r.timed_over), (4, 0, "samples"));
        assert!(r.never_matched.is_none());
        // Every record whose key literal is in some sample was a candidate and timed; `liar`'s
        // key (`cannot drop view`) is in none.
        let timed: Vec<&str> = r.slowest.iter().map(|c| c.record.as_str()).collect();
        assert_eq!(timed.len(), 3, "{timed:?}");
        assert!(!timed.contains(&"liar"), "{timed:?}");
        assert!(r.slowest.iter().all(|c| c.calls >= 1), "{:?}", r.slowest);
    }
}
