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

use regex_syntax::hir::{Class, Hir, HirKind};

/// A group `(.+?)` (or the trailing `(.+)`), and whether it may span lines (`(?s)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Gap {
    dotall: bool,
}

#[derive(Debug, Clone)]
pub struct Seq {
    lead: Option<Gap>,
    pieces: Vec<Vec<u8>>,
    /// `gaps[i]` lies between `pieces[i]` and `pieces[i + 1]`.
    gaps: Vec<Gap>,
    tail: Option<Gap>,
    finders: Vec<memchr::memmem::Finder<'static>>,
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
                [a, b] if a.start() == '\0' && a.end() == '\x09' && b.start() == '\x0b' && b.end() == char::MAX => false,
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
        for (i, item) in items.iter().enumerate() {
            let last = i + 1 == items.len();
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
            if last && !pieces.is_empty() && let Some(g) = dot_group(item, false) {
                tail = Some(g);
                continue;
            }
            pending_gap = Some(dot_group(item, true)?);
        }
        if pending_gap.is_some() || pieces.is_empty() {
            return None;
        }
        let finders = pieces.iter().map(|p| memchr::memmem::Finder::new(p).into_owned()).collect();
        Some(Seq { lead, pieces, gaps, tail, finders })
    }

    /// Number of groups, in order: the leading group, the gaps, the trailing group.
    pub fn groups(&self) -> usize {
        usize::from(self.lead.is_some()) + self.gaps.len() + usize::from(self.tail.is_some())
    }

    /// The leftmost match starting at or after `from`: its span, and the groups' spans appended
    /// to `groups`.
    pub fn find_at(&self, text: &[u8], from: usize, groups: &mut Vec<Option<(usize, usize)>>) -> Option<(usize, usize)> {
        let first = &self.finders[0];
        let mut at = from + usize::from(self.lead.is_some());
        while at <= text.len() {
            let p0 = at + first.find(&text[at..])?;
            at = p0 + 1;
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
            let mut pos = p0 + self.pieces[0].len();
            let mut ok = true;
            for (i, gap) in self.gaps.iter().enumerate() {
                let f = &self.finders[i + 1];
                // A group holds at least one character.
                let Some(q) = text.get(pos + 1..).and_then(|t| f.find(t)).map(|q| pos + 1 + q) else {
                    // No later occurrence at all: no start can match.
                    groups.truncate(mark);
                    return None;
                };
                if !gap.dotall && memchr::memchr(b'\n', &text[pos..q]).is_some() {
                    ok = false;
                    break;
                }
                groups.push(Some((pos, q)));
                pos = q + self.pieces[i + 1].len();
            }
            if ok && let Some(g) = self.tail {
                let end = if g.dotall { text.len() } else { memchr::memchr(b'\n', &text[pos..]).map_or(text.len(), |n| pos + n) };
                if end > pos {
                    groups.push(Some((pos, end)));
                    pos = end;
                } else {
                    ok = false;
                }
            }
            if ok {
                return Some((start, pos));
            }
            groups.truncate(mark);
        }
        None
    }
}

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
        for p in ["abc", "a (.+?) b", "(.+?) not found in (.+)", r"x\.y (.+?)\(z\)", "(?s)a\nb (.+?) c", "a ((?s:.+?)) b (.+)"] {
            assert!(seq(p).is_some(), "{p}");
        }
        for p in ["a|b", "a (.+) b", "a (.*?) b", "a (.+?)(.+?) b", "(.+?)", "a [0-9]+", "^a"] {
            assert!(seq(p).is_none(), "{p}");
        }
    }

    fn same_as_regex(pattern: &str, text: &str) -> Result<(), TestCaseError> {
        let Some(s) = seq(pattern) else { return Ok(()) };
        let re = Regex::new(pattern).unwrap();
        let mut at = 0;
        while at <= text.len() {
            let want = re.captures_at(text.as_bytes(), at);
            let mut groups = Vec::new();
            let got = s.find_at(text.as_bytes(), at, &mut groups);
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

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

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
    }
}
