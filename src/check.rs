//! `annotail check` and `annotail explain`: catalog validation and a look inside one match.
//!
//! `check` loads the catalogs, compiles every record's regexes now (the daemon compiles them on
//! first use) and reports every problem with file, line and record id. `explain` runs one event
//! through the same stages as the daemon and prints what each stage saw.

use std::fmt::Write as _;

use crate::annotate::{Annotator, Emit, SourceMeta};
use crate::catalog::{Level, Problem, ProblemKind};
use crate::event::{Format, OutWriter};
use crate::framing::{self, Framer, parse};
use crate::matcher::{Matcher, Scratch};

/// Lines that no real error pattern should match: a pattern that matches most of them would
/// annotate almost every line.
const PROBES: &[&str] = &[
    "2026-03-02T08:00:00.011660911Z  INFO risingwave_meta_node::server: starting leader services",
    "2026-03-02T08:00:00.503770346Z DEBUG risingwave_meta::barrier::backfill_order_control: initialize backfill order state from recovery backfill_orders=person_src",
    "hello world",
    "a",
];

/// Compile every entry and probe the ones without a literal; returns the problems found.
pub fn compile_all(m: &Matcher) -> Vec<Problem> {
    let mut out = Vec::new();
    for e in &m.entries {
        if let Err(msg) = e.compile_now() {
            let kind =
                if msg.contains("exceeds size limit") { ProblemKind::RegexTooBig } else { ProblemKind::InvalidRegex };
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
    out
}

/// Render `explain` for one event text.
pub fn explain(m: &Matcher, line: &str) -> String {
    let mut o = String::new();
    let bytes = line.as_bytes();
    let mut state = parse::StreamState::default();
    let mut clean = Vec::new();
    let mut text = Vec::new();
    for (i, l) in bytes.split(|&b| b == b'\n').enumerate() {
        clean.clear();
        parse::strip_ansi(l, &mut clean);
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
        let _ = writeln!(o, "timestamp:   {}", g(&t.timestamp));
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
        let owners: Vec<&str> =
            m.prefilter.owners(h.literal).iter().map(|&r| m.entries[r as usize].rec.id.as_str()).collect();
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
    // Run the real pipeline on the event for the ranked, captured result.
    let mut out = OutWriter::new(Vec::new(), Format::Json, false, 100);
    {
        let mut ann = Annotator::new(m, Emit::All, &mut out, SourceMeta::stdin());
        let mut fr = Framer::new(m, framing::Limits::default(), true);
        fr.feed(bytes, &mut ann);
        fr.finish(&mut ann);
    }
    crate::event::Writer::flush(&mut out);
    let json = String::from_utf8_lossy(&out.into_inner()).into_owned();
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
