use super::*;

#[test]
fn stacks_merge_by_path_and_inclusive_sums_children() {
    let (a, b, c) = (FrameId(0), FrameId(1), FrameId(2));
    let mut t = CallTree::new(1);
    t.add_stack([a, b], &[3.0]);
    t.add_stack([a, c], &[2.0]);
    t.add_stack([a, b], &[1.0]);
    t.add_stack([a], &[5.0]);
    let inc = t.inclusive(0);
    assert_eq!(t.len(), 4);
    assert_eq!(inc[0], 11.0);
    let na = t.children(NodeId::ROOT)[0];
    assert_eq!(inc[na.index()], 11.0);
    assert_eq!(t.self_value(na, 0), 5.0);
    let nb = t.children(na)[0];
    assert_eq!((t.self_value(nb, 0), t.depth(nb)), (4.0, 2));
    assert_eq!(t.stack_of(nb), vec![a, b]);
    assert_eq!(t.total(0), 11.0);
}

#[test]
fn a_total_asked_for_again_follows_every_change() {
    let (a, b) = (FrameId(0), FrameId(1));
    let mut t = CallTree::new(2);
    t.add_stack([a, b], &[3.0, 1.0]);
    assert_eq!((t.total(0), t.total(1)), (3.0, 1.0));
    t.add_stack([a], &[2.0, 0.5]);
    assert_eq!((t.total(0), t.total(1)), (5.0, 1.5));
    t.add_self(NodeId::ROOT, 1, 4.0);
    assert_eq!(t.total(1), 5.5);
    t.push_metric(&[1.0, 2.0, 3.0]);
    assert_eq!(t.total(2), 6.0);
    // Merging a and b into one frame keeps the values; a clone keeps
    // the totals it was made with, and each tree then goes its own way.
    t.merge_frames(&[a, a]);
    assert_eq!((t.total(0), t.total(2)), (5.0, 6.0));
    let copy = t.clone();
    t.add_stack([b], &[10.0, 0.0, 0.0]);
    assert_eq!((t.total(0), copy.total(0)), (15.0, 5.0));
}

#[test]
fn remapped_tree_can_still_grow() {
    let mut t = CallTree::new(1);
    let n = t.add_stack([FrameId(0), FrameId(1)], &[1.0]);
    t.remap_frames(&[FrameId(5), FrameId(6)]);
    assert_eq!(t.add_stack([FrameId(5), FrameId(6)], &[2.0]), n);
    assert_eq!(t.len(), 3);
    assert_eq!(t.self_value(n, 0), 3.0);
}

/// The steps of a depth-first walk through the child lists, skipping
/// the subtrees of nodes `skip` refuses, as `walk_in_id_order` gives
/// them.
fn walk_by_child_lists(
    t: &CallTree,
    roots: &[NodeId],
    skip: &dyn Fn(NodeId) -> bool,
) -> Vec<Visit> {
    fn go(t: &CallTree, n: NodeId, skip: &dyn Fn(NodeId) -> bool, out: &mut Vec<Visit>) {
        out.push(Visit::Enter(n));
        if skip(n) {
            return;
        }
        for &c in t.children(n) {
            go(t, c, skip, out);
        }
        out.push(Visit::Leave);
    }
    let mut out = Vec::new();
    for &r in roots {
        go(t, r, skip, &mut out);
    }
    out
}

fn walk_by_ids(
    t: &CallTree,
    ids: std::ops::Range<usize>,
    skip: &dyn Fn(NodeId) -> bool,
) -> Option<Vec<Visit>> {
    let mut out = Vec::new();
    let walked = t.walk_in_id_order(ids, |step| {
        out.push(step);
        match step {
            // A node refused is entered and never left.
            Visit::Enter(n) => !skip(n),
            Visit::Leave => true,
        }
    });
    walked.then_some(out)
}

/// Stacks in sorted order make ids a preorder: the walk in id order
/// takes the steps of the walk through the child lists, for the whole
/// tree and for consecutive root children, with refused subtrees
/// skipped. Added out of order, the same stacks do not, and the walk
/// says so.
#[test]
fn a_walk_in_id_order_is_the_depth_first_walk_when_ids_are_a_preorder() {
    let f = |i| FrameId(i);
    let stacks: Vec<Vec<FrameId>> = vec![
        vec![f(1), f(2), f(3)],
        vec![f(1), f(2), f(4)],
        vec![f(1), f(5)],
        vec![f(6), f(7), f(8), f(9)],
        vec![f(6), f(7), f(10)],
        vec![f(11)],
    ];
    let mut sorted = CallTree::new(1);
    for s in &stacks {
        sorted.add_stack(s.iter().copied(), &[1.0]);
    }
    let skip_none = |_: NodeId| false;
    let refuse_7 = |n: NodeId| sorted.frame(n) == Some(f(7));
    let roots = sorted.children(NodeId::ROOT).to_vec();
    for skip in [&skip_none as &dyn Fn(NodeId) -> bool, &refuse_7] {
        let whole = walk_by_ids(&sorted, 0..sorted.len(), skip);
        assert_eq!(
            whole,
            Some(walk_by_child_lists(&sorted, &[NodeId::ROOT], skip))
        );
        // The second and third root children's subtrees: ids from the
        // second child's to the end.
        let part = walk_by_ids(&sorted, roots[1].index()..sorted.len(), skip);
        assert_eq!(part, Some(walk_by_child_lists(&sorted, &roots[1..], skip)));
        let first = walk_by_ids(&sorted, roots[0].index()..roots[1].index(), skip);
        assert_eq!(first, Some(walk_by_child_lists(&sorted, &roots[..1], skip)));
    }
    // Below the refused node, nothing is entered.
    let refused = walk_by_ids(&sorted, 0..sorted.len(), &refuse_7).unwrap_or_default();
    let node_at = |path: &[FrameId]| {
        path.iter()
            .try_fold(NodeId::ROOT, |n, &fr| sorted.find_child(n, fr))
    };
    let entered =
        |path: &[FrameId]| node_at(path).is_some_and(|n| refused.contains(&Visit::Enter(n)));
    assert!(entered(&[f(6), f(7)]) && !entered(&[f(6), f(7), f(8)]));
    // The fourth stack's frames come after the first's: node 6 → 7 → 8
    // → 9 made before 1 → 2 → 4 hangs under node 2.
    let mut shuffled = CallTree::new(1);
    for i in [0, 3, 1, 2, 4, 5] {
        shuffled.add_stack(stacks[i].iter().copied(), &[1.0]);
    }
    assert_eq!(walk_by_ids(&shuffled, 0..shuffled.len(), &skip_none), None);
    let kids = shuffled.children(NodeId::ROOT).to_vec();
    assert_eq!(
        walk_by_ids(&shuffled, kids[1].index()..shuffled.len(), &skip_none),
        None
    );
}

#[test]
fn inline_children_keep_nodes_small_and_in_order() {
    assert!(std::mem::size_of::<Node>() <= 20);
    let mut t = CallTree::new(1);
    let kids: Vec<NodeId> = (1..=4).map(|f| t.add_stack([FrameId(f)], &[1.0])).collect();
    assert_eq!(t.children(NodeId::ROOT), kids);
    // A second parent's list is its own.
    let under: Vec<NodeId> = (5..=7)
        .map(|f| t.add_stack([FrameId(1), FrameId(f)], &[1.0]))
        .collect();
    assert_eq!(t.children(kids[0]), under);
    assert_eq!(t.children(NodeId::ROOT), kids);
    assert_eq!(t.frame(kids[3]), Some(FrameId(4)));
    assert_eq!(t.frame(NodeId::ROOT), None);
}

#[test]
fn wide_parents_find_their_children_through_the_index() {
    let mut t = CallTree::new(1);
    let ids: Vec<NodeId> = (0..40).map(|f| t.add_stack([FrameId(f)], &[1.0])).collect();
    // Every child is found again, before and after remapping.
    for (f, id) in ids.iter().enumerate() {
        assert_eq!(t.child(NodeId::ROOT, FrameId(f as u32)), *id);
    }
    let map: Vec<FrameId> = (0..40).map(|f| FrameId(100 + f)).collect();
    t.remap_frames(&map);
    for (f, id) in ids.iter().enumerate() {
        assert_eq!(t.child(NodeId::ROOT, FrameId(100 + f as u32)), *id);
    }
    assert_eq!(t.len(), 41);
    assert_eq!(t.child(NodeId::ROOT, FrameId(7)).0, 41);
}

/// Random trees (few frames, so that merges nest; wide parents past
/// the scan limit; stacks cut at a small depth) merged in place and
/// rebuilt node by node into a new tree with `child`, as the line fold
/// did: the same nodes, ids, children, values and cut nodes.
#[test]
fn merging_frames_in_place_builds_the_tree_a_rebuild_builds() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % u64::from(n)) as u32
    };
    for round in 0..200 {
        let frames = 2 + next(30);
        let max_depth = 3 + next(6);
        let mut tree = CallTree::with_limits(2, 100_000, max_depth);
        for _ in 0..next(300) {
            let depth = next(max_depth + 4);
            let stack: Vec<FrameId> = (0..depth).map(|_| FrameId(next(frames))).collect();
            let v = f64::from(next(5));
            tree.add_stack(stack, &[v, v * 0.5]);
        }
        let map: Vec<FrameId> = (0..frames).map(|_| FrameId(next(frames / 2 + 1))).collect();

        let mut rebuilt = CallTree::with_limits(2, 100_000, max_depth);
        let mut expected = vec![NodeId::ROOT; tree.len()];
        for node in tree.node_ids() {
            if let (Some(parent), Some(f)) = (tree.parent(node), tree.frame(node)) {
                expected[node.index()] = rebuilt.child(expected[parent.index()], map[f.0 as usize]);
            }
            for m in 0..2 {
                rebuilt.add_self(expected[node.index()], m, tree.self_value(node, m));
            }
        }
        let mapped = tree.merge_frames(&map);
        assert_eq!(mapped, expected, "round {round}");
        assert_eq!(tree.len(), rebuilt.len(), "round {round}");
        for node in rebuilt.node_ids() {
            assert_eq!(tree.frame(node), rebuilt.frame(node), "round {round}");
            assert_eq!(tree.parent(node), rebuilt.parent(node));
            assert_eq!(tree.depth(node), rebuilt.depth(node));
            assert_eq!(tree.children(node), rebuilt.children(node));
            for m in 0..2 {
                assert_eq!(tree.self_value(node, m), rebuilt.self_value(node, m));
            }
        }
        assert_eq!(tree.cut_nodes(), rebuilt.cut_nodes(), "round {round}");
        // The merged tree still grows through its index.
        let wide = rebuilt
            .node_ids()
            .find(|n| rebuilt.children(*n).len() > SCAN_LIMIT);
        if let Some(parent) = wide {
            let last = *rebuilt.children(parent).last().unwrap_or(&parent);
            let frame = rebuilt.frame(last).unwrap_or(FrameId(0));
            assert_eq!(tree.child(parent, frame), last);
        }
    }
}

#[test]
fn non_finite_values_are_not_added() {
    let mut t = CallTree::new(1);
    t.add_stack([FrameId(0)], &[f64::NAN]);
    t.add_stack([FrameId(0)], &[f64::INFINITY]);
    assert_eq!(t.total(0), 0.0);
}

#[test]
fn a_bounded_tree_cuts_deep_stacks_and_stops_at_its_size() {
    let f = |i| FrameId(i);
    let mut deep = CallTree::with_limits(1, 100, 3);
    let leaf = deep.add_stack([f(0), f(1), f(2), f(3), f(4)], &[5.0]);
    assert_eq!(
        deep.depth(leaf),
        4,
        "one node below the limit holds the rest"
    );
    assert_eq!(deep.cut_nodes(), &[leaf]);
    assert_eq!(deep.over_limit(), None, "a cut stack is kept, not refused");
    // Another stack cut below the same frame lands in the same node;
    // one that ends at the limit does not.
    assert_eq!(deep.add_stack([f(0), f(1), f(2), f(9), f(9)], &[2.0]), leaf);
    let at_limit = deep.add_stack([f(0), f(1), f(2)], &[1.0]);
    assert_eq!(deep.depth(at_limit), 3);
    assert_eq!((deep.total(0), deep.self_value(leaf, 0)), (8.0, 7.0));
    deep.name_cuts(f(77));
    assert_eq!(deep.frame(leaf), Some(f(77)));
    assert!(deep.cut_nodes().is_empty());
    assert_eq!(deep.path([f(0), f(1), f(2), f(3)]), leaf, "found again");

    let mut wide = CallTree::with_limits(1, 4, 100);
    for i in 0..10 {
        wide.path([f(i)]);
    }
    assert_eq!(wide.len(), 4, "root and three contexts");
    assert_eq!(wide.over_limit(), Some(LimitHit::Contexts));

    wide.unbound();
    wide.path([f(20)]);
    assert_eq!(wide.len(), 5, "unbounded after the file was checked");
    let mut free = CallTree::new(1);
    free.path((0..5000).map(f));
    assert_eq!(free.over_limit(), None);
}

#[test]
fn inclusive_values_and_subtree_sizes_in_one_pass_equal_each_alone() {
    let (a, b, c) = (FrameId(0), FrameId(1), FrameId(2));
    let mut t = CallTree::new(2);
    t.add_stack([a, b], &[0.1, 3.0]);
    t.add_stack([a, c, b], &[0.2, 1.0]);
    t.add_stack([c], &[0.3, 2.0]);
    t.add_stack([a], &[0.7, 0.0]);
    let (columns, sizes) = t.inclusive_and_sizes();
    assert_eq!(columns, vec![t.inclusive(0), t.inclusive(1)]);
    assert_eq!(sizes, t.subtree_sizes());
    // root, a, a;b, a;c, a;c;b, c
    assert_eq!(sizes, vec![6, 4, 1, 2, 1, 1]);
    assert_eq!(columns[1][1], 4.0);
}
