//! A profile's calling-context tree as a profile page stores it for its
//! script (`assets/shapes.js`) to derive the bottom-up and flat views,
//! instead of the page storing those views' frames: a tree of a few
//! hundred nodes stands for thousands of derived frames (a bottom-up
//! inclusive graph repeats every caller chain under every function on it),
//! and the derived frames were most of a profile page's weight.
//!
//! The script computes what `analysis::shapes` and `analysis::flame`
//! compute (the same trees, node for node, the same layout and the same
//! frame rows); `tests/derive_parity.rs` builds sites that store both and
//! compares them frame for frame. Pages of trees too large to derive
//! quickly in a browser, or whose bottom-up trees were cut, store the
//! derived frames as before.

use std::collections::HashMap;

use serde::Serialize;

use super::flame_svg;
use super::flame_view::{common_scale, Number, Tables};
use analysis::shapes::ShapeFrames;
use model::{CallTree, FrameId};

/// Largest tree a page's script derives its views from: beyond it the
/// derived frames are stored (a browser would take more than a moment).
pub const MAX_NODES: usize = 20_000;

/// Test hook: with this variable set, pages store the derived frames as
/// well as the tree, so that a test can compare the two.
pub const SHIP_BOTH_VAR: &str = "PERFATLAS_TEST_SHIP_DERIVED";

/// Whether a page's bottom-up and flat views are derived by its script.
pub fn derivable(tree: &CallTree, cut_depth: Option<usize>) -> bool {
    tree.len() <= MAX_NODES && cut_depth.is_none()
}

/// Whether derived frames are stored as well (the test hook).
pub fn ship_both() -> bool {
    std::env::var_os(SHIP_BOTH_VAR).is_some()
}

/// The tree and the frames its views need, as the script reads them.
#[derive(Serialize)]
pub struct ShapeSource {
    /// Shape frames (functions, files, modules and the two stand-ins):
    /// `[order, name, location, colour]`, where `order` ranks them as a
    /// flame graph orders siblings (by name, then frame id) and name and
    /// location are indices into the page's tables.
    frames: Vec<(u32, usize, usize, i8)>,
    /// Per distinct frame of the tree: its function, file and module, as
    /// indices into `frames`.
    kinds: Vec<(u32, u32, u32)>,
    no_stack: u32,
    narrow: u32,
    /// Per node, in node order (parents first): its parent (-1 for the
    /// root) and its frame as an index into `kinds` (-1 for the root).
    parent: Vec<i64>,
    kind: Vec<i64>,
    /// Per metric, each node's own value divided by `scale`.
    values: Vec<Vec<Number>>,
    scale: Vec<f64>,
    /// Groups of callers narrower than this share of the total go to
    /// `(narrower callers)` (see `analysis::shapes::bottom_up`).
    min_fraction: f64,
    /// Name index of the root's label.
    all: usize,
}

/// The page data standing for `tree`. Names and locations go into
/// `tables`, with their source and editor links from `link` (as
/// `source_page::CodeLinks::of` makes them).
pub fn build(
    tree: &CallTree,
    frames: &ShapeFrames,
    min_fraction: f64,
    tables: &mut Tables,
    link: impl Fn(FrameId) -> (String, String),
) -> ShapeSource {
    let mut shape = ShapeList::default();
    let no_stack = shape.add(frames.no_stack);
    let narrow = shape.add(frames.narrow);
    let mut kind_of: HashMap<FrameId, i64> = HashMap::new();
    let mut kinds = Vec::new();
    let mut parent = Vec::with_capacity(tree.len());
    let mut kind = Vec::with_capacity(tree.len());
    for node in tree.node_ids() {
        parent.push(tree.parent(node).map_or(-1, |p| p.index() as i64));
        kind.push(match tree.frame(node) {
            None => -1,
            Some(f) => *kind_of.entry(f).or_insert_with(|| {
                kinds.push((
                    shape.add(frames.function(f)),
                    shape.add(frames.file(f)),
                    shape.add(frames.module(f)),
                ));
                kinds.len() as i64 - 1
            }),
        });
    }
    let (values, scale) = (0..tree.metric_count())
        .map(|m| scaled_self_values(tree, m))
        .unzip();
    ShapeSource {
        frames: shape.rows(frames, tables, &link),
        kinds,
        no_stack,
        narrow,
        parent,
        kind,
        values,
        scale,
        min_fraction,
        all: tables.name("all".to_string()),
    }
}

/// Each node's own value of metric `m` over the largest power of ten
/// dividing them all, and that power.
fn scaled_self_values(tree: &CallTree, m: usize) -> (Vec<Number>, f64) {
    let own: Vec<f64> = tree.node_ids().map(|n| tree.self_value(n, m)).collect();
    let scale = common_scale(own.iter().copied());
    (own.iter().map(|v| Number(v / scale)).collect(), scale)
}

/// Shape frames in first-seen order.
#[derive(Default)]
struct ShapeList {
    ids: Vec<FrameId>,
    index: HashMap<FrameId, u32>,
}

impl ShapeList {
    fn add(&mut self, frame: FrameId) -> u32 {
        let next = self.ids.len() as u32;
        let at = *self.index.entry(frame).or_insert(next);
        if at == next {
            self.ids.push(frame);
        }
        at
    }

    /// `[order, name, location, colour]` of each, names and locations
    /// interned as `flame_view` interns a drawn frame's.
    fn rows(
        &self,
        frames: &ShapeFrames,
        tables: &mut Tables,
        link: &impl Fn(FrameId) -> (String, String),
    ) -> Vec<(u32, usize, usize, i8)> {
        let table = &frames.table;
        let mut by_order: Vec<usize> = (0..self.ids.len()).collect();
        by_order.sort_by(|&a, &b| {
            let (fa, fb) = (self.ids[a], self.ids[b]);
            table
                .get(fa)
                .function
                .cmp(&table.get(fb).function)
                .then_with(|| fa.cmp(&fb))
        });
        let mut order = vec![0u32; self.ids.len()];
        for (rank, &i) in by_order.iter().enumerate() {
            order[i] = rank as u32;
        }
        self.ids
            .iter()
            .zip(order)
            .map(|(&f, order)| {
                let frame = table.get(f);
                let label = frame.function.clone();
                let colour = flame_svg::colour_index(&label) as i8;
                let name = tables.name_with_full(label, frame.full_name.as_deref());
                let location = frame.location().unwrap_or_default();
                let loc = tables.location(location, || link(f));
                (order, name, loc, colour)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{Frame, FrameTable, FunctionIds, PathRules};

    #[test]
    fn a_tree_is_stored_with_its_frames_kinds_and_scaled_values() {
        let mut table = FrameTable::new();
        let main = table.intern(Frame {
            function: "main".into(),
            file: Some("/app/m.py".into()),
            line: Some(3),
            ..Frame::default()
        });
        let work = table.intern(Frame {
            function: "work".into(),
            file: Some("/app/m.py".into()),
            line: Some(9),
            ..Frame::default()
        });
        let mut tree = CallTree::new(1);
        tree.add_stack([main], &[10_000_000.0]);
        tree.add_stack([main, work], &[30_000_000.0]);
        let frames = ShapeFrames::new(
            &table,
            &FunctionIds::of_frames(&table, &PathRules::default()),
        );
        let mut tables = Tables::with_editor("");
        let source = build(&tree, &frames, 0.001, &mut tables, |_| Default::default());
        let json = serde_json::to_value(&source).unwrap();
        assert_eq!(json["parent"], serde_json::json!([-1, 0, 1]));
        assert_eq!(json["kind"], serde_json::json!([-1, 0, 1]));
        assert_eq!(json["values"], serde_json::json!([[0, 1, 3]]));
        assert_eq!(json["scale"], serde_json::json!([1e7]));
        // Two stand-ins, then per frame a function (main, work), one file
        // and one module shared by both.
        assert_eq!(json["kinds"], serde_json::json!([[2, 3, 4], [5, 3, 4]]));
        let (names, locations, _) = tables.into_parts();
        let name = |k: usize| names[json["frames"][k][1].as_u64().unwrap() as usize].clone();
        assert_eq!(
            (name(2), name(3), name(4), name(5)),
            (
                "main".into(),
                "/app/m.py".into(),
                "/app".into(),
                "work".into()
            )
        );
        // Function frames have no line: their location is the file.
        assert_eq!(
            locations[json["frames"][2][2].as_u64().unwrap() as usize],
            "/app/m.py"
        );
        // Siblings are ordered by name: "(narrower callers)" < "(no stack)"
        // < "/app" < "/app/m.py" < "main" < "work".
        let order: Vec<u64> = (0..6)
            .map(|k| json["frames"][k][0].as_u64().unwrap())
            .collect();
        assert_eq!(order, vec![1, 0, 4, 3, 2, 5]);
    }
}
