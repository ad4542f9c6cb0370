//! Output formats: `--format json` (the default off a terminal), `--format ecs`,
//! `--format pretty` with and without colours, and `--all`.

mod common;

use std::process::Stdio;

use common::*;
use serde_json::{Value, json};

fn sample() -> String {
    lines(&[
        &info_line(1, "starting leader services"),
        &split_line(2, 77),
        &info_line(3, "recovering mview progress"),
        r#"{"timestamp":"2026-03-02T08:00:04.1Z","level":"ERROR","fields":{"message":"query failed","error":"column \"c\" is ambiguous"},"target":"risingwave_frontend::handler"}"#,
    ])
}

#[test]
fn default_format_off_a_terminal_is_annotail_json() {
    let fx = fixture();
    let evs = ok_events(&fx.run(&[], sample().as_bytes()));
    assert_eq!(evs.len(), 2, "only the known errors: {evs:#?}");
    for e in &evs {
        assert_eq!(e["schema"], "annotail/1");
        for k in ["@timestamp", "observed", "source", "message", "log", "match", "also_matched"] {
            assert!(e.get(k).is_some(), "event has {k}: {e}");
        }
    }
    assert_eq!(src_line(&evs[0]), 2);
    assert_eq!(src_line(&evs[1]), 4);
    let m = &evs[0]["match"];
    assert_eq!(m["id"], "t-split");
    assert_eq!(m["slug"], "barrier-collect");
    assert_eq!(m["error_class"], "anyhow::Error");
    assert_eq!(m["solutions"], json!(["restart the actor", "check the compute node"]));
    assert_eq!(m["tags"], json!(["barrier"]));
    assert_eq!(m["template"], "barrier collection failed for actor {actor_id}");
    // Same output with an explicit --format json.
    let again = ok_events(&fx.run(&["--format", "json"], sample().as_bytes()));
    assert_eq!(again.len(), 2);
    assert_eq!(again[1]["match"]["id"], "t-quote");
}

#[test]
fn all_writes_every_event_with_null_match_when_nothing_matched() {
    let fx = fixture();
    let input = sample();
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    assert_eq!(evs.len(), 4, "{evs:#?}");
    assert_covers(&evs, 4);
    let matched: Vec<bool> = evs.iter().map(|e| e["match"].is_object()).collect();
    assert_eq!(matched, [false, true, false, true]);
    for e in evs.iter().filter(|e| !e["match"].is_object()) {
        assert!(e.get("match").is_some(), "`match` is present: {e}");
        assert_eq!(e["match"], Value::Null);
        assert_eq!(e["also_matched"], json!([]));
        assert_eq!(e["log"]["format"], "risingwave");
        assert_eq!(e["log"]["level"], "INFO");
    }
}

#[test]
fn ecs_format_marks_known_errors_as_alerts_with_a_rule() {
    let fx = fixture();
    let out = fx.run(&["--format", "ecs", "--all"], sample().as_bytes());
    let evs = ok_events(&out);
    assert_eq!(evs.len(), 4);
    let e = &evs[1];
    assert_eq!(e["event"]["kind"], "alert");
    assert_eq!(e["event"]["module"], "annotail");
    assert_eq!(e["rule"]["id"], "t-split");
    assert_eq!(e["rule"]["name"], "barrier-collect");
    assert_eq!(e["rule"]["category"], "anyhow::Error");
    assert_eq!(e["error"]["message"], "barrier collection failed for actor 77");
    assert_eq!(e["labels"]["actor_id"], "77");
    assert_eq!(e["labels"]["annotail_severity"], "warning");
    assert_eq!(e["log"]["level"], "warn");
    assert_eq!(e["log"]["logger"], "risingwave_meta::barrier::rpc");
    assert_eq!(e["@timestamp"], "2026-03-02T08:00:02.123456789Z");
    assert_eq!(e["annotail"]["line"], 2);
    assert_eq!(evs[3]["rule"]["id"], "t-quote");
    assert_eq!(evs[3]["event"]["kind"], "alert");
    // Without a match: an ordinary event, no rule.
    assert_eq!(evs[0]["event"]["kind"], "event");
    assert!(evs[0].get("rule").is_none(), "{}", evs[0]);
    // Without --all only the alerts.
    let evs = ok_events(&fx.run(&["--format", "ecs"], sample().as_bytes()));
    assert_eq!(evs.len(), 2);
    assert!(evs.iter().all(|e| e["event"]["kind"] == "alert"));
}

/// Pretty output: every line as it came, an annotation right under each known error.
fn check_pretty(text: &str, input: &str) {
    let out: Vec<&str> = text.lines().collect();
    let mut i = 0;
    for (n, line) in input.lines().enumerate() {
        while i < out.len() && out[i] != line {
            i += 1;
        }
        assert!(i < out.len(), "input line {} is echoed in order:\n{text}", n + 1);
        if n == 1 {
            let ann = out.get(i + 1).copied().unwrap_or("");
            assert!(
                ann.contains("t-split") && ann.contains("barrier-collect"),
                "annotation under the error line: {ann:?}\n{text}"
            );
            assert!(ann.contains("WARNING"), "severity: {ann:?}");
            assert!(out[i + 2..].iter().take(4).any(|l| l.contains("actor_id = 77")), "captures follow:\n{text}");
            assert!(text.contains("fix: restart the actor"), "solutions are shown:\n{text}");
        }
        if n == 0 || n == 2 {
            let next = out.get(i + 1).copied().unwrap_or("");
            assert!(input.lines().any(|l| l == next), "no annotation under a line without an error: {next:?}\n{text}");
        }
        i += 1;
    }
}

#[test]
fn pretty_echoes_every_line_and_annotates_known_errors_without_colour_on_request() {
    let fx = fixture();
    let input = sample();
    let out = fx.run(&["--format", "pretty", "--color", "never"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'), "no ANSI codes with --color never:\n{text:?}");
    check_pretty(&text, &input);
    let json_line = input.lines().nth(3).unwrap();
    let after = text.split(json_line).nth(1).expect("JSON line echoed");
    assert!(after.contains("t-quote") && after.contains("name = c"), "{text}");
}

#[test]
fn pretty_with_colour_always_colours_annotations_and_echoes_lines_unchanged() {
    let fx = fixture();
    let input = sample();
    let out = fx.run(&["--format", "pretty", "--color", "always"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains('\x1b'), "--color always colours: {text:?}");
    for l in input.lines() {
        assert!(text.lines().any(|o| o == l), "input line echoed unchanged: {l}");
    }
}

/// A pasted line whose colour codes lost their ESC (`[2m…[0m`) was echoed with them as text:
/// with colours on they get their ESC back, with colours off they are left out.
#[test]
fn regression_pretty_echo_of_codes_that_lost_their_esc() {
    let fx = fixture();
    let lost = "[2m2026-03-02T08:00:31.1Z[0m [31mERROR[0m [2mrisingwave_meta::x[0m[2m:[0m sink failed: boom";
    let plain = "2026-03-02T08:00:31.1Z ERROR risingwave_meta::x: sink failed: boom";
    let input = lines(&[lost, "^[[2m2026-03-02T08:00:32.1Z^[[0m ^[[32m INFO^[[0m x[0m"]);
    let out = fx.run(&["--format", "pretty", "--all", "--color", "never"], input.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().next(), Some(plain), "{text}");
    assert!(text.lines().any(|l| l == "2026-03-02T08:00:32.1Z  INFO x"), "{text}");
    let out = fx.run(&["--format", "pretty", "--all", "--color", "always"], input.as_bytes());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().next(), Some(lost.replace('[', "\x1b[").as_str()), "{text:?}");
    assert!(text.contains("\x1b[2m2026-03-02T08:00:32.1Z\x1b[0m \x1b[32m INFO"), "{text:?}");
}

#[test]
fn pretty_auto_colour_is_off_when_no_color_is_set_and_stdout_is_a_pipe() {
    let fx = fixture();
    let input = sample();
    let mut c = cmd();
    c.args(["-c", &path_str(&fx.catalog), "--format", "pretty"]).env("NO_COLOR", "1");
    let out = run_cmd(&mut c, input.as_bytes());
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'), "{text:?}");
    check_pretty(&text, &input);
}

/// On a terminal (a pty made by util-linux `script`) the default is pretty and coloured, and
/// NO_COLOR turns the colours off.
#[test]
fn terminal_output_defaults_to_pretty_and_honours_no_color() {
    if std::process::Command::new("script").arg("--version").stdout(Stdio::null()).status().is_err() {
        eprintln!("skipped: util-linux `script` is not installed, no pty to test with");
        return;
    }
    let fx = fixture();
    let log = fx.write("sample.log", sample());
    let shell = format!("'{}' -c '{}' '{}'", bin(), path_str(&fx.catalog), path_str(&log));
    let on_tty = |no_color: bool| {
        let mut c = std::process::Command::new("script");
        c.args(["-qec", &shell, "/dev/null"]).env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE").env("TERM", "xterm");
        if no_color {
            c.env("NO_COLOR", "1");
        }
        let out = wait_output(c.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap());
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n")
    };
    let coloured = on_tty(false);
    assert!(coloured.contains("barrier-collect"), "pretty on a terminal:\n{coloured}");
    assert!(!coloured.contains("\"schema\""), "not JSON on a terminal:\n{coloured}");
    assert!(coloured.contains('\x1b'), "colours on a terminal: {coloured:?}");
    let plain = on_tty(true);
    assert!(plain.contains("barrier-collect"), "{plain}");
    assert!(!plain.contains('\x1b'), "NO_COLOR: {plain:?}");
}

/// The seed records' lines (both documented, with solutions and source code).
fn seed_lines() -> String {
    lines(&[
        &rw_line(1, "ERROR", "risingwave_meta::barrier::rpc", "should not pause when having snapshot backfill job 42"),
        &rw_line(2, "WARN", "risingwave_meta::backup", "backup failed error=concurrent backup job is not supported: existent job 7"),
    ])
}

fn seeds() -> String {
    path_str(&manifest_dir().join("config/catalog/seeds"))
}

/// `record_fields`: what each choice keeps of the record, on the command line and in the config;
/// the default keeps an event for a documented record under 2 KB.
#[test]
fn record_fields_choose_what_an_event_carries() {
    let run = |extra: &[&str]| -> Vec<(usize, Value)> {
        let mut args = vec!["-c".to_owned(), seeds()];
        args.extend(extra.iter().map(|s| s.to_string()));
        let out = run(&args, seed_lines().as_bytes());
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr_of(&out));
        String::from_utf8(out.stdout).unwrap().lines().map(|l| (l.len(), serde_json::from_str(l).unwrap())).collect()
    };
    let keys = |e: &Value| -> Vec<String> { e["match"].as_object().unwrap().keys().cloned().collect() };
    let always = ["id", "slug", "severity", "captures", "span", "field"];
    let default = run(&[]);
    assert_eq!(default.len(), 2);
    for (size, e) in &default {
        assert!(*size <= 2048, "a default event is at most 2 KB: {size}");
        for k in always.iter().chain(&["documentation", "solutions", "reference", "pattern", "source_file"]) {
            assert!(e["match"].get(*k).is_some(), "default keeps {k}: {:?}", keys(e));
        }
        assert!(e["match"].get("record").is_none(), "default leaves the pass-through fields out");
        assert_eq!(e["host"]["name"].as_str().map(str::is_empty), Some(false));
    }
    let all = run(&["--record-fields", "all"]);
    for (size, e) in &all {
        assert!(*size > 3000, "all: the record's validation code and examples too: {size}");
        assert!(e["match"]["record"]["validationCode"].is_string(), "{:?}", keys(e));
        // A record's source code is not kept once loaded (`explain` shows the lines around its
        // lineNumber), so no choice carries it.
        assert!(e["match"]["record"].get("sourceCode").is_none(), "{:?}", keys(e));
    }
    let none = run(&["--record-fields", "none"]);
    for (_, e) in &none {
        let mut k = keys(e);
        k.sort();
        // `named_captures` goes with `captures` (the record of the WARN line has a named `{}`).
        k.retain(|k| k != "named_captures");
        assert_eq!(k, ["captures", "field", "id", "severity", "slug", "span"], "none: {e}");
    }
    // A list: named match fields, and a field of `record` by its catalog name.
    let some = run(&["--record-fields", "solutions,triggerScenarios"]);
    for (_, e) in &some {
        let mut k = keys(e);
        k.sort();
        k.retain(|k| k != "named_captures");
        assert_eq!(k, ["captures", "field", "id", "record", "severity", "slug", "solutions", "span"], "{e}");
        assert_eq!(e["match"]["record"].as_object().unwrap().keys().collect::<Vec<_>>(), ["triggerScenarios"]);
    }
    // The config's [output] key does the same; the option overrides it.
    let fx = fixture();
    let cfg = fx.write("annotail.toml", "[output]\nrecord_fields = \"none\"\n");
    let from_config = run(&["--config", &path_str(&cfg)]);
    assert!(from_config.iter().all(|(_, e)| e["match"].get("solutions").is_none()));
    let overridden = run(&["--config", &path_str(&cfg), "--record-fields", "all"]);
    assert!(overridden.iter().all(|(_, e)| e["match"].get("record").is_some()));
    // ECS: rule.description and annotail.solutions follow the same choice; host.name is there.
    let ecs = run(&["--format", "ecs"]);
    assert!(ecs.iter().all(|(_, e)| e["rule"]["description"].is_string() && e["annotail"]["solutions"].is_array()));
    assert!(ecs.iter().all(|(_, e)| e["host"]["name"].is_string()));
    let ecs_none = run(&["--format", "ecs", "--record-fields", "none"]);
    assert!(ecs_none.iter().all(|(_, e)| e["rule"].get("description").is_none() && e["annotail"].get("solutions").is_none()));
    assert!(ecs_none.iter().all(|(_, e)| e["rule"]["id"].is_string()));
    // A bad value is named.
    let out = run_cmd(cmd().args(["--record-fields", "solutions,a b"]), b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("\"a b\" is not a field name"), "{}", stderr_of(&out));
}

/// `max_event_bytes`: an event larger than the bound is cut to fit and stays valid JSON (both
/// formats, one thread or several); smaller ones are untouched.
#[test]
fn max_event_bytes_cuts_large_events_to_valid_json() {
    let fx = fixture();
    let big = "y".repeat(30_000);
    let input = lines(&[
        &split_line(1, 5),
        &rw_line(2, "WARN", "risingwave_meta::barrier", &format!("barrier collection failed for actor {big}")),
        &split_line(3, 6),
    ]);
    let file = fx.write("in.log", &input);
    for format in ["json", "ecs"] {
        for threads in ["1", "2"] {
            let out = fx.run(&["--format", format, "--max-event-bytes", "2000", "--threads", threads, &path_str(&file)], b"");
            assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
            let text = String::from_utf8(out.stdout).unwrap();
            let evs: Vec<&str> = text.lines().collect();
            assert_eq!(evs.len(), 3, "{format}");
            for l in &evs {
                assert!(l.len() <= 2000, "{format}: {} bytes", l.len());
                let _: Value = serde_json::from_str(l).expect("valid JSON");
            }
            let cut: Value = serde_json::from_str(evs[1]).unwrap();
            let mark = if format == "json" { &cut["truncated"] } else { &cut["annotail"]["truncated"] };
            assert!(mark["original_bytes"].as_u64().unwrap() > 60_000, "{format}: {cut}");
            let small: Value = serde_json::from_str(evs[0]).unwrap();
            assert!(small.get("truncated").is_none() && small["annotail"].get("truncated").is_none());
            if format == "json" {
                assert_eq!(cut["match"]["id"], "t-split");
                assert_eq!(src_line(&cut), 2, "{threads} threads: the line number survives the cut");
            }
        }
    }
    let out = fx.run(&["--max-event-bytes", "100"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("at least 1024"), "{}", stderr_of(&out));
}

/// Several threads wrote `truncated.original_bytes` a few bytes short in every segment after the
/// first (the event was cut with its line number relative to the segment, fewer digits than
/// the absolute one), and could leave an event that many bytes over the bound.
#[test]
fn regression_bounded_events_are_the_same_on_several_threads() {
    let fx = fixture();
    let tail = "z".repeat(1200);
    let mut text = String::new();
    let mut i = 0u32;
    // Segments are 2 MiB: several of them.
    while text.len() < 7 << 20 {
        let line = if i % 20 == 0 {
            rw_line(i, "WARN", "risingwave_meta::barrier", &format!("barrier collection failed for actor {i} {tail}"))
        } else {
            info_line(i, &format!("checkpoint {i} written"))
        };
        text.push_str(&line);
        text.push('\n');
        i += 1;
    }
    let file = fx.write("big.log", &text);
    let run = |threads: &str| {
        let out = fx.run(&["--format", "json", "--max-event-bytes", "1024", "--threads", threads, &path_str(&file)], b"");
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                assert!(l.len() <= 1024, "{threads} threads: {} bytes", l.len());
                let mut v: Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("observed");
                v
            })
            .collect::<Vec<_>>()
    };
    let (one, two) = (run("1"), run("2"));
    assert!(one.len() > 2_000, "{} events", one.len());
    assert!(one.iter().all(|e| e["truncated"]["original_bytes"].as_u64().is_some_and(|n| n > 1024)), "every event is cut");
    assert_eq!(one.len(), two.len());
    if let Some(k) = (0..one.len()).find(|&k| one[k] != two[k]) {
        panic!("event {k} differs:\n1 thread:  {}\n2 threads: {}", one[k], two[k]);
    }
}

/// Every event names its host: NODE_NAME when it is set (also as `log.kubernetes.node` and, in
/// ECS, `kubernetes.node.name`), else the kernel's host name.
#[test]
fn host_name_and_node_name_on_every_event() {
    let fx = fixture();
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().to_owned();
    let out = run_cmd(cmd().env_remove("NODE_NAME").args(["-c", &path_str(&fx.catalog), "--all"]), sample().as_bytes());
    let evs = ok_events(&out);
    assert!(evs.len() >= 4);
    assert!(evs.iter().all(|e| e["host"]["name"] == hostname.as_str() && e["log"].get("kubernetes").is_none()));
    for format in ["json", "ecs"] {
        let out = run_cmd(
            cmd().env("NODE_NAME", "node-9").args(["-c", &path_str(&fx.catalog), "--all", "--format", format]),
            sample().as_bytes(),
        );
        let evs = ok_events(&out);
        for e in &evs {
            assert_eq!(e["host"]["name"], "node-9", "{format}: {e}");
            let node = if format == "json" { &e["log"]["kubernetes"]["node"] } else { &e["kubernetes"]["node"]["name"] };
            assert_eq!(node, "node-9", "{format}: {e}");
        }
    }
}

/// Regression: a record whose severity is spelled `warn` was a warning for `--min-severity` and
/// syslog but an error (ECS severity 3, a red ERROR) in ECS and pretty output. The severity is
/// now read once, in the catalog, and every output decides on that value.
#[test]
fn severity_spelled_warn_is_a_warning_in_every_output() {
    let fx = fixture();
    let catalog = std::fs::read_to_string(&fx.catalog).unwrap().replace(r#""severity":"warning""#, r#""severity":"warn""#);
    std::fs::write(&fx.catalog, catalog).unwrap();
    let input = sample();
    let ecs = ok_events(&fx.run(&["--format", "ecs"], input.as_bytes()));
    let split = ecs.iter().find(|e| e["rule"]["id"] == "t-split").expect("t-split matched");
    assert_eq!(split["event"]["severity"], 4, "{split}");
    assert_eq!(split["labels"]["annotail_severity"], "warning");
    let quote = ecs.iter().find(|e| e["rule"]["id"] == "t-quote").expect("t-quote matched");
    assert_eq!(quote["event"]["severity"], 3, "{quote}");
    // JSON says it as the catalog read it too: carried as stored, a dashboard grouping by it
    // got `warn`, `Warn` and `WARNING` apart (found by a catalog keeper).
    let json = ok_events(&fx.run(&["--format", "json"], input.as_bytes()));
    assert_eq!(json[0]["match"]["severity"], "warning");
    // A warning passes `--min-severity warning` and not `error`.
    assert_eq!(ok_events(&fx.run(&["--min-severity", "warning"], input.as_bytes())).len(), 2);
    assert_eq!(ok_events(&fx.run(&["--min-severity", "error"], input.as_bytes())).len(), 1);
    let out = fx.run(&["--format", "pretty", "--color", "always"], input.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    let ann = text.lines().find(|l| l.contains("barrier-collect")).expect("annotation");
    assert!(ann.contains("WARNING") && ann.contains("\x1b[33m") && !ann.contains("\x1b[31m"), "yellow WARNING: {ann:?}");
}

/// Regression: a time a log viewer or log4j prints (`2025-02-11 09:14:52.417`,
/// `2015-10-18 18:01:47,978`) went into `@timestamp` as it was, and Elasticsearch's default date
/// format (`strict_date_optional_time`) rejects a blank for the `T` and a comma for the point:
/// the document was refused. It is now written in RFC 3339's form, in every format; a time
/// without a zone stays without one.
#[test]
fn regression_a_loose_time_is_written_in_rfc3339_form_for_elasticsearch() {
    let fx = fixture();
    let input = lines(&[
        // A viewer's time before a line with none of its own.
        "2025-02-11 09:14:53,5 | plain text from the viewer",
        // A RisingWave line as a log viewer exports it: its own time, loose.
        "2025-02-11 09:14:52.417  WARN risingwave_meta::barrier: barrier collection failed for actor 7",
        // log4j's ERROR line fills RisingWave's level column.
        "2015-10-18 18:01:47,978 ERROR [main] org.apache.hadoop.mapreduce.v2.app.MRAppMaster: Error starting MRAppMaster",
        // Already RFC 3339 with its zone: untouched.
        "2026-03-02T08:00:00.776978869Z ERROR risingwave_meta: barrier collection failed for actor 8",
    ]);
    let want = [
        "2025-02-11T09:14:53.5",
        "2025-02-11T09:14:52.417",
        "2015-10-18T18:01:47.978",
        "2026-03-02T08:00:00.776978869Z",
    ];
    for format in ["json", "ecs"] {
        let evs = ok_events(&fx.run(&["--format", format, "--all"], input.as_bytes()));
        let got: Vec<&str> = evs.iter().map(|e| e["@timestamp"].as_str().unwrap()).collect();
        assert_eq!(got, want, "{format}: {evs:#?}");
    }
}

/// Regression (found by a second reader): `match.named_captures` was never dropped, so an event
/// of a record with many named placeholders stayed over `--max-event-bytes` once every string
/// was cut (1,074 bytes at 1024).
#[test]
fn regression_named_captures_are_dropped_when_nothing_else_fits() {
    let dir = tempfile::tempdir().unwrap();
    // Positional placeholders, named by the arguments of the `format!` in the record's code.
    let names: Vec<String> = (1..=40).map(|i| format!("key{i}")).collect();
    let message: Vec<String> = names.iter().map(|n| format!("{n} {{}}")).collect();
    let pattern: Vec<String> = names.iter().map(|n| format!("{n} (.+?)")).collect();
    let args: Vec<String> = (1..=40).map(|i| format!("the_argument_number_{i}")).collect();
    let message = format!("many {} end", message.join(" "));
    let record = serde_json::json!({"id": "t-many", "slug": "many-values", "severity": "error",
        "errorMessage": message, "messagePattern": format!("many {} end", pattern.join(" ")),
        "sourceCode": format!("        return Err(anyhow!(\n            \"{message}\",\n            {}\n        ));", args.join(",\n            ")),
        "sourceCodeStart": 10, "sourceCodeEnd": 13, "lineNumber": 11});
    let catalog = dir.path().join("catalog.jsonl");
    std::fs::write(&catalog, format!("{record}\n")).unwrap();
    let values: Vec<String> = names.iter().map(|n| format!("{n} value-of-{n}-here")).collect();
    let line = format!("many {} end\n", values.join(" "));
    let out = run(&["-c", &path_str(&catalog), "--format", "json", "--max-event-bytes", "1024"], line.as_bytes());
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let ev = text.lines().next().expect("the event");
    assert!(ev.len() <= 1024, "{} bytes: {ev}", ev.len());
    let v: Value = serde_json::from_str(ev).unwrap();
    assert_eq!(v["match"]["id"], "t-many");
    let dropped = v["truncated"]["dropped"].as_array().unwrap();
    assert!(dropped.iter().any(|d| d == "match.named_captures"), "{v}");
}

/// Regression (found by a second reader): a WARN line with a long thread, a span's error, a long
/// target and a record with a long error class and file held a dozen strings once each was cut
/// to 48 bytes, and the event stayed over the bound (JSON 1,044 and ECS 1,048 bytes at 1024).
/// Such strings are now cut shorter, and the bound holds.
#[test]
fn regression_many_strings_cut_to_48_bytes_are_cut_shorter_to_fit() {
    let line = "2026-03-02T08:06:54.73720124Z  WARN      rw-standalone-meta failure_recovery{error=merge group_1 Running group_2 person_dedup failed to fetch created table ids}:recovery_attempt: risingwave_meta::barrier::rpc: recovered creating snapshot backfill job 33167 catch up with upstream already job_id=44359 epoch=10174805597749248\n";
    for format in ["json", "ecs"] {
        let out = run(&["--format", format, "--unknown", "warn", "--max-event-bytes", "1024"], line.as_bytes());
        assert!(out.status.success(), "{}", stderr_of(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        let ev = text.lines().next().expect("the event");
        assert!(ev.len() <= 1024, "{format}: {} bytes: {ev}", ev.len());
        let v: Value = serde_json::from_str(ev).unwrap();
        let truncated = if format == "ecs" { &v["annotail"]["truncated"] } else { &v["truncated"] };
        assert!(truncated["cut_strings"].as_u64().unwrap() > 0, "{v}");
        let id = if format == "ecs" { &v["rule"]["id"] } else { &v["match"]["id"] };
        assert_eq!(id, "2feb8b530b4ad601", "the record's id is never cut: {v}");
    }
    // The second cut spares times, ids and slugs (a third reader found `@timestamp` cut to
    // `2026-03-02T08:…`, no date, on a longer line from a file under a long directory).
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("a".repeat(60)).join("b".repeat(60));
    std::fs::create_dir_all(&deep).unwrap();
    let log = deep.join("meb2.log");
    std::fs::write(&log, "[pod/risingwave-standalone-meta-0-very-long-pod-name-xxxxxxxxxxxxxxxx/standalone-container-name-long] 2026-03-02T08:06:54.73720124Z  WARN      rw-standalone-meta-with-a-long-thread-name failure_recovery{error=merge group_1 Running group_2 person_dedup failed to fetch created table ids}:recovery_attempt{attempt=first and another very long value here ok}: risingwave_meta::barrier::rpc::something_long::deeper_module: recovered creating snapshot backfill job 33167 catch up with upstream already job_id=44359 epoch=10174805597749248\n").unwrap();
    for format in ["json", "ecs"] {
        let out = run(&["--format", format, "--unknown", "warn", "--max-event-bytes", "1024", &path_str(&log)], b"");
        let text = String::from_utf8(out.stdout).unwrap();
        let ev = text.lines().next().expect("the event");
        assert!(ev.len() <= 1024, "{format}: {} bytes: {ev}", ev.len());
        let v: Value = serde_json::from_str(ev).unwrap();
        assert_eq!(v["@timestamp"], "2026-03-02T08:06:54.73720124Z", "{format}: {v}");
        let slug = if format == "ecs" { &v["rule"]["name"] } else { &v["match"]["slug"] };
        assert_eq!(slug, "merge-group-1-group-2-failed-to-fetch-create", "{format}: {v}");
    }
}

/// Regression (found by a second reader): the annotation's first line (severity, slug, id,
/// class, and a panic's "by location" note) was not wrapped, where README says annotail wraps
/// the annotation to the terminal's width: it ran to 178 columns in a 56-column terminal.
#[test]
fn regression_the_annotations_first_line_is_wrapped_too() {
    let panic = "thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:850:21:\n";
    let out = cmd()
        .env("COLUMNS", "60")
        .args(["--format", "pretty", "--color", "never"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write as _;
            c.stdin.take().unwrap().write_all(panic.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let notes: Vec<&str> = text.lines().skip(1).collect();
    assert!(notes[0].starts_with("  ╰─ ERROR inject-barrier-failure (c60da90c507837e7)"), "{text}");
    assert!(text.contains("by location"), "{text}");
    for l in notes.iter().filter(|l| !l.contains("https://")) {
        assert!(l.chars().count() <= 60, "{} columns: {l:?}\n{text}", l.chars().count());
    }
    let words = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>().join(" ");
    let head: Vec<&str> = notes.iter().take_while(|l| !l.trim_start().starts_with("see:")).copied().collect();
    assert!(
        words(&head.join(" "))
            .contains("(by location: the record is 8 lines from the panic, at src/meta/src/barrier/worker.rs:842)"),
        "every word of the first line, in order: {text}"
    );
}
