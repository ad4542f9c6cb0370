//! Storms: repeats of a known error collapsed in pretty output, counted as incidents, and
//! summed up by a sink's `dedupe` without losing an event across `kill -9`.

mod common;

use std::collections::HashSet;
use std::fs;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use common::{PATIENCE, cmd, fixture, wait_timeout};
use serde_json::Value;

/// A `t-split` warning (capture `actor_id`) `secs` seconds after 10:00 on the day.
fn barrier(secs: u64, actor: u64) -> String {
    format!(
        "2026-11-29T{:02}:{:02}:{:02}.{:03}Z  WARN risingwave_stream::x: barrier collection failed for actor {actor}\n",
        10 + secs / 3600,
        secs / 60 % 60,
        secs % 60,
        secs % 1000
    )
}

/// A `t-quote` error.
fn ambiguous(secs: u64) -> String {
    format!(
        "2026-11-29T{:02}:{:02}:{:02}.000Z ERROR risingwave_frontend::x: column \"v\" is ambiguous\n",
        10 + secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn pretty(args: &[&str], input: &str) -> String {
    let fx = fixture();
    let log = fx.write("storm.log", input);
    let mut full = vec!["--format", "pretty", "--color", "never"];
    full.extend_from_slice(args);
    let log = log.display().to_string();
    full.push(&log);
    let out = fx.run(&full, b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Output lines that are not input lines (the annotation).
fn annotation(out: &str) -> Vec<&str> {
    out.lines().filter(|l| !l.starts_with("2026-")).collect()
}

fn full_annotations(out: &str) -> usize {
    out.lines().filter(|l| l.contains("╰─")).count()
}

fn markers(out: &str) -> Vec<&str> {
    out.lines().filter(|l| l.trim_start().starts_with('↻')).collect()
}

#[test]
fn a_storm_of_10000_repeats_keeps_every_line_and_adds_at_most_200() {
    // Ten thousand repeats over 50 s: one incident.
    let input: String = (0..10_000).map(|i| barrier(i / 200, 7)).collect();
    let out = pretty(&[], &input);
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("2026-")).collect();
    assert_eq!(lines, input.lines().collect::<Vec<_>>(), "every original line, in order");
    let extra = annotation(&out);
    assert!(extra.len() <= 200, "{} lines of annotation", extra.len());
    assert_eq!(full_annotations(&out), 1);
    let m = markers(&out);
    assert_eq!(m.len(), 5, "{m:?}");
    assert!(m[0].contains("barrier-collect (t-split) again: ×2 in"), "{m:?}");
    assert!(m[4].contains("×10000 in 49 s"), "{m:?}");
    // Off: every repeat annotated in full, as before.
    let all = pretty(&["--no-collapse"], &input);
    assert_eq!(full_annotations(&all), 10_000);
    assert!(markers(&all).is_empty());
}

#[test]
fn the_full_annotation_comes_back_after_the_window() {
    // One line every 20 s for 200 s: a new incident every 60 s.
    let input: String = (0..10).map(|i| barrier(i * 20, 7)).collect();
    let out = pretty(&[], &input);
    assert_eq!(full_annotations(&out), 4, "{out}");
    let out = pretty(&["--collapse-window", "10s"], &input);
    assert_eq!(full_annotations(&out), 10, "{out}");
}

#[test]
fn alternating_records_are_collapsed_each_on_its_own() {
    let input: String = (0..2000).map(|i| if i % 2 == 0 { barrier(i / 100, 7) } else { ambiguous(i / 100) }).collect();
    let out = pretty(&[], &input);
    assert_eq!(full_annotations(&out), 2, "one per record");
    let m = markers(&out);
    let split = m.iter().filter(|l| l.contains("(t-split)")).count();
    let quote = m.iter().filter(|l| l.contains("(t-quote)")).count();
    // ×2, ×10, ×100, ×1000 for each.
    assert_eq!((split, quote), (4, 4), "{m:?}");
}

#[test]
fn changing_captures_are_new_incidents_unless_the_key_says_otherwise() {
    let input: String = (0..50).map(|i| barrier(i, 100 + i % 5)).collect();
    let out = pretty(&[], &input);
    assert_eq!(full_annotations(&out), 5, "one per actor id");
    let out = pretty(&["--collapse-key", "record"], &input);
    assert_eq!(full_annotations(&out), 1);
    let fx = fixture();
    let bad = fx.run(&["--collapse-key", "record,colour", "-"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown key part \"colour\""));
}

#[test]
fn summary_and_stats_count_incidents_beside_matches() {
    let fx = fixture();
    // 300 repeats of one warning over 150 s (3 incidents), 2 different actors once each, one error.
    let mut input: String = (0..300).map(|i| barrier(i / 2, 7)).collect();
    input.push_str(&barrier(10, 8));
    input.push_str(&barrier(11, 9));
    input.push_str(&ambiguous(12));
    let log = fx.write("a.log", &input);
    let out = fx.run(&["--summary", &log.display().to_string()], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("303 events, 303 matches of 2 records\n  incidents     6\n"), "{err}");
    let row = err.lines().find(|l| l.contains("barrier-collect")).unwrap();
    assert_eq!(row.split_whitespace().take(3).collect::<Vec<_>>(), ["302", "5", "warning"], "{err}");

    let stats = cmd()
        .args(["stats", "-c", &fx.catalog.display().to_string(), "--against", &log.display().to_string(), "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&stats.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&stats.stderr)));
    let top = v["top_matched"].as_array().unwrap();
    let split = top.iter().find(|t| t["record"] == "t-split").unwrap();
    assert_eq!((split["matches"].as_u64(), split["incidents"].as_u64()), (Some(302), Some(5)));
}

/// The bug: a line older than the open incident's first counted as no time passed however much
/// older, so a second pod's log read after the first's (`kubectl logs --prefix -l …` prints one
/// pod after another), hours earlier, was all repeats: its first occurrence got no annotation,
/// and `--summary` counted fewer incidents than `stats` on the same files (an incident
/// responder's reading). Within the window, an older line is still a repeat.
#[test]
fn regression_an_older_input_read_second_opens_incidents_of_its_own() {
    let fx = fixture();
    // meta-0 at 12:00, then meta-1 two hours earlier, then meta-1 again 20 s before meta-0's.
    let late: String = (7200..7203).map(|s| barrier(s, 7)).collect();
    let early: String = (0..3).map(|s| barrier(s, 7)).collect();
    let near: String = (7180..7182).map(|s| barrier(s, 7)).collect();
    let a = fx.write("meta-0.log", &late).display().to_string();
    let b = fx.write("meta-1.log", &early).display().to_string();
    let c = fx.write("meta-2.log", &near).display().to_string();
    let out = fx.run(&["--format", "pretty", "--color", "never", &a, &b], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(full_annotations(&text), 2, "{text}");
    assert_eq!(markers(&text).len(), 2, "{text}");
    let out = fx.run(&["--summary", &a, &b], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\n  incidents     2\n"), "{err}");
    let stats = cmd()
        .args(["stats", "-c", &fx.catalog.display().to_string(), "--against", &a, "--against", &b, "--format", "json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&stats.stdout).unwrap();
    let split = v["top_matched"].as_array().unwrap().iter().find(|t| t["record"] == "t-split").cloned().unwrap();
    assert_eq!((split["matches"].as_u64(), split["incidents"].as_u64()), (Some(6), Some(2)), "{v}");
    // 20 s older than the incident's first: interleaved sources, no time passed.
    let out = fx.run(&["--format", "pretty", "--color", "never", &a, &c], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(full_annotations(&text), 1, "{text}");
    // The two pods' lines interleaved (`kubectl logs -f --prefix` over pods started hours apart):
    // an incident on each clock, not one at each switch of source (a second reader found 480
    // incidents where there were 8).
    let mixed: String = (0..100).map(|i| barrier(7200 + i / 2, 7) + &barrier(i / 2, 7)).collect();
    let m = fx.write("mixed.log", &mixed).display().to_string();
    let out = fx.run(&["--format", "pretty", "--color", "never", &m], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(full_annotations(&text), 2, "{text}");
    let out = fx.run(&["--summary", &m], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\n  incidents     2\n"), "{err}");
    // Three pods, the earliest printed first, for two windows each: 6 incidents (a third reader
    // found 484 for three clocks where a key kept two, and the first pod's incident taken over
    // by the next when that one's clock was later).
    let three: String = (0..240).map(|i| barrier([0, 7200, 3600][i % 3] + (i / 3) as u64, 7)).collect();
    let t = fx.write("three.log", &three).display().to_string();
    let out = fx.run(&["--format", "pretty", "--color", "never", &t], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(full_annotations(&text), 6, "{text}");
    let out = fx.run(&["--summary", &t], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\n  incidents     6\n"), "{err}");
}

/// The bug: once 4,096 incidents were open, each new key made room by a scan of every open key
/// for the oldest, so a storm whose captured value changes on every line (an actor id, a
/// counter) cost about 10 µs a line there: 400,000 such lines took 4.4 s of CPU (0.5 s now).
/// The bound is CPU time (utime + stime, from the shell's `times`), not wall time, and generous.
#[test]
fn regression_a_storm_of_new_keys_at_the_incident_cap_is_not_a_scan_per_line() {
    let fx = fixture();
    // 400,000 warnings over 40 s, each with an actor of its own: each is an incident.
    let input: String = (0..400_000).map(|i| barrier(i / 10_000, i)).collect();
    let log = fx.write("storm.log", &input);
    let catalog = fx.catalog.display().to_string();
    let args = ["-c", &catalog, "--threads", "1", "--summary", "--format", "json", &log.display().to_string()];
    let (out, children) = common::run_cpu_timed(&args, Path::new("/dev/null"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("400,000 events, 400,000 matches of 1 record\n  incidents     400,000\n"), "{err}");
    assert!(children < common::cpu_bound(2.0), "{children:.2} s of CPU for 400,000 lines");
}

/// The daemon following `dir/logs/*.log` to a TCP sink with `dedupe`.
fn daemon(dir: &Path, port: u16, window: &str) -> Child {
    daemon_with(dir, port, window, "")
}

/// [`daemon`] with `tables` (TOML tables) added to its configuration.
fn daemon_with(dir: &Path, port: u16, window: &str, tables: &str) -> Child {
    let cfg = dir.join("annotail.toml");
    fs::write(dir.join("catalog.jsonl"), common::TEST_CATALOG).unwrap();
    fs::write(
        &cfg,
        format!(
            "catalog = [\"catalog.jsonl\"]\n[[sources]]\npaths = [\"logs/*.log\"]\n[state]\ndir = \"state\"\n\
             [[sinks]]\nurl = \"tcp://127.0.0.1:{port}\"\ndedupe = {{ window = \"{window}\" }}\n{tables}"
        ),
    )
    .unwrap();
    let err = fs::OpenOptions::new().create(true).append(true).open(dir.join("stderr.log")).unwrap();
    cmd()
        .arg("--config")
        .arg(&cfg)
        .args(["--log-level", "info", "--poll-interval", "50ms"])
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .unwrap()
}

fn receiver() -> (u16, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let got = Arc::new(Mutex::new(Vec::<Value>::new()));
    let g = got.clone();
    thread::spawn(move || {
        for s in listener.incoming().flatten() {
            let g = g.clone();
            thread::spawn(move || {
                for l in BufReader::new(s).lines().map_while(Result::ok) {
                    g.lock().unwrap().push(serde_json::from_str(&l).expect("whole JSON events"));
                }
            });
        }
    });
    (port, got)
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let t = Instant::now();
    while !f() {
        assert!(t.elapsed() < PATIENCE, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// Event ids an event stands for: its own, and those of the repeats it sums up.
fn covered(events: &[Value]) -> HashSet<String> {
    let mut ids = HashSet::new();
    for e in events {
        ids.insert(e["event_id"].as_str().unwrap().to_owned());
        if let Some(r) = e["repeat"]["event_ids"].as_array() {
            ids.extend(r.iter().map(|i| i.as_str().unwrap().to_owned()));
        }
    }
    ids
}

#[test]
fn dedupe_sends_the_first_and_one_summary_per_window() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("logs")).unwrap();
    let mut input: String = (0..500).map(|i| barrier(i / 10, 7)).collect();
    input.push_str(&ambiguous(60));
    fs::write(dir.path().join("logs/a.log"), &input).unwrap();
    let (port, got) = receiver();
    let d = daemon(dir.path(), port, "1s");
    wait_until("the summary", || got.lock().unwrap().iter().any(|e| e.get("repeat").is_some()));
    let st = std::process::Command::new("kill").arg("-TERM").arg(d.id().to_string()).status().unwrap();
    assert!(st.success());
    let mut d = d;
    assert!(wait_timeout(&mut d, PATIENCE).expect("exits").success());
    let evs = got.lock().unwrap().clone();
    assert_eq!(evs.len(), 3, "the first barrier event, the error, one summary: {evs:#?}");
    assert!(evs[0].get("repeat").is_none() && evs[0]["match"]["id"] == "t-split");
    assert_eq!(evs[1]["match"]["id"], "t-quote");
    let s = &evs[2];
    assert_eq!(s["match"]["id"], "t-split");
    assert_eq!(s["repeat"]["count"], 499);
    assert_eq!(s["repeat"]["first_timestamp"], "2026-11-29T10:00:00.000Z");
    assert_eq!(s["repeat"]["last_timestamp"], "2026-11-29T10:00:49.049Z");
    assert_eq!(s["repeat"]["event_ids"].as_array().unwrap().len(), 499);
    assert_eq!(s["repeat"]["window_seconds"], 1.0);
    assert_eq!(covered(&evs).len(), 501, "every event is sent or summed up by id");
}

/// A dedupe sink keyed every event by its record alone: a storm of a known host message held
/// back each new root cause under it (`error=` no record explains) as a repeat, so the cause
/// never reached the receiver, and a storm of an error no record explains was never summed up
/// (found by a pipeline owner's reading). The cause's cluster is in the key now, and an event
/// no record explains is keyed by its cluster.
#[test]
fn regression_dedupe_sends_each_new_unknown_cause_and_sums_up_unknown_storms() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("logs")).unwrap();
    let with_cause = |secs: u64, cause: &str| barrier(secs, 7).replace('\n', &format!(" error={cause}\n"));
    let (quota, lease) = ("disk quota exceeded on volume", "lease lost for epoch");
    let stalled = |secs: u64| {
        barrier(secs, 7).replace(
            "risingwave_stream::x: barrier collection failed for actor 7",
            "risingwave_stream::y: sink writer stalled badly",
        )
    };
    let input = [
        with_cause(0, quota),
        with_cause(1, quota),
        with_cause(2, lease),
        with_cause(3, quota),
        with_cause(4, lease),
        stalled(5),
        stalled(6),
        stalled(7),
    ]
    .concat();
    fs::write(dir.path().join("logs/a.log"), &input).unwrap();
    let (port, got) = receiver();
    let d = daemon_with(dir.path(), port, "1s", "[unknown]\nlevels = \"warn\"\n");
    wait_until("three summaries", || got.lock().unwrap().iter().filter(|e| e.get("repeat").is_some()).count() == 3);
    let st = std::process::Command::new("kill").arg("-TERM").arg(d.id().to_string()).status().unwrap();
    assert!(st.success());
    let mut d = d;
    assert!(wait_timeout(&mut d, PATIENCE).expect("exits").success());
    let evs = got.lock().unwrap().clone();
    let firsts: Vec<(&str, u64)> = evs
        .iter()
        .filter(|e| e.get("repeat").is_none())
        .map(|e| (e["unknown"]["template"].as_str().unwrap(), e["unknown"]["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        firsts,
        [("disk quota exceeded on volume", 1), ("lease lost for epoch", 1), ("sink writer stalled badly", 1)],
        "each cause's first event goes out at once: {evs:#?}"
    );
    let summaries: Vec<(&str, u64)> = evs
        .iter()
        .filter_map(|e| Some((e["unknown"]["template"].as_str()?, e.get("repeat")?["count"].as_u64()?)))
        .collect();
    assert_eq!(
        summaries,
        [("disk quota exceeded on volume", 2), ("lease lost for epoch", 1), ("sink writer stalled badly", 2)],
        "{evs:#?}"
    );
    assert_eq!(covered(&evs).len(), 8, "every event is sent or summed up by id");
}

#[test]
fn dedupe_loses_nothing_across_kill_9_before_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("logs")).unwrap();
    let input: String = (0..300).map(|i| barrier(i / 10, 7)).collect();
    fs::write(dir.path().join("logs/a.log"), &input).unwrap();
    let (port, got) = receiver();
    // A long window: the repeats are held when the daemon dies.
    let mut d = daemon(dir.path(), port, "1h");
    wait_until("the first event", || !got.lock().unwrap().is_empty());
    thread::sleep(Duration::from_millis(500));
    d.kill().unwrap();
    d.wait().unwrap();
    let before = got.lock().unwrap().clone();
    assert_eq!(before.len(), 1, "only the first event went out: {before:#?}");
    // The checkpoint did not pass the held repeats: a restart reads them again.
    let mut d = daemon(dir.path(), port, "1s");
    wait_until("the summary", || got.lock().unwrap().iter().any(|e| e.get("repeat").is_some()));
    let st = std::process::Command::new("kill").arg("-TERM").arg(d.id().to_string()).status().unwrap();
    assert!(st.success());
    assert!(wait_timeout(&mut d, PATIENCE).expect("exits").success());
    let evs = got.lock().unwrap().clone();
    assert_eq!(covered(&evs).len(), 300, "{evs:#?}");
}

/// A storm of one known host message over causes no record explains: the key is the known
/// error's, so every repeat was collapsed, and a new root cause inside an ongoing storm was
/// never said (found by a second reader). A repeat now shows its unknown cause the first time
/// annotail meets it, and only then.
#[test]
fn regression_a_repeat_still_shows_an_unknown_cause_met_for_the_first_time() {
    let with_cause = |secs: u64, cause: &str| barrier(secs, 7).replace('\n', &format!(" error={cause}\n"));
    let input = [
        with_cause(0, "dns error: failed to lookup address information"),
        with_cause(5, "disk quota exceeded on /data"),
        with_cause(6, "dns error: failed to lookup address information"),
        with_cause(7, "certificate has expired"),
    ]
    .concat();
    let out = pretty(&["--unknown", "warn"], &input);
    let unknown: Vec<&str> = out.lines().filter(|l| l.contains("unknown warning, cluster")).collect();
    let templates: Vec<&str> = out.lines().filter_map(|l| l.trim().strip_prefix("template: ")).collect();
    assert_eq!(unknown.len(), 3, "{out}");
    assert!(unknown.iter().all(|l| l.ends_with("seen 1×")), "{out}");
    // `dns error` names a kind of error: its cause goes with it.
    let dns = "dns error: failed to lookup address information";
    assert_eq!(templates, [dns, "disk quota exceeded on <*>", "certificate has expired"], "{out}");
    let known = out.lines().filter(|l| l.contains("╰─ WARNING barrier-collect")).count();
    assert_eq!(known, 1, "one full annotation of the known error: {out}");
    assert!(out.contains("again: ×2 in 5 s\n  ╰─ unknown warning"), "under the marker: {out}");
    assert_eq!(markers(&out).len(), 1, "{out}");
    // Without --unknown the repeats are as before: the lines and one marker.
    let plain = pretty(&[], &input);
    assert_eq!((full_annotations(&plain), markers(&plain).len()), (1, 1), "{plain}");
    assert!(!plain.contains("unknown"), "{plain}");
}

/// A storm of one error no record explains filled the screen: every repeat got its own two
/// `unknown …` lines (found by a second reader). Its cluster is now collapsed as a known
/// error's record is: the first in full, then the lines and a marker at ×2, ×10, ×100.
#[test]
fn a_storm_of_one_unknown_error_is_collapsed_by_its_cluster() {
    let storm: String = (0..100u64)
        .map(|i| {
            format!(
                "2026-11-29T10:00:{:02}.{:03}Z ERROR risingwave_stream::sink: sink writer {} failed: broken pipe\n",
                i / 10,
                i % 10 * 100,
                i % 3
            )
        })
        .collect();
    let out = pretty(&["--unknown", "warn"], &storm);
    assert_eq!(out.lines().filter(|l| l.starts_with("2026-")).count(), 100, "every line: {out}");
    let full: Vec<&str> = out.lines().filter(|l| l.contains("╰─ unknown error, cluster")).collect();
    assert_eq!(full.len(), 1, "{out}");
    let marks = markers(&out);
    assert_eq!(marks.len(), 3, "×2, ×10, ×100: {out}");
    assert!(marks[0].contains("↻ unknown error, cluster") && marks[0].contains("again: ×2 in 0.1 s"), "{marks:?}");
    assert!(marks[2].contains("again: ×100 in 9 s"), "{marks:?}");
    // A cluster spans levels: its first ERROR after a storm of WARNs is no repeat of them (a
    // third reader found the escalation echoed bare).
    let escalation: String = (0..6u64)
        .map(|i| {
            let level = if i == 5 { "ERROR" } else { " WARN" };
            format!("2026-11-29T10:00:0{i}.000Z {level} risingwave_meta::barrier: widget {i} exploded\n")
        })
        .collect();
    let out = pretty(&["--unknown", "warn"], &escalation);
    assert_eq!(out.lines().filter(|l| l.contains("╰─ unknown warning, cluster")).count(), 1, "{out}");
    let error_at = out.lines().position(|l| l.contains("ERROR risingwave_meta")).unwrap();
    assert!(out.lines().nth(error_at + 1).unwrap().contains("╰─ unknown error, cluster"), "{out}");
    // `--no-collapse`: each in full.
    let every = pretty(&["--unknown", "warn", "--no-collapse"], &storm);
    assert_eq!(every.lines().filter(|l| l.contains("╰─ unknown error, cluster")).count(), 100, "{every}");
    // A known error's incident counts are the catalog's: the unknown storm opens none.
    let fx = fixture();
    let log = fx.write("storm.log", &storm);
    for format in ["json", "pretty"] {
        let out = fx.run(&["--unknown", "warn", "--format", format, "--summary", &log.display().to_string()], b"");
        let err = String::from_utf8_lossy(&out.stderr);
        let incidents = err.lines().find(|l| l.trim_start().starts_with("incidents")).expect("incidents line");
        assert_eq!(incidents.split_whitespace().collect::<Vec<_>>(), ["incidents", "0"], "{format}: {err}");
        assert!(err.contains("100 events, 1 cluster alive"), "{format}: {err}");
    }
}
