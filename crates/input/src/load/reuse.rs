//! Reading a file with its build-cache key noted, and an unchanged
//! measurement file taken from the previous build's gathered measurements
//! ([`gathered_store`](super::gathered_store)), and a file the new
//! gathered measurements will hold given no entry of its own.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use super::gathered_store::Previous;
use super::{read_input, ParseCache};
use crate::measurements::Reduced;
use crate::Loaded;
use model::error::ParseError;

/// What a file's read left besides what it gave.
#[derive(Debug, Default)]
pub(super) struct Reuse {
    /// Its build-cache key, when the cache computed one.
    pub key: Option<String>,
    /// Its index among the previous build's gathered files, when its
    /// entries are taken from there (it then gave an empty
    /// [`Reduced`] of its format).
    pub taken: Option<u32>,
}

/// [`read_input`] of the file at `relative` in the input directory, with
/// its key noted and, when `previous` holds it unchanged, its entries left
/// there.
pub(super) fn read_input_noting(
    path: &Path,
    (within_version, relative): (&str, &str),
    cache: &dyn ParseCache,
    previous: Option<&Previous>,
) -> (Result<(Loaded, Option<String>), ParseError>, Reuse) {
    let noting = Noting {
        inner: cache,
        previous,
        relative,
        key: OnceLock::new(),
        taken: AtomicU32::new(NOT_TAKEN),
    };
    let read = read_input(path, within_version, &noting);
    let taken = noting.taken.load(Ordering::Relaxed);
    let reuse = Reuse {
        key: noting.key.into_inner(),
        taken: (taken != NOT_TAKEN).then_some(taken),
    };
    (read, reuse)
}

const NOT_TAKEN: u32 = u32::MAX;

/// Measurements the gathered ones will hold: some benchmark, no warning
/// (see [`Kept::note`](super::gathered::Kept::note)).
pub(super) fn gathered(loaded: &Loaded) -> bool {
    match loaded {
        Loaded::Measurements(read) => gatherable(read),
        Loaded::Profile(..) => false,
    }
}

/// A measurement file the gathered measurements hold.
pub(super) fn gatherable(read: &Reduced) -> bool {
    read.warnings.is_empty() && !read.benchmarks.is_empty()
}

/// A cache that notes the key it is asked for and answers for files the
/// previous build's gathered measurements hold.
struct Noting<'a> {
    inner: &'a dyn ParseCache,
    previous: Option<&'a Previous>,
    relative: &'a str,
    key: OnceLock<String>,
    taken: AtomicU32,
}

impl Noting<'_> {
    fn note(&self, key: &str) {
        if !key.is_empty() {
            let _ = self.key.set(key.to_string());
        }
    }

    /// An empty read of the file's format when the previous build's
    /// gathered measurements hold it (counted once they are read:
    /// [`ParseCache::count_taken`]).
    fn taken(&self, key: &str) -> Option<Loaded> {
        let previous = self.previous?;
        let at = previous.covers(self.relative, key)?;
        let format = previous.format_of(at)?;
        self.taken.store(at, Ordering::Relaxed);
        Some(Loaded::Measurements(Reduced {
            format,
            units: Vec::new(),
            notes: Vec::new(),
            names: String::new(),
            benchmarks: Vec::new(),
            warnings: Vec::new(),
        }))
    }
}

impl ParseCache for Noting<'_> {
    fn enabled(&self) -> bool {
        self.inner.enabled()
    }
    fn key(&self, within_version: &str, file_name: &str, bytes: &[u8]) -> String {
        self.inner.key(within_version, file_name, bytes)
    }
    fn key_of_reader(
        &self,
        within_version: &str,
        file_name: &str,
        reader: &mut dyn std::io::Read,
    ) -> std::io::Result<String> {
        self.inner.key_of_reader(within_version, file_name, reader)
    }
    fn key_hasher(
        &self,
        within_version: &str,
        file_name: &str,
    ) -> Option<Box<dyn super::KeyHasher>> {
        self.inner.key_hasher(within_version, file_name)
    }
    fn may_hold_entries(&self) -> bool {
        self.inner.may_hold_entries() || self.previous.is_some()
    }
    fn get(&self, key: &str) -> Option<Loaded> {
        self.note(key);
        self.taken(key).or_else(|| self.inner.get(key))
    }
    fn put(&self, key: &str, loaded: &Loaded) {
        self.note(key);
        match self.inner.keeps_gathered() && gathered(loaded) {
            true => self.inner.parsed_into_gathered(),
            false => self.inner.put(key, loaded),
        }
    }
    fn defers_profiles(&self) -> bool {
        self.inner.defers_profiles()
    }
    fn count_taken(&self) {
        self.inner.count_taken()
    }
}
