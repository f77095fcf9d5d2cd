//! Valgrind massif profiles (`massif.out.PID`, from
//! `valgrind --tool=massif`), the text file `ms_print` reads:
//!
//! ```text
//! desc: --massif-out-file=massif.out
//! cmd: ./prog
//! time_unit: i
//! #-----------
//! snapshot=61
//! #-----------
//! time=23548970
//! mem_heap_B=454027
//! mem_heap_extra_B=2629
//! mem_stacks_B=0
//! heap_tree=peak
//! n3: 454027 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.
//!  n2: 298730 0x1091B0: make_buffer (alloc.c:12)
//!   n1: 247530 0x10924E: read_record (alloc.c:29)
//!    n0: 247530 0x1093EE: main (alloc.c:67)
//!   …
//!  n0: 1681 in 4 places, all below massif's threshold (1.00%)
//! ```
//!
//! Snapshots are taken over the run; some carry a heap tree
//! (`heap_tree=detailed`, or `peak` for the snapshot massif took at the
//! largest heap), the others only the sizes (`empty`). The tree is
//! inverted: each entry's children are its callers, indented one space
//! deeper, `nK` saying how many follow, and the root is the allocation
//! functions themselves (Valgrind's `malloc`, `new`, … which massif leaves
//! out of the stacks).
//!
//! What perfatlas reads: one tree, the peak snapshot's, or where no
//! snapshot is marked peak the detailed one with the largest
//! `mem_heap_B`; a profile of `peak_bytes` (bytes, `mem_heap_B` split by
//! allocation stack). An entry's bytes that its callers do not account
//! for (for a leaf, all of them; for others, what massif cut at its
//! `--depth`) were allocated in the context of its chain read top-down:
//! the entry outermost, then the entry it calls, down to the allocating
//! function, which holds them as its self value. An entry "in N places,
//! all below massif's threshold" is a frame of that name, outermost on its
//! stack, since massif does not say who those callers were. Allocation sites are the
//! allocating functions, sized in bytes (massif counts no blocks).
//!
//! What it leaves: the time series of the snapshots (time, heap, extra
//! heap, stacks), the other trees, and `mem_heap_extra_B` and
//! `mem_stacks_B`, which no stack holds. The chosen snapshot's figures are
//! given in a note on the profile. Every snapshot and tree is still
//! checked: a truncated or corrupt file is an error naming its line.

use super::{text, valgrind_frame, Format, Input, Parsed};
use model::error::ParseError;
use model::limits::thousands;
use model::{Frame, FrameId, FrameTable, Metric, Profile, Unit};

pub struct Massif;

/// The deepest heap tree entry read: massif's `--depth` goes up to 200.
/// (Each entry's stack is walked from it to the root, so depth costs
/// its square.)
const MAX_TREE_DEPTH: usize = 1000;

impl Format for Massif {
    fn name(&self) -> &'static str {
        "massif"
    }

    /// `desc:` and `cmd:` as the first two lines, and `time_unit:` as the
    /// third when the first kilobytes reach it: the header massif writes.
    /// (Callgrind files have `desc:` lines too, never first.)
    fn sniff(&self, input: &Input) -> bool {
        let head = text::decode_text(super::head(input.bytes, 4096));
        let mut lines = head.trim_start_matches('\u{feff}').split('\n');
        let starts = |line: Option<&str>, key: &str| line.is_some_and(|l| l.starts_with(key));
        if !starts(lines.next(), "desc:") || !starts(lines.next(), "cmd:") {
            return false;
        }
        match lines.next() {
            Some(third) if lines.next().is_some() => third.starts_with("time_unit:"),
            _ => true,
        }
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let read = read(data.trim_start_matches('\u{feff}'))?;
        Ok(build(read))
    }
}

/// One snapshot's sizes, and where it is.
#[derive(Debug, Clone, Default)]
struct Snapshot {
    number: u64,
    /// 1-based line of `snapshot=`.
    line: usize,
    time: Option<u64>,
    heap: Option<u64>,
    extra: Option<u64>,
    stacks: Option<u64>,
}

/// One entry of a heap tree.
struct Entry<'a> {
    /// Index of the entry it is a caller of; `None` for the root.
    callee: Option<usize>,
    bytes: u64,
    /// Bytes of its callers, added up as they are read.
    callers_bytes: u64,
    /// The location text after the byte count.
    text: &'a str,
    line: usize,
}

/// The chosen snapshot and its tree.
struct Chosen<'a> {
    snapshot: Snapshot,
    peak: bool,
    tree: Vec<Entry<'a>>,
}

/// What the file gave: the chosen tree, and how many snapshots there were.
struct Read<'a> {
    chosen: Option<Chosen<'a>>,
    snapshots: usize,
    time_unit: String,
}

fn read(data: &str) -> Result<Read<'_>, ParseError> {
    let mut lines = data.lines().enumerate().map(|(i, l)| (i + 1, l));
    let time_unit = header(&mut lines)?;
    let mut chosen: Option<Chosen> = None;
    let mut snapshots = 0;
    while let Some((n, line)) = lines.next() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(number) = line.strip_prefix("snapshot=") else {
            return Err(ParseError::line(
                n,
                format!("expected `snapshot=N`, found {:?}", shown(line)),
            ));
        };
        let mut snapshot = Snapshot {
            number: number_at(n, "snapshot", number)?,
            line: n,
            ..Snapshot::default()
        };
        snapshots += 1;
        let kind = snapshot_fields(&mut lines, &mut snapshot)?;
        if kind == "empty" {
            continue;
        }
        let tree = heap_tree(&mut lines, &snapshot)?;
        let peak = kind == "peak";
        if better(&snapshot, peak, chosen.as_ref()) {
            chosen = Some(Chosen {
                snapshot,
                peak,
                tree,
            });
        }
    }
    if snapshots == 0 {
        return Err(ParseError::line(
            data.lines().count().max(1),
            "the file has no snapshots (`snapshot=N`): it is truncated",
        ));
    }
    Ok(Read {
        chosen,
        snapshots,
        time_unit,
    })
}

/// `desc:`, `cmd:` and `time_unit:`; returns the time unit.
fn header<'a>(lines: &mut impl Iterator<Item = (usize, &'a str)>) -> Result<String, ParseError> {
    let mut time_unit = None;
    for key in ["desc:", "cmd:", "time_unit:"] {
        match lines.next() {
            Some((_, line)) if line.starts_with(key) => {
                if key == "time_unit:" {
                    time_unit = Some(line[key.len()..].trim().to_string());
                }
            }
            Some((n, line)) => {
                return Err(ParseError::line(
                    n,
                    format!("expected massif's `{key}` line, found {:?}", shown(line)),
                ))
            }
            None => {
                return Err(ParseError::whole(format!(
                    "the file ends before massif's `{key}` line: it is truncated"
                )))
            }
        }
    }
    Ok(time_unit.unwrap_or_default())
}

/// The `key=value` lines of a snapshot up to `heap_tree=`, whose value
/// it returns (`empty`, `detailed` or `peak`).
fn snapshot_fields<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    snapshot: &mut Snapshot,
) -> Result<&'a str, ParseError> {
    for (n, line) in lines.by_ref() {
        if line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err(ParseError::line(
                n,
                format!(
                    "expected a `key=value` line of snapshot {}, found {:?}",
                    snapshot.number,
                    shown(line)
                ),
            ));
        };
        let slot = match key {
            "time" => &mut snapshot.time,
            "mem_heap_B" => &mut snapshot.heap,
            "mem_heap_extra_B" => &mut snapshot.extra,
            "mem_stacks_B" => &mut snapshot.stacks,
            "heap_tree" => return tree_kind(n, value, snapshot),
            _ => continue,
        };
        *slot = Some(number_at(n, key, value)?);
    }
    Err(ParseError::line(
        snapshot.line,
        format!(
            "snapshot {} ends before its `heap_tree=` line: the file is truncated",
            snapshot.number
        ),
    ))
}

fn tree_kind<'a>(n: usize, value: &'a str, snapshot: &Snapshot) -> Result<&'a str, ParseError> {
    if snapshot.heap.is_none() {
        return Err(ParseError::line(
            n,
            format!(
                "snapshot {} has no `mem_heap_B=` before its tree",
                snapshot.number
            ),
        ));
    }
    match value {
        "empty" | "detailed" | "peak" => Ok(value),
        other => Err(ParseError::line(
            n,
            format!(
                "unknown heap_tree {:?} (expected empty, detailed or peak)",
                shown(other)
            ),
        )),
    }
}

/// Reads the tree after a `heap_tree=detailed|peak` line, checking that
/// every entry has the callers its `nK:` announces.
fn heap_tree<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    snapshot: &Snapshot,
) -> Result<Vec<Entry<'a>>, ParseError> {
    let mut tree: Vec<Entry> = Vec::new();
    // Entries still waiting for callers: (index, callers to come).
    let mut open: Vec<(usize, u64)> = Vec::new();
    loop {
        let depth = open.len();
        let Some((n, line)) = lines.next() else {
            return Err(unfinished(&tree, &open, snapshot));
        };
        let (indent, callers, bytes, text) = tree_line(n, line)?;
        if indent > MAX_TREE_DEPTH {
            return Err(ParseError::line(
                n,
                format!("a heap tree entry {indent} callers deep: massif writes at most 200 (`--depth`), perfatlas reads up to {MAX_TREE_DEPTH}"),
            ));
        }
        if indent != depth {
            return Err(ParseError::line(
                n,
                format!("expected a heap tree entry indented by {depth}, found one indented by {indent}"),
            ));
        }
        let callee = open.last().map(|&(i, _)| i);
        if let Some(c) = callee {
            let sum = tree[c].callers_bytes.checked_add(bytes);
            tree[c].callers_bytes = sum.filter(|&s| s <= tree[c].bytes).ok_or_else(|| {
                ParseError::line(
                    n,
                    format!(
                        "the callers of the entry on line {} add up to more than its {} bytes",
                        tree[c].line, tree[c].bytes
                    ),
                )
            })?;
        }
        tree.push(Entry {
            callee,
            bytes,
            callers_bytes: 0,
            text,
            line: n,
        });
        if let Some(top) = open.last_mut() {
            top.1 -= 1;
        }
        if callers > 0 {
            open.push((tree.len() - 1, callers));
        }
        while open.last().is_some_and(|&(_, left)| left == 0) {
            open.pop();
        }
        if open.is_empty() {
            return Ok(tree);
        }
    }
}

/// The error for a tree the file ends inside.
fn unfinished(tree: &[Entry], open: &[(usize, u64)], snapshot: &Snapshot) -> ParseError {
    match open.last() {
        Some(&(i, left)) => ParseError::line(
            tree[i].line,
            format!("the file ends before the {left} remaining callers of this heap tree entry: it is truncated"),
        ),
        None => ParseError::line(
            snapshot.line,
            format!("the file ends before the heap tree of snapshot {}: it is truncated", snapshot.number),
        ),
    }
}

/// `   nK: BYTES TEXT` as (indent, K, BYTES, TEXT).
fn tree_line(n: usize, line: &str) -> Result<(usize, u64, u64, &str), ParseError> {
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    let expected = || {
        ParseError::line(
            n,
            format!(
                "expected a heap tree entry `nK: BYTES …`, found {:?}",
                shown(line)
            ),
        )
    };
    let rest = body.strip_prefix('n').ok_or_else(expected)?;
    let (callers, rest) = rest.split_once(": ").ok_or_else(expected)?;
    let (bytes, text) = rest.split_once(' ').unwrap_or((rest, ""));
    let callers = number_at(n, "the number of callers", callers)?;
    let bytes = number_at(n, "the number of bytes", bytes)?;
    Ok((indent, callers, bytes, text))
}

/// True when this snapshot's tree is a better choice than `chosen`: a
/// peak over any other, else the largest heap (the first on ties).
fn better(snapshot: &Snapshot, peak: bool, chosen: Option<&Chosen>) -> bool {
    let Some(chosen) = chosen else {
        return true;
    };
    match (peak, chosen.peak) {
        (true, false) => true,
        (false, true) => false,
        _ => snapshot.heap > chosen.snapshot.heap,
    }
}

fn number_at(n: usize, what: &str, value: &str) -> Result<u64, ParseError> {
    value.trim().parse().map_err(|_| {
        ParseError::line(
            n,
            format!("{what}: {:?} is not a whole number", shown(value)),
        )
    })
}

/// At most 80 characters of `text`, for messages.
fn shown(text: &str) -> String {
    let cut: String = text.chars().take(80).collect();
    model::visible(&cut).into_owned()
}

fn build(read: Read) -> Parsed {
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(vec![Metric::new("peak_bytes", Unit::Bytes)]);
    match &read.chosen {
        Some(chosen) => {
            add_tree(&chosen.tree, &mut frames, &mut profile);
            profile.notes.push(note(chosen, &read));
        }
        None => profile.notes.push(format!(
            "None of massif's {} snapshots has a heap tree: nothing to show by allocation stack.",
            read.snapshots
        )),
    }
    let (frames, mut profile) = model::fold_sampled_lines(frames, profile);
    profile.allocations_by_function(&frames, None, Some(0), (None, None));
    Parsed::new(frames, profile)
}

/// Adds each entry's own bytes (those its callers do not account for) on
/// its chain read top-down: the entry itself first, the allocating
/// function (the root's child) last; the root (the allocation functions)
/// is the tree's root.
fn add_tree(tree: &[Entry], frames: &mut FrameTable, profile: &mut Profile) {
    let ids: Vec<FrameId> = tree
        .iter()
        .map(|e| match e.callee {
            None => FrameId(0),
            Some(_) => frames.intern(entry_frame(e.text)),
        })
        .collect();
    for (i, entry) in tree.iter().enumerate() {
        let own = entry.bytes - entry.callers_bytes;
        if own == 0 {
            continue;
        }
        let mut stack = Vec::new();
        let mut at = Some(i);
        while let Some(k) = at {
            if tree[k].callee.is_some() {
                stack.push(ids[k]);
            }
            at = tree[k].callee;
        }
        profile.tree.add_stack(stack, &[own as f64]);
    }
}

/// A tree entry's frame: a Valgrind location, or the entry that stands for
/// the callers below massif's threshold.
fn entry_frame(text: &str) -> Frame {
    match text.strip_prefix("in ") {
        Some(rest) if rest.contains("below massif's threshold") => {
            let places = rest.split(',').next().unwrap_or(rest);
            Frame::named(format!("({places} below massif's threshold)"))
        }
        _ => valgrind_frame::parse(text),
    }
}

/// "The tree is massif's peak snapshot (61 of 71, at time 23,548,970 i):
/// …".
fn note(chosen: &Chosen, read: &Read) -> String {
    let s = &chosen.snapshot;
    let which = match chosen.peak {
        true => "massif's peak snapshot",
        false => "the detailed snapshot with the largest heap (none is marked peak)",
    };
    let bytes = |v: Option<u64>| thousands(v.unwrap_or(0));
    let time = s.time.map_or(String::new(), |t| {
        format!(", at time {} {}", thousands(t), read.time_unit)
    });
    format!(
        "The tree is {which} ({} of {} snapshots{time}): {} bytes of useful heap; \
         {} bytes of allocator overhead (extra heap) and {} bytes of stacks are not \
         in it. The other snapshots, massif's time series, are not read.",
        s.number,
        read.snapshots,
        bytes(s.heap),
        bytes(s.extra),
        bytes(s.stacks)
    )
}

#[cfg(test)]
mod tests;
