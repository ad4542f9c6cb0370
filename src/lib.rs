//! annotail reads log streams and annotates the lines that are known errors.
//!
//! The pipeline (ARCHITECTURE.md draws it): a **source** ([`source`]: standard input, whole
//! files, parallel segments, files followed as a daemon) feeds bytes to the **core stage**
//! ([`stage::Stage`]), which frames them ([`framing::Framer`]: lines, multi-line events, log
//! layouts, the **prefilter** over whole blocks) and hands complete events to **annotate**
//! ([`annotate::Annotator`]): the layout parsed, candidates **confirmed** by the
//! [`matcher::Matcher`], ranked, **enriched** with the record's fields and passed to a
//! **writer** ([`event::Writer`]) — rendered output ([`event::OutWriter`]), the [`sink`]s to log
//! shippers, or an in-process collector ([`stats`], [`report`], [`discover`]). Around it:
//! [`metrics`] (the Prometheus endpoint), [`summary`], [`counts`] and [`status`].
//!
//! ```no_run
//! use annotail::{annotate, catalog, event, matcher, source};
//! let cat = catalog::load(&[]); // the embedded catalog
//! let (m, _problems) = matcher::Matcher::new(cat, matcher::Limits::default());
//! let mut out = event::OutWriter::new(std::io::stdout(), event::Format::Json, false, 80);
//! let mut cfg = source::RunConfig::collecting(vec!["meta.log".into()], Default::default());
//! cfg.stage.emit = annotate::Emit::Matches;
//! source::run(&m, &cfg, &mut out).unwrap();
//! ```

pub mod annotate;
pub mod catalog;
pub mod check;
pub mod config;
pub mod counts;
pub mod discover;
pub mod event;
pub mod framing;
pub mod matcher;
pub mod metrics;
pub mod source;
pub mod stage;
pub mod repeat;
pub mod sink;
pub mod stats;
pub mod status;
pub mod report;
pub mod summary;
pub mod unknown;

/// Items per thread when `len` items are split over the cores available, at most `max_threads`
/// of them, and no thread gets fewer than `min_chunk` (below that a thread's start costs more
/// than it saves). Start-up's parallel stages (catalog parsing, record preparation) share it.
pub(crate) fn chunk_len(len: usize, max_threads: usize, min_chunk: usize) -> usize {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(max_threads);
    len.div_ceil(workers).max(min_chunk)
}
