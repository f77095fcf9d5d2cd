//! GNU gprof's text report (`gprof PROG gmon.out > report.txt`, with or
//! without `-b`, or only `-p`, the flat profile, or `-q`, the call
//! graph). gmon.out itself needs the program to resolve its addresses,
//! so the report is what perfatlas reads. [`report`] reads its sections:
//!
//! - the flat profile's rows (`% time, cumulative seconds, self seconds,
//!   calls, self/call, total/call, name`): each function's own time;
//! - the call graph's entries, one per function between dashed lines:
//!   its callers, its primary line `[N] %time self children called name
//!   [N]`, its callees, each caller or callee line with the `self` and
//!   `children` time gprof propagated along that arc; `<spontaneous>`
//!   callers, recursive calls (`20000+437800000`) and cycles (`name
//!   <cycle 1>`, and the entry `<cycle 1 as a whole>`);
//! - the index by function name, for each function's source file.
//!
//! How its numbers map to perfatlas's model: one metric, `time` in
//! nanoseconds. A function's own time is its flat-profile self seconds
//! (the call graph's when the report has no flat profile), so the
//! profile's total is the sum of that column (gprof rounds each row to
//! 0.01 s, so it can differ from gprof's last cumulative figure by that
//! rounding). The tree is grown by [`crate::call_graph`] from the
//! functions gprof calls `<spontaneous>` (or that have no caller), each
//! arc carrying the time gprof itself split over the callers (`self +
//! children` of the callee line: gprof's assumption that every call costs
//! the same). Inside a cycle gprof propagates no time; there an arc
//! carries its callee's own and outside-children time, split over the
//! cycle members that call it by their call counts. Each node's call
//! count is the arc's count from its parent.

#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap;

use super::{text, Format, Input, Parsed};
use crate::call_graph::{self, Edge, Graph};
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, Metric, Profile, Unit};

pub struct Gprof;

impl Format for Gprof {
    fn name(&self) -> &'static str {
        "gprof"
    }

    /// A report starts with its flat profile or its call graph, and says
    /// how long a sample is or how fine the histogram's bins are.
    fn sniff(&self, input: &Input) -> bool {
        let head = text::decode_text(super::head(input.bytes, 4096));
        let Some(first) = head.lines().map(str::trim).find(|l| !l.is_empty()) else {
            return false;
        };
        let starts = first == "Flat profile:" || first.starts_with("Call graph");
        starts
            && (head.contains("\nEach sample counts as ")
                || head.contains("\ngranularity: each sample hit covers "))
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        Ok(profile(&report(input.bytes)?))
    }
}

/// A caller or callee line of a call-graph entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Arc {
    /// The `[N]` of the function at the other end.
    pub index: u32,
    /// Time propagated along the arc (`self + children`), when gprof
    /// gives it (not for calls inside a cycle or recursion).
    pub seconds: Option<f64>,
    /// Calls along the arc (the first number of `a/b`).
    pub calls: f64,
    /// The line it was on.
    pub line: usize,
}

/// One entry of the call graph.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    pub index: u32,
    pub name: String,
    /// The cycle the function is part of (`<cycle N>`).
    pub cycle: Option<u32>,
    /// `<cycle N as a whole>`.
    pub whole_cycle: bool,
    pub self_seconds: f64,
    pub children_seconds: f64,
    /// All calls of the function (`a+b` adds the recursive ones).
    pub calls: f64,
    pub spontaneous: bool,
    pub callers: Vec<Arc>,
    pub callees: Vec<Arc>,
}

/// A gprof report as read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// Flat profile: (name, self seconds).
    pub flat: Vec<(String, f64)>,
    pub graph: Vec<Entry>,
    /// From the index by function name: name → source file.
    pub files: FxHashMap<String, String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Other,
    FlatHeader,
    Flat,
    GraphHeader,
    Graph,
    Index,
}

/// Reads the report's sections.
pub fn report(bytes: &[u8]) -> Result<Report, ParseError> {
    let data = text::decode_text(bytes);
    let mut out = Report::default();
    let mut section = Section::Other;
    let mut entry_lines: Vec<(usize, &str)> = Vec::new();
    let mut index_text = String::new();
    for (i, raw) in data.split('\n').enumerate() {
        let n = i + 1;
        let line = raw.trim_end_matches(['\r', '\u{c}']);
        let trimmed = line.trim();
        if trimmed == "Flat profile:" {
            section = Section::FlatHeader;
            continue;
        }
        if trimmed.starts_with("Call graph") {
            section = Section::GraphHeader;
            continue;
        }
        if trimmed == "Index by function name" {
            section = Section::Index;
            continue;
        }
        match section {
            Section::FlatHeader if trimmed.starts_with("time ") => section = Section::Flat,
            Section::Flat if trimmed.is_empty() => section = Section::Other,
            Section::Flat => out.flat.push(flat_row(n, trimmed)?),
            Section::GraphHeader if trimmed.starts_with("index ") => section = Section::Graph,
            Section::Graph if trimmed.is_empty() || trimmed.starts_with("---") => {
                if !entry_lines.is_empty() {
                    out.graph.push(entry(&std::mem::take(&mut entry_lines))?);
                }
                if trimmed.is_empty() {
                    section = Section::Other;
                }
            }
            Section::Graph => entry_lines.push((n, line)),
            Section::Index if line.starts_with('\u{c}') || raw.contains('\u{c}') => {
                section = Section::Other
            }
            Section::Index => {
                index_text.push_str(trimmed);
                index_text.push(' ');
            }
            _ => {}
        }
    }
    if let Some(&(n, _)) = entry_lines.last() {
        return Err(ParseError::line(
            n,
            "the call graph ends inside an entry (no closing dashed line): the report is truncated",
        ));
    }
    if out.flat.is_empty() && out.graph.is_empty() {
        return Err(ParseError::whole(
            "no flat profile or call graph rows: expected gprof's report (`gprof PROG gmon.out`)",
        ));
    }
    check_references(&out)?;
    out.files = index_files(&out, &index_text);
    Ok(out)
}

/// `% time, cumulative, self, [calls, self/call, total/call], name`.
fn flat_row(n: usize, line: &str) -> Result<(String, f64), ParseError> {
    let (numbers, name) = leading_numbers(line);
    if !(numbers.len() == 3 || numbers.len() == 6) || name.is_empty() {
        return Err(ParseError::line(
            n,
            format!(
                "expected a flat-profile row (% time, cumulative seconds, self seconds, calls, self/call, total/call, name), found `{}`",
                shown(line)
            ),
        ));
    }
    let seconds = seconds(n, numbers[2])?;
    Ok((name.to_string(), seconds))
}

/// One call-graph entry from its lines: callers, the `[N]` line, callees.
fn entry(lines: &[(usize, &str)]) -> Result<Entry, ParseError> {
    let primary = lines
        .iter()
        .position(|(_, l)| l.trim_start().starts_with('['))
        .ok_or_else(|| ParseError::line(lines[0].0, "a call-graph entry without its `[N]` line"))?;
    let (n, line) = lines[primary];
    let mut e = primary_line(n, line)?;
    for &(n, line) in &lines[..primary] {
        if line.trim() == "<spontaneous>" {
            e.spontaneous = true;
        } else {
            e.callers.push(arc(n, line)?);
        }
    }
    for &(n, line) in &lines[primary + 1..] {
        // `<cycle N as a whole>` lists its members, not calls.
        if !e.whole_cycle {
            e.callees.push(arc(n, line)?);
        }
    }
    Ok(e)
}

/// `[N] %time self children [called] name [N]`.
fn primary_line(n: usize, line: &str) -> Result<Entry, ParseError> {
    let bad = || {
        ParseError::line(
            n,
            format!(
                "expected a call-graph line `[N] %time self children called name [N]`, found `{}`",
                shown(line.trim())
            ),
        )
    };
    let (numbers, rest) = leading_numbers(line.trim());
    let index = numbers
        .first()
        .and_then(|w| w.strip_prefix('['))
        .and_then(|w| w.strip_suffix(']'))
        .and_then(|w| w.parse().ok())
        .ok_or_else(bad)?;
    if !(4..=5).contains(&numbers.len()) {
        return Err(bad());
    }
    let (name, cycle, whole_cycle) = name_part(n, rest)?;
    Ok(Entry {
        index,
        name,
        cycle,
        whole_cycle,
        self_seconds: seconds(n, numbers[2])?,
        children_seconds: seconds(n, numbers[3])?,
        calls: numbers.get(4).map_or(Ok(0.0), |c| calls(n, c, true))?,
        ..Entry::default()
    })
}

/// `[self children] called name [N]`.
fn arc(n: usize, line: &str) -> Result<Arc, ParseError> {
    let (numbers, rest) = leading_numbers(line.trim());
    let (seconds, called) = match numbers.as_slice() {
        [called] => (None, called),
        [s, c, called] => (Some(seconds(n, s)? + seconds(n, c)?), called),
        _ => {
            return Err(ParseError::line(
                n,
                format!(
                    "expected a caller or callee line `self children called name [N]`, found `{}`",
                    shown(line.trim())
                ),
            ))
        }
    };
    let index = trailing_index(rest).map(|(_, i)| i).ok_or_else(|| {
        ParseError::line(
            n,
            format!("expected `[N]` after the name in `{}`", shown(rest)),
        )
    })?;
    Ok(Arc {
        index,
        seconds,
        calls: calls(n, called, false)?,
        line: n,
    })
}

/// The words of `line` that are figures (`[N]`, `1.06`, `20000/20000`,
/// `20000+437800000`), and the rest of the line, the name.
fn leading_numbers(line: &str) -> (Vec<&str>, &str) {
    let mut numbers = Vec::new();
    let mut rest = line.trim_start();
    while let Some(word) = rest.split_whitespace().next() {
        let figure = word
            .bytes()
            .all(|b| b.is_ascii_digit() || b"./+".contains(&b))
            || (word.starts_with('[') && word.ends_with(']') && numbers.is_empty());
        if !figure || !word.bytes().any(|b| b.is_ascii_digit()) {
            break;
        }
        numbers.push(word);
        rest = rest[word.len()..].trim_start();
    }
    (numbers, rest)
}

/// `name [<cycle N>] [N]`, or `<cycle N as a whole> [N]`: the name, its
/// cycle, and whether it is a whole cycle.
fn name_part(n: usize, text: &str) -> Result<(String, Option<u32>, bool), ParseError> {
    let (name, _) = trailing_index(text).ok_or_else(|| {
        ParseError::line(
            n,
            format!("expected `[N]` after the name in `{}`", shown(text)),
        )
    })?;
    if let Some(c) = name
        .strip_prefix("<cycle ")
        .and_then(|c| c.strip_suffix(" as a whole>"))
    {
        return Ok((name.to_string(), c.parse().ok(), true));
    }
    if let Some((f, c)) = name.rsplit_once(" <cycle ") {
        if let Some(c) = c.strip_suffix('>').and_then(|c| c.parse().ok()) {
            return Ok((f.to_string(), Some(c), false));
        }
    }
    Ok((name.to_string(), None, false))
}

/// `text` without its trailing `[N]`, and N.
fn trailing_index(text: &str) -> Option<(&str, u32)> {
    let text = text.trim_end();
    let open = text.rfind(" [")?;
    let index = text[open + 2..].strip_suffix(']')?.parse().ok()?;
    Some((text[..open].trim_end(), index))
}

fn seconds(n: usize, word: &str) -> Result<f64, ParseError> {
    word.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| ParseError::line(n, format!("expected seconds, found `{}`", shown(word))))
}

/// `a/b` (calls along an arc: a), `a+b` (a function's calls: a + b when
/// `total`), or `a`.
fn calls(n: usize, word: &str, total: bool) -> Result<f64, ParseError> {
    let number = |w: &str| {
        w.parse::<f64>()
            .ok()
            .filter(|c| c.is_finite() && *c >= 0.0)
            .ok_or_else(|| {
                ParseError::line(n, format!("expected a call count, found `{}`", shown(word)))
            })
    };
    if let Some((a, _)) = word.split_once('/') {
        return number(a);
    }
    match word.split_once('+') {
        Some((a, b)) if total => Ok(number(a)? + number(b)?),
        Some((a, _)) => number(a),
        None => number(word),
    }
}

/// Every `[N]` an arc names has an entry (a report cut short loses the
/// entries its first ones point to).
fn check_references(report: &Report) -> Result<(), ParseError> {
    let known: rustc_hash::FxHashSet<u32> = report.graph.iter().map(|e| e.index).collect();
    for e in &report.graph {
        for a in e.callers.iter().chain(&e.callees) {
            if !known.contains(&a.index) {
                return Err(ParseError::line(
                    a.line,
                    format!(
                        "the call graph has no entry [{}]: the report is truncated or edited",
                        a.index
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Source files from the index (`[7] checksum (prog.c)`): the text after
/// an entry's name, in parentheses.
fn index_files(report: &Report, index: &str) -> FxHashMap<String, String> {
    let names: FxHashMap<u32, &str> = report
        .graph
        .iter()
        .map(|e| (e.index, e.name.as_str()))
        .collect();
    let mut files = FxHashMap::default();
    for chunk in index.split('[').skip(1) {
        let Some((i, text)) = chunk.split_once(']') else {
            continue;
        };
        let Some(name) = i.parse().ok().and_then(|i: u32| names.get(&i)) else {
            continue;
        };
        let file = text
            .trim()
            .strip_prefix(*name)
            .and_then(|t| t.trim().strip_prefix('('))
            .and_then(|t| t.strip_suffix(')'));
        if let Some(file) = file.filter(|f| !f.is_empty()) {
            files.insert(name.to_string(), file.to_string());
        }
    }
    files
}

/// The profile of a report.
pub fn profile(report: &Report) -> Parsed {
    let mut frames = FrameTable::new();
    let flat: FxHashMap<&str, f64> = report.flat.iter().map(|(n, s)| (n.as_str(), *s)).collect();
    // Functions: the call graph's entries (not whole cycles), then flat
    // rows the graph does not have.
    let mut names: Vec<&str> = Vec::new();
    let mut slot: FxHashMap<&str, usize> = FxHashMap::default();
    let entries: Vec<&Entry> = report.graph.iter().filter(|e| !e.whole_cycle).collect();
    for name in entries
        .iter()
        .map(|e| e.name.as_str())
        .chain(report.flat.iter().map(|(n, _)| n.as_str()))
    {
        slot.entry(name).or_insert_with(|| {
            names.push(name);
            names.len() - 1
        });
    }
    let ids: Vec<FrameId> = names
        .iter()
        .map(|name| {
            frames.intern(Frame {
                function: name.to_string(),
                file: report.files.get(*name).cloned(),
                ..Frame::default()
            })
        })
        .collect();
    let by_index: FxHashMap<u32, &Entry> = entries.iter().map(|e| (e.index, *e)).collect();
    let own: Vec<f64> = names
        .iter()
        .map(|name| {
            let graph_self = entries
                .iter()
                .find(|e| e.name == *name)
                .map(|e| e.self_seconds);
            flat.get(name).copied().or(graph_self).unwrap_or(0.0) * 1e9
        })
        .collect();
    let graph = graph_of(&entries, &by_index, &slot, &ids, &own);
    let mut profile = Profile::new(vec![Metric::new("time", Unit::Nanoseconds)]);
    let built = call_graph::build(&graph, &mut profile.tree);
    profile.call_counts = Some(call_counts(&entries, &by_index, &slot, &ids, &profile.tree));
    profile.notes.push(
        "gprof records a call graph, not stacks: this tree shares each function's time among its callers as gprof's call graph does (in proportion to their calls), so each function's own time is exact but its split across call paths is an estimate; recursion and cycles are folded into their outermost call.".to_string(),
    );
    if built.cut {
        profile.notes.push(call_graph::cut_note());
    }
    Parsed::new(frames, profile)
}

/// The arcs as a call graph in nanoseconds (see the module doc for
/// arcs inside a cycle).
fn graph_of(
    entries: &[&Entry],
    by_index: &FxHashMap<u32, &Entry>,
    slot: &FxHashMap<&str, usize>,
    ids: &[FrameId],
    own: &[f64],
) -> Graph {
    let mut graph = Graph::default();
    let mut whole = own.to_vec();
    let mut root = vec![false; ids.len()];
    let mut called = vec![false; ids.len()];
    for e in entries {
        let f = slot[e.name.as_str()];
        root[f] |= e.spontaneous;
        for a in &e.callees {
            let Some(callee) = by_index.get(&a.index) else {
                continue;
            };
            let g = slot[callee.name.as_str()];
            if g == f {
                continue;
            }
            let cost = match a.seconds {
                Some(s) => s * 1e9,
                None => in_cycle_share(by_index, e, callee, a.calls) * 1e9,
            };
            whole[f] += cost;
            called[g] = true;
            graph.edges.push(Edge {
                caller: f,
                callee: g,
                cost: vec![cost],
            });
        }
    }
    for (i, &frame) in ids.iter().enumerate() {
        let is_root = root[i] || !called[i];
        graph.functions.push(call_graph::Function {
            frame,
            own: vec![own[i]],
            whole: vec![whole[i]],
            root: vec![if is_root { whole[i] } else { 0.0 }],
        });
    }
    graph
}

/// The seconds an arc inside a cycle carries: the callee's own and
/// outside-children time, times this caller's share of the callee's
/// calls from other members of the cycle.
fn in_cycle_share(
    by_index: &FxHashMap<u32, &Entry>,
    caller: &Entry,
    callee: &Entry,
    calls: f64,
) -> f64 {
    if caller.cycle.is_none() || caller.cycle != callee.cycle {
        return 0.0;
    }
    let from_members: f64 = callee
        .callers
        .iter()
        .filter(|a| a.seconds.is_none() && a.index != callee.index)
        .filter(|a| {
            by_index
                .get(&a.index)
                .is_some_and(|e| e.cycle == callee.cycle)
        })
        .map(|a| a.calls)
        .sum();
    if from_members <= 0.0 {
        return 0.0;
    }
    (callee.self_seconds + callee.children_seconds) * (calls / from_members).min(1.0)
}

fn call_counts(
    entries: &[&Entry],
    by_index: &FxHashMap<u32, &Entry>,
    slot: &FxHashMap<&str, usize>,
    ids: &[FrameId],
    tree: &model::CallTree,
) -> Vec<f64> {
    let mut edges: FxHashMap<(FrameId, FrameId), f64> = FxHashMap::default();
    let mut into: FxHashMap<FrameId, f64> = FxHashMap::default();
    for e in entries {
        let f = ids[slot[e.name.as_str()]];
        into.insert(f, e.calls);
        for a in &e.callees {
            if let Some(callee) = by_index.get(&a.index) {
                *edges
                    .entry((f, ids[slot[callee.name.as_str()]]))
                    .or_default() += a.calls;
            }
        }
    }
    call_graph::calls_per_node(tree, &edges, &into)
}

/// A piece of a line for a message: at most 80 characters.
fn shown(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
