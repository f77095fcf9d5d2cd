//! The build cache: what every input file gave (a parsed profile, or
//! measurements, with their warnings), keyed by a hash of the file's bytes
//! and of how it is named inside its version, so a rebuild over a grown
//! history parses only the files that are new or changed.
//!
//! - **Where.** Inside the site, in [`DIR`] (perfatlas never writes outside
//!   its output directory). A build reads the entries of the site it is
//!   about to replace (only a site with perfatlas's marker) and writes the
//!   entries it used into the new site: unchanged entries are hard-linked
//!   (or copied) across, so the cache never holds entries of files that are
//!   gone. `--zip` leaves the cache out.
//! - **Keys.** XXH3-128 over the cache format version, the perfatlas
//!   version, the file's path inside its version, its name, its bytes
//!   and whether lines are kept (`--lines`). Any change to the file, its name, the format or perfatlas misses.
//! - **Gathered measurements.** Measurement files have no entry of their
//!   own (but those with warnings or no benchmark): the directory holds
//!   what the build gathered of them instead
//!   ([`input::load::GATHERED_FILE`] and the file of entries since), and
//!   the next build takes an unchanged measurement file from there. When
//!   that file does not check out, they are parsed again.
//! - **Trust and encoding.** [`input::records`]: an entry that is short, of
//!   another version or whose checksum or decoding fails is ignored and the
//!   file parsed again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_128, Xxh3};

use input::load::{KeyHasher, ParseCache, GATHERED_FILE};
use input::records::{decode, encode, FORMAT};
use input::Loaded;

/// The cache's directory inside a site.
pub const DIR: &str = ".perfatlas-cache";

/// Where an entry of the new site comes from.
#[derive(Debug)]
pub enum Written {
    /// Unchanged: link or copy the previous site's file.
    Kept(PathBuf),
    /// New: these bytes.
    New(Vec<u8>),
    /// New, and already written into the new site ([`Cache::staged`]).
    Staged,
}

/// Files are hashed for their cache key in pieces of this many bytes, all
/// at once (a piece's digest does not depend on the others).
const KEY_PIECE: usize = 8 << 20;

/// The cache of one build.
#[derive(Debug, Default)]
pub struct Cache {
    /// The previous site's cache directory, when there is one to read.
    previous: Option<PathBuf>,
    enabled: bool,
    written: Mutex<BTreeMap<String, Written>>,
    /// The new site's cache directory, when new entries are written into
    /// it as they are made ([`Cache::write_into`]).
    staging: Option<PathBuf>,
    hits: AtomicUsize,
    parsed: AtomicUsize,
}

impl Cache {
    /// A cache that reads the entries of the site at `output` (when it is a
    /// site perfatlas wrote) and collects the entries of this build.
    pub fn for_site(output: &Path) -> Cache {
        let dir = output.join(DIR);
        let ours = output.join(crate::MARKER).is_file();
        Cache {
            previous: (ours && dir.is_dir()).then_some(dir),
            enabled: true,
            ..Cache::default()
        }
    }

    /// New entries are written into the site being built at `site` (its
    /// staging directory) as they are made, rather than held until the
    /// site is written: a long measurement history's entries are a tenth
    /// of the build's memory. Where the directory cannot be made, they are
    /// held as before.
    pub fn write_into(&mut self, site: &Path) {
        let dir = site.join(DIR);
        if self.enabled && std::fs::create_dir_all(&dir).is_ok() {
            self.staging = Some(dir);
        }
    }

    /// No cache: every file is parsed, nothing is written.
    pub fn disabled() -> Cache {
        Cache::default()
    }

    /// The key of a file: its bytes and how it is named in its version.
    pub fn key_of(within_version: &str, file_name: &str, bytes: &[u8]) -> String {
        let mut h = Cache::hasher(within_version, file_name);
        let pieces: Vec<u128> = bytes.par_chunks(KEY_PIECE).map(xxh3_128).collect();
        for piece in pieces {
            h.update(&piece.to_le_bytes());
        }
        format!("{:032x}", h.digest128())
    }

    /// The hasher a key starts from: the entry format, perfatlas's version
    /// and the file's place; the file's bytes follow as the digests of
    /// their pieces of [`KEY_PIECE`] bytes, in order.
    fn hasher(within_version: &str, file_name: &str) -> Xxh3 {
        let mut h = Xxh3::new();
        h.update(&FORMAT.to_le_bytes());
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        // `--lines` reads another profile out of the same bytes.
        h.update(&[u8::from(model::line_granularity())]);
        for part in [within_version.as_bytes(), file_name.as_bytes()] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        h
    }

    /// [`Cache::key_of`] a file read as a stream (files read by a tool).
    pub fn key_of_stream(
        within_version: &str,
        file_name: &str,
        mut reader: impl std::io::Read,
    ) -> std::io::Result<String> {
        let mut hasher = Box::new(StreamKey::new(within_version, file_name));
        let mut buf = vec![0u8; 256 << 10];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => hasher.update(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(hasher.finish())
    }

    /// What the previous build read from a file with this key, when its
    /// entry is there and checks out; the entry is kept for the new site.
    fn get_entry(&self, key: &str) -> Option<Loaded> {
        if !self.enabled {
            return None;
        }
        let path = self.previous.as_ref()?.join(key);
        let loaded = std::fs::read(&path).ok().and_then(|b| decode(&b));
        match loaded {
            Some(loaded) => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                self.remember(key, Written::Kept(path));
                Some(loaded)
            }
            None => None,
        }
    }

    /// Records what a file gave, for the new site.
    fn put_entry(&self, key: &str, loaded: &Loaded) {
        self.parsed.fetch_add(1, Ordering::Relaxed);
        if self.enabled {
            let bytes = encode(loaded);
            let staged = self
                .staging
                .as_ref()
                .is_some_and(|dir| std::fs::write(dir.join(key), &bytes).is_ok());
            self.remember(
                key,
                match staged {
                    true => Written::Staged,
                    false => Written::New(bytes),
                },
            );
        }
    }

    fn remember(&self, key: &str, written: Written) {
        if let Ok(mut w) = self.written.lock() {
            w.insert(key.to_string(), written);
        }
    }

    /// Records an entry of a parsed profile that was written into the new
    /// site as soon as it was encoded ([`input::load::Deferred`]), at
    /// `DIR/key`.
    pub fn staged(&self, key: &str) {
        self.parsed.fetch_add(1, Ordering::Relaxed);
        self.remember(key, Written::Staged);
    }

    /// (files taken from the cache, files parsed) so far.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.hits.load(Ordering::Relaxed),
            self.parsed.load(Ordering::Relaxed),
        )
    }

    /// The entries the new site's cache directory gets, by file name.
    pub fn into_entries(self) -> BTreeMap<String, Written> {
        self.written.into_inner().unwrap_or_default()
    }
}

impl ParseCache for Cache {
    fn enabled(&self) -> bool {
        // Keys are counted on even when disabled: the parsed count is
        // reported.
        true
    }
    fn key(&self, within_version: &str, file_name: &str, bytes: &[u8]) -> String {
        Cache::key_of(within_version, file_name, bytes)
    }
    fn key_of_reader(
        &self,
        within_version: &str,
        file_name: &str,
        reader: &mut dyn std::io::Read,
    ) -> std::io::Result<String> {
        Cache::key_of_stream(within_version, file_name, reader)
    }
    fn key_hasher(&self, within_version: &str, file_name: &str) -> Option<Box<dyn KeyHasher>> {
        Some(Box::new(StreamKey::new(within_version, file_name)))
    }
    fn may_hold_entries(&self) -> bool {
        self.enabled && self.previous.is_some()
    }
    fn get(&self, key: &str) -> Option<Loaded> {
        self.get_entry(key)
    }
    fn put(&self, key: &str, loaded: &Loaded) {
        self.put_entry(key, loaded)
    }
    fn defers_profiles(&self) -> bool {
        self.enabled
    }
    fn previous_gathered(&self) -> Option<PathBuf> {
        self.previous.clone().filter(|_| self.enabled)
    }
    fn gathered_target(&self, name: &str) -> Option<PathBuf> {
        let path = self.staging.as_ref()?.join(name);
        self.remember(name, Written::Staged);
        Some(path)
    }
    fn keeps_gathered(&self) -> bool {
        self.enabled && self.staging.is_some()
    }
    fn parsed_into_gathered(&self) {
        self.parsed.fetch_add(1, Ordering::Relaxed);
    }
    fn keep_gathered(&self) -> bool {
        let Some(path) = self.previous.as_ref().map(|dir| dir.join(GATHERED_FILE)) else {
            return false;
        };
        let kept = self.enabled && path.is_file();
        if kept {
            self.remember(GATHERED_FILE, Written::Kept(path));
        }
        kept
    }
    fn count_taken(&self) {
        // An entry an older build left for the file is not kept: the
        // gathered measurements are its only entry.
        if self.enabled {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// [`Cache::key_of`] computed as the bytes pass: each piece of
/// [`KEY_PIECE`] bytes hashed as it fills, its digest then hashed in turn,
/// as [`Cache::key_of`] hashes the pieces it cuts.
struct StreamKey {
    key: Xxh3,
    piece: Xxh3,
    /// Bytes in the piece so far.
    filled: usize,
}

impl StreamKey {
    fn new(within_version: &str, file_name: &str) -> StreamKey {
        StreamKey {
            key: Cache::hasher(within_version, file_name),
            piece: Xxh3::new(),
            filled: 0,
        }
    }
}

impl KeyHasher for StreamKey {
    fn update(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (now, rest) = bytes.split_at(bytes.len().min(KEY_PIECE - self.filled));
            self.piece.update(now);
            self.filled += now.len();
            if self.filled == KEY_PIECE {
                self.key.update(&self.piece.digest128().to_le_bytes());
                self.piece.reset();
                self.filled = 0;
            }
            bytes = rest;
        }
    }

    fn finish(mut self: Box<Self>) -> String {
        if self.filled > 0 {
            self.key.update(&self.piece.digest128().to_le_bytes());
        }
        format!("{:032x}", self.key.digest128())
    }
}

#[cfg(test)]
mod tests;
