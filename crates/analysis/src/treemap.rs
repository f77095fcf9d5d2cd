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
mod tests;
