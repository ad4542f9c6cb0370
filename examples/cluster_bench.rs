//! Clustering alone: `annotail::unknown::Clusterer` fed every line of a file, as drain3 is fed
//! in `benches/unknown/speed.sh` (no framing, parsing or output on either side).
//!
//! Usage: cargo run --release --example cluster_bench -- MESSAGES [RUNS]
//! Prints one JSON object: lines, bytes, the best run's wall seconds and MB/s, the CPU seconds
//! (user + system) a run took on average and the MB/s they give, clusters at the end. On a
//! shared machine the CPU figures are the ones to compare: wall time counts other processes.

use std::time::Instant;

/// User + system CPU seconds of this process so far.
fn cpu_seconds() -> f64 {
    let stat = procfs::process::Process::myself().and_then(|p| p.stat()).expect("read /proc/self/stat");
    (stat.utime + stat.stime) as f64 / procfs::ticks_per_second() as f64
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: cluster_bench MESSAGES [RUNS]");
    let runs: usize = args.next().map_or(3, |r| r.parse().expect("RUNS is a number"));
    let data = std::fs::read(&path).expect("read the messages");
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut best = f64::INFINITY;
    let mut clusters = 0;
    let cpu_start = cpu_seconds();
    for _ in 0..runs {
        let mut c = annotail::unknown::Clusterer::default();
        let t = Instant::now();
        for l in &lines {
            std::hint::black_box(c.observe(l).map(|s| s.id));
        }
        best = best.min(t.elapsed().as_secs_f64());
        clusters = c.alive();
    }
    let cpu = (cpu_seconds() - cpu_start) / runs as f64;
    let mb = data.len() as f64 / 1e6;
    println!(
        "{{\"lines\": {}, \"bytes\": {}, \"seconds\": {best:.4}, \"mb_s\": {:.1}, \"cpu_seconds\": {cpu:.4}, \"cpu_mb_s\": {:.1}, \"clusters\": {clusters}}}",
        lines.len(),
        data.len(),
        mb / best,
        mb / cpu
    );
}
