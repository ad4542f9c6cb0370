//! Matcher tests: table-driven cases through the whole event path, and the prefilter's
//! zero-false-negative property against brute force over every embedded record.

use std::collections::BTreeSet;

use proptest::prelude::*;
use serde_json::Value;

use super::{Limits, Matcher, Plausible, Scratch, blanks_at_line_ends_dropped};
use crate::annotate::{Annotator, Emit, SourceMeta};
use crate::catalog;
use crate::event::{Format, OutWriter, Writer};
use crate::framing::{self, Framer};

const CATALOG: &str = r#"
{"id": "job", "errorMessage": "should not pause when having snapshot backfill job {job_id}", "messagePattern": "should not pause when having snapshot backfill job (.+?)", "severity": "error", "solutions": ["resume"]}
{"id": "storage", "errorMessage": "Storage error: {0}", "messagePattern": "Storage error: (.+?)", "errorClass": "StorageError"}
{"id": "unexpected", "errorMessage": "unexpected {}: {}", "messagePattern": "unexpected (.+?): (.+?)"}
{"id": "addr", "errorMessage": "unable to reach controller at addr {}", "messagePattern": "unable to reach controller at addr (.+?)"}
{"id": "reqerr", "errorMessage": "request error", "messagePattern": "request error"}
{"id": "clock", "errorMessage": "Clock moved backwards: last={}, current={}", "messagePattern": "Clock moved backwards: last=(.+?), current=(.+?)"}
{"id": "notfound", "errorMessage": "{} not found in {}", "messagePattern": "(.+?) not found in (.+?)"}
{"id": "dbl", "errorMessage": "double added\n{:#?}", "messagePattern": "double added\n(.+?)"}
{"id": "ctx", "errorMessage": "failed to create source worker", "messagePattern": "failed to create source worker", "errorClass": "anyhow::Error"}
{"id": "prim", "errorMessage": "failed to list splits: {e}", "messagePattern": "failed to list splits: (.+?)", "errorClass": "anyhow::Error"}
{"id": "host", "errorMessage": "failed to replace job", "messagePattern": "failed to replace job", "errorClass": "tracing::Event", "errorType": "log"}
{"id": "nopattern", "errorMessage": "bad value {v} (expected {{x}})"}
{"id": "epoch", "errorMessage": "table {} Epoch {} <= committed_epoch Idle", "messagePattern": "table (.+?) Epoch (.+?) <= committed_epoch Idle"}
"#;

fn matcher(text: &str) -> Matcher {
    let cat = catalog::from_text("test.jsonl", text);
    assert!(cat.problems.is_empty(), "{:?}", cat.problems);
    Matcher::new(cat, Limits::default()).0
}

/// Run `input` through framing, matching and JSON output; the events written.
fn run(m: &Matcher, input: &str) -> Vec<Value> {
    let mut out = OutWriter::new(Vec::new(), Format::Json, false, 80);
    {
        let mut ann = Annotator::new(m, Emit::Matches, &mut out, SourceMeta::stdin());
        let mut fr = Framer::new(m, framing::Limits::default(), false);
        fr.feed(input.as_bytes(), &mut ann);
        fr.finish(&mut ann);
    }
    out.flush();
    String::from_utf8(out.into_inner()).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

const TS: &str = "2026-03-02T08:00:00.011660911Z";

/// (input, primary id, primary captures as `(name, value)`, other ids)
type Case<'a> = (String, Option<&'a str>, &'a [(&'a str, &'a str)], &'a [&'a str]);

#[test]
fn table() {
    let m = matcher(CATALOG);
    let cases: &[Case] = &[
        // A trailing lazy group is captured whole, up to the next field.
        (
            format!("{TS} ERROR risingwave_meta::barrier::rpc: should not pause when having snapshot backfill job 4242 actor_id=7"),
            Some("job"),
            &[("job_id", "4242")],
            &[],
        ),
        // An error tail takes the rest of the chain; the wrapped wrapper is not the primary.
        (
            format!("{TS}  WARN risingwave_meta::x: failed to list splits: Storage error: disk full (os error 28)"),
            Some("prim"),
            &[("e", "Storage error: disk full (os error 28)")],
            &["storage"],
        ),
        // A group between two pieces holds no link of a chain: the match starts at the later
        // copy of its first word (`_1` was `27420 during cleanup: table 112631`).
        (
            format!("{TS} ERROR risingwave_meta::x: failed to drop iceberg table 27420 during cleanup: table 112631 Epoch 10171819363663872 <= committed_epoch Idle"),
            Some("epoch"),
            &[("_1", "112631"), ("_2", "10171819363663872")],
            &[],
        ),
        // A value that is not an error ends at the next chain link.
        (
            format!("{TS}  WARN risingwave_meta::x: poll failed error=unable to reach controller at addr rw-compute-1:5691: Connection refused"),
            Some("addr"),
            &[("_1", "rw-compute-1:5691")],
            &[],
        ),
        // `<literal>: {source}` printed alone as a numbered chain link: its source is the next
        // numbered cause ...
        (
            format!("{TS} ERROR risingwave_meta::x: boom\n\nCaused by these errors (recent errors listed first):\n 1: Storage error\n 2: disk full\n"),
            Some("storage"),
            &[("_1", "disk full")],
            &[],
        ),
        // ... and absent when none follows.
        (
            format!("{TS} ERROR risingwave_meta::x: boom\n\nCaused by these errors (recent errors listed first):\n 1: disk full\n 2: Storage error\n"),
            Some("storage"),
            &[],
            &[],
        ),
        // ... but a template with another placeholder does not drop its tail.
        (format!("{TS}  INFO risingwave_meta::x: refreshed source enumerator: unexpected end of file"), None, &[], &[]),
        // A match may not run from the message into a field name.
        (format!("{TS}  WARN risingwave_meta::barrier::rpc: failed to send request error=timed out"), None, &[], &[]),
        // ... unless the record's own text holds that `key=`.
        (
            format!("{TS}  WARN risingwave_meta::x: Clock moved backwards: last=17, current=12 worker_id=3"),
            Some("clock"),
            &[("_1", "17"), ("_2", "12")],
            &[],
        ),
        // regression (found by a second reader): a leading lazy group is never empty, so a
        // message that starts with the record's literal (or a link that does) is no match: the
        // group took the line's header (`_1` the timestamp, level and target) or the link before.
        (format!("{TS}  WARN risingwave_meta::x: not found in public"), None, &[], &[]),
        (format!("{TS}  WARN risingwave_meta::x: apply failed: not found in public"), None, &[], &[]),
        // ... and a later occurrence that has a value still matches (found by a third reader).
        (
            format!("{TS}  WARN risingwave_meta::x: apply failed: not found in public; retry: t1 not found in s2"),
            Some("notfound"),
            &[("_1", "t1"), ("_2", "s2")],
            &[],
        ),
        // A leading lazy group starts at the last chain link.
        (
            format!("{TS}  WARN risingwave_meta::x: apply failed error=context: orders_mv not found in public"),
            Some("notfound"),
            &[("_1", "orders_mv"), ("_2", "public")],
            &[],
        ),
        // `{:#?}` values span lines.
        (
            format!("{TS} ERROR risingwave_meta::x: double added\nEpochPair {{\n    curr: 1,\n    prev: 0,\n}}\n"),
            Some("dbl"),
            &[("_1", "EpochPair {\n    curr: 1,\n    prev: 0,\n}")],
            &[],
        ),
        // The host log message loses to the error in its error field; a context precedes.
        (
            format!("{TS} ERROR risingwave_meta::x: failed to replace job error=failed to create source worker: failed to list splits: timed out"),
            Some("prim"),
            &[("e", "timed out")],
            &["host", "ctx"],
        ),
        // A span field holding an error, on the WARN line that logs inside the span.
        (
            format!("{TS}  WARN failure_recovery{{error=Storage error: should not pause when having snapshot backfill job 9}}:recovery_attempt: risingwave_meta::barrier::progress: recovering"),
            Some("job"),
            &[("job_id", "9")],
            &["storage"],
        ),
        // The same span repeated on an INFO line is context, not the line's error: no event.
        (
            format!("{TS}  INFO failure_recovery{{error=Storage error: should not pause when having snapshot backfill job 9}}:recovery_attempt: risingwave_meta::barrier::progress: recovering"),
            None,
            &[],
            &[],
        ),
        // JSON layout: decoded values, quotes and all.
        (
            r#"{"timestamp":"2026-03-02T08:00:29.167772591Z","level":"ERROR","fields":{"message":"x","error":"should not pause when having snapshot backfill job \"j1\""},"target":"t"}"#.to_owned(),
            Some("job"),
            &[("job_id", "\"j1\"")],
            &[],
        ),
        // A record without messagePattern: derived from errorMessage.
        (format!("{TS}  WARN t::x: bad value 3 (expected {{x}})"), Some("nopattern"), &[("v", "3")], &[]),
    ];
    for (input, primary, caps, others) in cases {
        let evs = run(&m, input);
        match primary {
            None => assert!(evs.is_empty(), "{input}: expected no event, got {evs:?}"),
            Some(p) => {
                assert_eq!(evs.len(), 1, "{input}: {evs:?}");
                let mt = &evs[0]["match"];
                assert_eq!(mt["id"], *p, "{input}: {}", evs[0]);
                let got: Vec<(String, String)> = mt["captures"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                    .collect();
                let want: Vec<(String, String)> = caps.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
                assert_eq!(got, want, "{input}");
                let also: BTreeSet<&str> =
                    evs[0]["also_matched"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
                assert_eq!(also, others.iter().copied().collect(), "{input}");
            }
        }
    }
}

#[test]
fn hostile_patterns_are_refused_not_fatal() {
    let text = r#"{"id": "ok", "errorMessage": "disk is full"}
{"id": "any", "messagePattern": "(.+?)"}
{"id": "empty", "messagePattern": "x*"}
{"id": "bomb", "messagePattern": "boom ((a{100}){100}){100}"}
{"id": "unclosed", "messagePattern": "broken (regex"}
"#;
    let cat = catalog::from_text("hostile.jsonl", text);
    let (m, problems) = Matcher::new(cat, Limits::default());
    let ids: BTreeSet<&str> = problems.iter().filter_map(|p| p.id.as_deref()).collect();
    assert_eq!(ids, ["any", "empty", "unclosed"].into_iter().collect());
    // The bomb parses but must not compile: it never matches and does not take others down.
    let evs = run(&m, "boom aaaa\nthe disk is full\n");
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0]["match"]["id"], "ok");
    let bomb = m.entries.iter().find(|e| e.rec.id == "bomb").unwrap();
    assert!(bomb.compile_now().is_err());
}

/// Records of the embedded catalog, compiled once for the property test.
fn embedded() -> &'static Matcher {
    static M: std::sync::OnceLock<Matcher> = std::sync::OnceLock::new();
    M.get_or_init(|| Matcher::new(catalog::load(&[]), Limits::default()).0)
}

/// Fill a template with `value` in every placeholder.
fn instantiate(template: &str, value: &str) -> String {
    let parts = crate::catalog::template::parse(template);
    parts
        .iter()
        .map(|p| match p {
            crate::catalog::template::Part::Lit(l) => l.clone(),
            crate::catalog::template::Part::Ph { .. } => value.to_owned(),
        })
        .collect()
}

fn brute_force(m: &Matcher, text: &[u8]) -> BTreeSet<u32> {
    (0..m.entries.len() as u32)
        .filter(|&i| {
            let e = &m.entries[i as usize];
            e.regex().is_some_and(|r| r.is_match(text)) || e.absent_regex().is_some_and(|r| r.is_match(text))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Zero false negatives: every record whose regex matches a text is a candidate of the
    /// prefilter's hits on that text (checked against all ~4,350 embedded records).
    #[test]
    fn prefilter_has_no_false_negatives(
        picks in proptest::collection::vec((any::<proptest::sample::Index>(), "[a-z0-9_ :.\"{}\\[\\]()=-]{0,12}"), 1..4),
        seps in proptest::collection::vec(prop_oneof![Just(": "), Just(" "), Just("\n"), Just(" error="), Just("")], 4),
        noise in "[ -~]{0,30}",
    ) {
        let m = embedded();
        let mut text = noise.clone();
        for (i, (idx, value)) in picks.iter().enumerate() {
            let e = &m.entries[idx.index(m.entries.len())];
            let t = e.rec.template.clone().unwrap_or_default();
            text.push_str(seps[i % seps.len()]);
            text.push_str(&instantiate(&t, value));
        }
        let mut scratch = Scratch::default();
        let mut hits = Vec::new();
        m.scan(text.as_bytes(), &mut hits, &mut scratch);
        m.candidates(hits.iter().map(|h| h.literal), &mut scratch);
        let cands: BTreeSet<u32> = scratch.cands.iter().copied().collect();
        let truth = brute_force(m, text.as_bytes());
        let missed: Vec<&str> = truth.difference(&cands).map(|&i| m.entries[i as usize].rec.id.as_str()).collect();
        prop_assert!(missed.is_empty(), "missed {:?} in {:?}", missed, text);
    }
}

/// The same property through the framer: hits found block-wise and mapped to events equal the
/// hits of a scan of each event's own text.
#[test]
fn block_scan_maps_hits_to_their_events() {
    let m = embedded();
    let log = include_str!("../../examples/meta.log");
    struct Collect<'a>(&'a Matcher, Vec<(String, BTreeSet<u32>)>);
    impl crate::framing::EventSink for Collect<'_> {
        fn event(&mut self, ev: crate::framing::RawEvent<'_>) {
            self.1.push((String::from_utf8_lossy(ev.bytes).into_owned(), ev.literals.iter().copied().collect()));
            let _ = self.0;
        }
    }
    let mut sink = Collect(m, Vec::new());
    let mut fr = Framer::new(m, framing::Limits::default(), true);
    // Odd chunk sizes put block edges everywhere.
    for chunk in log.as_bytes().chunks(977) {
        fr.feed(chunk, &mut sink);
    }
    fr.finish(&mut sink);
    assert_eq!(sink.1.iter().map(|(t, _)| t.matches('\n').count() + 1).sum::<usize>(), log.lines().count());
    for (text, lits) in &sink.1 {
        let mut hits = Vec::new();
        m.scan(text.as_bytes(), &mut hits, &mut Scratch::default());
        let want: BTreeSet<u32> = hits.iter().map(|h| h.literal).collect();
        assert_eq!(lits, &want, "{text}");
    }
}

/// Regression: one regex parser was shared by all records, and a `(?s)` set by a record whose
/// message has a line break leaked into the records after it, whose `.` then matched line breaks.
#[test]
fn regression_multiline_flag_does_not_leak_into_later_records() {
    let m = matcher(
        r#"{"id": "ml", "errorMessage": "first line\nsecond {}", "messagePattern": "first line\nsecond (.+?)"}
{"id": "u", "errorMessage": "unexpected {}: {}", "messagePattern": "unexpected (.+?): (.+?)"}
"#,
    );
    let evs = run(&m, &format!("{TS}  WARN a::b: x unexpected end of file\n\nBacktrace:\n   0: foo\n"));
    assert!(evs.is_empty(), "{evs:?}");
}

/// The known-error events of `input` as JSON lines (read time removed), framed densely (every
/// line) or sparsely (only around hits), fed in chunks of `chunk` bytes.
fn annotated(m: &Matcher, input: &[u8], every_event: bool, chunk: usize) -> Vec<String> {
    let mut out = OutWriter::new(Vec::new(), Format::Json, false, 80);
    {
        let mut ann = Annotator::new(m, Emit::Matches, &mut out, SourceMeta::stdin());
        let limits = framing::Limits { max_event_lines: 7, ..framing::Limits::default() };
        let mut fr = Framer::new(m, limits, every_event);
        for c in input.chunks(chunk.max(1)) {
            fr.feed(c, &mut ann);
        }
        fr.finish(&mut ann);
    }
    out.flush();
    let text = String::from_utf8(out.into_inner()).unwrap();
    text.lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("observed");
            if v["log"]["format"] != "risingwave" && v["log"]["format"] != "json" {
                v.as_object_mut().unwrap().remove("@timestamp");
            }
            v.to_string()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Sparse framing (lines far from plausible hits only counted) gives exactly the known-error
    /// events that dense framing (every line framed) gives, whatever the chunking.
    #[test]
    fn sparse_framing_equals_dense_framing(
        picks in proptest::collection::vec((0usize..2000, 0usize..12), 1..60),
        chunk in prop_oneof![Just(7usize), Just(64), Just(1000), Just(1 << 20)],
    ) {
        let m = embedded();
        let lines: Vec<&str> = include_str!("../../examples/meta.log").lines().collect();
        let mut input = String::new();
        for (i, kind) in &picks {
            match kind {
                // Continuations, plain lines and other headers between real lines.
                0 => input.push_str("    at src/meta/src/barrier/rpc.rs:10\n"),
                1 => input.push('\n'),
                2 => input.push_str("Caused by:\n    failed to collect barrier\n"),
                3 => input.push_str("thread 'rw-main' (11) panicked at src/meta/src/a.rs:1:2:\ncalled `Option::unwrap()` on a `None` value\n"),
                4 => input.push_str("{\"timestamp\":\"2026-03-02T08:00:29Z\",\"level\":\"ERROR\",\"fields\":{\"message\":\"channel closed\"},\"target\":\"t\"}\n"),
                // A Python program's logged exception, a traceback alone, chained, an INFO line.
                5 => input.push_str("2026-12-05 10:00:00,123 - udf - ERROR - batch failed\nTraceback (most recent call last):\n  File \"a.py\", line 1, in f\nudf.Error: failed to inject initial barrier\n"),
                6 => input.push_str("Traceback (most recent call last):\n  File \"a.py\", line 1, in f\nudf.Error: failed to inject initial barrier\n\nDuring handling of the above exception, another exception occurred:\n\n"),
                7 => input.push_str("2026-12-05 10:00:00,123 - udf - INFO - ok\n"),
                // Kafka's logged error with its Java stack trace.
                8 => input.push_str("[2026-12-05 10:00:00,123] ERROR [X] failed (k.X)\njava.lang.IllegalStateException: failed to inject initial barrier\n\tat a.B.c(B.java:1)\n"),
                _ => {
                    input.push_str(lines[*i % lines.len()]);
                    input.push('\n');
                }
            }
        }
        let dense = annotated(m, input.as_bytes(), true, chunk);
        let sparse = annotated(m, input.as_bytes(), false, chunk);
        prop_assert_eq!(sparse, dense);
    }
}

/// Regression (found by `sparse_framing_equals_dense_framing`): a run of header-less lines longer
/// than an event was framed sparsely from the walk-back limit, which split it differently from
/// dense framing.
#[test]
fn regression_headerless_run_longer_than_an_event_frames_as_dense() {
    let m = embedded();
    let mut input = "Caused by:\n    failed to collect barrier\n".repeat(4);
    input.push_str(" 1: The signature verification function must be SECURE_COMPARE()\n");
    for chunk in [7, 1000] {
        let dense = annotated(m, input.as_bytes(), true, chunk);
        assert!(!dense.is_empty());
        assert_eq!(annotated(m, input.as_bytes(), false, chunk), dense);
    }
}

/// Regression: the head of a `<literal>: {source}` record used as a field's key
/// (`Failed to merge compaction group error=tcp connect error`) framed an event on every such
/// line for the record's absent form, which then never matched: 5,426 of the 13,710 events
/// framed in the 43,500-record benchmark corpus. Those lines are now passed over, and the absent
/// form's real shapes (a chain line, a field's value, a span field, a JSON string) are framed
/// and found as dense framing finds them.
#[test]
fn regression_absent_form_head_as_field_key_is_not_framed() {
    let m = matcher(
        r#"{"id": "cg", "errorMessage": "compaction group error: {0}", "messagePattern": "compaction group error: (.+?)"}"#,
    );
    let e = &m.entries[0];
    let key = format!("{TS} DEBUG a::b: Failed to merge compaction group error=tcp connect error: No route to host");
    let shapes = [
        format!("{TS}  WARN a::b: merge failed error=compaction group error"),
        format!("{TS}  WARN a{{error=compaction group error}}: a::b: merge failed"),
        "  0: compaction group error".to_string(),
        "ERROR:  compaction group error \r".to_string(),
        r#"{"timestamp":"2026-03-02T08:00:29Z","level":"ERROR","fields":{"message":"merge failed","error":"compaction group error"},"target":"t"}"#.to_string(),
        format!("{TS} ERROR a::b: compaction group error: boom"),
        // The literal twice: the second occurrence may still end a value.
        format!("{TS}  WARN a::b: compaction group error=1 error=compaction group error"),
    ];
    assert_eq!(e.line_plausible(key.as_bytes()), Plausible::No);
    for line in &shapes {
        assert_eq!(e.line_plausible(line.as_bytes()), Plausible::Yes, "{line}");
    }
    let input = format!(
        "{key}\n{}\n{TS} ERROR a::b: merge failed\n\nCaused by:\n  0: compaction group error\n  1: boom\n{key}\n",
        shapes.join("\n")
    );
    for chunk in [7, 64, 1 << 20] {
        let dense = annotated(&m, input.as_bytes(), true, chunk);
        assert_eq!(annotated(&m, input.as_bytes(), false, chunk), dense, "chunk {chunk}");
        assert!(dense.len() >= 4, "{dense:#?}");
        assert!(dense.iter().all(|ev| !ev.contains("Failed to merge")), "{dense:#?}");
    }
}

/// Regression: a record that may span lines (`row {:?} not found`, whose `{:?}` may print on
/// several lines) made every line holding its key plausible, since the pieces before the key may
/// sit on the lines above: 4,458 of the 9,192 events framed in the 4,350-record benchmark corpus,
/// none of which matched. Its pieces up to the key are now looked for in the event's text up to
/// the key's line; events where they are found (on the key's line or above) still match as
/// dense framing finds them.
#[test]
fn regression_multi_line_record_frames_only_events_holding_its_head() {
    let m =
        matcher(r#"{"id": "row", "errorMessage": "row {:?} not found", "messagePattern": "row ((?s).+?) not found"}"#);
    let e = &m.entries[0];
    assert!(!e.single_line);
    let lone = format!("{TS}  INFO a::b: table 7 not found, creating it");
    assert_eq!(e.line_plausible(lone.as_bytes()), Plausible::Event);
    assert!(!e.event_head_plausible(lone.as_bytes()));
    let one_line = format!("{TS} ERROR a::b: row 42 not found");
    assert!(e.event_head_plausible(one_line.as_bytes()));
    let split = format!("{TS} ERROR a::b: row Row {{\n    id: 42,\n}} not found");
    assert!(e.event_head_plausible(split.as_bytes()));
    // `row ` in the event before does not count: that event ends at the next header.
    let input = format!(
        "{TS}  INFO a::b: row count 10\n{lone}\n{one_line}\n{TS} ERROR a::b: lookup failed: row Row {{\n    id: 42,\n}} not found\n{TS}  INFO a::b: retrying\n{lone}\n"
    );
    for chunk in [7, 64, 1 << 20] {
        let dense = annotated(&m, input.as_bytes(), true, chunk);
        assert_eq!(annotated(&m, input.as_bytes(), false, chunk), dense, "chunk {chunk}");
        assert_eq!(dense.len(), 2, "{dense:#?}");
        assert!(dense.iter().all(|ev| !ev.contains("creating it")), "{dense:#?}");
    }
    // The sparse framer frames the two events with `row ` before the key (and the block's last
    // event, always), not the lines without.
    let mut fr = Framer::new(&m, framing::Limits::default(), false);
    let mut sink = Framed(Vec::new());
    fr.feed(format!("{input}{TS}  INFO a::b: done\n").as_bytes(), &mut sink);
    fr.finish(&mut sink);
    assert_eq!(sink.0.len(), 3, "{:?}", sink.0);
    assert!(sink.0[0].ends_with("row 42 not found") && sink.0[1].ends_with("} not found"), "{:?}", sink.0);
}

/// The text of every event a framer hands on.
struct Framed(Vec<String>);
impl framing::EventSink for Framed {
    fn event(&mut self, ev: framing::RawEvent<'_>) {
        self.0.push(String::from_utf8_lossy(ev.bytes).into_owned());
    }
}

/// Records are prepared by several workers, each over its own chunk of the catalog: the entries
/// keep the catalog's order, and a record that cannot be prepared leaves neither a gap nor a
/// stray entry, only its problem (named by its id and line).
#[test]
fn entries_keep_the_catalog_order_across_workers() {
    let broken = |i: usize| i % 7 == 3;
    let text: String = (0..2000)
        .map(|i| {
            if broken(i) {
                format!("{{\"id\": \"r{i}\", \"messagePattern\": \"broken (\"}}\n")
            } else {
                format!(
                    "{{\"id\": \"r{i}\", \"errorMessage\": \"failure {i} in stage {{}}\", \"messagePattern\": \"failure {i} in stage (.+?)\"}}\n"
                )
            }
        })
        .collect();
    let (m, problems) = Matcher::new(catalog::from_text("big.jsonl", &text), Limits::default());
    let ids: Vec<&str> = m.entries.iter().map(|e| e.rec.id.as_str()).collect();
    let want: Vec<String> = (0..2000).filter(|&i| !broken(i)).map(|i| format!("r{i}")).collect();
    assert_eq!(ids, want);
    let bad: Vec<(String, usize)> = problems.iter().map(|p| (p.id.clone().unwrap_or_default(), p.line)).collect();
    let want_bad: Vec<(String, usize)> = (0..2000).filter(|&i| broken(i)).map(|i| (format!("r{i}"), i + 1)).collect();
    assert_eq!(bad, want_bad);
    let hit = run(&m, &format!("{TS} ERROR meta: failure 1999 in stage barrier\n"));
    assert_eq!(hit[0]["match"]["id"], "r1999");
}

#[test]
fn numbered_causes_are_found_where_they_start() {
    use super::{next_cause, numbered_cause, starts_numbered_cause};
    // (text, offset, does a numbered cause start there)
    let starts: &[(&str, usize, bool)] = &[
        ("  2: table or source not found: t_orders", 5, true),
        ("x 1: Catalog error 2: table or source", 22, true),
        ("12: a", 4, true),
        ("1234: a", 6, false),
        ("ERROR: a", 7, false),
        ("v2: a", 4, false),
        (": a", 2, false),
        ("2:a", 2, false),
    ];
    for &(text, at, want) in starts {
        assert_eq!(starts_numbered_cause(text.as_bytes(), at), want, "{text:?} at {at}");
    }
    assert_eq!(numbered_cause(b"Catalog error 2: table"), Some(13));
    assert_eq!(numbered_cause(b"retry in 2s: later"), None);
    // (text, end of a link, the next cause's text)
    let next: &[(&str, usize, Option<&str>)] = &[
        (
            "  1: Catalog error\n  2: table or source not found: t_orders\n",
            18,
            Some("table or source not found: t_orders"),
        ),
        ("1: Catalog error 2: not found: t 3: x", 16, Some("not found: t")),
        ("1: Catalog error\n\nCaused by", 16, None),
        ("Catalog error: x", 13, None),
        ("1: Catalog error 2: ", 16, None),
    ];
    for &(text, end, want) in next {
        let got = next_cause(text.as_bytes(), end).map(|(s, e)| &text[s..e]);
        assert_eq!(got, want, "{text:?}");
    }
}

#[test]
fn the_crates_that_link_the_meta_node() {
    use super::target_links_meta;
    for t in
        ["risingwave_meta", "risingwave_meta_service", "risingwave_meta_node", "risingwave_ctl", "risingwave_cmd_all"]
    {
        assert!(target_links_meta(t.as_bytes()), "{t}");
    }
    for t in ["risingwave_connector", "risingwave_rpc_client", "risingwave_common", "risingwave_stream", "pgwire"] {
        assert!(!target_links_meta(t.as_bytes()), "{t}");
    }
}

#[test]
fn blanks_at_line_ends_are_dropped_from_patterns() {
    // What a final blank becomes: blanks, or the line's end.
    const E: &str = super::LINE_END_BLANKS;
    let cases: &[(&str, String)] = &[
        (
            "(.+?) used by (.+?) other objects\\. \nDETAIL: (.+?)",
            "(.+?) used by (.+?) other objects\\.\nDETAIL: (.+?)".into(),
        ),
        ("a \t\\n b", "a\\n b".into()),
        ("a\\ \\t\\nb", "a\\nb".into()),
        ("a\\x20\\x0Ab", "a\\x0Ab".into()),
        ("a[ ]\\nb", "a\\nb".into()),
        ("a[ \\t]+\\nb", "a\\nb".into()),
        ("a[[:space:]]\\nb", "a\\nb".into()),
        ("a +\\nb", "a\\nb".into()),
        ("a\\s*\\nb", "a\\nb".into()),
        ("a(?: )\\nb", "a\\nb".into()),
        ("empty $", "empty$".into()),
        ("empty \\z", "empty\\z".into()),
        ("(a (b ))\nc", "(a (b))\nc".into()),
        ("kappa ended (?:\\nNEXT: (.+?))", "kappa ended(?:\\nNEXT: (.+?))".into()),
        ("(?:eps is full|eps is empty\\x20)$", "(?:eps is full|eps is empty)$".into()),
        ("(x \ny) z", "(x\ny) z".into()),
        // At the pattern's end: blanks or the line's end, so that a word still ends there.
        ("lhs buffer should not be empty ", format!("lhs buffer should not be empty{E}")),
        ("empty\\x20", format!("empty{E}")),
        ("quota reached\\s+", format!("quota reached{E}")),
        ("quota reached {1,}", format!("quota reached{E}")),
        ("quota reached +?", format!("quota reached{E}")),
        ("risingwave is (.+?) ", format!("risingwave is (.+?){E}")),
        ("Failed to run: ", format!("Failed to run:{E}")),
        ("(?:zeta is empty )", format!("(?:zeta is empty{E})")),
        ("eta is full|eta is empty ", format!("eta is full|eta is empty{E}")),
        // What can match more than blanks stays, and so does a branch that is only blanks.
        ("a(?: |x)\\nb", "a(?: |x)\\nb".into()),
        ("a[^ ]\\nb", "a[^ ]\\nb".into()),
        ("a\\S\\nb", "a\\S\\nb".into()),
        ("x| ", "x| ".into()),
        ("(x )+y", "(x )+y".into()),
        ("a b", "a b".into()),
        ("a b (.+?)", "a b (.+?)".into()),
        ("( ", "( ".into()),
    ];
    for (base, want) in cases {
        assert_eq!(blanks_at_line_ends_dropped(base), *want, "{base:?}");
    }
}
