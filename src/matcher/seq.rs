//! Literal sequences: the regex shape of almost every catalog record, matched with `memmem`.
//!
//! Owns the fast confirm path. A catalog pattern is nearly always literal text with lazy groups
//! between the pieces — `lit (.+?) lit (.+?) lit`, possibly starting with a group, possibly
//! ending in the (greedy) trailing group — and the leftmost-first match of such a pattern can be
//! found by looking for the pieces in order: each lazy group ends at the first occurrence of the
//! next piece (extending it to a later occurrence can never help the pieces after it). This path
//! needs no compiled regex, so it costs neither compile time nor memory per record.
//!
//! Contract: for patterns [`Seq::from_hir`] accepts, [`Seq::find_at`] returns the same match and
//! groups as the regex crate on valid UTF-8 (a property test checks this); on invalid UTF-8 a
//! group may also cover bytes that are not characters, where the regex would not match.

use regex_syntax::hir::{Class, Hir, HirKind, Look};

/// A group `(.+?)` (or the trailing `(.+)`), and whether it may span lines (`(?s)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Gap {
    dotall: bool,
}

/// A word boundary (`\b`) at the pattern's start or end: ASCII's (`(?-u:\b)`) or Unicode's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bound {
    Ascii,
    Unicode,
}

impl Bound {
    fn of(h: &Hir) -> Option<Bound> {
        match h.kind() {
            HirKind::Look(Look::WordAscii) => Some(Bound::Ascii),
            HirKind::Look(Look::WordUnicode) => Some(Bound::Unicode),
            _ => None,
        }
    }

    /// Is there a word boundary at `pos` of `text` (a word character on one side only)? Bytes
    /// that are not UTF-8 are no word characters.
    fn at(self, text: &[u8], pos: usize) -> bool {
        let (before, after) = match self {
            Bound::Ascii => (
                pos > 0 && regex_syntax::is_word_byte(text[pos - 1]),
                text.get(pos).is_some_and(|&b| regex_syntax::is_word_byte(b)),
            ),
            Bound::Unicode => {
                let word = |c: Option<char>| c.is_some_and(|c| regex_syntax::try_is_word_character(c).unwrap_or(false));
                let back = (1..=4.min(pos)).find_map(|n| std::str::from_utf8(&text[pos - n..pos]).ok());
                let ahead = (1..=4.min(text.len() - pos)).find_map(|n| std::str::from_utf8(&text[pos..pos + n]).ok());
                (word(back.and_then(|s| s.chars().next_back())), word(ahead.and_then(|s| s.chars().next())))
            }
        };
        before != after
    }
}

#[derive(Debug, Clone)]
pub struct Seq {
    /// A word boundary before the first piece (a pattern that starts with `\b`; none with a
    /// leading group) and after the last (none with a trailing group): a draft's (`discover`).
    start_bound: Option<Bound>,
    end_bound: Option<Bound>,
    lead: Option<Gap>,
    pieces: Vec<Vec<u8>>,
    /// `gaps[i]` lies between `pieces[i]` and `pieces[i + 1]`.
    gaps: Vec<Gap>,
    tail: Option<Gap>,
    /// A searcher per piece, built when the record is first a candidate: most records never are,
    /// and a searcher takes ~400 bytes (17 MB for 43,500 records).
    finders: std::sync::OnceLock<Vec<memchr::memmem::Finder<'static>>>,
    /// A piece holds a byte that JSON escapes (asked for every hit the framer weighs).
    escapable: bool,
}

/// Is `h` a capture of `.+` (one or more of any character, with or without line breaks)?
fn dot_group(h: &Hir, lazy: bool) -> Option<Gap> {
    let HirKind::Capture(c) = h.kind() else { return None };
    let HirKind::Repetition(r) = c.sub.kind() else { return None };
    if r.min != 1 || r.max.is_some() || r.greedy == lazy {
        return None;
    }
    let HirKind::Class(cls) = r.sub.kind() else { return None };
    // `.` is every scalar value but `\n`; `(?s).` is every scalar value.
    let dotall = match cls {
        Class::Unicode(u) => {
            let r = u.ranges();
            match r {
                [a] if a.start() == '\0' && a.end() == char::MAX => true,
                [a, b] if a.start() == '\0' && a.end() == '\x09' && b.start() == '\x0b' && b.end() == char::MAX => {
                    false
                }
                _ => return None,
            }
        }
        Class::Bytes(_) => return None,
    };
    Some(Gap { dotall })
}

impl Seq {
    /// Accept `[group] piece (group piece)* [trailing greedy group]`, where every group is `.+?`
    /// (`.+` at the end) and there is at least one piece.
    pub fn from_hir(hir: &Hir) -> Option<Seq> {
        let items: &[Hir] = match hir.kind() {
            HirKind::Concat(items) => items,
            _ => std::slice::from_ref(hir),
        };
        let mut lead = None;
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        let mut gaps = Vec::new();
        let mut tail = None;
        let mut pending_gap: Option<Gap> = None;
        let (mut start_bound, mut end_bound) = (None, None);
        for (i, item) in items.iter().enumerate() {
            let last = i + 1 == items.len();
            if let Some(b) = Bound::of(item) {
                match (i, last) {
                    (0, false) => start_bound = Some(b),
                    (_, true) if i > 0 && pending_gap.is_none() && tail.is_none() => end_bound = Some(b),
                    _ => return None,
                }
                continue;
            }
            if let HirKind::Literal(l) = item.kind() {
                match (pieces.is_empty(), pending_gap.take()) {
                    (true, g) => {
                        lead = g;
                        pieces.push(l.0.to_vec());
                    }
                    (false, Some(g)) => {
                        gaps.push(g);
                        pieces.push(l.0.to_vec());
                    }
                    // Two literals in a row are one piece.
                    (false, None) => pieces.last_mut()?.extend_from_slice(&l.0),
                }
                continue;
            }
            if pending_gap.is_some() {
                return None;
            }
            if last
                && !pieces.is_empty()
                && let Some(g) = dot_group(item, false)
            {
                tail = Some(g);
                continue;
            }
            pending_gap = Some(dot_group(item, true)?);
        }
        if pending_gap.is_some() || pieces.is_empty() || (start_bound.is_some() && lead.is_some()) {
            return None;
        }
        let escapable = pieces.iter().any(|p| super::literals::json_escapes(p));
        Some(Seq { start_bound, end_bound, lead, pieces, gaps, tail, finders: std::sync::OnceLock::new(), escapable })
    }

    pub fn finders(&self) -> &[memchr::memmem::Finder<'static>] {
        self.finders.get_or_init(|| super::finders_of(&self.pieces))
    }

    /// Can no match span lines (no line break in a piece, no `(?s)` group)?
    pub fn single_line(&self) -> bool {
        let gaps = self.lead.iter().chain(&self.gaps).chain(self.tail.iter());
        gaps.clone().all(|g| !g.dotall) && self.pieces.iter().all(|p| !p.contains(&b'\n'))
    }

    /// Could the pattern match within `line`, a text without line breaks, or within any text whose
    /// lines are substrings of it? Its pieces must occur in order, with at least one byte for each
    /// group. Placing each piece at its leftmost occurrence leaves the most room for the rest, so
    /// one forward pass decides. Pieces JSON would escape are the caller's concern: in a raw JSON
    /// line they do not appear as they are.
    pub fn fits_line(&self, line: &[u8]) -> bool {
        self.pieces_end(line, self.pieces.len()).is_some_and(|at| self.tail.is_none() || at < line.len())
    }

    /// Could a match hold, within `text`, the pieces up to piece `upto` (in order, each group at
    /// least one byte)? Asked of a pattern that may span lines, with the text of an event from
    /// its start to the end of a line holding piece `upto`: no match can place that piece within
    /// `text` otherwise. Groups are taken as spanning lines whether or not they may (looser, so
    /// never wrong).
    pub fn fits_head(&self, text: &[u8], upto: usize) -> bool {
        self.pieces_end(text, upto + 1).is_some()
    }

    /// Where the first `count` pieces end in `text`, each at its leftmost occurrence after the
    /// one before (and a byte for each group before it); `None` if one is missing.
    fn pieces_end(&self, text: &[u8], count: usize) -> Option<usize> {
        let mut at = usize::from(self.lead.is_some());
        for (i, (f, piece)) in self.finders().iter().zip(&self.pieces).take(count).enumerate() {
            at += usize::from(i > 0);
            at += text.get(at..).and_then(|t| f.find(t))? + piece.len();
        }
        Some(at)
    }

    /// The index of the first piece that is `lit`.
    pub fn piece_of(&self, lit: &[u8]) -> Option<usize> {
        self.pieces.iter().position(|p| p == lit)
    }

    /// Does a piece hold a byte that JSON escapes (`"`, `\\`, control characters)?
    pub fn has_escapable(&self) -> bool {
        self.escapable
    }

    /// Are the pieces exactly `lits`?
    pub fn pieces_are(&self, lits: &[Vec<u8>]) -> bool {
        self.pieces == lits
    }

    /// Number of groups, in order: the leading group, the gaps, the trailing group.
    pub fn groups(&self) -> usize {
        usize::from(self.lead.is_some()) + self.gaps.len() + usize::from(self.tail.is_some())
    }

    /// The leftmost match starting at or after `from`: its span, and the groups' spans appended
    /// to `groups`. `Err(Exhausted)` when a pathological text would need too much backtracking:
    /// the caller then asks the regex engine.
    pub fn find_at(
        &self,
        text: &[u8],
        from: usize,
        groups: &mut Vec<Option<(usize, usize)>>,
    ) -> Result<Option<(usize, usize)>, Exhausted> {
        let first = &self.finders()[0];
        let mut budget = BACKTRACK_BUDGET;
        let mut at = from + usize::from(self.lead.is_some());
        while at <= text.len() {
            let Some(rel) = first.find(&text[at..]) else { return Ok(None) };
            let p0 = at + rel;
            at = p0 + 1;
            if self.start_bound.is_some_and(|b| !b.at(text, p0)) {
                continue;
            }
            let mark = groups.len();
            let start = match self.lead {
                None => p0,
                Some(g) => {
                    let ls = if g.dotall { from } else { line_start(text, p0).max(from) };
                    if ls >= p0 {
                        continue;
                    }
                    groups.push(Some((ls, p0)));
                    ls
                }
            };
            match self.rest(text, 0, p0 + self.pieces[0].len(), groups, &mut budget)? {
                Some(end) => return Ok(Some((start, end))),
                None => groups.truncate(mark),
            }
        }
        Ok(None)
    }

    /// Match gaps `i..` and the tail from `pos`; each lazy gap tries the occurrences of the next
    /// piece in order (shortest first, as the regex does), depth first.
    fn rest(
        &self,
        text: &[u8],
        i: usize,
        pos: usize,
        groups: &mut Vec<Option<(usize, usize)>>,
        budget: &mut u32,
    ) -> Result<Option<usize>, Exhausted> {
        let Some(gap) = self.gaps.get(i) else {
            return Ok(match self.tail {
                None if self.end_bound.is_some_and(|b| !b.at(text, pos)) => None,
                None => Some(pos),
                Some(g) => {
                    let end = if g.dotall {
                        text.len()
                    } else {
                        memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |n| pos + n)
                    };
                    (end > pos).then(|| {
                        groups.push(Some((pos, end)));
                        end
                    })
                }
            });
        };
        let f = &self.finders()[i + 1];
        // A group holds at least one character.
        let mut from = pos + 1;
        while from <= text.len() {
            let Some(rel) = f.find(&text[from..]) else { return Ok(None) };
            let q = from + rel;
            if !gap.dotall && memchr::memchr(b'\n', &text[pos..q]).is_some() {
                return Ok(None);
            }
            let mark = groups.len();
            groups.push(Some((pos, q)));
            if let Some(end) = self.rest(text, i + 1, q + self.pieces[i + 1].len(), groups, budget)? {
                return Ok(Some(end));
            }
            groups.truncate(mark);
            *budget = budget.checked_sub(1).ok_or(Exhausted)?;
            from = q + 1;
        }
        Ok(None)
    }
}

/// Backtracking gave up; use the regex engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exhausted;

/// Retries of a gap's end before a search is handed to the regex engine. Real lines need a
/// handful at most; this bounds the quadratic cases (many occurrences of each piece).
const BACKTRACK_BUDGET: u32 = 256;

fn line_start(text: &[u8], p: usize) -> usize {
    memchr::memrchr(b'\n', &text[..p]).map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex::bytes::Regex;

    fn seq(p: &str) -> Option<Seq> {
        Seq::from_hir(&regex_syntax::parse(p).unwrap())
    }

    #[test]
    fn accepts_only_the_literal_sequence_shape() {
        for p in [
            "abc",
            "a (.+?) b",
            "(.+?) not found in (.+)",
            r"x\.y (.+?)\(z\)",
            "(?s)a\nb (.+?) c",
            "a ((?s:.+?)) b (.+)",
        ] {
            assert!(seq(p).is_some(), "{p}");
        }
        for p in ["a|b", "a (.+) b", "a (.*?) b", "a (.+?)(.+?) b", "(.+?)", "a [0-9]+", "^a"] {
            assert!(seq(p).is_none(), "{p}");
        }
        // Word boundaries at the ends (a draft's), not inside, before a leading group or after
        // a trailing one.
        for p in [r"\bab\b", r"\bab (.+?) x\b", r"(?-u:\b)ab(?-u:\b)", r"ab (.+?)x\b", r"\bab"] {
            assert!(seq(p).is_some(), "{p}");
        }
        for p in [r"a\bb", r"\b(.+?) x", r"x (.+)\b", r"x (.+?)\b", r"\b", r"\Bab"] {
            assert!(seq(p).is_none(), "{p}");
        }
    }

    fn same_as_regex(pattern: &str, text: &str) -> Result<(), TestCaseError> {
        let Some(s) = seq(pattern) else { return Ok(()) };
        let re = Regex::new(pattern).unwrap();
        let mut at = 0;
        while at <= text.len() {
            // Searches start where a caller's do: at characters.
            if !text.is_char_boundary(at) {
                at += 1;
                continue;
            }
            let want = re.captures_at(text.as_bytes(), at);
            let mut groups = Vec::new();
            let Ok(got) = s.find_at(text.as_bytes(), at, &mut groups) else { return Ok(()) };
            match want {
                None => prop_assert!(got.is_none(), "{pattern:?} on {text:?} at {at}: regex none, seq {got:?}"),
                Some(c) => {
                    let m = c.get(0).unwrap();
                    prop_assert_eq!(got, Some((m.start(), m.end())), "{:?} on {:?} at {}", pattern, text, at);
                    let want_g: Vec<_> = (1..c.len()).map(|i| c.get(i).map(|g| (g.start(), g.end()))).collect();
                    prop_assert_eq!(groups, want_g, "{:?} on {:?}", pattern, text);
                }
            }
            at += 1;
        }
        Ok(())
    }

    /// Regression: a line-spanning gap must extend past a line break when a later gap cannot
    /// hold one (found by `agrees_with_regex`).
    #[test]
    fn dotall_gap_extends_for_a_later_single_line_gap() {
        same_as_regex("x((?s:.+?))b(.+?)x", "x\nb\nbxx").unwrap();
        let mut g = Vec::new();
        assert_eq!(seq("x((?s:.+?))b(.+?)x").unwrap().find_at(b"x\nb\nbxx", 0, &mut g), Ok(Some((0, 7))));
        assert_eq!(g, vec![Some((1, 4)), Some((5, 6))]);
    }

    #[test]
    fn fits_line_needs_the_pieces_in_order_with_room_for_the_groups() {
        let cases: &[(&str, &str, bool)] = &[
            ("alter (.+?): (.+)", "alter subscription retention", false),
            ("alter (.+?): (.+)", "ddl_controller: alter subscription retention", false),
            ("alter (.+?): (.+)", "alter table t: x", true),
            ("alter (.+?): (.+)", "alter : x", false),
            ("alter (.+?): (.+)", "alter t: ", false),
            ("(.+?) not found", "not found", false),
            ("(.+?) not found", "x not found", true),
            ("a (.+?) b (.+?) a", "a x b a y b y a", true),
        ];
        for &(p, line, want) in cases {
            assert_eq!(seq(p).unwrap().fits_line(line.as_bytes()), want, "{p} on {line:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// The sequence matcher agrees with the regex crate on every start position.
        #[test]
        fn agrees_with_regex(
            pat in proptest::collection::vec(prop_oneof![Just("ab"), Just("b"), Just(": "), Just("x"), Just("(.+?)"), Just("((?s:.+?))")], 1..6),
            tail in prop_oneof![Just(""), Just("(.+)"), Just("((?s:.+))")],
            text in "[abx: \n]{0,24}",
        ) {
            let pattern = format!("{}{}", pat.concat(), tail);
            same_as_regex(&pattern, &text)?;
        }

        /// The same with word boundaries at the ends, on texts with word characters (ASCII and
        /// not) and others around the pieces.
        #[test]
        fn agrees_with_regex_at_word_boundaries(
            start in prop_oneof![Just(""), Just(r"\b"), Just(r"(?-u:\b)")],
            pat in proptest::collection::vec(prop_oneof![Just("ab"), Just("b"), Just(": "), Just("x_"), Just("(.+?)")], 1..5),
            end in prop_oneof![Just(""), Just(r"\b"), Just(r"(?-u:\b)")],
            text in "[abx_é: 7]{0,24}",
        ) {
            let pattern = format!("{start}{}{end}", pat.concat());
            same_as_regex(&pattern, &text)?;
        }

        /// `fits_line` never rejects a line the regex matches.
        #[test]
        fn fits_every_line_the_regex_matches(
            pat in proptest::collection::vec(prop_oneof![Just("ab"), Just("b"), Just(": "), Just("x"), Just("(.+?)")], 1..6),
            tail in prop_oneof![Just(""), Just("(.+)")],
            text in "[abx: ]{0,24}",
        ) {
            let pattern = format!("{}{}", pat.concat(), tail);
            let Some(s) = seq(&pattern) else { return Ok(()) };
            if Regex::new(&pattern).unwrap().is_match(text.as_bytes()) {
                prop_assert!(s.fits_line(text.as_bytes()), "{:?} on {:?}", pattern, text);
            }
        }
    }
}
