//! Follow mode run in-process: the daemon's `run` with its stop and reload passed as values
//! (`follow::Control`) instead of the process's signals, so that a test drives it without a
//! subprocess, signals or fixed sleeps. Real files, a real file sink and real checkpoints; the
//! tests wait for what they expect with a deadline, never a fixed time.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use annotail::annotate::Emit;
use annotail::config::{StartAt, WatchMode};
use annotail::event::Format;
use annotail::matcher::Matcher;
use annotail::metrics::Metrics;
use annotail::sink::SinkSpec;
use annotail::source::follow::{self, Control, Outcome, Runtime, Settings, SourceSpec};
use common::{TEST_CATALOG, info_line, lines, split_line};

fn matcher(catalog: &str) -> Arc<Matcher> {
    let (m, problems) = Matcher::new(annotail::catalog::from_text("test.jsonl", catalog), Default::default());
    assert!(problems.iter().all(|p| p.level != annotail::catalog::Level::Error), "{problems:?}");
    Arc::new(m)
}

fn settings(dir: &Path, out: &Path) -> Settings {
    let mut sink = SinkSpec::new(&format!("file:{}", out.display()), Format::Json).expect("file sink");
    sink.shape = Default::default();
    Settings {
        sources: vec![SourceSpec {
            pattern: dir.join("logs/*.log").display().to_string(),
            start_at: StartAt::Beginning,
            exclude: Vec::new(),
        }],
        watch: WatchMode::Auto,
        poll_interval: Duration::from_millis(50),
        idle: Duration::from_millis(50),
        line_timeout: Duration::from_millis(200),
        rotate_wait: Duration::from_secs(1),
        checkpoint_interval: Duration::from_millis(10),
        shutdown_timeout: Duration::from_secs(5),
        state_dir: dir.join("state"),
        state_dir_origin: "test",
        framing: Default::default(),
        emit: Emit::Matches,
        every_event: false,
        format: Format::Json,
        color: false,
        width: 80,
        incidents: Arc::new(annotail::repeat::Incidents::new(
            Default::default(),
            annotail::repeat::DEFAULT_WINDOW,
            false,
        )),
        sinks: vec![sink],
        shape: Default::default(),
        watch_config: Vec::new(),
        unknown: None,
    }
}

/// A daemon running on a thread of its own, stopped and reloaded through its `Control`.
struct Daemon {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    reload: tokio::sync::mpsc::UnboundedSender<()>,
    thread: Option<std::thread::JoinHandle<Result<Outcome, follow::FollowError>>>,
}

impl Daemon {
    fn start(settings: Settings, m: Arc<Matcher>, reloaded: Option<Arc<Matcher>>) -> Daemon {
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let (reload_tx, reload_rx) = tokio::sync::mpsc::unbounded_channel();
        let control = Control {
            shutdown: Box::pin(async move {
                let _ = stop_rx.await;
            }),
            reload: reload_rx,
        };
        let s = settings.clone();
        let reload: follow::Reloader = Box::new(move || match &reloaded {
            Some(m) => Ok((m.clone(), s.clone())),
            None => Err("no reload in this test".into()),
        });
        let thread = std::thread::spawn(move || {
            let runtime = Runtime::without_signals()?;
            follow::run(runtime, control, m, settings, reload, Arc::new(Metrics::new(0)))
        });
        Daemon { stop: Some(stop_tx), reload: reload_tx, thread: Some(thread) }
    }

    fn stop(mut self) -> Outcome {
        let _ = self.stop.take().expect("running").send(());
        self.thread.take().expect("running").join().expect("the daemon does not panic").expect("the run ends well")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// The events written to `out` once there are `n` of them (within 20 s: a loaded machine).
fn wait_events(out: &Path, n: usize) -> Vec<serde_json::Value> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let evs: Vec<serde_json::Value> = std::fs::read_to_string(out)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if evs.len() >= n || Instant::now() > deadline {
            return evs;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn append(path: &PathBuf, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).expect("open the log");
    f.write_all(text.as_bytes()).expect("append");
}

#[test]
fn stopped_through_its_control_the_daemon_delivers_checkpoints_and_resumes_without_repeats() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/meta.log"), dir.path().join("out.json"));
    append(&log, &lines(&[&info_line(1, "starting"), &split_line(2, 7), &split_line(3, 8)]));
    let m = matcher(TEST_CATALOG);
    let d = Daemon::start(settings(dir.path(), &out), m.clone(), None);
    let evs = wait_events(&out, 2);
    assert_eq!(evs.len(), 2, "both errors delivered: {evs:?}");
    append(&log, &lines(&[&split_line(4, 9)]));
    assert_eq!(wait_events(&out, 3).len(), 3, "a line appended while following is delivered");
    assert_eq!(d.stop(), Outcome::Stopped);
    assert!(dir.path().join("state").read_dir().unwrap().next().is_some(), "checkpoints written");
    // A second run from the same state directory reads only what was appended since.
    append(&log, &lines(&[&split_line(5, 10)]));
    let d = Daemon::start(settings(dir.path(), &out), m, None);
    let evs = wait_events(&out, 4);
    assert_eq!(d.stop(), Outcome::Stopped);
    let actors: Vec<&str> = evs.iter().map(|e| e["match"]["captures"]["actor_id"].as_str().unwrap_or("?")).collect();
    assert_eq!(actors, ["7", "8", "9", "10"], "every event once, in order, none repeated after the restart");
}

#[test]
fn a_reload_asked_through_its_control_applies_the_new_catalog() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("logs")).unwrap();
    let (log, out) = (dir.path().join("logs/meta.log"), dir.path().join("out.json"));
    let extra = r#"{"id":"t-new","slug":"fresh-record","errorMessage":"compactor {id} lost its lease","messagePattern":"compactor (.+?) lost its lease"}"#;
    let line = |sec| common::rw_line(sec, "ERROR", "risingwave_meta::hummock", "compactor 3 lost its lease");
    append(&log, &lines(&[&line(1), &split_line(2, 7)]));
    let reloaded = matcher(&format!("{TEST_CATALOG}{extra}\n"));
    let d = Daemon::start(settings(dir.path(), &out), matcher(TEST_CATALOG), Some(reloaded));
    assert_eq!(wait_events(&out, 1).len(), 1, "only the known error before the reload");
    d.reload.send(()).unwrap();
    // After the reload a new line of the new record is matched; the one before is not read again.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut sec = 3;
    let evs = loop {
        append(&log, &lines(&[&line(sec)]));
        sec += 1;
        let evs = wait_events(&out, 2);
        if evs.len() >= 2 || Instant::now() > deadline {
            break evs;
        }
    };
    assert_eq!(d.stop(), Outcome::Stopped);
    assert_eq!(evs[0]["match"]["id"], "t-split");
    assert!(evs.len() >= 2 && evs[1..].iter().all(|e| e["match"]["id"] == "t-new"), "{evs:?}");
    assert!(evs[1]["source"]["line"].as_u64().unwrap() >= 3, "the line before the reload is not read again");
}
