//! From pstats' call graph to a calling-context tree, the way flame-graph
//! tools for cProfile (flameprof, snakeviz's icicle) do it:
//!
//! - The roots are the functions whose time their callers in the file do
//!   not account for (see [`root_part`]); for `python -m cProfile`,
//!   `builtins.exec`, which runs the script.
//! - A node of function `f` that stands for the part `I` of `f`'s
//!   `cumtime` gets a child for every function `g` that `f` calls, standing
//!   for the same part of the edge: `cumtime(f → g) · I / cumtime(f)`.
//! - A function already on the path from the root is not entered again:
//!   its recursive calls are in its own `tottime` and `cumtime` already
//!   (cProfile counts recursion once), so recursion and call cycles end
//!   there. In a cycle of several functions (`a → b → a`) the whole cycle
//!   stays under its entry `a`: `b`'s cumulative time in the tree is then
//!   less than pstats' `cumtime`, which counts the nested `a` calls.
//! - Each function's `tottime` is then split over its nodes in proportion
//!   to the part each stands for, so the self values add up to the sum of
//!   every `tottime`. A function with time that no path reaches (a cycle
//!   with no caller outside it) is placed under the root.
//!
//! A call graph can have far more paths than functions, so the tree is
//! grown largest part first and stops at [`MAX_NODES`] contexts and
//! [`MAX_DEPTH`] levels; what would have gone below stays in the self time
//! of the deepest context, and a note says so.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Stats;
use model::{CallTree, FrameId, NodeId};

/// Most contexts grown from one file's call graph.
pub const MAX_NODES: usize = 50_000;
/// Deepest context, in frames.
pub const MAX_DEPTH: u32 = 256;

/// A node waiting to be expanded, largest part first (ties: older node).
struct Pending {
    part: f64,
    node: NodeId,
    function: usize,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> Ordering {
        self.part
            .total_cmp(&other.part)
            .then_with(|| other.node.cmp(&self.node))
    }
}

/// Grows `tree` (empty, one metric) from `stats`, whose function `i` has
/// frame `ids[i]`. Returns notes for the reader.
pub fn build(stats: &Stats, ids: &[FrameId], tree: &mut CallTree) -> Vec<String> {
    let functions = &stats.functions;
    // callees[f] = (g, cumtime of the edge f → g)
    let mut callees: Vec<Vec<(usize, f64)>> = vec![Vec::new(); functions.len()];
    for (g, f) in functions.iter().enumerate() {
        for (caller, stat) in &f.callers {
            callees[*caller].push((g, stat.cumtime));
        }
    }
    // Per node: its function and the part of it it stands for.
    let mut placed: Vec<(usize, f64)> = vec![(usize::MAX, 0.0)];
    let mut heap = BinaryHeap::new();
    for (i, &id) in ids.iter().enumerate().take(functions.len()) {
        let part = root_part(stats, i);
        if part > 0.0 {
            let node = tree.child(NodeId::ROOT, id);
            placed.push((i, part));
            heap.push(Pending {
                part,
                node,
                function: i,
            });
        }
    }
    let mut cut = false;
    while let Some(p) = heap.pop() {
        let whole = functions[p.function].stat.cumtime;
        if whole <= 0.0 || p.part <= 0.0 {
            continue;
        }
        if tree.depth(p.node) >= MAX_DEPTH || tree.len() >= MAX_NODES {
            cut |= !callees[p.function].is_empty();
            continue;
        }
        for &(g, edge) in &callees[p.function] {
            let part = edge * p.part / whole;
            if part <= 0.0 || !part.is_finite() || on_path(tree, p.node, ids[g]) {
                continue;
            }
            let node = tree.child(p.node, ids[g]);
            if node.index() == placed.len() {
                placed.push((g, part));
                heap.push(Pending {
                    part,
                    node,
                    function: g,
                });
            }
        }
    }
    spread_tottime(stats, ids, tree, &mut placed);
    let mut notes = Vec::new();
    notes.push(
        "cProfile records a call graph, not stacks: this tree shares each function's own time among its callers in proportion to their cumulative time (as flameprof and snakeviz do), so each function's own time is exact but its split across call paths is an estimate; recursion and call cycles are folded into their outermost call.".to_string(),
    );
    if cut {
        notes.push(format!(
            "The call graph has more paths than {MAX_NODES} contexts or {MAX_DEPTH} levels: the smallest contexts are kept in their caller's self time."
        ));
    }
    notes
}

/// The part of function `i`'s time that its callers in the file do not
/// account for: all of it (its `cumtime`, or `tottime` when that is 0)
/// when nothing else calls it, else what its `cumtime` exceeds the sum of
/// its callers' parts by (`builtins.exec` runs the script, and the
/// imports the script makes call it again).
fn root_part(stats: &Stats, i: usize) -> f64 {
    let f = &stats.functions[i];
    let mut callers = f.callers.iter().filter(|(c, _)| *c != i).peekable();
    if callers.peek().is_none() {
        return if f.stat.cumtime > 0.0 {
            f.stat.cumtime
        } else {
            f.stat.tottime
        };
    }
    let called: f64 = callers.map(|(_, s)| s.cumtime).sum();
    let rest = f.stat.cumtime - called;
    // Below a millionth, the difference is rounding in the sums.
    if rest > f.stat.cumtime * 1e-6 {
        rest
    } else {
        0.0
    }
}

/// True when `frame` is `node` or one of its ancestors.
fn on_path(tree: &CallTree, node: NodeId, frame: FrameId) -> bool {
    let mut n = Some(node);
    while let Some(at) = n {
        if tree.frame(at) == Some(frame) {
            return true;
        }
        n = tree.parent(at);
    }
    false
}

/// Sets every node's self time: its function's `tottime` shared by the
/// parts its nodes stand for; functions with time and no node go under
/// the root.
fn spread_tottime(
    stats: &Stats,
    ids: &[FrameId],
    tree: &mut CallTree,
    placed: &mut Vec<(usize, f64)>,
) {
    let functions = &stats.functions;
    let mut sum = vec![0.0; functions.len()];
    for &(f, part) in placed.iter().skip(1) {
        sum[f] += part;
    }
    for (i, f) in functions.iter().enumerate() {
        if f.stat.tottime > 0.0 && sum[i] <= 0.0 {
            let node = tree.child(NodeId::ROOT, ids[i]);
            if node.index() == placed.len() {
                placed.push((i, 1.0));
                sum[i] = 1.0;
            } else {
                // The root-level node exists, standing for nothing yet.
                placed[node.index()].1 = 1.0;
                sum[i] = 1.0;
            }
        }
    }
    for (n, &(f, part)) in placed.iter().enumerate().skip(1) {
        if sum[f] > 0.0 {
            let seconds = functions[f].stat.tottime * part / sum[f];
            tree.add_self(NodeId(n as u32), 0, seconds * 1e9);
        }
    }
}
