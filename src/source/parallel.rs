//! A file read by several threads: the reader cuts it into segments that start with an event
//! (so no multi-line event is split); each worker runs a core stage over its segment into an
//! in-memory writer, and the reader writes the rendered output in input order, deciding repeats
//! in input order too.

use std::io::{self, Read};
use std::sync::mpsc;
use std::time::SystemTime;

use super::{Outcome, ReadFailure, Report, RunConfig, check_output};
use crate::annotate::{PendingUnknowns, SourceMeta};
use crate::counts::Totals;
use crate::event::TakesRendered;
use crate::framing;
use crate::matcher::Matcher;
use crate::stage::Stage;

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
    /// `relative_lines` in [`run`]).
    marks: Option<Vec<(u64, u64)>>,
    totals: Totals,
    error: Option<io::Error>,
    /// The segment's matches, for the reader to decide repeats in input order.
    matches: Vec<crate::repeat::Deferred>,
    /// With `--unknown`: the segment's unknown events, for the reader to cluster in input order,
    /// and where their `unknown` objects go in `output`.
    unknowns: Option<(PendingUnknowns, Vec<u64>)>,
    /// ECS output with `--unknown`: the events at those slots, to be completed
    /// ([`crate::event::write_ecs_unknown`]).
    unknown_events: Vec<serde_json::Map<String, serde_json::Value>>,
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

/// What the workers of one parallel read share.
struct Work<'a> {
    matcher: &'a Matcher,
    cfg: &'a RunConfig,
    path: &'a std::path::Path,
    meta: SourceMeta,
    format: crate::event::Format,
    /// Matched events as JSON are rendered with line numbers relative to their segment, and the
    /// writer, which takes segments in order and so knows the lines before each, makes them
    /// absolute: workers need not count their segment's lines before they may render (a pass
    /// over every byte, most of what two threads cost over one). Other outputs (every event, or
    /// formats whose line numbers are not marked) count first and render absolute numbers.
    relative_lines: bool,
    segments: std::sync::Mutex<mpsc::Receiver<Segment>>,
    /// Segment bytes and rendered output are pooled apart: output grows to several times a
    /// segment with `--all`, and a buffer taken from a shared pool for output was often a
    /// segment-sized one that had to grow again, on fresh pages (page clearing was a quarter
    /// of an `--all` profile).
    inputs: BufferPool,
    outputs: BufferPool,
    bases: (std::sync::Mutex<LineBases>, std::sync::Condvar),
}

impl Work<'_> {
    /// Count a segment's lines and wait for the line it starts at (every worker counts before it
    /// waits, so the chain always completes).
    fn first_line(&self, seq: u64, lines: u64) -> u64 {
        let (lock, cvar) = &self.bases;
        let mut b = lock.lock().expect("line bases");
        b.set_count(seq as usize, lines);
        cvar.notify_all();
        loop {
            if let Some(Some(base)) = b.bases.get(seq as usize) {
                return *base;
            }
            b = cvar.wait(b).expect("line bases");
        }
    }
}

/// A worker: takes segments until the reader is done, runs a core stage over each into an
/// in-memory writer, and sends the rendered output back.
fn worker(w: &Work<'_>, done_tx: mpsc::Sender<Done>) {
    let mut own: Option<std::fs::File> = None;
    let mut deferred: Option<Vec<crate::repeat::Deferred>> = None;
    let mut tokenizer = crate::unknown::Tokenizer::default();
    loop {
        let seg = match w.segments.lock().expect("reader lock").recv() {
            Ok(s) => s,
            Err(_) => break,
        };
        let mut bytes = match seg.payload {
            Payload::Bytes(b) => b,
            Payload::Range(len) => {
                let mut b = w.inputs.take();
                let read = (|| -> io::Result<()> {
                    use std::io::Seek;
                    let f = match &mut own {
                        Some(f) => f,
                        None => own.insert(std::fs::File::open(w.path)?),
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
                        unknowns: None,
                        unknown_events: Vec::new(),
                    };
                    let (lock, cvar) = &w.bases;
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
        let first_line = if w.relative_lines {
            0
        } else {
            w.first_line(seg.seq, memchr::memchr_iter(b'\n', &bytes).count() as u64)
        };
        let cfg = w.cfg;
        let mut out =
            crate::event::OutWriter::memory(w.outputs.take(), w.format, cfg.color, cfg.width).with_shape(cfg.shape.clone());
        if w.relative_lines {
            out.mark_lines();
        }
        let clusters = cfg.stage.unknown.is_some();
        if clusters {
            out.mark_unknowns();
        }
        let (totals, pending) = {
            let mut stage = Stage::new(w.matcher, &cfg.stage, &mut out, w.meta.clone()).starting_at(seg.offset, first_line);
            let ann = stage.annotator();
            ann.deferred = cfg.stage.incidents.is_some().then(|| deferred.take().unwrap_or_default());
            ann.segment_lines = w.relative_lines;
            // A segment's texts go to the reader with its output (a new buffer per segment); the
            // tokenizer stays with the worker.
            ann.pending_unknown = clusters.then(|| PendingUnknowns::with_tokenizer(std::mem::take(&mut tokenizer)));
            stage.feed(&bytes, SystemTime::now());
            stage.finish();
            deferred = stage.annotator().deferred.take();
            let mut pending = stage.annotator().pending_unknown.take();
            if let Some(p) = &mut pending {
                tokenizer = p.take_tokenizer();
            }
            (stage.totals(), pending)
        };
        let output = out.take_rendered();
        let marks = out.line_marks.take();
        let unknowns = pending.zip(out.unknown_slots.take());
        let unknown_events = std::mem::take(&mut out.unknown_events);
        w.inputs.give(std::mem::take(&mut bytes));
        let matches = deferred.take().unwrap_or_default();
        let done = Done { seq: seg.seq, output, marks, totals, error: None, matches, unknowns, unknown_events };
        if done_tx.send(done).is_err() {
            break;
        }
    }
}

/// The reader's side of the output: segments' rendered output written in input order, with
/// their line numbers made absolute, their repeats decided, their counts added.
struct InOrder<'a> {
    pending: std::collections::BTreeMap<u64, Done>,
    next: u64,
    read_error: Option<io::Error>,
    /// Lines in the segments written so far.
    lines_before: u64,
    /// A buffer for relocated output.
    relocated: Vec<u8>,
    report: Report<'a>,
}

impl InOrder<'_> {
    fn take(&mut self, d: Done) {
        self.pending.insert(d.seq, d);
    }

    /// Write every segment that is next in order.
    fn write_ready(&mut self, w: &Work<'_>, writer: &mut dyn TakesRendered, totals: &mut Totals) {
        while let Some(mut d) = self.pending.remove(&self.next) {
            if let Some(e) = d.error {
                tracing::error!(path = %w.path.display(), cause = %e, "read error in a segment; its lines are skipped");
                self.read_error.get_or_insert(e);
            }
            let mut events = std::mem::take(&mut d.unknown_events).into_iter();
            match (&d.marks, &d.unknowns) {
                (marks, Some((pending, slots))) if !slots.is_empty() => {
                    // Clustered here, in input order, as one reader would have: the same ids,
                    // templates and counts whatever the threads.
                    let shared = w.cfg.stage.unknown.as_ref().expect("unknowns are kept only with --unknown");
                    let ecs = writer.format() == crate::event::Format::Ecs;
                    let mut c = shared.clusters.lock().unwrap_or_else(|e| e.into_inner());
                    self.relocated.clear();
                    let marks = marks.as_deref().unwrap_or_default();
                    crate::event::splice_segment(
                        &d.output,
                        marks,
                        self.lines_before,
                        slots,
                        |i, to| {
                            let (text, needs_constant) = pending.get(i);
                            // A bug met by one event must not take the stream down (as on one
                            // thread, where the annotator catches it): the event goes out
                            // without its cluster.
                            let at = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                c.observe_at(text, needs_constant)
                            }))
                            .unwrap_or_else(|_| {
                                tracing::error!(path = %w.path.display(), "internal error clustering an event; it is written without its cluster");
                                None
                            });
                            let seen = at.map(|(idx, new)| c.seen(idx, new));
                            if ecs {
                                let v = events.next().expect("an ECS event for each slot");
                                let seen = seen.as_ref().map(|s| (s.id, s.template, s.count));
                                crate::event::write_ecs_unknown(to, v, seen, w.cfg.shape.max_event_bytes);
                            } else if let Some(seen) = seen {
                                crate::event::write_unknown_object(to, seen.id, seen.template, seen.count);
                            }
                        },
                        w.cfg.shape.max_event_bytes.filter(|_| !ecs),
                        &mut self.relocated,
                    );
                    drop(c);
                    writer.rendered(&self.relocated);
                }
                (Some(marks), _) => {
                    self.relocated.clear();
                    crate::event::relocate_lines(&d.output, marks, self.lines_before, w.cfg.shape.max_event_bytes, &mut self.relocated);
                    writer.rendered(&self.relocated);
                }
                // A segment of JSON with `--unknown` and no slot: its events are bounded here
                // all the same (the workers leave it to the reader, see `splice_segment`).
                (None, Some(_)) if writer.format() == crate::event::Format::Json && w.cfg.shape.max_event_bytes.is_some() => {
                    self.relocated.clear();
                    crate::event::relocate_lines(&d.output, &[], self.lines_before, w.cfg.shape.max_event_bytes, &mut self.relocated);
                    writer.rendered(&self.relocated);
                }
                (None, _) => writer.rendered(&d.output),
            }
            if let Some(inc) = &w.cfg.stage.incidents {
                for m in &d.matches {
                    if inc.observe(m.key, m.at_ms) == crate::repeat::Seen::First
                        && let Some(t) = &w.cfg.stage.tally
                    {
                        t.add_incident(m.entry);
                    }
                }
            }
            self.lines_before += d.totals.lines;
            w.outputs.give(d.output);
            *totals += d.totals;
            self.report.add(&d.totals);
            self.next += 1;
        }
    }
}

/// Cut a regular file at event starts found in small windows, handing each segment (a range
/// the worker reads itself) to `dispatch` until it says stop. Returns where a line or an event
/// longer than the cut window starts, for the rest of the file to be read by one thread.
fn cut_regular(file: &std::fs::File, mut dispatch: impl FnMut(Segment) -> bool) -> Option<u64> {
    let mut window = vec![0u8; WINDOW];
    let (mut pos, mut seq) = (0u64, 0u64);
    let mut len = file.metadata().map_or(0, |m| m.len());
    loop {
        if pos >= len {
            // Read to the end as it is now, also if the file grew meanwhile.
            let now = file.metadata().map_or(len, |m| m.len());
            if now > len {
                len = now;
                continue;
            }
            return None;
        }
        let target = pos + SEGMENT as u64;
        let cut = if target >= len {
            len
        } else {
            match cut_before(file, pos, target, &mut window) {
                Some(c) => c,
                None => return Some(pos),
            }
        };
        let seg = Segment { seq, offset: pos, payload: Payload::Range(cut - pos) };
        pos = cut;
        seq += 1;
        if !dispatch(seg) {
            return None;
        }
    }
}

/// Cut a stream (a pipe, a device) into segments that end at event starts, read here, handing
/// each to `dispatch` until it says stop.
fn cut_stream(mut file: &std::fs::File, inputs: &BufferPool, mut dispatch: impl FnMut(Segment) -> bool) -> io::Result<()> {
    let mut buf: Vec<u8> = Vec::with_capacity(SEGMENT * 2);
    let (mut offset, mut seq) = (0u64, 0u64);
    let mut eof = false;
    let mut failed = None;
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
                    failed = Some(e);
                    eof = true;
                    break;
                }
            }
        }
        let cut = match framing::event_boundary(&buf, BOUNDARY_LINES) {
            _ if eof => buf.len(),
            Some(c) => c,
            // No line break yet: read on, up to a bound; a longer line is cut there (it is far
            // past --max-line-bytes and truncated anyway).
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
        if !dispatch(seg) {
            break;
        }
    }
    failed.map_or(Ok(()), Err)
}

/// Read a file with `cfg.threads` workers: the reader cuts the file into segments that start
/// with an event (so no multi-line event is split); each worker counts its segment's lines, learns
/// from the segments before it which line its segment starts at, and renders its events; the
/// reader writes the rendered output in input order.
pub(super) fn run(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn TakesRendered,
    file: std::fs::File,
    path: &std::path::Path,
    meta: SourceMeta,
    totals: &mut Totals,
) -> Result<Outcome, ReadFailure> {
    let regular = file.metadata().is_ok_and(|m| m.is_file());
    let format = writer.format();
    let (seg_tx, seg_rx) = mpsc::sync_channel::<Segment>(cfg.threads);
    let work = Work {
        matcher,
        cfg,
        path,
        meta: meta.clone(),
        format,
        relative_lines: format == crate::event::Format::Json && !cfg.stage.every_event,
        segments: std::sync::Mutex::new(seg_rx),
        inputs: BufferPool::default(),
        outputs: BufferPool::default(),
        bases: Default::default(),
    };
    let (done_tx, done_rx) = mpsc::channel::<Done>();
    // Where the rest of the file is read by this thread, and the lines before it: from a line or
    // an event longer than the cut window on (a 100 MB line), which segments would cut into
    // pieces (49 events of one line).
    let mut tail: Option<(u64, u64)> = None;
    let scoped = std::thread::scope(|scope| {
        for _ in 0..cfg.threads {
            let (work, done_tx) = (&work, done_tx.clone());
            scope.spawn(move || worker(work, done_tx));
        }
        drop(done_tx);
        let mut order = InOrder {
            pending: Default::default(),
            next: 0,
            read_error: None,
            lines_before: 0,
            relocated: Vec::new(),
            report: Report::new(cfg, &path.display().to_string()),
        };
        let mut result = Ok(Outcome::Done);
        // Hand a segment to the workers and write whatever output is ready; false: stop.
        let dispatch = |seg: Segment| {
            if seg_tx.send(seg).is_err() {
                return false;
            }
            while let Ok(d) = done_rx.try_recv() {
                order.take(d);
            }
            order.write_ready(&work, writer, totals);
            if let Ok(Some(o)) = check_output(writer) {
                result = Ok(o);
                return false;
            }
            true
        };
        if regular {
            tail = cut_regular(&file, dispatch).map(|pos| (pos, 0));
        } else if let Err(e) = cut_stream(&file, &work.inputs, dispatch) {
            result = Err(ReadFailure::Input(e));
        }
        drop(seg_tx);
        for d in done_rx.iter() {
            order.take(d);
            order.write_ready(&work, writer, totals);
        }
        writer.flush();
        if let Some(t) = tail.as_mut() {
            t.1 = order.lines_before;
        }
        if let Some(e) = order.read_error {
            return Err(ReadFailure::Input(e));
        }
        match check_output(writer)? {
            Some(o) => Ok(o),
            None => result,
        }
    });
    match (scoped, tail) {
        (Ok(Outcome::Done), Some(start)) => {
            tracing::debug!(path = %path.display(), offset = start.0, "an event longer than the cut window: the rest of the file on one thread");
            super::file::run(matcher, cfg, writer, file, meta, totals, start)
        }
        (r, _) => r,
    }
}
