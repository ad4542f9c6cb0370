//! The reader thread: a small scheduler over the followed files' watchers.
//!
//! Owns the reader's loop and nothing per file: it asks [`Discovery`] to expand the globs (on a
//! name event or every poll) and to promote waiting files, gives each [`FileWatcher`] its turn to
//! read (oldest first, [`ROUND_BYTES`] each, the start's backlog one file at a time), runs their
//! timers, hands full batches to the sink task (blocking while its queue is full: backpressure)
//! and sleeps until the next wake or the earliest timer. A reload ends a generation: every
//! watcher is detached from the old matcher at its pending position and the next generation
//! builds its stages with the new one.
//!
//! Contract: synchronous (no tokio); a wake (signal, rename, data) is looked at between rounds,
//! so a long backlog never delays a stop or a reload by more than a round.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use super::checkpoint::Saved;
use super::clock::Clock;
use super::discovery::Discovery;
use super::watch::{self, Wake};
use super::watcher::{BATCH_BYTES, Files, Read, StageSetup};
use super::{Batch, Outbox, Reloader, Settings};
use crate::config::WatchMode;
use crate::matcher::Matcher;
use crate::metrics::{Metrics, ResultLabel, Tally};
use crate::sink::Sinks;

/// Read size.
const READ_BLOCK: usize = 256 << 10;
/// A changed catalog is reloaded once it has been quiet this long: an editor's save or a
/// `cp -r` of a catalog directory is several events, and one reload should see all of them.
const RELOAD_DEBOUNCE: Duration = Duration::from_millis(300);
/// With `watch = "notify"`, globs are still expanded this often, in case an event was lost.
const SAFETY_POLL: Duration = Duration::from_secs(10);

enum Exit {
    Stop,
    /// A new catalog and settings; the files, detached from the old matcher.
    Reload(Arc<Matcher>, Box<Settings>, Files<'static>),
}

/// What woke the reader and is not handled yet.
#[derive(Default)]
struct Pending {
    stop: bool,
    names: bool,
    reload: bool,
    /// The catalog or config changed: reload once they have been quiet until then.
    reload_due: Option<Instant>,
}

pub(super) struct FileServer {
    settings: Settings,
    found: Discovery,
    wake_rx: Receiver<Wake>,
    pending: Pending,
    out: Outbox,
    batch: Batch,
    /// The formats the sinks need.
    formats: Vec<crate::event::Style>,
    buf: Vec<u8>,
    metrics: Arc<Metrics>,
    /// The run's clusters, whether `--unknown` is on or not: `settings.stage.unknown`, when on,
    /// shares them (see [`super::run`]).
    clusters: crate::unknown::Shared,
    /// The state directory's clusters are in `clusters` (at start with `--unknown` on, else at
    /// the reload that turns it on).
    clusters_taken_up: bool,
    /// Matches per record of the current generation.
    tally: Arc<Tally>,
    /// Every timer's time (the system's, or a test's).
    clock: Clock,
    /// Kept alive: the watcher of the catalog and config.
    _config_watcher: Option<notify::RecommendedWatcher>,
}

impl FileServer {
    pub fn new(
        settings: Settings,
        clusters: crate::unknown::Shared,
        loaded: HashMap<u64, Saved>,
        wake_rx: Receiver<Wake>,
        wake_tx: Sender<Wake>,
        out: Outbox,
        metrics: Arc<Metrics>,
        clock: Clock,
    ) -> FileServer {
        clock.subscribe(wake_tx.clone());
        let watcher = watch::Watcher::new(settings.watch != WatchMode::Poll, wake_tx.clone());
        if settings.watch == WatchMode::Notify && !watcher.active() {
            tracing::warn!("watch = notify but notification is unavailable: polling every {:?}", SAFETY_POLL);
        }
        let formats = Sinks::formats(&settings.sinks());
        let config_watcher = watch::watch_config(&settings.watch_config, wake_tx.clone());
        FileServer {
            clusters_taken_up: settings.stage.unknown.is_some(),
            settings,
            clusters,
            found: Discovery::new(loaded, watcher, metrics.clone(), clock.clone()),
            wake_rx,
            pending: Pending { names: true, ..Pending::default() },
            batch: Batch::new(&formats, &out.pool),
            out,
            formats,
            buf: vec![0; READ_BLOCK],
            _config_watcher: config_watcher,
            tally: Arc::new(Tally::new(0)),
            metrics,
            clock,
        }
    }

    pub fn run(mut self, mut matcher: Arc<Matcher>, mut reload: Reloader) {
        let mut files: Files<'static> = Files::new();
        loop {
            self.tally = self.metrics.generation(&matcher);
            match self.generation(&matcher, files, &mut reload) {
                Exit::Stop => return,
                Exit::Reload(m, settings, rest) => {
                    files = rest;
                    self.metrics.reloads.get_or_create(&ResultLabel { result: "ok" }).inc();
                    matcher = m;
                    self.settings = *settings;
                    // The clusters outlive a reload, `--unknown` turned off and on again too:
                    // their counts go on, under the new cap.
                    if let Some(new) = self.settings.stage.unknown.as_mut() {
                        let cap = new.clusters.lock().unwrap_or_else(|e| e.into_inner()).cap();
                        self.clusters.clusters.lock().unwrap_or_else(|e| e.into_inner()).set_cap(cap);
                        if !self.clusters_taken_up {
                            super::take_up_clusters(&self.clusters, &self.settings.state_dir);
                            self.clusters_taken_up = true;
                        }
                        new.clusters = self.clusters.clusters.clone();
                        new.saved = self.clusters.saved.clone();
                        *self.metrics.unknown.lock().unwrap_or_else(|e| e.into_inner()) = Some(new.clone());
                    }
                    // New globs are expanded at once.
                    self.found.expand(&self.settings, &mut files, &mut self.batch.marks);
                }
            }
        }
    }

    /// Follow with one matcher until stopped or reloaded; the files come back detached from it.
    fn generation<'m>(&mut self, matcher: &'m Matcher, files: Files<'static>, reload: &mut Reloader) -> Exit {
        let mut files: Files<'m> = files.detach(&self.metrics);
        let mut next_poll = self.clock.now();
        loop {
            let now = self.clock.now();
            if self.pending.names || now >= next_poll {
                if now >= next_poll {
                    let every = match (self.settings.watch, self.found.watcher.active()) {
                        (WatchMode::Notify, true) => SAFETY_POLL,
                        _ => self.settings.poll_interval,
                    };
                    next_poll = now + every;
                }
                self.found.expand(&self.settings, &mut files, &mut self.batch.marks);
                self.found.promote(&self.settings, &mut files, &mut self.batch.marks);
                self.pending.names = false;
            } else if !self.found.waiting.is_empty() {
                self.found.promote(&self.settings, &mut files, &mut self.batch.marks);
            }
            self.read_all(matcher, &mut files);
            self.timers(&mut files);
            if !self.send() {
                return Exit::Stop;
            }
            // Wait for a change, a timer, or a signal.
            let mut deadline = self.deadline(&files).min(next_poll);
            if let Some(t) = self.pending.reload_due {
                deadline = deadline.min(t);
            }
            let first = match self.clock.wait(&self.wake_rx, deadline) {
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
            if self.pending.reload_due.is_some_and(|t| self.clock.now() >= t) {
                self.pending.reload_due = None;
                tracing::info!("the catalog or config changed on disk: reloading");
                self.pending.reload = true;
            }
            if self.pending.stop {
                self.finish_orphans(matcher, &mut files);
                self.send();
                return Exit::Stop;
            }
            if std::mem::take(&mut self.pending.reload) {
                match reload() {
                    Ok((m, settings)) => {
                        // Every file starts again where its undelivered bytes begin, with the new
                        // matcher: nothing is lost, nothing repeated.
                        let files = files.detach(&self.metrics);
                        tracing::info!(records = m.entries.len(), "reloaded");
                        return Exit::Reload(m, Box::new(settings), files);
                    }
                    Err(e) => {
                        self.metrics.reloads.get_or_create(&ResultLabel { result: "failed" }).inc();
                        tracing::error!(cause = %e, "reload failed; the running catalog and config are kept")
                    }
                }
            }
        }
    }

    /// At a stop: files no longer at a followed path (a deleted one above all) may not be found
    /// again by the next run, so they are read to their end and everything held is emitted.
    fn finish_orphans<'m>(&mut self, matcher: &'m Matcher, files: &mut Files<'m>) {
        // Files that left before they were fingerprinted, with data: followed now, orphans next.
        self.found.promote(&self.settings, files, &mut self.batch.marks);
        self.found.expand(&self.settings, files, &mut self.batch.marks);
        let orphans: Vec<u64> = files.values().filter(|t| t.orphan_since.is_some()).map(|t| t.key).collect();
        for key in orphans {
            while files.contains(key) && self.read_file(key, matcher, files) {}
            if let Some(w) = files.remove(key) {
                w.finish(&self.metrics, &mut self.batch);
            }
        }
    }

    /// Read every followed file up to its end (or [`super::watcher::ROUND_BYTES`] each, round
    /// after round).
    ///
    /// Files are taken oldest first. The backlog found at start (files with data to read when
    /// the daemon started) is read one file at a time, oldest first, so that `meta.log.5`'s
    /// events come before `meta.log.1`'s; files that appear later are read in turns.
    fn read_all<'m>(&mut self, matcher: &'m Matcher, files: &mut Files<'m>) {
        loop {
            let keys = files.by_age();
            let mut more = false;
            let mut backlog_open = false;
            let mut backlog_left = files.values().filter(|t| t.backlog).count();
            for key in keys {
                if files.get(key).is_some_and(|t| t.backlog) && backlog_open {
                    // An older file of the backlog is still being read.
                    more = true;
                    continue;
                }
                more |= self.read_file(key, matcher, files);
                if let Some(t) = files.get_mut(key)
                    && t.backlog
                {
                    if t.at_eof {
                        t.backlog = false;
                        backlog_left -= 1;
                        // A newer file of the backlog is next: this one's last event is complete
                        // (its writer moved on), and it goes out before the newer file's events.
                        if backlog_left > 0
                            && let Some(l) = &mut t.live
                        {
                            l.stage.idle();
                            self.batch.rendered.append(&mut l.stage.writer().out);
                        }
                    } else {
                        backlog_open = true;
                    }
                }
                if self.batch.rendered.bytes() >= BATCH_BYTES && !self.send() {
                    return;
                }
            }
            if !more || self.pending.stop {
                return;
            }
            // Signals and renames must not wait for a long backlog to be read.
            while let Ok(w) = self.wake_rx.try_recv() {
                self.absorb(w);
            }
            if self.pending.stop || self.pending.reload || self.pending.names {
                return;
            }
        }
    }

    /// Read one round of file `key`; true when it has more to read.
    fn read_file<'m>(&mut self, key: u64, matcher: &'m Matcher, files: &mut Files<'m>) -> bool {
        let s = StageSetup {
            matcher,
            settings: &self.settings,
            formats: &self.formats,
            tally: &self.tally,
            metrics: &self.metrics,
            clock: &self.clock,
        };
        let w = files.get_mut(key).expect("tracked");
        match w.read(&s, &mut self.buf, &mut self.batch) {
            Read::Done => false,
            Read::More => true,
            Read::Rewritten => {
                let w = files.remove(key).expect("tracked");
                let (old, waiting) = w.restart(&mut self.batch, self.clock.now());
                self.found.restarted(old, waiting, "truncated or rewritten");
                true
            }
        }
    }

    fn absorb(&mut self, w: Wake) {
        match w {
            Wake::Data => {}
            Wake::Names => self.pending.names = true,
            Wake::Renamed(from, to) => {
                self.pending.names = true;
                self.found.renamed.push((from, to));
            }
            Wake::Stop => self.pending.stop = true,
            Wake::Reload => self.pending.reload = true,
            Wake::ConfigChanged => self.pending.reload_due = Some(self.clock.now() + RELOAD_DEBOUNCE),
        }
    }

    /// Idle timeouts (open events, partial lines) and orphans that are done.
    fn timers(&mut self, files: &mut Files<'_>) {
        let now = self.clock.now();
        let mut done = Vec::new();
        for w in files.values_mut() {
            if w.timers(now, &self.settings, &self.metrics, &mut self.batch.rendered) {
                done.push(w.key);
            }
        }
        for w in files.values_mut() {
            w.mark(&mut self.batch.marks);
        }
        for key in done {
            if let Some(w) = files.remove(key) {
                let path = w.finish(&self.metrics, &mut self.batch);
                tracing::info!(path = %path.display(), "finished a rotated or deleted file");
            }
        }
    }

    /// When the reader must wake without any event: the earliest idle, line or rotate timer.
    fn deadline(&self, files: &Files<'_>) -> Instant {
        let mut d = self.clock.now() + Duration::from_secs(3600);
        for w in files.values() {
            if let Some(t) = w.deadline(&self.settings) {
                d = d.min(t);
            }
        }
        // A waiting file ripens by itself only when its first line's timeout is still ahead: past
        // it, an empty file waits for data (a watch event or the poll), and a deadline already in
        // the past would be a zero timeout, a busy loop re-reading its empty head.
        let now = self.clock.now();
        for w in self.found.waiting.values() {
            let ripe_at = w.first_seen + self.settings.line_timeout;
            if ripe_at > now {
                d = d.min(ripe_at);
            }
        }
        // A copy that stops growing is looked at again when it has been still for rotate_wait
        // (while it grows, its writes wake the reader).
        for (_, grew_at) in self.found.copying.values() {
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
        let b = std::mem::replace(&mut self.batch, Batch::new(&self.formats, &self.out.pool));
        self.out.tx.blocking_send(b).is_ok()
    }
}
