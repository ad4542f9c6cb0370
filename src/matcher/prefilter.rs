//! The prefilter: one aho-corasick automaton over every record's key literal.
//!
//! Contract: zero false negatives. If a record's regex matches a text, the record's key literal
//! (a required literal of the regex, see [`super::literals`]) occurs in the text, so a scan of the
//! text reports the literal, and the literal maps back to every record keyed on it. It may report
//! records that then fail to confirm; it never leaves out one that would. Records without a usable
//! literal are not in the automaton: the matcher confirms them on every event.
//!
//! Scans are overlapping (every occurrence of every literal), because one literal can sit inside
//! another (`not found` inside `table not found`): a leftmost-only scan would hide the inner one.

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// A literal occurrence: where it ends in the scanned text, and which literal it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub end: usize,
    pub literal: u32,
}

pub struct Prefilter {
    ac: Option<AhoCorasick>,
    /// literal id → the records keyed on it.
    owners: Vec<Vec<u32>>,
    literals: Vec<Vec<u8>>,
}

impl Prefilter {
    /// `keys[i]` is record i's key literal, `None` for records without one.
    pub fn new(keys: &[Option<&[u8]>]) -> Prefilter {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut owners: Vec<Vec<u32>> = Vec::new();
        let mut index: std::collections::HashMap<&[u8], u32> = std::collections::HashMap::new();
        for (rec, key) in keys.iter().enumerate() {
            let Some(key) = key else { continue };
            let id = *index.entry(key).or_insert_with(|| {
                literals.push(key.to_vec());
                owners.push(Vec::new());
                (literals.len() - 1) as u32
            });
            owners[id as usize].push(rec as u32);
        }
        let ac = if literals.is_empty() {
            None
        } else {
            Some(
                AhoCorasick::builder()
                    .match_kind(MatchKind::Standard)
                    // A DFA is the fastest scan; at the catalog's size it stays within tens of MiB.
                    .kind(Some(AhoCorasickKind::DFA))
                    .build(&literals)
                    .or_else(|_| AhoCorasick::builder().match_kind(MatchKind::Standard).build(&literals))
                    .expect("literals were checked to be non-empty"),
            )
        };
        Prefilter { ac, owners, literals }
    }

    /// Append every literal occurrence in `hay` to `hits`, in order of their end.
    pub fn scan(&self, hay: &[u8], hits: &mut Vec<Hit>) {
        if let Some(ac) = &self.ac {
            for m in ac.find_overlapping_iter(hay) {
                hits.push(Hit { end: m.end(), literal: m.pattern().as_u32() });
            }
        }
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
        self.ac.as_ref().map_or(0, |a| a.memory_usage())
    }
}
