//! The pipeline for reading inputs to their end: source → framing → annotate → writer.
//!
//! Owns the read loop, the idle timeout and flushing. Standard input is read on a thread of its
//! own so that the idle timeout can complete a pending multi-line event while no input arrives.
//! A file is read in large blocks on the calling thread, or, with `--threads` above one, cut into
//! segments that start with an event and matched by workers, the output written in input order.
//! Output is flushed after every read from standard input, so `kubectl logs -f | annotail` sees
//! each event as soon as it is complete.
//!
//! Contract: a closed output (`| head`) ends the run quietly with [`Outcome::OutputClosed`]; an
//! unreadable input is reported and the other inputs are still read.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use crate::annotate::{Annotator, Emit, SourceMeta};
use crate::event::Writer;
use crate::framing::{self, Framer};
use crate::matcher::Matcher;
use crate::metrics::{Metrics, SourceMetrics, Tally};
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Inputs; `-` is standard input. Empty means standard input.
    pub paths: Vec<PathBuf>,
    pub emit: Emit,
    /// Every event goes to the writer (`--all`, or pretty output, which echoes every line).
    pub every_event: bool,
    /// Complete a pending event after this long without input (standard input only).
    pub idle: Duration,
    pub framing: framing::Limits,
    /// Threads for file input (standard input is always read by one).
    pub threads: usize,
    /// Output format and colours, for the writers of worker threads.
    pub format: crate::event::Format,
    pub color: bool,
    pub width: usize,
    /// Where counts go as they happen (the metrics endpoint); none to count only the totals.
    pub metrics: Option<Arc<Metrics>>,
    /// Matches per record (`--summary`, metrics).
    pub tally: Option<Arc<Tally>>,
    /// Repeats and incidents (counted in `tally`; pretty output's collapse).
    pub incidents: Option<Arc<crate::repeat::Incidents>>,
    /// Record fields and size bound of the events written.
    pub shape: Arc<crate::event::Shape>,
    /// `--unknown`: the run's clusterer (files are then read by one thread, so that clusters
    /// and their ids do not depend on how threads interleave).
    pub unknown: Option<crate::unknown::Shared>,
}

impl RunConfig {
    /// A run of `paths` on one thread into a writer that collects `Annotated` events in
    /// process (`stats`, `report`, `discover`): every event the framer passes is written, no
    /// output is rendered, nothing is counted beside the totals. Callers change what they need.
    pub fn collecting(paths: Vec<PathBuf>, framing: framing::Limits) -> RunConfig {
        RunConfig {
            paths,
            emit: Emit::All,
            every_event: false,
            // The collector sees `Annotated` events only on one thread (workers render to bytes).
            threads: 1,
            format: crate::event::Format::Json,
            color: false,
            width: 80,
            idle: Duration::from_millis(100),
            framing,
            metrics: None,
            tally: None,
            incidents: None,
            shape: Arc::new(crate::event::Shape::all()),
            unknown: None,
        }
    }
}

fn unknown_levels(cfg: &RunConfig) -> crate::unknown::Levels {
    cfg.unknown.as_ref().map_or(crate::unknown::Levels::Off, |u| u.levels)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Done,
    OutputClosed,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot write output: {0}")]
    Output(io::Error),
    #[error("{failed} input(s) could not be read")]
    Inputs { failed: usize },
}

pub use crate::counts::Totals;

/// The counts of one input so far.
pub fn totals_of<W: Writer>(framer: &Framer<'_>, ann: &Annotator<'_, W>) -> Totals {
    Totals::new(framer.stats, ann.counters)
}

/// Counts of one input published to the metrics as it is read.
struct Report<'a> {
    metrics: Option<(&'a Metrics, SourceMetrics)>,
    last: Totals,
}

impl<'a> Report<'a> {
    fn new(cfg: &'a RunConfig, source: &str) -> Report<'a> {
        Report { metrics: cfg.metrics.as_deref().map(|m| (m, m.source(source))), last: Totals::default() }
    }

    /// The input's counts so far (a snapshot of the same counts as the last one).
    fn update(&mut self, now: Totals) {
        self.add(&(now - self.last));
        self.last = now;
    }

    /// Counts since the last report.
    fn add(&self, d: &Totals) {
        if let Some((m, source)) = &self.metrics {
            m.add_read(source, d);
            m.events_written.inc_by(d.counters.written);
        }
    }
}

/// Read size for files: large blocks keep the prefilter on long runs of bytes.
const FILE_BLOCK: usize = 4 << 20;
/// Read size for standard input: a pipe delivers at most 64 KiB at a time anyway.
const STDIN_BLOCK: usize = 256 << 10;
/// Chunks in flight between the standard-input thread and the pipeline.
const STDIN_QUEUE: usize = 4;

/// The head of the first input that is a regular file: the skim learns from it which words are
/// common in these logs (README, "Performance"). A file that cannot be read is left to the run to
/// report.
pub fn input_head(paths: &[PathBuf]) -> Option<Vec<u8>> {
    let path = paths.iter().find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file()))?;
    sample_of(path, false)
}

/// Up to [`crate::matcher::skim::INPUT_SAMPLE`] bytes of `path`, from its start or its end.
pub fn sample_of(path: &std::path::Path, from_end: bool) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let limit = crate::matcher::skim::INPUT_SAMPLE as u64;
    let mut file = std::fs::File::open(path).ok()?;
    if from_end {
        let len = file.metadata().ok()?.len();
        file.seek(SeekFrom::Start(len.saturating_sub(limit))).ok()?;
    }
    let mut sample = Vec::new();
    file.take(limit).read_to_end(&mut sample).ok()?;
    Some(sample)
}

/// Whether an input named on the command line can be read: it opens and is not a directory
/// (`-`, standard input, always can). Checked before any work, so that a report names it.
pub fn check_input(p: &std::path::Path) -> io::Result<()> {
    if p.as_os_str() == "-" {
        return Ok(());
    }
    if std::fs::File::open(p)?.metadata()?.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    Ok(())
}

pub fn run(matcher: &Matcher, cfg: &RunConfig, writer: &mut dyn Writer) -> Result<(Outcome, Totals), RunError> {
    let mut totals = Totals::default();
    let mut failed = 0;
    let paths: Vec<PathBuf> = if cfg.paths.is_empty() { vec![PathBuf::from("-")] } else { cfg.paths.clone() };
    for path in &paths {
        let outcome = if path.as_os_str() == "-" {
            run_stdin(matcher, cfg, writer, &mut totals)
        } else {
            match std::fs::File::open(path) {
                Ok(f) => {
                    let meta = SourceMeta::file(&path.display().to_string());
                    if cfg.threads > 1 {
                        run_file_parallel(matcher, cfg, writer, f, path, meta, &mut totals)
                    } else {
                        run_file(matcher, cfg, writer, f, meta, &mut totals, (0, 0))
                    }
                }
                Err(e) => {
                    tracing::error!(path = %path.display(), cause = %e, "cannot open input");
                    failed += 1;
                    continue;
                }
            }
        };
        match outcome {
            Ok(Outcome::Done) => {}
            Ok(Outcome::OutputClosed) => return Ok((Outcome::OutputClosed, totals)),
            Err(ReadFailure::Output(e)) => return Err(RunError::Output(e)),
            Err(ReadFailure::Input(e)) => {
                tracing::error!(path = %path.display(), cause = %e, "read error; input abandoned");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        return Err(RunError::Inputs { failed });
    }
    Ok((Outcome::Done, totals))
}

enum ReadFailure {
    Output(io::Error),
    Input(io::Error),
}

/// Check the writer after a step: a closed pipe ends the run quietly.
fn check_output(writer: &dyn Writer) -> Result<Option<Outcome>, ReadFailure> {
    match writer.error() {
        None => Ok(None),
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(Some(Outcome::OutputClosed)),
        Some(e) => Err(ReadFailure::Output(io::Error::new(e.kind(), e.to_string()))),
    }
}

fn add_totals<W: Writer>(totals: &mut Totals, framer: &Framer<'_>, ann: &Annotator<'_, W>) {
    *totals += totals_of(framer, ann);
}

/// End of one input: complete its last event, flush, count; a closed output decides the outcome.
fn finish_source(
    mut framer: Framer<'_>,
    mut ann: Annotator<'_, &mut dyn Writer>,
    totals: &mut Totals,
    mut report: Report<'_>,
    result: Result<Outcome, ReadFailure>,
) -> Result<Outcome, ReadFailure> {
    framer.finish(&mut ann);
    ann.writer().flush();
    add_totals(totals, &framer, &ann);
    report.update(totals_of(&framer, &ann));
    match check_output(ann.writer())? {
        Some(o) => Ok(o),
        None => result,
    }
}

fn run_file(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    mut file: std::fs::File,
    meta: SourceMeta,
    totals: &mut Totals,
    start: (u64, u64),
) -> Result<Outcome, ReadFailure> {
    let mut framer = Framer::new(matcher, cfg.framing, cfg.every_event).with_levels(unknown_levels(cfg));
    if start.0 > 0 {
        use std::io::Seek;
        file.seek(io::SeekFrom::Start(start.0)).map_err(ReadFailure::Input)?;
        framer.start_at(start.0, start.1);
    }
    let mut report = Report::new(cfg, meta.path.as_deref().unwrap_or_default());
    let mut ann = Annotator::new(matcher, cfg.emit, writer, meta);
    ann.tally = cfg.tally.clone();
    ann.incidents = cfg.incidents.clone();
    ann.unknown = cfg.unknown.clone();
    ann.unknown_metrics = cfg.metrics.clone();
    let mut buf = vec![0u8; FILE_BLOCK];
    let result = loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break Ok(Outcome::Done),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(ReadFailure::Input(e)),
        };
        ann.set_observed(SystemTime::now());
        framer.feed(&buf[..n], &mut ann);
        report.update(totals_of(&framer, &ann));
        if let Some(o) = check_output(ann.writer())? {
            break Ok(o);
        }
    };
    finish_source(framer, ann, totals, report, result)
}

fn run_stdin(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    totals: &mut Totals,
) -> Result<Outcome, ReadFailure> {
    let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(STDIN_QUEUE);
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let mut stdin = io::stdin().lock();
            loop {
                let mut buf = back_rx.try_recv().unwrap_or_default();
                buf.resize(STDIN_BLOCK, 0);
                match stdin.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        buf.truncate(n);
                        if tx.send(Ok(buf)).is_err() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        break;
                    }
                }
            }
        })
        .expect("spawn the stdin reader");
    let mut framer = Framer::new(matcher, cfg.framing, cfg.every_event).with_levels(unknown_levels(cfg));
    let mut ann = Annotator::new(matcher, cfg.emit, writer, SourceMeta::stdin());
    ann.tally = cfg.tally.clone();
    ann.incidents = cfg.incidents.clone();
    ann.unknown = cfg.unknown.clone();
    ann.unknown_metrics = cfg.metrics.clone();
    let mut report = Report::new(cfg, "stdin");
    let result = loop {
        // With no idle timeout, an event is complete as soon as the input pauses.
        let got = if cfg.idle.is_zero() {
            rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected)
        } else {
            rx.recv_timeout(cfg.idle)
        };
        match got {
            Ok(Ok(chunk)) => {
                ann.set_observed(SystemTime::now());
                framer.feed(&chunk, &mut ann);
                let _ = back_tx.send(chunk);
                if cfg.idle.is_zero() {
                    framer.idle(&mut ann);
                }
            }
            Ok(Err(e)) => break Err(ReadFailure::Input(e)),
            Err(mpsc::RecvTimeoutError::Timeout) => framer.idle(&mut ann),
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ok(Outcome::Done),
        }
        ann.writer().flush();
        report.update(totals_of(&framer, &ann));
        if let Some(o) = check_output(ann.writer())? {
            break Ok(o);
        }
    };
    finish_source(framer, ann, totals, report, result)
}

/// Bytes per segment of a file read by several threads: large enough that the per-segment work
/// (a framer, a writer) is noise, small enough that the segment is still in cache when the
/// worker frames it (after counting its lines, when line numbers cannot be relocated). Measured on 500 MB with two threads: 2 MiB
/// 381 ms, 4 MiB 389 ms, 1 MiB 389 ms, 512 KiB 401 ms (the same session; noisy).
const SEGMENT: usize = 2 << 20;
/// A segment without any line break is cut at this size.
const MAX_SEGMENT: usize = 64 << 20;
/// Lines looked through, back from a segment's end, for the start of an event to cut at.
const BOUNDARY_LINES: usize = 1000;

struct Segment {
    seq: u64,
    offset: u64,
    payload: Payload,
}

/// A segment's bytes: read by the reader (a pipe or other stream), or a range of a regular file
/// that the worker reads itself, so that reading is spread over the workers too.
enum Payload {
    Bytes(Vec<u8>),
    Range(u64),
}

/// Buffers handed back and forth between the reader, the workers and the writer, so that 4 MiB
/// segments and their output are not allocated (and page-faulted in) anew each time.
#[derive(Default)]
struct BufferPool(std::sync::Mutex<Vec<Vec<u8>>>);

impl BufferPool {
    fn take(&self) -> Vec<u8> {
        let mut v = self.0.lock().expect("buffer pool").pop().unwrap_or_default();
        v.clear();
        v
    }

    fn give(&self, v: Vec<u8>) {
        let mut pool = self.0.lock().expect("buffer pool");
        // A few spare buffers per thread cover every segment in flight.
        if pool.len() < 16 {
            pool.push(v);
        }
    }
}

/// Line numbers where segments start, worked out as workers count their segments' lines: a
/// segment's first line is the previous one's plus its line count. Counting in the workers keeps
/// the reader to reading and cutting.
#[derive(Default)]
struct LineBases {
    bases: Vec<Option<u64>>,
    counts: Vec<Option<u64>>,
}

impl LineBases {
    fn set_count(&mut self, seq: usize, n: u64) {
        if self.counts.len() <= seq {
            self.counts.resize(seq + 1, None);
            self.bases.resize(seq + 2, None);
        }
        self.counts[seq] = Some(n);
        if self.bases.first() == Some(&None) {
            self.bases[0] = Some(0);
        }
        let mut j = 0;
        while j < self.counts.len() {
            if let (Some(b), Some(c)) = (self.bases[j], self.counts[j]) {
                if self.bases[j + 1].is_none() {
                    self.bases[j + 1] = Some(b + c);
                }
            } else if self.bases[j].is_none() {
                break;
            }
            j += 1;
        }
    }
}

struct Done {
    seq: u64,
    output: Vec<u8>,
    /// Where `output`'s line numbers are, when they are relative to the segment (see
    /// `relative_lines` in [`run_file_parallel`]).
    marks: Option<Vec<(u64, u64)>>,
    totals: Totals,
    error: Option<io::Error>,
    /// The segment's matches, for the reader to decide repeats in input order.
    matches: Vec<crate::repeat::Deferred>,
}

/// Bytes read back from a cut target to find the start of an event there: more than
/// `BOUNDARY_LINES` lines of ordinary log.
const WINDOW: usize = 256 << 10;
/// Read first, before the whole window: RisingWave events are a few hundred bytes, so an event
/// start is nearly always within the last 16 KiB (the full window read per segment was 6% of
/// the bytes read with 4 MiB segments, 12% with 2 MiB).
const SMALL_WINDOW: usize = 16 << 10;

/// Where to end a segment of a regular file that starts at `pos` and should end near `target`:
/// at the start of an event shortly before `target`, looked for in a small window first and
/// then in `window` (or, when the file shrank under us, at its new end). `None` when no event
/// starts in the window: a line or an event longer than it, which a cut would split.
fn cut_before(file: &std::fs::File, pos: u64, target: u64, window: &mut [u8]) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let after_pos = |start: u64, c: usize| Some(start + c as u64).filter(|&c| c > pos);
    let ss = target.saturating_sub(SMALL_WINDOW as u64).max(pos);
    let small = &mut window[..(target - ss) as usize];
    if file.read_exact_at(small, ss).is_ok()
        && let Some(c) = framing::header_line_before(small, BOUNDARY_LINES).and_then(|c| after_pos(ss, c))
    {
        return Some(c);
    }
    let ws = target.saturating_sub(WINDOW as u64).max(pos);
    let w = &mut window[..(target - ws) as usize];
    match file.read_exact_at(w, ws) {
        Ok(()) => framing::event_boundary(w, BOUNDARY_LINES).and_then(|c| after_pos(ws, c)),
        Err(_) => Some(file.metadata().map_or(target, |m| m.len().clamp(pos + 1, target))),
    }
}

/// Read a file with `cfg.threads` workers: the reader cuts the file into segments that start
/// with an event (so no multi-line event is split); each worker counts its segment's lines, learns
/// from the segments before it which line its segment starts at, and renders its events; the
/// reader writes the rendered output in input order.
fn run_file_parallel(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    mut file: std::fs::File,
    path: &std::path::Path,
    meta: SourceMeta,
    totals: &mut Totals,
) -> Result<Outcome, ReadFailure> {
    let regular = file.metadata().is_ok_and(|m| m.is_file());
    // Matched events as JSON are rendered with line numbers relative to their segment, and the
    // writer, which takes segments in order and so knows the lines before each, makes them
    // absolute: workers need not count their segment's lines before they may render (a pass
    // over every byte, most of what two threads cost over one). Other outputs (every event, or
    // formats whose line numbers are not marked) count first and render absolute numbers.
    let relative_lines = cfg.format == crate::event::Format::Json && !cfg.every_event;
    let (seg_tx, seg_rx) = mpsc::sync_channel::<Segment>(cfg.threads);
    let seg_rx = std::sync::Mutex::new(seg_rx);
    // Segment bytes and rendered output are pooled apart: output grows to several times a
    // segment with `--all`, and a buffer taken from a shared pool for output was often a
    // segment-sized one that had to grow again, on fresh pages (page clearing was a quarter
    // of an `--all` profile).
    let inputs = &BufferPool::default();
    let outputs = &BufferPool::default();
    let bases = &(std::sync::Mutex::new(LineBases::default()), std::sync::Condvar::new());
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    // Where the rest of the file is read by this thread, and the lines before it: from a line or
    // an event longer than the cut window on (a 100 MB line), which segments would cut into
    // pieces (49 events of one line).
    let mut tail: Option<(u64, u64)> = None;
    let tail = &mut tail;
    let scoped = std::thread::scope(|scope| {
        for _ in 0..cfg.threads {
            let (seg_rx, done_tx, meta) = (&seg_rx, done_tx.clone(), meta.clone());
            let bases = &bases;
            scope.spawn(move || {
                let mut own: Option<std::fs::File> = None;
                let mut deferred: Option<Vec<crate::repeat::Deferred>> = None;
                loop {
                    let seg = match seg_rx.lock().expect("reader lock").recv() {
                        Ok(s) => s,
                        Err(_) => break,
                    };
                    let mut bytes = match seg.payload {
                        Payload::Bytes(b) => b,
                        Payload::Range(len) => {
                            let mut b = inputs.take();
                            let read = (|| -> io::Result<()> {
                                use std::io::Seek;
                                let f = match &mut own {
                                    Some(f) => f,
                                    None => own.insert(std::fs::File::open(path)?),
                                };
                                f.seek(io::SeekFrom::Start(seg.offset))?;
                                f.take(len).read_to_end(&mut b)?;
                                Ok(())
                            })();
                            if let Err(e) = read {
                                let d = Done {
                                    seq: seg.seq,
                                    output: Vec::new(),
                                    marks: None,
                                    totals: Totals::default(),
                                    error: Some(e),
                                    matches: Vec::new(),
                                };
                                let (lock, cvar) = bases;
                                lock.lock().expect("line bases").set_count(seg.seq as usize, 0);
                                cvar.notify_all();
                                if done_tx.send(d).is_err() {
                                    break;
                                }
                                continue;
                            }
                            b
                        }
                    };
                    let seg = Segment { payload: Payload::Range(0), ..seg };
                    // With this segment's lines counted, wait for the line it starts at (every
                    // worker counts before it waits, so the chain always completes).
                    let first_line = if relative_lines {
                        0
                    } else {
                        let n = memchr::memchr_iter(b'\n', &bytes).count() as u64;
                        let (lock, cvar) = bases;
                        let mut b = lock.lock().expect("line bases");
                        b.set_count(seg.seq as usize, n);
                        cvar.notify_all();
                        loop {
                            if let Some(Some(base)) = b.bases.get(seg.seq as usize) {
                                break *base;
                            }
                            b = cvar.wait(b).expect("line bases");
                        }
                    };
                    let mut out = crate::event::OutWriter::memory(outputs.take(), cfg.format, cfg.color, cfg.width)
                        .with_shape(cfg.shape.clone());
                    if relative_lines {
                        out.mark_lines();
                    }
                    let mut t = Totals::default();
                    {
                        let mut framer = Framer::new(matcher, cfg.framing, cfg.every_event).with_levels(unknown_levels(cfg));
                        framer.start_at(seg.offset, first_line);
                        let mut ann = Annotator::new(matcher, cfg.emit, &mut out, meta.clone());
                        ann.tally = cfg.tally.clone();
                        ann.incidents = cfg.incidents.clone();
                        ann.deferred = cfg.incidents.is_some().then(|| deferred.take().unwrap_or_default());
                        ann.unknown = cfg.unknown.clone();
                        ann.unknown_metrics = cfg.metrics.clone();
                        ann.segment_lines = relative_lines;
                        ann.set_observed(SystemTime::now());
                        framer.feed(&bytes, &mut ann);
                        framer.finish(&mut ann);
                        add_totals(&mut t, &framer, &ann);
                        deferred = ann.deferred.take();
                    }
                    let output = out.take_rendered();
                    let marks = out.line_marks.take();
                    inputs.give(std::mem::take(&mut bytes));
                    let matches = deferred.take().unwrap_or_default();
                    if done_tx.send(Done { seq: seg.seq, output, marks, totals: t, error: None, matches }).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        let mut pending = std::collections::BTreeMap::new();
        let mut next_out = 0u64;
        let read_error: std::cell::RefCell<Option<io::Error>> = std::cell::RefCell::new(None);
        // Lines in the segments written so far, and a buffer for relocated output.
        let lines_before = std::cell::Cell::new(0u64);
        let relocated = std::cell::Cell::new(Vec::new());
        let report = Report::new(cfg, &path.display().to_string());
        let write_ready = |pending: &mut std::collections::BTreeMap<u64, Done>,
                           next_out: &mut u64,
                           writer: &mut dyn Writer,
                           totals: &mut Totals| {
            while let Some(d) = pending.remove(next_out) {
                if let Some(e) = d.error {
                    tracing::error!(path = %path.display(), cause = %e, "read error in a segment; its lines are skipped");
                    read_error.borrow_mut().get_or_insert(e);
                }
                match &d.marks {
                    Some(marks) => {
                        let mut fixed = relocated.take();
                        fixed.clear();
                        crate::event::relocate_lines(&d.output, marks, lines_before.get(), &mut fixed);
                        writer.rendered(&fixed);
                        relocated.set(fixed);
                    }
                    None => writer.rendered(&d.output),
                }
                if let Some(inc) = &cfg.incidents {
                    for m in &d.matches {
                        if inc.observe(m.key, m.at_ms) == crate::repeat::Seen::First
                            && let Some(t) = &cfg.tally
                        {
                            t.add_incident(m.entry);
                        }
                    }
                }
                lines_before.set(lines_before.get() + d.totals.lines);
                outputs.give(d.output);
                *totals += d.totals;
                report.add(&d.totals);
                *next_out += 1;
            }
        };
        let mut result = Ok(Outcome::Done);
        let mut seq = 0u64;
        {
            // Hand a segment to the workers and write whatever output is ready; false: stop.
            let mut dispatch = |seg: Segment,
                                pending: &mut std::collections::BTreeMap<u64, Done>,
                                result: &mut Result<Outcome, ReadFailure>| {
                if seg_tx.send(seg).is_err() {
                    return false;
                }
                while let Ok(d) = done_rx.try_recv() {
                    pending.insert(d.seq, d);
                }
                write_ready(pending, &mut next_out, writer, totals);
                if let Ok(Some(o)) = check_output(writer) {
                    *result = Ok(o);
                    return false;
                }
                true
            };
            if regular {
                // A regular file: cut it at event starts found in small windows; workers read
                // their ranges themselves.
                let mut window = vec![0u8; WINDOW];
                let mut pos = 0u64;
                let mut len = file.metadata().map_or(0, |m| m.len());
                loop {
                    if pos >= len {
                        // Read to the end as it is now, also if the file grew meanwhile.
                        let now = file.metadata().map_or(len, |m| m.len());
                        if now > len {
                            len = now;
                            continue;
                        }
                        break;
                    }
                    let target = pos + SEGMENT as u64;
                    let cut = if target >= len {
                        len
                    } else {
                        match cut_before(&file, pos, target, &mut window) {
                            Some(c) => c,
                            None => {
                                *tail = Some((pos, 0));
                                break;
                            }
                        }
                    };
                    let seg = Segment { seq, offset: pos, payload: Payload::Range(cut - pos) };
                    pos = cut;
                    seq += 1;
                    if !dispatch(seg, &mut pending, &mut result) {
                        break;
                    }
                }
            } else {
                let mut buf: Vec<u8> = Vec::with_capacity(SEGMENT * 2);
                let mut offset = 0u64;
                let mut eof = false;
                while !eof {
                    // Fill the buffer to a segment's size.
                    let want = buf.len().max(SEGMENT - 1) + 1;
                    while buf.len() < want {
                        // `read_to_end` fills the spare capacity without zeroing it first.
                        let len = buf.len();
                        match (&mut file).take(SEGMENT as u64).read_to_end(&mut buf) {
                            Ok(_) if buf.len() == len => {
                                eof = true;
                                break;
                            }
                            Ok(_) => {}
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => {
                                result = Err(ReadFailure::Input(e));
                                eof = true;
                                break;
                            }
                        }
                    }
                    let cut = match framing::event_boundary(&buf, BOUNDARY_LINES) {
                        _ if eof => buf.len(),
                        Some(c) => c,
                        // No line break yet: read on, up to a bound; a longer line is cut there (it
                        // is far past --max-line-bytes and truncated anyway).
                        None if buf.len() < MAX_SEGMENT => continue,
                        None => buf.len(),
                    };
                    if cut == 0 {
                        break;
                    }
                    let mut rest = inputs.take();
                    rest.extend_from_slice(&buf[cut..]);
                    buf.truncate(cut);
                    let seg = Segment { seq, offset, payload: Payload::Bytes(std::mem::replace(&mut buf, rest)) };
                    offset += cut as u64;
                    seq += 1;
                    if !dispatch(seg, &mut pending, &mut result) {
                        break;
                    }
                }
            }
        }
        drop(seg_tx);
        for d in done_rx.iter() {
            pending.insert(d.seq, d);
            write_ready(&mut pending, &mut next_out, writer, totals);
        }
        writer.flush();
        if let Some(t) = tail.as_mut() {
            t.1 = lines_before.get();
        }
        if let Some(e) = read_error.into_inner() {
            return Err(ReadFailure::Input(e));
        }
        match check_output(writer)? {
            Some(o) => Ok(o),
            None => result,
        }
    });
    match (scoped, *tail) {
        (Ok(Outcome::Done), Some(start)) => {
            tracing::debug!(path = %path.display(), offset = start.0, "an event longer than the cut window: the rest of the file on one thread");
            run_file(matcher, cfg, writer, file, meta, totals, start)
        }
        (r, _) => r,
    }
}

