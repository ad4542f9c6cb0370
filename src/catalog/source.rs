//! A record's `sourceCode`: the names of its positional placeholders, and the lines around
//! `lineNumber` that `explain` shows.
//!
//! Owns reading the format call a record's message comes from. The call's string literal is
//! found in the code near `lineNumber` (the literal, unescaped, equals `errorMessage`); its
//! arguments follow it. A positional placeholder (`{}`, `{:?}`, `{0}`) is named after the argument
//! it prints when that argument is a plain path (`job.job_id` → `job_id`, `&name` → `name`,
//! `e.as_report()` → `e`, `self.table_id()` → `table_id`); any other argument (a literal, an
//! arithmetic or macro expression, a closure), a call whose literal is not found (thiserror's
//! `#[error("... {0}")]` names a field, not an argument), or a spec that takes extra arguments
//! (`{:1$}`, `{:.*}`) leaves it unnamed, and its capture keeps its `_N` name.
//!
//! Contract: nothing here fails; code that does not parse gives no names. Run once per record
//! at load, never on the hot path.

use super::template::Part;

/// Lines of code kept on each side of `lineNumber` for `explain` (as a compiler diagnostic shows
/// a few lines of context): enough to see the call, small enough that the 43,500-record catalog
/// keeps a few MB of code, not the 60 MB the full `sourceCode` fields hold.
pub const SNIPPET_CONTEXT: u64 = 3;

/// Lines after `lineNumber` where the call's literal may start (a macro call's first line is
/// `lineNumber`; rustfmt puts a long literal on a line of its own after fields and the macro's
/// name). A literal further away belongs to another call.
const LITERAL_WINDOW_AFTER: u64 = 8;
/// Lines before `lineNumber` looked at (the catalog's `lineNumber` is sometimes the literal's
/// line, sometimes the call's first line).
const LITERAL_WINDOW_BEFORE: u64 = 3;

/// Method calls that convert a value for printing without renaming it: `e.as_report()` is `e`.
const CONVERSIONS: &[&str] = &[
    "as_report",
    "to_report_string",
    "to_string",
    "to_owned",
    "clone",
    "as_str",
    "as_ref",
    "as_deref",
    "display",
    "unwrap",
    "into",
    "borrow",
    "deref",
    "iter",
    "to_vec",
    "to_lowercase",
    "to_uppercase",
];

/// Names too vague to be worth a capture name: kept as `_N`.
const VAGUE: &[&str] = &["self", "Self", "crate", "super", "it", "v", "x", "s", "_"];

/// The lines `[first, last]` of `code` (whose first line is `start`) around `line`, with the
/// number of the first line kept.
pub fn snippet(code: &str, start: u64, line: u64) -> Option<(u64, Box<str>)> {
    if line < start {
        return None;
    }
    let first = line.saturating_sub(SNIPPET_CONTEXT).max(start);
    let want = (line + SNIPPET_CONTEXT - first + 1) as usize;
    // Only the lines wanted are visited: the rest of a record's code is most of its bytes.
    let kept: Vec<&str> = code.lines().skip((first - start) as usize).take(want).collect();
    if kept.is_empty() || first + kept.len() as u64 <= line {
        return None;
    }
    Some((first, kept.join("\n").into_boxed_str()))
}

/// A name for each placeholder of `parts` that the template leaves positional, read from the
/// format call in `code` (first line `start`) near `line`: `Some(name)` where the argument is
/// readable, `None` where it is not. `None` as a whole when the template has no positional
/// placeholder or the call's literal is not found.
pub fn argument_names(
    template: &str,
    parts: &[Part],
    code: &str,
    start: u64,
    line: u64,
) -> Option<Vec<Option<String>>> {
    let specs = super::template::placeholder_specs(parts);
    let positional = |s: &str| {
        let n = s.split(':').next().unwrap_or("").trim();
        n.is_empty() || n.bytes().all(|b| b.is_ascii_digit())
    };
    if !specs.iter().any(|s| positional(s)) || specs.iter().any(|s| s.contains('$') || s.contains(".*")) {
        return None;
    }
    let after = find_literal(template, code, start, line)?;
    let args = call_arguments(&code[after..])?;
    let positional_args: Vec<&str> = args.iter().copied().filter(|a| named_argument(a).is_none()).collect();
    let mut next = 0usize;
    let mut out = Vec::with_capacity(specs.len());
    let mut taken: Vec<String> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Ph { name, .. } if !name.starts_with('_') => Some(name.clone()),
            _ => None,
        })
        .collect();
    for s in &specs {
        let n = s.split(':').next().unwrap_or("").trim();
        if !positional(s) {
            out.push(None);
            continue;
        }
        let idx = if n.is_empty() {
            next += 1;
            next - 1
        } else {
            n.parse().unwrap_or(usize::MAX)
        };
        let name = positional_args.get(idx).and_then(|a| name_of(a)).filter(|nm| !taken.contains(nm));
        if let Some(nm) = &name {
            taken.push(nm.clone());
        }
        out.push(name);
    }
    out.iter().any(Option::is_some).then_some(out)
}

/// Byte offset just past the string literal in `code` whose unescaped text is `template`,
/// the one starting nearest `line` within the window.
fn find_literal(template: &str, code: &str, start: u64, line: u64) -> Option<usize> {
    let b = code.as_bytes();
    let lo = line.saturating_sub(LITERAL_WINDOW_BEFORE);
    let hi = line + LITERAL_WINDOW_AFTER;
    let mut best: Option<(u64, usize)> = None;
    // Start at the window's first line: the code before it (most of it) cannot hold the literal.
    // A string literal that began before the window and runs into it is misread; it is not a
    // literal the window may name anyway.
    let skip = lo.saturating_sub(start) as usize;
    let mut i = if skip == 0 { 0 } else { memchr::memchr_iter(b'\n', b).nth(skip - 1).map_or(b.len(), |p| p + 1) };
    let mut cur_line = start + skip as u64;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                cur_line += 1;
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'\'' => {
                // A char literal (`'"'`) or a lifetime: skip a char literal only.
                if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') {
                    i += 4;
                } else {
                    i += 1;
                }
            }
            b'"' | b'r' => {
                let lit_line = cur_line;
                let Some((text, end)) = string_literal(code, i) else {
                    i += 1;
                    continue;
                };
                cur_line += code[i..end].bytes().filter(|&c| c == b'\n').count() as u64;
                if (lo..=hi).contains(&lit_line) && text == template {
                    let d = lit_line.abs_diff(line);
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, end));
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
        if cur_line > hi {
            break;
        }
    }
    best.map(|(_, e)| e)
}

/// The string literal starting at `i` (`"..."`, `r"..."`, `r#"..."#`): its text unescaped and
/// the offset past it. `None` where `i` does not start one.
fn string_literal(code: &str, i: usize) -> Option<(String, usize)> {
    let b = code.as_bytes();
    if b[i] == b'r' {
        // A raw string, unless `r` ends an identifier (`for"` does not occur; `bar"` cannot).
        if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
            return None;
        }
        let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
        let open = i + 1 + hashes;
        if b.get(open) != Some(&b'"') {
            return None;
        }
        let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
        let end = code[open + 1..].find(&close)? + open + 1;
        return Some((code[open + 1..end].to_owned(), end + close.len()));
    }
    let mut out = String::new();
    let mut chars = code[i + 1..].char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => return Some((out, i + 1 + k + 1)),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\n' => {
                    // A line continuation: the line break and the next line's indentation go.
                    let rest = &code[i + 1 + k + 2..];
                    let skip = rest.len() - rest.trim_start().len();
                    for _ in 0..rest[..skip].chars().count() {
                        chars.next();
                    }
                }
                'u' => {
                    let rest = &code[i + 1 + k + 2..];
                    let close = rest.find('}')?;
                    let ch = u32::from_str_radix(rest.get(1..close)?, 16).ok().and_then(char::from_u32)?;
                    out.push(ch);
                    for _ in 0..rest[..=close].chars().count() {
                        chars.next();
                    }
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

/// The arguments after a format call's literal (`, a, b.c)`): each one's text, up to the bracket
/// that closes the call. `None` when the code does not read as a call's rest.
fn call_arguments(rest: &str) -> Option<Vec<&str>> {
    let b = rest.as_bytes();
    let mut args = Vec::new();
    let mut depth = 0i32;
    let mut arg_start: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                if depth == 0 {
                    if let Some(s) = arg_start {
                        args.push(rest[s..i].trim());
                    }
                    return Some(args.into_iter().filter(|a| !a.is_empty()).collect());
                }
                depth -= 1;
            }
            b',' if depth == 0 => {
                if let Some(s) = arg_start {
                    args.push(rest[s..i].trim());
                }
                arg_start = Some(i + 1);
            }
            b'"' | b'r' if arg_start.is_some() => {
                if let Some((_, end)) = string_literal(rest, i) {
                    i = end;
                    continue;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            c if arg_start.is_none() && !c.is_ascii_whitespace() => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// `name = expr` (a named format argument): its name.
fn named_argument(arg: &str) -> Option<&str> {
    let (name, rest) = arg.split_once('=')?;
    let name = name.trim();
    (!rest.starts_with('=') && is_ident(name)).then_some(name)
}

/// The name an argument gives its value, if it is a plain path.
fn name_of(arg: &str) -> Option<String> {
    let mut a = arg.trim().trim_end_matches('?');
    loop {
        let t = a.trim_start_matches(['&', '*']).trim_start();
        let t = t.strip_prefix("mut ").unwrap_or(t);
        if t.len() == a.len() {
            break;
        }
        a = t;
    }
    let mut segments: Vec<&str> = Vec::new();
    for seg in a.split(['.']) {
        let seg = seg.trim();
        let (name, call) = match seg.strip_suffix("()") {
            Some(n) => (n, true),
            None => (seg, false),
        };
        // `Type::method()`-style paths name the last item.
        let name = name.rsplit("::").next().unwrap_or(name);
        if !is_ident(name) && !name.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        if call && CONVERSIONS.contains(&name) {
            continue;
        }
        segments.push(name);
    }
    // A tuple field (`pair.0`) names nothing; the name before it does.
    let name = segments.iter().rev().find(|s| !s.bytes().all(|c| c.is_ascii_digit()))?;
    let name = name.strip_prefix("r#").unwrap_or(name);
    (!VAGUE.contains(&name)).then(|| name.to_owned())
}

fn is_ident(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::template::parse;

    fn names(template: &str, code: &str, line: u64) -> Option<Vec<Option<String>>> {
        argument_names(template, &parse(template), code, 10, line)
    }

    #[test]
    fn positional_placeholders_are_named_from_the_call() {
        let n = |v: &[Option<&str>]| Some(v.iter().map(|x| x.map(str::to_owned)).collect::<Vec<_>>());
        // (template, code starting at line 10, lineNumber, names)
        let cases: &[(&str, &str, u64, Option<Vec<Option<String>>>)] = &[
            (
                "no such existent job {}",
                "fn f() {\n    bail!(\"no such existent job {}\", job.job_id);\n}",
                11,
                n(&[Some("job_id")]),
            ),
            (
                "failed to drop {} in {:?}: {}",
                "    return Err(anyhow!(\n        \"failed to drop {} in {:?}: {}\",\n        &name,\n        self.database_id(),\n        e.as_report()\n    ));",
                10,
                n(&[Some("name"), Some("database_id"), Some("e")]),
            ),
            // A literal and an arithmetic argument cannot be read; `{0}` indexes.
            ("bad {} and {} then {0}", "x!(\"bad {} and {} then {0}\", 42, a + b)", 10, None),
            ("got {} want {n}", "warn!(error = %e, \"got {} want {n}\", left.0, n = 3)", 10, n(&[Some("left"), None])),
            // thiserror: the literal is found but no argument follows it.
            (
                "Storage error: {0}",
                "    #[error(\"Storage error: {0}\")]\n    Storage(#[source] BoxedError),",
                10,
                None,
            ),
            // The literal is not in the code near lineNumber.
            ("far away {}", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nbail!(\"far away {}\", x_y)", 10, None),
            // Escapes and line continuations are unescaped before comparing.
            (
                "quoted \"{}\" over lines",
                "bail!(\"quoted \\\"{}\\\" \\\n        over lines\", table_name)",
                10,
                n(&[Some("table_name")]),
            ),
            // No positional placeholder: nothing to name.
            ("job {job_id} failed", "bail!(\"job {job_id} failed\")", 10, None),
            // Two arguments with the same name: the second keeps `_N`.
            ("{} vs {}", "bail!(\"{} vs {}\", a.id, b.id)", 10, n(&[Some("id"), None])),
        ];
        for (t, code, line, want) in cases {
            assert_eq!(&names(t, code, *line), want, "{t}");
        }
    }

    #[test]
    fn snippet_keeps_the_lines_around_line_number() {
        let code = (10..30).map(|n| format!("line {n}")).collect::<Vec<_>>().join("\n");
        assert_eq!(
            snippet(&code, 10, 20),
            Some((17, "line 17\nline 18\nline 19\nline 20\nline 21\nline 22\nline 23".into()))
        );
        assert_eq!(snippet(&code, 10, 11).map(|s| s.0), Some(10));
        assert_eq!(snippet(&code, 10, 5), None);
        assert_eq!(snippet(&code, 10, 40), None);
    }
}
