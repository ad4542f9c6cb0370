//! Message templates (`errorMessage`, Rust format strings) and the regexes made from them.
//!
//! Owns three rules that every later stage relies on:
//! - capture names: `{job_id}` / `{job_id:?}` → `job_id`; an unnamed placeholder (`{}`, `{:?}`,
//!   `{0}`) → `_N`, N its 1-based position among the template's placeholders;
//! - derivation: where `messagePattern` is missing or does not compile, the template becomes a
//!   regex (literal text escaped, each placeholder a lazy group, `{{`/`}}` literal braces);
//! - the two regex shapes the matcher uses for a record: the *find* form (the catalog pattern,
//!   with a trailing `: {source}` made optional) and the *capture* form (the same with a trailing
//!   lazy group made greedy, run only on the value the match sits in, so a trailing value is
//!   captured whole instead of one character).

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    Lit(String),
    /// The placeholder's capture name (`job_id` or `_N`) and its raw spec (`job_id:?`).
    Ph {
        name: String,
        spec: String,
    },
}

/// Split a Rust format string into literal text and placeholders.
pub fn parse(template: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut lit = String::new();
    let mut n = 0usize;
    let mut chars = template.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().map(|p| p.1) == Some('{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek().map(|p| p.1) == Some('}') => {
                chars.next();
                lit.push('}');
            }
            '{' => match template[i + 1..].find(['{', '}']) {
                Some(rel) if template.as_bytes()[i + 1 + rel] == b'}' => {
                    let spec = &template[i + 1..i + 1 + rel];
                    n += 1;
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Ph { name: placeholder_name(spec, n), spec: spec.to_owned() });
                    // Skip the spec and the closing brace.
                    for _ in 0..spec.chars().count() + 1 {
                        chars.next();
                    }
                }
                _ => lit.push('{'),
            },
            _ => lit.push(c),
        }
    }
    if !lit.is_empty() {
        parts.push(Part::Lit(lit));
    }
    parts
}

fn placeholder_name(spec: &str, n: usize) -> String {
    let name = spec.split(':').next().unwrap_or("").trim();
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    if valid { name.to_owned() } else { format!("_{n}") }
}

/// Capture names of a template in placeholder order.
/// The format specs of the placeholders (`""`, `:?`, `0`, `name:#?`), in order.
pub fn placeholder_specs(parts: &[Part]) -> Vec<&str> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Ph { spec, .. } => Some(spec.as_str()),
            Part::Lit(_) => None,
        })
        .collect()
}

pub fn capture_names(parts: &[Part]) -> Vec<String> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Ph { name, .. } => Some(name.clone()),
            Part::Lit(_) => None,
        })
        .collect()
}

/// Derive a regex from a parsed template.
pub fn derive_pattern(parts: &[Part]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            Part::Lit(s) => out.push_str(&regex::escape(s)),
            Part::Ph { .. } => out.push_str("(.+?)"),
        }
    }
    out
}

/// True when the template's tail may be missing where it is printed: it ends in
/// `: {placeholder}` or in a separator `: `, which error-chain printers (numbered `Caused by`
/// lists, SQL clients, the next numbered cause on the same line) leave out. `<literal>: {source}`
/// always qualifies; a template with other placeholders only when what is left starts with
/// literal text and holds at least [`MIN_ABSENT_LITERAL`] bytes of it: `unexpected {}` without
/// its tail would match any line saying "unexpected".
pub fn has_optional_tail(parts: &[Part]) -> bool {
    if matches!(parts, [Part::Lit(l), Part::Ph { .. }] if l.ends_with(": ") && l.len() > 2) {
        return true;
    }
    let head: &[Part] = match parts {
        [.., Part::Lit(l), Part::Ph { .. }] if l.ends_with(": ") => &parts[..parts.len() - 1],
        [.., Part::Lit(l)] if l.ends_with(": ") => parts,
        _ => return false,
    };
    let literal: usize = head
        .iter()
        .map(|p| match p {
            Part::Lit(l) => l.trim_end_matches(": ").trim().len(),
            Part::Ph { .. } => 0,
        })
        .sum();
    matches!(head.first(), Some(Part::Lit(_))) && literal >= MIN_ABSENT_LITERAL
}

/// Literal text a template with more placeholders than its tail needs to keep without the tail
/// (see [`has_optional_tail`]). 16 bytes is longer than the generic heads the rule must not
/// widen (`unexpected {}` has 11, `failed to {}` 10) and shorter than the client-side chain
/// links it is for (`Failed to bind expression: {expr}` has 26).
pub const MIN_ABSENT_LITERAL: usize = 16;

/// Where an absent-tail link may start: at the start of a line (indented, quoted, numbered), after
/// a client's `ERROR: ` / `Error: ` / `error: ` prefix, after a numbered cause ` N: ` on the same
/// line, or after `Caused by: `.
const ABSENT_START: &str =
    r"(?:^[ \t]*(?:>[ \t]*)?(?:[0-9]{1,3}: +)?|(?:ERROR|Error|error): +|[ \t][0-9]{1,3}: +|Caused by: +)";
/// Where it may end: at the end of the line, at a sentence's `.`, before `Caused by` (`Caused by:`,
/// `Caused by these errors`), or before the next numbered cause.
const ABSENT_END: &str = r"(?:[ \t]*$|\.(?:[ \t]|$)|[ \t]+Caused by|[ \t]+[0-9]{1,3}: )";

const LAZY_GROUP: &str = "(.+?)";
/// A lazy group for a `{:#?}` value, which spans lines.
const MULTILINE_LAZY_GROUP: &str = "((?s:.+?))";

/// The regex forms of one record, as strings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forms {
    /// The record's regex, with a trailing lazy group made greedy: the match is found with it,
    /// and the trailing value is then cut where the value it sits in ends (see `matcher`).
    pub regex: String,
    /// The pattern ends in a group (the trailing value).
    pub tail: bool,
    /// For templates whose tail may be missing ([`has_optional_tail`]): the pattern without its
    /// trailing `: {placeholder}` (or `: `), as a chain link that a client or a numbered list
    /// printed (see [`ABSENT_START`], [`ABSENT_END`]); group 1 is the link, groups 2.. the
    /// record's own groups before the tail. Tried when `regex` does not match.
    pub absent: Option<String>,
    /// The pattern starts with a lazy group, whose value is trimmed to the last chain link.
    pub leading_group: bool,
    /// The trailing value may span lines (`{:#?}`, or a message with line breaks).
    pub tail_spans_lines: bool,
}

/// Build the regex forms from a base pattern. `optional_tail`: the template is
/// `<literal>: {source}`.
pub fn forms(base: &str, optional_tail: bool) -> Forms {
    // Messages with line breaks match across the lines of the event, as they were printed.
    let multiline = base.contains("\\n") || base.contains('\n');
    let flags = if multiline { "(?s)" } else { "" };
    let leading_group = base.starts_with(LAZY_GROUP);
    let mut f = Forms {
        regex: format!("{flags}{base}"),
        tail: false,
        absent: None,
        leading_group,
        tail_spans_lines: multiline,
    };
    if let Some(head) = base.strip_suffix(MULTILINE_LAZY_GROUP) {
        f.regex = format!("{flags}{head}((?s:.+))");
        f.tail = true;
        f.tail_spans_lines = true;
    } else if let Some(head) = base.strip_suffix(LAZY_GROUP) {
        f.regex = format!("{flags}{head}(.+)");
        f.tail = true;
    }
    if optional_tail && let Some(h) = absent_head(base) {
        f.absent = Some(format!("(?m){ABSENT_START}({h}){ABSENT_END}"));
    }
    f
}

/// The base pattern without its tail: a trailing separator `: `, else a trailing `: (.+?)`.
/// Catalog patterns write the space escaped or not (`:\ `).
fn absent_head(base: &str) -> Option<&str> {
    fn sep(s: &str) -> Option<&str> {
        s.strip_suffix(": ")
            .or_else(|| s.strip_suffix(":\\ "))
            // A pattern's final blank as the matcher reads it (a blank at a line's end is no
            // part of an event's text).
            .or_else(|| s.strip_suffix(crate::matcher::LINE_END_BLANKS)?.strip_suffix(':'))
    }
    let h = match sep(base) {
        Some(h) => h,
        None => sep(base.strip_suffix(LAZY_GROUP)?)?,
    };
    // A head that ends in a lone `\` was an escaped `\:` (`literal\: `): no head.
    (!h.is_empty() && !h.ends_with('\\')).then_some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholder_names_follow_the_rule() {
        let cases: &[(&str, &[&str])] = &[
            ("job {job_id} failed", &["job_id"]),
            ("job {job_id:?} failed: {}", &["job_id", "_2"]),
            ("{0} and {:?} and {x.y:#?}", &["_1", "_2", "x.y"]),
            ("braces {{literal}} {n}", &["n"]),
            ("no placeholders", &[]),
            ("{1:>5}", &["_1"]),
        ];
        for (t, want) in cases {
            assert_eq!(capture_names(&parse(t)), *want, "{t}");
        }
    }

    #[test]
    fn derived_pattern_escapes_and_groups() {
        let p = parse("bad value {v} (expected {{x}}): {}");
        assert_eq!(derive_pattern(&p), r"bad value (.+?) \(expected \{x\}\): (.+?)");
        // 25 bytes of literal text before the tail, starting with literal text.
        assert!(has_optional_tail(&p));
        assert!(has_optional_tail(&parse("Storage error: {0}")));
        assert!(!has_optional_tail(&parse("unexpected {}: {}")));
        assert!(has_optional_tail(&parse("Failed to bind expression: {expr}: {error}")));
        assert!(has_optional_tail(&parse("gRPC request to meta service failed: {}: ")));
        assert!(!has_optional_tail(&parse("{} failed to do the thing here: {}")));
        assert!(!has_optional_tail(&parse("failed to {}: {}")));
        assert!(!has_optional_tail(&parse("a {} b")));
        let lone = parse("unclosed { brace");
        assert_eq!(lone, vec![Part::Lit("unclosed { brace".into())]);
    }

    #[test]
    fn forms_make_tail_greedy_and_optional() {
        let f = forms("Storage error: (.+?)", true);
        assert_eq!((f.regex.as_str(), f.tail), ("Storage error: (.+)", true));
        assert_eq!(f.absent.as_deref(), Some(format!("(?m){ABSENT_START}(Storage error){ABSENT_END}").as_str()));
        let f = forms("Failed to bind expression: (.+?): (.+?)", true);
        assert_eq!(f.absent, Some(format!("(?m){ABSENT_START}(Failed to bind expression: (.+?)){ABSENT_END}")));
        let f = forms(r"a\ long\ literal\ failed:\ (.+?):\ ", true);
        assert_eq!(f.absent, Some(format!(r"(?m){ABSENT_START}(a\ long\ literal\ failed:\ (.+?)){ABSENT_END}")));
        let f = forms("job (.+?) failed", false);
        assert_eq!((f.regex.as_str(), f.tail, f.absent), ("job (.+?) failed", false, None));
        let f = forms("(.+?) not found in (.+?)", false);
        assert!(f.leading_group);
        assert_eq!(f.regex, "(.+?) not found in (.+)");
    }
}
