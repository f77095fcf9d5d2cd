//! First pass over a profile: every top-level field is read in file order
//! and everything but the samples is decoded (sample types, mappings,
//! locations, functions, where each string is); samples are only stepped
//! over, with a bookmark every [`BOOKMARK_EVERY`] samples so the second
//! pass ([`super::samples`]) can split them between threads.
//!
//! Two passes because protobuf does not order fields: Go's
//! `runtime/pprof` writes each location and function just before the first
//! sample that uses it, and the string table last.
//!
//! Errors follow prost's decoding order: the first malformed field in the
//! file wins. A sample is checked in the second pass, so when this pass
//! fails, the samples before the failure are checked first
//! ([`super::samples::first_malformed`]).

use super::wire::{DecodeError, Reader, Result, WireType, RECURSION_LIMIT};

/// Samples between two bookmarks.
pub const BOOKMARK_EVERY: usize = 1024;

/// Everything of a profile but its samples, plus where the samples are.
#[derive(Default)]
pub struct Outline {
    /// (type, unit) string indexes.
    pub sample_types: Vec<(i64, i64)>,
    pub mappings: Vec<Mapping>,
    pub locations: Vec<Location>,
    /// The lines of every location, in location order.
    pub lines: Vec<Line>,
    pub functions: Vec<Function>,
    /// Where each string of the string table is in the buffer.
    pub strings: Vec<(usize, usize)>,
    pub samples: SampleSpans,
    /// The header fields an export writes back (see
    /// [`crate::ProfileHeader`]): `time_nanos`, `duration_nanos`,
    /// `period_type` (type, unit string indexes), `period` and
    /// `default_sample_type` (a string index).
    pub time_nanos: i64,
    pub duration_nanos: i64,
    pub period_type: (i64, i64),
    pub period: i64,
    pub default_sample_type: i64,
}

/// Where the samples are: all the second pass needs of the first.
#[derive(Default, Clone)]
pub struct SampleSpans {
    pub count: usize,
    /// (position of the sample's key, sample index) for every
    /// [`BOOKMARK_EVERY`]th sample.
    pub bookmarks: Vec<(usize, usize)>,
    /// Where the last sample ends.
    pub end: usize,
}

#[derive(Default, Clone, Copy)]
pub struct Mapping {
    pub id: u64,
    pub memory_start: u64,
    pub memory_limit: u64,
    pub file_offset: u64,
    pub filename: i64,
}

#[derive(Default, Clone, Copy)]
pub struct Location {
    pub id: u64,
    pub mapping_id: u64,
    pub address: u64,
    /// Its lines: `lines[first_line..first_line + line_count]`.
    pub first_line: usize,
    pub line_count: usize,
}

#[derive(Default, Clone, Copy)]
pub struct Line {
    pub function_id: u64,
    pub line: i64,
}

#[derive(Default, Clone, Copy)]
pub struct Function {
    pub id: u64,
    pub name: i64,
    pub system_name: i64,
    pub filename: i64,
    pub start_line: i64,
}

/// Why the first pass stopped: the error, and where the field it was
/// reading starts (samples before it may hold an earlier error).
pub struct Stopped {
    pub error: DecodeError,
    pub at: usize,
}

/// Reads the whole top-level message but the sample bodies.
pub fn read(bytes: &[u8]) -> std::result::Result<Outline, Stopped> {
    let mut outline = Outline::default();
    let mut r = Reader::new(bytes);
    while r.has_remaining() {
        let at = r.pos();
        top_level_field(&mut r, &mut outline).map_err(|error| Stopped { error, at })?;
    }
    Ok(outline)
}

fn top_level_field(r: &mut Reader, o: &mut Outline) -> Result<()> {
    let depth = RECURSION_LIMIT;
    let at = r.pos();
    let (tag, wire) = r.key()?;
    let within = |field| move |e: DecodeError| e.within("Profile", field);
    match tag {
        1 => {
            let mut vt = (0, 0);
            value_type(r, wire, depth, &mut vt).map_err(within("sample_type"))?;
            o.sample_types.push(vt);
        }
        2 => {
            let spans = &mut o.samples;
            if spans.count.is_multiple_of(BOOKMARK_EVERY) {
                spans.bookmarks.push((at, spans.count));
            }
            step_over_sample(r, wire).map_err(within("sample"))?;
            spans.count += 1;
            spans.end = r.pos();
        }
        3 => {
            let m = mapping(r, wire, depth).map_err(within("mapping"))?;
            o.mappings.push(m);
        }
        4 => {
            let first_line = o.lines.len();
            let mut loc = location(r, wire, depth, &mut o.lines).map_err(within("location"))?;
            loc.first_line = first_line;
            loc.line_count = o.lines.len() - first_line;
            o.locations.push(loc);
        }
        5 => {
            let f = function(r, wire, depth).map_err(within("function"))?;
            o.functions.push(f);
        }
        6 => {
            let span = r.bytes_field(wire).map_err(within("string_table"))?;
            o.strings.push(span);
        }
        7 => scalar(r, wire).map_err(within("drop_frames"))?,
        8 => scalar(r, wire).map_err(within("keep_frames"))?,
        9 => o.time_nanos = int(r, wire).map_err(within("time_nanos"))?,
        10 => o.duration_nanos = int(r, wire).map_err(within("duration_nanos"))?,
        11 => {
            value_type(r, wire, depth, &mut o.period_type).map_err(within("period_type"))?;
        }
        12 => o.period = int(r, wire).map_err(within("period"))?,
        13 => r.repeated(wire, |_| ()).map_err(within("comment"))?,
        14 => o.default_sample_type = int(r, wire).map_err(within("default_sample_type"))?,
        _ => r.skip(wire, tag, depth)?,
    }
    Ok(())
}

fn scalar(r: &mut Reader, wire: WireType) -> Result<()> {
    r.scalar(wire).map(|_| ())
}

/// An `int64` field (a varint read as two's complement, as prost reads it).
fn int(r: &mut Reader, wire: WireType) -> Result<i64> {
    r.scalar(wire).map(|v| v as i64)
}

/// Checks a sample's key and length and moves past it; its fields are
/// read by the second pass.
fn step_over_sample(r: &mut Reader, wire: WireType) -> Result<()> {
    // As prost: the wire type, then the length against what is left.
    r.message_extent(wire).map(|end| r.seek(end))
}

/// A `ValueType` merged into `vt` (`period_type` may come in pieces).
fn value_type(r: &mut Reader, wire: WireType, depth: u32, vt: &mut (i64, i64)) -> Result<()> {
    r.message(wire, depth, |r, tag, wire, depth| {
        let within = |field| move |e: DecodeError| e.within("ValueType", field);
        match tag {
            1 => vt.0 = r.scalar(wire).map_err(within("r#type"))? as i64,
            2 => vt.1 = r.scalar(wire).map_err(within("unit"))? as i64,
            _ => r.skip(wire, tag, depth)?,
        }
        Ok(())
    })
}

fn mapping(r: &mut Reader, wire: WireType, depth: u32) -> Result<Mapping> {
    let mut m = Mapping::default();
    r.message(wire, depth, |r, tag, wire, depth| {
        let within = |field| move |e: DecodeError| e.within("Mapping", field);
        match tag {
            1 => m.id = r.scalar(wire).map_err(within("id"))?,
            2 => m.memory_start = r.scalar(wire).map_err(within("memory_start"))?,
            3 => m.memory_limit = r.scalar(wire).map_err(within("memory_limit"))?,
            4 => m.file_offset = r.scalar(wire).map_err(within("file_offset"))?,
            5 => m.filename = r.scalar(wire).map_err(within("filename"))? as i64,
            6 => scalar(r, wire).map_err(within("build_id"))?,
            7 => scalar(r, wire).map_err(within("has_functions"))?,
            8 => scalar(r, wire).map_err(within("has_filenames"))?,
            9 => scalar(r, wire).map_err(within("has_line_numbers"))?,
            10 => scalar(r, wire).map_err(within("has_inline_frames"))?,
            _ => r.skip(wire, tag, depth)?,
        }
        Ok(())
    })?;
    Ok(m)
}

fn location(r: &mut Reader, wire: WireType, depth: u32, lines: &mut Vec<Line>) -> Result<Location> {
    let mut loc = Location::default();
    r.message(wire, depth, |r, tag, wire, depth| {
        let within = |field| move |e: DecodeError| e.within("Location", field);
        match tag {
            1 => loc.id = r.scalar(wire).map_err(within("id"))?,
            2 => loc.mapping_id = r.scalar(wire).map_err(within("mapping_id"))?,
            3 => loc.address = r.scalar(wire).map_err(within("address"))?,
            4 => lines.push(line(r, wire, depth).map_err(within("line"))?),
            5 => scalar(r, wire).map_err(within("is_folded"))?,
            _ => r.skip(wire, tag, depth)?,
        }
        Ok(())
    })?;
    Ok(loc)
}

fn line(r: &mut Reader, wire: WireType, depth: u32) -> Result<Line> {
    let mut l = Line::default();
    r.message(wire, depth, |r, tag, wire, depth| {
        let within = |field| move |e: DecodeError| e.within("Line", field);
        match tag {
            1 => l.function_id = r.scalar(wire).map_err(within("function_id"))?,
            2 => l.line = r.scalar(wire).map_err(within("line"))? as i64,
            3 => scalar(r, wire).map_err(within("column"))?,
            _ => r.skip(wire, tag, depth)?,
        }
        Ok(())
    })?;
    Ok(l)
}

fn function(r: &mut Reader, wire: WireType, depth: u32) -> Result<Function> {
    let mut f = Function::default();
    r.message(wire, depth, |r, tag, wire, depth| {
        let within = |field| move |e: DecodeError| e.within("Function", field);
        match tag {
            1 => f.id = r.scalar(wire).map_err(within("id"))?,
            2 => f.name = r.scalar(wire).map_err(within("name"))? as i64,
            3 => f.system_name = r.scalar(wire).map_err(within("system_name"))? as i64,
            4 => f.filename = r.scalar(wire).map_err(within("filename"))? as i64,
            5 => f.start_line = r.scalar(wire).map_err(within("start_line"))? as i64,
            _ => r.skip(wire, tag, depth)?,
        }
        Ok(())
    })?;
    Ok(f)
}
