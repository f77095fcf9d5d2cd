//! A big folded file parsed as it is read ([`crate::folded::stream`]),
//! its cache key computed as its bytes pass: its bytes are never held
//! whole. Only a file that reads cleanly this way is read so: one that is
//! gzipped, not folded by its first bytes, not plain UTF-8, or whose first
//! lines could be allocation output, is read whole by the caller.

use std::io::Read;
use std::path::Path;

use super::{key_of_file, profile_of, stored, KeyHasher, ParseCache, Stamp};
use crate::folded::{self, stream};
use crate::{text, Format, Loaded, Parsed, Unfinished, UnfinishedLoad};
use model::error::ParseError;

/// Bytes looked at to tell folded stacks from other formats.
const HEAD_BYTES: u64 = 64 << 10;

/// A file to read a chunk at a time: big, and folded by its first bytes.
pub(super) struct BigFolded {
    file: std::fs::File,
    len: u64,
}

impl BigFolded {
    /// The file at `path` when it is worth parsing as it is read: at least
    /// [`stream::STREAMED_BYTES`] long, not gzipped, and its first bytes
    /// read as folded stacks (not as measurements, given the file's
    /// `relative_path` within its version, nor any other format) that
    /// [`stream::streams`].
    pub(super) fn open(path: &Path, relative_path: Option<&str>, name: &str) -> Option<BigFolded> {
        let mut file = std::fs::File::open(path).ok()?;
        let len = file.metadata().ok()?.len();
        if !(stream::STREAMED_BYTES..=model::limits::MAX_INPUT_BYTES).contains(&len) {
            return None;
        }
        let mut head = Vec::with_capacity(HEAD_BYTES as usize);
        (&mut file).take(HEAD_BYTES).read_to_end(&mut head).ok()?;
        let ends = folded::sniffed_ends(&head, &tail(&file, len)?);
        let folded = !text::is_gzip(&head)
            && !crate::measured_by_head(relative_path, &head)
            && crate::sniffs_as(folded::Folded.name(), name, &ends)
            && stream::streams(&head);
        folded.then_some(BigFolded { file, len })
    }

    /// [`super::read_input`] of this file: from the cache when its key is
    /// there (a first build, whose cache holds nothing, computes the key
    /// while parsing instead of reading the file once more for it);
    /// `None` when the file is to be read whole after all.
    pub(super) fn read_input(
        self,
        path: &Path,
        before: Stamp,
        (within_version, name): (&str, &str),
        cache: &dyn ParseCache,
    ) -> Option<Result<(Loaded, Option<String>), ParseError>> {
        let (mut key, mut hasher) = (String::new(), None);
        if cache.enabled() {
            match cache.key_hasher(within_version, name) {
                Some(h) if !cache.may_hold_entries() => hasher = Some(h),
                _ => {
                    key = key_of_file(cache, (within_version, name), &self.file).ok()?;
                    if let Some(hit) = cache.get(&key) {
                        let unchanged = before
                            .check_unchanged(path)
                            .and_then(|()| before.settled(path));
                        return Some(unchanged.map(|()| (hit, None)));
                    }
                }
            }
        }
        let hashing = hasher.as_deref_mut().map(|h| h as &mut dyn KeyHasher);
        let parsed = self.parse(path, before, hashing)?;
        if let Some(hasher) = hasher {
            key = hasher.finish();
            // Looked up as every file's key is (the cache notes it); a
            // cache that holds no entries has none for it.
            if let Some(hit) = cache.get(&key) {
                return Some(Ok((hit, None)));
            }
        }
        Some(
            parsed
                .and_then(finished)
                .map(|loaded| stored(cache, &key, loaded)),
        )
    }

    /// [`super::read_and_parse`] of this file; `None` when it is to be read
    /// whole after all.
    pub(super) fn read_profile(
        self,
        path: &Path,
        before: Stamp,
    ) -> Option<Result<(&'static str, Parsed), ParseError>> {
        let parsed = self.parse(path, before, None)?;
        Some(parsed.and_then(finished).and_then(profile_of))
    }

    /// The profile, the file read from its start (its bytes handed to
    /// `hasher` as they pass), counted only when the file was the same
    /// (`before`) until it was read; `None` when it is not UTF-8.
    fn parse(
        mut self,
        path: &Path,
        before: Stamp,
        hasher: Option<&mut dyn KeyHasher>,
    ) -> Option<Result<Parsed, ParseError>> {
        use std::io::Seek;
        let cannot = |e: std::io::Error| ParseError::whole(format!("cannot be read: {e}"));
        if let Err(e) = self.file.rewind() {
            return Some(Err(cannot(e)));
        }
        let mut source = Hashing {
            file: &self.file,
            hasher,
        };
        let parsed = stream::parse(&mut source, self.len);
        instrument::pause::point("read");
        // A file changed meanwhile is said so, rather than what its new
        // bytes made the parse fail with.
        let unchanged = before
            .check_unchanged(path)
            .and_then(|()| before.settled(path));
        match (parsed, unchanged) {
            (_, Err(e)) => Some(Err(e)),
            (Ok(parsed), Ok(())) => Some(Ok(parsed)),
            (Err(stream::Unstreamed::NotUtf8), Ok(())) => None,
            (Err(stream::Unstreamed::Io(e)), Ok(())) => Some(Err(cannot(e))),
            (Err(stream::Unstreamed::Parse(e)), Ok(())) => Some(Err(e)),
        }
    }
}

/// The last bytes of `file`, `len` bytes long: folded stacks whose first
/// line is longer than the sniffing window are sniffed by the file's last
/// line, not the last line of the first bytes read.
fn tail(file: &std::fs::File, len: u64) -> Option<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    let mut file = file;
    let mut tail = Vec::with_capacity(TAIL_BYTES as usize);
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES)))
        .ok()?;
    file.take(TAIL_BYTES).read_to_end(&mut tail).ok()?;
    Some(tail)
}

/// Bytes read at the file's end for [`folded::sniffed_ends`], which
/// keeps fewer.
const TAIL_BYTES: u64 = 4096;

/// The parsed file finished and checked against the limits.
fn finished(parsed: Parsed) -> Result<Loaded, ParseError> {
    let unfinished = Box::new(Unfinished::done(parsed));
    UnfinishedLoad::Profile(folded::Folded.name(), unfinished).finish()
}

/// A file whose bytes go to a key's hasher as they are read.
struct Hashing<'f, 'h> {
    file: &'f std::fs::File,
    hasher: Option<&'h mut dyn KeyHasher>,
}

impl Read for Hashing<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        if let Some(hasher) = self.hasher.as_mut() {
            hasher.update(&buf[..n]);
        }
        Ok(n)
    }
}
