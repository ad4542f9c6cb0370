//! `--unknown` and `annotail discover` on the real binary: which part of an event is clustered
//! (alone, in a host's error field, under a wrapper), the `unknown` fields in every output,
//! stable ids across runs and across a follow-mode restart, the draft round trip through
//! `check` and a run, and the cluster cap.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{PATIENCE, cmd, events, path_str, rw_line, run, stderr_of};
use serde_json::{Value, json};

/// A host message, an error with a trailing cause (`Failed to complete epoch {}: {}`), two causes,
/// a wrapper that only passes its source on (`Storage error: {0}`), a wrapper whose trailing
/// cause follows two `{:?}`-printed values, and an error whose text (as the catalog has it) ends
/// inside a word of the line (`failpoint metastore err`).
const CATALOG: &str = r#"{"id":"h-inject","slug":"inject-barrier","severity":"error","errorMessage":"failed to inject barrier","messagePattern":"failed to inject barrier"}
{"id":"w-epoch","slug":"complete-epoch","severity":"error","errorMessage":"Failed to complete epoch {}: {}","messagePattern":"Failed to complete epoch (.+?): (.+?)"}
{"id":"c-actor","slug":"barrier-collect","severity":"warning","errorMessage":"barrier collection failed for actor {actor_id}","messagePattern":"barrier collection failed for actor (.+?)"}
{"id":"w-storage","slug":"storage-error","severity":"error","errorMessage":"Storage error: {0}","messagePattern":"Storage error: (.+?)"}
{"id":"c-lease","slug":"lease-lost","severity":"error","errorMessage":"meta leader lease lost","messagePattern":"meta leader lease lost"}
{"id":"w-notify","slug":"notify-failed","severity":"warning","errorMessage":"Failed to notify {:?} {:?}: {}","messagePattern":"Failed to notify (.+?) (.+?): (.+?)"}
{"id":"c-failpoint","slug":"failpoint-metastore","severity":"error","errorMessage":"failpoint metastore err","messagePattern":"failpoint metastore err"}
"#;

struct Dir {
    dir: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("catalog.jsonl"), CATALOG).unwrap();
        Dir { dir }
    }

    fn catalog(&self) -> String {
        path_str(&self.dir.path().join("catalog.jsonl"))
    }

    fn write(&self, name: &str, text: &str) -> String {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        path_str(&p)
    }

    /// `annotail -c CATALOG ARGS` on `input`: its events (exit status 0 asserted).
    /// Run `--unknown warn --format json` on one line per case and check each line's unknown
    /// template (`None`: nothing clustered); the input and the events, for more checks.
    fn templates_at_warn(&self, cases: &[(String, Option<&str>)]) -> (String, Vec<Value>) {
        let input: String = cases.iter().map(|(l, _)| format!("{l}\n")).collect();
        let evs = self.events(&["--unknown", "warn", "--format", "json"], &input);
        for (i, (line, want)) in cases.iter().enumerate() {
            let got = evs.iter().find(|e| e["source"]["line"] == i as u64 + 1).and_then(unknown).map(|u| u.1);
            assert_eq!(got, *want, "line {line}");
        }
        (input, evs)
    }

    fn events(&self, args: &[&str], input: &str) -> Vec<Value> {
        let mut full = vec!["-c".to_owned(), self.catalog()];
        full.extend(args.iter().map(|s| s.to_string()));
        let out = run(&full, input.as_bytes());
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        events(&out.stdout)
    }
}

fn warn(sec: u32, rest: &str) -> String {
    rw_line(sec, "WARN", "risingwave_meta::barrier", rest)
}

fn error(sec: u32, rest: &str) -> String {
    rw_line(sec, "ERROR", "risingwave_stream::executor", rest)
}

fn info(sec: u32, rest: &str) -> String {
    rw_line(sec, "INFO", "risingwave_meta::manager", rest)
}

fn unknown(ev: &Value) -> Option<(&str, &str, u64)> {
    let u = ev.get("unknown")?;
    Some((u["cluster"].as_str().unwrap(), u["template"].as_str().unwrap(), u["count"].as_u64().unwrap()))
}

/// The clustered events' first line, line count and template.
fn clustered(evs: &[Value]) -> Vec<(u64, u64, String)> {
    evs.iter()
        .filter_map(|e| {
            let u = unknown(e)?;
            Some((e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap(), u.1.to_owned()))
        })
        .collect()
}

fn at(evs: &[Value], line: u64) -> &Value {
    evs.iter().find(|e| e["source"]["line"] == line).unwrap_or_else(|| panic!("no event at line {line}: {evs:?}"))
}

#[test]
fn chain_cases_cluster_the_unexplained_part() {
    let d = Dir::new();
    // (line, expected template of the unknown part, or None when the event is explained)
    let cases: &[(String, Option<&str>)] = &[
        // unknown alone: the whole message, its first link (the causes chained after `: ` vary
        // from one event of an error to the next)
        (error(1, "source reader 42 exited: connection reset by peer"), Some("source reader <*> exited")),
        // a known host, the cause in its error field is unknown
        (warn(2, "failed to inject barrier error=grpc status Unavailable on compute-0:5688"), Some("grpc status Unavailable on <*>:<*>")),
        // a known host with a known cause: explained
        (warn(3, "failed to inject barrier error=barrier collection failed for actor 7"), None),
        // a known wrapper around an unknown root cause: its trailing capture
        (error(4, "Failed to complete epoch 1234: object store timeout after 30s"), Some("object store timeout after <*>")),
        // a known wrapper around a known cause: explained
        (error(5, "Failed to complete epoch 1234: barrier collection failed for actor 9"), None),
        // a wrapper's unknown trailing capture comes before the error field: the outermost
        // unknown link is the error the catalog lacks, the field holds its cause
        (warn(6, "Failed to complete epoch 77: injection failed error=meta leader lost"), Some("injection failed")),
        // a known wrapper, an unknown link, a known cause: the innermost error is known (it is
        // the event's primary match), the link outside it is its context: explained
        (error(7, "Failed to complete epoch 9: sink coordinator 3 stopped: barrier collection failed for actor 4"), None),
        // an unknown message over a known cause in its field: the known error explains it
        (warn(8, "compactor 12 gave up error=barrier collection failed for actor 4"), None),
        // nothing matched: the whole message, not the unknown cause in its field
        (warn(9, "compactor 12 lost its lease error=etcd request timed out"), Some("compactor <*> lost its lease")),
        // an unknown message over a known cause with an unknown root in its field: the root,
        // which the known error must not hide
        (warn(10, "compactor 12 lost its lease error=barrier collection failed for actor 4: disk full"), Some("disk full")),
        // a known host, an unknown error in its field with a third-party cause chained to it:
        // the unknown error, not its cause (outermost unknown link, first link of it)
        (warn(11, "failed to inject barrier error=sink writer 7 failed: broken pipe: os error 32"), Some("sink writer <*> failed")),
        // the same error without a cause: the same cluster
        (warn(12, "failed to inject barrier error=sink writer 8 failed"), Some("sink writer <*> failed")),
        // an unknown link over a known wrapper (it only passes its source on) over a third-party
        // root: the unknown link, not the root
        (warn(13, "failed to inject barrier error=compaction stalled: Storage error: disk full"), Some("compaction stalled")),
        // an unknown link over a known error over a third-party root: the link is the known
        // error's context, the root its unknown cause
        (warn(14, "failed to inject barrier error=compaction stalled: Failed to complete epoch 5: disk full"), Some("disk full")),
        // a `{:?}`-quoted chain whose outer link is known: its cause without the closing quote
        (warn(15, r#"failed to inject barrier error="barrier collection failed for actor 4: quota exceeded""#), Some("quota exceeded")),
        // a wrapper's trailing cause after `{:?}`-printed values that hold `: `: the cause, not
        // the inside of a value (the lazy capture stops at the first `: `)
        (warn(16, "Failed to notify EpochPair { curr: 1, prev: 2 } [3, 4]: sink 5 unreachable"), Some("sink <*> unreachable")),
        (warn(17, "Failed to notify Table { id: 9 } Some(3): sink 6 unreachable: io error"), Some("sink <*> unreachable")),
        // a known error's text after words of a longer message is not that error: the whole
        // message is unknown (an error stands after `: `, `=`, a quote or in a capture)
        (warn(18, "failed to inject barrier error=remote barrier collection failed for actor 4"), Some("remote barrier collection failed for actor <*>")),
        // a known error opening a message without a target (after the level): that error
        ("2026-03-02T08:00:20.123456789Z  WARN barrier collection failed for actor 4".to_owned(), None),
        // after `: ` it is that error, and the link outside it is its context: explained
        (warn(19, "failed to inject barrier error=retry: barrier collection failed for actor 4"), None),
        // a gRPC status printed whole: the server's message in it (its head named only the
        // status code: every error that came back with it was one cluster)
        (
            warn(
                20,
                r#"failed to inject barrier error=status: Unavailable, message: "stream reset by peer", details: []"#,
            ),
            Some("stream reset by peer"),
        ),
        // a first link of one word is a label (an rdkafka error): the link after it goes with
        // it, or every such error would be one cluster `Local`
        (
            warn(21, "failed to inject barrier error=Local: Broker transport failure"),
            Some("Local: Broker transport failure"),
        ),
        // at a message's start too (async_nats's `event: disconnected`, it was `event`)
        (warn(22, "event: disconnected"), Some("event: disconnected")),
        // a report printed inside a `{:?}` string: its line breaks are escaped, and the first
        // link ends at the first of them (it ran on into `…stalled\n\nCaused by`)
        (
            warn(23, r#"failed to inject barrier error="compaction group 7 stalled\n\nCaused by:\n    disk full""#),
            Some("compaction group <*> stalled"),
        ),
        // the rest of a word a known error's text ends inside is no link of its own (it read
        // `or: Parse error`, a one-word label and the link after it); `Parse error` names a kind
        // of error, and its cause goes with it (see `regression_kinds_of_error_go_with_their_cause`)
        (error(24, "failpoint metastore error: Parse error: connection reset"), Some("Parse error: connection reset")),
    ];
    let (input, _) = d.templates_at_warn(cases);
    // Without --unknown only the known errors are written, as before.
    let plain = d.events(&["--format", "json"], &input);
    assert!(plain.iter().all(|e| e.get("unknown").is_none() && !e["match"].is_null()), "{plain:?}");
    assert_eq!(plain.len(), cases.len() - 3, "every line but the three no record matches in");
}

/// Shapes read on lines pasted in RisingWave's issue threads, each clustered by the wrong part
/// or not at all before: a link that only names a kind of error (`Rpc error`, `QueryError`,
/// `Message production error`) was the whole template, so every cause it wrapped was one
/// cluster; an error under `err` or `e` was not the event's error field, so a known host hid
/// it; a cause inside a gRPC status's quoted `message` kept the status's tail; psql's `ERROR:`
/// line was not read as a chain, so a known wrapper's trailing capture explained all of it;
/// and a line pasted without its time (` WARN target: …`) was a continuation of the line above.
#[test]
fn regression_kinds_of_error_go_with_their_cause() {
    let d = Dir::new();
    let host = |sec: u32, field: &str| warn(sec, &format!("failed to inject barrier {field}"));
    let cases: &[(String, Option<&str>)] = &[
        (
            host(1, "error=Rpc error: gRPC error (Internal error): failed to send barrier to actor 248: SendError"),
            Some("Rpc error: gRPC error (Internal error): failed to send barrier to actor <*>"),
        ),
        (
            host(2, "error=Message production error: QueueFull (Local: Queue full)"),
            Some("Message production error: QueueFull (Local: Queue full)"),
        ),
        (
            host(3, "error=Message production error: MessageTimedOut (Local: Message timed out)"),
            Some("Message production error: MessageTimedOut (Local: Message timed out)"),
        ),
        (
            host(4, "error=transport error: tcp connect error: Connection refused (os error 111)"),
            Some("transport error: tcp connect error: Connection refused (os error <*>)"),
        ),
        // a label after a kind goes with it too, and a kind after a label
        (host(5, "error=Kafka error: Local: Timed out"), Some("Kafka error: Local: Timed out")),
        (
            host(6, "error=librdkafka: Global error: AllBrokersDown (Local: All broker connections are down)"),
            Some("librdkafka: Global error: AllBrokersDown (Local: All broker connections are down)"),
        ),
        // kinds before a known error wrap it: the unknown cause inside that error is clustered
        (host(7, "error=QueryError: internal error: Storage error: disk quota exceeded"), Some("disk quota exceeded")),
        // a kind that is the last link is the error
        (host(8, "error=Internal error"), Some("Internal error")),
        // not a kind: an exception's class says more than its message; a link with values
        (
            host(9, "error=java.net.ConnectException: Connection refused"),
            Some("java.net.ConnectException: Connection refused"),
        ),
        (host(10, "error=sink writer 7 failed: Rpc error: broken pipe"), Some("sink writer <*> failed")),
        // `err` and `e` are error fields too; `error` first when there are two
        (host(11, "err=etcd lease expired after 30s"), Some("etcd lease expired after <*>")),
        (host(12, "e=etcd lease expired after 30s"), Some("etcd lease expired after <*>")),
        (host(13, "err=etcd lease expired after 30s error=barrier collection failed for actor 4"), None),
        // a cause inside a gRPC status's quoted message ends at its closing quote
        (
            host(
                14,
                r#"error=status: Internal, message: "Failed to complete epoch 5: object store timeout after 30s", details: [], metadata: MetadataMap { headers: {} }"#,
            ),
            Some("object store timeout after <*>"),
        ),
        // a closing quote after a string's own backslash (`\\"`) ends it too
        (
            host(
                15,
                r#"error=status: Internal, message: "Failed to complete epoch 5: cannot open dir C:\\data\\", details: []"#,
            ),
            Some("cannot open dir <*>"),
        ),
        // an empty `error=` is no error field
        (host(16, "error= err=etcd lease expired after 30s"), Some("etcd lease expired after <*>")),
        // psql's report of the same chain
        (
            "ERROR:  Failed to complete epoch 5: object store timeout after 30s".to_owned(),
            Some("object store timeout after <*>"),
        ),
        // PostgreSQL's own error, which no record knows, is read whole as before
        (
            r#"ERROR:  could not open file "base/1/2": Permission denied"#.to_owned(),
            Some("could not open file <*>: Permission denied"),
        ),
        ("ERROR:  QueryError: Storage error: disk quota exceeded".to_owned(), Some("disk quota exceeded")),
        // RisingWave lines without their time, the level in its column
        ("ERROR risingwave_stream::executor: source reader 42 exited".to_owned(), Some("source reader <*> exited")),
        (
            " WARN risingwave_meta::barrier: compactor 12 lost its lease".to_owned(),
            Some("compactor <*> lost its lease"),
        ),
        (" INFO risingwave_meta::barrier: compactor 12 lost its lease".to_owned(), None),
        // long span fields put the target past the first 160 bytes
        (
            format!(
                "ERROR failure_recovery{{error=zork subsystem unavailable trace={}}}:recovery_attempt: risingwave_meta::barrier::recovery: frobnication failed",
                "7".repeat(150)
            ),
            Some("zork subsystem unavailable"),
        ),
    ];
    let (input, evs) = d.templates_at_warn(cases);
    // Each pasted line is an event of its own, with its level and target.
    for (line, level) in [(20, "ERROR"), (21, "WARN")] {
        let e = at(&evs, line);
        assert_eq!((e["source"]["lines"].as_u64(), e["log"]["level"].as_str()), (Some(1), Some(level)), "{e}");
        assert_eq!(e["log"]["format"], "risingwave", "{e}");
        assert!(e.get("@timestamp").is_some_and(|t| t.as_str().is_some_and(|t| !t.is_empty())), "{e}");
    }
    // A status's quoted message whose label a record knows (a draft's `status: Cancelled,
    // message`): the message is clustered without the status's tail (found by a third reader:
    // every such message was one `<*>, details`); `grep -n` before a header without its time;
    // the level column's blank trimmed off; an empty value under `error` in JSON or as `""`.
    let status = r#"{"id":"d-status","slug":"status-cancelled","severity":"error","errorMessage":"status: Cancelled, message","messagePattern":"status: Cancelled, message"}"#;
    let drafts = d.write("status.jsonl", &format!("{status}\n"));
    let lines = [
        host(1, r#"error=status: Cancelled, message: "stream reset by peer", details: [], metadata: MetadataMap { headers: {} }"#),
        "7:ERROR risingwave_meta::barrier: frobnicator 7 exploded".to_owned(),
        "WARN risingwave_meta::barrier: widget 7 wobbles".to_owned(),
        r#"{"timestamp":"2026-03-02T08:00:00Z","level":"WARN","fields":{"message":"failed to inject barrier","error":"","err":"zork 7 failed"},"target":"risingwave_meta::barrier"}"#.to_owned(),
        host(5, r#"error="" err=zork 7 failed"#),
        // a quoted value that opens a longer text is that text's
        host(6, r#"error="t_orders" is not append-only but vector index must be: Broken pipe"#),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let evs = d.events(&["-c", &drafts, "--unknown", "warn", "--format", "json"], &text);
    let got: Vec<Option<&str>> = (1..=6).map(|n| unknown(at(&evs, n)).map(|u| u.1)).collect();
    assert_eq!(
        got,
        [
            Some("stream reset by peer"),
            Some("frobnicator <*> exploded"),
            Some("widget <*> wobbles"),
            Some("zork <*> failed"),
            Some("zork <*> failed"),
            Some("<*> is not append-only but vector index must be"),
        ],
        "{evs:?}"
    );
    let all = d.events(&["--all", "--format", "json"], &input);
    assert_eq!(all.len(), cases.len(), "one event a line: {all:?}");
    assert_eq!(at(&all, 22)["log"]["level"], "INFO");
    // Another program's lines that start with a level word are not RisingWave's: a Python
    // log's `ERROR __main__: …` took the lines below it as its continuation (found by a second
    // reader).
    let python = "INFO __main__: starting worker 1\nERROR __main__: connection to db failed: timeout\nINFO __main__: retrying in 5s\nWARNING __main__: slow query 3s\n";
    let evs = d.events(&["--all", "--format", "json"], python);
    assert_eq!(evs.len(), 4, "{evs:?}");
    assert!(evs.iter().all(|e| e["log"]["format"] == "plain" && e["source"]["lines"] == 1), "{evs:?}");
    // A timed header that ends at its level, blanks after it: it panicked while its text was
    // parsed (found by a second reader), and the event was skipped.
    let out = run(&["--all", "--format", "json", "-"], b"2026-03-02T08:00:00Z ERROR \t\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains("internal error"), "{err}");
    assert_eq!(events(&out.stdout)[0]["log"]["level"], "ERROR");
}

/// A warning logged inside a span that holds an error reports a step of handling that error:
/// the span's error is what is unknown, not the handler's message (the same for every error).
#[test]
fn regression_a_warning_inside_a_failing_span_clusters_the_span_error() {
    let d = Dir::new();
    let span = |sec: u32, level: &str, err: &str, rest: &str| {
        let target = format!("failure_recovery{{error={err}}}:recovery_attempt: risingwave_meta::barrier::worker");
        rw_line(sec, level, &target, rest)
    };
    // (line, expected template of the unknown part, or None when nothing is clustered)
    let cases: &[(String, Option<&str>)] = &[
        // nothing known: the span's error (its first link), not the message
        (span(1, "WARN", "iceberg catalog 7 unreachable: connection refused", "waiting for completing command to finish in recovery"), Some("iceberg catalog <*> unreachable")),
        // the same error under another step of the recovery: the same cluster
        (span(2, "WARN", "iceberg catalog 9 unreachable", "newly create job get cancelled before first barrier is collected"), Some("iceberg catalog <*> unreachable")),
        // a known error in the span, an unknown message: the span is explained, the message is not
        (span(3, "WARN", "barrier collection failed for actor 4", "recovery step 5 stalled for good"), Some("recovery step <*> stalled for good")),
        // the line's own error field is its own error: the span is context
        (format!("{} error=object store quota exceeded", span(4, "WARN", "iceberg catalog 3 unreachable", "compactor 12 lost its lease")), Some("compactor <*> lost its lease")),
        // below WARN the span is only context: nothing is clustered at --unknown warn
        (span(5, "INFO", "iceberg catalog 3 unreachable", "waiting for completing command to finish in recovery"), None),
        // RisingWave's JSON layout: the same (its message was clustered, whatever the error)
        (json_span(6, "WARN", "iceberg catalog 8 unreachable: connection refused"), Some("iceberg catalog <*> unreachable")),
        (json_span(7, "INFO", "iceberg catalog 8 unreachable"), None),
    ];
    let (_, evs) = d.templates_at_warn(cases);
    let id = |line: u64| evs.iter().find(|e| e["source"]["line"] == line).and_then(unknown).map(|u| u.0);
    assert_eq!(id(1), id(2), "one error, one cluster, whatever step of the recovery logged it");
    assert_eq!(id(1), id(6), "one error, one cluster, whatever the layout");
}

/// A RisingWave JSON line logged inside `failure_recovery{error=…}:recovery_attempt`.
fn json_span(sec: u32, level: &str, err: &str) -> String {
    serde_json::json!({
        "timestamp": format!("2026-03-02T08:00:{sec:02}.123456789Z"),
        "level": level,
        "fields": {"message": "waiting for completing command to finish in recovery"},
        "target": "risingwave_meta::barrier::worker",
        "spans": [{"name": "failure_recovery", "error": err}, {"name": "recovery_attempt"}],
    })
    .to_string()
}

/// A record that knows only the start of a host message (`failed to inject barrier` in
/// `failed to inject barrier on node 3 during recovery error=…`) left the rest of the message
/// to be clustered, and the unknown error in the `error` field went unseen: every event of that
/// host went to one cluster of its leftover words, whatever the error.
#[test]
fn regression_the_rest_of_a_known_host_message_does_not_hide_its_error_field() {
    let d = Dir::new();
    let cases: &[(String, Option<&str>)] = &[
        // the unknown error in the field, not the host's leftover words
        (warn(1, "failed to inject barrier on node 3 during recovery error=sink writer 7 failed"), Some("sink writer <*> failed")),
        (warn(2, "failed to inject barrier on node 4 during recovery error=object store quota exceeded"), Some("object store quota exceeded")),
        // the field holds nothing to cluster (a bare code): the leftover words are the unknown part
        (warn(3, "failed to inject barrier on node 5 during recovery error=42"), Some("on node <*> during recovery")),
        // a known error in the field is the event's error: the words outside it are context
        (warn(4, "failed to inject barrier on node 6 during recovery error=barrier collection failed for actor 4"), None),
        // a cause chained to the known message (`: `) is not its own words: it stays first
        (warn(5, "failed to inject barrier: epoch 7 rejected error=sink writer 9 failed"), Some("epoch <*> rejected")),
    ];
    d.templates_at_warn(cases);
}

/// A multi-line report: the causes on the lines below the first are links of its chain.
#[test]
fn regression_an_unknown_cause_on_a_line_below_is_clustered() {
    let d = Dir::new();
    // (event's lines, expected template of the unknown part, or None when it is explained)
    let cases: &[(String, Option<&str>)] = &[
        // a known host whose error field is known, an unknown cause under `Caused by:`: it was
        // not clustered (the field ended with the first line)
        (
            format!("{}\n\nCaused by:\n    expect InitResponse but get \"t_7\"", warn(1, "failed to inject barrier error=barrier collection failed for actor 7")),
            Some("expect InitResponse but get <*>"),
        ),
        // the numbered form
        (
            format!(
                "{}\n\nCaused by these errors (recent errors listed first):\n  1: object store timeout after 30s\n  2: disk full",
                error(2, "Failed to complete epoch 9: barrier collection failed for actor 4")
            ),
            Some("object store timeout after <*>"),
        ),
        // a known error whose cause is known too: explained
        (
            format!("{}\n\nCaused by:\n    meta leader lease lost", warn(3, "failed to inject barrier error=barrier collection failed for actor 7")),
            None,
        ),
        // a backtrace below a known error is not a cause
        (
            format!(
                "{}\n\nBacktrace:\n   0: std::backtrace::Backtrace::create\n   1: risingwave_meta::barrier::rpc::inject",
                warn(4, "failed to inject barrier error=barrier collection failed for actor 7")
            ),
            None,
        ),
        // the fields of a message that spans lines end its last line: out of the template, as on
        // one line (it read `object store quota exceeded job_id=<*> epoch=<*>`)
        (
            format!(
                "{}\n\nCaused by:\n    object store quota exceeded job_id=5 epoch=7",
                warn(5, "failed to inject barrier error=barrier collection failed for actor 7")
            ),
            Some("object store quota exceeded"),
        ),
        // a known cause and its fields: nothing left (it read `job_id=<*>`)
        (
            format!(
                "{}\n\nCaused by:\n    meta leader lease lost job_id=5",
                warn(6, "failed to inject barrier error=barrier collection failed for actor 7")
            ),
            None,
        ),
        // nor when a full stop is (it read `.`)
        (
            format!(
                "{}\n\nCaused by:\n    meta leader lease lost. job_id=5",
                warn(7, "failed to inject barrier error=barrier collection failed for actor 7")
            ),
            None,
        ),
    ];
    let mut input = String::new();
    let mut first = Vec::new();
    for (ev, _) in cases {
        first.push(input.matches('\n').count() as u64 + 1);
        input.push_str(ev);
        input.push('\n');
    }
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    for ((ev, want), line) in cases.iter().zip(first) {
        let got = at(&evs, line);
        assert_eq!(got["source"]["lines"].as_u64(), Some(ev.matches('\n').count() as u64 + 1), "one event: {got}");
        assert_eq!(unknown(got).map(|u| u.1), *want, "{ev}");
    }
}

/// A known error's value printed in a `{:?}` string ran to the string's end, over the escaped
/// report after it (`barrier collection failed for actor 4\n\nCaused by:\n    disk full`): its
/// capture held the whole report, and the unknown cause in it was never clustered.
#[test]
fn regression_a_known_value_does_not_swallow_an_escaped_report() {
    let d = Dir::new();
    // (line, expected template of the unknown part, expected `actor_id` capture)
    let cases: &[(String, Option<&str>, &str)] = &[
        (
            warn(
                1,
                r#"failed to inject barrier error="barrier collection failed for actor 4\n\nCaused by:\n    disk full on volume 7""#,
            ),
            Some("disk full on volume <*>"),
            "4",
        ),
        // a known cause in the report: explained
        (
            warn(
                2,
                r#"failed to inject barrier error="barrier collection failed for actor 5\n\nCaused by:\n    meta leader lease lost\n""#,
            ),
            None,
            "5",
        ),
        // an escaped backslash before an `n` is no line break: the value goes on
        (warn(3, r#"failed to inject barrier error="barrier collection failed for actor C:\\new""#), None, r"C:\\new"),
    ];
    let with_templates: Vec<(String, Option<&str>)> = cases.iter().map(|(l, t, _)| (l.clone(), *t)).collect();
    let (_, evs) = d.templates_at_warn(&with_templates);
    for (i, (line, _, actor)) in cases.iter().enumerate() {
        let ev = at(&evs, i as u64 + 1);
        let mut matches = std::iter::once(&ev["match"]).chain(ev["also_matched"].as_array().unwrap());
        let m = matches.find(|m| m["id"] == "c-actor").unwrap_or_else(|| panic!("{line}: {ev}"));
        assert_eq!(m["captures"]["actor_id"], *actor, "{line}");
    }
}

/// A message that spans lines (`… We will keep it\n    until we can report its status.`) has
/// its fields, `error` among them, at the end of its last line. They were not parsed: the event
/// had no fields, its unknown error was not read as the error field, and what was left of the
/// message before them was clustered as `.`.
#[test]
fn regression_the_error_field_of_a_message_that_spans_lines_is_read() {
    let d = Dir::new();
    let host = d.write(
        "host.jsonl",
        r#"{"id":"h-keep","slug":"keep-task","severity":"warning","errorMessage":"Attempt to remove a task. We will keep it\n    until we can report its status.","messagePattern":"Attempt to remove a task\\. We will keep it\\s+until we can report its status\\."}"#,
    );
    let ev = format!(
        "{}\n    until we can report its status. table_id=5 error=object store quota exceeded: os error 122",
        warn(1, "Attempt to remove a task. We will keep it")
    );
    let evs = d.events(&["-c", &host, "--unknown", "warn", "--format", "json"], &format!("{ev}\n"));
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(evs[0]["match"]["id"], "h-keep", "{}", evs[0]);
    assert_eq!(
        evs[0]["log"]["fields"],
        serde_json::json!({"table_id": "5", "error": "object store quota exceeded: os error 122"})
    );
    assert_eq!(unknown(&evs[0]).map(|u| u.1), Some("object store quota exceeded"), "{}", evs[0]);
}

#[test]
fn levels_decide_which_events_are_clustered() {
    let d = Dir::new();
    // The plain line first: after a RisingWave line it would continue that line's event.
    let input = format!(
        "plain text without a level 12\n{}\n{}\n{}\n",
        info(1, "compaction task 5 finished"),
        warn(2, "slow heartbeat from worker 3"),
        error(3, "sink writer 9 crashed")
    );
    let clustered = |levels: &str| -> Vec<u64> {
        d.events(&["--unknown", levels, "--format", "json"], &input)
            .iter()
            .filter(|e| e.get("unknown").is_some())
            .map(|e| e["source"]["line"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(clustered("warn"), [3, 4]);
    assert_eq!(clustered("error"), [4]);
    assert_eq!(clustered("any"), [1, 2, 3, 4]);
    assert_eq!(clustered("off"), Vec::<u64>::new());
    // The config key does what the option does; the option overrides it.
    let cfg = d.write("annotail.toml", "[unknown]\nlevels = \"error\"\n");
    let from_config: Vec<u64> = d
        .events(&["--config", &cfg, "--format", "json"], &input)
        .iter()
        .filter(|e| e.get("unknown").is_some())
        .map(|e| e["source"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(from_config, [4]);
    assert_eq!(
        d.events(&["--config", &cfg, "--unknown", "any", "--format", "json"], &input).iter().filter(|e| e.get("unknown").is_some()).count(),
        4
    );
}

/// The events clustered at each level of a mix of layouts, among INFO filler (so that lines
/// without a catalog hit are skipped, not framed: only the lines a level look finds are).
fn clustered_lines(d: &Dir, levels: &str, filler: fn(u32) -> String, lines: &[String]) -> Vec<u64> {
    let mut input = String::new();
    let mut at = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        for k in 0..400 {
            input.push_str(&filler(k));
            input.push('\n');
        }
        input.push_str(l);
        input.push('\n');
        at.push((401 * i + 401) as u64);
    }
    let got: Vec<u64> = d
        .events(&["--unknown", levels, "--format", "json"], &input)
        .iter()
        .filter(|e| e.get("unknown").is_some())
        .map(|e| e["source"]["line"].as_u64().unwrap())
        .collect();
    // Reported as the index of the line in `lines`.
    got.iter().map(|l| at.iter().position(|a| a == l).map_or(u64::MAX, |i| i as u64)).collect()
}

#[test]
fn lines_at_warn_and_error_are_found_in_every_layout() {
    let d = Dir::new();
    let text = [
        warn(1, "slow heartbeat from worker 3"),
        error(2, "sink writer 9 crashed"),
        info(3, "got ERROR from peer 7, WARN later"),
        format!("[pod/meta-0/meta] {}", error(4, "state table 5 failed: Epoch { curr: 1, prev: 2 }")),
        format!("[pod/meta-0/meta] {}", warn(5, "lagging behind Foo { a: 1 }")),
        "thread 'tokio-runtime-worker' panicked at src/lib.rs:1:2:".to_owned(),
    ];
    let rw = |k| info(k, &format!("compaction task {k} finished"));
    assert_eq!(clustered_lines(&d, "warn", rw, &text), [0, 1, 3, 4, 5]);
    assert_eq!(clustered_lines(&d, "error", rw, &text), [1, 3, 5]);
    // Another program's layout (loghub's HDFS) is plain text: its level word is not a level
    // annotail parses, so only `any` clusters its lines.
    let other = [
        "081109 203615 148 WARN dfs.DataNode: block report stalled".to_owned(),
        "081109 203615 148 INFO dfs.DataNode: ERROR seen in a message".to_owned(),
        "081109 203615 148 ERROR dfs.DataNode: disk 3 failed".to_owned(),
    ];
    let hdfs = |k| format!("081109 2036{:02} 148 INFO dfs.DataNode: served block {k}", k % 60);
    assert_eq!(clustered_lines(&d, "warn", hdfs, &other), Vec::<u64>::new());
    let any = clustered_lines(&d, "any", hdfs, &other);
    assert_eq!(any.iter().filter(|&&i| i != u64::MAX).collect::<Vec<_>>(), [&0, &1, &2]);
    let json = [
        r#"{"timestamp":"2026-03-02T08:00:01Z","level":"WARN","fields":{"message":"slow heartbeat 3"},"target":"risingwave_meta"}"#.to_owned(),
        r#"{"timestamp":"2026-03-02T08:00:02Z","level":"warning","fields":{"message":"queue nearly full"},"target":"x"}"#.to_owned(),
        r#"{"timestamp":"2026-03-02T08:00:03Z","level":"INFO","fields":{"message":"an ERROR word"},"target":"x"}"#.to_owned(),
        r#"[pod/meta-0/meta] {"timestamp":"2026-03-02T08:00:04Z","level":"ERROR","fields":{"message":"sink writer 9 crashed"},"target":"x"}"#.to_owned(),
        r#"2026-03-02T08:00:05.5Z {"timestamp":"2026-03-02T08:00:05Z","level":"error","fields":{"message":"sink writer 9 crashed"},"target":"x"}"#.to_owned(),
    ];
    let js = |k| format!(r#"{{"timestamp":"2026-03-02T08:00:00Z","level":"INFO","fields":{{"message":"task {k} done"}},"target":"x"}}"#);
    assert_eq!(clustered_lines(&d, "warn", js, &json), [0, 1, 3, 4]);
    assert_eq!(clustered_lines(&d, "error", js, &json), [3, 4]);
    // Coloured lines (a terminal's copy, risedev's pane): none was clustered, as the level word
    // stands between ANSI codes, not blanks.
    fn coloured(sec: u32, colour: u8, level: &str, msg: &str) -> String {
        format!(
            "\x1b[2m2026-03-02T08:00:{sec:02}.1Z\x1b[0m \x1b[{colour}m{level:>5}\x1b[0m \x1b[2mrisingwave_meta::barrier\x1b[0m\x1b[2m:\x1b[0m {msg}"
        )
    }
    let ansi = [
        coloured(1, 33, "WARN", "slow heartbeat from worker 3"),
        coloured(2, 31, "ERROR", "sink writer 9 crashed"),
        coloured(3, 32, "INFO", "got ERROR from peer 7"),
        format!("2026-03-02T08:00:04.5Z {}", coloured(4, 31, "ERROR", "sink writer 9 crashed")),
    ];
    let colour_info = |k: u32| coloured(k % 60, 32, "INFO", &format!("compaction task {k} finished"));
    assert_eq!(clustered_lines(&d, "warn", colour_info, &ansi), [0, 1, 3]);
    assert_eq!(clustered_lines(&d, "error", colour_info, &ansi), [1, 3]);
}

/// Regressions (a generalisation reader's sets of ten programs annotail was not tuned on), at
/// `--unknown any`: one kind, one cluster.
#[test]
fn regression_other_programs_kinds_are_one_cluster_each() {
    let d = Dir::new();
    let cases: &[(&[&str], &str)] = &[
        // rsyslog's file of several hosts: the time and the host were the template's (a cluster
        // per host without a digit in its name, and per month)
        (
            &[
                "Dec  7 04:05:19 lb1 haproxy[1187]: Server api/web1 is DOWN, reason: Layer4 timeout",
                "Dec  7 04:05:20 gateway haproxy[1188]: Server api/web2 is DOWN, reason: Layer4 timeout",
                "Jan  1 00:00:01 edge haproxy[1187]: Server api/web3 is DOWN, reason: Layer4 timeout",
            ],
            "haproxy[<*>]: Server <*> is DOWN, reason: <*> timeout",
        ),
        // HAProxy's httplog: a server with a digit in its name joined the numbers after it
        (
            &[
                "10.0.0.1:1633 [07/Dec/2026:04:06:00.102] http-in static_back/web3 27/3/12/433/345 200 70137 - - ---- 892/64/37/17/0 0/0 \"GET /metrics HTTP/1.1\"",
                "10.0.0.2:1634 [07/Dec/2026:04:06:01.102] http-in static_back/app-b 38/1/3/534/988 500 86489 - - ---- 533/678/22/2/0 0/0 \"GET /x HTTP/1.1\"",
            ],
            "<*>:<*> [<*>] http-in <*> <*> - - ---- <*> <*>",
        ),
        // Envoy's access log: a quoted request first and a quoted address last lost both quotes,
        // and each HTTP method was a kind
        (
            &[
                "[2026-12-07T03:15:30.508Z] \"GET /static/app.js HTTP/2\" 200 - 1362 72683 2457 5 \"10.85.235.16\" \"curl/7.88.1\" \"10.141.208.133:3000\"",
                "[2026-12-07T03:15:31.508Z] \"POST /api/v1/orders HTTP/1.1\" 201 - 3876 70610 660 62 \"10.85.235.17\" \"okhttp/4.9.3\" \"10.141.208.134:3000\"",
            ],
            "<*> <*> - <*> <*> <*>",
        ),
    ];
    for &(lines, want) in cases {
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let evs = d.events(&["--unknown", "any", "--format", "json"], &input);
        let got: Vec<_> = evs.iter().map(|e| unknown(e).map(|u| (u.0.to_owned(), u.1.to_owned()))).collect();
        assert_eq!(got.len(), lines.len(), "{lines:?}");
        for g in &got {
            assert_eq!(g, &got[0], "one cluster: {got:?}");
            assert_eq!(g.as_ref().map(|g| g.1.as_str()), Some(want), "{lines:?}");
        }
    }
}

#[test]
fn regression_a_syslog_line_is_read_alike_wherever_it_sits() {
    let d = Dir::new();
    let sshd = |t: &str, host: &str, user: &str| {
        format!("{t} {host} sshd[12]: Failed password for {user} from 10.0.0.5 port 52311 ssh2\n")
    };
    let kubelet = "Dec  5 10:00:02 node-a1 kubelet[2345]: E1205 10:00:02.123456    2345 kubelet.go:2855] \"Container runtime network not ready\"\n";
    // Once a header had been behind a prefix, every later line's was taken off: the same sshd
    // line was `sshd[<*>]: Failed …` before it and `Failed …` after it, two clusters. An RFC
    // 3339 prefix (rsyslog's `RSYSLOG_FileFormat`) was cut as `kubectl logs --timestamps`'
    // time: its host stayed in the template.
    let input = [
        sshd("Dec  5 10:00:01", "node-a1", "admin"),
        kubelet.to_string(),
        sshd("Dec  5 10:00:03", "node-b2", "oracle"),
        sshd("2026-12-05T10:00:04.123456+00:00", "edge", "root"),
        sshd("2026-12-05T10:00:05+0000", "core2", "bob"),
        sshd("Sat 2026-12-05 10:00:06 UTC", "web-3", "carol"),
    ]
    .concat();
    let evs = d.events(&["--unknown", "any", "--format", "json"], &input);
    assert_eq!(evs.len(), 6, "{evs:#?}");
    let sshd_evs: Vec<&Value> = evs.iter().filter(|e| e["message"].as_str().unwrap().contains("sshd[")).collect();
    assert_eq!(sshd_evs.len(), 5);
    for e in &sshd_evs {
        assert_eq!(unknown(e).map(|u| u.0), unknown(sshd_evs[0]).map(|u| u.0), "{e}");
        assert!(unknown(e).unwrap().1.starts_with("sshd[<*>]: Failed password for "), "{e}");
        // The whole line is the message; its time is the event's.
        assert!(e["message"].as_str().unwrap().ends_with("ssh2"), "{e}");
    }
    assert_eq!(unknown(sshd_evs[4]).unwrap().1, "sshd[<*>]: Failed password for <*> from <*> port <*> <*>");
    let times: Vec<&str> = sshd_evs.iter().map(|e| e["@timestamp"].as_str().unwrap()).collect();
    let year = &evs[0]["observed"].as_str().unwrap()[..4];
    assert_eq!(times[0], format!("{year}-12-05T10:00:01"), "BSD syslog's time: the observed year (or the one before)");
    assert_eq!(&times[2..], ["2026-12-05T10:00:04.123456+00:00", "2026-12-05T10:00:05+00:00", "2026-12-05T10:00:06Z"]);
    // `/var/log/syslog` interleaves programs. An event's lines are one writer's: another
    // writer's line after a RisingWave event's is an event of its own (behind the prefixes a
    // RisingWave event took every other program's line up to the next header, their known
    // errors its match: found by a second reader), and the event's own line after it is one
    // apart (an event is one run of lines). A Java exception's frames behind the prefix are its
    // own (each line was an event of its own), and not another writer's event's.
    let rw = "Dec  5 10:00:07 node-a1 risingwave[9]: 2026-12-05T10:00:07.000000Z ERROR risingwave_meta::barrier: failed to frobnicate the widget 7";
    let java = |l: &str| format!("Dec  5 10:00:08 node-a1 app[5]: {l}\n");
    let input = [
        format!("{rw}\nDec  5 10:00:07 node-a1 risingwave[9]: Caused by:\n"),
        sshd("Dec  5 10:00:07", "node-a1", "eve"),
        "Dec  5 10:00:07 node-a1 risingwave[9]:   0: widget store is gone\n".to_string(),
    ]
    .concat();
    let evs = d.events(&["--unknown", "any", "--format", "json"], &input);
    let shape: Vec<(u64, u64)> =
        evs.iter().map(|e| (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap())).collect();
    assert_eq!(shape, [(1, 2), (3, 1), (4, 1)], "{evs:#?}");
    assert_eq!((&evs[0]["log"]["level"], &evs[1]["log"]["level"]), (&json!("ERROR"), &Value::Null));
    assert_eq!(unknown(&evs[1]).unwrap().1, "sshd[<*>]: Failed password for eve from <*> port <*> <*>");
    let input = [
        java("Exception in thread \"main\" java.lang.IllegalStateException: pool exhausted"),
        java("\tat com.example.Pool.get(Pool.java:42)"),
        java("Exception in thread \"main\" java.lang.IllegalStateException: pool exhausted"),
        sshd("Dec  5 10:00:08", "node-a1", "eve"),
        java("\tat com.example.Pool.get(Pool.java:42)"),
    ]
    .concat();
    let evs = d.events(&["--unknown", "any", "--format", "json"], &input);
    let shape: Vec<(u64, u64)> =
        evs.iter().map(|e| (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap())).collect();
    assert_eq!(shape, [(1, 2), (3, 1), (4, 1), (5, 1)], "{evs:#?}");
    assert_eq!(unknown(&evs[2]).unwrap().1, "sshd[<*>]: Failed password for eve from <*> port <*> <*>");
}

/// Found by a generalisation reader: `journalctl -o json`'s records of programs other than
/// RisingWave were JSON objects without a message: `--unknown any` wrote none of them.
#[test]
fn regression_journal_json_records_of_other_programs_are_read_as_their_lines() {
    let d = Dir::new();
    let record = |t: u64, host: &str, pid: u32, user: &str| {
        serde_json::json!({
            "__REALTIME_TIMESTAMP": t.to_string(), "PRIORITY": "5", "SYSLOG_IDENTIFIER": "sshd",
            "_PID": pid.to_string(), "_HOSTNAME": host,
            "MESSAGE": format!("Failed password for invalid user {user} from 10.0.0.5 port 52311 ssh2"),
        })
        .to_string()
            + "\n"
    };
    let input =
        record(1764928801000000, "node-a1", 1201, "admin") + &record(1764928802500000, "node-b2", 1877, "oracle");
    let evs = d.events(&["--unknown", "any", "--format", "json"], &input);
    assert_eq!(evs.len(), 2, "{evs:#?}");
    assert_eq!(unknown(&evs[0]).unwrap().0, unknown(&evs[1]).unwrap().0);
    assert_eq!(unknown(&evs[1]).unwrap().1, "sshd[<*>]: Failed password for invalid user <*> from <*> port <*> <*>");
    assert_eq!(evs[1]["@timestamp"], "2025-12-05T10:00:02.500000+00:00");
    assert_eq!(
        evs[1]["message"],
        "<5>2025-12-05T10:00:02.500000+00:00 node-b2 sshd[1877]: Failed password for invalid user oracle from 10.0.0.5 port 52311 ssh2"
    );
    assert_eq!(evs[1]["log"]["level"], "notice");
    assert_eq!((&evs[1]["log"]["format"], &evs[1]["log"]["content_format"]), (&json!("json"), &json!("plain")));
    // A time RFC 3339 cannot write (the year 10000) panicked in the formatter, and an empty
    // message was written as a prefix alone (found by a second reader): the record is read
    // without a prefix, and an empty one is no event.
    let far = json!({"__REALTIME_TIMESTAMP": "253402300800000000", "_HOSTNAME": "node-1", "SYSLOG_IDENTIFIER": "app",
        "_PID": "1", "MESSAGE": "far future"});
    let empty =
        json!({"__REALTIME_TIMESTAMP": "1764928801000000", "SYSLOG_IDENTIFIER": "app", "_PID": "1", "MESSAGE": ""});
    let evs = d.events(&["--unknown", "any", "--format", "json"], &format!("{far}\n{empty}\n"));
    let got: Vec<(&str, &str)> = evs.iter().map(|e| (e["message"].as_str().unwrap(), unknown(e).unwrap().1)).collect();
    assert_eq!(got, [("far future\n", "far future")], "{evs:#?}");
}

/// Found by a platform SRE's reading: a journal record's `PRIORITY` was not its level, so
/// `--unknown warn` wrote none of another program's errors from `journalctl -o json`, and
/// syslog's wire format (`<PRI>` first, as `nc -lu 514` or a relay's file keeps it) was no
/// syslog line at all.
#[test]
fn regression_a_syslog_priority_is_the_lines_level() {
    let d = Dir::new();
    let record = |priority: &str, message: &str| {
        json!({"__REALTIME_TIMESTAMP": "1764928801000000", "PRIORITY": priority, "SYSLOG_IDENTIFIER": "kubelet",
            "_PID": "812", "_HOSTNAME": "node-1", "MESSAGE": message})
        .to_string()
            + "\n"
    };
    let input = [("3", "Failed to pull image for pod meta-0"), ("4", "threshold met"), ("6", "Started"), ("7", "sync")]
        .map(|(p, m)| record(p, m))
        .concat();
    let levels = |evs: &[Value]| evs.iter().map(|e| e["log"]["level"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    assert_eq!(levels(&evs), ["err", "warning"], "{evs:#?}");
    assert_eq!(unknown(&evs[0]).unwrap().1, "kubelet[<*>]: Failed to pull image for pod <*>");
    let evs = d.events(&["--unknown", "error", "--format", "json"], &input);
    assert_eq!(levels(&evs), ["err"], "{evs:#?}");
    let evs = d.events(&["--unknown", "any", "--format", "json"], &input);
    assert_eq!(levels(&evs), ["err", "warning", "info", "debug"], "{evs:#?}");
    // The wire format: a capitalised host is taken behind a `<PRI>`, its time is `@timestamp`,
    // and what the line says is clustered from its ident on.
    let input = "\
<30>Dec  5 10:00:00 Server app: listening on 8080
<27>Dec  5 10:00:01 Server app: cannot open /data/x.db: permission denied
<27>Dec  5 10:00:02 Server app: cannot open /data/y.db: permission denied
";
    let evs = d.events(&["--unknown", "warn", "--format", "json"], input);
    assert_eq!(levels(&evs), ["err", "err"], "{evs:#?}");
    assert_eq!(unknown(&evs[1]).unwrap(), (unknown(&evs[0]).unwrap().0, "app: cannot open <*>: permission denied", 2));
    assert!(evs[0]["@timestamp"].as_str().unwrap().ends_with("-12-05T10:00:01"), "{evs:#?}");
    // RFC 5424 (a second reader's: `logger -n` sends it), its structured data out of the
    // template.
    let input = "\
<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - 'su root' failed for lonvick on /dev/pts/8
<38>1 2003-10-11T22:14:16.003Z mymachine.example.com su 77 ID47 [origin ip=\"10.0.0.1\"] session opened for root
";
    let evs = d.events(&["--unknown", "warn", "--format", "json"], input);
    assert_eq!(levels(&evs), ["crit"], "{evs:#?}");
    assert_eq!(evs[0]["@timestamp"], "2003-10-11T22:14:15.003Z");
    assert_eq!(unknown(&evs[0]).unwrap().1, "<*> failed for lonvick on <*>");
    let evs = d.events(&["--unknown", "any", "--format", "json"], input);
    assert_eq!(unknown(&evs[1]).unwrap().1, "session opened for root", "{evs:#?}");
    // A RisingWave report's lines, a journal record each, at `err` (Docker's syslog driver
    // sends stderr so): its empty line ended the event, and the report below, at `err` with no
    // header, was clustered apart (a second reader's). One event, its fields on its last line.
    let report = [
        "2026-03-02T08:05:51.2Z  WARN risingwave_meta::barrier: failed to collect barrier: gRPC error",
        "",
        "Caused by these errors (recent errors listed first):",
        "  1: gizmo flux 7 exploded",
        " epoch=123 database_id=7",
    ];
    let input: String = report
        .iter()
        .map(|m| {
            json!({"__REALTIME_TIMESTAMP": "1764928801000000", "PRIORITY": "3", "SYSLOG_IDENTIFIER": "risingwave",
                "_PID": "77", "_HOSTNAME": "node-a1", "MESSAGE": m})
            .to_string()
                + "\n"
        })
        .collect();
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!((&evs[0]["source"]["lines"], &evs[0]["log"]["level"]), (&json!(5), &json!("WARN")), "{evs:#?}");
    assert_eq!(evs[0]["log"]["fields"]["database_id"], "7", "{evs:#?}");
    // The same report sent as RFC 5424, syslog-ng's `sequenceId` in each line's structured
    // data, its empty line with no blank after the header (as the RFC has it): one writer's
    // lines, one event (a third reader's: an event a line). And a time of `-` panicked.
    let input: String = report
        .iter()
        .enumerate()
        .map(|(n, m)| {
            let sep = if m.is_empty() { "" } else { " " };
            format!("<11>1 - node-a1 risingwave 77 - [meta sequenceId=\"{n}\"]{sep}{m}\n")
        })
        .collect();
    let out = run(&["--unknown", "warn", "--format", "json"], input.as_bytes());
    assert!(stderr_of(&out).is_empty(), "{}", stderr_of(&out));
    let evs = events(&out.stdout);
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!((&evs[0]["source"]["lines"], &evs[0]["log"]["level"]), (&json!(5), &json!("WARN")), "{evs:#?}");
    assert_eq!(evs[0]["log"]["fields"]["database_id"], "7", "{evs:#?}");
    let out = run(&["--unknown", "warn", "--format", "json"], b"<11>1 - node-a1 app 77 - - zorp flux 7 exploded\n");
    assert!(stderr_of(&out).is_empty(), "{}", stderr_of(&out));
    let evs = events(&out.stdout);
    assert_eq!(evs[0]["@timestamp"], evs[0]["observed"], "{evs:#?}");
    assert_eq!(unknown(&evs[0]).unwrap().1, "zorp flux <*> exploded", "{evs:#?}");
}

/// Found by a syslog pipeline administrator's reading: what the transports do to RisingWave's
/// lines and to other programs' beside them.
#[test]
fn regression_syslog_transports_keep_levels_times_and_reports() {
    let ev = |args: &[&str], input: &str| {
        let out = run(args, input.as_bytes());
        assert!(stderr_of(&out).is_empty(), "{}", stderr_of(&out));
        events(&out.stdout)
    };
    let warn = ["--unknown", "warn", "--format", "json"];
    // A relay's file, every line with its `<PRI>`: another program's crit line among
    // RisingWave's, with no level word in it, went unclustered (the marks find none).
    let mut relay: String = (0..8)
        .map(|i| format!("<14>Mar  2 08:00:0{i} meta-0 risingwave[42]: 2026-03-02T08:00:0{i}.0Z  INFO risingwave_meta::x: tick {i}\n"))
        .collect();
    relay.push_str("<26>Mar  2 08:00:09 lb-1 haproxy[77]: Server web2 is down, no backup\n");
    let evs = ev(&warn, &relay);
    let got: Vec<(&Value, &str)> = evs.iter().map(|e| (&e["log"]["level"], unknown(e).unwrap().1)).collect();
    assert_eq!(got, [(&json!("crit"), "haproxy[<*>]: Server <*> is down, no backup")], "{evs:#?}");
    // Docker's syslog driver writes no host, and its tag may hold a `/`: every line was plain
    // text, the report's lines events apart.
    let docker = "\
<27>Mar  2 08:00:01 docker/rw-meta[900]: 2026-03-02T08:00:01.0Z ERROR risingwave_meta::x: quux frobnicated job_id=3
<27>Mar  2 08:00:01 docker/rw-meta[900]: Caused by:
<27>Mar  2 08:00:01 docker/rw-meta[900]:   0: zork unreachable
";
    let evs = ev(&warn, docker);
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!((&evs[0]["source"]["lines"], &evs[0]["log"]["fields"]["job_id"]), (&json!(3), &json!("3")), "{evs:#?}");
    // A panic behind a prefix has the prefix's time, not the time of reading.
    let panic = "<27>Mar  2 08:00:01 meta-0 risingwave[42]: thread 'rw-main' (38) panicked at src/a.rs:1:2:\n\
                 <27>Mar  2 08:00:01 meta-0 risingwave[42]: called `Option::unwrap()` on a `None` value\n";
    let evs = ev(&warn, panic);
    assert_eq!(evs[0]["log"]["format"], "panic", "{evs:#?}");
    assert!(evs[0]["@timestamp"].as_str().unwrap().ends_with("-03-02T08:00:01"), "{evs:#?}");
    // journald writes a `MESSAGE` with control bytes (a container's colours) as its bytes.
    let line = "\u{1b}[31m2026-03-02T08:00:00.1Z ERROR risingwave_meta::x: zork frobnicated\u{1b}[0m";
    let record = json!({"__REALTIME_TIMESTAMP": "1772438400123456", "PRIORITY": "3", "_HOSTNAME": "meta-0",
        "SYSLOG_IDENTIFIER": "risingwave", "_PID": "42", "MESSAGE": line.as_bytes()});
    let evs = ev(&warn, &format!("{record}\n"));
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!(evs[0]["log"]["level"], "ERROR", "{evs:#?}");
    assert_eq!(unknown(&evs[0]).unwrap().1, "zork frobnicated", "{evs:#?}");
}

/// Found by a second reader's fuzzing: a plain line behind a syslog prefix keeps the prefix as
/// its text, and a time after it, read as `kubectl --timestamps`' prefix, was looked up past the
/// first line's prefixes: the annotator panicked and the event was skipped.
#[test]
fn regression_a_time_behind_a_plain_lines_syslog_prefix_is_its_text() {
    let input = "2026-03-02T08:01:38.441407197Z thread 'main' panicked at x\n--thread 'main' panicked at \n\
                 <27>2026-12-05T10:00:00+00:00 h a[1]: thread 'main' panicked at \n\n\
                 --2026-12-05T10:00:00+00:00 h a[1]: 2026-12-05T10:00:00+00:00 h a[1]: z\n";
    for args in [&["--unknown", "any", "--format", "json"][..], &["--all", "--format", "json"]] {
        let out = run(args, input.as_bytes());
        assert!(out.status.success(), "{}", stderr_of(&out));
        assert!(!stderr_of(&out).contains("internal error"), "{args:?}: {}", stderr_of(&out));
        let evs = events(&out.stdout);
        let last = evs.last().map(|e| e["source"]["line"].as_u64().unwrap() + e["source"]["lines"].as_u64().unwrap());
        assert_eq!(last, Some(6), "the last line is in an event: {args:?}: {evs:#?}");
    }
}

/// Found by a generalisation reader: Spring Boot's console lines read as RisingWave text
/// clustered their pid, thread and logger (`<*> --- [<*>] c.e.orders.OrderController`): two
/// errors of one logger were one cluster, and neither message was in it.
#[test]
fn regression_spring_boot_lines_cluster_their_message() {
    let d = Dir::new();
    let input = "\
2026-12-05 10:00:02.101 ERROR 7 --- [nio-8080-exec-2] c.e.orders.OrderController               : Order 4411 rejected: inventory service unavailable
2026-12-05 10:00:03.101 ERROR 7 --- [nio-8080-exec-3] c.e.orders.OrderController               : Payment 9912 declined by gateway stripe
2026-12-05 10:00:04.101 ERROR 7 --- [nio-8080-exec-1] c.e.orders.OrderController               : Order 4412 rejected: inventory service unavailable
";
    let evs = d.events(&["--unknown", "warn", "--format", "json"], input);
    let got: Vec<(&str, &str)> = evs.iter().map(|e| unknown(e).map(|u| (u.0, u.1)).unwrap()).collect();
    assert_eq!(got.len(), 3, "{evs:#?}");
    assert_eq!(got[0].0, got[2].0);
    assert_ne!(got[0].0, got[1].0);
    assert_eq!(got[2].1, "Order <*> rejected");
    assert_eq!(got[1].1, "Payment <*> declined by gateway stripe");
    assert_eq!(
        (&evs[1]["log"]["target"], &evs[1]["log"]["thread"]),
        (&json!("c.e.orders.OrderController"), &json!("nio-8080-exec-3"))
    );
}

/// Found by a developer's reading of client programs' logs: a JDBC exception's stack frames
/// after a known cause were clustered as the event's unknown error (`at
/// <*>(QueryExecutorImpl.java:<*>)`, every database error of an application one cluster), and
/// the ` (SQLSTATE XX000)` Go's pgx writes after a server's message was a capture's end and,
/// after a known error, an unknown one (`(SQLSTATE <*>)`).
#[test]
fn regression_a_client_librarys_wrapping_is_no_unknown_error() {
    let d = Dir::new();
    let jdbc = "\
2026-12-05 10:00:02.511 ERROR [pool-1-thread-3] c.e.sink.SinkAdmin - create sink failed
org.postgresql.util.PSQLException: ERROR: Failed to complete epoch 7: meta leader lease lost
\tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2725)
\tat com.example.sink.SinkAdmin.create(SinkAdmin.java:88)
\t... 12 more
";
    let evs = d.events(&["--unknown", "warn", "--format", "json"], jdbc);
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!((&evs[0]["match"]["id"], &evs[0]["unknown"]), (&json!("c-lease"), &Value::Null), "{evs:#?}");
    let pgx = |cause: &str| {
        json!({"level": "error", "msg": "query failed", "error": format!("ERROR: Storage error: {cause} (SQLSTATE XX000)")})
            .to_string()
            + "\n"
    };
    let bare = |n: u32| {
        json!({"level": "error", "error": format!("ERROR: quux gizmo {n} unreachable (SQLSTATE XX000)")}).to_string()
            + "\n"
    };
    let evs = d.events(
        &["--unknown", "warn", "--format", "json"],
        &(pgx("meta leader lease lost") + &pgx("quux gizmo 77 unreachable") + &bare(78) + &bare(79)),
    );
    assert_eq!(evs.len(), 4, "{evs:#?}");
    assert_eq!((&evs[0]["match"]["id"], &evs[0]["unknown"]), (&json!("c-lease"), &Value::Null), "{evs:#?}");
    assert_eq!(evs[1]["match"]["captures"]["_1"], "quux gizmo 77 unreachable", "{evs:#?}");
    assert_eq!(unknown(&evs[3]).map(|u| u.1), Some("ERROR: quux gizmo <*> unreachable"), "{evs:#?}");
}

/// Found by a developer's reading: logback's default layout (`HH:mm:ss.SSS [thread] LEVEL
/// logger - msg`, a clock without a date) was plain text: `--unknown warn` wrote none of its
/// errors, and an exception's lines below one were an event apart.
#[test]
fn regression_logbacks_default_layout_is_read_with_its_level() {
    let d = Dir::new();
    let input = "\
10:00:04.000 [main] INFO  c.e.orders.OrderService - loaded 12 orders
10:00:05.000 [main] ERROR c.e.orders.OrderService - frobnicator 13 wobbled at epoch 98
org.postgresql.util.PSQLException: ERROR: frobnicator 13 wobbled at epoch 98
\tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2725)
10:00:06.000 [pool-2-thread-9] WARN  c.e.orders.OrderService - frobnicator 14 wobbled at epoch 97
2026-12-05 10:00:07,000 ERROR [main] c.e.orders.OrderService - frobnicator 15 wobbled at epoch 96
";
    let evs = d.events(&["--unknown", "warn", "--format", "json"], input);
    let got: Vec<(u64, u64, &str, &str, &str)> = evs
        .iter()
        .map(|e| {
            let log = &e["log"];
            let (level, target) = (log["level"].as_str().unwrap(), log["target"].as_str().unwrap());
            let (line, lines) = (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap());
            (line, lines, level, target, unknown(e).unwrap().1)
        })
        .collect();
    let t = "c.e.orders.OrderService";
    let template = "frobnicator <*> wobbled at epoch <*>";
    // A dated `ERROR` line fills RisingWave's level column: read as its header, the same.
    assert_eq!(got, [(2, 3, "ERROR", t, template), (5, 1, "WARN", t, template), (6, 1, "ERROR", t, template)]);
    assert_eq!(evs[2]["log"]["thread"], "main");
    // A clock without a date is no `@timestamp`: the observed time stands in.
    assert_eq!(evs[0]["@timestamp"], evs[0]["observed"]);
}

#[test]
fn same_input_same_ids_and_counts_on_two_runs() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..30 {
        input.push_str(&error(i, &format!("sink writer {i} crashed: broken pipe on 10.0.0.{i}:4566")));
        input.push('\n');
        input.push_str(&warn(i, &format!("actor {} is slow, lag {}ms", i * 7, i * 13)));
        input.push('\n');
    }
    let file = d.write("in.log", &input);
    let a = d.events(&["--unknown", "warn", "--format", "json", &file], "");
    let b = d.events(&["--unknown", "warn", "--format", "json", "--threads", "2", &file], "");
    let ua: Vec<_> = a.iter().map(|e| unknown(e).unwrap()).collect();
    let ub: Vec<_> = b.iter().map(|e| unknown(e).unwrap()).collect();
    assert_eq!(ua, ub);
    let ids: std::collections::BTreeSet<&str> = ua.iter().map(|u| u.0).collect();
    assert_eq!(ids.len(), 2, "{ua:?}");
    // The first link of the chain: `broken pipe on …` is the cause chained to the error.
    assert_eq!(ua[0].1, "sink writer <*> crashed");
    assert_eq!(ua[1].1, "actor <*> is slow, lag <*>");
    assert_eq!((ua[58].2, ua[59].2), (30, 30), "counts go up by one per event");
    // The id is the template's XXH3 (as 16 hex digits): no arrival number in it.
    assert!(ua.iter().all(|u| u.0.len() == 16 && u.0.bytes().all(|b| b.is_ascii_hexdigit())));
}

#[test]
fn pretty_and_ecs_show_the_cluster() {
    let d = Dir::new();
    let input = format!("{}\n{}\n", error(1, "sink writer 1 crashed"), error(2, "sink writer 2 crashed"));
    let out = run(
        // Each in full: by default the second is a repeat of the first's cluster, collapsed.
        &["-c", &d.catalog(), "--unknown", "warn", "--format", "pretty", "--color", "always", "--no-collapse"],
        input.as_bytes(),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let ids: Vec<&str> = text.lines().filter_map(|l| l.split("cluster ").nth(1)).map(|r| &r[..16]).collect();
    assert_eq!(ids.len(), 2, "{text}");
    assert!(text.contains(&format!("\x1b[2m╰─ unknown error, cluster {}, seen 1×", ids[0])), "{text}");
    assert!(text.contains(&format!("unknown error, cluster {}, seen 2×", ids[0])), "{text}");
    assert!(text.contains("template: sink writer <*> crashed"), "{text}");
    let ecs = d.events(&["--unknown", "warn", "--format", "ecs"], &input);
    assert_eq!(ecs.len(), 2);
    assert_eq!(ecs[1]["event"]["kind"], "alert");
    assert_eq!(ecs[1]["event"]["severity"], 3);
    assert_eq!(ecs[1]["labels"]["annotail_unknown_cluster"], ids[0]);
    assert_eq!(ecs[1]["annotail"]["unknown"]["count"], 2);
    assert_eq!(ecs[1]["annotail"]["unknown"]["template"], "sink writer <*> crashed");
    assert_eq!(ecs[1]["error"]["message"], "sink writer 2 crashed");
    assert_eq!(ecs[1]["ecs"]["version"], "8.11.0", "required in every ECS event");
    // Regression (an OTel pipeline's reading): `--unknown any`'s INFO and plain lines were alerts
    // at `event.severity` 4, a warning, where `--min-severity` and OTLP read them as below one.
    let lines =
        format!("just a plain line 7\n{}\n{}\n", info(3, "quux rebalanced 5 shards"), warn(4, "quux lag at 9 s"));
    let ecs = d.events(&["--unknown", "any", "--format", "ecs"], &lines);
    let got: Vec<(String, Value)> =
        ecs.iter().map(|e| (e["event"]["kind"].as_str().unwrap().to_owned(), e["event"]["severity"].clone())).collect();
    assert_eq!(
        got,
        [
            ("event".to_owned(), Value::Null),
            ("event".to_owned(), Value::from(6)),
            ("alert".to_owned(), Value::from(4))
        ],
        "{ecs:#?}"
    );
    let kept = d.events(&["--unknown", "any", "--format", "ecs", "--min-severity", "warning"], &lines);
    assert_eq!(kept.len(), 1, "{kept:#?}");
}

#[test]
fn summary_lists_the_top_unknown_clusters() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..5 {
        input.push_str(&format!("{}\n", error(i, &format!("sink writer {i} crashed"))));
    }
    input.push_str(&format!("{}\n", warn(9, "slow heartbeat from worker 3")));
    let out = run(&["-c", &d.catalog(), "--unknown", "warn", "--format", "json", "--summary"], input.as_bytes());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("  unknown       6 events, 2 clusters alive\n"), "{err}");
    let rows: Vec<&str> = err.lines().skip_while(|l| !l.contains("CLUSTER")).skip(1).collect();
    assert!(rows[0].trim_start().starts_with("5  ") && rows[0].ends_with("sink writer <*> crashed"), "{err}");
    assert!(rows[1].ends_with("slow heartbeat from worker <*>"), "{err}");
}

/// Found by an operator's reading: `discover` wrote a template's control characters as escapes,
/// but `--summary`'s table and pretty output's template line wrote them raw (a bell rang, NULs
/// made `grep` call the daemon's log binary).
#[test]
fn regression_control_characters_of_a_template_reach_the_terminal_as_escapes() {
    let d = Dir::new();
    let input = format!(
        "{}\n{}\n",
        error(1, "sink writer 1 rang \x07 twice \0 here"),
        error(2, "sink writer 2 rang \x07 twice \0 here")
    );
    let out = run(
        &["-c", &d.catalog(), "--unknown", "warn", "--format", "pretty", "--color", "never", "--summary"],
        input.as_bytes(),
    );
    let (text, err) = (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap());
    let template = text.lines().find(|l| l.contains("template: ")).expect("a template line");
    assert!(template.ends_with("template: sink writer <*> rang \\u{7} twice \\u{0} here"), "{text}");
    let row = err.lines().skip_while(|l| !l.contains("CLUSTER")).nth(1).expect("a cluster row");
    assert!(row.ends_with("sink writer <*> rang \\u{7} twice \\u{0} here"), "{err}");
    assert!(!err.contains('\x07') && !template.contains('\0'), "{err}");
}

#[test]
fn the_cap_bounds_the_clusters_alive() {
    let d = Dir::new();
    // 100 kinds (their words differ, so masking cannot merge them), then the first kind again.
    let words = |i: usize| format!("k{}", (b'a' + (i % 26) as u8) as char).repeat(1 + i / 26);
    let mut input = String::new();
    for i in 0..100 {
        input.push_str(&format!("{}\n", error(0, &format!("{} failed hard", words(i)))));
    }
    input.push_str(&format!("{}\n", error(0, &format!("{} failed hard", words(0)))));
    let out =
        run(&["-c", &d.catalog(), "--unknown", "warn", "--unknown-max-clusters", "16", "--format", "json", "--summary"], input.as_bytes());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let evs = events(&out.stdout);
    assert_eq!(evs.len(), 101);
    // The run's events, not the counts of the clusters still alive; and how many were dropped.
    assert!(
        err.contains("101 events, 16 clusters alive (") || err.contains("101 events, 15 clusters alive ("),
        "{err}"
    );
    assert!(err.contains(" dropped at the cap)"), "{err}");
    // The first kind was dropped long ago: it starts over, under the same id.
    let (first, last) = (unknown(&evs[0]).unwrap(), unknown(&evs[100]).unwrap());
    assert_eq!((first.0, first.2), (last.0, 1));
}

/// Events from a follow-mode daemon, as they come.
fn lines_of(child: &mut Child) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    rx
}

fn take(rx: &mpsc::Receiver<Value>, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + PATIENCE;
    let mut got = Vec::new();
    while got.len() < n {
        let left = deadline.saturating_duration_since(Instant::now());
        got.push(rx.recv_timeout(left).unwrap_or_else(|_| panic!("only {} of {n} events", got.len())));
    }
    got
}

fn metrics_addr(err_file: &std::path::Path) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let text = std::fs::read_to_string(err_file).unwrap_or_default();
        if let Some(l) = text.lines().find(|l| l.contains("metrics endpoint")) {
            let a = l.split("addr=").nth(1).unwrap().split_whitespace().next().unwrap();
            return a.to_owned();
        }
        assert!(Instant::now() < deadline, "no metrics address in {text}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn scrape(addr: &str) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut body = String::new();
    s.read_to_string(&mut body).unwrap();
    body
}

/// Scrape until the body has every one of `want`.
fn scrape_until(addr: &str, want: &[&str]) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let m = scrape(addr);
        if want.iter().all(|w| m.contains(w)) {
            return m;
        }
        assert!(Instant::now() < deadline, "never {want:?} in {m}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Regressions (found by a second reader): every checkpoint rewrote (and fsynced) the whole
/// clusters file, also after deliveries that changed no cluster (13 MB/s of writes for 9,500
/// clusters and a few INFO lines a second); and a reload that lowered `max_clusters` was ignored
/// (41 clusters alive under a cap of 4).
#[test]
fn regression_unchanged_clusters_are_not_rewritten_and_a_reload_applies_a_lower_cap() {
    use std::os::unix::fs::MetadataExt;
    let d = Dir::new();
    let log = d.dir.path().join("meta.log");
    let state = d.dir.path().join("state");
    let err_file = d.dir.path().join("stderr.log");
    let config = d.dir.path().join("annotail.toml");
    let cfg = |cap: u32| format!("[unknown]\nlevels = \"warn\"\nmax_clusters = {cap}\n");
    std::fs::write(&config, cfg(100)).unwrap();
    let kinds = ["sink writer crashed", "replica fell behind", "disk almost full", "lease slow", "gossip timed out"];
    let errors: String = kinds.iter().enumerate().map(|(i, k)| error(i as u32, k) + "\n").collect();
    std::fs::write(&log, &errors).unwrap();
    let mut c = cmd();
    c.args(["--config", &path_str(&config), "--follow", &path_str(&log), "--state-dir", &path_str(&state)]);
    c.args(["-c", &d.catalog(), "--format", "json", "--poll-interval", "50ms", "--checkpoint-interval", "10ms"]);
    c.args(["--clusters-interval", "10ms", "--metrics-addr", "127.0.0.1:0", "--log-level", "info"]);
    c.stdout(Stdio::piped()).stderr(std::fs::File::create(&err_file).unwrap());
    let mut child = c.spawn().unwrap();
    let rx = lines_of(&mut child);
    take(&rx, kinds.len());
    let addr = metrics_addr(&err_file);
    scrape_until(&addr, &["annotail_unknown_clusters 5"]);
    let clusters = state.join("unknown-clusters.json");
    let checkpoints = state.join("checkpoints.json");
    let written = |p: &std::path::Path| std::fs::metadata(p).map(|m| (m.ino(), m.mtime_nsec(), m.len())).ok();
    let deadline = Instant::now() + PATIENCE;
    let has = |words: &[&str]| std::fs::read_to_string(&clusters).is_ok_and(|t| words.iter().all(|w| t.contains(w)));
    // Saved as tokens: each kind's first word.
    while !has(&["sink", "replica", "disk", "lease", "gossip"]) {
        assert!(Instant::now() < deadline, "the clusters were never written");
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(200));
    let before = written(&clusters);
    // INFO lines only: delivered and checkpointed, no cluster changes.
    for round in 0..5 {
        let ck = written(&checkpoints);
        let infos: String = (0..3).map(|i| info(10 + round * 3 + i, "all good") + "\n").collect();
        std::fs::OpenOptions::new().append(true).open(&log).unwrap().write_all(infos.as_bytes()).unwrap();
        let deadline = Instant::now() + PATIENCE;
        while written(&checkpoints) == ck {
            assert!(Instant::now() < deadline, "no checkpoint after round {round}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(written(&clusters), before, "the clusters file was written again with nothing new in it");
    // A new unknown kind is written.
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all((error(40, "quorum lost") + "\n").as_bytes()).unwrap();
    take(&rx, 1);
    let deadline = Instant::now() + PATIENCE;
    while !has(&["quorum"]) {
        assert!(Instant::now() < deadline, "the new cluster was never written");
        std::thread::sleep(Duration::from_millis(20));
    }
    // A reload with a lower cap: the clusters over it go at once, counted as dropped.
    std::fs::write(&config, cfg(2)).unwrap();
    let ok = std::process::Command::new("kill").args(["-HUP", &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
    scrape_until(&addr, &["annotail_unknown_clusters 2\n", "annotail_unknown_clusters_evicted 4\n"]);
    let _ = child.kill();
    let _ = child.wait();
}

/// Regression (found by a daemon operator's reading): a reload that turned `--unknown` on from
/// `off` clustered into a clusterer nothing else held: its clusters were never written to the
/// state directory, `annotail_unknown_clusters` stayed 0, `--summary` had no unknown section, and
/// a restart counted every kind from 1 again.
#[test]
fn regression_a_reload_that_turns_unknown_on_keeps_its_clusters() {
    let d = Dir::new();
    let log = d.dir.path().join("meta.log");
    let state = d.dir.path().join("state");
    let err_file = d.dir.path().join("stderr.log");
    let config = d.dir.path().join("annotail.toml");
    let cfg = |levels: &str| format!("[unknown]\nlevels = \"{levels}\"\n");
    std::fs::write(&config, cfg("off")).unwrap();
    std::fs::write(&log, info(0, "all good") + "\n").unwrap();
    let start = |err: &std::path::Path| {
        let mut c = cmd();
        c.args(["--config", &path_str(&config), "--follow", &path_str(&log), "--state-dir", &path_str(&state)]);
        c.args(["-c", &d.catalog(), "--format", "json", "--poll-interval", "50ms", "--checkpoint-interval", "10ms"]);
        c.args(["--clusters-interval", "10ms", "--metrics-addr", "127.0.0.1:0", "--log-level", "info", "--summary"]);
        c.stdout(Stdio::piped()).stderr(std::fs::File::create(err).unwrap());
        c.spawn().unwrap()
    };
    // Off, the clusters file is neither read nor set aside (found by a second reader: an
    // unreadable one was moved to `.corrupt` by a daemon that did not cluster).
    std::fs::create_dir_all(&state).unwrap();
    let clusters = state.join("unknown-clusters.json");
    std::fs::write(&clusters, "not json").unwrap();
    let mut a = start(&err_file);
    let rx = lines_of(&mut a);
    let addr = metrics_addr(&err_file);
    scrape_until(&addr, &["annotail_unknown_clusters 0"]);
    assert_eq!(std::fs::read_to_string(&clusters).unwrap(), "not json");
    assert!(!state.join("unknown-clusters.json.corrupt").exists());
    std::fs::write(&config, cfg("warn")).unwrap();
    let ok = std::process::Command::new("kill").args(["-HUP", &a.id().to_string()]).status().unwrap();
    assert!(ok.success());
    scrape_until(&addr, &["annotail_catalog_reloads_total{result=\"ok\"} 1"]);
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    for i in 1..4 {
        f.write_all((warn(i, &format!("zorblax conduit {i} overheated while flushing")) + "\n").as_bytes()).unwrap();
    }
    let first = take(&rx, 3);
    let counts = |evs: &[Value]| evs.iter().map(|e| e["unknown"]["count"].as_u64().unwrap()).collect::<Vec<_>>();
    assert_eq!(counts(&first), [1, 2, 3], "{first:?}");
    scrape_until(&addr, &["annotail_unknown_clusters 1\n", "annotail_unknown_events_total{level=\"warn\"} 3"]);
    let deadline = Instant::now() + PATIENCE;
    while !std::fs::read_to_string(&clusters).is_ok_and(|t| t.contains("zorblax")) {
        assert!(Instant::now() < deadline, "the clusters were never written");
        std::thread::sleep(Duration::from_millis(20));
    }
    let ok = std::process::Command::new("kill").args(["-TERM", &a.id().to_string()]).status().unwrap();
    assert!(ok.success());
    assert!(common::wait_timeout(&mut a, PATIENCE).is_some());
    let summary = std::fs::read_to_string(&err_file).unwrap();
    assert!(
        summary.contains("zorblax conduit <*> overheated while flushing"),
        "no unknown cluster in the summary: {summary}"
    );
    // A restart (the config still says warn) goes on counting.
    f.write_all((warn(5, "zorblax conduit 5 overheated while flushing") + "\n").as_bytes()).unwrap();
    let mut b = start(&d.dir.path().join("stderr2.log"));
    let rx = lines_of(&mut b);
    let second = take(&rx, 1);
    let _ = b.kill();
    let _ = b.wait();
    assert_eq!(counts(&second), [4], "{second:?}");
    assert_eq!(second[0]["unknown"]["cluster"], first[0]["unknown"]["cluster"]);
}

#[test]
fn ids_and_counts_survive_a_follow_mode_restart() {
    let d = Dir::new();
    let log = d.dir.path().join("meta.log");
    let state = d.dir.path().join("state");
    let err_file = d.dir.path().join("stderr.log");
    let start = || {
        let mut c = cmd();
        c.args(["--follow", &path_str(&log), "--state-dir", &path_str(&state), "-c", &d.catalog()]);
        c.args(["--unknown", "warn", "--format", "json", "--poll-interval", "50ms", "--checkpoint-interval", "10ms"]);
        c.args(["--metrics-addr", "127.0.0.1:0", "--log-level", "info"]);
        c.stdout(Stdio::piped()).stderr(std::fs::File::create(&err_file).unwrap());
        c.spawn().unwrap()
    };
    let batch = |from: u32| -> String {
        (from..from + 5)
            .flat_map(|i| {
                [
                    error(i, &format!("sink writer {i} crashed: broken pipe on 10.0.0.{i}:4566")),
                    warn(i, &format!("actor {} is slow, lag {}ms", i * 7, i * 13)),
                    info(i, "all good"),
                ]
            })
            .map(|l| l + "\n")
            .collect()
    };
    std::fs::write(&log, batch(0)).unwrap();
    let mut a = start();
    let rx = lines_of(&mut a);
    let first = take(&rx, 10);
    let addr = metrics_addr(&err_file);
    let m = scrape(&addr);
    assert!(m.contains("annotail_unknown_events_total{level=\"error\"} 5"), "{m}");
    assert!(m.contains("annotail_unknown_events_total{level=\"warn\"} 5"), "{m}");
    assert!(m.contains("annotail_unknown_clusters 2"), "{m}");
    // Graceful stop (the checkpoint is written), more lines, a new daemon.
    let ok = std::process::Command::new("kill").args(["-TERM", &a.id().to_string()]).status().unwrap();
    assert!(ok.success());
    assert!(common::wait_timeout(&mut a, PATIENCE).is_some());
    std::fs::OpenOptions::new().append(true).open(&log).unwrap().write_all(batch(5).as_bytes()).unwrap();
    let mut b = start();
    let rx = lines_of(&mut b);
    let second = take(&rx, 10);
    let _ = b.kill();
    let _ = b.wait();
    assert!(second.iter().all(|e| e["source"]["line"].as_u64().unwrap() > 15), "lines read twice: {second:?}");
    let ids = |evs: &[Value]| -> std::collections::BTreeMap<String, String> {
        evs.iter().map(|e| (e["unknown"]["template"].as_str().unwrap().to_owned(), e["unknown"]["cluster"].as_str().unwrap().to_owned())).collect()
    };
    assert_eq!(ids(&first).len(), 2);
    assert_eq!(ids(&first), ids(&second));
    // The clusters were kept in the state directory with the checkpoint: the counts go on
    // from where the first daemon left them (5 events of each kind), not from 1.
    let counts = |evs: &[Value], t: &str| -> Vec<u64> {
        evs.iter().filter(|e| e["unknown"]["template"] == t).map(|e| e["unknown"]["count"].as_u64().unwrap()).collect()
    };
    for t in ["sink writer <*> crashed", "actor <*> is slow, lag <*>"] {
        assert_eq!(counts(&first, t), [1, 2, 3, 4, 5], "{t}: {first:?}");
        assert_eq!(counts(&second, t), [6, 7, 8, 9, 10], "{t}: {second:?}");
    }
    assert!(state.join("unknown-clusters.json").is_file());
}

/// Regression (found by a reader of the clusterer): a kind whose lines hold a value with other
/// `key=` fields inside it, whose keys differ from line to line (Android's `START u0 {act=main
/// flg=0x10 cmp=…} from uid …`), was drafted `\bSTART (.+?) from uid …`, which `check` passed and
/// which matched none of its lines (a capture ends where a field starts). Every draft is tried
/// on its own example lines now; one that matches none is left out, and `discover` says so.
#[test]
fn regression_a_draft_that_matches_none_of_its_lines_is_left_out() {
    let d = Dir::new();
    let lines = "START u0 {act=main flg=0x10 cmp=qq} from uid 10057 on display 0\n\
                 START u0 {act=main cat=launcher flg=0x14 cmp=pad} from uid 10111 on display 0\n\
                 Sending signal to pid 4711 uid 10057 signal 9\n\
                 Sending signal to pid 4712 uid 10058 signal 9\n";
    let file = d.write("android.log", lines);
    let out = run(&["discover", "-c", &d.catalog(), "--unknown", "any", "--format", "catalog", &file], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let drafts = events(&out.stdout);
    let templates: Vec<&str> = drafts.iter().map(|r| r["discovered"]["template"].as_str().unwrap()).collect();
    assert_eq!(templates, ["Sending signal to pid <*> uid <*> signal <*>"], "{drafts:?}");
    let err = stderr_of(&out);
    assert!(
        err.contains("1 cluster(s) have no draft: the draft made of their template matched none of their own example lines (such as `START <*> from uid <*> on display <*>`"),
        "{err}"
    );
    // The draft written matches its lines.
    let cat = d.write("drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    let evs = d.events(&["-c", &cat, "--format", "json", &file], "");
    assert_eq!(evs.iter().filter(|e| e["match"]["id"].is_string()).count(), 2, "{evs:?}");
    // regression (a catalog keeper's reading): an event logged inside a long span had its
    // examples cut before its message, and its draft, tried on them, was left out as matching
    // none. The example shows the line's start, `…` and its message.
    let lines: String = (0..3)
        .map(|i| {
            let span = format!("sp{{blob={}}}:", "x".repeat(1100));
            let at = format!("2026-03-02T08:00:0{i}.000000000Z  WARN {span} risingwave_meta::stream::stream_manager: ");
            format!("{at}lease handoff timed out for node {}\n", 3 + i)
        })
        .collect();
    let file = d.write("long.log", &lines);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    assert!(stderr_of(&out).is_empty(), "{}", stderr_of(&out));
    let drafts = events(&out.stdout);
    assert_eq!(drafts.len(), 1, "{drafts:?}");
    assert_eq!(drafts[0]["record"]["errorMessage"], "lease handoff timed out for node {}");
    let example = drafts[0]["discovered"]["examples"][0].as_str().unwrap();
    assert!(example.starts_with("2026-03-02T08:00:00.000000000Z  WARN sp{blob=xxx"), "{example}");
    let end = "}: risingwave_meta::stream::stream_manager: lease handoff timed out for node 3";
    assert!(example.ends_with(end), "{example}");
    assert!(example.contains('\u{2026}') && example.len() < 1100, "{example}");
    let cat = d.write("long-drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    let evs = d.events(&["-c", &cat, "--format", "json", &file], "");
    let captures: Vec<&Value> = evs.iter().map(|e| &e["match"]["captures"]["_1"]).collect();
    assert_eq!(captures, [&json!("3"), &json!("4"), &json!("5")], "{evs:?}");
}

/// Regression (found by a reader of the clusterer): a restarted daemon took its clusters back in
/// the order they were last seen, and a line as close to two templates as to each other joined
/// the other one than a single run joins: another id, template and count after a restart.
#[test]
fn regression_a_restart_joins_a_tied_line_as_one_run_does() {
    let d = Dir::new();
    let log = d.dir.path().join("meta.log");
    let state = d.dir.path().join("state");
    let start = |err: &str| {
        let mut c = cmd();
        c.args(["--follow", &path_str(&log), "--state-dir", &path_str(&state), "-c", &d.catalog()]);
        c.args(["--unknown", "warn", "--format", "json", "--poll-interval", "50ms", "--checkpoint-interval", "10ms"]);
        c.stdout(Stdio::piped()).stderr(std::fs::File::create(d.dir.path().join(err)).unwrap());
        c.spawn().unwrap()
    };
    let before: String = ["zorp quux blat frob", "zorp quux wibble wobble", "zorp quux blat frob"]
        .iter()
        .enumerate()
        .map(|(i, m)| error(i as u32, m) + "\n")
        .collect();
    let after = error(3, "zorp quux blat wobble") + "\n";
    let whole = d.events(&["--unknown", "warn", "--format", "json"], &(before.clone() + &after));
    let one_run = &whole[3]["unknown"];
    assert_eq!(one_run["template"], "zorp quux blat <*>", "{whole:?}");
    std::fs::write(&log, &before).unwrap();
    let mut a = start("stderr1.log");
    let rx = lines_of(&mut a);
    assert_eq!(take(&rx, 3).len(), 3);
    let ok = std::process::Command::new("kill").args(["-TERM", &a.id().to_string()]).status().unwrap();
    assert!(ok.success());
    assert!(common::wait_timeout(&mut a, PATIENCE).is_some());
    std::fs::OpenOptions::new().append(true).open(&log).unwrap().write_all(after.as_bytes()).unwrap();
    let mut b = start("stderr2.log");
    let rx = lines_of(&mut b);
    let second = take(&rx, 1);
    let _ = b.kill();
    let _ = b.wait();
    assert_eq!(&second[0]["unknown"], one_run, "{second:?}");
}

/// With only the binary, drafts could not be added to the embedded catalog: `-c drafts.jsonl`
/// replaced it, and every wrapper it knows came back as an unknown error (found by a reader
/// growing a catalog from lines pasted in issue threads). `@embedded` names it.
#[test]
fn regression_drafts_are_read_on_top_of_the_embedded_catalog() {
    let d = Dir::new();
    // An embedded record's wrapper (`Kafka error: {0}`) over an unknown cause, and a line no
    // record knows.
    let input = [
        warn(1, "widget 7 frobnication stalled for table t_orders"),
        warn(2, "widget 9 frobnication stalled for table t_items"),
        error(3, "sink 4 failed error=Kafka error: Local: Timed out"),
    ]
    .map(|l| l + "\n")
    .concat();
    let drafts = d.dir.path().join("drafts.jsonl");
    let out = run(&["discover", "--format", "catalog", "-"], input.as_bytes());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(&drafts, &out.stdout).unwrap();
    let draft_ids: Vec<String> =
        events(&out.stdout).iter().map(|r| r["record"]["id"].as_str().unwrap().to_owned()).collect();
    assert!(!draft_ids.is_empty());
    let check = run(&["check", "-c", "@embedded", "-c", &path_str(&drafts)], b"");
    let report = String::from_utf8_lossy(&check.stdout).into_owned() + &String::from_utf8_lossy(&check.stderr);
    assert!(check.status.success() && report.contains(" 0 error(s)"), "{report}");
    let read: usize = report
        .split(" record(s) read")
        .next()
        .and_then(|h| h.rsplit(|c: char| !c.is_ascii_digit()).next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(read > 4000, "the embedded records and the drafts: {report}");
    let evs = events(
        &run(
            &["-c", "@embedded", "-c", &path_str(&drafts), "--unknown", "warn", "--format", "json", "-"],
            input.as_bytes(),
        )
        .stdout,
    );
    assert_eq!(evs.len(), 3, "{evs:?}");
    for e in &evs[..2] {
        assert!(draft_ids.iter().any(|id| e["match"]["id"] == id.as_str()), "a draft explains it: {e}");
        assert!(e.get("unknown").is_none(), "{e}");
    }
    // The embedded wrapper still explains its words; its cause is the draft's.
    let kafka = &evs[2];
    let ids: Vec<&str> = std::iter::once(&kafka["match"])
        .chain(kafka["also_matched"].as_array().unwrap())
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"69f3a6bb6c3f750c"), "the embedded `Kafka error: {{0}}`: {kafka}");
    // In a config file's `catalog` list too, where other paths are read beside the config
    // (found by a second reader: `@embedded` was too, and the daemon did not start).
    let conf_dir = d.dir.path().join("etc");
    std::fs::create_dir(&conf_dir).unwrap();
    std::fs::copy(&drafts, conf_dir.join("drafts.jsonl")).unwrap();
    std::fs::write(conf_dir.join("annotail.toml"), "catalog = [\"@embedded\", \"drafts.jsonl\"]\n").unwrap();
    let conf = path_str(&conf_dir.join("annotail.toml"));
    let evs = events(&run(&["--config", &conf, "--unknown", "warn", "--format", "json", "-"], input.as_bytes()).stdout);
    assert_eq!(evs.len(), 3, "{evs:?}");
    assert!(
        evs[2]["also_matched"]
            .as_array()
            .unwrap()
            .iter()
            .chain([&evs[2]["match"]])
            .any(|m| m["id"] == "69f3a6bb6c3f750c"),
        "{:?}",
        evs[2]
    );
    // A file of that name is read as a file when named by a path.
    let file = d.dir.path().join("@embedded");
    std::fs::copy(&drafts, &file).unwrap();
    let evs =
        events(&run(&["-c", &path_str(&file), "--unknown", "warn", "--format", "json", "-"], input.as_bytes()).stdout);
    assert!(evs[..2].iter().all(|e| draft_ids.iter().any(|id| e["match"]["id"] == id.as_str())), "{evs:?}");
    assert!(
        !evs[2]["match"].is_null() && evs[2]["match"]["id"] != "69f3a6bb6c3f750c",
        "only the drafts are read: {:?}",
        evs[2]
    );
}

#[test]
fn drafts_pass_check_and_match_the_lines_they_came_from() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..20 {
        input.push_str(&format!("{}\n", error(i, &format!("sink writer {i} crashed: broken pipe on 10.0.0.{i}:4566"))));
        input.push_str(&format!("{}\n", warn(i, &format!("Failed to complete epoch {i}: object store timeout after {i}s"))));
        input.push_str(&format!("{}\n", warn(i, &format!("table \"t{i}\" has {{ id: {i}, name: \"x y\" }} stale"))));
        input.push_str(&format!("{}\n", info(i, "all good")));
    }
    let file = d.write("in.log", &input);
    // Text and JSON reports.
    let out = run(&["discover", "-c", &d.catalog(), &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("60 unknown event(s) in 3 cluster(s)\n"), "{text}");
    assert!(text.contains("20×  cluster "), "{text}");
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", "-"], input.as_bytes());
    let reports = events(&out.stdout);
    assert_eq!(reports.len(), 3);
    let r = reports.iter().find(|r| r["template"] == "object store timeout after <*>").unwrap();
    assert_eq!(r["count"], 20);
    assert_eq!(r["levels"], serde_json::json!(["WARN"]));
    assert_eq!(r["targets"], serde_json::json!(["risingwave_meta::barrier"]));
    assert_eq!(r["first"]["line"], 2);
    assert_eq!(r["last"]["line"], 78);
    assert_eq!(r["examples"].as_array().unwrap().len(), 3);
    // Drafts: accepted by check, and they explain the lines once added.
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    let drafts = String::from_utf8(out.stdout).unwrap();
    let recs = events(drafts.as_bytes());
    assert_eq!(recs.len(), 3);
    for r in &recs {
        assert_eq!(r["record"]["id"].as_str().unwrap().len(), 16);
        assert!(r["record"]["tags"].as_array().unwrap().contains(&"draft".into()));
        assert!(r["discovered"]["count"].as_u64().unwrap() == 20);
    }
    let sev: Vec<&str> = recs.iter().map(|r| r["record"]["severity"].as_str().unwrap()).collect();
    assert!(sev.contains(&"error") && sev.contains(&"warning"), "{sev:?}");
    let drafts_file = d.write("drafts.jsonl", &drafts);
    let out = run(&["check", "-c", &d.catalog(), "-c", &drafts_file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 error(s), 0 warning(s)"));
    let evs = d.events(&["-c", &drafts_file, "--unknown", "warn", "--format", "json", &file], "");
    assert_eq!(evs.len(), 60);
    let draft_ids: Vec<&str> = recs.iter().map(|r| r["record"]["id"].as_str().unwrap()).collect();
    for e in &evs {
        // A draft is the first link of its lines' chains; the cause chained after it
        // (`sink writer 3 crashed: broken pipe on …`) is now the known error's unknown cause.
        if let Some(u) = unknown(e) {
            assert!(!draft_ids.contains(&u.0), "still unknown: {e}");
            assert_eq!(u.1, "broken pipe on <*>:<*>", "{e}");
        }
        let ids: Vec<&str> = std::iter::once(&e["match"])
            .chain(e["also_matched"].as_array().unwrap())
            .map(|m| m["id"].as_str().unwrap())
            .collect();
        assert!(ids.iter().any(|i| draft_ids.contains(i)), "no draft matched {e}");
    }
    // The cluster id of a line is the id of the draft made from its cluster.
    let before = d.events(&["--unknown", "warn", "--format", "json", &file], "");
    let e = at(&before, 1);
    assert!(draft_ids.contains(&unknown(e).unwrap().0));
}

/// A template joins its tokens with one blank; a draft's pattern made from it missed the lines
/// it came from when they had two blanks or a tab between constant words (PostgreSQL's
/// `HINT:  Perhaps …`). The draft now has the blanks its examples had.
#[test]
fn regression_a_draft_matches_lines_with_two_blanks_or_a_tab_between_its_words() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..6 {
        input.push_str(&error(
            i,
            &format!("HINT:  Perhaps you meant to reference the column \"t{i}.a\" or the table  s{i}   \tnow."),
        ));
        input.push('\n');
        input.push_str(&warn(i, &format!("replica lag\ton node {i} above limit")));
        input.push('\n');
    }
    let file = d.write("in.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let drafts = String::from_utf8(out.stdout).unwrap();
    let recs = events(drafts.as_bytes());
    assert_eq!(recs.len(), 2, "{drafts}");
    let hint = recs.iter().find(|r| r["discovered"]["template"].as_str().unwrap().starts_with("HINT:")).unwrap();
    assert_eq!(
        hint["record"]["errorMessage"],
        "HINT:  Perhaps you meant to reference the column {} or the table {}\tnow."
    );
    assert_eq!(
        hint["discovered"]["template"],
        "HINT: Perhaps you meant to reference the column <*> or the table <*> now."
    );
    let drafts_file = d.write("drafts.jsonl", &drafts);
    let out = run(&["check", "-c", &d.catalog(), "-c", &drafts_file], b"");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("0 error(s), 0 warning(s)"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let draft_ids: Vec<&str> = recs.iter().map(|r| r["record"]["id"].as_str().unwrap()).collect();
    let evs = d.events(&["-c", &drafts_file, "--unknown", "warn", "--format", "json", &file], "");
    assert_eq!(evs.len(), 12);
    for e in &evs {
        assert!(draft_ids.contains(&e["match"]["id"].as_str().unwrap_or("none")), "no draft matched {e}");
        assert!(unknown(e).is_none(), "still unknown: {e}");
    }
}

/// A third-party root cause is logged from dozens of modules: the text report listed every
/// target on one line, longer than a screen, and a draft's tags were the first five by name.
/// Now the busiest come first, with their events, and the rest are counted.
#[test]
fn discover_names_the_busiest_targets_first() {
    let d = Dir::new();
    let mut input = String::new();
    // Target `risingwave_meta::m<k>` logs the error k + 1 times (m6 the most).
    let mut sec = 0;
    for k in 0..7u32 {
        for _ in 0..=k {
            sec += 1;
            input.push_str(&rw_line(sec, "WARN", &format!("risingwave_meta::m{k}"), "object store quota exceeded"));
            input.push('\n');
        }
    }
    let file = d.write("in.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let want = "targets: risingwave_meta::m6 (7), risingwave_meta::m5 (6), risingwave_meta::m4 (5), \
                risingwave_meta::m3 (4), risingwave_meta::m2 (3) and 2 more\n";
    assert!(text.contains(want), "{text}");
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", &file], b"");
    let reports = events(&out.stdout);
    let names: Vec<String> = (0..7).rev().map(|k| format!("risingwave_meta::m{k}")).collect();
    assert_eq!(reports[0]["targets"], serde_json::json!(names), "every target, the busiest first");
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    let recs = events(&out.stdout);
    let mut tags = vec!["draft".to_owned(), "discovered".to_owned()];
    tags.extend(names[..5].iter().cloned());
    assert_eq!(recs[0]["record"]["tags"], serde_json::json!(tags));
}

/// The bug (an incident responder's reading): with several inputs, `discover`'s first and last
/// seen followed reading order: a second pod's log, hours earlier, gave the cluster a last seen
/// before its first. They go by the events' own times now; in reading order among lines
/// without one.
#[test]
fn regression_discover_first_and_last_seen_go_by_time_across_inputs() {
    let d = Dir::new();
    let line = |h: u32, s: u32, shard: u32| {
        format!("2026-03-02T{h:02}:00:{s:02}.000000000Z  WARN risingwave_meta::x: quux lease for shard {shard} lost\n")
    };
    let a = d.write("meta-0.log", &(line(10, 5, 1) + &line(10, 9, 2) + &line(10, 7, 3)));
    let b = d.write("meta-1.log", &(line(8, 1, 4) + &line(8, 2, 5)));
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", &a, &b], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let reports = events(&out.stdout);
    assert_eq!(reports.len(), 1, "{reports:?}");
    let r = &reports[0];
    assert_eq!((r["first"]["path"].as_str(), r["first"]["line"].as_u64()), (Some(b.as_str()), Some(1)), "{r}");
    assert_eq!(r["first"]["timestamp"], "2026-03-02T08:00:01.000000000Z");
    assert_eq!((r["last"]["path"].as_str(), r["last"]["line"].as_u64()), (Some(a.as_str()), Some(2)), "{r}");
    assert_eq!(r["count"], 5);
}

/// `discover`'s example lines kept the colour codes of a line copied from a terminal: the text
/// report wrote them to the terminal as its own, and drafts carried them.
#[test]
fn regression_discover_examples_are_shown_without_colour_codes() {
    let d = Dir::new();
    let plain = warn(1, "object store quota exceeded on bucket 7");
    let coloured = "\x1b[2m2026-03-02T08:00:01.123456789Z\x1b[0m \x1b[33m WARN\x1b[0m \x1b[2mrisingwave_meta::barrier\x1b[0m\x1b[2m:\x1b[0m object store quota exceeded on bucket 7";
    let file = d.write("in.log", &format!("{coloured}\n"));
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reports = events(&out.stdout);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0]["examples"], serde_json::json!([plain]));
    let out = run(&["discover", "-c", &d.catalog(), &file], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("| {plain}\n")) && !text.contains('\x1b'), "{text:?}");
}

/// Every panic no record knew was one cluster (`thread <*> (<*>) panicked at <*>:`), its draft
/// matched every panic, at severity `info` (a panic has no level), and its first and last seen
/// were the time of the run.
#[test]
fn regression_panics_are_clustered_by_where_they_happened() {
    let d = Dir::new();
    let panic = |name: &str, file: &str, line: u32| {
        format!("thread '{name}' (34) panicked at {file}:{line}:9:\ncalled `Option::unwrap()` on a `None` value\n")
    };
    let mut input = String::new();
    for (i, (file, line)) in [
        ("src/meta/src/barrier/worker.rs", 862),
        ("src/connector/src/sink/kinesis.rs", 120),
        ("src/meta/src/barrier/worker.rs", 870),
    ]
    .into_iter()
    .enumerate()
    {
        input.push_str(&format!("{}\n", info(i as u32, "all good")));
        input.push_str(&panic("rw-main", file, line));
    }
    let file = d.write("in.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reports = events(&out.stdout);
    let templates: Vec<&str> = reports.iter().map(|r| r["template"].as_str().unwrap()).collect();
    assert_eq!(
        templates,
        [
            "thread <*> (<*>) panicked at src/meta/src/barrier/worker.rs:<*>:<*>",
            "thread <*> (<*>) panicked at src/connector/src/sink/kinesis.rs:<*>:<*>"
        ]
    );
    assert_eq!(reports[0]["count"], 2);
    assert_eq!(reports[0]["levels"], serde_json::json!(["PANIC"]));
    assert_eq!(reports[0]["first"], serde_json::json!({"path": file, "line": 2}), "no time of its own: none reported");
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    let drafts = String::from_utf8(out.stdout).unwrap();
    let recs = events(drafts.as_bytes());
    assert!(recs.iter().all(|r| r["record"]["severity"] == "error"), "{recs:?}");
    // Added back, each draft explains the panics of its own place only.
    let drafts_file = d.write("drafts.jsonl", &drafts);
    let evs = d.events(&["-c", &drafts_file, "--format", "json"], &input);
    let by_line: Vec<(u64, &str)> =
        evs.iter().map(|e| (e["source"]["line"].as_u64().unwrap(), e["match"]["id"].as_str().unwrap())).collect();
    let ids: Vec<&str> = recs.iter().map(|r| r["record"]["id"].as_str().unwrap()).collect();
    assert_eq!(by_line, [(2, ids[0]), (5, ids[1]), (8, ids[0])]);
}

/// A match may run past the region it starts in (from the message into the fields after it, or
/// over lines): the unexplained part of the region was then sliced with its start past its end,
/// and `--unknown` panicked on the example log with the embedded catalog.
#[test]
fn regression_a_match_running_past_the_message_leaves_a_valid_unknown_part() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["examples/meta.log", "tests/data/real-shapes.log"] {
        let path = path_str(&root.join(file));
        for levels in ["warn", "any"] {
            let out = run(&["--unknown", levels, "--format", "json", &path], b"");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success() && !err.contains("panicked"), "{file} --unknown {levels}: {err}");
            assert!(events(&out.stdout).iter().any(|e| e.get("unknown").is_some()), "{file}: nothing unknown");
        }
    }
}

/// A report of an error whose text already holds its source lists that source again under
/// `Caused by:`. The repeat of a known error was clustered under the known error's own text, and
/// its draft, added back, never took the event from unknown: each round of `discover` drafted
/// it again (`-2`, `-3`, ...). Now the repeat is the known error, and a cause after it is what is
/// clustered.
#[test]
fn regression_a_report_repeating_a_known_error_is_not_unknown() {
    let d = Dir::new();
    let input = format!(
        "{}\n\nCaused by:\n    meta leader lease lost\n{}\n\nCaused by these errors (recent errors listed first):\n  1: meta leader lease lost\n  2: frobnicator exploded on node 7\n",
        warn(1, "election round ended: meta leader lease lost"),
        warn(2, "election round ended: meta leader lease lost"),
    );
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    assert_eq!(evs.len(), 2, "{evs:#?}");
    assert!(evs.iter().all(|e| e["match"]["id"] == "c-lease"), "{evs:#?}");
    assert_eq!(unknown(&evs[0]), None, "{evs:#?}");
    assert_eq!(unknown(&evs[1]).map(|u| u.1), Some("frobnicator exploded on node <*>"), "{evs:#?}");
    // A second round of `discover` over its own drafts drafts nothing new.
    let log = d.write("report.log", &input);
    let first = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &log], b"");
    assert!(first.status.success(), "{}", stderr_of(&first));
    let drafts = d.write("drafts.jsonl", &String::from_utf8(first.stdout).unwrap());
    let again = run(&["discover", "-c", &d.catalog(), "-c", &drafts, "--format", "catalog", &log], b"");
    assert!(again.status.success(), "{}", stderr_of(&again));
    assert_eq!(events(&again.stdout).len(), 0, "{}", String::from_utf8_lossy(&again.stdout));
    // A repeat of a known error of two links is skipped whole (its second link was clustered,
    // and the cause after it went unseen), and a cause after a skipped repeat reads as it does
    // alone (`-> peer said hello` was cut to `> peer said hello`): found by a second reader.
    let line = |sec: u32, msg: &str| rw_line(sec, "ERROR", "risingwave_meta::x", msg);
    let input = format!(
        "{}\n\nCaused by:\n    0: Failed to decode prost: field not found `ledger_sink`\n    1: connection reset\n{}\n\nCaused by:\n    no vnodes to assign\n    -> peer said hello\n{}\n\nCaused by:\n    -> peer said hello\n",
        line(3, "failed: Failed to decode prost: field not found `ledger_sink`"),
        line(4, "failed to notify cancellation result: no vnodes to assign"),
        line(5, "failed to notify cancellation result: no vnodes to assign"),
    );
    let out = run(&["-c", "@embedded", "--unknown", "warn", "--format", "json"], input.as_bytes());
    assert!(out.status.success(), "{}", stderr_of(&out));
    let evs = events(&out.stdout);
    let templates: Vec<Option<&str>> = evs.iter().map(|e| unknown(e).map(|u| u.1)).collect();
    assert_eq!(
        templates,
        [Some("connection reset"), Some("-> peer said hello"), Some("-> peer said hello")],
        "{evs:#?}"
    );
}

/// Three ways a known error's line hid the cause no record knows (found by a developer's and a
/// catalog keeper's readings): a known error printed twice in one field was clustered as its
/// own text, so its draft came back every `discover` round; the host's own words before a `: `
/// and a cause (`failed to inject barrier on worker 7: quux shard 42 unreachable`) were the
/// template, one cluster of every cause, where the same report printed over lines clustered the
/// cause; and an `error` field left empty over a report hid the report's causes.
#[test]
fn regression_a_known_error_does_not_hide_its_cause_inline_or_under_an_empty_field() {
    let d = Dir::new();
    let input = format!(
        "{}\n{}\n{}\n{}\n{}\n\nCaused by:\n    quux shard 43 unreachable\n{}\n{}\nCaused by these errors (recent errors listed first):\n  1: gizmo upstream hung up\n  2: socket 17 closed by peer\n{}\n\nCaused by:\n    gizmo upstream hung up\n",
        warn(1, "tick took long error=Insert error: failed to inject barrier: failed to inject barrier"),
        warn(
            2,
            "tick took long error=Insert error: failed to inject barrier: failed to inject barrier: gizmo upstream hung up"
        ),
        warn(3, "failed to inject barrier on worker 7: quux shard 42 unreachable"),
        warn(4, "failed to inject barrier on worker 9: gadget overheated"),
        warn(5, "failed to inject barrier on worker 8"),
        warn(6, "failed to inject barrier on worker 8 at epoch: 12345"),
        warn(7, "failed to inject barrier error="),
        warn(8, "failed to inject barrier error=\"\""),
    );
    // What reads as values of the words is no cause: the words are the unknown part (a second
    // reader found such events without a cluster, and one cluster per table); a line below an
    // empty `error=` that is no report is no cause either.
    let input = format!(
        "{input}{}\n{}\n{}\n{}\n{}\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
        warn(9, "failed to inject barrier on worker 3: Status { code: Unavailable }"),
        warn(10, "failed to inject barrier for table: orders"),
        warn(11, "failed to inject barrier at epoch: 12345, prev: 123"),
        warn(12, "failed to inject barrier on worker 4; next attempt: in 5 seconds"),
        warn(13, "failed to inject barrier error="),
    );
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    assert!(evs.iter().all(|e| e["match"]["id"] == "h-inject"), "{evs:#?}");
    let templates: Vec<Option<&str>> = evs.iter().map(|e| unknown(e).map(|u| u.1)).collect();
    assert_eq!(
        templates,
        [
            None,
            Some("gizmo upstream hung up"),
            Some("quux shard <*> unreachable"),
            Some("gadget overheated"),
            Some("quux shard <*> unreachable"),
            // A cause that is only a value: the words are the event's unknown part.
            Some("on worker <*> at epoch"),
            Some("gizmo upstream hung up"),
            Some("gizmo upstream hung up"),
            Some("on worker <*>"),
            Some("for table"),
            Some("at epoch"),
            Some("on worker <*>; next attempt"),
            None,
        ],
        "{evs:#?}"
    );
    assert_eq!(unknown(&evs[2]).map(|u| u.0), unknown(&evs[4]).map(|u| u.0), "inline and over lines: one cluster");
    // One word with an error's shape, or that says a failure, is a cause (a third reader: the
    // words were taken); a struct first is none, but a report below it has one; so does a line
    // below an empty `error=` only when it is a report's header.
    let input = format!(
        "{}\n{}\n{}\n{}\n\nCaused by:\n    gizmo upstream hung up\n{}\n  Caused by: quux shard 42 unreachable\n",
        warn(14, "failed to inject barrier on worker 3: timeout"),
        warn(15, "failed to inject barrier on worker 3: Io(Kind(BrokenPipe))"),
        warn(16, "failed to inject barrier on worker 3: pubsub_key is null"),
        warn(17, "failed to inject barrier on worker 3: Status { code: Unavailable }"),
        warn(18, "failed to inject barrier error="),
    );
    let input = format!(
        "{input}{}\n{}\n{}\n{}\n",
        warn(19, "failed to inject barrier for table: bloom"),
        // A word with a digit masks to nothing: the event lost its cluster (a fourth reader).
        warn(20, "failed to inject barrier on worker 3: V1"),
        warn(21, "failed to inject barrier on worker 3: Running"),
        warn(22, "failed to inject barrier on worker 3: connection_refused"),
    );
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    let templates: Vec<Option<&str>> = evs.iter().map(|e| unknown(e).map(|u| u.1)).collect();
    assert_eq!(
        templates,
        [
            Some("timeout"),
            Some("Io(Kind(BrokenPipe))"),
            Some("pubsub_key is null"),
            Some("gizmo upstream hung up"),
            None,
            // A name that holds a failure word (`oom`) but not as a part of it.
            Some("for table"),
            Some("on worker <*>"),
            Some("on worker <*>"),
            Some("connection_refused"),
        ],
        "{evs:#?}"
    );
    // The same record again with other values is that record's: its second link was clustered.
    let line = rw_line(
        1,
        "ERROR",
        "risingwave_meta::x",
        "failed: Failed to decode prost: field not found `events`: Failed to decode prost: field not found `bids`: connection reset",
    );
    let out = run(&["-c", "@embedded", "--unknown", "warn", "--format", "json"], format!("{line}\n").as_bytes());
    assert!(out.status.success(), "{}", stderr_of(&out));
    let evs = events(&out.stdout);
    assert_eq!(unknown(&evs[0]).map(|u| u.1), Some("connection reset"), "{evs:#?}");
    // A record with a trailing capture, again: its own links only (it was matched again, and its
    // greedy capture took the cause to the line's end: a third reader).
    let line = rw_line(
        2,
        "ERROR",
        "risingwave_meta::x",
        "tick error=Unsupported data type: expected bytea, got int4: Unsupported data type: expected bytea, got varchar: gizmo upstream hung up",
    );
    // Past the 64 repeats a first bound allowed, the cause was lost and the known error's own
    // text clustered (a fourth reader).
    let many = rw_line(
        4,
        "ERROR",
        "risingwave_meta::x",
        &format!("tick error={}gizmo upstream hung up", "Unsupported data type: expected bytea, got int4: ".repeat(70)),
    );
    let out =
        run(&["-c", "@embedded", "--unknown", "warn", "--format", "json"], format!("{line}\n{many}\n").as_bytes());
    let evs = events(&out.stdout);
    assert_eq!(unknown(&evs[0]).map(|u| u.1), Some("gizmo upstream hung up"), "{evs:#?}");
    assert_eq!(unknown(&evs[1]).map(|u| u.1), Some("gizmo upstream hung up"), "{evs:#?}");
    // A line of 43,000 repeats: bounded work (a search from each repeat took 41 s of CPU).
    let head =
        rw_line(3, "ERROR", "risingwave_meta::x", "tick error=Unsupported data type: expected bytea, got int4: ");
    let long = format!("{head}{}expected bytea, got x\n", "Unsupported data type: ".repeat(43_000));
    let log = d.write("repeats.log", &long);
    let (out, cpu) = common::run_cpu_timed(
        &["-c", "@embedded", "--unknown", "warn", "--format", "json", &log],
        std::path::Path::new("/dev/null"),
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(cpu < common::cpu_bound(5.0), "{cpu:.2} s of CPU for one 1 MB line of repeats");
}

/// A value printed with `{:#?}` after a known error (`StreamActor {`, its fields on the lines
/// below, `}`) was clustered by its first line, so each round of `discover` drafted the next
/// line of it (`StreamActor {{`, then `actor_id: {}`: found by a developer's reading). It is
/// the error's value, as the same value printed on one line is.
#[test]
fn regression_a_pretty_printed_value_after_a_known_error_is_no_unknown_error() {
    let d = Dir::new();
    let input = format!(
        "{}\n    id: 53,\n    host: \"meta-0\",\n}}\n{}\n{}\n",
        warn(1, "failed to inject barrier: WorkerNode {"),
        warn(2, "failed to inject barrier: WorkerNode { id: 53, host: \"meta-0\" }"),
        warn(3, "failed to inject barrier: gizmo stalled {"),
    );
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    let templates: Vec<Option<&str>> = evs.iter().map(|e| unknown(e).map(|u| u.1)).collect();
    // Words before an open bracket that closes nowhere are no value.
    assert_eq!(templates, [None, None, Some("gizmo stalled {")], "{evs:#?}");
}

/// `annotail -c drafts.jsonl discover x.log`: options before the subcommand made `discover` a
/// file to read (`cannot read discover`), and with `--format catalog` after it clap refused
/// `catalog` as an output format; neither said why (found by a developer's reading).
#[test]
fn regression_a_subcommand_after_options_is_refused_with_a_reason() {
    let d = Dir::new();
    let log = d.write("x.log", &format!("{}\n", warn(1, "gizmo pipeline stalled")));
    for args in [
        vec!["-c", "@embedded", "discover", log.as_str()],
        vec!["-c", "@embedded", "discover", "--format", "catalog", log.as_str()],
    ] {
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr_of(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            stderr_of(&out).contains("`discover` is a subcommand only as the first word"),
            "{args:?}: {}",
            stderr_of(&out)
        );
    }
    // After `--` it is a path, and after a subcommand a word of its own (a second reader).
    let out = run(&["-c", "@embedded", "--", "discover"], b"");
    assert!(!stderr_of(&out).contains("is a subcommand"), "{}", stderr_of(&out));
    let out = run(&["explain", "--bogus", "check"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr_of(&out).contains("is a subcommand"), "{}", stderr_of(&out));
    // Nor as an option's value, nor in a run with `--` (a third reader).
    let out = run(&["--format", "discover", &log], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr_of(&out).contains("is a subcommand"), "{}", stderr_of(&out));
    let out = run(&["-c", "discover", "--", "discover"], b"");
    assert!(!stderr_of(&out).contains("is a subcommand"), "{}", stderr_of(&out));
    // After a flag, which takes no value, it is (a fourth reader).
    let out = run(&["--all", "discover", "--format", "catalog"], b"");
    assert!(stderr_of(&out).contains("`discover` is a subcommand only"), "{}", stderr_of(&out));
    // First, it is the subcommand.
    let out = run(&["discover", "-c", "@embedded", &log], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("gizmo pipeline stalled"));
}

/// A draft's text ends its lines' first link, and its pattern ended there too: added back, it
/// matched inside longer words of other errors (`Invalid time` in `Invalid timestamp value 5`,
/// `operation timed out` in `operation timed outright`), took their events for its own, and
/// left their rests to cluster. Drafts now have word boundaries at their ends.
#[test]
fn regression_drafts_do_not_match_inside_longer_words() {
    let d = Dir::new();
    let log = d.write(
        "in.log",
        &format!("{}\n{}\n", error(1, "Invalid time: secs: 5, nanoseconds: 7"), error(2, "operation timed out")),
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &log], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let patterns: Vec<String> =
        events(text.as_bytes()).iter().map(|r| r["record"]["messagePattern"].as_str().unwrap().to_owned()).collect();
    assert_eq!(patterns, [r"\bInvalid time\b", r"\boperation timed out\b"]);
    // No boundary beside a character that is no regex word character (`²`): it never held,
    // and the draft matched none of its lines (found by a second reader).
    let sq = d.write("sq.log", &format!("{}\n{}\n", warn(5, "quota exceeded in m²"), warn(6, "quota exceeded in m²")));
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &sq], b"");
    let sq_drafts = d.write("sq.jsonl", &String::from_utf8(out.stdout).unwrap());
    assert_eq!(
        events(std::fs::read_to_string(&sq_drafts).unwrap().as_bytes())[0]["record"]["messagePattern"],
        r"\bquota exceeded in m²"
    );
    let evs = d.events(&["-c", &sq_drafts, "--unknown", "warn", "--format", "json", &sq], "");
    assert!(evs.iter().all(|e| e["match"]["id"].is_string() && e.get("unknown").is_none()), "{evs:#?}");
    let drafts = d.write("drafts.jsonl", &text);
    let other = format!(
        "{}\n{}\n",
        error(3, "Invalid timestamp value 5 for column ts"),
        error(4, "operation timed outright refused by peer 7")
    );
    let evs = d.events(&["-c", &drafts, "--unknown", "warn", "--format", "json"], &other);
    assert_eq!(evs.len(), 2, "{evs:#?}");
    assert!(evs.iter().all(|e| e["match"].is_null()), "{evs:#?}");
    let own = d.events(&["-c", &drafts, "--format", "json", &log], "");
    assert_eq!(own.len(), 2, "its own lines: {own:#?}");
}

/// A sparse read (`--unknown warn`: only the events around prefilter hits and WARN/ERROR lines
/// are framed) gives each event the matches a dense read (`--all`) gives it. A line framed for
/// its level carries only the literals whose records could match on it, as a hit frames an
/// event only then: a literal whose record's other pieces are elsewhere in the event (a line
/// below) comes with that line's own hit, and no match is lost. On the embedded catalog with the
/// example log and the real shapes, and on a WARN line with a literal of a record that matches
/// only on the `Caused by:` line below it.
#[test]
fn a_sparse_read_gives_each_event_the_matches_of_a_dense_read() {
    let d = Dir::new();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let below = d.write(
        "below.log",
        &format!(
            "{}\n{}\n{}\n",
            warn(1, "Failed to notify the frontend, giving up"),
            "Caused by:\n  Failed to notify Frontend 7: connection reset",
            info(2, "heartbeat")
        ),
    );
    let files =
        [path_str(&root.join("examples/meta.log")), path_str(&root.join("tests/data/real-shapes.log")), below.clone()];
    for file in &files {
        let catalog = if *file == below { d.catalog() } else { "@embedded".to_owned() };
        let matches = |args: &[&str]| -> Vec<(u64, Value, Value)> {
            let mut full = vec!["-c", &catalog, "--format", "json"];
            full.extend_from_slice(args);
            full.push(file);
            let out = run(&full, b"");
            assert!(out.status.success(), "{file} {args:?}: {}", stderr_of(&out));
            events(&out.stdout)
                .iter()
                .map(|e| (e["source"]["line"].as_u64().unwrap(), e["match"].clone(), e["also_matched"].clone()))
                .collect()
        };
        let dense = matches(&["--all"]);
        let sparse = matches(&["--unknown", "warn"]);
        assert!(sparse.iter().filter(|m| !m.1.is_null()).count() > 0, "{file}: no match");
        for m in &sparse {
            let d = dense.iter().find(|x| x.0 == m.0).unwrap_or_else(|| panic!("{file}: line {} not in --all", m.0));
            assert_eq!(m, d, "{file}: line {}", m.0);
        }
        // Every match a dense read finds is in the sparse read too.
        let found = |v: &[(u64, Value, Value)]| v.iter().filter(|m| !m.1.is_null()).count();
        assert_eq!(found(&sparse), found(&dense), "{file}");
    }
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &std::fs::read_to_string(&below).unwrap());
    assert_eq!(evs[0]["match"]["id"], "w-notify", "{evs:#?}");
    assert_eq!(evs[0]["source"]["lines"], 3, "{evs:#?}");
}

/// A file read by several threads clusters as one reader does: the workers leave each unknown
/// event's text to the reader, which clusters them in input order and splices the `unknown`
/// objects in. Same bytes (but `observed`) with 1 and 2 threads, on a file of several 2 MiB
/// segments whose clusters' templates grow as they go (a later line widens an earlier
/// template), with and without `--all`, at `warn` and `any`, and the same `--summary`.
#[test]
fn threads_cluster_in_input_order() {
    let d = Dir::new();
    let mut text = String::new();
    let mut i = 0u32;
    while text.len() < (7 << 20) + (1 << 19) {
        let line = match i % 7 {
            0 => warn(i, &format!("compactor {} lost its lease on node-{}", i % 13, i % 5)),
            1 => error(i, &format!("sink writer {i} failed: broken pipe")),
            2 => info(i, &format!("checkpoint {i} written in {}ms", i % 97)),
            3 => warn(i, &format!("failed to inject barrier error=region {} split stalled by {}", i % 11, ["scale", "drop", "alter"][i as usize % 3])),
            4 => error(i, &format!("Failed to complete epoch {i}: object store timeout after {}s", i % 30)),
            5 => warn(i, &format!("kind{} of fault number {}", i % 3000, i % 7000)),
            // Longer than --max-event-bytes below.
            _ if i % 490 == 6 => error(i, &format!("plan dump {i} rejected: {}", "stage scan filter project ".repeat(50))),
            _ => info(i, "heartbeat"),
        };
        text.push_str(&line);
        text.push('\n');
        i += 1;
    }
    let file = d.write("big.log", &text);
    let catalog = d.catalog();
    let strip = |out: &[u8]| -> Vec<String> {
        events(out)
            .into_iter()
            .map(|mut e| {
                let o = e.as_object_mut().unwrap();
                o.remove("observed");
                // ECS: when the event was read.
                if let Some(serde_json::Value::Object(ev)) = o.get_mut("event") {
                    ev.remove("created");
                }
                e.to_string()
            })
            .collect()
    };
    let mut truncated = 0;
    for args in [
        &["--format", "json", "--unknown", "warn"][..],
        &["--format", "json", "--unknown", "any"],
        &["--format", "json", "--unknown", "warn", "--all"],
        // Bounded once the reader has spliced the `unknown` object in.
        &["--format", "json", "--unknown", "warn", "--max-event-bytes", "1024"],
        // ECS events are completed by the reader, and bounded there.
        &["--format", "ecs", "--unknown", "warn"],
        &["--format", "ecs", "--unknown", "any", "--max-event-bytes", "1024"],
    ] {
        let run_with = |threads: &str| {
            let mut full = vec!["-c", &catalog, "--threads", threads];
            full.extend_from_slice(args);
            full.push(&file);
            let out = cmd().args(&full).output().unwrap();
            assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
            out.stdout
        };
        let (one, two) = (strip(&run_with("1")), strip(&run_with("2")));
        assert!(one.len() > 50_000, "{args:?}: {} events", one.len());
        let clustered = one.iter().filter(|e| e.contains("\"unknown\":")).count();
        assert!(clustered > 30_000, "{args:?}: {clustered} unknown events");
        assert_eq!(one.len(), two.len(), "{args:?}");
        if let Some(k) = (0..one.len()).find(|&k| one[k] != two[k]) {
            panic!("{args:?}: event {k} differs:\n1 thread:  {}\n2 threads: {}", one[k], two[k]);
        }
        truncated += one.iter().filter(|e| e.contains("\"truncated\":")).count();
    }
    assert!(truncated > 50, "--max-event-bytes cut some events: {truncated}");
    let summary = |threads: &str| {
        let out = cmd()
            .args(["-c", &catalog, "--format", "json", "--unknown", "warn", "--summary", "--threads", threads, &file])
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(err.contains("lost its lease"), "the summary lists the unknown clusters: {err}");
        // `events` counts the events framed (annotail_events_total), which depends on where
        // the file is cut into segments, not on what is written.
        err.lines()
            .filter(|l| !l.contains(" s ") && !l.contains("MB/s") && !l.trim_start().starts_with("events "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(summary("1"), summary("2"));
}

/// Other programs' lines that start with their date and time were plain text: no level, so
/// `--unknown warn` took none of a Python or log4j log's warnings, no `@timestamp`, and with
/// `any` templates that began with the time's digits (`<*> <*>:<*>:<*>,<*> WARN [main] …`).
#[test]
fn regression_other_programs_levels_and_times_are_read() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..400u32 {
        let t = format!("2024-01-01 12:{:02}:{:02},{:03}", i / 60 % 60, i % 60, i);
        let line = match i % 8 {
            0 => format!("{t} - app.db - WARNING - pool exhausted after {i}s"),
            1 => format!("{t} WARN  [main] c.e.Store - slow query {i} ms"),
            2 => format!("{t} - app.db - CRITICAL - database {i} gone"),
            3 => format!("{t} - app.db - INFO - retried, no ERROR left {i}"),
            4 => format!("{t} [main] [ERR] c.e.Cache - evicted {i} entries"),
            5 => format!("{t} - app.db - FATAL - shutting down {i}"),
            _ => format!("{t} INFO  [main] c.e.Store - served request {i}"),
        };
        input.push_str(&line);
        input.push('\n');
    }
    let file = d.write("app.log", &input);
    let kinds = |evs: &[Value]| -> std::collections::BTreeMap<String, (String, usize)> {
        let mut m = std::collections::BTreeMap::new();
        for e in evs.iter().filter(|e| e.get("unknown").is_some()) {
            let k = m.entry(e["unknown"]["template"].as_str().unwrap().to_owned()).or_insert((String::new(), 0));
            k.0 = e["log"]["level"].as_str().unwrap_or("-").to_owned();
            k.1 += 1;
        }
        m
    };
    let warn = d.events(&["--unknown", "warn", "--format", "json", &file], "");
    let want: std::collections::BTreeMap<String, (String, usize)> = [
        ("pool exhausted after <*>", "WARNING"),
        // The thread and logger before ` - ` are `log.thread` and `log.target`.
        ("slow query <*> ms", "WARN"),
        ("database <*> gone", "CRITICAL"),
        ("evicted <*> entries", "ERR"),
        // A stream of such lines has every line looked at: a level word without an `R` too.
        ("shutting down <*>", "FATAL"),
    ]
    .iter()
    .map(|(t, l)| (t.to_string(), (l.to_string(), 50)))
    .collect();
    assert_eq!(kinds(&warn), want);
    assert_eq!(warn.len(), 250, "nothing else is written");
    let e = warn.iter().find(|e| e["source"]["line"] == 1).unwrap();
    assert_eq!(e["@timestamp"], "2024-01-01T12:00:00.000");
    assert_eq!(e["message"], "2024-01-01 12:00:00,000 - app.db - WARNING - pool exhausted after 0s");
    // The same clusters when every event is framed and written.
    let all = d.events(&["--unknown", "warn", "--all", "--format", "json", &file], "");
    assert_eq!(all.len(), 400);
    assert_eq!(kinds(&all), want);
    // Among a RisingWave log's lines, those lines are found by the `R`s of their level words:
    // `FATAL` is not clustered there (README, "Unknown errors": which lines are looked at).
    let tick = |i: usize| info(i as u32 % 60, "tick");
    let rw: String = input.lines().enumerate().map(|(i, l)| format!("{}\n{l}\n{}\n", tick(i), tick(i))).collect();
    let rw_file = d.write("rw.log", &rw);
    let rw = d.events(&["--unknown", "warn", "--format", "json", &rw_file], "");
    let mut without_fatal = want.clone();
    without_fatal.remove("shutting down <*>");
    assert_eq!(kinds(&rw), without_fatal);
    // The same with every event framed: the annotator reads a level as framing did (a second
    // reading found `--all` clustering the `FATAL` lines the default run skipped).
    let rw_all = d.events(&["--unknown", "warn", "--all", "--format", "json", &rw_file], "");
    assert_eq!(kinds(&rw_all), without_fatal);
    // And behind `kubectl logs --timestamps`, each line with its own time.
    let behind: String = input.lines().map(|l| format!("2026-03-02T08:00:30.868199738Z {l}\n")).collect();
    let behind = d.events(&["--unknown", "warn", "--format", "json", &d.write("behind.log", &behind)], "");
    assert_eq!(kinds(&behind), want);
    assert_eq!(behind[0]["@timestamp"], "2024-01-01T12:00:00.000");
    let error = d.events(&["--unknown", "error", "--format", "json", &file], "");
    assert_eq!(
        kinds(&error).keys().collect::<Vec<_>>(),
        ["database <*> gone", "evicted <*> entries", "shutting down <*>"]
    );
    let any = d.events(&["--unknown", "any", "--format", "json", &file], "");
    assert_eq!(kinds(&any)["shutting down <*>"], ("FATAL".to_owned(), 50));
    assert_eq!(kinds(&any)["served request <*>"], ("INFO".to_owned(), 100));
}

/// A Kubernetes node's other containers log as Go programs do: klog (`E1205 07:20:22.123456 1
/// reflector.go:138] …`) and logfmt (`time=… level=error msg="…" k=v`). Their WARN and ERROR
/// lines were never clustered at `--unknown warn` (no level annotail read), and at `any` a
/// logfmt line clustered as its keys (`time=<*> level=error msg=<*> pod=<*> err=<*>`): every
/// message of a program with the same keys was one cluster.
#[test]
fn regression_go_programs_lines_are_read_and_clustered_by_their_message() {
    let d = Dir::new();
    // A banner first: the level look finds the layout a few lines in.
    let mut input = String::from("Starting controller manager\nversion v1.2.3\n");
    for i in 0..400u32 {
        let (m, s) = (i / 60 % 60, i % 60);
        let line = match i % 8 {
            0 => format!(
                r#"time="2026-03-02T08:{m:02}:{s:02}Z" level=error msg="failed to sync pod" pod=meta-{i} err="context deadline exceeded \"x\"""#
            ),
            1 => format!(
                r#"time="2026-03-02T08:{m:02}:{s:02}Z" level=error msg="failed to delete volume" pod=meta-{i} err="not found""#
            ),
            2 => format!("level=warn ts=2026-03-02T08:{m:02}:{s:02}.123Z caller=main.go:{i} msg=\"slow query {i} ms\""),
            3 => format!(
                "E1205 07:{m:02}:{s:02}.123456       1 reflector.go:138] failed to list *v1.Pod: dial tcp 10.0.0.{i}:443: connect: connection refused"
            ),
            4 => format!(
                r#"W1205 07:{m:02}:{s:02}.123456       1 controller.go:{i}] "Reconcile slow" object="default/rw-{i}" duration="3s""#
            ),
            5 => format!("I1205 07:{m:02}:{s:02}.123456       1 server.go:10] ERROR text in an info line {i}"),
            _ => format!(r#"time="2026-03-02T08:{m:02}:{s:02}Z" level=info msg="reconciled" object=rw-{i}"#),
        };
        input.push_str(&line);
        input.push('\n');
    }
    let file = d.write("go.log", &input);
    type Kinds = std::collections::BTreeMap<String, (String, String, usize)>;
    let kinds = |evs: &[Value]| -> Kinds {
        let mut m = Kinds::new();
        for e in evs.iter().filter(|e| e.get("unknown").is_some()) {
            let k = m.entry(e["unknown"]["template"].as_str().unwrap().to_owned()).or_default();
            k.0 = e["log"]["format"].as_str().unwrap().to_owned();
            k.1 = e["log"]["level"].as_str().unwrap_or("-").to_owned();
            k.2 += 1;
        }
        m
    };
    let want: Kinds = [
        ("failed to sync pod", "logfmt", "error"),
        ("failed to delete volume", "logfmt", "error"),
        ("slow query <*> ms", "logfmt", "warn"),
        ("failed to list <*>: dial tcp <*>:<*>: connect: connection refused", "klog", "error"),
        ("Reconcile slow", "klog", "warning"),
    ]
    .iter()
    .map(|(t, f, l)| (t.to_string(), (f.to_string(), l.to_string(), 50)))
    .collect();
    let warn = d.events(&["--unknown", "warn", "--format", "json", &file], "");
    assert_eq!(kinds(&warn), want);
    assert_eq!(warn.len(), 250, "nothing else is written");
    // A logfmt line: its time, its pairs (unquoted) as fields, the whole line as the message.
    let e = at(&warn, 3);
    assert_eq!(e["@timestamp"], "2026-03-02T08:00:00Z");
    assert_eq!(e["log"]["fields"], serde_json::json!({"pod": "meta-0", "err": "context deadline exceeded \"x\""}));
    assert!(e["message"].as_str().unwrap().starts_with("time="));
    // A klog line: the year it leaves out is the observed one's, or the one before.
    let e = at(&warn, 6);
    let (ts, observed) = (e["@timestamp"].as_str().unwrap(), e["observed"].as_str().unwrap());
    assert_eq!(&ts[4..], "-12-05T07:00:03.123456", "{ts}");
    let year = |t: &str| t[..4].parse::<i32>().unwrap();
    assert!([year(observed), year(observed) - 1].contains(&year(ts)), "{ts} observed {observed}");
    assert_eq!(e["log"]["thread"], "1");
    assert_eq!(e["log"]["fields"]["caller"], "reflector.go:138");
    // A structured klog line's pairs.
    assert_eq!(at(&warn, 7)["log"]["fields"]["object"], "default/rw-4");
    // The same read from standard input, with every event framed, and behind `kubectl logs
    // --timestamps`.
    assert_eq!(kinds(&d.events(&["--unknown", "warn", "--format", "json"], &input)), want);
    let all = d.events(&["--unknown", "warn", "--all", "--format", "json", &file], "");
    assert_eq!((all.len(), kinds(&all)), (402, want.clone()));
    let behind: String = input.lines().map(|l| format!("2026-03-02T08:00:30.868199738Z {l}\n")).collect();
    assert_eq!(kinds(&d.events(&["--unknown", "warn", "--format", "json", &d.write("behind.log", &behind)], "")), want);
    let error = d.events(&["--unknown", "error", "--format", "json", &file], "");
    let errors: Vec<String> = kinds(&error).into_keys().collect();
    assert_eq!(
        errors,
        [
            "failed to delete volume",
            "failed to list <*>: dial tcp <*>:<*>: connect: connection refused",
            "failed to sync pod"
        ]
    );
    // `any`: the info lines by their message too.
    let any = kinds(&d.events(&["--unknown", "any", "--format", "json", &file], ""));
    assert_eq!(any["reconciled"], ("logfmt".to_owned(), "info".to_owned(), 100));
    assert_eq!(any["ERROR text in an info line <*>"], ("klog".to_owned(), "info".to_owned(), 50));
}

/// A second reading of the Go programs' lines found them missed at `--unknown warn` wherever
/// the level look did not see them: in a node's container log (CRI and Docker records), behind
/// stern's and docker compose's prefixes, after a banner of more than a few lines, and after a
/// stretch of RisingWave's lines in the same block. A plain klog message that starts with a
/// quoted name was read as a structured one (its template the name alone), and a klog date
/// that cannot be was written as `@timestamp`.
#[test]
fn regression_go_programs_lines_are_found_behind_prefixes_banners_and_other_lines() {
    let d = Dir::new();
    let klog: Vec<String> = (0..30u32)
        .map(|i| {
            let s = i % 60;
            match i % 3 {
                0 => format!("E1205 07:20:{s:02}.123456       1 reflector.go:138] failed to list pods {i}: refused"),
                1 => format!("W1205 07:20:{s:02}.123456       1 warnings.go:70] deprecated API {i}"),
                _ => format!("I1205 07:20:{s:02}.123456       1 server.go:10] served {i}"),
            }
        })
        .collect();
    let count = |evs: &[Value]| evs.iter().filter(|e| e.get("unknown").is_some()).count();
    let wrapped = |f: &dyn Fn(&str) -> String| -> String { klog.iter().map(|l| format!("{}\n", f(l))).collect() };
    let docker = |l: &str| {
        serde_json::json!({"log": format!("{l}\n"), "stream": "stderr", "time": "2026-12-05T07:20:22Z"}).to_string()
    };
    let banner: String = (0..12).map(|i| format!("banner line {i}\n")).collect();
    let rw: String = (0..20).map(|i| format!("{}\n", info(i, "tick"))).collect();
    let cases: Vec<(&str, String)> = vec![
        ("cri", wrapped(&|l| format!("2026-12-05T07:20:22.123456789Z stderr F {l}"))),
        ("docker", wrapped(&docker)),
        ("stern", wrapped(&|l| format!("op-0 manager {l}"))),
        ("compose", wrapped(&|l| format!("operator-1  | {l}"))),
        ("banner", banner + &wrapped(&|l| l.to_owned())),
        ("after RisingWave lines", rw + &wrapped(&|l| l.to_owned())),
    ];
    for (name, input) in &cases {
        let evs = d.events(&["--unknown", "warn", "--format", "json", &d.write("k.log", input)], "");
        assert_eq!(count(&evs), 20, "{name}: {evs:?}");
        let evs = d.events(&["--unknown", "warn", "--format", "json"], input);
        assert_eq!(count(&evs), 20, "{name} on standard input");
    }
    let evs = d.events(
        &["--unknown", "warn", "--format", "json"],
        "E1205 07:20:22.123456 1 controller.go:12] \"kube-system/coredns-abc\" failed to sync: refused\n\
         E1399 07:20:22.123456 1 controller.go:12] no such day\n",
    );
    assert_eq!(unknown(&evs[0]).map(|u| u.1), Some("<*> failed to sync: refused"));
    assert_eq!(evs.len(), 1, "a line with no such date is no klog line: {evs:?}");
    // A message that says too little: the error pair is clustered, as a RisingWave line's
    // `error` field is (its first link). Such events were not written at all.
    let evs = d.events(
        &["--unknown", "warn", "--format", "json"],
        "level=error msg=\"\" err=\"disk full: os error 28\"\n\
         E1205 07:20:22.123456 1 x.go:1] \"\" err=\"lease lost: timeout\"\n",
    );
    let templates: Vec<&str> = evs.iter().filter_map(unknown).map(|u| u.1).collect();
    assert_eq!(templates, ["disk full", "lease lost"]);
}

/// Linux's `sshd` lines carry their values in `key=value` words (`ruser= rhost=<host>  user=root`).
/// When the clusterer had made such a word `<*>` (the lines' hosts and users differ), the draft's
/// `(.+?)` stood for `rhost=…` and the matcher refused to let it run across that field: on
/// loghub-2k's Linux set 490 lines did not match their own cluster's draft. A draft names the key
/// its examples' values all start with.
#[test]
fn regression_a_draft_names_the_key_its_variables_values_start_with() {
    let d = Dir::new();
    let hosts = [
        "220-135-151-1.hinet-ip.hinet.net  user=root",
        "211.46.224.253  user=guest",
        "217.60.212.66  user=guest",
        "n219076184117.netvigator.com  user=root",
        "209.152.168.249  user=guest",
        "61.220.159.99  user=root",
    ];
    let mut input = String::new();
    for h in hosts.iter().cycle().take(18) {
        input.push_str(&format!("authentication failure; logname= uid=0 euid=0 tty=NODEVssh ruser= rhost={h}\n"));
    }
    let file = d.write("in.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), "--unknown", "any", "--format", "catalog", &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let drafts = String::from_utf8(out.stdout).unwrap();
    let recs = events(drafts.as_bytes());
    assert_eq!(recs.len(), 1, "{drafts}");
    let template = recs[0]["discovered"]["template"].as_str().unwrap();
    // `user=root` and `user=guest` are one field with two values: the template keeps the key
    // (it made `<*>` of them before, and the draft took the key from the examples: that path
    // is `draft_forms`' unit tests' now).
    assert!(template.ends_with("rhost=<*> user=<*>"), "{template}");
    assert_eq!(
        recs[0]["record"]["messagePattern"],
        r"\bauthentication failure; logname= uid=(.+?) euid=(.+?) tty=NODEVssh ruser= rhost=(.+?) user=(.+?)"
    );
    let drafts_file = d.write("drafts.jsonl", &drafts);
    let evs = d.events(&["-c", &drafts_file, "--unknown", "any", "--format", "json", &file], "");
    assert_eq!(evs.len(), 18);
    for e in &evs {
        assert_eq!(e["match"]["id"], recs[0]["record"]["id"], "its own draft did not match {e}");
    }
    // The values are captured whole: the host (with the padding beside it but for the blank
    // next to `user=`, as README says a variable takes its padding in), and the user to the
    // line's end.
    assert_eq!(evs[0]["match"]["captures"]["_3"], "220-135-151-1.hinet-ip.hinet.net ");
    assert_eq!(evs[0]["match"]["captures"]["_4"], "root");
}

/// A known host message over a `Caused by:` report: the cause on a later line is what is
/// clustered, but a report's examples were each event's first line, which shows nothing of it
/// (three of the first seven clusters of meta-sample.log had such an example). The line the
/// clustered text starts on is now part of the example, after `…` when lines were left out.
#[test]
fn regression_an_examples_cause_on_a_later_line_is_shown() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..3 {
        input.push_str(&format!(
            "{}\n\nCaused by:\n    disk quota exceeded on volume {i}\n",
            warn(i, "failed to inject barrier")
        ));
    }
    // The cause directly under the first line: no `…`.
    input.push_str(&format!("{}\n  disk quota exceeded on volume 9\n", warn(5, "failed to inject barrier")));
    let file = d.write("in.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reports = events(&out.stdout);
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0]["template"], "disk quota exceeded on volume <*>");
    let first = input.lines().next().unwrap();
    assert_eq!(reports[0]["examples"][0], format!("{first}\n…\n    disk quota exceeded on volume 0"));
    let out = run(&["discover", "-c", &d.catalog(), "--format", "text", &file], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("    | {first}\n    : …\n    :     disk quota exceeded on volume 0\n")), "{text}");
    // Drafts learn from the cause's line, and match the events again.
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    let drafts = d.write("drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    let evs = d.events(&["-c", &drafts, "--unknown", "warn", "--format", "json", &file], "");
    assert_eq!(evs.len(), 4);
    for e in &evs {
        assert_eq!(e["match"]["id"], reports[0]["cluster"], "{e}");
        assert!(unknown(e).is_none(), "still unknown: {e}");
    }
}

/// A known host message with words of its own (`failed to inject barrier on worker 3`) over a
/// `Caused by:` report: the words were clustered (`on worker <*>`) and the report's unknown
/// cause went unseen. The host's own words come second to the report's first cause, as they do
/// to an `error` field; alone (no report) they are still the unknown part.
#[test]
fn regression_a_host_messages_own_words_do_not_hide_the_cause_below_it() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..2 {
        input.push_str(&format!(
            "{}\n\nCaused by:\n    disk quota exceeded on volume {i}\n",
            warn(i, &format!("failed to inject barrier on worker {i}"))
        ));
    }
    input.push_str(&warn(3, "failed to inject barrier on worker 3"));
    input.push('\n');
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    assert_eq!(evs.len(), 3);
    for line in [1, 5] {
        assert_eq!(at(&evs, line)["match"]["id"], "h-inject");
        assert_eq!(unknown(at(&evs, line)).map(|u| u.1), Some("disk quota exceeded on volume <*>"));
    }
    assert_eq!(unknown(at(&evs, 9)).map(|u| u.1), Some("on worker <*>"));
}

/// The first version of the rule above took any line below such a message for the report's
/// cause (a second reader found it): a Java frame, `{:#?}` output, the message's own next line
/// over an `error` field, a panic's `note:` line. Only a `Caused by:` report is a cause there,
/// and an `error` field stays first.
#[test]
fn regression_only_a_report_below_a_host_message_is_its_cause() {
    let d = Dir::new();
    let host = |sec: u32, rest: &str| warn(sec, &format!("failed to inject barrier {rest}"));
    let cases = [
        (format!("{}\n\tat org.apache.Foo.bar(Foo.java:12)", host(1, "on worker 3")), "on worker <*>"),
        (format!("{}\nWorkerNode {{\n    id: 53,\n}} job_id=7", host(2, "for worker")), "for worker"),
        (
            format!("{}\n  second line of the message error=disk quota exceeded", host(3, "on worker 3")),
            "disk quota exceeded",
        ),
        (
            "thread 'main' panicked at src/meta/barrier.rs:7:9:\nfailed to inject barrier on worker 3\n\
             note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"
                .to_owned(),
            "on worker <*>",
        ),
    ];
    for (input, want) in &cases {
        let evs = d.events(&["--unknown", "warn", "--format", "json"], &format!("{input}\n"));
        assert_eq!(evs.len(), 1, "{input}: {evs:?}");
        assert_eq!(unknown(&evs[0]).map(|u| u.1), Some(*want), "{input}");
    }
}

/// `/proc/PID/status`'s mask of caught signals holds SIGINT: the run's handler is in place.
fn catches_sigint(pid: u32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|m| u64::from_str_radix(m.trim(), 16).ok())
        .is_some_and(|m| m & (1 << (2 - 1)) != 0)
}

/// `/proc/PID/io`'s bytes read so far.
fn bytes_read(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    io.lines().find_map(|l| l.strip_prefix("rchar:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

/// `kubectl logs -f meta-0 | annotail discover` never ends: Ctrl-C killed annotail with
/// nothing written. It now reports what it read and exits 130, whether the writer upstream dies
/// of the same Ctrl-C (the input ends) or keeps its end open.
#[test]
fn regression_discover_reports_what_it_read_on_ctrl_c() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..6 {
        input.push_str(&warn(i, &format!("replica {i} lagging behind the leader")));
        input.push('\n');
    }
    for writer_ends in [true, false] {
        let mut c = cmd();
        c.args(["discover", "-c", &d.catalog(), "--format", "json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let pid = child.id();
        let start = Instant::now();
        while !catches_sigint(pid) {
            assert!(start.elapsed() < PATIENCE, "no SIGINT handler");
            std::thread::sleep(Duration::from_millis(10));
        }
        let mut stdin = child.stdin.take().unwrap();
        let before = bytes_read(pid);
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.flush().unwrap();
        while bytes_read(pid) < before + input.len() as u64 {
            assert!(start.elapsed() < PATIENCE, "input not read");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(ctrl_c(pid));
        if writer_ends {
            // The same Ctrl-C ends the writer: the input ends.
            drop(stdin);
        }
        let status = common::wait_timeout(&mut child, PATIENCE).expect("exits after Ctrl-C");
        assert_eq!(status.code(), Some(130), "writer ends: {writer_ends}");
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        let reports = events(&out);
        assert_eq!(reports.len(), 1, "writer ends: {writer_ends}: {}", String::from_utf8_lossy(&out));
        assert_eq!(reports[0]["template"], "replica <*> lagging behind the leader");
        assert_eq!(reports[0]["count"], 6);
    }
}

fn ctrl_c(pid: u32) -> bool {
    std::process::Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap().success()
}

/// Other programs' JSON logs (the operator's and etcd's zap, logrus, slog, pino, Python's JSON
/// formatters, Google Cloud's and ECS's layouts) had only a `level` string and a `"level":"`
/// with no blank read: `{"level": "error", …}` (Python's `json` puts a blank after the colon),
/// `severity`, `levelname` and pino's numbers were never taken at `--unknown warn` (but were with
/// `--all`), and every such event had an empty `message`, no `log.fields`, and the time of
/// reading as `@timestamp`.
#[test]
fn regression_other_programs_json_lines_are_read_and_taken_at_their_level() {
    let d = Dir::new();
    let lines = [
        // zap (controller-runtime, etcd): `ts` in seconds, `logger`, `caller`, `error`.
        r#"{"level":"error","ts":1764928800.25,"logger":"controller","caller":"c.go:329","msg":"Reconciler error","name":"rw-1","error":"failed to sync meta: connection refused"}"#,
        // logrus and slog: RFC 3339 `time`.
        r#"{"time":"2026-12-05T10:00:01Z","level":"warning","msg":"slow compaction of table 17"}"#,
        // pino: a number for the level, epoch milliseconds.
        r#"{"level":50,"time":1764928802123,"pid":7,"msg":"request failed","err":"ECONNRESET"}"#,
        // Python's JSON formatter: blanks after the colons, `levelname`, `asctime`.
        r#"{"asctime": "2026-12-05 10:00:03,123", "levelname": "ERROR", "name": "udf", "message": "udf batch 17 failed"}"#,
        // Google Cloud: `severity`.
        r#"{"severity":"WARNING","timestamp":"2026-12-05T10:00:04Z","message":"retrying upload of part 3"}"#,
        // ECS: `@timestamp`, a nested `log.level`.
        r#"{"@timestamp":"2026-12-05T10:00:05.000Z","log":{"level":"error"},"message":"cannot reach broker kafka-0:9092"}"#,
        // A known host message: the unknown error under it is what is clustered.
        r#"{"level":"error","time":"2026-12-05T10:00:06Z","msg":"failed to inject barrier","error":"disk full on volume 9"}"#,
        // A custom pino level between warn and error; Google Cloud's `ALERT`; a `timestamp`
        // that is no time (the next time key is read); ECS's nested logger.
        r#"{"level":45,"time":1764928809000,"msg":"quota at 91 percent"}"#,
        r#"{"severity":"ALERT","timestamp":"2026-12-05T10:00:10Z","message":"primary region unreachable"}"#,
        r#"{"level":"error","timestamp":"soon","ts":1764928811,"msg":"lost lease 5"}"#,
        r#"{"@timestamp":"2026-12-05T10:00:12Z","log":{"level":"warn","logger":"app.db"},"message":"pool exhausted 3"}"#,
        // Below WARN, in each layout: not taken.
        r#"{"level":"info","ts":1764928807.5,"msg":"reconciled"}"#,
        r#"{"level":30,"time":1764928808000,"msg":"listening"}"#,
        r#"{"asctime": "2026-12-05 10:00:09,000", "levelname": "INFO", "message": "ready"}"#,
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = d.write("others.jsonl", &input);
    let warn = d.events(&["--unknown", "warn", "--format", "json", &file], "");
    let got: Vec<(u64, &str, &str, &str, &str)> = warn
        .iter()
        .map(|e| {
            (
                e["source"]["line"].as_u64().unwrap(),
                e["@timestamp"].as_str().unwrap(),
                e["log"]["level"].as_str().unwrap(),
                e["message"].as_str().unwrap(),
                unknown(e).unwrap().1,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, "2025-12-05T10:00:00.250000Z", "error", "Reconciler error", "Reconciler error"),
            (2, "2026-12-05T10:00:01Z", "warning", "slow compaction of table 17", "slow compaction of table <*>"),
            (3, "2025-12-05T10:00:02.123Z", "error", "request failed", "request failed"),
            (4, "2026-12-05T10:00:03.123", "ERROR", "udf batch 17 failed", "udf batch <*> failed"),
            (5, "2026-12-05T10:00:04Z", "WARNING", "retrying upload of part 3", "retrying upload of part <*>"),
            (6, "2026-12-05T10:00:05.000Z", "error", "cannot reach broker kafka-0:9092", "cannot reach broker <*>:<*>"),
            (7, "2026-12-05T10:00:06Z", "error", "failed to inject barrier", "disk full on volume <*>"),
            (8, "2025-12-05T10:00:09.000Z", "warn", "quota at 91 percent", "quota at <*> percent"),
            (9, "2026-12-05T10:00:10Z", "ALERT", "primary region unreachable", "primary region unreachable"),
            (10, "2025-12-05T10:00:11Z", "error", "lost lease 5", "lost lease <*>"),
            (11, "2026-12-05T10:00:12Z", "warn", "pool exhausted 3", "pool exhausted <*>"),
        ]
    );
    assert_eq!(at(&warn, 11)["log"]["target"], "app.db");
    // The keys not read as the time, level, message or target are the event's fields.
    let e = at(&warn, 1);
    assert_eq!(e["log"]["target"], "controller");
    assert_eq!(
        e["log"]["fields"],
        serde_json::json!({"caller": "c.go:329", "name": "rw-1", "error": "failed to sync meta: connection refused"})
    );
    assert_eq!(at(&warn, 3)["log"]["fields"], serde_json::json!({"pid": "7", "err": "ECONNRESET"}));
    assert_eq!(at(&warn, 7)["match"]["id"], "h-inject");
    // Every line framed, and only errors: the same events.
    let all = d.events(&["--unknown", "warn", "--all", "--format", "json", &file], "");
    assert_eq!(all.len(), lines.len());
    let clustered = |evs: &[Value]| -> Vec<(u64, String)> {
        evs.iter().filter_map(|e| Some((e["source"]["line"].as_u64().unwrap(), unknown(e)?.1.to_owned()))).collect()
    };
    assert_eq!(clustered(&all), clustered(&warn));
    let error: Vec<u64> = clustered(&d.events(&["--unknown", "error", "--format", "json", &file], ""))
        .into_iter()
        .map(|(l, _)| l)
        .collect();
    assert_eq!(error, [1, 3, 4, 6, 7, 9, 10]);
}

/// README "Growing a catalog from drafts": a message that only says that something failed
/// (controller-runtime's `Reconciler error`, Kubernetes' `"Unhandled Error" err=…`) is one cluster
/// for every error it reports; its draft, added back, makes it a known host, and the errors in its
/// `error`/`err` field become clusters of their own, in JSON, klog and logfmt lines alike.
#[test]
fn a_draft_for_a_message_that_only_says_it_failed_brings_out_its_errors() {
    let d = Dir::new();
    let mut input = String::new();
    for i in 0..6 {
        input.push_str(&format!(
            "{{\"level\":\"error\",\"ts\":1764928800.{i},\"msg\":\"Reconciler error\",\"error\":\"failed to sync meta {i}: connection refused\"}}\n"
        ));
        input.push_str(&format!(
            "{{\"level\":\"error\",\"ts\":1764928801.{i},\"msg\":\"Reconciler error\",\"error\":\"statefulset rw-{i} not found\"}}\n"
        ));
        input.push_str(&if i % 2 == 0 {
            format!("E1205 07:20:2{i}.123456       1 runtime.go:79] \"Unhandled Error\" err=\"pods \\\"meta-{i}\\\" is forbidden\"\n")
        } else {
            // klog's text logger writes a value with line breaks on the lines below, behind tabs.
            format!(
                "E1205 07:20:2{i}.123456       1 runtime.go:79] \"Unhandled Error\" err=<\n\tpods \"meta-{i}\" is forbidden: User \"system:serviceaccount:rw:op\" cannot get\n\tresource \"pods\"\n > logger=\"UnhandledError\"\n"
            )
        });
        input.push_str(&format!("level=error msg=\"Unhandled Error\" err=\"lease {i} expired\"\n"));
        // pino's `err` is an object: its `message` is the error.
        input.push_str(&format!(
            "{{\"level\":50,\"time\":1764928800{i}00,\"msg\":\"request failed\",\"err\":{{\"type\":\"Error\",\"message\":\"connect ECONNREFUSED 10.0.0.{i}:5432\"}}}}\n"
        ));
    }
    let file = d.write("generic.log", &input);
    let templates = |evs: &[Value]| -> std::collections::BTreeMap<String, usize> {
        let mut m = std::collections::BTreeMap::new();
        for e in evs {
            *m.entry(unknown(e).map_or("-", |u| u.1).to_owned()).or_default() += 1;
        }
        m
    };
    let before = d.events(&["--unknown", "warn", "--format", "json", &file], "");
    assert_eq!(
        templates(&before),
        [("Reconciler error".to_owned(), 12), ("Unhandled Error".to_owned(), 12), ("request failed".to_owned(), 6)]
            .into()
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let drafts = d.write("drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    let after = d.events(&["-c", &drafts, "--unknown", "warn", "--format", "json", &file], "");
    assert_eq!(
        templates(&after),
        [
            ("failed to sync meta <*>".to_owned(), 6),
            ("statefulset <*> not found".to_owned(), 6),
            ("pods <*> is forbidden".to_owned(), 6),
            ("lease <*> expired".to_owned(), 6),
            ("connect ECONNREFUSED <*>:<*>".to_owned(), 6),
        ]
        .into()
    );
    let e = after.iter().find(|e| e["source"]["line"] == 8).unwrap();
    assert_eq!(e["source"]["lines"], 4);
    assert_eq!(
        e["log"]["fields"],
        serde_json::json!({"caller": "runtime.go:79", "logger": "UnhandledError",
            "err": "pods \"meta-1\" is forbidden: User \"system:serviceaccount:rw:op\" cannot get\nresource \"pods\""})
    );
    let hosts: std::collections::BTreeSet<&str> = after.iter().map(|e| e["match"]["slug"].as_str().unwrap()).collect();
    assert_eq!(hosts, ["reconciler-error", "request-failed", "unhandled-error"].into());
}

/// log15 writes its time with ISO 8601's basic zone (`t=2026-03-02T08:00:00+0000`): it was not
/// read as `@timestamp` (the time of reading was written instead). The colon RFC 3339 wants is
/// put in, in a logfmt line and in a JSON line alike.
#[test]
fn regression_a_time_with_a_basic_zone_is_read() {
    let d = Dir::new();
    let input = "t=2026-03-02T08:00:00+0000 lvl=eror msg=\"sync failed for shard 3\"\n\
                 {\"t\":\"2026-03-02T08:00:01.5-0530\",\"lvl\":\"eror\",\"msg\":\"sync failed for shard 4\"}\n";
    let evs = d.events(&["--unknown", "warn", "--format", "json"], input);
    let times: Vec<&str> = evs.iter().map(|e| e["@timestamp"].as_str().unwrap()).collect();
    assert_eq!(times, ["2026-03-02T08:00:00+00:00", "2026-03-02T08:00:01.5-05:30"]);
    assert!(evs.iter().all(|e| unknown(e).unwrap().1 == "sync failed for shard <*>"), "{evs:?}");
}

/// A second reading found klog's multi-line values read only without a prefix: behind a CRI
/// record's, `kubectl --prefix`, compose's or Docker's, the value's indented lines each became
/// an event of their own (`err` was `<`), because whether a line continues another program's
/// event was judged on the line with its prefix. A Java stack trace behind a CRI prefix was cut
/// the same way.
#[test]
fn regression_indented_lines_behind_a_prefix_continue_another_programs_event() {
    let d = Dir::new();
    let klog = [
        "E1205 07:20:22.123456       1 runtime.go:79] \"Unhandled Error\" err=<",
        "\tpods \"meta-1\" is forbidden",
        "\tresource \"pods\"",
        " > logger=\"UnhandledError\"",
    ];
    let java = [
        "2026-12-05 10:00:00,123 WARN  [main] o.a.k.Consumer - commit failed",
        "\tat o.a.k.Consumer.commit(Consumer.java:12)",
    ];
    for prefix in ["", "2026-03-02T08:00:00.1Z stderr F ", "[pod/op-0/manager] "] {
        let input: String = klog.iter().chain(&java).map(|l| format!("{prefix}{l}\n")).collect();
        let evs = d.events(&["--all", "--format", "json"], &input);
        let got: Vec<(u64, u64)> = evs
            .iter()
            .map(|e| (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap()))
            .collect();
        assert_eq!(got, [(1, 4), (5, 2)], "{prefix:?}");
        assert_eq!(evs[0]["log"]["fields"]["err"], "pods \"meta-1\" is forbidden\nresource \"pods\"", "{prefix:?}");
        assert_eq!(evs[0]["log"]["fields"]["logger"], "UnhandledError", "{prefix:?}");
    }
}

/// `docker compose logs`, stern, `journalctl`, a log viewer's time column, an indented or quoted
/// paste: the level look that picks the lines `--unknown warn` frames found a JSON line only at a line's
/// start or behind `kubectl`'s and a container runtime's prefixes. Behind the others a JSON
/// event at WARN or ERROR was written (its known matches found) but never clustered, where the
/// same line alone was.
#[test]
fn regression_json_lines_behind_compose_stern_and_paste_prefixes_are_clustered() {
    let d = Dir::new();
    let json = |level: &str, msg: &str| {
        serde_json::json!({"timestamp": "2026-03-02T08:00:00.1Z", "level": level, "fields": {"message": msg},
            "target": "risingwave_meta::barrier"})
        .to_string()
    };
    let lines = [
        json("INFO", "tick 1"),
        json("WARN", "slow checkpoint of table 17"),
        // A RisingWave text line with a map printed by `{:?}` (`{"` after a blank): no JSON line.
        info(2, r#"sink created with properties: {"connector": "kafka", "topic": "WARN"}"#),
        json("ERROR", "lost contact with compute node 3"),
        r#"{"level":"error","ts":1764928800.25,"logger":"controller","msg":"Reconciler error","error":"lease lost: timeout"}"#
            .to_owned(),
        json("INFO", "tick 2"),
    ];
    let clustered = |evs: &[Value]| -> Vec<(u64, String)> {
        evs.iter().filter_map(|e| unknown(e).map(|u| (e["source"]["line"].as_u64().unwrap(), u.1.to_owned()))).collect()
    };
    let input = |prefix: &str| -> String { lines.iter().map(|l| format!("{prefix}{l}\n")).collect() };
    let alone = clustered(&d.events(&["--unknown", "warn", "--format", "json"], &input("")));
    assert_eq!(
        alone,
        [
            (2, "slow checkpoint of table <*>".to_owned()),
            (4, "lost contact with compute node <*>".to_owned()),
            (5, "Reconciler error".to_owned())
        ]
    );
    let prefixes = [
        "meta-1  | ",
        "meta-0 meta ",
        "2026-12-05 10:00:00.123 | ",
        "2026-12-05 10:00:00.123\t",
        "    ",
        "> ",
        "Dec  5 10:00:00 node-1 meta[123]: ",
        "2026-12-05T10:00:00.123456+0000 node-1 meta[123]: ",
    ];
    for prefix in prefixes {
        let input = input(prefix);
        for threads in ["1", "2"] {
            let warn = d.events(&["--unknown", "warn", "--format", "json", "--threads", threads], &input);
            assert_eq!(clustered(&warn), alone, "{prefix:?}");
            // The level look decides which lines are framed; with `--all` every one is.
            let all = d.events(&["--unknown", "warn", "--all", "--format", "json", "--threads", threads], &input);
            assert_eq!(clustered(&all), alone, "{prefix:?} with --all");
        }
    }
}

/// A Python program's logged exception (`logger.exception("batch 17 failed")`) prints its
/// traceback below the dated line, and an uncaught one prints it alone. Each traceback line
/// without indentation was an event of its own: the `ERROR` event carried none of its
/// traceback, `--unknown any` put every traceback in one cluster (`Traceback (most recent call
/// last):`) and the exception's line in another. A traceback is now part of the logged error
/// above it, chained tracebacks too, and it is clustered by the exception that ends it.
#[test]
fn regression_a_python_traceback_is_one_event_clustered_by_its_exception() {
    let d = Dir::new();
    let lines = [
        "2026-12-05 10:00:00,123 - udf.server - ERROR - batch 17 failed",
        "Traceback (most recent call last):",
        "  File \"/app/udf.py\", line 31, in call",
        "    return f(*args)",
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
        "2026-12-05 10:00:01,000 - udf.server - INFO - serving",
        "Traceback (most recent call last):",
        "  File \"/app/main.py\", line 3, in <module>",
        "ModuleNotFoundError: No module named 'numpy'",
        "2026-12-05 10:00:03,000 - udf.server - ERROR - batch 18 failed",
        "Traceback (most recent call last):",
        "  File \"/app/udf.py\", line 31, in call",
        "KeyError: 'price'",
        "",
        "During handling of the above exception, another exception occurred:",
        "",
        "Traceback (most recent call last):",
        "  File \"/app/udf.py\", line 35, in call",
        "udf.UdfError: missing column price",
        "2026-12-05 10:00:04,000 - udf.server - WARNING - slow batch 4",
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = d.write("udf.log", &input);
    // The same lines with CRLF ends, and coloured as a terminal shows them (Python 3.13 colours
    // a traceback; a formatter colours the level word): framing read a coloured line's shape
    // on its raw bytes, and a CRLF line's `\r` hid an exception's line.
    let crlf = d.write("udf-crlf.log", &input.replace('\n', "\r\n"));
    let colour = input
        .replace(" ERROR ", " \x1b[31mERROR\x1b[0m ")
        .replace("KeyError", "\x1b[1;35mKeyError\x1b[0m")
        .replace("  File", "  \x1b[2mFile\x1b[0m");
    let coloured = d.write("udf-colour.log", &colour);
    let shape = |evs: &[Value]| -> Vec<(u64, u64, Option<String>)> {
        evs.iter()
            .map(|e| {
                let (line, n) = (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap());
                (line, n, unknown(e).map(|u| u.1.to_owned()))
            })
            .collect()
    };
    let some = |s: &str| Some(s.to_owned());
    let any = d.events(&["--unknown", "any", "--format", "json", &file], "");
    assert_eq!(
        shape(&any),
        [
            (1, 5, some("batch <*> failed")),
            (6, 1, some("serving")),
            // An uncaught exception's traceback after an INFO line is not that line's.
            (7, 3, some("ModuleNotFoundError: No module named <*>")),
            (10, 10, some("batch <*> failed")),
            (20, 1, some("slow batch <*>")),
        ]
    );
    for other in [&crlf, &coloured] {
        assert_eq!(shape(&d.events(&["--unknown", "any", "--format", "json", other], "")), shape(&any), "{other}");
    }
    // `warn` frames only the lines at a level it wants, and the same events come out.
    let want: Vec<_> = shape(&any).into_iter().filter(|(line, ..)| ![6, 7].contains(line)).collect();
    for threads in ["1", "2"] {
        assert_eq!(shape(&d.events(&["--unknown", "warn", "--format", "json", "--threads", threads, &file], "")), want);
    }
    assert_eq!(shape(&d.events(&["--unknown", "warn", "--format", "json"], &input)), want, "standard input");
    // Once a record knows the logged message, the exception under it is the unknown error: the
    // last of a chain, the one the program raised.
    let catalog = d.write(
        "udf.jsonl",
        r#"{"id":"udf-batch","slug":"udf-batch-failed","severity":"error","errorMessage":"batch {} failed","messagePattern":"batch (.+?) failed"}"#,
    );
    let out = run(&["-c", &catalog, "--unknown", "warn", "--format", "json", &file], b"");
    assert!(out.status.success());
    let evs = events(&out.stdout);
    assert_eq!(
        shape(&evs),
        [
            (1, 5, some("decimal.InvalidOperation: [<class <*>>]")),
            (10, 10, some("udf.UdfError: missing column price")),
            (20, 1, some("slow batch <*>")),
        ]
    );
    assert_eq!(evs[0]["match"]["id"], "udf-batch");
}

/// Kafka's brokers and clients (log4j's `[%d] %p …`), a Rust program's env_logger (`[<time>
/// <LEVEL> <target>] …`), nginx's error log and Go's `log` (`2026/12/05 10:00:03 …`) were plain
/// text: no level, so `--unknown warn` took none of their WARN and ERROR lines (Kafka's `ERROR`
/// was written, unclustered, because the look for level words found it), no `@timestamp`, and
/// `any` templates made of the time's digits. A Kafka line after a RisingWave line was read as
/// that line's continuation.
#[test]
fn regression_kafka_env_logger_nginx_and_go_lines_are_read_with_their_time_and_level() {
    let d = Dir::new();
    let lines = [
        "[2026-12-05 10:00:00,123] ERROR [ReplicaManager broker=1] Error processing fetch with max size 1048576 (kafka.server.ReplicaManager)",
        "org.apache.kafka.common.errors.NotLeaderOrFollowerException: not the leader for partition rw-0",
        "\tat kafka.cluster.Partition.readRecords(Partition.scala:1210)",
        "[2026-12-05 10:00:01,500] INFO [KafkaServer id=1] started (kafka.server.KafkaServer)",
        "[2026-12-05 10:00:01,900] WARN [Consumer clientId=rw-1, groupId=g1] Connection to node 2 could not be established. (org.apache.kafka.clients.NetworkClient)",
        "[2026-12-05T10:00:02Z ERROR udf_server::arrow] schema mismatch in column 3",
        "[2026-12-05T10:00:02Z INFO  udf_server] listening",
        "2026/12/05 10:00:03 [error] 31#31: *7 connect() failed (111: Connection refused) while connecting to upstream",
        "2026/12/05 10:00:03 [notice] 31#31: signal process started",
        "2026/12/05 10:00:04 ERROR lost connection to broker 3",
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = d.write("others.log", &input);
    let got = |evs: &[Value]| -> Vec<(u64, u64, String, String, String)> {
        evs.iter()
            .filter(|e| unknown(e).is_some())
            .map(|e| {
                (
                    e["source"]["line"].as_u64().unwrap(),
                    e["source"]["lines"].as_u64().unwrap(),
                    e["@timestamp"].as_str().unwrap().to_owned(),
                    e["log"]["level"].as_str().unwrap().to_owned(),
                    unknown(e).unwrap().1.to_owned(),
                )
            })
            .collect()
    };
    let want = [
        (1, 3, "2026-12-05T10:00:00.123", "ERROR", "[ReplicaManager broker=<*>] Error processing fetch with max size <*> (kafka.server.ReplicaManager)"),
        (5, 1, "2026-12-05T10:00:01.900", "WARN", "[Consumer clientId=<*>, groupId=<*>] Connection to node <*> could not be established. (org.apache.kafka.clients.NetworkClient)"),
        (6, 1, "2026-12-05T10:00:02Z", "ERROR", "schema mismatch in column <*>"),
        (8, 1, "2026-12-05T10:00:03", "error", "<*>#<*>: <*> connect() failed (<*>: Connection refused) while connecting to upstream"),
        (10, 1, "2026-12-05T10:00:04", "ERROR", "lost connection to broker <*>"),
    ]
    .map(|(l, n, t, lv, tp)| (l, n, t.to_owned(), lv.to_owned(), tp.to_owned()));
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json", &file], "")), want);
    assert_eq!(got(&d.events(&["--unknown", "warn", "--all", "--format", "json", &file], "")), want);
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json"], &input)), want, "standard input");
    // Behind `kubectl logs --timestamps`, and after a RisingWave line (not its continuation).
    let stamped: String = lines.iter().map(|l| format!("2026-12-05T10:00:09.000000001Z {l}\n")).collect();
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json"], &stamped)), want, "--timestamps");
    let after = format!("{}\n{}\n", info(1, "tick"), lines[0]);
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &after);
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(evs[0]["source"]["line"], 2);
}

/// A Go program's crash (the operator's, etcd's: `panic: …` or the runtime's `fatal error: …`,
/// then its goroutines' stacks) had no level: `--unknown warn` never took it, and `any` cut it
/// into an event per unindented line (`goroutine 187 [running]:`, each function). It is one
/// event now, an error as a Rust panic is, clustered by its first line. A `panic: ` line
/// without stacks below it is a message's words.
#[test]
fn regression_a_go_programs_crash_is_one_event_at_error() {
    let d = Dir::new();
    let crash = [
        "I1205 07:20:22.123456       1 controller.go:10] reconciling rw-1",
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1234]",
        "",
        "goroutine 187 [running]:",
        "github.com/risingwavelabs/risingwave-operator/pkg/manager.(*Manager).sync(0x0, {0x1a2b, 0xc0001})",
        "\t/workspace/pkg/manager/manager.go:120 +0x1d",
        "main.main()",
        "\t/workspace/cmd/main.go:42 +0x25",
        "E1205 07:20:23.123456       1 controller.go:10] restarted after a crash",
        "fatal error: concurrent map writes",
        "",
        "goroutine 9 [running]:",
        "main.worker()",
        "\t/workspace/cmd/main.go:50 +0x25",
    ];
    let input: String = crash.iter().map(|l| format!("{l}\n")).collect();
    let got = clustered;
    let want = [
        (2, 8, "panic: runtime error: invalid memory address or nil pointer dereference".to_owned()),
        (10, 1, "restarted after a crash".to_owned()),
        (11, 5, "fatal error: concurrent map writes".to_owned()),
    ];
    for (name, input) in [
        ("plain", input.clone()),
        ("CRI", input.lines().map(|l| format!("2026-12-05T07:20:22.1Z stderr F {l}\n")).collect()),
        // Behind RisingWave's own lines: the block is not another program's log.
        ("after RisingWave lines", (0..20).map(|i| format!("{}\n", info(i, "tick"))).collect::<String>() + &input),
    ] {
        let file = d.write("crash.log", &input);
        let mut sparse = got(&d.events(&["--unknown", "warn", "--format", "json", &file], ""));
        let all = d.events(&["--unknown", "warn", "--all", "--format", "json", &file], "");
        let offset = if name == "after RisingWave lines" { 20 } else { 0 };
        sparse.iter_mut().for_each(|(l, ..)| *l -= offset);
        assert_eq!(sparse, want, "{name}");
        let mut dense = got(&all);
        dense.iter_mut().for_each(|(l, ..)| *l -= offset);
        assert_eq!(dense, want, "{name} with --all");
        let crash_event = all.iter().find(|e| e["source"]["line"] == 2 + offset).unwrap();
        assert_eq!(crash_event["log"]["format"], if name == "CRI" { "cri" } else { "panic" }, "{name}");
    }
    // No stacks: words of a message, not a crash.
    let evs = d.events(&["--unknown", "warn", "--all", "--format", "json"], "x\npanic: just words\nmore\n");
    assert!(evs.iter().all(|e| unknown(e).is_none()), "{evs:?}");
}

/// Regression (found by an on-call reader): a crash took every line without a header after
/// it, past the `exit status 2` that `go run` prints last, so a `kubectl get events` listing
/// pasted below it lost its `LAST SEEN …` header into the crash.
#[test]
fn regression_a_go_crash_ends_at_its_exit_status() {
    let d = Dir::new();
    let lines = [
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "",
        "goroutine 187 [running]:",
        "main.main()",
        "\t/workspace/cmd/main.go:42 +0x25",
        "exit status 2",
        "LAST SEEN   TYPE      REASON      OBJECT                       MESSAGE",
        "3m          Warning   BackOff     pod/risingwave-compute-1     Back-off restarting failed container",
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let evs = d.events(&["--unknown", "any", "--format", "json"], &input);
    let got: Vec<(u64, u64)> =
        evs.iter().map(|e| (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap())).collect();
    assert_eq!(got, [(1, 6), (7, 1), (8, 1)], "{evs:?}");
    assert_eq!(evs[0]["log"]["format"], "panic");
    // A blank line after the end joins the crash, and the end holds past it (found by a
    // second reader).
    let blank = input.replace("exit status 2\n", "exit status 2\n\n");
    let evs = d.events(&["--unknown", "any", "--format", "json"], &blank);
    let got: Vec<(u64, u64)> =
        evs.iter().map(|e| (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap())).collect();
    assert_eq!(got, [(1, 7), (8, 1), (9, 1)], "{evs:?}");
    // A Rust panic whose message reads `exit status 3` keeps its note and backtrace.
    let rust = "thread 'main' panicked at src/meta/src/nothing_known.rs:10:5:\nexit status 3\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\nstack backtrace:\n   0: rust_begin_unwind\n";
    let evs = d.events(&["--unknown", "any", "--format", "json"], rust);
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(evs[0]["source"]["lines"], 5);
}

/// Found by a second reader: two lines whose group keys collided (different token counts) were
/// compared past the shorter template's end. On several threads the panic was not caught, and
/// the run exited with status 101 and no output.
#[test]
fn regression_a_bug_in_clustering_does_not_take_a_threaded_run_down() {
    let d = Dir::new();
    let file = d.write("collide.log", "> {\n  {\"level\":\"error\"\n> x |{\"level\":\"error\"}\n");
    for threads in ["1", "2"] {
        let evs = d.events(&["--unknown", "any", "--format", "json", "--threads", threads, &file], "");
        let templates: Vec<&str> = evs.iter().filter_map(unknown).map(|u| u.1).collect();
        assert_eq!(templates, ["> {", "> x <*>"], "--threads {threads}");
    }
}

/// Python's `logging` as it prints by default (`ERROR:root:…`, `WARNING:udf.server:…`) and
/// uvicorn's lines (`ERROR:    Exception in ASGI application`: a Python UDF server's) start with
/// their level and a colon: they had no level, so `--unknown warn` took none of them, and a
/// traceback below one was an event of its own. zap's console lines with lower-case levels
/// (`<time>\terror\t…`) were read as a log viewer's time before plain text. Now each has its
/// level (and a Python logger's name is `log.target`), a traceback continues the line that
/// logged it, and the message is clustered without the level and name.
#[test]
fn regression_python_uvicorn_and_zap_console_lines_have_their_level() {
    let d = Dir::new();
    let lines = [
        "INFO:     Started server process [1]",
        "ERROR:    Exception in ASGI application",
        "Traceback (most recent call last):",
        "  File \"/app/server.py\", line 12, in handle",
        "    return gcd(a, b)",
        "ZeroDivisionError: integer division or modulo by zero",
        "INFO:     10.0.0.7:5555 - \"POST /udf HTTP/1.1\" 500 Internal Server Error",
        "ERROR:udf.server:UDF gcd failed for batch 12",
        "WARNING:root:slow batch 3412 ms",
        "DEBUG:udf.server:batch 13",
        "2026-12-05T10:00:06.000Z\terror\tcontroller/reconcile.go:42\tReconciler error\t{\"name\": \"rw\"}",
        "2026-12-05T10:00:07.000Z\tinfo\tcontroller/reconcile.go:40\tReconciling",
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let file = d.write("py.log", &input);
    type Row = (u64, u64, String, Option<String>, String);
    let got = |evs: &[Value]| -> Vec<Row> {
        evs.iter()
            .filter(|e| unknown(e).is_some())
            .map(|e| {
                (
                    e["source"]["line"].as_u64().unwrap(),
                    e["source"]["lines"].as_u64().unwrap(),
                    e["log"]["level"].as_str().unwrap().to_owned(),
                    e["log"]["target"].as_str().map(str::to_owned),
                    unknown(e).unwrap().1.to_owned(),
                )
            })
            .collect()
    };
    let want: Vec<Row> = [
        (2, 5, "ERROR", None, "Exception in ASGI application"),
        (8, 1, "ERROR", Some("udf.server"), "UDF gcd failed for batch <*>"),
        (9, 1, "WARNING", Some("root"), "slow batch <*> ms"),
        (11, 1, "error", None, "controller/reconcile.go:<*> Reconciler error <*>"),
    ]
    .into_iter()
    .map(|(l, n, lv, t, tp)| (l, n, lv.to_owned(), t.map(str::to_owned), tp.to_owned()))
    .collect();
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json", &file], "")), want);
    assert_eq!(got(&d.events(&["--unknown", "warn", "--all", "--format", "json", &file], "")), want, "--all");
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json"], &input)), want, "standard input");
    let errors: Vec<Row> = want.iter().filter(|r| r.2 != "WARNING").cloned().collect();
    assert_eq!(got(&d.events(&["--unknown", "error", "--format", "json", &file], "")), errors, "error");
    // Behind a CRI record's prefix (a node's container log), after RisingWave's lines.
    let cri: String = std::iter::once(info(1, "tick"))
        .chain(lines.iter().map(|l| l.to_string()))
        .map(|l| format!("2026-12-05T10:00:09.000000001Z stderr F {l}\n"))
        .collect();
    let shifted: Vec<Row> = want.iter().map(|r| (r.0 + 1, r.1, r.2.clone(), r.3.clone(), r.4.clone())).collect();
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json"], &cri)), shifted, "CRI");
    // Behind `kubectl logs --timestamps`, after a zap line that shows the prefix: the runtime's
    // time, then the line (a review found them with no level, the traceback cut off, and sparse
    // and dense framing disagreeing).
    let stamped: String = std::iter::once(info(1, "tick"))
        .chain(lines.iter().map(|l| l.to_string()))
        .map(|l| format!("2026-12-05T10:00:09.000000001Z {l}\n"))
        .collect();
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json"], &stamped)), shifted, "--timestamps");
    assert_eq!(
        got(&d.events(&["--unknown", "warn", "--all", "--format", "json"], &stamped)),
        shifted,
        "--timestamps --all"
    );
    let zap_first = format!(
        "2026-12-05T10:00:09.000000001Z 2026-12-05T10:00:53.526Z\tINFO\tzapcore/x.go:1\tstarted\n{}",
        lines.iter().map(|l| format!("2026-12-05T10:00:09.000000001Z {l}\n")).collect::<String>()
    );
    let f = d.write("zap-first.log", &zap_first);
    for extra in [&[][..], &["--all"][..], &["--threads", "2"][..]] {
        let args: Vec<&str> =
            ["--unknown", "warn", "--format", "json", &f].into_iter().chain(extra.iter().copied()).collect();
        assert_eq!(got(&d.events(&args, "")), shifted, "{extra:?}");
    }
    // `any` reads the INFO lines' level too, and clusters them without it.
    let any = d.events(&["--unknown", "any", "--format", "json", &file], "");
    let first = any.iter().find(|e| e["source"]["line"] == 1).expect("line 1");
    assert_eq!(first["log"]["level"], "INFO");
    assert_eq!(unknown(first).unwrap().1, "Started server process [<*>]");
}

/// A known error's value printed after it, all that was left of the chain once the records
/// matched (psql's `table or source not found: t_orders` over a record's `table {} not found`),
/// was clustered as an unknown error: a cluster per table name (`t_orders`), or one of values.
/// One quoted word, or one lower-case word with a digit or a name's punctuation in it, after
/// a known error that is not a wrapper over it, is that error's value now; a word of letters
/// alone (`timeout`), one with capitals or brackets (a second reader's `java.net.…Exception`,
/// `ERR_…`, `Io(Kind(…))`), several words, and a wrapper's cause are still unknown errors.
#[test]
fn regression_a_known_errors_value_after_it_is_not_an_unknown_error() {
    let d = Dir::new();
    let table = d.write(
        "table.jsonl",
        r#"{"id":"c-table","slug":"table-not-found","severity":"error","errorMessage":"table {} not found","messagePattern":"table (.+?) not found"}
"#,
    );
    let lines = [
        error(1, "failed to inject barrier error=Storage error: table or source not found: t_orders"),
        error(2, "failed to inject barrier error=table or source not found: public.t_orders_2"),
        error(3, "failed to inject barrier error=table or source not found: timeout"),
        error(4, "failed to inject barrier error=table or source not found: the catalog is being rebuilt"),
        error(5, "failed to inject barrier error=Storage error: disk_full"),
        error(6, "failed to inject barrier error=Storage error: timeout"),
        // A quoted name is a value; a class, a code or a `Debug` variant is an error's shape.
        error(7, "failed to inject barrier error=table or source not found: \"Orders\""),
        error(8, "failed to inject barrier error=table or source not found: java.net.ConnectException"),
        error(9, "failed to inject barrier error=table or source not found: ERR_CONNECTION_REFUSED"),
        error(10, "failed to inject barrier error=table or source not found: Io(Kind(BrokenPipe))"),
    ];
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let evs = d.events(&["-c", &table, "--unknown", "warn", "--format", "json"], &input);
    let got: Vec<(u64, Option<&str>)> =
        evs.iter().map(|e| (e["source"]["line"].as_u64().unwrap(), unknown(e).map(|u| u.1))).collect();
    assert_eq!(
        got,
        [
            (1, None),
            (2, None),
            (3, Some("timeout")),
            (4, Some("the catalog is being rebuilt")),
            (5, Some("disk_full")),
            (6, Some("timeout")),
            (7, None),
            (8, Some("java.net.ConnectException")),
            (9, Some("ERR_CONNECTION_REFUSED")),
            (10, Some("Io(Kind(BrokenPipe))")),
        ],
        "{evs:#?}"
    );
    // A psql paste: the numbered causes are the chain's links.
    let psql = "ERROR:  Failed to run the query\n\nCaused by these errors (recent errors listed first):\n  1: Storage error\n  2: table or source not found: t_orders\n";
    let evs = d.events(&["-c", &table, "--unknown", "warn", "--format", "json"], psql);
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!(evs[0]["log"]["level"], "ERROR");
    let ids: Vec<&Value> = std::iter::once(&evs[0]["match"]["id"])
        .chain(evs[0]["also_matched"].as_array().unwrap().iter().map(|m| &m["id"]))
        .collect();
    assert!(ids.contains(&&Value::from("c-table")), "{:#}", evs[0]);
    assert!(unknown(&evs[0]).is_none(), "{:#}", evs[0]);
}

/// An event's level was read by the block that completed it, not the one its first line was
/// framed in: a line longer than a pipe's read (a zap `error` line with a 70 KB message, a
/// psql `FATAL:` line) is a block of its own, the next line's block may read as RisingWave's,
/// and the line was taken from a file but not from standard input.
#[test]
fn regression_a_long_line_from_a_pipe_is_read_as_the_block_it_was_framed_in() {
    let d = Dir::new();
    let input = format!(
        "2026-12-05T10:00:00.100Z\terror\tdisk full {}\nnext\nFATAL:  out of {} slots\nnext\n",
        "x".repeat(70_000),
        "y".repeat(70_000)
    );
    let file = d.write("long.log", &input);
    let got = |evs: &[Value]| -> Vec<u64> {
        evs.iter().filter(|e| unknown(e).is_some()).map(|e| e["source"]["line"].as_u64().unwrap()).collect()
    };
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json", &file], "")), [1, 3]);
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json"], &input)), [1, 3], "standard input");
}

/// Standard input written in pieces, a pause between them, so that each is a block of its own.
fn piped_in_pieces(d: &Dir, args: &[&str], pieces: &[String]) -> Vec<Value> {
    let mut child = cmd()
        .arg("-c")
        .arg(d.catalog())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for p in pieces {
        stdin.write_all(p.as_bytes()).unwrap();
        stdin.flush().unwrap();
        // Well under the idle timeout (100 ms), which would complete the open event.
        std::thread::sleep(Duration::from_millis(40));
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    events(&out.stdout)
}

/// The same review found that reading an event's level by its first line's block alone lost
/// two events the block that completed them had caught: a klog error at the end of a
/// RisingWave block whose lines go on into a block of the Go program's own, and a CRI record
/// split into partial ones whose last came in a block of its own. Any block an event's lines
/// were framed in, or that completes it, reads it as another program's.
#[test]
fn regression_an_event_across_blocks_is_read_as_any_of_its_blocks_read_it() {
    let d = Dir::new();
    let detail = |i: usize| format!("\tgoroutine detail line {i} of the reconcile failure\n");
    let mut a: String = (0..20).map(|i| format!("{}\n", info(i % 10, "tick"))).collect();
    a.push_str("E1205 10:00:01.000000       1 controller.go:42] reconcile failed for pod risingwave-compute-0\n");
    a.extend((0..10).map(detail));
    let mut b: String = (10..12).map(detail).collect();
    b.extend((0..12).map(|i| format!("I1205 10:00:02.{i:06}       1 controller.go:50] synced {i}\n")));
    let lines = |evs: &[Value]| -> Vec<u64> {
        evs.iter().filter(|e| unknown(e).is_some()).map(|e| e["source"]["line"].as_u64().unwrap()).collect()
    };
    let file = d.write("go.log", &(a.clone() + &b));
    assert_eq!(lines(&d.events(&["--unknown", "warn", "--format", "json", &file], "")), [21]);
    assert_eq!(lines(&piped_in_pieces(&d, &["--unknown", "warn", "--format", "json"], &[a, b])), [21], "in pieces");
    let k = |s: u32, i: u32| {
        format!("2026-12-05T10:00:0{s}.{i:09}Z stderr F I1205 10:00:0{s}.000000       1 controller.go:50] synced {i}\n")
    };
    let mut a: String = (0..10).map(|i| k(1, i)).collect();
    a.push_str(&format!(
        "2026-12-05T10:00:02.000000000Z stderr P E1205 10:00:02.000000       1 controller.go:42] reconcile failed {}\n",
        "x".repeat(100)
    ));
    let b = "2026-12-05T10:00:02.000000001Z stderr F tail of the reconcile failure\n".to_owned();
    let c: String = (0..10).map(|i| k(3, i)).collect();
    let file = d.write("cri.log", &format!("{a}{b}{c}"));
    assert_eq!(lines(&d.events(&["--unknown", "warn", "--format", "json", &file], "")), [11]);
    assert_eq!(lines(&piped_in_pieces(&d, &["--unknown", "warn", "--format", "json"], &[a, b, c])), [11], "in pieces");
}

/// psql prints an error's `LINE 1:` (with a caret under it), `DETAIL:` and `HINT:` lines below
/// its `ERROR:` line: each was an event of its own, the error without its hint. They are the
/// error's event now, and its message (clustered) is the `ERROR:` line's.
#[test]
fn regression_psqls_detail_and_hint_lines_are_part_of_its_error() {
    let d = Dir::new();
    let paste = "dev=> select x from t;\nERROR:  column \"x\" does not exist\nLINE 1: select x from t;\n               ^\nHINT:  Perhaps you meant to reference the column \"t.y\".\ndev=> insert into t values (1);\nERROR:  duplicate key value violates unique constraint \"t_pkey\"\nDETAIL:  Key (id)=(1) already exists.\nWARNING:  there is no transaction in progress\n";
    let file = d.write("psql.log", paste);
    let got = clustered;
    let want = [
        (2, 4, "column <*> does not exist"),
        (7, 2, "duplicate key value violates unique constraint <*>"),
        (9, 1, "there is no transaction in progress"),
    ]
    .map(|(l, n, t)| (l, n, t.to_owned()));
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json", &file], "")), want);
    assert_eq!(got(&d.events(&["--unknown", "warn", "--format", "json"], paste)), want, "standard input");
    let evs = d.events(&["--unknown", "warn", "--format", "json", &file], "");
    assert!(
        evs[0]["message"].as_str().unwrap().ends_with("HINT:  Perhaps you meant to reference the column \"t.y\"."),
        "{:#}",
        evs[0]
    );
}

/// PostgreSQL's server log (the CDC source's database: `%m [%p] `, its default prefix) was read
/// as a dated line with nothing after the time understood: its zone word was left out of
/// `@timestamp` (a UTC time written without a zone), `UTC [<*>] LOG:` led every `any` template,
/// `LOG` and `PANIC` were no levels (a log that starts with `LOG:` lines was not read as
/// another program's, so its `FATAL` lines went unclustered), and the dated `STATEMENT:` and
/// `DETAIL:` lines below an error were events of their own.
#[test]
fn regression_a_postgres_server_logs_zone_pid_levels_and_details_are_read() {
    let d = Dir::new();
    let log = "2026-12-05 10:00:00.123 UTC [1] LOG:  starting PostgreSQL 16.2 on x86_64-pc-linux-gnu\n\
        2026-12-05 10:00:00.130 UTC [1] LOG:  listening on IPv4 address \"0.0.0.0\", port 5432\n\
        2026-12-05 10:00:01.001 UTC [57] ERROR:  relation \"orders\" does not exist at character 15\n\
        2026-12-05 10:00:01.001 UTC [57] STATEMENT:  SELECT *\n\
        \t  FROM orders\n\
        2026-12-05 10:00:02.500 UTC [58] FATAL:  replication slot \"rw_slot\" is active for PID 77\n\
        2026-12-05 10:00:02.500 UTC [58] DETAIL:  Slot was last used by PID 77.\n\
        2026-12-05 10:00:02.500 UTC [58] HINT:  Terminate it first.\n\
        2026-12-05 10:00:03.000 +0100 [59] WARNING:  logical decoding slot \"rw_slot\" is inactive\n\
        2026-12-05 10:00:03.000 UTC [60] ERROR:  canceling statement due to user request\n\
        2026-12-05 10:00:03.000 UTC [61] STATEMENT:  SELECT 1\n\
        2026-12-05 10:00:04.000 CET [1] LOG:  checkpoint complete: wrote 3 buffers\n";
    let file = d.write("postgres.log", log);
    type Row = (u64, u64, String, String, Option<String>);
    let got = |evs: &[Value]| -> Vec<Row> {
        evs.iter()
            .map(|e| {
                let s = |v: &Value| v.as_str().unwrap_or("-").to_owned();
                (
                    e["source"]["line"].as_u64().unwrap(),
                    e["source"]["lines"].as_u64().unwrap(),
                    s(&e["@timestamp"]),
                    s(&e["log"]["level"]),
                    unknown(e).map(|u| u.1.to_owned()),
                )
            })
            .collect()
    };
    let row =
        |l, n, ts: &str, level: &str, t: Option<&str>| (l, n, ts.to_owned(), level.to_owned(), t.map(str::to_owned));
    let warn = vec![
        row(3, 3, "2026-12-05T10:00:01.001Z", "ERROR", Some("relation <*> does not exist at character <*>")),
        row(6, 3, "2026-12-05T10:00:02.500Z", "FATAL", Some("replication slot <*> is active for PID <*>")),
        row(9, 1, "2026-12-05T10:00:03.000+01:00", "WARNING", Some("logical decoding slot <*> is inactive")),
        // A detail from another process is not this report's.
        row(10, 1, "2026-12-05T10:00:03.000Z", "ERROR", Some("canceling statement due to user request")),
    ];
    let args = ["--unknown", "warn", "--format", "json"];
    assert_eq!(got(&d.events(&[&args[..], &[&file]].concat(), "")), warn);
    assert_eq!(got(&d.events(&[&args[..], &["--threads", "2", &file]].concat(), "")), warn, "--threads 2");
    let pieces: Vec<String> = log.split_inclusive('\n').map(str::to_owned).collect();
    assert_eq!(got(&piped_in_pieces(&d, &args, &pieces)), warn, "standard input, a line a read");
    // Every line: `LOG` is the level, the zone and process id stay out of the template, a
    // zone whose offset is not known (`CET`) leaves the time without one.
    let any = got(&d.events(&["--unknown", "any", "--format", "json", &file], ""));
    assert_eq!(any[0], row(1, 1, "2026-12-05T10:00:00.123Z", "LOG", Some("starting PostgreSQL <*> on <*>")));
    assert_eq!(any[6], row(11, 1, "2026-12-05T10:00:03.000Z", "-", Some("STATEMENT: SELECT <*>")));
    assert_eq!(any[7], row(12, 1, "2026-12-05T10:00:04.000", "LOG", Some("checkpoint complete: wrote <*> buffers")));
    assert_eq!(any.len(), 8, "{any:#?}");
    // The report's lines are the event's message, as the server wrote them.
    let evs = d.events(&[&args[..], &[&file]].concat(), "");
    assert!(evs[0]["message"].as_str().unwrap().ends_with("STATEMENT:  SELECT *\n\t  FROM orders"), "{:#}", evs[0]);
    // A `FATAL` (no `R`: the skim's marks do not find it) between `LOG` lines alone, which now
    // make the log another program's: it was not clustered.
    let checkpoints = |s: u32| {
        (s..s + 9)
            .map(|i| format!("2026-12-05 10:00:{i:02}.000 UTC [1] LOG:  checkpoint starting: time\n"))
            .collect::<String>()
    };
    let fatal = format!(
        "{}2026-12-05 10:00:30.000 UTC [58] FATAL:  terminating connection due to administrator command\n{}",
        checkpoints(0),
        checkpoints(40)
    );
    let evs = d.events(&[&args[..], &[&d.write("fatal.log", &fatal)]].concat(), "");
    assert_eq!(
        got(&evs),
        vec![row(
            10,
            1,
            "2026-12-05T10:00:30.000Z",
            "FATAL",
            Some("terminating connection due to administrator command")
        )]
    );
}

/// MySQL's error log (the other CDC source's database: `<time> <thread> [<label>] [MY-<code>]
/// [<subsystem>] <message>`) had no level on its `System` and `Note` lines, so a log of them
/// was not read as another program's and a `Warning` among them went unclustered; every
/// template began `[<*>] [Server]`, and the thread, code and subsystem were not read.
#[test]
fn regression_a_mysql_error_logs_thread_label_code_and_subsystem_are_read() {
    let d = Dir::new();
    let ready = |s: u32| {
        (s..s + 9)
            .map(|i| {
                format!("2026-12-05T10:00:{i:02}.000000Z 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '8.0.36'\n")
            })
            .collect::<String>()
    };
    let log = format!(
        "{}2026-12-05T10:00:30.000000Z 9 [Warning] [MY-010055] [Server] IP address '10.0.0.7' could not be resolved: Name or service not known\n\
         2026-12-05T10:00:31.000000Z 12 [ERROR] [MY-013183] [InnoDB] Assertion failure: btr0cur.cc:336 thread 140\n\
         2026-12-05T10:00:32.000000Z 15 [Note] [MY-010914] [Server] Aborted connection 15 to db: 'shop' user: 'rw' host: '10.0.0.8'\n{}",
        ready(0),
        ready(40)
    );
    let file = d.write("mysql.log", &log);
    let row = |e: &Value| {
        let s = |v: &Value| v.as_str().unwrap_or("-").to_owned();
        let l = &e["log"];
        (
            e["source"]["line"].as_u64().unwrap(),
            [s(&l["level"]), s(&l["target"]), s(&l["thread"]), s(&l["fields"]["code"])],
            unknown(e).map(|u| u.1.to_owned()),
        )
    };
    let want = |line, fields: [&str; 4], t: &str| (line, fields.map(str::to_owned), Some(t.to_owned()));
    let warn = vec![
        want(
            10,
            ["Warning", "Server", "9", "MY-010055"],
            "IP address <*> could not be resolved: Name or service not known",
        ),
        want(11, ["ERROR", "InnoDB", "12", "MY-013183"], "Assertion failure: <*>:<*> thread <*>"),
    ];
    for extra in [&[][..], &["--threads", "2"][..]] {
        let evs = d.events(&[&["--unknown", "warn", "--format", "json"][..], extra, &[&file]].concat(), "");
        assert_eq!(evs.iter().map(row).collect::<Vec<_>>(), warn, "{extra:?}");
    }
    let any = d.events(&["--unknown", "any", "--format", "json", &file], "");
    assert_eq!(any.len(), 21);
    assert_eq!(
        row(&any[0]),
        want(1, ["System", "Server", "0", "MY-010931"], "<*>: ready for connections. Version: <*>")
    );
    assert_eq!(
        row(&any[11]),
        want(12, ["Note", "Server", "15", "MY-010914"], "Aborted connection <*> to db: <*> user: <*> host: <*>")
    );
}

/// The same review found three places that still took every dated line to start an event,
/// where a PostgreSQL report's detail line does not: a file read on several threads was cut at
/// a detail line (the report lost its details with `--threads 2`, the default on a multi-core
/// node); framing only around a hit walked back no further than a detail line (a record
/// matching the detail gave a one-line event without the report's level, where `--all` gave
/// the whole report); and `--follow` completed a report while its detail line was half
/// written (tests/follow_inprocess.rs).
#[test]
fn regression_a_postgres_report_is_one_event_whatever_the_threads_and_the_framing() {
    let d = Dir::new();
    let report = |pid: u32| {
        format!(
            "2026-12-05 10:00:01.001 UTC [{pid}] ERROR:  could not send data to the client\n\
             2026-12-05 10:00:01.001 UTC [{pid}] DETAIL:  barrier collection failed for actor {pid}\n\
             2026-12-05 10:00:01.001 UTC [{pid}] STATEMENT:  SELECT * FROM orders WHERE id = {pid}\n"
        )
    };
    let rows = |evs: &[Value]| -> Vec<(u64, u64, String)> {
        evs.iter()
            .map(|e| {
                let level = e["log"]["level"].as_str().unwrap_or("-").to_owned();
                (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap(), level)
            })
            .collect()
    };
    // A hit in the detail line: the report is the event, with its level, in every mode.
    let small = d.write("two.log", &(1..=2).map(report).collect::<String>());
    let want = vec![(1, 3, "ERROR".to_owned()), (4, 3, "ERROR".to_owned())];
    for args in [&["--format", "json"][..], &["--all", "--format", "json"], &["--unknown", "warn", "--format", "json"]]
    {
        assert_eq!(rows(&d.events(&[args, &[&small]].concat(), "")), want, "{args:?}");
    }
    // About 5 MiB of reports, so that a file read on several threads is cut in several places.
    let text: String = (1..=20_000).map(report).collect();
    let big = d.write("reports.log", &text);
    let one = rows(&d.events(&["--unknown", "warn", "--format", "json", "--threads", "1", &big], ""));
    assert_eq!(one.len(), 20_000);
    assert!(one.iter().all(|r| r.1 == 3), "{:?}", one.iter().find(|r| r.1 != 3));
    for threads in ["2", "4"] {
        let got = rows(&d.events(&["--unknown", "warn", "--format", "json", "--threads", threads, &big], ""));
        assert!(got == one, "--threads {threads}: {:?}", got.iter().zip(&one).find(|(a, b)| a != b));
    }
    assert!(rows(&d.events(&["--unknown", "warn", "--format", "json"], &text)) == one, "standard input");
}

/// Regression (found by an on-call reader): a Python traceback pasted under a `kubectl get
/// events` listing continued its last `Warning` row, read as a program's dated line at WARN, and
/// the exception at its end was never clustered. A row's `Warning` is the event's type: the
/// traceback is an event of its own.
#[test]
fn regression_a_traceback_below_a_kubernetes_event_row_is_its_own_event() {
    let d = Dir::new();
    let text = "3m          Warning   BackOff     pod/risingwave-compute-1     Back-off restarting failed container compute in pod risingwave-compute-1_risingwave(5678)\n\
        Traceback (most recent call last):\n\
        \x20 File \"/app/udf.py\", line 42, in <module>\n\
        \x20   import numpyy\n\
        ModuleNotFoundError: No module named 'numpyy'\n";
    let evs = d.events(&["--unknown", "any", "--format", "json"], text);
    let got: Vec<(u64, u64, Option<&str>)> = evs
        .iter()
        .map(|e| {
            (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap(), unknown(e).map(|u| u.1))
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, 1, Some("Back-off restarting failed container compute in pod <*>(<*>)")),
            (2, 4, Some("ModuleNotFoundError: No module named <*>")),
        ],
        "{evs:?}"
    );
}

/// `kubectl get events` and the `Events:` of `kubectl describe pod`, the first things an
/// operator pastes in an incident (a compute node OOM-killed, a meta pod that cannot be
/// scheduled), were plain lines: no level, so `--unknown warn` took none of their `Warning`
/// rows, and every template began with the row's age and object.
#[test]
fn regression_kubernetes_event_listings_have_their_type_as_level() {
    let d = Dir::new();
    let get = "LAST SEEN   TYPE      REASON             OBJECT                        MESSAGE\n\
        12m         Normal    Scheduled          pod/risingwave-compute-0      Successfully assigned risingwave/risingwave-compute-0 to node-3\n\
        11m         Warning   BackOff            pod/risingwave-compute-0      Back-off restarting failed container compute in pod risingwave-compute-0_risingwave(5b0c)\n\
        9m          Warning   OOMKilling         node/node-3                   Memory cgroup out of memory: Killed process 4121 (risingwave)\n\
        8m          Normal    Pulled             pod/risingwave-compute-0      Container image \"risingwavelabs/risingwave:v2.1.0\" already present on machine\n";
    let all = "NAMESPACE    LAST SEEN   TYPE      REASON             OBJECT                  MESSAGE\n\
        risingwave   10m         Warning   FailedScheduling   pod/risingwave-meta-1   0/3 nodes are available: 3 Insufficient memory.\n";
    let describe = "Name:             risingwave-compute-0\n\
        Namespace:        risingwave\n\
        Events:\n\
        \x20 Type     Reason     Age                   From               Message\n\
        \x20 ----     ------     ----                  ----               -------\n\
        \x20 Normal   Scheduled  12m                   default-scheduler  Successfully assigned risingwave/risingwave-compute-0 to node-3\n\
        \x20 Warning  BackOff    3m12s (x25 over 10m)  kubelet            Back-off restarting failed container compute in pod risingwave-compute-0_risingwave(5b0c)\n";
    type Row = (u64, String, String, String, String);
    let rows = |evs: &[Value]| -> Vec<Row> {
        evs.iter()
            .map(|e| {
                let s = |v: &Value| v.as_str().unwrap_or("-").to_owned();
                let l = &e["log"];
                let t = unknown(e).map_or("-".to_owned(), |u| u.1.to_owned());
                (e["source"]["line"].as_u64().unwrap(), s(&l["level"]), s(&l["target"]), s(&l["fields"]["object"]), t)
            })
            .collect()
    };
    let row = |line, level: &str, reason: &str, object: &str, t: &str| {
        (line, level.into(), reason.into(), object.into(), t.into())
    };
    let back_off = "Back-off restarting failed container compute in pod <*>(<*>)";
    for (name, text, want) in [
        (
            "get.log",
            get,
            vec![
                row(3, "Warning", "BackOff", "pod/risingwave-compute-0", back_off),
                row(
                    4,
                    "Warning",
                    "OOMKilling",
                    "node/node-3",
                    "Memory cgroup out of memory: Killed process <*> (risingwave)",
                ),
            ],
        ),
        (
            "all.log",
            all,
            vec![row(
                2,
                "Warning",
                "FailedScheduling",
                "pod/risingwave-meta-1",
                "<*> nodes are available: <*> Insufficient memory.",
            )],
        ),
        ("describe.log", describe, vec![row(7, "Warning", "BackOff", "kubelet", back_off)]),
    ] {
        let file = d.write(name, text);
        assert_eq!(rows(&d.events(&["--unknown", "warn", "--format", "json", &file], "")), want, "{name}");
        assert_eq!(rows(&d.events(&["--unknown", "warn", "--format", "json"], text)), want, "{name} on standard input");
    }
    // Every row: a `Normal` one has its level too, and its message is what is clustered.
    let any = rows(&d.events(&["--unknown", "any", "--format", "json", &d.write("get.log", get)], ""));
    assert_eq!(any[1], row(2, "Normal", "Scheduled", "pod/risingwave-compute-0", "Successfully assigned <*> to <*>"));
}

/// A second review of the PostgreSQL reading: a detail from a server in another pod joined a
/// report whose process had the same id (`kubectl logs --prefix` of two replicas); a zone
/// abbreviation outside annotail's list (`SAST`) left the line unread; and `UTC` followed by
/// more of the prefix than a process id (`%m %u@%d `) lost the zone from `@timestamp` and the
/// report its statement.
#[test]
fn regression_a_postgres_detail_joins_only_its_own_pods_report() {
    let d = Dir::new();
    let log = "[pod/pg-0/postgres] 2026-12-05 10:00:01.001 UTC [57] ERROR:  duplicate key value violates unique constraint\n\
        [pod/pg-1/postgres] 2026-12-05 10:00:01.001 UTC [57] DETAIL:  Key (id)=(1) already exists.\n\
        [pod/pg-1/postgres] 2026-12-05 10:00:02.001 SAST [58] ERROR:  relation \"t\" does not exist\n\
        [pod/pg-1/postgres] 2026-12-05 10:00:02.001 SAST [58] STATEMENT:  select * from t\n\
        [pod/pg-1/postgres] 2026-12-05 10:00:03.001 UTC rw@dev ERROR:  relation \"u\" does not exist\n\
        [pod/pg-1/postgres] 2026-12-05 10:00:03.001 UTC rw@dev STATEMENT:  select * from u\n";
    let file = d.write("pods.log", log);
    let got: Vec<(u64, u64, String, String)> = d
        .events(&["--all", "--format", "json", &file], "")
        .iter()
        .map(|e| {
            let s = |v: &Value| v.as_str().unwrap_or("-").to_owned();
            (
                e["source"]["line"].as_u64().unwrap(),
                e["source"]["lines"].as_u64().unwrap(),
                s(&e["@timestamp"]),
                s(&e["log"]["level"]),
            )
        })
        .collect();
    let want = [
        (1, 1, "2026-12-05T10:00:01.001Z", "ERROR"),
        (2, 1, "2026-12-05T10:00:01.001Z", "-"),
        (3, 2, "2026-12-05T10:00:02.001", "ERROR"),
        (5, 2, "2026-12-05T10:00:03.001Z", "ERROR"),
    ]
    .map(|(l, n, t, v)| (l, n, t.to_owned(), v.to_owned()));
    assert_eq!(got, want);
}

/// Regressions (found by a second reader): `discover --max-clusters` bounded the clusterer but
/// not the report, which kept every kind it had met (a day of `kubectl logs -f … | annotail
/// discover` grows without end); `discover --unknown off` was taken as `warn`; and a cap of 0
/// was taken as 1. The report now keeps as many clusters as the clusterer, says how many it
/// dropped, and the options refuse what makes no sense.
#[test]
fn regression_discover_keeps_its_report_to_max_clusters_and_refuses_off() {
    let d = Dir::new();
    let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
    let mut input = String::new();
    // Ten kinds (their second word differs), then the first two again.
    for (i, w) in words.iter().chain(&words[..2]).enumerate() {
        input.push_str(&warn(i as u32, &format!("the {w} kind broke down completely")));
        input.push('\n');
    }
    let file = d.write("kinds.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", "--max-clusters", "4", &file], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reports = events(&out.stdout);
    let mut templates: Vec<&str> = reports.iter().map(|r| r["template"].as_str().unwrap()).collect();
    templates.sort_unstable();
    // At the cap of 4 the least recently seen goes, one at a time (a sixteenth of 4, at least
    // one): the last kinds are left, and the first two, seen again, came back with a count of 1.
    assert_eq!(
        templates,
        [
            "the alpha kind broke down completely",
            "the bravo kind broke down completely",
            "the india kind broke down completely",
            "the juliet kind broke down completely"
        ],
        "{reports:#?}"
    );
    assert!(reports.iter().all(|r| r["count"] == 1), "{reports:#?}");
    let err = stderr_of(&out);
    assert!(err.contains("8 cluster(s) were dropped at --max-clusters"), "{err}");
    // Without the cap every kind is there, the first two twice.
    let all = events(&run(&["discover", "-c", &d.catalog(), "--format", "json", &file], b"").stdout);
    assert_eq!(all.len(), 10);
    assert_eq!(all.iter().map(|r| r["count"].as_u64().unwrap()).sum::<u64>(), 12);
    for bad in [
        vec!["discover", "--unknown", "off", file.as_str()],
        vec!["discover", "--max-clusters", "0", file.as_str()],
        vec!["--unknown", "warn", "--unknown-max-clusters", "0", file.as_str()],
        // A negative number is read as the value (clap took it for an option and suggested
        // `-- -1`, which left the option without a value: found by a second reader).
        vec!["--unknown", "warn", "--unknown-max-clusters", "-1", file.as_str()],
        vec!["discover", "--max-clusters", "-1", file.as_str()],
    ] {
        let out = run(&bad, b"");
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(err.contains("invalid value"), "{bad:?}: {err}");
        if bad[0] != "discover" || bad[1] != "--unknown" {
            assert!(err.contains("a whole number of clusters, 1 or more"), "{bad:?}: {err}");
        }
    }
    let config = d.write("zero.toml", "[unknown]\nlevels = \"warn\"\nmax_clusters = 0\n");
    let out = run(&["--config", config.as_str(), file.as_str()], b"");
    assert!(!out.status.success());
    assert!(stderr_of(&out).contains("unknown.max_clusters: must be 1 or more"), "{}", stderr_of(&out));
}

/// Regressions (found by a second reader): drafts that did not match the lines they came from.
/// Bytes that are not UTF-8 in a constant word were written into the draft as U+FFFD, which
/// matches only itself; a JSON line's message with tabs in it drafted single blanks (its
/// examples are the lines, where a tab is `\t`); and a list that a token goes on after
/// (`[7, 2].x`) drafted a blank before the rest.
#[test]
fn regression_drafts_match_lines_with_bad_utf8_json_tabs_and_a_list_inside_a_token() {
    let d = Dir::new();
    let mut input: Vec<u8> = Vec::new();
    for n in 1..=2u32 {
        input.extend_from_slice(warn(n, "failed to frobnicate widget ").as_bytes());
        input.extend_from_slice(b"\xff\xfe caf\xc3 now\n");
        let json = format!(
            "{{\"timestamp\":\"2026-03-02T08:00:1{n}Z\",\"level\":\"WARN\",\"fields\":{{\"message\":\"tab\\tseparated\\twords gate {n}\"}},\"target\":\"risingwave_meta::x\"}}\n"
        );
        input.extend_from_slice(json.as_bytes());
        input.extend_from_slice(warn(20 + n, &format!("list end [{n}, 2].x then gate")).as_bytes());
        input.push(b'\n');
    }
    let p = d.dir.path().join("drafted.log");
    std::fs::write(&p, &input).unwrap();
    let file = path_str(&p);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let drafts = events(&out.stdout);
    assert_eq!(drafts.len(), 3, "{drafts:#?}");
    let drafts_file = d.write("drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    let check = run(&["check", "-c", &d.catalog(), "-c", &drafts_file], b"");
    assert!(check.status.success(), "{}", stderr_of(&check));
    let evs = d.events(&["-c", &drafts_file, "--unknown", "warn", "--format", "json", &file], "");
    assert_eq!(evs.len(), 6, "{evs:#?}");
    let ids: std::collections::HashSet<&str> = drafts.iter().map(|r| r["record"]["id"].as_str().unwrap()).collect();
    for e in &evs {
        let id = e["match"]["id"].as_str();
        assert!(id.is_some_and(|id| ids.contains(id)), "not matched by its draft: {e}");
        assert!(e.get("unknown").is_none(), "{e}");
    }
}

/// `decode utf8 error` was clustered as `decode <*> error` (every word with a digit was masked):
/// its draft matched the decoding errors of every encoding, and tonic's `h2 protocol error:
/// http2 error` read `<*> protocol error: <*> error`. Names of types, encodings and protocols
/// stay in the template and the draft.
#[test]
fn regression_a_draft_keeps_the_names_of_types_and_encodings() {
    let d = Dir::new();
    let mut input = String::new();
    for n in 1..=2u32 {
        for line in [
            warn(n, &format!("decode utf8 error: invalid byte at {n}")),
            warn(10 + n, &format!("cannot parse \"{n}x\" to u64")),
            warn(20 + n, "h2 protocol error: http2 error"),
        ] {
            input.push_str(&line);
            input.push('\n');
        }
    }
    let file = d.write("named.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", &file], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let mut templates: Vec<String> =
        events(&out.stdout).iter().map(|c| c["template"].as_str().unwrap().to_string()).collect();
    templates.sort();
    assert_eq!(
        templates,
        ["<*> protocol error: http2 error", "cannot parse <*> to u64", "decode utf8 error: invalid byte at <*>"],
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let drafts_file = d.write("drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    // Added back, each draft takes its own lines and no other encoding's or type's.
    let others = d.write(
        "others.log",
        &[
            warn(1, "decode utf8 error: invalid byte at 3"),
            warn(2, "decode latin1 error: invalid byte at 3"),
            warn(3, "cannot parse \"7\" to u64"),
            warn(4, "cannot parse \"7\" to date"),
        ]
        .join("\n"),
    );
    let evs = d.events(&["-c", &drafts_file, "--unknown", "warn", "--format", "json", &others], "");
    let matched: Vec<bool> = evs.iter().map(|e| !e["match"].is_null()).collect();
    assert_eq!(matched, [true, false, true, false], "{evs:#?}");
}

/// A second reader's JSON lines at ERROR with an empty, blank or missing message were written
/// nowhere (the same line as text is clustered by its target), and `discover` drafted the text
/// line's cluster as the target's name: added back, that draft made an error of every line the
/// target logged, INFO and DEBUG too.
#[test]
fn regression_lines_with_no_text_are_clustered_by_their_target_and_get_no_draft() {
    let d = Dir::new();
    let json = |sec: u32, fields: &str| {
        format!(
            "{{\"timestamp\":\"2026-03-02T08:00:0{sec}Z\",\"level\":\"ERROR\",\"fields\":{{{fields}}},\"target\":\"risingwave_meta::barrier::rpc\"}}\n"
        )
    };
    let input = [
        json(1, "\"message\":\"\""),
        json(2, "\"message\":\"   \""),
        json(3, ""),
        format!("{}\n", rw_line(4, "ERROR", "risingwave_meta::barrier::rpc", ";")),
        // Fields and no message, as text and as JSON (the text was clustered as `epoch=<*>`).
        format!("{}\n", rw_line(5, "ERROR", "risingwave_meta::barrier::rpc", "epoch=5")),
        json(6, "\"epoch\":5"),
        // Punctuation alone, as `;` is (`...` and `=>` had templates of their own).
        format!("{}\n", rw_line(7, "ERROR", "risingwave_meta::barrier::rpc", "...")),
        format!("{}\n", rw_line(8, "ERROR", "risingwave_meta::barrier::rpc", "=>")),
        json(9, "\"message\":\"...\""),
    ]
    .concat();
    // An error field alone is the event's error, as in JSON (it was clustered as
    // `error=connection refused`).
    let errors = d.write(
        "error-alone.log",
        &[
            format!("{}\n", rw_line(1, "ERROR", "risingwave_meta::barrier::rpc", "error=connection refused")),
            json(2, "\"error\":\"connection refused\""),
        ]
        .concat(),
    );
    let evs = d.events(&["--unknown", "warn", "--format", "json", &errors], "");
    assert_eq!(evs.len(), 2, "{evs:#?}");
    for e in &evs {
        assert_eq!(e["unknown"]["template"], "connection refused", "{e}");
    }
    let file = d.write("untexted.log", &input);
    for threads in ["1", "2"] {
        let evs = d.events(&["--unknown", "warn", "--format", "json", "--threads", threads, &file], "");
        assert_eq!(evs.len(), 9, "{evs:#?}");
        let clusters: Vec<&str> = evs.iter().map(|e| e["unknown"]["cluster"].as_str().unwrap()).collect();
        assert!(clusters.iter().all(|c| *c == clusters[0]), "{evs:#?}");
        assert_eq!(evs[8]["unknown"]["template"], "risingwave_meta::barrier::rpc");
        assert_eq!(evs[8]["unknown"]["count"], 9);
        assert_eq!(evs[4]["log"]["fields"]["epoch"], "5");
    }
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr_of(&out).contains("1 cluster(s) of lines with no text of their own"), "{}", stderr_of(&out));
    // A target with a digit in it is masked in the template (`restore_impl::<*>`): still no
    // draft (a second reader's, which took the target's DEBUG lines as errors).
    let masked = d.write(
        "masked.log",
        &[
            format!("{}\n", rw_line(1, "ERROR", "risingwave_meta::backup_restore::restore_impl::v2", "")),
            format!("{}\n", rw_line(2, "ERROR", "hyper::proto::h1::conn", "-")),
        ]
        .concat(),
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &masked], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr_of(&out).contains("2 cluster(s) of lines with no text of their own"), "{}", stderr_of(&out));
    // A line clustered by its target that joins a cluster of real messages (a logger named like
    // them) leaves that cluster its draft (a third reader's).
    let logger = |msg: &str, name: &str| {
        format!(
            "{{\"timestamp\":\"2026-03-02T08:00:01Z\",\"level\":\"ERROR\",\"message\":\"{msg}\",\"logger\":\"{name}\"}}\n"
        )
    };
    let mixed = d.write(
        "mixed.log",
        &[
            logger("upstream connection refused", "app"),
            logger("upstream connection refused", "app"),
            logger("upstream connection refused", "app"),
            logger("", "upstream connection pool"),
        ]
        .concat(),
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &mixed], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(events(&out.stdout).len(), 1, "{}", stderr_of(&out));
}

/// A second reader's 1.6 million lines of one kind, each logged from a target of its own, took
/// 536 MB in `discover` (with `--max-clusters 1` too), every target named in one 14 MB object.
/// A cluster keeps its first 256 targets and counts the events of the others.
#[test]
fn regression_a_cluster_keeps_its_first_256_targets() {
    let d = Dir::new();
    let input: String = (0..300u32)
        .map(|i| {
            format!("{}\n", rw_line(i, "ERROR", &format!("crate_{i}::sub"), "replication stream failed unexpectedly"))
        })
        .collect();
    let file = d.write("targets.log", &input);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "json", &file], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let reports = events(&out.stdout);
    assert_eq!(reports.len(), 1, "{reports:#?}");
    assert_eq!(reports[0]["count"], 300);
    assert_eq!(reports[0]["targets"].as_array().unwrap().len(), 256);
    assert_eq!(reports[0]["other_target_events"], 44);
    let out = run(&["discover", "-c", &d.catalog(), "--format", "text", &file], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("and 251 more (and 44 event(s) from targets past the first 256)"), "{text}");
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &file], b"");
    let drafts = events(&out.stdout);
    assert_eq!(drafts[0]["discovered"]["targets"].as_array().unwrap().len(), 256);
    assert_eq!(drafts[0]["discovered"]["other_target_events"], 44);
}

/// A second reader's `ERROR … EOF`, `oom`, a message of digits and messages in Chinese and
/// Russian got no cluster (under 4 ASCII letters or digits) and so no event: an unknown
/// ERROR/WARN event was dropped from the JSON output, `--summary` and `discover`.
#[test]
fn regression_short_and_non_ascii_messages_are_clustered_not_dropped() {
    let d = Dir::new();
    let cases = [
        (error(1, "EOF"), Some("EOF")),
        (error(2, "oom"), Some("oom")),
        (error(3, "12345"), Some("<*>")),
        (error(4, "连接数据库失败"), Some("连接数据库失败")),
        (warn(5, "ошибка репликации"), Some("ошибка репликации")),
        // A rest after a known error is still held to the rule: `: ok` is no cause.
        (error(6, "failed to inject barrier: ok"), None),
    ];
    let (_, evs) = d.templates_at_warn(&cases);
    assert_eq!(evs.len(), cases.len(), "every line has its event: {evs:?}");
}

/// A panic named by its location (the record nearest its line in that file) was clustered by
/// what the location left: `thread <*> (<*>) panicked at`, one cluster for the panics of every
/// place, whose draft then matched every panic. And a panic's header alone (its message cut
/// off by an interleaved line) kept the `:` that ends it when the message followed, so the two
/// got two ids.
#[test]
fn regression_a_panic_known_by_location_has_nothing_unknown_and_its_header_alone_joins_it() {
    let info = rw_line(9, "INFO", "risingwave_meta_node::server", "starting leader services");
    let input = format!(
        "thread 'rw-main' (16) panicked at src/meta/src/barrier/worker.rs:850:21:\n\
         called `Result::unwrap()` on an `Err` value: Elapsed(())\n{info}\n\
         thread 'rw-main' (11) panicked at src/meta/src/nowhere/place.rs:1293:30:\n{info}\n\
         thread 'rw-main' (12) panicked at src/meta/src/nowhere/place.rs:1293:30:\n\
         called `Option::unwrap()` on a `None` value\n"
    );
    // The embedded catalog: worker.rs has a record 8 lines from 850; place.rs is no file it knows.
    let out = run(&["--unknown", "warn", "--format", "json"], input.as_bytes());
    assert!(out.status.success(), "{}", stderr_of(&out));
    let evs = events(&out.stdout);
    let at =
        |line: u64| evs.iter().find(|e| e["source"]["line"] == line).unwrap_or_else(|| panic!("line {line}: {evs:?}"));
    assert_eq!(at(1)["match"]["by"], "location", "{}", at(1));
    assert!(at(1).get("unknown").is_none(), "{}", at(1));
    let (lone, whole) = (unknown(at(4)).expect("clustered"), unknown(at(6)).expect("clustered"));
    assert_eq!(lone.0, whole.0, "one place, one cluster: {} {}", at(4), at(6));
    assert_eq!(whole.1, "thread <*> (<*>) panicked at src/meta/src/nowhere/place.rs:<*>:<*>");
}

/// `discover` wrote nothing when one of its inputs could not be read: a rotated-away file among
/// several cost the drafts of all the others. Now the others are reported, and the exit status
/// is still 1.
#[test]
fn regression_discover_reports_the_inputs_it_read_when_another_cannot_be_read() {
    let d = Dir::new();
    let log =
        d.write("a.log", &format!("{}\n{}\n", error(1, "sink writer 7 crashed"), error(2, "sink writer 8 crashed")));
    let missing = path_str(&d.dir.path().join("gone.log"));
    let out = run(&["discover", "-c", &d.catalog(), &missing, &log], b"");
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("sink writer <*> crashed"), "{text}");
    assert!(err.contains("gone.log"), "{err}");
}

/// Regression (found by a second reader): lines whose first words are alike and whose other
/// words are all new (`failed to` and ten random words) made one group of every cluster alive,
/// and each line was compared with every template in it: 25,000 lines took 11.6 s, 50,000 26 s,
/// and `discover` (cap 100,000) was quadratic (74 s). Now a line is compared with the newest
/// templates of its group. The bound is CPU time (utime + stime), not wall time, and generous.
#[test]
fn regression_a_group_of_many_new_kinds_costs_linear_time() {
    let d = Dir::new();
    let mut h: u64 = 0x2545_f491_4f6c_dd1d;
    let mut text = String::new();
    for i in 0..40_000u32 {
        let words: Vec<String> = (0..10)
            .map(|_| {
                h ^= h << 13;
                h ^= h >> 7;
                h ^= h << 17;
                (0..5).map(|k| (b'a' + ((h >> (5 * k)) % 26) as u8) as char).collect()
            })
            .collect();
        text.push_str(&warn(i % 60, &format!("failed to {}", words.join(" "))));
        text.push('\n');
    }
    let log = d.write("storm.log", &text);
    let out_path = d.dir.path().join("out.json");
    let (out, cpu) = common::run_cpu_timed(
        &["-c", &d.catalog(), "--unknown", "warn", "--threads", "1", "--format", "json", &log],
        &out_path,
    );
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(events(&std::fs::read(&out_path).unwrap()).len(), 40_000);
    assert!(cpu < common::cpu_bound(6.0), "{cpu:.2} s of CPU for 40,000 lines of new kinds");
    let (out, cpu) = common::run_cpu_timed(&["discover", "-c", &d.catalog(), "--format", "json", &log], &out_path);
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(cpu < common::cpu_bound(8.0), "{cpu:.2} s of CPU for discover on 40,000 lines of new kinds");
}

/// Regression (found by a second reader): with `kubectl logs -f -l … --prefix` (README's own
/// command) the pods' lines interleave, and one pod's `Caused by:` list went into the event of
/// the other pod's next line (its cause clustered there, its own event cut to one line); in a
/// container's CRI log file a panic's message on stderr went into an ERROR event on stdout.
/// An event's lines now come from one pod, container and stream.
#[test]
fn regression_an_event_takes_no_line_of_another_pod_or_stream() {
    let d = Dir::new();
    let (a, b) = ("[pod/risingwave-meta-0/meta] ", "[pod/risingwave-meta-1/meta] ");
    let info = rw_line(5, "INFO", "risingwave_meta_node::server", "starting leader services");
    let log = format!(
        "{a}{}\n{b}{info}\n{a}\n{a}Caused by:\n{a}    disk quota exceeded on volume 7\n{b}{info}\n",
        error(5, "sink writer 7 crashed")
    );
    let file = d.write("pods.log", &log);
    let evs = d.events(&["--all", "--unknown", "warn", "--format", "json", &file], "");
    let got: Vec<(u64, u64, &str)> = evs
        .iter()
        .map(|e| {
            let pod = e["log"]["kubernetes"]["pod"].as_str().unwrap();
            (e["source"]["line"].as_u64().unwrap(), e["source"]["lines"].as_u64().unwrap(), pod)
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, 1, "risingwave-meta-0"),
            (2, 1, "risingwave-meta-1"),
            (3, 3, "risingwave-meta-0"),
            (6, 1, "risingwave-meta-1")
        ]
    );
    assert!(
        evs.iter().all(|e| !e["message"].as_str().unwrap().contains("INFO") || e.get("unknown").is_none()),
        "{evs:?}"
    );
    // A CRI file: stdout's ERROR, then stderr's panic and its message.
    let cri = format!(
        "2026-03-02T08:00:01.1Z stdout F {}\n2026-03-02T08:00:01.2Z stderr F thread 'rw-main' (11) panicked at src/meta/src/nowhere/place.rs:12:5:\n\
         2026-03-02T08:00:01.3Z stderr F called `Option::unwrap()` on a `None` value\n2026-03-02T08:00:01.4Z stdout F   a line of the stdout event\n",
        error(1, "sink writer 7 crashed")
    );
    let file = d.write("meta-0_rw_meta-0123.log", &cri);
    let evs = d.events(&["--all", "--unknown", "warn", "--format", "json", &file], "");
    let got: Vec<(u64, u64, &str)> = evs
        .iter()
        .map(|e| {
            (
                e["source"]["line"].as_u64().unwrap(),
                e["source"]["lines"].as_u64().unwrap(),
                e["log"]["stream"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, [(1, 1, "stdout"), (2, 2, "stderr"), (4, 1, "stdout")], "{evs:?}");
}

/// Regression (found by a second reader): a JSON line that does not parse lost its level, so an
/// unknown ERROR was neither written nor clustered: one cut at `--max-line-bytes` (a cut text
/// line is kept, `truncated`), one with a lone surrogate escape (`\udcff`, which Python writes
/// for bytes that are not UTF-8), one nested deeper than the parser goes. It is read as it is
/// now: its level and message strings.
#[test]
fn regression_a_json_line_that_does_not_parse_keeps_its_level_and_message() {
    let d = Dir::new();
    let cut = format!(
        r#"{{"timestamp":"2026-03-02T08:00:01.1Z","level":"ERROR","fields":{{"message":"disk quota exceeded on volume 7 {}"}},"target":"risingwave_storage"}}"#,
        "x".repeat(400)
    );
    let surrogate = r#"{"timestamp":"2026-03-02T08:00:02.1Z","level":"ERROR","fields":{"message":"cannot open file \udcff.parquet"},"target":"risingwave_storage"}"#;
    let deep = format!(
        r#"{{"timestamp":"2026-03-02T08:00:03.1Z","level":"WARN","fields":{{"message":"deep nest failed","x":{}1{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    // Its own level and message, not a nested object's (a third reader's: an INFO line came out
    // as an ERROR of `old upstream state`).
    let nested =
        r#"{"upstream":{"level":"error","msg":"old upstream state"},"level":"info","msg":"served \ud800 fine"}"#;
    let input = format!("{cut}\n{surrogate}\n{deep}\n{nested}\n");
    let evs = d.events(&["--unknown", "warn", "--format", "json", "--max-line-bytes", "256"], &input);
    let got: Vec<(u64, &str, &str)> = evs
        .iter()
        .map(|e| {
            let t = e["unknown"]["template"].as_str().unwrap_or("-");
            (e["source"]["line"].as_u64().unwrap(), e["log"]["level"].as_str().unwrap_or("-"), t)
        })
        .collect();
    assert_eq!(got.len(), 3, "{evs:?}");
    assert_eq!(got[0].1, "ERROR");
    assert!(got[0].2.starts_with("disk quota exceeded on volume <*>"), "{got:?}");
    let any = d.events(&["--unknown", "any", "--format", "json"], &format!("{nested}\n"));
    assert_eq!(
        (any[0]["log"]["level"].as_str(), unknown(&any[0]).map(|u| u.1)),
        (Some("info"), Some("served <*> fine"))
    );
    assert_eq!(&got[1..], [(2, "ERROR", "cannot open file <*>"), (3, "WARN", "deep nest failed")]);
    assert!(evs.iter().all(|e| e["log"]["parse_error"].is_string()), "{evs:?}");
}

/// Regression (found by a second reader): an unknown cause inside a `{:?}`-printed string kept
/// its escaped quotes, so a struct in it (`S3Error { code: \"SlowDown\" }`) did not mask as one
/// value and the string's closing quote stayed on: the same error was `… => <*> {<*>` quoted
/// and `… => <*>` not.
#[test]
fn regression_a_cause_inside_a_debug_string_clusters_as_it_does_outside_one() {
    let d = Dir::new();
    let want = Some("RateLimited (temporary) at write => <*>");
    let quoted =
        r#""RateLimited (temporary) at write => S3Error { code: \"SlowDown\", message: \"Please slow down.\" }""#;
    let plain = r#"RateLimited (temporary) at write => S3Error { code: "SlowDown", message: "Please slow down." }"#;
    let cases = [
        (error(1, &format!("failed to inject barrier: {quoted}")), want),
        (error(2, &format!("failed to inject barrier: {plain}")), want),
    ];
    let (_, evs) = d.templates_at_warn(&cases);
    assert_eq!(unknown(&evs[0]).unwrap().0, unknown(&evs[1]).unwrap().0);
}

/// An ERROR line with no text at all (its target's colon ends it, over a backtrace) was
/// clustered by its target's name read as the message; once the message was read as empty it
/// was dropped (a third reader). It is clustered by its target.
#[test]
fn regression_an_error_with_an_empty_message_is_clustered_by_its_target() {
    let d = Dir::new();
    let input =
        format!("{}\nBacktrace:\n   0: start_thread\n", rw_line(1, "ERROR", "risingwave_meta::x", "").trim_end());
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(unknown(&evs[0]).map(|u| u.1), Some("risingwave_meta::x"));
}

/// Regression (found by a second reader): the `key=value` fields that end a message's last line
/// above a backtrace were neither read (`log.fields` null) nor kept out of the template, so
/// `operation timed out epoch=<*>` was a cluster apart from `operation timed out`.
#[test]
fn regression_fields_above_a_backtrace_are_read_and_stay_out_of_the_template() {
    let d = Dir::new();
    let input = format!(
        "{}\n timed out waiting for the lease epoch=10176618178019328\n\nBacktrace:\n   0: start_thread\n             at ./nptl/pthread_create.c:447:8\n{}\n",
        warn(1, "zz checkpoint stalled, task:"),
        warn(2, "zz checkpoint stalled, task: timed out waiting for the lease epoch=10176618178019329"),
    );
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    assert_eq!(evs.len(), 2, "{evs:?}");
    for e in &evs {
        assert_eq!(e["log"]["fields"]["epoch"].as_str().map(|v| v.len()), Some(17), "{e}");
    }
    assert_eq!(unknown(&evs[0]).map(|u| u.0), unknown(&evs[1]).map(|u| u.0), "{evs:?}");
}

/// Regressions from a catalog maintainer's second reading of the discover → drafts → `-c` loop:
/// drafts that missed the lines they came from, and a second round whose drafts took the first
/// round's ids and slugs.
#[test]
fn regression_drafts_explain_their_lines_and_a_second_round_takes_no_id_or_slug_of_the_first() {
    let d = Dir::new();
    // Each case: the lines, then the captures of the first line when its draft matches it (a
    // line its draft cannot match has `None`).
    type Case<'a> = (&'a str, &'a [Option<&'a [(&'a str, &'a str)]>]);
    let cases: &[Case] = &[
        // A plain line's `X: {}`: its value was taken for a wrapper's cause and clustered, a
        // cluster (and on the next round a draft) for each value.
        (
            "Processing the event EventType: JOB_SETUP\nProcessing the event EventType: TASK_ABORT\n",
            &[Some(&[("_1", "JOB_SETUP")]), Some(&[("_1", "TASK_ABORT")])],
        ),
        // A template that ends at a key whose value is empty in every line: the draft ended
        // before its `=` and matched none (found by a reader comparing the drafts).
        (
            "conn closed reason=eof peer=\nconn closed reason=rst peer=\n",
            &[Some(&[("_1", "eof")]), Some(&[("_1", "rst")])],
        ),
        // The rest of a plain line after a trailing capture that stops at a ` key=` (a plain line
        // has no fields): it was clustered once the `: {}` was no wrapper (found by a reader
        // comparing the drafts before and after).
        (
            "request failed for: Intent { flg=1 }\nrequest failed for: Intent { flg=2 }\nrequest failed for: Intent { cat=3 }\n",
            &[Some(&[]), Some(&[]), Some(&[])],
        ),
        // A quoted value with a `.` in it: the lazy group stopped there (`"AudioMix`), and the
        // rest (`Lock".`) was clustered.
        (
            "Releasing suspend blocker \"PowerManagerService.WakeLocks\".\nReleasing suspend blocker \"AudioMix.Lock\".\n",
            &[Some(&[("_1", "PowerManagerService.WakeLocks")]), Some(&[("_1", "AudioMix.Lock")])],
        ),
        (
            "2026-03-02T08:00:01.1Z ERROR risingwave_meta::x: failed to open table \"orders.v2\".\n2026-03-02T08:00:02.1Z ERROR risingwave_meta::x: failed to open table \"t.items\".\n",
            &[Some(&[("_1", "orders.v2")]), Some(&[("_1", "t.items")])],
        ),
        // The same in a JSON line, whose raw value starts with `\"` (found by a third reader).
        (
            concat!(
                r#"{"timestamp":"2026-03-02T08:00:01Z","level":"ERROR","target":"svc","fields":{"message":"Releasing suspend blocker \"PowerManagerService.WakeLocks\"."}}"#,
                "\n",
                r#"{"timestamp":"2026-03-02T08:00:02Z","level":"ERROR","target":"svc","fields":{"message":"Releasing suspend blocker \"AudioMix.Lock\"."}}"#,
                "\n"
            ),
            &[Some(&[("_1", "PowerManagerService.WakeLocks")]), Some(&[("_1", "AudioMix.Lock")])],
        ),
        // Quotes the examples (the first three lines) all have, but that nothing inside them
        // needs: the draft leaves them in its variable, and matches the lines without them
        // (found by a third reader: it had quoted them and missed those lines).
        (
            "blocker \"AudioMix.Lock\" held too long\nblocker \"Video.Lock\" held too long\nblocker \"Net.Lock\" held too long\nblocker none held too long\nblocker 'x.y' held too long\n",
            &[
                Some(&[("_1", "\"AudioMix.Lock\"")]),
                Some(&[]),
                Some(&[]),
                Some(&[("_1", "none")]),
                Some(&[("_1", "'x.y'")]),
            ],
        ),
        // A key whose value is empty on one line: the key went unnamed and the draft matched
        // none of the three lines (its variable cannot run across ` rhost=`).
        (
            "auth failure; logname= uid=0 tty=NODEVssh ruser= rhost=218.188.2.4\nauth failure; logname= uid=0 tty=NODEVssh ruser= rhost=10.0.0.9\nauth failure; logname= uid=0 tty=ssh ruser= rhost=\n",
            &[Some(&[("_1", "0"), ("_2", "NODEVssh"), ("_3", "218.188.2.4")]), Some(&[("_3", "10.0.0.9")]), None],
        ),
    ];
    for (i, (lines, want)) in cases.iter().enumerate() {
        let file = d.write(&format!("in{i}.log"), lines);
        let out = run(&["discover", "-c", &d.catalog(), "--unknown", "any", "--format", "catalog", &file], b"");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let drafts = d.write(&format!("drafts{i}.jsonl"), &String::from_utf8(out.stdout).unwrap());
        let evs = d.events(&["-c", &drafts, "--unknown", "any", "--format", "json", &file], "");
        assert_eq!(evs.len(), want.len(), "{lines}");
        for (e, w) in evs.iter().zip(want.iter()) {
            match w {
                Some(caps) => {
                    assert!(e["match"].is_object() && e.get("unknown").is_none(), "not explained by its draft: {e}");
                    for (k, v) in caps.iter() {
                        assert_eq!(e["match"]["captures"][k], *v, "{e}");
                    }
                }
                None => assert!(e["match"].is_null(), "{e}"),
            }
        }
    }
    // Two templates whose slugs agree, and a second round over lines the first draft missed
    // (the same words, other blanks: the same cluster): new ids and slugs, none of the first's.
    let first = d.write(
        "queue.log",
        "2026-03-02T08:00:01.1Z  WARN risingwave_meta::x: queue full for sink 1\n2026-03-02T08:00:02.1Z  WARN risingwave_meta::x: queue full for sink 2\n2026-03-02T08:00:03.1Z  WARN risingwave_meta::x: queue-full for-sink 3\n",
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &first], b"");
    let round1 = events(&out.stdout);
    assert_eq!(round1.len(), 2, "{}", String::from_utf8_lossy(&out.stdout));
    let slugs: Vec<&str> = round1.iter().map(|r| r["record"]["slug"].as_str().unwrap()).collect();
    assert_eq!(slugs, ["queue-full-for-sink", "queue-full-for-sink-2"]);
    for r in &round1 {
        assert_eq!(r["record"]["id"], r["discovered"]["cluster"]);
    }
    let drafts1 = d.write("round1.jsonl", &String::from_utf8(out.stdout).unwrap());
    let more = d.write("more.log", "2026-03-02T08:00:05.1Z  WARN risingwave_meta::x: queue  full for sink 9\n");
    let out = run(&["discover", "-c", &d.catalog(), "-c", &drafts1, "--format", "catalog", &more], b"");
    let round2 = events(&out.stdout);
    assert_eq!(round2.len(), 1, "{}", String::from_utf8_lossy(&out.stdout));
    let cluster = round2[0]["discovered"]["cluster"].as_str().unwrap();
    assert_eq!(round1[0]["record"]["id"], cluster, "the same cluster drafted again");
    assert_eq!(round2[0]["record"]["id"], format!("{cluster}-2"));
    assert_eq!(round2[0]["record"]["slug"], "queue-full-for-sink-3");
    // Both rounds load together, neither overriding the other, and each matches its lines.
    let drafts2 = d.write("round2.jsonl", &String::from_utf8(out.stdout).unwrap());
    let check = run(&["check", "-c", &drafts1, "-c", &drafts2], b"");
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    let said = String::from_utf8_lossy(&check.stderr);
    assert!(!said.contains("overridden"), "{said}");
    let evs = d.events(&["-c", &drafts1, "-c", &drafts2, "--unknown", "warn", "--format", "json", &first, &more], "");
    assert_eq!(evs.len(), 4);
    assert!(evs.iter().all(|e| e["match"].is_object() && e.get("unknown").is_none()), "{evs:?}");
}

/// Found by a second reader (a catalog keeper): the words right after a known error, with no
/// `: ` between (`meta leader lease lost when renewing …`), were drafted, but the draft's match
/// started after a word and a blank and was taken for the end of a longer message: the line
/// stayed unknown beside its own draft's match, and each round drafted it again as `-2`, `-3`.
/// And (a later catalog keeper's reading) in an error field, those words alone were the draft:
/// `for source {}` after a known `failed to query PostgreSQL LSNs`, whose draft, added back, took
/// the lines of every error that ends so, INFO lines too. There the draft is the longer error,
/// from the known error's start (in a message the words are the host's own, as above).
#[test]
fn regression_a_draft_for_the_words_after_a_known_error_explains_them() {
    let d = Dir::new();
    let log = d.write(
        "in.log",
        &format!(
            "{}\n{}\n",
            warn(1, "meta leader lease lost when renewing, standby may take over"),
            warn(2, "meta leader lease lost when renewing, standby may take over")
        ),
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &log], b"");
    let round1 = events(&out.stdout);
    assert_eq!(round1.len(), 1, "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(round1[0]["record"]["errorMessage"], "when renewing, standby may take over");
    let drafts = d.write("drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    let evs = d.events(&["-c", &drafts, "--unknown", "warn", "--format", "json", &log], "");
    assert_eq!(evs.len(), 2);
    for e in &evs {
        assert!(e.get("unknown").is_none(), "its draft explains it: {e}");
        let ids: Vec<&str> = std::iter::once(&e["match"])
            .chain(e["also_matched"].as_array().unwrap())
            .filter_map(|m| m["id"].as_str())
            .collect();
        assert!(ids.contains(&"c-lease") && ids.contains(&round1[0]["record"]["id"].as_str().unwrap()), "{e}");
    }
    let out = run(&["discover", "-c", &d.catalog(), "-c", &drafts, "--format", "catalog", &log], b"");
    assert!(out.stdout.is_empty(), "drafted again: {}", String::from_utf8_lossy(&out.stdout));
    // Still: a known error after words of the message's own explains nothing there.
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &warn(3, "old standby said meta leader lease lost"));
    assert_eq!(unknown(&evs[0]).map(|u| u.1), Some("old standby said meta leader lease lost"), "{}", evs[0]);
    // In an error field, and with a cause after the words: the known error's words and the
    // words after them are the first link.
    let input = [
        "meta leader lease lost for source 12281",
        "meta leader lease lost for source 12282: connection refused",
        "meta leader lease lost",
    ]
    .iter()
    .enumerate()
    .map(|(i, e)| format!("{}\n", warn(4 + i as u32, &format!("unconsumed graph adder error={e}"))))
    .collect::<String>();
    let evs = d.events(&["--unknown", "warn", "--format", "json"], &input);
    let got: Vec<_> = evs.iter().map(|e| (e["match"]["id"].as_str(), unknown(e).map(|u| u.1))).collect();
    let longer = Some("meta leader lease lost for source <*>");
    assert_eq!(got, [(Some("c-lease"), longer), (Some("c-lease"), longer), (Some("c-lease"), None)], "{evs:#?}");
}

/// Found by a second reader (an SRE): with the cluster table full, a trickle of unknown events
/// rewrote and fsynced the whole clusters file (1.6 MB) at nearly every checkpoint: 196 MB in
/// 21 s. It is written at most every `--clusters-interval` now, and when the daemon stops. And a
/// clusters file that does not parse was overwritten by the next write: it is set aside.
#[test]
fn regression_a_trickle_of_unknown_events_writes_the_clusters_once_an_interval() {
    use std::os::unix::fs::MetadataExt;
    let d = Dir::new();
    let log = d.dir.path().join("meta.log");
    let state = d.dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let clusters = state.join("unknown-clusters.json");
    std::fs::write(&clusters, "{\"version\":1,\"clusters\":[{\"id\":\"zz\"").unwrap();
    std::fs::write(&log, "").unwrap();
    let err_file = d.dir.path().join("stderr.log");
    let mut c = cmd();
    c.args(["--follow", &path_str(&log), "--state-dir", &path_str(&state), "-c", &d.catalog()]);
    c.args(["--unknown", "warn", "--format", "json", "--poll-interval", "20ms", "--checkpoint-interval", "10ms"]);
    c.args(["--clusters-interval", "1500ms", "--log-level", "info"]);
    c.stdout(Stdio::piped()).stderr(std::fs::File::create(&err_file).unwrap());
    let mut child = c.spawn().unwrap();
    let rx = lines_of(&mut child);
    let aside = state.join("unknown-clusters.json.corrupt");
    let deadline = Instant::now() + PATIENCE;
    while !aside.is_file() {
        assert!(Instant::now() < deadline, "the unreadable clusters file was not set aside");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(std::fs::read_to_string(&aside).unwrap(), "{\"version\":1,\"clusters\":[{\"id\":\"zz\"");
    // 24 new kinds, 100 ms apart: a checkpoint after each, over 2.4 s. (Words without digits:
    // a digit is masked, and the kinds would be one.)
    let kinds = 24;
    let kind = |i: u32| format!("kind{}", char::from(b'a' + i as u8));
    let mut inodes = std::collections::BTreeSet::new();
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    for i in 0..kinds {
        f.write_all((error(i, &format!("{} broke", kind(i))) + "\n").as_bytes()).unwrap();
        let until = Instant::now() + Duration::from_millis(100);
        while Instant::now() < until {
            if let Ok(m) = std::fs::metadata(&clusters) {
                inodes.insert(m.ino());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    take(&rx, kinds as usize);
    // Written at the first change, then at most once each 1.5 s: 2 or 3 times over 2.4 s (24
    // before).
    assert!((1..=3).contains(&inodes.len()), "the clusters file was written {} times", inodes.len());
    // The last changes are written when their turn comes, with nothing more read.
    let deadline = Instant::now() + PATIENCE;
    while !std::fs::read_to_string(&clusters).is_ok_and(|t| t.contains(&kind(kinds - 1))) {
        assert!(Instant::now() < deadline, "the last clusters were never written");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    let err = std::fs::read_to_string(&err_file).unwrap();
    assert!(err.contains("unknown clusters file unreadable; set aside"), "{err}");
}

/// Found by a second reader (a catalog keeper): a `{:?}` value inside a `{:?}` string
/// (`encode \"trades_mv\"`) ended after its first byte, the backslash, and the rest of the string
/// was clustered (`<*> by:\n PermissionDenied …`); and a cause that ends a value quoted inside
/// the string (`pk: \"Starrocks error: early eof\""`) kept that value's closing quote (`early
/// eof"`). Neither draft matched its line, and each round drafted them again.
#[test]
fn regression_values_quoted_inside_a_debug_string_end_at_their_own_quote() {
    let d = Dir::new();
    let catalog = d.write(
        "nested.jsonl",
        concat!(
            r#"{"id":"sr","errorMessage":"Starrocks error: {0}","messagePattern":"Starrocks error: (.+?)"}"#,
            "\n",
            r#"{"id":"pt","errorMessage":"progress table column not matched: progress table: {:?}, pk: {:?}","messagePattern":"progress table column not matched: progress table: (.+?), pk: (.+?)"}"#,
            "\n",
            r#"{"id":"uf","errorMessage":"Unsupported format {:?} encode {:?}","messagePattern":"Unsupported format (.+?) encode (.+?)"}"#,
            "\n"
        ),
    );
    let log = d.write(
        "in.log",
        &format!(
            "{}\n{}\n",
            warn(1, r#"skip refresh: status is not idle: "progress table column not matched: progress table: \"device_src\", pk: \"Starrocks error: early eof\"" fragment_id=46511"#),
            warn(2, r#"skip refresh: status is not idle: "Unsupported format Some(65958) encode \"trades_mv\"\n\nCaused by:\n    PermissionDenied (persistent) at read\n""#),
        ),
    );
    let evs = common::events(&run(&["-c", &catalog, "--unknown", "warn", "--format", "json", &log], b"").stdout);
    assert_eq!(evs.len(), 2);
    assert_eq!(unknown(&evs[0]).map(|u| u.1), Some("early eof"), "{}", evs[0]);
    assert_eq!(evs[1]["match"]["id"], "uf", "{}", evs[1]);
    assert_eq!(evs[1]["match"]["captures"]["_2"], r#"\"trades_mv\""#, "{}", evs[1]);
    assert_eq!(unknown(&evs[1]).map(|u| u.1), Some("PermissionDenied (persistent) at read"), "{}", evs[1]);
    let out = run(&["discover", "-c", &catalog, "--format", "catalog", &log], b"");
    let drafts = d.write("drafts.jsonl", &String::from_utf8(out.stdout).unwrap());
    let evs = common::events(
        &run(&["-c", &catalog, "-c", &drafts, "--unknown", "warn", "--format", "json", &log], b"").stdout,
    );
    assert!(evs.iter().all(|e| e.get("unknown").is_none()), "its draft explains it: {evs:?}");
    let out = run(&["discover", "-c", &catalog, "-c", &drafts, "--format", "catalog", &log], b"");
    assert!(out.stdout.is_empty(), "drafted again: {}", String::from_utf8_lossy(&out.stdout));
}

/// Found by a second reader (a catalog keeper): a draft that says one word of its own (`{}
/// failed`, drafted from a line whose backticked name was masked) matched 81 events of the
/// sample log, and nothing said to look at it twice. Such drafts are marked and named.
#[test]
fn regression_drafts_of_one_word_of_their_own_are_marked_for_review() {
    let d = Dir::new();
    let log = d.write(
        "in.log",
        &format!(
            "{}\n{}\n",
            warn(1, "validation error=`SECURE_COMPARE()` failed"),
            warn(2, "compaction group 7 stalled for 30s")
        ),
    );
    let out = run(&["discover", "-c", &d.catalog(), "--format", "catalog", &log], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let drafts = events(&out.stdout);
    let by_template =
        |t: &str| drafts.iter().find(|r| r["record"]["errorMessage"] == t).unwrap_or_else(|| panic!("{t}: {drafts:?}"));
    // The message no record knows is clustered whole, its fields left out: one word.
    let wide = by_template("validation");
    assert_eq!(wide["discovered"]["generic"], true);
    assert_eq!(by_template("compaction group {} stalled for {}")["discovered"]["generic"], false);
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!(
            "1 draft(s) say one word of their own (`discovered.generic`: {})",
            wide["record"]["id"].as_str().unwrap()
        )),
        "{err}"
    );
}

/// Regression (found by an on-call reader): an error that came back over gRPC was clustered by
/// its envelope: tonic's `status: Internal, message` held every error of that status code as
/// one kind (a sstable's checksum and a peer's reset alike), was a cluster even when a record
/// knew the message inside it, and RisingWave's `gRPC request to stream service failed` held
/// every error of one service. The server's error is the message inside, read as a chain.
#[test]
fn regression_errors_that_came_back_over_grpc_are_clustered_by_the_servers_error() {
    let host = "2026-03-02T08:00:40.1Z  WARN risingwave_meta::barrier::progress: receive progress from unknown actor, likely removed after reschedule actor_id=1 error=";
    let lines = [
        r#"status: Internal, message: "stream reset by peer", details: [], metadata: MetadataMap { headers: {"content-type": "application/grpc"} }"#,
        r#"status: Internal, message: "hummock sstable 42 checksum mismatch", details: [], metadata: MetadataMap { headers: {} }"#,
        r#"status: Internal, message: "hummock sstable 77 checksum mismatch", details: [], metadata: MetadataMap { headers: {} }"#,
        r#"status: Internal, message: "Catalog error: table not found: internal_test", details: [], metadata: MetadataMap { headers: {} }"#,
        "gRPC request to stream service failed: Internal error: zorblax conduit 7 overheated",
        "gRPC request to stream service failed: The service is currently unavailable: quorum of flux lost",
        // Found by a second reader: links that pass the error on inside the status's message,
        // before it, and the status inside a quoted value.
        r#"status: Internal, message: "gRPC request to meta service failed: Internal error: zorblax 7 down", details: []"#,
        r#"Rpc error: status: Internal, message: "Catalog error: table not found: internal_test""#,
        r#""status: Internal, message: \"Catalog error: table not found: internal_test\", details: []""#,
        r#""worker node 8 is shutting down: status: Internal, message: \"stream reset by peer\", details: []""#,
        // Found by a catalog keeper: a known error's capture that takes the status's label
        // (`sink format unsupported: {f}`, `f` = `status`) left `Unavailable, message` as the
        // template of every error that came back so.
        r#"sink format unsupported: status: Unavailable, message: "hummock sstable 9 checksum mismatch", details: []"#,
    ];
    let input: String = lines.iter().map(|l| format!("{host}{l}\n")).collect();
    let out = run(&["--unknown", "warn", "--format", "json"], input.as_bytes());
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    let evs = events(&out.stdout);
    assert_eq!(evs.len(), lines.len(), "{evs:?}");
    let templates: Vec<Option<&str>> = evs.iter().map(|e| unknown(e).map(|u| u.1)).collect();
    assert_eq!(
        templates,
        [
            Some("stream reset by peer"),
            Some("hummock sstable <*> checksum mismatch"),
            Some("hummock sstable <*> checksum mismatch"),
            // The message inside is known: the envelope is no error of its own.
            None,
            Some("zorblax conduit <*> overheated"),
            Some("gRPC request to stream service failed: The service is currently unavailable: quorum of flux lost"),
            Some("zorblax <*> down"),
            None,
            None,
            Some("stream reset by peer"),
            Some("hummock sstable <*> checksum mismatch"),
        ],
        "{evs:?}"
    );
    assert_eq!(unknown(&evs[10]).unwrap().0, unknown(&evs[1]).unwrap().0, "{evs:?}");
}

/// Regression (found by a daemon operator's reading): an unknown event at a level above error
/// (`FATAL`, `CRITICAL`) was an error to the sinks' `min_severity`, so a sink kept for `critical`
/// never had one. It is critical now; a plain ERROR and a crash without a level word stay errors.
#[test]
fn regression_unknown_events_above_error_are_critical() {
    let d = Dir::new();
    let input = [
        r#"{"time":"2026-12-05T10:00:00Z","level":"FATAL","msg":"zorblax conduit melted down"}"#,
        r#"{"time":"2026-12-05T10:00:01Z","level":"CRITICAL","msg":"flux capacitor drained"}"#,
        r#"{"time":"2026-12-05T10:00:02Z","level":"ERROR","msg":"quorum of gremlins lost"}"#,
        "thread 'main' panicked at src/meta/src/nothing_known.rs:10:5:",
        "something odd happened",
    ]
    .join("\n")
        + "\n";
    let kept = |min: &str| -> Vec<String> {
        d.events(&["--unknown", "warn", "--format", "ecs", "--min-severity", min], &input)
            .iter()
            .map(|e| format!("{} {}", e["event"]["severity"], e["error"]["message"].as_str().unwrap()))
            .collect()
    };
    assert_eq!(kept("critical"), ["2 zorblax conduit melted down", "2 flux capacitor drained"]);
    assert_eq!(kept("error").len(), 4, "{:?}", kept("error"));
    // PostgreSQL's FATAL ends one session: an error, as PostgreSQL itself logs it to syslog.
    let pg = "2026-03-05 10:00:00.123 UTC [4711] FATAL:  the database system is starting up\n\
        2026-03-05 10:00:00.124 UTC [4711] LOG:  checkpoint starting: time\n";
    let evs = d.events(&["--unknown", "warn", "--format", "ecs"], pg);
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(evs[0]["event"]["severity"], 3, "{}", evs[0]);
}

/// Regression (found by two readers): an event whose last line was a report's `Caused by:` was
/// completed on the idle timeout (100 ms) when its writer paused there (a pipe's buffer full, a
/// slow network under `kubectl logs -f`): the cause that came next was an event of its own
/// without a header, and the unknown error in it was never clustered. Such an event waits up
/// to the line timeout for its causes, on standard input and in follow mode.
#[test]
fn regression_a_report_header_waits_for_its_causes() {
    let d = Dir::new();
    let head = "2026-03-02T08:01:04.8Z ERROR risingwave_meta_node::server: an election error occurred\n\nCaused by:\n";
    let cause = "    zorblax socket 5 melted down\n";
    let want = |evs: &[Value]| {
        assert_eq!(evs.len(), 1, "{evs:?}");
        assert_eq!(evs[0]["source"]["lines"], 4, "{evs:?}");
        assert!(evs[0]["message"].as_str().unwrap().ends_with("zorblax socket 5 melted down"), "{evs:?}");
    };
    // Standard input, with the idle timeout and without one (`0`: complete at every pause).
    for idle in ["100", "0"] {
        let mut c = cmd();
        c.args(["-c", &d.catalog(), "--unknown", "warn", "--format", "json", "--idle-timeout", idle]);
        c.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(head.as_bytes()).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(400));
        stdin.write_all(cause.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        want(&events(&out.stdout));
    }
    // Follow mode.
    let log = d.dir.path().join("meta.log");
    std::fs::write(&log, head).unwrap();
    let mut c = cmd();
    c.args(["--follow", &path_str(&log), "--state-dir", &path_str(&d.dir.path().join("state"))]);
    c.args(["-c", &d.catalog(), "--unknown", "warn", "--format", "json", "--poll-interval", "50ms"]);
    c.stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = c.spawn().unwrap();
    let rx = lines_of(&mut child);
    std::thread::sleep(Duration::from_millis(400));
    std::fs::OpenOptions::new().append(true).open(&log).unwrap().write_all(cause.as_bytes()).unwrap();
    let evs = take(&rx, 1);
    let _ = child.kill();
    let _ = child.wait();
    want(&evs);
}
