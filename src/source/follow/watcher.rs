//! One followed file: its state from the moment it is seen to the moment it is finished.
//!
//! Owns the per-file state machine, one per file (device and inode), as Vector's file source has
//! one `FileWatcher` per file under its `FileServer`:
//!
//! ```text
//!   seen at a followed path ──▶ Waiting ──(first line complete, or line_timeout)──▶ FileWatcher
//!                                  ▲                                                  │  │
//!                                  └────────── truncated or rewritten: restarted ─────┘  │
//!                                                                                         ▼
//!                             findable ──(no longer at a followed path)──▶ orphan ──▶ finished
//! ```
//!
//! - [`Waiting`]: seen, not yet fingerprinted (its first line is incomplete). Discovery
//!   (`discovery.rs`) decides where it starts and turns it into a [`FileWatcher`].
//! - [`FileWatcher`]: fingerprinted and followed. It reads from `read_pos` into its own core
//!   [`Stage`] (built lazily, for the current matcher), marks the positions its events complete,
//!   and runs its own timers (a partial line's `line_timeout`, an open event's `idle`, an orphan's
//!   `rotate_wait`).
//! - orphan: no longer at any followed path (renamed away, deleted): read to its end through its
//!   descriptor, finished once quiet for `rotate_wait`.
//! - finished: everything held is emitted and its checkpoint dropped ([`Mark::Drop`]).
//!
//! Contract: [`FileWatcher::pending`] never passes an event still open or a line still partial,
//! and a mark is only ever that position; bytes of a new content are never fed as the old one's
//! (the head is checked after each read). The scheduler (`server.rs`) decides when and how much
//! each watcher reads; a watcher never blocks and never sends.

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::checkpoint::{Mark, Saved};
use super::fingerprint::Head;
use super::{Batch, Settings};
use crate::annotate::{Emit, SourceMeta};
use crate::counts::Totals;
use crate::matcher::Matcher;
use crate::metrics::{Metrics, SourceMetrics, Tally};
use crate::sink::{MultiWriter, Rendered};
use crate::stage::Stage;

/// Bytes read from one file before the reader moves to the next: keeps one busy file from
/// starving the others (and bounds the latency it adds to them).
pub(super) const ROUND_BYTES: usize = 1 << 20;
/// Rendered bytes after which a batch is sent without waiting for the round to end.
pub(super) const BATCH_BYTES: usize = 256 << 10;

/// A file seen but not yet fingerprinted (its first line is incomplete).
pub(super) struct Waiting {
    pub file: File,
    pub path: PathBuf,
    pub dev: u64,
    pub ino: u64,
    pub start_at: crate::config::StartAt,
    pub first_seen: Instant,
    /// Seen by the first expansion (a file the daemon found, not one created since).
    pub initial: bool,
    /// No longer at a followed path since then.
    pub gone_since: Option<Instant>,
    /// Modification time when found (files found together are read oldest first).
    pub mtime: SystemTime,
}

/// A followed file.
pub(super) struct FileWatcher<'m> {
    pub key: u64,
    pub dev: u64,
    pub ino: u64,
    pub head: Head,
    pub file: File,
    pub path: PathBuf,
    /// Next byte to read.
    pub read_pos: u64,
    /// Where the current stage starts (offset, lines before it).
    pub start: (u64, u64),
    pub last_data: Instant,
    pub at_eof: bool,
    /// Not at any followed path since then (renamed away or deleted).
    pub orphan_since: Option<Instant>,
    pub meta: SourceMeta,
    /// Last position marked.
    pub marked: (u64, u64),
    /// The read counters of the source (glob) it was found by.
    pub source: SourceMetrics,
    /// Files found together are read oldest first: modification time when found, path.
    pub age: (SystemTime, PathBuf),
    /// Found at start with data to read: read after the older ones of the start's backlog.
    pub backlog: bool,
    /// Size, modification and change times when last read to its end: unchanged, nothing is
    /// read, not even the head (a quiet file costs one `fstat` a poll).
    pub checked: Option<(u64, i64, i64, i64, i64)>,
    /// Bytes and lines counted in the metrics, as absolute positions: after a reload the open
    /// event's lines are framed again and must not be counted twice.
    pub counted: (u64, u64),
    /// The core stage for the current matcher: built at the first read of a generation.
    pub live: Option<Live<'m>>,
}

/// A file's core stage for the current matcher.
pub(super) struct Live<'m> {
    pub stage: Stage<'m, MultiWriter>,
    /// Counts already added to the metrics.
    reported: Totals,
}

/// What a watcher's stage is built from: the generation's matcher and the reader's settings.
pub(super) struct StageSetup<'a, 'm> {
    pub matcher: &'m Matcher,
    pub settings: &'a Settings,
    pub formats: &'a [crate::event::Style],
    pub tally: &'a Arc<Tally>,
    pub metrics: &'a Arc<Metrics>,
    pub clock: &'a super::clock::Clock,
}

/// The outcome of one round of reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Read {
    /// Read to its end (or nothing changed).
    Done,
    /// A round's worth or a full batch read: there is more.
    More,
    /// Its content is not what was being read (truncated or rewritten): restart it.
    Rewritten,
}

/// A finished content's memory: its head, where its undelivered bytes began, and the
/// fingerprint its event ids were made from (a copy of it keeps them).
pub(super) struct Truncated {
    pub head: Head,
    pub pos: (u64, u64),
    pub lineage: u64,
}

impl<'m> FileWatcher<'m> {
    /// The position of the first byte not yet in an emitted event (what a checkpoint may say).
    pub fn pending(&self) -> (u64, u64) {
        self.live.as_ref().map_or(self.start, |l| l.stage.framer().pending())
    }

    /// The same file for another generation: its stage dropped, read again from its pending
    /// position by the next one (nothing lost, nothing repeated).
    pub fn detach<'n>(mut self, metrics: &Metrics) -> FileWatcher<'n> {
        if let Some(mut l) = self.live.take() {
            l.report(metrics, &mut self.source, self.start, &mut self.counted);
            let pending = l.stage.framer().pending();
            if pending.0 < self.read_pos {
                // Bytes read but held in an open event are read again: the file is not at its
                // end for the next generation, though it has not changed since it was.
                self.at_eof = false;
            }
            self.read_pos = pending.0;
            self.start = pending;
        }
        FileWatcher {
            key: self.key,
            dev: self.dev,
            ino: self.ino,
            head: self.head,
            file: self.file,
            path: self.path,
            read_pos: self.read_pos,
            start: self.start,
            last_data: self.last_data,
            at_eof: self.at_eof,
            orphan_since: self.orphan_since,
            meta: self.meta,
            marked: self.marked,
            source: self.source,
            age: self.age,
            backlog: self.backlog,
            checked: self.checked,
            counted: self.counted,
            live: None,
        }
    }

    fn live(&mut self, s: &StageSetup<'_, 'm>) -> &mut Live<'m> {
        let (meta, start) = (&self.meta, self.start);
        self.live.get_or_insert_with(|| {
            let settings = s.settings;
            let mut out = MultiWriter::new(s.formats, settings.stage.emit == Emit::All, settings.color, settings.width);
            out.keep_meta = settings.sinks.iter().any(|s| s.dedupe.is_some());
            let setup = crate::stage::Setup {
                tally: Some(s.tally.clone()),
                metrics: Some(s.metrics.clone()),
                ..settings.stage.clone()
            };
            let stage = Stage::new(s.matcher, &setup, out, meta.clone()).starting_at(start.0, start.1);
            Live { stage, reported: Totals::default() }
        })
    }

    /// Read one round: up to its end, [`ROUND_BYTES`], or until `batch` is full.
    pub fn read(&mut self, s: &StageSetup<'_, 'm>, buf: &mut [u8], batch: &mut Batch) -> Read {
        self.live(s);
        // New data in a file that was read to its end: first make sure it is still the same
        // content (truncated and rewritten past the old end is not detected by its size).
        // Truncated, or rewritten in place (copytruncate), is caught here too, also at the
        // same size: a rewrite changes the modification time, and the head is read again.
        if self.at_eof {
            let stat =
                self.file.metadata().ok().map(|m| (m.len(), m.mtime(), m.mtime_nsec(), m.ctime(), m.ctime_nsec()));
            if stat.is_some() && stat == self.checked {
                // Nothing changed since the last look: one `fstat`, no read.
                return Read::Done;
            }
            let size = stat.map_or(self.read_pos, |s| s.0);
            if size < self.read_pos || !self.head.matches(&self.file).unwrap_or(true) {
                return Read::Rewritten;
            }
            self.checked = stat;
            if size == self.read_pos {
                return Read::Done;
            }
        }
        let mut got = 0;
        let mut more = false;
        loop {
            let n = match self.file.read_at(buf, self.read_pos) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    tracing::error!(path = %self.path.display(), cause = %e, "read error; will retry");
                    // Nothing more can be read now: the file's timers apply, and the backlog
                    // moves on to the next file.
                    self.at_eof = true;
                    break;
                }
            };
            if n == 0 {
                self.at_eof = true;
                break;
            }
            // Still the content that was being read? A copytruncate between two reads, with the
            // writer already past this offset again, is only visible in the head; checked after
            // the read, so that bytes of a new content are never fed as the old one's.
            if self.read_pos > 0 && !self.head.matches(&self.file).unwrap_or(true) {
                return Read::Rewritten;
            }
            self.at_eof = false;
            self.last_data = s.clock.now();
            let l = self.live.as_mut().expect("built above");
            l.stage.feed(&buf[..n], SystemTime::now());
            self.read_pos += n as u64;
            drain(&mut l.stage, &mut batch.rendered);
            got += n;
            // A full batch goes out before the next read: checked only per round, a batch held
            // a whole round's events (1 MiB of input, ~5 MB with `--all`), and the queue's
            // bound on buffered output was several times what [`super::QUEUE`] promises.
            if got >= ROUND_BYTES || batch.rendered.bytes() >= BATCH_BYTES {
                more = true;
                break;
            }
        }
        self.report(s.metrics);
        self.mark(&mut batch.marks);
        if more { Read::More } else { Read::Done }
    }

    /// Add what was read and seen since the last report to the metrics.
    pub fn report(&mut self, metrics: &Metrics) {
        if let Some(l) = &mut self.live {
            l.report(metrics, &mut self.source, self.start, &mut self.counted);
        }
    }

    /// Add a mark if the pending position moved.
    pub fn mark(&mut self, marks: &mut Vec<Mark>) {
        let pos = self.pending();
        if pos != self.marked {
            self.marked = pos;
            let saved = Saved {
                dev: self.dev,
                ino: self.ino,
                head_len: self.head.len,
                head_hash: self.head.hash,
                offset: pos.0,
                line: pos.1,
                path: self.path.display().to_string(),
                lineage: self.meta.fingerprint.filter(|f| *f != self.key),
            };
            marks.push(Mark::At { key: self.key, pos: saved });
        }
    }

    /// The idle timeouts of a file read to its end (a partial line's, an open event's); true
    /// when it is an orphan that is done (quiet for `rotate_wait`, gone for as long).
    pub fn timers(&mut self, now: Instant, settings: &Settings, metrics: &Metrics, out: &mut Rendered) -> bool {
        if !self.at_eof {
            return false;
        }
        let quiet = now.duration_since(self.last_data);
        if let Some(l) = &mut self.live {
            if l.stage.framer().has_partial_line() && quiet >= settings.line_timeout {
                l.stage.end_partial_line();
            }
            // An event whose last line is a report's `Caused by:` waits for its causes up to
            // the line timeout, as a partial line does.
            let wait = if l.stage.framer().awaits_more() { settings.line_timeout } else { settings.idle };
            if l.stage.framer().has_open_event() && l.stage.framer().partial_starts_event() && quiet >= wait {
                l.stage.idle();
            }
            l.report(metrics, &mut self.source, self.start, &mut self.counted);
            drain(&mut l.stage, out);
        }
        self.orphan_since
            .is_some_and(|since| quiet >= settings.rotate_wait && now.duration_since(since) >= settings.rotate_wait)
    }

    /// When [`Self::timers`] has something to do without any new data, if ever.
    pub fn deadline(&self, settings: &Settings) -> Option<Instant> {
        // [`Self::timers`] acts only on files read to their end; a deadline for another (one
        // whose read failed) would pass without effect and spin the loop.
        if !self.at_eof {
            return None;
        }
        let mut d: Option<Instant> = None;
        let mut at = |t: Instant| d = Some(d.map_or(t, |d| d.min(t)));
        if let Some(l) = &self.live {
            if l.stage.framer().has_partial_line() {
                at(self.last_data + settings.line_timeout);
            }
            if l.stage.framer().has_open_event() && l.stage.framer().partial_starts_event() {
                // The same wait as `timers`: a deadline before it would pass without effect
                // and spin the loop.
                let wait = if l.stage.framer().awaits_more() { settings.line_timeout } else { settings.idle };
                at(self.last_data + wait);
            }
        }
        if let Some(since) = self.orphan_since {
            at(self.last_data.max(since) + settings.rotate_wait);
        }
        d
    }

    /// Emit everything held and stop following: its checkpoint is dropped.
    pub fn finish(mut self, metrics: &Metrics, batch: &mut Batch) -> PathBuf {
        if let Some(l) = &mut self.live {
            l.stage.finish();
            l.report(metrics, &mut self.source, self.start, &mut self.counted);
            drain(&mut l.stage, &mut batch.rendered);
        }
        batch.marks.push(Mark::Drop { key: self.key });
        self.path
    }

    /// Finish the file as it was and take its current content as a new file, from its start.
    ///
    /// Complete events are emitted; a partial last line is not (its rest is gone, or in a copy).
    /// The old content is returned for copies of it to be recognised: with copytruncate the copy
    /// appears about when the truncation is noticed, before or after.
    pub fn restart(mut self, batch: &mut Batch, now: Instant) -> (Truncated, Waiting) {
        let pos = match &mut self.live {
            Some(l) => {
                l.stage.idle();
                drain(&mut l.stage, &mut batch.rendered);
                l.stage.framer().pending()
            }
            None => self.start,
        };
        batch.marks.push(Mark::Drop { key: self.key });
        let old = Truncated { head: self.head, pos, lineage: self.meta.fingerprint.unwrap_or(self.key) };
        let w = Waiting {
            file: self.file,
            path: self.path,
            dev: self.dev,
            ino: self.ino,
            start_at: crate::config::StartAt::Beginning,
            first_seen: now,
            initial: false,
            gone_since: None,
            mtime: SystemTime::now(),
        };
        (old, w)
    }
}

impl Live<'_> {
    /// Add what was read and seen since the last report to the metrics: only bytes and lines
    /// past what was ever counted for this file (`counted`, absolute positions).
    fn report(&mut self, metrics: &Metrics, source: &SourceMetrics, start: (u64, u64), counted: &mut (u64, u64)) {
        let now = self.stage.totals();
        let mut d = now - self.reported;
        let (bytes, lines) = (start.0 + now.bytes, start.1 + now.lines);
        d.bytes = bytes.saturating_sub(counted.0.max(bytes - d.bytes));
        d.lines = lines.saturating_sub(counted.1.max(lines - d.lines));
        *counted = (counted.0.max(bytes), counted.1.max(lines));
        metrics.add_read(source, &d);
        self.reported = now;
    }
}

/// Move a stage's rendered events into `out`.
fn drain(stage: &mut Stage<'_, MultiWriter>, out: &mut Rendered) {
    out.append(&mut stage.writer().out);
}

/// The followed files, by fingerprint key and by inode.
pub(super) struct Files<'m> {
    map: HashMap<u64, FileWatcher<'m>>,
    by_inode: HashMap<(u64, u64), u64>,
}

impl<'m> Files<'m> {
    pub fn new() -> Files<'m> {
        Files { map: HashMap::new(), by_inode: HashMap::new() }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn get(&self, key: u64) -> Option<&FileWatcher<'m>> {
        self.map.get(&key)
    }

    pub fn get_mut(&mut self, key: u64) -> Option<&mut FileWatcher<'m>> {
        self.map.get_mut(&key)
    }

    pub fn contains(&self, key: u64) -> bool {
        self.map.contains_key(&key)
    }

    pub fn key_of(&self, id: (u64, u64)) -> Option<u64> {
        self.by_inode.get(&id).copied()
    }

    pub fn has_inode(&self, id: (u64, u64)) -> bool {
        self.by_inode.contains_key(&id)
    }

    pub fn insert(&mut self, w: FileWatcher<'m>) {
        self.by_inode.insert((w.dev, w.ino), w.key);
        self.map.insert(w.key, w);
    }

    pub fn remove(&mut self, key: u64) -> Option<FileWatcher<'m>> {
        let w = self.map.remove(&key)?;
        self.by_inode.remove(&(w.dev, w.ino));
        Some(w)
    }

    pub fn values(&self) -> impl Iterator<Item = &FileWatcher<'m>> {
        self.map.values()
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut FileWatcher<'m>> {
        self.map.values_mut()
    }

    /// Keys oldest first (see [`FileWatcher::age`]).
    pub fn by_age(&self) -> Vec<u64> {
        let mut keys: Vec<(&(SystemTime, PathBuf), u64)> = self.map.iter().map(|(k, t)| (&t.age, *k)).collect();
        keys.sort_unstable();
        keys.into_iter().map(|(_, k)| k).collect()
    }

    /// Every file for another generation (see [`FileWatcher::detach`]).
    pub fn detach<'n>(self, metrics: &Metrics) -> Files<'n> {
        Files { map: self.map.into_iter().map(|(k, w)| (k, w.detach(metrics))).collect(), by_inode: self.by_inode }
    }
}
