//! Source texts for code links: for each version, the files its profiles'
//! frames name, read from a git repository at the version's revision
//! (`--repo`) or from a directory (`--sources DIR`, looked up first under
//! `DIR/<version>/` and then under `DIR/`). A file that cannot be found is
//! simply absent: pages then show no link rather than a broken one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use crate::PathMap;
use crate::Repo;
use config::VcsConfig;
use model::{stable_path, History};

/// Largest source file read (bigger files get no page).
pub const MAX_SOURCE_BYTES: usize = 4 << 20;

/// One source file of one version.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub version: usize,
    /// The paths the profiles' frames name it by (profilers differ: one
    /// writes it relative, another absolute in its environment).
    pub profile_paths: Vec<String>,
    /// The path inside the repository or the sources directory.
    pub shown_path: String,
    pub text: String,
}

/// Every source file found, by (version, profile path).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub files: Vec<SourceFile>,
    index: BTreeMap<(usize, String), usize>,
}

impl Sources {
    pub fn get(&self, version: usize, profile_path: &str) -> Option<usize> {
        self.index
            .get(&(version, profile_path.to_string()))
            .copied()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Adds `profile_path` as a name of `shown_path` in `version`, reading
    /// the text only the first time.
    fn add(
        &mut self,
        version: usize,
        profile_path: String,
        shown_path: String,
        text: impl FnOnce() -> Option<String>,
    ) {
        if self.index.contains_key(&(version, profile_path.clone())) {
            return;
        }
        let existing = self
            .files
            .iter()
            .position(|f| f.version == version && f.shown_path == shown_path);
        let i = match existing {
            Some(i) => i,
            None => {
                let Some(text) = text() else { return };
                self.files.push(SourceFile {
                    version,
                    profile_paths: Vec::new(),
                    shown_path,
                    text,
                });
                self.files.len() - 1
            }
        };
        self.files[i].profile_paths.push(profile_path.clone());
        self.index.insert((version, profile_path), i);
    }
}

/// The distinct frame files of each version's profiles.
fn files_by_version(history: &History) -> Vec<BTreeSet<String>> {
    let mut out = vec![BTreeSet::new(); history.versions.len()];
    for entry in &history.profiles {
        let tree = &entry.profile.tree;
        for node in tree.node_ids().skip(1) {
            if let Some(file) = tree
                .frame(node)
                .and_then(|f| history.frames.get(f).file.as_ref())
            {
                if !file.is_empty() && !out[entry.version].contains(file) {
                    out[entry.version].insert(file.clone());
                }
            }
        }
    }
    // The files field executions cover.
    for set in &history.field {
        for e in &set.executions {
            for f in &e.files {
                if !f.path.is_empty() && !out[set.version].contains(&f.path) {
                    out[set.version].insert(f.path.clone());
                }
            }
        }
    }
    out
}

fn rules(config: &VcsConfig) -> Vec<(String, String)> {
    config
        .path_map
        .iter()
        .map(|r| (r.from.clone(), r.to.clone()))
        .collect()
}

/// Sources from a git repository at each version's revision.
pub fn from_repo(repo: &Repo, history: &History, config: &VcsConfig) -> Sources {
    from_repo_where(repo, history, config, &|_| true)
}

/// [`from_repo`], only for the frame files `keep` accepts.
pub fn from_repo_where(
    repo: &Repo,
    history: &History,
    config: &VcsConfig,
    keep: &dyn Fn(&str) -> bool,
) -> Sources {
    let mut sources = Sources::default();
    for (v, mut files) in files_by_version(history).into_iter().enumerate() {
        files.retain(|f| keep(f));
        if files.is_empty() {
            continue;
        }
        let version = &history.versions[v];
        let Ok(Some(at)) = repo.resolve(
            &version.name,
            version.revision.as_deref(),
            &config.tag_patterns,
        ) else {
            continue;
        };
        let map = PathMap::new(rules(config), repo.paths(&at).unwrap_or_default());
        for file in files {
            let Some(path) = map.map(&file) else { continue };
            let text = || {
                repo.file_text(&at, &path)
                    .filter(|t| t.len() <= MAX_SOURCE_BYTES)
            };
            sources.add(v, file.clone(), path.clone(), text);
        }
    }
    sources
}

/// Sources from a directory.
pub fn from_dir(dir: &Path, history: &History, config: &VcsConfig) -> Sources {
    from_dir_where(dir, history, config, &|_| true)
}

/// [`from_dir`], only for the frame files `keep` accepts.
pub fn from_dir_where(
    dir: &Path,
    history: &History,
    config: &VcsConfig,
    keep: &dyn Fn(&str) -> bool,
) -> Sources {
    let mut sources = Sources::default();
    let rules = rules(config);
    for (v, mut files) in files_by_version(history).into_iter().enumerate() {
        files.retain(|f| keep(f));
        let version_dir = dir.join(&history.versions[v].name);
        for file in files {
            let found = candidates(&file, &rules).into_iter().find_map(|c| {
                [version_dir.join(&c), dir.join(&c)]
                    .into_iter()
                    .find(|p| p.is_file())
                    .map(|p| (c, p))
            });
            let Some((shown, path)) = found else { continue };
            sources.add(v, file, shown, || read_text(&path));
        }
    }
    sources
}

fn read_text(path: &PathBuf) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() as usize > MAX_SOURCE_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// Relative paths to try for a profile's file, most specific first: the
/// configured rewrites, the stable part after `site-packages/`, then the
/// path with leading directories dropped one at a time. Never absolute,
/// never with `..`, so a lookup cannot leave the sources directory.
pub fn candidates(file: &str, rules: &[(String, String)]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |p: &str| {
        let p = p.trim_start_matches('/').to_string();
        if is_safe(&p) && !out.contains(&p) {
            out.push(p);
        }
    };
    for (from, to) in rules {
        if let Some(rest) = file.strip_prefix(from.as_str()) {
            add(&format!("{to}{rest}"));
        }
    }
    add(stable_path(file));
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty()).collect();
    for i in 0..parts.len() {
        add(&parts[i..].join("/"));
    }
    out
}

fn is_safe(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_stay_inside_the_directory() {
        let c = candidates(
            "/tmp/venv/lib/python3.11/site-packages/markdown/core.py",
            &[("/tmp/venv/".into(), "src/".into())],
        );
        assert_eq!(c[0], "src/lib/python3.11/site-packages/markdown/core.py");
        assert_eq!(c[1], "markdown/core.py");
        assert!(c.contains(&"core.py".to_string()));
        assert!(candidates("../../etc/passwd", &[])
            .iter()
            .all(|p| !p.contains("..")));
        assert_eq!(candidates("/etc/passwd", &[]), ["etc/passwd", "passwd"]);
    }
}
