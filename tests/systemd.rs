//! The systemd unit `systemd/annotail.service`: its hardening directives are present with the
//! intended values, `systemd-analyze verify` accepts it without a word about it, and
//! `systemd-analyze security --offline` scores its exposure below [`MAX_EXPOSURE`].
//!
//! Needs `systemd-analyze` (Debian package `systemd`) and `/bin/kill` (package `procps`, for
//! `ExecReload=`); `.ci/run` installs both. Every `Exec*=` command must be an executable file, so
//! the unit's `/usr/local/bin/annotail` is rewritten to the binary under test.
#![cfg(target_os = "linux")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Where the unit installs the binary; rewritten for `verify` and `security`.
const INSTALLED_BIN: &str = "/usr/local/bin/annotail";
const CONFIG: &str = "/etc/annotail/annotail.toml";
/// `systemd-analyze security` scale: 0 (locked down) to 10 (unsafe); below 2 is "OK". The unit
/// scores 1.3 with systemd 252; the margin absorbs scoring changes in other systemd versions.
const MAX_EXPOSURE: f64 = 3.0;

fn unit_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("systemd/annotail.service")
}

fn unit_text() -> String {
    std::fs::read_to_string(unit_path()).expect("read systemd/annotail.service")
}

/// One `Key=value` assignment with its section.
#[derive(Debug)]
struct Assignment {
    section: String,
    key: String,
    value: String,
}

/// Unit-file syntax as far as this unit needs it: `[Section]` headers, `#`/`;` comment lines,
/// a trailing backslash continuing a line (joined with a space, as systemd does).
fn parse_unit(text: &str) -> Vec<Assignment> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut pending = String::new();
    for raw in text.lines() {
        let line = raw.trim();
        if pending.is_empty() && (line.is_empty() || line.starts_with('#') || line.starts_with(';')) {
            continue;
        }
        if let Some(cont) = line.strip_suffix('\\') {
            pending.push_str(cont);
            pending.push(' ');
            continue;
        }
        let full = std::mem::take(&mut pending) + line;
        if full.starts_with('[') {
            assert!(full.ends_with(']'), "malformed section header: {full}");
            section = full[1..full.len() - 1].to_owned();
            continue;
        }
        let (key, value) = full.split_once('=').unwrap_or_else(|| panic!("line without '=' in [{section}]: {full}"));
        assert!(!section.is_empty(), "assignment before any section: {full}");
        out.push(Assignment { section: section.clone(), key: key.trim().to_owned(), value: value.trim().to_owned() });
    }
    assert!(pending.is_empty(), "unit ends in a continuation line");
    out
}

struct Unit(Vec<Assignment>);

impl Unit {
    fn load() -> Self {
        Unit(parse_unit(&unit_text()))
    }

    /// Every value assigned to `key` in `section`, in file order.
    fn all(&self, section: &str, key: &str) -> Vec<&str> {
        self.0.iter().filter(|a| a.section == section && a.key == key).map(|a| a.value.as_str()).collect()
    }

    /// The effective value of a single-valued setting (the last assignment wins); the setting
    /// must be present.
    fn get(&self, section: &str, key: &str) -> &str {
        self.all(section, key).last().unwrap_or_else(|| panic!("[{section}] {key}= is missing"))
    }

    fn service(&self, key: &str) -> &str {
        self.get("Service", key)
    }
}

/// A systemd time span as this unit writes them ("30s", "5min", "90"), in seconds.
fn seconds(span: &str) -> u64 {
    let digits: String = span.chars().take_while(char::is_ascii_digit).collect();
    let n: u64 = digits.parse().unwrap_or_else(|_| panic!("not a time span: {span}"));
    match &span[digits.len()..] {
        "" | "s" | "sec" => n,
        "min" | "m" => n * 60,
        unit => panic!("time unit {unit:?} in {span:?} not handled by this test"),
    }
}

// ---------------------------------------------------------------------------------------------
// 1. The unit text.

#[test]
fn unit_runs_the_daemon_as_designed() {
    let u = Unit::load();
    let t = u.service("Type");
    assert!(t == "simple" || t == "exec", "Type={t}");
    assert_eq!(u.service("ExecStart"), format!("{INSTALLED_BIN} --config {CONFIG}"));
    assert_eq!(u.all("Service", "ExecStartPre"), [format!("{INSTALLED_BIN} check --config {CONFIG}")]);
    // The config is checked before the HUP, so a broken one fails `systemctl reload`.
    assert_eq!(
        u.all("Service", "ExecReload"),
        [format!("{INSTALLED_BIN} check --config {CONFIG}"), "/bin/kill -HUP $MAINPID".to_owned()]
    );
    assert_eq!(u.service("Restart"), "on-failure");
    assert!(seconds(u.service("RestartSec")) >= 1, "RestartSec={}", u.service("RestartSec"));
    // The daemon drains for up to shutdown_timeout (10 s by default) after SIGTERM.
    let stop = seconds(u.service("TimeoutStopSec"));
    assert!(stop >= 20, "TimeoutStopSec={stop}s leaves no margin over the 10 s drain");
    let nofile: u64 = u.service("LimitNOFILE").parse().expect("LimitNOFILE is a number");
    assert!(nofile >= 8192, "LimitNOFILE={nofile}: too few for many followed files");
    assert_eq!(u.get("Install", "WantedBy"), "multi-user.target");
}

#[test]
fn unit_is_hardened() {
    let u = Unit::load();
    // Not root: a dynamic user, or a named one that is not root.
    assert!(u.all("Service", "User").iter().all(|v| *v != "root" && *v != "0"), "runs as root");
    assert_eq!(u.service("DynamicUser"), "yes");
    assert_eq!(u.service("StateDirectory"), "annotail");
    for (key, want) in [
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("PrivateDevices", "yes"),
        ("NoNewPrivileges", "yes"),
        ("ProtectKernelTunables", "yes"),
        ("ProtectKernelModules", "yes"),
        ("ProtectKernelLogs", "yes"),
        ("ProtectControlGroups", "yes"),
        ("ProtectClock", "yes"),
        ("ProtectHostname", "yes"),
        ("RestrictNamespaces", "yes"),
        ("RestrictRealtime", "yes"),
        ("RestrictSUIDSGID", "yes"),
        ("LockPersonality", "yes"),
        ("MemoryDenyWriteExecute", "yes"),
        ("SystemCallArchitectures", "native"),
        ("SystemCallErrorNumber", "EPERM"),
        ("UMask", "0077"),
    ] {
        assert_eq!(u.service(key), want, "{key}=");
    }
    // Capabilities: assignments accumulate, so every one of them must be empty.
    let caps = u.all("Service", "CapabilityBoundingSet");
    assert!(!caps.is_empty() && caps.iter().all(|v| v.is_empty()), "CapabilityBoundingSet={caps:?}");
    assert!(u.all("Service", "AmbientCapabilities").iter().all(|v| v.is_empty()));
    // Exactly the socket families the sinks need (assignments accumulate: one only).
    let families = u.all("Service", "RestrictAddressFamilies");
    assert_eq!(families.len(), 1, "RestrictAddressFamilies={families:?}");
    let mut fam: Vec<&str> = families[0].split_whitespace().collect();
    fam.sort_unstable();
    assert_eq!(fam, ["AF_INET", "AF_INET6", "AF_UNIX"]);
    // An allow list, then a deny list with @privileged and @resources.
    let filters = u.all("Service", "SystemCallFilter");
    assert_eq!(filters.first(), Some(&"@system-service"), "SystemCallFilter={filters:?}");
    let denied: Vec<&str> =
        filters.iter().filter_map(|f| f.strip_prefix('~')).flat_map(str::split_whitespace).collect();
    for group in ["@privileged", "@resources"] {
        assert!(denied.contains(&group), "SystemCallFilter= does not deny {group}: {filters:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// 2. systemd's own checks.

fn systemd_analyze(args: &[&str]) -> Output {
    Command::new("systemd-analyze").args(args).output().unwrap_or_else(|e| {
        panic!(
            "cannot run systemd-analyze ({e}): install the `systemd` package \
             (apt-get install systemd; .ci/run does this)"
        )
    })
}

/// The major version from `systemd-analyze --version` ("systemd 252 (252.38-1~deb12u1)").
fn systemd_version() -> u32 {
    let out = systemd_analyze(&["--version"]);
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("unexpected `systemd-analyze --version` output: {text}"))
}

/// The unit with its binary path pointing at the binary under test, as `annotail.service` in a
/// temporary directory (`verify` insists that every `Exec*=` command is an executable file).
fn installable_unit(dir: &Path) -> PathBuf {
    let bin = env!("CARGO_BIN_EXE_annotail");
    // `%` starts a specifier in unit files; whitespace would split the command line.
    let mut bin = bin.replace('%', "%%");
    if bin.contains(char::is_whitespace) {
        bin = format!("\"{bin}\"");
    }
    let text = unit_text();
    assert!(text.contains(INSTALLED_BIN));
    let path = dir.join("annotail.service");
    std::fs::write(&path, text.replace(INSTALLED_BIN, &bin)).unwrap();
    path
}

/// The program of every `Exec*=` line, without the `-@:+!` prefixes.
fn exec_programs(unit: &Unit) -> Vec<String> {
    unit.0
        .iter()
        .filter(|a| a.section == "Service" && a.key.starts_with("Exec"))
        .map(|a| {
            let cmd = a.value.trim_start_matches(['-', '@', ':', '+', '!']);
            let prog = cmd.strip_prefix('"').and_then(|c| c.split_once('"')).map(|(p, _)| p);
            prog.unwrap_or_else(|| cmd.split_whitespace().next().unwrap_or("")).replace("%%", "%")
        })
        .collect()
}

#[test]
fn systemd_analyze_verify_accepts_the_unit() {
    let dir = tempfile::tempdir().unwrap();
    let unit = installable_unit(dir.path());
    // systemd 252's verify checks only the first command of each Exec*= list; check them all.
    let programs = exec_programs(&Unit(parse_unit(&std::fs::read_to_string(&unit).unwrap())));
    assert!(programs.len() >= 4, "Exec*= lines: {programs:?}");
    for prog in programs {
        let mode = std::fs::metadata(&prog).map(|m| m.permissions().mode()).unwrap_or_else(|e| {
            let hint = if prog == "/bin/kill" { ": install the `procps` package (.ci/run does)" } else { "" };
            panic!("{prog} (an Exec*= command) is missing ({e}){hint}")
        });
        assert!(mode & 0o111 != 0, "{prog} is not executable");
    }
    let out = systemd_analyze(&["verify", unit.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "systemd-analyze verify failed ({}):\n{stderr}", out.status);
    // Messages about other units on this host (verify loads the targets the unit refers to) are
    // not this unit's business; any line naming annotail is.
    let ours: Vec<&str> = stderr.lines().filter(|l| l.contains("annotail")).collect();
    assert!(ours.is_empty(), "systemd-analyze verify complains about the unit:\n{}", ours.join("\n"));
}

#[test]
fn systemd_analyze_security_scores_the_unit_ok() {
    let version = systemd_version();
    if version < 250 {
        // `security --offline` appeared in systemd 250.
        eprintln!("systemd {version} has no `systemd-analyze security --offline`: exposure not measured");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let unit = installable_unit(dir.path());
    let out = systemd_analyze(&["security", "--offline=true", "--no-pager", unit.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "systemd-analyze security failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // "→ Overall exposure level for annotail.service: 1.3 OK 🙂"
    let line = stdout
        .lines()
        .find(|l| l.contains("Overall exposure level for annotail.service:"))
        .unwrap_or_else(|| panic!("no overall exposure line in:\n{stdout}"));
    let score: f64 = line
        .rsplit_once(':')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no score in: {line}"));
    assert!((0.0..=10.0).contains(&score), "score out of range: {line}");
    assert!(score < MAX_EXPOSURE, "exposure {score} >= {MAX_EXPOSURE} (systemd {version}):\n{stdout}");
}

#[test]
fn unit_parser_handles_comments_sections_and_continuations() {
    let a = parse_unit("# c\n[Service]\n; c\nA=1\nB=x \\\n  y\nC=\n[Install]\nA=2\n");
    let got: Vec<(&str, &str, &str)> =
        a.iter().map(|a| (a.section.as_str(), a.key.as_str(), a.value.as_str())).collect();
    assert_eq!(got, [("Service", "A", "1"), ("Service", "B", "x  y"), ("Service", "C", ""), ("Install", "A", "2")]);
    assert_eq!(seconds("30s"), 30);
    assert_eq!(seconds("5min"), 300);
    assert_eq!(seconds("90"), 90);
}
