//! Catalogs: `annotail check` on a catalog with every kind of problem and on the embedded one,
//! and `-c` with each on-disk layout (seed files, JSON Lines, a JSON array, bare objects,
//! directories read recursively), later `-c` paths overriding earlier ones by id.

mod common;

use std::path::Path;

use common::*;
use serde_json::{Value, json};

/// One catalog file holding one record of each kind of problem; line numbers are fixed.
const PROBLEMS: &str = r#"{"id":"good-1","errorMessage":"barrier collection failed for actor {actor_id}","messagePattern":"barrier collection failed for actor (.+?)"}
{"id":"good-1","errorMessage":"barrier collection failed again for actor {actor_id}"}
{"id":"warn-re","errorMessage":"cannot open table {table}","messagePattern":"cannot open table (.+?"}
{"id":"err-re","messagePattern":"bad [regex (.+?)"}
{"id":"any-line","messagePattern":"(.+?)"}
{"id":"bomb-1","messagePattern":"(a{1000}){1000}x"}
{"id":"bomb-2","messagePattern":"((((a{100}){100}){100}){100})"}
{"id":"blank","errorMessage":"   "}
{"id":"typo-sev","errorMessage":"frobnicator stalled","severity":"eror"}
{"id":"tag-word","errorMessage":"frobnicator melted","tags":"draft","solutions":{"a":1}}
{"id": "broken-json", "errorMessage": "this line is cut
"#;

/// (line, record id or None, level) expected among the problems of [`PROBLEMS`].
const EXPECTED: &[(usize, Option<&str>, &str)] = &[
    (2, Some("good-1"), "warning"),    // duplicate id
    (3, Some("warn-re"), "warning"),   // invalid messagePattern, falls back to errorMessage
    (4, Some("err-re"), "error"),      // invalid messagePattern, no errorMessage
    (5, Some("any-line"), "error"),    // matches any line
    (6, Some("bomb-1"), "error"),      // too big
    (7, Some("bomb-2"), "error"),      // too big
    (8, Some("blank"), "error"),       // blanks alone: the indent of every cause line
    (9, Some("typo-sev"), "warning"),  // a severity that is no level word
    (10, Some("tag-word"), "warning"), // tags and solutions that are not lists
    (11, None, "error"),               // broken JSON
];

fn problem_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("records/sub");
    std::fs::create_dir_all(&sub).unwrap();
    let file = sub.join("problems.jsonl");
    std::fs::write(&file, PROBLEMS).unwrap();
    std::fs::write(
        dir.path().join("records/ok.jsonl"),
        "{\"id\":\"fine-1\",\"errorMessage\":\"the quick brown fox failed\"}\n",
    )
    .unwrap();
    (dir, file)
}

#[test]
fn check_reports_every_problem_with_file_line_and_record_id() {
    let (dir, file) = problem_dir();
    let out = run(&["check".to_owned(), "-c".to_owned(), path_str(dir.path())], b"");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(2), "catalog errors: exit 2\n{text}{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("panicked"), "{}", stderr_of(&out));
    let fname = path_str(&file);
    for &(line, id, level) in EXPECTED {
        let at = format!("{fname}:{line}:");
        let found: Vec<&str> = text.lines().filter(|l| l.contains(&at)).collect();
        assert!(!found.is_empty(), "a problem names {at}\n{text}");
        if let Some(id) = id {
            assert!(found.iter().all(|l| l.contains(id)), "problems at {at} name record {id}: {found:?}");
        }
        assert!(found.iter().any(|l| l.contains(level)), "{at} is at least one {level}: {found:?}");
        if level == "warning" {
            assert!(found.iter().all(|l| !l.contains(": error")), "{at} is only a warning: {found:?}");
        }
    }
    // Problem lines name their file; the good record and the good file have none.
    for l in text.lines().filter(|l| l.contains(": error") || l.contains(": warning")) {
        assert!(l.starts_with(&fname), "each problem names the file: {l}");
    }
    assert!(!text.contains("ok.jsonl"), "{text}");
    assert!(text.lines().any(|l| l.contains("too big") || l.contains("size limit")), "bombs are too big:\n{text}");
    assert!(text.contains("11 record(s) read, 5 usable (1 left out, 5 refused, named above)"), "{text}");
}

#[test]
fn check_json_report_parses_and_lists_the_same_problems() {
    let (dir, file) = problem_dir();
    let out = run(
        &["check".to_owned(), "--format".to_owned(), "json".to_owned(), "-c".to_owned(), path_str(dir.path())],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    let problems = v["problems"].as_array().expect("problems array");
    let errors = problems.iter().filter(|p| p["level"] == "error").count();
    assert_eq!(v["errors"].as_u64(), Some(errors as u64), "{v}");
    assert!(errors >= 5, "{v:#}");
    assert_eq!(v["warnings"].as_u64(), Some((problems.len() - errors) as u64));
    for &(line, id, level) in EXPECTED {
        let at: Vec<&Value> = problems.iter().filter(|p| p["line"] == line).collect();
        assert!(!at.is_empty(), "problem at line {line}: {v:#}");
        assert!(at.iter().all(|p| p["file"] == path_str(&file)), "{at:?}");
        if let Some(id) = id {
            assert!(at.iter().all(|p| p["id"] == id), "{at:?}");
        }
        assert!(at.iter().any(|p| p["level"] == level), "{at:?}");
        assert!(at.iter().all(|p| p["kind"].is_string() && p["message"].is_string()), "{at:?}");
    }
    let kinds = |line: usize| -> Vec<&str> {
        problems.iter().filter(|p| p["line"] == line).map(|p| p["kind"].as_str().unwrap()).collect()
    };
    assert!(kinds(2).contains(&"duplicate_id"), "{:?}", kinds(2));
    assert!(kinds(5).contains(&"matches_any_line"), "{:?}", kinds(5));
    assert!(kinds(6).contains(&"regex_too_big"), "{:?}", kinds(6));
    assert!(kinds(7).contains(&"regex_too_big"), "{:?}", kinds(7));
    assert!(kinds(8).contains(&"matches_any_line"), "{:?}", kinds(8));
    assert_eq!(kinds(9), ["invalid_field"]);
    assert_eq!(kinds(10), ["invalid_field", "invalid_field"]);
    assert!(kinds(11).contains(&"invalid_json"), "{:?}", kinds(11));
    assert!(v["records_usable"].as_u64().unwrap() >= 3, "good-1, warn-re, fine-1: {v}");
    // The counts add up: the two bombs never match, and were counted usable beside their errors
    // (found by a catalog keeper); err-re, any-line and blank were in no count.
    let n = |k: &str| v[k].as_u64().unwrap();
    assert_eq!((n("records_usable"), n("records_left_out"), n("records_refused")), (5, 1, 5), "{v}");
    assert_eq!(n("records_read"), n("records_usable") + n("records_left_out") + n("records_refused"), "{v}");
}

/// A catalog with problems still annotates with its good records; the record with an invalid
/// messagePattern falls back to its errorMessage; hostile records cost nothing fatal.
#[test]
fn catalog_with_problems_still_annotates_with_its_good_records() {
    let (dir, _) = problem_dir();
    let input = lines(&[
        &rw_line(1, "WARN", "risingwave_meta::x", "collect failed error=barrier collection failed again for actor 3"),
        &rw_line(2, "ERROR", "risingwave_meta::x", "open failed error=cannot open table orders"),
        &rw_line(3, "ERROR", "risingwave_meta::x", &format!("{}x", "a".repeat(3000))),
        &info_line(4, "the quick brown fox failed"),
    ]);
    let out = run(&["-c".to_owned(), path_str(dir.path()), "--all".to_owned()], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("panicked"), "{}", stderr_of(&out));
    let evs = events(&out.stdout);
    assert_covers(&evs, 4);
    let e = at_line(&evs, 1);
    assert_eq!(match_id(e), Some("good-1"), "the later duplicate replaced the first: {e}");
    assert_eq!(e["match"]["template"], "barrier collection failed again for actor {actor_id}");
    let e = at_line(&evs, 2);
    assert_eq!(match_id(e), Some("warn-re"), "falls back to the errorMessage pattern: {e}");
    assert_eq!(e["match"]["captures"]["table"], "orders");
    assert_eq!(match_id(at_line(&evs, 4)), Some("fine-1"), "records of other files of the directory load");
}

#[test]
fn embedded_catalog_passes_check() {
    let out = run(&["check"], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr_of(&out));
    let summary = text.lines().last().unwrap_or("");
    assert!(summary.contains(" 0 error(s)"), "{summary}");
    assert!(summary.contains("4350 usable"), "{summary}");
}

// ---------------------------------------------------------------------------------------------
// 9. -c catalogs in each layout

fn seed_path() -> std::path::PathBuf {
    manifest_dir().join("config/catalog/seeds/000_41331c9454529832.txt")
}

fn seed_line(job: u32) -> String {
    rw_line(
        5,
        "ERROR",
        "risingwave_meta::barrier::rpc",
        &format!("failed to inject barrier error=should not pause when having snapshot backfill job {job}"),
    )
}

fn annotate_with(catalogs: &[&Path], input: &str) -> Vec<Value> {
    let mut args: Vec<String> = Vec::new();
    for c in catalogs {
        args.push("-c".into());
        args.push(path_str(c));
    }
    ok_events(&run(&args, input.as_bytes()))
}

#[test]
fn seed_style_file_with_record_and_dataset_version() {
    let dir = tempfile::tempdir().unwrap();
    let seed = dir.path().join("000_seed.txt");
    std::fs::copy(seed_path(), &seed).unwrap();
    let raw: Value = serde_json::from_str(&std::fs::read_to_string(&seed).unwrap()).unwrap();
    assert!(raw.get("record").is_some() && raw.get("datasetVersion").is_some(), "the seed has the wrapped shape");
    let evs = annotate_with(&[&seed], &lines(&[&seed_line(42), &split_line(6, 1)]));
    assert_eq!(evs.len(), 1, "only the seed's record is loaded: {evs:#?}");
    let m = &evs[0]["match"];
    assert_eq!(m["id"], "f16c5768bcd8aade");
    assert_eq!(m["slug"], "should-not-pause-when-having-snapshot-backfill-job");
    assert_eq!(m["captures"], json!({"job_id": "42"}));
    assert!(m["solutions"].as_array().is_some_and(|s| !s.is_empty()), "record fields pass through: {m}");
    assert!(
        m.get("datasetVersion").is_none() && m["record"].get("datasetVersion").is_none(),
        "the wrapper is not part of the record: {m}"
    );
}

/// Regression: a pretty-printed record's `solutions` and `tags` were copied into events as
/// stored, line breaks and all, so each of its events spanned several output lines.
#[test]
fn pretty_printed_record_still_gives_one_line_events() {
    let dir = tempfile::tempdir().unwrap();
    let seed: Value = serde_json::from_str(&std::fs::read_to_string(seed_path()).unwrap()).unwrap();
    let mut seed = seed;
    seed["record"]["runbook"] = json!({"steps": ["check the barrier", "retry"], "owner": "stream"});
    let pretty = dir.path().join("000_pretty.json");
    std::fs::write(&pretty, serde_json::to_string_pretty(&seed).unwrap()).unwrap();
    // `record_fields = "all"`: the record's other fields are passed through (not by default).
    let args = ["-c".to_owned(), path_str(&pretty), "--record-fields".to_owned(), "all".to_owned()];
    let out = run(&args, lines(&[&seed_line(7), &seed_line(8)]).as_bytes());
    // Each output line must parse as a whole event.
    let evs = ok_events(&out);
    assert_eq!(evs.len(), 2, "{evs:#?}");
    for ev in &evs {
        let m = &ev["match"];
        assert_eq!(m["solutions"], seed["record"]["solutions"]);
        assert_eq!(m["tags"], seed["record"]["tags"]);
        assert_eq!(m["record"]["runbook"], seed["record"]["runbook"], "other fields pass through: {m}");
    }
}

#[test]
fn json_lines_json_array_and_bare_objects() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl = dir.path().join("a.jsonl");
    std::fs::write(
        &jsonl,
        concat!(
            "{\"record\":{\"id\":\"w-1\",\"errorMessage\":\"alpha failed for {x}\"},\"datasetVersion\":\"v1\"}\n",
            "\n",
            "{\"id\":\"b-1\",\"errorMessage\":\"beta failed for {x}\"}\n",
        ),
    )
    .unwrap();
    let array = dir.path().join("b.json");
    std::fs::write(
        &array,
        "[\n  {\"id\": \"arr-1\", \"errorMessage\": \"gamma failed for {x}\"},\n  {\"record\": {\"id\": \"arr-2\", \"messagePattern\": \"delta failed for (.+?)\"}}\n]\n",
    )
    .unwrap();
    let bare = dir.path().join("c.json");
    std::fs::write(
        &bare,
        "{\n  \"id\": \"bare-1\",\n  \"errorMessage\": \"epsilon failed for {x}\",\n  \"severity\": \"warning\"\n}\n",
    )
    .unwrap();
    let input = lines(&[
        &info_line(1, "alpha failed for a1"),
        &info_line(2, "beta failed for b2"),
        &info_line(3, "gamma failed for c3"),
        &info_line(4, "delta failed for d4"),
        &info_line(5, "epsilon failed for e5"),
    ]);
    let evs = annotate_with(&[&jsonl, &array, &bare], &input);
    let got: Vec<(u64, &str)> = evs.iter().map(|e| (src_line(e), match_id(e).unwrap())).collect();
    assert_eq!(got, [(1, "w-1"), (2, "b-1"), (3, "arr-1"), (4, "arr-2"), (5, "bare-1")]);
    assert_eq!(evs[0]["match"]["captures"], json!({"x": "a1"}));
    assert_eq!(evs[3]["match"]["captures"]["_1"], "d4");
    assert_eq!(evs[4]["match"]["severity"], "warning");

    let out = run(&["check", "-c", &path_str(&jsonl), "-c", &path_str(&array), "-c", &path_str(&bare)], b"");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("5 record(s) read"), "{text}");
}

#[test]
fn directory_is_read_recursively() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("cat/one/two/three");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(dir.path().join("cat/top.jsonl"), "{\"id\":\"top\",\"errorMessage\":\"alpha failed for {x}\"}\n")
        .unwrap();
    std::fs::write(deep.join("deep.json"), "{\"id\":\"deep\",\"errorMessage\":\"omega failed for {x}\"}").unwrap();
    std::fs::copy(seed_path(), dir.path().join("cat/one/seed.txt")).unwrap();
    let evs = annotate_with(
        &[&dir.path().join("cat")],
        &lines(&[&info_line(1, "alpha failed for a"), &info_line(2, "omega failed for z"), &seed_line(7)]),
    );
    let got: Vec<&str> = evs.iter().map(|e| match_id(e).unwrap()).collect();
    assert_eq!(got, ["top", "deep", "f16c5768bcd8aade"]);
}

#[test]
fn later_catalog_overrides_earlier_one_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let b = dir.path().join("b.jsonl");
    std::fs::write(
        &a,
        "{\"id\":\"same\",\"errorMessage\":\"alpha failed for {x}\",\"severity\":\"error\",\"slug\":\"from-a\"}\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        "{\"id\":\"same\",\"errorMessage\":\"alpha failed for {x}\",\"severity\":\"warning\",\"slug\":\"from-b\"}\n",
    )
    .unwrap();
    let input = lines(&[&info_line(1, "alpha failed for q")]);
    let evs = annotate_with(&[&a, &b], &input);
    assert_eq!(evs.len(), 1);
    assert_eq!(
        (evs[0]["match"]["severity"].as_str(), evs[0]["match"]["slug"].as_str()),
        (Some("warning"), Some("from-b"))
    );
    let evs = annotate_with(&[&b, &a], &input);
    assert_eq!(
        (evs[0]["match"]["severity"].as_str(), evs[0]["match"]["slug"].as_str()),
        (Some("error"), Some("from-a"))
    );
    // The override also reaches the pretty view.
    let out =
        run(&["-c", &path_str(&a), "-c", &path_str(&b), "--format", "pretty", "--color", "never"], input.as_bytes());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("WARNING from-b"), "{text}");
    // An override across -c paths is not a duplicate inside one catalog.
    let out = run(&["check", "-c", &path_str(&a), "-c", &path_str(&b)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("duplicate"));
}

#[test]
fn catalog_option_replaces_the_embedded_catalog() {
    // -c replaces the embedded catalog: only the given paths are loaded.
    let dir = tempfile::tempdir().unwrap();
    let own = dir.path().join("own.jsonl");
    std::fs::write(&own, "{\"id\":\"own\",\"errorMessage\":\"alpha failed for {x}\"}\n").unwrap();
    let evs = annotate_with(&[&own], &lines(&[&example_line(37), &info_line(2, "alpha failed for y")]));
    let got: Vec<&str> = evs.iter().map(|e| match_id(e).unwrap()).collect();
    assert_eq!(got, ["own"]);
}
