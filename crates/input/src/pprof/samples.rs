//! Second pass: the samples, streamed from the buffer into the call tree.
//!
//! * No sample is ever held: each is decoded into two reused buffers
//!   (location ids, values), checked, added to the tree and forgotten.
//! * The samples are read from a [`Source`]: the buffer the first pass
//!   read, or the file again, a few megabytes at a time
//!   ([`SEGMENT_BYTES`]), so that the loader can free the buffer before
//!   the trees grow (the bytes and the trees are never held at once).
//! * The samples are split at bookmarks of the first pass into one chunk
//!   per thread (at most [`MAX_CHUNKS`], and fewer for a big file: see
//!   [`PARTIAL_TREES_BUDGET`]); each chunk builds its own tree
//!   and the trees are merged in chunk order, which gives the same nodes in
//!   the same order as reading the samples one after the other.
//! * A sample's callers (every location but the leaf) are looked up in a
//!   cache of caller lists already walked: profiles repeat the same callers
//!   with another leaf instruction or other labels, so most samples walk
//!   only their leaf location.
//!
//! Errors are those of one sequential read: the first malformed sample in
//! the file wins over any unknown reference, and among those the first
//! sample's wins.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::Hasher;

use super::dictionary::Dictionary;
use super::outline::SampleSpans;
use super::wire::{self, DecodeError, Reader, WireType, RECURSION_LIMIT};
use model::error::ParseError;
use model::{CallTree, FrameId, NodeId};

/// Most chunks (and partial trees held at once).
pub const MAX_CHUNKS: usize = 8;
/// Bytes the partial trees of one file may take together. A chunk's tree
/// is reckoned at a third of the file's bytes, what each took on the
/// 198 MB bench profile (65 MB), whose repeated stacks are spread over
/// the whole file. Without the bound its peak grew with the cores: 463 MB
/// on 2 threads, 597 MB on 4, 773 MB on 8; a file of 200 MB or more now
/// has at most 3 chunks, 2 from 400 MB.
const PARTIAL_TREES_BUDGET: usize = 256 << 20;
/// Fewest samples worth a chunk of their own.
const MIN_CHUNK_SAMPLES: usize = 16 * 1024;
/// Most location ids the caller cache keeps per chunk (4 bytes each):
/// 16 MiB a chunk, so at most 128 MiB on a machine of [`MAX_CHUNKS`]
/// cores (it was 128 MiB a chunk, 1 GiB there; a 200 MB profile of 1.9M
/// samples reads as fast with the smaller cache).
const CACHE_CAPACITY: usize = 4 << 20;

/// Bytes read from a [`Source`] at once, at least (up to the next
/// bookmark); a thread holds one such segment at a time.
pub const SEGMENT_BYTES: usize = 4 << 20;

/// Where the second pass reads the profile from.
pub trait Source: Sync {
    /// The bytes `start..end` of the profile: borrowed, or read into `buf`.
    fn bytes<'s>(
        &'s self,
        start: usize,
        end: usize,
        buf: &'s mut Vec<u8>,
    ) -> std::io::Result<&'s [u8]>;
    /// The profile's length in bytes.
    fn total_len(&self) -> usize;
}

/// The buffer the first pass read.
pub struct Buffer<'a>(pub &'a [u8]);

impl Source for Buffer<'_> {
    fn bytes<'s>(
        &'s self,
        start: usize,
        end: usize,
        _: &'s mut Vec<u8>,
    ) -> std::io::Result<&'s [u8]> {
        Ok(&self.0[start..end])
    }

    fn total_len(&self) -> usize {
        self.0.len()
    }
}

/// What reading the samples can fail with.
pub enum Failure {
    /// A sample is not well-formed protobuf.
    Malformed(DecodeError),
    /// A sample refers to something missing, or has the wrong number of
    /// values; or the source could not be read again.
    Invalid(ParseError),
}

/// Builds the call tree of all samples, reading at least `segment_bytes`
/// at once (see [`SEGMENT_BYTES`]).
pub fn tree(
    source: &dyn Source,
    spans: &SampleSpans,
    dict: &Dictionary,
    segment_bytes: usize,
) -> Result<CallTree, Failure> {
    let chunks = chunks(source.total_len(), spans);
    let read = |&(start, end, first): &(usize, usize, usize)| {
        let segments = Segments::new(&spans.bookmarks, start, end, segment_bytes);
        read_chunk(source, segments, first, dict)
    };
    let mut partials: Vec<Chunk> = chunks.par_iter().map(read).collect();
    if let Some(e) = partials.iter_mut().find_map(|c| c.unreadable.take()) {
        return Err(Failure::Invalid(e));
    }
    if let Some(e) = partials.iter_mut().find_map(|c| c.malformed.take()) {
        return Err(Failure::Malformed(e));
    }
    if let Some(e) = partials.iter_mut().find_map(|c| c.invalid.take()) {
        return Err(Failure::Invalid(e));
    }
    if partials.len() > 1 && partials.iter().any(|c| c.tree.over_limit().is_some()) {
        // Which limit a sequential read meets first depends on the order:
        // read again in one piece (the file is rejected either way).
        partials = vec![read(&(chunks[0].0, spans.end, 0))];
    }
    Ok(merge(partials, dict))
}

/// The first malformed sample starting before `before` (for errors found
/// elsewhere, which a sequential read would only meet after it).
pub fn first_malformed(bytes: &[u8], before: usize) -> Option<DecodeError> {
    let mut r = Reader::new(bytes);
    let mut ids = Vec::new();
    let mut values = Vec::new();
    while r.pos() < before {
        let (tag, wire) = r.key().ok()?;
        if tag == 2 {
            ids.clear();
            values.clear();
            if let Err(e) = sample(&mut r, wire, &mut ids, &mut values) {
                return Some(e.within("Profile", "sample"));
            }
        } else {
            r.skip(wire, tag, RECURSION_LIMIT).ok()?;
        }
    }
    None
}

/// (start, end, index of the first sample) of each chunk: byte ranges of
/// about equal size, starting at bookmarks, ending with the last sample.
/// `len` is the whole profile's length.
fn chunks(len: usize, spans: &SampleSpans) -> Vec<(usize, usize, usize)> {
    let Some(&(first_pos, _)) = spans.bookmarks.first() else {
        return Vec::new();
    };
    let affordable = (PARTIAL_TREES_BUDGET / (len / 3).max(1)).max(2);
    let wanted = rayon::current_num_threads()
        .min(MAX_CHUNKS)
        .min(affordable)
        .min(spans.count / MIN_CHUNK_SAMPLES)
        .max(1);
    let span = spans.end - first_pos;
    let mut starts = vec![spans.bookmarks[0]];
    for c in 1..wanted {
        let target = first_pos + span / wanted * c;
        let next = spans.bookmarks.partition_point(|&(pos, _)| pos < target);
        if let Some(&b) = spans.bookmarks.get(next) {
            if starts.last().is_some_and(|last| b.0 > last.0) {
                starts.push(b);
            }
        }
    }
    let ends = starts
        .iter()
        .skip(1)
        .map(|&(pos, _)| pos)
        .chain([spans.end]);
    starts
        .iter()
        .zip(ends)
        .map(|(&(start, first), end)| (start, end, first))
        .collect()
}

/// The byte ranges a chunk is read in: from bookmark to bookmark, at
/// least `at_least` bytes each but the last. Every range starts and ends
/// between top-level fields.
struct Segments<'a> {
    bookmarks: &'a [(usize, usize)],
    next: usize,
    end: usize,
    at_least: usize,
}

impl<'a> Segments<'a> {
    fn new(bookmarks: &'a [(usize, usize)], start: usize, end: usize, at_least: usize) -> Self {
        Segments {
            bookmarks,
            next: start,
            end,
            at_least: at_least.max(1),
        }
    }
}

impl Iterator for Segments<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let start = self.next;
        if start >= self.end {
            return None;
        }
        let wanted = start.saturating_add(self.at_least);
        let at = self.bookmarks.partition_point(|&(pos, _)| pos < wanted);
        let end = match self.bookmarks.get(at) {
            Some(&(pos, _)) if pos < self.end => pos,
            _ => self.end,
        };
        self.next = end;
        Some((start, end))
    }
}

/// The tree of one chunk and the first problems met in it.
struct Chunk {
    tree: CallTree,
    malformed: Option<DecodeError>,
    invalid: Option<ParseError>,
    /// The source failed to give a segment.
    unreadable: Option<ParseError>,
}

/// One top-level field read by the second pass: a sample (its location
/// ids and values left in `ids` and `values`) or a field stepped over.
#[inline]
fn next_field(r: &mut Reader, ids: &mut Vec<u64>, values: &mut Vec<i64>) -> wire::Result<bool> {
    let (tag, wire) = r.key()?;
    if tag != 2 {
        return r.skip(wire, tag, RECURSION_LIMIT).map(|_| false);
    }
    ids.clear();
    values.clear();
    sample(r, wire, ids, values)
        .map_err(|e| e.within("Profile", "sample"))
        .map(|_| true)
}

fn read_chunk(source: &dyn Source, segments: Segments, first: usize, dict: &Dictionary) -> Chunk {
    let mut builder = Builder::new(dict);
    let mut chunk = Chunk {
        tree: CallTree::bounded(dict.metrics.len()),
        malformed: None,
        invalid: None,
        unreadable: None,
    };
    let mut buf = Vec::new();
    let mut ids = Vec::new();
    let mut values = Vec::new();
    let mut index = first;
    'segments: for (base, end) in segments {
        let bytes = match source.bytes(base, end, &mut buf) {
            Ok(bytes) => bytes,
            Err(e) => {
                chunk.unreadable = Some(ParseError::whole(format!("cannot be read again: {e}")));
                break;
            }
        };
        let mut r = Reader::new(bytes);
        while r.has_remaining() {
            let at = base + r.pos();
            match next_field(&mut r, &mut ids, &mut values) {
                Err(e) => {
                    chunk.malformed = Some(error_read_whole(source, at).unwrap_or(e.shifted(base)));
                    break 'segments;
                }
                Ok(false) => {}
                Ok(true) => {
                    // After an invalid sample the rest is only checked for
                    // malformed ones, which would be reported first.
                    if chunk.invalid.is_none() {
                        if let Err(mut e) = builder.add(&mut chunk.tree, index, &ids, &values) {
                            e.message += &format!(" (at byte {at})");
                            chunk.invalid = Some(e);
                        }
                    }
                    index += 1;
                }
            }
        }
    }
    chunk
}

/// The error of the field at `at`, read with everything after it in
/// reach: a sub-message whose length runs past the segment reads on into
/// the next fields, as a sequential read of the whole profile does (and
/// fails as it does). `None` if the source cannot give the bytes.
#[cold]
fn error_read_whole(source: &dyn Source, at: usize) -> Option<DecodeError> {
    let mut buf = Vec::new();
    let rest = source.bytes(at, source.total_len(), &mut buf).ok()?;
    let mut r = Reader::new(rest);
    let error = next_field(&mut r, &mut Vec::new(), &mut Vec::new()).err()?;
    Some(error.shifted(at))
}

/// One sample's fields: its location ids (leaf first) and values are
/// appended to `ids` and `values`.
#[inline]
fn sample(
    r: &mut Reader,
    wire: WireType,
    ids: &mut Vec<u64>,
    values: &mut Vec<i64>,
) -> wire::Result<()> {
    r.message(wire, RECURSION_LIMIT, |r, tag, wire, depth| {
        let within = |field| move |e: DecodeError| e.within("Sample", field);
        match tag {
            1 => r
                .repeated(wire, |id| ids.push(id))
                .map_err(within("location_id")),
            2 => r
                .repeated(wire, |v| values.push(v as i64))
                .map_err(within("value")),
            3 => label(r, wire, depth).map_err(within("label")),
            _ => r.skip(wire, tag, depth),
        }
    })
}

/// A label is checked and dropped: perfatlas does not split by labels.
fn label(r: &mut Reader, wire: WireType, depth: u32) -> wire::Result<()> {
    r.message(wire, depth, |r, tag, wire, depth| {
        let within = |field| move |e: DecodeError| e.within("Label", field);
        match tag {
            1 => r.scalar(wire).map(|_| ()).map_err(within("key")),
            2 => r.scalar(wire).map(|_| ()).map_err(within("str")),
            3 => r.scalar(wire).map(|_| ()).map_err(within("num")),
            4 => r.scalar(wire).map(|_| ()).map_err(within("num_unit")),
            _ => r.skip(wire, tag, depth),
        }
    })
}

/// Adds checked samples to a tree.
struct Builder<'a> {
    dict: &'a Dictionary,
    /// Location numbers of the current sample, root first.
    stack: Vec<u32>,
    callers: CallerCache,
}

impl<'a> Builder<'a> {
    fn new(dict: &'a Dictionary) -> Builder<'a> {
        Builder {
            dict,
            stack: Vec::new(),
            callers: CallerCache::default(),
        }
    }

    /// Checks sample `index` against the dictionary and adds it. `ids` is
    /// leaf first: `ids[1..]` are its callers, looked up as they are.
    fn add(
        &mut self,
        tree: &mut CallTree,
        index: usize,
        ids: &[u64],
        values: &[i64],
    ) -> Result<(), ParseError> {
        let scale = &self.dict.scale;
        if values.len() != scale.len() {
            return Err(ParseError::field(
                format!("sample[{index}].value"),
                format!(
                    "sample has {} values but the profile has {} sample types",
                    values.len(),
                    scale.len()
                ),
            ));
        }
        let node = match ids.split_first() {
            None => NodeId::ROOT,
            Some((&leaf, callers)) => {
                let hash = CallerCache::hash(callers);
                let caller = match self.callers.get(hash, callers) {
                    // Known callers were checked when first met.
                    Some(node) => node,
                    None => {
                        let node = self.walk_callers(tree, index, ids)?;
                        self.callers.insert(hash, callers, node);
                        node
                    }
                };
                let location = self.location(index, 0, leaf)?;
                walk(tree, caller, self.dict, location)
            }
        };
        for (m, (&raw, &factor)) in values.iter().zip(scale).enumerate() {
            tree.add_self(node, m, raw as f64 * factor);
        }
        Ok(())
    }

    /// Checks every location of a sample (last first, so the error names
    /// the last unknown one, as always) and walks the callers from the root.
    fn walk_callers(
        &mut self,
        tree: &mut CallTree,
        index: usize,
        ids: &[u64],
    ) -> Result<NodeId, ParseError> {
        self.stack.clear();
        for (j, &id) in ids.iter().enumerate().rev() {
            let location = self.location(index, j, id)?;
            self.stack.push(location);
        }
        let callers = &self.stack[..self.stack.len() - 1];
        Ok(callers
            .iter()
            .fold(NodeId::ROOT, |n, &loc| walk(tree, n, self.dict, loc)))
    }

    /// The location number of `id`, `location_id[j]` of sample `index`.
    #[inline]
    fn location(&self, index: usize, j: usize, id: u64) -> Result<u32, ParseError> {
        self.dict.locations.get(id).ok_or_else(|| {
            ParseError::field(
                format!("sample[{index}].location_id[{j}]"),
                format!("location id {id} does not exist"),
            )
        })
    }
}

/// The node reached from `node` through the frames of location number
/// `location`.
#[inline]
fn walk(tree: &mut CallTree, node: NodeId, dict: &Dictionary, location: u32) -> NodeId {
    let (start, end) = dict.runs[location as usize];
    dict.expanded[start as usize..end as usize]
        .iter()
        .fold(node, |n, &f| tree.child(n, f))
}

/// Caller lists already walked (location ids as the file has them, leaf
/// side first) and the node each leads to, by a 64-bit hash of the list.
/// Keys live in one arena as 32-bit ids; lists with a larger id, lists met
/// when the arena is full and the rare second list with a known hash are
/// not kept, only walked every time.
#[derive(Default)]
struct CallerCache {
    slots: FxHashMap<u64, Slot>,
    keys: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Slot {
    start: u32,
    len: u32,
    node: NodeId,
}

impl CallerCache {
    #[inline]
    fn hash(callers: &[u64]) -> u64 {
        let mut hasher = FxHasher::default();
        for &id in callers {
            hasher.write_u64(id);
        }
        hasher.finish()
    }

    #[inline]
    fn get(&self, hash: u64, callers: &[u64]) -> Option<NodeId> {
        if callers.is_empty() {
            return Some(NodeId::ROOT);
        }
        let slot = self.slots.get(&hash)?;
        let key = &self.keys[slot.start as usize..(slot.start + slot.len) as usize];
        let same = key.len() == callers.len()
            && key.iter().zip(callers).all(|(&k, &id)| u64::from(k) == id);
        same.then_some(slot.node)
    }

    fn insert(&mut self, hash: u64, callers: &[u64], node: NodeId) {
        let fits = self.keys.len() + callers.len() <= CACHE_CAPACITY
            && callers.iter().all(|&id| id <= u64::from(u32::MAX));
        if !fits || callers.is_empty() {
            return;
        }
        if let std::collections::hash_map::Entry::Vacant(e) = self.slots.entry(hash) {
            e.insert(Slot {
                start: self.keys.len() as u32,
                len: callers.len() as u32,
                node,
            });
            self.keys.extend(callers.iter().map(|&id| id as u32));
        }
    }
}

/// The partial trees merged in chunk order.
fn merge(partials: Vec<Chunk>, dict: &Dictionary) -> CallTree {
    let mut partials = partials.into_iter();
    let Some(first) = partials.next() else {
        return CallTree::bounded(dict.metrics.len());
    };
    let mut tree = first.tree;
    let identity: Vec<FrameId> = (0..dict.frames.len() as u32).map(FrameId).collect();
    for chunk in partials {
        tree.absorb(&chunk.tree, &identity);
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `samples` samples spread evenly over `len` bytes.
    fn spans(len: usize, samples: usize) -> SampleSpans {
        let bookmarks = (0..samples)
            .step_by(crate::pprof::outline::BOOKMARK_EVERY)
            .map(|i| (i * (len / samples), i))
            .collect();
        SampleSpans {
            count: samples,
            bookmarks,
            end: len,
        }
    }

    fn chunk_count(threads: usize, len: usize) -> usize {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        pool.install(|| chunks(len, &spans(len, 2_000_000)).len())
    }

    #[test]
    fn a_big_profile_is_read_in_as_many_parts_as_its_partial_trees_afford() {
        // Small files: one part a thread, at most MAX_CHUNKS.
        assert_eq!(chunk_count(2, 50 << 20), 2);
        assert_eq!(chunk_count(8, 50 << 20), 8);
        assert_eq!(chunk_count(16, 50 << 20), MAX_CHUNKS);
        // Big ones: as many partial trees as 256 MiB holds at a third of
        // the file each, whatever the cores (at least two).
        assert_eq!(chunk_count(8, 200 << 20), 3);
        assert_eq!(chunk_count(16, 200 << 20), 3);
        assert_eq!(chunk_count(8, 1 << 30), 2);
        assert_eq!(chunk_count(2, 1 << 30), 2);
    }
}
