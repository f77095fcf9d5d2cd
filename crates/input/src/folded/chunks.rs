//! A big folded file read in chunks of whole lines: the chunks are read
//! into frame ids on every core while one thread builds the tree from
//! them in file order ([`parse_chunks`]). The chunks come from the file's
//! text cut beforehand ([`Cut`]) or from the file itself, read a chunk at
//! a time ([`super::stream`]). Chunk boundaries depend on the bytes only
//! (a cut after the first newline past every [`CHUNK_BYTES`]), never on
//! the number of threads or on how the file is read, so neither changes
//! the profile.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use rayon::prelude::*;

use super::{ChunkStacks, Mode, Parsed, TreeBuilder};
use model::error::ParseError;

/// Files larger than twice this are parsed in chunks of about this size.
pub(super) const CHUNK_BYTES: usize = 16 << 20;

/// A file's chunks (see [`split_chunks`]) when it is valid UTF-8 without
/// a byte-order mark, each checked on its own, all at once; `None` for
/// text that [`super::text::decode_text`] must decode first (byte-order
/// marks, UTF-16, invalid bytes). A chunk ends after a newline, which is
/// never part of a character, so the chunks are valid when the file is.
pub(super) fn utf8_chunks(bytes: &[u8], size: usize) -> Option<Vec<&str>> {
    let chunks: Vec<&str> = chunk_bytes(bytes, size)
        .par_iter()
        .map(|c| std::str::from_utf8(c).ok())
        .collect::<Option<_>>()?;
    match chunks.first() {
        Some(first) if first.starts_with('\u{feff}') => None,
        _ => Some(chunks),
    }
}

/// `data` cut after a newline roughly every `size` bytes.
pub(super) fn split_chunks(data: &str, size: usize) -> Vec<&str> {
    let mut rest = data;
    let mut chunks = Vec::new();
    for len in chunk_bytes(data.as_bytes(), size).iter().map(|c| c.len()) {
        // A cut after a newline is a character boundary.
        let (head, tail) = rest.split_at(len);
        chunks.push(head);
        rest = tail;
    }
    chunks
}

/// `bytes` cut after a newline roughly every `size` bytes (in one piece
/// when shorter than twice `size`): each chunk but the last ends at the
/// first newline at or after `size` bytes into it, and the last is what
/// is left when `size` bytes or fewer are, or no newline is.
fn chunk_bytes(bytes: &[u8], size: usize) -> Vec<&[u8]> {
    if bytes.len() < 2 * size {
        return vec![bytes];
    }
    let mut chunks = Vec::new();
    let mut rest = bytes;
    while rest.len() > size {
        let Some(cut) = rest[size..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let (head, tail) = rest.split_at(size + cut + 1);
        chunks.push(head);
        rest = tail;
    }
    if !rest.is_empty() {
        chunks.push(rest);
    }
    chunks
}

/// Reads `chunks` (consecutive pieces of one file, cut after a newline)
/// into one profile.
pub(super) fn parse_chunks(chunks: &[&str], mode: Mode) -> Result<Parsed, ParseError> {
    parse_chunks_folding(chunks, mode, model::FoldWhileBuilding::new())
}

/// [`parse_chunks`] with the line fold `fold`.
pub(super) fn parse_chunks_folding(
    chunks: &[&str],
    mode: Mode,
    fold: model::FoldWhileBuilding,
) -> Result<Parsed, ParseError> {
    build_tree(&Cut::new(chunks), mode, fold)
}

/// The profile of the chunks `source` gives: they are read into frame ids
/// on every core while this thread builds the tree from them in file
/// order, reading chunks itself whenever the next one is not ready.
pub(super) fn build_tree(
    source: &dyn Chunks,
    mode: Mode,
    fold: model::FoldWhileBuilding,
) -> Result<Parsed, ParseError> {
    let reads = ChunkQueue::new(source, mode);
    let mut builder = TreeBuilder::new(mode, fold);
    let helpers = rayon::current_num_threads()
        .saturating_sub(1)
        .min(source.expected().saturating_sub(1));
    let mut result = Ok(());
    rayon::scope(|s| {
        for _ in 0..helpers {
            s.spawn(|_| while reads.read_next() {});
        }
        let mut i = 0;
        while let Some(chunk) = reads.take(i) {
            if let Err(e) = builder.add(chunk) {
                source.stop();
                result = Err(e);
                return;
            }
            i += 1;
        }
    });
    result?;
    builder.finish()
}

/// Where a file's chunks come from, handed out one at a time in file
/// order, to be read by whichever thread asks.
pub(super) trait Chunks: Sync {
    /// The next chunk nobody has taken, read into stacks, and its index;
    /// `None` when none is left to take.
    fn read_next(&self, mode: Mode) -> Option<(usize, ChunkStacks)>;
    /// How many chunks there are, once that is known: every chunk below
    /// it is handed out by [`Chunks::read_next`].
    fn count(&self) -> Option<usize>;
    /// Hands out no more chunks.
    fn stop(&self);
    /// How many chunks the file is expected to make (to start as many
    /// readers, at most).
    fn expected(&self) -> usize;
}

/// A file's text cut into chunks beforehand.
struct Cut<'a> {
    chunks: &'a [&'a str],
    next: AtomicUsize,
}

impl<'a> Cut<'a> {
    fn new(chunks: &'a [&'a str]) -> Cut<'a> {
        Cut {
            chunks,
            next: AtomicUsize::new(0),
        }
    }
}

impl Chunks for Cut<'_> {
    fn read_next(&self, mode: Mode) -> Option<(usize, ChunkStacks)> {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        let chunk = self.chunks.get(i)?;
        Some((i, ChunkStacks::read(chunk, mode)))
    }

    fn count(&self) -> Option<usize> {
        Some(self.chunks.len())
    }

    fn stop(&self) {
        self.next.store(self.chunks.len(), Ordering::Relaxed);
    }

    fn expected(&self) -> usize {
        self.chunks.len()
    }
}

/// Chunks read by whichever thread asks, kept until the tree thread takes
/// them in order.
struct ChunkQueue<'s> {
    source: &'s dyn Chunks,
    mode: Mode,
    done: Mutex<Vec<Option<ChunkStacks>>>,
    ready: Condvar,
}

impl<'s> ChunkQueue<'s> {
    fn new(source: &'s dyn Chunks, mode: Mode) -> ChunkQueue<'s> {
        ChunkQueue {
            source,
            mode,
            done: Mutex::new(Vec::new()),
            ready: Condvar::new(),
        }
    }

    /// Reads the next chunk nobody has taken yet; false when none is left.
    fn read_next(&self) -> bool {
        let Some((i, read)) = self.source.read_next(self.mode) else {
            // Taken under the lock, so that a taker that found the count
            // unknown is already waiting when told.
            let _done = self.lock();
            self.ready.notify_all();
            return false;
        };
        let mut done = self.lock();
        if done.len() <= i {
            done.resize_with(i + 1, || None);
        }
        done[i] = Some(read);
        drop(done);
        self.ready.notify_all();
        true
    }

    /// Chunk `i`, read, or `None` past the last chunk: reads chunks while
    /// it is not ready, then waits for the reader that has it.
    fn take(&self, i: usize) -> Option<ChunkStacks> {
        loop {
            if let Some(read) = self.lock().get_mut(i).and_then(Option::take) {
                return Some(read);
            }
            if !self.read_next() {
                break;
            }
        }
        let mut done = self.lock();
        loop {
            if let Some(read) = done.get_mut(i).and_then(Option::take) {
                return Some(read);
            }
            if self.source.count().is_some_and(|n| i >= n) {
                return None;
            }
            done = self.ready.wait(done).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Option<ChunkStacks>>> {
        self.done.lock().unwrap_or_else(|e| e.into_inner())
    }
}
