//! Standard input, read on a thread of its own, so that the idle timeout can complete a pending
//! multi-line event while no input arrives; output is flushed after every read.

use std::io::{self, Read};
use std::sync::mpsc;
use std::time::SystemTime;

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
    let mut stage = Stage::new(matcher, &cfg.stage, writer, SourceMeta::stdin());
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
                stage.feed(&chunk, SystemTime::now());
                let _ = back_tx.send(chunk);
                if cfg.idle.is_zero() {
                    stage.idle();
                }
            }
            Ok(Err(e)) => break Err(ReadFailure::Input(e)),
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
