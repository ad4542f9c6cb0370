//! The catalog: error records as the user's data set stores them, loaded, merged and checked.
//!
//! Owns the record schema (only `id` and one of `messagePattern`/`errorMessage` are required;
//! every other field is kept verbatim and passed through to events), the on-disk layouts
//! (one `{"record": {...}, "datasetVersion": ...}` object per file, JSON Lines of such objects,
//! a JSON array, or bare record objects; directories are read recursively), the embedded default
//! catalog, and the merge rules:
//!
//! 1. records are read in order: `--catalog` paths as given, files of a directory sorted by path,
//!    records of a file in file order;
//! 2. a later record with the same `id` replaces the earlier one (so a later `--catalog` path
//!    overrides an earlier one); inside one catalog path this is also reported as a duplicate,
//!    unless both records are identical;
//! 3. among records with the same message (`messagePattern`, else `errorMessage`), when some
//!    have both documentation and solutions, those without either are dropped: the documented
//!    record wins.
//!
//! Contract: loading never fails as a whole because of one bad record. Every problem is a
//! [`Problem`] naming the file, line and record id; records with an error are left out, records
//! with a warning are kept.

pub mod source;
pub mod template;

use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;
use serde_json::value::RawValue;

/// The catalog compiled into the binary: the user's two seed records and the 4,350 records
/// extracted from RisingWave's sources (`config/catalog/`).
pub const EMBEDDED: &[(&str, &str)] = &[
    ("<embedded>/seeds/000_41331c9454529832.txt", include_str!("../../config/catalog/seeds/000_41331c9454529832.txt")),
    ("<embedded>/seeds/003_99cffc1ed49ea8b2.txt", include_str!("../../config/catalog/seeds/003_99cffc1ed49ea8b2.txt")),
    ("<embedded>/risingwave-extracted.jsonl", include_str!("../../config/catalog/risingwave-extracted.jsonl")),
];

/// Where a record came from: file and 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Record fields the annotator reads, in the order of [`Record::strings`].
const KNOWN: [&str; 7] = ["severity", "slug", "errorClass", "errorType", "documentation", "githubUrl", "filePath"];

/// One catalog record: the fields annotail reads, and the record's JSON text as stored, for
/// pass-through. Keeping the text rather than a parsed tree keeps a 43,500-record catalog in
/// tens of MiB instead of hundreds.
#[derive(Debug, Clone)]
pub struct Record {
    /// The `severity` field, parsed ([`Severity::of_record`]; `error` when absent).
    pub severity: Severity,
    pub id: String,
    pub template: Option<String>,
    pub pattern: Option<String>,
    /// Non-empty string values of [`KNOWN`].
    strings: [Option<Box<str>>; KNOWN.len()],
    pub source_line: Option<u64>,
    /// Names for the template's positional placeholders read from `sourceCode` (one per
    /// placeholder, `None` where unreadable or already named; see [`source::argument_names`]).
    pub arg_names: Option<Box<[Option<Box<str>>]>>,
    /// The `sourceCode` lines around `lineNumber` and the number of the first (the rest of the
    /// code is not kept: see [`source::SNIPPET_CONTEXT`]).
    pub snippet: Option<(u64, Box<str>)>,
    solutions: Option<Box<RawValue>>,
    tags: Option<Box<RawValue>>,
    /// A hash of the record object as stored: a record read twice is the same when its text is
    /// (the text itself was kept before: 30 MB of 43,500 records' peak RSS, for this alone).
    digest: u128,
    /// See [`Record::other_fields`]: written into every event the record matches, so made once,
    /// while the record is read (made at its first match, it cost a second parse of the record,
    /// a sixth of the time of the events of a 100 MB log).
    others: Option<Box<str>>,
    pub origin: Origin,
    /// Index of the `--catalog` path (or the embedded catalog) the record was read from.
    pub source_index: usize,
}

impl Record {
    /// Do two records with the same id say the same, however their JSON is laid out? Fields
    /// are compared as read (strings unescaped), lists and other fields as JSON values.
    fn same_content(&self, other: &Record) -> bool {
        fn same_json(a: Option<&str>, b: Option<&str>) -> bool {
            let value = |t: &str| serde_json::from_str::<Value>(t).ok();
            match (a, b) {
                (Some(a), Some(b)) => a == b || value(a) == value(b),
                (a, b) => a == b,
            }
        }
        self.template == other.template
            && self.pattern == other.pattern
            && self.strings == other.strings
            && self.source_line == other.source_line
            && self.snippet == other.snippet
            && same_json(self.solutions.as_deref().map(RawValue::get), other.solutions.as_deref().map(RawValue::get))
            && same_json(self.tags.as_deref().map(RawValue::get), other.tags.as_deref().map(RawValue::get))
            && same_json(self.others.as_deref(), other.others.as_deref())
    }

    /// A non-empty string field among `severity`, `slug`, `errorClass`, `errorType`,
    /// `documentation`, `githubUrl`, `filePath`.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        KNOWN.iter().position(|k| *k == key).and_then(|i| self.strings[i].as_deref())
    }

    /// `solutions` or `tags`, as stored (`null` left out).
    pub fn list(&self, key: &str) -> Option<&RawValue> {
        match key {
            "solutions" => self.solutions.as_deref(),
            "tags" => self.tags.as_deref(),
            _ => None,
        }
    }

    /// The solutions that are strings.
    pub fn solutions(&self) -> Vec<String> {
        match self.solutions.as_deref().map(|r| serde_json::from_str::<Value>(r.get())) {
            Some(Ok(Value::Array(a))) => a.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
            Some(Ok(Value::String(s))) if !s.is_empty() => vec![s],
            _ => Vec::new(),
        }
    }

    /// The record's fields other than [`MAPPED`] ones and `null` ones, as a JSON object (`None`
    /// when there are none): in key order, the last of duplicate keys, values as stored but on
    /// one line (see [`one_line`]).
    pub fn other_fields(&self) -> Option<&str> {
        self.others.as_deref()
    }

    pub fn slug(&self) -> Option<&str> {
        self.str_field("slug")
    }

    /// A record that names a tracing log call site rather than an error type.
    pub fn is_log_event(&self) -> bool {
        self.str_field("errorClass") == Some("tracing::Event") || self.str_field("errorType") == Some("log")
    }

    fn has_docs_and_solutions(&self) -> bool {
        self.str_field("documentation").is_some() && !self.solutions().is_empty()
    }

    fn message_key(&self) -> Option<&str> {
        self.pattern.as_deref().or(self.template.as_deref())
    }
}

/// A JSON object's members in stored order, keys borrowed from the text unless they hold escapes.
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// A key, borrowed from the text when it has no escapes (serde's own `Cow` borrowing).
        #[derive(serde::Deserialize)]
        struct Key<'a>(#[serde(borrow)] Cow<'a, str>);
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(24));
                while let Some((Key(k), v)) = map.next_entry::<Key<'de>, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// The outer object of a stored record: `{"record": {...}, "datasetVersion": ...}`, or the
/// record itself.
#[derive(serde::Deserialize)]
struct Outer<'a> {
    #[serde(borrow)]
    record: Option<&'a RawValue>,
}

/// Record fields that an event's `match` object carries under names of its own; the others
/// pass through under `match.record`.
pub const MAPPED: &[&str] = &[
    "id",
    "slug",
    "severity",
    "errorClass",
    "errorMessage",
    "messagePattern",
    "solutions",
    "tags",
    "documentation",
    "githubUrl",
    "filePath",
    "lineNumber",
    // Read for placeholder names and `explain`, not passed through: a record's code is 1–2 KB,
    // more than the rest of the event.
    "sourceCode",
];

/// The fields read from a record; values are kept raw so that a field of an unexpected type is
/// ignored rather than failing the record.
#[derive(Default)]
struct Fields<'a> {
    id: Option<&'a RawValue>,
    error_message: Option<&'a RawValue>,
    message_pattern: Option<&'a RawValue>,
    severity: Option<&'a RawValue>,
    slug: Option<&'a RawValue>,
    error_class: Option<&'a RawValue>,
    error_type: Option<&'a RawValue>,
    documentation: Option<&'a RawValue>,
    github_url: Option<&'a RawValue>,
    file_path: Option<&'a RawValue>,
    line_number: Option<&'a RawValue>,
    source_code: Option<&'a RawValue>,
    source_code_start: Option<&'a RawValue>,
    solutions: Option<&'a RawValue>,
    tags: Option<&'a RawValue>,
}

impl<'a> Fields<'a> {
    /// The fields among a record's members; one that appears twice makes the record ambiguous.
    fn of(members: &[(Cow<'a, str>, &'a RawValue)]) -> Result<Fields<'a>, String> {
        let mut f = Fields::default();
        for (k, v) in members {
            let slot = match k.as_ref() {
                "id" => &mut f.id,
                "errorMessage" => &mut f.error_message,
                "messagePattern" => &mut f.message_pattern,
                "severity" => &mut f.severity,
                "slug" => &mut f.slug,
                "errorClass" => &mut f.error_class,
                "errorType" => &mut f.error_type,
                "documentation" => &mut f.documentation,
                "githubUrl" => &mut f.github_url,
                "filePath" => &mut f.file_path,
                "lineNumber" => &mut f.line_number,
                "sourceCode" => &mut f.source_code,
                "sourceCodeStart" => &mut f.source_code_start,
                "solutions" => &mut f.solutions,
                "tags" => &mut f.tags,
                _ => continue,
            };
            if slot.replace(v).is_some() {
                return Err(format!("duplicate field `{k}`"));
            }
        }
        Ok(f)
    }
}

/// The members not in [`MAPPED`] and not `null`, as one JSON object (see
/// [`Record::other_fields`]).
fn others_of(mut members: Vec<(Cow<'_, str>, &RawValue)>) -> Option<Box<str>> {
    members.retain(|(k, v)| !MAPPED.contains(&k.as_ref()) && v.get() != "null");
    if members.is_empty() {
        return None;
    }
    // Key order, and the last of duplicate keys (as a JSON object reader keeps it).
    members.reverse();
    members.sort_by(|a, b| a.0.cmp(&b.0));
    members.dedup_by(|later, first| later.0 == first.0);
    let mut out = String::with_capacity(members.iter().map(|(k, v)| k.len() + v.get().len() + 4).sum::<usize>() + 2);
    out.push('{');
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).expect("a string serialises"));
        out.push(':');
        out.push_str(one_line(v).get());
    }
    out.push('}');
    Some(out.into_boxed_str())
}

/// A raw JSON value as a non-empty string, if it is one.
fn raw_str(v: Option<&RawValue>) -> Option<String> {
    let v = v?;
    if !v.get().starts_with('"') {
        return None;
    }
    serde_json::from_str::<String>(v.get()).ok().filter(|s| !s.is_empty())
}

fn raw_list(v: Option<&RawValue>) -> Option<Box<RawValue>> {
    let v = v?;
    (v.get() != "null").then(|| one_line(v).into_owned())
}

/// A stored value as it will be written into an event: verbatim, unless it spans lines (a
/// pretty-printed catalog file), when it is re-serialized compactly. An event is one line, and a
/// line break can only sit between a value's tokens (JSON strings cannot hold one), so this loses
/// nothing. Regression: a pretty-printed record's `tags` split its events over several lines.
pub fn one_line(v: &RawValue) -> Cow<'_, RawValue> {
    if !v.get().bytes().any(|b| b == b'\n' || b == b'\r') {
        return Cow::Borrowed(v);
    }
    serde_json::from_str::<Value>(v.get())
        .and_then(|value| serde_json::value::to_raw_value(&value))
        .map_or(Cow::Borrowed(v), Cow::Owned)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Warning,
    Error,
}

/// A problem found while loading or compiling the catalog.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Problem {
    pub level: Level,
    pub file: String,
    pub line: usize,
    pub id: Option<String>,
    pub kind: ProblemKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemKind {
    Io,
    InvalidJson,
    NotARecord,
    MissingId,
    MissingMessage,
    DuplicateId,
    InvalidRegex,
    RegexTooBig,
    EmptyPattern,
    MatchesAnyLine,
    NoLiteral,
    PlaceholderMismatch,
    /// A field of the wrong type or with an unknown value, read as documented (a `severity`
    /// that is no level word counts as `error`; `tags` or `solutions` that are not a list are
    /// passed through as they are): most often a hand edit's typo.
    InvalidField,
    /// Not the catalog: the config file `check --config` was given (a sink that cannot work, a
    /// source that names no file).
    Config,
}

impl Problem {
    pub fn new(level: Level, origin: &Origin, id: Option<&str>, kind: ProblemKind, message: String) -> Self {
        Problem { level, file: origin.file.clone(), line: origin.line, id: id.map(str::to_owned), kind, message }
    }

    /// A catalog path that cannot be read at all (not one bad record): a run would have fewer
    /// records than it was asked for, so it does not start.
    pub fn is_fatal(&self) -> bool {
        self.level == Level::Error && self.kind == ProblemKind::Io
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lvl = match self.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        write!(f, "{}:{}: {lvl}", self.file, self.line)?;
        if let Some(id) = &self.id {
            write!(f, ": record {id}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Records after merging, and every problem met on the way.
#[derive(Debug, Default)]
pub struct Catalog {
    pub records: Vec<Record>,
    pub problems: Vec<Problem>,
    /// Records read before merging (for `check`'s summary).
    pub read: usize,
    /// Records read but left out by the merge, each with why: `read - records.len()` of them.
    pub left_out: Vec<LeftOut>,
}

/// A record read but not kept, and why (for `check`: the counts must add up).
#[derive(Debug, Clone, serde::Serialize)]
pub struct LeftOut {
    pub file: String,
    pub line: usize,
    pub id: String,
    pub why: LeftOutWhy,
    /// The record kept in its place.
    pub kept: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LeftOutWhy {
    /// A later catalog path has a record with the same id (overriding on purpose).
    OverriddenById,
    /// The same id again in the same catalog path: the later one is kept.
    DuplicateId,
    /// An undocumented record whose message a documented record has too.
    SameMessageDocumented,
}

impl fmt::Display for LeftOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.why {
            LeftOutWhy::OverriddenById => "overridden by the record with the same id at",
            LeftOutWhy::DuplicateId => "a duplicate id; the later record is kept, at",
            LeftOutWhy::SameMessageDocumented => "undocumented, and a documented record has the same message, at",
        };
        write!(f, "{}:{}: left out: record {}: {why} {}", self.file, self.line, self.id, self.kept)
    }
}

/// The catalog path that names the embedded catalog (`-c @embedded -c drafts.jsonl`): with only
/// the binary, drafts were otherwise read instead of the catalog, not on top of it, and every
/// wrapper it knows came back as an unknown error. A file of that name is `./@embedded`.
pub const EMBEDDED_PATH: &str = "@embedded";

/// Does `path` name the embedded catalog ([`EMBEDDED_PATH`])?
pub fn is_embedded(path: &Path) -> bool {
    path.as_os_str() == EMBEDDED_PATH
}

/// Load the given catalog paths, or the embedded catalog when `paths` is empty.
pub fn load(paths: &[PathBuf]) -> Catalog {
    let mut raw = Vec::new();
    let mut problems = Vec::new();
    let embedded = [PathBuf::from(EMBEDDED_PATH)];
    let paths = if paths.is_empty() { &embedded[..] } else { paths };
    for (i, p) in paths.iter().enumerate() {
        if is_embedded(p) {
            for (name, text) in EMBEDDED {
                parse_text(name, text, i, &mut raw, &mut problems);
            }
        } else {
            load_path(p, i, &mut raw, &mut problems);
        }
    }
    merge(raw, problems)
}

/// Load a catalog from text (any of the file layouts), as if read from a file named `name`.
pub fn from_text(name: &str, text: &str) -> Catalog {
    let mut raw = Vec::new();
    let mut problems = Vec::new();
    parse_text(name, text, 0, &mut raw, &mut problems);
    merge(raw, problems)
}

fn load_path(path: &Path, index: usize, out: &mut Vec<Record>, problems: &mut Vec<Problem>) {
    let origin = Origin { file: path.display().to_string(), line: 0 };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) => {
            problems.push(Problem::new(Level::Error, &origin, None, ProblemKind::Io, format!("cannot read: {e}")));
            return;
        }
    };
    if meta.is_dir() {
        let mut files = Vec::new();
        collect_files(path, &mut files, problems);
        files.sort();
        for f in files {
            load_file(&f, index, out, problems);
        }
    } else {
        load_file(path, index, out, problems);
    }
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>, problems: &mut Vec<Problem>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            let origin = Origin { file: dir.display().to_string(), line: 0 };
            problems.push(Problem::new(Level::Error, &origin, None, ProblemKind::Io, format!("cannot read: {e}")));
            return;
        }
    };
    for entry in entries.flatten() {
        let p = entry.path();
        // Hidden files are editor swap files, `.git` and the like, never records.
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() {
            collect_files(&p, files, problems);
        } else {
            files.push(p);
        }
    }
}

fn load_file(path: &Path, index: usize, out: &mut Vec<Record>, problems: &mut Vec<Problem>) {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => {
            // Checked whole first: `from_utf8_lossy` walks valid text chunk by chunk, several
            // times slower (2% of start-up with 43,500 records).
            let text = match std::str::from_utf8(&bytes) {
                Ok(t) => std::borrow::Cow::Borrowed(t),
                Err(_) => String::from_utf8_lossy(&bytes),
            };
            parse_text(&name, &text, index, out, problems);
        }
        Err(e) => {
            let origin = Origin { file: name, line: 0 };
            problems.push(Problem::new(Level::Error, &origin, None, ProblemKind::Io, format!("cannot read: {e}")));
        }
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &text.as_bytes()[..byte.min(text.len())]).count()
}

/// Parse one catalog file's text: a JSON object or array, else JSON Lines.
pub fn parse_text(name: &str, text: &str, index: usize, out: &mut Vec<Record>, problems: &mut Vec<Problem>) {
    // A byte-order mark, which editors on Windows put before a file they save: it is no JSON,
    // and a reviewed drafts file was refused whole, its first record (JSON Lines) or every line
    // (an array) reported as invalid JSON at column 1 (found by a catalog keeper's reading).
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return;
    }
    let lead = text.len() - trimmed.len();
    if trimmed.starts_with('[') {
        match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) => {
                for item in items {
                    let off = item.get().as_ptr() as usize - text.as_ptr() as usize;
                    let origin = Origin { file: name.to_owned(), line: line_of(text, off) };
                    push_text(item.get(), origin, index, out, problems);
                }
            }
            Err(e) => {
                let origin = Origin { file: name.to_owned(), line: e.line() };
                problems.push(Problem::new(
                    Level::Error,
                    &origin,
                    None,
                    ProblemKind::InvalidJson,
                    format!("invalid JSON array: {e}"),
                ));
            }
        }
        return;
    }
    // One (possibly pretty-printed) object per file.
    if let Ok(v) = serde_json::from_str::<&RawValue>(text) {
        let origin = Origin { file: name.to_owned(), line: line_of(text, lead) };
        push_text(v.get(), origin, index, out, problems);
        return;
    }
    // JSON Lines: each bad line is reported and skipped. A large file's lines are read on
    // several threads, in chunks whose records and problems are joined in line order (43,500
    // records, 32 MB: 125 ms of start-up on one thread).
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty()).collect();
    let chunk = crate::chunk_len(lines.len(), MAX_PARSE_THREADS, MIN_PARSE_CHUNK);
    if lines.len() <= chunk {
        return parse_lines(name, &lines, index, out, problems);
    }
    let parsed: Vec<(Vec<Record>, Vec<Problem>)> = std::thread::scope(|s| {
        let handles: Vec<_> = lines
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let (mut recs, mut probs) = (Vec::with_capacity(part.len()), Vec::new());
                    parse_lines(name, part, index, &mut recs, &mut probs);
                    (recs, probs)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("parsing a record does not panic")).collect()
    });
    out.reserve(lines.len());
    for (recs, probs) in parsed {
        out.extend(recs);
        problems.extend(probs);
    }
}

/// Threads that parse a JSON Lines file at most: start-up is shared with the thread building the
/// skim's statistics, and more than four gained nothing when records were compiled
/// ([`crate::matcher`]).
const MAX_PARSE_THREADS: usize = 4;
/// Lines per thread at least: below a few thousand records a thread's start costs more than it
/// saves (the embedded catalog of 4,350 records parsed in 11.0 ms on one thread, 8.3–11.3 on two).
const MIN_PARSE_CHUNK: usize = 8192;

/// Parse JSON Lines (line number, trimmed non-empty text) into records.
fn parse_lines(name: &str, lines: &[(usize, &str)], index: usize, out: &mut Vec<Record>, problems: &mut Vec<Problem>) {
    for &(line, l) in lines {
        let origin = Origin { file: name.to_owned(), line };
        match serde_json::from_str::<&RawValue>(l) {
            Ok(v) => push_text(v.get(), origin, index, out, problems),
            Err(e) => {
                // An object cut at the line's end, as a pretty-printer ends a record's first lines
                // (an opening bracket or a comma, outside a string: quotes outside escapes are
                // even, `"C:\\",` has two): a record laid out over lines gave one error per line,
                // none saying why (found by a catalog keeper).
                let (mut quotes, mut escaped) = (0, false);
                for b in l.bytes() {
                    match b {
                        _ if escaped => escaped = false,
                        b'\\' => escaped = true,
                        b'"' => quotes += 1,
                        _ => {}
                    }
                }
                let hint = if e.is_eof()
                    && l.trim_start().starts_with('{')
                    && l.trim_end().ends_with(['{', '[', ','])
                    && quotes % 2 == 0
                {
                    " (a record laid out over lines? a JSON Lines file holds one record per line)"
                } else {
                    ""
                };
                problems.push(Problem::new(
                    Level::Error,
                    &origin,
                    None,
                    ProblemKind::InvalidJson,
                    format!("invalid JSON: {e}{hint}"),
                ))
            }
        }
    }
}

fn push_text(text: &str, origin: Origin, index: usize, out: &mut Vec<Record>, problems: &mut Vec<Problem>) {
    let not_a_record = |problems: &mut Vec<Problem>, what: &str| {
        problems.push(Problem::new(Level::Error, &origin, None, ProblemKind::NotARecord, what.into()));
    };
    if !text.starts_with('{') {
        return not_a_record(problems, "not a JSON object");
    }
    let record = match serde_json::from_str::<Outer<'_>>(text) {
        Ok(Outer { record: Some(r) }) if r.get().starts_with('{') => r,
        Ok(Outer { record: Some(_) }) => return not_a_record(problems, "\"record\" is not an object"),
        Ok(Outer { record: None }) => serde_json::from_str::<&RawValue>(text).expect("valid JSON"),
        Err(e) => return not_a_record(problems, &format!("not a record: {e}")),
    };
    let members = match serde_json::from_str::<Members<'_>>(record.get()) {
        Ok(Members(m)) => m,
        Err(e) => return not_a_record(problems, &format!("not a record: {e}")),
    };
    let f = match Fields::of(&members) {
        Ok(f) => f,
        Err(e) => {
            // A field twice: the record is ambiguous, but its id (once) still says which record
            // it is (found by a catalog keeper: the message named none).
            let mut ids = members.iter().filter(|(k, _)| k == "id").map(|(_, v)| raw_str(Some(v)));
            let id = match (ids.next().flatten(), ids.next()) {
                (Some(id), None) => Some(id),
                _ => None,
            };
            problems.push(Problem::new(
                Level::Error,
                &origin,
                id.as_deref(),
                ProblemKind::NotARecord,
                format!("not a record: {e}"),
            ));
            return;
        }
    };
    let id = match f.id.map(RawValue::get) {
        Some(t) if t.starts_with('"') => raw_str(f.id).filter(|s| !s.trim().is_empty()),
        Some(t) if t.starts_with(|c: char| c.is_ascii_digit() || c == '-') => Some(t.to_owned()),
        _ => None,
    };
    let Some(id) = id else {
        problems.push(Problem::new(Level::Error, &origin, None, ProblemKind::MissingId, "record has no \"id\"".into()));
        return;
    };
    let template = raw_str(f.error_message);
    let pattern = raw_str(f.message_pattern);
    if template.is_none() && pattern.is_none() {
        problems.push(Problem::new(
            Level::Error,
            &origin,
            Some(&id),
            ProblemKind::MissingMessage,
            "record has neither \"messagePattern\" nor \"errorMessage\"".into(),
        ));
        return;
    }
    let strings = [f.severity, f.slug, f.error_class, f.error_type, f.documentation, f.github_url, f.file_path]
        .map(|v| raw_str(v).map(String::into_boxed_str));
    let source_line: Option<u64> = f.line_number.and_then(|v| v.get().parse().ok());
    let code = raw_str(f.source_code);
    let code_start: Option<u64> = f.source_code_start.and_then(|v| v.get().parse().ok());
    let (mut arg_names, mut snippet) = (None, None);
    if let (Some(code), Some(start), Some(line)) = (&code, code_start, source_line) {
        snippet = source::snippet(code, start, line);
        if let Some(t) = template.as_deref().filter(|t| t.contains('{')) {
            arg_names = source::argument_names(t, &template::parse(t), code, start, line)
                .map(|v| v.into_iter().map(|n| n.map(String::into_boxed_str)).collect());
        }
    }
    // Read as documented whatever it says, but said: a keeper's typo (`eror`) or a list where a
    // word goes would otherwise pass `check` unseen (found by a catalog keeper's reading).
    let mut invalid = |what: String| {
        problems.push(Problem::new(Level::Warning, &origin, Some(&id), ProblemKind::InvalidField, what));
    };
    match f.severity.map(RawValue::get) {
        None | Some("null") => {}
        Some(raw) if !raw.starts_with('"') => invalid(format!("\"severity\" is {raw}, not a string: read as error")),
        Some(_) => {
            let w = strings[0].as_deref().unwrap_or("");
            if !Severity::is_level_word(w) {
                invalid(format!(
                    "\"severity\" is {w:?}, not one of debug, info, notice, warning, error, critical (or their synonyms): read as error"
                ));
            }
        }
    }
    for (name, v) in [("tags", f.tags), ("solutions", f.solutions)] {
        if let Some(v) = v.map(RawValue::get)
            && v != "null"
            && !v.starts_with('[')
        {
            invalid(format!(
                "\"{name}\" is {}, not a list: passed through as it is",
                v.chars().take(60).collect::<String>()
            ));
        }
    }
    let severity = Severity::of_record(strings[0].as_deref().unwrap_or("error"));
    out.push(Record {
        severity,
        id,
        template,
        pattern,
        strings,
        source_line,
        arg_names,
        snippet,
        solutions: raw_list(f.solutions),
        tags: raw_list(f.tags),
        others: others_of(members),
        digest: xxhash_rust::xxh3::xxh3_128(record.get().as_bytes()),
        origin,
        source_index: index,
    });
}

/// A record's severity, read once from its `severity` field as the catalog is loaded; and an
/// event's: its primary match's record's, else (an unknown error) its level's, `None` when
/// nothing matched and nothing was clustered. Every use (`--min-severity`, syslog, ECS, OTLP,
/// pretty output's colours, the summary's order) decides on this one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    None,
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
}

impl Severity {
    /// A record's `severity` field (default `error`); unknown words count as `error`, so that a
    /// filter never hides an error because of a spelling.
    pub fn of_record(s: &str) -> Severity {
        Severity::of_word(s).unwrap_or(Severity::Error)
    }

    /// Is `s` a word [`Severity::of_record`] knows (any other counts as `error`)?
    pub fn is_level_word(s: &str) -> bool {
        Severity::of_word(s).is_some()
    }

    /// The severity a level word names, in any case. Compared in place: lower-casing each
    /// record's severity into a string cost 0.5 M instructions at every start (4,350 records).
    fn of_word(s: &str) -> Option<Severity> {
        const WORDS: [(&str, Severity); 14] = [
            ("debug", Severity::Debug),
            ("trace", Severity::Debug),
            ("info", Severity::Info),
            ("informational", Severity::Info),
            ("notice", Severity::Notice),
            ("warning", Severity::Warning),
            ("warn", Severity::Warning),
            ("error", Severity::Error),
            ("err", Severity::Error),
            ("critical", Severity::Critical),
            ("fatal", Severity::Critical),
            ("alert", Severity::Critical),
            ("emergency", Severity::Critical),
            ("panic", Severity::Critical),
        ];
        WORDS.iter().find(|(w, _)| s.eq_ignore_ascii_case(w)).map(|&(_, sev)| sev)
    }

    /// The canonical name (`warn` and `warning` are both `warning`).
    pub fn name(self) -> &'static str {
        match self {
            Severity::None => "none",
            Severity::Debug => "debug",
            Severity::Info => "info",
            Severity::Notice => "notice",
            Severity::Warning => "warning",
            Severity::Error => "error",
            Severity::Critical => "critical",
        }
    }

    /// RFC 5424 severity number (an event without a match is informational).
    pub fn syslog(self) -> u8 {
        match self {
            Severity::Critical => 2,
            Severity::Error => 3,
            Severity::Warning => 4,
            Severity::Notice => 5,
            Severity::Info | Severity::None => 6,
            Severity::Debug => 7,
        }
    }
}

fn merge(raw: Vec<Record>, mut problems: Vec<Problem>) -> Catalog {
    let read = raw.len();
    let mut by_id: HashMap<String, usize> = HashMap::default();
    by_id.reserve(raw.len());
    let mut kept: Vec<Option<Record>> = Vec::with_capacity(raw.len());
    let mut left_out = Vec::new();
    for rec in raw {
        if let Some(&i) = by_id.get(&rec.id) {
            let old = kept[i].as_ref().expect("kept by id");
            let why = if old.source_index == rec.source_index {
                LeftOutWhy::DuplicateId
            } else {
                LeftOutWhy::OverriddenById
            };
            left_out.push(LeftOut {
                file: old.origin.file.clone(),
                line: old.origin.line,
                id: old.id.clone(),
                why,
                kept: rec.origin.to_string(),
            });
            // Compared only within one catalog path: a later path replaces records on purpose.
            if old.source_index == rec.source_index && old.digest != rec.digest && !old.same_content(&rec) {
                problems.push(Problem::new(
                    Level::Warning,
                    &rec.origin,
                    Some(&rec.id),
                    ProblemKind::DuplicateId,
                    format!("duplicate id: this record replaces the one at {}", old.origin),
                ));
            }
            kept[i] = Some(rec);
        } else {
            by_id.insert(rec.id.clone(), kept.len());
            kept.push(Some(rec));
        }
    }
    // A record left out for one that is left out in turn (the same id three times) names the
    // last, the one kept: it named the next, itself left out (found by a catalog keeper).
    for l in &mut left_out {
        if let Some(r) = by_id.get(&l.id).and_then(|&i| kept[i].as_ref()) {
            l.kept = r.origin.to_string();
        }
    }
    // `filter_map` (not `flatten`) collects in place, into `kept`'s own allocation.
    #[allow(clippy::filter_map_identity)]
    let mut records: Vec<Record> = kept.into_iter().filter_map(|r| r).collect();
    // Rule 3: a documented record beats undocumented ones with the same message.
    let mut documented: HashMap<&str, bool> = HashMap::default();
    for r in &records {
        if let Some(k) = r.message_key() {
            *documented.entry(k).or_default() |= r.has_docs_and_solutions();
        }
    }
    let dropped: Vec<bool> = records
        .iter()
        .map(|r| r.message_key().is_some_and(|k| documented.get(k) == Some(&true)) && !r.has_docs_and_solutions())
        .collect();
    std::mem::drop(documented);
    if dropped.iter().any(|d| *d) {
        // Where each documented message's record is, to name it.
        let mut by_message: HashMap<&str, &Origin> = HashMap::default();
        for r in records.iter().filter(|r| r.has_docs_and_solutions()) {
            if let Some(k) = r.message_key() {
                by_message.entry(k).or_insert(&r.origin);
            }
        }
        for (r, _) in records.iter().zip(&dropped).filter(|(_, d)| **d) {
            let kept = r.message_key().and_then(|k| by_message.get(k)).map_or_else(String::new, |o| o.to_string());
            left_out.push(LeftOut {
                file: r.origin.file.clone(),
                line: r.origin.line,
                id: r.id.clone(),
                why: LeftOutWhy::SameMessageDocumented,
                kept,
            });
        }
    }
    let mut i = 0;
    records.retain(|_| {
        i += 1;
        !dropped[i - 1]
    });
    Catalog { records, problems, read, left_out }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Vec<Record>, Vec<Problem>) {
        let mut out = Vec::new();
        let mut p = Vec::new();
        parse_text("t.json", text, 0, &mut out, &mut p);
        (out, p)
    }

    #[test]
    fn other_fields_in_key_order_as_stored_on_one_line() {
        let text = r#"{"id": "a", "errorMessage": "x {}", "z": 1, "b\u0041": "esc", "m": null, "b": [1, 2],
            "dup": 1, "n": {"k":
              [3]}, "dup": "last"}"#;
        let (recs, problems) = parse(&text.replace('\n', " ").replacen("\"k\": ", "\"k\":\n", 1));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(recs[0].other_fields(), Some(r#"{"b":[1, 2],"bA":"esc","dup":"last","n":{"k":[3]},"z":1}"#));
        let (recs, _) = parse(r#"{"id": "a", "errorMessage": "x {}", "tags": null}"#);
        assert_eq!(recs[0].other_fields(), None);
        let (recs, problems) = parse(r#"{"id": "a", "errorMessage": "x {}", "id": "b"}"#);
        assert!(recs.is_empty());
        assert!(problems[0].message.contains("duplicate field `id`"), "{problems:?}");
        assert_eq!(problems[0].id, None, "two ids: neither names it");
        // Another field twice: the one id names the record (it named none).
        let (recs, problems) = parse(r#"{"id": "a", "errorMessage": "x", "errorMessage": "y"}"#);
        assert!(recs.is_empty());
        assert_eq!(problems[0].id.as_deref(), Some("a"), "{problems:?}");
    }

    #[test]
    fn reads_every_layout() {
        let wrapped = r#"{"record": {"id": "a", "errorMessage": "x {}"}, "datasetVersion": "v"}"#;
        assert_eq!(parse(wrapped).0.len(), 1);
        let lines = format!("{wrapped}\n{}\n", r#"{"id": "b", "messagePattern": "y (.+?)"}"#);
        assert_eq!(parse(&lines).0.len(), 2);
        let arr = r#"[{"id": "a", "errorMessage": "x"},
                      {"id": "b", "errorMessage": "y"}]"#;
        let (recs, _) = parse(arr);
        assert_eq!(recs.iter().map(|r| r.origin.line).collect::<Vec<_>>(), vec![1, 2]);
        let pretty = "{\n  \"id\": \"p\",\n  \"errorMessage\": \"z\"\n}\n";
        assert_eq!(parse(pretty).0[0].id, "p");
        // regression (a catalog keeper's): behind a byte-order mark, as an editor on Windows
        // saves a file, each layout reads alike, with its lines' numbers.
        for text in [&lines, arr, pretty] {
            let (plain, _) = parse(text);
            let (recs, problems) = parse(&format!("\u{feff}{text}"));
            assert!(problems.is_empty(), "{problems:?}");
            let lines_of = |r: &[Record]| r.iter().map(|r| (r.id.clone(), r.origin.line)).collect::<Vec<_>>();
            assert_eq!(lines_of(&recs), lines_of(&plain));
        }
    }

    #[test]
    fn bad_lines_are_reported_and_skipped() {
        let text = "{\"id\": \"a\", \"errorMessage\": \"x\"}\n{\"id\": \"b\", \"errorMe\n{\"errorMessage\": \"n\"}\n{\"id\": \"c\"}\n{\"id\": \"d\", \"errorMessage\": \"ok\"}\n";
        let (recs, p) = parse(text);
        assert_eq!(recs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), vec!["a", "d"]);
        let kinds: Vec<_> = p.iter().map(|p| (p.line, p.kind)).collect();
        assert_eq!(
            kinds,
            vec![(2, ProblemKind::InvalidJson), (3, ProblemKind::MissingId), (4, ProblemKind::MissingMessage)]
        );
        assert_eq!(p[2].id.as_deref(), Some("c"));
        // A record laid out over lines in JSON Lines is told so; a line cut elsewhere is not,
        // nor one cut inside a string that ends with a comma (a third reader).
        assert!(!p[0].message.contains("one record per line"), "{:?}", p[0]);
        let (_, p) =
            parse("{\"id\": \"a\", \"errorMessage\": \"x\"}\n{\"id\":\"b\",\"errorMessage\":\"unterminated, \n");
        assert!(!p[0].message.contains("one record per line"), "{:?}", p[0]);
        let (recs, p) =
            parse("{\"id\": \"a\", \"errorMessage\": \"x\"}\n{\n  \"id\": \"p\",\n  \"errorMessage\": \"z\"\n}\n");
        assert_eq!(recs.len(), 1);
        assert!(p[0].message.contains("one record per line"), "{:?}", p[0]);
    }

    #[test]
    fn later_id_overrides_and_documented_record_wins() {
        let mut raw = Vec::new();
        let mut p = Vec::new();
        parse_text("a", r#"{"id": "1", "errorMessage": "m", "severity": "warning"}"#, 0, &mut raw, &mut p);
        parse_text("b", r#"{"id": "1", "errorMessage": "m", "severity": "error"}"#, 1, &mut raw, &mut p);
        parse_text(
            "b",
            r#"{"id": "2", "errorMessage": "m", "documentation": "d", "solutions": ["s"]}"#,
            1,
            &mut raw,
            &mut p,
        );
        let c = merge(raw, p);
        assert_eq!(c.records.len(), 1);
        assert_eq!(c.records[0].id, "2");
        assert!(c.problems.is_empty(), "{:?}", c.problems);
    }

    #[test]
    fn duplicate_id_inside_one_catalog_is_reported() {
        let mut raw = Vec::new();
        let mut p = Vec::new();
        parse_text(
            "a",
            "{\"id\": \"1\", \"errorMessage\": \"m\"}\n{\"id\": \"1\", \"errorMessage\": \"n\"}",
            0,
            &mut raw,
            &mut p,
        );
        let c = merge(raw, p);
        assert_eq!(c.records.len(), 1);
        assert_eq!(c.problems[0].kind, ProblemKind::DuplicateId);
        assert_eq!(c.problems[0].line, 2);
    }

    /// The same id three times: each record left out named the next one as kept, the middle one
    /// too, though it was left out as well (found by a catalog keeper).
    #[test]
    fn regression_a_record_left_out_names_the_one_finally_kept() {
        let mut raw = Vec::new();
        let mut p = Vec::new();
        let text = "{\"id\": \"1\", \"errorMessage\": \"m\"}\n{\"id\": \"1\", \"errorMessage\": \"n\"}";
        parse_text("a", text, 0, &mut raw, &mut p);
        parse_text("b", r#"{"id": "1", "errorMessage": "o"}"#, 1, &mut raw, &mut p);
        let c = merge(raw, p);
        assert_eq!(c.records.len(), 1);
        let kept: Vec<(usize, &str)> = c.left_out.iter().map(|l| (l.line, l.kept.as_str())).collect();
        assert_eq!(kept, [(1, "b:1"), (2, "b:1")]);
    }

    #[test]
    fn duplicate_id_laid_out_differently_is_not_reported() {
        let same = [
            r#"{"id": "1", "errorMessage": "m {}", "tags": ["a", "b"], "x": {"k": 1}}"#,
            r#"{"x":{"k":1},"tags":["a","b"],"errorMessage":"m {}","id":"1"}"#,
            r#"{"id": "1", "errorMessage": "m \u007b}", "tags": [ "a","b" ], "x": {"k":1}}"#,
        ];
        for text in &same[1..] {
            let (mut raw, p) = parse(same[0]);
            raw.extend(parse(text).0);
            let c = merge(raw, p);
            assert_eq!(c.records.len(), 1);
            assert!(c.problems.is_empty(), "{text}: {:?}", c.problems);
        }
        // Each of these says something else: a field, a list, another field's value.
        for text in [
            r#"{"id": "1", "errorMessage": "m {}", "tags": ["b", "a"], "x": {"k": 1}}"#,
            r#"{"id": "1", "errorMessage": "m {}", "tags": ["a", "b"], "x": {"k": 2}}"#,
            r#"{"id": "1", "errorMessage": "n {}", "tags": ["a", "b"], "x": {"k": 1}}"#,
            r#"{"id": "1", "errorMessage": "m {}", "tags": ["a", "b"], "x": {"k": 1}, "severity": "high"}"#,
        ] {
            let (mut raw, p) = parse(same[0]);
            raw.extend(parse(text).0);
            let c = merge(raw, p);
            assert_eq!(c.problems.len(), 1, "{text}");
            assert_eq!(c.problems[0].kind, ProblemKind::DuplicateId);
        }
    }

    /// A file large enough to be parsed on several threads (where there are several cores)
    /// comes out as one thread reads it: records in file order, problems with their own line.
    #[test]
    fn a_large_json_lines_file_keeps_its_order_and_line_numbers() {
        let lines = 4 * MIN_PARSE_CHUNK + 17;
        let mut text = String::new();
        for i in 0..lines {
            match i % MIN_PARSE_CHUNK {
                5 => text.push_str("{\"id\": \"broken"),
                9 => {}
                _ => text.push_str(&format!("{{\"id\": \"r{i}\", \"errorMessage\": \"failure number {i}\"}}")),
            }
            text.push('\n');
        }
        let (recs, problems) = parse(&text);
        let want: Vec<String> =
            (0..lines).filter(|i| !matches!(i % MIN_PARSE_CHUNK, 5 | 9)).map(|i| format!("r{i}")).collect();
        assert_eq!(recs.iter().map(|r| r.id.clone()).collect::<Vec<_>>(), want);
        assert!(recs.iter().all(|r| r.origin.line == 1 + r.id[1..].parse::<usize>().unwrap()));
        let bad: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(bad, (0..5).map(|k| k * MIN_PARSE_CHUNK + 6).collect::<Vec<_>>());
        assert!(problems.iter().all(|p| p.kind == ProblemKind::InvalidJson));
    }

    #[test]
    fn embedded_catalog_loads_cleanly() {
        let c = load(&[]);
        assert!(c.records.len() >= 4350, "{}", c.records.len());
        assert!(c.problems.is_empty(), "{:?}", &c.problems[..c.problems.len().min(3)]);
    }
}
