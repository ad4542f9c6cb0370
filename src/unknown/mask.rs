//! Tokens and masking: one line of text → the masked tokens a template is made of.
//!
//! Owns the split of a message into tokens and the decision, per token, of which part is
//! variable. A token is a run of non-blank bytes, except that a quoted string (`"…"`, `'…'`,
//! `` `…` ``) and a brace group (`{ … }`, how Rust's `Debug` prints a struct) are one token even
//! with blanks inside. A variable part is written as `<*>`:
//!
//! - a quoted string or a brace group, whole;
//! - a piece of a token with a digit in it (pieces are split at `:`, `=`, `|`, `#`, `@`, `,`,
//!   `;`, brackets): numbers, hex, UUIDs, IPs, epochs, durations (`10ms`), sizes (`4MiB`),
//!   timestamps, ids (`blk_-42`); `host:port` gives `host:<*>` or `<*>:<*>`;
//! - paths (`/var/lib/x`, `s3://bucket/key`, `a/b/c`) and runs of hex letters (`deadbeef`);
//! - in `key=value`, the value by the same rules (the key stays: it names what varies).
//!
//! Brackets, parentheses and trailing punctuation around a variable stay constant (`(<*>)`,
//! `<*>,`), so a template keeps the shape of its lines and a draft's regex can be made from it.
//! Contract: the same bytes always give the same tokens; nothing allocates once the output
//! buffers have grown; at most [`MAX_TOKENS`] tokens of a line are kept.

/// The mark of a variable part, as drain3 and Loki's patterns write it.
pub const VAR: &[u8] = b"<*>";

/// Tokens kept of one line. Error messages run to 30-40 tokens; a line longer than this is a
/// dump (a plan, a struct) whose tail says nothing more about its kind, and a cap bounds a
/// template's size and the cost of comparing one.
pub const MAX_TOKENS: usize = 64;

/// A brace group or quoted string longer than this is not looked for further: the token ends
/// at the next blank instead (an unbalanced brace must not swallow the whole line).
const MAX_GROUP: usize = 4096;

/// Masked tokens of one line: token `i` is `buf[spans[i].0..spans[i].1]`.
#[derive(Debug, Default, Clone)]
pub struct Tokens {
    pub buf: Vec<u8>,
    pub spans: Vec<(u32, u32)>,
}

impl Tokens {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn get(&self, i: usize) -> &[u8] {
        let (s, e) = self.spans[i];
        &self.buf[s as usize..e as usize]
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.spans.clear();
    }

    pub fn push(&mut self, tok: &[u8]) {
        let s = self.buf.len() as u32;
        self.buf.extend_from_slice(tok);
        self.spans.push((s, self.buf.len() as u32));
    }

    /// The tokens joined by single spaces.
    pub fn render(&self, out: &mut String) {
        out.clear();
        for i in 0..self.len() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&String::from_utf8_lossy(self.get(i)));
        }
    }
}

fn blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Bytes stripped off a token's front before its core is judged.
fn lead(b: u8) -> bool {
    matches!(b, b'(' | b'[' | b'<' | b'{')
}

/// Bytes stripped off a token's end before its core is judged.
fn trail(b: u8) -> bool {
    matches!(b, b')' | b']' | b'>' | b'}' | b',' | b';' | b'.' | b':' | b'!' | b'?')
}

fn quote(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'`')
}

/// Where the token starting at `s` ends: the next blank, past quoted strings and brace groups.
fn token_end(line: &[u8], s: usize) -> usize {
    let mut i = s;
    while i < line.len() && !blank(line[i]) {
        let b = line[i];
        // A quote opens a string at the token's start or after `=`, `(`, `[`, `:`; an
        // apostrophe inside a word (`can't`) does not.
        let opens = quote(b) && (i == s || matches!(line[i - 1], b'=' | b'(' | b'[' | b':'));
        if opens && let Some(close) = memchr::memchr(b, &line[i + 1..line.len().min(i + 1 + MAX_GROUP)]) {
            i += close + 2;
            continue;
        }
        if b == b'{'
            && let Some(close) = group_end(line, i)
        {
            i = close + 1;
            continue;
        }
        i += 1;
    }
    i
}

/// The index of the `}` closing the brace group that opens at `open`, if within [`MAX_GROUP`].
fn group_end(line: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let end = line.len().min(open + MAX_GROUP);
    let mut i = open;
    while i < end {
        match line[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b'"' => {
                // A string inside a struct may hold braces.
                i += memchr::memchr(b'"', &line[i + 1..end])? + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Is this core (a token without its surrounding punctuation) variable as a whole?
fn variable(core: &[u8]) -> bool {
    if core.is_empty() {
        return false;
    }
    if quote(core[0]) || core.contains(&b'{') {
        return true;
    }
    if core[0] == b'/' || core[0] == b'\\' || core.windows(3).any(|w| w == b"://") {
        return core.len() > 1;
    }
    core.iter().filter(|&&b| b == b'/' || b == b'\\').count() >= 2
}

/// Is this piece of a token (between delimiters) a variable: a digit in it, or a long run of
/// hex letters (`deadbeef`; words made only of a-f are short)?
fn variable_piece(p: &[u8]) -> bool {
    p.iter().any(u8::is_ascii_digit) || (p.len() >= 8 && p.iter().all(u8::is_ascii_hexdigit))
}

/// Bytes that separate the pieces of a token (`onExtend:1514038530000`, `a|1|2`, `x##12`): each
/// piece is judged on its own, so a word glued to a number keeps the word.
fn delimiter(b: u8) -> bool {
    matches!(b, b':' | b'=' | b'|' | b'#' | b'@' | b',' | b'(' | b')' | b'[' | b']' | b';')
}

/// Mask a token's pieces: those with a digit (or long hex) become `<*>`, adjacent ones merged.
fn mask_pieces(core: &[u8], out: &mut Vec<u8>) {
    let mut s = 0;
    let mut last_var = false;
    while s <= core.len() {
        let e = core[s..].iter().position(|&b| delimiter(b)).map_or(core.len(), |i| s + i);
        let piece = &core[s..e];
        if variable_piece(piece) {
            if !last_var {
                out.extend_from_slice(VAR);
            }
            last_var = true;
        } else {
            out.extend_from_slice(piece);
            last_var = false;
        }
        if e < core.len() {
            out.push(core[e]);
            last_var = false;
        }
        s = e + 1;
    }
}

fn is_key(k: &[u8]) -> bool {
    !k.is_empty() && k.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Mask one raw token into `out`.
fn mask_token(tok: &[u8], out: &mut Vec<u8>) {
    let mut s = 0;
    while s < tok.len() && lead(tok[s]) && !(tok[s] == b'{' && group_end(tok, s) == Some(tok.len() - 1)) {
        s += 1;
    }
    let mut e = tok.len();
    while e > s && trail(tok[e - 1]) {
        // A brace group keeps its closing brace: it is part of the variable.
        if tok[e - 1] == b'}' && tok[s..e].contains(&b'{') {
            break;
        }
        e -= 1;
    }
    let core = &tok[s..e];
    out.extend_from_slice(&tok[..s]);
    if let Some(eq) = memchr::memchr(b'=', core)
        && eq > 0
        && is_key(&core[..eq])
    {
        // `key=value`: the key stays; the value is judged as a token of its own.
        out.extend_from_slice(&core[..=eq]);
        let v = &core[eq + 1..];
        if variable(v) {
            out.extend_from_slice(VAR);
        } else {
            mask_pieces(v, out);
        }
    } else if variable(core) {
        out.extend_from_slice(VAR);
    } else {
        mask_pieces(core, out);
    }
    out.extend_from_slice(&tok[e..]);
}

/// The masked tokens of `line`'s first line. Consecutive variable tokens are kept as one: a
/// variable's own blanks (`took 10 ms`, `[a, b, c]`, a `Debug` struct printed without braces)
/// must not make two lines of one kind differ in length.
pub fn tokenize(line: &[u8], out: &mut Tokens) {
    out.clear();
    let line = &line[..memchr::memchr(b'\n', line).unwrap_or(line.len())];
    let mut i = 0;
    while i < line.len() && out.len() < MAX_TOKENS {
        while i < line.len() && blank(line[i]) {
            i += 1;
        }
        if i == line.len() {
            break;
        }
        let e = token_end(line, i);
        let start = out.buf.len();
        mask_token(&line[i..e], &mut out.buf);
        let tok = &out.buf[start..];
        let is_var = tok == VAR;
        if is_var && out.spans.last().is_some_and(|&(a, b)| &out.buf[a as usize..b as usize] == VAR) {
            out.buf.truncate(start);
        } else {
            out.spans.push((start as u32, out.buf.len() as u32));
        }
        i = e;
    }
}

#[cfg(test)]
mod tests {
    use super::{Tokens, tokenize};

    fn masked(line: &str) -> String {
        let mut t = Tokens::default();
        tokenize(line.as_bytes(), &mut t);
        let mut s = String::new();
        t.render(&mut s);
        s
    }

    #[test]
    fn masking_table() {
        let cases: &[(&str, &str)] = &[
            // numbers, hex, epochs, durations, sizes
            ("epoch 7234893452 is late", "epoch <*> is late"),
            ("took 1.5s", "took <*>"),
            ("took 10ms to commit", "took <*> to commit"),
            ("buffer of 4MiB is full", "buffer of <*> is full"),
            ("at 0x7fed806eb5d", "at <*>"),
            ("object deadbeefcafe missing", "object <*> missing"),
            // UUIDs, host:port, IPs
            ("session 9f1c2a3e-1b2c-4d5e-8f90-123456789abc closed", "session <*> closed"),
            ("connect to compute-0.svc:5688 failed", "connect to <*>:<*> failed"),
            ("Invalid user admin from 173.234.31.186", "Invalid user admin from <*>"),
            // paths
            ("cannot open /var/lib/risingwave/x.sst", "cannot open <*>"),
            ("read s3://bucket/key failed", "read <*> failed"),
            ("object hummock/sst/a missing", "object <*> missing"),
            ("C:\\Windows\\winsxs\\x.dll loaded", "<*> loaded"),
            // quoted strings, with blanks inside
            ("table \"my table\" not found", "table <*> not found"),
            ("column 'a b' is ambiguous", "column <*> is ambiguous"),
            ("can't reach it", "can't reach it"),
            // Debug structs: the name stays, the braces are the variable
            ("got Status { code: Internal, message: \"x y\" } from peer", "got Status <*> from peer"),
            ("got Foo{a:1} now", "got <*> now"),
            ("node compute-0:5688 down", "node <*>:<*> down"),
            // key=value: the key stays
            ("acquire lock=233570404, flags=0x1, tag=\"View Lock\", x", "acquire lock=<*>, flags=<*>, tag=<*>, x"),
            ("logname= uid=0 user=root", "logname= uid=<*> user=root"),
            // a word glued to a number keeps the word
            ("onExtend:1514038530000 14", "onExtend:<*> <*>"),
            ("steps= 1514018661124##0##3428", "steps= <*>##<*>##<*>"),
            ("read 1|2|3", "read <*>|<*>|<*>"),
            ("epoch Epoch(1234) late", "epoch Epoch(<*>) late"),
            // punctuation around a variable stays
            ("failed (42)", "failed (<*>)"),
            ("ids [1, 2, 3] dropped", "ids [<*>, <*>, <*>] dropped"),
            ("job 42: cancelled", "job <*>: cancelled"),
            // consecutive variables are one
            ("took 10 ms", "took <*> ms"),
            ("between 1 2 3 and 4", "between <*> and <*>"),
            // only the first line
            ("panicked here\n   0: backtrace 1", "panicked here"),
            ("", ""),
        ];
        for (line, want) in cases {
            assert_eq!(masked(line), *want, "line {line:?}");
        }
    }

    #[test]
    fn token_cap() {
        let long: String = (0..500).map(|i| format!("w{} x ", i % 2)).collect();
        let mut t = Tokens::default();
        tokenize(long.as_bytes(), &mut t);
        assert_eq!(t.len(), super::MAX_TOKENS);
    }

    #[test]
    fn unbalanced_brace_ends_at_the_blank() {
        assert_eq!(masked("open { never closed here"), "open { never closed here");
    }
}
