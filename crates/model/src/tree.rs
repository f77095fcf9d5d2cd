//! The calling-context tree: an arena of nodes, each a frame under a parent,
//! with one self value per metric. Inclusive values are derived on demand.

use std::num::NonZeroU32;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::frame::FrameId;
use super::limits::{LimitHit, MAX_CONTEXTS, MAX_DEPTH};

/// Children searched directly before a parent's children are indexed.
pub const SCAN_LIMIT: usize = 8;

/// Index of a node in a [`CallTree`]. The root is always `NodeId(0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub const ROOT: NodeId = NodeId(0);
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One node in 20 bytes (a big profile has millions: at 40 bytes, the
/// nodes of a 3.2 M-node tree were 128 MB), as it is added or moved.
#[derive(Debug, Clone, Copy)]
struct Node {
    frame: NodeFrame,
    parent: NodeId,
    depth: u32,
    children: Children,
}

/// The tree's nodes, a column per field: most passes over a big tree read
/// one or two fields of every node (its parent; its depth and parent; its
/// frame), and read 4 or 8 bytes a node rather than the whole 20, which
/// on a 3.2 M-node tree is 13 or 26 MB streamed rather than 64.
#[derive(Debug, Clone, Default)]
struct Nodes {
    frame: Vec<NodeFrame>,
    parent: Vec<NodeId>,
    depth: Vec<u32>,
    children: Vec<Children>,
}

impl Nodes {
    fn len(&self) -> usize {
        self.frame.len()
    }

    fn push(&mut self, node: Node) {
        self.frame.push(node.frame);
        self.parent.push(node.parent);
        self.depth.push(node.depth);
        self.children.push(node.children);
    }

    /// Node `i` replaced by `node`.
    fn set(&mut self, i: usize, node: Node) {
        self.frame[i] = node.frame;
        self.parent[i] = node.parent;
        self.depth[i] = node.depth;
        self.children[i] = node.children;
    }

    fn reserve_exact(&mut self, room: usize) {
        self.frame.reserve_exact(room);
        self.parent.reserve_exact(room);
        self.depth.reserve_exact(room);
        self.children.reserve_exact(room);
    }

    fn shrink_to_fit(&mut self) {
        self.frame.shrink_to_fit();
        self.parent.shrink_to_fit();
        self.depth.shrink_to_fit();
        self.children.shrink_to_fit();
    }

    fn truncate(&mut self, len: usize) {
        self.frame.truncate(len);
        self.parent.truncate(len);
        self.depth.truncate(len);
        self.children.truncate(len);
    }
}

/// A node's frame in 4 bytes: its id plus one, none (the root) as 0.
/// Frame ids stay far below `u32::MAX` ([`super::limits::MAX_FRAMES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NodeFrame(Option<NonZeroU32>);

impl NodeFrame {
    const NONE: NodeFrame = NodeFrame(None);

    fn of(frame: FrameId) -> NodeFrame {
        NodeFrame(NonZeroU32::new(frame.0.wrapping_add(1)))
    }

    fn of_option(frame: Option<FrameId>) -> NodeFrame {
        frame.map_or(NodeFrame::NONE, NodeFrame::of)
    }

    fn get(self) -> Option<FrameId> {
        self.0.map(|f| FrameId(f.get() - 1))
    }
}

/// A node's children in creation order. Most nodes have none or one (the
/// inner frames of a stack seen once), kept in the node; a node with more
/// has a list of the tree's ([`CallTree::lists`]): building, cloning and
/// dropping big trees is mostly their allocations.
#[derive(Debug, Clone, Copy)]
enum Children {
    Empty,
    One(NodeId),
    /// Index into the tree's lists.
    Many(u32),
}

impl Children {
    fn as_slice<'t>(&'t self, lists: &'t [Vec<NodeId>]) -> &'t [NodeId] {
        match self {
            Children::Empty => &[],
            Children::One(id) => std::slice::from_ref(id),
            Children::Many(list) => lists.get(*list as usize).map_or(&[], Vec::as_slice),
        }
    }
}

/// A step of [`CallTree::walk_in_id_order`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visit {
    /// A node's subtree begins.
    Enter(NodeId),
    /// The subtree of the innermost node entered and not left is done.
    Leave,
}

/// A calling-context tree with `metric_count` values per node.
///
/// The root has no frame; it stands for "all samples". Children keep the
/// order in which they were first seen, which for time-ordered inputs is call
/// order.
#[derive(Debug, Clone)]
pub struct CallTree {
    metric_count: usize,
    nodes: Nodes,
    /// The children of every node that has more than one.
    lists: Vec<Vec<NodeId>>,
    self_values: Vec<f64>,
    /// (parent, frame) → child for parents with more than [`SCAN_LIMIT`]
    /// children, for building. Dropped by `remap_frames` and rebuilt only
    /// if the tree grows again.
    child_index: FxHashMap<(NodeId, FrameId), NodeId>,
    index_stale: bool,
    /// (most nodes, deepest node) for trees of one input file; see
    /// [`super::limits`].
    limits: Option<(usize, u32)>,
    limit_hit: Option<LimitHit>,
    /// The nodes that stand for stacks cut at the depth limit (see
    /// [`CallTree::child`]), in creation order.
    cut: Vec<NodeId>,
    /// Every metric's total ([`CallTree::total`]), summed the first time
    /// one is asked for and forgotten when a node or a value changes: a
    /// build asks for a big profile's totals half a dozen times (cells,
    /// series, page keys, facts), a pass over millions of values each.
    totals: OnceLock<Vec<f64>>,
}

impl CallTree {
    pub fn new(metric_count: usize) -> CallTree {
        CallTree {
            metric_count,
            nodes: Nodes {
                frame: vec![NodeFrame::NONE],
                parent: vec![NodeId::ROOT],
                depth: vec![0],
                children: vec![Children::Empty],
            },
            lists: Vec::new(),
            self_values: vec![0.0; metric_count],
            child_index: FxHashMap::default(),
            index_stale: false,
            limits: None,
            limit_hit: None,
            cut: Vec::new(),
            totals: OnceLock::new(),
        }
    }

    /// An empty tree for one input file, bounded by [`MAX_CONTEXTS`] nodes
    /// and [`MAX_DEPTH`]. Past the nodes, [`child`](Self::child) stops
    /// growing the tree (it returns the parent) and
    /// [`over_limit`](Self::over_limit) says so; past the depth, stacks are
    /// cut (see [`child`](Self::child) and [`cut_nodes`](Self::cut_nodes)).
    pub fn bounded(metric_count: usize) -> CallTree {
        CallTree::with_limits(metric_count, MAX_CONTEXTS, MAX_DEPTH)
    }

    fn with_limits(metric_count: usize, max_nodes: usize, max_depth: u32) -> CallTree {
        CallTree {
            limits: Some((max_nodes, max_depth)),
            ..CallTree::new(metric_count)
        }
    }

    /// The limit this tree ran into, if any.
    pub fn over_limit(&self) -> Option<LimitHit> {
        self.limit_hit
    }

    /// Lifts the limits (once the file that built the tree has been checked).
    pub fn unbound(&mut self) {
        self.limits = None;
    }

    /// Makes room for `nodes` more nodes at once, within the tree's node
    /// limit: a reader that knows how many it may add (an upper bound is
    /// fine: room never written is never touched, and
    /// [`shrink_to_fit`](Self::shrink_to_fit) gives it back) spares the
    /// columns growing by doubling, whose last step can leave up to as
    /// much again as the nodes themselves unused while the file is read.
    pub fn reserve_nodes(&mut self, nodes: usize) {
        let room = match self.limits {
            Some((max_nodes, _)) => nodes.min(max_nodes.saturating_sub(self.nodes.len())),
            None => nodes,
        };
        self.nodes.reserve_exact(room);
        self.self_values
            .reserve_exact(room.saturating_mul(self.metric_count));
    }

    /// Gives back what building left unused: the node columns' spare
    /// capacity (a vector grows by doubling, so up to as much again as the
    /// nodes themselves: 40 MB on a tree of 3.2 million nodes) and the
    /// index of wide parents' children, made again if the tree grows. For a
    /// tree read whole from its file, before it is analysed.
    pub fn shrink_to_fit(&mut self) {
        self.nodes.shrink_to_fit();
        self.lists.shrink_to_fit();
        self.self_values.shrink_to_fit();
        self.cut.shrink_to_fit();
        self.child_index = FxHashMap::default();
        self.index_stale = true;
    }

    /// The nodes standing for stacks cut at [`MAX_DEPTH`], each one level
    /// below the deepest frame kept and holding what ran deeper. Until
    /// [`name_cuts`](Self::name_cuts) they carry their parent's frame.
    pub fn cut_nodes(&self) -> &[NodeId] {
        &self.cut
    }

    /// Gives every cut node (see [`cut_nodes`](Self::cut_nodes)) the frame
    /// `frame`, which says the stack was cut there.
    pub fn name_cuts(&mut self, frame: FrameId) {
        for node in std::mem::take(&mut self.cut) {
            self.nodes.frame[node.index()] = NodeFrame::of(frame);
        }
        self.child_index = FxHashMap::default();
        self.index_stale = true;
    }

    pub fn metric_count(&self) -> usize {
        self.metric_count
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The child of `parent` for `frame`, created when missing. Most nodes
    /// have few children: those are searched directly; only parents with
    /// more than [`SCAN_LIMIT`] children go through the hash index, which
    /// stays small and cache-friendly.
    pub fn child(&mut self, parent: NodeId, frame: FrameId) -> NodeId {
        let kids = self.children(parent);
        if kids.len() <= SCAN_LIMIT {
            let frame = NodeFrame::of(frame);
            if let Some(&c) = kids.iter().find(|c| self.nodes.frame[c.index()] == frame) {
                return c;
            }
        } else {
            if self.index_stale {
                self.rebuild_index();
            }
            if let Some(&id) = self.child_index.get(&(parent, frame)) {
                return id;
            }
        }
        let depth = self.nodes.depth[parent.index()] + 1;
        if let Some((max_nodes, max_depth)) = self.limits {
            if depth > max_depth {
                return self.cut_below(parent, max_depth);
            }
            if self.nodes.len() >= max_nodes {
                self.limit_hit.get_or_insert(LimitHit::Contexts);
                return parent;
            }
        }
        self.add_child(parent, frame, depth)
    }

    /// Past the depth limit: the one node below `parent` (at the deepest
    /// level kept) that stands for every frame deeper, made on first use
    /// with `parent`'s frame until [`name_cuts`](Self::name_cuts) names
    /// it. Samples of deeper stacks count there, so totals stay whole.
    fn cut_below(&mut self, parent: NodeId, max_depth: u32) -> NodeId {
        if self.nodes.depth[parent.index()] > max_depth {
            return parent; // already the cut node
        }
        let Some(frame) = self.nodes.frame[parent.index()].get() else {
            return parent; // the root: a depth limit of 0
        };
        // A node at the deepest level kept has no child but its cut node.
        if let Some(&c) = self.children(parent).first() {
            return c;
        }
        if self
            .limits
            .is_some_and(|(max_nodes, _)| self.nodes.len() >= max_nodes)
        {
            self.limit_hit.get_or_insert(LimitHit::Contexts);
            return parent;
        }
        let id = self.add_child(parent, frame, max_depth + 1);
        self.cut.push(id);
        id
    }

    fn add_child(&mut self, parent: NodeId, frame: FrameId, depth: u32) -> NodeId {
        self.forget_totals();
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            frame: NodeFrame::of(frame),
            parent,
            depth,
            children: Children::Empty,
        });
        self.push_child(parent, id);
        self.self_values
            .extend(std::iter::repeat_n(0.0, self.metric_count));
        if !self.index_stale {
            self.index_new_child(parent, frame, id);
        }
        id
    }

    /// Adds `id` after the children of `parent`.
    fn push_child(&mut self, parent: NodeId, id: NodeId) {
        let children = &mut self.nodes.children[parent.index()];
        match *children {
            Children::Empty => *children = Children::One(id),
            Children::One(first) => {
                // Lists are counted in u32, as nodes are.
                *children = Children::Many(self.lists.len() as u32);
                self.lists.push(vec![first, id]);
            }
            Children::Many(list) => {
                if let Some(list) = self.lists.get_mut(list as usize) {
                    list.push(id);
                }
            }
        }
    }

    /// Keeps the index of wide parents up to date after adding a child.
    fn index_new_child(&mut self, parent: NodeId, frame: FrameId, id: NodeId) {
        let count = self.children(parent).len();
        if count == SCAN_LIMIT + 1 {
            // The parent just became wide: index all its children.
            for i in 0..count {
                let c = self.children(parent)[i];
                if let Some(f) = self.nodes.frame[c.index()].get() {
                    self.child_index.insert((parent, f), c);
                }
            }
        } else if count > SCAN_LIMIT + 1 {
            self.child_index.insert((parent, frame), id);
        }
    }

    /// The node reached by following `stack` (root first) from the root.
    pub fn path(&mut self, stack: impl IntoIterator<Item = FrameId>) -> NodeId {
        stack
            .into_iter()
            .fold(NodeId::ROOT, |node, frame| self.child(node, frame))
    }

    /// Adds `value` to the self value of `node` for `metric`. Non-finite
    /// values are ignored (parsers reject them earlier with a place).
    pub fn add_self(&mut self, node: NodeId, metric: usize, value: f64) {
        self.forget_totals();
        if value.is_finite() {
            self.self_values[node.index() * self.metric_count + metric] += value;
        }
    }

    /// Adds one stack (root first) with one value per metric.
    pub fn add_stack(
        &mut self,
        stack: impl IntoIterator<Item = FrameId>,
        values: &[f64],
    ) -> NodeId {
        let node = self.path(stack);
        for (m, v) in values.iter().enumerate().take(self.metric_count) {
            self.add_self(node, m, *v);
        }
        node
    }

    pub fn frame(&self, node: NodeId) -> Option<FrameId> {
        self.nodes.frame[node.index()].get()
    }

    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        (node != NodeId::ROOT).then(|| self.nodes.parent[node.index()])
    }

    pub fn depth(&self, node: NodeId) -> u32 {
        self.nodes.depth[node.index()]
    }

    pub fn children(&self, node: NodeId) -> &[NodeId] {
        self.nodes.children[node.index()].as_slice(&self.lists)
    }

    pub fn self_value(&self, node: NodeId, metric: usize) -> f64 {
        self.self_values[node.index() * self.metric_count + metric]
    }

    /// Every node's self value, in node order, when the tree has one
    /// metric: the values as stored (of several metrics they interleave).
    pub fn only_self_column(&self) -> Option<&[f64]> {
        (self.metric_count == 1).then_some(self.self_values.as_slice())
    }

    /// Node ids in creation order; every parent comes before its children.
    pub fn node_ids(&self) -> impl Iterator<Item = NodeId> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    /// Walks the subtrees of the nodes `ids` starts with (ids `ids`: the
    /// whole tree from the root, or the subtrees of consecutive children
    /// of the root) in id order, as a depth-first walk through the child
    /// lists would: `visit(Visit::Enter(node))` for a node, whose subtree
    /// is skipped when it answers false, and `visit(Visit::Leave)` once the
    /// subtree of a node entered is done, innermost first. Nodes are then
    /// read one after another in memory, not found through child lists.
    ///
    /// That order is the depth-first one only when the ids are a preorder
    /// (each node's parent is on the path to the node before it), as the
    /// trees of sorted collapsed stacks are (and some readers'; pprof's,
    /// built in sample order, are not). A tree
    /// whose ids are not is found out during the walk, which then stops and
    /// returns false; the caller walks the child lists instead.
    pub fn walk_in_id_order(
        &self,
        ids: std::ops::Range<usize>,
        mut visit: impl FnMut(Visit) -> bool,
    ) -> bool {
        let ids = ids.start..ids.end.min(self.nodes.len());
        if ids.start >= self.nodes.len() {
            return true;
        }
        let (parents, depths) = (&self.nodes.parent, &self.nodes.depth);
        // The parent of the range's top nodes, and its depth.
        let (top, base) = match ids.start {
            0 => (None, 0),
            _ => (Some(parents[ids.start]), depths[ids.start]),
        };
        // The nodes on the current path below `top`, each with whether it
        // was entered.
        let mut path: Vec<(NodeId, bool)> = Vec::new();
        for i in ids {
            let Some(at) = depths[i].checked_sub(base).map(|d| d as usize) else {
                return false;
            };
            while path.len() > at {
                if let Some((_, true)) = path.pop() {
                    visit(Visit::Leave);
                }
            }
            let expected = match path.last() {
                Some(&(p, _)) => Some(p),
                None => top,
            };
            if path.len() != at || (i > 0 && expected != Some(parents[i])) {
                return false;
            }
            let inside = path.last().is_none_or(|&(_, entered)| entered);
            let entered = inside && visit(Visit::Enter(NodeId(i as u32)));
            path.push((NodeId(i as u32), entered));
        }
        while let Some((_, entered)) = path.pop() {
            if entered {
                visit(Visit::Leave);
            }
        }
        true
    }

    /// Inclusive value of every node for `metric`, indexed by node.
    /// One pass from the leaves up, relying on parents preceding children.
    pub fn inclusive(&self, metric: usize) -> Vec<f64> {
        let mut total: Vec<f64> = (0..self.nodes.len())
            .map(|i| self.self_values[i * self.metric_count + metric])
            .collect();
        for i in (1..self.nodes.len()).rev() {
            let parent = self.nodes.parent[i].index();
            total[parent] += total[i];
        }
        total
    }

    /// Nodes in each node's subtree, itself included, indexed by node: one
    /// pass from the leaves up. (Node ids are `u32`, so are the counts.)
    pub fn subtree_sizes(&self) -> Vec<u32> {
        let mut sizes = vec![1u32; self.nodes.len()];
        for i in (1..self.nodes.len()).rev() {
            sizes[self.nodes.parent[i].index()] += sizes[i];
        }
        sizes
    }

    /// [`inclusive`](Self::inclusive) of every metric and the
    /// [`subtree_sizes`](Self::subtree_sizes), in one pass over the nodes
    /// (the same sums, in the same order): a big tree's nodes are read
    /// from memory once rather than twice.
    pub fn inclusive_and_sizes(&self) -> (Vec<Vec<f64>>, Vec<u32>) {
        let m = self.metric_count;
        let mut columns: Vec<Vec<f64>> = (0..m)
            .map(|k| {
                (0..self.nodes.len())
                    .map(|i| self.self_values[i * m + k])
                    .collect()
            })
            .collect();
        let mut sizes = vec![1u32; self.nodes.len()];
        for i in (1..self.nodes.len()).rev() {
            let parent = self.nodes.parent[i].index();
            for column in &mut columns {
                column[parent] += column[i];
            }
            sizes[parent] += sizes[i];
        }
        (columns, sizes)
    }

    /// Sum of all self values for `metric`.
    pub fn total(&self, metric: usize) -> f64 {
        let totals = self
            .totals
            .get_or_init(|| (0..self.metric_count).map(|m| self.sum_of(m)).collect());
        totals[metric]
    }

    /// Sum of all self values for `metric`, in node order.
    fn sum_of(&self, metric: usize) -> f64 {
        (0..self.nodes.len())
            .map(|i| self.self_values[i * self.metric_count + metric])
            .sum()
    }

    /// Drops the totals summed so far, before a node or a value changes.
    fn forget_totals(&mut self) {
        if self.totals.get().is_some() {
            self.totals = OnceLock::new();
        }
    }

    /// Frames from the root's child down to `node`.
    pub fn stack_of(&self, node: NodeId) -> Vec<FrameId> {
        let mut stack = Vec::with_capacity(self.depth(node) as usize);
        let mut n = node;
        while let Some(f) = self.frame(n) {
            stack.push(f);
            n = self.nodes.parent[n.index()];
        }
        stack.reverse();
        stack
    }

    /// Adds a metric whose self value of node `i` is `values[i]` (missing
    /// values are 0).
    pub fn push_metric(&mut self, values: &[f64]) {
        self.forget_totals();
        let old = self.metric_count;
        let mut self_values = Vec::with_capacity(self.nodes.len() * (old + 1));
        for i in 0..self.nodes.len() {
            self_values.extend_from_slice(&self.self_values[i * old..(i + 1) * old]);
            let v = values.get(i).copied().unwrap_or(0.0);
            self_values.push(if v.is_finite() { v } else { 0.0 });
        }
        self.self_values = self_values;
        self.metric_count = old + 1;
    }

    /// The same shape with `metric_count` metrics, where metric `to` of
    /// the result is metric `from` of this tree times `factor`, for each
    /// `(from, to, factor)` of `placement` (placements to the same `to`
    /// add up).
    pub fn remetric(&self, metric_count: usize, placement: &[(usize, usize, f64)]) -> CallTree {
        let mut self_values = vec![0.0; self.nodes.len() * metric_count];
        for i in 0..self.nodes.len() {
            for &(from, to, factor) in placement {
                self_values[i * metric_count + to] +=
                    self.self_values[i * self.metric_count + from] * factor;
            }
        }
        CallTree {
            metric_count,
            nodes: self.nodes.clone(),
            lists: self.lists.clone(),
            self_values,
            child_index: FxHashMap::default(),
            index_stale: true,
            limits: None,
            limit_hit: None,
            cut: Vec::new(),
            totals: OnceLock::new(),
        }
    }

    /// The same tree with only `metric`'s values (the one metric of the
    /// result).
    pub fn project(&self, metric: usize) -> CallTree {
        CallTree {
            metric_count: 1,
            nodes: self.nodes.clone(),
            lists: self.lists.clone(),
            self_values: (0..self.nodes.len())
                .map(|i| self.self_values[i * self.metric_count + metric])
                .collect(),
            child_index: FxHashMap::default(),
            index_stale: true,
            limits: None,
            limit_hit: None,
            cut: Vec::new(),
            totals: OnceLock::new(),
        }
    }

    /// The child of `parent` for `frame`, without creating it.
    pub fn find_child(&self, parent: NodeId, frame: FrameId) -> Option<NodeId> {
        self.children(parent)
            .iter()
            .copied()
            .find(|c| self.frame(*c) == Some(frame))
    }

    /// Adds `other` (whose frame `f` is `frame_map[f]` here) by path: its
    /// nodes join the nodes reached by the same frames, new ones are added.
    /// Returns where each node of `other` went, indexed by its node id (for
    /// data kept beside a tree, such as allocation sites).
    pub fn absorb(&mut self, other: &CallTree, frame_map: &[FrameId]) -> Vec<NodeId> {
        let metrics = self.metric_count.min(other.metric_count);
        let mut mapped = vec![NodeId::ROOT; other.len()];
        for node in other.node_ids().skip(1) {
            let parent = other.nodes.parent[node.index()];
            let frame = other
                .frame(node)
                .map_or(FrameId(0), |f| frame_map[f.0 as usize]);
            mapped[node.index()] = self.child(mapped[parent.index()], frame);
        }
        for node in other.node_ids() {
            for m in 0..metrics {
                self.add_self(mapped[node.index()], m, other.self_value(node, m));
            }
        }
        mapped
    }

    /// Replaces every frame id through `map` (used when a parser's local
    /// frame table is merged into the history's).
    pub fn remap_frames(&mut self, map: &[FrameId]) {
        // The first profile of a history usually keeps its frame ids.
        let moved = map.iter().enumerate().any(|(i, f)| f.0 as usize != i);
        if moved {
            for frame in &mut self.nodes.frame {
                if let Some(f) = frame.get() {
                    *frame = NodeFrame::of(map[f.0 as usize]);
                }
            }
        }
        // Rebuilt lazily: most trees are never extended after loading.
        self.child_index = FxHashMap::default();
        self.index_stale = true;
    }

    /// Replaces every node's frame `f` by `map[f]`, merging the children
    /// of a node that come to share a frame (values added, their children
    /// merged likewise), and returns where each node went, indexed by its
    /// old id. The result is the tree that adding every node, in creation
    /// order, to a new tree with [`child`](Self::child) makes (node ids,
    /// children's order, cut nodes), built in this tree's own memory: a
    /// node is written into a slot already read, so no second tree is
    /// allocated (on a big profile, its pages faulted in cost more than
    /// the merge itself).
    pub fn merge_frames(&mut self, map: &[FrameId]) -> Vec<NodeId> {
        self.forget_totals();
        let old_len = self.nodes.len();
        let mut mapped = vec![NodeId::ROOT; old_len];
        let max_depth = self.limits.map_or(MAX_DEPTH, |(_, depth)| depth);
        self.child_index = FxHashMap::default();
        self.index_stale = false;
        self.cut.clear();
        // Nodes not merged yet keep list indexes of the old lists; they are
        // never read (a node's children are reset before it is merged, and
        // children are only added to merged nodes).
        self.lists.clear();
        self.nodes.children[0] = Children::Empty;
        let m = self.metric_count;
        for k in 0..m {
            self.move_self_value(0, 0, k, true);
        }
        let mut kept = 1;
        for n in 1..old_len {
            let (parent, depth) = (mapped[self.nodes.parent[n].index()], self.nodes.depth[n]);
            let frame = self.nodes.frame[n]
                .get()
                .map_or(FrameId(0), |f| map[f.0 as usize]);
            self.nodes.children[n] = Children::Empty;
            let (target, new) = match self.merged_child(parent, frame, depth, max_depth) {
                Some(existing) => (existing, false),
                None => {
                    let id = NodeId(kept as u32);
                    kept += 1;
                    // A child below the deepest level kept is the cut node,
                    // named after its parent until `name_cuts`.
                    let cut = depth > max_depth;
                    let frame = match cut {
                        true => self.nodes.frame[parent.index()].get(),
                        false => Some(frame),
                    };
                    let node = Node {
                        frame: NodeFrame::of_option(frame),
                        parent,
                        depth,
                        children: Children::Empty,
                    };
                    self.nodes.set(id.index(), node);
                    self.push_child(parent, id);
                    match cut {
                        true => self.cut.push(id),
                        false => self.index_new_child(parent, frame.unwrap_or(FrameId(0)), id),
                    }
                    (id, true)
                }
            };
            for k in 0..m {
                self.move_self_value(n, target.index(), k, new);
            }
            mapped[n] = target;
        }
        self.nodes.truncate(kept);
        self.self_values.truncate(kept * m);
        mapped
    }

    /// The child of `parent` that a node of `frame` at `depth` joins in
    /// [`merge_frames`](Self::merge_frames), if one exists: the one with
    /// its frame, or below the deepest level kept, the cut node.
    fn merged_child(
        &self,
        parent: NodeId,
        frame: FrameId,
        depth: u32,
        max_depth: u32,
    ) -> Option<NodeId> {
        let kids = self.children(parent);
        if depth > max_depth {
            return match self.nodes.frame[parent.index()].get() {
                Some(_) => kids.first().copied(),
                None => Some(parent), // the root: a depth limit of 0
            };
        }
        if kids.len() <= SCAN_LIMIT {
            return kids
                .iter()
                .copied()
                .find(|c| self.nodes.frame[c.index()] == NodeFrame::of(frame));
        }
        self.child_index.get(&(parent, frame)).copied()
    }

    /// Metric `k`'s self value of node slot `from` added to slot `to`'s,
    /// which starts from 0 when `fresh` (as [`add_self`](Self::add_self)
    /// adds to a new node). `to` is never after `from`.
    fn move_self_value(&mut self, from: usize, to: usize, k: usize, fresh: bool) {
        let m = self.metric_count;
        let value = self.self_values[from * m + k];
        let slot = &mut self.self_values[to * m + k];
        if fresh {
            *slot = 0.0;
        }
        if value.is_finite() {
            *slot += value;
        }
    }

    fn rebuild_index(&mut self) {
        self.child_index.clear();
        for i in 1..self.nodes.len() {
            let parent = self.nodes.parent[i];
            let wide = self.children(parent).len() > SCAN_LIMIT;
            if let (true, Some(f)) = (wide, self.nodes.frame[i].get()) {
                self.child_index.insert((parent, f), NodeId(i as u32));
            }
        }
        self.index_stale = false;
    }
}

#[cfg(test)]
mod tests;
