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
//!   (`parse.2.cpu.pb.gz` is repetition 2 of `parse`), otherwise 1;
//! - with `[input] repetitions = "auto"` (the default), the other common
//!   ways to number runs are repetitions too: `cpu-2.cpuprofile`,
//!   `cpu_2.cpuprofile` and `cpu/2.cpuprofile` are repetition 2 of `cpu`
//!   when the numbers of that name across the history run 1…k or 0…k−1
//!   (see [`recognise_numbered_runs`]);
//! - a version folder holding an archive (`NAME.padigest`) and no other
//!   input is read as the folder it was written from (`archived`).

mod archived;

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::digest::Record;
use config::Repetitions;
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
    /// Its index in the records of the version's archive, when it comes
    /// from them (`path` is then the archive's).
    pub digested: Option<usize>,
}

/// One version directory and its input files, sorted by relative path.
#[derive(Debug, Clone)]
pub struct VersionDir {
    pub name: String,
    pub path: PathBuf,
    pub files: Vec<InputFile>,
    /// The records of the archive the folder holds, when this perfatlas
    /// reads them instead of raw files.
    pub digest: Option<Arc<Record>>,
    /// The temporary folder the archive's raw files were unpacked into
    /// (`path` is then inside it), removed when the last clone is dropped.
    pub unpacked: Option<Arc<tempfile::TempDir>>,
}

/// Lists version directories (unsorted) and problems met while walking;
/// `repetitions` says which file names number runs.
///
/// Symbolic links: a version directory may be a link to anywhere (versions
/// kept elsewhere and linked in). Inside a version, links to files are read
/// wherever they point, links to directories are followed only when they
/// stay inside the input directory; dangling links, links leaving the input
/// and link loops are listed as skipped, never followed.
pub fn find_versions(
    input: &Path,
    options: &config::InputConfig,
) -> Result<(Vec<VersionDir>, Vec<Skipped>), BuildError> {
    let repetitions = options.repetitions;
    let entries = std::fs::read_dir(input).map_err(|e| BuildError::io(input, e))?;
    let root = input.canonicalize().map_err(|e| BuildError::io(input, e))?;
    let mut versions = Vec::new();
    let mut skipped = Vec::new();
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| BuildError::io(input, e))?;
        let name = visible(&entry.file_name().to_string_lossy()).into_owned();
        let path = entry.path();
        if name.starts_with('.') || !path.is_dir() {
            if let Some(reason) = broken_link(&path).filter(|_| !name.starts_with('.')) {
                skipped.push(skip(&name, reason));
            }
            continue;
        }
        if options.no_outside_links && leads_outside(&path, &root) {
            skipped.push(skip(&name, OUTSIDE_REFUSED));
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
        let mut files = list_files(input, &root, &path, &mut skipped);
        if options.no_outside_links {
            files.retain(|f| {
                let outside = leads_outside(&f.path, &root);
                if outside {
                    skipped.push(skip(&f.relative, OUTSIDE_REFUSED));
                }
                !outside
            });
        }
        found.push((name, path, files));
    }
    // Archives are unpacked side by side.
    let opened: Vec<(VersionDir, Vec<Skipped>)> = found
        .into_par_iter()
        .map(|(name, path, files)| archived::open_version(name, path, files))
        .collect();
    for (version, problems) in opened {
        versions.push(version);
        skipped.extend(problems);
    }
    if repetitions == Repetitions::Auto {
        recognise_numbered_runs(&mut versions);
    }
    Ok((versions, skipped))
}

/// The input files of one version folder, as a build lists them, each
/// `relative` to the folder; and what the walk skipped, likewise.
pub fn version_files(dir: &Path) -> (Vec<InputFile>, Vec<Skipped>) {
    let input = dir.parent().unwrap_or(Path::new("."));
    let root = input.canonicalize().unwrap_or_else(|_| input.to_path_buf());
    let name = relative(input, dir);
    let mut skipped = Vec::new();
    let mut files = list_files(input, &root, dir, &mut skipped);
    let strip = |r: &str| within_version(r, &name).to_string();
    for f in &mut files {
        f.relative = strip(&f.relative);
    }
    for s in &mut skipped {
        s.file = strip(&s.file);
    }
    (files, skipped)
}

/// How a file name numbers its run, besides `NAME.N.ext`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum RunForm {
    /// `NAME-N.ext` or `NAME_N.ext`.
    Suffix,
    /// `NAME/N.ext`.
    Folder,
}

/// A file name read as run `number` of `base`: (form, base, the name's
/// part from its first `.`) and the number.
type NumberedRun = ((RunForm, String, String), u32);

/// `cpu-2.cpuprofile` → ((Suffix, `cpu`, `.cpuprofile`), 2); `cpu/2.json`
/// → ((Folder, `cpu`, `.json`), 2); `None` for a name that does not
/// number a run this way (`cpu.2.cpuprofile` is the dot form).
fn numbered_run(relative_to_version: &str) -> Option<NumberedRun> {
    let (dir, name) = match relative_to_version.rfind('/') {
        Some(i) => relative_to_version.split_at(i + 1),
        None => ("", relative_to_version),
    };
    let (stem, rest) = name.split_at(name.find('.').filter(|&i| i > 0).unwrap_or(name.len()));
    let digits = |t: &str| !t.is_empty() && t.len() <= 6 && t.bytes().all(|b| b.is_ascii_digit());
    if rest.split('.').nth(1).is_some_and(digits) {
        return None;
    }
    if digits(stem) {
        let base = dir.strip_suffix('/').filter(|b| !b.is_empty())?;
        return Some((
            (RunForm::Folder, base.to_string(), rest.to_string()),
            stem.parse().ok()?,
        ));
    }
    let i = stem.rfind(['-', '_']).filter(|&i| i > 0)?;
    let number = &stem[i + 1..];
    if !digits(number) {
        return None;
    }
    let base = format!("{dir}{}", &stem[..i]);
    Some((
        (RunForm::Suffix, base, rest.to_string()),
        number.parse().ok()?,
    ))
}

/// Reads `NAME-N`, `NAME_N` and `NAME/N` files as repetitions of `NAME`
/// where that is what they are: the numbers a name has across the whole
/// history (a version may lack a failed run) must run 1…k or 0…k−1 (the
/// latter counted from 1), with at least two of them for `NAME-N` and
/// `NAME_N` (a lone `fib-30`, or `fib-10` beside `fib-20`, are benchmarks of
/// their own). A name that another file already uses as its benchmark
/// (`cpu.cpuprofile` beside `cpu-1.cpuprofile`) keeps the files apart.
pub fn recognise_numbered_runs(versions: &mut [VersionDir]) {
    let runs: Vec<Vec<Option<NumberedRun>>> = versions
        .iter()
        .map(|v| {
            v.files
                .iter()
                .map(|f| numbered_run(within_version(&f.relative, &v.name)))
                .collect()
        })
        .collect();
    let mut numbers: BTreeMap<&(RunForm, String, String), BTreeSet<u32>> = BTreeMap::new();
    for (key, n) in runs.iter().flatten().flatten() {
        numbers.entry(key).or_default().insert(*n);
    }
    // Each accepted name: what to add to its numbers.
    let mut shift: BTreeMap<&(RunForm, String, String), u32> = BTreeMap::new();
    for (key, set) in &numbers {
        let (first, last) = (set.first().copied(), set.last().copied());
        let fewest = if key.0 == RunForm::Suffix { 2 } else { 1 };
        if let (Some(first @ 0..=1), Some(last)) = (first, last) {
            if (last - first) as usize + 1 == set.len() && set.len() >= fewest {
                shift.insert(key, 1 - first);
            }
        }
    }
    let taken: BTreeSet<&str> = versions
        .iter()
        .zip(&runs)
        .flat_map(|(v, r)| v.files.iter().zip(r))
        .filter(|(_, run)| !run.as_ref().is_some_and(|(key, _)| shift.contains_key(key)))
        .map(|(f, _)| f.benchmark.as_str())
        .collect();
    let renamed: Vec<Vec<Option<(String, u32)>>> = runs
        .iter()
        .map(|r| {
            r.iter()
                .map(|run| {
                    let (key, n) = run.as_ref()?;
                    let add = *shift.get(key)?;
                    (!taken.contains(key.1.as_str())).then(|| (key.1.clone(), n + add))
                })
                .collect()
        })
        .collect();
    for (v, renamed) in versions.iter_mut().zip(renamed) {
        for (f, new) in v.files.iter_mut().zip(renamed) {
            if let Some((benchmark, repetition)) = new {
                f.benchmark = benchmark;
                f.repetition = repetition;
            }
        }
    }
}

/// A file's path inside its version: `1.0/criterion/fib/new/sample.json`
/// in version `1.0` → `criterion/fib/new/sample.json`.
pub fn within_version<'a>(relative: &'a str, version: &str) -> &'a str {
    relative
        .strip_prefix(version)
        .and_then(|r| r.strip_prefix('/'))
        .unwrap_or(relative)
}

fn skip(file: &str, reason: &str) -> Skipped {
    Skipped {
        file: file.to_string(),
        place: String::new(),
        reason: reason.to_string(),
    }
}

/// What a link whose target cannot be reached is: a loop (`a → b → a`,
/// the system gives up) or dangling; `None` for anything else.
fn broken_link(path: &Path) -> Option<&'static str> {
    if !path
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        return None;
    }
    match std::fs::metadata(path) {
        Ok(_) => None,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            Some("a symbolic link loop (the links point at each other); not followed")
        }
        Err(_) => Some("a dangling symbolic link"),
    }
}

/// Why a link out of the input is skipped with `--no-follow-links`.
const OUTSIDE_REFUSED: &str =
    "a symbolic link out of the input directory; not followed (--no-follow-links)";

/// Whether `path`, or a link on the way to it, leads out of `root` (the
/// input directory, resolved).
fn leads_outside(path: &Path, root: &Path) -> bool {
    path.canonicalize()
        .is_ok_and(|real| !real.starts_with(root))
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
            digested: None,
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
        return Some(broken_link(link).unwrap_or("a dangling symbolic link"));
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
    if let Some(reason) = e.path().and_then(broken_link) {
        return reason.into();
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

    /// Benchmark and repetition of each file after the numbered-runs pass,
    /// for versions given as lists of paths inside them.
    fn runs_of(versions: &[(&str, &[&str])]) -> Vec<Vec<(String, u32)>> {
        let mut dirs: Vec<VersionDir> = versions
            .iter()
            .map(|(name, files)| VersionDir {
                name: name.to_string(),
                path: PathBuf::from(name),
                digest: None,
                unpacked: None,
                files: files
                    .iter()
                    .map(|f| {
                        let (benchmark, repetition) = benchmark_and_repetition(f);
                        InputFile {
                            path: PathBuf::from(f),
                            relative: format!("{name}/{f}"),
                            benchmark,
                            repetition,
                            digested: None,
                        }
                    })
                    .collect(),
            })
            .collect();
        recognise_numbered_runs(&mut dirs);
        dirs.iter()
            .map(|v| {
                v.files
                    .iter()
                    .map(|f| (f.benchmark.clone(), f.repetition))
                    .collect()
            })
            .collect()
    }

    fn named(list: &[(&str, u32)]) -> Vec<(String, u32)> {
        list.iter().map(|(b, r)| (b.to_string(), *r)).collect()
    }

    #[test]
    fn runs_numbered_the_common_ways_are_repetitions() {
        let got = runs_of(&[
            (
                "1.0",
                &[
                    "cpu-1.cpuprofile",
                    "cpu-2.cpuprofile",
                    "cpu-3.cpuprofile",
                    "heap_0.heapprofile",
                    "heap_1.heapprofile",
                ],
            ),
            // A failed run: the history's numbers still run 1…3.
            (
                "1.1",
                &[
                    "cpu-1.cpuprofile",
                    "cpu-3.cpuprofile",
                    "parse/1.folded",
                    "parse/2.folded",
                ],
            ),
        ]);
        assert_eq!(
            got,
            [
                named(&[("cpu", 1), ("cpu", 2), ("cpu", 3), ("heap", 1), ("heap", 2)]),
                named(&[("cpu", 1), ("cpu", 3), ("parse", 1), ("parse", 2)]),
            ]
        );
    }

    #[test]
    fn numbers_that_are_not_runs_stay_in_the_name() {
        let got = runs_of(&[(
            "1.0",
            &[
                "fib-30.cpuprofile",
                "sort-10.folded",
                "sort-20.folded",
                "x-2.folded",
                "x-3.folded",
                "p.2.folded",
                "p-1.speedscope.json",
                "q.folded",
                "q-1.folded",
                "q-2.folded",
                "2.folded",
            ],
        )]);
        assert_eq!(
            got,
            [named(&[
                ("fib-30", 1),
                ("sort-10", 1),
                ("sort-20", 1),
                ("x-2", 1),
                ("x-3", 1),
                // The dot form is read as before; a lone `p-1` is a name.
                ("p", 2),
                ("p-1", 1),
                // `q` is a benchmark already: `q-1` and `q-2` stay apart.
                ("q", 1),
                ("q-1", 1),
                ("q-2", 1),
                ("2", 1),
            ])]
        );
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

        let (mut versions, skipped) =
            find_versions(&input, &config::InputConfig::default()).unwrap();
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
