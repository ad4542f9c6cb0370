//! `annotail stats`: the catalog maintenance report, run as the real binary. A five-record
//! catalog with one deliberate overlap, one record whose regex disagrees with its template, one
//! record without a template and one record no log line matches, against a corpus in every
//! layout the daemon reads; then the 4,350-record catalog against `examples/meta.log` (the same
//! file as the shared data set's `meta-sample.log`), checked against a plain run's events.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// `s-narrow`'s sample (`connection to meta 42 refused`) is also matched by `s-wide`; `s-liar`'s
/// regex says `view` where its template says `table`; `s-bare` has no template; no corpus line
/// holds `s-unused`'s text.
const CATALOG: &str = r#"{"id":"s-wide","slug":"conn-refused","errorMessage":"connection to {addr} refused","messagePattern":"connection to (.+?) refused"}
{"id":"s-narrow","slug":"meta-conn-refused","errorMessage":"connection to meta {addr} refused","messagePattern":"connection to meta (.+?) refused"}
{"id":"s-unused","errorMessage":"barrier collection failed for actor {actor_id}","messagePattern":"barrier collection failed for actor (.+?)"}
{"id":"s-liar","errorMessage":"cannot drop table {name}","messagePattern":"cannot drop view (.+?)"}
{"id":"s-bare","messagePattern":"sink coordinator lost contact"}
"#;

/// Physical lines of [`corpus`].
const CORPUS_LINES: u64 = 10;
/// Events of [`corpus`] with a match.
const CORPUS_MATCHED: u64 = 7;

/// RisingWave text, a JSON line, a kubectl prefix, a CRI record and plain text. `s-narrow`
/// matches 3 events (text ×2, JSON), where `s-wide` also matches; `s-wide` is the primary of 2
/// more (kubectl, CRI); `s-liar` and `s-bare` match once each.
fn corpus() -> String {
    let ts = "2026-03-02T08:00:01.000000001Z";
    let c = lines(&[
        // First: a line without a header continues the RisingWave event above it.
        "sink coordinator lost contact",
        &info_line(0, "starting leader services"),
        &rw_line(1, "ERROR", "risingwave_rpc_client::meta", "connection to meta 10.0.0.1:5690 refused"),
        &rw_line(2, "ERROR", "risingwave_rpc_client::meta", "connection to meta 10.0.0.1:5690 refused attempt=2"),
        &format!(
            r#"{{"timestamp":"{ts}","level":"ERROR","fields":{{"message":"connection to meta 10.0.0.3:5690 refused"}},"target":"risingwave_rpc_client"}}"#
        ),
        &format!(
            "[pod/risingwave-meta-0/meta] {}",
            rw_line(3, "WARN", "risingwave_meta::x", "connection to 10.0.0.2 refused")
        ),
        &format!("{ts} stdout F {}", rw_line(4, "WARN", "risingwave_meta::y", "connection to 10.0.0.4 refused")),
        &info_line(5, "HeartbeatServiceImpl started"),
        &rw_line(6, "ERROR", "risingwave_frontend::handler", "cannot drop view v1"),
        &info_line(7, "barrier collection succeeded for actor 7"),
    ]);
    assert_eq!(physical_lines(c.as_bytes()), CORPUS_LINES);
    c
}

struct Setup {
    dir: tempfile::TempDir,
    catalog: PathBuf,
    corpus: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let catalog = dir.path().join("catalog.jsonl");
    std::fs::write(&catalog, CATALOG).unwrap();
    let corpus_path = dir.path().join("corpus.log");
    std::fs::write(&corpus_path, corpus()).unwrap();
    Setup { dir, catalog, corpus: corpus_path }
}

fn stats(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut all = vec!["stats"];
    all.extend_from_slice(args);
    run(&all, input)
}

/// Run `stats --format json` and parse its one object; exit status 0 required.
fn stats_json(args: &[&str], input: &[u8]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = stats(&all, input);
    assert_eq!(out.status.code(), Some(0), "stats {args:?}: {}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 1, "one JSON object on one line: {text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn ok_text(out: &std::process::Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn s(p: &Path) -> String {
    path_str(p)
}

/// record id → (matches, primary) of `top_matched`.
fn counts(v: &Value) -> BTreeMap<String, (u64, u64)> {
    v["top_matched"]
        .as_array()
        .unwrap_or_else(|| panic!("top_matched is an array: {v}"))
        .iter()
        .map(|t| {
            (t["record"].as_str().unwrap().to_owned(), (t["matches"].as_u64().unwrap(), t["primary"].as_u64().unwrap()))
        })
        .collect()
}

fn strs(v: &Value) -> Vec<&str> {
    v.as_array().unwrap_or_else(|| panic!("an array: {v}")).iter().map(|x| x.as_str().unwrap()).collect()
}

#[test]
fn json_report_has_the_overlap_the_self_mismatch_and_the_match_counts() {
    let st = setup();
    let v = stats_json(&["-c", &s(&st.catalog), "--against", &s(&st.corpus)], b"");
    assert_eq!(v["records"], 5, "{v}");
    assert_eq!(v["records_read"], 5, "{v}");
    assert_eq!((v["catalog_errors"].as_u64(), v["catalog_warnings"].as_u64()), (Some(0), Some(0)), "{v}");
    assert_eq!((v["samples"].as_u64(), v["without_template"].as_u64()), (Some(4), Some(1)), "{v}");
    // The overlap pair, and nothing else: `s-wide`'s own sample is not matched by `s-narrow`.
    assert_eq!(v["overlap_pairs"], 1, "{v}");
    assert_eq!(v["overlaps"], serde_json::json!([{"record": "s-narrow", "also_matched_by": ["s-wide"]}]), "{v}");
    let sm = v["self_mismatch"].as_array().unwrap();
    assert_eq!(sm.len(), 1, "{v}");
    assert_eq!(sm[0]["record"], "s-liar");
    assert_eq!(sm[0]["sample"], "cannot drop table sample_1");
    // Matches, per layout, through the daemon's own framing and annotate path.
    assert_eq!(strs(&v["never_matched"]), ["s-unused"], "{v}");
    assert_eq!(v["never_matched_count"], 1);
    let want: BTreeMap<String, (u64, u64)> =
        [("s-wide", (5, 2)), ("s-narrow", (3, 3)), ("s-liar", (1, 1)), ("s-bare", (1, 1))]
            .into_iter()
            .map(|(k, c)| (k.to_owned(), c))
            .collect();
    assert_eq!(counts(&v), want, "{v}");
    assert_eq!(v["top_matched"][0]["record"], "s-wide", "most matches first: {v}");
    let a = &v["against"];
    assert_eq!(strs(&a["files"]), [s(&st.corpus)]);
    assert_eq!(a["lines"].as_u64(), Some(CORPUS_LINES), "{v}");
    assert_eq!(a["matched_events"].as_u64(), Some(CORPUS_MATCHED), "{v}");
    assert!(a["bytes"].as_u64().unwrap() > 0);
    // Timings: over the corpus, one call per event where the record was a candidate.
    assert_eq!(v["timed_over"], "against");
    let slow = v["slowest"].as_array().unwrap();
    let calls: BTreeMap<&str, u64> =
        slow.iter().map(|c| (c["record"].as_str().unwrap(), c["calls"].as_u64().unwrap())).collect();
    assert_eq!(calls.get("s-narrow"), Some(&3), "{v}");
    assert_eq!(calls.get("s-wide"), Some(&5), "{v}");
    assert_eq!(calls.get("s-bare"), Some(&1), "{v}");
    assert_eq!(calls.get("s-liar"), Some(&1), "{v}");
    // The last line says `barrier collection succeeded`: `s-unused`'s literal is in no event,
    // so it was never a candidate and cost nothing.
    assert_eq!(calls.get("s-unused"), None, "{v}");
    for c in slow {
        assert!(c["total_us"].is_number() && c["mean_ns"].is_u64(), "{c}");
    }
    let totals: Vec<f64> = slow.iter().map(|c| c["total_us"].as_f64().unwrap()).collect();
    assert!(totals.windows(2).all(|w| w[0] >= w[1]), "slowest first: {totals:?}");
    assert!(v["elapsed_ms"].is_u64(), "{v}");
}

#[test]
fn text_report_has_a_section_per_measurement() {
    let st = setup();
    let out = stats(&["-c", &s(&st.catalog), "--against", &s(&st.corpus)], b"");
    let text = ok_text(&out);
    for heading in
        ["== Overlaps: 1 pair(s) in 1 record(s)", "== Self mismatches: 1 record(s)", "== Most matched (top 10)"]
    {
        assert!(text.contains(heading), "{heading:?} in\n{text}");
    }
    assert!(text.contains("  s-narrow (meta-conn-refused) -> s-wide\n"), "{text}");
    assert!(text.contains("  s-liar: \"cannot drop table sample_1\"\n"), "{text}");
    let never = format!(
        "== Never matched: 1 of 5 record(s) in {} ({CORPUS_LINES} line(s), {CORPUS_MATCHED} event(s)",
        s(&st.corpus)
    );
    assert!(text.contains(&never), "{never:?} in\n{text}");
    assert!(text.contains("\n  s-unused\n"), "{text}");
    assert!(!text.contains("more\n"), "all never-matched ids fit in --top: {text}");
    let row = text.lines().find(|l| l.ends_with("s-wide (conn-refused)") && !l.contains("->")).expect("s-wide's row");
    let nums: Vec<&str> = row.split_whitespace().take(2).collect();
    assert_eq!(nums, ["5", "2"], "{row}");
    assert!(text.contains("== Slowest records (top 10, confirm time over the --against events"), "{text}");
    assert!(text.contains("samples: 4 record(s) with a template, 1 without (skipped)"), "{text}");
}

#[test]
fn top_cuts_the_lists_and_the_text_says_how_many_more() {
    let st = setup();
    let cat = s(&st.catalog);
    let corpus = s(&st.corpus);
    let v = stats_json(&["-c", &cat, "--against", &corpus, "--top", "1"], b"");
    assert_eq!(counts(&v).into_keys().collect::<Vec<_>>(), ["s-wide"], "{v}");
    assert_eq!(v["slowest"].as_array().unwrap().len(), 1, "{v}");
    // JSON lists every never-matched id whatever --top says.
    let v0 = stats_json(&["-c", &cat, "--against", &corpus, "--top", "0"], b"");
    assert_eq!(strs(&v0["never_matched"]), ["s-unused"], "{v0}");
    assert!(v0["top_matched"].as_array().unwrap().is_empty() && v0["slowest"].as_array().unwrap().is_empty(), "{v0}");
    let text = ok_text(&stats(&["-c", &cat, "--against", &corpus, "--top", "0"], b""));
    assert!(text.contains("== Never matched: 1 of 5") && text.contains("  … and 1 more\n"), "{text}");
    assert!(!text.contains("\n  s-unused\n"), "--top 0 lists no id: {text}");
}

#[test]
fn without_against_the_samples_are_timed_and_matches_are_not_reported() {
    let st = setup();
    let v = stats_json(&["-c", &s(&st.catalog)], b"");
    assert!(v["against"].is_null() && v["never_matched"].is_null() && v["never_matched_count"].is_null(), "{v}");
    assert!(v["top_matched"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(v["overlap_pairs"], 1, "{v}");
    assert_eq!(v["timed_over"], "samples");
    let timed: Vec<&str> = v["slowest"].as_array().unwrap().iter().map(|c| c["record"].as_str().unwrap()).collect();
    // Every record with a sample is a candidate on it, except `s-liar`, whose literal (`view`)
    // its sample lacks; `s-bare` has no sample, and no other sample holds its literal.
    let mut sorted = timed.clone();
    sorted.sort();
    assert_eq!(sorted, ["s-narrow", "s-unused", "s-wide"], "{v}");
    let text = ok_text(&stats(&["-c", &s(&st.catalog)], b""));
    assert!(text.contains("give --against FILE"), "{text}");
    assert!(text.contains("confirm time over the sample lines"), "{text}");
}

#[test]
fn against_dash_reads_standard_input_and_repeats_add_up() {
    let st = setup();
    let cat = s(&st.catalog);
    let v = stats_json(&["-c", &cat, "--against", "-"], corpus().as_bytes());
    assert_eq!(counts(&v).get("s-wide"), Some(&(5, 2)), "{v}");
    assert_eq!(v["against"]["lines"].as_u64(), Some(CORPUS_LINES));
    // The same file twice: every count doubles.
    let corpus = s(&st.corpus);
    let v2 = stats_json(&["-c", &cat, "--against", &corpus, "--against", &corpus], b"");
    assert_eq!(counts(&v2).get("s-wide"), Some(&(10, 4)), "{v2}");
    assert_eq!(v2["against"]["matched_events"].as_u64(), Some(2 * CORPUS_MATCHED), "{v2}");
    assert_eq!(strs(&v2["never_matched"]), ["s-unused"]);
}

#[test]
fn config_file_catalog_key_gives_the_catalog() {
    let st = setup();
    let cfg = st.dir.path().join("annotail.toml");
    // Relative to the config file's directory.
    std::fs::write(&cfg, "catalog = [\"catalog.jsonl\"]\n").unwrap();
    let v = stats_json(&["--config", &s(&cfg)], b"");
    assert_eq!(v["records"], 5, "{v}");
    // -c overrides the config's catalog.
    let other = st.dir.path().join("other.jsonl");
    std::fs::write(&other, "{\"id\":\"o-1\",\"errorMessage\":\"the quick brown fox failed\"}\n").unwrap();
    let v = stats_json(&["--config", &s(&cfg), "-c", &s(&other)], b"");
    assert_eq!(v["records"], 1, "{v}");
    assert_eq!(v["overlap_pairs"], 0, "{v}");
    assert!(v["self_mismatch"].as_array().unwrap().is_empty(), "{v}");
}

#[test]
fn against_files_are_framed_with_the_config_input_limits() {
    let st = setup();
    let (cat, corpus) = (s(&st.catalog), s(&st.corpus));
    let v = stats_json(&["-c", &cat, "--against", &corpus], b"");
    assert_eq!(strs(&v["never_matched"]), ["s-unused"], "{v}");
    // Lines cut at 40 bytes, as a run with this config cuts them: `cannot drop view v1` sits
    // past the cut, so s-liar is never matched either.
    let cfg = st.write_file("annotail.toml", "[input]\nmax_line_bytes = 40\n");
    let v = stats_json(&["--config", &s(&cfg), "-c", &cat, "--against", &corpus], b"");
    let never = strs(&v["never_matched"]);
    assert!(never.contains(&"s-liar") && never.contains(&"s-unused"), "{v}");
}

#[test]
fn unreadable_inputs_exit_2_naming_the_file() {
    let st = setup();
    let cat = s(&st.catalog);
    let missing = st.dir.path().join("no-such.log");
    let corpus = s(&st.corpus);
    // Checked before any work: a good file first does not produce a report.
    for bad in [s(&missing), s(st.dir.path())] {
        let out = stats(&["-c", &cat, "--against", &corpus, "--against", &bad], b"");
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", stderr_of(&out));
        let err = stderr_of(&out);
        assert!(err.contains(&format!("cannot read --against file {bad}")), "{err}");
        assert!(out.stdout.is_empty(), "no report: {}", String::from_utf8_lossy(&out.stdout));
    }
    let out = stats(&["-c", &s(&missing)], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains(&s(&missing)) && stderr_of(&out).contains("could not be loaded"),
        "{}",
        stderr_of(&out)
    );
    // A catalog that loads but has no usable record.
    let useless = st.write_file("useless.jsonl", "{\"id\":\"any\",\"messagePattern\":\"(.+?)\"}\n");
    let out = stats(&["-c", &s(&useless), "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("record any"), "the problem is shown: {}", stderr_of(&out));
}

impl Setup {
    fn write_file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// The 4,350-record catalog against the example log: the counts are those of a plain run's
/// events (every primary and `also_matched` record), the truth file's records are all matched,
/// and the samples agree with their records.
#[test]
fn extracted_catalog_against_the_example_log_counts_what_a_run_annotates() {
    let cat = s(&manifest_dir().join("config/catalog/risingwave-extracted.jsonl"));
    let log = s(&example_log());
    let v = stats_json(&["-c", &cat, "--against", &log, "--top", "100000"], b"");
    assert_eq!(v["records"], 4350, "{}", v["records"]);
    let never = strs(&v["never_matched"]);
    assert_eq!(v["never_matched_count"].as_u64(), Some(never.len() as u64));
    assert!(!never.is_empty() && never.len() < 4350, "never matched: {}", never.len());
    assert_eq!(v["against"]["lines"].as_u64(), Some(2000), "{}", v["against"]);
    assert!(v["overlap_pairs"].as_u64().unwrap() > 0, "the catalog has duplicate and generic messages");
    assert_eq!(
        v["overlap_pairs"].as_u64().unwrap(),
        v["overlaps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["also_matched_by"].as_array().unwrap().len() as u64)
            .sum::<u64>()
    );
    let mismatched: Vec<&Value> = v["self_mismatch"].as_array().unwrap().iter().collect();
    assert!(mismatched.is_empty(), "every extracted record matches its own sample: {mismatched:?}");
    assert_eq!(v["timed_over"], "against");
    assert!(!v["slowest"].as_array().unwrap().is_empty());

    // What a plain run writes, counted per record.
    let out = run(&["-c", &cat, "--format", "json", &log], b"");
    let evs = ok_events(&out);
    let mut want: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for e in &evs {
        let primary = match_id(e).expect("a match").to_owned();
        want.entry(primary).or_default().1 += 1;
        let mut ids = vec![e["match"]["id"].as_str().unwrap().to_owned()];
        ids.extend(e["also_matched"].as_array().into_iter().flatten().map(|m| m["id"].as_str().unwrap().to_owned()));
        for id in ids {
            want.entry(id).or_default().0 += 1;
        }
    }
    assert_eq!(v["against"]["matched_events"].as_u64(), Some(evs.len() as u64));
    assert_eq!(counts(&v), want, "stats' counts are a plain run's");
    assert_eq!(never.len() + want.len(), 4350);

    // Every record of the truth file is matched.
    let truth = std::fs::read_to_string(manifest_dir().join("tests/meta-sample.truth.jsonl")).unwrap();
    for t in truth.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()) {
        // An error a recovery span repeats on INFO/DEBUG lines is those lines' context, not a
        // match (the truth predates that rule); its WARN/ERROR line, if the log has one, counts.
        if matches!(t["level"].as_str(), Some("INFO" | "DEBUG")) {
            continue;
        }
        let id = t["id"].as_str().unwrap();
        assert!(!never.contains(&id), "truth record {id} reported as never matched");
    }
}
