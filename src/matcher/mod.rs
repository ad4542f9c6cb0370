//! The matcher: prefilter (literals → candidate records), confirm (regex, captures), ranking.
//!
//! Contract:
//! - [`Matcher::candidates`] may over-report and never under-reports: every record whose regex
//!   matches a haystack is among the candidates of that haystack's prefilter hits, or is one of
//!   the records without a key literal (always candidates).
//! - [`Matcher::confirm`] reports each record at most once per event, at its leftmost match over
//!   the event's haystacks, with its captures. A trailing value is captured whole: it runs to the
//!   end of the value it sits in (the next ` key=` field, the end of a span field, the end of a
//!   line or of a JSON string), not one character as the catalog's lazy `(.+?)` would.
//! - [`Matcher::rank`] orders the confirmed records: the first is the primary.
//!
//! Everything here is synchronous and works on bytes. Patterns of the catalog's usual shape
//! (literal pieces with `(.+?)` groups between them) are confirmed by [`seq::Seq`] with no regex
//! at all; the others are compiled on their record's first candidate, not at start-up, with size
//! limits so that a hostile catalog cannot exhaust memory. Per-event work reuses the buffers of a
//! [`Scratch`]; only confirmed matches allocate.

pub mod literals;
pub mod prefilter;
pub mod seq;
pub mod skim;

use std::sync::OnceLock;

use regex::bytes::{Regex, RegexBuilder};

use crate::catalog::template::{self, Forms, Part};
use crate::catalog::{Catalog, Level, Problem, ProblemKind, Record};
use prefilter::{Hit, Prefilter};
pub use skim::Marks;

/// Longest `messagePattern` or `errorMessage` accepted, in bytes: a hundred times the longest
/// real one, far below what makes a regex program large.
pub const MAX_PATTERN_BYTES: usize = 64 << 10;

/// Limits on what one record's regex may cost.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Bytes of compiled program per regex. The largest catalog pattern needs well under 100 KiB;
    /// 1 MiB leaves room for hand-written patterns and stops `(a{1000}){1000}`-style bombs.
    pub regex_size: usize,
    /// Nesting depth of a pattern: real patterns nest two or three groups deep.
    pub nest: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { regex_size: 1 << 20, nest: 64 }
    }
}

/// Lazy-DFA cache per regex. Catalog patterns are short literal runs and `(.+?)` groups whose
/// DFAs need a few dozen states; the default (2 MiB per regex) lets thousands of rarely used
/// regexes hold hundreds of MiB between them.
const DFA_CACHE: usize = 16 << 10;

/// Shortest key literal worth putting in the prefilter. Shorter ones (`: `, `id`) hit nearly
/// every line, so such records are confirmed on every event instead, with a warning.
const MIN_LITERAL: usize = 3;

/// A record without a usable literal whose pattern can match this few bytes would match almost
/// any line (`(.+?)`, `.{2}`): it is refused.
const MIN_GENERIC_LEN: usize = 8;

/// The words every panic header holds (`thread '...' panicked at ...`).
pub const PANIC_KEY: &[u8] = b"panicked at ";

/// The words a Go program's crash starts with: a panic (`panic: runtime error: …`) or the
/// runtime's fatal error (`fatal error: concurrent map writes`), each followed by its
/// goroutines' stacks ([`parse::go_panic_header`](crate::framing::parse::go_panic_header)).
pub const GO_PANIC_KEYS: [&[u8]; 2] = [b"panic: ", b"fatal error: "];

/// The words of a Go crash's stacks (`goroutine 187 [running]:`), a few lines below its first:
/// the prefilter's key for it. The first line's own words would be costly keys: with `fatal
/// error: ` the skim's windows that hold `error: ` (most of a RisingWave log's error lines) were
/// searched, 3.2 M instructions on 10 MB of the peers corpus (4% of its scan); this key costs
/// nothing measurable. A crash is then one only with its stacks ([`go_crash_or_rust_panic`]).
pub const GO_STACK_KEY: &[u8] = b"goroutine ";

/// Is this event (its bytes, the first line's content past its prefixes `first`), framed with a
/// [`Header::Panic`](crate::framing::parse::Header::Panic), a crash: a Rust panic, or a Go
/// program's crash with its goroutines' stacks (a `panic: …` line alone is a message's words)?
pub fn go_crash_or_rust_panic(first: &[u8], bytes: &[u8]) -> bool {
    !crate::framing::parse::go_panic_header(first) || memchr::memmem::find(bytes, GO_STACK_KEY).is_some()
}

/// Start-up threads for preparing records: more than four gains little on catalogs of this
/// size (the rest of start-up is serial) and would take cores from a busy host.
const MAX_PREPARE_THREADS: usize = 4;
/// Records per preparing thread at least: below this a thread costs more than it saves.
const MIN_PREPARE_CHUNK: usize = 512;

/// How a record ranks as the primary match, best last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// A tracing call site's message: the outermost text of a line.
    LogEvent = 0,
    /// `<literal>: {source}` (an error placeholder): a wrapper that only passes its source on.
    Wrapper = 1,
    /// Any other error.
    Error = 2,
}

/// One record, ready to match.
pub struct Entry {
    pub rec: Record,
    /// Capture name of each group (group 1 is `names[0]`), as the template names it.
    pub names: Vec<String>,
    /// The same with positional placeholders (`_N`) named after the format call's arguments in
    /// the record's `sourceCode`, where some could be; `None` when none could.
    pub named: Option<Vec<String>>,
    pub forms: Forms,
    pub key: Option<Vec<u8>>,
    pub class: Class,
    /// Literal bytes in the pattern: more means more specific.
    pub specificity: usize,
    /// The same for the absent form (the link without its tail): what a match without the tail
    /// holds. Equal to `specificity` for records without one.
    absent_specificity: usize,
    /// Where the record's `filePath` is, for the crate rules of [`Matcher::rank`].
    home: Home,
    /// The crate directory of the record's `filePath` (`meta_service` for
    /// `src/meta/service/src/...`), for [`crate_matches`].
    crate_dir: Option<Box<str>>,
    /// The pattern's required literals.
    pub literals: Vec<Vec<u8>>,
    /// A searcher for each of `literals`, built when the record is first a candidate (see
    /// [`seq::Seq::finders`]); unused when the literal-sequence matcher's searchers are the same
    /// literals (`shared_finders`, see [`Entry::literal_finders`]).
    finders: OnceLock<Vec<memchr::memmem::Finder<'static>>>,
    shared_finders: bool,
    /// For each of `literals`: does the literal hold a byte JSON escapes?
    escapable: Vec<bool>,
    /// The trailing placeholder holds an error (`{e}`, `{source}`, `: {}`): its value runs to the
    /// end of the value it sits in, chain and all. Otherwise it ends at the next chain link
    /// (`: ` outside brackets and quotes).
    pub tail_is_error: bool,
    /// The fast path for literal-sequence patterns (nearly all); `None`: the regex is used.
    pub seq: Option<seq::Seq>,
    /// A match cannot span lines (a literal sequence without line breaks or `(?s)` groups).
    pub single_line: bool,
    /// Where the key is among the pieces of a literal sequence that may span lines (and has
    /// no absent form, and no piece raw JSON would show escaped): [`Entry::line_plausible`] then
    /// checks the pieces before it against the event's text.
    key_piece: Option<usize>,
    /// A searcher for the head of the absent form (`<literal>` of `<literal>: {source}`) when it
    /// is plain text that looks the same in a raw JSON line (see [`Entry::absent_fits_line`]).
    absent_head: Option<Box<memchr::memmem::Finder<'static>>>,
    regex: OnceLock<Option<Regex>>,
    absent: OnceLock<Option<Regex>>,
    limits: Limits,
}

/// The crates the ranking rules know by name (see [`Matcher::rank`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Home {
    /// The meta node's crates (`src/meta/`, `src/meta/service/`, `src/meta/node/`,
    /// `src/meta/dashboard/`).
    Meta,
    /// `src/rpc_client/`: the clients other nodes reach the meta node through.
    RpcClient,
    Other,
}

/// What a physical line holding a record's key says about the record
/// ([`Matcher::line_plausible`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plausible {
    /// It cannot match with its key on this line.
    No,
    /// It may.
    Yes,
    /// It may span lines: ask again with the event's text up to the line
    /// ([`Matcher::event_head_plausible`]).
    Event,
}

impl Entry {
    fn build(&self, pat: &str) -> Result<Regex, regex::Error> {
        RegexBuilder::new(pat)
            .size_limit(self.limits.regex_size)
            .dfa_size_limit(DFA_CACHE)
            .nest_limit(self.limits.nest)
            .build()
    }

    fn compiled<'a>(&'a self, slot: &'a OnceLock<Option<Regex>>, pat: &str) -> Option<&'a Regex> {
        slot.get_or_init(|| match self.build(pat) {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!(record = %self.rec.id, origin = %self.rec.origin, cause = %e,
                    "record's regex does not compile; it will never match");
                None
            }
        })
        .as_ref()
    }

    pub fn regex(&self) -> Option<&Regex> {
        self.compiled(&self.regex, &self.forms.regex)
    }

    /// Are all the pattern's literals in `text`? A literal that JSON escapes (`"`, `\\`, control
    /// characters) looks different in a raw JSON line: it is given the benefit of the doubt, and
    /// so is a record that may match without its tail.
    fn plausible(&self, text: &[u8]) -> bool {
        self.forms.absent.is_some() || self.literals_in(text)
    }

    /// Are all the pattern's literals (but those JSON escapes) in `text`?
    fn literals_in(&self, text: &[u8]) -> bool {
        self.literal_finders().iter().zip(&self.escapable).all(|(f, &esc)| esc || f.find(text).is_some())
    }

    /// Could this record match on `line` (a physical line holding its key)? A record that cannot
    /// span lines must match within the line its match is on: its pieces in order, where the
    /// pattern is a literal sequence whose pieces look the same in raw JSON (an ordered check
    /// rejects a line that merely mentions the key's words, `alter subscription` for
    /// `alter {}: {}`), else all its literals somewhere; or, for `<literal>: {source}`, the
    /// literal alone ([`Entry::absent_fits_line`]). A literal sequence that may span lines is
    /// asked again with the event's text ([`Plausible::Event`]); other records are given the
    /// benefit.
    fn line_plausible(&self, line: &[u8]) -> Plausible {
        if !self.single_line {
            return if self.key_piece.is_some() { Plausible::Event } else { Plausible::Yes };
        }
        if self.forms.absent.is_some() && self.absent_fits_line(line) {
            return Plausible::Yes;
        }
        let fits = match &self.seq {
            Some(seq) if !seq.has_escapable() => seq.fits_line(line),
            _ => self.literals_in(line),
        };
        if fits { Plausible::Yes } else { Plausible::No }
    }

    /// For a record that may span lines ([`Plausible::Event`]): could it match with its key on
    /// the last line of `head`, the text of an event from its start to that line's end? The
    /// pieces before the key must be there, in order.
    fn event_head_plausible(&self, head: &[u8]) -> bool {
        // Only records [`Entry::line_plausible`] sent here have a key piece; the others said
        // `No` on the line (or `Yes`, and were never asked).
        match (&self.seq, self.key_piece) {
            (Some(seq), Some(k)) => seq.fits_head(head, k),
            _ => false,
        }
    }

    /// Could the absent form (`<literal>` alone, for `<literal>: {source}`) match on `line`? It
    /// needs a value that ends with the literal (and spaces or tabs): a line of a chain, a field's
    /// value, a JSON string. A literal followed at once by `=` ends no value: annotail's parsers
    /// split fields at ` key=`, and the key takes the word before the `=`, so a value never ends
    /// right before one; so a line whose every occurrence is followed by `=`, where the literal's
    /// last word is a field's key (`Failed to merge compaction group error=tcp connect error`,
    /// for `compaction group error: {}`), cannot hold it. A literal that is not plain text is
    /// given the benefit of the doubt.
    fn absent_fits_line(&self, line: &[u8]) -> bool {
        match &self.absent_head {
            None => true,
            Some(h) => h.find_iter(line).any(|i| line.get(i + h.needle().len()) != Some(&b'=')),
        }
    }

    /// Searchers for the pattern's required literals.
    fn literal_finders(&self) -> &[memchr::memmem::Finder<'static>] {
        match &self.seq {
            Some(seq) if self.shared_finders => seq.finders(),
            _ => self.finders.get_or_init(|| finders_of(&self.literals)),
        }
    }

    /// The leftmost match at or after `from`, its groups appended to `groups`.
    pub fn search(&self, text: &[u8], from: usize, groups: &mut Vec<Option<(usize, usize)>>) -> Option<(usize, usize)> {
        if let Some(seq) = &self.seq {
            let mark = groups.len();
            match seq.find_at(text, from, groups) {
                Ok(m) => return m,
                Err(seq::Exhausted) => groups.truncate(mark),
            }
        }
        let c = self.regex()?.captures_at(text, from)?;
        let m = c.get(0)?;
        groups.extend((1..c.len()).map(|i| c.get(i).map(|g| (g.start(), g.end()))));
        Some((m.start(), m.end()))
    }

    /// May a match of this record run across the wall at `w` (see [`Hay::walls`])?
    fn allows_wall(&self, text: &[u8], w: usize) -> bool {
        let token: &[u8] = if text[w] == b'}' {
            b"}"
        } else {
            let eq = memchr::memchr(b'=', &text[w..]).map_or(text.len(), |p| w + p + 1);
            &text[w..eq]
        };
        self.literals.iter().any(|l| memchr::memmem::find(l, token).is_some())
    }

    pub fn absent_regex(&self) -> Option<&Regex> {
        self.forms.absent.as_deref().and_then(|p| self.compiled(&self.absent, p))
    }

    /// Compile every form now, for `check`.
    pub fn compile_now(&self) -> Result<(), regex::Error> {
        self.build(&self.forms.regex)?;
        if let Some(p) = &self.forms.absent {
            self.build(p)?;
        }
        Ok(())
    }
}

/// One haystack of an event: the event text, or one decoded JSON string.
#[derive(Debug, Clone, Copy)]
pub struct Hay<'a> {
    pub text: &'a [u8],
    /// Sorted positions where a value ends (a field's start, `}` of a span field, a line break,
    /// the text's end): a trailing capture stops at the first one at or after the lazy match.
    pub ends: &'a [usize],
    /// Sorted positions where a value starts: a leading capture starts at the last one before it.
    pub starts: &'a [usize],
    /// Sorted positions between two values on one line (the space before ` key=`, the `}` that
    /// closes a span's fields): a match may not run across one unless the record's own text
    /// holds that text (`... last={}, current={}`).
    pub walls: &'a [usize],
}

impl Hay<'_> {
    /// A haystack without structure (a JSON string, a plain line).
    pub fn plain(text: &[u8]) -> Hay<'_> {
        Hay { text, ends: &[], starts: &[], walls: &[] }
    }
}

/// A confirmed match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub entry: u32,
    pub hay: u16,
    pub start: usize,
    pub end: usize,
    /// Start of the trailing capture (or `end` when there is none): text from here on may hold
    /// other records this one wraps.
    pub tail: usize,
    /// Range of this match's groups in [`Scratch::caps`].
    pub caps: (u32, u32),
    /// Found by a panic's location, not by its message (see [`Matcher::by_location`]): how many
    /// lines the record's `lineNumber` is from the panic's line.
    pub distance: Option<u32>,
}

/// Reusable per-event buffers.
#[derive(Default)]
pub struct Scratch {
    pub hits: Vec<Hit>,
    /// The prefilter's working buffer.
    found_literals: Vec<(usize, u32)>,
    pub cands: Vec<u32>,
    mark: Vec<u32>,
    generation: u32,
    pub found: Vec<Found>,
    pub caps: Vec<Option<(usize, usize)>>,
    /// The crate of the event's logging target (`risingwave_meta` of
    /// `risingwave_meta::barrier::recovery`), set by the caller before [`Matcher::confirm`]; empty
    /// when the event has no target. Ranking prefers records from that crate.
    pub target_crate: Vec<u8>,
    /// [`Matcher::rank`]'s per-match flags.
    rank_flags: Vec<u8>,
}

impl Scratch {
    fn next_generation(&mut self, n: usize) {
        if self.mark.len() < n {
            self.mark.resize(n, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.mark.fill(0);
            self.generation = 1;
        }
    }
}

pub struct Matcher {
    pub entries: Vec<Entry>,
    pub prefilter: Prefilter,
    /// Records without a key literal: confirmed on every event.
    pub unkeyed: Vec<u32>,
    /// Records by `filePath` but log calls, each file's sorted by `lineNumber`: for panics
    /// located by file and line ([`Matcher::by_location`]).
    by_file: rustc_hash::FxHashMap<Box<str>, Vec<(u64, u32)>>,
}

/// Lines a panic's location may be from a record's `lineNumber` and still name it. The catalog
/// holds one revision of the code; logs come from others. Measured on RisingWave's history (600
/// records sampled, each call site's line found again by its text): from v3.0.0, 2.5 months
/// older than the catalog's revision, half the call sites moved at most 2 lines, 89% at most 50,
/// 93% at most 100; from v2.7.0 (8 months) 78% at most 50. Mapping the old line to the nearest
/// record of the file named the same call site 73% of the time within 50 lines; from 50 to 100
/// lines each extra record found was more often another call site than the same (5 right, 7
/// wrong), so the tolerance stops at 50.
pub const LOCATION_TOLERANCE: u64 = 50;

/// Start building the skim's sample statistics on a thread of their own, so that they are ready
/// (or nearly) when [`Matcher::new`] wants them: they do not depend on the catalog, and loading
/// one is single-threaded. Call it before loading the catalog.
pub fn warm_up() {
    std::thread::spawn(|| {
        skim::Rarity::shared();
    });
}

impl Matcher {
    /// Compile a catalog. Records with errors are left out and reported.
    pub fn new(catalog: Catalog, limits: Limits) -> (Matcher, Vec<Problem>) {
        let mut problems = catalog.problems;
        let rarity = skim::Rarity::shared();
        // Records are prepared (parsed, their literals and key chosen) on every core: it is most
        // of start-up, and records do not depend on each other. Chunks keep the catalog's order.
        let chunk = crate::chunk_len(catalog.records.len(), MAX_PREPARE_THREADS, MIN_PREPARE_CHUNK);
        // Each worker takes its records from, and writes its entries into, its own chunk of one
        // vector: no record or entry is copied into a per-worker vector and back (for 43,500
        // records those vectors, grown by doubling, held 77 MB at once, most of it twice over).
        let mut records: Vec<Option<Record>> = catalog.records.into_iter().map(Some).collect();
        let mut slots: Vec<Option<Entry>> = std::iter::repeat_with(|| None).take(records.len()).collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = records
                .chunks_mut(chunk)
                .zip(slots.chunks_mut(chunk))
                .map(|(recs, out)| {
                    s.spawn(move || {
                        let mut problems = Vec::new();
                        for (rec, slot) in recs.iter_mut().zip(out) {
                            *slot = rec.take().and_then(|r| prepare(r, limits, rarity, &mut problems));
                        }
                        problems
                    })
                })
                .collect();
            for h in handles {
                problems.extend(h.join().expect("preparing a record does not panic"));
            }
        });
        drop(records);
        // `filter_map` (not `flatten`) collects in place, into the slots' own allocation.
        #[allow(clippy::filter_map_identity)]
        let entries: Vec<Entry> = slots.into_iter().filter_map(|e| e).collect();
        let mut keys: Vec<Option<&[u8]>> = entries.iter().map(|e| e.key.as_deref()).collect();
        // A panic's header is a key of no record (its owner is one past the last entry): the
        // framer then frames panics, which may name a record by their location alone.
        keys.push(Some(PANIC_KEY));
        // So are a Go program's crash's (the operator's, etcd's): no record's either.
        keys.push(Some(GO_STACK_KEY));
        let prefilter = Prefilter::new(&keys, rarity);
        let unkeyed = entries.iter().enumerate().filter(|(_, e)| e.key.is_none()).map(|(i, _)| i as u32).collect();
        let mut by_file: rustc_hash::FxHashMap<Box<str>, Vec<(u64, u32)>> = Default::default();
        for (i, e) in entries.iter().enumerate() {
            // A log call (`warn!`, `error!`: `errorType: log`) is never where a panic happened:
            // named by location, a crash read as the warning logged beside it and lost its
            // severity (found by a second reader).
            if e.rec.is_log_event() {
                continue;
            }
            if let (Some(f), Some(l)) = (e.rec.str_field("filePath"), e.rec.source_line) {
                by_file.entry(f.into()).or_default().push((l, i as u32));
            }
        }
        for v in by_file.values_mut() {
            v.sort_unstable();
        }
        (Matcher { entries, prefilter, unkeyed, by_file }, problems)
    }

    /// The record nearest a panic's location: among the records of `file` that are not log calls
    /// (a path as the panic
    /// prints it; a leading `./` or a build directory before the workspace's `src/` is ignored),
    /// the one whose `lineNumber` is nearest `line`, within [`LOCATION_TOLERANCE`]; ties go to the
    /// earlier line, then the earlier record. The record and the distance.
    pub fn by_location(&self, file: &str, line: u64) -> Option<(u32, u64)> {
        let mut path = file.trim_start_matches("./");
        let records = loop {
            if let Some(r) = self.by_file.get(path) {
                break r;
            }
            // `/build/risingwave/src/meta/...`: try from the next `src/`.
            let next = path.get(1..)?.find("src/")? + 1;
            path = &path[next..];
        };
        let best = records.iter().min_by_key(|(l, i)| (l.abs_diff(line), *l, *i))?;
        let d = best.0.abs_diff(line);
        (d <= LOCATION_TOLERANCE).then_some((best.1, d))
    }

    /// Scan `text` with the prefilter, appending hits to `hits`.
    pub fn scan(&self, text: &[u8], hits: &mut Vec<Hit>, scratch: &mut Scratch) {
        self.prefilter.scan_with(text, hits, &mut scratch.found_literals);
    }

    /// [`Matcher::scan`], and every position of the marks' bytes in `text` into `marks.at`,
    /// found in the same pass over the text.
    pub fn scan_marking(&self, text: &[u8], hits: &mut Vec<Hit>, scratch: &mut Scratch, marks: &mut Marks) {
        self.prefilter.scan_marking(text, hits, &mut scratch.found_literals, Some(marks));
    }

    /// Turn literal ids into distinct candidate records (into `scratch.cands`), adding the
    /// records without a literal.
    pub fn candidates(&self, literals: impl IntoIterator<Item = u32>, scratch: &mut Scratch) {
        scratch.next_generation(self.entries.len());
        scratch.cands.clear();
        let g = scratch.generation;
        for lit in literals {
            for &r in self.prefilter.owners(lit) {
                if r as usize >= self.entries.len() {
                    continue;
                }
                if scratch.mark[r as usize] != g {
                    scratch.mark[r as usize] = g;
                    scratch.cands.push(r);
                }
            }
        }
        scratch.cands.extend_from_slice(&self.unkeyed);
    }

    /// Could any record keyed on `literals` match `text`? Every literal its pattern requires must
    /// be in `text` (records that may match without their tail are given the benefit).
    pub fn any_plausible(&self, literals: &[u32], text: &[u8], scratch: &mut Scratch) -> bool {
        if literals.is_empty() {
            return false;
        }
        self.candidates(literals.iter().copied(), scratch);
        scratch.cands.iter().any(|&c| self.entries[c as usize].plausible(text))
    }

    /// Could a record keyed on `literal` match on this physical line (where the literal was
    /// found)? A record whose match cannot span lines needs all its literals on the line its
    /// match (and so its key) is on; others are given the benefit.
    pub fn line_plausible(&self, literal: u32, line: &[u8]) -> Plausible {
        let mut verdict = Plausible::No;
        for &c in self.prefilter.owners(literal) {
            let Some(e) = self.entries.get(c as usize) else { return Plausible::Yes };
            match e.line_plausible(line) {
                Plausible::Yes => return Plausible::Yes,
                Plausible::Event => verdict = Plausible::Event,
                Plausible::No => {}
            }
        }
        verdict
    }

    /// After [`Plausible::Event`]: could a record keyed on `literal` match with that key on the
    /// last line of `head` (an event's text from its start to that line's end)?
    pub fn event_head_plausible(&self, literal: u32, head: &[u8]) -> bool {
        self.prefilter
            .owners(literal)
            .iter()
            .any(|&c| self.entries.get(c as usize).is_none_or(|e| e.event_head_plausible(head)))
    }

    /// Confirm `scratch.cands` against the haystacks; results in `scratch.found`, ranked.
    pub fn confirm(&self, hays: &[Hay<'_>], scratch: &mut Scratch) {
        scratch.found.clear();
        scratch.caps.clear();
        let cands = std::mem::take(&mut scratch.cands);
        for &c in &cands {
            let e = &self.entries[c as usize];
            let mut found = None;
            for (hi, hay) in hays.iter().enumerate() {
                // Every required literal must be there: a memmem per literal rejects most
                // candidates before a regex is compiled or run.
                if e.seq.is_none() && !e.literal_finders().iter().all(|f| f.find(hay.text).is_some()) {
                    continue;
                }
                found = self.capture(c, e, hi as u16, hay, &mut scratch.caps);
                if found.is_some() {
                    break;
                }
            }
            if found.is_none()
                && let Some(absent) = e.absent_regex()
            {
                // A chain link printed without its tail (`: {source}`): the groups before the
                // tail are captured, the tail's is absent.
                for (hi, hay) in hays.iter().enumerate() {
                    if let Some(cs) = absent.captures(hay.text)
                        && let Some(g) = cs.get(1)
                    {
                        let first = scratch.caps.len() as u32;
                        scratch.caps.extend((0..e.names.len()).map(|i| cs.get(i + 2).map(|m| (m.start(), m.end()))));
                        found = Some(Found {
                            entry: c,
                            hay: hi as u16,
                            start: g.start(),
                            end: g.end(),
                            tail: g.end(),
                            caps: (first, scratch.caps.len() as u32),
                            distance: None,
                        });
                        break;
                    }
                }
            }
            scratch.found.extend(found);
        }
        scratch.cands = cands;
        self.rank(hays, &mut scratch.found, &scratch.caps, &scratch.target_crate, &mut scratch.rank_flags);
        // A link printed without its tail right before the next numbered cause (psql's
        // `1: Catalog error` / `2: table or source not found: t_orders`): that cause is its
        // source, the tail's value. Filled after ranking, which reads the numbered causes as
        // links of their own (the innermost wins), not as values of the links before them.
        for f in &scratch.found {
            let e = &self.entries[f.entry as usize];
            if e.forms.tail
                && self.tailless(f)
                && f.caps.1 > f.caps.0
                && scratch.caps[f.caps.1 as usize - 1].is_none()
                && let Some(v) = next_cause(hays[f.hay as usize].text, f.end)
            {
                scratch.caps[f.caps.1 as usize - 1] = Some(v);
            }
        }
    }

    /// Find the record in one haystack and capture its values (see the module docs).
    fn capture(
        &self,
        idx: u32,
        e: &Entry,
        hay_index: u16,
        hay: &Hay<'_>,
        caps: &mut Vec<Option<(usize, usize)>>,
    ) -> Option<Found> {
        let text = hay.text;
        let first = caps.len();
        let (mut from, mut tries) = (0, 0);
        let (mut start, mut end) = loop {
            let (start, end) = find_within(e, hay, caps, from)?;
            // The literal after a leading group starts a value of its own (`… ddl_controller:
            // unsupported yet`: the message's first word after the target's `: `), or a link of
            // its own (`failed to plan: unsupported yet`): the group's value would be the empty
            // text before it, which `(.+?)` is not, and the match took the line's header or the
            // link before for it (found by a second reader: `_1` was the timestamp, level and
            // target). The next occurrence is looked for (`…: unsupported yet; caused by:
            // Interval unsupported yet`), a few times at most.
            if e.forms.leading_group
                && let Some(Some((gs, ge))) = caps.get(first).copied()
            {
                let s = hay.starts.iter().rev().find(|&&p| p < ge).map_or(gs, |&p| gs.max(p));
                let blanks = ge + text[ge..].iter().take_while(|&&b| b == b' ').count();
                let at_value_start = hay.starts.iter().any(|&p| p > ge && p <= blanks);
                let after_link = ge > s && text[ge - 1] == b':' && blanks > ge;
                if at_value_start || after_link {
                    caps.truncate(first);
                    tries += 1;
                    if tries == MAX_WALL_RETRIES || ge + 1 > text.len() {
                        return None;
                    }
                    from = ge + 1;
                    continue;
                }
            }
            // A group between two pieces never holds a link of a chain (`: ` outside brackets):
            // the match started at an earlier copy of its first words (`failed to drop iceberg
            // table 27420 during cleanup: table 112631 Epoch …` over `table {} Epoch {} …` gave
            // `_1` = `27420 during cleanup: table 112631`; found by a catalog keeper's reading).
            // The match from past that link is taken when there is one; else this one stands.
            let groups = &caps[first..];
            let inner = &groups[usize::from(e.forms.leading_group)..groups.len() - usize::from(e.forms.tail)];
            if let Some(past) = inner.iter().flatten().find_map(|&(gs, ge)| last_link(&text[gs..ge]).map(|p| gs + p)) {
                let mark = caps.len();
                if let Some(later) = find_within(e, hay, caps, past) {
                    caps.drain(first..mark);
                    break later;
                }
                caps.truncate(mark);
            }
            break (start, end);
        };
        if e.forms.leading_group
            && let Some(Some((gs, ge))) = caps.get(first).copied()
        {
            // `(.+?) not found in ...` starts at the haystack's first byte; the value is the last
            // chain link (`outer: <value>`) inside the value the match sits in.
            let mut s = gs;
            if let Some(p) = hay.starts.iter().rev().find(|&&p| p < ge) {
                s = s.max(*p);
            }
            if let Some(p) = last_link(&text[s..ge]) {
                s += p;
            }
            if s > start && s < ge {
                let mark = caps.len();
                match e.search(text, s, caps) {
                    Some((s2, e2)) if s2 == s => {
                        caps.drain(first..mark);
                        (start, end) = (s2, e2);
                    }
                    _ => caps.truncate(mark),
                }
            }
        }
        let mut tail = end;
        if e.forms.tail
            && let Some(Some((ts, _))) = caps.last().copied()
        {
            // Cut the greedy trailing value where the value it sits in ends.
            let lazy_end = ts + char_len(text, ts);
            let mut bound = hay
                .ends
                .iter()
                .find(|&&p| p >= lazy_end && !(e.forms.tail_spans_lines && text.get(p) == Some(&b'\n')))
                .copied()
                .unwrap_or(text.len());
            bound = bound.min(value_end(text, start, lazy_end, bound, e.tail_is_error)).max(lazy_end).min(end);
            // A value is not its blanks before the next link (`risingwave is "t" : cause`, from a
            // message that ends in a blank).
            bound = lazy_end.max(ts + literals::trim_blanks_end(&text[ts..bound]).len());
            end = bound;
            tail = ts;
            *caps.last_mut().expect("a trailing group") = Some((ts, bound));
        }
        Some(Found {
            entry: idx,
            hay: hay_index,
            start,
            end,
            tail,
            caps: (first as u32, caps.len() as u32),
            distance: None,
        })
    }

    /// Order confirmed matches so that the first is the primary.
    ///
    /// The primary is the most specific record, preferring the innermost error of a chain:
    /// 1. set aside
    ///    - *foreign meta errors*: a record of the meta node's crates in a line logged by a crate
    ///      that does not link them (every crate but the meta node's own, risectl and the test
    ///      harnesses), with no RPC link before it (an error record of `src/rpc_client/`, the
    ///      text `gRPC request to ` or a tonic status's `, message: "`): that crate cannot raise
    ///      the error, and one that came back over RPC is printed after the client's link;
    ///    - *partial links*: in a numbered cause (`  2: ...`, ` 2: ` on one line), behind a
    ///      wrapper, a record whose template ends in literal text and which the cause goes on
    ///      after, with `: ` and text no match explains (psql's `1: Catalog error` /
    ///      `2: table or source not found: t_orders` and `table {} not found`): each numbered
    ///      cause is one error's own message, so the record reads part of it, while the wrapper
    ///      reads its cause whole. (In a one-line chain `a: b: c` the `: ` is the chain's own
    ///      separator, and `context: source` is what an anyhow context prints.)
    ///    - *wrapped wrappers*: a `<literal>: {source}` record lying inside another match's
    ///      captured value: it only passes its source on. A match that lost to a more specific
    ///      reading of the same text (rule 3) wraps nothing;
    ///    - *hosts*: a log message that holds, in a captured value or after it, another error
    ///      that is not a wrapper, not set aside and not a lost reading;
    /// 2. of the rest, the match furthest into the event wins: a chain is printed outermost
    ///    first, and the error field follows the message;
    /// 3. where two matches overlap without one lying in the other's value, the one with more
    ///    literal text wins (it is the more specific; a link matched without its tail counts the
    ///    text it matched), then a match with its tail over one without, then the record of the
    ///    crate that logged the line, then a documented record, then the smaller id.
    ///
    /// The others follow in the order they appear in the event.
    pub fn rank(
        &self,
        hays: &[Hay<'_>],
        found: &mut [Found],
        caps: &[Option<(usize, usize)>],
        target_crate: &[u8],
        flags: &mut Vec<u8>,
    ) {
        if found.len() < 2 {
            return;
        }
        found.sort_by_key(|f| (f.hay, f.start, f.end));
        let n = found.len();
        let entry = |i: usize| &self.entries[found[i].entry as usize];
        let inside = |x: &Found, y: &Found| {
            x.hay == y.hay
                && (x.start, x.end) != (y.start, y.end)
                && caps[y.caps.0 as usize..y.caps.1 as usize].iter().flatten().any(|&(s, e)| s <= x.start && x.end <= e)
        };
        flags.clear();
        flags.resize(n, 0);
        let links_meta = target_links_meta(target_crate);
        for i in 0..n {
            let f = &found[i];
            let e = entry(i);
            let mut fl = 0;
            if !target_crate.is_empty() && !links_meta && e.home == Home::Meta {
                let before = &hays[f.hay as usize].text[..f.start];
                let after_rpc = (0..n).any(|j| {
                    let g = entry(j);
                    g.home == Home::RpcClient
                        && g.class != Class::LogEvent
                        && found[j].hay == f.hay
                        && found[j].start < f.start
                }) || RPC_MARKS.iter().any(|m| memchr::memmem::find(before, m).is_some());
                if !after_rpc {
                    fl |= FOREIGN;
                }
            }
            if !target_crate.is_empty() && e.crate_dir.as_deref().is_some_and(|d| crate_matches(d, target_crate)) {
                fl |= LOCAL;
            }
            if self.tailless(f) {
                fl |= TAILLESS;
            }
            flags[i] = fl;
        }
        for i in 0..n {
            // A reading that overlaps a more specific one of the same text.
            let (f, si) = (&found[i], self.specificity_of(&found[i], flags[i]));
            let lost = (0..n).any(|j| {
                let g = &found[j];
                j != i && overlap(f, g) && !inside(f, g) && !inside(g, f) && self.specificity_of(g, flags[j]) > si
            });
            if lost {
                flags[i] |= LOST;
            }
        }
        for i in 0..n {
            if flags[i] & FOREIGN != 0 || entry(i).forms.tail {
                continue;
            }
            let f = &found[i];
            let behind_wrapper = (0..n).any(|j| {
                let g = &found[j];
                j != i
                    && flags[j] & FOREIGN == 0
                    && entry(j).class == Class::Wrapper
                    && g.hay == f.hay
                    && g.start < f.start
                    && (inside(f, g) || (flags[j] & TAILLESS != 0 && g.end <= f.start))
            });
            let hay = &hays[f.hay as usize];
            if behind_wrapper && starts_numbered_cause(hay.text, f.start) && link_rest_unexplained(hay, f, found) {
                flags[i] |= PARTIAL;
            }
        }
        for i in 0..n {
            let f = &found[i];
            let e = entry(i);
            let wrapped = e.class == Class::Wrapper
                && (0..n).any(|j| {
                    j != i
                        && flags[j] & (FOREIGN | PARTIAL | LOST) == 0
                        && entry(j).class != Class::LogEvent
                        && inside(f, &found[j])
                });
            let host = e.class == Class::LogEvent
                && (0..n).any(|j| {
                    let g = &found[j];
                    j != i
                        && flags[j] & (FOREIGN | PARTIAL | LOST) == 0
                        && entry(j).class == Class::Error
                        && (inside(g, f) || (g.hay, g.start) >= (f.hay, f.end))
                });
            if wrapped || host {
                flags[i] |= DEMOTED;
            }
        }
        let mut best = 0;
        for i in 1..n {
            if self.better(i, best, found, flags, &inside) {
                best = i;
            }
        }
        found[..=best].rotate_right(1);
    }

    /// A link matched by its absent form: the record has one, and the match ends where its tail
    /// would start (a complete match ends after a captured tail).
    fn tailless(&self, f: &Found) -> bool {
        f.distance.is_none() && f.tail == f.end && self.entries[f.entry as usize].forms.absent.is_some()
    }

    fn specificity_of(&self, f: &Found, flags: u8) -> usize {
        let e = &self.entries[f.entry as usize];
        if flags & TAILLESS != 0 { e.absent_specificity } else { e.specificity }
    }

    fn better(
        &self,
        i: usize,
        j: usize,
        found: &[Found],
        flags: &[u8],
        inside: &dyn Fn(&Found, &Found) -> bool,
    ) -> bool {
        let set_aside = |k: usize| flags[k] & (FOREIGN | PARTIAL | DEMOTED) != 0;
        if set_aside(i) != set_aside(j) {
            return !set_aside(i);
        }
        let (a, b) = (&found[i], &found[j]);
        if !overlap(a, b) || inside(a, b) || inside(b, a) {
            return (a.hay, a.start, a.end) > (b.hay, b.start, b.end);
        }
        let (ea, eb) = (&self.entries[a.entry as usize], &self.entries[b.entry as usize]);
        let (sa, sb) = (self.specificity_of(a, flags[i]), self.specificity_of(b, flags[j]));
        if sa != sb {
            return sa > sb;
        }
        // The same text read whole by one record and as a link without its tail by another
        // (`invalid json` and `invalid json: {s}`): the whole reading is the record printed.
        let (ta, tb) = (flags[i] & TAILLESS != 0, flags[j] & TAILLESS != 0);
        if ta != tb {
            return tb;
        }
        // Equally specific readings of the same text (one message at several call sites): the
        // crate that logged the line holds the call site. Before specificity it would let a
        // generic record of the logging crate (`{} not found`) beat a specific one of another.
        let (la, lb) = (flags[i] & LOCAL != 0, flags[j] & LOCAL != 0);
        if la != lb {
            return la;
        }
        let (da, db) = (ea.rec.str_field("documentation").is_some(), eb.rec.str_field("documentation").is_some());
        if da != db {
            return da;
        }
        ea.rec.id < eb.rec.id
    }
}

// [`Matcher::rank`]'s flags, one byte per match.
/// A record of the meta node's crates in a line logged by a crate that does not link them.
const FOREIGN: u8 = 1;
/// A partial reading of its chain link behind a wrapper.
const PARTIAL: u8 = 2;
/// A wrapped wrapper or a host.
const DEMOTED: u8 = 4;
/// Overlaps a more specific reading of the same text.
const LOST: u8 = 8;
/// A link matched without its tail.
const TAILLESS: u8 = 16;
/// The record is of the crate that logged the line.
const LOCAL: u8 = 32;

/// Text that an error which came back over gRPC follows: the client's link
/// (`gRPC request to meta service failed`) and tonic's rendering of a status
/// (`status: Internal, message: "..."`).
const RPC_MARKS: &[&[u8]] = &[b"gRPC request to ", b", message: \""];

fn overlap(a: &Found, b: &Found) -> bool {
    a.hay == b.hay && a.start < b.end && b.start < a.end
}

/// Does a line logged by this crate (a logging target's first segment) link the meta node's
/// crates? In RisingWave's workspace only the meta node's own crates (`risingwave_meta*`),
/// the binaries that embed it (`risingwave_cmd`, `risingwave_cmd_all`), `risectl`
/// (`risingwave_ctl`) and the test harnesses (`risingwave_simulation`, `risingwave_hummock_test`,
/// `risingwave_compaction_test`) depend on `risingwave_meta`; every other crate is below it.
fn target_links_meta(target: &[u8]) -> bool {
    let t = target.strip_prefix(b"risingwave_").unwrap_or(target);
    t.starts_with(b"meta")
        || matches!(t, b"cmd" | b"cmd_all" | b"ctl" | b"simulation" | b"hummock_test" | b"compaction_test")
}

/// After `f`, does its chain link go on (`: ` and more text, up to the end of the line, of the
/// value it sits in, or the next numbered cause ` N: `) with no match starting in that text?
fn link_rest_unexplained(hay: &Hay<'_>, f: &Found, found: &[Found]) -> bool {
    let text = hay.text;
    let Some(rest) = text.get(f.end..).and_then(|r| r.strip_prefix(b": ")) else { return false };
    let from = f.end + 2;
    let mut end = from + memchr::memchr(b'\n', rest).unwrap_or(rest.len());
    if let Some(&p) = hay.ends.iter().find(|&&p| p >= from) {
        end = end.min(p);
    }
    if let Some(p) = numbered_cause(&text[from..end]) {
        end = from + p;
    }
    let link = &text[from..end];
    !link.trim_ascii().is_empty() && !found.iter().any(|g| g.hay == f.hay && g.start >= f.end && g.start < end)
}

/// Does a numbered cause start at `at`: `N: ` (N of 1 to 3 digits, then spaces) at the start
/// of a line (after indentation) or after a space?
fn starts_numbered_cause(text: &[u8], at: usize) -> bool {
    let head = &text[..at];
    let colon = head.len() - head.iter().rev().take_while(|&&b| b == b' ').count();
    if colon == head.len() || colon == 0 || head[colon - 1] != b':' {
        return false;
    }
    let digits = head[..colon - 1].iter().rev().take_while(|b| b.is_ascii_digit()).count();
    let before = colon - 1 - digits;
    (1..=3).contains(&digits) && (before == 0 || matches!(head[before - 1], b' ' | b'\t' | b'\n'))
}

/// The text of the numbered cause that follows a link ending at `end`: on the next line
/// (`  2: ...`) or on the same one (` 2: ...`), up to the end of its line or the next numbered
/// cause on it.
fn next_cause(text: &[u8], end: usize) -> Option<(usize, usize)> {
    let blank = |i: &mut usize| {
        while matches!(text.get(*i), Some(b' ' | b'\t')) {
            *i += 1;
        }
    };
    let mut i = end;
    blank(&mut i);
    if text.get(i) == Some(&b'\n') {
        i += 1;
        blank(&mut i);
    } else if i == end {
        return None;
    }
    let digits = text[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if !(1..=3).contains(&digits) || !text[i + digits..].starts_with(b": ") {
        return None;
    }
    let mut start = i + digits + 2;
    blank(&mut start);
    let line_end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |p| start + p);
    let mut stop = numbered_cause(&text[start..line_end]).map_or(line_end, |p| start + p);
    while stop > start && matches!(text[stop - 1], b' ' | b'\t' | b'\r') {
        stop -= 1;
    }
    (stop > start).then_some((start, stop))
}

/// Where ` N: ` (a numbered cause printed on the same line, N of 1 to 3 digits) starts in `s`.
fn numbered_cause(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(p) = memchr::memchr(b' ', &s[i..]) {
        let at = i + p;
        let digits = s[at + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        if (1..=3).contains(&digits) && s[at + 1 + digits..].starts_with(b": ") {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

fn prepare(rec: Record, limits: Limits, rarity: &skim::Rarity, problems: &mut Vec<Problem>) -> Option<Entry> {
    // A fresh parser per record: a parser keeps flags such as `(?s)` from one pattern to the
    // next (regression: records after a multi-line message matched across lines).
    let parser = || regex_syntax::ParserBuilder::new().nest_limit(limits.nest).build();
    let parts = rec.template.as_deref().map(template::parse);
    let names_t = parts.as_deref().map(template::capture_names);
    // The forms of a base pattern (see `template::forms`), parsed once.
    let build = |base: &str| {
        let base = multiline_groups(&blanks_at_line_ends_dropped(base), parts.as_deref());
        let optional_tail = parts.as_deref().is_some_and(template::has_optional_tail);
        let forms = template::forms(&base, optional_tail);
        parser().parse(&forms.regex).map(|h| (forms, h)).map_err(Box::new)
    };
    // A pattern or template this long is a bomb or a mistake (the extracted catalog's longest
    // pattern is 498 bytes): refused before it is parsed, at start-up, on reload and by `check`
    // alike, rather than found when it is first compiled, on a line, in the middle of a run.
    let longest = rec.pattern.as_deref().map_or(0, str::len).max(rec.template.as_deref().map_or(0, str::len));
    if longest > MAX_PATTERN_BYTES {
        problems.push(Problem::new(
            Level::Error,
            &rec.origin,
            Some(&rec.id),
            ProblemKind::RegexTooBig,
            format!("messagePattern or errorMessage is {longest} bytes; the limit is {MAX_PATTERN_BYTES}"),
        ));
        return None;
    }
    let mut built = None;
    if let Some(p) = &rec.pattern {
        match build(p) {
            Ok(b) => built = Some(b),
            Err(_) => {
                let err = regex_syntax::ParserBuilder::new().nest_limit(limits.nest).build().parse(p).err();
                let level = if parts.is_some() { Level::Warning } else { Level::Error };
                let what = if parts.is_some() { "; using a pattern derived from errorMessage" } else { "" };
                let why = err.map_or_else(|| "invalid".to_owned(), |e| one_line(&e.to_string()));
                problems.push(Problem::new(
                    level,
                    &rec.origin,
                    Some(&rec.id),
                    ProblemKind::InvalidRegex,
                    format!("messagePattern does not compile{what}: {why}"),
                ));
            }
        }
    }
    let (forms, find_hir) = match built {
        Some(b) => b,
        None => {
            let derived = template::derive_pattern(parts.as_deref()?);
            match build(&derived) {
                Ok(b) => b,
                Err(e) => {
                    problems.push(Problem::new(
                        Level::Error,
                        &rec.origin,
                        Some(&rec.id),
                        ProblemKind::InvalidRegex,
                        format!("pattern derived from errorMessage does not compile: {}", one_line(&e.to_string())),
                    ));
                    return None;
                }
            }
        }
    };
    let groups = find_hir.properties().explicit_captures_len();
    let names_from_template = names_t.as_ref().is_some_and(|n| n.len() == groups);
    let names = match names_t {
        Some(n) if n.len() == groups => n,
        other => {
            if let Some(n) = other
                && !n.is_empty()
            {
                problems.push(Problem::new(
                    Level::Warning,
                    &rec.origin,
                    Some(&rec.id),
                    ProblemKind::PlaceholderMismatch,
                    format!(
                        "messagePattern has {groups} groups but errorMessage has {} placeholders; captures are named _N",
                        n.len()
                    ),
                ));
            }
            (1..=groups).map(|i| format!("_{i}")).collect()
        }
    };
    if find_hir.properties().minimum_len() == Some(0) {
        problems.push(Problem::new(
            Level::Error,
            &rec.origin,
            Some(&rec.id),
            ProblemKind::EmptyPattern,
            "pattern matches the empty string, so it would match every line".into(),
        ));
        return None;
    }
    // The key literal must be required by every form that can report the record.
    let lits = literals::required(&find_hir);
    let absent_hir = forms.absent.as_deref().and_then(|a| parser().parse(a).ok());
    let key_lits = absent_hir.as_ref().map_or_else(|| lits.clone(), literals::required);
    let specificity = lits.iter().map(Vec::len).sum();
    let absent_specificity = if absent_hir.is_some() { key_lits.iter().map(Vec::len).sum() } else { specificity };
    // A literal of blanks alone keys nothing: a hand-edited `"errorMessage": "   "` matched the
    // indent of every cause line of every report (found by a catalog keeper's reading).
    let blank =
        |l: &[u8]| !l.iter().any(u8::is_ascii_graphic) && String::from_utf8_lossy(l).chars().all(char::is_whitespace);
    let key_lits: Vec<Vec<u8>> = key_lits.into_iter().filter(|l| !blank(l)).collect();
    let key = literals::best(&key_lits, |l| rarity.estimate(l)).filter(|l| l.len() >= MIN_LITERAL).map(<[u8]>::to_vec);
    if key.is_none() {
        let min = find_hir.properties().minimum_len().unwrap_or(0);
        if min < MIN_GENERIC_LEN {
            problems.push(Problem::new(
                Level::Error,
                &rec.origin,
                Some(&rec.id),
                ProblemKind::MatchesAnyLine,
                format!(
                    "pattern has no literal text and matches as few as {min} bytes: it would match almost any line"
                ),
            ));
            return None;
        }
        problems.push(Problem::new(
            Level::Warning,
            &rec.origin,
            Some(&rec.id),
            ProblemKind::NoLiteral,
            format!("pattern has no literal of {MIN_LITERAL}+ bytes; it is confirmed on every event (slow)"),
        ));
    }
    let tail_is_error = tail_is_error(parts.as_deref());
    let named = rec
        .arg_names
        .as_deref()
        .filter(|a| a.len() == names.len() && names_from_template)
        .map(|a| names.iter().zip(a).map(|(n, a)| a.as_deref().map_or_else(|| n.clone(), str::to_owned)).collect());
    let class = if rec.is_log_event() {
        Class::LogEvent
    } else if tail_is_error
        && matches!(parts.as_deref(), Some([Part::Lit(l), Part::Ph { .. }]) if l.trim_end().ends_with(':'))
    {
        Class::Wrapper
    } else {
        Class::Error
    };
    let seq = seq::Seq::from_hir(&find_hir).filter(|q| q.groups() == names.len());
    // A literal-sequence pattern's pieces are its literals unless a piece spans lines.
    let shared = seq.as_ref().is_some_and(|q| q.pieces_are(&lits));
    let single_line = seq.as_ref().is_some_and(seq::Seq::single_line);
    // The absent form's head (its one group), if it is one literal on one line that raw JSON
    // does not escape (a line is searched for it as it is).
    let absent_head = absent_hir
        .as_ref()
        .and_then(literals::group_literal)
        .filter(|h| !h.is_empty() && !h.contains(&b'\n') && !literals::json_escapes(h))
        .map(|h| Box::new(memchr::memmem::Finder::new(h).into_owned()));
    let key_piece = match (&seq, &key) {
        (Some(q), Some(k)) if !single_line && forms.absent.is_none() && !q.has_escapable() => q.piece_of(k),
        _ => None,
    };
    let escapable = lits.iter().map(|l| literals::json_escapes(l)).collect();
    let crate_dir = rec.str_field("filePath").and_then(crate_dir);
    let home = match crate_dir.as_deref() {
        Some("meta" | "meta_service" | "meta_node" | "meta_dashboard") => Home::Meta,
        Some("rpc_client") => Home::RpcClient,
        _ => Home::Other,
    };
    Some(Entry {
        single_line,
        key_piece,
        absent_head,
        seq,
        finders: OnceLock::new(),
        shared_finders: shared,
        literals: lits,
        tail_is_error,
        crate_dir,
        home,
        rec,
        names,
        named,
        forms,
        key,
        class,
        specificity,
        absent_specificity,
        regex: OnceLock::new(),
        absent: OnceLock::new(),
        limits,
        escapable,
    })
}

/// The crate directory of a RisingWave source path: the directories between the leading `src/`
/// and the crate's own `src/`, joined by `_` (`src/meta/service/src/x.rs` → `meta_service`).
fn crate_dir(path: &str) -> Option<Box<str>> {
    let rest = path.strip_prefix("src/")?;
    let end = rest.find("/src/")?;
    Some(rest[..end].replace('/', "_").into_boxed_str())
}

/// Does a crate directory hold the crate `target` (a logging target's first path segment)? Crates
/// are named `risingwave_<dir>` (`risingwave_meta_service`), some after their last directory
/// only (`src/utils/pgwire` is `pgwire`, `src/storage/hummock_sdk` is `risingwave_hummock_sdk`).
fn crate_matches(dir: &str, target: &[u8]) -> bool {
    let t = target.strip_prefix(b"risingwave_").unwrap_or(target);
    let d = dir.as_bytes();
    d == t || d.ends_with(t) && d.len() > t.len() && d[d.len() - t.len() - 1] == b'_'
}

/// A searcher for each literal.
fn finders_of(lits: &[Vec<u8>]) -> Vec<memchr::memmem::Finder<'static>> {
    lits.iter().map(|l| memchr::memmem::Finder::new(l).into_owned()).collect()
}

/// The leftmost match of the record in `hay` that does not run across a wall foreign to the
/// record (the greedy trailing value is not checked: it is cut at the next value's start anyway).
/// Its groups are appended to `caps`. The search starts at `from`.
fn find_within(
    e: &Entry,
    hay: &Hay<'_>,
    caps: &mut Vec<Option<(usize, usize)>>,
    from: usize,
) -> Option<(usize, usize)> {
    let text = hay.text;
    let mark = caps.len();
    let mut at = from;
    // Each retry starts past the wall that stopped the last one, so this ends; the bound keeps a
    // pathological line from costing more than a few searches.
    for _ in 0..MAX_WALL_RETRIES {
        caps.truncate(mark);
        let (s, end) = e.search(text, at, caps)?;
        let checked_end = match (e.forms.tail, caps.last()) {
            (true, Some(Some((gs, _)))) => gs + char_len(text, *gs),
            _ => end,
        };
        let first = hay.walls.partition_point(|&w| w <= s);
        let crossed = hay.walls[first..].iter().take_while(|&&w| w < checked_end).find(|&&w| !e.allows_wall(text, w));
        match crossed {
            None => return Some((s, end)),
            // A match that starts before the wall and crosses it is the leftmost one: the next
            // candidate starts past the wall.
            Some(&w) => at = w + 1,
        }
        if at > text.len() {
            break;
        }
    }
    caps.truncate(mark);
    None
}

/// Length of the UTF-8 character at `i` (1 for invalid bytes).
fn char_len(text: &[u8], i: usize) -> usize {
    match text.get(i) {
        Some(&b) if b >= 0xF0 => 4,
        Some(&b) if b >= 0xE0 => 3,
        Some(&b) if b >= 0xC0 => 2,
        _ => 1,
    }
    .min(text.len().saturating_sub(i))
    .max(1)
}

/// Matches rejected for crossing a wall before a record is given up on for a haystack.
const MAX_WALL_RETRIES: usize = 8;

/// Offset just past the last `: ` of `s` that is outside brackets: where the last link of an
/// error chain starts.
fn last_link(s: &[u8]) -> Option<usize> {
    let mut depth = 0i32;
    let mut i = s.len();
    while i > 1 {
        i -= 1;
        match s[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' => depth -= 1,
            b' ' if depth <= 0 && s[i - 1] == b':' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// Where a trailing value that starts before `lazy_end` ends, at most at `bound`: at the closing
/// quote when the match sits inside a quoted (`{:?}`) string, and, unless the value is an error,
/// at the next `: ` outside brackets and quotes (the next link of an error chain) or, in a
/// quoted string, at an escaped line break.
fn value_end(text: &[u8], start: usize, lazy_end: usize, bound: usize, tail_is_error: bool) -> usize {
    let line_start = memchr::memrchr(b'\n', &text[..start]).map_or(0, |p| p + 1);
    let quotes = |s: &[u8]| {
        let mut n = 0;
        let mut esc = false;
        for &b in s {
            match b {
                b'\\' if !esc => esc = true,
                b'"' if !esc => n += 1,
                _ => esc = false,
            }
            if b != b'\\' {
                esc = false;
            }
        }
        n
    };
    let mut end = bound;
    let quoted = quotes(&text[line_start..start]) % 2 == 1;
    if quoted {
        // The lazy group's one byte may be the backslash of an escaped quote (`\"x\"` as a
        // `{:?}` value inside a `{:?}` string): that quote does not close the string (found by
        // a second reader: the value was `\` and the rest of the string was left unexplained).
        let mut esc = text[start..lazy_end].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1;
        for (i, &b) in text[lazy_end..bound].iter().enumerate() {
            if b == b'"' && !esc {
                end = lazy_end + i;
                break;
            }
            esc = b == b'\\' && !esc;
        }
    }
    if tail_is_error {
        return end;
    }
    // The value's first character: the lazy group matched exactly one.
    let mut v = lazy_end.saturating_sub(1);
    while v > start && (text[v] & 0xC0) == 0x80 {
        v -= 1;
    }
    let mut depth = 0i32;
    let mut in_quote = false;
    let mut i = v;
    while i + 1 < end {
        match text[i] {
            b'"' => in_quote = !in_quote,
            b'(' | b'[' | b'{' if !in_quote => depth += 1,
            b')' | b']' | b'}' if !in_quote => depth -= 1,
            b':' if !in_quote && depth <= 0 && text[i + 1] == b' ' && i > v => return i,
            // Inside a `{:?}` string an escaped line break ends the value too: what follows is
            // the rest of a report printed there (`job 4\n\nCaused by:\n    disk full`).
            b'\\' if quoted && text[i + 1] == b'n' && i > v => return i,
            // An escaped backslash is two bytes (`\\n` is a backslash and an `n`).
            b'\\' if quoted && text[i + 1] == b'\\' => i += 1,
            _ => {}
        }
        i += 1;
    }
    end
}

/// `base` without what it requires of blanks at a line's end. Framing leaves blanks at line
/// ends out of an event's text (a paste pads them; see `Annotator::clean`), so a pattern that kept
/// them would match no line. What can match only blanks (a blank, `\t`, `\x20`, `[ \t]`, `\s`,
/// `[[:space:]]`, their repetitions and non-capturing groups; never a whole branch) is
/// - left out right before a line break or a `$`/`\z` (`other objects. \nDETAIL`,
///   `ended[ \t]+\n`, `empty $`): a line's end follows it either way;
/// - at the pattern's very end (`lhs buffer should not be empty `, `risingwave is {:?} `, `Failed
///   to run: `), made "blanks or a line's end" ([`LINE_END_BLANKS`]), so that it still ends a
///   word or a lazy value where the line goes on (`… emptyish` is not `… empty `).
///
/// Read with regex-syntax's parser, whose spans say where each piece is in `base`.
fn blanks_at_line_ends_dropped(base: &str) -> std::borrow::Cow<'_, str> {
    use regex_syntax::ast::{AssertionKind, Ast, ClassAsciiKind, ClassPerlKind, ClassSet, ClassSetItem, GroupKind};
    /// Ranges of `base` and what replaces each.
    type Cuts = Vec<(std::ops::Range<usize>, &'static str)>;
    #[derive(Clone, Copy, PartialEq)]
    enum After {
        /// Something that may be text.
        Text,
        /// A line break, `$` or `\z`.
        LineEnd,
        /// The pattern's end.
        End,
    }
    fn blank_class(i: &ClassSetItem) -> bool {
        match i {
            ClassSetItem::Literal(l) => matches!(l.c, ' ' | '\t'),
            ClassSetItem::Union(u) => !u.items.is_empty() && u.items.iter().all(blank_class),
            ClassSetItem::Perl(p) => p.kind == ClassPerlKind::Space && !p.negated,
            ClassSetItem::Ascii(c) => matches!(c.kind, ClassAsciiKind::Space | ClassAsciiKind::Blank) && !c.negated,
            ClassSetItem::Bracketed(b) => !b.negated && matches!(&b.kind, ClassSet::Item(i) if blank_class(i)),
            _ => false,
        }
    }
    fn blank_only(a: &Ast) -> bool {
        match a {
            Ast::Literal(l) => matches!(l.c, ' ' | '\t'),
            Ast::ClassPerl(p) => p.kind == ClassPerlKind::Space && !p.negated,
            Ast::ClassBracketed(b) => !b.negated && matches!(&b.kind, ClassSet::Item(i) if blank_class(i)),
            Ast::Repetition(r) => blank_only(&r.ast),
            Ast::Group(g) => matches!(g.kind, GroupKind::NonCapturing(_)) && blank_only(&g.ast),
            Ast::Concat(c) => !c.asts.is_empty() && c.asts.iter().all(blank_only),
            _ => false,
        }
    }
    /// Does `a` start with a line's end (`\n`, `$`, `\z`, also in a group: `(?:\nNEXT: …)`)?
    fn line_end(a: &Ast) -> bool {
        match a {
            Ast::Literal(l) => l.c == '\n',
            Ast::Assertion(x) => matches!(x.kind, AssertionKind::EndLine | AssertionKind::EndText),
            Ast::Group(g) => line_end(&g.ast),
            Ast::Concat(c) => c.asts.first().is_some_and(line_end),
            _ => false,
        }
    }
    /// The blanks among `items` right before `end` (not all of them: a branch stays a branch).
    fn blanks_before(items: &[Ast], end: usize, with: &'static str, cut: &mut Cuts) {
        let n = items[..end].iter().rev().take_while(|b| blank_only(b)).count();
        if n > 0 && n < items.len() {
            cut.push((items[end - n].span().start.offset..items[end - 1].span().end.offset, with));
        }
    }
    fn walk(a: &Ast, after: After, cut: &mut Cuts) {
        match a {
            Ast::Concat(c) => {
                let n = c.asts.len();
                for (i, item) in c.asts.iter().enumerate() {
                    if line_end(item) {
                        blanks_before(&c.asts, i, "", cut);
                    }
                    let next = match c.asts.get(i + 1) {
                        None => after,
                        Some(b) if line_end(b) => After::LineEnd,
                        Some(_) => After::Text,
                    };
                    walk(item, next, cut);
                }
                match after {
                    After::LineEnd => blanks_before(&c.asts, n, "", cut),
                    After::End => blanks_before(&c.asts, n, LINE_END_BLANKS, cut),
                    After::Text => {}
                }
            }
            Ast::Group(g) => walk(&g.ast, after, cut),
            Ast::Alternation(x) => x.asts.iter().for_each(|b| walk(b, after, cut)),
            Ast::Repetition(r) => walk(&r.ast, After::Text, cut),
            _ => {}
        }
    }
    // Most patterns hold no line's end and end in a value or a word (`failed to … (.+?)`, `…
    // not found`): nothing in them can need a blank at one, and they are not parsed (parsing
    // every pattern added 11% to start-up's instructions).
    let line_ends = ["\n", "\\n", "\\x", "\\u", "$", "\\z"].iter().any(|m| base.contains(m));
    let value_end = base.ends_with("(.+?)") || base.ends_with("(.+)");
    let may_end_blank = [" ", "\t", "\\s", "\\t", "]", "}", ")", "+", "*", "?"].iter().any(|m| base.ends_with(m));
    if !line_ends && (value_end || !may_end_blank) {
        return base.into();
    }
    let Ok(ast) = regex_syntax::ast::parse::Parser::new().parse(base) else { return base.into() };
    let mut cut = Vec::new();
    walk(&ast, After::End, &mut cut);
    if cut.is_empty() {
        return base.into();
    }
    cut.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(base.len() + LINE_END_BLANKS.len());
    let mut at = 0;
    for (r, with) in cut {
        if r.start < at {
            continue;
        }
        out.push_str(&base[at..r.start]);
        out.push_str(with);
        at = r.end;
    }
    out.push_str(&base[at..]);
    out.into()
}

/// What a pattern's final blanks become ([`blanks_at_line_ends_dropped`]): blanks, or a line's
/// end, where an event's text has lost them. `template::forms` knows it after a wrapper's `:`.
pub const LINE_END_BLANKS: &str = r"(?:[ \t]+|(?m:$))";

/// `{:#?}` prints a value over several lines: its group may match line breaks.
fn multiline_groups(base: &str, parts: Option<&[Part]>) -> String {
    let Some(parts) = parts else { return base.to_owned() };
    let specs = crate::catalog::template::placeholder_specs(parts);
    const G: &str = "(.+?)";
    if !specs.iter().any(|s| s.contains("#?")) || base.matches(G).count() != specs.len() {
        return base.to_owned();
    }
    let mut out = String::with_capacity(base.len() + 8);
    let mut rest = base;
    for spec in specs {
        let i = rest.find(G).expect("counted");
        out.push_str(&rest[..i]);
        out.push_str(if spec.contains("#?") { "((?s:.+?))" } else { G });
        rest = &rest[i + G.len()..];
    }
    out.push_str(rest);
    out
}

/// Placeholder names that hold an error (the generator of RisingWave's messages uses these).
const ERROR_NAMES: &[&str] = &[
    "e",
    "err",
    "error",
    "source",
    "cause",
    "reason",
    "err_msg",
    "error_msg",
    "inner",
    "res",
    "status",
    "report",
    "error_message",
    "err_str",
    "error_str",
    "msg",
    "message",
    "resp",
    "why",
    "details",
];

fn tail_is_error(parts: Option<&[Part]>) -> bool {
    let Some(parts) = parts else { return true };
    let Some((Part::Ph { name, .. }, before)) = parts.split_last() else { return false };
    let name = name.to_ascii_lowercase();
    let name = name.rsplit('.').next().unwrap_or("");
    if ERROR_NAMES.contains(&name) || name.ends_with("_err") || name.ends_with("_error") || name.ends_with("_e") {
        return true;
    }
    let positional = name.starts_with('_') && name[1..].bytes().all(|b| b.is_ascii_digit());
    if !positional {
        return false;
    }
    match before.last() {
        Some(Part::Lit(l)) => {
            let t = l.trim_end();
            let word = t.rsplit(|c: char| !c.is_ascii_alphabetic()).next().unwrap_or("").to_ascii_lowercase();
            t.ends_with(':') || matches!(word.as_str(), "error" | "err" | "cause" | "reason" | "because")
        }
        _ => false,
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
