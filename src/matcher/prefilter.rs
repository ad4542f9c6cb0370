//! The prefilter: every occurrence of every record's key literal, mapped back to the records.
//!
//! Contract: zero false negatives. If a record's regex matches a text, the record's key literal
//! (a required literal of the regex, see [`super::literals`]) occurs in the text, so a scan of the
//! text reports the literal, and the literal maps back to every record keyed on it. It may report
//! records that then fail to confirm; it never leaves out one that would. Records without a usable
//! literal are not keyed: the matcher confirms them on every event.
//!
//! Scans report every occurrence (overlapping), because one literal can sit inside another
//! (`not found` inside `table not found`): a leftmost-only scan would hide the inner one. Keys of
//! 8 bytes or more are found by the strided q-gram [`Skim`]; shorter ones by aho-corasick.

use aho_corasick::{AhoCorasick, MatchKind};

use super::skim::Skim;

/// A literal occurrence: where it ends in the scanned text, and which literal it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub end: usize,
    pub literal: u32,
}

struct Short {
    /// Leftmost-first: from any position, the next position where some short literal starts
    /// (Teddy, aho-corasick's SIMD searcher, for a few dozen literals).
    starts: AhoCorasick,
    /// First byte → the short literals (indices into the skim's `unindexed`) that begin with it.
    by_first: Vec<Vec<u32>>,
}

pub struct Prefilter {
    /// Literals too short for the skim, found by aho-corasick.
    short: Option<Short>,
    pub skim: Skim,
    /// literal id → the records keyed on it.
    owners: Vec<Vec<u32>>,
    literals: Vec<Vec<u8>>,
}

impl Prefilter {
    /// `keys[i]` is record i's key literal, `None` for records without one.
    pub fn new(keys: &[Option<&[u8]>], rarity: &super::skim::Rarity) -> Prefilter {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Vec<u32>> = Vec::new();
        let mut index: rustc_hash::FxHashMap<&[u8], u32> = rustc_hash::FxHashMap::default();
        for (rec, key) in keys.iter().enumerate() {
            let Some(key) = key else { continue };
            let id = *index.entry(key).or_insert_with(|| {
                literals.push(key.to_vec());
                owners.push(Vec::new());
                (literals.len() - 1) as u32
            });
            owners[id as usize].push(rec as u32);
        }
        // A JSON line escapes `"` and `\` (and control characters) inside strings: the escaped
        // form of such a literal is a key too, so raw JSON lines need no decoding to be skimmed.
        let n = literals.len();
        for i in 0..n {
            let lit = &literals[i];
            if super::literals::json_escapes(lit) {
                let s = String::from_utf8_lossy(lit);
                let esc = serde_json::to_string(&s).expect("a string serialises");
                let esc = esc.as_bytes()[1..esc.len() - 1].to_vec();
                if esc != *lit {
                    literals.push(esc);
                    owners.push(owners[i].clone());
                }
            }
        }
        let skim = Skim::new(&literals, rarity);
        // Literals too short for the skim go to aho-corasick, which scans for them alone.
        let short: Vec<&[u8]> = skim.unindexed.iter().map(|&i| literals[i as usize].as_slice()).collect();
        let short = (!short.is_empty()).then(|| {
            let mut by_first = vec![Vec::new(); 256];
            for (k, lit) in short.iter().enumerate() {
                by_first[usize::from(lit[0])].push(k as u32);
            }
            let starts = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostFirst)
                .build(&short)
                .expect("literals are non-empty");
            Short { starts, by_first }
        });
        Prefilter { short, skim, owners, literals }
    }

    /// Append every literal occurrence in `hay` to `hits`, in order of their end; `found` is a
    /// buffer the caller keeps for reuse.
    pub fn scan_with(&self, hay: &[u8], hits: &mut Vec<Hit>, found: &mut Vec<(usize, u32)>) {
        self.scan_marking(hay, hits, found, None);
    }

    /// [`Prefilter::scan_with`], and the positions of the marks' bytes (see [`Skim::find_marking`]).
    pub fn scan_marking(
        &self,
        hay: &[u8],
        hits: &mut Vec<Hit>,
        found: &mut Vec<(usize, u32)>,
        marks: Option<&mut super::skim::Marks>,
    ) {
        found.clear();
        match marks {
            Some(m) => self.skim.find_marking(hay, found, m),
            None => self.skim.find(hay, found),
        }
        if let Some(short) = &self.short {
            // The leftmost match from `at` starts where the first occurrence of any short literal
            // at or after `at` starts: each such position is met once, and every literal that
            // begins there is compared in place. This visits each occurrence's start and nothing
            // else, where searching the rest of each line with hits for all occurrences
            // (overlapping, an automaton step per byte) cost a third of the time.
            let mut at = 0;
            while let Some(m) = short.starts.find(aho_corasick::Input::new(hay).range(at..)) {
                let from = m.start();
                for &k in &short.by_first[usize::from(hay[from])] {
                    let id = self.skim.unindexed[k as usize];
                    let lit = &self.literals[id as usize];
                    if hay[from..].starts_with(lit) {
                        found.push((from + lit.len(), id));
                    }
                }
                at = from + 1;
            }
        }
        found.sort_unstable();
        hits.extend(found.iter().map(|&(end, literal)| Hit { end, literal }));
    }

    pub fn owners(&self, literal: u32) -> &[u32] {
        &self.owners[literal as usize]
    }

    pub fn literal(&self, literal: u32) -> &[u8] {
        &self.literals[literal as usize]
    }

    pub fn len(&self) -> usize {
        self.literals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.literals.is_empty()
    }

    pub fn memory_usage(&self) -> usize {
        self.short.as_ref().map_or(0, |a| a.starts.memory_usage()) + self.skim.memory_usage()
    }

    /// Literals found by aho-corasick rather than the skim (too short to index).
    pub fn unindexed(&self) -> usize {
        self.skim.unindexed.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every occurrence of every literal, found naively.
    fn naive(lits: &[&[u8]], hay: &[u8]) -> Vec<(usize, u32)> {
        let mut out = Vec::new();
        for (id, l) in lits.iter().enumerate() {
            for end in l.len()..=hay.len() {
                if &hay[end - l.len()..end] == *l {
                    out.push((end, id as u32));
                }
            }
        }
        out.sort_unstable();
        out
    }

    proptest! {
        /// Short literals (aho-corasick, searched from each line's leftmost hit) and long ones
        /// (the skim), overlapping one another and repeated on a line, are all reported.
        #[test]
        fn reports_every_occurrence(text in "[ab: \n]{0,80}") {
            let lits: [&[u8]; 5] = [b"ab", b"b a", b"a: b", b"ab: ab: ab", b"b: ab: a"];
            let keys: Vec<Option<&[u8]>> = lits.iter().map(|l| Some(*l)).collect();
            let p = Prefilter::new(&keys, super::super::skim::Rarity::shared());
            let (mut hits, mut found) = (Vec::new(), Vec::new());
            p.scan_with(text.as_bytes(), &mut hits, &mut found);
            let got: Vec<(usize, u32)> = hits.iter().map(|h| (h.end, h.literal)).collect();
            prop_assert_eq!(got, naive(&lits, text.as_bytes()), "{:?}", text);
        }
    }
}
