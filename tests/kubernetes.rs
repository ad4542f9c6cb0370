//! The Kubernetes manifests in `deploy/kubernetes`: every YAML document parses, the objects
//! reference each other consistently, the pod keeps the security settings the README promises,
//! and the ConfigMap's `annotail.toml` passes `annotail check --config`. (No API-server schema
//! validation: kubeconform is not available in CI; this is the structural check.)

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_yaml_ng::Value;

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/kubernetes")
}

/// Every document of every `*.yaml`/`*.yml` file, with the file it came from.
fn documents() -> Vec<(PathBuf, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(deploy_dir())
        .expect("deploy/kubernetes exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no YAML file in deploy/kubernetes");
    let mut docs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for d in serde_yaml_ng::Deserializer::from_str(&text) {
            let v = Value::deserialize(d).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            if !v.is_null() {
                docs.push((f.clone(), v));
            }
        }
    }
    docs
}

/// The Kubernetes objects (documents with a `kind` and an `apiVersion`, i.e. not the
/// Kustomization), each checked for the fields every object has.
fn objects() -> Vec<Value> {
    let mut out = Vec::new();
    for (f, d) in documents() {
        let kind = str_at(&d, &["kind"]).unwrap_or_else(|| panic!("{}: no kind", f.display()));
        assert!(str_at(&d, &["apiVersion"]).is_some(), "{}: {kind} without apiVersion", f.display());
        if kind == "Kustomization" {
            continue;
        }
        assert!(str_at(&d, &["metadata", "name"]).is_some(), "{}: {kind} without a name", f.display());
        out.push(d);
    }
    out
}

fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(*k))
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(v, path).and_then(Value::as_str)
}

fn the<'a>(objs: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<_> = objs.iter().filter(|o| str_at(o, &["kind"]) == Some(kind)).collect();
    assert_eq!(found.len(), 1, "expected exactly one {kind}");
    found[0]
}

fn seq<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    at(v, path)
        .and_then(Value::as_sequence)
        .map(Vec::as_slice)
        .unwrap_or_else(|| panic!("{} is not a list", path.join(".")))
}

fn by_name<'a>(items: &'a [Value], name: &str) -> Option<&'a Value> {
    items.iter().find(|i| str_at(i, &["name"]) == Some(name))
}

fn annotail_toml(objs: &[Value]) -> String {
    let cm = the(objs, "ConfigMap");
    str_at(cm, &["data", "annotail.toml"]).expect("ConfigMap data.annotail.toml").to_owned()
}

#[test]
fn kustomization_lists_every_manifest() {
    let k = deploy_dir().join("kustomization.yaml");
    let k: Value = serde_yaml_ng::from_str(&std::fs::read_to_string(k).unwrap()).unwrap();
    assert_eq!(str_at(&k, &["kind"]), Some("Kustomization"));
    let resources: Vec<&str> = seq(&k, &["resources"]).iter().filter_map(Value::as_str).collect();
    for (f, d) in documents() {
        let name = f.file_name().unwrap().to_str().unwrap();
        if str_at(&d, &["kind"]) != Some("Kustomization") {
            assert!(resources.contains(&name), "kustomization.yaml does not list {name}");
        }
    }
    for r in &resources {
        assert!(deploy_dir().join(r).is_file(), "kustomization.yaml lists missing {r}");
    }
}

#[test]
fn all_kinds_are_present_in_one_namespace() {
    let objs = objects();
    for kind in ["Namespace", "ServiceAccount", "ConfigMap", "DaemonSet"] {
        the(&objs, kind);
    }
    let ns = str_at(the(&objs, "Namespace"), &["metadata", "name"]).unwrap();
    assert_eq!(ns, "annotail");
    for o in objs.iter().filter(|o| str_at(o, &["kind"]) != Some("Namespace")) {
        assert_eq!(str_at(o, &["metadata", "namespace"]), Some(ns), "namespace of {o:?}");
    }
    let sa = the(&objs, "ServiceAccount");
    assert_eq!(at(sa, &["automountServiceAccountToken"]).and_then(Value::as_bool), Some(false));
}

#[test]
fn daemonset_selects_its_pods_and_uses_the_service_account() {
    let objs = objects();
    let ds = the(&objs, "DaemonSet");
    assert_eq!(str_at(ds, &["apiVersion"]), Some("apps/v1"));
    let selector = at(ds, &["spec", "selector", "matchLabels"]).and_then(Value::as_mapping).expect("matchLabels");
    assert!(!selector.is_empty());
    let labels = at(ds, &["spec", "template", "metadata", "labels"]).and_then(Value::as_mapping).expect("labels");
    for (k, v) in selector {
        assert_eq!(labels.get(k), Some(v), "template labels lack selector {k:?}={v:?}");
    }
    let pod = at(ds, &["spec", "template", "spec"]).unwrap();
    let sa = str_at(the(&objs, "ServiceAccount"), &["metadata", "name"]).unwrap();
    assert_eq!(str_at(pod, &["serviceAccountName"]), Some(sa));
    assert!(!seq(pod, &["tolerations"]).is_empty(), "tolerations: the DaemonSet must run on every node");
}

#[test]
fn container_is_non_root_read_only_and_without_capabilities() {
    let objs = objects();
    let pod = at(the(&objs, "DaemonSet"), &["spec", "template", "spec"]).unwrap();
    let containers = seq(pod, &["containers"]);
    assert_eq!(containers.len(), 1);
    let c = &containers[0];
    let b = |p: &[&str]| at(c, p).and_then(Value::as_bool);
    assert_eq!(b(&["securityContext", "runAsNonRoot"]), Some(true));
    assert_eq!(b(&["securityContext", "readOnlyRootFilesystem"]), Some(true));
    assert_eq!(b(&["securityContext", "allowPrivilegeEscalation"]), Some(false));
    assert_ne!(b(&["securityContext", "privileged"]), Some(true));
    let drop: Vec<&str> =
        seq(c, &["securityContext", "capabilities", "drop"]).iter().filter_map(Value::as_str).collect();
    assert!(drop.contains(&"ALL"), "capabilities.drop: {drop:?}");
    // A uid, where one is set, is never root.
    for ctx in [at(pod, &["securityContext"]), at(c, &["securityContext"])].into_iter().flatten() {
        if let Some(uid) = at(ctx, &["runAsUser"]) {
            assert_ne!(uid.as_u64(), Some(0), "runAsUser 0");
        }
    }
    assert_eq!(str_at(pod, &["securityContext", "seccompProfile", "type"]), Some("RuntimeDefault"));
    for h in ["hostNetwork", "hostPID", "hostIPC"] {
        assert_ne!(at(pod, &[h]).and_then(Value::as_bool), Some(true), "{h}");
    }
    assert!(str_at(c, &["resources", "limits", "memory"]).is_some(), "resources.limits.memory");
    assert!(at(c, &["resources", "requests"]).and_then(Value::as_mapping).is_some(), "resources.requests");
    let args: Vec<&str> = seq(c, &["args"]).iter().filter_map(Value::as_str).collect();
    assert_eq!(args, ["--config", "/etc/annotail/annotail.toml"]);
}

#[test]
fn volumes_logs_read_only_state_writable_config_from_the_configmap() {
    let objs = objects();
    let pod = at(the(&objs, "DaemonSet"), &["spec", "template", "spec"]).unwrap();
    let volumes = seq(pod, &["volumes"]);
    let mounts = seq(&seq(pod, &["containers"])[0], &["volumeMounts"]);
    // (volume, mounted at) for the hostPath volume with this node path.
    let host = |path: &str| -> (&Value, &Value) {
        let v = volumes
            .iter()
            .find(|v| str_at(v, &["hostPath", "path"]) == Some(path))
            .unwrap_or_else(|| panic!("no hostPath volume for {path}"));
        let name = str_at(v, &["name"]).unwrap();
        let m = by_name(mounts, name).unwrap_or_else(|| panic!("volume {name} is not mounted"));
        (v, m)
    };
    let read_only = |m: &Value| at(m, &["readOnly"]).and_then(Value::as_bool) == Some(true);

    let toml: toml::Value = toml::from_str(&annotail_toml(&objs)).unwrap();
    for log_dir in ["/var/log/containers", "/var/log/pods"] {
        let (_, m) = host(log_dir);
        assert!(read_only(m), "{log_dir} must be mounted read-only");
        // Same path inside: the links in /var/log/containers are absolute.
        assert_eq!(str_at(m, &["mountPath"]), Some(log_dir));
    }
    let state_dir = toml["state"]["dir"].as_str().expect("state.dir in annotail.toml");
    let (v, m) = host("/var/lib/annotail");
    assert_eq!(str_at(v, &["hostPath", "type"]), Some("DirectoryOrCreate"));
    assert_eq!(str_at(m, &["mountPath"]), Some(state_dir), "the state volume is where state.dir points");
    assert!(!read_only(m), "the state directory must be writable");

    let cm = str_at(the(&objs, "ConfigMap"), &["metadata", "name"]).unwrap();
    let config =
        volumes.iter().find(|v| str_at(v, &["configMap", "name"]) == Some(cm)).expect("a volume from the ConfigMap");
    let m = by_name(mounts, str_at(config, &["name"]).unwrap()).expect("the config volume is mounted");
    assert_eq!(str_at(m, &["mountPath"]), Some("/etc/annotail"));
    assert!(read_only(m));

    // Nothing else from the host.
    let host_paths = volumes.iter().filter(|v| at(v, &["hostPath"]).is_some()).count();
    assert_eq!(host_paths, 3, "unexpected hostPath volumes: {volumes:?}");
}

#[test]
fn configmap_annotail_toml_follows_container_logs_and_passes_check() {
    let objs = objects();
    let text = annotail_toml(&objs);
    let toml: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("annotail.toml: {e}"));
    let paths: Vec<&str> = toml["sources"]
        .as_array()
        .expect("[[sources]]")
        .iter()
        .flat_map(|s| s["paths"].as_array().expect("sources.paths").iter())
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(paths.iter().any(|p| p.starts_with("/var/log/containers/")), "sources.paths: {paths:?}");
    // annotail's own pod logs must not be followed while events may go to standard output.
    for p in &paths {
        assert_ne!(*p, "/var/log/containers/*.log", "follows its own output");
    }

    // Metrics on the port the DaemonSet declares, probes and Prometheus annotations on it.
    let addr = toml["metrics"]["addr"].as_str().expect("[metrics] addr");
    let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let ds = the(&objs, "DaemonSet");
    let c = &seq(ds, &["spec", "template", "spec", "containers"])[0];
    let metrics_port = by_name(seq(c, &["ports"]), "metrics").expect("a port named metrics");
    assert_eq!(at(metrics_port, &["containerPort"]).and_then(Value::as_u64), Some(port as u64));
    assert_eq!(str_at(c, &["livenessProbe", "httpGet", "path"]), Some("/health"));
    assert_eq!(str_at(c, &["readinessProbe", "httpGet", "path"]), Some("/ready"));
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(str_at(c, &[probe, "httpGet", "port"]), Some("metrics"));
    }
    let ann = at(ds, &["spec", "template", "metadata", "annotations"]).expect("pod annotations");
    assert_eq!(str_at(ann, &["prometheus.io/port"]), Some(port.to_string().as_str()));
    assert_eq!(str_at(ann, &["prometheus.io/path"]), Some("/metrics"));

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("annotail.toml");
    std::fs::write(&file, &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_annotail"))
        .arg("check")
        .arg("--config")
        .arg(&file)
        .output()
        .expect("run annotail check");
    assert!(
        out.status.success(),
        "annotail check --config failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
