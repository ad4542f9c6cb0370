//! Watching: which paths match the followed globs, and waking the reader when they change.
//!
//! Owns glob expansion and the `notify` watcher. Events are only hints: the reader re-reads every
//! followed file when any data event arrives and re-expands the globs when a name event arrives
//! (create, remove, rename) or the poll interval passes, so a missed or coalesced event costs at
//! most one poll interval, never a line. Directories are watched, not files: a watch on a file
//! would follow its inode across a rename, and new files only show up in their directory.
//!
//! Contract: [`expand`] lists the regular files that match now (symlinks followed, as
//! `/var/log/containers` needs); [`Watcher::watch_dir`] is idempotent and silently leaves
//! directories that cannot be watched to polling.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;

use notify::{EventKind, RecursiveMode, Watcher as _};

/// What woke the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wake {
    /// A file was renamed from one path to another (both known): a file renamed out of a glob
    /// before the reader ever saw it at its old path is still followed to its end.
    Renamed(PathBuf, PathBuf),
    /// Some file's data changed.
    Data,
    /// Names changed in a watched directory: expand the globs again.
    Names,
    /// SIGTERM/SIGINT, or the output is gone.
    Stop,
    /// SIGHUP.
    Reload,
    /// The catalog or the config file changed on disk.
    ConfigChanged,
}

/// A path matched by a followed glob.
pub struct Found {
    pub path: PathBuf,
    pub dev: u64,
    pub ino: u64,
    /// Index of the source (glob) that matched first.
    pub source: usize,
    /// Last modification: files found together are read oldest first.
    pub mtime: std::time::SystemTime,
}

/// Problems met while expanding, reported by the caller (once per path).
pub struct Skipped {
    pub path: PathBuf,
    pub why: String,
    /// A directory that could not be listed (EACCES, EMFILE): says nothing about the files in
    /// it, which must not be taken for rotated away.
    pub listing: bool,
}

/// File name endings of compressed files. Rotated logs are often compressed (`meta.log.2.gz`)
/// and a glob such as `meta.log*` names them: read as text they would be garbage events, and
/// their content was read before it was compressed.
pub const COMPRESSED: &[&str] = &[".gz", ".zst", ".bz2", ".xz", ".lz4", ".zip", ".Z", ".tgz", ".br"];

/// Whether `path` is named like a compressed file.
pub fn compressed_name(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    COMPRESSED.iter().any(|ext| name.ends_with(ext))
}

/// Whether `head` (a file's first bytes) starts like gzip, zstd, bzip2, xz, lz4 or zip: a
/// compressed file whatever its name.
pub fn compressed_magic(head: &[u8]) -> bool {
    crate::source::compression_of(head).is_some()
}

/// Whether `path` is left out by one of a source's `exclude` globs: a glob without `/` is
/// matched against the file name (`*.gz`), one with `/` against the whole path.
pub fn excluded(path: &Path, exclude: &[glob::Pattern]) -> bool {
    let name = path.file_name().map(Path::new);
    exclude.iter().any(|p| {
        if p.as_str().contains('/') { p.matches_path(path) } else { name.is_some_and(|n| p.matches_path(n)) }
    })
}

/// A source's exclude globs, compiled; invalid ones (refused at start) are ignored.
pub fn exclude_patterns(exclude: &[String]) -> Vec<glob::Pattern> {
    exclude.iter().filter_map(|e| glob::Pattern::new(e).ok()).collect()
}

/// Expand `sources` (glob, exclude globs) now. Returns, per source, how many regular files it
/// matched (files also matched by an earlier source included): 0 is a source that follows
/// nothing.
pub fn expand(sources: &[(String, Vec<glob::Pattern>)], found: &mut Vec<Found>, skipped: &mut Vec<Skipped>) -> Vec<usize> {
    use std::os::unix::fs::MetadataExt;
    let mut seen = HashSet::new();
    let mut counts = vec![0; sources.len()];
    for (source, (pat, exclude)) in sources.iter().enumerate() {
        let Ok(paths) = glob::glob(pat) else { continue };
        for entry in paths {
            let path = match entry {
                Ok(p) => p,
                Err(e) => {
                    // A directory gone is gone (a deleted pod); one that cannot be listed is not.
                    let listing = e.error().kind() != std::io::ErrorKind::NotFound;
                    skipped.push(Skipped { path: e.path().to_owned(), why: e.error().to_string(), listing });
                    continue;
                }
            };
            if compressed_name(&path) || excluded(&path, exclude) {
                continue;
            }
            match std::fs::metadata(&path) {
                Ok(m) if m.is_file() => {
                    counts[source] += 1;
                    if seen.insert((m.dev(), m.ino())) {
                        let mtime = m.modified().unwrap_or(std::time::UNIX_EPOCH);
                        found.push(Found { path, dev: m.dev(), ino: m.ino(), source, mtime });
                    }
                }
                Ok(m) if m.is_dir() => {}
                Ok(_) => skipped.push(Skipped { path, why: "not a regular file".into(), listing: false }),
                // Gone between the listing and the stat: the next expansion decides.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => skipped.push(Skipped { path, why: e.to_string(), listing: false }),
            }
        }
    }
    // Oldest first: `meta.log.5` before `meta.log.1` before `meta.log`.
    found.sort_by(|a, b| a.mtime.cmp(&b.mtime).then_with(|| a.path.cmp(&b.path)));
    counts
}

/// Whether `pattern` names no followed file now (`check --config`).
pub fn matches_nothing(pattern: &str, exclude: &[String]) -> bool {
    let (mut found, mut skipped) = (Vec::new(), Vec::new());
    let counts = expand(&[(pattern.to_owned(), exclude_patterns(exclude))], &mut found, &mut skipped);
    counts[0] == 0 && skipped.is_empty()
}

/// The directory to watch for a glob: its longest leading part without glob characters, and
/// whether matches can lie below it at any depth.
pub fn watch_root(pattern: &str) -> (PathBuf, RecursiveMode) {
    let p = Path::new(pattern);
    let mut root = PathBuf::new();
    let comps: Vec<_> = p.components().collect();
    for (i, c) in comps.iter().enumerate() {
        let s = c.as_os_str().to_string_lossy();
        if s.contains(['*', '?', '[']) {
            let last = i + 1 == comps.len();
            return (root, if last { RecursiveMode::NonRecursive } else { RecursiveMode::Recursive });
        }
        if i + 1 == comps.len() {
            break;
        }
        root.push(c);
    }
    (root, RecursiveMode::NonRecursive)
}

pub struct Watcher {
    inner: Option<notify::RecommendedWatcher>,
    /// Directories watched, with the device and inode watched: a directory removed and made
    /// again is another inode, which inotify does not follow (found by a second reader: after
    /// `rm -rf logs; mkdir logs` events came only with the poll, about 100 times later, and
    /// nothing said so).
    watched: HashMap<PathBuf, (u64, u64)>,
}

impl Watcher {
    /// A watcher that wakes `wake`; `None` inside when notification is off or unavailable.
    pub fn new(enabled: bool, wake: Sender<Wake>) -> Watcher {
        if !enabled {
            return Watcher { inner: None, watched: HashMap::new() };
        }
        let handler = move |res: notify::Result<notify::Event>| {
            let Ok(ev) = res else {
                // An overflowed queue loses events: re-expand and re-read everything.
                let _ = wake.send(Wake::Names);
                return;
            };
            let w = match ev.kind {
                EventKind::Modify(notify::event::ModifyKind::Name(notify::event::RenameMode::Both))
                    if ev.paths.len() == 2 =>
                {
                    Wake::Renamed(ev.paths[0].clone(), ev.paths[1].clone())
                }
                EventKind::Modify(notify::event::ModifyKind::Name(_)) | EventKind::Create(_) | EventKind::Remove(_) => {
                    Wake::Names
                }
                EventKind::Modify(_) | EventKind::Any | EventKind::Other => Wake::Data,
                EventKind::Access(_) => return,
            };
            let _ = wake.send(w);
        };
        match notify::recommended_watcher(handler) {
            Ok(w) => Watcher { inner: Some(w), watched: HashMap::new() },
            Err(e) => {
                tracing::warn!(cause = %e, "file notification unavailable; polling only");
                Watcher { inner: None, watched: HashMap::new() }
            }
        }
    }

    pub fn active(&self) -> bool {
        self.inner.is_some()
    }

    /// Watch `dir` (once while it is the same directory: a `stat` a call); a directory that
    /// does not exist yet, or was made again, is watched on a later call.
    pub fn watch_dir(&mut self, dir: &Path, mode: RecursiveMode) {
        use std::os::unix::fs::MetadataExt;
        let Some(w) = &mut self.inner else { return };
        let id = std::fs::metadata(dir).ok().map(|m| (m.dev(), m.ino()));
        match (self.watched.get(dir), id) {
            (Some(old), Some(id)) if *old == id => return,
            (Some(_), _) => {
                // Gone or made again: its watch is gone with it (inotify's IN_IGNORED); the
                // error of removing it again is of no interest.
                let _ = w.unwatch(dir);
                self.watched.remove(dir);
                tracing::info!(dir = %dir.display(), "a watched directory was removed or made again: watching it anew");
            }
            (None, _) => {}
        }
        let Some(id) = id else { return };
        match w.watch(dir, mode) {
            Ok(()) => {
                tracing::debug!(dir = %dir.display(), "watching");
                self.watched.insert(dir.to_owned(), id);
            }
            Err(e) => tracing::debug!(dir = %dir.display(), cause = %e, "not watched (polled)"),
        }
    }
}

/// Watch the catalog files and directories and the config file: any change to them wakes the
/// reader with [`Wake::ConfigChanged`]. Files are watched through their directory (editors and
/// config management replace files by renaming). `None` when there is nothing to watch or
/// notification is unavailable (SIGHUP still reloads).
pub fn watch_config(paths: &[PathBuf], wake: Sender<Wake>) -> Option<notify::RecommendedWatcher> {
    // The embedded catalog never changes on disk.
    let paths: Vec<PathBuf> = paths
        .iter()
        .filter(|p| !crate::catalog::is_embedded(p))
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
        .collect();
    if paths.is_empty() {
        return None;
    }
    let targets = paths.clone();
    let handler = move |res: notify::Result<notify::Event>| {
        let Ok(ev) = res else { return };
        if matches!(ev.kind, EventKind::Access(_)) {
            return;
        }
        if ev.paths.iter().any(|p| targets.iter().any(|t| p == t || p.starts_with(t))) {
            let _ = wake.send(Wake::ConfigChanged);
        }
    };
    let mut w = match notify::recommended_watcher(handler) {
        Ok(w) => w,
        Err(e) => {
            tracing::warn!(cause = %e, "cannot watch the catalog for changes; SIGHUP reloads it");
            return None;
        }
    };
    for p in &paths {
        let (dir, mode) = if p.is_dir() {
            (p.clone(), RecursiveMode::Recursive)
        } else {
            (p.parent().map_or_else(|| PathBuf::from("/"), Path::to_owned), RecursiveMode::NonRecursive)
        };
        if let Err(e) = w.watch(&dir, mode) {
            tracing::warn!(path = %dir.display(), cause = %e, "cannot watch for catalog changes; SIGHUP reloads it");
        }
    }
    Some(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watch_roots() {
        let cases = [
            ("/var/log/risingwave/*.log", "/var/log/risingwave", RecursiveMode::NonRecursive),
            ("/var/log/containers/risingwave-*_*.log", "/var/log/containers", RecursiveMode::NonRecursive),
            ("/var/log/*/meta.log", "/var/log", RecursiveMode::Recursive),
            ("/var/log/meta.log", "/var/log", RecursiveMode::NonRecursive),
        ];
        for (pat, root, mode) in cases {
            assert_eq!(watch_root(pat), (PathBuf::from(root), mode), "{pat}");
        }
    }

    #[test]
    fn expand_lists_regular_files_once() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.log"), b"x\n").unwrap();
        std::fs::write(d.path().join("b.txt"), b"x\n").unwrap();
        std::fs::create_dir(d.path().join("dir.log")).unwrap();
        std::os::unix::fs::symlink(d.path().join("a.log"), d.path().join("link.log")).unwrap();
        let pats = [format!("{}/*.log", d.path().display()), format!("{}/a.*", d.path().display())];
        let sources: Vec<_> = pats.iter().map(|p| (p.clone(), Vec::new())).collect();
        let (mut found, mut skipped) = (Vec::new(), Vec::new());
        let counts = expand(&sources, &mut found, &mut skipped);
        assert_eq!(counts, [2, 1], "the symlink counts for its glob");
        // a.log and its symlink are one file.
        assert_eq!(found.len(), 1, "{:?}", found.iter().map(|f| &f.path).collect::<Vec<_>>());
        assert!(skipped.is_empty());
    }

    #[test]
    fn excluded_and_compressed_files_are_not_found_and_old_ones_come_first() {
        let d = tempfile::tempdir().unwrap();
        let now = std::time::SystemTime::now();
        for (name, age) in [("meta.log", 0), ("meta.log.1", 10), ("meta.log.5", 50), ("meta.log.2.gz", 20), ("meta.log.old", 5)] {
            let p = d.path().join(name);
            std::fs::write(&p, b"x\n").unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(now - std::time::Duration::from_secs(age)).unwrap();
        }
        let sources = [(format!("{}/meta.log*", d.path().display()), exclude_patterns(&["*.old".into()]))];
        let (mut found, mut skipped) = (Vec::new(), Vec::new());
        let counts = expand(&sources, &mut found, &mut skipped);
        let names: Vec<_> = found.iter().map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["meta.log.5", "meta.log.1", "meta.log"]);
        assert_eq!(counts, [3]);
        // A glob with '/' is matched against the whole path.
        let whole = exclude_patterns(&[format!("{}/meta.log.?", d.path().display())]);
        assert!(excluded(&d.path().join("meta.log.1"), &whole) && !excluded(&d.path().join("meta.log"), &whole));
    }

    #[test]
    fn compressed_files_are_known_by_their_first_bytes() {
        let cases: [(&[u8], bool); 6] = [
            (b"\x1f\x8b\x08\x00", true),
            (b"\x28\xb5\x2f\xfd\x00", true),
            (b"BZh91AY", true),
            (b"\xfd7zXZ\x00\x00", true),
            (b"2024-03-02T08:00:01Z INFO x", false),
            (b"{\"level\":\"INFO\"}", false),
        ];
        for (head, want) in cases {
            assert_eq!(compressed_magic(head), want, "{head:?}");
        }
    }
}
