//! Rendering for several sinks at once: each event in every format a sink asks for, with its
//! boundaries and severity, so that a sink can filter by severity and frame events (syslog)
//! without parsing what was rendered.

pub use crate::catalog::Severity;
use crate::event::{Annotated, Flow, Format, OutWriter, Style, Writer};

/// Events of a batch, rendered in each needed format.
#[derive(Debug, Default)]
pub struct Rendered {
    pub formats: Vec<Style>,
    /// Per format: the rendered events, one after another.
    pub bufs: Vec<Vec<u8>>,
    /// Per format: where each event ends in its buffer.
    pub ends: Vec<Vec<usize>>,
    pub severity: Vec<Severity>,
    /// Per event: how many bytes at the start of its pretty rendering are the event's own lines
    /// (the rest is the annotation), so that a pretty sink's severity filter can show the lines
    /// of an event below it without the annotation: pretty output never hides a line.
    pub plain: Vec<usize>,
    /// Per event, when a sink dedupes ([`MultiWriter::keep_meta`]): what its key is made of,
    /// its `@timestamp` and `event_id`; empty otherwise.
    pub meta: Vec<EventMeta>,
}

/// What a sink's `dedupe` needs of an event without parsing it again.
#[derive(Debug, Clone)]
pub struct EventMeta {
    /// `None`: nothing matched and nothing was clustered; such an event is never a repeat.
    pub parts: Option<crate::repeat::Parts>,
    pub timestamp: Box<str>,
    pub event_id: Option<u64>,
}

impl Rendered {
    pub fn new(formats: &[Style]) -> Rendered {
        Rendered {
            formats: formats.to_vec(),
            bufs: vec![Vec::new(); formats.len()],
            ends: vec![Vec::new(); formats.len()],
            severity: Vec::new(),
            plain: Vec::new(),
            meta: Vec::new(),
        }
    }

    /// Add one event already rendered in format slot 0 (the only one): a sink's own events.
    pub fn push(&mut self, bytes: &[u8], severity: Severity) {
        self.bufs[0].extend_from_slice(bytes);
        for f in 0..self.formats.len() {
            self.ends[f].push(self.bufs[f].len());
        }
        self.severity.push(severity);
        self.plain.push(0);
    }

    /// No events, the buffers' capacity kept.
    pub fn clear(&mut self) {
        self.bufs.iter_mut().for_each(Vec::clear);
        self.ends.iter_mut().for_each(Vec::clear);
        self.severity.clear();
        self.plain.clear();
        self.meta.clear();
    }

    pub fn events(&self) -> usize {
        self.severity.len()
    }

    pub fn bytes(&self) -> usize {
        self.bufs.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.severity.is_empty()
    }

    /// Move `other`'s events to the end of this one (same formats).
    pub fn append(&mut self, other: &mut Rendered) {
        for f in 0..self.formats.len() {
            let base = self.bufs[f].len();
            self.ends[f].extend(other.ends[f].iter().map(|e| e + base));
            self.bufs[f].extend_from_slice(&other.bufs[f]);
            other.bufs[f].clear();
            other.ends[f].clear();
        }
        self.severity.append(&mut other.severity);
        self.plain.append(&mut other.plain);
        self.meta.append(&mut other.meta);
    }

    /// Event `i` in format slot `f`.
    pub fn event(&self, f: usize, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[f][i - 1] };
        &self.bufs[f][start..self.ends[f][i]]
    }
}

/// A [`Writer`] that renders into a [`Rendered`].
pub struct MultiWriter {
    writers: Vec<OutWriter<std::io::Sink>>,
    pub out: Rendered,
    /// Events without a match are wanted (`--all`); otherwise only pretty output shows them.
    all: bool,
    /// Fill [`Rendered::meta`]: some sink dedupes.
    pub keep_meta: bool,
}

impl MultiWriter {
    pub fn new(formats: &[Style], all: bool, color: bool, width: usize) -> MultiWriter {
        MultiWriter {
            writers: formats
                .iter()
                .map(|f| OutWriter::memory(Vec::new(), f.format, color, width).with_shape(f.shape.clone()))
                .collect(),
            out: Rendered::new(formats),
            all,
            keep_meta: false,
        }
    }

    fn close_event(&mut self, severity: Severity, only_pretty: bool, plain: usize) {
        for (f, w) in self.writers.iter_mut().enumerate() {
            if !only_pretty || w.format() == Format::Pretty {
                w.move_rendered(&mut self.out.bufs[f]);
            }
            self.out.ends[f].push(self.out.bufs[f].len());
        }
        self.out.severity.push(severity);
        self.out.plain.push(plain);
    }
}

impl Writer for MultiWriter {
    fn echoes_lines(&self) -> bool {
        self.writers.iter().any(|w| w.echoes_lines())
    }

    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow {
        let severity = ev
            .found
            .first()
            .map(|f| ev.matcher.entries[f.entry as usize].rec.severity)
            .or(ev.unknown.map(|u| u.severity))
            .unwrap_or(Severity::None);
        let only_pretty = severity == Severity::None && !self.all;
        for w in &mut self.writers {
            if !only_pretty || w.format() == Format::Pretty {
                w.annotated(ev);
            }
        }
        if self.keep_meta {
            use crate::repeat::Parts;
            // An event no record explains is keyed by its cluster, as pretty output collapses
            // it; a known error over an unknown cause, by both (see [`Parts::with_cause`]).
            let parts = match (Parts::of(ev), &ev.unknown) {
                (Some(p), Some(u)) => Some(p.with_cause(u.cluster)),
                (Some(p), None) => Some(p),
                (None, Some(u)) => Some(Parts::of_unknown(ev, u.cluster, u.severity)),
                (None, None) => None,
            };
            self.out.meta.push(EventMeta { parts, timestamp: ev.timestamp.into(), event_id: ev.event_id });
        }
        // `write_pretty` starts with the event's lines and a line break.
        self.close_event(severity, only_pretty, ev.raw.len() + 1);
        // In-memory writers never fail: whether to go on is the sinks' to say.
        Flow::Go
    }

    fn unmatched(&mut self, bytes: &[u8]) -> Flow {
        for w in &mut self.writers {
            if w.format() == Format::Pretty {
                w.unmatched(bytes);
            }
        }
        if self.keep_meta {
            self.out.meta.push(EventMeta { parts: None, timestamp: "".into(), event_id: None });
        }
        self.close_event(Severity::None, true, bytes.len() + 1);
        Flow::Go
    }

    fn flush(&mut self) {}

    fn error(&self) -> Option<&std::io::Error> {
        None
    }
}
