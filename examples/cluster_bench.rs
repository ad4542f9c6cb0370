//! Clustering alone: `annotail::unknown::Clusterer` fed every line of a file, as drain3 is fed
//! in `benches/unknown/speed.sh` (no framing, parsing or output on either side).
//!
//! Usage: cargo run --release --example cluster_bench -- MESSAGES [RUNS]
//! Prints one JSON object: lines, bytes, the best run's seconds and MB/s, clusters at the end.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: cluster_bench MESSAGES [RUNS]");
    let runs: usize = args.next().map_or(3, |r| r.parse().expect("RUNS is a number"));
    let data = std::fs::read(&path).expect("read the messages");
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut best = f64::INFINITY;
    let mut clusters = 0;
    for _ in 0..runs {
        let mut c = annotail::unknown::Clusterer::default();
        let t = Instant::now();
        for l in &lines {
            std::hint::black_box(c.observe(l).map(|s| s.id));
        }
        best = best.min(t.elapsed().as_secs_f64());
        clusters = c.alive();
    }
    println!(
        "{{\"lines\": {}, \"bytes\": {}, \"seconds\": {best:.4}, \"mb_s\": {:.1}, \"clusters\": {clusters}}}",
        lines.len(),
        data.len(),
        data.len() as f64 / 1e6 / best
    );
}
