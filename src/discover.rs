//! `annotail discover`: the clusters of what the catalog does not know, and draft records for
//! them.
//!
//! Owns the report over a run with `--unknown`: each cluster's template, count, levels,
//! targets, first and last seen (file, line, timestamp) and a few example lines, as text, as
//! JSON Lines, or as draft catalog records. A draft is a record in the catalog's own schema:
//! `id` (the cluster id, so the same input drafts the same id), `slug`, `errorMessage` (the
//! template, `{}` for each variable), `messagePattern` (its regex, `(.+?)` for each variable),
//! `severity` from the levels, `tags` from the targets; what was seen (count, examples, first
//! and last) is in a `discovered` object beside `record`, not in it, so that matched events do
//! not carry it. Contract: the drafts pass `annotail check`, and added with `-c` they match the
//! lines they were drafted from (their templates are those lines' masked tokens, and masking
//! only turns parts into `<*>`). A [`Discovery`] can be reported while its run still reads: an
//! interrupted `discover` reports what it read.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::annotate::Emit;
use crate::catalog::Severity;
use crate::event::{Annotated, Flow, Writer, visible};
use crate::matcher::Matcher;
use crate::unknown::{Levels, Shared, id_text, mask::VAR};
use crate::{framing, source};

/// The options of `annotail discover` (its `--help` text is these doc comments).
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// A catalog file or directory; repeatable; later paths override earlier ones by record id;
    /// `@embedded` names the catalog embedded in the binary.
    /// Default: the config file's `catalog`, else the catalog embedded in the binary.
    #[arg(short = 'c', long = "catalog", value_name = "PATH")]
    pub catalog: Vec<PathBuf>,

    /// Log files to read (any layout annotail reads); '-' or none: standard input.
    pub files: Vec<PathBuf>,

    /// text for people; json: one object per cluster (JSON Lines); catalog: one draft record per
    /// cluster (JSON Lines, the catalog's layout), to review and add with `-c`.
    #[arg(long, value_enum, default_value_t = DiscoverFormat::Text)]
    pub format: DiscoverFormat,

    /// Levels of the events clustered: warn (WARN and ERROR), error, any (every event).
    #[arg(long, value_name = "LEVELS", default_value = "warn", value_parser = discover_levels)]
    pub unknown: Levels,

    /// Clusters with fewer events than this are left out of the report.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_count: u64,

    /// Clusters kept at most, by the clusterer and in the report (past it the least recently
    /// seen sixteenth is dropped, and standard error says how many were).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = crate::config::cli::parse_cluster_cap, allow_negative_numbers = true)]
    pub max_clusters: usize,
}

/// `--unknown` of `discover`: the levels `--unknown` takes but `off`, which would cluster nothing.
fn discover_levels(s: &str) -> Result<Levels, String> {
    match <Levels as clap::ValueEnum>::from_str(s, true)? {
        Levels::Off => Err("discover clusters the unknown events: warn, error or any".into()),
        l => Ok(l),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiscoverFormat {
    Text,
    Json,
    Catalog,
}

/// Targets a text report names per cluster, and tags a draft takes from them: a third-party root
/// cause (`Connection refused`) is logged from dozens of modules, and a line of all of them
/// was longer than a screen. The JSON report has them all.
const TARGETS_SHOWN: usize = 5;

/// Targets kept a cluster: a third-party root cause is logged from dozens of RisingWave's
/// modules, not from thousands. A second reader's 1.6 million lines of one kind, each from a
/// target of its own, took 536 MB (555 with `--max-clusters 1`, which bounds clusters, not
/// this), every target named in one 14 MB object. The events of the targets past it are
/// counted ([`ClusterReport::other_target_events`]).
const TARGETS_KEPT: usize = 256;

/// The level a panic's events are reported at (they have none of their own).
const PANIC: &str = "PANIC";

/// Example lines kept per cluster: enough to see what varies.
const EXAMPLES: usize = 3;

/// An example line is cut to this many bytes: a draft is read by a person.
const EXAMPLE_BYTES: usize = 1000;

/// The blanks a template's words may be joined by in its lines.
const BLANKS: [char; 2] = [' ', '\t'];

/// Bytes of the clustered text looked for among an event's lines: enough to place it on its
/// line, few enough that the search costs nothing beside the event's other work.
const EXAMPLE_PROBE: usize = 64;

/// An example line whose clustered text is past [`EXAMPLE_BYTES`] keeps this much of its start
/// (a RisingWave line's time, level and the start of its spans: where it was logged)...
const EXAMPLE_HEAD: usize = 300;

/// ...and this much before the clustered text (its target and the end of its spans, so that the
/// line still reads as the header it is).
const EXAMPLE_BEFORE: usize = 200;

/// Where and when an event was seen.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Seen {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub line: u64,
    /// The event's own time; none for an event that carries none (a panic's lines): the time it
    /// was read is not when it happened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// `timestamp` in milliseconds, when it parses: what orders first and last seen.
    #[serde(skip)]
    pub ms: Option<i64>,
}

/// Does an event at `new` go before a first seen at `first`? By time when both have one; in
/// reading order (no) otherwise. With several inputs (pods printed one after another, files
/// named in any order), reading order put an error's start hours after its end (found by an
/// incident responder's reading).
pub(crate) fn seen_before(new: Option<i64>, first: Option<i64>) -> bool {
    matches!((new, first), (Some(n), Some(f)) if n < f)
}

/// Does an event at `new` replace a last seen at `last`? Unless both have a time and `new`'s is
/// earlier: reading order otherwise, as [`seen_before`].
pub(crate) fn seen_after(new: Option<i64>, last: Option<i64>) -> bool {
    !matches!((new, last), (Some(n), Some(l)) if n < l)
}

/// One cluster as reported.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClusterReport {
    pub cluster: String,
    pub template: String,
    pub count: u64,
    pub levels: BTreeSet<String>,
    /// The targets its events were logged from, the most events first (then by name).
    pub targets: Vec<String>,
    /// The events of each target (at most [`TARGETS_KEPT`]: the first met).
    #[serde(skip)]
    pub target_events: HashMap<String, u64>,
    /// Its lines have no text of their own: every one was clustered by its target (a message of
    /// punctuation alone, a JSON line's empty message). Told by the text clustered, which is the
    /// target: the template is the target masked (`restore_impl::<*>` of `restore_impl::v2`),
    /// which a comparison with the targets missed (found by a second reader). Every one: a
    /// target-clustered line that joined a cluster of real messages (a logger named like them)
    /// took its draft away (found by a third).
    #[serde(skip)]
    pub untexted: bool,
    /// The events logged from targets past [`TARGETS_KEPT`], which are not named.
    #[serde(skip_serializing_if = "is_zero")]
    pub other_target_events: u64,
    pub first: Seen,
    pub last: Seen,
    pub examples: Vec<String>,
    /// The highest of its events' severities, as `--unknown` reads their levels (a panic is an
    /// error): the draft's.
    #[serde(skip)]
    pub severity: Severity,
    /// When its last event was seen, in events of the run (the report's own bound drops the
    /// least recently seen).
    #[serde(skip)]
    seen_at: u64,
}

/// The clusters reported, by id, kept to `cap` ([`Args::max_clusters`]): a `kubectl logs -f … |
/// annotail discover` that runs for days meets ever more kinds, and the report kept each one's
/// examples after the clusterer had let the kind go (a second reader's 200,000 kinds took 733 MB
/// against the clusterer's 163).
#[derive(Debug, Default)]
struct Reports {
    by_id: HashMap<u64, ClusterReport>,
    cap: usize,
    tick: u64,
    dropped: u64,
}

impl Reports {
    /// Make room for one more: past the cap, the least recently seen sixteenth goes, as the
    /// clusterer's bound drops kinds ([`crate::unknown::EVICT_FRACTION`]).
    fn make_room(&mut self) {
        if self.by_id.len() < self.cap {
            return;
        }
        self.dropped += crate::unknown::drop_least_recent(&mut self.by_id, |r| r.seen_at);
    }
}

/// What [`Discovery::catalog`] wrote.
#[derive(Debug, Default)]
pub struct Drafts {
    /// The draft records, one catalog line each.
    pub text: String,
    /// Clusters without a constant run a record could key on ([`draftable`]).
    pub skipped: usize,
    /// Clusters of lines with no text of their own ([`ClusterReport::untexted`]).
    pub untexted: usize,
    /// The ids of the drafts that say one word of their own ([`generic`]).
    pub generic: Vec<String>,
    /// Clusters whose draft matched none of their own example lines ([`unmatched`]), and one
    /// template of them.
    pub unmatched: usize,
    pub unmatched_example: Option<String>,
}

/// Collects the unknown events of a run by cluster.
struct Collector {
    reports: Arc<Mutex<Reports>>,
}

impl Writer for Collector {
    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow {
        let Some(u) = &ev.unknown else { return Flow::Go };
        let mut reports = self.reports.lock().unwrap_or_else(|e| e.into_inner());
        reports.tick += 1;
        let tick = reports.tick;
        if !reports.by_id.contains_key(&u.cluster) {
            reports.make_room();
        }
        let timestamp = (ev.timestamp != ev.observed).then(|| ev.timestamp.to_owned());
        let ms = timestamp.as_deref().and_then(crate::framing::parse::parse_timestamp);
        let seen = Seen { path: ev.source.path.map(str::to_owned), line: ev.source.line, timestamp, ms };
        let r = reports.by_id.entry(u.cluster).or_insert_with(|| ClusterReport {
            cluster: id_text(u.cluster),
            template: String::new(),
            count: 0,
            levels: BTreeSet::new(),
            targets: Vec::new(),
            target_events: HashMap::new(),
            other_target_events: 0,
            untexted: true,
            first: seen.clone(),
            last: seen.clone(),
            examples: Vec::new(),
            severity: Severity::None,
            seen_at: tick,
        });
        r.seen_at = tick;
        r.template.clear();
        r.template.push_str(u.template);
        r.count += 1;
        r.severity = r.severity.max(u.severity);
        if seen_before(seen.ms, r.first.ms) {
            r.first = seen.clone();
        }
        if seen_after(seen.ms, r.last.ms) {
            r.last = seen;
        }
        if let Some(l) = &ev.log.level {
            r.levels.insert(l.trim().to_ascii_uppercase());
        } else if ev.log.format == "panic" {
            // A panic has no level; it is an error (`--unknown error` takes it).
            r.levels.insert(PANIC.to_owned());
        }
        r.untexted &= ev.log.target.as_ref().is_some_and(|t| u.text == t.as_bytes());
        if let Some(t) = &ev.log.target {
            let kept = r.target_events.len();
            match r.target_events.get_mut(t.as_ref()) {
                Some(n) => *n += 1,
                None if kept < TARGETS_KEPT => {
                    r.target_events.insert(t.to_string(), 1);
                }
                None => r.other_target_events += 1,
            }
        }
        if r.examples.len() < EXAMPLES {
            r.examples.push(example(ev.raw, u.text));
        }
        Flow::Go
    }

    fn flush(&mut self) {}

    fn error(&self) -> Option<&std::io::Error> {
        None
    }
}

/// What a discover run has gathered: shared with the thread that reports it when the run is
/// interrupted (Ctrl-C on `kubectl logs -f … | annotail discover`), which reads it while the run
/// may still be reading.
#[derive(Clone)]
pub struct Discovery {
    reports: Arc<Mutex<Reports>>,
    shared: Shared,
    min_count: u64,
    /// The ids and slugs of the catalog the run matched with: a draft takes neither.
    taken: Arc<Mutex<(BTreeSet<String>, BTreeSet<String>)>>,
}

impl Discovery {
    pub fn new(args: &Args) -> Discovery {
        // `off` is refused on the command line (`discover_levels`); a caller of the library gets
        // the default.
        let levels = if args.unknown.is_on() { args.unknown } else { Levels::Warn };
        Discovery {
            reports: Arc::new(Mutex::new(Reports { cap: args.max_clusters.max(1), ..Reports::default() })),
            shared: Shared::new(levels, args.max_clusters),
            min_count: args.min_count,
            taken: Arc::default(),
        }
    }

    /// Cluster the unknown events of `files` (standard input when empty) into this discovery.
    pub fn run(&self, m: &Matcher, files: &[PathBuf], limits: framing::Limits) -> Result<(), source::RunError> {
        let mut cfg = source::RunConfig::collecting(files.to_vec(), limits);
        cfg.stage.emit = Emit::Matches;
        cfg.stage.every_event = self.shared.levels == Levels::Any;
        cfg.stage.unknown = Some(self.shared.clone());
        {
            let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
            for e in &m.entries {
                taken.0.insert(e.rec.id.clone());
                taken.1.extend(e.rec.slug().map(str::to_owned));
            }
        }
        source::run(m, &cfg, &mut Collector { reports: self.reports.clone() }).map(drop)
    }

    /// The draft records of `reports` as catalog lines, and how many clusters got none (see
    /// [`draftable`]). Each draft's `id` is its cluster's unless a record of the catalog the run
    /// matched with has it: a second round of `discover -c drafts.jsonl` over lines the first
    /// draft missed drafts the same cluster again, and a record of the same id in a later file
    /// replaces the earlier (`check` says "overridden"), so the reviewed draft was lost. It is then
    /// the cluster's id and `-2` (`-3`, …). A slug already taken, by the catalog or an earlier
    /// draft (two templates whose first words agree), takes the same suffix: it names the record
    /// in ECS's `rule.name` and in metrics.
    ///
    /// A cluster of lines with no text of their own (a message of punctuation alone, clustered
    /// by its target: [`ClusterReport::untexted`]) gets none either: its draft was the target's
    /// name, which every line of that target holds in its header, and added back it made an
    /// error of each of them (a second reader's `ERROR risingwave_meta::barrier::rpc: ;` took
    /// 725 INFO and DEBUG lines of the 20 MB sample as errors).
    ///
    /// Also returns the ids of the drafts [`generic`]: to be reviewed before they are added.
    pub fn catalog(&self, reports: &[ClusterReport]) -> Drafts {
        let (mut ids, mut slugs) = self.taken.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let unique = |taken: &mut BTreeSet<String>, want: String| {
            let mut got = want.clone();
            let mut n = 1;
            while taken.contains(&got) {
                n += 1;
                got = format!("{want}-{n}");
            }
            taken.insert(got.clone());
            got
        };
        let mut out = Drafts::default();
        let mut made: Vec<(&ClusterReport, String, Value)> = Vec::new();
        for r in reports {
            if r.untexted {
                out.untexted += 1;
                continue;
            }
            if !draftable(&r.template) {
                out.skipped += 1;
                continue;
            }
            let (id, slug) = (unique(&mut ids, r.cluster.clone()), unique(&mut slugs, slug_of(&r.template)));
            let d = draft(r, &id, &slug);
            made.push((r, id, d));
        }
        let lines: String = made.iter().map(|m| format!("{}\n", m.2)).collect();
        let failed = unmatched(&lines, made.iter().map(|m| (m.1.as_str(), &m.0.examples[..])));
        for (i, (r, id, d)) in made.into_iter().enumerate() {
            if failed.contains(&i) {
                out.unmatched += 1;
                out.unmatched_example.get_or_insert_with(|| r.template.clone());
                continue;
            }
            if generic(&r.template) {
                out.generic.push(id);
            }
            out.text.push_str(&d.to_string());
            out.text.push('\n');
        }
        out
    }

    /// Clusters the report dropped at its bound ([`Args::max_clusters`]) so far.
    pub fn dropped(&self) -> u64 {
        self.reports.lock().unwrap_or_else(|e| e.into_inner()).dropped
    }

    /// The clusters gathered so far, the most seen first.
    pub fn reports(&self) -> Vec<ClusterReport> {
        let mut by_id = self.reports.lock().unwrap_or_else(|e| e.into_inner()).by_id.clone();
        // The templates as they are now (a cluster's template grows as lines join it).
        let clusters = self.shared.clusters.lock().unwrap_or_else(|e| e.into_inner());
        for k in clusters.clusters() {
            if let Some(r) = by_id.get_mut(&k.id) {
                r.template.clone_from(&k.template);
            }
        }
        drop(clusters);
        for r in by_id.values_mut() {
            r.targets = r.target_events.keys().cloned().collect();
            r.targets.sort_by(|a, b| r.target_events[b].cmp(&r.target_events[a]).then_with(|| a.cmp(b)));
        }
        let mut out: Vec<ClusterReport> = by_id.into_values().filter(|r| r.count >= self.min_count).collect();
        out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.cluster.cmp(&b.cluster)));
        out
    }
}

/// An event's example: its first line as read, and, when the text that was clustered starts on
/// a later line (a `Caused by:` report's cause), that line too, after `…` when lines were left
/// out between: the first line alone showed nothing of what the cluster is about.
pub(crate) fn example(raw: &[u8], clustered: &[u8]) -> String {
    // The clustered text has no colour codes: neither may the lines it is looked for in.
    let mut plain = Vec::new();
    let raw = framing::parse::without_codes(raw, &mut plain, true);
    let first_end = memchr::memchr(b'\n', raw).unwrap_or(raw.len());
    // The clustered text's first line, as far as it is the event's own bytes (a `{:?}` string's
    // escapes are undone before clustering; such a text is not found and only the first line
    // is shown).
    let clustered_line = memchr::memchr(b'\n', clustered).unwrap_or(clustered.len());
    let probe = &clustered[..clustered_line.min(EXAMPLE_PROBE)];
    let probe_ok = !probe.trim_ascii().is_empty();
    let on_first = memchr::memmem::find(&raw[..first_end], probe).filter(|_| probe_ok);
    let mut out = example_line(&raw[..first_end], on_first.map(|at| at..at + clustered_line));
    if first_end < raw.len()
        && probe_ok
        && on_first.is_none()
        && let Some(p) = memchr::memmem::find(&raw[first_end..], probe)
    {
        let at = first_end + p;
        let start = memchr::memrchr(b'\n', &raw[..at]).map_or(0, |n| n + 1);
        let end = memchr::memchr(b'\n', &raw[at..]).map_or(raw.len(), |n| at + n);
        if start > first_end + 1 {
            out.push_str("\n…");
        }
        out.push('\n');
        out.push_str(&example_line(raw[start..end].trim_ascii_end(), Some(at - start..at - start + clustered_line)));
    }
    out
}

/// One line of an example (without its colour codes: they are how it was shown, not what it
/// says, and a report printed to a terminal would take them as its own), cut at
/// [`EXAMPLE_BYTES`], before a character the cut would split (a cut inside `é` ended the example
/// in U+FFFD: found by a developer's reading). When the clustered text (`clustered` in the line,
/// as far as its first line goes) ends past the cut, the line's start, `…` and the part around
/// that text instead: cut at the end, an event logged inside a long span or behind a long prefix
/// showed nothing of what its cluster is about, and its draft, tried on its examples, matched
/// none and was left out (found by a catalog keeper's reading; one that started before the cut
/// and ended past it, by a second reader).
fn example_line(line: &[u8], clustered: Option<std::ops::Range<usize>>) -> String {
    let boundary = |mut at: usize| {
        // A UTF-8 character is at most 4 bytes: at most 3 continuation bytes to step back over.
        for _ in 0..3 {
            if at < line.len() && at > 0 && line[at] & 0xC0 == 0x80 {
                at -= 1;
            }
        }
        at
    };
    let end = boundary(line.len().min(EXAMPLE_BYTES));
    match clustered {
        Some(c) if c.end > end && end < line.len() => {
            let head = boundary(EXAMPLE_HEAD);
            let from = boundary(c.start.saturating_sub(EXAMPLE_BEFORE));
            if from <= head {
                // Nothing to leave out before it (a `…` there stood for nothing, and cut a
                // draft's words in two: found by a third reader): the line up to its end.
                let to = boundary(line.len().min(c.end.max(end)).min(2 * EXAMPLE_BYTES));
                return crate::event::text(&line[..to]).into_owned();
            }
            let to = boundary(line.len().min(from + EXAMPLE_BYTES - head));
            let mut out = crate::event::text(&line[..head]).into_owned();
            out.push('\u{2026}');
            out.push_str(&crate::event::text(&line[from..to]));
            out
        }
        _ => crate::event::text(&line[..end]).into_owned(),
    }
}

/// A template's regex: its text escaped, `(.+?)` for each `<*>`.
pub fn pattern_of(template: &str) -> String {
    let parts: Vec<String> = template.split(std::str::from_utf8(VAR).expect("ASCII")).map(regex::escape).collect();
    parts.join("(.+?)")
}

/// A draft's `errorMessage` and `messagePattern`: the template with the blanks its lines had.
/// The tokenizer joins a template's tokens with one blank, so a pattern made from it would miss
/// lines with two (PostgreSQL's `HINT:  Perhaps …`) or a tab between constant words. The
/// examples that match the template with any run of blanks between its words say how each run
/// was written: as they all wrote it, or `[ \t]+` in the pattern where they differ (`queue  full`
/// and `queue full`), so that the draft matches each of them; the message is written as the
/// first; a JSON line is read decoded, its strings as the matcher reads them. Without such an
/// example (one cut short), the template as it is. Beside a variable a run of blanks keeps one, the one next to the
/// word: the rest may be the value's padding (`partition  14`, `partition 114`), which the
/// variable's lazy group takes in.
pub fn draft_forms(template: &str, examples: &[String]) -> (String, String) {
    let var = std::str::from_utf8(VAR).expect("ASCII");
    let plain = || (message_of(template), pattern_of(template));
    if !template.contains(' ') {
        return plain();
    }
    let parts: Vec<&str> = template.split(var).collect();
    let loose = |p: &str| p.split(' ').map(regex::escape).collect::<Vec<_>>().join(r"[ \t]+");
    // A variable takes a quoted string whole when it can (a lazy `.+?` ended `"AudioMix.Lock".` at
    // its first `.`, where the text after the variable starts).
    let value = r#"(?:"[^"]*"|'[^']*'|.+?)"#;
    let Ok(re) = regex::Regex::new(&parts.iter().map(|p| format!("({})", loose(p))).collect::<Vec<_>>().join(value))
    else {
        return plain();
    };
    let last = parts.len() - 1;
    // A JSON line's strings as the matcher reads them, decoded (a tab is `\t` in the line): the
    // blanks of its message are looked for there.
    let decoded: Vec<String> = examples.iter().flat_map(|e| json_strings(e)).collect();
    // Each matching example's parts, as runs of blanks and of other characters.
    let matched: Vec<(&str, regex::Captures<'_>)> =
        examples.iter().chain(&decoded).filter_map(|e| Some((e.as_str(), re.captures(e)?))).collect();
    let seen: Vec<Vec<Vec<&str>>> = matched
        .iter()
        .map(|(_, c)| {
            (0..=last)
                .map(|i| runs(beside_variables(c.get(i + 1).map_or("", |m| m.as_str()), i > 0, i < last)))
                .collect()
        })
        .collect();
    let Some(first) = seen.first() else {
        return plain();
    };
    // The key each variable's value starts with in every example (`rhost=<*>` that the
    // clusterer made `<*>` when its lines' values differed), with the blanks before it: it goes
    // into the draft, whose match may then run across that field (see `value_key`). The blanks
    // as every example has them: the matcher's field starts at the blank next to the key, so the
    // record's text must hold that blank and the key together, and padding the variable's lazy
    // group took in before has nowhere to go but here. Examples that differ get no key.
    // Variable `i` of an example: the constant part before it, and its value. The last variable
    // of a template that ends in one runs to the line's end (the lazy `.+?` of the search took
    // one character).
    let ends_in_variable = parts[last].is_empty();
    fn variable<'e>(e: &'e str, c: &regex::Captures<'e>, i: usize, to_end: bool) -> Option<(&'e str, &'e str)> {
        let part = c.get(i + 1)?;
        let b = if to_end { e.len() } else { c.get(i + 2)?.start() };
        Some((part.as_str(), e.get(part.end()..b)?))
    }
    let variable = |e, c, i: usize| variable(e, c, i, i + 1 == last && ends_in_variable);
    let keyed: Vec<Option<(&str, &str)>> = (0..last)
        .map(|i| {
            let mut found = matched.iter().map(|(e, c)| {
                let (part, value) = variable(e, c, i)?;
                let pad = &part[part.trim_end_matches(BLANKS).len()..];
                // A key with no value in some lines (`rhost=` of a failure from the console):
                // named all the same, so that the draft matches the lines where it has one.
                match value_key(value) {
                    Some(k) => Some((pad, k, true)),
                    None => Some((pad, empty_key(value)?, false)),
                }
            });
            let (pad, key, mut valued) = found.next()??;
            for f in found {
                let (p, k, v) = f?;
                if (p, k) != (pad, key) {
                    return None;
                }
                valued |= v;
            }
            valued.then_some((pad, key))
        })
        .collect();
    // A template that ends in a variable whose values start with keys that differ from line to
    // line (`subId=<*> <*>` of `subId=1 phoneId=1` and `subId=1 retVal=true`): no key can be
    // named, and the match could not run across the field, so the draft matched none of its
    // lines (found by a reader of the docs). It ends before that variable: the fields after
    // its text are the line's own.
    let last_keys: BTreeSet<Option<&str>> = if ends_in_variable && last >= 1 && keyed[last - 1].is_none() {
        matched.iter().filter_map(|(e, c)| variable(e, c, last - 1)).map(|(_, v)| value_key(v)).collect()
    } else {
        BTreeSet::new()
    };
    if last_keys.len() > 1 && last_keys.iter().any(Option::is_some) {
        let shorter = template[..template.len() - var.len()].trim_end_matches(BLANKS);
        if draftable(shorter) {
            return draft_forms(shorter, examples);
        }
    }
    // A part followed by a named key: its trailing blanks are the examples', then the key.
    let with_key = |i: usize, s: String, key: fn(&str) -> String| match keyed.get(i).copied().flatten() {
        Some((pad, k)) => s.trim_end_matches(BLANKS).to_owned() + pad + &key(k),
        None => s,
    };
    // The ` key=` fields inside a variable's value, the same in every example (`Win{a1 token=b2}`,
    // Android's `{act=… flg=…}`): named in the draft between variables, as a value's leading key
    // is, or its match would stop at the first of them and the draft match none of its lines.
    // Only a variable between two constants: one that starts or ends the template runs, in the
    // examples, over the line's header or over the `key=value` fields after its message.
    let inner: Vec<Vec<&str>> = (0..last)
        .map(|i| {
            if keyed[i].is_some() || parts[i].trim().is_empty() || parts[i + 1].trim().is_empty() {
                return Vec::new();
            }
            let mut found = matched.iter().map(|(e, c)| {
                let (_, v) = variable(e, c, i)?;
                let mut starts = Vec::new();
                crate::framing::parse::field_starts(v.as_bytes(), &mut starts);
                // A value that starts with its field leaves its variable nothing before it.
                starts.iter().map(|&at| (at > 0).then(|| Some(&v[at..=at + v[at..].find('=')?])).flatten()).collect()
            });
            let first: Vec<&str> = found.next().flatten().unwrap_or_default();
            if found.all(|k| k.as_ref() == Some(&first)) { first } else { Vec::new() }
        })
        .collect();
    // The quote each variable's value is written in, in every example (`blocker "AudioMix.Lock".`),
    // when the text after the variable is found inside a value: the quotes go into the draft's
    // text around the variable, whose lazy group would otherwise stop there (at the `.`). Only
    // then: the examples are a few of the cluster's lines, and a quote they all have may be
    // missing from others (`blocker none held too long`). A JSON line is judged by its decoded
    // strings (its raw value starts with `\"`).
    let raw_json: Vec<&str> = examples.iter().map(String::as_str).filter(|e| !json_strings(e).is_empty()).collect();
    let read: Vec<&(&str, regex::Captures<'_>)> = matched.iter().filter(|(e, _)| !raw_json.contains(e)).collect();
    let quoted: Vec<&str> = (0..last)
        .map(|i| {
            let after = first.get(i + 1).map(|p| p.concat()).unwrap_or_default();
            if keyed[i].is_some() || !inner[i].is_empty() || after.is_empty() {
                return "";
            }
            let mut needed = false;
            let mut found = read.iter().map(|(e, c)| {
                let (_, v) = variable(e, c, i)?;
                let q = ["\"", "'"].into_iter().find(|q| v.starts_with(q))?;
                let body = v.strip_prefix(q)?.strip_suffix(q)?;
                needed |= body.contains(after.as_str());
                (!body.is_empty() && !body.contains(q)).then_some(q)
            });
            let Some(Some(first)) = found.next() else { return "" };
            if found.all(|q| q == Some(first)) && needed { first } else { "" }
        })
        .collect();
    let mut joined = String::new();
    for (i, p) in first.iter().enumerate() {
        joined.push_str(&with_key(i, p.concat(), str::to_owned));
        if i < last {
            joined.push_str(quoted[i]);
            joined.push_str(var);
            joined.push_str(quoted[i]);
            for k in &inner[i] {
                joined.push_str(k);
                joined.push_str(var);
            }
        }
    }
    // A template that ends at a key whose value is empty in every example (`ruser= rhost=`): the
    // clustered text stops before the `=`, but a match may not run into a ` key=` field its
    // record does not name with its `=`, so the draft matched none of its lines.
    let empty_last_key = !ends_in_variable
        && !read.is_empty()
        && read.iter().all(|(e, c)| {
            c.get(last + 1).is_some_and(|m| {
                let rest = &e[m.end()..];
                rest.starts_with('=') && (rest.len() == 1 || rest[1..].starts_with(BLANKS))
            })
        });
    if empty_last_key {
        joined.push('=');
    }
    let message = message_of(&joined);
    let mut pattern = (0..=last)
        .map(|i| {
            let versions: Vec<&Vec<&str>> = seen.iter().map(|s| &s[i]).collect();
            let p = if versions.iter().any(|v| v.len() != first[i].len()) {
                loose(parts[i])
            } else {
                (0..first[i].len())
                    .map(|j| {
                        let run = first[i][j];
                        if versions.iter().all(|v| v[j] == run) {
                            regex::escape(run)
                        } else if run.starts_with(BLANKS) {
                            r"[ \t]+".to_owned()
                        } else {
                            // The words are the template's in every example: only blanks differ.
                            regex::escape(run)
                        }
                    })
                    .collect::<String>()
            };
            let mut p = with_key(i, p, regex::escape);
            if i < last {
                p.push_str(quoted[i]);
                p.push_str("(.+?)");
                p.push_str(quoted[i]);
                for k in &inner[i] {
                    p.push_str(&regex::escape(k));
                    p.push_str("(.+?)");
                }
            }
            p
        })
        .collect::<String>();
    if empty_last_key {
        pattern.push('=');
    }
    (message, pattern)
}

/// The `key=` a variable's value starts with, when a value follows it on the same word: the
/// matcher lets a match run across a ` key=` field only when the record's own text has that
/// key, so a draft whose variable takes in `rhost=…` of `ruser= rhost=… user=root` must
/// name the key to match its own lines.
fn value_key(v: &str) -> Option<&str> {
    let eq = v.find('=')?;
    let rest = &v[eq + 1..];
    (is_key(&v[..eq]) && !rest.is_empty() && !rest.starts_with([' ', '\t', '='])).then_some(&v[..=eq])
}

/// The key of a value that is a key alone (`rhost=`, its value empty on this line).
fn empty_key(v: &str) -> Option<&str> {
    is_key(v.strip_suffix('=')?).then_some(v)
}

/// A key as the matcher reads a field's (`framing::parse::field_starts`): `x-peer=` is no field
/// to it, and needs no naming.
fn is_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '#'))
}

/// `s` as its runs of blanks and of other characters, in order.
fn runs(s: &str) -> Vec<&str> {
    let blank = |c: char| c == ' ' || c == '\t';
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev = None;
    for (i, c) in s.char_indices() {
        if prev.is_some_and(|p| p != blank(c)) {
            out.push(&s[start..i]);
            start = i;
        }
        prev = Some(blank(c));
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// A constant part as seen, its runs of blanks next to a variable (after one: `after`, before
/// one: `before`) cut to the blank next to its word.
fn beside_variables(part: &str, after: bool, before: bool) -> &str {
    let blank = |c: char| c == ' ' || c == '\t';
    let core = part.trim_matches(blank);
    if core.is_empty() {
        // Only blanks, between two variables.
        return &part[..part.len().min(1)];
    }
    let lead = part.len() - part.trim_start_matches(blank).len();
    let trail = part.len() - part.trim_end_matches(blank).len();
    let start = if after && lead > 0 { lead - 1 } else { 0 };
    let end = if before && trail > 0 { part.len() - trail + 1 } else { part.len() };
    &part[start..end]
}

/// The strings of an example that is a JSON object (behind whatever prefix its line has): none
/// for another line, or one cut short.
fn json_strings(example: &str) -> Vec<String> {
    fn walk(v: Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s),
            Value::Array(a) => a.into_iter().for_each(|v| walk(v, out)),
            Value::Object(o) => o.into_iter().for_each(|(_, v)| walk(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(at) = example.find('{')
        && let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(example[at..].trim_end())
    {
        walk(v, &mut out);
    }
    out
}

/// The template with each run of U+FFFD (bytes that were not UTF-8, replaced when the template
/// was rendered) made a variable: written into a draft, the character matched only itself, never
/// the bytes it stood for, and the draft none of its own lines.
fn valid_template(template: &str) -> std::borrow::Cow<'_, str> {
    if !template.contains('\u{FFFD}') {
        return template.into();
    }
    let var = std::str::from_utf8(VAR).expect("ASCII");
    let mut out = String::with_capacity(template.len());
    let mut in_run = false;
    for c in template.chars() {
        if c == '\u{FFFD}' {
            if !in_run {
                out.push_str(var);
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out.into()
}

/// A template as a catalog `errorMessage`: `{}` for each `<*>`.
pub fn message_of(template: &str) -> String {
    template.replace("{", "{{").replace("}", "}}").replace(std::str::from_utf8(VAR).expect("ASCII"), "{}")
}

/// Lower-case words of the template's constant part joined by `-`, at most 50 characters (the
/// catalog's slugs look the same). Words in ASCII only: a word of a Latin script with an accent
/// in it is left out whole (`état du puits` is `du-puits`, `e\u{301}tat` too), where its ASCII
/// letters alone made a word of their own (`tat-du-puits`: found by a catalog keeper's
/// reading); in a script written without blanks, the ASCII names in it are its words
/// (`连接kafka失败` is `kafka`).
pub fn slug_of(template: &str) -> String {
    // Latin-1's and Latin Extended's letters, and the combining accents (U+0300 to U+036F).
    let accented = |c: char| matches!(c, '\u{c0}'..='\u{24f}' | '\u{300}'..='\u{36f}' | '\u{1e00}'..='\u{1eff}');
    let mut slug = String::new();
    let words = template
        .split(|c: char| !(c.is_alphanumeric() || accented(c)))
        .filter(|w| !w.chars().any(accented))
        .flat_map(|w| w.split(|c: char| !c.is_ascii_alphanumeric()))
        .filter(|w| !w.is_empty());
    for word in words {
        if slug.len() + word.len() + 1 > 50 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&word.to_ascii_lowercase());
    }
    if slug.is_empty() { "unknown-error".into() } else { slug }
}

/// Which of `drafts` (the draft records, one catalog line each, in `wanted`'s order) match none
/// of their own example lines, run through the pipeline as `annotail -c drafts.jsonl` would run
/// them (the drafts alone: a catalog record matching the line too only adds to them)? Such a
/// draft is left out: the values of a kind whose lines name other `key=` fields inside a value
/// (Android's `START u0 {act=main flg=0x10 cmp=…} from uid …`) end where a field starts, and its
/// draft matched none of its lines while `check` passed it (found by a reader of the
/// clusterer). An example's lines are its event's first line and the clustered text's line.
fn unmatched<'a>(drafts: &str, wanted: impl Iterator<Item = (&'a str, &'a [String])>) -> BTreeSet<usize> {
    use crate::annotate::SourceMeta;
    use crate::stage::{Setup, Stage};
    let (m, _) = Matcher::new(crate::catalog::from_text("drafts", drafts), crate::matcher::Limits::default());
    let mut failed = BTreeSet::new();
    for (i, (id, examples)) in wanted.enumerate() {
        let Some(entry) = m.entries.iter().position(|e| e.rec.id == id) else {
            failed.insert(i);
            continue;
        };
        let matched = examples.iter().any(|ex| {
            let lines: String = ex.lines().filter(|l| *l != "…").map(|l| format!("{l}\n")).collect();
            let mut hit = Hit { entry: entry as u32, found: false };
            {
                let mut stage = Stage::new(&m, &Setup::every_event(), &mut hit, SourceMeta::stdin());
                stage.feed(lines.as_bytes(), std::time::SystemTime::now());
                stage.finish();
            }
            hit.found
        });
        if !matched {
            failed.insert(i);
        }
    }
    failed
}

/// Was a record (`entry`) among an event's matches?
struct Hit {
    entry: u32,
    found: bool,
}

impl Writer for Hit {
    fn annotated(&mut self, ev: &Annotated<'_>) -> Flow {
        self.found |= ev.found.iter().any(|f| f.entry == self.entry);
        Flow::Go
    }

    fn flush(&mut self) {}

    fn error(&self) -> Option<&std::io::Error> {
        None
    }
}

/// Can a draft be made of this template? It needs a constant run the prefilter can key on
/// (a record without one is tried on every event), and must not match everything.
pub fn draftable(template: &str) -> bool {
    template
        .split(std::str::from_utf8(VAR).expect("ASCII"))
        .any(|lit| lit.trim().chars().filter(|c| c.is_alphanumeric()).count() >= 4)
}

/// Does a draft of this template say little of its own: one word of three letters or more
/// outside its variables (`{} failed`, `LOOKING`)? Such a record matches lines
/// of other errors too (found by a second reader: a `{} failed` draft, made of one line whose
/// backticked name was masked, matched 81 events of the sample log, 31 of them only by it), so
/// its draft says so (`discovered.generic`) and `discover` names it on standard error.
pub fn generic(template: &str) -> bool {
    template
        .split(std::str::from_utf8(VAR).expect("ASCII"))
        .flat_map(|lit| lit.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 3)
        .take(2)
        .count()
        < 2
}

/// `pattern` with a word boundary (`\b`) at each end of it where the message starts or ends
/// with a word's character: a draft's text is a first link, which its lines end at `: `, a
/// field or the line's end, and without the boundary it matched inside longer words of other
/// errors (`Invalid time` in `Invalid timestamp value 5`, `timed out` in `timed outright`),
/// took their events as explained and left their rests to cluster (found by a catalog
/// keeper's reading). A message that starts or ends with a variable (`{}`), a key's `=` or a
/// quote has none there: those are no word characters.
fn word_bounded(message: &str, pattern: String) -> String {
    // The regex's own word characters (`²` and `½` are no `\w`: a boundary after one never
    // held, and the draft matched none of its lines; found by a second reader).
    let word = |c: Option<char>| c.is_some_and(|c| regex_syntax::try_is_word_character(c).unwrap_or(false));
    let bound = |c: Option<char>| if word(c) { r"\b" } else { "" };
    format!("{}{pattern}{}", bound(message.chars().next()), bound(message.chars().next_back()))
}

/// The draft record of a cluster, in the catalog's layout (`{"record": {...}, ...}`), under `id`
/// and `slug` ([`Discovery::catalog`] chooses them).
pub fn draft(r: &ClusterReport, id: &str, slug: &str) -> Value {
    let severity = match r.severity {
        Severity::Error | Severity::Critical => "error",
        Severity::Warning => "warning",
        _ => "info",
    };
    let mut tags: Vec<String> = vec!["draft".into(), "discovered".into()];
    // The busiest targets: where the error is logged from most.
    tags.extend(r.targets.iter().take(TARGETS_SHOWN).cloned());
    let (message, pattern) = draft_forms(&valid_template(&r.template), &r.examples);
    let pattern = word_bounded(&message, pattern);
    json!({
        "record": {
            "id": id,
            "slug": slug,
            "errorMessage": message,
            "messagePattern": pattern,
            "severity": severity,
            "tags": tags,
        },
        "discovered": {
            "cluster": r.cluster,
            "template": r.template,
            "count": r.count,
            "levels": r.levels,
            "targets": r.targets,
            "first": r.first,
            "last": r.last,
            "examples": r.examples,
            "generic": generic(&r.template),
            "other_target_events": r.other_target_events,
        }
    })
}

/// A report's targets for a person: the busiest [`TARGETS_SHOWN`] with their events, and how
/// many more there are.
fn targets_line(r: &ClusterReport) -> String {
    if r.targets.is_empty() {
        return "-".to_owned();
    }
    let shown: Vec<String> =
        r.targets.iter().take(TARGETS_SHOWN).map(|t| format!("{t} ({})", r.target_events[t])).collect();
    let more = r.targets.len().saturating_sub(TARGETS_SHOWN);
    let others = if r.other_target_events > 0 {
        format!(" (and {} event(s) from targets past the first {TARGETS_KEPT})", r.other_target_events)
    } else {
        String::new()
    };
    if more > 0 { format!("{} and {more} more{others}", shown.join(", ")) } else { shown.join(", ") }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The text report.
pub fn text(reports: &[ClusterReport]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let total: u64 = reports.iter().map(|r| r.count).sum();
    let _ = writeln!(out, "{} unknown event(s) in {} cluster(s)", total, reports.len());
    for r in reports {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}×  cluster {}  {}", r.count, r.cluster, visible(&r.template));
        let levels =
            if r.levels.is_empty() { "-".to_owned() } else { r.levels.iter().cloned().collect::<Vec<_>>().join(", ") };
        let _ = writeln!(out, "    levels: {levels}   targets: {}", targets_line(r));
        let at = |s: &Seen| {
            let when = s.timestamp.as_ref().map_or(String::new(), |t| format!(" ({t})"));
            match &s.path {
                Some(p) => format!("{p}:{}{when}", s.line),
                None => format!("line {}{when}", s.line),
            }
        };
        let _ = writeln!(out, "    first: {}   last: {}", at(&r.first), at(&r.last));
        for e in &r.examples {
            // An example's later line (its cause) is shown under it.
            for (i, line) in e.split('\n').enumerate() {
                let _ = writeln!(out, "    {} {}", if i == 0 { '|' } else { ':' }, visible(line));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{draft_forms, draftable, example, example_line, generic, message_of, pattern_of, slug_of, visible};

    #[test]
    fn regression_control_characters_reach_the_terminal_as_escapes() {
        assert_eq!(visible("plain\ttext"), "plain\ttext");
        assert_eq!(visible("evil\r\x07\x1b]0;PWNED\x07 x\u{85}"), "evil\\u{d}\\u{7}\\u{1b}]0;PWNED\\u{7} x\\u{85}");
    }

    #[test]
    fn examples_show_the_line_the_clustered_text_starts_on() {
        // (event as read, text clustered, example)
        let cases: &[(&[u8], &[u8], &str)] = &[
            (b"a: disk full", b"disk full", "a: disk full"),
            (b"a: x\n  disk full", b"disk full", "a: x\n  disk full"),
            (b"a: x\n\nCaused by:\n    disk full\n", b"disk full", "a: x\n\u{2026}\n    disk full"),
            // On the first line too: that line alone.
            (b"a: disk full\n  disk full", b"disk full", "a: disk full"),
            // Not among the event's bytes (escapes undone), or nothing to look for.
            (b"a: \"x\\ny\"\n  z", b"x\ny", "a: \"x\\ny\""),
            (b"a\n  b", b"  ", "a"),
            // Colour codes out, the later line cut like the first.
            (b"\x1b[31ma\x1b[0m\n\x1b[2m  disk full\x1b[0m", b"disk full", "a\n  disk full"),
            (b"a\n  disk \x1b[1mfull\x1b[0m x", b"disk full x", "a\n  disk full x"),
        ];
        for &(raw, clustered, want) in cases {
            assert_eq!(example(raw, clustered), want, "{:?}", String::from_utf8_lossy(raw));
        }
        let long = format!("a\n{}disk full", "x".repeat(2000));
        let around = format!("a\n{}\u{2026}{}disk full", "x".repeat(300), "x".repeat(200));
        assert_eq!(example(long.as_bytes(), b"disk full"), around);
        // On the first line, past the cut: its start and the part around the clustered text.
        let long = format!("{}disk full{}", "y".repeat(1500), "z".repeat(2000));
        let around = format!("{}\u{2026}{}disk full{}", "y".repeat(300), "y".repeat(200), "z".repeat(491));
        assert_eq!(example(long.as_bytes(), b"disk full"), around);
        let short = format!("{}disk full{}", "y".repeat(100), "z".repeat(2000));
        assert_eq!(example(short.as_bytes(), b"disk full"), short[..1000]);
        // Starting before the cut and ending past it (a second reader's): around it too; from
        // near the start, the line up to its end, with no `…` for nothing left out (a third's).
        let across = format!("{}{}", "y".repeat(900), "w".repeat(200));
        let around = format!("{}\u{2026}{}{}", "y".repeat(300), "y".repeat(200), "w".repeat(200));
        assert_eq!(example(across.as_bytes(), &across.as_bytes()[900..]), around);
        let early = format!("{}{}{}", "y".repeat(400), "w".repeat(700), "z".repeat(3000));
        assert_eq!(example(early.as_bytes(), &early.as_bytes()[400..1100]), early[..1100]);
        // Not inside a character: 999 bytes and `é` (two) are cut before the `é`, with no U+FFFD.
        let accented = format!("{}{}", "x".repeat(999), "é".repeat(10));
        assert_eq!(example_line(accented.as_bytes(), None), "x".repeat(999));
        let cjk = format!("{}{}", "x".repeat(998), "错".repeat(10));
        assert_eq!(example_line(cjk.as_bytes(), None), "x".repeat(998));
    }

    #[test]
    fn drafts_keep_the_blanks_their_examples_had() {
        // (template, examples, errorMessage, messagePattern)
        let cases: &[(&str, &[&str], &str, &str)] = &[
            (
                "HINT: Perhaps <*>",
                &["2026-03-02T08:00:00Z ERROR x: HINT:  Perhaps t.a"],
                "HINT:  Perhaps {}",
                "HINT:  Perhaps (.+?)",
            ),
            ("lag on node <*> high", &["lag\ton node 3   high"], "lag\ton node {} high", "lag\ton node (.+?) high"),
            ("a b", &["a b"], "a b", "a b"),
            // A last variable whose values start with keys that differ: the draft ends before it
            // (it could name no key, and matched none of its lines).
            (
                "getDataEnabled: subId=<*> <*>",
                &["getDataEnabled: subId=1 phoneId=1", "getDataEnabled: subId=1 retVal=true"],
                "getDataEnabled: subId={}",
                "getDataEnabled: subId=(.+?)",
            ),
            // The first example that has the template's words writes the message.
            ("a b <*>", &["zz", "a  b 1", "a  b 2"], "a  b {}", "a  b (.+?)"),
            // Examples that differ: any run of blanks there, the rest as written.
            (
                "queue full on node <*>",
                &["queue  full on node 1", "queue full on node 2", "queue\tfull on node 3"],
                "queue  full on node {}",
                r"queue[ \t]+full on node (.+?)",
            ),
            // None has them (an example cut short): the template.
            ("a b <*>", &["c d e"], "a b {}", "a b (.+?)"),
            // A JSON line's message is read decoded (its escapes are not the message's).
            ("say \"a b\" <*>", &[r#"{"message":"say \"a  b\" 1"}"#], "say \"a  b\" {}", "say \"a  b\" (.+?)"),
            ("tab words <*>", &[r#"{"message":"tab\twords 1"}"#], "tab\twords {}", "tab\twords (.+?)"),
            ("<*>", &["x"], "{}", "(.+?)"),
            // ` key=` fields inside a value, the same in every example, are named (a match does
            // not run across a field its record does not name: regression, found by a second
            // reader on loghub's Android set).
            (
                "Skipping <*> -- going to hide",
                &["Skipping Win{a1 token=b2} -- going to hide", "Skipping Win{c3 token=d4} -- going to hide"],
                "Skipping {} token={} -- going to hide",
                r"Skipping (.+?) token=(.+?) \-\- going to hide",
            ),
            ("got <*> now", &["got Win{a1 token=b2} now", "got Win{c3 other=d4} now"], "got {} now", "got (.+?) now"),
            // At the template's end a variable runs over the line's fields: none is named.
            ("got <*>", &["got 7 actor_id=1 worker_id=2", "got 8 actor_id=3 worker_id=4"], "got {}", "got (.+?)"),
            // Beside a variable, one blank: the rest may be its padding.
            ("<*> (x+) <*>", &["1 (x+)  2"], "{} (x+) {}", r"(.+?) \(x\+\) (.+?)"),
            ("partition <*> at <*>", &["partition  14 at\t\tx"], "partition {} at\t{}", "partition (.+?) at\t(.+?)"),
            ("<*> <*> z", &["1\t2  z"], "{}\t{} z", "(.+?)\t(.+?) z"),
            // A variable whose value starts with the same key in every example names the key.
            (
                "ruser= <*> <*>",
                &["ruser= rhost=a.b  user=root", "ruser= rhost=c  user=guest"],
                "ruser= rhost={}  user={}",
                "ruser= rhost=(.+?)  user=(.+?)",
            ),
            // Not when an example's value has another key, or none, or no value after it.
            ("at <*> now", &["at x=1 now", "at y=2 now"], "at {} now", "at (.+?) now"),
            ("at <*> now", &["at x=1 now", "at 2 now"], "at {} now", "at (.+?) now"),
            ("at <*> now", &["at x= now"], "at {} now", "at (.+?) now"),
            ("at <*>", &["at 1=2"], "at {}", "at (.+?)"),
            // The blanks before a named key as every example had them (the lazy group took that
            // padding in before); examples that differ there get no key.
            ("ruser= <*>", &["ruser=  rhost=a", "ruser=  rhost=b"], "ruser=  rhost={}", "ruser=  rhost=(.+?)"),
            ("ruser= <*>", &["ruser=  rhost=a", "ruser= rhost=b"], "ruser= {}", "ruser= (.+?)"),
            // Keys as the matcher reads fields: `#` in one, and `x-peer=` is none.
            ("at <*> now", &["at r#p=1 now"], "at r#p={} now", "at r\\#p=(.+?) now"),
            ("conn <*> after", &["conn  x-peer=h after"], "conn {} after", "conn (.+?) after"),
        ];
        for &(t, examples, message, pattern) in cases {
            let examples: Vec<String> = examples.iter().map(|e| e.to_string()).collect();
            assert_eq!(draft_forms(t, &examples), (message.to_owned(), pattern.to_owned()), "{t:?}");
            // The pattern matches every example that has the template's words.
            let re = regex::Regex::new(pattern).unwrap();
            let words: Vec<&str> = t.split_whitespace().filter(|w| !w.contains("<*>")).collect();
            for e in &examples {
                let has_words = words.iter().all(|w| e.contains(w)) && !e.contains('\\');
                assert_eq!(re.is_match(e), has_words, "{t:?} on {e:?}");
            }
        }
    }

    #[test]
    fn drafts_of_templates() {
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "failed to connect to <*>:<*> (os error <*>)",
                r"failed to connect to (.+?):(.+?) \(os error (.+?)\)",
                "failed to connect to {}:{} (os error {})",
                "failed-to-connect-to-os-error",
            ),
            ("got Status <*> from {peer}", r"got Status (.+?) from \{peer\}", "got Status {} from {{peer}}", "got-status-from-peer"),
            ("Local: Timed out", "Local: Timed out", "Local: Timed out", "local-timed-out"),
            ("état du puits <*> invalide", "état du puits (.+?) invalide", "état du puits {} invalide", "du-puits-invalide"),
            ("连接 失败", "连接 失败", "连接 失败", "unknown-error"),
            ("连接kafka失败: <*> 超时", "连接kafka失败: (.+?) 超时", "连接kafka失败: {} 超时", "kafka"),
            ("e\u{301}tat du puits", "e\u{301}tat du puits", "e\u{301}tat du puits", "du-puits"),
        ];
        for (t, p, m, s) in cases {
            assert_eq!(pattern_of(t), *p, "{t}");
            assert_eq!(message_of(t), *m, "{t}");
            assert_eq!(slug_of(t), *s, "{t}");
            assert!(regex::Regex::new(&pattern_of(t)).is_ok());
        }
        assert!(!draftable("<*> <*>: <*>"));
        assert!(!draftable("<*> ab <*>"));
        assert!(draftable("<*> early eof"));
        // regression (found by a second reader): drafts that say one word of their own are
        // marked for review
        assert!(generic("<*> failed") && generic("LOOKING") && generic("<*> in <*>: <*>"));
        assert!(!generic("<*> early eof") && !generic("status: Unavailable, message") && !generic("sink <*> failed"));
    }
}
