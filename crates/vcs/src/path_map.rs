//! Profile file paths to repository paths, for diffs and code links.

use std::collections::HashMap;

/// Maps the file paths profiles hold to repository paths: explicit prefix
/// rules first (in order), then the repository path sharing the longest
/// run of trailing path components, when exactly one does.
pub struct PathMap {
    rules: Vec<(String, String)>,
    repo_paths: Vec<String>,
    /// File name → indices into `repo_paths`.
    by_name: HashMap<String, Vec<usize>>,
}

impl PathMap {
    pub fn new(rules: Vec<(String, String)>, repo_paths: Vec<String>) -> PathMap {
        let mut by_name: HashMap<String, Vec<usize>> = Default::default();
        for (i, p) in repo_paths.iter().enumerate() {
            let name = p.rsplit('/').next().unwrap_or(p).to_string();
            by_name.entry(name).or_default().push(i);
        }
        PathMap {
            rules,
            repo_paths,
            by_name,
        }
    }

    /// The repository path of `profile_path`, if one is found.
    pub fn map(&self, profile_path: &str) -> Option<String> {
        let path = normalise(profile_path);
        for (from, to) in &self.rules {
            if let Some(rest) = path.strip_prefix(from.as_str()) {
                let candidate = normalise(&format!("{to}{rest}"));
                if self.repo_paths.binary_search(&candidate).is_ok()
                    || self.repo_paths.contains(&candidate)
                {
                    return Some(candidate);
                }
            }
        }
        if self.repo_paths.contains(&path) {
            return Some(path);
        }
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let name = *parts.last()?;
        let candidates = self.by_name.get(name)?;
        let mut best: Vec<(usize, usize)> = candidates
            .iter()
            .map(|&i| (shared_suffix(&parts, &self.repo_paths[i]), i))
            .collect();
        best.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        match best.as_slice() {
            [(n, i)] if *n > 0 => Some(self.repo_paths[*i].clone()),
            [(n, i), (m, _), ..] if n > m => Some(self.repo_paths[*i].clone()),
            _ => None,
        }
    }
}

fn normalise(path: &str) -> String {
    let p = path
        .strip_prefix("file://")
        .unwrap_or(path)
        .replace('\\', "/");
    let mut p = p.as_str();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.to_string()
}

/// Number of trailing components `parts` and `repo_path` share.
fn shared_suffix(parts: &[&str], repo_path: &str) -> usize {
    parts
        .iter()
        .rev()
        .zip(repo_path.rsplit('/'))
        .take_while(|(a, b)| *a == b)
        .count()
}
