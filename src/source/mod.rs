//! Sources: the drivers that read inputs to their end and run the core stage over them.
//!
//! Owns where bytes come from and when they are read: [`stdin`] (a thread of its own, so that
//! the idle timeout completes a pending event while no input arrives), [`file`] (large blocks on
//! the calling thread), [`parallel`] (a file cut into segments that start with an event,
//! matched by workers, written in input order) and [`follow`] (files followed across rotation,
//! with checkpoints, as a daemon). Each driver only reads, times and publishes counts: framing,
//! annotation and counting are the [core stage](crate::stage)'s, built from one
//! [`crate::stage::Setup`].
//!
//! Contract: a closed output (`| head`) ends the run quietly with [`Outcome::OutputClosed`]; an
//! unreadable input is reported and the other inputs are still read. Output is flushed after
//! every read from standard input, so `kubectl logs -f | annotail` sees each event as soon as it
//! is complete.

pub mod file;
pub mod follow;
pub mod parallel;
pub mod stdin;

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::counts::Totals;
use crate::event::Writer;
use crate::matcher::Matcher;
use crate::metrics::{Metrics, SourceMetrics};
use crate::stage::Setup;

/// A run of inputs to their end.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Inputs; `-` is standard input. Empty means standard input.
    pub paths: Vec<PathBuf>,
    /// What the core stage of each input is built from.
    pub stage: Setup,
    /// Complete a pending event after this long without input (standard input only).
    pub idle: Duration,
    /// A held partial line that may continue the pending event is waited for this long before
    /// the event is completed without it (standard input only; `--line-timeout`).
    pub line_timeout: Duration,
    /// Threads for file input (standard input is always read by one); more than one only when
    /// the writer [takes rendered output](crate::event::Writer::takes_rendered).
    pub threads: usize,
    /// Colours, width and event shape of the writers of worker threads (their format is the
    /// writer's).
    pub color: bool,
    pub width: usize,
    pub shape: Arc<crate::event::Shape>,
}

impl RunConfig {
    /// A run of `paths` on one thread into a writer that collects `Annotated` events in
    /// process (`stats`, `report`, `discover`): every event the framer passes is written, no
    /// output is rendered, nothing is counted beside the totals. Callers change what they need.
    pub fn collecting(paths: Vec<PathBuf>, framing: crate::framing::Limits) -> RunConfig {
        RunConfig {
            paths,
            stage: Setup { every_event: false, framing, ..Setup::every_event() },
            threads: 1,
            color: false,
            width: 80,
            idle: Duration::from_millis(100),
            line_timeout: Duration::from_secs(1),
            shape: Arc::new(crate::event::Shape::all()),
        }
    }
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

/// Counts of one input published to the metrics as it is read.
struct Report<'a> {
    metrics: Option<(&'a Metrics, SourceMetrics)>,
    last: Totals,
}

impl<'a> Report<'a> {
    fn new(cfg: &'a RunConfig, source: &str) -> Report<'a> {
        Report { metrics: cfg.stage.metrics.as_deref().map(|m| (m, m.source(source))), last: Totals::default() }
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
            if !m.written_on_delivery.load(std::sync::atomic::Ordering::Relaxed) {
                m.events_written.inc_by(d.counters.written);
            }
        }
    }
}

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
    // A compressed file's sample is of its text, as the run reads it.
    let mut sample = Vec::new();
    match compression(&file) {
        None => {}
        Some(c) if !from_end => {
            let _ = c.decoded(file, "files").ok()?.take(limit).read_to_end(&mut sample);
            return Some(sample);
        }
        Some(_) => return None,
    }
    if from_end {
        let len = file.metadata().ok()?.len();
        file.seek(SeekFrom::Start(len.saturating_sub(limit))).ok()?;
    }
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
            stdin::run(matcher, cfg, writer, &mut totals)
        } else {
            match std::fs::File::open(path) {
                Ok(f) => {
                    let meta = crate::annotate::SourceMeta::file(&path.display().to_string());
                    // A pipe or a device named as a path is read as standard input is: its events
                    // are written as they come, and an event its writer has paused after is
                    // completed by the idle timeout (read as a file, both waited for the writer
                    // to close it). A regular file's first bytes are read where they are.
                    let regular = f.metadata().is_ok_and(|m| m.is_file());
                    let kind = if regular { compression(&f) } else { None };
                    match (kind, writer.takes_rendered()) {
                        _ if !regular => {
                            let name = path.display().to_string();
                            stdin::run_stream(matcher, cfg, writer, f, meta, &name, &mut totals)
                        }
                        (Some(c), _) => match c.decoded(f, "files") {
                            Ok(text) => file::run_reader(matcher, cfg, writer, text, meta, &mut totals, (0, 0)),
                            Err(e) if matches!(c, Compression::Other(_)) => {
                                tracing::error!(path = %path.display(), "{e}");
                                failed += 1;
                                continue;
                            }
                            Err(e) => Err(ReadFailure::Input(e)),
                        },
                        (None, Some(w)) if cfg.threads > 1 => {
                            parallel::run(matcher, cfg, w, f, path, meta, &mut totals)
                        }
                        (None, _) => file::run(matcher, cfg, writer, f, meta, &mut totals, (0, 0)),
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

/// How a file named on the command line is compressed, by its first bytes (rotated logs often
/// are: `meta.log.2.gz`). Read as text it gave garbage events and "no known error matched".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Decoded as it is read (one thread).
    Gzip,
    Zstd,
    /// Reported: bzip2, xz, lz4 or zip.
    Other(&'static str),
}

impl Compression {
    /// `input`'s text as it is read: through its decoder, or the error an input of another
    /// compression is reported with (`inputs`: what annotail reads, "files" or "input").
    fn decoded(self, input: impl io::Read + Send + 'static, inputs: &str) -> io::Result<Box<dyn io::Read + Send>> {
        Ok(match self {
            // `MultiGzDecoder`: `cat a.gz b.gz > c.gz` (and `logrotate`'s `compresscmd` output
            // appended to) holds several members.
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(io::BufReader::new(input))),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(input)?),
            Compression::Other(kind) => {
                return Err(io::Error::other(format!(
                    "{kind}-compressed: annotail reads gzip and zstd {inputs}; decompress it first and pipe it in"
                )));
            }
        })
    }
}

/// [`Compression`] of `file` from its first bytes, read where they are (the file's position is
/// not moved); `None` for text, or when they cannot be read (the run reports that).
pub fn compression(file: &std::fs::File) -> Option<Compression> {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 8];
    let n = file.read_at(&mut head, 0).ok()?;
    compression_of(&head[..n])
}

/// The first bytes of each [`Compression`]'s files.
const MAGIC: &[(&[u8], Compression)] = &[
    (b"\x1f\x8b", Compression::Gzip),
    (b"\x28\xb5\x2f\xfd", Compression::Zstd),
    (b"BZh", Compression::Other("bzip2")),
    (b"\xfd7zXZ\x00", Compression::Other("xz")),
    (b"\x04\x22\x4d\x18", Compression::Other("lz4")),
    (b"PK\x03\x04", Compression::Other("zip")),
];

/// [`Compression`] of a file that starts with `head`. bzip2's `BZh` is followed by its block
/// size, a digit from 1 to 9: a text that starts with `BZh` is text.
pub fn compression_of(head: &[u8]) -> Option<Compression> {
    let (m, c) = MAGIC.iter().find(|(m, _)| head.starts_with(m))?;
    (m != b"BZh" || head.get(3).is_some_and(|d| (b'1'..=b'9').contains(d))).then_some(*c)
}

/// Whether more bytes after `head` could still make it a compression's magic bytes (it is
/// shorter than one, bzip2's with its digit, and starts it).
pub fn magic_undecided(head: &[u8]) -> bool {
    MAGIC.iter().any(|(m, _)| {
        m.len() + usize::from(m == b"BZh") > head.len() && head.starts_with(&m[..head.len().min(m.len())])
    })
}

/// `input` as text: decoded when its first bytes say it is gzip or zstd, an error when another
/// compression. For a stream that cannot be read twice (standard input, a pipe named as a path:
/// `<(zcat …)`, `/dev/stdin`): its first bytes are read, then read again before the rest.
pub fn text_of(mut input: impl io::Read + Send + 'static) -> io::Result<Box<dyn io::Read + Send>> {
    use io::Read;
    let mut first = vec![0u8; 8];
    let mut n = 0;
    // The magic's bytes may come in more than one read from a pipe.
    while n < first.len() {
        match input.read(&mut first[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
        // A line that cannot start a compressed stream is passed on at once (`kubectl logs -f`
        // may send one and wait).
        if !magic_undecided(&first[..n]) {
            break;
        }
    }
    first.truncate(n);
    let kind = compression_of(&first);
    let text = io::Cursor::new(first).chain(input);
    match kind {
        None => Ok(Box::new(text)),
        Some(c) => c.decoded(text, "input"),
    }
}

/// Check the writer after a step: a closed pipe ends the run quietly.
fn check_output(writer: &dyn Writer) -> Result<Option<Outcome>, ReadFailure> {
    match writer.error() {
        None => Ok(None),
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(Some(Outcome::OutputClosed)),
        Some(e) => Err(ReadFailure::Output(io::Error::new(e.kind(), e.to_string()))),
    }
}


/// End of one input: complete its last event, flush, count; a closed output decides the outcome.
fn finish_source(
    mut stage: crate::stage::Stage<'_, &mut dyn Writer>,
    totals: &mut Totals,
    mut report: Report<'_>,
    result: Result<Outcome, ReadFailure>,
) -> Result<Outcome, ReadFailure> {
    stage.finish();
    stage.writer().flush();
    *totals += stage.totals();
    report.update(stage.totals());
    match check_output(&**stage.writer())? {
        Some(o) => Ok(o),
        None => result,
    }
}
