//! Sinks: delivering batches of annotated events to standard output, files and log shippers.
//!
//! Owns the outputs of follow mode: `-` (standard output), `file:PATH`, `tcp://HOST:PORT` and
//! `unix:PATH` (newline-delimited JSON), `syslog+tcp://HOST:PORT` (RFC 5424, octet counting, the
//! event as the message), `http(s)://...` (NDJSON POSTed, acknowledged by a 2xx) and
//! `otlp+http(s)://...` (OTLP/HTTP logs, [`otlp`]); HTTP bodies compressed (gzip, zstd) when asked
//! for. Each sink is a
//! tokio task with a bounded queue (events and bytes). A batch is retried with exponential backoff
//! and jitter until it is delivered (a 4xx answer is reported with its body and given up after a
//! few attempts). When a queue is full the fan-out waits (backpressure reaches the reader, files
//! are the buffer) or, with `when_full = drop`, drops the batch for that sink and counts it.
//!
//! Contract: a batch is *acknowledged* once every sink has delivered it (or dropped it on the
//! user's instruction); only then do its checkpoint marks apply. "Delivered" means: standard
//! output and files: written and flushed (not fsynced); stream sockets: written and flushed to
//! the kernel (a receiver that dies before reading loses what was in its socket buffer: a
//! reconnect re-sends only unacknowledged batches); HTTP: a 2xx response.

pub mod dedupe;
pub mod otlp;
pub mod render;

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::sync::{Semaphore, mpsc};

use crate::event::{Flow, Format, Shape, Style};
use crate::metrics::{Metrics, SinkMetrics};
pub use render::{MultiWriter, Rendered, Severity};

/// Where a sink delivers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Stdout,
    File(PathBuf),
    Tcp(String),
    Unix(PathBuf),
    SyslogTcp(String),
    Http(String),
    /// OTLP/HTTP logs: the http(s) URL requests are POSTed to (`/v1/logs` when none was given).
    Otlp(String),
}

/// Why an output URL is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("{url:?}: expected HOST:PORT after the scheme")]
    HostPort { url: String },
    #[error("{url:?}: no path")]
    NoPath { url: String },
    #[error("{url:?}: no host")]
    NoHost { url: String },
    #[error("{url:?}: {cause}")]
    Url { url: String, cause: String },
    #[error("{url:?}: use otlp+http://HOST:PORT[/PATH] or otlp+https://...")]
    OtlpScheme { url: String },
    #[error(
        "{url:?}: unknown output; use -, file:PATH, tcp://HOST:PORT, unix:PATH, syslog+tcp://HOST:PORT, http(s)://..., otlp+http(s)://HOST:PORT[/v1/logs]"
    )]
    Unknown { url: String },
}

impl Target {
    /// Parse an output URL.
    pub fn parse(url: &str) -> Result<Target, TargetError> {
        let owned = || url.to_owned();
        let host_port = |rest: &str| -> Result<String, TargetError> {
            let rest = rest.trim_end_matches('/');
            match rest.rsplit_once(':') {
                Some((h, p)) if !h.is_empty() && p.parse::<u16>().is_ok() => Ok(rest.to_owned()),
                _ => Err(TargetError::HostPort { url: owned() }),
            }
        };
        let path =
            |p: &str| if p.is_empty() { Err(TargetError::NoPath { url: owned() }) } else { Ok(PathBuf::from(p)) };
        let parsed =
            |u: &str| reqwest::Url::parse(u).map_err(|e| TargetError::Url { url: owned(), cause: e.to_string() });
        if url == "-" {
            Ok(Target::Stdout)
        } else if let Some(p) = url.strip_prefix("file:") {
            path(p).map(Target::File)
        } else if let Some(r) = url.strip_prefix("tcp://") {
            host_port(r).map(Target::Tcp)
        } else if let Some(r) = url.strip_prefix("syslog+tcp://") {
            host_port(r).map(Target::SyslogTcp)
        } else if let Some(p) = url.strip_prefix("unix:") {
            path(p).map(Target::Unix)
        } else if url.starts_with("http://") || url.starts_with("https://") {
            parsed(url)?;
            Ok(Target::Http(url.to_owned()))
        } else if let Some(rest) = url.strip_prefix("otlp+") {
            if !(rest.starts_with("http://") || rest.starts_with("https://")) {
                return Err(TargetError::OtlpScheme { url: owned() });
            }
            let mut u = parsed(rest)?;
            if u.host_str().is_none_or(str::is_empty) {
                return Err(TargetError::NoHost { url: owned() });
            }
            // The OTLP/HTTP default path: a collector's endpoint is usually given as HOST:PORT.
            if u.path() == "/" || u.path().is_empty() {
                u.set_path("/v1/logs");
            }
            Ok(Target::Otlp(u.to_string()))
        } else {
            Err(TargetError::Unknown { url: owned() })
        }
    }
}

/// What to do with a batch when a sink's queue is full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum WhenFull {
    /// Wait: reading pauses until the sink catches up (nothing is lost).
    Block,
    /// Drop the batch for this sink, count it and log it.
    Drop,
}

/// How an HTTP or OTLP sink compresses request bodies (`compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

/// The default gzip level (`compression_level`): 2. Batches of matched annotail/1 events came out
/// 4.9x smaller at level 1, 6.3x at 2, 7.5x at 6 (zlib's default), which cost three times the CPU
/// of level 2 (BENCHMARKS.md, issue 24).
pub const GZIP_LEVEL: i32 = 2;
/// The default zstd level: zstd's own default. Its window spans a whole batch, so it finds the
/// records' text repeated across a batch that gzip's 32 KiB window misses.
pub const ZSTD_LEVEL: i32 = 3;

impl Compression {
    /// The `Content-Encoding` it is sent with.
    pub fn content_encoding(self) -> Option<&'static str> {
        match self {
            Compression::None => None,
            Compression::Gzip => Some("gzip"),
            Compression::Zstd => Some("zstd"),
        }
    }

    /// The levels `compression_level` accepts, and the default.
    pub fn levels(self) -> (std::ops::RangeInclusive<i32>, i32) {
        match self {
            Compression::None => (0..=0, 0),
            Compression::Gzip => (1..=9, GZIP_LEVEL),
            Compression::Zstd => (1..=19, ZSTD_LEVEL),
        }
    }

    pub fn compress(self, body: &[u8], level: i32) -> std::io::Result<Vec<u8>> {
        use std::io::Write as _;
        match self {
            Compression::None => Ok(body.to_vec()),
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(
                    Vec::with_capacity(body.len() / 4),
                    flate2::Compression::new(level.clamp(1, 9) as u32),
                );
                e.write_all(body)?;
                e.finish()
            }
            Compression::Zstd => zstd::bulk::compress(body, level),
        }
    }
}

/// The syslog facility of a `syslog+tcp` sink (`syslog_facility`), by its RFC 5424 name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Facility {
    Kern,
    User,
    Mail,
    Daemon,
    Auth,
    Syslog,
    Lpr,
    News,
    Uucp,
    Cron,
    Authpriv,
    Ftp,
    Local0,
    Local1,
    Local2,
    Local3,
    Local4,
    Local5,
    Local6,
    Local7,
}

impl Facility {
    /// The facility's code (RFC 5424, table 1).
    pub fn code(self) -> u32 {
        match self {
            Facility::Kern => 0,
            Facility::User => 1,
            Facility::Mail => 2,
            Facility::Daemon => 3,
            Facility::Auth => 4,
            Facility::Syslog => 5,
            Facility::Lpr => 6,
            Facility::News => 7,
            Facility::Uucp => 8,
            Facility::Cron => 9,
            Facility::Authpriv => 10,
            Facility::Ftp => 11,
            Facility::Local0 => 16,
            Facility::Local1 => 17,
            Facility::Local2 => 18,
            Facility::Local3 => 19,
            Facility::Local4 => 20,
            Facility::Local5 => 21,
            Facility::Local6 => 22,
            Facility::Local7 => 23,
        }
    }
}

/// One sink, as configured.
#[derive(Debug, Clone)]
pub struct SinkSpec {
    pub url: String,
    pub target: Target,
    pub format: Format,
    pub min_severity: Option<Severity>,
    pub headers: Vec<(String, String)>,
    pub when_full: WhenFull,
    /// Queue bound, in events and in bytes.
    pub max_events: usize,
    pub max_bytes: usize,
    /// A request or write that takes longer has failed.
    pub timeout: Duration,
    /// Largest request or write: queued batches are joined up to this size.
    pub batch_bytes: usize,
    /// How long a sink waits for more events to fill a request before sending it (0: send
    /// what is there at once).
    pub batch_timeout: Duration,
    /// Longest wait between retries.
    pub max_backoff: Duration,
    /// PEM file of CA certificates trusted for https (besides the system's roots).
    pub tls_ca_file: Option<PathBuf>,
    /// Where events a receiver refuses one by one are parked (the state directory's
    /// `dead-letter/`); `None`: nowhere, and such an event is retried until it is taken.
    pub dead_letter_dir: Option<PathBuf>,
    /// Hold repeats back and send one summary per key and window (off: every event).
    pub dedupe: Option<dedupe::DedupeSpec>,
    /// Record fields carried and the size bound.
    pub shape: std::sync::Arc<Shape>,
    /// HTTP and OTLP request bodies.
    pub compression: Compression,
    pub compression_level: i32,
    /// OTLP request bodies: protobuf or JSON.
    pub encoding: otlp::Encoding,
    pub facility: Facility,
    /// Requests in flight at once (http and otlp sinks without dedupe; every other sink writes
    /// one batch at a time, in order).
    pub concurrency: usize,
}

impl SinkSpec {
    /// A sink for `url`: an `otlp+` one renders OTLP records whatever `format` says.
    pub fn new(url: &str, format: Format) -> Result<SinkSpec, TargetError> {
        let target = Target::parse(url)?;
        let otlp = matches!(target, Target::Otlp(_));
        Ok(SinkSpec {
            url: url.to_owned(),
            format: if otlp { Format::Otlp } else { format },
            target,
            min_severity: None,
            headers: Vec::new(),
            when_full: WhenFull::Block,
            // A burst of errors (a crash loop prints thousands) fits; memory stays far below the
            // catalog's.
            max_events: 100_000,
            max_bytes: 16 << 20,
            timeout: Duration::from_secs(10),
            // Vector's and Fluent Bit's HTTP inputs accept a few MiB per request by default.
            batch_bytes: 1 << 20,
            // Latency first: what a read produced goes out at once; set a bound for receivers
            // that prefer fewer, larger requests.
            batch_timeout: Duration::ZERO,
            max_backoff: Duration::from_secs(30),
            tls_ca_file: None,
            dead_letter_dir: None,
            dedupe: None,
            shape: Default::default(),
            // OTLP receivers all take gzip (the specification requires it of them); a plain HTTP
            // receiver may not, so its bodies go as they are unless asked.
            compression: if otlp { Compression::Gzip } else { Compression::None },
            compression_level: GZIP_LEVEL,
            encoding: otlp::Encoding::Protobuf,
            facility: Facility::Local0,
            concurrency: CONCURRENCY,
        })
    }

    /// The rendering this sink takes from a batch.
    pub fn style(&self) -> Style {
        Style::new(self.format, self.shape.clone())
    }

    fn is_http(&self) -> bool {
        matches!(self.target, Target::Http(_) | Target::Otlp(_))
    }

    /// How many requests this sink keeps in flight: `concurrency` for http and otlp sinks; one
    /// for streams, files and syslog (the order of their bytes is the order of the events) and
    /// for a sink with dedupe (its windows are summed up in delivery order).
    pub fn in_flight(&self) -> usize {
        if self.is_http() && self.dedupe.is_none() { self.concurrency.max(1) } else { 1 }
    }
}

impl SinkSpec {
    /// What would make this sink fail on every attempt, found before it starts: a CA file that
    /// cannot be read or holds no certificate, headers HTTP cannot carry, keys its kind does not
    /// use, a file sink's missing directory. Retrying cannot fix these, and a sink that retries
    /// forever holds every checkpoint back, so `check` and start-up report them instead.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let https = matches!(&self.target, Target::Http(u) | Target::Otlp(u) if u.starts_with("https://"));
        if let Some(ca) = &self.tls_ca_file {
            if !https {
                out.push(format!("tls_ca_file: {}: only https sinks use a CA file", ca.display()));
            } else {
                match std::fs::read(ca) {
                    Err(e) => out.push(format!("tls_ca_file: {}: cannot read: {e}", ca.display())),
                    Ok(pem) => match reqwest::Certificate::from_pem_bundle(&pem) {
                        Err(e) => out.push(format!("tls_ca_file: {}: not PEM certificates: {e}", ca.display())),
                        Ok(certs) if certs.is_empty() => {
                            out.push(format!("tls_ca_file: {}: no certificate in it", ca.display()))
                        }
                        Ok(_) => {}
                    },
                }
            }
        }
        if !self.headers.is_empty() && !self.is_http() {
            out.push("headers: only http(s) sinks send headers".to_owned());
        }
        for (k, v) in &self.headers {
            if let Err(e) = reqwest::header::HeaderName::from_bytes(k.as_bytes()) {
                out.push(format!("headers: {k:?} is not a valid header name: {e}"));
            }
            if let Err(e) = reqwest::header::HeaderValue::from_str(v) {
                out.push(format!("headers.{k}: not a valid header value: {e}"));
            }
        }
        if self.dedupe.is_some() && self.format == Format::Pretty {
            out.push("dedupe: pretty output collapses repeats itself; dedupe is for json and ecs sinks".to_owned());
        }
        if self.concurrency == 0 || self.concurrency > MAX_CONCURRENCY {
            out.push(format!("concurrency: {} is not between 1 and {MAX_CONCURRENCY}", self.concurrency));
        } else if self.concurrency != CONCURRENCY && !self.is_http() {
            out.push("concurrency: only http(s) and otlp sinks send requests in parallel".to_owned());
        }
        if self.dedupe.is_some() && self.format == Format::Otlp {
            out.push(
                "dedupe: not for otlp sinks (their records are protobuf); dedupe is for json and ecs sinks".to_owned(),
            );
        }
        if let Target::File(p) = &self.target {
            let dir = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
                _ => PathBuf::from("."),
            };
            if !dir.is_dir() {
                out.push(format!("{}: the directory {} does not exist", self.url, dir.display()));
            }
        }
        out
    }
}

/// A batch as the sinks see it: shared, and released (queue permits) when dropped; its
/// buffers then go back to the [`Pool`].
pub struct Shared {
    pub rendered: Rendered,
    pool: Pool,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.pool.give(std::mem::take(&mut self.rendered));
    }
}

/// Batches whose every sink is done with them, emptied, for the writer to fill again. A batch
/// freed on a sink's thread and a new one grown on the reader's cost a tenth of an OTLP sink's
/// CPU (the allocator hands fresh huge pages to the reader, each zeroed on its first touch);
/// reusing them keeps the same few buffers warm.
#[derive(Clone, Default)]
pub struct Pool(Arc<std::sync::Mutex<Vec<Rendered>>>);

/// Batches kept for reuse: the queue between writer and sinks holds four, and one is being
/// filled while the sinks deliver others; more would only hold memory.
const POOL_BATCHES: usize = 8;

impl Pool {
    fn give(&self, mut r: Rendered) {
        let mut v = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if v.len() < POOL_BATCHES {
            r.clear();
            v.push(r);
        }
    }

    /// An empty batch for `formats`: a reused one when there is one.
    pub fn take(&self, formats: &[Style]) -> Rendered {
        let reused = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop();
        match reused {
            Some(r) if r.formats == formats => r,
            _ => Rendered::new(formats),
        }
    }
}

/// The longest `Retry-After` obeyed: a receiver asking for an hour is more likely wrong than
/// sure, and the checkpoint waits with it.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);
/// At most this much of an error answer's body is read (and logged): a receiver or a proxy can
/// answer anything, a gigabyte included.
const ERROR_BODY_MAX: usize = 4096;
/// At most this much of an OTLP receiver's success answer is read: it holds a count and a
/// message.
const OTLP_ANSWER_MAX: usize = 64 << 10;
/// Requests an http or otlp sink keeps in flight by default. One request at a time leaves the
/// sink idle while the receiver decodes and annotail idle while it compresses the next body;
/// with two the two overlap (OTLP with gzip 2 to a local receiver: 111k events/s with one,
/// 133k with two, 145k with four; BENCHMARKS.md). Two, not more: each request in flight holds a
/// connection of the receiver's, and batches may arrive out of order.
const CONCURRENCY: usize = 2;
/// More requests in flight than this only add connections a receiver must hold open.
const MAX_CONCURRENCY: usize = 64;
/// First retry delay; doubled per failure up to `max_backoff`, with jitter.
const BACKOFF_START: Duration = Duration::from_millis(100);

/// The running sinks: a fan-out that queues each batch to every sink and reports, in order,
/// the batches all sinks have acknowledged.
pub struct Sinks {
    queues: Vec<Queue>,
    acks: mpsc::UnboundedReceiver<(usize, u64)>,
    /// Batches sent and not yet acknowledged by all: (sequence, sinks still to ack).
    pending: VecDeque<(u64, usize)>,
    next_seq: u64,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    pub dropped: Arc<std::sync::atomic::AtomicU64>,
    closed: bool,
    /// Where delivered batches go back to, for the writer to reuse.
    pool: Pool,
}

/// Sequence number a sink acknowledges with when standard output is closed.
const OUTPUT_CLOSED: u64 = u64::MAX;

struct Queue {
    spec: SinkSpec,
    metrics: SinkMetrics,
    tx: Option<mpsc::UnboundedSender<Item>>,
    events: Arc<Semaphore>,
    bytes: Arc<Semaphore>,
}

struct Item {
    seq: u64,
    batch: Arc<Shared>,
    _permits: (Option<tokio::sync::OwnedSemaphorePermit>, Option<tokio::sync::OwnedSemaphorePermit>),
}

/// Bytes are counted in KiB for the semaphore (its permits are u32).
fn kib(n: usize) -> u32 {
    n.div_ceil(1024).min(u32::MAX as usize) as u32
}

impl Sinks {
    /// Start one task per sink (inside a tokio runtime). `reopen` tells file sinks to reopen
    /// their file (SIGHUP); delivered batches go back to `pool`, the one their writer takes from.
    pub fn start(
        specs: Vec<SinkSpec>,
        reopen: tokio::sync::watch::Receiver<u64>,
        metrics: &Metrics,
        pool: Pool,
    ) -> Sinks {
        let (ack_tx, acks) = mpsc::unbounded_channel();
        let mut queues = Vec::new();
        let mut tasks = Vec::new();
        for (i, spec) in specs.into_iter().enumerate() {
            let (tx, rx) = mpsc::unbounded_channel();
            let m = metrics.sink(&spec.url);
            let q = Queue {
                metrics: m.clone(),
                events: Arc::new(Semaphore::new(spec.max_events.max(1))),
                bytes: Arc::new(Semaphore::new(kib(spec.max_bytes).max(1) as usize)),
                tx: Some(tx),
                spec: spec.clone(),
            };
            tasks.push(tokio::spawn(run_sink(i, spec, rx, ack_tx.clone(), reopen.clone(), m)));
            queues.push(q);
        }
        Sinks {
            queues,
            acks,
            pending: VecDeque::new(),
            next_seq: 0,
            tasks,
            dropped: Arc::default(),
            closed: false,
            pool,
        }
    }

    /// The renderings the sinks need, each once.
    pub fn formats(specs: &[SinkSpec]) -> Vec<Style> {
        let mut v: Vec<Style> = Vec::new();
        for s in specs {
            let st = s.style();
            if !v.contains(&st) {
                v.push(st);
            }
        }
        v
    }

    /// Queue a batch to every sink; waits while a blocking sink's queue is full. Returns the
    /// batch's sequence number.
    pub async fn send(&mut self, rendered: Rendered) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let events = rendered.events().max(1);
        let bytes = rendered.bytes();
        let batch = Arc::new(Shared { rendered, pool: self.pool.clone() });
        let mut waiting = 0;
        for (i, q) in self.queues.iter_mut().enumerate() {
            let mut gone = false;
            let ev_n = events.min(q.spec.max_events.max(1)) as u32;
            let kb_n = kib(bytes).min(kib(q.spec.max_bytes).max(1));
            let permits = match q.spec.when_full {
                WhenFull::Block => {
                    let e = q.events.clone().acquire_many_owned(ev_n).await.ok();
                    let b = q.bytes.clone().acquire_many_owned(kb_n).await.ok();
                    Some((e, b))
                }
                WhenFull::Drop => {
                    match (q.events.clone().try_acquire_many_owned(ev_n), q.bytes.clone().try_acquire_many_owned(kb_n))
                    {
                        (Ok(e), Ok(b)) => Some((Some(e), Some(b))),
                        _ => None,
                    }
                }
            };
            match (permits, &q.tx) {
                (Some(p), Some(tx)) => {
                    if tx.send(Item { seq, batch: batch.clone(), _permits: p }).is_ok() {
                        q.metrics.queued.inc_by(batch.rendered.events() as i64);
                        waiting += 1;
                    } else {
                        // Its task has ended, and said why: standard output closed (`| head`) or
                        // a failure it logged. Once, not an error per batch after it (274 lines
                        // on `annotail --all --output - … | head`: a third reader).
                        tracing::debug!(sink = i, "sink task is gone");
                        gone = true;
                    }
                }
                (None, _) => {
                    q.metrics.dropped.inc_by(batch.rendered.events() as u64);
                    self.dropped.fetch_add(batch.rendered.events() as u64, std::sync::atomic::Ordering::Relaxed);
                    tracing::warn!(sink = %q.spec.url, events = batch.rendered.events(), "queue full: batch dropped (when_full = drop)");
                }
                (Some(_), None) => {}
            }
            if gone {
                q.tx = None;
            }
        }
        self.pending.push_back((seq, waiting));
        seq
    }

    /// Batches acknowledged by every sink since the last call, in order (sequence numbers).
    /// Waits for at least one when `wait` and something is pending.
    pub async fn acked(&mut self, wait: bool) -> Vec<u64> {
        let mut done = Vec::new();
        loop {
            while let Some((seq, 0)) = self.pending.front().copied() {
                self.pending.pop_front();
                done.push(seq);
            }
            if !done.is_empty() || !wait || self.pending.is_empty() {
                return done;
            }
            match self.acks.recv().await {
                Some(a) => self.ack(a),
                None => return done,
            }
            while let Ok(a) = self.acks.try_recv() {
                self.ack(a);
            }
        }
    }

    /// Take acknowledgements that have arrived without waiting.
    pub fn poll_acks(&mut self) -> Vec<u64> {
        while let Ok(a) = self.acks.try_recv() {
            self.ack(a);
        }
        let mut done = Vec::new();
        while let Some((seq, 0)) = self.pending.front().copied() {
            self.pending.pop_front();
            done.push(seq);
        }
        done
    }

    fn ack(&mut self, (_, seq): (usize, u64)) {
        if seq == OUTPUT_CLOSED {
            self.closed = true;
            return;
        }
        // A batch whose queuing was interrupted (a signal during backpressure) is not pending.
        if let Some(p) = self.pending.iter_mut().find(|p| p.0 == seq) {
            p.1 -= 1;
        }
    }

    /// Standard output was closed (`| head`): the run ends.
    pub fn output_closed(&self) -> bool {
        self.closed
    }

    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// No more batches: the sink tasks finish their queues and end.
    pub fn close(&mut self) {
        for q in &mut self.queues {
            q.tx = None;
        }
        let dropped = self.dropped.load(std::sync::atomic::Ordering::Relaxed);
        if dropped > 0 {
            tracing::warn!(dropped, "events dropped in all because a queue was full (when_full = drop)");
        }
    }

    pub fn abort(&self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Standard input and files read to their end with `--output`: a [`crate::event::Writer`] that
/// hands each flushed batch to the sinks, blocking while they are full (so standard input stops
/// being read: the writer upstream blocks).
pub struct SinkWriter {
    multi: MultiWriter,
    formats: Vec<Style>,
    tx: Option<mpsc::Sender<Rendered>>,
    err: Option<std::io::Error>,
    pool: Pool,
}

impl crate::event::Writer for SinkWriter {
    fn echoes_lines(&self) -> bool {
        self.multi.echoes_lines()
    }
    fn annotated(&mut self, ev: &crate::event::Annotated<'_>) -> Flow {
        self.multi.annotated(ev);
        if self.multi.out.bytes() >= 256 << 10 {
            self.flush();
        }
        Flow::after(&self.err)
    }
    fn unmatched(&mut self, bytes: &[u8]) -> Flow {
        self.multi.unmatched(bytes);
        Flow::after(&self.err)
    }
    fn flush(&mut self) {
        if self.multi.out.is_empty() {
            return;
        }
        let batch = std::mem::replace(&mut self.multi.out, self.pool.take(&self.formats));
        if self.tx.as_ref().is_none_or(|tx| tx.blocking_send(batch).is_err()) && self.err.is_none() {
            self.err = Some(std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the outputs are gone"));
        }
    }
    fn error(&self) -> Option<&std::io::Error> {
        self.err.as_ref()
    }
}

/// Run `f` with a [`SinkWriter`] delivering to `specs`; when it returns, wait (up to `deadline`)
/// until everything was delivered. Returns `f`'s result and whether everything was delivered.
pub fn with_sinks<R>(
    specs: Vec<SinkSpec>,
    all: bool,
    deadline: Duration,
    metrics: Arc<Metrics>,
    f: impl FnOnce(&mut SinkWriter) -> R,
) -> std::io::Result<(R, bool)> {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
    let formats = Sinks::formats(&specs);
    let specs_dedupe = specs.iter().any(|s| s.dedupe.is_some());
    let (tx, mut rx) = mpsc::channel::<Rendered>(4);
    let (_reopen_tx, reopen_rx) = tokio::sync::watch::channel(0u64);
    let pool = Pool::default();
    // Events written are counted as every sink acknowledges their batch, as in follow mode: as
    // the reader wrote them, a receiver that was down showed 10,900 written and none sent (found
    // by an OTel pipeline's reading).
    metrics.written_on_delivery.store(true, std::sync::atomic::Ordering::Relaxed);
    let task = rt.spawn({
        let pool = pool.clone();
        async move {
            let mut sinks = Sinks::start(specs, reopen_rx, &metrics, pool);
            // Per batch in flight: its sequence number and event count.
            let mut in_flight: std::collections::VecDeque<(u64, usize)> = Default::default();
            let written = |done: Vec<u64>, in_flight: &mut std::collections::VecDeque<(u64, usize)>| {
                for seq in done {
                    while let Some(&(s, events)) = in_flight.front() {
                        if s > seq {
                            break;
                        }
                        in_flight.pop_front();
                        metrics.events_written.inc_by(events as u64);
                    }
                }
            };
            // Acknowledgements are taken as they come, not only when the next batch does: on a
            // pipe that has gone quiet (`kubectl logs -f`) the count would wait for its next line.
            // `acked` is cancel-safe: it holds nothing taken while it waits. It returns nothing
            // at once when every sink task has ended (standard output closed, a task failed):
            // then it is not waited on again, which was a loop that never waited, a core busy
            // while the input stayed open (found by a second reader).
            let mut acks_open = true;
            loop {
                tokio::select! {
                    r = rx.recv() => {
                        let Some(r) = r else { break };
                        let events = r.events();
                        let seq = sinks.send(r).await;
                        in_flight.push_back((seq, events));
                        written(sinks.poll_acks(), &mut in_flight);
                    }
                    done = sinks.acked(true), if acks_open && sinks.pending() > 0 && !sinks.output_closed() => {
                        acks_open = !done.is_empty();
                        written(done, &mut in_flight);
                    }
                }
            }
            sinks.close();
            while sinks.pending() > 0 && !sinks.output_closed() {
                written(sinks.acked(true).await, &mut in_flight);
            }
        }
    });
    let mut multi = MultiWriter::new(&formats, all, false, 100);
    multi.keep_meta = specs_dedupe;
    let mut w = SinkWriter { multi, formats, tx: Some(tx), err: None, pool };
    let r = f(&mut w);
    crate::event::Writer::flush(&mut w);
    w.tx = None;
    let done = rt.block_on(async { tokio::time::timeout(deadline, task).await.is_ok() });
    if !done {
        tracing::warn!("deadline passed with events undelivered");
    }
    rt.shutdown_timeout(Duration::from_millis(100));
    Ok((r, done))
}

/// A sink's connection, opened lazily and dropped on failure.
enum Conn {
    None,
    Stdout(tokio::io::Stdout),
    /// A std file written on the blocking pool: tokio's buffers its writes, so a write cut short
    /// would be found only later, and how much of it was written never.
    File(Arc<std::fs::File>),
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
    Http(reqwest::Client),
}

struct Failure {
    /// The receiver refuses this payload as it is (400, 413, 422): sending it again unchanged
    /// will not help; its halves might (and a single event is parked in the dead-letter file).
    refused: bool,
    /// How long the receiver asked to wait (`Retry-After`, on 429 and 503).
    retry_after: Option<Duration>,
    /// Bytes of the payload a stream socket took before the failure.
    written: usize,
    broken_pipe: bool,
    message: String,
}

impl Failure {
    fn other(message: String) -> Failure {
        Failure { refused: false, retry_after: None, written: 0, broken_pipe: false, message }
    }
}

/// `e` and the errors under it, joined by `: `: reqwest's own text is `error sending request for
/// url (…)`, and the cause (`Connection refused (os error 111)`, a TLS or DNS failure) is in its
/// sources (found by an OTel pipeline's reading: the tcp sink named it, the HTTP ones did not).
fn with_sources(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let t = s.to_string();
        // hyper's and the io error's texts may repeat the one above them.
        if !out.ends_with(&t) {
            out.push_str(": ");
            out.push_str(&t);
        }
        next = s.source();
    }
    out
}

/// Whether the other end of `s` has closed it (its FIN or a reset has arrived): a look that does
/// not wait, as Vector's TCP sink looks before a batch. A receiver of these streams sends nothing
/// annotail reads, so what it did send is read and dropped first: a receiver that wrote a word
/// and then closed was taken as open, and the next batch lost (found by a second reader). A
/// receiver that closes only its own sending side (`nc -l … < /dev/null`) reads as gone too:
/// nothing tells the two apart before a write (README).
fn peer_closed(s: &tokio::net::TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    // At most 1 MiB dropped a look: a receiver that keeps talking is taken as open.
    for _ in 0..256 {
        match s.try_read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
    false
}

/// `write_all` that says how much was written when it fails.
async fn write_counted<W: tokio::io::AsyncWrite + Unpin>(w: &mut W, buf: &[u8]) -> Result<(), (std::io::Error, usize)> {
    let mut at = 0;
    while at < buf.len() {
        match w.write(&buf[at..]).await {
            Ok(0) => return Err((std::io::ErrorKind::WriteZero.into(), at)),
            Ok(n) => at += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err((e, at)),
        }
    }
    Ok(())
}

/// Where the event that byte `written` of a stream payload falls in begins: the events before
/// it were taken whole by the socket (delivered, for a stream), so a new connection starts
/// there, with a whole event, instead of sending them again.
fn resume_at(target: &Target, payload: &[u8], written: usize) -> usize {
    if written >= payload.len() {
        return 0;
    }
    match target {
        // Octet-counted frames: "LEN SP MSG", one after another.
        Target::SyslogTcp(_) => {
            let mut at = 0;
            while at < payload.len() {
                let Some(sp) = memchr::memchr(b' ', &payload[at..]) else { return 0 };
                let Some(len) = std::str::from_utf8(&payload[at..at + sp]).ok().and_then(|l| l.parse::<usize>().ok())
                else {
                    return 0;
                };
                let end = at + sp + 1 + len;
                if end > written {
                    return at;
                }
                at = end;
            }
            0
        }
        _ => memchr::memrchr(b'\n', &payload[..written]).map_or(0, |i| i + 1),
    }
}

/// The payload cut in two at the event boundary nearest its middle; `None` for one event.
fn split_events(payload: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let body = payload.strip_suffix(b"\n").unwrap_or(payload);
    let mid = body.len() / 2;
    let after = memchr::memchr(b'\n', &body[mid..]).map(|i| mid + i);
    let before = memchr::memrchr(b'\n', &body[..mid]);
    let cut = match (before, after) {
        (Some(b), Some(a)) => {
            if mid - b <= a - mid {
                b
            } else {
                a
            }
        }
        (Some(b), None) => b,
        (None, Some(a)) => a,
        (None, None) => return None,
    } + 1;
    Some((payload[..cut].to_vec(), payload[cut..].to_vec()))
}

/// Append an event a receiver refused to this sink's dead-letter file, as it was sent (NDJSON,
/// so the file can be POSTed again as it is; an OTLP sink's as an OTLP/JSON request on one line;
/// why is in the log); fsynced before the event counts as handled.
async fn dead_letter(spec: &SinkSpec, event: &[u8]) -> std::io::Result<PathBuf> {
    let Some(dir) = &spec.dead_letter_dir else {
        return Err(std::io::Error::other("no dead-letter directory configured"));
    };
    tokio::fs::create_dir_all(dir).await?;
    let path = dir.join(dead_letter_name(&spec.url));
    let mut f = tokio::fs::OpenOptions::new().create(true).append(true).open(&path).await?;
    let mut text = if matches!(spec.target, Target::Otlp(_)) { otlp::json_line(event) } else { event.to_vec() };
    if !text.ends_with(b"\n") {
        text.push(b'\n');
    }
    f.write_all(&text).await?;
    f.sync_data().await?;
    Ok(path)
}

/// The dead-letter file of a sink: its URL (without user information) as a file name.
pub fn dead_letter_name(url: &str) -> String {
    let clean: String = crate::metrics::redact(url)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' { c } else { '_' })
        .collect();
    format!("dead-letter-{clean}.ndjson")
}

async fn run_sink(
    idx: usize,
    spec: SinkSpec,
    mut rx: mpsc::UnboundedReceiver<Item>,
    acks: mpsc::UnboundedSender<(usize, u64)>,
    mut reopen: tokio::sync::watch::Receiver<u64>,
    metrics: SinkMetrics,
) {
    let spec = Arc::new(spec);
    let in_flight = spec.in_flight();
    // Requests in flight (with `in_flight` > 1), each returning its connection and the items
    // it delivered; and the connections free for the next.
    let mut flying: tokio::task::JoinSet<(Conn, Vec<Item>)> = tokio::task::JoinSet::new();
    let mut idle: Vec<Conn> = Vec::new();
    let landed = |r: Result<(Conn, Vec<Item>), tokio::task::JoinError>, idle: &mut Vec<Conn>| match r {
        Ok((conn, items)) => {
            idle.push(conn);
            for it in items {
                metrics.queued.dec_by(it.batch.rendered.events() as i64);
                let _ = acks.send((idx, it.seq));
            }
            true
        }
        Err(e) => {
            tracing::error!(sink = %spec.url, cause = %e, "a delivery task failed; the sink stops");
            false
        }
    };
    let slot = 0usize;
    let mut conn = Conn::None;
    let mut items: Vec<Item> = Vec::new();
    let mut payload = Vec::new();
    let host = hostname();
    let mut dedupe = spec.dedupe.clone().map(dedupe::Dedupe::new);
    let mut waits: Vec<Vec<u64>> = Vec::new();
    loop {
        // Summaries of the dedupe windows that ended, before anything newer.
        if let Some(d) = &mut dedupe {
            let now = tokio::time::Instant::now();
            if d.next_due().is_some_and(|at| at <= now) {
                let (sums, closed) = d.due(now, false, spec.style());
                if !deliver_summaries(&spec, &mut conn, &host, &sums, &metrics, &acks, idx).await {
                    return;
                }
                for seq in d.summarised(&closed) {
                    let _ = acks.send((idx, seq));
                }
            }
        }
        // Join what is queued, up to the batch size.
        let next = match dedupe.as_ref().and_then(dedupe::Dedupe::next_due) {
            Some(at) => tokio::select! {
                it = rx.recv() => it,
                () = tokio::time::sleep_until(at) => continue,
            },
            None if flying.is_empty() => rx.recv().await,
            // Acknowledge what lands while waiting for more, and never more in flight than
            // allowed.
            None => tokio::select! {
                it = rx.recv(), if flying.len() < in_flight => it,
                Some(r) = flying.join_next() => {
                    if !landed(r, &mut idle) {
                        return;
                    }
                    continue;
                }
            },
        };
        let Some(first) = next else {
            while let Some(r) = flying.join_next().await {
                if !landed(r, &mut idle) {
                    return;
                }
            }
            // The input ended: what is held is summed up now.
            if let Some(d) = &mut dedupe {
                let (sums, closed) = d.due(tokio::time::Instant::now(), true, spec.style());
                if deliver_summaries(&spec, &mut conn, &host, &sums, &metrics, &acks, idx).await {
                    for seq in d.summarised(&closed) {
                        let _ = acks.send((idx, seq));
                    }
                }
            }
            return;
        };
        items.push(first);
        let mut size = items[0].batch.rendered.bytes();
        let fill_until = tokio::time::Instant::now() + spec.batch_timeout;
        while size < spec.batch_bytes {
            let next = match rx.try_recv() {
                Ok(it) => Some(it),
                // Wait for more only while the batch's time bound allows.
                Err(mpsc::error::TryRecvError::Empty) if !spec.batch_timeout.is_zero() => {
                    tokio::time::timeout_at(fill_until, rx.recv()).await.ok().flatten()
                }
                Err(_) => None,
            };
            match next {
                Some(it) => {
                    size += it.batch.rendered.bytes();
                    items.push(it);
                }
                None => break,
            }
        }
        payload.clear();
        // At most what the batches hold (every format): one allocation, not a doubling series.
        payload.reserve(size);
        waits.clear();
        let mut keep = Vec::new();
        for it in &items {
            let r = &it.batch.rendered;
            let slot = slot_of(&spec, r).unwrap_or(slot);
            let mut w = Vec::new();
            if let Some(d) = &mut dedupe {
                let now = tokio::time::Instant::now();
                keep.clear();
                keep.extend(
                    (0..r.events()).map(|i| {
                        spec.min_severity.is_some_and(|m| r.severity[i] < m) || d.admit(r, slot, i, now, &mut w)
                    }),
                );
            }
            if !w.is_empty() {
                metrics.dedupe_held.inc_by(keep.iter().filter(|k| !**k).count() as u64);
            }
            waits.push(w);
            encode(&spec, r, slot, &host, &mut payload, dedupe.is_some().then_some(&keep[..]));
        }
        if reopen.has_changed().unwrap_or(false) {
            reopen.mark_unchanged();
            if matches!(conn, Conn::File(_)) {
                tracing::info!(sink = %spec.url, "reopening");
                conn = Conn::None;
            }
        }
        if in_flight > 1 {
            let mut conn = idle.pop().unwrap_or(Conn::None);
            let (spec, metrics, acks, body) =
                (spec.clone(), metrics.clone(), acks.clone(), std::mem::take(&mut payload));
            let items = std::mem::take(&mut items);
            waits.clear();
            flying.spawn(async move {
                deliver_all(&spec, &mut conn, body, &metrics, &acks, idx).await;
                (conn, items)
            });
            continue;
        }
        if !deliver_all(&spec, &mut conn, std::mem::take(&mut payload), &metrics, &acks, idx).await {
            return;
        }
        for (it, w) in items.drain(..).zip(waits.drain(..)) {
            metrics.queued.dec_by(it.batch.rendered.events() as i64);
            match &mut dedupe {
                Some(d) => {
                    for seq in d.delivered(it.seq, w) {
                        let _ = acks.send((idx, seq));
                    }
                }
                None => {
                    let _ = acks.send((idx, it.seq));
                }
            }
        }
    }
}

/// Deliver a batch of dedupe summaries; false when standard output is gone.
async fn deliver_summaries(
    spec: &SinkSpec,
    conn: &mut Conn,
    host: &str,
    sums: &render::Rendered,
    metrics: &SinkMetrics,
    acks: &mpsc::UnboundedSender<(usize, u64)>,
    idx: usize,
) -> bool {
    if sums.is_empty() {
        return true;
    }
    let mut payload = Vec::new();
    encode(spec, sums, 0, host, &mut payload, None);
    metrics.dedupe_summaries.inc_by(sums.events() as u64);
    deliver_all(spec, conn, payload, metrics, acks, idx).await
}

/// Deliver `payload` until it is taken: retried with backoff, split where the receiver refuses
/// it whole, single refused events parked in the dead-letter file. False when standard output
/// is gone (the acknowledgement that says so is sent).
async fn deliver_all(
    spec: &SinkSpec,
    conn: &mut Conn,
    payload: Vec<u8>,
    metrics: &SinkMetrics,
    acks: &mpsc::UnboundedSender<(usize, u64)>,
    idx: usize,
) -> bool {
    // Pieces still to deliver, in order: the payload, or the halves of one the receiver
    // refused whole (a 413, or a 400 for some event in it), down to single events.
    let mut pieces: VecDeque<Vec<u8>> = VecDeque::from([payload]);
    let mut attempt = 0u32;
    while let Some(piece) = pieces.pop_front() {
        if piece.is_empty() {
            continue;
        }
        match deliver(spec, conn, &piece).await {
            Ok(partial) => {
                metrics.sent.inc();
                match partial {
                    // OTLP: the receiver took the request but not all of it, and says that a
                    // retry would not help (the specification forbids one): counted, logged,
                    // and the run's exit status says so.
                    Some((rejected, why)) if rejected > 0 => {
                        metrics.rejected.inc_by(rejected as u64);
                        metrics.rejected_all.fetch_add(rejected as u64, std::sync::atomic::Ordering::Relaxed);
                        tracing::error!(sink = %spec.url, rejected, cause = %why, "the receiver rejected some records of a request (partial success)");
                    }
                    Some((_, why)) => {
                        tracing::warn!(sink = %spec.url, message = %why, "the receiver took every record, with a warning (partial success)")
                    }
                    None => {}
                }
                if attempt > 0 {
                    tracing::info!(sink = %spec.url, attempts = attempt + 1, "delivered after retrying");
                }
                attempt = 0;
            }
            Err(f) if f.broken_pipe && spec.target == Target::Stdout => {
                let _ = acks.send((idx, OUTPUT_CLOSED));
                return false;
            }
            Err(f) if f.refused => {
                metrics.failed.inc();
                let halves =
                    if matches!(spec.target, Target::Otlp(_)) { otlp::split(&piece) } else { split_events(&piece) };
                match halves {
                    Some((a, b)) => {
                        metrics.split.inc();
                        tracing::warn!(sink = %spec.url, cause = %f.message, bytes = piece.len(), "refused whole; sending it again in halves");
                        pieces.push_front(b);
                        pieces.push_front(a);
                    }
                    None => {
                        // One event the receiver will not take, however often it is sent:
                        // parked, not acknowledged as delivered, not retried forever.
                        loop {
                            match dead_letter(spec, &piece).await {
                                Ok(path) => {
                                    metrics.dead_letter.inc();
                                    metrics.dead_letter_all.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                    tracing::error!(sink = %spec.url, cause = %f.message, file = %path.display(), "an event refused by the receiver; parked in the dead-letter file");
                                    break;
                                }
                                Err(e) => {
                                    tracing::error!(sink = %spec.url, cause = %e, "cannot write the dead-letter file; retrying");
                                    tokio::time::sleep(spec.max_backoff).await;
                                }
                            }
                        }
                    }
                }
            }
            Err(f) => {
                *conn = Conn::None;
                attempt += 1;
                metrics.failed.inc();
                let piece =
                    if f.written > 0 { piece[resume_at(&spec.target, &piece, f.written)..].to_vec() } else { piece };
                if attempt == 1 || attempt.is_power_of_two() {
                    tracing::warn!(sink = %spec.url, attempt, cause = %f.message, "delivery failed; retrying");
                }
                let exp = BACKOFF_START.saturating_mul(1 << attempt.min(16)).min(spec.max_backoff);
                // Full jitter in [exp/2, exp]: receivers coming back are not stampeded.
                let mut wait = exp.mul_f64(0.5 + fastrand::f64() / 2.0);
                // A receiver that says when to come back (429, 503) is believed, within reason.
                if let Some(after) = f.retry_after {
                    wait = wait.max(after.min(MAX_RETRY_AFTER));
                }
                tokio::time::sleep(wait).await;
                metrics.retries.inc();
                pieces.push_front(piece);
            }
        }
    }
    true
}

/// `Retry-After`: seconds, or an HTTP date.
fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate_to_system(v)?;
    Some(at.duration_since(std::time::SystemTime::now()).unwrap_or(Duration::ZERO))
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form HTTP servers send.
fn httpdate_to_system(v: &str) -> Option<std::time::SystemTime> {
    let parts: Vec<&str> = v.split_whitespace().collect();
    let [_, day, mon, year, time, "GMT"] = parts.as_slice() else { return None };
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let m = MONTHS.iter().position(|x| x == mon)? + 1;
    humantime::parse_rfc3339(&format!("{year}-{m:02}-{day:0>2}T{time}Z")).ok()
}

/// The format slot of `spec.format` in a batch.
fn slot_of(spec: &SinkSpec, r: &Rendered) -> Option<usize> {
    let want = spec.style();
    r.formats.iter().position(|f| *f == want)
}

/// Append the events of `r` this sink takes (severity filter), framed for its target.
/// `keep`: per event, false for a repeat a dedupe holds back.
fn encode(spec: &SinkSpec, r: &Rendered, slot: usize, host: &str, out: &mut Vec<u8>, keep: Option<&[bool]>) {
    for i in 0..r.events() {
        let ev = r.event(slot, i);
        if ev.is_empty() || keep.is_some_and(|k| !k[i]) {
            continue;
        }
        if spec.min_severity.is_some_and(|m| r.severity[i] < m) {
            // Below the filter: a terminal still shows the lines, only unannotated.
            if spec.format == Format::Pretty {
                out.extend_from_slice(&ev[..r.plain[i].min(ev.len())]);
            }
            continue;
        }
        match spec.target {
            Target::SyslogTcp(_) => {
                // RFC 5424: <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG, framed by
                // octet counting (RFC 6587): "LEN SP MSG".
                let msg = ev.strip_suffix(b"\n").unwrap_or(ev);
                let ts = humantime::format_rfc3339_micros(std::time::SystemTime::now());
                let head = format!(
                    "<{}>1 {ts} {host} annotail {} annotail - ",
                    spec.facility.code() * 8 + u32::from(r.severity[i].syslog()),
                    std::process::id()
                );
                out.extend_from_slice(format!("{} ", head.len() + msg.len()).as_bytes());
                out.extend_from_slice(head.as_bytes());
                out.extend_from_slice(msg);
            }
            _ => out.extend_from_slice(ev),
        }
    }
}

/// The syslog HOSTNAME: the events' host name when syslog can carry it (printable ASCII, no
/// space, at most 255 characters), else `-`.
fn hostname() -> String {
    let h = &crate::event::host().name;
    if !h.is_empty() && h.len() <= 255 && h.bytes().all(|c| c.is_ascii_graphic()) { h.clone() } else { "-".into() }
}

/// Deliver `payload`; `Ok` carries an OTLP receiver's partial success (records rejected, why).
async fn deliver(spec: &SinkSpec, conn: &mut Conn, payload: &[u8]) -> Result<Option<(i64, String)>, Failure> {
    let fail = |e: std::io::Error| Failure {
        refused: false,
        retry_after: None,
        written: 0,
        broken_pipe: e.kind() == std::io::ErrorKind::BrokenPipe,
        message: e.to_string(),
    };
    let timeout = spec.timeout;
    let io = async {
        if let Conn::Tcp(s) = conn
            && peer_closed(s)
        {
            // The receiver went away since the last write (a restart of Vector, Fluent Bit,
            // rsyslog): writing now would succeed into the kernel's buffer and fail only at the
            // next write, so this batch would be lost and counted as delivered (found by a
            // second reader). A new connection is made instead, and waited for as any other.
            *conn = Conn::None;
        }
        match (&spec.target, &mut *conn) {
            (Target::Stdout, Conn::None) => *conn = Conn::Stdout(tokio::io::stdout()),
            (Target::File(p), Conn::None) => {
                let f = std::fs::OpenOptions::new().create(true).append(true).open(p).map_err(fail)?;
                *conn = Conn::File(Arc::new(f));
            }
            (Target::Tcp(a) | Target::SyslogTcp(a), Conn::None) => {
                let s = tokio::net::TcpStream::connect(a.as_str()).await.map_err(fail)?;
                let _ = s.set_nodelay(true);
                *conn = Conn::Tcp(s);
            }
            (Target::Unix(p), Conn::None) => {
                *conn = Conn::Unix(tokio::net::UnixStream::connect(p).await.map_err(fail)?)
            }
            (Target::Http(_) | Target::Otlp(_), Conn::None) => {
                let other = Failure::other;
                // A redirect is not followed: it would POST the events, and the headers (tokens)
                // with them, to wherever the answer points. It is reported and retried.
                let mut b = reqwest::Client::builder().timeout(timeout).redirect(reqwest::redirect::Policy::none());
                if let Some(ca) = &spec.tls_ca_file {
                    let pem = tokio::fs::read(ca).await.map_err(|e| other(format!("{}: {e}", ca.display())))?;
                    let certs = reqwest::Certificate::from_pem_bundle(&pem)
                        .map_err(|e| other(format!("{}: {e}", ca.display())))?;
                    b = b.tls_certs_merge(certs);
                }
                *conn = Conn::Http(b.build().map_err(|e| other(e.to_string()))?);
            }
            _ => {}
        }
        let done = |r: Result<(), Failure>| r.map(|()| None);
        match conn {
            Conn::Stdout(o) => done(o.write_all(payload).await.and(o.flush().await).map_err(fail)),
            Conn::File(f) => {
                // A write cut short (a full disk) leaves part of an event: the file is cut back
                // to where this write began, so that a retry appends whole events and every line
                // stays valid JSON (it left a broken line, then the batch again).
                let (f, payload, url) = (f.clone(), payload.to_vec(), spec.url.clone());
                let r = tokio::task::spawn_blocking(move || {
                    use std::io::Write as _;
                    let before = f.metadata()?.len();
                    let r = (&*f).write_all(&payload);
                    if r.is_err()
                        && f.metadata().is_ok_and(|m| m.len() > before)
                        && let Err(t) = f.set_len(before)
                    {
                        tracing::error!(sink = %url, cause = %t, "cannot cut a partial write back; the file holds a broken line");
                    }
                    r
                })
                .await
                .unwrap_or_else(|e| Err(std::io::Error::other(e)));
                done(r.map_err(fail))
            }
            Conn::Tcp(s) => done(match write_counted(s, payload).await {
                Ok(()) => s.flush().await.map_err(fail),
                Err((e, written)) => Err(Failure { written, ..fail(e) }),
            }),
            Conn::Unix(s) => done(match write_counted(s, payload).await {
                Ok(()) => s.flush().await.map_err(fail),
                Err((e, written)) => Err(Failure { written, ..fail(e) }),
            }),
            Conn::Http(c) => {
                // OTLP/JSON is made from the protobuf renderings; the rest goes as rendered.
                let json;
                let (url, body, content_type) = match &spec.target {
                    // The renderings, concatenated, are the request as they are.
                    Target::Otlp(url) if spec.encoding == otlp::Encoding::Protobuf => {
                        (url, payload, spec.encoding.content_type())
                    }
                    Target::Otlp(url) => {
                        json = otlp::request(payload, spec.encoding).map_err(Failure::other)?;
                        (url, &json[..], spec.encoding.content_type())
                    }
                    Target::Http(url) => (url, payload, "application/x-ndjson"),
                    _ => unreachable!("an HTTP connection for an HTTP target"),
                };
                // Compressed on the sink's task, straight from the payload: a 1 MiB batch takes
                // a few milliseconds at the level used, less than the request's round trip.
                let body = spec
                    .compression
                    .compress(body, spec.compression_level)
                    .map_err(|e| Failure::other(format!("compressing: {e}")))?;
                let mut req = c.post(url).header("content-type", content_type).body(body);
                if let Some(enc) = spec.compression.content_encoding() {
                    req = req.header("content-encoding", enc);
                }
                for (k, v) in &spec.headers {
                    req = req.header(k, v);
                }
                let mut resp = req.send().await.map_err(|e| Failure::other(with_sources(&e)))?;
                let status = resp.status();
                if status.is_success() {
                    if !matches!(spec.target, Target::Otlp(_)) {
                        return Ok(None);
                    }
                    let ctype = resp
                        .headers()
                        .get(reqwest::header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("application/x-protobuf")
                        .to_owned();
                    // A receiver's answer is small (a partial success and its message); a larger
                    // one is not read past the bound, and what was read is what is decoded.
                    let mut body = Vec::new();
                    while body.len() < OTLP_ANSWER_MAX {
                        match resp.chunk().await {
                            Ok(Some(c)) => body.extend_from_slice(&c[..c.len().min(OTLP_ANSWER_MAX - body.len())]),
                            _ => break,
                        }
                    }
                    return Ok(otlp::partial_success(&body, &ctype));
                }
                let retry_after = resp
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(parse_retry_after);
                let location =
                    resp.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
                let mut body = Vec::new();
                while body.len() < ERROR_BODY_MAX {
                    match resp.chunk().await {
                        Ok(Some(c)) => body.extend_from_slice(&c[..c.len().min(ERROR_BODY_MAX - body.len())]),
                        _ => break,
                    }
                }
                let body = String::from_utf8_lossy(&body);
                let mut message = format!("HTTP {status}: {}", body.trim_end());
                if status.is_redirection() {
                    message = format!(
                        "HTTP {status}: a redirect (to {}), not followed: set the sink's url to where it points",
                        location.as_deref().unwrap_or("?")
                    );
                }
                Err(Failure {
                    broken_pipe: false,
                    written: 0,
                    refused: matches!(status.as_u16(), 400 | 413 | 422),
                    retry_after,
                    message,
                })
            }
            Conn::None => unreachable!("connected above"),
        }
    };
    match tokio::time::timeout(timeout, io).await {
        Ok(r) => r,
        Err(_) => Err(Failure::other(format!("no answer within {timeout:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_urls() {
        assert_eq!(Target::parse("-"), Ok(Target::Stdout));
        assert_eq!(Target::parse("file:/var/log/a.json"), Ok(Target::File("/var/log/a.json".into())));
        assert_eq!(Target::parse("tcp://127.0.0.1:9000"), Ok(Target::Tcp("127.0.0.1:9000".into())));
        assert_eq!(Target::parse("syslog+tcp://logs:514"), Ok(Target::SyslogTcp("logs:514".into())));
        assert_eq!(Target::parse("unix:/run/vector.sock"), Ok(Target::Unix("/run/vector.sock".into())));
        assert_eq!(Target::parse("https://h:8080/in"), Ok(Target::Http("https://h:8080/in".into())));
        assert_eq!(Target::parse("otlp+http://h:4318"), Ok(Target::Otlp("http://h:4318/v1/logs".into())));
        assert_eq!(Target::parse("otlp+https://h/"), Ok(Target::Otlp("https://h/v1/logs".into())));
        assert_eq!(
            Target::parse("otlp+http://loki:3100/otlp/v1/logs"),
            Ok(Target::Otlp("http://loki:3100/otlp/v1/logs".into()))
        );
        for bad in ["tcp://nohost", "tcp://h:notaport", "ftp://x", "file:", "http://", "otlp+tcp://h:1", "otlp+http://"]
        {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_stream_resumes_at_the_event_it_was_writing() {
        let ndjson = b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n";
        let tcp = Target::Tcp("h:1".into());
        let cases = [(0, 0), (3, 0), (8, 8), (9, 8), (16, 16), (20, 16), (24, 0)];
        for (written, at) in cases {
            assert_eq!(resume_at(&tcp, ndjson, written), at, "written {written}");
        }
        let frames = b"5 hello3 abc4 wxyz";
        let syslog = Target::SyslogTcp("h:1".into());
        for (written, at) in [(0, 0), (4, 0), (7, 7), (9, 7), (12, 12), (17, 12)] {
            assert_eq!(resume_at(&syslog, frames, written), at, "written {written}");
        }
    }

    #[test]
    fn syslog_frames_count_octets_and_filter_severity() {
        let mut r = Rendered::new(&[Style::full(Format::Json)]);
        for (text, sev) in [("{\"a\":1}\n", Severity::Error), ("{\"b\":2}\n", Severity::Info)] {
            r.bufs[0].extend_from_slice(text.as_bytes());
            r.ends[0].push(r.bufs[0].len());
            r.severity.push(sev);
            r.plain.push(0);
        }
        let mut spec = SinkSpec::new("syslog+tcp://h:514", Format::Json).unwrap();
        spec.min_severity = Some(Severity::Warning);
        let mut out = Vec::new();
        encode(&spec, &r, 0, "node1", &mut out, None);
        let text = String::from_utf8(out).unwrap();
        let (len, rest) = text.split_once(' ').unwrap();
        assert_eq!(len.parse::<usize>().unwrap(), rest.len(), "{text}");
        assert!(
            rest.starts_with("<131>1 ") && rest.contains(" node1 annotail ") && rest.ends_with("{\"a\":1}"),
            "{text}"
        );
    }
}
