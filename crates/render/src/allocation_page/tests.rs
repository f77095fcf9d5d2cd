//! The page's script repeats the server's view and layout; these tests
//! run both on the same trees and choices and compare every figure.

use super::*;
use analysis::allocation;
use model::{Allocations, Metric, Profile};
use serde_json::{json, Value};

/// A tree of `stacks` pseudo-random allocating stacks over a few
/// functions and classes: wide nodes, small branches, pass-through runs.
fn generated(stacks: usize, seed: u64) -> (AllocTree, FrameTable) {
    let mut frames = FrameTable::default();
    let mut profile = Profile::new(vec![Metric::new("objects", Unit::Objects)]);
    let mut alloc = Allocations::new(CountKind::Objects, true, ClassSource::Recorded);
    let mut state = seed;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    for _ in 0..stacks {
        let depth = 1 + next(9) as usize;
        let stack: Vec<_> = (0..depth)
            .map(|d| frames.intern_name(&format!("f{}_{}", d, next(if d < 2 { 3 } else { 6 }))))
            .collect();
        let node = profile.tree.path(stack);
        let class = alloc.class(&format!("C{}", next(12)));
        let big = next(10) == 0;
        let count = 1 + next(if big { 500 } else { 20 });
        alloc.add(node, class, count as f64, (count * 24) as f64);
        profile.tree.add_self(node, 0, count as f64);
    }
    let calls: Vec<(model::NodeId, f64)> = profile
        .tree
        .node_ids()
        .skip(1)
        .map(|n| (n, 1.0 + (n.0 % 7) as f64))
        .collect();
    for (n, c) in calls {
        alloc.set_calls(n, c, profile.tree.len());
    }
    profile.allocations = Some(Box::new(alloc));
    let tree = allocation::build(&[&profile], &frames).unwrap();
    (tree, frames)
}

fn canvas() -> (AllocTree, FrameTable) {
    let path = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/tests/fixtures/allocation/canvas.json"
    );
    let (_, parsed) = input::parse_bytes("canvas.json", &std::fs::read(path).unwrap()).unwrap();
    let tree = allocation::build(&[&parsed.profile], &parsed.frames).unwrap();
    (tree, parsed.frames)
}

fn placed_json(l: &Layout) -> Value {
    json!({
        "items": l.items.iter().map(|p| json!({
            "x": p.x, "y": p.y, "w": p.w, "h": p.h, "label": p.label, "bin": p.bin,
            "boxes": p.boxes.iter().map(|b| json!([b.class, b.x, b.y, b.side])).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "edges": l.edges.iter().map(|e| json!([e.from, e.to, e.width])).collect::<Vec<_>>(),
        "width": l.width, "height": l.height,
    })
}

fn choice_json(c: &Choice) -> Value {
    json!({
        "excluded": c.excluded.iter().map(|k| (k.to_string(), Value::Bool(true))).collect::<serde_json::Map<_, _>>(),
        "below": c.below,
        "expanded": c.expanded.iter().map(|k| (k.clone(), Value::Bool(true))).collect::<serde_json::Map<_, _>>(),
        "share": c.share,
    })
}

const HARNESS: &str = r#"
const al = require(process.argv[1]);
let input = '';
process.stdin.on('data', d => input += d).on('end', () => {
  const cases = JSON.parse(input);
  const out = cases.map(c => {
    const tree = al.prepare(c.data);
    const l = al.layout(tree, al.items(tree, c.choice));
    return { items: l.items.map(p => ({ x: p.x, y: p.y, w: p.w, h: p.h, label: p.label, bin: p.bin,
      boxes: p.boxes.map(b => [b.cls, b.x, b.y, b.side]) })),
      edges: l.edges.map(e => [e.from, e.to, e.width]), width: l.width, height: l.height };
  });
  process.stdout.write(JSON.stringify(out));
});"#;

fn run_node(cases: &[Value]) -> Option<Vec<Value>> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let script = concat!(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
        "/crates/render/templates/assets/allocation.js"
    );
    let spawned = Command::new("node")
        .args(["-e", HARNESS, script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(e) if std::env::var_os("CI").is_some() => panic!("node is needed under CI: {e}"),
        Err(e) => {
            eprintln!("note: node not runnable ({e}); the JavaScript half is skipped");
            return None;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&serde_json::to_vec(cases).unwrap())
        .unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "node failed: {}", output.status);
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Equal JSON, numbers within 1e-9.
fn same(a: &Value, b: &Value, at: &str) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                "{at}: rust {x} js {y}"
            );
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same(p, q, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                same(v, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

#[test]
fn the_script_lays_out_every_choice_as_the_server_does() {
    let trees = [canvas(), generated(400, 7), generated(60, 11)];
    let mut cases = Vec::new();
    let mut expected = Vec::new();
    for (tree, frames) in &trees {
        let colours: Vec<String> = tree.classes.iter().map(|_| "#000000".to_string()).collect();
        let hrefs = vec![None; tree.nodes.len()];
        let data = serde_json::to_value(page_data(tree, &colours, &hrefs, frames)).unwrap();
        let first = view::items(tree, &Choice::initial());
        let keys: Vec<String> = first.iter().filter_map(Item::key).collect();
        let mut choices = vec![Choice::initial(), Choice::default()];
        let mut excluding = Choice::initial();
        excluding.excluded.insert(0);
        excluding.excluded.insert(tree.classes.len() - 1);
        choices.push(excluding);
        let mut below = Choice::initial();
        below.below = 3.0;
        choices.push(below);
        let mut opened = Choice::initial();
        opened.expanded = keys.into_iter().collect();
        choices.push(opened);
        for choice in choices {
            let items = view::items(tree, &choice);
            expected.push(placed_json(&layout::layout(tree, &items, &Scale::of(tree))));
            cases.push(json!({ "data": data, "choice": choice_json(&choice) }));
        }
    }
    // The generated trees exercise chains and groups.
    let kinds: Vec<usize> = expected
        .iter()
        .map(|e| e["items"].as_array().unwrap().len())
        .collect();
    assert!(kinds.iter().all(|&k| k > 1), "{kinds:?}");
    let Some(js) = run_node(&cases) else { return };
    for (i, (e, j)) in expected.iter().zip(&js).enumerate() {
        same(e, j, &format!("case {i}"));
    }
}

/// (name, bar width) of the class list.
fn bars(tree: &AllocTree) -> Vec<(String, String)> {
    let colours = vec![String::new(); tree.classes.len()];
    class_rows(tree, Some(tree), &colours)
        .into_iter()
        .map(|r| (r.name, r.bar))
        .collect()
}

#[test]
fn class_bars_are_relative_to_the_largest_class_whatever_the_count() {
    let (mut tree, _) = canvas();
    let want = [
        ("Circle", "100.0"),
        ("Box", "53.3"),
        ("Canvas", "3.3"),
        ("ShapeFactory", "3.3"),
    ]
    .map(|(n, b)| (n.to_string(), b.to_string()));
    assert_eq!(bars(&tree), want);
    assert_eq!(ranking_text(&tree), "Classes ranked by instances.");
    // Sampled counts compare shares across versions; the bars do not
    // change for that. Samples weighted by bytes rank (and draw their
    // bars) by the bytes: Circle 720, Box 512, Canvas 24, ShapeFactory 16.
    tree.count_kind = CountKind::Samples;
    let by_weight = [
        ("Circle", "100.0"),
        ("Box", "71.1"),
        ("Canvas", "3.3"),
        ("ShapeFactory", "2.2"),
    ]
    .map(|(n, b)| (n.to_string(), b.to_string()));
    assert_eq!(bars(&tree), by_weight);
    assert_eq!(
        ranking_text(&tree),
        "Classes ranked by allocated bytes (sampled weights)."
    );
    // Without sizes, sampled counts are all there is.
    tree.bytes_known = false;
    assert_eq!(bars(&tree), want);
    assert_eq!(
        ranking_text(&tree),
        "Classes ranked by sampled allocations."
    );
}

#[test]
fn sampled_weights_outrank_sample_counts() {
    // Two classes: A sampled 10 times for 100 bytes, B 2 times for 4,000.
    let mut frames = FrameTable::default();
    let mut profile = Profile::new(vec![Metric::new("samples", Unit::Samples)]);
    let mut alloc = Allocations::new(CountKind::Samples, true, ClassSource::Recorded);
    let node = profile.tree.path(vec![frames.intern_name("main")]);
    let (a, b) = (alloc.class("A"), alloc.class("B"));
    alloc.add(node, a, 10.0, 100.0);
    alloc.add(node, b, 2.0, 4000.0);
    profile.tree.add_self(node, 0, 12.0);
    profile.allocations = Some(Box::new(alloc));
    let tree = allocation::build(&[&profile], &frames).unwrap();
    let names: Vec<String> = bars(&tree).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["B", "A"]);
    assert!(tree.ranks_by_bytes());
    assert_eq!(tree.rank_amount((10.0, 100.0)), 100.0);
    // Exact counts rank by instances.
    let mut exact = tree.clone();
    exact.count_kind = CountKind::Objects;
    let names: Vec<String> = bars(&exact).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["A", "B"]);
}

#[test]
fn generated_trees_have_groups_and_chains_to_compare() {
    let (tree, _) = generated(400, 7);
    let items = view::items(&tree, &Choice::initial());
    assert!(items.iter().any(|i| matches!(i.kind, ItemKind::Group(_))));
    let (tree, _) = generated(60, 11);
    let items = view::items(&tree, &Choice::initial());
    assert!(
        items.iter().any(|i| matches!(i.kind, ItemKind::Chain(_))),
        "{}",
        items.len()
    );
}
