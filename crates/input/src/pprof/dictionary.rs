//! The profile's dictionaries turned into what the samples need: metrics
//! (with the factor that brings each to its unit), mappings, functions and
//! locations checked reference by reference, every location expanded once
//! into its run of interned frames (outermost first), and an index from
//! location id to location.
//!
//! Checks and messages run in the order they always have: the string
//! table, sample types, then mappings, functions and locations in file
//! order, each item's strings before its id.

use rustc_hash::FxHashMap;

use super::outline::{self, Outline};
use crate::names;
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, Metric, Unit};

/// Everything the samples are read against.
pub struct Dictionary {
    pub metrics: Vec<Metric>,
    /// Factor from each sample value to its metric's unit.
    pub scale: Vec<f64>,
    pub frames: FrameTable,
    /// Location id → location number.
    pub locations: IdIndex,
    /// Location number → its frames, `expanded[start..end]`, root first.
    pub runs: Vec<(u32, u32)>,
    pub expanded: Vec<FrameId>,
    pub warnings: Vec<ParseError>,
}

/// Checks the dictionaries of `outline` and expands the locations.
pub fn build(bytes: &[u8], outline: &Outline) -> Result<Dictionary, ParseError> {
    let strings = Strings::new(bytes, &outline.strings)?;
    let (metrics, scale) = metrics(&strings, &outline.sample_types)?;
    let mappings = mappings(&strings, &outline.mappings)?;
    let functions = functions(&strings, &outline.functions)?;
    let mut expander = Expander {
        mappings: &mappings,
        functions: &functions,
        frames: FrameTable::new(),
        expanded: Vec::new(),
        cache: FxHashMap::default(),
        warnings: Vec::new(),
    };
    let (locations, runs) = expander.locations(outline)?;
    Ok(Dictionary {
        metrics,
        scale,
        frames: expander.frames,
        locations,
        runs,
        expanded: expander.expanded,
        warnings: expander.warnings,
    })
}

/// Every sample type becomes a metric, in file order; time units other
/// than nanoseconds are scaled to nanoseconds.
fn metrics(
    strings: &Strings,
    sample_types: &[(i64, i64)],
) -> Result<(Vec<Metric>, Vec<f64>), ParseError> {
    if sample_types.is_empty() {
        return Err(ParseError::whole(
            "not a valid pprof profile: no sample types",
        ));
    }
    let mut metrics = Vec::with_capacity(sample_types.len());
    let mut scale = Vec::with_capacity(sample_types.len());
    for (i, &(type_index, unit_index)) in sample_types.iter().enumerate() {
        let name = strings.get(type_index, || format!("sample_type[{i}].type"))?;
        let unit_name = strings.get(unit_index, || format!("sample_type[{i}].unit"))?;
        let unit = Unit::parse(&unit_name);
        scale.push(if unit == Unit::Nanoseconds {
            Unit::nanoseconds_per(&unit_name).unwrap_or(1.0)
        } else {
            1.0
        });
        let name = if name.is_empty() {
            format!("value{i}")
        } else {
            name
        };
        metrics.push(Metric::new(name, unit));
    }
    Ok((metrics, scale))
}

struct MappingInfo {
    module: Option<String>,
    start: u64,
    limit: u64,
    offset: u64,
}

struct Mappings {
    index: IdIndex,
    info: Vec<MappingInfo>,
}

/// Mappings: id → module name (basename of the file) and address range.
fn mappings(strings: &Strings, mappings: &[outline::Mapping]) -> Result<Mappings, ParseError> {
    let (index, bad_id) = IdIndex::new(mappings.iter().map(|m| m.id));
    let mut info = Vec::with_capacity(mappings.len());
    for (i, m) in mappings.iter().enumerate() {
        let file = strings.get(m.filename, || format!("mapping[{i}].filename"))?;
        info.push(MappingInfo {
            module: basename(&file).map(str::to_string),
            start: m.memory_start,
            limit: m.memory_limit,
            offset: m.file_offset,
        });
        if bad_id == Some(i) {
            return Err(ParseError::field(
                format!("mapping[{i}].id"),
                format!("mapping id {} is zero or used twice", m.id),
            ));
        }
    }
    Ok(Mappings { index, info })
}

struct FunctionInfo {
    name: String,
    /// See [`Frame::full_name`].
    full_name: Option<String>,
    file: Option<String>,
    start_line: Option<u32>,
}

struct Functions {
    index: IdIndex,
    info: Vec<FunctionInfo>,
}

/// Functions: id → (name, file, start line).
fn functions(strings: &Strings, functions: &[outline::Function]) -> Result<Functions, ParseError> {
    let (index, bad_id) = IdIndex::new(functions.iter().map(|f| f.id));
    let mut info = Vec::with_capacity(functions.len());
    for (i, f) in functions.iter().enumerate() {
        let mut name = strings.get(f.name, || format!("function[{i}].name"))?;
        let system_name = strings.get(f.system_name, || format!("function[{i}].system_name"))?;
        if name.is_empty() {
            name = system_name.clone();
        }
        let (name, full_name) = readable_names(name, &system_name);
        let file = strings.get(f.filename, || format!("function[{i}].filename"))?;
        info.push(FunctionInfo {
            name,
            full_name,
            file: (!file.is_empty()).then_some(file),
            start_line: u32::try_from(f.start_line).ok().filter(|&l| l > 0),
        });
        if bad_id == Some(i) {
            return Err(ParseError::field(
                format!("function[{i}].id"),
                format!("function id {} is zero or used twice", f.id),
            ));
        }
    }
    Ok(Functions { index, info })
}

/// A function's label and full name (see [`crate::names`]): a mangled
/// `name` is demangled; otherwise a `system_name` that reads differently
/// (a C++ symbol, or anything else an exporter put there) is the full name.
pub(super) fn readable_names(name: String, system_name: &str) -> (String, Option<String>) {
    let (label, full) = names::symbol(&name);
    if full.is_some() {
        return (label.into_owned(), full);
    }
    let label = label.into_owned();
    let system = match names::symbol(system_name) {
        (_, Some(full)) => full,
        (plain, None) => plain.into_owned(),
    };
    let full = (!system.is_empty() && system != label).then_some(system);
    (label, full)
}

/// Expands locations into frames. Locations that share a function, line
/// and mapping (several instructions of one source line) share the frame
/// through `cache` without building it again.
struct Expander<'a> {
    mappings: &'a Mappings,
    functions: &'a Functions,
    frames: FrameTable,
    expanded: Vec<FrameId>,
    /// (function number, line, mapping number + 1 or 0) → frame.
    cache: FxHashMap<(u32, u32, u32), FrameId>,
    warnings: Vec<ParseError>,
}

impl Expander<'_> {
    /// Every location's run of frames, computed once so each sample costs
    /// only its own length.
    fn locations(&mut self, outline: &Outline) -> Result<(IdIndex, Vec<(u32, u32)>), ParseError> {
        let (index, bad_id) = IdIndex::new(outline.locations.iter().map(|l| l.id));
        let mut runs = Vec::with_capacity(outline.locations.len());
        for (i, loc) in outline.locations.iter().enumerate() {
            let start = self.expanded.len() as u32;
            let lines = &outline.lines[loc.first_line..loc.first_line + loc.line_count];
            self.location(i, loc, lines)?;
            runs.push((start, self.expanded.len() as u32));
            if bad_id == Some(i) {
                return Err(ParseError::field(
                    format!("location[{i}].id"),
                    format!("location id {} is zero or used twice", loc.id),
                ));
            }
        }
        Ok((index, runs))
    }

    fn location(
        &mut self,
        i: usize,
        loc: &outline::Location,
        lines: &[outline::Line],
    ) -> Result<(), ParseError> {
        let mapping = match loc.mapping_id {
            0 => None,
            id => match self.mappings.index.get(id) {
                Some(m) => Some(m),
                None => {
                    self.warnings.push(ParseError::field(
                        format!("location[{i}].mapping_id"),
                        format!("mapping id {id} does not exist; location read without its module"),
                    ));
                    None
                }
            },
        };
        let info = mapping.map(|m| &self.mappings.info[m as usize]);
        if lines.is_empty() {
            let frame = Frame {
                function: address_name(loc.address, info),
                file: None,
                line: None,
                module: info.and_then(|m| m.module.clone()),
                start_line: None,
                start_column: None,
                source_hash: None,
                full_name: None,
            };
            let id = self.frames.intern(frame);
            self.expanded.push(id);
            return Ok(());
        }
        // line[0] is the innermost call: walk backwards for root-first.
        for (j, line) in lines.iter().enumerate().rev() {
            let function = self.functions.index.get(line.function_id).ok_or_else(|| {
                ParseError::field(
                    format!("location[{i}].line[{j}].function_id"),
                    format!("function id {} does not exist", line.function_id),
                )
            })?;
            let line_number = u32::try_from(line.line).ok().filter(|&l| l > 0);
            let id = self.line_frame(function, line_number, mapping, loc.address);
            self.expanded.push(id);
        }
        Ok(())
    }

    /// The frame of one line of a location.
    fn line_frame(
        &mut self,
        function: u32,
        line: Option<u32>,
        mapping: Option<u32>,
        address: u64,
    ) -> FrameId {
        let f = &self.functions.info[function as usize];
        let info = mapping.map(|m| &self.mappings.info[m as usize]);
        if f.name.is_empty() {
            // Named by its address: nothing to share.
            let frame = self.frame_of(f, line, info, address_name(address, info));
            return self.frames.intern(frame);
        }
        let key = (function, line.unwrap_or(0), mapping.map_or(0, |m| m + 1));
        if let Some(&id) = self.cache.get(&key) {
            return id;
        }
        let frame = self.frame_of(f, line, info, f.name.clone());
        let id = self.frames.intern(frame);
        self.cache.insert(key, id);
        id
    }

    fn frame_of(
        &self,
        f: &FunctionInfo,
        line: Option<u32>,
        mapping: Option<&MappingInfo>,
        name: String,
    ) -> Frame {
        Frame {
            function: name,
            file: f.file.clone(),
            line,
            module: mapping.and_then(|m| m.module.clone()),
            start_line: f.start_line,
            start_column: None,
            source_hash: None,
            full_name: f.full_name.clone(),
        }
    }
}

/// Name for code known only by its address: `module+0xoffset` (the offset in
/// the mapped file, so it stays the same across runs with address-space
/// randomisation), or `0xaddress` without a mapping or module name.
fn address_name(address: u64, mapping: Option<&MappingInfo>) -> String {
    match mapping {
        Some(MappingInfo {
            module: Some(module),
            start,
            limit,
            offset,
        }) => {
            let in_file = if (*start..*limit).contains(&address) {
                address - start + offset
            } else {
                address
            };
            format!("{module}+{in_file:#x}")
        }
        _ => format!("{address:#x}"),
    }
}

/// Last component of a `/` or `\` separated path; `None` when empty.
fn basename(path: &str) -> Option<&str> {
    path.rsplit(['/', '\\']).find(|part| !part.is_empty())
}

/// Id → position in file order. Ids are usually 1, 2, 3…: those index a
/// table directly; others go through a hash map.
pub enum IdIndex {
    Dense(Vec<u32>),
    Sparse(FxHashMap<u64, u32>),
}

const ABSENT: u32 = u32::MAX;

impl IdIndex {
    /// The index of `ids`, and the position of the first id that is zero
    /// or repeats an earlier one (that id and later ones are not indexed).
    fn new(ids: impl Iterator<Item = u64> + Clone) -> (IdIndex, Option<usize>) {
        let (count, max) = ids
            .clone()
            .fold((0usize, 0u64), |(n, m), id| (n + 1, m.max(id)));
        let dense = max <= (count as u64).saturating_mul(4) + 1024 && count < ABSENT as usize;
        let mut index = if dense {
            IdIndex::Dense(vec![ABSENT; max as usize + 1])
        } else {
            IdIndex::Sparse(FxHashMap::default())
        };
        for (i, id) in ids.enumerate() {
            let fresh = id != 0
                && match &mut index {
                    IdIndex::Dense(table) => {
                        let slot = &mut table[id as usize];
                        (*slot == ABSENT).then(|| *slot = i as u32).is_some()
                    }
                    IdIndex::Sparse(map) => map.insert(id, i as u32).is_none(),
                };
            if !fresh {
                return (index, Some(i));
            }
        }
        (index, None)
    }

    #[inline(always)]
    pub fn get(&self, id: u64) -> Option<u32> {
        match self {
            IdIndex::Dense(table) => match table.get(id as usize) {
                Some(&i) if i != ABSENT => Some(i),
                _ => None,
            },
            IdIndex::Sparse(map) => map.get(&id).copied(),
        }
    }
}

/// The string table, with checked lookups; strings stay in the input
/// until asked for.
pub(super) struct Strings<'a> {
    bytes: &'a [u8],
    spans: &'a [(usize, usize)],
}

impl<'a> Strings<'a> {
    pub(super) fn new(
        bytes: &'a [u8],
        spans: &'a [(usize, usize)],
    ) -> Result<Strings<'a>, ParseError> {
        match spans.first() {
            None => Err(ParseError::field(
                "string_table",
                "the string table is empty (entry 0 must be the empty string)",
            )),
            Some(&(start, end)) if end > start => Err(ParseError::field(
                "string_table[0]",
                format!(
                    "entry 0 must be the empty string, found {:?}",
                    String::from_utf8_lossy(&bytes[start..end])
                ),
            )),
            Some(_) => Ok(Strings { bytes, spans }),
        }
    }

    /// String number `index`; `field` names the referring field for errors.
    pub(super) fn get(
        &self,
        index: i64,
        field: impl FnOnce() -> String,
    ) -> Result<String, ParseError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.spans.get(i))
            .map(|&(start, end)| String::from_utf8_lossy(&self.bytes[start..end]).into_owned())
            .ok_or_else(|| {
                ParseError::field(
                    field(),
                    format!(
                        "string index {index} is out of range (string table has {} entries)",
                        self.spans.len()
                    ),
                )
            })
    }
}
