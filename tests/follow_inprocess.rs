//! Follow mode run in-process: the daemon's `run` with its stop and reload passed as values
//! (`follow::Control`) instead of the process's signals, so that a test drives it without a
//! subprocess, signals or fixed sleeps. Real files, a real file sink and real checkpoints; the
//! tests wait for what they expect with a deadline, never a fixed time. Tests of timers (line and
//! idle timeouts, the poll, the checkpoint interval) run the daemon on a `TestClock`: time moves
//! only when the test advances it, and `settle` says when the reader has acted on it, so "not
//! before the timeout" and "at the timeout" are both exact. The real-process tests that stay in
//! tests/follow.rs are those that need a process: kill -9, real rotations, real signals.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use annotail::annotate::Emit;
use annotail::config::{StartAt, WatchMode};
use annotail::event::Format;
use annotail::matcher::Matcher;
use annotail::metrics::Metrics;
use annotail::sink::SinkSpec;
use annotail::source::follow::clock::TestClock;
use annotail::source::follow::{self, Control, Outcome, Runtime, Settings, SourceSpec};
use annotail::stage::Setup;
use common::{TEST_CATALOG, info_line, lines, split_line};

fn matcher(catalog: &str) -> Arc<Matcher> {
    let (m, problems) = Matcher::new(annotail::catalog::from_text("test.jsonl", catalog), Default::default());
    assert!(problems.iter().all(|p| p.level != annotail::catalog::Level::Error), "{problems:?}");
    Arc::new(m)
}

fn settings(dir: &Path, out: &Path) -> Settings {
    let mut sink = SinkSpec::new(&format!("file:{}", out.display()), Format::Json).expect("file sink");
    sink.shape = Default::default();
    Settings {
        sources: vec![SourceSpec {
            pattern: dir.join("logs/*.log").display().to_string(),
            start_at: StartAt::Beginning,
            exclude: Vec::new(),
        }],
        watch: WatchMode::Auto,
        poll_interval: Duration::from_millis(50),
        idle: Duration::from_millis(50),
        line_timeout: Duration::from_millis(200),
        rotate_wait: Duration::from_secs(1),
        checkpoint_interval: Duration::from_millis(10),
        clusters_interval: Duration::from_millis(10),
        shutdown_timeout: Duration::from_secs(5),
        state_dir: dir.join("state"),
        state_dir_origin: "test",
        stage: Setup {
            emit: Emit::Matches,
            every_event: false,
            framing: Default::default(),
            tally: None,
            incidents: Some(Arc::new(annotail::repeat::Incidents::new(
                Default::default(),
                annotail::repeat::DEFAULT_WINDOW,
                false,
            ))),
            unknown: None,
            metrics: None,
        },
        format: Format::Json,
        color: false,
        width: 80,
        sinks: vec![sink],
        shape: Default::default(),
        watch_config: Vec::new(),
    }
}

/// A daemon running on a thread of its own, stopped and reloaded through its `Control`.
struct Daemon {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    reload: tokio::sync::mpsc::UnboundedSender<()>,
    thread: Option<std::thread::JoinHandle<Result<Outcome, follow::FollowError>>>,
    metrics: Arc<Metrics>,
}

impl Daemon {
    fn start(settings: Settings, m: Arc<Matcher>, reloaded: Option<Arc<Matcher>>) -> Daemon {
        Daemon::start_with(settings, m, reloaded, None)
    }

    /// On `clock`'s time when there is one: its timers fire only when the test advances it.
    fn start_with(settings: Settings, m: Arc<Matcher>, reloaded: Option<Arc<Matcher>>, clock: Option<&TestClock>) -> Daemon {
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (reload_tx, reload_rx) = tokio::sync::mpsc::unbounded_channel();
        let control = Control {
            shutdown: Box::pin(async move {
                let _ = stop_rx.await;
            }),
            reload: reload_rx,
        };
        let s = settings.clone();
        let reload: follow::Reloader = Box::new(move || match &reloaded {
            Some(m) => Ok((m.clone(), s.clone())),
            None => Err("no reload in this test".into()),
        });
        let metrics = Arc::new(Metrics::new(0));
        let clock = clock.map(TestClock::clock);
        let thread = std::thread::spawn({
            let metrics = metrics.clone();
            move || {
                let mut runtime = Runtime::without_signals()?;
                if let Some(c) = clock {
                    runtime = runtime.with_clock(c);
                }
                follow::run(runtime, control, m, settings, reload, metrics)
            }
        });
        Daemon { stop: Some(stop_tx), reload: reload_tx, thread: Some(thread), metrics }
    }

    /// Events framed so far (counted by the reader as it frames them, before any sink).
    fn events(&self) -> u64 {
        self.metrics.read_totals().1
    }

    fn stop(mut self) -> Outcome {
        let _ = self.stop.take().expect("running").send(());
        self.thread.take().expect("running").join().expect("the daemon does not panic").expect("the run ends well")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// Wait (polling) until `f` holds, within 20 s (a loaded machine); whether it did.
fn wait_until(mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if f() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The events written to `out` once there are `n` of them (or all there are after 20 s).
fn wait_events(out: &Path, n: usize) -> Vec<serde_json::Value> {
    let mut evs = Vec::new();
    wait_until(|| {
        evs = std::fs::read_to_string(out)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        evs.len() >= n
    });
    evs
}

fn append(path: &PathBuf, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).expect("open the log");
    f.write_all(text.as_bytes()).expect("append");
}

#[test]
fn stopped_through_its_control_the_daemon_delivers_checkpoints_and_resumes_without_repeats() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/meta.log"), dir.path().join("out.json"));
    append(&log, &lines(&[&info_line(1, "starting"), &split_line(2, 7), &split_line(3, 8)]));
    let m = matcher(TEST_CATALOG);
    let d = Daemon::start(settings(dir.path(), &out), m.clone(), None);
    let evs = wait_events(&out, 2);
    assert_eq!(evs.len(), 2, "both errors delivered: {evs:?}");
    append(&log, &lines(&[&split_line(4, 9)]));
    assert_eq!(wait_events(&out, 3).len(), 3, "a line appended while following is delivered");
    assert_eq!(d.stop(), Outcome::Stopped);
    assert!(dir.path().join("state").read_dir().unwrap().next().is_some(), "checkpoints written");
    // A second run from the same state directory reads only what was appended since.
    append(&log, &lines(&[&split_line(5, 10)]));
    let d = Daemon::start(settings(dir.path(), &out), m, None);
    let evs = wait_events(&out, 4);
    assert_eq!(d.stop(), Outcome::Stopped);
    let actors: Vec<&str> = evs.iter().map(|e| e["match"]["captures"]["actor_id"].as_str().unwrap_or("?")).collect();
    assert_eq!(actors, ["7", "8", "9", "10"], "every event once, in order, none repeated after the restart");
}

/// The test catalog and a record it lacks, which a reload brings in (`t-new`).
fn with_lease_record() -> Arc<Matcher> {
    let extra = r#"{"id":"t-new","slug":"fresh-record","errorMessage":"compactor {id} lost its lease","messagePattern":"compactor (.+?) lost its lease"}"#;
    matcher(&format!("{TEST_CATALOG}{extra}\n"))
}

/// A line of `t-new`'s error.
fn lease_line(sec: u32) -> String {
    common::rw_line(sec, "ERROR", "risingwave_meta::hummock", "compactor 3 lost its lease")
}

#[test]
fn a_reload_asked_through_its_control_applies_the_new_catalog() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/meta.log"), dir.path().join("out.json"));
    append(&log, &lines(&[&lease_line(1), &split_line(2, 7)]));
    let reloaded = with_lease_record();
    let d = Daemon::start(settings(dir.path(), &out), matcher(TEST_CATALOG), Some(reloaded));
    assert_eq!(wait_events(&out, 1).len(), 1, "only the known error before the reload");
    d.reload.send(()).unwrap();
    // After the reload a new line of the new record is matched; the one before is not read again.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut sec = 3;
    let evs = loop {
        append(&log, &lines(&[&lease_line(sec)]));
        sec += 1;
        let evs = wait_events(&out, 2);
        if evs.len() >= 2 || Instant::now() > deadline {
            break evs;
        }
    };
    assert_eq!(d.stop(), Outcome::Stopped);
    assert_eq!(evs[0]["match"]["id"], "t-split");
    assert!(evs.len() >= 2 && evs[1..].iter().all(|e| e["match"]["id"] == "t-new"), "{evs:?}");
    assert!(evs[1]["source"]["line"].as_u64().unwrap() >= 3, "the line before the reload is not read again");
}

/// An event still open at a reload (the file's last line, waiting for its idle time or a line
/// that continues it) was framed again from its start by the next generation, but only once the
/// file changed again: the read position went back to it while the file was still marked as
/// read to its end, and nothing more was read. A reload that came after the daemon had read the
/// last line and before its idle time ran out left that event unread until the next write
/// (`a_reload_asked_through_its_control_applies_the_new_catalog` failed that way, now and then).
#[test]
fn regression_an_event_open_at_a_reload_is_read_again_at_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/meta.log"), dir.path().join("out.json"));
    append(&log, &lines(&[&split_line(1, 7)]));
    let mut s = settings(dir.path(), &out);
    // Long enough that the last line is still open when the reload comes, on a loaded machine.
    s.idle = Duration::from_secs(5);
    let reloaded = with_lease_record();
    let d = Daemon::start(s, matcher(TEST_CATALOG), Some(reloaded));
    assert_eq!(wait_events(&out, 1).len(), 1, "the known error, once its idle time is over");
    append(&log, &lines(&[&lease_line(2)]));
    assert!(wait_until(|| d.metrics.read_totals().0 >= 2), "the daemon read the new line");
    d.reload.send(()).unwrap();
    // No more lines are written: the open line must be read again by the new generation by itself.
    let evs = wait_events(&out, 2);
    assert_eq!(d.stop(), Outcome::Stopped);
    assert_eq!(evs.len(), 2, "the open line is an event of the new catalog's record: {evs:?}");
    assert_eq!(evs[1]["match"]["id"], "t-new");
    assert_eq!(evs[1]["source"]["line"], 2);
}

/// How long a test waits for the reader to act on an advance of its clock (a loaded machine).
const SETTLE: Duration = Duration::from_secs(20);

/// Settings on a test clock: polled (no file notification, so the reader turns only when the
/// clock moves or it is stopped), every line an event.
fn clocked(dir: &Path, out: &Path) -> Settings {
    let mut s = settings(dir, out);
    s.watch = WatchMode::Poll;
    s.stage.emit = Emit::All;
    s.stage.every_event = true;
    s
}

/// Advance `clock` by `d` and wait for the reader to act on it.
fn step(clock: &TestClock, d: Duration) {
    clock.advance(d);
    assert!(clock.settle(SETTLE), "the reader acts on an advance of its clock");
}

/// A RisingWave line with a sequence number, an event of its own (what tests/follow.rs writes).
fn seq_line(seq: u64) -> String {
    format!("2026-11-29T10:{:02}:{:02}.{:06}Z  INFO risingwave_meta::stress: line written seq={seq}\n", seq / 60_000_000 % 60, seq / 1_000_000 % 60, seq % 1_000_000)
}

fn seqs(evs: &[serde_json::Value]) -> Vec<u64> {
    evs.iter().filter_map(|e| e["message"].as_str()?.rsplit_once("seq=")?.1.parse().ok()).collect()
}

/// A last line without its line break is held until it is complete, or until line_timeout, and
/// then comes out whole, as a line of its own. (Was a real-time test with 1.3 s of fixed sleeps.)
#[test]
fn partial_last_line_is_held_until_complete_or_line_timeout() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/a.log"), dir.path().join("out.json"));
    let mut s = clocked(dir.path(), &out);
    s.line_timeout = Duration::from_millis(1500);
    s.idle = Duration::ZERO;
    let clock = TestClock::new();
    append(&log, "");
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE));
    let full = seq_line(0);
    let (a, b) = full.split_at(40);
    append(&log, a);
    step(&clock, Duration::from_millis(50));
    // Far into line_timeout (measured from the file being seen): still nothing.
    step(&clock, Duration::from_millis(1400));
    assert_eq!(d.events(), 0, "nothing before the line is complete");
    append(&log, b);
    step(&clock, Duration::from_millis(50));
    assert_eq!(seqs(&wait_events(&out, 1)), [0], "the line, once complete");
    // A partial line that never completes comes out after line_timeout, whole.
    append(&log, seq_line(1).trim_end());
    step(&clock, Duration::from_millis(50));
    step(&clock, Duration::from_millis(1400));
    assert_eq!(d.events(), 1, "held within line_timeout");
    step(&clock, Duration::from_millis(100));
    assert_eq!(d.events(), 2, "out after line_timeout");
    let evs = wait_events(&out, 2);
    assert_eq!(d.stop(), Outcome::Stopped);
    assert_eq!(seqs(&evs), [0, 1]);
    assert_eq!(evs[1]["message"], seq_line(1).trim_end(), "the held line whole");
}

/// An event is held while the file is active and comes out after `idle` of quiet: the next line
/// could still be a continuation of it.
#[test]
fn an_open_event_comes_out_after_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/a.log"), dir.path().join("out.json"));
    let mut s = clocked(dir.path(), &out);
    s.idle = Duration::from_secs(5);
    let clock = TestClock::new();
    append(&log, &seq_line(0));
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE));
    step(&clock, Duration::from_millis(4900));
    assert_eq!(d.events(), 0, "within the idle timeout the event may still grow");
    // A continuation line joins it.
    append(&log, "  at a continuation line\n");
    step(&clock, Duration::from_millis(50));
    step(&clock, Duration::from_millis(4900));
    assert_eq!(d.events(), 0, "quiet is measured from the last data");
    step(&clock, Duration::from_millis(200));
    assert_eq!(d.events(), 1, "out after idle of quiet");
    let evs = wait_events(&out, 1);
    assert_eq!(d.stop(), Outcome::Stopped);
    assert!(evs[0]["message"].as_str().unwrap().contains("at a continuation line"), "{evs:?}");
}

/// start_at = end: existing lines are skipped, new ones read, with line numbers that count the
/// skipped lines; a file created later is read from its start. (Was a real-time test that slept
/// 300 ms for the daemon to take the end position.)
#[test]
fn start_at_end_reads_only_new_lines() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let out = dir.path().join("out.json");
    let (a, b) = (dir.path().join("logs/a.log"), dir.path().join("logs/b.log"));
    let text = |r: std::ops::Range<u64>| r.map(seq_line).collect::<String>();
    append(&a, &text(0..100));
    let mut s = clocked(dir.path(), &out);
    s.sources[0].start_at = StartAt::End;
    let clock = TestClock::new();
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE), "the first scan takes the end position");
    append(&a, &text(100..110));
    append(&b, &text(1000..1010));
    step(&clock, Duration::from_millis(50));
    step(&clock, Duration::from_millis(50));
    let evs = wait_events(&out, 20);
    assert_eq!(d.stop(), Outcome::Stopped);
    let mut got = seqs(&evs);
    got.sort_unstable();
    assert_eq!(got, (100..110).chain(1000..1010).collect::<Vec<_>>(), "only new lines, the new file whole");
    let ev = evs.iter().find(|e| seqs(std::slice::from_ref(e)) == [100]).unwrap();
    assert_eq!(ev["source"]["line"], 101, "line numbers count the skipped lines");
}

/// `start_at = "end"` after the checkpoint file was lost (unreadable, set aside): the files are
/// read from their start, as the log promises; the lines written while the daemon was stopped
/// are not skipped.
#[test]
fn regression_start_at_end_with_a_lost_checkpoint_leaves_no_gap() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/a.log"), dir.path().join("out.json"));
    let text = |r: std::ops::Range<u64>| r.map(seq_line).collect::<String>();
    append(&log, &text(0..10));
    let mut s = clocked(dir.path(), &out);
    s.sources[0].start_at = StartAt::End;
    let clock = TestClock::new();
    let d = Daemon::start_with(s.clone(), matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE));
    append(&log, &text(10..20));
    step(&clock, Duration::from_millis(50));
    step(&clock, Duration::from_millis(50));
    assert_eq!(seqs(&wait_events(&out, 10)), (10..20).collect::<Vec<_>>());
    assert_eq!(d.stop(), Outcome::Stopped);
    append(&log, &text(20..5_020));
    std::fs::write(dir.path().join("state/checkpoints.json"), b"{\"version\": 1, \"files\": [tru").unwrap();
    let clock = TestClock::new();
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE));
    step(&clock, Duration::from_millis(50));
    let evs = wait_events(&out, 10 + 5_020);
    assert_eq!(d.stop(), Outcome::Stopped);
    let got: std::collections::HashSet<u64> = seqs(&evs).into_iter().collect();
    let missing = (20..5_020).filter(|i| !got.contains(i)).count();
    assert_eq!(missing, 0, "lines written while stopped are read");
}

/// A glob is expanded again every poll_interval: a file created since is found at the next
/// expansion, not before (with notification off).
#[test]
fn a_new_file_is_found_at_the_next_poll() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let out = dir.path().join("out.json");
    let mut s = clocked(dir.path(), &out);
    s.poll_interval = Duration::from_secs(2);
    s.idle = Duration::ZERO;
    let clock = TestClock::new();
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE));
    append(&dir.path().join("logs/b.log"), &seq_line(7));
    step(&clock, Duration::from_millis(1900));
    assert_eq!(d.events(), 0, "not found before the poll");
    step(&clock, Duration::from_millis(100));
    assert_eq!(d.events(), 1, "found at the poll");
    assert_eq!(seqs(&wait_events(&out, 1)), [7]);
    assert_eq!(d.stop(), Outcome::Stopped);
}

/// Rotated files as logrotate leaves them with `compress` and `delaycompress`, a glob that names
/// them all: read oldest first (by modification time), compressed ones (by their first bytes,
/// whatever their name) and excluded ones not at all. (Was a real-process test that slept
/// 800 ms for the backlog to be read.)
#[test]
fn rotated_files_are_read_oldest_first_without_compressed_or_excluded_ones() {
    capture_diagnostics();
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let out = dir.path().join("out.json");
    common::write_rotated(&logs);
    let mut s = clocked(dir.path(), &out);
    s.stage.emit = Emit::Matches;
    s.stage.every_event = false;
    s.sources[0].pattern = logs.join("meta.log*").display().to_string();
    s.sources[0].exclude = vec!["*.bak".into()];
    let clock = TestClock::new();
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE));
    step(&clock, Duration::from_millis(50));
    assert_eq!(d.events(), 3, "three files of text, one event each");
    let evs = wait_events(&out, 3);
    assert_eq!(d.stop(), Outcome::Stopped);
    let cols: Vec<&str> = evs.iter().map(|e| e["match"]["captures"]["name"].as_str().unwrap_or("?")).collect();
    assert_eq!(cols, ["five", "one", "zero"]);
    let log = diagnostics();
    // meta.log.2.gz is left out by its name; meta.log.3 by its first bytes, and said so.
    let path = logs.join("meta.log.3").display().to_string();
    assert!(log.lines().any(|l| l.contains("compressed file: not followed") && l.contains(&path)), "{log}");
}

/// What the daemons of this test binary logged (every test's: filter by path).
fn diagnostics() -> String {
    String::from_utf8_lossy(&DIAGNOSTICS.lock().unwrap()).into_owned()
}

static DIAGNOSTICS: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

struct Capture;

impl std::io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        DIAGNOSTICS.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Capture the daemons' diagnostics (once per test binary).
fn capture_diagnostics() {
    let _ = tracing_subscriber::fmt().with_writer(|| Capture).with_ansi(false).with_max_level(tracing::Level::INFO).try_init();
}

/// A checkpoint is written `checkpoint_interval` after an acknowledgement (with whatever else was
/// acknowledged by then), not before: the saver waits out its interval on the daemon's clock.
#[test]
fn a_checkpoint_is_written_an_interval_after_an_acknowledgement() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/a.log"), dir.path().join("out.json"));
    append(&log, &seq_line(0));
    let mut s = clocked(dir.path(), &out);
    s.idle = Duration::ZERO;
    s.checkpoint_interval = Duration::from_secs(10);
    let clock = TestClock::new();
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert_eq!(seqs(&wait_events(&out, 1)), [0]);
    let offset = || -> Option<u64> {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.path().join("state/checkpoints.json")).ok()?).ok()?;
        v["files"][0]["offset"].as_u64()
    };
    let size = std::fs::metadata(&log).unwrap().len();
    wait_until(|| clock.sleeping() > 0);
    assert_eq!(clock.sleeping(), 1, "the saver waits out its interval");
    assert_ne!(offset(), Some(size), "not written before the interval");
    clock.advance(Duration::from_secs(10));
    assert!(wait_until(|| offset() == Some(size)), "written once the interval is over: {:?}", offset());
    assert_eq!(d.stop(), Outcome::Stopped);
}

/// A review found that a followed PostgreSQL log's report came out without its detail line when
/// the line had been written in two pieces: a held partial line that showed a date and time
/// was taken to start an event, so the report was completed on idle and the detail, once
/// whole, was an event of its own. A partial dated line below such a report is now waited for
/// until it shows a level of its own, as a partial indented line is.
#[test]
fn regression_a_postgres_detail_line_written_in_pieces_joins_its_report() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/pg.log"), dir.path().join("out.json"));
    let mut s = clocked(dir.path(), &out);
    // Idle well within the time a partial line is held.
    (s.idle, s.line_timeout) = (Duration::from_millis(200), Duration::from_secs(2));
    let clock = TestClock::new();
    append(&log, "");
    let d = Daemon::start_with(s, matcher(TEST_CATALOG), None, Some(&clock));
    assert!(clock.settle(SETTLE));
    append(&log, "2026-12-05 10:00:02.001 UTC [57] ERROR:  duplicate key value\n2026-12-05 10:00:02.001 UTC [57] DETA");
    step(&clock, Duration::from_millis(50));
    step(&clock, Duration::from_millis(500));
    assert_eq!(d.events(), 0, "the report waits for the rest of its detail line");
    append(&log, "IL:  Key (id)=(1) already exists.\n2026-12-05 10:00:03.001 UTC [58] ERROR:  another");
    step(&clock, Duration::from_millis(50));
    step(&clock, Duration::from_millis(500));
    // A held line that shows a level of its own starts an event: the report is complete.
    assert_eq!(d.events(), 1, "the report, once its detail is whole");
    let evs = wait_events(&out, 1);
    assert_eq!(d.stop(), Outcome::Stopped);
    assert_eq!(evs[0]["source"]["lines"], 2, "{evs:?}");
    assert!(evs[0]["message"].as_str().unwrap().ends_with("DETAIL:  Key (id)=(1) already exists."), "{evs:?}");
}
