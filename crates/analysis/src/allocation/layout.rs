//! Geometry of the allocation-site tree (section III-A): a horizontal tree,
//! root on the left, children top to bottom in their order, each parent
//! centred on its children where it fits; one column per depth, as wide
//! as its widest box and label.
//!
//! Inside a context, one square per class it creates directly, with area
//! proportional to the objects (or bytes) — side = [`BOX_MAX`] ×
//! √(size / largest size of any box in the tree), never under [`BOX_MIN`]
//! so a tiny class stays visible — four to a row, in class order. The
//! context's colour bin (0 = least, 7 = most) comes from its inclusive
//! memory (bytes, or the size when the input has none) against the
//! largest below the root, on a log scale. Edge width is 1 + 4 × calls /
//! most calls when the input counts calls, else 1.
//!
//! Labels are measured as monospace text ([`CHAR_W`] per character) so the
//! page's script, which repeats this layout, gets the same numbers.

use super::view::{Item, ItemKind};
use super::AllocTree;

pub const BOX_MAX: f64 = 40.0;
pub const BOX_MIN: f64 = 2.0;
pub const PAD: f64 = 3.0;
pub const GAP: f64 = 2.0;
pub const PER_ROW: usize = 4;
pub const NODE_MIN: f64 = 12.0;
pub const CHAR_W: f64 = 6.6;
pub const LABEL_GAP: f64 = 4.0;
pub const LABEL_CHARS: usize = 32;
pub const COLUMN_GAP: f64 = 28.0;
pub const ROW_GAP: f64 = 6.0;
pub const MARGIN: f64 = 8.0;
pub const BINS: usize = 8;
/// Decades of memory the colour scale spans.
pub const DECADES: f64 = 3.0;

/// One class box, relative to its context's corner.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassBox {
    pub class: usize,
    pub x: f64,
    pub y: f64,
    pub side: f64,
}

/// One placed item.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub label: String,
    pub bin: usize,
    pub boxes: Vec<ClassBox>,
}

/// An edge from a parent item to a child item.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub width: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub items: Vec<Placed>,
    pub edges: Vec<Edge>,
    pub width: f64,
    pub height: f64,
}

/// The figures of the whole tree that scale every view of it the same
/// way, whatever is excluded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// Largest size of one class box.
    pub largest_box: f64,
    /// Most calls of one context, 0 when the input has none.
    pub most_calls: f64,
}

impl Scale {
    pub fn of(tree: &AllocTree) -> Scale {
        let by_bytes = tree.by_bytes();
        let largest_box = tree
            .nodes
            .iter()
            .flat_map(|n| &n.direct)
            .map(|a| a.size(by_bytes))
            .fold(0.0, f64::max);
        let most_calls = tree
            .nodes
            .iter()
            .filter_map(|n| n.calls)
            .fold(0.0, f64::max);
        Scale {
            largest_box,
            most_calls,
        }
    }
}

/// Side of the box of a class of `size`.
pub fn box_side(size: f64, largest: f64) -> f64 {
    if largest <= 0.0 {
        return BOX_MIN;
    }
    (BOX_MAX * (size / largest).sqrt()).max(BOX_MIN)
}

/// The label drawn beside an item: the method's name (its last
/// [`LABEL_CHARS`] characters when longer), or what a chain or group holds.
pub fn label(tree: &AllocTree, item: &Item) -> String {
    match &item.kind {
        ItemKind::Node(n) => shorten(&tree.nodes[*n].label),
        ItemKind::Chain(nodes) => format!("⋯ {} calls deep", nodes.len()),
        ItemKind::Group(nodes) => format!("+{} contexts", nodes.len()),
    }
}

fn shorten(text: &str) -> String {
    let count = text.chars().count();
    if count <= LABEL_CHARS {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - (LABEL_CHARS - 1)).collect();
    format!("…{tail}")
}

/// Boxes of an item and its (w, h).
fn boxes(item: &Item, scale: &Scale) -> (Vec<ClassBox>, f64, f64) {
    let mut boxes = Vec::with_capacity(item.direct.len());
    let (mut widest, mut y) = (0.0_f64, PAD);
    for row in item.direct.chunks(PER_ROW) {
        let mut x = PAD;
        let mut tallest = 0.0_f64;
        for &(class, size) in row {
            let side = box_side(size, scale.largest_box);
            boxes.push(ClassBox { class, x, y, side });
            x += side + GAP;
            tallest = tallest.max(side);
        }
        widest = widest.max(x - GAP + PAD);
        y += tallest + GAP;
    }
    let h = if boxes.is_empty() { 0.0 } else { y - GAP + PAD };
    let (w, h) = match item.kind {
        ItemKind::Node(_) => (widest.max(NODE_MIN), h.max(NODE_MIN)),
        _ => (NODE_MIN * 1.5, NODE_MIN),
    };
    (boxes, w, h)
}

/// Places `items` (pre-order, as [`super::view::items`] gives them).
pub fn layout(tree: &AllocTree, items: &[Item], scale: &Scale) -> Layout {
    let mut placed: Vec<Placed> = items
        .iter()
        .map(|item| {
            let (boxes, w, h) = boxes(item, scale);
            Placed {
                x: 0.0,
                y: 0.0,
                w,
                h,
                label: label(tree, item),
                bin: 0,
                boxes,
            }
        })
        .collect();
    place_columns(items, &mut placed);
    let height = place_rows(items, &mut placed);
    colour_bins(items, &mut placed);
    let edges = edges(tree, items, scale);
    let width = placed
        .iter()
        .map(|p| p.x + p.w + LABEL_GAP + CHAR_W * p.label.chars().count() as f64)
        .fold(0.0, f64::max)
        + MARGIN;
    Layout {
        items: placed,
        edges,
        width,
        height: height + MARGIN,
    }
}

/// x of every item: one column per depth.
fn place_columns(items: &[Item], placed: &mut [Placed]) {
    let depth = items.iter().map(|i| i.depth).max().unwrap_or(0);
    let mut column = vec![0.0_f64; depth + 1];
    for (item, p) in items.iter().zip(placed.iter()) {
        let w = p.w + LABEL_GAP + CHAR_W * p.label.chars().count() as f64;
        column[item.depth] = column[item.depth].max(w);
    }
    let mut x = vec![MARGIN; depth + 1];
    for d in 1..=depth {
        x[d] = x[d - 1] + column[d - 1] + COLUMN_GAP;
    }
    for (item, p) in items.iter().zip(placed.iter_mut()) {
        p.x = x[item.depth];
    }
}

/// Where the children of each item are, for centring.
struct Rows {
    start: Vec<f64>,
    first_child: Vec<Option<usize>>,
    last_child: Vec<Option<usize>>,
    cursor: f64,
}

impl Rows {
    /// Places item `i` once its children are placed.
    fn finish(&mut self, i: usize, placed: &mut [Placed]) {
        let h = placed[i].h;
        let y = match (self.first_child[i], self.last_child[i]) {
            (Some(f), Some(l)) => {
                let middle = (placed[f].y + placed[l].y + placed[l].h) / 2.0;
                (middle - h / 2.0).max(self.start[i])
            }
            _ => self.start[i],
        };
        placed[i].y = y;
        self.cursor = self.cursor.max(y + h + ROW_GAP);
    }
}

/// y of every item, and the total height: leaves stack down; a parent is
/// centred on its children, never above where its subtree starts.
fn place_rows(items: &[Item], placed: &mut [Placed]) -> f64 {
    let mut rows = Rows {
        start: vec![0.0; items.len()],
        first_child: vec![None; items.len()],
        last_child: vec![None; items.len()],
        cursor: MARGIN,
    };
    let mut open: Vec<usize> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        while let Some(&top) = open.last() {
            if items[top].depth < item.depth {
                break;
            }
            open.pop();
            rows.finish(top, placed);
        }
        rows.start[i] = rows.cursor;
        if let Some(p) = item.parent {
            rows.first_child[p].get_or_insert(i);
            rows.last_child[p] = Some(i);
        }
        open.push(i);
    }
    while let Some(top) = open.pop() {
        rows.finish(top, placed);
    }
    rows.cursor - ROW_GAP
}

/// Colour bins from the inclusive memory against the largest below the
/// root, on a log scale over [`DECADES`] decades: the largest is bin 7,
/// a thousandth of it or less bin 0. (Memory per context is very skewed: a
/// linear scale would paint every context but the few largest blue.)
fn colour_bins(items: &[Item], placed: &mut [Placed]) {
    let largest = items
        .iter()
        .filter(|i| i.depth > 0)
        .map(|i| i.memory)
        .fold(0.0, f64::max);
    for (item, p) in items.iter().zip(placed.iter_mut()) {
        p.bin = if item.depth == 0 || largest <= 0.0 {
            BINS - 1
        } else {
            let share = (1.0 + (item.memory / largest).log10() / DECADES).max(0.0);
            ((share * BINS as f64) as usize).min(BINS - 1)
        };
    }
}

fn edges(tree: &AllocTree, items: &[Item], scale: &Scale) -> Vec<Edge> {
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let from = item.parent?;
            let calls = match &item.kind {
                ItemKind::Node(n) => tree.nodes[*n].calls,
                ItemKind::Chain(nodes) => tree.nodes[nodes[0]].calls,
                ItemKind::Group(_) => None,
            };
            let width = match calls {
                Some(c) if scale.most_calls > 0.0 => 1.0 + 4.0 * c / scale.most_calls,
                _ => 1.0,
            };
            Some(Edge { from, to: i, width })
        })
        .collect()
}
