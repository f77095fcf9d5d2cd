//! What the allocation-site tree shows for a choice of the reader's: the
//! classes excluded (by name, or every class below N instances, section
//! IV-D), and which collapsed parts are expanded.
//!
//! - A class's boxes disappear with it, and so does every branch left
//!   without a box (section III-B).
//! - A run of [`CHAIN_MIN`] or more contexts that allocate nothing
//!   themselves and call exactly one allocating context is drawn as one
//!   chain item until expanded.
//! - Children whose share of the tree's amount is below `share` are drawn
//!   as one "+N contexts" item (when there are two or more of them) until
//!   expanded; totals stay exact because the item carries their sum.
//!
//! Everything is iterative (stacks can be thousands deep). The page's
//! script has the same algorithm (`alViewItems` in allocation.js).

use std::collections::BTreeSet;

use super::AllocTree;

/// Shortest run of pass-through contexts drawn as a chain.
pub const CHAIN_MIN: usize = 3;
/// Default share below which sibling branches are grouped.
pub const DEFAULT_SHARE: f64 = 0.01;

/// The reader's choices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Choice {
    /// Class indices excluded by name.
    pub excluded: BTreeSet<usize>,
    /// Classes with fewer instances (or bytes, when there are no counts)
    /// than this are excluded too.
    pub below: f64,
    /// Keys of expanded chain and group items ([`Item::key`]).
    pub expanded: BTreeSet<String>,
    /// Share of the whole below which branches are grouped; 0 groups none.
    pub share: f64,
}

impl Choice {
    /// The choice a page opens with.
    pub fn initial() -> Choice {
        Choice {
            share: DEFAULT_SHARE,
            ..Choice::default()
        }
    }
}

/// What an item stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    /// One context.
    Node(usize),
    /// Contexts `nodes[0] → … → nodes[last]`, each calling the next.
    Chain(Vec<usize>),
    /// Low-share children of the parent item's last context.
    Group(Vec<usize>),
}

/// One drawn item, in pre-order.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub kind: ItemKind,
    /// Index of the parent item.
    pub parent: Option<usize>,
    pub depth: usize,
    /// (class, size) of the visible classes it creates directly (a node
    /// only), by class index.
    pub direct: Vec<(usize, f64)>,
    /// Size of everything visible at and below it.
    pub inclusive: f64,
    /// Memory of everything visible at and below it: bytes when the input
    /// has sizes, else the size. Colours the item (section III-A: "the
    /// amount of memory directly and indirectly consumed").
    pub memory: f64,
}

impl Item {
    /// The key that expands a chain or group ("c12", "g12"); none for a node.
    pub fn key(&self) -> Option<String> {
        match &self.kind {
            ItemKind::Node(_) => None,
            ItemKind::Chain(nodes) => Some(format!("c{}", nodes[0])),
            ItemKind::Group(nodes) => Some(format!("g{}", nodes[0])),
        }
    }
}

/// Which classes `choice` leaves visible.
pub fn visible_classes(tree: &AllocTree, choice: &Choice) -> Vec<bool> {
    let by_bytes = tree.by_bytes();
    tree.class_totals()
        .iter()
        .enumerate()
        .map(|(c, &(count, bytes))| {
            let size = if by_bytes { bytes } else { count };
            !choice.excluded.contains(&c) && size >= choice.below
        })
        .collect()
}

/// Per node: the visible classes it creates directly, as (class, size).
type Direct = Vec<Vec<(usize, f64)>>;

/// The visible sizes per node: direct visible classes, inclusive size,
/// inclusive memory.
fn visible_sizes(tree: &AllocTree, shown: &[bool]) -> (Direct, Vec<f64>, Vec<f64>) {
    let by_bytes = tree.by_bytes();
    let direct: Direct = tree
        .nodes
        .iter()
        .map(|n| {
            n.direct
                .iter()
                .filter(|a| shown[a.class] && a.size(by_bytes) > 0.0)
                .map(|a| (a.class, a.size(by_bytes)))
                .collect()
        })
        .collect();
    let mut inclusive: Vec<f64> = direct.iter().map(|d| d.iter().map(|x| x.1).sum()).collect();
    let mut memory: Vec<f64> = if tree.bytes_known {
        tree.nodes
            .iter()
            .map(|n| {
                n.direct
                    .iter()
                    .filter(|a| shown[a.class] && a.size(by_bytes) > 0.0)
                    .map(|a| a.bytes)
                    .sum()
            })
            .collect()
    } else {
        inclusive.clone()
    };
    for i in (1..tree.nodes.len()).rev() {
        if let Some(p) = tree.nodes[i].parent {
            inclusive[p] += inclusive[i];
            memory[p] += memory[i];
        }
    }
    (direct, inclusive, memory)
}

/// Work left for [`items`]: a context to place, or a group of them.
enum Task {
    Node(usize),
    Group(Vec<usize>),
}

/// The items drawn for `choice`, in pre-order.
pub fn items(tree: &AllocTree, choice: &Choice) -> Vec<Item> {
    let shown = visible_classes(tree, choice);
    let (direct, inclusive, memory) = visible_sizes(tree, &shown);
    let kept_children = |n: usize| -> Vec<usize> {
        tree.nodes[n]
            .children
            .iter()
            .copied()
            .filter(|&c| inclusive[c] > 0.0)
            .collect()
    };
    let threshold = inclusive[0] * choice.share;
    let mut out: Vec<Item> = Vec::new();
    // (task, parent item, depth), popped from the end.
    let mut stack: Vec<(Task, Option<usize>, usize)> = vec![(Task::Node(0), None, 0)];
    while let Some((task, parent, depth)) = stack.pop() {
        let node = match task {
            Task::Group(members) => {
                let sum = members.iter().map(|&m| inclusive[m]).sum();
                let bytes = members.iter().map(|&m| memory[m]).sum();
                out.push(Item {
                    kind: ItemKind::Group(members),
                    parent,
                    depth,
                    direct: Vec::new(),
                    inclusive: sum,
                    memory: bytes,
                });
                continue;
            }
            Task::Node(node) => node,
        };
        let parent_passes = tree.nodes[node]
            .parent
            .is_some_and(|p| passes_through(p, &direct, &kept_children));
        let run = match parent_passes {
            true => Vec::new(), // inside a run: an expanded chain's member
            false => pass_through_run(node, &direct, &kept_children),
        };
        let collapsed =
            run.len() >= CHAIN_MIN && !choice.expanded.contains(&format!("c{}", run[0]));
        let (kind, last) = match collapsed {
            true => (ItemKind::Chain(run.clone()), run[run.len() - 1]),
            false => (ItemKind::Node(node), node),
        };
        let id = out.len();
        out.push(Item {
            direct: if collapsed {
                Vec::new()
            } else {
                direct[node].clone()
            },
            kind,
            parent,
            depth,
            inclusive: inclusive[node],
            memory: memory[node],
        });
        let children = kept_children(last);
        let small: Vec<usize> = children
            .iter()
            .copied()
            .filter(|&c| inclusive[c] < threshold)
            .collect();
        let grouped = small.len() >= 2 && !choice.expanded.contains(&format!("g{}", small[0]));
        // Pushed in reverse so they pop in order; a group goes last.
        if grouped {
            stack.push((Task::Group(small.clone()), Some(id), depth + 1));
        }
        for &c in children.iter().rev() {
            if !(grouped && inclusive[c] < threshold) {
                stack.push((Task::Node(c), Some(id), depth + 1));
            }
        }
    }
    out
}

/// True for a context (not the root) that allocates nothing visible
/// itself and has exactly one kept child.
fn passes_through(
    node: usize,
    direct: &[Vec<(usize, f64)>],
    kept_children: &impl Fn(usize) -> Vec<usize>,
) -> bool {
    node != 0 && direct[node].is_empty() && kept_children(node).len() == 1
}

/// The run of pass-through contexts from `node` down.
fn pass_through_run(
    node: usize,
    direct: &[Vec<(usize, f64)>],
    kept_children: &impl Fn(usize) -> Vec<usize>,
) -> Vec<usize> {
    let mut run = Vec::new();
    let mut at = node;
    while passes_through(at, direct, kept_children) {
        run.push(at);
        at = kept_children(at)[0];
    }
    run
}
