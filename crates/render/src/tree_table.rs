//! Tree tables (EasyView section VI-A-c): one row per calling context in
//! pre-order, indented by depth, one column per value, expandable and
//! sortable by the page script and complete without it. Rows follow the
//! flame-graph budget rules: contexts too small to matter are merged into
//! one "merged" row per parent that keeps the sorted column's value.

use std::borrow::Cow;

use serde::Serialize;

use super::flame_svg;
use super::format::{percent, with_unit};
use super::source_page::CodeLinks;
use analysis::flame::{self, FlameBudget};
use model::{CallTree, FrameTable, NodeId, Unit};

/// Most rows of one table.
pub const MAX_ROWS: usize = 600;

/// One column: a heading and a value per node of the tree.
pub struct Column<'a> {
    pub heading: String,
    pub values: Cow<'a, [f64]>,
    pub unit: &'a Unit,
    /// Percentages are of this; none shown when `None`.
    pub percent_of: Option<f64>,
}

#[derive(Serialize)]
pub struct TableView {
    pub id: String,
    pub caption: String,
    pub columns: Vec<String>,
    pub rows: Vec<Row>,
    pub merged_rows: usize,
    /// Sentences shown under the table (derived-metric formulas).
    pub notes: Vec<String>,
}

#[derive(Serialize)]
pub struct Row {
    /// The tree node shown (`None` for a merged row).
    #[serde(skip)]
    pub node: Option<NodeId>,
    pub id: usize,
    pub parent: i64,
    pub depth: u32,
    pub name: String,
    pub location: String,
    /// Source page of the location, relative to the page.
    pub href: Option<String>,
    pub has_children: bool,
    pub merged: bool,
    pub cells: Vec<Cell>,
    /// Extra markup built by perfatlas from numbers only (histograms).
    pub extra_html: Option<String>,
}

#[derive(Serialize)]
pub struct Cell {
    pub text: String,
    /// Sort key.
    pub value: f64,
}

/// Builds the rows of `tree` (the table's id is `pa-table`), pruned by the
/// inclusive values of `metric` (given with them when the caller has
/// them), which `columns[pruned_by]` shows (merged rows carry only that
/// value).
pub fn build(
    caption: String,
    tree: &CallTree,
    frames: &FrameTable,
    (metric, inclusive): (usize, Option<&[f64]>),
    columns: &[Column],
    pruned_by: usize,
    code: Option<&CodeLinks>,
) -> TableView {
    let budget = FlameBudget {
        max_frames: MAX_ROWS,
        min_fraction: 0.002,
    };
    let graph = match inclusive {
        Some(inclusive) => flame::layout_with(tree, frames, metric, inclusive, budget),
        None => flame::layout(tree, frames, metric, budget),
    };
    let mut has_children = vec![false; graph.rects.len()];
    for r in &graph.rects {
        if let Some(p) = r.parent {
            has_children[p] = true;
        }
    }
    let rows = graph
        .rects
        .iter()
        .enumerate()
        .map(|(i, r)| {
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
            Row {
                node: r.node,
                id: i,
                parent: r.parent.map_or(-1, |p| p as i64),
                depth: r.depth,
                name: flame_svg::frame_label(frames, r),
                location: r
                    .frame
                    .and_then(|f| frames.get(f).location())
                    .unwrap_or_default(),
                href: match (code, r.frame) {
                    (Some(code), Some(f)) => Some(code.of(frames, f).0).filter(|h| !h.is_empty()),
                    _ => None,
                },
                has_children: has_children[i],
                merged: r.node.is_none(),
                cells,
                extra_html: None,
            }
        })
        .collect();
    TableView {
        id: "pa-table".to_string(),
        caption,
        columns: columns.iter().map(|c| c.heading.clone()).collect(),
        rows,
        merged_rows: graph.merged_nodes,
        notes: Vec::new(),
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
    Cell { text, value: v }
}

/// A small bar chart of `values` (one bar per profile), as inline SVG.
pub fn histogram_svg(values: &[f64], labels: &[String]) -> String {
    let max = values.iter().copied().fold(0.0f64, f64::max);
    let (bar, gap, height) = (6.0, 1.0, 16.0);
    let width = values.len() as f64 * (bar + gap);
    let mut w = super::svg::SvgWriter::with_capacity(values.len() * 80 + 120);
    let view_box = format!("0 0 {} {height}", super::svg::coord(width.max(1.0)));
    w.open(
        "svg",
        &[
            ("class", "pa-hist"),
            ("viewBox", &view_box),
            ("width", &super::svg::coord(width.max(1.0))),
            ("height", "16"),
            ("role", "img"),
            ("aria-label", "value in each profile"),
        ],
    );
    for (k, v) in values.iter().enumerate() {
        let h = if max > 0.0 { v / max * height } else { 0.0 };
        let x = k as f64 * (bar + gap);
        w.open(
            "rect",
            &[
                ("x", &super::svg::coord(x)),
                ("y", &super::svg::coord(height - h)),
                ("width", &super::svg::coord(bar)),
                ("height", &super::svg::coord(h.max(0.5))),
            ],
        );
        let label = labels.get(k).map(String::as_str).unwrap_or("");
        w.element(
            "title",
            &[],
            &format!("{label}: {}", super::format::grouped(*v)),
        );
        w.close("rect");
    }
    w.close("svg");
    w.finish()
}
