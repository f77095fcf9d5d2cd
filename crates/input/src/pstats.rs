//! Python cProfile / profile statistics files, as written by
//! `python -m cProfile -o FILE`, `cProfile.Profile.dump_stats` and
//! `pstats.Stats.dump_stats`: one `marshal`led dict (see [`marshal`])
//!
//! ```text
//! {(filename, lineno, funcname):
//!     (primitive_calls, total_calls, tottime, cumtime,
//!      {caller_key: (primitive_calls, total_calls, tottime, cumtime), …}),
//!  …}
//! ```
//!
//! Times are in seconds. Built-in functions have the file `~`, line 0 and
//! a name in angle brackets (`<built-in method builtins.sum>`); they become
//! frames named as pstats prints them (`{built-in method builtins.sum}`),
//! without a file. Other frames keep their file, and their line as both
//! line and start line (it is where the function is defined).
//!
//! The file is a call graph, not a tree: [`tree`] turns it into the
//! calling-context tree the model holds, and says there how. The metric is
//! `time` in nanoseconds: a node's self value is its share of the
//! function's `tottime`, so the tree's total is the sum of every `tottime`
//! (what pstats prints as "in X seconds"), and a node's inclusive value is
//! its share of `cumtime`.
//!
//! The call counts (each function's `ncalls` and primitive calls, and each
//! caller edge's) are read into [`CallCounts`], returned by [`read`]; each
//! tree node gets its edge's count in the profile's `call_counts` (from
//! its parent's function into its own, over every context), which the
//! profile pages show as a column.
//!
//! The shape of the dict is checked as it is read: an entry of the wrong
//! shape is an error naming its byte offset.

mod marshal;
#[cfg(test)]
mod tests;
mod tree;

use rustc_hash::FxHashMap;

use self::marshal::{Decoded, Id, Value};
use super::{Format, Input, Parsed};
use model::error::ParseError;
use model::{CallTree, Frame, FrameId, FrameTable, Metric, Profile, Unit};

pub struct Pstats;

impl Format for Pstats {
    fn name(&self) -> &'static str {
        "pstats"
    }

    /// A dict (`{`, with or without the `FLAG_REF` bit) whose first key is
    /// a tuple of three items starting with a string, or an empty dict and
    /// nothing else. JSON never follows `{` with those bytes.
    fn sniff(&self, input: &Input) -> bool {
        let b = input.bytes;
        if !matches!(b.first(), Some(0x7b | 0xfb)) {
            return false;
        }
        if b.len() == 2 && b[1] == b'0' {
            return true;
        }
        let string = |code: Option<&u8>| {
            code.is_some_and(|c| matches!(c & 0x7f, b'z' | b'Z' | b'a' | b'A' | b'u' | b't'))
        };
        match b.get(1).map(|c| c & 0x7f) {
            Some(b')') => b.get(2) == Some(&3) && string(b.get(3)),
            Some(b'(') => b.get(2..6) == Some(&[3, 0, 0, 0]) && string(b.get(6)),
            _ => false,
        }
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        read(input.bytes).map(|read| read.parsed)
    }
}

/// A function's statistics, or one caller's part of them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Stat {
    /// Calls that were not recursive (pstats' `cc`).
    pub primitive_calls: f64,
    /// All calls (`nc`).
    pub calls: f64,
    /// Seconds in the function itself (`tt`).
    pub tottime: f64,
    /// Seconds in the function and what it called, recursion counted once
    /// (`ct`).
    pub cumtime: f64,
}

/// One function of the file: its key's frame and statistics, and its
/// callers (indices into [`Stats::functions`]) with their part.
#[derive(Debug, Clone)]
pub struct Function {
    pub frame: Frame,
    pub stat: Stat,
    pub callers: Vec<(usize, Stat)>,
}

/// The file as read, before it becomes a tree.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub functions: Vec<Function>,
}

/// The call counts the tree cannot hold: per function and per call edge,
/// by the ids of the frames in the parsed profile's frame table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallCounts {
    /// (function, calls, primitive calls), in file order.
    pub functions: Vec<(FrameId, f64, f64)>,
    /// (caller, callee, calls, primitive calls), in file order.
    pub edges: Vec<(FrameId, FrameId, f64, f64)>,
}

/// What [`read`] gives: the profile, and the call counts beside it.
#[derive(Debug, Clone)]
pub struct Read {
    pub parsed: Parsed,
    pub calls: CallCounts,
    /// The statistics as the file holds them.
    pub stats: Stats,
}

/// Reads a pstats file.
pub fn read(bytes: &[u8]) -> Result<Read, ParseError> {
    let (decoded, top, used) = marshal::decode(bytes)?;
    if used < bytes.len() {
        return Err(ParseError::byte(
            used as u64,
            format!(
                "{} bytes after the statistics dict, which should end the file",
                bytes.len() - used
            ),
        ));
    }
    let stats = shape(&decoded, top)?;
    let mut frames = FrameTable::new();
    let ids: Vec<FrameId> = stats
        .functions
        .iter()
        .map(|f| frames.intern(f.frame.clone()))
        .collect();
    let mut profile = Profile::new(vec![Metric::new("time", Unit::Nanoseconds)]);
    profile
        .notes
        .extend(tree::build(&stats, &ids, &mut profile.tree));
    let calls = call_counts(&stats, &ids);
    profile.call_counts = Some(node_calls(&profile.tree, &calls));
    Ok(Read {
        parsed: Parsed::new(frames, profile),
        calls,
        stats,
    })
}

fn call_counts(stats: &Stats, ids: &[FrameId]) -> CallCounts {
    let mut out = CallCounts::default();
    for (i, f) in stats.functions.iter().enumerate() {
        out.functions
            .push((ids[i], f.stat.calls, f.stat.primitive_calls));
        for (caller, stat) in &f.callers {
            out.edges
                .push((ids[*caller], ids[i], stat.calls, stat.primitive_calls));
        }
    }
    out
}

/// Each node's calls as cProfile counted them: from its parent's function
/// into its own over every context (the callers table's `nc`), and for a
/// top-level node its function's `ncalls`.
fn node_calls(tree: &CallTree, calls: &CallCounts) -> Vec<f64> {
    let edges: FxHashMap<(FrameId, FrameId), f64> = calls
        .edges
        .iter()
        .map(|&(caller, callee, n, _)| ((caller, callee), n))
        .collect();
    let functions: FxHashMap<FrameId, f64> =
        calls.functions.iter().map(|&(f, n, _)| (f, n)).collect();
    crate::call_graph::calls_per_node(tree, &edges, &functions)
}

/// Checks the decoded value against the pstats shape and collects it.
fn shape(d: &Decoded, top: Id) -> Result<Stats, ParseError> {
    let Value::Dict(entries) = d.get(top) else {
        return Err(wrong(
            d,
            top,
            "the statistics dict {(file, line, function): …}",
        ));
    };
    let mut index: FxHashMap<Frame, usize> = FxHashMap::default();
    let mut functions = Vec::with_capacity(entries.len());
    for &(key, _) in entries {
        let frame = key_frame(d, key)?;
        if index.insert(frame.clone(), functions.len()).is_some() {
            return Err(ParseError::byte(d.offset(key), "the same function twice"));
        }
        functions.push(Function {
            frame,
            stat: Stat::default(),
            callers: Vec::new(),
        });
    }
    for (i, &(_, value)) in entries.iter().enumerate() {
        let (stat, callers) = entry(d, value)?;
        functions[i].stat = stat;
        for &(key, edge) in callers {
            let frame = key_frame(d, key)?;
            let edge = edge_stat(d, edge)?;
            // A caller outside the dict (the pure-Python `profile`
            // module's own frame) only adds a root.
            if let Some(&c) = index.get(&frame) {
                functions[i].callers.push((c, edge));
            }
        }
    }
    Ok(Stats { functions })
}

/// A dict's (key, value) pairs.
type Pairs = [(Id, Id)];

/// `(primitive_calls, total_calls, tottime, cumtime, callers)`.
fn entry(d: &Decoded, id: Id) -> Result<(Stat, &Pairs), ParseError> {
    let expected = "a tuple (primitive calls, calls, tottime, cumtime, callers)";
    let items = tuple(d, id, 5, expected)?;
    let stat = stat(d, &items[..4])?;
    let Value::Dict(callers) = d.get(items[4]) else {
        return Err(wrong(d, items[4], "a dict of callers"));
    };
    Ok((stat, callers))
}

/// A caller's part: `(total_calls, primitive_calls, tottime, cumtime)`
/// (cProfile writes the two counts in the other order than for the
/// function itself, and pstats reads them so), or a bare call count as
/// the pure-Python `profile` module writes it.
fn edge_stat(d: &Decoded, id: Id) -> Result<Stat, ParseError> {
    if let Value::Int(n) = d.get(id) {
        let calls = count(d, id, *n)?;
        return Ok(Stat {
            primitive_calls: calls,
            calls,
            ..Stat::default()
        });
    }
    let expected = "a tuple (calls, primitive calls, tottime, cumtime)";
    let items = tuple(d, id, 4, expected)?;
    stat(d, &[items[1], items[0], items[2], items[3]])
}

/// `(primitive_calls, total_calls, tottime, cumtime)`.
fn stat(d: &Decoded, items: &[Id]) -> Result<Stat, ParseError> {
    let int = |id: Id| match d.get(id) {
        Value::Int(n) => count(d, id, *n),
        _ => Err(wrong(d, id, "a call count")),
    };
    let seconds = |id: Id| match d.get(id) {
        Value::Float(v) | Value::Int(v) if v.is_finite() && *v >= 0.0 => Ok(*v),
        Value::Float(_) | Value::Int(_) => Err(ParseError::byte(
            d.offset(id),
            "a time that is negative or not a number",
        )),
        _ => Err(wrong(d, id, "a time in seconds")),
    };
    Ok(Stat {
        primitive_calls: int(items[0])?,
        calls: int(items[1])?,
        tottime: seconds(items[2])?,
        cumtime: seconds(items[3])?,
    })
}

fn count(d: &Decoded, id: Id, n: f64) -> Result<f64, ParseError> {
    if n < 0.0 {
        return Err(ParseError::byte(
            d.offset(id),
            format!("a negative call count {n}"),
        ));
    }
    Ok(n)
}

/// `(filename, lineno, funcname)` as a frame.
fn key_frame(d: &Decoded, id: Id) -> Result<Frame, ParseError> {
    let expected = "a tuple (file, line, function)";
    let items = tuple(d, id, 3, expected)?;
    let text = |id: Id| match d.get(id) {
        Value::Str(s) => Ok(s.as_str()),
        _ => Err(wrong(d, id, "a string")),
    };
    let (file, function) = (text(items[0])?, text(items[2])?);
    let line = match d.get(items[1]) {
        Value::Int(n) if *n >= 0.0 && *n <= f64::from(u32::MAX) => *n as u32,
        _ => return Err(wrong(d, items[1], "a line number")),
    };
    Ok(frame(file, line, function))
}

/// The frame of a pstats key; built-ins (`~`, 0, `<…>`) are named as
/// pstats prints them, `{…}`, without a file or line.
pub fn frame(file: &str, line: u32, function: &str) -> Frame {
    if file == "~" && line == 0 {
        let inner = function.strip_prefix('<').and_then(|f| f.strip_suffix('>'));
        return Frame::named(match inner {
            Some(name) => format!("{{{name}}}"),
            None => function.to_string(),
        });
    }
    Frame {
        function: function.to_string(),
        file: Some(file.to_string()),
        line: (line > 0).then_some(line),
        start_line: (line > 0).then_some(line),
        ..Frame::default()
    }
}

fn tuple<'d>(d: &'d Decoded, id: Id, n: usize, expected: &str) -> Result<&'d [Id], ParseError> {
    match d.get(id) {
        Value::Tuple(items) if items.len() == n => Ok(items),
        _ => Err(wrong(d, id, expected)),
    }
}

fn wrong(d: &Decoded, id: Id, expected: &str) -> ParseError {
    let found = match d.get(id) {
        Value::Tuple(items) => format!("a tuple of {} items", items.len()),
        other => other.kind().to_string(),
    };
    ParseError::byte(d.offset(id), format!("expected {expected}, found {found}"))
}
