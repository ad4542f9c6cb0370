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
