//! Unknown errors: online clustering of the text no catalog record explains into templates.
//!
//! Owns the `--unknown` levels, the clusterer and its bound. It sits after confirmation: the
//! annotate stage hands it the unexplained part of an event (the whole message when nothing
//! matched, else the host's `error` field or a wrapper's trailing capture that no record matched
//! inside: the first unknown link inside the innermost known error, up to the next `: `), and
//! writes the cluster's id, template and count into the event.
//!
//! The algorithm is Drain's (He et al., ICWS 2017; the one behind drain3 and Loki's patterns),
//! with stronger masking ([`mask`]): a line's masked tokens are grouped by their count and first
//! [`PREFIX_TOKENS`] tokens; within a group the template with the most equal positions is taken
//! when at least [`SIMILARITY`] of them are equal (and it does not differ in a position that
//! stayed one word for [`STABLE`] events), and the positions that differ become `<*>`;
//! failing that, the templates of its count and last [`PREFIX_TOKENS`] tokens are tried the same
//! way, where the first tokens that differ are names (a kind led by a table's name); otherwise
//! the line starts a cluster of its own.
//!
//! Contract: synchronous, no I/O. Deterministic: the same lines in the same order give the same
//! clusters, and a cluster's id is the XXH3-64 of the template it was created with (never an
//! arrival number), so the same input gives the same ids on every run, and a daemon restarted
//! on the rest of a file gives a cluster the same id when its first line there masks the same.
//! Bounded: at most `cap` clusters are alive; when one more is needed, the least recently seen
//! [`EVICT_FRACTION`]th of them is dropped (drain3 also drops the least recently used). The
//! tokens of the last texts clustered are kept by their bytes ([`TokenCache`], a fixed number
//! of slots of bounded size), since logs repeat their messages.

pub mod mask;

use rustc_hash::FxHashMap;

use mask::{Tokens, VAR};

/// Which events are clustered when no record explains them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Levels {
    /// None: unexplained events are not written (unless `--all`).
    #[default]
    Off,
    /// ERROR (and ERR, CRITICAL, FATAL, PANIC, ALERT, EMERGENCY, klog's E and F, panics).
    Error,
    /// WARN and ERROR (WARNING, ERR, CRITICAL, FATAL, PANIC, ALERT, EMERGENCY, klog's W, E
    /// and F, panics).
    Warn,
    /// Every event, with a level or not (logs that are not RisingWave's).
    Any,
}

/// A config's `levels`: a value that is not a string was told "wanted string or table", which
/// named neither the key's type nor its values.
impl<'de> serde::Deserialize<'de> for Levels {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Levels, D::Error> {
        struct Word;
        impl serde::de::Visitor<'_> for Word {
            type Value = Levels;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(r#"one of the strings "off", "error", "warn", "any""#)
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Levels, E> {
                <Levels as clap::ValueEnum>::from_str(s, false)
                    .map_err(|_| E::unknown_variant(s, &["off", "error", "warn", "any"]))
            }
        }
        d.deserialize_str(Word)
    }
}

impl Levels {
    pub fn is_on(self) -> bool {
        self != Levels::Off
    }

    /// Does an event at `level` (none: a line without one) get clustered? `panic`: the event is
    /// a Rust panic, an error whatever its level says.
    pub fn wants(self, level: Option<&[u8]>, panic: bool) -> bool {
        let least = match self {
            Levels::Off => return false,
            Levels::Any => return true,
            Levels::Error => 3,
            Levels::Warn => 2,
        };
        panic || level.is_some_and(|l| rank(trim_level(l)) >= least)
    }
}

/// Does a JSON line hold, anywhere, a level `wanted` takes (a number: at least `least`, pino's
/// and bunyan's scale) under one of the keys the annotator reads a JSON line's level from
/// (`annotate::JSON_LEVEL_KEYS`; ECS's nested `"log": {"level": …}` is a `"level"` key too), with
/// or without blanks around the colon (Python's `json` writes `": "`)? Every key is looked at,
/// nested ones too: a line says yes if any would, and the parsed object decides.
fn json_level_wanted(line: &[u8], wanted: impl Fn(&[u8]) -> bool, least: u64) -> bool {
    // Each key quoted, with where its `v` is in it. Every key has a `v`, a byte few of a line's
    // others are: the search goes from the `v`s (about three a RisingWave JSON line, `level` and
    // `risingwave` in its target), where looking at every quote (thirty and more) cost 30% more
    // of such a log's scan at `warn`, which looks at every one of its lines, and a multi-key
    // search (aho-corasick: its prefilter looks for the quote) more still.
    static KEYS: std::sync::LazyLock<Vec<(usize, Vec<u8>)>> = std::sync::LazyLock::new(|| {
        crate::annotate::JSON_LEVEL_KEYS
            .iter()
            .map(|k| {
                let quoted = format!("\"{k}\"").into_bytes();
                (memchr::memchr(b'v', &quoted).expect("every level key has a v"), quoted)
            })
            .collect()
    });
    memchr::memchr_iter(b'v', line).any(|i| {
        let Some(end) = KEYS.iter().find_map(|(v, key)| {
            let s = i.checked_sub(*v)?;
            (line.get(s..s + key.len()) == Some(key)).then_some(s + key.len())
        }) else {
            return false;
        };
        let Some(v) = line[end..].trim_ascii_start().strip_prefix(b":") else { return false };
        let v = v.trim_ascii_start();
        if let Some(s) = v.strip_prefix(b"\"") {
            return wanted(&s[..memchr::memchr(b'"', s).unwrap_or(s.len())]);
        }
        let digits = v.iter().take_while(|b| b.is_ascii_digit()).count();
        std::str::from_utf8(&v[..digits]).ok().and_then(|d| d.parse::<u64>().ok()).is_some_and(|n| n >= least)
    })
}

/// How much of a line with ANSI codes [`level_marker`] strips of them and reads: its level
/// window and, for a JSON object behind coloured prefixes, room for the keys before its level
/// (a level key further in than this is not looked for).
const MAX_ANSI_LOOK: usize = 64 * 1024;

thread_local! {
    /// [`level_marker`]'s line without its ANSI codes: reused, so a coloured stream costs no
    /// allocation a line.
    static STRIPPED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How far into a line its level is looked for: past a `kubectl --prefix` and `--timestamps`
/// prefix and RisingWave's own timestamp (30 bytes), with room for a thread name.
pub const LEVEL_WINDOW: usize = 160;

/// Where the JSON object of a JSON line starts: its first byte, or past the prefixes framing
/// reads before one (`kubectl --prefix` and `--timestamps`, a CRI record's, compose's and
/// stern's prefixes, a log viewer's time, a paste's indent or quote), as
/// [`classify`](crate::framing::parse::classify) reads the line with no stream state behind it.
/// A text line with a `{` further in (a Debug struct, a span's fields) has none. Framing finds
/// such lines by the bytes around the brace (`framing::json_line_start`), which asks this of
/// the line: the two agree.
pub fn json_start(line: &[u8]) -> Option<usize> {
    use crate::framing::parse::{Header, StreamState, classify};
    // Framing classifies a line without its CRLF's `\r` (a JSON object line ends with `}`).
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.first() == Some(&b'{') {
        return Some(0);
    }
    // Most lines a level look meets have no brace at all: they cost one search, not a parse.
    memchr::memchr(b'{', line)?;
    let (p, header) = classify(line, &mut StreamState::default());
    (header == Header::Json).then_some(p.content)
}

/// Might this line start an event at a level `levels` wants? A cheap look at the raw bytes (a
/// text header's ` WARN `/` ERROR `, another program's `[WARN]`, `WARNING`, `ERR`, `CRITICAL`, a
/// JSON line's `"level":"…"`, a panic), run with `--unknown warn|error` on every line of a block
/// with JSON lines and on the lines that hold `WARN`, `ERR` or `CRIT` otherwise (a panic's first
/// line is framed for the prefilter's panic key), so that
/// lines without a catalog literal need not be framed: it
/// may say yes wrongly (the event's parsed level decides), never no for a header at such a
/// level.
pub fn level_marker(line: &[u8], levels: Levels) -> bool {
    let error_only = match levels {
        Levels::Off => return false,
        Levels::Any => return true,
        Levels::Error => true,
        Levels::Warn => false,
    };
    // RisingWave's header, nearly every line looked at: its level is read where it stands before
    // the window is searched for colour codes (two passes over it), since codes after the level
    // word do not change it and codes before it leave no level word right behind the time.
    if let Some(wanted) = stamped_level(line, error_only) {
        return wanted;
    }
    // A line with ANSI codes (copied from a terminal, `grep --color`, stern's and compose's
    // coloured prefixes) is read as framing reads it, without them: a code before a JSON
    // object hid the object, and `\x1b[K` before a level word hid the word, and the event was
    // dropped unclustered (found by a second reader).
    // Looked for in the level's window only: the codes that hide a level or a JSON object stand
    // before them, and the line's end is not read for every line looked at.
    // Codes that lost their ESC (a coloured line pasted from a web page) are taken alike.
    let window = &line[..line.len().min(LEVEL_WINDOW)];
    let lost = crate::framing::parse::has_leftovers(window);
    if lost || memchr::memchr(0x1b, window).is_some() {
        return STRIPPED.with_borrow_mut(|buf| {
            buf.clear();
            crate::framing::parse::strip_codes(&line[..line.len().min(MAX_ANSI_LOOK)], buf, lost);
            plain_level_marker(buf, error_only)
        });
    }
    plain_level_marker(line, error_only)
}

/// RisingWave's own header, most lines of its logs: `<timestamp> <blanks><LEVEL> `. Its level
/// is read where it stands, without looking for the level words further in (a line at INFO is
/// not wanted whatever its message says). `None`: no level word right after the line's first
/// word, which starts with a digit.
fn stamped_level(line: &[u8], error_only: bool) -> Option<bool> {
    let w = &line[..line.len().min(LEVEL_WINDOW)];
    if !w.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let sp = memchr::memchr(b' ', w)?;
    let r = &w[sp..];
    let r = &r[r.iter().position(|&b| b != b' ').unwrap_or(r.len())..];
    if r.starts_with(b"INFO ") || r.starts_with(b"DEBUG ") || r.starts_with(b"TRACE ") {
        return Some(false);
    }
    if r.starts_with(b"ERROR ") || (!error_only && r.starts_with(b"WARN ")) {
        return Some(true);
    }
    None
}

/// [`level_marker`] on a line without colour codes (`--unknown warn` or `error`).
fn plain_level_marker(line: &[u8], error_only: bool) -> bool {
    // Syslog's `<PRI>` (the wire format; a journal record's priority): its severity.
    if crate::framing::parse::syslog_pri_wanted(line, error_only) {
        return true;
    }
    let w = &line[..line.len().min(LEVEL_WINDOW)];
    // Behind a `kubectl --prefix` (`[pod/…] `) the line is read as it would be without it.
    let skip = if w.first() == Some(&b'[') { memchr::memchr(b' ', w).map_or(0, |i| i + 1) } else { 0 };
    let unprefixed = &w[skip..];
    if let Some(wanted) = stamped_level(unprefixed, error_only) {
        return wanted;
    }
    // The same header pasted without its time (`ERROR risingwave_meta::…: …`, ` WARN …`), behind
    // `grep -n`'s number too, read on the whole line: long span fields put its target past the
    // window (found by second and third readers).
    let bare = &line[skip..];
    let digits = bare.iter().take_while(|b| b.is_ascii_digit()).count();
    let bare = if digits > 0 && matches!(bare.get(digits), Some(b':' | b'-')) { &bare[digits + 1..] } else { bare };
    if matches!(bare.first(), Some(b' ' | b'D' | b'E' | b'T' | b'I' | b'W')) && crate::framing::parse::bare_header(bare)
    {
        let level = bare.trim_ascii_start();
        return level.starts_with(b"ERROR ") || (!error_only && level.starts_with(b"WARN "));
    }
    // A panic's first line. (A Go program's crash is framed by the prefilter's key in its
    // stacks, and is one only with them: not looked at here.)
    if crate::framing::parse::thread_quote(unprefixed) && memchr::memmem::find(w, crate::matcher::PANIC_KEY).is_some() {
        return true;
    }
    let wanted = |l: &[u8]| Levels::Error.wants(Some(l), false) || (!error_only && Levels::Warn.wants(Some(l), false));
    if json_start(line).is_some() {
        return json_level_wanted(line, wanted, if error_only { 50 } else { 40 });
    }
    // Anywhere else in the window, a level word between blanks, tabs or brackets (other programs'
    // `- WARNING -`, `[WARN]`, zap's `\tERROR\t`, `CRITICAL:`; ANSI codes are gone by now).
    // Only upper-case
    // words with an `R` in them: in a RisingWave stream framing finds the lines to look at by
    // the `R`s the skim marks (`level_candidates`), so a `FATAL` or `Warning` would be taken in
    // some blocks and not in others.
    memchr::memchr3_iter(b'W', b'E', b'C', w).any(|i| {
        let r = &w[i..];
        // At the line's start, a level word with a colon after it (Python's `logging`, uvicorn:
        // `ERROR:root:…`, `WARNING:  …`: framing's `leveled_line`).
        let ends: &[u8] = if i == 0 { b":" } else { b" \t]>):,\x1b" };
        (i == 0 || matches!(w[i - 1], b' ' | b'\t' | b'[' | b'<' | b'(')) && {
            let word = |l: &[u8]| r.starts_with(l) && r.get(l.len()).is_some_and(|b| ends.contains(b));
            word(b"ERROR")
                || word(b"ERR")
                || word(b"CRITICAL")
                || word(b"CRIT")
                || (!error_only && (word(b"WARN") || word(b"WARNING")))
        }
    })
}

/// [`level_marker`] in a stream of another program's log (a block framing reads as one: `Framer::foreign`), where every
/// line is looked at: a line of that log, behind whatever prefixes framing reads, is wanted by
/// its level word ([`foreign_level`]), which need not be one the marks find (klog's `E`,
/// logfmt's `level=error`, `FATAL`, `Warning`).
pub fn foreign_marker(line: &[u8], levels: Levels) -> bool {
    use crate::framing::parse;
    let (p, header) = parse::classify(line, &mut parse::StreamState::default());
    match foreign_level(&line[p.content..], header) {
        Some(level) if matches!(levels, Levels::Warn | Levels::Error) => levels.wants(Some(level), false),
        _ => level_marker(line, levels),
    }
}

/// The level word of a line of another program's log, read as the event's `log.level` will be:
/// `c` is the line's content (past its prefixes), `header` how framing classified it. A Go
/// program's ([`golog::level`](crate::framing::golog::level)), or one that starts with its date
/// and time and has a level word among its first words
/// ([`parse_stamped`](crate::framing::parse::parse_stamped): any level word, `FATAL`, `Warning`
/// and `[error]` too).
pub fn foreign_level(c: &[u8], header: crate::framing::parse::Header) -> Option<&[u8]> {
    use crate::framing::parse::{Header, parse_stamped};
    match header {
        Header::Klog | Header::Logfmt => crate::framing::golog::level(c).map(|(_, level)| level),
        Header::Stamped => parse_stamped(c).and_then(|st| st.level).map(|l| &c[l]),
        _ => None,
    }
}

/// A trimmed level word's rank: 3 an error, 2 a warning, 1 anything else. The length is
/// looked at first: most events are at INFO, whose four letters rule out all but `WARN` and
/// `CRIT` at once.
fn rank(l: &[u8]) -> u8 {
    let is = |w: &[u8]| l.eq_ignore_ascii_case(w);
    match l.len() {
        3 if is(b"ERR") => 3,
        // log15's four-letter `eror` (a logfmt `lvl`).
        4 if is(b"CRIT") || is(b"EROR") => 3,
        4 if is(b"WARN") => 2,
        // zap's and logrus's levels above error: a JSON or logfmt line's `panic`, `dpanic`.
        5 if is(b"ERROR") || is(b"FATAL") || is(b"PANIC") => 3,
        6 if is(b"DPANIC") => 3,
        7 if is(b"WARNING") => 2,
        8 if is(b"CRITICAL") => 3,
        // Syslog's and Google Cloud's levels above critical (a JSON line's `severity`): no
        // text layout annotail reads takes them as a level word.
        5 if is(b"ALERT") || is(b"EMERG") => 3,
        9 if is(b"EMERGENCY") => 3,
        _ => 1,
    }
}

fn trim_level(l: &[u8]) -> &[u8] {
    let s = l.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(l.len());
    let e = l.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(s, |e| e + 1);
    &l[s..e]
}

/// Tokens of the key a cluster is looked for under, beside the token count: Drain's tree of
/// depth 4 (drain3's default) keys on two. Lines of one kind almost always share their first two
/// words; different kinds that share them are told apart by the similarity.
pub const PREFIX_TOKENS: usize = 2;

/// Share of equal positions for a line to join a template. drain3's default is 0.4; with
/// masking, variable positions are already equal, so a higher bar splits unrelated messages
/// that share a frame of common words (`Failed to <*> <*>` from `Failed to parse config`
/// and `Failed to drop sink`). One setting for all sets, chosen on loghub-2k: its average
/// is 0.908 at 0.5, 0.909 at 0.6, 0.938 at 0.65, 0.940 at 0.7, 0.909 at 0.75 (Linux's kinds
/// split: 0.30) and 0.914 at 0.8; 0.65 keeps away from that edge (BENCHMARKS.md).
pub const SIMILARITY: f32 = 0.65;

/// Do masked tokens say nothing but variables? No letter or digit outside the `<*>`s: a value's
/// punctuation is no word (`<*>, <*>]`, the tail of a `{:?}` list after a capture that stopped
/// at its first blank; `<*> => <*>`, a struct and another after a known error's value: each
/// was a cluster of values only, which merged unrelated errors, found by a reader). A
/// non-ASCII byte may be a letter: a word in another script says something.
fn says_nothing(t: &Tokens) -> bool {
    !t.buf.iter().any(|&b| says_something(b))
}

/// A letter or digit (a byte past ASCII may be a letter): `<*>` holds none, so a text's words are
/// its bytes that are.
fn says_something(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// A template position that stayed one word over this many events is a constant: a line with
/// another word there starts another kind rather than turning the word into `<*>` (loghub-2k's
/// labels keep one `client SPP` line apart from 608 of `client WindowsUpdateAgent`). Variables
/// show themselves within a kind's first lines; a lower bar split kinds whose variable takes
/// one value for a while (Linux's `user root` for 100 lines, then other users). Chosen on
/// loghub-2k (BENCHMARKS.md gives the average with and without it).
pub const STABLE: u64 = 300;

/// Templates of one group (or tail group) a line is compared with: the newest this many. A
/// group is one token count and two first (or last) tokens: in real logs a few dozen kinds at
/// most (no group of loghub-2k's sets, the peers corpus or the withheld corpus needs more than
/// 64: their clusters are the same at 64). Lines whose first words are alike and whose other
/// words are all new (`failed to` and ten random words) made a group of every cluster alive,
/// and each line was compared with all of them: 100,000 such lines took 55 s (1.4 s now; 1.1 s
/// at 64, 2.0 s at 256), and `discover` (cap 100,000) was quadratic. The newest are kept: a
/// kind seen again after this many newer ones in its group starts a cluster anew.
const MAX_COMPARED: usize = 128;

/// The members of a group [`Clusterer::best_of`] compares a line with ([`MAX_COMPARED`]).
fn newest<T>(members: &[T]) -> &[T] {
    &members[members.len().saturating_sub(MAX_COMPARED)..]
}

/// Default cap on clusters alive. A day of a busy cluster's logs has some hundreds of error
/// kinds; 10,000 keeps every one of them while bounding memory (peak RSS in BENCHMARKS.md).
pub const DEFAULT_CAP: usize = 10_000;

/// At the cap, this fraction (1/N) of the clusters, the least recently seen, is dropped at once:
/// finding them costs a pass over all clusters, paid once per N-th of the cap new clusters
/// rather than for each.
pub const EVICT_FRACTION: usize = 16;

/// Drop the least recently seen [`EVICT_FRACTION`]th (at least one) of a report's clusters by
/// id, by when each was last seen (`seen_at`, distinct values), as the clusterer drops kinds at
/// its cap; returns how many went.
pub fn drop_least_recent<V, S>(by_id: &mut std::collections::HashMap<u64, V, S>, seen_at: impl Fn(&V) -> u64) -> u64 {
    if by_id.is_empty() {
        return 0;
    }
    let n = (by_id.len() / EVICT_FRACTION).max(1);
    let mut seen: Vec<u64> = by_id.values().map(&seen_at).collect();
    let (_, &mut limit, _) = seen.select_nth_unstable(n - 1);
    let before = by_id.len();
    by_id.retain(|_, v| seen_at(v) > limit);
    (before - by_id.len()) as u64
}

/// The clusterer of a run, shared by its annotators (one per thread or followed file), and the
/// levels it takes.
#[derive(Debug, Clone)]
pub struct Shared {
    pub levels: Levels,
    pub clusters: std::sync::Arc<std::sync::Mutex<Clusterer>>,
    /// The [`Clusterer::version`] last written to the state directory: a checkpoint with the
    /// clusters as they were then writes them again for nothing (a file of 10,000 clusters, 1.4
    /// MB and an fsync, after each delivery of events that were all known or below the levels).
    pub saved: std::sync::Arc<std::sync::Mutex<Option<u64>>>,
}

impl Shared {
    pub fn new(levels: Levels, cap: usize) -> Shared {
        Shared {
            levels,
            clusters: std::sync::Arc::new(std::sync::Mutex::new(Clusterer::new(cap))),
            saved: std::sync::Arc::default(),
        }
    }

    /// Take the clusters as they are for written (read from the state directory, unchanged).
    pub fn mark_saved(&self) {
        let version = self.clusters.lock().unwrap_or_else(|e| e.into_inner()).version();
        *self.saved.lock().unwrap_or_else(|e| e.into_inner()) = Some(version);
    }

    /// Have the clusters changed since they were last written?
    pub fn changed(&self) -> bool {
        let version = self.clusters.lock().unwrap_or_else(|e| e.into_inner()).version();
        *self.saved.lock().unwrap_or_else(|e| e.into_inner()) != Some(version)
    }
}

/// The `level` label of `annotail_unknown_events_total` for an event's level.
pub fn level_label(level: Option<&[u8]>, panic: bool) -> &'static str {
    if panic {
        return "error";
    }
    let Some(l) = level.map(trim_level) else { return "none" };
    match rank(l) {
        3 => return "error",
        2 => return "warn",
        _ => {}
    }
    // NOTICE (syslog's, PostgreSQL's, Google Cloud's) sits between INFO and WARN: informational.
    if l.eq_ignore_ascii_case(b"INFO") || l.eq_ignore_ascii_case(b"NOTICE") {
        "info"
    } else if l.eq_ignore_ascii_case(b"DEBUG") || l.eq_ignore_ascii_case(b"TRACE") {
        "debug"
    } else {
        "none"
    }
}

/// The severity an unknown event has (what the sinks' `min_severity` reads), from its
/// [`level_label`] and its level word: `critical` for the levels above error (`FATAL`,
/// `CRITICAL`, `PANIC`, `ALERT`, `EMERGENCY`, klog's `fatal`), which were `error`, so that a sink
/// kept for `critical` never had them (found by a daemon operator's reading). A crash without a
/// level word (a Rust panic, a Go program's) stays an error, as every view of it says, and so
/// does PostgreSQL's `FATAL` (`postgres`): it ends one session (`password authentication
/// failed`, `the database system is starting up`), and PostgreSQL itself logs it to syslog as an
/// error, its `PANIC` as critical.
pub fn level_severity(label: &str, level: Option<&[u8]>, panic: bool, postgres: bool) -> crate::catalog::Severity {
    use crate::catalog::Severity;
    const ABOVE_ERROR: [&str; 8] = ["FATAL", "CRITICAL", "CRIT", "PANIC", "DPANIC", "ALERT", "EMERG", "EMERGENCY"];
    match label {
        "error" => {
            let l = level.filter(|_| !panic).map(trim_level).unwrap_or_default();
            if ABOVE_ERROR.iter().any(|w| l.eq_ignore_ascii_case(w.as_bytes())) && !(postgres && l == b"FATAL") {
                Severity::Critical
            } else {
                Severity::Error
            }
        }
        "warn" => Severity::Warning,
        "debug" => Severity::Debug,
        _ => Severity::Info,
    }
}

/// One template and its count.
#[derive(Debug, Clone)]
pub struct Cluster {
    pub id: u64,
    pub tokens: Tokens,
    pub count: u64,
    /// The template rendered (tokens joined by spaces).
    pub template: String,
    last_seen: u64,
    key: u64,
    /// Its first line's [`kept_tail`] (0: none). Kept, not derived from `tokens`: those lose
    /// constants to `<*>` as lines join, and the group a cluster is in must not change.
    tail: u64,
    /// When it was made (the clusterer's tick then): its place in its groups, which decides a
    /// tie between two templates a line is as close to ([`Clusterer::best_of`] keeps the first)
    /// and which are the newest compared. Kept across a restart, which took the clusters back in
    /// the order they were last seen, so a line after it could join the other of two tied
    /// templates (found by a reader of the clusterer).
    born: u64,
}

/// A cluster as kept across a restart (in follow mode's state directory): what
/// [`Clusterer::restore`] needs to take it up again with its id, its group and its count. The
/// tokens are kept as a list (a template's text does not always split back into its tokens: a
/// quoted piece of a token may hold a blank).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SavedCluster {
    /// 16 hex digits, as in events.
    pub id: String,
    /// The group it was created in (16 hex digits): its first line's key, which a template that
    /// has since turned a leading word into `<*>` would not give again.
    pub group: String,
    /// Its group by its end ([`tail_key`], 16 hex digits); a state written before it was kept
    /// has none, and the template's end is taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tail: Option<String>,
    pub tokens: Vec<String>,
    /// The tokens that are not UTF-8, by their index in `tokens` (where they are written with
    /// U+FFFD for each bad byte), as their bytes: a line with the same bytes after a restart
    /// joined a template of the replacement characters as a variable (`caf\xe9 machine …` came
    /// back as `<*> machine …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub raw: Vec<(usize, Vec<u8>)>,
    pub count: u64,
    /// When it was made ([`Cluster::born`]); a state written before it was kept has none, and
    /// the clusters are taken back in the order they were saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub born: Option<u64>,
    /// How `group` and `tail` were hashed ([`KEYS`]); none: before a token with a variable in it
    /// keyed as `<*>`, and such a cluster is keyed again from its template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<u32>,
}

/// The way group keys are hashed now ([`SavedCluster::keys`]): 2 since a token with a
/// variable in it keys as `<*>` ([`key_hash`]).
const KEYS: u32 = 2;

/// What an observed line got: its cluster.
#[derive(Debug, Clone, Copy)]
pub struct Seen<'a> {
    pub id: u64,
    pub template: &'a str,
    pub count: u64,
    /// The line made a new cluster.
    pub new: bool,
}

#[derive(Debug)]
pub struct Clusterer {
    cap: usize,
    clusters: Vec<Option<Cluster>>,
    free: Vec<u32>,
    /// Clusters by [`group_key`], in the order they were made ([`Cluster::born`]).
    groups: FxHashMap<u64, Vec<u32>>,
    /// Clusters by id: the look for a kind's first line when a cluster would be made. It was a
    /// scan of the line's group, every member of it for every new cluster: a storm of kinds that
    /// share their first words took time quadratic in the input up to the cap (400,000 lines,
    /// 40 s of CPU; found by a reader of the clusterer).
    ids: FxHashMap<u64, u32>,
    /// The same clusters by [`tail_key`].
    tails: FxHashMap<u64, Vec<u32>>,
    /// Template (its tokens' hash) → cluster: a line equal to a template, most lines once a
    /// kind's template has settled, skips the comparison with every template of its group.
    exact: FxHashMap<u64, u32>,
    tick: u64,
    alive: usize,
    pub evicted: u64,
    tokenizer: Tokenizer,
}

/// Slots of [`TokenCache`]: a power of two, indexed by the text's hash. 1,024 hold the distinct
/// messages of the 100 MB peers corpus's busy stretches (3,888 distinct of 199,244 messages in
/// its first 10 MB, a few hundred at a time) at about a megabyte at most (see
/// [`CACHE_MAX_TEXT`]).
const CACHE_SLOTS: usize = 1024;

/// Texts longer than this are tokenized every time and not kept: it bounds a slot's bytes
/// (the text, and tokens no longer than it) and so the cache's memory. Error messages and
/// their first links are mostly well under it.
const CACHE_MAX_TEXT: usize = 256;

/// The tokens of recently clustered texts, by the text's bytes: a direct-mapped cache (a text
/// takes the slot its hash picks, replacing what was there). Tokenizing is a pure function of
/// the bytes, so a hit gives exactly what [`mask::tokenize`] would, and the template's hash
/// with it. Logs repeat their messages: with the values of `key=value` fields parsed out, 98% of
/// the peers corpus's messages are a text seen before, and tokenizing was most of the
/// clusterer's time on them. A miss costs a hash of the text and a copy of it.
#[derive(Debug, Clone, Default)]
struct TokenCache {
    slots: Vec<Slot>,
}

#[derive(Debug, Clone, Default)]
struct Slot {
    /// The text's hash; 0 for a slot never filled (the text is compared too).
    hash: u64,
    text: Vec<u8>,
    tokens: Tokens,
    /// [`tokens_hash`] of `tokens`.
    whole: u64,
}

/// Texts → their masked tokens and their [`tokens_hash`], through a [`TokenCache`]. The
/// clusterer has one; so does each worker of a parallel read, which tokenizes an unknown text
/// to know whether the reader will cluster it.
#[derive(Debug, Clone, Default)]
pub struct Tokenizer {
    cache: TokenCache,
    /// The tokens of a text too long for the cache (a buffer reused).
    long: Tokens,
}

impl Tokenizer {
    /// `text`'s tokens and their hash: what [`mask::tokenize`] gives, from the cache when the
    /// text was met lately.
    pub fn tokens(&mut self, text: &[u8]) -> (&Tokens, u64) {
        match self.cache.slot(text) {
            Some(s) => (&s.tokens, s.whole),
            None => {
                mask::tokenize(text, &mut self.long);
                let whole = tokens_hash(&self.long);
                (&self.long, whole)
            }
        }
    }
}

impl TokenCache {
    /// The slot holding `text`'s tokens, tokenized into it first if it held another text.
    /// `None` for a text too long to keep.
    fn slot(&mut self, text: &[u8]) -> Option<&mut Slot> {
        if text.len() > CACHE_MAX_TEXT {
            return None;
        }
        if self.slots.is_empty() {
            self.slots.resize_with(CACHE_SLOTS, Slot::default);
        }
        let hash = xxhash_rust::xxh3::xxh3_64(text).max(1);
        let slot = &mut self.slots[hash as usize & (CACHE_SLOTS - 1)];
        if slot.hash != hash || slot.text != text {
            mask::tokenize(text, &mut slot.tokens);
            slot.text.clear();
            slot.text.extend_from_slice(text);
            slot.hash = hash;
            slot.whole = tokens_hash(&slot.tokens);
        }
        Some(slot)
    }
}

impl Default for Clusterer {
    fn default() -> Self {
        Clusterer::new(DEFAULT_CAP)
    }
}

/// A cluster id as written in events: 16 hex digits.
pub fn id_text(id: u64) -> String {
    format!("{id:016x}")
}

/// The key of a line's group: its token count and first [`PREFIX_TOKENS`] tokens (one hash of
/// a slice of the joined tokens, seeded with the count).
fn group_key(t: &Tokens) -> u64 {
    key_hash(t, 0..PREFIX_TOKENS.min(t.len()), t.prefix(PREFIX_TOKENS), t.len() as u64, false)
}

/// The hash of the tokens `at` of `t`, whose joined bytes are `joined`, with `seed`; a token
/// with a variable in it (`search.tasks.reindex[<*>]`, `postgresql@<*>:`) is hashed as `<*>`,
/// as a line of its kind with another value there gives `<*>` or another such token: a
/// Celery task's `Task <name>[<*>] received` was a kind for each task, in its group by its
/// start and by its end (drain3 routes a token with a digit as `<*>`; found by a reader's
/// generated logs of ten other programs). With `fields`, a field is hashed as its key and
/// `<*>`, as it is an equal position when lines are compared: the key by a line's end, where
/// `<unit>: Main process exited, code=exited, status=<*>` and `…code=killed…` (the unit a
/// name) found each other only so (a fifth reader). By a line's start a field keys as itself:
/// `op=insert` and `op=delete` leading a line are two kinds until lines say otherwise (a fourth
/// reader found them merged). Without such a token, the joined bytes are hashed as they are,
/// with no copy.
fn key_hash(t: &Tokens, at: std::ops::Range<usize>, joined: &[u8], seed: u64, fields: bool) -> u64 {
    let field = |k: &[u8]| if fields { field_key(k) } else { None };
    // How a token keys, if not as itself: its first bytes (none, or a field's key) and `<*>`.
    let form = |k: &[u8]| field(k).or_else(|| partly_var(k).then_some(0));
    let look = memchr::memmem::find(joined, VAR).is_some() || (fields && memchr::memchr(b'=', joined).is_some());
    if !look || !at.clone().any(|i| form(t.get(i)).is_some()) {
        return xxhash_rust::xxh3::xxh3_64_with_seed(joined, seed);
    }
    // PREFIX_TOKENS tokens of at most MAX_TOKEN_BYTES, and the blanks between them.
    let mut buf = [0u8; PREFIX_TOKENS * (mask::MAX_TOKEN_BYTES + 1)];
    let mut n = 0;
    for (j, i) in at.enumerate() {
        let k = t.get(i);
        let (head, var) = match form(k) {
            Some(keep) => (&k[..keep], VAR),
            None => (k, &b""[..]),
        };
        if n + 1 + head.len() + var.len() > buf.len() {
            // Longer than tokens are kept: not met, but no key is worth a panic.
            return xxhash_rust::xxh3::xxh3_64_with_seed(joined, seed);
        }
        if j > 0 {
            buf[n] = b' ';
            n += 1;
        }
        buf[n..n + head.len()].copy_from_slice(head);
        n += head.len();
        buf[n..n + var.len()].copy_from_slice(var);
        n += var.len();
    }
    xxhash_rust::xxh3::xxh3_64_with_seed(&buf[..n], seed)
}

/// Does a token hold a variable and more (`reindex[<*>]`, `<*>,`), not a field's (`user=<*>`)?
fn partly_var(k: &[u8]) -> bool {
    k != VAR && memchr::memmem::find(k, VAR).is_some() && field_key(k).is_none()
}

/// The key of a line's group by its end: its token count and last [`PREFIX_TOKENS`] tokens;
/// 0 (none) for a line no longer than that, whose end is its start.
fn tail_key(t: &Tokens) -> u64 {
    if t.len() <= PREFIX_TOKENS {
        return 0;
    }
    key_hash(t, t.len() - PREFIX_TOKENS..t.len(), t.suffix(PREFIX_TOKENS), !(t.len() as u64), true).max(1)
}

/// Is a masked token variables and punctuation alone (`<*>,`, `(<*>)`, `<*>:<*>`), no letter
/// or digit outside its `<*>`s (a byte past ASCII may be a letter)?
fn punctuated_var(t: &[u8]) -> bool {
    memchr::memmem::find(t, VAR).is_some() && !t.iter().any(|&b| says_something(b))
}

/// Are two masked tokens one `key=value` field's (the same key, `[A-Za-z0-9_.-]+`, before the
/// first `=`)? Where the value starts.
fn same_key(t: &[u8], l: &[u8]) -> Option<usize> {
    let k = field_key(t)?;
    (l.len() >= k && l[..k] == t[..k]).then_some(k)
}

/// Is this token a `key=value` field (its key `[A-Za-z0-9_.-]+`)? Where its value starts.
fn field_key(t: &[u8]) -> Option<usize> {
    let e = memchr::memchr(b'=', t)?;
    mask::is_key(&t[..e]).then_some(e + 1)
}

/// Is this token a name ([`Clusterer::names_differ`]): a `_`, `.`, bracket, digit or `<*>` in
/// it? A token with a value in it is one (`postgresql@<*>:` beside `nginx.service:`, two
/// units' `Failed with result <*>.`: found by a reader's generated systemd log), but for a
/// field (`retries=<*>` and `timeout=<*>` say two things; and lines led by fields of every key
/// then all went to one group by their end, each compared with 128 templates).
fn name(t: &[u8]) -> bool {
    t.iter().any(|&b| matches!(b, b'_' | b'.' | b'(' | b'[' | b'0'..=b'9')) || partly_var(t)
}

/// The [`tail_key`] a cluster made from `t` is kept under, or 0: only one whose first tokens
/// hold a name or `<*>` can be joined by a line its end finds (a line with other first words
/// joins only where those are names or `<*>`, and one with the same first words is in its
/// group already). The rest stay out of those groups, which would otherwise gather every kind
/// that ends alike (300,000 lines `<word> stopped reading partition` of as many words: each
/// new one compared with all the kinds alive, 37 s at the default cap instead of 0.4).
fn kept_tail(t: &Tokens) -> u64 {
    let joinable = (0..PREFIX_TOKENS.min(t.len())).any(|i| {
        let k = t.get(i);
        k == VAR || name(k)
    });
    if joinable { tail_key(t) } else { 0 }
}

/// A template a line was compared with: its cluster, how many positions are equal, its
/// variables, and whether a constant of it differs from the line.
#[derive(Debug, Clone, Copy)]
struct Best {
    m: u32,
    same: usize,
    vars: usize,
    grows: bool,
}

impl Best {
    /// Does the line join this template: at least [`SIMILARITY`] of its positions equal?
    fn joins(&self, line: &Tokens) -> bool {
        self.same as f32 >= SIMILARITY * line.len() as f32
    }
}

/// The hash of a line's (or a template's) tokens: its joined bytes. Tokens hold no blank but
/// inside a quoted string, which is masked whole, so joined bytes tell token lists apart but
/// for that rare case, and a hit is compared token by token anyway.
fn tokens_hash(t: &Tokens) -> u64 {
    xxhash_rust::xxh3::xxh3_64(&t.buf)
}

impl Clusterer {
    pub fn new(cap: usize) -> Self {
        Clusterer {
            cap: cap.max(1),
            clusters: Vec::new(),
            free: Vec::new(),
            groups: FxHashMap::default(),
            ids: FxHashMap::default(),
            tails: FxHashMap::default(),
            exact: FxHashMap::default(),
            tick: 0,
            alive: 0,
            evicted: 0,
            tokenizer: Tokenizer::default(),
        }
    }

    pub fn alive(&self) -> usize {
        self.alive
    }

    pub fn cap(&self) -> usize {
        self.cap
    }

    pub fn clusters(&self) -> impl Iterator<Item = &Cluster> {
        self.clusters.iter().flatten()
    }

    /// The clusters alive, least recently seen first (the order [`Clusterer::restore`] takes
    /// them in keeps which are dropped first at the cap).
    pub fn export(&self) -> Vec<SavedCluster> {
        let mut all: Vec<&Cluster> = self.clusters().collect();
        all.sort_by_key(|c| c.last_seen);
        all.into_iter()
            .map(|c| {
                let (mut tokens, mut raw) = (Vec::with_capacity(c.tokens.len()), Vec::new());
                for i in 0..c.tokens.len() {
                    let t = c.tokens.get(i);
                    if std::str::from_utf8(t).is_err() {
                        raw.push((i, t.to_vec()));
                    }
                    tokens.push(String::from_utf8_lossy(t).into_owned());
                }
                let (id, group, tail) = (id_text(c.id), id_text(c.key), Some(id_text(c.tail)));
                SavedCluster { id, group, tail, tokens, raw, count: c.count, born: Some(c.born), keys: Some(KEYS) }
            })
            .collect()
    }

    /// Take up saved clusters again (a daemon restarted on the rest of its files): their ids
    /// and counts continue. Clusters already alive (by id) and entries that do not parse are
    /// skipped; at most the cap are taken, the most recently seen kept (those left out count as
    /// dropped at the cap, [`Clusterer::evicted`]). Returns how many were taken.
    pub fn restore(&mut self, saved: &[SavedCluster]) -> usize {
        let hex = |s: &str| u64::from_str_radix(s, 16).ok();
        let skip = saved.len().saturating_sub(self.cap.saturating_sub(self.alive));
        self.evicted += skip as u64;
        // The ids alive, looked up once per saved cluster: a look through every cluster made a
        // restart with 100,000 saved clusters quadratic.
        let mut alive: rustc_hash::FxHashSet<u64> = self.clusters().map(|c| c.id).collect();
        let mut taken = 0;
        // The groups taken into, put back in the order their clusters were made.
        let mut touched: rustc_hash::FxHashSet<(u64, u64)> = Default::default();
        let mut last_born = 0;
        for s in &saved[skip..] {
            let (Some(id), Some(key)) = (hex(&s.id), hex(&s.group)) else { continue };
            if s.tokens.is_empty() || s.count == 0 || !alive.insert(id) {
                continue;
            }
            let mut tokens = Tokens::default();
            let mut raw = s.raw.iter().peekable();
            for (i, t) in s.tokens.iter().enumerate() {
                match raw.next_if(|(at, _)| *at == i) {
                    Some((_, bytes)) => tokens.push(bytes),
                    None => tokens.push(t.as_bytes()),
                }
            }
            self.tick += 1;
            let mut template = String::new();
            tokens.render(&mut template);
            let whole = tokens_hash(&tokens);
            let mut tail = match &s.tail {
                Some(t) => hex(t).unwrap_or(0),
                None => kept_tail(&tokens),
            };
            // Saved by a build that hashed a token with a variable in it (and, by the end, a
            // field) as itself: the keys of such a cluster are taken from its template (its first line's tokens are gone; a
            // template keeps them but where it grew `<*>`s, which key alike), so that its kind's
            // lines find it after an upgrade (a reader's restart made a second cluster).
            let mut key = key;
            if s.keys.is_none() {
                let n = tokens.len();
                if (0..PREFIX_TOKENS.min(n)).any(|i| partly_var(tokens.get(i))) {
                    key = group_key(&tokens);
                }
                let end = |k: &[u8]| partly_var(k) || field_key(k).is_some();
                if (n.saturating_sub(PREFIX_TOKENS)..n).any(|i| end(tokens.get(i))) {
                    tail = kept_tail(&tokens);
                }
            }
            let born = s.born.unwrap_or(self.tick);
            last_born = last_born.max(born);
            touched.insert((key, tail));
            self.insert(Cluster { id, tokens, count: s.count, template, last_seen: self.tick, key, tail, born }, whole);
            taken += 1;
        }
        let clusters = &self.clusters;
        let born = |m: &u32| clusters[*m as usize].as_ref().map_or(0, |c| c.born);
        for (key, tail) in touched {
            if let Some(g) = self.groups.get_mut(&key) {
                g.sort_by_key(born);
            }
            if let Some(g) = self.tails.get_mut(&tail) {
                g.sort_by_key(born);
            }
        }
        // Clusters made from now on come after those taken back.
        self.tick = self.tick.max(last_born);
        taken
    }

    /// Changes with every change of the clusters (a line observed, clusters restored): equal
    /// versions export the same clusters.
    pub fn version(&self) -> u64 {
        self.tick
    }

    /// Cluster one line of unexplained text. `None` when it has no token (blank).
    pub fn observe(&mut self, text: &[u8]) -> Option<Seen<'_>> {
        self.observe_if(text, false)
    }

    /// [`Clusterer::observe`]; with `needs_constant`, `None` also when the tokens say nothing
    /// but variables ([`says_nothing`]: the rest of a matched chain that is only a value says
    /// nothing new).
    pub fn observe_if(&mut self, text: &[u8], needs_constant: bool) -> Option<Seen<'_>> {
        let (idx, new) = self.observe_at(text, needs_constant)?;
        Some(self.seen(idx, new))
    }

    /// [`Clusterer::observe_if`], the cluster's index and whether it is new: what a caller
    /// that guards the clustering against a bug (`catch_unwind`) can carry out of it.
    pub fn observe_at(&mut self, text: &[u8], needs_constant: bool) -> Option<(u32, bool)> {
        // The tokenizer is taken out while the clusters are looked at (moving it moves a few
        // pointers, not its slots), and put back after.
        let mut tokenizer = std::mem::take(&mut self.tokenizer);
        let (line, whole) = tokenizer.tokens(text);
        let r = if needs_constant && says_nothing(line) { None } else { self.observe_tokens(line, whole) };
        self.tokenizer = tokenizer;
        r
    }

    /// The cluster at `idx` as [`Clusterer::observe_at`] gave it.
    pub fn seen(&self, idx: u32, new: bool) -> Seen<'_> {
        let c = self.clusters[idx as usize].as_ref().expect("just seen");
        Seen { id: c.id, template: &c.template, count: c.count, new }
    }

    /// Would [`Clusterer::observe_if`] cluster `text` (whatever the clusters are so far)? It
    /// does unless `text` has no token, or (with `needs_constant`) says nothing but variables.
    pub fn would_cluster(text: &[u8], needs_constant: bool, tokenizer: &mut Tokenizer) -> bool {
        let (t, _) = tokenizer.tokens(text);
        !(t.is_empty() || (needs_constant && says_nothing(t)))
    }

    /// Cluster `line`, whose [`tokens_hash`] is `whole`.
    fn observe_tokens(&mut self, line: &Tokens, whole: u64) -> Option<(u32, bool)> {
        if line.is_empty() {
            return None;
        }
        self.tick += 1;
        if let Some(&m) = self.exact.get(&whole)
            && let Some(c) = self.clusters[m as usize].as_mut()
            && c.tokens.spans == line.spans
            && c.tokens.buf == line.buf
        {
            c.count += 1;
            c.last_seen = self.tick;
            return Some((m, false));
        }
        let key = group_key(line);
        // A kind whose first words are values no mask knows (`ledger_dedup must be between 1
        // and …`, table names) gets a group for each value: a line that joins no template of
        // its first words is looked for among those of its last words (no group has key 0,
        // a line too short for one).
        let joined = self
            .groups
            .get(&key)
            .and_then(|g| self.best_of(newest(g).iter().copied(), line))
            .filter(|b| b.joins(line))
            .or_else(|| {
                self.tails
                    .get(&tail_key(line))
                    .and_then(|g| self.best_of(newest(g).iter().copied(), line))
                    .filter(|b| b.joins(line) && self.names_differ(b.m, line))
            });
        if let Some(Best { m, grows, .. }) = joined {
            let tick = self.tick;
            let c = self.clusters[m as usize].as_mut().expect("alive");
            c.count += 1;
            c.last_seen = tick;
            // Only a constant that differs changes the template: positions it already has as
            // `<*>` stay so, and the template is not rebuilt for every line of a kind.
            if grows {
                let mut merged = Tokens::default();
                let mut field = Vec::new();
                for i in 0..line.len() {
                    let (t, l) = (c.tokens.get(i), line.get(i));
                    if t == l {
                        merged.push(t);
                    } else if let Some(k) = same_key(t, l) {
                        // The punctuation both values end in stays after the `<*>`, as it
                        // does after a masked value (`force=false,` and `force=true,`); not a
                        // bracket, whose opening the `<*>` took (`mode=[fast]`).
                        let (a, b) = (&t[k..], &l[k..]);
                        let tail = a
                            .iter()
                            .rev()
                            .zip(b.iter().rev())
                            .take_while(|(x, y)| x == y && matches!(x, b',' | b';' | b'.' | b':' | b'!' | b'?'))
                            .count();
                        field.clear();
                        field.extend_from_slice(&t[..k]);
                        field.extend_from_slice(VAR);
                        field.extend_from_slice(&a[a.len() - tail..]);
                        merged.push(&field);
                    } else {
                        merged.push(VAR);
                    }
                }
                let old = tokens_hash(&c.tokens);
                c.tokens = merged;
                c.tokens.render(&mut c.template);
                let new = tokens_hash(&c.tokens);
                if self.exact.get(&old) == Some(&m) {
                    self.exact.remove(&old);
                }
                self.exact.insert(new, m);
            }
            return Some((m, false));
        }
        let mut template = String::new();
        line.render(&mut template);
        // The hash of its first line's tokens, bytes as read: the template's text for a line of
        // UTF-8, where the two are the same bytes. Not of the text shown, where bytes that are not
        // UTF-8 are all U+FFFD: `sensor \xff` and `sensor \xfe`, two kinds, had one id.
        let id = whole;
        // A line that would start a cluster with the id of one alive is that cluster's first line
        // again, whose template has since grown `<*>`s it does not join closely enough: it joins
        // that cluster (it matches every constant left in the template, which is not changed), so
        // that an id names one kind. Every cluster alive is looked at (by id): one beyond the
        // newest [`MAX_COMPARED`] of the group must not get a twin with its id.
        let first_line_of = self.ids.get(&id).copied();
        if let Some(m) = first_line_of {
            let tick = self.tick;
            let c = self.clusters[m as usize].as_mut().expect("alive");
            c.count += 1;
            c.last_seen = tick;
            return Some((m, false));
        }
        if self.alive >= self.cap {
            self.evict();
        }
        let tail = kept_tail(line);
        let born = self.tick;
        let idx = self.insert(
            Cluster { id, tokens: line.clone(), count: 1, template, last_seen: self.tick, key, tail, born },
            whole,
        );
        Some((idx, true))
    }

    /// Do the first words of `line` and of template `m` differ only where both are names
    /// (`ledger_dedup`, `public.orders_mv`, `BIT(orders_mv)`: a `_`, `.`, bracket or digit in
    /// them) or the template already has `<*>`? Only then does a line found by its end join a
    /// template whose start differs: plain words there are the kind's own (`Failed password
    /// for …` and `Accepted password for …` are two kinds, `Acquiring` and `Releasing` too).
    fn names_differ(&self, m: u32, line: &Tokens) -> bool {
        let c = self.clusters[m as usize].as_ref().expect("alive");
        (0..PREFIX_TOKENS.min(line.len())).all(|i| {
            let (t, l) = (c.tokens.get(i), line.get(i));
            t == l || t == VAR || (name(t) && name(l))
        })
    }

    /// The template of `members` that `line` is closest to: the most equal positions, then the
    /// most variables; none when each differs from it in a settled constant. A template the line
    /// cannot join ([`Best::joins`]) is let go at the position where too few are left to reach
    /// it: what it would have scored is never used, and a group of all-new words was compared in
    /// full, position by position.
    fn best_of(&self, members: impl Iterator<Item = u32>, line: &Tokens) -> Option<Best> {
        let mut best: Option<Best> = None;
        // The fewest equal positions that join, as `joins` reckons it.
        let need = (SIMILARITY * line.len() as f32).ceil() as usize;
        for m in members {
            let c = self.clusters[m as usize].as_ref().expect("group members are alive");
            // A group's key is a hash of the first tokens and the count: two lines of different
            // counts can share it (xxh3 mixes the seed in linearly for inputs of up to 8 bytes:
            // `> {` and `> x <*>` did), and a template of another length is no match.
            if c.tokens.len() != line.len() {
                continue;
            }
            let (mut same, mut grows, mut settled) = (0, false, false);
            let stable = c.count >= STABLE;
            for i in 0..line.len() {
                let (t, l) = (c.tokens.get(i), line.get(i));
                if t == l {
                    same += 1;
                } else if mask::is_source_location(t) || mask::is_source_location(l) {
                    // Panics at two places in the code are two errors, however alike their
                    // words (`thread <*> panicked at <file>:<*>:<*>:` is all a panic's first
                    // line says).
                    settled = true;
                    break;
                } else if let Some(k) = same_key(t, l) {
                    // One field with another value (`user=alice`, `user=bob`): the key says
                    // what varies, so the position is equal, and the template keeps the key
                    // (`user=<*>`). Counted unequal, two such words of five kept
                    // PostgreSQL's `connection authorized: user=… database=…` a kind for
                    // each user (found by a reader's generated logs of ten programs). A
                    // value that stayed one word for [`STABLE`] events is settled as a word
                    // is (`state=Running` 400 times, then `state=Failed`: another error).
                    if &t[k..] != VAR {
                        grows = true;
                        if stable && &l[k..] != VAR {
                            settled = true;
                            break;
                        }
                    }
                    same += 1;
                } else if t != VAR {
                    grows = true;
                    // A settled constant is a word: a variable with punctuation around it
                    // (`<*>,`, `(<*>)`) has shown it varies, and a line with another token
                    // there is the kind's (`synchronized to <*>, stratum <*>` after 300 IPs,
                    // then `LOCAL(0),`: a kind of its own, found on loghub's Thunderbird set).
                    // A word glued to a variable (`cpu=<*>`, `Worker(<*>)`, `Bar.java:<*>`)
                    // is still one (found by a second reader).
                    if stable && l != VAR && !punctuated_var(t) {
                        settled = true;
                        break;
                    }
                }
                if t != l && same + (line.len() - i - 1) < need {
                    settled = true;
                    break;
                }
            }
            if settled {
                continue;
            }
            let vars = c.tokens.vars as usize;
            if best.is_none_or(|b| same > b.same || (same == b.same && vars > b.vars)) {
                best = Some(Best { m, same, vars, grows });
            }
        }
        best
    }

    /// Keep `c` (a free slot first), findable by its group key and by `whole`, the hash of its
    /// tokens; its index.
    fn insert(&mut self, c: Cluster, whole: u64) -> u32 {
        let (key, tail, id) = (c.key, c.tail, c.id);
        let idx = match self.free.pop() {
            Some(i) => {
                self.clusters[i as usize] = Some(c);
                i
            }
            None => {
                self.clusters.push(Some(c));
                (self.clusters.len() - 1) as u32
            }
        };
        self.groups.entry(key).or_default().push(idx);
        self.ids.insert(id, idx);
        if tail != 0 {
            self.tails.entry(tail).or_default().push(idx);
        }
        self.exact.insert(whole, idx);
        self.alive += 1;
        idx
    }

    /// A new cap (a reload changed it): the clusters over it, the least recently seen, are
    /// dropped at once, and counted as dropped at the cap.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap.max(1);
        if self.alive > self.cap {
            self.evict_n(self.alive - self.cap);
            self.tick += 1;
        }
    }

    /// Drop the least recently seen [`EVICT_FRACTION`]th of the clusters (at least one).
    fn evict(&mut self) {
        self.evict_n((self.alive / EVICT_FRACTION).max(1));
    }

    /// Drop the `n` least recently seen clusters (`n` at least 1, at most those alive).
    fn evict_n(&mut self, n: usize) {
        let mut seen: Vec<u64> = self.clusters().map(|c| c.last_seen).collect();
        let (_, &mut limit, _) = seen.select_nth_unstable(n - 1);
        let mut dropped = 0;
        // The groups dropped from, each cut once after: a cut of the group per cluster dropped
        // was quadratic in a group of thousands (found by a reader of the clusterer).
        let mut gone = vec![false; self.clusters.len()];
        let mut touched: rustc_hash::FxHashSet<(u64, u64)> = Default::default();
        for i in 0..self.clusters.len() {
            if dropped == n {
                break;
            }
            if let Some(c) = &self.clusters[i]
                && c.last_seen <= limit
            {
                touched.insert((c.key, c.tail));
                let whole = tokens_hash(&c.tokens);
                if self.exact.get(&whole) == Some(&(i as u32)) {
                    self.exact.remove(&whole);
                }
                if self.ids.get(&c.id) == Some(&(i as u32)) {
                    self.ids.remove(&c.id);
                }
                self.clusters[i] = None;
                self.free.push(i as u32);
                gone[i] = true;
                dropped += 1;
            }
        }
        for (key, tail) in touched {
            if let Some(g) = self.groups.get_mut(&key) {
                g.retain(|&m| !gone[m as usize]);
                if g.is_empty() {
                    self.groups.remove(&key);
                }
            }
            if let Some(g) = self.tails.get_mut(&tail) {
                g.retain(|&m| !gone[m as usize]);
                if g.is_empty() {
                    self.tails.remove(&tail);
                }
            }
        }
        self.alive -= dropped;
        self.evicted += dropped as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::{CACHE_MAX_TEXT, CACHE_SLOTS, Clusterer, Levels, SavedCluster, Tokenizer, mask, tokens_hash};

    /// Regression (found by a second reader): `> {` (2 tokens) and `> x |{"level":"error"}` (3)
    /// share a group key (xxh3 mixes its seed, the token count, in linearly for inputs of up to
    /// 8 bytes), and the 2-token template was compared with the 3-token line past its end: an
    /// index out of bounds, which with several threads took the process down (exit 101).
    #[test]
    fn regression_lines_of_different_lengths_in_one_group_are_not_compared() {
        let mut tk = Tokenizer::default();
        let (a, b) = (b"> {".as_slice(), br#"> x |{"level":"error"}"#.as_slice());
        let ka = super::group_key(tk.tokens(a).0);
        let kb = super::group_key(tk.tokens(b).0);
        assert_eq!(ka, kb, "the collision this test pins");
        let (_, templates) = run(&["> {", r#"> x |{"level":"error"}"#]);
        assert_eq!(templates, ["> {", "> x <*>"]);
    }

    /// Lines in order → the group each lands in (by first appearance) and the final templates.
    fn run(lines: &[&str]) -> (Vec<usize>, Vec<String>) {
        let mut c = Clusterer::new(100);
        let mut ids = Vec::new();
        let mut order: Vec<u64> = Vec::new();
        for l in lines {
            let s = c.observe(l.as_bytes()).expect("tokens");
            let id = s.id;
            ids.push(order.iter().position(|&o| o == id).unwrap_or_else(|| {
                order.push(id);
                order.len() - 1
            }));
        }
        let templates = order
            .iter()
            .map(|id| c.clusters().find(|k| k.id == *id).map(|k| k.template.clone()).unwrap())
            .collect();
        (ids, templates)
    }

    #[test]
    fn template_table() {
        let cases: &[(&[&str], &[usize], &[&str])] = &[
            // variables masked: one cluster, nothing merged
            (
                &["failed to connect to 10.0.0.1:5690", "failed to connect to 10.0.0.2:5690"],
                &[0, 0],
                &["failed to connect to <*>:<*>"],
            ),
            // a word that varies becomes <*>
            (
                &["Invalid user admin from 1.2.3.4", "Invalid user guest from 1.2.3.5"],
                &[0, 0],
                &["Invalid user <*> from <*>"],
            ),
            // same length and prefix, too different: two clusters
            (
                &["actor 1 exited: channel closed", "actor 2 exited: out of memory"],
                &[0, 1],
                &["actor <*> exited: channel closed", "actor <*> exited: out of memory"],
            ),
            // half the words equal is not enough: a frame of common words is not a kind
            (&["Failed to parse config", "Failed to drop sink"], &[0, 1], &["Failed to parse config", "Failed to drop sink"]),
            // different lengths never merge
            (&["table t1 dropped", "table t1 dropped twice"], &[0, 1], &["table <*> dropped", "table <*> dropped twice"]),
            // different first words never merge
            (&["cannot open file", "could not open file"], &[0, 1], &["cannot open file", "could not open file"]),
            // unless both are names (found by the line's last words): a table name leads the kind
            (
                &[
                    "ledger_dedup must be between 1 and Created, or DEFAULT",
                    "trades_mv must be between 1 and Recovering, or DEFAULT",
                    "public.orders must be between 1 and Running, or DEFAULT",
                ],
                &[0, 0, 0],
                &["<*> must be between <*> and <*> or DEFAULT"],
            ),
            (
                &["Iceberg auctions_daily value Creating exceeds BIGINT", "Iceberg customers_agg value sinks exceeds BIGINT"],
                &[0, 0],
                &["Iceberg <*> value <*> exceeds BIGINT"],
            ),
            // plain words leading a line found by its end are the kind's own
            (
                &["Failed password for root from 10.0.0.1 port 22 ssh2", "Accepted password for root from 10.0.0.1 port 22 ssh2"],
                &[0, 1],
                &["Failed password for root from <*> port <*> <*>", "Accepted password for root from <*> port <*> <*>"],
            ),
            // panics at two places in the code are two errors (they were one cluster, `thread
            // <*> (<*>) panicked at <*>`); at two lines of one file, one
            (
                &[
                    "thread 'rw-main' (34) panicked at src/meta/src/barrier/worker.rs:862:51:",
                    "thread 'rw-streaming' (7) panicked at src/connector/src/sink/kinesis.rs:120:9:",
                    "thread 'rw-main' (35) panicked at src/meta/src/barrier/worker.rs:870:13:",
                ],
                &[0, 1, 0],
                &[
                    "thread <*> (<*>) panicked at src/meta/src/barrier/worker.rs:<*>:<*>:",
                    "thread <*> (<*>) panicked at src/connector/src/sink/kinesis.rs:<*>:<*>:",
                ],
            ),
        ];
        for (lines, groups, templates) in cases {
            let (g, t) = run(lines);
            assert_eq!(&g[..], *groups, "groups of {lines:?}");
            assert_eq!(t, *templates, "templates of {lines:?}");
        }
    }

    /// The rest of a matched chain is clustered only when it says something besides its values:
    /// `(text, clustered with needs_constant)`.
    #[test]
    fn rests_of_only_values_are_not_clustered() {
        let cases: &[(&str, bool)] = &[
            // The tail of a `{:?}` list after a capture that stopped at its first blank.
            ("97538, 57252]", false),
            // A struct and another after a known error's value: `<*> => <*>`.
            ("{ service: s3, path: a/b.data } => S3Error { code: \"AccessDenied\" }", false),
            ("42", false),
            ("(os error 111)", true),
            ("timeout after 30s", true),
            // A word in another script.
            ("连接失败 42", true),
        ];
        for &(text, want) in cases {
            let mut c = Clusterer::new(10);
            let mut t = Tokenizer::default();
            assert_eq!(c.observe_if(text.as_bytes(), true).is_some(), want, "{text}");
            assert_eq!(Clusterer::would_cluster(text.as_bytes(), true, &mut t), want, "{text}");
            // Nothing matched in the event: the whole of it is clustered, whatever it says.
            assert!(c.observe_if(text.as_bytes(), false).is_some(), "{text}");
        }
    }

    /// Regression (loghub's Thunderbird set, 568 of its 2,000 lines): after 300 lines
    /// `synchronized to <IP>, stratum 3` the masked `<*>,` was taken for a settled word, and
    /// `synchronized to LOCAL(0), stratum 10` started a kind of its own. A settled word still
    /// keeps another word out.
    #[test]
    fn regression_a_token_with_a_variable_in_it_is_no_settled_word() {
        let mut c = Clusterer::new(10);
        let mut id = 0;
        for i in 0..super::STABLE + 10 {
            id = c.observe(format!("synchronized to 10.0.{}.{}, stratum 3", i / 200, i % 200).as_bytes()).unwrap().id;
        }
        let local = c.observe(b"synchronized to LOCAL(0), stratum 10").unwrap();
        assert_eq!((local.id, local.new), (id, false), "{}", local.template);
        let mut c = Clusterer::new(10);
        for _ in 0..super::STABLE {
            id = c.observe(b"the client WindowsUpdateAgent started").unwrap().id;
        }
        assert_ne!(c.observe(b"the client SPP started").unwrap().id, id);
        // Nor does a word glued to a variable (found by a second reader).
        for (a, b) in [
            ("exceeded limit memory=512MB, killing task", "exceeded limit cpu=95%, killing task"),
            ("compaction failed for Epoch(1) on Worker(3) now", "compaction failed for Epoch(1) on Compactor(3) now"),
            (
                "ERROR at com.foo.Bar.baz(Bar.java:12) in thread main",
                "ERROR at com.foo.Qux.run(Qux.java:40) in thread main",
            ),
        ] {
            let mut c = Clusterer::new(10);
            for _ in 0..super::STABLE {
                id = c.observe(a.as_bytes()).unwrap().id;
            }
            assert_ne!(c.observe(b.as_bytes()).unwrap().id, id, "{b}");
        }
    }

    /// Regression (a reader's generated Celery log): a token with a variable in it among the
    /// first or last two made a kind for each of its words, `Task <name>[<*>] received` one for
    /// each task.
    #[test]
    fn regression_a_token_with_a_variable_in_it_keys_as_one() {
        let mut c = Clusterer::new(10);
        let lines = [
            "Task search.tasks.reindex[3f2a] received",
            "Task billing.tasks.charge[9c1e] received",
            "Task mail.send[77] received",
        ];
        let ids: Vec<u64> = lines.iter().map(|l| c.observe(l.as_bytes()).unwrap().id).collect();
        assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
        assert_eq!(c.clusters().count(), 1);
        // Whole words there still key apart.
        let mut c = Clusterer::new(10);
        let a = c.observe(b"Task reindex received").unwrap().id;
        assert_ne!(c.observe(b"Task charge received").unwrap().id, a);
    }

    /// Regression (a reader's generated PostgreSQL log): two `key=value` words with other
    /// values in five tokens left three equal positions, under 65%: a kind for each user and
    /// database. A field with the same key is an equal position, and the template keeps its key.
    #[test]
    fn regression_a_field_with_another_value_is_the_kinds() {
        let mut c = Clusterer::new(10);
        let want = "connection authorized: user=<*> database=<*> application_name=psql";
        let a = c.observe(b"connection authorized: user=alice database=shop application_name=psql").unwrap().id;
        let b = c.observe(b"connection authorized: user=bob database=crm application_name=psql").unwrap();
        assert_eq!((b.id, b.template), (a, want));
        let d = c.observe(b"connection authorized: user=carol database=hr application_name=psql").unwrap();
        assert_eq!((d.id, d.count, d.template), (a, 3, want));
        // A value that is not a field's stays a word that differs.
        let mut c = Clusterer::new(10);
        let a = c.observe(b"authorized: user alice database shop").unwrap().id;
        assert_ne!(c.observe(b"authorized: user bob database crm").unwrap().id, a);
        // The punctuation after both values stays, a closing bracket does not.
        let mut c = Clusterer::new(10);
        let a = c.observe(b"the unit stopped: code=exited, mode=[fast] status=1 then").unwrap().id;
        let b = c.observe(b"the unit stopped: code=killed, mode=[slow] status=9 then").unwrap();
        assert_eq!((b.id, b.template), (a, "the unit stopped: code=<*>, mode=<*> status=<*> then"));
        // Fields ending a line key by their key: a unit's exit with another code is its kind
        // (found by a fifth reader: two clusters that grew one template).
        let mut c = Clusterer::new(10);
        let a = c.observe(b"nginx.service: Main process exited, code=exited, status=1/FAILURE").unwrap().id;
        let b = c.observe(b"kubelet.service: Main process exited, code=killed, status=9/KILL").unwrap();
        assert_eq!((b.id, b.template), (a, "<*> Main process exited, code=<*>, status=<*>"));
        // Fields leading a line key as themselves: two operations are two kinds until lines
        // say otherwise (found by a fourth reader, merged when fields keyed as `op=<*>`).
        let mut c = Clusterer::new(10);
        let a = c.observe(b"op=insert rejected for table t1").unwrap().id;
        assert_ne!(c.observe(b"op=delete rejected for table t2").unwrap().id, a);
        // A value that stayed one word for 300 events is settled (found by the fourth reader).
        let mut c = Clusterer::new(10);
        let mut a = 0;
        for i in 0..super::STABLE {
            a = c.observe(format!("actor {i} state=Running cannot transition to stopped").as_bytes()).unwrap().id;
        }
        assert_ne!(c.observe(b"actor 7 state=Failed cannot transition to stopped").unwrap().id, a);
    }

    /// Regression (a reader's generated systemd log): a unit's name with a value in it
    /// (`postgresql@<*>:`) was no name, so its lines never joined the other units' kind found
    /// by its end.
    #[test]
    fn regression_a_name_with_a_value_in_it_is_a_name() {
        let mut c = Clusterer::new(10);
        let a = c.observe(b"nginx.service: Failed with result exit-code.").unwrap().id;
        let b = c.observe(b"postgresql@14-main.service: Failed with result exit-code.").unwrap();
        assert_eq!((b.id, b.template), (a, "<*> Failed with result exit-code."));
    }

    #[test]
    fn ids_come_from_the_template_not_the_order() {
        let a = "barrier collection failed for epoch 42";
        let b = "source reader exited: connection reset";
        let mut one = Clusterer::new(10);
        let ia = one.observe(a.as_bytes()).unwrap().id;
        let ib = one.observe(b.as_bytes()).unwrap().id;
        let mut two = Clusterer::new(10);
        assert_eq!(two.observe(b.as_bytes()).unwrap().id, ib);
        assert_eq!(two.observe(a.as_bytes()).unwrap().id, ia);
        assert_eq!(ia, xxhash_rust::xxh3::xxh3_64(b"barrier collection failed for epoch <*>"));
    }

    #[test]
    fn counts_and_template_growth_keep_the_id() {
        let mut c = Clusterer::new(10);
        let first = c.observe(b"session of alice closed").unwrap().id;
        let s = c.observe(b"session of bob closed").unwrap();
        assert_eq!((s.id, s.count, s.template, s.new), (first, 2, "session of <*> closed", false));
    }

    /// Regression (found by a second reader): a kind whose values are sometimes words and
    /// sometimes numbers grew `<*>`s its first line no longer joined closely enough (3 of 5
    /// positions), so that line started a second live cluster with the first one's id, its count
    /// back at 1, and `discover` reported the two under one id and the first template.
    /// Regression (found by a second reader): the id hashed the template as shown, where bytes
    /// that are not UTF-8 are U+FFFD, so `sensor \xff` and `sensor \xfe` (two kinds, in two
    /// groups) were two clusters alive with one id, and `discover` counted them as one.
    #[test]
    fn regression_kinds_that_differ_in_bytes_that_are_not_utf8_have_two_ids() {
        let mut c = Clusterer::new(100);
        let a = c.observe(b"sensor \xff").map(|s| s.id).unwrap();
        let b = c.observe(b"sensor \xfe").map(|s| s.id).unwrap();
        assert_ne!(a, b);
        assert_eq!(c.observe(b"sensor \xff").map(|s| (s.id, s.count)), Some((a, 2)));
        // A line of UTF-8 keeps the id it had: the hash of its template's text.
        assert_eq!(c.observe(b"sensor ok").map(|s| s.id), Some(xxhash_rust::xxh3::xxh3_64(b"sensor ok")));
    }

    /// A group of more kinds than [`super::MAX_COMPARED`]: a line is compared with the newest of
    /// them only, and a kind's first line met again beyond them still joins its cluster (no
    /// second cluster with its id).
    #[test]
    fn a_large_group_compares_its_newest_and_keeps_one_id_per_kind() {
        let mut c = Clusterer::new(10_000);
        // Six words of letters (no digit: a digit masks) that no two lines share by chance.
        let line = |i: u64| {
            let mut h = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let words: Vec<String> = (0..6)
                .map(|_| {
                    h ^= h << 13;
                    h ^= h >> 7;
                    h ^= h << 17;
                    (0..3).map(|k| (b'a' + ((h >> (5 * k)) % 26) as u8) as char).collect()
                })
                .collect();
            format!("failed to {}", words.join(" "))
        };
        let first = c.observe(line(0).as_bytes()).map(|s| s.id).unwrap();
        // Its template grows a `<*>`, so its first line is no longer found as a template.
        let grown = line(0).rsplit_once(' ').unwrap().0.to_owned() + " zzz";
        assert_eq!(c.observe(grown.as_bytes()).map(|s| (s.id, s.count)), Some((first, 2)));
        for i in 1..super::MAX_COMPARED as u64 * 3 {
            assert!(c.observe(line(i).as_bytes()).is_some_and(|s| s.count == 1), "{}", line(i));
        }
        let alive = c.alive();
        assert_eq!(c.observe(line(0).as_bytes()).map(|s| (s.id, s.count)), Some((first, 3)));
        assert_eq!(c.alive(), alive, "no second cluster for the first kind");
    }

    #[test]
    fn regression_a_kinds_first_line_again_joins_its_cluster_not_a_second_one_with_its_id() {
        let lines = [
            "disconnect user root from alpha",
            "disconnect user 1000 from alpha",
            "disconnect user 1000 from 10.0.0.1",
            "disconnect user root from alpha",
            "disconnect user 1001 from 10.0.0.2",
        ];
        let mut c = Clusterer::new(10);
        let seen: Vec<(u64, u64, String)> = lines
            .iter()
            .map(|l| {
                let s = c.observe(l.as_bytes()).unwrap();
                (s.id, s.count, s.template.to_owned())
            })
            .collect();
        let id = xxhash_rust::xxh3::xxh3_64(b"disconnect user root from alpha");
        assert!(seen.iter().all(|s| s.0 == id), "{seen:?}");
        assert_eq!(seen.iter().map(|s| s.1).collect::<Vec<_>>(), [1, 2, 3, 4, 5], "{seen:?}");
        assert_eq!(seen[4].2, "disconnect user <*> from <*>");
        assert_eq!(c.clusters().count(), 1);
    }

    /// The tokenizer gives what tokenizing gives, whatever its cache held before: texts that take
    /// each other's slots (more texts than slots, each seen again later), a text met again at
    /// once, and texts too long to keep.
    #[test]
    fn tokenizer_gives_what_tokenize_gives() {
        let mut tokenizer = Tokenizer::default();
        let texts: Vec<String> = (0..3 * CACHE_SLOTS)
            .map(|i| format!("job {i} failed on node-{} [{}, {}] \"q {i}\"", i % 7, i, i + 1))
            .chain(["".to_string(), "x".repeat(CACHE_MAX_TEXT), "y ".repeat(CACHE_MAX_TEXT), "z 1 ".repeat(CACHE_MAX_TEXT)])
            .collect();
        let mut want = mask::Tokens::default();
        for round in 0..2 {
            for t in texts.iter().chain(texts.iter().rev().take(50)) {
                mask::tokenize(t.as_bytes(), &mut want);
                let (got, whole) = tokenizer.tokens(t.as_bytes());
                assert_eq!((&got.buf, &got.spans, got.vars), (&want.buf, &want.spans, want.vars), "{t:?} (round {round})");
                assert_eq!(whole, tokens_hash(&want), "{t:?}");
            }
        }
    }

    #[test]
    fn the_cap_drops_the_least_recently_seen() {
        let mut c = Clusterer::new(32);
        // 32 kinds, then kind 0 seen again, then 8 new kinds: the cap holds, kind 0 survives.
        let kinds: Vec<String> = (0..40).map(|i| format!("kind{} happened here", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN".as_bytes()[i] as char)).collect();
        let kind0 = c.observe(kinds[0].as_bytes()).unwrap().id;
        for k in &kinds[1..32] {
            c.observe(k.as_bytes());
        }
        assert_eq!(c.alive(), 32);
        c.observe(kinds[0].as_bytes());
        for k in &kinds[32..] {
            let s = c.observe(k.as_bytes()).unwrap();
            assert!(s.new);
            assert!(c.alive() <= 32, "alive {} over the cap", c.alive());
        }
        assert!(c.evicted >= 8, "evicted {}", c.evicted);
        assert!(c.clusters().any(|k| k.id == kind0), "the recently seen kind was dropped");
        assert!(!c.clusters().any(|k| k.template == kinds[1]), "the least recently seen kind was kept");
        // An evicted kind seen again starts over with the same id.
        let again = c.observe(kinds[1].as_bytes()).unwrap();
        assert_eq!((again.id, again.count), (xxhash_rust::xxh3::xxh3_64(kinds[1].as_bytes()), 1));
    }

    #[test]
    fn regression_kinds_that_end_alike_do_not_gather_in_one_group() {
        // Each line a kind of its own, led by a plain word: none can be joined by its end, so
        // none is kept under it (all of them were, and each new line was compared with every
        // kind alive: 37 s for 300,000 lines at the default cap).
        let mut c = Clusterer::new(100_000);
        let word = |i: u32| (0..6).map(|k| char::from(b'a' + ((i >> (3 * k)) % 8 + 8 * (k % 2)) as u8)).collect::<String>();
        for i in 0..2_000 {
            c.observe(format!("{} stopped reading partition", word(i)).as_bytes());
        }
        assert!(c.alive() > 1_000, "{} kinds", c.alive());
        assert!(c.tails.is_empty(), "{} kept by their end", c.tails.values().map(Vec::len).sum::<usize>());
        // Led by a name, a kind is kept by its end, and the next name joins it there.
        c.observe(b"tbl_a stopped reading partition");
        let seen = c.observe(b"tbl_b stopped reading partition").unwrap();
        assert_eq!((seen.template, seen.count), ("<*> stopped reading partition", 2));
    }

    #[test]
    fn regression_a_state_saved_before_tail_groups_still_restores() {
        // A kind led by names, saved by a daemon that did not keep `tail`: restored, a line
        // that only its end finds still joins it.
        let mut one = Clusterer::new(10);
        let first = one.observe(b"ledger_dedup must be between 1 and Created, or DEFAULT").unwrap().id;
        let mut saved = one.export();
        assert!(saved[0].tail.is_some());
        let json = serde_json::to_string(&saved).unwrap();
        saved[0].tail = None;
        let old = serde_json::to_string(&saved).unwrap();
        assert!(!old.contains("\"tail\"") && json.contains("\"tail\""), "{old} / {json}");
        for state in [json, old] {
            let restored: Vec<SavedCluster> = serde_json::from_str(&state).unwrap();
            let mut two = Clusterer::new(10);
            assert_eq!(two.restore(&restored), 1);
            let seen = two.observe(b"trades_mv must be between 1 and Recovering, or DEFAULT").unwrap();
            assert_eq!((seen.id, seen.count, seen.new), (first, 2, false), "{state}");
        }
    }

    #[test]
    fn restored_clusters_keep_their_ids_groups_and_counts() {
        let lines = ["table t1 dropped by alice", "table t2 dropped by bob", "actor 7 is slow", "actor 8 is slow"];
        let mut one = Clusterer::new(10);
        for l in &lines {
            one.observe(l.as_bytes());
        }
        let saved = one.export();
        assert_eq!(saved.len(), 2);
        let mut two = Clusterer::new(10);
        assert_eq!(two.restore(&saved), 2);
        assert_eq!(two.restore(&saved), 0, "clusters alive are not taken twice");
        for (l, count) in [("table t3 dropped by carol", 3), ("actor 9 is slow", 3), ("table t4 dropped by dave", 4)] {
            let a = one.observe(l.as_bytes()).map(|s| (s.id, s.count, s.template.to_owned()));
            let b = two.observe(l.as_bytes()).map(|s| (s.id, s.count, s.template.to_owned()));
            assert_eq!(a, b, "{l}");
            assert_eq!(b.unwrap().1, count);
        }
        // Past the cap, the most recently seen are taken.
        let mut small = Clusterer::new(1);
        assert_eq!(small.restore(&two.export()), 1);
        assert_eq!(small.clusters().next().unwrap().template, "table <*> dropped by <*>");
        // Regression (found by a second reader): those left out were not counted as dropped.
        assert_eq!(small.evicted, two.export().len() as u64 - 1);
    }

    /// Regression (found by a fourth reader): a state saved before a token with a variable in it
    /// keyed as `<*>` kept its clusters under keys no line gives now, and their kinds started
    /// second clusters after an upgrade. Such a cluster is keyed again from its template.
    #[test]
    fn regression_a_state_keyed_the_old_way_is_keyed_again() {
        let mut one = Clusterer::new(10);
        let id = one.observe(b"Task search.tasks.reindex[3f2a] received").unwrap().id;
        let mut saved = one.export();
        // As the build before saved it: the first two tokens hashed as they are, no `keys`.
        saved[0].group = super::id_text(xxhash_rust::xxh3::xxh3_64_with_seed(b"Task search.tasks.reindex[<*>]", 3));
        saved[0].tail = Some(super::id_text(0));
        saved[0].keys = None;
        let mut two = Clusterer::new(10);
        assert_eq!(two.restore(&saved), 1);
        let s = two.observe(b"Task billing.tasks.charge[9c1e] received").unwrap();
        assert_eq!((s.id, s.count, s.new), (id, 2, false), "{}", s.template);
        assert_eq!(two.export()[0].keys, Some(super::KEYS));
    }

    /// Regression (found by a reader of the clusterer): the clusters were taken back in the order
    /// they were last seen, and a line as close to two templates joins the one made first: after
    /// a restart it joined the other (`zorp quux blat wobble` is 3 of 4 words of both), another
    /// id, template and count than one run gives. A state without `born` is taken in its order.
    #[test]
    fn regression_a_tie_after_a_restart_goes_as_in_one_run() {
        let lines = ["zorp quux blat frob", "zorp quux wibble wobble", "zorp quux blat frob"];
        let mut one = Clusterer::new(10);
        for l in &lines {
            one.observe(l.as_bytes());
        }
        let saved = one.export();
        assert!(saved.iter().all(|s| s.born.is_some()));
        let mut two = Clusterer::new(10);
        assert_eq!(two.restore(&saved), 2);
        let tie = b"zorp quux blat wobble";
        let a = one.observe(tie).map(|s| (s.id, s.count, s.template.to_owned()));
        let b = two.observe(tie).map(|s| (s.id, s.count, s.template.to_owned()));
        assert_eq!(a, b);
        assert_eq!(b.unwrap().2, "zorp quux blat <*>");
        // Made after the restart, a cluster comes after those taken back.
        let new = two.observe(b"snarf quux blat frob wobble").map(|s| (s.id, s.new)).unwrap();
        assert!(new.1, "a new kind");
        let born = |id: u64| two.clusters().find(|c| c.id == id).unwrap().born;
        assert!(two.clusters().all(|c| c.id == new.0 || c.born < born(new.0)));
        let old: Vec<SavedCluster> = saved.into_iter().map(|s| SavedCluster { born: None, ..s }).collect();
        let json = serde_json::to_string(&old).unwrap();
        assert!(!json.contains("\"born\""), "{json}");
        assert_eq!(Clusterer::new(10).restore(&serde_json::from_str::<Vec<SavedCluster>>(&json).unwrap()), 2);
    }

    /// Regression (found by a reader of the clusterer): a storm of kinds that share their first
    /// words scanned the whole group for a kind's first line at each new cluster, and cut the
    /// group once per cluster dropped at the cap: quadratic. Ids stay unique, and a kind's first
    /// line joins its cluster, however large the group.
    #[test]
    fn regression_a_group_of_thousands_keeps_one_cluster_per_id() {
        let mut c = Clusterer::new(1000);
        // Six words of letters of their own a line (as a storm of new kinds has: none masked).
        let word = |mut n: u64| -> String {
            (0..6)
                .map(|_| {
                    let c = char::from(b'a' + (n % 26) as u8);
                    n /= 26;
                    c
                })
                .collect()
        };
        let line = |i: u32| {
            let w: Vec<String> = (1..=6u64).map(|k| word(u64::from(i) * 2_654_435_761 * k % 308_915_776)).collect();
            format!("failed to {}", w.join(" "))
        };
        let mut first = std::collections::HashMap::new();
        for i in 0..3000 {
            let s = c.observe(line(i).as_bytes()).unwrap();
            if s.new {
                first.insert(s.id, i);
            }
        }
        let ids: Vec<u64> = c.clusters().map(|cl| cl.id).collect();
        let unique: std::collections::HashSet<u64> = ids.iter().copied().collect();
        assert_eq!(ids.len(), unique.len(), "one cluster per id");
        assert!(c.alive() <= 1000 && c.evicted > 0, "{} alive, {} dropped", c.alive(), c.evicted);
        for cl in c.clusters().take(50).map(|cl| cl.id).collect::<Vec<_>>() {
            let Some(&i) = first.get(&cl) else { continue };
            assert_eq!(c.observe(line(i).as_bytes()).unwrap().id, cl, "line {i}");
        }
    }

    /// A new cap drops the least recently seen clusters over it at once, counts them, and changes
    /// the version (the state is written again); a cap at or above the clusters alive drops none.
    #[test]
    fn set_cap_drops_the_least_recently_seen_over_it() {
        let mut c = Clusterer::new(100);
        for w in ["alpha", "bravo", "charlie", "delta", "echo"] {
            c.observe(format!("{w} went away").as_bytes());
        }
        c.observe(b"alpha went away");
        let v = c.version();
        c.set_cap(5);
        c.set_cap(50);
        assert_eq!((c.alive(), c.evicted, c.version()), (5, 0, v), "nothing over the cap");
        c.set_cap(2);
        assert_eq!((c.alive(), c.evicted), (2, 3));
        assert_ne!(c.version(), v);
        let mut left: Vec<&str> = c.clusters().map(|k| k.template.as_str()).collect();
        left.sort_unstable();
        assert_eq!(left, ["alpha went away", "echo went away"]);
        c.set_cap(0);
        assert_eq!((c.cap(), c.alive(), c.evicted), (1, 1, 4), "a cap of at least 1");
        assert_eq!(c.clusters().next().unwrap().template, "alpha went away");
    }

    /// Regression (found by a second reader): tokens that are not UTF-8 were saved with U+FFFD in
    /// them, and the same line after a restart made the token a variable (`<*> machine …`).
    #[test]
    fn regression_tokens_that_are_not_utf8_are_restored_as_they_were() {
        let line: &[u8] = b"caf\xe9 machine broke down badly";
        let mut one = Clusterer::new(10);
        one.observe(line);
        let text = serde_json::to_string(&one.export()).unwrap();
        let saved: Vec<SavedCluster> = serde_json::from_str(&text).unwrap();
        assert_eq!(saved[0].raw, [(0, b"caf\xe9".to_vec())]);
        let mut two = Clusterer::new(10);
        assert_eq!(two.restore(&saved), 1);
        let a = one.observe(line).map(|s| (s.id, s.count, s.template.to_owned()));
        let b = two.observe(line).map(|s| (s.id, s.count, s.template.to_owned()));
        assert_eq!(a, b);
        assert_eq!(b.unwrap().1, 2);
        // A state written without `raw` still restores.
        let without = text.replace(r#""raw":[[0,[99,97,102,233]]],"#, "");
        let old: Vec<SavedCluster> = serde_json::from_str(&without).unwrap();
        assert!(old[0].raw.is_empty(), "{text}");
        assert_eq!(Clusterer::new(10).restore(&old), 1);
    }

    #[test]
    fn levels_in_a_config_name_their_values() {
        #[derive(serde::Deserialize)]
        struct C {
            #[allow(dead_code)]
            levels: Levels,
        }
        let err = |t: &str| toml::from_str::<C>(t).err().map(|e| e.message().to_owned()).unwrap_or_default();
        assert_eq!(toml::from_str::<C>(r#"levels = "any""#).unwrap().levels, Levels::Any);
        let values = r#"expected one of the strings "off", "error", "warn", "any""#;
        assert_eq!(err("levels = 1"), format!("invalid type: integer `1`, {values}"));
        assert_eq!(err(r#"levels = ["warn"]"#), format!("invalid type: sequence, {values}"));
        let word = r#"levels = "warning""#;
        assert_eq!(err(word), "unknown variant `warning`, expected one of `off`, `error`, `warn`, `any`");
    }

    #[test]
    fn level_markers() {
        let cases: &[(&str, Levels, bool)] = &[
            ("2026-03-02T08:00:00.123456789Z  WARN risingwave_meta: slow", Levels::Warn, true),
            ("2026-03-02T08:00:00.123456789Z  WARN risingwave_meta: slow", Levels::Error, false),
            ("2026-03-02T08:00:00.123456789Z ERROR risingwave_meta: failed", Levels::Error, true),
            ("2026-03-02T08:00:00.123456789Z  INFO risingwave_meta: got ERROR from peer", Levels::Warn, false),
            ("2026-03-02T08:00:00.123456789Z DEBUG risingwave_meta: x", Levels::Warn, false),
            // kubectl --timestamps: the runtime's time first, the level after RisingWave's own
            ("2026-03-02T08:00:00.1Z 2026-03-02T08:00:00.123456789Z  WARN risingwave_meta: x", Levels::Warn, true),
            ("2026-03-02T08:00:00.1Z 2026-03-02T08:00:00.123456789Z  INFO risingwave_meta: x", Levels::Warn, false),
            ("[pod/meta-0/meta] 2026-03-02T08:00:00.123456789Z ERROR x: y", Levels::Error, true),
            ("[pod/meta-0/meta] thread 'main' panicked at src/x.rs:1:2:", Levels::Error, true),
            ("thread 'tokio-runtime-worker' panicked at src/x.rs:1:2:", Levels::Error, true),
            (r#"{"timestamp":"2026-03-02T08:00:00Z","level":"WARN","fields":{"message":"x"}}"#, Levels::Warn, true),
            (r#"{"timestamp":"2026-03-02T08:00:00Z","level":"WARN","fields":{"message":"x"}}"#, Levels::Error, false),
            (r#"{"timestamp":"2026-03-02T08:00:00Z","level":"INFO","fields":{"message":"ERROR "}}"#, Levels::Warn, false),
            ("081109 203615 148 WARN dfs.DataNode: x", Levels::Warn, true),
            ("081109 203615 148 INFO dfs.DataNode: x", Levels::Warn, false),
            // kubectl --prefix before a text line with a Debug struct: still a text line
            ("[pod/meta-0/meta] 2026-03-02T08:00:00.1Z ERROR x: Foo { a: 1 }", Levels::Warn, true),
            ("[pod/meta-0/meta] 2026-03-02T08:00:00.1Z  INFO x: Foo { a: 1 } ERROR y", Levels::Warn, false),
            // kubectl --timestamps before a JSON line
            (r#"2026-03-02T08:00:00.1Z {"level":"ERROR","fields":{"message":"x"}}"#, Levels::Error, true),
            (r#"[pod/m/m] {"level":"warning","fields":{"message":"x"}}"#, Levels::Warn, true),
            // ANSI colours (a terminal's copy, risedev's pane): they were never marked, so no
            // coloured WARN or ERROR line was clustered
            ("\x1b[2m2026-03-02T08:00:00.1Z\x1b[0m \x1b[33m WARN\x1b[0m \x1b[2mx\x1b[0m: y", Levels::Warn, true),
            ("\x1b[2m2026-03-02T08:00:00.1Z\x1b[0m \x1b[31mERROR\x1b[0m \x1b[2mx\x1b[0m: y", Levels::Error, true),
            ("\x1b[2m2026-03-02T08:00:00.1Z\x1b[0m \x1b[33m WARN\x1b[0m \x1b[2mx\x1b[0m: y", Levels::Error, false),
            ("[pod/m/m] 2026-03-02T08:00:00.1Z \x1b[2m2026-03-02T08:00:00.1Z\x1b[0m \x1b[31mERROR\x1b[0m x: y", Levels::Error, true),
            // regression (found by a second reader): `grep --color=always WARN` puts `\x1b[K`
            // before the word, and a coloured prefix before a JSON object hid the object: the
            // events were dropped unclustered.
            ("2026-03-02T08:00:01.8Z  \x1b[01;31m\x1b[KWARN\x1b[m\x1b[K risingwave_meta::x: y", Levels::Warn, true),
            ("2026-03-02T08:00:01.8Z  \x1b[01;31m\x1b[KWARN\x1b[m\x1b[K risingwave_meta::x: y", Levels::Error, false),
            ("2026-03-02T08:00:01.8Z  INFO risingwave_meta::x: \x1b[01;31m\x1b[KWARN\x1b[m\x1b[K", Levels::Warn, false),
            ("\x1b[0m{\"level\":\"WARN\",\"fields\":{\"message\":\"x\"}}", Levels::Warn, true),
            (
                "\x1b[32mrisingwave-meta-0\x1b[0m \x1b[34mmeta\x1b[0m {\"level\":\"ERROR\",\"fields\":{\"message\":\"x\"}}",
                Levels::Error,
                true,
            ),
            (
                "\x1b[36mrisingwave-meta-1  |\x1b[0m {\"level\":\"INFO\",\"fields\":{\"message\":\"WARN x\"}}",
                Levels::Warn,
                false,
            ),
            ("a lemma WARNINGS and a storm ERRORS", Levels::Warn, false),
            // A line that starts with its level and a colon (Python's `logging`, uvicorn).
            ("ERROR:root:UDF gcd failed", Levels::Error, true),
            ("WARNING:    slow batch", Levels::Warn, true),
            ("WARNING:    slow batch", Levels::Error, false),
            ("CRITICAL:__main__:gone", Levels::Error, true),
            ("ERRORS: 3", Levels::Warn, false),
            ("ERROR in the plan", Levels::Warn, false),
            // Other programs' level words: Python's `WARNING`, `CRITICAL`, bracketed, tabbed
            ("2024-01-01 12:00:00,123 - root - WARNING - x", Levels::Warn, true),
            ("2024-01-01 12:00:00,123 - root - WARNING - x", Levels::Error, false),
            ("2024-01-01 12:00:00,123 - root - CRITICAL - x", Levels::Error, true),
            ("2024-01-01 12:00:00.123 [main] [WARN] c.e.Foo - x", Levels::Warn, true),
            ("2024-01-01T12:00:00.000Z\tERROR\tzapcore/x.go:12\tfailed", Levels::Error, true),
            ("2024-01-01 12:00:00 ERR: x", Levels::Error, true),
            // Without an upper-case `R`, framing would not find them: not taken
            ("2024-01-01 12:00:00 FATAL x", Levels::Error, false),
            ("2024-01-01 12:00:00 Warning x", Levels::Warn, false),
            ("2024-01-01 12:00:00 [error] x", Levels::Error, false),
            // Other JSON loggers' keys, blanks around the colon, pino's numbers, ECS's nesting
            (r#"{"level": "error", "message": "x"}"#, Levels::Error, true),
            (r#"{"level" : "warning", "msg": "x"}"#, Levels::Warn, true),
            (r#"{"severity":"ERROR","message":"x"}"#, Levels::Error, true),
            (r#"{"levelname": "WARNING", "message": "x"}"#, Levels::Warn, true),
            (r#"{"levelname": "WARNING", "message": "x"}"#, Levels::Error, false),
            (r#"{"lvl":"eror","msg":"x"}"#, Levels::Error, true),
            (r#"{"log.level":"warn","message":"x"}"#, Levels::Warn, true),
            (r#"{"log":{"level":"error"},"message":"x"}"#, Levels::Error, true),
            (r#"{"level":50,"msg":"x"}"#, Levels::Error, true),
            (r#"{"level":40,"msg":"x"}"#, Levels::Warn, true),
            (r#"{"level":40,"msg":"x"}"#, Levels::Error, false),
            (r#"{"level":30,"msg":"error"}"#, Levels::Warn, false),
            (r#"{"level":"info","msg":"x","error":"y","levels":"error"}"#, Levels::Warn, false),
            (r#"{"level":"info","msg":"\"level\":\"error\""}"#, Levels::Warn, false),
            // Behind compose's, stern's and a log viewer's prefixes, indented or quoted
            (r#"meta-1  | {"level":"WARN","fields":{"message":"x"}}"#, Levels::Warn, true),
            (r#"meta-0 meta {"level":"ERROR","fields":{"message":"x"}}"#, Levels::Error, true),
            (r#"2026-12-05 10:00:00.123 | {"level":"error","msg":"x"}"#, Levels::Error, true),
            ("2026-12-05 10:00:00.123\t{\"level\":\"warn\",\"msg\":\"x\"}", Levels::Warn, true),
            (r#"    {"level":"error","msg":"x"}"#, Levels::Error, true),
            (r#"> {"level":"error","msg":"x"}"#, Levels::Error, true),
            (r#"Dec  5 10:00:00 node-1 meta[123]: {"level":"ERROR","fields":{"message":"x"}}"#, Levels::Error, true),
            (r#"meta-1  | {"level":"INFO","fields":{"message":"ERROR"}}"#, Levels::Warn, false),
            // A map printed by `{:?}` in a text line's message is no JSON line
            (r#"2026-03-02T08:00:00Z  INFO x: props {"level": "error"}"#, Levels::Warn, false),
            (r#"some more text {"level": "error"}"#, Levels::Error, false),
            ("plain text without a level", Levels::Warn, false),
            ("plain text without a level", Levels::Any, true),
            ("2026-03-02T08:00:00Z ERROR x", Levels::Off, false),
        ];
        for &(line, lv, want) in cases {
            assert_eq!(super::level_marker(line.as_bytes(), lv), want, "{lv:?} {line:?}");
        }
    }

    #[test]
    fn foreign_markers() {
        let cases: &[(&str, Levels, bool)] = &[
            // Go programs: klog's severity letter, logfmt's `level` (any case, log15's `eror`,
            // zap's `panic`), alone, behind `kubectl --prefix` or `--timestamps`
            ("E1205 07:20:22.123456       1 reflector.go:138] failed", Levels::Error, true),
            ("W1205 07:20:22.123456       1 warnings.go:70] deprecated", Levels::Warn, true),
            ("W1205 07:20:22.123456       1 warnings.go:70] deprecated", Levels::Error, false),
            ("I1205 07:20:22.123456       1 server.go:10] ERROR in the message", Levels::Warn, false),
            ("F1205 07:20:22.123456       1 server.go:10] fatal", Levels::Error, true),
            ("[pod/op-0/manager] E1205 07:20:22.1 1 x.go:1] failed", Levels::Error, true),
            ("2026-12-05T07:20:22.1Z E1205 07:20:22.1 1 x.go:1] failed", Levels::Error, true),
            (r#"time="2026-03-02T08:00:00Z" level=error msg="x""#, Levels::Error, true),
            ("level=warn ts=2026-03-02T08:00:01Z msg=x", Levels::Warn, true),
            ("level=warning msg=x", Levels::Error, false),
            ("time=2026-03-02T08:00:00Z level=WARN msg=x", Levels::Warn, true),
            ("lvl=eror msg=x", Levels::Error, true),
            ("level=panic msg=x", Levels::Error, true),
            (r#"level=info msg="ERROR somewhere""#, Levels::Warn, false),
            ("2026-12-05T07:20:22.1Z level=error msg=x", Levels::Error, true),
            ("compaction level=error is not a pair of every token", Levels::Error, false),
            // Lines that start with their date and time: any level word among the first words
            ("2024-01-01 12:00:00 FATAL x", Levels::Error, true),
            ("2024-01-01 12:00:00 Warning x", Levels::Warn, true),
            ("2024-01-01 12:00:00 Warning x", Levels::Error, false),
            // nginx's error log, Go's `log`: a date with slashes
            ("2024/01/01 12:00:00 [error] x", Levels::Error, true),
            ("2024/01/01 12:00:00 [info] x", Levels::Warn, false),
            // Kafka's and log4j's `[%d]`, env_logger's `[<time> <LEVEL> <target>]`
            ("[2024-01-01 12:00:00,123] WARN [Consumer clientId=rw] x (o.a.k.NetworkClient)", Levels::Warn, true),
            ("[2024-01-01 12:00:00,123] INFO [KafkaServer id=1] started", Levels::Warn, false),
            ("[2024-01-01T12:00:00Z ERROR my_crate::sink] x", Levels::Error, true),
            ("2026-03-02 08:00:04.123 UTC [123] FATAL:  password authentication failed", Levels::Error, true),
            ("2026-03-02 08:00:04.123 UTC [123] LOG:  checkpoint starting: time", Levels::Warn, false),
            ("2024-01-01 12:00:00,123 - app - INFO - no ERROR left", Levels::Warn, false),
            ("[pod/pg-0/pg] 2024-01-01 12:00:00 [error] x", Levels::Error, true),
            // Other lines as the marks' look reads them
            ("2026-03-02T08:00:00.1Z ERROR x: y", Levels::Error, true),
            ("2026-03-02T08:00:00.1Z  INFO x: FATAL y", Levels::Error, false),
            ("plain ERROR text", Levels::Error, true),
            ("E1205 07:20:22.1 1 x.go:1] failed", Levels::Any, true),
        ];
        for &(line, lv, want) in cases {
            assert_eq!(super::foreign_marker(line.as_bytes(), lv), want, "{lv:?} {line:?}");
        }
    }

    #[test]
    fn levels() {
        let cases: &[(Levels, Option<&str>, bool, bool)] = &[
            (Levels::Warn, Some(" WARN"), false, true),
            (Levels::Warn, Some("ERROR"), false, true),
            (Levels::Warn, Some("warning"), false, true),
            (Levels::Warn, Some(" INFO"), false, false),
            (Levels::Warn, None, false, false),
            (Levels::Warn, None, true, true),
            (Levels::Error, Some(" WARN"), false, false),
            (Levels::Error, Some("FATAL"), false, true),
            (Levels::Any, None, false, true),
            (Levels::Any, Some("DEBUG"), false, true),
            (Levels::Off, Some("ERROR"), true, false),
            (Levels::Error, Some("err"), false, true),
            (Levels::Error, Some("Crit"), false, true),
            (Levels::Error, Some("critical "), false, true),
            (Levels::Error, Some("fatal"), false, true),
            (Levels::Warn, Some("Warning"), false, true),
            (Levels::Warn, Some("WARNS"), false, false),
            (Levels::Warn, Some("errors"), false, false),
            (Levels::Warn, Some("notice"), false, false),
            (Levels::Warn, Some(""), false, false),
        ];
        for &(lv, level, panic, want) in cases {
            assert_eq!(lv.wants(level.map(str::as_bytes), panic), want, "{lv:?} {level:?} panic={panic}");
        }
        let labels = [
            (Some("ERROR"), "error"),
            (Some(" crit"), "error"),
            (Some("WARNING"), "warn"),
            (Some(" INFO"), "info"),
            (Some("trace"), "debug"),
            // Regression: a NOTICE event was counted as one without a level.
            (Some("notice"), "info"),
            (Some("verbose"), "none"),
            (None, "none"),
        ];
        for (level, want) in labels {
            assert_eq!(super::level_label(level.map(str::as_bytes), false), want, "{level:?}");
        }
        assert_eq!(super::level_label(Some(b"INFO"), true), "error");
        use crate::catalog::Severity;
        for (level, panic, want) in [
            (Some("ERROR"), false, Severity::Error),
            (Some("err"), false, Severity::Error),
            (Some("FATAL"), false, Severity::Critical),
            (Some("fatal"), false, Severity::Critical),
            (Some("CRITICAL"), false, Severity::Critical),
            (Some("dpanic"), false, Severity::Critical),
            (Some("EMERG"), false, Severity::Critical),
            (None, true, Severity::Error),
            (Some("INFO"), true, Severity::Error),
            (Some("WARN"), false, Severity::Warning),
            (Some("NOTICE"), false, Severity::Info),
            (None, false, Severity::Info),
        ] {
            let level = level.map(str::as_bytes);
            let label = super::level_label(level, panic);
            assert_eq!(super::level_severity(label, level, panic, false), want, "{level:?} {panic}");
        }
        // PostgreSQL's FATAL ends a session: an error; its PANIC is critical.
        assert_eq!(super::level_severity("error", Some(b"FATAL"), false, true), Severity::Error);
        assert_eq!(super::level_severity("error", Some(b"PANIC"), false, true), Severity::Critical);
    }
}
