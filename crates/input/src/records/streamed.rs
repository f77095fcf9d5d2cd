//! A profile's entry written as its record ([`super::CachedProfile`])
//! would be, byte for byte, with the columns of a node each (the tree's
//! nodes and self values) and the frames read from the profile as they
//! are written instead of collected into a record first: on a profile of
//! millions of nodes the record was tens of megabytes held beside the
//! entry's bytes, while the pages were being written.
//!
//! postcard writes a struct as its fields in order and an enum as its
//! variant's index then its value, so these types serialize as the
//! records they mirror (same field order, same variant index; `&str` as
//! `String`, a slice as a `Vec`). A test compares the bytes with the
//! record's on real profiles.
//!
//! The two columns of a node each are written by hand, as postcard writes
//! them (a sequence: its length, then its elements; an integer as a
//! varint, an `f64` as its 8 bytes, little-endian), into a buffer written
//! out a block at a time: postcard hands its writer each varint's bytes
//! one call at a time, and on a 3.2 M-node profile those calls (through
//! the envelope's hashing writer) were most of the entry's encoding, on
//! the build's critical path for a core.

use std::io::Write;

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;

use super::{
    allocations_record, is_whole, metric_record, timeline_record, warning_record,
    CachedAllocations, ProfileParts,
};
use model::LineSelf;
use model::{CallTree, FrameId, NodeId};

/// [`super::Entry::Profile`]'s variant index.
const PROFILE_VARIANT: u32 = 0;

/// [`super::CachedProfile`], field for field.
pub(super) struct ProfileOut<'a, F: Fn(FrameId) -> u32> {
    format: &'a str,
    metrics: Vec<(&'a str, u8, String)>,
    frames: Frames<'a>,
    nodes: Nodes<'a, F>,
    self_values: SelfValues<'a>,
    timeline: Option<Vec<(f64, f64, u32)>>,
    allocations: Option<CachedAllocations>,
    call_counts: Option<&'a [f64]>,
    line_self: Option<Lines<'a>>,
    notes: &'a [String],
    warnings: Vec<(u8, u64, String, String)>,
}

impl<'a, F: Fn(FrameId) -> u32> ProfileOut<'a, F> {
    /// The entry of `parts`, whose tree names its frames by the ids
    /// `local_of` maps to the file's table.
    pub(super) fn of(parts: &'a ProfileParts<'a>, local_of: &'a F) -> ProfileOut<'a, F> {
        let p = parts.profile;
        let tree = &p.tree;
        let metric_count = parts.metrics.min(tree.metric_count());
        ProfileOut {
            format: parts.format,
            metrics: p
                .metrics
                .iter()
                .take(metric_count)
                .map(metric_record)
                .collect(),
            frames: Frames(&parts.frames),
            nodes: Nodes { tree, local_of },
            self_values: SelfValues { tree, metric_count },
            timeline: p.timeline.as_ref().map(timeline_record),
            allocations: p.allocations.as_deref().map(allocations_record),
            call_counts: p.call_counts.as_deref(),
            line_self: p.line_self.as_ref().map(Lines),
            notes: &p.notes,
            warnings: parts.warnings.iter().map(warning_record).collect(),
        }
    }

    /// Writes the entry ([`super::Entry::Profile`] of this record) to `out`.
    pub(super) fn write_entry(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut columns = Varints::new(out);
        columns.varint(u64::from(PROFILE_VARIANT))?;
        columns.flush()?;
        to_io(
            &(self.format, &self.metrics, &self.frames),
            &mut columns.out,
        )?;
        self.nodes.write(&mut columns)?;
        self.self_values.write(&mut columns)?;
        columns.flush()?;
        let rest = (
            &self.timeline,
            &self.allocations,
            self.call_counts,
            &self.line_self,
            self.notes,
            &self.warnings,
        );
        to_io(&rest, &mut columns.out)
    }
}

/// The frames as [`super::FrameRecord`]s.
struct Frames<'a>(&'a [&'a model::Frame]);

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|f| {
            (
                f.function.as_str(),
                f.file.as_deref(),
                f.line,
                f.module.as_deref(),
                (f.start_line, f.start_column),
                f.source_hash.as_deref(),
                f.full_name.as_deref(),
            )
        }))
    }
}

/// (frame, node id − parent id) of every node after the root, in node
/// order.
struct Nodes<'a, F> {
    tree: &'a CallTree,
    local_of: &'a F,
}

impl<F: Fn(FrameId) -> u32> Nodes<'_, F> {
    /// As a `Vec<(u32, u32)>` of them serializes.
    fn write(&self, out: &mut Varints<impl Write>) -> std::io::Result<()> {
        let tree = self.tree;
        out.varint(tree.len().saturating_sub(1) as u64)?;
        for n in tree.node_ids().skip(1) {
            let frame = tree.frame(n).map_or(0, self.local_of);
            out.varint(u64::from(frame))?;
            out.varint(u64::from(n.0 - tree.parent(n).unwrap_or(NodeId::ROOT).0))?;
        }
        Ok(())
    }
}

/// [`super::Numbers`] of the tree's self values, node-major, the root
/// first: whole numbers when every one is.
struct SelfValues<'a> {
    tree: &'a CallTree,
    metric_count: usize,
}

impl SelfValues<'_> {
    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        let (tree, metrics) = (self.tree, self.metric_count);
        tree.node_ids()
            .flat_map(move |n| (0..metrics).map(move |m| tree.self_value(n, m)))
    }
}

impl SelfValues<'_> {
    /// As [`super::Numbers`] of them serializes: `Whole` (variant 0, a
    /// varint each) when every value is a whole number, else `Any`
    /// (variant 1, 8 bytes each).
    /// (A tree of one metric is read as its column of values.)
    fn write(&self, out: &mut Varints<impl Write>) -> std::io::Result<()> {
        let len = self.tree.len() * self.metric_count;
        match self
            .tree
            .only_self_column()
            .filter(|_| self.metric_count == 1)
        {
            Some(column) => write_numbers(out, len, || column.iter().copied()),
            None => write_numbers(out, len, || self.values()),
        }
    }
}

/// The `len` values `values` gives as [`super::Numbers`] of them.
fn write_numbers<I: Iterator<Item = f64>>(
    out: &mut Varints<impl Write>,
    len: usize,
    values: impl Fn() -> I,
) -> std::io::Result<()> {
    let whole = values().all(is_whole);
    out.varint(if whole { 0 } else { 1 })?;
    out.varint(len as u64)?;
    for v in values() {
        match whole {
            true => out.varint(v as u64)?,
            false => out.bytes(&v.to_le_bytes())?,
        }
    }
    Ok(())
}

/// A line table as [`super::CachedLines`]: its metric count, its (node,
/// line) keys, then its values a row each, whole numbers when all are.
struct Lines<'a>(&'a LineSelf);

impl Serialize for Lines<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let table = self.0;
        let values = || table.iter().flat_map(|(_, _, v)| v.iter().copied());
        let len = table.len() * table.metric_count();
        let mut record = serializer.serialize_struct("CachedLines", 3)?;
        record.serialize_field("metrics", &(table.metric_count() as u32))?;
        let keys = Column(table.len(), || table.iter().map(|(n, line, _)| (n.0, line)));
        record.serialize_field("keys", &keys)?;
        match values().all(is_whole) {
            true => record.serialize_field(
                "values",
                &Variant(0, "Whole", Column(len, || values().map(|v| v as u64))),
            )?,
            false => record.serialize_field("values", &Variant(1, "Any", Column(len, values)))?,
        }
        record.end()
    }
}

/// A value as the variant `index` of [`super::Numbers`] holding it.
struct Variant<T>(u32, &'static str, T);

impl<T: Serialize> Serialize for Variant<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_variant("Numbers", self.0, self.1, &self.2)
    }
}

/// `len` values, as a `Vec` of them serializes.
struct Column<G>(usize, G);

impl<T: Serialize, I: Iterator<Item = T>, G: Fn() -> I> Serialize for Column<G> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0))?;
        for v in (self.1)() {
            seq.serialize_element(&v)?;
        }
        seq.end()
    }
}

/// `value` as postcard writes it, to `out`.
fn to_io(value: &impl Serialize, out: &mut impl Write) -> std::io::Result<()> {
    postcard::to_io(value, out)
        .map(drop)
        .map_err(|e| std::io::Error::other(e.to_string()))
}

/// Bytes gathered in a buffer and written to `out` a block at a time.
struct Varints<W> {
    out: W,
    buffer: Vec<u8>,
}

/// Bytes gathered before they are written.
const BLOCK: usize = 64 << 10;

impl<W: Write> Varints<W> {
    fn new(out: W) -> Varints<W> {
        Varints {
            out,
            buffer: Vec::with_capacity(BLOCK + 16),
        }
    }

    /// `v` as postcard writes an unsigned integer: 7 bits a byte, the
    /// lowest first, the top bit set on every byte but the last.
    fn varint(&mut self, mut v: u64) -> std::io::Result<()> {
        while v >= 0x80 {
            self.buffer.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.buffer.push(v as u8);
        self.written()
    }

    fn bytes(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.buffer.extend_from_slice(bytes);
        self.written()
    }

    fn written(&mut self) -> std::io::Result<()> {
        match self.buffer.len() >= BLOCK {
            true => self.flush(),
            false => Ok(()),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.write_all(&self.buffer)?;
        self.buffer.clear();
        Ok(())
    }
}
