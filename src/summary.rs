//! `--summary`: the table written to standard error when a run ends (end of input, Ctrl-C,
//! SIGTERM): totals, matches and incidents per severity, matches and incidents per record.
//! A match is one occurrence; an incident is what repeats of the same key within the repeat
//! window make together ([`crate::repeat`]): a storm of 10,000 matches is one incident.
//!
//! Owns only the rendering; the counts come from [`crate::metrics::Metrics`]. Contract: plain
//! text that fits `width` columns (record names are cut with `…`), colour only when asked, at
//! most [`MAX_ROWS`] record rows (the rest summed in one line), and a clear line when nothing
//! matched.

use std::fmt::Write as _;

use crate::metrics::RecordCount;

/// Record rows shown: a summary is read at a glance; the metrics and JSON events have the rest.
pub const MAX_ROWS: usize = 30;

const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const RESET: &str = "\x1b[0m";

/// What the table is made of.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub lines: u64,
    pub events: u64,
    pub matched_events: u64,
    pub records: Vec<RecordCount>,
    /// Why the run ended, when not at the end of its input ("interrupted").
    pub ended: Option<&'static str>,
    /// With `--unknown`: this run's unknown events and the clusters alive.
    pub unknown: Option<Unknown>,
}

/// The unknown events of a run.
#[derive(Debug, Clone, Default)]
pub struct Unknown {
    /// Events clustered in this run.
    pub events: u64,
    /// Clusters dropped at the cap since the clusterer started (a restarted daemon's included).
    pub evicted: u64,
    /// The clusters alive, the most seen first; a cluster's count is every event it has had,
    /// before a restart too (follow mode keeps the clusters).
    pub top: Vec<UnknownRow>,
}

/// One cluster of unknown events.
#[derive(Debug, Clone, Default)]
pub struct UnknownRow {
    pub cluster: String,
    pub template: String,
    pub count: u64,
}

/// Unknown clusters shown: the most seen, as many as fit a glance.
pub const MAX_UNKNOWN_ROWS: usize = 10;

/// Severities from the most to the least serious; others sort after them by name.
const ORDER: &[&str] = &["critical", "error", "warning", "info"];

fn rank(sev: &str) -> usize {
    ORDER.iter().position(|s| *s == sev).unwrap_or(ORDER.len())
}

/// `1234567` → `1,234,567`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `1 event`, `2 events`, `3 matches`.
fn counted(n: u64, noun: &str) -> String {
    let plural = if n == 1 {
        ""
    } else if noun.ends_with("ch") {
        "es"
    } else {
        "s"
    };
    format!("{} {noun}{plural}", thousands(n))
}

/// Cut `s` to `max` characters, ending with `…` when cut.
fn fit(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

pub fn render(sum: &Summary, width: usize, color: bool) -> String {
    let c = |code: &'static str| if color { code } else { "" };
    let sev_color = |sev: &str| match rank(sev) {
        0 | 1 => c(RED),
        2 => c(YELLOW),
        _ => "",
    };
    let width = width.max(40);
    let mut out = String::new();
    let total: u64 = sum.records.iter().map(|r| r.count).sum();
    let incidents: u64 = sum.records.iter().map(|r| r.incidents).sum();
    let _ = writeln!(
        out,
        "{}annotail summary{}{}",
        c(BOLD),
        sum.ended.map(|e| format!(" ({e})")).unwrap_or_default(),
        c(RESET)
    );
    let _ = writeln!(out, "  lines read    {}", thousands(sum.lines));
    let _ = writeln!(out, "  events        {}", thousands(sum.events));
    let _ = writeln!(
        out,
        "  known errors  {}, {} of {}",
        counted(sum.matched_events, "event"),
        counted(total, "match"),
        counted(sum.records.len() as u64, "record"),
    );
    let _ = writeln!(out, "  incidents     {}", thousands(incidents));
    if sum.records.is_empty() {
        let _ = writeln!(out, "no known error matched");
        render_unknown(sum, width, &mut out);
        return out;
    }
    let mut sevs: Vec<(&str, u64, usize, u64)> = Vec::new();
    for r in &sum.records {
        match sevs.iter_mut().find(|(s, ..)| *s == r.severity) {
            Some(e) => {
                e.1 += r.count;
                e.2 += 1;
                e.3 += r.incidents;
            }
            None => sevs.push((&r.severity, r.count, 1, r.incidents)),
        }
    }
    sevs.sort_by(|a, b| rank(a.0).cmp(&rank(b.0)).then(a.0.cmp(b.0)));
    let count_w =
        thousands(sum.records.iter().map(|r| r.count).max().unwrap_or(0)).len().max(total.to_string().len()).max(5);
    let sev_w = sum.records.iter().map(|r| r.severity.len()).max().unwrap_or(0).max(8);
    let _ = writeln!(out);
    let inc_w = thousands(incidents).len().max(9);
    let _ = writeln!(
        out,
        "{}{:<sev_w$}  {:>count_w$}  {:>inc_w$}  RECORDS{}",
        c(BOLD),
        "SEVERITY",
        "COUNT",
        "INCIDENTS",
        c(RESET)
    );
    for (sev, n, k, i) in &sevs {
        let _ = writeln!(
            out,
            "{}{:<sev_w$}{}  {:>count_w$}  {:>inc_w$}  {}",
            sev_color(sev),
            sev,
            c(RESET),
            thousands(*n),
            thousands(*i),
            k
        );
    }
    let _ = writeln!(out);
    let _ =
        writeln!(out, "{}{:>count_w$}  {:>inc_w$}  {:<sev_w$}  RECORD{}", c(BOLD), "COUNT", "INCIDENTS", "SEVERITY", c(RESET));
    let name_w = width.saturating_sub(count_w + inc_w + sev_w + 6).max(10);
    for r in sum.records.iter().take(MAX_ROWS) {
        // A panic matched by where it happened is not that record's error: said first. The
        // title is cut to make room, never the marker or the id (slugs are not unique: the id
        // tells rows apart; found by a third reader).
        let marker = match r.located {
            0 => String::new(),
            n if n == r.count => "[by a panic's location] ".to_owned(),
            n => format!("[{} by a panic's location] ", thousands(n)),
        };
        let name = if r.title == r.id {
            format!("{marker}{}", r.id)
        } else {
            let room = name_w.saturating_sub(marker.chars().count() + r.id.chars().count() + 3).max(1);
            format!("{marker}{} ({})", fit(&r.title, room), r.id)
        };
        let _ = writeln!(
            out,
            "{:>count_w$}  {:>inc_w$}  {}{:<sev_w$}{}  {}",
            thousands(r.count),
            thousands(r.incidents),
            sev_color(&r.severity),
            r.severity,
            c(RESET),
            fit(&name, name_w)
        );
    }
    if sum.records.len() > MAX_ROWS {
        let rest = &sum.records[MAX_ROWS..];
        let n: u64 = rest.iter().map(|r| r.count).sum();
        let i: u64 = rest.iter().map(|r| r.incidents).sum();
        let plural = if rest.len() == 1 { "" } else { "s" };
        let _ = writeln!(out, "{:>count_w$}  {:>inc_w$}  … {} more record{plural}", thousands(n), thousands(i), rest.len());
    }
    render_unknown(sum, width, &mut out);
    out
}

/// The top unknown clusters: count, id, template (cut to the width).
fn render_unknown(sum: &Summary, width: usize, out: &mut String) {
    let Some(u) = &sum.unknown else { return };
    let rows = &u.top;
    let _ = writeln!(out);
    let evicted = if u.evicted > 0 { format!(" ({} dropped at the cap)", thousands(u.evicted)) } else { String::new() };
    let _ = writeln!(
        out,
        "  unknown       {}, {} alive{evicted}",
        counted(u.events, "event"),
        counted(rows.len() as u64, "cluster")
    );
    if rows.is_empty() {
        return;
    }
    let count_w = thousands(rows.first().map_or(0, |r| r.count)).len().max(5);
    let _ = writeln!(out, "{:>count_w$}  {:<16}  TEMPLATE", "COUNT", "CLUSTER");
    let tw = width.saturating_sub(count_w + 20).max(10);
    for r in rows.iter().take(MAX_UNKNOWN_ROWS) {
        let template = crate::event::visible(&r.template);
        let _ = writeln!(out, "{:>count_w$}  {:<16}  {}", thousands(r.count), r.cluster, fit(&template, tw));
    }
    if rows.len() > MAX_UNKNOWN_ROWS {
        let rest = &rows[MAX_UNKNOWN_ROWS..];
        let n: u64 = rest.iter().map(|r| r.count).sum();
        let _ = writeln!(out, "{:>count_w$}  … {} more", thousands(n), counted(rest.len() as u64, "cluster"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, sev: &str, count: u64) -> RecordCount {
        RecordCount {
            id: id.into(),
            title: format!("title-of-{id}"),
            severity: sev.into(),
            count,
            incidents: count.div_ceil(10),
            located: 0,
        }
    }

    #[test]
    fn table_has_totals_severities_and_records_in_width() {
        let sum = Summary {
            lines: 1_234_567,
            events: 1_000_000,
            matched_events: 42,
            records: vec![rec("a", "error", 30), rec("b", "warning", 10), rec("c", "error", 2)],
            ended: None,
            unknown: None,
        };
        let text = render(&sum, 60, false);
        assert!(
            text.starts_with(
                "annotail summary\n  lines read    1,234,567\n  events        1,000,000\n  known errors  42 events, 42 matches of 3 records\n  incidents     5\n"
            ),
            "{text}"
        );
        let lines: Vec<&str> = text.lines().collect();
        let sev_rows: Vec<&str> =
            lines.iter().copied().skip_while(|l| !l.starts_with("SEVERITY")).skip(1).take(2).collect();
        assert_eq!(sev_rows[0].split_whitespace().collect::<Vec<_>>(), ["error", "32", "4", "2"]);
        assert_eq!(sev_rows[1].split_whitespace().collect::<Vec<_>>(), ["warning", "10", "1", "1"]);
        assert!(text.contains("   30          3  error     title-of-a (a)"), "{text}");
        assert!(!text.contains('\x1b'));
        assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");
    }

    #[test]
    fn long_names_are_cut_and_extra_rows_summed() {
        let mut records: Vec<RecordCount> =
            (0..MAX_ROWS + 5).map(|i| rec(&format!("r{i:02}"), "error", 100 - i as u64)).collect();
        records[0].title = "x".repeat(200);
        let sum = Summary { lines: 1, events: 1, matched_events: 1, records, ended: Some("interrupted"), unknown: None };
        let text = render(&sum, 50, true);
        assert!(text.contains("annotail summary (interrupted)"));
        assert!(text.contains('…'));
        assert!(text.contains("… 5 more records"), "{text}");
        let plain = render(&sum, 60, false);
        assert!(plain.lines().all(|l| l.chars().count() <= 60), "{plain}");
    }

    #[test]
    fn regression_a_panic_by_location_is_said_so_in_its_row() {
        // Found by a second reader: a panic matched by the record nearest its location read, in
        // the summary, as that record's error (pretty output and JSON said "by location").
        let mut all = rec("a", "error", 3);
        all.located = 3;
        all.title = "y".repeat(200);
        let mut some = rec("b", "error", 2);
        some.located = 1;
        let sum = Summary {
            lines: 5,
            events: 5,
            matched_events: 5,
            records: vec![all, some, rec("c", "error", 1)],
            ended: None,
            unknown: None,
        };
        let text = render(&sum, 80, false);
        let rows: Vec<&str> = text.lines().skip_while(|l| !l.trim_start().starts_with("COUNT")).skip(1).collect();
        assert!(rows[0].contains("  [by a panic's location] yyy"), "{text}");
        // The title is cut, not the id (found by a third reader).
        assert!(rows[0].ends_with("y… (a)"), "{text}");
        assert!(rows[1].ends_with("  [1 by a panic's location] title-of-b (b)"), "{text}");
        assert!(rows[2].ends_with("  title-of-c (c)"), "{text}");
    }

    #[test]
    fn one_is_singular() {
        let text = render(
            &Summary { lines: 1, events: 1, matched_events: 1, records: vec![rec("a", "error", 1)], ended: None, unknown: None },
            80,
            false,
        );
        assert!(text.contains("  known errors  1 event, 1 match of 1 record\n  incidents     1\n"), "{text}");
    }

    #[test]
    fn unknown_clusters_most_seen_first_within_width() {
        let rows: Vec<UnknownRow> = (0..12)
            .map(|i| UnknownRow { cluster: format!("{i:016x}"), template: format!("thing {i} failed: {}", "x".repeat(90)), count: 20 - i })
            .collect();
        let sum = Summary { lines: 5, events: 5, unknown: Some(Unknown { events: 174, evicted: 0, top: rows }), ..Default::default() };
        let text = render(&sum, 80, false);
        assert!(text.contains("  unknown       174 events, 12 clusters alive
"), "{text}");
        assert!(text.contains("   20  0000000000000000  thing 0 failed"), "{text}");
        assert!(text.contains("   19  … 2 clusters more"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    }

    /// The events are the run's, not the sum of the clusters alive: after clusters were dropped
    /// at the cap (and in a restarted daemon, whose clusters kept their counts) the two differ.
    #[test]
    fn regression_unknown_events_are_the_runs_and_dropped_clusters_are_said() {
        let rows = vec![UnknownRow { cluster: "0000000000000001".into(), template: "a <*>".into(), count: 1 }];
        let sum = Summary {
            lines: 60,
            events: 60,
            unknown: Some(Unknown { events: 60, evicted: 58, top: rows }),
            ..Default::default()
        };
        let text = render(&sum, 80, false);
        assert!(text.contains("  unknown       60 events, 1 cluster alive (58 dropped at the cap)\n"), "{text}");
    }

    #[test]
    fn nothing_matched_says_so() {
        let text = render(&Summary { lines: 5, events: 5, ..Default::default() }, 80, false);
        assert!(text.ends_with("no known error matched\n"), "{text}");
    }
}
