//! A big pprof profile read without its bytes ever held whole: the file is
//! streamed once (decompressed when gzipped) and split
//! ([`crate::pprof::split`]), keeping its strings, functions and locations
//! and only the places of its samples; the samples are then read from the
//! file again, on every core ([`super::reread`]). A 200 MB profile then
//! takes the tree its samples build, not 200 MB more for its bytes.
//!
//! Only a file that reads cleanly this way is read so: one that is not
//! pprof by its first bytes, or fails anywhere (a malformed field, a
//! change while it is read), is read whole by the caller, whose errors
//! name the place in the file as they always have.

use std::io::{Read, Seek};
use std::path::Path;

use super::{reread, Stamp};
use crate::{pprof, text, StagedLoad, UnfinishedLoad};

/// Bytes looked at to tell pprof from other formats.
const HEAD_BYTES: u64 = 64 << 10;

/// A file to read split: big, and pprof by its first bytes.
pub(super) struct BigPprof {
    file: std::fs::File,
    gzipped: bool,
}

impl BigPprof {
    /// The file at `path` when it is worth reading split: a raw profile
    /// the size [`reread`] reads again, or a gzipped one that expands to
    /// that size by its trailer (or is a quarter of it); and its first
    /// bytes read as pprof, not as measurements (given the file's
    /// `relative_path` within its version) nor any other format.
    pub(super) fn open(path: &Path, relative_path: Option<&str>, name: &str) -> Option<BigPprof> {
        if !cfg!(unix) {
            return None;
        }
        let mut file = std::fs::File::open(path).ok()?;
        let size = file.metadata().ok()?.len();
        // Its magic first: most files are small, and a build opens every
        // one (1,000 small measurement files read 64 MB more without it).
        let mut magic = Vec::with_capacity(2);
        (&mut file).take(2).read_to_end(&mut magic).ok()?;
        let gzipped = text::is_gzip(&magic);
        let least = reread::REREAD_BYTES as u64;
        let big = match gzipped {
            _ if size > model::limits::MAX_INPUT_BYTES => false,
            false => size >= least,
            true => size >= least / 4 || expanded_size(&file, size) >= least,
        };
        if !big {
            return None;
        }
        file.rewind().ok()?;
        let mut head = Vec::new();
        let read = match gzipped {
            true => flate2::read::MultiGzDecoder::new(&mut file)
                .take(HEAD_BYTES)
                .read_to_end(&mut head),
            false => (&mut file).take(HEAD_BYTES).read_to_end(&mut head),
        };
        read.ok()?;
        crate::reads_as_pprof(relative_path, name, &head).then_some(BigPprof { file, gzipped })
    }

    /// The file's cache key, as [`super::ParseCache::key`] gives it for
    /// its bytes.
    pub(super) fn key(
        &mut self,
        cache: &dyn super::ParseCache,
        within_version: &str,
        name: &str,
    ) -> std::io::Result<String> {
        super::key_of_file(cache, (within_version, name), &self.file)
    }

    /// The profile, its samples read from the file again; `None` when
    /// anything fails (the caller reads the file whole and says why).
    pub(super) fn read(mut self, path: &Path, before: Stamp) -> Option<UnfinishedLoad> {
        self.file.rewind().ok()?;
        let split = match self.gzipped {
            false => pprof::split(&self.file, model::limits::MAX_INPUT_BYTES),
            true => pprof::split(
                flate2::read::MultiGzDecoder::new(std::io::BufReader::new(&self.file)),
                text::gzip_limit(),
            ),
        }
        .ok()??;
        instrument::pause::point("read");
        before.check_unchanged(path).ok()?;
        before.settled(path).ok()?;
        let staged = pprof::stage_split(&split)?;
        let len = split.len;
        drop(split);
        let staged = StagedLoad::PprofSamples(Box::new(staged));
        reread::samples(path, before, (len, self.gzipped), staged).ok()
    }
}

/// The size a gzip file of `size` bytes says it expands to: its last
/// member's (modulo 4 GiB), in its last four bytes; 0 when unread.
#[cfg(unix)]
fn expanded_size(file: &std::fs::File, size: u64) -> u64 {
    let mut trailer = [0u8; 4];
    let read = size.checked_sub(4).is_some_and(|at| {
        std::os::unix::fs::FileExt::read_exact_at(file, &mut trailer, at).is_ok()
    });
    match read {
        true => u64::from(u32::from_le_bytes(trailer)),
        false => 0,
    }
}

#[cfg(not(unix))]
fn expanded_size(_: &std::fs::File, _: u64) -> u64 {
    0
}
