//! The allocation-site tree on the paper's running example (Fig. 1), whose
//! every figure is known, and on generated trees for chains and groups.

use super::layout::{self, box_side, Scale, BOX_MAX, BOX_MIN, GAP, NODE_MIN, PAD};
use super::view::{self, Choice, ItemKind};
use super::*;
use input::native::Native;
use input::{Format, Input};

fn canvas() -> (AllocTree, FrameTable) {
    let path = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/allocation/canvas.json"
    );
    let bytes = std::fs::read(path).unwrap();
    let parsed = Native
        .parse(&Input {
            file_name: "canvas.json",
            bytes: &bytes,
        })
        .unwrap();
    let tree = build(&[&parsed.profile], &parsed.frames).unwrap();
    (tree, parsed.frames)
}

fn node(tree: &AllocTree, path: &[&str]) -> usize {
    path.iter().fold(0, |at, name| {
        *tree.nodes[at]
            .children
            .iter()
            .find(|&&c| tree.nodes[c].label == *name)
            .unwrap_or_else(|| panic!("no {name} under {}", tree.nodes[at].label))
    })
}

fn class(tree: &AllocTree, name: &str) -> usize {
    tree.classes.iter().position(|c| c == name).unwrap()
}

fn direct(tree: &AllocTree, n: usize) -> Vec<(&str, f64)> {
    tree.nodes[n]
        .direct
        .iter()
        .map(|a| (tree.classes[a.class].as_str(), a.count))
        .collect()
}

#[test]
fn the_running_example_has_the_papers_contexts_classes_and_calls() {
    let (tree, _) = canvas();
    let main = node(&tree, &["Canvas.main"]);
    let labels: Vec<&str> = tree.nodes[main]
        .children
        .iter()
        .map(|&c| tree.nodes[c].label.as_str())
        .collect();
    // Call order, as the input lists it.
    assert_eq!(
        labels,
        [
            "Canvas.<init>",
            "Canvas.createCircles",
            "Canvas.createBoxes",
            "Canvas.createShape"
        ]
    );
    assert!(tree.call_order);
    assert_eq!(direct(&tree, main), [("Canvas", 1.0)]);
    let circles = node(
        &tree,
        &[
            "Canvas.main",
            "Canvas.createCircles",
            "Canvas.createShape",
            "ShapeFactory.create",
        ],
    );
    assert_eq!(direct(&tree, circles), [("Circle", 15.0)]);
    // The lower branch: both `new` lines of create are one method context
    // making both classes, called 15 + 8 times.
    let both = node(
        &tree,
        &["Canvas.main", "Canvas.createShape", "ShapeFactory.create"],
    );
    assert_eq!(direct(&tree, both), [("Circle", 15.0), ("Box", 8.0)]);
    assert_eq!(tree.nodes[both].calls, Some(23.0));
    let lines: Vec<Vec<u32>> = tree.nodes[both]
        .direct
        .iter()
        .map(|a| a.lines.iter().copied().collect())
        .collect();
    assert_eq!(lines, [vec![8], vec![10]]);
    let totals = tree.class_totals();
    assert_eq!(totals[class(&tree, "Circle")], (30.0, 720.0));
    assert_eq!(totals[class(&tree, "Box")], (16.0, 512.0));
    let inclusive = tree.inclusive();
    assert_eq!(inclusive[0], (48.0, 1272.0));
    assert_eq!(inclusive[main], (48.0, 1272.0));
    assert_eq!(inclusive[both], (23.0, 616.0));
}

#[test]
fn repetitions_are_averaged_and_profiles_without_sites_count_zero() {
    let path = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/allocation/canvas.json"
    );
    let bytes = std::fs::read(path).unwrap();
    let parsed = Native
        .parse(&Input {
            file_name: "c.json",
            bytes: &bytes,
        })
        .unwrap();
    let mut empty = parsed.profile.clone();
    empty.allocations = None;
    let tree = build(&[&parsed.profile, &empty], &parsed.frames).unwrap();
    assert_eq!(tree.repetitions, 2);
    assert_eq!(tree.inclusive()[0], (24.0, 636.0));
    assert!(build(&[&empty], &parsed.frames).is_none());
}

#[test]
fn inner_boxes_have_areas_proportional_to_objects() {
    let (tree, _) = canvas();
    let items = view::items(&tree, &Choice::initial());
    let scale = Scale::of(&tree);
    assert_eq!(scale.largest_box, 15.0);
    assert_eq!(scale.most_calls, 15.0 + 8.0);
    let placed = layout::layout(&tree, &items, &scale);
    let both = node(
        &tree,
        &["Canvas.main", "Canvas.createShape", "ShapeFactory.create"],
    );
    let at = items
        .iter()
        .position(|i| i.kind == ItemKind::Node(both))
        .unwrap();
    let boxes = &placed.items[at].boxes;
    assert_eq!(boxes.len(), 2);
    let (circle, boxed) = (&boxes[0], &boxes[1]);
    assert_eq!(circle.side, BOX_MAX);
    let ratio = (boxed.side * boxed.side) / (circle.side * circle.side);
    assert!((ratio - 8.0 / 15.0).abs() < 1e-12, "{ratio}");
    // Side by side, padded, inside the context's box.
    assert_eq!((circle.x, circle.y), (PAD, PAD));
    assert_eq!(boxed.x, PAD + BOX_MAX + GAP);
    assert_eq!(placed.items[at].w, PAD + BOX_MAX + GAP + boxed.side + PAD);
    assert_eq!(placed.items[at].h, PAD + BOX_MAX + PAD);
    // A single object is still a visible square, and not below the floor.
    let main = items.iter().position(|i| i.depth == 1).unwrap();
    let canvas_side = placed.items[main].boxes[0].side;
    assert_eq!(canvas_side, box_side(1.0, 15.0));
    assert!(canvas_side >= BOX_MIN);
    assert_eq!(placed.items[main].w, NODE_MIN.max(PAD + canvas_side + PAD));
}

#[test]
fn the_tree_reads_left_to_right_and_top_to_bottom() {
    let (tree, _) = canvas();
    let items = view::items(&tree, &Choice::initial());
    let placed = layout::layout(&tree, &items, &Scale::of(&tree));
    for (i, item) in items.iter().enumerate() {
        if let Some(p) = item.parent {
            // Children are in a column right of their parent.
            assert!(placed.items[i].x > placed.items[p].x + placed.items[p].w);
        }
    }
    // Siblings go down in order, without overlapping.
    let main = 1;
    let kids: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].parent == Some(main))
        .collect();
    for pair in kids.windows(2) {
        let (a, b) = (&placed.items[pair[0]], &placed.items[pair[1]]);
        assert!(b.y >= a.y + a.h, "{a:?} {b:?}");
    }
    // Every pair of items in one column is disjoint.
    for i in 0..items.len() {
        for j in i + 1..items.len() {
            let (a, b) = (&placed.items[i], &placed.items[j]);
            if a.x == b.x {
                assert!(a.y + a.h <= b.y || b.y + b.h <= a.y, "{i} {j}");
            }
        }
    }
    // Edge widths follow the calls.
    let width_to = |label: &str, depth: usize| {
        let i = (0..items.len())
            .find(|&i| items[i].depth == depth && placed.items[i].label == label)
            .unwrap();
        placed.edges.iter().find(|e| e.to == i).unwrap().width
    };
    assert_eq!(width_to("Canvas.createCircles", 2), 1.0 + 4.0 / 23.0);
    // main → createShape → create (23 calls, the most) is at depth 3; the
    // first create at depth 4 is the circles' (15 calls).
    assert_eq!(width_to("ShapeFactory.create", 3), 5.0);
    assert_eq!(width_to("ShapeFactory.create", 4), 1.0 + 4.0 * 15.0 / 23.0);
    // Colour is memory, inclusive: the root and main hold everything;
    // createBoxes' branch (256 of 1,272 bytes) is lower, the constructor
    // (16 bytes) lower still. By objects (8 and 1 of 48) they would be
    // bins 5 and 3.
    assert_eq!(placed.items[1].bin, 7);
    let bin_of = |label: &str| {
        let i = (0..items.len())
            .find(|&i| placed.items[i].label == label)
            .unwrap();
        placed.items[i].bin
    };
    // log scale over 3 decades: a share s of the largest is bin
    // ⌊8 × (1 + log₁₀ s / 3)⌋.
    let bin = |s: f64| (8.0 * (1.0 + s.log10() / 3.0)) as usize;
    assert_eq!(bin_of("Canvas.createBoxes"), 6);
    assert_eq!(bin(256.0 / 1272.0), 6);
    assert_eq!(bin_of("Canvas.<init>"), 2);
    assert_eq!(bin(16.0 / 1272.0), 2);
    assert_eq!((bin(8.0 / 48.0), bin(1.0 / 48.0)), (5, 3));
    // Without sizes, the objects colour the contexts.
    let mut counts_only = tree.clone();
    counts_only.bytes_known = false;
    let items = view::items(&counts_only, &Choice::initial());
    let placed = layout::layout(&counts_only, &items, &Scale::of(&counts_only));
    let bins: Vec<(String, usize)> = placed
        .items
        .iter()
        .filter(|p| p.label == "Canvas.createBoxes" || p.label == "Canvas.<init>")
        .map(|p| (p.label.clone(), p.bin))
        .collect();
    assert_eq!(
        bins,
        [
            ("Canvas.<init>".to_string(), 3),
            ("Canvas.createBoxes".to_string(), 5)
        ]
    );
}

#[test]
fn excluding_a_class_removes_its_boxes_and_the_branches_left_empty() {
    let (tree, _) = canvas();
    let labels = |choice: &Choice| -> Vec<String> {
        view::items(&tree, choice)
            .iter()
            .map(|i| layout::label(&tree, i))
            .collect()
    };
    let all = labels(&Choice::initial());
    assert_eq!(all.len(), 11);
    let mut choice = Choice::initial();
    choice.excluded.insert(class(&tree, "Box"));
    let items = view::items(&tree, &choice);
    let without: Vec<String> = items.iter().map(|i| layout::label(&tree, i)).collect();
    // createBoxes → createShape → create is gone; the lower create keeps
    // its Circle box only.
    assert_eq!(without.len(), 8);
    assert!(!without.contains(&"Canvas.createBoxes".to_string()));
    let last = items.last().unwrap();
    assert_eq!(last.direct, vec![(class(&tree, "Circle"), 15.0)]);
    assert_eq!(items[0].inclusive, 32.0);
    // "Below N instances" excludes Canvas and ShapeFactory (1 each), which
    // empties the constructor's branch but keeps main (it calls others).
    let mut below = Choice::initial();
    below.below = 2.0;
    let items = view::items(&tree, &below);
    assert!(items[1].direct.is_empty());
    assert!(!labels(&below).contains(&"Canvas.<init>".to_string()));
    // Excluding everything leaves the root alone; undoing restores all.
    let mut none = Choice::initial();
    none.excluded = (0..tree.classes.len()).collect();
    assert_eq!(view::items(&tree, &none).len(), 1);
    assert_eq!(labels(&Choice::initial()), all);
}

#[test]
fn low_share_branches_are_grouped_until_expanded_with_exact_totals() {
    let (tree, _) = canvas();
    let mut choice = Choice::initial();
    choice.share = 0.2; // 9.6 of 48 objects
    let items = view::items(&tree, &choice);
    let group = items
        .iter()
        .find(|i| matches!(i.kind, ItemKind::Group(_)))
        .unwrap();
    // The constructor (1 object) and createBoxes (8) are grouped, after
    // the larger siblings.
    assert_eq!(layout::label(&tree, group), "+2 contexts");
    assert_eq!(group.inclusive, 9.0);
    assert_eq!(group.depth, 2);
    let siblings: Vec<String> = items
        .iter()
        .filter(|i| i.depth == 2)
        .map(|i| layout::label(&tree, i))
        .collect();
    assert_eq!(
        siblings,
        ["Canvas.createCircles", "Canvas.createShape", "+2 contexts"]
    );
    choice.expanded.insert(group.key().unwrap());
    let open = view::items(&tree, &choice);
    assert!(open.iter().all(|i| !matches!(i.kind, ItemKind::Group(_))));
    assert_eq!(open.len(), 11);
}

/// A tree of `depth` pass-through contexts over one allocating leaf,
/// next to a shallow allocating sibling.
fn deep(depth: usize) -> AllocTree {
    let mut frames = FrameTable::default();
    let mut profile = Profile::new(vec![model::Metric::new("objects", model::Unit::Objects)]);
    let stack: Vec<FrameId> = (0..depth)
        .map(|d| frames.intern_name(&format!("f{d}")))
        .collect();
    let leaf = profile.tree.add_stack(stack.iter().copied(), &[5.0]);
    let side = profile
        .tree
        .add_stack([stack[0], frames.intern_name("side")], &[1.0]);
    let mut alloc = model::Allocations::new(CountKind::Objects, false, ClassSource::Recorded);
    let a = alloc.class("A");
    alloc.add(leaf, a, 5.0, 0.0);
    alloc.add(side, a, 1.0, 0.0);
    profile.allocations = Some(Box::new(alloc));
    build(&[&profile], &frames).unwrap()
}

#[test]
fn deep_pass_through_runs_are_one_chain_until_expanded() {
    let tree = deep(10);
    let items = view::items(&tree, &Choice::initial());
    // all → f0 → [chain f1..f8] → f9; f0 → side.
    let labels: Vec<String> = items.iter().map(|i| layout::label(&tree, i)).collect();
    assert_eq!(labels, ["all", "f0", "⋯ 8 calls deep", "f9", "side"]);
    let chain = &items[2];
    let mut choice = Choice::initial();
    choice.expanded.insert(chain.key().unwrap());
    assert_eq!(view::items(&tree, &choice).len(), 12);
}

#[test]
fn a_hundred_thousand_deep_tree_is_viewed_and_laid_out_without_recursion() {
    let tree = deep(100_000);
    let items = view::items(&tree, &Choice::initial());
    assert_eq!(items.len(), 5);
    let mut choice = Choice::initial();
    choice.expanded.insert(items[2].key().unwrap());
    let items = view::items(&tree, &choice);
    assert_eq!(items.len(), 100_002);
    let placed = layout::layout(&tree, &items, &Scale::of(&tree));
    assert!(placed.width > 100_000.0 * layout::COLUMN_GAP);
}

#[test]
fn long_labels_keep_their_end() {
    let (mut tree, _) = canvas();
    tree.nodes[1].label = "org.apache.commons.math3.linear.BlockRealMatrix.multiply".into();
    let items = view::items(&tree, &Choice::initial());
    let label = layout::label(&tree, &items[1]);
    assert_eq!(label.chars().count(), layout::LABEL_CHARS);
    assert!(label.starts_with('…') && label.ends_with("BlockRealMatrix.multiply"));
}
