//! The whole pipeline on a file, timed in-process after start-up: framing, prefilter,
//! confirmation and JSON output (to nowhere), as `annotail --format json FILE` runs it. Start-up
//! is left out, so runs on a shared machine compare with less noise than whole processes
//! (BENCHMARKS.md). Not a test.
//!
//! `cargo run --release --example scan_bench -- CORPUS CATALOG [THREADS [RUNS [learn]]]`
//! `learn`: the skim learns from the corpus's head first, as the binary does for file input.

use std::time::Instant;

use annotail::annotate::Emit;
use annotail::event::{Format, OutWriter};
use annotail::source::{self, RunConfig};

/// The binary's allocator (huge pages for the tables: see Cargo.toml), so timings match it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = std::path::PathBuf::from(&args[0]);
    let threads: usize = args.get(2).map_or(1, |t| t.parse().expect("THREADS"));
    let runs: usize = args.get(3).map_or(7, |r| r.parse().expect("RUNS"));
    if args.get(4).is_some_and(|a| a == "learn") {
        use std::io::Read;
        let mut head = Vec::new();
        let file = std::fs::File::open(&corpus).expect("open the corpus");
        file.take(annotail::matcher::skim::INPUT_SAMPLE as u64).read_to_end(&mut head).expect("read the corpus");
        annotail::matcher::skim::Rarity::learn_from(head);
    }
    let t = Instant::now();
    let (m, _) =
        annotail::matcher::Matcher::new(annotail::catalog::load(&[args[1].clone().into()]), Default::default());
    let startup = t.elapsed();
    let mut cfg = RunConfig::collecting(vec![corpus.clone()], Default::default());
    cfg.stage.emit = Emit::Matches;
    cfg.threads = threads;
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let mut w = OutWriter::new(std::io::sink(), Format::Json, false, 80);
            let t = Instant::now();
            source::run(&m, &cfg, &mut w).expect("the run");
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let mb = std::fs::metadata(&corpus).expect("corpus").len() as f64 / 1e6;
    println!(
        "start-up {:.0} ms; scan median {:.1} ms, min {:.1} ms ({:.0} MB/s at the median), {runs} runs",
        startup.as_secs_f64() * 1e3,
        times[runs / 2],
        times[0],
        mb / times[runs / 2] * 1e3
    );
}
