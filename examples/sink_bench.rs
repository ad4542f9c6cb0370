//! Sinks to a local receiver, measured: the annotail binary reads a corpus to its end with one
//! `--output`-style sink per run (http NDJSON or OTLP, each compression) against a receiver in
//! this process that decompresses and decodes every request (OTLP with `opentelemetry-proto`),
//! counts the events and the bytes on the wire, and answers 200. Runs are interleaved, `ROUNDS`
//! times; medians are printed.
//!
//! ```text
//! cargo build --release && cargo run --release --example sink_bench -- target/release/annotail CORPUS [--all] [--only NAME] [--rounds N] [--set 'KEY = VALUE']...
//! ```
//!
//! Per variant: events delivered, wall time, events/s, bytes before and after compression (and
//! the ratio), the annotail process's CPU time (user + system of all its threads, as the kernel
//! counts them: `/usr/bin/time`), events per CPU-second of it and its CPU per MB of uncompressed
//! payload, and the receiver's own CPU time (this process's user + system time during the run,
//! from `/proc/self/stat`: the receiver is all this process does meanwhile), so that a receiver
//! that limits the figure shows. Each run is paired with one on an empty file (start-up: the
//! catalog's load), whose wall and CPU time are subtracted for the rates.

use std::io::Read;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use opentelemetry_proto::tonic::collector::logs::v1::{ExportLogsServiceRequest, ExportLogsServiceResponse};
use prost::Message;

/// Runs per variant unless `--rounds N` says otherwise: the machine is shared, so one run is
/// noise.
const ROUNDS: usize = 3;

#[derive(Default)]
struct Counts {
    events: AtomicU64,
    wire: AtomicU64,
    raw: AtomicU64,
}

fn receiver(counts: Arc<Counts>) -> (u16, tokio::runtime::Runtime) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    rt.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            // Answers go out at once (a collector does the same), not held for a delayed ACK.
            let _ = stream.set_nodelay(true);
            let counts = counts.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                    let counts = counts.clone();
                    async move {
                        let h = |k: &str| req.headers().get(k).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                        let (ct, ce) = (h("content-type"), h("content-encoding"));
                        let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                        let raw = match ce.as_str() {
                            "gzip" => {
                                let mut v = Vec::new();
                                flate2::read::GzDecoder::new(&body[..]).read_to_end(&mut v).unwrap();
                                v
                            }
                            "zstd" => zstd::decode_all(&body[..]).unwrap(),
                            _ => body.to_vec(),
                        };
                        let request = match ct.as_str() {
                            "application/x-protobuf" => Some(ExportLogsServiceRequest::decode(&raw[..]).unwrap()),
                            "application/json" => {
                                Some(serde_json::from_slice::<ExportLogsServiceRequest>(&raw).unwrap())
                            }
                            _ => None,
                        };
                        let n = match request {
                            Some(r) => {
                                r.resource_logs.iter().flat_map(|r| &r.scope_logs).map(|s| s.log_records.len()).sum()
                            }
                            None => memchr::memchr_iter(b'\n', &raw).count(),
                        };
                        counts.events.fetch_add(n as u64, Ordering::Relaxed);
                        counts.wire.fetch_add(body.len() as u64, Ordering::Relaxed);
                        counts.raw.fetch_add(raw.len() as u64, Ordering::Relaxed);
                        Ok::<_, std::convert::Infallible>(
                            hyper::Response::builder()
                                .header("content-type", "application/x-protobuf")
                                .body(Full::new(Bytes::from(ExportLogsServiceResponse::default().encode_to_vec())))
                                .unwrap(),
                        )
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
    });
    (port, rt)
}

struct Run {
    events: u64,
    wall: f64,
    cpu: f64,
    /// The receiver's CPU time during the run.
    receiver_cpu: f64,
    wire: u64,
    raw: u64,
    /// The same run on an empty file.
    start_wall: f64,
    start_cpu: f64,
}

/// Run the binary on `input` with `cfg`; (wall s, CPU s).
fn timed(bin: &str, cfg: &std::path::Path, all: bool, input: &str) -> (f64, f64) {
    let t = Instant::now();
    let mut c = Command::new("/usr/bin/time");
    c.args(["-f", "%U %S"]).arg(bin).arg("--config").arg(cfg).arg("--threads").arg("1");
    if all {
        c.arg("--all");
    }
    let out = c.arg(input).output().unwrap();
    let wall = t.elapsed().as_secs_f64();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let cpu: f64 = err.lines().last().unwrap().split_whitespace().map(|x| x.parse::<f64>().unwrap()).sum();
    (wall, cpu)
}

/// This process's CPU time so far (user + system, all threads), in seconds.
fn own_cpu() -> f64 {
    let stat = procfs::process::Process::myself().unwrap().stat().unwrap();
    (stat.utime + stat.stime) as f64 / procfs::ticks_per_second() as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (bin, corpus) = (&args[1], &args[2]);
    let all = args.iter().any(|a| a == "--all");
    // `--only WORD`: the variants whose name contains it.
    let only = args.iter().position(|a| a == "--only").map(|i| args[i + 1].clone());
    let rounds = args.iter().position(|a| a == "--rounds").map_or(ROUNDS, |i| args[i + 1].parse().unwrap());
    // `--set 'KEY = VALUE'`: added to every variant's sink (e.g. `concurrency = 1`).
    let set: Vec<&str> = args.windows(2).filter(|w| w[0] == "--set").map(|w| w[1].as_str()).collect();
    let counts = Arc::new(Counts::default());
    let (port, _rt) = receiver(counts.clone());
    let variants: [(&str, &str); 12] = [
        ("http none", "url = \"http://127.0.0.1:PORT/\"\ncompression = \"none\""),
        ("http gzip 1", "url = \"http://127.0.0.1:PORT/\"\ncompression = \"gzip\"\ncompression_level = 1"),
        ("http gzip 2", "url = \"http://127.0.0.1:PORT/\"\ncompression = \"gzip\"\ncompression_level = 2"),
        ("http gzip 6", "url = \"http://127.0.0.1:PORT/\"\ncompression = \"gzip\"\ncompression_level = 6"),
        ("http zstd 3", "url = \"http://127.0.0.1:PORT/\"\ncompression = \"zstd\""),
        ("otlp none", "url = \"otlp+http://127.0.0.1:PORT\"\ncompression = \"none\""),
        ("otlp gzip 1", "url = \"otlp+http://127.0.0.1:PORT\"\ncompression = \"gzip\"\ncompression_level = 1"),
        ("otlp gzip 2", "url = \"otlp+http://127.0.0.1:PORT\"\ncompression = \"gzip\"\ncompression_level = 2"),
        ("otlp gzip 6", "url = \"otlp+http://127.0.0.1:PORT\"\ncompression = \"gzip\"\ncompression_level = 6"),
        ("otlp zstd 3", "url = \"otlp+http://127.0.0.1:PORT\"\ncompression = \"zstd\""),
        (
            "otlp json gzip 1",
            "url = \"otlp+http://127.0.0.1:PORT\"\nencoding = \"json\"\ncompression = \"gzip\"\ncompression_level = 1",
        ),
        ("otlp json none", "url = \"otlp+http://127.0.0.1:PORT\"\nencoding = \"json\"\ncompression = \"none\""),
    ];
    let dir = std::env::temp_dir().join(format!("sink-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.log");
    std::fs::write(&empty, "").unwrap();
    let mut runs: Vec<Vec<Run>> = (0..variants.len()).map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (i, (name, sink)) in variants.iter().enumerate() {
            if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
                continue;
            }
            let cfg = dir.join("annotail.toml");
            std::fs::write(
                &cfg,
                format!(
                    "[state]\ndir = \"{}\"\n[[sinks]]\n{}\n",
                    dir.join("state").display(),
                    sink.replace("PORT", &port.to_string()) + &set.iter().map(|k| format!("\n{k}")).collect::<String>()
                ),
            )
            .unwrap();
            let (start_wall, start_cpu) = timed(bin, &cfg, all, empty.to_str().unwrap());
            for c in [&counts.events, &counts.wire, &counts.raw] {
                c.store(0, Ordering::Relaxed);
            }
            let before = own_cpu();
            let (wall, cpu) = timed(bin, &cfg, all, corpus);
            let receiver_cpu = own_cpu() - before;
            runs[i].push(Run {
                receiver_cpu,
                start_wall,
                start_cpu,
                events: counts.events.load(Ordering::Relaxed),
                wall,
                cpu,
                wire: counts.wire.load(Ordering::Relaxed),
                raw: counts.raw.load(Ordering::Relaxed),
            });
        }
    }
    println!(
        "| sink | events | wall s | start-up s | events/s after start-up | payload MB | wire MB | ratio | annotail CPU s (start-up) | events per annotail CPU-s | CPU s per payload MB | receiver CPU s |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (i, (name, _)) in variants.iter().enumerate() {
        let r = &runs[i];
        if r.is_empty() {
            continue;
        }
        let events = r[0].events;
        assert!(r.iter().all(|x| x.events == events), "{name}: event counts differ between runs");
        let wall = median(r.iter().map(|x| x.wall).collect());
        let cpu = median(r.iter().map(|x| x.cpu).collect());
        let start_wall = median(r.iter().map(|x| x.start_wall).collect());
        let start_cpu = median(r.iter().map(|x| x.start_cpu).collect());
        let receiver_cpu = median(r.iter().map(|x| x.receiver_cpu).collect());
        let raw = r[0].raw as f64 / 1e6;
        let wire = median(r.iter().map(|x| x.wire as f64).collect()) / 1e6;
        println!(
            "| {name} | {events} | {wall:.2} | {start_wall:.2} | {:.0} | {raw:.1} | {wire:.2} | {:.1}x | {cpu:.2} ({start_cpu:.2}) | {:.0} | {:.4} | {receiver_cpu:.2} |",
            events as f64 / (wall - start_wall),
            raw / wire,
            events as f64 / (cpu - start_cpu),
            (cpu - start_cpu) / raw
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
