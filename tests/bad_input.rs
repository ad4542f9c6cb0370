//! Hostile and broken input: nothing crashes (exit 0), no line is lost (`--all` events cover
//! every physical line, and error lines after the bad input are annotated with the right
//! `source.line`), output stays valid JSON, and memory stays bounded.

mod common;

use std::io::Write;

use std::sync::mpsc;
use std::thread;

use common::*;
use serde_json::Value;

fn bytes_of(parts: &[&[u8]]) -> Vec<u8> {
    let mut v = Vec::new();
    for p in parts {
        v.extend_from_slice(p);
        v.push(b'\n');
    }
    v
}

#[test]
fn invalid_utf8_inside_an_error_line_is_matched_and_output_is_valid_json() {
    let fx = fixture();
    let bad = b"2026-03-02T08:00:30.867644121Z  WARN risingwave_meta::barrier::rpc: collect \xff\xfe failed \xc3( error=barrier collection failed for actor 7\xe2\x82";
    let input = bytes_of(&[bad, split_line(31, 9).as_bytes()]);
    // `events` parses the output as UTF-8 JSON: invalid bytes must have been replaced.
    let evs = ok_events(&fx.run(&[], &input));
    assert_eq!(evs.len(), 2, "{evs:#?}");
    let e = at_line(&evs, 1);
    assert_eq!(match_id(e), Some("t-split"), "{e}");
    assert_eq!(e["log"]["format"], "risingwave");
    let msg = e["message"].as_str().unwrap();
    assert!(msg.contains("collect \u{FFFD}\u{FFFD} failed"), "invalid bytes become U+FFFD: {msg:?}");
    // Header fields of an event that is not valid UTF-8 as a whole are replaced one by one.
    assert_eq!(e["log"]["target"], "risingwave_meta::barrier::rpc", "{e}");
    assert_eq!(e["log"]["fields"]["error"], "barrier collection failed for actor 7\u{FFFD}", "{e}");
    assert!(e["match"]["captures"]["actor_id"].as_str().unwrap().starts_with('7'), "{e}");
    let e = at_line(&evs, 2);
    assert_eq!(match_id(e), Some("t-split"));
    assert_eq!(e["match"]["captures"]["actor_id"], "9");
}

/// A JSON-layout line is decoded even when a string holds a byte that is not UTF-8 (the
/// matcher works on bytes, output replaces invalid UTF-8 with U+FFFD).
#[test]
fn invalid_utf8_inside_a_json_layout_line_is_still_decoded_and_matched() {
    let fx = fixture();
    let line: &[u8] = b"{\"timestamp\":\"2026-03-02T08:00:29.1Z\",\"level\":\"ERROR\",\"fields\":{\"message\":\"query \xff failed\",\"error\":\"Bind error: column \\\"v1\\\" is ambiguous\"},\"target\":\"risingwave_frontend::x\"}";
    let input = bytes_of(&[line, split_line(31, 9).as_bytes()]);
    let evs = ok_events(&fx.run(&["--all"], &input));
    assert_covers(&evs, 2);
    let e = at_line(&evs, 1);
    assert_eq!(e["log"]["format"], "json", "{e}");
    assert_eq!(match_id(e), Some("t-quote"), "{e}");
    assert_eq!(e["match"]["captures"]["name"], "v1");
    assert_eq!(e["message"], "query \u{FFFD} failed");
    assert_eq!(match_id(at_line(&evs, 2)), Some("t-split"));
}

#[test]
fn nul_bytes_neither_crash_nor_lose_lines() {
    let fx = fixture();
    let input = bytes_of(&[
        info_line(1, "nul \0\0 here").as_bytes(),
        b"\0\0\0\0\0\0\0\0",
        b"2026-03-02T08:00:30.867644121Z  WARN risingwave_meta::barrier::rpc: nul\0 error=barrier collection failed for actor 8\0",
        b"\0",
        split_line(32, 10).as_bytes(),
    ]);
    let evs = ok_events(&fx.run(&["--all"], &input));
    assert_covers(&evs, 5);
    let e = at_line(&evs, 3);
    assert_eq!(match_id(e), Some("t-split"), "{e}");
    assert!(e["message"].as_str().unwrap().contains('\0'), "NUL is kept (escaped in JSON): {e}");
    let e = at_line(&evs, 5);
    assert_eq!(match_id(e), Some("t-split"));
    assert_eq!(e["match"]["captures"]["actor_id"], "10");
}

/// ~100 MB without a line break, through a real pipe, then an ordinary error line. The long
/// line is cut at `--max-line-bytes` (its event marked truncated), the next line is annotated
/// with its own line number, and memory stays far below the line's size.
#[test]
fn hundred_megabyte_line_through_a_pipe_is_cut_and_the_next_line_still_annotated() {
    const CHUNK: usize = 1 << 20;
    const CHUNKS: usize = 100;
    let fx = fixture();
    let mut child = spawn_piped(&fx);
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let rx = line_reader(child.stdout.take().unwrap());
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let writer = thread::spawn(move || -> std::io::Result<()> {
        let head =
            rw_line(1, "WARN", "risingwave_meta::barrier::rpc", "huge error=barrier collection failed for actor 1 ");
        stdin.write_all(head.as_bytes())?;
        let chunk = vec![b'x'; CHUNK];
        for _ in 0..CHUNKS {
            stdin.write_all(&chunk)?;
        }
        stdin.write_all(b"\n")?;
        stdin.write_all(format!("{}\n", split_line(2, 5)).as_bytes())?;
        stdin.flush()?;
        // Keep the input open until the test has looked at the running process.
        let _ = done_rx.recv_timeout(PATIENCE);
        Ok(())
    });
    let mut evs: Vec<Value> = Vec::new();
    while evs.iter().all(|e| src_line(e) != 2) {
        let l = rx.recv_timeout(PATIENCE * 2).expect("events for the long line and the line after it");
        evs.push(serde_json::from_str(&l).expect("output is JSON"));
    }
    #[cfg(target_os = "linux")]
    {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status of annotail");
        let hwm_kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM");
        assert!(hwm_kb < 64 * 1024, "peak memory {hwm_kb} kB for a {CHUNKS} MiB line: not bounded by --max-line-bytes");
    }
    let _ = pid;
    done_tx.send(()).unwrap();
    writer.join().unwrap().expect("annotail read all the input");
    let out = wait_output(child);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr_of(&out));
    assert_no_crash(&out);
    for l in rx.iter() {
        evs.push(serde_json::from_str(&l).unwrap());
    }

    let later = at_line(&evs, 2);
    assert_eq!(match_id(later), Some("t-split"));
    assert_eq!(later["match"]["captures"]["actor_id"], "5");
    assert!(later["log"].get("truncated").is_none(), "the next line is whole: {later}");
    assert_eq!(
        later["source"]["offset"].as_u64().unwrap() as usize,
        rw_line(1, "WARN", "risingwave_meta::barrier::rpc", "huge error=barrier collection failed for actor 1 ").len()
            + CHUNK * CHUNKS
            + 1
    );
    if let Some(long) = evs.iter().find(|e| src_line(e) == 1) {
        assert_eq!(long["log"]["truncated"], true, "the cut line is marked truncated");
        assert_eq!(src_lines(long), 1);
        let len = long["message"].as_str().unwrap().len();
        assert!(len <= (1 << 20) + 64, "the kept part is at most --max-line-bytes: {len}");
    }
    assert_eq!(evs.len(), 2, "one event per line");
}

#[test]
fn max_line_bytes_cuts_a_line_and_marks_its_event_truncated() {
    let fx = fixture();
    let long = rw_line(
        1,
        "WARN",
        "risingwave_meta::barrier::rpc",
        &format!("collect failed error=barrier collection failed for actor 3 {}", "y".repeat(5000)),
    );
    let input = lines(&[&long, &split_line(2, 4), &"z".repeat(3000), &split_line(3, 6)]);
    let evs = ok_events(&fx.run(&["--all", "--max-line-bytes", "200"], input.as_bytes()));
    assert_covers(&evs, 4);
    let e = at_line(&evs, 1);
    assert_eq!(e["log"]["truncated"], true);
    assert_eq!(match_id(e), Some("t-split"), "the text before the cut still matches: {e}");
    assert!(e["message"].as_str().unwrap().len() <= 200, "{e}");
    // Line 3 (no header) continues the event of line 2, which now holds a cut line.
    let e = at_line(&evs, 2);
    assert_eq!(src_lines(e), 2);
    assert_eq!(e["log"]["truncated"], true, "{e}");
    assert_eq!(match_id(e), Some("t-split"));
    assert_eq!(e["match"]["captures"]["actor_id"], "4");
    let e = at_line(&evs, 4);
    assert!(e["log"].get("truncated").is_none(), "{e}");
    assert_eq!(match_id(e), Some("t-split"));
}

#[test]
fn binary_garbage_then_an_error_line() {
    let fx = fixture();
    let mut input = Rng::new(2026).bytes(256 << 10);
    input.push(b'\n');
    let garbage_lines = physical_lines(&input);
    input.extend_from_slice(format!("{}\n", split_line(2, 55)).as_bytes());
    input.extend_from_slice(&Rng::new(7).bytes(4096)); // and garbage without a final line break
    let total = physical_lines(&input);

    let evs = ok_events(&fx.run(&["--all"], &input));
    assert_covers(&evs, total);
    let e = at_line(&evs, garbage_lines + 1);
    assert_eq!(match_id(e), Some("t-split"), "{e}");
    assert_eq!(e["match"]["captures"]["actor_id"], "55");

    let evs = ok_events(&fx.run(&[], &input));
    let e = one_match(&evs, "t-split");
    assert_eq!(src_line(e), garbage_lines + 1);
}

#[test]
fn truncated_and_hostile_json_lines_then_good_lines() {
    let fx = fixture();
    let cut =
        r#"{"timestamp":"2026-03-02T08:00:29.1Z","level":"ERROR","fields":{"message":"column \"q\" is ambiguous","err"#;
    let deep = format!("{{\"a\":{}", "[".repeat(100_000));
    let not_object = "{} [1, 2] trailing";
    let input = lines(&[cut, &split_line(2, 21), &deep, &split_line(4, 22), not_object, "{", &split_line(7, 23)]);
    let evs = ok_events(&fx.run(&["--all"], input.as_bytes()));
    assert_covers(&evs, 7);
    for l in [1, 3, 6] {
        let e = at_line(&evs, l);
        assert_eq!(e["log"]["format"], "plain", "{e}");
        assert!(e["log"]["parse_error"].is_string(), "a line starting with '{{' that is no JSON object is noted: {e}");
    }
    for (l, actor) in [(2, "21"), (4, "22"), (7, "23")] {
        let e = at_line(&evs, l);
        assert_eq!(e["log"]["format"], "risingwave");
        assert_eq!(match_id(e), Some("t-split"), "{e}");
        assert_eq!(e["match"]["captures"]["actor_id"], actor);
    }
}

#[test]
fn endless_continuation_lines_are_cut_into_bounded_events() {
    let fx = fixture();
    let mut ls = vec![rw_line(1, "ERROR", "risingwave_meta::x", "report follows")];
    for i in 0..35 {
        ls.push(format!("    frame {i}: barrier collection failed for actor {i}"));
    }
    ls.push(split_line(2, 99));
    let refs: Vec<&str> = ls.iter().map(String::as_str).collect();
    let evs = ok_events(&fx.run(&["--all", "--max-event-lines", "10"], lines(&refs).as_bytes()));
    assert_covers(&evs, 37);
    assert!(evs.iter().all(|e| src_lines(e) <= 10), "{:?}", evs.iter().map(src_lines).collect::<Vec<_>>());
    assert_eq!(at_line(&evs, 37)["match"]["captures"]["actor_id"], "99");
}

#[test]
fn empty_input_and_only_line_breaks() {
    let fx = fixture();
    let out = fx.run(&["--all"], b"");
    assert!(ok_events(&out).is_empty());
    let evs = ok_events(&fx.run(&["--all"], b"\n\n\n\r\n"));
    assert_covers(&evs, 4);
    assert!(evs.iter().all(|e| e["match"].is_null()));
}

/// Regression: a line's time with a field out of range (`2026-13-45`, 29 February of a common
/// year, hour 25, offset `+24:00`, MySQL's zero date) was written as `@timestamp`, and a receiver
/// (Elasticsearch's date mapping, an RFC 3339 parser) rejects the whole event for it. It stays in
/// the message; `@timestamp` is the runtime's time of a CRI record, else the observed time, and
/// `log.parse_error` says why (a broken JSON line keeps its own error). Times in range, a leap
/// day and a year before 1970 included, are written as before.
#[test]
fn regression_a_time_out_of_range_is_not_the_events_timestamp() {
    let fx = fixture();
    let input = [
        "2026-13-45T08:00:00.1Z ERROR risingwave_meta::x: disk on fire",
        "2026-02-29T08:00:00Z  WARN risingwave_meta::x: not a leap year",
        "2026-12-05 25:00:00.001 UTC [42] ERROR:  hour twenty-five",
        "2026-12-05T10:00:00+24:00 ERROR offset out of range",
        "0000-00-00T00:00:00Z ERROR a zero date",
        "2024-02-29T23:59:59Z ERROR risingwave_meta::x: a leap day",
        "2026-12-05T10:00:00.5-03:30 ERROR an offset in range",
        "0001-01-01T00:00:00Z ERROR a zero time from Go",
        "2026-12-05T10:00:00.123456789Z stderr F 2026-13-45T08:00:00.1Z ERROR risingwave_meta::x: inside a CRI record",
    ]
    .join("\n")
        + "\n";
    const OUT_OF_RANGE: &str = "time out of range, not taken as @timestamp";
    for format in ["json", "ecs"] {
        let evs = ok_events(&fx.run(&["--unknown", "warn", "--format", format], input.as_bytes()));
        assert_eq!(evs.len(), 9, "{format}: {evs:#?}");
        let observed = |e: &Value| if format == "json" { e["observed"].clone() } else { e["event"]["created"].clone() };
        for (i, e) in evs.iter().enumerate() {
            let ts = e["@timestamp"].as_str().unwrap();
            let error = if format == "json" { e["log"]["parse_error"].as_str() } else { None };
            match i {
                0..=4 => {
                    assert_eq!(e["@timestamp"], observed(e), "{format} {i}: {e}");
                    assert!(e["message"].as_str().unwrap().starts_with(&input.lines().nth(i).unwrap()[..19]), "{e}");
                    if format == "json" {
                        assert_eq!(error, Some(OUT_OF_RANGE), "{e}");
                        assert!(e["unknown"]["cluster"].is_string(), "still clustered: {e}");
                    }
                }
                5 => assert_eq!(ts, "2024-02-29T23:59:59Z", "{e}"),
                6 => assert_eq!(ts, "2026-12-05T10:00:00.5-03:30", "{e}"),
                7 => assert_eq!(ts, "0001-01-01T00:00:00Z", "{e}"),
                _ => {
                    assert_eq!(ts, "2026-12-05T10:00:00.123456789Z", "the runtime's time: {e}");
                    assert!(format == "ecs" || error == Some(OUT_OF_RANGE), "{e}");
                }
            }
            if (5..=7).contains(&i) {
                assert_eq!(error, None, "{e}");
            }
        }
    }
    // A broken JSON line whose runtime time is out of range keeps the JSON error.
    let broken = "2026-13-05T10:00:00.123456789Z stderr F {\"level\":\"ERROR\",\"msg\":\"broken\n";
    let evs = ok_events(&fx.run(&["--all"], broken.as_bytes()));
    assert_eq!(evs.len(), 1, "{evs:#?}");
    assert_eq!(evs[0]["@timestamp"], evs[0]["observed"], "{}", evs[0]);
    assert_eq!(evs[0]["log"]["parse_error"], "line starts with '{' but is not a JSON object", "{}", evs[0]);
}

/// Regression (found by a second reader): an event of several lines read from a CRLF file kept
/// the `\r` of the line breaks inside it (a line's last `\r` was always taken off): its message
/// had them, a record whose text runs over the line break (`… group split, task:\n {:?}`) did not
/// match, and another link of it was clustered as the unknown error; read from a pipe, where
/// lines that a read splits are joined out of the block, some events had them and some not.
/// LF or CRLF, file or pipe: the same events.
#[test]
fn regression_a_crlf_event_of_several_lines_is_read_as_its_lf_twin() {
    let lf = std::fs::read_to_string(example_log()).expect("read the example");
    let crlf = lf.replace('\n', "\r\n");
    let d = tempfile::tempdir().expect("tempdir");
    let (lf_path, crlf_path) = (d.path().join("lf.log"), d.path().join("crlf.log"));
    std::fs::write(&lf_path, &lf).expect("write");
    std::fs::write(&crlf_path, &crlf).expect("write");
    // What depends on where the lines came from (the source, the byte offsets, the run's time)
    // is left out.
    let read = |file: Option<&std::path::Path>, input: &[u8]| -> Vec<Value> {
        let mut args = vec!["--unknown".to_owned(), "warn".into(), "--format".into(), "json".into()];
        args.extend(file.map(|f| f.display().to_string()));
        ok_events(&run(&args, input))
            .into_iter()
            .map(|mut e| {
                let o = e.as_object_mut().expect("an object");
                o.remove("observed");
                o.remove("@timestamp");
                o["source"] = serde_json::json!({"line": o["source"]["line"], "lines": o["source"]["lines"]});
                e
            })
            .collect()
    };
    let from_lf = read(Some(&lf_path), b"");
    assert!(from_lf.len() > 50, "{}", from_lf.len());
    assert_eq!(read(Some(&crlf_path), b""), from_lf, "a CRLF file");
    assert_eq!(read(None, crlf.as_bytes()), from_lf, "CRLF through a pipe");
    // The event the second reader met: its record matches over the line break.
    let e = at_line(&from_lf, 123);
    assert_eq!(e["source"]["lines"], 2, "{e}");
    assert_eq!(e["match"]["slug"], "the-task-may-be-expired-because-of-group-split-ta", "{e}");
    assert!(!e["message"].as_str().unwrap().contains('\r'), "{e}");
}

/// Found by a second reader in an incident: `annotail meta.log.2.gz` (a rotated, compressed log)
/// read the gzip bytes as text: "no known error matched", status 0, and with `--unknown any`
/// events of binary garbage. gzip and zstd inputs (files and standard input, known by their
/// first bytes) are read decompressed; other compressions are inputs that cannot be read.
#[test]
fn regression_compressed_inputs_are_read_decompressed_or_reported() {
    let fx = fixture();
    let mut text = String::new();
    for i in 0..2_000u32 {
        text.push_str(&info_line(i % 60, &format!("checkpoint {i} done")));
        text.push('\n');
        if i % 100 == 7 {
            text.push_str(&split_line(i % 60, i));
            text.push('\n');
            text.push_str(&rw_line(i % 60, "WARN", "risingwave_meta::x", &format!("slow disk on node {i}")));
            text.push('\n');
        }
    }
    let gz = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b).unwrap();
        e.finish().unwrap()
    };
    let (half_a, half_b) = text.split_at(text.len() / 2);
    let mut two_members = gz(half_a.as_bytes());
    two_members.extend(gz(half_b.as_bytes()));
    let zst = zstd::encode_all(text.as_bytes(), 3).unwrap();
    // Paths differ too: the whole source is left out.
    let facts = |out: &std::process::Output| -> Vec<Value> {
        events_sans_offsets(out)
            .into_iter()
            .map(|mut e| {
                e.as_object_mut().unwrap().remove("source");
                e
            })
            .collect()
    };
    let args = ["--unknown", "warn", "--threads", "2"];
    let plain_path = path_str(&fx.write("meta.log", &text));
    let want = facts(&fx.run(&[&args[..], &[&plain_path]].concat(), b""));
    assert_eq!(want.len(), 40, "{want:#?}");
    for (name, bytes) in
        [("meta.log.2.gz", &two_members), ("meta.log.3.zst", &zst), ("compressed-no-suffix", &gz(text.as_bytes()))]
    {
        let path = path_str(&fx.write(name, bytes));
        assert_eq!(facts(&fx.run(&[&args[..], &[&path]].concat(), b"")), want, "{name}");
    }
    for (name, bytes) in [("gzip", &two_members), ("zstd", &zst)] {
        assert_eq!(facts(&fx.run(&args, bytes)), want, "standard input, {name}");
    }
    // The other compressions, and a gzip file cut short: reported by name, status 1; the events
    // before the cut are written.
    let xz = fx.write("meta.log.4.xz", b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46");
    let out = fx.run(&[&path_str(&xz)], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("xz-compressed") && stderr_of(&out).contains("meta.log.4.xz"),
        "{}",
        stderr_of(&out)
    );
    assert!(out.stdout.is_empty());
    let out = fx.run(&[], b"BZh91AY&SY");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("bzip2-compressed"), "{}", stderr_of(&out));
    let whole = gz(text.as_bytes());
    let cut = fx.write("cut.gz", &whole[..whole.len() / 2]);
    let out = fx.run(&["--unknown", "warn", &path_str(&cut)], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("cut.gz"), "{}", stderr_of(&out));
    let got = events(&out.stdout);
    assert!(!got.is_empty() && got.len() < want.len(), "{} events", got.len());
    // A line that starts like a compressed stream's magic is text (bzip2's `BZh` is followed
    // by a digit: found by a third reader).
    let evs = ok_events(&fx.run(&["--all"], b"BZ is no magic\nPK too\n"));
    assert_eq!(evs.len(), 2);
    let bzh = fx.write("bzh.log", b"BZhello world\nmore\n");
    assert_eq!(ok_events(&fx.run(&["--all", &path_str(&bzh)], b"")).len(), 2);
    // A pipe named as a path (`<(zcat …)`, `/dev/stdin`) is read as standard input is.
    assert_eq!(facts(&fx.run(&[&args[..], &["/dev/stdin"]].concat(), &two_members)), want, "/dev/stdin");
}
