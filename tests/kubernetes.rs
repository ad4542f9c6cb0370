//! The Kubernetes manifests in `deploy/kubernetes`: every YAML document parses, the objects
//! reference each other consistently, the pod keeps the security settings the README promises,
//! and the ConfigMap's `annotail.toml` passes `annotail check --config`. The folder is also
//! rendered the way `kubectl apply -k` renders it, by `kubectl kustomize` or `kustomize build`
//! (`.ci/run` installs kubectl; without either tool the test's own rendering of the
//! kustomization's few fields is checked instead, and CI fails), and every file named in the
//! comments of `deploy/` and `.dockerignore` must exist. (No API-server schema validation:
//! kubeconform is not available in CI; this is the structural check.)

use std::collections::BTreeMap;
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

/// The pod's security settings (daemonset.yaml): uid 0 holding DAC_READ_SEARCH and nothing else,
/// no privilege escalation, a read-only root file system, RuntimeDefault seccomp, nothing shared
/// with the host but the volumes.
fn check_pod_security(ds: &Value) {
    let pod = at(ds, &["spec", "template", "spec"]).unwrap();
    assert!(at(pod, &["initContainers"]).is_none(), "an init container: check its privileges here");
    let containers = seq(pod, &["containers"]);
    assert_eq!(containers.len(), 1);
    let c = &containers[0];
    let sc = at(c, &["securityContext"]).expect("container securityContext");
    let b = |v: &Value, k: &str| at(v, &[k]).and_then(Value::as_bool);
    // Root's uid (to keep the capability across exec, and to own the state directory the kubelet
    // creates), overriding the image's user 65534; nothing may demand non-root.
    assert_eq!(at(sc, &["runAsUser"]).and_then(Value::as_u64), Some(0), "runAsUser");
    assert_eq!(at(sc, &["runAsGroup"]).and_then(Value::as_u64), Some(0), "runAsGroup");
    assert_eq!(b(sc, "runAsNonRoot"), Some(false), "runAsNonRoot");
    if let Some(psc) = at(pod, &["securityContext"]) {
        assert_ne!(b(psc, "runAsNonRoot"), Some(true), "pod runAsNonRoot contradicts uid 0");
    }
    let caps = |k: &str| -> Vec<&str> {
        seq(sc, &["capabilities", k]).iter().map(|v| v.as_str().expect("capability name")).collect()
    };
    assert_eq!(caps("drop"), ["ALL"], "capabilities.drop");
    assert_eq!(caps("add"), ["DAC_READ_SEARCH"], "capabilities.add: only DAC_READ_SEARCH");
    assert_eq!(b(sc, "allowPrivilegeEscalation"), Some(false));
    assert_eq!(b(sc, "readOnlyRootFilesystem"), Some(true));
    assert_ne!(b(sc, "privileged"), Some(true));
    assert_eq!(str_at(pod, &["securityContext", "seccompProfile", "type"]), Some("RuntimeDefault"));
    assert!(at(sc, &["seccompProfile"]).is_none(), "the container overrides the pod's seccomp profile");
    for h in ["hostNetwork", "hostPID", "hostIPC"] {
        assert_ne!(b(pod, h), Some(true), "{h}");
    }
    // In a user namespace uid 0 and its capability would not reach the node's files.
    assert_ne!(b(pod, "hostUsers"), Some(false), "hostUsers: false");
    assert_eq!(b(pod, "automountServiceAccountToken"), Some(false));
    assert!(str_at(c, &["resources", "limits", "memory"]).is_some(), "resources.limits.memory");
    assert!(at(c, &["resources", "requests"]).and_then(Value::as_mapping).is_some(), "resources.requests");
    let args: Vec<&str> = seq(c, &["args"]).iter().filter_map(Value::as_str).collect();
    assert_eq!(args, ["--config", "/etc/annotail/annotail.toml"]);
}

#[test]
fn container_is_uid_0_with_only_dac_read_search_and_read_only() {
    check_pod_security(the(&objects(), "DaemonSet"));
}

#[test]
fn volumes_logs_read_only_state_writable_config_from_the_configmap() {
    check_volumes(&objects());
}

/// The log directories read-only at their node paths, the state directory a writable
/// `DirectoryOrCreate` hostPath (one subdirectory per namespace) at `state.dir`, the config from
/// the ConfigMap, and no other hostPath.
fn check_volumes(objs: &[Value]) {
    let pod = at(the(objs, "DaemonSet"), &["spec", "template", "spec"]).unwrap();
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

    let toml: toml::Value = toml::from_str(&annotail_toml(objs)).unwrap();
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
    // /var/lib/annotail/<namespace>: POD_NAMESPACE from the downward API.
    assert_eq!(str_at(m, &["subPathExpr"]), Some("$(POD_NAMESPACE)"), "state subPathExpr");
    let env = seq(&seq(pod, &["containers"])[0], &["env"]);
    let ns = by_name(env, "POD_NAMESPACE").expect("env POD_NAMESPACE");
    assert_eq!(str_at(ns, &["valueFrom", "fieldRef", "fieldPath"]), Some("metadata.namespace"));

    let cm = str_at(the(objs, "ConfigMap"), &["metadata", "name"]).unwrap();
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

/// What `kubectl apply -k deploy/kubernetes` would send, rendered by `kubectl kustomize` or
/// `kustomize build` (whichever is installed, in that order), with the name of the command; `None`
/// when neither is.
fn kustomize_render() -> Option<(String, Vec<Value>)> {
    let tools: [(&str, &str); 2] = [("kubectl", "kustomize"), ("kustomize", "build")];
    for (bin, verb) in tools {
        let out = match Command::new(bin).arg(verb).arg(deploy_dir()).output() {
            Ok(out) => out,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => panic!("{bin} {verb}: {e}"),
        };
        let cmd = format!("{bin} {verb} deploy/kubernetes");
        assert!(out.status.success(), "{cmd} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let docs: Vec<Value> = serde_yaml_ng::Deserializer::from_str(&text)
            .map(|d| Value::deserialize(d).unwrap_or_else(|e| panic!("{cmd}: {e}")))
            .filter(|v| !v.is_null())
            .collect();
        return Some((cmd, docs));
    }
    None
}

/// The test's own rendering of kustomization.yaml: its resources in order, `namespace` set on
/// every object but the Namespace, `images` applied to the pod's containers. It knows only those
/// fields, and fails on any other, so that it never silently differs from kustomize's.
fn local_render() -> Vec<Value> {
    let k: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(deploy_dir().join("kustomization.yaml")).unwrap()).unwrap();
    for key in k.as_mapping().unwrap().keys() {
        let key = key.as_str().unwrap();
        assert!(
            ["apiVersion", "kind", "namespace", "resources", "images"].contains(&key),
            "kustomization.yaml uses `{key}`, which local_render() does not apply: teach it"
        );
    }
    let ns = str_at(&k, &["namespace"]);
    let mut out = Vec::new();
    for r in seq(&k, &["resources"]) {
        let text = std::fs::read_to_string(deploy_dir().join(r.as_str().unwrap())).unwrap();
        for d in serde_yaml_ng::Deserializer::from_str(&text) {
            let mut v = Value::deserialize(d).unwrap();
            if v.is_null() {
                continue;
            }
            if let Some(ns) = ns
                && str_at(&v, &["kind"]) != Some("Namespace")
            {
                v["metadata"]["namespace"] = Value::from(ns);
            }
            out.push(v);
        }
    }
    let images = at(&k, &["images"]).and_then(Value::as_sequence).cloned().unwrap_or_default();
    for o in &mut out {
        let Some(pod) = o.get_mut("spec").and_then(|s| s.get_mut("template")).and_then(|t| t.get_mut("spec")) else {
            continue;
        };
        for list in ["initContainers", "containers"] {
            let Some(cs) = pod.get_mut(list).and_then(Value::as_sequence_mut) else { continue };
            for c in cs {
                let image = c["image"].as_str().unwrap().to_owned();
                // name[:tag][@digest]; a ':' before the last '/' is a registry's port.
                let cut = image
                    .find('@')
                    .or_else(|| image.rfind(':').filter(|&i| i > image.rfind('/').unwrap_or(0)))
                    .unwrap_or(image.len());
                let (name, rest) = image.split_at(cut);
                let Some(rule) = images.iter().find(|i| str_at(i, &["name"]) == Some(name)) else { continue };
                for key in rule.as_mapping().unwrap().keys() {
                    assert!(
                        ["name", "newName", "newTag", "digest"].contains(&key.as_str().unwrap()),
                        "images: {key:?} is not applied by local_render()"
                    );
                }
                let new_name = str_at(rule, &["newName"]).unwrap_or(name);
                let suffix = match (str_at(rule, &["digest"]), at(rule, &["newTag"])) {
                    (Some(d), _) => format!("@{d}"),
                    // A tag may be written as a number (newTag: 1.2).
                    (None, Some(t)) => {
                        let t = t
                            .as_str()
                            .map_or_else(|| serde_yaml_ng::to_string(t).unwrap().trim().to_owned(), str::to_owned);
                        format!(":{t}")
                    }
                    (None, None) => rest.to_owned(),
                };
                c["image"] = Value::from(format!("{new_name}{suffix}"));
            }
        }
    }
    out
}

fn key(o: &Value) -> (String, String) {
    (str_at(o, &["kind"]).unwrap().to_owned(), str_at(o, &["metadata", "name"]).unwrap().to_owned())
}

#[test]
fn rendered_manifests_are_what_the_files_say() {
    let local = local_render();
    let rendered = match kustomize_render() {
        Some((cmd, docs)) => {
            // The same objects as the test's own rendering, field for field (in any order).
            let theirs: BTreeMap<_, _> = docs.iter().map(|o| (key(o), o)).collect();
            let ours: BTreeMap<_, _> = local.iter().map(|o| (key(o), o)).collect();
            assert_eq!(theirs.len(), docs.len(), "{cmd}: two objects of one kind and name");
            assert_eq!(theirs.keys().collect::<Vec<_>>(), ours.keys().collect::<Vec<_>>(), "{cmd}: objects");
            for (k, o) in &theirs {
                assert_eq!(*o, ours[k], "{cmd}: {k:?} differs from the files");
            }
            eprintln!("checked the output of {cmd}");
            docs
        }
        None => {
            assert!(
                std::env::var_os("CI").is_none_or(|v| v.is_empty()),
                "neither kubectl nor kustomize is installed (.ci/run installs kubectl)"
            );
            eprintln!("neither kubectl nor kustomize is installed: checked the test's own rendering");
            local
        }
    };

    let k: Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(deploy_dir().join("kustomization.yaml")).unwrap()).unwrap();
    let ns = str_at(&k, &["namespace"]).expect("kustomization.yaml sets the namespace");
    for o in &rendered {
        if str_at(o, &["kind"]) == Some("Namespace") {
            assert_eq!(str_at(o, &["metadata", "name"]), Some(ns));
            let labels = at(o, &["metadata", "labels"]).unwrap();
            assert_eq!(str_at(labels, &["pod-security.kubernetes.io/enforce"]), Some("privileged"));
        } else {
            assert_eq!(str_at(o, &["metadata", "namespace"]), Some(ns), "namespace of {:?}", key(o));
        }
    }
    let ds = the(&rendered, "DaemonSet");
    let c = &seq(ds, &["spec", "template", "spec", "containers"])[0];
    let rule = &seq(&k, &["images"])[0];
    let tag = str_at(rule, &["newTag"]).expect("images[0].newTag");
    let image = format!("{}:{tag}", str_at(rule, &["newName"]).or(str_at(rule, &["name"])).unwrap());
    assert_eq!(str_at(c, &["image"]), Some(image.as_str()));
    check_pod_security(ds);
    check_volumes(&rendered);
}

/// Repository paths named in `text` (comments, or a README): words with a '/' whose first part
/// is at the top of the repository, and bare `*.yaml`, `*.md`, `Dockerfile` and `.dockerignore`.
fn named_paths(text: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path_char = |c: char| c.is_ascii_alphanumeric() || "._/-".contains(c);
    let mut out = Vec::new();
    for word in text.split(|c: char| !path_char(c)) {
        let word = word.trim_end_matches('.');
        let first = word.split('/').next().unwrap();
        let candidate = if word.contains('/') {
            !word.starts_with('/') && !["target", ".git", "", ".", ".."].contains(&first) && root.join(first).exists()
        } else {
            word.len() > 5 && (word.ends_with(".yaml") || word.ends_with(".md"))
                || ["Dockerfile", ".dockerignore"].contains(&word)
        };
        if candidate {
            out.push(word.to_owned());
        }
    }
    out
}

/// GitHub's anchor for a Markdown heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn headings(md: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(md).unwrap_or_else(|e| panic!("{}: {e}", md.display()));
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(line.trim_start_matches('#').trim().to_owned());
        }
    }
    out
}

#[test]
fn files_named_in_deploy_comments_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("deploy/Dockerfile"), root.join(".dockerignore"), deploy_dir().join("README.md")];
    files.extend(documents().into_iter().map(|(f, _)| f));
    files.dedup();
    let mut missing = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let dir = f.parent().unwrap();
        let name = f.strip_prefix(root).unwrap().display();
        let is_md = f.extension().is_some_and(|e| e == "md");
        // Comments only, except in Markdown, where links are checked too.
        let checked: String = if is_md {
            text.clone()
        } else {
            text.lines().filter_map(|l| l.split_once('#').map(|(_, c)| c)).collect::<Vec<_>>().join("\n")
        };
        for p in named_paths(&checked) {
            let p = p.trim_end_matches('/');
            let found = root.join(p).exists() || (!p.contains('/') && dir.join(p).exists());
            if !found {
                missing.push(format!("{name}: {p}"));
            }
        }
        // `README.md, "Section"`: the section exists.
        for (i, _) in checked.match_indices("README.md, \"") {
            let readme = checked[..i + 9].rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap();
            let title = checked[i + 12..].split('"').next().unwrap();
            let path = if readme.contains('/') { root.join(readme) } else { dir.join(readme) };
            if !headings(&path).iter().any(|h| h == title) {
                missing.push(format!("{name}: section \"{title}\" of {readme}"));
            }
        }
        if is_md {
            for link in text.split("](").skip(1).map(|s| s.split(')').next().unwrap()) {
                if link.contains("://") {
                    continue;
                }
                let (file, anchor) = link.split_once('#').unwrap_or((link, ""));
                let target = if file.is_empty() { f.clone() } else { dir.join(file) };
                if !target.exists() {
                    missing.push(format!("{name}: link {link}"));
                } else if !anchor.is_empty() && !headings(&target).iter().any(|h| slug(h) == anchor) {
                    missing.push(format!("{name}: link {link} (no such heading)"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "named but missing:\n{}", missing.join("\n"));
}
