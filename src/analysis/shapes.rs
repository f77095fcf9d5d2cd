//! The three shapes of a profile (EasyView section V-A): top-down (the
//! calling-context tree itself), bottom-up (call paths reversed, callees as
//! roots) and flat (module → file → function), each with inclusive or
//! exclusive values, and the merge of several trees by path that diffs and
//! aggregates are built on.
//!
//! Every shape is an ordinary [`CallTree`]: a node's inclusive value is the
//! sum of the self values below it, so one layout and one writer serve all
//! shapes. Bottom-up and flat trees group frames by *function* (name and
//! file, the line dropped); the frames they need besides the profile's own
//! live in [`ShapeFrames`], one table for the whole history so that the same
//! function has the same id in every profile and trees can be merged.

use rustc_hash::FxHashMap;

use crate::model::{stable_path, CallTree, Frame, FrameId, FrameTable, NodeId};

/// The history's frames plus the function, file and module frames that
/// bottom-up and flat trees use. Ids of the history's own frames are kept.
#[derive(Debug, Clone)]
pub struct ShapeFrames {
    pub table: FrameTable,
    /// Stands for samples recorded without any frame (their value sits on
    /// the top-down root), so exclusive shapes keep the whole total.
    pub no_stack: FrameId,
    function_of: Vec<FrameId>,
    file_of: Vec<FrameId>,
    module_of: Vec<FrameId>,
}

impl ShapeFrames {
    pub fn new(frames: &FrameTable) -> ShapeFrames {
        let mut table = frames.clone();
        let n = frames.len();
        let (mut function_of, mut file_of, mut module_of) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (_, frame) in frames.iter() {
            function_of.push(table.intern(function_frame(frame)));
            file_of.push(table.intern(file_frame(frame)));
            module_of.push(table.intern(module_frame(frame)));
        }
        let no_stack = table.intern(Frame {
            function: "(no stack)".to_string(),
            module: Some("(no stack)".to_string()),
            ..Frame::default()
        });
        ShapeFrames {
            table,
            no_stack,
            function_of,
            file_of,
            module_of,
        }
    }

    /// The frame standing for `frame`'s function (its line dropped).
    pub fn function(&self, frame: FrameId) -> FrameId {
        self.function_of[frame.0 as usize]
    }

    pub fn file(&self, frame: FrameId) -> FrameId {
        self.file_of[frame.0 as usize]
    }

    pub fn module(&self, frame: FrameId) -> FrameId {
        self.module_of[frame.0 as usize]
    }
}

/// A function is its name and its file's stable path (see
/// [`stable_path`]), so the same function of two versions installed in
/// different environments is one frame.
fn function_frame(frame: &Frame) -> Frame {
    Frame {
        function: frame.function.clone(),
        file: stable_file(frame),
        module: frame.module.clone(),
        ..Frame::default()
    }
}

fn stable_file(frame: &Frame) -> Option<String> {
    frame.file.as_deref().map(|f| stable_path(f).to_string())
}

fn file_frame(frame: &Frame) -> Frame {
    let file = stable_file(frame);
    Frame {
        function: file.clone().unwrap_or_else(|| "(no file)".to_string()),
        file,
        ..Frame::default()
    }
}

/// The load module when the profiler names one, else the file's directory
/// (a package, for interpreted languages).
fn module_frame(frame: &Frame) -> Frame {
    let file = stable_file(frame);
    let name = match (&frame.module, &file) {
        (Some(m), _) if !m.is_empty() => m.clone(),
        (_, Some(f)) => match f.rfind(['/', '\\']) {
            Some(i) if i > 0 => f[..i].to_string(),
            _ => "(top level)".to_string(),
        },
        _ => "(no module)".to_string(),
    };
    Frame {
        function: name.clone(),
        module: Some(name),
        ..Frame::default()
    }
}

/// Which values a bottom-up or flat tree carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Each function's own cost: the tree's total equals the profile's.
    Exclusive,
    /// Each function's cost including its callees, each sample counted once
    /// per function even under recursion. A sample counts once for every
    /// function on its stack, so the tree's total exceeds the profile's.
    Inclusive,
}

/// A derived tree and whether paths were cut to bound its size.
#[derive(Debug, Clone)]
pub struct Shaped {
    pub tree: CallTree,
    /// Reversed paths longer than this were cut; their values stay in the
    /// last frame kept.
    pub cut_depth: Option<usize>,
}

/// Most frames inserted while building one bottom-up tree; beyond it the
/// caller chains are cut at a depth that fits.
pub const BOTTOM_UP_WORK: usize = 4_000_000;

/// The bottom-up tree: roots are functions, children their callers.
/// Exclusive: every node's self value under its reversed path. Inclusive:
/// every outermost occurrence of a function (none of its callers is the
/// same function) with its inclusive value.
pub fn bottom_up(tree: &CallTree, frames: &ShapeFrames, values: Values) -> Shaped {
    let metrics = tree.metric_count();
    let function = function_ids(tree, frames);
    let contributing = contributing_nodes(tree, &function, values);
    let work: usize = contributing.iter().map(|n| tree.depth(*n) as usize).sum();
    let cut_depth =
        (work > BOTTOM_UP_WORK).then(|| (BOTTOM_UP_WORK / contributing.len().max(1)).max(8));
    let inclusive: Vec<Vec<f64>> = match values {
        Values::Inclusive => (0..metrics).map(|m| tree.inclusive(m)).collect(),
        Values::Exclusive => Vec::new(),
    };
    let mut out = CallTree::new(metrics);
    if values == Values::Exclusive {
        add_rootless(tree, &mut out, &[frames.no_stack]);
    }
    let mut path = Vec::new();
    let mut row = vec![0.0; metrics];
    for node in contributing {
        reversed_path(tree, &function, node, cut_depth, &mut path);
        for (m, v) in row.iter_mut().enumerate() {
            *v = match values {
                Values::Exclusive => tree.self_value(node, m),
                Values::Inclusive => inclusive[m][node.index()],
            };
        }
        out.add_stack(path.iter().copied(), &row);
    }
    Shaped {
        tree: out,
        cut_depth,
    }
}

/// Samples without frames (the top-down root's own value) under `path`.
fn add_rootless(tree: &CallTree, out: &mut CallTree, path: &[FrameId]) {
    let row: Vec<f64> = (0..tree.metric_count())
        .map(|m| tree.self_value(NodeId::ROOT, m))
        .collect();
    if row.iter().any(|v| *v != 0.0) {
        out.add_stack(path.iter().copied(), &row);
    }
}

/// The function frame of every node (`None` for the root).
fn function_ids(tree: &CallTree, frames: &ShapeFrames) -> Vec<Option<FrameId>> {
    tree.node_ids()
        .map(|n| tree.frame(n).map(|f| frames.function(f)))
        .collect()
}

/// Nodes whose values a bottom-up tree adds, in node order.
fn contributing_nodes(
    tree: &CallTree,
    function: &[Option<FrameId>],
    values: Values,
) -> Vec<NodeId> {
    match values {
        Values::Exclusive => tree
            .node_ids()
            .skip(1)
            .filter(|&n| (0..tree.metric_count()).any(|m| tree.self_value(n, m) != 0.0))
            .collect(),
        Values::Inclusive => outermost_occurrences(tree, function),
    }
}

/// Nodes none of whose ancestors has the same function. Depth-first with a
/// count per function on the current path; no recursion, so deep stacks are
/// safe.
fn outermost_occurrences(tree: &CallTree, function: &[Option<FrameId>]) -> Vec<NodeId> {
    let mut on_path: FxHashMap<FrameId, u32> = FxHashMap::default();
    let mut out = Vec::new();
    let mut stack: Vec<(NodeId, bool)> = vec![(NodeId::ROOT, true)];
    while let Some((node, entering)) = stack.pop() {
        let f = function[node.index()];
        if !entering {
            if let Some(c) = f.and_then(|f| on_path.get_mut(&f)) {
                *c -= 1;
            }
            continue;
        }
        if let Some(f) = f {
            let count = on_path.entry(f).or_insert(0);
            if *count == 0 {
                out.push(node);
            }
            *count += 1;
        }
        stack.push((node, false));
        stack.extend(tree.children(node).iter().rev().map(|c| (*c, true)));
    }
    out.sort();
    out
}

/// `node`'s function, then its caller's, … up to the root's child, at most
/// `cut` long.
fn reversed_path(
    tree: &CallTree,
    function: &[Option<FrameId>],
    node: NodeId,
    cut: Option<usize>,
    path: &mut Vec<FrameId>,
) {
    path.clear();
    let limit = cut.unwrap_or(usize::MAX);
    let mut n = node;
    while let Some(f) = function[n.index()] {
        if path.len() == limit {
            break;
        }
        path.push(f);
        n = tree.parent(n).unwrap_or(NodeId::ROOT);
    }
}

/// The flat tree: module → file → function. Exclusive: each node's self
/// value under its function. Inclusive: each function's inclusive value
/// (each sample once), so a file's value is the sum of its functions'.
pub fn flat(tree: &CallTree, frames: &ShapeFrames, values: Values) -> CallTree {
    let metrics = tree.metric_count();
    let function = function_ids(tree, frames);
    let nodes = contributing_nodes(tree, &function, values);
    let inclusive: Vec<Vec<f64>> = match values {
        Values::Inclusive => (0..metrics).map(|m| tree.inclusive(m)).collect(),
        Values::Exclusive => Vec::new(),
    };
    let mut out = CallTree::new(metrics);
    if values == Values::Exclusive {
        add_rootless(tree, &mut out, &[frames.no_stack; 3]);
    }
    let mut row = vec![0.0; metrics];
    for node in nodes {
        let Some(frame) = tree.frame(node) else {
            continue;
        };
        for (m, v) in row.iter_mut().enumerate() {
            *v = match values {
                Values::Exclusive => tree.self_value(node, m),
                Values::Inclusive => inclusive[m][node.index()],
            };
        }
        let path = [
            frames.module(frame),
            frames.file(frame),
            frames.function(frame),
        ];
        out.add_stack(path, &row);
    }
    out
}

/// The same tree with every frame replaced by its function (line dropped,
/// stable path), contexts that become equal merged. Differential views
/// across versions match on this: a line number moves whenever code above
/// it changes.
pub fn by_function(tree: &CallTree, frames: &ShapeFrames) -> CallTree {
    let mut out = CallTree::new(tree.metric_count());
    let mut mapped = vec![NodeId::ROOT; tree.len()];
    for node in tree.node_ids().skip(1) {
        let parent = tree.parent(node).unwrap_or(NodeId::ROOT);
        let frame = tree.frame(node).map_or(FrameId(0), |f| frames.function(f));
        mapped[node.index()] = out.child(mapped[parent.index()], frame);
    }
    for node in tree.node_ids() {
        for m in 0..tree.metric_count() {
            out.add_self(mapped[node.index()], m, tree.self_value(node, m));
        }
    }
    out
}

/// Merges trees by path: a node of the result stands for the nodes of the
/// inputs reached by the same frames from the root. Every input has `M`
/// metrics; metric `k * M + m` of the result is metric `m` of tree `k`
/// times `scale[k]` (1 when missing), and the last `M` metrics are the
/// means over the trees. Children keep first-seen order, earlier trees
/// first.
pub fn merge(trees: &[&CallTree], scale: &[f64]) -> CallTree {
    let per = trees.first().map_or(0, |t| t.metric_count());
    let count = trees.len();
    let mut out = CallTree::new(per * (count + 1));
    for (k, tree) in trees.iter().enumerate() {
        let factor = scale.get(k).copied().unwrap_or(1.0);
        // Node of `tree` → node of `out`, filled parents first.
        let mut mapped = vec![NodeId::ROOT; tree.len()];
        for node in tree.node_ids().skip(1) {
            let parent = tree.parent(node).unwrap_or(NodeId::ROOT);
            let frame = tree.frame(node).unwrap_or(FrameId(0));
            mapped[node.index()] = out.child(mapped[parent.index()], frame);
        }
        for node in tree.node_ids() {
            for m in 0..per.min(tree.metric_count()) {
                let v = tree.self_value(node, m) * factor;
                if v != 0.0 {
                    let target = mapped[node.index()];
                    out.add_self(target, k * per + m, v);
                    out.add_self(target, count * per + m, v / count as f64);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
