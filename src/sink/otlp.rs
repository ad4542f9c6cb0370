//! OTLP logs: an event as an OpenTelemetry log record, and batches as `ExportLogsServiceRequest`s.
//!
//! Owns the mapping of an [`Annotated`] event onto the OpenTelemetry log data model (semantic
//! conventions where they name the thing: `service.name`, `host.name`, `k8s.*`, `log.file.path`,
//! `log.record.uid`, `rule.*`; `annotail.*` for the rest) and the request bodies of the
//! `otlp+http(s)://` sink. Messages are the official definitions (`opentelemetry-proto`, encoded
//! by prost); nothing here writes protobuf by hand.
//!
//! Contract: the OTLP rendering of an event ([`write_record`]) is one `ResourceLogs` encoded as
//! field 1 of `ExportLogsServiceRequest`, so the renderings of any events, concatenated, are a
//! valid request: a protobuf body is sent as it is, each record with its resource (decoding
//! and merging the records of equal resources cost twice the CPU of everything else per event;
//! compression takes the repeated resources back out, and a collector's batch processor regroups
//! them). [`request`] makes an OTLP/JSON body, with the records of equal resources merged. A batch
//! is split at event boundaries only ([`split`]).

use std::collections::HashMap;

use opentelemetry_proto::tonic::collector::logs::v1::{ExportLogsServiceRequest, ExportLogsServiceResponse};
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue, KeyValueList, any_value,
};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs, SeverityNumber};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use serde_json::Value;

use crate::catalog::Severity;
use crate::event::{Annotated, RecordFields, Shape, host, text};

/// How a request body is encoded (`encoding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// `application/x-protobuf`: smaller, and what every OTLP receiver takes.
    #[default]
    Protobuf,
    /// `application/json` (OTLP/JSON: camelCase keys, 64-bit integers as strings, ids in hex).
    Json,
}

impl Encoding {
    pub fn content_type(self) -> &'static str {
        match self {
            Encoding::Protobuf => "application/x-protobuf",
            Encoding::Json => "application/json",
        }
    }
}

fn kv(key: &str, v: any_value::Value) -> KeyValue {
    KeyValue { key: key.to_owned(), value: Some(AnyValue { value: Some(v) }), ..Default::default() }
}

fn string(key: &str, v: &str) -> KeyValue {
    kv(key, any_value::Value::StringValue(v.to_owned()))
}

fn int(key: &str, v: i64) -> KeyValue {
    kv(key, any_value::Value::IntValue(v))
}

/// A JSON value (a record's passed-through field) as an OTLP value.
fn any(v: &Value) -> AnyValue {
    use any_value::Value as V;
    let value = match v {
        Value::Null => None,
        Value::Bool(b) => Some(V::BoolValue(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Some(V::IntValue(i)),
            None => Some(V::DoubleValue(n.as_f64().unwrap_or(0.0))),
        },
        Value::String(s) => Some(V::StringValue(s.clone())),
        Value::Array(a) => Some(V::ArrayValue(ArrayValue { values: a.iter().map(any).collect() })),
        Value::Object(o) => Some(V::KvlistValue(KeyValueList {
            values: o
                .iter()
                .map(|(k, v)| KeyValue { key: k.clone(), value: Some(any(v)), ..Default::default() })
                .collect(),
        })),
    };
    AnyValue { value }
}

/// OTel's severity numbers for a log level word (the data model's table: TRACE 1, DEBUG 5,
/// INFO 9, WARN 13, ERROR 17, FATAL 21; NOTICE is INFO2). Every level word annotail reads
/// elsewhere has its number, so that a collector's `severity_number >= WARN` keeps what
/// `--unknown` takes for a warning or an error: log15's `eror`, zap's `dpanic`, syslog's `emerg`
/// were 0 (unspecified) while clustered as errors (found by a second reader); so were
/// PostgreSQL's `LOG` and `DEBUG1`…`DEBUG5`, MySQL's `Note` and `System`, and a Kubernetes
/// event's `Normal`.
pub fn severity_number(level: &str) -> SeverityNumber {
    const TABLE: [(&str, SeverityNumber); 28] = [
        ("trace", SeverityNumber::Trace),
        ("debug", SeverityNumber::Debug),
        ("debug1", SeverityNumber::Debug),
        ("debug2", SeverityNumber::Debug),
        ("debug3", SeverityNumber::Debug),
        ("debug4", SeverityNumber::Debug),
        ("debug5", SeverityNumber::Debug),
        ("info", SeverityNumber::Info),
        ("informational", SeverityNumber::Info),
        ("information", SeverityNumber::Info),
        ("log", SeverityNumber::Info),
        ("note", SeverityNumber::Info),
        ("system", SeverityNumber::Info),
        ("normal", SeverityNumber::Info),
        ("notice", SeverityNumber::Info2),
        ("warn", SeverityNumber::Warn),
        ("warning", SeverityNumber::Warn),
        ("error", SeverityNumber::Error),
        ("err", SeverityNumber::Error),
        ("eror", SeverityNumber::Error),
        ("critical", SeverityNumber::Fatal),
        ("crit", SeverityNumber::Fatal),
        ("fatal", SeverityNumber::Fatal),
        ("alert", SeverityNumber::Fatal),
        ("emergency", SeverityNumber::Fatal),
        ("emerg", SeverityNumber::Fatal),
        // zap's `dpanic` and `panic` are above its `error`, as OTel's zap bridge has them.
        ("panic", SeverityNumber::Fatal),
        ("dpanic", SeverityNumber::Fatal),
    ];
    TABLE
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(level))
        .map_or(SeverityNumber::Unspecified, |(_, n)| *n)
}

/// Nanoseconds since the epoch of an RFC 3339 time (`T` or a space between date and time);
/// 0 (OTLP's "unknown") when it is not one.
fn unix_nano(t: &str) -> u64 {
    // The zone as written: humantime's weak parse read `+08:00` as UTC, and its strict one
    // takes `Z` only, so a line's own offset put its record hours off or at 0.
    // Seconds and nanoseconds apart: a `u64` of nanoseconds holds years to 2554, an `i64` to 2262.
    crate::framing::parse::parse_timestamp_parts(t)
        .and_then(|(secs, ns)| u64::try_from(secs).ok()?.checked_mul(1_000_000_000)?.checked_add(ns as u64))
        .unwrap_or(0)
}

/// `service.name`: the container's name (`meta`, `compute`: a RisingWave node's kind), else the
/// crate of the line's target (`risingwave_meta::barrier` → `risingwave_meta`), else OTel's
/// `unknown_service:annotail`. The crate came first, and split one pod's records into a
/// "service" per crate that logs (`aws_config`, `sqlx`: found by an OTel pipeline's reading).
fn service_name<'e>(ev: &'e Annotated<'_>) -> &'e str {
    if let Some(c) = ev.log.container.as_deref().filter(|c| !c.is_empty()) {
        return c;
    }
    match ev.log.target.as_deref() {
        Some(t) if !t.is_empty() => t.split("::").next().unwrap_or(t),
        _ => "unknown_service:annotail",
    }
}

/// Renders events as OTLP records, reusing one event's messages for the next: the
/// `ResourceLogs` (its resource and scope, which change little from one event to the next) and
/// the log record, whose strings and attributes are overwritten in place, so that once they
/// have grown to size an event allocates nothing; and, per catalog entry, the attributes that
/// are the record's own (made once: `solutions` and the passed-through fields are JSON to
/// parse). Building each event's messages afresh (about 25 allocations) and parsing a
/// record's JSON per event took half of the CPU of an OTLP sink's events (BENCHMARKS.md).
#[derive(Debug, Default)]
pub struct Encoder {
    rl: ResourceLogs,
    /// Attributes an event had no use for, kept with their strings for the next.
    spare: Vec<KeyValue>,
    /// Per catalog entry: its record's attributes before the captures, and after them.
    records: Vec<Option<(Vec<KeyValue>, Vec<KeyValue>)>>,
    /// The last `observed` time read and its value: events read together share it.
    observed: (String, u64),
}

/// Set `v` to the string `s`, reusing its allocation.
fn set_string(v: &mut Option<AnyValue>, s: &str) {
    match v {
        Some(AnyValue { value: Some(any_value::Value::StringValue(old)) }) => {
            old.clear();
            old.push_str(s);
        }
        _ => *v = Some(AnyValue { value: Some(any_value::Value::StringValue(s.to_owned())) }),
    }
}

/// The attributes of a record being filled: slots are reused in order, and those past the end
/// go back to the spares when done.
struct Attrs<'a> {
    list: &'a mut Vec<KeyValue>,
    spare: &'a mut Vec<KeyValue>,
    n: usize,
}

impl Attrs<'_> {
    /// The next slot, its key set to `key` (and its value left as it was).
    fn slot(&mut self, key: &str) -> &mut KeyValue {
        if self.n == self.list.len() {
            self.list.push(self.spare.pop().unwrap_or_default());
        }
        self.n += 1;
        let kv = &mut self.list[self.n - 1];
        kv.key.clear();
        kv.key.push_str(key);
        kv
    }

    fn string(&mut self, key: &str, v: &str) {
        set_string(&mut self.slot(key).value, v);
    }

    /// A string attribute whose key is `prefix` followed by `name`.
    fn prefixed(&mut self, prefix: &str, name: &str, v: &str) {
        let kv = self.slot(prefix);
        kv.key.push_str(name);
        set_string(&mut kv.value, v);
    }

    fn int(&mut self, key: &str, v: i64) {
        self.slot(key).value = Some(AnyValue { value: Some(any_value::Value::IntValue(v)) });
    }

    fn copy(&mut self, from: &[KeyValue]) {
        for a in from {
            let kv = self.slot(&a.key);
            kv.value.clone_from(&a.value);
        }
    }

    fn done(self) {
        self.spare.extend(self.list.drain(self.n..));
    }
}

/// The attributes of `r`'s record that are the same in every event it matches, in the order
/// events carry them: those before the captures and those after.
fn record_attributes(ev: &Annotated<'_>, entry: usize, shape: &Shape) -> (Vec<KeyValue>, Vec<KeyValue>) {
    let e = &ev.matcher.entries[entry];
    let r = &e.rec;
    let fields = &shape.fields;
    let w = |k: &str| fields.wants(k);
    let mut head = vec![string("rule.id", &r.id)];
    if let Some(x) = r.slug() {
        head.push(string("rule.name", x));
    }
    head.push(string("annotail.severity", r.severity.name()));
    if let Some(x) = r.str_field("githubUrl").filter(|_| w("reference")) {
        head.push(string("rule.reference", x));
    }
    if let Some(x) = r.str_field("errorClass").filter(|_| w("error_class")) {
        head.push(string("rule.category", x));
    }
    if let Some(x) = r.str_field("documentation").filter(|_| w("documentation")) {
        head.push(string("rule.description", x));
    }
    let mut tail = Vec::new();
    for k in ["solutions", "tags"] {
        if let Some(Ok(v)) = r.list(k).filter(|_| w(k)).map(|x| serde_json::from_str::<Value>(x.get())) {
            tail.push(KeyValue { key: format!("annotail.{k}"), value: Some(any(&v)), ..Default::default() });
        }
    }
    if let Some(x) = r.template.as_deref().filter(|_| w("template")) {
        tail.push(string("annotail.template", x));
    }
    if w("pattern") {
        tail.push(string("annotail.pattern", r.pattern.as_deref().unwrap_or(&e.forms.regex)));
    }
    if let Some(x) = r.str_field("filePath").filter(|_| w("source_file")) {
        tail.push(string("code.file.path", x));
    }
    if let Some(n) = r.source_line.filter(|_| w("source_line")) {
        tail.push(int("code.line.number", n as i64));
    }
    if let Some(others) = r.other_fields()
        && let Ok(Value::Object(mut o)) = serde_json::from_str::<Value>(others)
    {
        if !w("record") {
            let keys: &[String] = match fields {
                RecordFields::Only(l) => l,
                _ => &[],
            };
            o.retain(|k, _| keys.contains(k));
        }
        if !o.is_empty() {
            tail.push(KeyValue { key: "annotail.record".into(), value: Some(any(&Value::Object(o))), ..Default::default() });
        }
    }
    (head, tail)
}

impl Encoder {
    /// Forget what was made for one catalog and shape (the next events may be another's).
    pub fn clear(&mut self) {
        self.records.clear();
    }

    /// Fill the reused messages with `ev`.
    fn fill(&mut self, ev: &Annotated<'_>, shape: &Shape) {
        let rl = &mut self.rl;
        let h = host();
        let resource = rl.resource.get_or_insert_with(|| {
            let mut attributes = vec![string("service.name", ""), string("host.name", &h.name)];
            if let Some(n) = &h.node {
                attributes.push(string("k8s.node.name", n));
            }
            Resource { attributes, ..Default::default() }
        });
        set_string(&mut resource.attributes[0].value, service_name(ev));
        // The pod, namespace and container are the resource's, as OTel's conventions have them:
        // the Collector's `k8sattributes` and Loki's index labels read them there (they were
        // record attributes: an OTel pipeline's reading). The slots after the fixed ones reused.
        let mut n = 2 + usize::from(h.node.is_some());
        for (k, v) in [
            ("k8s.pod.name", &ev.log.pod),
            ("k8s.namespace.name", &ev.log.namespace),
            ("k8s.container.name", &ev.log.container),
        ] {
            let Some(v) = v else { continue };
            match resource.attributes.get_mut(n) {
                Some(kv) => {
                    if kv.key != k {
                        kv.key.clear();
                        kv.key.push_str(k);
                    }
                    set_string(&mut kv.value, v);
                }
                None => resource.attributes.push(string(k, v)),
            }
            n += 1;
        }
        resource.attributes.truncate(n);
        if rl.scope_logs.is_empty() {
            rl.scope_logs.push(ScopeLogs {
                scope: Some(InstrumentationScope {
                    name: "annotail".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    ..Default::default()
                }),
                log_records: vec![LogRecord::default()],
                schema_url: String::new(),
            });
        }
        let rec = &mut rl.scope_logs[0].log_records[0];
        if self.observed.0 != ev.observed {
            self.observed.0.clear();
            self.observed.0.push_str(ev.observed);
            self.observed.1 = unix_nano(ev.observed);
        }
        rec.observed_time_unix_nano = self.observed.1;
        // A line without a time of its own has the time it was read as its timestamp: OTLP says
        // "unknown" with 0 and receivers fall back to the observed time.
        rec.time_unix_nano = if ev.timestamp == ev.observed { 0 } else { unix_nano(ev.timestamp) };
        set_string(&mut rec.body, &text(ev.message));
        rec.dropped_attributes_count = 0;
        let entry = ev.found.first().map(|f| f.entry as usize);
        let record = entry.map(|e| &ev.matcher.entries[e].rec);
        let level = ev.log.level.as_deref();
        let (number, word, upper) = match (level.map(|l| (l, severity_number(l))), record) {
            (Some((l, n)), _) if n != SeverityNumber::Unspecified => (n, l, false),
            // The record's word, in capitals as levels are written.
            (_, Some(r)) => (severity_number(r.severity.name()), r.severity.name(), true),
            // A panic has no level, and is an error (what `--unknown` counts it as, and what a
            // severity filter and the JSON and ECS events say).
            (None, None) if ev.log.format == "panic" || ev.unknown.is_some_and(|u| u.severity >= Severity::Error) => {
                (SeverityNumber::Error, "error", true)
            }
            (_, None) => (SeverityNumber::Unspecified, level.unwrap_or_default(), false),
        };
        rec.severity_number = number as i32;
        rec.severity_text.clear();
        rec.severity_text.push_str(word);
        if upper {
            rec.severity_text.make_ascii_uppercase();
        }
        let mut a = Attrs { list: &mut rec.attributes, spare: &mut self.spare, n: 0 };
        if let Some(id) = ev.event_id {
            let kv = a.slot("log.record.uid");
            let mut hex = [0u8; 16];
            for (i, d) in hex.iter_mut().enumerate() {
                *d = b"0123456789abcdef"[(id >> (60 - 4 * i) & 0xf) as usize];
            }
            set_string(&mut kv.value, std::str::from_utf8(&hex).unwrap_or_default());
        }
        if let Some(p) = ev.source.path {
            a.string("log.file.path", p);
        }
        a.string("annotail.source.kind", ev.source.kind);
        a.int("annotail.source.line", ev.source.line as i64);
        let l = ev.log;
        for (k, v) in [("log.iostream", &l.stream), ("code.namespace", &l.target), ("thread.name", &l.thread)] {
            if let Some(v) = v {
                a.string(k, v);
            }
        }
        a.string("annotail.log.format", l.format);
        for (k, v) in &l.fields {
            a.prefixed("annotail.log.fields.", k, v);
        }
        if let (Some(f), Some(e)) = (ev.found.first(), entry) {
            if self.records.len() < ev.matcher.entries.len() {
                self.records.resize(ev.matcher.entries.len(), None);
            }
            let (head, tail) = self.records[e].get_or_insert_with(|| record_attributes(ev, e, shape));
            a.copy(head);
            for (k, v) in ev.captures(f) {
                a.prefixed("annotail.captures.", k, &v);
            }
            a.copy(tail);
            if ev.found.len() > 1 {
                let ids = ev.found[1..]
                    .iter()
                    .map(|f| AnyValue {
                        value: Some(any_value::Value::StringValue(ev.matcher.entries[f.entry as usize].rec.id.clone())),
                    })
                    .collect();
                a.slot("annotail.also_matched").value =
                    Some(AnyValue { value: Some(any_value::Value::ArrayValue(ArrayValue { values: ids })) });
            }
        }
        if let Some(u) = &ev.unknown {
            a.string("annotail.unknown.cluster", &crate::unknown::id_text(u.cluster));
            a.string("annotail.unknown.template", u.template);
            a.int("annotail.unknown.count", u.count.min(i64::MAX as u64) as i64);
            // The text clustered, as ECS's `annotail.unknown.message`: the body is the message,
            // and a JSON line's unknown error may be a span's `error` (`shard 42` was nowhere in
            // the record: found by an OTel pipeline's reading).
            a.string("annotail.unknown.message", &text(u.text));
        }
        a.done();
        if let Some(max) = shape.max_event_bytes {
            fit(rec, max);
        }
    }

    /// Render `ev`: its `ResourceLogs` as one element of a request's `resource_logs` (field 1).
    pub fn write_record(&mut self, out: &mut Vec<u8>, ev: &Annotated<'_>, shape: &Shape) {
        self.fill(ev, shape);
        prost::encoding::message::encode(1, &self.rl, out);
    }
}

/// Attributes a record too large for `max_event_bytes` loses first, in this order.
const DROPPABLE: [&str; 6] = [
    "annotail.record",
    "annotail.pattern",
    "annotail.template",
    "rule.description",
    "annotail.solutions",
    "annotail.tags",
];

/// Attributes never dropped to fit (their strings may be cut): the unknown cluster's id and
/// count are what receivers group and alert on, as JSON's and ECS's trimming keeps them.
const KEPT: [&str; 2] = ["annotail.unknown.cluster", "annotail.unknown.count"];

/// Strings are cut no shorter than this (a message's first words stay readable).
const CUT_MIN: usize = 48;

/// Make `rec` encode in `max` bytes: the attributes of [`DROPPABLE`] go first (counted in
/// `dropped_attributes_count`), then the longest strings (body or attribute values) are halved
/// and marked with `…`; when no string can be cut shorter and the record is still too large (an
/// event with hundreds of fields), attributes go from the last `annotail.log.fields.*` back, then
/// from the end. `annotail.truncated.original_bytes` says it happened.
fn fit(rec: &mut LogRecord, max: usize) {
    let original = rec.encoded_len();
    if original <= max {
        return;
    }
    // Room for the marker attribute.
    let budget = max.saturating_sub(48);
    for k in DROPPABLE {
        if rec.encoded_len() <= budget {
            break;
        }
        let before = rec.attributes.len();
        rec.attributes.retain(|a| a.key != k);
        rec.dropped_attributes_count += (before - rec.attributes.len()) as u32;
    }
    while rec.encoded_len() > budget {
        let mut longest: Option<&mut String> = None;
        let strings = rec.body.iter_mut().chain(rec.attributes.iter_mut().filter_map(|a| a.value.as_mut()));
        for v in strings {
            // Only a string that cutting makes shorter: one cut to CUT_MIN and marked is
            // CUT_MIN + 3 bytes, and cutting it again would loop for ever.
            if let Some(any_value::Value::StringValue(s)) = &mut v.value
                && s.len() > CUT_MIN + '…'.len_utf8()
                && longest.as_ref().is_none_or(|l| s.len() > l.len())
            {
                longest = Some(s);
            }
        }
        match longest {
            Some(s) => {
                let mut at = (s.len() / 2).max(CUT_MIN);
                while !s.is_char_boundary(at) {
                    at -= 1;
                }
                s.truncate(at);
                s.push('…');
            }
            None => {
                let at = rec.attributes.iter().rposition(|a| a.key.starts_with("annotail.log.fields."));
                // From the end, but never the kept ones (they were the last attributes, and a
                // record with many captures lost them first).
                let at = at.or_else(|| rec.attributes.iter().rposition(|a| !KEPT.contains(&a.key.as_str())));
                match at {
                    Some(i) => {
                        rec.attributes.remove(i);
                        rec.dropped_attributes_count += 1;
                    }
                    None => break,
                }
            }
        }
    }
    rec.attributes.push(int("annotail.truncated.original_bytes", original as i64));
}

/// Concatenated renderings as one request, with the records of equal resources merged into
/// one `ResourceLogs` (in first-seen order, records in order).
pub fn merged(events: &[u8]) -> Result<ExportLogsServiceRequest, prost::DecodeError> {
    let req = ExportLogsServiceRequest::decode(events)?;
    let mut out: Vec<ResourceLogs> = Vec::new();
    let mut by_resource: HashMap<Vec<u8>, usize> = HashMap::new();
    for rl in req.resource_logs {
        let key = rl.resource.as_ref().map(Message::encode_to_vec).unwrap_or_default();
        match by_resource.get(&key) {
            Some(&i) => {
                for sl in rl.scope_logs {
                    out[i].scope_logs[0].log_records.extend(sl.log_records);
                }
            }
            None => {
                by_resource.insert(key, out.len());
                out.push(rl);
            }
        }
    }
    Ok(ExportLogsServiceRequest { resource_logs: out })
}

/// The body of a request for these concatenated renderings.
pub fn request(events: &[u8], encoding: Encoding) -> Result<Vec<u8>, String> {
    let req = merged(events).map_err(|e| format!("cannot re-read a batch's OTLP records: {e}"))?;
    Ok(match encoding {
        Encoding::Protobuf => req.encode_to_vec(),
        Encoding::Json => serde_json::to_vec(&req).map_err(|e| e.to_string())?,
    })
}

/// How many events the concatenated renderings hold.
pub fn count(events: &[u8]) -> usize {
    ExportLogsServiceRequest::decode(events).map_or(0, |r| r.resource_logs.len())
}

/// Concatenated renderings cut in two at the event nearest the middle; `None` for one event.
pub fn split(events: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let req = ExportLogsServiceRequest::decode(events).ok()?;
    let n = req.resource_logs.len();
    if n < 2 {
        return None;
    }
    let mut a = Vec::new();
    let mut b = Vec::new();
    for (i, rl) in req.resource_logs.iter().enumerate() {
        prost::encoding::message::encode(1, rl, if i < n / 2 { &mut a } else { &mut b });
    }
    Some((a, b))
}

/// One event's rendering as OTLP/JSON on one line (the dead-letter file's form for OTLP sinks:
/// `curl -H 'content-type: application/json' -d @LINE .../v1/logs` takes it back).
pub fn json_line(events: &[u8]) -> Vec<u8> {
    let mut out = match merged(events) {
        Ok(req) => serde_json::to_vec(&req).unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    out.push(b'\n');
    out
}

/// What a 2xx answer's `partial_success` says: the records the receiver rejected and why
/// (`None`: a full success, or a body that is not an `ExportLogsServiceResponse`).
pub fn partial_success(body: &[u8], content_type: &str) -> Option<(i64, String)> {
    let (rejected, message) = if content_type.starts_with("application/json") {
        partial_success_json(body)?
    } else {
        let p = ExportLogsServiceResponse::decode(body).ok()?.partial_success?;
        (p.rejected_log_records, p.error_message)
    };
    if rejected == 0 && message.is_empty() {
        return None;
    }
    Some((rejected, message))
}

/// `partial_success` of a JSON answer, read as proto3's JSON mapping has it: an int64 is written
/// as a decimal string (`"rejectedLogRecords": "2"`, what the Collector, Go's `protojson` and
/// Python's `json_format` send) and may be a number, and a field's proto name
/// (`rejected_log_records`) is accepted as well as its lowerCamelCase one. The generated
/// types' serde took the number only, so a Collector's rejections went unseen.
fn partial_success_json(body: &[u8]) -> Option<(i64, String)> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let field = |o: &serde_json::Value, camel: &str, proto: &str| o.get(camel).or_else(|| o.get(proto)).cloned();
    let p = field(&v, "partialSuccess", "partial_success")?;
    let rejected = match field(&p, "rejectedLogRecords", "rejected_log_records") {
        None | Some(serde_json::Value::Null) => 0,
        Some(serde_json::Value::Number(n)) => n.as_i64()?,
        Some(serde_json::Value::String(s)) => s.trim().parse().ok()?,
        Some(_) => return None,
    };
    let message = match field(&p, "errorMessage", "error_message") {
        Some(serde_json::Value::String(s)) => s,
        _ => String::new(),
    };
    Some((rejected, message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_follows_the_data_model_table() {
        let cases = [
            ("TRACE", SeverityNumber::Trace),
            ("DEBUG", SeverityNumber::Debug),
            ("INFO", SeverityNumber::Info),
            ("notice", SeverityNumber::Info2),
            ("WARN", SeverityNumber::Warn),
            ("warning", SeverityNumber::Warn),
            ("ERROR", SeverityNumber::Error),
            ("FATAL", SeverityNumber::Fatal),
            ("critical", SeverityNumber::Fatal),
            ("chatty", SeverityNumber::Unspecified),
            // regression (found by a second reader): words `--unknown` takes as errors or reads
            // as levels were 0.
            ("eror", SeverityNumber::Error),
            ("dpanic", SeverityNumber::Fatal),
            ("panic", SeverityNumber::Fatal),
            ("emerg", SeverityNumber::Fatal),
            ("LOG", SeverityNumber::Info),
            ("DEBUG1", SeverityNumber::Debug),
            ("Note", SeverityNumber::Info),
            ("System", SeverityNumber::Info),
            ("Normal", SeverityNumber::Info),
        ];
        for (word, want) in cases {
            assert_eq!(severity_number(word), want, "{word}");
        }
        assert_eq!(SeverityNumber::Error as i32, 17);
    }

    #[test]
    fn times_in_nanoseconds() {
        assert_eq!(unix_nano("1970-01-01T00:00:01.5Z"), 1_500_000_000);
        assert_eq!(unix_nano("2026-03-02T08:00:01.011660911Z"), 1_772_438_401_011_660_911);
        assert_eq!(unix_nano("2026-03-02 08:00:01.011660911"), 1_772_438_401_011_660_911);
        assert_eq!(unix_nano("yesterday"), 0);
        // regression (found by a second reader): the line's own zone was dropped (`+08:00` read
        // as UTC) or the time lost (a negative offset, an offset after whole seconds).
        let at_8z = 1_772_438_400_000_000_000u64;
        for (t, want) in [
            ("2026-03-02T16:00:00.5+08:00", at_8z + 500_000_000),
            ("2026-03-02T09:00:00.123456+01:00", at_8z + 123_456_000),
            ("2026-03-02T02:30:00.123456789-05:30", at_8z + 123_456_789),
            ("2026-03-02T07:00:00.25-01:00", at_8z + 250_000_000),
            ("2026-03-02T16:00:00+08:00", at_8z),
            ("2026-03-02T16:00:00+0800", at_8z),
            ("1969-12-31T23:59:59Z", 0),
            ("2300-01-01T00:00:00Z", 10_413_792_000_000_000_000),
        ] {
            assert_eq!(unix_nano(t), want, "{t}");
        }
    }

    fn record(body: &str, n: usize) -> Vec<u8> {
        let rl = ResourceLogs {
            resource: Some(Resource {
                attributes: vec![string("service.name", &format!("s{}", n % 2))],
                ..Default::default()
            }),
            scope_logs: vec![ScopeLogs {
                log_records: vec![LogRecord {
                    body: Some(AnyValue { value: Some(any_value::Value::StringValue(body.into())) }),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut out = Vec::new();
        prost::encoding::message::encode(1, &rl, &mut out);
        out
    }

    #[test]
    fn concatenated_records_are_one_request_merged_by_resource() {
        let mut batch = Vec::new();
        for i in 0..5 {
            batch.extend(record(&format!("e{i}"), i));
        }
        assert_eq!(count(&batch), 5);
        let req = merged(&batch).unwrap();
        assert_eq!(req.resource_logs.len(), 2, "two services");
        let bodies = |rl: &ResourceLogs| -> Vec<String> {
            rl.scope_logs[0]
                .log_records
                .iter()
                .map(|r| match &r.body.as_ref().unwrap().value {
                    Some(any_value::Value::StringValue(s)) => s.clone(),
                    _ => unreachable!(),
                })
                .collect()
        };
        assert_eq!(bodies(&req.resource_logs[0]), ["e0", "e2", "e4"]);
        assert_eq!(bodies(&req.resource_logs[1]), ["e1", "e3"]);
        let (a, b) = split(&batch).unwrap();
        assert_eq!((count(&a), count(&b)), (2, 3));
        assert!(split(&record("one", 0)).is_none());
        let json: Value = serde_json::from_slice(&request(&batch, Encoding::Json).unwrap()).unwrap();
        assert_eq!(json["resourceLogs"][0]["scopeLogs"][0]["logRecords"][1]["body"]["stringValue"], "e2");
    }

    #[test]
    fn an_oversized_record_is_cut_to_fit() {
        let mut rec = LogRecord {
            body: Some(AnyValue { value: Some(any_value::Value::StringValue("é".repeat(3000))) }),
            attributes: vec![string("annotail.record", &"x".repeat(4000)), string("rule.id", "r1")],
            ..Default::default()
        };
        fit(&mut rec, 1024);
        assert!(rec.encoded_len() <= 1024, "{}", rec.encoded_len());
        assert_eq!(rec.dropped_attributes_count, 1);
        assert!(rec.attributes.iter().any(|a| a.key == "rule.id"));
        let last = rec.attributes.last().unwrap();
        assert_eq!(last.key, "annotail.truncated.original_bytes");
        match &rec.body.as_ref().unwrap().value {
            Some(any_value::Value::StringValue(s)) => assert!(s.ends_with('…') && s.starts_with("éé")),
            _ => unreachable!(),
        }
    }

    /// A record over the bound whose strings were all cut to the minimum already (many short
    /// fields) was cut again and again, each cut giving back the same length: the sink's task
    /// spun and delivered nothing more.
    #[test]
    fn regression_fit_looped_on_strings_cut_to_the_minimum() {
        let mut rec = LogRecord {
            body: Some(AnyValue { value: Some(any_value::Value::StringValue("b".repeat(50))) }),
            attributes: (0..40).map(|i| string(&format!("annotail.log.fields.f{i}"), &"v".repeat(50))).collect(),
            ..Default::default()
        };
        rec.attributes.push(string("rule.id", "r1"));
        fit(&mut rec, 1024);
        assert!(rec.encoded_len() <= 1024, "{}", rec.encoded_len());
        assert!(rec.dropped_attributes_count > 0);
        assert!(rec.attributes.iter().any(|a| a.key == "rule.id"), "log fields go before the rest");
        assert_eq!(rec.attributes.last().unwrap().key, "annotail.truncated.original_bytes");
    }

    #[test]
    fn partial_success_is_read_in_both_encodings() {
        use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsPartialSuccess;
        let resp = ExportLogsServiceResponse {
            partial_success: Some(ExportLogsPartialSuccess {
                rejected_log_records: 3,
                error_message: "too old".into(),
            }),
        };
        assert_eq!(partial_success(&resp.encode_to_vec(), "application/x-protobuf"), Some((3, "too old".into())));
        let json = serde_json::to_vec(&resp).unwrap();
        assert_eq!(partial_success(&json, "application/json"), Some((3, "too old".into())));
        assert_eq!(
            partial_success(&ExportLogsServiceResponse::default().encode_to_vec(), "application/x-protobuf"),
            None
        );
        assert_eq!(partial_success(b"", "application/x-protobuf"), None);
        // regression (found by a second reader): proto3's JSON mapping writes an int64 as a
        // string, and a rejection written so was taken for a full success.
        for (body, want) in [
            (r#"{"partialSuccess":{"rejectedLogRecords":"2","errorMessage":"too old"}}"#, Some((2, "too old".into()))),
            (r#"{"partialSuccess":{"rejectedLogRecords":2}}"#, Some((2, String::new()))),
            (r#"{"partial_success":{"rejected_log_records":"5"}}"#, Some((5, String::new()))),
            (r#"{"partialSuccess":{"errorMessage":"slow down"}}"#, Some((0, "slow down".into()))),
            (r#"{"partialSuccess":{}}"#, None),
            (r#"{}"#, None),
            (r#"{"partialSuccess":{"rejectedLogRecords":"two"}}"#, None),
        ] {
            assert_eq!(partial_success(body.as_bytes(), "application/json"), want, "{body}");
        }
    }
}
