//! The page cache: a rebuild keeps the previous site's flame-graph pages
//! whose inputs did not change (their keys are the render stage's,
//! `render::reuse`), hard-linking them into the new site instead of
//! rendering them again.
//!
//! The keys and the files each group wrote (with their sizes) are stored in
//! the build cache's directory as [`MANIFEST`]. A group whose key is in the
//! previous site's manifest, and whose files are all there with the
//! recorded sizes, is kept. Anything else (no manifest, another manifest
//! version, a malformed line, a missing or resized file) renders the group
//! again.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use model::error::BuildError;
use render::reuse::{PageStore, HEADER};
use render::{Body, Rendered};

/// File name of the manifest inside the build cache's directory.
pub const MANIFEST: &str = "pages.manifest";

/// A group's files as (site path, size in bytes).
type GroupFiles = Vec<(String, u64)>;

/// Page reuse for one build.
#[derive(Debug, Default)]
pub struct PageReuse {
    /// The previous site and its manifest.
    previous: Option<(PathBuf, HashMap<u128, GroupFiles>)>,
    enabled: bool,
    /// Every group of this build, for the new manifest.
    groups: Mutex<BTreeMap<u128, GroupFiles>>,
    kept: AtomicUsize,
    rendered: AtomicUsize,
}

impl PageReuse {
    /// Reuse from the site at `output`, when it is one perfatlas wrote with
    /// a manifest of this version.
    pub fn for_site(output: &Path) -> PageReuse {
        let manifest = output.join(crate::parse_cache::DIR).join(MANIFEST);
        let ours = output.join(crate::MARKER).is_file();
        let previous = std::fs::read_to_string(&manifest)
            .ok()
            .filter(|_| ours)
            .and_then(|text| parse_manifest(&text))
            .map(|groups| (output.to_path_buf(), groups));
        PageReuse {
            previous,
            enabled: true,
            ..PageReuse::default()
        }
    }

    /// No reuse: every page is rendered, and no manifest is written.
    pub fn disabled() -> PageReuse {
        PageReuse::default()
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Whether the previous site has this group with all its files.
    pub fn has(&self, key: u128) -> bool {
        self.previous_files(key).is_some()
    }

    /// The group's files from the previous site when `key` is in its
    /// manifest and every file is there with its size; else `render()`'s.
    pub fn get_or_render(
        &self,
        key: u128,
        render: impl FnOnce() -> Rendered,
    ) -> Result<Vec<(String, Body)>, BuildError> {
        if let Some(kept) = self.previous_files(key) {
            self.kept.fetch_add(1, Ordering::Relaxed);
            self.remember(key, kept.iter().map(|(p, size, _)| (p.clone(), *size)));
            return Ok(kept
                .into_iter()
                .map(|(path, _, old)| (path, Body::Kept(old)))
                .collect());
        }
        let files = render()?;
        self.rendered.fetch_add(1, Ordering::Relaxed);
        self.remember(key, files.iter().map(|(p, b)| (p.clone(), b.len() as u64)));
        Ok(files
            .into_iter()
            .map(|(p, b)| (p, Body::Bytes(b)))
            .collect())
    }

    /// The previous site's files of group `key`: (path, size, file).
    fn previous_files(&self, key: u128) -> Option<Vec<(String, u64, PathBuf)>> {
        let (site, groups) = self.previous.as_ref()?;
        let files = groups.get(&key)?;
        files
            .iter()
            .map(|(path, size)| {
                let old = site.join(path);
                let meta = std::fs::symlink_metadata(&old).ok()?;
                (meta.is_file() && meta.len() == *size).then(|| (path.clone(), *size, old))
            })
            .collect()
    }

    fn remember(&self, key: u128, files: impl Iterator<Item = (String, u64)>) {
        if self.enabled {
            let mut groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
            groups.insert(key, files.collect());
        }
    }

    /// (groups kept from the previous site, groups rendered).
    pub fn counts(&self) -> (usize, usize) {
        (
            self.kept.load(Ordering::Relaxed),
            self.rendered.load(Ordering::Relaxed),
        )
    }

    /// The manifest of this build, when reuse is on.
    pub fn manifest(&self) -> Option<Vec<u8>> {
        if !self.enabled {
            return None;
        }
        let groups = self.groups.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = format!("{HEADER}\n");
        for (key, files) in groups.iter() {
            for (path, size) in files {
                out.push_str(&format!("{key:032x}\t{size}\t{path}\n"));
            }
        }
        Some(out.into_bytes())
    }
}

/// The groups of a manifest; `None` when it is of another version or any
/// line is malformed.
fn parse_manifest(text: &str) -> Option<HashMap<u128, GroupFiles>> {
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let mut groups: HashMap<u128, GroupFiles> = HashMap::new();
    for line in lines {
        let mut parts = line.splitn(3, '\t');
        let key = u128::from_str_radix(parts.next()?, 16).ok()?;
        let size: u64 = parts.next()?.parse().ok()?;
        let path = parts.next()?;
        if !is_site_relative(path) {
            return None;
        }
        groups
            .entry(key)
            .or_default()
            .push((path.to_string(), size));
    }
    Some(groups)
}

/// A plain relative path inside the site (no `..`, not absolute), so a
/// doctored manifest cannot make a build link files from elsewhere.
fn is_site_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != ".." && part != ".")
}

impl PageStore for PageReuse {
    fn enabled(&self) -> bool {
        self.enabled
    }
    fn has(&self, key: u128) -> bool {
        PageReuse::has(self, key)
    }
    fn get_or_render(
        &self,
        key: u128,
        render: &dyn Fn() -> Rendered,
    ) -> Result<Vec<(String, Body)>, BuildError> {
        PageReuse::get_or_render(self, key, render)
    }
}

#[cfg(test)]
mod tests;
