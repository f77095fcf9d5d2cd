//! The shape of the code, as a newcomer meets it (issue 41): the render
//! crate's page kinds depend on shared modules and never on each other
//! (the list of kinds, `pages.rs`, is the only module above them), and no
//! source file grows past 1,000 lines. Read from the sources themselves,
//! so a change that breaks either fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The modules of `crates/render/src/` (top level), by name, with their text.
fn render_modules() -> BTreeMap<String, String> {
    std::fs::read_dir(root().join("crates/render/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The crate modules `text` refers to (`super::x`, `crate::x`, and the
/// names inside `super::{…}`), comments left out.
fn referred(text: &str, modules: &BTreeSet<&str>) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    for prefix in ["super::", "crate::"] {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .collect(),
                None => vec![rest
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or("")],
            };
            out.extend(
                names
                    .into_iter()
                    .filter(|n| modules.contains(n))
                    .map(str::to_string),
            );
        }
    }
    out
}

#[test]
fn page_kinds_never_depend_on_each_other() {
    let modules = render_modules();
    let names: BTreeSet<&str> = modules.keys().map(String::as_str).collect();
    let kinds: BTreeSet<&str> = modules
        .iter()
        .filter(|(_, text)| text.contains("impl PageKind for"))
        .map(|(name, _)| name.as_str())
        .collect();
    assert!(kinds.len() >= 10, "{kinds:?}");
    let mut wrong = Vec::new();
    for (name, text) in &modules {
        if name == "pages" || name == "lib" {
            continue;
        }
        for other in referred(text, &names) {
            if kinds.contains(other.as_str()) && other != *name {
                wrong.push(format!("{name} -> {other}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "modules below the list of kinds that use a page kind: {wrong:?}"
    );
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches", "fuzz/fuzz_targets"] {
        rust_files(&root().join(dir), &mut files);
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines > 1000)
                .then(|| format!("{} ({lines})", f.strip_prefix(root()).unwrap().display()))
        })
        .collect();
    assert!(long.is_empty(), "{long:?}");
}
