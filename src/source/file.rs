//! A whole file, read to its end in large blocks on the calling thread.

use std::io::{self, Read};
use std::time::SystemTime;

use super::{Outcome, ReadFailure, Report, RunConfig, check_output, finish_source};
use crate::annotate::SourceMeta;
use crate::counts::Totals;
use crate::event::Writer;
use crate::matcher::Matcher;
use crate::stage::Stage;

/// Read size for files: large blocks keep the prefilter on long runs of bytes.
const FILE_BLOCK: usize = 4 << 20;

/// Read `file` from byte `start.0` (after `start.1` lines) to its end.
pub(super) fn run(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    mut file: std::fs::File,
    meta: SourceMeta,
    totals: &mut Totals,
    start: (u64, u64),
) -> Result<Outcome, ReadFailure> {
    if start.0 > 0 {
        use std::io::Seek;
        file.seek(io::SeekFrom::Start(start.0)).map_err(ReadFailure::Input)?;
    }
    run_reader(matcher, cfg, writer, file, meta, totals, start)
}

/// Read `input` to its end, its first byte at stream offset `start.0`, after `start.1` lines
/// (a file from where it was left, or a compressed file's decoded text from its start).
pub(super) fn run_reader(
    matcher: &Matcher,
    cfg: &RunConfig,
    writer: &mut dyn Writer,
    mut file: impl Read,
    meta: SourceMeta,
    totals: &mut Totals,
    start: (u64, u64),
) -> Result<Outcome, ReadFailure> {
    let mut report = Report::new(cfg, meta.path.as_deref().unwrap_or_default());
    let mut stage = Stage::new(matcher, &cfg.stage, writer, meta).starting_at(start.0, start.1);
    let mut buf = vec![0u8; FILE_BLOCK];
    let result = loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break Ok(Outcome::Done),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => break Err(ReadFailure::Input(e)),
        };
        stage.feed(&buf[..n], SystemTime::now());
        report.update(stage.totals());
        if let Some(o) = check_output(&**stage.writer())? {
            break Ok(o);
        }
    };
    finish_source(stage, totals, report, result)
}
