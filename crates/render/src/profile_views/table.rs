//! The tree table of a profile's view: its columns per metric (total and
//! self for the top-down tree, inclusive and exclusive for the derived
//! shapes), the derived metrics and the call counts, with their notes.

use std::sync::OnceLock;

use super::{Context, ShapeTrees, ViewOf};
use crate::code_links::CodeLinks;
use crate::flame_plan::Shape;
use crate::tree_table::{self, Column, RowBudget, TableView};
use analysis::{derived_metrics, flame, shapes};
use model::{CallTree, Unit};

/// A derived shape's inclusive and exclusive trees merged into the one
/// tree its table lists, with both columns per metric: made once per
/// shape and shared by its metrics' tables (each had merged the two trees
/// and summed every metric's columns again, at once: on a two-metric
/// profile, two copies of the merged flat and bottom-up trees).
pub(super) struct Merged {
    tree: CallTree,
    inclusive: Vec<Vec<f64>>,
    exclusive: Vec<Vec<f64>>,
}

impl Merged {
    fn of(inclusive: &CallTree, exclusive: &CallTree) -> Merged {
        let tree = shapes::merge(&[inclusive, exclusive], &[]);
        let per = inclusive.metric_count();
        Merged {
            inclusive: (0..per).map(|m| tree.inclusive(m)).collect(),
            exclusive: (0..per).map(|m| tree.inclusive(per + m)).collect(),
            tree,
        }
    }
}

/// A tree's two columns of values per metric (inclusive and exclusive).
type Columns<'v> = (Vec<&'v [f64]>, Vec<&'v [f64]>);

fn slices(columns: &[Vec<f64>]) -> Vec<&[f64]> {
    columns.iter().map(Vec::as_slice).collect()
}

/// The tree table of the page's shape: total and self per metric for
/// top-down, inclusive and exclusive per metric for the others, then the
/// derived metrics that are not additive.
///
/// With `script_derives` (the page's script writes the profile's tables
/// from its trees and the page stores none of their rows), a table of
/// those two columns per metric is built without rows: the page would
/// drop them (see `assemble`). Other columns (derived metrics, calls) are
/// not the script's to compute, so their tables keep their rows.
pub(super) fn table(
    cx: &Context,
    view: &ViewOf,
    (trees, merged, totals): (&ShapeTrees, &OnceLock<Merged>, &[f64]),
    (code, rows, script_derives): (&CodeLinks, RowBudget, bool),
    sizes: &flame::SubtreeSizes,
) -> TableView {
    let profile = &trees.entry.profile;
    let frames = &cx.frames.table;
    let caption = format!("Tree table, {}", view.shape.name());
    let derived_values;
    let (tree, (inclusive, exclusive), words): (_, Columns, _) =
        match (&trees.inclusive, &trees.exclusive, &trees.values) {
            (Some(i), Some(e), _) => {
                let merged = merged.get_or_init(|| Merged::of(i, e));
                let values = (slices(&merged.inclusive), slices(&merged.exclusive));
                (&merged.tree, values, ["inclusive", "exclusive"])
            }
            (_, _, Some((i, _))) => {
                let values = (slices(i), trees.self_columns());
                (&profile.tree, values, ["total", "self"])
            }
            _ => {
                derived_values = derived_metrics::tree_values(&profile.tree);
                let values = (slices(&derived_values.0), slices(&derived_values.1));
                (&profile.tree, values, ["total", "self"])
            }
        };
    let overlapping = words[0] == "inclusive";
    let mut columns = Vec::new();
    for (m, metric) in profile.metrics.iter().enumerate() {
        for (word, values) in words.iter().zip([inclusive[m], exclusive[m]]) {
            let mut column = Column {
                heading: format!("{} {word}", metric.name),
                values: values.into(),
                unit: &metric.unit,
                percent_of: Some(totals[m]),
            };
            if overlapping && *word == "inclusive" {
                shares_overlap(&mut column, totals[m]);
            }
            columns.push(column);
        }
    }
    let derived = derived_metrics::parse_all(&cx.config.formulas()).unwrap_or_default();
    let evaluated = derived_metrics::evaluate(profile, &derived, &inclusive, &exclusive);
    let mut notes = Vec::new();
    for e in &evaluated {
        for (word, values) in words.iter().zip([&e.inclusive, &e.exclusive]) {
            columns.push(Column {
                heading: format!("{} {word}", e.name),
                values: values
                    .iter()
                    .map(|v| v.unwrap_or(f64::NAN))
                    .collect::<Vec<f64>>()
                    .into(),
                unit: &Unit::Count,
                percent_of: None,
            });
        }
        notes.push(match &e.zero_division {
            Some(z) => format!(
                "{} = {}; \"n/a\" where the formula divides by zero ({z}).",
                e.name, e.text
            ),
            None => format!("{} = {}.", e.name, e.text),
        });
    }
    if let Some(calls) = call_counts(profile, tree) {
        columns.push(Column {
            heading: "calls".to_string(),
            values: calls.into(),
            unit: &Unit::Count,
            percent_of: None,
        });
        notes.push("calls: as the profiler counted them (cProfile's callers table), from the row's caller into its function over every calling context, not in this context alone; for a top-level row, every call of its function.".to_string());
    }
    if overlapping {
        notes.insert(0, "Inclusive shares overlap: in this shape a sample counts once for every function on its stack, so a column of them adds up to more than 100%. Each is a share of the profile's total, which the root row shows.".to_string());
    }
    let listed = !(script_derives && columns.len() == 2 * profile.metrics.len());
    let mut table = tree_table::build(
        caption,
        tree,
        frames,
        (view.metric, Some(inclusive[view.metric])),
        &columns,
        2 * view.metric,
        (Some(code), rows, listed, Some(sizes)),
    );
    table.notes = notes;
    if view.shape == Shape::BottomUp {
        // Roots are where the time is spent: by their own cost.
        table.sort_by(2 * view.metric + 1);
    }
    table
}

/// The profile's call counts per node, when the table shows the profile's
/// own tree (top-down) and the input counted calls.
fn call_counts<'a>(profile: &'a model::Profile, tree: &CallTree) -> Option<&'a [f64]> {
    let calls = profile.call_counts.as_deref()?;
    (std::ptr::eq(tree, &profile.tree) && calls.len() == tree.len()).then_some(calls)
}

/// A bottom-up or flat inclusive column: its heading says the shares
/// overlap, and its root row shows the profile's total (the sum of every
/// function's inclusive value is not a figure a reader can use).
fn shares_overlap(column: &mut Column, total: f64) {
    column.heading.push_str(" (shares overlap)");
    let values = column.values.to_mut();
    if let Some(root) = values.first_mut() {
        *root = total;
    }
}
