//! Which methods were modified in each version, compared with the version
//! before it: from a git repository (see [`vcs`] and
//! [`super::method_lines`]) or, without one, from the source hashes a native
//! JSON input carries per frame. A version without change data says why;
//! nothing is ever guessed.

use std::collections::{BTreeMap, BTreeSet};

use super::hierarchy::{CompId, Hierarchy};
use model::History;

/// One line of a method's source diff.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeLine {
    /// `+` added, `-` removed, ` ` context.
    pub kind: char,
    pub old: Option<u32>,
    pub new: Option<u32>,
    pub text: String,
}

/// How one method changed in one version.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MethodChange {
    /// New in this version (its whole range is new code, or its file is).
    pub added: bool,
    /// Repository path of its file.
    pub file: String,
    /// Its line range in this version and the rule that found it.
    pub range: Option<(u32, u32, String)>,
    /// The diff lines inside the range (bounded).
    pub lines: Vec<ChangeLine>,
    pub truncated: bool,
}

/// Change data of one version against the one before it.
#[derive(Debug, Clone, Default)]
pub struct VersionChanges {
    /// False when there is no change data (first version, no revision, no
    /// repository, no hashes); `note` says why.
    pub known: bool,
    /// Where the data comes from, or why there is none.
    pub note: String,
    pub modified: BTreeMap<CompId, MethodChange>,
    /// Revisions compared, as `(old, new)` short ids, when from git.
    pub revisions: Option<(String, String)>,
    /// Whole-file diffs for the version's diff page (git only).
    pub files: Vec<vcs::FileDiff>,
    /// Profile file paths that could not be found in the repository.
    pub unmapped: Vec<String>,
}

/// Change data for every version, in version order.
#[derive(Debug, Clone, Default)]
pub struct Modifications {
    pub versions: Vec<VersionChanges>,
    /// With a repository: the methods whose file it holds in some version
    /// (the program's own code, see [`crate::origin`]); `None` without
    /// one.
    pub in_repository: Option<BTreeSet<CompId>>,
}

impl Modifications {
    /// No change data anywhere, for `reason`.
    pub fn unknown(versions: usize, reason: &str) -> Modifications {
        Modifications {
            versions: (0..versions)
                .map(|v| VersionChanges {
                    note: if v == 0 {
                        "first version: nothing to compare with".into()
                    } else {
                        reason.to_string()
                    },
                    ..VersionChanges::default()
                })
                .collect(),
            in_repository: None,
        }
    }

    /// The modified methods of each version (`None` where unknown).
    pub fn sets(&self) -> Vec<Option<BTreeSet<CompId>>> {
        self.versions
            .iter()
            .map(|v| v.known.then(|| v.modified.keys().copied().collect()))
            .collect()
    }

    /// Whether any version has change data.
    pub fn any_known(&self) -> bool {
        self.versions.iter().any(|v| v.known)
    }
}

/// Modified methods from the `source_hash` of frames (native JSON): a
/// method is modified in a version when its hash differs from the one it
/// had in the version before; a method with a hash only in the newer
/// version is new. A version pair where neither side has hashes has no
/// change data.
pub fn from_source_hashes(history: &History, hierarchy: &Hierarchy) -> Modifications {
    let n = history.versions.len();
    let mut out = Modifications::unknown(n, "no source hashes in the inputs of this version");
    // Most formats carry none: then no profile's nodes need a look.
    if !history.frames.iter().any(|(_, f)| f.source_hash.is_some()) {
        return out;
    }
    // Per version: method → hash (the smallest, if frames disagree).
    let mut hashes: Vec<BTreeMap<CompId, String>> = vec![BTreeMap::new(); n];
    for entry in &history.profiles {
        let tree = &entry.profile.tree;
        for node in tree.node_ids() {
            let Some(f) = tree.frame(node) else { continue };
            if let Some(h) = &history.frames.get(f).source_hash {
                let slot = hashes[entry.version]
                    .entry(hierarchy.method_of(f))
                    .or_insert_with(|| h.clone());
                if h < slot {
                    *slot = h.clone();
                }
            }
        }
    }
    for v in 1..n {
        if hashes[v].is_empty() || hashes[v - 1].is_empty() {
            continue;
        }
        let changes = &mut out.versions[v];
        changes.known = true;
        changes.note = "from the source hashes in the inputs".into();
        for (method, hash) in &hashes[v] {
            let before = hashes[v - 1].get(method);
            if before != Some(hash) {
                changes.modified.insert(
                    *method,
                    MethodChange {
                        added: before.is_none(),
                        ..MethodChange::default()
                    },
                );
            }
        }
    }
    out
}

/// Where the git data came from, for one version.
/// Whether a profile's file is the runtime's own code, named by a scheme
/// without a path (`node:internal/main`, `node:fs`), which no repository
/// of the program holds: not worth a "not found" count.
fn runtime_builtin(file: &str) -> bool {
    match file.split_once(':') {
        Some((scheme, rest)) => {
            !scheme.is_empty()
                && scheme.len() > 1
                && scheme.bytes().all(|b| b.is_ascii_lowercase())
                && !rest.starts_with("//")
        }
        None => false,
    }
}

fn resolution_note(r: &vcs::Resolved) -> String {
    format!("{} ({})", r.short, r.how)
}

/// Modified methods from a git repository: each version is mapped to a
/// revision, consecutive revisions are diffed, and each method the
/// profiles know in the newer version is modified when a changed line
/// falls inside its line range there (see [`super::method_lines`] for how the
/// range is found and its limits).
pub fn from_git(
    repo: &vcs::Repo,
    history: &History,
    hierarchy: &Hierarchy,
    config: &config::VcsConfig,
    popup_lines: usize,
) -> Modifications {
    use vcs::PathMap;
    let n = history.versions.len();
    let resolved: Vec<Result<Option<vcs::Resolved>, String>> = history
        .versions
        .iter()
        .map(|v| {
            repo.resolve(&v.name, v.revision.as_deref(), &config.tag_patterns)
                .map_err(|e| e.to_string())
        })
        .collect();
    let rules: Vec<(String, String)> = config
        .path_map
        .iter()
        .map(|r| (r.from.clone(), r.to.clone()))
        .collect();
    let mut out = Modifications::unknown(n, "");
    // Files the repository does not hold under a top directory it has
    // (in some version), and those directories.
    let mut under_dirs: Vec<(CompId, String)> = Vec::new();
    let mut top_dirs: BTreeSet<String> = BTreeSet::new();
    let mut previous_sites: BTreeMap<CompId, super::method_lines::MethodSite> = BTreeMap::new();
    for v in 0..n {
        // This version's sites become the next version's "before", once.
        let before_sites =
            std::mem::replace(&mut previous_sites, method_sites(history, hierarchy, v));
        let sites = &previous_sites;
        let here = &mut out.versions[v];
        let new = match &resolved[v] {
            Err(e) => {
                here.note = format!("no change data: {e}");
                continue;
            }
            Ok(None) => {
                here.note = format!(
                    "no change data: version {} has no revision (no `revision` in its version.toml and no tag named like it)",
                    history.versions[v].name
                );
                continue;
            }
            Ok(Some(r)) => r,
        };
        let paths = repo.paths(new).unwrap_or_default();
        let new_paths: BTreeSet<String> = paths.iter().cloned().collect();
        let map = PathMap::new(rules.clone(), paths);
        let held = out.in_repository.get_or_insert_with(BTreeSet::new);
        for (m, site) in sites {
            if map.map(&site.file).is_some() {
                held.insert(*m);
            } else if let Some(dir) = relative_top_dir(&site.file) {
                under_dirs.push((*m, dir.to_string()));
            }
        }
        top_dirs.extend(
            new_paths
                .iter()
                .filter_map(|p| p.split_once('/').map(|d| d.0.to_string())),
        );
        let here = &mut out.versions[v];
        if v == 0 {
            here.note = format!(
                "first version ({}): nothing to compare with",
                resolution_note(new)
            );
            continue;
        }
        let old = match &resolved[v - 1] {
            Ok(Some(r)) => r,
            _ => {
                here.note = format!(
                    "no change data: the previous version {} has no revision",
                    history.versions[v - 1].name
                );
                continue;
            }
        };
        // The version's diff as it is, for its page; whitespace ignored,
        // for which methods changed.
        let (files, code) = match repo
            .diff(old, new)
            .and_then(|f| Ok((f, repo.code_diff(old, new)?)))
        {
            Ok(f) => f,
            Err(e) => {
                here.note = format!("no change data: {e}");
                continue;
            }
        };
        let mut sources: BTreeMap<String, Option<String>> = BTreeMap::new();
        let mut unmapped: BTreeSet<String> = BTreeSet::new();
        let mut old_map: Option<PathMap> = None;
        for (&method, site) in sites {
            let Some(path) = map.map(&site.file) else {
                if !runtime_builtin(&site.file) {
                    unmapped.insert(site.file.clone());
                }
                continue;
            };
            // A function the profiles ran from another file in the version
            // before (matched across the move by identity): its source
            // there against its source here.
            if let Some(before) = before_sites.get(&method).filter(|b| b.file != site.file) {
                let old_map = old_map.get_or_insert_with(|| {
                    PathMap::new(rules.clone(), repo.paths(old).unwrap_or_default())
                });
                if let Some(old_path) = old_map.map(&before.file).filter(|p| *p != path) {
                    // Its old file is still here (the sources a bundle is
                    // built from): that file's own change decides, not the
                    // generated text.
                    if new_paths.contains(&old_path) {
                        let text = repo.file_text(new, &old_path);
                        let site = super::method_lines::MethodSite {
                            file: old_path.clone(),
                            ..before.clone()
                        };
                        if let Some(mut change) =
                            change_in(&code, &site, text.as_deref(), popup_lines)
                        {
                            if let Some(r) = change.range.as_mut() {
                                r.2.push_str(&format!(
                                    ", in the source of the code the profiles ran from {path}"
                                ));
                            }
                            here.modified.insert(method, change);
                        }
                        continue;
                    }
                    let moved = Moved {
                        old: (old_path.as_str(), before),
                        new: (path.as_str(), site),
                    };
                    let old_text = repo.file_text(old, &old_path);
                    let new_text = sources
                        .entry(path.clone())
                        .or_insert_with(|| repo.file_text(new, &path));
                    if let Some(change) =
                        moved.change(old_text.as_deref(), new_text.as_deref(), popup_lines)
                    {
                        here.modified.insert(method, change);
                    }
                    continue;
                }
            }
            let source = sources
                .entry(path.clone())
                .or_insert_with(|| repo.file_text(new, &path));
            let site = super::method_lines::MethodSite {
                file: path.clone(),
                ..site.clone()
            };
            if let Some(change) = change_in(&code, &site, source.as_deref(), popup_lines) {
                here.modified.insert(method, change);
            }
        }
        here.known = true;
        here.note = format!(
            "from git: {} → {}, {} changed file{}",
            resolution_note(old),
            resolution_note(new),
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
        if !unmapped.is_empty() {
            here.note.push_str(&format!(
                "; {} profile file{} not found in the repository (see [vcs] path_map)",
                unmapped.len(),
                if unmapped.len() == 1 { "" } else { "s" }
            ));
        }
        here.revisions = Some((old.short.clone(), new.short.clone()));
        here.files = files;
        here.unmapped = unmapped.into_iter().collect();
    }
    // A relative file under one of the repository's top directories is
    // its code too, though not at that path in any version: TypeScript
    // sources a bundle's source map names (`src/Lexer.ts`) where the
    // repository holds only the bundle.
    if let Some(held) = out.in_repository.as_mut() {
        held.extend(
            under_dirs
                .into_iter()
                .filter(|(_, d)| top_dirs.contains(d))
                .map(|(m, _)| m),
        );
    }
    out
}

/// The first directory of a relative path (`src` of `src/Lexer.ts`);
/// `None` for an absolute path, a URL or a runtime's own file.
fn relative_top_dir(file: &str) -> Option<&str> {
    if file.starts_with(['/', '\\', '<']) || file.contains(':') {
        return None;
    }
    let file = file.trim_start_matches("./");
    file.split_once('/')
        .map(|(d, _)| d)
        .filter(|d| !d.is_empty() && *d != "..")
}

/// How the method at `site` (repository path) changed in `files` (the
/// version's diff), when its range in `source` (the file's new text)
/// holds changed lines.
fn change_in(
    files: &[vcs::FileDiff],
    site: &super::method_lines::MethodSite,
    source: Option<&str>,
    popup_lines: usize,
) -> Option<MethodChange> {
    use super::method_lines::{is_modified, method_diff, method_range};
    let file = files
        .iter()
        .find(|f| f.new_path.as_deref() == Some(site.file.as_str()))?;
    let range = method_range(site, source)?;
    if !is_modified(&range, file) {
        return None;
    }
    let diff = method_diff(&range, file, popup_lines);
    let added = file.status == vcs::FileStatus::Added
        || (!diff.lines.is_empty()
            && diff
                .lines
                .iter()
                .filter(|l| {
                    l.new_line
                        .is_some_and(|n| n >= range.first && n <= range.last)
                })
                .all(|l| l.kind == vcs::LineKind::Added));
    Some(MethodChange {
        added,
        file: site.file.clone(),
        range: Some((range.first, range.last, rule_name(range.rule).to_string())),
        lines: diff.lines.iter().map(change_line).collect(),
        truncated: diff.truncated,
    })
}

fn change_line(l: &vcs::DiffLine) -> ChangeLine {
    ChangeLine {
        kind: match l.kind {
            vcs::LineKind::Added => '+',
            vcs::LineKind::Removed => '-',
            vcs::LineKind::Context => ' ',
        },
        old: l.old_line,
        new: l.new_line,
        text: l.text.clone(),
    }
}

/// A function's site in the version before, in another file, and its site
/// now: `(repository path, site)` each.
struct Moved<'a> {
    old: (&'a str, &'a super::method_lines::MethodSite),
    new: (&'a str, &'a super::method_lines::MethodSite),
}

impl Moved<'_> {
    /// How its source changed across the move: its lines where it was
    /// against its lines where it is; `None` when they are the same, or
    /// either range cannot be found.
    fn change(
        &self,
        old: Option<&str>,
        new: Option<&str>,
        popup_lines: usize,
    ) -> Option<MethodChange> {
        use super::method_lines::{method_diff, method_range, LineRange, MethodSite};
        let range_in = |(path, site): (&str, &MethodSite), text: &str| {
            let site = MethodSite {
                file: path.to_string(),
                ..site.clone()
            };
            method_range(&site, Some(text))
        };
        let (old_text, new_text) = (old?, new?);
        let old_range = range_in(self.old, old_text)?;
        let new_range = range_in(self.new, new_text)?;
        let lines_of = |text: &str, r: &LineRange| {
            text.lines()
                .skip(r.first as usize - 1)
                .take((r.last + 1 - r.first) as usize)
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        };
        let diff = vcs::diff_texts(
            self.old.0,
            &lines_of(old_text, &old_range),
            self.new.0,
            &lines_of(new_text, &new_range),
        );
        if diff.hunks.is_empty() {
            return None;
        }
        let whole = LineRange {
            first: 1,
            last: new_range.last + 1 - new_range.first,
            rule: new_range.rule,
        };
        let shown = method_diff(&whole, &diff, popup_lines);
        let shift = |n: Option<u32>, by: u32| n.map(|n| n + by - 1);
        Some(MethodChange {
            added: false,
            file: self.new.0.to_string(),
            range: Some((
                new_range.first,
                new_range.last,
                format!(
                    "{}, against its lines {}–{} in {} before it moved",
                    rule_name(new_range.rule),
                    old_range.first,
                    old_range.last,
                    self.old.0
                ),
            )),
            lines: shown
                .lines
                .iter()
                .map(|l| ChangeLine {
                    old: shift(l.old_line, old_range.first),
                    new: shift(l.new_line, new_range.first),
                    ..change_line(l)
                })
                .collect(),
            truncated: shown.truncated,
        })
    }
}

fn rule_name(rule: super::method_lines::RangeRule) -> &'static str {
    use super::method_lines::RangeRule;
    match rule {
        RangeRule::PythonDef => "its Python def block",
        RangeRule::BraceBlock => "its brace block",
        RangeRule::DeclaredStart => "its start line and sampled lines",
        RangeRule::SampledLines => "its sampled lines",
    }
}

/// Every method the profiles of version `v` know, with its file (the
/// first in path order when frames disagree), declared start line and
/// sampled lines.
fn method_sites(
    history: &History,
    hierarchy: &Hierarchy,
    v: usize,
) -> BTreeMap<CompId, super::method_lines::MethodSite> {
    let mut seen = vec![false; history.frames.len()];
    // Lines a profile's line table gives a frame's nodes: where samples
    // were taken in a function that is one frame whatever its lines.
    let mut table_lines: Vec<Vec<u32>> = vec![Vec::new(); history.frames.len()];
    for entry in history.profiles.iter().filter(|p| p.version == v) {
        let tree = &entry.profile.tree;
        for node in tree.node_ids() {
            if let Some(f) = tree.frame(node) {
                seen[f.0 as usize] = true;
            }
        }
        for (node, line, _) in entry.profile.line_self.iter().flat_map(|t| t.iter()) {
            if let Some(f) = tree.frame(node) {
                table_lines[f.0 as usize].push(line);
            }
        }
    }
    let mut sites: BTreeMap<CompId, super::method_lines::MethodSite> = BTreeMap::new();
    for (id, frame) in history.frames.iter() {
        let Some(file) = frame.file.as_ref().filter(|_| seen[id.0 as usize]) else {
            continue;
        };
        let method = hierarchy.method_of(id);
        let site = sites
            .entry(method)
            .or_insert_with(|| super::method_lines::MethodSite {
                file: file.clone(),
                name: frame.function.clone(),
                start_line: None,
                sampled_lines: Vec::new(),
            });
        if file < &site.file {
            *site = super::method_lines::MethodSite {
                file: file.clone(),
                name: frame.function.clone(),
                start_line: None,
                sampled_lines: Vec::new(),
            };
        }
        if file != &site.file {
            continue;
        }
        if let Some(s) = frame.start_line {
            site.start_line = Some(site.start_line.map_or(s, |x| x.min(s)));
        }
        if let Some(l) = frame.line {
            site.sampled_lines.push(l);
        }
        site.sampled_lines.extend(&table_lines[id.0 as usize]);
    }
    for site in sites.values_mut() {
        site.sampled_lines.sort_unstable();
        site.sampled_lines.dedup();
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use input::parse_bytes;
    use model::{ProfileEntry, Version};

    fn native(frames: &str) -> String {
        format!(
            r#"{{"perfatlas":1,"metrics":[{{"name":"samples","unit":"samples"}}],"frames":{frames},"nodes":[{{"frame":0,"parent":null,"self":[1]}},{{"frame":1,"parent":0,"self":[1]}}]}}"#
        )
    }

    #[test]
    fn the_runtime_s_own_files_are_not_looked_for_in_the_repository() {
        assert!(runtime_builtin("node:internal/main/run_main_module"));
        assert!(runtime_builtin("node:fs"));
        assert!(!runtime_builtin("file:///work/app/src/index.js"));
        assert!(!runtime_builtin("C:\\app\\main.js"));
        assert!(!runtime_builtin("src/Tokenizer.js"));
        assert!(!runtime_builtin("/home/u/app/main.py"));
    }

    #[test]
    fn a_changed_hash_marks_the_method_modified_and_a_new_one_added() {
        let v1 = native(
            r#"[{"function":"main","source_hash":"a1"},{"function":"f","source_hash":"b1"}]"#,
        );
        let v2 = native(
            r#"[{"function":"main","source_hash":"a1"},{"function":"f","source_hash":"b2"}]"#,
        );
        let v3 = native(
            r#"[{"function":"main","source_hash":"a1"},{"function":"g","source_hash":"c1"}]"#,
        );
        let mut history = History::default();
        for (v, text) in [v1, v2, v3].iter().enumerate() {
            history.versions.push(Version {
                name: format!("{v}"),
                ..Version::default()
            });
            let (format, parsed) = parse_bytes("x.json", text.as_bytes()).unwrap();
            let map = history.frames.absorb(parsed.frames);
            let mut profile = parsed.profile;
            profile.tree.remap_frames(&map);
            history.profiles.push(ProfileEntry {
                version: v,
                benchmark: "b".into(),
                repetition: 1,
                source: String::new(),
                format,
                profile,
            });
        }
        let h = Hierarchy::plain(&history.frames, "p");
        let m = from_source_hashes(&history, &h);
        let names = |v: usize| -> Vec<(String, bool)> {
            m.versions[v]
                .modified
                .iter()
                .map(|(c, ch)| (h.get(*c).name.clone(), ch.added))
                .collect()
        };
        assert!(!m.versions[0].known);
        assert_eq!(names(1), [("f".to_string(), false)]);
        assert_eq!(names(2), [("g".to_string(), true)]);
        assert_eq!(m.sets()[1].as_ref().map(|s| s.len()), Some(1));
    }
}
