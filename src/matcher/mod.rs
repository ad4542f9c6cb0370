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
//! Everything here is synchronous and works on bytes. Regexes are compiled on a record's first
//! candidate, not at start-up, with size limits so that a hostile catalog cannot exhaust memory.
//! Per-event work reuses the buffers of a [`Scratch`]; only confirmed matches allocate.

pub mod literals;
pub mod prefilter;

use std::sync::OnceLock;

use regex::bytes::{Regex, RegexBuilder};

use crate::catalog::template::{self, Forms, Part};
use crate::catalog::{Catalog, Level, Problem, ProblemKind, Record};
use prefilter::{Hit, Prefilter};

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

/// Shortest key literal worth putting in the prefilter. Shorter ones (`: `, `id`) hit nearly
/// every line, so such records are confirmed on every event instead, with a warning.
const MIN_LITERAL: usize = 3;

/// A record without a usable literal whose pattern can match this few bytes would match almost
/// any line (`(.+?)`, `.{2}`): it is refused.
const MIN_GENERIC_LEN: usize = 8;

/// How a record ranks as the primary match, best last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// A tracing call site's message: the outermost text of a line.
    LogEvent = 0,
    /// `<literal>: {source}`: a wrapper that only passes its source on.
    Wrapper = 1,
    /// Any other error.
    Error = 2,
}

/// One record, ready to match.
pub struct Entry {
    pub rec: Record,
    /// Capture name of each group (group 1 is `names[0]`).
    pub names: Vec<String>,
    pub forms: Forms,
    pub key: Option<Vec<u8>>,
    pub class: Class,
    /// Literal bytes in the pattern: more means more specific.
    pub specificity: usize,
    find: OnceLock<Option<Regex>>,
    capture: OnceLock<Option<Regex>>,
    limits: Limits,
}

impl Entry {
    fn build(&self, pat: &str) -> Result<Regex, regex::Error> {
        RegexBuilder::new(pat)
            .size_limit(self.limits.regex_size)
            .dfa_size_limit(self.limits.regex_size)
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

    pub fn find_regex(&self) -> Option<&Regex> {
        self.compiled(&self.find, &self.forms.find)
    }

    pub fn capture_regex(&self) -> Option<&Regex> {
        match &self.forms.capture {
            Some(p) => self.compiled(&self.capture, p),
            None => self.find_regex(),
        }
    }

    /// Compile both forms now, for `check`.
    pub fn compile_now(&self) -> Result<(), String> {
        self.build(&self.forms.find).map_err(|e| e.to_string())?;
        if let Some(p) = &self.forms.capture {
            self.build(p).map_err(|e| e.to_string())?;
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
}

/// Reusable per-event buffers.
#[derive(Default)]
pub struct Scratch {
    pub hits: Vec<Hit>,
    pub cands: Vec<u32>,
    mark: Vec<u32>,
    generation: u32,
    pub found: Vec<Found>,
    pub caps: Vec<Option<(usize, usize)>>,
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
}

impl Matcher {
    /// Compile a catalog. Records with errors are left out and reported.
    pub fn new(catalog: Catalog, limits: Limits) -> (Matcher, Vec<Problem>) {
        let mut problems = catalog.problems;
        let mut entries = Vec::with_capacity(catalog.records.len());
        let parser_limit = limits.nest;
        for rec in catalog.records {
            if let Some(e) = prepare(rec, limits, parser_limit, &mut problems) {
                entries.push(e);
            }
        }
        let keys: Vec<Option<&[u8]>> = entries.iter().map(|e| e.key.as_deref()).collect();
        let prefilter = Prefilter::new(&keys);
        let unkeyed = entries.iter().enumerate().filter(|(_, e)| e.key.is_none()).map(|(i, _)| i as u32).collect();
        (Matcher { entries, prefilter, unkeyed }, problems)
    }

    /// Scan `text` with the prefilter, appending hits to `hits`.
    pub fn scan(&self, text: &[u8], hits: &mut Vec<Hit>) {
        self.prefilter.scan(text, hits);
    }

    /// Turn literal ids into distinct candidate records (into `scratch.cands`), adding the
    /// records without a literal.
    pub fn candidates(&self, literals: impl IntoIterator<Item = u32>, scratch: &mut Scratch) {
        scratch.next_generation(self.entries.len());
        scratch.cands.clear();
        let g = scratch.generation;
        for lit in literals {
            for &r in self.prefilter.owners(lit) {
                if scratch.mark[r as usize] != g {
                    scratch.mark[r as usize] = g;
                    scratch.cands.push(r);
                }
            }
        }
        scratch.cands.extend_from_slice(&self.unkeyed);
    }

    /// Confirm `scratch.cands` against the haystacks; results in `scratch.found`, ranked.
    pub fn confirm(&self, hays: &[Hay<'_>], scratch: &mut Scratch) {
        scratch.found.clear();
        scratch.caps.clear();
        let cands = std::mem::take(&mut scratch.cands);
        for &c in &cands {
            let e = &self.entries[c as usize];
            let Some(re) = e.find_regex() else { continue };
            for (hi, hay) in hays.iter().enumerate() {
                let Some(m) = re.find(hay.text) else { continue };
                if let Some(f) = self.capture(c, e, hi as u16, hay, m.start(), m.end(), &mut scratch.caps) {
                    scratch.found.push(f);
                    break;
                }
            }
        }
        scratch.cands = cands;
        self.rank(&mut scratch.found);
    }

    fn capture(
        &self,
        idx: u32,
        e: &Entry,
        hay_index: u16,
        hay: &Hay<'_>,
        mut start: usize,
        lazy_end: usize,
        caps: &mut Vec<Option<(usize, usize)>>,
    ) -> Option<Found> {
        let text = hay.text;
        if e.forms.leading_group {
            // `(.+?) not found in ...` starts at the haystack's first byte; the value is the last
            // chain link (`outer: <value>`) inside the value the match sits in.
            let re = e.find_regex()?;
            if let Some(c) = re.captures_at(text, start)
                && let Some(g) = c.get(1)
            {
                let mut s = g.start();
                if let Some(p) = hay.starts.iter().rev().find(|&&p| p <= g.end().saturating_sub(1)) {
                    s = s.max(*p);
                }
                if let Some(p) = memchr::memmem::rfind(&text[s..g.end()], b": ") {
                    s += p + 2;
                }
                if s > start && s < g.end() && re.captures_at(text, s).is_some_and(|c| c.get(0).unwrap().start() == s)
                {
                    start = s;
                }
            }
        }
        let bound = match hay.ends.iter().find(|&&p| p >= lazy_end) {
            Some(&p) => p,
            None => text.len(),
        };
        let re = e.capture_regex()?;
        let hay_part = if e.forms.capture.is_some() { &text[..bound.max(lazy_end)] } else { text };
        let c = re.captures_at(hay_part, start)?;
        let m = c.get(0)?;
        let first = caps.len() as u32;
        let mut tail = m.end();
        for i in 1..c.len() {
            let g = c.get(i).map(|g| (g.start(), g.end()));
            if i == c.len() - 1
                && let Some((s, _)) = g
                && e.forms.capture.is_some()
            {
                tail = s;
            }
            caps.push(g);
        }
        Some(Found {
            entry: idx,
            hay: hay_index,
            start: m.start(),
            end: m.end(),
            tail,
            caps: (first, caps.len() as u32),
        })
    }

    /// Order confirmed matches so that the first is the primary.
    ///
    /// The primary is the most specific record, preferring the innermost error of a chain:
    /// 1. an error record beats a wrapper (`Storage error: {0}`), which beats a log message;
    /// 2. of two matches where one lies inside the other's trailing value, the inner one wins
    ///    (the outer one wraps it); of two disjoint matches, the later (inner) link wins;
    /// 3. of two overlapping matches, the one with more literal text wins;
    /// 4. then a record with documentation, then the smaller id.
    ///
    /// The others follow in the order they appear in the event.
    pub fn rank(&self, found: &mut [Found]) {
        if found.len() < 2 {
            return;
        }
        found.sort_by_key(|f| (f.hay, f.start, f.end));
        let mut best = 0;
        for i in 1..found.len() {
            if self.better(&found[i], &found[best]) {
                best = i;
            }
        }
        found[..=best].rotate_right(1);
    }

    fn better(&self, a: &Found, b: &Found) -> bool {
        let (ea, eb) = (&self.entries[a.entry as usize], &self.entries[b.entry as usize]);
        if ea.class != eb.class {
            return ea.class > eb.class;
        }
        if a.hay != b.hay {
            return a.hay > b.hay;
        }
        let inside = |x: &Found, y: &Found| y.tail <= x.start && x.end <= y.end && y.tail < y.end;
        if inside(a, b) {
            return true;
        }
        if inside(b, a) {
            return false;
        }
        let disjoint = a.end <= b.start || b.end <= a.start;
        if disjoint {
            return a.start > b.start;
        }
        if ea.specificity != eb.specificity {
            return ea.specificity > eb.specificity;
        }
        let (da, db) = (ea.rec.str_field("documentation").is_some(), eb.rec.str_field("documentation").is_some());
        if da != db {
            return da;
        }
        ea.rec.id < eb.rec.id
    }
}

fn prepare(rec: Record, limits: Limits, nest: u32, problems: &mut Vec<Problem>) -> Option<Entry> {
    let parts = rec.template.as_deref().map(template::parse);
    let names_t = parts.as_deref().map(template::capture_names);
    let parse = |p: &str| regex_syntax::ParserBuilder::new().nest_limit(nest).build().parse(p);
    let mut base: Option<(String, regex_syntax::hir::Hir)> = None;
    if let Some(p) = &rec.pattern {
        match parse(p) {
            Ok(h) => base = Some((p.clone(), h)),
            Err(e) => {
                let level = if parts.is_some() { Level::Warning } else { Level::Error };
                let what = if parts.is_some() { "; using a pattern derived from errorMessage" } else { "" };
                problems.push(Problem::new(
                    level,
                    &rec.origin,
                    Some(&rec.id),
                    ProblemKind::InvalidRegex,
                    format!("messagePattern does not compile{what}: {}", one_line(&e.to_string())),
                ));
            }
        }
    }
    let (base, hir) = match base {
        Some(b) => b,
        None => {
            let derived = template::derive_pattern(parts.as_deref()?);
            match parse(&derived) {
                Ok(h) => (derived, h),
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
    let groups = hir.properties().explicit_captures_len();
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
    if hir.properties().minimum_len() == Some(0) {
        problems.push(Problem::new(
            Level::Error,
            &rec.origin,
            Some(&rec.id),
            ProblemKind::EmptyPattern,
            "pattern matches the empty string, so it would match every line".into(),
        ));
        return None;
    }
    let optional_tail = parts.as_deref().is_some_and(template::has_optional_tail) && base.ends_with(": (.+?)");
    let forms = template::forms(&base, optional_tail);
    let find_hir = match parse(&forms.find) {
        Ok(h) => h,
        Err(e) => {
            problems.push(Problem::new(
                Level::Error,
                &rec.origin,
                Some(&rec.id),
                ProblemKind::InvalidRegex,
                format!("pattern does not compile: {}", one_line(&e.to_string())),
            ));
            return None;
        }
    };
    let lits = literals::required(&find_hir);
    let specificity = lits.iter().map(Vec::len).sum();
    let key = literals::best(&lits).filter(|l| l.len() >= MIN_LITERAL).map(<[u8]>::to_vec);
    if key.is_none() {
        let min = find_hir.properties().minimum_len().unwrap_or(0);
        if min < MIN_GENERIC_LEN {
            problems.push(Problem::new(
                Level::Error,
                &rec.origin,
                Some(&rec.id),
                ProblemKind::MatchesAnyLine,
                format!("pattern has no literal text and matches as few as {min} bytes: it would match almost any line"),
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
    let class = if rec.is_log_event() {
        Class::LogEvent
    } else if matches!(parts.as_deref(), Some([Part::Lit(_), Part::Ph { .. }])) {
        Class::Wrapper
    } else {
        Class::Error
    };
    Some(Entry {
        rec,
        names,
        forms,
        key,
        class,
        specificity,
        find: OnceLock::new(),
        capture: OnceLock::new(),
        limits,
    })
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
