//! Helpers shared by the integration tests: run the real `annotail` binary through real pipes
//! and real files, parse its JSON output, and check the invariants every run must keep.
//!
//! Each test file is its own crate and uses a different subset of these helpers.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Upper bound for anything that has to happen "soon" (an event to arrive, a process to exit).
/// Only a bound for failing instead of hanging: nothing measures how fast it happens. Generous,
/// because the debug binary loads the embedded catalog in a few seconds and tests run in parallel.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// A bound on the binary's CPU time, given for the release build that README's test command
/// runs: a debug build (`cargo test` without `--release`) scans about 40 times slower (20.4 s
/// against 0.5 s for `repeats.rs`'s storm), so its bound is 30 times the release one. Still
/// under what each pinned bug cost in the release build times that slowdown.
pub fn cpu_bound(release_secs: f64) -> f64 {
    if cfg!(debug_assertions) { release_secs * 30.0 } else { release_secs }
}

/// A small catalog in the user's record shape (JSON Lines of bare records). Tests use it instead
/// of the embedded catalog where they need exact expectations; it also loads in milliseconds.
pub const TEST_CATALOG: &str = r#"{"id":"t-split","slug":"barrier-collect","severity":"warning","errorClass":"anyhow::Error","errorMessage":"barrier collection failed for actor {actor_id}","messagePattern":"barrier collection failed for actor (.+?)","solutions":["restart the actor","check the compute node"],"tags":["barrier"]}
{"id":"t-quote","slug":"column-ambiguous","severity":"error","errorMessage":"column \"{name}\" is ambiguous","messagePattern":"column \"(.+?)\" is ambiguous"}
{"id":"t-inner","slug":"duplicate-key","errorMessage":"duplicate key value violates unique constraint {constraint}","messagePattern":"duplicate key value violates unique constraint (.+?)"}
{"id":"t-ml","slug":"not-supported-hint","errorMessage":"Not supported: {0}\nHINT: {1}","messagePattern":"Not supported: (.+?)\\nHINT: (.+?)"}
{"id":"t-panic","slug":"unwrap-on-none","errorMessage":"called `Option::unwrap()` on a `None` value","messagePattern":"called `Option::unwrap\\(\\)` on a `None` value"}
"#;

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_annotail")
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn example_log() -> PathBuf {
    manifest_dir().join("examples/meta.log")
}

/// Physical line `n` (1-based) of `examples/meta.log`, without its line break.
pub fn example_line(n: usize) -> String {
    let text = std::fs::read_to_string(example_log()).expect("read examples/meta.log");
    text.lines().nth(n - 1).expect("examples/meta.log has that line").to_owned()
}

/// Line 37 of the example: an ERROR line whose primary record is `fbd08573f7d46450` (truth file).
pub const LINE37_PRIMARY: &str = "fbd08573f7d46450";

pub fn cmd() -> Command {
    let mut c = Command::new(bin());
    // The tests decide about colours and diagnostics themselves.
    c.env_remove("NO_COLOR").env_remove("RUST_LOG").env_remove("COLUMNS").env_remove("CLICOLOR_FORCE");
    c
}

/// A temporary directory holding [`TEST_CATALOG`] as `catalog.jsonl`.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub catalog: PathBuf,
}

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let catalog = dir.path().join("catalog.jsonl");
    std::fs::write(&catalog, TEST_CATALOG).expect("write catalog");
    Fixture { dir, catalog }
}

impl Fixture {
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, bytes).expect("write fixture file");
        p
    }

    /// `annotail -c <test catalog> ARGS`, with `input` on standard input.
    pub fn run(&self, args: &[&str], input: &[u8]) -> Output {
        let mut full: Vec<String> = vec!["-c".into(), self.catalog.display().to_string()];
        full.extend(args.iter().map(|s| s.to_string()));
        run(&full, input)
    }
}

/// Run the binary to its end with `input` fed on standard input from a writer thread (so a large
/// input cannot deadlock against a full output pipe).
/// Start annotail on the fixture catalog with piped standard input, output and error.
pub fn spawn_piped(fx: &Fixture) -> Child {
    cmd()
        .args(["-c", &path_str(&fx.catalog)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

pub fn run<S: AsRef<std::ffi::OsStr>>(args: &[S], input: &[u8]) -> Output {
    run_cmd(cmd().args(args), input)
}

pub fn run_cmd(c: &mut Command, input: &[u8]) -> Output {
    let mut child =
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn annotail");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = thread::spawn(move || {
        // The process may legitimately stop reading early (a usage error): ignore EPIPE.
        let _ = stdin.write_all(&input);
    });
    let out = wait_output(child);
    writer.join().expect("writer thread");
    out
}

/// Collect stdout and stderr (those still piped) and wait, failing the test if the process does not end in time.
pub fn wait_output(mut child: Child) -> Output {
    let so = child.stdout.take();
    let se = child.stderr.take();
    let drain = |r: Option<Box<dyn Read + Send>>| {
        thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                r.read_to_end(&mut v).expect("read child output");
            }
            v
        })
    };
    let t_out = drain(so.map(|r| Box::new(r) as Box<dyn Read + Send>));
    let t_err = drain(se.map(|r| Box::new(r) as Box<dyn Read + Send>));
    let status = wait_timeout(&mut child, PATIENCE).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("annotail did not exit within {PATIENCE:?}");
    });
    Output { status, stdout: t_out.join().expect("stdout thread"), stderr: t_err.join().expect("stderr thread") }
}

/// Wait for `child` up to `limit`; `None` when it is still running.
pub fn wait_timeout(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().expect("try_wait") {
            return Some(st);
        }
        if Instant::now() >= until {
            return None;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// Read `stdout` line by line on a thread of its own; lines arrive on the channel.
pub fn line_reader(stdout: ChildStdout) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// Parse JSON Lines output; every line must be one JSON object.
pub fn events(stdout: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(stdout).expect("output is UTF-8");
    text.lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("output line is not JSON ({e}): {l:?}"));
            assert!(v.is_object(), "output line is not a JSON object: {l}");
            v
        })
        .collect()
}

pub fn stderr_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Assert a successful run and return its events.
pub fn ok_events(out: &Output) -> Vec<Value> {
    assert_eq!(out.status.code(), Some(0), "exit status; stderr:\n{}", stderr_of(out));
    assert_no_crash(out);
    events(&out.stdout)
}

/// Nothing on stderr that looks like a crash.
pub fn assert_no_crash(out: &Output) {
    let err = stderr_of(out);
    for bad in ["panicked", "RUST_BACKTRACE", "Broken pipe", "os error 32", "internal error"] {
        assert!(!err.contains(bad), "stderr mentions {bad:?}:\n{err}");
    }
}

pub fn src_line(ev: &Value) -> u64 {
    ev["source"]["line"].as_u64().expect("source.line")
}

pub fn src_lines(ev: &Value) -> u64 {
    ev["source"]["lines"].as_u64().expect("source.lines")
}

pub fn match_id(ev: &Value) -> Option<&str> {
    ev["match"]["id"].as_str()
}

/// The events whose primary match is `id`.
pub fn with_match<'a>(evs: &'a [Value], id: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| match_id(e) == Some(id)).collect()
}

/// The only event whose primary match is `id`.
pub fn one_match<'a>(evs: &'a [Value], id: &str) -> &'a Value {
    let found = with_match(evs, id);
    assert_eq!(found.len(), 1, "expected one event matching {id}, got {}: {evs:#?}", found.len());
    found[0]
}

/// The event that starts at physical line `line`.
pub fn at_line(evs: &[Value], line: u64) -> &Value {
    evs.iter().find(|e| src_line(e) == line).unwrap_or_else(|| {
        panic!(
            "no event starts at line {line}: {:?}",
            evs.iter().map(|e| (src_line(e), src_lines(e))).collect::<Vec<_>>()
        )
    })
}

/// `--all` output covers the input exactly: events follow each other without a gap or an
/// overlap, from line 1 to `total` physical lines.
pub fn assert_covers(evs: &[Value], total: u64) {
    let mut next = 1;
    for e in evs {
        assert_eq!(src_line(e), next, "events must be contiguous (no lost or repeated line); event: {e}");
        assert!(src_lines(e) >= 1, "an event has at least one line: {e}");
        next = src_line(e) + src_lines(e);
    }
    assert_eq!(next - 1, total, "events must cover all {total} physical lines");
}

/// Number of physical lines in `bytes` (a final line without a line break counts).
pub fn physical_lines(bytes: &[u8]) -> u64 {
    let n = bytes.iter().filter(|&&b| b == b'\n').count() as u64;
    if bytes.last().is_some_and(|&b| b != b'\n') { n + 1 } else { n }
}

/// A deterministic pseudo-random byte generator (xorshift64*), so "random" inputs reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}

/// A RisingWave text line (default layout) at second `sec`.
pub fn rw_line(sec: u32, level: &str, target: &str, rest: &str) -> String {
    format!("2026-03-02T08:00:{:02}.{:09}Z {level:>5} {target}: {rest}", sec % 60, 123_456_789u32)
}

/// A `WARN` line whose `error` field is the `t-split` message for `actor`.
pub fn split_line(sec: u32, actor: u32) -> String {
    rw_line(
        sec,
        "WARN",
        "risingwave_meta::barrier::rpc",
        &format!("collect failed error=barrier collection failed for actor {actor}"),
    )
}

pub fn info_line(sec: u32, msg: &str) -> String {
    rw_line(sec, "INFO", "risingwave_meta::manager", msg)
}

/// Join lines with `\n`, with a final line break.
pub fn lines(ls: &[&str]) -> String {
    let mut s = ls.join("\n");
    s.push('\n');
    s
}

/// [`lines`] of owned lines.
pub fn joined(ls: &[String]) -> String {
    lines(&ls.iter().map(String::as_str).collect::<Vec<_>>())
}

/// The events of a run that succeeded, without what two readings of the same lines in another
/// shape or from another source may differ in: `observed` and `source.offset`.
pub fn events_sans_offsets(out: &Output) -> Vec<Value> {
    ok_events(out)
        .into_iter()
        .map(|mut e| {
            let o = e.as_object_mut().unwrap();
            o.remove("observed");
            o["source"].as_object_mut().unwrap().remove("offset");
            e
        })
        .collect()
}

pub fn path_str(p: &Path) -> String {
    p.display().to_string()
}

/// Rotated files in `logs` as logrotate leaves them with `compress` and `delaycompress`, each
/// its age old (seconds), and a `meta.log.bak` that follow tests exclude. Each holds one error
/// line naming the file, except that the compressed ones hold their format's magic bytes first.
pub fn write_rotated(logs: &Path) {
    let now = std::time::SystemTime::now();
    let files: [(&str, u64, &[u8]); 6] = [
        ("meta.log.5", 500, b"2024-03-02T08:00:01Z ERROR x: column \"five\" is ambiguous\n"),
        ("meta.log.1", 100, b"2024-03-02T08:00:02Z ERROR x: column \"one\" is ambiguous\n"),
        ("meta.log", 0, b"2024-03-02T08:00:03Z ERROR x: column \"zero\" is ambiguous\n"),
        // gzip's magic, then bytes that would be an error line if read as text.
        ("meta.log.2.gz", 200, b"\x1f\x8b\x08\x00 ERROR x: column \"gz\" is ambiguous\n"),
        ("meta.log.3", 300, b"\x28\xb5\x2f\xfd ERROR x: column \"zstd\" is ambiguous\n"),
        ("meta.log.bak", 0, b"2024-03-02T08:00:04Z ERROR x: column \"bak\" is ambiguous\n"),
    ];
    for (name, age, bytes) in files {
        let p = logs.join(name);
        std::fs::write(&p, bytes).unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(now - Duration::from_secs(age)).unwrap();
    }
}

/// Run the binary with `args`, its standard output to `stdout_to`, under `sh`, and return its
/// output (standard error and status) and the CPU time it used (user and system, from the
/// shell's `times`: a busy machine does not inflate it as it does wall time).
pub fn run_cpu_timed(args: &[&str], stdout_to: &Path) -> (Output, f64) {
    let out = Command::new("sh")
        .args(["-c", r#"out=$1; shift; "$0" "$@" > "$out"; s=$?; times; exit $s"#, bin()])
        .arg(stdout_to)
        .args(args)
        .output()
        .expect("run sh");
    // `times`: the shell's own user and system time, then its children's, each `<m>m<s>s`.
    let times = String::from_utf8_lossy(&out.stdout).into_owned();
    let seconds = |t: &str| {
        let (m, s) = t.trim_end_matches('s').split_once('m').expect("times prints <m>m<s>s");
        m.parse::<f64>().unwrap() * 60.0 + s.parse::<f64>().unwrap()
    };
    let children = times.lines().nth(1).unwrap_or_else(|| panic!("times prints two lines: {times:?}"));
    let cpu = children.split_whitespace().map(seconds).sum();
    (out, cpu)
}
