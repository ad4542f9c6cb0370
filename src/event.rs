//! Output events: the `annotail/1` JSON schema, its ECS rendering, the OTLP log record, and the
//! pretty terminal view.
//!
//! Owns serialisation only: an [`Annotated`] event borrows everything from the annotate stage
//! and a [`Writer`] turns it into bytes. Text is kept as bytes until here; invalid UTF-8 is
//! replaced (U+FFFD) in output only. Writers buffer; the pipeline flushes after each read and on
//! idle, so a streamed event reaches its reader as soon as it is complete. A write error (a closed
//! pipe) is kept and reported by [`Writer::error`]; later writes are dropped.
//!
//! Shaping ([`Shape`]): which of a matched record's fields an event carries (`record_fields`) and
//! the largest an event may be (`max_event_bytes`, cut by [`fit`] so that it stays valid JSON).
//! Every event names the host it was read on ([`host`]).

use std::borrow::Cow;
use std::io::{self, Write};

use serde_json::Value;

use crate::matcher::{Found, Hay, Matcher};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One `annotail/1` JSON object per line.
    Json,
    /// One Elastic Common Schema JSON object per line.
    Ecs,
    /// Every line as it came, with a coloured annotation under each known error.
    Pretty,
    /// An OTLP `ResourceLogs` (protobuf) per event: what an `otlp+http(s)://` sink sends. Not a
    /// user-facing format: those sinks choose it themselves.
    #[value(skip)]
    #[serde(skip_deserializing)]
    Otlp,
}

/// A rendering a writer produces: its format and its shaping. Sinks that want the same rendering
/// share one slot of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    pub format: Format,
    pub shape: std::sync::Arc<Shape>,
}

impl Style {
    pub fn new(format: Format, shape: std::sync::Arc<Shape>) -> Style {
        Style { format, shape }
    }
    /// Every field, no size bound: the library's default (what annotail wrote before shaping).
    pub fn full(format: Format) -> Style {
        Style { format, shape: std::sync::Arc::new(Shape::all()) }
    }
}

/// What an event carries of its record, and how large it may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    pub fields: RecordFields,
    /// Largest event in bytes (its JSON, without the line break; for OTLP its encoded record);
    /// a larger one is cut by [`fit`].
    pub max_event_bytes: Option<usize>,
}

impl Shape {
    pub fn all() -> Shape {
        Shape { fields: RecordFields::All, max_event_bytes: None }
    }
}

impl Default for Shape {
    fn default() -> Shape {
        Shape { fields: RecordFields::default(), max_event_bytes: None }
    }
}

/// The smallest `max_event_bytes` accepted: room for the envelope (schema, times, host, source
/// path, the record's id and slug) once every string is cut.
pub const MIN_EVENT_BYTES: usize = 1024;

/// The `match` fields taken from a record, besides `id`, `slug` and `severity` (always there).
/// `record` is the record's other fields (source code, validation code, examples...), passed
/// through.
pub const RECORD_FIELDS: [&str; 10] = [
    "error_class",
    "template",
    "pattern",
    "solutions",
    "tags",
    "documentation",
    "reference",
    "source_file",
    "source_line",
    "record",
];

/// Which record fields an event carries (`record_fields`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RecordFields {
    /// Every field of [`RECORD_FIELDS`] but `record`: what explains the error and how to fix it,
    /// without the bulky code the catalog keeps (an event for a documented record: 5.5 KB with
    /// them, under 2 KB without).
    #[default]
    Default,
    All,
    /// Only `id`, `slug` and `severity`.
    None,
    /// These names: any of [`RECORD_FIELDS`], or a field of `record` by its catalog name
    /// (`sourceCode`, `triggerScenarios`...), which then appears inside `record`.
    Only(Vec<String>),
}

impl RecordFields {
    /// Parsed from the config's string or list; `Err` says what is wrong.
    pub fn parse(words: &[String], single: bool) -> Result<RecordFields, String> {
        if single {
            return match words[0].as_str() {
                "all" => Ok(RecordFields::All),
                "none" => Ok(RecordFields::None),
                "default" => Ok(RecordFields::Default),
                w => Err(format!("{w:?}: use \"all\", \"none\", \"default\" or a list of field names")),
            };
        }
        for w in words {
            let ok = !w.is_empty() && w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
            if !ok {
                return Err(format!("{w:?} is not a field name"));
            }
        }
        Ok(RecordFields::Only(words.to_vec()))
    }

    /// Whether the `match` field `name` (one of [`RECORD_FIELDS`]) is carried.
    pub fn wants(&self, name: &str) -> bool {
        match self {
            RecordFields::All => true,
            RecordFields::None => false,
            RecordFields::Default => name != "record",
            RecordFields::Only(l) => l.iter().any(|w| w == name),
        }
    }

    /// Fields of `record` named one by one (not through `record` itself).
    fn record_keys(&self) -> Vec<&str> {
        match self {
            RecordFields::Only(l) if !self.wants("record") => {
                l.iter().map(String::as_str).filter(|w| !RECORD_FIELDS.contains(w)).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The machine an event was read on.
#[derive(Debug, Clone)]
pub struct Host {
    /// `NODE_NAME` when set (a DaemonSet's downward API), else the kernel's host name.
    pub name: String,
    /// `NODE_NAME`: the Kubernetes node.
    pub node: Option<String>,
}

/// The host, found once: `NODE_NAME` (a DaemonSet pod's own host name is the pod's, not the
/// node's), else `/proc/sys/kernel/hostname`.
pub fn host() -> &'static Host {
    static HOST: std::sync::OnceLock<Host> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let node = std::env::var("NODE_NAME").ok().map(|n| n.trim().to_owned()).filter(|n| !n.is_empty());
        let machine = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|h| h.trim().to_owned())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".into());
        Host { name: node.clone().unwrap_or(machine), node }
    })
}

/// A field's name and value.
pub type Field<'a> = (Cow<'a, str>, Cow<'a, str>);

/// What the layout says about an event; text borrowed from the event where it can be.
#[derive(Debug, Default, Clone)]
pub struct Log<'a> {
    pub format: &'static str,
    pub level: Option<Cow<'a, str>>,
    pub target: Option<Cow<'a, str>>,
    pub thread: Option<Cow<'a, str>>,
    pub spans: Vec<(Cow<'a, str>, Vec<Field<'a>>)>,
    pub fields: Vec<Field<'a>>,
    pub pod: Option<Cow<'a, str>>,
    pub namespace: Option<Cow<'a, str>>,
    pub container: Option<Cow<'a, str>>,
    pub stream: Option<Cow<'a, str>>,
    /// For `format: cri`, the layout of the record's text.
    pub content_format: Option<&'static str>,
    pub truncated: bool,
    pub parse_error: Option<&'static str>,
}

#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub kind: &'static str,
    pub path: Option<&'a str>,
    pub line: u64,
    pub lines: u32,
    pub offset: u64,
}

/// One event ready to write.
pub struct Annotated<'a> {
    pub schema: &'static str,
    /// Stable id of a followed file's event (see [`event_id`]); `None` for other inputs.
    pub event_id: Option<u64>,
    pub timestamp: &'a str,
    pub observed: &'a str,
    pub source: Source<'a>,
    pub message: &'a [u8],
    /// The event's physical lines as read.
    pub raw: &'a [u8],
    pub log: &'a Log<'a>,
    pub matcher: &'a Matcher,
    pub found: &'a [Found],
    /// Matches that are context, not what the event reports: found only in a span field of a
    /// line below WARN (the span repeats an error logged elsewhere).
    pub context: &'a [Found],
    pub caps: &'a [Option<(usize, usize)>],
    pub hays: &'a [Hay<'a>],
    /// The field of each of `found`, then of each of `context`.
    pub match_fields: &'a [String],
    /// Per match: whether it opens an incident or repeats one ([`crate::repeat`]); empty when
    /// repeats are not collapsed.
    pub seen: &'a [crate::repeat::Seen],
    /// The cluster of the text no record explains (`--unknown`). With `unknown_slot`, its text
    /// and severity only: the cluster, template and count are not known yet (0, empty, 0).
    pub unknown: Option<Unknown<'a>>,
    /// The event has text no record explains, to be clustered later, in input order, by the
    /// reader of a parallel read: JSON output records where its `unknown` object goes, ECS
    /// output keeps the whole event to be completed there ([`OutWriter::mark_unknowns`],
    /// [`splice_segment`]), instead of writing them.
    pub unknown_slot: bool,
}

/// The `unknown` object of an event: the cluster the unexplained text joined.
#[derive(Debug, Clone, Copy)]
pub struct Unknown<'a> {
    pub cluster: u64,
    pub template: &'a str,
    /// Events of the cluster so far, this one included.
    pub count: u64,
    /// The text that was clustered.
    pub text: &'a [u8],
    /// From the event's level: what a sink's severity filter sees.
    pub severity: crate::catalog::Severity,
}

impl Annotated<'_> {
    /// The captures keyed as the template names them (`_N` for positional placeholders).
    pub(crate) fn captures(&self, f: &Found) -> Vec<(&str, Cow<'_, str>)> {
        self.captures_as(f, &self.matcher.entries[f.entry as usize].names)
    }

    /// The captures with positional placeholders named from the record's source code, where
    /// they could be (see [`crate::matcher::Entry::named`]); `None` when none could.
    pub(crate) fn named_captures(&self, f: &Found) -> Option<Vec<(&str, Cow<'_, str>)>> {
        self.matcher.entries[f.entry as usize].named.as_deref().map(|n| self.captures_as(f, n))
    }

    /// The captures for display: named where they could be.
    pub(crate) fn display_captures(&self, f: &Found) -> Vec<(&str, Cow<'_, str>)> {
        self.named_captures(f).unwrap_or_else(|| self.captures(f))
    }

    fn captures_as<'s>(&'s self, f: &Found, names: &'s [String]) -> Vec<(&'s str, Cow<'s, str>)> {
        let text = self.hays[f.hay as usize].text;
        let mut out: Vec<(&str, Cow<'_, str>)> = Vec::new();
        for (i, c) in self.caps[f.caps.0 as usize..f.caps.1 as usize].iter().enumerate() {
            if let (Some((s, t)), Some(name)) = (c, names.get(i))
                && !out.iter().any(|(n, _)| n == name)
            {
                out.push((name.as_str(), self::text(&text[*s..*t - sqlstate_suffix(&text[*s..*t])])));
            }
        }
        out
    }
}

/// The length of the ` (SQLSTATE XX000)` a PostgreSQL client library writes after a server's
/// error message (Go's pgx: `ERROR: table or source not found: t (SQLSTATE XX000)`) at the end
/// of `t`, 0 when there is none: not the server's text, neither a capture's value (a trailing
/// capture took it) nor an error no record knows (it was clustered as `(SQLSTATE <*>)` after
/// every known error; found by a developer's reading).
#[inline]
pub fn sqlstate_suffix(t: &[u8]) -> usize {
    // Most texts end in neither `)` nor a blank: one compare (it runs for every piece clustered).
    match t.last() {
        Some(b')') => {}
        Some(b) if b.is_ascii_whitespace() => {}
        _ => return 0,
    }
    const HEAD: &[u8] = b"(SQLSTATE ";
    let end = t.trim_ascii_end();
    let n = HEAD.len() + 6;
    if end.len() < n || !end.ends_with(b")") || !end[end.len() - n..].starts_with(HEAD) {
        return 0;
    }
    let code = &end[end.len() - 6..end.len() - 1];
    if !code.iter().all(u8::is_ascii_alphanumeric) {
        return 0;
    }
    let start = end.len() - n;
    let start = start - end[..start].iter().rev().take_while(|b| b.is_ascii_whitespace()).count();
    t.len() - start
}

/// The id of the event at byte `offset` of the file with fingerprint `fingerprint`: the same
/// event read again (after a restart) gets the same id, so a downstream can drop duplicates.
/// XXH3-64 of both numbers in little-endian order; rendered as 16 hex digits.
pub fn event_id(fingerprint: u64, offset: u64) -> u64 {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&fingerprint.to_le_bytes());
    b[8..].copy_from_slice(&offset.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&b)
}

/// What a writer says after taking an event: go on, or stop reading (its output is gone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Go,
    Stop,
}

impl Flow {
    /// `Stop` once a writer has met an error: nothing more can be written.
    pub fn after(err: &Option<io::Error>) -> Flow {
        if err.is_some() { Flow::Stop } else { Flow::Go }
    }
}

/// Where the core stage ([`crate::stage`]) hands its events: the contract every output, and
/// every in-process collector (`stats`, `report`, `discover`), implements.
pub trait Writer {
    /// The writer shows every line of the input (pretty output): then every event is annotated
    /// or handed to [`Writer::unmatched`], never skipped.
    fn echoes_lines(&self) -> bool {
        false
    }
    /// An annotated event: a known error, an unknown one, or (`--all`, or when the writer echoes
    /// lines) any event.
    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow;
    /// An event no record can explain, as its lines came; only a writer that
    /// [echoes lines](Writer::echoes_lines) is given these.
    fn unmatched(&mut self, _bytes: &[u8]) -> Flow {
        Flow::Go
    }
    fn flush(&mut self);
    /// The first write error, after which nothing more is written.
    fn error(&self) -> Option<&io::Error>;
    /// This writer as one that also takes output rendered elsewhere in its format (what the
    /// workers of a parallel read render); `None` (the default) when it cannot, and files are
    /// then read by one thread.
    fn takes_rendered(&mut self) -> Option<&mut dyn TakesRendered> {
        None
    }
}

/// A writer that also takes bytes other writers of its format rendered.
pub trait TakesRendered: Writer {
    /// The format the bytes must be rendered in.
    fn format(&self) -> Format;
    /// Output already rendered by another writer of the same format (a worker thread's).
    fn rendered(&mut self, bytes: &[u8]);
}

impl<T: Writer + ?Sized> Writer for &mut T {
    fn echoes_lines(&self) -> bool {
        (**self).echoes_lines()
    }
    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow {
        (**self).annotated(ev)
    }
    fn unmatched(&mut self, bytes: &[u8]) -> Flow {
        (**self).unmatched(bytes)
    }
    fn flush(&mut self) {
        (**self).flush()
    }
    fn error(&self) -> Option<&io::Error> {
        (**self).error()
    }
    fn takes_rendered(&mut self) -> Option<&mut dyn TakesRendered> {
        (**self).takes_rendered()
    }
}

/// Buffers bytes for a [`Write`] and keeps the first error.
pub struct OutWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    format: Format,
    color: bool,
    width: usize,
    err: Option<io::Error>,
    /// Rendered static part of each record's `match` object, by entry index.
    cache: Vec<Option<String>>,
    /// OTLP output: the messages reused from one event to the next, and the same cache.
    otlp: crate::sink::otlp::Encoder,
    /// With [`OutWriter::mark_lines`]: where each event's `source.line` digits start in the
    /// rendered buffer, and the line rendered there.
    pub line_marks: Option<Vec<(u64, u64)>>,
    /// With [`OutWriter::mark_unknowns`]: where each event with an [`Annotated::unknown_slot`]
    /// leaves room for its `unknown` object (JSON) or for the whole event (ECS) in the rendered
    /// buffer.
    pub unknown_slots: Option<Vec<u64>>,
    /// ECS output with [`OutWriter::mark_unknowns`]: each slot's event, for [`write_ecs_unknown`]
    /// to complete. Its `unknown` fields sit in several objects (`annotail`, `labels`) of an
    /// object whose keys are sorted, so they are filled in rather than spliced.
    pub unknown_events: Vec<serde_json::Map<String, Value>>,
    /// Made by [`OutWriter::memory`]: the buffer is the output, never flushed.
    keep: bool,
    shape: std::sync::Arc<Shape>,
}

/// Flush the buffer to the output once it holds this much: large enough to amortise the
/// system call, small enough to keep streamed output prompt.
const BUF_FLUSH: usize = 64 << 10;

impl OutWriter<io::Sink> {
    /// A writer that renders into `buf` and keeps it all, for [`OutWriter::take_rendered`]:
    /// events are rendered in place instead of being copied from a staging buffer.
    pub fn memory(buf: Vec<u8>, format: Format, color: bool, width: usize) -> Self {
        OutWriter { keep: true, ..OutWriter::with_buffer(io::sink(), buf, format, color, width) }
    }
}

impl<W: Write> OutWriter<W> {
    pub fn new(out: W, format: Format, color: bool, width: usize) -> Self {
        OutWriter::with_buffer(out, Vec::with_capacity(BUF_FLUSH * 2), format, color, width)
    }

    fn with_buffer(out: W, buf: Vec<u8>, format: Format, color: bool, width: usize) -> Self {
        OutWriter {
            out,
            buf,
            format,
            color,
            width,
            err: None,
            cache: Vec::new(),
            otlp: Default::default(),
            line_marks: None,
            unknown_slots: None,
            unknown_events: Vec::new(),
            keep: false,
            shape: std::sync::Arc::new(Shape::all()),
        }
    }

    /// Render with `shape` (record fields, size bound) instead of every field, unbounded.
    pub fn with_shape(mut self, shape: std::sync::Arc<Shape>) -> Self {
        self.cache.clear();
        self.otlp.clear();
        self.shape = shape;
        self
    }

    /// Record where each event's line number is rendered (JSON, in-memory writers only: the
    /// positions are in the buffer they keep), so that output rendered with line numbers
    /// relative to a segment can be given absolute ones later ([`relocate_lines`]).
    pub fn mark_lines(&mut self) {
        debug_assert_eq!(self.format, Format::Json, "only JSON output is relocated");
        debug_assert!(self.keep, "marks are positions in a kept buffer");
        self.line_marks = Some(Vec::new());
    }

    /// Record where each event's `unknown` object (JSON) or whole event (ECS) is to go
    /// (in-memory writers only), for [`splice_segment`].
    pub fn mark_unknowns(&mut self) {
        debug_assert!(matches!(self.format, Format::Json | Format::Ecs), "only JSON and ECS output are spliced");
        debug_assert!(self.keep, "slots are positions in a kept buffer");
        self.unknown_slots = Some(Vec::new());
    }

    fn maybe_flush(&mut self) {
        if self.buf.len() >= BUF_FLUSH {
            self.flush_buf();
        }
    }

    fn flush_buf(&mut self) {
        if self.keep {
            return;
        }
        if self.err.is_none()
            && let Err(e) = self.out.write_all(&self.buf).and_then(|_| self.out.flush())
        {
            self.err = Some(e);
        }
        self.buf.clear();
    }

    /// The bytes rendered by a writer made with [`OutWriter::memory`], taken out of it.
    pub fn take_rendered(&mut self) -> Vec<u8> {
        debug_assert!(self.keep, "only an in-memory writer keeps its output");
        std::mem::take(&mut self.buf)
    }

    /// Move what an in-memory writer rendered to the end of `dst`; the writer keeps its buffer's
    /// capacity.
    pub fn move_rendered(&mut self, dst: &mut Vec<u8>) {
        debug_assert!(self.keep, "only an in-memory writer keeps its output");
        dst.append(&mut self.buf);
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    pub fn format(&self) -> Format {
        self.format
    }
}

impl<W: Write> Writer for OutWriter<W> {
    fn echoes_lines(&self) -> bool {
        self.format == Format::Pretty
    }

    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow {
        if self.err.is_some() {
            return Flow::Stop;
        }
        match self.format {
            Format::Json => {
                let start = self.buf.len();
                let (mut at, slot) = write_json(&mut self.buf, ev, &mut self.cache, &self.shape.fields);
                // The events of a segment that gets `unknown` objects or line numbers later
                // are bounded by the reader, once those are in ([`splice_segment`]): the bound
                // counts them, and an event is cut once.
                if let Some(max) = self.shape.max_event_bytes
                    && self.buf.len() - start > max
                    && self.line_marks.is_none()
                    && self.unknown_slots.is_none()
                {
                    fit(&mut self.buf, start, max, Format::Json);
                    at = line_digits_at(&self.buf, start);
                }
                if let Some(m) = &mut self.line_marks {
                    m.push((at as u64, ev.source.line));
                }
                if let (Some(m), Some(slot)) = (&mut self.unknown_slots, slot) {
                    m.push(slot as u64);
                }
                self.buf.push(b'\n');
            }
            Format::Ecs if ev.unknown_slot && self.unknown_slots.is_some() => {
                self.unknown_events.push(ecs_value(ev, &self.shape.fields));
                if let Some(m) = &mut self.unknown_slots {
                    m.push(self.buf.len() as u64);
                }
                self.buf.push(b'\n');
            }
            Format::Ecs => {
                let start = self.buf.len();
                write_ecs(&mut self.buf, ev, &self.shape.fields);
                if let Some(max) = self.shape.max_event_bytes
                    && self.buf.len() - start > max
                {
                    fit(&mut self.buf, start, max, Format::Ecs);
                }
                self.buf.push(b'\n');
            }
            Format::Otlp => self.otlp.write_record(&mut self.buf, ev, &self.shape),
            Format::Pretty => write_pretty(&mut self.buf, ev, self.color, self.width),
        }
        self.maybe_flush();
        Flow::after(&self.err)
    }

    fn unmatched(&mut self, bytes: &[u8]) -> Flow {
        if self.err.is_some() {
            return Flow::Stop;
        }
        self.buf.extend_from_slice(bytes);
        self.buf.push(b'\n');
        self.maybe_flush();
        Flow::after(&self.err)
    }

    fn flush(&mut self) {
        self.flush_buf();
    }

    fn error(&self) -> Option<&io::Error> {
        self.err.as_ref()
    }

    fn takes_rendered(&mut self) -> Option<&mut dyn TakesRendered> {
        Some(self)
    }
}

impl<W: Write> TakesRendered for OutWriter<W> {
    fn format(&self) -> Format {
        self.format
    }

    fn rendered(&mut self, bytes: &[u8]) {
        if self.err.is_some() {
            return;
        }
        if self.buf.is_empty() && !self.keep {
            if let Err(e) = self.out.write_all(bytes).and_then(|_| self.out.flush()) {
                self.err = Some(e);
            }
            return;
        }
        self.buf.extend_from_slice(bytes);
        self.maybe_flush();
    }
}

/// Bytes as text: borrowed when they are valid UTF-8 (checked with the fast validator, which
/// `String::from_utf8_lossy` does not use), invalid sequences replaced otherwise.
pub fn text(v: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(v) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(v),
    }
}

/// Does any byte of `v` need a JSON escape (`"`, `\`, a control character), or, with
/// `non_ascii`, lie above 0x7f? Eight bytes a step as one `u64` (the classic "has a zero byte" and
/// "has a byte below n" tricks, exact as a yes or no): the byte-wise fold this replaced did not
/// vectorise on the short strings of an event and cost about 2.7 instructions a byte, 540 an
/// event at `--unknown any` (callgrind).
#[inline]
fn needs_escape(v: &[u8], non_ascii: bool) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let high = if non_ascii { HI } else { 0 };
    let flags = |x: u64| {
        let zero = |y: u64| y.wrapping_sub(LO) & !y & HI;
        (x.wrapping_sub(LO * 0x20) & !x & HI)
            | zero(x ^ (LO * u64::from(b'"')))
            | zero(x ^ (LO * u64::from(b'\\')))
            | (x & high)
    };
    let n = v.len();
    let word = |i: usize| u64::from_le_bytes(v[i..i + 8].try_into().expect("8 bytes"));
    // The tail is read as words that overlap what was already read (a yes or no does not mind
    // a byte looked at twice), never byte by byte: the byte loop over the last 1 to 7 bytes of
    // each of an event's eight or so strings cost more than their whole words (callgrind).
    // Every byte of a word is one of `v`'s: a padding byte would itself be a control character.
    let any = if n >= 8 {
        let mut any = 0;
        let mut i = 0;
        while i + 8 <= n {
            any |= flags(word(i));
            i += 8;
        }
        if i < n {
            any |= flags(word(n - 8));
        }
        any
    } else if n >= 4 {
        let half = |i: usize| u64::from(u32::from_le_bytes(v[i..i + 4].try_into().expect("4 bytes")));
        flags(half(0) | half(n - 4) << 32)
    } else if n > 0 {
        let x = u64::from(v[0]) | u64::from(v[n / 2]) << 8 | u64::from(v[n - 1]) << 16;
        flags(x | x << 24 | (x & 0xffff) << 48)
    } else {
        0
    };
    any != 0
}

/// A JSON string. Log text rarely needs escaping: a string without `"`, `\` or control
/// characters is copied as it is; others go through serde_json.
#[inline]
fn s(out: &mut Vec<u8>, v: &str) {
    if !needs_escape(v.as_bytes(), false) {
        quoted(out, v.as_bytes());
    } else {
        serde_json::to_writer(&mut *out, v).expect("writing to a Vec cannot fail");
    }
}

fn b(out: &mut Vec<u8>, v: &[u8]) {
    // Printable ASCII without `"` or `\` (most messages) is valid UTF-8 that needs no escape:
    // one pass decides both, where the UTF-8 check and then the escape check were two.
    if !needs_escape(v, true) {
        quoted(out, v);
    } else {
        s(out, &text(v));
    }
}

#[inline]
fn key(out: &mut Vec<u8>, k: &str) {
    s(out, k);
    out.push(b':');
}

/// `v` as 16 lowercase hex digits (what `{:016x}` writes): `format!` cost about 500
/// instructions an event with `--unknown any`, in its machinery more than in the digits.
fn hex16(out: &mut Vec<u8>, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.extend((0..16).rev().map(|i| DIGITS[(v >> (4 * i)) as usize & 15]));
}

#[inline]
fn num(out: &mut Vec<u8>, n: u64) {
    // Formats on the stack: `to_string` allocated for every number of every event.
    out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// A string annotail itself chose (a schema name, a format, a key of its own): written without
/// the escape check, which costs a call and a pass per string, several times per event.
#[inline]
fn known(out: &mut Vec<u8>, v: &'static str) {
    debug_assert!(!v.bytes().any(|c| c < 0x20 || c == b'"' || c == b'\\'), "{v:?} needs escaping");
    quoted(out, v.as_bytes());
}

/// `v` between quotes, as it is: the caller knows it needs no escape.
// This and the other small writers are inlined: as calls, about eight an event, they cost 11.5 M
// of 761 M instructions at `--unknown any` on the peers corpus's first 10 MB.
#[inline]
fn quoted(out: &mut Vec<u8>, v: &[u8]) {
    out.reserve(v.len() + 2);
    out.push(b'"');
    out.extend_from_slice(v);
    out.push(b'"');
}

#[inline]
fn opt(out: &mut Vec<u8>, k: &'static str, v: Option<&str>, first: &mut bool) {
    if let Some(v) = v {
        if !*first {
            out.push(b',');
        }
        *first = false;
        known(out, k);
        out.push(b':');
        s(out, v);
    }
}

/// A JSON object of string values.
fn pairs<K: AsRef<str>, V: AsRef<str>>(out: &mut Vec<u8>, kv: &[(K, V)]) {
    out.push(b'{');
    for (i, (k, v)) in kv.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        key(out, k.as_ref());
        s(out, v.as_ref());
    }
    out.push(b'}');
}

/// The parts of a `match` object that depend only on the record.
fn record_static(m: &Matcher, idx: u32, fields: &RecordFields) -> String {
    let e = &m.entries[idx as usize];
    let r = &e.rec;
    let w = |k: &str| fields.wants(k);
    // Sized for a typical record (400 to 600 bytes): growing from empty cost six copies.
    let mut out = Vec::with_capacity(1024);
    key(&mut out, "id");
    s(&mut out, &r.id);
    let mut first = false;
    opt(&mut out, "slug", r.slug(), &mut first);
    out.push(b',');
    key(&mut out, "severity");
    // As the catalog read it (`Warn` and `WARNING` are `warning`), as every other output says
    // it: the record's spelling gave a dashboard five severities (found by a catalog keeper).
    s(&mut out, r.severity.name());
    opt(&mut out, "error_class", r.str_field("errorClass").filter(|_| w("error_class")), &mut first);
    opt(&mut out, "template", r.template.as_deref().filter(|_| w("template")), &mut first);
    if w("pattern") {
        out.push(b',');
        key(&mut out, "pattern");
        s(&mut out, r.pattern.as_deref().unwrap_or(&e.forms.regex));
    }
    for k in ["solutions", "tags"] {
        if let Some(v) = r.list(k).filter(|_| w(k)) {
            out.push(b',');
            key(&mut out, k);
            out.extend_from_slice(v.get().as_bytes());
        }
    }
    opt(&mut out, "documentation", r.str_field("documentation").filter(|_| w("documentation")), &mut first);
    opt(&mut out, "reference", r.str_field("githubUrl").filter(|_| w("reference")), &mut first);
    opt(&mut out, "source_file", r.str_field("filePath").filter(|_| w("source_file")), &mut first);
    if let Some(n) = r.source_line.filter(|_| w("source_line")) {
        out.push(b',');
        key(&mut out, "source_line");
        num(&mut out, n);
    }
    // Everything else the record holds, passed through under its own name: whole, or the
    // fields named one by one.
    if let Some(others) = r.other_fields() {
        let keys = fields.record_keys();
        if w("record") {
            out.push(b',');
            key(&mut out, "record");
            out.extend_from_slice(others.as_bytes());
        } else if !keys.is_empty()
            && let Ok(all) =
                serde_json::from_str::<std::collections::BTreeMap<String, Box<serde_json::value::RawValue>>>(others)
        {
            let some: std::collections::BTreeMap<&String, &Box<serde_json::value::RawValue>> =
                all.iter().filter(|(k, _)| keys.contains(&k.as_str())).collect();
            if !some.is_empty() {
                out.push(b',');
                key(&mut out, "record");
                serde_json::to_writer(&mut out, &some).expect("writing to a Vec cannot fail");
            }
        }
    }
    String::from_utf8(out).expect("JSON is UTF-8")
}

fn span(out: &mut Vec<u8>, f: &Found) {
    out.push(b'[');
    num(out, f.start as u64);
    out.push(b',');
    num(out, f.end as u64);
    out.push(b']');
}

/// Copy JSON output rendered with line numbers relative to a segment into `to`, each line number
/// (at the `marks` [`OutWriter::mark_lines`] recorded) raised by `base`.
pub fn relocate_lines(rendered: &[u8], marks: &[(u64, u64)], base: u64, max: Option<usize>, to: &mut Vec<u8>) {
    splice_segment(rendered, marks, base, &[], |_, _| unreachable!("no slots"), max, to);
}

/// Copy a parallel read's segment of JSON output into `to`: each line number (at `marks`, see
/// [`relocate_lines`]) raised by `base`, and at each of `slots` ([`OutWriter::mark_unknowns`],
/// in the order they were recorded) what `unknown(i, to)` writes for the `i`th: the event's
/// `unknown` object, rendered as [`write_json`] renders it ([`write_unknown_object`]). With
/// `max` (JSON's `--max-event-bytes`), each event is then cut to fit as [`OutWriter`] cuts the
/// event of one reader: whole, with its line number and `unknown` object, once. (The workers
/// leave that to here: a relative line number has fewer digits than the absolute one, which
/// moved events over the bound and `truncated.original_bytes` by a few bytes.)
pub fn splice_segment(
    rendered: &[u8],
    marks: &[(u64, u64)],
    base: u64,
    slots: &[u64],
    mut unknown: impl FnMut(usize, &mut Vec<u8>),
    max: Option<usize>,
    to: &mut Vec<u8>,
) {
    to.reserve(rendered.len() + marks.len() * 4 + slots.len() * 96);
    let began = to.len();
    let (mut from, mut m, mut k) = (0, 0, 0);
    loop {
        let line = marks.get(m).map(|&(at, _)| at);
        let slot = slots.get(k).copied();
        match (line, slot) {
            (Some(at), s) if s.is_none_or(|s| at < s) => {
                let (at, line) = (at as usize, marks[m].1);
                let mut digits = itoa::Buffer::new();
                let old = digits.format(line).len();
                debug_assert_eq!(&rendered[at..at + old], digits.format(line).as_bytes());
                to.extend_from_slice(&rendered[from..at]);
                num(to, line + base);
                from = at + old;
                m += 1;
            }
            (_, Some(at)) => {
                let at = at as usize;
                to.extend_from_slice(&rendered[from..at]);
                unknown(k, to);
                from = at;
                k += 1;
            }
            (None, None) => break,
            (Some(_), None) => unreachable!("the first arm takes a line mark with no slot left"),
        }
    }
    to.extend_from_slice(&rendered[from..]);
    if let Some(max) = max
        && to[began..].split(|&b| b == b'\n').any(|e| e.len() > max)
    {
        let spliced = to.split_off(began);
        for e in spliced.split_inclusive(|&b| b == b'\n') {
            let start = to.len();
            to.extend_from_slice(e.strip_suffix(b"\n").unwrap_or(e));
            if to.len() - start > max {
                fit(to, start, max, Format::Json);
            }
            if e.ends_with(b"\n") {
                to.push(b'\n');
            }
        }
    }
}

/// An event's `unknown` object as [`write_json`] renders it, with its leading comma.
pub fn write_unknown_object(out: &mut Vec<u8>, cluster: u64, template: &str, count: u64) {
    out.extend_from_slice(b",\"unknown\":{\"cluster\":\"");
    hex16(out, cluster);
    out.extend_from_slice(b"\",\"template\":");
    s(out, template);
    out.extend_from_slice(b",\"count\":");
    num(out, count);
    out.push(b'}');
}

/// Render `ev` as one `annotail/1` JSON object; returns where `source.line`'s digits start, and
/// (for an [`Annotated::unknown_slot`]) where its `unknown` object is to go.
pub fn write_json(
    out: &mut Vec<u8>,
    ev: &Annotated<'_>,
    cache: &mut Vec<Option<String>>,
    fields: &RecordFields,
) -> (usize, Option<usize>) {
    out.extend_from_slice(b"{\"schema\":");
    known(out, ev.schema);
    if let Some(id) = ev.event_id {
        out.extend_from_slice(b",\"event_id\":\"");
        hex16(out, id);
        out.push(b'"');
    }
    out.extend_from_slice(b",\"@timestamp\":");
    s(out, ev.timestamp);
    out.extend_from_slice(b",\"observed\":");
    s(out, ev.observed);
    out.extend_from_slice(b",\"host\":{\"name\":");
    s(out, &host().name);
    out.push(b'}');
    out.extend_from_slice(b",\"source\":{\"kind\":");
    known(out, ev.source.kind);
    if let Some(p) = ev.source.path {
        out.extend_from_slice(b",\"path\":");
        s(out, p);
    }
    out.extend_from_slice(b",\"line\":");
    let line_at = out.len();
    num(out, ev.source.line);
    out.extend_from_slice(b",\"lines\":");
    num(out, ev.source.lines as u64);
    out.extend_from_slice(b",\"offset\":");
    num(out, ev.source.offset);
    out.extend_from_slice(b"},\"message\":");
    b(out, ev.message);
    out.extend_from_slice(b",\"log\":");
    write_log(out, ev.log);
    out.extend_from_slice(b",\"match\":");
    match ev.found.first() {
        None => out.extend_from_slice(b"null"),
        Some(f) => {
            if cache.len() < ev.matcher.entries.len() {
                cache.resize(ev.matcher.entries.len(), None);
            }
            let st = cache[f.entry as usize].get_or_insert_with(|| record_static(ev.matcher, f.entry, fields));
            out.push(b'{');
            out.extend_from_slice(st.as_bytes());
            if let Some(d) = f.distance {
                out.extend_from_slice(b",\"by\":\"location\",\"distance\":");
                num(out, u64::from(d));
            }
            out.extend_from_slice(b",\"captures\":");
            pairs(out, &ev.captures(f));
            if let Some(named) = ev.named_captures(f) {
                out.extend_from_slice(b",\"named_captures\":");
                pairs(out, &named);
            }
            out.extend_from_slice(b",\"span\":");
            span(out, f);
            out.extend_from_slice(b",\"field\":");
            s(out, &ev.match_fields[0]);
            out.push(b'}');
        }
    }
    out.extend_from_slice(b",\"also_matched\":[");
    for (i, f) in ev.found.iter().enumerate().skip(1) {
        if i > 1 {
            out.push(b',');
        }
        side_match(out, ev, f, &ev.match_fields[i]);
    }
    out.push(b']');
    let mut slot = None;
    if ev.unknown_slot {
        slot = Some(out.len());
    } else if let Some(u) = &ev.unknown {
        write_unknown_object(out, u.cluster, u.template, u.count);
    }
    if !ev.context.is_empty() {
        out.extend_from_slice(b",\"context\":[");
        for (i, f) in ev.context.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            side_match(out, ev, f, &ev.match_fields[ev.found.len() + i]);
        }
        out.push(b']');
    }
    out.push(b'}');
    (line_at, slot)
}

/// An entry of `also_matched[]` or `context[]`: a match that is not the event's primary one.
fn side_match(out: &mut Vec<u8>, ev: &Annotated<'_>, f: &Found, field: &str) {
    let r = &ev.matcher.entries[f.entry as usize].rec;
    out.extend_from_slice(b"{\"id\":");
    s(out, &r.id);
    let mut first = false;
    opt(out, "slug", r.slug(), &mut first);
    out.extend_from_slice(b",\"severity\":");
    s(out, r.severity.name());
    out.extend_from_slice(b",\"captures\":");
    pairs(out, &ev.captures(f));
    out.extend_from_slice(b",\"span\":");
    span(out, f);
    out.extend_from_slice(b",\"field\":");
    s(out, field);
    out.push(b'}');
}

fn write_log(out: &mut Vec<u8>, log: &Log<'_>) {
    out.extend_from_slice(b"{\"format\":");
    known(out, log.format);
    let mut first = false;
    opt(out, "level", log.level.as_deref(), &mut first);
    opt(out, "target", log.target.as_deref(), &mut first);
    opt(out, "thread", log.thread.as_deref(), &mut first);
    if !log.spans.is_empty() {
        out.extend_from_slice(b",\"spans\":[");
        for (i, (name, fields)) in log.spans.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"name\":");
            s(out, name);
            out.extend_from_slice(b",\"fields\":");
            pairs(out, fields);
            out.push(b'}');
        }
        out.push(b']');
    }
    if !log.fields.is_empty() {
        out.extend_from_slice(b",\"fields\":");
        pairs(out, &log.fields);
    }
    let node = host().node.as_deref();
    if log.pod.is_some() || log.container.is_some() || log.namespace.is_some() || node.is_some() {
        out.extend_from_slice(b",\"kubernetes\":{");
        let mut f = true;
        opt(out, "pod", log.pod.as_deref(), &mut f);
        opt(out, "namespace", log.namespace.as_deref(), &mut f);
        opt(out, "container", log.container.as_deref(), &mut f);
        opt(out, "node", node, &mut f);
        out.push(b'}');
    }
    opt(out, "stream", log.stream.as_deref(), &mut first);
    opt(out, "content_format", log.content_format, &mut first);
    if log.truncated {
        out.extend_from_slice(b",\"truncated\":true");
    }
    opt(out, "parse_error", log.parse_error, &mut first);
    out.push(b'}');
}

pub fn write_ecs(out: &mut Vec<u8>, ev: &Annotated<'_>, fields: &RecordFields) {
    serde_json::to_writer(&mut *out, &Value::Object(ecs_value(ev, fields))).expect("vec");
}

/// A slot's ECS event ([`OutWriter::unknown_events`]) with its cluster filled in, rendered as
/// [`write_ecs`] renders the event of one reader, and bounded by `max` as it bounds one
/// (`seen` none: the text was not clustered after all, and the event goes without them).
pub fn write_ecs_unknown(
    out: &mut Vec<u8>,
    mut v: serde_json::Map<String, Value>,
    seen: Option<(u64, &str, u64)>,
    max: Option<usize>,
) {
    let start = out.len();
    match seen {
        Some((cluster, template, count)) => {
            let id = crate::unknown::id_text(cluster);
            if let Some(Value::Object(u)) = v.get_mut("annotail").and_then(|a| a.get_mut("unknown")) {
                u.insert("cluster".into(), Value::String(id.clone()));
                u.insert("template".into(), Value::String(template.to_owned()));
                u.insert("count".into(), count.into());
            }
            if let Some(Value::Object(l)) = v.get_mut("labels") {
                l.insert("annotail_unknown_cluster".into(), Value::String(id));
            }
        }
        None => {
            if let Some(Value::Object(a)) = v.get_mut("annotail") {
                a.remove("unknown");
            }
            if let Some(Value::Object(l)) = v.get_mut("labels") {
                l.remove("annotail_unknown_cluster");
            }
        }
    }
    serde_json::to_writer(&mut *out, &Value::Object(v)).expect("vec");
    if let Some(max) = max
        && out.len() - start > max
    {
        fit(out, start, max, Format::Ecs);
    }
}

/// The ECS event, before it is rendered.
/// The ECS release whose field names `--format ecs` follows (`ecs.version`).
pub const ECS_VERSION: &str = "8.11.0";

fn ecs_value(ev: &Annotated<'_>, fields: &RecordFields) -> serde_json::Map<String, Value> {
    let w = |k: &str| fields.wants(k);
    let mut v = serde_json::Map::new();
    let st = |x: &str| Value::String(x.to_owned());
    v.insert("@timestamp".into(), st(ev.timestamp));
    v.insert("message".into(), st(&text(ev.message)));
    let mut event = serde_json::Map::new();
    // An unknown event below WARN (`--unknown any`'s INFO and plain lines) is no alert: it was
    // one with `event.severity` 4, a warning, where OTLP and `--min-severity` read it as below
    // one (found by an OTel pipeline's reading).
    let alert = !ev.found.is_empty() || ev.unknown.is_some_and(|u| u.severity >= crate::catalog::Severity::Warning);
    event.insert("kind".into(), st(if alert { "alert" } else { "event" }));
    event.insert("created".into(), st(ev.observed));
    event.insert("module".into(), st("annotail"));
    if let Some(id) = ev.event_id {
        event.insert("id".into(), st(&format!("{id:016x}")));
    }
    let mut log = serde_json::Map::new();
    if let Some(l) = &ev.log.level {
        log.insert("level".into(), st(&l.to_ascii_lowercase()));
    }
    if let Some(t) = &ev.log.target {
        log.insert("logger".into(), st(t));
    }
    if let Some(p) = ev.source.path {
        log.insert("file".into(), serde_json::json!({"path": p}));
    }
    log.insert("offset".into(), ev.source.offset.into());
    v.insert("log".into(), Value::Object(log));
    if let Some(f) = ev.found.first() {
        let r = &ev.matcher.entries[f.entry as usize].rec;
        event.insert("severity".into(), r.severity.syslog().into());
        let mut rule = serde_json::Map::new();
        rule.insert("id".into(), st(&r.id));
        if let Some(x) = r.slug() {
            rule.insert("name".into(), st(x));
        }
        if let Some(x) = r.str_field("documentation").filter(|_| w("documentation")) {
            rule.insert("description".into(), st(x));
        }
        if let Some(x) = r.str_field("githubUrl").filter(|_| w("reference")) {
            rule.insert("reference".into(), st(x));
        }
        if let Some(x) = r.str_field("errorClass").filter(|_| w("error_class")) {
            rule.insert("category".into(), st(x));
        }
        v.insert("rule".into(), Value::Object(rule));
        let text = ev.hays[f.hay as usize].text;
        let mut err = serde_json::Map::new();
        err.insert("message".into(), st(&self::text(&text[f.start..f.end])));
        if let Some(x) = r.str_field("errorClass").filter(|_| w("error_class")) {
            err.insert("type".into(), st(x));
        }
        v.insert("error".into(), Value::Object(err));
        let mut labels = serde_json::Map::new();
        labels.insert("annotail_severity".into(), st(r.severity.name()));
        for (k, val) in ev.captures(f) {
            labels.insert(k.replace('.', "_"), st(&val));
        }
        v.insert("labels".into(), Value::Object(labels));
        if let Some(Ok(t @ Value::Array(_))) =
            r.list("tags").filter(|_| w("tags")).map(|t| serde_json::from_str::<Value>(t.get()))
        {
            v.insert("tags".into(), t);
        }
        let also: Vec<Value> = ev.found[1..].iter().map(|f| st(&ev.matcher.entries[f.entry as usize].rec.id)).collect();
        let mut ann = serde_json::Map::new();
        ann.insert("schema".into(), st(ev.schema));
        if let Some(Ok(x)) =
            r.list("solutions").filter(|_| w("solutions")).map(|x| serde_json::from_str::<Value>(x.get()))
        {
            ann.insert("solutions".into(), x);
        }
        ann.insert("also_matched".into(), Value::Array(also));
        if let Some(d) = f.distance {
            ann.insert("by".into(), st("location"));
            ann.insert("distance".into(), d.into());
        }
        if !ev.context.is_empty() {
            let ctx = ev.context.iter().map(|f| st(&ev.matcher.entries[f.entry as usize].rec.id)).collect();
            ann.insert("context".into(), Value::Array(ctx));
        }
        ann.insert("line".into(), ev.source.line.into());
        ann.insert("lines".into(), ev.source.lines.into());
        v.insert("annotail".into(), Value::Object(ann));
    }
    if let Some(u) = &ev.unknown {
        if ev.found.is_empty() {
            use crate::catalog::Severity;
            let sev = match u.severity {
                Severity::Critical => Some(2),
                Severity::Error => Some(3),
                Severity::Warning => Some(4),
                Severity::Notice => Some(5),
                // A line without a level (`--unknown any`'s plain lines) says none: OTLP's is 0,
                // unspecified (a second reader found 6 here, unspecified there).
                Severity::Info if ev.log.level.is_none() => None,
                Severity::Info => Some(6),
                Severity::Debug => Some(7),
                Severity::None => None,
            };
            if let Some(sev) = sev {
                event.insert("severity".into(), sev.into());
            }
            v.insert("error".into(), serde_json::json!({"message": text(u.text)}));
            v.insert("annotail".into(), serde_json::json!({"schema": ev.schema, "line": ev.source.line, "lines": ev.source.lines}));
        }
        let cluster = format!("{:016x}", u.cluster);
        if let Some(Value::Object(a)) = v.get_mut("annotail") {
            a.insert("unknown".into(), serde_json::json!({"cluster": cluster, "template": u.template, "count": u.count, "message": text(u.text)}));
        }
        match v.get_mut("labels") {
            Some(Value::Object(l)) => {
                l.insert("annotail_unknown_cluster".into(), st(&cluster));
            }
            _ => {
                v.insert("labels".into(), serde_json::json!({"annotail_unknown_cluster": cluster}));
            }
        }
    }
    v.insert("event".into(), Value::Object(event));
    // Required in every ECS event; Elastic's tooling keys on it.
    v.insert("ecs".into(), serde_json::json!({"version": ECS_VERSION}));
    let h = host();
    v.insert("host".into(), serde_json::json!({"name": h.name}));
    if ev.log.pod.is_some() || ev.log.namespace.is_some() || h.node.is_some() {
        let mut k = serde_json::Map::new();
        if let Some(n) = &h.node {
            k.insert("node".into(), serde_json::json!({"name": n}));
        }
        if let Some(p) = &ev.log.pod {
            k.insert("pod".into(), serde_json::json!({"name": p}));
        }
        if let Some(n) = &ev.log.namespace {
            k.insert("namespace".into(), st(n));
        }
        if let Some(c) = &ev.log.container {
            k.insert("container".into(), serde_json::json!({"name": c}));
        }
        v.insert("kubernetes".into(), Value::Object(k));
    }
    v
}

/// Where `source.line`'s digits start in the event at `out[start..]` after [`fit`] rendered it
/// again (its keys sorted: `source` is the last object with a `line`).
fn line_digits_at(out: &[u8], start: usize) -> usize {
    let ev = &out[start..];
    let src = memchr::memmem::rfind(ev, b"\"source\":{").unwrap_or(0);
    let line = memchr::memmem::find(&ev[src..], b"\"line\":").map_or(0, |i| src + i + 7);
    start + line
}

/// Strings are cut no shorter than this while an event is made to fit: a message's first words
/// and a path's start stay readable.
const CUT_MIN: usize = 48;

/// How short strings are cut when an event cut to [`CUT_MIN`] and stripped of its lists still does
/// not fit: a word or an id's start each, enough for 1024 bytes (the least bound taken) to hold
/// an event's every key.
const CUT_LAST: usize = 12;

/// Make the event rendered at `out[start..]` fit in `max` bytes, as valid JSON: first the record
/// fields it can do without go (`match.record`, then code and prose, longest first), then the
/// longest strings are halved (cut at a character boundary, marked with `…`) until it fits; a
/// `truncated` object (`original_bytes`, `dropped`, `cut_strings`) says what was done. The
/// record's id, slug and severity are never removed. Rare (only oversized events), so it works
/// on a parsed tree; the keys of a cut event come out in sorted order.
pub fn fit(out: &mut Vec<u8>, start: usize, max: usize, format: Format) {
    let original = out.len() - start;
    let Ok(mut v) = serde_json::from_slice::<Value>(&out[start..]) else { return };
    let mark = |dropped: &[Value], cut: u64| serde_json::json!({"original_bytes": original, "dropped": dropped, "cut_strings": cut});
    // Whether `v` with its `truncated` object fits: the object's own size, and room for its key
    // (`,"annotail":{"truncated":` at most).
    let fits = |v: &Value, dropped: &[Value], cut: u64| {
        let size = |x: &Value| serde_json::to_vec(x).map_or(usize::MAX, |b| b.len());
        size(v) + size(&mark(dropped, cut)) + 26 <= max
    };
    let droppable: &[(&str, &str)] = match format {
        Format::Ecs => {
            &[("annotail", "solutions"), ("rule", "description"), ("tags", ""), ("annotail", "also_matched")]
        }
        _ => &[
            ("match", "record"),
            ("match", "pattern"),
            ("match", "template"),
            ("match", "documentation"),
            ("match", "solutions"),
            ("match", "tags"),
            ("match", "reference"),
        ],
    };
    // Still too large once every string is short: an event with very many fields. What is left
    // to drop are those lists themselves.
    let last: &[(&str, &str)] = match format {
        Format::Ecs => &[("labels", ""), ("annotail", "also_matched"), ("kubernetes", "")],
        _ => &[
            ("log", "fields"),
            ("log", "spans"),
            ("also_matched", ""),
            ("context", ""),
            ("match", "captures"),
            ("match", "named_captures"),
        ],
    };
    let remove = |v: &mut Value, (obj, k): (&str, &str), dropped: &mut Vec<Value>| {
        let gone = if k.is_empty() {
            v.as_object_mut().and_then(|o| o.remove(obj))
        } else {
            v.get_mut(obj).and_then(Value::as_object_mut).and_then(|o| o.remove(k))
        };
        if gone.is_some() {
            dropped.push(Value::String(if k.is_empty() { obj.to_owned() } else { format!("{obj}.{k}") }));
        }
    };
    let mut dropped = Vec::new();
    for f in droppable {
        if fits(&v, &dropped, 0) {
            break;
        }
        remove(&mut v, *f, &mut dropped);
    }
    let mut cut = 0u64;
    let cut_down = |v: &mut Value, dropped: &[Value], cut: &mut u64, floor: usize, spare: &[&str]| {
        while !fits(v, dropped, *cut) {
            let Some(longest) = longest_string(v, spare) else { break };
            // A string cut to `floor` and marked is `floor` + 3 bytes: cutting it (or any string
            // no longer) gives back one as long, for ever (it did: `--max-event-bytes 1024` on
            // a line of many short fields never returned).
            if longest.len() <= floor + '…'.len_utf8() {
                break;
            }
            let mut at = (longest.len() / 2).max(floor);
            while !longest.is_char_boundary(at) {
                at -= 1;
            }
            longest.truncate(at);
            longest.push('…');
            *cut += 1;
        }
    };
    cut_down(&mut v, &dropped, &mut cut, CUT_MIN, &[]);
    for f in last {
        if fits(&v, &dropped, cut) {
            break;
        }
        remove(&mut v, *f, &mut dropped);
    }
    // Still too large: many strings of CUT_MIN bytes (a span's error, a long target, a path, a
    // template, an error class, each cut to 48 left a 1,044-byte event under a bound of 1,024:
    // found by a second reader). They are cut shorter: the bound is kept.
    // Not values a receiver parses or keys on: times (a cut one is no date), ids, slugs,
    // levels and severities, which are short anyway (the reader found `@timestamp` cut).
    cut_down(&mut v, &dropped, &mut cut, CUT_LAST, SPARED);
    let mark = mark(&dropped, cut);
    if let Some(o) = v.as_object_mut() {
        match format {
            Format::Ecs => {
                let ann = o.entry("annotail").or_insert_with(|| Value::Object(Default::default()));
                if let Some(a) = ann.as_object_mut() {
                    a.insert("truncated".into(), mark);
                }
            }
            _ => {
                o.insert("truncated".into(), mark);
            }
        }
    }
    out.truncate(start);
    serde_json::to_writer(&mut *out, &v).expect("writing to a Vec cannot fail");
}

/// Keys whose string values the last cut of [`fit`] leaves whole, at any depth.
const SPARED: &[&str] = &[
    "@timestamp",
    "observed",
    "created",
    "schema",
    "id",
    "slug",
    "severity",
    "level",
    "format",
    "kind",
    "cluster",
    "event_id",
];

/// The longest string value (not key) in `v`, but the values of `spare`'s keys.
fn longest_string<'v>(v: &'v mut Value, spare: &[&str]) -> Option<&'v mut String> {
    match v {
        Value::String(s) => Some(s),
        Value::Array(a) => a.iter_mut().filter_map(|x| longest_string(x, spare)).max_by_key(|s| s.len()),
        Value::Object(o) => o
            .iter_mut()
            .filter(|(k, _)| !spare.contains(&k.as_str()))
            .filter_map(|(_, x)| longest_string(x, spare))
            .max_by_key(|s| s.len()),
        _ => None,
    }
}

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const CYAN: &str = "\x1b[36m";

/// Solutions shown under a match; the rest are in the JSON output.
const PRETTY_SOLUTIONS: usize = 3;

/// Wrap width meaning "the terminal's width now" (`main` passes it when `COLUMNS` is not set
/// and standard output is a terminal): read for each annotation, so that a resized terminal
/// gets the new width from the next annotation on.
pub const TERMINAL_WIDTH: usize = 0;

/// Columns when there is no terminal to ask.
const FALLBACK_WIDTH: usize = 100;

/// The terminal's width now (standard output, then standard error), else 100.
pub fn terminal_width() -> usize {
    terminal_size::terminal_size_of(std::io::stdout())
        .or_else(|| terminal_size::terminal_size_of(std::io::stderr()))
        .map_or(FALLBACK_WIDTH, |(w, _)| usize::from(w.0))
}

/// An event's lines as read, for pretty output: a pasted line's colour codes that lost their
/// ESC ([`has_leftovers`](crate::framing::parse::has_leftovers)) get it back with colours on, and
/// are left out with them off; every other byte as read.
fn echo(out: &mut Vec<u8>, raw: &[u8], color: bool) {
    use crate::framing::parse;
    if !parse::has_leftovers(raw) {
        out.extend_from_slice(raw);
        return;
    }
    for (i, line) in raw.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        match (parse::has_leftovers(line), color) {
            (false, _) => out.extend_from_slice(line),
            (true, true) => parse::restore_leftovers(line, out),
            (true, false) => parse::strip_codes(line, out, true),
        }
    }
}

pub fn write_pretty(out: &mut Vec<u8>, ev: &Annotated<'_>, color: bool, width: usize) {
    echo(out, ev.raw, color);
    out.push(b'\n');
    if ev.found.is_empty() && ev.context.is_empty() {
        if let Some(u) = &ev.unknown {
            // A repeat of an unknown error's open incident: its line, and now and then a marker,
            // as for a known error.
            if let Some(&crate::repeat::Seen::Repeat { count, elapsed_ms, mark }) = ev.seen.first() {
                if mark {
                    let what = format!("unknown {}, cluster {:016x}", unknown_word(u), u.cluster);
                    repeat_marker(out, &what, count, elapsed_ms, color);
                }
                return;
            }
            write_pretty_unknown(out, u, color, width, "╰─");
        }
        return;
    }
    let c = |code: &'static str| if color { code } else { "" };
    let Some(f) = ev.found.first() else {
        // Context only: said quietly, in the dim colour, never as an error.
        let width = if width == TERMINAL_WIDTH { terminal_width() } else { width };
        push_wrapped(out, &format!("{}  ╰─ context: {}{}", c(DIM), context_list(ev), c(RESET)), "", width);
        if let Some(u) = &ev.unknown {
            write_pretty_unknown(out, u, color, width, "  ");
        }
        return;
    };
    let r = &ev.matcher.entries[f.entry as usize].rec;
    // A repeat of an open incident: its lines as they came, and now and then one line that
    // says so (the full annotation is above, and comes back after the window).
    if let Some(&crate::repeat::Seen::Repeat { count, elapsed_ms, mark }) = ev.seen.first() {
        if mark {
            repeat_marker(out, &format!("{} ({})", r.slug().unwrap_or(&r.id), r.id), count, elapsed_ms, color);
        }
        // A cause no record explains, met for the first time, is said under a repeat too: the
        // key is the known error's, and a storm of one known host over new root causes hid
        // them all (found by a second reader).
        if let Some(u) = ev.unknown.as_ref().filter(|u| u.count == 1) {
            write_pretty_unknown(out, u, color, width, "╰─");
        }
        return;
    }
    // One ioctl per annotation (known errors only), not per line.
    let width = if width == TERMINAL_WIDTH { terminal_width() } else { width };
    let sev = r.severity.name();
    let sev_color = if r.severity >= crate::catalog::Severity::Error { RED } else { YELLOW };
    let mut line = format!(
        "  {}╰─ {}{}{} {}{}{} {}({}){}",
        c(sev_color),
        c(BOLD),
        sev.to_ascii_uppercase(),
        c(RESET),
        c(BOLD),
        r.slug().unwrap_or(&r.id),
        c(RESET),
        c(DIM),
        r.id,
        c(RESET)
    );
    if let Some(cls) = r.str_field("errorClass") {
        line.push_str(&format!(" {}{cls}{}", c(DIM), c(RESET)));
    }
    if let Some(d) = f.distance {
        let at = r.source_line.map_or(String::new(), |l| format!(":{l}"));
        line.push_str(&format!(
            " {}(by location: the record is {d} line{} from the panic, at {}{at}){}",
            c(DIM),
            if d == 1 { "" } else { "s" },
            r.str_field("filePath").unwrap_or(""),
            c(RESET)
        ));
    }
    // Wrapped like the lines below it: a long slug, class and location ran past the terminal's
    // edge (found by a second reader).
    push_wrapped(out, line.strip_prefix("  ").unwrap_or(&line), "  ", width);
    let indent = "     ";
    if let Some(doc) = r.str_field("documentation").map(first_sentence) {
        push_wrapped(out, doc, indent, width);
    }
    for (k, v) in ev.display_captures(f) {
        push_wrapped(out, &format!("{}{k}{} = {v}", c(CYAN), c(RESET)), indent, width);
    }
    {
        for sol in r.solutions().iter().take(PRETTY_SOLUTIONS) {
            push_wrapped(out, &format!("{}fix:{} {sol}", c(BOLD), c(RESET)), indent, width);
        }
    }
    if let Some(url) = r.str_field("githubUrl") {
        push_wrapped(out, &format!("{}see: {url}{}", c(DIM), c(RESET)), indent, width);
    }
    if ev.found.len() > 1 {
        let ids = also_list(ev.matcher, r, &ev.found[1..]);
        push_wrapped(out, &format!("{}also: {}{}", c(DIM), ids.join(", "), c(RESET)), indent, width);
    }
    if !ev.context.is_empty() {
        push_wrapped(out, &format!("{}context: {}{}", c(DIM), context_list(ev), c(RESET)), indent, width);
    }
    if let Some(u) = &ev.unknown {
        write_pretty_unknown(out, u, color, width, "  ");
    }
}

/// The other matches for `also:`: each distinct record once (records from several call sites with
/// the same slug are one), in order, with the number of call sites where there are several; the
/// primary's own other call sites as `<slug> (N more call sites)`.
pub fn also_list(m: &Matcher, primary: &crate::catalog::Record, others: &[Found]) -> Vec<String> {
    let mut groups: Vec<(&str, usize)> = Vec::new();
    for f in others {
        let r = &m.entries[f.entry as usize].rec;
        let name = r.slug().unwrap_or(&r.id);
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some(g) => g.1 += 1,
            None => groups.push((name, 1)),
        }
    }
    let own = primary.slug().unwrap_or(&primary.id);
    groups
        .into_iter()
        .map(|(name, n)| match (name == own, n) {
            (true, 1) => format!("{name} (1 more call site)"),
            (true, n) => format!("{name} ({n} more call sites)"),
            (false, 1) => name.to_owned(),
            (false, n) => format!("{name} ({n} call sites)"),
        })
        .collect()
}

/// The first sentence of a record's documentation: up to the first `.` (or `!`, `?`) that ends
/// a sentence — followed by a space or the end, not ending an abbreviation (`e.g.`), not inside
/// backticks — else the whole text.
pub fn first_sentence(doc: &str) -> &str {
    let b = doc.as_bytes();
    let mut in_code = false;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'`' => in_code = !in_code,
            b'.' | b'!' | b'?' if !in_code && (i + 1 == b.len() || b[i + 1] == b' ' || b[i + 1] == b'\n') => {
                let word = doc[..i].rsplit([' ', '(']).next().unwrap_or("");
                if c == b'.' && (matches!(word, "e.g" | "i.e" | "etc" | "vs" | "cf") || word.len() == 1) {
                    continue;
                }
                return &doc[..=i];
            }
            _ => {}
        }
    }
    doc
}

/// The context matches of an event for pretty output: each distinct record once, with its number
/// of call sites where there are several, then where they were: `a, b (2 call sites) (in
/// span:<span>.<key>)`.
fn context_list(ev: &Annotated<'_>) -> String {
    let mut groups: Vec<(&str, usize)> = Vec::new();
    let mut fields: Vec<&str> = Vec::new();
    for (i, f) in ev.context.iter().enumerate() {
        let r = &ev.matcher.entries[f.entry as usize].rec;
        let name = r.slug().unwrap_or(&r.id);
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some(g) => g.1 += 1,
            None => groups.push((name, 1)),
        }
        let field = ev.match_fields[ev.found.len() + i].as_str();
        if !fields.contains(&field) {
            fields.push(field);
        }
    }
    let names: Vec<String> =
        groups.iter().map(|(n, k)| if *k == 1 { (*n).to_owned() } else { format!("{n} ({k} call sites)") }).collect();
    format!("{} (in {})", names.join(", "), fields.join(", "))
}

/// The dim line under a repeat of an open incident (`what` names it): how many and since when.
fn repeat_marker(out: &mut Vec<u8>, what: &str, count: u64, elapsed_ms: i64, color: bool) {
    let (dim, reset) = if color { (DIM, RESET) } else { ("", "") };
    let line = format!("  {dim}↻ {what} again: ×{count} in {}{reset}\n", crate::repeat::elapsed_text(elapsed_ms));
    out.extend_from_slice(line.as_bytes());
}

/// What pretty output calls an unknown event: by its severity, `error`, `warning` or `event`.
fn unknown_word(u: &Unknown<'_>) -> &'static str {
    if u.severity >= crate::catalog::Severity::Error {
        "error"
    } else if u.severity == crate::catalog::Severity::Warning {
        "warning"
    } else {
        "event"
    }
}

/// The dim lines under an event whose text (or root cause) no record explains.
fn write_pretty_unknown(out: &mut Vec<u8>, u: &Unknown<'_>, color: bool, width: usize, lead: &str) {
    let width = if width == TERMINAL_WIDTH { terminal_width() } else { width };
    let (dim, reset) = if color { (DIM, RESET) } else { ("", "") };
    let what = unknown_word(u);
    push_wrapped(out, &format!("{dim}{lead} unknown {what}, cluster {:016x}, seen {}×{reset}", u.cluster, u.count), "  ", width);
    push_wrapped(out, &format!("{dim}template: {}{reset}", visible(&u.template)), "     ", width);
}

/// `s` for a terminal: control characters but the tab written as escapes (`\u{7}`). What annotail
/// writes of its own (`discover`'s report, `--summary`, pretty output's template line) goes to a
/// terminal, and a log line's carriage return, bell or escape sequence would act there
/// (overwrite the line, set the window title, ring) instead of being read.
pub fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() && c != '\t') {
        return std::borrow::Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| if c.is_control() && c != '\t' { c.escape_unicode().to_string() } else { c.to_string() })
        .collect::<String>()
        .into()
}

/// Write `text` after `indent`, wrapped at spaces to `width` columns (escape codes count zero).
fn push_wrapped(out: &mut Vec<u8>, text: &str, indent: &str, width: usize) {
    let avail = width.saturating_sub(indent.len()).max(20);
    let mut col = 0;
    out.extend_from_slice(indent.as_bytes());
    for (i, word) in text.split(' ').enumerate() {
        let w = visible_len(word);
        if i > 0 {
            if col + 1 + w > avail {
                out.push(b'\n');
                out.extend_from_slice(indent.as_bytes());
                out.extend_from_slice(b"  ");
                col = 2;
            } else {
                out.push(b' ');
                col += 1;
            }
        }
        out.extend_from_slice(word.as_bytes());
        col += w;
    }
    out.push(b'\n');
}

fn visible_len(s: &str) -> usize {
    let mut n = 0;
    let mut in_esc = false;
    for ch in s.chars() {
        if in_esc {
            if ch.is_ascii_alphabetic() {
                in_esc = false;
            }
        } else if ch == '\x1b' {
            in_esc = true;
        } else {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::{BUF_FLUSH, Format, OutWriter, Writer, relocate_lines};

    /// The word-at-a-time check says what a byte-by-byte look says, for every byte value at
    /// every place of strings of 0 to 19 bytes (a whole word, a tail, both), among plain bytes
    /// and among bytes next to the thresholds (0x1f/0x20, 0x7f/0x80, `!`/`#` around `"`).
    #[test]
    fn needs_escape_agrees_with_a_byte_by_byte_look() {
        use super::needs_escape;
        let by_byte = |v: &[u8], non_ascii: bool| {
            v.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\' || (non_ascii && c >= 0x80))
        };
        for background in [b'a', b' ', b'!', b'#', 0x7f, b'[', b']'] {
            for len in 0..20 {
                for at in 0..len {
                    for c in 0..=255u8 {
                        let mut v = vec![background; len];
                        v[at] = c;
                        for non_ascii in [false, true] {
                            assert_eq!(needs_escape(&v, non_ascii), by_byte(&v, non_ascii), "{v:?} {non_ascii}");
                        }
                    }
                }
                assert!(!needs_escape(&vec![background; len], true));
            }
        }
    }

    #[test]
    fn an_event_is_cut_to_fit_and_stays_json() {
        use super::{fit, line_digits_at};
        let long = "é".repeat(3000);
        let event = serde_json::json!({
            "schema": "annotail/1", "@timestamp": "t", "observed": "o", "host": {"name": "h"},
            "source": {"kind": "file", "path": "/var/log/a.log", "line": 1234, "lines": 1, "offset": 9},
            "message": format!("start {long} end"),
            "log": {"format": "risingwave", "fields": (0..300).map(|i| (format!("k{i}"), serde_json::json!("v"))).collect::<serde_json::Map<_, _>>()},
            "match": {"id": "r1", "slug": "s1", "severity": "error", "record": {"sourceCode": "x".repeat(4000)},
                      "documentation": "d".repeat(500), "captures": {"a": long.clone()}, "span": [0, 1], "field": "message"},
            "also_matched": [],
        });
        let text = serde_json::to_vec(&event).unwrap();
        // (max, what must be gone)
        let cases: &[(usize, &[&str])] = &[
            (text.len() - 4000, &["match.record"]),
            (4096, &["match.record", "match.documentation"]),
            (1024, &["match.record", "log.fields"]),
        ];
        for (max, gone) in cases {
            let mut out = b"prefix".to_vec();
            out.extend_from_slice(&text);
            fit(&mut out, 6, *max, Format::Json);
            assert!(out.len() - 6 <= *max, "max {max}: {} bytes", out.len() - 6);
            let v: serde_json::Value = serde_json::from_slice(&out[6..]).expect("valid JSON");
            assert_eq!((v["match"]["id"].as_str(), v["match"]["slug"].as_str()), (Some("r1"), Some("s1")));
            assert_eq!(v["source"]["line"], 1234);
            assert_eq!(v["truncated"]["original_bytes"], text.len());
            let dropped: Vec<&str> =
                v["truncated"]["dropped"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
            for g in *gone {
                assert!(dropped.contains(g), "max {max}: {g} not in {dropped:?}");
            }
            assert!(v["message"].as_str().unwrap().starts_with("start é"), "a cut string keeps its start");
            let at = line_digits_at(&out, 6);
            assert_eq!(&out[at..at + 4], b"1234", "max {max}");
        }
    }

    /// An event too large whose strings were all at most CUT_MIN + 3 bytes (many short fields)
    /// had the same string cut again and again, never shorter: the writer never returned.
    #[test]
    fn regression_fit_looped_on_strings_cut_to_the_minimum() {
        use super::fit;
        let fields: serde_json::Map<_, _> = (0..40).map(|i| (format!("f{i}"), serde_json::json!("v".repeat(49)))).collect();
        let event = serde_json::json!({
            "schema": "annotail/1", "message": "m".repeat(49), "source": {"line": 7},
            "log": {"format": "risingwave", "fields": fields},
        });
        let text = serde_json::to_vec(&event).unwrap();
        let mut out = text.clone();
        fit(&mut out, 0, 1024, Format::Json);
        assert!(out.len() <= 1024, "{} bytes", out.len());
        let v: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        assert_eq!(v["truncated"]["dropped"], serde_json::json!(["log.fields"]));
    }

    #[test]
    fn relocated_line_numbers_grow_in_place() {
        // Two events rendered with segment-relative lines 9 and 120; the segment starts after
        // line 991: their numbers become 1000 and 1111, one more digit each, the rest unchanged.
        let a = br#"{"source":{"line":9,"lines":1},"message":"line 9"}"#;
        let b = br#"{"source":{"line":120,"lines":2},"message":"x"}"#;
        let mut rendered = a.to_vec();
        rendered.push(b'\n');
        let at_b = rendered.len();
        rendered.extend_from_slice(b);
        rendered.push(b'\n');
        let marks = [(18, 9), (at_b as u64 + 18, 120)];
        let mut out = Vec::new();
        relocate_lines(&rendered, &marks, 991, None, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"source\":{\"line\":1000,\"lines\":1},\"message\":\"line 9\"}\n\
             {\"source\":{\"line\":1111,\"lines\":2},\"message\":\"x\"}\n"
        );
        let mut same = Vec::new();
        relocate_lines(&rendered, &marks, 0, None, &mut same);
        assert_eq!(same, rendered);
    }

    #[test]
    fn in_memory_writer_keeps_everything_past_the_flush_size() {
        // Worker threads render into an in-memory writer: neither its flush threshold nor an
        // explicit flush may hand the bytes anywhere else.
        use super::TakesRendered as _;
        let mut w = OutWriter::memory(Vec::new(), Format::Json, false, 80);
        let chunk = vec![b'x'; 1000];
        let mut want = Vec::new();
        for _ in 0..(3 * BUF_FLUSH / chunk.len()) {
            w.rendered(&chunk);
            want.extend_from_slice(&chunk);
        }
        w.flush();
        w.rendered(b"end");
        want.extend_from_slice(b"end");
        let mut moved = b"before:".to_vec();
        w.move_rendered(&mut moved);
        assert_eq!(&moved[..7], b"before:");
        assert_eq!(&moved[7..], &want[..]);
        assert!(w.take_rendered().is_empty(), "moved output is not kept twice");
    }
}
