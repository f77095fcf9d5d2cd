//! From a call graph (functions with their own cost, and per call edge the
//! cost of the calls with everything they called) to the calling-context
//! tree the model holds. Profilers that count per function and per call
//! instead of sampling stacks (cProfile, callgrind, gprof) write such a
//! graph; flame graphs need paths, so this module estimates them the way
//! gprof and the flame-graph tools for cProfile (flameprof, snakeviz's
//! icicle) do:
//!
//! - The roots are the functions whose cost their callers in the graph do
//!   not account for ([`Function::root`], which each reader decides).
//! - A node of function `f` that stands for the part `I` of `f`'s
//!   [`whole`](Function::whole) cost gets a child for every function `g`
//!   that `f` calls, standing for the same share of the edge:
//!   `cost(f → g) · I / whole(f)`. This is gprof's assumption: every call
//!   of a function costs the same, whoever makes it.
//! - A function already on the path from the root is not entered again:
//!   recursion and call cycles end there, their cost in the contexts above
//!   (a cycle of several functions `a → b → a` stays under its entry `a`).
//! - Each function's own cost is then split over its nodes in proportion
//!   to the part each stands for, so every function's own cost, and the
//!   tree's total, are exactly the graph's. A function with own cost that
//!   no path reaches (a cycle with no caller outside it) is placed under
//!   the root.
//!
//! Every metric is split on its own (a call's cache misses need not follow
//! its instructions); contexts are grown largest part of the first metric
//! first, and the tree stops at [`MAX_NODES`] contexts and [`MAX_DEPTH`]
//! levels; what would have gone below stays in the own cost of the
//! contexts that exist, and [`Built::cut`] says so.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use model::{CallTree, FrameId, NodeId};

/// Most contexts grown from one file's call graph.
pub const MAX_NODES: usize = 50_000;
/// Deepest context, in frames.
pub const MAX_DEPTH: u32 = 256;

/// One function of the graph; every vector has one value per metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub frame: FrameId,
    /// Its own cost (not in any function it calls).
    pub own: Vec<f64>,
    /// The cost its outgoing edges share: its own cost and its calls',
    /// each counted once (at least the sum of its edges to others).
    pub whole: Vec<f64>,
    /// The part of `whole` that starts a context at the root.
    pub root: Vec<f64>,
}

/// Calls from one function into another, with their cost per metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub caller: usize,
    pub callee: usize,
    pub cost: Vec<f64>,
}

/// A call graph: functions, and edges between them (indices into
/// `functions`; an edge of a function to itself is ignored).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Graph {
    pub functions: Vec<Function>,
    pub edges: Vec<Edge>,
}

/// What [`build`] placed: per tree node, its function (`None` for the
/// root) and its share of that function's own cost per metric.
#[derive(Debug, Clone, Default)]
pub struct Built {
    pub function: Vec<Option<usize>>,
    pub share: Vec<Vec<f64>>,
    /// True when the graph had more paths than the tree could hold.
    pub cut: bool,
}

/// The sentence that says the tree was cut, for a profile's notes.
pub fn cut_note() -> String {
    format!(
        "The call graph has more paths than {MAX_NODES} contexts or {MAX_DEPTH} levels: the smallest contexts are kept in their caller's self time."
    )
}

/// Each node's call count: the calls from its parent's function into its
/// own over every context (`edges`), for a top-level node every call of
/// its function (`into`); NaN for the root, which is no function ("n/a"
/// on pages).
pub fn calls_per_node(
    tree: &CallTree,
    edges: &FxHashMap<(FrameId, FrameId), f64>,
    into: &FxHashMap<FrameId, f64>,
) -> Vec<f64> {
    tree.node_ids()
        .map(|n| {
            let Some(f) = tree.frame(n) else {
                return f64::NAN;
            };
            match tree.parent(n).and_then(|p| tree.frame(p)) {
                Some(caller) => edges.get(&(caller, f)).copied().unwrap_or(0.0),
                None => into.get(&f).copied().unwrap_or(0.0),
            }
        })
        .collect()
}

/// A node waiting to be expanded, largest part first (ties: older node).
struct Pending {
    key: f64,
    node: NodeId,
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
        self.key
            .total_cmp(&other.key)
            .then_with(|| other.node.cmp(&self.node))
    }
}

/// Per node: its function and the parts of the function it stands for.
type Placed = Vec<(usize, Vec<f64>)>;

/// Grows `tree` (empty, with one metric per value of the graph's vectors)
/// from `graph`, and sets every node's self values.
pub fn build(graph: &Graph, tree: &mut CallTree) -> Built {
    let metrics = tree.metric_count();
    let callees = callees(graph);
    let mut placed: Placed = vec![(usize::MAX, vec![0.0; metrics])];
    let mut heap = BinaryHeap::new();
    for (i, f) in graph.functions.iter().enumerate() {
        if any_positive(&f.root) {
            let node = tree.child(NodeId::ROOT, f.frame);
            if node.index() == placed.len() {
                heap.push(pending(node, &f.root));
                placed.push((i, f.root.clone()));
            }
        }
    }
    let mut cut = false;
    while let Some(p) = heap.pop() {
        let (function, part) = placed[p.node.index()].clone();
        let whole = &graph.functions[function].whole;
        if tree.depth(p.node) >= MAX_DEPTH || tree.len() >= MAX_NODES {
            cut |= !callees[function].is_empty();
            continue;
        }
        for &(g, edge) in &callees[function] {
            let frame = graph.functions[g].frame;
            let child_part = share_of(&graph.edges[edge].cost, &part, whole);
            if !any_positive(&child_part) || on_path(tree, p.node, frame) {
                continue;
            }
            let node = tree.child(p.node, frame);
            if node.index() == placed.len() {
                heap.push(pending(node, &child_part));
                placed.push((g, child_part));
            }
        }
    }
    let share = spread_own(graph, tree, &mut placed);
    Built {
        function: placed
            .iter()
            .enumerate()
            .map(|(n, &(f, _))| (n > 0).then_some(f))
            .collect(),
        share,
        cut,
    }
}

/// Per function, its edges to other functions: (callee, edge index).
fn callees(graph: &Graph) -> Vec<Vec<(usize, usize)>> {
    let mut out = vec![Vec::new(); graph.functions.len()];
    for (e, edge) in graph.edges.iter().enumerate() {
        let known = edge.caller < out.len() && edge.callee < graph.functions.len();
        if known && edge.caller != edge.callee {
            out[edge.caller].push((edge.callee, e));
        }
    }
    out
}

fn pending(node: NodeId, part: &[f64]) -> Pending {
    Pending {
        key: part.first().copied().unwrap_or(0.0),
        node,
    }
}

fn any_positive(values: &[f64]) -> bool {
    values.iter().any(|v| *v > 0.0 && v.is_finite())
}

/// `edge · part / whole`, per metric; 0 where it is not a positive
/// finite number.
fn share_of(edge: &[f64], part: &[f64], whole: &[f64]) -> Vec<f64> {
    (0..part.len())
        .map(|m| {
            let (e, p, w) = (at(edge, m), part[m], at(whole, m));
            let v = e * p / w;
            if w > 0.0 && v > 0.0 && v.is_finite() {
                v
            } else {
                0.0
            }
        })
        .collect()
}

fn at(values: &[f64], m: usize) -> f64 {
    values.get(m).copied().unwrap_or(0.0)
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

/// Sets every node's self values: its function's own cost shared by the
/// parts its nodes stand for; a function with own cost and no node (for
/// that metric) gets one under the root. Returns each node's shares.
fn spread_own(graph: &Graph, tree: &mut CallTree, placed: &mut Placed) -> Vec<Vec<f64>> {
    let metrics = tree.metric_count();
    let functions = &graph.functions;
    let mut sum = vec![vec![0.0; metrics]; functions.len()];
    for (f, part) in placed.iter().skip(1) {
        for (s, p) in sum[*f].iter_mut().zip(part) {
            *s += p;
        }
    }
    for (i, f) in functions.iter().enumerate() {
        for (m, s) in sum[i].iter_mut().enumerate() {
            let own = at(&f.own, m);
            if own != 0.0 && own.is_finite() && *s <= 0.0 {
                let node = tree.child(NodeId::ROOT, f.frame);
                if node.index() == placed.len() {
                    placed.push((i, vec![0.0; metrics]));
                }
                placed[node.index()].1[m] = 1.0;
                *s = 1.0;
            }
        }
    }
    let mut shares = vec![vec![0.0; metrics]];
    for (n, (f, part)) in placed.iter().enumerate().skip(1) {
        let share: Vec<f64> = (0..metrics)
            .map(|m| match sum[*f][m] > 0.0 {
                true => part[m] / sum[*f][m],
                false => 0.0,
            })
            .collect();
        for (m, s) in share.iter().enumerate() {
            let own = at(&functions[*f].own, m);
            if own != 0.0 && own.is_finite() && *s > 0.0 {
                tree.add_self(NodeId(n as u32), m, own * s);
            }
        }
        shares.push(share);
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(frame: u32, own: f64, whole: f64, root: f64) -> Function {
        Function {
            frame: FrameId(frame),
            own: vec![own],
            whole: vec![whole],
            root: vec![root],
        }
    }

    fn edge(caller: usize, callee: usize, cost: f64) -> Edge {
        Edge {
            caller,
            callee,
            cost: vec![cost],
        }
    }

    /// main (1) calls a (3) and b (6); both call c (4 for a, 2 for b);
    /// c's 6 of own cost split 4:2 between its two contexts.
    #[test]
    fn a_callee_is_split_over_its_callers_by_their_edges() {
        let graph = Graph {
            functions: vec![
                function(0, 1.0, 10.0, 10.0),
                function(1, 1.0, 3.0, 0.0),
                function(2, 4.0, 6.0, 0.0),
                function(3, 6.0, 6.0, 0.0),
            ],
            edges: vec![
                edge(0, 1, 3.0),
                edge(0, 2, 6.0),
                edge(1, 3, 2.0),
                edge(2, 3, 4.0),
            ],
        };
        let mut tree = CallTree::new(1);
        let built = build(&graph, &mut tree);
        assert!(!built.cut);
        assert_eq!(tree.total(0), 12.0);
        let inclusive = tree.inclusive(0);
        let main = tree.find_child(NodeId::ROOT, FrameId(0)).unwrap();
        assert_eq!(inclusive[main.index()], 12.0);
        let a = tree.find_child(main, FrameId(1)).unwrap();
        let c_under_a = tree.find_child(a, FrameId(3)).unwrap();
        assert_eq!(tree.self_value(c_under_a, 0), 2.0);
        let b = tree.find_child(main, FrameId(2)).unwrap();
        let c_under_b = tree.find_child(b, FrameId(3)).unwrap();
        assert_eq!(tree.self_value(c_under_b, 0), 4.0);
    }

    /// f calls itself: the recursion ends at the first f, whose own cost
    /// is all of f's; a function nothing reaches is put under the root.
    #[test]
    fn recursion_ends_on_the_path_and_unreached_cost_goes_to_the_root() {
        let graph = Graph {
            functions: vec![function(0, 5.0, 5.0, 5.0), function(1, 2.0, 0.0, 0.0)],
            edges: vec![edge(0, 0, 40.0)],
        };
        let mut tree = CallTree::new(1);
        build(&graph, &mut tree);
        assert_eq!(tree.len(), 3);
        assert_eq!(tree.total(0), 7.0);
    }

    /// Hostile figures (NaN, infinite, negative, edges to nowhere) give a
    /// tree, never a panic.
    #[test]
    fn hostile_figures_do_not_panic() {
        let graph = Graph {
            functions: vec![
                function(0, f64::NAN, f64::INFINITY, 1.0),
                function(1, -3.0, 0.0, f64::NAN),
            ],
            edges: vec![edge(0, 1, f64::INFINITY), edge(0, 7, 1.0), edge(9, 0, 1.0)],
        };
        let mut tree = CallTree::new(1);
        build(&graph, &mut tree);
        assert!(tree.len() >= 2);
    }
}
