//! `--threads`: a file read by several workers gives byte for byte the output of one thread
//! (apart from the read time), with multi-line events that straddle segment borders kept whole.

mod common;

use common::*;
use serde_json::Value;

/// The example log repeated past several 4 MiB segments, with a `Caused by` report and a
/// backtrace in every copy so that multi-line events meet the segment borders.
fn big_input(dir: &std::path::Path) -> std::path::PathBuf {
    let log = std::fs::read_to_string(example_log()).unwrap();
    let report = "2026-03-02T08:00:00.776978869Z ERROR risingwave_meta::stream::source_manager::worker: Failed to execute enumerator `on_tick` for source 7: Don't support Float32 and Int256\n\nCaused by:\n    Local: Broker transport failure\n\nBacktrace:\n   0: std::backtrace::Backtrace::capture\n             at ./library/std/src/backtrace.rs:296:9\n";
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 13 << 20 {
        text.push_str(&log);
        // Vary where the multi-line events fall.
        for _ in 0..(i % 7) {
            text.push_str(report);
        }
        i += 1;
    }
    let p = dir.join("big.log");
    std::fs::write(&p, text).unwrap();
    p
}

fn without_read_time(out: &[u8]) -> Vec<Value> {
    events(out)
        .into_iter()
        .map(|mut e| {
            e.as_object_mut().unwrap().remove("observed");
            if e["log"]["format"] == "panic" || e["log"]["format"] == "plain" {
                // Lines without a time of their own are stamped when read.
                e.as_object_mut().unwrap().remove("@timestamp");
            }
            e
        })
        .collect()
}

#[test]
fn threads_give_the_output_of_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let input = big_input(dir.path());
    for extra in [&[][..], &["--all"][..]] {
        let one = run(&[&["--threads", "1"], extra, &[&path_str(&input)]].concat(), b"");
        let three = run(&[&["--threads", "3"], extra, &[&path_str(&input)]].concat(), b"");
        assert_eq!(one.status.code(), Some(0), "{}", stderr_of(&one));
        assert_eq!(three.status.code(), Some(0), "{}", stderr_of(&three));
        let (a, b) = (without_read_time(&one.stdout), without_read_time(&three.stdout));
        assert!(a.len() > 1000, "{} events", a.len());
        assert_eq!(a.len(), b.len(), "{extra:?}");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x, y, "{extra:?}");
        }
        if extra.is_empty() {
            // The multi-line reports are whole in both: every one spans its 8 lines.
            let reports: Vec<&Value> = b
                .iter()
                .filter(|e| e["message"].as_str().is_some_and(|m| m.contains("for source 7: Don't support")))
                .collect();
            assert!(!reports.is_empty());
            assert!(reports.iter().all(|e| src_lines(e) == 8), "a report was split");
        } else {
            let total = physical_lines(&std::fs::read(&input).unwrap());
            assert_covers(&b, total);
        }
    }
}

/// Regression: segment cuts look for an event start in the last 16 KiB before the target first.
/// Events longer than that (a 40 KiB await-tree dump) must make the reader look further back,
/// not cut them: each must come out whole, as with one thread.
#[test]
fn regression_events_longer_than_the_small_lookback_are_not_split() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::read_to_string(example_log()).unwrap();
    let mut dump = String::from(
        "2026-03-02T08:00:01.000000000Z ERROR risingwave_meta::barrier: Failed to execute enumerator `on_tick` for source 9: Don't support Float32 and Int256\n",
    );
    for k in 0..700 {
        dump.push_str(&format!("    actor {k:>5} [1.234s] Epoch 7 await-tree frame: waiting on the exchange\n"));
    }
    assert!(dump.len() > 40 << 10);
    // Mostly dumps, so that segment targets (every few MiB) fall deep inside one.
    let head: String = log.lines().take(5).map(|l| format!("{l}\n")).collect();
    let mut text = String::new();
    while text.len() < 12 << 20 {
        text.push_str(&head);
        text.push_str(&dump);
    }
    let input = dir.path().join("dumps.log");
    std::fs::write(&input, &text).unwrap();
    let one = run(&["--threads", "1", &path_str(&input)], b"");
    let two = run(&["--threads", "2", &path_str(&input)], b"");
    assert_eq!(two.status.code(), Some(0), "{}", stderr_of(&two));
    let (a, b) = (without_read_time(&one.stdout), without_read_time(&two.stdout));
    assert_eq!(a, b);
    let dumps: Vec<&Value> =
        b.iter().filter(|e| e["message"].as_str().is_some_and(|m| m.contains("for source 9: Don't support"))).collect();
    assert_eq!(dumps.len(), text.matches("for source 9").count());
    assert!(dumps.iter().all(|e| src_lines(e) == 701), "a dump was split");
}

/// Lines longer than a segment's cut window (a 3 MiB line, a 40 MiB one, 40 MiB of NUL bytes)
/// read by two threads give what one thread gives: one event each, cut at `--max-line-bytes`.
/// Segments were cut inside such lines: a 100 MB line gave 49 events, a 3 MB one 3 instead of 2.
#[test]
fn regression_lines_longer_than_a_segment_are_one_event_with_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let before = "2026-03-02T08:00:01.000001Z  INFO risingwave_meta: before\n";
    let after = "2026-03-02T08:00:02.000001Z  INFO risingwave_meta: after\n";
    let cases: [(&str, Vec<u8>); 3] = [
        ("3 MiB line", format!("2026-03-02T08:00:01.500001Z ERROR x: {}\n", "y".repeat(3 << 20)).into_bytes()),
        ("40 MiB line", format!("2026-03-02T08:00:01.500001Z ERROR x: {}\n", "z".repeat(40 << 20)).into_bytes()),
        ("40 MiB of NULs", {
            let mut v = vec![0u8; 40 << 20];
            v.push(b'\n');
            v
        }),
    ];
    for (what, long) in cases {
        let mut text = before.repeat(20_000).into_bytes();
        text.extend_from_slice(&long);
        text.extend_from_slice(after.repeat(20_000).as_bytes());
        let p = dir.path().join("long.log");
        std::fs::write(&p, &text).unwrap();
        let run = |threads: &str| {
            let out = run(&["--all", "--format", "json", "--threads", threads, p.to_str().unwrap()], b"");
            assert!(out.status.success(), "{what}: {}", stderr_of(&out));
            without_read_time(&out.stdout)
        };
        let one = run("1");
        let two = run("2");
        // A line of NULs is no header: it continues the event before it.
        let events = if what.contains("NUL") { 40_000 } else { 40_001 };
        assert_eq!(one.len(), events, "{what}: one thread");
        assert_eq!(two.len(), one.len(), "{what}: two threads give as many events");
        assert!(one == two, "{what}: the same events");
    }
}
