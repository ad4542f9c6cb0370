//! Fingerprints: what makes a followed file the same file, whatever its path.
//!
//! A file is its device and inode plus its *head*: its first line (through the line break),
//! at most [`HEAD_MAX`] bytes. The device and inode keep a renamed file from being read twice;
//! the head keeps a reused inode (a file deleted and another created) from being taken for the
//! old one, and tells a truncated-and-rewritten file (copytruncate) from the one that was read.
//! RisingWave's first line carries a timestamp to the microsecond, so two logs' heads differ.
//!
//! Contract: [`Head::read`] is deterministic for a given file content; a head is *complete* once
//! the first line has its line break or [`HEAD_MAX`] bytes exist, and only complete heads are
//! final (an incomplete one may still grow, see `follow`).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// Bytes of the first line the head covers. Enough for a RisingWave line's timestamp, level and
/// target; small enough that re-reading it on every poll to detect a rewrite costs nothing.
pub const HEAD_MAX: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// Bytes covered (0 for an empty file).
    pub len: u32,
    /// XXH3-64 of those bytes.
    pub hash: u64,
    pub complete: bool,
}

impl Head {
    /// The head of `file` as it is now.
    pub fn read(file: &File) -> io::Result<Head> {
        let mut buf = [0u8; HEAD_MAX];
        let n = read_full_at(file, &mut buf, 0)?;
        let (len, complete) = match memchr::memchr(b'\n', &buf[..n]) {
            Some(i) => (i + 1, true),
            None => (n, n == HEAD_MAX),
        };
        Ok(Head { len: len as u32, hash: xxhash_rust::xxh3::xxh3_64(&buf[..len]), complete })
    }

    /// Does `file` still start with the bytes this head was taken from?
    pub fn matches(&self, file: &File) -> io::Result<bool> {
        let mut buf = [0u8; HEAD_MAX];
        let len = self.len as usize;
        let n = read_full_at(file, &mut buf[..len], 0)?;
        Ok(n == len && xxhash_rust::xxh3::xxh3_64(&buf[..len]) == self.hash)
    }
}

/// The fingerprint of a file: stable across renames and restarts, the key of its checkpoint and
/// the first half of its events' `event_id`.
pub fn key(dev: u64, ino: u64, head: &Head) -> u64 {
    let mut b = [0u8; 28];
    b[..8].copy_from_slice(&dev.to_le_bytes());
    b[8..16].copy_from_slice(&ino.to_le_bytes());
    b[16..24].copy_from_slice(&head.hash.to_le_bytes());
    b[24..].copy_from_slice(&head.len.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&b)
}

/// Read until `buf` is full or the file ends.
pub fn read_full_at(file: &File, buf: &mut [u8], mut at: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], at) {
            Ok(0) => break,
            Ok(k) => {
                n += k;
                at += k as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn head_is_the_first_line_and_completes_with_its_break() {
        let mut f = tempfile::tempfile().unwrap();
        assert_eq!(Head::read(&f).unwrap().len, 0);
        f.write_all(b"2026-11-29T10:00:00.000001Z  INFO first").unwrap();
        let partial = Head::read(&f).unwrap();
        assert!(!partial.complete);
        assert!(partial.matches(&f).unwrap());
        f.write_all(b" line\nsecond line\n").unwrap();
        let h = Head::read(&f).unwrap();
        assert!(h.complete);
        assert_eq!(h.len as usize, "2026-11-29T10:00:00.000001Z  INFO first line\n".len());
        // The partial head still matches the grown file: its bytes are a prefix.
        assert!(partial.matches(&f).unwrap());
        f.set_len(0).unwrap();
        f.write_all_at(b"2026-11-29T10:00:00.000002Z  INFO other line\n", 0).unwrap();
        assert!(!h.matches(&f).unwrap(), "a rewritten file is another file");
    }

    #[test]
    fn a_long_first_line_is_cut_at_head_max() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&[b'x'; 1000]).unwrap();
        let h = Head::read(&f).unwrap();
        assert!(h.complete);
        assert_eq!(h.len as usize, HEAD_MAX);
    }

    #[test]
    fn the_key_depends_on_inode_and_head() {
        let h = Head { len: 10, hash: 7, complete: true };
        assert_ne!(key(1, 2, &h), key(1, 3, &h));
        assert_ne!(key(1, 2, &h), key(1, 2, &Head { hash: 8, ..h }));
        assert_eq!(key(1, 2, &h), key(1, 2, &h));
    }
}
