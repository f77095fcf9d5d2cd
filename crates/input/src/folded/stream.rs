//! A big folded file parsed as it is read: its chunks ([`super::chunks`])
//! are read from the file one after another into a few buffers that are
//! reused, each parsed on whichever core read it. The file's bytes are
//! never held whole: a 126 MB profile took 126 MB of fresh memory (and
//! the kernel's time to hand it out and take it back) for bytes that are
//! looked at once; now it takes a buffer per core. Reading also overlaps
//! the parse instead of coming before it.
//!
//! Only plain UTF-8 text is read so: a file whose first bytes hold a
//! byte-order mark, or read as async-profiler allocation output so far
//! (which is decided over the whole file), is read whole by the caller,
//! and so is one found not to be UTF-8 on the way ([`Unstreamed::NotUtf8`]).

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::chunks::{build_tree, Chunks, CHUNK_BYTES};
use super::{read_leaves, ChunkStacks, Leaves, Mode, Parsed};
use model::error::ParseError;

/// Files at least this big are worth reading a chunk at a time: smaller
/// ones make one chunk (see [`super::chunks`]).
pub const STREAMED_BYTES: u64 = 2 * CHUNK_BYTES as u64;

/// Whether a folded file whose first bytes are `head` can be parsed as it
/// is read: UTF-8 without a byte-order mark, and with a stack among its
/// complete lines that rules allocation output out (a CPU profile's first
/// line does), so the file is read as plain stacks whatever follows.
pub fn streams(head: &[u8]) -> bool {
    let complete = match head.iter().rposition(|&b| b == b'\n') {
        Some(end) => &head[..end],
        None => return false,
    };
    match std::str::from_utf8(complete) {
        Ok(text) if !text.starts_with('\u{feff}') => {
            matches!(read_leaves(text.split('\n')), Leaves::NotAllocations)
        }
        _ => false,
    }
}

/// Why a file was not parsed as it was read.
#[derive(Debug)]
pub enum Unstreamed {
    /// A chunk is not UTF-8: the file is to be read whole (and decoded).
    NotUtf8,
    /// Reading failed.
    Io(std::io::Error),
    /// The file read, but its stacks do not make a profile (no stacks, too
    /// many frames).
    Parse(ParseError),
}

/// The profile of the folded file `source` reads (about `len` bytes, whose
/// first bytes [`streams`]), before the line fold's last steps.
pub fn parse(source: &mut (dyn Read + Send), len: u64) -> Result<Parsed, Unstreamed> {
    parse_in_chunks_of(CHUNK_BYTES, source, len)
}

/// [`parse`], the file cut in chunks of `size` bytes.
fn parse_in_chunks_of(
    size: usize,
    source: &mut (dyn Read + Send),
    len: u64,
) -> Result<Parsed, Unstreamed> {
    let streamed = Streamed::new(source, len, size);
    let parsed = build_tree(&streamed, Mode::Samples, model::FoldWhileBuilding::new());
    if let Some((_, failure)) = streamed
        .failure
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        return Err(failure);
    }
    parsed.map_err(Unstreamed::Parse)
}

/// `bytes` parsed as they stream in chunks of `size`, and cut beforehand
/// into chunks of `size` and parsed so (`None` when they are not UTF-8):
/// for the fuzz target, which checks that both ways agree. Both ways cut
/// the same chunks when `bytes` are at least twice `size`.
#[doc(hidden)]
pub fn parse_both_ways(
    bytes: &[u8],
    size: usize,
) -> (
    Result<Parsed, Unstreamed>,
    Option<Result<Parsed, ParseError>>,
) {
    let streamed = parse_in_chunks_of(size, &mut &bytes[..], bytes.len() as u64);
    let cut = super::chunks::utf8_chunks(bytes, size)
        .map(|chunks| super::chunks::parse_chunks(&chunks, Mode::Samples));
    (streamed, cut)
}

/// Bytes read at a time past a chunk's size while looking for the newline
/// that ends it.
const READ_ON: usize = 64 << 10;

/// Chunks read from a file in order, each into a buffer of its own.
struct Streamed<'r> {
    reading: Mutex<Reading<'r>>,
    /// Buffers whose chunks have been read, for the next chunks.
    spare: Mutex<Vec<ChunkBuf>>,
    /// How many chunks there are, once known (`usize::MAX` before).
    count: AtomicUsize,
    /// The first failure, and the chunk it came at.
    failure: Mutex<Option<(usize, Unstreamed)>>,
    expected: usize,
    /// A chunk's size (see [`Reading::fill`]).
    size: usize,
}

/// The file, and where reading it has got to.
struct Reading<'r> {
    source: &'r mut (dyn Read + Send),
    /// A chunk's size: [`CHUNK_BYTES`] but in tests.
    size: usize,
    /// The bytes read past the last chunk's end: the next one's start.
    carry: Vec<u8>,
    /// The next chunk's index.
    next: usize,
    ended: bool,
}

impl<'r> Streamed<'r> {
    fn new(source: &'r mut (dyn Read + Send), len: u64, size: usize) -> Streamed<'r> {
        Streamed {
            reading: Mutex::new(Reading {
                source,
                size,
                carry: Vec::new(),
                next: 0,
                ended: false,
            }),
            spare: Mutex::new(Vec::new()),
            count: AtomicUsize::new(usize::MAX),
            failure: Mutex::new(None),
            expected: (len / size.max(1) as u64).max(1) as usize,
            size,
        }
    }

    /// The next chunk's bytes read into `buf`, and its index; `None` when
    /// the file has no more (or reading has stopped or failed).
    fn next_chunk(&self, buf: &mut ChunkBuf) -> Option<usize> {
        let mut reading = self.reading.lock().unwrap_or_else(|e| e.into_inner());
        if reading.ended {
            return None;
        }
        let at = reading.next;
        match reading.fill(buf) {
            Ok(true) => {
                reading.next += 1;
                Some(at)
            }
            Ok(false) => {
                reading.ended = true;
                self.count.fetch_min(at, Ordering::SeqCst);
                None
            }
            Err(e) => {
                reading.ended = true;
                drop(reading);
                self.fail(at, Unstreamed::Io(e));
                None
            }
        }
    }

    /// Records `failure` at chunk `at`: the chunks before it are the last
    /// handed to the tree, and the earliest failure is the one reported.
    fn fail(&self, at: usize, failure: Unstreamed) {
        self.count.fetch_min(at, Ordering::SeqCst);
        let mut first = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if first.as_ref().is_none_or(|(i, _)| at < *i) {
            *first = Some((at, failure));
        }
    }

    fn spare_buffer(&self) -> ChunkBuf {
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
        spare.unwrap_or_else(|| ChunkBuf {
            // Zeroed by the system as it is first touched, not written.
            bytes: vec![0; self.size + 1 + READ_ON],
            len: 0,
        })
    }
}

impl Chunks for Streamed<'_> {
    fn read_next(&self, mode: Mode) -> Option<(usize, ChunkStacks)> {
        let mut buf = self.spare_buffer();
        let i = self.next_chunk(&mut buf)?;
        let Ok(text) = std::str::from_utf8(buf.filled()) else {
            self.stop();
            self.fail(i, Unstreamed::NotUtf8);
            return None;
        };
        let read = ChunkStacks::read(text, mode);
        self.spare
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(buf);
        Some((i, read))
    }

    fn count(&self) -> Option<usize> {
        Some(self.count.load(Ordering::SeqCst)).filter(|&n| n != usize::MAX)
    }

    fn stop(&self) {
        let mut reading = self.reading.lock().unwrap_or_else(|e| e.into_inner());
        reading.ended = true;
        self.count.fetch_min(reading.next, Ordering::SeqCst);
    }

    fn expected(&self) -> usize {
        self.expected
    }
}

impl Reading<'_> {
    /// Reads the next chunk into `buf`, cut as [`super::chunks`] cuts a
    /// file's bytes: after the first newline at or after `size` bytes into
    /// it, or at the file's end when no more than that is left or no
    /// newline is; false when nothing is left.
    fn fill(&mut self, buf: &mut ChunkBuf) -> std::io::Result<bool> {
        buf.len = 0;
        buf.extend(&self.carry);
        self.carry.clear();
        self.read_up_to(buf, self.size + 1)?;
        if buf.len <= self.size {
            return Ok(buf.len > 0);
        }
        let mut from = self.size;
        loop {
            if let Some(newline) = buf.filled()[from..].iter().position(|&b| b == b'\n') {
                let cut = from + newline + 1;
                self.carry.extend_from_slice(&buf.filled()[cut..]);
                buf.len = cut;
                return Ok(true);
            }
            from = buf.len;
            if self.read_up_to(buf, from + READ_ON)? == 0 {
                return Ok(true);
            }
        }
    }

    /// Reads until `buf` holds `len` bytes or the file ends; how many bytes
    /// were read.
    fn read_up_to(&mut self, buf: &mut ChunkBuf, len: usize) -> std::io::Result<usize> {
        buf.room_for(len);
        let start = buf.len;
        while buf.len < len {
            match self.source.read(&mut buf.bytes[buf.len..len]) {
                Ok(0) => break,
                Ok(n) => buf.len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(buf.len - start)
    }
}

/// A chunk's buffer: its first `len` bytes are the chunk. Reused from
/// chunk to chunk without being cleared: a `Vec` read into afresh with
/// `read_to_end` was zeroed again for every chunk (126 MB of writes on a
/// 126 MB file) before the read wrote it.
struct ChunkBuf {
    bytes: Vec<u8>,
    len: usize,
}

impl ChunkBuf {
    fn filled(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Makes the buffer at least `len` bytes long.
    fn room_for(&mut self, len: usize) {
        if self.bytes.len() < len {
            self.bytes.resize(len, 0);
        }
    }

    fn extend(&mut self, more: &[u8]) {
        let end = self.len + more.len();
        self.room_for(end);
        self.bytes[self.len..end].copy_from_slice(more);
        self.len = end;
    }
}

#[cfg(test)]
mod tests;
