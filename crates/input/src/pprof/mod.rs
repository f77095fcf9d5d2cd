//! pprof `profile.proto` input, as written by Go's `runtime/pprof`,
//! `net/http/pprof`, pprof-rs, py-spy and others. The caller has already
//! undone gzip; this parser reads the raw protobuf.
//!
//! Field numbers follow
//! <https://github.com/google/pprof/blob/main/proto/profile.proto>. Files of a
//! gigabyte are common (long or fleet-wide profiles), so the protobuf is
//! read in place, never decoded into one message:
//!
//! * [`wire`]: the wire format, with prost's rules and error texts;
//! * [`outline`]: first pass, everything but the samples;
//! * [`dictionary`]: mappings, functions and locations checked and expanded
//!   into frames;
//! * [`samples`]: second pass, the samples streamed into the call tree on
//!   every core, from the buffer or from the file read again ([`Staged`]);
//! * [`mod@split`]: a big file's samples stepped over as it is read, the rest
//!   kept for the first pass ([`stage_split`]), so it is never held whole;
//! * [`pb`]: the message structs, for building profiles in tests.
//!
//! * Every sample type becomes a [`model::Metric`], in file order (the
//!   `default_sample_type` is not moved to the front). Time units other than
//!   nanoseconds are scaled to nanoseconds.
//! * A sample's `location_id` list is leaf-first; stacks are built root-first.
//!   A location with several `line` entries (inlined calls) lists the
//!   innermost first, so it expands to outermost-first frames.
//! * A location without lines becomes a frame named after its mapping's file
//!   and the address's offset in that file (`libc.so.6+0x1234`), or the bare
//!   address (`0x1234`) without a mapping.
//! * A function is one frame whatever line a sample was taken at (as
//!   `go tool pprof` shows functions unless given `-lines`): each context's
//!   self values go to the profile's line table on the `Line.line` they
//!   were sampled at, and the frame's line is the function's `start_line`
//!   (see [`model::fold_sampled_lines`]).
//! * Negative values are kept. pprof has no sample timeline.
//!
//! Strings are read as bytes and decoded lossily (invalid UTF-8 becomes
//! U+FFFD) so a stray byte in a symbol name does not fail the file.

mod dictionary;
mod outline;
pub mod pb;
#[cfg(test)]
mod reference;
mod samples;
mod split;
mod wire;

pub use samples::{Buffer, Source};
pub use split::{split, Split};

use super::{text, Format, Input, Parsed, Unfinished};
use model::error::ParseError;
use model::{FrameTable, Profile};
// The tests (tests.rs) name these through `super::*`.
#[cfg(test)]
use model::{Frame, Metric, Unit};

pub struct Pprof;

impl Format for Pprof {
    fn name(&self) -> &'static str {
        "pprof"
    }

    fn sniff(&self, input: &Input) -> bool {
        let head = super::head(input.bytes, 4096);
        starts_with_value_type(head) || (has_pprof_extension(input.file_name) && looks_binary(head))
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        read(input.bytes)
    }

    fn parse_unfinished(&self, input: &Input) -> Result<Unfinished, ParseError> {
        read_unfinished(input.bytes)
    }
}

/// The top-level fields before the first `sample_type` (field 1) are only
/// the scalar header fields `time_nanos` (9), `duration_nanos` (10),
/// `period_type` (11, a `ValueType`) and `period` (12), each well-formed,
/// and that `sample_type` is a well-formed `ValueType`. Encoders that write
/// fields in number order start with `sample_type`; Go's `runtime/pprof`
/// starts a CPU profile with `time_nanos` and a heap profile with
/// `period_type` and `period`.
fn starts_with_value_type(head: &[u8]) -> bool {
    let mut rest = head;
    // At most one of each header field before the first sample_type.
    for _ in 0..5 {
        let Some((&tag, body)) = rest.split_first() else {
            return false;
        };
        rest = match tag {
            0x0a => return value_type_len(body).is_some(),
            0x5a => match value_type_len(body) {
                Some(used) => &body[used..],
                None => return false,
            },
            0x48 | 0x50 | 0x60 => match read_varint(body) {
                Some((_, used)) => &body[used..],
                None => return false,
            },
            _ => return false,
        };
    }
    false
}

/// The bytes taken by a length-delimited `ValueType` (its length varint and
/// body) at the start of `bytes`, when it looks like one: two small varints,
/// at most 22 bytes, the first being `type` (1) or `unit` (2).
fn value_type_len(bytes: &[u8]) -> Option<usize> {
    let (len, used) = read_varint(bytes)?;
    let body = &bytes[used..];
    ((2..=22).contains(&len)
        && len as usize <= body.len()
        && matches!(body.first(), Some(0x08 | 0x10)))
    // Lazily: `len` may be near u64::MAX when the checks fail.
    .then(|| used + len as usize)
}

/// A protobuf varint at the start of `bytes`: its value and length.
fn read_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some((value, i + 1));
        }
    }
    None
}

fn has_pprof_extension(file_name: &str) -> bool {
    let lower = file_name.to_ascii_lowercase();
    [".pb", ".pprof", ".prof"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// True when `head` is neither UTF-8 nor UTF-16 text. A multi-byte character
/// cut off at the end of the head does not count as invalid.
fn looks_binary(head: &[u8]) -> bool {
    if text::is_utf16(head) {
        return false;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        Err(e) => e.error_len().is_some(),
    }
}

/// Reads a raw (not gzipped) profile.
fn read(bytes: &[u8]) -> Result<Parsed, ParseError> {
    read_unfinished(bytes).map(Unfinished::finish)
}

/// A raw profile read whole, as [`Pprof`] reads it once sniffed (for the
/// fuzz target comparing it with the profile read [`split()`]).
pub fn read_whole(bytes: &[u8]) -> Result<Parsed, ParseError> {
    read(bytes)
}

/// The profile of `bytes`, one frame per line of a location, with the
/// line fold and what follows it ([`finish`]) left to do.
fn read_unfinished(bytes: &[u8]) -> Result<Unfinished, ParseError> {
    stage(bytes)?.read_samples(&samples::Buffer(bytes))
}

/// A profile read but for its samples: what the second pass reads them
/// against and where they are. It holds nothing of the bytes, so a loader
/// can free them and let the samples be read from the file again
/// ([`Staged::read_samples`]): a big profile's bytes and its call tree are
/// then never held at once.
pub struct Staged {
    spans: outline::SampleSpans,
    dict: dictionary::Dictionary,
    header: crate::ProfileHeader,
}

/// The first pass over `bytes` and the dictionaries it found, checked.
pub fn stage(bytes: &[u8]) -> Result<Staged, ParseError> {
    let outline = outline::read(bytes).map_err(|stopped| {
        // Samples are checked in the second pass: one before the field
        // that stopped the first would have stopped a sequential read.
        not_valid(samples::first_malformed(bytes, stopped.at).unwrap_or(stopped.error))
    })?;
    let dict = dictionary::build(bytes, &outline).map_err(|e| {
        // A malformed sample anywhere comes before a bad reference.
        samples::first_malformed(bytes, bytes.len()).map_or(e, not_valid)
    })?;
    let header = header(bytes, &outline);
    Ok(Staged {
        spans: outline.samples,
        dict,
        header,
    })
}

/// [`stage`] for a profile read as a stream and [`split()`]: the first pass
/// reads the bytes kept, the samples' places are the stream's. `None`
/// when those bytes do not read: the whole file, read again by
/// [`stage`], says why in its own positions.
pub fn stage_split(split: &Split) -> Option<Staged> {
    let mut outline = outline::read(&split.rest).ok()?;
    if outline.samples.count != 0 {
        return None;
    }
    outline.samples = split.samples.clone();
    let dict = dictionary::build(&split.rest, &outline).ok()?;
    let header = header(&split.rest, &outline);
    Some(Staged {
        spans: outline.samples,
        dict,
        header,
    })
}

impl Staged {
    /// The samples read from `source` (the bytes [`stage`] was given, or
    /// the same bytes again) into the profile.
    pub fn read_samples(self, source: &dyn Source) -> Result<Unfinished, ParseError> {
        self.read_samples_in_segments(source, samples::SEGMENT_BYTES)
    }

    fn read_samples_in_segments(
        self,
        source: &dyn Source,
        segment_bytes: usize,
    ) -> Result<Unfinished, ParseError> {
        let Staged {
            spans,
            dict,
            header,
        } = self;
        let tree =
            samples::tree(source, &spans, &dict, segment_bytes).map_err(
                |failure| match failure {
                    samples::Failure::Malformed(e) => not_valid(e),
                    samples::Failure::Invalid(e) => e,
                },
            )?;
        drop(spans);
        let inlined = inlined_calls(&tree, &dict);
        let mut profile = Profile::new(dict.metrics);
        profile.tree = tree;
        profile.inlined = inlined;
        let parsed = Parsed {
            frames: dict.frames,
            profile,
            warnings: dict.warnings,
            header,
        };
        Ok(Unfinished::then(parsed, finish))
    }
}

/// One frame per function, then the allocation sites of a heap profile.
fn finish(parsed: Parsed) -> Parsed {
    let mut parsed = crate::fold_lines(parsed);
    record_heap_allocations(&mut parsed.profile, &parsed.frames);
    parsed
}

/// Per node, whether its call from its parent was inlined: the two frames
/// are lines of one location (pprof's `(inline)`). A pair of frames (each
/// at its line) is inlined wherever it occurs: the same call site is not
/// both. `None` when no location has several lines.
fn inlined_calls(tree: &model::CallTree, dict: &dictionary::Dictionary) -> Option<Vec<bool>> {
    let mut pairs: std::collections::HashSet<(model::FrameId, model::FrameId)> = Default::default();
    for &(start, end) in &dict.runs {
        let run = &dict.expanded[start as usize..end as usize];
        pairs.extend(run.windows(2).map(|w| (w[0], w[1])));
    }
    if pairs.is_empty() {
        return None;
    }
    let flags = tree
        .node_ids()
        .map(|node| {
            let caller = tree.parent(node).and_then(|p| tree.frame(p));
            match (caller, tree.frame(node)) {
                (Some(caller), Some(callee)) => pairs.contains(&(caller, callee)),
                _ => false,
            }
        })
        .collect();
    Some(flags)
}

/// The header fields an export writes back. The default metric is the
/// sample type `default_sample_type` names, else the last (as pprof's
/// viewers choose). A period whose strings are not in the table is left
/// out (the samples do not depend on it).
fn header(bytes: &[u8], outline: &outline::Outline) -> crate::ProfileHeader {
    let strings = dictionary::Strings::new(bytes, &outline.strings).ok();
    let string = |i: i64| strings.as_ref()?.get(i, String::new).ok();
    let types = &outline.sample_types;
    let named = (outline.default_sample_type != 0)
        .then(|| {
            types
                .iter()
                .position(|t| t.0 == outline.default_sample_type)
        })
        .flatten();
    let (type_index, unit_index) = outline.period_type;
    let period = match (type_index, unit_index, outline.period) {
        (0, 0, 0) => None,
        _ => string(type_index)
            .zip(string(unit_index))
            .map(|(t, u)| (t, u, outline.period)),
    };
    crate::ProfileHeader {
        default_metric: named.or(types.len().checked_sub(1)),
        time_nanos: outline.time_nanos,
        duration_nanos: outline.duration_nanos,
        period,
    }
}

fn not_valid(e: wire::DecodeError) -> ParseError {
    ParseError::whole(format!("not a valid pprof profile: {e}"))
}

/// Heap profiles (Go's `alloc_objects`, `alloc_space`, `inuse_objects`,
/// `inuse_space`, or some of them) record no allocated type: the allocating
/// function stands in for the class. The `inuse_*` values say how much of
/// what a context allocated was still live when the profile was written.
fn record_heap_allocations(profile: &mut Profile, frames: &FrameTable) {
    let find = |name: &str| profile.metrics.iter().position(|m| m.name == name);
    let allocated = (find("alloc_objects"), find("alloc_space"));
    let live = (find("inuse_objects"), find("inuse_space"));
    let (count, bytes) = match allocated {
        (None, None) => live,
        both => both,
    };
    if count.is_some() || bytes.is_some() {
        profile.allocations_by_function(frames, count, bytes, live);
    }
}

#[cfg(test)]
mod tests;
