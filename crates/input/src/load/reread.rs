//! A big pprof profile's samples read from its file again, once the bytes
//! the first pass read are freed (see [`crate::load_bytes_staged`]): the
//! bytes and the call tree the samples build are never held at once.
//!
//! A raw file is read a segment at a time at offsets, on every core
//! ([`Reread`]). A gzipped one is decompressed again ([`Unzipped`]): gzip
//! cannot be entered in the middle, so each thread's decompressor starts
//! at the file's start and steps over what comes before its part.

use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

use super::Stamp;
use crate::pprof::Source;
use crate::{StagedLoad, UnfinishedLoad};
use model::error::ParseError;

/// Profiles at least this big (decompressed) are read again for their
/// samples, on Unix (which reads a part of a file at an offset without
/// moving a shared cursor).
pub(super) const REREAD_BYTES: usize = 32 << 20;

/// Whether a profile of `len` bytes (decompressed) is read again.
pub(super) fn worth_it(len: usize) -> bool {
    cfg!(unix) && len >= REREAD_BYTES
}

/// The samples of a staged profile read from the file at `path` again:
/// the same file (`before`) as the first read, unchanged until the
/// samples are read; `len` bytes long once decompressed, when `gzipped`.
pub(super) fn samples(
    path: &Path,
    before: Stamp,
    (len, gzipped): (usize, bool),
    staged: StagedLoad,
) -> Result<UnfinishedLoad, ParseError> {
    let again = |e: std::io::Error| ParseError::whole(format!("cannot be read again: {e}"));
    let file = std::fs::File::open(path).map_err(again)?;
    let opened = file.metadata().map_err(again)?;
    if Stamp::of(&opened) != before {
        // What changed, worded as any other change.
        before.check_unchanged(path)?;
    }
    let read = match gzipped {
        false => staged.read_samples(&Reread { file, len }),
        true => staged.read_samples(&Unzipped::new(file, len)),
    };
    // A file changed meanwhile is said so, rather than what its new
    // bytes made the samples fail with.
    before.check_unchanged(path)?;
    read
}

/// A raw file read again, a part at a time.
struct Reread {
    file: std::fs::File,
    len: usize,
}

impl Source for Reread {
    fn bytes<'s>(
        &'s self,
        start: usize,
        end: usize,
        buf: &'s mut Vec<u8>,
    ) -> std::io::Result<&'s [u8]> {
        buf.resize(end - start, 0);
        read_exact_at(&self.file, buf, start as u64)?;
        Ok(buf)
    }

    fn total_len(&self) -> usize {
        self.len
    }
}

#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, at)
}

/// Not reached: only Unix reads a file again ([`worth_it`]).
#[cfg(not(unix))]
fn read_exact_at(_: &std::fs::File, _: &mut [u8], _: u64) -> std::io::Result<()> {
    Err(std::io::ErrorKind::Unsupported.into())
}

/// A gzipped file decompressed again. A part is read by the decompressor
/// that has read furthest without passing the part's start, or by a new
/// one from the file's start: a thread reading its part in order keeps
/// its own.
struct Unzipped {
    file: std::fs::File,
    len: usize,
    /// Decompressors not in use, and how far each has read.
    idle: Mutex<Vec<(Decoder, usize)>>,
}

type Decoder = flate2::read::MultiGzDecoder<std::io::BufReader<FromOffset>>;

/// Reads a file from an offset of its own: decompressors on several
/// threads share the file, not its cursor.
struct FromOffset {
    file: std::fs::File,
    at: u64,
}

impl Read for FromOffset {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = read_at(&self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

/// Not reached: only Unix reads a file again ([`worth_it`]).
#[cfg(not(unix))]
fn read_at(_: &std::fs::File, _: &mut [u8], _: u64) -> std::io::Result<usize> {
    Err(std::io::ErrorKind::Unsupported.into())
}

impl Unzipped {
    fn new(file: std::fs::File, len: usize) -> Unzipped {
        Unzipped {
            file,
            len,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// The idle decompressor that has read furthest up to `start`, else a
    /// new one.
    fn decoder_before(&self, start: usize) -> std::io::Result<(Decoder, usize)> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let best = (0..idle.len())
            .filter(|&i| idle[i].1 <= start)
            .max_by_key(|&i| idle[i].1);
        match best {
            Some(i) => Ok(idle.swap_remove(i)),
            None => {
                drop(idle);
                self.new_decoder()
            }
        }
    }

    /// A decompressor at the file's start.
    fn new_decoder(&self) -> std::io::Result<(Decoder, usize)> {
        let file = FromOffset {
            file: self.file.try_clone()?,
            at: 0,
        };
        Ok((Decoder::new(std::io::BufReader::new(file)), 0))
    }
}

impl Source for Unzipped {
    fn bytes<'s>(
        &'s self,
        start: usize,
        end: usize,
        buf: &'s mut Vec<u8>,
    ) -> std::io::Result<&'s [u8]> {
        let (mut decoder, pos) = self.decoder_before(start)?;
        let skip = (start - pos) as u64;
        if std::io::copy(&mut decoder.by_ref().take(skip), &mut std::io::sink())? < skip {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.resize(end - start, 0);
        decoder.read_exact(buf)?;
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.push((decoder, end));
        Ok(buf)
    }

    fn total_len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gzipped_file_gives_its_parts_in_any_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.gz");
        let raw: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 253) as u8).collect();
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut encoder, &raw).unwrap();
        std::fs::write(&path, encoder.finish().unwrap()).unwrap();
        let source = Unzipped::new(std::fs::File::open(&path).unwrap(), raw.len());
        let mut buf = Vec::new();
        // Two threads' parts, in turn, and one before both.
        let parts = [
            (0, 10),
            (150_000, 150_100),
            (10, 5000),
            (150_100, 200_000),
            (90_000, 100_000),
            (7, 8),
            (299_000, 300_000),
        ];
        for (start, end) in parts {
            assert_eq!(
                source.bytes(start, end, &mut buf).unwrap(),
                &raw[start..end],
                "{start}..{end}"
            );
        }
        let past_the_end = source.bytes(299_990, 300_010, &mut buf);
        assert!(past_the_end.is_err());
    }
}
