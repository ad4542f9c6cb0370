//! Time for follow mode's timers: the system's, or one a test moves by hand.
//!
//! Owns the "now" of every follow-mode timer — idle and line timeouts, `rotate_wait`, the poll,
//! the reload debounce, the source-empty warnings — on the reader thread, and the checkpoint
//! saver's interval on the tokio side. The daemon runs on [`Clock::system`]; an in-process test
//! passes a [`TestClock`] (through [`super::Runtime::with_clock`]) and moves it with
//! [`TestClock::advance`], so a test of a timeout takes no real time and cannot be early or late.
//!
//! Contract: with a test clock, time moves only when the test advances it; each advance wakes
//! the reader, which then runs a full turn (reads every followed file, runs every timer) before
//! it sleeps again. [`TestClock::settle`] returns once the reader has done that for every
//! advance so far and is asleep: what it would do at this time is done. The shutdown deadline
//! stays on real time (it bounds a test that goes wrong).

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::watch::Wake;

/// The time follow mode's timers read.
#[derive(Clone, Default)]
pub struct Clock(Option<Arc<Manual>>);

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Clock(test)" } else { "Clock(system)" })
    }
}

/// A clock that moves only when told to.
#[derive(Clone, Debug)]
pub struct TestClock(Arc<Manual>);

#[derive(Debug)]
struct Manual {
    state: Mutex<State>,
    /// Signalled when the reader goes to sleep.
    parked: Condvar,
    /// The time, for the checkpoint saver's sleeps (tokio side).
    tick: tokio::sync::watch::Sender<Instant>,
}

#[derive(Debug)]
struct State {
    now: Instant,
    /// Advances so far.
    advances: u64,
    /// The advances the reader had acted on when it last went to sleep (it is asleep while
    /// `asleep` is true).
    seen: u64,
    asleep: bool,
    /// Sleeps of [`Clock::sleep`] under way (the checkpoint saver's).
    sleeping: usize,
    /// The readers to wake on an advance.
    wakes: Vec<Sender<Wake>>,
}

impl Clock {
    /// The system's monotonic clock.
    pub fn system() -> Clock {
        Clock(None)
    }

    pub fn now(&self) -> Instant {
        match &self.0 {
            None => Instant::now(),
            Some(m) => m.state.lock().expect("clock lock").now,
        }
    }

    /// Wake `wake` (the reader's channel) whenever a test advances the clock.
    pub(super) fn subscribe(&self, wake: Sender<Wake>) {
        if let Some(m) = &self.0 {
            m.state.lock().expect("clock lock").wakes.push(wake);
        }
    }

    /// The reader's sleep: the next wake, or `Err(Timeout)` at `deadline`.
    pub(super) fn wait(&self, rx: &Receiver<Wake>, deadline: Instant) -> Result<Wake, RecvTimeoutError> {
        let Some(m) = &self.0 else {
            return rx.recv_timeout(deadline.saturating_duration_since(Instant::now()));
        };
        {
            // Under the lock an advance cannot slip between the look at the channel and the
            // record that the reader is asleep (an advance sends its wake under the lock).
            let mut s = m.state.lock().expect("clock lock");
            match rx.try_recv() {
                Ok(w) => return Ok(w),
                Err(std::sync::mpsc::TryRecvError::Disconnected) => return Err(RecvTimeoutError::Disconnected),
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
            }
            if s.now >= deadline {
                return Err(RecvTimeoutError::Timeout);
            }
            s.seen = s.advances;
            s.asleep = true;
            m.parked.notify_all();
        }
        let w = rx.recv().map_err(|_| RecvTimeoutError::Disconnected);
        m.state.lock().expect("clock lock").asleep = false;
        w
    }

    /// Sleep for `d` of this clock's time (the checkpoint saver).
    pub(super) async fn sleep(&self, d: Duration) {
        let Some(m) = &self.0 else {
            return tokio::time::sleep(d).await;
        };
        struct Sleeping<'a>(&'a Manual);
        impl Drop for Sleeping<'_> {
            fn drop(&mut self) {
                self.0.state.lock().expect("clock lock").sleeping -= 1;
            }
        }
        let mut tick = m.tick.subscribe();
        let until = {
            let mut s = m.state.lock().expect("clock lock");
            s.sleeping += 1;
            s.now + d
        };
        let _sleeping = Sleeping(m);
        while *tick.borrow_and_update() < until {
            if tick.changed().await.is_err() {
                return;
            }
        }
    }
}

impl TestClock {
    pub fn new() -> TestClock {
        let now = Instant::now();
        let (tick, _) = tokio::sync::watch::channel(now);
        TestClock(Arc::new(Manual {
            state: Mutex::new(State { now, advances: 0, seen: 0, asleep: false, sleeping: 0, wakes: Vec::new() }),
            parked: Condvar::new(),
            tick,
        }))
    }

    /// The clock to give the daemon.
    pub fn clock(&self) -> Clock {
        Clock(Some(self.0.clone()))
    }

    pub fn now(&self) -> Instant {
        self.0.state.lock().expect("clock lock").now
    }

    /// Move time forward by `d` and wake the reader.
    pub fn advance(&self, d: Duration) {
        let mut s = self.0.state.lock().expect("clock lock");
        s.now += d;
        s.advances += 1;
        s.wakes.retain(|w| w.send(Wake::Data).is_ok());
        self.0.tick.send_replace(s.now);
    }

    /// Sleeps on this clock under way (the checkpoint saver's, waiting out its interval).
    pub fn sleeping(&self) -> usize {
        self.0.state.lock().expect("clock lock").sleeping
    }

    /// Wait (up to `limit` of real time) until the reader has acted on every advance so far and
    /// sleeps; false if it did not within `limit`.
    pub fn settle(&self, limit: Duration) -> bool {
        let s = self.0.state.lock().expect("clock lock");
        let (_s, timeout) =
            self.0.parked.wait_timeout_while(s, limit, |s| !(s.asleep && s.seen == s.advances)).expect("clock lock");
        !timeout.timed_out()
    }
}

impl Default for TestClock {
    fn default() -> Self {
        TestClock::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_times_out_only_once_the_test_clock_passes_its_deadline() {
        let t = TestClock::new();
        let c = t.clock();
        let (tx, rx) = std::sync::mpsc::channel();
        c.subscribe(tx);
        let deadline = t.now() + Duration::from_secs(5);
        let reader = std::thread::spawn(move || {
            let mut wakes = 0;
            loop {
                match c.wait(&rx, deadline) {
                    Ok(_) => wakes += 1,
                    Err(RecvTimeoutError::Timeout) => return Some(wakes),
                    Err(RecvTimeoutError::Disconnected) => return None,
                }
            }
        });
        assert!(t.settle(Duration::from_secs(20)), "the reader sleeps");
        t.advance(Duration::from_secs(4));
        assert!(t.settle(Duration::from_secs(20)), "woken, it sleeps again");
        assert!(!reader.is_finished(), "4 s of 5: still waiting");
        t.advance(Duration::from_secs(1));
        assert_eq!(reader.join().unwrap(), Some(2), "woken by each advance, then the deadline");
    }

    #[test]
    fn a_sleep_ends_when_the_test_clock_has_moved_that_far() {
        let t = TestClock::new();
        let c = t.clock();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let sleep = tokio::spawn(async move { c.sleep(Duration::from_secs(10)).await });
            while t.sleeping() == 0 {
                tokio::task::yield_now().await;
            }
            t.advance(Duration::from_secs(9));
            tokio::task::yield_now().await;
            assert!(!sleep.is_finished(), "9 s of 10");
            assert_eq!(t.sleeping(), 1);
            t.advance(Duration::from_secs(1));
            sleep.await.unwrap();
            assert_eq!(t.sleeping(), 0);
        });
    }
}
