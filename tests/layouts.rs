//! Log layouts (see `LOG_FORMATS.md`): each yields the right `log.format` and fields, and the
//! matcher sees the cleaned text: RisingWave text, JSON, `kubectl logs --prefix/--timestamps`,
//! CRI records (with `P` partials), ANSI colours, panics and multi-line reports.

mod common;

use common::*;
use serde_json::{Value, json};

fn all(fx: &Fixture, input: &str) -> Vec<Value> {
    let out = fx.run(&["--all"], input.as_bytes());
    let evs = ok_events(&out);
    assert_covers(&evs, physical_lines(input.as_bytes()));
    evs
}

// ---------------------------------------------------------------------------------------------
// RisingWave text

#[test]
fn text_line_gives_level_target_spans_and_fields() {
    let fx = fixture();
    let line = "2024-05-21T15:54:00.761337526Z  WARN failure_recovery{error=Hummock error: SST 180 is invalid prev_epoch=6492695734583296}:recovery_attempt: risingwave_meta::barrier::recovery: scale actors failed error=barrier collection failed for actor 3 actor_id=9";
    let evs = ok_events(&fx.run(&[], format!("{line}\n").as_bytes()));
    assert_eq!(evs.len(), 1, "{evs:#?}");
    let e = &evs[0];
    assert_eq!(e["@timestamp"], "2024-05-21T15:54:00.761337526Z");
    let log = &e["log"];
    assert_eq!(log["format"], "risingwave");
    assert_eq!(log["level"], "WARN");
    assert_eq!(log["target"], "risingwave_meta::barrier::recovery");
    assert_eq!(
        log["spans"],
        json!([
            {"name": "failure_recovery", "fields": {"error": "Hummock error: SST 180 is invalid", "prev_epoch": "6492695734583296"}},
            {"name": "recovery_attempt", "fields": {}}
        ])
    );
    assert_eq!(log["fields"], json!({"error": "barrier collection failed for actor 3", "actor_id": "9"}));
    let m = &e["match"];
    assert_eq!(m["id"], "t-split");
    assert_eq!(m["severity"], "warning");
    assert_eq!(m["field"], "fields.error");
    // The trailing capture ends with its field value, not at the next ` key=`.
    assert_eq!(m["captures"], json!({"actor_id": "3"}));
    let (a, b) = (m["span"][0].as_u64().unwrap() as usize, m["span"][1].as_u64().unwrap() as usize);
    assert_eq!(&e["message"].as_str().unwrap()[a..b], "barrier collection failed for actor 3");
    assert_eq!(e["also_matched"], json!([]));
}

#[test]
fn text_match_inside_a_span_field_names_the_span() {
    let fx = fixture();
    let line = "2026-03-02T08:00:01.886612382Z  WARN failure_recovery{error=barrier collection failed for actor 12}:recovery_attempt: risingwave_meta::barrier::progress: recovering mview progress";
    let evs = ok_events(&fx.run(&[], format!("{line}\n").as_bytes()));
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0]["log"]["level"], "WARN");
    assert_eq!(evs[0]["match"]["field"], "span:failure_recovery.error");
    assert_eq!(evs[0]["match"]["captures"]["actor_id"], "12", "capture stops at the span's `}}`: {}", evs[0]);
    // On an INFO line the span's error is context, named the same way.
    let info = line.replace("  WARN ", "  INFO ");
    let evs = ok_events(&fx.run(&["--all"], format!("{info}\n").as_bytes()));
    assert!(evs[0]["match"].is_null(), "{}", evs[0]);
    assert_eq!(evs[0]["context"][0]["field"], "span:failure_recovery.error");
    assert_eq!(evs[0]["context"][0]["captures"]["actor_id"], "12");
}

#[test]
fn text_thread_name_and_local_offset() {
    let fx = fixture();
    let line = r#"2025-07-07T11:13:02.30108805-04:00  WARN   rw-standalone-meta risingwave_meta::barrier::rpc: bind failed error=column "v2" is ambiguous"#;
    let evs = ok_events(&fx.run(&[], format!("{line}\n").as_bytes()));
    assert_eq!(evs.len(), 1);
    let e = &evs[0];
    assert_eq!(e["@timestamp"], "2025-07-07T11:13:02.30108805-04:00");
    assert_eq!(e["log"]["thread"], "rw-standalone-meta");
    assert_eq!(e["log"]["target"], "risingwave_meta::barrier::rpc");
    assert_eq!(e["match"]["id"], "t-quote");
    assert_eq!(e["match"]["captures"]["name"], "v2");
}

// ---------------------------------------------------------------------------------------------
// JSON layout

#[test]
fn json_layout_matches_the_decoded_field_value_with_escaped_quotes() {
    let fx = fixture();
    let line = r#"{"timestamp":"2026-03-02T08:00:29.167772591Z","level":"ERROR","fields":{"message":"query failed","actor_id":80012,"error":"Bind error: column \"v1\" is ambiguous"},"target":"risingwave_frontend::handler"}"#;
    assert!(line.contains(r#"\"v1\""#), "the raw line holds escaped quotes");
    let evs = ok_events(&fx.run(&[], format!("{line}\n").as_bytes()));
    assert_eq!(evs.len(), 1, "{evs:#?}");
    let e = &evs[0];
    assert_eq!(e["log"]["format"], "json");
    assert_eq!(e["log"]["level"], "ERROR");
    assert_eq!(e["log"]["target"], "risingwave_frontend::handler");
    assert_eq!(e["log"]["fields"]["actor_id"], "80012");
    assert_eq!(e["log"]["fields"]["error"], r#"Bind error: column "v1" is ambiguous"#);
    assert_eq!(e["@timestamp"], "2026-03-02T08:00:29.167772591Z");
    assert_eq!(e["message"], "query failed");
    assert_eq!(e["match"]["id"], "t-quote");
    assert_eq!(e["match"]["field"], "fields.error");
    assert_eq!(e["match"]["captures"]["name"], "v1");
}

/// `kubectl logs --timestamps` of RisingWave's JSON logs (`RISINGWAVE_CLOUD`): the runtime's
/// time before each object. The line was read as plain text before.
#[test]
fn regression_json_behind_kubectl_timestamps_is_json() {
    let fx = fixture();
    let obj = r#"{"timestamp":"2026-03-02T08:00:29.167772591Z","level":"ERROR","fields":{"message":"query failed","error":"Bind error: column \"v1\" is ambiguous"},"target":"risingwave_frontend::handler"}"#;
    for prefix in ["2026-03-02T08:00:29.2Z ", "[pod/risingwave-meta-0/meta] 2026-03-02T08:00:29.2Z "] {
        let evs = ok_events(&fx.run(&[], format!("{prefix}{obj}\n").as_bytes()));
        assert_eq!(evs.len(), 1, "{evs:#?}");
        let e = &evs[0];
        assert_eq!(e["log"]["format"], "json", "{e}");
        assert_eq!(e["log"]["level"], "ERROR");
        assert_eq!(e["@timestamp"], "2026-03-02T08:00:29.167772591Z", "RisingWave's own timestamp, not the runtime's");
        assert_eq!(e["message"], "query failed");
        assert_eq!(e["match"]["id"], "t-quote");
        assert_eq!(e["match"]["captures"]["name"], "v1");
    }
}

#[test]
fn json_layout_matches_span_fields_and_decoded_newlines() {
    let fx = fixture();
    let spans = r#"{"timestamp":"2026-03-02T08:00:29.1Z","level":"ERROR","fields":{"message":"failed to resolve the worker node address","actor_id":80012,"error":"failed to parse jdbc url"},"target":"risingwave_meta::barrier::rpc","spans":[{"error":"barrier collection failed for actor 12","name":"failure_recovery"},{"name":"recovery_attempt"}]}"#;
    let newline = r#"{"timestamp":"2026-03-02T08:00:30.1Z","level":"WARN","fields":{"message":"failed to handle query","error":"Not supported: streaming nested loop join\nHINT: use an equi-join"},"target":"risingwave_frontend::handler"}"#;
    let evs = all(&fx, &lines(&[spans, newline]));
    assert_eq!(evs.len(), 2);
    let e = at_line(&evs, 1);
    assert_eq!(e["log"]["spans"][0]["name"], "failure_recovery");
    assert_eq!(e["log"]["spans"][1], json!({"name": "recovery_attempt", "fields": {}}));
    assert_eq!(match_id(e), Some("t-split"));
    assert_eq!(e["match"]["field"], "spans[0].error");
    assert_eq!(e["match"]["captures"]["actor_id"], "12");
    let e = at_line(&evs, 2);
    assert_eq!(src_lines(e), 1, "a JSON event is one physical line");
    assert_eq!(match_id(e), Some("t-ml"), "the escaped \\n is a line break once decoded: {e}");
    assert_eq!(e["match"]["captures"]["_1"], "streaming nested loop join");
    assert_eq!(e["match"]["captures"]["_2"], "use an equi-join");
}

#[test]
fn json_layout_does_not_match_across_field_boundaries() {
    let fx = fixture();
    // The raw line holds `barrier collection failed for actor ","actor_id":5`, which the pattern
    // would match; the decoded message ends after `actor `, which it must not.
    let line = r#"{"timestamp":"2026-03-02T08:00:29.1Z","level":"WARN","fields":{"message":"barrier collection failed for actor ","actor_id":5},"target":"risingwave_meta::x"}"#;
    let evs = all(&fx, &lines(&[line]));
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0]["log"]["format"], "json");
    assert_eq!(evs[0]["match"], Value::Null, "{}", evs[0]);
    assert!(ok_events(&fx.run(&[], format!("{line}\n").as_bytes())).is_empty());
}

// ---------------------------------------------------------------------------------------------
// kubectl logs --prefix / --timestamps

#[test]
fn kubectl_prefix_and_timestamps_give_pod_and_container_on_every_line() {
    let fx = fixture();
    let p = "[pod/risingwave-meta-0/meta] ";
    let input = lines(&[
        &format!("{p}2026-03-02T08:00:30.868199738Z {}", info_line(29, "before")),
        &format!(
            "{p}2026-03-02T08:00:30.968199738Z {}",
            rw_line(
                30,
                "WARN",
                "risingwave_meta::stream::stream_manager",
                "failed to notify cancellation result: s3 delete error"
            )
        ),
        &format!("{p}2026-03-02T08:00:30.968199739Z "),
        &format!("{p}2026-03-02T08:00:30.968199740Z Caused by:"),
        &format!(
            "{p}2026-03-02T08:00:30.968199741Z     error returned from database: duplicate key value violates unique constraint \"object_pkey\""
        ),
        &format!("{p}2026-03-02T08:00:31.868199738Z {}", split_line(31, 8)),
    ]);
    let evs = all(&fx, &input);
    assert_eq!(evs.len(), 3, "{evs:#?}");
    for e in &evs {
        assert_eq!(e["log"]["format"], "risingwave", "{e}");
        assert_eq!(e["log"]["kubernetes"], json!({"pod": "risingwave-meta-0", "container": "meta"}), "{e}");
        let msg = e["message"].as_str().unwrap();
        assert!(!msg.contains("[pod/"), "prefixes are not part of the message: {msg:?}");
        assert!(!msg.contains("08:00:30.968199"), "runtime timestamps are not part of the message: {msg:?}");
    }
    let e = at_line(&evs, 2);
    assert_eq!(src_lines(e), 4);
    assert_eq!(e["@timestamp"], "2026-03-02T08:00:30.123456789Z", "RisingWave's own timestamp, not the runtime's");
    assert_eq!(e["log"]["level"], "WARN");
    assert_eq!(match_id(e), Some("t-inner"));
    assert_eq!(e["match"]["captures"]["constraint"], "\"object_pkey\"");
    let e = at_line(&evs, 6);
    assert_eq!(match_id(e), Some("t-split"));
    assert_eq!(e["match"]["captures"]["actor_id"], "8");
}

#[test]
fn kubectl_timestamps_alone_are_removed_from_continuation_lines() {
    let fx = fixture();
    let input = lines(&[
        &format!(
            "2026-03-02T08:00:30.868199738Z {}",
            rw_line(
                30,
                "ERROR",
                "risingwave_frontend::handler",
                "failed to handle query error=Not supported: streaming nested loop join"
            )
        ),
        "2026-03-02T08:00:30.868199739Z HINT: The non-equal join in the query requires a nested-loop join executor",
        &format!("2026-03-02T08:00:31.868199738Z {}", info_line(31, "after")),
    ]);
    let evs = all(&fx, &input);
    assert_eq!(evs.len(), 2, "{evs:#?}");
    let e = at_line(&evs, 1);
    assert_eq!(src_lines(e), 2);
    assert_eq!(e["log"]["format"], "risingwave");
    assert_eq!(match_id(e), Some("t-ml"), "{e}");
    assert_eq!(e["match"]["captures"]["_2"], "The non-equal join in the query requires a nested-loop join executor");
    assert!(!e["message"].as_str().unwrap().contains("08:00:30.868199739Z"), "{e}");
}

/// `kubectl logs --timestamps --previous` of a crashed pod: a panic behind the runtime's time
/// was plain text when it was the stream's first line, and when only INFO lines came before it
/// in a block that `--unknown warn` skims (their times were never read, so the prefix was not
/// known): the crash was missing from JSON, `--summary`, `discover` and `report` (found by a
/// second reader).
#[test]
fn regression_a_panic_behind_kubectl_timestamps_is_a_panic() {
    let fx = fixture();
    let panic = [
        "2026-03-02T08:00:02.447446023Z thread 'rw-main' (14) panicked at src/meta/src/barrier/checkpoint/state.rs:207:34:",
        "2026-03-02T08:00:02.447462148Z attempt to subtract with overflow",
        "2026-03-02T08:00:02.447464646Z note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
    ];
    let info = format!("2026-03-02T08:00:02.0Z {}", info_line(1, "starting leader services"));
    for (first, input) in [(1, lines(&panic)), (2, lines(&[&info, panic[0], panic[1], panic[2]]))] {
        let file = fx.write("crash.log", &input);
        for from_file in [false, true] {
            let out = if from_file {
                fx.run(&["--unknown", "warn", &file.display().to_string()], b"")
            } else {
                fx.run(&["--unknown", "warn"], input.as_bytes())
            };
            let evs = ok_events(&out);
            assert_eq!(evs.len(), 1, "{input}\n{evs:#?}");
            let e = &evs[0];
            assert_eq!((src_line(e), src_lines(e)), (first, 3), "{e}");
            assert_eq!(e["log"]["format"], "panic", "{e}");
            assert_eq!(e["@timestamp"], "2026-03-02T08:00:02.447446023Z", "{e}");
            assert!(e["message"].as_str().unwrap().starts_with("thread 'rw-main' (14) panicked at"), "{e}");
            assert!(!e["message"].as_str().unwrap().contains("08:00:02.447462148Z"), "{e}");
            assert!(e["unknown"]["template"].as_str().unwrap().contains("panicked at"), "{e}");
        }
    }
}

/// `grep -n -A2 ERROR meta.log | annotail`: the line numbers grep puts before each line
/// (`12:`, and `13-` on its context lines) made every line plain text, with no level, so
/// `--unknown warn` dropped the unknown errors without a word (found by a second reader). They
/// are taken off, continuation lines' too; a RisingWave line's own time is never taken for one.
#[test]
fn regression_grep_line_numbers_are_taken_off() {
    let fx = fixture();
    let input = lines(&[
        "12:2026-03-02T08:00:00.0Z ERROR risingwave_meta::x: sink writer 7 failed: broken pipe",
        "13-Caused by:",
        "14-    disk gone",
        "--",
        "20:2026-03-02T08:00:01.0Z  WARN risingwave_meta::x: slow disk on node 3",
        "2026-03-02T08:00:02.0Z  WARN risingwave_meta::x: slow disk on node 4",
    ]);
    let evs = ok_events(&fx.run(&["--unknown", "warn"], input.as_bytes()));
    let got: Vec<(u64, u64, &str, &str)> = evs
        .iter()
        .map(|e| {
            (src_line(e), src_lines(e), e["log"]["level"].as_str().unwrap(), e["unknown"]["template"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        got,
        [
            (1, 4, "ERROR", "sink writer <*> failed"),
            (5, 1, "WARN", "slow disk on node <*>"),
            (6, 1, "WARN", "slow disk on node <*>")
        ],
        "{evs:#?}"
    );
    // grep's `--` between groups is a line of the event above, with no text.
    assert_eq!(
        evs[0]["message"],
        "2026-03-02T08:00:00.0Z ERROR risingwave_meta::x: sink writer 7 failed: broken pipe\nCaused by:\n    disk gone\n"
    );
    assert_eq!(evs[2]["@timestamp"], "2026-03-02T08:00:02.0Z");
    // grep of a container's log file, of `kubectl logs --timestamps`, of the journal: the
    // prefixes behind grep's are read too (a third reader found these dropped).
    for (line, format) in [
        ("3:2026-03-02T08:00:00.1Z stderr F 2026-03-02T08:00:00.123Z ERROR risingwave_meta::b: via cri", "cri"),
        (
            "7:2026-03-02T08:00:00.447446023Z 2026-03-02T08:00:00.123Z ERROR risingwave_meta::b: via kubectl",
            "risingwave",
        ),
        (
            "9:Mar  2 08:00:00 host risingwave[12]: 2026-03-02T08:00:00.123Z ERROR risingwave_meta::b: via the journal",
            "risingwave",
        ),
    ] {
        let evs = ok_events(&fx.run(&["--unknown", "warn"], format!("{line}\n").as_bytes()));
        assert_eq!(evs.len(), 1, "{line}");
        assert_eq!(
            (evs[0]["log"]["format"].as_str(), evs[0]["log"]["level"].as_str()),
            (Some(format), Some("ERROR")),
            "{line}"
        );
        assert!(evs[0]["message"].as_str().unwrap().starts_with("2026-03-02T08:00:00.123Z ERROR"), "{}", evs[0]);
    }
    // Lines of another stream that start with digits and a colon or a dash, after grep's: left
    // as they are (they were taken off as grep's numbers).
    let input = lines(&[
        "12:2026-03-02T08:00:00.0Z ERROR risingwave_meta::x: failed to connect",
        "10:30:00 ERROR something bad happened here",
        "404-not-found ERROR page missing",
    ]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    let text: String = evs.iter().map(|e| e["message"].as_str().unwrap()).collect::<Vec<_>>().join("\n");
    assert!(
        text.contains("\n10:30:00 ERROR something bad happened here\n404-not-found ERROR page missing"),
        "{evs:#?}"
    );
}

/// Found by a second reader pasting logs: `grep -r ERROR /var/log/risingwave/`, `grep -H`,
/// `zgrep` and piped `rg` put the file's name before each line (`meta-0.log:`, `meta-0.log-` on a
/// line of context, `meta-0.log:12:` with `-n`), `cat -n` and `nl` a number and a tab, and
/// `stern --timestamps` a time after its prefix: every line was plain text (no level, no time,
/// no unknown errors, a cluster per file name; `cat -n` made 1,000-line events). They are read
/// as the lines without them.
#[test]
fn regression_grep_file_names_cat_n_numbers_and_stern_times_are_taken_off() {
    let fx = fixture();
    let err = "2026-03-02T08:00:00.0Z ERROR risingwave_meta::x: sink writer 7 failed: broken pipe";
    let warn = "2026-03-02T08:00:01.0Z  WARN risingwave_meta::x: slow disk on node 3";
    let cases: Vec<(&str, String)> = vec![
        (
            "grep -H -A2",
            lines(&[
                &format!("logs/meta-0.log:{err}"),
                "logs/meta-0.log-Caused by:",
                "logs/meta-0.log-    disk gone",
                "--",
                &format!("logs/meta-1.log:{warn}"),
            ]),
        ),
        (
            "grep -Hn -A2",
            lines(&[
                &format!("meta-0.log:12:{err}"),
                "meta-0.log-13-Caused by:",
                "meta-0.log-14-    disk gone",
                "--",
                &format!("meta-1.log:3:{warn}"),
            ]),
        ),
        (
            "cat -n",
            lines(&[
                &format!("     1\t{err}"),
                "     2\tCaused by:",
                "     3\t    disk gone",
                &format!("     4\t{warn}"),
            ]),
        ),
        // Copied from a terminal, the tab is blanks to the next tab stop; `less -N` numbers in
        // seven columns and a blank; an empty line keeps its number alone (an on-call
        // engineer's reading: a whole paste was one event of plain text).
        (
            "cat -n from a terminal",
            lines(&[
                &format!("     1  {err}"),
                "     2  Caused by:",
                "     3      disk gone",
                "     4",
                &format!("     5  {warn}"),
            ]),
        ),
        (
            "less -N",
            lines(&[
                &format!("      1 {err}"),
                "      2 Caused by:",
                "      3     disk gone",
                &format!("      4 {warn}"),
            ]),
        ),
        (
            "stern --timestamps",
            lines(&[
                &format!("risingwave-meta-0 meta 2026-03-02T08:00:00.1Z {err}"),
                "risingwave-meta-0 meta 2026-03-02T08:00:00.1Z Caused by:",
                "risingwave-meta-0 meta 2026-03-02T08:00:00.1Z     disk gone",
                &format!("risingwave-meta-0 meta 2026-03-02T08:00:01.1Z {warn}"),
            ]),
        ),
    ];
    for (shape, input) in cases {
        let evs = ok_events(&fx.run(&["--unknown", "warn"], input.as_bytes()));
        let got: Vec<(&str, &str)> = evs
            .iter()
            .map(|e| (e["log"]["level"].as_str().unwrap_or("-"), e["unknown"]["template"].as_str().unwrap_or("-")))
            .collect();
        assert_eq!(got, [("ERROR", "sink writer <*> failed"), ("WARN", "slow disk on node <*>")], "{shape}: {evs:#?}");
        let first = evs[0]["message"].as_str().unwrap();
        assert!(first.starts_with(&format!("{err}\nCaused by:\n    disk gone")), "{shape}: {first:?}");
        assert_eq!(evs[1]["@timestamp"], "2026-03-02T08:00:01.0Z", "{shape}");
    }
    // regression (found by a third reader): the first line of another file's context, after
    // grep's `--`, was glued to the event above; and a line of many `word:` tokens overflowed
    // the stack (one look for a file name a token).
    let input = lines(&[
        &format!("./a.log:{err}"),
        "--",
        "./b-0.log-2026-03-02T08:00:00.5Z  INFO risingwave_meta::y: starting barrier manager",
        &format!("./b-0.log:{warn}"),
        &"ab:".repeat(20_000),
    ]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    let got: Vec<(u64, &str)> = evs.iter().map(|e| (src_line(e), e["log"]["level"].as_str().unwrap_or("-"))).collect();
    assert_eq!(got, [(1, "ERROR"), (3, "INFO"), (4, "WARN")], "{evs:#?}");
    // A line of another stream with a word and a colon before it keeps them: no header follows.
    let input = lines(&["error:2026-03-02T08:00:00.0Z is when it broke", "Caused by: something"]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    assert!(evs[0]["message"].as_str().unwrap().starts_with("error:2026-03-02T08:00:00.0Z is when"), "{evs:#?}");
}

/// Found by a second reader pasting logs: behind a paste's indent or quotes, a header's other
/// prefixes (compose's, the journal's, `kubectl --prefix`'s) stayed on every line below it, and
/// so did a nested quote's second `>` and an indented paste's indent: the cause below a header
/// was lost or clustered with the prefix (`<*> |`, one cluster for seven errors), and a record
/// whose message spans lines no longer matched. The lines of a pasted event lose the header's
/// prefix, and the prefixes behind it are read as on the header.
#[test]
fn regression_the_lines_of_a_pasted_event_lose_the_headers_prefixes() {
    let fx = fixture();
    let bare = [
        "2026-03-02T08:00:00.0Z ERROR risingwave_meta::x: sink writer 7 failed: broken pipe",
        "",
        "Caused by:",
        "    disk gone",
        "2026-03-02T08:00:01.0Z  WARN risingwave_meta::x: slow disk on node 3",
    ];
    let summary = |input: String| -> Vec<(u64, String, String)> {
        ok_events(&fx.run(&["--unknown", "warn"], input.as_bytes()))
            .iter()
            .map(|e| {
                (
                    src_line(e),
                    e["message"].as_str().unwrap().to_owned(),
                    e["unknown"]["template"].as_str().unwrap_or("-").to_owned(),
                )
            })
            .collect()
    };
    let want = summary(lines(&bare));
    assert_eq!(want[0].2, "sink writer <*> failed", "{want:?}");
    for prefix in [
        "> risingwave-meta-1  | ",
        "> Mar 02 08:00:00 node1 risingwave[4242]: ",
        "    [pod/risingwave-meta-0/meta] ",
        "> > ",
        "    ",
        "  ",
    ] {
        let pasted: Vec<String> = bare.iter().map(|l| format!("{prefix}{l}")).collect();
        let refs: Vec<&str> = pasted.iter().map(String::as_str).collect();
        assert_eq!(summary(lines(&refs)), want, "{prefix:?}");
    }
}

/// `journalctl -u risingwave | annotail` and a tailed `/var/log/syslog`: every line, its
/// continuation lines too, behind `<time> <host> <ident>[<pid>]: `. Such lines were plain text:
/// no level, no fields, no `Caused by:` report joined, nothing clustered at `--unknown warn`.
/// They are read as the lines without the prefix are, in both of journalctl's time forms.
#[test]
fn regression_journal_and_syslog_prefixes_are_taken_off_every_line() {
    let fx = fixture();
    let input = lines(&[
        &rw_line(
            30,
            "ERROR",
            "risingwave_frontend::handler",
            "failed to handle query error=Not supported: streaming nested loop join",
        ),
        "Caused by:",
        "  Not supported: streaming nested loop join",
        &info_line(31, "after"),
    ]);
    let plain = fx.run(&["--all", "--unknown", "warn"], input.as_bytes());
    let want: Vec<Value> = ok_events(&plain).into_iter().map(without_prefix_facts).collect();
    assert_eq!(want.len(), 2);
    assert_eq!(src_lines(&want[0]), 3);
    let prefixes = ["Dec  5 10:00:00 node-1 risingwave[4242]: ", "2026-12-05T10:00:00.123456+00:00 node-1 risingwave[4242]: "];
    for prefix in prefixes {
        let prefixed: String = input.lines().map(|l| format!("{prefix}{l}\n")).collect();
        for args in [&["--all", "--unknown", "warn"][..], &["--unknown", "warn"][..]] {
            let evs = ok_events(&fx.run(args, prefixed.as_bytes()));
            let got: Vec<Value> = evs.into_iter().map(without_prefix_facts).collect();
            let want: Vec<&Value> = want
                .iter()
                .filter(|e| args.len() == 3 || !e["match"].is_null() || e.get("unknown").is_some())
                .collect();
            assert_eq!(got.iter().collect::<Vec<_>>(), want, "{prefix:?} {args:?}");
        }
    }
}

/// An event without what a prefix changes: `observed`, the offsets, and `@timestamp` where the
/// line has none of its own.
fn without_prefix_facts(mut e: Value) -> Value {
    let o = e.as_object_mut().unwrap();
    o.remove("observed");
    o["source"].as_object_mut().unwrap().remove("offset");
    if o["log"]["format"] == "plain" {
        o.remove("@timestamp");
    }
    e
}

// ---------------------------------------------------------------------------------------------
// CRI container logs

const CRI_P: &str = "2026-03-02T08:00:30.868199738Z stdout P 2026-03-02T08:00:30.867644121Z  WARN risingwave_meta::barrier::rpc: collect failed error=barrier collection fai";
const CRI_F: &str = "2026-03-02T08:00:30.868199739Z stdout F led for actor 4242 epoch=1";
const CRI_NEXT: &str =
    "2026-03-02T08:00:31.868199738Z stdout F 2026-03-02T08:00:31.867644121Z  INFO risingwave_meta::x: fine";

#[test]
fn cri_partial_record_is_joined_with_the_following_full_record() {
    let fx = fixture();
    let evs = ok_events(&fx.run(&["--all"], lines(&[CRI_P, CRI_F, CRI_NEXT]).as_bytes()));
    assert_eq!(evs.len(), 2, "{evs:#?}");
    let e = &evs[0];
    assert_eq!(src_line(e), 1);
    assert_eq!(e["log"]["format"], "cri");
    assert_eq!(e["log"]["content_format"], "risingwave");
    assert_eq!(e["log"]["stream"], "stdout");
    assert_eq!(e["log"]["level"], "WARN");
    assert_eq!(e["@timestamp"], "2026-03-02T08:00:30.867644121Z");
    assert_eq!(match_id(e), Some("t-split"), "a message split across the P/F boundary still matches: {e}");
    assert_eq!(e["match"]["captures"]["actor_id"], "4242");
    assert_eq!(e["log"]["fields"]["epoch"], "1");
    assert!(!e["message"].as_str().unwrap().contains("stdout"), "CRI prefixes are removed: {e}");
    let e = &evs[1];
    assert_eq!(src_line(e), 3);
    assert_eq!(e["match"], Value::Null);
    assert_eq!(e["log"]["format"], "cri");
}

/// The truth format and the `--all` contract: `source.lines` counts the physical lines of an
/// event, so a record joined from a `P` and an `F` line spans two.
#[test]
fn cri_joined_record_counts_both_physical_lines() {
    let fx = fixture();
    let input = lines(&[CRI_P, CRI_F, CRI_NEXT]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    assert_eq!(evs.len(), 2, "{evs:#?}");
    assert_eq!((src_line(&evs[0]), src_lines(&evs[0])), (1, 2), "{}", evs[0]);
    assert_covers(&evs, 3);
}

/// Pretty output echoes a joined line with its first record's prefixes; it kept that record's
/// `P`, where README promises `<time> <stream> F <text>` (found by a second reader). The
/// runtime's times differ in length (RFC 3339 with its trailing zeros cut), so the tag is
/// found in the first record.
#[test]
fn regression_a_joined_record_is_echoed_as_a_full_one() {
    let fx = fixture();
    let p = "2026-03-02T08:00:30.5Z stdout P 2026-03-02T08:00:30.867644121Z  WARN risingwave_meta::barrier::rpc: collect failed error=barrier collection fai";
    for input in [lines(&[CRI_P, CRI_F, CRI_NEXT]), lines(&[p, CRI_F, CRI_NEXT])] {
        let out = fx.run(&["--format", "pretty", "--color", "never"], input.as_bytes());
        let text = String::from_utf8(out.stdout).unwrap();
        let joined = text.lines().next().unwrap();
        let want_head = &input[..input.find(" stdout P ").unwrap()];
        assert!(joined.starts_with(&format!("{want_head} stdout F 2026-03-02T08:00:30.867644121Z  WARN")), "{text}");
        assert!(joined.ends_with("barrier collection failed for actor 4242 epoch=1"), "{text}");
        assert!(!text.contains(" stdout P "), "{text}");
    }
}

/// stdout and stderr records interleave: partial records are joined per stream.
#[test]
fn cri_partial_records_are_joined_per_stream() {
    let fx = fixture();
    let input = lines(&[
        CRI_P,
        "2026-03-02T08:00:30.868199740Z stderr F thread 'rw-main' (11) panicked at src/meta/src/barrier/info.rs:1:2:",
        "2026-03-02T08:00:30.868199741Z stderr F column \"zz\" is ambiguous",
        CRI_F,
        CRI_NEXT,
    ]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    let out = serde_json::to_string_pretty(&evs).unwrap();
    let e = one_match(&evs, "t-split");
    assert_eq!(src_line(e), 1, "{out}");
    assert_eq!(e["log"]["stream"], "stdout", "{out}");
    assert_eq!(e["match"]["captures"]["actor_id"], "4242", "{out}");
    let e = one_match(&evs, "t-quote");
    assert_eq!(e["log"]["stream"], "stderr", "{out}");
    assert_eq!(e["match"]["captures"]["name"], "zz", "{out}");
}

/// Regression: a runtime splits a long line without regard to ANSI codes, and a CRI record's
/// codes were removed record by record: a code cut in two left its tail (`33m`) in the joined
/// line, before the level, so the line was not read as RisingWave text. The codes are now removed
/// once the line is joined.
#[test]
fn regression_an_ansi_code_cut_by_a_cri_split_is_removed_whole() {
    let fx = fixture();
    let input = lines(&[
        "2026-03-02T08:00:30.868199738Z stdout P 2026-03-02T08:00:30.867644121Z \x1b[3",
        "2026-03-02T08:00:30.868199739Z stdout F 3m WARN\x1b[0m risingwave_meta::barrier::rpc: collect failed error=barrier collection failed for actor 17",
    ]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    assert_eq!(evs.len(), 1, "{evs:#?}");
    let e = &evs[0];
    assert_eq!(e["log"]["content_format"], "risingwave", "{e}");
    assert_eq!(e["log"]["level"], "WARN", "{e}");
    assert_eq!(e["match"]["captures"]["actor_id"], "17", "{e}");
}

/// Regression: a stream's `P` record between the lines of the other stream's event was copied
/// into that event (its lines were a range of the block, which grew over the record).
#[test]
fn regression_a_partial_record_of_one_stream_is_not_part_of_the_other_streams_event() {
    let fx = fixture();
    let input = lines(&[
        "2026-03-02T08:00:30.1Z stderr F 2026-03-02T08:00:30.0Z  WARN x: barrier collection failed for actor 9",
        "2026-03-02T08:00:30.1Z stdout P 2026-03-02T08:00:30.0Z  INFO y: a long li",
        "2026-03-02T08:00:30.12Z stderr F   at foo.rs:1",
        "2026-03-02T08:00:30.1Z stderr F   at bar.rs:2",
        "2026-03-02T08:00:30.1Z stdout F ne ends here",
    ]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    assert_eq!(evs.len(), 2, "{evs:#?}");
    let e = one_match(&evs, "t-split");
    let want = "2026-03-02T08:00:30.0Z  WARN x: barrier collection failed for actor 9\n  at foo.rs:1\n  at bar.rs:2";
    assert_eq!(e["message"], want);
    assert_eq!(evs[1]["message"], "2026-03-02T08:00:30.0Z  INFO y: a long line ends here");
}

/// Regression: the annotator kept a stream state of its own (a stern prefix seen, `kubectl
/// --timestamps` seen), learnt only from the events it annotated, so an event read differently
/// with `--all` than without: here the JSON line that shows stern's prefix is not written
/// without `--all`, and the line after it kept its prefix as text. Lines are now read once, by
/// framing, which sees every line it frames.
#[test]
fn regression_an_event_reads_the_same_with_and_without_all() {
    let fx = fixture();
    let input = lines(&[
        r#"rw-meta-0 meta {"timestamp":"2026-03-02T08:00:29.1Z","level":"INFO","fields":{"message":"started"},"target":"risingwave_meta"}"#,
        "rw-meta-0 meta barrier collection failed for actor 6",
    ]);
    for args in [&[][..], &["--all"][..]] {
        let evs = ok_events(&fx.run(args, input.as_bytes()));
        let e = one_match(&evs, "t-split");
        assert_eq!(e["message"], "barrier collection failed for actor 6", "{args:?}: {e}");
        assert_eq!(e["log"]["kubernetes"]["pod"], "rw-meta-0", "{args:?}: {e}");
    }
}

#[test]
fn cri_file_name_gives_pod_namespace_and_container() {
    let fx = fixture();
    let log = fx.write(
        "containers/risingwave-meta-0_rw-prod_meta-0123456789abcdef0123456789abcdef.log",
        lines(&[&format!("2026-03-02T08:00:30.868199738Z stdout F {}", split_line(30, 5))]),
    );
    let out = run(&["-c".to_owned(), path_str(&fx.catalog), path_str(&log)], b"");
    let evs = ok_events(&out);
    assert_eq!(evs.len(), 1);
    assert_eq!(
        evs[0]["log"]["kubernetes"],
        json!({"pod": "risingwave-meta-0", "namespace": "rw-prod", "container": "meta"})
    );
    assert_eq!(evs[0]["source"]["path"], path_str(&log));
    assert_eq!(match_id(&evs[0]), Some("t-split"));
}

// ---------------------------------------------------------------------------------------------
// Docker json-file records

/// A Docker json-file record (`/var/lib/docker/containers/<id>/<id>-json.log`): `log` ends with
/// `\n` on a whole line; Docker splits longer lines into records without one.
fn docker(stream: &str, time: &str, log: &str) -> String {
    json!({"log": log, "stream": stream, "time": time}).to_string()
}

/// Regression: Docker's json-file logs gave no events. Each record was read as a JSON line of
/// RisingWave's JSON layout, which it is not: no message, no level, the known error inside it
/// never matched. A record is now read as the CRI record it stands for: its text is the line,
/// a split line is joined, `log.format` is `docker`.
#[test]
fn regression_docker_json_file_records_are_read_as_the_lines_they_carry() {
    let fx = fixture();
    let t = "2026-03-02T08:00:30.868199738Z";
    // A coloured WARN line split in three records, the split cutting an ANSI code in two; a
    // stderr record between its pieces; a `Caused by` report in records of its own.
    let input = lines(&[
        &docker("stdout", t, "2026-03-02T08:00:30.867644121Z \u{1b}[33m WARN\u{1b}[0"),
        &docker("stderr", t, "thread 'rw-main' (11) panicked at src/meta/src/barrier/info.rs:1:2:\n"),
        &docker("stdout", t, "m risingwave_meta::barrier::rpc: collect failed error=barrier collection fai"),
        &docker("stdout", t, "led for actor 4242 epoch=1\n"),
        &docker("stdout", t, "Caused by:\n"),
        &docker("stdout", t, "    the actor was dropped\n"),
        &docker("stdout", "2026-03-02T08:00:31.1Z", "2026-03-02T08:00:31.867644121Z  INFO risingwave_meta::x: fine\n"),
    ]);
    // Not `all`: the stderr record comes out before the stdout line it interrupts.
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    let out = serde_json::to_string_pretty(&evs).unwrap();
    assert_eq!(evs.len(), 3, "{out}");
    let e = one_match(&evs, "t-split");
    assert_eq!(e["log"]["format"], "docker", "{out}");
    assert_eq!(e["log"]["content_format"], "risingwave", "{out}");
    assert_eq!(e["log"]["stream"], "stdout", "{out}");
    assert_eq!(e["log"]["level"], "WARN", "the split ANSI code is removed once joined: {out}");
    assert_eq!(e["@timestamp"], "2026-03-02T08:00:30.867644121Z", "the line's own time: {out}");
    assert_eq!(e["match"]["captures"]["actor_id"], "4242", "{out}");
    // The records of the split line, then the report's two: lines 1, 3, 4, 5 and 6.
    assert_eq!((src_line(e), src_lines(e)), (1, 5), "{out}");
    let message = e["message"].as_str().unwrap();
    assert!(message.ends_with("Caused by:\n    the actor was dropped"), "{out}");
    assert!(!message.contains("\"log\"") && !message.contains("stdout") && !message.contains('\u{1b}'), "{out}");
    let panic = evs.iter().find(|e| e["log"]["stream"] == "stderr").expect("the stderr record");
    assert_eq!(panic["log"]["content_format"], "panic", "{out}");
    let last = evs.last().unwrap();
    assert_eq!(
        (last["log"]["format"].as_str(), last["log"]["level"].as_str()),
        (Some("docker"), Some("INFO")),
        "{out}"
    );
    // A JSON object that is not a Docker record stays a JSON line.
    let evs = all(&fx, r#"{"log":"a","stream":"elsewhere","time":"x"}"#);
    assert_eq!(evs[0]["log"]["format"], "json", "{evs:?}");
}

/// A Docker log read by several threads gives the events the same log of plain lines gives:
/// each record is a JSON line, and a segment cut at one that continues an event (a split line's
/// next record, a `Caused by` line) would split the event in two.
#[test]
fn docker_json_file_read_by_several_threads_gives_the_events_of_its_lines() {
    let fx = fixture();
    let t = "2026-03-02T08:00:30.868199738Z";
    let (mut plain, mut records) = (String::new(), String::new());
    // About 9 MB of records: several of the parallel reader's segments.
    for i in 0..40_000u32 {
        let event = if i % 7 == 0 {
            vec![split_line(i, i), "Caused by:".to_owned(), format!("    actor {i} was dropped")]
        } else {
            vec![info_line(i, &format!("checkpoint {i} done {}", "x".repeat(60)))]
        };
        for line in event {
            plain.push_str(&line);
            plain.push('\n');
            // Every third line split in two records, as Docker splits lines over 16 KiB.
            let cut = if i % 3 == 0 { line.len() / 2 } else { line.len() };
            let (a, b) = line.split_at(cut);
            if !b.is_empty() {
                records.push_str(&docker("stderr", t, a));
                records.push('\n');
            }
            records.push_str(&docker("stderr", t, &format!("{}\n", if b.is_empty() { a } else { b })));
            records.push('\n');
        }
    }
    let (plain, records) = (fx.write("plain.log", plain), fx.write("docker.log", records));
    let key = |e: &Value| (e["message"].clone(), e["match"]["id"].clone(), e["match"]["captures"].clone());
    let read = |log: &std::path::Path, threads: &str| -> Vec<(Value, Value, Value)> {
        let out = run(&["-c", &path_str(&fx.catalog), "--threads", threads, &path_str(log)], b"");
        ok_events(&out).iter().map(key).collect()
    };
    let want = read(&plain, "1");
    assert_eq!(want.len(), 40_000 / 7 + 1);
    assert_eq!(read(&records, "1"), want);
    assert_eq!(read(&records, "2"), want);
}

/// Regression: RisingWave's JSON layout in CRI records (a node's container log folder with
/// `RISINGWAVE_CLOUD=true`, and so Docker's records of it) was not clustered by `--unknown
/// warn`: the level look knew a JSON object at a line's start or after a timestamp, not after a
/// CRI record's stream and tag, and found no `"level":"WARN"` there.
#[test]
fn regression_json_layout_in_cri_records_is_clustered_by_unknown_warn() {
    let fx = fixture();
    let obj = r#"{"timestamp":"2026-03-02T08:00:29.167772591Z","level":"WARN","fields":{"message":"snapshot read stalled on replica 7"},"target":"risingwave_storage"}"#;
    let cri = format!("2026-03-02T08:00:29.2Z stderr F {obj}");
    let rec = docker("stderr", "2026-03-02T08:00:29.2Z", &format!("{obj}\n"));
    for input in [obj.to_owned(), cri, rec] {
        let evs = ok_events(&fx.run(&["--unknown", "warn"], format!("{input}\n").as_bytes()));
        assert_eq!(evs.len(), 1, "{input}: {evs:#?}");
        assert_eq!(evs[0]["unknown"]["template"], "snapshot read stalled on replica <*>", "{input}: {evs:#?}");
    }
}

// ---------------------------------------------------------------------------------------------
// ANSI colours (risedev / a terminal)

#[test]
fn ansi_colour_codes_are_removed_before_parsing_and_matching() {
    let fx = fixture();
    let coloured = "\x1b[2m2026-03-02T08:00:30.867644121Z\x1b[0m \x1b[33m WARN\x1b[0m \x1b[1mfailure_recovery\x1b[0m\x1b[1m{\x1b[0m\x1b[3merror\x1b[0m\x1b[2m=\x1b[0mcolumn \"s\" is ambiguous\x1b[1m}\x1b[0m\x1b[2m:\x1b[0m \x1b[2mrisingwave_meta::barrier::rpc\x1b[0m\x1b[2m:\x1b[0m collect failed \x1b[3merror\x1b[0m\x1b[2m=\x1b[0mbarrier collection failed for actor 77 \x1b[3mepoch\x1b[0m\x1b[2m=\x1b[0m5";
    let evs = all(&fx, &lines(&[&info_line(1, "plain"), coloured]));
    let e = at_line(&evs, 2);
    assert_eq!(e["log"]["format"], "risingwave");
    assert_eq!(e["log"]["level"], "WARN");
    assert_eq!(e["log"]["target"], "risingwave_meta::barrier::rpc");
    assert_eq!(e["log"]["spans"][0]["name"], "failure_recovery");
    assert_eq!(e["log"]["spans"][0]["fields"]["error"], "column \"s\" is ambiguous");
    assert_eq!(e["log"]["fields"], json!({"error": "barrier collection failed for actor 77", "epoch": "5"}));
    assert_eq!(e["@timestamp"], "2026-03-02T08:00:30.867644121Z");
    assert!(!e["message"].as_str().unwrap().contains('\x1b'), "{e}");
    // Both records are found; the span's error and the event's error field.
    let ids: Vec<&str> = std::iter::once(&e["match"])
        .chain(e["also_matched"].as_array().unwrap())
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"t-split") && ids.contains(&"t-quote"), "{e}");
    let split = std::iter::once(&e["match"])
        .chain(e["also_matched"].as_array().unwrap())
        .find(|m| m["id"] == "t-split")
        .unwrap();
    assert_eq!(split["captures"]["actor_id"], "77");
}

/// Found by a paster: a line coloured on a terminal and pasted where the ESC byte is dropped (a
/// GitHub issue, a web page, a CI log viewer) reads `[2m2026-…[0m [33m WARN[0m …`, and `cat -v`
/// shows the ESC as `^[`. Every such line was plain text: no level, no time, no unknown errors,
/// captures that ended in `[0m`, events that took the lines after them. They are read as the
/// lines without the codes: the same events as the plain text, on every path (skipped lines,
/// `--all`, `--unknown`).
#[test]
fn regression_colour_codes_that_lost_their_esc_are_removed_before_parsing_and_matching() {
    let fx = fixture();
    let esc = [
        "\x1b[2m2026-03-02T08:00:29.1Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mrisingwave_meta::manager\x1b[0m\x1b[2m:\x1b[0m plain",
        "\x1b[2m2026-03-02T08:00:30.867644121Z\x1b[0m \x1b[33m WARN\x1b[0m \x1b[1mfailure_recovery\x1b[0m\x1b[1m{\x1b[0m\x1b[3merror\x1b[0m\x1b[2m=\x1b[0mcolumn \"s\" is ambiguous\x1b[1m}\x1b[0m\x1b[2m:\x1b[0m \x1b[2mrisingwave_meta::barrier::rpc\x1b[0m\x1b[2m:\x1b[0m collect failed \x1b[3merror\x1b[0m\x1b[2m=\x1b[0mbarrier collection failed for actor 77 \x1b[3mepoch\x1b[0m\x1b[2m=\x1b[0m5",
        "\x1b[2m2026-03-02T08:00:31.1Z\x1b[0m \x1b[31mERROR\x1b[0m \x1b[2mrisingwave_meta::x\x1b[0m\x1b[2m:\x1b[0m sink writer 7 failed: broken pipe",
        "Caused by:",
        "    disk gone",
        "\x1b[2m2026-03-02T08:00:32.1Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mrisingwave_meta::manager\x1b[0m\x1b[2m:\x1b[0m done",
    ];
    let plain: Vec<String> = esc
        .iter()
        .map(|l| {
            let mut out = l.to_string();
            for code in ["[0m", "[1m", "[2m", "[3m", "[31m", "[32m", "[33m"] {
                out = out.replace(&format!("\x1b{code}"), "");
            }
            out
        })
        .collect();
    let lost: Vec<String> = esc.iter().map(|l| l.replace('\x1b', "")).collect();
    let caret: Vec<String> = esc.iter().map(|l| l.replace('\x1b', "^[")).collect();
    // A viewer that shows control characters as their pictures: ESC as U+241B.
    let picture: Vec<String> = esc.iter().map(|l| l.replace('\x1b', "\u{241b}")).collect();
    let join = joined;
    let facts = events_sans_offsets;
    for args in [&["--unknown", "warn"][..], &["--all"], &["--all", "--unknown", "any"]] {
        let want = facts(&fx.run(args, join(&plain).as_bytes()));
        assert!(want.len() >= 2, "{args:?}: {want:#?}");
        for (shape, input) in [("ESC dropped", join(&lost)), ("cat -v", join(&caret)), ("␛", join(&picture))] {
            let got = facts(&fx.run(args, input.as_bytes()));
            assert_eq!(got, want, "{shape} {args:?}");
        }
    }
    // regression (found by a second reader): a `[0ms]` in a value turned leftovers on (`latency=s]`),
    // and JSON's escaped codes (`\u001b[31m`) lost their brackets, leaving bare ESCs.
    let text_ms = lines(&[&rw_line(1, "WARN", "risingwave_meta::x", "slow read latency=[0ms] window=[5m]")]);
    let evs = ok_events(&fx.run(&["--unknown", "warn"], text_ms.as_bytes()));
    assert_eq!(evs[0]["log"]["fields"], json!({"latency": "[0ms]", "window": "[5m]"}), "{evs:#?}");
    let escaped = r#"{"timestamp":"2026-03-02T08:00:01.0Z","level":"ERROR","fields":{"message":"sink \u001b[31mFailed\u001b[0m x"},"target":"risingwave_meta::x"}"#;
    let evs = ok_events(&fx.run(&["--unknown", "warn"], lines(&[escaped]).as_bytes()));
    assert_eq!(evs[0]["message"], "sink \u{1b}[31mFailed\u{1b}[0m x", "{evs:#?}");
    // regression (found by a third reader): first seen past a block's first 64 KiB, the codes
    // were read as text in the rest of the block (a file is read in 4 MiB blocks).
    let filler: Vec<String> =
        (0..1_500).map(|i| info_line(i % 60, &format!("filler line {i} of plain text"))).collect();
    let late_file = fx.write("late.log", join(&[filler.clone(), lost.clone()].concat()));
    let want_late = facts(&fx.run(&["--unknown", "warn"], join(&[filler.clone(), plain.clone()].concat()).as_bytes()));
    assert!(!want_late.is_empty());
    for threads in ["1", "2"] {
        let got = facts(&fx.run(&["--unknown", "warn", "--threads", threads, &path_str(&late_file)], b""));
        let strip = |evs: &[Value]| -> Vec<Value> {
            evs.iter()
                .map(|e| {
                    let mut e = e.clone();
                    e.as_object_mut().unwrap().remove("source");
                    e
                })
                .collect()
        };
        assert_eq!(strip(&got), strip(&want_late), "--threads {threads}");
    }
    let evs = facts(&fx.run(&["--unknown", "warn"], join(&lost).as_bytes()));
    let e = at_line(&evs, 2);
    assert_eq!(e["log"]["level"], "WARN");
    assert_eq!(e["log"]["spans"][0]["fields"]["error"], "column \"s\" is ambiguous");
    assert!(!e["message"].as_str().unwrap().contains("[0m"), "{e}");
    let e = at_line(&evs, 3);
    assert_eq!((e["log"]["level"].as_str(), src_lines(e)), (Some("ERROR"), 3), "{e}");
    assert_eq!(e["unknown"]["template"], "sink writer <*> failed", "{e}");
}

/// Found by a paster: a log copied from a terminal or an editor that pads line ends with blanks,
/// or from a web page or a chat that turns indents into no-break spaces (U+00A0). A record whose
/// message spans lines (`task:\n {:?}`) no longer matched, the last `key=value` field's value
/// and a trailing capture ended in the blanks, and another program's indented stack frames were
/// events of their own. Each reads as the bare log does, event for event; the catalog's own
/// blanks at a line's end (`objects. \nDETAIL`, `not be empty `) match the bare log as before.
#[test]
fn regression_padded_line_ends_and_no_break_indents_read_as_the_bare_log() {
    let fx = fixture();
    let catalog = fx.write(
        "paste.jsonl",
        r#"{"id":"p-task","slug":"task-expired","errorMessage":"The task may be expired because of group split, task:\n {:?}","messagePattern":"The task may be expired because of group split, task:\n (.+?)"}
{"id":"p-objects","slug":"used-by-others","errorMessage":"{} used by {} other objects. \nDETAIL: {}","messagePattern":"(.+?) used by (.+?) other objects\\. \nDETAIL: (.+?)"}
{"id":"p-empty","slug":"lhs-empty","errorMessage":"lhs buffer should not be empty ","messagePattern":"lhs buffer should not be empty "}
{"id":"p-closed","slug":"writer-closed","errorMessage":"Failed to close manifest writer: {}","messagePattern":"Failed to close manifest writer: (.+?)"}
{"id":"p-class","slug":"alpha-ended","errorMessage":"alpha ended \nNEXT: {}","messagePattern":"alpha ended[ \\t]+\\x0ANEXT: (.+?)"}
{"id":"p-dollar","slug":"eps-empty","errorMessage":"eps is empty ","messagePattern":"(?:eps is full|eps is empty\\x20)$"}
{"id":"p-colon","slug":"coordinator","errorMessage":"Failed to start the sink coordinator: ","messagePattern":"Failed to start the sink coordinator: "}
"#,
    );
    let bare = [
        rw_line(
            1,
            "WARN",
            "risingwave_meta::hummock::manager::compaction",
            "The task may be expired because of group split, task:",
        ),
        " CompactTask { task_id: 7, groups: [3, 4] }".to_owned(),
        rw_line(2, "ERROR", "risingwave_frontend::handler", "table t used by 2 other objects. "),
        "DETAIL: mv1, mv2".to_owned(),
        rw_line(3, "ERROR", "risingwave_batch::x", "join failed error=lhs buffer should not be empty "),
        rw_line(
            4,
            "WARN",
            "risingwave_meta::rpc::metrics",
            "close failed error=Failed to close manifest writer: connection closed job_id=7 database_id=30",
        ),
        rw_line(5, "ERROR", "risingwave_meta::x", "sink writer 7 failed"),
        "Caused by:".to_owned(),
        "    disk gone".to_owned(),
        "2026-03-02 08:00:06,000 ERROR [main] com.example.Worker: job failed".to_owned(),
        "java.lang.IllegalStateException: gone".to_owned(),
        "    at com.example.Worker.run(Worker.java:42)".to_owned(),
        "    at java.lang.Thread.run(Thread.java:750)".to_owned(),
        rw_line(8, "ERROR", "risingwave_meta::x", "step failed: alpha ended "),
        "NEXT: beta".to_owned(),
        rw_line(9, "ERROR", "risingwave_meta::x", "check failed error=eps is empty "),
        rw_line(10, "ERROR", "risingwave_meta::x", "sink failed error=Failed to start the sink coordinator: "),
        info_line(11, "done"),
    ];
    let padded: Vec<String> = bare.iter().map(|l| format!("{l}  \t ")).collect();
    let nbsp: Vec<String> = bare
        .iter()
        .map(|l| {
            let indent = l.len() - l.trim_start_matches(' ').len();
            format!("{}{}", "\u{a0}".repeat(indent), &l[indent..])
        })
        .collect();
    let c = path_str(&catalog);
    let facts = events_sans_offsets;
    for args in [&["--unknown", "warn"][..], &["--all"], &["--all", "--unknown", "any"]] {
        let run_on = |ls: &[String]| {
            let mut a = vec!["-c", c.as_str()];
            a.extend_from_slice(args);
            facts(&run(&a, joined(ls).as_bytes()))
        };
        let want = run_on(&bare);
        for (id, caps) in [
            ("p-task", json!({"_1": "CompactTask { task_id: 7, groups: [3, 4] }"})),
            ("p-objects", json!({"_1": "table t", "_2": "2", "_3": "mv1, mv2"})),
            ("p-empty", json!({})),
            ("p-closed", json!({"_1": "connection closed"})),
            ("p-class", json!({"_1": "beta"})),
            ("p-dollar", json!({})),
            ("p-colon", json!({})),
        ] {
            let e = one_match(&want, id);
            assert_eq!(e["match"]["captures"], caps, "{args:?} {id}: {e:#}");
        }
        let e = one_match(&want, "p-closed");
        assert_eq!(e["log"]["fields"]["database_id"], "30", "{e:#}");
        for (shape, ls) in [("padded", &padded), ("no-break indents", &nbsp)] {
            assert_eq!(run_on(ls), want, "{shape} {args:?}");
        }
    }
    // regression (found by a third reader): a JSON line's message keeps a blank before its `\n`
    // (`objects. \nDETAIL`) and matched no more once patterns lost theirs; a pattern's final
    // blank still ends a word (`… emptyish` is no `… empty `), and one that ends in `\s+` met
    // no line at all.
    let json = r#"{"timestamp":"2026-03-02T08:00:01.1Z","level":"ERROR","fields":{"message":"table t used by 2 other objects. \nDETAIL: mv1, mv2"},"target":"risingwave_frontend::handler"}"#;
    let quota = fx.write(
        "quota.jsonl",
        r#"{"id":"p-quota","slug":"quota","errorMessage":"disk quota reached","messagePattern":"disk quota reached\\s+"}"#,
    );
    let c2 = path_str(&quota);
    let evs = ok_events(&run(
        &["-c", c.as_str(), "-c", c2.as_str(), "--all", "--format", "json"],
        lines(&[
            json,
            &rw_line(2, "ERROR", "risingwave_batch::x", "join failed error=lhs buffer should not be emptyish"),
            &rw_line(3, "ERROR", "risingwave_batch::x", "write failed error=disk quota reached   "),
            &rw_line(4, "ERROR", "risingwave_batch::x", "write failed error=disk quota reached for tenant 7"),
        ])
        .as_bytes(),
    ));
    let e = one_match(&evs, "p-objects");
    assert_eq!(e["match"]["captures"], json!({"_1": "table t", "_2": "2", "_3": "mv1, mv2"}), "{e:#}");
    assert_eq!(match_id(at_line(&evs, 2)), None, "{evs:#?}");
    assert_eq!(match_id(at_line(&evs, 3)), Some("p-quota"), "{evs:#?}");
    assert_eq!(match_id(at_line(&evs, 4)), Some("p-quota"), "{evs:#?}");
}

/// Found by an on-call engineer's reading: a chat's inline code block (```` ```<line>``` ````,
/// or a paste whose first line opens the fence and whose last line closes it) left its header
/// plain text (no level: `--unknown warn` dropped an unknown error) and the fence in the last
/// value (`job_id` `Idle```` `). They read as the bare log.
#[test]
fn regression_a_chats_inline_code_block_reads_as_the_bare_log() {
    let fx = fixture();
    let unknown = rw_line(1, "WARN", "risingwave_meta::x", "gizmo went sideways for actor 77 error=frob: 42");
    let known = rw_line(2, "ERROR", "risingwave_meta::x", "sink writer 7 failed job_id=Idle");
    let report = [rw_line(3, "ERROR", "risingwave_meta::x", "sink writer 8 failed"), "Caused by:".into(), "  x".into()];
    let facts = |input: &str| -> Vec<Value> {
        ok_events(&fx.run(&["--unknown", "warn"], input.as_bytes()))
            .iter()
            .map(|e| {
                let l = &e["log"];
                json!([l["level"], l["fields"], e["match"]["captures"], e["unknown"]["template"], e["source"]["lines"]])
            })
            .collect()
    };
    let bare = lines(&[&unknown, &known, &report[0], &report[1], &report[2]]);
    let want = facts(&bare);
    assert_eq!(want.len(), 3, "{want:#?}");
    assert_eq!(want[0][0], "WARN");
    let inline = format!("```{unknown}```\n```{known}```\n```{}\n{}\n{}```\n", report[0], report[1], report[2]);
    assert_eq!(facts(&inline), want, "{inline}");
    let fenced = format!("```{unknown}\n{known}\n{}\n{}\n{}```\n", report[0], report[1], report[2]);
    assert_eq!(facts(&fenced), want, "{fenced}");
    // A list's items (their other lines indented under the bullet), as a chat or an issue
    // pastes them.
    for bullet in ["* ", "- ", "+ ", "  * "] {
        let pad = " ".repeat(bullet.len());
        let [r0, r1, r2] = &report;
        let list = format!("{bullet}{unknown}\n{bullet}{known}\n{bullet}{r0}\n{pad}{r1}\n{pad}{r2}\n");
        assert_eq!(facts(&list), want, "{list}");
    }
    // A chat's typographic quotes around a panic's thread name: the panic was glued to the
    // line above it, no panic of its own.
    for quoted in ["'rw-main'", "\u{2018}rw-main\u{2019}", "\u{2019}rw-main\u{2019}"] {
        let input = format!(
            "{known}\nthread {quoted} (11) panicked at src/meta/src/barrier/info.rs:1293:30:\ncalled `Option::unwrap()` on a `None` value\n"
        );
        let evs = ok_events(&fx.run(&["--unknown", "warn"], input.as_bytes()));
        let formats: Vec<&Value> = evs.iter().map(|e| &e["log"]["format"]).collect();
        assert_eq!(formats, [&json!("risingwave"), &json!("panic")], "{quoted}: {evs:#?}");
    }
}

/// Found by a paster: RisingWave's JSON lines read through `jq .` (`kubectl logs meta-0 | jq .`,
/// or `--tab`, `--indent 4`) are one object over many lines. Each line was an event of its own:
/// the `{` a JSON line that did not parse, the level, the message and the fields plain text, no
/// known error matched in JSON, and no unknown one clustered. Each object is read as the line
/// `jq` was given, event for event.
#[test]
fn regression_pretty_printed_json_objects_are_read_as_the_lines_jq_was_given() {
    let fx = fixture();
    let objects = [
        json!({"timestamp": "2026-03-02T08:00:01.0Z", "level": "INFO", "fields": {"message": "starting"}, "target": "risingwave_meta::manager"}),
        json!({"timestamp": "2026-03-02T08:00:02.0Z", "level": "WARN", "fields": {"message": "collect failed", "error": "barrier collection failed for actor 7"}, "target": "risingwave_meta::barrier::rpc"}),
        json!({"timestamp": "2026-03-02T08:00:03.0Z", "level": "ERROR", "fields": {"message": "sink writer 9 failed: \"quoted\"\nsecond line"}, "target": "risingwave_meta::x", "spans": [{"name": "s", "job_id": 4}]}),
        json!({"timestamp": "2026-03-02T08:00:04.0Z", "level": "INFO", "fields": {"message": "done"}, "target": "risingwave_meta::manager"}),
    ];
    let panic = "thread 'main' panicked at src/x.rs:1:2:\ncalled `Option::unwrap()` on a `None` value";
    let compact: Vec<String> = objects.iter().map(|o| o.to_string()).chain([panic.to_owned()]).collect();
    let pretty = |indent: &str| -> Vec<String> {
        objects
            .iter()
            .map(|o| {
                let mut out = Vec::new();
                let f = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut out, f);
                serde::Serialize::serialize(o, &mut ser).unwrap();
                String::from_utf8(out).unwrap()
            })
            .chain([panic.to_owned()])
            .collect()
    };
    let strip = |evs: Vec<Value>| -> Vec<Value> {
        evs.into_iter()
            .map(|mut e| {
                let o = e.as_object_mut().unwrap();
                o.remove("source");
                // The panic's time is the run's.
                if !o["@timestamp"].as_str().unwrap().starts_with("2026-03-02") {
                    o.remove("@timestamp");
                }
                e
            })
            .collect()
    };
    for args in [&["--unknown", "warn"][..], &["--all"], &["--all", "--unknown", "any"]] {
        let want = strip(events_sans_offsets(&fx.run(args, joined(&compact).as_bytes())));
        let e = one_match(&want, "t-split");
        assert_eq!(e["log"]["format"], "json", "{e:#}");
        let clustered = want.iter().any(|e| e["unknown"]["template"] == "sink writer <*> failed");
        assert_eq!(clustered, args.contains(&"--unknown"), "{args:?} {want:#?}");
        for (shape, lines) in [("jq .", pretty("  ")), ("jq --tab", pretty("\t")), ("jq --indent 4", pretty("    "))] {
            let input = joined(&lines);
            assert_eq!(strip(events_sans_offsets(&fx.run(args, input.as_bytes()))), want, "{shape} {args:?}");
            let file = fx.write("pretty.log", &input);
            let mut a = args.to_vec();
            a.extend(["--threads", "2"]);
            let path = path_str(&file);
            a.push(&path);
            assert_eq!(strip(events_sans_offsets(&fx.run(&a, b""))), want, "{shape} {args:?} --threads 2");
        }
    }
    // The object's lines are the event's: the first is the `{`, the last the `}`.
    let evs = ok_events(&fx.run(&["--unknown", "warn"], joined(&pretty("  ")).as_bytes()));
    let e = one_match(&evs, "t-split");
    assert_eq!((src_line(e), src_lines(e)), (9, 9), "{e:#}");
    // regression (found by a second reader): with CRLF line ends, and past a block's first 64
    // KiB (a file is read in 4 MiB blocks), objects were framed only around a known error's
    // hit, so `--unknown warn` lost the unknown one; and a `{` never closed took the plain
    // lines after it into its event.
    let filler: Vec<String> =
        (0..1_500).map(|i| info_line(i % 60, &format!("filler line {i} of plain text"))).collect();
    let crlf: Vec<String> = pretty("  ").iter().map(|o| o.replace('\n', "\r\n")).collect();
    for (shape, lines, bare) in [
        ("CRLF", crlf, compact.clone()),
        ("after 150 KB of text", [filler.clone(), pretty("  ")].concat(), [filler.clone(), compact.clone()].concat()),
    ] {
        let want = strip(events_sans_offsets(&fx.run(&["--unknown", "warn"], joined(&bare).as_bytes())));
        let file = fx.write("late.log", joined(&lines));
        let got = strip(events_sans_offsets(&fx.run(&["--unknown", "warn", &path_str(&file)], b"")));
        assert_eq!(got, want, "{shape}");
        assert!(got.iter().any(|e| e["unknown"]["template"] == "sink writer <*> failed"), "{shape}");
    }
    let unclosed =
        lines(&["{", "sink writer 7 failed: barrier collection failed for actor 3", "column \"c\" is ambiguous"]);
    let evs = ok_events(&fx.run(&["--all"], unclosed.as_bytes()));
    assert_eq!(evs.len(), 3, "{evs:#?}");
    assert_eq!(match_id(at_line(&evs, 3)), Some("t-quote"));
}

/// Found by a paster: `stern -o json`, `journalctl -o json` and Loki's `logcli -o jsonl` wrap
/// each line in a JSON object (`message`, `MESSAGE`, `line`). Each was a JSON line without a
/// level: no unknown errors, a record's capture running into the line's fields, every line of a
/// multi-line event an event of its own. They are read as the lines they carry, with stern's
/// and Loki's pod and container.
#[test]
fn regression_json_envelopes_are_read_as_the_lines_they_carry() {
    let fx = fixture();
    let text = [
        ("meta-0", "2026-03-02T08:00:00.0Z ERROR risingwave_meta::x: sink writer 7 failed: broken pipe"),
        ("meta-0", "Caused by:"),
        ("meta-0", "    disk gone"),
        ("meta-1", "2026-03-02T08:00:00.5Z  INFO risingwave_meta::y: starting barrier manager"),
        ("meta-1", "2026-03-02T08:00:01.0Z  WARN risingwave_meta::x: slow disk on node 3"),
    ];
    let prefixed: Vec<String> = text.iter().map(|(pod, l)| format!("[pod/{pod}/meta] {l}")).collect();
    let stern: Vec<String> = text
        .iter()
        .map(|(pod, l)| {
            json!({"message": l, "nodeName": "n1", "namespace": "rw", "podName": pod, "containerName": "meta"})
                .to_string()
        })
        .collect();
    let logcli: Vec<String> = text
        .iter()
        .map(|(pod, l)| json!({"labels": {"pod": pod, "container": "meta"}, "line": l, "timestamp": "x"}).to_string())
        .collect();
    let journal: Vec<String> = text
        .iter()
        .map(|(_, l)| format!(r#"{{ "__CURSOR" : "s=1", "PRIORITY" : "6", "MESSAGE" : {}, "_PID" : "7" }}"#, json!(l)))
        .collect();
    let plain: Vec<String> = text.iter().map(|(_, l)| l.to_string()).collect();
    let join = joined;
    // What an envelope changes: the format (its line's is `content_format`) and the offsets.
    let facts = |out: &std::process::Output| -> Vec<Value> {
        events_sans_offsets(out)
            .into_iter()
            .map(|mut e| {
                let log = e["log"].as_object_mut().unwrap();
                if let Some(inner) = log.remove("content_format") {
                    assert_eq!(log["format"], "json");
                    log.insert("format".into(), inner);
                }
                e
            })
            .collect()
    };
    for args in [&["--unknown", "warn"][..], &["--all"]] {
        let with_pods = facts(&fx.run(args, join(&prefixed).as_bytes()));
        for (shape, input) in [("stern -o json", &stern), ("logcli -o jsonl", &logcli)] {
            assert_eq!(facts(&fx.run(args, join(input).as_bytes())), with_pods, "{shape} {args:?}");
        }
        let without = facts(&fx.run(args, join(&journal).as_bytes()));
        // The journal names no pod: its lines of two pods read as one stream.
        assert_eq!(without, facts(&fx.run(args, join(&plain).as_bytes())), "journalctl -o json {args:?}");
    }
    let evs = ok_events(&fx.run(&["--unknown", "warn"], join(&stern).as_bytes()));
    let got: Vec<(u64, u64, &str, &str)> = evs
        .iter()
        .map(|e| {
            let pod = e["log"]["kubernetes"]["pod"].as_str().unwrap();
            (src_line(e), src_lines(e), pod, e["unknown"]["template"].as_str().unwrap_or("-"))
        })
        .collect();
    assert_eq!(
        got,
        [(1, 3, "meta-0", "sink writer <*> failed"), (5, 1, "meta-1", "slow disk on node <*>")],
        "{evs:#?}"
    );
    assert_eq!(evs[0]["message"], format!("{}\nCaused by:\n    disk gone", text[0].1));
    assert_eq!((&evs[0]["log"]["format"], &evs[0]["log"]["content_format"]), (&json!("json"), &json!("risingwave")));
    // A JSON line with a level of its own keeps it, whatever its message says.
    let own = json!({"level": "INFO", "message": text[0].1}).to_string();
    let evs = ok_events(&fx.run(&["--all"], lines(&[&own]).as_bytes()));
    assert_eq!((&evs[0]["log"]["format"], &evs[0]["log"]["level"]), (&json!("json"), &json!("INFO")), "{evs:#?}");
    // regression (found by a second reader): envelopes were looked for on a block's first line
    // only, so journald's own first record hid them (the block was skimmed, events split); a
    // Loki `level` label ruled them out; other JSON lines lost their level once the stream's
    // envelopes were known; a value of several lines (a multi-line parser's record) was one
    // line; an envelope behind a `kubectl --prefix` kept two pod prefixes.
    let started = json!({"MESSAGE": "Started risingwave-meta.service.", "_PID": "1"}).to_string();
    let mut journal_first = vec![started];
    journal_first.extend(journal.iter().cloned());
    let first_out = facts(&fx.run(&["--unknown", "warn"], join(&journal_first).as_bytes()));
    let want: Vec<(u64, u64)> = vec![(2, 3), (6, 1)];
    assert_eq!(first_out.iter().map(|e| (src_line(e), src_lines(e))).collect::<Vec<_>>(), want, "{first_out:#?}");
    let labelled: Vec<String> = text
        .iter()
        .map(|(pod, l)| json!({"labels": {"pod": pod, "container": "meta", "level": "info"}, "line": l}).to_string())
        .collect();
    assert_eq!(
        facts(&fx.run(&["--unknown", "warn"], join(&labelled).as_bytes())),
        facts(&fx.run(&["--unknown", "warn"], join(&logcli).as_bytes()))
    );
    let mixed = [
        stern[0].clone(),
        json!({"levelname": "ERROR", "name": "udf", "message": "UDF server failed: boom"}).to_string(),
    ];
    let evs = ok_events(&fx.run(&["--unknown", "warn"], join(&mixed).as_bytes()));
    assert_eq!(evs.last().unwrap()["log"]["level"], "ERROR", "{evs:#?}");
    assert_eq!(evs.last().unwrap()["unknown"]["template"], "UDF server failed", "{evs:#?}");
    let whole = format!("{}\nCaused by:\n    disk gone\n", text[0].1);
    let record = json!({"log": whole, "kubernetes": {"pod_name": "meta-0"}}).to_string();
    let evs = ok_events(&fx.run(&["--unknown", "warn"], lines(&[&record]).as_bytes()));
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!(evs[0]["message"], format!("{}\nCaused by:\n    disk gone", text[0].1));
    assert_eq!((src_line(&evs[0]), src_lines(&evs[0])), (1, 1));
    assert_eq!(evs[0]["unknown"]["template"], "sink writer <*> failed");
    // stern around RisingWave's JSON lines: the JSON line it carries is read (found by a third
    // reader: it was unwrapped only after a text line had shown the stream's envelopes, so
    // `--threads 2` read part of a file one way and part the other).
    let rw_json = json!({"timestamp": "2026-03-02T08:00:00.1Z", "level": "ERROR", "fields": {"message": "sink writer 7 failed: broken pipe"}, "target": "risingwave_meta::x"});
    let wrapped = json!({"message": rw_json.to_string(), "podName": "meta-0", "containerName": "meta"}).to_string();
    let evs = ok_events(&fx.run(&["--unknown", "warn"], lines(&[&wrapped]).as_bytes()));
    assert_eq!(
        (&evs[0]["log"]["level"], &evs[0]["log"]["content_format"]),
        (&json!("ERROR"), &json!("json")),
        "{evs:#?}"
    );
    assert_eq!(evs[0]["log"]["kubernetes"]["pod"], "meta-0");
    // Invalid UTF-8 in a record's value is replaced, as in any JSON line: the record stays the
    // line it carries and the event keeps its lines (it ended the event, and the lines after it
    // were lost).
    let mut bad = joined(&stern[..3]).into_bytes();
    let at = bad.windows(9).position(|w| w == b"disk gone").expect("the cause's record");
    bad.insert(at + 4, 0xff);
    let evs = ok_events(&fx.run(&["--unknown", "warn"], &bad));
    assert_eq!((src_line(&evs[0]), src_lines(&evs[0])), (1, 3), "{evs:#?}");
    assert!(evs[0]["message"].as_str().unwrap().ends_with("Caused by:\n    disk\u{fffd} gone"), "{evs:#?}");
    let behind: Vec<String> = stern.iter().map(|l| format!("[pod/stern-0/stern] {l}")).collect();
    let evs = ok_events(&fx.run(&["--unknown", "warn"], join(&behind).as_bytes()));
    assert_eq!(evs.len(), 2, "{evs:#?}");
    assert_eq!(evs[0]["log"]["kubernetes"]["pod"], "stern-0");
    assert!(evs[0]["message"].as_str().unwrap().starts_with("2026-03-02T08:00:00.0Z ERROR"), "{evs:#?}");
}

// ---------------------------------------------------------------------------------------------
// Panics

#[test]
fn panic_block_is_one_event_matched_on_its_message_line() {
    let fx = fixture();
    let input = lines(&[
        &info_line(1, "before"),
        "thread 'rw-main' (11) panicked at src/meta/src/barrier/info.rs:1:2:",
        "called `Option::unwrap()` on a `None` value",
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        &info_line(2, "starting leader services"),
        "thread 'rw-standalone-meta' panicked at src/meta/src/hummock/manager/checkpoint.rs:50:90:",
        "called `Option::unwrap()` on a `None` value",
    ]);
    let evs = all(&fx, &input);
    assert_eq!(evs.len(), 4, "{evs:#?}");
    for line in [2, 6] {
        let e = at_line(&evs, line);
        assert_eq!(e["log"]["format"], "panic", "{e}");
        assert_eq!(match_id(e), Some("t-panic"), "{e}");
        assert_eq!(e["match"]["field"], "message");
    }
    assert_eq!(src_lines(at_line(&evs, 2)), 3, "panic header, message and note");
    assert_eq!(src_lines(at_line(&evs, 6)), 2);
    assert_eq!(at_line(&evs, 5)["match"], Value::Null);
}

// ---------------------------------------------------------------------------------------------
// 3. Multi-line events

#[test]
fn caused_by_report_is_one_event_and_matched_as_a_whole() {
    let fx = fixture();
    let first = rw_line(
        30,
        "WARN",
        "risingwave_meta::stream::stream_manager",
        "failed to notify cancellation result: s3 delete error",
    );
    let input = lines(&[
        &info_line(29, "before"),
        &first,
        "",
        "Caused by:",
        "    error returned from database: duplicate key value violates unique constraint \"object_pkey\"",
        " database_id=7",
        &rw_line(
            31,
            "ERROR",
            "risingwave_meta::manager::diagnose",
            "unspecified table type: failed to parse external table config",
        ),
        "",
        "Caused by these errors (recent errors listed first):",
        "  1: barrier collection failed for actor 17",
        "  2: tcp connect error: No route to host (os error 113)",
        "",
        &info_line(32, "after"),
    ]);
    let evs = all(&fx, &input);
    assert_eq!(evs.len(), 4, "{evs:#?}");
    let e = at_line(&evs, 2);
    assert_eq!(src_lines(e), 5, "first line plus four continuation lines: {e}");
    assert_eq!(e["log"]["level"], "WARN");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.starts_with(&first), "{msg:?}");
    assert_eq!(msg.lines().count(), 5, "the message holds every physical line: {msg:?}");
    assert!(msg.ends_with(" database_id=7"), "{msg:?}");
    assert_eq!(match_id(e), Some("t-inner"), "the record's text is on a continuation line: {e}");
    assert_eq!(e["match"]["captures"]["constraint"], "\"object_pkey\"");

    let e = at_line(&evs, 7);
    assert_eq!(src_lines(e), 6, "{e}");
    assert_eq!(match_id(e), Some("t-split"), "{e}");
    assert_eq!(e["match"]["captures"]["actor_id"], "17", "the value ends with its line: {e}");
    assert_eq!(at_line(&evs, 13)["match"], Value::Null);
}

#[test]
fn record_message_spanning_two_lines_matches_across_the_line_break() {
    let fx = fixture();
    let input = lines(&[
        &rw_line(
            31,
            "ERROR",
            "risingwave_frontend::handler",
            "failed to handle query error=Not supported: streaming nested loop join",
        ),
        "HINT: The non-equal join in the query requires a nested-loop join executor",
        &info_line(32, "after"),
    ]);
    let evs = all(&fx, &input);
    let e = at_line(&evs, 1);
    assert_eq!(src_lines(e), 2);
    assert_eq!(match_id(e), Some("t-ml"), "{e}");
    assert_eq!(e["match"]["captures"]["_1"], "streaming nested loop join");
    assert_eq!(e["match"]["captures"]["_2"], "The non-equal join in the query requires a nested-loop join executor");
}

#[test]
fn anyhow_report_after_a_plain_line_is_one_event() {
    let fx = fixture();
    let input = lines(&[
        "Error: meta service failed to start",
        "",
        "Caused by:",
        "    0: barrier collection failed for actor 5",
        "    1: column \"x\" is ambiguous",
        "",
        "plain line that stands alone",
    ]);
    let evs = all(&fx, &input);
    assert_eq!(evs.len(), 2, "{evs:#?}");
    let e = at_line(&evs, 1);
    assert_eq!(src_lines(e), 6);
    assert_eq!(e["log"]["format"], "plain");
    let ids: Vec<&str> = std::iter::once(&e["match"])
        .chain(e["also_matched"].as_array().unwrap())
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"t-split") && ids.contains(&"t-quote"), "{e}");
    assert_eq!(at_line(&evs, 7)["log"]["format"], "plain");
}

// ---------------------------------------------------------------------------------------------
// Plain text (no header on any line)

/// The bug: in a block with no header line above a hit, every plain line before it was framed
/// as an event of its own, and each of those events cost a walk back over `max_event_lines`
/// lines in search of a header: 400,000 plain lines with ten known ones took 8.9 s of CPU
/// (0.05 s now). The bound is CPU time (utime + stime, from the shell's `times`), not wall
/// time, and generous: a busy machine does not move it, the walk does.
#[test]
fn regression_plain_lines_before_a_hit_are_not_walked_back_over_once_each() {
    let fx = fixture();
    let known = "duplicate key value violates unique constraint users_pkey";
    let mut text = String::new();
    for i in 1..=400_000 {
        if i % 40_000 == 0 {
            text.push_str(known);
        } else {
            text.push_str(&format!("plain text line {i} of a log without headers"));
        }
        text.push('\n');
    }
    let input = fx.write("plain.log", &text);
    let out_path = fx.path("out.json");
    let (out, children) =
        run_cpu_timed(&["-c", &path_str(&fx.catalog), "--format", "json", &path_str(&input)], &out_path);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let evs = events(&std::fs::read(&out_path).unwrap());
    let lines: Vec<u64> = evs.iter().map(src_line).collect();
    assert_eq!(lines, (1..=10).map(|k| k * 40_000).collect::<Vec<u64>>(), "{evs:#?}");
    assert!(evs.iter().all(|e| match_id(e) == Some("t-inner") && e["log"]["format"] == "plain"), "{evs:#?}");
    assert!(children < common::cpu_bound(2.0), "{children:.2} s of CPU for 19 MB of plain lines");
}

/// The bug: another program's `ERROR` line (log4j, Python's `logging`) fills RisingWave's
/// five-letter level column and parses as a header, and every line after it (its `INFO` and
/// `WARN` lines, whose four letters do not) was taken as that event's continuation, up to
/// `max_event_lines`: `--unknown any` clustered 50 lines as one. A line that starts with a date
/// and time is an event of its own; the indented stack trace under the error still goes with it.
#[test]
fn regression_a_foreign_error_line_does_not_swallow_the_lines_after_it() {
    let fx = fixture();
    let input = lines(&[
        "2015-10-18 18:01:47,978 ERROR [main] org.apache.hadoop.mapreduce.v2.app.MRAppMaster: Error starting MRAppMaster",
        "\tat org.apache.hadoop.yarn.Foo.bar(Foo.java:138)",
        "\tat org.apache.hadoop.yarn.Foo.baz(Foo.java:583)",
        "2015-10-18 18:01:48,001 INFO [main] org.apache.hadoop.service.AbstractService: Service stopped",
        "2015-10-18 18:01:48,002 WARN [main] org.apache.hadoop.ipc.Client: Retrying connect to server",
        "2015-10-18 18:01:48,003 INFO [main] org.apache.hadoop.service.AbstractService: Service started",
        "2015-10-18 18:01:48,004 ERROR [main] org.apache.hadoop.mapreduce.v2.app.MRAppMaster: Error starting MRAppMaster",
    ]);
    for args in [&["--all"][..], &["--unknown", "any"][..]] {
        let evs = ok_events(&fx.run(args, input.as_bytes()));
        assert_covers(&evs, 7);
        let spans: Vec<(u64, u64)> = evs.iter().map(|e| (src_line(e), src_lines(e))).collect();
        assert_eq!(spans, [(1, 3), (4, 1), (5, 1), (6, 1), (7, 1)], "{args:?}: {evs:#?}");
        assert_eq!(at_line(&evs, 5)["log"]["format"], "plain", "{args:?}");
    }
    // `--unknown warn` takes the ERROR lines (read as RisingWave text) and the WARN line, whose
    // level is read after its date and time (README.md, "Unknown errors").
    let evs = ok_events(&fx.run(&["--unknown", "warn"], input.as_bytes()));
    let spans: Vec<(u64, u64)> = evs.iter().map(|e| (src_line(e), src_lines(e))).collect();
    assert_eq!(spans, [(1, 3), (5, 1), (7, 1)], "{evs:#?}");
    let templates: Vec<&str> = evs.iter().map(|e| e["unknown"]["template"].as_str().unwrap()).collect();
    assert!(templates[0].contains("Error starting MRAppMaster") && templates[2] == templates[0], "{evs:#?}");
    assert_eq!(templates[1], "[main] org.apache.hadoop.ipc.Client: Retrying connect to server");
    assert_eq!(at_line(&evs, 5)["log"]["level"], "WARN");
    assert_eq!(at_line(&evs, 5)["@timestamp"], "2015-10-18T18:01:48.002");
    // The same lines among RisingWave's are framed the same way by a sparse read (`off` frames
    // only around hits, from the nearest line that starts an event).
    let known = "duplicate key value violates unique constraint users_pkey";
    let input = format!("{input}2015-10-18 18:01:48,005 INFO [main] org.apache.Db: {known}\n");
    let evs = ok_events(&fx.run(&[], input.as_bytes()));
    let spans: Vec<(u64, u64)> = evs.iter().map(|e| (src_line(e), src_lines(e))).collect();
    assert_eq!(spans, [(8, 1)], "{evs:#?}");
    assert_eq!(match_id(&evs[0]), Some("t-inner"));
}
