//! Callgrind-format profiles: Valgrind's callgrind (`callgrind.out.PID`),
//! and other writers of the format (Xdebug), as the Valgrind manual's
//! "Callgrind Format Specification" describes it. [`mod@read`] reads the
//! lines: compressed names (`fn=(id) name`, then `fn=(id)`), the object,
//! file and function lines (`ob=`, `fl=`, `fi=`/`fe=` for inlined code,
//! `fn=`), calls (`cob=`, `cfi=`, `cfn=`, then `calls=COUNT TARGET` and
//! the call's inclusive cost line), cost lines of `positions:` (`line`,
//! or `instr line`) with relative positions (`+3`, `-2`, `*`), and
//! `summary:`/`totals:`. Jump lines (`jump=`, `jcnd=`) are skipped.
//!
//! How its numbers map to perfatlas's model:
//!
//! - Each event of `events:` is a metric, in the file's order: `Ir`
//!   (instructions) first, and with `--cache-sim=yes`/`--branch-sim=yes`
//!   the cache and branch events. They count (unit `count`); Xdebug's
//!   `Time_(10ns)` and `Memory_(bytes)` become nanoseconds and bytes.
//! - A function is its file and name, as callgrind_annotate keys it
//!   (`prog.c:fib`), its object (`ob=`) its module. Callgrind's recursion
//!   levels (`fib'2`) are functions of their own, as callgrind writes and
//!   callgrind_annotate shows them. Cost lines after `fi=`/`fe=` (code
//!   inlined from another file) count in the function they are written
//!   under (callgrind_annotate lists them apart, as `header.h:function`).
//! - A function's own cost is the sum of its cost lines; per line of its
//!   file it goes to the profile's line table (source pages).
//! - The file is a call graph, not stacks. The tree is grown from it by
//!   [`crate::call_graph`]: from the functions nobody calls, each
//!   callee's cost is split over its callers in proportion to the
//!   inclusive costs of their `calls=` lines (gprof's assumption: every
//!   call costs the same), and recursion is cut where the function is
//!   already on the path. So every function's own cost, and the total
//!   (`summary:`), are exactly the file's, and so is the inclusive cost of
//!   a function that does not call itself (callgrind_annotate's
//!   `--inclusive=yes`; for a recursive function that figure adds the
//!   recursive calls again, perfatlas counts each instruction once); the
//!   split over call paths is an estimate, which a note on the profile
//!   says.
//! - Each node's call count is the `calls=` count from its parent's
//!   function into its own, over every context.
//!
//! The profile's totals are the sum of the functions' costs, which is
//! the file's `totals:` line; callgrind's `summary:` (callgrind_annotate's
//! PROGRAM TOTALS) can count a few more events that callgrind charged to
//! no function (2 instructions at exit), and a note says so then. A file
//! whose costs fall short of its `summary:` and that has no `totals:` line
//! (callgrind writes it last) is truncated: an error.

mod read;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap;

use self::read::{Costs, Reader};
use super::{text, Format, Input, Parsed};
use crate::call_graph::{self, Edge, Graph};
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, LineSelf, Metric, NodeId, Profile, Unit};

pub use read::{Call, Function};

pub struct Callgrind;

/// Header keys a callgrind file may start with.
const FIRST_KEYS: [&str; 7] = [
    "version:",
    "creator:",
    "events:",
    "positions:",
    "cmd:",
    "pid:",
    "desc:",
];

/// A callgrind file's first line: its format line, or one of the header
/// keys callgrind writes first. The folded reader refuses such files too:
/// their cost lines (`0 5`, `+3 2`) would otherwise read as stacks.
pub(crate) fn starts_like_callgrind(line: &str) -> bool {
    line.starts_with("# callgrind format") || FIRST_KEYS.iter().any(|k| line.starts_with(k))
}

impl Format for Callgrind {
    fn name(&self) -> &'static str {
        "callgrind"
    }

    /// The format line `# callgrind format` first, or a first line that
    /// is one of the format's header keys and an `events:` line in the
    /// head.
    fn sniff(&self, input: &Input) -> bool {
        let head = text::decode_text(super::head(input.bytes, 8192));
        let mut lines = head.lines().map(str::trim).filter(|l| !l.is_empty());
        let Some(first) = lines.next() else {
            return false;
        };
        if first.starts_with("# callgrind format") {
            return true;
        }
        starts_like_callgrind(first)
            && (first.starts_with("events:") || lines.any(|l| l.starts_with("events:")))
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let costs = read(input.bytes)?;
        Ok(profile(&costs))
    }
}

/// Reads the lines of a callgrind file, and checks its costs against its
/// `summary:`.
pub fn read(bytes: &[u8]) -> Result<Costs, ParseError> {
    let data = text::decode_text(bytes);
    let mut reader = Reader::new();
    let mut last = 0;
    for (i, line) in data.split('\n').enumerate() {
        reader.line(i + 1, line)?;
        last = i + 1;
    }
    let mut costs = reader.finish(last)?;
    check_summary(&mut costs, last)?;
    Ok(costs)
}

/// The functions' own costs against `totals:` (a warning when they
/// differ) or, in a file without it, `summary:` (costs short of it mean
/// the file is truncated: an error; more, a warning).
fn check_summary(costs: &mut Costs, last: usize) -> Result<(), ParseError> {
    let sums = own_sums(costs);
    let (stated, truncated) = match (&costs.totals, &costs.summary) {
        (Some(totals), _) => (totals, false),
        (None, Some(summary)) => (summary, true),
        (None, None) => return Ok(()),
    };
    let (at, figures) = stated;
    let stated_of = |m: usize| figures.get(m).copied().unwrap_or(0);
    let Some(m) = (0..sums.len()).find(|&m| sums[m] != stated_of(m)) else {
        return Ok(());
    };
    let said = format!(
        "the costs add up to {} {} but line {at} says {}",
        sums[m],
        costs.events[m],
        stated_of(m)
    );
    if truncated && sums[m] < stated_of(m) {
        return Err(ParseError::line(
            last,
            format!("the file ends without its `totals:` line and {said}: it is truncated"),
        ));
    }
    let at = *at;
    costs.warnings.push(ParseError::line(at, said));
    Ok(())
}

/// The sum of every function's own cost, per event.
fn own_sums(costs: &Costs) -> Vec<i128> {
    let mut sums = vec![0i128; costs.events.len()];
    for f in &costs.functions {
        for (s, c) in sums.iter_mut().zip(&f.own) {
            *s = s.saturating_add(*c);
        }
    }
    sums
}

/// A note when `summary:` counts more than the functions were charged
/// with (callgrind counts a few instructions at exit that it attributes
/// to no function): the profile's total is the functions' sum.
fn summary_note(costs: &Costs) -> Option<String> {
    let (_, summary) = costs.summary.as_ref()?;
    let sums = own_sums(costs);
    let m = (0..sums.len()).find(|&m| summary.get(m).is_some_and(|s| *s > sums[m]))?;
    Some(format!(
        "The file's summary counts {} {} that callgrind charged to no function; the profile's totals are its functions' costs ({} {}).",
        summary[m] - sums[m],
        costs.events[m],
        sums[m],
        costs.events[m]
    ))
}

/// The profile of what [`read()`] read.
pub fn profile(costs: &Costs) -> Parsed {
    let (metrics, scales): (Vec<Metric>, Vec<f64>) =
        costs.events.iter().map(|e| metric_of(e)).unzip();
    let values = |v: &[i128]| -> Vec<f64> {
        scales
            .iter()
            .enumerate()
            .map(|(m, s)| v.get(m).copied().unwrap_or(0) as f64 * s)
            .collect()
    };
    let mut frames = FrameTable::new();
    let ids: Vec<FrameId> = costs
        .functions
        .iter()
        .map(|f| frames.intern(frame_of(f)))
        .collect();
    let graph = graph_of(costs, &ids, &values);
    let mut profile = Profile::new(metrics);
    let built = call_graph::build(&graph, &mut profile.tree);
    profile.line_self = line_self(costs, &built, &values);
    profile.call_counts = Some(call_counts(costs, &ids, &profile.tree));
    profile.notes.push(
        "Callgrind records a call graph, not stacks: this tree shares each function's cost among its callers in proportion to the inclusive cost of their calls (gprof's assumption), so each function's own cost is exact but its split across call paths is an estimate; recursion is folded into its outermost call.".to_string(),
    );
    if built.cut {
        profile.notes.push(call_graph::cut_note());
    }
    profile.notes.extend(summary_note(costs));
    let mut parsed = Parsed::new(frames, profile);
    parsed.warnings = costs.warnings.clone();
    parsed
}

/// The metric of an event, and the factor its counts are scaled by:
/// Xdebug's `Name_(unit)` in nanoseconds or bytes, anything else a count.
fn metric_of(event: &str) -> (Metric, f64) {
    let unit = event.strip_suffix(')').and_then(|e| e.rsplit_once("_("));
    if let Some((name, unit)) = unit {
        let digits = unit.bytes().take_while(u8::is_ascii_digit).count();
        let factor: f64 = unit[..digits].parse().unwrap_or(1.0);
        if let Some(ns) = Unit::nanoseconds_per(&unit[digits..]) {
            return (Metric::new(name, Unit::Nanoseconds), factor * ns);
        }
        if matches!(&unit[digits..], "bytes" | "byte") {
            return (Metric::new(name, Unit::Bytes), factor);
        }
    }
    (Metric::new(event, Unit::Count), 1.0)
}

/// A function's frame: its name, file and object, and the line of its
/// file it spends the most of the first event on.
fn frame_of(f: &Function) -> Frame {
    let line = f
        .lines
        .iter()
        .max_by(|a, b| {
            let (x, y) = (a.1.first().unwrap_or(&0), b.1.first().unwrap_or(&0));
            x.cmp(y).then_with(|| b.0.cmp(a.0))
        })
        .map(|(line, _)| *line);
    Frame {
        function: f.name.clone(),
        file: f.file.clone(),
        line,
        module: f.object.clone(),
        ..Frame::default()
    }
}

/// The call graph of the file: each function's whole is its own cost and
/// its calls' to other functions (a recursive call is inside those); the
/// roots are the functions no other function calls.
fn graph_of(costs: &Costs, ids: &[FrameId], values: &dyn Fn(&[i128]) -> Vec<f64>) -> Graph {
    let mut graph = Graph::default();
    let mut called = vec![false; costs.functions.len()];
    let mut whole: Vec<Vec<f64>> = costs.functions.iter().map(|f| values(&f.own)).collect();
    for call in costs.calls.iter().filter(|c| c.caller != c.callee) {
        let cost = values(&call.cost);
        for (w, c) in whole[call.caller].iter_mut().zip(&cost) {
            *w += c;
        }
        called[call.callee] = true;
        graph.edges.push(Edge {
            caller: call.caller,
            callee: call.callee,
            cost,
        });
    }
    for (i, f) in costs.functions.iter().enumerate() {
        let root = match called[i] {
            true => vec![0.0; whole[i].len()],
            false => whole[i].clone(),
        };
        graph.functions.push(call_graph::Function {
            frame: ids[i],
            own: values(&f.own),
            whole: whole[i].clone(),
            root,
        });
    }
    graph
}

/// Each node's share of its function's own cost per line.
fn line_self(
    costs: &Costs,
    built: &call_graph::Built,
    values: &dyn Fn(&[i128]) -> Vec<f64>,
) -> Option<LineSelf> {
    let mut entries = Vec::new();
    for (n, function) in built.function.iter().enumerate() {
        let Some(f) = function else { continue };
        let share = &built.share[n];
        for (line, cost) in &costs.functions[*f].lines {
            let v: Vec<f64> = values(cost).iter().zip(share).map(|(c, s)| c * s).collect();
            if v.iter().any(|x| *x != 0.0) {
                entries.push((NodeId(n as u32), *line, v));
            }
        }
    }
    let metrics = costs.events.len();
    (!entries.is_empty()).then(|| LineSelf::from_entries(metrics, entries))
}

/// Per node, the calls from its parent's function into its own; for a
/// top-level node every call into its function; none for the root.
fn call_counts(costs: &Costs, ids: &[FrameId], tree: &model::CallTree) -> Vec<f64> {
    let mut edges: FxHashMap<(FrameId, FrameId), f64> = FxHashMap::default();
    let mut into: FxHashMap<FrameId, f64> = FxHashMap::default();
    for c in &costs.calls {
        *edges.entry((ids[c.caller], ids[c.callee])).or_default() += c.count as f64;
        *into.entry(ids[c.callee]).or_default() += c.count as f64;
    }
    call_graph::calls_per_node(tree, &edges, &into)
}
