//! A page's views for its script: pages that show one thing in several
//! metrics and shapes (profile and differential pages) write their default
//! view as HTML, readable without JavaScript, and every view as data in
//! `<script type="application/json" id="pa-views">`, which
//! `assets/perfatlas.js` draws when the URL fragment asks for a view
//! (`#metric=samples&shape=bottom-up`). Names, locations and tree tables
//! are stored once per page.

use std::collections::HashMap;

use serde::Serialize;

use super::flame_view::{FrameRow, ScriptGraph, Tables};
use super::profile_page::Shape;
use super::tree_table::{self, ScriptTable, TableView};
use crate::Link;

/// One view: a metric in a shape.
#[derive(Serialize)]
pub struct ScriptView {
    pub metric: usize,
    pub shape: &'static str,
    /// The page title and the heading's "in 3.7, bottom-up".
    pub title: String,
    pub heading: String,
    pub graphs: Vec<ScriptGraph>,
    /// Index into the tree tables; -1 for the one written as HTML.
    pub table: i64,
}

/// Every view of a page; names and locations are indices into `names`
/// and `locations`, which every graph and table share.
#[derive(Serialize)]
struct ScriptViews {
    names: Vec<String>,
    locations: Vec<String>,
    /// Per location: its source page and its editor link, the latter ""
    /// when the script makes it from `editor` and the location, "-" for
    /// none.
    links: Vec<(String, String)>,
    #[serde(skip_serializing_if = "String::is_empty")]
    editor: String,
    /// Metric slugs, as the fragment names them.
    metrics: Vec<String>,
    views: Vec<ScriptView>,
    /// The tree tables the script writes (views with the same table share
    /// it).
    tables: Vec<ScriptTable>,
    /// Graphs' frames, each list once: proportional metrics (a sampled
    /// profile's time and samples) lay out the same frames with the same
    /// values once scaled (see `PageData::scale`).
    frames: Vec<Vec<FrameRow>>,
}

/// The links of a page's metric switch (`#metric=…`), the first current.
pub fn metric_links<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Link> {
    names
        .into_iter()
        .enumerate()
        .map(|(m, name)| Link {
            label: name.to_string(),
            href: format!("#metric={}", super::paths::slug(name)),
            current: m == 0,
        })
        .collect()
}

/// The links of a page's shape switch (`#shape=…`), top-down current.
pub fn shape_links() -> Vec<Link> {
    Shape::ALL
        .iter()
        .map(|&s| Link {
            label: s.name().to_string(),
            href: format!("#shape={}", s.name()),
            current: s == Shape::TopDown,
        })
        .collect()
}

/// Collects a page's views.
pub struct Views {
    pub tables: Tables,
    metrics: Vec<String>,
    views: Vec<ScriptView>,
    script_tables: Vec<ScriptTable>,
    seen: HashMap<String, usize>,
    frames: Vec<Vec<FrameRow>>,
    seen_frames: HashMap<String, usize>,
}

impl Views {
    /// Views of `metrics` (their names, in the page's order), editor links
    /// made from `editor` (the `[flame] editor` template).
    pub fn new<'a>(metrics: impl IntoIterator<Item = &'a str>, editor: &str) -> Views {
        Views {
            tables: Tables::with_editor(editor),
            metrics: metrics.into_iter().map(super::paths::slug).collect(),
            views: Vec::new(),
            script_tables: Vec::new(),
            seen: HashMap::new(),
            frames: Vec::new(),
            seen_frames: HashMap::new(),
        }
    }

    /// Whether `(metric, shape)` is the view written as HTML.
    pub fn is_default(metric: usize, shape: Shape) -> bool {
        metric == 0 && shape == Shape::TopDown
    }

    /// The index of a tree table the script writes, added unless an
    /// identical one is there.
    pub fn table(&mut self, table: TableView) -> i64 {
        let table = tree_table::script_table(table, &mut self.tables);
        let key = serde_json::to_string(&table).unwrap_or_default();
        let next = self.script_tables.len();
        let at = *self.seen.entry(key).or_insert(next);
        if at == next {
            self.script_tables.push(table);
        }
        at as i64
    }

    /// Adds a view, its graphs' frames to the shared list.
    pub fn push(&mut self, mut view: ScriptView) {
        for graph in &mut view.graphs {
            graph.data.share_frames(|frames| {
                let key = serde_json::to_string(&frames).unwrap_or_default();
                let next = self.frames.len();
                let at = *self.seen_frames.entry(key).or_insert(next);
                if at == next {
                    self.frames.push(frames);
                }
                at
            });
        }
        self.views.push(view);
    }

    /// The body of the page's `#pa-views` script element.
    pub fn into_json(self) -> String {
        let editor = self.tables.editor().to_string();
        let (names, locations, links) = self.tables.into_parts();
        super::json_for_script(&ScriptViews {
            names,
            locations,
            links,
            editor,
            metrics: self.metrics,
            views: self.views,
            tables: self.script_tables,
            frames: self.frames,
        })
    }
}
