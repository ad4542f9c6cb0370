//! The README's examples with output are what the binary prints: the `--summary` table and the
//! `annotail stats` report on `examples/meta.log`, the terminal view's annotation, and the
//! `annotail/1` event of the example log's line 37. Each test reads the example from README.md
//! and runs the command it shows, so a change of output that the README does not follow fails
//! here.
//!
//! A line that is only `…` abridges the example; timings (`annotail stats`'s slowest records and
//! `took`, the event's `observed`) vary from run to run, and the event's `host` from machine to
//! machine: they are not compared.

mod common;

use common::*;
use serde_json::Value;

fn readme() -> String {
    std::fs::read_to_string(manifest_dir().join("README.md")).expect("read README.md")
}

/// The lines of the first fenced code block after the first line of the README containing
/// `marker`.
fn block_after(marker: &str) -> Vec<String> {
    let text = readme();
    let mut lines = text.lines().skip_while(|l| !l.contains(marker));
    assert!(lines.next().is_some(), "README.md has no line containing {marker:?}");
    let mut lines = lines.skip_while(|l| !l.trim_start().starts_with("```"));
    assert!(lines.next().is_some(), "README.md has no code block after {marker:?}");
    lines.take_while(|l| !l.trim_start().starts_with("```")).map(str::to_owned).collect()
}

/// Every line of `example` but the `…` abridgements is a line of `actual`, in the same order.
fn assert_lines_in_order(example: &[String], actual: &str, what: &str) {
    // Lines with the same first or last word (`events`, a record's id) show what changed.
    let ends =
        |l: &str| (l.split_whitespace().next().map(str::to_owned), l.split_whitespace().last().map(str::to_owned));
    let alike = |a: &str, b: &str| {
        let ((a0, a1), (b0, b1)) = (ends(a), ends(b));
        a0 == b0 || a1 == b1
    };
    let mut rest = actual.lines().map(str::trim_end);
    for line in example.iter().map(|l| l.trim_end()).filter(|l| l.trim() != "…") {
        if !rest.any(|a| a == line) {
            let near: Vec<&str> = actual.lines().filter(|a| alike(a, line)).take(10).collect();
            panic!(
                "README's {what} shows a line the real output does not have (in this order):\n  {line}\n\
                 real lines that start alike:\n  {}",
                near.join("\n  ")
            );
        }
    }
}

/// The JSON pointers where `a` and `b` differ.
fn json_diff(a: &Value, b: &Value, at: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                json_diff(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    &format!("{at}/{k}"),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                json_diff(p, q, &format!("{at}/{i}"), out);
            }
        }
        _ if a != b => out.push(format!("{at}: real {a}, README {b}")),
        _ => {}
    }
}

/// Run the binary in the repository root, as the README's commands are written.
fn run_in_root(args: &[&str]) -> std::process::Output {
    let out = cmd().current_dir(manifest_dir()).args(args).output().expect("run annotail");
    assert_eq!(out.status.code(), Some(0), "annotail {args:?}; stderr:\n{}", stderr_of(&out));
    out
}

#[test]
fn summary_example_is_the_summary_of_the_example_log() {
    let example = block_after("Example (`annotail --summary examples/meta.log`");
    for key in ["lines read", "events", "known errors"] {
        assert!(example.iter().any(|l| l.trim_start().starts_with(key)), "the example lost its {key:?} line");
    }
    let out = run_in_root(&["--summary", "examples/meta.log"]);
    assert_lines_in_order(&example, &stderr_of(&out), "--summary example");
}

#[test]
fn stats_example_is_the_report_on_the_example_log() {
    let block = block_after("The 4,350 extracted records against the example log");
    let command = block[0].strip_prefix("$ annotail ").expect("the block starts with `$ annotail ...`");
    let args: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(args[0], "stats");
    // The slowest records and the run time are measurements; everything else is deterministic.
    let mut in_slowest = false;
    let mut example = Vec::new();
    for line in &block[1..] {
        in_slowest = line.starts_with("== Slowest") || (in_slowest && !line.starts_with("=="));
        let timed_row = in_slowest && line.trim_start().starts_with(|c: char| c.is_ascii_digit());
        if !timed_row && !line.starts_with("took ") {
            example.push(line.clone());
        }
    }
    for key in ["== Never matched:", "== Most matched"] {
        assert!(example.iter().any(|l| l.starts_with(key)), "the example lost its {key:?} section");
    }
    let out = run_in_root(&args);
    assert_lines_in_order(&example, &String::from_utf8_lossy(&out.stdout), "`annotail stats` example");
}

#[test]
fn terminal_view_example_is_pretty_output_at_80_columns() {
    let example = block_after("`kubectl logs -f meta-0 | annotail` on a terminal");
    let fx = fixture();
    // The record of the example: the test catalog's `t-split` with a third, long solution.
    let record = serde_json::json!({
        "id": "t-split", "slug": "barrier-collect", "severity": "warning", "errorClass": "anyhow::Error",
        "errorMessage": "barrier collection failed for actor {actor_id}",
        "messagePattern": "barrier collection failed for actor (.+?)",
        "solutions": ["restart the actor", "check the compute node",
            "If the actor keeps failing after a restart, look at the compute node's logs around the barrier's epoch, and check whether the node ran out of memory"],
    });
    let catalog = fx.write("view.jsonl", format!("{record}\n"));
    let mut c = cmd();
    c.env("COLUMNS", "80").args(["-c", &path_str(&catalog), "--format", "pretty", "--color", "never"]);
    let out = run_cmd(&mut c, format!("{}\n", example[0]).as_bytes());
    assert_eq!(out.status.code(), Some(0), "stderr:\n{}", stderr_of(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().collect::<Vec<_>>(), example);
}

#[test]
fn event_example_is_the_event_of_line_37() {
    let example: Value = serde_json::from_str(&block_after("One JSON object per line (`--format json`)").join("\n"))
        .expect("the README's event is JSON");
    let out = run_in_root(&["--format", "json", "examples/meta.log"]);
    let events = events(&out.stdout);
    let mut real = at_line(&events, 37).clone();
    // `observed` is when the line was read; the README abridges the reference with `...`.
    real["observed"] = example["observed"].clone();
    // `host.name` is the machine's (or NODE_NAME).
    assert!(real["host"]["name"].is_string(), "{real}");
    real["host"] = example["host"].clone();
    let shown = example["match"]["reference"].as_str().expect("match.reference");
    let (head, tail) = shown.split_once("...").expect("the reference is abridged with ...");
    let reference = real["match"]["reference"].as_str().expect("real match.reference");
    assert!(reference.starts_with(head) && reference.ends_with(tail), "reference {reference} is not {shown}");
    real["match"]["reference"] = shown.into();
    let mut diff = Vec::new();
    json_diff(&real, &example, "", &mut diff);
    assert!(diff.is_empty(), "README's event differs from the real one:\n  {}", diff.join("\n  "));
}
