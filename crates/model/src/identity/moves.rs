//! Functions that moved to another file between two versions without a
//! source map to say so: a library run from its bundle from one release
//! on, a module renamed. When a file no profile of a version samples any
//! more was sampled by the version before, and a file the version before
//! did not sample holds functions of the same names, each such function is
//! matched to its old file, like a rename: by its name when one vanished
//! file held it, else by its callers (the vanished file whose function of
//! that name had the most callers of the same names, when one has more
//! than the others). A vanished file is matched to a new one only on two
//! names or more, or on its only name: a single `main` or `run` in two
//! unrelated files is no move. Names a language gives many functions
//! (`<module>`, `<lambda>`, `(anonymous)`) are never matched. Matched
//! frames take the identity of the function they continue, so matrix rows,
//! diffs and root causes follow it; the build says which files were
//! matched.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashMap;

use super::is_anonymous;
use crate::frame::{Frame, FrameId};
use crate::history::{History, Note};

/// The functions of one file that another file holds from a version on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// The version-independent file they were in.
    pub from: String,
    /// The version-independent file they are in from `version` on.
    pub to: String,
    /// Index of the first version that runs them from `to`.
    pub version: usize,
    /// Their names, sorted.
    pub functions: Vec<String>,
    /// Some were told apart from same-named functions by their callers.
    pub by_callers: bool,
}

impl Moved {
    /// The remark the build shows for it.
    pub fn note(&self, history: &History) -> Note {
        let label = history
            .versions
            .get(self.version)
            .map_or("?", |v| v.label.as_str());
        let shown: Vec<&str> = self.functions.iter().take(5).map(String::as_str).collect();
        let more = self.functions.len().saturating_sub(shown.len());
        Note {
            file: self.to.clone(),
            place: String::new(),
            text: format!(
                "from {label} on, {} function{} ({}{}) sampled in `{}` {} matched by name{} to `{}`, which no profile samples any more: one function each across the move (no source map told where they came from)",
                self.functions.len(),
                if self.functions.len() == 1 { "" } else { "s" },
                shown.join(", "),
                if more > 0 { format!(", and {more} more") } else { String::new() },
                self.to,
                if self.functions.len() == 1 { "is" } else { "are" },
                if self.by_callers { " and callers" } else { "" },
                self.from
            ),
        }
    }
}

/// A file's sampled functions in one version: identity name (numbered
/// where same-named functions were split) → (raw name, frames).
type Functions<'a> = BTreeMap<&'a str, (&'a str, Vec<FrameId>)>;

/// Per version (with profiles), each version-independent file's sampled
/// functions.
fn sampled<'a>(
    history: &'a History,
    base: &'a [Frame],
) -> BTreeMap<usize, BTreeMap<&'a str, Functions<'a>>> {
    // A move is between two versions' files: with profiles of one version
    // only, or no frame in a file, there is none to find, and the nodes of
    // a big profile need not be read to say so.
    let mut versions = history.profiles.iter().map(|e| e.version);
    let first = versions.next();
    let one_version = versions.all(|v| Some(v) == first);
    if one_version || !base.iter().any(|f| f.file.is_some()) {
        return BTreeMap::new();
    }
    let mut seen: Vec<Vec<usize>> = vec![Vec::new(); history.frames.len()];
    for entry in &history.profiles {
        let tree = &entry.profile.tree;
        for node in tree.node_ids() {
            let Some(f) = tree.frame(node) else { continue };
            let at = &mut seen[f.0 as usize];
            if !at.contains(&entry.version) {
                at.push(entry.version);
            }
        }
    }
    let mut files: BTreeMap<usize, BTreeMap<&str, Functions>> = BTreeMap::new();
    for (id, frame) in history.frames.iter() {
        let identity = &base[id.0 as usize];
        let Some(file) = identity.file.as_deref() else {
            continue;
        };
        for &v in &seen[id.0 as usize] {
            let functions = files.entry(v).or_default().entry(file).or_default();
            if !generic(&frame.function) {
                let slot = functions
                    .entry(identity.function.as_str())
                    .or_insert_with(|| (frame.function.as_str(), Vec::new()));
                slot.1.push(id);
            }
        }
    }
    files
}

/// A name many functions share: never evidence of a move.
fn generic(name: &str) -> bool {
    is_anonymous(name) || name.starts_with('<') || name.starts_with('(')
}

/// The functions of `functions` whose raw name is `raw`.
fn named<'a, 'b>(
    functions: &'b Functions<'a>,
    raw: &'b str,
) -> impl Iterator<Item = (&'a str, &'b Vec<FrameId>)> + 'b {
    functions
        .iter()
        .filter(move |(_, (r, _))| *r == raw)
        .map(|(id, (_, frames))| (*id, frames))
}

/// Matches moved functions (see the module docs) and rewrites the
/// identity of their frames in `function_of` (indexed by frame id) to the
/// function they continue. Returns what moved.
pub fn follow_moves(history: &History, function_of: &mut [Frame]) -> Vec<Moved> {
    let (moved, rewritten) = matched_moves(history, function_of);
    for (frame, identity) in rewritten {
        function_of[frame as usize] = identity;
    }
    moved
}

/// What moved, and the new identity of each frame a move rewrites (the
/// frames not in it keep theirs in `base`): kept aside and written after,
/// instead of rewriting a copy of every frame's identity (a million
/// frames on a big input).
fn matched_moves(history: &History, base: &[Frame]) -> (Vec<Moved>, FxHashMap<u32, Frame>) {
    let mut rewritten: FxHashMap<u32, Frame> = FxHashMap::default();
    let sampled = sampled(history, base);
    let versions: Vec<usize> = sampled.keys().copied().collect();
    let mut moved: Vec<Moved> = Vec::new();
    let mut callers: Option<Callers> = None;
    let mut index: Option<FxHashMap<(&str, &str), Vec<FrameId>>> = None;
    for pair in versions.windows(2) {
        let (before, after) = (&sampled[&pair[0]], &sampled[&pair[1]]);
        let gone: Vec<&str> = before
            .keys()
            .copied()
            .filter(|f| !after.contains_key(f))
            .collect();
        if gone.is_empty() {
            continue;
        }
        for (&new_file, functions) in after.iter().filter(|(f, _)| !before.contains_key(*f)) {
            // Old file → (identity name here, raw name, the old frames it
            // continues, by callers).
            let mut found: BTreeMap<&str, Vec<(&str, &str, FrameId, bool)>> = BTreeMap::new();
            for (&here, (raw, frames)) in functions {
                // Each vanished file's function of that name: one only (a
                // file with same-named functions is left alone).
                let holders: Vec<(&str, FrameId)> = gone
                    .iter()
                    .filter_map(|g| match named(&before[g], raw).collect::<Vec<_>>()[..] {
                        [(_, old)] => Some((*g, old[0])),
                        _ => None,
                    })
                    .collect();
                let (old_file, old_frame, by_callers) = match holders[..] {
                    [] => continue,
                    [(g, f)] => (g, f, false),
                    _ => {
                        let c = callers.get_or_insert_with(|| Callers::of(history));
                        let old: Vec<Vec<FrameId>> = holders
                            .iter()
                            .map(|(g, _)| {
                                named(&before[g], raw)
                                    .flat_map(|(_, f)| f.clone())
                                    .collect()
                            })
                            .collect();
                        match c.best(frames, pair[1], &old, pair[0]) {
                            Some(k) => (holders[k].0, holders[k].1, true),
                            None => continue,
                        }
                    }
                };
                found
                    .entry(old_file)
                    .or_default()
                    .push((here, raw, old_frame, by_callers));
            }
            for (from, matched) in found {
                if matched.len() < 2 && before[from].len() > 1 {
                    continue;
                }
                let index = index.get_or_insert_with(|| by_file_and_name(history, base));
                for (here, _, old_frame, _) in &matched {
                    let old = old_frame.0;
                    let identity = rewritten.get(&old).unwrap_or(&base[old as usize]).clone();
                    for f in index.get(&(new_file, *here)).into_iter().flatten() {
                        rewritten.insert(f.0, identity.clone());
                    }
                }
                let mut functions: Vec<String> = matched.iter().map(|m| m.1.to_string()).collect();
                functions.sort();
                functions.dedup();
                moved.push(Moved {
                    from: from.to_string(),
                    to: new_file.to_string(),
                    version: pair[1],
                    functions,
                    by_callers: matched.iter().any(|m| m.3),
                });
            }
        }
    }
    (moved, rewritten)
}

/// Every frame of the history by its (version-independent file, identity
/// name) before moves were followed.
fn by_file_and_name<'a>(
    history: &'a History,
    base: &'a [Frame],
) -> FxHashMap<(&'a str, &'a str), Vec<FrameId>> {
    let mut index: FxHashMap<(&str, &str), Vec<FrameId>> = FxHashMap::default();
    for (id, _) in history.frames.iter() {
        let identity = &base[id.0 as usize];
        if let Some(file) = identity.file.as_deref() {
            index
                .entry((file, identity.function.as_str()))
                .or_default()
                .push(id);
        }
    }
    index
}

/// The names of each frame's callers, per version (made only when some
/// name is held by several vanished files).
struct Callers {
    of: FxHashMap<(FrameId, usize), BTreeSet<String>>,
}

impl Callers {
    fn of(history: &History) -> Callers {
        let mut of: FxHashMap<(FrameId, usize), BTreeSet<String>> = FxHashMap::default();
        for entry in &history.profiles {
            let tree = &entry.profile.tree;
            for node in tree.node_ids() {
                let (Some(f), Some(parent)) = (tree.frame(node), tree.parent(node)) else {
                    continue;
                };
                let Some(p) = tree.frame(parent) else {
                    continue;
                };
                // By name alone: callers move with the code.
                let caller = &history.frames.get(p).function;
                if !generic(caller) {
                    of.entry((f, entry.version))
                        .or_default()
                        .insert(caller.clone());
                }
            }
        }
        Callers { of }
    }

    fn names(&self, frames: &[FrameId], version: usize) -> BTreeSet<&str> {
        frames
            .iter()
            .filter_map(|f| self.of.get(&(*f, version)))
            .flatten()
            .map(|s| s.as_str())
            .collect()
    }

    /// Which of the vanished files' functions of this name (`old`, each
    /// sampled at `before`) shares the most caller names with `frames`
    /// (sampled at `version`): its index, when exactly one shares the most
    /// and it shares any.
    fn best(
        &self,
        frames: &[FrameId],
        version: usize,
        old: &[Vec<FrameId>],
        before: usize,
    ) -> Option<usize> {
        let now = self.names(frames, version);
        let mut scored: Vec<(usize, usize)> = old
            .iter()
            .enumerate()
            .map(|(k, o)| (self.names(o, before).intersection(&now).count(), k))
            .collect();
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        match scored[..] {
            [(best, g), (next, _), ..] if best > next => Some(g),
            [(best, g)] if best > 0 => Some(g),
            _ => None,
        }
    }
}
