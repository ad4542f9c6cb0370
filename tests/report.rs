//! `annotail report`: the page's data (the JSON blob inlined in the HTML, parsed back out) agrees
//! with what a run reports on the same log; log text cannot become markup; standard input works;
//! an unreadable input or output fails with the documented status; and a real headless Chromium
//! renders the page, draws the charts and raises no script error.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;
use serde_json::Value;

/// `annotail report ARGS` (the catalog, inputs and `-o` are in ARGS), with `input` on stdin.
fn report(args: &[&str], input: &[u8]) -> Output {
    let mut full = vec!["report"];
    full.extend_from_slice(args);
    run(&full, input)
}

/// The JSON blob of a written page.
fn page_data(html: &str) -> Value {
    let open = r#"<script type="application/json" id="report-data">"#;
    let start = html.find(open).expect("the page has the data blob") + open.len();
    let end = start + html[start..].find("</script>").expect("the blob's script element ends");
    serde_json::from_str(&html[start..end]).expect("the blob is JSON")
}

/// Write the report of `args` and return the page and its data.
fn written(args: &[&str], input: &[u8], out: &Path) -> (String, Value) {
    let mut full = args.to_vec();
    let o = path_str(out);
    full.extend_from_slice(&["-o", &o]);
    let r = report(&full, input);
    assert_eq!(r.status.code(), Some(0), "report failed:\n{}", stderr_of(&r));
    assert_no_crash(&r);
    let html = std::fs::read_to_string(out).expect("the page was written");
    let data = page_data(&html);
    (html, data)
}

fn records_by_id(data: &Value) -> BTreeMap<String, &Value> {
    data["records"].as_array().unwrap().iter().map(|r| (r["id"].as_str().unwrap().to_owned(), r)).collect()
}

/// Milliseconds of an RFC 3339 UTC timestamp (`2026-03-02T08:00:00.776978869Z`).
fn millis(ts: &str) -> i64 {
    let n = |r: std::ops::Range<usize>| ts[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    // Days from the civil date (Howard Hinnant's algorithm).
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * m + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let frac = ts.get(20..23).map_or(0, |f| f.parse::<i64>().unwrap_or(0));
    ((days * 24 + n(11..13)) * 60 + n(14..16)) * 60_000 + n(17..19) * 1000 + frac
}

/// Incidents among one record's events, worked out here: a new one at the first event of its
/// captured values, and at the first after 60 s since the incident began.
fn incidents(es: &[&Value]) -> u64 {
    let mut open: HashMap<String, i64> = HashMap::new();
    let mut n = 0;
    for e in es {
        let key = e["match"]["captures"].to_string();
        let at = millis(e["@timestamp"].as_str().unwrap());
        match open.get(&key) {
            Some(&first) if at - first < 60_000 => {}
            _ => {
                open.insert(key, at);
                n += 1;
            }
        }
    }
    n
}

/// The counts of the overall timeline, summed over the series, per bucket.
fn bucket_sums(data: &Value) -> Vec<u64> {
    let tl = &data["timeline"];
    let mut sums = vec![0u64; tl["buckets"].as_u64().unwrap() as usize];
    for s in tl["groups"][0]["series"].as_array().unwrap() {
        for (i, n) in s["counts"].as_array().unwrap().iter().enumerate() {
            sums[i] += n.as_u64().unwrap();
        }
    }
    sums
}

fn is_counted(ev: &Value) -> bool {
    !ev["match"].is_null() || matches!(ev["log"]["level"].as_str(), Some("ERROR" | "WARN"))
}

fn epoch_ms(ts: &str) -> i64 {
    let t = humantime::parse_rfc3339(ts).unwrap_or_else(|e| panic!("{ts}: {e}"));
    t.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64
}

#[test]
fn example_log_report_agrees_with_the_json_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = path_str(&example_log());
    let out = dir.path().join("report.html");
    let (_, data) = written(&[&log], b"", &out);

    // Per-record counts: the primary match ids of `annotail --format json FILE`.
    let evs = ok_events(&run(&["--format", "json", &log], b""));
    let mut primary: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    // Every event a record matched, primary or beside another: its first and last seen.
    let mut matched: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for e in &evs {
        primary.entry(match_id(e).unwrap().to_owned()).or_default().push(e);
        matched.entry(match_id(e).unwrap().to_owned()).or_default().push(e);
        for a in e["also_matched"].as_array().unwrap() {
            matched.entry(a["id"].as_str().unwrap().to_owned()).or_default().push(e);
        }
    }
    // A line without a time of its own (a panic found by its location) has none in the report;
    // its event's `@timestamp` is then `observed`.
    let own = |e: &Value| if e["@timestamp"] == e["observed"] { Value::Null } else { e["@timestamp"].clone() };
    let time = |e: &Value| own(e).as_str().map(millis);
    let recs = records_by_id(&data);
    assert!(primary.len() > 20, "the example has many records: {}", primary.len());
    for (id, es) in &primary {
        let r = recs.get(id).unwrap_or_else(|| panic!("record {id} fired but is not in the report"));
        assert_eq!(r["count"].as_u64(), Some(es.len() as u64), "count of {id}");
        assert_eq!(r["incidents"].as_u64(), Some(incidents(es)), "incidents of {id}");
    }
    for (id, es) in &matched {
        let r = recs.get(id).unwrap_or_else(|| panic!("record {id} matched but is not in the report"));
        // The earliest and the latest by time; in reading order where one has no time.
        let (mut first, mut last) = (es[0], es[0]);
        for &e in &es[1..] {
            if matches!((time(e), time(first)), (Some(n), Some(f)) if n < f) {
                first = e;
            }
            if !matches!((time(e), time(last)), (Some(n), Some(l)) if n < l) {
                last = e;
            }
        }
        assert_eq!(r["first"]["line"].as_u64(), Some(src_line(first)), "first seen of {id}");
        assert_eq!(r["last"]["line"].as_u64(), Some(src_line(last)), "last seen of {id}");
        assert_eq!(r["first"]["timestamp"], own(first), "first seen of {id}");
        assert_eq!(r["last"]["timestamp"], own(last), "last seen of {id}");
        assert_eq!(r["first"]["input"].as_str(), Some(log.as_str()));
    }
    let with_count: Vec<&String> =
        recs.iter().filter(|(_, r)| r["count"].as_u64() > Some(0)).map(|(id, _)| id).collect();
    assert_eq!(with_count, primary.keys().collect::<Vec<_>>(), "records with a primary count");
    // Most matched first (primary and beside another), as `--summary` ranks them.
    let counts: Vec<u64> = data["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_u64().unwrap() + r["also_count"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");

    // Chains: each event's primary → each also-matched record.
    let mut chains: BTreeMap<(String, String), u64> = BTreeMap::new();
    for e in &evs {
        for a in e["also_matched"].as_array().unwrap() {
            *chains.entry((match_id(e).unwrap().to_owned(), a["id"].as_str().unwrap().to_owned())).or_default() += 1;
        }
    }
    let got: BTreeMap<(String, String), u64> = data["chains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                (c["primary"].as_str().unwrap().to_owned(), c["also"].as_str().unwrap().to_owned()),
                c["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(!chains.is_empty());
    assert_eq!(got, chains);

    // The timeline: every counted event with a timestamp of its own, in the bucket of its time.
    let all = ok_events(&run(&["--all", "--format", "json", &log], b""));
    let counted: Vec<&Value> = all.iter().filter(|e| is_counted(e)).collect();
    let timed: Vec<&Value> = counted.iter().copied().filter(|e| e["@timestamp"] != e["observed"]).collect();
    let unknown =
        |lvl: &str| counted.iter().filter(|e| e["match"].is_null() && e["log"]["level"] == lvl).count() as u64;
    assert_eq!(data["totals"]["known"].as_u64(), Some(evs.len() as u64));
    assert_eq!(data["totals"]["unknown"]["ERROR"].as_u64(), Some(unknown("ERROR")));
    assert_eq!(data["totals"]["unknown"]["WARN"].as_u64(), Some(unknown("WARN")));
    assert_eq!(data["totals"]["untimed"].as_u64(), Some((counted.len() - timed.len()) as u64));
    let (start, width) =
        (data["timeline"]["start_ms"].as_i64().unwrap(), data["timeline"]["bucket_ms"].as_i64().unwrap());
    let mut want = vec![0u64; data["timeline"]["buckets"].as_u64().unwrap() as usize];
    for e in &timed {
        want[((epoch_ms(e["@timestamp"].as_str().unwrap()) - start) / width) as usize] += 1;
    }
    assert_eq!(bucket_sums(&data), want);
    assert_eq!(want.iter().sum::<u64>(), timed.len() as u64);
    // The documented bucket rule: the smallest nice width giving at most 120 buckets.
    let n = want.len();
    assert!((48..=120).contains(&n), "{n} buckets of {width} ms");
}

/// The unknown clusters on the page are those `--unknown warn` finds, with the same counts.
#[test]
fn unknown_clusters_agree_with_an_unknown_warn_run() {
    let dir = tempfile::tempdir().unwrap();
    let log = path_str(&example_log());
    let (_, data) = written(&[&log], b"", &dir.path().join("report.html"));
    let evs = ok_events(&run(&["--unknown", "warn", "--format", "json", &log], b""));
    let mut want: BTreeMap<String, (u64, &str)> = BTreeMap::new();
    for e in evs.iter().filter(|e| e["unknown"].is_object()) {
        let c = want.entry(e["unknown"]["cluster"].as_str().unwrap().to_owned()).or_insert((0, ""));
        c.0 += 1;
        c.1 = e["unknown"]["template"].as_str().unwrap();
    }
    assert!(!want.is_empty(), "the example log has errors the catalog does not know");
    let shown = data["unknown_clusters"].as_array().unwrap();
    assert_eq!(data["unknown_cluster_count"].as_u64(), Some(want.len() as u64));
    assert_eq!(shown.len(), want.len().min(50));
    let counts: Vec<u64> = shown.iter().map(|c| c["count"].as_u64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "most frequent first: {counts:?}");
    for c in shown {
        let id = c["cluster"].as_str().unwrap();
        let (n, template) = want[id];
        assert_eq!(c["count"].as_u64(), Some(n), "events of cluster {id}");
        // A cluster's template can generalise as events join it; the run's last word is the page's.
        assert!(!c["template"].as_str().unwrap().is_empty() && !template.is_empty());
        assert!(c["first"]["line"].as_u64() <= c["last"]["line"].as_u64());
    }
}

/// Regression (found by a second reader): the page's unknown clusters were kept without bound,
/// each one's stats after the clusterer had let it go (437 MB for 900,000 kinds, a run 60 MB).
/// They are kept to the clusterer's cap, and the page says how many were dropped.
#[test]
fn unknown_clusters_are_kept_to_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    // Words of letters only (digits are masked): every line a kind of its own.
    let word = |mut n: u64| {
        let mut w = String::new();
        loop {
            w.push((b'a' + (n % 26) as u8) as char);
            n /= 26;
            if n == 0 {
                return w;
            }
        }
    };
    let kinds = 12_000u64;
    let mut log = String::new();
    for i in 0..kinds {
        let msg = format!("{} {} {} {}", word(i), word(i * 7 + 3), word(i * 13 + 5), word(i * 31 + 11));
        log.push_str(&common::rw_line((i % 60) as u32, "ERROR", "risingwave_meta::x", &msg));
        log.push('\n');
    }
    let input = dir.path().join("kinds.log");
    std::fs::write(&input, &log).unwrap();
    let (_, data) = written(&[&path_str(&input)], b"", &dir.path().join("report.html"));
    let alive = data["unknown_cluster_count"].as_u64().unwrap();
    let dropped = data["unknown_clusters_dropped"].as_u64().unwrap();
    assert!(alive <= 10_000, "{alive} clusters kept");
    assert_eq!(alive + dropped, kinds, "every kind is kept or counted as dropped");
    assert_eq!(data["totals"]["unknown"]["ERROR"].as_u64(), Some(kinds), "their events are all counted");
}

#[test]
fn records_show_captures_documentation_solutions_and_source() {
    let fx = fixture();
    let cat = path_str(&fx.catalog);
    let mut text = String::new();
    for i in 0..30u32 {
        text.push_str(&split_line(i, 100 + i % 15));
        text.push('\n');
    }
    let log = fx.write("a.log", &text);
    let (_, data) = written(&["-c", &cat, &path_str(&log)], b"", &fx.path("r.html"));
    let recs = records_by_id(&data);
    let r = recs["t-split"];
    assert_eq!(r["count"], 30);
    assert_eq!(r["severity"], "warning");
    assert_eq!(r["solutions"], serde_json::json!(["restart the actor", "check the compute node"]));
    let caps = &r["captures"][0];
    assert_eq!(caps["name"], "actor_id");
    assert_eq!(caps["values"].as_array().unwrap().len(), 10, "shown values are capped");
    assert_eq!(caps["values"][0], serde_json::json!({"value": "100", "count": 2}));
    assert_eq!(caps["more"], 5, "15 distinct values, 10 shown");
    assert_eq!(caps["more_at_least"], false);
    // The embedded catalog's records carry their source reference.
    let dir = tempfile::tempdir().unwrap();
    let (_, data) = written(&[&path_str(&example_log())], b"", &dir.path().join("r.html"));
    let r = records_by_id(&data)[LINE37_PRIMARY];
    assert!(r["reference"].as_str().unwrap().starts_with("https://github.com/"), "{r}");
    assert_eq!(r["source_file"], "src/connector/src/sink/big_query.rs");
    assert_eq!(r["source_line"], 1009);
}

/// A log whose values try to break out of the script element and into the markup.
fn hostile_log() -> String {
    lines(&[
        &split_line(1, 7),
        &rw_line(
            2,
            "WARN",
            "risingwave_meta::barrier::rpc",
            "collect failed error=barrier collection failed for actor </script><script>alert(1)</script><!--",
        ),
        &rw_line(3, "ERROR", "risingwave_meta::x", "unknown <img src=x onerror=alert(2)> & </script>"),
        "[pod/meta-0/meta] 2026-03-02T08:00:04.000000000Z  WARN risingwave_meta::barrier::rpc: collect failed error=barrier collection failed for actor <b>bold</b>",
    ])
}

#[test]
fn log_text_is_escaped() {
    let fx = fixture();
    let log = fx.write("hostile.log", hostile_log());
    let (html, data) = written(&["-c", &path_str(&fx.catalog), &path_str(&log)], b"", &fx.path("r.html"));
    for bad in ["<script>alert", "<img src=x", "<!--\"", "<b>bold", "alert(1)</script>"] {
        assert!(!html.contains(bad), "log text {bad:?} is in the page unescaped");
    }
    // `</script>` appears only where the template closes its own elements.
    assert_eq!(html.matches("</script>").count(), html.matches("<script").count());
    let r = records_by_id(&data)["t-split"];
    let values: Vec<&str> =
        r["captures"][0]["values"].as_array().unwrap().iter().map(|v| v["value"].as_str().unwrap()).collect();
    assert!(values.contains(&"</script><script>alert(1)</script><!--"), "{values:?}");
    assert_eq!(data["totals"]["unknown"]["ERROR"], 1);
}

#[test]
fn standard_input_is_read() {
    let fx = fixture();
    let cat = path_str(&fx.catalog);
    let text = lines(&[&split_line(1, 1), &info_line(2, "fine"), &split_line(3, 2)]);
    for args in [vec!["-c", &cat], vec!["-c", &cat, "-"]] {
        let (_, data) = written(&args, text.as_bytes(), &fx.path("stdin.html"));
        assert_eq!(data["inputs"], serde_json::json!(["stdin"]));
        let r = records_by_id(&data)["t-split"];
        assert_eq!(r["count"], 2);
        assert_eq!(r["first"]["line"], 1);
        assert_eq!(r["last"]["line"], 3);
        assert_eq!(r["first"]["input"], "stdin");
        assert_eq!(bucket_sums(&data).iter().sum::<u64>(), 2);
    }
}

#[test]
fn pods_get_timelines_of_their_own_and_untimed_events_are_counted_apart() {
    let fx = fixture();
    // The plain line first: after a RisingWave line it would continue that line's event.
    let text = lines(&[
        "[pod/compute-0/compute] barrier collection failed for actor 9",
        &format!("[pod/meta-0/meta] {}", split_line(1, 1)),
        &format!("[pod/meta-0/meta] {}", split_line(2, 2)),
        &format!("[pod/compute-0/compute] {}", rw_line(3, "ERROR", "risingwave_stream::x", "something new broke")),
    ]);
    let log = fx.write("k.log", &text);
    let (_, data) = written(&["-c", &path_str(&fx.catalog), &path_str(&log)], b"", &fx.path("k.html"));
    let groups = data["timeline"]["groups"].as_array().unwrap();
    let names: Vec<&Value> = groups.iter().map(|g| &g["name"]).collect();
    assert_eq!(names, [&Value::Null, &Value::from("compute-0/compute"), &Value::from("meta-0/meta")]);
    let series = |g: &Value| -> HashMap<String, u64> {
        g["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_owned(),
                    s["counts"].as_array().unwrap().iter().map(|n| n.as_u64().unwrap()).sum(),
                )
            })
            .collect()
    };
    assert_eq!(series(&groups[1]), HashMap::from([("unknown ERROR (no record)".to_owned(), 1)]));
    assert_eq!(series(&groups[2]), HashMap::from([("warning".to_owned(), 2)]));
    // The plain line has no timestamp: known, counted, not on the timeline.
    assert_eq!(data["totals"]["known"], 3);
    assert_eq!(data["totals"]["untimed"], 1);
    assert_eq!(data["totals"]["untimed_by_severity"], serde_json::json!({"warning": 1}));
    assert_eq!(bucket_sums(&data).iter().sum::<u64>(), 3);
}

#[test]
fn an_unreadable_input_exits_2_naming_it_and_an_unwritable_output_exits_1() {
    let fx = fixture();
    let cat = path_str(&fx.catalog);
    let good = fx.write("good.log", lines(&[&split_line(1, 1)]));
    let missing = fx.path("no-such.log");
    let out = fx.path("r.html");
    let r = report(&["-c", &cat, &path_str(&good), &path_str(&missing), "-o", &path_str(&out)], b"");
    assert_eq!(r.status.code(), Some(2), "{}", stderr_of(&r));
    assert!(stderr_of(&r).contains(&path_str(&missing)), "the message names the file: {}", stderr_of(&r));
    assert!(!out.exists(), "nothing is written");
    // A directory is not a log.
    let r = report(&["-c", &cat, &path_str(fx.dir.path()), "-o", &path_str(&out)], b"");
    assert_eq!(r.status.code(), Some(2), "{}", stderr_of(&r));
    // A catalog that cannot be loaded.
    let r = report(&["-c", &path_str(&missing), &path_str(&good), "-o", &path_str(&out)], b"");
    assert_eq!(r.status.code(), Some(2), "{}", stderr_of(&r));
    // The output's directory does not exist.
    let bad_out = fx.path("no-dir/r.html");
    let r = report(&["-c", &cat, &path_str(&good), "-o", &path_str(&bad_out)], b"");
    assert_eq!(r.status.code(), Some(1), "{}", stderr_of(&r));
    assert!(stderr_of(&r).contains(&path_str(&bad_out)), "{}", stderr_of(&r));
    // No -o is a usage error.
    let r = report(&["-c", &cat, &path_str(&good)], b"");
    assert_eq!(r.status.code(), Some(2), "{}", stderr_of(&r));
}

/// Chromium, when installed (`.ci/run` installs it); `None` outside CI prints why the test is
/// skipped, and in CI (env `CI` set) its absence fails the test.
fn chromium() -> Option<PathBuf> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Some(p) = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
        {
            return Some(p);
        }
    }
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        panic!("chromium is not installed (CI is set: .ci/run installs it)");
    }
    eprintln!("skipped: chromium is not installed (apt-get install chromium; .ci/run does)");
    None
}

/// Run headless Chromium on `page` with `extra` arguments; its standard output.
fn headless(chrome: &Path, profile: &Path, page: &Path, extra: &[&str]) -> Output {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let mut c = Command::new(chrome);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
        "--virtual-time-budget=5000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(extra)
    .arg(url);
    let out = wait_output(
        c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().expect("start chromium"),
    );
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn chromium_renders_the_page_draws_the_charts_and_raises_no_error() {
    let Some(chrome) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    // The example log, and a hostile one across pods (several charts).
    let fx = fixture();
    let hostile = fx.write("hostile.log", hostile_log());
    // An hour of one warning a minute, and a storm of 500 in one minute: the storm's bar
    // flattened every other one (an incident responder's reading); the scale starts
    // logarithmic there.
    let at = |m: u32, actor: u32| {
        format!("2026-03-02T08:{m:02}:00.000000000Z  WARN risingwave_meta::barrier::rpc: barrier collection failed for actor {actor}\n")
    };
    let mut storm: String = (0..60).map(|m| at(m, m)).collect();
    storm.push_str(&(0..500).map(|i| at(30, 1000 + i)).collect::<String>());
    let storm = fx.write("storm.log", &storm);
    let pages = [
        (vec![path_str(&example_log())], dir.path().join("meta.html")),
        (vec!["-c".into(), path_str(&fx.catalog), path_str(&hostile)], dir.path().join("hostile.html")),
        (vec!["-c".into(), path_str(&fx.catalog), path_str(&storm)], dir.path().join("storm.html")),
    ];
    for (args, page) in &pages {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        written(&args, b"", page);
        let shot = dir.path().join("shot.png");
        let _ = std::fs::remove_file(&shot);
        let shot_arg = format!("--screenshot={}", shot.display());
        headless(&chrome, &dir.path().join("profile-shot"), page, &[&shot_arg]);
        let png = std::fs::read(&shot).expect("the screenshot was written");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
        assert!(png.len() > 20_000, "a page with charts and tables, not a blank one: {} bytes", png.len());

        let dom = headless(&chrome, &dir.path().join("profile-dom"), page, &["--dump-dom"]);
        let dom = String::from_utf8_lossy(&dom.stdout);
        let body = dom.find("<body").map(|i| &dom[i..dom[i..].find('>').map_or(dom.len(), |j| i + j)]).expect("a body");
        assert!(
            !body.contains("data-errors"),
            "the page's script failed: {}",
            &dom[dom.find("js-errors").unwrap_or(0)..][..400.min(dom.len())]
        );
        assert!(body.contains(r#"data-rendered="yes""#), "the script ran to its end: {body}");
        let drawn: u32 = attr(body, "data-charts-drawn").parse().unwrap();
        let painted: u64 = attr(body, "data-painted-pixels").parse().unwrap();
        assert!(drawn >= 1, "{body}");
        assert!(painted > 1000, "the charts' canvases were painted: {body}");
        assert!(dom.contains("<title>annotail report · "), "the script set the title");
        let log_scale = attr(body, "data-log-scale");
        assert_eq!(log_scale == "yes", page.ends_with("storm.html"), "{body}");
        if page.ends_with("hostile.html") {
            assert_eq!(drawn, 3, "the overall chart, the lines without a pod and meta-0/meta: {body}");
            // The hostile values are text in the document, never elements.
            assert!(dom.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), "the value is shown as text");
            assert!(!dom.contains("<script>alert") && !dom.contains("<b>bold") && !dom.contains("<img src=x"));
        } else if page.ends_with("meta.html") {
            assert!(
                dom.contains(&format!(r#"data-record="{LINE37_PRIMARY}""#)),
                "the records table lists the example's records"
            );
        }
    }
}

fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let at = tag.find(&format!("{name}=\"")).unwrap_or_else(|| panic!("no {name} in {tag}")) + name.len() + 2;
    &tag[at..at + tag[at..].find('"').unwrap()]
}

/// A second reader's page left panics out of its unknown errors (no level word: not ERROR, not
/// WARN), showed a cluster's template as its first event had it (`table orders_mv dropped …`
/// where every other output said `table <*> dropped …`), gave the clustered text as the
/// example, and said how many events it had framed as if that were the input's.
#[test]
fn regression_unknown_errors_count_panics_show_the_last_template_and_an_event_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = format!(
        "{}\n{}\nthread 'rw-main' (11) panicked at src/meta/src/nowhere/place.rs:1293:30:\ncalled `Option::unwrap()` on a `None` value\n",
        rw_line(1, "ERROR", "risingwave_meta::zz", "zz table orders_mv dropped while job 5 running"),
        rw_line(2, "ERROR", "risingwave_meta::zz", "zz table payments dropped while job 6 running"),
    );
    let log = dir.path().join("in.log");
    std::fs::write(&log, &input).unwrap();
    let (html, data) = written(&[&path_str(&log)], b"", &dir.path().join("report.html"));
    assert_eq!(data["totals"]["unknown"]["ERROR"], 3, "{}", data["totals"]);
    assert!(data["totals"].get("events").is_none() && !html.contains("num(t.events)"), "{}", data["totals"]);
    let clusters = data["unknown_clusters"].as_array().unwrap();
    let table = clusters.iter().find(|c| c["count"] == 2).unwrap_or_else(|| panic!("{clusters:?}"));
    assert_eq!(table["template"], "zz table <*> dropped while job <*> running");
    let example = table["example"].as_str().unwrap();
    assert!(example.contains("ERROR risingwave_meta::zz: zz table orders_mv dropped"), "{example}");
    let panic = clusters.iter().find(|c| c["template"].as_str().unwrap().contains("panicked at"));
    assert!(panic.is_some_and(|p| p["count"] == 1), "{clusters:?}");
}

/// The bugs (an incident responder's reading): with several inputs (pods printed one after
/// another), first and last seen followed reading order, so an error's start showed as its end,
/// hours off; a record that was mostly matched beside another showed no time at all; and the
/// unknown clusters were listed by count alone, so a storm of warnings hid a late new error
/// (and panics). First and last seen now go by time, wherever a record matched; errors are
/// listed before warnings; and the page counts the events of known errors whose cause no record
/// explains, which its table of clusters holds beside the unknown cards.
#[test]
fn regression_first_and_last_seen_go_by_time_and_errors_are_listed_before_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let at = |h: u32, s: u32, level: &str, msg: &str| {
        format!("2026-03-02T{h:02}:00:{s:02}.000000000Z {level:>5} risingwave_meta::barrier::rpc: {msg}\n")
    };
    let inject = |cell: u32| format!("failed to inject barrier error=tachyon relay saturated in cell {cell}");
    let mut late = at(10, 1, "ERROR", &inject(9));
    for i in 0..60 {
        late.push_str(&at(10, 2 + i % 50, "WARN", &format!("quux lease for shard {i} lost during handoff")));
    }
    late.push_str(&at(10, 55, "ERROR", "zz sink coordinator epoch fence violated by writer 7"));
    let early = at(8, 1, "ERROR", &inject(3)) + &at(8, 2, "WARN", "quux lease for shard 99 lost during handoff");
    let (a, b) = (dir.path().join("meta-0.log"), dir.path().join("meta-1.log"));
    std::fs::write(&a, &late).unwrap();
    std::fs::write(&b, &early).unwrap();
    let (a, b) = (path_str(&a), path_str(&b));
    let (_, data) = written(&[&a, &b], b"", &dir.path().join("report.html"));
    let rec = data["records"].as_array().unwrap().iter().find(|r| r["slug"] == "failed-to-inject-barrier").unwrap();
    assert_eq!((rec["first"]["input"].as_str(), rec["first"]["line"].as_u64()), (Some(b.as_str()), Some(1)), "{rec}");
    assert_eq!(rec["first"]["timestamp"], "2026-03-02T08:00:01.000000000Z", "{rec}");
    assert_eq!((rec["last"]["input"].as_str(), rec["last"]["line"].as_u64()), (Some(a.as_str()), Some(1)), "{rec}");
    let clusters = data["unknown_clusters"].as_array().unwrap();
    let find = |t: &str| {
        clusters
            .iter()
            .position(|c| c["template"].as_str().unwrap().starts_with(t))
            .unwrap_or_else(|| panic!("{clusters:?}"))
    };
    let (quux, zz, tachyon) = (find("quux lease"), find("zz sink"), find("tachyon relay"));
    assert_eq!(clusters[quux]["count"], 61);
    assert_eq!(clusters[quux]["severity"], "warning");
    assert_eq!(clusters[quux]["first"]["input"].as_str(), Some(b.as_str()), "{}", clusters[quux]);
    assert_eq!(clusters[quux]["last"]["timestamp"], "2026-03-02T10:00:51.000000000Z", "{}", clusters[quux]);
    assert_eq!((clusters[zz]["count"].as_u64(), clusters[zz]["severity"].as_str()), (Some(1), Some("error")));
    assert!(zz < quux && tachyon < quux, "errors before warnings: {clusters:?}");
    assert_eq!(clusters[tachyon]["first"]["input"].as_str(), Some(b.as_str()), "{}", clusters[tachyon]);
    assert_eq!(data["unknown_under_known"], 2, "the two injections' causes");
    assert_eq!(data["totals"]["known"], 2);
}

/// A second reader's note: a panic matched by its location read, on the page and in `--summary`,
/// as the error of the record nearest it; only pretty output and JSON said "by location".
#[test]
fn regression_a_panic_by_location_is_said_so_on_the_page_and_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    // worker.rs:842 is `inject barrier failure` (c60da90c507837e7): 8 lines from 850, 3 from 845.
    let input = "thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:850:21:\n\
                 2026-03-02T08:00:01.000000000Z  INFO risingwave_meta::x: between\n\
                 thread 'rw-main' panicked at src/meta/src/barrier/worker.rs:845:1:\n";
    let log = dir.path().join("in.log");
    std::fs::write(&log, input).unwrap();
    let (html, data) = written(&[&path_str(&log)], b"", &dir.path().join("report.html"));
    let recs = records_by_id(&data);
    let r = recs.get("c60da90c507837e7").unwrap_or_else(|| panic!("{}", data["records"]));
    assert_eq!(
        (&r["count"], &r["by_location"], &r["nearest_distance"]),
        (&Value::from(2), &Value::from(2), &Value::from(3))
    );
    assert!(html.contains("by a panic's location, "), "the page's script shows it");
    let out = run(&["--summary", "--format", "json", &path_str(&log)], b"");
    assert!(out.status.success(), "{}", stderr_of(&out));
    let row = stderr_of(&out).lines().find(|l| l.contains("(c60da90c507837e7)")).map(str::to_owned);
    assert!(
        row.as_deref().is_some_and(|l| l.contains("  [by a panic's location] inject-barrier")),
        "{row:?}\n{}",
        stderr_of(&out)
    );
}
