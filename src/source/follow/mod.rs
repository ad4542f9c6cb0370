//! Follow mode: the daemon that tails files across rotation and restarts without losing a line.
//!
//! Owns the daemon's two sides and the hand-off between them. The reader thread (synchronous,
//! no tokio) is a small scheduler ([`server`]) over one watcher per followed file ([`watcher`]:
//! its position, findable or orphan state, reads, timers and core [`crate::stage::Stage`]), with
//! [`discovery`] deciding which files are followed and where each starts. It hands batches of
//! rendered events, each with the positions it completes (*marks*), to the sink task over a
//! bounded channel: when the sink is slow the reader blocks, and the files are the buffer. The
//! sink task (tokio, here) writes a batch, then applies its marks to the checkpoint store; a
//! saver task writes the store every `checkpoint_interval`. Signals are handled on the tokio
//! side and reach the reader as [`Wake`]s. Every timer reads its time from a [`clock::Clock`]:
//! the system's, or a test's.
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
//! earlier one", and the pending position of a file ([`crate::framing::Framer::pending`]) never passes an event
//! still open or a line still partial. So a checkpoint never passes an undelivered event; after
//! `kill -9` the events since the last saved checkpoint are delivered again, with the same
//! `event_id`. A reload swaps the matcher between events: each file's framer is rebuilt at its
//! pending position, so nothing is lost or repeated.

pub mod checkpoint;
pub mod clock;
mod discovery;
pub mod fingerprint;
mod server;
pub mod watch;
mod watcher;

use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::stage::Setup;
use crate::config::{StartAt, WatchMode};
use crate::event::Format;
use crate::matcher::Matcher;
use crate::metrics::{Metrics, PathLabel};
use crate::sink::{Pool, Rendered, SinkSpec, Sinks};
use checkpoint::{Mark, Saved, StateError, Store};
use fingerprint::Head;
use watch::Wake;

/// What to follow and how; resolved from the command line and the config file
/// ([`crate::config::Config::follow_settings`]).
#[derive(Debug, Clone)]
pub struct Settings {
    pub sources: Vec<SourceSpec>,
    pub watch: WatchMode,
    pub poll_interval: Duration,
    pub idle: Duration,
    pub line_timeout: Duration,
    pub rotate_wait: Duration,
    pub checkpoint_interval: Duration,
    /// With `--unknown`: the clusters are written at most this often, and when the daemon stops.
    pub clusters_interval: Duration,
    pub shutdown_timeout: Duration,
    pub state_dir: PathBuf,
    /// What chose `state_dir` (an option, the config, the environment, a default), logged.
    pub state_dir_origin: &'static str,
    /// What each followed file's core stage is built from: its framing, the events wanted, the
    /// incidents (repeats across every followed file) and the `--unknown` clusterer (kept
    /// across reloads). Its `tally` and `metrics` are the run's, set for each generation.
    pub stage: Setup,
    pub format: Format,
    pub color: bool,
    pub width: usize,
    /// Where events go (standard output when empty).
    pub sinks: Vec<SinkSpec>,
    /// Standard output's shaping when it is the output.
    pub shape: Arc<crate::event::Shape>,
    /// The catalog paths and the config file: a change reloads them (as SIGHUP does).
    pub watch_config: Vec<PathBuf>,
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
    /// The reader thread panicked (a bug). What it had handed over was delivered and
    /// checkpointed; the daemon ends with a failure status so that a supervisor restarts it.
    #[error("the reader stopped on an internal error ({0}); what it had read was delivered and checkpointed")]
    Reader(String),
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

/// Batches in flight between reader and sink. With [`BATCH_BYTES`] this bounds what is buffered
/// (a batch can exceed it by one read's events: a 256 KiB read rendered with `--all`, ~1.2 MB).
const QUEUE: usize = 8;
/// A checkpoint write that failed is tried again after this long at the soonest.
const WRITE_RETRY: Duration = Duration::from_secs(1);

/// Rendered events and the positions they complete.
pub struct Batch {
    pub rendered: Rendered,
    pub marks: Vec<Mark>,
}

impl Batch {
    /// An empty batch, its buffers from `pool` when there are some to reuse.
    fn new(formats: &[crate::event::Style], pool: &Pool) -> Batch {
        Batch { rendered: pool.take(formats), marks: Vec::new() }
    }
}

/// The reader's end of the batch queue: where full batches go, and the pool empty ones come
/// from (the buffers of batches the sinks are done with).
struct Outbox {
    tx: tokio::sync::mpsc::Sender<Batch>,
    pool: Pool,
}

/// The supervisor's end: the full batches, and the pool the sinks give their buffers back to.
struct Inbox {
    rx: tokio::sync::mpsc::Receiver<Batch>,
    pool: Pool,
}

/// A batch queue of `QUEUE` batches, and one pool for both ends.
fn batch_queue() -> (Outbox, Inbox) {
    let (tx, rx) = tokio::sync::mpsc::channel::<Batch>(QUEUE);
    let pool = Pool::default();
    (Outbox { tx, pool: pool.clone() }, Inbox { rx, pool })
}

/// The runtime and the signal handlers, installed before anything slow (loading the catalog)
/// so that a SIGHUP or SIGTERM sent during start-up is handled, not fatal.
pub struct Runtime {
    rt: tokio::runtime::Runtime,
    signals: Option<Signals>,
    clock: clock::Clock,
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
        Ok(Runtime { rt, signals: None, clock: clock::Clock::system() })
    }

    /// Follow mode's timers on `clock` instead of the system's (a test's [`clock::TestClock`]).
    pub fn with_clock(mut self, clock: clock::Clock) -> Runtime {
        self.clock = clock;
        self
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
    let Runtime { rt, clock, .. } = runtime;
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
    // The run's clusters, kept whether `--unknown` is on or not: a reload that turns it on goes on
    // with them, and the saver, the final write, the metrics and `--summary` hold this handle.
    // Before, a reload from `off` clustered into a clusterer none of them knew: never written,
    // counted or summarised (found by a daemon operator's reading).
    let clusters = settings
        .stage
        .unknown
        .clone()
        .unwrap_or_else(|| crate::unknown::Shared::new(crate::unknown::Levels::Off, crate::unknown::DEFAULT_CAP));
    // Off, the clusters file is not read (nor set aside when unreadable) and not written: a
    // reload that turns `--unknown` on takes it up then, under the cap it sets (found by a
    // second reader: read at start under the default cap, a larger set lost its oldest).
    if settings.stage.unknown.is_some() {
        take_up_clusters(&clusters, &settings.state_dir);
    } else {
        clusters.mark_saved();
    }
    let store = Arc::new(Mutex::new(store));
    metrics.checkpoint_current();
    metrics.set_refresh(Box::new({
        let store = store.clone();
        move |m: &Metrics| file_lag(&store, m)
    }));
    let (wake_tx, wake_rx) = std::sync::mpsc::channel::<Wake>();
    let (outbox, inbox) = batch_queue();
    let reader = {
        let (settings, clusters, wake_tx, clock) = (settings.clone(), clusters.clone(), wake_tx.clone(), clock.clone());
        std::thread::Builder::new()
            .name("annotail-reader".into())
            .spawn({
                let metrics = metrics.clone();
                move || {
                    server::FileServer::new(settings, clusters, loaded, wake_rx, wake_tx, outbox, metrics, clock)
                        .run(matcher, reload)
                }
            })
            .map_err(FollowError::Start)?
    };
    let lock_lost = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let outcome = rt.block_on(supervise(
        control,
        settings.clone(),
        clusters.clone(),
        store.clone(),
        inbox,
        wake_tx,
        metrics.clone(),
        lock_lost.clone(),
        clock,
    ))?;
    let mut s = store.lock().expect("store lock");
    match s.save().and_then(|()| save_clusters(Some(&clusters), &settings.state_dir)) {
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
    // A reader blocked on a stuck output is left behind: the process exits. A reader that
    // ended by itself did so on a panic (it reads until told to stop); one past the deadline
    // may have too.
    let joined = (outcome != Outcome::Deadline || reader.is_finished()).then(|| reader_ended(reader.join()));
    rt.shutdown_timeout(Duration::from_millis(100));
    joined.unwrap_or(Ok(()))?;
    Ok(outcome)
}

/// The reader thread's end as the run's: a panic is an error naming it. Before, it was dropped,
/// and a daemon whose reader had died exited with status 0 after delivering what was read, so
/// systemd's `Restart=on-failure` left it down (found by a daemon operator's reading).
fn reader_ended(joined: std::thread::Result<()>) -> Result<(), FollowError> {
    joined.map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        tracing::error!(panic = %what, "the reader thread panicked");
        FollowError::Reader(what)
    })
}

/// The tokio side: signals, the fan-out to the sinks, checkpoint marks applied as batches are
/// acknowledged, the checkpoint saver, the shutdown deadline.
async fn supervise(
    mut control: Control,
    settings: Settings,
    clusters: crate::unknown::Shared,
    store: Arc<Mutex<Store>>,
    inbox: Inbox,
    wake: Sender<Wake>,
    metrics: Arc<Metrics>,
    lock_lost: Arc<std::sync::atomic::AtomicBool>,
    clock: clock::Clock,
) -> Result<Outcome, FollowError> {
    let (reopen_tx, reopen_rx) = tokio::sync::watch::channel(0u64);
    let Inbox { rx: mut batch_rx, pool } = inbox;
    let mut sinks = Sinks::start(settings.sinks(), reopen_rx, &metrics, pool);
    let saved = Arc::new(tokio::sync::Notify::new());
    let saver = tokio::spawn(save_every(
        store.clone(),
        Some(clusters),
        (settings.checkpoint_interval, settings.clusters_interval),
        metrics.clone(),
        saved.clone(),
        lock_lost,
        wake.clone(),
        clock,
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
            // Events, as the message says: `pending` counts batches (found by an OTel pipeline's
            // reading: 2 where 109 events were queued).
            tracing::warn!(
                undelivered = marks.iter().map(|m| m.2).sum::<usize>(),
                batches = sinks.pending(),
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
    (every, clusters_every): (Duration, Duration),
    metrics: Arc<Metrics>,
    acked: Arc<tokio::sync::Notify>,
    lock_lost: Arc<std::sync::atomic::AtomicBool>,
    wake: Sender<Wake>,
    clock: clock::Clock,
) {
    // When the clusters were last written; a change since then waits for its turn.
    let mut clusters_at: Option<std::time::Instant> = None;
    let clusters_waiting = || unknown.as_ref().is_some_and(crate::unknown::Shared::changed);
    loop {
        let dirty = store.lock().expect("store lock").dirty();
        if !dirty {
            metrics.checkpoint_idle();
            match clusters_at.filter(|_| clusters_waiting()) {
                // Clusters changed since their last write, and their turn comes before another
                // acknowledgement may: written then, and at rest after that.
                Some(at) => {
                    let due = (at + clusters_every).saturating_duration_since(clock.now());
                    tokio::select! {
                        () = acked.notified() => {}
                        () = clock.sleep(due) => {}
                    }
                }
                None => acked.notified().await,
            }
            // Acknowledgements the last write already held leave a permit (`notify_one`): woken
            // by one, nothing is dirty, and the age would count up to the next write for nothing.
            if !store.lock().expect("store lock").dirty() && !clusters_waiting() {
                continue;
            }
            metrics.checkpoint_current();
        }
        // What is acknowledged in the meantime goes into the same write.
        clock.sleep(every).await;
        let snap = store.lock().expect("store lock").snapshot();
        let clusters_due = clusters_at.is_none_or(|at| clock.now().saturating_duration_since(at) >= clusters_every);
        if snap.is_none() && !clusters_due {
            continue;
        }
        if clusters_due {
            clusters_at = Some(clock.now());
        }
        let (unknown, dir) = (unknown.clone(), store.lock().expect("store lock").dir().to_owned());
        let write = move || {
            if let Some(snap) = snap {
                snap.write()?;
            }
            if clusters_due { save_clusters(unknown.as_ref(), &dir) } else { Ok(()) }
        };
        match tokio::task::spawn_blocking(write).await {
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
                clusters_at = None;
                // A full or failing disk is retried, not hammered (nor the log flooded).
                clock.sleep(WRITE_RETRY.saturating_sub(every)).await;
            }
            Err(_) => return,
        }
    }
}

/// Take up the clusters a run before left in the state directory `dir`, under `u`'s cap.
pub(super) fn take_up_clusters(u: &crate::unknown::Shared, dir: &std::path::Path) {
    let saved = checkpoint::read_clusters(dir);
    if saved.is_empty() {
        return;
    }
    let taken = u.clusters.lock().unwrap_or_else(|e| e.into_inner()).restore(&saved);
    tracing::info!(clusters = taken, "unknown clusters taken up from the state directory");
    if taken < saved.len() {
        tracing::warn!(
            saved = saved.len(),
            taken,
            "unknown clusters in the state directory left out: more than the cap (the least recently seen), or already alive or unreadable"
        );
    }
}

/// With `--unknown`, write the clusters beside the checkpoints (see [`checkpoint`]), unless
/// they are as they were last written.
fn save_clusters(unknown: Option<&crate::unknown::Shared>, dir: &std::path::Path) -> std::io::Result<()> {
    let Some(u) = unknown else { return Ok(()) };
    let (version, clusters) = {
        let c = u.clusters.lock().unwrap_or_else(|e| e.into_inner());
        if *u.saved.lock().unwrap_or_else(|e| e.into_inner()) == Some(c.version()) {
            return Ok(());
        }
        (c.version(), c.export())
    };
    checkpoint::write_clusters(dir, clusters)?;
    *u.saved.lock().unwrap_or_else(|e| e.into_inner()) = Some(version);
    Ok(())
}

/// Whether a file whose head is `b` starts with the complete first line `a` was taken from:
/// heads cover the first line (or [`fingerprint::HEAD_MAX`] bytes), so the same bytes are the
/// same length and hash.
pub(super) fn same_head(a: &Head, b: &Head) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regression_a_reader_that_panicked_fails_the_run() {
        let died = std::thread::Builder::new()
            .name("annotail-reader".into())
            .spawn(|| panic!("index out of bounds: the len is 3 but the index is 7"))
            .expect("spawn");
        let e = reader_ended(died.join()).expect_err("a panic is an error");
        assert!(matches!(&e, FollowError::Reader(m) if m.contains("the len is 3")), "{e:?}");
        assert_eq!(
            e.to_string(),
            "the reader stopped on an internal error (index out of bounds: the len is 3 but the index is 7); \
             what it had read was delivered and checkpointed"
        );
        let formatted = std::thread::spawn(|| panic!("record {} broke", 42)).join();
        assert!(matches!(reader_ended(formatted), Err(FollowError::Reader(m)) if m == "record 42 broke"));
        assert!(reader_ended(std::thread::spawn(|| ()).join()).is_ok());
    }
}
