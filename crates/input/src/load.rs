//! Loads a whole input directory into a [`History`]: config, versions in
//! order, every file parsed in parallel, frames interned into one table, and
//! every problem recorded as a [`Skipped`] entry instead of stopping.

mod budget;
mod deferred;
mod folded_read;
mod gathered;
mod gathered_store;
mod reread;
mod reuse;
mod split_read;

pub(crate) use budget::{map_within_budget, read_cost};
pub use deferred::Deferred;
pub use gathered_store::{read_all as read_gathered, FILE as GATHERED_FILE};

use std::path::Path;

use rayon::prelude::*;

use super::walk::{self, InputFile, VersionDir};
use super::{
    load_bytes_unfinished, measurements, parse_bytes, parse_jfr_recording, Loaded, Parsed,
    StagedLoad,
};
use config::{Config, VersionConfig};
use instrument::timings::phase;
use model::error::{BuildError, ParseError};
use model::{History, ProfileEntry, Skipped, Version};

use model::limits::MAX_INPUT_BYTES;

/// What reading one file gave, and the cache key of a profile whose entry
/// is deferred.
type FileRead = Result<(Loaded, Option<String>), ParseError>;

/// Reads the config: `explicit` when given, else `INPUT/perfatlas.toml` when
/// present, else defaults.
pub fn read_config(input: &Path, explicit: Option<&Path>) -> Result<Config, BuildError> {
    match explicit {
        Some(path) => Config::read(path),
        None => {
            let default = input.join("perfatlas.toml");
            if default.is_file() {
                Config::read(&default)
            } else {
                Ok(Config::default())
            }
        }
    }
}

/// Loads every version and profile under `input`, parsing every file.
pub fn load_history(input: &Path, config: &Config) -> Result<History, BuildError> {
    Ok(load_history_cached(input, config, &NoCache)?.0)
}

/// Loads every version and profile under `input`, taking what `cache`
/// already holds for files that have not changed. When the cache
/// [defers profiles](ParseCache::defers_profiles), the entries of the
/// profiles parsed are left to [`Deferred::encode_each`].
pub fn load_history_cached(
    input: &Path,
    config: &Config,
    cache: &dyn ParseCache,
) -> Result<(History, Deferred), BuildError> {
    if !input.is_dir() {
        return Err(BuildError::Usage(format!(
            "{}: not a directory",
            input.display()
        )));
    }
    let (dirs, mut skipped) = walk::find_versions(input, &config.input)?;
    let mut notes = Vec::new();
    let mut versions: Vec<(Version, VersionDir)> = dirs
        .into_iter()
        .map(|dir| (read_version(&dir, &mut skipped, &mut notes), dir))
        .collect();
    order_versions(&mut versions, config);
    // Notes in version order, as the index lists the versions.
    notes.sort_by_key(|n: &model::Note| {
        versions.iter().position(|(v, _)| {
            n.file
                .strip_prefix(v.name.as_str())
                .is_some_and(|r| r.starts_with('/'))
        })
    });

    let jobs: Vec<(usize, &InputFile, &str)> = versions
        .iter()
        .enumerate()
        .flat_map(|(v, (_, dir))| {
            dir.files
                .iter()
                .map(move |f| (v, f, walk::within_version(&f.relative, &dir.name)))
        })
        .filter(|(_, _, inside)| !measurements::is_tool_byproduct(inside))
        .collect();
    instrument::progress::stage(&reading_stage(&jobs), jobs.len());
    let digested = |v: usize, f: &InputFile| f.digested.is_some() && versions[v].1.digest.is_some();
    let previous = cache
        .previous_gathered()
        .and_then(|dir| gathered_store::Previous::open(&dir));
    let results: Vec<(FileRead, reuse::Reuse)> = phase("load: files", || {
        budget::map_within_budget(
            &jobs,
            |(v, f, _)| match digested(*v, f) {
                true => 0, // in memory already
                false => budget::read_cost(&f.path),
            },
            |(v, f, inside)| {
                let read = match (f.digested, &versions[*v].1.digest) {
                    (Some(k), Some(digest)) => (
                        digest.files[k].loaded().map(|l| (l, None)),
                        reuse::Reuse::default(),
                    ),
                    _ => reuse::read_input_noting(
                        &f.path,
                        (inside, &f.relative),
                        cache,
                        previous.as_ref(),
                    ),
                };
                instrument::progress::advance(1);
                read
            },
        )
    });

    let mut history = History {
        title: config.title.clone().unwrap_or_else(|| default_title(input)),
        ..History::default()
    };
    let mut measured = Vec::new();
    let mut deferred = Deferred::default();
    let mut kept = gathered::Kept::default();
    for ((version, file, inside), (result, noted)) in jobs.iter().zip(results) {
        match result {
            Ok((Loaded::Measurements(read), _)) => {
                let in_base = |at| previous.as_ref().is_some_and(|p| p.in_base(at));
                if !kept.note((*version, file, inside), &read, noted, in_base) {
                    measured.push(measured_file(*version, file, read, &mut skipped));
                }
            }
            Ok((Loaded::Profile(format, parsed), deferred_key)) => {
                let parsed = *parsed;
                skipped.extend(parsed.warnings.iter().map(|w| skip(&file.relative, w)));
                let map = history.frames.absorb(parsed.frames);
                let mut profile = parsed.profile;
                profile.tree.remap_frames(&map);
                if let Some(key) = deferred_key {
                    deferred.push(deferred::DeferredProfile {
                        key,
                        source: file.relative.clone(),
                        format,
                        global: map,
                        metrics: profile.metrics.len(),
                        warnings: parsed.warnings,
                    });
                }
                history.profiles.push(ProfileEntry {
                    version: *version,
                    benchmark: file.benchmark.clone(),
                    repetition: file.repetition,
                    source: file.relative.clone(),
                    format,
                    profile,
                });
            }
            Err(e) => skipped.push(skip(&file.relative, &e)),
        }
    }
    history.frames.shrink_to_fit();
    let (fresh, mut sources_all) = phase("load: measurements", || gathered::gather(measured));
    let taken = phase("load: measurements kept", || {
        kept.taken_entries(previous.as_ref(), &fresh)
    });
    let target = |name: &str| cache.gathered_target(name);
    let (older, plan) = match taken {
        Some((taken, sources)) => {
            sources_all.extend(sources);
            kept.files
                .iter()
                .filter(|f| f.taken)
                .for_each(|_| cache.count_taken());
            let count = |list: &[model::MeasuredBenchmark]| -> usize {
                list.iter().map(|b| b.entries.len()).sum()
            };
            let total = taken.base_used + count(&taken.since) + count(&fresh);
            let plan =
                gathered_store::Plan::of(total, Some(&taken), target, || cache.keep_gathered());
            (gathered::merge(taken.base, taken.since), plan)
        }
        None => {
            // None taken, or the previous build's gathered measurements
            // did not check out: the files they were to give are parsed
            // again (the gathered measurements are their only entry).
            let mut again = Vec::new();
            for (version, file, inside, _) in kept.taken.drain(..) {
                let read =
                    reuse::read_input_noting(&file.path, (inside, &file.relative), cache, None);
                match read.0 {
                    Ok((Loaded::Measurements(read), _)) => {
                        again.push(measured_file(version, file, read, &mut skipped));
                    }
                    Ok(_) => {}
                    Err(e) => skipped.push(skip(&file.relative, &e)),
                }
            }
            let (older, sources) = gathered::gather(again);
            sources_all.extend(sources);
            (older, gathered_store::Plan::of(0, None, target, || false))
        }
    };
    history.measurements = gathered::merge(older, fresh);
    sources_all.sort_unstable();
    sources_all.dedup();
    history.measured_files = sources_all;
    if let Some(plan) = plan {
        phase("load: keep measurements", || {
            // The cache is a help: when the file cannot be written, the
            // next build parses the measurements again.
            let _ = gathered_store::write(&plan, &kept.files, &history.measurements);
        });
    }
    for (v, (_, dir)) in versions.iter().enumerate() {
        let field_dir = dir.path.join("field");
        let read = match &dir.digest {
            Some(digest) => digest.field(&dir.name),
            None if field_dir.is_dir() => Some(super::field::read_field_dir(
                &field_dir,
                &format!("{}/field", dir.name),
            )),
            None => None,
        };
        if let Some(read) = read {
            skipped.extend(read.warnings.iter().map(|(file, w)| skip(file, w)));
            if !read.executions.is_empty() {
                history.field.push(model::field::FieldSet {
                    version: v,
                    executions: read.executions,
                });
            }
        }
    }
    history.versions = versions.into_iter().map(|(v, _)| v).collect();
    history.profiles.sort_by(|a, b| {
        (&a.benchmark, a.version, a.repetition, &a.source).cmp(&(
            &b.benchmark,
            b.version,
            b.repetition,
            &b.source,
        ))
    });
    skipped.sort_by(|a, b| a.file.cmp(&b.file));
    history.skipped = skipped;
    history.input_notes = notes;
    Ok((history, deferred))
}

/// A measurement file of `version` to gather, its warnings added to
/// `skipped`.
fn measured_file<'a>(
    version: usize,
    file: &'a InputFile,
    read: measurements::Reduced,
    skipped: &mut Vec<Skipped>,
) -> (usize, &'a str, measurements::Reduced) {
    skipped.extend(read.warnings.iter().map(|w| skip(&file.relative, w)));
    (version, file.relative.as_str(), read)
}

fn skip(file: &str, e: &ParseError) -> Skipped {
    Skipped {
        file: file.to_string(),
        place: e.place.to_string(),
        reason: e.message.clone(),
    }
}

/// Reads one file of a version: measurements or a profile, from the cache
/// when the file is unchanged. A file that changes while it is read (a
/// profiler still writing it) is refused, not parsed half-written. With
/// what the file gave comes the cache key of a profile whose entry is
/// deferred ([`ParseCache::defers_profiles`]).
pub(crate) fn read_input(
    path: &Path,
    within_version: &str,
    cache: &dyn ParseCache,
) -> Result<(Loaded, Option<String>), ParseError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // First: a named pipe or a device is refused before it is opened
    // (opening a pipe waits for a writer).
    let before = Stamp::of_path(path)?;
    if is_binary_jfr(path) {
        // Read by the JDK's tool from the file; hashed as a stream.
        let key = match cache.enabled() {
            true => {
                let mut file = std::fs::File::open(path)
                    .map_err(|e| ParseError::whole(format!("cannot be read: {e}")))?;
                cache
                    .key_of_reader(within_version, &name, &mut file)
                    .map_err(|e| ParseError::whole(format!("cannot be read: {e}")))?
            }
            false => String::new(),
        };
        let loaded = cached(cache, &key, || {
            let (format, parsed) = parse_jfr_recording(path)?;
            Ok(Loaded::Profile(format, Box::new(parsed)))
        });
        before.check_unchanged(path)?;
        before.settled(path)?;
        return loaded;
    }
    if let Some(big) = split_read::BigPprof::open(path, Some(within_version), &name) {
        if let Some(read) = read_split(big, path, before, (within_version, &name), cache) {
            return read;
        }
    }
    if let Some(big) = folded_read::BigFolded::open(path, Some(within_version), &name) {
        if let Some(read) = big.read_input(path, before, (within_version, &name), cache) {
            return read;
        }
    }
    let bytes = read_stable_from(before, path, |p| {
        let bytes = read_bounded(p)?;
        instrument::pause::point("read");
        Ok(bytes)
    })?;
    let key = match cache.enabled() {
        true => cache.key(within_version, &name, &bytes),
        false => String::new(),
    };
    if let Some(hit) = cache.get(&key) {
        release(bytes);
        return Ok((hit, None));
    }
    // The bytes are freed before the profile's last steps (the line
    // fold builds a second tree): a big file, its tree and the folded
    // tree are never held at once.
    let unzipped = unzipped(bytes)?;
    let unfinished = if reread::worth_it(unzipped.0.len()) {
        staged_then_read_again(path, before, unzipped, |bytes| {
            crate::load_bytes_staged(within_version, &name, bytes)
        })
    } else {
        let unfinished = load_bytes_unfinished(within_version, &name, &unzipped.0);
        release(unzipped.0);
        unfinished
    };
    let loaded = unfinished?.finish()?;
    Ok(stored(cache, &key, loaded))
}

/// [`read_input`] of a big pprof profile read split
/// ([`split_read`]): from the cache when its key is there; `None` when it
/// does not read this way.
fn read_split(
    mut big: split_read::BigPprof,
    path: &Path,
    before: Stamp,
    (within_version, name): (&str, &str),
    cache: &dyn ParseCache,
) -> Option<Result<(Loaded, Option<String>), ParseError>> {
    let key = match cache.enabled() {
        true => big.key(cache, within_version, name).ok()?,
        false => String::new(),
    };
    if let Some(hit) = cache.get(&key) {
        let unchanged = before
            .check_unchanged(path)
            .and_then(|()| before.settled(path));
        return Some(unchanged.map(|()| (hit, None)));
    }
    let loaded = big.read(path, before)?.finish().ok()?;
    Some(Ok(stored(cache, &key, loaded)))
}

/// A file's bytes, decompressed when they are gzipped (the compressed
/// ones then freed: they are not held while the profile is read), and
/// whether they were.
fn unzipped(bytes: Vec<u8>) -> Result<(Vec<u8>, bool), ParseError> {
    if !crate::text::is_gzip(&bytes) {
        return Ok((bytes, false));
    }
    let unzipped = crate::text::gunzip(&bytes);
    release(bytes);
    Ok((unzipped?, true))
}

/// What `stage` reads of `bytes` (the file at `path`, decompressed when
/// `gzipped`), with a pprof profile's samples read from the file again
/// once the bytes are freed: a big profile's bytes and the call tree its
/// samples build are never held at once.
fn staged_then_read_again(
    path: &Path,
    before: Stamp,
    (bytes, gzipped): (Vec<u8>, bool),
    stage: impl FnOnce(&[u8]) -> Result<StagedLoad, ParseError>,
) -> Result<crate::UnfinishedLoad, ParseError> {
    let len = bytes.len();
    let staged = stage(&bytes);
    release(bytes);
    match staged? {
        StagedLoad::Ready(unfinished) => Ok(unfinished),
        staged => reread::samples(path, before, (len, gzipped), staged),
    }
}

/// Inputs at least this big are freed on a thread of their own.
const RELEASED_APART_BYTES: usize = 32 << 20;

/// Frees an input's bytes, a big one on a thread of its own: giving 100 MB
/// back to the system takes the kernel about 10 ms, which the build need
/// not wait for. (When no thread can be started, they are freed here.)
fn release(bytes: Vec<u8>) {
    if bytes.len() >= RELEASED_APART_BYTES {
        let _ = std::thread::Builder::new()
            .name("free input".into())
            .spawn(move || drop(bytes));
    }
}

/// What says whether a file changed: which file a path names, its size and
/// modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Stamp {
    fn of(meta: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let (dev, ino) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (dev, ino) = (0, 0);
        Stamp {
            dev,
            ino,
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }

    /// The file at `path`, which must be a regular file: anything else (a
    /// named pipe, a device) could block the build or never end.
    fn of_path(path: &Path) -> Result<Stamp, ParseError> {
        let meta = std::fs::metadata(path)
            .map_err(|e| ParseError::whole(format!("cannot be read: {e}")))?;
        if !meta.is_file() {
            return Err(ParseError::whole(not_a_regular_file(&meta)));
        }
        Ok(Stamp::of(&meta))
    }

    /// Fails when `path` no longer names the same file with the same size
    /// and modification time.
    fn check_unchanged(self, path: &Path) -> Result<(), ParseError> {
        let again = "; a program may still be writing it: build again once it is complete";
        let now = match std::fs::metadata(path) {
            Ok(meta) => Stamp::of(&meta),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ParseError::whole(format!(
                    "disappeared while it was read{again}"
                )))
            }
            Err(e) => return Err(ParseError::whole(format!("cannot be read: {e}"))),
        };
        let what = if (now.dev, now.ino) != (self.dev, self.ino) {
            "it was replaced by another file".to_string()
        } else if now.len != self.len {
            format!("{} bytes before, {} after", self.len, now.len)
        } else if now.modified != self.modified {
            "its modification time changed".to_string()
        } else {
            return Ok(());
        };
        Err(ParseError::whole(format!(
            "changed while it was read ({what}){again}"
        )))
    }
}

/// `read` of the file at `path`, counted only when the file is the same
/// after it as before and has stood unchanged for [`SETTLE`]: what every
/// input file, `version.toml` and field file is read through.
pub(crate) fn read_stable<T>(
    path: &Path,
    read: impl FnOnce(&Path) -> Result<T, ParseError>,
) -> Result<T, ParseError> {
    read_stable_from(Stamp::of_path(path)?, path, read)
}

/// [`read_stable`] with the file's stamp already taken (before it was
/// opened at all).
fn read_stable_from<T>(
    before: Stamp,
    path: &Path,
    read: impl FnOnce(&Path) -> Result<T, ParseError>,
) -> Result<T, ParseError> {
    let value = read(path)?;
    before.check_unchanged(path)?;
    before.settled(path)?;
    Ok(value)
}

/// How long a file must have stood unchanged for its read to count: a
/// file modified less than this before the end of its read is looked at
/// again once this long has passed since, and skipped if it changed. A
/// program writing a file in parts (line by line, with pauses shorter
/// than this) is caught even when no write lands during the read itself.
pub const SETTLE: std::time::Duration = std::time::Duration::from_millis(500);

impl Stamp {
    /// Waits, when the file was modified less than [`SETTLE`] ago, until
    /// it has stood that long, and fails if it changed meanwhile.
    fn settled(self, path: &Path) -> Result<(), ParseError> {
        let Some(modified) = self.modified else {
            return Ok(());
        };
        let age = match std::time::SystemTime::now().duration_since(modified) {
            Ok(age) => age,
            // Dated ahead of this clock: another machine's clock (an
            // unpacked archive), not a write in progress.
            Err(ahead) if ahead.duration() > SETTLE => return Ok(()),
            Err(_) => std::time::Duration::ZERO,
        };
        if age >= SETTLE {
            return Ok(());
        }
        std::thread::sleep(SETTLE - age);
        self.check_unchanged(path)
    }
}

/// Why a file that is not a regular file is not read.
pub(super) fn not_a_regular_file(meta: &std::fs::Metadata) -> String {
    #[cfg(unix)]
    let kind = {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            " (a named pipe)"
        } else if t.is_socket() {
            " (a socket)"
        } else if t.is_block_device() || t.is_char_device() {
            " (a device)"
        } else {
            ""
        }
    };
    #[cfg(not(unix))]
    let kind = {
        let _ = meta;
        ""
    };
    format!("not a regular file{kind}; not read")
}

/// What a build keeps of each input file it parsed, to parse only new or
/// changed files next time. The site keeps it in the output directory
/// (`site::parse_cache`); [`NoCache`] parses every file.
pub trait ParseCache: Sync {
    /// False when nothing is kept: keys are then not computed.
    fn enabled(&self) -> bool;
    /// The key of a file: its bytes and how it is named in its version.
    fn key(&self, within_version: &str, file_name: &str, bytes: &[u8]) -> String;
    /// [`ParseCache::key`] of a file read as a stream (files read by a tool).
    fn key_of_reader(
        &self,
        within_version: &str,
        file_name: &str,
        reader: &mut dyn std::io::Read,
    ) -> std::io::Result<String>;
    /// [`ParseCache::key`] computed as a file's bytes pass (a big file
    /// parsed as it is read); `None` when the cache cannot.
    fn key_hasher(&self, _within_version: &str, _file_name: &str) -> Option<Box<dyn KeyHasher>> {
        None
    }
    /// False when [`ParseCache::get`] finds nothing whatever the key (a
    /// first build): a big file is then parsed without being read once
    /// more for its key first.
    fn may_hold_entries(&self) -> bool {
        self.enabled()
    }
    /// What an earlier build read from a file with this key.
    fn get(&self, key: &str) -> Option<Loaded>;
    /// Records what a file gave.
    fn put(&self, key: &str, loaded: &Loaded);
    /// True when a parsed profile's entry is not made by [`ParseCache::put`]
    /// but after loading, from the history, by [`Deferred::encode_each`].
    fn defers_profiles(&self) -> bool {
        false
    }
    /// The directory where the previous build left its gathered
    /// measurements ([`GATHERED_FILE`]), when it did.
    fn previous_gathered(&self) -> Option<std::path::PathBuf> {
        None
    }
    /// Where this build's file of gathered measurements named `name`
    /// goes, when they are kept.
    fn gathered_target(&self, _name: &str) -> Option<std::path::PathBuf> {
        None
    }
    /// Counts a file whose measurements were taken from the previous
    /// build's gathered ones.
    fn count_taken(&self) {}
    /// True when this build keeps its gathered measurements: a
    /// measurement file they hold gets no entry of its own.
    fn keeps_gathered(&self) -> bool {
        false
    }
    /// Counts a file parsed whose measurements go into the gathered ones
    /// rather than into an entry of its own.
    fn parsed_into_gathered(&self) {}
    /// Keeps the previous build's base file of gathered measurements for
    /// the next build; false when there is none.
    fn keep_gathered(&self) -> bool {
        false
    }
}

/// A file's cache key computed as its bytes pass: the key
/// [`ParseCache::key`] gives for them all.
pub trait KeyHasher: Send {
    /// The next bytes of the file.
    fn update(&mut self, bytes: &[u8]);
    /// The key of the bytes given.
    fn finish(self: Box<Self>) -> String;
}

/// No cache: every file is parsed, nothing is kept.
pub struct NoCache;

impl ParseCache for NoCache {
    fn enabled(&self) -> bool {
        false
    }
    fn key(&self, _: &str, _: &str, _: &[u8]) -> String {
        String::new()
    }
    fn key_of_reader(
        &self,
        _: &str,
        _: &str,
        _: &mut dyn std::io::Read,
    ) -> std::io::Result<String> {
        Ok(String::new())
    }
    fn get(&self, _: &str) -> Option<Loaded> {
        None
    }
    fn put(&self, _: &str, _: &Loaded) {}
}

/// The cache's entry for `key`, or `read()`: remembered when it succeeds,
/// or, for a profile the cache defers, returned with its key.
fn cached(
    cache: &dyn ParseCache,
    key: &str,
    read: impl FnOnce() -> Result<Loaded, ParseError>,
) -> Result<(Loaded, Option<String>), ParseError> {
    if let Some(hit) = cache.get(key) {
        return Ok((hit, None));
    }
    Ok(stored(cache, key, read()?))
}

/// `loaded`, put in the cache under `key`, or with `key` for a profile
/// whose entry the cache leaves to [`Deferred::encode_each`].
fn stored(cache: &dyn ParseCache, key: &str, loaded: Loaded) -> (Loaded, Option<String>) {
    if cache.defers_profiles() && matches!(loaded, Loaded::Profile(..)) {
        return (loaded, Some(key.to_string()));
    }
    cache.put(key, &loaded);
    (loaded, None)
}

/// The progress line's name for reading `jobs`: it says when JFR
/// recordings are among them, which the JDK's `jfr` tool reads (seconds
/// each, where other files take milliseconds).
fn reading_stage(jobs: &[(usize, &InputFile, &str)]) -> String {
    // Regular files only: opening a FIFO would wait for a writer.
    let regular = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    let recordings = jobs
        .iter()
        .filter(|(_, f, _)| regular(&f.path) && is_binary_jfr(&f.path))
        .count();
    match recordings {
        0 => "reading inputs".to_string(),
        1 => "reading inputs (running `jfr print` on 1 JFR recording)".to_string(),
        n => format!("reading inputs (running `jfr print` on {n} JFR recordings)"),
    }
}

/// True when the file starts like a binary JFR recording. Those are read
/// by the JDK's `jfr` tool from the file itself, streaming, so neither the
/// whole file nor the input size limit is needed here.
fn is_binary_jfr(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::with_capacity(4);
    std::fs::File::open(path)
        .and_then(|f| f.take(4).read_to_end(&mut head))
        .is_ok_and(|_| super::jfr::is_binary_recording(&head))
}

/// The file's bytes, refusing files over the input limit.
fn read_bounded(path: &Path) -> Result<Vec<u8>, ParseError> {
    let size = std::fs::metadata(path)
        .map_err(|e| ParseError::whole(format!("cannot be read: {e}")))?
        .len();
    if size > MAX_INPUT_BYTES {
        return Err(ParseError::whole(format!(
            "{size} bytes is over the {} GiB input limit",
            MAX_INPUT_BYTES >> 30
        )));
    }
    refuse_zero_head(path, size)?;
    read_whole(path, size).map_err(|e| ParseError::whole(format!("cannot be read: {e}")))
}

/// Bytes looked at before a big file is read whole.
const HEAD_BYTES: u64 = 64 << 10;

/// Refuses, before reading it whole, a big file whose first
/// [`HEAD_BYTES`] are all zero bytes: no format starts so, and a sparse
/// file (a hole, 0 bytes on disk) would otherwise cost its whole length in
/// memory to be called unrecognised.
fn refuse_zero_head(path: &Path, size: u64) -> Result<(), ParseError> {
    use std::io::Read;
    if size <= HEAD_BYTES {
        return Ok(());
    }
    let mut head = Vec::with_capacity(HEAD_BYTES as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(HEAD_BYTES).read_to_end(&mut head))
        .map_err(|e| ParseError::whole(format!("cannot be read: {e}")))?;
    if head.len() as u64 == HEAD_BYTES && head.iter().all(|&b| b == 0) {
        return Err(ParseError::whole(format!(
            "unrecognised format: its first {} KiB are zero bytes (a sparse or preallocated file?); {size} bytes not read",
            HEAD_BYTES >> 10
        )));
    }
    Ok(())
}

/// Files at least this big are read in parts side by side.
const PARTED_READ_BYTES: u64 = 8 << 20;

/// The bytes of a file of about `size` bytes. A big one is read in one
/// part per core at once: copying it out of the page cache, and the page
/// faults of the fresh buffer, are most of the time a big read takes.
fn read_whole(path: &Path, size: u64) -> std::io::Result<Vec<u8>> {
    #[cfg(unix)]
    if size >= PARTED_READ_BYTES {
        if let Ok(size) = usize::try_from(size) {
            return read_in_parts(path, size);
        }
    }
    std::fs::read(path)
}

/// Reads the first `size` bytes in parts on every core, then whatever
/// the file has beyond them; a file that shrank meanwhile is read again
/// the plain way.
#[cfg(unix)]
fn read_in_parts(path: &Path, size: usize) -> std::io::Result<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    use std::os::unix::fs::FileExt;
    let mut file = std::fs::File::open(path)?;
    let mut bytes = vec![0u8; size];
    let part = size.div_ceil(rayon::current_num_threads().max(1)).max(1);
    let read = bytes
        .par_chunks_mut(part)
        .enumerate()
        .try_for_each(|(i, chunk)| file.read_exact_at(chunk, (i * part) as u64));
    match read {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return std::fs::read(path),
        Err(e) => return Err(e),
    }
    file.seek(SeekFrom::Start(size as u64))?;
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads one file and parses it; I/O problems become whole-file errors,
/// and so does a file that changes while it is read.
pub fn read_and_parse(path: &Path) -> Result<(&'static str, Parsed), ParseError> {
    let before = Stamp::of_path(path)?;
    if is_binary_jfr(path) {
        let parsed = parse_jfr_recording(path);
        before.check_unchanged(path)?;
        return parsed;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let split = split_read::BigPprof::open(path, None, &name)
        .and_then(|big| big.read(path, before))
        .and_then(|unfinished| unfinished.finish().ok());
    if let Some(Loaded::Profile(format, parsed)) = split {
        return Ok((format, *parsed));
    }
    if let Some(big) = folded_read::BigFolded::open(path, None, &name) {
        if let Some(read) = big.read_profile(path, before) {
            return read;
        }
    }
    let bytes = read_bounded(path)?;
    before.check_unchanged(path)?;
    let unzipped = unzipped(bytes)?;
    if !reread::worth_it(unzipped.0.len()) {
        return parse_bytes(&name, &unzipped.0);
    }
    let unfinished = staged_then_read_again(path, before, unzipped, |bytes| {
        crate::parse_bytes_staged(&name, bytes)
    })?;
    profile_of(unfinished.finish()?)
}

/// What [`read_and_parse`] gives for a file read as `loaded`.
fn profile_of(loaded: Loaded) -> Result<(&'static str, Parsed), ParseError> {
    match loaded {
        Loaded::Profile(format, parsed) => Ok((format, *parsed)),
        Loaded::Measurements(_) => Err(ParseError::whole("not a profile")),
    }
}

/// The cache key of `file`, read from its start, as
/// [`ParseCache::key`] gives it for its bytes (a big file's, which is not
/// read whole).
fn key_of_file(
    cache: &dyn ParseCache,
    (within_version, name): (&str, &str),
    mut file: &std::fs::File,
) -> std::io::Result<String> {
    use std::io::Seek;
    file.rewind()?;
    cache.key_of_reader(within_version, name, &mut std::io::BufReader::new(file))
}

/// A text file's text.
fn read_utf8(path: &Path) -> Result<String, ParseError> {
    std::fs::read_to_string(path).map_err(|e| ParseError::whole(format!("cannot be read: {e}")))
}

/// A version from its directory and `version.toml`: a file that is not
/// TOML is skipped whole; values it cannot use are skipped one by one and
/// keys it does not read are a note, the rest is used.
fn read_version(
    dir: &VersionDir,
    skipped: &mut Vec<Skipped>,
    notes: &mut Vec<model::Note>,
) -> Version {
    let toml_path = dir.path.join("version.toml");
    let file = format!("{}/version.toml", dir.name);
    let meta = match (&dir.digest, toml_path.is_file()) {
        (Some(digest), _) => match &digest.version_toml {
            Some(text) => VersionConfig::parse(text, &toml_path),
            None => Ok(Default::default()),
        },
        (None, true) => match read_stable(&toml_path, read_utf8) {
            Ok(text) => VersionConfig::parse(&text, &toml_path),
            Err(e) => Err(BuildError::Config {
                path: toml_path.clone(),
                message: e.message,
            }),
        },
        (None, false) => Ok(Default::default()),
    };
    let meta = match meta {
        Ok((meta, remarks)) => {
            for r in remarks {
                let place = format!("line {}", r.line);
                match r.skipped {
                    true => skipped.push(Skipped {
                        file: file.clone(),
                        place,
                        reason: r.message,
                    }),
                    false => notes.push(model::Note {
                        file: file.clone(),
                        place,
                        text: r.message,
                    }),
                }
            }
            meta
        }
        Err(e) => {
            let reason = e
                .to_string()
                .replacen(&format!("{}: ", toml_path.display()), "", 1);
            skipped.push(Skipped {
                file,
                place: String::new(),
                reason,
            });
            VersionConfig::default()
        }
    };
    Version {
        name: dir.name.clone(),
        label: meta.label.unwrap_or_else(|| dir.name.clone()),
        date: meta.date,
        revision: meta.revision,
    }
}

/// Config order first; then, when every remaining version has a date, by
/// date; otherwise natural order of the names. Ties break by name.
fn order_versions(versions: &mut [(Version, VersionDir)], config: &Config) {
    let listed = |name: &str| config.versions.iter().position(|v| v == name);
    let all_dated = versions.iter().all(|(v, _)| v.date.is_some());
    versions.sort_by(|(a, _), (b, _)| match (listed(&a.name), listed(&b.name)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) if all_dated => a
            .date
            .cmp(&b.date)
            .then_with(|| walk::natural_cmp(&a.name, &b.name)),
        (None, None) => walk::natural_cmp(&a.name, &b.name),
    });
}

fn default_title(input: &Path) -> String {
    input
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "perfatlas report".to_string())
}

#[cfg(test)]
mod tests;
