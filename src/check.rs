//! `annotail check` and `annotail explain`: catalog validation and a look inside one match.
//!
//! `check` loads the catalogs, compiles every record's regexes now (the daemon compiles them on
//! first use) and reports every problem with file, line and record id. `explain` runs one event
//! through the same stages as the daemon and prints, first, what a person wants to know (the
//! record, its documentation and solutions, the captured values, the code it comes from, the
//! other matches) and, with `--trace`, what each stage saw.

use std::fmt::Write as _;

use crate::annotate::SourceMeta;
use crate::stage::{Setup, Stage};
use crate::catalog::{Level, Problem, ProblemKind};
use crate::event::{Format, OutWriter};
use crate::framing::parse;
use crate::matcher::{Matcher, Scratch};

/// Lines that no real error pattern should match: a pattern that matches most of them would
/// annotate almost every line.
const PROBES: &[&str] = &[
    "2026-03-02T08:00:00.011660911Z  INFO risingwave_meta_node::server: starting leader services",
    "2026-03-02T08:00:00.503770346Z DEBUG risingwave_meta::barrier::backfill_order_control: initialize backfill order state from recovery backfill_orders=person_src",
    "hello world",
    "a",
];

/// Compile every entry and probe the ones without a literal; returns the problems found and the
/// entries whose regex does not compile (they never match: not usable, for `check`'s counts).
pub fn compile_all(m: &Matcher) -> (Vec<Problem>, Vec<usize>) {
    let mut out = Vec::new();
    let mut broken = Vec::new();
    for (i, e) in m.entries.iter().enumerate() {
        if let Err(err) = e.compile_now() {
            broken.push(i);
            let kind = match err {
                regex::Error::CompiledTooBig(_) => ProblemKind::RegexTooBig,
                _ => ProblemKind::InvalidRegex,
            };
            let msg = err.to_string();
            out.push(Problem::new(
                Level::Error,
                &e.rec.origin,
                Some(&e.rec.id),
                kind,
                format!("regex does not compile: {}", msg.split_whitespace().collect::<Vec<_>>().join(" ")),
            ));
            continue;
        }
        if e.key.is_none()
            && let Some(re) = e.regex()
        {
            let hits = PROBES.iter().filter(|p| re.is_match(p.as_bytes())).count();
            if hits * 2 >= PROBES.len() {
                out.push(Problem::new(
                    Level::Error,
                    &e.rec.origin,
                    Some(&e.rec.id),
                    ProblemKind::MatchesAnyLine,
                    format!(
                        "pattern matches {hits} of {} ordinary probe lines: it would match almost any line",
                        PROBES.len()
                    ),
                ));
            }
        }
    }
    (out, broken)
}

/// How the records' positional placeholders (`{}`, `{:?}`, `{0}`) are named: from the format
/// call's arguments in `sourceCode`, or kept as `_N`.
#[derive(Debug, Default, serde::Serialize)]
pub struct PositionalNames {
    /// Records whose template has positional placeholders.
    pub records: usize,
    pub placeholders: usize,
    /// Placeholders named from the source code.
    pub named: usize,
    /// Placeholders kept as `_N`.
    pub kept: usize,
    /// Each record that keeps some `_N`: its id, where it is, and which.
    pub kept_in: Vec<KeptPositional>,
}

#[derive(Debug, serde::Serialize)]
pub struct KeptPositional {
    pub id: String,
    pub file: String,
    pub line: usize,
    pub kept: Vec<String>,
}

/// Count, per record, the positional placeholders named from the source code and those kept.
pub fn positional_names(m: &Matcher) -> PositionalNames {
    let mut out = PositionalNames::default();
    for e in &m.entries {
        let positional: Vec<usize> = e
            .names
            .iter()
            .enumerate()
            .filter(|(_, n)| n.starts_with('_') && n[1..].bytes().all(|b| b.is_ascii_digit()))
            .map(|(i, _)| i)
            .collect();
        if positional.is_empty() {
            continue;
        }
        out.records += 1;
        out.placeholders += positional.len();
        let mut kept = Vec::new();
        for &i in &positional {
            match e.named.as_ref().map(|n| &n[i]).filter(|n| **n != e.names[i]) {
                Some(_) => out.named += 1,
                None => kept.push(e.names[i].clone()),
            }
        }
        out.kept += kept.len();
        if !kept.is_empty() {
            out.kept_in.push(KeptPositional {
                id: e.rec.id.clone(),
                file: e.rec.origin.file.clone(),
                line: e.rec.origin.line,
                kept,
            });
        }
    }
    out
}

/// Render `explain` for one event text; `trace` adds the matcher's trace.
pub fn explain(m: &Matcher, line: &str, trace: bool) -> String {
    let (json, events) = run_one(m, line);
    let width = crate::event::terminal_width();
    let mut o = String::new();
    let mut any = false;
    for ev in &events {
        let Some(mt) = ev.get("match").filter(|x| !x.is_null()) else { continue };
        any = true;
        describe(&mut o, m, ev, mt, width);
    }
    if !any {
        let ctx: Vec<&str> = events
            .iter()
            .flat_map(|e| e.get("context").and_then(|c| c.as_array()).into_iter().flatten())
            .filter_map(|c| c.get("slug").or_else(|| c.get("id")).and_then(|v| v.as_str()))
            .collect();
        if ctx.is_empty() {
            let _ = writeln!(o, "no known error matched");
        } else {
            let _ = writeln!(
                o,
                "no known error reported: {} matched only inside a span field of a line below WARN (context, not this line's error)",
                ctx.join(", ")
            );
        }
        if !trace {
            let _ = writeln!(o, "(--trace shows the layout, the literals found and the candidates tried)");
        }
    }
    if trace {
        let _ = writeln!(o, "\n-- trace --");
        o.push_str(&trace_of(m, line, &json));
    }
    o
}

/// Run `line` through the pipeline as `--all --format json` would: the output and its events.
fn run_one(m: &Matcher, line: &str) -> (String, Vec<serde_json::Value>) {
    let mut out = OutWriter::new(Vec::new(), Format::Json, false, 100);
    {
        let mut stage = Stage::new(m, &Setup::every_event(), &mut out, SourceMeta::stdin());
        stage.feed(line.as_bytes(), std::time::SystemTime::now());
        stage.finish();
    }
    crate::event::Writer::flush(&mut out);
    let json = String::from_utf8_lossy(&out.into_inner()).into_owned();
    let events = json.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    (json, events)
}

/// An `also_matched[]` or `context[]` entry's name: its slug, else its id.
fn side_name(m: &serde_json::Value) -> &str {
    m.get("slug").or_else(|| m.get("id")).and_then(serde_json::Value::as_str).unwrap_or("")
}

/// The part of `explain` a person reads: one event's primary record and what goes with it.
fn describe(o: &mut String, m: &Matcher, ev: &serde_json::Value, mt: &serde_json::Value, width: usize) {
    use serde_json::Value;
    let id = mt["id"].as_str().unwrap_or("");
    let Some(e) = m.entries.iter().find(|e| e.rec.id == id) else { return };
    let r = &e.rec;
    let line = ev["source"]["line"].as_u64().unwrap_or(0);
    let _ = writeln!(
        o,
        "line {line}: {} {} ({id}){}",
        r.severity.name().to_ascii_uppercase(),
        r.slug().unwrap_or(id),
        r.str_field("errorClass").map_or(String::new(), |c| format!(" {c}"))
    );
    if mt.get("by").and_then(Value::as_str) == Some("location") {
        let _ = writeln!(
            o,
            "  found by the panic's location: the record's line is {} lines from the panic's (no message matched)",
            mt["distance"]
        );
    }
    if let Some(t) = &r.template {
        let _ = writeln!(o, "  message:  {t}");
    }
    if let Some(doc) = r.str_field("documentation") {
        let _ = writeln!(o, "\n  documentation:");
        wrap(o, doc, "    ", width);
    }
    let sols = r.solutions();
    if !sols.is_empty() {
        let _ = writeln!(o, "\n  solutions:");
        for (i, s) in sols.iter().enumerate() {
            wrap(o, &format!("{}. {s}", i + 1), "    ", width);
        }
    }
    if let Some(Value::Object(caps)) = mt.get("captures")
        && !caps.is_empty()
    {
        let _ = writeln!(o, "\n  captured:");
        for (i, k) in e.names.iter().enumerate() {
            let Some(v) = caps.get(k) else { continue };
            let label = match e.named.as_ref().map(|n| &n[i]).filter(|n| *n != k) {
                Some(nk) => format!("{nk} ({k}, named from the source code)"),
                None => k.clone(),
            };
            let _ = writeln!(o, "    {label} = {}", v.as_str().unwrap_or(""));
        }
    }
    if let (Some(file), Some(l)) = (r.str_field("filePath"), r.source_line) {
        let _ = writeln!(o, "\n  --> {file}:{l}");
        if let Some((first, code)) = &r.snippet {
            let w = (first + code.lines().count() as u64).to_string().len();
            let _ = writeln!(o, "  {:w$} |", "");
            for (i, text) in code.lines().enumerate() {
                let n = first + i as u64;
                let mark = if n == l { ">" } else { " " };
                let _ = writeln!(o, "{mark} {n:>w$} | {text}");
            }
            let _ = writeln!(o, "  {:w$} |", "");
        }
        if let Some(url) = r.str_field("githubUrl") {
            let _ = writeln!(o, "  {url}");
        }
    }
    if let Some(Value::Array(also)) = ev.get("also_matched")
        && !also.is_empty()
    {
        let _ = writeln!(o, "\n  also matched:");
        for a in also {
            let _ = writeln!(
                o,
                "    {} ({}) {}",
                side_name(a),
                a["id"].as_str().unwrap_or(""),
                a["captures"]
            );
        }
    }
    if let Some(Value::Array(ctx)) = ev.get("context") {
        let _ = writeln!(o, "\n  context (in a span field of a line below WARN, not this line's error):");
        for c in ctx {
            let _ = writeln!(
                o,
                "    {} ({}) in {}",
                side_name(c),
                c["id"].as_str().unwrap_or(""),
                c["field"].as_str().unwrap_or("")
            );
        }
    }
    let _ = writeln!(o);
}

/// `text` wrapped at spaces to `width` columns after `indent`.
fn wrap(o: &mut String, text: &str, indent: &str, width: usize) {
    let avail = width.saturating_sub(indent.len()).max(20);
    for para in text.split('\n') {
        let mut col = 0;
        o.push_str(indent);
        for (i, word) in para.split(' ').enumerate() {
            let w = word.chars().count();
            if i > 0 {
                if col + 1 + w > avail {
                    o.push('\n');
                    o.push_str(indent);
                    col = 0;
                } else {
                    o.push(' ');
                    col += 1;
                }
            }
            o.push_str(word);
            col += w;
        }
        o.push('\n');
    }
}

/// The matcher's trace for `explain --trace`: the layout, the literals and their records, the
/// candidates with their regexes, confirmed or rejected, and the event as JSON.
fn trace_of(m: &Matcher, line: &str, json: &str) -> String {
    let mut o = String::new();
    let bytes = line.as_bytes();
    let mut state = parse::StreamState::default();
    let mut clean = Vec::new();
    let mut text = Vec::new();
    for (i, l) in bytes.split(|&b| b == b'\n').enumerate() {
        clean.clear();
        parse::strip_codes(l, &mut clean, parse::has_leftovers(l));
        let (p, h) = parse::classify(&clean, &mut state);
        if i == 0 {
            let _ = writeln!(o, "layout:      {h:?}");
            if let Some((pod, c)) = &p.kubectl {
                let _ = writeln!(
                    o,
                    "kubectl:     pod={} container={}",
                    String::from_utf8_lossy(&clean[pod.clone()]),
                    String::from_utf8_lossy(&clean[c.clone()])
                );
            }
            if let Some(ts) = &p.runtime_ts {
                let _ = writeln!(o, "runtime ts:  {}", String::from_utf8_lossy(&clean[ts.clone()]));
            }
        } else {
            text.push(b'\n');
        }
        text.extend_from_slice(&clean[p.content..]);
    }
    if let Some(t) = parse::parse_text(&text) {
        let g = |r: &std::ops::Range<usize>| String::from_utf8_lossy(&text[r.clone()]).into_owned();
        if !t.timestamp.is_empty() {
            let _ = writeln!(o, "timestamp:   {}", g(&t.timestamp));
        }
        let _ = writeln!(o, "level:       {}", g(&t.level));
        if let Some(th) = &t.thread {
            let _ = writeln!(o, "thread:      {}", g(th));
        }
        for (n, f) in &t.spans {
            let fs: Vec<String> = f.iter().map(|(k, v)| format!("{}={}", g(k), g(v))).collect();
            let _ = writeln!(o, "span:        {} {{{}}}", g(n), fs.join(" "));
        }
        if let Some(tg) = &t.target {
            let _ = writeln!(o, "target:      {}", g(tg));
        }
        let _ = writeln!(o, "message:     {}", g(&t.message));
        for (k, v) in &t.fields {
            let _ = writeln!(o, "field:       {} = {}", g(k), g(v));
        }
    }
    let mut hits = Vec::new();
    let mut scratch = Scratch::default();
    m.scan(&text, &mut hits, &mut scratch);
    let _ = writeln!(o, "literals:    {} hit(s)", hits.len());
    for h in &hits {
        let owners: Vec<&str> = m
            .prefilter
            .owners(h.literal)
            .iter()
            .map(|&r| m.entries.get(r as usize).map_or("(panic location)", |e| e.rec.id.as_str()))
            .collect();
        let _ = writeln!(
            o,
            "  {:?} at {} -> {}",
            String::from_utf8_lossy(m.prefilter.literal(h.literal)),
            h.end - m.prefilter.literal(h.literal).len(),
            owners.join(", ")
        );
    }
    m.candidates(hits.iter().map(|h| h.literal), &mut scratch);
    let cands = scratch.cands.clone();
    let mut confirmed = Vec::new();
    for l in json.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(l) {
            if let Some(mt) = v.get("match").filter(|x| !x.is_null()) {
                confirmed.push(mt.clone());
            }
            if let Some(serde_json::Value::Array(a)) = v.get("also_matched") {
                confirmed.extend(a.iter().cloned());
            }
        }
    }
    let _ = writeln!(o, "candidates:  {}", cands.len());
    for c in &cands {
        let e = &m.entries[*c as usize];
        let ok = confirmed.iter().any(|x| x.get("id").and_then(|i| i.as_str()) == Some(e.rec.id.as_str()));
        let _ = writeln!(
            o,
            "  {} {} {}  /{}/",
            if ok { "confirmed" } else { "rejected " },
            e.rec.id,
            e.rec.slug().unwrap_or(""),
            e.forms.regex
        );
    }
    if confirmed.is_empty() {
        let _ = writeln!(o, "result:      no known error");
    }
    for (i, c) in confirmed.iter().enumerate() {
        let role = if i == 0 { "primary:    " } else { "also:       " };
        let _ = writeln!(
            o,
            "{role} {} {} span={} field={} captures={}",
            c["id"].as_str().unwrap_or(""),
            c.get("slug").and_then(|s| s.as_str()).unwrap_or(""),
            c["span"],
            c["field"],
            c["captures"]
        );
    }
    let _ = writeln!(o, "event:       {}", json.trim_end());
    o
}
