//! One identity per function across versions: what makes two frames of
//! different versions (or of one profile) "the same function". Everything
//! that compares versions — matrix rows, flame-graph diffs in every shape,
//! aggregates over versions, root causes, modified-method marks — asks
//! this module, and nothing else decides it.
//!
//! A function is its name plus its file made version-independent, never
//! its sampled line. The file is made version-independent by these rules,
//! in order (the first that matches a part of the path removes it and
//! everything before it):
//!
//! 1. a `file://` prefix is dropped;
//! 2. the configured rewrites (`[identity] path_map`, each `from` prefix,
//!    where `{version}` stands for any version's name or label, becomes
//!    `to`);
//! 3. installed packages: the path after the last `site-packages/`,
//!    `dist-packages/` or `node_modules/`;
//! 4. version directories: the path after the last segment that is a
//!    version's name or label, or that ends in one after `-`, `_` or `@`
//!    (`markdown-3.6`, `lodash@4.17.21`), or is `v` + a version
//!    (`v2.1`); the suffix forms only for names holding a digit;
//! 5. temporary directories: the path after the last segment that looks
//!    made by `mkdtemp` (`tmp` + 6 or more letters and digits,
//!    `pytest-NN`).
//!
//! Lines stay on frames for source links and line costs. Functions that
//! share a name inside one file (bundles, overloads, nested closures) stay
//! apart where the profile records where each starts (V8 call frames,
//! pprof `start_line`): within a version they are numbered by start line
//! (`list#1`, `list#2`), and a frame keeps the number it has in the first
//! version that samples it. Unnamed functions (`(anonymous)`) are not
//! numbered: a file holds many, and each profile samples another subset.
//! The limits: when only one of same-named functions is sampled in a
//! version it is `#1` there whichever it is.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use super::frame::{Frame, FrameId, FrameTable};
use super::history::History;

/// Directories of installed packages: what follows is the package's path.
const PACKAGE_DIRS: [&str; 3] = ["site-packages/", "dist-packages/", "node_modules/"];

/// The rules that make a file path version-independent.
#[derive(Debug, Clone, Default)]
pub struct PathRules {
    /// Version names and labels, longest first (so `1.10` wins over `1.1`).
    versions: Vec<String>,
    /// Configured `(from, to)` prefix rewrites; `from` may hold `{version}`.
    rewrites: Vec<(String, String)>,
}

/// Which rule made a path version-independent, and the prefix it removed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Normalised {
    pub rule: Rule,
    pub removed: String,
}

/// The rules of the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    Configured,
    InstalledPackage,
    VersionDirectory,
    TemporaryDirectory,
}

impl Rule {
    pub fn describe(self) -> &'static str {
        match self {
            Rule::Configured => "configured rewrite (`[identity] path_map`)",
            Rule::InstalledPackage => "installed package (`site-packages`, `node_modules`)",
            Rule::VersionDirectory => "directory named after a version",
            Rule::TemporaryDirectory => "temporary directory",
        }
    }
}

impl PathRules {
    /// Rules for a history of versions named and labelled as given, with
    /// configured `(from, to)` rewrites.
    pub fn new<'a>(
        versions: impl IntoIterator<Item = &'a str>,
        rewrites: &[(String, String)],
    ) -> PathRules {
        let mut versions: Vec<String> = versions
            .into_iter()
            .map(str::trim)
            .filter(|v| !v.is_empty() && !v.contains('/'))
            .map(str::to_string)
            .collect();
        versions.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        versions.dedup();
        PathRules {
            versions,
            rewrites: rewrites.to_vec(),
        }
    }

    /// The rules of `history`'s versions (names and labels).
    pub fn of_history(history: &History, rewrites: &[(String, String)]) -> PathRules {
        let names = history
            .versions
            .iter()
            .flat_map(|v| [v.name.as_str(), v.label.as_str()]);
        PathRules::new(names, rewrites)
    }

    /// `file` made version-independent, with the rule that did it.
    pub fn stable_file<'a>(&self, file: &'a str) -> (Cow<'a, str>, Option<Normalised>) {
        let path = file.strip_prefix("file://").unwrap_or(file);
        if let Some((rest, removed)) = self.rewrite(path) {
            let normalised = Normalised {
                rule: Rule::Configured,
                removed,
            };
            return (Cow::Owned(rest), Some(normalised));
        }
        let found = after_package_dir(path)
            .map(|i| (i, Rule::InstalledPackage))
            .or_else(|| {
                self.after_version_dir(path)
                    .map(|i| (i, Rule::VersionDirectory))
            })
            .or_else(|| after_temp_dir(path).map(|i| (i, Rule::TemporaryDirectory)));
        match found {
            Some((i, rule)) => (
                Cow::Borrowed(&path[i..]),
                Some(Normalised {
                    rule,
                    removed: path[..i].to_string(),
                }),
            ),
            None => (Cow::Borrowed(path), None),
        }
    }

    /// The first configured rewrite whose `from` is a prefix of `path`.
    fn rewrite(&self, path: &str) -> Option<(String, String)> {
        for (from, to) in &self.rewrites {
            let Some((head, tail)) = from.split_once("{version}") else {
                if let Some(rest) = path.strip_prefix(from.as_str()) {
                    return Some((format!("{to}{rest}"), from.clone()));
                }
                continue;
            };
            let Some(after_head) = path.strip_prefix(head) else {
                continue;
            };
            for v in &self.versions {
                if let Some(rest) = after_head
                    .strip_prefix(v.as_str())
                    .and_then(|r| r.strip_prefix(tail))
                {
                    let removed = path[..path.len() - rest.len()].to_string();
                    return Some((format!("{to}{rest}"), removed));
                }
            }
        }
        None
    }

    /// Byte offset just after the last segment naming a version.
    fn after_version_dir(&self, path: &str) -> Option<usize> {
        segments(path)
            .filter(|(_, seg)| self.names_a_version(seg))
            .last()
            .map(|(end, _)| end)
    }

    fn names_a_version(&self, segment: &str) -> bool {
        self.versions.iter().any(|v| {
            if segment == v {
                return true;
            }
            if !v.bytes().any(|b| b.is_ascii_digit()) {
                return false;
            }
            segment.strip_prefix('v') == Some(v.as_str())
                || segment.strip_suffix(v.as_str()).is_some_and(|head| {
                    // `name-1.2`, `name@1.2`, `name@v1.2` (Go's module cache).
                    let head = head
                        .strip_suffix('v')
                        .filter(|h| h.ends_with(['-', '_', '@']))
                        .unwrap_or(head);
                    head.len() > 1 && head.ends_with(['-', '_', '@'])
                })
        })
    }
}

/// `(offset just after the segment and its `/`, segment)` for every
/// directory segment of `path` (the file name is not one).
fn segments(path: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    path.match_indices(['/', '\\']).filter_map(move |(i, _)| {
        let seg = &path[start..i];
        start = i + 1;
        (!seg.is_empty()).then_some((i + 1, seg))
    })
}

fn after_package_dir(path: &str) -> Option<usize> {
    PACKAGE_DIRS
        .iter()
        .filter_map(|m| path.rfind(m).map(|i| i + m.len()))
        .max()
        .filter(|&i| i < path.len())
}

fn after_temp_dir(path: &str) -> Option<usize> {
    segments(path)
        .filter(|(_, seg)| looks_temporary(seg))
        .last()
        .map(|(end, _)| end)
}

/// `tmpa8f3k2x` (Python's `tempfile`, `mktemp`), `pytest-12`.
fn looks_temporary(segment: &str) -> bool {
    if let Some(rest) = segment.strip_prefix("tmp").or(segment.strip_prefix("tmp.")) {
        let rest = rest.trim_start_matches(['.', '_', '-']);
        return rest.len() >= 6 && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    }
    segment
        .strip_prefix("pytest-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Every frame's function: the frame standing for it (name, possibly
/// numbered; version-independent file; module) and the normalisations
/// made on the way.
#[derive(Debug, Clone, Default)]
pub struct FunctionIds {
    /// Frame id → its function frame.
    function_of: Vec<Frame>,
    pub notes: IdentityNotes,
}

/// What finding the functions changed that a reader is told of: all of
/// [`FunctionIds`] kept once the frame tables made from its function
/// frames are made.
#[derive(Debug, Clone, Default)]
pub struct IdentityNotes {
    /// Rule → the distinct prefixes it removed (for a page note).
    pub normalised: BTreeMap<Rule, BTreeSet<String>>,
    /// Function names split by start line: (name, file, how many).
    pub split: Vec<(String, String, usize)>,
    /// Files whose functions another file holds from a version on,
    /// matched by name ([`moves`]).
    pub moved: Vec<Moved>,
}

impl FunctionIds {
    /// Its notes, its function frames dropped: a copy of every frame's
    /// name, as large as the history's frame table, not wanted past the
    /// shapes' frame table and the hierarchy.
    pub fn into_notes(self) -> IdentityNotes {
        self.notes
    }

    /// The function of every frame of `history`.
    pub fn new(history: &History, rules: &PathRules) -> FunctionIds {
        let mut ids = FunctionIds::of_frames(&history.frames, rules);
        let (numbers, split) = number_same_names(history, &ids.function_of);
        for (frame, k) in ids.function_of.iter_mut().zip(numbers) {
            if let Some(k) = k {
                frame.function = format!("{}#{k}", frame.function);
            }
        }
        ids.notes.split = split;
        ids.notes.moved = moves::follow_moves(history, &mut ids.function_of);
        ids
    }

    /// The function of every frame of `frames`, by name and
    /// version-independent file alone (no profiles to tell same-named
    /// functions apart by).
    pub fn of_frames(frames: &FrameTable, rules: &PathRules) -> FunctionIds {
        let mut normalised: BTreeMap<Rule, BTreeSet<String>> = BTreeMap::new();
        let mut stable: FxHashMap<&str, String> = FxHashMap::default();
        let mut base: Vec<Frame> = Vec::with_capacity(frames.len());
        for (_, frame) in frames.iter() {
            let file = frame.file.as_deref().map(|f| {
                stable
                    .entry(f)
                    .or_insert_with(|| {
                        let (s, n) = rules.stable_file(f);
                        if let Some(n) = n {
                            normalised.entry(n.rule).or_default().insert(n.removed);
                        }
                        s.into_owned()
                    })
                    .clone()
            });
            base.push(Frame {
                function: frame.function.clone(),
                file,
                module: frame.module.clone(),
                ..Frame::default()
            });
        }
        FunctionIds {
            function_of: base,
            notes: IdentityNotes {
                normalised,
                ..IdentityNotes::default()
            },
        }
    }

    /// The function frame of history frame `id` (a frame it does not know
    /// stands for itself without its line).
    pub fn function(&self, id: FrameId, frame: &Frame) -> Frame {
        match self.function_of.get(id.0 as usize) {
            Some(f) => f.clone(),
            None => Frame {
                function: frame.function.clone(),
                file: frame.file.clone(),
                module: frame.module.clone(),
                ..Frame::default()
            },
        }
    }

    /// The function frame of history frame `id`, when known.
    pub fn get(&self, id: FrameId) -> Option<&Frame> {
        self.function_of.get(id.0 as usize)
    }
}

/// Numbers functions that share a name and file but start on different
/// lines within one version (see the module docs): each frame's number,
/// if it gets one, and what was split.
type Numbers = (Vec<Option<usize>>, Vec<(String, String, usize)>);

fn number_same_names(history: &History, base: &[Frame]) -> Numbers {
    // Start lines of each (name, file) over the whole history.
    let mut starts: FxHashMap<(&str, &str), BTreeSet<u32>> = FxHashMap::default();
    for (id, frame) in history.frames.iter() {
        let (Some(file), Some(start)) = (base[id.0 as usize].file.as_deref(), frame.start_line)
        else {
            continue;
        };
        if is_anonymous(&frame.function) {
            continue;
        }
        starts
            .entry((frame.function.as_str(), file))
            .or_default()
            .insert(start);
    }
    let candidates: BTreeSet<(String, String)> = starts
        .into_iter()
        .filter(|(_, s)| s.len() > 1)
        .map(|((n, f), _)| (n.to_string(), f.to_string()))
        .collect();
    if candidates.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // Per version: the start lines of each candidate that its profiles
    // sample, and which frames they are.
    let mut first_version: Vec<Option<usize>> = vec![None; history.frames.len()];
    let mut per_version: BTreeMap<(usize, &str, &str), BTreeSet<u32>> = BTreeMap::new();
    let mut seen_at: Vec<Vec<usize>> = vec![Vec::new(); history.frames.len()];
    for entry in &history.profiles {
        let tree = &entry.profile.tree;
        for node in tree.node_ids() {
            let Some(f) = tree.frame(node) else { continue };
            let i = f.0 as usize;
            if seen_at[i].last() != Some(&entry.version) {
                seen_at[i].push(entry.version);
            }
        }
    }
    for (id, frame) in history.frames.iter() {
        let i = id.0 as usize;
        let (Some(file), Some(start)) = (base[i].file.as_deref(), frame.start_line) else {
            continue;
        };
        if !candidates.contains(&(frame.function.clone(), file.to_string())) {
            continue;
        }
        for &v in &seen_at[i] {
            per_version
                .entry((v, frame.function.as_str(), file))
                .or_default()
                .insert(start);
        }
        first_version[i] = seen_at[i].iter().copied().min();
    }
    // The names some version samples at several start lines.
    let several: BTreeSet<(&str, &str)> = per_version
        .iter()
        .filter(|(_, lines)| lines.len() > 1)
        .map(|((_, n, f), _)| (*n, *f))
        .collect();
    let mut split: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut numbers: Vec<Option<usize>> = vec![None; history.frames.len()];
    for (id, frame) in history.frames.iter() {
        let i = id.0 as usize;
        let (Some(v), Some(start)) = (first_version[i], frame.start_line) else {
            continue;
        };
        let Some(file) = base[i].file.as_deref() else {
            continue;
        };
        let Some(lines) = per_version.get(&(v, frame.function.as_str(), file)) else {
            continue;
        };
        if !several.contains(&(frame.function.as_str(), file)) {
            continue;
        }
        let k = lines.iter().take_while(|&&l| l < start).count() + 1;
        numbers[i] = Some(k);
        let most = split
            .entry((frame.function.clone(), file.to_string()))
            .or_default();
        *most = (*most).max(lines.len());
    }
    let split = split.into_iter().map(|((n, f), k)| (n, f, k)).collect();
    (numbers, split)
}

/// Unnamed functions (closures, callbacks) are many in one file and
/// sampled in different subsets by each profile: numbering them would make
/// the same closure another function from one version to the next.
fn is_anonymous(name: &str) -> bool {
    name.is_empty()
        || name == "(anonymous)"
        || name == "<anonymous>"
        || name == "(anonymous function)"
}

mod moves;
#[cfg(test)]
mod tests;

pub use moves::Moved;
