//! The pipeline for reading inputs to their end: source → framing → annotate → writer.
//!
//! Owns the read loop, the idle timeout and flushing. Standard input is read on a thread of its
//! own so that the idle timeout can complete a pending multi-line event while no input arrives;
//! files are read in large blocks on the calling thread. Output is flushed after every read from
//! standard input, so `kubectl logs -f | annotail` sees each event as soon as it is complete.
//!
//! Contract: a closed output (`| head`) ends the run quietly with [`Outcome::OutputClosed`]; an
//! unreadable input is reported and the other inputs are still read.

use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use crate::annotate::{Annotator, Counters, Emit, SourceMeta};
use crate::event::Writer;
use crate::framing::{self, Framer};
use crate::matcher::Matcher;

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

#[derive(Debug, Default, Clone, Copy)]
pub struct Totals {
    pub lines: u64,
    pub bytes: u64,
    pub truncated_lines: u64,
    pub counters: Counters,
}

/// Read size for files: large blocks keep the prefilter on long runs of bytes.
const FILE_BLOCK: usize = 4 << 20;
/// Read size for standard input: a pipe delivers at most 64 KiB at a time anyway.
const STDIN_BLOCK: usize = 256 << 10;
/// Chunks in flight between the standard-input thread and the pipeline.
const STDIN_QUEUE: usize = 4;

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
                    run_file(matcher, cfg, writer, f, meta, &mut totals)
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

fn add_totals(totals: &mut Totals, framer: &Framer<'_>, ann: &Annotator<'_, '_>) {
    totals.lines += framer.stats.lines;
    totals.bytes += framer.stats.bytes;
    totals.truncated_lines += framer.stats.truncated_lines;
    let c = &ann.counters;
    totals.counters.events += c.events;
    totals.counters.written += c.written;
    totals.counters.matched += c.matched;
    totals.counters.candidates += c.candidates;
    totals.counters.examined += c.examined;
    totals.counters.json_errors += c.json_errors;
}

fn run_file(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    mut file: std::fs::File,
    meta: SourceMeta,
    totals: &mut Totals,
) -> Result<Outcome, ReadFailure> {
    let mut framer = Framer::new(matcher, cfg.framing, cfg.every_event);
    let mut ann = Annotator::new(matcher, cfg.emit, writer, meta);
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
        if let Some(o) = check_output(ann.writer())? {
            break Ok(o);
        }
    };
    framer.finish(&mut ann);
    ann.writer().flush();
    add_totals(totals, &framer, &ann);
    match check_output(ann.writer())? {
        Some(o) => Ok(o),
        None => result,
    }
}

fn run_stdin(matcher: &Matcher, cfg: &RunConfig, writer: &mut dyn Writer, totals: &mut Totals) -> Result<Outcome, ReadFailure> {
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
    let mut framer = Framer::new(matcher, cfg.framing, cfg.every_event);
    let mut ann = Annotator::new(matcher, cfg.emit, writer, SourceMeta::stdin());
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
        if let Some(o) = check_output(ann.writer())? {
            break Ok(o);
        }
    };
    framer.finish(&mut ann);
    ann.writer().flush();
    add_totals(totals, &framer, &ann);
    match check_output(ann.writer())? {
        Some(o) => Ok(o),
        None => result,
    }
}

