//! Go programs' log layouts, as the other containers of a Kubernetes node write them: klog's
//! (every Kubernetes component and most operators: `E1205 07:20:22.123456       1
//! reflector.go:138] failed to list …`, glog's with the year) and logfmt's (logrus, go-kit,
//! `log/slog`'s text handler: `time=… level=error msg="failed to sync" pod=meta-0`).
//!
//! Owns telling a line of either layout ([`klog`], [`logfmt_level`]: cheap rejections first, as
//! framing classifies every line it frames) and reading one into ranges of the line (run only
//! on events that are written). Contract: nothing here fails; a line that does not fit is
//! `None` and stays what it was (plain text). A logfmt line is one whose every token is a
//! `key=value` pair, with a `msg` (or `message`) and a `level` (or `lvl`) whose value is a level
//! word: a RisingWave message's `level=3` field, a sentence with an `=` in it, or a config dump's
//! `level=info` line inside a message is not one. A klog line's date and time must be ones.

use std::ops::Range;

use super::parse::KeyValue;

/// A klog (or glog) line: ranges into the line's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KlogLine {
    /// The severity letter's word, as glog names it and Vector's `parse_klog` writes it:
    /// `info`, `warning`, `error`, `fatal`.
    pub level: &'static str,
    /// `mmdd hh:mm:ss.uuuuuu` (klog) or `yyyymmdd hh:mm:ss.uuuuuu` (glog).
    pub time: Range<usize>,
    /// The thread (klog: process) id.
    pub thread: Range<usize>,
    /// `file.go:123`.
    pub caller: Range<usize>,
    /// What the line says: after `] `, or for a structured line (`] "Starting controller"
    /// controller="x"`) the quoted message without its quotes.
    pub message: Range<usize>,
    /// Where a structured line's `key=value` pairs start, after its message ([`KlogLine::fields`]).
    pub pairs: Option<usize>,
}

impl KlogLine {
    /// A structured line's pairs, values without their quotes (read again here, not kept: the
    /// line is read for every event, and its fields only for those written). `c` is the
    /// event's text, from the klog line on: a value with line breaks in it is written as klog's
    /// text logger writes one, `key=<` at the end of the line, its lines below each behind a
    /// tab, and ` >` on a line of its own (more pairs may follow it there); its range then runs
    /// from its first line's first byte to its last line's end, tabs and line breaks between
    /// them in it ([`multi_line_value`] takes them out).
    pub fn fields(&self, c: &[u8], mut each: impl FnMut(KeyValue)) {
        let Some(mut from) = self.pairs else { return };
        loop {
            let end = memchr::memchr(b'\n', &c[from..]).map_or(c.len(), |p| from + p);
            let mut next = None;
            pairs(&c[..end], from, |k, v| {
                if &c[v.clone()] == b"<"
                    && v.end == end
                    && c[end..].starts_with(b"\n\t")
                    && let Some((value, close)) = multi_line_span(c, end + 1)
                {
                    each((k, value));
                    next = Some(close);
                } else {
                    each((k, v));
                }
            });
            match next {
                Some(close) => from = close,
                None => return,
            }
        }
    }
}

/// A klog multi-line value whose first line starts at `c[at]` (after its tab): the value's range
/// (its lines, from after the first tab to the end of the last) and where the pairs after its
/// closing ` >` start; `None` when no ` >` line closes it (the lines are then not a value).
fn multi_line_span(c: &[u8], at: usize) -> Option<(Range<usize>, usize)> {
    let mut line = at;
    let mut last_end = at;
    while c.get(line) == Some(&b'\t') {
        last_end = memchr::memchr(b'\n', &c[line..]).map_or(c.len(), |p| line + p);
        line = last_end + 1;
    }
    (line > at && c.get(line..line + 2) == Some(b" >")).then_some((at + 1..last_end, line + 2))
}

/// A klog multi-line value's text ([`KlogLine::fields`]): its lines without the tab before each.
pub fn multi_line_value(v: &str) -> std::borrow::Cow<'_, str> {
    if v.contains("\n\t") { std::borrow::Cow::Owned(v.replace("\n\t", "\n")) } else { std::borrow::Cow::Borrowed(v) }
}

/// The two layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Klog,
    Logfmt,
}

/// The layout and level word of a Go program's line: a klog line's severity
/// ([`KlogLine::level`]), a logfmt line's `level` value; `None` for other lines. The first byte
/// rules out most lines: klog's is a severity letter, a logfmt line's a key's first letter.
pub fn level(c: &[u8]) -> Option<(Layout, &[u8])> {
    let first = *c.first()?;
    if matches!(first, b'I' | b'W' | b'E' | b'F')
        && let Some((k, _)) = klog_head(c)
    {
        return Some((Layout::Klog, k.level.as_bytes()));
    }
    if first.is_ascii_alphabetic() {
        return logfmt_level(c).map(|r| (Layout::Logfmt, &c[r]));
    }
    None
}

/// Read a klog line: `<I|W|E|F><mmdd> <hh:mm:ss>[.<fraction>] <blanks><thread> <file>:<line>]
/// <message>`. `None` when `c` is not one.
// Out of line: kept out of the annotator's event path, which every RisingWave event takes.
#[inline(never)]
pub fn klog(c: &[u8]) -> Option<KlogLine> {
    let (mut line, start) = klog_head(c)?;
    // A structured line: the message quoted, then nothing but pairs (a plain message may start
    // with a quoted name: `"kube-system/coredns" failed to sync`).
    if c.get(start) == Some(&b'"')
        && let Some(end) = quoted_end(c, start)
        && matches!(c.get(end), None | Some(b' '))
        && pairs(c, end, |_, _| {})
    {
        line.message = start + 1..end - 1;
        line.pairs = Some(end);
    }
    Some(line)
}

/// A klog line's header, its message taken to be the rest of the line (no pairs read), and
/// where that message starts.
fn klog_head(c: &[u8]) -> Option<(KlogLine, usize)> {
    let level = match c.first()? {
        b'I' => "info",
        b'W' => "warning",
        b'E' => "error",
        b'F' => "fatal",
        _ => return None,
    };
    let date = digits(c, 1);
    if !(date == 4 || date == 8) || c.get(1 + date) != Some(&b' ') {
        return None;
    }
    // A date and a time that can be (`@timestamp` is written from them).
    let num = |at: usize| u32::from(c[at] - b'0') * 10 + u32::from(c[at + 1] - b'0');
    if !(1..=12).contains(&num(date - 3)) || !(1..=31).contains(&num(date - 1)) {
        return None;
    }
    let mut i = 2 + date;
    let clock = c.get(i..i + 8)?;
    let two = |k: usize| clock[k].is_ascii_digit() && clock[k + 1].is_ascii_digit();
    if !(two(0) && clock[2] == b':' && two(3) && clock[5] == b':' && two(6)) {
        return None;
    }
    if num(i) > 23 || num(i + 3) > 59 || num(i + 6) > 60 {
        return None;
    }
    i += 8;
    if c.get(i) == Some(&b'.') && digits(c, i + 1) > 0 {
        i += 1 + digits(c, i + 1);
    }
    let time = 1..i;
    let blanks = c[i..].iter().take_while(|&&b| b == b' ').count();
    let n = digits(c, i + blanks);
    if blanks == 0 || n == 0 || c.get(i + blanks + n) != Some(&b' ') {
        return None;
    }
    let thread = i + blanks..i + blanks + n;
    let from = thread.end + 1;
    // The caller: `file:line]`, no blank in it; a path is short (klog writes the file's base
    // name), so the `]` is looked for in a few hundred bytes only.
    let close = from + c[from..c.len().min(from + 256)].iter().position(|&b| b == b']' || b == b' ')?;
    let colon = from + c[from..close].iter().rposition(|&b| b == b':')?;
    if c[close] != b']' || colon == from || digits(c, colon + 1) != close - colon - 1 || close == colon + 1 {
        return None;
    }
    let caller = from..close;
    let start = match c.get(close + 1) {
        None => close + 1,
        Some(b' ') => close + 2,
        Some(_) => return None,
    };
    Some((KlogLine { level, time, thread, caller, message: start..c.len(), pairs: None }, start))
}

/// A logfmt line: ranges into the line's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogfmtLine {
    /// The `level` (or `lvl`) value, without quotes.
    pub level: Range<usize>,
    /// The `time` (`ts`, `timestamp`, `t`) value, without quotes.
    pub time: Option<Range<usize>>,
    /// The `msg` (`message`) value, without quotes.
    pub message: Option<Range<usize>>,
}

impl LogfmtLine {
    /// The other pairs, in the line's order, values without quotes (read again here, as
    /// [`KlogLine::fields`] are).
    pub fn fields(&self, c: &[u8], mut each: impl FnMut(KeyValue)) {
        let taken =
            |v: &Range<usize>| *v == self.level || self.time.as_ref() == Some(v) || self.message.as_ref() == Some(v);
        pairs(c, 0, |k, v| {
            if !taken(&v) {
                each((k, v));
            }
        });
    }
}

/// Read a logfmt line (its first line: a message never spans lines in logfmt, and a line below
/// is another program's). `None` when `c` is not one (see the module's docs). One walk over the
/// pairs both tells and reads the line.
// Out of line: kept out of the annotator's event path, which every RisingWave event takes.
#[inline(never)]
pub fn logfmt(c: &[u8]) -> Option<LogfmtLine> {
    // The first key, before anything else is read: most lines that are not logfmt fail here.
    let first = c.iter().take(KEY_MAX + 1).position(|&b| !key_byte(b))?;
    if first == 0 || c[first] != b'=' || !c[0].is_ascii_alphabetic() {
        return None;
    }
    // `0..0`: no level yet (a value, even an empty one, starts after its key).
    let mut out = LogfmtLine { level: 0..0, time: None, message: None };
    let whole = pairs(c, 0, |k, v| match &c[k] {
        b"level" | b"lvl" if out.level == (0..0) => out.level = v,
        b"time" | b"ts" | b"timestamp" | b"t" if out.time.is_none() => out.time = Some(v),
        b"msg" | b"message" if out.message.is_none() => out.message = Some(v),
        _ => {}
    });
    (whole && out.message.is_some() && level_word(&c[out.level.clone()])).then_some(out)
}

/// The level value of a logfmt line (see the module's docs for what is one), without quotes:
/// the test framing runs.
pub fn logfmt_level(c: &[u8]) -> Option<Range<usize>> {
    logfmt(c).map(|l| l.level)
}

/// Longest key looked for at a logfmt line's start: keys are short words (`time`, `level`,
/// `caller`), and the bound keeps a long word without blanks from being walked twice.
const KEY_MAX: usize = 32;

/// A byte of a logfmt key: anything printable but blanks, `=` and `"`, as go-logfmt reads
/// them (`key[0]`, `@timestamp`, `http.status`).
fn key_byte(b: u8) -> bool {
    b > b' ' && b != b'=' && b != b'"' && b != 0x7f
}

/// The level words of Go's loggers in any case (logrus, zap, go-kit, slog, log15's four-letter
/// ones): a logfmt line's `level` is one of them.
fn level_word(w: &[u8]) -> bool {
    const WORDS: [&[u8]; 15] = [
        b"trace",
        b"debug",
        b"dbug",
        b"info",
        b"notice",
        b"warn",
        b"warning",
        b"error",
        b"eror",
        b"err",
        b"fatal",
        b"panic",
        b"dpanic",
        b"crit",
        b"critical",
    ];
    WORDS.iter().any(|l| w.eq_ignore_ascii_case(l))
}

/// Walk the `key=value` pairs of `c` from `from`, calling `each` with each key's and value's
/// range (a quoted value's without its quotes; an unclosed quote runs to the end). Returns
/// whether every token was a pair (a bare word, or a key that is not one, ends the walk).
fn pairs(c: &[u8], from: usize, mut each: impl FnMut(Range<usize>, Range<usize>)) -> bool {
    let mut i = from;
    loop {
        while i < c.len() && (c[i] == b' ' || c[i] == b'\t') {
            i += 1;
        }
        if i >= c.len() {
            return true;
        }
        let k = i;
        while i < c.len() && key_byte(c[i]) {
            i += 1;
        }
        if i == k || c.get(i) != Some(&b'=') {
            return false;
        }
        let key = k..i;
        i += 1;
        let value = if c.get(i) == Some(&b'"') {
            let end = quoted_end(c, i).unwrap_or(c.len() + 1);
            let v = i + 1..end - 1;
            i = end.min(c.len());
            v
        } else {
            let s = i;
            while i < c.len() && c[i] != b' ' && c[i] != b'\t' {
                i += 1;
            }
            s..i
        };
        each(key, value);
    }
}

/// The end (after the closing quote) of the quoted string that starts at `c[at]`, backslash
/// escapes skipped; `None` when it is not closed.
fn quoted_end(c: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while i < c.len() {
        match c[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// How many ASCII digits start `c[at..]`.
fn digits(c: &[u8], at: usize) -> usize {
    c.get(at..).map_or(0, |s| s.iter().take_while(|b| b.is_ascii_digit()).count())
}

/// A quoted value as the program meant it: `\"`, `\\`, `\n`, `\t` and `\r` undone (Go's
/// `strconv.Quote`, which logfmt writers use, writes those; other escapes are left as written).
pub fn unescape(v: &str) -> std::borrow::Cow<'_, str> {
    if !v.contains('\\') {
        return std::borrow::Cow::Borrowed(v);
    }
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(ch) = chars.next() {
        if ch != '\\' {
            out.push(ch);
            continue;
        }
        match chars.next() {
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A klog time in RFC 3339's form, zone-less (klog writes the process's local time, and which
/// zone that was is not known here; glog's and the other programs' zone-less times are written
/// so too). klog leaves the year out: it is the year of `observed` (the event's observed time,
/// RFC 3339), or the one before when the line's month is later than the observed one (a line
/// from December read in January), as Vector's `parse_klog` resolves it.
pub fn klog_timestamp(c: &[u8], time: &Range<usize>, observed: &str) -> Option<String> {
    let t = std::str::from_utf8(&c[time.clone()]).ok()?;
    let (date, clock) = t.split_once(' ')?;
    let (year, md) = if date.len() == 8 {
        (date[..4].to_string(), &date[4..])
    } else {
        (format!("{:04}", year_of(date[..2].parse().ok()?, observed)?), date)
    };
    Some(format!("{year}-{}-{}T{clock}", &md[..2], &md[2..]))
}

/// The year of a time written without one (klog's, BSD syslog's) in `month`: `observed`'s (the
/// event's observed time, RFC 3339), or the one before when `month` is later than the observed
/// one (a line from December read in January).
pub fn year_of(month: u32, observed: &str) -> Option<i32> {
    let seen: i32 = observed.get(..4)?.parse().ok()?;
    let seen_month: u32 = observed.get(5..7)?.parse().ok()?;
    Some(if month > seen_month { seen - 1 } else { seen })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s<'a>(c: &'a str, r: &Range<usize>) -> &'a str {
        &c[r.clone()]
    }

    #[test]
    fn klog_lines() {
        // (line, level, time, thread, caller, message, fields)
        type Case<'a> = (&'a str, Option<(&'a str, &'a str, &'a str, &'a str, &'a str, &'a [(&'a str, &'a str)])>);
        let cases: &[Case] = &[
            (
                "E1205 07:20:22.123456       1 reflector.go:138] failed to list *v1.Pod: connection refused",
                Some((
                    "error",
                    "1205 07:20:22.123456",
                    "1",
                    "reflector.go:138",
                    "failed to list *v1.Pod: connection refused",
                    &[],
                )),
            ),
            (
                "W0102 00:00:01.5 42 warnings.go:70] v1 Endpoints is deprecated",
                Some(("warning", "0102 00:00:01.5", "42", "warnings.go:70", "v1 Endpoints is deprecated", &[])),
            ),
            // glog, with the year
            (
                "I20210131 14:48:54.411655 15520 main.c++:9] Hello world!",
                Some(("info", "20210131 14:48:54.411655", "15520", "main.c++:9", "Hello world!", &[])),
            ),
            // structured: the quoted message, then pairs
            (
                r#"I1007 13:16:55.727802 1146763 example.go:57] "Key/value encoding" logger="example" foo="bar \"x\"" int=42"#,
                Some((
                    "info",
                    "1007 13:16:55.727802",
                    "1146763",
                    "example.go:57",
                    "Key/value encoding",
                    &[("logger", "example"), ("foo", r#"bar \"x\""#), ("int", "42")],
                )),
            ),
            (
                "F1205 07:20:22.123456 7 server.go:1]",
                Some(("fatal", "1205 07:20:22.123456", "7", "server.go:1", "", &[])),
            ),
            // not klog
            ("E1205 is not a date", None),
            ("Error 07:20:22 1 x.go:1] y", None),
            ("E12 07:20:22.1 1 x.go:1] y", None),
            ("E1205 07:20:22.1 1 x.go] no line number", None),
            ("E1205 07:20:22.1 1 x.go:1]no blank", None),
            ("E1205 07:20:22.1 x.go:1] no thread", None),
            ("D1205 07:20:22.1 1 x.go:1] not a severity", None),
            // no such date or time
            ("E1399 07:20:22.1 1 x.go:1] m", None),
            ("E0000 07:20:22.1 1 x.go:1] m", None),
            ("E0101 24:00:00.1 1 x.go:1] m", None),
            ("E0101 23:60:00.1 1 x.go:1] m", None),
            // a plain message that starts with a quoted name is not a structured one
            (
                r#"E1205 07:20:22.123456 1 controller.go:12] "kube-system/coredns-abc" failed to sync: refused"#,
                Some((
                    "error",
                    "1205 07:20:22.123456",
                    "1",
                    "controller.go:12",
                    r#""kube-system/coredns-abc" failed to sync: refused"#,
                    &[],
                )),
            ),
        ];
        for (line, want) in cases {
            let got = klog(line.as_bytes());
            match (got, want) {
                (None, None) => {}
                (Some(k), Some((level, time, thread, caller, message, fields))) => {
                    assert_eq!(
                        (k.level, s(line, &k.time), s(line, &k.thread), s(line, &k.caller), s(line, &k.message)),
                        (*level, *time, *thread, *caller, *message),
                        "{line}"
                    );
                    let mut f = Vec::new();
                    k.fields(line.as_bytes(), |(a, b)| f.push((s(line, &a), s(line, &b))));
                    assert_eq!(f, *fields, "{line}");
                }
                (got, want) => panic!("{line}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn logfmt_lines() {
        // (line, level, time, message, other fields)
        type Case<'a> = (&'a str, Option<(&'a str, Option<&'a str>, Option<&'a str>, &'a [(&'a str, &'a str)])>);
        let cases: &[Case] = &[
            // logrus
            (
                r#"time="2026-03-02T08:00:00Z" level=error msg="failed to sync pod" pod=meta-0 err="context deadline exceeded""#,
                Some((
                    "error",
                    Some("2026-03-02T08:00:00Z"),
                    Some("failed to sync pod"),
                    &[("pod", "meta-0"), ("err", "context deadline exceeded")],
                )),
            ),
            // go-kit: the level first, a caller
            (
                "level=warn ts=2026-03-02T08:00:01.123Z caller=main.go:123 msg=\"slow query\" duration=3.2s",
                Some((
                    "warn",
                    Some("2026-03-02T08:00:01.123Z"),
                    Some("slow query"),
                    &[("caller", "main.go:123"), ("duration", "3.2s")],
                )),
            ),
            // slog's text handler
            (
                "time=2026-03-02T08:00:02.000+01:00 level=WARN msg=hello",
                Some(("WARN", Some("2026-03-02T08:00:02.000+01:00"), Some("hello"), &[])),
            ),
            // no message; an empty value; escapes in a quoted value
            (
                r#"lvl=eror t=x msg= a= b="q \" q""#,
                Some(("eror", Some("x"), Some(""), &[("a", ""), ("b", r#"q \" q"#)])),
            ),
            // keys as go-logfmt reads them
            ("level=error msg=x key[0]=1 @t=2", Some(("error", None, Some("x"), &[("key[0]", "1"), ("@t", "2")]))),
            // not logfmt: no level; a level that is not a level word; prose; a bare word
            ("time=2026 msg=x", None),
            // no message: a config dump's line inside a message
            ("level=info", None),
            ("level=info format=json", None),
            ("compaction level=3 size=5", None),
            ("level=3 size=5", None),
            ("a sentence with level=error in it", None),
            ("level=error msg=x and then prose", None),
            ("=x level=error", None),
        ];
        for (line, want) in cases {
            let got = logfmt(line.as_bytes());
            assert_eq!(got.is_some(), logfmt_level(line.as_bytes()).is_some(), "{line}");
            match (got, want) {
                (None, None) => {}
                (Some(l), Some((level, time, message, fields))) => {
                    assert_eq!(s(line, &l.level), *level, "{line}");
                    assert_eq!(l.time.as_ref().map(|t| s(line, t)), *time, "{line}");
                    assert_eq!(l.message.as_ref().map(|t| s(line, t)), *message, "{line}");
                    let mut f = Vec::new();
                    l.fields(line.as_bytes(), |(a, b)| f.push((s(line, &a), s(line, &b))));
                    assert_eq!(f, *fields, "{line}");
                }
                (got, want) => panic!("{line}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn klog_multi_line_values() {
        // (event text, its pairs as read: a multi-line value's lines without their tabs)
        let cases: &[(&str, &[(&str, &str)])] = &[
            (
                "E1205 07:20:22.1 1 a.go:1] \"Unhandled Error\" err=<\n\tpods \"p\" is forbidden\n\tsecond\n > logger=\"U\"",
                &[("err", "pods \"p\" is forbidden\nsecond"), ("logger", "U")],
            ),
            // Two of them, the second after the first's ` >`, and a last ` >` alone.
            (
                "I1205 07:20:22.1 1 a.go:1] \"m\" a=<\n\tone\n > b=2 c=<\n\ttwo\n\tthree\n >",
                &[("a", "one"), ("b", "2"), ("c", "two\nthree")],
            ),
            // Not closed by ` >`, or no tab on the next line: the `<` is the value.
            ("E1205 07:20:22.1 1 a.go:1] \"m\" err=<\n\tone\n", &[("err", "<")]),
            ("E1205 07:20:22.1 1 a.go:1] \"m\" err=<\nnext", &[("err", "<")]),
            // `<` inside a line is a value like any other.
            ("E1205 07:20:22.1 1 a.go:1] \"m\" op=< n=1\n\tx\n >", &[("op", "<"), ("n", "1")]),
        ];
        for (text, want) in cases {
            let first = &text[..text.find('\n').unwrap_or(text.len())];
            let l = klog(first.as_bytes()).expect("klog");
            let mut got = Vec::new();
            l.fields(text.as_bytes(), |(k, v)| got.push((text[k].to_owned(), multi_line_value(&text[v]).into_owned())));
            let want: Vec<(String, String)> = want.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn unquoted_values() {
        for (v, want) in
            [("plain", "plain"), (r#"a \"b\" c"#, r#"a "b" c"#), (r"x\\y\nz", "x\\y\nz"), (r"\u00e9 \", r"\u00e9 \")]
        {
            assert_eq!(unescape(v), want);
        }
    }

    #[test]
    fn klog_years() {
        let k = |line: &str, observed: &str| {
            let l = klog(line.as_bytes()).expect("klog");
            klog_timestamp(line.as_bytes(), &l.time, observed)
        };
        assert_eq!(
            k("E1205 07:20:22.123456 1 x.go:1] y", "2026-12-05T08:00:00Z").as_deref(),
            Some("2026-12-05T07:20:22.123456")
        );
        // December's line read in January: the year before
        assert_eq!(k("E1231 23:59:59.5 1 x.go:1] y", "2027-01-01T00:00:01Z").as_deref(), Some("2026-12-31T23:59:59.5"));
        assert_eq!(
            k("I20210131 14:48:54.411655 15520 main.c++:9] y", "2026-12-05T08:00:00Z").as_deref(),
            Some("2021-01-31T14:48:54.411655")
        );
        assert_eq!(
            k("I1205 14:48:54 1 x.go:9] no fraction", "2026-12-05T08:00:00Z").as_deref(),
            Some("2026-12-05T14:48:54")
        );
    }
}
