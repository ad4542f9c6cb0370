//! annotail reads log streams and annotates the lines that are known errors.
//!
//! The pipeline: a **source** (standard input, files) feeds bytes to **framing**
//! ([`framing::Framer`]: lines, multi-line events, log layouts), which runs the **prefilter**
//! (aho-corasick over the catalog's literals, never a false negative) over whole blocks and hands
//! complete events to **annotate** ([`annotate::Annotator`]), which parses the layout, **confirms**
//! candidate records with their regexes ([`matcher::Matcher`]), ranks them and passes the result
//! with the record's fields (**enrich**) to a **writer** ([`event::Writer`]). Around it:
//! [`follow`] (files followed across rotation, with checkpoints), [`sink`] (outputs to log
//! shippers), [`metrics`] (the Prometheus endpoint), [`summary`], [`stats`] and [`report`] (the
//! incident report page).
//!
//! ```no_run
//! use annotail::{catalog, matcher, pipeline, event, annotate};
//! let cat = catalog::load(&[]); // the embedded catalog
//! let (m, _problems) = matcher::Matcher::new(cat, matcher::Limits::default());
//! let mut out = event::OutWriter::new(std::io::stdout(), event::Format::Json, false, 80);
//! let cfg = pipeline::RunConfig {
//!     paths: vec!["meta.log".into()],
//!     emit: annotate::Emit::Matches,
//!     every_event: false,
//!     threads: 1,
//!     format: event::Format::Json,
//!     color: false,
//!     width: 80,
//!     idle: std::time::Duration::from_millis(100),
//!     framing: Default::default(),
//!     metrics: None,
//!     tally: None,
//!     incidents: None,
//!     unknown: None,
//!     shape: Default::default(),
//! };
//! pipeline::run(&m, &cfg, &mut out).unwrap();
//! ```

pub mod annotate;
pub mod catalog;
pub mod check;
pub mod config;
pub mod counts;
pub mod discover;
pub mod event;
pub mod follow;
pub mod framing;
pub mod matcher;
pub mod metrics;
pub mod pipeline;
pub mod repeat;
pub mod sink;
pub mod stats;
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
