//! End-to-end tests of the `annotail` command: the example log scored against its truth,
//! streaming from standard input, exit statuses, a closed standard output, and `explain`.

mod common;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;

use common::*;
use serde_json::Value;

/// The shared scorer, copied into the repository so that CI needs nothing outside it.
fn score_py() -> String {
    std::env::var("ANNOTAIL_SCORE_PY")
        .unwrap_or_else(|_| format!("{}/tests/tools/score.py", env!("CARGO_MANIFEST_DIR")))
}

// ---------------------------------------------------------------------------------------------
// 1. The example log, scored.

#[test]
fn example_log_scores_against_its_truth() {
    let dir = tempfile::tempdir().unwrap();
    let events_path = dir.path().join("events.jsonl");
    let out = run(&[example_log()], b"");
    let evs = ok_events(&out);
    assert!(!evs.is_empty(), "no event for examples/meta.log");
    for e in &evs {
        assert_eq!(e["schema"], "annotail/1");
        assert_eq!(e["source"]["kind"], "file");
        assert!(e["match"].is_object(), "without --all every event has a match: {e}");
        let level = e["log"]["level"].as_str().unwrap_or("");
        assert!(!matches!(level, "INFO" | "DEBUG"), "an INFO/DEBUG line with only a span's error is context: {e}");
    }
    // The truth was made before the context rule: it lists the errors that recovery spans repeat
    // on INFO/DEBUG lines as expected matches. Those are the events' `context[]` now, which an
    // `--all` run writes; they are scored as reported.
    let all = ok_events(&run(&["--all".to_owned(), path_str(&example_log())], b""));
    let mut scored = Vec::new();
    for mut e in all {
        let ctx = e["context"].as_array().cloned().unwrap_or_default();
        if e["match"].is_null() && !ctx.is_empty() {
            e["match"] = ctx[0].clone();
            e["also_matched"] = Value::Array(ctx[1..].to_vec());
        }
        if e["match"].is_object() {
            scored.extend_from_slice(serde_json::to_string(&e).unwrap().as_bytes());
            scored.push(b'\n');
        }
    }
    std::fs::write(&events_path, &scored).unwrap();

    let m = manifest_dir();
    let score = Command::new("python3")
        .arg(score_py())
        .arg("--catalog")
        .arg(m.join("config/catalog/risingwave-extracted.jsonl"))
        .arg("--truth")
        .arg(m.join("tests/meta-sample.truth.jsonl"))
        .arg("--events")
        .arg(&events_path)
        .arg("--json")
        .output()
        .expect("run python3 score.py");
    assert!(score.status.success(), "score.py failed: {}", String::from_utf8_lossy(&score.stderr));
    let s: Value = serde_json::from_slice(&score.stdout).unwrap_or_else(|e| {
        panic!("score.py --json output is not JSON ({e}): {}", String::from_utf8_lossy(&score.stdout))
    });
    let f = |k: &str| s[k].as_f64().unwrap_or_else(|| panic!("score has no number {k}: {s}"));
    assert_eq!(s["truth_events"].as_u64(), Some(138), "{s}");
    assert!(f("recall") >= 0.995, "recall: {s}");
    assert!(f("precision") >= 0.995, "precision: {s}");
    assert!(f("captures") >= 0.95, "captures: {s}");
    assert!(s["reported"].as_u64().unwrap_or(0) > 0, "{s}");
}

/// With `--all`, the example's events cover all 2000 lines without gap or overlap, and every
/// multi-line event of the truth (`Caused by` reports, backtraces, panics) is one event with the
/// truth's first line and number of physical lines.
#[test]
fn example_log_all_events_cover_every_line_and_keep_multiline_events_whole() {
    let out = run(&["--all".to_owned(), path_str(&example_log())], b"");
    let evs = ok_events(&out);
    assert_covers(&evs, 2000);
    let truth = std::fs::read_to_string(manifest_dir().join("tests/meta-sample.truth.jsonl")).unwrap();
    let mut multi = 0;
    for t in truth.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        let line = t["line"].as_u64().unwrap();
        let e = at_line(&evs, line);
        assert_eq!(src_lines(e), t["lines"].as_u64().unwrap(), "lines of the event at {line}: {e}");
        // An error a span repeats on an INFO/DEBUG line is that line's context, not its match.
        assert!(e["match"].is_object() || e["context"].is_array(), "truth event at line {line} has no match: {e}");
        if t["lines"].as_u64().unwrap() > 1 {
            multi += 1;
        }
    }
    assert!(multi >= 10, "the truth has multi-line events");
    // Line 829 starts a 6-line report whose primary record sits on line 832, a continuation line:
    // matching sees the whole event.
    let e = at_line(&evs, 829);
    assert_eq!(src_lines(e), 6);
    assert_eq!(match_id(e), Some("075a1f9e8061d2da"), "{e}");
    let msg = e["message"].as_str().unwrap();
    let span = &e["match"]["span"];
    let (a, b) = (span[0].as_u64().unwrap() as usize, span[1].as_u64().unwrap() as usize);
    assert!(msg[..a].contains('\n'), "the primary match starts after the first line: {e}");
    assert_eq!(&msg[a..b], "The signature verification function must be SECURE_COMPARE()");
}

// ---------------------------------------------------------------------------------------------
// 2. Streaming from standard input.

struct Streaming {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    rx: mpsc::Receiver<String>,
    stderr: thread::JoinHandle<String>,
}

fn spawn_streaming(args: &[&str]) -> Streaming {
    let mut child = cmd()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn annotail");
    let stdin = child.stdin.take();
    let rx = line_reader(child.stdout.take().unwrap());
    let mut se = child.stderr.take().unwrap();
    let stderr = thread::spawn(move || {
        let mut s = String::new();
        let _ = se.read_to_string(&mut s);
        s
    });
    Streaming { child, stdin, rx, stderr }
}

impl Streaming {
    fn send(&mut self, text: &str) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(text.as_bytes()).expect("write to annotail");
        w.flush().expect("flush");
    }

    /// The next event, which must arrive while standard input is still open.
    fn next_event(&self, what: &str) -> Value {
        let line = self
            .rx
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("no event for {what} while stdin stays open ({e:?}): output is not streamed"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    fn finish(mut self) -> (Option<i32>, String, Vec<String>) {
        drop(self.stdin.take());
        let st = wait_timeout(&mut self.child, PATIENCE).unwrap_or_else(|| {
            let _ = self.child.kill();
            panic!("annotail did not exit after stdin was closed");
        });
        let rest: Vec<String> = self.rx.iter().collect();
        (st.code(), self.stderr.join().unwrap(), rest)
    }
}

#[test]
fn stdin_events_are_written_as_soon_as_complete_while_input_stays_open() {
    let mut s = spawn_streaming(&[]);
    s.send(&format!("{}\n", example_line(37)));
    let e = s.next_event("the first error line");
    assert_eq!(e["source"]["kind"], "stdin");
    assert_eq!(src_line(&e), 1);
    assert_eq!(match_id(&e), Some(LINE37_PRIMARY), "{e}");

    // A second error line (example line 67, primary 77572addf622a1b8 in a span field).
    s.send(&format!("{}\n", example_line(67)));
    let e = s.next_event("the second error line");
    assert_eq!(src_line(&e), 2);
    assert_eq!(match_id(&e), Some("77572addf622a1b8"), "{e}");
    assert_eq!(e["match"]["field"], "span:failure_recovery.error");

    let (code, stderr, rest) = s.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(rest.is_empty(), "no further event after stdin closed: {rest:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// The first three lines of a report whose `Caused by:` entry (below them) the fixture's
/// `t-inner` matches.
fn report_head() -> String {
    lines(&[
        &rw_line(
            1,
            "WARN",
            "risingwave_meta::stream::stream_manager",
            "failed to notify cancellation result: s3 delete error",
        ),
        "",
        "Caused by:",
    ])
}

/// A multi-line event at the end of what has arrived so far is completed by the idle timeout,
/// not held back until the next event or the end of input.
#[test]
fn stdin_pending_multiline_event_is_completed_by_the_idle_timeout() {
    let fx = fixture();
    let cat = path_str(&fx.catalog);
    let mut s = spawn_streaming(&["-c", &cat, "--idle-timeout", "50"]);
    let report = report_head()
        + &lines(&[
            "    error returned from database: duplicate key value violates unique constraint \"object_pkey\"",
            " database_id=7",
        ]);
    s.send(&report);
    let e = s.next_event("the pending multi-line event");
    assert_eq!((src_line(&e), src_lines(&e)), (1, 5), "{e}");
    assert_eq!(match_id(&e), Some("t-inner"));
    assert_eq!(e["match"]["captures"]["constraint"], "\"object_pkey\"");

    s.send(&format!("{}\n", split_line(2, 31)));
    let e = s.next_event("the next error line");
    assert_eq!(src_line(&e), 6);
    assert_eq!(match_id(&e), Some("t-split"));
    let (code, stderr, rest) = s.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(rest.is_empty(), "{rest:?}");
}

/// Regression: a FIFO named as a path (`mkfifo p; kubectl logs -f meta-0 > p`, or a shell's
/// `<(…)`) was read as a file: output was written only when the writer closed it, and the last
/// event waited for that too. It is read as standard input is now: each event as it comes, a
/// pending one completed by the idle timeout.
#[test]
fn regression_a_fifo_named_as_a_path_is_streamed_as_standard_input_is() {
    let fx = fixture();
    let cat = path_str(&fx.catalog);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("meta.pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut child = cmd()
        .args(["-c", &cat, "--idle-timeout", "50", path_str(&fifo).as_str()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn annotail");
    let rx = line_reader(child.stdout.take().unwrap());
    // Opening the write end waits for annotail to open the read end.
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let next = |what: &str| -> Value {
        let line = rx
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|e| panic!("no event for {what} while the FIFO stays open ({e:?})"));
        serde_json::from_str(&line).unwrap()
    };
    // A multi-line report at the end of what has come so far: completed by the idle timeout.
    let report = report_head()
        + &lines(&[
            "    error returned from database: duplicate key value violates unique constraint \"object_pkey\"",
            " database_id=7",
        ]);
    w.write_all(report.as_bytes()).unwrap();
    let e = next("the pending multi-line event");
    assert_eq!(
        (e["source"]["kind"].as_str(), e["source"]["path"].as_str()),
        (Some("file"), Some(path_str(&fifo).as_str()))
    );
    assert_eq!((src_line(&e), src_lines(&e), match_id(&e)), (1, 5, Some("t-inner")), "{e}");
    w.write_all(format!("{}\n", split_line(2, 31)).as_bytes()).unwrap();
    let e = next("the next error line");
    assert_eq!((src_line(&e), match_id(&e)), (6, Some("t-split")), "{e}");
    drop(w);
    let st = wait_timeout(&mut child, PATIENCE).expect("annotail exits once the FIFO's writer closes it");
    assert_eq!(st.code(), Some(0));
    assert!(rx.try_recv().is_err(), "no further event");
}

/// Regression: on standard input, the idle timeout completed a pending event while the line
/// below it was half written, so the rest of the line (here the inner error a record matches)
/// came after its event was out: the event lost its last line and its match. Now a held partial
/// line that could continue the event (no header) is waited for, up to `--line-timeout`, after
/// which the event is completed without it (the line is held on, never cut).
#[test]
fn regression_stdin_idle_waits_for_a_half_written_continuation_line() {
    let fx = fixture();
    let cat = path_str(&fx.catalog);
    let mut s = spawn_streaming(&["-c", &cat, "--idle-timeout", "50", "--line-timeout", "2s"]);
    let head = report_head();
    s.send(&format!("{head}    error returned from database: duplicate key va"));
    // Six idle timeouts with the line half written.
    thread::sleep(std::time::Duration::from_millis(300));
    s.send("lue violates unique constraint \"object_pkey\"\n database_id=7\n");
    let e = s.next_event("the report with its whole last lines");
    assert_eq!((src_line(&e), src_lines(&e)), (1, 5), "{e}");
    assert_eq!(match_id(&e), Some("t-inner"), "{e}");
    assert_eq!(e["match"]["captures"]["constraint"], "\"object_pkey\"");
    let (code, stderr, rest) = s.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(rest.is_empty(), "one event, not the report and its cut line apart: {rest:?}");

    // A PostgreSQL report's detail line, cut after `DETA`.
    let mut s = spawn_streaming(&["-c", &cat, "--idle-timeout", "50", "--line-timeout", "2s"]);
    s.send(concat!(
        "2026-12-05 10:00:01.001 UTC [57] ERROR:  duplicate key value violates unique constraint \"object_pkey\"\n",
        "2026-12-05 10:00:01.002 UTC [57] DETA"
    ));
    thread::sleep(std::time::Duration::from_millis(300));
    s.send("IL:  Key (oid)=(1) already exists.\n");
    let e = s.next_event("the PostgreSQL report with its detail");
    assert_eq!((src_line(&e), src_lines(&e)), (1, 2), "{e}");
    let (code, stderr, rest) = s.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(rest.is_empty(), "{rest:?}");

    // A continuation line that stays half written: after `--line-timeout` the event is
    // completed without it, and the line, still held, is not cut: at the end of the input it
    // is a line, whole.
    let mut s = spawn_streaming(&["-c", &cat, "--all", "--idle-timeout", "50", "--line-timeout", "300ms"]);
    s.send(&format!("{head}    error returned from database: duplicate key value violates unique constraint"));
    let e = s.next_event("the report, once the held line has waited");
    assert_eq!((src_line(&e), src_lines(&e)), (1, 3), "{e}");
    s.send(" \"object_pkey\"");
    let (code, stderr, rest) = s.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert_eq!(rest.len(), 1, "{rest:?}");
    let e: Value = serde_json::from_str(&rest[0]).unwrap();
    assert_eq!((src_line(&e), src_lines(&e)), (4, 1), "{e}");
    assert_eq!(e["match"]["captures"]["constraint"], "\"object_pkey\"", "the line whole: {e}");

    // A half-received line in colour that starts the next event does not hold the pending one
    // (with `--line-timeout 1h`, it would until the rest came).
    let mut s = spawn_streaming(&["-c", &cat, "--all", "--idle-timeout", "50", "--line-timeout", "1h"]);
    s.send(&format!("{head}\x1b[2m2026-03-02T08:00:01.123456789Z\x1b[0m \x1b[33m WARN\x1b[0m risingwave_meta::x: obj"));
    let e = s.next_event("the report, while the next line in colour is half received");
    assert_eq!((src_line(&e), src_lines(&e)), (1, 3), "{e}");
    s.send("ect store quota exceeded\n");
    let e = s.next_event("the coloured line, whole");
    assert_eq!((src_line(&e), e["log"]["level"].as_str()), (4, Some("WARN")), "{e}");
    let (code, stderr, rest) = s.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert!(rest.is_empty(), "{rest:?}");
}

/// A panic's frames come after the program has read its debug information, which on a binary the
/// size of RisingWave's takes longer than the idle timeout: the event was completed at `stack
/// backtrace:`, and its frames were an event of their own (found by a developer's reading). A
/// backtrace's header now waits for its frames, as `Caused by:` waits for its causes.
#[test]
fn regression_a_backtrace_header_waits_for_its_frames() {
    let fx = fixture();
    let cat = path_str(&fx.catalog);
    let mut s = spawn_streaming(&["-c", &cat, "--all", "--idle-timeout", "50", "--line-timeout", "2s"]);
    s.send("thread 'rw-streaming' panicked at src/stream/src/executor/mview/materialize.rs:1207:21:\ndoohickey mismatch\nstack backtrace:\n");
    // Six idle timeouts before the frames.
    thread::sleep(std::time::Duration::from_millis(300));
    s.send("   0: rust_begin_unwind\n             at /rustc/library/std/src/panicking.rs:652:5\n   1: risingwave_stream::executor::mview::materialize\n");
    let (code, stderr, rest) = s.finish();
    assert_eq!(code, Some(0), "stderr: {stderr}");
    assert_eq!(rest.len(), 1, "one event, its frames in it: {rest:?}");
    let e: Value = serde_json::from_str(&rest[0]).unwrap();
    assert_eq!((src_line(&e), src_lines(&e)), (1, 6), "{e}");
}

// ---------------------------------------------------------------------------------------------
// 7. Exit statuses.

#[test]
fn missing_input_file_exits_1_names_it_and_still_reads_the_other_inputs() {
    let fx = fixture();
    let good = fx.write("good.log", lines(&[&split_line(1, 5)]));
    let missing = fx.path("no-such-dir/missing.log");
    let out = run(&["-c".to_owned(), path_str(&fx.catalog), path_str(&missing), path_str(&good)], b"");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("missing.log"), "stderr names the file: {err}");
    assert!(!err.contains("panicked"), "{err}");
    let evs = events(&out.stdout);
    assert_eq!(evs.len(), 1, "the readable input is still annotated");
    assert_eq!(match_id(&evs[0]), Some("t-split"));
}

#[test]
fn nonexistent_catalog_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope/catalog.jsonl");
    let out = run(&["-c".to_owned(), path_str(&missing)], split_line(1, 1).as_bytes());
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr_of(&out));
    assert!(stderr_of(&out).contains("catalog.jsonl"), "stderr names the catalog: {}", stderr_of(&out));
    assert!(out.stdout.is_empty(), "nothing is annotated without a catalog");

    let out = run(&["check".to_owned(), "-c".to_owned(), path_str(&missing)], b"");
    assert_eq!(out.status.code(), Some(2), "check: {}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn unknown_option_exits_2() {
    let out = run(&["--no-such-option"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("--no-such-option"), "{}", stderr_of(&out));
    let out = run(&["check", "--bogus"], b"");
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["--format", "xml"], b"");
    assert_eq!(out.status.code(), Some(2));
}

/// `annotail | head -1`: standard output closes while input keeps coming. The process must end
/// by itself, quietly, with status 0 (not killed by SIGPIPE, no panic message).
#[test]
fn closed_stdout_while_streaming_stdin_ends_quietly_with_status_0() {
    let fx = fixture();
    let mut child = spawn_piped(&fx);
    let mut stdin = child.stdin.take().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let stop_w = stop.clone();
    // Feed error lines until annotail stops reading (EPIPE) or the test gives up; stdin stays
    // open all along, so only the closed output can end the process.
    let writer = thread::spawn(move || {
        let mut block = String::new();
        for i in 0..500 {
            block.push_str(&split_line(i, i));
            block.push('\n');
        }
        let mut written = 0u64;
        while !stop_w.load(Ordering::Relaxed) && written < 2 << 30 {
            if stdin.write_all(block.as_bytes()).is_err() {
                return true;
            }
            written += block.len() as u64;
        }
        false
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = Vec::new();
    let mut byte = [0u8; 1];
    while stdout.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
        first.push(byte[0]);
    }
    let ev: Value = serde_json::from_slice(&first).expect("first line is an event");
    assert_eq!(match_id(&ev), Some("t-split"));
    drop(stdout); // the reader goes away, like `head -1`
    let mut se = child.stderr.take().unwrap();
    let status = wait_timeout(&mut child, PATIENCE);
    stop.store(true, Ordering::Relaxed);
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("annotail kept running after its standard output was closed");
    };
    let saw_epipe = writer.join().unwrap();
    let mut err = String::new();
    se.read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(0), "status {status:?}; stderr: {err}");
    assert!(saw_epipe, "annotail stopped reading its input because it ended");
    for bad in ["panicked", "Broken pipe", "os error 32", "cannot write"] {
        assert!(!err.contains(bad), "stderr mentions {bad:?}: {err}");
    }
}

#[test]
fn closed_stdout_while_reading_a_file_ends_quietly_with_status_0() {
    let fx = fixture();
    let mut text = String::new();
    for i in 0..40_000 {
        text.push_str(&split_line(i, i));
        text.push('\n');
    }
    let log = fx.write("many.log", text);
    let mut child = cmd()
        .args(["-c", &path_str(&fx.catalog), &path_str(&log)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = [0u8; 512];
    let n = stdout.read(&mut buf).unwrap();
    assert!(n > 0 && buf.starts_with(b"{\"schema\":\"annotail/1\""), "{:?}", String::from_utf8_lossy(&buf[..n]));
    drop(stdout);
    let out = wait_output(child);
    assert_eq!(out.status.code(), Some(0), "status {:?}; stderr: {}", out.status, stderr_of(&out));
    assert_no_crash(&out);
    assert!(!stderr_of(&out).contains("cannot write"), "{}", stderr_of(&out));
}

// ---------------------------------------------------------------------------------------------
// 10. explain.

#[test]
fn explain_prints_the_primary_id_and_captures() {
    let fx = fixture();
    let line = split_line(3, 77);
    let out = run(&["explain", "--trace", "-c", &path_str(&fx.catalog), &line], b"");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let primary =
        text.lines().find(|l| l.starts_with("primary:")).unwrap_or_else(|| panic!("no primary line:\n{text}"));
    assert!(primary.contains("t-split"), "{primary}");
    assert!(primary.contains(r#""actor_id":"77""#), "captures are shown: {primary}");
    assert!(text.contains("level:       WARN"), "{text}");
    assert!(text.contains("field:       error = barrier collection failed for actor 77"), "{text}");
}

#[test]
fn explain_with_the_embedded_catalog_names_primary_and_other_matches() {
    let out = run(&["explain".to_owned(), "--trace".to_owned(), example_line(37)], b"");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let primary = text.lines().find(|l| l.starts_with("primary:")).unwrap_or_else(|| panic!("{text}"));
    assert!(primary.contains(LINE37_PRIMARY), "{primary}");
    assert!(primary.contains("captures="), "{primary}");
    let also = text.lines().find(|l| l.starts_with("also:")).unwrap_or_else(|| panic!("{text}"));
    assert!(also.contains("6063437d51454b82"), "{also}");
    assert!(also.contains(r#""_1":"101352""#), "captures of the other match: {also}");
}

#[test]
fn explain_reads_a_multiline_event_from_stdin() {
    let fx = fixture();
    let ev = lines(&[
        &rw_line(
            1,
            "ERROR",
            "risingwave_frontend::handler",
            "failed to handle query error=Not supported: streaming nested loop join",
        ),
        "HINT: The non-equal join in the query requires a nested-loop join executor",
    ]);
    let out = run(&["explain", "--trace", "-c", &path_str(&fx.catalog), "-"], ev.as_bytes());
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let primary = text.lines().find(|l| l.starts_with("primary:")).unwrap_or_else(|| panic!("{text}"));
    assert!(primary.contains("t-ml"), "{primary}");
    assert!(primary.contains("streaming nested loop join"), "{primary}");
    assert!(primary.contains("nested-loop join executor"), "{primary}");
}

#[test]
fn explain_without_a_known_error_says_so() {
    let fx = fixture();
    let out = run(&["explain", "-c", &path_str(&fx.catalog), &info_line(1, "all good")], b"");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no known error"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("primary:")), "{text}");
}

#[test]
fn idle_timeout_zero_loses_no_event() {
    // Not timing: with --idle-timeout 0 an event is complete whenever the input pauses; the
    // result over a closed input must be the same events.
    let fx = fixture();
    let input = lines(&[&info_line(1, "a"), &split_line(2, 1), &info_line(3, "b"), &split_line(4, 2)]);
    let out = fx.run(&["--idle-timeout", "0", "--all"], input.as_bytes());
    let evs = ok_events(&out);
    assert_covers(&evs, 4);
    assert_eq!(with_match(&evs, "t-split").len(), 2);
}
