//! One frame per function in a profile whose frames carry the sampled
//! line (pprof `Line.line`, py-spy's `name (file:line)`, perf script's
//! srcline, JFR's `lineNumber`, speedscope's `line`): frames of one
//! function at different lines become one frame, contexts that become
//! equal are merged, and each node's self value goes to the profile's
//! [`LineSelf`] table on the line it was sampled at — as the V8 reader
//! keeps `positionTicks`, and as pprof, speedscope and inferno draw one box
//! per function.
//!
//! A function is its frame without the line: name, file, module, start
//! line and column, full name and source hash. The joined frame keeps all
//! of those; its `line` is where the function starts when the input
//! records it (pprof `Function.start_line`), else the line of it where the
//! profile spends the most, executing or calling (so source links and the
//! function's total on source pages land where its time goes). The lines a caller was at when it
//! made a call are not kept: only where samples were taken is.

use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use super::allocation::Allocations;
use super::frame::{Frame, FrameId, FrameTable};
use super::line_self::LineSelf;
use super::profile::Profile;
use super::tree::{CallTree, NodeId};

/// Set by `--lines`: frames stay one per sampled line, as pprof's `-lines`
/// draws them, instead of one per function.
static LINE_GRANULARITY: AtomicBool = AtomicBool::new(false);

/// Keeps one frame per sampled line (`true`, pprof's `-lines`) or joins
/// them into one frame per function (`false`, the default) in every
/// profile read after the call.
pub fn set_line_granularity(lines: bool) {
    LINE_GRANULARITY.store(lines, Ordering::Relaxed);
}

/// Whether profiles are read one frame per sampled line
/// ([`set_line_granularity`]).
pub fn line_granularity() -> bool {
    LINE_GRANULARITY.load(Ordering::Relaxed)
}

/// `profile` (whose frames live in `frames`) with one frame per function,
/// and the table of those frames; both unchanged when no frame has a line
/// other than its function's start, when the profile already has a line
/// table, or when the tree or the table ran into a limit (the file is
/// rejected then, and the limit must still show), or when profiles are
/// read by line ([`set_line_granularity`]).
pub fn fold_sampled_lines(frames: FrameTable, profile: Profile) -> (FrameTable, Profile) {
    if line_granularity() {
        return (frames, profile);
    }
    let has_sampled_lines = frames
        .iter()
        .any(|(_, f)| f.line.is_some() && f.line != f.start_line);
    let blocked =
        profile.line_self.is_some() || frames.over_limit() || profile.tree.over_limit().is_some();
    if !has_sampled_lines || blocked {
        return (frames, profile);
    }
    let used = used_frames(frames.len(), &profile.tree);
    let (functions, slots) = functions_of(&frames, &used);
    // A function's line is chosen by weight among the lines it was
    // sampled at; when every function has one, there is nothing to weigh.
    let one_frame_each = functions.len() == used.iter().filter(|u| **u).count();
    let weight = (!one_frame_each).then(|| frame_weights(frames.len(), &profile.tree));
    let (table, function_of) = function_table(&frames, &used, functions, &slots, weight.as_deref());
    let folded = fold_profile(&frames, &function_of, profile);
    (table, folded)
}

/// The fold done while a reader builds its tree, for readers that see
/// each stack whole (the folded reader): nodes are made with the
/// function's frame from the start, so the tree of one node per sampled
/// line is never built and merged. The result is the tree, frame table and
/// line table [`fold_sampled_lines`] makes of the tree of lines.
///
/// The reader interns frames of lines as before, tells the fold of every
/// frame it adds ([`add_frames`](Self::add_frames)), builds nodes with
/// [`function`](Self::function)'s ids, and reports what a tree of lines
/// would have held: which frames name a node ([`used`](Self::used)), each
/// frame's weight (its nodes' inclusive value, [`weigh`](Self::weigh)), and
/// the self value each sample leaves at its leaf's line
/// ([`sampled`](Self::sampled)).
#[derive(Debug, Default)]
pub struct FoldWhileBuilding {
    /// Off when frames stay one per line ([`set_line_granularity`]).
    on: bool,
    /// Each function's provisional id: its rank among functions as their
    /// first frames come. The final ids count used frames only; a frame
    /// that names no node (a stack's frame past the depth limit) can shift
    /// them, and the tree's ids are then mapped once at the end.
    slot_of: FxHashMap<Frame, u32>,
    /// Per frame of lines: its function's provisional id, whether a node
    /// has it, its weight.
    function: Vec<FrameId>,
    used: Vec<bool>,
    weight: Vec<f64>,
    /// (node, line, self values) of every sample at a frame with a line.
    entries: Vec<(NodeId, u32, [f64; 2])>,
}

impl FoldWhileBuilding {
    /// A fold that is on unless profiles are read by line
    /// ([`set_line_granularity`]).
    pub fn new() -> FoldWhileBuilding {
        FoldWhileBuilding::folding(!line_granularity())
    }

    /// A fold that is on when `on` is, whatever the granularity set.
    pub fn folding(on: bool) -> FoldWhileBuilding {
        FoldWhileBuilding {
            on,
            ..FoldWhileBuilding::default()
        }
    }

    /// Takes the frames of `frames` it has not seen yet (frames are only
    /// ever added to a table).
    pub fn add_frames(&mut self, frames: &FrameTable) {
        for (id, frame) in frames.iter().skip(self.function.len()) {
            let function = match self.on {
                true => {
                    let next = self.slot_of.len() as u32;
                    FrameId(*self.slot_of.entry(function_key(frame)).or_insert(next))
                }
                false => id,
            };
            self.function.push(function);
        }
        self.used.resize(self.function.len(), false);
        self.weight.resize(self.function.len(), 0.0);
    }

    /// The id a node of `frame` gets.
    pub fn function(&self, frame: FrameId) -> FrameId {
        self.function[frame.0 as usize]
    }

    /// A node of the tree of lines has `frame`.
    pub fn used(&mut self, frame: FrameId) {
        self.used[frame.0 as usize] = true;
    }

    /// Adds `weight` (inclusive value, first metric) to `frame`'s.
    pub fn weigh(&mut self, frame: FrameId, weight: f64) {
        self.weight[frame.0 as usize] += weight;
    }

    /// A sample of `values` (per metric, up to two) at `node`, taken at
    /// `line` of its function.
    pub fn sampled(&mut self, node: NodeId, line: u32, values: [f64; 2]) {
        if self.on && values.iter().any(|v| *v != 0.0) {
            self.entries.push((node, line, values));
        }
    }

    /// The table of one frame per function, and `profile` (built with
    /// [`function`](Self::function)'s ids) with its frames' ids final and
    /// its line table; both as they are when nothing was folded (no frame
    /// has a line, or profiles are read by line) or when the table of
    /// lines ran into its limit (the file is rejected then).
    pub fn finish(self, frames: FrameTable, mut profile: Profile) -> (FrameTable, Profile) {
        let has_sampled_lines = frames
            .iter()
            .any(|(_, f)| f.line.is_some() && f.line != f.start_line);
        if !self.on || !has_sampled_lines || frames.over_limit() {
            return (frames, profile);
        }
        let (functions, slots) = functions_of(&frames, &self.used);
        let (table, function_of) =
            function_table(&frames, &self.used, functions, &slots, Some(&self.weight));
        let mut map: Vec<FrameId> = (0..self.slot_of.len() as u32).map(FrameId).collect();
        for (i, &used) in self.used.iter().enumerate() {
            if used {
                map[self.function[i].0 as usize] = function_of[i];
            }
        }
        profile.tree.remap_frames(&map);
        let metrics = profile.tree.metric_count();
        profile.line_self =
            (!self.entries.is_empty()).then(|| LineSelf::from_entries(metrics, self.entries));
        (table, profile)
    }
}

/// The frame of `frame`'s function, its line still to be chosen.
fn function_key(frame: &Frame) -> Frame {
    Frame {
        line: None,
        ..frame.clone()
    }
}

/// For each frame of a table of `frames`, whether a node of `tree` has it.
fn used_frames(frames: usize, tree: &CallTree) -> Vec<bool> {
    let mut used = vec![false; frames];
    for node in tree.node_ids() {
        if let Some(f) = tree.frame(node) {
            used[f.0 as usize] = true;
        }
    }
    used
}

/// Each frame's weight: the inclusive value (first metric) of its nodes.
fn frame_weights(frames: usize, tree: &CallTree) -> Vec<f64> {
    let mut weight = vec![0.0; frames];
    let inclusive = match tree.metric_count() {
        0 => vec![0.0; tree.len()],
        _ => tree.inclusive(0),
    };
    for node in tree.node_ids() {
        if let Some(f) = tree.frame(node) {
            weight[f.0 as usize] += inclusive[node.index()].abs();
        }
    }
    weight
}

/// The functions of the `used` frames, in the order first seen (their
/// lines still to be chosen), and for each frame its function's index
/// (any for a frame not used).
fn functions_of(frames: &FrameTable, used: &[bool]) -> (Vec<Frame>, Vec<usize>) {
    let mut slot_of: FxHashMap<Frame, usize> = FxHashMap::default();
    let mut functions = Vec::new();
    let mut slots = Vec::with_capacity(frames.len());
    for (id, frame) in frames.iter() {
        if !used[id.0 as usize] {
            slots.push(0);
            continue;
        }
        let key = function_key(frame);
        let slot = *slot_of.entry(key.clone()).or_insert_with(|| {
            functions.push(key);
            functions.len() - 1
        });
        slots.push(slot);
    }
    (functions, slots)
}

/// The table of one frame per function (`functions`, each frame's in
/// `slots`), and each frame's function's id in it (any id for a frame not
/// `used`). A function's line is its start line, else its line of most
/// `weight` (the first of equals; no weight: its one line): where it
/// spends its time, executing or calling.
fn function_table(
    frames: &FrameTable,
    used: &[bool],
    functions: Vec<Frame>,
    slots: &[usize],
    weight: Option<&[f64]>,
) -> (FrameTable, Vec<FrameId>) {
    let mut best: Vec<Option<(f64, u32)>> = vec![None; functions.len()];
    for (id, frame) in frames.iter() {
        let i = id.0 as usize;
        let (true, Some(line)) = (used[i], frame.line) else {
            continue;
        };
        let w = weight.map_or(0.0, |w| w[i]);
        let best = &mut best[slots[i]];
        if best.is_none_or(|(bw, bl)| w > bw || (w == bw && line < bl)) {
            *best = Some((w, line));
        }
    }
    let mut table = FrameTable::new();
    let ids: Vec<FrameId> = functions
        .into_iter()
        .zip(best)
        .map(|(mut f, best)| {
            f.line = f.start_line.or(best.map(|(_, line)| line));
            table.intern(f)
        })
        .collect();
    let function_of = slots
        .iter()
        .map(|&s| ids.get(s).copied().unwrap_or(FrameId(0)))
        .collect();
    (table, function_of)
}

/// The profile with every node's frame replaced by its function's
/// (`function_of`), equal contexts merged, and the sampled lines of the
/// old frames in a line table.
fn fold_profile(frames: &FrameTable, function_of: &[FrameId], profile: Profile) -> Profile {
    let Profile {
        metrics: metric_list,
        tree: old,
        timeline,
        allocations,
        call_counts,
        line_self: _,
        inlined,
        notes,
    } = profile;
    let metrics = old.metric_count();
    // The sampled lines are read before the merge, which writes over the
    // old nodes.
    let entries = sampled_line_entries(frames, &old);
    let mut tree = old;
    let mapped = tree.merge_frames(function_of);
    let entries: Vec<(NodeId, u32, Vec<f64>)> = entries
        .into_iter()
        .map(|(node, line, values)| (mapped[node.index()], line, values))
        .collect();
    let nodes = tree.len();
    Profile {
        metrics: metric_list,
        line_self: (!entries.is_empty()).then(|| LineSelf::from_entries(metrics, entries)),
        timeline: timeline.map(|mut t| {
            for s in &mut t.samples {
                s.node = mapped[s.node.index()];
            }
            t
        }),
        allocations: allocations.map(|a| Box::new(fold_allocations(*a, &mapped, nodes))),
        call_counts: call_counts.map(|calls| summed_by_node(&calls, &mapped, nodes)),
        inlined: inlined.map(|inlined| all_by_node(&inlined, &mapped, nodes)),
        tree,
        notes,
    }
}

/// Every node of `tree` whose frame has a line and that has a self value:
/// the node, the line and its values.
fn sampled_line_entries(frames: &FrameTable, tree: &CallTree) -> Vec<(NodeId, u32, Vec<f64>)> {
    let metrics = tree.metric_count();
    let mut entries = Vec::new();
    for node in tree.node_ids() {
        let Some(line) = tree.frame(node).and_then(|f| frames.get(f).line) else {
            continue;
        };
        let values = || (0..metrics).map(|m| tree.self_value(node, m));
        if values().any(|v| v != 0.0) {
            entries.push((node, line, values().collect()));
        }
    }
    entries
}

/// Per-node values (indexed by old node) added up by the node each went to.
fn summed_by_node(values: &[f64], mapped: &[NodeId], nodes: usize) -> Vec<f64> {
    let mut out = vec![0.0; nodes];
    for (old, v) in values.iter().enumerate() {
        if let Some(n) = mapped.get(old) {
            out[n.index()] += v;
        }
    }
    out
}

/// Per-node flags (indexed by old node): a node is flagged when every
/// node that went to it was (a call inlined at one line and not at
/// another is not an inlined call of the function).
fn all_by_node(flags: &[bool], mapped: &[NodeId], nodes: usize) -> Vec<bool> {
    let mut out = vec![true; nodes];
    for (old, &flag) in flags.iter().enumerate() {
        if let Some(n) = mapped.get(old) {
            out[n.index()] &= flag;
        }
    }
    out[NodeId::ROOT.index()] = false;
    out
}

/// The allocation sites at the nodes their contexts went to, sites of one
/// node and class added up.
fn fold_allocations(old: Allocations, mapped: &[NodeId], nodes: usize) -> Allocations {
    let mut out = Allocations::new(old.count_kind, old.bytes_known, old.class_source);
    out.bytes_note = old.bytes_note.clone();
    out.call_order = old.call_order;
    out.calls = old
        .calls
        .as_deref()
        .map(|calls| summed_by_node(calls, mapped, nodes));
    for name in &old.classes {
        out.class(name);
    }
    let add = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    for site in &old.sites {
        let node = mapped
            .get(site.node.index())
            .copied()
            .unwrap_or(NodeId::ROOT);
        let i = out.add(node, site.class, site.count, site.bytes);
        let s = &mut out.sites[i];
        s.live_count = add(s.live_count, site.live_count);
        s.live_bytes = add(s.live_bytes, site.live_bytes);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Metric, Unit};

    fn at(function: &str, file: &str, line: u32, start: Option<u32>) -> Frame {
        Frame {
            function: function.into(),
            file: Some(file.into()),
            line: Some(line),
            start_line: start,
            ..Frame::default()
        }
    }

    #[test]
    fn a_function_sampled_at_two_lines_is_one_node_with_its_lines() {
        let mut frames = FrameTable::new();
        let main = frames.intern(at("main", "m.go", 20, Some(10)));
        let work_a = frames.intern(at("work", "w.go", 7, Some(3)));
        let work_b = frames.intern(at("work", "w.go", 9, Some(3)));
        let py = frames.intern(at("convert", "core.py", 88, None));
        let py_b = frames.intern(at("convert", "core.py", 90, None));
        let mut profile = Profile::new(vec![Metric::new("samples", Unit::Count)]);
        profile.tree.add_stack([main, work_a], &[3.0]);
        profile.tree.add_stack([main, work_b], &[5.0]);
        profile.tree.add_stack([main], &[1.0]);
        profile.tree.add_stack([py_b], &[2.0]);
        profile.tree.add_stack([py], &[4.0]);
        let (table, folded) = fold_sampled_lines(frames, profile);
        let tree = &folded.tree;
        // root, main, work, convert
        assert_eq!(tree.len(), 4);
        assert_eq!(table.len(), 3);
        let work = tree.children(tree.children(NodeId::ROOT)[0])[0];
        let frame = table.get(tree.frame(work).unwrap());
        assert_eq!((frame.function.as_str(), frame.line), ("work", Some(3)));
        assert_eq!(tree.self_value(work, 0), 8.0);
        let lines = folded.line_self.as_ref().unwrap();
        let of = |n| -> Vec<(u32, f64)> { lines.lines_of(n).map(|(l, v)| (l, v[0])).collect() };
        assert_eq!(of(work), [(7, 3.0), (9, 5.0)]);
        // Without a start line, its line of most weight.
        let convert = tree.children(NodeId::ROOT)[1];
        assert_eq!(table.get(tree.frame(convert).unwrap()).line, Some(88));
        assert_eq!(of(convert), [(88, 4.0), (90, 2.0)]);
        assert_eq!(tree.total(0), 15.0);
    }

    /// Every function sampled at one line (a py-spy file whose every name
    /// carries its line): frames are renamed in place, nothing merges, and
    /// a frame no node has (interned by the reader, then cut) is left out.
    #[test]
    fn functions_of_one_line_each_keep_every_node() {
        let mut frames = FrameTable::new();
        let unused = frames.intern(at("gone", "g.py", 5, None));
        let main = frames.intern(at("main", "app.py", 12, None));
        let read = frames.intern(at("read", "io.py", 40, None));
        let parse = frames.intern(at("parse", "p.py", 7, Some(2)));
        let mut profile = Profile::new(vec![Metric::new("samples", Unit::Count)]);
        let read_node = profile.tree.add_stack([main, read], &[2.0]);
        profile.tree.add_stack([main, parse, read], &[3.0]);
        profile.tree.add_stack([main], &[1.0]);
        let before: Vec<_> = profile
            .tree
            .node_ids()
            .map(|n| profile.tree.parent(n))
            .collect();
        let (table, folded) = fold_sampled_lines(frames, profile);
        let tree = &folded.tree;
        let after: Vec<_> = tree.node_ids().map(|n| tree.parent(n)).collect();
        assert_eq!(after, before, "no node merged or moved");
        assert_eq!(table.len(), 3, "{unused:?} is not a function of the tree");
        let names: Vec<(String, Option<u32>)> = tree
            .node_ids()
            .filter_map(|n| tree.frame(n))
            .map(|f| (table.get(f).function.clone(), table.get(f).line))
            .collect();
        let expected = [("main", 12), ("read", 40), ("parse", 2), ("read", 40)];
        let expected: Vec<(String, Option<u32>)> = expected
            .iter()
            .map(|(f, l)| (f.to_string(), Some(*l)))
            .collect();
        assert_eq!(names, expected);
        let lines = folded.line_self.as_ref().unwrap();
        let of = |n| -> Vec<(u32, f64)> { lines.lines_of(n).map(|(l, v)| (l, v[0])).collect() };
        assert_eq!(of(read_node), [(40, 2.0)]);
        assert_eq!(of(tree.children(NodeId::ROOT)[0]), [(12, 1.0)]);
    }

    #[test]
    fn frames_without_sampled_lines_are_left_alone() {
        let mut frames = FrameTable::new();
        let f = frames.intern(at("f", "a.js", 3, Some(3)));
        let mut profile = Profile::new(vec![Metric::new("samples", Unit::Count)]);
        profile.tree.add_stack([f], &[1.0]);
        let (_, same) = fold_sampled_lines(frames, profile);
        assert!(same.line_self.is_none());
    }
}
