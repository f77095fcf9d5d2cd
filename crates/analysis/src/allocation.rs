//! The allocation-site tree (Fernandez Blanco, Sandoval Alcocer, Bergel,
//! "Effective Visualization of Object Allocation Sites", VISSOFT 2018,
//! section III): the calling contexts that create objects, directly or
//! below, each with the classes it instantiates directly.
//!
//! - A node is a *method* in its calling context: frames of the same
//!   function (and file) under the same parent are one node, whatever line
//!   the profiler recorded; the lines are kept per class as the allocation
//!   lines.
//! - Amounts are the mean over the version's repetitions (a repetition
//!   without a site counts 0); calls likewise.
//! - Children keep the order in which the input first lists them: call
//!   order where the input has time ([`AllocTree::call_order`]), first
//!   appearance otherwise.
//!
//! [`view`] decides what is visible (excluded classes, the "below N
//! instances" rule, collapsed chains and low-share branches), [`layout`]
//! places it, [`palette`] gives every class one colour across the site.
//! The page's script repeats `view` and `layout` (templates/assets/
//! allocation.js) so exclusion and expanding work without a reload; a test
//! checks that both give the same geometry.

pub mod layout;
pub mod palette;
pub mod trees;
pub mod view;

use std::collections::{BTreeSet, HashMap};

use model::{ClassSource, CountKind, FrameId, FrameTable, NodeId, Profile};

/// The objects of one class a node creates directly.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassAmount {
    /// Index into [`AllocTree::classes`].
    pub class: usize,
    pub count: f64,
    pub bytes: f64,
    pub live_count: Option<f64>,
    pub live_bytes: Option<f64>,
    /// The source lines of the allocation, where the input records them.
    pub lines: BTreeSet<u32>,
}

impl ClassAmount {
    /// The amount boxes and colours are sized by: the count, or the bytes
    /// when the input has no counts.
    pub fn size(&self, by_bytes: bool) -> f64 {
        if by_bytes {
            self.bytes
        } else {
            self.count
        }
    }
}

/// A method in its calling context.
#[derive(Debug, Clone, PartialEq)]
pub struct AllocNode {
    /// The function's name; "all" for the root.
    pub label: String,
    /// A frame of the method (the first seen), for locations and links.
    pub frame: Option<FrameId>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Calls from the parent's context, when the input counts them.
    pub calls: Option<f64>,
    /// Sorted by class index.
    pub direct: Vec<ClassAmount>,
}

/// The allocation-site tree of one benchmark in one version.
#[derive(Debug, Clone, PartialEq)]
pub struct AllocTree {
    pub classes: Vec<String>,
    /// Node 0 is the root.
    pub nodes: Vec<AllocNode>,
    pub count_kind: CountKind,
    pub bytes_known: bool,
    pub bytes_note: Option<String>,
    pub class_source: ClassSource,
    pub call_order: bool,
    /// How many profiles were averaged.
    pub repetitions: usize,
}

impl AllocTree {
    /// True when boxes are sized by bytes (the input has no counts).
    pub fn by_bytes(&self) -> bool {
        self.count_kind == CountKind::Unknown
    }

    /// True when classes are ranked by bytes (the class list, the class
    /// colours): where the input has sampled weights (JFR's
    /// `jdk.ObjectAllocationSample`, V8's sampling heap profiler), a sample
    /// count is not what was allocated, and a profiler's own tools rank by
    /// the weights; where it has exact counts, by instances as the paper
    /// does; without counts, by bytes.
    pub fn ranks_by_bytes(&self) -> bool {
        match self.count_kind {
            CountKind::Objects => false,
            CountKind::Samples => self.bytes_known,
            CountKind::Unknown => true,
        }
    }

    /// The amount classes are ranked by, of a (count, bytes) total.
    pub fn rank_amount(&self, (count, bytes): (f64, f64)) -> f64 {
        if self.ranks_by_bytes() {
            bytes
        } else {
            count
        }
    }

    /// What the classes are ranked by, for the page: "allocated bytes
    /// (sampled weights)", "instances", …
    pub fn ranking(&self) -> &'static str {
        match (self.count_kind, self.bytes_known) {
            (CountKind::Objects, _) => "instances",
            (CountKind::Samples, true) => "allocated bytes (sampled weights)",
            (CountKind::Samples, false) => "sampled allocations",
            (CountKind::Unknown, _) => "allocated bytes",
        }
    }

    /// Whether any node has a call count.
    pub fn has_calls(&self) -> bool {
        self.nodes.iter().any(|n| n.calls.is_some())
    }

    /// Totals per class over the whole tree, as (count, bytes), by class.
    pub fn class_totals(&self) -> Vec<(f64, f64)> {
        let mut totals = vec![(0.0, 0.0); self.classes.len()];
        for a in self.nodes.iter().flat_map(|n| &n.direct) {
            totals[a.class].0 += a.count;
            totals[a.class].1 += a.bytes;
        }
        totals
    }

    /// Inclusive (count, bytes) of every node, indexed by node.
    pub fn inclusive(&self) -> Vec<(f64, f64)> {
        let mut sums: Vec<(f64, f64)> = self
            .nodes
            .iter()
            .map(|n| {
                n.direct
                    .iter()
                    .fold((0.0, 0.0), |(c, b), a| (c + a.count, b + a.bytes))
            })
            .collect();
        // Children always come after their parent.
        for i in (1..self.nodes.len()).rev() {
            if let Some(p) = self.nodes[i].parent {
                let (c, b) = sums[i];
                sums[p].0 += c;
                sums[p].1 += b;
            }
        }
        sums
    }
}

/// The tree of `profiles` (the repetitions of one benchmark in one
/// version); `None` when none of them has allocation data.
pub fn build(profiles: &[&Profile], frames: &FrameTable) -> Option<AllocTree> {
    let with_sites: Vec<&Profile> = profiles
        .iter()
        .copied()
        .filter(|p| p.allocations.as_ref().is_some_and(|a| !a.is_empty()))
        .collect();
    let first = with_sites.first()?.allocations.as_deref()?;
    let mut builder = Builder {
        tree: AllocTree {
            classes: Vec::new(),
            nodes: vec![AllocNode {
                label: "all".to_string(),
                frame: None,
                parent: None,
                children: Vec::new(),
                calls: None,
                direct: Vec::new(),
            }],
            count_kind: first.count_kind,
            bytes_known: first.bytes_known,
            bytes_note: first.bytes_note.clone(),
            class_source: first.class_source,
            call_order: with_sites
                .iter()
                .all(|p| p.allocations.as_ref().is_some_and(|a| a.call_order)),
            repetitions: profiles.len().max(1),
        },
        class_index: HashMap::new(),
        child_index: HashMap::new(),
    };
    let scale = 1.0 / builder.tree.repetitions as f64;
    for profile in with_sites {
        builder.add_profile(profile, frames, scale);
    }
    for node in &mut builder.tree.nodes {
        node.direct.sort_by_key(|a| a.class);
    }
    Some(builder.tree)
}

struct Builder {
    tree: AllocTree,
    class_index: HashMap<String, usize>,
    /// (parent, function, file) → child.
    child_index: HashMap<(usize, String, Option<String>), usize>,
}

impl Builder {
    fn add_profile(&mut self, profile: &Profile, frames: &FrameTable, scale: f64) {
        let Some(alloc) = profile.allocations.as_deref() else {
            return;
        };
        // Profile node → tree node, filled along the paths of the sites.
        let mut placed: HashMap<NodeId, usize> = HashMap::new();
        placed.insert(NodeId::ROOT, 0);
        for site in &alloc.sites {
            let node = self.place(
                profile,
                frames,
                site.node,
                &mut placed,
                alloc.calls.as_deref(),
                scale,
            );
            let class = self.class(&alloc.classes[site.class as usize]);
            let lines = allocating_lines(profile, frames, site.node);
            let direct = &mut self.tree.nodes[node].direct;
            let at = match direct.iter().position(|a| a.class == class) {
                Some(at) => at,
                None => {
                    direct.push(ClassAmount {
                        class,
                        count: 0.0,
                        bytes: 0.0,
                        live_count: None,
                        live_bytes: None,
                        lines: BTreeSet::new(),
                    });
                    direct.len() - 1
                }
            };
            let amount = &mut direct[at];
            amount.count += site.count * scale;
            amount.bytes += site.bytes * scale;
            if let Some(v) = site.live_count {
                *amount.live_count.get_or_insert(0.0) += v * scale;
            }
            if let Some(v) = site.live_bytes {
                *amount.live_bytes.get_or_insert(0.0) += v * scale;
            }
            amount.lines.extend(lines.into_iter().filter(|&l| l > 0));
        }
    }

    /// The tree node of profile node `node`, creating it and its ancestors
    /// as needed (iteratively: stacks can be very deep).
    fn place(
        &mut self,
        profile: &Profile,
        frames: &FrameTable,
        node: NodeId,
        placed: &mut HashMap<NodeId, usize>,
        calls: Option<&[f64]>,
        scale: f64,
    ) -> usize {
        let mut missing = Vec::new();
        let mut at = node;
        let mut parent = loop {
            if let Some(&p) = placed.get(&at) {
                break p;
            }
            missing.push(at);
            at = profile.tree.parent(at).unwrap_or(NodeId::ROOT);
        };
        for &n in missing.iter().rev() {
            let child = match profile.tree.frame(n) {
                Some(f) => self.child(parent, f, frames),
                None => parent,
            };
            if let Some(c) = calls.and_then(|c| c.get(n.index())).filter(|&&c| c > 0.0) {
                *self.tree.nodes[child].calls.get_or_insert(0.0) += c * scale;
            }
            placed.insert(n, child);
            parent = child;
        }
        parent
    }

    fn child(&mut self, parent: usize, frame: FrameId, frames: &FrameTable) -> usize {
        let f = frames.get(frame);
        let key = (parent, f.function.clone(), f.file.clone());
        if let Some(&c) = self.child_index.get(&key) {
            return c;
        }
        let id = self.tree.nodes.len();
        self.tree.nodes.push(AllocNode {
            label: f.function.clone(),
            frame: Some(frame),
            parent: Some(parent),
            children: Vec::new(),
            calls: None,
            direct: Vec::new(),
        });
        self.tree.nodes[parent].children.push(id);
        self.child_index.insert(key, id);
        id
    }

    fn class(&mut self, name: &str) -> usize {
        if let Some(&i) = self.class_index.get(name) {
            return i;
        }
        let i = self.tree.classes.len();
        self.tree.classes.push(name.to_string());
        self.class_index.insert(name.to_string(), i);
        i
    }
}

/// The lines of its function `node` allocated at: those its profile's
/// line table gives it (inputs whose frames are one per function, such as
/// JFR and pprof heap profiles), else its frame's line.
fn allocating_lines(profile: &Profile, frames: &FrameTable, node: NodeId) -> Vec<u32> {
    let from_table: Vec<u32> = profile
        .line_self
        .iter()
        .flat_map(|t| t.lines_of(node).map(|(line, _)| line))
        .collect();
    if !from_table.is_empty() {
        return from_table;
    }
    let frame = profile.tree.frame(node);
    frame.and_then(|f| frames.get(f).line).into_iter().collect()
}

#[cfg(test)]
mod tests;
