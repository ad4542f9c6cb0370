//! Repeats: which occurrences of a known error belong to one incident.
//!
//! Owns the rule that pretty output's collapse, the incident counts (`--summary`, `stats`,
//! metrics) and a sink's `dedupe` share: an occurrence is identified by a key made of some of its
//! parts ([`KeyPart`]: the record, its captured values, the message, where it came from); the
//! first occurrence of a key opens an incident that lasts one window, and every occurrence of
//! the same key within it is a repeat. The next occurrence after the window opens a new
//! incident. Contract: [`Repeats::observe`] is synchronous, constant time on average below the
//! cap and logarithmic in [`MAX_OPEN`] at it, and keeps at most [`MAX_OPEN`] keys (oldest
//! incident evicted first, so memory is bounded however many distinct values a storm carries);
//! time is whatever clock the caller passes (the lines' own timestamps for reading, the wall
//! clock for sinks), and time going backwards (interleaved sources) counts as no time passing, as
//! long as it goes back less than the window.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::event::Annotated;

/// One part of what makes two occurrences the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPart {
    /// The record's id (always part of a key: two records are never the same error).
    Record,
    /// Every captured value, by name.
    Captures,
    /// The event's message text.
    Message,
    /// The source file's path.
    File,
    /// Kubernetes pod, namespace and container (from the line's prefix or the file's name).
    Pod,
    Namespace,
    Container,
}

const PARTS: usize = 7;

impl KeyPart {
    fn index(self) -> usize {
        self as usize
    }

    pub fn parse(s: &str) -> Result<KeyPart, KeyError> {
        Ok(match s.trim() {
            "record" => KeyPart::Record,
            "captures" => KeyPart::Captures,
            "message" => KeyPart::Message,
            "file" => KeyPart::File,
            "pod" => KeyPart::Pod,
            "namespace" => KeyPart::Namespace,
            "container" => KeyPart::Container,
            other => return Err(KeyError(other.to_owned())),
        })
    }
}

#[derive(Debug, thiserror::Error)]
#[error(
    "unknown key part {0:?}: expected record, captures, message, file, pod, namespace or container"
)]
pub struct KeyError(String);

/// Which parts make a key. The record is always one of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySpec {
    mask: u8,
}

impl Default for KeySpec {
    /// The record and its captured values: the same error about the same job, table or address.
    fn default() -> KeySpec {
        KeySpec { mask: 1 << KeyPart::Record.index() | 1 << KeyPart::Captures.index() }
    }
}

impl KeySpec {
    pub fn new(parts: &[KeyPart]) -> KeySpec {
        KeySpec { mask: parts.iter().fold(1 << KeyPart::Record.index(), |m, p| m | 1 << p.index()) }
    }

    /// A comma-separated list (`record,captures,pod`).
    pub fn parse_list(s: &str) -> Result<KeySpec, KeyError> {
        let parts = s.split(',').filter(|p| !p.trim().is_empty()).map(KeyPart::parse).collect::<Result<Vec<_>, _>>()?;
        Ok(KeySpec::new(&parts))
    }

    pub fn parse_all<S: AsRef<str>>(items: &[S]) -> Result<KeySpec, KeyError> {
        let parts = items.iter().map(|s| KeyPart::parse(s.as_ref())).collect::<Result<Vec<_>, _>>()?;
        Ok(KeySpec::new(&parts))
    }
}

/// The hash of each key part of one event's primary match, so that every consumer can make the
/// key it is configured with without seeing the event again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts([u64; PARTS]);

fn hash_of<T: Hash + ?Sized>(v: &T) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    v.hash(&mut h);
    h.finish()
}

impl Parts {
    /// The parts of `ev`'s primary match; `None` when nothing matched (such events are never
    /// repeats of one another).
    pub fn of(ev: &Annotated<'_>) -> Option<Parts> {
        let f = ev.found.first()?;
        Some(Parts::of_found(ev, f))
    }

    pub fn of_found(ev: &Annotated<'_>, f: &crate::matcher::Found) -> Parts {
        let mut p = [0u64; PARTS];
        p[KeyPart::Record.index()] = hash_of(ev.matcher.entries[f.entry as usize].rec.id.as_str());
        let mut h = rustc_hash::FxHasher::default();
        for (name, value) in ev.captures(f) {
            name.hash(&mut h);
            value.hash(&mut h);
        }
        p[KeyPart::Captures.index()] = h.finish();
        Parts::where_from(ev, &mut p);
        Parts(p)
    }

    /// The parts that are the event's own text and where it came from, whatever matched.
    fn where_from(ev: &Annotated<'_>, p: &mut [u64; PARTS]) {
        p[KeyPart::Message.index()] = hash_of(ev.message);
        p[KeyPart::File.index()] = hash_of(&ev.source.path);
        p[KeyPart::Pod.index()] = hash_of(&ev.log.pod.as_deref());
        p[KeyPart::Namespace.index()] = hash_of(&ev.log.namespace.as_deref());
        p[KeyPart::Container.index()] = hash_of(&ev.log.container.as_deref());
    }

    /// The parts of an event that no record explains, clustered as `cluster` at `severity`
    /// (`--unknown`): the cluster and the severity stand for the record (a cluster spans levels,
    /// and its first ERROR after WARNs is no repeat of them: found by a second reader), and there
    /// are no captures.
    pub fn of_unknown(ev: &Annotated<'_>, cluster: u64, severity: crate::catalog::Severity) -> Parts {
        let mut p = [0u64; PARTS];
        p[KeyPart::Record.index()] = hash_of(&("unknown", cluster, severity as u8));
        Parts::where_from(ev, &mut p);
        Parts(p)
    }

    /// These parts with an unknown cause's cluster (`--unknown`: the part of a matched event no
    /// record explains) in the record's place beside the record: a known host message over a
    /// root cause met for the first time is no repeat of the same host over another cause. A
    /// sink's `dedupe` keys by it, as pretty output shows such a cause at once (found by a
    /// pipeline owner's reading: a dedupe sink held back every new cause behind its host).
    pub fn with_cause(mut self, cluster: u64) -> Parts {
        let r = KeyPart::Record.index();
        self.0[r] = hash_of(&(self.0[r], "cause", cluster));
        self
    }

    /// Parts that differ only in the record's hash.
    #[cfg(test)]
    pub(crate) fn with_record(h: u64) -> Parts {
        let mut p = [0u64; PARTS];
        p[KeyPart::Record.index()] = h;
        Parts(p)
    }

    /// The key under `spec`.
    pub fn key(&self, spec: &KeySpec) -> u64 {
        let mut h = rustc_hash::FxHasher::default();
        for (i, v) in self.0.iter().enumerate() {
            if spec.mask & (1 << i) != 0 {
                v.hash(&mut h);
            }
        }
        h.finish()
    }
}

/// What an occurrence is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The first of its incident.
    First,
    /// A repeat: the incident's `count`th occurrence (2 for the first repeat), `elapsed_ms` after
    /// the first; `mark` on the occurrences pretty output puts a marker under.
    Repeat { count: u64, elapsed_ms: i64, mark: bool },
}

/// How long an incident lasts unless configured: a recovery loop retries within seconds, so a
/// minute holds a storm's repeats, and an error still there after a minute is shown in full
/// again.
pub const DEFAULT_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// Keys tracked at once. An entry is about 40 bytes: 4,096 of them are ~160 KiB, and a storm
/// whose captures change on every line (a counter captured as a value) cycles through them
/// instead of growing without bound.
pub const MAX_OPEN: usize = 4096;

/// Repeat counts that get a marker in pretty output: the first repeat (collapsing has begun)
/// and each power of ten after it, so a storm of N repeats adds about log10(N) lines.
fn marked(count: u64) -> bool {
    count == 2 || (count >= 10 && 10u64.pow(count.ilog10()) == count)
}

/// Incidents a key keeps at once (its latest and [`CLOCKS`] − 1 before it): sources whose
/// clocks are hours apart, read interleaved (`kubectl logs -f --prefix -l …` over pods started
/// hours apart, lines without a time of their own read now), each go on with their own window.
/// With one incident a key, each switch of source was past the window of the other's and opened
/// a new incident: 480 where there were 8 (a second reader); with two, three pods gave 484
/// where there were 12, and the pod printed first lost its incident to the next (a third).
const CLOCKS: usize = 8;

#[derive(Debug, Clone)]
struct Open {
    first_ms: i64,
    count: u64,
    /// When it was opened: [`Repeats::incidents`] then. Ties of `first_ms` go by it.
    seq: u64,
    /// The key's incidents opened before this one and still kept (at most [`CLOCKS`] − 1):
    /// another clock's, or this clock's windows gone by (which no later line of it reaches).
    /// Evicted with their key. Empty, it allocates nothing: a key that lasts one window.
    before: Vec<Before>,
}

/// An incident of a key opened before its latest ([`Open::before`]).
#[derive(Debug, Clone, Copy)]
struct Before {
    first_ms: i64,
    count: u64,
}

/// An open incident's place in [`Repeats::by_age`]: (first_ms, seq, key), oldest first.
type Age = std::cmp::Reverse<(i64, u64, u64)>;

/// `open`'s incidents as [`Repeats::by_age`] holds them.
fn ages(open: &HashMap<u64, Open, rustc_hash::FxBuildHasher>) -> std::collections::BinaryHeap<Age> {
    open.iter().map(|(&k, o)| std::cmp::Reverse((o.first_ms, o.seq, k))).collect()
}

/// The open incidents.
#[derive(Debug)]
pub struct Repeats {
    window_ms: i64,
    open: HashMap<u64, Open, rustc_hash::FxBuildHasher>,
    /// The open incidents, oldest on top, from the first time the cap is reached on (below it
    /// nothing is ever evicted, and an entry for every new incident cost about 950 instructions
    /// in a `BTreeMap`). An incident opened again leaves its old entry behind, skipped when it
    /// comes up (its `seq` is no longer the incident's). Before, making room was a scan of
    /// every open key, for every new key once the cap was reached: a storm whose captures change
    /// on every line (400,000 lines) spent 84% of its time there, about 10 µs a line.
    by_age: Option<std::collections::BinaryHeap<Age>>,
    /// Incidents opened so far (re-openings too): the next [`Open::seq`].
    pub incidents: u64,
}

impl Repeats {
    pub fn new(window: std::time::Duration) -> Repeats {
        Repeats {
            window_ms: i64::try_from(window.as_millis()).unwrap_or(i64::MAX),
            open: HashMap::default(),
            by_age: None,
            incidents: 0,
        }
    }

    /// An occurrence of `key` at `at_ms` (milliseconds on the caller's clock).
    pub fn observe(&mut self, key: u64, at_ms: i64) -> Seen {
        let seq = self.incidents;
        let window = self.window_ms;
        // Within the window on either side of an incident's first: a line older than it by less
        // than the window (interleaved sources) is no time passed; older by more, it is another
        // source's time (a second pod's log read after the first's, hours earlier) and was
        // hidden as a repeat of an incident that had not yet begun (found by an incident
        // responder's reading).
        let within = |first: i64| {
            let elapsed = at_ms.saturating_sub(first);
            (elapsed < window && elapsed > -window).then_some(elapsed)
        };
        if let Some(o) = self.open.get_mut(&key) {
            // The incident that holds it, the nearest in time when several do (the latest when
            // as near): `None` for the latest, else its place in `before`.
            let mut best: Option<(Option<usize>, i64)> = within(o.first_ms).map(|e| (None, e));
            for (i, b) in o.before.iter().enumerate() {
                if let Some(e) = within(b.first_ms)
                    && best.is_none_or(|(_, n)| e.unsigned_abs() < n.unsigned_abs())
                {
                    best = Some((Some(i), e));
                }
            }
            if let Some((at, elapsed)) = best {
                let count = match at {
                    None => &mut o.count,
                    Some(i) => &mut o.before[i].count,
                };
                *count += 1;
                return Seen::Repeat { count: *count, elapsed_ms: elapsed.max(0), mark: marked(*count) };
            }
            // A new incident is the key's latest; the one it was is kept before it, and with
            // [`CLOCKS`] kept the one nearest in time to the new one goes (its own clock's last
            // window, which none of its lines reaches again).
            let was = Before { first_ms: o.first_ms, count: o.count };
            if o.before.len() + 1 < CLOCKS {
                o.before.push(was);
            } else {
                let far = |b: &Before| at_ms.abs_diff(b.first_ms);
                let (i, nearest) = o.before.iter().enumerate().min_by_key(|(_, b)| far(b)).expect("CLOCKS > 1");
                if far(nearest) < far(&was) {
                    o.before[i] = was;
                }
            }
            (o.first_ms, o.count, o.seq) = (at_ms, 1, seq);
        } else {
            if self.open.len() >= MAX_OPEN {
                self.evict(at_ms);
            }
            self.open.insert(key, Open { first_ms: at_ms, count: 1, seq, before: Vec::new() });
        }
        if let Some(h) = &mut self.by_age {
            h.push(std::cmp::Reverse((at_ms, seq, key)));
            // Left-behind entries of incidents opened again: rebuilt when they are half of it.
            // Here, not only when making room: a cap's worth of keys opened again window after
            // window, with no new key to make room for, grew it without end.
            if h.len() > 2 * MAX_OPEN {
                *h = ages(&self.open);
            }
        }
        self.incidents += 1;
        Seen::First
    }

    /// Make room: incidents whose window has passed go (the oldest ones); if none has, the
    /// oldest one does (of those opened in the same millisecond, the first opened).
    fn evict(&mut self, now_ms: i64) {
        let open = &mut self.open;
        let h = self.by_age.get_or_insert_with(|| ages(open));
        while let Some(&std::cmp::Reverse((first_ms, seq, key))) = h.peek() {
            if open.get(&key).is_none_or(|o| o.seq != seq) {
                h.pop();
                continue;
            }
            let expired = now_ms.saturating_sub(first_ms) >= self.window_ms;
            if !expired && open.len() < MAX_OPEN {
                break;
            }
            h.pop();
            open.remove(&key);
            if !expired {
                break;
            }
        }
    }

    pub fn open_keys(&self) -> usize {
        self.open.len()
    }
}

/// The incidents of a run, shared by every reader of it (each followed file's annotator, the
/// reader of a parallel run): repeats are found across files, so a storm that three pods log is
/// one incident per key, not three (add `pod` or `file` to the key to tell them apart).
#[derive(Debug)]
pub struct Incidents {
    pub key: KeySpec,
    /// Whether pretty output collapses repeats (`--no-collapse` keeps the counts only).
    pub collapse: bool,
    pub window: std::time::Duration,
    tracker: std::sync::Mutex<Repeats>,
}

impl Incidents {
    pub fn new(key: KeySpec, window: std::time::Duration, collapse: bool) -> Incidents {
        Incidents { key, collapse, window, tracker: std::sync::Mutex::new(Repeats::new(window)) }
    }

    pub fn observe(&self, key: u64, at_ms: i64) -> Seen {
        self.tracker.lock().unwrap_or_else(std::sync::PoisonError::into_inner).observe(key, at_ms)
    }
}

/// A match a parallel worker saw, for the reader to observe in input order.
#[derive(Debug, Clone, Copy)]
pub struct Deferred {
    pub entry: u32,
    pub key: u64,
    pub at_ms: i64,
}

/// The clock for reading: the event's own timestamp when it has one that parses, else now.
pub fn event_millis(timestamp: &str) -> i64 {
    crate::framing::parse::parse_timestamp(timestamp).unwrap_or_else(now_millis)
}

pub fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `12 s`, `3 min`, `2 h`: how long a collapsed incident has lasted, as a marker says it.
pub fn elapsed_text(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        _ if ms < 1000 => format!("{:.1} s", ms as f64 / 1000.0),
        0..120 => format!("{s} s"),
        120..7200 => format!("{} min", s / 60),
        _ => format!("{} h", s / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn repeats_within_the_window_and_a_new_incident_after_it() {
        let mut r = Repeats::new(Duration::from_secs(60));
        let cases: &[(u64, i64, Seen)] = &[
            (1, 0, Seen::First),
            (1, 1_000, Seen::Repeat { count: 2, elapsed_ms: 1_000, mark: true }),
            (1, 2_000, Seen::Repeat { count: 3, elapsed_ms: 2_000, mark: false }),
            (2, 2_500, Seen::First),
            (1, 59_999, Seen::Repeat { count: 4, elapsed_ms: 59_999, mark: false }),
            (1, 60_000, Seen::First),
            // An older line (another source's) belongs to the incident whose window holds it,
            // the nearest: here the first one, 10 s after its start; older than every incident
            // kept by the window or more, it opens one of its own (another clock).
            (1, 10_000, Seen::Repeat { count: 5, elapsed_ms: 10_000, mark: false }),
            (2, -57_500, Seen::First),
            (2, -57_000, Seen::Repeat { count: 2, elapsed_ms: 500, mark: true }),
            // Within the windows of both: the nearer one's repeat (2,500's, 500 ms before it).
            (2, 2_000, Seen::Repeat { count: 2, elapsed_ms: 0, mark: true }),
        ];
        for (i, (key, at, want)) in cases.iter().enumerate() {
            assert_eq!(r.observe(*key, *at), *want, "case {i}");
        }
        assert_eq!(r.incidents, 4);
    }

    /// Two sources hours apart, read interleaved (the second reader's two pods): each keeps its
    /// own incident, window after window, where each switch of source opened a new one.
    #[test]
    fn regression_clocks_interleaved_keep_an_incident_each() {
        let hour = 3_600_000;
        // Pods on clocks hours apart, one line each a second for 120 s, alternating; in any
        // order of the clocks (the third reader: the pod printed first lost its incident to the
        // next when that one's clock was later).
        for clocks in [&[8, 2][..], &[0, 6], &[8, 2, 5], &[1, 3, 5, 7, 9, 11, 13]] {
            let mut r = Repeats::new(Duration::from_secs(60));
            let n = clocks.len() as i64;
            let mut firsts = 0;
            for i in 0..120 * n {
                let at = clocks[(i % n) as usize] * hour + i / n * 1_000;
                firsts += usize::from(r.observe(7, at) == Seen::First);
            }
            assert_eq!(firsts, 2 * clocks.len(), "two windows of 60 s on each clock: {clocks:?}");
        }
        // One source after the other: the same.
        let mut r = Repeats::new(Duration::from_secs(60));
        let firsts: usize = [8 * hour, 2 * hour]
            .iter()
            .flat_map(|&base| (0..120i64).map(move |i| base + i * 1_000))
            .map(|at| usize::from(r.observe(7, at) == Seen::First))
            .sum();
        assert_eq!(firsts, 4);
        // One clock for hours: the incidents kept stay bounded, each window still one incident.
        let mut r = Repeats::new(Duration::from_secs(60));
        let firsts: usize = (0..7_200i64).map(|s| usize::from(r.observe(7, s * 1_000) == Seen::First)).sum();
        assert_eq!(firsts, 120);
        assert!(r.open[&7].before.len() < CLOCKS);
    }

    #[test]
    fn markers_at_the_first_repeat_and_powers_of_ten() {
        let marks: Vec<u64> = (1..=20_000).filter(|&c| marked(c)).collect();
        assert_eq!(marks, [2, 10, 100, 1000, 10_000]);
    }

    #[test]
    fn open_keys_are_capped() {
        let mut r = Repeats::new(Duration::from_secs(3600));
        for k in 0..(MAX_OPEN as u64 * 3) {
            assert_eq!(r.observe(k, k as i64), Seen::First);
        }
        assert!(r.open_keys() <= MAX_OPEN);
        // The newest keys are still open, the oldest went first.
        let last = MAX_OPEN as u64 * 3 - 1;
        assert!(matches!(r.observe(last, last as i64 + 1), Seen::Repeat { .. }));
        assert_eq!(r.observe(0, last as i64 + 2), Seen::First);
    }

    /// The rule as it reads, a scan of every open key: what [`Repeats`] must answer alike.
    struct Naive {
        open: HashMap<u64, (i64, u64, u64)>,
        seq: u64,
    }

    impl Naive {
        fn observe(&mut self, key: u64, at: i64, window: i64) -> Seen {
            if let Some(o) = self.open.get_mut(&key) {
                let elapsed = at.saturating_sub(o.0);
                if elapsed < window && elapsed > -window {
                    o.1 += 1;
                    return Seen::Repeat { count: o.1, elapsed_ms: elapsed.max(0), mark: marked(o.1) };
                }
                *o = (at, 1, self.seq);
                self.seq += 1;
                return Seen::First;
            }
            if self.open.len() >= MAX_OPEN {
                self.open.retain(|_, o| at.saturating_sub(o.0) < window);
                if self.open.len() >= MAX_OPEN {
                    let (&k, _) = self.open.iter().min_by_key(|(_, o)| (o.0, o.2)).unwrap();
                    self.open.remove(&k);
                }
            }
            self.open.insert(key, (at, 1, self.seq));
            self.seq += 1;
            Seen::First
        }
    }

    #[test]
    fn eviction_at_the_cap_is_the_scan_of_every_key_it_replaced() {
        let window = 60_000;
        let mut r = Repeats::new(Duration::from_millis(window as u64));
        let mut naive = Naive { open: HashMap::new(), seq: 0 };
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        // Many keys at once (the cap reached), runs in the same millisecond (ties), time going
        // back now and then (interleaved sources), and gaps longer than the window (expiry).
        let mut at = 0i64;
        let (mut firsts, mut repeats, mut at_cap, mut expired) = (0, 0, 0, 0);
        for i in 0..60_000u64 {
            at += match next() % 20_000 {
                0 => {
                    expired += 1;
                    70_000
                }
                1..=50 => -300,
                51..=6_000 => 1,
                _ => 0,
            };
            let key = if i % 2 == 0 { next() % 300 } else { next() % 9_000 };
            let got = r.observe(key, at);
            assert_eq!(got, naive.observe(key, at, window), "observation {i}: key {key} at {at}");
            if got == Seen::First {
                firsts += 1
            } else {
                repeats += 1
            }
            assert_eq!(r.open_keys(), naive.open.len(), "observation {i}");
            if let Some(h) = &r.by_age {
                assert!(h.len() >= r.open.len() && h.len() <= 2 * MAX_OPEN + 1, "observation {i}: {} entries", h.len());
            }
            at_cap += usize::from(r.open_keys() == MAX_OPEN);
        }
        assert!(
            firsts > 10_000 && repeats > 10_000 && at_cap > 10_000 && expired > 0,
            "{firsts} firsts, {repeats} repeats, {at_cap} at the cap, {expired} gaps past the window"
        );
    }

    #[test]
    fn regression_the_age_index_stays_bounded_when_only_old_keys_come_back() {
        let mut r = Repeats::new(Duration::from_secs(60));
        // A cap's worth of keys, then one more (the index is built), then the same keys opened
        // again window after window, with no new key.
        for k in 0..=MAX_OPEN as u64 {
            r.observe(k, 0);
        }
        for window in 1..=10i64 {
            for k in 1..=MAX_OPEN as u64 {
                assert_eq!(r.observe(k, window * 61_000), Seen::First);
            }
        }
        let h = r.by_age.as_ref().expect("built at the cap");
        assert!(h.len() <= 2 * MAX_OPEN, "{} entries for {} open incidents", h.len(), r.open_keys());
    }

    #[test]
    fn key_specs_parse_and_always_hold_the_record() {
        assert_eq!(KeySpec::parse_list("captures").unwrap(), KeySpec::default());
        assert_eq!(KeySpec::parse_list("record, captures").unwrap(), KeySpec::default());
        assert_ne!(KeySpec::parse_list("record").unwrap(), KeySpec::default());
        let e = KeySpec::parse_list("record,colour").unwrap_err().to_string();
        assert!(e.contains("\"colour\"") && e.contains("captures"), "{e}");
        let p = Parts([1, 2, 3, 4, 5, 6, 7]);
        let q = Parts([1, 9, 3, 4, 5, 6, 7]);
        assert_eq!(p.key(&KeySpec::parse_list("record").unwrap()), q.key(&KeySpec::parse_list("record").unwrap()));
        assert_ne!(p.key(&KeySpec::default()), q.key(&KeySpec::default()));
    }

    #[test]
    fn elapsed_reads_as_a_person_says_it() {
        for (ms, want) in [(300, "0.3 s"), (12_000, "12 s"), (600_000, "10 min"), (9_000_000, "2 h")] {
            assert_eq!(elapsed_text(ms), want);
        }
    }
}
