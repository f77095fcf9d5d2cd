//! What a parsed input file gave, as bytes and back: the encoding shared by
//! the build cache (one entry per file, in `SITE/.perfatlas-cache`) and by
//! archives' optional records part (`crate::digest::parsed`).
//!
//! An entry starts with a magic string, the encoding's version, the
//! perfatlas version and an XXH3-64 checksum of its payload; the payload is
//! postcard (a compact serde format) of plain records that mirror the
//! model: frames as tuples, the tree as (frame, distance back to the
//! parent) pairs in node order (replaying them rebuilds the same node ids;
//! a parent is most often the node just before, one varint byte), self
//! values (as varints when all are whole numbers: a third of the bytes of
//! a large profile's entry), timeline,
//! allocation sites, line self values, notes, warnings. [`decode`] gives `None` for an entry
//! that is short, of another version, or whose checksum or decoding fails.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::measurements::{self, Reduced, ReducedBenchmark};
use crate::{Loaded, Parsed};
use model::error::{ParseError, Place};
use model::{
    Allocations, ClassSource, CountKind, Frame, FrameId, FrameTable, LineSelf, Metric, NodeId,
    Profile, RunMeans, Timeline, TimelineSample, Unit,
};

/// Bumped whenever the encoding or what a parser produces changes (9:
/// profiles keep their line self values, V8's `positionTicks`).
pub const FORMAT: u32 = 9;
const MAGIC: &[u8; 8] = b"PACACHE\n";

#[derive(Serialize, Deserialize)]
enum Entry {
    Profile(CachedProfile),
    Measurements(CachedMeasurements),
}

/// (function, file, line, module, (start_line, start_column), source_hash,
/// full_name)
type FrameRecord = (
    String,
    Option<String>,
    Option<u32>,
    Option<String>,
    (Option<u32>, Option<u32>),
    Option<String>,
    Option<String>,
);
/// (name length, unit, note, runs, samples, in_process, multi_sample) of
/// one measured benchmark: its name and run means follow the previous
/// benchmark's in the file's `names` and `run_means`; unit and note index
/// the file's tables.
type MeasuredRecord = (u64, u32, u32, u64, u64, bool, bool);
/// (node, class, count, bytes, live count, live bytes)
type SiteRecord = (u32, u32, f64, f64, Option<f64>, Option<f64>);

#[derive(Serialize, Deserialize)]
struct CachedProfile {
    format: String,
    metrics: Vec<(String, u8, String)>,
    frames: Vec<FrameRecord>,
    /// (frame, node id − parent id) of every node after the root, in
    /// node order.
    nodes: Vec<(u32, u32)>,
    /// Node-major, the root first.
    self_values: Numbers,
    timeline: Option<Vec<(f64, f64, u32)>>,
    allocations: Option<CachedAllocations>,
    call_counts: Option<Vec<f64>>,
    line_self: Option<CachedLines>,
    notes: Vec<String>,
    warnings: Vec<(u8, u64, String, String)>,
}

/// A [`model::LineSelf`]: (node, line) of each entry in table order, and
/// `metrics` values per entry, entry-major.
#[derive(Serialize, Deserialize)]
struct CachedLines {
    metrics: u32,
    keys: Vec<(u32, u32)>,
    values: Numbers,
}

/// Values as whole numbers (postcard varints) when every one is a whole
/// number an f64 holds exactly (counts of samples, bytes, nanoseconds),
/// else as they are.
#[derive(Serialize, Deserialize)]
enum Numbers {
    Whole(Vec<u64>),
    Any(Vec<f64>),
}

impl Numbers {
    /// The test oracle's ([`profile_record`]); entries are written by
    /// [`streamed`].
    #[cfg(test)]
    fn of(values: Vec<f64>) -> Numbers {
        match values.iter().all(|&v| is_whole(v)) {
            true => Numbers::Whole(values.iter().map(|&v| v as u64).collect()),
            false => Numbers::Any(values),
        }
    }

    fn into_values(self) -> Vec<f64> {
        match self {
            Numbers::Whole(v) => v.into_iter().map(|n| n as f64).collect(),
            Numbers::Any(v) => v,
        }
    }
}

/// 2^53: every whole number up to it is exact in an f64.
const MAX_WHOLE: f64 = 9_007_199_254_740_992.0;

/// Whether `v` is kept as a whole number ([`Numbers::Whole`]).
fn is_whole(v: f64) -> bool {
    (0.0..=MAX_WHOLE).contains(&v) && (v as u64 as f64).to_bits() == v.to_bits()
}

#[derive(Serialize, Deserialize)]
struct CachedAllocations {
    classes: Vec<String>,
    sites: Vec<SiteRecord>,
    count_kind: u8,
    bytes_known: bool,
    bytes_note: Option<String>,
    by_function: bool,
    calls: Option<Vec<f64>>,
    call_order: bool,
}

#[derive(Serialize, Deserialize)]
struct CachedMeasurements {
    format: String,
    units: Vec<String>,
    notes: Vec<String>,
    names: String,
    run_means: Vec<f64>,
    benchmarks: Vec<MeasuredRecord>,
    /// (benchmark index, low, high) of the benchmarks with a recorded
    /// interval (few files have any).
    intervals: Vec<(u32, f64, f64)>,
    warnings: Vec<(u8, u64, String, String)>,
}

/// `loaded` as an entry.
pub fn encode(loaded: &Loaded) -> Vec<u8> {
    match loaded {
        Loaded::Profile(format, parsed) => {
            encode_profile(ProfileParts::of(format, parsed), |f| f.0)
        }
        Loaded::Measurements(m) => framed_entry(&Entry::Measurements(measurements_record(m))),
    }
}

/// What a profile's entry is made of: the file's own frames in its order, the
/// profile (its first `metrics` metrics: those its parser gave, before
/// derived metrics were added) and the warnings its parser gave.
pub struct ProfileParts<'a> {
    pub format: &'a str,
    pub frames: Vec<&'a Frame>,
    pub profile: &'a Profile,
    pub metrics: usize,
    pub warnings: &'a [ParseError],
}

impl<'a> ProfileParts<'a> {
    fn of(format: &'a str, parsed: &'a Parsed) -> ProfileParts<'a> {
        ProfileParts {
            format,
            frames: parsed.frames.iter().map(|(_, f)| f).collect(),
            profile: &parsed.profile,
            metrics: parsed.profile.metrics.len(),
            warnings: &parsed.warnings,
        }
    }
}

/// The entry of a profile whose tree names frames by other ids than its
/// file's frame table (the history's, once loaded): `local_of` gives the
/// table's id of each frame the tree names. The bytes are those
/// [`encode`] gives for the profile as its parser returned it.
pub fn encode_profile(parts: ProfileParts, local_of: impl Fn(FrameId) -> u32) -> Vec<u8> {
    let entry = streamed::ProfileOut::of(&parts, &local_of);
    let mut size = crate::text::CountingSink(0);
    if entry.write_entry(&mut size).is_err() {
        return Vec::new();
    }
    crate::envelope::framed_by(MAGIC, FORMAT, size.0 as usize, |mut out| {
        entry.write_entry(&mut out).ok()?;
        Some(out)
    })
}

/// [`encode_profile`] written to `file` as it is encoded: a big profile's
/// entry is never held in memory.
pub fn write_profile(
    parts: &ProfileParts,
    local_of: impl Fn(FrameId) -> u32,
    file: &mut std::fs::File,
) -> std::io::Result<()> {
    let entry = streamed::ProfileOut::of(parts, &local_of);
    crate::envelope::write_framed(MAGIC, FORMAT, file, |mut out| entry.write_entry(&mut out))
}

/// The entry's bytes, encoded straight behind the envelope's header into
/// a vector of their exact size: a big profile's entry is held once, not
/// also in a vector grown by doubling and then copied. Empty when the
/// entry cannot be encoded (it then reads as no entry).
fn framed_entry(entry: &impl Serialize) -> Vec<u8> {
    let size = postcard::experimental::serialized_size(entry).unwrap_or(0);
    crate::envelope::framed_by(MAGIC, FORMAT, size, |out| {
        postcard::to_extend(entry, out).ok()
    })
}

/// The entry's contents, `None` when it cannot be trusted.
pub fn decode(bytes: &[u8]) -> Option<Loaded> {
    let payload = crate::envelope::unframed(MAGIC, FORMAT, bytes).ok()?;
    match postcard::from_bytes::<Entry>(payload).ok()? {
        Entry::Profile(p) => rebuild_profile(p),
        Entry::Measurements(m) => rebuild_measurements(m),
    }
}

fn unit_record(unit: &Unit) -> (u8, String) {
    match unit {
        Unit::Samples => (0, String::new()),
        Unit::Nanoseconds => (1, String::new()),
        Unit::Bytes => (2, String::new()),
        Unit::Objects => (3, String::new()),
        Unit::Count => (4, String::new()),
        Unit::Other(s) => (5, s.clone()),
    }
}

fn unit_of(tag: u8, other: String) -> Option<Unit> {
    Some(match tag {
        0 => Unit::Samples,
        1 => Unit::Nanoseconds,
        2 => Unit::Bytes,
        3 => Unit::Objects,
        4 => Unit::Count,
        5 => Unit::Other(other),
        _ => return None,
    })
}

pub(crate) fn warning_record(e: &ParseError) -> (u8, u64, String, String) {
    let (tag, n, text) = match &e.place {
        Place::Whole => (0, 0, String::new()),
        Place::Line(n) => (1, *n as u64, String::new()),
        Place::Byte(n) => (2, *n, String::new()),
        Place::Json(p) => (3, 0, p.clone()),
        Place::Field(p) => (4, 0, p.clone()),
    };
    (tag, n, text, e.message.clone())
}

pub(crate) fn warning_of((tag, n, text, message): (u8, u64, String, String)) -> Option<ParseError> {
    let place = match tag {
        0 => Place::Whole,
        1 => Place::Line(usize::try_from(n).ok()?),
        2 => Place::Byte(n),
        3 => Place::Json(text),
        4 => Place::Field(text),
        _ => return None,
    };
    Some(ParseError::new(place, message))
}

/// A metric's (name, unit tag, other unit's name).
fn metric_record(m: &Metric) -> (&str, u8, String) {
    let (tag, other) = unit_record(&m.unit);
    (m.name.as_str(), tag, other)
}

/// A timeline's (start, duration, node) per sample.
fn timeline_record(t: &Timeline) -> Vec<(f64, f64, u32)> {
    t.samples
        .iter()
        .map(|s| (s.start_ns, s.duration_ns, s.node.0))
        .collect()
}

#[cfg(test)]
fn profile_record(parts: ProfileParts, local_of: impl Fn(FrameId) -> u32) -> CachedProfile {
    let p = parts.profile;
    let tree = &p.tree;
    let metric_count = parts.metrics.min(tree.metric_count());
    CachedProfile {
        format: parts.format.to_string(),
        metrics: p
            .metrics
            .iter()
            .take(metric_count)
            .map(metric_record)
            .map(|(name, tag, other)| (name.to_string(), tag, other))
            .collect(),
        frames: parts
            .frames
            .iter()
            .map(|f| {
                (
                    f.function.clone(),
                    f.file.clone(),
                    f.line,
                    f.module.clone(),
                    (f.start_line, f.start_column),
                    f.source_hash.clone(),
                    f.full_name.clone(),
                )
            })
            .collect(),
        nodes: tree
            .node_ids()
            .skip(1)
            .map(|n| {
                let frame = tree.frame(n).map_or(0, &local_of);
                (frame, n.0 - tree.parent(n).unwrap_or(NodeId::ROOT).0)
            })
            .collect(),
        self_values: Numbers::of(
            tree.node_ids()
                .flat_map(|n| (0..metric_count).map(move |m| tree.self_value(n, m)))
                .collect(),
        ),
        timeline: p.timeline.as_ref().map(timeline_record),
        allocations: p.allocations.as_deref().map(allocations_record),
        call_counts: p.call_counts.clone(),
        line_self: p.line_self.as_ref().map(lines_record),
        notes: p.notes.clone(),
        warnings: parts.warnings.iter().map(warning_record).collect(),
    }
}

#[cfg(test)]
fn lines_record(table: &LineSelf) -> CachedLines {
    CachedLines {
        metrics: table.metric_count() as u32,
        keys: table.iter().map(|(n, line, _)| (n.0, line)).collect(),
        values: Numbers::of(table.iter().flat_map(|(_, _, v)| v.to_vec()).collect()),
    }
}

/// The table of `c`, when its nodes are among `nodes` and its values fit.
fn rebuild_lines(c: CachedLines, nodes: u32, metric_count: usize) -> Option<LineSelf> {
    let metrics = c.metrics as usize;
    let values = c.values.into_values();
    let fits = metrics <= metric_count
        && values.len() == c.keys.len().checked_mul(metrics)?
        && c.keys.iter().all(|&(n, _)| n < nodes);
    if !fits {
        return None;
    }
    let entries = c
        .keys
        .iter()
        .enumerate()
        .map(|(i, &(n, line))| (NodeId(n), line, &values[i * metrics..(i + 1) * metrics]));
    Some(LineSelf::from_entries(metrics, entries))
}

fn allocations_record(a: &Allocations) -> CachedAllocations {
    CachedAllocations {
        classes: a.classes.clone(),
        sites: a
            .sites
            .iter()
            .map(|s| {
                (
                    s.node.0,
                    s.class,
                    s.count,
                    s.bytes,
                    s.live_count,
                    s.live_bytes,
                )
            })
            .collect(),
        count_kind: match a.count_kind {
            CountKind::Objects => 0,
            CountKind::Samples => 1,
            CountKind::Unknown => 2,
        },
        bytes_known: a.bytes_known,
        bytes_note: a.bytes_note.clone(),
        by_function: a.class_source == ClassSource::AllocatingFunction,
        calls: a.calls.clone(),
        call_order: a.call_order,
    }
}

fn rebuild_profile(c: CachedProfile) -> Option<Loaded> {
    let format = crate::format_named(&c.format)?.name();
    let metrics: Vec<Metric> = c
        .metrics
        .into_iter()
        .map(|(name, tag, other)| Some(Metric::new(name, unit_of(tag, other)?)))
        .collect::<Option<_>>()?;
    let metric_count = metrics.len();
    let mut frames = FrameTable::default();
    let ids: Vec<FrameId> = c
        .frames
        .into_iter()
        .map(
            |(function, file, line, module, (start_line, start_column), source_hash, full_name)| {
                frames.intern(Frame {
                    function,
                    file,
                    line,
                    module,
                    start_line,
                    start_column,
                    source_hash,
                    full_name,
                })
            },
        )
        .collect();
    // Frames were unique when written: they must come back as 0, 1, 2, …
    if ids.iter().enumerate().any(|(i, id)| id.0 as usize != i) {
        return None;
    }
    let mut profile = Profile::new(metrics);
    profile.tree = model::CallTree::new(metric_count);
    for (i, &(frame, back)) in c.nodes.iter().enumerate() {
        let frame = *ids.get(frame as usize)?;
        if back == 0 || back as usize > i + 1 {
            return None; // parents come first
        }
        let parent = (i + 1) as u32 - back;
        let id = profile.tree.child(NodeId(parent), frame);
        if id.index() != i + 1 {
            return None;
        }
    }
    let self_values = c.self_values.into_values();
    if self_values.len() != profile.tree.len() * metric_count {
        return None;
    }
    for (k, &v) in self_values.iter().enumerate() {
        if v != 0.0 {
            profile
                .tree
                .add_self(NodeId((k / metric_count) as u32), k % metric_count, v);
        }
    }
    let nodes = profile.tree.len() as u32;
    if let Some(samples) = c.timeline {
        let samples = samples
            .into_iter()
            .map(|(start_ns, duration_ns, node)| {
                (node < nodes).then_some(TimelineSample {
                    start_ns,
                    duration_ns,
                    node: NodeId(node),
                })
            })
            .collect::<Option<_>>()?;
        profile.timeline = Some(Timeline { samples });
    }
    if let Some(a) = c.allocations {
        profile.allocations = Some(Box::new(rebuild_allocations(a, nodes)?));
    }
    if let Some(calls) = c.call_counts {
        if calls.len() != nodes as usize {
            return None;
        }
        profile.call_counts = Some(calls);
    }
    if let Some(lines) = c.line_self {
        profile.line_self = Some(rebuild_lines(lines, nodes, metric_count)?);
    }
    profile.notes = c.notes;
    let warnings = c
        .warnings
        .into_iter()
        .map(warning_of)
        .collect::<Option<_>>()?;
    Some(Loaded::Profile(
        format,
        Box::new(Parsed {
            frames,
            profile,
            warnings,
            header: Default::default(),
        }),
    ))
}

fn rebuild_allocations(a: CachedAllocations, nodes: u32) -> Option<Allocations> {
    let count_kind = match a.count_kind {
        0 => CountKind::Objects,
        1 => CountKind::Samples,
        2 => CountKind::Unknown,
        _ => return None,
    };
    let source = if a.by_function {
        ClassSource::AllocatingFunction
    } else {
        ClassSource::Recorded
    };
    let mut alloc = Allocations::new(count_kind, a.bytes_known, source);
    alloc.bytes_note = a.bytes_note;
    alloc.call_order = a.call_order;
    for name in &a.classes {
        alloc.class(name);
    }
    for (node, class, count, bytes, live_count, live_bytes) in a.sites {
        if node >= nodes || class as usize >= a.classes.len() {
            return None;
        }
        let at = alloc.add(NodeId(node), class, count, bytes);
        alloc.sites[at].live_count = live_count;
        alloc.sites[at].live_bytes = live_bytes;
    }
    alloc.calls = a.calls;
    Some(alloc)
}

fn measurements_record(m: &Reduced) -> CachedMeasurements {
    // Names and run means are written in benchmark order, one after
    // another, whatever ranges the file had.
    let mut names = String::with_capacity(m.names.len());
    let mut run_means = Vec::new();
    let benchmarks = m
        .benchmarks
        .iter()
        .map(|b| {
            let means = &b.means;
            names.push_str(m.name_of(b));
            run_means.extend_from_slice(means.as_slice());
            (
                m.name_of(b).len() as u64,
                b.unit,
                b.note,
                means.as_slice().len() as u64,
                b.samples,
                b.in_process,
                b.multi_sample,
            )
        })
        .collect();
    let intervals = m
        .benchmarks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((i as u32, b.interval?.low, b.interval?.high)))
        .collect();
    CachedMeasurements {
        format: m.format.to_string(),
        units: m.units.clone(),
        notes: m.notes.clone(),
        names,
        run_means,
        benchmarks,
        intervals,
        warnings: m.warnings.iter().map(warning_record).collect(),
    }
}

fn rebuild_measurements(c: CachedMeasurements) -> Option<Loaded> {
    let (mut name_at, mut runs_at) = (0usize, 0usize);
    let mut benchmarks = Vec::with_capacity(c.benchmarks.len());
    let shared: Arc<[f64]> = c.run_means.into();
    for (name_len, unit, note, runs, samples, in_process, multi_sample) in c.benchmarks {
        let name = name_at..name_at.checked_add(usize::try_from(name_len).ok()?)?;
        let run_range = runs_at..runs_at.checked_add(usize::try_from(runs).ok()?)?;
        let fits = c.names.get(name.clone()).is_some()
            && run_range.end <= shared.len()
            && (unit as usize) < c.units.len()
            && (note as usize) < c.notes.len();
        if !fits {
            return None;
        }
        (name_at, runs_at) = (name.end, run_range.end);
        benchmarks.push(ReducedBenchmark {
            name,
            unit,
            note,
            means: RunMeans::new(shared.clone(), run_range),
            samples,
            in_process,
            multi_sample,
            interval: None,
        });
    }
    if name_at != c.names.len() || runs_at != shared.len() {
        return None;
    }
    for (i, low, high) in c.intervals {
        benchmarks.get_mut(i as usize)?.interval = Some(model::Interval::new(low, high)?);
    }
    Some(Loaded::Measurements(Reduced {
        format: measurements::format_named(&c.format)?,
        units: c.units,
        notes: c.notes,
        names: c.names,
        benchmarks,
        warnings: c
            .warnings
            .into_iter()
            .map(warning_of)
            .collect::<Option<_>>()?,
    }))
}

mod streamed;

#[cfg(test)]
mod tests;
