//! The core stage: bytes of one input in, annotated events out to a [`Writer`], with its counts.
//!
//! Owns the synchronous middle of the pipeline for one input: a [`Framer`] (lines, events,
//! the prefilter) feeding an [`Annotator`] (layout, confirmation, ranking, repeats, unknown
//! clusters) that hands each event to the writer, and the counts of both ([`Totals`]). Every
//! driver — standard input, whole files, the workers of a parallel read, each followed file —
//! and the in-process tools (`check`, `explain`, `stats`, `report`, `discover`) run it the same
//! way, built from one [`Setup`].
//!
//! Contract: [`Stage::feed`] any bytes (cut anywhere, a line may span calls), [`Stage::idle`]
//! when the input pauses (a pending event is complete), [`Stage::finish`] at the input's end.
//! The writer's [`crate::event::Flow`] is kept: once it says stop, [`Stage::stopped`] is true,
//! nothing more is annotated, and the driver stops reading. No I/O and no tokio here: the
//! driver owns reading, timers and the writer's output.

use std::sync::Arc;
use std::time::SystemTime;

use crate::annotate::{Annotator, Emit, SourceMeta};
use crate::counts::Totals;
use crate::event::Writer;
use crate::framing::{self, Framer};
use crate::matcher::Matcher;
use crate::metrics::{Metrics, Tally};

/// What every stage of a run shares: which events are wanted and what is counted where.
#[derive(Debug, Clone)]
pub struct Setup {
    pub emit: Emit,
    /// Every event goes to the writer (`--all`, or a writer that echoes every line).
    pub every_event: bool,
    pub framing: framing::Limits,
    /// Matches per record (`--summary`, metrics); none when nobody asks.
    pub tally: Option<Arc<Tally>>,
    /// Repeats and incidents (counted in `tally`; pretty output's collapse).
    pub incidents: Option<Arc<crate::repeat::Incidents>>,
    /// `--unknown`: the run's clusterer; none when off.
    pub unknown: Option<crate::unknown::Shared>,
    /// Where unknown events are counted per level; none when nobody asks.
    pub metrics: Option<Arc<Metrics>>,
}

impl Setup {
    /// Every event to the writer, nothing counted beside the stage's own totals: what the
    /// in-process tools (`check`, `explain`, `stats`) run one event or sample at a time.
    pub fn every_event() -> Setup {
        Setup {
            emit: Emit::All,
            every_event: true,
            framing: framing::Limits::default(),
            tally: None,
            incidents: None,
            unknown: None,
            metrics: None,
        }
    }

    fn levels(&self) -> crate::unknown::Levels {
        self.unknown.as_ref().map_or(crate::unknown::Levels::Off, |u| u.levels)
    }
}

/// Framing and annotation of one input into `W`.
pub struct Stage<'m, W: Writer> {
    framer: Framer<'m>,
    ann: Annotator<'m, W>,
}

impl<'m, W: Writer> Stage<'m, W> {
    pub fn new(matcher: &'m Matcher, setup: &Setup, writer: W, meta: SourceMeta) -> Self {
        let framer = Framer::new(matcher, setup.framing, setup.every_event).with_levels(setup.levels());
        let mut ann = Annotator::new(matcher, setup.emit, writer, meta);
        ann.tally = setup.tally.clone();
        ann.incidents = setup.incidents.clone();
        ann.unknown = setup.unknown.clone();
        ann.unknown_metrics = setup.metrics.clone();
        Stage { framer, ann }
    }

    /// The input starts at byte `offset`, after `lines` lines (a resumed file, a segment).
    pub fn starting_at(mut self, offset: u64, lines: u64) -> Self {
        self.framer.start_at(offset, lines);
        self
    }

    /// Bytes read at `now` (the events' `observed` time).
    pub fn feed(&mut self, bytes: &[u8], now: SystemTime) {
        self.ann.set_observed(now);
        self.framer.feed(bytes, &mut self.ann);
    }

    /// The input paused: a pending event is complete.
    pub fn idle(&mut self) {
        self.framer.idle(&mut self.ann);
    }

    /// A last line without its line break has waited long enough: it ends as it is.
    pub fn end_partial_line(&mut self) {
        self.framer.end_partial_line(&mut self.ann);
    }

    /// The input ended: complete the last event.
    pub fn finish(&mut self) {
        self.framer.finish(&mut self.ann);
    }

    /// The writer said stop.
    pub fn stopped(&self) -> bool {
        self.ann.stopped()
    }

    /// The counts of this input so far.
    pub fn totals(&self) -> Totals {
        Totals::new(self.framer.stats, self.ann.counters)
    }

    pub fn framer(&self) -> &Framer<'m> {
        &self.framer
    }

    pub fn annotator(&mut self) -> &mut Annotator<'m, W> {
        &mut self.ann
    }

    pub fn writer(&mut self) -> &mut W {
        self.ann.writer()
    }
}
