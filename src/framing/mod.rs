//! Framing: bytes → physical lines → events, with the prefilter run over whole blocks.
//!
//! Owns line splitting, the line-length cap, multi-line event assembly, CRI partial-record
//! joining (Docker json-file records are read as the CRI records they stand for) and the mapping
//! of prefilter hits to events. A block of complete lines is scanned once
//! by the prefilter (as ripgrep searches buffers, not lines); hits are then walked together with
//! the lines. Only the last, possibly unfinished event of a block is copied out of it.
//!
//! Unless every event is wanted (`--all`, pretty output), a block is framed *sparsely*: only
//! the events that hold a hit, and the block's last event, are framed line by line; the lines
//! between are only counted. This is exact because a line with a header always starts an event:
//! framing from the nearest header line above a hit gives the same events as framing every line.
//! Blocks where skipping could change the result (ANSI codes, CRI or Docker records, JSON escapes the
//! prefilter does not know, records without a literal) are framed densely.
//!
//! Event rules: a line with a header (RisingWave timestamp + level, a JSON object, a Rust panic
//! or a Go crash, or another program's date and time: [`Header::Stamped`]) starts an event. A
//! line without one continues the event above when that event is RisingWave text or a panic, or
//! when it is indented, empty, or a `Caused by`/backtrace line, or a Python traceback's or a
//! Java stack trace's unindented line where the event's [`Traceback`] state takes it; otherwise
//! it is an event of its own (plain text). An event is complete when the next one starts, at the end of input, on
//! [`Framer::idle`] (the caller's idle timeout), or when it reaches
//! `max_event_lines`/`max_event_bytes`.
//!
//! Contract: with `every_event`, every input byte belongs to exactly one emitted event, except
//! bytes of a line past `max_line_bytes`, which are dropped and the line marked truncated;
//! without it, every event that holds a prefilter hit (or needs a re-scan) is emitted exactly as
//! it would be with it. Nothing here allocates per
//! line once buffers have grown; memory is bounded by the block size, `max_line_bytes` and
//! `max_event_bytes`.

pub mod golog;
pub mod parse;

use crate::matcher::prefilter::Hit;
use crate::matcher::{Matcher, Plausible};
use parse::{Header, StreamState, Traceback};

/// Framing limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_line_bytes: usize,
    pub max_event_lines: u32,
    pub max_event_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // RisingWave's longest real lines (plan dumps, `{:?}` of large structs) stay well under
            // 1 MiB; container runtimes split at 16 KiB anyway.
            max_line_bytes: 1 << 20,
            // Backtraces run to ~150 lines, await-tree dumps a few hundred.
            max_event_lines: 1000,
            max_event_bytes: 4 << 20,
        }
    }
}

/// A complete event as framed: its raw physical lines and what the prefilter saw.
pub struct RawEvent<'a> {
    /// The event's physical lines as read, joined by `\n`, without the final line break.
    pub bytes: &'a [u8],
    pub first_line: u64,
    pub lines: u32,
    pub offset: u64,
    /// Prefilter literal ids hit in `bytes`.
    pub literals: &'a [u32],
    /// The raw bytes are not what is matched (ANSI codes, JSON escapes, joined CRI records):
    /// the prefilter must be run again on the cleaned text.
    pub rescan: bool,
    pub truncated: bool,
    pub header: Header,
    /// The first line's prefixes as framing read them (ranges into that line, once its ANSI
    /// codes are removed).
    pub prefix: &'a parse::Prefix,
    /// Where each line's content starts (in the line without its ANSI codes) and whether it is a
    /// pasted table row: the event's lines in order, one per line of `bytes`. Framing has
    /// classified every line already; classifying them again to clean the event cost a second
    /// `classify` per line, 5% of `--unknown any` on headerless messages.
    pub contents: &'a [(usize, bool)],
    /// Framing read this event's block as another program's log ([`Framer::foreign`]): its
    /// level is read as `log.level` is, any level word, not only by the marks' `R`s.
    pub foreign: bool,
}

/// Receives complete events.
pub trait EventSink {
    fn event(&mut self, ev: RawEvent<'_>);
}

struct Acc {
    /// Start of the event's bytes in the current block, or `None` once copied to `own`.
    in_block: Option<(usize, usize)>,
    own: Vec<u8>,
    first_line: u64,
    lines: u32,
    offset: u64,
    literals: Vec<u32>,
    rescan: bool,
    truncated: bool,
    header: Header,
    prefix: parse::Prefix,
    /// Where the event is in a Python traceback or below a logged Java exception ([`Traceback`]).
    traceback: Traceback,
    /// A Go program's crash: a goroutine's stack (`goroutine 187 [running]:`) was among its lines.
    goroutines: bool,
    /// Its last line is an error report's header with nothing under it yet (`Caused by:`,
    /// `Caused by these errors (recent errors listed first):`): the event is not complete on
    /// idle ([`Framer::awaits_more`]).
    report_open: bool,
    /// A Go crash's `exit status 2` (what `go run` prints last under it) was among its lines:
    /// a line after it without a header and not indented is no longer the crash's.
    exited: bool,
    /// The event's first line is another program's dated line at WARN or above (Python's
    /// `logger.exception`, `logger.error(…, exc_info=True)`): a traceback below it is its own.
    warns: bool,
    /// The event's first line starts with its level and a colon and blanks, as psql prints an
    /// error (`ERROR:  …`): its `DETAIL:`, `HINT:` and `LINE 1:` lines below are its own.
    psql: bool,
    /// The event's first line is a PostgreSQL server log's report (`… [57] ERROR:  …`), from
    /// that process (`None` in a log whose prefix prints no id) in that pod ([`pod_key`]): the
    /// dated `DETAIL:`, `HINT:`, `STATEMENT:` … lines the server writes below it for the same
    /// process are its own.
    postgres: Option<(Option<u64>, u64)>,
    /// Its first line's pod, container and CRI stream, or its syslog writer ([`source_key`]): a
    /// line of another continues it not. `kubectl logs -f -l … --prefix` interleaves the pods'
    /// lines, a container's log file its stdout and stderr, and `/var/log/syslog` every
    /// program's: one pod's `Caused by:` list or backtrace went into another pod's event, a
    /// panic on stderr into an ERROR on stdout, sshd's lines into RisingWave's event.
    source: u64,
    /// [`Framer::foreign`] of any block the event's lines were framed in: the first line's
    /// block decided whether the line was looked at, and the annotator reads its level as
    /// another program's when any of them, or the block that completes the event, was read as
    /// one (a long line read from a pipe in pieces is a block of its own, and the next line's
    /// block may read otherwise; a Go program's event may start at the end of a RisingWave
    /// block and go on into its own).
    foreign: bool,
    /// Two of its lines were joined in the block across a CRLF line break: the `\r` before the
    /// `\n` is taken out when the event is emitted ([`Framer::emit`]).
    crlf: bool,
    /// The event is a pretty-printed JSON object (`jq .`: a `{` alone on its first line) whose
    /// closing `}` (alone on a line, unindented) has not come: that line is its own too. Its other
    /// lines are indented, as any event's continuation may be: a `{` never closed takes no more.
    json_open: bool,
}

pub struct Framer<'m> {
    matcher: &'m Matcher,
    limits: Limits,
    /// Bytes of an unfinished line.
    carry: Vec<u8>,
    carry_truncated: bool,
    /// Stream offset where the unfinished line starts.
    carry_start: u64,
    /// Stream offset of the next byte fed.
    offset: u64,
    /// Lines completed so far.
    lines: u64,
    acc: Option<Acc>,
    spare: Vec<u8>,
    state: StreamState,
    hits: Vec<Hit>,
    /// Room for the level hits while [`merge_runs`] puts them among the literal hits.
    level_hits: Vec<Hit>,
    scratch: crate::matcher::Scratch,
    clean: Vec<u8>,
    /// A Docker json-file record rewritten as a CRI record ([`parse::docker_record`]).
    docker: Vec<u8>,
    /// The buffer of the last joined line, for the next partial line (every Docker record is
    /// joined: a buffer each would be an allocation per line).
    joined: Vec<u8>,
    /// The open event's [`RawEvent::contents`].
    contents: Vec<(usize, bool)>,
    /// CRI partial records per stream (stdout, stderr): joined text, first line, offset.
    cri_partial: [Option<Partial>; 2],
    /// Every event is wanted (`--all`, pretty output): no line may be skipped.
    every_event: bool,
    /// The stream carries CRI records (sticky): partial records must be seen to be joined.
    cri_seen: bool,
    /// The key of [`parse::ENVELOPE_KEYS`] the stream's JSON envelopes carry their lines under,
    /// once one was seen (sticky): its objects without a level of their own are read as the
    /// lines they carry, and no line is skipped (a `Caused by:` record continues the event
    /// above it, which the skim's look at single lines cannot tell).
    envelope: Option<usize>,
    /// A line framed in a skimmed block showed a shape that makes a stream's blocks framed
    /// line by line ([`Framer::leftovers`], [`Framer::envelope`]), not seen in its start.
    shape_found: bool,
    /// The stream shows colour codes that lost their ESC ([`parse::has_leftovers`]; sticky):
    /// lines are read without them, and no line is skipped (a header is not seen with them).
    leftovers: bool,
    /// The stream holds pretty-printed JSON objects (`kubectl logs … | jq .`; sticky), seen where
    /// every line of a block is looked at for its level (a `{` at a line's start sends a block
    /// there): no line is skipped, since an object's level is on a line of its own, which the
    /// marks do not find.
    pretty_json: bool,
    /// Levels of events wanted without a hit (`--unknown warn|error`): their lines are hits.
    levels: crate::unknown::Levels,
    /// Where the last block holds the bytes [`level_candidates`] looks from, found by the
    /// prefilter's skim as it reads the block (a `memchr3` pass of its own cost 8.5 ms of CPU on
    /// the 100 MB peers corpus, a tenth of the scan; from the skim, 2.1 ms: BENCHMARKS.md).
    marks: crate::matcher::Marks,
    /// The block is another program's log (its first or last [`SNIFF_LINES`] say so, see
    /// [`foreign_block`]): a Go program's klog or logfmt lines, whose level is not at the marks'
    /// bytes (`E1205 …`, `level=error`), or lines that start with a date and time and a level
    /// word, which may have no `R` (`FATAL`, `Warning`, `[error]`). Every line is looked at for
    /// it, and its events say so ([`RawEvent::foreign`]) so that the annotator reads their level
    /// the same way: sparse and dense framing agree. Decided again for each block: one such
    /// line at the top of a RisingWave log costs its first block only.
    foreign: bool,
    /// The block is skimmed, not framed line by line: an event carries only the literals whose
    /// records could match on the line they were found on ([`Matcher::line_plausible`]), as a
    /// hit frames an event only then. The others were confirmed in vain: a line framed for its
    /// level (`--unknown warn`) with a literal whose record's other pieces are not on it ran that
    /// record's regex, 1.1 M instructions for six such events on the peers corpus's first 20 MB.
    plausible_only: bool,
    pub stats: crate::counts::Framed,
}

/// Lines at the start of a block looked at for another program's header (see
/// [`Framer::foreign`]) until one is found: a program's banner (a few plain lines) may come
/// first, and a block of a followed file or a pipe is what one read returned, often a few lines.
const SNIFF_LINES: usize = 8;

/// The literal id of a hit that is a line at a level `--unknown` wants, not a catalog literal.
const LEVEL_HIT: u32 = u32::MAX;

/// A CRI line being assembled from partial (`P`) records.
struct Partial {
    text: Vec<u8>,
    /// Where in `text` its first record's `P` tag is.
    tag: usize,
    first_line: u64,
    offset: u64,
    records: u32,
    truncated: bool,
    /// Its records were Docker json-file records.
    docker: bool,
    /// It is the line a JSON envelope carried ([`parse::envelope_record`]).
    envelope: bool,
    /// A block one of its records came in was another program's ([`Acc::foreign`]).
    foreign: bool,
}

impl<'m> Framer<'m> {
    /// `every_event`: every event is handed to the sink; otherwise only events with prefilter
    /// hits (or that need a re-scan) are, and lines far from any hit are only counted.
    pub fn new(matcher: &'m Matcher, limits: Limits, every_event: bool) -> Self {
        Framer {
            every_event,
            cri_seen: false,
            leftovers: false,
            pretty_json: false,
            envelope: None,
            shape_found: false,
            levels: crate::unknown::Levels::Off,
            marks: crate::matcher::Marks::new(*b"R{"),
            matcher,
            limits,
            carry: Vec::new(),
            carry_truncated: false,
            carry_start: 0,
            offset: 0,
            lines: 0,
            acc: None,
            spare: Vec::new(),
            state: StreamState::default(),
            hits: Vec::new(),
            level_hits: Vec::new(),
            scratch: crate::matcher::Scratch::default(),
            clean: Vec::new(),
            docker: Vec::new(),
            joined: Vec::new(),
            contents: Vec::new(),
            cri_partial: [None, None],
            foreign: false,
            plausible_only: false,
            stats: Default::default(),
        }
    }

    /// Frame the events at these levels (`--unknown`) even without a prefilter hit. `any` needs
    /// every event: pass `every_event` to [`Framer::new`] for it.
    pub fn with_levels(mut self, levels: crate::unknown::Levels) -> Self {
        self.levels = levels;
        self
    }

    /// Start at a position of the stream other than its beginning: `offset` bytes and `lines`
    /// lines in (a segment of a file read by several threads).
    pub fn start_at(&mut self, offset: u64, lines: u64) {
        self.offset = offset;
        self.lines = lines;
    }

    /// Feed the next bytes of the stream.
    pub fn feed(&mut self, mut data: &[u8], sink: &mut dyn EventSink) {
        self.stats.bytes += data.len() as u64;
        if !self.carry.is_empty() || self.carry_truncated {
            match memchr::memchr(b'\n', data) {
                None => {
                    self.push_carry(data);
                    self.offset += data.len() as u64;
                    return;
                }
                Some(nl) => {
                    self.push_carry(&data[..nl]);
                    self.end_carry(sink);
                    self.offset += nl as u64 + 1;
                    data = &data[nl + 1..];
                }
            }
        }
        let end = match memchr::memrchr(b'\n', data) {
            Some(p) => p + 1,
            None => 0,
        };
        if end > 0 {
            self.block(&data[..end], self.offset, false, sink);
            self.offset += end as u64;
        }
        let rest = &data[end..];
        self.push_carry(rest);
        self.offset += rest.len() as u64;
    }

    fn push_carry(&mut self, bytes: &[u8]) {
        if self.carry.is_empty() && !self.carry_truncated {
            self.carry_start = self.offset;
        }
        let room = self.limits.max_line_bytes.saturating_sub(self.carry.len());
        if bytes.len() > room {
            self.carry.extend_from_slice(&bytes[..room]);
            self.carry_truncated = true;
        } else {
            self.carry.extend_from_slice(bytes);
        }
    }

    /// No input for a while: complete the pending event.
    pub fn idle(&mut self, sink: &mut dyn EventSink) {
        self.emit(&[], sink);
    }

    /// Where the bytes not yet handed to the sink begin: the stream offset and the number of
    /// lines before it. Every event before this point has been emitted (or, framed sparsely,
    /// decided to hold no hit); reading again from here loses and repeats nothing.
    pub fn pending(&self) -> (u64, u64) {
        let mut at = (self.offset, self.lines);
        if let Some(a) = &self.acc {
            at = at.min((a.offset, a.first_line - 1));
        }
        if !self.carry.is_empty() || self.carry_truncated {
            at = at.min((self.carry_start, self.lines));
        }
        for p in self.cri_partial.iter().flatten() {
            at = at.min((p.offset, p.first_line - 1));
        }
        at
    }

    /// An event is open (waiting for its next line or an idle timeout).
    pub fn has_open_event(&self) -> bool {
        self.acc.is_some()
    }

    /// The open event's last line is an error report's header with no cause under it yet
    /// (`Caused by:`, or a backtrace's `stack backtrace:`): a writer that paused there (a pipe's
    /// buffer filled, a slow network under `kubectl logs -f`) has more of the event to write, and
    /// completing it on the idle timeout
    /// lost the causes, which then were an event of their own without a header (found by two
    /// readers). The callers wait up to the line timeout for them, as for a partial line. Not
    /// with a partial line held: that line says whether the event goes on
    /// ([`Framer::partial_starts_event`]), and one that starts the next event ends it.
    pub fn awaits_more(&self) -> bool {
        self.acc.as_ref().is_some_and(|a| a.report_open) && !self.has_partial_line()
    }

    /// Bytes of a line without its line break are held.
    pub fn has_partial_line(&self) -> bool {
        !self.carry.is_empty() || self.carry_truncated
    }

    /// No partial line is held, or the one held already shows a header (so it starts a new
    /// event and cannot continue the open one): the open event may be completed on idle.
    pub fn partial_starts_event(&self) -> bool {
        if !self.has_partial_line() {
            return true;
        }
        // Read as framing reads the whole line: without its colours (a line copied from a
        // terminal, `\x1b[2m2026-…\x1b[0m \x1b[33m WARN…`), whose header is not seen with them.
        let mut buf = Vec::new();
        let carry = parse::without_codes(&self.carry, &mut buf, self.leftovers);
        let (prefix, header) = parse::classify(carry, &mut self.state.clone());
        match header {
            Header::None => false,
            // A dated line below a PostgreSQL report may be its detail: it starts an event only
            // once it shows a level of its own (`… [58] ERROR:`), not while its label is cut
            // (`… [57] DETA`).
            Header::Stamped if self.acc.as_ref().is_some_and(|a| a.postgres.is_some()) => {
                parse::parse_stamped(content_of(carry, &prefix)).is_some_and(|st| st.level.is_some())
            }
            _ => true,
        }
    }

    /// The held partial line waited long enough: it is a line of its own (bytes that follow
    /// start a new line). The event it belongs to stays open.
    pub fn end_partial_line(&mut self, sink: &mut dyn EventSink) {
        if self.has_partial_line() {
            self.end_carry(sink);
        }
    }

    /// The held line is complete: frame it as a line of its own; its buffer is kept for reuse.
    fn end_carry(&mut self, sink: &mut dyn EventSink) {
        let mut line = std::mem::take(&mut self.carry);
        let truncated = std::mem::replace(&mut self.carry_truncated, false);
        let start = self.carry_start;
        line.push(b'\n');
        self.block(&line, start, truncated, sink);
        line.clear();
        self.carry = line;
    }

    /// End of input: the unfinished last line is a line; complete everything.
    pub fn finish(&mut self, sink: &mut dyn EventSink) {
        self.end_partial_line(sink);
        for s in 0..2 {
            if let Some(p) = self.cri_partial[s].take() {
                self.logical_line(p, sink);
            }
        }
        self.emit(&[], sink);
    }

    /// Process a block of complete lines (each ending in `\n`) that starts at stream `offset`.
    fn block(&mut self, block: &[u8], offset: u64, first_truncated: bool, sink: &mut dyn EventSink) {
        let mut hits = std::mem::take(&mut self.hits);
        hits.clear();
        let level_look = matches!(self.levels, crate::unknown::Levels::Warn | crate::unknown::Levels::Error);
        if level_look {
            self.matcher.scan_marking(block, &mut hits, &mut self.scratch, &mut self.marks);
        } else {
            self.matcher.scan(block, &mut hits, &mut self.scratch);
            // No count of this block's lines: `skip` counts them itself.
            self.marks.lines.clear();
        }
        let (has_esc, unknown_escapes) = escapes(block);
        // Lines without hits may be skipped only when nothing about them can matter: no ANSI codes
        // (literals may hide behind them), no CRI records (partial ones must be joined), no JSON
        // escapes the prefilter does not know, and no record that must see every event.
        let first = &block[..memchr::memchr(b'\n', block).unwrap_or(block.len())];
        let first_cri = parse::docker_shaped(first) || parse::classify(first, &mut self.state.clone()).0.cri.is_some();
        self.cri_seen |= first_cri;
        // Both looked for in a block's start only: a stream pasted with its colours shows them
        // on every line and one of JSON envelopes is made of them, past a few lines of another
        // shape (a shell prompt, journald's `Started …`); a look through every block would be
        // another pass over every byte.
        let look = &block[..block.len().min(SHAPES_LOOK)];
        self.leftovers |= parse::has_leftovers(look);
        if self.envelope.is_none() {
            self.envelope = envelope_in(look, self.state);
        }
        let dense = self.every_event
            || first_truncated
            || has_esc
            || self.cri_seen
            || self.leftovers
            || self.envelope.is_some()
            || !self.matcher.unkeyed.is_empty()
            || unknown_escapes;
        let mut h = 0;
        self.shape_found = false;
        self.foreign = level_look && foreign_block(block, self.state);
        if !dense && level_look {
            let before = hits.len();
            // A block of syslog's wire format (a relay's file, `nc -lu 514`): a line's level may
            // be its `<PRI>` alone, which the marks' `R`s do not find (another program's `<26>`
            // crit line among RisingWave's went unclustered: a syslog pipeline's reading).
            let pri = parse::has_syslog_pri(block);
            if self.foreign || pri || !level_candidates(block, &self.marks.at, self.levels, &mut hits) {
                // A JSON line's level may be any word in any case (`"level":"warning"`), another
                // program's may have no `R` (see `foreign`): every line is looked at.
                // One search for all the block's line ends (the block ends with one): a memchr
                // call per line paid its start-up on every short line.
                hits.truncate(before);
                let marker = if self.foreign { crate::unknown::foreign_marker } else { crate::unknown::level_marker };
                let mut s = 0;
                for nl in memchr::memchr_iter(b'\n', block) {
                    if marker(&block[s..nl], self.levels) {
                        hits.push(Hit { end: s + 1, literal: LEVEL_HIT });
                    }
                    self.pretty_json = self.pretty_json || pretty_open(&block[s..nl], self.state);
                    s = nl + 1;
                }
                if s < block.len() && marker(&block[s..], self.levels) {
                    hits.push(Hit { end: s + 1, literal: LEVEL_HIT });
                }
            }
            merge_runs(&mut hits, before, &mut self.level_hits);
        }
        self.plausible_only = !(dense || self.pretty_json);
        if dense || self.pretty_json {
            self.lines_from(block, 0, offset, &hits, &mut h, first_truncated, has_esc, None, sink);
        } else {
            self.sparse(block, offset, &hits, sink);
        }
        // The last event may continue in the next block: copy it out.
        self.materialize(block);
        self.hits = hits;
    }

    /// Skim a block: only the events around hits, and the block's last event (which may
    /// continue in the next block), are framed line by line; other lines are only counted.
    fn sparse(&mut self, block: &[u8], offset: u64, hits: &[Hit], sink: &mut dyn EventSink) {
        let mut h = 0;
        let mut pos = 0;
        if self.acc.is_some() {
            // The event left open by the last block ends here, with or without hits.
            pos = self.lines_from(block, 0, offset, hits, &mut h, false, false, Some(0), sink);
        }
        while h < hits.len() && !self.shape_found {
            let end = hits[h].end.saturating_sub(1);
            let hit_line = line_start(block, end);
            if hit_line < pos {
                h += 1;
                continue;
            }
            // A hit whose records cannot match on its line (or, for records that may span lines,
            // in its event up to that line) is not worth framing an event for.
            let line_end = memchr::memchr(b'\n', &block[end..]).map_or(block.len(), |i| end + i);
            let verdict = if hits[h].literal == LEVEL_HIT {
                Plausible::Yes
            } else {
                self.matcher.line_plausible(hits[h].literal, &block[hit_line..line_end])
            };
            if verdict == Plausible::No {
                h += 1;
                continue;
            }
            let start = self.event_start(block, pos, hit_line);
            if verdict == Plausible::Event
                && !self.matcher.event_head_plausible(hits[h].literal, &block[start..line_end])
            {
                h += 1;
                continue;
            }
            self.skip(block, pos, start, sink);
            // Not before the hit's line: when no header was found above it, `start` is `pos` and
            // the events in between depend on every line, so they are framed one after another
            // up to it. Stopping at the first clear line there had the next round walk back
            // `max_event_lines` lines again for one more event: headerless logs (plain text,
            // messages without RisingWave's header) were framed at about 8 MB/s.
            pos = self.lines_from(block, start, offset, hits, &mut h, false, false, Some(hit_line), sink);
        }
        if std::mem::take(&mut self.shape_found) {
            // A line just framed showed a shape past the block's start (colour codes without
            // their ESC, a JSON envelope): the rest of the block is framed line by line, as every
            // block after it will be.
            self.lines_from(block, pos, offset, hits, &mut h, false, false, None, sink);
            return;
        }
        // The last event, framed so that the next block can extend it.
        let tail = self.event_start(block, pos, line_start(block, block.len() - 1));
        self.skip(block, pos, tail, sink);
        self.lines_from(block, tail, offset, hits, &mut h, false, false, None, sink);
    }

    /// Count the lines of `block[from..to]` without framing them; the open event ends before.
    fn skip(&mut self, block: &[u8], from: usize, to: usize, sink: &mut dyn EventSink) {
        if to > from {
            self.emit(block, sink);
            // With the level look the skim has counted the block's line breaks as it read it.
            let n = self.marks.count_lines(block, from, to);
            self.lines += n;
            self.stats.lines += n;
        }
    }

    /// Where to start framing so that the event holding the line at `line` comes out as dense
    /// framing would make it: the nearest line above it with a header (a header always starts an
    /// event), or `floor` (a line known to start an event) when there is none close enough.
    fn event_start(&mut self, block: &[u8], floor: usize, line: usize) -> usize {
        let mut cur = line;
        for _ in 0..self.limits.max_event_lines {
            let end = memchr::memchr(b'\n', &block[cur..]).map_or(block.len(), |i| cur + i);
            let (prefix, header) = parse::classify(&block[cur..end], &mut self.state.clone());
            if opens_event(header, content_of(&block[cur..end], &prefix)) || cur <= floor {
                return cur.max(floor);
            }
            cur = line_start(block, cur - 1);
        }
        // No header within an event's length: where events begin here depends on every line
        // since `floor` (plain lines, the event-length cap), so frame from there.
        floor
    }

    /// Frame lines from `from` (a line start) one by one. With `stop_after`, stop before the first
    /// line past that offset that has no hit and starts an event of its own, once every hit up to
    /// it is framed, and return that line's start (else the block's end).
    #[allow(clippy::too_many_arguments)]
    fn lines_from(
        &mut self,
        block: &[u8],
        from: usize,
        offset: u64,
        hits: &[Hit],
        h: &mut usize,
        first_truncated: bool,
        has_esc: bool,
        stop_after: Option<usize>,
        sink: &mut dyn EventSink,
    ) -> usize {
        let mut s = from;
        let mut first = true;
        while s < block.len() {
            let nl = s + memchr::memchr(b'\n', &block[s..]).expect("blocks end in a line break");
            // A CRLF line break is a line break: the `\r` is not part of the line.
            let mut e = if nl > s && block[nl - 1] == b'\r' { nl - 1 } else { nl };
            let mut truncated = first && first_truncated;
            if e - s > self.limits.max_line_bytes {
                e = s + self.limits.max_line_bytes;
                truncated = true;
            }
            let h0 = *h;
            while *h < hits.len() && hits[*h].end <= nl {
                *h += 1;
            }
            if !first && stop_after.is_some_and(|at| s > at) && h0 == *h && self.starts_event(&block[s..e]) {
                self.emit(block, sink);
                return s;
            }
            first = false;
            self.line(block, s, e, offset + s as u64, &hits[h0..*h], truncated, has_esc, sink);
            s = nl + 1;
        }
        block.len()
    }

    /// Would this line start a new event (rather than continue the open one)?
    fn starts_event(&mut self, raw: &[u8]) -> bool {
        let (prefix, header) = parse::classify(raw, &mut self.state.clone());
        !self.continues(header, raw.len(), raw, &prefix)
    }

    /// Does a line (`len` bytes; `line` as its `prefix` was read, without ANSI codes) continue
    /// the open event?
    fn continues(&self, header: Header, len: usize, line: &[u8], prefix: &parse::Prefix) -> bool {
        let content = content_of(line, prefix);
        self.acc.as_ref().is_some_and(|a| {
            let size = a.own.len() + a.in_block.map_or(0, |(x, y)| y - x) + len;
            let room = a.lines < self.limits.max_event_lines && size < self.limits.max_event_bytes;
            let structured = matches!(a.header, Header::RisingWave | Header::Panic) && !a.exited;
            // Past a Go crash's end only a line that continues any event's (blank, indented).
            room && match header {
                Header::None => {
                    // A RisingWave event too: behind `/var/log/syslog`'s prefixes it took every
                    // other program's line up to the next header, and their known errors became
                    // its match (found by a second reader). Its own line after another writer's
                    // is an event apart: an event is one run of lines (as with `kubectl
                    // --prefix`).
                    // A blank line of no writer (a journal record's empty `MESSAGE`, read as
                    // an empty line, no prefix) is any writer's: it ended the event of the record above, and
                    // the report below it was an event apart, with no header (a second reader's).
                    let key = source_key(line, prefix);
                    (key == a.source || (key == 0 && content.trim_ascii().is_empty()))
                        && (structured
                            || (a.json_open && parse::lone(content, b'}'))
                            || continuation_shape(content)
                            || a.traceback.continues(content, a.warns)
                            || (a.psql && parse::psql_detail(content)))
                }
                // A dated line continues only a PostgreSQL report, as its detail from the same
                // process.
                Header::Stamped => a
                    .postgres
                    .is_some_and(|(pid, pod)| parse::pg_detail(content) == Some(pid) && pod_key(line, prefix) == pod),
                _ => false,
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        block: &[u8],
        s: usize,
        e: usize,
        offset: u64,
        hits: &[Hit],
        truncated: bool,
        has_esc: bool,
        sink: &mut dyn EventSink,
    ) {
        self.lines += 1;
        self.stats.lines += 1;
        if truncated {
            self.stats.truncated_lines += 1;
        }
        let line_no = self.lines;
        let raw = &block[s..e];
        let mut lost = self.leftovers && parse::has_leftovers(raw);
        let mut ansi = lost || (has_esc && memchr::memchr(0x1b, raw).is_some());
        let (mut prefix, mut header) = if ansi {
            self.clean.clear();
            parse::strip_codes(raw, &mut self.clean, lost);
            parse::classify(&self.clean, &mut self.state)
        } else {
            parse::classify(raw, &mut self.state)
        };
        // Codes that lost their ESC first seen past the block's start: they hide the line's
        // header, so only a line without one is looked at (most lines framed have one).
        if !ansi && header == Header::None && parse::has_leftovers(raw) {
            self.leftovers = true;
            self.shape_found = true;
            (lost, ansi) = (true, true);
            self.clean.clear();
            parse::strip_codes(raw, &mut self.clean, true);
            (prefix, header) = parse::classify(&self.clean, &mut self.state);
        }
        if header == Header::Json && prefix.cri.is_none() {
            // A Docker json-file record is read as the CRI record it stands for.
            let cleaned: &[u8] = if ansi { &self.clean } else { raw };
            let mut record = std::mem::take(&mut self.docker);
            if parse::docker_record(&cleaned[prefix.content..], &mut record) {
                let (mut p, _) = parse::classify(&record, &mut self.state);
                p.docker = true;
                self.join_record(block, &record, &p, line_no, offset, truncated, sink);
                self.docker = record;
                return;
            }
            self.docker = record;
            // A JSON envelope (`stern -o json`, `journalctl -o json`, …) is read as the line it
            // carries, as a line assembled from CRI records is.
            let json = &cleaned[prefix.content..];
            if let Some(key) = parse::envelope_key(json, self.envelope) {
                let mut text = std::mem::take(&mut self.joined);
                let outer = &cleaned[..prefix.content];
                if let Some(pre) = parse::envelope_record(json, key, outer, prefix.kubectl.is_some(), &mut text) {
                    self.shape_found |= self.envelope.is_none();
                    self.envelope = Some(key);
                    self.materialize(block);
                    let foreign = self.foreign;
                    let piece = |text: Vec<u8>, first: bool| Partial {
                        text,
                        tag: 0,
                        first_line: line_no,
                        offset,
                        records: u32::from(first),
                        truncated,
                        docker: false,
                        envelope: true,
                        foreign,
                    };
                    if memchr::memchr(b'\n', &text[pre..]).is_none() {
                        self.logical_line(piece(text, true), sink);
                    } else {
                        // A record of a whole multi-line event (Fluent Bit's and Vector's
                        // multi-line parsers): each of its lines is read as one, behind the
                        // record's prefixes, so that a `Caused by:` line continues the event.
                        for (i, l) in text[pre..].split(|&b| b == b'\n').enumerate() {
                            let mut t = Vec::with_capacity(pre + l.len());
                            t.extend_from_slice(&text[..pre]);
                            t.extend_from_slice(l.strip_suffix(b"\r").unwrap_or(l));
                            self.logical_line(piece(t, i == 0), sink);
                        }
                    }
                    return;
                }
                self.joined = text;
            }
        }
        if let Some((stream_name, partial)) = &prefix.cri {
            let cleaned: &[u8] = if ansi { &self.clean } else { raw };
            let stream = usize::from(&cleaned[stream_name.clone()] == b"stderr");
            if *partial || self.cri_partial[stream].is_some() {
                // The record as read, ANSI codes and all: the runtime split the line without
                // regard to them, so a code may be cut in two, and they are removed once the line
                // is joined. A runtime's prefixes hold none, so their ranges are the same in
                // `raw`; a line with a code among them (not a runtime's) is joined cleaned.
                let before = &raw[..prefix.content.min(raw.len())];
                if ansi && (memchr::memchr(0x1b, before).is_some() || (lost && parse::has_leftovers(before))) {
                    let clean = std::mem::take(&mut self.clean);
                    self.join_record(block, &clean, &prefix, line_no, offset, truncated, sink);
                    self.clean = clean;
                } else {
                    self.join_record(block, raw, &prefix, line_no, offset, truncated, sink);
                }
                return;
            }
        }
        // The prefilter also knows each literal in JSON-escaped form (`\"`, `\\`, control
        // characters); only the escapes some encoders add beyond those need a decoded re-scan.
        let json_escapes = header == Header::Json
            && (memchr::memmem::find(raw, b"\\u").is_some() || memchr::memmem::find(raw, b"\\/").is_some());
        let rescan = ansi || json_escapes;
        let flags = (rescan, ansi);
        self.push_line(block, Some((s, e)), line_no, 1, offset, (prefix, header), hits, flags, truncated, sink);
    }

    /// Add a CRI record (`record`, its prefixes `prefix`) to the partial line of its stream;
    /// a record that is not partial (`F`) completes the line, which is then framed.
    #[allow(clippy::too_many_arguments)]
    fn join_record(
        &mut self,
        block: &[u8],
        record: &[u8],
        prefix: &parse::Prefix,
        line_no: u64,
        offset: u64,
        truncated: bool,
        sink: &mut dyn EventSink,
    ) {
        let Some((stream_name, partial)) = &prefix.cri else {
            debug_assert!(false, "only CRI records are joined");
            return;
        };
        let stream = usize::from(&record[stream_name.clone()] == b"stderr");
        // The open event's lines are a range of the block only while its lines follow one
        // another: a record kept aside here lies between them (a stream's partial line among the
        // other stream's lines), so the event is copied out before the range could grow over it.
        self.materialize(block);
        let content = &record[prefix.content..];
        let max = self.limits.max_line_bytes;
        let spare = &mut self.joined;
        let foreign = self.foreign;
        let entry = self.cri_partial[stream].get_or_insert_with(|| Partial {
            text: {
                let mut t = std::mem::take(spare);
                t.clear();
                t.extend_from_slice(&record[..prefix.content]);
                t
            },
            // A record's tag is the byte after its stream's name and a blank.
            tag: stream_name.end + 1,
            first_line: line_no,
            offset,
            records: 0,
            truncated: false,
            docker: prefix.docker,
            envelope: false,
            foreign: false,
        });
        entry.foreign |= foreign;
        let room = max.saturating_sub(entry.text.len());
        entry.text.extend_from_slice(&content[..content.len().min(room)]);
        entry.records += 1;
        entry.truncated |= truncated || content.len() > room;
        if !*partial {
            let mut p = self.cri_partial[stream].take().expect("just filled");
            // The joined line is echoed (pretty output) with its first record's prefixes: its
            // `P` said "partial", and the line is now whole, so it reads `F`, as README has it.
            // The tag is the first record's (a runtime's times vary in length).
            if let Some(tag) = p.text.get_mut(p.tag) {
                *tag = b'F';
            }
            self.materialize(block);
            self.logical_line(p, sink);
        }
    }

    /// Copy the open event out of `block`.
    fn materialize(&mut self, block: &[u8]) {
        if let Some(acc) = &mut self.acc
            && let Some((a, b)) = acc.in_block.take()
        {
            acc.own.clear();
            acc.own.extend_from_slice(&block[a..b]);
        }
    }

    /// A line assembled from CRI partial records: matched on its joined text.
    fn logical_line(&mut self, mut p: Partial, sink: &mut dyn EventSink) {
        // Records keep their ANSI codes until joined: a split may cut one in two.
        let lost = self.leftovers && parse::has_leftovers(&p.text);
        if lost || memchr::memchr(0x1b, &p.text).is_some() {
            let mut clean = std::mem::take(&mut self.joined);
            clean.clear();
            parse::strip_codes(&p.text, &mut clean, lost);
            self.joined = std::mem::replace(&mut p.text, clean);
        }
        let (mut prefix, header) = parse::classify(&p.text, &mut self.state);
        prefix.docker = p.docker;
        prefix.envelope = p.envelope;
        // A line after the first of an envelope's value is on the same physical line: it adds
        // none, unless it starts an event of its own, which then has that one.
        let opens = p.envelope && opens_event(header, content_of(&p.text, &prefix));
        let records = p.records.max(u32::from(opens));
        let (line, offset, truncated) = (&p.text, p.offset, p.truncated);
        let flags = (true, false);
        self.push_line(line, None, p.first_line, records, offset, (prefix, header), &[], flags, truncated, sink);
        if let Some(acc) = self.acc.as_mut() {
            acc.foreign |= p.foreign;
        }
        if p.text.capacity() >= self.joined.capacity() {
            self.joined = p.text;
        }
    }

    /// Add a line to the open event or start a new one. The line is `block[range]`, or all of
    /// `block` when `range` is `None` (a line assembled outside the block).
    #[allow(clippy::too_many_arguments)]
    fn push_line(
        &mut self,
        block: &[u8],
        range: Option<(usize, usize)>,
        line_no: u64,
        physical: u32,
        offset: u64,
        (mut prefix, header): (parse::Prefix, Header),
        hits: &[Hit],
        (rescan, ansi): (bool, bool),
        truncated: bool,
        sink: &mut dyn EventSink,
    ) {
        let raw = match range {
            Some((s, e)) => &block[s..e],
            None => block,
        };
        // The prefixes were read on the line without its ANSI codes (`self.clean`): its shape is
        // read there too (a coloured `Traceback …` or `ValueError: …`, an indent after a code).
        let clean = if ansi { std::mem::take(&mut self.clean) } else { Vec::new() };
        let content = content_of(if ansi { &clean } else { raw }, &prefix);
        let continues = self.continues(header, raw.len(), if ansi { &clean } else { raw }, &prefix);
        let json_open = header == Header::Json && parse::lone(content, b'{');
        // Read here, while the line's text is at hand: only an open object's `}` closes it.
        let json_closes = continues && self.acc.as_ref().is_some_and(|a| a.json_open) && parse::lone(content, b'}');
        if !continues {
            if header == Header::None && prefix.syslog.is_some() {
                // A plain line behind a syslog prefix starts its event whole: the annotator reads
                // its time and its ident ([`parse::Syslog`]).
                prefix.content = 0;
            }
            // Another program's line is read once for what decides the lines after it.
            let stamped = if header == Header::Stamped { parse::parse_stamped(content) } else { None };
            // The open event's range (if any) lies in this block.
            self.emit(if range.is_some() { block } else { &[] }, sink);
            let mut own = std::mem::take(&mut self.spare);
            own.clear();
            self.contents.clear();
            self.contents.push((prefix.content, prefix.table_row));
            self.acc = Some(Acc {
                in_block: None,
                own,
                first_line: line_no,
                lines: 0,
                offset,
                literals: Vec::new(),
                rescan: false,
                truncated: false,
                header,
                warns: stamped.as_ref().is_some_and(|st| stamped_warns(content, st)),
                psql: stamped.as_ref().is_some_and(parse::StampedLine::psql_shaped),
                postgres: stamped
                    .as_ref()
                    .filter(|st| st.postgres)
                    .map(|st| (st.pid_in(content), pod_key(if ansi { &clean } else { raw }, &prefix))),
                source: source_key(if ansi { &clean } else { raw }, &prefix),
                prefix,
                traceback: Traceback::None,
                goroutines: false,
                report_open: false,
                exited: false,
                // Set below, as for every line the event takes.
                foreign: false,
                crlf: false,
                json_open,
            });
        } else {
            self.contents.push((prefix.content, prefix.table_row));
        }
        let foreign = self.foreign;
        let acc = self.acc.as_mut().expect("an event is open");
        acc.foreign |= foreign;
        acc.report_open = report_header(content);
        // A RisingWave event or a panic takes every line without a header: no state to keep,
        // but a crash's end (found by an on-call reader: the `LAST SEEN …` header of a
        // `kubectl get events` listing pasted below a Go crash was taken into it).
        if !matches!(acc.header, Header::RisingWave | Header::Panic) {
            acc.traceback = acc.traceback.after(content);
        } else if acc.header == Header::Panic {
            // Once seen, for good: a blank line after it joined the crash and took the end
            // away (found by a second reader). A Rust panic's message may read `exit status 3`.
            acc.goroutines |= content.starts_with(b"goroutine ");
            acc.exited |= acc.goroutines && exit_status_line(content);
        }
        if ansi {
            self.clean = clean;
        }
        match (range, acc.in_block) {
            (Some((_, e)), Some((a, end))) if !acc.truncated => {
                acc.in_block = Some((a, e));
                acc.crlf |= block.get(end) == Some(&b'\r');
            }
            (Some((s, e)), None) if acc.lines == 0 => acc.in_block = Some((s, e)),
            _ => {
                if let Some((a, b)) = acc.in_block.take() {
                    // Only lines of this same block are ranges (see `materialize`).
                    acc.own.extend_from_slice(&block[a..b]);
                }
                if acc.lines > 0 {
                    acc.own.push(b'\n');
                }
                acc.own.extend_from_slice(raw);
            }
        }
        if json_closes {
            acc.json_open = false;
        }
        acc.lines += physical;
        acc.rescan |= rescan;
        acc.truncated |= truncated;
        for hit in hits {
            if hit.literal != LEVEL_HIT
                && !acc.literals.contains(&hit.literal)
                && !(self.plausible_only
                    && range.is_some_and(|(s, _)| {
                        self.matcher.line_plausible(hit.literal, line_of(block, s)) == Plausible::No
                    }))
            {
                acc.literals.push(hit.literal);
            }
        }
    }

    fn emit(&mut self, block: &[u8], sink: &mut dyn EventSink) {
        let Some(mut acc) = self.acc.take() else { return };
        if acc.crlf {
            // A CRLF line break is a line break, as it is at a line's end: the event's lines are
            // joined by `\n` alone, wherever they were read (lines joined out of the block, from
            // a pipe's reads or across blocks, never kept the `\r`; the message and the matched
            // text kept it, and a record's `\n` did not match).
            if let Some((a, b)) = acc.in_block.take() {
                acc.own.clear();
                acc.own.extend_from_slice(&block[a..b]);
            }
            let mut w = 0;
            for r in 0..acc.own.len() {
                if acc.own[r] == b'\r' && acc.own.get(r + 1) == Some(&b'\n') {
                    continue;
                }
                acc.own[w] = acc.own[r];
                w += 1;
            }
            acc.own.truncate(w);
        }
        let bytes: &[u8] = match acc.in_block {
            Some((a, b)) => &block[a..b],
            None => &acc.own,
        };
        sink.event(RawEvent {
            bytes,
            first_line: acc.first_line,
            lines: acc.lines,
            offset: acc.offset,
            literals: &acc.literals,
            rescan: acc.rescan,
            truncated: acc.truncated,
            header: acc.header,
            prefix: &acc.prefix,
            contents: &self.contents,
            foreign: acc.foreign || self.foreign,
        });
        self.spare = acc.own;
    }
}

/// Where a segment of `buf` may end so that the next segment starts with an event: the start
/// of the last line with a header (a line that always starts an event), looked for among the
/// last `lines` lines; failing that, the start of the last complete line. `None` when `buf` holds
/// no line break.
pub fn event_boundary(buf: &[u8], lines: usize) -> Option<usize> {
    let last_nl = memchr::memrchr(b'\n', buf)?;
    Some(header_line_before(buf, lines).unwrap_or(last_nl + 1))
}

/// The start of the last line of `buf` (among its last `lines` complete lines, and not its
/// first line, which may be cut) that has a header; `None` when there is none.
pub fn header_line_before(buf: &[u8], lines: usize) -> Option<usize> {
    let mut end = memchr::memrchr(b'\n', buf)?;
    let (mut record, mut clean) = (Vec::new(), Vec::new());
    for _ in 0..lines {
        let start = line_start(buf, end);
        if start == 0 {
            break;
        }
        let mut line = &buf[start..end];
        // Every Docker json-file record is a JSON line: it is the record's text that may start
        // an event (a `Caused by:` record continues the one above).
        if parse::docker_record(line, &mut record) {
            line = parse::without_ansi(&record, &mut clean);
        } else if line.first() == Some(&b'{')
            && let Some(key) = (0..parse::ENVELOPE_KEYS.len()).find_map(|k| parse::envelope_key(line, Some(k)))
            && parse::envelope_record(line, key, b"", false, &mut record).is_some()
        {
            // So is a JSON envelope's (`stern -o json`): the line it carries.
            line = parse::without_ansi(&record, &mut clean);
        }
        let (prefix, header) = parse::classify(line, &mut StreamState::default());
        if opens_event(header, content_of(line, &prefix)) {
            return Some(start);
        }
        end = start - 1;
    }
    None
}

/// How much of a block's start is looked through for colour codes that lost their ESC and for
/// JSON envelopes: the first few hundred lines, past a shell prompt or a markdown fence before a
/// paste, or other records before an envelope (journald's own).
const SHAPES_LOOK: usize = 64 << 10;

/// Does `line` open a pretty-printed JSON object: a `{` alone, behind whatever prefixes framing
/// reads? Only a line ending in `{` is classified.
fn pretty_open(line: &[u8], state: StreamState) -> bool {
    line.trim_ascii_end().last() == Some(&b'{') && {
        let (p, h) = parse::classify(line, &mut state.clone());
        h == Header::Json && parse::lone(&line[p.content..], b'{')
    }
}

/// The envelope key ([`parse::envelope_key`]) of the first line of `look` that is a JSON
/// envelope, read behind the prefixes framing reads.
fn envelope_in(look: &[u8], state: StreamState) -> Option<usize> {
    let mut state = state;
    // Only lines with a JSON object's `{"` (`{ "`, journalctl's) are classified: a text log has
    // next to none, and a walk over every line of the look cost 2% of a scan (callgrind, the
    // peers corpus).
    let mut done = 0;
    memchr::memchr_iter(b'{', look).find_map(|at| {
        let after = &look[at + 1..];
        let blanks = after.iter().take(4).take_while(|&&b| b == b' ').count();
        if at < done || after.get(blanks) != Some(&b'"') {
            return None;
        }
        let (s, e) = line_around(look, at);
        done = e + 1;
        let line = &look[s..e];
        let (p, h) = parse::classify(line, &mut state);
        (h == Header::Json && p.cri.is_none())
            .then(|| parse::envelope_key(&line[p.content.min(line.len())..], None))
            .flatten()
    })
}

/// Does `block` hold an ANSI escape (ESC), and a JSON escape the prefilter does not know (`\u`,
/// `\/`)? One pass for both: the block is otherwise read only by the skim and the line count,
/// and three passes (one per byte sequence) cost 3–4% of a scan.
fn escapes(block: &[u8]) -> (bool, bool) {
    let (mut ansi, mut json) = (false, false);
    for i in memchr::memchr2_iter(0x1b, b'\\', block) {
        if block[i] == 0x1b {
            ansi = true;
        } else if matches!(block.get(i + 1), Some(b'u' | b'/')) {
            json = true;
        }
        if ansi && json {
            break;
        }
    }
    (ansi, json)
}

/// Add a [`LEVEL_HIT`] for each line of a block that [`level_marker`] wants, without looking at
/// every line: a text line at a level it wants holds `WARN` (`WARNING`), `ERR` (`ERROR`) or
/// `CRIT` (`CRITICAL`), each of which holds an `R`, so only the lines where one of those words is
/// met at `marks` (every position of `R` and `{`, ascending) are looked at (on the 100 MB peers corpus about 5,000
/// of 681,514 lines; a look at every line cost 10% of the scan). A panic's first line needs no
/// hit here: the prefilter's panic keys (`panicked at `, a Go crash's `goroutine `) frame it.
/// The same pass meets the brace that starts a JSON line (at a line's start or behind the
/// prefixes framing reads: [`json_line_start`]; a Debug struct's brace follows a word): a JSON
/// line's level may be any word in any case, so then `false` is returned, the hits pushed so
/// far are to be dropped, and every line is to be looked at.
///
/// [`level_marker`]: crate::unknown::level_marker
fn level_candidates(block: &[u8], marks: &[usize], levels: crate::unknown::Levels, hits: &mut Vec<Hit>) -> bool {
    // Bytes before `done` belong to lines already looked at.
    let mut done = 0;
    for &i in marks {
        let word = match block[i] {
            b'{' if json_line_start(block, i) => return false,
            b'{' => false,
            _ if i < done => false,
            // The `R` of `WARN` (`WARNING`), or the first of `ERR` (`ERROR`) or `CRIT`
            // (`CRITICAL`): every level word `level_marker` takes has one of them.
            // The byte before the `R` tells which word it could be, and rejects most `R`s
            // (`RisingWave`, `Running`) with one compare.
            _ => match block[..i].last() {
                Some(b'A') => i >= 2 && block[i - 2..].starts_with(b"WARN"),
                Some(b'E') => block[i - 1..].starts_with(b"ERR"),
                Some(b'C') => block[i - 1..].starts_with(b"CRIT"),
                _ => false,
            },
        };
        if !word {
            continue;
        }
        let (s, e) = line_around(block, i);
        if crate::unknown::level_marker(&block[s..e], levels) {
            hits.push(Hit { end: s + 1, literal: LEVEL_HIT });
        }
        done = e + 1;
    }
    true
}

/// Merge `v[..mid]` and `v[mid..]`, each ascending by `end`, into one run, as a stable sort by
/// `end` would (of two hits that end alike, the first run's stays first). The second run (a
/// block's level hits, a few) is copied out and the two are merged from the back: a sort of the
/// whole vector cost 1 M instructions on the 100 MB peers corpus at `--unknown warn`.
fn merge_runs(v: &mut [Hit], mid: usize, buf: &mut Vec<Hit>) {
    if mid == 0 || mid == v.len() || v[mid - 1].end <= v[mid].end {
        return;
    }
    buf.clear();
    buf.extend_from_slice(&v[mid..]);
    let (mut i, mut j) = (mid, buf.len());
    for k in (0..v.len()).rev() {
        if j == 0 {
            break;
        }
        if i > 0 && v[i - 1].end > buf[j - 1].end {
            v[k] = v[i - 1];
            i -= 1;
        } else {
            v[k] = buf[j - 1];
            j -= 1;
        }
    }
}

/// Is this block another program's log ([`Framer::foreign`])? Its first and its last
/// [`SNIFF_LINES`] lines are read as framing reads them, each way up to the first header that
/// tells: a RisingWave or panic line says no (a RisingWave stream pays for two lines a block; a
/// JSON one, for up to 16: JSON lines are passed over). The
/// last lines catch a Go program's log that starts after a long banner, or after another
/// program's lines in the same block.
fn foreign_block(block: &[u8], state: StreamState) -> bool {
    let mut record = Vec::new();
    let mut foreign = |l: &[u8], state: &mut StreamState| {
        // A Docker json-file record is read as the line it carries.
        let l = if parse::docker_shaped(l) && parse::docker_record(l, &mut record) { &record[..] } else { l };
        let (p, h) = parse::classify(l, state);
        match h {
            // A Go program's crash may end any program's log (the operator's, etcd's): it tells
            // nothing, as a JSON line does.
            Header::Panic if parse::go_panic_header(&l[p.content..]) => None,
            Header::RisingWave | Header::Panic => Some(false),
            // A JSON line may be any program's (the operator's zap, etcd's): it tells nothing,
            // and the lines past it are read on. A block of JSON lines alone is no other
            // program's log: there every line is looked at anyway, a JSON line's level read
            // under every key the annotator reads it from.
            Header::Json => None,
            // A syslog line with its `<PRI>`: its level is no word the marks find.
            Header::None if p.syslog.is_some() && parse::has_syslog_pri(l) => Some(true),
            _ => crate::unknown::foreign_level(&l[p.content..], h).map(|_| true),
        }
    };
    let mut st = state;
    for l in block.split(|&b| b == b'\n').take(SNIFF_LINES) {
        if let Some(yes) = foreign(l, &mut st) {
            if yes {
                return true;
            }
            break;
        }
    }
    // The last lines, from the end: a block ends with its last line's break.
    let body = block.strip_suffix(b"\n").unwrap_or(block);
    let mut st = state;
    for l in body.rsplit(|&b| b == b'\n').take(SNIFF_LINES) {
        if let Some(yes) = foreign(l, &mut st) {
            return yes;
        }
    }
    false
}

/// Does the brace at `i` start a JSON line ([`json_start`])? At a line's start it does; behind a
/// blank, a tab, a quote's `>` or a gutter's `|` the line is read when the brace opens a key
/// (`{"`) or follows a prefix's last bytes (`kubectl`'s `]`, a timestamp's `Z` or digit, a CRI
/// tag's `F`/`P`, compose's `|`); a Debug struct's brace follows a word and a blank (`Foo { a`).
///
/// [`json_start`]: crate::unknown::json_start
fn json_line_start(block: &[u8], i: usize) -> bool {
    i == 0
        || block[i - 1] == b'\n'
        || (matches!(block[i - 1], b' ' | b'\t' | b'>' | b'|')
            && (block.get(i + 1) == Some(&b'"')
                || (i >= 2 && matches!(block[i - 2], b']' | b'Z' | b'F' | b'P' | b'|' | b'0'..=b'9')))
            && {
                let (s, e) = line_around(block, i);
                crate::unknown::json_start(&block[s..e]) == Some(i - s)
            })
}

/// Start and end (its line break, or the block's end) of the line that holds byte `i`.
/// The whole line that starts at `s` (a line truncated for framing included: its hits are
/// looked at on the line as the skim found them).
fn line_of(block: &[u8], s: usize) -> &[u8] {
    &block[s..memchr::memchr(b'\n', &block[s..]).map_or(block.len(), |i| s + i)]
}

fn line_around(block: &[u8], i: usize) -> (usize, usize) {
    (line_start(block, i), memchr::memchr(b'\n', &block[i..]).map_or(block.len(), |k| i + k))
}

/// Start of the line that holds byte `p`.
fn line_start(block: &[u8], p: usize) -> usize {
    memchr::memrchr(b'\n', &block[..p.min(block.len())]).map_or(0, |i| i + 1)
}

/// Does a line with this header start an event whatever event is open? Every header does, but
/// for a PostgreSQL report's detail line (dated as the report's line is), which continues it.
fn opens_event(header: Header, content: &[u8]) -> bool {
    header != Header::None && !(header == Header::Stamped && parse::pg_detail(content).is_some())
}

/// The pod and container a line's `kubectl --prefix` (or stern's) names, as a hash (0 without
/// one): a PostgreSQL detail continues only the report of the same server, and servers in two
/// pods often run processes with the same small ids.
fn pod_key(line: &[u8], prefix: &parse::Prefix) -> u64 {
    if prefix.kubectl.is_none() { 0 } else { prefix_key(line, prefix, false) }
}

/// The pod and container a line's `kubectl --prefix` (or stern's) names, the stream its CRI
/// (or Docker json-file) record was written to, and the host, ident and pid of its syslog or
/// journal prefix, as a hash (0 without any of them): the lines of one event come from one of
/// them ([`Acc::source`]).
fn source_key(line: &[u8], prefix: &parse::Prefix) -> u64 {
    if prefix.kubectl.is_none() && prefix.cri.is_none() && prefix.syslog.is_none() {
        0
    } else {
        prefix_key(line, prefix, true)
    }
}

/// The hash ([`pod_key`], [`source_key`]) of a line's pod and container, and with `stream` its
/// CRI stream and syslog writer; never 0 (0: no prefix).
fn prefix_key(line: &[u8], prefix: &parse::Prefix, stream: bool) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let at = |r: &std::ops::Range<usize>| line.get(r.clone());
    prefix.kubectl.as_ref().map(|(p, c)| (at(p), at(c))).hash(&mut h);
    if stream {
        prefix.cri.as_ref().map(|(s, _)| at(s)).hash(&mut h);
        prefix.syslog.as_ref().map(at).hash(&mut h);
    }
    h.finish() | 1
}

/// A line's text after its prefixes (a CRI record's, `kubectl --prefix`, stern's, a journal's):
/// where its shape is read. (`prefix` was read on the line without ANSI codes; a prefix is not
/// coloured, so the offset holds on the raw line too.)
fn content_of<'l>(raw: &'l [u8], prefix: &parse::Prefix) -> &'l [u8] {
    raw.get(prefix.content..).unwrap_or(raw)
}

/// Is another program's line ([`Header::Stamped`], its text `content`, read as `st`) at WARN or
/// above, as a program logs an error that a traceback below it belongs to? Not a Kubernetes
/// event's row (its `object`): its `Warning` is the event's type, and a program's traceback
/// pasted under a `kubectl get events` listing was taken into its last row (found by an on-call
/// reader).
fn stamped_warns(content: &[u8], st: &parse::StampedLine) -> bool {
    st.object.is_none()
        && st.level.clone().is_some_and(|l| crate::unknown::Levels::Warn.wants(Some(&content[l]), false))
}

/// An error report's header, alone on its line (`Caused by:`, anyhow's; `Caused by these errors
/// (recent errors listed first):`, RisingWave's), or a backtrace's (`stack backtrace:`, a
/// panic's; `Stack backtrace:` and `Backtrace:`, anyhow's): what comes under it is the event's.
/// A panic's frames come after the program has read its debug information, which on a binary
/// the size of RisingWave's takes longer than the idle timeout: the frames were an event apart
/// (found by a developer's reading).
fn report_header(line: &[u8]) -> bool {
    cause_header(line) || matches!(line.trim_ascii(), b"stack backtrace:" | b"Stack backtrace:" | b"Backtrace:")
}

/// The header of a report's causes, alone on its line: `Caused by:` (anyhow's) or `Caused by
/// these errors (recent errors listed first):` (RisingWave's).
pub(crate) fn cause_header(line: &[u8]) -> bool {
    let l = line.trim_ascii();
    l.starts_with(b"Caused by")
        && l.ends_with(b":")
        && (l.len() == b"Caused by:".len() || l.starts_with(b"Caused by these errors"))
}

/// `exit status <N>`: what `go run` (and a shell's job report) prints after a program's crash.
fn exit_status_line(line: &[u8]) -> bool {
    line.trim_ascii_end()
        .strip_prefix(b"exit status ")
        .is_some_and(|n| !n.is_empty() && n.iter().all(u8::is_ascii_digit))
}

/// Lines that continue the event above even when it is plain text.
fn continuation_shape(line: &[u8]) -> bool {
    line.is_empty()
        || line[0] == b' '
        || line[0] == b'\t'
        // A no-break space: an indent as a web page or a chat copies it.
        || line.starts_with(b"\xc2\xa0")
        || line.starts_with(b"Caused by")
        || line.starts_with(b"Stack backtrace:")
        || line.starts_with(b"Backtrace:")
}

#[cfg(test)]
mod tests {
    use super::{escapes, level_candidates, merge_runs, LEVEL_HIT};
    use crate::matcher::prefilter::Hit;
    use crate::unknown::Levels;

    #[test]
    fn merge_runs_agrees_with_a_stable_sort() {
        // Two ascending runs of ends (the first run's literals 1, the second's 2), every split.
        let cases: &[(&[usize], &[usize])] = &[
            (&[], &[]),
            (&[3], &[]),
            (&[], &[3]),
            (&[1, 5, 9], &[2, 3, 10]),
            (&[4, 4, 7], &[4, 7, 7]),
            (&[10, 20], &[1, 2]),
            (&[1, 2], &[10, 20]),
            (&[1, 1, 1], &[1]),
        ];
        let mut buf = Vec::new();
        for (a, b) in cases {
            let mut v: Vec<Hit> = a.iter().map(|&end| Hit { end, literal: 1 }).collect();
            v.extend(b.iter().map(|&end| Hit { end, literal: 2 }));
            let mut want = v.clone();
            want.sort_by_key(|h| h.end);
            merge_runs(&mut v, a.len(), &mut buf);
            assert_eq!(v, want, "{a:?} + {b:?}");
        }
        // And runs drawn at random, ties included.
        let mut x = 0x9E37_79B9u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n) as usize
        };
        for _ in 0..2000 {
            let (la, lb) = (next(12), next(6));
            let mut run = |len: usize, literal: u32| {
                let mut r: Vec<Hit> = (0..len).map(|_| Hit { end: next(40), literal }).collect();
                r.sort_by_key(|h| h.end);
                r
            };
            let mut v = run(la, 1);
            v.extend(run(lb, 2));
            let mut want = v.clone();
            want.sort_by_key(|h| h.end);
            merge_runs(&mut v, la, &mut buf);
            assert_eq!(v, want);
        }
    }

    #[test]
    fn escapes_finds_ansi_and_unknown_json_escapes_in_one_pass() {
        let cases: &[(&[u8], (bool, bool))] = &[
            (b"plain text\n", (false, false)),
            (b"\x1b[31mERROR\x1b[0m x\n", (true, false)),
            (br#"{"msg":"a \"quoted\" word\nnext"}"#, (false, false)),
            (br#"{"msg":"caf\u00e9"}"#, (false, true)),
            (br#"{"url":"http:\/\/x"}"#, (false, true)),
            // An escaped backslash before `u` is reported too (dense framing is never wrong).
            (br#"{"path":"C:\\user"}"#, (false, true)),
            (b"\x1b[1m{\"m\":\"\\u0041\"}", (true, true)),
            (b"ends in a backslash \\", (false, false)),
        ];
        for (block, want) in cases {
            assert_eq!(escapes(block), *want, "{:?}", String::from_utf8_lossy(block));
        }
    }

    /// The marks framing gets from the skim: every `R` and `{` (the skim's own tests hold it to
    /// this).
    fn marks_of(block: &[u8]) -> Vec<usize> {
        memchr::memchr2_iter(b'R', b'{', block).collect()
    }

    #[test]
    fn level_candidates_give_up_on_json_lines() {
        let cases: &[(&[u8], bool)] = &[
            (b"2026-03-02T08:00:00Z  WARN x: Foo { a: 1 }\n", false),
            (b"a\n{\"level\":\"WARN\"}\n", true),
            (b"{\"level\":\"WARN\"}", true),
            (b"x\n[pod/m/m] {\"level\":\"WARN\"}\n", true),
            (b"x\n2026-03-02T08:00:00.1Z {\"level\":\"WARN\"}\n", true),
            (b"x\n2026-03-02T08:00:00.1Z stderr F {\"level\":\"WARN\"}\n", true),
            (b"2026-03-02T08:00:00Z  WARN x: a P {\"level\":\"WARN\"}\n", false),
            (b"x\n[pod/m/m] 2026-03-02T08:00:00Z ERROR x: Foo { a: 1 }\n", false),
            (b"x\nmeta-1  | {\"level\":\"WARN\"}\n", true),
            (b"x\nmeta-0 meta {\"level\":\"WARN\"}\n", true),
            (b"x\n2026-12-05 10:00:00.123 | {\"level\":\"WARN\"}\n", true),
            (b"x\n  {\"level\":\"WARN\"}\n", true),
            (b"x\n>{\"level\":\"WARN\"}\n", true),
            (b"x\nDec  5 10:00:00 node-1 meta[123]: {\"level\":\"WARN\"}\n", true),
            // One byte before the brace at a block's start; a CRLF line end.
            (b">{\"level\":\"error\"}\nx\n", true),
            (b" {\"level\":\"error\"}\nx\n", true),
            (b"x\r\n  {\"level\":\"WARN\"}\r\n", true),
            (b"x\r\nDec  5 10:00:00 node-1 meta[123]: {\"level\":\"WARN\"}\r\n", true),
            (b"2026-03-02T08:00:00Z  INFO x: props {\"a\": 1}\n", false),
            (b"x\n  {\"level\":\"WARN\"} and more\n", false),
            (b"span{f=v}: x\n", false),
        ];
        for &(block, json) in cases {
            assert_eq!(!level_candidates(block, &marks_of(block), Levels::Warn, &mut Vec::new()), json, "{:?}", String::from_utf8_lossy(block));
        }
    }

    /// The lines `level_marker` wants, found by a look at every line, but for panics' first
    /// lines (the prefilter's panic key frames those).
    fn every_line(block: &[u8], levels: Levels) -> Vec<usize> {
        let mut s = 0;
        let mut out = Vec::new();
        for line in block.split(|&b| b == b'\n') {
            let panic = memchr::memmem::find(line, crate::matcher::PANIC_KEY).is_some();
            if crate::unknown::level_marker(line, levels) && !panic {
                out.push(s + 1);
            }
            s += line.len() + 1;
        }
        out
    }

    #[test]
    fn level_candidates_find_the_lines_a_look_at_every_line_finds() {
        let block: &[u8] = b"2026-03-02T08:00:00.123456789Z  WARN risingwave_meta: slow\n\
2026-03-02T08:00:00.1Z ERROR risingwave_meta: failed: WARN ERROR\n\
2026-03-02T08:00:00.1Z  INFO risingwave_meta: got ERROR from peer, WARN\n\
2026-03-02T08:00:00.1Z DEBUG RisingWave: RROR WAR\n\
thread 'main' panicked at src/x.rs:1:2:\n\
[pod/meta-0/meta] thread 'tokio' panicked at src/x.rs:1:2:\n\
[pod/meta-0/meta] 2026-03-02T08:00:00.1Z ERROR x: Foo { a: 1 }\n\
081109 203615 148 WARN dfs.DataNode: x\n\
081109 203615 148 INFO dfs.DataNode: x ERROR\n\
plain ERROR in text\n\
the thread 'x' said\n\
ERROR at the start\n\
2026-03-02T08:00:00.1Z ERROR no line break at the end";
        for levels in [Levels::Warn, Levels::Error] {
            let mut hits = Vec::new();
            level_candidates(block, &marks_of(block), levels, &mut hits);
            let got: Vec<usize> = hits.iter().map(|h| h.end).collect();
            assert!(hits.iter().all(|h| h.literal == LEVEL_HIT));
            let want = every_line(block, levels);
            assert_eq!(got, want, "{levels:?}");
            assert!(want.len() >= if levels == Levels::Warn { 6 } else { 4 }, "{levels:?}: {want:?}");
        }
    }

    /// A block's level hits as framing finds them: every line when it has JSON lines, else the
    /// candidates.
    fn level_hits(block: &[u8], levels: Levels) -> Vec<usize> {
        let mut hits = Vec::new();
        if !level_candidates(block, &marks_of(block), levels, &mut hits) {
            return every_line(block, levels);
        }
        hits.iter().map(|h| h.end).collect()
    }

    proptest::proptest! {
        /// With JSON lines (any level word, behind any prefix) and text lines with braces mixed
        /// in, framing's level hits are the lines a look at each line finds.
        #[test]
        fn level_hits_are_exact_with_json_lines(lines in proptest::collection::vec(proptest::sample::select(vec![
            r#"{"level":"warning","fields":{}}"#, r#"{"level":"info"}"#, r#"[pod/a/b] {"level":"error"}"#,
            r#"[x {"level":"error"}"#, r#"2026-03-02T08:00:00.1Z {"level":"fatal"}"#, r#"2026-03-02T08:00:00+08:00 {"level":"ERR"}"#,
            r#"abc {"level":"error"}"#, "2026-03-02T08:00:00.1Z  WARN a: Foo { a: 1 }", "2026-03-02T08:00:00.1Z  INFO a: { x }",
            "[pod/a/b] 2026-03-02T08:00:00Z ERROR x: E { a }", "plain { a } ERROR ", "", "  {",
            r#"meta-1  | {"level":"error"}"#, r#"meta-0 meta {"level":"warn"}"#, r#"2026-03-02 08:00:00.1 | {"level":"error"}"#,
            r#"  {"level":"error"}"#, r#"> {"level":"warn"}"#, r#"2026-03-02T08:00:00.1Z  INFO a: m {"level": "error"}"#,
            r#"x y {"level":"error"} z"#,
        ]), 0..10), error_only in proptest::bool::ANY) {
            let block = lines.join("\n");
            let levels = if error_only { Levels::Error } else { Levels::Warn };
            proptest::prop_assert_eq!(level_hits(block.as_bytes(), levels), every_line(block.as_bytes(), levels), "{:?}", block);
        }
    }

    proptest::proptest! {
        /// On any mix of such lines, the candidates are exactly the lines a look at each finds.
        #[test]
        fn level_candidates_are_exact(lines in proptest::collection::vec(proptest::sample::select(vec![
            "2026-03-02T08:00:00.1Z  WARN a: b", "2026-03-02T08:00:00.1Z ERROR a: WARN",
            "2026-03-02T08:00:00.1Z  INFO a: ERROR ", "2026-03-02T08:00:00.1Z  INFO a: thread 'x'",
            "thread 'x' panicked at src/a.rs:1:2:", "[pod/a/b] thread 'x' panicked at src/a.rs:1:2:", "thread 'x' has overflowed", "[pod/a/b] 2026-03-02T08:00:00Z  WARN x",
            "x WARN y", "WARN x", " ERROR", "RROR", "W", "", "   at src/x.rs", "ERRORWARN thread '",
            "2024-01-01 12:00:00,123 - root - WARNING - x", "2024-01-01 12:00:00 [WARN] y", "t\tCRITICAL:\tz",
            "a\tERR\tb", "x (CRIT) y", "2024-01-01 12:00:00 FATAL x", "2024-01-01 12:00:00 Warning x", "WARNINGS x",
        ]), 0..12), error_only in proptest::bool::ANY) {
            let block = lines.join("\n");
            let levels = if error_only { Levels::Error } else { Levels::Warn };
            let mut hits = Vec::new();
            level_candidates(block.as_bytes(), &marks_of(block.as_bytes()), levels, &mut hits);
            let got: Vec<usize> = hits.iter().map(|h| h.end).collect();
            proptest::prop_assert_eq!(got, every_line(block.as_bytes(), levels), "{:?}", block);
        }
    }
}
