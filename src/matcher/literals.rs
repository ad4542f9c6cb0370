//! Required literals: byte strings that every match of a pattern must contain.
//!
//! Contract: each literal returned by [`required`] occurs in every string the pattern matches.
//! That is what makes the prefilter free of false negatives. Only the top-level concatenation is
//! read: literal runs there are required; anything under an alternation, a repetition that may
//! be skipped, or a look-around breaks a run. Runs are split at `\n`, so that no literal spans a
//! line break: the prefilter scans physical lines, whose prefixes (kubectl, CRI) sit between the
//! lines of a multi-line message.

use regex_syntax::hir::{Hir, HirKind};

/// Literal runs of the top-level concatenation, split at line breaks, empty pieces dropped.
pub fn required(hir: &Hir) -> Vec<Vec<u8>> {
    let mut runs: Vec<Vec<u8>> = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    // A capture group around a concatenation (the absent-tail form's link, `(<literal> (.+?))`)
    // is that concatenation, in place: its literal runs are as required as the top level's.
    fn walk(hir: &Hir, cur: &mut Vec<u8>, runs: &mut Vec<Vec<u8>>) {
        let items: &[Hir] = match hir.kind() {
            HirKind::Concat(items) => items,
            _ => std::slice::from_ref(hir),
        };
        for item in items {
            if let HirKind::Capture(c) = item.kind()
                && matches!(c.sub.kind(), HirKind::Concat(_))
            {
                walk(&c.sub, cur, runs);
                continue;
            }
            match literal_of(item) {
                Some(bytes) => cur.extend_from_slice(bytes),
                None => {
                    if !cur.is_empty() {
                        runs.push(std::mem::take(cur));
                    }
                }
            }
        }
    }
    walk(hir, &mut cur, &mut runs);
    if !cur.is_empty() {
        runs.push(cur);
    }
    let mut out = Vec::new();
    for run in runs {
        let pieces = run.split(|&b| b == b'\n').count();
        for (k, mut piece) in run.split(|&b| b == b'\n').enumerate() {
            // The blanks next to a line break are not required of the raw line: a paste pads a
            // line's end, or turns its indent into no-break spaces (framing reads both as the
            // bare log). What is left of the piece still is.
            if k > 0 {
                piece = trim_blanks_start(piece);
            }
            if k + 1 < pieces {
                piece = trim_blanks_end(piece);
            }
            if !piece.is_empty() {
                out.push(piece.to_vec());
            }
        }
    }
    out
}

/// `b` without the spaces and tabs it starts with (not `trim_ascii_start`: a line break or a
/// form feed is not a blank).
pub fn trim_blanks_start(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
    &b[n..]
}

/// `b` without the spaces and tabs it ends with.
pub fn trim_blanks_end(b: &[u8]) -> &[u8] {
    let n = b.iter().rev().take_while(|&&c| c == b' ' || c == b'\t').count();
    &b[..b.len() - n]
}

/// The literal of the first capture group of the top-level concatenation, if that group holds
/// nothing but a literal.
pub fn group_literal(hir: &Hir) -> Option<&[u8]> {
    let items: &[Hir] = match hir.kind() {
        HirKind::Concat(items) => items,
        _ => std::slice::from_ref(hir),
    };
    let group = items.iter().find(|i| matches!(i.kind(), HirKind::Capture(_)))?;
    literal_of(group)
}

fn literal_of(h: &Hir) -> Option<&[u8]> {
    match h.kind() {
        HirKind::Literal(lit) => Some(&lit.0),
        // A capture group around a plain literal is still that literal.
        HirKind::Capture(c) => literal_of(&c.sub),
        _ => None,
    }
}

/// Does `lit` hold a byte that JSON escapes inside strings (`"`, `\\`, control characters)? Such a
/// literal looks different in a raw JSON line than in the decoded text.
pub fn json_escapes(lit: &[u8]) -> bool {
    lit.iter().any(|&b| b == b'"' || b == b'\\' || b < 0x20)
}

/// Pick the literal the prefilter keys the record on. Literals of 8 bytes or more are preferred
/// (the skim indexes them; shorter ones need aho-corasick); among those, the rarest in real
/// logs (`rarity`: lower is rarer), so that common words (`connector`, ` not found`) do not send
/// every line that mentions them to confirmation; then the longest.
pub fn best(lits: &[Vec<u8>], rarity: impl Fn(&[u8]) -> u32) -> Option<&[u8]> {
    lits.iter().min_by_key(|l| (l.len() < 8, rarity(l), std::cmp::Reverse(l.len()))).map(|l| l.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(p: &str) -> Vec<String> {
        let hir = regex_syntax::ParserBuilder::new().build().parse(p).unwrap();
        required(&hir).into_iter().map(|b| String::from_utf8(b).unwrap()).collect()
    }

    #[test]
    fn table() {
        let cases: &[(&str, &[&str])] = &[
            ("job (.+?) failed", &["job ", " failed"]),
            (r"a\.b \(c\)", &["a.b (c)"]),
            ("(?m)Storage error(?:: (.+?)|[ \\t]*$)", &["Storage error"]),
            ("(.+?)", &[]),
            ("Not supported: (.+?)\\nHINT: (.+?)", &["Not supported: ", "HINT: "]),
            ("x|y", &[]),
            ("(abc)def", &["abcdef"]),
            // Blanks next to a line break: a paste pads line ends and turns indents into no-break
            // spaces, so they are not required of the raw line.
            ("(.+?) other objects\\. \nDETAIL: (.+?)", &[" other objects.", "DETAIL: "]),
            ("task:\n (.+?)", &["task:"]),
            ("a \t\n\t  DETAIL: x\n  y ", &["a", "DETAIL: x", "y "]),
        ];
        for (p, want) in cases {
            assert_eq!(req(p), *want, "{p}");
        }
    }
}
