//! Checkpoints: how far each followed file has been delivered, kept in the state directory.
//!
//! Owns the state directory: its lock (one daemon per directory), and `checkpoints.json`, a
//! versioned file with one entry per file fingerprint: the offset and line number up to which
//! every event has been accepted by the sink, plus what identifies the file again (device,
//! inode, head) and its last path (to find it if it was renamed while the daemon was down).
//!
//! With `--unknown`, `unknown-clusters.json` beside it keeps the clusters (id, group, tokens,
//! count) as of the last checkpoint, so that a restarted daemon's counts continue; it is written
//! the same way, after the checkpoints. After a kill -9 the events delivered again are counted
//! again (the clusters were saved with them).
//!
//! Contract: the file on disk is always a complete earlier state: it is written to a temporary
//! file, fsynced, renamed over the old one, and the directory fsynced. Positions only come from
//! marks the sink has acknowledged, so a checkpoint never runs ahead of delivery.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Version of the on-disk format; a file with another version is not read (nor overwritten).
const VERSION: u32 = 1;
const FILE: &str = "checkpoints.json";
const LOCK: &str = "lock";

/// A delivered position in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved {
    pub dev: u64,
    pub ino: u64,
    pub head_len: u32,
    pub head_hash: u64,
    pub offset: u64,
    pub line: u64,
    pub path: String,
    /// The fingerprint event ids are made from, when it is not the file's own: a copy of
    /// another file (copytruncate) keeps the original's, so an event read again from the copy
    /// has the id it had.
    pub lineage: Option<u64>,
}

/// What the reader tells the checkpoint, in order with the events of the same batch.
#[derive(Debug, Clone)]
pub enum Mark {
    /// Everything before this position of file `key` is in this batch or an earlier one.
    At { key: u64, pos: Saved },
    /// File `key` was read to its end and is no longer followed.
    Drop { key: u64 },
}

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    files: Vec<DiskEntry>,
}

#[derive(Serialize, Deserialize)]
struct DiskEntry {
    fingerprint: String,
    dev: u64,
    ino: u64,
    head_len: u32,
    head_hash: String,
    offset: u64,
    line: u64,
    path: String,
    /// Absent in files written before it existed: same format version, read either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    event_fingerprint: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("cannot use state directory {dir}: {source} (choose another with --state-dir or state.dir)")]
    Dir { dir: PathBuf, source: io::Error },
    #[error("state directory {dir} is in use by another annotail (its lock file is held)")]
    Locked { dir: PathBuf },
    #[error("{path}: checkpoint format version {found}, this annotail reads version {VERSION}; not touching it")]
    Version { path: PathBuf, found: u32 },
    #[error(
        "state directory {dir}: its lock file is gone or replaced (the directory was deleted?); stopped, so that two daemons never share one directory"
    )]
    LockLost { dir: PathBuf },
}

/// The lock file at the state directory's path is no longer the one this daemon holds.
#[derive(Debug, thiserror::Error)]
#[error("the state directory's lock file is gone or replaced")]
pub struct LockLost;

/// Whether a write failed because the lock was lost ([`Snapshot::write`]).
pub fn is_lock_lost(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|i| i.is::<LockLost>())
}

pub struct Store {
    dir: PathBuf,
    /// Held for the life of the store: the directory's lock.
    _lock: File,
    /// Device and inode of the lock file: a lock on a file that was deleted (with its directory)
    /// holds nothing, so every write checks that the path still names it.
    lock_id: (u64, u64),
    pub entries: HashMap<u64, Saved>,
    dirty: bool,
    /// The checkpoint file existed but could not be read: positions were lost, and files found
    /// at start must be read from their start, whatever `start_at` says (else a silent gap).
    pub lost: bool,
}

impl Store {
    /// Open (creating) the state directory, take its lock and read the checkpoints. A file that
    /// cannot be parsed is set aside as `checkpoints.json.corrupt` and reported; following
    /// starts without checkpoints (files are read again: duplicates, never loss).
    pub fn open(dir: &Path) -> Result<Store, StateError> {
        let err = |source| StateError::Dir { dir: dir.to_owned(), source };
        fs::create_dir_all(dir).map_err(err)?;
        let lock = OpenOptions::new().create(true).truncate(false).write(true).open(dir.join(LOCK)).map_err(err)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Err(StateError::Locked { dir: dir.to_owned() }),
            Err(fs::TryLockError::Error(e)) => return Err(err(e)),
        }
        // Writability is checked now, not at the first checkpoint a second later.
        let probe = dir.join(format!("{FILE}.tmp"));
        File::create(&probe).map_err(err)?;
        let lock_id = {
            use std::os::unix::fs::MetadataExt;
            let m = lock.metadata().map_err(err)?;
            (m.dev(), m.ino())
        };
        let path = dir.join(FILE);
        let mut lost = false;
        let entries = match fs::read(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => HashMap::new(),
            Err(e) => return Err(err(e)),
            Ok(bytes) => match parse(&bytes) {
                Ok(entries) => entries,
                Err(Parse::Version(found)) => return Err(StateError::Version { path, found }),
                Err(Parse::Corrupt(why)) => {
                    let aside = dir.join(format!("{FILE}.corrupt"));
                    tracing::error!(path = %path.display(), cause = %why, moved_to = %aside.display(),
                        "checkpoint file unreadable; set aside, files will be read from their start");
                    fs::rename(&path, &aside).map_err(err)?;
                    lost = true;
                    HashMap::new()
                }
            },
        };
        Ok(Store { dir: dir.to_owned(), _lock: lock, lock_id, entries, dirty: false, lost })
    }

    pub fn apply(&mut self, marks: &[Mark]) {
        for m in marks {
            match m {
                Mark::At { key, pos } => {
                    self.entries.insert(*key, pos.clone());
                }
                Mark::Drop { key } => {
                    self.entries.remove(key);
                }
            }
            self.dirty = true;
        }
    }

    pub fn dirty(&self) -> bool {
        self.dirty
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Take what must be written, if anything changed since the last snapshot. Writing happens
    /// outside the store's lock (an fsync must not stall delivery).
    pub fn snapshot(&mut self) -> Option<Snapshot> {
        if !self.dirty {
            return None;
        }
        self.dirty = false;
        Some(Snapshot { dir: self.dir.clone(), entries: self.entries.clone(), lock_id: self.lock_id })
    }

    /// A snapshot could not be written: it must be written again.
    pub fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    /// Write the checkpoints now.
    pub fn save(&mut self) -> io::Result<()> {
        self.dirty = true;
        let snap = self.snapshot().expect("dirty");
        snap.write().inspect_err(|_| self.dirty = true)
    }
}

const CLUSTERS: &str = "unknown-clusters.json";
const CLUSTERS_VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct ClustersOnDisk {
    version: u32,
    clusters: Vec<crate::unknown::SavedCluster>,
}

/// Write the unknown clusters into the state directory (temp file, fsync, rename, fsync the
/// directory, as the checkpoints).
pub fn write_clusters(dir: &Path, clusters: Vec<crate::unknown::SavedCluster>) -> io::Result<()> {
    let mut bytes = serde_json::to_vec(&ClustersOnDisk { version: CLUSTERS_VERSION, clusters }).map_err(io::Error::other)?;
    bytes.push(b'\n');
    let tmp = dir.join(format!("{CLUSTERS}.tmp"));
    let mut f = File::create(&tmp)?;
    f.write_all(&bytes)?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, dir.join(CLUSTERS))?;
    File::open(dir)?.sync_all()
}

/// The unknown clusters saved in the state directory; none when there is no file. A file that
/// cannot be read is reported and left alone; one that does not parse, or is of another
/// version, is reported and set aside (`unknown-clusters.json.corrupt`, `….v<N>`), as a corrupt
/// checkpoint file is: the next write would replace it, and the evidence with it (found by a
/// second reader). The clusters start over (their ids are the same anyway, only the counts
/// restart).
pub fn read_clusters(dir: &Path) -> Vec<crate::unknown::SavedCluster> {
    let path = dir.join(CLUSTERS);
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            tracing::warn!(path = %path.display(), cause = %e, "unknown clusters not read; their counts start over");
            return Vec::new();
        }
    };
    match serde_json::from_slice::<ClustersOnDisk>(&bytes) {
        Ok(d) if d.version == CLUSTERS_VERSION => d.clusters,
        Ok(d) => {
            let moved_to = set_aside(&path, &format!("v{}", d.version));
            tracing::warn!(path = %path.display(), version = d.version, moved_to = %moved_to,
                "unknown clusters of another format version; set aside, their counts start over");
            Vec::new()
        }
        Err(e) => {
            let moved_to = set_aside(&path, "corrupt");
            tracing::warn!(path = %path.display(), cause = %e, moved_to = %moved_to,
                "unknown clusters file unreadable; set aside, their counts start over");
            Vec::new()
        }
    }
}

/// Rename `path` to `<path>.<suffix>`: where it went, or why it did not move.
fn set_aside(path: &Path, suffix: &str) -> String {
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".{suffix}"));
    let aside = PathBuf::from(aside);
    fs::rename(path, &aside).map_or_else(|e| format!("not moved: {e}"), |()| aside.display().to_string())
}

/// The checkpoints at one moment, to be written.
pub struct Snapshot {
    dir: PathBuf,
    entries: HashMap<u64, Saved>,
    lock_id: (u64, u64),
}

impl Snapshot {
    /// Write atomically: temp file, fsync, rename over the old file, fsync the directory. Fails
    /// with [`LockLost`] (and writes nothing) when the lock file is no longer the one held.
    pub fn write(&self) -> io::Result<()> {
        use std::os::unix::fs::MetadataExt;
        match fs::metadata(self.dir.join(LOCK)) {
            Ok(m) if (m.dev(), m.ino()) == self.lock_id => {}
            Ok(_) => return Err(io::Error::other(LockLost)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(io::Error::other(LockLost)),
            Err(e) => return Err(e),
        }
        let mut files: Vec<DiskEntry> = self
            .entries
            .iter()
            .map(|(k, s)| DiskEntry {
                fingerprint: format!("{k:016x}"),
                dev: s.dev,
                ino: s.ino,
                head_len: s.head_len,
                head_hash: format!("{:016x}", s.head_hash),
                offset: s.offset,
                line: s.line,
                path: s.path.clone(),
                event_fingerprint: s.lineage.map(|l| format!("{l:016x}")),
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path).then(a.offset.cmp(&b.offset)));
        let mut bytes = serde_json::to_vec_pretty(&OnDisk { version: VERSION, files }).map_err(io::Error::other)?;
        bytes.push(b'\n');
        let tmp = self.dir.join(format!("{FILE}.tmp"));
        let mut f = File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, self.dir.join(FILE))?;
        File::open(&self.dir)?.sync_all()
    }
}

enum Parse {
    Version(u32),
    Corrupt(String),
}

fn parse(bytes: &[u8]) -> Result<HashMap<u64, Saved>, Parse> {
    #[derive(Deserialize)]
    struct V {
        version: u32,
    }
    let v: V = serde_json::from_slice(bytes).map_err(|e| Parse::Corrupt(e.to_string()))?;
    if v.version != VERSION {
        return Err(Parse::Version(v.version));
    }
    let d: OnDisk = serde_json::from_slice(bytes).map_err(|e| Parse::Corrupt(e.to_string()))?;
    let hex = |s: &str| u64::from_str_radix(s, 16).map_err(|e| Parse::Corrupt(format!("{s:?}: {e}")));
    let mut out = HashMap::new();
    for e in d.files {
        let saved = Saved {
            dev: e.dev,
            ino: e.ino,
            head_len: e.head_len,
            head_hash: hex(&e.head_hash)?,
            offset: e.offset,
            line: e.line,
            path: e.path,
            lineage: e.event_fingerprint.as_deref().map(hex).transpose()?,
        };
        out.insert(hex(&e.fingerprint)?, saved);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(offset: u64) -> Saved {
        Saved { dev: 1, ino: 2, head_len: 40, head_hash: 0xabc, offset, line: 3, path: "/l/a.log".into(), lineage: None }
    }

    #[test]
    fn saves_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Store::open(dir.path()).unwrap();
        s.apply(&[Mark::At { key: u64::MAX, pos: saved(10) }, Mark::At { key: 5, pos: saved(20) }]);
        s.apply(&[Mark::At { key: 5, pos: saved(30) }, Mark::Drop { key: u64::MAX }]);
        s.save().unwrap();
        drop(s);
        let s = Store::open(dir.path()).unwrap();
        assert_eq!(s.entries.len(), 1);
        assert_eq!(s.entries[&5], saved(30));
    }

    #[test]
    fn one_daemon_per_directory() {
        let dir = tempfile::tempdir().unwrap();
        let _s = Store::open(dir.path()).unwrap();
        let e = Store::open(dir.path()).err().unwrap();
        assert!(matches!(e, StateError::Locked { .. }), "{e}");
    }

    #[test]
    fn a_corrupt_file_is_set_aside_and_another_version_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(FILE), b"{\"version\":1,\"files\":[{\"fing").unwrap();
        let s = Store::open(dir.path()).unwrap();
        assert!(s.entries.is_empty());
        assert!(dir.path().join("checkpoints.json.corrupt").exists());
        drop(s);
        fs::write(dir.path().join(FILE), b"{\"version\":9,\"files\":[]}").unwrap();
        let e = Store::open(dir.path()).err().unwrap();
        assert!(e.to_string().contains("version 9"), "{e}");
    }

    #[test]
    fn a_directory_that_cannot_be_created_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, b"").unwrap();
        let e = Store::open(&file.join("state")).err().unwrap().to_string();
        assert!(e.contains("cannot use state directory") && e.contains("/f/state"), "{e}");
    }
}
