//! The skim learns which words are common from the head of a file it reads (README,
//! "Performance"): that may change how it indexes the catalog's literals, never what it finds.

mod common;

use common::*;
use serde_json::Value;

/// What an event says, apart from where it was read and when.
fn said(out: &[u8]) -> Vec<(Value, Value, Value)> {
    events(out).into_iter().map(|e| (e["message"].clone(), e["match"].clone(), e["source"]["line"].clone())).collect()
}

#[test]
fn a_file_learnt_from_gives_the_events_of_the_same_text_on_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let log = std::fs::read_to_string(example_log()).unwrap();
    // A head that says the catalog's words in lines that are not its errors (the words of the
    // example's errors, cut short and shuffled), then the example's errors.
    let words: Vec<&str> = log.split_whitespace().filter(|w| w.len() > 3 && !w.contains('=')).collect();
    let mut text = String::new();
    let mut i = 0usize;
    while text.len() < 1 << 18 {
        let pick = |k: usize| words[(i * 7 + k * 13) % words.len()];
        text.push_str(&format!(
            "2026-03-02T08:00:{:02}.000000000Z  INFO risingwave_meta::barrier: {} {} {} {}\n",
            i % 60,
            pick(1),
            pick(2),
            pick(3),
            pick(4)
        ));
        i += 1;
    }
    for _ in 0..3 {
        text.push_str(&log);
    }
    let path = dir.path().join("meta.log");
    std::fs::write(&path, &text).unwrap();

    let from_file = run_cmd(cmd().args(["--log-level", "debug", "--threads", "1", &path_str(&path)]), b"");
    let from_stdin = run_cmd(cmd().args(["--log-level", "debug", "--threads", "1"]), text.as_bytes());
    assert_eq!(from_file.status.code(), Some(0), "{}", stderr_of(&from_file));
    assert_eq!(from_stdin.status.code(), Some(0), "{}", stderr_of(&from_stdin));
    // The file's head was learnt from; standard input is not read ahead.
    assert!(stderr_of(&from_file).contains("input=262144"), "{}", stderr_of(&from_file));
    assert!(stderr_of(&from_stdin).contains("input=0"), "{}", stderr_of(&from_stdin));
    let (a, b) = (said(&from_file.stdout), said(&from_stdin.stdout));
    assert!(a.len() >= 3 * said(&run(&[path_str(&example_log())], b"").stdout).len() && !a.is_empty());
    assert_eq!(a, b);
}
