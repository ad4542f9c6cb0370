//! Benchmarks of the three hot stages on shared data: the example meta-node log (repeated to
//! 8 MiB) and the embedded catalog.
//!
//! - `framing`: bytes → lines → events with every event framed (`--all`), with a catalog of
//!   one record, so the prefilter costs nothing;
//! - `prefilter`: the skim and aho-corasick over the whole text, all hits mapped to literals;
//! - `skim`, `skim_portable`: the skim alone, with the probe this CPU runs (AVX2 where present)
//!   and with the portable scalar probe, on the same literals;
//! - `confirm`: candidates → confirmed, captured, ranked matches for the example's error events;
//! - `end_to_end`: framing, prefilter, confirm and JSON output of the matched events.
//!
//! Run with `cargo bench`; `BENCHMARKS.md` has the method and the figures.

use std::hint::black_box;

use annotail::annotate::{Annotator, Emit, SourceMeta};
use annotail::catalog;
use annotail::event::{Format, OutWriter};
use annotail::framing::{self, EventSink, Framer, RawEvent};
use annotail::matcher::skim::Rarity;
use annotail::matcher::{Hay, Limits, Matcher, Scratch};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const LOG: &str = include_str!("../examples/meta.log");

fn corpus() -> Vec<u8> {
    let mut v = Vec::with_capacity(8 << 20);
    while v.len() < 8 << 20 {
        v.extend_from_slice(LOG.as_bytes());
    }
    v
}

struct Count(u64);
impl EventSink for Count {
    fn event(&mut self, ev: RawEvent<'_>) {
        self.0 += u64::from(ev.lines);
    }
}

fn benches(c: &mut Criterion) {
    let data = corpus();
    let full = Matcher::new(catalog::load(&[]), Limits::default()).0;
    let one =
        Matcher::new(catalog::from_text("one", r#"{"id": "x", "errorMessage": "zzqqxxyyzzqq"}"#), Limits::default()).0;

    let mut g = c.benchmark_group("stages");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.sample_size(20);
    g.bench_function("framing", |b| {
        b.iter(|| {
            let mut sink = Count(0);
            let mut fr = Framer::new(&one, framing::Limits::default(), true);
            for chunk in data.chunks(4 << 20) {
                fr.feed(chunk, &mut sink);
            }
            fr.finish(&mut sink);
            black_box(sink.0)
        })
    });
    g.bench_function("prefilter", |b| {
        let mut hits = Vec::new();
        let mut found = Vec::new();
        b.iter(|| {
            hits.clear();
            for chunk in data.chunks(4 << 20) {
                full.prefilter.scan_with(chunk, &mut hits, &mut found);
            }
            black_box(hits.len())
        })
    });
    // The skim alone, with the probe this CPU runs (AVX2 where present) and with the portable one.
    let scalar = full.prefilter.skim.to_portable(Rarity::shared());
    for (name, skim) in [("skim", &full.prefilter.skim), ("skim_portable", &scalar)] {
        g.bench_function(name, |b| {
            let mut found = Vec::new();
            b.iter(|| {
                found.clear();
                for chunk in data.chunks(4 << 20) {
                    skim.find(chunk, &mut found);
                }
                black_box(found.len())
            })
        });
    }
    g.bench_function("end_to_end", |b| {
        b.iter(|| {
            let mut out = OutWriter::new(std::io::sink(), Format::Json, false, 80);
            let mut ann = Annotator::new(&full, Emit::Matches, &mut out, SourceMeta::stdin());
            let mut fr = Framer::new(&full, framing::Limits::default(), false);
            for chunk in data.chunks(4 << 20) {
                fr.feed(chunk, &mut ann);
            }
            fr.finish(&mut ann);
            black_box(ann.counters.matched)
        })
    });
    g.finish();

    // Confirm: the example's lines that hold a known error, each with its candidates.
    let lines: Vec<&str> = LOG.lines().filter(|l| l.contains(" WARN ") || l.contains("ERROR")).collect();
    let mut scratch = Scratch::default();
    let mut g = c.benchmark_group("confirm");
    g.throughput(Throughput::Elements(lines.len() as u64));
    g.bench_function("warn_error_lines", |b| {
        let mut hits = Vec::new();
        b.iter(|| {
            let mut n = 0;
            for l in &lines {
                hits.clear();
                full.scan(l.as_bytes(), &mut hits, &mut scratch);
                full.candidates(hits.iter().map(|h| h.literal), &mut scratch);
                full.confirm(&[Hay::plain(l.as_bytes())], &mut scratch);
                n += scratch.found.len();
            }
            black_box(n)
        })
    });
    g.finish();
}

criterion_group!(stages, benches);
criterion_main!(stages);
