//! Page reuse, the render side: the keys of the groups of pages a rebuild
//! may keep from the previous site (the store of kept groups is the site's,
//! behind [`PageStore`]).
//!
//! - **Keys.** Each group of pages rendered together (a profile's pages of
//!   one shape, an aggregate page, a differential page) has a key: an
//!   XXH3-128 [`KeyHasher`] of everything its rendering reads. That is the
//!   build's [`salt`] (perfatlas version, templates, assets, themes, the
//!   whole configuration, the site title), the group's page paths and
//!   navigation as rendered (links to other metrics, shapes, repetitions,
//!   versions and comparisons), the content of the profiles it draws
//!   (frames, tree and values, never the frame ids of one build), and the
//!   source files its code links can point to.
//! - **Manifest.** The keys and the files each group wrote (with their
//!   sizes) are stored in the build cache's directory (`site::page_cache`). A
//!   group whose key is in the previous site's manifest, and whose files
//!   are all there with the recorded sizes, is kept: its files are
//!   hard-linked into the new site. Anything else (no manifest, another
//!   manifest version, a malformed line, a missing or resized file) renders
//!   the group again.
//! - **Safety net.** A reused site must be byte-identical to a full build;
//!   `tests/cli.rs` rebuilds grown and changed histories and compares them
//!   with `--no-cache` builds.

use std::fmt::Debug;

use serde::Serialize;
use xxhash_rust::xxh3::Xxh3;

use super::site_files::{rendered, Body};
use super::{Rendered, Renderer};
use analysis::shapes::ShapeFrames;
use config::Config;
use model::error::BuildError;
use model::{FrameTable, History, ProfileEntry};

/// First line of a manifest; bumped whenever what a key covers changes.
pub const HEADER: &str = concat!("perfatlas pages 2 ", env!("CARGO_PKG_VERSION"));

/// Where the page groups of the previous site are found, and where this
/// build's groups are recorded (the site's page cache, `site::page_cache`).
pub trait PageStore: Sync {
    /// False when every group is rendered and nothing is recorded (then no
    /// key is computed).
    fn enabled(&self) -> bool;
    /// Whether the group `key` can be kept from the previous site.
    fn has(&self, key: u128) -> bool;
    /// The group's files from the previous site when it can be kept, else
    /// `render()`'s.
    fn get_or_render(
        &self,
        key: u128,
        render: &dyn Fn() -> Rendered,
    ) -> Result<Vec<(String, Body)>, BuildError>;
}

/// No page is kept: everything is rendered.
pub struct RenderAll;

impl PageStore for RenderAll {
    fn enabled(&self) -> bool {
        false
    }
    fn has(&self, _: u128) -> bool {
        false
    }
    fn get_or_render(
        &self,
        _: u128,
        render: &dyn Fn() -> Rendered,
    ) -> Result<Vec<(String, Body)>, BuildError> {
        Ok(rendered(render()?).collect())
    }
}

/// An XXH3-128 digest built from length-prefixed parts, so that parts
/// never run into each other.
pub struct KeyHasher(Xxh3);

impl KeyHasher {
    pub fn new(kind: &str) -> KeyHasher {
        let mut d = KeyHasher(Xxh3::new());
        d.str(kind);
        d
    }

    pub fn bytes(&mut self, bytes: &[u8]) -> &mut KeyHasher {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    pub fn str(&mut self, s: &str) -> &mut KeyHasher {
        self.bytes(s.as_bytes())
    }

    pub fn u64(&mut self, n: u64) -> &mut KeyHasher {
        self.0.update(&n.to_le_bytes());
        self
    }

    pub fn u128(&mut self, n: u128) -> &mut KeyHasher {
        self.0.update(&n.to_le_bytes());
        self
    }

    pub fn f64(&mut self, x: f64) -> &mut KeyHasher {
        self.u64(x.to_bits())
    }

    /// A value by its `Debug` form (for settings and plans).
    pub fn debug<T: Debug + ?Sized>(&mut self, value: &T) -> &mut KeyHasher {
        self.str(&format!("{value:?}"))
    }

    /// A value by its JSON form (for view models).
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> &mut KeyHasher {
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
        links: &crate::code_links::SourceLinks,
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
                .map(|v| sources_digest(links, v, &frames))
                .collect(),
        }
    }
}

/// What every page of the build depends on: perfatlas, the templates,
/// assets and themes, the configuration and the site title.
pub fn salt(renderer: &Renderer, config: &Config, history: &History) -> u128 {
    KeyHasher::new("salt")
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
/// The nodes are hashed in chunks, in parallel (a profile of millions of
/// nodes took a tenth of a second hashed value by value), and the chunks'
/// digests in order.
pub fn profile_digest(entry: &ProfileEntry, frames: &[u64]) -> u128 {
    use rayon::prelude::*;
    let mut d = KeyHasher::new("profile");
    d.str(&entry.benchmark)
        .u64(u64::from(entry.repetition))
        .str(&entry.source)
        .str(entry.format)
        .debug(&entry.profile.metrics);
    let tree = &entry.profile.tree;
    d.u64(tree.len() as u64);
    let chunks: Vec<u128> = (0..tree.len().div_ceil(DIGEST_CHUNK))
        .into_par_iter()
        .map(|c| {
            nodes_digest(
                tree,
                frames,
                c * DIGEST_CHUNK..tree.len().min((c + 1) * DIGEST_CHUNK),
            )
        })
        .collect();
    for chunk in chunks {
        d.u128(chunk);
    }
    d.finish()
}

/// Nodes per chunk of [`profile_digest`].
const DIGEST_CHUNK: usize = 1 << 16;

/// The digest of the nodes `range` of `tree`: each node's parent, frame
/// content and self values, as little-endian words one after the other.
/// They are hashed as they are written, a few kilobytes at a time: the
/// whole range's bytes (1.5 MB a chunk, 77 MB for a 3.2 M-node profile)
/// were fresh memory for bytes hashed once.
fn nodes_digest(tree: &model::CallTree, frames: &[u64], range: std::ops::Range<usize>) -> u128 {
    let metrics = tree.metric_count();
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut words: Vec<u64> = Vec::with_capacity(DIGEST_WORDS);
    for node in range.map(|i| model::NodeId(i as u32)) {
        if words.len() + 2 + metrics > DIGEST_WORDS {
            hash_words(&mut hasher, &mut words);
        }
        words.push(tree.parent(node).map_or(u64::MAX, |p| p.index() as u64));
        words.push(tree.frame(node).map_or(0, |f| frames[f.0 as usize]));
        words.extend((0..metrics).map(|m| tree.self_value(node, m).to_bits()));
    }
    hash_words(&mut hasher, &mut words);
    hasher.digest128()
}

/// Words [`nodes_digest`] writes before it hashes them.
const DIGEST_WORDS: usize = 2048;

/// `words` hashed as their little-endian bytes, and cleared.
fn hash_words(hasher: &mut xxhash_rust::xxh3::Xxh3, words: &mut Vec<u64>) {
    let mut bytes = [0u8; DIGEST_WORDS * 8];
    for part in words.chunks(DIGEST_WORDS) {
        for (out, word) in bytes.chunks_exact_mut(8).zip(part) {
            out.copy_from_slice(&word.to_le_bytes());
        }
        hasher.update(&bytes[..part.len() * 8]);
    }
    words.clear();
}

/// The source files of `version` that code links can point to, and the
/// lines they land on (each function's hottest, which any profile of the
/// version can move); `frames` are [`frame_digests`].
pub fn sources_digest(
    links: &crate::code_links::SourceLinks,
    version: usize,
    frames: &[u64],
) -> u128 {
    let mut d = KeyHasher::new("sources");
    for file in links.sources.files.iter().filter(|f| f.version == version) {
        d.str(&file.shown_path).debug(&file.profile_paths);
    }
    let mut hottest: Vec<(u64, u32)> = links
        .hottest(version)
        .into_iter()
        .flat_map(|h| h.iter())
        .map(|(f, line)| (frames[f.0 as usize], line))
        .collect();
    hottest.sort_unstable();
    d.debug(&hottest);
    d.finish()
}

#[cfg(test)]
mod tests;
