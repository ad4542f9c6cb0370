//! Discovery: which files are followed, and from where each starts.
//!
//! Owns what is known of files before and beside the watchers: the checkpoints read at start and
//! not yet matched to a file, the files seen but not yet fingerprinted ([`Waiting`]), what a glob
//! names but cannot be followed (unreadable, compressed), copies still being made, sources that
//! match nothing, renames reported by the watch, and the contents of files found truncated.
//!
//! Contract: [`Discovery::expand`] updates the followed files' paths and orphan state from the
//! globs (a directory that cannot be listed says nothing about its files); [`Discovery::promote`]
//! turns waiting files into [`FileWatcher`]s once fingerprinted, each starting at its checkpoint,
//! where its original had got to (a copy), at its end (`start_at = end`, found at start) or at
//! its start. Files are known by fingerprint, never by path alone.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::checkpoint::{Mark, Saved};
use super::clock::Clock;
use super::fingerprint::{self, Head};
use super::watch;
use super::watcher::{FileWatcher, Files, Truncated, Waiting};
use super::{Settings, same_head};
use crate::annotate::SourceMeta;
use crate::config::StartAt;
use crate::metrics::Metrics;

/// How long the old content of a truncated file is remembered to recognise its copy: the copy
/// is made just before the truncation and found by the next expansion, well within this.
const TRUNCATED_MEMORY: Duration = Duration::from_secs(60);
/// A source that matched files and then none for this long is warned about (at start, at once):
/// long enough that a rotation's moment without the file is not a warning.
const EMPTY_WARN_AFTER: Duration = Duration::from_secs(60);
/// While a source stays empty, the warning is repeated this often: visible in a day's log
/// without flooding it.
const EMPTY_WARN_REPEAT: Duration = Duration::from_secs(3600);

pub(super) struct Discovery {
    /// Checkpoints read at start, not yet matched to a file.
    loaded: HashMap<u64, Saved>,
    /// Checkpoints of files whose inode now holds other content (truncated or replaced while
    /// the daemon was down): dropped from the store, kept to recognise copies of them.
    stale: Vec<(u64, Saved)>,
    pub waiting: HashMap<(u64, u64), Waiting>,
    /// Paths a glob names that cannot be opened or read, and why (each reported once per cause;
    /// retried every expansion; counted in `annotail_files_unreadable`).
    reported: HashMap<PathBuf, String>,
    /// Compressed files a glob names (by their first bytes): not followed, reported once.
    ignored: HashSet<(u64, u64)>,
    /// Waiting files that look like a copy still being made of a followed file (its first line,
    /// shorter than what was read of it): their size and when it last grew.
    pub copying: HashMap<(u64, u64), (u64, Instant)>,
    /// Per source pattern: since when it matches nothing, and when that was last warned about.
    empty: HashMap<String, (Instant, Option<Instant>)>,
    /// Renames reported since the last expansion.
    pub renamed: Vec<(PathBuf, PathBuf)>,
    /// Old contents of files found truncated, and when.
    truncated: Vec<(Truncated, Instant)>,
    first_expansion: bool,
    pub watcher: watch::Watcher,
    metrics: Arc<Metrics>,
    clock: Clock,
}

impl Discovery {
    pub fn new(loaded: HashMap<u64, Saved>, watcher: watch::Watcher, metrics: Arc<Metrics>, clock: Clock) -> Discovery {
        Discovery {
            loaded,
            stale: Vec::new(),
            waiting: HashMap::new(),
            reported: HashMap::new(),
            ignored: HashSet::new(),
            copying: HashMap::new(),
            empty: HashMap::new(),
            renamed: Vec::new(),
            truncated: Vec::new(),
            first_expansion: true,
            watcher,
            metrics,
            clock,
        }
    }

    /// Expand the globs: new files wait for a fingerprint, followed files update their path,
    /// files no longer at a followed path become orphans.
    pub fn expand(&mut self, settings: &Settings, files: &mut Files<'_>, marks: &mut Vec<Mark>) {
        let sources: Vec<(String, Vec<glob::Pattern>)> =
            settings.sources.iter().map(|s| (s.pattern.clone(), watch::exclude_patterns(&s.exclude))).collect();
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
        let now = self.clock.now();
        let mut present = HashSet::new();
        for t in files.values() {
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
            self.see(f, settings, files, now);
        }
        for t in files.values_mut() {
            if !present.contains(&(t.dev, t.ino)) && t.orphan_since.is_none() {
                tracing::info!(path = %t.path.display(), "file no longer at a followed path; reading it to its end");
                t.orphan_since = Some(now);
            }
        }
        // A file that left its path before it was fingerprinted may still be written through a
        // descriptor someone kept (a logger that has not reopened yet): it waits `rotate_wait`.
        let rotate_wait = settings.rotate_wait;
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
        self.renamed_away(settings, files, &present, now);
        self.ignored.retain(|id| present.contains(id));
        let waiting = &self.waiting;
        self.copying.retain(|id, _| waiting.contains_key(id));
        if self.first_expansion {
            self.first_expansion = false;
            self.resume_renamed(&present, marks);
            // Files that cannot be read are named (each with its error) and counted apart: the
            // count said 2 for one followed file and one unreadable (found by a second reader).
            // Followed: those being read and those waiting for their first line.
            tracing::info!(
                files = files.len() + self.waiting.len(),
                unreadable = self.reported.len(),
                "initial scan done; following"
            );
            self.metrics.set_ready(true);
        }
        self.metrics.files.set(files.len() as i64);
        self.metrics.files_unreadable.set(self.reported.len() as i64);
    }

    /// A file a glob names now: a followed file's path is updated (and it is findable again), a
    /// waiting one's too, a new one waits for its fingerprint.
    fn see(&mut self, f: watch::Found, settings: &Settings, files: &mut Files<'_>, now: Instant) {
        if self.ignored.contains(&(f.dev, f.ino)) {
            return;
        }
        if let Some(key) = files.key_of((f.dev, f.ino)) {
            let t = files.get_mut(key).expect("indexed");
            if t.path != f.path {
                tracing::info!(from = %t.path.display(), to = %f.path.display(), "file renamed");
                t.path = f.path;
            }
            t.orphan_since = None;
            return;
        }
        if let Some(w) = self.waiting.get_mut(&(f.dev, f.ino)) {
            w.path = f.path;
            return;
        }
        match File::open(&f.path) {
            Ok(file) => {
                if let Some(dir) = std::fs::canonicalize(&f.path).ok().and_then(|c| c.parent().map(Path::to_owned)) {
                    self.watcher.watch_dir(&dir, notify::RecursiveMode::NonRecursive);
                }
                let start_at = settings.sources[f.source].start_at;
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

    /// A file renamed from a followed path to one outside the globs, before an expansion saw it:
    /// follow it from its start (it is read to its end, then dropped as an orphan).
    fn renamed_away(&mut self, settings: &Settings, files: &Files<'_>, present: &HashSet<(u64, u64)>, now: Instant) {
        for (from, to) in std::mem::take(&mut self.renamed) {
            let followed =
                settings.sources.iter().any(|s| glob::Pattern::new(&s.pattern).is_ok_and(|p| p.matches_path(&from)));
            let Ok(m) = std::fs::metadata(&to) else { continue };
            let id = (m.dev(), m.ino());
            if !followed
                || !m.is_file()
                || present.contains(&id)
                || files.has_inode(id)
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
    }

    /// Warn about sources that match no file: at start, after [`EMPTY_WARN_AFTER`] for one that
    /// had files, and every [`EMPTY_WARN_REPEAT`] while it stays empty; count them in
    /// `annotail_sources_empty`. A glob with a typo otherwise waits forever without a word.
    fn warn_empty(&mut self, sources: &[(String, Vec<glob::Pattern>)], counts: &[usize]) {
        let now = self.clock.now();
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
                // A directory named as the source (`--follow logs/`) matches itself, no file: the
                // hint of a typo or a missing directory sent its user looking in the wrong place
                // (found by a developer's reading).
                if std::path::Path::new(pattern.as_str()).is_dir() {
                    tracing::warn!(
                        source = %pattern,
                        empty_for_s = for_s,
                        "source is a directory and matches no file: a source names files; follow a glob of the files in it (such as `{}/*.log`)",
                        pattern.trim_end_matches('/')
                    );
                } else {
                    tracing::warn!(
                        source = %pattern,
                        empty_for_s = for_s,
                        "source matches no file: nothing is followed from it (a typo, a missing directory, or no permission to list it?)"
                    );
                }
                *warned = Some(now);
            }
        }
        self.metrics.sources_empty.set(empty);
    }

    /// Checkpointed files not found at a followed path: renamed while the daemon was down
    /// (rotation). Look for them next to their old path and read them to their end.
    fn resume_renamed(&mut self, present: &HashSet<(u64, u64)>, marks: &mut Vec<Mark>) {
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
                                first_seen: self.clock.now(),
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
            marks.push(Mark::Drop { key });
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
    pub fn promote(&mut self, settings: &Settings, files: &mut Files<'_>, marks: &mut Vec<Mark>) {
        let now = self.clock.now();
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
            let waited = now.duration_since(w.first_seen) >= settings.line_timeout || w.gone_since.is_some();
            let ripe = head.complete || (head.len > 0 && waited);
            if !ripe {
                continue;
            }
            if self.copy_in_progress(id, &head, settings, files, now) {
                continue;
            }
            self.copying.remove(&id);
            let w = self.waiting.remove(&id).expect("listed");
            self.track(w, head, settings, files, marks);
        }
    }

    /// Whether waiting file `id` looks like a copy of a followed file still being made
    /// (logrotate's copytruncate copies while the writer goes on): it has that file's first
    /// line but is shorter than what was read of it, and it grew within `rotate_wait`. Taken
    /// for a new file then, it was read from its start: every line twice, with new event ids.
    /// Once it is as long, [`Self::copy_of`] starts it where the original had got to; a file
    /// that stops growing shorter is a new file after all.
    ///
    /// A copy is also kept waiting while the original holds an open event (its last lines,
    /// until `--idle-timeout` closes it or the original is found truncated and flushes it), at
    /// most `rotate_wait` from when the copy was found: taken then, the copy started at that
    /// event's first line, and the original emitted the event too (found by a second reader:
    /// one event twice at every copytruncate of a busy log).
    fn copy_in_progress(
        &mut self,
        id: (u64, u64),
        head: &Head,
        settings: &Settings,
        files: &Files<'_>,
        now: Instant,
    ) -> bool {
        let w = &self.waiting[&id];
        let Ok(size) = w.file.metadata().map(|m| m.len()) else { return false };
        let open_event = files.values().any(|t| {
            let pending = t.pending().0;
            (t.dev, t.ino) != id && same_head(&t.head, head) && pending < t.read_pos && size >= pending
        });
        if open_event && now.duration_since(w.first_seen) < settings.rotate_wait {
            tracing::debug!(path = %w.path.display(), size, "a copy of a followed file whose last event is open: waiting for it to close");
            return true;
        }
        let shorter_copy =
            files.values().any(|t| (t.dev, t.ino) != id && same_head(&t.head, head) && size < t.pending().0)
                || self.truncated.iter().any(|(old, _)| same_head(&old.head, head) && size < old.pos.0);
        if !shorter_copy {
            return false;
        }
        let (last, grew_at) = self.copying.entry(id).or_insert((size, now));
        if size != *last {
            *last = size;
            *grew_at = now;
        }
        let waiting = now.duration_since(*grew_at) < settings.rotate_wait;
        if waiting {
            tracing::debug!(path = %w.path.display(), size, "a copy of a followed file still being made: waiting for it");
        }
        waiting
    }

    fn track(&mut self, w: Waiting, head: Head, settings: &Settings, files: &mut Files<'_>, marks: &mut Vec<Mark>) {
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
        } else if let Some(((offset, line), original)) = self.copy_of(&w, &head, files) {
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
            marks.push(Mark::Drop { key: k });
        }
        tracing::info!(path = %w.path.display(), offset, fingerprint = %format!("{key:016x}"), "following {why}");
        let mut meta = SourceMeta::file(&w.path.display().to_string());
        // Event ids: a copy's are its original's (see [`Self::copy_of`]).
        meta.fingerprint = Some(lineage.unwrap_or(key));
        let source = self.metrics.source(&source_of(settings, &w.path));
        let now = self.clock.now();
        if self.reported.remove(&w.path).is_some() {
            tracing::info!(path = %w.path.display(), "file can be read now");
            self.metrics.files_unreadable.set(self.reported.len() as i64);
        }
        let backlog = w.initial && offset < size;
        let age = (w.mtime, w.path.clone());
        files.insert(FileWatcher {
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
            live: None,
        });
    }

    /// A new file that is a copy of a followed (or checkpointed) file (copytruncate's copy)
    /// starts where that file's undelivered bytes begin. A copy has the other file's head, is at
    /// least as long as what was read of it, and (if the other file still has them) the same
    /// bytes just before that point: a new log that merely starts with the same line is not one.
    /// Also returns the fingerprint the original's event ids are made from: the copy's events
    /// keep them (an event read from both has one id).
    fn copy_of(&self, w: &Waiting, head: &Head, files: &Files<'_>) -> Option<((u64, u64), u64)> {
        let size = w.file.metadata().ok()?.len();
        for t in files.values() {
            // Heads compared as values (the waiting file's was read once): reading it again for
            // every followed file made finding 5,000 files at start quadratic in reads.
            if (t.dev, t.ino) == (w.dev, w.ino) || !same_head(&t.head, head) {
                continue;
            }
            let pending = t.pending();
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
        for (old, _) in &self.truncated {
            if same_head(&old.head, head) && size >= old.pos.0 {
                return Some((old.pos, old.lineage));
            }
        }
        self.loaded.iter().chain(self.stale.iter().map(|(k, s)| (k, s))).find_map(|(k, s)| {
            let h = Head { len: s.head_len, hash: s.head_hash, complete: true };
            ((s.dev, s.ino) != (w.dev, w.ino) && size >= s.offset && same_head(&h, head))
                .then_some(((s.offset, s.line), s.lineage.unwrap_or(*k)))
        })
    }

    /// A followed file found truncated or rewritten ([`FileWatcher::restart`]): its old content
    /// is remembered for copies of it, its new content waits to be fingerprinted.
    pub fn restarted(&mut self, old: Truncated, w: Waiting, why: &str) {
        let now = self.clock.now();
        self.truncated.retain(|(_, at)| now.duration_since(*at) < TRUNCATED_MEMORY);
        self.truncated.push((old, now));
        tracing::info!(path = %w.path.display(), "{why}: reading it again from its start");
        self.waiting.insert((w.dev, w.ino), w);
    }
}

/// The source a file belongs to: the first glob that matches it, else the first glob in its
/// directory (a rotated name), else `other`.
fn source_of(settings: &Settings, path: &Path) -> String {
    let globs = || settings.sources.iter().filter_map(|s| glob::Pattern::new(&s.pattern).ok().map(|p| (s, p)));
    if let Some((s, _)) = globs().find(|(_, p)| p.matches_path(path)) {
        return s.pattern.clone();
    }
    let dir = path.parent();
    globs()
        .find(|(s, _)| Path::new(&s.pattern).parent() == dir)
        .map_or_else(|| "other".to_owned(), |(s, _)| s.pattern.clone())
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
