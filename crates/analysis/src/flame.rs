//! Top-down flame-graph layout: which frames to draw and where.
//!
//! A page may draw at most `max_frames` rectangles. Frames are kept by
//! inclusive value (largest first, so the kept set always contains every
//! kept frame's ancestors); frames narrower than `min_fraction` of the total
//! or beyond the budget are merged, per parent, into one "remainder"
//! rectangle that carries their summed value, so nothing disappears from
//! the picture and every total stays exact.

use model::{CallTree, FrameId, FrameTable, NodeId};

/// One rectangle of a flame graph. Positions are fractions of the total.
#[derive(Debug, Clone, PartialEq)]
pub struct FlameRect {
    /// The tree node drawn, or `None` for a merged remainder.
    pub node: Option<NodeId>,
    pub frame: Option<FrameId>,
    /// Index of the parent rectangle in [`FlameGraph::rects`]; `None` for
    /// the root.
    pub parent: Option<usize>,
    /// 0 for the root ("all"), 1 for its children, …
    pub depth: u32,
    pub x: f64,
    pub width: f64,
    /// Inclusive value.
    pub total: f64,
    /// Exclusive value (for a remainder: the value of all merged frames).
    pub self_value: f64,
    /// For a remainder: how many tree nodes (with descendants) it merges.
    pub merged: usize,
}

/// A laid-out flame graph, rectangles in pre-order (parents first).
#[derive(Debug, Clone, PartialEq)]
pub struct FlameGraph {
    pub rects: Vec<FlameRect>,
    pub total: f64,
    pub max_depth: u32,
    /// Tree nodes not drawn individually (they are inside remainders).
    pub merged_nodes: usize,
    /// Value inside remainder rectangles.
    pub merged_value: f64,
}

/// Limits on what is drawn.
#[derive(Debug, Clone, Copy)]
pub struct FlameBudget {
    pub max_frames: usize,
    /// Frames narrower than this fraction of the total are merged.
    pub min_fraction: f64,
}

/// Lays out the top-down flame graph of `tree` for `metric`. Children are
/// ordered by function name (then frame id), as classic flame graphs do,
/// so the picture does not depend on input order.
pub fn layout(
    tree: &CallTree,
    frames: &FrameTable,
    metric: usize,
    budget: FlameBudget,
) -> FlameGraph {
    layout_with(tree, frames, metric, &tree.inclusive(metric), budget)
}

/// [`layout`] with the inclusive values of the metric already at hand
/// (`inclusive[n]` for node `n`, as [`CallTree::inclusive`] gives them).
pub fn layout_with(
    tree: &CallTree,
    frames: &FrameTable,
    metric: usize,
    inclusive: &[f64],
    budget: FlameBudget,
) -> FlameGraph {
    layout_sharing(tree, frames, (metric, inclusive), budget, None)
}

/// [`layout_with`], with the subtree sizes `shared` computes once for
/// every layout of its tree (another tree's layout computes its own).
pub fn layout_sharing(
    tree: &CallTree,
    frames: &FrameTable,
    (metric, inclusive): (usize, &[f64]),
    budget: FlameBudget,
    shared: Option<&SubtreeSizes>,
) -> FlameGraph {
    let total = inclusive[0];
    // Reserve part of the budget for remainder rectangles.
    let node_budget = (budget.max_frames.saturating_mul(4) / 5).max(1);
    let keep = choose_kept(tree, inclusive, node_budget, budget.min_fraction * total);
    let mut graph = FlameGraph {
        rects: Vec::new(),
        total,
        max_depth: 0,
        merged_nodes: 0,
        merged_value: 0.0,
    };
    if total <= 0.0 {
        return graph;
    }
    let mut remainder_budget = budget
        .max_frames
        .saturating_sub(keep.iter().filter(|k| **k).count());
    // Computed the first time a subtree is merged.
    let shared = shared.filter(|s| std::ptr::eq(s.tree, tree));
    let mut own_sizes: Option<Vec<u32>> = None;
    // Explicit stack: (node, parent rect, x) — deep stacks must not recurse.
    let mut stack = vec![(NodeId::ROOT, None::<usize>, 0.0f64)];
    while let Some((node, parent, x)) = stack.pop() {
        let idx = graph.rects.len();
        let depth = tree.depth(node);
        graph.max_depth = graph.max_depth.max(depth);
        graph.rects.push(FlameRect {
            node: Some(node),
            frame: tree.frame(node),
            parent,
            depth,
            x,
            width: inclusive[node.index()] / total,
            total: inclusive[node.index()],
            self_value: tree.self_value(node, metric),
            merged: 0,
        });
        // Only kept children are ordered (by name); the others are summed.
        let (mut dropped_value, mut dropped_nodes) = (0.0, 0usize);
        let mut kept: Vec<NodeId> = Vec::new();
        for &c in tree.children(node) {
            if inclusive[c.index()] <= 0.0 {
                continue;
            }
            if keep[c.index()] {
                kept.push(c);
            } else {
                dropped_value += inclusive[c.index()];
                let sizes = match shared {
                    Some(shared) => shared.sizes(),
                    None => own_sizes.get_or_insert_with(|| tree.subtree_sizes()),
                };
                dropped_nodes += sizes[c.index()] as usize;
            }
        }
        kept.sort_by(|a, b| child_order(tree, frames, *a, *b));
        let mut cx = x;
        let mut pending = Vec::with_capacity(kept.len());
        for c in kept {
            pending.push((c, Some(idx), cx));
            cx += inclusive[c.index()] / total;
        }
        if dropped_nodes > 0 {
            graph.merged_nodes += dropped_nodes;
            graph.merged_value += dropped_value;
            if remainder_budget > 0 {
                remainder_budget -= 1;
                graph.max_depth = graph.max_depth.max(depth + 1);
                graph.rects.push(FlameRect {
                    node: None,
                    frame: None,
                    parent: Some(idx),
                    depth: depth + 1,
                    x: cx,
                    width: dropped_value / total,
                    total: dropped_value,
                    self_value: dropped_value,
                    merged: dropped_nodes,
                });
            }
        }
        // Reverse so the first child is laid out (and listed) first.
        stack.extend(pending.into_iter().rev());
    }
    graph
}

fn child_order(tree: &CallTree, frames: &FrameTable, a: NodeId, b: NodeId) -> std::cmp::Ordering {
    let (fa, fb) = (tree.frame(a), tree.frame(b));
    let name = |f: Option<FrameId>| f.map(|f| frames.get(f).function.as_str()).unwrap_or("");
    name(fa).cmp(name(fb)).then_with(|| fa.cmp(&fb))
}

/// Marks the nodes to draw: the root, plus nodes at least `min_value` wide
/// whose parent is drawn, largest first within `max_nodes`. Nodes are
/// visited parents-first, so the kept set is closed under ancestors.
fn choose_kept(tree: &CallTree, inclusive: &[f64], max_nodes: usize, min_value: f64) -> Vec<bool> {
    // Only values a node can be kept with compete for the budget: every
    // other is below all of them, so the `max_nodes`-th largest of these
    // (when there are that many) is the one of all values, and the ties
    // left are the same. (On a big profile most nodes are too narrow to
    // draw: a copy of the few wide ones is selected from, not of all.)
    let wide_enough = |v: f64| v > 0.0 && v >= min_value;
    let candidates: Vec<u32> = (0..inclusive.len() as u32)
        .filter(|&i| wide_enough(inclusive[i as usize]))
        .collect();
    let values: Vec<f64> = candidates.iter().map(|&i| inclusive[i as usize]).collect();
    let threshold = nth_largest(&values, max_nodes);
    let mut ties_left = max_nodes.saturating_sub(values.iter().filter(|v| **v > threshold).count());
    let mut keep = vec![false; inclusive.len()];
    keep[0] = true;
    // Only candidates can be kept: the others are passed over in id order
    // without reading their parents (most of a big tree's nodes).
    for node in candidates.iter().filter(|&&i| i != 0).map(|&i| NodeId(i)) {
        let v = inclusive[node.index()];
        let parent_kept = tree.parent(node).is_some_and(|p| keep[p.index()]);
        if !parent_kept {
            continue;
        }
        if v > threshold {
            keep[node.index()] = true;
        } else if v == threshold && ties_left > 0 {
            ties_left -= 1;
            keep[node.index()] = true;
        }
    }
    keep
}

/// The `n`-th largest value (1-based); `-inf` when there are fewer values.
fn nth_largest(values: &[f64], n: usize) -> f64 {
    if n == 0 || n > values.len() {
        return f64::NEG_INFINITY;
    }
    let mut v: Vec<f64> = values.to_vec();
    let (_, nth, _) = v.select_nth_unstable_by(n - 1, |a, b| b.total_cmp(a));
    *nth
}

/// The subtree sizes of one tree ([`CallTree::subtree_sizes`]), computed
/// once for all its layouts that merge nodes: a profile page lays out its
/// top-down graph and its table at once, each a walk of the whole tree
/// that needed the sizes (13 MB and 8 ms on a 3.2 M-node profile). The
/// matrix's facts may have computed them already
/// ([`SubtreeSizes::held`]).
pub struct SubtreeSizes<'t> {
    tree: &'t CallTree,
    sizes: std::sync::OnceLock<std::sync::Arc<Vec<u32>>>,
}

impl<'t> SubtreeSizes<'t> {
    pub fn new(tree: &'t CallTree) -> SubtreeSizes<'t> {
        SubtreeSizes {
            tree,
            sizes: std::sync::OnceLock::new(),
        }
    }

    /// [`SubtreeSizes::new`] with the sizes already at hand (`None`, or
    /// sizes of another length, computes them when needed).
    pub fn held(tree: &'t CallTree, held: Option<std::sync::Arc<Vec<u32>>>) -> SubtreeSizes<'t> {
        let sizes = SubtreeSizes::new(tree);
        if let Some(held) = held.filter(|h| h.len() == tree.len()) {
            let _ = sizes.sizes.set(held);
        }
        sizes
    }

    fn sizes(&self) -> &[u32] {
        self.sizes
            .get_or_init(|| std::sync::Arc::new(self.tree.subtree_sizes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Frame;

    fn tree(stacks: &[(&str, f64)]) -> (CallTree, FrameTable) {
        let mut frames = FrameTable::new();
        let mut t = CallTree::new(1);
        for (s, v) in stacks {
            let ids: Vec<_> = s
                .split(';')
                .map(|f| frames.intern(Frame::named(f)))
                .collect();
            t.add_stack(ids, &[*v]);
        }
        (t, frames)
    }

    const ALL: FlameBudget = FlameBudget {
        max_frames: 1000,
        min_fraction: 0.0,
    };

    #[test]
    fn children_sit_side_by_side_in_name_order() {
        let (t, f) = tree(&[("main;b", 30.0), ("main;a", 10.0), ("main", 60.0)]);
        let g = layout(&t, &f, 0, ALL);
        let names: Vec<_> = g
            .rects
            .iter()
            .map(|r| r.frame.map(|x| f.get(x).function.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                None,
                Some("main".into()),
                Some("a".into()),
                Some("b".into())
            ]
        );
        assert_eq!((g.rects[2].x, g.rects[2].width), (0.0, 0.1));
        assert_eq!((g.rects[3].x, g.rects[3].width), (0.1, 0.3));
        assert_eq!(g.rects[1].self_value, 60.0);
        assert_eq!(g.max_depth, 2);
    }

    #[test]
    fn narrow_frames_merge_into_a_remainder_that_keeps_their_value() {
        let mut stacks = vec![("main;big".to_string(), 1000.0)];
        for i in 0..50 {
            stacks.push((format!("main;tiny{i};deeper"), 1.0));
        }
        let refs: Vec<(&str, f64)> = stacks.iter().map(|(s, v)| (s.as_str(), *v)).collect();
        let (t, f) = tree(&refs);
        let g = layout(
            &t,
            &f,
            0,
            FlameBudget {
                max_frames: 1000,
                min_fraction: 0.01,
            },
        );
        let rem: Vec<_> = g.rects.iter().filter(|r| r.node.is_none()).collect();
        assert_eq!(rem.len(), 1);
        assert_eq!((rem[0].total, rem[0].merged, rem[0].depth), (50.0, 100, 2));
        assert_eq!(g.merged_nodes, 100);
        // root, main, big, remainder
        assert_eq!(g.rects.len(), 4);
        let widths: f64 = g
            .rects
            .iter()
            .filter(|r| r.depth == 2)
            .map(|r| r.width)
            .sum();
        assert!((widths - 1.0).abs() < 1e-12);
    }

    /// Layouts of one tree under two budgets (a page's graph and table)
    /// count the nodes they merge from sizes computed once; a layout of
    /// another tree given them computes its own.
    #[test]
    fn layouts_sharing_subtree_sizes_merge_what_each_merges_alone() {
        let stacks: Vec<String> = (0..400)
            .map(|i| format!("main;a{};b{};c{}", i % 7, i % 31, i))
            .collect();
        let weighted: Vec<(&str, f64)> = stacks
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), 1.0 + (i % 5) as f64))
            .collect();
        let (t, f) = tree(&weighted);
        let (other, other_frames) = tree(&weighted[..100]);
        let budgets = [(50, 0.0), (2_000, 0.01)].map(|(max_frames, min_fraction)| FlameBudget {
            max_frames,
            min_fraction,
        });
        let shared = SubtreeSizes::new(&t);
        for budget in budgets {
            let alone = layout(&t, &f, 0, budget);
            let sharing = layout_sharing(&t, &f, (0, &t.inclusive(0)), budget, Some(&shared));
            assert!(alone.merged_nodes > 0, "{budget:?} merges");
            assert_eq!(sharing.merged_nodes, alone.merged_nodes);
            assert_eq!(sharing.rects.len(), alone.rects.len());
        }
        assert!(shared.sizes.get().is_some(), "computed for the tree");
        let inclusive = other.inclusive(0);
        let elsewhere = layout_sharing(
            &other,
            &other_frames,
            (0, &inclusive),
            budgets[0],
            Some(&shared),
        );
        let alone = layout(&other, &other_frames, 0, budgets[0]);
        assert_eq!(elsewhere.merged_nodes, alone.merged_nodes);
        // Sizes handed in are used as they are; sizes of another tree's
        // length are not.
        let held = SubtreeSizes::held(&t, Some(std::sync::Arc::new(t.subtree_sizes())));
        assert!(held.sizes.get().is_some());
        let held = layout_sharing(&t, &f, (0, &t.inclusive(0)), budgets[0], Some(&held));
        assert_eq!(
            held.merged_nodes,
            layout(&t, &f, 0, budgets[0]).merged_nodes
        );
        let wrong = SubtreeSizes::held(&t, Some(std::sync::Arc::new(other.subtree_sizes())));
        assert!(wrong.sizes.get().is_none());
    }

    #[test]
    fn frame_budget_holds_even_when_every_frame_is_equally_wide() {
        // One 30,000-deep chain: all inclusive values equal.
        let chain: Vec<String> = (0..30_000).map(|i| format!("f{i}")).collect();
        let s = chain.join(";");
        let (t, f) = tree(&[(s.as_str(), 1.0)]);
        let g = layout(
            &t,
            &f,
            0,
            FlameBudget {
                max_frames: 20_000,
                min_fraction: 0.0,
            },
        );
        assert!(g.rects.len() <= 20_000, "{}", g.rects.len());
        assert_eq!(g.rects.iter().filter(|r| r.node.is_none()).count(), 1);
        assert_eq!(g.merged_nodes + g.rects.len() - 2, 30_000);
    }

    #[test]
    fn drawn_and_merged_values_add_up_to_the_total() {
        // 3,000 stacks of varied widths and depths under a 500-frame budget.
        let stacks: Vec<(String, f64)> = (0..3_000)
            .map(|i| {
                let depth = 2 + i % 7;
                let path: Vec<String> = (0..depth)
                    .map(|d| format!("f{}", (i * 31 + d * 7) % (50 + d)))
                    .collect();
                (path.join(";"), 1.0 + ((i * 7919) % 97) as f64)
            })
            .collect();
        let refs: Vec<(&str, f64)> = stacks.iter().map(|(s, v)| (s.as_str(), *v)).collect();
        let (t, f) = tree(&refs);
        let total: f64 = stacks.iter().map(|(_, v)| v).sum();
        let g = layout(
            &t,
            &f,
            0,
            FlameBudget {
                max_frames: 500,
                min_fraction: 0.001,
            },
        );
        assert!(g.rects.len() <= 500);
        assert!(g.merged_nodes > 0, "the budget forces merging");
        // Each drawn frame's own value plus each merged box's value.
        let drawn: f64 = g.rects.iter().map(|r| r.self_value).sum();
        assert!((drawn - total).abs() < 1e-6, "{drawn} vs {total}");
        assert!(
            (g.merged_value
                - g.rects
                    .iter()
                    .filter(|r| r.node.is_none())
                    .map(|r| r.total)
                    .sum::<f64>())
            .abs()
                < 1e-6
        );
    }

    #[test]
    fn empty_profile_draws_nothing() {
        let g = layout(&CallTree::new(1), &FrameTable::new(), 0, ALL);
        assert!(g.rects.is_empty());
    }
}
