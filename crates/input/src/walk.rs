//! The input directory's layout: which subdirectories are versions, in what
//! order, and which files in them are profiles of which benchmark and
//! repetition.
//!
//! Layout rules (documented in the README):
//! - every non-hidden subdirectory of the input is a version;
//! - files directly in the input directory are not profiles (the config,
//!   scripts, notes);
//! - inside a version, every file below it is an input, except hidden files,
//!   `version.toml`, `*.md` and the reserved `field/` folder;
//! - a file's benchmark is its path relative to the version, up to the first
//!   `.` of its name; a purely numeric next part is the repetition number
//!   (`parse.2.cpu.pb.gz` is repetition 2 of `parse`), otherwise 1.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use model::error::BuildError;
use model::{visible, Skipped};

/// A file to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    pub path: PathBuf,
    /// Relative to the input directory, `/`-separated.
    pub relative: String,
    pub benchmark: String,
    pub repetition: u32,
}

/// One version directory and its input files, sorted by relative path.
#[derive(Debug, Clone)]
pub struct VersionDir {
    pub name: String,
    pub path: PathBuf,
    pub files: Vec<InputFile>,
}

/// Lists version directories (unsorted) and problems met while walking.
///
/// Symbolic links: a version directory may be a link to anywhere (versions
/// kept elsewhere and linked in). Inside a version, links to files are read
/// wherever they point, links to directories are followed only when they
/// stay inside the input directory; dangling links, links leaving the input
/// and link loops are listed as skipped, never followed.
pub fn find_versions(input: &Path) -> Result<(Vec<VersionDir>, Vec<Skipped>), BuildError> {
    let entries = std::fs::read_dir(input).map_err(|e| BuildError::io(input, e))?;
    let root = input.canonicalize().map_err(|e| BuildError::io(input, e))?;
    let mut versions = Vec::new();
    let mut skipped = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| BuildError::io(input, e))?;
        let name = visible(&entry.file_name().to_string_lossy()).into_owned();
        let path = entry.path();
        if name.starts_with('.') || !path.is_dir() {
            if !name.starts_with('.') && is_dangling(&path) {
                skipped.push(skip(&name, "a dangling symbolic link"));
            }
            continue;
        }
        if let Ok(target) = path.canonicalize() {
            if root.starts_with(&target) {
                skipped.push(skip(
                    &name,
                    "a symbolic link loop (it points to the input directory or above); not followed",
                ));
                continue;
            }
        }
        let files = list_files(input, &root, &path, &mut skipped);
        versions.push(VersionDir { name, path, files });
    }
    Ok((versions, skipped))
}

fn skip(file: &str, reason: &str) -> Skipped {
    Skipped {
        file: file.to_string(),
        place: String::new(),
        reason: reason.to_string(),
    }
}

fn is_dangling(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
        && !path.exists()
}

fn list_files(
    input: &Path,
    root: &Path,
    version: &Path,
    skipped: &mut Vec<Skipped>,
) -> Vec<InputFile> {
    let mut files = Vec::new();
    let mut unfollowed = Vec::new();
    // A linked version lives outside the input: links inside it may stay
    // inside it too.
    let version_root = version
        .canonicalize()
        .unwrap_or_else(|_| root.to_path_buf());
    let walker = walkdir::WalkDir::new(version)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            if e.depth() > 0 && is_ignored_dir(e) {
                return false;
            }
            if e.depth() > 0 && e.path_is_symlink() && e.file_type().is_dir() {
                if let Some(reason) = unfollowed_link(e.path(), &[root, &version_root]) {
                    unfollowed.push(skip(&relative(input, e.path()), reason));
                    return false;
                }
            }
            true
        });
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let file = e
                    .path()
                    .map_or_else(|| relative(input, version), |p| relative(input, p));
                skipped.push(skip(&file, &walk_error(input, &e)));
                continue;
            }
        };
        if entry.file_type().is_dir()
            || is_ignored_file(entry.file_name().to_string_lossy().as_ref())
        {
            continue;
        }
        let rel_to_version = relative(version, entry.path());
        let (benchmark, repetition) = benchmark_and_repetition(&rel_to_version);
        files.push(InputFile {
            path: entry.path().to_path_buf(),
            relative: relative(input, entry.path()),
            benchmark,
            repetition,
        });
    }
    skipped.extend(unfollowed);
    files
}

/// Why a symbolic link to a directory inside a version is not followed:
/// it leaves the input directory (and the version's own directory, when
/// that is a link), or it points to a directory that holds the link itself
/// (a loop walkdir would only notice one round later).
fn unfollowed_link(link: &Path, allowed: &[&Path]) -> Option<&'static str> {
    let Ok(target) = link.canonicalize() else {
        return Some("a dangling symbolic link");
    };
    if !allowed.iter().any(|root| target.starts_with(root)) {
        return Some("a symbolic link to a directory outside the input directory; not followed");
    }
    let home = link.parent().and_then(|p| p.canonicalize().ok());
    if home.is_some_and(|h| h.starts_with(&target)) {
        return Some(
            "a symbolic link loop (it points to a directory that contains it); not followed",
        );
    }
    None
}

/// The reason for a walking error, in the words of the skipped-inputs list.
fn walk_error(input: &Path, e: &walkdir::Error) -> String {
    if let Some(ancestor) = e.loop_ancestor() {
        return format!(
            "a symbolic link loop (it points back to `{}`); not followed",
            relative(input, ancestor)
        );
    }
    if e.path().is_some_and(is_dangling) {
        return "a dangling symbolic link".into();
    }
    match e.io_error() {
        Some(io) => format!("cannot be read: {io}"),
        None => format!("cannot be read: {e}"),
    }
}

fn is_ignored_dir(e: &walkdir::DirEntry) -> bool {
    let name = e.file_name().to_string_lossy();
    e.file_type().is_dir() && (name.starts_with('.') || (e.depth() == 1 && name == "field"))
}

fn is_ignored_file(name: &str) -> bool {
    name.starts_with('.') || name == "version.toml" || name.ends_with(".md")
}

fn relative(base: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(base).unwrap_or(path);
    rel.components()
        .map(|c| visible(&c.as_os_str().to_string_lossy()).into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// `sub/parse.2.cpu.pb.gz` → (`sub/parse`, 2); `parse.folded` → (`parse`, 1).
pub fn benchmark_and_repetition(relative_to_version: &str) -> (String, u32) {
    let (dir, name) = match relative_to_version.rfind('/') {
        Some(i) => (&relative_to_version[..=i], &relative_to_version[i + 1..]),
        None => ("", relative_to_version),
    };
    let mut parts = name.split('.');
    let stem = parts.next().unwrap_or(name);
    let stem = if stem.is_empty() { name } else { stem };
    let repetition = parts
        .next()
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|&r| r > 0)
        .unwrap_or(1);
    (format!("{dir}{stem}"), repetition)
}

/// Natural order of version names: digit runs compare as numbers, and a
/// pre-release suffix (`1.0.0-rc1`) sorts before its release (`1.0.0`).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (ta, tb) = (tokens(a), tokens(b));
    for (x, y) in ta.iter().zip(&tb) {
        let ord = match (x, y) {
            (Token::Num(x, xs), Token::Num(y, ys)) => {
                x.cmp(y).then_with(|| xs.len().cmp(&ys.len()))
            }
            (Token::Num(..), Token::Text(_)) => Ordering::Less,
            (Token::Text(_), Token::Num(..)) => Ordering::Greater,
            (Token::Text(x), Token::Text(y)) => x.cmp(y),
        };
        if ord != Ordering::Equal {
            return ord;
        }
    }
    let prerelease =
        |rest: &[Token]| matches!(rest.first(), Some(Token::Text(t)) if t.starts_with(['-', '~']));
    match ta.len().cmp(&tb.len()) {
        Ordering::Greater if prerelease(&ta[tb.len()..]) => Ordering::Less,
        Ordering::Less if prerelease(&tb[ta.len()..]) => Ordering::Greater,
        ord => ord.then_with(|| a.cmp(b)),
    }
}

enum Token<'a> {
    /// Numeric value (saturating) and the digits, for tie-breaks like `01`.
    Num(u128, &'a str),
    Text(&'a str),
}

fn tokens(s: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let digit = bytes[i].is_ascii_digit();
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() == digit {
            i += 1;
        }
        let part = &s[start..i];
        out.push(if digit {
            Token::Num(
                part.bytes().fold(0u128, |n, d| {
                    n.saturating_mul(10).saturating_add((d - b'0') as u128)
                }),
                part,
            )
        } else {
            Token::Text(part)
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmark_names_and_repetitions() {
        assert_eq!(
            benchmark_and_repetition("parse-large.cpu.pb.gz"),
            ("parse-large".into(), 1)
        );
        assert_eq!(
            benchmark_and_repetition("parse-large.2.cpu.pb.gz"),
            ("parse-large".into(), 2)
        );
        assert_eq!(
            benchmark_and_repetition("convert-basic.3.folded"),
            ("convert-basic".into(), 3)
        );
        assert_eq!(
            benchmark_and_repetition("sub/x.10.json"),
            ("sub/x".into(), 10)
        );
        assert_eq!(benchmark_and_repetition(".hidden"), (".hidden".into(), 1));
        assert_eq!(benchmark_and_repetition("x.0.json"), ("x".into(), 1));
    }

    #[test]
    fn versions_sort_naturally_with_prereleases_first() {
        let mut v = vec!["1.10", "1.9", "v2.0.0", "1.0.0", "1.0.0-rc1", "1.2", "1.02"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            vec!["1.0.0-rc1", "1.0.0", "1.2", "1.02", "1.9", "1.10", "v2.0.0"]
        );
    }
}

#[cfg(test)]
mod link_tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_are_followed_inside_the_input_and_loops_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in");
        let outside = dir.path().join("kept-elsewhere");
        std::fs::create_dir_all(input.join("1.0/sub")).unwrap();
        std::fs::create_dir_all(outside.join("deep")).unwrap();
        std::fs::write(input.join("1.0/a.folded"), "a 1\n").unwrap();
        std::fs::write(outside.join("deep/b.folded"), "b 1\n").unwrap();
        symlink("../a.folded", input.join("1.0/sub/alias.folded")).unwrap();
        symlink("..", input.join("1.0/sub/up")).unwrap();
        symlink("/nonexistent/x", input.join("1.0/dangling")).unwrap();
        symlink(&outside, input.join("1.0/out")).unwrap();
        symlink(".", input.join("again")).unwrap();
        // A version kept elsewhere, with a link inside itself.
        symlink(&outside, input.join("2.0")).unwrap();
        symlink("deep", outside.join("linked")).unwrap();

        let (mut versions, skipped) = find_versions(&input).unwrap();
        versions.sort_by(|a, b| a.name.cmp(&b.name));
        let files: Vec<Vec<&str>> = versions
            .iter()
            .map(|v| v.files.iter().map(|f| f.relative.as_str()).collect())
            .collect();
        assert_eq!(
            files,
            [
                vec!["1.0/a.folded", "1.0/sub/alias.folded"],
                vec!["2.0/deep/b.folded", "2.0/linked/b.folded"],
            ]
        );
        let mut reasons: Vec<(&str, &str)> = skipped
            .iter()
            .map(|s| (s.file.as_str(), s.reason.as_str()))
            .collect();
        reasons.sort();
        let said =
            |file: &str, words: &str| reasons.iter().any(|(f, r)| *f == file && r.contains(words));
        assert!(said("again", "symbolic link loop"), "{reasons:?}");
        assert!(said("1.0/sub/up", "symbolic link loop"), "{reasons:?}");
        assert!(said("1.0/dangling", "dangling"), "{reasons:?}");
        assert!(
            said("1.0/out", "outside the input directory"),
            "{reasons:?}"
        );
        assert_eq!(reasons.len(), 4, "{reasons:?}");
    }
}
