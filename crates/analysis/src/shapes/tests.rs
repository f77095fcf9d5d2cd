use super::*;
use model::PathRules;

/// A history-like frame table and one tree from `stacks`, where a frame is
/// written `name` or `name@file:line`.
fn profile(stacks: &[(&str, f64)]) -> (FrameTable, CallTree) {
    let mut frames = FrameTable::new();
    let mut tree = CallTree::new(1);
    for (stack, v) in stacks {
        let ids: Vec<FrameId> = stack.split(';').map(|f| frames.intern(frame(f))).collect();
        tree.add_stack(ids, &[*v]);
    }
    (frames, tree)
}

/// The shape frames of `frames`, functions identified by name and file.
fn shape_frames(frames: &FrameTable) -> ShapeFrames {
    ShapeFrames::new(
        frames,
        &FunctionIds::of_frames(frames, &PathRules::default()),
    )
}

fn frame(text: &str) -> Frame {
    match text.split_once('@') {
        None => Frame::named(text),
        Some((name, loc)) => {
            let (file, line) = loc.split_once(':').unwrap_or((loc, "0"));
            Frame {
                function: name.into(),
                file: Some(file.into()),
                line: line.parse().ok(),
                ..Frame::default()
            }
        }
    }
}

/// Every root-to-node path of `tree` with its inclusive value of metric
/// `m`, as `a;b;c=value`, sorted.
fn paths(tree: &CallTree, frames: &FrameTable, m: usize) -> Vec<String> {
    let inclusive = tree.inclusive(m);
    let mut out: Vec<String> = tree
        .node_ids()
        .skip(1)
        .map(|n| {
            let names: Vec<&str> = tree
                .stack_of(n)
                .iter()
                .map(|f| frames.get(*f).function.as_str())
                .collect();
            format!("{} = {}", names.join(";"), inclusive[n.index()])
        })
        .collect();
    out.sort();
    out
}

#[test]
fn bottom_up_exclusive_puts_self_costs_under_reversed_paths() {
    let (frames, tree) = profile(&[("main;a;c", 3.0), ("main;b;c", 2.0), ("main;a", 1.0)]);
    let sf = shape_frames(&frames);
    let up = bottom_up(&tree, &sf, Values::Exclusive, 0.0);
    assert_eq!(up.cut_depth, None);
    assert_eq!(
        paths(&up.tree, &sf.table, 0),
        [
            "a = 1",
            "a;main = 1",
            "c = 5",
            "c;a = 3",
            "c;a;main = 3",
            "c;b = 2",
            "c;b;main = 2"
        ]
    );
    assert_eq!(up.tree.total(0), tree.total(0));
}

#[test]
fn bottom_up_inclusive_counts_a_recursive_function_once_per_sample() {
    let (frames, tree) = profile(&[("main;f;f;g", 4.0), ("main;f", 1.0)]);
    let sf = shape_frames(&frames);
    let up = bottom_up(&tree, &sf, Values::Inclusive, 0.0);
    assert_eq!(
        paths(&up.tree, &sf.table, 0),
        [
            "f = 5",
            "f;main = 5",
            "g = 4",
            "g;f = 4",
            "g;f;f = 4",
            "g;f;f;main = 4",
            "main = 5"
        ]
    );
}

#[test]
fn bottom_up_groups_lines_of_one_function() {
    let (frames, tree) = profile(&[("main@m.py:1;f@m.py:3", 2.0), ("main@m.py:2;f@m.py:4", 5.0)]);
    let sf = shape_frames(&frames);
    let up = bottom_up(&tree, &sf, Values::Exclusive, 0.0);
    assert_eq!(paths(&up.tree, &sf.table, 0), ["f = 7", "f;main = 7"]);
    let root = up.tree.children(NodeId::ROOT)[0];
    let f = sf.table.get(up.tree.frame(root).unwrap());
    assert_eq!((f.file.as_deref(), f.line), (Some("m.py"), None));
}

#[test]
fn very_deep_stacks_are_cut_with_values_kept() {
    let chain: Vec<String> = (0..5_000).map(|i| format!("f{i}")).collect();
    let (frames, tree) = profile(&[(chain.join(";").as_str(), 1.0)]);
    let sf = shape_frames(&frames);
    // Inclusive: 5,000 outermost occurrences, 12.5 million path frames.
    let up = bottom_up(&tree, &sf, Values::Inclusive, 0.0);
    let cut = up.cut_depth.expect("cut");
    // Levels go on while fewer than BOTTOM_UP_WORK steps were taken; level
    // k has 5,000 − k live occurrences.
    let steps = |levels: usize| (0..levels).map(|k| 5_000 - k).sum::<usize>();
    assert!(
        steps(cut - 1) <= BOTTOM_UP_WORK && steps(cut) > BOTTOM_UP_WORK,
        "cut at {cut}"
    );
    assert!(up.tree.len() <= steps(cut) + 1);
    // Every function still carries its whole inclusive value.
    assert_eq!(up.tree.total(0), 5_000.0);
    let exclusive = bottom_up(&tree, &sf, Values::Exclusive, 0.0);
    assert_eq!((exclusive.cut_depth, exclusive.tree.len()), (None, 5_001));
}

#[test]
fn flat_groups_by_module_file_function() {
    let (frames, tree) = profile(&[
        ("main@app/m.py:1;f@lib/x.py:3", 2.0),
        ("main@app/m.py:2;g@lib/x.py:9", 5.0),
        ("main@app/m.py:1", 1.0),
    ]);
    let sf = shape_frames(&frames);
    let exclusive = flat(&tree, &sf, Values::Exclusive);
    assert_eq!(
        paths(&exclusive, &sf.table, 0),
        [
            "app = 1",
            "app;app/m.py = 1",
            "app;app/m.py;main = 1",
            "lib = 7",
            "lib;lib/x.py = 7",
            "lib;lib/x.py;f = 2",
            "lib;lib/x.py;g = 5"
        ]
    );
    let inclusive = flat(&tree, &sf, Values::Inclusive);
    assert_eq!(
        paths(&inclusive, &sf.table, 0),
        [
            "app = 8",
            "app;app/m.py = 8",
            "app;app/m.py;main = 8",
            "lib = 7",
            "lib;lib/x.py = 7",
            "lib;lib/x.py;f = 2",
            "lib;lib/x.py;g = 5"
        ]
    );
}

#[test]
fn merge_matches_whole_paths_and_keeps_each_trees_values() {
    let mut frames = FrameTable::new();
    let id = |frames: &mut FrameTable, s: &str| frames.intern_name(s);
    let (main, a, b) = (
        id(&mut frames, "main"),
        id(&mut frames, "a"),
        id(&mut frames, "b"),
    );
    let mut old = CallTree::new(1);
    old.add_stack([main, a], &[3.0]);
    old.add_stack([main, b, a], &[1.0]);
    let mut new = CallTree::new(1);
    new.add_stack([main, a], &[5.0]);
    new.add_stack([a], &[2.0]);
    let merged = merge(&[&old, &new], &[1.0, 0.5]);
    assert_eq!(merged.metric_count(), 3);
    assert_eq!(
        paths(&merged, &frames, 0),
        [
            "a = 0",
            "main = 4",
            "main;a = 3",
            "main;b = 1",
            "main;b;a = 1"
        ]
    );
    assert_eq!(
        paths(&merged, &frames, 1),
        [
            "a = 1",
            "main = 2.5",
            "main;a = 2.5",
            "main;b = 0",
            "main;b;a = 0"
        ]
    );
    assert_eq!(
        paths(&merged, &frames, 2),
        [
            "a = 0.5",
            "main = 3.25",
            "main;a = 2.75",
            "main;b = 0.5",
            "main;b;a = 0.5"
        ]
    );
}

#[test]
fn by_function_matches_a_function_across_versions_whose_lines_and_environment_moved() {
    let (frames, old) = profile(&[
        (
            "main@/v1/site-packages/m/x.py:1;f@/v1/site-packages/m/x.py:3",
            2.0,
        ),
        (
            "main@/v1/site-packages/m/x.py:1;f@/v1/site-packages/m/x.py:4",
            1.0,
        ),
    ]);
    let mut frames = frames;
    let mut new = CallTree::new(1);
    let stack: Vec<FrameId> = [
        "main@/v2/site-packages/m/x.py:2",
        "f@/v2/site-packages/m/x.py:9",
    ]
    .iter()
    .map(|f| frames.intern(frame(f)))
    .collect();
    new.add_stack(stack, &[5.0]);
    let sf = shape_frames(&frames);
    let merged = merge(&[&by_function(&old, &sf), &by_function(&new, &sf)], &[]);
    assert_eq!(paths(&merged, &sf.table, 0), ["main = 3", "main;f = 3"]);
    assert_eq!(paths(&merged, &sf.table, 1), ["main = 5", "main;f = 5"]);
    let f = sf.table.get(merged.stack_of(NodeId(2))[1]);
    assert_eq!((f.file.as_deref(), f.line), (Some("m/x.py"), None));
}

#[test]
fn samples_without_frames_keep_exclusive_totals_whole() {
    let (frames, mut tree) = profile(&[("main;a", 3.0)]);
    tree.add_stack([], &[2.0]);
    let sf = shape_frames(&frames);
    let up = bottom_up(&tree, &sf, Values::Exclusive, 0.0);
    assert_eq!(
        paths(&up.tree, &sf.table, 0),
        ["(no stack) = 2", "a = 3", "a;main = 3"]
    );
    let flat = flat(&tree, &sf, Values::Exclusive);
    assert_eq!(flat.total(0), 5.0);
}

#[test]
fn narrow_callers_are_merged_while_building_with_totals_kept() {
    // c is called from a (90) and from 10 callers worth 1 each.
    let mut stacks = vec![("main;a;c".to_string(), 90.0)];
    for i in 0..10 {
        stacks.push((format!("main;b{i};c"), 1.0));
    }
    let refs: Vec<(&str, f64)> = stacks.iter().map(|(s, v)| (s.as_str(), *v)).collect();
    let (frames, tree) = profile(&refs);
    let sf = shape_frames(&frames);
    let up = bottom_up(&tree, &sf, Values::Exclusive, 0.05);
    assert_eq!(
        paths(&up.tree, &sf.table, 0),
        [
            "c = 100",
            "c;(narrower callers) = 10",
            "c;a = 90",
            "c;a;main = 90"
        ]
    );
    assert_eq!(up.tree.total(0), 100.0);
}

#[test]
fn trees_already_by_function_can_be_reshaped() {
    let (frames, tree) = profile(&[("main@m.py:1;f@m.py:3", 2.0), ("main@m.py:2;f@m.py:4", 1.0)]);
    let sf = shape_frames(&frames);
    let by = by_function(&tree, &sf);
    let up = bottom_up(&by, &sf, Values::Exclusive, 0.0);
    assert_eq!(paths(&up.tree, &sf.table, 0), ["f = 3", "f;main = 3"]);
    let flat = flat(&by, &sf, Values::Exclusive);
    assert_eq!(flat.total(0), 3.0);
    assert_eq!(by_function(&by, &sf).len(), by.len());
}

/// A tree of `n` generated stacks over a few dozen functions, with
/// recursion, as (frames, tree).
fn generated(n: usize) -> (FrameTable, CallTree) {
    let names: Vec<String> = (0..40)
        .map(|i| format!("f{i}@m{}.py:{}", i % 7, i))
        .collect();
    let mut state = 12345u64;
    let mut next = move |k: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % k
    };
    let stacks: Vec<(String, f64)> = (0..n)
        .map(|_| {
            let depth = 1 + next(9);
            let frames: Vec<&str> = (0..depth)
                .map(|_| names[next(names.len())].as_str())
                .collect();
            (frames.join(";"), 1.0 + next(5) as f64)
        })
        .collect();
    let borrowed: Vec<(&str, f64)> = stacks.iter().map(|(s, v)| (s.as_str(), *v)).collect();
    profile(&borrowed)
}

#[test]
fn a_first_level_grouped_by_function_gives_the_tree_grouping_by_key_gives() {
    let (frames, tree) = generated(3000);
    let sf = shape_frames(&frames);
    for values in [Values::Exclusive, Values::Inclusive] {
        let inputs = ShapeInputs::new(&tree, &sf);
        let dense = bottom_up_grouped(&inputs, values, 0.01, 1);
        let hashed = bottom_up_grouped(&inputs, values, 0.01, usize::MAX);
        assert!(
            dense.tree.len() > 40,
            "{values:?}: {} nodes",
            dense.tree.len()
        );
        // The same nodes in the same order (ids, frames and values).
        let nodes = |t: &CallTree| -> Vec<(Option<FrameId>, Option<NodeId>, f64)> {
            t.node_ids()
                .map(|n| (t.frame(n), t.parent(n), t.self_value(n, 0)))
                .collect()
        };
        assert_eq!(nodes(&dense.tree), nodes(&hashed.tree), "{values:?}");
        assert_eq!(
            paths(&dense.tree, &sf.table, 0),
            paths(&hashed.tree, &sf.table, 0)
        );
    }
}

/// Inclusive values handed over (as the matrix's sums computed them)
/// give the shapes computed without them; columns that do not fit the
/// tree (another tree's) are not taken.
#[test]
fn inclusive_values_handed_over_are_used_only_when_they_fit_the_tree() {
    let (frames, tree) = generated(500);
    let sf = shape_frames(&frames);
    let own: Vec<Vec<f64>> = vec![tree.inclusive(0)];
    let alone = bottom_up(&tree, &sf, Values::Inclusive, 0.0);
    let handed = ShapeInputs::with_inclusive(&tree, &sf, Some(Arc::new(own.clone())));
    assert_eq!(handed.inclusive(), own.as_slice());
    let shaped = bottom_up_from(&handed, Values::Inclusive, 0.0);
    assert_eq!(
        paths(&shaped.tree, &sf.table, 0),
        paths(&alone.tree, &sf.table, 0)
    );
    let short = vec![own[0][..own[0].len() - 1].to_vec()];
    let refused = ShapeInputs::with_inclusive(&tree, &sf, Some(Arc::new(short)));
    assert_eq!(refused.inclusive(), own.as_slice());
    let two_metrics = vec![own[0].clone(), own[0].clone()];
    let refused = ShapeInputs::with_inclusive(&tree, &sf, Some(Arc::new(two_metrics)));
    assert_eq!(refused.inclusive(), own.as_slice());
}

#[test]
fn shapes_built_from_shared_inputs_equal_shapes_built_alone() {
    let (frames, tree) = generated(500);
    let sf = shape_frames(&frames);
    let inputs = ShapeInputs::new(&tree, &sf);
    for values in [Values::Inclusive, Values::Exclusive] {
        let shared = bottom_up_from(&inputs, values, 0.0);
        let alone = bottom_up(&tree, &sf, values, 0.0);
        assert_eq!(
            paths(&shared.tree, &sf.table, 0),
            paths(&alone.tree, &sf.table, 0)
        );
        let shared = flat_from(&inputs, values);
        let alone = flat(&tree, &sf, values);
        assert_eq!(paths(&shared, &sf.table, 0), paths(&alone, &sf.table, 0));
    }
}

/// Walked in id order (sorted stacks: the ids are a preorder) or through
/// the child lists (the same stacks in another order), a tree's outermost
/// occurrences are the same nodes: those the other walk finds, and the
/// same paths either way.
#[test]
fn outermost_occurrences_in_id_order_are_those_of_the_child_lists() {
    let mut stacks = vec![
        ("a;b;a;c", 1.0),
        ("a;b;b", 2.0),
        ("d;a;d;a", 3.0),
        ("a;c;b;a;b", 4.0),
        ("d;d;d", 5.0),
        ("a;b;c", 6.0),
    ];
    let outermost_paths = |stacks: &[(&str, f64)]| {
        let (frames, tree) = profile(stacks);
        let shapes = shape_frames(&frames);
        let inputs = ShapeInputs::new(&tree, &shapes);
        let function = inputs.function();
        let walked = outermost_occurrences(&tree, function);
        assert_eq!(
            walked,
            outermost_by_child_lists(&tree, function, vec![0; function.slots()])
        );
        let in_id_order = tree.walk_in_id_order(0..tree.len(), |_| true);
        let mut paths: Vec<String> = walked
            .iter()
            .map(|&n| {
                let names: Vec<&str> = tree
                    .stack_of(n)
                    .iter()
                    .map(|f| frames.get(*f).function.as_str())
                    .collect();
                names.join(";")
            })
            .collect();
        paths.sort();
        (in_id_order, paths)
    };
    let (unsorted_in_id_order, unsorted) = outermost_paths(&stacks);
    stacks.sort_by(|a, b| a.0.cmp(b.0));
    let (sorted_in_id_order, sorted) = outermost_paths(&stacks);
    assert!(sorted_in_id_order && !unsorted_in_id_order);
    assert_eq!(sorted, unsorted);
    // a;b;a is not outermost for a, a;b;a;c is for c.
    assert!(!sorted.contains(&"a;b;a".to_string()));
    assert!(sorted.contains(&"a;b;a;c".to_string()));
}
