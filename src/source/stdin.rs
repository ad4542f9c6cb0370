//! Standard input, and a stream named as a path (a FIFO, `<(kubectl logs -f …)`, `/dev/stdin`),
//! read on a thread of its own, so that the idle timeout can complete a pending multi-line event
//! while no input arrives; output is flushed after every read.

use std::io::{self, Read};
use std::sync::mpsc;
use std::time::{Instant, SystemTime};

use super::{Outcome, ReadFailure, Report, RunConfig, check_output, finish_source};
use crate::annotate::SourceMeta;
use crate::counts::Totals;
use crate::event::Writer;
use crate::matcher::Matcher;
use crate::stage::Stage;

/// Read size for standard input: a pipe delivers at most 64 KiB at a time anyway.
const STDIN_BLOCK: usize = 256 << 10;
/// Chunks in flight between the standard-input thread and the stage.
const STDIN_QUEUE: usize = 4;

pub(super) fn run(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    totals: &mut Totals,
) -> Result<Outcome, ReadFailure> {
    run_stream(matcher, cfg, writer, io::stdin(), SourceMeta::stdin(), "stdin", totals)
}

/// Read `input`, a stream that may pause at any time (its events are completed by the idle
/// timeout, as standard input's are), to its end. `name` is what progress reports call it.
pub(super) fn run_stream(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    input: impl Read + Send + 'static,
    meta: SourceMeta,
    name: &str,
    totals: &mut Totals,
) -> Result<Outcome, ReadFailure> {
    let (tx, rx) = mpsc::sync_channel::<io::Result<Vec<u8>>>(STDIN_QUEUE);
    let (back_tx, back_rx) = mpsc::channel::<Vec<u8>>();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            // Its first bytes are read here, not before the thread: a FIFO's may not come for a
            // while, and the idle timeout runs meanwhile.
            let mut stdin = match super::text_of(input) {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            };
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
    let mut stage = Stage::new(matcher, &cfg.stage, writer, meta);
    let mut report = Report::new(cfg, name);
    // When the input last brought bytes.
    let mut last_data = Instant::now();
    let result = loop {
        // A partial line held below a pending event may be its next line (a `Caused by:` entry,
        // a PostgreSQL detail cut after `DETA`): the event is not complete while it is, for up
        // to `line_timeout` of quiet. Then the event is completed and the line still held: a
        // writer that buffers its output (`grep` without `--line-buffered`, Python into a pipe)
        // may pause anywhere in a line, even in the next event's timestamp, and a cut would
        // break a line that was whole.
        // So is an event whose last line is a report's `Caused by:` with its causes still to
        // come ([`Framer::awaits_more`](crate::framing::Framer::awaits_more)).
        let waiting =
            stage.framer().has_open_event() && (!stage.framer().partial_starts_event() || stage.framer().awaits_more());
        let got = if waiting {
            rx.recv_timeout(cfg.line_timeout.saturating_sub(last_data.elapsed()))
        } else if cfg.idle.is_zero() {
            // With no idle timeout, an event is complete as soon as the input pauses.
            rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected)
        } else {
            rx.recv_timeout(cfg.idle)
        };
        match got {
            Ok(Ok(chunk)) => {
                stage.feed(&chunk, SystemTime::now());
                last_data = Instant::now();
                let _ = back_tx.send(chunk);
                if cfg.idle.is_zero() && stage.framer().partial_starts_event() && !stage.framer().awaits_more() {
                    stage.idle();
                }
            }
            Ok(Err(e)) => break Err(ReadFailure::Input(e)),
            Err(mpsc::RecvTimeoutError::Timeout) if waiting => {
                if last_data.elapsed() >= cfg.line_timeout {
                    stage.idle();
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => stage.idle(),
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ok(Outcome::Done),
        }
        stage.writer().flush();
        report.update(stage.totals());
        if let Some(o) = check_output(&**stage.writer())? {
            break Ok(o);
        }
    };
    finish_source(stage, totals, report, result)
}
