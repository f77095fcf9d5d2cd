//! A page's views for its script: pages that show one thing in several
//! metrics and shapes (profile and differential pages) write their default
//! view as HTML, readable without JavaScript, and every view as data in
//! `<script type="application/json" id="pa-views">`, which
//! `assets/flame.js` draws when the URL fragment asks for a view
//! (`#metric=samples&shape=bottom-up`). Names, locations and tree tables
//! are stored once per page. Pages of small trees store the trees instead
//! of most views' frames and tables, and `assets/shapes.js` derives them
//! (see [`super::shape_source`]).

use std::collections::HashMap;

use serde::Serialize;

use super::flame_plan::Shape;
use super::flame_view::{FrameRow, Number, ScriptGraph, Tables};
use super::shape_source::ShapeSource;
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
    /// Each name's full name ("" for none; see `model::Frame::full_name`),
    /// absent when no name has one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    full: Vec<String>,
    /// Directories that two or more locations share.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    dirs: Vec<String>,
    /// Each location whole, or as `[directory, rest]`.
    locations: Vec<Location>,
    /// Per location: its source page and its editor link, the latter ""
    /// when the script makes it from `editor` and the location, "-" for
    /// none.
    links: Vec<crate::code_links::LocationLinks>,
    #[serde(skip_serializing_if = "String::is_empty")]
    editor: String,
    /// Metric slugs, as the fragment names them.
    metrics: Vec<String>,
    views: Vec<ScriptView>,
    /// The tree tables the script writes (views with the same table share
    /// it; a table that differs from an earlier one only in its sort
    /// column refers to it).
    tables: Vec<TableEntry>,
    /// Graphs' frames, each list once: proportional metrics (a sampled
    /// profile's time and samples) lay out the same frames with the same
    /// values once scaled (see `PageData::scale`).
    frames: Vec<FramesEntry>,
    /// The profile's tree, when the script derives the bottom-up and flat
    /// graphs from it (see [`super::shape_source`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    tree: Option<ShapeSource>,
    /// A repetition's views on its aggregate page: how many names and
    /// locations of the page's own tables come before these (which hold
    /// only the ones added after them), and which of the page's stored
    /// trees is the repetition's (the page's shape frames serve it too).
    #[serde(skip_serializing_if = "Option::is_none")]
    base: Option<(usize, usize)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    page_tree: Option<usize>,
    /// A repetition's heaviest functions per metric, which the script
    /// writes (see `profile_page::ScriptTop`).
    #[serde(skip_serializing_if = "Option::is_none")]
    heaviest: Option<serde_json::Value>,
}

/// A graph's frames, or the values of frames laid out like another list's
/// (the same parents, names, locations and colours: a profile's time and
/// samples metrics, which are nearly proportional, mostly draw the same
/// frames with other widths): `values` holds each frame's self and total
/// value in turn.
#[derive(Serialize)]
#[serde(untagged)]
enum FramesEntry {
    Rows(Vec<FrameRow>),
    Like {
        like: usize,
        #[serde(rename = "v")]
        values: Vec<Number>,
    },
}

/// What two frame lists must share for one to be stored as the other's
/// values: everything but the values.
fn frames_shape(frames: &[FrameRow]) -> String {
    let shape: Vec<(i64, usize, usize, i8)> = frames.iter().map(|f| (f.0, f.1, f.2, f.5)).collect();
    serde_json::to_string(&shape).unwrap_or_default()
}

/// A tree table of a page's views, or one that has another's caption,
/// columns and rows but is sorted by another column: the tables of a
/// sampled profile's time and samples metrics, which are proportional.
/// Their merged rows differ: each carries only its own table's pruning
/// column, so `merged` says where to move that value and what to divide
/// it by (`[from column, to column, divisor]`), exactly.
#[derive(Serialize)]
#[serde(untagged)]
enum TableEntry {
    Table(ScriptTable),
    Like {
        like: usize,
        sorted_by: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        merged: Option<(usize, usize, f64)>,
    },
    /// A bottom-up or flat table whose rows the script derives from the
    /// profile's tree (see [`super::shape_source`]); `rows` is empty
    /// unless a test asked for both.
    Derived {
        #[serde(flatten)]
        table: ScriptTable,
        derive: TableDerive,
    },
}

/// Which table the script derives: the shape's, pruned by `metric`'s
/// inclusive value.
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
pub struct TableDerive {
    pub shape: &'static str,
    pub metric: usize,
}

/// A location as the page stores it: whole, or as an index into the
/// page's shared directories and the rest (from the last `/` on), which
/// the script joins again.
#[derive(Serialize)]
#[serde(untagged)]
enum Location {
    Whole(String),
    InDir(usize, String),
}

/// Splits off the directories that more than one location has: a
/// profile's locations are a few long install paths (a virtualenv's
/// `site-packages`, a versioned package folder) repeated for every line.
fn share_directories(locations: Vec<String>) -> (Vec<String>, Vec<Location>) {
    let dir_of = |l: &str| l.rfind('/').filter(|&i| i > 0).map(|i| l[..i].to_string());
    let mut count: HashMap<String, usize> = HashMap::new();
    for dir in locations.iter().filter_map(|l| dir_of(l)) {
        *count.entry(dir).or_default() += 1;
    }
    let mut dirs = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let locations = locations
        .into_iter()
        .map(|l| match dir_of(&l).filter(|d| count[d] > 1) {
            Some(dir) => {
                let rest = l[dir.len()..].to_string();
                let next = dirs.len();
                let at = *index.entry(dir.clone()).or_insert(next);
                if at == next {
                    dirs.push(dir);
                }
                Location::InDir(at, rest)
            }
            None => Location::Whole(l),
        })
        .collect();
    (dirs, locations)
}

/// The first cell of a table row (after parent, depth, name, location and
/// the merged flag).
const FIRST_CELL: usize = 5;

/// A row's cells with the merged rows' values blank, for comparing tables
/// that differ only in which column their merged rows carry.
fn without_merged_values(table: &ScriptTable) -> Vec<Vec<serde_json::Value>> {
    table
        .rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if r.get(FIRST_CELL - 1) == Some(&1.into()) {
                for c in r.iter_mut().skip(FIRST_CELL) {
                    if c.is_number() {
                        *c = "".into();
                    }
                }
            }
            r
        })
        .collect()
}

/// How `table`'s merged rows follow from `base`'s: the one numbered cell
/// of each moves from one column to another and is divided by one number
/// (`Some(None)` when they carry the same values). `None` when no such
/// rule gives `table`'s values exactly.
fn merged_rule(base: &ScriptTable, table: &ScriptTable) -> Option<Option<(usize, usize, f64)>> {
    let mut rule: Option<(usize, usize, f64)> = None;
    for (b, t) in base.rows.iter().zip(&table.rows) {
        if b == t {
            continue;
        }
        let numbered = |r: &[serde_json::Value]| -> Option<(usize, f64)> {
            let mut cells = r
                .iter()
                .enumerate()
                .skip(FIRST_CELL)
                .filter(|(_, c)| c.is_number());
            let (k, v) = cells.next()?;
            cells
                .next()
                .is_none()
                .then(|| (k - FIRST_CELL, v.as_f64().unwrap_or(f64::NAN)))
        };
        let ((from, bv), (to, tv)) = (numbered(b)?, numbered(t)?);
        let divisor = match rule {
            Some((f, t, d)) if (f, t) == (from, to) => d,
            Some(_) => return None,
            None if tv != 0.0 && bv != 0.0 => bv / tv,
            None => return None,
        };
        if bv / divisor != tv || !divisor.is_finite() {
            return None;
        }
        rule = Some((from, to, divisor));
    }
    Some(rule)
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
    script_tables: Vec<TableEntry>,
    /// Tables by their JSON without sort column and merged rows' values
    /// (the first with that key), and every entry by its JSON.
    seen: HashMap<String, usize>,
    seen_entries: HashMap<String, usize>,
    frames: Vec<FramesEntry>,
    seen_frames: HashMap<String, usize>,
    /// Frame lists stored whole, by [`frames_shape`].
    seen_shapes: HashMap<String, usize>,
    tree: Option<ShapeSource>,
    /// Names and locations of a page's own tables these views extend.
    base: Option<(usize, usize)>,
    page_tree: Option<usize>,
    heaviest: Option<serde_json::Value>,
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
            seen_entries: HashMap::new(),
            frames: Vec::new(),
            seen_frames: HashMap::new(),
            seen_shapes: HashMap::new(),
            tree: None,
            base: None,
            page_tree: None,
            heaviest: None,
        }
    }

    /// Views that extend `tables`, another view set's of the same page (a
    /// repetition's on its aggregate page): their names and locations keep
    /// their indices, and only the ones added after them are stored.
    pub fn extending<'a>(metrics: impl IntoIterator<Item = &'a str>, tables: Tables) -> Views {
        let mut views = Views::new(metrics, tables.editor());
        views.base = Some(tables.lengths());
        views.tables = tables;
        views
    }

    /// The script derives the graphs marked `derive` from tree `k` of the
    /// page's own stored trees (see [`Views::extending`]).
    pub fn set_page_tree(&mut self, k: usize) {
        self.page_tree = Some(k);
    }

    /// Heaviest functions the script writes (a repetition's, on its
    /// aggregate page).
    pub fn set_heaviest(&mut self, heaviest: serde_json::Value) {
        self.heaviest = Some(heaviest);
    }

    /// The tree the script derives graphs marked `derive` from.
    pub fn set_tree(&mut self, tree: ShapeSource) {
        self.tree = Some(tree);
    }

    /// Whether `(metric, shape)` is the view written as HTML.
    pub fn is_default(metric: usize, shape: Shape) -> bool {
        metric == 0 && shape == Shape::TopDown
    }

    /// The index of a tree table the script writes: an identical one
    /// already there, a reference to one that differs only in its sort
    /// column (and the column its merged rows carry), or the table added.
    pub fn table(&mut self, table: TableView) -> i64 {
        let table = tree_table::script_table(table, &mut self.tables);
        let key = serde_json::to_string(&(
            &table.caption,
            &table.columns,
            &table.merged_rows,
            &table.notes,
            &table.histogram_labels,
            without_merged_values(&table),
        ))
        .unwrap_or_default();
        let next = self.script_tables.len();
        let base = *self.seen.entry(key).or_insert(next);
        let like = match &self.script_tables.get(base) {
            Some(TableEntry::Table(b))
                if b.rows == table.rows && b.sorted_by == table.sorted_by =>
            {
                return base as i64;
            }
            Some(TableEntry::Table(b)) => merged_rule(b, &table).map(|merged| TableEntry::Like {
                like: base,
                sorted_by: table.sorted_by,
                merged,
            }),
            _ => None,
        };
        let entry = like.unwrap_or(TableEntry::Table(table));
        let entry_key = serde_json::to_string(&entry).unwrap_or_default();
        let next = self.script_tables.len();
        let at = *self.seen_entries.entry(entry_key).or_insert(next);
        if at == next {
            self.script_tables.push(entry);
        }
        at as i64
    }

    /// The index of a tree table the script derives from the profile's
    /// tree; its rows are stored too when `keep_rows` (for tests).
    /// See [`Views::derived_default_table`] for the one written as HTML.
    pub fn derived_table(
        &mut self,
        mut table: TableView,
        derive: TableDerive,
        keep_rows: bool,
    ) -> i64 {
        if !keep_rows {
            // Rows not stored intern no names (a differential table's
            // tagged names were a third of a page's names).
            table.rows.clear();
        }
        let table = tree_table::script_table(table, &mut self.tables);
        self.script_tables
            .push(TableEntry::Derived { table, derive });
        self.script_tables.len() as i64 - 1
    }

    /// The default view's table, which the page writes as HTML for readers
    /// without JavaScript (`html`, built with `tree_table::HTML_ROWS`) and
    /// the script writes again from the page's trees (`table`): the HTML,
    /// without sort keys, and the index of the derived table.
    pub fn derived_default_table(
        &mut self,
        (table, html): (TableView, TableView),
        derive: TableDerive,
        keep_rows: bool,
    ) -> (TableView, i64) {
        let html = TableView {
            script_writes: true,
            ..html
        };
        (html, self.derived_table(table, derive, keep_rows))
    }

    /// Adds a view, its graphs' frames to the shared list.
    pub fn push(&mut self, mut view: ScriptView) {
        for graph in &mut view.graphs {
            graph.data.share_frames(|frames| self.store_frames(frames));
        }
        self.views.push(view);
    }

    /// Where `frames` are in the shared list: an identical list already
    /// there, or a new entry, whole or as the values of a list of the
    /// same shape.
    fn store_frames(&mut self, frames: Vec<FrameRow>) -> usize {
        let key = serde_json::to_string(&frames).unwrap_or_default();
        let next = self.frames.len();
        let at = *self.seen_frames.entry(key).or_insert(next);
        if at != next {
            return at;
        }
        let shape = frames_shape(&frames);
        let entry = match self.seen_shapes.get(&shape) {
            Some(&like) => FramesEntry::Like {
                like,
                values: frames.iter().flat_map(|f| [f.3, f.4]).collect(),
            },
            None => {
                self.seen_shapes.insert(shape, next);
                FramesEntry::Rows(frames)
            }
        };
        self.frames.push(entry);
        next
    }

    /// The body of the page's `#pa-views` script element.
    pub fn into_json(self) -> String {
        let editor = self.tables.editor().to_string();
        let mut full = self.tables.full_names();
        let (mut names, mut locations, mut links) = self.tables.into_parts();
        if let Some((n, l)) = self.base {
            names.drain(..n.min(names.len()));
            full.drain(..n.min(full.len()));
            if full.iter().all(String::is_empty) {
                full.clear();
            }
            locations.drain(..l.min(locations.len()));
            links.drain(..l.min(links.len()));
        }
        let (dirs, locations) = share_directories(locations);
        super::json_for_script(&ScriptViews {
            names,
            full,
            dirs,
            locations,
            links,
            editor,
            metrics: self.metrics,
            views: self.views,
            tables: self.script_tables,
            frames: self.frames,
            tree: self.tree,
            base: self.base,
            page_tree: self.page_tree,
            heaviest: self.heaviest,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree_table::{Cell, Column, ColumnKind, Row};
    use model::Unit;
    use std::borrow::Cow;

    /// A table over time and samples (10 ms per sample): one row, then a
    /// merged row for each of `merged`, carrying it in column `merged_col`.
    fn table(sorted_by: usize, merged_col: usize, merged: &[f64]) -> TableView {
        let cell = |v: f64| Cell {
            text: format!("{v}"),
            value: v,
        };
        let blank = || Cell {
            text: String::new(),
            value: 0.0,
        };
        let row = |id: usize, merged_row: bool, cells: Vec<Cell>| Row {
            node: None,
            frame: None,
            id,
            parent: id as i64 - 1,
            depth: id as u32,
            name: format!("f{id}"),
            location: String::new(),
            location_title: None,
            href: None,
            method: None,
            links: Default::default(),
            merged: merged_row,
            cells,
            histogram_text: None,
            histogram: None,
        };
        let (ns, samples) = (Unit::Nanoseconds, Unit::Samples);
        let kinds = [("time", &ns), ("samples", &samples)]
            .into_iter()
            .map(|(heading, unit)| {
                ColumnKind::of(&Column {
                    heading: heading.to_string(),
                    values: Cow::Owned(Vec::new()),
                    unit,
                    percent_of: None,
                })
            })
            .collect();
        let mut rows = vec![row(0, false, vec![cell(50e6), cell(5.0)])];
        for (k, &v) in merged.iter().enumerate() {
            let mut cells = vec![blank(), blank()];
            cells[merged_col] = cell(v);
            rows.push(row(k + 1, true, cells));
        }
        TableView {
            id: "pa-table".to_string(),
            caption: "Tree table, bottom-up".to_string(),
            columns: vec!["time".to_string(), "samples".to_string()],
            rows,
            merged_rows: 3,
            sorted_by,
            notes: Vec::new(),
            histogram_labels: Vec::new(),
            kinds,
            script_writes: false,
            min_share: "0.2%".to_string(),
        }
    }

    fn entries(views: Views) -> serde_json::Value {
        serde_json::from_str::<serde_json::Value>(&views.into_json()).unwrap()["tables"].clone()
    }

    #[test]
    fn a_proportional_metric_s_table_refers_to_the_first_and_moves_merged_values() {
        let mut views = Views::new(["time", "samples"], "");
        assert_eq!(views.table(table(0, 0, &[30e6, 20e6])), 0);
        assert_eq!(views.table(table(1, 1, &[3.0, 2.0])), 1);
        assert_eq!(
            views.table(table(1, 1, &[3.0, 2.0])),
            1,
            "the same entry again"
        );
        assert_eq!(
            views.table(table(0, 0, &[30e6, 20e6])),
            0,
            "the first again"
        );
        let tables = entries(views);
        assert_eq!(tables[1]["like"], 0);
        assert_eq!(tables[1]["sorted_by"], 1);
        assert_eq!(tables[1]["merged"], serde_json::json!([0, 1, 10_000_000]));
        assert!(tables[1].get("rows").is_none());
    }

    #[test]
    fn shared_directories_are_stored_once_and_single_ones_whole() {
        let (dirs, locations) = share_directories(vec![
            String::new(),
            "/venv/site-packages/markdown/core.py:26".to_string(),
            "/venv/site-packages/markdown/util.py:33".to_string(),
            "<frozen importlib._bootstrap>:1176".to_string(),
            "/usr/lib/python3.11/re.py:5".to_string(),
            "/x.py:1".to_string(),
        ]);
        assert_eq!(dirs, ["/venv/site-packages/markdown"]);
        let json = serde_json::to_string(&locations).unwrap();
        assert_eq!(
            json,
            r#"["",[0,"/core.py:26"],[0,"/util.py:33"],"<frozen importlib._bootstrap>:1176","/usr/lib/python3.11/re.py:5","/x.py:1"]"#
        );
    }

    #[test]
    fn merged_values_that_do_not_divide_exactly_keep_their_own_table() {
        let mut views = Views::new(["time", "samples"], "");
        views.table(table(0, 0, &[30e6, 20e6]));
        // 30 ms is 3 samples, so 20 ms would be 2: 2.1 follows no rule,
        // and the table is written whole.
        assert_eq!(views.table(table(1, 1, &[3.0, 2.1])), 1);
        let tables = entries(views);
        assert!(tables[1].get("like").is_none());
        assert_eq!(tables[1]["rows"][2][6], 2.1);
    }

    #[test]
    fn frames_laid_out_alike_are_stored_as_values_of_the_first() {
        let row = |p: i64, n: usize, s: f64, t: f64| (p, n, 0, Number(s), Number(t), 1i8);
        let mut views = Views::new(["time", "samples"], "");
        let time = vec![row(-1, 0, 0.0, 30.0), row(0, 1, 30.0, 30.0)];
        let samples = vec![row(-1, 0, 0.0, 3.0), row(0, 1, 3.0, 3.0)];
        let other = vec![row(-1, 0, 0.0, 3.0), row(0, 2, 3.0, 3.0)];
        assert_eq!(views.store_frames(time.clone()), 0);
        assert_eq!(views.store_frames(samples), 1);
        assert_eq!(
            views.store_frames(time),
            0,
            "identical lists are stored once"
        );
        assert_eq!(
            views.store_frames(other),
            2,
            "another frame is another shape"
        );
        let json = serde_json::to_value(&views.frames).unwrap();
        assert_eq!(json[1], serde_json::json!({"like": 0, "v": [0, 3, 3, 3]}));
        assert_eq!(json[2][1][1], 2);
    }
}
