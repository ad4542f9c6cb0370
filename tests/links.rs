//! References between the repository's files resolve: Markdown links name files that exist and
//! headings that exist; the comments of the unit, the manifests, the Dockerfile and the config
//! name repository paths that exist and sections that exist; and no path leads out of the
//! repository. A reference to a file nobody wrote, or to a heading since renamed, fails here.
//!
//! Paths in Markdown prose (`src/meta/...` of RisingWave, say) are not checked: only links are.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file of the checkout, relative to its root; build output, Git's own files and this
/// file (whose comments show the forms it looks for) left out.
fn repo_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read a directory of the checkout") {
            let entry = entry.expect("directory entry");
            let name = entry.file_name();
            if name == "target" || (name.to_string_lossy().starts_with(".git") && name != ".gitignore") {
                continue;
            }
            let rel = rel.join(&name);
            if entry.file_type().expect("file type").is_dir() {
                walk(&entry.path(), &rel, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), Path::new(""), &mut out);
    out.retain(|p| p != Path::new(file!()));
    out.sort();
    out
}

fn read(rel: &Path) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("read {}: {e}", rel.display()))
}

/// The file's text, or nothing for a file that is not UTF-8 text.
fn read_if_text(rel: &Path) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_default()
}

/// `base/target` with `.` and `..` folded, or `None` when it climbs out of the repository.
fn resolve(base: &Path, target: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in base.join(target).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(part) => out.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The lines of a Markdown text outside fenced code blocks, with their 1-based numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut in_fence = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        } else if !in_fence {
            out.push((i + 1, line));
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, inline-code backticks and every punctuation
/// character but `-` and `_` removed, spaces turned into `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (`## Title` lines); a repeated heading's anchor gets
/// `-1`, `-2`, ... as on GitHub.
fn anchors(markdown: &str) -> BTreeSet<String> {
    static HEADING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^#{1,6}\s+(.+?)\s*#*\s*$").unwrap());
    let mut out = BTreeSet::new();
    for (_, line) in prose_lines(markdown) {
        if let Some(c) = HEADING.captures(line) {
            let base = slug(&c[1]);
            let mut a = base.clone();
            let mut n = 0;
            while out.contains(&a) {
                n += 1;
                a = format!("{base}-{n}");
            }
            out.insert(a);
        }
    }
    out
}

/// The problem with a reference to `target` (`path`, `path#anchor` or `#anchor`) made from the
/// file `from`, if any.
fn check_target(from: &Path, target: &str) -> Option<String> {
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        match resolve(from.parent().unwrap_or(Path::new("")), path) {
            None => return Some(format!("{target}: leads out of the repository")),
            Some(p) if !root().join(&p).exists() => return Some(format!("{target}: {} does not exist", p.display())),
            Some(p) => p,
        }
    };
    let anchor = anchor?;
    if file.extension().is_some_and(|e| e == "md") && !anchors(&read(&file)).contains(anchor) {
        return Some(format!("{target}: {} has no heading with the anchor #{anchor}", file.display()));
    }
    None
}

/// Relative link targets of a Markdown text: `[text](target)`, `![alt](target)`, `[label]: target`.
/// Inline code is left out, so `` `[a](b)` `` in a code span is not a link.
fn links(markdown: &str) -> Vec<(usize, String)> {
    static CODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`+[^`]*`+").unwrap());
    static INLINE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\)"#).unwrap());
    static REFERENCE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(\s|$)").unwrap());
    static SCHEME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Za-z][A-Za-z0-9+.-]*:").unwrap());
    let mut out = Vec::new();
    for (n, line) in prose_lines(markdown) {
        let line = CODE.replace_all(line, "code");
        let found = INLINE.captures_iter(&line).chain(REFERENCE.captures_iter(&line));
        for c in found {
            if !SCHEME.is_match(&c[1]) {
                out.push((n, c[1].to_owned()));
            }
        }
    }
    out
}

fn markdown_files() -> Vec<PathBuf> {
    repo_files().into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect()
}

fn assert_none(problems: Vec<String>, what: &str) {
    assert!(problems.is_empty(), "{what}:\n  {}", problems.join("\n  "));
}

#[test]
fn markdown_links_name_existing_files_and_headings() {
    let mut problems = Vec::new();
    for file in markdown_files() {
        for (line, target) in links(&read(&file)) {
            if let Some(p) = check_target(&file, &target) {
                problems.push(format!("{}:{line}: {p}", file.display()));
            }
        }
    }
    assert_none(problems, "broken Markdown links");
}

/// The configuration-like files whose comments name repository paths.
fn commented_files() -> Vec<PathBuf> {
    repo_files()
        .into_iter()
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            let top = p.components().next().and_then(|c| c.as_os_str().to_str()).unwrap_or("");
            match top {
                "systemd" => ext == "service",
                "deploy" => matches!(ext, "yaml" | "yml") || p.file_name().is_some_and(|n| n == "Dockerfile"),
                "config" => ext == "toml",
                _ => false,
            }
        })
        .collect()
}

/// The `#` comments of a file, each with its 1-based line number.
fn comments(text: &str) -> Vec<(usize, String)> {
    static COMMENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:^|\s)#(.*)$").unwrap());
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| COMMENT.captures(line).map(|c| (i + 1, c[1].trim().to_owned())))
        .collect()
}

/// Runs of comments on consecutive lines, joined with spaces (a quoted section name may wrap),
/// each with the number of its first line.
fn comment_blocks(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut last = 0;
    for (n, comment) in comments(text) {
        match out.last_mut() {
            Some((_, block)) if n == last + 1 => {
                block.push(' ');
                block.push_str(&comment);
            }
            _ => out.push((n, comment)),
        }
        last = n;
    }
    out
}

const TOP_DIRS: &[&str] = &["config", "deploy", "systemd", "tests", "src", "examples", "docs", "benches"];
const EXTENSIONS: &[&str] = &["md", "yaml", "toml", "service", "rs", "jsonl"];

/// The words of a comment that name a repository path: `deploy/kubernetes/README.md`,
/// `config/annotail.toml`, `daemonset.yaml`, `.dockerignore`, `.ci/run`. Absolute paths
/// (`/etc/...`), URLs, globs, placeholders (`<pod>_...log`) and bare extensions (`.gz`) are not
/// repository paths.
fn path_words(comment: &str) -> Vec<String> {
    static DOTFILE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\.[a-z][\w-]*(ignore|/[\w./-]+)$").unwrap());
    static PATH: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[\w.-]+(/[\w.-]+)*/?$").unwrap());
    comment
        .split_whitespace()
        .map(|w| {
            w.trim_start_matches(['"', '\'', '`', '(', '['])
                .trim_end_matches(['"', '\'', '`', '(', ')', ']', ',', ';', ':', '.'])
        })
        .filter(|w| !w.starts_with('/') && PATH.is_match(w))
        .filter(|w| {
            let top = w.split('/').next().unwrap_or("");
            let ext = w.rsplit_once('.').map_or("", |(_, e)| e);
            (w.contains('/') && TOP_DIRS.contains(&top)) || EXTENSIONS.contains(&ext) || DOTFILE.is_match(w)
        })
        .map(str::to_owned)
        .collect()
}

/// Where a path word of a comment in `from` points: a path with a directory is taken from the
/// repository root; a bare file name (`daemonset.yaml`) names the file beside `from`, at the root,
/// or anywhere in the repository (the ConfigMap's `annotail.toml` is `config/annotail.toml`'s copy).
fn comment_path_exists(from: &Path, word: &str, files: &[PathBuf]) -> bool {
    let root = root();
    if word.trim_end_matches('/').contains('/') {
        return root.join(word).exists();
    }
    let beside = from.parent().unwrap_or(Path::new("")).join(word);
    root.join(&beside).exists()
        || root.join(word).exists()
        || files.iter().any(|f| f.file_name().is_some_and(|n| n == word))
}

#[test]
fn comments_in_unit_manifests_dockerfile_and_config_name_existing_paths() {
    let files = repo_files();
    let mut problems = Vec::new();
    for file in commented_files() {
        for (line, comment) in comments(&read(&file)) {
            for word in path_words(&comment) {
                if !comment_path_exists(&file, &word, &files) {
                    problems.push(format!("{}:{line}: `{word}` does not exist", file.display()));
                }
            }
        }
    }
    assert_none(problems, "comments naming paths that do not exist");
}

/// `README, "Section"` and `some/FILE.md, "Section"` in a text: the Markdown file meant, from the
/// repository root (a bare `README` is the top-level one, as everywhere in this repository), and
/// the heading. Inside inline code it is an example, not a reference.
fn section_references(text: &str) -> Vec<(String, String)> {
    static CODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`[^`\n]*`").unwrap());
    static SECTION: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r#"\b((?:[\w.-]+/)*[\w.-]+\.md|README),\s+"([^"]+)""#).unwrap());
    SECTION
        .captures_iter(&CODE.replace_all(text, "code"))
        .map(|c| {
            let file = if &c[1] == "README" { "README.md" } else { &c[1] };
            (file.to_owned(), c[2].to_owned())
        })
        .collect()
}

/// The problem with a reference to section `heading` of `file`, if any.
fn check_section(file: &str, heading: &str) -> Option<String> {
    if !root().join(file).exists() {
        return Some(format!("{file}, \"{heading}\": {file} does not exist"));
    }
    if !anchors(&read(Path::new(file))).contains(&slug(heading)) {
        return Some(format!("{file}, \"{heading}\": {file} has no such heading"));
    }
    None
}

#[test]
fn quoted_section_names_are_headings_of_the_file_named() {
    let mut problems = Vec::new();
    for file in commented_files() {
        for (line, block) in comment_blocks(&read(&file)) {
            for (md, heading) in section_references(&block) {
                if let Some(p) = check_section(&md, &heading) {
                    problems.push(format!("{}:{line}: {p}", file.display()));
                }
            }
        }
    }
    // Rust comments and Markdown prose cite sections the same way (`(README, "Performance")`); a
    // citation may wrap, so each file is searched with its line breaks (and comment markers, code
    // blocks) taken out.
    static RUST_COMMENT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s*\n\s*//[/!]?\s*").unwrap());
    for file in repo_files() {
        let text = read_if_text(&file);
        let text = match file.extension().and_then(|e| e.to_str()) {
            Some("rs") => RUST_COMMENT.replace_all(&text, " ").into_owned(),
            Some("md") => prose_lines(&text).into_iter().map(|(_, l)| l).collect::<Vec<_>>().join(" "),
            _ => continue,
        };
        for (md, heading) in section_references(&text) {
            if let Some(p) = check_section(&md, &heading) {
                problems.push(format!("{}: {p}", file.display()));
            }
        }
    }
    assert_none(problems, "references to sections that do not exist");
}

#[test]
fn no_relative_path_leads_out_of_the_repository() {
    // `../x` anywhere in a text file of the repository, taken from that file's directory (as
    // `include_str!` and Markdown take it), must stay inside the checkout and exist: a document
    // kept next to the repository is not there for anyone who clones it.
    static UP: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:^|[^\w./])((?:\.\./)+[\w./-]*[\w-])").unwrap());
    let mut problems = Vec::new();
    for file in repo_files() {
        for (i, line) in read_if_text(&file).lines().enumerate() {
            for c in UP.captures_iter(line) {
                let ok =
                    resolve(file.parent().unwrap_or(Path::new("")), &c[1]).is_some_and(|p| root().join(p).exists());
                if !ok {
                    problems.push(format!("{}:{}: {}", file.display(), i + 1, &c[1]));
                }
            }
        }
    }
    assert_none(problems, "relative paths that leave the repository or do not exist");
}

#[test]
fn slugs_follow_github() {
    assert_eq!(slug("Running as a service (systemd)"), "running-as-a-service-systemd");
    assert_eq!(slug("Events (schema `annotail/1`)"), "events-schema-annotail1");
    assert_eq!(slug("`annotail check`"), "annotail-check");
    assert_eq!(slug("Without a DaemonSet: kubectl and stern"), "without-a-daemonset-kubectl-and-stern");
    assert_eq!(anchors("# A\n## A\n```\n# not a heading\n```\n"), BTreeSet::from(["a".to_owned(), "a-1".to_owned()]));
    assert_eq!(links("[a](b.md) `[c](d)` [e](https://x/y) [f](#g)\n"), [(1, "b.md".to_owned()), (1, "#g".to_owned())]);
}
