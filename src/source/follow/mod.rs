//! Follow mode: the daemon that tails files across rotation and restarts without losing a line.
//!
//! Owns the life of followed files and the delivery loop. One reader thread (synchronous, no
//! tokio) expands the globs, reads each file from where it stopped, frames and annotates the bytes
//! with the core ([`Framer`], [`Annotator`]) and hands batches of rendered events, each with the
//! positions it completes (*marks*), to the sink task over a bounded channel: when the sink is
//! slow the reader blocks, and the files are the buffer. The sink task (tokio) writes a batch,
//! then applies its marks to the checkpoint store; a saver task writes the store every
//! `checkpoint_interval`. Signals are handled on the tokio side and reach the reader as [`Wake`]s.
//!
//! Files are known by fingerprint ([`fingerprint`]), not by path. Rotation:
//! - rename + create: the renamed file is still the same fingerprint (read to its end through
//!   the open descriptor, then dropped once quiet for `rotate_wait`); the new file is new;
//! - copytruncate: a file shorter than what was read, or whose head changed, is finished and read
//!   again from its start as a new file; a copy whose head is a followed file's is read from where
//!   that file had got to (so `*.log*` globs do not read rotated copies twice);
//! - delete + recreate, replacement by another file of the same name: a new inode, a new file.
//!
//! Contract (at-least-once): a mark says "every event before this offset is in this batch or an
//! earlier one", and the pending position of a file ([`Framer::pending`]) never passes an event
//! still open or a line still partial. So a checkpoint never passes an undelivered event; after
//! `kill -9` the events since the last saved checkpoint are delivered again, with the same
//! `event_id`. A reload swaps the matcher between events: each file's framer is rebuilt at its
//! pending position, so nothing is lost or repeated.

pub mod checkpoint;
pub mod fingerprint;
pub mod watch;

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::annotate::{Emit, SourceMeta};
use crate::stage::Stage;
use crate::config::{StartAt, WatchMode};
use crate::event::Format;
use crate::framing;
use crate::matcher::Matcher;
use crate::metrics::{Metrics, PathLabel, ResultLabel, SourceMetrics, Tally};
use crate::counts::Totals;
use crate::sink::{MultiWriter, Rendered, SinkSpec, Sinks};
use checkpoint::{Mark, Saved, StateError, Store};
use fingerprint::Head;
use watch::Wake;

/// What to follow and how; built by `main` from the command line and the config file.
#[derive(Debug, Clone)]
pub struct Settings {
    pub sources: Vec<SourceSpec>,
    pub watch: WatchMode,
    pub poll_interval: Duration,
    pub idle: Duration,
    pub line_timeout: Duration,
    pub rotate_wait: Duration,
    pub checkpoint_interval: Duration,
    pub shutdown_timeout: Duration,
    pub state_dir: PathBuf,
    /// What chose `state_dir` (an option, the config, the environment, a default), logged.
    pub state_dir_origin: &'static str,
    pub framing: framing::Limits,
    pub emit: Emit,
    pub every_event: bool,
    pub format: Format,
    pub color: bool,
    pub width: usize,
    /// Repeats and incidents, across every followed file.
    pub incidents: std::sync::Arc<crate::repeat::Incidents>,
    /// Where events go (standard output when empty).
    pub sinks: Vec<SinkSpec>,
    /// Standard output's shaping when it is the output.
    pub shape: Arc<crate::event::Shape>,
    /// The catalog paths and the config file: a change reloads them (as SIGHUP does).
    pub watch_config: Vec<PathBuf>,
    /// `--unknown`: the clusterer every followed file's events go through (kept across reloads).
    pub unknown: Option<crate::unknown::Shared>,
}

impl Settings {
    /// The sinks, standard output in `format` when none is configured.
    pub fn sinks(&self) -> Vec<SinkSpec> {
        if self.sinks.is_empty() {
            let mut s = SinkSpec::new("-", self.format).expect("stdout");
            s.shape = self.shape.clone();
            vec![s]
        } else {
            self.sinks.clone()
        }
    }
}

#[derive(Debug, Clone)]
pub struct SourceSpec {
    pub pattern: String,
    pub start_at: StartAt,
    /// Globs of files the pattern matches but that are not followed (a name glob without `/`,
    /// else a path glob).
    pub exclude: Vec<String>,
}

/// A new catalog and settings, or why they could not be loaded (SIGHUP).
pub type Reloader = Box<dyn FnMut() -> Result<(Arc<Matcher>, Settings), String> + Send>;

#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error("cannot start: {0}")]
    Start(std::io::Error),
    #[error("cannot write output: {0}")]
    Output(std::io::Error),
}

/// How the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Stopped by a signal; everything read was delivered and checkpointed.
    Stopped,
    /// The shutdown deadline passed with batches undelivered; they stay unacknowledged and are
    /// read again by the next run.
    Deadline,
    /// Standard output was closed.
    OutputClosed,
}

/// Bytes read from one file before the reader moves to the next: keeps one busy file from
/// starving the others (and bounds the latency it adds to them).
const ROUND_BYTES: usize = 1 << 20;
/// Read size.
const READ_BLOCK: usize = 256 << 10;
/// Rendered bytes after which a batch is sent without waiting for the round to end.
const BATCH_BYTES: usize = 256 << 10;
/// Batches in flight between reader and sink. With [`BATCH_BYTES`] this bounds what is buffered
/// (a batch can exceed it by one read's events: a 256 KiB read rendered with `--all`, ~1.2 MB).
const QUEUE: usize = 8;
/// How long the old content of a truncated file is remembered to recognise its copy: the copy
/// is made just before the truncation and found by the next expansion, well within this.
const TRUNCATED_MEMORY: Duration = Duration::from_secs(60);
/// A changed catalog is reloaded once it has been quiet this long: an editor's save or a
/// `cp -r` of a catalog directory is several events, and one reload should see all of them.
const RELOAD_DEBOUNCE: Duration = Duration::from_millis(300);
/// A checkpoint write that failed is tried again after this long at the soonest.
const WRITE_RETRY: Duration = Duration::from_secs(1);
/// With `watch = "notify"`, globs are still expanded this often, in case an event was lost.
const SAFETY_POLL: Duration = Duration::from_secs(10);
/// A source that matched files and then none for this long is warned about (at start, at once):
/// long enough that a rotation's moment without the file is not a warning.
const EMPTY_WARN_AFTER: Duration = Duration::from_secs(60);
/// While a source stays empty, the warning is repeated this often: visible in a day's log
/// without flooding it.
const EMPTY_WARN_REPEAT: Duration = Duration::from_secs(3600);

/// Rendered events and the positions they complete.
pub struct Batch {
    pub rendered: Rendered,
    pub marks: Vec<Mark>,
}

impl Batch {
    fn new(formats: &[crate::event::Style]) -> Batch {
        Batch { rendered: Rendered::new(formats), marks: Vec::new() }
    }
}

/// The runtime and the signal handlers, installed before anything slow (loading the catalog)
/// so that a SIGHUP or SIGTERM sent during start-up is handled, not fatal.
pub struct Runtime {
    rt: tokio::runtime::Runtime,
    signals: Option<Signals>,
}

/// What stops a followed run and asks it to reload: the process's signals
/// ([`Runtime::signals`]), or a caller's own — tests drive the daemon in-process this way.
pub struct Control {
    /// Resolves when the run should stop: nothing more is read, what was read is delivered
    /// (within `shutdown_timeout`) and checkpointed.
    pub shutdown: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    /// Each message asks for a reload of the catalog and config, and reopens output files.
    pub reload: tokio::sync::mpsc::UnboundedReceiver<()>,
}

struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
    hup: tokio::signal::unix::Signal,
}

impl Runtime {
    /// The runtime with SIGTERM, SIGINT and SIGHUP handlers installed (see [`Runtime::signals`]).
    pub fn start() -> Result<Runtime, FollowError> {
        use tokio::signal::unix::{SignalKind, signal};
        let mut rt = Runtime::without_signals()?;
        let signals = rt.rt.block_on(async {
            Ok::<_, std::io::Error>(Signals {
                term: signal(SignalKind::terminate())?,
                int: signal(SignalKind::interrupt())?,
                hup: signal(SignalKind::hangup())?,
            })
        });
        rt.signals = Some(signals.map_err(FollowError::Start)?);
        Ok(rt)
    }

    /// The runtime alone: the run is stopped and reloaded by its caller's [`Control`].
    pub fn without_signals() -> Result<Runtime, FollowError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("annotail-io")
            .enable_all()
            .build()
            .map_err(FollowError::Start)?;
        Ok(Runtime { rt, signals: None })
    }

    /// The process's signals as a [`Control`]: SIGTERM or SIGINT stops, SIGHUP reloads. `None`
    /// for a runtime made [without signals](Runtime::without_signals), or the second time.
    pub fn signals(&mut self) -> Option<Control> {
        let Signals { mut term, mut int, mut hup } = self.signals.take()?;
        let (tx, reload) = tokio::sync::mpsc::unbounded_channel();
        self.rt.spawn(async move {
            while hup.recv().await.is_some() {
                tracing::info!("SIGHUP: reloading catalog and config, reopening output files");
                if tx.send(()).is_err() {
                    break;
                }
            }
        });
        let shutdown = Box::pin(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        });
        Some(Control { shutdown, reload })
    }
}

/// Follow until `control` stops it. `matcher` and `settings` are the initial ones; `reload` is
/// called when `control` asks for a reload (SIGHUP) or the catalog or config changes.
pub fn run(
    runtime: Runtime,
    control: Control,
    matcher: Arc<Matcher>,
    settings: Settings,
    reload: Reloader,
    metrics: Arc<Metrics>,
) -> Result<Outcome, FollowError> {
    let rt = runtime.rt;
    let store = Store::open(&settings.state_dir)?;
    let loaded = store.entries.clone();
    let mut settings = settings;
    if store.lost {
        // The promise the log made when it set the file aside: read from the start, not from
        // the end (start_at = end would skip everything written since the last run).
        tracing::warn!("checkpoints were lost: files found at start are read from their start (start_at = end not applied)");
        for s in &mut settings.sources {
            s.start_at = StartAt::Beginning;
        }
    }
    tracing::info!(
        dir = %settings.state_dir.display(),
        chosen_by = settings.state_dir_origin,
        files = loaded.len(),
        "state directory opened"
    );
    if let Some(u) = &settings.unknown {
        let saved = checkpoint::read_clusters(&settings.state_dir);
        if !saved.is_empty() {
            let taken = u.clusters.lock().unwrap_or_else(|e| e.into_inner()).restore(&saved);
            tracing::info!(clusters = taken, "unknown clusters taken up from the state directory");
        }
    }
    let store = Arc::new(Mutex::new(store));
    metrics.checkpoint_current();
    metrics.set_refresh(Box::new({
        let store = store.clone();
        move |m: &Metrics| file_lag(&store, m)
    }));
    let (wake_tx, wake_rx) = std::sync::mpsc::channel::<Wake>();
    let (batch_tx, batch_rx) = tokio::sync::mpsc::channel::<Batch>(QUEUE);
    let reader = {
        let (settings, wake_tx) = (settings.clone(), wake_tx.clone());
        std::thread::Builder::new()
            .name("annotail-reader".into())
            .spawn({
                let metrics = metrics.clone();
                move || Reader::new(settings, loaded, wake_rx, wake_tx, batch_tx, metrics).run(matcher, reload)
            })
            .map_err(FollowError::Start)?
    };
    let lock_lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let outcome = rt.block_on(supervise(
        control,
        settings.clone(),
        store.clone(),
        batch_rx,
        wake_tx,
        metrics.clone(),
        lock_lost.clone(),
    ))?;
    let mut s = store.lock().expect("store lock");
    match s.save().and_then(|()| save_clusters(settings.unknown.as_ref(), &settings.state_dir)) {
        Ok(()) => metrics.checkpoint_current(),
        Err(e) if checkpoint::is_lock_lost(&e) => lock_lost.store(true, std::sync::atomic::Ordering::SeqCst),
        Err(e) => {
            tracing::error!(cause = %e, "final checkpoint not written; the next run repeats what this one delivered since the last")
        }
    }
    drop(s);
    if lock_lost.load(std::sync::atomic::Ordering::SeqCst) {
        let _ = reader.join();
        rt.shutdown_timeout(Duration::from_millis(100));
        return Err(FollowError::State(StateError::LockLost { dir: settings.state_dir.clone() }));
    }
    if outcome != Outcome::Deadline {
        let _ = reader.join();
    }
    // A reader blocked on a stuck output is left behind: the process exits.
    rt.shutdown_timeout(Duration::from_millis(100));
    Ok(outcome)
}

/// The tokio side: signals, the fan-out to the sinks, checkpoint marks applied as batches are
/// acknowledged, the checkpoint saver, the shutdown deadline.
async fn supervise(
    mut control: Control,
    settings: Settings,
    store: Arc<Mutex<Store>>,
    mut batch_rx: tokio::sync::mpsc::Receiver<Batch>,
    wake: Sender<Wake>,
    metrics: Arc<Metrics>,
    lock_lost: Arc<std::sync::atomic::AtomicBool>,
) -> Result<Outcome, FollowError> {
    let (reopen_tx, reopen_rx) = tokio::sync::watch::channel(0u64);
    let mut sinks = Sinks::start(settings.sinks(), reopen_rx, &metrics);
    let saved = Arc::new(tokio::sync::Notify::new());
    let saver = tokio::spawn(save_every(
        store.clone(),
        settings.unknown.clone(),
        settings.checkpoint_interval,
        metrics.clone(),
        saved.clone(),
        lock_lost,
        wake.clone(),
    ));
    // Per batch in flight: its sequence number, checkpoint marks and event count.
    type InFlight = std::collections::VecDeque<(u64, Vec<Mark>, usize)>;
    let mut marks: InFlight = InFlight::new();
    let apply = |done: Vec<u64>, marks: &mut InFlight| {
        for seq in done {
            while let Some((s, _, _)) = marks.front() {
                if *s > seq {
                    break;
                }
                let (_, m, events) = marks.pop_front().expect("front");
                store.lock().expect("store lock").apply(&m);
                metrics.events_written.inc_by(events as u64);
                saved.notify_one();
            }
        }
    };
    let mut outcome = Outcome::Stopped;
    // Phase 1: running, until a signal, the reader's end, or a closed standard output.
    let mut reader_done = false;
    'run: loop {
        tokio::select! {
            _ = &mut control.shutdown => break 'run,
            Some(()) = control.reload.recv() => {
                let _ = wake.send(Wake::Reload);
                reopen_tx.send_modify(|n| *n += 1);
            }
            done = sinks.acked(true), if sinks.pending() > 0 => {
                if sinks.output_closed() {
                    outcome = Outcome::OutputClosed;
                    break 'run;
                }
                apply(done, &mut marks);
            }
            b = batch_rx.recv() => {
                let Some(b) = b else { reader_done = true; break 'run };
                // Waiting for room in a sink's queue is backpressure; a signal still gets through.
                let events = b.rendered.events();
                let send = sinks.send(b.rendered);
                tokio::pin!(send);
                let seq = tokio::select! {
                    seq = &mut send => seq,
                    _ = &mut control.shutdown => break 'run,
                };
                marks.push_back((seq, b.marks, events));
            }
        }
    }
    // Phase 2: stop reading, deliver what was read, within the deadline.
    metrics.set_stopping();
    let _ = wake.send(Wake::Stop);
    let deadline = tokio::time::Instant::now() + settings.shutdown_timeout;
    if outcome != Outcome::OutputClosed {
        tracing::info!(deadline = ?settings.shutdown_timeout, "stopping: draining what was read");
        let drained = tokio::time::timeout_at(deadline, async {
            while !reader_done {
                match batch_rx.recv().await {
                    Some(b) => {
                        let events = b.rendered.events();
                        let seq = sinks.send(b.rendered).await;
                        marks.push_back((seq, b.marks, events));
                    }
                    None => reader_done = true,
                }
            }
            sinks.close();
            while sinks.pending() > 0 && !sinks.output_closed() {
                let done = sinks.acked(true).await;
                apply(done, &mut marks);
            }
        })
        .await;
        if drained.is_err() {
            tracing::warn!(
                undelivered = sinks.pending(),
                "shutdown deadline passed; undelivered events stay unacknowledged for the next run"
            );
            outcome = Outcome::Deadline;
        }
    }
    apply(sinks.poll_acks(), &mut marks);
    sinks.abort();
    saver.abort();
    if sinks.output_closed() {
        outcome = Outcome::OutputClosed;
    }
    Ok(outcome)
}

/// Write the checkpoints `every` after an acknowledgement changed them, with whatever else was
/// acknowledged by then (coalescing: a kill -9 repeats at most about `every` of events), and not
/// at all while nothing is acknowledged (at rest the saver sleeps). The write (with its fsyncs) runs on the blocking
/// pool so that delivery never waits for a disk. A lost lock stops the daemon.
async fn save_every(
    store: Arc<Mutex<Store>>,
    unknown: Option<crate::unknown::Shared>,
    every: Duration,
    metrics: Arc<Metrics>,
    acked: Arc<tokio::sync::Notify>,
    lock_lost: Arc<std::sync::atomic::AtomicBool>,
    wake: Sender<Wake>,
) {
    loop {
        let dirty = store.lock().expect("store lock").dirty();
        if !dirty {
            metrics.checkpoint_current();
            acked.notified().await;
        }
        // What is acknowledged in the meantime goes into the same write.
        tokio::time::sleep(every).await;
        let Some(snap) = store.lock().expect("store lock").snapshot() else { continue };
        let (unknown, dir) = (unknown.clone(), store.lock().expect("store lock").dir().to_owned());
        match tokio::task::spawn_blocking(move || snap.write().and_then(|()| save_clusters(unknown.as_ref(), &dir))).await {
            Ok(Ok(())) => metrics.checkpoint_current(),
            Ok(Err(e)) if checkpoint::is_lock_lost(&e) => {
                tracing::error!(dir = %store.lock().expect("store lock").dir().display(), "the state directory's lock file is gone or replaced (the directory was deleted?): stopping, so that two daemons never share one directory");
                lock_lost.store(true, std::sync::atomic::Ordering::SeqCst);
                let _ = wake.send(Wake::Stop);
                return;
            }
            Ok(Err(e)) => {
                tracing::error!(cause = %e, "checkpoint not written; retrying");
                store.lock().expect("store lock").mark_dirty();
                // A full or failing disk is retried, not hammered (nor the log flooded).
                tokio::time::sleep(WRITE_RETRY.saturating_sub(every)).await;
            }
            Err(_) => return,
        }
    }
}

/// With `--unknown`, write the clusters beside the checkpoints (see [`checkpoint`]).
fn save_clusters(unknown: Option<&crate::unknown::Shared>, dir: &std::path::Path) -> std::io::Result<()> {
    let Some(u) = unknown else { return Ok(()) };
    let saved = u.clusters.lock().unwrap_or_else(|e| e.into_inner()).export();
    checkpoint::write_clusters(dir, saved)
}

/// A followed file.
struct Tracked {
    key: u64,
    dev: u64,
    ino: u64,
    head: Head,
    file: File,
    path: PathBuf,
    /// Next byte to read.
    read_pos: u64,
    /// Where the current framer starts (offset, lines before it).
    start: (u64, u64),
    last_data: Instant,
    at_eof: bool,
    /// Not at any followed path since then (renamed away or deleted).
    orphan_since: Option<Instant>,
    meta: SourceMeta,
    /// Last position marked.
    marked: (u64, u64),
    /// The read counters of the source (glob) it was found by.
    source: SourceMetrics,
    /// Files found together are read oldest first: modification time when found, path.
    age: (SystemTime, PathBuf),
    /// Found at start with data to read: read after the older ones of the start's backlog.
    backlog: bool,
    /// Size, modification and change times when last read to its end: unchanged, nothing is
    /// read, not even the head (a quiet file costs one `fstat` a poll).
    checked: Option<(u64, i64, i64, i64, i64)>,
    /// Bytes and lines counted in the metrics, as absolute positions: after a reload the open
    /// event's lines are framed again and must not be counted twice.
    counted: (u64, u64),
}

/// A file seen but not yet fingerprinted (its first line is incomplete).
struct Waiting {
    file: File,
    path: PathBuf,
    dev: u64,
    ino: u64,
    start_at: StartAt,
    first_seen: Instant,
    /// Seen by the first expansion (a file the daemon found, not one created since).
    initial: bool,
    /// No longer at a followed path since then.
    gone_since: Option<Instant>,
    /// Modification time when found (files found together are read oldest first).
    mtime: SystemTime,
}

/// A file's core stage for the current matcher.
struct Live<'m> {
    stage: Stage<'m, MultiWriter>,
    /// Counts already added to the metrics.
    reported: Totals,
}

impl Live<'_> {
    /// Add what was read and seen since the last report to the metrics.
    fn report(&mut self, metrics: &Metrics, t: &mut Tracked) {
        let now = self.stage.totals();
        let mut d = now - self.reported;
        // Only bytes and lines past what was ever counted for this file.
        let (bytes, lines) = (t.start.0 + now.bytes, t.start.1 + now.lines);
        d.bytes = bytes.saturating_sub(t.counted.0.max(bytes - d.bytes));
        d.lines = lines.saturating_sub(t.counted.1.max(lines - d.lines));
        t.counted = (t.counted.0.max(bytes), t.counted.1.max(lines));
        metrics.add_read(&t.source, &d);
        self.reported = now;
    }
}

enum Exit {
    Stop,
    Reload(Arc<Matcher>, Box<Settings>),
}

struct Reader {
    settings: Settings,
    /// Checkpoints read at start, not yet matched to a file.
    loaded: HashMap<u64, Saved>,
    /// Checkpoints of files whose inode now holds other content (truncated or replaced while
    /// the daemon was down): dropped from the store, kept to recognise copies of them.
    stale: Vec<(u64, Saved)>,
    files: HashMap<u64, Tracked>,
    by_inode: HashMap<(u64, u64), u64>,
    waiting: HashMap<(u64, u64), Waiting>,
    /// Paths a glob names that cannot be opened or read, and why (each reported once per cause;
    /// retried every expansion; counted in `annotail_files_unreadable`).
    reported: HashMap<PathBuf, String>,
    /// Compressed files a glob names (by their first bytes): not followed, reported once.
    ignored: HashSet<(u64, u64)>,
    /// Waiting files that look like a copy still being made of a followed file (its first line,
    /// shorter than what was read of it): their size and when it last grew.
    copying: HashMap<(u64, u64), (u64, Instant)>,
    /// Per source pattern: since when it matches nothing, and when that was last warned about.
    empty: HashMap<String, (Instant, Option<Instant>)>,
    wake_rx: Receiver<Wake>,
    watcher: watch::Watcher,
    tx: tokio::sync::mpsc::Sender<Batch>,
    batch: Batch,
    /// The formats the sinks need.
    formats: Vec<crate::event::Style>,
    buf: Vec<u8>,
    first_expansion: bool,
    stop: bool,
    names: bool,
    reload: bool,
    /// Renames reported since the last expansion.
    renamed: Vec<(PathBuf, PathBuf)>,
    /// Old contents of files found truncated: head, where their undelivered bytes began, when.
    /// And the fingerprint their event ids were made from.
    truncated: Vec<(Head, (u64, u64), Instant, u64)>,
    /// The catalog or config changed: reload once they have been quiet until then.
    reload_due: Option<Instant>,
    /// Kept alive: the watcher of the catalog and config.
    _config_watcher: Option<notify::RecommendedWatcher>,
    metrics: Arc<Metrics>,
    /// Matches per record of the current generation.
    tally: Arc<Tally>,
}

impl Reader {
    fn new(
        settings: Settings,
        loaded: HashMap<u64, Saved>,
        wake_rx: Receiver<Wake>,
        wake_tx: Sender<Wake>,
        tx: tokio::sync::mpsc::Sender<Batch>,
        metrics: Arc<Metrics>,
    ) -> Reader {
        let watcher = watch::Watcher::new(settings.watch != WatchMode::Poll, wake_tx.clone());
        if settings.watch == WatchMode::Notify && !watcher.active() {
            tracing::warn!("watch = notify but notification is unavailable: polling every {:?}", SAFETY_POLL);
        }
        let formats = Sinks::formats(&settings.sinks());
        let config_watcher = watch::watch_config(&settings.watch_config, wake_tx.clone());
        Reader {
            settings,
            loaded,
            stale: Vec::new(),
            files: HashMap::new(),
            by_inode: HashMap::new(),
            waiting: HashMap::new(),
            reported: HashMap::new(),
            ignored: HashSet::new(),
            copying: HashMap::new(),
            empty: HashMap::new(),
            wake_rx,
            watcher,
            tx,
            batch: Batch::new(&formats),
            formats,
            buf: vec![0; READ_BLOCK],
            first_expansion: true,
            stop: false,
            names: true,
            reload: false,
            renamed: Vec::new(),
            truncated: Vec::new(),
            reload_due: None,
            _config_watcher: config_watcher,
            tally: Arc::new(Tally::new(0)),
            metrics,
        }
    }

    fn run(mut self, mut matcher: Arc<Matcher>, mut reload: Reloader) {
        loop {
            self.tally = self.metrics.generation(&matcher);
            match self.generation(&matcher, &mut reload) {
                Exit::Stop => return,
                Exit::Reload(m, settings) => {
                    self.metrics.reloads.get_or_create(&ResultLabel { result: "ok" }).inc();
                    matcher = m;
                    let old = self.settings.unknown.take();
                    self.settings = *settings;
                    // The clusters outlive a reload: their counts go on.
                    if let (Some(old), Some(new)) = (old, self.settings.unknown.as_mut()) {
                        new.clusters = old.clusters;
                    }
                    // New globs are expanded at once.
                    self.expand();
                }
            }
        }
    }

    /// Follow with one matcher until stopped or reloaded.
    fn generation<'m>(&mut self, matcher: &'m Matcher, reload: &mut Reloader) -> Exit {
        let mut live: HashMap<u64, Live<'m>> = HashMap::new();
        let mut next_poll = Instant::now();
        loop {
            let now = Instant::now();
            if self.names || now >= next_poll {
                if now >= next_poll {
                    let every = match (self.settings.watch, self.watcher.active()) {
                        (WatchMode::Notify, true) => SAFETY_POLL,
                        _ => self.settings.poll_interval,
                    };
                    next_poll = now + every;
                }
                self.expand();
                self.promote(&mut live);
                self.names = false;
            } else if !self.waiting.is_empty() {
                self.promote(&mut live);
            }
            self.read_all(matcher, &mut live);
            self.timers(&mut live);
            if !self.send() {
                return Exit::Stop;
            }
            // Wait for a change, a timer, or a signal.
            let mut deadline = self.deadline(&live).min(next_poll);
            if let Some(t) = self.reload_due {
                deadline = deadline.min(t);
            }
            let timeout = deadline.saturating_duration_since(Instant::now());
            let first = match self.wake_rx.recv_timeout(timeout) {
                Ok(w) => Some(w),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => Some(Wake::Stop),
            };
            if let Some(w) = first {
                self.absorb(w);
            }
            while let Ok(w) = self.wake_rx.try_recv() {
                self.absorb(w);
            }
            if self.reload_due.is_some_and(|t| Instant::now() >= t) {
                self.reload_due = None;
                tracing::info!("the catalog or config changed on disk: reloading");
                self.reload = true;
            }
            if self.stop {
                self.finish_orphans(matcher, &mut live);
                self.send();
                return Exit::Stop;
            }
            if std::mem::take(&mut self.reload) {
                match reload() {
                    Ok((m, settings)) => {
                        // Every file starts again where its undelivered bytes begin, with the new
                        // matcher: nothing is lost, nothing repeated.
                        for (key, mut l) in live.drain() {
                            let t = self.files.get_mut(&key).expect("live files are tracked");
                            l.report(&self.metrics, t);
                            let pending = l.stage.framer().pending();
                            t.read_pos = pending.0;
                            t.start = pending;
                        }
                        tracing::info!(records = m.entries.len(), "reloaded");
                        return Exit::Reload(m, Box::new(settings));
                    }
                    Err(e) => {
                        self.metrics.reloads.get_or_create(&ResultLabel { result: "failed" }).inc();
                        tracing::error!(cause = %e, "reload failed; the running catalog and config are kept")
                    }
                }
            }
        }
    }

    /// Expand the globs: new files wait for a fingerprint, followed files update their path,
    /// files no longer at a followed path become orphans.
    fn expand(&mut self) {
        let sources: Vec<(String, Vec<glob::Pattern>)> = self
            .settings
            .sources
            .iter()
            .map(|s| (s.pattern.clone(), watch::exclude_patterns(&s.exclude)))
            .collect();
        for (p, _) in &sources {
            let (root, mode) = watch::watch_root(p);
            self.watcher.watch_dir(&root, mode);
        }
        let (mut found, mut skipped) = (Vec::new(), Vec::new());
        let counts = watch::expand(&sources, &mut found, &mut skipped);
        self.warn_empty(&sources, &counts);
        // What a glob names now: unreadable paths no longer named are no longer counted.
        if !self.reported.is_empty() {
            let named: HashSet<&Path> =
                found.iter().map(|f| f.path.as_path()).chain(skipped.iter().map(|s| s.path.as_path())).collect();
            self.reported.retain(|p, _| named.contains(p.as_path()));
        }
        // Directories that could not be listed: what was followed in them is still there, as
        // far as anyone can tell (EMFILE or a moment's EACCES must not look like rotation).
        let unlisted: Vec<PathBuf> = skipped.iter().filter(|s| s.listing).map(|s| s.path.clone()).collect();
        for s in skipped {
            self.report(&s.path, &s.why);
        }
        let now = Instant::now();
        let mut present = HashSet::new();
        for t in self.files.values() {
            if unlisted.iter().any(|d| t.path.starts_with(d)) {
                present.insert((t.dev, t.ino));
            }
        }
        for w in self.waiting.values() {
            if unlisted.iter().any(|d| w.path.starts_with(d)) {
                present.insert((w.dev, w.ino));
            }
        }
        for f in found {
            present.insert((f.dev, f.ino));
            if self.ignored.contains(&(f.dev, f.ino)) {
                continue;
            }
            if let Some(key) = self.by_inode.get(&(f.dev, f.ino)) {
                let t = self.files.get_mut(key).expect("indexed");
                if t.path != f.path {
                    tracing::info!(from = %t.path.display(), to = %f.path.display(), "file renamed");
                    t.path = f.path;
                }
                t.orphan_since = None;
                continue;
            }
            if let Some(w) = self.waiting.get_mut(&(f.dev, f.ino)) {
                w.path = f.path;
                continue;
            }
            match File::open(&f.path) {
                Ok(file) => {
                    if let Some(dir) = std::fs::canonicalize(&f.path).ok().and_then(|c| c.parent().map(Path::to_owned))
                    {
                        self.watcher.watch_dir(&dir, notify::RecursiveMode::NonRecursive);
                    }
                    let start_at = self.settings.sources[f.source].start_at;
                    self.waiting.insert(
                        (f.dev, f.ino),
                        Waiting {
                            file,
                            path: f.path,
                            dev: f.dev,
                            ino: f.ino,
                            start_at,
                            first_seen: now,
                            initial: self.first_expansion,
                            gone_since: None,
                            mtime: f.mtime,
                        },
                    );
                }
                Err(e) => self.report(&f.path, &format!("cannot open: {e}")),
            }
        }
        for t in self.files.values_mut() {
            if !present.contains(&(t.dev, t.ino)) && t.orphan_since.is_none() {
                tracing::info!(path = %t.path.display(), "file no longer at a followed path; reading it to its end");
                t.orphan_since = Some(now);
            }
        }
        // A file that left its path before it was fingerprinted may still be written through a
        // descriptor someone kept (a logger that has not reopened yet): it waits `rotate_wait`.
        let rotate_wait = self.settings.rotate_wait;
        self.waiting.retain(|id, w| {
            if present.contains(id) {
                w.gone_since = None;
                return true;
            }
            let since = *w.gone_since.get_or_insert(now);
            let keep = now.duration_since(since) < rotate_wait || w.file.metadata().is_ok_and(|m| m.len() > 0);
            if !keep {
                tracing::debug!(path = %w.path.display(), "empty file vanished");
            }
            keep
        });
        // A file renamed from a followed path to one outside the globs, before an expansion saw
        // it: follow it from its start (it is read to its end, then dropped as an orphan).
        for (from, to) in std::mem::take(&mut self.renamed) {
            let followed = self
                .settings
                .sources
                .iter()
                .any(|s| glob::Pattern::new(&s.pattern).is_ok_and(|p| p.matches_path(&from)));
            let Ok(m) = std::fs::metadata(&to) else { continue };
            let id = (m.dev(), m.ino());
            if !followed
                || !m.is_file()
                || present.contains(&id)
                || self.by_inode.contains_key(&id)
                || self.waiting.contains_key(&id)
            {
                continue;
            }
            if let Ok(file) = File::open(&to) {
                tracing::info!(from = %from.display(), to = %to.display(), "a file renamed away before it was seen; reading it");
                self.waiting.insert(
                    id,
                    Waiting {
                        file,
                        path: to,
                        dev: id.0,
                        ino: id.1,
                        start_at: StartAt::Beginning,
                        first_seen: now,
                        initial: false,
                        gone_since: None,
                        mtime: m.modified().unwrap_or(std::time::UNIX_EPOCH),
                    },
                );
            }
        }
        self.ignored.retain(|id| present.contains(id));
        let waiting = &self.waiting;
        self.copying.retain(|id, _| waiting.contains_key(id));
        if self.first_expansion {
            self.first_expansion = false;
            self.resume_renamed(&present);
            tracing::info!(files = present.len(), "initial scan done; following");
            self.metrics.set_ready(true);
        }
        self.metrics.files.set(self.files.len() as i64);
        self.metrics.files_unreadable.set(self.reported.len() as i64);
    }

    /// Warn about sources that match no file: at start, after [`EMPTY_WARN_AFTER`] for one that
    /// had files, and every [`EMPTY_WARN_REPEAT`] while it stays empty; count them in
    /// `annotail_sources_empty`. A glob with a typo otherwise waits forever without a word.
    fn warn_empty(&mut self, sources: &[(String, Vec<glob::Pattern>)], counts: &[usize]) {
        let now = Instant::now();
        self.empty.retain(|p, _| sources.iter().any(|(q, _)| q == p));
        let mut empty = 0;
        for ((pattern, _), &n) in sources.iter().zip(counts) {
            if n > 0 {
                if self.empty.remove(pattern).is_some_and(|(_, warned)| warned.is_some()) {
                    tracing::info!(source = %pattern, files = n, "source matches files again");
                }
                continue;
            }
            empty += 1;
            let first = self.first_expansion;
            let (since, warned) = self.empty.entry(pattern.clone()).or_insert((now, None));
            let due = match warned {
                None => first || now.duration_since(*since) >= EMPTY_WARN_AFTER,
                Some(at) => now.duration_since(*at) >= EMPTY_WARN_REPEAT,
            };
            if due {
                let for_s = now.duration_since(*since).as_secs();
                tracing::warn!(
                    source = %pattern,
                    empty_for_s = for_s,
                    "source matches no file: nothing is followed from it (a typo, a missing directory, or no permission to list it?)"
                );
                *warned = Some(now);
            }
        }
        self.metrics.sources_empty.set(empty);
    }

    /// Checkpointed files not found at a followed path: renamed while the daemon was down
    /// (rotation). Look for them next to their old path and read them to their end.
    fn resume_renamed(&mut self, present: &HashSet<(u64, u64)>) {
        let mut gone = Vec::new();
        for (key, s) in &self.loaded {
            if present.contains(&(s.dev, s.ino)) {
                continue;
            }
            let dir = Path::new(&s.path).parent().unwrap_or(Path::new("/"));
            // A directory that cannot be listed (permissions, a mount not there yet) says
            // nothing about the file: its checkpoint is kept, not forgotten, so that a run that
            // could not read the logs does not make the next one read them again from the start.
            let entries = match std::fs::read_dir(dir) {
                Ok(e) => e,
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    tracing::warn!(path = %s.path, cause = %e, "cannot look for a checkpointed file; its checkpoint is kept");
                    continue;
                }
                Err(_) => {
                    gone.push(*key);
                    continue;
                }
            };
            let found = entries.flatten().find_map(|e| {
                let m = std::fs::metadata(e.path()).ok()?;
                (m.is_file() && m.dev() == s.dev && m.ino() == s.ino).then(|| e.path())
            });
            match found.and_then(|p| File::open(&p).ok().map(|f| (p, f))) {
                Some((path, file)) => {
                    let head = Head { len: s.head_len, hash: s.head_hash, complete: true };
                    if head.matches(&file).unwrap_or(false) {
                        tracing::info!(from = %s.path, to = %path.display(), "checkpointed file was renamed; reading it to its end");
                        let mtime = file.metadata().and_then(|m| m.modified()).unwrap_or(std::time::UNIX_EPOCH);
                        self.waiting.insert(
                            (s.dev, s.ino),
                            Waiting {
                                file,
                                path,
                                dev: s.dev,
                                ino: s.ino,
                                start_at: StartAt::Beginning,
                                first_seen: Instant::now(),
                                initial: true,
                                gone_since: None,
                                mtime,
                            },
                        );
                        continue;
                    }
                    gone.push(*key);
                }
                None => gone.push(*key),
            }
        }
        for key in gone {
            let s = self.loaded.remove(&key).expect("listed");
            tracing::info!(path = %s.path, "checkpointed file is gone; forgetting it");
            self.batch.marks.push(Mark::Drop { key });
        }
    }

    fn report(&mut self, path: &Path, why: &str) {
        if self.reported.get(path).is_none_or(|w| w != why) {
            tracing::error!(path = %path.display(), cause = why, "cannot follow this file (retried every poll); other files continue");
            self.reported.insert(path.to_owned(), why.to_owned());
            self.metrics.files_unreadable.set(self.reported.len() as i64);
        }
    }

    /// Fingerprint waiting files whose first line is complete (or has waited `line_timeout`),
    /// decide where each starts, and follow it.
    fn promote(&mut self, live: &mut HashMap<u64, Live<'_>>) {
        let now = Instant::now();
        let mut ids: Vec<(u64, u64)> = self.waiting.keys().copied().collect();
        // Tracked in age order, so that checkpoints and logs list them as they are read.
        ids.sort_by(|a, b| {
            let (a, b) = (&self.waiting[a], &self.waiting[b]);
            a.mtime.cmp(&b.mtime).then_with(|| a.path.cmp(&b.path))
        });
        for id in ids {
            let w = &self.waiting[&id];
            let mut magic = [0u8; 8];
            let n = fingerprint::read_full_at(&w.file, &mut magic, 0).unwrap_or(0);
            if watch::compressed_magic(&magic[..n]) {
                tracing::info!(path = %w.path.display(), "compressed file: not followed (its text was read before it was compressed)");
                self.waiting.remove(&id);
                self.ignored.insert(id);
                continue;
            }
            // Bytes to read in a file of size 0: a /proc or /sys file, whose size says nothing
            // of its content. Followed, it looked truncated at every look and was read again
            // from its start each time (a loop, and the same lines over and over).
            if n > 0 && w.file.metadata().is_ok_and(|m| m.len() == 0) {
                let path = w.path.clone();
                self.waiting.remove(&id);
                self.ignored.insert(id);
                self.report(&path, "its size is 0 but it has content (a /proc or /sys file?): not followed");
                continue;
            }
            let head = match Head::read(&w.file) {
                Ok(h) => h,
                Err(e) => {
                    let (path, why) = (w.path.clone(), format!("cannot read: {e}"));
                    self.waiting.remove(&id);
                    self.report(&path, &why);
                    continue;
                }
            };
            // A file gone from its path will not get a longer first line from a new writer.
            let waited = now.duration_since(w.first_seen) >= self.settings.line_timeout || w.gone_since.is_some();
            let ripe = head.complete || (head.len > 0 && waited);
            if !ripe {
                continue;
            }
            if self.copy_in_progress(id, &head, live, now) {
                continue;
            }
            self.copying.remove(&id);
            let w = self.waiting.remove(&id).expect("listed");
            self.track(w, head, live);
        }
    }

    /// Whether waiting file `id` looks like a copy of a followed file still being made
    /// (logrotate's copytruncate copies while the writer goes on): it has that file's first
    /// line but is shorter than what was read of it, and it grew within `rotate_wait`. Taken
    /// for a new file then, it was read from its start: every line twice, with new event ids.
    /// Once it is as long, [`Self::copy_of`] starts it where the original had got to; a file
    /// that stops growing shorter is a new file after all.
    fn copy_in_progress(&mut self, id: (u64, u64), head: &Head, live: &HashMap<u64, Live<'_>>, now: Instant) -> bool {
        let w = &self.waiting[&id];
        let Ok(size) = w.file.metadata().map(|m| m.len()) else { return false };
        let shorter_copy = self.files.values().any(|t| {
            (t.dev, t.ino) != id
                && same_head(&t.head, head)
                && size < live.get(&t.key).map_or(t.start, |l| l.stage.framer().pending()).0
        }) || self.truncated.iter().any(|(h, pos, _, _)| same_head(h, head) && size < pos.0);
        if !shorter_copy {
            return false;
        }
        let (last, grew_at) = self.copying.entry(id).or_insert((size, now));
        if size != *last {
            *last = size;
            *grew_at = now;
        }
        let waiting = now.duration_since(*grew_at) < self.settings.rotate_wait;
        if waiting {
            tracing::debug!(path = %w.path.display(), size, "a copy of a followed file still being made: waiting for it");
        }
        waiting
    }

    fn track(&mut self, w: Waiting, head: Head, live: &mut HashMap<u64, Live<'_>>) {
        let size = w.file.metadata().map_or(0, |m| m.len());
        let mut key = fingerprint::key(w.dev, w.ino, &head);
        let mut head_used = head;
        // 1. A checkpoint of this same file (device, inode and head).
        let resumed = self
            .loaded
            .iter()
            .find(|(_, s)| {
                s.dev == w.dev
                    && s.ino == w.ino
                    && Head { len: s.head_len, hash: s.head_hash, complete: true }.matches(&w.file).unwrap_or(false)
            })
            .map(|(k, s)| (*k, s.clone()));
        let mut lineage = None;
        let (offset, line, why) = if let Some((k, s)) = resumed {
            self.loaded.remove(&k);
            key = k;
            lineage = s.lineage;
            head_used = Head { len: s.head_len, hash: s.head_hash, complete: true };
            if size < s.offset {
                (0, 0, "checkpoint past the end (truncated while stopped): from the start")
            } else {
                (s.offset, s.line, "from its checkpoint")
            }
        } else if let Some(((offset, line), original)) = self.copy_of(&w, &head, live) {
            lineage = Some(original);
            (offset, line, "a copy of a followed file: from where that file got to")
        } else if w.initial && w.start_at == StartAt::End {
            let (o, l) = end_position(&w.file, size);
            (o, l, "from its end (start_at = end)")
        } else {
            (0, 0, "from the start")
        };
        let old: Vec<u64> =
            self.loaded.iter().filter(|(_, s)| (s.dev, s.ino) == (w.dev, w.ino)).map(|(k, _)| *k).collect();
        for k in old {
            self.stale.push((k, self.loaded.remove(&k).expect("listed")));
            self.batch.marks.push(Mark::Drop { key: k });
        }
        tracing::info!(path = %w.path.display(), offset, fingerprint = %format!("{key:016x}"), "following {why}");
        let mut meta = SourceMeta::file(&w.path.display().to_string());
        // Event ids: a copy's are its original's (see [`Self::copy_of`]).
        meta.fingerprint = Some(lineage.unwrap_or(key));
        let source = self.metrics.source(&self.source_of(&w.path));
        let now = Instant::now();
        if self.reported.remove(&w.path).is_some() {
            tracing::info!(path = %w.path.display(), "file can be read now");
            self.metrics.files_unreadable.set(self.reported.len() as i64);
        }
        let backlog = w.initial && offset < size;
        let age = (w.mtime, w.path.clone());
        let t = Tracked {
            key,
            dev: w.dev,
            ino: w.ino,
            head: head_used,
            file: w.file,
            path: w.path,
            read_pos: offset,
            start: (offset, line),
            last_data: now,
            at_eof: false,
            orphan_since: None,
            meta,
            marked: (u64::MAX, 0),
            source,
            counted: (offset, line),
            age,
            backlog,
            checked: None,
        };
        live.remove(&key);
        self.by_inode.insert((t.dev, t.ino), key);
        self.files.insert(key, t);
    }

    /// The source a file belongs to: the first glob that matches it, else the first glob in its
    /// directory (a rotated name), else `other`.
    fn source_of(&self, path: &Path) -> String {
        let globs = || self.settings.sources.iter().filter_map(|s| glob::Pattern::new(&s.pattern).ok().map(|p| (s, p)));
        if let Some((s, _)) = globs().find(|(_, p)| p.matches_path(path)) {
            return s.pattern.clone();
        }
        let dir = path.parent();
        globs()
            .find(|(s, _)| Path::new(&s.pattern).parent() == dir)
            .map_or_else(|| "other".to_owned(), |(s, _)| s.pattern.clone())
    }

    /// A new file that is a copy of a followed (or checkpointed) file (copytruncate's copy)
    /// starts where that file's undelivered bytes begin. A copy has the other file's head, is at
    /// least as long as what was read of it, and (if the other file still has them) the same
    /// bytes just before that point: a new log that merely starts with the same line is not one.
    /// Also returns the fingerprint the original's event ids are made from: the copy's events
    /// keep them (an event read from both has one id).
    fn copy_of(&self, w: &Waiting, head: &Head, live: &HashMap<u64, Live<'_>>) -> Option<((u64, u64), u64)> {
        let size = w.file.metadata().ok()?.len();
        for t in self.files.values() {
            // Heads compared as values (the waiting file's was read once): reading it again for
            // every followed file made finding 5,000 files at start quadratic in reads.
            if (t.dev, t.ino) == (w.dev, w.ino) || !same_head(&t.head, head) {
                continue;
            }
            let pending = live.get(&t.key).map_or(t.start, |l| l.stage.framer().pending());
            if size < pending.0 {
                continue;
            }
            let n = (pending.0 as usize).min(fingerprint::HEAD_MAX);
            let at = pending.0 - n as u64;
            let (mut a, mut b) = ([0u8; fingerprint::HEAD_MAX], [0u8; fingerprint::HEAD_MAX]);
            let same = match fingerprint::read_full_at(&t.file, &mut a[..n], at) {
                Ok(k) if k == n => {
                    fingerprint::read_full_at(&w.file, &mut b[..n], at).is_ok_and(|j| j == n && a[..n] == b[..n])
                }
                // The original is already shorter (truncated): head and size must do.
                _ => true,
            };
            if same {
                return Some((pending, t.meta.fingerprint.unwrap_or(t.key)));
            }
        }
        for (h, pos, _, lineage) in &self.truncated {
            if same_head(h, head) && size >= pos.0 {
                return Some((*pos, *lineage));
            }
        }
        self.loaded.iter().chain(self.stale.iter().map(|(k, s)| (k, s))).find_map(|(k, s)| {
            let h = Head { len: s.head_len, hash: s.head_hash, complete: true };
            ((s.dev, s.ino) != (w.dev, w.ino) && size >= s.offset && same_head(&h, head))
                .then_some(((s.offset, s.line), s.lineage.unwrap_or(*k)))
        })
    }

    /// Finish file `key` as it was and take its current content as a new file.
    ///
    /// Complete events are emitted; a partial last line is not (its rest is gone, or in a copy).
    /// Where the old content's undelivered bytes began is remembered for [`Self::copy_of`]: with
    /// copytruncate the copy appears about when the truncation is noticed, before or after.
    fn restart(&mut self, key: u64, why: &str, live: &mut HashMap<u64, Live<'_>>) {
        let t = self.files.remove(&key).expect("tracked");
        self.by_inode.remove(&(t.dev, t.ino));
        let pos = match live.remove(&key) {
            Some(mut l) => {
                l.stage.idle();
                drain(&mut l.stage, &mut self.batch.rendered);
                l.stage.framer().pending()
            }
            None => t.start,
        };
        self.batch.marks.push(Mark::Drop { key });
        let now = Instant::now();
        self.truncated.retain(|(_, _, at, _)| now.duration_since(*at) < TRUNCATED_MEMORY);
        self.truncated.push((t.head, pos, now, t.meta.fingerprint.unwrap_or(t.key)));
        tracing::info!(path = %t.path.display(), "{why}: reading it again from its start");
        let w = Waiting {
            file: t.file,
            path: t.path,
            dev: t.dev,
            ino: t.ino,
            start_at: StartAt::Beginning,
            first_seen: Instant::now(),
            initial: false,
            gone_since: None,
            mtime: SystemTime::now(),
        };
        self.waiting.insert((w.dev, w.ino), w);
    }

    /// At a stop: files no longer at a followed path (a deleted one above all) may not be found
    /// again by the next run, so they are read to their end and everything held is emitted.
    fn finish_orphans<'m>(&mut self, matcher: &'m Matcher, live: &mut HashMap<u64, Live<'m>>) {
        // Files that left before they were fingerprinted, with data: followed now, orphans next.
        self.promote(live);
        self.expand();
        let orphans: Vec<u64> = self.files.iter().filter(|(_, t)| t.orphan_since.is_some()).map(|(k, _)| *k).collect();
        for key in orphans {
            while self.files.contains_key(&key) && self.read_file(key, matcher, live) {}
            self.finish(key, live);
        }
    }

    /// Emit everything held for file `key` and stop following it.
    fn finish(&mut self, key: u64, live: &mut HashMap<u64, Live<'_>>) -> Option<Tracked> {
        let mut t = self.files.remove(&key)?;
        self.by_inode.remove(&(t.dev, t.ino));
        if let Some(mut l) = live.remove(&key) {
            l.stage.finish();
            l.report(&self.metrics, &mut t);
            drain(&mut l.stage, &mut self.batch.rendered);
        }
        self.batch.marks.push(Mark::Drop { key });
        Some(t)
    }

    /// Read every followed file up to its end (or [`ROUND_BYTES`] each, round after round).
    ///
    /// Files are taken oldest first. The backlog found at start (files with data to read when
    /// the daemon started) is read one file at a time, oldest first, so that `meta.log.5`'s
    /// events come before `meta.log.1`'s; files that appear later are read in turns.
    fn read_all<'m>(&mut self, matcher: &'m Matcher, live: &mut HashMap<u64, Live<'m>>) {
        loop {
            let mut keys: Vec<(&(SystemTime, PathBuf), u64)> = self.files.iter().map(|(k, t)| (&t.age, *k)).collect();
            keys.sort_unstable();
            let keys: Vec<u64> = keys.into_iter().map(|(_, k)| k).collect();
            let mut more = false;
            let mut backlog_open = false;
            let mut backlog_left = self.files.values().filter(|t| t.backlog).count();
            for key in keys {
                if self.files.get(&key).is_some_and(|t| t.backlog) && backlog_open {
                    // An older file of the backlog is still being read.
                    more = true;
                    continue;
                }
                more |= self.read_file(key, matcher, live);
                if let Some(t) = self.files.get_mut(&key)
                    && t.backlog
                {
                    if t.at_eof {
                        t.backlog = false;
                        backlog_left -= 1;
                        // A newer file of the backlog is next: this one's last event is complete
                        // (its writer moved on), and it goes out before the newer file's events.
                        if backlog_left > 0
                            && let Some(l) = live.get_mut(&key)
                        {
                            l.stage.idle();
                            drain(&mut l.stage, &mut self.batch.rendered);
                        }
                    } else {
                        backlog_open = true;
                    }
                }
                if self.batch.rendered.bytes() >= BATCH_BYTES && !self.send() {
                    return;
                }
            }
            if !more || self.stop {
                return;
            }
            // Signals and renames must not wait for a long backlog to be read.
            while let Ok(w) = self.wake_rx.try_recv() {
                self.absorb(w);
            }
            if self.stop || self.reload || self.names {
                return;
            }
        }
    }

    fn absorb(&mut self, w: Wake) {
        match w {
            Wake::Data => {}
            Wake::Names => self.names = true,
            Wake::Renamed(from, to) => {
                self.names = true;
                self.renamed.push((from, to));
            }
            Wake::Stop => self.stop = true,
            Wake::Reload => self.reload = true,
            Wake::ConfigChanged => self.reload_due = Some(Instant::now() + RELOAD_DEBOUNCE),
        }
    }

    /// Read one round of file `key`; true when it has more to read.
    fn read_file<'m>(&mut self, key: u64, matcher: &'m Matcher, live: &mut HashMap<u64, Live<'m>>) -> bool {
        let (settings, formats, tally, metrics) = (&self.settings, &self.formats, &self.tally, &self.metrics);
        let t = self.files.get_mut(&key).expect("tracked");
        let l = live.entry(key).or_insert_with(|| {
            let mut out = MultiWriter::new(formats, settings.emit == Emit::All, settings.color, settings.width);
            out.keep_meta = settings.sinks.iter().any(|s| s.dedupe.is_some());
            let setup = crate::stage::Setup {
                emit: settings.emit,
                every_event: settings.every_event,
                framing: settings.framing,
                tally: Some(tally.clone()),
                incidents: Some(settings.incidents.clone()),
                unknown: settings.unknown.clone(),
                metrics: Some(metrics.clone()),
            };
            let stage = Stage::new(matcher, &setup, out, t.meta.clone()).starting_at(t.start.0, t.start.1);
            Live { stage, reported: Totals::default() }
        });
        // New data in a file that was read to its end: first make sure it is still the same
        // content (truncated and rewritten past the old end is not detected by its size).
        // Truncated, or rewritten in place (copytruncate), is caught here too, also at the
        // same size: a rewrite changes the modification time, and the head is read again.
        if t.at_eof {
            let stat = t.file.metadata().ok().map(|m| (m.len(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()));
            if stat.is_some() && stat == t.checked {
                // Nothing changed since the last look: one `fstat`, no read.
                return false;
            }
            let size = stat.map_or(t.read_pos, |s| s.0);
            if size < t.read_pos || !t.head.matches(&t.file).unwrap_or(true) {
                self.restart(key, "truncated or rewritten", live);
                return true;
            }
            t.checked = stat;
            if size == t.read_pos {
                return false;
            }
        }
        let mut got = 0;
        let mut more = false;
        loop {
            let n = match t.file.read_at(&mut self.buf, t.read_pos) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    tracing::error!(path = %t.path.display(), cause = %e, "read error; will retry");
                    // Nothing more can be read now: the file's timers apply, and the backlog
                    // moves on to the next file.
                    t.at_eof = true;
                    break;
                }
            };
            if n == 0 {
                t.at_eof = true;
                break;
            }
            // Still the content that was being read? A copytruncate between two reads, with the
            // writer already past this offset again, is only visible in the head; checked after
            // the read, so that bytes of a new content are never fed as the old one's.
            if t.read_pos > 0 && !t.head.matches(&t.file).unwrap_or(true) {
                self.restart(key, "truncated or rewritten", live);
                return true;
            }
            t.at_eof = false;
            t.last_data = Instant::now();
            l.stage.feed(&self.buf[..n], SystemTime::now());
            t.read_pos += n as u64;
            drain(&mut l.stage, &mut self.batch.rendered);
            got += n;
            // A full batch goes out before the next read: checked only per round, a batch held
            // a whole round's events (1 MiB of input, ~5 MB with `--all`), and the queue's
            // bound on buffered output was several times what [`QUEUE`] promises.
            if got >= ROUND_BYTES || self.batch.rendered.bytes() >= BATCH_BYTES {
                more = true;
                break;
            }
        }
        l.report(&self.metrics, t);
        self.mark(key, live);
        more
    }

    /// Add a mark for file `key` if its pending position moved.
    fn mark(&mut self, key: u64, live: &HashMap<u64, Live<'_>>) {
        let t = self.files.get_mut(&key).expect("tracked");
        let pos = live.get(&key).map_or(t.start, |l| l.stage.framer().pending());
        if pos != t.marked {
            t.marked = pos;
            let saved = Saved {
                dev: t.dev,
                ino: t.ino,
                head_len: t.head.len,
                head_hash: t.head.hash,
                offset: pos.0,
                line: pos.1,
                path: t.path.display().to_string(),
                lineage: t.meta.fingerprint.filter(|f| *f != t.key),
            };
            self.batch.marks.push(Mark::At { key, pos: saved });
        }
    }

    /// Idle timeouts (open events, partial lines) and orphans that are done.
    fn timers(&mut self, live: &mut HashMap<u64, Live<'_>>) {
        let now = Instant::now();
        let mut done = Vec::new();
        for (key, t) in &mut self.files {
            if !t.at_eof {
                continue;
            }
            let quiet = now.duration_since(t.last_data);
            if let Some(l) = live.get_mut(key) {
                if l.stage.framer().has_partial_line() && quiet >= self.settings.line_timeout {
                    l.stage.end_partial_line();
                }
                if l.stage.framer().has_open_event() && l.stage.framer().partial_starts_event() && quiet >= self.settings.idle {
                    l.stage.idle();
                }
                l.report(&self.metrics, t);
                drain(&mut l.stage, &mut self.batch.rendered);
            }
            if let Some(since) = t.orphan_since
                && quiet >= self.settings.rotate_wait
                && now.duration_since(since) >= self.settings.rotate_wait
            {
                done.push(*key);
            }
        }
        let keys: Vec<u64> = self.files.keys().copied().collect();
        for key in keys {
            self.mark(key, live);
        }
        for key in done {
            if let Some(t) = self.finish(key, live) {
                tracing::info!(path = %t.path.display(), "finished a rotated or deleted file");
            }
        }
    }

    /// When the reader must wake without any event: the earliest idle, line or rotate timer.
    fn deadline(&self, live: &HashMap<u64, Live<'_>>) -> Instant {
        let mut d = Instant::now() + Duration::from_secs(3600);
        for (key, t) in &self.files {
            // [`Self::timers`] acts only on files read to their end; a deadline for another
            // (one whose read failed) would pass without effect and spin the loop.
            if !t.at_eof {
                continue;
            }
            if let Some(l) = live.get(key) {
                if l.stage.framer().has_partial_line() {
                    d = d.min(t.last_data + self.settings.line_timeout);
                }
                if l.stage.framer().has_open_event() && l.stage.framer().partial_starts_event() {
                    d = d.min(t.last_data + self.settings.idle);
                }
            }
            if t.orphan_since.is_some() {
                d = d.min(t.last_data.max(t.orphan_since.unwrap_or(t.last_data)) + self.settings.rotate_wait);
            }
        }
        // A waiting file ripens by itself only when its first line's timeout is still ahead: past
        // it, an empty file waits for data (a watch event or the poll), and a deadline already in
        // the past would be a zero timeout, a busy loop re-reading its empty head.
        let now = Instant::now();
        for w in self.waiting.values() {
            let ripe_at = w.first_seen + self.settings.line_timeout;
            if ripe_at > now {
                d = d.min(ripe_at);
            }
        }
        // A copy that stops growing is looked at again when it has been still for rotate_wait
        // (while it grows, its writes wake the reader).
        for (_, grew_at) in self.copying.values() {
            let due = *grew_at + self.settings.rotate_wait;
            if due > now {
                d = d.min(due);
            }
        }
        d
    }

    /// Hand the batch to the sink (blocking while the sink's queue is full: backpressure).
    /// False when the sink is gone.
    fn send(&mut self) -> bool {
        if self.batch.rendered.is_empty() && self.batch.marks.is_empty() {
            return true;
        }
        let b = std::mem::replace(&mut self.batch, Batch::new(&self.formats));
        self.tx.blocking_send(b).is_ok()
    }
}

/// Whether a file whose head is `b` starts with the complete first line `a` was taken from:
/// heads cover the first line (or [`fingerprint::HEAD_MAX`] bytes), so the same bytes are the
/// same length and hash.
fn same_head(a: &Head, b: &Head) -> bool {
    a.complete && a.len == b.len && a.hash == b.hash
}

/// Per checkpointed file still at its path: bytes on disk past what was delivered.
fn file_lag(store: &Mutex<Store>, m: &Metrics) {
    let entries: Vec<Saved> = store.lock().expect("store lock").entries.values().cloned().collect();
    m.file_lag.clear();
    for s in entries {
        let Ok(md) = std::fs::metadata(&s.path) else { continue };
        if (md.dev(), md.ino()) == (s.dev, s.ino) {
            let lag = md.len().saturating_sub(s.offset);
            m.file_lag.get_or_create(&PathLabel { path: s.path }).set(lag.min(i64::MAX as u64) as i64);
        }
    }
}

/// Move a stage's rendered events into `out`.
fn drain(stage: &mut Stage<'_, MultiWriter>, out: &mut Rendered) {
    out.append(&mut stage.writer().out);
}

/// Where reading from the end starts: after the last complete line (a line being written is
/// read whole), with the lines before it counted so that line numbers stay true.
fn end_position(file: &File, size: u64) -> (u64, u64) {
    let mut buf = vec![0u8; 1 << 20];
    let (mut at, mut lines, mut last_nl) = (0u64, 0u64, 0u64);
    while at < size {
        let want = ((size - at) as usize).min(buf.len());
        let n = match fingerprint::read_full_at(file, &mut buf[..want], at) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        if let Some(i) = memchr::memrchr(b'\n', &buf[..n]) {
            last_nl = at + i as u64 + 1;
        }
        at += n as u64;
    }
    (last_nl, lines)
}
