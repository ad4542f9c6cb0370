//! Annotate: a framed event → cleaned text, parsed layout, confirmed matches → an output event.
//!
//! Owns the step between framing and output: removing prefixes and ANSI codes, parsing the
//! layout (RisingWave text, JSON, panic, plain), building the haystacks the regexes run on and
//! the value boundaries that bound captures, re-running the prefilter where the raw bytes were
//! not what is matched, confirming and ranking candidates, and handing the result to a writer.
//!
//! Contract: events without a prefilter hit cost nothing beyond a branch (unless every event is
//! written, `--all` or `--format pretty`). Matching sees the event's whole text; a JSON event's
//! haystacks are its decoded string values (span fields first, where a text line prints them,
//! then `fields.message`, then other fields), never the escaped raw line.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use crate::counts::Counters;
use crate::event::{Annotated, Flow, Log, Source, Unknown, Writer};
use crate::framing::golog;
use crate::framing::parse::{self, Header, StreamState};
use crate::framing::{EventSink, RawEvent};
use crate::matcher::{Found, Hay, Matcher, Scratch};
use crate::unknown::Levels;

/// Which events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// Only events with a known error.
    Matches,
    /// Every event (`match: null` when nothing matched).
    All,
}

/// Per-source facts that go into every event.
#[derive(Debug, Clone, Default)]
pub struct SourceMeta {
    pub kind: &'static str,
    pub path: Option<String>,
    /// From a CRI log file name `<pod>_<namespace>_<container>-<id>.log`.
    pub pod: Option<String>,
    pub namespace: Option<String>,
    pub container: Option<String>,
    /// A followed file's fingerprint: events get an `event_id`.
    pub fingerprint: Option<u64>,
}

impl SourceMeta {
    pub fn stdin() -> Self {
        SourceMeta { kind: "stdin", ..Default::default() }
    }

    pub fn file(path: &str) -> Self {
        let mut m = SourceMeta { kind: "file", path: Some(path.to_owned()), ..Default::default() };
        let name = std::path::Path::new(path).file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(stem) = name.strip_suffix(".log") {
            let parts: Vec<&str> = stem.splitn(3, '_').collect();
            if let [pod, ns, rest] = parts[..]
                && let Some((container, id)) = rest.rsplit_once('-')
                && id.len() >= 12
                && id.bytes().all(|b| b.is_ascii_hexdigit())
            {
                m.pod = Some(pod.to_owned());
                m.namespace = Some(ns.to_owned());
                m.container = Some(container.to_owned());
            }
        }
        m
    }
}

pub struct Annotator<'m, W> {
    matcher: &'m Matcher,
    emit: Emit,
    writer: W,
    pub meta: SourceMeta,
    scratch: Scratch,
    text: Vec<u8>,
    line_buf: Vec<u8>,
    ends: Vec<usize>,
    starts: Vec<usize>,
    walls: Vec<usize>,
    lits: Vec<u32>,
    /// This event's matches that are context (see [`is_context`]), taken out of the ranked list.
    context: Vec<crate::matcher::Found>,
    pub counters: Counters,
    observed: String,
    /// Matches per record, for metrics and `--summary`; none when nobody asks.
    pub tally: Option<std::sync::Arc<crate::metrics::Tally>>,
    /// Line numbers count from the start of a segment of the input (`--threads`; the writer
    /// makes the rendered ones absolute), which the diagnostics say.
    pub segment_lines: bool,
    /// Which matches are repeats of an open incident ([`crate::repeat`]): for the incident
    /// counts and pretty output's collapse; none when nobody asks.
    pub incidents: Option<std::sync::Arc<crate::repeat::Incidents>>,
    /// Workers of a parallel read do not decide repeats (that needs input order): they keep
    /// (entry, key, time) of each match here for the reader to observe in order.
    pub deferred: Option<Vec<crate::repeat::Deferred>>,
    seen: Vec<crate::repeat::Seen>,
    /// Pretty output's storms of one unknown cluster, collapsed as a known error's are (their
    /// own tracker: the incident counts are the catalog's records').
    unknown_repeats: Option<crate::repeat::Repeats>,
    /// `--unknown`: the run's clusterer and the levels it takes; none when off.
    pub unknown: Option<crate::unknown::Shared>,
    /// Workers of a parallel read do not cluster (cluster ids, templates and counts follow the
    /// input's order): they keep each unknown event's text here, render the event with a slot
    /// for its `unknown` object, and the reader clusters the texts in input order and fills
    /// the slots ([`crate::event::splice_segment`]).
    pub pending_unknown: Option<PendingUnknowns>,
    /// Where unknown events are counted per level; none when nobody asks.
    pub unknown_metrics: Option<std::sync::Arc<crate::metrics::Metrics>>,
    unknown_template: String,
    /// [`unexplained`]'s buffer.
    unknown_covered: Vec<Range<usize>>,
    /// The writer said [`Flow::Stop`]: later events are not annotated.
    stopped: bool,
}

impl<'m, W: Writer> Annotator<'m, W> {
    pub fn new(matcher: &'m Matcher, emit: Emit, writer: W, meta: SourceMeta) -> Self {
        Annotator {
            matcher,
            emit,
            writer,
            meta,
            scratch: Scratch::default(),
            text: Vec::new(),
            line_buf: Vec::new(),
            ends: Vec::new(),
            starts: Vec::new(),
            walls: Vec::new(),
            lits: Vec::new(),
            context: Vec::new(),
            counters: Counters::default(),
            observed: String::new(),
            tally: None,
            segment_lines: false,
            incidents: None,
            deferred: None,
            seen: Vec::new(),
            unknown_repeats: None,
            unknown: None,
            pending_unknown: None,
            unknown_metrics: None,
            unknown_template: String::new(),
            unknown_covered: Vec::new(),
            stopped: false,
        }
    }

    pub fn writer(&mut self) -> &mut W {
        &mut self.writer
    }

    /// The writer said stop: nothing more is annotated, and the driver stops reading.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Set the time the current input was read (RFC 3339).
    pub fn set_observed(&mut self, now: std::time::SystemTime) {
        self.observed.clear();
        self.observed.push_str(&humantime::format_rfc3339_micros(now).to_string());
    }

    fn observed(&mut self) -> &str {
        if self.observed.is_empty() {
            self.set_observed(std::time::SystemTime::now());
        }
        &self.observed
    }
}

impl<W: Writer> Annotator<'_, W> {
    /// Is `ev` a line of another program's log ([`RawEvent::foreign`]) at a level `levels`
    /// wants? Its level word is read
    /// behind the prefixes framing found (a CRI record's `stderr F `, stern's, compose's), where
    /// [`level_marker`](crate::unknown::level_marker) reads the raw line and finds no `E1205`.
    /// When the raw line is not what was classified (ANSI codes, a Docker record, joined CRI
    /// records), the event is parsed and its `log.level` decides.
    fn foreign_wanted(&self, ev: &RawEvent<'_>, first: &[u8], levels: Levels) -> bool {
        // Only in a block framing read as another program's log: elsewhere framing finds lines
        // at a level by the marks' `R`s alone, and an event it frames for a hit is read alike.
        if !ev.foreign || !matches!(ev.header, Header::Klog | Header::Logfmt | Header::Stamped) {
            return false;
        }
        if ev.rescan || ev.prefix.docker {
            return true;
        }
        let c = first.get(ev.prefix.content..).unwrap_or_default();
        crate::unknown::foreign_level(c, ev.header).is_some_and(|l| levels.wants(Some(l), false))
    }
}

impl<W: Writer> EventSink for Annotator<'_, W> {
    fn event(&mut self, ev: RawEvent<'_>) {
        if self.stopped {
            return;
        }
        self.counters.events += 1;
        let echo = self.writer.echoes_lines();
        let all = self.emit == Emit::All || echo;
        let plain_hits = !ev.rescan && self.matcher.unkeyed.is_empty();
        // An event no record can explain is still worth parsing when `--unknown` may want it.
        let levels = self.unknown.as_ref().map_or(Levels::Off, |u| u.levels);
        let maybe_unknown = levels.is_on()
            && (levels == Levels::Any || {
                let first = &ev.bytes[..memchr::memchr(b'\n', ev.bytes).unwrap_or(ev.bytes.len())];
                let content = first.get(ev.prefix.content..).unwrap_or_default();
                (ev.header == Header::Panic && crate::matcher::go_crash_or_rust_panic(content, ev.bytes))
                    // A pretty-printed JSON object's level is on a line of its own: its parsed
                    // `log.level` decides.
                    || (ev.header == Header::Json && parse::lone(content, b'{'))
                    || self.foreign_wanted(&ev, first, levels)
                    || crate::unknown::level_marker(first, levels)
            });
        // Cheap rejection before any cleaning or parsing: some candidate must have every literal
        // of its pattern in the raw bytes (the cleaned text only removes prefixes and is matched
        // line-wise, so a literal in it is in the raw bytes too). A panic may name its record by
        // its location alone. Asked only when the answer decides something: an event that will
        // be annotated anyway (`--all` without echo, or one `--unknown` wants) would pay for the
        // same candidates twice, here and in confirm (on 10 MB of the peers corpus `--unknown warn`
        // cost 4.47 M instructions over `off` before, 4.24 M after).
        let hopeless = (!all || echo)
            && !maybe_unknown
            && plain_hits
            && ev.header != Header::Panic
            && !self.matcher.any_plausible(ev.literals, ev.bytes, &mut self.scratch);
        if !all && hopeless {
            return;
        }
        if echo && hopeless {
            self.stopped |= self.writer.unmatched(ev.bytes) == Flow::Stop;
            self.counters.written += 1;
            return;
        }
        // A bug met by one event must not take the stream down: report it and go on.
        let (line, lines, offset) = (ev.first_line, ev.lines, ev.offset);
        let pending_before = self.pending_unknown.as_ref().map(|p| (p.items.len(), p.texts.len()));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.annotate(ev, all, maybe_unknown)));
        if r.is_err() {
            // An unknown text kept for an event that was never written would be spliced into the
            // next event's slot.
            if let (Some(p), Some((items, texts))) = (self.pending_unknown.as_mut(), pending_before) {
                p.items.truncate(items);
                p.texts.truncate(texts);
            }
            self.counters.internal_errors += 1;
            let (line, line_in_segment) = if self.segment_lines { (None, Some(line)) } else { (Some(line), None) };
            tracing::error!(
                offset,
                line,
                line_in_segment,
                lines,
                "internal error while annotating this event; it was skipped"
            );
            self.text.clear();
        }
    }
}

struct Prefixes {
    runtime_ts: Option<Range<usize>>,
    pod: Option<Range<usize>>,
    container: Option<Range<usize>>,
    stream: Option<Range<usize>>,
}

impl<W: Writer> Annotator<'_, W> {
    /// Clean the event's lines into `self.text`; the first line's prefixes are returned with
    /// ranges into `self.line_buf` (a copy of the first raw line's prefixes, without ANSI codes).
    /// Where each line's content starts is framing's reading of it ([`RawEvent::contents`]).
    fn clean(&mut self, ev: &RawEvent<'_>) -> Prefixes {
        let bytes = ev.bytes;
        self.text.clear();
        let p = ev.prefix;
        let pre = Prefixes {
            runtime_ts: p.runtime_ts.clone(),
            pod: p.kubectl.as_ref().map(|k| k.0.clone()),
            container: p.kubectl.as_ref().map(|k| k.1.clone()),
            stream: p.cri.as_ref().map(|c| c.0.clone()),
        };
        let mut tmp = Vec::new();
        // Lines found with memchr: a byte-at-a-time split was 3% of an `--all` run.
        let mut from = 0;
        let mut line_start = 0;
        for i in 0.. {
            let end = memchr::memchr(b'\n', &bytes[from..]).map_or(bytes.len(), |n| from + n);
            let line = &bytes[from..end];
            // Codes that lost their ESC only on a line framing read without them (`rescan`).
            let l = parse::without_codes(line, &mut tmp, ev.rescan);
            let (content, table_row) = ev.contents.get(i).copied().unwrap_or_else(|| {
                // Framing reads every line of an event; should the two ever disagree on where
                // the lines are, the line is read here rather than cut at a wrong offset.
                debug_assert!(false, "framing gave {} line(s), the event has more", ev.contents.len());
                let (p, _) = parse::classify(l, &mut StreamState::default());
                (p.content, p.table_row)
            });
            let content_at = content.min(l.len());
            if i == 0 {
                // The prefixes all lie before the content: only they are kept (most lines have none).
                self.line_buf.clear();
                self.line_buf.extend_from_slice(&l[..content_at]);
            } else {
                self.trim_line_end(line_start);
                self.text.push(b'\n');
            }
            line_start = self.text.len();
            let content = &l[content_at..];
            let content = if table_row { parse::trim_table_row(content) } else { content };
            if i > 0 {
                parse::push_indent_as_spaces(content, &mut self.text);
            } else {
                self.text.extend_from_slice(content);
            }
            if end == bytes.len() {
                self.trim_line_end(line_start);
                break;
            }
            from = end + 1;
        }
        pre
    }

    /// Blanks a terminal, an editor or a paste left at a line's end are not the message's: a
    /// record's line break (`task:\n {:?}`) must meet the line's last word, and a field's or a
    /// capture's value must not end in them, as in the bare log. Catalog patterns lose theirs
    /// alike (`matcher::blanks_at_line_ends_dropped`).
    fn trim_line_end(&mut self, line_start: usize) {
        let trim = |t: &[u8]| crate::matcher::literals::trim_blanks_end(t).len();
        let mut kept = trim(&self.text[line_start..]);
        // A Markdown fence closed at the line's end, as a chat's inline code block is
        // (```` ```<line>``` ````): the last value ended in it (`Idle```` `), found by an
        // on-call engineer's reading.
        if self.text[line_start..line_start + kept].ends_with(b"```") {
            kept = trim(&self.text[line_start..line_start + kept - 3]);
        }
        self.text.truncate(line_start + kept);
    }

    fn annotate(&mut self, ev: RawEvent<'_>, all: bool, maybe_unknown: bool) {
        let pre = self.clean(&ev);
        self.observed();
        let observed = std::mem::take(&mut self.observed);
        let text = std::mem::take(&mut self.text);
        let mut log = Log { format: "plain", truncated: ev.truncated, ..Default::default() };
        let mut json: Option<Value> = None;
        // A JSON line that does not parse, read as it is: its level and message strings.
        let mut raw_json: Option<RawJson> = None;
        if ev.header == Header::Json {
            // Invalid UTF-8 inside a JSON line is replaced, not a reason to give up decoding.
            let parsed = serde_json::from_slice::<Value>(&text)
                .or_else(|_| serde_json::from_str::<Value>(&String::from_utf8_lossy(&text)));
            match parsed {
                Ok(v @ Value::Object(_)) => json = Some(v),
                _ => {
                    self.counters.json_errors += 1;
                    log.parse_error = Some("line starts with '{' but is not a JSON object");
                    raw_json = Some(RawJson::read(&text));
                }
            }
        }
        // Haystacks: (text, field name), value boundaries.
        let mut hay_texts: Vec<(Vec<u8>, String)> = Vec::new();
        let mut text_line = None;
        let mut other = None;
        self.ends.clear();
        self.starts.clear();
        self.walls.clear();
        if let Some(Value::Object(obj)) = &json {
            log.format = "json";
            collect_json(obj, &mut hay_texts);
        } else {
            if ev.header == Header::RisingWave {
                log.format = "risingwave";
                text_line = parse::parse_text(&text);
            } else if ev.header == Header::Panic {
                log.format = "panic";
            } else if matches!(ev.header, Header::Stamped | Header::Klog | Header::Logfmt) {
                // The first line's words only: a level word on a line below is the message's.
                let first = &text[..memchr::memchr(b'\n', &text).unwrap_or(text.len())];
                other = match ev.header {
                    Header::Klog => golog::klog(first).map(Other::Klog),
                    Header::Logfmt => golog::logfmt(first).map(Other::Logfmt),
                    _ => parse::parse_stamped(first).map(Other::Stamped),
                };
                log.format = match other {
                    Some(Other::Klog(_)) => "klog",
                    Some(Other::Logfmt(_)) => "logfmt",
                    _ => "plain",
                };
            }
            // Value boundaries only matter to confirmation: an event without hits (written
            // because every event is) skips them.
            if ev.rescan || !ev.literals.is_empty() || !self.matcher.unkeyed.is_empty() {
                boundaries(&text, text_line.as_ref(), &mut self.ends, &mut self.starts, &mut self.walls);
                if ev.header == Header::Panic
                    && let Some(q) = old_panic_message_end(&text)
                {
                    let at = self.ends.partition_point(|&p| p < q);
                    if self.ends.get(at) != Some(&q) {
                        self.ends.insert(at, q);
                    }
                }
            }
        }
        // A CRI record is format `cri` (a Docker json-file record `docker`); the layout of what
        // it carries is `content_format`.
        if pre.stream.is_some() {
            log.content_format = Some(log.format);
            log.format = if ev.prefix.docker { "docker" } else { "cri" };
        } else if ev.prefix.envelope {
            // A JSON envelope's line (`stern -o json`) is format `json`, what it carries the
            // layout of `content_format`.
            log.content_format = Some(log.format);
            log.format = "json";
        }
        // A text event has one haystack: no allocation for it.
        let json_hays: Vec<Hay<'_>>;
        let text_hay;
        let hays: &[Hay<'_>] = if json.is_some() {
            json_hays = hay_texts.iter().map(|(t, _)| Hay::plain(t)).collect();
            &json_hays
        } else {
            text_hay = Hay { text: &text, ends: &self.ends, starts: &self.starts, walls: &self.walls };
            std::slice::from_ref(&text_hay)
        };
        // Candidates: re-scan when the raw bytes were not the matched text.
        self.lits.clear();
        if ev.rescan {
            let mut hits = std::mem::take(&mut self.scratch.hits);
            for h in hays {
                hits.clear();
                self.matcher.scan(h.text, &mut hits, &mut self.scratch);
                self.lits.extend(hits.iter().map(|h| h.literal));
            }
            self.scratch.hits = hits;
        } else {
            self.lits.extend_from_slice(ev.literals);
        }
        self.matcher.candidates(self.lits.iter().copied(), &mut self.scratch);
        self.counters.candidates += self.scratch.cands.len() as u64;
        self.counters.examined += u64::from(!self.scratch.cands.is_empty());
        let target: Option<&[u8]> = match (&json, &text_line) {
            (Some(Value::Object(obj)), _) => json_target(obj).map(|(_, t)| t.as_bytes()),
            (_, Some(t)) => t.target.as_ref().map(|r| &text[r.clone()]),
            _ => None,
        };
        self.scratch.target_crate.clear();
        if let Some(t) = target {
            let end = memchr::memmem::find(t, b"::").unwrap_or(t.len());
            self.scratch.target_crate.extend_from_slice(&t[..end]);
        }
        self.matcher.confirm(hays, &mut self.scratch);
        // Below WARN, an error that sits only in a span field is the span's, repeated on every
        // line logged inside it: context of this line, not what it reports.
        self.context.clear();
        // Read once: the level decides the context rule below and is the event's `log.level`.
        let json_level = match &json {
            Some(Value::Object(obj)) => json_level(obj),
            _ => None,
        };
        let level = match (&json_level, &text_line) {
            (Some((_, l)), _) => Some(l.as_bytes()),
            (_, Some(t)) => Some(&text[t.level.clone()]),
            _ => None,
        };
        if !self.scratch.found.is_empty() && level.is_some_and(below_warn) {
            let names: Vec<&str> = hay_texts.iter().map(|(_, n)| n.as_str()).collect();
            let ctx = &mut self.context;
            self.scratch.found.retain(|f| {
                let c = is_context(f, text_line.as_ref(), &names);
                if c {
                    ctx.push(*f);
                }
                !c
            });
            self.counters.context += self.context.len() as u64;
        }
        if ev.header == Header::Panic
            && self.scratch.found.is_empty()
            && let Some((path, line)) = panic_location(&text)
            && let Some((entry, distance)) =
                self.matcher.by_location(&String::from_utf8_lossy(&text[path.clone()]), line)
        {
            // Only where no message matched: a message names its record better than a line
            // number from another revision of the code does.
            let at = self.scratch.caps.len() as u32;
            self.scratch.found.push(crate::matcher::Found {
                entry,
                hay: 0,
                start: path.start,
                end: path.end,
                tail: path.end,
                caps: (at, at),
                distance: Some(distance as u32),
            });
        }
        let found = !self.scratch.found.is_empty();
        if found {
            self.counters.matched += 1;
            if let Some(t) = &self.tally {
                for f in &self.scratch.found {
                    t.add(f.entry);
                    if f.distance.is_some() {
                        t.add_located(f.entry);
                    }
                }
            }
        }
        if !found && !all && !maybe_unknown {
            self.text = text;
            self.observed = observed;
            return;
        }
        // Describe the layout for the event.
        let mut message: &[u8] = &text;
        let mut timestamp: Option<Cow<'_, str>> = None;
        // A plain line behind a syslog or journal prefix (as framing read it), read once for its
        // time and its ident.
        let syslog = (ev.header == Header::None && ev.prefix.syslog.is_some() && json.is_none() && raw_json.is_none())
            .then(|| parse::syslog_line(&text))
            .flatten();
        if let Some(Value::Object(obj)) = &json {
            timestamp = fill_json_log(obj, json_level.clone(), &mut log);
            // The first value after the span fields (read first, where a text line prints
            // them), when it is the message: taking the first value of all left every JSON line
            // with a span field without its message (found by a second reader).
            message = hay_texts
                .iter()
                .find(|(_, n)| !n.starts_with("spans["))
                .filter(|(_, n)| n == "fields.message" || JSON_MESSAGE_KEYS.contains(&n.as_str()))
                .map_or(&[][..], |(t, _)| t);
        } else if let Some(t) = &text_line {
            // One UTF-8 check for the whole event, not one per field (a call and a pass each,
            // several per event): the fields of valid text are sliced out of it unchecked again.
            // A range off a character boundary (only in a malformed header) falls back.
            let whole = std::str::from_utf8(&text).ok();
            let s = |r: &Range<usize>| match whole.and_then(|w| w.get(r.clone())) {
                Some(v) => Cow::Borrowed(v),
                None => crate::event::text(&text[r.clone()]),
            };
            // A header pasted without its time has none (the runtime's or the observed time
            // stands in).
            timestamp = (!t.timestamp.is_empty()).then(|| s(&t.timestamp));
            log.level = Some(s(&t.level));
            log.thread = t.thread.as_ref().map(s);
            log.target = t.target.as_ref().map(s);
            log.spans = t.spans.iter().map(|(n, f)| (s(n), f.iter().map(|(k, v)| (s(k), s(v))).collect())).collect();
            log.fields = t.fields.iter().map(|(k, v)| (s(k), s(v))).collect();
        } else if let Some(r) = raw_json.as_ref().and_then(|r| r.level.clone()) {
            log.level = Some(crate::event::text(&text[r]));
        } else if let Some(o) = &other {
            // Another program's line (the line stays the message), read on its first line.
            let first = &text[..memchr::memchr(b'\n', &text).unwrap_or(text.len())];
            match o {
                // Its time and level word.
                Other::Stamped(st) => {
                    timestamp = st.timestamp.as_ref().map(|t| crate::event::text(&text[t.clone()]));
                    // A zone written apart (`… 10:00:00.123 UTC`) that says its offset joins
                    // the time.
                    if let (Some(t), Some(z)) =
                        (&timestamp, st.zone.as_ref().and_then(|z| parse::zone_offset(&text[z.clone()])))
                    {
                        timestamp = Some(Cow::Owned(parse::rfc3339_form(t).unwrap_or_else(|| t.to_string()) + &z));
                    }
                    log.level = st.level.as_ref().map(|l| crate::event::text(&text[l.clone()]));
                    log.target = st.target.as_ref().map(|t| crate::event::text(&text[t.clone()]));
                    log.thread = st.thread.as_ref().map(|t| crate::event::text(&text[t.clone()]));
                    if let Some(code) = &st.code {
                        log.fields.push((Cow::Borrowed("code"), crate::event::text(&text[code.clone()])));
                    }
                    if let Some(object) = &st.object {
                        log.fields.push((Cow::Borrowed("object"), crate::event::text(&text[object.clone()])));
                    }
                }
                // Its time, its severity, its thread, and its caller and a structured line's
                // pairs as fields.
                Other::Klog(k) => {
                    timestamp = golog::klog_timestamp(&text, &k.time, &observed).map(Cow::Owned);
                    log.level = Some(Cow::Borrowed(k.level));
                    log.thread = Some(crate::event::text(&text[k.thread.clone()]));
                    log.fields.push((Cow::Borrowed("caller"), crate::event::text(&text[k.caller.clone()])));
                    k.fields(&text, |kv| log.fields.push(go_field(&text, kv)));
                }
                Other::Logfmt(l) => {
                    timestamp = l.time.as_ref().and_then(|t| parse::field_time(&text[t.clone()]));
                    log.level = Some(unquoted_value(&text[l.level.clone()]));
                    l.fields(first, |kv| log.fields.push(go_field(first, kv)));
                }
            }
        } else if let Some(syslog) = &syslog {
            // A plain line behind a syslog or journal prefix: the prefix's time, and its
            // `<PRI>`'s severity.
            timestamp = syslog.timestamp(&text, &observed).map(Cow::Owned);
            log.level = syslog.severity.map(|s| Cow::Borrowed(parse::SYSLOG_SEVERITIES[s as usize]));
        } else if ev.header == Header::Panic && ev.prefix.syslog.is_some() {
            // A panic behind a syslog or journal prefix (taken off its text): the prefix's time,
            // the only one it has (it was the time of reading: an archived journal's panic
            // stood at today on every timeline; found by a syslog pipeline's reading).
            let lb = &self.line_buf;
            timestamp = parse::syslog_line(lb).and_then(|s| s.timestamp(lb, &observed)).map(Cow::Owned);
        }
        let lb = &self.line_buf;
        // A prefix framing read past where the first line's content starts is the content's
        // (a plain line behind a syslog prefix keeps the prefix, and a time after it is its
        // text): out of `line_buf`, it panicked (found by a second reader's fuzzing).
        let pick = |r: &Option<Range<usize>>| r.as_ref().and_then(|r| lb.get(r.clone())).map(crate::event::text);
        // `@timestamp`: the line's time, else the runtime's, in RFC 3339's form.
        fn form(t: Cow<'_, str>) -> Cow<'_, str> {
            parse::rfc3339_form(&t).map_or(t, Cow::Owned)
        }
        let runtime = || pick(&pre.runtime_ts).map(form);
        timestamp = timestamp.map(form).or_else(runtime);
        // A time with a field out of range would have the receiver reject the whole event: it
        // stays in the message, and `@timestamp` is the runtime's time, else the observed one.
        if timestamp.as_deref().is_some_and(|t| !parse::time_in_range(t)) {
            // A line that is broken JSON keeps that error: it says more.
            log.parse_error = log.parse_error.or(Some(TIME_OUT_OF_RANGE));
            timestamp = runtime().filter(|t| parse::time_in_range(t));
        }
        log.pod = pick(&pre.pod).or_else(|| self.meta.pod.as_deref().map(Cow::Borrowed));
        log.container = pick(&pre.container).or_else(|| self.meta.container.as_deref().map(Cow::Borrowed));
        log.namespace = self.meta.namespace.as_deref().map(Cow::Borrowed);
        log.stream = pick(&pre.stream);
        let match_fields: Vec<String> = self
            .scratch
            .found
            .iter()
            .chain(&self.context)
            .map(|f| {
                if json.is_some() {
                    hay_texts[f.hay as usize].1.clone()
                } else {
                    text_field(text_line.as_ref(), &text, f.start)
                }
            })
            .collect();
        let names = json.is_some().then_some(&hay_texts[..]);
        let clustered = if maybe_unknown {
            let c = Clustering {
                shared: self.unknown.as_ref(),
                metrics: self.unknown_metrics.as_deref(),
                template: &mut self.unknown_template,
                matcher: self.matcher,
                found: &self.scratch.found,
                covered: &mut self.unknown_covered,
                pending: self.pending_unknown.as_mut(),
                plain: match (&other, raw_json.as_ref().and_then(|r| r.message.clone())) {
                    (Some(o), _) => o.message(&text),
                    (None, Some(m)) => m,
                    // Read only where no text line's parse says where the message is (every
                    // event at `any` comes here).
                    (None, None) if text_line.is_none() => plain_message(&text, syslog.as_ref().map(|s| s.ident)),
                    (None, None) => 0..0,
                },
                plain_error: other.as_ref().and_then(|o| o.error(&text)),
                postgres: matches!(&other, Some(Other::Stamped(st)) if st.postgres || st.psql_shaped()),
            };
            let crash = ev.header == Header::Panic && crate::matcher::go_crash_or_rust_panic(&text, &text);
            c.cluster(&log, crash, hays, names, text_line.as_ref(), &text, if json.is_some() { target } else { None })
        } else {
            None
        };
        let unknown_slot = clustered.is_some() && self.pending_unknown.is_some();
        let unknown = clustered.map(|(cluster, count, severity, text)| Unknown {
            cluster,
            template: &self.unknown_template,
            count,
            text,
            severity,
        });
        if !found && !all && unknown.is_none() && !unknown_slot {
            drop(log);
            self.text = text;
            self.observed = observed;
            return;
        }
        let mut ann = Annotated {
            schema: "annotail/1",
            event_id: self.meta.fingerprint.map(|fp| crate::event::event_id(fp, ev.offset)),
            timestamp: timestamp.as_deref().unwrap_or(&observed),
            observed: &observed,
            source: Source {
                kind: self.meta.kind,
                path: self.meta.path.as_deref(),
                line: ev.first_line,
                lines: ev.lines,
                offset: ev.offset,
            },
            message,
            raw: ev.bytes,
            log: &log,
            matcher: self.matcher,
            found: &self.scratch.found,
            context: &self.context,
            caps: &self.scratch.caps,
            hays,
            match_fields: &match_fields,
            seen: &[],
            unknown,
            unknown_slot,
        };
        let mut seen = std::mem::take(&mut self.seen);
        seen.clear();
        if let Some(inc) = &self.incidents
            && !ann.found.is_empty()
        {
            let at = crate::repeat::event_millis(ann.timestamp);
            for f in ann.found {
                let key = crate::repeat::Parts::of_found(&ann, f).key(&inc.key);
                match &mut self.deferred {
                    Some(d) => d.push(crate::repeat::Deferred { entry: f.entry, key, at_ms: at }),
                    None => {
                        let s = inc.observe(key, at);
                        if s == crate::repeat::Seen::First
                            && let Some(t) = &self.tally
                        {
                            t.add_incident(f.entry);
                        }
                        seen.push(s);
                    }
                }
            }
            if inc.collapse {
                ann.seen = &seen;
            }
        } else if let Some(inc) = &self.incidents
            && inc.collapse
            && self.writer.echoes_lines()
            && self.deferred.is_none()
            && ann.context.is_empty()
            && let Some(u) = &ann.unknown
        {
            // An event no record explains at all: its cluster stands for the record in the key.
            let key = crate::repeat::Parts::of_unknown(&ann, u.cluster, u.severity).key(&inc.key);
            let repeats = self.unknown_repeats.get_or_insert_with(|| crate::repeat::Repeats::new(inc.window));
            seen.push(repeats.observe(key, crate::repeat::event_millis(ann.timestamp)));
            ann.seen = &seen;
        }
        self.stopped |= self.writer.annotated(&ann) == Flow::Stop;
        self.counters.written += 1;
        // The event's borrows of `text` end here; `text` goes back for reuse.
        drop(log);
        self.seen = seen;
        self.text = text;
        self.observed = observed;
    }
}

/// The unknown events a worker of a parallel read left for the reader to cluster, in order.
#[derive(Debug, Default)]
pub struct PendingUnknowns {
    /// Their texts, one after another.
    pub texts: Vec<u8>,
    /// Per event: where its text ends in `texts`, and whether it needs a constant token to be
    /// clustered (see [`crate::unknown::Clusterer::observe_if`]).
    pub items: Vec<(usize, bool)>,
    /// [`crate::unknown::Clusterer::would_cluster`]'s tokenizer (its cache kept from event to
    /// event, and by a worker from segment to segment: see [`PendingUnknowns::with_tokenizer`]).
    scratch: crate::unknown::Tokenizer,
}

impl PendingUnknowns {
    /// None yet, tokenizing with `t`: a worker's tokenizer from its last segment, whose cache
    /// still holds the texts met there (a new one per segment started cold, and its cache was
    /// freed with each segment).
    pub fn with_tokenizer(t: crate::unknown::Tokenizer) -> Self {
        PendingUnknowns { scratch: t, ..Default::default() }
    }

    /// The tokenizer, for the worker's next segment.
    pub fn take_tokenizer(&mut self) -> crate::unknown::Tokenizer {
        std::mem::take(&mut self.scratch)
    }

    /// The `i`th event's text and whether it needs a constant.
    pub fn get(&self, i: usize) -> (&[u8], bool) {
        let start = if i == 0 { 0 } else { self.items[i - 1].0 };
        let (end, needs_constant) = self.items[i];
        (&self.texts[start..end], needs_constant)
    }
}

/// What [`Clustering::cluster`] found: the cluster, its count, the event's severity, and the
/// text clustered.
type Clustered<'t> = (u64, u64, crate::catalog::Severity, &'t [u8]);

/// The annotator's parts clustering needs (borrowed apart from the rest of it).
struct Clustering<'a> {
    shared: Option<&'a crate::unknown::Shared>,
    metrics: Option<&'a crate::metrics::Metrics>,
    template: &'a mut String,
    matcher: &'a Matcher,
    found: &'a [Found],
    covered: &'a mut Vec<Range<usize>>,
    /// A parallel read's worker: the text is kept for the reader to cluster, not clustered.
    pending: Option<&'a mut PendingUnknowns>,
    /// Where a plain line's message is: after another program's date, time and level
    /// ([`parse::StampedLine`]), a klog line's caller, or a logfmt line's `msg` value; a
    /// traceback's exception line when the event is one alone; else the whole text.
    plain: Range<usize>,
    /// Another program's line's error field ([`Other::error`]): a Go program's error pair, a
    /// logged Python or Java exception.
    plain_error: Option<Range<usize>>,
    /// The line is PostgreSQL's (a server log's report, or psql's `ERROR:  …`): its `FATAL`
    /// ends a session, an error ([`crate::unknown::level_severity`]).
    postgres: bool,
}

impl Clustering<'_> {
    /// Cluster what no record explains in this event, if its level is wanted; the template goes
    /// to `self.template`. `json_target` is a JSON line's target: what a line with no text of its
    /// own that no record explains is clustered by, as a text line is by its target
    /// ([`unexplained`]).
    #[allow(clippy::too_many_arguments)]
    fn cluster<'t>(
        self,
        log: &Log<'_>,
        panic: bool,
        hays: &[Hay<'t>],
        names: Option<&[(Vec<u8>, String)]>,
        tl: Option<&parse::TextLine>,
        text: &[u8],
        json_target: Option<&'t [u8]>,
    ) -> Option<Clustered<'t>> {
        let shared = self.shared?;
        let level = log.level.as_deref().map(str::as_bytes);
        if !shared.levels.wants(level, panic) {
            return None;
        }
        let warn_or_above = level.is_some_and(|l| !below_warn(l));
        let at = unexplained(
            self.matcher,
            self.found,
            hays,
            names,
            tl,
            (self.plain.clone(), self.plain_error.clone()),
            text,
            warn_or_above,
            self.covered,
        );
        // The event's target: what a line with no text of its own is clustered by.
        let target = json_target
            .or_else(|| tl.and_then(|t| t.target.clone()).and_then(|r| hays.first().and_then(|h| h.text.get(r))))
            .filter(|t| !t.trim_ascii().is_empty());
        // A message of punctuation alone (`...`, `!`, `=>`) that no record explains says no more
        // than `;` does, which is clustered by its target: so is it, where the event has one
        // (each had a template of its own; found by a third reader).
        let no_words = |(h, r): &(usize, Range<usize>)| {
            !hays[*h].text[r.clone()].iter().any(|&b| b.is_ascii_alphanumeric() || b >= 0x80)
        };
        let punctuation = self.found.is_empty() && target.is_some() && at.as_ref().is_some_and(no_words);
        let raw = match at {
            Some(_) if punctuation => target?,
            Some((hay, range)) => &hays[hay].text[unquoted(hays[hay].text, range)],
            // A JSON line with no text of its own (an empty, blank or missing message, and no
            // error) that no record explains: by its target, as a text line's is. It was dropped
            // from every output (found by a second reader).
            None if self.found.is_empty() && json_target.is_some() => target?,
            None => return None,
        };
        // A piece inside a `{:?}`-printed string has its quotes escaped (`S3Error { code:
        // \"SlowDown\" }`): it is clustered as the string says it, those escapes undone, so that
        // a struct or a quoted value in it masks as it does outside one (the same error gave
        // `… => <*> {<*>` quoted and `… => <*>` not).
        let unescaped;
        let piece = if memchr::memmem::find(raw, b"\\\"").is_some() {
            unescaped = undo_quote_escapes(raw);
            &unescaped[..]
        } else {
            raw
        };
        let needs_constant = !self.found.is_empty();
        let (cluster, count) = match self.pending {
            Some(p) => {
                if !crate::unknown::Clusterer::would_cluster(piece, needs_constant, &mut p.scratch) {
                    return None;
                }
                p.texts.extend_from_slice(piece);
                p.items.push((p.texts.len(), needs_constant));
                (0, 0)
            }
            None => {
                let mut c = shared.clusters.lock().unwrap_or_else(|e| e.into_inner());
                let seen = c.observe_if(piece, needs_constant)?;
                self.template.clear();
                self.template.push_str(seen.template);
                (seen.id, seen.count)
            }
        };
        let label = crate::unknown::level_label(level, panic);
        if let Some(m) = self.metrics {
            m.unknown_event(label);
        }
        let severity = crate::unknown::level_severity(label, level, panic, self.postgres);
        Some((cluster, count, severity, raw))
    }
}

/// `range` without surrounding blanks and, when the whole of it is one quoted string (`"…"`, a
/// cause printed with `{:?}`, whose quotes inside are escaped), without the quotes.
///
/// One string, not a text that starts and ends with one: Envoy's access log
/// (`"GET /x HTTP/2" 200 … "10.1.2.3:80"`) lost its first and last quotes, its request's words
/// were tokens of their own, and each HTTP method made a kind apart (a generalisation reader).
fn unquoted(text: &[u8], mut r: Range<usize>) -> Range<usize> {
    while r.start < r.end && text[r.start].is_ascii_whitespace() {
        r.start += 1;
    }
    while r.end > r.start && text[r.end - 1].is_ascii_whitespace() {
        r.end -= 1;
    }
    if r.end - r.start >= 2 && matches!(text[r.start], b'"' | b'\'' | b'`') && text[r.end - 1] == text[r.start] {
        let q = text[r.start];
        // The string closes at the first quote that no backslash escapes (a quote after an odd
        // run of them is escaped); the last quote escaped (`"a \"`) closes nothing. Inside `'…'`
        // an apostrophe between two letters closes nothing either (`'can't open file 7'`: a
        // second reader).
        let mut escaped = false;
        let (inner, end) = (r.start + 1, r.end);
        let apostrophe = |i: usize| {
            let word = |b: u8| b.is_ascii_alphanumeric() || b >= 0x80;
            q == b'\'' && word(text[i - 1]) && i + 1 < end && word(text[i + 1])
        };
        let closes = text[inner..r.end].iter().enumerate().position(|(k, &b)| {
            let close = b == q && !escaped && !apostrophe(inner + k);
            escaped = b == b'\\' && !escaped;
            close
        });
        if closes == Some(r.end - r.start - 2) {
            r = r.start + 1..r.end - 1;
        }
    }
    r
}

/// The part of an event no record explains. The text looked in is the message, then the `error`
/// field (for JSON lines, `fields.message` or `message`, then `fields.error`); what the matches
/// explain is taken out of it: a record's match, except that a wrapper's (its trailing
/// placeholder holds an error) trailing capture is left in, since the error it holds may be one
/// no record knows. Before them, for a RisingWave event (text or JSON) at WARN or above
/// (`warn_or_above`) without an `error` field, the `error` field of the span it was logged in
/// (the innermost span that has one).
///
/// For RisingWave text, the causes of a multi-line report (the lines below the first, up to a
/// backtrace) belong to whichever region ends the first line.
///
/// - Nothing matched in either: the message, whole (or, with fewer than [`MIN_UNEXPLAINED`]
///   letters and digits, the error field).
/// - Else the first piece left after the innermost known error (a match that is neither a log
///   message, a host, nor a wrapper that only passes its source on; none: from the start) with
///   at least [`MIN_UNEXPLAINED`] letters or digits: a known host's error field, a known
///   wrapper's trailing capture, what follows a known error in its chain. This is the issue's
///   rule read the way [`Matcher::rank`] reads a chain: the innermost error is the event's
///   error, so an unknown link *outside* a known error is its context (the event is explained,
///   as its primary match says), while one *inside* it is its unknown cause, which a known host
///   or wrapper must not hide. Outermost of those, not innermost: a chain reads from the error
///   raised to the one that caused it, and the first link no record knows is the error the
///   catalog lacks; the links inside it are its causes, and the innermost is most often a
///   third-party root (`Connection refused (os error 111)`) that ends the chains of many
///   different errors, so clustering by it would put them all in one cluster.
///
/// The rest of a message whose start a record knows (`database entering recovery` known, `on
/// inject failure` left), when the event has an `error` field, is taken only if that field
/// holds no unknown part: those words are the host's own (no `: ` joins them to it as a
/// cause), and the field is where the event's error is.
///
/// Of that piece, only its first link is clustered ([`first_link`]): the causes chained after it
/// vary from one event of the same error to the next. The message of a line without a parsed
/// header (`structured` false: plain text, not a tracing event) is kept whole, since outside a
/// Rust error report `: ` is no link separator; for another program's line that starts with its
/// date and time, the message is `plain.0`, after the time and level (the template of
/// `2024-01-01 12:00:00,123 WARN [main] …` is not made of the time's digits; a Go program's:
/// klog's message, logfmt's `msg`, its other pairs left out as a RisingWave line's fields are,
/// but its `err` pair, `plain.1`, read as a RisingWave line's `error` field). `None`: the
/// matches explain the event. `covered` is a buffer reused from event to event: nothing here
/// allocates once it has grown.
#[allow(clippy::too_many_arguments)]
fn unexplained(
    m: &Matcher,
    found: &[Found],
    hays: &[Hay<'_>],
    names: Option<&[(Vec<u8>, String)]>,
    tl: Option<&parse::TextLine>,
    plain: (Range<usize>, Option<Range<usize>>),
    text: &[u8],
    warn_or_above: bool,
    covered: &mut Vec<Range<usize>>,
) -> Option<(usize, Range<usize>)> {
    // The message, the `error` field, and first (for an event at WARN or above without an
    // `error` field of its own) the error of the span it was logged in.
    let mut regions: [Option<(usize, Range<usize>)>; 3] = [None, None, None];
    let structured = names.is_some() || tl.is_some();
    // psql's `ERROR:` line carries RisingWave's error report: where a record matched in it, its
    // wrappers' trailing captures are links of a chain, as in a logged report. Where none did it
    // may be PostgreSQL's own (`could not open file "…": Permission denied`), read whole as any
    // plain line (found by a second reader).
    let chained = structured || parse::psql_report(text);
    match (names, tl) {
        (Some(n), _) => {
            regions[1] = n
                .iter()
                .position(|(_, k)| k == "fields.message" || JSON_MESSAGE_KEYS.contains(&k.as_str()))
                .map(|i| (i, 0..hays[i].text.len()));
            regions[2] = (0..n.len())
                .filter_map(|i| {
                    // RisingWave's JSON fields, or another program's top-level `error` (`err`),
                    // or its `error.message` (ECS); a top-level `e` is too short to be taken for
                    // an error outside RisingWave's own fields.
                    if empty_value(&hays[i].text) {
                        return None;
                    }
                    let k = n[i].1.as_str();
                    let rank = match k.strip_prefix("fields.") {
                        Some(f) => error_key_rank(f.as_bytes()),
                        None => error_key_rank(k.strip_suffix(".message").unwrap_or(k).as_bytes()).filter(|&r| r < 2),
                    };
                    rank.map(|r| (r, i))
                })
                .min()
                .map(|(_, i)| (i, 0..hays[i].text.len()));
            // The span's error, as for a text line (below): the innermost span (the last in
            // `spans`) that has one.
            if regions[2].is_none() && warn_or_above {
                regions[0] = n
                    .iter()
                    .rposition(|(_, k)| k.starts_with("spans[") && k.ends_with("].error"))
                    .map(|i| (i, 0..hays[i].text.len()));
            }
        }
        (None, Some(t)) => {
            regions[1] = Some((0, t.message.clone()));
            regions[2] = error_field(text, &t.fields).map(|v| (0, v));
            // An error field left empty at the end of the first line (`… error=`, `error=""`)
            // over a report on the lines below (`Caused by:`; not any line: a panic's `note:`, a
            // Java frame): the report is its value, and the field ends the first line (below).
            // Its causes were no region's, and the event went by as explained by its known
            // message (found by a developer's reading).
            if regions[2].is_none()
                && let Some(nl) = memchr::memchr(b'\n', text)
                && let Some((k, v)) = t.fields.last()
                && v.end <= nl
                && error_key_rank(&text[k.clone()]).is_some()
                && empty_value(&text[v.clone()])
                && text[v.end..nl].trim_ascii().is_empty()
                && report_below(&text[nl..])
            {
                regions[2] = Some((0, nl..nl));
            }
            // A warning logged inside a span that holds an error (`failure_recovery{error=…}:
            // recovery_attempt: … waiting for …`) reports a step of handling that error: the
            // message is the handler's, the same for every error it handles, and the span's
            // error is what went wrong. Below WARN such a span is only context (see
            // `is_context`), and a line's own `error` field is its own error.
            if regions[2].is_none() && warn_or_above {
                regions[0] = t.spans.iter().rev().find_map(|(_, f)| error_field(text, f)).map(|v| (0, v));
            }
            // A multi-line report (`Caused by:` and its causes on the lines below) goes on the
            // chain of whichever ends the first line, the message or its last field: the causes
            // are links of that chain, and the first unknown one must not go unseen because it
            // is printed on a line of its own. A backtrace below them is not part of it.
            // The `key=value` fields that end the last line (those of a message that spans lines,
            // or of a report below the first line's `error` field) are not part of it.
            if let Some(nl) = memchr::memchr(b'\n', text) {
                let mut end = report_end(text, nl);
                // The fields end the report's last line: the text's, or the one above a
                // backtrace (and the blank line before it).
                let body = text[..end].trim_ascii_end().len().max(nl);
                let last = memchr::memrchr(b'\n', &text[..body]).map_or(0, |p| p + 1);
                end = parse::first_field_start(&text[last..body]).map_or(end, |at| (last + at).max(nl));
                for r in regions.iter_mut().flatten() {
                    if r.1.end == nl && end > nl {
                        r.1.end = end;
                    }
                }
            }
        }
        _ => {
            // Of several lines, not a stack trace below the causes (a JDBC exception's frames
            // after a known error; where nothing matched only the first line is read, and the
            // look for line breaks is skipped: `--unknown any` on plain lines paid 190
            // instructions an event for it).
            let len = hays.first().map_or(0, |h| h.text.len());
            let first_nl = if found.is_empty() { None } else { memchr::memchr(b'\n', &text[..len.min(text.len())]) };
            let len = first_nl.map_or(len, |nl| report_end(text, nl).min(len));
            let within = |r: &Range<usize>| (0, r.start.min(len)..r.end.min(len));
            regions[1] = hays.first().map(|_| within(&plain.0));
            regions[2] = plain.1.as_ref().map(within);
        }
    }
    // A wrapper's trailing capture is a link of its own only in a parsed message: on a plain line
    // `: ` is no chain separator (the text is clustered whole when no record knows it), and a
    // draft `EventType: {}` of such lines left its value to cluster, a cluster for each value.
    // There a trailing capture takes the rest of the text: a plain line has no fields, and its
    // capture, stopped at a ` key=` (`Intent { flg=1 }`, `backend x1 code=7`), left the words
    // after it to cluster (found by a reader comparing the drafts before and after).
    let own = |f: &Found| {
        let t = hays[f.hay as usize].text;
        let tail = f.tail < f.end;
        let end = if !chained && tail {
            t.len()
        } else if tail && m.entries[f.entry as usize].tail_is_error {
            balanced_tail(t, f.start, f.tail, f.end)
        } else {
            f.end
        };
        f.start..end
    };
    // A known error whose match starts after a word and a blank of its region (not of the
    // line's header, `WARN` before a message without a target), where no other match's
    // trailing capture starts, is the end of a longer message no record knows (`old sink job 7
    // not found in barrier state` over a record's `job {} not found in barrier state`): an
    // error's text stands at the start of a message or field, after a `: `, a quote or a
    // bracket, or in a host's capture, not after words of its own. It explains nothing there.
    // After another match's words, with only blanks between, it is the words that follow a
    // known error, the piece this function leaves unexplained when no record knows it: a
    // record for that piece (a draft `discover` made of it) explains it, or the draft never
    // explained its own lines and each round drafted it again (found by a second reader).
    let mid_words = |f: &Found, r: &Range<usize>| {
        let t = hays[f.hay as usize].text;
        m.entries[f.entry as usize].class != crate::matcher::Class::LogEvent
            && f.start >= r.start + 2
            && t[f.start - 1] == b' '
            && t[f.start - 2].is_ascii_alphanumeric()
            && !found.iter().any(|g| {
                g.hay == f.hay
                    && g.start < f.start
                    && (g.tail == f.start || (g.end < f.start && t[g.end..f.start].iter().all(|&b| b == b' ')))
            })
    };
    let in_region = |f: &Found, (h, r): &(usize, Range<usize>)| {
        f.hay as usize == *h && f.start < r.end && f.end > r.start && !mid_words(f, r)
    };
    // A panic known by where it happened ([`Matcher::by_location`]): the record of that place
    // in the code explains the panic, its message included (the value it unwrapped, which every
    // panic of its kind words alike: clustered, it would join panics of different places).
    if found.iter().any(|f| f.distance.is_some()) {
        return None;
    }
    // (region, offset) where the innermost known error's own text ends.
    let mut after: Option<(usize, usize)> = None;
    let mut any = false;
    for (i, region) in regions.iter().enumerate() {
        let Some(region) = region else { continue };
        for f in found.iter().filter(|f| in_region(f, region)) {
            any = true;
            if m.entries[f.entry as usize].class == crate::matcher::Class::Error {
                after = after.max(Some((i, own(f).end)));
            }
        }
    }
    if !any {
        let mut short = None;
        for (i, (h, region)) in regions.into_iter().enumerate().filter_map(|(i, r)| Some((i, r?))) {
            let t = hays[h].text;
            let range = trim_links(t, region);
            let range = range.start..range.end - crate::event::sqlstate_suffix(&t[range.clone()]);
            if enough_alnum(&t[range.clone()]) {
                let range = if structured || i != 1 {
                    first_link(t, range)
                } else {
                    // Only its first line is clustered (a template is one line): without the
                    // separator that ends it, as a text of one line would be (a panic's header
                    // is `… panicked at src/x.rs:12:5:` over its message, and alone when the
                    // message has not come).
                    let first = trim_links(
                        t,
                        range.start..memchr::memchr(b'\n', &t[range.clone()]).map_or(range.end, |n| range.start + n),
                    );
                    if first.is_empty() { range } else { first }
                };
                return Some((h, range));
            }
            if short.is_none() && !range.is_empty() {
                short = Some((h, range));
            }
        }
        // No record explains the event, so it is written only if clustered: a text too short
        // for the rule above (`EOF`, `oom`) is clustered whole rather than the event dropped,
        // and a RisingWave line with no text at all (its target's colon ends the line, over a
        // backtrace) by its target.
        return short.or_else(|| tl.and_then(|t| t.target.clone()).map(|r| (0, r)));
    }
    let has_error_field = regions[2].is_some();
    let mut remnant_at = None;
    for (i, (h, region)) in regions.into_iter().enumerate().filter_map(|(i, r)| Some((i, r?))) {
        if after.is_some_and(|(ai, _)| ai > i) {
            continue;
        }
        let t = hays[h].text;
        covered.clear();
        covered.extend(found.iter().filter(|f| in_region(f, &(h, region.clone()))).map(own));
        covered.sort_unstable_by_key(|r| r.start);
        let mut at = match after {
            Some((ai, end)) if ai == i => end.max(region.start),
            _ => region.start,
        };
        let mut next = covered.iter();
        loop {
            let c = next.next();
            if c.is_some_and(|c| c.end <= at) {
                continue;
            }
            // A match may run past the region (into the fields after the message, over lines):
            // the gap stays inside it.
            let mut lo = at.min(region.end);
            // The rest of a word a record's text ends inside (`failpoint metastore err` in
            // `failpoint metastore error: Parse error: …`) is no link of its own: alone it read
            // `or: Parse error` (a one-word label and the link after it).
            let letters = |p: usize| t.get(p).is_some_and(u8::is_ascii_alphabetic);
            if lo > region.start
                && letters(lo - 1)
                && letters(lo)
                && found.iter().any(|f| f.hay as usize == h && f.tail == f.end && f.end == lo)
            {
                while lo < region.end && t[lo].is_ascii_alphanumeric() {
                    lo += 1;
                }
            }
            let mut gap = lo..c.map_or(region.end, |c| c.start).clamp(lo, region.end);
            // A known error's capture that took a gRPC status's label (`sink format unsupported:
            // {f}` over `status: Unavailable, message: "…"`, `f` = `status`): the status is the
            // piece, read as one is, by the message inside it. Its code was the template
            // (`Unavailable, message`), one cluster of every error that came back so (found by a
            // catalog keeper's reading).
            if gap.start >= region.start + 6
                && t[..gap.start].ends_with(b"status")
                && status_head(&t[gap.start - 6..gap.end]).is_some()
            {
                gap.start -= 6;
            }
            // A piece inside a quoted string (a gRPC status's `message: "…"`, the cause the
            // server sent) ends at its closing quote: what follows it (`", details: [],
            // metadata: MetadataMap { … }`) is the status's, and in the template it split one
            // error from the same error logged without the status (read in an issue thread).
            if let Some(close) = closing_quote(&t[region.start..gap.end], gap.start - region.start) {
                gap.end = region.start + close;
                // Inside a status inside a quoted value, a piece of its message (after a known
                // error in it) ends at the message's escaped quote. A piece that holds the
                // status's head is read by `first_link`, which finds that quote itself.
                if memchr::memmem::find(&t[gap.clone()], b"message: \\\"").is_none()
                    && let Some(p) = memchr::memmem::find(&t[gap.clone()], b"\\\", details: ")
                {
                    gap.end = gap.start + p;
                }
            } else {
                // One that starts at its opening quote (the status's label known, a draft's
                // `status: Cancelled, message`), up to and with its closing one, which
                // `trim_links` takes off with the opening one (found by a third reader: every
                // status's message was one `<*>, details`).
                let open =
                    gap.start + t[gap.clone()].iter().take_while(|&&b| b == b':' || b.is_ascii_whitespace()).count();
                // Only a string that is the whole piece (a `,` or a bracket after it, or
                // nothing): a quoted value that opens a longer text (`"t" is not append-only`)
                // is that text's.
                if open < gap.end
                    && t[open] == b'"'
                    && let Some(close) = closing_quote(&t[open..gap.end], 1)
                    && matches!(t.get(open + close + 1), None | Some(b',' | b')' | b']' | b'}'))
                {
                    gap.end = open + close + 1;
                }
            }
            // A gRPC status's head before a known error in its message (`status: Internal,
            // message: "` and `Catalog error: …` known), or its tail after one inside a quoted
            // value (`\", details: [] …`, where the closing quote below is the value's): the
            // envelope the error came back in.
            gap.end -= crate::event::sqlstate_suffix(&t[gap.clone()]);
            let g = t[gap.clone()].trim_ascii();
            let g = g.strip_prefix(b":").unwrap_or(g).trim_ascii_start();
            let envelope = status_head(g).is_some_and(|h| h == g.len())
                || g.strip_prefix(b"\\").unwrap_or(g).starts_with(b"\", details: ");
            if !envelope && enough_alnum(&t[gap.clone()]) {
                // The host's own words after a match in its message (see above): second to
                // the error field.
                let own_words = i == 1 && at > region.start && t.get(lo).is_some_and(|b| *b == b' ');
                // The same words before a `Caused by:` report on the lines below (`failed to
                // inject barrier on worker 3`, then the report): its first cause is the error,
                // and the words come second to it as they do to an error field. Only a report:
                // other lines below a message (a panic's `note:`, a backtrace, `{:#?}` output,
                // the message's own next line) are not its cause, and an `error` field, when
                // there is one, stays first.
                let nl = memchr::memchr(b'\n', &t[gap.clone()]).map(|p| gap.start + p);
                if own_words
                    && !has_error_field
                    && let Some(nl) = nl
                    && memchr::memmem::find(&t[gap.start..nl], b": ").is_none()
                    && t[nl..gap.end].trim_ascii_start().starts_with(b"Caused by")
                {
                    let words = first_link(t, trim_links(t, gap.start..nl));
                    if enough_alnum(&t[words.clone()]) {
                        remnant_at = remnant_at.or(Some((h, words)));
                    }
                    let (_, cause) = past_repeats(t, h, found, nl..gap.end);
                    if enough_alnum(&t[cause.clone()]) {
                        return Some((h, cause));
                    }
                } else {
                    let remnant =
                        own_words && has_error_field && memchr::memmem::find(&t[gap.clone()], b": ").is_none();
                    let (whole, range) = past_repeats(t, h, found, gap.clone());
                    let whole = trim_links(t, whole);
                    // The host's own words with a cause joined to them by `: ` (`failed to create
                    // source worker` known, `for source 7: kafka broker unreachable` left): the
                    // cause is the error, as it is when the report prints it on the line below,
                    // and the words come second to it. Alone they were the event's template
                    // (`for source <*>`), one cluster of every cause (found by a developer's
                    // reading). A cause that reads as values of the words ([`reads_as_cause`]:
                    // `at epoch: 12`, `for table: orders`, `Status { code: … }`) is none: the
                    // words are taken then (a second reader found such events without a cluster,
                    // or one per table). Only on the line: below it, a report is read above, and
                    // other lines (a Java frame, `{:#?}` output) are no cause.
                    if own_words && !has_error_field && t[range.end..whole.end].starts_with(b": ") {
                        let (_, cause) = past_repeats(t, h, found, range.end..whole.end);
                        if reads_as_cause(&t[cause.clone()])
                            && memchr::memchr(b'\n', &t[range.end..cause.start]).is_none()
                        {
                            return Some((h, cause));
                        }
                        // Not a cause, but a report below it has one: that is the error (the
                        // words hid it: a third reader).
                        if let Some(nl) = nl
                            && report_below(&t[nl..gap.end])
                        {
                            let (_, cause) = past_repeats(t, h, found, nl..gap.end);
                            if enough_alnum(&t[cause.clone()]) {
                                return Some((h, cause));
                            }
                        }
                    }
                    // Names of kinds of error before a known one (`QueryError: internal error:
                    // …`, `Sink error: Kafka error: …`): wrappers of what follows, as in
                    // [`first_link`], so no error of their own.
                    if c.is_some() && only_error_kinds(&t[whole.clone()]) {
                        at = at.max(c.map_or(at, |c| c.end));
                        continue;
                    }
                    // All that is left of the region after a known error, one quoted word, or
                    // one lower-case word with a digit or a name's punctuation in it, is that
                    // error's value printed after it (psql's `table or source not found:
                    // t_orders` over a record's `table {} not found`), not an error no record
                    // knows; a word of letters alone may be one (`: timeout`), and so may a
                    // word with capitals or brackets (`java.net.ConnectException`,
                    // `ERR_CONNECTION_REFUSED`, `Io(Kind(BrokenPipe))`), and so is the trailing
                    // capture of a wrapper that is the innermost known error, its cause.
                    let quoted = whole.start > 0
                        && matches!(t[whole.start - 1], b'"' | b'\'' | b'`')
                        && t.get(whole.end) == Some(&t[whole.start - 1]);
                    let value = at > region.start
                        && c.is_none()
                        && ((range == whole && value_word(&t[range.clone()], quoted))
                            || pretty_value(t, range.clone(), whole.end))
                        && !found.iter().any(|f| {
                            f.hay as usize == h
                                && m.entries[f.entry as usize].tail_is_error
                                && own(f).end >= at
                                && f.end >= range.end
                        });
                    // In an error (a field's, a span's), words that go on from a known error's
                    // last word with a blank, no link between (`failed to query PostgreSQL LSNs`
                    // known, `for source 12281` left): the known error is the start of a longer
                    // error no record knows (an older text of it), clustered from that start.
                    // Alone, the words were the template (`for source <*>`), and its draft took
                    // the lines of every error that ends so, INFO lines too (found by a catalog
                    // keeper's reading). Not in the message: there they are the host's own words
                    // (`on worker <*>`), and with the host's text before them the clusters of
                    // different words after one host merged (`failed to inject barrier <*> <*>`).
                    // Nor after a known error with values of its own: a value of more words than
                    // another (`task job 7 is not running`, `task task-1 is not running`) split
                    // one cluster in two (a second reader's).
                    let known_before = (i != 1 && !value).then(|| {
                        found.iter().find(|f| {
                            f.hay as usize == h
                                && f.tail == f.end
                                && f.caps.0 == f.caps.1
                                && f.end + 1 == range.start
                                && t[f.end] == b' '
                                && f.end > f.start
                                && t[f.end - 1].is_ascii_alphanumeric()
                                && m.entries[f.entry as usize].class == crate::matcher::Class::Error
                        })
                    });
                    let range = match known_before.flatten() {
                        Some(f) => f.start..range.end,
                        None => range,
                    };
                    if !value && enough_alnum(&t[range.clone()]) {
                        if !remnant {
                            return Some((h, range));
                        }
                        // Still the event's unknown part when its error field holds none.
                        remnant_at = remnant_at.or(Some((h, range)));
                    }
                }
            }
            match c {
                Some(c) => at = at.max(c.end),
                None => break,
            }
        }
    }
    remnant_at
}

/// Is the first link `range` the head of a value printed with `{:#?}` that is all that is left up
/// to `end`: a name (or none) and an opening bracket ending its line, the bracket closed on a
/// line below, nothing but punctuation after it (`StreamActor {`, its fields, `}`)? Printed with
/// `{:?}` on one line, such a value masks whole and is no error; cut at its first line, each
/// round of `discover` drafted the next line of it (`StreamActor {{`, then `actor_id: {}`:
/// found by a developer's reading).
fn pretty_value(t: &[u8], range: Range<usize>, end: usize) -> bool {
    let head = t[range.clone()].trim_ascii_end();
    let Some((&open, name)) = head.split_last() else { return false };
    if !matches!(open, b'{' | b'(' | b'[')
        || name.trim_ascii().iter().any(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
    {
        return false;
    }
    let Some(nl) = memchr::memchr(b'\n', &t[range.end..end]).map(|p| range.end + p) else { return false };
    if !t[range.end..nl].trim_ascii().is_empty() {
        return false;
    }
    let Some(close) = pretty_close(t, nl) else { return false };
    close < end && t[close + 1..end].iter().all(|b| b.is_ascii_whitespace() || b.is_ascii_punctuation())
}

/// When the line that ends at `nl` ends with an opening bracket (blanks after it aside), where
/// its closing bracket is. Quotes are skipped; `None` when it does not close.
fn pretty_close(t: &[u8], nl: usize) -> Option<usize> {
    let open = t[..nl].iter().rposition(|b| !b.is_ascii_whitespace())?;
    if !matches!(t[open], b'{' | b'(' | b'[') {
        return None;
    }
    let (mut depth, mut i) = (0i32, open);
    while i < t.len() {
        match t[i] {
            b'"' => i += memchr::memchr(b'"', &t[i + 1..])? + 1,
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Does `t`, after a known message's own words and `: `, read as an error rather than as values
/// of those words? Not when a struct or a list comes first (`Status { code: Unavailable }`,
/// `[1001, 1002]`: they mask to values alone, and the event got no cluster); yes with two words
/// of three letters or more (`quux shard 42 unreachable`; not `12345, prev` nor `in 5
/// seconds`), or one word as told below (`timeout`, `ERR_CONNECTION_REFUSED`; not `orders`).
fn reads_as_cause(t: &[u8]) -> bool {
    // A value printed with `{:?}` or a list, first: `Status { code: … }`, `[1001, 1002]` (not a
    // bracketed label, `[ERROR] disk full`).
    let head = t.iter().position(|b| !(b.is_ascii_alphanumeric() || b == &b'_')).unwrap_or(t.len());
    let after = t[head..].trim_ascii_start();
    let list = t.starts_with(b"[")
        && t.get(1).is_none_or(|b| b.is_ascii_digit() || matches!(b, b'"' | b'\'' | b'[' | b']' | b'-'));
    if list || (after.starts_with(b"{") && !t[..head].is_empty()) || t.starts_with(b"{") {
        return false;
    }
    // Its words without the punctuation around them (`(quux`, `unreachable)`, `null,`); a name
    // of letters joined by `_`, `.` or `-` is a word (`match_pattern`).
    let words = t.split(u8::is_ascii_whitespace).map(|w| {
        let s = w.iter().position(|b| b.is_ascii_alphanumeric() || *b >= 0x80).unwrap_or(w.len());
        let e = w.iter().rposition(|b| b.is_ascii_alphanumeric() || *b >= 0x80).map_or(s, |e| e + 1);
        &w[s..e.max(s)]
    });
    let word = |w: &&[u8]| {
        w.len() >= 3
            && (w[0].is_ascii_alphabetic() || w[0] >= 0x80)
            && w.iter().all(|&b| b.is_ascii_alphabetic() || b >= 0x80 || matches!(b, b'_' | b'.' | b'-'))
    };
    if words.clone().filter(word).take(2).count() == 2 {
        return true;
    }
    // One word: text outside ASCII, or a word one of whose parts is a failure word (parts split at
    // what is not a letter and at a capital after a small letter: `ERR_CONNECTION_REFUSED`,
    // `Io(Kind(BrokenPipe))`, `java.net.ConnectException`, `Timeout`). Not with a digit: `V1`,
    // `0xDEADBEEF` or a time masks to nothing, and the event lost its cluster (a fourth
    // reader). A name is a value (`orders`, `Running`, `full_name`, `failover_group`).
    let t = t.trim_ascii();
    if t.is_empty() || t.iter().any(|b| b.is_ascii_whitespace() || b.is_ascii_digit()) {
        return false;
    }
    if t.iter().any(|&b| b >= 0x80) {
        return enough_alnum(t);
    }
    let failure = |part: &[u8]| FAILURE_WORDS.iter().any(|w| part.eq_ignore_ascii_case(w));
    let mut start: Option<usize> = None;
    for i in 0..=t.len() {
        let b = t.get(i).copied();
        let letter = b.is_some_and(|b| b.is_ascii_alphabetic());
        let hump =
            start.is_some_and(|s| i > s) && b.is_some_and(|b| b.is_ascii_uppercase()) && t[i - 1].is_ascii_lowercase();
        if let Some(s) = start
            && (!letter || hump)
        {
            if failure(&t[s..i]) {
                return true;
            }
            start = None;
        }
        if letter && start.is_none() {
            start = Some(i);
        }
    }
    false
}

/// Words that say a failure, whole parts of a one-word cause ([`reads_as_cause`]): `refused` in
/// `connection_refused`, not `full` in `fullname` nor `oom` in `bloom`.
#[rustfmt::skip]
const FAILURE_WORDS: &[&[u8]] = &[
    b"timeout", b"timeouts", b"timedout", b"refused", b"reset", b"closed", b"denied", b"fail",
    b"failed", b"failure", b"fails", b"error", b"errored", b"err", b"eof", b"unavailable",
    b"unreachable", b"exhausted", b"cancelled", b"canceled", b"aborted", b"interrupted",
    b"overflow", b"invalid", b"mismatch", b"conflict", b"expired", b"killed", b"oomkilled",
    b"panic", b"panicked", b"poisoned", b"disconnected", b"exceeded", b"broken", b"corrupt",
    b"corrupted", b"unsupported", b"forbidden", b"unauthorized", b"unauthenticated", b"oom",
    b"elapsed", b"exception", b"econnrefused", b"econnreset", b"etimedout", b"epipe", b"enoent",
    b"eacces", b"deadlock", b"rejected",
];

/// Does `t` (from a line break on) go on with a report's header on its next line, as framing
/// tells one ([`crate::framing::cause_header`])?
fn report_below(t: &[u8]) -> bool {
    let t = t.trim_ascii_start();
    crate::framing::cause_header(&t[..memchr::memchr(b'\n', t).unwrap_or(t.len())])
}

/// `r` past the links at its start that repeat a known error of the event (in haystack `h`),
/// and the first link after them ([`first_link`]). A report of an error whose text already
/// holds its source lists that source again below (`failed to notify cancellation result: no
/// vnodes to assign`, then `Caused by:` and `no vnodes to assign`), and an error printed twice
/// in one field (`Insert error: failed to create source worker, error url: failed to create
/// source worker: …`) repeats itself inline: the repeat is the known error, not a cause no
/// record knows. Compared by first links: a known wrapper's repeat (`Actor 7 exited
/// unexpectedly`, its source on as the next cause) is its first link. Before, the repeat was
/// clustered under the known error's own text, and a draft of it never took the event from
/// unknown: each round of `discover` drafted it again (found by catalog keepers' readings,
/// under a report and then inline).
fn past_repeats(t: &[u8], h: usize, found: &[Found], mut r: Range<usize>) -> (Range<usize>, Range<usize>) {
    for _ in 0..MAX_REPEATS {
        let link = first_link(t, trim_links(t, r.clone()));
        if link.is_empty() {
            return (r, link);
        }
        // The first bytes are compared before the first links: this runs for every piece of
        // every event at WARN and above, and a known error's own first link costs a walk of its
        // text.
        let repeat = found.iter().find(|f| {
            f.hay as usize == h
                && f.end <= link.start
                && f.end - f.start >= link.len()
                && t[f.start] == t[link.start]
                && t[first_link(t, f.start..f.end)] == t[link.clone()]
        });
        let Some(f) = repeat else { return (r, link) };
        // The whole known error when the cause repeats all of it (`Failed to decode prost: field
        // not found `x``, two links): its second link is no cause either (found by a second
        // reader: it was clustered, and the cause after it went unseen).
        let whole = &t[f.start..f.end];
        if t[link.start..r.end].starts_with(whole) {
            r.start = link.start + whole.len();
            continue;
        }
        // The same record again with other values (`Failed to decode prost: field not found
        // `events``, then `… `bids``): as many links as the known error's own text has (a
        // wrapper's trailing capture, its cause, is not its own) are that record's, not its
        // first link alone (its second link was clustered: found by a second reader). Counted,
        // not matched again: the record's regex takes a trailing capture to the line's end, and
        // searched from each repeat it cost a scan of the line each (a third reader).
        let own_end = if f.tail < f.end { f.tail } else { f.end };
        let links = walk_links(t, f.start..own_end, MAX_REPEATS).0.max(1);
        r.start = walk_links(t, link.end..r.end, links - 1).1;
    }
    // A line of many repeats (hostile, or a loop that wraps its error again and again): each
    // link is found with a look for the end of its line. The rest is no cause to cluster: it
    // was the known error's own text, drafted again each round (a fourth reader).
    (r.end..r.end, r.end..r.end)
}

/// Repeats of a known error skipped in one piece ([`past_repeats`]): a report repeats its error
/// once or twice; 43,000 of them on a 1 MB line cost 0.5 s unbounded (a third reader), 1,000
/// of them about 60 ms.
const MAX_REPEATS: usize = 1000;

/// Up to `max` links of `r` as [`first_link`] reads them (a label and the link after it are
/// one): how many there were, and where the last ended (`r.start` when none). A known error's
/// own links are counted and its repeat's skipped the same way: counting every `: ` skipped
/// past the cause after a repeat with a label in it (`Invalid time: secs: 5, …`: a fourth
/// reader).
fn walk_links(t: &[u8], mut r: Range<usize>, max: usize) -> (usize, usize) {
    let mut n = 0;
    while n < max {
        let link = first_link(t, trim_links(t, r.clone()));
        if link.is_empty() {
            break;
        }
        n += 1;
        r.start = link.end;
    }
    (n, r.start)
}

/// Where a wrapper's trailing capture starts, `tail` as the match gave it unless the text before
/// it opens a bracket it does not close: a lazy capture of a `{:?}`-printed value stops at the
/// first `: ` inside it (`Failed to notify {:?} {:?}: {}` over `EpochPair { curr: 1, prev: 2 }
/// [3]: cause`), and the trailing capture is then what follows the first `: ` after the
/// brackets close (`cause`). `tail` when there is none before `end`.
fn balanced_tail(text: &[u8], start: usize, tail: usize, end: usize) -> usize {
    let depth = |t: &[u8]| {
        t.iter().fold(0i32, |d, b| match b {
            b'(' | b'[' | b'{' => d + 1,
            b')' | b']' | b'}' => d - 1,
            _ => d,
        })
    };
    let mut d = depth(&text[start..tail]);
    if d <= 0 {
        return tail;
    }
    let mut i = tail;
    while i + 1 < end {
        match text[i] {
            b'(' | b'[' | b'{' => d += 1,
            b')' | b']' | b'}' => d -= 1,
            b':' if d <= 0 && text[i + 1] == b' ' => return i + 2,
            _ => {}
        }
        i += 1;
    }
    tail
}

/// Where the causes printed below an event's first line (which ends at `nl`) end: at a
/// backtrace's header, a Java stack frame (`\tat org.postgresql…(QueryExecutorImpl.java:2725)`,
/// below a client's `PSQLException` carrying RisingWave's report), or the end of the text. A
/// frame after a known cause was clustered as the event's unknown error (`at
/// <*>(QueryExecutorImpl.java:<*>)`, every JDBC error of an application one cluster: found by a
/// developer's reading). (Passing over the frames instead, to reach a `Caused by:` after them,
/// made a known error's last value before them a piece of its own: a third reader.)
fn report_end(text: &[u8], nl: usize) -> usize {
    let mut at = nl;
    for line in text[nl + 1..].split(|&b| b == b'\n') {
        let l = line.trim_ascii_start();
        if l.starts_with(b"Backtrace:")
            || l.starts_with(b"Stack backtrace:")
            || l.starts_with(b"stack backtrace:")
            || java_frame(l)
        {
            return at;
        }
        at += 1 + line.len();
    }
    text.len()
}

/// Is `l` (its indent taken off) a Java stack frame, `at <class>.<method>(<file>:<line>)` (or
/// `(Native Method)`, `(Unknown Source)`), or the `... 12 more` that ends a cause's frames?
fn java_frame(l: &[u8]) -> bool {
    let l = l.trim_ascii_end();
    if let Some(rest) = l.strip_prefix(b"... ") {
        return rest.strip_suffix(b" more").is_some_and(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit));
    }
    let Some(call) = l.strip_prefix(b"at ") else { return false };
    let Some(open) = memchr::memchr(b'(', call) else { return false };
    open > 0 && call.ends_with(b")") && call[..open].contains(&b'.') && !call[..open].contains(&b' ')
}

/// Is `t` a value's word: one word (no blank), `quoted`, or in lower case with something other
/// than letters in it, a digit or a name's `_`, `.`, `-`, `/`, `:`, and no bracket (`t_orders`,
/// `host-0.svc:5690`): a name or an address. Capitals and brackets are an error's shape (a
/// class, a code, a `Debug` variant).
fn value_word(t: &[u8], quoted: bool) -> bool {
    !t.iter().any(u8::is_ascii_whitespace)
        && (quoted
            || (!t.iter().any(|b| b.is_ascii_uppercase() || matches!(b, b'(' | b'[' | b'{'))
                && t.iter().any(|b| !b.is_ascii_alphabetic())))
}

/// Has `t` at least [`MIN_UNEXPLAINED`] letters and digits? A byte of a character outside ASCII
/// counts as a letter (a message in Chinese or Russian has no ASCII letter at all). Counting
/// stops there: a whole message was counted for every event.
fn enough_alnum(t: &[u8]) -> bool {
    t.iter().filter(|&&b| b.is_ascii_alphanumeric() || b >= 0x80).take(MIN_UNEXPLAINED).count() == MIN_UNEXPLAINED
}

/// Letters and digits a piece of text left unexplained needs to be clustered: less is the
/// punctuation and short words between the parts of a chain (`: `, ` - `, `task:`).
const MIN_UNEXPLAINED: usize = 4;

/// `r` without the chain separators, blanks and quotes at its ends (`: cause: ` → `cause`).
fn trim_links(text: &[u8], mut r: Range<usize>) -> Range<usize> {
    let sep = |b: u8| b.is_ascii_whitespace() || matches!(b, b':' | b',' | b';' | b'-' | b'=');
    // An arrow that opens the piece (`-> peer said hello`) is its text, not a separator: cut
    // to `> peer said hello` the same cause was a cluster apart when a repeated cause before it
    // was skipped (found by a second reader).
    while r.start < r.end && sep(text[r.start]) && !text[r.start..r.end].starts_with(b"->") {
        r.start += 1;
    }
    while r.end > r.start && sep(text[r.end - 1]) {
        r.end -= 1;
    }
    let mut r = unquoted(text, r);
    // The end of a `{:?}`-quoted chain whose first links a record explained: `cause"` (quotes
    // inside it are escaped: `cause \"x\""`).
    let t = &text[r.clone()];
    if t.len() > 1
        && t[t.len() - 1] == b'"'
        && t[t.len() - 2] != b'\\'
        && !memchr::memchr_iter(b'"', &t[..t.len() - 1]).any(|q| q == 0 || t[q - 1] != b'\\')
    {
        r.end -= 1;
    }
    // Then the ends of values quoted inside that string, whose opening quotes are before the
    // piece (`pk: \"Starrocks error: early eof\""` leaves `early eof\"`; a level deeper,
    // `\\\"`): an escaped quote without its pair in the piece, counted at its own level (found
    // by a second reader: the template was `early eof"` and its draft matched no line).
    loop {
        let t = &text[r.clone()];
        let Some(body) = t.strip_suffix(b"\"") else { break };
        let k = body.len() - body.iter().rposition(|&b| b != b'\\').map_or(0, |p| p + 1);
        if k % 2 == 0 {
            break;
        }
        if escaped_quotes(t, &t[t.len() - k - 1..]) % 2 == 0 {
            break;
        }
        r.end -= k + 1;
    }
    // A piece quoted whole at a level of escaping (`\"x: y\"`, `\\\"x\\\"`): without its quotes,
    // as `unquoted` takes plain ones off.
    let t = &text[r.clone()];
    let k = t.iter().take_while(|&&b| b == b'\\').count();
    if k % 2 == 1
        && t.get(k) == Some(&b'"')
        && t.len() > 2 * (k + 1)
        && t.ends_with(&t[..k + 1])
        && t[t.len() - k - 2] != b'\\'
        && escaped_quotes(t, &t[..k + 1]) == 2
    {
        r = r.start + k + 1..r.end - k - 1;
    }
    r
}

/// How many quotes escaped at `level` (`\"`, `\\\"`: the backslashes and the quote) `t` has,
/// not counting those of a deeper level that end with the same bytes.
fn escaped_quotes(t: &[u8], level: &[u8]) -> usize {
    memchr::memmem::find_iter(t, level).filter(|&at| at == 0 || t[at - 1] != b'\\').count()
}

/// The first link of the error chain in `r`: up to the first `: ` outside brackets and quotes
/// (how an error report joins an error to its source, and where the matcher ends a trailing
/// value that is not an error), or the end of its line; a first link of one word (a label:
/// `status: Unavailable, message: …`) with the link after it. A multi-line report's header
/// (`Caused by:`, `Caused by these errors (recent errors listed first):`) and a cause's number
/// (`0: `) are skipped first: the link is the cause under them.
fn first_link(text: &[u8], mut r: Range<usize>) -> Range<usize> {
    loop {
        // Blanks and line breaks before the link, escaped ones too.
        while r.start < r.end && (text[r.start].is_ascii_whitespace() || text[r.start..r.end].starts_with(b"\\n")) {
            r.start += if text[r.start] == b'\\' { 2 } else { 1 };
        }
        let t = &text[r.clone()];
        let (len, brk) = line_break(t);
        let line = &t[..len];
        let header = line.starts_with(b"Caused by") && line.trim_ascii_end().ends_with(b":");
        let number = line.iter().position(|b| !b.is_ascii_digit()).is_some_and(|d| d > 0 && line[d..].starts_with(b": "));
        if header && brk > 0 {
            r.start += len + brk;
        } else if brk == 0 && (line == b"Caused by" || line.starts_with(b"Caused by these errors")) {
            // A header with no cause under it (its `:` trimmed off, between a known error and
            // the known cause below it): nothing to cluster.
            return r.end..r.end;
        } else if number {
            r.start += line.iter().position(|&b| b == b':').expect("found") + 2;
        } else {
            break;
        }
    }
    let t = &text[r.clone()];
    let (mut from, mut labelled) = (0, false);
    let end = loop {
        // A gRPC status printed whole (`status: Internal, message: "…", details: [], metadata:
        // …`): the error is the message the server sent, a chain of its own. Its head named
        // only the status code, so every error that came back over gRPC with that code was one
        // cluster (`status: Internal, message`: found by an on-call reader).
        // Inside a quoted value its quotes are escaped (`"…: status: Internal, message: \"…\",
        // details: [] …"`), and its message ends at the first quote escaped as its opening one.
        if let Some(head) = status_head(&t[from..])
            && let Some(close) = status_message_end(&t[from..], head)
            && enough_alnum(&t[from + head..from + close])
        {
            return first_link(text, r.start + from + head..r.start + from + close);
        }
        match link_end(t, from) {
            // A link that only names a kind of error (`Rpc error`, `QueryError`, `gRPC error
            // (Internal error)`, `Message production error`) with a cause after it is a wrapper:
            // alone it names no error, and every cause it wraps would be one cluster (read in
            // issue threads: `QueryError` over a Kafka producer's failure and over a barrier
            // timeout; `QueueFull` and `MessageTimedOut` as one `Message production error`).
            // The links after it go with it, up to the first that is not a kind.
            Some((i, true)) if passes_on(&t[from..i]) && enough_alnum(&t[i + 2..]) => from = i + 2,
            // A first link of one word is a label, not an error (`Local: Broker transport
            // failure`, `injected: <failpoint>`, `UNSAFE: Injecting source offsets …`, a gRPC
            // status without its quoted message): alone it names no kind, and every error it
            // heads would be one cluster. The link after it goes with it. So does a word and
            // values (`actor 7`,
            // `worker 3`: every word after the first has a digit): a label of a thing, which
            // masks to one word (`actor <*>` held a barrier timeout and a sink's failed write
            // as one kind).
            // One label, at the start or after kinds (`Kafka error: Local: Timed out`); a kind
            // after it goes on as above (`librdkafka: Global error: Resolve (…)`).
            Some((i, true)) if !labelled && label(&t[from..i]) => {
                labelled = true;
                from = i + 2;
            }
            Some((i, _)) => break i,
            None if from == 0 => return r,
            None => break t.len(),
        }
    };
    trim_links(text, r.start..r.start + end)
}

/// `t` with `\"` and `\\` written as the `"` and `\` they stand for (other escapes, `\n`, are
/// left: links are cut at them).
fn undo_quote_escapes(t: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(t.len());
    let mut i = 0;
    while i < t.len() {
        if t[i] == b'\\' && matches!(t.get(i + 1), Some(b'"' | b'\\')) {
            i += 1;
        }
        out.push(t[i]);
        i += 1;
    }
    out
}

/// Does `link` only pass an error on ([`first_link`]): name a kind of error ([`error_kind`]), or
/// say that a gRPC request failed with a status code (RisingWave's client link, [`rpc_link`])?
fn passes_on(link: &[u8]) -> bool {
    error_kind(link) || rpc_link(link)
}

/// What tonic prints for a gRPC status code (`Code`'s `Display`, its description), but `Ok`'s.
const GRPC_CODE_TEXTS: &[&[u8]] = &[
    b"The operation was cancelled",
    b"Unknown error",
    b"Client specified an invalid argument",
    b"Deadline expired before operation could complete",
    b"Some requested entity was not found",
    b"Some entity that we attempted to create already exists",
    b"The caller does not have permission to execute the specified operation",
    b"Some resource has been exhausted",
    b"The system is not in a state required for the operation's execution",
    b"The operation was aborted",
    b"Operation was attempted past the valid range",
    b"Operation is not implemented or not supported",
    b"Internal error",
    b"The service is currently unavailable",
    b"Unrecoverable data loss or corruption",
    b"The request does not have valid authentication credentials",
];

/// RisingWave's gRPC client link and the status code after it: `gRPC request to meta service
/// failed: The service is currently unavailable: <the server's error>` (its
/// `TonicStatusWrapper`, with ` (call `<path>`)` before `failed` in newer releases). Neither
/// names an error: clustered, every error of one service came back as one kind (`gRPC request to
/// meta service failed`: found by an on-call reader).
fn rpc_link(link: &[u8]) -> bool {
    let link = link.trim_ascii();
    (link.starts_with(b"gRPC request") && link.ends_with(b" failed")) || GRPC_CODE_TEXTS.contains(&link)
}

/// tonic's `Status` printed whole (`status: Internal, message: "…", details: [], metadata: …`):
/// the length of its head, up to and with the message's opening quote (`\"` inside a quoted
/// value).
fn status_head(t: &[u8]) -> Option<usize> {
    let after = status_label(t)?.strip_prefix(b": ")?;
    let quote = match after {
        [b'\\', b'"', ..] => 2,
        [b'"', ..] => 1,
        _ => return None,
    };
    Some(t.len() - after.len() + quote)
}

/// What follows a gRPC status's label (`status: <Code>, message`) at the start of `t`.
fn status_label(t: &[u8]) -> Option<&[u8]> {
    let rest = t.strip_prefix(b"status: ")?;
    let code = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    rest[code..].strip_prefix(b", message").filter(|_| code > 0)
}

/// Where the message of a status whose head ([`status_head`]) is `t[..head]` ends: at the
/// first quote escaped as its opening one was, or at its closing quote.
fn status_message_end(t: &[u8], head: usize) -> Option<usize> {
    if t[head - 2] != b'\\' {
        return closing_quote(t, head);
    }
    memchr::memmem::find_iter(&t[head..], b"\\\"").map(|i| head + i).find(|&i| t[i - 1] != b'\\')
}

/// Does `link` only name a kind of error ([`first_link`])? Up to four words, none a value (of
/// digits alone), the last `error` (`Rpc error`, `tcp connect error`, `Message production error`), perhaps with a
/// bracketed kind after it (`gRPC error (Internal error)`); or one word that ends in `Error`
/// (`QueryError`). Not an exception's class (`java.net.ConnectException`), which says more
/// than its message.
fn error_kind(link: &[u8]) -> bool {
    let link = link.trim_ascii();
    let head = match link.iter().position(|&b| b == b'(') {
        Some(p) if link.ends_with(b")") => link[..p].trim_ascii_end(),
        Some(_) => return false,
        None => link,
    };
    let words = || head.split(|&b| b == b' ').filter(|w| !w.is_empty());
    // Words of letters, or a name with digits after its first letter (`s3`, `http2`, `utf8`); a
    // word of digits is a value (`actor 7 error`).
    let plain = |w: &[u8]| {
        w.first().is_some_and(u8::is_ascii_alphabetic)
            && w.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    match (words().count(), words().last()) {
        (1, Some(w)) => w.len() > 5 && w.ends_with(b"Error") && plain(w) || w.eq_ignore_ascii_case(b"error"),
        (2..=4, Some(last)) => (last == b"error" || last == b"Error" || last == b"errors") && words().all(plain),
        _ => false,
    }
}

/// When `at` is inside a string `t` quotes (an odd number of unescaped `"` before it), where its
/// closing quote is.
fn closing_quote(t: &[u8], at: usize) -> Option<usize> {
    if at > t.len() {
        return None;
    }
    // A quote after an odd run of backslashes is escaped (`\"`); after an even one (`\\"`, a
    // string that ends in a backslash) it is not.
    let unescaped = |i: &usize| t[..*i].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0;
    if memchr::memchr_iter(b'"', &t[..at]).filter(unescaped).count() % 2 == 0 {
        return None;
    }
    memchr::memchr_iter(b'"', &t[at..]).map(|i| at + i).find(unescaped)
}

/// Is every link of the chain `t` a kind of error or another link that only passes an error on
/// ([`passes_on`], a gRPC status's head)?
fn only_error_kinds(t: &[u8]) -> bool {
    let mut from = 0;
    loop {
        // A gRPC status's head passes the server's error on as well (`Rpc error: status:
        // Internal, message: "`, or `"status: …, message: \"` inside a quoted value): before a
        // known error in its message it was clustered, and an unknown cause after a known
        // wrapper inside it went unseen (found by a second reader).
        let quoting = |b: &u8| matches!(b, b' ' | b':' | b'"' | b'\\');
        let lead = t[from..].iter().take_while(|b| quoting(b)).count();
        if let Some(head) = status_head(&t[from + lead..]) {
            from += lead + head;
            if t[from..].iter().all(quoting) {
                return true;
            }
            continue;
        }
        // The same head at the end, its quote taken off with the piece's trailing separator.
        if status_label(&t[from + lead..]).is_some_and(|r| r.iter().all(quoting)) {
            return true;
        }
        match link_end(t, from) {
            Some((i, true)) if passes_on(&t[from..i]) => from = i + 2,
            Some(_) => return false,
            None => return passes_on(&t[from..]),
        }
    }
}

/// Is `link` a label ([`first_link`]): one word, or one word of letters and values after it?
fn label(link: &[u8]) -> bool {
    let mut words = link.split(u8::is_ascii_whitespace).filter(|w| !w.is_empty());
    let first = words.next().unwrap_or_default();
    let value = |w: &[u8]| w.iter().any(u8::is_ascii_digit);
    words.clone().next().is_none() || (!value(first) && words.all(value))
}

/// The length of `t`'s first line, and of the line break that ends it: 1 for `\n`, 2 for an
/// escaped one (a backslash and `n`: a multi-line report printed inside a `{:?}` string,
/// `"create sink\n\nCaused by:\n    timeout"`), 0 at the end of `t`.
fn line_break(t: &[u8]) -> (usize, usize) {
    let mut from = 0;
    while let Some(i) = memchr::memchr2(b'\n', b'\\', &t[from..]).map(|i| from + i) {
        match t[i] {
            b'\n' => return (i, 1),
            _ if t.get(i + 1) == Some(&b'n') => return (i, 2),
            // Another escape (`\"`, `\\`): its second byte is no break.
            _ => from = i + 2,
        }
        if from >= t.len() {
            break;
        }
    }
    (t.len(), 0)
}

/// Where the link of the chain `t` that starts at `from` ends: at the first `: ` outside
/// brackets and quotes (`true`), or at a line break, an escaped one too (`false`); `None`: at
/// the end of `t`.
fn link_end(t: &[u8], from: usize) -> Option<(usize, bool)> {
    let (mut depth, mut i) = (0i32, from);
    while i < t.len() {
        let b = t[i];
        // Most bytes are none of those below: one table look each, where the match on every
        // byte was most of this function's time (about 800 instructions an event with
        // `--unknown any`).
        if !LINK_BYTES[b as usize] {
            i += 1;
            continue;
        }
        match b {
            // Inside quotes nothing counts until the closing quote; an unclosed one runs on to
            // the end.
            b'"' | b'`' => match memchr::memchr(b, &t[i + 1..]) {
                Some(j) => i += j + 1,
                None => return None,
            },
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'\n' => return Some((i, false)),
            b'\\' if t.get(i + 1) == Some(&b'n') => return Some((i, false)),
            // An escaped backslash: the byte after it is its own (`\\n` is no line break). An
            // escaped quote (`\"`) is left to quote, as the quote it stands for did.
            b'\\' if t.get(i + 1) == Some(&b'\\') => i += 1,
            b':' if depth <= 0 && t.get(i + 1) == Some(&b' ') && i > from => return Some((i, true)),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The bytes [`first_link`] acts on.
const LINK_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let bytes = b"\"`([{)]}\n:\\";
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

/// Where a panic happened: the range of the `<file>:<line>:<col>` it names on its first line
/// (`panicked at src/x.rs:987:21:`, or the old `panicked at 'msg', src/x.rs:987:21`), and the
/// line.
fn panic_location(text: &[u8]) -> Option<(Range<usize>, u64)> {
    let first = &text[..memchr::memchr(b'\n', text).unwrap_or(text.len())];
    let at = memchr::memmem::find(first, crate::matcher::PANIC_KEY)? + crate::matcher::PANIC_KEY.len();
    let mut end = first.len();
    while end > at && matches!(first[end - 1], b':' | b' ' | b'\t' | b'\r') {
        end -= 1;
    }
    // The location is the line's last token: after the old form's `'msg', ` or the header's words.
    let start = first[at..end].iter().rposition(|&b| b == b' ').map_or(at, |p| at + p + 1);
    let loc = &first[start..end];
    let mut parts = loc.rsplitn(3, |&b| b == b':');
    let col = parts.next()?;
    let line = parts.next()?;
    let path = parts.next()?;
    if !path.ends_with(b".rs") || !col.iter().all(u8::is_ascii_digit) || line.is_empty() {
        return None;
    }
    let n = std::str::from_utf8(line).ok()?.parse().ok()?;
    Some((start..start + path.len(), n))
}

/// Where the message of an old-style panic (`panicked at '<msg>', <file>:<l>:<c>`) ends: its
/// closing quote, so that a capture stops there rather than running into the location.
fn old_panic_message_end(text: &[u8]) -> Option<usize> {
    let first = &text[..memchr::memchr(b'\n', text).unwrap_or(text.len())];
    let open = memchr::memmem::find(first, b"panicked at '")? + b"panicked at '".len();
    memchr::memmem::rfind(&first[open..], b"', ").map(|q| open + q)
}

/// A level below WARN (`INFO`, `DEBUG`, `TRACE`, any case).
fn below_warn(level: &[u8]) -> bool {
    let l = level.trim_ascii();
    match l.len() {
        4 => l.eq_ignore_ascii_case(b"INFO"),
        5 => l.eq_ignore_ascii_case(b"DEBUG") || l.eq_ignore_ascii_case(b"TRACE"),
        _ => false,
    }
}

/// Does the match start inside a span field (`span{error=...}` of a text line, `spans[i].key`
/// of a JSON line)?
fn is_context(f: &crate::matcher::Found, tl: Option<&parse::TextLine>, hay_names: &[&str]) -> bool {
    if let Some(name) = hay_names.get(f.hay as usize) {
        return name.starts_with("spans[");
    }
    tl.is_some_and(|t| t.spans.iter().flat_map(|(_, fs)| fs).any(|(_, v)| v.start <= f.start && f.start < v.end))
}

/// Value boundaries of a text event: ends (a field's leading space, a span field's end, a line
/// break, the end) and starts (after `key=`, a span field's start, the message, a line start).
fn boundaries(
    text: &[u8],
    tl: Option<&parse::TextLine>,
    ends: &mut Vec<usize>,
    starts: &mut Vec<usize>,
    walls: &mut Vec<usize>,
) {
    let mut f = Vec::new();
    parse::field_starts(text, &mut f);
    for &p in &f {
        ends.push(p);
        walls.push(p);
        if let Some(eq) = memchr::memchr(b'=', &text[p..]) {
            starts.push(p + eq + 1);
        }
    }
    for nl in memchr::memchr_iter(b'\n', text) {
        ends.push(nl);
        starts.push(nl + 1);
    }
    if let Some(t) = tl {
        for (_, fields) in &t.spans {
            for (_, v) in fields {
                starts.push(v.start);
                ends.push(v.end);
            }
        }
        for (_, f) in &t.spans {
            if let Some((_, v)) = f.last()
                && text.get(v.end) == Some(&b'}')
            {
                walls.push(v.end);
            }
        }
        starts.push(t.message.start);
    }
    numbered_causes(text, ends, starts, walls);
    starts.push(0);
    ends.push(text.len());
    ends.sort_unstable();
    ends.dedup();
    walls.sort_unstable();
    walls.dedup();
    starts.sort_unstable();
    starts.dedup();
}

/// A report's numbered causes joined onto one line (`Caused by these errors (recent errors
/// listed first): 1: <a> 2: <b>`, as SQL clients print the chain): each ` N: ` ends the link
/// before it and starts the next, and no match runs across it.
fn numbered_causes(text: &[u8], ends: &mut Vec<usize>, starts: &mut Vec<usize>, walls: &mut Vec<usize>) {
    const HEAD: &[u8] = b"Caused by these errors";
    let mut from = 0;
    while let Some(p) = memchr::memmem::find(&text[from..], HEAD) {
        let head = from + p;
        let line_end = memchr::memchr(b'\n', &text[head..]).map_or(text.len(), |i| head + i);
        let mut at = head + HEAD.len();
        // Joined onto the line only when ` 1: ` follows the heading's colon (`(recent errors
        // listed first): 1: `); a quoted `{:?}` report shows `\n 1: ` there, and its value is
        // one string, not links.
        let colon = memchr::memchr(b':', &text[at..line_end]).map(|c| at + c);
        if !colon.is_some_and(|c| c - at <= 40 && text[c + 1..line_end].starts_with(b" 1: ")) {
            from = line_end;
            continue;
        }
        let mut label = Vec::with_capacity(8);
        for n in 1u32.. {
            label.clear();
            label.push(b' ');
            label.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            label.extend_from_slice(b": ");
            let Some(q) = memchr::memmem::find(&text[at..line_end], &label) else { break };
            let q = at + q;
            ends.push(q);
            walls.push(q);
            starts.push(q + label.len());
            at = q + label.len();
        }
        from = line_end;
    }
}

/// Name the part of a text event a match starts in.
fn text_field(tl: Option<&parse::TextLine>, text: &[u8], pos: usize) -> String {
    let Some(t) = tl else { return "message".into() };
    let s = |r: &Range<usize>| String::from_utf8_lossy(&text[r.clone()]).into_owned();
    for (name, fields) in &t.spans {
        for (k, v) in fields {
            if v.start <= pos && pos < v.end {
                return format!("span:{}.{}", s(name), s(k));
            }
        }
    }
    for (k, v) in &t.fields {
        if v.start <= pos && pos < v.end {
            return format!("fields.{}", s(k));
        }
    }
    "message".into()
}

fn collect_json(obj: &serde_json::Map<String, Value>, out: &mut Vec<(Vec<u8>, String)>) {
    // The spans first, where a text line prints them (`span{error=…}: target: message error=…`):
    // ranking takes the match furthest into the event, and after the fields a span's error beat
    // the line's own `error` field, so the same event logged as JSON and as text had two
    // different primaries (found by an on-call reader).
    if let Some(Value::Array(spans)) = obj.get("spans") {
        for (i, sp) in spans.iter().enumerate() {
            if let Value::Object(so) = sp {
                for (k, v) in so {
                    if k != "name"
                        && let Value::String(s) = v
                    {
                        out.push((hay_text(s), format!("spans[{i}].{k}")));
                    }
                }
            }
        }
    }
    if let Some(Value::Object(fields)) = obj.get("fields") {
        if let Some(Value::String(m)) = fields.get("message") {
            out.push((hay_text(m), "fields.message".into()));
        }
        for (k, v) in fields {
            if k != "message"
                && let Value::String(s) = v
            {
                out.push((hay_text(s), format!("fields.{k}")));
            }
        }
    } else {
        // Other JSON loggers: a top-level message, then their other strings (`error`, `err`,
        // `caller`, …) but the level and the time, each matched on its own as a RisingWave
        // line's fields are.
        if let Some((k, Value::String(m))) = json_message(obj) {
            out.push((hay_text(m), k.into()));
        }
        for (k, v) in obj {
            match v {
                Value::String(s) if !read_apart(k) => {
                    out.push((hay_text(s), k.clone()));
                }
                // pino's and bunyan's `err`, ECS's `error`: an object whose `message` is the
                // error's text.
                Value::Object(e) if k == "err" || k == "error" => {
                    if let Some(Value::String(m)) = e.get("message") {
                        out.push((hay_text(m), format!("{k}.message")));
                    }
                }
                _ => {}
            }
        }
    }
}

/// A JSON string value as it is matched: without blanks at its lines' ends, as a text event's
/// lines are read (`Annotator::clean`), since catalog patterns lose theirs
/// (`matcher::blanks_at_line_ends_dropped`: a RisingWave message `… objects. \nDETAIL: …`
/// logged as JSON matched no more).
fn hay_text(s: &str) -> Vec<u8> {
    let s = s.as_bytes();
    let mut out = Vec::with_capacity(s.len());
    for (i, line) in s.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(crate::matcher::literals::trim_blanks_end(line));
    }
    out
}

/// Where JSON loggers put the message: RisingWave's (tracing's) `fields.message` is read apart;
/// `message` (ECS, Python, Google Cloud), `msg` (zap, logrus, slog, pino, bunyan).
const JSON_MESSAGE_KEYS: [&str; 2] = ["message", "msg"];

/// Is `key` the name of an event's error field, and how good a one? RisingWave logs its errors
/// under `error` (462 of the catalog's `key = %…` fields), `err` (22) or `e` (11): a known host
/// message with its cause under `err` hid that cause when only `error` was read (found on a
/// line pasted in an issue thread). Of two, the lower rank is the event's error field.
fn error_key_rank(key: &[u8]) -> Option<u8> {
    match key {
        b"error" => Some(0),
        b"err" => Some(1),
        b"e" => Some(2),
        _ => None,
    }
}

/// An empty string, as written or as tracing's `?` prints one (`""`).
fn empty_value(v: &[u8]) -> bool {
    v.is_empty() || v == b"\"\""
}

/// The value of the error field among `fields` (see [`error_key_rank`]).
fn error_field(text: &[u8], fields: &[parse::KeyValue]) -> Option<Range<usize>> {
    // An empty value (`error= err=…`, `error="" err=…`) is no error field.
    fields
        .iter()
        .filter(|(_, v)| !empty_value(&text[v.clone()]))
        .filter_map(|(k, v)| error_key_rank(&text[k.clone()]).map(|r| (r, v)))
        .min_by_key(|(r, _)| *r)
        .map(|(_, v)| v.clone())
}

/// A JSON line that does not parse (cut at `--max-line-bytes`, a lone surrogate escape, nested
/// deeper than the parser goes), read as it is: where its level and message strings are, under
/// the keys a parsed line's are read under. The event is not lost for want of a level: an
/// ERROR line cut short is clustered by its message's words, as a cut text line is.
struct RawJson {
    level: Option<Range<usize>>,
    message: Option<Range<usize>>,
}

impl RawJson {
    /// The level and message at the top of the object, else one level down (RisingWave's
    /// `fields.message`, ECS's `log.level`): a nested object's `level` or `msg` (an upstream's
    /// state logged as a value) is not the line's when the line has its own.
    fn read(text: &[u8]) -> RawJson {
        let find = |keys: &[&str]| {
            let at = |depth| keys.iter().find_map(|k| raw_json_string(text, k, depth));
            at(1).or_else(|| at(2))
        };
        RawJson { level: find(&JSON_LEVEL_KEYS), message: find(&JSON_MESSAGE_KEYS) }
    }
}

/// The first string value of `"key":` at object depth `depth` of `text` (1: the line's own
/// keys), as written (escapes and all), up to its closing quote or the end of the text (a line
/// cut short).
fn raw_json_string(text: &[u8], key: &str, depth: usize) -> Option<Range<usize>> {
    let mut pattern = Vec::with_capacity(key.len() + 3);
    pattern.push(b'"');
    pattern.extend_from_slice(key.as_bytes());
    pattern.extend_from_slice(b"\":");
    // Depth is counted from the start, strings skipped, once for all the key's places.
    let (mut i, mut d, mut in_string) = (0usize, 0usize, false);
    for at in memchr::memmem::find_iter(text, &pattern) {
        while i < at {
            match text[i] {
                b'\\' if in_string => i += 1,
                b'"' => in_string = !in_string,
                b'{' | b'[' if !in_string => d += 1,
                b'}' | b']' if !in_string => d = d.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        // A key starts a string: a match inside one (`"a \"level\": b"` cannot, its quotes are
        // escaped) or at another depth is not the key.
        if in_string || d != depth {
            continue;
        }
        let mut v = at + pattern.len();
        while text.get(v).is_some_and(|b| *b == b' ' || *b == b'\t') {
            v += 1;
        }
        if text.get(v) != Some(&b'"') {
            continue;
        }
        let start = v + 1;
        let mut j = start;
        while j < text.len() && text[j] != b'"' {
            j += if text[j] == b'\\' { 2 } else { 1 };
        }
        return Some(start..j.min(text.len()));
    }
    None
}

/// Where JSON loggers put the level, in the order they are read: `level` (RisingWave, zap,
/// logrus, slog, pino and bunyan as a number), `lvl` (log15), `severity` (Google Cloud),
/// `levelname` (Python's JSON formatters), `log.level` (ECS, dotted; nested as `{"log":
/// {"level": …}}` too). Framing's level look ([`crate::unknown::level_marker`]) finds a JSON
/// line's level under the same keys.
pub(crate) const JSON_LEVEL_KEYS: [&str; 5] = ["level", "lvl", "severity", "levelname", "log.level"];

/// `log.parse_error` of an event whose time (the line's, or the runtime's for a line without
/// one) has a field out of range ([`parse::time_in_range`]).
pub const TIME_OUT_OF_RANGE: &str = "time out of range, not taken as @timestamp";

/// Where JSON loggers put the time, in the order they are read: `timestamp` (RisingWave,
/// Google Cloud), `@timestamp` (ECS, Logstash), `time` (logrus, slog, bunyan; pino as epoch
/// milliseconds), `ts` (zap: epoch seconds, or RFC 3339), `t` (log15), `asctime` (Python).
const JSON_TIME_KEYS: [&str; 6] = ["timestamp", "@timestamp", "time", "ts", "t", "asctime"];

/// Where JSON loggers name the component that logged: `target` (RisingWave), `logger` (zap,
/// logback), `logger_name` (logstash-logback-encoder), `log.logger` (ECS).
const JSON_TARGET_KEYS: [&str; 4] = ["target", "logger", "logger_name", "log.logger"];

/// A JSON line's logger and the key it was under ([`JSON_TARGET_KEYS`]; ECS's nested as
/// `{"log": {"logger": …}}` too, under no top-level key of its own).
fn json_target(obj: &serde_json::Map<String, Value>) -> Option<(&'static str, &str)> {
    JSON_TARGET_KEYS
        .iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str).map(|t| (*k, t)))
        .or_else(|| obj.get("log").and_then(|l| l.get("logger")).and_then(Value::as_str).map(|t| ("log.logger", t)))
}

/// Is `k` one of [`JSON_MESSAGE_KEYS`], [`JSON_LEVEL_KEYS`], [`JSON_TIME_KEYS`] (read apart,
/// not matched)? One `match` (compiled to a switch on the length): a look through the three
/// lists cost a `memcmp` a key, a tenth of `--unknown any` on a zap log.
fn read_apart(k: &str) -> bool {
    matches!(
        k,
        "message"
            | "msg"
            | "level"
            | "lvl"
            | "severity"
            | "levelname"
            | "log.level"
            | "timestamp"
            | "@timestamp"
            | "time"
            | "ts"
            | "t"
            | "asctime"
    )
}

fn json_message(obj: &serde_json::Map<String, Value>) -> Option<(&'static str, &Value)> {
    JSON_MESSAGE_KEYS.iter().find_map(|k| obj.get(*k).filter(|v| v.is_string()).map(|v| (*k, v)))
}

/// A JSON line's level and the key it was under ([`JSON_LEVEL_KEYS`]): a string as written; a
/// `level` that is a number is pino's and bunyan's scale (10 trace … 60 fatal), written as the
/// word.
fn json_level(obj: &serde_json::Map<String, Value>) -> Option<(&'static str, Cow<'_, str>)> {
    for k in JSON_LEVEL_KEYS {
        match obj.get(k) {
            Some(Value::String(s)) => return Some((k, Cow::Borrowed(s))),
            Some(Value::Number(n)) if k == "level" => {
                // A custom level between two of the scale's is named by the one below it, as
                // framing's level look reads the number (40 and up: warn; 50 and up: error).
                let word = match n.as_u64() {
                    Some(60..) => "fatal",
                    Some(50..) => "error",
                    Some(40..) => "warn",
                    Some(30..) => "info",
                    Some(20..) => "debug",
                    Some(_) => "trace",
                    None => return Some((k, Cow::Owned(n.to_string()))),
                };
                return Some((k, Cow::Borrowed(word)));
            }
            _ => {}
        }
    }
    match obj.get("log") {
        Some(Value::Object(l)) => l.get("level").and_then(Value::as_str).map(|s| ("log.level", Cow::Borrowed(s))),
        _ => None,
    }
}

/// A JSON line's time and the key it was under ([`JSON_TIME_KEYS`]): a string that is a date
/// and time ([`parse::field_time`]; RisingWave's `timestamp` always is), or a number that is a
/// Unix time in seconds (zap's `ts`, with a fraction), milliseconds (pino's `time`),
/// microseconds or nanoseconds, told apart by its size and written in RFC 3339 (UTC). A number
/// outside 2000–2100 is not a time.
fn json_time(obj: &serde_json::Map<String, Value>) -> Option<(&'static str, Cow<'_, str>)> {
    use std::time::{Duration, UNIX_EPOCH};
    for k in JSON_TIME_KEYS {
        match obj.get(k) {
            Some(Value::String(s)) => {
                if let Some(t) = parse::field_time(s.as_bytes()) {
                    return Some((k, t));
                }
            }
            Some(Value::Number(n)) => {
                // 2000-01-01 and 2100-01-01 in seconds: what a log line's time can be.
                const FROM: f64 = 946_684_800.0;
                const TO: f64 = 4_102_444_800.0;
                let Some(v) = n.as_f64() else { continue };
                let Some((secs, scale)) = [(1.0, 0), (1e3, 1), (1e6, 2), (1e9, 3)]
                    .into_iter()
                    .map(|(d, i)| (v / d, i))
                    .find(|(s, _)| (FROM..TO).contains(s))
                else {
                    continue;
                };
                // A unit's nanoseconds, and its RFC 3339 form (the precision it carries).
                const NANOS: [u64; 4] = [1_000_000_000, 1_000_000, 1_000, 1];
                let formats: [fn(std::time::SystemTime) -> humantime::Rfc3339Timestamp; 4] = [
                    humantime::format_rfc3339_seconds,
                    humantime::format_rfc3339_millis,
                    humantime::format_rfc3339_micros,
                    humantime::format_rfc3339_nanos,
                ];
                let t = match n.as_u64() {
                    // Whole units: exact.
                    Some(u) => formats[scale](UNIX_EPOCH + Duration::from_nanos(u * NANOS[scale])),
                    // Seconds with a fraction (zap): an f64 holds about a microsecond of them,
                    // rounded to it (`.123` is read as `.12299990654`).
                    None => humantime::format_rfc3339_micros(
                        UNIX_EPOCH + Duration::from_micros((secs * 1e6).round() as u64),
                    ),
                };
                return Some((k, Cow::Owned(t.to_string())));
            }
            _ => {}
        }
    }
    None
}

/// Fill `log` from a JSON line (`level`: its [`json_level`]), and return its time
/// ([`json_time`]).
fn fill_json_log<'a>(
    obj: &'a serde_json::Map<String, Value>,
    level: Option<(&'static str, Cow<'a, str>)>,
    log: &mut Log<'a>,
) -> Option<Cow<'a, str>> {
    let time = json_time(obj);
    let target = json_target(obj);
    log.target = target.map(|(_, t)| Cow::Borrowed(t));
    let text = |v: &'a Value| match v {
        Value::String(s) => Cow::Borrowed(s.as_str()),
        other => Cow::Owned(other.to_string()),
    };
    if let Some(Value::Object(f)) = obj.get("fields") {
        log.fields =
            f.iter().filter(|(k, _)| *k != "message").map(|(k, v)| (Cow::Borrowed(k.as_str()), text(v))).collect();
    } else {
        // Another JSON logger's: its keys but those read as the message, level, time and
        // target (`caller`, `error`, a request's id, …).
        let time = time.as_ref().map(|(k, _)| *k);
        let message = json_message(obj).map(|(k, _)| k);
        let target = target.map(|(k, _)| k);
        let taken = |k: &str| {
            Some(k) == message
                || Some(k) == level.as_ref().map(|l| l.0)
                || Some(k) == time
                || Some(k) == target
                || k == "spans"
        };
        log.fields = obj.iter().filter(|(k, _)| !taken(k)).map(|(k, v)| (Cow::Borrowed(k.as_str()), text(v))).collect();
    }
    log.level = level.map(|(_, l)| l);
    if let Some(Value::Array(spans)) = obj.get("spans") {
        log.spans = spans
            .iter()
            .filter_map(Value::as_object)
            .map(|so| {
                let name = Cow::Borrowed(so.get("name").and_then(Value::as_str).unwrap_or(""));
                (
                    name,
                    so.iter()
                        .filter(|(k, _)| *k != "name")
                        .map(|(k, v)| (Cow::Borrowed(k.as_str()), text(v)))
                        .collect(),
                )
            })
            .collect();
    }
    time.map(|(_, t)| t)
}

/// Another program's line, read by its layout: an event has one.
enum Other {
    Stamped(parse::StampedLine),
    Klog(golog::KlogLine),
    Logfmt(golog::LogfmtLine),
}

impl Other {
    /// What the line says, in the event's `text`: after the time and level; a klog line's
    /// message (a structured line's quoted one, else all that follows the caller); a logfmt
    /// line's `msg` (the whole line without one).
    fn message(&self, text: &[u8]) -> Range<usize> {
        match self {
            // A Python traceback or a Java stack trace below (`logger.exception`, log4j's
            // `log.error(msg, e)`) is the message's cause: its exception is the error field (see
            // `error`), not more of the message.
            // psql's `DETAIL:`, `HINT:` and `LINE 1:` lines below its `ERROR:` line are the
            // report's, not more of its message; so are a PostgreSQL server's dated ones.
            Other::Stamped(st) => {
                let end = parse::logged_exception(text)
                    .map(|(at, _)| at)
                    .or_else(|| st.psql_shaped().then(|| parse::psql_details_start(text)).flatten())
                    .or_else(|| st.postgres.then(|| parse::dated_line_start(text)).flatten());
                st.message..end.map_or(text.len(), |at| at.max(st.message))
            }
            Other::Klog(k) if text.get(k.message.end) == Some(&b'"') => k.message.clone(),
            Other::Klog(k) => k.message.start..text.len(),
            Other::Logfmt(l) => l.message.clone().unwrap_or(0..text.len()),
        }
    }

    /// The error field of another program's line, as a RisingWave line's `error` field is read:
    /// a Go program's error pair (`err`, `error`: a structured klog line's, a logfmt line's), or
    /// the exception a dated line logged below it (a Python traceback's, a Java stack trace's
    /// first line). Clustered when the message alone says too little (`msg=""`), or holds a
    /// known host.
    fn error(&self, text: &[u8]) -> Option<Range<usize>> {
        let first = &text[..memchr::memchr(b'\n', text).unwrap_or(text.len())];
        let mut error = None;
        let mut take = |(k, v): parse::KeyValue| {
            if error.is_none() && matches!(&text[k], b"err" | b"error") {
                error = Some(v);
            }
        };
        match self {
            Other::Stamped(_) => return parse::logged_exception(text).map(|(_, exception)| exception),
            Other::Klog(k) => k.fields(text, &mut take),
            Other::Logfmt(l) => l.fields(first, &mut take),
        }
        error
    }
}

/// What a line without a header says: all of it, but for a Python traceback printed alone (a
/// program's uncaught exception), which says it in its exception's line (`ModuleNotFoundError:
/// No module named 'numpy'`); its first line is every traceback's. Behind a syslog or journal
/// prefix, from its ident on (`haproxy[7]: Server web1 is DOWN`): with the time and the host in
/// it, a kind's lines were a template apart for each host with no digit in its name, and for
/// each month (a generalisation reader's HAProxy set, as rsyslog writes it).
/// `ident`: where the ident of the syslog prefix framing read starts ([`parse::Syslog`]).
fn plain_message(text: &[u8], ident: Option<usize>) -> Range<usize> {
    let traceback = text.first() == Some(&b'T') && text.starts_with(parse::TRACEBACK);
    match traceback.then(|| parse::traceback(text)).flatten() {
        Some((0, exception)) => exception,
        _ => ident.unwrap_or(0)..text.len(),
    }
}

/// A logfmt or klog pair for `log.fields`.
fn go_field<'t>(text: &'t [u8], (k, v): parse::KeyValue) -> crate::event::Field<'t> {
    let v = &text[v];
    // A klog multi-line value is written as it is, its lines behind tabs: no escapes to undo.
    let value = if memchr::memmem::find(v, b"\n\t").is_some() {
        text_through(v, golog::multi_line_value)
    } else {
        unquoted_value(v)
    };
    (crate::event::text(&text[k]), value)
}

/// A logfmt or klog value as the program meant it (see [`golog::unescape`]).
fn unquoted_value(v: &[u8]) -> Cow<'_, str> {
    text_through(v, golog::unescape)
}

/// `v` as text ([`crate::event::text`]) passed through `f`, borrowed while both borrow.
fn text_through(v: &[u8], f: impl Fn(&str) -> Cow<'_, str>) -> Cow<'_, str> {
    match crate::event::text(v) {
        Cow::Borrowed(b) => f(b),
        Cow::Owned(o) => Cow::Owned(f(&o).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::{first_link, trim_links, unquoted};

    /// The quotes are taken off a piece that is one quoted string, and only then.
    #[test]
    #[rustfmt::skip]
    fn unquoted_takes_off_the_quotes_of_one_string() {
        let cases: &[(&str, &str)] = &[
            (r#" "disk full" "#, "disk full"),
            (r#""ctx: \"x\" failed""#, r#"ctx: \"x\" failed"#),
            (r#""ends in a backslash \\""#, r#"ends in a backslash \\"#),
            ("`table` ", "table"),
            // regression (a generalisation reader's Envoy set): two strings, one at each end
            (r#""GET /x HTTP/2" 200 - "10.1.2.3:80""#, r#""GET /x HTTP/2" 200 - "10.1.2.3:80""#),
            ("'a' is not 'b'", "'a' is not 'b'"),
            // regression (a second reader): an apostrophe inside single quotes closes nothing
            ("'can't open file 7'", "can't open file 7"),
            ("'it's 7 zorp'", "it's 7 zorp"),
            ("'Zoë's quota 3 exceeded'", "Zoë's quota 3 exceeded"),
            // a quote that is escaped closes nothing
            (r#""never closed \""#, r#""never closed \""#),
            (r#"""#, r#"""#),
        ];
        for &(piece, want) in cases {
            let t = piece.as_bytes();
            assert_eq!(&piece[unquoted(t, 0..t.len())], want, "{piece:?}");
        }
    }

    #[test]
    fn the_keys_read_apart_are_the_lists_keys() {
        let listed: Vec<&str> = super::JSON_MESSAGE_KEYS
            .iter()
            .chain(&super::JSON_LEVEL_KEYS)
            .chain(&super::JSON_TIME_KEYS)
            .copied()
            .collect();
        assert!(listed.iter().all(|k| super::read_apart(k)), "{listed:?}");
        assert_eq!(listed.len(), 13, "read_apart lists 13");
        assert!(!super::read_apart("error") && !super::read_apart("logger"));
    }

    #[test]
    fn first_links() {
        // (text, the first link of the chain in it)
        let cases: &[(&str, &str)] = &[
            ("sink writer 7 failed: broken pipe: os error 32", "sink writer 7 failed"),
            ("no chain here", "no chain here"),
            // `: ` inside brackets, braces and quotes is no link separator
            ("got Status { code: Internal }: reset", "got Status { code: Internal }"),
            ("expected [a: b], got c: d", "expected [a: b], got c"),
            ("column \"a: b\" missing: x", "column \"a: b\" missing"),
            // `:` not followed by a blank is part of a word
            ("connect to compute-0:5688 refused: timeout", "connect to compute-0:5688 refused"),
            // a multi-line report: its header and a cause's number are skipped
            ("Caused by:\n    disk quota exceeded: os error 122\n", "disk quota exceeded"),
            ("Caused by these errors (recent errors listed first):\n 1: lease lost\n 2: timeout\n", "lease lost"),
            ("object store timeout\n\nCaused by:\n    x", "object store timeout"),
            // the end of a `{:?}` string whose first links a record explained
            ("disk full\"", "disk full"),
            // regression (found by a second reader): and of values quoted inside it, whose
            // opening quotes are before the piece, at each level of escaping; a quoted value
            // whole in the piece keeps its quotes
            (r#"early eof\"""#, "early eof"),
            (r#"early eof\""#, "early eof"),
            (r#"refused (os error 111)\\\"\""#, "refused (os error 111)"),
            (r#"table \"t\" gone\""#, r#"table \"t\" gone"#),
            (r#"table \"t\""#, r#"table \"t\""#),
            (r#"\"transport error: refused\""#, "transport error: refused"),
            (r#"\"a\" and \"b\""#, r#"\"a\" and \"b\""#),
            (r#"\\\"transport error: refused (os error 111)\\\"\""#, "transport error: refused (os error 111)"),
            // backticks quote too; an unclosed quote runs to the end
            ("column `a: b` missing: x", "column `a: b` missing"),
            ("unclosed \"quote: here", "unclosed \"quote: here"),
            ("a \"b\" c \"d: e", "a \"b\" c \"d: e"),
            // a first link of one word is a label: the next link goes with it
            ("Local: Broker transport failure", "Local: Broker transport failure"),
            ("injected: iceberg_fail: failed to decode secret", "injected: iceberg_fail"),
            ("Error: disk full\nmore", "Error: disk full"),
            // a report's header alone is no link
            ("\n\nCaused by:\n    ", ""),
            ("timeout", "timeout"),
            // two words are a link of their own
            ("dns lookup failed: no address", "dns lookup failed"),
            // a link that only names a kind of error: the links after it go with it, up to
            // the first that is not one (with one label among them)
            ("dns error: failed to lookup address: x", "dns error: failed to lookup address"),
            (
                "Rpc error: gRPC error (Internal error): failed to send barrier: x",
                "Rpc error: gRPC error (Internal error): failed to send barrier",
            ),
            ("QueryError: timed out: x", "QueryError: timed out"),
            // one word after kinds is a label, as a first link of one word is
            ("QueryError: timeout: x", "QueryError: timeout: x"),
            ("Kafka error: Local: Timed out", "Kafka error: Local: Timed out"),
            ("librdkafka: Global error: Resolve (Local: x): y", "librdkafka: Global error: Resolve (Local: x)"),
            ("Internal error", "Internal error"),
            ("Internal error: ..", "Internal error"),
            // not kinds: values in it, an exception's class, more than four words
            ("actor 7 error: x", "actor 7 error"),
            ("Object store error: s3 error: dispatch failure: x", "Object store error: s3 error: dispatch failure"),
            ("java.io.IOException: x: y", "java.io.IOException: x"),
            ("the sink of the job error: x", "the sink of the job error"),
            // regression (found by a second reader): a word and values is a label too; `actor
            // <*>` held every error of every actor as one kind
            ("actor 1234: barrier collection timed out: x", "actor 1234: barrier collection timed out"),
            ("worker 3 node-7: heartbeat lost", "worker 3 node-7: heartbeat lost"),
            ("job 7 failed: x", "job 7 failed"),
            ("table t_orders: dropped", "table t_orders"),
            // a report printed inside a `{:?}` string: its line breaks are escaped
            (r"create sink\n\nCaused by:\n    disk full: os error 28", "create sink"),
            (r"\n\nCaused by:\n    disk full: os error 28", "disk full"),
            (r"Caused by these errors (recent errors listed first):\n  1: lease lost\n  2: timeout", "lease lost"),
            // other escapes are no line break
            (r#"column \"a: b\" is \\not null: x"#, r#"column \"a: b\" is \\not null"#),
            // regressions (found by an on-call reader): a gRPC status printed whole is the
            // message the server sent, read as a chain of its own ...
            ("status: Internal, message: \"stream reset\", details: []", "stream reset"),
            (
                "status: Unavailable, message: \"transport error: connection refused: x\", details: []",
                "transport error: connection refused",
            ),
            ("Pulsar error: status: Cancelled, message: \"h2 error: go away\"", "h2 error: go away"),
            // ... with its head when the message is empty or unclosed
            ("status: Internal, message: \"\", details: []", "status: Internal, message"),
            ("status: Internal, message: \"stream reset", "status: Internal, message"),
            // ... and inside a quoted value, where its quotes are escaped
            (r#"status: Internal, message: \"stream reset by peer\", details: []"#, "stream reset by peer"),
            (r#"status: Internal, message: \"a \\\"b\\\" c: d\", details: []"#, r#"a \\\"b\\\" c"#),
            // ... and RisingWave's gRPC client link and the status code's text pass the
            // server's error on, as kinds of error do
            (
                "gRPC request to meta service failed: The service is currently unavailable: lease lost: x",
                "gRPC request to meta service failed: The service is currently unavailable: lease lost",
            ),
            (
                "gRPC request to meta service (call `/meta.Cluster/Heartbeat`) failed: Internal error: lease lost",
                "gRPC request to meta service (call `/meta.Cluster/Heartbeat`) failed: Internal error: lease lost",
            ),
            ("gRPC request to meta service failed", "gRPC request to meta service failed"),
        ];
        for (text, want) in cases {
            let t = text.as_bytes();
            let r = first_link(t, trim_links(t, 0..t.len()));
            assert_eq!(std::str::from_utf8(&t[r]).unwrap(), *want, "{text:?}");
        }
    }
}
