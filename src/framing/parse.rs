//! Log-line layouts: what is prefix, what is header, where message and fields are.
//!
//! Owns the per-line classification the framer runs on every physical line (cheap: a look at
//! the first bytes) and the full parse it runs only on events that are written out. Layouts
//! (see `docs/LOG_FORMATS.md`):
//! - paste prefixes, before anything else and only where a full header follows them: leading
//!   whitespace, markdown quotes (`> `) and table gutters (`| `, `  |   | `) (a quote is sticky:
//!   the quoted lines that follow lose their `>` too);
//! - prefixes, outermost first: `kubectl logs --prefix` (`[pod/<pod>/<container>] `), docker
//!   compose (`<service>  | `), stern (`<pod> <container> `, learnt from a line where a header
//!   follows it, then sticky), a log viewer's time (`<date> <time> | `), CRI
//!   (`<ts> stdout|stderr F|P `), `kubectl logs --timestamps` (`<ts> `); ANSI SGR codes are
//!   removed before any of this (also codes whose ESC a paste dropped, [`has_leftovers`]);
//! - envelopes, a line carried in another record: Docker's json-file records ([`docker_record`])
//!   and JSON envelopes (`stern -o json`, `journalctl -o json`: [`envelope_record`]), read as the
//!   line they carry;
//! - RisingWave text: `<ts> <LEVEL:5> [<thread> ][<span>{<fields>}:...: ]<target>: <message>[ <k>=<v>]*`;
//! - RisingWave JSON: one object per line (`timestamp`, `level`, `fields`, `target`, `spans`);
//! - panics: `thread '<name>' [(<id>) ]panicked at <file>:<l>:<c>:`, old `panicked at '<msg>', ...`.
//!
//! Contract: nothing here fails. A line that fits no layout is `plain`; a JSON line that does not
//! parse is `plain` with a parse error noted.

use std::ops::Range;

/// What a line starts with, once prefixes are removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// A RisingWave text header (timestamp and level).
    RisingWave,
    /// A JSON object.
    Json,
    /// `thread '...' panicked at ...`.
    Panic,
    /// A date and time, then a blank, and no header annotail parses: a line of another program's
    /// log (log4j's `2015-10-18 18:01:47,978 INFO [main] …`, Python's `logging`); or a line that
    /// starts with its level word and a colon ([`leveled_line`]: Python's `logging` by default,
    /// uvicorn, psql). Plain text, but always an event of its own: such a line after a header
    /// that happens to parse (the same log's `ERROR` line, whose five letters fill RisingWave's
    /// level column) is not a continuation of it.
    Stamped,
    /// A klog (or glog) line: `E1205 07:20:22.123456       1 reflector.go:138] …`
    /// ([`golog::klog`](super::golog::klog)).
    Klog,
    /// A logfmt line with a level: `time=… level=error msg="…" k=v`
    /// ([`golog::logfmt`](super::golog::logfmt)).
    Logfmt,
    /// None: a continuation line, or a plain line.
    None,
}

/// Prefixes found on one physical line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prefix {
    /// Byte where the content (after all prefixes) starts.
    pub content: usize,
    /// `[pod/<pod>/<container>] ` → (pod, container).
    pub kubectl: Option<(Range<usize>, Range<usize>)>,
    /// The container runtime's timestamp (CRI or `kubectl --timestamps`).
    pub runtime_ts: Option<Range<usize>>,
    /// CRI stream (`stdout`/`stderr`) and whether the record is partial (`P`).
    pub cri: Option<(Range<usize>, bool)>,
    /// The line was pasted as a table row (`| <line> |`): a closing gutter is not its text.
    pub table_row: bool,
    /// The line is a Docker json-file record, read as the CRI record it stands for
    /// ([`docker_record`]).
    pub docker: bool,
    /// The line is a JSON envelope, read as the line it carries ([`envelope_record`]).
    pub envelope: bool,
    /// A syslog or journal prefix's host, ident and `[pid]` ([`Syslog::source`]): an event's
    /// lines are one writer's.
    pub syslog: Option<Range<usize>>,
}

/// Sticky facts about a stream, learnt from earlier lines.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamState {
    /// Lines carry a `kubectl logs --timestamps` timestamp, continuation lines too.
    pub kubectl_ts: bool,
    /// Lines carry stern's `<pod> <container> ` prefix, continuation lines too.
    pub stern: bool,
    /// Lines carry `grep -n`'s line number (`12:`, `13-` for a line of context): the last one
    /// taken off.
    pub grep_line: Option<u64>,
    /// Lines carry the file name grep prints before each line when it searches several files
    /// (`grep -H`, `grep -r`, `zgrep`, `rg` piped: `<path>:`, `<path>-` on a line of context):
    /// the last one taken off, as its length and a hash of its bytes.
    pub grep_file: Option<(usize, u64)>,
    /// The last header was pasted inside a markdown quote: the lines that follow it start with
    /// `>` too, which is not part of their text.
    pub quote: bool,
    /// The paste prefix (indent, quotes) of the last header, as its length and a hash of its
    /// bytes: the lines of its event that start with the same bytes have it too.
    pub paste: Option<(usize, u64)>,
    /// Lines carry a syslog or journal prefix (`journalctl -u risingwave`, `/var/log/syslog`),
    /// continuation lines too: journald stores each line of a message as an entry of its own.
    pub syslog: bool,
}

/// Longest paste prefix looked at (whitespace, `>` and `|`): real ones are a few bytes; a line
/// indented further is a continuation, not a pasted header.
const MAX_PASTE_LEAD: usize = 64;

/// Length of the `YYYY-MM-DDTHH:MM:SS[.fraction]` part at the start of `s` (a space or `t` for the
/// `T`; `,` for the `.`), the zone not looked at.
///
/// Eight bytes at a time: it runs several times on every line that is framed (the stream's
/// prefixes, then the header), and byte by byte it cost about 750 instructions an event with
/// `--unknown any`.
#[inline]
fn date_time_len(s: &[u8]) -> Option<usize> {
    if s.len() < 19 {
        return None;
    }
    let word = |at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    // `YYYY-MM-` and `DD?HH:MM`: the digits' places, the punctuation's places and bytes.
    let (head, mid) = (word(0), word(8));
    let ok = digits(head, 0x00ff_ff00_ffff_ffff)
        && head & 0xff00_00ff_0000_0000 == 0x2d00_002d_0000_0000
        && digits(mid, 0xffff_00ff_ff00_ffff)
        && mid & 0x0000_ff00_0000_0000 == 0x0000_3a00_0000_0000
        && matches!(s[10], b'T' | b't' | b' ')
        && s[16] == b':'
        && s[17].is_ascii_digit()
        && s[18].is_ascii_digit();
    if !ok {
        return None;
    }
    let mut i = 19;
    if i < s.len() && (s[i] == b'.' || s[i] == b',') {
        i += 1;
        while i + 8 <= s.len() {
            let n = leading_digits(word(i));
            i += n;
            if n < 8 {
                return Some(i);
            }
        }
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
    }
    Some(i)
}

/// Are the bytes of `w` that `mask` keeps (whole bytes) ASCII digits? A digit's byte XOR `0`
/// is 0 to 9: its high nibble is clear, and stays clear when 6 is added.
#[inline(always)]
fn digits(w: u64, mask: u64) -> bool {
    const LOW: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    let t = (w ^ 0x3030_3030_3030_3030) & mask;
    t & !LOW == 0 && (t + 0x0606_0606_0606_0606) & !LOW & mask == 0
}

/// How many of `w`'s bytes, from the first (lowest), are ASCII digits. A carry out of a byte
/// that is not a digit spoils only the bytes above it, which are past the first non-digit.
#[inline(always)]
fn leading_digits(w: u64) -> usize {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    let t = w ^ 0x3030_3030_3030_3030;
    let not_digit = (t & HIGH) | (t.wrapping_add(0x0606_0606_0606_0606) & HIGH);
    not_digit.trailing_zeros() as usize / 8
}

/// Length of an RFC 3339 timestamp at the start of `s`, if there is one.
pub fn timestamp_len(s: &[u8]) -> Option<usize> {
    let i = date_time_len(s)?;
    if i < s.len() && (s[i] == b'Z' || s[i] == b'z') {
        return Some(i + 1);
    }
    if i + 6 <= s.len()
        && (s[i] == b'+' || s[i] == b'-')
        && s[i + 3] == b':'
        && [1, 2, 4, 5].iter().all(|&k| s[i + k].is_ascii_digit())
    {
        return Some(i + 6);
    }
    None
}

/// Length of a timestamp at the start of `s` as log viewers and exports print it: RFC 3339 with
/// the zone optional (`2025-02-11 09:14:52.417`).
pub fn loose_timestamp_len(s: &[u8]) -> Option<usize> {
    timestamp_len(s).or_else(|| zoneless_timestamp_len(s))
}

/// A loose timestamp in RFC 3339's form: `T` for a blank or `t` between date and time, `.` for a
/// comma before the fraction (log viewers, exports and log4j print them so), `Z` for `z`. `None`
/// when `ts` is already in that form or is not a whole loose timestamp. A zone-less time stays
/// zone-less: what zone it meant is not known here. Elasticsearch's default date format, and
/// RFC 3339 parsers such as Vector's, reject the loose forms, so `@timestamp` is written so.
pub fn rfc3339_form(ts: &str) -> Option<String> {
    let b = ts.as_bytes();
    if b.get(4) == Some(&b'/') && b.get(7) == Some(&b'/') && b.len() <= 40 {
        // Go's `log` and nginx write the date with slashes (`2026/12/05 10:00:03`).
        let (d, n) = dashed_date(b);
        let dashed = String::from_utf8(d[..n].to_vec()).ok()?;
        return (loose_timestamp_len(dashed.as_bytes())? == b.len()).then(|| rfc3339_form(&dashed).unwrap_or(dashed));
    }
    // Already in the form (RisingWave's own times, most lines), or no timestamp: either way
    // nothing to write, told before the parse (about 100 instructions an event).
    if b.get(10) == Some(&b'T') && b.get(19) != Some(&b',') && b.last() != Some(&b'z') {
        return None;
    }
    if loose_timestamp_len(b)? != b.len() {
        return None;
    }
    let comma = b.get(19) == Some(&b',');
    if matches!(b.get(19), Some(b'.' | b',')) && !b.get(20).is_some_and(u8::is_ascii_digit) {
        // `…:52,` has no fraction to write: left as it is.
        return None;
    }
    let lower_z = b.last() == Some(&b'z');
    if b[10] == b'T' && !comma && !lower_z {
        return None;
    }
    // Every byte changed is ASCII, at a place the checks above found it.
    let mut out = ts.as_bytes().to_vec();
    out[10] = b'T';
    if comma {
        out[19] = b'.';
    }
    if lower_z {
        *out.last_mut().expect("not empty") = b'Z';
    }
    String::from_utf8(out).ok()
}

/// Is `ts`, a time as `@timestamp` is written ([`rfc3339_form`]), one whose fields are in range?
/// A line's `2024-13-45T25:61:00` is no time a receiver takes: Elasticsearch's date mapping
/// rejects the whole event, as RFC 3339 parsers (Vector's, Fluent Bit's) fail on it. The date
/// and clock are checked by humantime (the month's days, leap years); a second 60 is out of range
/// (Java's and Go's parsers reject a leap second), and so is an offset beyond ±18:00 (Java's
/// `ZoneOffset`, which Elasticsearch parses with). Times of other shapes are not judged.
pub fn time_in_range(ts: &str) -> bool {
    let b = ts.as_bytes();
    if b.len() < 19 || (b[4], b[7], b[10], b[13], b[16]) != (b'-', b'-', b'T', b':', b':') {
        return true;
    }
    let d = |i: usize| b[i].wrapping_sub(b'0');
    if ![0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18].iter().all(|&i| d(i) < 10) {
        return true;
    }
    let n = |i: usize| d(i) * 10 + d(i + 1);
    let (clock, offset) = match b.len().checked_sub(6).map(|i| (i, &b[i..])) {
        Some((i, [sign, h1, h2, b':', m1, m2])) if i >= 19 && matches!(sign, b'+' | b'-') => {
            if ![h1, h2, m1, m2].iter().all(|c| c.is_ascii_digit()) {
                return true;
            }
            let (h, m) = (n(i + 1), n(i + 4));
            (&ts[..i], m <= 59 && (h < 18 || (h == 18 && m == 0)))
        }
        _ => (ts, true),
    };
    if !offset || n(17) > 59 {
        return false;
    }
    // Most times are plainly in range: a month's first 28 days. Those are passed on a look at
    // their digits; humantime's parse, which also computes the time, cost about 400
    // instructions an event at `--unknown any` (3.6% of its scan, callgrind).
    if (1..=12).contains(&n(5)) && (1..=28).contains(&n(8)) && n(11) <= 23 && n(14) <= 59 {
        return true;
    }
    // humantime takes no year before 1970: such a year is read 400 years on, where the
    // calendar's leap years fall alike.
    let year = u16::from(n(0)) * 100 + u16::from(n(2));
    let shifted;
    let clock = if year < 1970 {
        shifted = format!("{}{}", year + 400 * (1970 - year).div_ceil(400), &clock[4..]);
        &shifted[..]
    } else {
        clock
    };
    !matches!(humantime::parse_rfc3339_weak(clock), Err(humantime::TimestampError::OutOfRange))
}

/// A time in a field of another program's line (a logfmt `time`, `ts` or `t`, a JSON line's
/// time key) as `@timestamp` takes it: a whole [`loose_timestamp_len`] timestamp as it is, or one
/// whose zone is ISO 8601's basic `+hhmm` (log15's `t=2026-03-02T08:00:00+0000`) with the colon
/// RFC 3339 wants put in. `None` for anything else (go-kit's `ts=1700000000.1` among them).
pub fn field_time(s: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    if loose_timestamp_len(s) == Some(s.len()) {
        return std::str::from_utf8(s).ok().map(std::borrow::Cow::Borrowed);
    }
    let i = date_time_len(s)?;
    let zone = s.get(i..)?;
    if zone.len() == 5 && matches!(zone[0], b'+' | b'-') && zone[1..].iter().all(u8::is_ascii_digit) {
        let t = std::str::from_utf8(s).ok()?;
        return Some(std::borrow::Cow::Owned(format!("{}:{}", &t[..i + 3], &t[i + 3..])));
    }
    None
}

/// [`loose_timestamp_len`] where `s` has no zoned timestamp at its start.
fn zoneless_timestamp_len(s: &[u8]) -> Option<usize> {
    let i = date_time_len(s)?;
    // The zone-less time must end the token: `...:52.417abc` is not a time.
    if i == s.len() || matches!(s[i], b' ' | b'\t') { Some(i) } else { None }
}

/// Another program's date and time at the start of a line ([`Header::Stamped`]): a
/// [`loose_timestamp_len`] one (log4j, logback, Python's `logging`, PostgreSQL), or one with
/// slashes in its date (Go's `log`, nginx: `2026/12/05 10:00:03`); either alone or in brackets
/// (Kafka's and log4j's `[%d]`: `[2026-12-05 10:00:00,123] ERROR …`; env_logger's `[<time>
/// <LEVEL> <target>] …`, whose bracket closes after the target). The time's range, and where the
/// stamp ends (past a bracket that closes right after the time); `None` unless a blank, a tab
/// or the line's end follows.
pub fn stamped_time(c: &[u8]) -> Option<(Range<usize>, usize)> {
    let open = usize::from(c.first() == Some(&b'['));
    let s = &c[open..];
    if !s.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if open == 0 && s.get(2) == Some(&b':') {
        return clock_before_thread(s).map(|t| (0..t, t));
    }
    let t = if open == 0 && s.get(4) != Some(&b'/') {
        loose_timestamp_len(s)?
    } else {
        // In brackets a zone-less time ends at the bracket, not at a blank.
        let dashed;
        let s = if s.get(4) == Some(&b'/') && s.get(7) == Some(&b'/') {
            dashed = dashed_date(s);
            &dashed.0[..dashed.1]
        } else {
            s
        };
        let t = timestamp_len(s).or_else(|| date_time_len(s))?;
        if open == 0 && !matches!(s.get(t), None | Some(b' ' | b'\t')) {
            return None;
        }
        t
    };
    let mut end = open + t;
    if open == 1 && c.get(end) == Some(&b']') {
        end += 1;
    } else if open == 1 && !c.get(end + 1..).is_some_and(|r| level_word_at(r.trim_ascii_start())) {
        // A bracket still open after the time holds the level (env_logger's): without one the
        // bracket is a message's own (`[2024-01-01 12:00:00 x] y`).
        return None;
    }
    matches!(c.get(end), None | Some(b' ' | b'\t')).then_some((open..open + t, end))
}

/// logback's default layout, `%d{HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg`: a clock
/// without a date (its fraction after a `.` or `,`), then a thread in brackets and a level
/// word. The clock's length. Without both after it a clock is a message's own (`10:30 meeting`),
/// and a line of logback's default layout was plain text: no level, unseen at `--unknown warn`,
/// its exception's lines an event apart (found by a developer's reading).
fn clock_before_thread(s: &[u8]) -> Option<usize> {
    let two = |i: usize| s.get(i..i + 2).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if !(two(0) && s.get(2) == Some(&b':') && two(3) && s.get(5) == Some(&b':') && two(6)) {
        return None;
    }
    let mut t = 8;
    if matches!(s.get(t), Some(b'.' | b',')) && s.get(t + 1).is_some_and(u8::is_ascii_digit) {
        t += 1 + s[t + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
    }
    let rest = s.get(t..)?.strip_prefix(b" [")?;
    let close = memchr::memchr(b']', &rest[..rest.len().min(64)])?;
    let after = rest.get(close + 1..)?.strip_prefix(b" ")?;
    level_word_at(after.trim_ascii_start()).then_some(t)
}

/// The first bytes of `s` (a time's length and a zone's, at most) with the slashes of a
/// `YYYY/MM/DD` date made dashes, as RFC 3339 writes them.
/// On the stack: `classify` meets every line of an nginx or Go log with such a date.
fn dashed_date(s: &[u8]) -> ([u8; 40], usize) {
    // A date, a time with nanoseconds and a zone: 36 bytes; what follows is not read.
    let n = s.len().min(40);
    let mut d = [0; 40];
    d[..n].copy_from_slice(&s[..n]);
    d[4] = b'-';
    d[7] = b'-';
    (d, n)
}

#[inline]
fn level_at(s: &[u8]) -> bool {
    s.len() >= 6 && matches!(&s[..5], b"TRACE" | b"DEBUG" | b" INFO" | b" WARN" | b"ERROR") && (s[5] == b' ')
}

/// A RisingWave text header without its time: `<LEVEL> [<thread> ][<spans>: ]<target>: `, the
/// level in its five-byte column (` WARN`, `ERROR`). Lines pasted with their time cut off
/// (issue threads), and tracing's `without_time()` layout. The level column's blank would
/// otherwise make a ` WARN` or ` INFO` line a continuation of the event above it. Spans, a
/// module path (`::`) or one of RisingWave's own crates (`risingwave_rt`) as the target keep
/// another program's lines plain: `ERROR failed to connect`, Python's `INFO __main__: …`, an
/// `ERROR cannot open_file: …` whose `open_file` a timed header would read as a target (found
/// by a second reader: such a line took the lines below it as its continuation).
pub fn bare_header(s: &[u8]) -> bool {
    // A target that is a crate's name alone counts only with the level in its column, as
    // tracing prints it: Python's `%(levelname)s %(name)s:` writes `INFO my_app: …`.
    let Some((level, _)) = bare_level(s) else { return false };
    let column = level.end == 5;
    parse_text(s).is_some_and(|t| {
        !t.spans.is_empty()
            || t.target.is_some_and(|r| {
                let name = &s[r];
                name.windows(2).any(|w| w == b"::") || (column && t.thread.is_none() && crate_name(name))
            })
    })
}

/// A crate's or an explicit target's name, as RisingWave's are (`risingwave_rt`,
/// `auto_schema_change`, `pgwire_query_log`): lower-case words joined by `_`, not starting with
/// one (Python's `__main__` is no target).
fn crate_name(name: &[u8]) -> bool {
    name.first().is_some_and(u8::is_ascii_lowercase)
        && name.contains(&b'_')
        && name.iter().all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The level word a header without its time starts with ([`bare_header`]): in its five-byte
/// column (` WARN`, `ERROR`), or with the column's blank trimmed off (`WARN …`, what `sed` or
/// `awk` leave of a line whose time they cut); its range and where the rest starts.
fn bare_level(s: &[u8]) -> Option<(Range<usize>, usize)> {
    let from = usize::from(s.first() == Some(&b' '));
    let word = s[from..].iter().position(|&b| b == b' ').map(|n| from..from + n)?;
    matches!(&s[word.clone()], b"TRACE" | b"DEBUG" | b"INFO" | b"WARN" | b"ERROR")
        .then(|| (word.clone(), word.end + 1))
        .filter(|(w, _)| from == 0 || w.len() == 4)
}

/// Does `s` start with a RisingWave text header (`<ts> <LEVEL> `)?
pub fn risingwave_header(s: &[u8]) -> Option<usize> {
    let t = loose_timestamp_len(s)?;
    if s.get(t) == Some(&b' ') && level_at(&s[t + 1..]) { Some(t + 7) } else { None }
}

/// A Rust panic's header (`thread '<name>' panicked at <file>:<line>:<col>:`), or a Go
/// program's crash's ([`go_panic_header`]).
fn panic_header(s: &[u8]) -> bool {
    if !thread_quote(s) {
        return go_panic_header(s);
    }
    let head = &s[..s.len().min(256)];
    memchr::memmem::find(head, b"panicked at ").is_some()
}

/// Does `s` start as a Rust panic's first line does, `thread '`? Or with a typographic quote, as a
/// chat or a word processor pastes it (`thread ‘main’`, `thread ’main’`): the panic was glued to
/// the event above it (found by an on-call engineer's reading).
pub fn thread_quote(s: &[u8]) -> bool {
    // `‘` and `’` are E2 80 98 and E2 80 99 in UTF-8.
    s.starts_with(b"thread '") || (s.starts_with(b"thread \xe2\x80") && matches!(s.get(9), Some(0x98 | 0x99)))
}

/// A Go program's crash: `panic: <value>` or the runtime's `fatal error: <what>`, at the line's
/// start (behind a runtime's or `kubectl`'s prefixes), its goroutines' stacks below it.
pub fn go_panic_header(s: &[u8]) -> bool {
    crate::matcher::GO_PANIC_KEYS.iter().any(|k| s.starts_with(k) && s.len() > k.len())
}

/// Classify one physical line (ANSI codes already removed).
pub fn classify(line: &[u8], state: &mut StreamState) -> (Prefix, Header) {
    classify_at(line, state, true)
}

/// [`classify`], looking for grep's file name before the line only when `file_names` (once: the
/// text after a file name is read without that look, or a line of many `word:` tokens recursed
/// once a token and overflowed the stack; found by a third reader).
fn classify_at(line: &[u8], state: &mut StreamState, file_names: bool) -> (Prefix, Header) {
    // A paste prefix counts only where a full header follows it: an indented line is otherwise
    // a continuation (`Caused by` causes, backtraces), and `| ` may be a table in a message.
    if let Some((lead, quote, table)) = paste_lead(line) {
        let mut st = *state;
        let (mut p, h) = classify_inner(&line[lead..], &mut st);
        let full = match h {
            // An indented `key=value` line is more likely a message's continuation.
            Header::None | Header::Stamped | Header::Logfmt => false,
            Header::Json => json_object_line(&line[lead + p.content..]),
            // An indented `panic: …` is a message's words (a cause), not a Go program's crash.
            Header::Panic => !go_panic_header(&line[lead + p.content..]),
            Header::RisingWave | Header::Klog => true,
        };
        if full {
            st.quote = quote;
            st.paste = (!table).then(|| (lead, fnv(&line[..lead])));
            *state = st;
            p.shift(lead);
            p.table_row = table;
            return (p, h);
        }
    }
    // A line of a pasted event: the header's prefix is not its text either, and the prefixes
    // behind it are read as on the header (found by a second reader: a quoted or indented paste
    // of compose's, the journal's or `kubectl --prefix`'s lines kept them on every line below
    // the header, and an indented `HINT:` line, its indent).
    if let Some(len) = kept_prefix(line, state.paste) {
        let mut st = *state;
        let (mut p, header) = classify_inner(&line[len..], &mut st);
        *state = st;
        p.shift(len);
        return (p, header);
    }
    if (matches!(line.first(), Some(b'0'..=b'9' | b' ')) || state.grep_line.is_some() || state.grep_file.is_some())
        && let Some(found) = grep_lead(line, state)
    {
        return found;
    }
    if state.quote && line.first() == Some(&b'>') {
        // A quoted line after a quoted header: the quote is not the line's text.
        let n = if line.get(1) == Some(&b' ') { 2 } else { 1 };
        return (Prefix { content: n, ..Prefix::default() }, Header::None);
    }
    let (p, h) = classify_inner(line, state);
    if h == Header::None
        && file_names
        && let Some(found) = grep_file_lead(line, state)
    {
        return found;
    }
    if !matches!(h, Header::None | Header::Stamped | Header::Logfmt) {
        state.quote = false;
        state.paste = None;
    }
    (p, h)
}

/// FNV-1a of `b`: a stream's prefixes are kept as their length and this.
fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// The length of a prefix the stream keeps (`(length, fnv)`, [`StreamState::paste`] and
/// [`StreamState::grep_file`]) when `line` starts with it.
fn kept_prefix(line: &[u8], kept: Option<(usize, u64)>) -> Option<usize> {
    let (len, h) = kept?;
    (line.len() >= len && fnv(&line[..len]) == h).then_some(len)
}

/// A header that starts an event of its own, as a prefix taken off before it must be followed
/// by (another program's dated or leveled line is not: an indented or numbered one is more
/// likely a message's continuation).
fn full_header(h: Header) -> bool {
    matches!(h, Header::RisingWave | Header::Json | Header::Panic | Header::Klog | Header::Logfmt)
}

/// Longest file name looked at before a line (`grep -H`'s `<path>:`).
const MAX_GREP_PATH: usize = 512;

/// The file name grep prints before each line when it searches several files (`grep -H`, `-r`,
/// `zgrep`, piped `rg`): `<path>:`, and `<path>-` on a line of context (`-A`/`-B`/`-C`), with
/// `grep -n`'s number after it when there is one. Taken off where a full header follows it,
/// and then off the lines of the same file that follow (its continuation lines, its context),
/// as `grep -n`'s number is (found by a second reader: `grep -r ERROR /var/log/risingwave/`
/// read as plain text, no level, no time, a cluster per file name). Only a line that holds no
/// header of its own is looked at, and a path has no blank in it (`Caused by:` is none).
fn grep_file_lead(line: &[u8], state: &mut StreamState) -> Option<(Prefix, Header)> {
    // The line after `n` bytes of prefix and its separator, read with the stream's state.
    let after = |n: usize, state: &StreamState| {
        let mut st = *state;
        let (mut p, h) = classify_at(&line[n + 1..], &mut st, false);
        p.shift(n + 1);
        (p, h, st)
    };
    if let Some(len) = kept_prefix(line, state.grep_file)
        && matches!(line.get(len), Some(b':' | b'-'))
    {
        let (p, header, st) = after(len, state);
        *state = st;
        return Some((p, header));
    }
    // Where the name may end: at the `:` that ends a run of a path's bytes, or at a `-` in it
    // (a line of context, the first of its file after grep's `--`: `meta-0.log-2026-…`, where
    // only the header after it tells which `-` it is).
    let path_byte =
        |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'.' | b'_' | b'-' | b'+' | b'~' | b'@' | b',' | b'=');
    let run = &line[..line.len().min(MAX_GREP_PATH)];
    let end = run.iter().position(|b| !path_byte(b)).unwrap_or(run.len());
    let dashes = memchr::memchr_iter(b'-', &line[..end]);
    let colon = (line.get(end) == Some(&b':')).then_some(end);
    for cut in colon.into_iter().chain(dashes).take(MAX_GREP_CUTS) {
        let path = &line[..cut];
        if path.is_empty() || path.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let (p, header, mut st) = after(cut, state);
        if full_header(header) {
            st.grep_file = Some((cut, fnv(path)));
            *state = st;
            return Some((p, header));
        }
    }
    None
}

/// Places a file name before a line may end that are tried (the `:` after it, then its `-`s): a
/// path has a few (a pod's log path under `/var/log/pods/` about ten); each try reads the rest of
/// the line for a header.
const MAX_GREP_CUTS: usize = 16;

/// Leading whitespace (no-break spaces too), markdown quotes (`>`), list bullets (`* `, `- `,
/// `+ `), a code fence's opening and table gutters (`|`) of a pasted line: their length, and
/// whether there is a quote, and a gutter, among them.
fn paste_lead(line: &[u8]) -> Option<(usize, bool, bool)> {
    if !matches!(line.first(), Some(b' ' | b'\t' | b'>' | b'|' | b'`' | b'*' | b'-' | b'+' | 0xc2)) {
        return None;
    }
    let (mut quote, mut table) = (false, false);
    let mut i = 0;
    while i < line.len().min(MAX_PASTE_LEAD) {
        match line[i] {
            b' ' | b'\t' => {}
            // A Markdown fence opened on the line itself, as a chat's inline code block is
            // (```` ```<line>``` ````): the header behind it was plain text, and `--unknown
            // warn` dropped the line (found by an on-call engineer's reading).
            b'`' if line[i..].starts_with(b"```") => i += 2,
            // A Markdown list's bullet (`* <line>`, its other lines indented under it): every
            // header behind one was plain text (an on-call engineer's reading).
            b'*' | b'-' | b'+' if line.get(i + 1) == Some(&b' ') => {}
            // A no-break space (U+00A0), an indent as a web page or a chat copies it: a header
            // behind one was a continuation, and a whole paste one event with no level (found
            // by an on-call reader).
            0xc2 if line.get(i + 1) == Some(&0xa0) => i += 1,
            b'>' => quote = true,
            b'|' => table = true,
            _ => break,
        }
        i += 1;
    }
    (i > 0 && i < line.len()).then_some((i, quote, table))
}

/// A JSON object on a line of its own (after a paste prefix): `{"` ... `}`. An indented `{`
/// alone is a pretty-printed value inside a message.
fn json_object_line(s: &[u8]) -> bool {
    let end = s.iter().rposition(|b| !matches!(b, b' ' | b'\t' | b'|')).map_or(0, |p| p + 1);
    s.starts_with(b"{\"") && end > 2 && s[end - 1] == b'}'
}

/// `grep -n`'s prefix: the line's number and a colon (`-` on a context line of `-A`/`-B`/`-C`).
/// Its length and the number. A date is none (`2026-03-02T…` would read as line 2026): every
/// RisingWave line starts with a digit, and this is their one look.
fn grep_prefix(line: &[u8]) -> Option<(usize, u64)> {
    // `cat -n`'s and `nl`'s numbers are right-aligned in six columns and followed by a tab.
    let blanks = line.iter().take(12).take_while(|&&b| b == b' ').count();
    let digits = line[blanks..].iter().take(12).take_while(|b| b.is_ascii_digit()).count();
    // Copied from a terminal, that tab is blanks up to the next tab stop, as is `less -N`'s
    // gutter (seven columns and a blank): a whole paste was one event, every line below the
    // first an indented continuation (found by an on-call engineer's reading). The blanks to the
    // stop only, so that a line's own indent stays; an empty line's number may end it.
    let column = blanks + digits;
    if digits > 0 && column >= 6 && matches!(line.get(column), Some(b' ') | None) {
        let stop = (column / 8 + 1) * 8;
        let gutter = line.get(column..stop).unwrap_or(&line[column..]);
        if gutter.iter().all(|&b| b == b' ') {
            let n = line[blanks..column].iter().fold(0u64, |n, &b| n * 10 + u64::from(b - b'0'));
            return Some((column + gutter.len(), n));
        }
    }
    let sep = *line.get(blanks + digits)?;
    let seps: &[u8] = if blanks > 0 { b"\t" } else { b":-\t" };
    if digits == 0 || !seps.contains(&sep) {
        return None;
    }
    let line = &line[blanks..];
    if digits == 4
        && sep == b'-'
        && line.get(5..8).is_some_and(|d| d[0].is_ascii_digit() && d[1].is_ascii_digit() && d[2] == b'-')
    {
        return None;
    }
    let n = line[..digits].iter().fold(0u64, |n, &b| n * 10 + u64::from(b - b'0'));
    Some((blanks + digits + 1, n))
}

/// `grep -n`'s prefix taken off `line`, when it is one: where a full header follows it (behind
/// any other prefix: a CRI record's, `kubectl --timestamps`', a journal's), or on the line after
/// the last one taken off (a context line, a report's continuation). Once grep's lines are read,
/// its `--` between groups of context is a line of no text. A line that starts with digits and
/// a colon or a dash in another stream (`10:30:00 …`, `404-not-found`) is left alone: it has no
/// header after them, and no number that follows grep's last (found by a second reader).
fn grep_lead(line: &[u8], state: &mut StreamState) -> Option<(Prefix, Header)> {
    if (state.grep_line.is_some() || state.grep_file.is_some()) && line == b"--" {
        return Some((Prefix { content: line.len(), ..Prefix::default() }, Header::None));
    }
    let (n, number) = grep_prefix(line)?;
    let mut st = *state;
    let (mut p, h) = classify_inner(&line[n..], &mut st);
    if !full_header(h) && state.grep_line.is_none_or(|last| number != last + 1) {
        return None;
    }
    *state = st;
    state.grep_line = Some(number);
    p.shift(n);
    Some((p, h))
}

/// stern's default prefix, `<pod> <container> `: a pod name (a DNS subdomain) and a container
/// name (a DNS label), each followed by one space. The ranges of both and the prefix's length.
fn stern_prefix(line: &[u8]) -> Option<(Range<usize>, Range<usize>, usize)> {
    let name = |from: usize, class: u8| {
        let n = name_len(&line[from..], class, 253);
        (n > 0 && line.get(from + n) == Some(&b' ') && line[from].is_ascii_alphanumeric()).then_some(from + n)
    };
    let pod_end = name(0, POD)?;
    let cont_end = name(pod_end + 1, CONTAINER)?;
    Some((0..pod_end, pod_end + 1..cont_end, cont_end + 1))
}

/// Does a full header start `s` (what may follow stern's prefix)?
fn header_at(s: &[u8]) -> bool {
    risingwave_header(s).is_some() || json_object_line(s) || panic_header(s) || go_header(s).is_some()
}

/// A timestamp and a blank before a full header: `stern --timestamps`' time after its prefix
/// (read then as `kubectl logs --timestamps`' is).
fn timestamped_header(s: &[u8]) -> bool {
    s.first().is_some_and(u8::is_ascii_digit)
        && timestamp_len(s).is_some_and(|t| s.get(t) == Some(&b' ') && header_at(&s[t + 1..]))
}

/// A Go program's header at the start of `s`: a klog line's, or a logfmt line's
/// ([`super::golog::level`]).
fn go_header(s: &[u8]) -> Option<Header> {
    super::golog::level(s).map(|(layout, _)| match layout {
        super::golog::Layout::Klog => Header::Klog,
        super::golog::Layout::Logfmt => Header::Logfmt,
    })
}

impl Prefix {
    /// The ranges of a prefix found in `line[by..]`, as ranges of `line`.
    fn shift(&mut self, by: usize) {
        let sh = |r: &mut Range<usize>| *r = r.start + by..r.end + by;
        self.content += by;
        if let Some((a, b)) = &mut self.kubectl {
            sh(a);
            sh(b);
        }
        if let Some(r) = &mut self.runtime_ts {
            sh(r);
        }
        if let Some((r, _)) = &mut self.cri {
            sh(r);
        }
        if let Some(r) = &mut self.syslog {
            sh(r);
        }
    }
}

fn classify_inner(line: &[u8], state: &mut StreamState) -> (Prefix, Header) {
    let mut p = Prefix::default();
    let mut i = 0;
    // The zoned timestamp a line may start with, read once for the prefixes' looks below (a
    // RisingWave line has one there, and this runs on every line that is framed).
    let ts0 = if line.first().is_some_and(u8::is_ascii_digit) { timestamp_len(line) } else { None };
    // kubectl --prefix: [pod/<pod>/<container>]
    if line.starts_with(b"[pod/")
        && let Some(close) = memchr::memchr(b']', &line[..line.len().min(512)])
        && line.get(close + 1) == Some(&b' ')
    {
        let inner = 5..close;
        if let Some(slash) = memchr::memchr(b'/', &line[inner.clone()]) {
            p.kubectl = Some((5..5 + slash, 5 + slash + 1..close));
        }
        i = close + 2;
    } else if let Some(n) = compose_prefix(line) {
        i = n;
    } else if line.first().is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || matches!(b, b'[' | b'<'))
        && let Some(sp) = syslog_prefix(line, ts0)
        && (state.syslog || (!state.kubectl_ts && sp.plain_ok(line)) || header_at(&line[sp.end..]))
    {
        // The stream's lines carry one from now on only once a header was behind one: a plain
        // line's `[pid]` alone set it too, and the lines read after it differed from those read
        // in another thread's block (`--threads`; found by a second reader).
        state.syslog = state.syslog || header_at(&line[sp.end..]);
        // Taken off every line, a header behind it or not: the lines of one writer's event (a
        // backtrace, a Java stack trace) are joined by what follows the prefix. An event's
        // first line without a header keeps it (framing puts it back): what a plain line says
        // is read from its ident on, its time is `@timestamp`.
        p.syslog = Some(sp.source);
        i = sp.end;
    } else if line.first().is_some_and(u8::is_ascii_lowercase)
        && let Some((pod, container, n)) = stern_prefix(line)
        && (state.stern || header_at(&line[n..]) || timestamped_header(&line[n..]))
    {
        state.stern = true;
        p.kubectl = Some((pod, container));
        i = n;
    }
    // The zoned timestamp where the line's content starts, for both looks below.
    let ts_here = if i == 0 {
        ts0
    } else if line.get(i).is_some_and(u8::is_ascii_digit) {
        timestamp_len(&line[i..])
    } else {
        None
    };
    let ts_at = i;
    // A log viewer's time before the line: `<date> <time> | ` or `<date> <time>\t`.
    if line.get(i).is_some_and(u8::is_ascii_digit)
        && let Some(t) = ts_here.or_else(|| zoneless_timestamp_len(&line[i..]))
    {
        let after = &line[i + t..];
        let sep = if after.starts_with(b" | ") {
            3
        } else if after.first() == Some(&b'\t') && !level_word_at(&after[1..]) && !tabbed_level(&after[1..]) {
            // Not before a level word: zap's console lines (`<time>\tERROR\t<caller>\t…`, or
            // `error` in lower case) and Python's tab-separated ones are the program's own time,
            // a `Stamped` line.
            1
        } else {
            0
        };
        if sep > 0 {
            p.runtime_ts = Some(i..i + t);
            i += t + sep;
        }
    }
    // CRI record or kubectl --timestamps
    let prefixed = i;
    let first_ts = if i == ts_at { ts_here } else { timestamp_len(&line[i..]) };
    if let Some(t) = first_ts {
        let after = &line[i + t..];
        if after.first() == Some(&b' ') {
            let rest = &after[1..];
            let stream = (rest.starts_with(b"stdout ") || rest.starts_with(b"stderr ")).then_some(6);
            if let Some(n) = stream
                && rest.len() >= n + 2
                && (rest[n + 1] == b'F' || rest[n + 1] == b'P')
                && (rest.len() == n + 2 || rest[n + 2] == b' ')
            {
                let s0 = i + t + 1;
                p.runtime_ts = Some(i..i + t);
                p.cri = Some((s0..s0 + n, rest[n + 1] == b'P'));
                i = (s0 + n + 3).min(line.len());
            } else if (rest.first().is_some_and(u8::is_ascii_digit)
                && (timestamp_len(rest).is_some() || zoneless_timestamp_len(rest).is_some())
                && !level_at(rest))
                || rest.first() == Some(&b'{')
                // Another program's bracketed time or date with slashes (Kafka's, nginx's).
                || (matches!(rest.first(), Some(b'[' | b'0'..=b'9')) && stamped_time(rest).is_some())
                // A letter: klog's severity or a logfmt key, not RisingWave's five-letter level
                // (most of its lines have a blank there, ` INFO`, and cost one compare).
                || (rest.first().is_some_and(u8::is_ascii_alphabetic) && !level_at(rest) && go_header(rest).is_some())
                // Or a line that starts with its level and a colon (Python's `logging`, uvicorn).
                || (rest.first().is_some_and(u8::is_ascii_uppercase) && leveled_line(rest).is_some())
                // Or a panic (`kubectl logs --timestamps --previous` of a crashed pod starts
                // there, and a file read in blocks may have no other line before it).
                || (rest.first() == Some(&b't') && panic_header(rest))
            {
                // Two timestamps: the first is the runtime's (the second may be another
                // program's zone-less one: log4j's, Python's). So is a timestamp before a JSON
                // object (`kubectl logs --timestamps` of RisingWave's JSON logs): no line of
                // RisingWave's own starts with a time and then a brace. Nor with a time and
                // then a Go program's klog or logfmt header, a level word and a colon, or a
                // panic's `thread '…' panicked at`.
                state.kubectl_ts = true;
                p.runtime_ts = Some(i..i + t);
                i += t + 1;
            } else if state.kubectl_ts && !level_at(rest) {
                p.runtime_ts = Some(i..i + t);
                i += t + 1;
            }
        }
    }
    p.content = i;
    let c = &line[i..];
    // The timestamp already found at the content's start is not parsed again.
    let rw = match first_ts {
        Some(t) if i == prefixed => c.get(t) == Some(&b' ') && level_at(&c[t + 1..]),
        // Only a digit can start a zone-less time: the common continuation line costs a compare.
        None if i == prefixed => c.first().is_some_and(u8::is_ascii_digit) && risingwave_header(c).is_some(),
        _ => risingwave_header(c).is_some(),
    };
    let h = if rw || (matches!(c.first(), Some(b' ' | b'D' | b'E' | b'T' | b'I' | b'W')) && bare_header(c)) {
        Header::RisingWave
    } else if c.first() == Some(&b'{') {
        Header::Json
    } else if panic_header(c) {
        Header::Panic
    } else if matches!(c.first(), Some(b'0'..=b'9' | b'[')) && stamped_time(c).is_some() {
        Header::Stamped
    } else if let Some(h) = go_header(c) {
        h
    } else if c.first().is_some_and(u8::is_ascii_uppercase) && leveled_line(c).is_some() {
        Header::Stamped
    } else if matches!(c.first(), Some(b'0'..=b'9' | b'<' | b'a'..=b'z' | b' ')) && kube_event(c).is_some() {
        Header::Stamped
    } else {
        Header::None
    };
    (p, h)
}

/// A row of a Kubernetes event listing, its columns' ranges: `kubectl get events` (`[NAMESPACE]
/// LAST SEEN TYPE REASON OBJECT MESSAGE`) or the `Events:` of `kubectl describe` (`  TYPE
/// REASON AGE FROM MESSAGE`, the age perhaps `3m (x25 over 10m)`). The type is `Normal` or
/// `Warning`. kubectl pads its columns with three blanks (`get`) or two (`describe`); two are
/// asked of both, for a listing pasted with its blanks squeezed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeEvent {
    pub kind: Range<usize>,
    pub reason: Range<usize>,
    /// `kubectl get events`' `OBJECT` (`pod/compute-0`); `kubectl describe`'s `FROM` (`kubelet`).
    pub object: Range<usize>,
    pub message: usize,
}

/// Read a [`KubeEvent`] row; `None` for any other line.
pub fn kube_event(c: &[u8]) -> Option<KubeEvent> {
    // The column after a word that ends at `end`: two blanks or more right after it. Every
    // column but the message (and `describe`'s age) is one word, so a line whose first word is
    // not followed so is given up at once: this runs on plain lines that start with a lower-case
    // word or a digit.
    let next = |end: usize| -> Option<usize> {
        let n = c.get(end..)?.iter().take_while(|&&b| b == b' ').count();
        (n >= 2 && end + n < c.len()).then_some(end + n)
    };
    let word = |at: usize| at..at + c[at..].iter().position(|&b| b == b' ').unwrap_or(c.len() - at);
    let kind_at = |r: &Range<usize>| matches!(&c[r.clone()], b"Normal" | b"Warning");
    let reason_at = |r: &Range<usize>| {
        let w = &c[r.clone()];
        w.first().is_some_and(u8::is_ascii_uppercase) && w.iter().all(u8::is_ascii_alphanumeric)
    };
    if let Some(row) = c.strip_prefix(b"  ") {
        // `kubectl describe`: type, reason, age (`3m12s (x25 over 10m)`), from, message.
        let kind = word(2);
        if row.first() == Some(&b' ') || !kind_at(&kind) {
            return None;
        }
        let reason = word(next(kind.end)?);
        let age = word(next(reason.end)?);
        let mut age_end = age.end;
        if c[age_end..].starts_with(b" (x") {
            age_end += memchr::memchr(b')', &c[age_end..])? + 1;
        }
        let from = word(next(age_end)?);
        let message = next(from.end)?;
        return (reason_at(&reason) && age_word(&c[age])).then_some(KubeEvent { kind, reason, object: from, message });
    }
    // `kubectl get events`, perhaps with `-A`'s namespace first: a first word (63 bytes at most,
    // a namespace's longest) and two blanks, looked for before anything is read of the word.
    // (A byte loop: the word is short, and a call of `memchr` cost more than the loop.)
    let sp = c[..c.len().min(64)].iter().position(|&b| b == b' ')?;
    if c.get(sp + 1) != Some(&b' ') {
        return None;
    }
    let mut age = 0..sp;
    if !age_word(&c[age.clone()]) {
        if !c[age.clone()].iter().all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            return None;
        }
        age = word(next(age.end)?);
        if !age_word(&c[age.clone()]) {
            return None;
        }
    }
    let kind = word(next(age.end)?);
    if !kind_at(&kind) {
        return None;
    }
    let reason = word(next(kind.end)?);
    let object = word(next(reason.end)?);
    let message = next(object.end)?;
    (reason_at(&reason) && c[object.clone()].contains(&b'/')).then_some(KubeEvent { kind, reason, object, message })
}

/// An age as kubectl prints it (`45s`, `12m`, `2d3h`, `3y45d`, `<unknown>`, `<invalid>`).
fn age_word(w: &[u8]) -> bool {
    if matches!(w, b"<unknown>" | b"<invalid>") {
        return true;
    }
    let mut digits = 0;
    for &b in w {
        match b {
            b'0'..=b'9' => digits += 1,
            b's' | b'm' | b'h' | b'd' | b'y' if digits > 0 => digits = 0,
            _ => return false,
        }
    }
    !w.is_empty() && digits == 0
}

/// A line psql prints below its `ERROR:` line (`DETAIL:  Key (id)=(1) already exists.`,
/// `HINT:  …`, `LINE 1: select x from t;`, and with `\set VERBOSITY verbose` `CONTEXT:`,
/// `QUERY:`, `LOCATION:`, `STATEMENT:`): the report's own, not a line of its own.
pub fn psql_detail(line: &[u8]) -> bool {
    const WORDS: [&[u8]; 6] = [b"DETAIL:", b"HINT:", b"CONTEXT:", b"QUERY:", b"LOCATION:", b"STATEMENT:"];
    WORDS.iter().any(|w| line.starts_with(w))
        || line.strip_prefix(b"LINE ").is_some_and(|r| {
            let digits = r.iter().take_while(|b| b.is_ascii_digit()).count();
            digits > 0 && r.get(digits) == Some(&b':')
        })
}

/// psql's report of an error the server returned: `ERROR:  <message>` (two blanks, as psql
/// prints them; uvicorn pads its `ERROR:` with four). RisingWave's frontend sends its error
/// report there, a chain of links joined by `: ` as in its own logs; PostgreSQL's own lines
/// have the same shape, so the caller reads it as a chain only where a record matched.
pub fn psql_report(text: &[u8]) -> bool {
    [&b"ERROR:  "[..], b"FATAL:  ", b"PANIC:  "]
        .iter()
        .any(|w| text.starts_with(w) && text.get(w.len()).is_some_and(|b| !b.is_ascii_whitespace()))
}

/// Where the first [`psql_detail`] line of an event's text (its lines joined with `\n`) starts
/// after its first line, if any.
pub fn psql_details_start(text: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', text).map(|nl| nl + 1).find(|&s| psql_detail(&text[s..]))
}

/// Level words a line may start with, then a colon ([`leveled_line`]): Python's level names,
/// uvicorn's `TRACE`, and PostgreSQL's and psql's `FATAL`, `NOTICE`, `WARN` of shell scripts.
const LEADING_LEVELS: [&[u8]; 9] =
    [b"CRITICAL", b"ERROR", b"WARNING", b"WARN", b"NOTICE", b"INFO", b"DEBUG", b"TRACE", b"FATAL"];

/// A line that starts with its level word, in upper case, and a colon: Python's `logging` as
/// it prints by default (`%(levelname)s:%(name)s:%(message)s`: `ERROR:root:UDF failed`),
/// uvicorn's (`ERROR:    Exception in ASGI application`), psql's and shell scripts'
/// (`ERROR:  relation "t" does not exist`). The level word's range, the logger's name's, and
/// where the message starts: past the name and its colon, or past the blanks. A capitalised
/// `Error:` is not one: it opens many a message's line (`Error: …` of a CLI, MinIO's block of
/// `Key: value` lines).
pub fn leveled_line(c: &[u8]) -> Option<(Range<usize>, Option<Range<usize>>, usize)> {
    // Where the colon is, by the first letter: this runs on every RisingWave `ERROR` line behind
    // `kubectl --timestamps` and on continuation lines that start with a capital, where a search
    // for the colon cost more than the rest of the look.
    let colon = match c.first()? {
        b'C' => 8,
        b'W' if c.get(4) == Some(&b':') => 4,
        b'W' => 7,
        b'N' => 6,
        b'I' => 4,
        b'E' | b'D' | b'T' | b'F' => 5,
        _ => return None,
    };
    if c.get(colon) != Some(&b':') || !LEADING_LEVELS.contains(&&c[..colon]) {
        return None;
    }
    let rest = &c[colon + 1..];
    if matches!(rest.first()?, b' ' | b'\t') {
        return Some((0..colon, None, colon + 1 + rest.iter().position(|b| !matches!(b, b' ' | b'\t'))?));
    }
    let name = rest
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')))
        .unwrap_or(rest.len());
    (name > 0 && rest.get(name) == Some(&b':')).then(|| (0..colon, Some(colon + 1..colon + 1 + name), colon + name + 2))
}

/// Does `line` look like a record of Docker's json-file log driver
/// (`{"log":"<text>\n","stream":"stderr","time":"<RFC 3339>"}`)?
pub fn docker_shaped(line: &[u8]) -> bool {
    // Docker writes no blanks; a record that went through another JSON writer may have some.
    line.strip_prefix(b"{").is_some_and(|r| r.trim_ascii_start().starts_with(b"\"log\""))
}

/// A Docker json-file record, as Docker writes them under `/var/lib/docker/containers/`.
#[derive(serde::Deserialize)]
struct DockerRecord<'a> {
    #[serde(borrow)]
    log: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    stream: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    time: std::borrow::Cow<'a, str>,
}

/// Rewrite a Docker json-file record as the CRI record it stands for, into `out`:
/// `<time> <stream> F|P <text>`. Docker ends each whole line's `log` with `\n` and splits a line
/// longer than 16 KiB into records without one: those are CRI's partial (`P`) records, joined the
/// same way. The text's ANSI codes (which JSON carries escaped, so the raw line never shows
/// them) are left in: a split may cut one in two, so they are removed once the line is joined.
/// False, with `out` unspecified, when `json` is not such a record: it is then an ordinary JSON
/// line.
pub fn docker_record(json: &[u8], out: &mut Vec<u8>) -> bool {
    if !docker_shaped(json) {
        return false;
    }
    let Ok(r) = serde_json::from_slice::<DockerRecord<'_>>(json) else { return false };
    if !matches!(&*r.stream, "stdout" | "stderr") || timestamp_len(r.time.as_bytes()) != Some(r.time.len()) {
        return false;
    }
    let (text, partial) = match r.log.strip_suffix('\n') {
        Some(t) => (t.strip_suffix('\r').unwrap_or(t), false),
        None => (&*r.log, true),
    };
    out.clear();
    out.extend_from_slice(r.time.as_bytes());
    out.push(b' ');
    out.extend_from_slice(r.stream.as_bytes());
    out.extend_from_slice(if partial { b" P " } else { b" F " });
    // A record is one line; a line break inside one (not something Docker writes) would make
    // two lines of the event where framing read one.
    out.extend(text.bytes().map(|b| if b == b'\n' { b' ' } else { b }));
    true
}

/// The keys a JSON envelope carries a log line under, as the tools that wrap lines in JSON name
/// them: `message` (`stern -o json`, Vector, Elastic's exports), `MESSAGE` (`journalctl -o
/// json`), `log` (Fluent Bit), `line` (Loki's `logcli query -o jsonl`). Not `msg`: the message
/// key of structured loggers (zap, logrus, slog), whose lines are records of their own.
pub const ENVELOPE_KEYS: [&str; 4] = ["message", "MESSAGE", "log", "line"];

/// Searchers for [`ENVELOPE_KEYS`] as they stand in JSON, quoted: built once, as a searcher's
/// set-up costs more than a search of a short line.
static ENVELOPE_FINDERS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 4]> = std::sync::LazyLock::new(|| {
    ENVELOPE_KEYS.map(|k| memchr::memmem::Finder::new(format!("\"{k}\"").as_bytes()).into_owned())
});

/// A searcher for `"level"`, the key every RisingWave JSON line has among its own.
static LEVEL_FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"level\""));

/// Whether `json` starts as RisingWave's JSON lines do: `{"timestamp":"<time>","level":`.
fn rw_json_start(json: &[u8]) -> bool {
    const HEAD: &[u8] = b"{\"timestamp\":\"";
    let Some(rest) = json.strip_prefix(HEAD) else { return false };
    memchr::memchr(b'"', &rest[..rest.len().min(64)]).is_some_and(|q| rest[q..].starts_with(b"\",\"level\":"))
}

/// Whether the key `finder` looks for (quoted) is one of the object `json`'s own keys, not a
/// nested object's (Loki's `labels.level`) nor text in a value: read from the line's start to
/// each place it is found, which on a JSON log line is a few dozen bytes in.
fn own_key(json: &[u8], finder: &memchr::memmem::Finder<'_>) -> bool {
    let mut from = 0;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    finder.find_iter(json).any(|at| {
        let after_key = json[at + finder.needle().len()..].trim_ascii_start().starts_with(b":");
        for &b in &json[from..at] {
            match (in_string, escaped, b) {
                (true, true, _) => escaped = false,
                (true, false, b'\\') => escaped = true,
                (true, false, b'"') => in_string = false,
                (true, false, _) => {}
                (false, _, b'"') => in_string = true,
                (false, _, b'{' | b'[') => depth += 1,
                (false, _, b'}' | b']') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        from = at;
        !in_string && depth == 1 && after_key
    })
}

/// How far into a value a header is looked for before the value is decoded: a RisingWave
/// header (time, level, spans, target) with room for a thread name and span fields.
pub const ENVELOPE_LOOK: usize = 512;

/// Is `json` (a JSON object line, past its prefixes) an envelope: a log line carried as the
/// string value of one of [`ENVELOPE_KEYS`]? With `known` (the key the stream's envelopes use),
/// any object with a string under that key is a candidate (the lines of a multi-line event after
/// its first, `Caused by:`); else the value must start with a RisingWave header or a panic (its
/// colour codes, JSON-escaped, looked past). The key's index, or `None`. A look at the raw
/// bytes, cheap on a JSON line that is none; [`envelope_record`] decides.
pub fn envelope_key(json: &[u8], known: Option<usize>) -> Option<usize> {
    // A JSON log line of RisingWave's own (whose `fields.message` is its message) is passed over
    // by its first bytes, `{"timestamp":"…","level":` (reading up to its level byte by byte cost
    // 700 instructions a line, 2.4% of `--unknown any` on JSON logs); any other with a level of
    // its own at the cost of that read.
    if rw_json_start(json) || own_key(json, &LEVEL_FINDER) {
        return None;
    }
    let finders = &*ENVELOPE_FINDERS;
    let range = match known {
        Some(k) => k..k + 1,
        None => 0..ENVELOPE_KEYS.len(),
    };
    range.into_iter().find(|&k| {
        let quoted = finders[k].needle();
        finders[k].find_iter(json).any(|at| {
            let rest = json[at + quoted.len()..].trim_ascii_start();
            let Some(value) = rest.strip_prefix(b":").map(<[u8]>::trim_ascii_start) else { return false };
            // journald writes a `MESSAGE` that holds control bytes or is not UTF-8 (a
            // container's colours) as an array of its bytes.
            if ENVELOPE_KEYS[k] == "MESSAGE" && value.first() == Some(&b'[') {
                return true;
            }
            let Some(text) = value.strip_prefix(b"\"") else { return false };
            // A value that is itself a JSON object line (`{\"timestamp\":…`, stern around
            // RisingWave's JSON logs) is one too: read as the JSON line it is. journald's
            // `MESSAGE` is a line whatever it says (another program's plain lines were JSON
            // objects without a message: nothing to cluster, not written at `--unknown any`).
            known.is_some() || text.starts_with(b"{\\\"") || ENVELOPE_KEYS[k] == "MESSAGE" || {
                let head = &text[..text.len().min(ENVELOPE_LOOK)];
                let head = &head[..memchr::memchr(b'"', head).unwrap_or(head.len())];
                let mut plain = Vec::new();
                let head = without_escaped_codes(head, &mut plain);
                matches!(classify(head, &mut StreamState::default()).1, Header::RisingWave | Header::Panic)
            }
        })
    })
}

/// `head` (a JSON string's raw bytes) without the colour codes whose ESC JSON escapes
/// (`\u001b[2m`: stern keeps a container's colours): `head` itself when it has none, else its
/// bytes stripped of them into `buf`.
fn without_escaped_codes<'a>(head: &'a [u8], buf: &'a mut Vec<u8>) -> &'a [u8] {
    const ESC: &[u8] = b"\\u001b";
    if memchr::memmem::find(head, ESC).is_none() {
        return head;
    }
    let mut esc = Vec::with_capacity(head.len());
    let mut rest = head;
    while let Some(at) = memchr::memmem::find(rest, ESC) {
        esc.extend_from_slice(&rest[..at]);
        esc.push(0x1b);
        rest = &rest[at + ESC.len()..];
    }
    esc.extend_from_slice(rest);
    strip_ansi(&esc, buf);
    buf
}

/// Rewrite a JSON envelope ([`envelope_key`]; `key` its index) as the line it carries, into
/// `out`: first `outer` (the prefixes before the object) and, unless `outer` names a pod itself,
/// the `kubectl --prefix` of the pod and container the envelope names (stern's `podName` and
/// `containerName`, Loki's `labels.pod` and `labels.container`), so that the event says where
/// it came from; then the value decoded, a line break that ends it taken off (one inside it
/// kept: a record of a whole multi-line event). Returns the length of the prefixes, which every
/// line of the value is to be read behind. `None`, with `out` unspecified, when the object does
/// not parse, has a level of its own (`level`, `lvl`, `severity`, `levelname`, `log.level`:
/// a record whose message it is), holds no string under `key`, or is a Docker json-file record
/// that [`docker_record`] refused (`log` and `stream`: its partial records are not joined here).
pub fn envelope_record(json: &[u8], key: usize, outer: &[u8], outer_pod: bool, out: &mut Vec<u8>) -> Option<usize> {
    use serde_json::Value;
    // Invalid UTF-8 in a record is replaced, as in any JSON line, not a reason to read it raw.
    // (Parsed as a `Value`, as the annotator parses JSON lines: one instance of the parser.)
    let parsed = serde_json::from_slice::<Value>(json)
        .or_else(|_| serde_json::from_str::<Value>(&String::from_utf8_lossy(json)))
        .ok()?;
    let Value::Object(obj) = parsed else { return None };
    if crate::annotate::JSON_LEVEL_KEYS.iter().any(|k| obj.contains_key(*k))
        || (ENVELOPE_KEYS[key] == "log" && obj.contains_key("stream"))
    {
        return None;
    }
    let bytes_text;
    let text = match obj.get(ENVELOPE_KEYS[key]) {
        Some(Value::String(text)) => text.as_str(),
        // journald's `MESSAGE` as an array of bytes (control bytes, invalid UTF-8): those bytes,
        // read as a line is (the record was a JSON object without a message: its error went
        // unseen; found by a syslog pipeline's reading).
        Some(Value::Array(items)) if ENVELOPE_KEYS[key] == "MESSAGE" => {
            let bytes: Option<Vec<u8>> = items.iter().map(|v| v.as_u64().and_then(|n| u8::try_from(n).ok())).collect();
            bytes_text = String::from_utf8_lossy(&bytes?).into_owned();
            &bytes_text
        }
        _ => return None,
    };
    let text = text.strip_suffix('\n').map_or(text, |t| t.strip_suffix('\r').unwrap_or(t));
    out.clear();
    out.extend_from_slice(outer);
    let labels = obj.get("labels").and_then(Value::as_object);
    let named = |top: &str, label: &str| {
        obj.get(top)
            .or_else(|| labels.and_then(|l| l.get(label)))
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty() && !v.bytes().any(|b| b == b'/' || b == b']' || b.is_ascii_whitespace()))
    };
    if !outer_pod && let (Some(pod), Some(container)) = (named("podName", "pod"), named("containerName", "container")) {
        out.extend_from_slice(format!("[pod/{pod}/{container}] ").as_bytes());
    }
    // Not before an empty message: a prefix with nothing after it is no prefix, and the line
    // was written as junk.
    if ENVELOPE_KEYS[key] == "MESSAGE" && !text.trim_ascii().is_empty() {
        journal_prefix(&obj, out);
    }
    let prefixes = out.len();
    out.extend_from_slice(text.as_bytes());
    Some(prefixes)
}

/// A journal record's time, host, ident and pid (`__REALTIME_TIMESTAMP`, `_HOSTNAME`,
/// `SYSLOG_IDENTIFIER` or `_COMM`, `_PID`) as `journalctl -o short-iso-precise` prints them
/// before its message, into `out`: its lines are then read as that layout's are ([`Syslog`]),
/// their time `@timestamp`, a plain line's template from its ident on, one writer's lines
/// apart from another's. Nothing when the record lacks a time or an ident, or has neither a
/// host nor a pid, or when one would not read back as itself (a blank in an ident).
fn journal_prefix(obj: &serde_json::Map<String, serde_json::Value>, out: &mut Vec<u8>) {
    let field = |k: &str| obj.get(k).and_then(serde_json::Value::as_str).filter(|v| !v.is_empty());
    let name_ok = |v: &str, extra: &[u8]| {
        v.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b) || extra.contains(&b))
    };
    // Before the year 10000, which RFC 3339 cannot write (a record that said later panicked in
    // the formatter: found by a second reader).
    const YEAR_10000: u64 = 253_402_300_800_000_000;
    let Some(micros) = field("__REALTIME_TIMESTAMP").and_then(|t| t.parse::<u64>().ok()).filter(|&m| m < YEAR_10000)
    else {
        return;
    };
    let Some(ident) = field("SYSLOG_IDENTIFIER").or_else(|| field("_COMM")).filter(|i| name_ok(i, b"/@()")) else {
        return;
    };
    let host = field("_HOSTNAME").filter(|h| name_ok(h, b""));
    let pid = field("_PID").filter(|p| p.bytes().all(|b| b.is_ascii_digit()));
    if host.is_none() && pid.is_none() {
        return;
    }
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_micros(micros);
    let time = humantime::format_rfc3339_micros(at).to_string();
    // Its priority as syslog's `<PRI>`: the record's level, which `journalctl`'s text layouts
    // do not print (a journal record at `err` was no error for `--unknown warn`).
    if let Some(&[p @ b'0'..=b'7']) = field("PRIORITY").map(str::as_bytes) {
        out.extend_from_slice(&[b'<', p, b'>']);
    }
    // An offset, not `Z`: a `Z` time before a pid-less ident is not read as a prefix on a
    // stream's first line ([`Syslog::plain_ok`]); journalctl prints the offset so.
    out.extend_from_slice(time.strip_suffix('Z').unwrap_or(&time).as_bytes());
    out.extend_from_slice(b"+00:00 ");
    if let Some(h) = host {
        out.extend_from_slice(h.as_bytes());
        out.push(b' ');
    }
    out.extend_from_slice(ident.as_bytes());
    if let Some(p) = pid {
        out.extend_from_slice(format!("[{p}]").as_bytes());
    }
    out.extend_from_slice(b": ");
}

/// A syslog or journal prefix: `<time> <host> <ident>[<pid>]: `, as `journalctl` (its default
/// `short`, `short-precise`, `short-iso`, `short-iso-precise`) and rsyslog's files write it; the
/// time is BSD syslog's (`Dec  5 10:00:00`, a fraction after it) or an ISO 8601 one with its
/// zone (`2026-12-05T10:00:00+0000`, `…T10:00:00.123456+00:00`). The prefix's length. A
/// RisingWave line is never taken for one: its time is followed by its level, which is no host
/// name, and its target has `::` or no `[pid]`-less ident's `: ` after a level.
///
/// Before it, syslog's `<PRI>` (the wire format, as `nc -lu 514` or a relay's file keeps it,
/// and the journal records [`journal_prefix`] writes): its severity is the line's level.
#[inline(always)] // Framing's `classify` looks on every line framed (it was inlined there alone).
fn syslog_prefix(line: &[u8], zoned: Option<usize>) -> Option<Syslog> {
    if line.first() == Some(&b'<') {
        return syslog_prefix_after_pri(line);
    }
    syslog_prefix_at(line, zoned)
}

/// [`syslog_prefix`] of a line that starts with a `<PRI>`.
#[cold]
#[inline(never)]
fn syslog_prefix_after_pri(line: &[u8]) -> Option<Syslog> {
    let (severity, mut n) = syslog_pri(line)?;
    if line.get(n) == Some(&b' ') && line.get(n + 1).is_some_and(|b| *b != b' ') {
        // A blank after it, as Go's `log/syslog` packages (srslog) write it: `<27> 2026-…`.
        n += 1;
    }
    let rest = &line[n..];
    if rest.first().is_some_and(u8::is_ascii_digit) && rest.get(1) == Some(&b' ') {
        return rfc5424_header(line, n, severity);
    }
    let zoned = if rest.first().is_some_and(u8::is_ascii_digit) { timestamp_len(rest) } else { None };
    let s = syslog_prefix_at(rest, zoned)?;
    Some(Syslog {
        time: s.time.start + n..s.time.end + n,
        source: s.source.start + n..s.source.end + n,
        ident: s.ident + n,
        pid: s.pid,
        end: s.end + n,
        severity: Some(severity),
    })
}

/// RFC 5424's header after its `<PRI>` (at `at`): `VERSION TIMESTAMP HOSTNAME APP-NAME PROCID
/// MSGID STRUCTURED-DATA `, each field `-` when it has no value, as `logger -n`, rsyslog's
/// `RSYSLOG_SyslogProtocol23Format` and syslog-ng send it (`<34>1 2003-10-11T22:14:15.003Z
/// host su - ID47 - 'su root' failed`). Its time, its host, program and process as the
/// writer, and the message after the structured data (what is clustered: the fields between
/// are ids, not words). Read on the first [`RFC5424_LOOK`] bytes.
fn rfc5424_header(line: &[u8], at: usize, severity: u8) -> Option<Syslog> {
    // Room for structured data, which syslog-ng and rsyslog fill with metadata.
    let head = &line[..line.len().min(at + RFC5424_LOOK)];
    let mut i = at + 2;
    let mut field = || {
        let start = i;
        let len = head.get(i..)?.iter().position(|&b| b == b' ')?;
        i += len + 1;
        Some(start..start + len)
    };
    let (time, host, app, procid, msgid) = (field()?, field()?, field()?, field()?, field()?);
    // Every field has a value or `-`; an empty message id (two blanks, as some senders write
    // it for `-`) is taken too.
    if [&time, &host, &app, &procid].iter().any(|r| r.is_empty()) || (msgid.is_empty() && head.get(i) == Some(&b' ')) {
        return None;
    }
    // Its time is RFC 3339's or `-` (a number there took the line for one: `<11>1 9 h …`, 1970).
    let dash = |r: &Range<usize>| &line[r.clone()] == b"-";
    if !dash(&time) && timestamp_len(&line[time.clone()]) != Some(time.len()) {
        return None;
    }
    // Structured data: `-`, or elements `[id key="value" …]` back to back, `\]` and `\"`
    // escaped in a value.
    if head.get(i) == Some(&b'-') {
        i += 1;
    } else {
        while head.get(i) == Some(&b'[') {
            let (mut quoted, mut escaped) = (false, false);
            let close = head[i..].iter().position(|&b| {
                let end = b == b']' && !quoted;
                (quoted, escaped) = match (b, escaped) {
                    (_, true) => (quoted, false),
                    (b'\\', false) => (quoted, true),
                    (b'"', false) => (!quoted, false),
                    _ => (quoted, false),
                };
                end
            })?;
            i += close + 1;
        }
    }
    let mut end = match head.get(i) {
        Some(b' ') => i + 1,
        None if i == line.len() => i,
        _ => return None,
    };
    // A message in UTF-8 may start with a byte-order mark (RFC 5424 6.4): not its text.
    if line[end..].starts_with("\u{feff}".as_bytes()) {
        end += 3;
    }
    // The writer is the host, the program and the process (not the message id nor the
    // structured data, which change from line to line of one writer's report: syslog-ng's
    // `sequenceId`); clustering starts at the message.
    Some(Syslog {
        time: if dash(&time) { time.start..time.start } else { time },
        source: host.start..procid.end,
        ident: end,
        pid: !dash(&procid) && !dash(&app),
        end,
        severity: Some(severity),
    })
}

/// How far into a line RFC 5424's header is looked for ([`rfc5424_header`]).
const RFC5424_LOOK: usize = 4096;

/// Syslog's `<PRI>` at a line's start (RFC 3164 and 5424: 0 to 191, the facility times eight
/// plus the severity): the severity and the length.
fn syslog_pri(line: &[u8]) -> Option<(u8, usize)> {
    if line.first() != Some(&b'<') {
        return None;
    }
    let digits = line.get(1..)?.iter().take(4).take_while(|b| b.is_ascii_digit()).count();
    if !(1..=3).contains(&digits) || line.get(1 + digits) != Some(&b'>') {
        return None;
    }
    let pri: u16 = std::str::from_utf8(&line[1..1 + digits]).ok()?.parse().ok()?;
    (pri <= 191).then_some(((pri % 8) as u8, digits + 2))
}

/// Does `line` start with syslog's `<PRI>`?
pub fn has_syslog_pri(line: &[u8]) -> bool {
    syslog_pri(line).is_some()
}

/// Syslog's severities' names (RFC 5424's keywords, as `journalctl -p` takes them), by number:
/// a `<PRI>` line's `log.level`.
pub const SYSLOG_SEVERITIES: [&str; 8] = ["emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"];

/// Does a line start with a `<PRI>` whose severity is a warning or above (`error_only`: an
/// error or above)? [`crate::unknown::level_marker`]'s look at a syslog line's level.
pub fn syslog_pri_wanted(line: &[u8], error_only: bool) -> bool {
    syslog_pri(line).is_some_and(|(sev, _)| sev <= if error_only { 3 } else { 4 })
}

#[inline(always)]
fn syslog_prefix_at(line: &[u8], zoned: Option<usize>) -> Option<Syslog> {
    let head = &line[..line.len().min(256)];
    let mut i = if let Some(t) = zoned {
        // `zoned`: the RFC 3339 timestamp the line starts with, already read. A RisingWave
        // line's level after it: no prefix (most lines framed are these; one compare).
        if head.get(t) == Some(&b' ') && level_at(&head[t + 1..]) {
            return None;
        }
        t
    } else if head.first()? == &b'[' {
        journal_monotonic(head)?
    } else if head.first()?.is_ascii_digit() {
        // Or one with ISO 8601's basic zone, `+0000`; or journalctl's `short-unix` seconds.
        match date_time_len(head) {
            Some(t) => {
                let zone = head.get(t..t + 5)?;
                if !(matches!(zone[0], b'+' | b'-') && zone[1..].iter().all(u8::is_ascii_digit)) {
                    return None;
                }
                t + 5
            }
            None => unix_seconds(head)?,
        }
    } else if let Some(t) = journal_full_time(head) {
        t
    } else {
        let month = head.get(..3)?;
        if !MONTHS.iter().any(|m| &m[..] == month) || head.get(3) != Some(&b' ') {
            return None;
        }
        // `Dec  5` (rsyslog pads the day) or `Dec 05` (journalctl).
        let day = head.get(4..6)?;
        let clock = head.get(6..15)?;
        let digit_or_blank = day[0] == b' ' || day[0].is_ascii_digit();
        if !(digit_or_blank && day[1].is_ascii_digit() && clock[0] == b' ' && clock[3] == b':' && clock[6] == b':') {
            return None;
        }
        let mut t = 15;
        if head.get(t) == Some(&b'.') {
            t += 1 + head[t + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        }
        t
    };
    let time = 0..i;
    if head.get(i) != Some(&b' ') {
        return None;
    }
    i += 1;
    let host = i;
    // The host: a host name, not a level word (after a RisingWave time comes its level), nor
    // the start of a JSON object (`kubectl logs --timestamps` before one). None with
    // `journalctl --no-hostname`: the first word is then the ident, with its `[pid]`.
    let host_len = head[i..].iter().position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')))?;
    let name = &head[i..i + host_len];
    // An ident with its `[pid]` right after the time: no host. Its name may hold what a host's
    // may not (Docker's syslog driver: `docker/rw-meta[900]: `, a tag with `/`; found by a
    // syslog pipeline's reading: every line was plain text).
    let ident_len = head[i..].iter().position(|&b| !ident_byte(b))?;
    let no_host = ident_len > 0 && head[i + ident_len] == b'[';
    if !no_host {
        if host_len == 0
            || head[i + host_len] != b' '
            || matches!(name, b"TRACE" | b"DEBUG" | b"INFO" | b"WARN" | b"ERROR")
        {
            return None;
        }
        i += host_len + 1;
    }
    let ident_at = i;
    // The ident (a program's name: `sshd(pam_unix)`, `systemd-journald`), its `[pid]`; `: `.
    let ident = head[i..].iter().position(|&b| !ident_byte(b))?;
    if ident == 0 {
        return None;
    }
    i += ident;
    let pid = head.get(i) == Some(&b'[');
    if pid {
        let close = head[i..].iter().position(|&b| b == b']')?;
        if close < 2 || !head[i + 1..i + close].iter().all(u8::is_ascii_digit) {
            return None;
        }
        i += close + 1;
    } else if no_host {
        return None;
    }
    (head.get(i) == Some(&b':') && head.get(i + 1) == Some(&b' ')).then_some(Syslog {
        time,
        source: host..i,
        ident: ident_at,
        pid,
        end: i + 2,
        severity: None,
    })
}

/// A byte of a syslog ident (a program's name or a tag: `sshd(pam_unix)`, `docker/rw-meta`).
fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/' | b'@' | b'(' | b')')
}

/// A syslog or journal prefix's parts ([`syslog_prefix`]), as offsets into its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Syslog {
    /// Its time, with the zone or fraction written with it (`Dec  5 10:00:00`,
    /// `2026-12-05T10:00:00+0000`, `Sat 2026-12-05 10:00:00 UTC`, `[ 1234.567890]`).
    pub time: Range<usize>,
    /// Its host (when it has one), ident and `[pid]`: who wrote the line.
    pub source: Range<usize>,
    /// Where its ident starts.
    pub ident: usize,
    /// The ident has its `[pid]`.
    pub pid: bool,
    /// Where the message starts, past the ident's `: `.
    pub end: usize,
    /// The severity of a `<PRI>` before the time (0 `emerg` to 7 `debug`).
    pub severity: Option<u8>,
}

impl Syslog {
    /// May a line with this prefix be read as a syslog line before a header has been behind
    /// one in its stream (`StreamState::syslog`), when no header follows it? With a `[pid]`;
    /// without one, `<word> <word>: ` after a time is as likely a program's own text (`Server
    /// listening: 8080`, `Backup failed: disk full` after `date -Iseconds`, `worker-1 ERROR:
    /// disk full`): then only after a host name and an ident not in capitals (below), and not
    /// behind `kubectl logs --timestamps`' time (`Z`) or the kernel ring's (`dmesg`'s `[ 1.234]
    /// usb 1-1: …`). (Found by second readers: such lines lost their first word and level.)
    fn plain_ok(&self, line: &[u8]) -> bool {
        // A `<PRI>` says syslog wrote the line, whatever its host's case.
        if self.pid || (self.severity.is_some() && line[self.time.end.max(1) - 1] != b']') {
            return true;
        }
        let host = &line[self.source.start..self.ident.saturating_sub(1).max(self.source.start)];
        let ident = &line[self.ident..self.source.end];
        // A host name is one when it has a digit, a `-` or a `.`, or is in one case (`Web01`,
        // `MacBook-Pro`, `node-1`, `combo`, `FILESERVER`), not a capitalised word (`Backup
        // failed: …`) nor a level word (`WARNING app: …`); an ident is no word in capitals
        // (`worker-1 ERROR: …`).
        let one_case = !host.iter().any(u8::is_ascii_uppercase) || !host.iter().any(u8::is_ascii_lowercase);
        let host_like = (host.iter().any(|b| b.is_ascii_digit() || matches!(b, b'-' | b'.')) || one_case)
            && level_in(host).is_none();
        let shouting = ident.len() > 1 && !ident.iter().any(u8::is_ascii_lowercase);
        !host.is_empty() && host_like && !shouting && !matches!(line[self.time.end - 1], b'Z' | b'z' | b']')
    }

    /// The time for `@timestamp` (the annotator writes it in RFC 3339's form), its zone as the
    /// line writes it (BSD syslog's time has none, nor a year: the year is `observed`'s, or the one before when the
    /// line's month is later than the observed one, as for klog). `None` for journalctl's
    /// monotonic clock, which is no wall time.
    pub fn timestamp(&self, line: &[u8], observed: &str) -> Option<String> {
        let t = &line[self.time.clone()];
        // RFC 5424's `-`, no time, is an empty one (it panicked here: found by a third reader).
        match *t.first()? {
            b'[' => None,
            b'0'..=b'9' => match date_time_len(t) {
                Some(n) => {
                    let clock = std::str::from_utf8(&t[..n]).ok()?;
                    let zone = &t[n..];
                    // `+0000` as `+00:00`, out of range too (`+2500` as `+25:00`, which the
                    // annotator refuses, and says so: as written, it took it for a time).
                    let zone = std::str::from_utf8(zone).ok()?;
                    let zone = if zone.len() == 5 { format!("{}:{}", &zone[..3], &zone[3..]) } else { zone.into() };
                    Some(format!("{clock}{zone}"))
                }
                None => {
                    let secs: f64 = std::str::from_utf8(t).ok()?.parse().ok()?;
                    let at = std::time::UNIX_EPOCH + std::time::Duration::try_from_secs_f64(secs).ok()?;
                    Some(humantime::format_rfc3339_micros(at).to_string())
                }
            },
            _ if DAYS.iter().any(|d| d[..] == t[..3]) => {
                // `Sat 2026-12-05 10:00:00.123 UTC`: a zone's name that says no offset (`CET`)
                // leaves the time zone-less.
                let n = 4 + date_time_len(&t[4..])?;
                let clock = std::str::from_utf8(&t[4..n]).ok()?;
                Some(format!("{clock}{}", zone_offset(&t[n + 1..]).unwrap_or_default()))
            }
            _ => {
                let month = MONTHS.iter().position(|m| m[..] == t[..3])? as u32 + 1;
                let day: u32 = std::str::from_utf8(&t[4..6]).ok()?.trim_start().parse().ok()?;
                let mut year = super::golog::year_of(month, observed)?;
                // 29 February is a leap year's: the last one.
                let leap = |y: i32| y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
                while month == 2 && day == 29 && !leap(year) {
                    year -= 1;
                }
                let clock = std::str::from_utf8(&t[7..]).ok()?;
                Some(format!("{year:04}-{month:02}-{day:02}T{clock}"))
            }
        }
    }
}

/// BSD syslog's months and `journalctl -o short-full`'s weekdays, the words a prefix may start
/// with.
const MONTHS: [&[u8; 3]; 12] =
    [b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec"];
const DAYS: [&[u8; 3]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];

/// The syslog or journal prefix a plain line starts with ([`syslog_prefix`]): its time is the
/// event's, and what another program's line behind one says is its ident's (`sshd[7]: …`), not
/// the time's and host's ([`Syslog::ident`]).
#[inline]
pub fn syslog_line(line: &[u8]) -> Option<Syslog> {
    // A prefix that starts with a letter starts with a month's or a weekday's three (`Dec  5`,
    // `Sat 2026-12-05`): a look at the fourth byte passes over most plain lines (`--unknown any`
    // on RisingWave's messages spent 280 instructions a line here before it).
    let first = *line.first()?;
    let named = || line.get(3) == Some(&b' ') && MONTHS.iter().chain(&DAYS).any(|n| &n[..] == &line[..3]);
    if !(first.is_ascii_digit() || first == b'[' || first == b'<' || (first.is_ascii_uppercase() && named())) {
        return None;
    }
    syslog_line_at(line)
}

/// [`syslog_line`] past its first look.
#[inline(never)]
fn syslog_line_at(line: &[u8]) -> Option<Syslog> {
    let ts0 = if line[0].is_ascii_digit() { timestamp_len(line) } else { None };
    // The prefix ends in the ident, its `[pid]` and `: `; neither holds a blank, and a blank
    // (or the line's start) is before it.
    syslog_prefix(line, ts0)
}

/// `journalctl -o short-monotonic`'s time, `[ 1234.567890]`, or `short-delta`'s, `[ 1234.567890
/// <    0.000123>]`: its length.
fn journal_monotonic(head: &[u8]) -> Option<usize> {
    let seconds = |at: usize| -> Option<usize> {
        let blanks = head.get(at..)?.iter().take_while(|&&b| b == b' ').count();
        let whole = head.get(at + blanks..)?.iter().take_while(|b| b.is_ascii_digit()).count();
        let i = at + blanks + whole;
        if whole == 0 || head.get(i) != Some(&b'.') {
            return None;
        }
        let frac = head.get(i + 1..)?.iter().take_while(|b| b.is_ascii_digit()).count();
        (frac > 0).then_some(i + 1 + frac)
    };
    let mut i = seconds(1)?;
    if head.get(i..i + 2) == Some(b" <") {
        i = seconds(i + 2)?;
        if head.get(i) != Some(&b'>') {
            return None;
        }
        i += 1;
    }
    (head.get(i) == Some(&b']')).then_some(i + 1)
}

/// `journalctl -o short-unix`'s time: seconds since the epoch and their fraction,
/// `1764928800.123456`. Its length.
fn unix_seconds(head: &[u8]) -> Option<usize> {
    let whole = head.iter().take_while(|b| b.is_ascii_digit()).count();
    // Ten digits since 2001; nine for the years before.
    if !(9..=11).contains(&whole) || head.get(whole) != Some(&b'.') {
        return None;
    }
    let frac = head[whole + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
    (frac > 0).then_some(whole + 1 + frac)
}

/// `journalctl -o short-full`'s time: `Sun 2026-12-06 15:03:16 UTC` (a fraction after the
/// seconds, a zone's name or offset). Its length.
fn journal_full_time(head: &[u8]) -> Option<usize> {
    let day = head.get(..3)?;
    if !DAYS.iter().any(|d| &d[..] == day) || head.get(3) != Some(&b' ') {
        return None;
    }
    let t = 4 + date_time_len(&head[4..])?;
    if head.get(t) != Some(&b' ') {
        return None;
    }
    let zone = head[t + 1..].iter().take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-')).count();
    (zone > 0).then_some(t + 1 + zone)
}

/// docker compose's `<service>  | ` prefix.
fn compose_prefix(line: &[u8]) -> Option<usize> {
    let first = *line.first()?;
    if !first.is_ascii_alphabetic() {
        return None;
    }
    let n = name_len(line, SERVICE, 128);
    if n == line.len().min(128) {
        return None;
    }
    let mut j = n;
    while j < line.len() && line[j] == b' ' {
        j += 1;
    }
    if j > n && line[j..].starts_with(b"| ") { Some(j + 2) } else { None }
}

/// [`NAME_CLASS`] bits: a byte of a compose service name (ASCII letters, digits, `-`, `_`, `.`),
/// of a pod name (a DNS subdomain: lower-case letters, digits, `-`, `.`), of a container name
/// (a DNS label: the same without `.`).
const SERVICE: u8 = 1;
const POD: u8 = 2;
const CONTAINER: u8 = 4;

/// Each byte's [`SERVICE`], [`POD`] and [`CONTAINER`] bits. Every line without a header is
/// looked at for both prefixes: with a table, a byte of its first words costs a load and a test,
/// where the chains of range compares cost about 400 instructions a line (a tenth of
/// `--unknown any` on headerless messages, callgrind).
static NAME_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let lower_or_digit = c.is_ascii_lowercase() || c.is_ascii_digit();
        if c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.' {
            t[b] |= SERVICE;
        }
        if lower_or_digit || c == b'-' || c == b'.' {
            t[b] |= POD;
        }
        if lower_or_digit || c == b'-' {
            t[b] |= CONTAINER;
        }
        b += 1;
    }
    t
};

/// How many of `s`'s first bytes (at most `max`) have the class bit `class`.
#[inline]
fn name_len(s: &[u8], class: u8, max: usize) -> usize {
    s.iter().take(max).position(|&b| NAME_CLASS[usize::from(b)] & class == 0).unwrap_or(s.len().min(max))
}

/// Is `content` the brace `b` alone (blanks after it aside): a pretty-printed JSON object's
/// first (`{`) or last (`}`) line?
pub fn lone(content: &[u8], b: u8) -> bool {
    content.trim_ascii_end() == [b]
}

/// Push `line` to `out` with its indent's no-break spaces (U+00A0) as spaces: a web page's or a
/// chat's copy of an indented line (`&nbsp;`) has them where the log had blanks, and a record's
/// `\n {:?}` or an unknown error's template would otherwise hold them.
pub fn push_indent_as_spaces(line: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    let mut nbsp = false;
    loop {
        match line.get(i..) {
            Some([b' ' | b'\t', ..]) => i += 1,
            Some([0xC2, 0xA0, ..]) => {
                nbsp = true;
                i += 2;
            }
            _ => break,
        }
    }
    if !nbsp {
        out.extend_from_slice(line);
        return;
    }
    let mut j = 0;
    while j < i {
        if line[j] == 0xC2 {
            out.push(b' ');
            j += 2;
        } else {
            out.push(line[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&line[i..]);
}

/// A table row's text without its closing gutter (` |` and spaces at the end).
pub fn trim_table_row(content: &[u8]) -> &[u8] {
    let t = content.trim_ascii_end();
    match t.strip_suffix(b"|") {
        Some(rest) => rest.trim_ascii_end(),
        None => content,
    }
}

/// `line` without its ANSI codes: `line` itself when it has none, else its text stripped into
/// `buf`.
pub fn without_ansi<'a>(line: &'a [u8], buf: &'a mut Vec<u8>) -> &'a [u8] {
    without_codes(line, buf, false)
}

/// [`without_ansi`], and with `leftovers` a line that [`has_leftovers`] loses those too.
pub fn without_codes<'a>(line: &'a [u8], buf: &'a mut Vec<u8>, leftovers: bool) -> &'a [u8] {
    let lost = leftovers && has_leftovers(line);
    if !lost && memchr::memchr(0x1b, line).is_none() {
        return line;
    }
    buf.clear();
    strip_codes(line, buf, lost);
    buf
}

/// Remove ANSI escape sequences (CSI `ESC [ ... final` and two-byte `ESC x`), appending to `out`.
pub fn strip_ansi(line: &[u8], out: &mut Vec<u8>) {
    strip_codes(line, out, false);
}

/// Does `line` show ANSI colour codes that lost their ESC: tracing's reset, `[0m`, as a line
/// coloured on a terminal reads once pasted where the ESC byte is dropped (a GitHub issue, a
/// web page, a CI log viewer: `[2m2026-…Z[0m [33m WARN[0m [2mrisingwave_meta[0m[2m:[0m …`), or
/// shown in caret notation (`cat -v`, `less`: `^[[2m…^[[0m`)? It is what decides that
/// [`strip_codes`] takes the line's other leftovers: a reset that ends a styled piece, before a
/// blank, another code or the line's end (`[0m [33m`), as no text holds it (`[0ms]` is text);
/// not one that stands for a JSON-escaped ESC (`\u001b[0m`, the decoder's to undo).
pub fn has_leftovers(line: &[u8]) -> bool {
    memchr::memchr_iter(b'[', line).any(|i| {
        line[i + 1..].starts_with(b"0m")
            && (matches!(line.get(i + 3), None | Some(b' ' | b'[' | b'^' | b'\r'))
                || line[i + 3..].starts_with(ESC_PICTURE.as_bytes()))
            && !escaped_esc_before(line, i)
    })
}

/// How a viewer that shows control characters as their pictures prints ESC (U+241B): a paste
/// from it reads `␛[2m2026-…Z␛[0m ␛[33m WARN␛[0m …`, taken as the caret notation is.
const ESC_PICTURE: &str = "\u{241b}";

/// Whether the `[` at `line[i]` follows a JSON- or C-escaped ESC (`\u001b[`, `\x1b[`, `\033[`):
/// a code JSON carries, real once decoded.
fn escaped_esc_before(line: &[u8], i: usize) -> bool {
    let before = &line[..i];
    [&b"\\u001b"[..], b"\\u001B", b"\\x1b", b"\\x1B", b"\\033", b"\\e"].iter().any(|e| before.ends_with(e))
}

/// The length of the SGR code (or erase-line code, `grep --color`'s `[K`) at `line[i..]` that
/// lost its ESC: `[`, at most [`MAX_LEFTOVER_PARAMS`] digits and semicolons, and `m`; or `[K`.
fn leftover_at(line: &[u8], i: usize) -> Option<usize> {
    let rest = line.get(i + 1..)?;
    let params = rest.iter().take(MAX_LEFTOVER_PARAMS + 1).take_while(|b| b.is_ascii_digit() || **b == b';').count();
    let len = match rest.get(params)? {
        b'm' if params > 0 && params <= MAX_LEFTOVER_PARAMS => params + 2,
        // grep's end of a match, `ESC[m ESC[K`: `[m` alone is text (`[metrics]`).
        b'm' if rest[1..].starts_with(b"[K") => 2,
        b'K' if params == 0 => 2,
        _ => return None,
    };
    // A bracket closed right after is text (`window=[5m]`), and so is a code JSON carries escaped.
    (line.get(i + len) != Some(&b']') && !escaped_esc_before(line, i)).then_some(len)
}

/// The length of the leftover code at `line[at..]` ([`leftover_at`]), once the caret pair that
/// stood for its ESC (`^[[2m`, copied to `out` just before) is taken back off `out`.
fn leftover_taken(line: &[u8], at: usize, out: &mut Vec<u8>) -> Option<usize> {
    let len = leftover_at(line, at)?;
    for esc in [&b"^["[..], ESC_PICTURE.as_bytes()] {
        if line[..at].ends_with(esc) && out.ends_with(esc) {
            out.truncate(out.len() - esc.len());
        }
    }
    Some(len)
}

/// The longest parameter list a leftover code is taken with: 256-colour and RGB codes
/// (`38;2;255;255;255`, 16 bytes) fit; a longer run of digits in brackets is text.
const MAX_LEFTOVER_PARAMS: usize = 16;

/// `line` with the ESC its codes lost put back (`[2m` → `ESC[2m`, `^[[2m` → `ESC[2m`), appended
/// to `out`: a pasted coloured line echoed to a terminal shows its colours, not `[2m`.
pub fn restore_leftovers(line: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b'[', &line[i..]) {
        let at = i + rel;
        out.extend_from_slice(&line[i..at]);
        match leftover_taken(line, at, out) {
            Some(len) => {
                out.push(0x1b);
                out.extend_from_slice(&line[at..at + len]);
                i = at + len;
            }
            None => {
                out.push(b'[');
                i = at + 1;
            }
        }
    }
    out.extend_from_slice(&line[i..]);
}

/// Remove ANSI escape sequences (CSI `ESC [ ... final` and two-byte `ESC x`), appending to `out`;
/// with `leftovers`, also the codes that lost their ESC ([`has_leftovers`]: `[2m`, `[1;31m`,
/// `[K`; not one a `]` closes, `[5m]`) and, before one, the caret notation of the lost ESC
/// (`^[`).
pub fn strip_codes(line: &[u8], out: &mut Vec<u8>, leftovers: bool) {
    let mut i = 0;
    loop {
        let next = if leftovers { memchr::memchr2(0x1b, b'[', &line[i..]) } else { memchr::memchr(0x1b, &line[i..]) };
        let Some(rel) = next else { break };
        let at = i + rel;
        out.extend_from_slice(&line[i..at]);
        if line[at] == b'[' {
            match leftover_taken(line, at, out) {
                Some(len) => i = at + len,
                None => {
                    out.push(b'[');
                    i = at + 1;
                }
            }
            continue;
        }
        let mut j = at + 1;
        if j < line.len() && line[j] == b'[' {
            j += 1;
            while j < line.len() && !(0x40..=0x7e).contains(&line[j]) {
                j += 1;
            }
            j += 1;
        } else {
            j += 1;
        }
        i = j.min(line.len());
    }
    out.extend_from_slice(&line[i..]);
}

/// A line of another program's log that starts with its date and time, or with its level and a
/// colon ([`Header::Stamped`]): ranges into the line's content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StampedLine {
    /// The date and time, without a comma that ends it (`2016-09-28 04:30:30,`); none on a line
    /// that starts with its level ([`leveled_line`]).
    pub timestamp: Option<Range<usize>>,
    /// The logger's name or the module the line was logged from, where the layout prints it
    /// apart (Python's `ERROR:udf.server:…`, env_logger's `[<time> ERROR sink::kafka] …`).
    pub target: Option<Range<usize>>,
    /// The level word among the first [`STAMPED_LEVEL_WORDS`] words after the time, without its
    /// brackets (`[WARN]`) or colon (`WARNING:`), within the first
    /// [`LEVEL_WINDOW`](crate::unknown::LEVEL_WINDOW) bytes.
    pub level: Option<Range<usize>>,
    /// Where what the line says starts: after the level and a separator that follows it (`-`,
    /// `|`, `:`), else after the time, its zone and a process id.
    pub message: usize,
    /// A zone written apart after a zone-less time ([`zone_word`]: PostgreSQL's `%m` and `%t`,
    /// `2026-12-05 10:00:00.123 UTC`).
    pub zone: Option<Range<usize>>,
    /// A process id in brackets after the time and zone (PostgreSQL's `[%p]`: `[57]`, `[57]:`),
    /// its digits.
    pub pid: Option<Range<usize>>,
    /// The level word is PostgreSQL's: one of its severities or report labels, a colon and two
    /// blanks (`LOG:  `, `ERROR:  `, `STATEMENT:  `: [`PG_WORDS`]).
    pub postgres: bool,
    /// The line is a PostgreSQL report's detail (`DETAIL:`, `HINT:`, `CONTEXT:`, `QUERY:`,
    /// `LOCATION:`, `STATEMENT:`): it has no level, and belongs to the report above it from
    /// the same process ([`pg_detail`]).
    pub detail: bool,
    /// The id of the thread that wrote the line, where the layout prints one apart (MySQL's
    /// error log: `<time> <thread> [<label>] …`).
    pub thread: Option<Range<usize>>,
    /// MySQL's error code (`MY-010068`), without its brackets.
    pub code: Option<Range<usize>>,
    /// A Kubernetes event's object (`pod/compute-0`) or, in `kubectl describe`, its source
    /// (`kubelet`) ([`kube_event`]).
    pub object: Option<Range<usize>>,
}

impl StampedLine {
    /// A line that starts with its level and blanks, as psql prints an error (`ERROR:  …`, and
    /// uvicorn its lines): no time, no logger's name. Its `DETAIL:`, `HINT:` and `LINE 1:`
    /// lines below ([`psql_detail`]) are its own.
    pub fn psql_shaped(&self) -> bool {
        self.timestamp.is_none() && self.target.is_none()
    }

    /// The process id of a PostgreSQL server log's line, as a number (`None` without one).
    pub fn pid_in(&self, c: &[u8]) -> Option<u64> {
        self.pid.as_ref().and_then(|p| std::str::from_utf8(&c[p.clone()]).ok()?.parse().ok())
    }
}

/// PostgreSQL's words for what a server log's line is, written `WORD:` and two blanks after the
/// line's prefix (`elog.c`): its severities (those that are not level words elsewhere: `LOG`,
/// `PANIC`, `DEBUG1`…`DEBUG5`; the others are), then the labels of a report's further lines
/// ([`PG_DETAILS`] of them).
const PG_WORDS: [&[u8]; 19] = [
    b"LOG",
    b"PANIC",
    b"DEBUG1",
    b"DEBUG2",
    b"DEBUG3",
    b"DEBUG4",
    b"DEBUG5",
    b"DEBUG",
    b"INFO",
    b"NOTICE",
    b"WARNING",
    b"ERROR",
    b"FATAL",
    b"DETAIL",
    b"HINT",
    b"CONTEXT",
    b"QUERY",
    b"LOCATION",
    b"STATEMENT",
];

/// How many of [`PG_WORDS`], at its end, label a report's further lines.
const PG_DETAILS: usize = 6;

/// Is `w` (a word and what follows it) one of [`PG_WORDS`] written as PostgreSQL writes it, a
/// colon and two blanks after (`LOG:  `)? `Some(true)` for a report's detail label.
fn pg_word(w: &[u8], after: &[u8]) -> Option<bool> {
    let word = w.strip_suffix(b":")?;
    if !after.starts_with(b"  ") {
        return None;
    }
    PG_WORDS.iter().position(|p| *p == word).map(|i| i >= PG_WORDS.len() - PG_DETAILS)
}

/// A zone written as a word of its own after a zone-less time: `UTC`, `GMT`, a numeric offset
/// (`+01`, `+0100`, `+01:00`), or a common abbreviation (`CET`, `PDT`…, [`ZONE_NAMES`]).
pub fn zone_word(w: &[u8]) -> bool {
    offset_form(w).is_some() || ZONE_NAMES.contains(&w)
}

/// Abbreviations of zones that PostgreSQL's `log_timezone` and `strftime`'s `%Z` print, of the
/// places most clusters run in. Only `UTC` and `GMT` (and `UT`) say the offset; the others name
/// it ambiguously (`IST`, `CST`) and are read as a zone with no offset known.
const ZONE_NAMES: [&[u8]; 36] = [
    b"UTC", b"GMT", b"UT", b"CET", b"CEST", b"EET", b"EEST", b"WET", b"WEST", b"BST", b"IST", b"MSK", b"PST", b"PDT",
    b"MST", b"MDT", b"CST", b"CDT", b"EST", b"EDT", b"AKST", b"AKDT", b"HST", b"JST", b"KST", b"HKT", b"SGT", b"AEST",
    b"AEDT", b"ACST", b"ACDT", b"AWST", b"NZST", b"NZDT", b"WIB", b"BRT",
];

/// A zone word's offset as RFC 3339 writes it: `Z` for `UTC`, `GMT` and `UT`, `+01:00` for
/// `+01`, `+0100` and `+01:00`; `None` for an abbreviation whose offset is not known here.
pub fn zone_offset(w: &[u8]) -> Option<String> {
    if matches!(w, b"UTC" | b"GMT" | b"UT") {
        return Some("Z".into());
    }
    offset_form(w)
}

/// `+HH`, `+HHMM` or `+HH:MM` (or `-`), hours below 24 and minutes below 60, as `+HH:MM`.
fn offset_form(w: &[u8]) -> Option<String> {
    let (sign, d) = (*w.first()?, &w[1..]);
    if !matches!(sign, b'+' | b'-') {
        return None;
    }
    let (h, m): (&[u8], &[u8]) = match d.len() {
        2 => (d, b"00"),
        4 => (&d[..2], &d[2..]),
        5 if d[2] == b':' => (&d[..2], &d[3..]),
        _ => return None,
    };
    let num = |x: &[u8]| x.iter().all(u8::is_ascii_digit).then(|| (x[0] - b'0') * 10 + (x[1] - b'0'));
    let (hh, mm) = (num(h)?, num(m)?);
    (hh < 24 && mm < 60).then(|| format!("{}{hh:02}:{mm:02}", sign as char))
}

/// A PostgreSQL report's detail line (`… [57] STATEMENT:  select 1`, [`StampedLine::detail`]):
/// its process id, `None` in a log whose prefix prints none.
pub fn pg_detail(c: &[u8]) -> Option<Option<u64>> {
    let st = parse_stamped(c)?;
    st.detail.then(|| st.pid_in(c))
}

/// Where the first line of an event's text (its lines joined with `\n`) that starts with a date
/// and time is, after its first: a PostgreSQL report's detail line.
pub fn dated_line_start(text: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', text)
        .map(|nl| nl + 1)
        .find(|&s| text[s..].first().is_some_and(u8::is_ascii_digit) && stamped_time(&text[s..]).is_some())
}

/// Words after the time that a level is looked for in, separators (`-`, `|`, `:`) not counted:
/// log4j and ZooKeeper print it first (`… WARN  [main] c.e.Foo - …`, `… - INFO  [QuorumPeer…] -
/// …`), logback's `[%thread] %-5level` and Python's `%(asctime)s - %(name)s - %(levelname)s -
/// %(message)s` second. Further in, a level word is the message's own.
pub const STAMPED_LEVEL_WORDS: usize = 3;

/// The first line of a Python traceback.
pub const TRACEBACK: &[u8] = b"Traceback (most recent call last):";

/// A Python exception's line at a traceback's end: its class, dotted or not, then `: ` and the
/// message or nothing (`ValueError: bad value`, `decimal.InvalidOperation: […]`,
/// `KeyboardInterrupt`).
pub fn exception_line(line: &[u8]) -> bool {
    let name = line.iter().position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.')).unwrap_or(line.len());
    name > 0
        && (line[0].is_ascii_alphabetic() || line[0] == b'_')
        && (name == line.len() || (line[name] == b':' && matches!(line.get(name + 1), None | Some(b' '))))
}

/// A Java exception's line as a stack trace starts it, below the line that logged it: its
/// class's qualified name (`java.lang.IllegalStateException`,
/// `org.apache.kafka.common.errors.TimeoutException`, a nested `Outer$InnerError`), then `: `
/// and its message or nothing.
pub fn java_exception_line(line: &[u8]) -> bool {
    let name = line
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')))
        .unwrap_or(line.len());
    let class = &line[..name];
    let Some(dot) = memchr::memrchr(b'.', class) else { return false };
    let simple = &class[dot + 1..];
    line[0].is_ascii_lowercase()
        && simple.first().is_some_and(u8::is_ascii_uppercase)
        && (simple.ends_with(b"Exception") || simple.ends_with(b"Error") || simple.ends_with(b"Throwable"))
        && (name == line.len() || (line[name] == b':' && matches!(line.get(name + 1), None | Some(b' '))))
}

/// The exception a logged error's event carries below its first line: a Python traceback's
/// ([`traceback`]), or a Java stack trace's first line ([`java_exception_line`]) right below
/// it. Where it starts, and the exception's line.
pub fn logged_exception(text: &[u8]) -> Option<(usize, Range<usize>)> {
    let nl = memchr::memchr(b'\n', text)?;
    let second = &text[nl + 1..];
    let second = &second[..memchr::memchr(b'\n', second).unwrap_or(second.len())];
    let second = second.strip_suffix(b"\r").unwrap_or(second);
    if java_exception_line(second) {
        return Some((nl + 1, nl + 1..nl + 1 + second.len()));
    }
    traceback(text)
}

/// The sentences Python prints between chained tracebacks.
pub fn chaining_sentence(line: &[u8]) -> bool {
    line.starts_with(b"During handling of the above exception, another exception occurred:")
        || line.starts_with(b"The above exception was the direct cause of the following exception:")
}

/// The Python traceback in an event's text (its lines joined with `\n`, prefixes off): where
/// its first `Traceback (most recent call last):` line starts, and the line of the exception
/// that ends the last of its chained tracebacks (the one raised last, which the program
/// reported). `None` without a traceback that reaches its exception's line. Read with the
/// [`Traceback`] states framing keeps as it joins the lines.
pub fn traceback(text: &[u8]) -> Option<(usize, Range<usize>)> {
    // Most events are one line: a traceback has three at least.
    memchr::memchr(b'\n', text)?;
    let (mut first, mut exception, mut state) = (None, None, Traceback::None);
    let mut s = 0;
    for full in text.split(|&b| b == b'\n') {
        // An event's lines but its last keep a CRLF's `\r`.
        let line = full.strip_suffix(b"\r").unwrap_or(full);
        if line.starts_with(TRACEBACK) {
            first = first.or(Some(s));
        }
        let next = state.after(line);
        if state == Traceback::Frames && next == Traceback::Done {
            exception = Some(s..s + line.len());
        }
        state = next;
        s += full.len() + 1;
    }
    Some((first?, exception?))
}

/// Python's traceback (`Traceback (most recent call last):`, its indented frames, the
/// exception's line `ValueError: …`, and chained ones after `During handling of the above
/// exception, another exception occurred:`), read as one event: where an event is in one.
/// Framing keeps it for the open event; [`traceback`] reads an event's text with it. Its frames
/// are indented, and continue any event; its first line and the exception's are not, so the
/// state says when they continue: a traceback starts an event of its own unless it follows a
/// logged error or the sentence that chains it to the one above.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Traceback {
    None,
    /// After `Traceback (most recent call last):`: the frames, then the exception's line.
    Frames,
    /// After the exception's line: a chaining sentence may follow.
    Done,
    /// After a chaining sentence: the next traceback belongs to this event.
    Chained,
}

impl Traceback {
    /// Does `line` (a line without a header, its text after its prefixes) continue an event in
    /// this state whose first line `warns` (a dated line at WARN or above), though it is not
    /// indented?
    pub fn continues(self, line: &[u8], warns: bool) -> bool {
        match self {
            // A logged error's exception below it: a Python traceback, or the first line of a
            // Java stack trace (its frames are indented, its `Caused by:` continue anyway).
            Traceback::None => warns && (line.starts_with(TRACEBACK) || java_exception_line(line)),
            Traceback::Frames => exception_line(line),
            Traceback::Done => chaining_sentence(line),
            Traceback::Chained => line.starts_with(TRACEBACK),
        }
    }

    /// The state after `line` joined an event in this state (or started one: `None`).
    pub fn after(self, line: &[u8]) -> Traceback {
        // The first byte first: this runs on every line of another program's events.
        if line.first() == Some(&b'T') && line.starts_with(TRACEBACK) {
            return Traceback::Frames;
        }
        match self {
            Traceback::Frames if exception_line(line) => Traceback::Done,
            Traceback::Done if chaining_sentence(line) => Traceback::Chained,
            state => state,
        }
    }
}

/// Read a [`Header::Stamped`] line: its time, its level when one of the first words is a level
/// word (log4j, logback, Python's `logging`, ZooKeeper, Windows' CBS log), and where its message
/// starts. A level word is upper case or capitalised (`WARN`, `Warning`), or in brackets in any
/// case (`[warn]`): a lower-case word alone may be the message's (`… connection error from …`).
/// `None` when `c` does not start with a date and time and a blank.
pub fn parse_stamped(c: &[u8]) -> Option<StampedLine> {
    let Some((time, t)) = stamped_time(c) else {
        if let Some(k) = kube_event(c) {
            // The event's type is its level, its reason the target.
            return Some(StampedLine {
                target: Some(k.reason),
                level: Some(k.kind),
                message: k.message,
                object: Some(k.object),
                ..StampedLine::default()
            });
        }
        let (level, target, message) = leveled_line(c)?;
        return Some(StampedLine { target, level: Some(level), message, ..StampedLine::default() });
    };
    // env_logger's bracket closes after the level and the target: `[<time> ERROR sink::kafka] …`.
    let unclosed = time.start == 1 && c[t - 1] != b']';
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let skip = |i: usize| c[i..].iter().position(|b| !blank(b)).map_or(c.len(), |n| i + n);
    let word_end = |i: usize| c[i..].iter().position(blank).map_or(c.len(), |n| i + n);
    // A clock without a date (logback's default layout) is no `@timestamp`.
    let timestamp = (c.get(time.start + 2) != Some(&b':'))
        .then(|| time.start..if c[time.end - 1] == b',' { time.end - 1 } else { time.end });
    let mut first = skip(t);
    // A zone after a zone-less time, then a process id in brackets: PostgreSQL's prefix (`%m
    // [%p] `, `%t [%p]: `, Debian's `[%p-%l]`). Neither is one of the words a level is looked
    // for in when both are there (the level may come after more of the prefix: `%q%u@%d `,
    // pgbadger's `[%l-1] user=%u,db=%d `), nor `UTC` alone; one alone otherwise only when a
    // level word follows it at once, so that a message's first word (`EST`, `-10 degrees`,
    // `[3]`) stays the message's.
    let (mut zone, mut pid) = (None, None);
    let mut at = first;
    let pid_at = |at: usize| {
        let end = word_end(at);
        let w = &c[at..end];
        let w = w.strip_suffix(b":").unwrap_or(w);
        let digits = w.iter().skip(1).take_while(|b| b.is_ascii_digit()).count();
        let tail = &w[(1 + digits).min(w.len())..];
        let line_no = |t: &[u8]| {
            t.len() >= 3 && t[0] == b'-' && t[t.len() - 1] == b']' && t[1..t.len() - 1].iter().all(u8::is_ascii_digit)
        };
        (w.first() == Some(&b'[') && (1..=10).contains(&digits) && (tail == b"]" || line_no(tail)))
            .then(|| (at + 1..at + 1 + digits, skip(end)))
    };
    if time.start == 0 && !zoned(&c[time.clone()]) {
        let end = word_end(at);
        let w = &c[at..end];
        // Before a process id, any abbreviation is a zone (`SAST [57]`): the list names only
        // the commonest.
        let abbreviation = (2..=5).contains(&w.len()) && w.iter().all(u8::is_ascii_uppercase) && !level_word(w, false);
        if zone_word(w) || (abbreviation && pid_at(skip(end)).is_some()) {
            zone = Some(at..end);
            at = skip(end);
        }
    }
    if let Some((p, next)) = pid_at(at) {
        pid = Some(p);
        at = next;
    }
    // `UTC`, `GMT` and `UT` are the zone whatever follows (PostgreSQL's `%m %u@%d `).
    let universal = zone.as_ref().is_some_and(|z| matches!(&c[z.clone()], b"UTC" | b"GMT" | b"UT"));
    if zone.is_some() != pid.is_some() && !universal {
        let end = word_end(at);
        if level_in(&c[at..end]).is_none() && pg_word(&c[at..end], &c[end..]).is_none() {
            (zone, pid, at) = (None, None, first);
        }
    }
    first = at;
    let separator = |w: &[u8]| w.iter().all(|b| matches!(b, b'-' | b'|' | b':'));
    if zone.is_none()
        && pid.is_none()
        && let Some(mut my) = mysql_line(c, first)
        && my.level.as_ref().is_some_and(|l| l.end < crate::unknown::LEVEL_WINDOW)
    {
        // Another program's `<time> <thread> [ERROR] - …` reads so too: its separator is not
        // the message's.
        let sep = word_end(my.message);
        if sep > my.message && separator(&c[my.message..sep]) {
            my.message = skip(sep);
        }
        return Some(StampedLine { timestamp, ..my });
    }
    let mut i = first;
    let mut words = 0;
    while words < STAMPED_LEVEL_WORDS && i < c.len() {
        let end = word_end(i);
        if separator(&c[i..end]) {
            i = skip(end);
            continue;
        }
        words += 1;
        // PostgreSQL's words, behind its zone or process id: a severity is the level (`LOG`,
        // `PANIC` too), a detail's label is none, and stays in what the line says.
        if let Some(detail) = pg_word(&c[i..end], &c[end..])
            .filter(|_| end < crate::unknown::LEVEL_WINDOW && (zone.is_some() || pid.is_some()))
        {
            let (level, message) = if detail { (None, i) } else { (Some(i..end - 1), skip(end)) };
            return Some(StampedLine {
                timestamp,
                level,
                message,
                zone,
                pid,
                postgres: true,
                detail,
                ..StampedLine::default()
            });
        }
        // Within the bytes `--unknown warn` looks at for a level: a level word it cannot see
        // would be `log.level` of an event it does not take.
        let tabbed = i == first && c[i - 1] == b'\t' && tabbed_level(&c[i..]);
        if let Some(w) = level_in(&c[i..end])
            .or_else(|| tabbed.then_some(0..end - i))
            .filter(|w| i + w.end < crate::unknown::LEVEL_WINDOW)
        {
            let w = i + w.start..i + w.end;
            let mut message = skip(end);
            let mut target = None;
            if unclosed && !c[i..end].ends_with(b"]") {
                let end = word_end(message);
                if c[message..end].ends_with(b"]") {
                    target = Some(message..end - 1).filter(|t| !t.is_empty());
                    message = skip(end);
                }
            }
            let sep = word_end(message);
            if sep > message && separator(&c[message..sep]) {
                message = skip(sep);
            }
            let mut thread = None;
            if target.is_none()
                && let Some((t, logger, at)) = logger_dash(c, message)
            {
                (thread, target, message) = (t, Some(logger), at);
            }
            return Some(StampedLine {
                timestamp,
                target,
                level: Some(w),
                message,
                zone,
                pid,
                thread,
                ..StampedLine::default()
            });
        }
        i = skip(end);
    }
    Some(StampedLine { timestamp, message: first, zone, pid, ..StampedLine::default() })
}

/// logback's and log4j's `[<thread>] <logger> - ` after the level (`%-5level [%thread]
/// %logger{36} - %msg`, or the thread before the level): the thread without its brackets, the
/// logger, and where the message starts. The logger is a class's name (`app - x`, `v1.2.3 -
/// x` may be a message's own). The thread and logger were clustered as
/// the message's first words (`[main] c.e.orders.OrderService - query failed`: a cluster per
/// logger, whatever it logged; found by a developer's reading).
fn logger_dash(c: &[u8], at: usize) -> Option<(Option<Range<usize>>, Range<usize>, usize)> {
    let mut i = at;
    let mut thread = None;
    if c.get(i) == Some(&b'[') {
        let close = i + memchr::memchr(b']', &c[i..c.len().min(i + 64)])?;
        thread = Some(i + 1..close);
        i = close + 1 + c[close + 1..].iter().take_while(|&&b| b == b' ').count();
    }
    let end = i + c[i..].iter().position(|&b| b == b' ' || b == b'\n')?;
    let logger = &c[i..end];
    // A class's name: words that start with a letter, joined by dots (`c.e.OrderService`;
    // not `v1.2.3`, nor a word alone: `timeout - giving up` is a message's own).
    let name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-');
    let class = logger.contains(&b'.')
        && logger.split(|&b| b == b'.').all(|w| w.first().is_some_and(u8::is_ascii_alphabetic) && w.iter().all(name));
    if !class {
        return None;
    }
    // A message with a letter: `- -` or `- 500` after the logger are no message to cluster by.
    let message = &c[(end + 3).min(c.len())..];
    let message = &message[..memchr::memchr(b'\n', message).unwrap_or(message.len())];
    (c[end..].starts_with(b" - ") && message.iter().any(u8::is_ascii_alphabetic)).then(|| (thread, i..end, end + 3))
}

/// MySQL's error log after its time: `<thread> [<label>] [MY-<code>] [<subsystem>] <message>`
/// (8.0; 5.7 prints neither code nor subsystem), its label `System`, `ERROR`, `Warning` or
/// `Note`, read from `at`: the line without its time, which the caller adds.
fn mysql_line(c: &[u8], at: usize) -> Option<StampedLine> {
    let word = |i: usize| i + c[i..].iter().position(|&b| b == b' ').unwrap_or(c.len() - i);
    let bracketed = |i: usize| {
        let e = word(i);
        (e - i >= 3 && c[i] == b'[' && c[e - 1] == b']').then_some((i + 1..e - 1, (e + 1).min(c.len())))
    };
    let thread = at..word(at);
    if thread.is_empty() || thread.len() > 20 || !c[thread.clone()].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let (label, next) = bracketed((thread.end + 1).min(c.len()))?;
    if !matches!(&c[label.clone()], b"System" | b"ERROR" | b"Warning" | b"Note") {
        return None;
    }
    let code = bracketed(next).filter(|(r, _)| {
        let w = &c[r.clone()];
        w.len() > 3 && w.starts_with(b"MY-") && w[3..].iter().all(u8::is_ascii_digit)
    });
    let line = StampedLine { thread: Some(thread), level: Some(label), message: next, ..StampedLine::default() };
    let Some((code, next)) = code else { return Some(line) };
    let sub = bracketed(next).filter(|(r, _)| c[r.clone()].iter().all(u8::is_ascii_alphanumeric));
    Some(StampedLine {
        code: Some(code),
        message: sub.as_ref().map_or(next, |s| s.1),
        target: sub.map(|s| s.0),
        ..line
    })
}

/// Does the time `t` (a [`stamped_time`]'s) end with its zone (`Z`, `+01:00`)?
fn zoned(t: &[u8]) -> bool {
    let n = t.len();
    matches!(t.last(), Some(b'Z' | b'z'))
        || (n >= 6 && matches!(t[n - 6], b'+' | b'-') && t[n - 3] == b':' && t[n - 2..].iter().all(u8::is_ascii_digit))
}

/// Does `s` start with a level word in any case and then a tab? A column between tabs right
/// after the time is the level (zap's console lines: `<time>\terror\t<caller>\t…`), not the
/// message's word that a lower-case level word alone may be.
fn tabbed_level(s: &[u8]) -> bool {
    memchr::memchr(b'\t', &s[..s.len().min(10)]).is_some_and(|e| e > 0 && level_word(&s[..e], true))
}

/// Does `s` start with a level word ([`level_in`]) and then a blank, a tab or its end?
fn level_word_at(s: &[u8]) -> bool {
    level_in(&s[..s.iter().position(|b| *b == b' ' || *b == b'\t').unwrap_or(s.len())]).is_some()
}

/// The level word that the word `w` is, without the brackets around it or a colon or comma
/// after it (`[WARN]`, `CRITICAL:`): its range in `w`.
fn level_in(w: &[u8]) -> Option<Range<usize>> {
    let mut r = 0..w.len();
    while r.start < r.end && matches!(w[r.start], b'[' | b'<' | b'(') {
        r.start += 1;
    }
    let bracketed = r.start > 0;
    while r.end > r.start && matches!(w[r.end - 1], b']' | b'>' | b')' | b':' | b',') {
        r.end -= 1;
    }
    (r.start < r.end && level_word(&w[r.clone()], bracketed)).then_some(r)
}

/// A level word as other programs print them: upper case, capitalised (Windows' `Info`), or in
/// any case when `bracketed` (`[warn]`); in brackets, MySQL's `[Note]` too (its Docker image's
/// entrypoint: `… [Note] [Entrypoint]: …`; a capitalised `Note` alone starts a sentence).
fn level_word(w: &[u8], bracketed: bool) -> bool {
    if bracketed && w.eq_ignore_ascii_case(b"NOTE") {
        return true;
    }
    const WORDS: [&[u8]; 11] =
        [b"TRACE", b"DEBUG", b"INFO", b"NOTICE", b"WARN", b"WARNING", b"ERROR", b"ERR", b"FATAL", b"CRIT", b"CRITICAL"];
    WORDS.iter().any(|l| {
        w.len() == l.len()
            && if bracketed {
                w.eq_ignore_ascii_case(l)
            } else {
                w[0] == l[0]
                    && (w[1..] == l[1..] || w[1..].iter().zip(&l[1..]).all(|(a, b)| *a == b.to_ascii_lowercase()))
            }
    })
}

/// A parsed RisingWave text line (ranges into the line's content).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextLine {
    pub timestamp: Range<usize>,
    pub level: Range<usize>,
    pub thread: Option<Range<usize>>,
    /// Outermost first.
    pub spans: Vec<(Range<usize>, Vec<KeyValue>)>,
    pub target: Option<Range<usize>>,
    pub message: Range<usize>,
    pub fields: Vec<KeyValue>,
}

/// A field: the ranges of its key and of its value.
pub type KeyValue = (Range<usize>, Range<usize>);

fn is_ident_byte(b: u8) -> bool {
    IDENT[b as usize]
}

/// `[A-Za-z0-9_]` as a table: one load per byte where the comparisons took several (targets and
/// span names are scanned byte by byte on every line of an `--all` run).
static IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    t
};

/// `ident(::ident)*:` followed by a space, a line break or the end: the length up to the colon.
fn target_len(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    if s.is_empty() || !(s[0].is_ascii_alphabetic() || s[0] == b'_') {
        return None;
    }
    loop {
        while i < s.len() && is_ident_byte(s[i]) {
            i += 1;
        }
        if s[i..].starts_with(b"::") && s.get(i + 2).is_some_and(|&b| is_ident_byte(b)) {
            i += 2;
            continue;
        }
        break;
    }
    if s.get(i) == Some(&b':') && (i + 1 == s.len() || matches!(s[i + 1], b' ' | b'\n')) { Some(i) } else { None }
}

/// Positions of ` key=` field starts in `s` (index of the space), keys `[A-Za-z_][A-Za-z0-9_.#]*`.
pub fn field_starts(s: &[u8], out: &mut Vec<usize>) {
    out.extend(memchr::memchr_iter(b'=', s).filter_map(|eq| field_start(s, eq)));
}

/// The first of [`field_starts`]: where the message before the fields ends.
pub fn first_field_start(s: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'=', s).find_map(|eq| field_start(s, eq))
}

/// The ` key=` field start whose `=` is at `eq`, if that is one.
fn field_start(s: &[u8], eq: usize) -> Option<usize> {
    let mut k = eq;
    while k > 0 && (is_ident_byte(s[k - 1]) || s[k - 1] == b'.' || s[k - 1] == b'#') {
        k -= 1;
    }
    // `then`, not `then_some`: `k - 1` is computed only when `k != 0` (a debug build panicked on
    // a line starting with `key=`).
    (k != eq && k != 0 && s[k - 1] == b' ' && (s[k].is_ascii_alphabetic() || s[k] == b'_')).then(|| k - 1)
}

/// Where the text of a multi-line event whose first line ends at `nl` ends before a backtrace
/// (`Backtrace:`, `stack backtrace:` on a line of its own, and the blank lines above it): the
/// end of `s` when there is none.
fn before_backtrace(s: &[u8], nl: usize) -> usize {
    let mut at = nl;
    for line in s[nl + 1..].split(|&b| b == b'\n') {
        let l = line.trim_ascii_start();
        if l.starts_with(b"Backtrace:") || l.starts_with(b"Stack backtrace:") || l.starts_with(b"stack backtrace:") {
            return s[..at].trim_ascii_end().len().max(nl);
        }
        at += 1 + line.len();
    }
    s.len()
}

/// Where an event's text ends without the lines a paste or a pipe leaves after it: blank ones,
/// a Markdown fence's close (```` ``` ````, `~~~`) and `grep -C`'s `--` between matches.
/// `end`: where it ends; `line_end`: the end of its first line, which is never cut. The fields
/// that end a message's last line were looked for on such a line, and went unread (found by an
/// on-call engineer's reading: a `Caused by:` report pasted with a blank line after it lost its
/// `database_id`, and a `{:?}` message its `actor_id`, clustered apart).
fn before_paste_noise(s: &[u8], mut end: usize, line_end: usize) -> usize {
    while end > line_end {
        let last = memchr::memrchr(b'\n', &s[..end]).map_or(0, |p| p + 1).max(line_end);
        let l = s[last..end].trim_ascii();
        if !(l.is_empty() || l == b"--" || l.starts_with(b"```") || l.starts_with(b"~~~")) {
            break;
        }
        end = last.saturating_sub(1).max(line_end);
    }
    end
}

/// Parse a RisingWave text header and body. `s` is the first line's content.
/// Spring Boot's console layout after the level (`%5p ${PID} --- [%15.15t] %-40.40logger{39} :
/// `, Spring Boot 3.2's application name in brackets before the thread): the thread (its padding
/// taken off), the logger, and where the message starts. Read as a RisingWave header's message,
/// the pid, thread and logger before its ` : ` were the text clustered, one cluster per logger
/// (a generalisation reader's Spring services). `at`: where the message would start.
fn spring_tail(s: &[u8], at: usize) -> Option<(Range<usize>, Range<usize>, usize)> {
    let mut i = at + s.get(at..)?.iter().take_while(|&&b| b == b' ').count();
    let pid = s[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if pid == 0 || !s[i + pid..].starts_with(b" --- [") {
        return None;
    }
    i += pid + 5;
    // A bracket at `i` and the blank after it: what it holds without its padding, and where the
    // next word starts. (A thread's name has no `]`; a logger may: Tomcat's
    // `o.a.c.c.C.[.[.[/].[dispatcherServlet]`.)
    let bracket = |i: usize| -> Option<(Range<usize>, usize)> {
        let close = i + memchr::memchr(b']', &s[i..s.len().min(i + 256)])?;
        let inner = i + 1 + s[i + 1..close].iter().take_while(|&&b| b == b' ').count()..close;
        (s.get(close + 1) == Some(&b' ')).then_some((inner, close + 2))
    };
    let (mut thread, mut next) = bracket(i)?;
    if s.get(next) == Some(&b'[') {
        (thread, next) = bracket(next)?;
    }
    let logger_end = next + s[next..].iter().position(|&b| b == b' ' || b == b'\n')?;
    let colon = logger_end + s[logger_end..].iter().take_while(|&&b| b == b' ').count();
    let ends = matches!(s.get(colon + 1), Some(b' ' | b'\n') | None);
    let message = if s.get(colon + 1) == Some(&b'\n') { colon + 1 } else { (colon + 2).min(s.len()) };
    (logger_end > next && s.get(colon) == Some(&b':') && ends).then_some((thread, next..logger_end, message))
}

pub fn parse_text(s: &[u8]) -> Option<TextLine> {
    // Where the level column starts: after the time and a blank; in a header without its time
    // ([`bare_header`]), the level word the line starts with.
    let mut out = TextLine::default();
    let mut i = match loose_timestamp_len(s) {
        Some(t) => {
            let lv = t + 1;
            let lead = s[lv..(lv + 5).min(s.len())].iter().take_while(|&&b| b == b' ').count();
            out.timestamp = 0..t;
            out.level = (lv + lead).min(s.len())..(lv + 5).min(s.len());
            // A header that ends at its level (`<ts> ERROR`, its blanks trimmed off) has
            // nothing after it.
            (lv + 6).min(s.len())
        }
        None => {
            let (level, rest) = bare_level(s)?;
            out.level = level;
            rest
        }
    };
    // Thread name: padded right-aligned; a token without `:`, `{` or `=` (spans and the target
    // always have one of them). It is one only when a span or a target follows it (below).
    let mut j = i;
    while j < s.len() && s[j] == b' ' {
        j += 1;
    }
    let no_thread = j;
    if let Some(sp) = memchr::memchr(b' ', &s[j..]) {
        let tok = &s[j..j + sp];
        if !tok.is_empty() && !tok.iter().any(|&b| matches!(b, b':' | b'{' | b'=' | b'\n')) {
            out.thread = Some(j..j + sp);
            i = j + sp + 1;
        }
    }
    // Spans: name{fields}:name:... then a space.
    let mut k = i;
    let mut spans = Vec::new();
    loop {
        let name_end = k + s[k..].iter().take_while(|&&b| is_ident_byte(b) || b == b'-' || b == b'.').count();
        if name_end == k {
            break;
        }
        let next = s.get(name_end).copied();
        if next == Some(b'{') {
            // The span's fields end at the brace that balances its `{` (Debug values inside are
            // balanced), followed by `:`; failing that, at the first `}:` after which a span
            // name or a space follows.
            let mut close = None;
            let mut depth = 0usize;
            for (off, &b) in s[name_end..].iter().enumerate() {
                match b {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            let c = name_end + off;
                            if s.get(c + 1) == Some(&b':') {
                                close = Some(c);
                            }
                            break;
                        }
                    }
                    b'\n' => break,
                    _ => {}
                }
            }
            let mut search = name_end + 1;
            while close.is_none()
                && let Some(rel) = memchr::memmem::find(&s[search..], b"}:")
            {
                let c = search + rel;
                let after = s.get(c + 2).copied();
                if after == Some(b' ') || after.is_some_and(is_ident_byte) {
                    close = Some(c);
                }
                search = c + 2;
            }
            let Some(c) = close else { break };
            let fields = span_fields(s, name_end + 1, c);
            spans.push((k..name_end, fields));
            k = c + 2;
        } else if next == Some(b':') && s.get(name_end + 1) != Some(&b':') {
            // A span without fields, unless it is the target itself.
            let after = s.get(name_end + 1).copied();
            if after == Some(b' ') {
                // `name: ` is a span only when a `::` target follows.
                let rest = &s[name_end + 2..];
                match target_len(rest) {
                    Some(n) if rest[..n].windows(2).any(|w| w == b"::") => {}
                    _ => break,
                }
            } else if !after.is_some_and(is_ident_byte) {
                break;
            }
            spans.push((k..name_end, Vec::new()));
            k = name_end + 1;
        } else {
            break;
        }
        if s.get(k) == Some(&b' ') {
            k += 1;
            i = k;
            break;
        }
    }
    if !spans.is_empty() && i == k {
        out.spans = spans;
    }
    let mut target = target_len(&s[i..]);
    // A module path has `::` or a crate's `_` (`risingwave_meta::barrier`, `risingwave_rt`); one
    // plain word after the first is the message's (`upload failed: s3 timeout`: found by a
    // second reader).
    let plain_word = |n: usize| !s[i..i + n].windows(2).any(|w| w == b"::") && !s[i..i + n].contains(&b'_');
    if out.thread.is_some() && out.spans.is_empty() && target.is_none_or(plain_word) {
        // No span or target after the word: it is the message's first word (another program's
        // `<time> ERROR failed to connect`), not a thread's name.
        out.thread = None;
        i = no_thread;
        target = target_len(&s[i..]);
    }
    if let Some(n) = target {
        out.target = Some(i..i + n);
        // An empty message ends the line at the target's colon (`… x:` over a `Caused by:`
        // report): the message starts at the line break, as it does after `x: `.
        i = if s.get(i + n + 1) == Some(&b'\n') { i + n + 1 } else { (i + n + 2).min(s.len()) };
    }
    if out.target.is_none() && out.spans.is_empty() {
        // Another program's layout that fills RisingWave's level column (`ERROR`): Spring
        // Boot's, log4j's and logback's `[thread] logger - ` (their `WARN` lines are read as
        // dated lines, [`parse_stamped`]).
        if let Some((thread, target, message)) = spring_tail(s, i) {
            (out.thread, out.target, i) = (Some(thread), Some(target), message);
        } else if let Some((thread, target, message)) = logger_dash(s, i) {
            (out.thread, out.target, i) = (thread, Some(target), message);
        }
    }
    // Message and fields. The fields end the message's line; a message that spans lines (a
    // string with a line break in it, `… heartbeat\n    until we can successfully report its
    // status.`) has them at the end of its last line. `message` is its first line either way.
    let line_end = memchr::memchr(b'\n', &s[i..]).map_or(s.len(), |p| i + p);
    let mut starts = Vec::new();
    field_starts(&s[i..line_end], &mut starts);
    let mut msg_end = starts.first().map_or(line_end, |&p| i + p);
    // An event logged with fields and no message (`tracing::error!(epoch = 5)`) prints its
    // first field where the message goes: `…::rpc: epoch=5 job=a`. A message of one `key=value`
    // token is that field, and the message is empty (it was clustered as `epoch=<*>`, a
    // template of a field, where the same event in JSON is clustered by its target; found by a
    // second reader). A message that goes on after its first word (`txn_id=5 large transaction
    // …`) is a message, but for an `error` (`err`) field's: an error printed with `Display` has
    // blanks in it (`…::rpc: error=connection refused`), and no message starts with `error=`.
    let first = &s[i..msg_end];
    let lead = memchr::memchr(b'=', first).filter(|&eq| {
        eq > 0
            && first[..eq].iter().all(|&b| is_ident_byte(b) || b == b'.')
            && (matches!(&first[..eq], b"error" | b"err") || !first.iter().any(|&b| b == b' ' || b == b'\t'))
    });
    if let Some(eq) = lead {
        out.fields.push((i..i + eq, i + eq + 1..msg_end));
        msg_end = i;
    }
    out.message = i..msg_end;
    let (from, end) = if starts.is_empty() && lead.is_none() && line_end < s.len() {
        // The last line of the message, above a backtrace if one ends the event (`…: operation
        // timed out epoch=7`, a blank line, `Backtrace:` and its frames).
        let end = before_paste_noise(s, before_backtrace(s, line_end), line_end);
        let last = memchr::memrchr(b'\n', &s[..end]).map_or(end, |p| p + 1);
        field_starts(&s[last..end], &mut starts);
        (last, end)
    } else {
        (i, line_end)
    };
    for (n, &st) in starts.iter().enumerate() {
        let ks = from + st + 1;
        let eq = ks + memchr::memchr(b'=', &s[ks..end]).unwrap_or(0);
        let ve = starts.get(n + 1).map_or(end, |&p| from + p);
        out.fields.push((ks..eq, eq + 1..ve));
    }
    Some(out)
}

fn span_fields(s: &[u8], from: usize, to: usize) -> Vec<KeyValue> {
    let body = &s[from..to];
    let mut starts = vec![];
    // The first field has no leading space.
    let first_eq = memchr::memchr(b'=', body);
    let mut out = Vec::new();
    let Some(first_eq) = first_eq else { return out };
    field_starts(body, &mut starts);
    starts.retain(|&p| p > first_eq);
    let mut ks = 0;
    let mut eq = first_eq;
    for n in 0..=starts.len() {
        let ve = starts.get(n).copied().unwrap_or(body.len());
        out.push((from + ks..from + eq, from + eq + 1..from + ve));
        if let Some(&st) = starts.get(n) {
            ks = st + 1;
            eq = ks + memchr::memchr(b'=', &body[ks..]).unwrap_or(0);
        }
    }
    out
}

/// Milliseconds since the Unix epoch of an RFC 3339 timestamp (`2026-03-02T08:00:00.123Z`, a
/// space for the `T`, any fraction, `Z`, `+HH:MM`, `+HHMM` or no zone, read as UTC).
pub fn parse_timestamp(s: &str) -> Option<i64> {
    parse_timestamp_parts(s).map(|(secs, ns)| secs * 1_000 + ns / 1_000_000)
}

/// [`parse_timestamp`] as seconds since the Unix epoch and the nanoseconds past them (a
/// fraction past nine digits is cut): apart, so that any year is right (a year-1 or year-2300
/// time overflowed nanoseconds in an `i64`: found by a second reader).
pub fn parse_timestamp_parts(s: &str) -> Option<(i64, i64)> {
    let b = s.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let d = b.get(r)?;
        if d.iter().all(u8::is_ascii_digit) {
            Some(d.iter().fold(0i64, |n, c| n * 10 + i64::from(c - b'0')))
        } else {
            None
        }
    };
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut i = 19;
    let mut ns = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        let digits = &b[start..i.min(start + 9)];
        ns = digits.iter().fold(0i64, |n, c| n * 10 + i64::from(c - b'0')) * 10i64.pow(9 - digits.len() as u32);
    }
    let offset_min = match b.get(i) {
        None => 0,
        Some(b'Z' | b'z') if i + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) => {
            let (oh, om) = match b.len() - i {
                6 if b[i + 3] == b':' => (num(i + 1..i + 3)?, num(i + 4..i + 6)?),
                5 => (num(i + 1..i + 3)?, num(i + 3..i + 5)?),
                3 => (num(i + 1..i + 3)?, 0),
                _ => return None,
            };
            let o = oh * 60 + om;
            if sign == b'-' { -o } else { o }
        }
        _ => return None,
    };
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3_600 + mi * 60 + sec) - offset_min * 60, ns))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Overflowed in a debug build (`k - 1` at `k == 0`) on a line that starts with `key=`.
    #[test]
    fn regression_field_starts_of_a_line_that_starts_with_a_key() {
        let cases: &[(&[u8], &[usize])] =
            &[(b"a=1 b=2", &[3]), (b"=x", &[]), (b"msg k=v l.m#n=w", &[3, 7]), (b" k=v", &[0]), (b"x 1=2", &[])];
        for &(s, want) in cases {
            let mut got = Vec::new();
            field_starts(s, &mut got);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(s));
        }
    }

    #[test]
    fn timestamps_parse_as_rfc3339() {
        let cases: &[(&str, Option<i64>)] = &[
            ("1970-01-01T00:00:00Z", Some(0)),
            ("2026-03-02T08:00:00.776978869Z", Some(1_772_438_400_776)),
            ("2026-03-02 08:00:00.5", Some(1_772_438_400_500)),
            ("2026-03-02T10:00:00+02:00", Some(1_772_438_400_000)),
            ("2026-03-02T03:00:00-0500", Some(1_772_438_400_000)),
            ("2026-03-02T08:00:00.1Z", Some(1_772_438_400_100)),
            ("2026-13-02T08:00:00Z", None),
            ("2026-03-02T08:00:00.Z", None),
            ("2026-03-02T08:00:00Zjunk", None),
            ("yesterday", None),
            // regression (found by a second reader): years an `i64` of nanoseconds cannot hold
            // wrapped around once the milliseconds were taken from the nanoseconds.
            ("0001-01-01T00:00:00Z", Some(-62_135_596_800_000)),
            ("2300-01-01T00:00:00.5Z", Some(10_413_792_000_500)),
        ];
        for (s, want) in cases {
            assert_eq!(parse_timestamp(s), *want, "{s}");
        }
    }

    #[test]
    fn times_in_range_and_out_of_it() {
        let cases: &[(&str, bool)] = &[
            ("2026-03-02T08:00:00.776978869Z", true),
            ("2026-03-02T08:00:00", true),
            ("2024-02-29T23:59:59Z", true),
            ("2026-12-31T23:59:59.999+14:00", true),
            ("2026-12-05T10:00:00.5-03:30", true),
            ("2026-12-05T10:00:00-18:00", true),
            ("1969-12-31T23:59:59Z", true),
            ("0001-01-01T00:00:00Z", true),
            ("1600-02-29T00:00:00Z", true),
            // Out of range before 1970 too: MySQL's zero date, a 32nd of December, a
            // 29 February of a common year.
            ("0000-00-00T00:00:00", false),
            ("1969-12-32T00:00:00Z", false),
            ("1900-02-29T00:00:00Z", false),
            // A leap second; an offset Java does not take.
            ("2016-12-31T23:59:60Z", false),
            ("2026-03-02T08:00:00+18:01", false),
            ("2026-03-02T08:00:00+19:00", false),
            // Another shape: not judged.
            ("2026-13-45 08:00:00", true),
            ("yesterday", true),
            ("2026-13-02T08:00:00Z", false),
            ("2026-00-02T08:00:00Z", false),
            ("2026-02-29T08:00:00Z", false),
            ("2026-04-31T08:00:00Z", false),
            ("2026-03-00T08:00:00.1", false),
            ("2026-03-02T24:00:00Z", false),
            ("2026-03-02T08:60:00Z", false),
            ("2026-03-02T08:00:61Z", false),
            ("2026-03-02T08:00:00+24:00", false),
            ("2026-03-02T08:00:00.123-05:60", false),
        ];
        for (ts, want) in cases {
            assert_eq!(time_in_range(ts), *want, "{ts}");
        }
    }

    #[test]
    fn loose_timestamps_are_written_in_rfc3339_form() {
        let cases: &[(&str, Option<&str>)] = &[
            // Already RFC 3339: left as it is.
            ("2026-03-02T08:00:00.776978869Z", None),
            ("2026-03-02T10:00:00+02:00", None),
            ("2025-02-11T09:14:52.417", None),
            // A log viewer's export, log4j's comma, a lower-case `t` and `z`.
            ("2025-02-11 09:14:52.417", Some("2025-02-11T09:14:52.417")),
            ("2015-10-18 18:01:47,978", Some("2015-10-18T18:01:47.978")),
            ("2025-02-11t09:14:52z", Some("2025-02-11T09:14:52Z")),
            ("2025-02-11 09:14:52+08:00", Some("2025-02-11T09:14:52+08:00")),
            ("2025-02-11 09:14:52,", None),
            // A date with slashes (nginx, Go's `log`).
            ("2025/02/11 09:14:52", Some("2025-02-11T09:14:52")),
            ("2025/02/11 09:14:52.417123", Some("2025-02-11T09:14:52.417123")),
            ("2025/02/11 and more", None),
            // Not a whole timestamp: not touched.
            ("2025-02-11 09:14:52.417 and more", None),
            ("1700000000", None),
            ("yesterday", None),
        ];
        for (ts, want) in cases {
            assert_eq!(rfc3339_form(ts).as_deref(), *want, "{ts}");
            if let Some(w) = want {
                assert!(parse_timestamp(w).is_some(), "{w} parses");
            }
        }
    }

    #[test]
    fn field_times() {
        let cases: &[(&str, Option<&str>)] = &[
            ("2026-03-02T08:00:00Z", Some("2026-03-02T08:00:00Z")),
            ("2026-03-02 08:00:00,123", Some("2026-03-02 08:00:00,123")),
            // log15's zone, ISO 8601's basic form
            ("2026-03-02T08:00:00+0000", Some("2026-03-02T08:00:00+00:00")),
            ("2026-03-02T08:00:00.123-0530", Some("2026-03-02T08:00:00.123-05:30")),
            ("2026-03-02T08:00:00+000", None),
            ("2026-03-02T08:00:00+0000 x", None),
            ("1700000000.1", None),
            ("soon", None),
        ];
        for (t, want) in cases {
            assert_eq!(field_time(t.as_bytes()).as_deref(), *want, "{t}");
        }
    }

    fn st(s: &str) -> (Prefix, Header) {
        classify(s.as_bytes(), &mut StreamState::default())
    }

    #[test]
    fn timestamps() {
        let cases: &[(&str, Option<usize>)] = &[
            ("2026-03-02T08:00:29.906432768Z  WARN", Some(30)),
            ("2025-07-07T11:13:02.30108805-04:00  INFO", Some(34)),
            ("2026-03-02T08:00:29Z x", Some(20)),
            ("2026-03-02 08:00:29", None),
            // The offset's hours and minutes are digits too (a timestamp is written unescaped).
            ("2026-03-02T08:00:29+0\":00 x", None),
            ("2026-03-02T08:00:29-05:30 x", Some(25)),
            ("not a time at all here", None),
        ];
        for (s, want) in cases {
            assert_eq!(timestamp_len(s.as_bytes()), *want, "{s}");
        }
    }

    /// The byte-by-byte reading the word-at-a-time one replaced.
    fn date_time_len_bytewise(s: &[u8]) -> Option<usize> {
        if s.len() < 19 {
            return None;
        }
        const SHAPE: &[u8; 19] = b"0000-00-00T00:00:00";
        let ok = s[..19].iter().zip(SHAPE).all(|(&c, &want)| match want {
            b'0' => c.is_ascii_digit(),
            b'T' => matches!(c, b'T' | b't' | b' '),
            _ => c == want,
        });
        if !ok {
            return None;
        }
        let mut i = 19;
        if i < s.len() && (s[i] == b'.' || s[i] == b',') {
            i += 1;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
        }
        Some(i)
    }

    proptest::proptest! {
        /// Timestamps, near misses (any byte of a real one replaced, the text cut anywhere)
        /// and fractions of any length read as byte by byte.
        #[test]
        fn date_time_len_reads_as_byte_by_byte(
            frac in "[0-9]{0,20}",
            sep in "[.,]",
            tail in "[Z+ 0-9a:x/\u{80}-\u{ff}]{0,10}",
            at in 0usize..40,
            byte in proptest::num::u8::ANY,
            cut in 0usize..60,
        ) {
            let mut t = format!("2026-03-02T08:00:29{sep}{frac}{tail}").into_bytes();
            for s in [t.clone(), { if at < t.len() { t[at] = byte; } t.clone() }] {
                for s in [&s[..], &s[..cut.min(s.len())]] {
                    proptest::prop_assert_eq!(date_time_len(s), date_time_len_bytewise(s), "{:?}", String::from_utf8_lossy(s));
                }
            }
        }
    }

    #[test]
    fn kubernetes_event_rows() {
        // (row, type, reason, object or source, message)
        let rows: &[(&str, Option<(&str, &str, &str, &str)>)] = &[
            (
                "11m         Warning   BackOff            pod/compute-0      Back-off restarting failed container",
                Some(("Warning", "BackOff", "pod/compute-0", "Back-off restarting failed container")),
            ),
            (
                "risingwave   9m          Warning   OOMKilling   node/node-3   Memory cgroup out of memory",
                Some(("Warning", "OOMKilling", "node/node-3", "Memory cgroup out of memory")),
            ),
            (
                "2d3h   Normal   Pulled   pod/x   Container image already present",
                Some(("Normal", "Pulled", "pod/x", "Container image already present")),
            ),
            (
                "<unknown>   Warning   FailedMount   pod/x   MountVolume.SetUp failed",
                Some(("Warning", "FailedMount", "pod/x", "MountVolume.SetUp failed")),
            ),
            (
                "  Warning  BackOff    3m12s (x25 over 10m)  kubelet            Back-off restarting failed container",
                Some(("Warning", "BackOff", "kubelet", "Back-off restarting failed container")),
            ),
            (
                "  Normal   Scheduled  12m   default-scheduler  Successfully assigned",
                Some(("Normal", "Scheduled", "default-scheduler", "Successfully assigned")),
            ),
            // The header rows; a type that is not Kubernetes'; an object without a kind; a
            // message's own words; a continuation line.
            ("LAST SEEN   TYPE      REASON   OBJECT   MESSAGE", None),
            ("  Type     Reason     Age   From   Message", None),
            ("11m   Error   BackOff   pod/x   y", None),
            ("11m   Warning   BackOff   compute-0   y", None),
            ("11m Warning BackOff pod/x y", None),
            ("warning   Warning   x", None),
            ("    at risingwave_meta::barrier::worker", None),
            ("  Warning  BackOff  soon  kubelet  y", None),
        ];
        for &(row, want) in rows {
            let got = super::kube_event(row.as_bytes())
                .map(|k| (&row[k.kind], &row[k.reason], &row[k.object], &row[k.message..]));
            assert_eq!(got, want, "{row:?}");
            if want.is_some() {
                assert_eq!(st(row).1, Header::Stamped, "{row:?}");
            }
        }
    }

    #[test]
    fn zone_words_and_their_offsets() {
        for (w, zone, offset) in [
            ("UTC", true, Some("Z")),
            ("GMT", true, Some("Z")),
            ("+01", true, Some("+01:00")),
            ("-0530", true, Some("-05:30")),
            ("+05:45", true, Some("+05:45")),
            ("CEST", true, None),
            ("IST", true, None),
            ("+24", false, None),
            ("+0160", false, None),
            ("+1", false, None),
            ("utc", false, None),
            ("GET", false, None),
            ("ERROR", false, None),
        ] {
            assert_eq!(super::zone_word(w.as_bytes()), zone, "{w}");
            assert_eq!(super::zone_offset(w.as_bytes()).as_deref(), offset, "{w}");
        }
    }

    #[test]
    fn date_time_len_cases() {
        for (s, want) in [
            ("2026-03-02T08:00:29", Some(19)),
            ("2026-03-02t08:00:29.1", Some(21)),
            ("2026-03-02 08:00:29,123456789Z", Some(29)),
            ("2026-03-02T08:00:29.123456789012345678Z", Some(38)),
            ("2026-03-02T08:00:29.", Some(20)),
            ("2026-03-02X08:00:29", None),
            ("2026-03-02T08:0:29Z", None),
            ("2026/03/02T08:00:29", None),
            ("2026-03-02T08:00:2", None),
            ("2026-03-0:T08:00:29", None),
        ] {
            assert_eq!(date_time_len(s.as_bytes()), want, "{s}");
            assert_eq!(date_time_len_bytewise(s.as_bytes()), want, "{s}");
        }
    }

    #[test]
    fn classify_table() {
        let rw = "2026-03-02T08:00:30.867644121Z  WARN risingwave_meta::x: m";
        assert_eq!(st(rw).1, Header::RisingWave);
        let k = format!("[pod/risingwave-meta-0/meta] 2026-03-02T08:00:30.868199738Z {rw}");
        let (p, h) = st(&k);
        assert_eq!(h, Header::RisingWave);
        assert_eq!(&k[p.kubectl.clone().unwrap().0], "risingwave-meta-0");
        assert!(p.runtime_ts.is_some());
        let cri = format!("2026-03-02T08:00:30.868199738Z stdout F {rw}");
        let (p, h) = st(&cri);
        assert_eq!((h, p.cri.as_ref().map(|c| c.1)), (Header::RisingWave, Some(false)));
        assert_eq!(&cri[p.content..], rw);
        assert_eq!(st("{\"timestamp\":1}").1, Header::Json);
        assert_eq!(st("thread 'rw-main' (11) panicked at src/meta/src/barrier/info.rs:1293:30:").1, Header::Panic);
        assert_eq!(st("    at src/lib.rs:3").1, Header::None);
        let dc = "risingwave-standalone  | 2024-08-12T06:11:40.706343935Z  INFO main risingwave_rt::panic_hook: x";
        assert_eq!(st(dc).1, Header::RisingWave);
        // Other programs' lines that start with a date and time.
        let stamped: &[(&str, &str, Option<&str>, &str)] = &[
            (
                "2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop.Foo: started",
                "2015-10-18 18:01:47,978",
                Some("INFO"),
                "[main] org.apache.hadoop.Foo: started",
            ),
            ("2024-01-01 12:00:00.123 WARN  [main] c.e.Foo - slow", "2024-01-01 12:00:00.123", Some("WARN"), "slow"),
            (
                "2024-01-01 12:00:00,123 - root - WARNING - disk full",
                "2024-01-01 12:00:00,123",
                Some("WARNING"),
                "disk full",
            ),
            (
                "2024-01-01 12:00:00.123 [main] ERROR c.e.Foo - failed",
                "2024-01-01 12:00:00.123",
                Some("ERROR"),
                "failed",
            ),
            (
                "2015-07-29 17:41:44,747 - INFO  [QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774] - Notification time out: 3200",
                "2015-07-29 17:41:44,747",
                Some("INFO"),
                "[QuorumPeer[myid=1]/0:0:0:0:0:0:0:0:2181:FastLeaderElection@774] - Notification time out: 3200",
            ),
            (
                "2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack",
                "2016-09-28 04:30:30",
                Some("Info"),
                "CBS    Loaded Servicing Stack",
            ),
            (
                "2024-01-01T12:00:00.123+01:00 INFO 1 --- [main] c.e.App : Started",
                "2024-01-01T12:00:00.123+01:00",
                Some("INFO"),
                "1 --- [main] c.e.App : Started",
            ),
            (
                "2024-01-01 12:00:00 [warn] 123#0: upstream slow",
                "2024-01-01 12:00:00",
                Some("warn"),
                "123#0: upstream slow",
            ),
            ("2024-01-01 12:00:00\tCRITICAL:\tdisk gone", "2024-01-01 12:00:00", Some("CRITICAL"), "disk gone"),
            // zap's console lines with its lower-case levels: a column between tabs.
            (
                "2024-01-01T12:00:00.000Z\terror\tcontroller/reconcile.go:42\tReconciler error",
                "2024-01-01T12:00:00.000Z",
                Some("error"),
                "controller/reconcile.go:42\tReconciler error",
            ),
            ("2024-01-01 12:00:00\twarn\tslow", "2024-01-01 12:00:00", Some("warn"), "slow"),
            // Lower case before a blank: the message's word.
            ("2024-01-01 12:00:00\terror reading config", "2024-01-01 12:00:00", None, "error reading config"),
            // Kafka's and log4j's bracketed time, env_logger's bracket around time, level and
            // target, a date with slashes (nginx, Go's `log`).
            (
                "[2024-01-01 12:00:00,123] ERROR [ReplicaManager broker=1] Error processing fetch (kafka.server.ReplicaManager)",
                "2024-01-01 12:00:00,123",
                Some("ERROR"),
                "[ReplicaManager broker=1] Error processing fetch (kafka.server.ReplicaManager)",
            ),
            (
                "[2024-01-01T12:00:00Z ERROR my_crate::sink] flush failed",
                "2024-01-01T12:00:00Z",
                Some("ERROR"),
                "flush failed",
            ),
            ("[2024-01-01T12:00:00Z WARN ] slow", "2024-01-01T12:00:00Z", Some("WARN"), "slow"),
            ("[2024-01-01T12:00:00Z] note", "2024-01-01T12:00:00Z", None, "note"),
            (
                "2024/01/01 12:00:00 [error] 31#31: *7 connect() failed",
                "2024/01/01 12:00:00",
                Some("error"),
                "31#31: *7 connect() failed",
            ),
            ("2024/01/01 12:00:00 http: TLS handshake error", "2024/01/01 12:00:00", None, "http: TLS handshake error"),
            // Lower case and unbracketed, or past the first words: the message's own word.
            (
                "2024-01-01 12:00:00 connection error from 10.0.0.1",
                "2024-01-01 12:00:00",
                None,
                "connection error from 10.0.0.1",
            ),
            ("2024-01-01 12:00:00 worker 3 says ERROR", "2024-01-01 12:00:00", None, "worker 3 says ERROR"),
            ("2024-01-01 12:00:00 Errors: 3", "2024-01-01 12:00:00", None, "Errors: 3"),
            ("2024-01-01 12:00:00", "2024-01-01 12:00:00", None, ""),
            // A line that starts with its level (no time: ""): Python's `logging` by default,
            // uvicorn, psql.
            ("ERROR:root:UDF gcd failed: division by zero", "", Some("ERROR"), "UDF gcd failed: division by zero"),
            ("WARNING:arrow_udf.server:slow batch", "", Some("WARNING"), "slow batch"),
            ("CRITICAL:__main__:", "", Some("CRITICAL"), ""),
            ("ERROR:    Exception in ASGI application", "", Some("ERROR"), "Exception in ASGI application"),
            (
                "INFO:     127.0.0.1:5432 - \"GET / HTTP/1.1\" 200 OK",
                "",
                Some("INFO"),
                "127.0.0.1:5432 - \"GET / HTTP/1.1\" 200 OK",
            ),
            ("ERROR:  relation \"t\" does not exist", "", Some("ERROR"), "relation \"t\" does not exist"),
            ("FATAL:\tpassword authentication failed", "", Some("FATAL"), "password authentication failed"),
            // PostgreSQL's server log (`%m [%p] `, `%t [%p]: [%l-1] user=%u,db=%d `): its zone
            // and process id are not what the line says; `LOG` and `PANIC` are its levels
            // (written `WORD:` and two blanks); a detail's label stays in the message.
            (
                "2026-12-05 10:00:01.001 UTC [57] ERROR:  relation \"t\" does not exist",
                "2026-12-05 10:00:01.001",
                Some("ERROR"),
                "relation \"t\" does not exist",
            ),
            (
                "2026-12-05 10:00:05 UTC [1] LOG:  checkpoint starting: time",
                "2026-12-05 10:00:05",
                Some("LOG"),
                "checkpoint starting: time",
            ),
            (
                "2026-12-05 10:00:05 CET [1] PANIC:  could not write",
                "2026-12-05 10:00:05",
                Some("PANIC"),
                "could not write",
            ),
            (
                "2026-12-05 10:00:01.001 CEST [57] STATEMENT:  select 1",
                "2026-12-05 10:00:01.001",
                None,
                "STATEMENT:  select 1",
            ),
            (
                "2026-12-05 10:00:01 +01 [57]: [1-1] user=rw,db=dev LOG:  connection authorized",
                "2026-12-05 10:00:01",
                Some("LOG"),
                "connection authorized",
            ),
            ("2026-12-05 10:00:01 UTC [57] message", "2026-12-05 10:00:01", None, "message"),
            // Not PostgreSQL's: one blank after the colon; a word that is no zone; a zone after
            // a time that has one.
            ("2024-01-01 12:00:00 LOG: x", "2024-01-01 12:00:00", None, "LOG: x"),
            ("2024-01-01 12:00:00 GET /x", "2024-01-01 12:00:00", None, "GET /x"),
            ("2024-01-01T12:00:00Z UTC x", "2024-01-01T12:00:00Z", None, "UTC x"),
            // A review's cases: a zone word after a time that has an offset is the message's (it
            // made `@timestamp` `…+01:00Z`); a zone or a bracketed number alone is skipped only
            // right before a level, so a message's first word stays its own and the three words
            // a level is looked for in do not move.
            ("2024-01-01T12:00:00+01:00 UTC [5] ERROR:  x", "2024-01-01T12:00:00+01:00", Some("ERROR"), "x"),
            ("2024-01-01 12:00:00 -10 degrees ERROR cold", "2024-01-01 12:00:00", Some("ERROR"), "cold"),
            (
                "2024-01-01 12:00:00 EST Server started ERROR here",
                "2024-01-01 12:00:00",
                None,
                "EST Server started ERROR here",
            ),
            ("2024-01-01 12:00:00 [3] a b ERROR x", "2024-01-01 12:00:00", None, "[3] a b ERROR x"),
            ("2024-01-01 12:00:00 [3] ERROR x", "2024-01-01 12:00:00", Some("ERROR"), "x"),
            ("2024-01-01 12:00:00 UTC LOG:  x", "2024-01-01 12:00:00", Some("LOG"), "x"),
            // A second review's: an abbreviation outside the list before a process id; `UTC`
            // alone before more of the prefix (`%m %u@%d `); a level word before a number is
            // no zone.
            ("2026-12-05 10:00:01.001 SAST [57] ERROR:  x", "2026-12-05 10:00:01.001", Some("ERROR"), "x"),
            ("2026-12-05 10:00:01.001 UTC rw@dev STATEMENT:  x", "2026-12-05 10:00:01.001", None, "STATEMENT:  x"),
            ("2024-01-01 12:00:00 WARN [123] x", "2024-01-01 12:00:00", Some("WARN"), "[123] x"),
            // MySQL's error log (8.0, then 5.7): thread, label, code, subsystem.
            (
                "2026-12-05T10:00:01.123456Z 0 [Warning] [MY-010068] [Server] CA certificate ca.pem is self signed.",
                "2026-12-05T10:00:01.123456Z",
                Some("Warning"),
                "CA certificate ca.pem is self signed.",
            ),
            (
                "2026-12-05T10:00:01.123456Z 15 [Note] [MY-010914] [Server] Aborted connection 15",
                "2026-12-05T10:00:01.123456Z",
                Some("Note"),
                "Aborted connection 15",
            ),
            (
                "2026-12-05T10:00:01.123456Z 3 [Note] Access denied",
                "2026-12-05T10:00:01.123456Z",
                Some("Note"),
                "Access denied",
            ),
            // Its Docker image's entrypoint; a capitalised `Note` alone is a sentence's word.
            (
                "2026-12-05 10:00:00+00:00 [Note] [Entrypoint]: Entrypoint script for MySQL Server started.",
                "2026-12-05 10:00:00+00:00",
                Some("Note"),
                "[Entrypoint]: Entrypoint script for MySQL Server started.",
            ),
            ("2024-01-01 12:00:00 Note that x", "2024-01-01 12:00:00", None, "Note that x"),
            // Not MySQL's error log: no thread (a bracketed level word all the same), or no label
            // it prints (read as any program's level word).
            ("2026-12-05T10:00:01.123456Z [Note] x", "2026-12-05T10:00:01.123456Z", Some("Note"), "x"),
            ("2026-12-05T10:00:01.123456Z 3 [Info] x", "2026-12-05T10:00:01.123456Z", Some("Info"), "x"),
            ("2024-01-01 12:00:00 1234 [ERROR] - boom", "2024-01-01 12:00:00", Some("ERROR"), "boom"),
            // logback's default layout (a clock without a date: no `@timestamp`), and its
            // `[thread] logger - ` after the level, as log4j's layouts print it too.
            ("10:00:05.000 [main] ERROR c.e.orders.OrderService - query failed", "", Some("ERROR"), "query failed"),
            (
                "2026-12-05 10:00:04,000 WARN  [main] c.e.orders.OrderService - query failed: boom",
                "2026-12-05 10:00:04,000",
                Some("WARN"),
                "query failed: boom",
            ),
            ("2026-12-05 10:00:04,000 ERROR app - x", "2026-12-05 10:00:04,000", Some("ERROR"), "app - x"),
        ];
        // Not a line that starts with its level: a capitalised or unknown word, no logger name
        // or blank after the colon, nothing after it.
        for line in [
            "Error: Storage reached its minimum free drive threshold",
            "ERRORS: 3",
            "ERROR:",
            "ERROR: ",
            "ERROR::x",
            "INFO:a b:c",
            "Note: x",
            "error: x",
            // a clock alone is a message's own
            "10:30 meeting moved",
            "10:00:05 ERROR x",
            "10:00:05.000 [main] started",
        ] {
            assert_eq!(super::parse_stamped(line.as_bytes()), None, "{line:?}");
            assert_eq!(st(line).1, Header::None, "{line:?}");
        }
        for &(line, ts, level, message) in stamped {
            let c = line.as_bytes();
            let st = super::parse_stamped(c).unwrap_or_else(|| panic!("{line:?}"));
            assert_eq!(st.timestamp.map(|t| &line[t]), (!ts.is_empty()).then_some(ts), "{line:?}");
            assert_eq!(st.level.map(|l| &line[l]), level, "{line:?}");
            assert_eq!(&line[st.message..], message, "{line:?}");
        }
        // psql's lines below its error.
        for (line, want) in [
            ("DETAIL:  Key (id)=(1) already exists.", true),
            ("HINT:  Perhaps you meant …", true),
            ("LINE 12: select x from t;", true),
            ("STATEMENT:  select 1", true),
            ("LINE: x", false),
            ("LINE 1 x", false),
            ("Detail: x", false),
        ] {
            assert_eq!(super::psql_detail(line.as_bytes()), want, "{line:?}");
        }
        assert_eq!(super::psql_details_start(b"ERROR:  x\nLINE 1: y\n   ^\nHINT:  z"), Some(10));
        assert_eq!(super::psql_details_start(b"ERROR:  x\nmore"), None);
        // MySQL's thread, code and subsystem.
        let my = "2026-12-05T10:00:03.123456Z 12 [ERROR] [MY-013183] [InnoDB] Assertion failure: btr0cur.cc:336";
        let my_line = super::parse_stamped(my.as_bytes()).unwrap();
        let part = |r: Option<Range<usize>>| r.map(|r| &my[r]);
        assert_eq!(
            (part(my_line.thread), part(my_line.code), part(my_line.target)),
            (Some("12"), Some("MY-013183"), Some("InnoDB"))
        );
        // A PostgreSQL server's report's detail lines, by process id.
        for (line, want) in [
            ("2026-12-05 10:00:01.001 UTC [57] STATEMENT:  select 1", Some(Some(57))),
            (
                "2026-12-05 10:00:01.001 UTC [57]: [2-1] user=rw,db=dev DETAIL:  Key (id)=(1) already exists.",
                Some(Some(57)),
            ),
            ("2026-12-05 10:00:01.001 UTC HINT:  x", Some(None)),
            // Debian's `%t [%p-%l] `.
            ("2026-12-05 10:00:01 UTC [61-2] rw@dev STATEMENT:  select 1", Some(Some(61))),
            // Neither zone nor process id: not PostgreSQL's.
            ("2024-01-01 12:00:00 QUERY:  select n", None),
            ("2026-12-05 10:00:01.001 UTC [57] ERROR:  x", None),
            ("2026-12-05 10:00:01.001 UTC [57] DETAIL: x", None),
            ("DETAIL:  x", None),
        ] {
            assert_eq!(super::pg_detail(line.as_bytes()), want, "{line:?}");
        }
        let text = b"2026-12-05 10:00:01 UTC [5] ERROR:  x\n\tmore of it\n2026-12-05 10:00:01 UTC [5] STATEMENT:  y";
        assert_eq!(super::dated_line_start(text), Some(50));
        // The logger's name, where the layout prints it apart.
        for (line, target) in [
            ("ERROR:udf.server:x", Some("udf.server")),
            ("ERROR:    x", None),
            ("[2024-01-01T12:00:00Z ERROR my_crate::sink] flush failed", Some("my_crate::sink")),
            ("[2024-01-01T12:00:00Z WARN ] slow", None),
            ("2024-01-01 12:00:00 ERROR x", None),
        ] {
            assert_eq!(super::parse_stamped(line.as_bytes()).unwrap().target.map(|t| &line[t]), target, "{line:?}");
        }
        let behind = "2026-03-02T08:00:30.868199738Z 2024-01-01 12:00:00,123 - app - WARNING - disk low";
        let (p, h) = st(behind);
        assert_eq!(
            (h, p.runtime_ts.clone(), &behind[p.content..p.content + 10]),
            (Header::Stamped, Some(0..30), "2024-01-01")
        );
        // Past the bytes the level look reads: no level.
        let far = format!("2024-01-01 12:00:00.123 [{}1] WARN c.e.Foo - slow", "pool-1-thread-".repeat(11));
        assert_eq!(super::parse_stamped(far.as_bytes()).unwrap().level, None);
        assert_eq!(super::parse_stamped(b"2024-01-01 12:00:00abc"), None);
        assert_eq!(super::parse_stamped(b"INFO 2024-01-01 12:00:00"), None);
        for (line, want) in [
            ("2015-10-18 18:01:47,978 INFO [main] org.apache.hadoop.Foo: started", Header::Stamped),
            // Lines that start with their level word and a colon ([`leveled_line`]).
            ("ERROR:root:UDF gcd failed", Header::Stamped),
            ("WARNING:    disk low", Header::Stamped),
            ("2026-03-02T08:00:30.868199738Z stderr F ERROR:    Exception in ASGI application", Header::Stamped),
            ("2026-03-02T08:00:30.868199738Z ERROR:udf.server:UDF gcd failed", Header::Stamped),
            ("2024-01-01 12:00:00.123 WARN  [main] c.e.Foo - slow", Header::Stamped),
            ("2024-01-01T12:00:00.123+01:00 INFO 1 --- [main] c.e.App : Started", Header::Stamped),
            ("2016-09-28 04:30:30, Info                  CBS    Loaded Servicing Stack", Header::Stamped),
            ("2024-01-01 12:00:00", Header::Stamped),
            // A tab after the time, then a level word: the program's own time (zap, Python), not
            // a log viewer's before the line.
            ("2024-01-01T12:00:00.000Z\tERROR\tzapcore/x.go:12\tfailed", Header::Stamped),
            ("2024-01-01T12:00:00.000Z\terror\tzapcore/x.go:12\tfailed", Header::Stamped),
            ("2024-01-01 12:00:00\tCRITICAL:\tdisk gone", Header::Stamped),
            // Behind `kubectl logs --timestamps`: the runtime's time, then the program's own.
            ("2026-03-02T08:00:30.868199738Z 2024-01-01 12:00:00,123 - app - WARNING - disk low", Header::Stamped),
            // Its `ERROR` fills RisingWave's five-letter level column: a header as before.
            ("2015-10-18 18:01:47,978 ERROR [main] org.apache.hadoop.Foo: failed", Header::RisingWave),
            // RisingWave's header without its time (pasted with it cut off, tracing's
            // `without_time()`): the level in its column, a module path or spans after it.
            ("ERROR risingwave_meta::barrier: failed", Header::RisingWave),
            (" WARN risingwave_meta::barrier: slow", Header::RisingWave),
            (
                " INFO failure_recovery{error=x}:recovery_attempt: risingwave_meta::barrier::recovery: go",
                Header::RisingWave,
            ),
            ("DEBUG risingwave_rt: up", Header::RisingWave),
            ("  WARN risingwave_meta::barrier: slow", Header::RisingWave),
            ("ERROR failed to connect: refused", Header::None),
            ("INFO __main__: starting", Header::None),
            // A crate's name alone as the target with the level in its column (RisingWave's
            // explicit targets), not a logger's name after an unpadded level; the column's blank
            // trimmed off before a module path (`sed` cut the time).
            (" WARN auto_schema_change: failed", Header::RisingWave),
            ("INFO my_app: hello", Header::None),
            ("WARN risingwave_meta::barrier: slow", Header::RisingWave),
            // Indented, as a pasted header is (`paste_lead`).
            (" ERROR risingwave_meta::barrier: slow", Header::RisingWave),
            ("ERROR __main__: failed", Header::None),
            ("ERROR cannot open_file: No such file", Header::None),
            (" WARN about the disk", Header::None),
            // Not a time that ends its token, or no time at all.
            ("2024-01-01 12:00:00abc", Header::None),
            ("2024-01-01 and more", Header::None),
            ("20171223-22:15:29:606|Step_LSC|30002312|onStandStepChanged 3579", Header::None),
            ("  2024-01-01 12:00:00 indented", Header::None),
            ("[2024-01-01 12:00:00,123] INFO [KafkaServer id=1] started", Header::Stamped),
            ("[2024-01-01T12:00:00Z INFO  my_crate] started", Header::Stamped),
            ("2024/01/01 12:00:00 started", Header::Stamped),
            // A bracket that holds more than a time, a date with slashes and no time, a bracket
            // around a date alone: a message's own words.
            ("[2024-01-01 12:00:00,123 x] y", Header::None),
            ("[2024-01-01] y", Header::None),
            ("2024/01/01 y", Header::None),
            ("[1, 2, 3]", Header::None),
        ] {
            assert_eq!(st(line).1, want, "{line}");
        }
    }

    #[test]
    fn python_tracebacks_and_java_exceptions() {
        let exceptions: &[(&str, bool)] = &[
            ("ValueError: bad value", true),
            ("decimal.InvalidOperation: [<class 'x'>]", true),
            ("KeyboardInterrupt", true),
            ("_private.Error:", true),
            ("  File \"x.py\", line 1, in f", false),
            ("Error:bad", false),
            ("2026-12-05 10:00:00 ERROR x", false),
            ("no exception here", false),
            ("", false),
        ];
        for &(line, want) in exceptions {
            assert_eq!(super::exception_line(line.as_bytes()), want, "{line:?}");
        }
        let texts: &[(&str, Option<(usize, &str)>)] = &[
            (
                "msg\nTraceback (most recent call last):\n  File \"a\", line 1\nKeyError: 'k'",
                Some((4, "KeyError: 'k'")),
            ),
            // Chained: the last exception is the one raised.
            (
                "Traceback (most recent call last):\n  x\nKeyError: 'k'\n\nDuring handling of the above exception, another \
                 exception occurred:\n\nTraceback (most recent call last):\n  y\nudf.UdfError: no",
                Some((0, "udf.UdfError: no")),
            ),
            // A word line before the traceback's first line is no exception; nor is one without
            // a traceback above it.
            ("Oops\nTraceback (most recent call last):\n  x", None),
            // CRLF: an event's lines but its last keep their `\r`.
            ("Traceback (most recent call last):\r\n  x\r\nKeyboardInterrupt\r\n", Some((0, "KeyboardInterrupt"))),
            ("msg\nValueError: x", None),
            ("Traceback (most recent call last):", None),
        ];
        for &(text, want) in texts {
            let got = super::traceback(text.as_bytes()).map(|(at, r)| (at, &text[r]));
            assert_eq!(got, want, "{text:?}");
        }
        let java: &[(&str, bool)] = &[
            ("org.apache.kafka.common.errors.TimeoutException: Topic rw not present", true),
            ("java.lang.IllegalStateException", true),
            ("com.example.Outer$InnerError: x", true),
            ("java.lang.Throwable: x", true),
            ("ValueError: x", false),
            ("org.apache.kafka.clients.NetworkClient: x", false),
            ("Caused by: java.io.IOException: x", false),
            ("\tat kafka.Foo.bar(Foo.scala:1)", false),
        ];
        for &(line, want) in java {
            assert_eq!(super::java_exception_line(line.as_bytes()), want, "{line:?}");
        }
        let logged: &[(&str, Option<(usize, &str)>)] = &[
            (
                "msg\njava.io.IOException: Broken pipe\n\tat x.Y.z(Y.java:1)",
                Some((4, "java.io.IOException: Broken pipe")),
            ),
            ("msg\r\njava.io.IOException\r\n\tat x", Some((5, "java.io.IOException"))),
            ("msg\n\tat x.Y.z(Y.java:1)\njava.io.IOException: later", None),
            ("msg\nTraceback (most recent call last):\n  x\nKeyError: 'k'", Some((4, "KeyError: 'k'"))),
            ("msg", None),
        ];
        for &(text, want) in logged {
            let got = super::logged_exception(text.as_bytes()).map(|(at, r)| (at, &text[r]));
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn go_programs_lines() {
        // (line, header, where the content starts)
        let cases: &[(&str, Header, usize)] = &[
            ("E1205 07:20:22.123456       1 reflector.go:138] failed to list *v1.Pod", Header::Klog, 0),
            (r#"time="2026-03-02T08:00:00Z" level=error msg="failed to sync pod""#, Header::Logfmt, 0),
            ("level=warn ts=2026-03-02T08:00:01.123Z caller=main.go:123 msg=slow", Header::Logfmt, 0),
            // behind `kubectl --prefix`, `--timestamps`, stern's prefix, and in a CRI record
            ("[pod/op-0/manager] E1205 07:20:22.1 1 x.go:1] failed", Header::Klog, 19),
            ("2026-12-05T07:20:22.123456789Z E1205 07:20:22.1 1 x.go:1] failed", Header::Klog, 31),
            ("2026-12-05T07:20:22.123456789Z level=error msg=x", Header::Logfmt, 31),
            ("op-0 manager W1205 07:20:22.1 1 x.go:1] slow", Header::Klog, 13),
            ("2026-12-05T07:20:22.123456789Z stderr F level=error msg=x", Header::Logfmt, 40),
            // an indented klog line is pasted; an indented `key=value` line continues a message
            ("    E1205 07:20:22.1 1 x.go:1] failed", Header::Klog, 4),
            ("    level=error msg=x", Header::None, 0),
            // not a Go program's: a RisingWave field, prose, no caller
            ("compaction level=3 size=5", Header::None, 0),
            ("Error 1205: deadlock", Header::None, 0),
            ("E1205 07:20:22.1 1 x.go] failed", Header::None, 0),
        ];
        for &(line, header, content) in cases {
            let (p, h) = classify(line.as_bytes(), &mut StreamState::default());
            assert_eq!((h, p.content), (header, content), "{line}");
        }
    }

    #[test]
    fn kubectl_timestamps_before_a_json_line() {
        let mut s = StreamState::default();
        let l = r#"2026-03-02T08:00:30.868199738Z {"timestamp":"2026-03-02T08:00:30.867644121Z","level":"WARN"}"#;
        let (p, h) = classify(l.as_bytes(), &mut s);
        assert_eq!((h, &l[p.content..p.content + 1]), (Header::Json, "{"));
        assert_eq!(p.runtime_ts, Some(0..30));
        let l = r#"[pod/meta-0/meta] 2026-03-02T08:00:30.868199738Z {"level":"WARN"}"#;
        assert_eq!(classify(l.as_bytes(), &mut StreamState::default()).1, Header::Json);
    }

    #[test]
    fn kubectl_timestamps_are_sticky_for_continuations() {
        let mut s = StreamState::default();
        let l1 = "2026-03-02T08:00:30.868199738Z 2026-03-02T08:00:30.867644121Z ERROR t::x: a";
        assert_eq!(classify(l1.as_bytes(), &mut s).1, Header::RisingWave);
        let l2 = "2026-03-02T08:00:30.868299738Z Caused by:";
        let (p, h) = classify(l2.as_bytes(), &mut s);
        assert_eq!((h, &l2[p.content..]), (Header::None, "Caused by:"));
    }

    #[test]
    fn syslog_and_journal_prefixes() {
        let rw = "2026-03-02T08:00:30.867644121Z ERROR risingwave_meta::x: failed";
        // (prefix, whether it is one)
        let cases: &[(&str, bool)] = &[
            ("Dec 05 10:00:00 node-1 risingwave[4242]: ", true),
            ("Dec  5 10:00:00 node-1 risingwave[4242]: ", true),
            ("Dec 05 10:00:00.123456 node-1 risingwave[4242]: ", true),
            ("Dec 05 10:00:00 node-1 risingwave: ", true),
            ("2026-12-05T10:00:00+0000 node-1 risingwave[4242]: ", true),
            ("2026-12-05T10:00:00.123456+00:00 node-1 risingwave[4242]: ", true),
            ("2026-12-05T10:00:00.123456Z node-1 meta-node[7]: ", true),
            // journalctl's other short formats, and `--no-hostname` (an ident with its pid).
            ("Dec 05 10:00:00 risingwave[4242]: ", true),
            ("[ 1234.567890] node-1 risingwave[4242]: ", true),
            ("[    5.000001 <    0.000123>] node-1 risingwave[4242]: ", true),
            ("[ 1234.567890] risingwave[4242]: ", true),
            ("1764928800.123456 node-1 risingwave[4242]: ", true),
            ("1764928800.123456 risingwave[4242]: ", true),
            ("Sat 2026-12-05 10:00:00 UTC node-1 risingwave[4242]: ", true),
            ("Sat 2026-12-05 10:00:00.123456 CET risingwave[4242]: ", true),
            // Docker's syslog driver: no host, a tag with `/` in it
            ("<27>Mar  2 08:00:01 docker/rw-meta[900]: ", true),
            // syslog's wire format, its `<PRI>` first (RFC 3164's time, RFC 3339's)
            ("<30>Dec  5 10:00:00 node-1 risingwave[4242]: ", true),
            ("<3>2026-12-05T10:00:00.123456+00:00 node-1 risingwave[4242]: ", true),
            ("<191>Dec  5 10:00:00 node-1 risingwave: ", true),
            // not one: no `: `, a pid that is not a number, no host, a month that is none
            ("Dec 05 10:00:00 node-1 risingwave[4242] ", false),
            ("Dec 05 10:00:00 node-1 risingwave[x]: ", false),
            ("Dec 05 10:00:00 risingwave: ", false),
            ("Dez 05 10:00:00 node-1 risingwave: ", false),
            ("[1234] node-1 risingwave[4242]: ", false),
            ("<192>Dec  5 10:00:00 node-1 risingwave[4242]: ", false),
            ("<1234>Dec  5 10:00:00 node-1 risingwave[4242]: ", false),
            ("<>Dec  5 10:00:00 node-1 risingwave[4242]: ", false),
            // (a blank after `<PRI>`, as srslog writes it, is taken)
            ("<3> Dec  5 10:00:00 node-1 risingwave[4242]: ", true),
            ("<3>  Dec  5 10:00:00 node-1 risingwave[4242]: ", false),
            ("12345.678 node-1 risingwave[4242]: ", false),
            ("Sat 2026-12-05 node-1 risingwave[4242]: ", false),
            // `kubectl logs --timestamps` before a JSON object whose first key's value is one
            ("2026-03-02T08:00:00.915Z {\"severity\": {\"lvl\": ", false),
        ];
        for (prefix, yes) in cases {
            let line = format!("{prefix}{rw}");
            let mut state = StreamState::default();
            let (p, h) = classify(line.as_bytes(), &mut state);
            if *yes {
                assert_eq!((h, &line[p.content..], state.syslog), (Header::RisingWave, rw, true), "{line}");
            } else {
                assert_ne!(&line[p.content..], rw, "{line}");
            }
        }
        // A RisingWave line is never read as one (its level is no host, its target no ident).
        for line in [
            "2026-03-02T08:00:30.867644121Z ERROR risingwave_meta: failed",
            "2026-03-02T08:00:30.867644121Z  WARN risingwave_meta::x: failed",
            "2026-03-02T08:00:30.867644121Z DEBUG r: a: b",
        ] {
            assert!(syslog_prefix(line.as_bytes(), timestamp_len(line.as_bytes())).is_none(), "{line}");
        }
        // Before plain text too, the prefix is taken off and its writer kept: journald stores
        // each line of a message (its `Caused by:`, its backtrace) as an entry of its own, and
        // `/var/log/syslog` interleaves programs. (Framing puts it back on an event's first
        // line.) The line's time, host and ident were a template apart per host for another
        // program's kinds once the stream had had one header behind a prefix, and the same
        // template with them before it (a generalisation reader's sshd lines).
        let mut state = StreamState::default();
        let plain = "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: authentication failure";
        let (p, h) = classify(plain.as_bytes(), &mut state);
        assert_eq!((h, &plain[p.content..]), (Header::None, "authentication failure"));
        assert_eq!(p.syslog.map(|r| &plain[r]), Some("combo sshd(pam_unix)[19939]"));
        // Only a header behind one says the stream's lines all carry one.
        assert!(!state.syslog);
        classify(format!("Dec 05 10:00:00 node-1 risingwave[4242]: {rw}").as_bytes(), &mut state);
        let cont = "Dec 05 10:00:00 node-1 risingwave[4242]: Caused by:";
        let (p, h) = classify(cont.as_bytes(), &mut state);
        assert_eq!((h, &cont[p.content..]), (Header::None, "Caused by:"));
        assert_eq!(p.syslog.map(|r| &cont[r]), Some("node-1 risingwave[4242]"));
        // Where `<word> <word>: ` after a time is as likely a program's own text, not before a
        // stream has shown a prefix: `kubectl logs --timestamps`' time (`Z`), the kernel ring's
        // (`dmesg`), a pid-less ident; and never behind `kubectl logs --timestamps`.
        for line in [
            "2026-12-05T10:00:00.123456789Z Server listening: 8080",
            "[    1.234567] usb 1-1: new high-speed USB device number 2",
            // an offset's time before a program's own words: `date -Iseconds`, Python's `%z`
            "2026-12-05T10:00:00+01:00 Backup failed: disk full",
            "2026-12-05T10:00:00+01:00 worker-1 ERROR: disk full on /var/lib/data",
        ] {
            let (p, _) = classify(line.as_bytes(), &mut StreamState::default());
            assert_eq!(p.syslog, None, "{line}");
        }
        for line in [
            "2026-12-05T10:00:00.123456789Z edge sshd[7]: x",
            "[ 1.5] edge sshd[7]: x",
            "2026-12-05T10:00:00+00:00 edge kernel: x",
            // host names in capitals, an ident in mixed case (a reader's: they kept their time
            // and host in the template when only lower case was taken)
            "Dec  5 10:00:00 Web01 kernel: Out of memory",
            "Dec  5 10:00:00 MacBook-Pro kernel: error: disk I/O failure",
            "Dec  5 10:00:00 node-1 NetworkManager: <error> device eth0 failed",
        ] {
            let (p, _) = classify(line.as_bytes(), &mut StreamState::default());
            assert!(p.syslog.is_some(), "{line}");
            let (p, _) = classify(line.as_bytes(), &mut StreamState { kubectl_ts: true, ..StreamState::default() });
            assert_eq!(p.syslog, None, "{line}");
        }
        // What such a plain line says starts at its ident (`Syslog::ident`).
        for (line, ident) in [
            (plain, Some("sshd(pam_unix)[19939]: authentication failure")),
            ("Dec  7 04:05:19 lb1 haproxy[1187]: Server web1 is DOWN", Some("haproxy[1187]: Server web1 is DOWN")),
            ("2026-12-05T10:00:00+0000 edge kernel: Out of memory", Some("kernel: Out of memory")),
            ("Dec 05 10:00:00 sshd[7]: error: x", Some("sshd[7]: error: x")),
            ("Dec 05 10:00:00 the disk is full: x", None),
            ("Dec 05 10:00:00", None),
            ("sshd[7]: x", None),
        ] {
            assert_eq!(syslog_line(line.as_bytes()).map(|s| &line[s.ident..]), ident, "{line}");
        }
    }

    #[test]
    fn a_syslog_pri_is_the_lines_severity() {
        // (line, severity, message after the prefix)
        let cases: &[(&str, Option<u8>, &str)] = &[
            ("<27>Dec  5 10:00:01 Server app: cannot open x", Some(3), "cannot open x"),
            ("<28>Dec  5 10:00:02 node-1 kubelet[812]: eviction", Some(4), "eviction"),
            ("<0>2026-12-05T10:00:00+00:00 edge kernel: panic", Some(0), "panic"),
            ("<191>Dec  5 10:00:00 node-1 app: x", Some(7), "x"),
            // A capitalised host is taken behind a `<PRI>`, not without one.
            ("Dec  5 10:00:01 Server app: cannot open x", None, "Dec  5 10:00:01 Server app: cannot open x"),
            // RFC 5424 (`logger -n`, syslog-ng): the message after the structured data.
            ("<34>1 2003-10-11T22:14:15.003Z mymachine su - ID47 - 'su root' failed", Some(2), "'su root' failed"),
            (
                r#"<165>1 2003-10-11T22:14:15.003Z h evntslog - ID47 [ex@32473 iut="3" src="A\]p"][b@1 x="y"] An event"#,
                Some(5),
                "An event",
            ),
            ("<13>1 - - - - - - hello", Some(5), "hello"),
            ("<13>1 - - - - - -", Some(5), ""),
            ("<13>1 - - - - - [unclosed x", None, "<13>1 - - - - - [unclosed x"),
            // Its byte-order mark before the message is not the message's; a time that is none
            // is no RFC 5424 header (a third reader's).
            ("<13>1 - h app 1 - - \u{feff}hello", Some(5), "hello"),
            ("<11>1 9 h app 1 - - failed", None, "<11>1 9 h app 1 - - failed"),
            // An empty message id (two blanks); a blank after `<PRI>` (srslog).
            (r#"<14>1 2025-08-21T08:30:17+00:00 h risingwave 13  [meta sequenceId="47"] hi"#, Some(6), "hi"),
            ("<27> 2026-03-02T08:00:01Z host tag[7]: down", Some(3), "down"),
            ("<14>1 2025-08-21T08:30:17Z h a 1   - hi", None, "<14>1 2025-08-21T08:30:17Z h a 1   - hi"),
            // The kernel ring's time (`dmesg -r`) stays unread: `usb 1-1` is no host and ident.
            ("<6>[    1.234567] usb 1-1: new device", None, "<6>[    1.234567] usb 1-1: new device"),
        ];
        for (line, severity, message) in cases {
            let (p, _) = classify(line.as_bytes(), &mut StreamState::default());
            assert_eq!(&line[p.content..], *message, "{line}");
            let read = syslog_line(line.as_bytes()).filter(|_| p.syslog.is_some());
            assert_eq!(read.and_then(|s| s.severity), *severity, "{line}");
        }
        // (line, wanted at `warn`, at `error`)
        let wanted = [("<27>x", true, true), ("<28>x", true, false), ("<29>x", false, false), ("<8>x", true, true)];
        for (line, warn, error) in wanted {
            let got = (syslog_pri_wanted(line.as_bytes(), false), syslog_pri_wanted(line.as_bytes(), true));
            assert_eq!(got, (warn, error), "{line}");
        }
    }

    #[test]
    fn a_syslog_prefixs_time_is_the_timestamp() {
        // (prefix's time, observed, `@timestamp` before the annotator's RFC 3339 form)
        #[rustfmt::skip]
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("Dec  5 10:00:06", "2026-12-07T19:00:00Z", Some("2026-12-05T10:00:06")),
            ("Dec 05 10:00:06.123456", "2026-12-07T19:00:00Z", Some("2026-12-05T10:00:06.123456")),
            // A December line read in January is last year's; 29 February a leap year's.
            ("Dec 31 23:59:59", "2027-01-01T00:00:01Z", Some("2026-12-31T23:59:59")),
            ("Feb 29 10:00:00", "2026-12-07T19:00:00Z", Some("2024-02-29T10:00:00")),
            // An offset out of range too: the annotator refuses it, and says so.
            ("2026-12-05T10:00:03+2500", "2026-12-07T19:00:00Z", Some("2026-12-05T10:00:03+25:00")),
            ("2026-12-05T10:00:03+0000", "2026-12-07T19:00:00Z", Some("2026-12-05T10:00:03+00:00")),
            ("2026-12-05T10:00:03.5-0530", "2026-12-07T19:00:00Z", Some("2026-12-05T10:00:03.5-05:30")),
            ("2026-12-05T10:00:00.123456+00:00", "2026-12-07T19:00:00Z", Some("2026-12-05T10:00:00.123456+00:00")),
            ("Sat 2026-12-05 10:00:00 UTC", "2026-12-07T19:00:00Z", Some("2026-12-05 10:00:00Z")),
            ("Sat 2026-12-05 10:00:00.1 CET", "2026-12-07T19:00:00Z", Some("2026-12-05 10:00:00.1")),
            ("1764928800.123456", "2026-12-07T19:00:00Z", Some("2025-12-05T10:00:00.123456Z")),
            // The monotonic clock is no wall time.
            ("[ 1234.567890]", "2026-12-07T19:00:00Z", None),
        ];
        for (time, observed, want) in cases {
            let line = format!("{time} node-1 sshd[7]: Failed password");
            let sys = syslog_line(line.as_bytes()).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(&line[sys.time.clone()], *time);
            assert_eq!(sys.timestamp(line.as_bytes(), observed).as_deref(), *want, "{line}");
        }
    }

    #[test]
    fn parses_spans_target_message_fields() {
        let s = "2024-05-21T15:54:00.761337526Z  WARN failure_recovery{error=Hummock error: SST 180 is invalid prev_epoch=6492695734583296}:recovery_attempt: risingwave_meta::barrier::recovery: scale actors failed error=No schedulable ParallelUnits available for fragment 3";
        let t = parse_text(s.as_bytes()).unwrap();
        let g = |r: &Range<usize>| &s[r.clone()];
        assert_eq!(g(&t.level), "WARN");
        assert_eq!(t.spans.len(), 2);
        assert_eq!(g(&t.spans[0].0), "failure_recovery");
        assert_eq!(g(&t.spans[0].1[0].1), "Hummock error: SST 180 is invalid");
        assert_eq!(g(&t.spans[0].1[1].0), "prev_epoch");
        assert_eq!(g(&t.spans[1].0), "recovery_attempt");
        assert_eq!(g(t.target.as_ref().unwrap()), "risingwave_meta::barrier::recovery");
        assert_eq!(g(&t.message), "scale actors failed");
        assert_eq!(g(&t.fields[0].1), "No schedulable ParallelUnits available for fragment 3");

        // regression: a Debug struct inside a span field ends in `}` followed by `: cause`.
        let s = "2026-03-02T09:47:32.12735932Z  WARN failure_recovery{error=a: expected W { id: 57 }: Local: failure}:recovery_attempt: risingwave_meta::x: recovered";
        let t = parse_text(s.as_bytes()).unwrap();
        assert_eq!(&s[t.spans[0].1[0].1.clone()], "a: expected W { id: 57 }: Local: failure");
        assert_eq!(&s[t.message.clone()], "recovered");

        let s = "2025-05-04T15:17:59.333942585Z  WARN   rw-standalone-compute risingwave_rpc_client::meta_client: Failed to connect to meta server http://0.0.0.0:5690/, trying again error=transport error";
        let t = parse_text(s.as_bytes()).unwrap();
        assert_eq!(&s[t.thread.clone().unwrap()], "rw-standalone-compute");
        assert_eq!(&s[t.message.clone()], "Failed to connect to meta server http://0.0.0.0:5690/, trying again");

        let s = "2026-03-02T08:00:00.0Z  WARN   rw-standalone-meta failure_recovery{error=boom}:recovery_attempt: risingwave_meta::x: m";
        let t = parse_text(s.as_bytes()).unwrap();
        assert_eq!(&s[t.thread.clone().unwrap()], "rw-standalone-meta");
        assert_eq!(&s[t.spans[0].1[0].1.clone()], "boom");

        // regression: a line without a target lost its message's first word as a thread's name
        // (`failed to connect` was clustered as `to connect`, with `log.thread: failed`).
        for (s, message) in [
            ("2026-12-06T09:18:11.123Z ERROR failed to connect", "failed to connect"),
            ("2026-12-06 09:18:11 ERROR connection refused by 10.0.0.1:5432", "connection refused by 10.0.0.1:5432"),
            ("2026-12-06T09:18:11.123Z  WARN   slow disk", "slow disk"),
            ("2026-12-06T09:18:11.123Z  WARN slow disk job=3", "slow disk"),
            ("2026-12-06T09:18:11.123Z ERROR upload failed: s3 timeout", "upload failed: s3 timeout"),
            ("2026-12-06T09:18:11.123Z ERROR Failed sending: broken pipe", "Failed sending: broken pipe"),
        ] {
            let t = parse_text(s.as_bytes()).unwrap();
            assert_eq!((&s[t.message.clone()], t.thread, t.target), (message, None, None), "{s:?}");
        }

        // Spring Boot's console layout: its pid, thread and logger are no message (each logger
        // was a cluster of its own, whatever the errors logged).
        #[rustfmt::skip]
        let spring: &[(&str, Option<(&str, &str, &str)>)] = &[
            ("2026-12-05 10:00:02.101 ERROR 7 --- [nio-8080-exec-2] c.e.orders.OrderController               : Order 4411 rejected: inventory service unavailable",
                Some(("nio-8080-exec-2", "c.e.orders.OrderController", "Order 4411 rejected: inventory service unavailable"))),
            ("2026-12-05 10:00:01.101 ERROR 7 --- [nio-8080-exec-1] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] threw exception",
                Some(("nio-8080-exec-1", "o.a.c.c.C.[.[.[/].[dispatcherServlet]", "Servlet.service() for servlet [dispatcherServlet] threw exception"))),
            ("2026-12-05 10:00:01.101  WARN 7 --- [   scheduling-1] com.zaxxer.hikari.pool.HikariPool        : HikariPool-1 - Connection is not available",
                Some(("scheduling-1", "com.zaxxer.hikari.pool.HikariPool", "HikariPool-1 - Connection is not available"))),
            // Spring Boot 3.2: the application's name before the thread.
            ("2024-01-01T10:00:00.123+01:00 ERROR 12345 --- [orders] [           main] o.s.boot.SpringApplication               : Application run failed",
                Some(("main", "o.s.boot.SpringApplication", "Application run failed"))),
            // Not Spring's: no ` --- `, no colon after the logger.
            ("2026-12-05 10:00:02.101 ERROR 7 -- [x] y : z", None),
            ("2026-12-05 10:00:02.101 ERROR 7 --- [x] y z", None),
        ];
        for (s, want) in spring {
            let t = parse_text(s.as_bytes()).unwrap();
            let got = t.target.as_ref().map(|g| (&s[t.thread.clone().unwrap()], &s[g.clone()], &s[t.message.clone()]));
            assert_eq!(got, *want, "{s}");
        }

        let s = "2026-03-02T08:00:00.0Z  INFO recovery_attempt: risingwave_meta::barrier::progress: ok x=1";
        let t = parse_text(s.as_bytes()).unwrap();
        assert_eq!(t.spans.len(), 1);
        assert_eq!(&s[t.target.clone().unwrap()], "risingwave_meta::barrier::progress");
        let s = "2026-03-02T08:00:00.0Z  INFO risingwave_rt: hello: world";
        let t = parse_text(s.as_bytes()).unwrap();
        assert_eq!(&s[t.target.clone().unwrap()], "risingwave_rt");
        assert_eq!(&s[t.message.clone()], "hello: world");

        // regression (found by a second reader): an empty message, the target's colon ending the
        // line over a `Caused by:` report, left the target in the message (and clustered it).
        // regression (found by a second reader): the fields that end a message's last line above
        // a backtrace were not read (the event's last line, a frame, was looked at).
        let s = "2026-03-02T08:00:02.0Z  WARN risingwave_meta::x: task:\n timed out epoch=7 actor=3\n\nBacktrace:\n   0: start_thread\n             at ./x.c:1:2";
        let t = parse_text(s.as_bytes()).unwrap();
        let fields: Vec<(&str, &str)> = t.fields.iter().map(|(k, v)| (&s[k.clone()], &s[v.clone()])).collect();
        assert_eq!(fields, [("epoch", "7"), ("actor", "3")]);
        for s in [
            "2026-03-02T08:00:02.0Z ERROR risingwave_meta::x:\nCaused by:\n    disk gone",
            "2026-03-02T08:00:02.0Z ERROR risingwave_meta::x: \nCaused by:\n    disk gone",
        ] {
            let t = parse_text(s.as_bytes()).unwrap();
            assert_eq!(&s[t.target.clone().unwrap()], "risingwave_meta::x", "{s:?}");
            assert_eq!(&s[t.message.clone()], "", "{s:?}");
        }
    }

    /// A message with a line break in it (a string literal that spans lines) has its fields at
    /// the end of its last line: they were not parsed at all, so its `error` field went unread.
    #[test]
    fn regression_the_fields_of_a_message_that_spans_lines_end_its_last_line() {
        /// An event, its message, its fields.
        type Case = (&'static str, &'static str, &'static [(&'static str, &'static str)]);
        let cases: &[Case] = &[
            (
                "2026-03-02T08:05:51.2Z ERROR risingwave_meta::x: Attempt to remove a task. We will keep it\n    until we can report its status. table_id=5 error=disk full: os error 28",
                "Attempt to remove a task. We will keep it",
                &[("table_id", "5"), ("error", "disk full: os error 28")],
            ),
            // Fields on the first line are the event's: a report below them is not read for more.
            (
                "2026-03-02T08:05:51.2Z ERROR risingwave_meta::x: failed error=boom\n\nCaused by:\n    x a=1",
                "failed",
                &[("error", "boom")],
            ),
            // Fields and no message (`tracing::error!(epoch = 5)`): the first field is printed
            // where the message goes (a second reader's). A message that goes on after a first
            // word with `=` is a message.
            ("2026-03-02T08:05:51.2Z ERROR risingwave_meta::x: epoch=5", "", &[("epoch", "5")]),
            (
                "2026-03-02T08:05:51.2Z ERROR risingwave_meta::x: epoch=5 job.id=a",
                "",
                &[("epoch", "5"), ("job.id", "a")],
            ),
            (
                "2026-03-02T08:05:51.2Z ERROR risingwave_meta::x: txn_id=5 large transaction a=1",
                "txn_id=5 large transaction",
                &[("a", "1")],
            ),
            ("2026-03-02T08:05:51.2Z ERROR risingwave_meta::x: =5", "=5", &[]),
            (
                "2026-03-02T08:05:51.2Z ERROR risingwave_meta::x: error=connection refused a=1",
                "",
                &[("error", "connection refused"), ("a", "1")],
            ),
            // A paste's or a pipe's lines after the event are not its last line: blank ones, a
            // fence's close, `grep -C`'s `--` (an on-call engineer's reading).
            (
                "2026-03-02T08:05:51.2Z  WARN risingwave_meta::x: failed: s3\n\nCaused by:\n    boom\n database_id=7\n\n",
                "failed: s3",
                &[("database_id", "7")],
            ),
            (
                "2026-03-02T08:05:51.2Z  WARN risingwave_meta::x: task:\n \"column\" actor_id=151\n```\n  \n--",
                "task:",
                &[("actor_id", "151")],
            ),
            ("2026-03-02T08:05:51.2Z  WARN risingwave_meta::x: done\n\n```", "done", &[]),
        ];
        for &(s, message, fields) in cases {
            let t = parse_text(s.as_bytes()).unwrap();
            let g = |r: &Range<usize>| &s[r.clone()];
            assert_eq!(g(&t.message), message, "{s}");
            assert_eq!(t.fields.iter().map(|(k, v)| (g(k), g(v))).collect::<Vec<_>>(), fields, "{s}");
        }
    }

    #[test]
    fn ansi_is_stripped() {
        let mut out = Vec::new();
        strip_ansi(b"\x1b[2m2026\x1b[0m \x1b[33m WARN\x1b[0m x \x1b[3merror\x1b[0m\x1b[2m=\x1b[0mboom", &mut out);
        assert_eq!(out, b"2026  WARN x error=boom");
    }

    #[test]
    fn json_envelopes_are_read_as_the_lines_they_carry() {
        let line = "2026-03-02T08:00:00.1Z ERROR risingwave_meta::x: sink \\\"s\\\" failed";
        // (the JSON line, the stream's key so far, the key found, the line carried)
        let cases: &[(String, Option<usize>, Option<usize>, Option<&str>)] = &[
            // stern -o json: the pod and container become a `kubectl --prefix`.
            (
                format!(
                    r#"{{"message":"{line}","nodeName":"n1","namespace":"rw","podName":"meta-0","containerName":"meta"}}"#
                ),
                None,
                Some(0),
                Some(r#"[pod/meta-0/meta] 2026-03-02T08:00:00.1Z ERROR risingwave_meta::x: sink "s" failed"#),
            ),
            // journalctl -o json, with its blanks around the colons.
            (
                format!(r#"{{ "__CURSOR" : "s=1", "PRIORITY" : "3", "MESSAGE" : "{line}", "_PID" : "7" }}"#),
                None,
                Some(1),
                Some(r#"2026-03-02T08:00:00.1Z ERROR risingwave_meta::x: sink "s" failed"#),
            ),
            // Loki's logcli -o jsonl: the pod and container from the labels (a `level` label is
            // the stream's, not the record's).
            (
                format!(
                    r#"{{"labels":{{"pod":"meta-1","container":"meta","level":"info"}},"line":"{line}","timestamp":"x"}}"#
                ),
                None,
                Some(3),
                Some(r#"[pod/meta-1/meta] 2026-03-02T08:00:00.1Z ERROR risingwave_meta::x: sink "s" failed"#),
            ),
            // Fluent Bit's `log`, its line break taken off; a panic is a line too.
            (
                r#"{"date":1.5,"log":"thread 'main' panicked at src/a.rs:1:2:\n"}"#.to_string(),
                None,
                Some(2),
                Some("thread 'main' panicked at src/a.rs:1:2:"),
            ),
            // A whole multi-line event in one record keeps its line breaks (framing reads each
            // line); colours JSON escaped do not hide the header; invalid UTF-8 is replaced.
            (
                format!(r#"{{"message":"{line}\n\nCaused by:\n    boom\n"}}"#),
                None,
                Some(0),
                Some("2026-03-02T08:00:00.1Z ERROR risingwave_meta::x: sink \"s\" failed\n\nCaused by:\n    boom"),
            ),
            (
                r#"{"message":"\u001b[2m2026-03-02T08:00:00.1Z\u001b[0m \u001b[31mERROR\u001b[0m x: y"}"#.to_string(),
                None,
                Some(0),
                Some("\x1b[2m2026-03-02T08:00:00.1Z\x1b[0m \x1b[31mERROR\x1b[0m x: y"),
            ),
            // A `Caused by:` record is one once the stream's envelopes are known.
            (r#"{"message":"Caused by:","podName":"meta-0","containerName":"meta"}"#.to_string(), None, None, None),
            (
                r#"{"message":"Caused by:","podName":"meta-0","containerName":"meta"}"#.to_string(),
                Some(0),
                Some(0),
                Some("[pod/meta-0/meta] Caused by:"),
            ),
            // RisingWave's own JSON lines, and any with a level of their own, are no envelopes.
            (
                format!(r#"{{"timestamp":"2026-03-02T08:00:00.1Z","level":"INFO","fields":{{"message":"{line}"}}}}"#),
                None,
                None,
                None,
            ),
            // A `"level"` in a value, or a nested object's, is not the object's own.
            (
                format!(r#"{{"note":"a \"level\": x {{","labels":{{"level":"info"}},"message":"{line}"}}"#),
                None,
                Some(0),
                Some(r#"2026-03-02T08:00:00.1Z ERROR risingwave_meta::x: sink "s" failed"#),
            ),
            (format!(r#"{{"severity":"ERROR","message":"{line}"}}"#), None, Some(0), None),
            (format!(r#"{{"levelname":"ERROR","message":"{line}"}}"#), None, Some(0), None),
            // A structured logger's `msg` is its own message; a Docker-like record with a
            // stream is Docker's (partial records), not read here.
            (format!(r#"{{"msg":"{line}"}}"#), None, None, None),
            (format!(r#"{{"log":"{line}","stream":"stdout"}}"#), None, Some(2), None),
            // A value that is no string, or a message with no header.
            (r#"{"message":{"text":"x"}}"#.to_string(), Some(0), None, None),
            (r#"{"message":"connection reset"}"#.to_string(), None, None, None),
        ];
        for (json, known, key, want) in cases {
            assert_eq!(envelope_key(json.as_bytes(), *known), *key, "{json}");
            let Some(key) = key else { continue };
            let mut out = Vec::new();
            let got =
                envelope_record(json.as_bytes(), *key, b"", false, &mut out).map(|_| String::from_utf8(out).unwrap());
            assert_eq!(got.as_deref(), *want, "{json}");
        }
    }

    #[test]
    fn codes_that_lost_their_esc_are_stripped_from_lines_that_show_them() {
        // (line, has_leftovers, stripped with leftovers)
        let cases: &[(&str, bool, &str)] = &[
            // tracing's colours pasted where the ESC was dropped (a GitHub issue, a web page).
            (
                "[2m2026-03-02T08:00:00.1Z[0m [33m WARN[0m [2mrisingwave_meta::x[0m[2m:[0m boom [3merror[0m[2m=[0mdisk full",
                true,
                "2026-03-02T08:00:00.1Z  WARN risingwave_meta::x: boom error=disk full",
            ),
            // `cat -v`'s caret notation for the ESC.
            ("^[[2m2026-03-02T08:00:00.1Z^[[0m ^[[31mERROR^[[0m x: y", true, "2026-03-02T08:00:00.1Z ERROR x: y"),
            // grep's match colours and erase-line code; RGB colours.
            ("[01;31m[KWARN[m[K x[0m", true, "WARN x"),
            ("[38;2;255;0;0mred[0m", true, "red"),
            // Brackets that are text stay: a list, an empty pair, a long run of digits, a
            // caret that is not before a code, a code-like pair closed at once, `[4K` with a
            // count (grep's has none).
            (
                "[0m [1, 2] [] [5] a^[b [12345678901234567m window=[5m] buf=[4K",
                true,
                " [1, 2] [] [5] a^[b [12345678901234567m window=[5m] buf=[4K",
            ),
            // Without a reset that ends a styled piece nothing is a leftover: `[0ms]` is text.
            ("interval [5m] elapsed", false, "interval [5m] elapsed"),
            ("latency=[0ms] buf=[4K] window=[5m]", false, "latency=[0ms] buf=[4K] window=[5m]"),
            ("ends in [0", false, "ends in [0"),
            // JSON carries real codes escaped: not leftovers (the decoder makes them ESCs).
            (r#"{"msg":"\u001b[31mFailed\u001b[0m x"}"#, false, r#"{"msg":"\u001b[31mFailed\u001b[0m x"}"#),
            // Real escapes and leftovers on one line.
            ("\x1b[1mbold\x1b[0m [2mdim[0m", true, "bold dim"),
        ];
        for (line, has, want) in cases {
            assert_eq!(has_leftovers(line.as_bytes()), *has, "{line:?}");
            let mut buf = Vec::new();
            let got = without_codes(line.as_bytes(), &mut buf, true);
            assert_eq!(String::from_utf8_lossy(got), *want, "{line:?}");
            // Without the leftovers asked for, only escapes go.
            let mut out = Vec::new();
            strip_ansi(line.as_bytes(), &mut out);
            assert!(!out.contains(&0x1b), "{line:?}");
        }
    }

    #[test]
    fn no_break_spaces_in_an_indent_become_spaces() {
        let cases: &[(&str, &str)] = &[
            ("\u{a0}\u{a0}at x", "  at x"),
            (" \u{a0}\tat x", "  \tat x"),
            ("at\u{a0}x", "at\u{a0}x"),
            ("  at x", "  at x"),
            ("\u{a0}", " "),
            ("", ""),
        ];
        for (line, want) in cases {
            let mut out = Vec::new();
            push_indent_as_spaces(line.as_bytes(), &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), *want, "{line:?}");
        }
    }
}
