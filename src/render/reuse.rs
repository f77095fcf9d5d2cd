//! Page reuse: a rebuild keeps the previous site's flame-graph pages whose
//! inputs did not change, instead of rendering them again.
//!
//! - **Keys.** Each group of pages rendered together (a profile's pages of
//!   one shape, an aggregate page, a differential page) has a key: an
//!   XXH3-128 [`Digest`] of everything its rendering reads. That is the
//!   build's [`salt`] (perfatlas version, templates, assets, themes, the
//!   whole configuration, the site title), the group's page paths and
//!   navigation as rendered (links to other metrics, shapes, repetitions,
//!   versions and comparisons), the content of the profiles it draws
//!   (frames, tree and values, never the frame ids of one build), and the
//!   source files its code links can point to.
//! - **Manifest.** The keys and the files each group wrote (with their
//!   sizes) are stored in the build cache's directory as [`MANIFEST`]. A
//!   group whose key is in the previous site's manifest, and whose files
//!   are all there with the recorded sizes, is kept: its files are
//!   hard-linked into the new site. Anything else (no manifest, another
//!   manifest version, a malformed line, a missing or resized file) renders
//!   the group again.
//! - **Safety net.** A reused site must be byte-identical to a full build;
//!   `tests/cli.rs` rebuilds grown and changed histories and compares them
//!   with `--no-cache` builds.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::Serialize;
use xxhash_rust::xxh3::Xxh3;

use super::site_files::{rendered, Body};
use super::{Rendered, Renderer};
use crate::analysis::shapes::ShapeFrames;
use crate::error::BuildError;
use crate::input::config::Config;
use crate::model::{FrameTable, History, ProfileEntry};

/// File name of the manifest inside the build cache's directory.
pub const MANIFEST: &str = "pages.manifest";
/// First line of a manifest; bumped whenever what a key covers changes.
const HEADER: &str = concat!("perfatlas pages 1 ", env!("CARGO_PKG_VERSION"));

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
        let manifest = output.join(crate::input::cache::DIR).join(MANIFEST);
        let ours = output.join(crate::site::MARKER).is_file();
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
        Ok(rendered(files).collect())
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

/// An XXH3-128 digest built from length-prefixed parts, so that parts
/// never run into each other.
pub struct Digest(Xxh3);

impl Digest {
    pub fn new(kind: &str) -> Digest {
        let mut d = Digest(Xxh3::new());
        d.str(kind);
        d
    }

    pub fn bytes(&mut self, bytes: &[u8]) -> &mut Digest {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    pub fn str(&mut self, s: &str) -> &mut Digest {
        self.bytes(s.as_bytes())
    }

    pub fn u64(&mut self, n: u64) -> &mut Digest {
        self.0.update(&n.to_le_bytes());
        self
    }

    pub fn u128(&mut self, n: u128) -> &mut Digest {
        self.0.update(&n.to_le_bytes());
        self
    }

    pub fn f64(&mut self, x: f64) -> &mut Digest {
        self.u64(x.to_bits())
    }

    /// A value by its `Debug` form (for settings and plans).
    pub fn debug<T: Debug + ?Sized>(&mut self, value: &T) -> &mut Digest {
        self.str(&format!("{value:?}"))
    }

    /// A value by its JSON form (for view models).
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> &mut Digest {
        let json = serde_json::to_vec(value).unwrap_or_default();
        self.bytes(&json)
    }

    pub fn finish(&self) -> u128 {
        self.0.digest128()
    }
}

/// The digests page keys are made of, computed once per build.
pub struct Inputs {
    /// See [`salt`].
    pub salt: u128,
    /// [`profile_digest`] of each profile entry.
    pub profiles: Vec<u128>,
    /// [`sources_digest`] of each version.
    pub sources: Vec<u128>,
}

impl Inputs {
    pub fn new(
        history: &History,
        config: &Config,
        renderer: &Renderer,
        shape_frames: &ShapeFrames,
        sources: &crate::input::sources::Sources,
    ) -> Inputs {
        use rayon::prelude::*;
        let frames = frame_digests(&history.frames, shape_frames);
        Inputs {
            salt: salt(renderer, config, history),
            profiles: history
                .profiles
                .par_iter()
                .map(|entry| profile_digest(entry, &frames))
                .collect(),
            sources: (0..history.versions.len())
                .map(|v| sources_digest(sources, v))
                .collect(),
        }
    }
}

/// What every page of the build depends on: perfatlas, the templates,
/// assets and themes, the configuration and the site title.
pub fn salt(renderer: &Renderer, config: &Config, history: &History) -> u128 {
    Digest::new("salt")
        .str(HEADER)
        .u128(renderer.fingerprint())
        .debug(config)
        .str(&history.title)
        .finish()
}

/// One digest per frame of `frames`, from its content (function, file,
/// line, module...) and its function's identity (which can change with the
/// other versions of the history), so profile digests never depend on
/// frame ids.
pub fn frame_digests(frames: &FrameTable, shape: &ShapeFrames) -> Vec<u64> {
    frames
        .iter()
        .map(|(id, frame)| {
            let function = shape.table.get(shape.function(id));
            xxhash_rust::xxh3::xxh3_64(format!("{frame:?}{function:?}").as_bytes())
        })
        .collect()
}

/// The content of a profile as its pages draw it: where it came from, its
/// metrics, and its tree node by node (parent, frame content, self values).
pub fn profile_digest(entry: &ProfileEntry, frames: &[u64]) -> u128 {
    let mut d = Digest::new("profile");
    d.str(&entry.benchmark)
        .u64(u64::from(entry.repetition))
        .str(&entry.source)
        .str(entry.format)
        .debug(&entry.profile.metrics);
    let tree = &entry.profile.tree;
    let metrics = tree.metric_count();
    d.u64(tree.len() as u64);
    for node in tree.node_ids() {
        d.u64(tree.parent(node).map_or(u64::MAX, |p| p.index() as u64));
        d.u64(tree.frame(node).map_or(0, |f| frames[f.0 as usize]));
        for m in 0..metrics {
            d.f64(tree.self_value(node, m));
        }
    }
    d.finish()
}

/// The source files of `version` that code links can point to.
pub fn sources_digest(sources: &crate::input::sources::Sources, version: usize) -> u128 {
    let mut d = Digest::new("sources");
    for file in sources.files.iter().filter(|f| f.version == version) {
        d.str(&file.shown_path).debug(&file.profile_paths);
    }
    d.finish()
}

#[cfg(test)]
mod tests;
