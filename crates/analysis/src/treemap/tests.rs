//! The treemap against d3-hierarchy 3.1.3's rectangles
//! (tests/fixtures/treemap/d3_vectors.json, made by make_vectors.mjs
//! beside it); the tile layout against hand-computed geometry.

use super::*;
use serde_json::Value;

fn vectors() -> Value {
    let text = include_str!("../../../../tests/fixtures/treemap/d3_vectors.json");
    serde_json::from_str(text).unwrap()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn rect_of(v: &Value) -> Rect {
    Rect {
        x0: num(&v["x0"]),
        y0: num(&v["y0"]),
        x1: num(&v["x1"]),
        y1: num(&v["y1"]),
    }
}

fn node_of(v: &Value) -> Node {
    let children = v["children"]
        .as_array()
        .map(|c| c.iter().map(node_of).collect())
        .unwrap_or_default();
    Node {
        value: num(&v["value"]),
        children,
        id: v["id"].as_u64().unwrap() as usize,
    }
}

fn assert_close(ours: Rect, theirs: Rect, what: &str) {
    let pairs = [
        (ours.x0, theirs.x0),
        (ours.y0, theirs.y0),
        (ours.x1, theirs.x1),
        (ours.y1, theirs.y1),
    ];
    for (a, b) in pairs {
        assert!(
            (a - b).abs() <= 1e-9,
            "{what}: perfatlas {ours:?}, d3 {theirs:?}"
        );
    }
}

fn r(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
    Rect { x0, y0, x1, y1 }
}

fn area(r: Rect) -> f64 {
    (r.x1 - r.x0) * (r.y1 - r.y0)
}

#[test]
fn phi_is_the_golden_ratio_d3_uses() {
    assert_eq!(PHI, (1.0 + 5f64.sqrt()) / 2.0);
}

#[test]
fn squarify_matches_d3_vectors() {
    let v = vectors();
    assert_eq!(v["d3_hierarchy_version"], "3.1.3");
    let cases = v["squarify"].as_array().unwrap();
    assert!(cases.len() >= 18);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let values: Vec<f64> = case["values"].as_array().unwrap().iter().map(num).collect();
        let expected: Vec<Rect> = case["rects"]
            .as_array()
            .unwrap()
            .iter()
            .map(rect_of)
            .collect();
        let ours = squarify(&values, rect_of(&case["area"]), num(&case["ratio"]));
        assert_eq!(ours.len(), expected.len(), "{name}");
        for (i, (o, e)) in ours.iter().zip(&expected).enumerate() {
            assert_close(*o, *e, &format!("{name} [{i}]"));
        }
    }
}

/// d3-hierarchy's own test/treemap/squarify-test.js, whose expectations
/// are rounded to two decimals (`Math.round(x * 100) / 100`).
#[test]
fn squarify_matches_d3_published_tests_to_two_decimals() {
    let round = |x: f64| (x * 100.0).round() / 100.0;
    let sample = [6.0, 6.0, 4.0, 3.0, 2.0, 2.0, 1.0];
    let golden = [
        r(0.00, 0.00, 3.00, 2.00),
        r(0.00, 2.00, 3.00, 4.00),
        r(3.00, 0.00, 4.71, 2.33),
        r(4.71, 0.00, 6.00, 2.33),
        r(3.00, 2.33, 5.40, 3.17),
        r(3.00, 3.17, 5.40, 4.00),
        r(5.40, 2.33, 6.00, 4.00),
    ];
    let mut ratio_1 = golden;
    ratio_1[4] = r(3.00, 2.33, 4.20, 4.00);
    ratio_1[5] = r(4.20, 2.33, 5.40, 4.00);
    let mut leading_zero = vec![r(0.00, 0.00, 3.00, 0.00)];
    leading_zero.extend(golden);
    let mut with_zero = vec![0.0];
    with_zero.extend(sample);
    let cases: Vec<(Vec<f64>, Rect, f64, Vec<Rect>)> = vec![
        (sample.to_vec(), r(0., 0., 6., 4.), PHI, golden.to_vec()),
        (sample.to_vec(), r(0., 0., 6., 4.), 1.0, ratio_1.to_vec()),
        (
            vec![10.0, 10.0],
            r(0., 0., 20., 10.),
            PHI,
            vec![r(0., 0., 10., 10.), r(10., 0., 20., 10.)],
        ),
        (
            vec![10.0, 10.0],
            r(0., 0., 10., 20.),
            PHI,
            vec![r(0., 0., 10., 10.), r(0., 10., 10., 20.)],
        ),
        (
            vec![0.0, 0.0],
            r(0., 0., 0., 4.),
            PHI,
            vec![r(0., 0., 0., 4.), r(0., 0., 0., 4.)],
        ),
        (
            vec![0.0, 0.0],
            r(0., 0., 4., 0.),
            PHI,
            vec![r(0., 0., 4., 0.), r(0., 0., 4., 0.)],
        ),
        (with_zero, r(0., 0., 6., 4.), PHI, leading_zero),
    ];
    for (values, area, ratio, expected) in cases {
        let ours: Vec<Rect> = squarify(&values, area, ratio)
            .into_iter()
            .map(|q| r(round(q.x0), round(q.y0), round(q.x1), round(q.y1)))
            .collect();
        assert_eq!(ours, expected, "{values:?} ratio {ratio}");
    }
}

#[test]
fn layout_matches_d3_vectors() {
    let v = vectors();
    let cases = v["layout"].as_array().unwrap();
    assert!(cases.len() >= 6);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let root = node_of(&case["tree"]);
        let ours = layout(
            &root,
            rect_of(&case["area"]),
            num(&case["ratio"]),
            num(&case["padding"]),
        );
        let expected = case["nodes"].as_array().unwrap();
        assert_eq!(ours.len(), expected.len(), "{name}");
        for ((id, rect, depth), e) in ours.iter().zip(expected) {
            let what = format!("{name} node {id}");
            assert_eq!(*id as u64, e["id"].as_u64().unwrap(), "{what}: order");
            assert_eq!(*depth as u64, e["depth"].as_u64().unwrap(), "{what}");
            assert_close(*rect, rect_of(e), &what);
        }
    }
}

/// Figure 3: "the rectangle for HashMap occupies 40% of the treemap
/// area because the size of HashMap is 40% of the size of the java
/// package".
#[test]
fn layout_gives_each_file_its_share_of_the_area() {
    let leaf = |id, value| Node {
        value,
        children: vec![],
        id,
    };
    let dir = |id, children| Node {
        value: 0.0,
        children,
        id,
    };
    let java = dir(
        0,
        vec![
            dir(1, vec![leaf(2, 10.0), leaf(3, 20.0)]),
            dir(4, vec![leaf(5, 40.0), leaf(6, 10.0), leaf(7, 20.0)]),
        ],
    );
    let out = layout(&java, r(0., 0., 100., 100.), PHI, 0.0);
    let share = |id| area(out.iter().find(|n| n.0 == id).unwrap().1) / 10_000.0;
    for (id, expected) in [(5, 0.4), (4, 0.7), (1, 0.3), (3, 0.2), (2, 0.1)] {
        assert!((share(id) - expected).abs() < 1e-12, "node {id}");
    }
    assert_eq!(out[0], (0, r(0., 0., 100., 100.), 0));
}

#[test]
fn empty_and_lone_inputs() {
    assert!(squarify(&[], r(0., 0., 1., 1.), PHI).is_empty());
    let file = Node {
        value: 3.0,
        children: vec![],
        id: 9,
    };
    let area = r(5., 5., 15., 25.);
    assert_eq!(layout(&file, area, PHI, 4.0), vec![(9, area, 0)]);
}

#[test]
fn hostile_numbers_do_not_panic() {
    let values = [f64::NAN, f64::INFINITY, -3.0, 0.0, 1e308, 1e308, 5.0];
    for area in [r(0., 0., 0., 0.), r(0., 0., 1., 1.), r(3., 3., 1., 1.)] {
        for ratio in [f64::NAN, -1.0, 0.0, PHI, f64::INFINITY] {
            assert_eq!(squarify(&values, area, ratio).len(), values.len());
        }
    }
    let children = values
        .iter()
        .enumerate()
        .map(|(id, &value)| Node {
            value,
            children: vec![],
            id,
        })
        .collect();
    let root = Node {
        value: f64::NAN,
        children,
        id: 99,
    };
    for padding in [f64::NAN, f64::INFINITY, -2.0, 1e6] {
        assert_eq!(layout(&root, r(0., 0., 10., 10.), PHI, padding).len(), 8);
    }
}

#[test]
fn layout_of_a_deep_chain_does_not_recurse() {
    let mut node = Node {
        value: 1.0,
        children: vec![],
        id: 0,
    };
    for id in 1..2_000 {
        node = Node {
            value: 0.0,
            children: vec![node],
            id,
        };
    }
    let out = layout(&node, r(0., 0., 100., 100.), PHI, 0.0);
    assert_eq!(out.len(), 2_000);
    assert_eq!(out[1_999], (0, r(0., 0., 100., 100.), 1_999));
}

/// Figure 4 as the paper describes it: four hue and four brightness
/// bins; the first row holds six lines, five in the leftmost block and
/// one in the rightmost; no line in the second row; two in each of the
/// last two (the paper does not say in which blocks: here the middle two
/// of the third row and the rightmost of the fourth).
#[test]
fn tile_cells_of_figure_4() {
    let mut counts = vec![vec![0; 4]; 4];
    counts[0][0] = 5;
    counts[3][0] = 1;
    counts[1][2] = 1;
    counts[2][2] = 1;
    counts[3][3] = 2;
    let cells = tile_cells(&counts, r(0., 0., 120., 100.));
    let expected = [
        (0, 0, 5, r(0., 0., 100., 60.)),
        (3, 0, 1, r(100., 0., 120., 60.)),
        (1, 2, 1, r(0., 60., 60., 80.)),
        (2, 2, 1, r(60., 60., 120., 80.)),
        (3, 3, 2, r(0., 80., 120., 100.)),
    ];
    assert_eq!(cells.len(), expected.len());
    for (cell, (h, b, lines, rect)) in cells.iter().zip(expected) {
        assert_eq!(
            (cell.hue_bin, cell.brightness_bin, cell.lines),
            (h, b, lines)
        );
        assert_close(cell.rect, rect, &format!("hue {h} brightness {b}"));
    }
    // "the brightest green block, which contained five of the ten
    // statements, results in half of the total area of the node"
    assert!((area(cells[0].rect) - 6_000.0).abs() < 1e-9);
}

#[test]
fn zero_counts_give_no_cells() {
    let tile = r(0., 0., 10., 10.);
    assert!(tile_cells(&[], tile).is_empty());
    assert!(tile_cells(&[vec![], vec![]], tile).is_empty());
    assert!(tile_cells(&[vec![0, 0], vec![0, 0]], tile).is_empty());
    // A hue bin and a brightness bin without lines are skipped, and the
    // others close up over the whole tile.
    let cells = tile_cells(&[vec![0, 0, 0], vec![3, 0, 1], vec![1, 0, 0]], tile);
    let got: Vec<(usize, usize, Rect)> = cells
        .iter()
        .map(|c| (c.hue_bin, c.brightness_bin, c.rect))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, 0, r(0., 0., 7.5, 8.)),
            (2, 0, r(7.5, 0., 10., 8.)),
            (1, 2, r(0., 8., 10., 10.)),
        ]
    );
}

#[test]
fn ragged_counts_treat_missing_bins_as_empty() {
    let cells = tile_cells(&[vec![2], vec![1, 1]], r(0., 0., 4., 4.));
    let got: Vec<(usize, usize, usize, Rect)> = cells
        .iter()
        .map(|c| (c.hue_bin, c.brightness_bin, c.lines, c.rect))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 0, 2, r(0., 0., 4. * 2. / 3., 3.)),
            (1, 0, 1, r(4. * 2. / 3., 0., 4., 3.)),
            (1, 1, 1, r(0., 3., 4., 4.)),
        ]
    );
}

/// Every line counted: the cells cover the tile exactly, each in
/// proportion to its lines, neighbours sharing their edges.
#[test]
fn cell_areas_sum_to_the_tile() {
    let tile = r(13.25, 7.5, 213.75, 98.125);
    let mut seed = 0x2545_f491_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % 7) as usize * !seed.is_multiple_of(3) as usize
    };
    let counts: Vec<Vec<usize>> = (0..10).map(|_| (0..6).map(|_| next()).collect()).collect();
    let total: usize = counts.iter().flatten().sum();
    assert!(total > 0);
    let cells = tile_cells(&counts, tile);
    assert_eq!(cells.iter().map(|c| c.lines).sum::<usize>(), total);
    let sum: f64 = cells.iter().map(|c| area(c.rect)).sum();
    assert!((sum - area(tile)).abs() < 1e-9 * area(tile), "{sum}");
    for c in &cells {
        let share = c.lines as f64 / total as f64;
        assert!((area(c.rect) - share * area(tile)).abs() < 1e-9 * area(tile));
    }
    for b in 0..6 {
        let row: Vec<&Cell> = cells.iter().filter(|c| c.brightness_bin == b).collect();
        if let (Some(first), Some(last)) = (row.first(), row.last()) {
            assert_eq!((first.rect.x0, last.rect.x1), (tile.x0, tile.x1));
        }
        for pair in row.windows(2) {
            assert_eq!(pair[0].rect.x1, pair[1].rect.x0);
            assert_eq!(pair[0].rect.y0, pair[1].rect.y0);
        }
    }
    assert_eq!(cells[0].rect.y0, tile.y0);
    assert_eq!(cells.last().unwrap().rect.y1, tile.y1);
}
