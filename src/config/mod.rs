//! Config: the TOML file given with `--config`, parsed strictly, and its resolution with the
//! command line.
//!
//! Owns the file's schema and its validation; nothing here reads logs. Every key is optional;
//! command-line options ([`cli`]) override the file, and [`resolve`] merges the two into the
//! one checked value a run starts from ([`Config::resolve`]). Unknown keys and bad values are
//! rejected with the file, the line and column, and the key's name (serde's `deny_unknown_fields`
//! and the `toml` crate's spans); relative paths are resolved against the file's directory.
//! `config/annotail.toml` is the complete, documented example, and a test loads it.

pub mod cli;
pub mod resolve;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::event::Format;

/// A duration written the way people write them: `"250ms"`, `"1s"`, `"2m"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dur(pub Duration);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        humantime::parse_duration(&s).map(Dur).map_err(|e| {
            serde::de::Error::custom(format!("{s:?} is not a duration ({e}); write e.g. \"250ms\" or \"1s\""))
        })
    }
}

/// Where a file seen for the first time (no checkpoint) is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum StartAt {
    Beginning,
    End,
}

/// How changes to followed files are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum WatchMode {
    /// inotify events (through `notify`) wake the reader at once, and a poll every
    /// `poll_interval` catches what events miss; polling alone if inotify cannot be set up.
    Auto,
    /// inotify events only (a slow safety poll every 10 s still runs).
    Notify,
    /// Polling only, every `poll_interval`: for file systems where events do not arrive.
    Poll,
}

/// `record_fields`: `"all"`, `"none"`, `"default"` or a list of field names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordFieldsConfig(pub crate::event::RecordFields);

impl<'de> Deserialize<'de> for RecordFieldsConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Words {
            One(String),
            List(Vec<String>),
        }
        let w = Words::deserialize(d).map_err(|_| {
            serde::de::Error::custom("record_fields: expected \"all\", \"none\", \"default\" or a list of field names")
        })?;
        let (words, single) = match w {
            Words::One(s) => (vec![s], true),
            Words::List(l) => (l, false),
        };
        crate::event::RecordFields::parse(&words, single)
            .map(RecordFieldsConfig)
            .map_err(|e| serde::de::Error::custom(format!("record_fields: {e}")))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Catalog files or directories; later ones override earlier ones by record id.
    #[serde(default)]
    pub catalog: Vec<PathBuf>,
    #[serde(default)]
    pub sources: Vec<SourceConfig>,
    #[serde(default)]
    pub input: InputConfig,
    #[serde(default)]
    pub state: StateConfig,
    #[serde(default)]
    pub output: OutputConfig,
    #[serde(default)]
    pub sinks: Vec<SinkConfig>,
    #[serde(default)]
    pub log: LogConfig,
    #[serde(default)]
    pub metrics: MetricsConfig,
    #[serde(default)]
    pub unknown: UnknownConfig,
}

/// Clustering of the events no record explains (`[unknown]`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnknownConfig {
    /// Levels clustered: off, error, warn, any.
    pub levels: Option<crate::unknown::Levels>,
    /// Clusters kept alive at most.
    pub max_clusters: Option<usize>,
}

/// The metrics endpoint (`[metrics]`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricsConfig {
    /// Address to serve /metrics, /health and /ready on; off when absent.
    pub addr: Option<std::net::SocketAddr>,
    /// Records with their own `annotail_record_matches_total` series (the most matched).
    pub top_records: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceConfig {
    /// Files or globs to follow.
    pub paths: Vec<String>,
    /// Overrides `input.start_at` for these paths.
    pub start_at: Option<StartAt>,
    /// Files the paths match that are not followed: a glob without `/` is matched against the
    /// file name, one with `/` against the whole path.
    #[serde(default)]
    pub exclude: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputConfig {
    pub start_at: Option<StartAt>,
    pub watch: Option<WatchMode>,
    pub poll_interval: Option<Dur>,
    pub idle_timeout: Option<Dur>,
    pub line_timeout: Option<Dur>,
    pub rotate_wait: Option<Dur>,
    pub max_line_bytes: Option<usize>,
    pub max_event_lines: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateConfig {
    pub dir: Option<PathBuf>,
    pub checkpoint_interval: Option<Dur>,
    pub clusters_interval: Option<Dur>,
    pub shutdown_timeout: Option<Dur>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    pub format: Option<Format>,
    pub all: Option<bool>,
    /// Record fields in standard output's events (and the default of every sink's).
    pub record_fields: Option<RecordFieldsConfig>,
    /// Largest event on standard output (and the default of every sink's).
    pub max_event_bytes: Option<usize>,
    /// Pretty output collapses repeats of a known error (see `crate::repeat`).
    pub collapse: Option<bool>,
    pub collapse_window: Option<Dur>,
    pub collapse_key: Option<Vec<String>>,
}

/// A sink's `dedupe = { window = "60s", key = [...] }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DedupeConfig {
    pub window: Option<Dur>,
    pub key: Option<Vec<String>>,
}

/// One output (`[[sinks]]`); see `sink::SinkSpec` for what each key means.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinkConfig {
    pub url: String,
    pub format: Option<Format>,
    pub min_severity: Option<crate::sink::Severity>,
    #[serde(default)]
    pub headers: std::collections::BTreeMap<String, String>,
    pub when_full: Option<crate::sink::WhenFull>,
    pub max_buffer_events: Option<usize>,
    pub max_buffer_bytes: Option<usize>,
    pub batch_max_bytes: Option<usize>,
    pub batch_timeout: Option<Dur>,
    pub timeout: Option<Dur>,
    pub max_backoff: Option<Dur>,
    pub tls_ca_file: Option<std::path::PathBuf>,
    pub dedupe: Option<DedupeConfig>,
    pub record_fields: Option<RecordFieldsConfig>,
    pub max_event_bytes: Option<usize>,
    /// http and otlp sinks.
    pub compression: Option<crate::sink::Compression>,
    pub compression_level: Option<i32>,
    /// otlp sinks: protobuf or json.
    pub encoding: Option<crate::sink::otlp::Encoding>,
    /// syslog+tcp sinks.
    pub syslog_facility: Option<crate::sink::Facility>,
    /// http and otlp sinks: requests in flight at once.
    pub concurrency: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogConfig {
    pub level: Option<String>,
    pub format: Option<LogFormat>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// The line of `key` (`unknown.max_clusters`, `sinks[1].url`) in the TOML `text`: where the key
/// is written, for a table's key in a `[table]` or dotted, and for an array of tables' entry.
fn key_line(text: &str, key: &str) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'[' | b']')) {
        return None;
    }
    let root = DeTable::parse(text).ok()?;
    let mut table: &DeTable<'_> = root.get_ref();
    let mut parts = key.split('.').peekable();
    while let Some(part) = parts.next() {
        let (name, index) = match part.split_once('[') {
            Some((n, i)) => (n, Some(i.strip_suffix(']')?.parse::<usize>().ok()?)),
            None => (part, None),
        };
        let (k, v) = table.iter().find(|(k, _)| k.get_ref() == name)?;
        let v = match (index, v.get_ref()) {
            (Some(i), DeValue::Array(a)) => a.get(i)?,
            (Some(_), _) => return None,
            (None, _) => v,
        };
        if parts.peek().is_none() {
            let at = if index.is_some() { v.span().start } else { k.span().start };
            return Some(text[..at.min(text.len())].matches('\n').count() + 1);
        }
        let DeValue::Table(t) = v.get_ref() else { return None };
        table = t;
    }
    None
}

impl Config {
    /// The file at `path`, loaded as [`Config::load`] does; no file: every key unset.
    pub fn load_or_default(path: Option<&Path>) -> Result<Config, ConfigError> {
        path.map_or_else(|| Ok(Config::default()), Config::load)
    }

    /// Read, parse and validate `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
        Config::parse(&text, path)
    }

    /// Parse and validate `text`, read from `path` (for messages and relative paths).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        // A value that parses but is out of range (`KEY: …`) is said with the key's line, as a
        // syntax or type error is (found by a second reader: only the key was named).
        let invalid = |message: String| {
            let key = message.split_once(": ").map_or("", |(k, _)| k);
            let message = match key_line(text, key) {
                Some(line) => format!("line {line}: {message}"),
                None => message,
            };
            ConfigError::Invalid { path: path.to_owned(), message }
        };
        let mut c: Config = toml::from_str(text).map_err(|e| invalid(e.to_string().trim_end().to_owned()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        // `@embedded` names the embedded catalog, not a file beside the config.
        for p in c.catalog.iter_mut().filter(|p| !crate::catalog::is_embedded(p)) {
            *p = base.join(&*p);
        }
        if let Some(d) = &mut c.state.dir {
            *d = base.join(&*d);
        }
        for k in &mut c.sinks {
            if let Some(ca) = &mut k.tls_ca_file {
                *ca = base.join(&*ca);
            }
        }
        if c.unknown.max_clusters == Some(0) {
            return Err(invalid("unknown.max_clusters: must be 1 or more".into()));
        }
        if let Some(k) = &c.output.collapse_key {
            crate::repeat::KeySpec::parse_all(k).map_err(|e| invalid(format!("output.collapse_key: {e}")))?;
        }
        for (i, k) in c.sinks.iter().enumerate() {
            if let Some(key) = k.dedupe.as_ref().and_then(|d| d.key.as_ref()) {
                crate::repeat::KeySpec::parse_all(key).map_err(|e| invalid(format!("sinks[{i}].dedupe.key: {e}")))?;
            }
        }
        for (i, s) in c.sources.iter_mut().enumerate() {
            if s.paths.is_empty() {
                return Err(invalid(format!("sources[{i}].paths: empty; give at least one file or glob")));
            }
            for p in &mut s.paths {
                if p.is_empty() {
                    return Err(invalid(format!("sources[{i}].paths: an empty path")));
                }
                if !Path::new(p).is_absolute() {
                    *p = base.join(&*p).to_string_lossy().into_owned();
                }
                if let Err(e) = glob::Pattern::new(p) {
                    return Err(invalid(format!("sources[{i}].paths: {p:?} is not a valid glob: {e}")));
                }
            }
            for e in &mut s.exclude {
                if e.contains('/') && !Path::new(e).is_absolute() {
                    *e = base.join(&*e).to_string_lossy().into_owned();
                }
                if let Err(err) = glob::Pattern::new(e) {
                    return Err(invalid(format!("sources[{i}].exclude: {e:?} is not a valid glob: {err}")));
                }
            }
        }
        let positive = [
            ("input.poll_interval", c.input.poll_interval),
            ("state.checkpoint_interval", c.state.checkpoint_interval),
            ("state.clusters_interval", c.state.clusters_interval),
            ("state.shutdown_timeout", c.state.shutdown_timeout),
        ];
        for (key, v) in positive {
            if v.is_some_and(|d| d.0.is_zero()) {
                return Err(invalid(format!("{key}: must be more than 0")));
            }
        }
        for (i, k) in c.sinks.iter().enumerate() {
            if let Err(e) = crate::sink::Target::parse(&k.url) {
                return Err(invalid(format!("sinks[{i}].url: {e}")));
            }
            if k.format == Some(Format::Pretty) {
                return Err(invalid(format!("sinks[{i}].format: \"pretty\" is for a terminal; use json or ecs")));
            }
            let target = crate::sink::Target::parse(&k.url).ok();
            let otlp = matches!(target, Some(crate::sink::Target::Otlp(_)));
            let http = otlp || matches!(target, Some(crate::sink::Target::Http(_)));
            if otlp && k.format.is_some() {
                return Err(invalid(format!(
                    "sinks[{i}].format: an otlp sink sends OTLP log records; leave format out (encoding = \"protobuf\" or \"json\")"
                )));
            }
            if k.compression.is_some() && !http {
                return Err(invalid(format!("sinks[{i}].compression: only http(s) and otlp sinks compress")));
            }
            if let Some(l) = k.compression_level {
                let c = k.compression.unwrap_or(if otlp { crate::sink::Compression::Gzip } else { crate::sink::Compression::None });
                let (range, _) = c.levels();
                if c == crate::sink::Compression::None {
                    return Err(invalid(format!("sinks[{i}].compression_level: set with compression = \"gzip\" or \"zstd\"")));
                }
                if !range.contains(&l) {
                    return Err(invalid(format!(
                        "sinks[{i}].compression_level: {l} is not a {c:?} level ({}..={})",
                        range.start(),
                        range.end()
                    )));
                }
            }
            if k.encoding.is_some() && !otlp {
                return Err(invalid(format!(
                    "sinks[{i}].encoding: only otlp sinks have an encoding (use format for json or ecs)"
                )));
            }
            if k.syslog_facility.is_some() && !matches!(target, Some(crate::sink::Target::SyslogTcp(_))) {
                return Err(invalid(format!("sinks[{i}].syslog_facility: only syslog+tcp sinks have a facility")));
            }
            if let Some(n) = k.max_event_bytes
                && n < crate::event::MIN_EVENT_BYTES
            {
                return Err(invalid(format!(
                    "sinks[{i}].max_event_bytes: {n} is too small; at least {} (room for the event's envelope)",
                    crate::event::MIN_EVENT_BYTES
                )));
            }
            for (key, v) in [
                ("max_buffer_events", k.max_buffer_events),
                ("max_buffer_bytes", k.max_buffer_bytes),
                ("batch_max_bytes", k.batch_max_bytes),
            ] {
                if v == Some(0) {
                    return Err(invalid(format!("sinks[{i}].{key}: must be more than 0")));
                }
            }
        }
        if let Some(n) = c.output.max_event_bytes
            && n < crate::event::MIN_EVENT_BYTES
        {
            return Err(invalid(format!(
                "output.max_event_bytes: {n} is too small; at least {} (room for the event's envelope)",
                crate::event::MIN_EVENT_BYTES
            )));
        }
        if c.input.max_line_bytes == Some(0) {
            return Err(invalid("input.max_line_bytes: must be more than 0".into()));
        }
        if c.input.max_event_lines == Some(0) {
            return Err(invalid("input.max_event_lines: must be more than 0".into()));
        }
        if let Some(l) = &c.log.level
            && tracing_subscriber::EnvFilter::try_new(l).is_err()
        {
            return Err(invalid(format!(
                "log.level: {l:?} is not a level or filter (error, warn, info, debug, trace)"
            )));
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        Config::parse(text, Path::new("/etc/annotail/annotail.toml")).unwrap_err().to_string()
    }

    #[test]
    fn the_shipped_example_is_valid_and_complete() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/annotail.toml");
        let shipped = Config::load(&path).unwrap();
        assert!(shipped.catalog.is_empty() && shipped.sinks.len() == 1, "as shipped: the embedded catalog, stdout");
        // Every section and key appears in the example, set or commented out (`# key = value`,
        // `# [[sinks]]`): with the comment marks of those lines removed it must still load,
        // and a key added to the schema without documentation fails here.
        let text = std::fs::read_to_string(&path).unwrap();
        let uncommented: String = text
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest) if rest.starts_with("[[") || rest.split_once(" = ").is_some_and(|(k, _)| !k.contains(' ')) => rest,
                _ => l,
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let c = Config::parse(&uncommented, &path).unwrap();
        assert!(!c.sources.is_empty() && c.sources[0].start_at.is_some() && !c.sources[0].exclude.is_empty());
        let i = &c.input;
        assert!(i.start_at.is_some() && i.watch.is_some() && i.poll_interval.is_some());
        assert!(i.idle_timeout.is_some() && i.line_timeout.is_some() && i.rotate_wait.is_some());
        assert!(i.max_line_bytes.is_some() && i.max_event_lines.is_some());
        let s = &c.state;
        assert!(s.dir.is_some() && s.checkpoint_interval.is_some() && s.shutdown_timeout.is_some());
        assert!(c.output.format.is_some() && c.output.all.is_some());
        assert!(c.output.record_fields.is_some() && c.output.max_event_bytes.is_some());
        assert!(c.log.level.is_some() && c.log.format.is_some());
        assert!(c.metrics.addr.is_some() && c.metrics.top_records.is_some());
        let k = c.sinks.iter().find(|k| k.url.starts_with("http")).expect("an http sink in the example");
        assert!(k.format.is_some() && k.min_severity.is_some() && !k.headers.is_empty() && k.when_full.is_some());
        assert!(k.max_buffer_events.is_some() && k.max_buffer_bytes.is_some() && k.batch_max_bytes.is_some());
        assert!(k.timeout.is_some() && k.max_backoff.is_some() && k.tls_ca_file.is_some() && k.batch_timeout.is_some());
        assert!(k.compression.is_some() && k.record_fields.is_some() && k.max_event_bytes.is_some());
        assert!(k.compression_level.is_some() && k.concurrency.is_some());
        let o = c.sinks.iter().find(|k| k.url.starts_with("otlp+")).expect("an otlp sink in the example");
        assert!(o.encoding.is_some() && o.compression.is_some());
        let s = c.sinks.iter().find(|k| k.url.starts_with("syslog+")).expect("a syslog sink in the example");
        assert!(s.syslog_facility.is_some() && s.max_event_bytes.is_some());
        assert!(!c.catalog.is_empty());
    }

    #[test]
    fn bad_keys_and_values_are_named() {
        let cases: &[(&str, &[&str])] = &[
            ("[input]\nstart_at = \"middle\"\n", &["line 2", "middle", "beginning", "end"]),
            ("[metrics]\naddr = \"localhost\"\n", &["line 2", "addr", "socket address"]),
            ("[input]\npoll_intervall = \"1s\"\n", &["line 2", "poll_intervall", "unknown field"]),
            ("[input]\npoll_interval = \"soon\"\n", &["line 2", "poll_interval", "not a duration"]),
            // regression (found by a second reader): values out of range named their key only
            ("[input]\npoll_interval = \"0s\"\n", &["line 2: input.poll_interval: must be more than 0"]),
            (
                "# c\n\n[unknown]\nlevels = \"warn\"\nmax_clusters = 0\n",
                &["line 5: unknown.max_clusters: must be 1 or more"],
            ),
            ("unknown.max_clusters = 0\n", &["line 1: unknown.max_clusters"]),
            (
                "[[sinks]]\nurl = \"-\"\n\n[[sinks]]\nurl = \"file:/x\"\nformat = \"pretty\"\n",
                &["line 6: sinks[1].format"],
            ),
            ("[[sources]]\npaths = []\n", &["line 2: sources[0].paths: empty"]),
            ("[[sources]]\npaths = [\"/a/[b\"]\n", &["sources[0].paths", "not a valid glob"]),
            ("[outputs]\n", &["unknown field", "outputs"]),
            ("[[sinks]]\nurl = \"ftp://x\"\n", &["sinks[0].url", "unknown output"]),
            ("[[sinks]]\nurl = \"-\"\nmin_severity = \"loud\"\n", &["line 3", "loud"]),
            ("[log]\nlevel = \"loud=[\"\n", &["log.level"]),
            ("[state\n", &["line 1"]),
            ("[output]\nrecord_fields = \"some\"\n", &["line 2", "record_fields", "\"all\""]),
            ("[output]\nrecord_fields = [\"a b\"]\n", &["line 2", "not a field name"]),
            ("[output]\nmax_event_bytes = 100\n", &["output.max_event_bytes: 100 is too small"]),
            ("[[sinks]]\nurl = \"tcp://h:1\"\ncompression = \"gzip\"\n", &["sinks[0].compression"]),
            ("[[sinks]]\nurl = \"http://h:1\"\ncompression = \"brotli\"\n", &["line 3", "brotli"]),
            ("[[sinks]]\nurl = \"http://h:1\"\nencoding = \"json\"\n", &["sinks[0].encoding"]),
            ("[[sinks]]\nurl = \"http://h:1\"\ncompression = \"gzip\"\ncompression_level = 12\n", &["compression_level: 12", "1..=9"]),
            ("[[sinks]]\nurl = \"http://h:1\"\ncompression_level = 3\n", &["compression_level: set with"]),
            ("[[sinks]]\nurl = \"otlp+http://h:1\"\nformat = \"ecs\"\n", &["sinks[0].format", "otlp"]),
            ("[[sinks]]\nurl = \"otlp+ftp://h:1\"\n", &["sinks[0].url", "otlp+http"]),
            ("[[sinks]]\nurl = \"tcp://h:1\"\nsyslog_facility = \"local1\"\n", &["sinks[0].syslog_facility"]),
            ("[[sinks]]\nurl = \"syslog+tcp://h:1\"\nsyslog_facility = \"local9\"\n", &["line 3", "local9"]),
        ];
        for (text, want) in cases {
            let e = err(text);
            assert!(e.starts_with("config /etc/annotail/annotail.toml: "), "{e}");
            for w in *want {
                assert!(e.contains(w), "{text:?}: {e:?} lacks {w:?}");
            }
        }
    }

    #[test]
    fn relative_paths_are_resolved_against_the_file() {
        let c = Config::parse(
            "catalog = [\"cat\"]\n[[sources]]\npaths = [\"logs/*.log\", \"/abs.log\"]\n[state]\ndir = \"st\"\n",
            Path::new("/etc/annotail/annotail.toml"),
        )
        .unwrap();
        assert_eq!(c.catalog, vec![PathBuf::from("/etc/annotail/cat")]);
        assert_eq!(c.sources[0].paths, vec!["/etc/annotail/logs/*.log", "/abs.log"]);
        assert_eq!(c.state.dir, Some(PathBuf::from("/etc/annotail/st")));
    }
}
