//! Follow-mode measurements for BENCHMARKS.md (not a test: times are noisy on shared machines).
//!
//! `cargo run --release --example follow_bench -- latency [--idle-timeout MS] [--lines N]`:
//! writes known-error lines one at a time (every 10 ms, one write each) into a followed file and
//! measures the time from each write to its event on annotail's standard output: p50, p99, max.
//!
//! `cargo run --release --example follow_bench -- rss [--files N] [--seconds S]`: follows N files
//! that are all appended to continuously and reports annotail's RSS (now and peak).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn bin() -> std::path::PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/release/examples/follow_bench → target/release/annotail
    exe.parent().unwrap().parent().unwrap().join("annotail")
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map_or(default, |v| v.parse().unwrap())
}

/// A line the embedded catalog knows (a real RisingWave error), tagged with its number.
fn error_line(n: u64) -> String {
    format!(
        "2026-11-29T10:00:00.{:06}Z ERROR risingwave_meta::barrier: failed to collect barrier, error: Actor {n} exited unexpectedly: Executor error: Connection refused\n",
        n % 1_000_000
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("latency") => latency(&args),
        Some("rss") => rss(&args),
        Some("sink-down") => sink_down(&args),
        _ => eprintln!(
            "usage: follow_bench latency [--idle-timeout MS] [--lines N] | rss [--files N] [--seconds S] | sink-down [--seconds S]"
        ),
    }
}

fn latency(args: &[String]) {
    let idle = arg(args, "--idle-timeout", 100);
    let lines = arg(args, "--lines", 2000);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("meta.log");
    std::fs::write(&log, b"").unwrap();
    let mut child = Command::new(bin())
        .arg("--follow")
        .arg(&log)
        .args(["--format", "json", "--idle-timeout", &idle.to_string(), "--state-dir"])
        .arg(dir.path().join("state"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let sent: Arc<Mutex<Vec<Option<Instant>>>> = Arc::new(Mutex::new(vec![None; lines as usize]));
    let got = {
        let sent = sent.clone();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut lat = Vec::new();
            for l in BufReader::new(out).lines().map_while(Result::ok) {
                let now = Instant::now();
                let ev: serde_json::Value = serde_json::from_str(&l).unwrap();
                let msg = ev["message"].as_str().unwrap_or("");
                let Some(n) =
                    msg.split("Actor ").nth(1).and_then(|s| s.split(' ').next()).and_then(|s| s.parse::<usize>().ok())
                else {
                    continue;
                };
                if let Some(t) = sent.lock().unwrap()[n] {
                    lat.push(now - t);
                }
                if lat.len() as u64 == lines {
                    break;
                }
            }
            lat
        })
    };
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    for n in 0..lines {
        let l = error_line(n);
        sent.lock().unwrap()[n as usize] = Some(Instant::now());
        f.write_all(l.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut lat = got.join().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    lat.sort();
    let q = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    println!(
        "idle_timeout {idle} ms, {} events: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        lat.len(),
        q(0.5).as_secs_f64() * 1e3,
        q(0.99).as_secs_f64() * 1e3,
        lat.last().unwrap().as_secs_f64() * 1e3
    );
}

fn rss(args: &[String]) {
    let files = arg(args, "--files", 100);
    let seconds = arg(args, "--seconds", 10);
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let mut handles: Vec<std::fs::File> = (0..files)
        .map(|i| {
            let p = logs.join(format!("node-{i}.log"));
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(p).unwrap();
            f.write_all(error_line(i * 1000).as_bytes()).unwrap();
            f
        })
        .collect();
    let mut child = Command::new(bin())
        .arg("--follow")
        .arg(format!("{}/*.log", logs.display()))
        .args(["--format", "json", "--state-dir"])
        .arg(dir.path().join("state"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let counter = std::thread::spawn(move || BufReader::new(out).lines().map_while(Result::ok).count());
    let start = Instant::now();
    let mut n = 0u64;
    let mut bytes = 0u64;
    while start.elapsed() < Duration::from_secs(seconds) {
        for (i, f) in handles.iter_mut().enumerate() {
            // 1 error line in 20, the rest ordinary INFO lines.
            for k in 0..20u64 {
                let l = if k == 0 {
                    error_line(n)
                } else {
                    format!(
                        "2026-11-29T10:00:00.{:06}Z  INFO risingwave_meta::hummock: compaction task {n} on file {i} done\n",
                        n % 1_000_000
                    )
                };
                bytes += l.len() as u64;
                f.write_all(l.as_bytes()).unwrap();
                n += 1;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let field = |k: &str| status.lines().find(|l| l.starts_with(k)).unwrap_or("").to_owned();
    Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    child.wait().unwrap();
    let events = counter.join().unwrap();
    println!(
        "{files} files followed for {seconds} s, {n} lines ({} MB) written, {events} events: {} / {}",
        bytes / 1_000_000,
        field("VmRSS:").split_whitespace().collect::<Vec<_>>().join(" "),
        field("VmHWM:").split_whitespace().collect::<Vec<_>>().join(" ")
    );
}

/// The receiver is down for S seconds while a fast writer appends; annotail's RSS is read at the
/// end of that time, then a receiver starts and every event must arrive.
fn sink_down(args: &[String]) {
    let seconds = arg(args, "--seconds", 60);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("meta.log");
    std::fs::write(&log, b"").unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(bin())
        .arg("--follow")
        .arg(&log)
        .args(["--all", "--output", &format!("tcp://127.0.0.1:{port}"), "--state-dir"])
        .arg(dir.path().join("state"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < Duration::from_secs(seconds) {
        let mut s = String::new();
        for _ in 0..2000 {
            s.push_str(&format!(
                "2026-11-29T10:00:00.{:06}Z  INFO risingwave_meta::hummock: compaction task {n} done\n",
                n % 1_000_000
            ));
            n += 1;
        }
        f.write_all(s.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let field = |k: &str| {
        status.lines().find(|l| l.starts_with(k)).unwrap_or("").split_whitespace().skip(1).collect::<Vec<_>>().join(" ")
    };
    let written_mb = std::fs::metadata(&log).unwrap().len() / 1_000_000;
    println!(
        "receiver down {seconds} s, {n} lines ({written_mb} MB) written meanwhile: VmRSS {}, VmHWM {}",
        field("VmRSS:"),
        field("VmHWM:")
    );
    let listener = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let t = Instant::now();
    let mut got = 0u64;
    for s in listener.incoming().flatten() {
        got += BufReader::new(s).lines().map_while(Result::ok).take((n - got) as usize).count() as u64;
        if got >= n {
            break;
        }
    }
    println!("receiver up: {got} of {n} events arrived in {:.1} s", t.elapsed().as_secs_f64());
    Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    child.wait().unwrap();
}
