//! Per-line costs for source pages: for each source line of a version, the
//! time spent executing it (self) and with it on the stack (total, each
//! sample once even under recursion), per benchmark, as the mean over the
//! version's repetitions; and the hottest line of each function, where
//! links to its code land.
//!
//! A frame's costs go to its own line: the executing line for most
//! inputs, but for a V8 call frame the line where its function starts.
//! Where a profile has a line table ([`model::LineSelf`], from V8's
//! `positionTicks`), a node's self value goes to the lines the table gives
//! it instead (what they do not hold stays on the frame's line), as Chrome
//! DevTools' Sources panel shows self time per line. Its total stays on
//! the frame's line: V8 records which line was executing, not which line
//! made a call, so the time a function spent on the stack cannot be split
//! by line. A line's total is never less than its self value (a line is
//! on the stack while it executes): on a line the table gives, where no
//! total is known, it is that lower bound. Metrics the table has no values
//! for (derived ones) keep self on the frame's line too.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::scope::Scope;
use model::{CallTree, FrameId, History, LineSelf, NodeId, Profile, Unit};

/// Self and total of one line in one benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub self_value: f64,
    pub total: f64,
}

/// The costs of one version's lines.
#[derive(Debug, Clone, Default)]
pub struct VersionCosts {
    /// Benchmarks with profiles in the version: name, metric, unit, and the
    /// mean total of the metric.
    pub benchmarks: Vec<(String, String, Unit, f64)>,
    /// File (as profiles name it) → line → one cost per benchmark.
    pub files: BTreeMap<String, BTreeMap<u32, Vec<Cost>>>,
}

/// Self values by frame: on the frame's own line, and on the lines line
/// tables give.
#[derive(Debug, Default)]
struct SelfCosts {
    own: FxHashMap<FrameId, f64>,
    on_lines: FxHashMap<(FrameId, u32), f64>,
}

/// The benchmarks with profiles in `version`, each with its scope.
fn benchmark_scopes(history: &History, version: usize) -> Vec<(String, Scope)> {
    let count = |b: &str| {
        history
            .profiles
            .iter()
            .filter(|p| p.benchmark == b && p.version == version)
            .count()
    };
    history
        .benchmarks()
        .into_iter()
        .filter(|b| count(b) > 0)
        .map(|b| {
            let scope = Scope::new(history, &b, std::slice::from_ref(&b));
            (b, scope)
        })
        .collect()
}

/// Per-line costs of every file in `version`.
pub fn version_costs(history: &History, version: usize) -> VersionCosts {
    let mut out = VersionCosts::default();
    let benchmarks = benchmark_scopes(history, version);
    for (k, (benchmark, scope)) in benchmarks.iter().enumerate() {
        let entries: Vec<(usize, usize)> = scope.entries(version).collect();
        let reps = entries.len().max(1) as f64;
        let mut totals: FxHashMap<FrameId, f64> = FxHashMap::default();
        let mut selfs = SelfCosts::default();
        let mut grand = 0.0;
        for &(e, m) in &entries {
            let profile = &history.profiles[e].profile;
            grand += profile.tree.total(m) / reps;
            add_frame_totals(&profile.tree, m, 1.0 / reps, &mut totals);
            add_self_costs(profile, m, 1.0 / reps, &mut selfs);
        }
        out.benchmarks.push((
            benchmark.clone(),
            scope.metric.clone(),
            scope.unit.clone(),
            grand,
        ));
        let (files, column) = (&mut out.files, (k, benchmarks.len()));
        for (frame, total) in totals {
            if let Some(cost) = cost_at(history, files, (frame, None), column) {
                cost.total += total;
            }
        }
        for (frame, value) in selfs.own {
            if let Some(cost) = cost_at(history, files, (frame, None), column) {
                cost.self_value += value;
            }
        }
        for ((frame, line), value) in selfs.on_lines {
            if let Some(cost) = cost_at(history, files, (frame, Some(line)), column) {
                cost.self_value += value;
            }
        }
    }
    for cost in out
        .files
        .values_mut()
        .flat_map(|f| f.values_mut())
        .flatten()
    {
        cost.total = cost.total.max(cost.self_value);
    }
    out
}

/// The cost of benchmark `k` (of `count`) on `line` of `frame`'s file (its
/// own line when `None`), created when missing; `None` for a frame
/// without a file or line.
fn cost_at<'a>(
    history: &History,
    files: &'a mut BTreeMap<String, BTreeMap<u32, Vec<Cost>>>,
    (frame, line): (FrameId, Option<u32>),
    (k, count): (usize, usize),
) -> Option<&'a mut Cost> {
    let f = history.frames.get(frame);
    let (Some(file), Some(line)) = (&f.file, line.or(f.line)) else {
        return None;
    };
    let row = files
        .entry(file.clone())
        .or_default()
        .entry(line)
        .or_insert_with(|| vec![Cost::default(); count]);
    Some(&mut row[k])
}

/// The hottest line of each function of a version that has line self
/// values: the line with the largest self value, its own line included.
#[derive(Debug, Clone, Default)]
pub struct HottestLines {
    by_frame: FxHashMap<FrameId, u32>,
}

impl HottestLines {
    /// The hottest line of `frame`'s function, when its profiles put self
    /// values on lines of its own.
    pub fn get(&self, frame: FrameId) -> Option<u32> {
        self.by_frame.get(&frame).copied()
    }

    /// Every frame with a hottest line, and the line (in no order).
    pub fn iter(&self) -> impl Iterator<Item = (FrameId, u32)> + '_ {
        self.by_frame.iter().map(|(f, l)| (*f, *l))
    }
}

/// The hottest line of each function with line self values in `version`.
/// A line's weight is its self value as a share of its benchmark's mean
/// total, added over the benchmarks (which may count in different units);
/// with one benchmark, the line with the largest self value. Ties go to
/// the first line.
pub fn hottest_lines(history: &History, version: usize) -> HottestLines {
    let has_lines = |p: &model::ProfileEntry| p.version == version && p.profile.line_self.is_some();
    if !history.profiles.iter().any(has_lines) {
        return HottestLines::default();
    }
    let mut weight: FxHashMap<(FrameId, Option<u32>), f64> = FxHashMap::default();
    for (_, scope) in benchmark_scopes(history, version) {
        let entries: Vec<(usize, usize)> = scope.entries(version).collect();
        let reps = entries.len().max(1) as f64;
        let mut selfs = SelfCosts::default();
        let mut grand = 0.0;
        for &(e, m) in &entries {
            let profile = &history.profiles[e].profile;
            grand += profile.tree.total(m) / reps;
            add_self_costs(profile, m, 1.0 / reps, &mut selfs);
        }
        if grand <= 0.0 {
            continue;
        }
        for (frame, value) in selfs.own {
            *weight.entry((frame, None)).or_default() += value / grand;
        }
        for ((frame, line), value) in selfs.on_lines {
            *weight.entry((frame, Some(line))).or_default() += value / grand;
        }
    }
    HottestLines {
        by_frame: hottest_of(history, weight),
    }
}

/// Per frame with weights on lines of its own, the line of most weight
/// (`None` standing for the frame's own line).
fn hottest_of(
    history: &History,
    weight: FxHashMap<(FrameId, Option<u32>), f64>,
) -> FxHashMap<FrameId, u32> {
    let mut best: FxHashMap<FrameId, (f64, u32)> = FxHashMap::default();
    let mut on_lines: Vec<FrameId> = Vec::new();
    for ((frame, line), w) in weight {
        if line.is_some() {
            on_lines.push(frame);
        }
        let Some(line) = line.or(history.frames.get(frame).line) else {
            continue;
        };
        let slot = best.entry(frame).or_insert((w, line));
        if w > slot.0 || (w == slot.0 && line < slot.1) {
            *slot = (w, line);
        }
    }
    on_lines
        .into_iter()
        .filter_map(|f| Some((f, best.get(&f)?.1)))
        .collect()
}

/// Adds each frame's self value, times `weight`: on the lines the
/// profile's line table gives, the rest on the frame's own line.
fn add_self_costs(profile: &Profile, metric: usize, weight: f64, out: &mut SelfCosts) {
    let tree = &profile.tree;
    let lines = profile
        .line_self
        .as_ref()
        .filter(|t| metric < t.metric_count());
    for node in tree.node_ids() {
        let Some(frame) = tree.frame(node) else {
            continue;
        };
        let value = tree.self_value(node, metric);
        let own = match lines {
            Some(lines) => split_self(lines, node, (metric, value), weight, |line, v| {
                *out.on_lines.entry((frame, line)).or_default() += v;
            }),
            None => value,
        };
        if own != 0.0 {
            *out.own.entry(frame).or_default() += own * weight;
        }
    }
}

/// Hands `node`'s self `value` of `metric`, times `weight`, to `on_line`
/// for each line its table gives (scaled down if they hold more than the
/// node's self value); returns what stays on its frame's own line.
fn split_self(
    lines: &LineSelf,
    node: NodeId,
    (metric, value): (usize, f64),
    weight: f64,
    mut on_line: impl FnMut(u32, f64),
) -> f64 {
    let held: f64 = lines.lines_of(node).map(|(_, v)| v[metric]).sum();
    if held <= 0.0 || value <= 0.0 {
        return value;
    }
    let scale = (value / held).min(1.0);
    for (line, v) in lines.lines_of(node) {
        on_line(line, v[metric] * scale * weight);
    }
    (value - held * scale).max(0.0)
}

/// Adds each frame's total at outermost occurrences, times `weight`.
/// Depth-first without recursion.
fn add_frame_totals(
    tree: &CallTree,
    metric: usize,
    weight: f64,
    out: &mut FxHashMap<FrameId, f64>,
) {
    let inclusive = tree.inclusive(metric);
    let mut on_path: FxHashMap<FrameId, u32> = FxHashMap::default();
    let mut stack: Vec<(NodeId, bool)> = vec![(NodeId::ROOT, true)];
    while let Some((node, entering)) = stack.pop() {
        let frame = tree.frame(node);
        if !entering {
            if let Some(c) = frame.and_then(|f| on_path.get_mut(&f)) {
                *c -= 1;
            }
            continue;
        }
        if let Some(f) = frame {
            let depth = on_path.entry(f).or_insert(0);
            if *depth == 0 {
                *out.entry(f).or_default() += inclusive[node.index()] * weight;
            }
            *depth += 1;
        }
        stack.push((node, false));
        stack.extend(tree.children(node).iter().rev().map(|c| (*c, true)));
    }
}

#[cfg(test)]
mod tests;
