//! The trees a page stores for its script (`assets/shapes.js`) to derive
//! views from, instead of the page storing those views' frames and tree
//! tables:
//!
//! - a profile page stores its profile's tree, and the script derives
//!   every graph (top-down, bottom-up, flat) and every tree table but the
//!   one written as HTML (a bottom-up inclusive graph repeats every caller
//!   chain under every function on it: thousands of frames from a tree of
//!   a few hundred nodes);
//! - a differential page stores each metric's old and new version means,
//!   and the script derives every view: the merged tree, its frames, their
//!   per-frame changes and the tables;
//! - an aggregate page stores the profiles it merges (each whole tree
//!   once, for every metric), and the script merges them and derives the
//!   mean's frames, each frame's value in each profile and the tables.
//!
//! The script computes what `analysis::shapes`, `analysis::flame_diff`,
//! `analysis::aggregate`, `analysis::flame` and `tree_table` compute (the same trees, node for
//! node, the same layout and the same rows); `tests/derive_parity.rs`
//! builds sites that store both and compares them frame for frame and row
//! for row. Pages of trees too large to derive quickly in a browser store
//! the derived views as before.

use std::collections::HashMap;

use serde::Serialize;

use super::code_links::LocationLinks;
use super::flame_view::{common_scale, Number, Tables};
use analysis::shapes::ShapeFrames;
use model::{CallTree, FrameId};

/// Largest tree a page's script derives its views from: beyond it the
/// derived frames are stored (a browser would take more than a moment).
pub const MAX_NODES: usize = 20_000;

/// Test hook: with this variable set, pages store the derived frames and
/// rows as well as the trees, so that a test can compare the two. (Pages
/// kept from an earlier build are not rebuilt for it: tests build fresh.)
pub const SHIP_BOTH_VAR: &str = "PERFATLAS_TEST_SHIP_DERIVED";

/// Whether a page's bottom-up and flat views are derived by its script.
pub fn derivable(tree: &CallTree, cut_depth: Option<usize>) -> bool {
    tree.len() <= MAX_NODES && cut_depth.is_none()
}

/// Whether a profile's views will be derivable, known before its shapes
/// are computed: a small tree whose bottom-up trees cannot be cut, since
/// building one takes at most a step per node and level above it
/// (`analysis::shapes::BOTTOM_UP_WORK`).
pub fn derivable_from_the_start(tree: &CallTree) -> bool {
    let steps: usize = tree.node_ids().map(|n| tree.depth(n) as usize + 1).sum();
    tree.len() <= MAX_NODES && steps <= analysis::shapes::BOTTOM_UP_WORK
}

/// The trees and the frames their views need, as the script reads them.
#[derive(Serialize)]
pub struct ShapeSource {
    /// Shape frames (the trees' own frames, their functions, files and
    /// modules, and the two stand-ins): `[name, location]`, indices into
    /// the page's tables, in the order a flame graph orders siblings (by
    /// name, then frame id). A frame's colour follows from its name
    /// (`flame_svg::colour_index`), which the script computes.
    frames: Vec<(usize, usize)>,
    /// Per distinct frame of the trees: its function, file and module and
    /// the frame itself, as indices into `frames`.
    kinds: Vec<(u32, u32, u32, u32)>,
    no_stack: u32,
    narrow: u32,
    /// A profile page's one tree; a differential page's old and new mean
    /// per metric, in turn.
    trees: Vec<SourceTree>,
    /// Groups of callers narrower than this share of the total go to
    /// `(narrower callers)` (see `analysis::shapes::bottom_up`).
    min_fraction: f64,
    /// Name index of the root's label.
    all: usize,
    /// For a differential page: whether each version's values are divided
    /// by its total (`[flame] diff_normalise`).
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<DiffSource>,
    /// For an aggregate page: per metric, the profiles merged, as
    /// `[tree, metric of that tree]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    agg: Option<Vec<Vec<(usize, usize)>>>,
    /// For a compare page's data (see `compare_page`): each frame's id in
    /// the site's shape frames, which orders same-named siblings when the
    /// frames of two versions' files are merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    ids: Option<Vec<u32>>,
}

/// What a page's trees stand for besides a profile page's one tree.
pub enum PageTrees {
    Profile,
    /// A differential page's old and new means of each metric in turn.
    Diff(DiffSource),
    /// An aggregate page's profiles (see [`ShapeSource`]'s `agg`).
    Aggregate(Vec<Vec<(usize, usize)>>),
}

/// How a differential page's trees are compared.
#[derive(Serialize)]
pub struct DiffSource {
    pub normalise: bool,
}

/// One tree: per node, in node order (parents first), its parent (-1 for
/// the root), its frame as an index into `kinds` (-1 for the root), and
/// per metric its own value divided by `scale`.
#[derive(Serialize)]
struct SourceTree {
    parent: Vec<i64>,
    kind: Vec<i64>,
    values: Vec<Vec<Number>>,
    scale: Vec<f64>,
}

/// Collects the trees of a page and the frames they use.
pub struct SourceBuilder<'a> {
    frames: &'a ShapeFrames,
    /// Whether the script derives other shapes (else a frame's function,
    /// file and module are the frame itself: no names for them).
    shapes: bool,
    shape: ShapeList,
    kind_of: HashMap<FrameId, i64>,
    kinds: Vec<(u32, u32, u32, u32)>,
    trees: Vec<SourceTree>,
    /// Whether the data names each frame's id (see [`ShapeSource`]).
    with_ids: bool,
}

impl<'a> SourceBuilder<'a> {
    pub fn new(frames: &'a ShapeFrames) -> SourceBuilder<'a> {
        Self::with_shapes(frames, true)
    }

    /// A builder for pages whose script draws the trees top-down only
    /// (aggregate pages).
    pub fn top_down(frames: &'a ShapeFrames) -> SourceBuilder<'a> {
        Self::with_shapes(frames, false)
    }

    fn with_shapes(frames: &'a ShapeFrames, shapes: bool) -> SourceBuilder<'a> {
        let mut shape = ShapeList::default();
        // The stand-ins first: indices 0 and 1.
        shape.add(frames.no_stack);
        shape.add(frames.narrow);
        SourceBuilder {
            frames,
            shapes,
            shape,
            kind_of: HashMap::new(),
            kinds: Vec::new(),
            trees: Vec::new(),
            with_ids: false,
        }
    }

    /// A builder whose data names each frame's id (compare pages' data).
    pub fn with_ids(frames: &'a ShapeFrames) -> SourceBuilder<'a> {
        SourceBuilder {
            with_ids: true,
            ..Self::with_shapes(frames, true)
        }
    }

    /// Adds `tree` (the next of the page's trees); its index.
    pub fn add(&mut self, tree: &CallTree) -> usize {
        let mut parent = Vec::with_capacity(tree.len());
        let mut kind = Vec::with_capacity(tree.len());
        for node in tree.node_ids() {
            parent.push(tree.parent(node).map_or(-1, |p| p.index() as i64));
            kind.push(match tree.frame(node) {
                None => -1,
                Some(f) => self.kind(f),
            });
        }
        let (values, scale) = (0..tree.metric_count())
            .map(|m| scaled_self_values(tree, m))
            .unzip();
        self.trees.push(SourceTree {
            parent,
            kind,
            values,
            scale,
        });
        self.trees.len() - 1
    }

    fn kind(&mut self, f: FrameId) -> i64 {
        if let Some(&k) = self.kind_of.get(&f) {
            return k;
        }
        let frames = self.frames;
        let itself = self.shape.add(f);
        self.kinds.push(match self.shapes {
            true => (
                self.shape.add(frames.function(f)),
                self.shape.add(frames.file(f)),
                self.shape.add(frames.module(f)),
                itself,
            ),
            false => (itself, itself, itself, itself),
        });
        let k = self.kinds.len() as i64 - 1;
        self.kind_of.insert(f, k);
        k
    }

    /// The page data. Names and locations go into `tables`, with their
    /// source and editor links from `link` (as
    /// `code_links::CodeLinks::of` makes them).
    pub fn finish(
        self,
        min_fraction: f64,
        kind: PageTrees,
        tables: &mut Tables,
        link: impl Fn(FrameId) -> LocationLinks,
    ) -> ShapeSource {
        let (frames, rank) = self.shape.rows(self.frames, tables, &link);
        let at = |i: u32| rank[i as usize];
        let ids = self.with_ids.then(|| {
            let mut ids = vec![0u32; rank.len()];
            for (i, &r) in rank.iter().enumerate() {
                ids[r as usize] = self.shape.ids[i].0;
            }
            ids
        });
        ShapeSource {
            frames,
            kinds: self
                .kinds
                .iter()
                .map(|&(f, file, module, itself)| (at(f), at(file), at(module), at(itself)))
                .collect(),
            // The stand-ins were added first.
            no_stack: at(0),
            narrow: at(1),
            trees: self.trees,
            min_fraction,
            all: tables.name("all".to_string()),
            diff: match &kind {
                PageTrees::Diff(d) => Some(DiffSource {
                    normalise: d.normalise,
                }),
                _ => None,
            },
            agg: match kind {
                PageTrees::Aggregate(a) => Some(a),
                _ => None,
            },
            ids,
        }
    }
}

/// The page data standing for a profile page's `tree` (see
/// [`SourceBuilder::finish`]).
pub fn build(
    tree: &CallTree,
    frames: &ShapeFrames,
    min_fraction: f64,
    tables: &mut Tables,
    link: impl Fn(FrameId) -> LocationLinks,
) -> ShapeSource {
    let mut builder = SourceBuilder::new(frames);
    builder.add(tree);
    builder.finish(min_fraction, PageTrees::Profile, tables, link)
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

    /// `[name, location]` of each in sibling order (by name, then frame
    /// id, as `analysis::flame` orders siblings), and each one's place in
    /// that order. Names and locations are interned as `flame_view`
    /// interns a drawn frame's, in first-seen order.
    fn rows(
        &self,
        frames: &ShapeFrames,
        tables: &mut Tables,
        link: &impl Fn(FrameId) -> LocationLinks,
    ) -> (Vec<(usize, usize)>, Vec<u32>) {
        let table = &frames.table;
        let interned: Vec<(usize, usize)> = self
            .ids
            .iter()
            .map(|&f| {
                let frame = table.get(f);
                let name =
                    tables.name_with_full(frame.function.clone(), frame.full_name.as_deref());
                let location = || frame.location().unwrap_or_default();
                (name, tables.frame_location(Some(f), location, || link(f)))
            })
            .collect();
        let mut by_order: Vec<usize> = (0..self.ids.len()).collect();
        by_order.sort_by(|&a, &b| {
            let (fa, fb) = (self.ids[a], self.ids[b]);
            table
                .get(fa)
                .function
                .cmp(&table.get(fb).function)
                .then_with(|| fa.cmp(&fb))
        });
        let mut rank = vec![0u32; self.ids.len()];
        for (r, &i) in by_order.iter().enumerate() {
            rank[i] = r as u32;
        }
        (by_order.iter().map(|&i| interned[i]).collect(), rank)
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
        let tree = &json["trees"][0];
        assert_eq!(tree["parent"], serde_json::json!([-1, 0, 1]));
        assert_eq!(tree["kind"], serde_json::json!([-1, 0, 1]));
        assert_eq!(tree["values"], serde_json::json!([[0, 1, 3]]));
        assert_eq!(tree["scale"], serde_json::json!([1e7]));
        // In sibling order: "(narrower callers)" 0, "(no stack)" 1, "/app"
        // 2, "/app/m.py" 3, "main" (the profile's frame 4, then its
        // function 5), "work" (6, 7). Per frame: its function, file, module
        // and itself.
        assert_eq!(
            (json["no_stack"].as_u64(), json["narrow"].as_u64()),
            (Some(1), Some(0))
        );
        assert_eq!(
            json["kinds"],
            serde_json::json!([[5, 3, 2, 4], [7, 3, 2, 6]])
        );
        let (names, locations, _) = tables.into_parts();
        let name = |k: usize| names[json["frames"][k][0].as_u64().unwrap() as usize].clone();
        let named: Vec<String> = (0..8).map(name).collect();
        assert_eq!(
            named,
            [
                "(narrower callers)",
                "(no stack)",
                "/app",
                "/app/m.py",
                "main",
                "main",
                "work",
                "work"
            ]
        );
        let location =
            |k: usize| locations[json["frames"][k][1].as_u64().unwrap() as usize].clone();
        // A function frame has no line: its location is the file.
        assert_eq!(
            (location(4), location(5)),
            ("/app/m.py:3".into(), "/app/m.py".into())
        );
    }
}
