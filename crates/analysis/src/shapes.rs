//! The three shapes of a profile (EasyView section V-A): top-down (the
//! calling-context tree itself), bottom-up (call paths reversed, callees as
//! roots) and flat (module → file → function), each with inclusive or
//! exclusive values, and the merge of several trees by path that diffs and
//! aggregates are built on.
//!
//! Every shape is an ordinary [`CallTree`]: a node's inclusive value is the
//! sum of the self values below it, so one layout and one writer serve all
//! shapes. Bottom-up and flat trees group frames by *function* (see
//! [`model::identity`]); the frames they need besides the profile's own
//! live in [`ShapeFrames`], one table for the whole history so that the same
//! function has the same id in every profile and trees can be merged.

use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use model::{CallTree, Frame, FrameId, FrameTable, FunctionIds, NodeId, Visit};

mod function_sums;
use function_sums::{Frameless, FunctionSums};

/// The history's frames plus the function, file and module frames that
/// bottom-up and flat trees use. Ids of the history's own frames are kept.
#[derive(Debug, Clone)]
pub struct ShapeFrames {
    pub table: FrameTable,
    /// Stands for samples recorded without any frame (their value sits on
    /// the top-down root), so exclusive shapes keep the whole total.
    pub no_stack: FrameId,
    /// Stands for callers too narrow to draw, merged while building a
    /// bottom-up tree.
    pub narrow: FrameId,
    function_of: Vec<FrameId>,
    file_of: Vec<FrameId>,
    module_of: Vec<FrameId>,
    /// Shape frame → a history frame it was made from.
    origin: Vec<FrameId>,
}

impl ShapeFrames {
    /// The shape frames of `frames`, each frame's function as `ids` says
    /// (see [`model::identity`]).
    pub fn new(frames: &FrameTable, ids: &FunctionIds) -> ShapeFrames {
        let mut table = frames.clone();
        let n = frames.len();
        let (mut function_of, mut file_of, mut module_of) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        for (id, frame) in frames.iter() {
            let function = ids.function(id, frame);
            function_of.push(table.intern(function.clone()));
            file_of.push(table.intern(file_frame(&function)));
            module_of.push(table.intern(module_frame(&function)));
        }
        // The frames just added map too (to themselves, or to frames added
        // in turn), so trees already by function can be reshaped again.
        while function_of.len() < table.len() {
            let id = FrameId(function_of.len() as u32);
            let frame = table.get(id).clone();
            let function = line_free(&frame);
            function_of.push(table.intern(function.clone()));
            file_of.push(table.intern(file_frame(&function)));
            module_of.push(table.intern(module_frame(&function)));
        }
        let no_stack = table.intern(Frame {
            function: "(no stack)".to_string(),
            module: Some("(no stack)".to_string()),
            ..Frame::default()
        });
        let narrow = table.intern(Frame {
            function: "(narrower callers)".to_string(),
            module: Some("(narrower callers)".to_string()),
            ..Frame::default()
        });
        // The first history frame of each shape frame made from one.
        let mut origin: Vec<Option<FrameId>> = vec![None; table.len()];
        for i in 0..n {
            let id = FrameId(i as u32);
            origin[i] = Some(id);
            for made in [function_of[i], file_of[i], module_of[i]] {
                origin[made.0 as usize].get_or_insert(id);
            }
        }
        let origin = origin
            .into_iter()
            .enumerate()
            .map(|(i, o)| o.unwrap_or(FrameId(i as u32)))
            .collect();
        table.shrink_to_fit();
        ShapeFrames {
            table,
            no_stack,
            narrow,
            function_of,
            file_of,
            module_of,
            origin,
        }
    }

    /// A frame of the history standing for shape frame `frame` (itself
    /// for the history's own): for questions asked of history frames, such
    /// as whether a version modified a function.
    pub fn origin(&self, frame: FrameId) -> FrameId {
        self.origin.get(frame.0 as usize).copied().unwrap_or(frame)
    }

    /// The frame standing for `frame`'s function (its line dropped).
    pub fn function(&self, frame: FrameId) -> FrameId {
        self.function_of
            .get(frame.0 as usize)
            .copied()
            .unwrap_or(frame)
    }

    pub fn file(&self, frame: FrameId) -> FrameId {
        self.file_of
            .get(frame.0 as usize)
            .copied()
            .unwrap_or(self.no_stack)
    }

    pub fn module(&self, frame: FrameId) -> FrameId {
        self.module_of
            .get(frame.0 as usize)
            .copied()
            .unwrap_or(self.no_stack)
    }
}

/// A frame without its lines (function frames made from function frames).
fn line_free(frame: &Frame) -> Frame {
    Frame {
        function: frame.function.clone(),
        file: frame.file.clone(),
        module: frame.module.clone(),
        ..Frame::default()
    }
}

/// The file of a function frame (whose file is version-independent).
fn file_frame(frame: &Frame) -> Frame {
    let file = frame.file.clone();
    Frame {
        function: file.clone().unwrap_or_else(|| "(no file)".to_string()),
        file,
        ..Frame::default()
    }
}

/// The load module when the profiler names one, else the file's directory
/// (a package, for interpreted languages).
fn module_frame(frame: &Frame) -> Frame {
    let file = frame.file.clone();
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

/// Most occurrence steps taken while building one bottom-up tree; beyond
/// it the caller chains are cut at the level reached.
pub const BOTTOM_UP_WORK: usize = 4_000_000;

/// The bottom-up tree: roots are functions, children their callers.
/// Exclusive: every node's self value under its reversed path. Inclusive:
/// every outermost occurrence of a function (none of its callers is the
/// same function) with its inclusive value.
///
/// Built level by level: at each level the occurrences under one node are
/// grouped by their next caller. A group worth less than `min_fraction` of
/// the tree's total in every metric is not expanded: its value goes to one
/// `(narrower callers)` child of the node, so totals stay exact and the
/// work is bounded by what can be drawn.
pub fn bottom_up(
    tree: &CallTree,
    frames: &ShapeFrames,
    values: Values,
    min_fraction: f64,
) -> Shaped {
    bottom_up_from(&ShapeInputs::new(tree, frames), values, min_fraction)
}

/// [`bottom_up`] from inputs its profile's other shapes share.
pub fn bottom_up_from(inputs: &ShapeInputs, values: Values, min_fraction: f64) -> Shaped {
    bottom_up_grouped(inputs, values, min_fraction, DENSE_LEVEL)
}

/// Levels of at least this many occurrences, all under one node, find
/// their groups in a dense array (see [`GroupIndex`]).
const DENSE_LEVEL: usize = 1024;

/// [`bottom_up_from`], with levels of `dense_from` occurrences or more
/// under one node grouped through a dense array.
fn bottom_up_grouped(
    inputs: &ShapeInputs,
    values: Values,
    min_fraction: f64,
    dense_from: usize,
) -> Shaped {
    let (tree, frames) = (inputs.tree, inputs.frames);
    let metrics = tree.metric_count();
    let function = inputs.function();
    let contributing = inputs.contributing(values);
    let mut out = CallTree::new(metrics);
    if values == Values::Exclusive {
        add_rootless(tree, &mut out, &[frames.no_stack]);
    }
    let value = ValueOf::new(inputs, values);
    let grand: Vec<f64> = (0..metrics)
        .map(|m| contributing.iter().map(|&n| value.of(n, m)).sum::<f64>())
        .collect();
    let threshold: Vec<f64> = grand.iter().map(|g| g * min_fraction).collect();
    let (mut work, mut level, mut cut_depth) = (0usize, 0usize, None);
    // One occurrence per contributing node: the bottom-up node it hangs
    // under, and the top-down node whose function comes next. A long first
    // level is grouped straight from the contributing nodes.
    let mut live: Vec<Occurrence> = if contributing.len() >= dense_from {
        work += contributing.len();
        level += 1;
        let level_inputs = (function, frames.narrow, &value, threshold.as_slice(), tree);
        let sums = inputs.function_sums(values);
        bottom_up_first_level(&mut out, contributing, sums, level_inputs)
    } else {
        contributing
            .iter()
            .map(|&n| Occurrence {
                under: NodeId::ROOT,
                next: n,
                source: n,
            })
            .collect()
    };
    while !live.is_empty() {
        if work > BOTTOM_UP_WORK {
            cut_depth = Some(level);
            break;
        }
        work += live.len();
        level += 1;
        let groups = GroupIndex::for_level(&live, dense_from, frames.table.len());
        live = bottom_up_level(
            &mut out,
            (live, groups),
            function,
            frames.narrow,
            &value,
            &threshold,
            tree,
        );
    }
    // Occurrences left when the work ran out end where they are.
    for o in &live {
        for m in 0..metrics {
            out.add_self(o.under, m, value.of(o.source, m));
        }
    }
    Shaped {
        tree: out,
        cut_depth,
    }
}

/// The values a bottom-up tree adds for a contributing node, read where
/// the profile keeps them (its self values, or the inputs' inclusive
/// columns) rather than copied per occurrence: the occurrences stay in
/// node order, so the reads go forward, and a copy was a second set of
/// columns (35 MB per tree on a 2.2 M-node profile of two metrics, two
/// trees at once).
struct ValueOf<'a> {
    tree: &'a CallTree,
    inclusive: Option<&'a [Vec<f64>]>,
}

impl<'a> ValueOf<'a> {
    fn new(inputs: &'a ShapeInputs, values: Values) -> ValueOf<'a> {
        ValueOf {
            tree: inputs.tree,
            inclusive: (values == Values::Inclusive).then(|| inputs.inclusive()),
        }
    }

    /// Node `n`'s value of metric `m`.
    fn of(&self, n: NodeId, m: usize) -> f64 {
        match self.inclusive {
            Some(columns) => columns[m][n.index()],
            None => self.tree.self_value(n, m),
        }
    }
}

/// A path being reversed: under bottom-up node `under`, the function of
/// top-down node `next` comes next; `source` is the contributing node
/// whose values it carries.
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    under: NodeId,
    next: NodeId,
    source: NodeId,
}

/// One level: groups `live` by (node, next function), creates the groups
/// worth drawing, sends the rest to `(narrower callers)`, and returns the
/// occurrences that go on (those whose caller is not the root), in
/// `live`'s own buffer: the first level has one occurrence per node of
/// the tree, and a second list as long would double what it holds.
fn bottom_up_level(
    out: &mut CallTree,
    (mut live, mut groups): (Vec<Occurrence>, GroupIndex),
    function: &NodeFunctions,
    narrow: FrameId,
    value: &ValueOf,
    threshold: &[f64],
    tree: &CallTree,
) -> Vec<Occurrence> {
    let metrics = threshold.len();
    let mut keys: Vec<(NodeId, FrameId)> = Vec::new();
    let mut sums: Vec<f64> = Vec::new();
    // Groups are fewer than occurrences, which are counted in u32.
    let mut group_of: Vec<u32> = Vec::with_capacity(live.len());
    for o in &live {
        let key = (o.under, function.of(o.next).unwrap_or(FrameId(0)));
        let g = groups.group_of(key, || {
            keys.push(key);
            sums.resize(sums.len() + metrics, 0.0);
            keys.len() - 1
        });
        for (m, s) in sums[g * metrics..(g + 1) * metrics].iter_mut().enumerate() {
            *s += value.of(o.source, m);
        }
        group_of.push(g as u32);
    }
    let (empty, wide, node_of) = group_nodes(out, keys.iter().copied(), &sums, threshold, narrow);
    // Occurrences that go on are moved to the front, in order.
    let mut kept = 0;
    for (i, g) in group_of.iter().map(|&g| g as usize).enumerate() {
        let o = live[i];
        if empty[g] {
            continue;
        }
        let caller = tree.parent(o.next).unwrap_or(NodeId::ROOT);
        let ends = !wide[g] || function.of(caller).is_none();
        if ends {
            // The path ends here: its value is the node's own.
            for m in 0..metrics {
                out.add_self(node_of[g], m, value.of(o.source, m));
            }
        } else {
            live[kept] = Occurrence {
                under: node_of[g],
                next: caller,
                source: o.source,
            };
            kept += 1;
        }
    }
    live.truncate(kept);
    live
}

/// Per group of a level (its (node, function) key, its sums: one per
/// metric, group after group): whether it is empty (no value in any
/// metric), whether it is wide enough to draw (at least `threshold` in
/// some metric), and the bottom-up node made for it (its function's, or
/// `narrow` when it is not wide; none for an empty group).
fn group_nodes(
    out: &mut CallTree,
    keys: impl ExactSizeIterator<Item = (NodeId, FrameId)>,
    sums: &[f64],
    threshold: &[f64],
    narrow: FrameId,
) -> (Vec<bool>, Vec<bool>, Vec<NodeId>) {
    let (metrics, groups) = (threshold.len(), keys.len());
    let sum = |g: usize, m: usize| sums[g * metrics + m];
    let empty: Vec<bool> = (0..groups)
        .map(|g| (0..metrics).all(|m| sum(g, m) == 0.0))
        .collect();
    let wide: Vec<bool> = (0..groups)
        .map(|g| (0..metrics).any(|m| sum(g, m) > 0.0 && sum(g, m) >= threshold[m]))
        .collect();
    let node_of = keys
        .enumerate()
        .map(|(g, (under, frame))| match empty[g] {
            true => NodeId::ROOT,
            false => out.child(under, if wide[g] { frame } else { narrow }),
        })
        .collect();
    (empty, wide, node_of)
}

/// The first level of a bottom-up tree, as [`bottom_up_level`] makes it
/// from one occurrence per contributing node under the root, without that
/// list (on a large profile, millions of occurrences written and read
/// again): its groups are the functions' `sums` (first seen first), and
/// it returns the occurrences that go on.
fn bottom_up_first_level(
    out: &mut CallTree,
    contributing: &[NodeId],
    sums: &FunctionSums,
    (function, narrow, value, threshold, tree): (
        &NodeFunctions,
        FrameId,
        &ValueOf,
        &[f64],
        &CallTree,
    ),
) -> Vec<Occurrence> {
    let metrics = threshold.len();
    let function_of = |n: NodeId| function.of(n).unwrap_or(FrameId(0));
    let under_root = sums.functions.iter().map(|&f| (NodeId::ROOT, f));
    let (empty, wide, node_of) = group_nodes(out, under_root, &sums.sums, threshold, narrow);
    let mut live = Vec::new();
    for &n in contributing {
        let Some(g) = sums.group(function_of(n)) else {
            continue;
        };
        if empty[g] {
            continue;
        }
        let caller = tree.parent(n).unwrap_or(NodeId::ROOT);
        if !wide[g] || function.of(caller).is_none() {
            // The path ends here: its value is the node's own.
            for m in 0..metrics {
                out.add_self(node_of[g], m, value.of(n, m));
            }
        } else {
            live.push(Occurrence {
                under: node_of[g],
                next: caller,
                source: n,
            });
        }
    }
    live
}

/// Where a level finds the group of an occurrence's (node, function) key.
/// On the first level every occurrence hangs under the root, so its
/// groups are found by function in a dense array instead of hashed: that
/// level has an occurrence per contributing node, most of a large tree.
enum GroupIndex {
    /// Group + 1 (0: none yet) per function, all under one node.
    ByFunction(Vec<u32>),
    ByKey(FxHashMap<(NodeId, FrameId), usize>),
}

impl GroupIndex {
    /// The index for a level of `live` occurrences: by function (of the
    /// `frames` shape frames) when there are at least `dense_from`, all
    /// under one node.
    fn for_level(live: &[Occurrence], dense_from: usize, frames: usize) -> GroupIndex {
        let under = live.first().map(|o| o.under);
        if live.len() < dense_from || live.iter().any(|o| Some(o.under) != under) {
            return GroupIndex::ByKey(FxHashMap::default());
        }
        GroupIndex::ByFunction(vec![0; frames.max(1)])
    }

    /// The group of `key`, made by `new` (which returns its index) the
    /// first time.
    fn group_of(&mut self, key: (NodeId, FrameId), new: impl FnOnce() -> usize) -> usize {
        match self {
            GroupIndex::ByFunction(slots) => {
                let slot = &mut slots[key.1 .0 as usize];
                if *slot == 0 {
                    *slot = new() as u32 + 1;
                }
                *slot as usize - 1
            }
            GroupIndex::ByKey(map) => *map.entry(key).or_insert_with(new),
        }
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

/// What the bottom-up and flat trees of one profile are built from, each
/// part computed once, when a shape first needs it, and shared by the
/// shapes built from the same inputs (at once on several threads, or one
/// after the other).
pub struct ShapeInputs<'t> {
    tree: &'t CallTree,
    frames: &'t ShapeFrames,
    /// The function frame of every node (none for the root).
    function: OnceLock<NodeFunctions>,
    /// Nodes with a self value, and the outermost occurrences of each
    /// function (see [`outermost_occurrences`]), in node order.
    with_self: OnceLock<Vec<NodeId>>,
    outermost: OnceLock<Vec<NodeId>>,
    /// Every node's inclusive value, per metric.
    /// (Shared: the top-down view draws them too, after the other shapes'
    /// inputs are freed.)
    inclusive: OnceLock<Arc<Vec<Vec<f64>>>>,
    /// The contributing nodes summed per function, exclusive values then
    /// inclusive ones: the flat tree and the bottom-up tree's first level.
    function_sums: [OnceLock<FunctionSums>; 2],
}

impl<'t> ShapeInputs<'t> {
    pub fn new(tree: &'t CallTree, frames: &'t ShapeFrames) -> ShapeInputs<'t> {
        ShapeInputs {
            tree,
            frames,
            function: OnceLock::new(),
            with_self: OnceLock::new(),
            outermost: OnceLock::new(),
            inclusive: OnceLock::new(),
            function_sums: [OnceLock::new(), OnceLock::new()],
        }
    }

    /// [`ShapeInputs::new`] with every node's inclusive value per metric
    /// already at hand (the matrix's sums computed them: see
    /// `evolution::HeldInclusive`); `None` computes them when needed.
    pub fn with_inclusive(
        tree: &'t CallTree,
        frames: &'t ShapeFrames,
        inclusive: Option<Arc<Vec<Vec<f64>>>>,
    ) -> ShapeInputs<'t> {
        let inputs = ShapeInputs::new(tree, frames);
        let fits = |columns: &Vec<Vec<f64>>| {
            columns.len() == tree.metric_count() && columns.iter().all(|c| c.len() == tree.len())
        };
        if let Some(columns) = inclusive.filter(|c| fits(c)) {
            let _ = inputs.inclusive.set(columns);
        }
        inputs
    }

    fn function(&self) -> &NodeFunctions {
        self.function.get_or_init(|| {
            let (tree, frames) = (self.tree, self.frames);
            NodeFunctions(
                tree.node_ids()
                    .map(|n| tree.frame(n).map_or(NO_FUNCTION, |f| frames.function(f).0))
                    .collect(),
            )
        })
    }

    /// Nodes whose values a bottom-up or flat tree adds, in node order.
    fn contributing(&self, values: Values) -> &[NodeId] {
        let tree = self.tree;
        match values {
            Values::Exclusive => self.with_self.get_or_init(|| {
                tree.node_ids()
                    .skip(1)
                    .filter(|&n| (0..tree.metric_count()).any(|m| tree.self_value(n, m) != 0.0))
                    .collect()
            }),
            Values::Inclusive => self
                .outermost
                .get_or_init(|| outermost_occurrences(tree, self.function())),
        }
    }

    fn inclusive(&self) -> &[Vec<f64>] {
        self.inclusive_shared()
    }

    /// The contributing nodes of `values` summed per function, a node
    /// without a frame under frame 0.
    fn function_sums(&self, values: Values) -> &FunctionSums {
        let index = usize::from(values == Values::Inclusive);
        self.function_sums[index]
            .get_or_init(|| FunctionSums::of(self, values, Frameless::AsFrameZero))
    }

    /// Every node's inclusive value, per metric, computed once for every
    /// shape and view of the profile.
    pub fn inclusive_shared(&self) -> &Arc<Vec<Vec<f64>>> {
        self.inclusive.get_or_init(|| {
            Arc::new(
                (0..self.tree.metric_count())
                    .map(|m| self.tree.inclusive(m))
                    .collect(),
            )
        })
    }
}

/// Every node's function frame, 4 bytes a node ([`NO_FUNCTION`] for
/// none): as `Option<FrameId>`s they took 8, 26 MB on a 3.2 M-node
/// profile, read all over by the bottom-up trees.
struct NodeFunctions(Vec<u32>);

/// A node without a function (the root).
const NO_FUNCTION: u32 = u32::MAX;

impl NodeFunctions {
    /// Node `n`'s function.
    fn of(&self, n: NodeId) -> Option<FrameId> {
        let f = self.0[n.index()];
        (f != NO_FUNCTION).then_some(FrameId(f))
    }

    /// One past the largest function frame of any node.
    fn slots(&self) -> usize {
        self.0
            .iter()
            .filter(|&&f| f != NO_FUNCTION)
            .map(|&f| f as usize + 1)
            .max()
            .unwrap_or(0)
    }
}

/// Nodes none of whose ancestors has the same function, in node order.
/// Depth-first with the functions of the current path on a stack and a
/// count per function (a dense array); no recursion, so deep stacks are
/// safe. In id order when the ids allow it (see
/// [`CallTree::walk_in_id_order`]).
fn outermost_occurrences(tree: &CallTree, function: &NodeFunctions) -> Vec<NodeId> {
    let slots = function.slots();
    let mut on_path = vec![0u32; slots];
    let mut path: Vec<Option<FrameId>> = Vec::new();
    let mut outermost = Vec::new();
    let walked = tree.walk_in_id_order(0..tree.len(), |step| {
        match step {
            Visit::Enter(node) => {
                let f = function.of(node);
                if let Some(f) = f {
                    let count = &mut on_path[f.0 as usize];
                    if *count == 0 {
                        outermost.push(node);
                    }
                    *count += 1;
                }
                path.push(f);
            }
            Visit::Leave => {
                if let Some(f) = path.pop().flatten() {
                    on_path[f.0 as usize] -= 1;
                }
            }
        }
        true
    });
    if walked {
        return outermost;
    }
    on_path.fill(0);
    outermost_by_child_lists(tree, function, on_path)
}

/// [`outermost_occurrences`] through the child lists, with `on_path` all
/// zero, one slot per function.
fn outermost_by_child_lists(
    tree: &CallTree,
    function: &NodeFunctions,
    mut on_path: Vec<u32>,
) -> Vec<NodeId> {
    let mut path: Vec<Option<FrameId>> = Vec::new();
    let mut outermost = vec![false; tree.len()];
    let mut stack: Vec<NodeId> = vec![NodeId::ROOT];
    while let Some(node) = stack.pop() {
        // Leave the nodes of the path that are not this node's ancestors.
        let depth = tree.depth(node) as usize;
        while path.len() > depth {
            if let Some(f) = path.pop().flatten() {
                on_path[f.0 as usize] -= 1;
            }
        }
        let f = function.of(node);
        if let Some(f) = f {
            let count = &mut on_path[f.0 as usize];
            outermost[node.index()] = *count == 0;
            *count += 1;
        }
        path.push(f);
        stack.extend(tree.children(node).iter().rev());
    }
    tree.node_ids().filter(|n| outermost[n.index()]).collect()
}

/// The flat tree: module → file → function. Exclusive: each node's self
/// value under its function. Inclusive: each function's inclusive value
/// (each sample once), so a file's value is the sum of its functions'.
pub fn flat(tree: &CallTree, frames: &ShapeFrames, values: Values) -> CallTree {
    flat_from(&ShapeInputs::new(tree, frames), values)
}

/// [`flat`] from inputs its profile's other shapes share.
pub fn flat_from(inputs: &ShapeInputs, values: Values) -> CallTree {
    let (tree, frames) = (inputs.tree, inputs.frames);
    let metrics = tree.metric_count();
    // The sums the bottom-up tree shares, unless they count a frameless
    // node, which the flat tree leaves out.
    let shared = inputs.function_sums(values);
    let own;
    let sums = match shared.frameless {
        false => shared,
        true => {
            own = FunctionSums::of(inputs, values, Frameless::Skipped);
            &own
        }
    };
    // The three levels, once per function.
    let mut out = CallTree::new(metrics);
    if values == Values::Exclusive {
        add_rootless(tree, &mut out, &[frames.no_stack; 3]);
    }
    for (g, &frame) in sums.first_frames.iter().enumerate() {
        let path = [
            frames.module(frame),
            frames.file(frame),
            frames.function(frame),
        ];
        out.add_stack(path, &sums.sums[g * metrics..(g + 1) * metrics]);
    }
    out
}

/// The same tree with every frame replaced by its function (line dropped,
/// stable path), contexts that become equal merged. Differential views
/// across versions match on this: a line number moves whenever code above
/// it changes.
pub fn by_function(tree: &CallTree, frames: &ShapeFrames) -> CallTree {
    // Frames without a line (and with a stable path) are their own
    // function: nothing to merge.
    let identity = tree
        .node_ids()
        .skip(1)
        .all(|n| tree.frame(n).is_some_and(|f| frames.function(f) == f));
    if identity {
        return tree.clone();
    }
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
    let Some(first) = trees.first() else {
        return CallTree::new(0);
    };
    // The first tree is copied as it is (no lookups); the others merge in.
    let factor = scale.first().copied().unwrap_or(1.0);
    let placement: Vec<(usize, usize, f64)> = (0..per)
        .flat_map(|m| [(m, m, factor), (m, count * per + m, factor / count as f64)])
        .collect();
    let mut out = first.remetric(per * (count + 1), &placement);
    for (k, tree) in trees.iter().enumerate().skip(1) {
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
