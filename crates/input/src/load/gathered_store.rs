//! The measurements a build gathered, kept whole in the build cache for
//! the next build ([`FILE`]), in place of an entry per measurement file:
//! adding a version to a long history then reads one file of every
//! benchmark's entries, in benchmark order, rather than an entry per
//! unchanged file that must be decoded and gathered again (at 2,000
//! benchmarks × 1,000 versions, 142 MB of entries and two fifths of the
//! build).
//!
//! - **Which files it covers.** Each measurement file with at least one
//!   benchmark and no warnings, by its path in the input directory and its
//!   build-cache key (its bytes and name). A file of the next build is
//!   taken from here when both match; any other file is read as before
//!   and its entries merged in, in (version, file) order. Files with
//!   warnings or no benchmark keep an entry of their own.
//! - **Layout.** A magic string, then chunks of whole benchmarks (read
//!   side by side), then a postcard header (perfatlas and encoding
//!   versions, the files, units and notes, each chunk's length and
//!   XXH3-64), then the header's length and checksum. A file that is
//!   short, of another version or whose checksum fails is not used: the
//!   files it covered are then parsed again.
//! - **Entries.** Per benchmark: its name as shown, its number of entries
//!   and of run means, then each entry: the file's index, unit, note,
//!   samples, flags, interval and run means (varints, and `f64`s as their
//!   8 bytes).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::xxh3_64;

use crate::measurements;
use model::{intern, Interval, MeasuredBenchmark, MeasurementEntry, RunMeans};

/// The base file's name in the build cache's directory.
pub const FILE: &str = "gathered-measurements";
/// The name of the file of entries gathered since the base file.
pub const SINCE: &str = "gathered-measurements-since";

const MAGIC: &[u8; 8] = b"PAGATHR\n";

/// About this many entries per chunk: chunks are encoded and decoded side
/// by side, a few at a time.
const CHUNK_ENTRIES: usize = 64 * 1024;

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    perfatlas: String,
    /// (path in the input directory, cache key, format) of each file.
    files: Vec<(String, String, String)>,
    units: Vec<String>,
    notes: Vec<String>,
    /// (length, XXH3-64) of each chunk, in order.
    chunks: Vec<(u64, u64)>,
    /// Entries in all.
    entries: usize,
}

/// Opens the gathered measurements in `dir` and reads every entry of
/// every file they cover, as a build that took them all would: the number
/// of entries, or `None` when they do not check out. For fuzzing.
#[doc(hidden)]
pub fn read_all(dir: &Path) -> Option<usize> {
    let previous = Previous::open(dir)?;
    let files = previous.base_files() + previous.since.as_ref().map_or(0, |s| s.header.files.len());
    let taken: FxHashMap<u32, (usize, &'static str)> = (0..files as u32)
        .map(|at| (at, (at as usize, "file")))
        .collect();
    let taken = previous.entries(&taken, &FxHashMap::default())?;
    Some(taken.base_used + taken.since.iter().map(|b| b.entries.len()).sum::<usize>())
}

/// A file this build read, as the next build will find it.
pub(super) struct CoveredFile<'a> {
    pub version: usize,
    pub relative: &'a str,
    pub key: String,
    pub format: &'static str,
    /// Its entries were taken from the previous build's gathered ones.
    pub taken: bool,
    /// From the previous build's base file.
    pub in_base: bool,
}

/// The previous build's gathered measurements, a base file and the
/// entries gathered since ([`SINCE`]): which files they cover, their
/// entries read only when asked ([`Previous::entries`]). A file's index
/// counts the base file's files first.
pub(super) struct Previous {
    base: Option<Segment>,
    since: Option<Segment>,
}

/// One file of gathered measurements.
struct Segment {
    path: PathBuf,
    header: Header,
    /// Path in the input directory → (key, index in `header.files`).
    by_path: FxHashMap<String, (String, u32)>,
}

impl Previous {
    /// The gathered measurements in `dir`, when they are there, of this
    /// perfatlas and their headers check out.
    pub fn open(dir: &Path) -> Option<Previous> {
        let base = Segment::open(&dir.join(FILE));
        let since = base.as_ref().and_then(|_| Segment::open(&dir.join(SINCE)));
        base.is_some().then_some(Previous { base, since })
    }

    fn base_files(&self) -> usize {
        self.base.as_ref().map_or(0, |b| b.header.files.len())
    }

    /// The index of the file at `relative` when it is covered with this
    /// `key`.
    pub fn covers(&self, relative: &str, key: &str) -> Option<u32> {
        let since = self.since.as_ref().and_then(|s| s.covers(relative, key));
        match since {
            Some(at) => Some(at + self.base_files() as u32),
            None => self.base.as_ref()?.covers(relative, key),
        }
    }

    /// The file at `at` is in the base file.
    pub fn in_base(&self, at: u32) -> bool {
        (at as usize) < self.base_files()
    }

    /// The format that read file `at`.
    pub fn format_of(&self, at: u32) -> Option<&'static str> {
        let at = at as usize;
        let (segment, at) = match at.checked_sub(self.base_files()) {
            Some(later) => (self.since.as_ref()?, later),
            None => (self.base.as_ref()?, at),
        };
        measurements::format_named(&segment.header.files.get(at)?.2)
    }

    /// The entries of the files in `taken` (file index → its version and
    /// path in this build) from the base file and from the file since, each
    /// in name order; `None` when a chunk cannot be read or does not check
    /// out. Each benchmark's vector has room for its `extra` entries (by
    /// name) besides: those read this build are merged in.
    pub fn entries(
        &self,
        taken: &FxHashMap<u32, (usize, &'static str)>,
        extra: &FxHashMap<&str, usize>,
    ) -> Option<Taken> {
        let since = match &self.since {
            Some(s) => s.entries(taken, self.base_files() as u32, extra)?,
            None => Vec::new(),
        };
        let mut room = extra.clone();
        for b in &since {
            *room.entry(&*b.name).or_default() += b.entries.len();
        }
        let base = self.base.as_ref()?.entries(taken, 0, &room)?;
        let used = base.iter().map(|b| b.entries.len()).sum();
        Some(Taken {
            base,
            since,
            base_unused: self.base.as_ref()?.header.entries.saturating_sub(used),
            base_used: used,
        })
    }
}

/// What [`Previous::entries`] gives.
pub(super) struct Taken {
    pub base: Vec<MeasuredBenchmark>,
    pub since: Vec<MeasuredBenchmark>,
    /// Entries of the base file that were taken, and that were not (their
    /// files changed or are gone).
    pub base_used: usize,
    pub base_unused: usize,
}

impl Segment {
    /// The gathered measurements at `path`, when the file is there, of
    /// this perfatlas and its header checks out.
    fn open(path: &Path) -> Option<Segment> {
        let mut file = File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        let mut magic = [0u8; 8];
        file.read_exact(&mut magic).ok()?;
        if &magic != MAGIC || len < 24 {
            return None;
        }
        let mut trailer = [0u8; 16];
        file.seek(SeekFrom::End(-16)).ok()?;
        file.read_exact(&mut trailer).ok()?;
        let header_len = u64::from_le_bytes(trailer[..8].try_into().ok()?);
        let checksum = u64::from_le_bytes(trailer[8..].try_into().ok()?);
        let header_at = len.checked_sub(16)?.checked_sub(header_len)?;
        if header_at < 8 {
            return None;
        }
        let mut bytes = vec![0u8; usize::try_from(header_len).ok()?];
        file.seek(SeekFrom::Start(header_at)).ok()?;
        file.read_exact(&mut bytes).ok()?;
        if xxh3_64(&bytes) != checksum {
            return None;
        }
        let header: Header = postcard::from_bytes(&bytes).ok()?;
        let chunks: u64 = header.chunks.iter().map(|c| c.0).sum();
        if header.format != crate::records::FORMAT
            || header.perfatlas != env!("CARGO_PKG_VERSION")
            || chunks != header_at - 8
        {
            return None;
        }
        let by_path = header
            .files
            .iter()
            .enumerate()
            .map(|(i, (path, key, _))| (path.clone(), (key.clone(), i as u32)))
            .collect();
        Some(Segment {
            path: path.to_path_buf(),
            header,
            by_path,
        })
    }

    fn covers(&self, relative: &str, key: &str) -> Option<u32> {
        match self.by_path.get(relative) {
            Some((k, at)) if k == key => Some(*at),
            _ => None,
        }
    }

    /// The entries of the files in `taken`, this file's indices counted
    /// from `first`.
    fn entries(
        &self,
        taken: &FxHashMap<u32, (usize, &'static str)>,
        first: u32,
        extra: &FxHashMap<&str, usize>,
    ) -> Option<Vec<MeasuredBenchmark>> {
        let mut files = Vec::with_capacity(self.header.files.len());
        for (at, (_, _, format)) in self.header.files.iter().enumerate() {
            let here = taken.get(&(first + at as u32)).copied();
            files.push(match here {
                Some((version, source)) => {
                    Some((version, source, measurements::format_named(format)?))
                }
                None => None,
            });
        }
        let context = Context {
            files,
            units: self.header.units.iter().map(|u| intern(u)).collect(),
            notes: self.header.notes.iter().map(|n| intern(n)).collect(),
            extra,
        };
        let mut starts = Vec::with_capacity(self.header.chunks.len());
        let mut at = 8u64;
        for &(len, sum) in &self.header.chunks {
            starts.push((at, len, sum));
            at += len;
        }
        let decoded: Option<Vec<Vec<MeasuredBenchmark>>> = starts
            .par_iter()
            .map_init(Vec::new, |bytes, &(at, len, sum)| {
                read_at(&self.path, at, len, bytes)?;
                if xxh3_64(bytes) != sum {
                    return None;
                }
                decode_chunk(bytes, &context)
            })
            .collect();
        Some(decoded?.into_iter().flatten().collect())
    }
}

/// Reads `len` bytes at `at` into `bytes` (a buffer reused from chunk to
/// chunk: its pages are not touched afresh each time).
fn read_at(path: &Path, at: u64, len: u64, bytes: &mut Vec<u8>) -> Option<()> {
    let mut file = File::open(path).ok()?;
    file.seek(SeekFrom::Start(at)).ok()?;
    bytes.resize(usize::try_from(len).ok()?, 0);
    file.read_exact(bytes).ok()
}

/// What a chunk's indices name in this build.
struct Context<'a> {
    /// By file index: (version, path, format) when the file is taken.
    files: Vec<Option<(usize, &'static str, &'static str)>>,
    units: Vec<&'static str>,
    notes: Vec<&'static str>,
    /// Room for this many more entries, by benchmark name.
    extra: &'a FxHashMap<&'a str, usize>,
}

const IN_PROCESS: u8 = 1;
const MULTI_SAMPLE: u8 = 2;
const HAS_INTERVAL: u8 = 4;

/// Where this build's gathered measurements go: a new base file, or,
/// when most of the previous base file's entries were taken and it has
/// few left unused, that file kept and the rest written as [`SINCE`].
pub(super) enum Plan {
    /// Write every covered file's entries to this path.
    Base(PathBuf),
    /// Keep the previous base file; write the other files' entries here.
    Since(PathBuf),
}

impl Plan {
    /// The plan for `total` entries, of which `taken` came from the
    /// previous build's gathered measurements. `target(name)` is where a
    /// file of that name goes; `keep_base()` keeps the previous base file
    /// and says whether it could.
    pub fn of(
        total: usize,
        taken: Option<&Taken>,
        target: impl Fn(&str) -> Option<PathBuf>,
        keep_base: impl FnOnce() -> bool,
    ) -> Option<Plan> {
        let small = |n: usize| n <= total / 4;
        let since = taken
            .is_some_and(|t| t.base_used > 0 && small(total - t.base_used) && small(t.base_unused));
        if since && keep_base() {
            return target(SINCE).map(Plan::Since);
        }
        target(FILE).map(Plan::Base)
    }
}

/// Writes the entries of `measured` from the files in `files` (the others
/// are left out: the next build reads them from their own entries) as
/// `plan` says. A write that fails leaves no file.
pub(super) fn write(
    plan: &Plan,
    files: &[CoveredFile],
    measured: &[MeasuredBenchmark],
) -> std::io::Result<()> {
    let (path, files): (&Path, Vec<&CoveredFile>) = match plan {
        Plan::Base(path) => (path, files.iter().collect()),
        Plan::Since(path) => (path, files.iter().filter(|f| !f.in_base).collect()),
    };
    let written = write_all(path, &files, measured);
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written
}

fn write_all(
    path: &Path,
    files: &[&CoveredFile],
    measured: &[MeasuredBenchmark],
) -> std::io::Result<()> {
    // Entries' strings are interned: looked up by address.
    let index: FxHashMap<(usize, usize), u32> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (address(intern(f.relative)), i as u32))
        .collect();
    let (mut units, mut notes) = (Table::default(), Table::default());
    for (unit, note) in units_and_notes(measured) {
        units.id(unit);
        notes.id(note);
    }
    // Most entries are of versions none of the files are in, when only
    // the files since the base file are written.
    let mut versions = Vec::new();
    for f in files {
        if versions.len() <= f.version {
            versions.resize(f.version + 1, false);
        }
        versions[f.version] = true;
    }
    let context = &Encoding {
        index: &index,
        versions: &versions,
        units: &units,
        notes: &notes,
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, File::create(path)?);
    out.write_all(MAGIC)?;
    let (mut chunks, mut entries) = (Vec::new(), 0);
    let ranges = chunk_ranges(measured);
    let threads = rayon::current_num_threads().max(1);
    // A batch of chunks is encoded while the one before is written.
    let mut write_out = |encoded: Vec<(Vec<u8>, usize, u64)>| -> std::io::Result<()> {
        for (bytes, n, sum) in encoded.into_iter().filter(|c| c.1 > 0) {
            out.write_all(&bytes)?;
            chunks.push((bytes.len() as u64, sum));
            entries += n;
        }
        Ok(())
    };
    let mut before = Vec::new();
    for batch in ranges.chunks(threads) {
        let (written, encoded) = rayon::join(
            || write_out(std::mem::take(&mut before)),
            || {
                batch
                    .par_iter()
                    .map(|r| {
                        let (bytes, n) = encode_chunk(&measured[r.clone()], context)?;
                        let sum = xxh3_64(&bytes);
                        Some((bytes, n, sum))
                    })
                    .collect::<Option<Vec<_>>>()
            },
        );
        written?;
        before = encoded
            .ok_or_else(|| std::io::Error::other("an entry's unit or note is not in the tables"))?;
    }
    write_out(before)?;
    let header = Header {
        format: crate::records::FORMAT,
        perfatlas: env!("CARGO_PKG_VERSION").to_string(),
        files: files
            .iter()
            .map(|f| (f.relative.to_string(), f.key.clone(), f.format.to_string()))
            .collect(),
        units: units.names.iter().map(|s| s.to_string()).collect(),
        notes: notes.names.iter().map(|s| s.to_string()).collect(),
        chunks,
        entries,
    };
    let header = postcard::to_allocvec(&header).map_err(std::io::Error::other)?;
    out.write_all(&header)?;
    out.write_all(&(header.len() as u64).to_le_bytes())?;
    out.write_all(&xxh3_64(&header).to_le_bytes())?;
    out.flush()
}

/// The distinct (unit, note) of the entries, by address, found side by
/// side.
fn units_and_notes(measured: &[MeasuredBenchmark]) -> Vec<(&'static str, &'static str)> {
    let key = |(u, n): (&str, &str)| (address(u), address(n));
    let distinct = |mut seen: FxHashMap<_, _>, pair: (&'static str, &'static str)| {
        seen.entry(key(pair)).or_insert(pair);
        seen
    };
    let found: FxHashMap<_, _> = measured
        .par_iter()
        .fold(FxHashMap::default, |seen, b| {
            let mut last = None;
            b.entries.iter().fold(seen, |seen, e| {
                // Mostly the entry before's.
                let pair = (e.unit, e.note);
                match last == Some(key(pair)) {
                    true => seen,
                    false => {
                        last = Some(key(pair));
                        distinct(seen, pair)
                    }
                }
            })
        })
        .reduce(FxHashMap::default, |a, b| b.into_values().fold(a, distinct));
    let mut pairs: Vec<_> = found.into_values().collect();
    // In a fixed order: the file's bytes do not depend on the threads.
    pairs.sort_unstable();
    pairs
}

/// What an entry's strings are written as.
struct Encoding<'a> {
    /// File path (interned: by address) → its index.
    index: &'a FxHashMap<(usize, usize), u32>,
    /// By version: some file written is of it.
    versions: &'a [bool],
    units: &'a Table,
    notes: &'a Table,
}

/// Benchmarks split into runs of about [`CHUNK_ENTRIES`] entries.
fn chunk_ranges(measured: &[MeasuredBenchmark]) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    let (mut start, mut entries) = (0, 0);
    for (i, b) in measured.iter().enumerate() {
        entries += b.entries.len();
        if entries >= CHUNK_ENTRIES {
            ranges.push(start..i + 1);
            (start, entries) = (i + 1, 0);
        }
    }
    if start < measured.len() {
        ranges.push(start..measured.len());
    }
    ranges
}

/// Distinct strings, each with an id, by address: they are interned (a
/// text at two addresses would have two ids, and read back the same).
#[derive(Default)]
struct Table {
    ids: FxHashMap<(usize, usize), u32>,
    names: Vec<&'static str>,
}

impl Table {
    fn id(&mut self, text: &'static str) {
        let next = self.names.len() as u32;
        if let std::collections::hash_map::Entry::Vacant(v) = self.ids.entry(address(text)) {
            v.insert(next);
            self.names.push(text);
        }
    }
}

/// Where `text` is and how long: two texts at one address (an empty one
/// and another) are told apart by their length.
fn address(text: &str) -> (usize, usize) {
    (text.as_ptr() as usize, text.len())
}

fn encode_chunk(
    benchmarks: &[MeasuredBenchmark],
    Encoding {
        index,
        versions,
        units,
        notes,
    }: &Encoding,
) -> Option<(Vec<u8>, usize)> {
    let (mut out, mut n) = (Vec::new(), 0);
    for b in benchmarks {
        let kept: Vec<(&MeasurementEntry, u32)> = b
            .entries
            .iter()
            .filter(|e| versions.get(e.version).copied().unwrap_or(false))
            .filter_map(|e| Some((e, *index.get(&address(e.source))?)))
            .collect();
        if kept.is_empty() {
            continue;
        }
        varint(&mut out, b.name.len() as u64);
        out.extend_from_slice(b.name.as_bytes());
        let means: usize = kept.iter().map(|(e, _)| e.run_means.len()).sum();
        out.reserve(kept.len() * 24 + means * 8 + 20);
        varint(&mut out, kept.len() as u64);
        varint(&mut out, means as u64);
        n += kept.len();
        for (e, file) in kept {
            // Both tables were made from these entries.
            let unit = *units.ids.get(&address(e.unit))?;
            let note = *notes.ids.get(&address(e.note))?;
            encode_entry(&mut out, e, file, (unit, note));
        }
    }
    Some((out, n))
}

fn encode_entry(out: &mut Vec<u8>, e: &MeasurementEntry, file: u32, (unit, note): (u32, u32)) {
    varint(out, u64::from(file));
    varint(out, u64::from(unit));
    varint(out, u64::from(note));
    varint(out, e.samples);
    let flags = (u8::from(e.in_process) * IN_PROCESS)
        | (u8::from(e.multi_sample) * MULTI_SAMPLE)
        | (u8::from(e.interval.is_some()) * HAS_INTERVAL);
    out.push(flags);
    if let Some(interval) = &e.interval {
        out.extend_from_slice(&interval.low.to_le_bytes());
        out.extend_from_slice(&interval.high.to_le_bytes());
    }
    varint(out, e.run_means.len() as u64);
    for m in e.run_means.iter() {
        out.extend_from_slice(&m.to_le_bytes());
    }
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a chunk's bytes in order; every read fails past the end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(b)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(value);
            }
        }
        None
    }

    /// A count of things at least `each` bytes long, refused when the
    /// rest cannot hold them.
    fn count(&mut self, each: usize) -> Option<usize> {
        let n = usize::try_from(self.varint()?).ok()?;
        (n.checked_mul(each)? <= self.bytes.len()).then_some(n)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }

    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

fn decode_chunk(bytes: &[u8], context: &Context) -> Option<Vec<MeasuredBenchmark>> {
    let mut r = Reader { bytes };
    let mut benchmarks = Vec::new();
    let mut pending = Vec::new();
    while !r.bytes.is_empty() {
        let len = r.count(1)?;
        let name = std::str::from_utf8(r.take(len)?).ok()?;
        let count = r.count(6)?;
        let mut means = Vec::with_capacity(r.count(8)?);
        pending.clear();
        for _ in 0..count {
            if let Some(taken) = decode_entry(&mut r, context, &mut means)? {
                pending.push(taken);
            }
        }
        if pending.is_empty() {
            continue;
        }
        let room = context.extra.get(name).copied().unwrap_or(0);
        let mut entries = Vec::with_capacity(pending.len() + room);
        let shared: Arc<[f64]> = means.into();
        entries.extend(pending.drain(..).map(|p| p.entry(&shared)));
        benchmarks.push(MeasuredBenchmark {
            name: Arc::from(name),
            entries,
        });
    }
    Some(benchmarks)
}

/// An entry read, but for its run means: they are appended to the
/// benchmark's, which are shared once all are read.
struct Pending {
    version: usize,
    unit: &'static str,
    means: std::ops::Range<usize>,
    samples: u64,
    flags: u8,
    source: &'static str,
    format: &'static str,
    note: &'static str,
    interval: Option<Box<Interval>>,
}

impl Pending {
    fn entry(self, means: &Arc<[f64]>) -> MeasurementEntry {
        MeasurementEntry {
            version: self.version,
            unit: self.unit,
            run_means: RunMeans::new(means.clone(), self.means),
            samples: self.samples,
            in_process: self.flags & IN_PROCESS != 0,
            multi_sample: self.flags & MULTI_SAMPLE != 0,
            source: self.source,
            format: self.format,
            note: self.note,
            interval: self.interval,
        }
    }
}

/// One entry, `None` inside when its file is not taken; its run means are
/// appended to `means`.
fn decode_entry(
    r: &mut Reader,
    context: &Context,
    means: &mut Vec<f64>,
) -> Option<Option<Pending>> {
    let file = usize::try_from(r.varint()?).ok()?;
    let unit = *context.units.get(usize::try_from(r.varint()?).ok()?)?;
    let note = *context.notes.get(usize::try_from(r.varint()?).ok()?)?;
    let samples = r.varint()?;
    let flags = r.byte()?;
    let interval = match flags & HAS_INTERVAL {
        0 => None,
        _ => Some(Box::new(Interval::new(r.f64()?, r.f64()?)?)),
    };
    let n = r.count(8)?;
    let Some((version, source, format)) = *context.files.get(file)? else {
        r.take(n * 8)?;
        return Some(None);
    };
    let start = means.len();
    for _ in 0..n {
        means.push(r.f64()?);
    }
    Some(Some(Pending {
        version,
        unit,
        means: start..means.len(),
        samples,
        flags,
        source,
        format,
        note,
        interval,
    }))
}

#[cfg(test)]
mod tests;
