//! The OTLP/HTTP logs sink against a receiver built on the official definitions: a hyper server
//! here that decodes every request with `opentelemetry-proto` (gzip, zstd, protobuf, JSON), and
//! answers as told (success, partial success, 500, a reset connection, an outage).

mod common;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsPartialSuccess, ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use prost::Message;

use common::{PATIENCE, cmd, wait_timeout};

/// What the receiver does with request number `n` (0-based).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Answer {
    Ok,
    /// 500 with a body: retried.
    Fail,
    /// The body is read, then the connection is closed without an answer.
    Reset,
    /// 200 with `partial_success`.
    Partial {
        rejected: i64,
    },
    /// Stop listening (connections refused, open ones closed) for this long, then listen again.
    Outage(Duration),
    /// 400: the request is refused as it is.
    BadRequest,
}

/// One request as received and decoded.
#[derive(Clone, Debug)]
struct Got {
    content_type: String,
    content_encoding: String,
    wire_bytes: usize,
    req: ExportLogsServiceRequest,
}

struct Receiver {
    port: u16,
    /// Requests taken (answered with a 2xx), decoded.
    got: Arc<Mutex<Vec<Got>>>,
    requests: Arc<AtomicUsize>,
    _rt: tokio::runtime::Runtime,
}

fn decode(content_type: &str, content_encoding: &str, body: &[u8]) -> ExportLogsServiceRequest {
    let raw = match content_encoding {
        "gzip" => {
            let mut v = Vec::new();
            flate2::read::GzDecoder::new(body).read_to_end(&mut v).expect("a gzip body");
            v
        }
        "zstd" => zstd::decode_all(body).expect("a zstd body"),
        "" => body.to_vec(),
        other => panic!("unexpected content-encoding {other}"),
    };
    match content_type {
        "application/x-protobuf" => ExportLogsServiceRequest::decode(&raw[..]).expect("an ExportLogsServiceRequest"),
        "application/json" => serde_json::from_slice(&raw).expect("an OTLP/JSON ExportLogsServiceRequest"),
        other => panic!("unexpected content-type {other}"),
    }
}

impl Receiver {
    fn start(answer: impl Fn(usize) -> Answer + Send + Sync + 'static) -> Receiver {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let got: Arc<Mutex<Vec<Got>>> = Arc::default();
        let requests: Arc<AtomicUsize> = Arc::default();
        let answer = Arc::new(answer);
        let (g, r) = (got.clone(), requests.clone());
        rt.spawn(async move {
            let down_until: Arc<Mutex<Option<Instant>>> = Arc::default();
            loop {
                let listener = loop {
                    let s = tokio::net::TcpSocket::new_v4().unwrap();
                    s.set_reuseaddr(true).unwrap();
                    if s.bind(([127, 0, 0, 1], port).into()).is_ok() {
                        break s.listen(128).unwrap();
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                };
                let mut conns = tokio::task::JoinSet::new();
                let (down_tx, mut down_rx) = tokio::sync::mpsc::unbounded_channel::<Duration>();
                loop {
                    tokio::select! {
                        acc = listener.accept() => {
                            let Ok((stream, _)) = acc else { continue };
                            let (g, r, answer, down_tx) = (g.clone(), r.clone(), answer.clone(), down_tx.clone());
                            conns.spawn(async move {
                                let svc = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                                    let (g, r, answer, down_tx) = (g.clone(), r.clone(), answer.clone(), down_tx.clone());
                                    async move {
                                        let n = r.fetch_add(1, Ordering::SeqCst);
                                        let header = |k: &str| {
                                            req.headers().get(k).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned()
                                        };
                                        let (ct, ce) = (header("content-type"), header("content-encoding"));
                                        let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                                        let ok = |resp: ExportLogsServiceResponse| {
                                            let decoded = decode(&ct, &ce, &body);
                                            g.lock().unwrap().push(Got {
                                                content_type: ct.clone(),
                                                content_encoding: ce.clone(),
                                                wire_bytes: body.len(),
                                                req: decoded,
                                            });
                                            hyper::Response::builder()
                                                .header("content-type", "application/x-protobuf")
                                                .body(Full::new(Bytes::from(resp.encode_to_vec())))
                                                .unwrap()
                                        };
                                        match answer(n) {
                                            Answer::Ok => Ok(ok(ExportLogsServiceResponse::default())),
                                            Answer::Partial { rejected } => Ok(ok(ExportLogsServiceResponse {
                                                partial_success: Some(ExportLogsPartialSuccess {
                                                    rejected_log_records: rejected,
                                                    error_message: format!("{rejected} records older than the retention"),
                                                }),
                                            })),
                                            Answer::Fail => Ok(hyper::Response::builder()
                                                .status(500)
                                                .body(Full::new(Bytes::from_static(b"storage unavailable")))
                                                .unwrap()),
                                            Answer::Reset => Err("reset".to_owned()),
                                            Answer::BadRequest => Ok(hyper::Response::builder()
                                                .status(400)
                                                .body(Full::new(Bytes::from_static(b"bad data")))
                                                .unwrap()),
                                            Answer::Outage(d) => {
                                                let _ = down_tx.send(d);
                                                Err("outage".to_owned())
                                            }
                                        }
                                    }
                                });
                                let io = hyper_util::rt::TokioIo::new(stream);
                                let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, svc).await;
                            });
                        }
                        Some(d) = down_rx.recv() => {
                            *down_until.lock().unwrap() = Some(Instant::now() + d);
                            break;
                        }
                    }
                }
                // The outage: nothing listens, and open connections are closed.
                drop(listener);
                conns.abort_all();
                let until = down_until.lock().unwrap().take();
                if let Some(until) = until {
                    tokio::time::sleep(until.saturating_duration_since(Instant::now())).await;
                }
            }
        });
        let t = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(t.elapsed() < PATIENCE, "the receiver did not start");
            thread::sleep(Duration::from_millis(10));
        }
        Receiver { port, got, requests, _rt: rt }
    }

    fn records(&self) -> Vec<(HashMap<String, AnyValue>, LogRecord)> {
        let mut out = Vec::new();
        for g in self.got.lock().unwrap().iter() {
            for rl in &g.req.resource_logs {
                let res = attrs(&rl.resource.as_ref().expect("a resource").attributes);
                for sl in &rl.scope_logs {
                    let scope = sl.scope.as_ref().expect("a scope");
                    assert_eq!(scope.name, "annotail");
                    for r in &sl.log_records {
                        out.push((res.clone(), r.clone()));
                    }
                }
            }
        }
        out
    }
}

fn attrs(kv: &[KeyValue]) -> HashMap<String, AnyValue> {
    let mut m = HashMap::new();
    for a in kv {
        assert!(m.insert(a.key.clone(), a.value.clone().unwrap_or_default()).is_none(), "{} twice", a.key);
    }
    m
}

fn str_of(v: Option<&AnyValue>) -> Option<&str> {
    match v?.value.as_ref()? {
        any_value::Value::StringValue(s) => Some(s),
        _ => None,
    }
}

fn int_of(v: Option<&AnyValue>) -> Option<i64> {
    match v?.value.as_ref()? {
        any_value::Value::IntValue(i) => Some(*i),
        _ => None,
    }
}

fn strings_of(v: Option<&AnyValue>) -> Vec<String> {
    match v.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::ArrayValue(a)) => {
            a.values.iter().filter_map(|v| str_of(Some(v)).map(str::to_owned)).collect()
        }
        _ => Vec::new(),
    }
}

fn body_of(r: &LogRecord) -> &str {
    str_of(r.body.as_ref()).expect("a string body")
}

fn nanos(rfc3339: &str) -> u64 {
    humantime::parse_rfc3339(rfc3339).unwrap().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

/// `n` pairs of lines that the two seed records match.
fn seed_lines(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&common::rw_line(
            i as u32,
            "ERROR",
            "risingwave_meta::barrier::rpc",
            &format!("should not pause when having snapshot backfill job {i}"),
        ));
        s.push('\n');
        s.push_str(&common::rw_line(
            i as u32,
            "ERROR",
            "risingwave_meta::backup_restore",
            &format!("concurrent backup job is not supported: existent job {i}"),
        ));
        s.push('\n');
    }
    s
}

/// The CRI file name of a pod's container: the source of `k8s.*` attributes.
const CRI_NAME: &str = "risingwave-meta-0_rw-prod_meta-0123456789abcdef0123456789abcdef.log";

/// Files read to their end, delivered to `url`, with `NODE_NAME` set; returns the exit status
/// and standard error.
fn run_to(dir: &Path, url: &str, config: &str, files: &[&Path]) -> (std::process::ExitStatus, String) {
    fs::write(dir.join("catalog.jsonl"), common::TEST_CATALOG).unwrap();
    let cfg = dir.join("annotail.toml");
    fs::write(
        &cfg,
        format!("catalog = [\"catalog.jsonl\"]\n[state]\ndir = \"state\"\n[[sinks]]\nurl = \"{url}\"\n{config}"),
    )
    .unwrap();
    let out = cmd()
        .arg("--config")
        .arg(&cfg)
        .args(["--log-level", "info"])
        .args(files)
        .env("NODE_NAME", "node-a7")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn every_field_is_mapped_and_the_body_is_gzip_protobuf() {
    let rx = Receiver::start(|_| Answer::Ok);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join(CRI_NAME);
    let split = common::split_line(5, 4242);
    let info = common::info_line(6, "nothing to see");
    fs::write(&log, common::lines(&[&split, &info])).unwrap();
    let url = format!("otlp+http://127.0.0.1:{}", rx.port);
    let (st, err) = run_to(dir.path(), &url, "", &[&log]);
    assert!(st.success(), "{st}: {err}");
    let got = rx.got.lock().unwrap().clone();
    assert!(!got.is_empty());
    for g in &got {
        assert_eq!((g.content_type.as_str(), g.content_encoding.as_str()), ("application/x-protobuf", "gzip"));
    }
    let recs = rx.records();
    assert_eq!(recs.len(), 1, "only the match (no --all)");
    let (res, r) = &recs[0];
    // Resource.
    assert_eq!(str_of(res.get("service.name")), Some("meta"), "the container's name");
    // The pod, namespace and container are the resource's (they were the record's: an OTel
    // pipeline's reading).
    assert_eq!(str_of(res.get("k8s.pod.name")), Some("risingwave-meta-0"));
    assert_eq!(str_of(res.get("k8s.namespace.name")), Some("rw-prod"));
    assert_eq!(str_of(res.get("k8s.container.name")), Some("meta"));
    assert_eq!(str_of(res.get("host.name")), Some("node-a7"), "NODE_NAME");
    assert_eq!(str_of(res.get("k8s.node.name")), Some("node-a7"));
    // Record.
    assert_eq!(r.time_unix_nano, nanos("2026-03-02T08:00:05.123456789Z"), "the line's time");
    let now = nanos(&humantime::format_rfc3339(std::time::SystemTime::now()).to_string());
    assert!(r.observed_time_unix_nano > now - 120_000_000_000 && r.observed_time_unix_nano <= now + 1_000_000_000);
    assert_eq!((r.severity_number, r.severity_text.as_str()), (13, "WARN"), "WARN is 13");
    assert!(body_of(r).contains("barrier collection failed for actor 4242"), "{}", body_of(r));
    let a = attrs(&r.attributes);
    assert_eq!(str_of(a.get("rule.id")), Some("t-split"));
    assert_eq!(str_of(a.get("rule.name")), Some("barrier-collect"));
    assert_eq!(str_of(a.get("rule.category")), Some("anyhow::Error"));
    assert_eq!(str_of(a.get("annotail.severity")), Some("warning"));
    assert_eq!(str_of(a.get("annotail.captures.actor_id")), Some("4242"));
    assert_eq!(strings_of(a.get("annotail.solutions")), ["restart the actor", "check the compute node"]);
    assert_eq!(strings_of(a.get("annotail.tags")), ["barrier"]);
    assert_eq!(str_of(a.get("log.file.path")), Some(log.to_str().unwrap()));
    assert!(!a.contains_key("k8s.pod.name"), "on the resource, not the record");
    assert_eq!(str_of(a.get("code.namespace")), Some("risingwave_meta::barrier::rpc"));
    assert_eq!(int_of(a.get("annotail.source.line")), Some(1));
    assert_eq!(str_of(a.get("annotail.pattern")), Some("barrier collection failed for actor (.+?)"));
    assert!(!a.contains_key("annotail.record"), "the record's pass-through fields are not carried by default");
}

/// Regression: OTLP records carried nothing of `--unknown`'s cluster (JSON, ECS and pretty
/// output did), and a panic no record explains came with no severity at all (severity number 0).
#[test]
fn unknown_errors_carry_their_cluster_and_a_panic_is_an_error() {
    let rx = Receiver::start(|_| Answer::Ok);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("meta.log");
    let unknown = common::rw_line(1, "ERROR", "risingwave_meta::x", "replica 7 fell behind its leader");
    let panic = "thread 'main' panicked at src/meta/src/nothing_known.rs:10:5:\nsomething odd happened";
    fs::write(&log, common::lines(&[&unknown, panic])).unwrap();
    let url = format!("otlp+http://127.0.0.1:{}", rx.port);
    let (st, err) = run_to(dir.path(), &url, "encoding = \"json\"\n[unknown]\nlevels = \"warn\"", &[&log]);
    assert!(st.success(), "{st}: {err}");
    let recs = rx.records();
    assert_eq!(recs.len(), 2, "both events are unknown errors");
    let (_, r) = &recs[0];
    assert_eq!((r.severity_number, r.severity_text.as_str()), (17, "ERROR"));
    let a = attrs(&r.attributes);
    let cluster = str_of(a.get("annotail.unknown.cluster")).expect("the cluster id");
    assert_eq!(cluster.len(), 16, "{cluster}");
    assert_eq!(str_of(a.get("annotail.unknown.template")), Some("replica <*> fell behind its leader"));
    assert_eq!(int_of(a.get("annotail.unknown.count")), Some(1));
    assert_eq!(str_of(a.get("annotail.unknown.message")), Some("replica 7 fell behind its leader"));
    let (_, p) = &recs[1];
    assert_eq!((p.severity_number, p.severity_text.as_str()), (17, "ERROR"), "a panic is an error");
    let a = attrs(&p.attributes);
    assert!(str_of(a.get("annotail.unknown.template")).is_some_and(|t| t.contains("panicked at")), "{a:?}");
    // With `--all` and no `--unknown`, the panic is an error too (a third reader's finding).
    let rx = Receiver::start(|_| Answer::Ok);
    let url = format!("otlp+http://127.0.0.1:{}", rx.port);
    let cfg = dir.path().join("all.toml");
    let sink = format!("[[sinks]]\nurl = \"{url}\"\nencoding = \"json\"\n");
    fs::write(&cfg, format!("catalog = [\"catalog.jsonl\"]\n{sink}")).unwrap();
    let out = cmd().arg("--config").arg(&cfg).arg("--all").arg(&log).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let recs = rx.records();
    assert_eq!(recs.len(), 2, "every event");
    let (_, p) = &recs[1];
    assert_eq!((p.severity_number, p.severity_text.as_str()), (17, "ERROR"), "a panic is an error");
    assert!(!attrs(&p.attributes).contains_key("annotail.unknown.cluster"));
}

#[test]
fn json_encoding_zstd_and_all_record_fields() {
    let rx = Receiver::start(|_| Answer::Ok);
    let dir = tempfile::tempdir().unwrap();
    // The seed records: documented, with source code.
    let seeds = common::manifest_dir().join("config/catalog/seeds");
    let log = dir.path().join("meta.log");
    fs::write(&log, seed_lines(3)).unwrap();
    let url = format!("otlp+http://127.0.0.1:{}/v1/logs", rx.port);
    fs::write(dir.path().join("annotail.toml"), "").unwrap();
    let run = |config: &str| {
        let cfg = dir.path().join("annotail.toml");
        fs::write(&cfg, format!("[state]\ndir = \"state\"\n[[sinks]]\nurl = \"{url}\"\n{config}")).unwrap();
        let out = cmd()
            .arg("--config")
            .arg(&cfg)
            .arg("--catalog")
            .arg(&seeds)
            .arg(&log)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    run("encoding = \"json\"\ncompression = \"zstd\"\nrecord_fields = \"all\"\n");
    let got = rx.got.lock().unwrap().clone();
    assert!(!got.is_empty(), "the seeds match");
    for g in &got {
        assert_eq!((g.content_type.as_str(), g.content_encoding.as_str()), ("application/json", "zstd"));
    }
    let recs = rx.records();
    let a = attrs(&recs[0].1.attributes);
    match a.get("annotail.record").and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::KvlistValue(kv)) => {
            assert!(kv.values.iter().any(|k| k.key == "validationCode"), "all: the record's other fields are carried")
        }
        other => panic!("annotail.record: {other:?}"),
    }
    assert!(a.contains_key("rule.description") && a.contains_key("rule.reference"));
    rx.got.lock().unwrap().clear();
    run("compression = \"none\"\nrecord_fields = \"none\"\n");
    let got = rx.got.lock().unwrap().clone();
    assert!(got.iter().all(|g| g.content_encoding.is_empty() && g.content_type == "application/x-protobuf"));
    let recs = rx.records();
    let a = attrs(&recs[0].1.attributes);
    assert!(a.contains_key("rule.id") && a.contains_key("rule.name"));
    for gone in ["rule.description", "rule.reference", "annotail.solutions", "annotail.record", "annotail.pattern"] {
        assert!(!a.contains_key(gone), "record_fields = none: {gone}");
    }
}

#[test]
fn a_partial_success_is_counted_and_the_run_exits_1() {
    let rx = Receiver::start(|_| Answer::Partial { rejected: 1 });
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.log");
    fs::write(&log, common::lines(&[&common::split_line(1, 1), &common::split_line(2, 2)])).unwrap();
    let (st, err) = run_to(dir.path(), &format!("otlp+http://127.0.0.1:{}", rx.port), "", &[&log]);
    assert_eq!(st.code(), Some(1), "{err}");
    assert!(err.contains("partial success") && err.contains("1 records older than the retention"), "{err}");
    assert!(err.contains("1 record(s) rejected by an OTLP receiver"), "{err}");
    assert_eq!(rx.requests.load(Ordering::SeqCst), 1, "a partial success is not retried");

    // No record rejected, only a warning: delivered, status 0.
    let rx = Receiver::start(|_| Answer::Partial { rejected: 0 });
    let (st, err) = run_to(dir.path(), &format!("otlp+http://127.0.0.1:{}", rx.port), "", &[&log]);
    assert!(st.success(), "{err}");
    assert!(err.contains("with a warning"), "{err}");
}

/// 200,000 events followed from a file through a receiver that fails (500s), resets
/// connections, goes away for 3 s and answers a partial success (a warning, nothing rejected):
/// every event arrives, each mapped as it should be.
#[test]
fn two_hundred_thousand_events_through_a_flaky_receiver() {
    const N: u64 = 200_000;
    fn flaky(n: usize) -> Answer {
        match n {
            30 => Answer::Outage(Duration::from_secs(3)),
            45 => Answer::Partial { rejected: 0 },
            n if n % 7 == 3 => Answer::Fail,
            n if n % 11 == 5 => Answer::Reset,
            _ => Answer::Ok,
        }
    }
    let rx = Receiver::start(flaky);
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("logs")).unwrap();
    fs::write(dir.path().join("catalog.jsonl"), common::TEST_CATALOG).unwrap();
    let cfg = dir.path().join("annotail.toml");
    fs::write(
        &cfg,
        format!(
            "catalog = [\"catalog.jsonl\"]\n[[sources]]\npaths = [\"logs/*.log\"]\n[state]\ndir = \"state\"\n\
             [[sinks]]\nurl = \"otlp+http://127.0.0.1:{}\"\nbatch_max_bytes = 65536\ntimeout = \"2s\"\nmax_backoff = \"200ms\"\n",
            rx.port
        ),
    )
    .unwrap();
    let log = dir.path().join("logs/a.log");
    let line = |seq: u64| {
        format!(
            "2026-11-29T10:{:02}:{:02}.{:06}Z  INFO risingwave_meta::stress: line written seq={seq}\n",
            seq / 60_000_000 % 60,
            seq / 1_000_000 % 60,
            seq % 1_000_000
        )
    };
    let mut text = String::new();
    for i in 0..N {
        text.push_str(&line(i));
    }
    fs::write(&log, text).unwrap();
    let err = fs::File::create(dir.path().join("stderr.log")).unwrap();
    let mut d: Child = cmd()
        .arg("--config")
        .arg(&cfg)
        .args(["--all", "--log-level", "info", "--poll-interval", "50ms"])
        .env("NODE_NAME", "node-b3")
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .unwrap();
    let count = |rx: &Receiver| {
        rx.got
            .lock()
            .unwrap()
            .iter()
            .map(|g| g.req.resource_logs.iter().map(|r| r.scope_logs[0].log_records.len()).sum::<usize>())
            .sum::<usize>()
    };
    let t = Instant::now();
    while (count(&rx) as u64) < N && t.elapsed() < PATIENCE * 4 {
        thread::sleep(Duration::from_millis(200));
    }
    let st = std::process::Command::new("kill").arg("-TERM").arg(d.id().to_string()).status().unwrap();
    assert!(st.success());
    let st = wait_timeout(&mut d, PATIENCE).expect("exits after SIGTERM");
    let stderr = fs::read_to_string(dir.path().join("stderr.log")).unwrap();
    assert!(st.success(), "{st}: {stderr}");
    assert!(stderr.contains("with a warning"), "the partial success is logged");
    let requests = rx.requests.load(Ordering::SeqCst);
    let got = rx.got.lock().unwrap().clone();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut ids: HashSet<String> = HashSet::new();
    let path = log.to_str().unwrap().to_owned();
    for g in &got {
        assert_eq!(g.content_encoding, "gzip");
        for rl in &g.req.resource_logs {
            let res = attrs(&rl.resource.as_ref().unwrap().attributes);
            assert_eq!(str_of(res.get("service.name")), Some("risingwave_meta"));
            assert_eq!(str_of(res.get("host.name")), Some("node-b3"));
            assert_eq!(str_of(res.get("k8s.node.name")), Some("node-b3"));
            for r in &rl.scope_logs[0].log_records {
                let body = body_of(r);
                let seq: u64 = body.rsplit_once("seq=").unwrap().1.parse().unwrap();
                assert_eq!(body, line(seq).trim_end(), "the message");
                let ts = line(seq).split_whitespace().next().unwrap().to_owned();
                assert_eq!(r.time_unix_nano, nanos(&ts), "seq {seq}");
                assert!(r.observed_time_unix_nano > 0);
                assert_eq!((r.severity_number, r.severity_text.as_str()), (9, "INFO"));
                let a = attrs(&r.attributes);
                assert_eq!(str_of(a.get("log.file.path")), Some(path.as_str()));
                assert_eq!(int_of(a.get("annotail.source.line")), Some(seq as i64 + 1));
                assert!(!a.contains_key("rule.id"), "no match");
                ids.insert(str_of(a.get("log.record.uid")).expect("an event id").to_owned());
                seen.insert(seq);
            }
        }
    }
    let received = count(&rx);
    eprintln!(
        "scenario otlp flaky: sent {N}, requests {requests}, taken {}, records received {received}, distinct {}",
        got.len(),
        seen.len()
    );
    assert_eq!(seen.len() as u64, N, "every event arrived");
    assert_eq!(ids.len() as u64, N, "one id per event");
    let answered = |a: fn(&Answer) -> bool| (0..requests).filter(|&n| a(&flaky(n))).count();
    let (fails, resets) = (answered(|a| *a == Answer::Fail), answered(|a| *a == Answer::Reset));
    eprintln!("scenario otlp flaky: {fails} answers 500, {resets} resets, an outage of 3 s, a partial success");
    assert!(requests > 45 && fails >= 5 && resets >= 3, "{requests} requests");
    // Every other request was taken, less one that may have been in flight on the sink's second
    // connection when the outage began: it is counted on arrival, its connection is closed
    // before it is answered, and it is sent again (a fresh-clone CI run met that: 64 of 65).
    let taken = requests - fails - resets - 1;
    assert!(got.len() == taken || got.len() + 1 == taken, "{} requests taken of {taken}", got.len());
}

#[test]
fn gzip_cuts_the_bytes_on_the_wire() {
    // Matched events of the seed records (the documented ones), as a receiver gets them.
    let rx = Receiver::start(|_| Answer::Ok);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("meta.log");
    let mut text = String::new();
    for _ in 0..20 {
        text.push_str(&fs::read_to_string(common::example_log()).unwrap());
    }
    fs::write(&log, text).unwrap();
    let cfg = dir.path().join("annotail.toml");
    fs::write(&cfg, format!("[state]\ndir = \"state\"\n[[sinks]]\nurl = \"otlp+http://127.0.0.1:{}\"\n", rx.port))
        .unwrap();
    let out = cmd().arg("--config").arg(&cfg).arg(&log).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = rx.got.lock().unwrap().clone();
    let wire: usize = got.iter().map(|g| g.wire_bytes).sum();
    let raw: usize = got.iter().map(|g| g.req.encoded_len()).sum();
    eprintln!("otlp gzip: {raw} bytes of protobuf, {wire} on the wire ({:.1}x)", raw as f64 / wire as f64);
    // The 5x goal is annotail/1's NDJSON (tests/sinks.rs); protobuf is denser to begin with, and
    // these events no longer carry a record's source code, its most repetitive text.
    assert!(raw > 4 * wire, "{raw} bytes as {wire} on the wire");
}

/// A receiver that refuses every request (400): the batch is halved down to single records, each
/// parked in the dead-letter file as an OTLP/JSON request on one line, and the run exits 1.
#[test]
fn refused_records_are_dead_lettered_as_otlp_json() {
    let rx = Receiver::start(|_| Answer::BadRequest);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.log");
    fs::write(&log, common::lines(&[&common::split_line(1, 1), &common::split_line(2, 2), &common::split_line(3, 3)]))
        .unwrap();
    let (st, err) = run_to(dir.path(), &format!("otlp+http://127.0.0.1:{}", rx.port), "", &[&log]);
    assert_eq!(st.code(), Some(1), "{err}");
    let dl = fs::read_dir(dir.path().join("state/dead-letter")).unwrap().next().unwrap().unwrap().path();
    let text = fs::read_to_string(&dl).unwrap();
    let reqs: Vec<ExportLogsServiceRequest> = text.lines().map(|l| serde_json::from_str(l).expect("OTLP/JSON")).collect();
    assert_eq!(reqs.len(), 3, "{text}");
    let mut actors: Vec<String> = reqs
        .iter()
        .map(|r| {
            let rec = &r.resource_logs[0].scope_logs[0].log_records;
            assert_eq!(rec.len(), 1);
            str_of(attrs(&rec[0].attributes).get("annotail.captures.actor_id")).unwrap().to_owned()
        })
        .collect();
    actors.sort();
    assert_eq!(actors, ["1", "2", "3"]);
}

/// `max_event_bytes` bounds an OTLP log record's encoded size; the record says it was cut.
#[test]
fn max_event_bytes_bounds_a_log_record() {
    let rx = Receiver::start(|_| Answer::Ok);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("a.log");
    let big = "z".repeat(20_000);
    fs::write(
        &log,
        common::lines(&[&common::rw_line(1, "WARN", "risingwave_meta::barrier", &format!("barrier collection failed for actor {big}"))]),
    )
    .unwrap();
    let (st, err) = run_to(dir.path(), &format!("otlp+http://127.0.0.1:{}", rx.port), "max_event_bytes = 2048\nrecord_fields = \"all\"\n", &[&log]);
    assert!(st.success(), "{err}");
    let recs = rx.records();
    assert_eq!(recs.len(), 1);
    let r = &recs[0].1;
    assert!(r.encoded_len() <= 2048, "{}", r.encoded_len());
    let a = attrs(&r.attributes);
    assert!(int_of(a.get("annotail.truncated.original_bytes")).unwrap() > 40_000);
    assert_eq!(str_of(a.get("rule.id")), Some("t-split"));
    assert!(body_of(r).starts_with("2026-03-02T08:00:01") && body_of(r).ends_with('…'));
}

/// Regression (an OTel pipeline's reading): a record cut to `max_event_bytes` lost its
/// attributes from the end once the log's fields were gone, and the unknown cluster's, added
/// last, went first: the id receivers group and alert on. They stay now, as in JSON and ECS; and
/// the text clustered (a JSON line's may be a span's `error`, not in the body) is carried.
#[test]
fn regression_a_cut_record_keeps_its_unknown_cluster() {
    let rx = Receiver::start(|_| Answer::Ok);
    let dir = tempfile::tempdir().unwrap();
    let rec = r#"{"record":{"id":"r-many","slug":"many","errorMessage":"ab {} cd {} ef {} gh {} ij {} kl {} mn {} op {} done","messagePattern":"ab (.+?) cd (.+?) ef (.+?) gh (.+?) ij (.+?) kl (.+?) mn (.+?) op (.+?) done","severity":"warning"}}"#;
    fs::write(dir.path().join("many.jsonl"), format!("{rec}\n")).unwrap();
    let v = |c: char| c.to_string().repeat(120);
    let msg = format!(
        "ab {} cd {} ef {} gh {} ij {} kl {} mn {} op {} done error=zorblax shard 42 unreachable",
        v('a'),
        v('b'),
        v('c'),
        v('d'),
        v('e'),
        v('f'),
        v('g'),
        v('h')
    );
    let fields: String = (0..10).map(|i| format!(" k{i}={}", v('x'))).collect();
    let log = dir.path().join("a.log");
    fs::write(
        &log,
        common::lines(&[&common::rw_line(1, "WARN", &format!("risingwave_meta::{}", v('t')), &(msg + &fields))]),
    )
    .unwrap();
    let cfg = dir.path().join("cut.toml");
    let url = format!("otlp+http://127.0.0.1:{}", rx.port);
    fs::write(&cfg, format!("catalog = [\"many.jsonl\"]\n[unknown]\nlevels = \"warn\"\n[[sinks]]\nurl = \"{url}\"\nmax_event_bytes = 1024\n")).unwrap();
    let out = cmd().arg("--config").arg(&cfg).arg(&log).stdin(Stdio::null()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let recs = rx.records();
    assert_eq!(recs.len(), 1);
    let r = &recs[0].1;
    assert!(r.encoded_len() <= 1024, "{}", r.encoded_len());
    assert!(r.dropped_attributes_count > 10, "attributes were dropped: {}", r.dropped_attributes_count);
    let a = attrs(&r.attributes);
    assert_eq!(str_of(a.get("rule.id")), Some("r-many"));
    assert_eq!(str_of(a.get("annotail.unknown.cluster")).map(str::len), Some(16), "{a:?}");
    assert_eq!(int_of(a.get("annotail.unknown.count")), Some(1), "{a:?}");
}

/// The README's receiving configs for the OpenTelemetry Collector and Grafana Alloy are whole:
/// the Collector's parses as YAML with an OTLP/HTTP receiver in a logs pipeline; Alloy's has an
/// OTLP receiver with an http block, and balanced braces and quotes.
#[test]
fn receiving_configs_for_the_collector_and_alloy_are_whole() {
    let readme = fs::read_to_string(common::manifest_dir().join("README.md")).unwrap();
    let block = |marker: &str| -> String {
        readme
            .lines()
            .skip_while(|l| !l.starts_with(marker))
            .skip_while(|l| !l.starts_with("```"))
            .skip(1)
            .take_while(|l| !l.starts_with("```"))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let col: serde_yaml_ng::Value = serde_yaml_ng::from_str(&block("OpenTelemetry Collector (`otelcol.yaml`)")).unwrap();
    assert_eq!(col["receivers"]["otlp"]["protocols"]["http"]["endpoint"].as_str(), Some("0.0.0.0:4318"));
    let pipeline = &col["service"]["pipelines"]["logs"];
    assert_eq!(pipeline["receivers"][0].as_str(), Some("otlp"));
    for e in pipeline["exporters"].as_sequence().unwrap() {
        assert!(!col["exporters"][e.as_str().unwrap()].is_null(), "exporter {e:?} is defined");
    }
    let alloy = block("Grafana Alloy (`config.alloy`)");
    assert!(alloy.contains("otelcol.receiver.otlp") && alloy.contains("endpoint = \"0.0.0.0:4318\""), "{alloy}");
    assert_eq!(alloy.matches('{').count(), alloy.matches('}').count(), "{alloy}");
    assert_eq!(alloy.matches('"').count() % 2, 0);
    // Each component an output names is defined.
    for name in ["otelcol.processor.batch.default", "otelcol.exporter.otlphttp.loki"] {
        let (kind, label) = name.rsplit_once('.').unwrap();
        assert!(alloy.contains(&format!("{name}.input")) && alloy.contains(&format!("{kind} \"{label}\"")), "{name}");
    }
}
