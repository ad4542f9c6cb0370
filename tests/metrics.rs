//! The metrics endpoint and `--summary`, driven for real: the binary follows files or reads a
//! pipe while this test scrapes `/metrics` over a real socket on 127.0.0.1 and compares every
//! counter with what it fed and what came out on standard output.

mod common;

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::{PATIENCE, cmd, wait_timeout};
use serde_json::Value;

/// A child process killed when the test ends, pass or fail (a leaked daemon would hold the
/// test harness's pipes open).
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = std::process::Command::new("kill").args([sig, &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

/// GET `path` from the endpoint: (status, body).
fn get(addr: &str, path: &str) -> (u16, String) {
    request(addr, "GET", path)
}

fn request(addr: &str, method: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(s, "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let status = resp.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = resp.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_owned();
    (status, body)
}

/// The value of one series (`name{labels}` exactly as exposed), if present.
fn series(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// Collect stdout lines (JSON events) as they come.
fn collect(child: &mut Child) -> Arc<Mutex<Vec<Value>>> {
    let out = Arc::new(Mutex::new(Vec::new()));
    let stdout = child.stdout.take().unwrap();
    let o = out.clone();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            o.lock().unwrap().push(serde_json::from_str(&line).expect("each stdout line is a JSON event"));
        }
    });
    out
}

/// Wait for the daemon's diagnostics (a file) to name the endpoint's address.
fn endpoint(stderr_file: &Path) -> String {
    let start = Instant::now();
    loop {
        let text = fs::read_to_string(stderr_file).unwrap_or_default();
        if let Some(line) = text.lines().find(|l| l.contains("metrics endpoint")) {
            let addr = line.split("addr=").nth(1).unwrap().split_whitespace().next().unwrap();
            return addr.to_owned();
        }
        assert!(start.elapsed() < PATIENCE, "no metrics endpoint announced:\n{text}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// Scrape until `cond` holds on the body; returns that body.
fn scrape_until(addr: &str, what: &str, cond: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let (status, body) = get(addr, "/metrics");
        assert_eq!(status, 200);
        if cond(&body) {
            return body;
        }
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}; last scrape:\n{body}");
        thread::sleep(Duration::from_millis(50));
    }
}

/// Matches per record and per severity in the events that came out (primary and also-matched).
fn matches_in(events: &[Value]) -> (HashMap<String, u64>, HashMap<String, u64>) {
    let (mut per_record, mut per_sev) = (HashMap::new(), HashMap::new());
    for ev in events {
        let primary = ev["match"].as_object().into_iter();
        let also = ev["also_matched"].as_array().into_iter().flatten().filter_map(Value::as_object);
        for m in primary.chain(also) {
            *per_record.entry(m["id"].as_str().unwrap().to_owned()).or_default() += 1;
            *per_sev.entry(m["severity"].as_str().unwrap().to_owned()).or_default() += 1;
        }
    }
    (per_record, per_sev)
}

/// Check the match counters of a scrape against the events that came out.
fn assert_matches_agree(body: &str, events: &[Value]) {
    let (per_record, per_sev) = matches_in(events);
    assert!(!per_sev.is_empty(), "the corpus has known errors");
    for (sev, n) in &per_sev {
        let got = series(body, &format!("annotail_matches_total{{severity=\"{sev}\"}}"));
        assert_eq!(got, Some(*n as f64), "matches of severity {sev}");
    }
    // Every per-record series exported agrees; there are at most top_records (20) of them.
    let exported: Vec<&str> = body.lines().filter(|l| l.starts_with("annotail_record_matches_total{")).collect();
    assert!(!exported.is_empty() && exported.len() <= 20, "{exported:?}");
    for l in exported {
        let id = l.split("record=\"").nth(1).unwrap().split('"').next().unwrap();
        let v: f64 = l.rsplit(' ').next().unwrap().parse().unwrap();
        assert_eq!(per_record.get(id).copied().unwrap_or(0) as f64, v, "record {id}");
    }
    // The most matched record is among them.
    let max = per_record.values().max().copied().unwrap() as f64;
    assert!(body.lines().any(|l| l.starts_with("annotail_record_matches_total{") && l.ends_with(&format!(" {max}"))));
}

/// A daemon's directory: `logs/` to follow, the test catalog, its state, and a file for its
/// diagnostics.
struct FollowDir {
    dir: tempfile::TempDir,
    logs: PathBuf,
    catalog: PathBuf,
    err_file: PathBuf,
}

impl FollowDir {
    fn new() -> FollowDir {
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        fs::create_dir(&logs).unwrap();
        let catalog = dir.path().join("catalog.jsonl");
        fs::write(&catalog, common::TEST_CATALOG).unwrap();
        let err_file = dir.path().join("stderr.log");
        FollowDir { dir, logs, catalog, err_file }
    }

    /// `annotail --follow logs/*.log` with its state directory and catalog, a metrics endpoint
    /// on a free port, and diagnostics (info) in `err_file`.
    fn command(&self) -> Command {
        let mut c = cmd();
        c.arg("--follow")
            .arg(format!("{}/*.log", self.logs.display()))
            .arg("--state-dir")
            .arg(self.dir.path().join("state"));
        c.args(["--metrics-addr", "127.0.0.1:0", "--log-level", "info", "-c"]).arg(&self.catalog);
        c.stderr(fs::File::create(&self.err_file).unwrap());
        c
    }

    /// The series of a per-source metric for the followed glob.
    fn source_series(&self, metric: &str) -> String {
        format!("{metric}{{source=\"{}/*.log\"}}", self.logs.display())
    }
}

#[test]
fn scrape_while_following_matches_what_was_fed() {
    let fx = FollowDir::new();
    let (logs, catalog, err_file) = (&fx.logs, &fx.catalog, &fx.err_file);
    let sample = fs::read(common::example_log()).unwrap();
    let mut c = fx.command();
    c.args(["--format", "json", "--poll-interval", "50ms", "--summary", "--checkpoint-interval", "100ms"]);
    c.stdout(Stdio::piped());
    let mut d = Guard(c.spawn().unwrap());
    let events = collect(&mut d.0);
    let addr = endpoint(err_file);
    assert_eq!(get(&addr, "/health"), (200, "ok\n".to_owned()));
    let start = Instant::now();
    while get(&addr, "/ready").0 != 200 {
        assert!(start.elapsed() < PATIENCE, "never ready");
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(get(&addr, "/nope").0, 404);
    assert_eq!(request(&addr, "POST", "/metrics").0, 405);

    // Feed the example log in two halves; after each, every counter agrees with what was fed.
    let lines: Vec<&[u8]> = sample.split_inclusive(|&b| b == b'\n').collect();
    let half = lines.len() / 2;
    let log = logs.join("meta.log");
    let mut fed_lines = 0u64;
    let mut fed_bytes = 0u64;
    let source = fx.source_series("annotail_lines_read_total");
    for part in [&lines[..half], &lines[half..]] {
        let mut f = OpenOptions::new().create(true).append(true).open(&log).unwrap();
        for l in part {
            f.write_all(l).unwrap();
        }
        fed_lines += part.len() as u64;
        fed_bytes += part.iter().map(|l| l.len() as u64).sum::<u64>();
        let body = scrape_until(&addr, "every line read and delivered", |b| {
            series(b, &source) == Some(fed_lines as f64)
                && series(b, "annotail_sink_queue_events{sink=\"-\"}") == Some(0.0)
                && series(b, &format!("annotail_file_lag_bytes{{path=\"{}\"}}", log.display())) == Some(0.0)
        });
        assert_eq!(series(&body, &fx.source_series("annotail_bytes_read_total")), Some(fed_bytes as f64));
        // Give stdout's reader a moment to have parsed what the sink wrote.
        let written = series(&body, "annotail_events_written_total").unwrap();
        let start = Instant::now();
        while (events.lock().unwrap().len() as f64) < written {
            assert!(start.elapsed() < PATIENCE);
            thread::sleep(Duration::from_millis(10));
        }
        let evs = events.lock().unwrap().clone();
        assert_eq!(evs.len() as f64, written, "events written = events on standard output");
        assert_eq!(series(&body, "annotail_confirmed_events_total"), Some(evs.len() as f64));
        assert_matches_agree(&body, &evs);
        assert!(series(&body, "annotail_prefilter_candidates_total").unwrap() >= evs.len() as f64);
        assert_eq!(series(&body, "annotail_files_followed"), Some(1.0));
        assert_eq!(series(&body, "annotail_catalog_records"), Some(5.0));
        assert!(series(&body, "annotail_checkpoint_age_seconds").unwrap() < 30.0);
        assert!(series(&body, "annotail_sink_batches_total{sink=\"-\",result=\"sent\"}").unwrap() >= 1.0);
        assert_eq!(series(&body, "annotail_sink_batches_total{sink=\"-\",result=\"failed\"}"), Some(0.0));
        assert!(body.ends_with("# EOF\n"));
    }

    // Reloads are counted, a broken catalog as failed; the counts survive them.
    signal(&d.0, "-HUP");
    scrape_until(&addr, "a reload", |b| series(b, "annotail_catalog_reloads_total{result=\"ok\"}") == Some(1.0));
    fs::write(catalog, "{ not json\n").unwrap();
    signal(&d.0, "-HUP");
    let body = scrape_until(&addr, "a failed reload", |b| {
        series(b, "annotail_catalog_reloads_total{result=\"failed\"}") == Some(1.0)
    });
    assert_matches_agree(&body, &events.lock().unwrap());
    assert_eq!(series(&body, &source), Some(fed_lines as f64));

    signal(&d.0, "-TERM");
    let status = wait_timeout(&mut d.0, PATIENCE).expect("exits after SIGTERM");
    assert!(status.success(), "SIGTERM is a normal stop in follow mode, summary or not");
    // --summary in follow mode: the table after the orderly stop, with every line read.
    let err = fs::read_to_string(err_file).unwrap();
    assert!(err.contains(&format!("annotail summary\n  lines read    {}", thousands(fed_lines))), "{err}");
}

/// Regression: on a daemon with nothing to deliver the checkpoint age grew without end (it
/// counted from the last write, though the file still held every delivery), so an alert on a
/// stale checkpoint fired on every quiet node.
#[test]
fn regression_checkpoint_age_grew_on_an_idle_daemon() {
    let fx = FollowDir::new();
    let mut c = fx.command();
    c.args(["--format", "json", "--poll-interval", "50ms", "--checkpoint-interval", "100ms"]);
    c.stdout(Stdio::piped());
    let mut d = Guard(c.spawn().unwrap());
    let events = collect(&mut d.0);
    let addr = endpoint(&fx.err_file);
    fs::write(fx.logs.join("meta.log"), fs::read(common::example_log()).unwrap()).unwrap();
    let source = fx.source_series("annotail_lines_read_total");
    scrape_until(&addr, "the log read and delivered", |b| {
        series(b, &source).is_some_and(|n| n > 0.0) && series(b, "annotail_sink_queue_events{sink=\"-\"}") == Some(0.0)
    });
    // Idle for well over the checkpoint interval: the age stays near 0, where it had reached
    // the idle time.
    thread::sleep(Duration::from_millis(2500));
    let body = get(&addr, "/metrics").1;
    let age = series(&body, "annotail_checkpoint_age_seconds").expect("the age is exported");
    assert!(age < 1.0, "checkpoint age {age} s on an idle daemon");
    assert!(!events.lock().unwrap().is_empty(), "the log's known errors came out");
}

/// Regression (found by a third reader): deliveries acknowledged while the saver slept left a
/// wake-up behind, so after the write that held them all the age counted up to the next
/// interval (2.9 s of a 3 s one) before it read 0.
#[test]
fn regression_checkpoint_age_is_0_right_after_a_write_that_holds_every_delivery() {
    let fx = FollowDir::new();
    let mut c = fx.command();
    c.args(["--format", "json", "--poll-interval", "50ms", "--checkpoint-interval", "3s"]);
    c.stdout(Stdio::null());
    let _d = Guard(c.spawn().unwrap());
    let addr = endpoint(&fx.err_file);
    let log = fx.logs.join("meta.log");
    let mut f = OpenOptions::new().create(true).append(true).open(&log).unwrap();
    for i in 0..3 {
        writeln!(f, "2026-03-02T08:00:0{i}.000000000Z  INFO risingwave_meta::x: batch {i}").unwrap();
        thread::sleep(Duration::from_millis(300));
    }
    let size = fs::metadata(&log).unwrap().len();
    let state = fx.dir.path().join("state").join("checkpoints.json");
    let start = Instant::now();
    while !fs::read_to_string(&state).is_ok_and(|t| t.contains(&format!("\"offset\": {size},"))) {
        assert!(start.elapsed() < PATIENCE, "the checkpoint never held the whole file");
        thread::sleep(Duration::from_millis(20));
    }
    thread::sleep(Duration::from_millis(800));
    let age = series(&get(&addr, "/metrics").1, "annotail_checkpoint_age_seconds").expect("the age is exported");
    assert!(age < 0.5, "checkpoint age {age} s after a write that holds every delivery");
}

#[test]
fn sink_failures_retries_and_queue_depth_are_counted() {
    // A TCP receiver that is down at first: deliveries fail and are retried, the queue fills.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let err_file = dir.path().join("stderr.log");
    let catalog = dir.path().join("catalog.jsonl");
    fs::write(&catalog, common::TEST_CATALOG).unwrap();
    let url = format!("tcp://127.0.0.1:{port}");
    let mut c = cmd();
    c.args(["--all", "--metrics-addr", "127.0.0.1:0", "--log-level", "info", "--output", &url, "-c"]).arg(&catalog);
    c.stdin(Stdio::piped()).stdout(Stdio::null()).stderr(fs::File::create(&err_file).unwrap());
    let mut d = Guard(c.spawn().unwrap());
    let addr = endpoint(&err_file);
    let mut stdin = d.0.stdin.take().unwrap();
    for i in 0..1000 {
        writeln!(stdin, "2026-03-02T08:00:00.000000000Z  INFO risingwave_meta: line {i}").unwrap();
    }
    stdin.flush().unwrap();
    let sink = format!("sink=\"{url}\"");
    let body = scrape_until(&addr, "failed deliveries", |b| {
        series(b, &format!("annotail_sink_batches_total{{{sink},result=\"failed\"}}")).unwrap_or(0.0) >= 2.0
            && series(b, &format!("annotail_sink_queue_events{{{sink}}}")).unwrap_or(0.0) >= 1000.0
    });
    assert!(series(&body, &format!("annotail_sink_retries_total{{{sink}}}")).unwrap() >= 1.0);
    assert_eq!(series(&body, "annotail_lines_read_total{source=\"stdin\"}"), Some(1000.0));
    // Read, not written: an event is written when every sink has it (it was counted as the reader
    // wrote it, 1000 with none sent: an OTel pipeline's reading).
    assert_eq!(series(&body, "annotail_events_written_total"), Some(0.0));
    // The receiver comes up: everything is delivered, the queue empties.
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let got = thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        BufReader::new(s).lines().map_while(Result::ok).count()
    });
    let body = scrape_until(&addr, "delivery", |b| {
        series(b, &format!("annotail_sink_queue_events{{{sink}}}")) == Some(0.0)
            && series(b, &format!("annotail_sink_batches_total{{{sink},result=\"sent\"}}")).unwrap_or(0.0) >= 1.0
    });
    assert_eq!(series(&body, "annotail_events_written_total"), Some(1000.0));
    drop(stdin);
    let status = wait_timeout(&mut d.0, PATIENCE).expect("exits at the end of its input");
    assert!(status.success());
    assert_eq!(got.join().unwrap(), 1000);
}

#[test]
fn top_records_bounds_the_per_record_series() {
    let dir = tempfile::tempdir().unwrap();
    let err_file = dir.path().join("stderr.log");
    let mut c = cmd();
    c.args(["--format", "json", "--metrics-addr", "127.0.0.1:0", "--metrics-top-records", "2", "--log-level", "info"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(fs::File::create(&err_file).unwrap());
    let mut d = Guard(c.spawn().unwrap());
    let addr = endpoint(&err_file);
    let events = collect(&mut d.0);
    let mut stdin = d.0.stdin.take().unwrap();
    let sample = fs::read(common::example_log()).unwrap();
    stdin.write_all(&sample).unwrap();
    stdin.flush().unwrap();
    // Standard input still open: the counts are live, not only at the end.
    let lines = common::physical_lines(&sample) as f64;
    scrape_until(&addr, "the whole sample", |b| {
        series(b, "annotail_lines_read_total{source=\"stdin\"}") == Some(lines)
    });
    // The two exported are the most matched. A line is counted as read before its event is
    // matched and written: a scrape right after the last line's count missed that event's
    // matches while the events read after it had them (a flaky failure under load). So the
    // scrape compared is one whose confirmed events are all the events written.
    let start = Instant::now();
    loop {
        let (status, body) = get(&addr, "/metrics");
        assert_eq!(status, 200);
        let confirmed = series(&body, "annotail_confirmed_events_total").unwrap();
        let evs = events.lock().unwrap();
        if evs.len() as f64 == confirmed {
            let exported: Vec<&str> =
                body.lines().filter(|l| l.starts_with("annotail_record_matches_total{")).collect();
            assert_eq!(exported.len(), 2, "{exported:?}");
            assert_eq!(
                series(&body, "annotail_catalog_records").map(|n| n > 4000.0),
                Some(true),
                "the embedded catalog"
            );
            let (per_record, _) = matches_in(&evs);
            let mut counts: Vec<u64> = per_record.values().copied().collect();
            counts.sort_unstable_by(|a, b| b.cmp(a));
            let mut got: Vec<u64> = exported.iter().map(|l| l.rsplit(' ').next().unwrap().parse().unwrap()).collect();
            got.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(got, counts[..2]);
            break;
        }
        drop(evs);
        assert!(start.elapsed() < PATIENCE, "the events written never reached the confirmed count: {confirmed}");
        thread::sleep(Duration::from_millis(10));
    }
    drop(stdin);
    assert!(wait_timeout(&mut d.0, PATIENCE).expect("exits at the end of input").success());
}

/// 300 idle connections (opened, nothing sent) do not take the daemon's descriptors: the
/// endpoint holds at most 64, closes those that send no headers within 5 s, and a scrape is still
/// answered. (20,400 idle connections once took every descriptor: checkpoints failed with "Too
/// many open files" and /metrics stopped answering.)
#[test]
fn regression_idle_connections_do_not_take_the_descriptors() {
    let fd = FollowDir::new();
    let mut c = fd.command();
    c.stdout(Stdio::null());
    let child = Guard(c.spawn().unwrap());
    let addr = endpoint(&fd.err_file);
    let fds = || fs::read_dir(format!("/proc/{}/fd", child.0.id())).unwrap().count();
    // Settled first: the first scan, inotify and the state directory hold descriptors of their own.
    let _ = get(&addr, "/ready");
    thread::sleep(Duration::from_millis(300));
    let before = fds();
    let idle: Vec<TcpStream> = (0..300).map(|_| TcpStream::connect(&addr).unwrap()).collect();
    thread::sleep(Duration::from_millis(500));
    let held = fds();
    assert!(held <= before + 64 + 16, "{before} descriptors before, {held} with 300 idle connections");
    // A scrape gets through (once the slow ones are closed, at the latest).
    let (status, body) = get(&addr, "/metrics");
    assert_eq!(status, 200);
    assert!(body.contains("annotail_files_followed"));
    // The first idle connections were closed by the server: reading gets the end.
    let mut first = &idle[0];
    first.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut buf = [0u8; 64];
    assert!(matches!(first.read(&mut buf), Ok(0) | Err(_)), "an idle connection is closed");
    drop(idle);
}

#[test]
fn a_busy_metrics_address_is_a_clear_error() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let out = common::run_cmd(cmd().args(["--metrics-addr", &addr]), b"");
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr_of(&out);
    assert!(err.contains(&format!("cannot serve metrics on {addr}")), "{err}");
    let out = common::run_cmd(cmd().args(["--metrics-addr", "localhost"]), b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(common::stderr_of(&out).contains("--metrics-addr"));
}

/// The summary's record rows: record id → count.
fn summary_rows(stderr: &str) -> HashMap<String, u64> {
    stderr
        .lines()
        .skip_while(|l| !l.starts_with("COUNT"))
        .skip(1)
        .filter_map(|l| {
            let count = l.split_whitespace().next()?.replace(',', "").parse().ok()?;
            let id = l.rsplit_once('(')?.1.strip_suffix(')')?.to_owned();
            Some((id, count))
        })
        .collect()
}

#[test]
fn summary_at_the_end_agrees_with_the_events() {
    let out = common::run_cmd(cmd().args(["--summary", "--format", "json"]).arg(common::example_log()), b"");
    assert!(out.status.success());
    let events = common::events(&out.stdout);
    let err = common::stderr_of(&out);
    let lines = common::physical_lines(&fs::read(common::example_log()).unwrap());
    assert!(err.contains("annotail summary\n"), "{err}");
    let total = |label: &str| -> String {
        err.lines().find_map(|l| l.trim().strip_prefix(label)).unwrap().trim().replace(',', "")
    };
    assert_eq!(total("lines read"), lines.to_string());
    let (per_record, per_sev) = matches_in(&events);
    assert!(total("known errors").starts_with(&format!("{} events", events.len())), "{err}");
    for (sev, n) in &per_sev {
        let row = err.lines().find(|l| l.starts_with(sev.as_str()) && !l.contains('(')).unwrap();
        assert_eq!(row.split_whitespace().nth(1).unwrap().replace(',', ""), n.to_string(), "{row}");
    }
    let rows = summary_rows(&err);
    assert!(!rows.is_empty());
    for (id, n) in &rows {
        assert_eq!(per_record.get(id), Some(n), "record {id}");
    }
    // Without --summary there is no table.
    let out = common::run_cmd(cmd().args(["--format", "json"]).arg(common::example_log()), b"");
    assert!(!common::stderr_of(&out).contains("annotail summary"));
}

#[test]
fn summary_on_ctrl_c_with_the_pipe_still_open() {
    let mut c = cmd();
    c.args(["--summary", "--format", "json"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut d = Guard(c.spawn().unwrap());
    let mut stdin = d.0.stdin.take().unwrap();
    let sample = fs::read(common::example_log()).unwrap();
    stdin.write_all(&sample).unwrap();
    stdin.flush().unwrap();
    // Wait until every event is out (as many as a run to the end gives), then Ctrl-C while the
    // writer keeps its end open (a writer that ignores the signal).
    let expected =
        common::events(&common::run_cmd(cmd().args(["--format", "json"]).arg(common::example_log()), b"").stdout).len();
    let events = collect(&mut d.0);
    let start = Instant::now();
    while events.lock().unwrap().len() < expected {
        assert!(start.elapsed() < PATIENCE, "only {} of {expected} events", events.lock().unwrap().len());
        thread::sleep(Duration::from_millis(20));
    }
    signal(&d.0, "-INT");
    let status = wait_timeout(&mut d.0, PATIENCE).expect("exits after Ctrl-C");
    assert_eq!(status.code(), Some(130));
    let mut err = String::new();
    d.0.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(err.contains("annotail summary (interrupted)"), "{err}");
    let lines = common::physical_lines(&sample);
    assert!(err.contains(&format!("lines read    {}", thousands(lines))), "{err}");
    drop(stdin);
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A reload re-frames each file from its open event's start; those lines were counted once
/// already (bug: `lines_read` grew by the open event's lines at every reload).
#[test]
fn regression_reload_counts_the_open_event_once() {
    let fx = FollowDir::new();
    let mut c = fx.command();
    // The last event stays open (no idle completion) across the reload.
    c.args(["--idle-timeout", "600000"]).stdout(Stdio::null());
    let mut d = Guard(c.spawn().unwrap());
    let addr = endpoint(&fx.err_file);
    let log = fx.logs.join("a.log");
    let event = |i: u32| {
        format!("2026-03-02T08:00:00.000000000Z ERROR risingwave_meta: failed {i}\n  caused by: x\n  caused by: y\n")
    };
    let mut f = OpenOptions::new().create(true).append(true).open(&log).unwrap();
    for i in 0..4 {
        f.write_all(event(i).as_bytes()).unwrap();
    }
    let source = fx.source_series("annotail_lines_read_total");
    scrape_until(&addr, "12 lines", |b| series(b, &source) == Some(12.0));
    for n in 1..=3 {
        signal(&d.0, "-HUP");
        scrape_until(&addr, "the reload", |b| {
            series(b, "annotail_catalog_reloads_total{result=\"ok\"}") == Some(n as f64)
        });
    }
    f.write_all(event(4).as_bytes()).unwrap();
    let body = scrape_until(&addr, "15 lines", |b| series(b, &source).unwrap_or(0.0) >= 15.0);
    assert_eq!(series(&body, &source), Some(15.0), "lines counted twice after reloads");
    assert_eq!(
        series(&body, &fx.source_series("annotail_bytes_read_total")),
        Some(fs::metadata(&log).unwrap().len() as f64)
    );
    signal(&d.0, "-TERM");
    assert!(wait_timeout(&mut d.0, PATIENCE).expect("exits").success());
}

/// The series an operator expects beside annotail's own: the build's version, and the process's
/// CPU, memory and descriptors, which agree with what /proc says about the daemon; per-record
/// series carry the record's slug.
#[test]
fn build_info_process_series_and_record_slugs() {
    let fd = FollowDir::new();
    fs::write(fd.logs.join("a.log"), common::lines(&[&common::split_line(1, 7), &common::split_line(2, 8)])).unwrap();
    let mut c = fd.command();
    c.stdout(Stdio::null());
    let child = Guard(c.spawn().unwrap());
    let addr = endpoint(&fd.err_file);
    let body = scrape_until(&addr, "two matches", |b| series(b, "annotail_matches_total{severity=\"warning\"}") == Some(2.0));
    let build = format!("annotail_build_info{{version=\"{}\"}}", env!("CARGO_PKG_VERSION"));
    assert_eq!(series(&body, &build), Some(1.0), "{body}");
    assert_eq!(
        series(&body, "annotail_record_matches_total{record=\"t-split\",slug=\"barrier-collect\",severity=\"warning\"}"),
        Some(2.0),
        "{body}"
    );
    let pid = child.0.id();
    // utime + stime (fields 14 and 15, here 12 and 13 after the command), in ticks of 1/100 s.
    let cpu_now = || {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split_whitespace().collect();
        (fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap()) / 100.0
    };
    // The scrape must lie between what /proc said before and after it. The daemon may well have
    // used less than one tick by then (it once had, and a bound `> 0` failed): the lower bound
    // is what /proc itself says, never a guess.
    let before = cpu_now();
    let body = scrape_until(&addr, "a scrape", |_| true);
    let after = cpu_now();
    let scraped = series(&body, "process_cpu_seconds_total").expect("process_cpu_seconds_total");
    assert!(scraped >= before - 0.01 && scraped <= after + 0.01, "scraped {scraped} s, /proc {before} s before, {after} s after");
    let rss = series(&body, "process_resident_memory_bytes").unwrap();
    let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let vm_rss_kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap().trim().trim_end_matches(" kB").trim().parse().unwrap();
    assert!(rss > 1e6 && (rss / 1024.0 - vm_rss_kb).abs() < vm_rss_kb * 0.5, "rss {rss} vs VmRSS {vm_rss_kb} kB");
    let open = series(&body, "process_open_fds").unwrap();
    let now = fs::read_dir(format!("/proc/{pid}/fd")).unwrap().count() as f64;
    assert!(open >= 3.0 && (open - now).abs() <= 8.0, "open fds {open}, /proc now {now}");
    assert!(series(&body, "process_max_fds").unwrap() >= open);
    assert!(series(&body, "process_virtual_memory_bytes").unwrap() >= rss);
    let started = series(&body, "process_start_time_seconds").unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    assert!(started > now - 120.0 && started <= now + 1.0, "started {started}, now {now}");
}

/// Matches found only inside a span field of an INFO/DEBUG line are counted as context, not as
/// matches: `annotail_context_matches_total` is the number of `context[]` entries the events of
/// the example log carry (an `--all` run shows them), and none of those lines is confirmed.
#[test]
fn context_matches_are_counted_apart_from_matches() {
    let all = common::run(&["--format", "json", "--all"], &fs::read(common::example_log()).unwrap());
    let evs = common::events(&all.stdout);
    let want: usize = evs.iter().map(|e| e["context"].as_array().map_or(0, Vec::len)).sum();
    let confirmed = evs.iter().filter(|e| !e["match"].is_null()).count();
    assert!(want > 0, "the example log's recovery spans repeat errors on INFO lines");
    let dir = tempfile::tempdir().unwrap();
    let err_file = dir.path().join("stderr.log");
    let mut c = cmd();
    c.args(["--format", "json", "--metrics-addr", "127.0.0.1:0", "--log-level", "info"]);
    c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(fs::File::create(&err_file).unwrap());
    let mut d = Guard(c.spawn().unwrap());
    let addr = endpoint(&err_file);
    let events = collect(&mut d.0);
    let mut stdin = d.0.stdin.take().unwrap();
    let sample = fs::read(common::example_log()).unwrap();
    stdin.write_all(&sample).unwrap();
    stdin.flush().unwrap();
    let lines = common::physical_lines(&sample) as f64;
    let body = scrape_until(&addr, "the whole sample", |b| {
        series(b, "annotail_lines_read_total{source=\"stdin\"}") == Some(lines)
            && series(b, "annotail_confirmed_events_total") == Some(confirmed as f64)
    });
    assert_eq!(series(&body, "annotail_context_matches_total"), Some(want as f64), "{body}");
    drop(stdin);
    assert!(wait_timeout(&mut d.0, PATIENCE).expect("exits at the end of input").success());
    let written = events.lock().unwrap();
    assert_eq!(written.len(), confirmed, "events with context only are not written without --all");
    assert!(written.iter().all(|e| e["context"].as_array().is_none_or(|c| !c.is_empty())));
}
