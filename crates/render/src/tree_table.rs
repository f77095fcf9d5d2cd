//! Tree tables (EasyView section VI-A-c): one row per calling context in
//! pre-order, indented by depth, one column per value, expandable and
//! sortable by the page script and complete without it. Rows follow the
//! flame-graph budget rules: contexts too small to matter are merged into
//! one "merged" row per parent that keeps the sorted column's value.
//! Siblings come heaviest first by that column, the merged row last, so
//! the row a reader looks for is at the top of every level.

use std::borrow::Cow;

use serde::Serialize;

use super::code_links::{CodeLinks, LocationLinks};
use super::flame_svg;
use super::format::{percent, with_unit};
use analysis::flame::{self, FlameBudget};
use model::{CallTree, FrameId, FrameTable, NodeId, Unit};

/// Most rows of one table.
pub const MAX_ROWS: usize = 600;

/// Which contexts a table shows row by row: at most `max_rows`, none
/// below `min_share` of the total; the others are merged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowBudget {
    pub max_rows: usize,
    pub min_share: f64,
}

/// Tables the script writes, and tables written as HTML only.
pub const ROWS: RowBudget = RowBudget {
    max_rows: MAX_ROWS,
    min_share: 0.002,
};

/// The HTML of a table the script writes again from the page's trees
/// (`TableView::script_writes`): it is for readers without JavaScript,
/// whose flame graph above still has every context; at 0.2% it was a
/// sixth of a page's weight.
pub const HTML_ROWS: RowBudget = RowBudget {
    max_rows: MAX_ROWS,
    min_share: 0.01,
};

/// One column: a heading and a value per node of the tree.
pub struct Column<'a> {
    pub heading: String,
    pub values: Cow<'a, [f64]>,
    pub unit: &'a Unit,
    /// Percentages are of this; none shown when `None`.
    pub percent_of: Option<f64>,
}

#[derive(Serialize, Clone)]
pub struct TableView {
    pub id: String,
    pub caption: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub merged_rows: usize,
    /// The column siblings are sorted by, heaviest first.
    pub sorted_by: usize,
    /// Sentences shown under the table (derived-metric formulas).
    pub notes: Vec<String>,
    /// What the rows' histograms' bars are (one per profile), if any.
    pub histogram_labels: Vec<String>,
    /// How each value column is written, for a table the script writes.
    #[serde(skip)]
    pub kinds: Vec<ColumnKind>,
    /// The page's script writes this table again from the page's trees
    /// (see `shape_source`): the HTML is for readers without JavaScript,
    /// without sort keys.
    pub script_writes: bool,
    /// The share below which contexts are merged, as the page says it
    /// ("0.2%").
    pub min_share: String,
}

#[derive(Serialize, Clone)]
pub struct Row {
    /// The tree node shown (`None` for a merged row).
    #[serde(skip)]
    pub node: Option<NodeId>,
    /// Its frame (`None` for the root and merged rows).
    #[serde(skip)]
    pub frame: Option<FrameId>,
    pub id: usize,
    pub parent: i64,
    pub depth: u32,
    pub name: String,
    /// The location as pages show it ([`crate::display_names`]).
    pub location: String,
    /// The location as the profile wrote it, for the tooltip, when that
    /// differs.
    pub location_title: Option<String>,
    /// Source page of the location, relative to the page.
    pub href: Option<String>,
    /// The function's method section, relative to the page, when the
    /// page links it.
    pub method: Option<String>,
    /// Every link of the row's frame, as the page's graphs link it.
    #[serde(skip)]
    pub links: LocationLinks,
    pub merged: bool,
    pub cells: Vec<Cell>,
    /// The row's value in each profile, as text (`12 · 9 · 14`): the
    /// page script draws it as a histogram (see [`histogram_text`]).
    pub histogram_text: Option<String>,
    /// The values of that histogram, for a table the script writes.
    #[serde(skip)]
    pub histogram: Option<Vec<f64>>,
}

#[derive(Serialize, Clone)]
pub struct Cell {
    pub text: String,
    /// Sort key.
    pub value: f64,
}

/// Builds the rows of `tree` (the table's id is `pa-table`), pruned by the
/// inclusive values of `metric` (given with them when the caller has
/// them), which `columns[pruned_by]` shows (merged rows carry only that
/// value).
///
/// Without `listed`, for a table the page's script writes from the page's
/// trees and whose rows the page does not store (see
/// `Views::derived_table`), the table has no rows: its columns and count
/// of merged rows are the same, and none of the rows' names, links and
/// formatted cells are made.
pub fn build(
    caption: String,
    tree: &CallTree,
    frames: &FrameTable,
    (metric, inclusive): (usize, Option<&[f64]>),
    columns: &[Column],
    pruned_by: usize,
    (code, row_budget, listed, sizes): Listing,
) -> TableView {
    let graph = row_layout(tree, frames, (metric, inclusive), row_budget, sizes);
    let rows = match listed {
        true => rows_of(&graph, frames, (columns, pruned_by), code),
        false => Vec::new(),
    };
    table_view(caption, columns, rows, (&graph, pruned_by), row_budget)
}

/// What a table lists and with what: code links, the row budget, whether
/// its rows are listed, and the subtree sizes of its tree when its other
/// layouts compute them too.
pub type Listing<'a> = (
    Option<&'a CodeLinks<'a>>,
    RowBudget,
    bool,
    Option<&'a flame::SubtreeSizes<'a>>,
);

/// The nodes a table of `row_budget` lists: a flame-graph layout with
/// rows for boxes.
fn row_layout(
    tree: &CallTree,
    frames: &FrameTable,
    (metric, inclusive): (usize, Option<&[f64]>),
    row_budget: RowBudget,
    sizes: Option<&flame::SubtreeSizes>,
) -> flame::FlameGraph {
    let budget = FlameBudget {
        max_frames: row_budget.max_rows,
        min_fraction: row_budget.min_share,
    };
    match inclusive {
        Some(inclusive) => flame::layout_sharing(tree, frames, (metric, inclusive), budget, sizes),
        None => flame::layout(tree, frames, metric, budget),
    }
}

/// The rows of `graph`'s boxes, heaviest first among siblings.
fn rows_of(
    graph: &flame::FlameGraph,
    frames: &FrameTable,
    (columns, pruned_by): (&[Column], usize),
    code: Option<&CodeLinks>,
) -> Vec<Row> {
    let order = heaviest_first(&graph.rects);
    let mut row_of = vec![0usize; order.len()];
    for (row, &rect) in order.iter().enumerate() {
        row_of[rect] = row;
    }
    order
        .iter()
        .enumerate()
        .map(|(i, &at)| {
            let r = &graph.rects[at];
            let location = r
                .frame
                .and_then(|f| frames.get(f).location())
                .unwrap_or_default();
            let cells = columns
                .iter()
                .enumerate()
                .map(|(k, c)| match r.node {
                    Some(n) => cell(c.values[n.index()], c),
                    None if k == pruned_by => cell(r.total, c),
                    None => Cell {
                        text: String::new(),
                        value: 0.0,
                    },
                })
                .collect();
            let links = match (code, r.frame) {
                (Some(code), Some(f)) => code.of(frames, f),
                _ => LocationLinks::default(),
            };
            Row {
                node: r.node,
                frame: r.frame,
                id: i,
                parent: r.parent.map_or(-1, |p| row_of[p] as i64),
                depth: r.depth,
                name: flame_svg::frame_label(frames, r),
                location: crate::display_names::shown_file(&location).into_owned(),
                location_title: Some(location.clone())
                    .filter(|l| *l != crate::display_names::shown_file(l)),
                href: Some(links.source.clone()).filter(|h| !h.is_empty()),
                method: Some(links.method.clone()).filter(|h| !h.is_empty()),
                links,
                merged: r.node.is_none(),
                cells,
                histogram_text: None,
                histogram: None,
            }
        })
        .collect()
}

/// The table of `rows`, laid out as `graph` (its merged boxes are the
/// table's merged rows).
fn table_view(
    caption: String,
    columns: &[Column],
    rows: Vec<Row>,
    (graph, pruned_by): (&flame::FlameGraph, usize),
    row_budget: RowBudget,
) -> TableView {
    TableView {
        id: "pa-table".to_string(),
        caption,
        columns: columns.iter().map(|c| c.heading.clone()).collect(),
        rows,
        merged_rows: graph.merged_nodes,
        sorted_by: pruned_by,
        notes: Vec::new(),
        histogram_labels: Vec::new(),
        kinds: columns.iter().map(ColumnKind::of).collect(),
        script_writes: false,
        min_share: format!("{}%", row_budget.min_share * 100.0),
    }
}

/// The rectangles of a layout in table order: pre-order, siblings by
/// their value, heaviest first (ties in layout order), merged boxes last.
fn heaviest_first(rects: &[flame::FlameRect]) -> Vec<usize> {
    let parents: Vec<Option<usize>> = rects.iter().map(|r| r.parent).collect();
    let merged: Vec<bool> = rects.iter().map(|r| r.node.is_none()).collect();
    let values: Vec<f64> = rects.iter().map(|r| r.total).collect();
    sibling_order(&parents, &merged, &values)
}

/// Pre-order of a tree given by `parents`, siblings by `values` heaviest
/// first (ties in their first order), `merged` ones last.
fn sibling_order(parents: &[Option<usize>], merged: &[bool], values: &[f64]) -> Vec<usize> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); parents.len()];
    let mut roots = Vec::new();
    for (i, p) in parents.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    for kids in &mut children {
        kids.sort_by(|&a, &b| {
            merged[a]
                .cmp(&merged[b])
                .then(values[b].total_cmp(&values[a]))
        });
    }
    let mut order = Vec::with_capacity(parents.len());
    // Explicit stack: deep trees must not recurse.
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        stack.extend(children[i].iter().rev());
    }
    order
}

impl TableView {
    /// Orders siblings by `column` instead, heaviest first, merged rows
    /// last: the bottom-up table reads by where time is spent (exclusive)
    /// though it is pruned by the inclusive value.
    pub fn sort_by(&mut self, column: usize) {
        let parents: Vec<Option<usize>> = self
            .rows
            .iter()
            .map(|r| usize::try_from(r.parent).ok())
            .collect();
        let merged: Vec<bool> = self.rows.iter().map(|r| r.merged).collect();
        let values: Vec<f64> = self
            .rows
            .iter()
            .map(|r| r.cells.get(column).map_or(0.0, |c| c.value))
            .collect();
        let order = sibling_order(&parents, &merged, &values);
        let mut row_of = vec![0usize; order.len()];
        for (row, &old) in order.iter().enumerate() {
            row_of[old] = row;
        }
        let mut old_rows: Vec<Option<Row>> = std::mem::take(&mut self.rows)
            .into_iter()
            .map(Some)
            .collect();
        self.rows = order
            .iter()
            .enumerate()
            .filter_map(|(i, &old)| {
                let mut row = old_rows[old].take()?;
                row.id = i;
                row.parent = usize::try_from(row.parent).map_or(-1, |p| row_of[p] as i64);
                Some(row)
            })
            .collect();
        self.sorted_by = column;
    }
}

/// What the page script needs to write a column's cells.
#[derive(Serialize, Clone)]
pub struct ColumnKind {
    heading: String,
    unit: String,
    /// Percentages are of this; none shown when `None`.
    of: Option<f64>,
}

impl ColumnKind {
    pub fn of(c: &Column) -> ColumnKind {
        ColumnKind {
            heading: c.heading.clone(),
            unit: c.unit.name().to_string(),
            of: c.percent_of,
        }
    }
}

/// A tree table for the page script to write (a view not shown without
/// JavaScript): rows as `[parent, depth, name, location, merged, cells…]`,
/// names and locations being indices into the page's shared tables,
/// merged 1 for a row of merged contexts, else 0, and each cell a
/// number the script formats as [`cell`] does, `"n/a"` or `""`; then, when
/// the table has histograms, the row's histogram values (or null).
#[derive(Serialize)]
pub struct ScriptTable {
    pub(crate) caption: String,
    pub(crate) columns: Vec<ColumnKind>,
    pub(crate) merged_rows: usize,
    pub(crate) sorted_by: usize,
    pub(crate) notes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) histogram_labels: Vec<String>,
    pub(crate) rows: Vec<Vec<serde_json::Value>>,
}

/// `table` as data, its names and locations in `tables` (whose links
/// the rows' source links are).
pub fn script_table(table: TableView, tables: &mut super::flame_view::Tables) -> ScriptTable {
    let has_histograms = !table.histogram_labels.is_empty();
    let rows = table
        .rows
        .into_iter()
        .map(|r| {
            // The data keeps the location as profiled (the frames' own,
            // which the page's flame graphs, editor links and derived
            // tables use); the short form is for the HTML rows.
            let profiled = r.location_title.unwrap_or(r.location);
            let loc = tables.frame_location(r.frame, || profiled, || r.links);
            let merged = u8::from(r.merged);
            let mut row: Vec<serde_json::Value> = vec![
                r.parent.into(),
                r.depth.into(),
                tables.name(r.name).into(),
                loc.into(),
                merged.into(),
            ];
            row.extend(r.cells.into_iter().map(|c| match c.text.as_str() {
                "" | "n/a" => c.text.into(),
                _ => super::flame_view::number_json(c.value),
            }));
            if has_histograms {
                row.push(match r.histogram {
                    Some(values) => values
                        .into_iter()
                        .map(super::flame_view::number_json)
                        .collect(),
                    None => serde_json::Value::Null,
                });
            }
            row
        })
        .collect();
    ScriptTable {
        caption: table.caption,
        merged_rows: table.merged_rows,
        sorted_by: table.sorted_by,
        notes: table.notes,
        histogram_labels: table.histogram_labels,
        columns: table.kinds,
        rows,
    }
}

fn cell(v: f64, c: &Column) -> Cell {
    if v.is_nan() {
        return Cell {
            text: "n/a".to_string(),
            value: 0.0,
        };
    }
    let text = match c.percent_of {
        Some(total) => format!("{} ({})", with_unit(v, c.unit), percent(v, total)),
        None => with_unit(v, c.unit),
    };
    // The sort key (and, in a table the script writes, the value it
    // formats) to nine significant digits, as frames are.
    Cell {
        text,
        value: super::flame_view::significant(v),
    }
}

/// A row's value in each profile as a page writes it, readable without
/// JavaScript; the page script reads the numbers back (dropping the
/// thousands commas) and draws them as bars (`histogramSvg` in
/// `flame.js`), named by the table's `data-hist-labels`. As an SVG in the page, the histograms were
/// a fifth of an aggregate page.
pub fn histogram_text(values: &[f64]) -> String {
    let texts: Vec<String> = values.iter().map(|v| super::format::grouped(*v)).collect();
    texts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Frame;

    /// A one-metric tree of `frame;frame;…` stacks and their values.
    fn tree_of(stacks: &[(&str, f64)]) -> (CallTree, FrameTable) {
        let mut frames = FrameTable::new();
        let mut tree = CallTree::new(1);
        for (stack, v) in stacks {
            let ids: Vec<_> = stack
                .split(';')
                .map(|f| frames.intern(Frame::named(f)))
                .collect();
            tree.add_stack(ids, &[*v]);
        }
        (tree, frames)
    }

    #[test]
    fn siblings_come_heaviest_first_and_merged_rows_last() {
        let mut stacks = vec![
            ("main;a", 10.0),
            ("main;b", 60.0),
            ("main;c", 30.0),
            ("main;b;x", 5.0),
            ("main;b;y", 9.0),
        ];
        // Hundreds of tiny callees of `main`: merged into one row.
        let tiny: Vec<String> = (0..400).map(|i| format!("main;t{i}")).collect();
        stacks.extend(tiny.iter().map(|s| (s.as_str(), 0.001)));
        let (tree, frames) = tree_of(&stacks);
        let unit = Unit::Count;
        let values = tree.inclusive(0);
        let column = Column {
            heading: "n".into(),
            values: values.into(),
            unit: &unit,
            percent_of: Some(tree.total(0)),
        };
        let table = build(
            "t".into(),
            &tree,
            &frames,
            (0, None),
            &[column],
            0,
            (None, ROWS, true, None),
        );
        let rows: Vec<(&str, i64, bool)> = table
            .rows
            .iter()
            .map(|r| (r.name.as_str(), r.parent, r.merged))
            .collect();
        let names: Vec<&str> = rows.iter().map(|r| r.0).collect();
        assert_eq!(&names[..7], ["all", "main", "b", "y", "x", "c", "a"]);
        assert!(rows[7].2, "{rows:?}");
        assert_eq!(rows.len(), 8);
        // Parents point at the reordered rows.
        assert_eq!(rows[3].1, 2);
        assert_eq!(rows[5].1, 1);
        assert_eq!(rows[7].1, 1);
        assert_eq!(table.sorted_by, 0);
    }

    /// The table the page's script writes again: everything but its rows
    /// is the full table's, the count of merged rows included.
    #[test]
    fn a_rowless_table_is_the_table_without_its_rows() {
        let tiny: Vec<String> = (0..400).map(|i| format!("main;t{i}")).collect();
        let mut stacks = vec![("main;a", 10.0), ("main;b;x", 60.0)];
        stacks.extend(tiny.iter().map(|s| (s.as_str(), 0.001)));
        let (tree, frames) = tree_of(&stacks);
        let unit = Unit::Count;
        let columns = [
            Column {
                heading: "total".into(),
                values: tree.inclusive(0).into(),
                unit: &unit,
                percent_of: Some(tree.total(0)),
            },
            Column {
                heading: "self".into(),
                values: tree
                    .node_ids()
                    .map(|n| tree.self_value(n, 0))
                    .collect::<Vec<f64>>()
                    .into(),
                unit: &unit,
                percent_of: Some(tree.total(0)),
            },
        ];
        let pruned = (0, None);
        let mut full = build(
            "t".into(),
            &tree,
            &frames,
            pruned,
            &columns,
            0,
            (None, ROWS, true, None),
        );
        let rowless = build(
            "t".into(),
            &tree,
            &frames,
            pruned,
            &columns,
            0,
            (None, ROWS, false, None),
        );
        assert!(!full.rows.is_empty() && rowless.rows.is_empty());
        assert_eq!(rowless.merged_rows, 400);
        full.rows.clear();
        let json = |t: &TableView| serde_json::to_value(t).unwrap();
        assert_eq!(json(&full), json(&rowless));
        assert_eq!(full.kinds.len(), rowless.kinds.len());
    }

    #[test]
    fn a_table_sorted_by_another_column_keeps_its_tree() {
        // `a` is heavier inclusive, `b` heavier by its own cost.
        let (tree, frames) = tree_of(&[("a;x", 50.0), ("a", 10.0), ("b", 40.0), ("b;y", 1.0)]);
        let unit = Unit::Count;
        let inclusive = tree.inclusive(0);
        let own: Vec<f64> = tree.node_ids().map(|n| tree.self_value(n, 0)).collect();
        let column = |heading: &str, values: Vec<f64>| Column {
            heading: heading.into(),
            values: values.into(),
            unit: &unit,
            percent_of: Some(101.0),
        };
        let mut table = build(
            "t".into(),
            &tree,
            &frames,
            (0, None),
            &[column("total", inclusive), column("self", own)],
            0,
            (None, ROWS, true, None),
        );
        let names = |t: &TableView| {
            t.rows
                .iter()
                .map(|r| (r.name.clone(), r.parent))
                .collect::<Vec<_>>()
        };
        let by_total = names(&table);
        assert_eq!(by_total[1].0, "a");
        table.sort_by(1);
        let by_self = names(&table);
        let expected: Vec<(String, i64)> = [("all", -1), ("b", 0), ("y", 1), ("a", 0), ("x", 3)]
            .iter()
            .map(|(n, p)| (n.to_string(), *p))
            .collect();
        assert_eq!(by_self, expected);
        assert_eq!(table.sorted_by, 1);
        assert!(table.rows.iter().enumerate().all(|(i, r)| r.id == i));
    }
}
