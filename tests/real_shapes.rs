//! Real logs as people paste and pipe them (issue 20): paste prefixes and other tools' line
//! prefixes, client renderings of error chains, panics located by file and line, errors that a
//! span repeats on INFO lines, ranking and capture names, and `explain`. One table per class of
//! made-up lines, and `tests/data/real-shapes.log`, a fixture of the real shapes, checked against
//! its own truth file. Everything runs the real binary on the embedded catalog.

mod common;

use common::{events, run};
use serde_json::Value;

/// `annotail --format json --all` on `input` (standard input): every event.
fn all_events(input: &str) -> Vec<Value> {
    let out = run(&["--format", "json", "--all"], input.as_bytes());
    assert!(out.status.success(), "{}", common::stderr_of(&out));
    events(&out.stdout)
}

/// The events that hold a match, as (first line, record id).
fn matched(evs: &[Value]) -> Vec<(u64, String)> {
    evs.iter()
        .filter_map(|e| e["match"]["id"].as_str().map(|id| (e["source"]["line"].as_u64().unwrap(), id.to_owned())))
        .collect()
}

const JOB: &str = "f16c5768bcd8aade"; // should not pause when having snapshot backfill job {job_id}
const PREPARE: &str = "d7ae28eaef66806a"; // Failed to prepare the statement: {0}
const RUN_QUERY: &str = "e9b13ba0743babca"; // Failed to run the query: {0}
const EXECUTE: &str = "d4f928091c376bee"; // Failed to execute the statement: {0}
const BIND: &str = "30da082a4fe3b209"; // Failed to bind expression: {expr}: {error}
const ITEM: &str = "bbe515773b0e7be0"; // Item not found: {0}
const SST: &str = "01270531346bd41b"; // SST {0} is invalid

#[test]
fn headers_after_paste_prefixes_start_events() {
    let err = "2024-03-02T08:00:00.512Z ERROR risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 1";
    let info = "2024-03-02T08:00:01.123Z  INFO risingwave_compute: worker registered with meta";
    // (what precedes each line, the events with a match as (line, id), the number of events)
    let cases: &[(&str, &str, &[(u64, &str)], usize)] = &[
        ("leading spaces", "  ", &[(1, JOB)], 2),
        ("a tab", "\t", &[(1, JOB)], 2),
        ("a markdown quote", "> ", &[(1, JOB)], 2),
        ("a nested quote", "> > ", &[(1, JOB)], 2),
        ("a table gutter", "| ", &[(1, JOB)], 2),
        ("a wide table gutter", "  |   | ", &[(1, JOB)], 2),
        // Regression (found by an on-call reader): a web page's or a chat's indent.
        ("a no-break space", "\u{a0}", &[(1, JOB)], 2),
        ("no-break spaces and a blank", "\u{a0}\u{a0} ", &[(1, JOB)], 2),
    ];
    for (what, pre, want, n) in cases {
        let evs = all_events(&format!("{pre}{err}\n{pre}{info}\n"));
        assert_eq!(evs.len(), *n, "{what}: {evs:?}");
        let got = matched(&evs);
        let want: Vec<(u64, String)> = want.iter().map(|(l, id)| (*l, id.to_string())).collect();
        assert_eq!(got, want, "{what}: the INFO line is an event of its own, without the annotation");
        assert_eq!(evs[1]["log"]["level"], "INFO", "{what}");
        assert_eq!(evs[0]["match"]["captures"]["job_id"], "1", "{what}: the gutter is not part of the value");
    }
    // An indented line that is not a full header stays a continuation.
    let evs = all_events(&format!("{err}\n    at src/meta/src/barrier/rpc.rs:1074\n  2024-03-02 no level here\n"));
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert_eq!(evs[0]["source"]["lines"], 3);
    // An indented `{` (a pretty-printed value) is not a JSON header; an indented JSON object is.
    let evs = all_events(&format!("{err}\n  {{\n    a: 1,\n  }}\n"));
    assert_eq!(evs.len(), 1, "{evs:?}");
    let json = r#"  {"timestamp":"2024-03-02T08:00:02Z","level":"INFO","fields":{"message":"ok"},"target":"risingwave_meta"}"#;
    let evs = all_events(&format!("{err}\n{json}\n"));
    assert_eq!(evs.len(), 2, "{evs:?}");
    assert_eq!(evs[1]["log"]["format"], "json");
    // Quoted continuation lines lose their `>` too.
    let evs = all_events(&format!("> {err}\n>\n> Caused by:\n>     paused\n"));
    assert_eq!(evs.len(), 1);
    assert!(evs[0]["message"].as_str().unwrap().ends_with("\n\nCaused by:\n    paused"), "{}", evs[0]["message"]);
}

#[test]
fn viewer_times_and_stern_prefixes() {
    // (input, level, job_id, pod, container)
    let cases: &[(&str, &str, &str, Option<&str>, Option<&str>)] = &[
        (
            "2025-02-11 09:14:52.417 | 2025-02-11T09:14:52.417395Z ERROR risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 2",
            "ERROR",
            "2",
            None,
            None,
        ),
        (
            "2025-02-11 09:14:52.417\t2025-02-11T09:14:52.417395Z  WARN risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 3",
            "WARN",
            "3",
            None,
            None,
        ),
        (
            "2025-02-11 09:14:52.417  WARN risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 4",
            "WARN",
            "4",
            None,
            None,
        ),
        (
            "risingwave-meta-0 meta 2025-02-11T09:14:52.417Z ERROR risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 5",
            "ERROR",
            "5",
            Some("risingwave-meta-0"),
            Some("meta"),
        ),
        (
            "rw.meta-0 meta-node {\"timestamp\":\"2025-02-11T09:14:52Z\",\"level\":\"ERROR\",\"fields\":{\"message\":\"should not pause when having snapshot backfill job 6\"},\"target\":\"risingwave_meta\"}",
            "ERROR",
            "6",
            Some("rw.meta-0"),
            Some("meta-node"),
        ),
    ];
    for (input, level, job, pod, container) in cases {
        let evs = all_events(&format!("{input}\n"));
        assert_eq!(evs.len(), 1, "{input}: {evs:?}");
        let e = &evs[0];
        assert_eq!(e["log"]["level"], *level, "{input}");
        assert_eq!(e["match"]["id"], JOB, "{input}");
        assert_eq!(e["match"]["captures"]["job_id"], *job, "{input}");
        assert_eq!(e["log"]["kubernetes"]["pod"].as_str(), *pod, "{input}");
        assert_eq!(e["log"]["kubernetes"]["container"].as_str(), *container, "{input}");
    }
    // Two words before a line without a header are not a stern prefix; once stern is seen, its
    // continuation lines lose the prefix.
    let evs = all_events("hello world should not pause when having snapshot backfill job 9\n");
    assert!(evs[0]["log"].get("kubernetes").is_none(), "{evs:?}");
    let evs = all_events(
        "risingwave-meta-0 meta 2025-02-11T09:14:52Z ERROR risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 7\nrisingwave-meta-0 meta Caused by:\nrisingwave-meta-0 meta     paused\n",
    );
    assert_eq!(evs.len(), 1, "{evs:?}");
    assert!(evs[0]["message"].as_str().unwrap().ends_with("job 7\nCaused by:\n    paused"), "{}", evs[0]["message"]);
}

#[test]
fn client_renderings_of_error_chains() {
    // (line, primary, other records the event must also hold, captures of the primary)
    let cases: &[(&str, &str, &[&str], &[(&str, &str)])] = &[
        ("ERROR:  Failed to prepare the statement.", PREPARE, &[], &[]),
        ("ERROR: Failed to prepare the statement", PREPARE, &[], &[]),
        ("Error: Failed to run the query", RUN_QUERY, &[], &[]),
        ("statement failed: db error: ERROR: Failed to run the query", RUN_QUERY, &[], &[]),
        ("org.postgresql.util.PSQLException: ERROR: Failed to execute the statement", EXECUTE, &[], &[]),
        (
            "SQL Error [XX000]: ERROR: Failed to execute the statement Caused by these errors (recent errors listed first): 1: Failed to bind expression: v1 2: Item not found: column v1",
            ITEM,
            &[EXECUTE, BIND],
            &[("_1", "column v1")],
        ),
        ("  1: Failed to bind expression: t.foo_bar", BIND, &[], &[("expr", "t.foo_bar")]),
        ("Caused by: Failed to bind expression: t.foo_bar", BIND, &[], &[("expr", "t.foo_bar")]),
        // The full form where the tail is there: `Item not found: {0}` lies in the query's value,
        // a wrapper inside a wrapper, and is set aside (the rank's rule 1).
        ("ERROR: Failed to run the query: Item not found: column c", RUN_QUERY, &[ITEM], &[("_1", "Item not found: column c")]),
    ];
    for (line, primary, others, caps) in cases {
        let evs = all_events(&format!("{line}\n"));
        assert_eq!(evs.len(), 1, "{line}");
        let m = &evs[0]["match"];
        assert_eq!(m["id"], *primary, "{line}: {}", evs[0]);
        for (k, v) in *caps {
            assert_eq!(m["captures"][k], *v, "{line}: {k}");
        }
        let also: Vec<&str> = evs[0]["also_matched"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
        for o in *others {
            assert!(also.contains(o), "{line}: {o} not in {also:?}");
        }
    }
    // Each numbered cause joined onto one line is its own link: its value ends at the next ` N: `.
    let evs = all_events(
        "ERROR: Failed to execute the statement Caused by these errors (recent errors listed first): 1: Item not found: column a 2: Item not found: column b\n",
    );
    let caps: Vec<&Value> = std::iter::once(&evs[0]["match"])
        .chain(evs[0]["also_matched"].as_array().unwrap())
        .filter(|m| m["id"] == ITEM)
        .map(|m| &m["captures"]["_1"])
        .collect();
    // A record is reported once per event, at its leftmost match: its value stops at ` 2: `.
    assert_eq!(caps, [&Value::from("column a")], "the value ends where the next cause starts");
    // The guard: the widened rule does not make short generic heads match ordinary lines, and a
    // link must start where a chain link starts and end where one ends.
    let quiet = [
        "unexpected end of file",
        "the job failed to do the thing: it was cancelled",
        "we Failed to prepare the statement of accounts today",
        "Failed to prepare the statement_cache",
        "ERROR: Failed to prepare the statements.",
    ];
    for line in quiet {
        let evs = all_events(&format!("{line}\n"));
        let ids: Vec<&str> = evs.iter().filter_map(|e| e["match"]["id"].as_str()).collect();
        assert!(!ids.contains(&PREPARE) && ids.is_empty(), "{line}: {ids:?}");
    }
}

#[test]
fn panics_are_located_by_file_and_line() {
    // (panic, record, by location with this distance; None: matched by its message)
    let cases: &[(&str, &str, Option<u64>)] = &[
        // worker.rs:842 is `inject barrier failure`, 8 lines from 850.
        ("thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:850:21:", "c60da90c507837e7", Some(8)),
        ("thread 'rw-main' (11) panicked at src/meta/src/barrier/worker.rs:842:9:", "c60da90c507837e7", Some(0)),
        // A build directory before the workspace's `src/` is ignored.
        (
            "thread 'rw-main' panicked at /build/risingwave/src/meta/src/barrier/worker.rs:845:1:",
            "c60da90c507837e7",
            Some(3),
        ),
        // regression (found by a second reader): worker.rs:1300 is a `warn!` call (a log
        // record), never where a panic happens: the crash read as that warning. The nearest
        // record that is no log call is 1306's error.
        (
            "thread 'main' panicked at 'assertion failed: ok', src/meta/src/barrier/worker.rs:1300:9",
            "8c164118e0240df6",
            Some(6),
        ),
        // The message wins over the location.
        (
            "thread 'main' panicked at 'should not pause when having snapshot backfill job 5', src/meta/src/barrier/worker.rs:850:9",
            JOB,
            None,
        ),
        (
            "thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:850:21:\nshould not pause when having snapshot backfill job 5",
            JOB,
            None,
        ),
    ];
    for (input, id, distance) in cases {
        let evs = all_events(&format!("{input}\n"));
        assert_eq!(evs.len(), 1, "{input}");
        let m = &evs[0]["match"];
        assert_eq!(m["id"], *id, "{input}: {}", evs[0]);
        match distance {
            Some(d) => {
                assert_eq!(m["by"], "location", "{input}");
                assert_eq!(m["distance"], *d, "{input}");
            }
            None => assert!(m.get("by").is_none(), "{input}: {m}"),
        }
    }
    let out = run(&["--format", "ecs"], b"thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:850:21:\n");
    let ecs = &events(&out.stdout)[0];
    assert_eq!((&ecs["annotail"]["by"], &ecs["annotail"]["distance"]), (&Value::from("location"), &Value::from(8)));
    assert_eq!(ecs["rule"]["id"], "c60da90c507837e7");
    // Beyond the tolerance (worker.rs has no record within 50 lines of 987), and a file the
    // catalog does not know: no match.
    for input in [
        "thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:987:21:",
        "thread 'main' panicked at src/nowhere/src/lib.rs:10:5:",
    ] {
        let evs = all_events(&format!("{input}\n"));
        assert!(evs[0]["match"].is_null(), "{input}: {}", evs[0]);
    }
    // Panics are found in sparse framing (only events with hits are framed) too.
    let mut log = String::new();
    for i in 0..5000 {
        log.push_str(&format!("2024-03-02T08:00:00.{i:04}Z  INFO risingwave_meta::x: filler line {i}\n"));
    }
    log.push_str("thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:850:21:\n");
    let out = run(&["--format", "json"], log.as_bytes());
    let evs = events(&out.stdout);
    assert_eq!(matched(&evs), [(5001, "c60da90c507837e7".to_owned())]);
}

#[test]
fn span_errors_below_warn_are_context() {
    let span = "failure_recovery{error=Hummock error: SST 4711 is invalid prev_epoch=6492695734583296}:recovery_attempt: risingwave_meta::barrier::recovery:";
    // (level, message, primary or none, context ids include SST)
    let cases: &[(&str, &str, Option<&str>, bool)] = &[
        ("ERROR", "recovery failed", None, false),
        (" WARN", "scale actors failed", Some(SST), false),
        (" INFO", "recovering mview progress", None, true),
        ("DEBUG", "recovering table fragments", None, true),
        ("TRACE", "recovering table fragments", None, true),
        // A match outside the span on an INFO line stays its match.
        (" INFO", "should not pause when having snapshot backfill job 3", Some(JOB), true),
    ];
    for (level, msg, primary, context) in cases {
        let line = format!("2024-05-21T15:54:00.761337526Z {level} {span} {msg}");
        let evs = all_events(&format!("{line}\n"));
        let e = &evs[0];
        if let Some(p) = primary {
            assert_eq!(e["match"]["id"], *p, "{line}");
        } else if *context {
            assert!(e["match"].is_null(), "{line}: {e}");
        }
        let ctx: Vec<&str> =
            e["context"].as_array().map(|a| a.iter().map(|c| c["id"].as_str().unwrap()).collect()).unwrap_or_default();
        assert_eq!(ctx.contains(&SST), *context, "{line}: {ctx:?}");
        if *context {
            assert_eq!(e["context"][0]["field"], "span:failure_recovery.error", "{line}");
            let in_match: Vec<&str> = std::iter::once(&e["match"])
                .chain(e["also_matched"].as_array().unwrap())
                .filter_map(|m| m["id"].as_str())
                .collect();
            assert!(!in_match.contains(&SST), "{line}: the span's error is not among the matches");
        }
        // Only written when every event is: matched events only has it when something matched.
        let out = run(&["--format", "json"], format!("{line}\n").as_bytes());
        assert_eq!(events(&out.stdout).len(), usize::from(primary.is_some() || level.trim() == "ERROR"), "{line}");
    }
    // JSON layout: a span field of an INFO line is context too.
    let json = r#"{"timestamp":"2024-05-21T15:54:00Z","level":"INFO","fields":{"message":"recovering"},"target":"risingwave_meta::barrier::recovery","spans":[{"name":"failure_recovery","error":"Hummock error: SST 4711 is invalid"}]}"#;
    let evs = all_events(&format!("{json}\n"));
    assert!(evs[0]["match"].is_null(), "{}", evs[0]);
    assert_eq!(evs[0]["context"][0]["field"], "spans[0].error");
    // Pretty output does not paint it as an error.
    let line = format!("2024-05-21T15:54:00.761337526Z  INFO {span} recovering mview progress");
    let out = run(&["--format", "pretty", "--color", "always"], format!("{line}\n").as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("╰─ context: sst-0-is-invalid, hummock-error-0 (2 call sites) (in span:failure_recovery.error)"), "{text}");
    assert!(!text.contains("ERROR") || text.matches("ERROR").count() == 0, "{text}");
    assert!(!text.contains("\x1b[31m"), "no red: {text:?}");
}

#[test]
fn ranking_capture_names_and_also() {
    // Equally specific readings of one message from two call sites: the logging crate's wins.
    let msg = "failed to resolve the worker node address";
    for (target, want) in [("risingwave_meta::barrier::rpc", "422b0cf75d32672c"), ("risingwave_common::util::addr", "22d3b37496682927")] {
        let evs = all_events(&format!("2024-03-02T08:00:00Z ERROR {target}: {msg}\n"));
        assert_eq!(evs[0]["match"]["id"], want, "{target}");
    }
    // A positional placeholder named after the format call's argument (`job.job_id`); `captures`
    // keeps the template's `_1`.
    let evs = all_events("2024-03-02T08:00:00Z ERROR risingwave_meta::backup_restore: concurrent backup job is not supported: existent job 17\n");
    let m = &evs[0]["match"];
    assert_eq!(m["id"], "0c86d125d66b36c3", "{m}");
    assert_eq!(m["captures"]["_1"], "17");
    assert_eq!(m["named_captures"]["job_id"], "17", "{m}");
    // Records with named placeholders only have no `named_captures`.
    let evs = all_events("2024-03-02T08:00:00Z ERROR risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 3\n");
    assert!(evs[0]["match"].get("named_captures").is_none());
    // `check` says how many were named and which records keep `_N`.
    let out = run(&["check", "--format", "json"], b"");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let pn = &v["positional_names"];
    let (named, kept, total) = (pn["named"].as_u64().unwrap(), pn["kept"].as_u64().unwrap(), pn["placeholders"].as_u64().unwrap());
    assert_eq!(named + kept, total);
    assert!(named > total / 2, "most positional placeholders get a name: {named} of {total}");
    let kept_sum: usize = pn["kept_in"].as_array().unwrap().iter().map(|k| k["kept"].as_array().unwrap().len()).sum();
    assert_eq!(kept_sum as u64, kept);
    let out = run(&["check"], b"");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(&format!("{named} named from sourceCode, {kept} kept as _N")), "{text}");
    // `also:` shows each distinct record once, with its number of call sites.
    let line = "2024-05-21T15:54:00.761337526Z  WARN failure_recovery{error=Hummock error: SST 4711 is invalid prev_epoch=1}:recovery_attempt: risingwave_meta::barrier::recovery: scale actors failed";
    let out = run(&["--format", "pretty", "--color", "never"], format!("{line}\n").as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    let also = text.lines().find(|l| l.trim_start().starts_with("also:")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(also.matches("hummock-error-0").count(), 1, "{also}");
    assert!(also.contains("hummock-error-0 (2 call sites)"), "{also}");
}

const CATALOG_ERROR: &str = "1a17532f2a2c3c98"; // Catalog error: {0}
const TABLE_NOT_FOUND: &str = "45634a2f0f3fa6a1"; // table {} not found (DynamoDB sink)

/// (input, primary, captures of the primary, records the event must also hold)
type RankCase = (&'static str, &'static str, &'static [(&'static str, &'static str)], &'static [&'static str]);

fn check_ranking(cases: &[RankCase]) {
    for (input, primary, caps, others) in cases {
        let evs = all_events(input);
        let evs: Vec<&Value> = evs.iter().filter(|e| e["match"].is_object()).collect();
        assert_eq!(evs.len(), 1, "{input}: {evs:#?}");
        let m = &evs[0]["match"];
        assert_eq!(m["id"], *primary, "{input}: {}", evs[0]);
        for (k, v) in *caps {
            assert_eq!(m["captures"][k], *v, "{input}: {k}");
        }
        let also: Vec<&str> =
            evs[0]["also_matched"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
        for o in *others {
            assert!(also.contains(o), "{input}: {o} not in {also:?}");
        }
    }
}

/// Regression: psql's report of a missing table picked the DynamoDB sink's `table {} not found`
/// (reading `table or source not found` with `_1 = "or source"`) and lost `t_orders`. Each
/// numbered cause is one error's own message: `table {} not found` reads only part of cause 2,
/// `Catalog error` reads cause 1 whole, and its source is cause 2.
#[test]
fn psql_table_or_source_not_found_t_orders() {
    let cases: &[RankCase] = &[
        (
            "ERROR:  Failed to run the query\n\nCaused by these errors (recent errors listed first):\n  1: Catalog error\n  2: table or source not found: t_orders\n",
            CATALOG_ERROR,
            &[("_1", "table or source not found: t_orders")],
            &[RUN_QUERY, TABLE_NOT_FOUND],
        ),
        (
            "SQL Error [XX000]: ERROR: Failed to run the query Caused by these errors (recent errors listed first): 1: Catalog error 2: table or source not found: t_orders\n",
            CATALOG_ERROR,
            &[("_1", "table or source not found: t_orders")],
            &[RUN_QUERY, TABLE_NOT_FOUND],
        ),
        // A numbered cause that `table {} not found` reads whole is still its record.
        (
            "ERROR:  Failed to run the query\n\nCaused by these errors (recent errors listed first):\n  1: Catalog error\n  2: table t_orders not found\n",
            TABLE_NOT_FOUND,
            &[("_1", "t_orders")],
            &[CATALOG_ERROR],
        ),
        // The innermost numbered cause with a value of its own stays the primary.
        (
            "ERROR:  Failed to run the query\n\nCaused by these errors (recent errors listed first):\n  1: Failed to bind expression: v1\n  2: Item not found: column v1\n",
            ITEM,
            &[("_1", "column v1")],
            &[RUN_QUERY, BIND],
        ),
    ];
    check_ranking(cases);
}

/// Regressions from the generated corpora, where a link of the error chain outranked the record
/// the truth names.
#[test]
fn chain_ranking_regressions() {
    let cases: &[RankCase] = &[
        // A meta error (`src/meta/src/dashboard`) in a line the connector crate logged: the
        // connector does not link the meta crates, so it is not the line's error.
        (
            "2026-03-02T08:53:04.967293922Z ERROR risingwave_connector::source::reader::reader: list object fail error=failed to bind dashboard address: Connection refused (os error 111)\n",
            "5d1e1abe12813844",
            &[],
            &["b952b99db7f4fd55"],
        ),
        // The same error in a meta line is the meta error, its log message the host.
        (
            "2026-03-02T09:05:36.09983835Z ERROR risingwave_meta::stream::source_manager::worker: failed to refresh the connector source worker error=failed to bind dashboard address: Connection refused (os error 111)\n",
            "b952b99db7f4fd55",
            &[],
            &["3e5f035b4174f718"],
        ),
        // The meta client's line without an RPC link before the meta error: the client's own.
        (
            "2026-03-02T08:15:28.055149397Z  WARN risingwave_rpc_client::meta_client: Failed to send_heartbeat error=failed to validate sink: Connection refused (os error 111)\n",
            "c0a1412f444a9945",
            &[],
            &["c1e17e6d569c140b"],
        ),
        // After the client's link or in a tonic status, the meta error came back over RPC.
        (
            "2026-03-02T08:15:28.055149397Z  WARN risingwave_rpc_client::meta_client: Failed to send_heartbeat error=gRPC request to meta service failed: Internal error: failed to validate sink: Connection refused (os error 111)\n",
            "c1e17e6d569c140b",
            &[],
            &["c0a1412f444a9945"],
        ),
        (
            "2026-03-02T08:15:28.055149397Z  WARN risingwave_stream::task::barrier_manager: failed to report barrier error=status: Internal, message: \"failed to validate sink: Connection refused (os error 111)\", details: []\n",
            "c1e17e6d569c140b",
            &[],
            &[],
        ),
        // `invalid json` read whole beats `invalid json: {s}` read as a link without its tail.
        (
            "{\"timestamp\":\"2026-03-02T08:23:09.672621761Z\",\"level\":\"WARN\",\"fields\":{\"message\":\"duplicate upstream fragment\",\"error\":\"invalid json\"},\"target\":\"risingwave_meta::barrier::info\"}\n",
            "e4907d8f1d66b498",
            &[],
            &["a0f98c1dc59521a6"],
        ),
        // `unexpected {}: {}` loses the text it spans to `unexpected EOF while decoding meta
        // snapshot`; a reading that lost sets no wrapper in its value aside, so the innermost
        // error stays the primary.
        (
            "2026-03-02T08:04:39.292412873Z  WARN risingwave_meta::stream::source_manager::split_assignment: no splits detected (not ready) error=lz4 decoder init failed: unexpected EOF while decoding meta snapshot: unsupported primary key data type: No space left on device (os error 28)\n",
            "92eebdb724f64189",
            &[("_1", "No space left on device (os error 28)")],
            &["58359f887b22c6bb", "e957596ed23b7ed5"],
        ),
    ];
    check_ranking(cases);
}

#[test]
fn explain_leads_with_the_record() {
    let line = "2024-03-02T08:00:00Z ERROR risingwave_meta::backup_restore: concurrent backup job is not supported: existent job 17";
    let out = run(&["explain", line], b"");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s:?} missing:\n{text}"));
    let head = at("concurrent-backup-job-is-not-supported-existent-j (0c86d125d66b36c3)");
    let (doc, sol, cap, code) = (at("documentation:"), at("solutions:"), at("captured:"), at("--> src/meta/src/backup_restore/backup_manager.rs:203"));
    assert!(head < doc && doc < sol && sol < cap && cap < code, "{text}");
    assert!(text.contains("job_id (_1, named from the source code) = 17"), "{text}");
    // The code around lineNumber, the line itself marked.
    assert!(text.lines().any(|l| l.starts_with(">  203 |") || l.starts_with("> 203 |")), "{text}");
    assert!(!text.contains("literals:"), "the trace only with --trace");
    let out = run(&["explain", "--trace", line], b"");
    let traced = String::from_utf8(out.stdout).unwrap();
    assert!(traced.starts_with(&text[..head + 10]), "the same head");
    for s in ["-- trace --", "layout:", "literals:", "candidates:", "confirmed 0c86d125d66b36c3", "event:"] {
        assert!(traced.contains(s), "{s}: {traced}");
    }
    let out = run(&["explain", "hello world"], b"");
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("no known error matched"));
    // Pretty output shows the documentation's first sentence, wrapped.
    let out = common::run_cmd(
        common::cmd().args(["--format", "pretty", "--color", "never"]).env("COLUMNS", "60"),
        format!("{line}\n").as_bytes(),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let doc_lines: Vec<&str> = text.lines().skip(2).take_while(|l| !l.contains(" = ")).collect();
    assert!(!doc_lines.is_empty() && doc_lines.iter().all(|l| l.chars().count() <= 60), "{text}");
    let doc = doc_lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    assert!(doc.ends_with('.') && !doc.contains(". "), "one sentence: {doc}");
}

/// `tests/data/real-shapes.log`: pastes of the shapes issue 20 names, each read as its own input
/// (as a user pastes one into annotail), against `real-shapes.truth.jsonl`.
#[test]
fn real_shapes_fixture_matches_its_truth() {
    let dir = common::manifest_dir().join("tests/data");
    let log = std::fs::read_to_string(dir.join("real-shapes.log")).unwrap();
    let truth: Vec<Value> = std::fs::read_to_string(dir.join("real-shapes.truth.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut pastes: Vec<(String, String)> = Vec::new();
    for line in log.lines() {
        match line.strip_prefix("#### paste: ") {
            Some(shape) => pastes.push((shape.to_owned(), String::new())),
            None => {
                let p = &mut pastes.last_mut().expect("the file starts with a paste marker").1;
                p.push_str(line);
                p.push('\n');
            }
        }
    }
    assert_eq!(pastes.len(), truth.len(), "one truth line per paste");
    let (mut want_errors, mut found_errors, mut info_flagged) = (0, 0, 0);
    for ((shape, text), t) in pastes.iter().zip(&truth) {
        assert_eq!(t["shape"], shape.as_str());
        let evs = all_events(text);
        let want = t["events"].as_array().unwrap();
        assert_eq!(evs.len(), want.len(), "{shape}: {evs:#?}");
        for (e, w) in evs.iter().zip(want) {
            let m = &e["match"];
            assert_eq!(e["source"]["line"], w["line"], "{shape}");
            assert_eq!(e["source"]["lines"], w["lines"], "{shape}");
            assert_eq!(e["log"]["level"].as_str(), w["level"].as_str(), "{shape}");
            assert_eq!(m["id"].as_str(), w["id"].as_str(), "{shape}: {e}");
            if !w["id"].is_null() {
                want_errors += 1;
                found_errors += usize::from(m["id"] == w["id"]);
                assert_eq!(m["captures"], w["captures"], "{shape}");
                assert_eq!(m.get("by"), w.get("by"), "{shape}");
                assert_eq!(m.get("distance"), w.get("distance"), "{shape}");
                let also: Vec<Value> = e["also_matched"].as_array().unwrap().iter().map(|a| a["id"].clone()).collect();
                assert_eq!(&also, w["also"].as_array().unwrap(), "{shape}");
            }
            let ctx: Option<Vec<Value>> = e["context"].as_array().map(|a| a.iter().map(|c| c["id"].clone()).collect());
            assert_eq!(ctx.as_ref(), w["context"].as_array(), "{shape}");
            assert_eq!(e["log"].get("kubernetes"), w.get("kubernetes"), "{shape}");
            let level = e["log"]["level"].as_str().unwrap_or("");
            if matches!(level, "INFO" | "DEBUG" | "TRACE") && !m.is_null() {
                info_flagged += 1;
            }
        }
    }
    assert_eq!(found_errors, want_errors);
    assert_eq!(info_flagged, 0, "no INFO/DEBUG line of the fixture carries an error annotation");
}

/// Regression (found by an on-call reader): a JSON line's span fields were read after its
/// `fields`, so the rule that the match furthest into the event wins made a span's error the
/// primary over the line's own `error` field, while the same event as text (the span printed
/// before the message) took the field: one event, two primaries, counted under two records.
#[test]
fn regression_a_json_line_ranks_its_span_error_as_its_text_line_does() {
    let json = r#"{"timestamp":"2026-03-02T08:01:05.000000001Z","level":"WARN","fields":{"message":"recovery failed","error":"Invalid struct type"},"target":"risingwave_meta::barrier::recovery","spans":[{"error":"Hummock error: SST 180 is invalid","name":"failure_recovery"},{"name":"recovery_attempt"}]}"#;
    let text = "2026-03-02T08:01:05.000000001Z  WARN failure_recovery{error=Hummock error: SST 180 is invalid}:recovery_attempt: risingwave_meta::barrier::recovery: recovery failed error=Invalid struct type";
    let evs = all_events(&format!("{json}\n{text}\n"));
    assert_eq!(evs.len(), 2, "{evs:?}");
    let ids = |e: &Value| -> Vec<String> {
        std::iter::once(&e["match"])
            .chain(e["also_matched"].as_array().unwrap())
            .map(|m| m["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(evs[0]["log"]["format"], "json");
    // The message is still the line's own (it was empty once span fields were read first).
    assert_eq!(evs[0]["message"], "recovery failed", "{}", evs[0]);
    assert_eq!(evs[0]["match"]["field"], "fields.error", "{}", evs[0]);
    assert_eq!(evs[1]["match"]["field"], "fields.error", "{}", evs[1]);
    assert_eq!(ids(&evs[0]), ids(&evs[1]), "the same records in the same order");
    assert!(ids(&evs[0]).contains(&SST.to_owned()), "the span's error is still reported: {}", evs[0]);
}
