//! Second pass: the samples, streamed from the buffer into the call tree.
//!
//! * No sample is ever held: each is decoded into two reused buffers
//!   (location ids, values), checked, added to the tree and forgotten.
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
use super::outline::Outline;
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

/// What reading the samples can fail with.
pub enum Failure {
    /// A sample is not well-formed protobuf.
    Malformed(DecodeError),
    /// A sample refers to something missing, or has the wrong number of
    /// values.
    Invalid(ParseError),
}

/// Builds the call tree of all samples.
pub fn tree(bytes: &[u8], outline: &Outline, dict: &Dictionary) -> Result<CallTree, Failure> {
    let chunks = chunks(bytes.len(), outline);
    let mut partials: Vec<Chunk> = chunks
        .par_iter()
        .map(|&(start, end, first)| read_chunk(bytes, start, end, first, dict))
        .collect();
    if let Some(e) = partials.iter_mut().find_map(|c| c.malformed.take()) {
        return Err(Failure::Malformed(e));
    }
    if let Some(e) = partials.iter_mut().find_map(|c| c.invalid.take()) {
        return Err(Failure::Invalid(e));
    }
    if partials.len() > 1 && partials.iter().any(|c| c.tree.over_limit().is_some()) {
        // Which limit a sequential read meets first depends on the order:
        // read again in one piece (the file is rejected either way).
        let whole = (chunks[0].0, bytes.len(), 0);
        partials = vec![read_chunk(bytes, whole.0, whole.1, whole.2, dict)];
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
/// about equal size, starting at bookmarks.
fn chunks(len: usize, outline: &Outline) -> Vec<(usize, usize, usize)> {
    let Some(&(first_pos, _)) = outline.bookmarks.first() else {
        return Vec::new();
    };
    let affordable = (PARTIAL_TREES_BUDGET / (len / 3).max(1)).max(2);
    let wanted = rayon::current_num_threads()
        .min(MAX_CHUNKS)
        .min(affordable)
        .min(outline.sample_count / MIN_CHUNK_SAMPLES)
        .max(1);
    let span = len - first_pos;
    let mut starts = vec![outline.bookmarks[0]];
    for c in 1..wanted {
        let target = first_pos + span / wanted * c;
        let next = outline.bookmarks.partition_point(|&(pos, _)| pos < target);
        if let Some(&b) = outline.bookmarks.get(next) {
            if starts.last().is_some_and(|last| b.0 > last.0) {
                starts.push(b);
            }
        }
    }
    let ends = starts.iter().skip(1).map(|&(pos, _)| pos).chain([len]);
    starts
        .iter()
        .zip(ends)
        .map(|(&(start, first), end)| (start, end, first))
        .collect()
}

/// The tree of one chunk and the first problems met in it.
struct Chunk {
    tree: CallTree,
    malformed: Option<DecodeError>,
    invalid: Option<ParseError>,
}

fn read_chunk(bytes: &[u8], start: usize, end: usize, first: usize, dict: &Dictionary) -> Chunk {
    let mut builder = Builder::new(dict);
    let mut chunk = Chunk {
        tree: CallTree::bounded(dict.metrics.len()),
        malformed: None,
        invalid: None,
    };
    let mut r = Reader::at(bytes, start);
    let mut ids = Vec::new();
    let mut values = Vec::new();
    let mut index = first;
    while r.pos() < end {
        let at = r.pos();
        let step = r.key().and_then(|(tag, wire)| {
            if tag != 2 {
                return r.skip(wire, tag, RECURSION_LIMIT).map(|_| false);
            }
            ids.clear();
            values.clear();
            sample(&mut r, wire, &mut ids, &mut values)
                .map_err(|e| e.within("Profile", "sample"))
                .map(|_| true)
        });
        match step {
            Err(e) => {
                chunk.malformed = Some(e);
                break;
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
    chunk
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

    /// An outline of `samples` samples spread evenly over `len` bytes.
    fn outline(len: usize, samples: usize) -> Outline {
        let bookmarks = (0..samples)
            .step_by(crate::pprof::outline::BOOKMARK_EVERY)
            .map(|i| (i * (len / samples), i))
            .collect();
        Outline {
            sample_count: samples,
            bookmarks,
            ..Outline::default()
        }
    }

    fn chunk_count(threads: usize, len: usize) -> usize {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        pool.install(|| chunks(len, &outline(len, 2_000_000)).len())
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
