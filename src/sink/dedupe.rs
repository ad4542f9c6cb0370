//! A sink's `dedupe`: the first event of a key goes out at once, its repeats within the window
//! are held back and summed up in one event when the window ends.
//!
//! Owns the per-sink state between the queue and delivery: the open windows, the summaries they
//! make, and which batches' acknowledgements wait for a summary. Contract: nothing is dropped
//! silently — every repeat is either in a summary (`repeat.count`, first and last `@timestamp`,
//! its `event_id`) or still held; a batch that held a repeat is acknowledged (so the
//! checkpoint passes it) only once the summary that counts it was delivered, so a `kill -9`
//! before that reads those events again. Windows run on the sink's clock (tokio's), not the
//! lines' timestamps: the summary is due when the window has passed for the receiver.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use tokio::time::Instant;

use super::render::{Rendered, Severity};
use crate::repeat::KeySpec;

/// A sink's dedupe settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DedupeSpec {
    pub window: Duration,
    pub key: KeySpec,
}

/// Event ids listed in one summary: enough to find the held events again in a file, bounded so
/// that a summary of a million repeats stays one small event (the rest are counted in
/// `event_ids_omitted`).
pub const MAX_IDS: usize = 1000;

/// One open window.
#[derive(Debug)]
struct Window {
    /// Distinguishes this window from a later one of the same key, for the held batches.
    uid: u64,
    ends: Instant,
    /// Repeats held so far.
    count: u64,
    first_timestamp: Box<str>,
    last_timestamp: Box<str>,
    ids: Vec<u64>,
    ids_omitted: u64,
    /// The last repeat as rendered (the summary's body) and its severity.
    last: Vec<u8>,
    severity: Severity,
}

/// The dedupe state of one sink.
#[derive(Debug)]
pub struct Dedupe {
    spec: DedupeSpec,
    windows: HashMap<u64, Window>,
    next_uid: u64,
    /// Batches whose acknowledgement waits: (sequence, windows whose summaries it waits for).
    held: VecDeque<(u64, Vec<u64>)>,
    /// Windows whose summary is not delivered yet.
    open: std::collections::HashSet<u64>,
    /// Windows that ended with repeats held and were replaced before `due` summed them up.
    ended: Vec<Window>,
}

impl Dedupe {
    pub fn new(spec: DedupeSpec) -> Dedupe {
        Dedupe {
            spec,
            windows: HashMap::new(),
            next_uid: 0,
            held: VecDeque::new(),
            open: Default::default(),
            ended: Vec::new(),
        }
    }

    /// Decide for event `i` of `r` (format slot `slot`): `true` sends it now; `false` holds it
    /// as a repeat, and `waits` gets the window it waits for.
    pub fn admit(&mut self, r: &Rendered, slot: usize, i: usize, now: Instant, waits: &mut Vec<u64>) -> bool {
        let Some(meta) = r.meta.get(i) else { return true };
        let Some(parts) = meta.parts else { return true };
        let key = parts.key(&self.spec.key);
        if let Some(w) = self.windows.get_mut(&key)
            && now < w.ends
        {
            if w.count == 0 {
                w.first_timestamp = meta.timestamp.clone();
                self.open.insert(w.uid);
            }
            w.count += 1;
            w.last_timestamp = meta.timestamp.clone();
            match meta.event_id {
                Some(id) if w.ids.len() < MAX_IDS => w.ids.push(id),
                Some(_) => w.ids_omitted += 1,
                None => {}
            }
            w.last.clear();
            w.last.extend_from_slice(r.event(slot, i));
            w.severity = r.severity[i];
            if !waits.contains(&w.uid) {
                waits.push(w.uid);
            }
            return false;
        }
        // A first occurrence (or the first after its window): it goes out now and opens a
        // window. One that ended with repeats held is summed up by the next `due`.
        self.next_uid += 1;
        let old = self.windows.insert(
            key,
            Window {
                uid: self.next_uid,
                ends: now + self.spec.window,
                count: 0,
                first_timestamp: "".into(),
                last_timestamp: "".into(),
                ids: Vec::new(),
                ids_omitted: 0,
                last: Vec::new(),
                severity: Severity::None,
            },
        );
        if let Some(w) = old.filter(|w| w.count > 0) {
            self.ended.push(w);
        }
        true
    }

    /// The batch `seq` was delivered; its acknowledgement waits for `waits` (none: at once).
    /// Returns the sequences that can be acknowledged now, in order.
    pub fn delivered(&mut self, seq: u64, waits: Vec<u64>) -> Vec<u64> {
        self.held.push_back((seq, waits));
        self.release()
    }

    fn release(&mut self) -> Vec<u64> {
        let mut out = Vec::new();
        // In order: the checkpoint passes a batch only when those before it are acknowledged
        // too, so a later batch need not be acknowledged first.
        while let Some((_, waits)) = self.held.front() {
            if waits.iter().any(|u| self.open.contains(u)) {
                break;
            }
            out.push(self.held.pop_front().expect("front").0);
        }
        out
    }

    /// When the next window ends.
    pub fn next_due(&self) -> Option<Instant> {
        if !self.ended.is_empty() {
            return Some(Instant::now());
        }
        self.windows.values().map(|w| w.ends).min()
    }

    /// The summaries of the windows that ended by `now` (all of them with `all`: the input
    /// ended), as one batch in the sink's format, and the windows they close. Windows without
    /// repeats end without a summary.
    pub fn due(&mut self, now: Instant, all: bool, style: crate::event::Style) -> (Rendered, Vec<u64>) {
        let mut out = Rendered::new(&[style]);
        let mut closed = Vec::new();
        let window_s = self.spec.window.as_secs_f64();
        let mut ended: Vec<Window> = std::mem::take(&mut self.ended);
        ended.extend(self.windows.extract_if(|_, w| all || now >= w.ends).map(|(_, w)| w));
        // Summaries in the order their windows opened.
        ended.sort_by_key(|w| w.uid);
        for w in ended.into_iter().filter(|w| w.count > 0) {
            let repeat = serde_json::json!({
                "count": w.count,
                "first_timestamp": &*w.first_timestamp,
                "last_timestamp": &*w.last_timestamp,
                "event_ids": w.ids.iter().map(|id| format!("{id:016x}")).collect::<Vec<_>>(),
                "event_ids_omitted": w.ids_omitted,
                "window_seconds": window_s,
            });
            out.push(&with_repeat(&w.last, &repeat), w.severity);
            closed.push(w.uid);
        }
        (out, closed)
    }

    /// The summaries of `uids` were delivered: the batches that waited for them may be
    /// acknowledged (returned in order).
    pub fn summarised(&mut self, uids: &[u64]) -> Vec<u64> {
        for u in uids {
            self.open.remove(u);
        }
        self.release()
    }
}

/// A rendered JSON event (one object and a line break) with `"repeat": {...}` added as its last
/// field.
fn with_repeat(event: &[u8], repeat: &serde_json::Value) -> Vec<u8> {
    let body = event.strip_suffix(b"\n").unwrap_or(event);
    let mut out = Vec::with_capacity(body.len() + 200);
    match body.iter().rposition(|&b| b == b'}') {
        Some(end) => {
            out.extend_from_slice(&body[..end]);
            out.extend_from_slice(b",\"repeat\":");
            out.extend_from_slice(repeat.to_string().as_bytes());
            out.extend_from_slice(&body[end..]);
        }
        None => out.extend_from_slice(body),
    }
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Format;
    use crate::repeat::Parts;
    use crate::sink::render::EventMeta;

    fn batch(events: &[(u64, &str, Option<u64>)]) -> Rendered {
        let mut r = Rendered::new(&[crate::event::Style::full(Format::Json)]);
        for (key, ts, id) in events {
            let p = Parts::with_record(*key);
            r.push(format!("{{\"k\":{key},\"t\":\"{ts}\"}}\n").as_bytes(), Severity::Error);
            r.meta.push(EventMeta { parts: Some(p), timestamp: (*ts).into(), event_id: *id });
        }
        r
    }

    #[tokio::test(start_paused = true)]
    async fn repeats_are_held_and_summed_when_the_window_ends() {
        let mut d = Dedupe::new(DedupeSpec { window: Duration::from_secs(60), key: KeySpec::default() });
        let t0 = Instant::now();
        let r = batch(&[(1, "a", Some(10)), (1, "b", Some(11)), (2, "c", None), (1, "d", Some(12))]);
        let mut waits = Vec::new();
        let sent: Vec<bool> = (0..4).map(|i| d.admit(&r, 0, i, t0, &mut waits)).collect();
        assert_eq!(sent, [true, false, true, false]);
        assert_eq!(d.delivered(0, waits.clone()), Vec::<u64>::new(), "held until the summary is out");
        let mut w2 = Vec::new();
        let r2 = batch(&[(3, "e", None)]);
        assert!(d.admit(&r2, 0, 0, t0, &mut w2));
        assert_eq!(d.delivered(1, w2), Vec::<u64>::new(), "in order: behind the held batch");
        assert_eq!(d.next_due(), Some(t0 + Duration::from_secs(60)));
        let (none, _) = d.due(t0 + Duration::from_secs(59), false, crate::event::Style::full(Format::Json));
        assert!(none.is_empty());
        let (sum, closed) = d.due(t0 + Duration::from_secs(60), false, crate::event::Style::full(Format::Json));
        assert_eq!(sum.events(), 1, "one summary; windows without repeats end quietly");
        let v: serde_json::Value = serde_json::from_slice(sum.event(0, 0)).unwrap();
        assert_eq!(v["k"], 1);
        assert_eq!(v["t"], "d", "the summary is the last repeat");
        assert_eq!(v["repeat"]["count"], 2);
        assert_eq!(v["repeat"]["first_timestamp"], "b");
        assert_eq!(v["repeat"]["last_timestamp"], "d");
        assert_eq!(v["repeat"]["event_ids"], serde_json::json!(["000000000000000b", "000000000000000c"]));
        assert_eq!(d.summarised(&closed), vec![0, 1]);
        // After the window the key starts again.
        let mut w3 = Vec::new();
        assert!(d.admit(&r, 0, 0, t0 + Duration::from_secs(61), &mut w3));
    }

    #[test]
    fn the_repeat_object_is_added_inside_the_event() {
        let out = with_repeat(b"{\"a\":1}\n", &serde_json::json!({"count": 3}));
        assert_eq!(out, b"{\"a\":1,\"repeat\":{\"count\":3}}\n");
    }
}
