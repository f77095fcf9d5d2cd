//! Shared helpers for integration tests: building a site from the sample
//! data and computing expected numbers straight from the folded inputs,
//! independently of perfatlas's own parsing.

#![allow(dead_code)]

pub mod pprof_text;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs the `perfatlas` binary with `args`.
pub fn perfatlas(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .args(args)
        .output()
        .expect("run perfatlas")
}

/// `perfatlas convert FILE --to folded`, which must exit 0.
pub fn convert_to_folded(file: &Path) -> std::process::Output {
    let out = perfatlas(&[
        "convert".as_ref(),
        file.as_os_str(),
        "--to".as_ref(),
        "folded".as_ref(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "convert {} --to folded:\n{}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `perfatlas build INPUT -o OUT EXTRA…`, whatever its exit code.
pub fn build(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    perfatlas(&build_args(input, out, extra))
}

/// The arguments of `perfatlas build INPUT -o OUT EXTRA…`.
pub fn build_args<'a>(
    input: &'a Path,
    out: &'a Path,
    extra: &[&'a str],
) -> Vec<&'a std::ffi::OsStr> {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "build".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ];
    args.extend(extra.iter().map(|&e| std::ffi::OsStr::new(e)));
    args
}

/// [`build`], with pages storing the frames, per-frame data and table rows
/// their script derives (`PERFATLAS_TEST_SHIP_DERIVED`): for tests that
/// check perfatlas's figures in the page data. `tests/derive_parity.rs`
/// shows the script derives the same.
pub fn build_storing_derived(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .args([
            "build".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ])
        .args(extra)
        .env("PERFATLAS_TEST_SHIP_DERIVED", "1")
        .output()
        .expect("run perfatlas")
}

/// The Python-Markdown sample data shipped with the repository.
pub fn sample_data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-data/python-markdown")
}

/// Runs the real binary: `perfatlas build <data> -o <out>`. The exit code
/// is not checked (inputs in formats that are not supported yet are
/// reported as skipped, which exits 1); the site must exist afterwards.
pub fn build_site(data: &Path, out: &Path) {
    build_site_with(data, out, &[]);
}

/// [`build`], asserting it succeeded (exit 0), with its stderr when not.
pub fn build_ok(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let output = build(input, out, extra);
    assert!(
        output.status.success(),
        "exit {:?}\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// [`build_site`] with extra arguments.
pub fn build_site_with(data: &Path, out: &Path, extra: &[&std::ffi::OsStr]) {
    let output = Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .arg("build")
        .arg(data)
        .arg("-o")
        .arg(out)
        .args(extra)
        .output()
        .expect("run perfatlas");
    assert!(
        out.join("index.html").is_file(),
        "perfatlas build wrote no index.html (exit {:?})\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The versions in the order perfatlas.toml lists them.
pub fn configured_versions(data: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(data.join("perfatlas.toml")).expect("read perfatlas.toml");
    let value: toml::Value = toml::from_str(&text).expect("parse perfatlas.toml");
    value["versions"]
        .as_array()
        .expect("versions = [...]")
        .iter()
        .map(|v| v.as_str().expect("version name").to_string())
        .collect()
}

/// One line of a folded-stacks file: the frames and the count.
pub struct FoldedLine {
    pub frames: Vec<String>,
    pub count: u64,
}

/// Reads a folded file the simplest possible way: the count is the last
/// whitespace-separated field, the stack is everything before it, split
/// on ';'.
pub fn read_folded(path: &Path) -> Vec<FoldedLine> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let line = line.trim_end();
            let (stack, count) = match line.rfind(char::is_whitespace) {
                Some(k) => (&line[..k], &line[k + 1..]),
                None => ("", line),
            };
            let count: u64 = count
                .parse()
                .unwrap_or_else(|e| panic!("{}: bad count in {line:?}: {e}", path.display()));
            let frames = stack
                .trim()
                .split(';')
                .filter(|f| !f.is_empty())
                .map(str::to_string)
                .collect();
            FoldedLine { frames, count }
        })
        .collect()
}

/// Integer with thousands separators, as the report prints counts.
pub fn grouped(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (k, c) in s.chars().enumerate() {
        if k > 0 && (s.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// "12.34%" from a part and a whole.
pub fn percent(part: f64, total: f64) -> String {
    if total == 0.0 {
        "0%".to_string()
    } else {
        format!("{:.2}%", 100.0 * part / total)
    }
}

/// Clones the sample data's git history (`history.bundle`, made by
/// `build-git-history.sh`) into `dir/markdown-history` with the git CLI.
pub fn clone_sample_history(dir: &Path) -> PathBuf {
    clone_bundle(
        &sample_data().join("history.bundle"),
        &dir.join("markdown-history"),
    )
}

/// Clones the git bundle `bundle` (a fixture's source history) to
/// `target`, and gives `target`.
pub fn clone_bundle(bundle: &Path, target: &Path) -> PathBuf {
    let status = Command::new("git")
        .args(["clone", "-q"])
        .arg(bundle)
        .arg(target)
        .status()
        .expect("run git clone");
    assert!(status.success(), "git clone of {} failed", bundle.display());
    target.to_path_buf()
}

/// Every file of a directory tree: relative path → bytes. A site's build
/// cache (`.perfatlas-cache/`, binary, never linked) is left out.
pub fn read_tree(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let walk = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != ".perfatlas-cache");
    for entry in walk {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.insert(rel, std::fs::read(entry.path()).unwrap());
        }
    }
    out
}

/// No file names `build_dir` (the build machine's path), no `src`/`href`
/// leaves the site, and every relative one names a file of the site and,
/// when it has a fragment that is not a view (`#metric=…`), an element of
/// that file with that id (the fragment percent-decoded, as a browser
/// looks it up). Links starting with one of `schemes` (editor links) are
/// allowed.
pub fn assert_self_contained(
    tree: &std::collections::BTreeMap<String, Vec<u8>>,
    build_dir: &str,
    schemes: &[&str],
) {
    for (path, bytes) in tree {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(build_dir),
            "{path} contains the build machine's path"
        );
        for attr in ["src=\"", "href=\""] {
            for (i, _) in text.match_indices(attr) {
                let rest = &text[i + attr.len()..];
                let target = &rest[..rest.find('"').unwrap()];
                if schemes.iter().any(|s| target.starts_with(s)) {
                    continue;
                }
                assert!(
                    !target.contains("://") && !target.starts_with("//"),
                    "{path}: remote {target}"
                );
                if target.is_empty() {
                    continue;
                }
                // Relative link: it must name a file of the site.
                let (file, fragment) = target.split_once('#').unwrap_or((target, ""));
                // A query (the compare page's `?old=…&new=…`) is read by the
                // page's script; the file is what must exist.
                let file = file.split_once('?').map_or(file, |(f, _)| f);
                let resolved = match file {
                    "" => path.clone(),
                    f => normalise(&Path::new(path).parent().unwrap().join(f)),
                };
                let Some(target_bytes) = tree.get(&resolved) else {
                    panic!("{path}: broken link {target} ({resolved})");
                };
                if !fragment.is_empty() && !fragment.contains('=') {
                    let id = percent_decoded(fragment);
                    let found = String::from_utf8_lossy(target_bytes)
                        .contains(&format!(" id=\"{}\"", html_escaped(&id)));
                    assert!(found, "{path}: link {target}: no id {id:?} in {resolved}");
                }
            }
        }
    }
}

/// `%XX` escapes of a URL fragment decoded.
pub fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = (b[i] == b'%' && i + 2 < b.len())
            .then(|| std::str::from_utf8(&b[i + 1..i + 3]).ok())
            .flatten()
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `s` as the site's templates write it in an attribute.
pub fn html_escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn normalise(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c.as_os_str().to_str().unwrap() {
            ".." => {
                parts.pop();
            }
            "." | "" => {}
            s => parts.push(s.to_string()),
        }
    }
    parts.join("/")
}

/// A matrix page's data (`#pa-matrix-data`) with each row's path and
/// component page written out, as matrix.js `rowPaths` writes them
/// from what matrix_page.rs stores: a path left out is the last row's one
/// level up (levels 3 and deeper), then the row's name; pages are stored
/// after the directory `hb`.
pub fn matrix_rows_written_out(mut data: serde_json::Value) -> serde_json::Value {
    let base = data["hb"].as_str().unwrap_or("").to_string();
    let mut above: Vec<Option<String>> = Vec::new();
    for row in data["rows"].as_array_mut().expect("matrix rows") {
        let level = row["x"][1].as_u64().or(row["l"].as_u64()).unwrap_or(0) as usize;
        above.resize(level, None);
        let name = row["n"].as_str().unwrap().to_string();
        if row.get("p").is_none() {
            let path = match (level, above.last()) {
                (3.., Some(Some(parent))) => format!("{parent} › {name}"),
                _ => name,
            };
            row["p"] = path.into();
        }
        above.push(row["p"].as_str().map(str::to_string));
        if let Some(h) = row.get("h").and_then(|h| h.as_str()) {
            row["h"] = format!("{base}{h}").into();
        }
    }
    data
}

/// The text of an HTML page or fragment: tags dropped (each a space), the
/// entities templates write decoded, spaces collapsed.
pub fn html_text(html: &str) -> String {
    // Inline elements join their text to what is around it, as a browser
    // shows it ("list (src/Tokenizer.js)" with the file a link); any other
    // tag separates.
    const INLINE: [&str; 8] = ["a", "code", "span", "strong", "em", "small", "b", "abbr"];
    let mut out = String::new();
    let mut tag: Option<String> = None;
    for c in html.chars() {
        match (c, tag.as_mut()) {
            ('<', None) => tag = Some(String::new()),
            ('>', Some(t)) => {
                let name: String = t
                    .trim_start_matches('/')
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                if !INLINE.contains(&name.as_str()) {
                    out.push(' ');
                }
                tag = None;
            }
            (c, Some(t)) => t.push(c),
            (c, None) => out.push(c),
        }
    }
    let out = out
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&#96;", "`")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}
