//! The command line over the config file, resolved and checked before anything starts: what
//! cannot work (a state directory, a TLS CA file, a glob, a sink URL) is refused with where it
//! is, exit status 2, before the metrics endpoint is served or an input read; an option wins
//! over the file's key, and the file's key over the default.
//!
//! "Before the metrics endpoint" is tested with a metrics address already taken by the test:
//! had the endpoint been started first, its error ("cannot serve metrics") would be the one
//! reported.

mod common;

use std::fs;
use std::net::TcpListener;
use std::process::Output;

use common::*;

/// A port on 127.0.0.1 held by the test for as long as the listener lives.
fn busy_port() -> (TcpListener, String) {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = l.local_addr().expect("addr").to_string();
    (l, addr)
}

/// `annotail ARGS` in `dir`, with the test catalog, nothing on standard input.
fn run_in(fx: &Fixture, args: &[&str]) -> Output {
    let mut c = cmd();
    c.current_dir(fx.dir.path()).arg("-c").arg(&fx.catalog).args(args);
    run_cmd(&mut c, b"")
}

/// Refused with exit status 2, the reason alone on standard error, nothing on standard output.
fn refused(out: &Output) -> String {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(out.stdout.is_empty(), "nothing written: {}", String::from_utf8_lossy(&out.stdout));
    assert!(!err.contains("cannot serve metrics"), "refused before the metrics endpoint: {err}");
    err
}

fn logs(fx: &Fixture) -> String {
    fx.write("logs/a.log", lines(&[&split_line(1, 7)]));
    path_str(&fx.path("logs/*.log"))
}

#[test]
fn a_state_directory_that_cannot_be_made_is_refused_before_the_metrics_endpoint() {
    let fx = fixture();
    let glob = logs(&fx);
    fx.write("file", b"");
    let (_held, addr) = busy_port();
    // From the option.
    let out = run_in(&fx, &["--follow", &glob, "--state-dir", "file/state", "--metrics-addr", &addr]);
    let err = refused(&out);
    assert_eq!(
        err,
        "annotail: cannot use state directory file/state: Not a directory (os error 20) (choose another with --state-dir or state.dir)\n"
    );
    // From the config file: its relative path is the file's directory's, not the working one.
    fx.write("conf/file", b"");
    let cfg = fx.write(
        "conf/annotail.toml",
        format!("[[sources]]\npaths = [{glob:?}]\n[state]\ndir = \"file/state\"\n[metrics]\naddr = \"{addr}\"\n"),
    );
    let out = run_in(&fx, &["--config", &path_str(&cfg)]);
    let err = refused(&out);
    let dir = fx.path("conf/file/state");
    assert!(err.starts_with(&format!("annotail: cannot use state directory {}: ", dir.display())), "{err}");
}

#[test]
fn a_state_directory_that_can_be_made_is_made_and_used() {
    let fx = fixture();
    let glob = logs(&fx);
    let state = fx.path("deep/er/state");
    let out = cmd()
        .current_dir(fx.dir.path())
        .args(["-c", &path_str(&fx.catalog), "--follow", &glob, "--state-dir", &path_str(&state)])
        .args(["--output", "file:/nonexistent-dir-for-a-test/out.json"])
        .output()
        .expect("run");
    // The sink is refused first; the directory check comes after the sinks, so nothing was
    // made for a run that could not start.
    let err = refused(&out);
    assert!(err.contains("--output file:/nonexistent-dir-for-a-test/out.json"), "{err}");
    assert!(!state.exists(), "no state directory made for a refused run");
    // A run that starts makes it and keeps its checkpoints there.
    let mut child = cmd()
        .current_dir(fx.dir.path())
        .args(["-c", &path_str(&fx.catalog), "--follow", &glob, "--state-dir", &path_str(&state)])
        .args(["--output", &format!("file:{}", fx.path("out.json").display())])
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let start = std::time::Instant::now();
    while !state.join("checkpoints.json").exists() {
        assert!(start.elapsed() < PATIENCE, "no checkpoints in {}", state.display());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let leftovers: Vec<_> = fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".probe"))
        .collect();
    assert!(leftovers.is_empty(), "the writability probe is removed: {leftovers:?}");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn a_tls_ca_file_that_cannot_be_used_is_named_before_the_metrics_endpoint() {
    let fx = fixture();
    let glob = logs(&fx);
    fx.write("not-a-cert.pem", b"hello\n");
    let (_held, addr) = busy_port();
    let cases = [
        ("missing.pem", "cannot read: No such file or directory (os error 2)"),
        ("not-a-cert.pem", "no certificate in it"),
    ];
    for (ca, why) in cases {
        let cfg = fx.write(
            "annotail.toml",
            format!(
                "[[sinks]]\nurl = \"https://127.0.0.1:9/in\"\ntls_ca_file = \"{ca}\"\n[metrics]\naddr = \"{addr}\"\n"
            ),
        );
        let want =
            format!("annotail: sinks[0] (https://127.0.0.1:9/in): tls_ca_file: {}: {why}\n", fx.path(ca).display());
        // Read to the end, and followed: the same check, the same message.
        for follow in [false, true] {
            let mut args = vec!["--config".to_owned(), path_str(&cfg)];
            if follow {
                args.extend([
                    "--follow".to_owned(),
                    glob.clone(),
                    "--state-dir".to_owned(),
                    path_str(&fx.path("state")),
                ]);
            } else {
                args.push(path_str(&fx.path("logs/a.log")));
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            assert_eq!(refused(&run_in(&fx, &args)), want, "follow: {follow}");
        }
    }
    assert!(!fx.path("state").exists(), "no state directory made for a refused run");
}

#[test]
fn a_bad_glob_is_named_before_the_metrics_endpoint() {
    let fx = fixture();
    let glob = logs(&fx);
    let (_held, addr) = busy_port();
    let bad = path_str(&fx.path("logs/[a.log"));
    let out = run_in(&fx, &["--follow", &bad, "--metrics-addr", &addr, "--state-dir", "state"]);
    let err = refused(&out);
    assert!(err.starts_with(&format!("annotail: {bad:?} is not a valid glob: ")), "{err}");
    let out = run_in(&fx, &["--follow", &glob, "--exclude", "[x", "--metrics-addr", &addr, "--state-dir", "state"]);
    let err = refused(&out);
    assert!(err.starts_with("annotail: \"[x\" is not a valid glob: "), "{err}");
    // In the config file: refused as the file is loaded, with the key.
    let cfg = fx.write("annotail.toml", "[[sources]]\npaths = [\"logs/[a.log\"]\n");
    let err = refused(&run_in(&fx, &["--config", &path_str(&cfg)]));
    assert!(err.starts_with(&format!("annotail: config {}: line 2: sources[0].paths: ", cfg.display())), "{err}");
    assert!(err.contains("is not a valid glob"), "{err}");
    assert!(!fx.path("state").exists(), "no state directory made for a refused run");
}

#[test]
fn a_bad_sink_url_is_named_before_the_metrics_endpoint() {
    let fx = fixture();
    let glob = logs(&fx);
    let log = path_str(&fx.path("logs/a.log"));
    let (_held, addr) = busy_port();
    for args in [vec![log.as_str()], vec!["--follow", &glob, "--state-dir", "state"]] {
        let mut all = vec!["--output", "ftp://x", "--metrics-addr", &addr];
        all.extend(&args);
        let err = refused(&run_in(&fx, &all));
        assert!(err.starts_with("annotail: --output ") && err.contains("ftp://x"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // Every sink's problem is reported, each on its line, named by where it was configured.
    let dir = "/nonexistent-dir-for-a-test";
    let out = run_in(&fx, &["--output", &format!("file:{dir}/a"), "--output", &format!("file:{dir}/b"), &log]);
    assert_eq!(
        refused(&out),
        format!(
            "annotail: --output file:{dir}/a: file:{dir}/a: the directory {dir} does not exist\n\
             annotail: --output file:{dir}/b: file:{dir}/b: the directory {dir} does not exist\n"
        )
    );
    let cfg = fx.write("annotail.toml", format!("[[sinks]]\nurl = \"ftp://x\"\n[metrics]\naddr = \"{addr}\"\n"));
    let err = refused(&run_in(&fx, &["--config", &path_str(&cfg), &log]));
    assert!(err.starts_with(&format!("annotail: config {}: line 2: sinks[0].url: ", cfg.display())), "{err}");
}

#[test]
fn a_busy_metrics_address_is_still_refused_when_everything_else_is_right() {
    let fx = fixture();
    let log = path_str(&fx.path("logs/a.log"));
    logs(&fx);
    let (_held, addr) = busy_port();
    let out = run_in(&fx, &["--metrics-addr", &addr, &log]);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with(&format!("annotail: cannot serve metrics on {addr}: ")), "{err}");
}

/// An option wins over the file's key, and the file's key over the default, key by key.
#[test]
fn options_override_the_config_file_and_the_file_overrides_defaults() {
    let fx = fixture();
    let log = fx.write("in.log", lines(&[&info_line(1, "starting"), &split_line(2, 7)]));
    let log = path_str(&log);
    let cfg = fx.write(
        "annotail.toml",
        "[output]\nformat = \"ecs\"\nall = true\nrecord_fields = \"none\"\n[[sinks]]\nurl = \"file:from-config.json\"\n",
    );
    let cfg = path_str(&cfg);
    // The file alone: ECS, every event, into its sink.
    let out = run_in(&fx, &["--config", &cfg, &log]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let evs = events(&fs::read(fx.path("from-config.json")).expect("the config's sink"));
    assert_eq!(evs.len(), 2, "all = true: the INFO line too: {evs:?}");
    assert!(evs.iter().all(|e| e.get("@timestamp").is_some() && e.get("schema").is_none()), "ecs: {evs:?}");
    fs::remove_file(fx.path("from-config.json")).unwrap();
    // Options over it: json, and --output replaces the file's sinks; `all` is still the file's.
    let out = run_in(&fx, &["--config", &cfg, "--format", "json", "--output", "file:from-cli.json", &log]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    assert!(!fx.path("from-config.json").exists(), "--output replaces the config's sinks");
    let evs = events(&fs::read(fx.path("from-cli.json")).expect("the option's sink"));
    assert_eq!(evs.len(), 2, "{evs:?}");
    assert!(evs.iter().all(|e| e["schema"] == "annotail/1"), "--format json: {evs:?}");
    let matched = evs.iter().find(|e| e["match"].is_object()).expect("a match");
    assert!(matched["match"].get("template").is_none(), "record_fields = none from the file: {matched}");
    let out = run_in(&fx, &["--config", &cfg, "--format", "json", "--record-fields", "all", "--output", "-", &log]);
    let evs = ok_events(&out);
    let matched = evs.iter().find(|e| e["match"].is_object()).expect("a match");
    assert!(matched["match"].get("template").is_some(), "--record-fields all over the file's none: {matched}");
}

#[test]
fn the_state_directory_option_wins_over_the_config_file() {
    let fx = fixture();
    let glob = logs(&fx);
    fx.write("file", b"");
    let cfg =
        fx.write("annotail.toml", format!("[[sources]]\npaths = [{glob:?}]\n[state]\ndir = \"file/from-config\"\n"));
    let cfg = path_str(&cfg);
    let err = refused(&run_in(&fx, &["--config", &cfg]));
    assert!(err.contains("from-config"), "{err}");
    let err = refused(&run_in(&fx, &["--config", &cfg, "--state-dir", "file/from-option"]));
    assert!(err.contains("cannot use state directory file/from-option:") && !err.contains("from-config"), "{err}");
}

#[test]
fn framing_limits_from_the_file_apply_and_the_option_wins() {
    let fx = fixture();
    // A multi-line event of three lines: with max_event_lines = 1 each line is an event.
    let text = lines(&[&split_line(1, 7), "  at frame one", "  at frame two"]);
    let log = path_str(&fx.write("in.log", text));
    let cfg =
        path_str(&fx.write("annotail.toml", "[input]\nmax_event_lines = 1\n[output]\nall = true\nformat = \"json\"\n"));
    let count = |args: &[&str]| {
        let out = run_in(&fx, args);
        ok_events(&out).len()
    };
    let default = count(&["--all", "--format", "json", &log]);
    let from_file = count(&["--config", &cfg, &log]);
    let from_option = count(&["--config", &cfg, "--max-event-lines", "1000", &log]);
    assert_eq!((default, from_file, from_option), (1, 3, 1));
}
