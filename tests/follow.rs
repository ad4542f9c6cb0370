//! Follow mode, driven for real: the binary follows files in a temporary directory while this
//! test writes them at full speed, rotates them every way logrotate and container runtimes do,
//! truncates, deletes, kills the daemon with SIGKILL and restarts it. Every line written carries
//! a sequence number, and every scenario checks that each one came out at least once, that no
//! event is a torn line, and reports written / lost / duplicated.

mod common;

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::{PATIENCE, Rng, cmd, wait_timeout};

/// What came out of every daemon run of a scenario.
#[derive(Default)]
struct Seen {
    /// Sequence number → how often it came out.
    counts: HashMap<u64, u32>,
    /// Sequence number → the event ids it came out with.
    ids: HashMap<u64, Vec<String>>,
    /// Events whose message is not a whole written line.
    torn: Vec<String>,
    events: Vec<serde_json::Value>,
}

/// What the daemon logs once its first expansion of the globs is done.
const READY: &str = "initial scan done";

/// A record matching every line the tests write: a catalog reloaded with it annotates them.
const STRESS_RECORD: &str =
    "{\"id\":\"t-stress\",\"errorMessage\":\"line written seq={n}\",\"messagePattern\":\"line written seq=(.+?)\"}\n";

/// Sequence numbers of a second writer start here.
const SECOND: u64 = 10_000_000;

/// One scenario's directory: logs, state, catalog, and the daemon's diagnostics.
struct Env {
    dir: tempfile::TempDir,
    seen: Arc<Mutex<Seen>>,
}

struct Daemon {
    child: Child,
    reader: Option<thread::JoinHandle<()>>,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("logs")).unwrap();
        fs::write(dir.path().join("catalog.jsonl"), common::TEST_CATALOG).unwrap();
        Env { dir, seen: Arc::default() }
    }

    fn logs(&self) -> PathBuf {
        self.dir.path().join("logs")
    }

    fn log(&self, name: &str) -> PathBuf {
        self.logs().join(name)
    }

    fn stderr(&self) -> String {
        fs::read_to_string(self.dir.path().join("stderr.log")).unwrap_or_default()
    }

    /// Start the daemon on `logs/<glob>` with fast timers (so tests are quick) and `--all`
    /// (every line is an event).
    fn start(&self, glob: &str, extra: &[&str]) -> Daemon {
        let err = OpenOptions::new().create(true).append(true).open(self.dir.path().join("stderr.log")).unwrap();
        let pattern = format!("{}/{glob}", self.logs().display());
        let state = self.dir.path().join("state");
        let catalog = self.dir.path().join("catalog.jsonl");
        let mut c = cmd();
        c.arg("--follow").arg(&pattern).args(["--all", "--format", "json", "--log-level", "info"]);
        c.arg("--state-dir").arg(&state).arg("-c").arg(&catalog);
        for (flag, value) in
            [("--poll-interval", "50ms"), ("--rotate-wait", "300ms"), ("--checkpoint-interval", "100ms")]
        {
            if !extra.contains(&flag) {
                c.args([flag, value]);
            }
        }
        c.args(extra).stdout(Stdio::piped()).stderr(err);
        let ready = self.stderr().matches(READY).count();
        let mut child = c.spawn().unwrap();
        let out = child.stdout.take().unwrap();
        let seen = self.seen.clone();
        let reader = thread::spawn(move || {
            let mut lines = BufReader::new(out).lines().map_while(Result::ok).peekable();
            while let Some(line) = lines.next() {
                let ev: serde_json::Value = match serde_json::from_str(&line) {
                    Ok(ev) => ev,
                    // SIGKILL in the middle of a write cuts the last line: that batch was not
                    // acknowledged and is written again by the next run.
                    Err(_) if lines.peek().is_none() => break,
                    Err(e) => panic!("output line is not JSON ({e}): {line}"),
                };
                let msg = ev["message"].as_str().unwrap_or("").to_owned();
                let mut s = seen.lock().unwrap();
                match parse_seq(&msg) {
                    Some(n) => {
                        *s.counts.entry(n).or_default() += 1;
                        let id = ev["event_id"].as_str().unwrap_or("").to_owned();
                        s.ids.entry(n).or_default().push(id);
                    }
                    None => s.torn.push(msg),
                }
                s.events.push(ev);
            }
        });
        // Writing starts once the daemon watches: a file rotated out of the glob before the
        // daemon ever looked is not its to read.
        let t = Instant::now();
        while self.stderr().matches(READY).count() == ready && t.elapsed() < PATIENCE {
            thread::sleep(Duration::from_millis(5));
        }
        Daemon { child, reader: Some(reader) }
    }

    /// Wait until every line in `0..n` has come out.
    fn wait_all(&self, n: u64, limit: Duration) -> bool {
        let t = Instant::now();
        while t.elapsed() < limit {
            if (0..n).all(|i| self.seen.lock().unwrap().counts.contains_key(&i)) {
                return true;
            }
            thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// [`Env::wait_all`] or fail with what is missing and the daemon's diagnostics.
    fn must_catch_up(&self, n: u64, what: &str) {
        if !self.wait_all(n, PATIENCE) {
            let s = self.seen.lock().unwrap();
            let lost: Vec<u64> = (0..n).filter(|i| !s.counts.contains_key(i)).collect();
            let mut whereabouts = String::new();
            for e in fs::read_dir(self.logs()).unwrap().flatten() {
                let text = fs::read_to_string(e.path()).unwrap_or_default();
                for &n in lost.iter().take(3) {
                    if let Some(at) = text.find(line(n).trim_end()) {
                        whereabouts +=
                            &format!("line {n} is in {} at offset {at} (size {})\n", e.path().display(), text.len());
                    }
                }
            }
            let state = fs::read_to_string(self.dir.path().join("state/checkpoints.json")).unwrap_or_default();
            let kept = std::env::temp_dir().join(format!("annotail-failed-{}", std::process::id()));
            let _ = std::process::Command::new("cp").arg("-a").arg(self.dir.path()).arg(&kept).status();
            eprintln!("scenario directory copied to {}", kept.display());
            for ev in s.events.iter().rev().take(12) {
                eprintln!("last events: {} {} {}", ev["source"]["path"], ev["source"]["offset"], ev["message"]);
            }
            panic!(
                "{what}: {} lines missing, first {:?}\n{whereabouts}checkpoints: {state}\n{}",
                lost.len(),
                &lost[..lost.len().min(10)],
                self.stderr()
            );
        }
    }

    fn has(&self, seq: u64) -> bool {
        self.seen.lock().unwrap().counts.contains_key(&seq)
    }

    /// Check and report: every line in `0..written` out at least once, none torn.
    fn verdict(&self, name: &str, written: u64, kills: u32) -> (u64, u64) {
        let ok = self.wait_all(written, PATIENCE);
        let s = self.seen.lock().unwrap();
        let lost: Vec<u64> = (0..written).filter(|i| !s.counts.contains_key(i)).collect();
        let dups: u64 = s.counts.values().map(|&c| u64::from(c) - 1).sum();
        let per_kill =
            if kills > 0 { format!(", {:.1} per kill", dups as f64 / f64::from(kills)) } else { String::new() };
        eprintln!(
            "scenario {name}: written {written}, lost {}, duplicated {dups}{per_kill}, kills {kills}",
            lost.len()
        );
        assert!(s.torn.is_empty(), "{name}: torn events: {:?}", &s.torn[..s.torn.len().min(5)]);
        if !(ok && lost.is_empty()) {
            let mut dup: Vec<u64> = s.counts.iter().filter(|(_, c)| **c > 1).map(|(k, _)| *k).collect();
            dup.sort();
            drop(s);
            self.must_catch_up(written, &format!("{name}: duplicated {:?}", &dup[..dup.len().min(5)]));
            unreachable!("must_catch_up fails when lines are missing");
        }
        assert!(s.counts.keys().all(|&k| k < written || k >= SECOND), "{name}: an event for a line never written");
        (lost.len() as u64, dups)
    }
}

impl Daemon {
    fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        self.reader.take().unwrap().join().unwrap();
    }

    /// SIGTERM; the exit status and how long the exit took.
    fn term(mut self) -> (std::process::ExitStatus, Duration) {
        let t = Instant::now();
        signal(&self.child, "TERM");
        let st = wait_timeout(&mut self.child, PATIENCE).expect("exits after SIGTERM");
        self.reader.take().unwrap().join().unwrap();
        (st, t.elapsed())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.reader.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn signal(child: &Child, sig: &str) {
    let st = std::process::Command::new("kill").arg(format!("-{sig}")).arg(child.id().to_string()).status().unwrap();
    assert!(st.success());
}

fn tail(s: &str) -> &str {
    &s[s.len().saturating_sub(3000)..]
}

fn line(seq: u64) -> String {
    // A RisingWave line: a header, so every line is an event of its own; the sequence number in
    // the first 256 bytes, so every file's first line (its fingerprint) differs.
    format!(
        "2026-11-29T10:{:02}:{:02}.{:06}Z  INFO risingwave_meta::stress: line written seq={seq}\n",
        seq / 60_000_000 % 60,
        seq / 1_000_000 % 60,
        seq % 1_000_000
    )
}

/// The sequence number of an event's message, if the message is exactly a written line.
fn parse_seq(msg: &str) -> Option<u64> {
    let n: u64 = msg.rsplit_once("seq=")?.1.parse().ok()?;
    (line(n).trim_end() == msg).then_some(n)
}

/// The application writing the log: appends through its own descriptor (O_APPEND, as loggers
/// do), in chunks that split lines, and rotates the way it is told.
struct Writer {
    path: PathBuf,
    file: File,
    seq: u64,
    rotations: u32,
    buf: Vec<u8>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rotate {
    /// rename to `name.N`, keep writing a little to the renamed file, then create a new one.
    Rename,
    /// copy to `name.N`, truncate the original in place (the writer keeps its descriptor).
    CopyTruncate,
    /// unlink, keep writing a little to the deleted file, then create a new one.
    DeleteRecreate,
    /// a new file written beside and renamed over the old name.
    Replace,
}

impl Writer {
    fn new(path: PathBuf) -> Writer {
        let file = OpenOptions::new().create(true).append(true).open(&path).unwrap();
        Writer { path, file, seq: 0, rotations: 0, buf: Vec::new() }
    }

    /// Write `n` lines in chunks of about 16 KiB (lines split across writes).
    fn write(&mut self, n: u64) {
        for _ in 0..n {
            self.buf.extend_from_slice(line(self.seq).as_bytes());
            self.seq += 1;
            if self.buf.len() >= 16 << 10 {
                let cut = 16 << 10;
                self.file.write_all(&self.buf[..cut]).unwrap();
                self.buf.drain(..cut);
            }
        }
        self.flush();
    }

    fn flush(&mut self) {
        self.file.write_all(&self.buf).unwrap();
        self.buf.clear();
    }

    fn rotated_name(&mut self) -> PathBuf {
        self.rotations += 1;
        PathBuf::from(format!("{}.{}", self.path.display(), self.rotations))
    }

    fn reopen(&mut self) {
        self.file = OpenOptions::new().create(true).append(true).open(&self.path).unwrap();
    }

    fn rotate(&mut self, how: Rotate) {
        self.flush();
        match how {
            Rotate::Rename => {
                let to = self.rotated_name();
                fs::rename(&self.path, to).unwrap();
                self.write(5);
                self.reopen();
            }
            Rotate::CopyTruncate => {
                let to = self.rotated_name();
                fs::copy(&self.path, to).unwrap();
                self.file.set_len(0).unwrap();
            }
            Rotate::DeleteRecreate => {
                fs::remove_file(&self.path).unwrap();
                self.write(5);
                self.reopen();
            }
            Rotate::Replace => {
                let tmp = PathBuf::from(format!("{}.tmp", self.path.display()));
                self.file = OpenOptions::new().create(true).append(true).open(&tmp).unwrap();
                self.write(3);
                fs::rename(&tmp, &self.path).unwrap();
            }
        }
    }
}

/// Every rotation kind, many times, while the writer writes at full speed. Each rotation waits
/// until the daemon has seen the file's first line: rotations are minutes apart in life, not
/// microseconds (a file deleted before anyone opened it is gone for everyone, and a file
/// copy-truncated several times between two looks of the daemon is a different file each time
/// with the same size; see the README on copytruncate).
#[test]
fn rotation_every_way_loses_no_line() {
    for how in [Rotate::Rename, Rotate::CopyTruncate, Rotate::DeleteRecreate, Rotate::Replace] {
        let env = Env::new();
        let d = env.start("app.log*", &[]);
        let mut w = Writer::new(env.log("app.log"));
        for _ in 0..12 {
            let first = w.seq;
            w.write(3000);
            {
                let t = Instant::now();
                while !env.has(first) && t.elapsed() < PATIENCE {
                    thread::sleep(Duration::from_millis(5));
                }
            }
            w.rotate(how);
        }
        w.write(1000);
        env.verdict(&format!("rotation {how:?} x12"), w.seq, 0);
        let (st, _) = d.term();
        assert!(st.success());
    }
}

/// rename + create with a glob that does not match the rotated name: the renamed file is still
/// read to its end through the open descriptor.
#[test]
fn renamed_file_outside_the_glob_is_read_to_its_end() {
    let env = Env::new();
    let d = env.start("*.log", &[]);
    let mut w = Writer::new(env.log("app.log"));
    for _ in 0..10 {
        w.write(2000);
        w.rotate(Rotate::Rename);
    }
    w.write(500);
    env.verdict("rename, glob *.log", w.seq, 0);
    let t = Instant::now();
    while !env.stderr().contains("finished a rotated or deleted file") && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(env.stderr().contains("finished a rotated or deleted file"), "{}", tail(&env.stderr()));
    d.term();
}

/// SIGKILL at random moments while the writer writes and rotates (rename and copytruncate),
/// restart after each; the run ends with a clean SIGTERM. Scale with ANNOTAIL_SOAK=full
/// (1,000,000 lines, 50 rotations, 20 kills) for the figures in the issue.
#[test]
fn kill9_during_rotation_loses_no_line() {
    let full = std::env::var("ANNOTAIL_SOAK").is_ok_and(|v| v == "full");
    let (lines, rotations, kills) = if full { (1_000_000u64, 50u32, 20u32) } else { (150_000, 10, 6) };
    let env = Env::new();
    let glob = "app.log*";
    let mut d = Some(env.start(glob, &[]));
    let writer_env = env.log("app.log");
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let done = done.clone();
        thread::spawn(move || {
            let mut w = Writer::new(writer_env);
            let per = lines / u64::from(rotations + 1);
            let mut rng = Rng::new(7);
            for r in 0..=rotations {
                // Spread the writing over a few seconds so that kills land in the middle of it.
                let mut left = if r == rotations { lines - w.seq } else { per };
                while left > 0 {
                    let k = left.min(2000);
                    w.write(k);
                    left -= k;
                    thread::sleep(Duration::from_millis(if full { 6 } else { 4 }));
                }
                if r < rotations {
                    w.rotate(if rng.next_u64().is_multiple_of(2) { Rotate::Rename } else { Rotate::CopyTruncate });
                }
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            w.seq
        })
    };
    let mut rng = Rng::new(11);
    let mut killed = 0;
    while killed < kills {
        thread::sleep(Duration::from_millis(100 + rng.next_u64() % 300));
        d.take().unwrap().kill9();
        killed += 1;
        if rng.next_u64().is_multiple_of(3) {
            // Down for a while: the writer goes on (and may rotate) meanwhile.
            thread::sleep(Duration::from_millis(rng.next_u64() % 200));
        }
        d = Some(env.start(glob, &[]));
    }
    let written = writer.join().unwrap();
    assert!(done.load(std::sync::atomic::Ordering::SeqCst));
    env.verdict(&format!("kill -9 x{kills}, {rotations} rotations"), written, kills);
    let (st, _) = d.take().unwrap().term();
    assert!(st.success());
}

/// A random sequence of writes, rotations, truncations, deletions, graceful restarts and kills,
/// checked against what must come out: every line written. Destructive steps (truncate, delete)
/// first wait until the daemon has read what they destroy, as any reader would have to.
#[test]
fn model_random_operation_sequences() {
    let seeds: Vec<u64> = match std::env::var("ANNOTAIL_MODEL_SEEDS") {
        Ok(v) => v.split(',').map(|s| s.parse().unwrap()).collect(),
        Err(_) => (1..=4).collect(),
    };
    for seed in seeds {
        let env = Env::new();
        let mut rng = Rng::new(seed);
        let mut d = Some(env.start("*.log*", &[]));
        let mut w = Writer::new(env.log("app.log"));
        let mut second = Writer::new(env.log("other.log"));
        second.seq = SECOND;
        let mut second_first = second.seq;
        let mut ops = Vec::new();
        let mut kills = 0;
        for _ in 0..40 {
            let op = rng.next_u64() % 10;
            match op {
                0..=2 => w.write(1 + rng.next_u64() % 3000),
                3 => w.rotate(Rotate::Rename),
                4 => w.rotate(Rotate::CopyTruncate),
                5 => {
                    // Truncate in place (no copy): only after everything was read.
                    w.flush();
                    env.must_catch_up(w.seq, &format!("seed {seed}: before truncating, after {ops:?}"));
                    w.file.set_len(0).unwrap();
                }
                6 => {
                    env.must_catch_up(w.seq, &format!("seed {seed}: before deleting, after {ops:?}"));
                    w.rotate(Rotate::DeleteRecreate);
                    // The lines written to the deleted file exist only while someone holds it:
                    // a kill before the daemon read them would lose them for anyone.
                    env.must_catch_up(w.seq, &format!("seed {seed}: the deleted file's last lines"));
                }
                7 => {
                    d.take().unwrap().kill9();
                    kills += 1;
                    if rng.next_u64().is_multiple_of(2) {
                        w.write(1 + rng.next_u64() % 500);
                    }
                    d = Some(env.start("*.log*", &[]));
                }
                8 => {
                    let (st, _) = d.take().unwrap().term();
                    assert!(st.success(), "seed {seed}: SIGTERM exit status {st}");
                    w.write(1 + rng.next_u64() % 500);
                    d = Some(env.start("*.log*", &[]));
                }
                _ => second.write(1 + rng.next_u64() % 200),
            }
            ops.push(op);
            thread::sleep(Duration::from_millis(rng.next_u64() % 30));
        }
        let (lost, dups) = env.verdict(&format!("model seed {seed}"), w.seq, kills);
        let s = env.seen.lock().unwrap();
        let lost2 = (second_first..second.seq).filter(|i| !s.counts.contains_key(i)).count();
        drop(s);
        assert_eq!(lost2, 0, "seed {seed}: lines of the second file lost");
        second_first = second.seq;
        let _ = (lost, dups, second_first);
        d.take().unwrap().term();
    }
}

/// Truncation, deletion, a file that appears after the start, a glob that gains files.
#[test]
fn truncation_deletion_and_new_files() {
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(100);
    let d = env.start("*.log", &[]);
    assert!(env.wait_all(100, PATIENCE));
    // Truncated to nothing, then written again: read from the start.
    w.file.set_len(0).unwrap();
    w.write(100);
    assert!(env.wait_all(200, PATIENCE), "after truncation\n{}", tail(&env.stderr()));
    // A new file that matches, and one in a subdirectory that does not.
    let mut b = Writer::new(env.log("b.log"));
    b.seq = 200;
    b.write(100);
    fs::create_dir(env.log("sub")).unwrap();
    fs::write(env.log("sub/c.log"), line(999_999)).unwrap();
    assert!(env.wait_all(300, PATIENCE), "new file\n{}", tail(&env.stderr()));
    // Deleted: finished and dropped, the others go on.
    fs::remove_file(env.log("a.log")).unwrap();
    b.write(50);
    assert!(env.wait_all(350, PATIENCE));
    let t = Instant::now();
    while !env.stderr().contains("finished a rotated or deleted file") && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(!env.has(999_999), "sub/c.log is not matched by *.log");
    let (st, _) = d.term();
    assert!(st.success());
    let state = fs::read_to_string(env.dir.path().join("state/checkpoints.json")).unwrap();
    assert!(!state.contains("/a.log\""), "the deleted file's checkpoint is dropped: {state}");
    assert!(state.contains("/b.log\""), "{state}");
    env.verdict("truncate, delete, new files", 350, 0);
}

/// A partial line is never checkpointed as read: killed while it is held, the restarted daemon
/// emits it once complete.
#[test]
fn partial_line_survives_kill9() {
    let env = Env::new();
    let slow = ["--line-timeout", "60s"];
    let d = env.start("*.log", &slow);
    let mut f = OpenOptions::new().create(true).append(true).open(env.log("a.log")).unwrap();
    f.write_all(line(0).as_bytes()).unwrap();
    // Enough of the next line to show it starts an event: line 0 is complete (idle timeout).
    f.write_all(&line(1).as_bytes()[..60]).unwrap();
    assert!(env.wait_all(1, PATIENCE));
    thread::sleep(Duration::from_millis(300)); // a checkpoint is written meanwhile
    d.kill9();
    f.write_all(&line(1).as_bytes()[60..]).unwrap();
    let d = env.start("*.log", &slow);
    env.verdict("partial line across kill -9", 2, 1);
    d.term();
}

/// The same event read again after a kill has the same event_id.
#[test]
fn event_id_is_stable_across_restarts() {
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(2000);
    let d = env.start("*.log", &["--checkpoint-interval", "1h"]);
    assert!(env.wait_all(2000, PATIENCE));
    d.kill9();
    // No checkpoint was written: everything comes out again.
    let d = env.start("*.log", &[]);
    let t = Instant::now();
    while env.seen.lock().unwrap().counts.values().any(|&c| c < 2) && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    let s = env.seen.lock().unwrap();
    for (seq, ids) in &s.ids {
        assert_eq!(ids.len(), 2, "line {seq}");
        assert_eq!(ids[0], ids[1], "line {seq}: the same event, the same id");
        assert_eq!(ids[0].len(), 16);
    }
    let distinct: std::collections::HashSet<&String> = s.ids.values().map(|v| &v[0]).collect();
    assert_eq!(distinct.len(), 2000, "distinct events, distinct ids");
    drop(s);
    d.term();
}

/// SIGTERM drains, writes the final checkpoint (at the end of the file) and exits 0; the next
/// start repeats nothing.
#[test]
fn sigterm_drains_checkpoints_and_exits_zero() {
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(5000);
    let d = env.start("*.log", &["--checkpoint-interval", "1h"]);
    // Line 4999 out means its idle timeout passed: its mark is in the batch that carried it.
    assert!(env.wait_all(5000, PATIENCE));
    let (st, took) = d.term();
    assert!(st.success(), "{st}");
    assert!(took < Duration::from_secs(10), "exits within the shutdown timeout: {took:?}");
    let state: serde_json::Value =
        serde_json::from_slice(&fs::read(env.dir.path().join("state/checkpoints.json")).unwrap()).unwrap();
    assert_eq!(state["version"], 1);
    let size = fs::metadata(env.log("a.log")).unwrap().len();
    assert_eq!(state["files"][0]["offset"], size, "{state}");
    assert_eq!(state["files"][0]["line"], 5000);
    let d = env.start("*.log", &[]);
    w.write(10);
    assert!(env.wait_all(5010, PATIENCE));
    d.term();
    let (_, dups) = env.verdict("sigterm and restart", 5010, 0);
    assert_eq!(dups, 0, "a clean stop repeats nothing");
}

/// SIGHUP under load: a broken catalog is reported and the old one kept; a good one is swapped
/// in; no line is lost or repeated across 20 reloads.
#[test]
fn sighup_reload_under_load_loses_and_repeats_nothing() {
    let env = Env::new();
    let catalog = env.dir.path().join("catalog.jsonl");
    let d = env.start("*.log", &[]);
    let mut w = Writer::new(env.log("a.log"));
    w.write(1);
    assert!(env.wait_all(1, PATIENCE), "started");
    let good = common::TEST_CATALOG.to_owned() + STRESS_RECORD;
    let failures = || env.stderr().matches("reload failed").count();
    for i in 0..20 {
        w.write(2000);
        let broken = i % 5 == 2;
        let failed_before = failures();
        if broken {
            fs::write(&catalog, "{\"id\": broken\n").unwrap();
        } else {
            fs::write(&catalog, &good).unwrap();
        }
        signal(&d.child, "HUP");
        w.write(500);
        thread::sleep(Duration::from_millis(30));
        // The broken catalog must be read before the next good one replaces it: a slower
        // reload (a debug build, a loaded machine) read only the good one, and no failure was
        // reported to look for below.
        let t = Instant::now();
        while broken && failures() == failed_before && t.elapsed() < PATIENCE {
            thread::sleep(Duration::from_millis(20));
        }
    }
    let written = w.seq;
    let (_, dups) = env.verdict("20 reloads under load", written, 0);
    assert_eq!(dups, 0, "a reload repeats nothing");
    let err = env.stderr();
    assert!(err.contains("reload failed"), "{}", tail(&err));
    assert!(err.contains("reloaded"), "{}", tail(&err));
    // After the last (good) reload, the new record annotates new lines.
    let s = env.seen.lock().unwrap();
    let last = s.events.iter().rev().find(|e| e["match"]["id"] == "t-stress");
    assert!(last.is_some(), "the reloaded catalog is in use");
    drop(s);
    d.term();
}

/// A file that cannot be read is reported by name; the others are followed.
#[test]
fn unreadable_file_is_reported_and_others_continue() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(10);
    fs::write(env.log("secret.log"), line(500)).unwrap();
    fs::set_permissions(env.log("secret.log"), fs::Permissions::from_mode(0o000)).unwrap();
    // Not a regular file: skipped and named too, and not taken off the followed files' count
    // twice (found by a third reader: `files=0`).
    assert!(std::process::Command::new("mkfifo").arg(env.log("pipe.log")).status().unwrap().success());
    // root reads anything: run the daemon as nobody then (the directory must let it in).
    let root = nix_euid_is_root();
    let mut d = if root {
        fs::set_permissions(env.dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
        fs::set_permissions(env.logs(), fs::Permissions::from_mode(0o777)).unwrap();
        fs::set_permissions(env.dir.path().join("catalog.jsonl"), fs::Permissions::from_mode(0o644)).unwrap();
        fs::set_permissions(env.log("a.log"), fs::Permissions::from_mode(0o644)).unwrap();
        start_as_nobody(&env, &[])
    } else {
        env.start("*.log", &[])
    };
    assert!(env.wait_all(10, PATIENCE), "{}", tail(&env.stderr()));
    w.write(10);
    assert!(env.wait_all(20, PATIENCE));
    let err = env.stderr();
    assert!(
        err.contains("secret.log") && err.contains("Permission denied") && err.contains("other files continue"),
        "{}",
        tail(&err)
    );
    assert_eq!(err.matches("secret.log").count(), 1, "reported once, not on every poll: {err}");
    // regression (found by a second reader): the start-up line counted it as followed.
    assert!(err.contains("initial scan done; following files=1 unreadable=2"), "{}", tail(&err));
    assert!(!env.has(500));
    signal(&d.child, "TERM");
    assert!(wait_timeout(&mut d.child, PATIENCE).unwrap().success());
    d.reader.take().unwrap().join().unwrap();
}

fn nix_euid_is_root() -> bool {
    let out = std::process::Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

/// [`Env::start`] as user nobody (through setpriv), with a state directory nobody can write.
fn start_as_nobody(env: &Env, extra: &[&str]) -> Daemon {
    let err = OpenOptions::new().create(true).append(true).open(env.dir.path().join("stderr.log")).unwrap();
    let mut c = std::process::Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", common::bin()]);
    c.arg("--follow").arg(format!("{}/*.log", env.logs().display()));
    c.args(["--all", "--format", "json", "--log-level", "info", "--poll-interval", "50ms"]);
    c.arg("--state-dir").arg(env.dir.path().join("state")).arg("-c").arg(env.dir.path().join("catalog.jsonl"));
    c.args(extra);
    c.stdout(Stdio::piped()).stderr(err);
    let mut child = c.spawn().expect("setpriv (util-linux)");
    let out = child.stdout.take().unwrap();
    let seen = env.seen.clone();
    let reader = thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let ev: serde_json::Value = serde_json::from_str(&line).unwrap();
            if let Some(n) = parse_seq(ev["message"].as_str().unwrap_or("")) {
                *seen.lock().unwrap().counts.entry(n).or_default() += 1;
            }
        }
    });
    Daemon { child, reader: Some(reader) }
}

/// A state directory that cannot be created or written is a clear error at start (exit 2).
#[test]
fn unusable_state_directory_is_a_clear_error() {
    let env = Env::new();
    fs::write(env.dir.path().join("file"), b"").unwrap();
    let out = cmd()
        .arg("--follow")
        .arg(format!("{}/*.log", env.logs().display()))
        .arg("--state-dir")
        .arg(env.dir.path().join("file/state"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot use state directory") && err.contains("file/state") && err.contains("--state-dir"),
        "{err}"
    );
    // Two daemons on one state directory: the second is refused.
    // Started means its state directory is locked (the lock is taken before the first scan).
    let d = env.start("*.log", &[]);
    let out = cmd()
        .arg("--follow")
        .arg(format!("{}/*.log", env.logs().display()))
        .arg("--state-dir")
        .arg(env.dir.path().join("state"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("in use by another annotail"));
    d.term();
}

/// The state directory deleted under a running daemon (and a second daemon started on it): the
/// first stops with exit status 2 at its next checkpoint, instead of going on with a lock that
/// holds nothing (both delivered the same lines).
#[test]
fn regression_a_deleted_state_directory_stops_the_daemon() {
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(10);
    let mut first = env.start("*.log", &[]);
    env.must_catch_up(10, "started");
    fs::remove_dir_all(env.dir.path().join("state")).unwrap();
    let second = env.start("*.log", &[]);
    w.write(10);
    let st = wait_timeout(&mut first.child, PATIENCE).expect("the first daemon stops");
    first.reader.take().unwrap().join().unwrap();
    assert_eq!(st.code(), Some(2), "{}", tail(&env.stderr()));
    assert!(env.stderr().contains("lock file is gone or replaced"), "{}", tail(&env.stderr()));
    second.term();
}

/// When the output does not keep up, reading pauses: memory stays bounded however far behind
/// the daemon is, and nothing is lost once the output drains.
#[test]
fn slow_output_pauses_reading_with_bounded_memory() {
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(1_000_000); // ~75 MB of input, ~400 MB of --all output
    let state = env.dir.path().join("state");
    let mut child = cmd()
        .arg("--follow")
        .arg(format!("{}/*.log", env.logs().display()))
        .args(["--all", "--format", "json", "-c"])
        .arg(env.dir.path().join("catalog.jsonl"))
        .arg("--state-dir")
        .arg(&state)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Nobody reads for a second: the pipe fills, the sink blocks, so must the reader.
    thread::sleep(Duration::from_secs(1));
    let status = fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let hwm_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    eprintln!("scenario slow output: peak RSS while blocked {} MiB", hwm_kib / 1024);
    assert!(hwm_kib < 96 * 1024, "peak RSS {hwm_kib} KiB while the output is blocked");
    let out = child.stdout.take().unwrap();
    let mut counts = vec![0u8; 1_000_000];
    let mut n = 0;
    for l in BufReader::new(out).lines().map_while(Result::ok) {
        let ev: serde_json::Value = serde_json::from_str(&l).unwrap();
        let s = parse_seq(ev["message"].as_str().unwrap()).unwrap();
        counts[s as usize] = counts[s as usize].saturating_add(1);
        n += 1;
        if n == 1_000_000 {
            break;
        }
    }
    assert!(counts.iter().all(|&c| c == 1), "every line once");
    signal(&child, "TERM");
    assert!(wait_timeout(&mut child, PATIENCE).unwrap().success());
}

/// Config errors name the key; `check --config` validates a config and its catalog.
#[test]
fn config_file_errors_name_the_key() {
    let env = Env::new();
    let cfg = env.dir.path().join("annotail.toml");
    fs::write(&cfg, "[input]\nstart_at = \"end\"\nwatch = \"sometimes\"\n").unwrap();
    let out = cmd().arg("--config").arg(&cfg).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("annotail.toml") && err.contains("line 3") && err.contains("sometimes"), "{err}");
    fs::write(&cfg, "catalog = [\"catalog.jsonl\"]\n[[sources]]\npaths = [\"logs/*.log\"]\n[state]\ndir = \"state\"\n")
        .unwrap();
    let out = cmd().arg("check").arg("--config").arg(&cfg).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("5 record(s) read"));
    // The config alone starts the daemon (its [[sources]]); relative paths are the file's.
    let mut w = Writer::new(env.log("a.log"));
    w.write(3);
    let mut child =
        cmd().arg("--config").arg(&cfg).arg("--all").stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for i in 0..3 {
        let ev: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        assert_eq!(parse_seq(ev["message"].as_str().unwrap()), Some(i));
    }
    signal(&child, "TERM");
    assert!(wait_timeout(&mut child, PATIENCE).unwrap().success());
    assert!(env.dir.path().join("state/checkpoints.json").exists());
}

/// Diagnostics as JSON on standard error (`--log-format json`), never on standard output.
#[test]
fn diagnostics_can_be_json_lines() {
    let env = Env::new();
    // A state directory whose lock another process holds gives a quick exit, after a first
    // diagnostic (one that cannot be created or written is refused before any).
    let state = env.dir.path().join("state");
    fs::create_dir_all(&state).unwrap();
    let lock = fs::OpenOptions::new().create(true).truncate(false).write(true).open(state.join("lock")).unwrap();
    lock.lock().unwrap();
    let out = cmd()
        .arg("--follow")
        .arg(format!("{}/*.log", env.logs().display()))
        .args(["--log-format", "json", "--log-level", "info", "--state-dir"])
        .arg(&state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().next().expect("a diagnostic");
    let v: serde_json::Value = serde_json::from_str(first).unwrap_or_else(|e| panic!("{e}: {first}"));
    assert_eq!(v["level"], "INFO", "{v}");
    assert!(v["fields"]["message"].is_string(), "{v}");
}

/// The catalog is watched: a changed catalog is swapped in while lines keep flowing (no SIGHUP),
/// a broken one is reported and the old one kept.
#[test]
fn a_changed_catalog_is_reloaded_without_a_signal() {
    let env = Env::new();
    let catalog = env.dir.path().join("catalog.jsonl");
    let d = env.start("*.log", &[]);
    let mut w = Writer::new(env.log("a.log"));
    w.write(10);
    env.must_catch_up(10, "started");
    let matched = |env: &Env| env.seen.lock().unwrap().events.iter().any(|e| e["match"]["id"] == "t-stress");
    // Broken: reported, the old catalog kept, lines still flow.
    fs::write(&catalog, "{\"id\": broken\n").unwrap();
    let t = Instant::now();
    while !env.stderr().contains("reload failed") && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(env.stderr().contains("the catalog or config changed on disk"), "{}", tail(&env.stderr()));
    w.write(10);
    env.must_catch_up(20, "after a broken catalog");
    assert!(!matched(&env));
    // Fixed, with a new record: new lines are annotated with it.
    fs::write(&catalog, format!("{}{STRESS_RECORD}", common::TEST_CATALOG)).unwrap();
    let t = Instant::now();
    while env.stderr().matches("reloaded").count() == 0 && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    w.write(10);
    env.must_catch_up(30, "after the new catalog");
    let t = Instant::now();
    while !matched(&env) && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(matched(&env), "the new record annotates new lines\n{}", tail(&env.stderr()));
    d.term();
    let (_, dups) = env.verdict("catalog watched", 30, 0);
    assert_eq!(dups, 0);
}

/// A reload whose catalog has a pattern bomb (a 100 KB pattern) is refused and the running
/// catalog kept: it was applied with a warning, and its record never matched again.
#[test]
fn regression_a_reload_with_a_pattern_bomb_keeps_the_running_catalog() {
    let env = Env::new();
    let catalog = env.dir.path().join("catalog.jsonl");
    fs::write(&catalog, format!("{}{STRESS_RECORD}", common::TEST_CATALOG)).unwrap();
    let d = env.start("*.log", &[]);
    let mut w = Writer::new(env.log("a.log"));
    w.write(10);
    env.must_catch_up(10, "started");
    let bomb = format!(
        "{{\"id\":\"t-stress\",\"errorMessage\":\"line written seq={{n}}\",\"messagePattern\":\"line written seq=(.+?){}\"}}\n",
        "(a?)".repeat(25_000)
    );
    fs::write(&catalog, format!("{}{bomb}", common::TEST_CATALOG)).unwrap();
    let t = Instant::now();
    while !env.stderr().contains("reload failed") && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    let err = env.stderr();
    assert!(err.contains("reload failed") && err.contains("t-stress") && err.contains("the limit is"), "{}", tail(&err));
    w.write(10);
    env.must_catch_up(20, "after the refused reload");
    let s = env.seen.lock().unwrap();
    let matched = s.events.iter().filter(|e| e["match"]["id"] == "t-stress").count();
    assert_eq!(matched, s.events.len(), "every line still annotated by the running catalog");
    drop(s);
    d.term();
}

/// A followed directory that cannot be listed for a while (EACCES here; EMFILE does the same)
/// says nothing about its files: they are not taken for rotated away, dropped and read again
/// from the start (a 100,000-line file was delivered twice).
#[test]
fn regression_a_failed_directory_listing_is_not_rotation() {
    use std::os::unix::fs::PermissionsExt;
    if !nix_euid_is_root() {
        eprintln!("skipped: needs root to run the daemon as another user");
        return;
    }
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(100);
    for p in [env.dir.path().to_owned(), env.logs()] {
        fs::set_permissions(&p, fs::Permissions::from_mode(0o777)).unwrap();
    }
    fs::set_permissions(env.dir.path().join("catalog.jsonl"), fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(env.log("a.log"), fs::Permissions::from_mode(0o666)).unwrap();
    let d = start_as_nobody(&env, &["--rotate-wait", "300ms", "--checkpoint-interval", "100ms"]);
    assert!(env.wait_all(100, PATIENCE), "{}", tail(&env.stderr()));
    // Unlistable for ten rotate_waits (as root, the writer still writes).
    fs::set_permissions(env.logs(), fs::Permissions::from_mode(0o300)).unwrap();
    thread::sleep(Duration::from_secs(3));
    w.write(10);
    fs::set_permissions(env.logs(), fs::Permissions::from_mode(0o777)).unwrap();
    w.write(10);
    assert!(env.wait_all(120, PATIENCE), "{}", tail(&env.stderr()));
    thread::sleep(Duration::from_millis(500));
    let dups: u64 = env.seen.lock().unwrap().counts.values().map(|&c| u64::from(c) - 1).sum();
    assert_eq!(dups, 0, "nothing read twice\n{}", tail(&env.stderr()));
    assert!(!env.stderr().contains("finished a rotated or deleted file"), "{}", tail(&env.stderr()));
    signal(&d.child, "TERM");
    let mut d = d;
    assert!(wait_timeout(&mut d.child, PATIENCE).unwrap().success());
    d.reader.take().unwrap().join().unwrap();
}

/// Real logrotate with `copytruncate` on a followed `meta.log*`: the copy appears while
/// logrotate is still writing it, shorter than what was read of the original; it was taken for
/// a new file and read from its start (200,000 lines gave 400,000 events, the repeats with new
/// event ids). Every line comes out once.
#[test]
fn regression_logrotate_copytruncate_delivers_each_line_once() {
    const N: u64 = 200_000;
    let Some(logrotate) = ["/usr/sbin/logrotate", "/sbin/logrotate"].into_iter().find(|p| Path::new(p).exists()) else {
        assert!(std::env::var_os("CI").is_none(), "logrotate is missing (.ci/run installs it)");
        eprintln!("skipped: logrotate is not installed");
        return;
    };
    let env = Env::new();
    let mut w = Writer::new(env.log("meta.log"));
    w.write(N);
    let d = env.start("meta.log*", &[]);
    env.must_catch_up(N, "before the rotation");
    let conf = env.dir.path().join("logrotate.conf");
    fs::write(&conf, format!("{} {{\n  copytruncate\n  rotate 5\n  nocompress\n  missingok\n}}\n", env.log("meta.log").display())).unwrap();
    let st = std::process::Command::new(logrotate)
        .arg("-f")
        .arg("-s")
        .arg(env.dir.path().join("logrotate.state"))
        .arg(&conf)
        .status()
        .unwrap();
    assert!(st.success(), "logrotate failed");
    assert!(env.log("meta.log.1").exists(), "logrotate made the copy");
    w.write(10);
    env.must_catch_up(N + 10, "after the rotation");
    // Long enough for a copy read again from its start to show.
    thread::sleep(Duration::from_secs(2));
    d.term();
    let (_, dups) = env.verdict("logrotate copytruncate", N + 10, 0);
    assert_eq!(dups, 0, "every line once\n{}", tail(&env.stderr()));
}

/// Found by a second reader: a copytruncate made while the original's last event was still
/// open (its line waiting out `--idle-timeout`) started the copy at that event, and the original
/// emitted it too: one event twice at every rotation of a busy log, the same line counted twice
/// by `--unknown`. A long idle timeout holds the event open across the copy here.
#[test]
fn regression_a_copytruncate_while_the_last_event_is_open_delivers_it_once() {
    let env = Env::new();
    let mut w = Writer::new(env.log("meta.log"));
    let d = env.start("meta.log*", &["--idle-timeout", "1500"]);
    w.write(3);
    env.must_catch_up(2, "before the copy");
    thread::sleep(Duration::from_millis(100));
    assert!(!env.has(2), "the last event is still open");
    fs::copy(env.log("meta.log"), env.log("meta.log.1")).unwrap();
    w.file.set_len(0).unwrap();
    thread::sleep(Duration::from_millis(2500));
    w.write(2);
    env.must_catch_up(5, "after the rotation");
    thread::sleep(Duration::from_millis(500));
    d.term();
    let (_, dups) = env.verdict("copytruncate over an open event", 5, 0);
    assert_eq!(dups, 0, "every line once\n{}", tail(&env.stderr()));
}

/// Found by a second reader: after the followed glob's directory was removed and made again
/// (a redeploy, a volume mounted again), inotify watched nothing: lines came out only with the
/// poll, about 100 times later, and nothing said so. The new directory is watched again.
#[test]
fn regression_a_directory_made_again_is_watched_again() {
    let env = Env::new();
    let mut w = Writer::new(env.log("meta.log"));
    w.write(1);
    let d = env.start("*.log", &["--poll-interval", "5s"]);
    env.must_catch_up(1, "before");
    fs::remove_dir_all(env.logs()).unwrap();
    thread::sleep(Duration::from_millis(300));
    fs::create_dir(env.logs()).unwrap();
    let mut w = Writer {
        path: env.log("meta.log"),
        file: File::create(env.log("meta.log")).unwrap(),
        seq: 1,
        rotations: 0,
        buf: Vec::new(),
    };
    w.write(1);
    // Found at the next poll at the latest.
    env.must_catch_up(2, "the file in the new directory");
    for n in 3..6 {
        let t = Instant::now();
        w.write(1);
        while !env.has(n - 1) {
            assert!(
                t.elapsed() < Duration::from_millis(2500),
                "line {} waited for the poll\n{}",
                n - 1,
                tail(&env.stderr())
            );
            thread::sleep(Duration::from_millis(10));
        }
    }
    d.term();
    assert!(env.stderr().contains("a watched directory was removed or made again"), "{}", tail(&env.stderr()));
}

/// A copytruncate while the daemon was down after a kill -9: what it had delivered without a
/// checkpoint is delivered again from the copy, with the ids it had (they were the copy's own,
/// new ids, so a downstream could not drop the repeats).
#[test]
fn regression_events_read_again_from_a_copy_keep_their_ids() {
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(1000);
    let d = env.start("a.log*", &["--checkpoint-interval", "1h"]);
    env.must_catch_up(1000, "first run");
    d.term();
    let d = env.start("a.log*", &["--checkpoint-interval", "1h"]);
    w.write(1000);
    env.must_catch_up(2000, "second run");
    d.kill9();
    // copytruncate, while nothing follows the file.
    fs::copy(env.log("a.log"), env.log("a.log.1")).unwrap();
    OpenOptions::new().write(true).open(env.log("a.log")).unwrap().set_len(0).unwrap();
    let d = env.start("a.log*", &[]);
    let t = Instant::now();
    while !(1000..2000).all(|i| env.seen.lock().unwrap().counts.get(&i).is_some_and(|&c| c >= 2)) && t.elapsed() < PATIENCE {
        thread::sleep(Duration::from_millis(20));
    }
    d.term();
    let s = env.seen.lock().unwrap();
    for i in 1000..2000u64 {
        let ids = &s.ids[&i];
        assert!(ids.len() >= 2, "line {i} delivered again\n{}", tail(&env.stderr()));
        assert!(ids.iter().all(|id| id == &ids[0]), "line {i}: one id, got {ids:?}");
    }
    assert!((0..1000u64).all(|i| s.counts[&i] == 1), "the checkpointed part is not read again");
}

/// The daemon's skim learns which words are common from the end of the first followed file
/// (README, "Performance"); files that do not exist yet teach it nothing.
#[test]
fn the_skim_learns_from_the_end_of_a_followed_file() {
    let env = Env::new();
    let mut w = Writer::new(env.log("a.log"));
    w.write(20_000);
    let size = fs::metadata(env.log("a.log")).unwrap().len();
    assert!(size > 1 << 18, "{size} bytes");
    for (glob, want) in [("*.log", "input=262144"), ("none-yet-*.log", "input=0")] {
        let err = env.dir.path().join(format!("{}.err", want.len() + glob.len()));
        let mut child = cmd()
            .arg("--follow")
            .arg(format!("{}/{glob}", env.logs().display()))
            .args(["--start-at", "end", "--log-level", "debug", "--state-dir"])
            .arg(env.dir.path().join(format!("state-{}", glob.len())))
            .arg("-c")
            .arg(env.dir.path().join("catalog.jsonl"))
            .stdout(Stdio::null())
            .stderr(fs::File::create(&err).unwrap())
            .spawn()
            .unwrap();
        let t = Instant::now();
        while !fs::read_to_string(&err).unwrap().contains(READY) && t.elapsed() < PATIENCE {
            thread::sleep(Duration::from_millis(20));
        }
        signal(&child, "TERM");
        wait_timeout(&mut child, PATIENCE).expect("exits after SIGTERM");
        let text = fs::read_to_string(&err).unwrap();
        let built = text.lines().find(|l| l.contains("gram statistics built")).unwrap_or_else(|| panic!("{text}"));
        assert!(built.contains(want), "{glob}: {built}");
    }
}
