//! What the matrix, call graphs and timelines need from one profile, in one
//! pass over its calling-context tree: each method's inclusive value, each
//! call edge's value at the method, class and package levels, and each
//! method's share of every fixed time frame of the run.
//!
//! Recursion is counted once per sample: a method (or an edge) adds a
//! node's inclusive value only at its outermost occurrence on the path from
//! the root, so `f → g → f` does not count `f`'s time twice.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::hierarchy::{CompId, Hierarchy, Level};
use model::{CallTree, FrameId, NodeId, Profile, Visit};

/// A call from one component to another at one level.
pub type Edge = (CompId, CompId);

/// The levels call edges are aggregated at, in [`ProfileFacts::edges`] order.
pub const EDGE_LEVELS: [Level; 3] = [Level::Method, Level::Class, Level::Package];

#[derive(Debug, Clone, Default)]
pub struct ProfileFacts {
    /// Total per metric.
    pub totals: Vec<f64>,
    /// Inclusive value per metric of every method that appears, sorted by id.
    pub method_time: Keyed<CompId>,
    /// Per level of [`EDGE_LEVELS`]: value per metric of every call edge
    /// (caller ≠ callee at that level), sorted by edge.
    pub edges: [Keyed<Edge>; 3],
    /// With a timeline: every method's share (0–1) of each time frame, sorted.
    pub timeline: Option<Vec<(CompId, Vec<f64>)>>,
}

/// Values per metric of keys in sorted order, in two columns (a key's
/// values follow each other): a name-rich profile has hundreds of
/// thousands of call edges, which as a list of vectors took an allocation
/// each to make, to add up and to free.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyed<K> {
    metrics: usize,
    keys: Vec<K>,
    values: Vec<f64>,
}

impl<K> Default for Keyed<K> {
    fn default() -> Keyed<K> {
        Keyed {
            metrics: 0,
            keys: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<K: Copy + Ord> Keyed<K> {
    /// Keys (sorted, each once) and their values, `metrics` per key.
    fn new(metrics: usize, keys: Vec<K>, values: Vec<f64>) -> Keyed<K> {
        debug_assert_eq!(keys.len() * metrics, values.len());
        Keyed {
            metrics,
            keys,
            values,
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Each key with its values, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &[f64])> + '_ {
        let m = self.metrics;
        (0..self.keys.len()).map(move |i| (self.keys[i], &self.values[i * m..(i + 1) * m]))
    }

    /// The values of `key`, if it has any.
    pub fn get(&self, key: K) -> Option<&[f64]> {
        let i = self.keys.binary_search(&key).ok()?;
        Some(&self.values[i * self.metrics..(i + 1) * self.metrics])
    }

    /// Both as one, values of equal keys added (`self`'s first).
    fn added(self, other: Keyed<K>) -> Keyed<K> {
        if other.is_empty() {
            return self;
        }
        if self.is_empty() {
            return other;
        }
        let m = self.metrics.max(other.metrics);
        let mut out = Keyed::new(m, Vec::new(), Vec::new());
        out.keys.reserve(self.len() + other.len());
        out.values.reserve((self.len() + other.len()) * m);
        let (mut a, mut b) = (self.iter().peekable(), other.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some((ka, _)), Some((kb, _))) if ka == kb => {
                    if let (Some((k, x)), Some((_, y))) = (a.next(), b.next()) {
                        out.keys.push(k);
                        out.values.extend(x.iter().zip(y).map(|(x, y)| x + y));
                    }
                    continue;
                }
                (Some((ka, _)), Some((kb, _))) if kb < ka => b.next(),
                (Some(_), _) => a.next(),
                (None, Some(_)) => b.next(),
                (None, None) => break,
            };
            if let Some((k, v)) = next {
                out.keys.push(k);
                out.values.extend_from_slice(v);
            }
        }
        out
    }
}

/// Computes the facts of `profile`, with `frames` time frames for its
/// timeline: every call edge.
pub fn profile_facts(profile: &Profile, hierarchy: &Hierarchy, frames: usize) -> ProfileFacts {
    let inputs = WalkInputs::new(&profile.tree, hierarchy);
    all_facts(profile, (hierarchy, &inputs), frames)
}

/// [`profile_facts`] from walk inputs already made.
pub fn all_facts(
    profile: &Profile,
    (hierarchy, inputs): (&Hierarchy, &WalkInputs),
    frames: usize,
) -> ProfileFacts {
    facts_walked_from(profile, (hierarchy, inputs), frames, Counted::EVERYTHING)
}

/// [`profile_facts`] without call edges: what a matrix is built from,
/// before it says which components have pages (and so which edges are
/// drawn: [`call_edges`]).
pub fn method_facts(
    profile: &Profile,
    (hierarchy, inputs): (&Hierarchy, &WalkInputs),
    frames: usize,
) -> ProfileFacts {
    let methods_only = Counted {
        methods: true,
        calls: Calls::Nothing,
    };
    facts_walked_from(profile, (hierarchy, inputs), frames, methods_only)
}

/// The call edges of `profile` that touch a component of `wanted` (each
/// with the value [`profile_facts`] gives it): a name-rich profile has
/// about a hundred thousand call edges, a site draws those around the few
/// hundred components that have pages, and the others were most of the
/// facts' time (cache misses on their tables).
pub fn call_edges(
    profile: &Profile,
    (hierarchy, inputs): (&Hierarchy, &WalkInputs),
    wanted: &WantedCalls,
) -> [Keyed<Edge>; 3] {
    let calls_only = Counted {
        methods: false,
        calls: Calls::Touching(wanted),
    };
    facts_walked_from(profile, (hierarchy, inputs), 0, calls_only).edges
}

/// What a walk of a profile's tree reads besides the tree: every node's
/// inclusive values and method, and the groups of the root's children
/// walked at once. Made once for both [`method_facts`] and
/// [`call_edges`] of a profile when it can be held between them.
pub struct WalkInputs<'t> {
    /// Per metric, every node's inclusive value, and for a tree walked in
    /// halves every node's subtree size (shared: the profile's page draws
    /// them too, see [`WalkInputs::into_columns`]).
    inclusive: Arc<Vec<Vec<f64>>>,
    sizes: Option<Arc<Vec<u32>>>,
    /// Every node's method ([`node_methods`]).
    method: NodeMethods,
    groups: Vec<&'t [NodeId]>,
}

impl<'t> WalkInputs<'t> {
    pub fn new(tree: &'t CallTree, hierarchy: &Hierarchy) -> WalkInputs<'t> {
        WalkInputs::grouped(tree, hierarchy, PARALLEL_NODES)
    }

    /// The inputs, with the root's children in two groups for a tree of
    /// at least `parallel_nodes` nodes, prepared at once.
    fn grouped(tree: &'t CallTree, hierarchy: &Hierarchy, parallel_nodes: usize) -> WalkInputs<'t> {
        let metrics = tree.metric_count();
        let halves = tree.len() >= parallel_nodes;
        let ((inclusive, sizes), method) = rayon::join(
            || match halves {
                true => {
                    let (inclusive, sizes) = tree.inclusive_and_sizes();
                    (inclusive, Some(sizes))
                }
                false => ((0..metrics).map(|m| tree.inclusive(m)).collect(), None),
            },
            || node_methods(tree, hierarchy),
        );
        let groups = root_groups(tree, sizes.as_deref());
        WalkInputs {
            inclusive: Arc::new(inclusive),
            sizes: sizes.map(Arc::new),
            method,
            groups,
        }
    }

    /// What the profile's page draws too, kept for it when the rest is
    /// freed.
    pub fn into_columns(self) -> WalkColumns {
        WalkColumns {
            inclusive: self.inclusive,
            sizes: self.sizes,
        }
    }
}

/// What a walk computed that a profile's page draws too: every node's
/// inclusive value per metric (`shapes::ShapeInputs::with_inclusive`)
/// and, for a tree big enough to be walked in halves, every node's
/// subtree size (`flame::SubtreeSizes::held`). On a 3.2 M-node profile,
/// 16 ms and 26 MB of fresh memory, and 8 ms and 13 MB, not spent again.
#[derive(Clone)]
pub struct WalkColumns {
    pub inclusive: Arc<Vec<Vec<f64>>>,
    pub sizes: Option<Arc<Vec<u32>>>,
}

/// The components whose call edges are counted by [`call_edges`]: an edge
/// at one level is when its caller or its callee at that level is one of
/// them.
pub struct WantedCalls {
    /// Per component, bit `l` set when its component at level
    /// `EDGE_LEVELS[l]` is wanted.
    levels: Vec<u8>,
    /// Per level of [`EDGE_LEVELS`], every component's component there.
    at_level: [Vec<CompId>; 3],
}

impl WantedCalls {
    pub fn new(hierarchy: &Hierarchy, comps: impl IntoIterator<Item = CompId>) -> WantedCalls {
        let mut wanted = vec![false; hierarchy.len()];
        for c in comps {
            if let Some(w) = wanted.get_mut(c.index()) {
                *w = true;
            }
        }
        let comps = (0..hierarchy.len() as u32).map(CompId);
        let at_level = EDGE_LEVELS.map(|level| {
            comps
                .clone()
                .map(|c| hierarchy.at_level(c, level))
                .collect::<Vec<_>>()
        });
        let levels = comps
            .map(|c| {
                (0..EDGE_LEVELS.len()).fold(0u8, |bits, l| {
                    bits | (u8::from(wanted[at_level[l][c.index()].index()]) << l)
                })
            })
            .collect();
        WantedCalls { levels, at_level }
    }

    fn levels(&self, c: CompId) -> u8 {
        self.levels.get(c.index()).copied().unwrap_or(0)
    }

    /// The call from method `p` to method `c` at level `l` of
    /// [`EDGE_LEVELS`].
    fn edge(&self, l: usize, p: CompId, c: CompId) -> Edge {
        (self.at_level[l][p.index()], self.at_level[l][c.index()])
    }
}

/// What one walk of a profile counts: the methods' values or not, and
/// which call edges.
#[derive(Clone, Copy)]
struct Counted<'w> {
    methods: bool,
    calls: Calls<'w>,
}

impl Counted<'_> {
    const EVERYTHING: Counted<'static> = Counted {
        methods: true,
        calls: Calls::All,
    };
}

/// The call edges a walk counts.
#[derive(Clone, Copy)]
enum Calls<'w> {
    All,
    Nothing,
    Touching(&'w WantedCalls),
}

/// [`profile_facts`], walking trees of at least `parallel_nodes` nodes in
/// two halves, counting what `counted` says.
fn facts_walked_from(
    profile: &Profile,
    (hierarchy, inputs): (&Hierarchy, &WalkInputs),
    frames: usize,
    counted: Counted,
) -> ProfileFacts {
    let tree = &profile.tree;
    // Root subtrees are independent (a path's outermost occurrences are
    // within its root child's subtree): a large tree is walked in two
    // halves at once, and their sums added.
    let WalkInputs {
        inclusive,
        method,
        groups,
        ..
    } = inputs;
    let columns = (inclusive.as_slice(), method);
    // Every group in id order, or (when a group finds the ids are not a
    // preorder) every group through the child lists.
    let in_id_order: Option<Vec<Sums>> = groups
        .par_iter()
        .map(|roots| {
            walk_in_id_order(tree, (hierarchy, counted), columns, roots).map(PathSums::finish)
        })
        .collect();
    let partials = in_id_order.unwrap_or_else(|| {
        groups
            .par_iter()
            .map(|roots| walk(tree, (hierarchy, counted), columns, roots).finish())
            .collect()
    });
    let timeline = profile
        .timeline
        .as_ref()
        .filter(|t| !t.samples.is_empty() && frames > 0 && counted.methods)
        .map(|_| timeline_shares(profile, method, frames));

    let (method_time, edges) = add_partials(partials);
    ProfileFacts {
        totals: profile.totals(),
        method_time,
        edges,
        timeline,
    }
}

/// The method every node counts for: its frame's, or for an engine frame
/// (a regular expression, a builtin) the method whose code ran it
/// ([`crate::code_owner`]), which is then already on the path and so adds
/// nothing twice.
fn node_methods(tree: &CallTree, hierarchy: &Hierarchy) -> NodeMethods {
    // Per frame, looked up once per node: whether it is placed, its method
    // (a frame the hierarchy does not know counts for the project).
    let of: Vec<(bool, CompId)> = (0..hierarchy.frame_count() as u32)
        .map(FrameId)
        .map(|f| (hierarchy.is_placed(f), hierarchy.method_of(f)))
        .collect();
    let owners = crate::code_owner::owners_as(
        tree,
        |f| {
            of.get(f.0 as usize)
                .copied()
                .unwrap_or((true, CompId::PROJECT))
        },
        NO_METHOD,
    );
    NodeMethods(owners)
}

/// Every node's method, 4 bytes a node ([`NO_METHOD`] for none): as
/// `Option<CompId>`s they took 8, 26 MB on a 3.2 M-node profile.
struct NodeMethods(Vec<CompId>);

/// A node that counts for no method (the root).
const NO_METHOD: CompId = CompId(u32::MAX);

impl NodeMethods {
    /// Node `n`'s method.
    fn of(&self, n: NodeId) -> Option<CompId> {
        let c = self.0[n.index()];
        (c != NO_METHOD).then_some(c)
    }

    /// [`NodeMethods::of`], none for a node not in the tree.
    fn get(&self, n: NodeId) -> Option<CompId> {
        self.0.get(n.index()).copied().filter(|&c| c != NO_METHOD)
    }
}

/// Trees with at least this many nodes are walked in two halves at once.
/// (Smaller ones in one: the halves' sums, added, can differ from one
/// walk's in the last bits of non-integer values, so the figures of the
/// histories people read stay those of one walk.)
const PARALLEL_NODES: usize = 500_000;

/// The root's children in one group, or, given the tree's subtree sizes
/// (a tree walked in halves), in two consecutive groups of about equal
/// node counts.
fn root_groups<'t>(tree: &'t CallTree, sizes: Option<&[u32]>) -> Vec<&'t [NodeId]> {
    let roots = tree.children(NodeId::ROOT);
    let Some(sizes) = sizes.filter(|_| roots.len() >= 2) else {
        return vec![roots];
    };
    let total: usize = roots.iter().map(|r| sizes[r.index()] as usize).sum();
    // The split point whose two sides differ least in node count.
    let (mut before, mut split, mut best) = (0, 1, usize::MAX);
    for (i, r) in roots.iter().enumerate().take(roots.len() - 1) {
        before += sizes[r.index()] as usize;
        let gap = (2 * before).abs_diff(total);
        if gap < best {
            (split, best) = (i + 1, gap);
        }
    }
    let (first, second) = roots.split_at(split);
    vec![first, second]
}

/// Per method and per level per call edge, sorted, the values.
type Sums = (Keyed<CompId>, [Keyed<Edge>; 3]);

/// [`walk`] in id order (see [`CallTree::walk_in_id_order`]): `None`
/// when the ids are not a preorder.
fn walk_in_id_order<'h>(
    tree: &CallTree,
    (hierarchy, counted): (&'h Hierarchy, Counted<'h>),
    (inclusive, method): (&[Vec<f64>], &NodeMethods),
    roots: &[NodeId],
) -> Option<PathSums<'h>> {
    let mut sums = PathSums::new(hierarchy, inclusive.len(), counted);
    // The method of every node entered on the current path, and its edges.
    let mut path: Vec<(CompId, EdgeIds)> = Vec::new();
    let walked = tree.walk_in_id_order(subtree_ids(tree, roots), |step| match step {
        Visit::Enter(node) => {
            let Some(c) = method.of(node) else {
                return false;
            };
            let parent = path.last().map(|&(p, _)| p);
            let edges = sums.enter(parent, c, |row| add_inclusive(row, inclusive, node));
            path.push((c, edges));
            true
        }
        Visit::Leave => {
            if let Some((c, edges)) = path.pop() {
                sums.leave(c, edges);
            }
            true
        }
    });
    walked.then_some(sums)
}

/// Adds node `n`'s inclusive value of each metric (`inclusive`, a column
/// per metric) to `row`.
fn add_inclusive(row: &mut [f64], inclusive: &[Vec<f64>], n: NodeId) {
    for (a, v) in row.iter_mut().zip(inclusive) {
        *a += v[n.index()];
    }
}

/// The ids of the subtrees of `roots`, consecutive children of the root,
/// when the ids are a preorder: from the first to the next child's.
fn subtree_ids(tree: &CallTree, roots: &[NodeId]) -> std::ops::Range<usize> {
    let (Some(first), Some(last)) = (roots.first(), roots.last()) else {
        return 0..0;
    };
    let top = tree.children(NodeId::ROOT);
    let next = top
        .iter()
        .position(|r| r == last)
        .and_then(|i| top.get(i + 1));
    first.index()..next.map_or(tree.len(), |n| n.index())
}

/// The sums of the subtrees of `roots`, depth-first, parents before
/// children in stored order (the order the sums are taken in); `Exit`
/// undoes what `Enter` counted on the path.
fn walk<'h>(
    tree: &CallTree,
    (hierarchy, counted): (&'h Hierarchy, Counted<'h>),
    (inclusive, method): (&[Vec<f64>], &NodeMethods),
    roots: &[NodeId],
) -> PathSums<'h> {
    let mut sums = PathSums::new(hierarchy, inclusive.len(), counted);
    let mut stack: Vec<Step> = roots.iter().rev().map(|c| Step::Enter(*c, None)).collect();
    while let Some(step) = stack.pop() {
        let (node, parent) = match step {
            Step::Exit(c, edges) => {
                sums.leave(c, edges);
                continue;
            }
            Step::Enter(node, parent) => (node, parent),
        };
        let Some(c) = method.of(node) else {
            continue;
        };
        let edges = sums.enter(parent, c, |row| add_inclusive(row, inclusive, node));
        stack.push(Step::Exit(c, edges));
        stack.extend(
            tree.children(node)
                .iter()
                .rev()
                .map(|n| Step::Enter(*n, Some(c))),
        );
    }
    sums
}

/// The sums of the groups of [`root_groups`], added in group order.
fn add_partials(partials: Vec<Sums>) -> Sums {
    let mut partials = partials.into_iter();
    let first = partials.next().unwrap_or_default();
    partials.fold(first, |(time, edges), (more_time, more_edges)| {
        let mut more_edges = more_edges.into_iter();
        let edges = edges.map(|level| level.added(more_edges.next().unwrap_or_default()));
        (time.added(more_time), edges)
    })
}

/// One step of the depth-first walk: entering a node (called from the
/// method of its parent, none for the root's children), or leaving one of
/// method `CompId` whose call edges (one id per level) were counted.
enum Step {
    Enter(NodeId, Option<CompId>),
    Exit(CompId, EdgeIds),
}

/// The id of a node's call edge at each level of [`EDGE_LEVELS`], or
/// [`NO_EDGE`] (4 bytes a level rather than an `Option`'s 8: a caller's
/// list of callees, read once per tree node, stays within fewer cache
/// lines).
type EdgeIds = [u32; 3];

/// No call edge at this level (caller and callee are one component).
const NO_EDGE: u32 = u32::MAX;

/// Per level, for each edge id, the number of times the edge is on the
/// current path followed by its `metrics` values: one row per edge, so the
/// walk's test (is it on the path?) and its sum touch one place in memory.
/// The count is an f64 holding a small integer, exact.
const ON_PATH: usize = 0;

/// In a component's row, 1 once the component was on the path.
const SEEN: usize = 1;

/// Callers with more callees than this find them through a hash map.
const SCANNED_CALLEES: usize = 16;

/// Sums per method and per call edge, each counted at its outermost
/// occurrence on the current path. Everything is a dense array indexed by
/// component or by edge id; a call edge gets its ids the first time its
/// (caller method, callee method) pair is seen, and is found again in its
/// caller's short list of callees (a hash map only for callers with many).
struct PathSums<'h> {
    hierarchy: &'h Hierarchy,
    metrics: usize,
    counted: Counted<'h>,
    /// Per component a row: times on the current path ([`ON_PATH`]),
    /// whether it was ever on it ([`SEEN`], 1 or 0), then its values
    /// (`metrics`): one place in memory per component a node touches.
    comp_rows: Vec<f64>,
    /// Per caller method: its callees so far with the call's edge ids;
    /// for callers with many, also by method pair.
    callees: Vec<Vec<(CompId, EdgeIds)>>,
    pair_ids: FxHashMap<Edge, EdgeIds>,
    /// Per level: edge → id, the edges by id, and per id a row of the
    /// times on the current path ([`ON_PATH`]) and the values (`metrics`
    /// per edge).
    edge_ids: [FxHashMap<Edge, u32>; 3],
    edge_keys: [Vec<Edge>; 3],
    edge_rows: [Vec<f64>; 3],
}

impl<'h> PathSums<'h> {
    fn new(hierarchy: &'h Hierarchy, metrics: usize, counted: Counted<'h>) -> PathSums<'h> {
        let comps = hierarchy.len();
        PathSums {
            hierarchy,
            metrics,
            counted,
            comp_rows: vec![0.0; comps * (metrics + 2)],
            callees: vec![Vec::new(); comps],
            pair_ids: FxHashMap::default(),
            edge_ids: Default::default(),
            edge_keys: Default::default(),
            edge_rows: Default::default(),
        }
    }

    /// Enters a node of method `c` called from method `parent`: adds the
    /// node's values (through `add`) to the method and to its call edges
    /// where they are outermost. Returns the edge ids to leave with.
    fn enter(
        &mut self,
        parent: Option<CompId>,
        c: CompId,
        mut add: impl FnMut(&mut [f64]),
    ) -> EdgeIds {
        let m = self.metrics;
        if self.counted.methods {
            let at = c.index() * (m + 2);
            let row = &mut self.comp_rows[at..at + m + 2];
            if row[ON_PATH] == 0.0 {
                row[SEEN] = 1.0;
                add(&mut row[SEEN + 1..]);
            }
            row[ON_PATH] += 1.0;
        }
        let ids = match (parent, self.counted.calls) {
            (Some(p), Calls::All) if p != c => self.edge_ids_of(p, c),
            (Some(p), Calls::Touching(wanted)) if p != c => self.wanted_edge_ids(wanted, p, c),
            _ => [NO_EDGE; 3],
        };
        for (l, &e) in ids.iter().enumerate() {
            if e != NO_EDGE {
                let at = e as usize * (m + 1);
                let row = &mut self.edge_rows[l][at..at + m + 1];
                if row[ON_PATH] == 0.0 {
                    add(&mut row[ON_PATH + 1..]);
                }
                row[ON_PATH] += 1.0;
            }
        }
        ids
    }

    fn leave(&mut self, c: CompId, ids: EdgeIds) {
        if self.counted.methods {
            let n = &mut self.comp_rows[c.index() * (self.metrics + 2) + ON_PATH];
            *n = (*n - 1.0).max(0.0);
        }
        for (l, &e) in ids.iter().enumerate() {
            if e != NO_EDGE {
                let n = &mut self.edge_rows[l][e as usize * (self.metrics + 1) + ON_PATH];
                *n = (*n - 1.0).max(0.0);
            }
        }
    }

    /// The ids of the call from method `p` to method `c` (`p != c`) at
    /// each level where the two differ and it touches a `wanted` component.
    /// (The few edges counted are found by level directly, in tables small
    /// enough to stay in cache, not through the per-method lists of
    /// [`PathSums::edge_ids_of`].)
    fn wanted_edge_ids(&mut self, wanted: &WantedCalls, p: CompId, c: CompId) -> EdgeIds {
        let mut ids = [NO_EDGE; 3];
        let levels = wanted.levels(p) | wanted.levels(c);
        if levels == 0 {
            return ids;
        }
        for (l, id) in ids.iter_mut().enumerate() {
            let key = wanted.edge(l, p, c);
            if levels & (1 << l) != 0 && key.0 != key.1 {
                *id = self.edge_id(l, key);
            }
        }
        ids
    }

    /// The ids of the call from method `p` to method `c` (`p != c`) at
    /// each level where the two differ.
    fn edge_ids_of(&mut self, p: CompId, c: CompId) -> EdgeIds {
        let known = &self.callees[p.index()];
        let found = if known.len() <= SCANNED_CALLEES {
            known.iter().find(|(k, _)| *k == c).map(|(_, ids)| ids)
        } else {
            self.pair_ids.get(&(p, c))
        };
        if let Some(ids) = found {
            return *ids;
        }
        let mut ids = [NO_EDGE; 3];
        for (l, level) in EDGE_LEVELS.iter().enumerate() {
            let key = (
                self.hierarchy.at_level(p, *level),
                self.hierarchy.at_level(c, *level),
            );
            if key.0 != key.1 {
                ids[l] = self.edge_id(l, key);
            }
        }
        let known = &mut self.callees[p.index()];
        known.push((c, ids));
        if known.len() == SCANNED_CALLEES + 1 {
            self.pair_ids
                .extend(known.iter().map(|&(callee, ids)| ((p, callee), ids)));
        } else if known.len() > SCANNED_CALLEES + 1 {
            self.pair_ids.insert((p, c), ids);
        }
        ids
    }

    fn edge_id(&mut self, level: usize, key: Edge) -> u32 {
        if let Some(&id) = self.edge_ids[level].get(&key) {
            return id;
        }
        let id = self.edge_keys[level].len() as u32;
        self.edge_ids[level].insert(key, id);
        self.edge_keys[level].push(key);
        let rows = &mut self.edge_rows[level];
        rows.resize(rows.len() + self.metrics + 1, 0.0);
        id
    }

    /// Per method seen, and per level per edge (sorted), the values.
    fn finish(self) -> Sums {
        let m = self.metrics;
        let row = m + 2;
        let seen: Vec<usize> = (0..self.comp_rows.len() / row)
            .filter(|&i| self.comp_rows[i * row + SEEN] != 0.0)
            .collect();
        let method_time = Keyed::new(
            m,
            seen.iter().map(|&i| CompId(i as u32)).collect(),
            seen.iter()
                .flat_map(|&i| &self.comp_rows[i * row + SEEN + 1..(i + 1) * row])
                .copied()
                .collect(),
        );
        let mut levels = self.edge_keys.into_iter().zip(self.edge_rows);
        let edges = [(); 3].map(|_| {
            let (keys, rows) = levels.next().unwrap_or_default();
            // Ids in the order of their edges (each edge has one id).
            let mut order: Vec<u32> = (0..keys.len() as u32).collect();
            order.sort_unstable_by_key(|&id| keys[id as usize]);
            let values = order.iter().flat_map(|&id| {
                let at = id as usize * (m + 1) + ON_PATH + 1;
                &rows[at..at + m]
            });
            let values = values.copied().collect();
            Keyed::new(
                m,
                order.iter().map(|&id| keys[id as usize]).collect(),
                values,
            )
        });
        (method_time, edges)
    }
}

fn sorted<K: Ord, V>(map: FxHashMap<K, V>) -> Vec<(K, V)> {
    let mut v: Vec<(K, V)> = map.into_iter().collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// Each method's share of each of `frames` equal time frames: the time
/// (or, for instant samples, the number of samples) in the frame during
/// which the method was on the stack, over all sampled time in the frame.
fn timeline_shares(
    profile: &Profile,
    method: &NodeMethods,
    frames: usize,
) -> Vec<(CompId, Vec<f64>)> {
    let tree = &profile.tree;
    let samples = match &profile.timeline {
        Some(t) => &t.samples,
        None => return Vec::new(),
    };
    let instants = samples.iter().all(|s| s.duration_ns <= 0.0);
    let end = samples
        .iter()
        .map(|s| s.start_ns + s.duration_ns.max(0.0))
        .fold(0.0f64, f64::max);
    let start = samples
        .iter()
        .map(|s| s.start_ns)
        .fold(f64::INFINITY, f64::min);
    let span = (end - start).max(f64::MIN_POSITIVE);
    let width = span / frames as f64;
    // Time per (node, frame), and sampled time per frame.
    let mut node_frames: FxHashMap<NodeId, Vec<f64>> = FxHashMap::default();
    let mut frame_total = vec![0.0; frames];
    let bin = |t: f64| (((t - start) / width) as usize).min(frames - 1);
    for s in samples {
        if s.node.index() >= tree.len() || !s.start_ns.is_finite() {
            continue;
        }
        let slot = node_frames
            .entry(s.node)
            .or_insert_with(|| vec![0.0; frames]);
        if instants {
            let b = bin(s.start_ns);
            slot[b] += 1.0;
            frame_total[b] += 1.0;
            continue;
        }
        let (mut t, stop) = (s.start_ns, s.start_ns + s.duration_ns.max(0.0));
        while t < stop {
            let b = bin(t);
            let frame_end = if b + 1 == frames {
                stop
            } else {
                start + (b + 1) as f64 * width
            };
            let piece = frame_end.min(stop) - t;
            if piece <= 0.0 {
                break;
            }
            slot[b] += piece;
            frame_total[b] += piece;
            t += piece;
        }
    }
    // Each (node, frame) adds to every distinct method on its path.
    let mut shares: FxHashMap<CompId, Vec<f64>> = FxHashMap::default();
    let mut nodes: Vec<NodeId> = node_frames.keys().copied().collect();
    nodes.sort();
    let mut seen: Vec<CompId> = Vec::new();
    for node in nodes {
        let values = &node_frames[&node];
        seen.clear();
        let mut n = Some(node);
        while let Some(at) = n {
            if let Some(c) = method.get(at) {
                if !seen.contains(&c) {
                    seen.push(c);
                }
            }
            n = tree.parent(at);
        }
        for c in &seen {
            let slot = shares.entry(*c).or_insert_with(|| vec![0.0; frames]);
            for (a, v) in slot.iter_mut().zip(values) {
                *a += v;
            }
        }
    }
    for v in shares.values_mut() {
        for (a, total) in v.iter_mut().zip(&frame_total) {
            *a = if *total > 0.0 { *a / total } else { 0.0 };
        }
    }
    sorted(shares)
}

#[cfg(test)]
mod tests;
