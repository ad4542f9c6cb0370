//! How the prefilter's skim does on a corpus: probes, bitmap passes per group, occurrences.
//! Guides the skim's tuning (BENCHMARKS.md); not a test.
//!
//! `cargo run --release --example skim_stats -- CORPUS [CATALOG] [learn]`
//! `learn`: the skim learns from the corpus's head first, as the binary does for file input.

/// The binary's allocator (huge pages for the tables: see Cargo.toml), so timings match it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let hay = std::fs::read(&args[0]).expect("read the corpus");
    if args.last().is_some_and(|a| a == "learn") {
        args.pop();
        let head = hay[..hay.len().min(annotail::matcher::skim::INPUT_SAMPLE)].to_vec();
        annotail::matcher::skim::Rarity::learn_from(head);
    }
    let paths: Vec<std::path::PathBuf> = args.iter().skip(1).map(Into::into).collect();
    let (m, _) = annotail::matcher::Matcher::new(annotail::catalog::load(&paths), Default::default());
    let st = m.prefilter.skim.probe_stats(&hay);
    let mut top: Vec<(u64, usize)> = st.top.iter().map(|(a, b)| (*a, *b)).collect();
    top.sort_by_key(|t| std::cmp::Reverse(t.1));
    for (g, n) in top.iter().take(25) {
        let (owners, offs) = m.prefilter.skim.owners_of(*g);
        let first =
            m.prefilter.skim.literals_of(*g).first().map(|&l| m.prefilter.literal(l).to_vec()).unwrap_or_default();
        println!(
            "{n:>8} {:?} owners {owners} at {offs} offsets, e.g. {:?}",
            String::from_utf8_lossy(&g.to_le_bytes()),
            String::from_utf8_lossy(&first)
        );
    }
    let mut top: Vec<(u64, usize)> = st.top_short.iter().map(|(a, b)| (*a, *b)).collect();
    top.sort_by_key(|t| std::cmp::Reverse(t.1));
    for (g, n) in top.iter().take(25) {
        println!("{n:>8} short {:?}", String::from_utf8_lossy(&g.to_le_bytes()));
    }
    println!(
        "probes {} long passes {} (in table {}) short passes {} found {}",
        st.probes, st.long_passes, st.long_in_table, st.short_passes, st.found
    );
    println!(
        "pass rate: long {:.2}%, short {:.2}%; occurrences per pass {:.3}",
        100.0 * st.long_passes as f64 / st.probes as f64,
        100.0 * st.short_passes as f64 / st.probes as f64,
        st.found as f64 / (st.long_passes + st.short_passes).max(1) as f64
    );
    // The skim alone, best of five; and the scalar probe on the same literals (on a CPU without
    // AVX2 both lines time the scalar probe).
    let scalar = m.prefilter.skim.to_portable(annotail::matcher::skim::Rarity::shared());
    for (name, skim) in [("skim", &m.prefilter.skim), ("scalar skim", &scalar)] {
        let mut found = Vec::new();
        let best = (0..5)
            .map(|_| {
                found.clear();
                let t = std::time::Instant::now();
                skim.find(&hay, &mut found);
                t.elapsed()
            })
            .min()
            .expect("five runs");
        let mb = hay.len() / 1_000_000;
        println!("{name}: {:.1} ms for {mb} MB ({} occurrences)", best.as_secs_f64() * 1e3, found.len());
    }
    // The whole prefilter (the skim, then aho-corasick for the keys too short for it), best of
    // five, in 4 MiB blocks as files are read.
    let mut hits = Vec::new();
    let mut scratch = Vec::new();
    let best = (0..5)
        .map(|_| {
            hits.clear();
            let t = std::time::Instant::now();
            for block in hay.chunks(4 << 20) {
                m.prefilter.scan_with(block, &mut hits, &mut scratch);
            }
            t.elapsed()
        })
        .min()
        .expect("five runs");
    println!("prefilter: {:.1} ms ({} keys for aho-corasick)", best.as_secs_f64() * 1e3, m.prefilter.unindexed());
    // Which keys occur most, and how many candidates their occurrences make.
    hits.clear();
    m.prefilter.scan_with(&hay, &mut hits, &mut scratch);
    let mut per: rustc_hash::FxHashMap<u32, usize> = Default::default();
    for h in &hits {
        *per.entry(h.literal).or_default() += 1;
    }
    let cands: usize = per.iter().map(|(l, n)| n * m.prefilter.owners(*l).len()).sum();
    println!("key occurrences {} candidates {cands}", hits.len());
    let mut per: Vec<(u32, usize)> = per.into_iter().collect();
    per.sort_by_key(|&(l, n)| std::cmp::Reverse(n * m.prefilter.owners(l).len()));
    for (l, n) in per.iter().take(25) {
        println!(
            "{n:>8} x {:>3} owners {:?}",
            m.prefilter.owners(*l).len(),
            String::from_utf8_lossy(m.prefilter.literal(*l))
        );
    }
    if std::env::var_os("SKIM_SHORT").is_some() {
        for l in 0..m.prefilter.len() as u32 {
            let lit = m.prefilter.literal(l);
            if lit.len() < 12 {
                let n = per.iter().find(|p| p.0 == l).map_or(0, |p| p.1);
                println!("short {:>3} {n:>7} {:?}", lit.len(), String::from_utf8_lossy(lit));
            }
        }
    }
}
