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
/// INFO 9, WARN 13, ERROR 17, FATAL 21; NOTICE is INFO2).
pub fn severity_number(level: &str) -> SeverityNumber {
    match level.to_ascii_lowercase().as_str() {
        "trace" => SeverityNumber::Trace,
        "debug" => SeverityNumber::Debug,
        "info" | "informational" => SeverityNumber::Info,
        "notice" => SeverityNumber::Info2,
        "warn" | "warning" => SeverityNumber::Warn,
        "error" | "err" => SeverityNumber::Error,
        "critical" | "crit" => SeverityNumber::Fatal,
        "fatal" | "alert" | "emergency" | "panic" => SeverityNumber::Fatal,
        _ => SeverityNumber::Unspecified,
    }
}

/// Nanoseconds since the epoch of an RFC 3339 time (`T` or a space between date and time);
/// 0 (OTLP's "unknown") when it is not one.
fn unix_nano(t: &str) -> u64 {
    humantime::parse_rfc3339_weak(t.trim_end_matches('Z'))
        .or_else(|_| humantime::parse_rfc3339(t))
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64)
}

/// `service.name`: the crate of the line's target (`risingwave_meta::barrier` →
/// `risingwave_meta`), else the container's name, else OTel's `unknown_service:annotail`.
fn service_name(ev: &Annotated<'_>) -> String {
    if let Some(t) = ev.log.target.as_deref().filter(|t| !t.is_empty()) {
        return t.split("::").next().unwrap_or(t).to_owned();
    }
    match ev.log.container.as_deref() {
        Some(c) if !c.is_empty() => c.to_owned(),
        _ => "unknown_service:annotail".to_owned(),
    }
}

/// The event as a `ResourceLogs` with one log record.
pub fn resource_logs(ev: &Annotated<'_>, shape: &Shape) -> ResourceLogs {
    let h = host();
    let mut resource = vec![string("service.name", &service_name(ev)), string("host.name", &h.name)];
    if let Some(n) = &h.node {
        resource.push(string("k8s.node.name", n));
    }
    let mut rec = LogRecord {
        observed_time_unix_nano: unix_nano(ev.observed),
        // A line without a time of its own has the time it was read as its timestamp: OTLP says
        // "unknown" with 0 and receivers fall back to the observed time.
        time_unix_nano: if ev.timestamp == ev.observed { 0 } else { unix_nano(ev.timestamp) },
        body: Some(AnyValue { value: Some(any_value::Value::StringValue(text(ev.message).into_owned())) }),
        ..Default::default()
    };
    let record = ev.found.first().map(|f| &ev.matcher.entries[f.entry as usize].rec);
    let (number, word) = match (ev.log.level.as_deref(), record) {
        (Some(l), _) if severity_number(l) != SeverityNumber::Unspecified => (severity_number(l), l.to_owned()),
        (_, Some(r)) => (severity_number(r.severity.name()), r.severity.name().to_ascii_uppercase()),
        (l, None) => (SeverityNumber::Unspecified, l.unwrap_or_default().to_owned()),
    };
    rec.severity_number = number as i32;
    rec.severity_text = word;
    let a = &mut rec.attributes;
    if let Some(id) = ev.event_id {
        a.push(string("log.record.uid", &format!("{id:016x}")));
    }
    if let Some(p) = ev.source.path {
        a.push(string("log.file.path", p));
    }
    a.push(string("annotail.source.kind", ev.source.kind));
    a.push(int("annotail.source.line", ev.source.line as i64));
    let l = ev.log;
    for (k, v) in [
        ("k8s.pod.name", &l.pod),
        ("k8s.namespace.name", &l.namespace),
        ("k8s.container.name", &l.container),
        ("log.iostream", &l.stream),
        ("code.namespace", &l.target),
        ("thread.name", &l.thread),
    ] {
        if let Some(v) = v {
            a.push(string(k, v));
        }
    }
    a.push(string("annotail.log.format", l.format));
    for (k, v) in &l.fields {
        a.push(string(&format!("annotail.log.fields.{k}"), v));
    }
    if let (Some(f), Some(r)) = (ev.found.first(), record) {
        let fields = &shape.fields;
        let w = |k: &str| fields.wants(k);
        a.push(string("rule.id", &r.id));
        if let Some(x) = r.slug() {
            a.push(string("rule.name", x));
        }
        a.push(string("annotail.severity", r.severity.name()));
        if let Some(x) = r.str_field("githubUrl").filter(|_| w("reference")) {
            a.push(string("rule.reference", x));
        }
        if let Some(x) = r.str_field("errorClass").filter(|_| w("error_class")) {
            a.push(string("rule.category", x));
        }
        if let Some(x) = r.str_field("documentation").filter(|_| w("documentation")) {
            a.push(string("rule.description", x));
        }
        for (k, v) in ev.captures(f) {
            a.push(string(&format!("annotail.captures.{k}"), &v));
        }
        for k in ["solutions", "tags"] {
            if let Some(Ok(v)) = r.list(k).filter(|_| w(k)).map(|x| serde_json::from_str::<Value>(x.get())) {
                a.push(KeyValue { key: format!("annotail.{k}"), value: Some(any(&v)), ..Default::default() });
            }
        }
        if let Some(x) = r.template.as_deref().filter(|_| w("template")) {
            a.push(string("annotail.template", x));
        }
        if w("pattern") {
            let e = &ev.matcher.entries[f.entry as usize];
            a.push(string("annotail.pattern", r.pattern.as_deref().unwrap_or(&e.forms.regex)));
        }
        if let Some(x) = r.str_field("filePath").filter(|_| w("source_file")) {
            a.push(string("code.file.path", x));
        }
        if let Some(n) = r.source_line.filter(|_| w("source_line")) {
            a.push(int("code.line.number", n as i64));
        }
        if let Some(others) = r.other_fields()
            && let Ok(Value::Object(mut o)) = serde_json::from_str::<Value>(others)
        {
            if !w("record") {
                let keys: Vec<String> = match fields {
                    RecordFields::Only(l) => l.clone(),
                    _ => Vec::new(),
                };
                o.retain(|k, _| keys.contains(k));
            }
            if !o.is_empty() {
                a.push(KeyValue {
                    key: "annotail.record".into(),
                    value: Some(any(&Value::Object(o))),
                    ..Default::default()
                });
            }
        }
        if ev.found.len() > 1 {
            let ids = ev.found[1..]
                .iter()
                .map(|f| AnyValue {
                    value: Some(any_value::Value::StringValue(ev.matcher.entries[f.entry as usize].rec.id.clone())),
                })
                .collect();
            a.push(kv("annotail.also_matched", any_value::Value::ArrayValue(ArrayValue { values: ids })));
        }
    }
    if let Some(max) = shape.max_event_bytes {
        fit(&mut rec, max);
    }
    ResourceLogs {
        resource: Some(Resource { attributes: resource, ..Default::default() }),
        scope_logs: vec![ScopeLogs {
            scope: Some(InstrumentationScope {
                name: "annotail".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                ..Default::default()
            }),
            log_records: vec![rec],
            schema_url: String::new(),
        }],
        schema_url: String::new(),
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

/// Strings are cut no shorter than this (a message's first words stay readable).
const CUT_MIN: usize = 48;

/// Make `rec` encode in `max` bytes: the attributes of [`DROPPABLE`] go first (counted in
/// `dropped_attributes_count`), then the longest strings (body or attribute values) are halved
/// and marked with `…`; `annotail.truncated.original_bytes` says it happened.
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
            if let Some(any_value::Value::StringValue(s)) = &mut v.value
                && longest.as_ref().is_none_or(|l| s.len() > l.len())
            {
                longest = Some(s);
            }
        }
        let Some(s) = longest.filter(|s| s.len() > CUT_MIN) else { break };
        let mut at = (s.len() / 2).max(CUT_MIN);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
        s.push('…');
    }
    rec.attributes.push(int("annotail.truncated.original_bytes", original as i64));
}

/// Render `ev` for an OTLP sink: its `ResourceLogs` as one element of a request's
/// `resource_logs` (field 1).
pub fn write_record(out: &mut Vec<u8>, ev: &Annotated<'_>, shape: &Shape) {
    prost::encoding::message::encode(1, &resource_logs(ev, shape), out);
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
    let resp: ExportLogsServiceResponse = if content_type.starts_with("application/json") {
        serde_json::from_slice(body).ok()?
    } else {
        ExportLogsServiceResponse::decode(body).ok()?
    };
    let p = resp.partial_success?;
    if p.rejected_log_records == 0 && p.error_message.is_empty() {
        return None;
    }
    Some((p.rejected_log_records, p.error_message))
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
    }
}
