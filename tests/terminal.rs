//! The terminal view checked the way a person sees it: annotail runs in a real tmux pane (a
//! real terminal of a known size), and the tests assert on the captured screen: the annotation
//! box, wrapping done by annotail at the pane's width (not by the terminal), colours only when
//! allowed, and the `--summary` table, also after a real Ctrl-C typed into the pane.
//!
//! tmux is required (`.ci/run` installs it).

mod common;

use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use common::PATIENCE;

const LONG_FIX: &str = "If the actor keeps failing after a restart, look at the compute node's logs around the \
                        barrier's epoch, and check whether the node ran out of memory";

/// A tmux server of its own (its own socket), killed with the test.
struct Tmux {
    socket: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmux {
    fn new() -> Tmux {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success()),
            "tmux is needed for the terminal tests (apt-get install tmux)"
        );
        Tmux { socket: dir.path().join("tmux.sock"), _dir: dir }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().unwrap();
        assert!(out.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// Run `shell` in a new pane of `width` columns; the environment is the pane's own.
    fn run(&self, width: u16, shell: &str) {
        let (w, h) = (width.to_string(), "60".to_string());
        // remain-on-exit: the screen stays capturable even if the pane's shell ends early.
        self.tmux(&[
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &w,
            "-y",
            &h,
            shell,
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
        ]);
    }

    /// The visible screen (`-e`: with escape sequences); trailing blank lines dropped.
    fn screen(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", "t"];
        if escapes {
            args.push("-e");
        }
        self.tmux(&args).trim_end().to_owned()
    }

    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen(false);
            if s.contains(text) {
                return s;
            }
            assert!(start.elapsed() < PATIENCE, "{text:?} never appeared on the screen:\n{s}");
            thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
    }
}

/// A catalog (the test catalog, with a long solution on `t-split`) and a three-line log.
fn setup(dir: &Path) -> (String, String) {
    let mut cat = String::new();
    for line in common::TEST_CATALOG.lines() {
        let mut r: serde_json::Value = serde_json::from_str(line).unwrap();
        if r["id"] == "t-split" {
            r["solutions"].as_array_mut().unwrap().push(LONG_FIX.into());
        }
        cat.push_str(&r.to_string());
        cat.push('\n');
    }
    let catalog = dir.join("catalog.jsonl");
    std::fs::write(&catalog, cat).unwrap();
    let log = dir.join("in.log");
    std::fs::write(
        &log,
        "2026-03-02T08:00:00.011660911Z  INFO risingwave_meta_node::server: starting leader services\n\
         2026-03-02T08:00:01.011660911Z ERROR risingwave_meta::barrier: barrier collection failed for actor 1234\n\
         2026-03-02T08:00:02.011660911Z  INFO risingwave_meta: done\n",
    )
    .unwrap();
    (catalog.display().to_string(), log.display().to_string())
}

/// The pane's command: annotail on a terminal (pretty by default), then a marker.
fn command(env: &str, args: &str) -> String {
    format!("env -u COLUMNS -u NO_COLOR {env} {} {args}; echo __DONE__; sleep 60", common::bin())
}

/// The annotation's lines: from the box's first line to the next log line.
fn annotation(screen: &str) -> Vec<&str> {
    screen.lines().skip_while(|l| !l.contains("╰─")).take_while(|l| !l.starts_with("2026-")).collect()
}

#[test]
fn pretty_view_wraps_at_the_pane_width_with_colours_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (catalog, log) = setup(dir.path());
    for width in [80u16, 56] {
        let t = Tmux::new();
        t.run(width, &command("", &format!("--summary -c {catalog} {log}")));
        let screen = t.wait_for("__DONE__");
        let box_ = annotation(&screen);
        assert!(box_[0].starts_with("  ╰─ WARNING barrier-collect (t-split)"), "{screen}");
        assert!(box_.contains(&"     actor_id = 1234"), "{screen}");
        assert!(box_.contains(&"     fix: restart the actor"), "{screen}");
        // annotail wrapped the long solution itself, at word boundaries, indented: every line
        // fits the pane, continuation lines are indented, and the words are all there in order.
        let fix_at = box_.iter().position(|l| l.starts_with("     fix: If the actor")).expect("the long fix");
        let mut words: Vec<&str> = box_[fix_at].trim_start().strip_prefix("fix: ").unwrap().split(' ').collect();
        let mut next = fix_at + 1;
        while next < box_.len() && box_[next].starts_with("       ") && !box_[next].trim_start().starts_with("fix:") {
            words.extend(box_[next].trim_start().split(' '));
            next += 1;
        }
        assert!(next > fix_at + 1, "the long fix was wrapped at {width} columns:\n{screen}");
        assert_eq!(words.join(" "), LONG_FIX, "{screen}");
        for l in &box_ {
            assert!(l.chars().count() <= width as usize, "a line longer than the pane: {l:?}\n{screen}");
        }
        // The summary follows the events.
        let sum_at = screen.find("annotail summary").expect("summary");
        assert!(sum_at > screen.find("╰─").unwrap());
        assert!(screen.contains("  known errors  1 event, 1 match of 1 record"), "{screen}");
        assert!(
            screen
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["1", "1", "warning", "barrier-collect", "(t-split)"]),
            "{screen}"
        );
        // Colours on a terminal: the warning in yellow.
        assert!(t.screen(true).contains("\x1b[33m"), "no colour on a terminal");
    }
}

#[test]
fn no_color_turns_colours_off() {
    let dir = tempfile::tempdir().unwrap();
    let (catalog, log) = setup(dir.path());
    let t = Tmux::new();
    t.run(80, &command("NO_COLOR=1", &format!("--summary -c {catalog} {log}")));
    t.wait_for("__DONE__");
    let screen = t.screen(true);
    assert!(screen.contains("╰─ WARNING barrier-collect"), "{screen}");
    assert!(!screen.contains('\x1b'), "escape sequences despite NO_COLOR:\n{screen:?}");
}

#[test]
fn ctrl_c_in_the_pane_prints_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let (catalog, log) = setup(dir.path());
    let t = Tmux::new();
    // `tail -f` never ends by itself: the way `kubectl logs -f | annotail` is used.
    // The pane's shell gets the Ctrl-C too: it traps it (children still get the default
    // disposition) so that it lives on to print the exit status.
    let shell = format!(
        "trap : INT; tail -n +1 -f {log} | env -u COLUMNS {} --summary -c {catalog}; echo __EXIT_$?__; sleep 60",
        common::bin()
    );
    t.run(80, &shell);
    t.wait_for("╰─ WARNING barrier-collect");
    t.tmux(&["send-keys", "-t", "t", "C-c"]);
    let screen = t.wait_for("__EXIT_");
    assert!(screen.contains("annotail summary (interrupted)"), "{screen}");
    assert!(screen.contains("lines read    3"), "{screen}");
    assert!(screen.contains("__EXIT_130__"), "{screen}");
}

#[test]
fn a_resized_pane_gets_the_new_width_from_the_next_annotation() {
    let dir = tempfile::tempdir().unwrap();
    let (catalog, log) = setup(dir.path());
    let t = Tmux::new();
    let shell = format!("tail -n +1 -f {log} | env -u COLUMNS {} -c {catalog}; sleep 60", common::bin());
    t.run(80, &shell);
    t.wait_for("actor_id = 1234");
    t.tmux(&["resize-window", "-t", "t", "-x", "50"]);
    // Let the pane take its new size before the next error arrives.
    let start = Instant::now();
    while t.tmux(&["display-message", "-p", "-t", "t", "#{pane_width}"]).trim() != "50" {
        assert!(start.elapsed() < PATIENCE, "the pane was not resized");
        thread::sleep(Duration::from_millis(20));
    }
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(
        &mut f,
        b"2026-03-02T08:00:03.011660911Z ERROR risingwave_meta::barrier: barrier collection failed for actor 5678\n",
    )
    .unwrap();
    let screen = t.wait_for("actor_id = 5678");
    // The screen may still hold the first annotation (rewrapped or cut by tmux); the second is
    // the one after the new error line.
    let second: Vec<&str> =
        screen.lines().skip_while(|l| !l.contains("actor_id = 5678")).take_while(|l| !l.is_empty()).collect();
    let fix_at = second.iter().position(|l| l.starts_with("     fix: If the actor")).expect("the long fix");
    let mut words: Vec<&str> = second[fix_at].trim_start().strip_prefix("fix: ").unwrap().split(' ').collect();
    for l in &second[fix_at + 1..] {
        // A line the terminal wrapped (annotail wrote it for 80 columns) does not start indented.
        assert!(l.starts_with("       "), "not a continuation of annotail's wrapping: {l:?}\n{screen}");
        words.extend(l.trim_start().split(' '));
    }
    assert_eq!(words.join(" "), LONG_FIX, "{screen}");
    assert!(second.len() - fix_at >= 4, "wrapped at 50 columns, not 80:\n{screen}");
    for l in &second {
        assert!(l.chars().count() <= 50, "{l:?}\n{screen}");
    }
}
