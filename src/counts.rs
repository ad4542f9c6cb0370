//! Counts: what a run has read and seen, as plain numbers.
//!
//! Owns the counting types that travel between the stages: [`Framed`] (lines and bytes the framer
//! read), [`Counters`] (events the annotator saw, wrote and matched) and [`Totals`] (both, for
//! one input or a whole run). Each is a flat struct of `u64`s with `+=` and `-` written once, by
//! [`counts!`], so that a snapshot's difference to an earlier one (`now - before`, what metrics
//! publish) and a sum over segments or inputs (`total += part`) cannot forget a field.
//!
//! Contract: a leaf. It imports nothing of the crate, so every stage and the metrics may use it
//! without a cycle. Per-record counts (which record matched how often) live with the metrics
//! ([`crate::metrics::Tally`]): they are shared across threads and sized by the catalog.

use std::ops::{AddAssign, Sub};

/// A struct of counts, with `+=` and `-` over every field.
macro_rules! counts {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* pub $f:ident: $t:ty,)* }) => {
        $(#[$m])*
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
        pub struct $name {
            $($(#[$fm])* pub $f: $t,)*
        }

        impl AddAssign for $name {
            fn add_assign(&mut self, o: $name) {
                $(self.$f += o.$f;)*
            }
        }

        impl Sub for $name {
            type Output = $name;
            /// What was counted since `o`, an earlier snapshot of the same counts.
            fn sub(self, o: $name) -> $name {
                $name { $($f: self.$f - o.$f,)* }
            }
        }
    };
}

counts! {
    /// What the framer read: physical lines, bytes, and lines cut at `--max-line-bytes`.
    pub struct Framed {
        pub lines: u64,
        pub bytes: u64,
        pub truncated_lines: u64,
    }
}

counts! {
    /// What the annotator saw of the events the framer handed it.
    pub struct Counters {
        pub events: u64,
        pub written: u64,
        pub matched: u64,
        pub candidates: u64,
        /// Events that had prefilter candidates and were confirmed.
        pub examined: u64,
        pub json_errors: u64,
        pub internal_errors: u64,
        /// Matches reported as context (found only in a span field of a line below WARN).
        pub context: u64,
    }
}

counts! {
    /// The counts of one input, or of a whole run.
    pub struct Totals {
        pub lines: u64,
        pub bytes: u64,
        pub truncated_lines: u64,
        pub counters: Counters,
    }
}

impl Totals {
    pub fn new(framed: Framed, counters: Counters) -> Totals {
        Totals { lines: framed.lines, bytes: framed.bytes, truncated_lines: framed.truncated_lines, counters }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difference_and_sum_cover_every_field() {
        let c = Counters { events: 9, written: 8, matched: 7, candidates: 6, examined: 5, json_errors: 4, internal_errors: 3, context: 2 };
        let a = Totals { lines: 10, bytes: 100, truncated_lines: 1, counters: c };
        let mut sum = Totals::default();
        sum += a;
        sum += a;
        assert_eq!(sum - a, a);
        assert_eq!(sum.counters.context, 4);
        assert_eq!((sum - a - a), Totals::default());
        assert_eq!(Totals::new(Framed { lines: 10, bytes: 100, truncated_lines: 1 }, c), a);
    }
}
