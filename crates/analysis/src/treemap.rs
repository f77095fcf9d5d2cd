//! Layout of Gammatella's system level (Orso, Jones, Harrold, SoftVis 2003,
//! sections 2.1–2.2): the squarified treemap of directories and files
//! (Bruls, Huizing, van Wijk 2000), and the fixed colour layout inside each
//! file's tile (Figure 4).
//!
//! The treemap is a port of d3-hierarchy's `treemapSquarify` and
//! `d3.treemap()` (version 3.1.3): the same row-building rule, the same
//! orientation choice, the same arithmetic in the same order and no
//! rounding, so the rectangles are d3's bit for bit (the tests allow 1e-9
//! because serde_json's default float parsing may miss by an ulp). The
//! reference rectangles are in `tests/fixtures/treemap/` (see
//! `make_vectors.mjs` there).
//!
//! Pure geometry: no colours, no HTML. Nothing here panics, whatever the
//! input.

use serde::Serialize;

/// The golden ratio φ = (1 + √5) / 2, d3's default target aspect ratio for
/// squarified rows.
pub const PHI: f64 = 1.618_033_988_749_895;

/// An axis-aligned rectangle from (x0, y0) to (x1, y1), y growing downwards.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

/// A node of the system tree: directories (with children) then files
/// (without). A directory's own `value` is ignored: its size is the sum of
/// its children's.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Node {
    pub value: f64,
    pub children: Vec<Node>,
    pub id: usize,
}

/// One block of a file tile: the lines whose colour falls in one hue bin
/// and one brightness bin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cell {
    pub rect: Rect,
    pub hue_bin: usize,
    pub brightness_bin: usize,
    pub lines: usize,
}

/// Squarified treemap of `values`, in the order given, inside `area`, as
/// d3's `treemapSquarify.ratio(ratio)` lays out the children of a node whose
/// value is their sum (added last to first, as d3's `node.sum` does): one
/// rectangle per value, in the same order.
///
/// Rows are filled while the worst aspect ratio, measured against `ratio`,
/// does not get worse (ties keep adding); each row runs along the shorter
/// side of the remaining area (stacked downwards when the area is taller
/// than wide, rightwards otherwise). A `ratio` below 1 (or NaN) counts as 1,
/// as in d3; [`PHI`] is d3's default. Values should be finite and
/// non-negative; zeros get empty rectangles.
pub fn squarify(values: &[f64], area: Rect, ratio: f64) -> Vec<Rect> {
    squarify_total(values, d3_sum(values.iter().rev().copied()), area, ratio)
}

/// Treemap of the tree under `root` inside `area`, as d3 computes it with
///
/// ```js
/// d3.hierarchy(root).sum(d => d.children?.length ? 0 : d.value)
///   .sort((a, b) => b.value - a.value || a.id - b.id);
/// d3.treemap().size(…).padding(padding).tile(d3.treemapSquarify.ratio(ratio))
/// ```
///
/// Every node in pre-order (the root first, children largest first, equal
/// sizes by ascending id) with its rectangle and depth (the root's is 0).
/// Padding is both d3's inner and outer padding; rectangles too small for
/// it collapse to their centre line. A file's size that is negative or not
/// finite counts as 0, as does a non-finite padding. d3 always starts at
/// (0, 0); an `area` elsewhere is the same layout shifted (up to rounding).
pub fn layout(root: &Node, area: Rect, ratio: f64, padding: f64) -> Vec<(usize, Rect, usize)> {
    let padding = if padding.is_finite() { padding } else { 0.0 };
    let mut flat = flatten(root);
    for i in (0..flat.len()).rev() {
        if !flat[i].children.is_empty() {
            let sizes = flat[i].children.iter().rev().map(|&c| flat[c].size);
            flat[i].size = d3_sum(sizes);
        }
    }
    for i in 0..flat.len() {
        let mut children = std::mem::take(&mut flat[i].children);
        children.sort_by(|&a, &b| {
            flat[b]
                .size
                .partial_cmp(&flat[a].size)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(flat[a].id.cmp(&flat[b].id))
        });
        flat[i].children = children;
    }
    let mut out = Vec::with_capacity(flat.len());
    let mut stack = vec![(0, area)];
    while let Some((i, given)) = stack.pop() {
        let node = &flat[i];
        let outer = if node.depth == 0 { 0.0 } else { padding / 2.0 };
        let rect = collapse(Rect {
            x0: given.x0 + outer,
            y0: given.y0 + outer,
            x1: given.x1 - outer,
            y1: given.y1 - outer,
        });
        out.push((node.id, rect, node.depth));
        if node.children.is_empty() {
            continue;
        }
        let p = padding / 2.0;
        let inner = collapse(Rect {
            x0: rect.x0 + (padding - p),
            y0: rect.y0 + (padding - p),
            x1: rect.x1 - (padding - p),
            y1: rect.y1 - (padding - p),
        });
        let sizes: Vec<f64> = node.children.iter().map(|&c| flat[c].size).collect();
        let rects = squarify_total(&sizes, node.size, inner, ratio);
        for (&c, r) in node.children.iter().zip(rects).rev() {
            stack.push((c, r));
        }
    }
    out
}

/// The fixed colour layout of a file tile (section 2.2, Figure 4).
/// `counts[h][b]` is the number of lines in hue bin `h` and brightness bin
/// `b`; hue bin 0 is drawn leftmost, brightness bin 0 topmost.
///
/// The paper partitions by brightness rows first, then by hue within each
/// row:
///
/// > "The layout we use is characterized by varying the hue across the
/// > horizontal axis and by varying the brightness across the vertical
/// > axis."
///
/// > "The third step determines, for each row, the width of each block. To
/// > this end, the technique computes the ratio of the number of statements
/// > in the block to the number of statements in the entire row. The width
/// > of each block is proportional to this ratio."
///
/// > "The middle two blocks in the first row are eliminated (i.e., they are
/// > assigned width 0) because they contain no points. Note that the
/// > technique assigns no widths for the second row because no points fall
/// > into this row."
///
/// > "The final step determines the height of each row by computing the
/// > ratio of the number of statements in the row to the number of
/// > statements in the entire node."
///
/// So every block's area is its share of the file's lines ("5/6 ∗ 6/10 =
/// 1/2"). Empty blocks and rows give no cells. Cells come row by row, top
/// to bottom, each row left to right; neighbours share their edges exactly
/// and the outermost edges are the tile's. Rows missing from a ragged
/// `counts` count as 0.
///
/// Figure 4 puts the brightest green block top left, so to draw it as the
/// paper does, number the brightness bins from the brightest and the hue
/// bins from green.
pub fn tile_cells(counts: &[Vec<usize>], tile: Rect) -> Vec<Cell> {
    let brightness_bins = counts.iter().map(Vec::len).max().unwrap_or(0);
    let count = |h: usize, b: usize| counts[h].get(b).copied().unwrap_or(0);
    let rows: Vec<u128> = (0..brightness_bins)
        .map(|b| (0..counts.len()).map(|h| count(h, b) as u128).sum())
        .collect();
    let total: u128 = rows.iter().sum();
    let mut cells = Vec::new();
    let mut above = 0u128;
    for (b, &row) in rows.iter().enumerate() {
        if row == 0 {
            continue;
        }
        let y0 = split(tile.y0, tile.y1, above, total);
        above += row;
        let y1 = split(tile.y0, tile.y1, above, total);
        let mut left = 0u128;
        for h in 0..counts.len() {
            let lines = count(h, b);
            if lines == 0 {
                continue;
            }
            let x0 = split(tile.x0, tile.x1, left, row);
            left += lines as u128;
            let x1 = split(tile.x0, tile.x1, left, row);
            cells.push(Cell {
                rect: Rect { x0, y0, x1, y1 },
                hue_bin: h,
                brightness_bin: b,
                lines,
            });
        }
    }
    cells
}

/// The coordinate `part / whole` of the way from `lo` to `hi`, exactly `lo`
/// and `hi` at the ends.
fn split(lo: f64, hi: f64, part: u128, whole: u128) -> f64 {
    if part == 0 || whole == 0 {
        lo
    } else if part >= whole {
        hi
    } else {
        lo + (hi - lo) * (part as f64 / whole as f64)
    }
}

/// A node of the tree in pre-order, children as indexes.
struct Flat {
    id: usize,
    depth: usize,
    size: f64,
    children: Vec<usize>,
}

/// The tree in pre-order without recursion, so depth cannot overflow the
/// stack; files get their sanitised size, directories 0 for now.
fn flatten(root: &Node) -> Vec<Flat> {
    let mut flat: Vec<Flat> = Vec::new();
    let mut stack: Vec<(&Node, usize, Option<usize>)> = vec![(root, 0, None)];
    while let Some((node, depth, parent)) = stack.pop() {
        let i = flat.len();
        let size = if node.children.is_empty() && node.value.is_finite() && node.value > 0.0 {
            node.value
        } else {
            0.0
        };
        flat.push(Flat {
            id: node.id,
            depth,
            size,
            children: Vec::new(),
        });
        if let Some(p) = parent {
            flat[p].children.push(i);
        }
        for child in node.children.iter().rev() {
            stack.push((child, depth + 1, Some(i)));
        }
    }
    flat
}

/// Sum as d3's `node.sum` adds a node's children: from 0, in the order
/// given. d3 adds them last to first, before sorting; callers pass them so,
/// which keeps the rounding of fractional sizes identical to d3's.
fn d3_sum(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |sum, v| sum + v)
}

/// d3's guard against negative sizes: a reversed side collapses to its
/// midpoint.
fn collapse(mut r: Rect) -> Rect {
    if r.x1 < r.x0 {
        let mid = (r.x0 + r.x1) / 2.0;
        (r.x0, r.x1) = (mid, mid);
    }
    if r.y1 < r.y0 {
        let mid = (r.y0 + r.y1) / 2.0;
        (r.y0, r.y1) = (mid, mid);
    }
    r
}

/// JavaScript truthiness of a number.
fn truthy(x: f64) -> bool {
    x != 0.0 && !x.is_nan()
}

/// JavaScript's `Math.max` of two numbers: NaN wins, +0 beats −0.
fn js_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if a > b || (a == b && a.is_sign_positive()) {
        a
    } else {
        b
    }
}

/// d3's `squarifyRatio` for children `values` of a node of value `total`.
fn squarify_total(values: &[f64], total: f64, area: Rect, ratio: f64) -> Vec<Rect> {
    let ratio = if ratio > 1.0 { ratio } else { 1.0 };
    let n = values.len();
    let mut rects = vec![Rect::default(); n];
    let Rect {
        mut x0,
        mut y0,
        x1,
        y1,
    } = area;
    let mut value = total;
    let (mut i0, mut i1) = (0, 0);
    while i0 < n {
        let (dx, dy) = (x1 - x0, y1 - y0);
        // The next non-empty value opens the row (d3's do … while).
        let mut sum_value = values[i1];
        i1 += 1;
        while !truthy(sum_value) && i1 < n {
            sum_value = values[i1];
            i1 += 1;
        }
        let (mut min_value, mut max_value) = (sum_value, sum_value);
        let alpha = js_max(dy / dx, dx / dy) / (value * ratio);
        let beta = sum_value * sum_value * alpha;
        let mut min_ratio = js_max(max_value / beta, beta / min_value);
        // Keep adding values while the aspect ratio maintains or improves.
        while i1 < n {
            let node_value = values[i1];
            sum_value += node_value;
            if node_value < min_value {
                min_value = node_value;
            }
            if node_value > max_value {
                max_value = node_value;
            }
            let beta = sum_value * sum_value * alpha;
            let new_ratio = js_max(max_value / beta, beta / min_value);
            if new_ratio > min_ratio {
                sum_value -= node_value;
                break;
            }
            min_ratio = new_ratio;
            i1 += 1;
        }
        let row = &values[i0..i1];
        let out = &mut rects[i0..i1];
        if dx < dy {
            let top = y0;
            let bottom = if truthy(value) {
                y0 += dy * sum_value / value;
                y0
            } else {
                y1
            };
            dice(row, sum_value, out, x0, top, x1, bottom);
        } else {
            let left = x0;
            let right = if truthy(value) {
                x0 += dx * sum_value / value;
                x0
            } else {
                x1
            };
            slice(row, sum_value, out, left, y0, right, y1);
        }
        value -= sum_value;
        i0 = i1;
    }
    rects
}

/// d3's `treemapDice`: a row side by side from left to right.
fn dice(values: &[f64], total: f64, out: &mut [Rect], x0: f64, y0: f64, x1: f64, y1: f64) {
    let k = if truthy(total) {
        (x1 - x0) / total
    } else {
        total
    };
    let mut x = x0;
    for (v, r) in values.iter().zip(out) {
        let start = x;
        x += v * k;
        *r = Rect {
            x0: start,
            y0,
            x1: x,
            y1,
        };
    }
}

/// d3's `treemapSlice`: a row stacked from top to bottom.
fn slice(values: &[f64], total: f64, out: &mut [Rect], x0: f64, y0: f64, x1: f64, y1: f64) {
    let k = if truthy(total) {
        (y1 - y0) / total
    } else {
        total
    };
    let mut y = y0;
    for (v, r) in values.iter().zip(out) {
        let start = y;
        y += v * k;
        *r = Rect {
            x0,
            y0: start,
            x1,
            y1: y,
        };
    }
}

#[cfg(test)]
mod tests {
    //! The treemap against d3-hierarchy 3.1.3's rectangles
    //! (tests/fixtures/treemap/d3_vectors.json, made by make_vectors.mjs
    //! beside it); the tile layout against hand-computed geometry.

    use super::*;
    use serde_json::Value;

    fn vectors() -> Value {
        let text = include_str!("../../../tests/fixtures/treemap/d3_vectors.json");
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
            (seed % 7) as usize * (seed % 3 != 0) as usize
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
}
