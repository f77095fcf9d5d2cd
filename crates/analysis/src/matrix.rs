//! The Performance Evolution Matrix (Alcocer, Beck, Bergel, VISSOFT 2019,
//! section III): for every component and version, its execution time, the
//! change since the previous version, and how many of its methods were
//! modified there.
//!
//! - time(method, v): the method's inclusive time (recursion counted once
//!   per sample), averaged over the version's repetitions (a repetition
//!   without the method counts 0), summed over the scope's benchmarks.
//! - time(container, v): the time of its most expensive method, not a sum
//!   (a class's methods call each other, so sums double-count).
//! - Δtime(w, v) = (time(w, v) − time(w, v′)) / time(w, v′), with v′ the
//!   closest earlier version that has profiles in the scope; none when w is
//!   absent there.
//! - A component is absent (no glyph) in a version where no repetition
//!   records it.
//! - Rows: components present in some version, as a tree; within each
//!   level the program's own components come first, then the harness's,
//!   then the engine's ([`crate::origin`]), each group sorted by how far
//!   its share of the version total moved from one measured version to
//!   the next (a method's largest move, a container's methods', in whole
//!   points: so the first screen shows what changed most), then by peak
//!   share (largest first, ties by name); those whose peak share is below the threshold are hidden.
//!   Engine frames count for the method that ran them
//!   ([`crate::code_owner`]).

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

use super::hierarchy::{CompId, Hierarchy, Level};
use super::profile_facts::ProfileFacts;
use super::scope::Scope;

/// One glyph's numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Mean over repetitions (summed over benchmarks).
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// Repetitions the mean is over (the smallest count among benchmarks).
    pub reps: usize,
    /// `mean` over the version's total.
    pub share: f64,
    /// Δtime against the previous version; `None` when absent there or in
    /// the first version.
    pub delta: Option<f64>,
    /// Modified methods in the component in this version; `None` when the
    /// version has no change data.
    pub modified: Option<u32>,
    /// For containers: the method whose time this is.
    pub via: CompId,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub comp: CompId,
    pub level: Level,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// One per version.
    pub cells: Vec<Option<Cell>>,
    pub peak_share: f64,
    /// The largest move of its share (0–1) between two consecutive
    /// measured versions it ran in both; a container's, its methods'
    /// largest.
    pub moved: f64,
    pub visible: bool,
}

#[derive(Debug, Clone)]
pub struct Matrix {
    /// Rows in pre-order: the project first, each row before its children.
    pub rows: Vec<Row>,
    /// Mean total per version (summed over benchmarks); `None` where the
    /// scope has no profile.
    pub totals: Vec<Option<f64>>,
    /// Rows hidden by the share threshold or by the row cap.
    pub hidden: usize,
    /// Rows above the share threshold hidden because the matrix already
    /// had its most visible rows (see [`cap_visible_rows`]).
    pub capped: usize,
    /// Largest time of any visible cell: the full glyph height.
    pub max_time: f64,
    /// Whether each version has change data.
    pub changes_known: Vec<bool>,
}

/// Builds the matrix of `scope`. `facts[i]` are the facts of profile `i`;
/// `modified[v]` the methods modified in version `v` (None: unknown).
pub fn build(
    scope: &Scope,
    hierarchy: &Hierarchy,
    facts: &[ProfileFacts],
    modified: &[Option<BTreeSet<CompId>>],
    min_share_percent: f64,
) -> Matrix {
    let versions = scope.versions.len();
    let mut method_cells: FxHashMap<CompId, Vec<Option<Cell>>> = FxHashMap::default();
    let mut totals = vec![None; versions];
    for (v, total) in totals.iter_mut().enumerate() {
        if !scope.has(v) {
            continue;
        }
        let (sum_total, stats) = version_stats(scope, facts, v);
        *total = Some(sum_total);
        for (comp, (mean, min, max, reps)) in stats {
            if mean <= 0.0 && max <= 0.0 {
                continue;
            }
            method_cells
                .entry(comp)
                .or_insert_with(|| vec![None; versions])[v] = Some(Cell {
                mean,
                min,
                max,
                reps,
                share: if sum_total > 0.0 {
                    mean / sum_total
                } else {
                    0.0
                },
                delta: None,
                modified: None,
                via: comp,
            });
        }
    }
    // Containers take their most expensive method's cell.
    // A method's row is its own cells (methods are leaves): moved, not
    // copied, once its containers have seen it.
    let mut cells: FxHashMap<CompId, Vec<Option<Cell>>> = FxHashMap::default();
    let mut methods: Vec<(CompId, Vec<Option<Cell>>)> = method_cells.into_iter().collect();
    methods.sort_by_key(|(m, _)| *m);
    for (m, own) in methods {
        let mut at = hierarchy.get(m).parent;
        while let Some(c) = at {
            let slot = cells.entry(c).or_insert_with(|| vec![None; versions]);
            for (dst, src) in slot.iter_mut().zip(&own) {
                if let Some(s) = src {
                    if dst.as_ref().is_none_or(|d| s.mean > d.mean) {
                        *dst = Some(s.clone());
                    }
                }
            }
            at = hierarchy.get(c).parent;
        }
        cells.insert(m, own);
    }
    let present: BTreeSet<CompId> = cells.keys().copied().collect();
    for (comp, row) in cells.iter_mut() {
        fill_deltas(scope, row);
        fill_modified(hierarchy, *comp, &present, modified, row);
    }
    let changes_known = (0..versions)
        .map(|v| modified.get(v).is_some_and(|m| m.is_some()))
        .collect();
    let mut matrix = Matrix {
        rows: Vec::new(),
        totals,
        hidden: 0,
        capped: 0,
        max_time: 0.0,
        changes_known,
    };
    if cells.contains_key(&CompId::PROJECT) {
        let mut children: FxHashMap<CompId, Vec<CompId>> = FxHashMap::default();
        for &c in cells.keys() {
            if let Some(p) = hierarchy.get(c).parent {
                children.entry(p).or_default().push(c);
            }
        }
        let threshold = min_share_percent / 100.0;
        let moved = largest_moves(hierarchy, &cells, &matrix.totals);
        let tree = Tree {
            hierarchy,
            children: &children,
            moved: &moved,
            threshold,
        };
        add_rows(&mut matrix, &tree, &mut cells, CompId::PROJECT, None);
    }
    count_visible(&mut matrix);
    matrix.rows.shrink_to_fit();
    matrix
}

/// Keeps at most `max_rows` rows visible (each visible row gets a component
/// page, so an input with 100,000 distinct functions of equal share would
/// otherwise write 100,000 pages). The rows kept are the largest by peak
/// share, ties in pre-order, always with their ancestors; the rest join the
/// hidden rows and are counted in `capped`.
pub fn cap_visible_rows(matrix: &mut Matrix, max_rows: usize) {
    let max_rows = max_rows.max(1);
    let mut visible: Vec<usize> = (0..matrix.rows.len())
        .filter(|&i| matrix.rows[i].visible)
        .collect();
    if visible.len() <= max_rows {
        return;
    }
    visible.sort_by(|&a, &b| {
        let (ra, rb) = (&matrix.rows[a], &matrix.rows[b]);
        rb.peak_share.total_cmp(&ra.peak_share).then(a.cmp(&b))
    });
    let mut keep = vec![false; matrix.rows.len()];
    let mut kept = 0;
    for &i in &visible {
        let mut chain = Vec::new();
        let mut at = Some(i);
        while let Some(r) = at.filter(|&r| !keep[r]) {
            chain.push(r);
            at = matrix.rows[r].parent;
        }
        if kept + chain.len() > max_rows {
            continue;
        }
        kept += chain.len();
        for r in chain {
            keep[r] = true;
        }
    }
    let before = visible.len();
    for (row, keep) in matrix.rows.iter_mut().zip(keep) {
        row.visible = keep;
    }
    count_visible(matrix);
    matrix.capped = before - kept;
}

/// Fills `hidden` and `max_time` from the rows' visibility.
fn count_visible(matrix: &mut Matrix) {
    matrix.hidden = matrix.rows.iter().filter(|r| !r.visible).count();
    matrix.max_time = matrix
        .rows
        .iter()
        .filter(|r| r.visible)
        .flat_map(|r| r.cells.iter().flatten())
        .map(|c| c.mean)
        .fold(0.0, f64::max);
}

/// (mean, min, max, repetitions) of one method in one version.
type Stats = (f64, f64, f64, usize);

/// Mean total, and per method (mean, min, max, repetitions), of version
/// `v`: per benchmark over its repetitions, then summed over benchmarks.
fn version_stats(
    scope: &Scope,
    facts: &[ProfileFacts],
    v: usize,
) -> (f64, FxHashMap<CompId, Stats>) {
    let mut total = 0.0;
    let mut out: FxHashMap<CompId, Stats> = FxHashMap::default();
    for reps in &scope.versions[v] {
        let n = reps.entries.len();
        let mut values: FxHashMap<CompId, Vec<f64>> = FxHashMap::default();
        for (r, &(entry, metric)) in reps.entries.iter().enumerate() {
            let f = &facts[entry];
            total += f.totals.get(metric).copied().unwrap_or(0.0) / n as f64;
            for (comp, v) in f.method_time.iter() {
                values.entry(comp).or_insert_with(|| vec![0.0; n])[r] +=
                    v.get(metric).copied().unwrap_or(0.0);
            }
        }
        for (comp, vals) in values {
            let mean = vals.iter().sum::<f64>() / n as f64;
            let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
            let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let slot = out.entry(comp).or_insert((0.0, 0.0, 0.0, usize::MAX));
            slot.0 += mean;
            slot.1 += min;
            slot.2 += max;
            slot.3 = slot.3.min(n);
        }
    }
    (total, out)
}

fn fill_deltas(scope: &Scope, row: &mut [Option<Cell>]) {
    for v in (0..row.len()).rev() {
        let before = scope
            .previous(v)
            .and_then(|u| row[u].as_ref())
            .map(|c| c.mean);
        if let (Some(cell), Some(b)) = (row[v].as_mut(), before) {
            if b > 0.0 {
                cell.delta = Some((cell.mean - b) / b);
            }
        }
    }
}

/// Number of modified methods in `comp` (itself, for a method) among the
/// methods present in the scope.
fn fill_modified(
    hierarchy: &Hierarchy,
    comp: CompId,
    present: &BTreeSet<CompId>,
    modified: &[Option<BTreeSet<CompId>>],
    row: &mut [Option<Cell>],
) {
    let level = hierarchy.get(comp).level;
    for (v, cell) in row.iter_mut().enumerate() {
        let (Some(cell), Some(Some(set))) = (cell.as_mut(), modified.get(v)) else {
            continue;
        };
        let count = set
            .iter()
            .filter(|m| present.contains(m) && hierarchy.at_level(**m, level) == comp)
            .count();
        cell.modified = Some(count as u32);
    }
}

/// What placing the rows needs besides the cells.
struct Tree<'a> {
    hierarchy: &'a Hierarchy,
    children: &'a FxHashMap<CompId, Vec<CompId>>,
    /// Per component, [`Row::moved`].
    moved: &'a FxHashMap<CompId, f64>,
    threshold: f64,
}

/// Per component, the largest move of its share between consecutive
/// measured versions it ran in both; a container's is the largest of its
/// methods'.
fn largest_moves(
    hierarchy: &Hierarchy,
    cells: &FxHashMap<CompId, Vec<Option<Cell>>>,
    totals: &[Option<f64>],
) -> FxHashMap<CompId, f64> {
    let measured: Vec<usize> = (0..totals.len()).filter(|&v| totals[v].is_some()).collect();
    let mut moved: FxHashMap<CompId, f64> = FxHashMap::default();
    // Methods only: a container's cell is its most expensive method's,
    // and moves when another method becomes that, or when code moves to
    // another file, though no code changed.
    let methods = cells
        .iter()
        .filter(|(c, _)| hierarchy.get(**c).level == Level::Method);
    for (comp, row) in methods {
        let own = measured
            .windows(2)
            .filter_map(|w| Some((row[w[1]].as_ref()?.share - row[w[0]].as_ref()?.share).abs()))
            .fold(0.0, f64::max);
        let mut at = Some(*comp);
        while let Some(c) = at {
            let slot = moved.entry(c).or_insert(0.0);
            *slot = slot.max(own);
            at = hierarchy.get(c).parent;
        }
    }
    moved
}

fn add_rows(
    matrix: &mut Matrix,
    tree: &Tree,
    cells: &mut FxHashMap<CompId, Vec<Option<Cell>>>,
    comp: CompId,
    parent: Option<usize>,
) {
    let hierarchy = tree.hierarchy;
    let row_cells = cells.remove(&comp).unwrap_or_default();
    let peak_share = peak(&row_cells);
    let index = matrix.rows.len();
    matrix.rows.push(Row {
        comp,
        level: hierarchy.get(comp).level,
        parent,
        children: Vec::new(),
        cells: row_cells,
        peak_share,
        moved: tree.moved.get(&comp).copied().unwrap_or(0.0),
        visible: comp == CompId::PROJECT || peak_share >= tree.threshold,
    });
    if let Some(p) = parent {
        matrix.rows[p].children.push(index);
    }
    let Some(kids) = tree.children.get(&comp) else {
        return;
    };
    // (component, origin, largest move, peak share)
    let mut kids: Vec<(CompId, crate::origin::Origin, f64, f64)> = kids
        .iter()
        .map(|k| {
            let peak = cells.get(k).map(|c| peak(c)).unwrap_or(0.0);
            // In whole points of the total: moves that round alike are
            // ordered by peak share.
            let moved = (tree.moved.get(k).copied().unwrap_or(0.0) * 100.0).round();
            (*k, hierarchy.get(*k).origin, moved, peak)
        })
        .collect();
    kids.sort_by(|a, b| {
        a.1.cmp(&b.1)
            .then(b.2.total_cmp(&a.2))
            .then(b.3.total_cmp(&a.3))
            .then_with(|| hierarchy.get(a.0).name.cmp(&hierarchy.get(b.0).name))
            .then_with(|| a.0.cmp(&b.0))
    });
    for (k, ..) in kids {
        add_rows(matrix, tree, cells, k, Some(index));
    }
}

/// The largest share of any version.
fn peak(cells: &[Option<Cell>]) -> f64 {
    cells.iter().flatten().map(|c| c.share).fold(0.0, f64::max)
}

/// The top box's size: 0 (no change), 1 (< small), 2 (< large), 3.
pub fn modified_step(count: u32, steps: [u32; 2]) -> u8 {
    match count {
        0 => 0,
        c if c < steps[0] => 1,
        c if c < steps[1] => 2,
        _ => 3,
    }
}

/// The colour class of a Δ: −5 (twice as fast or more) … 0 (unchanged) …
/// +5 (twice as slow or more), on a log scale so halving and doubling are
/// equally strong.
pub fn delta_step(delta: f64) -> i8 {
    let ratio = 1.0 + delta;
    if !ratio.is_finite() || ratio <= 0.0 {
        return -5;
    }
    (ratio.log2().clamp(-1.0, 1.0) * 5.0).round() as i8
}

/// A method whose share of its version moved: from `from` of version
/// `before`'s total to `to` of version `after`'s (shares 0–1).
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    pub row: usize,
    pub before: usize,
    pub after: usize,
    pub from: f64,
    pub to: f64,
}

impl Matrix {
    /// The methods whose share of a version moved most between two
    /// versions measured one after the other, largest move first, at most
    /// `limit`, each by at least `min_points` (a share, 0.02 for two
    /// points); one move per method, its largest, between versions it ran
    /// in both (a method that appears or goes is more often code that
    /// moved to another file than code that changed). Entry points and
    /// harnesses keep their share as everything under them changes, so
    /// what moves is the code that changed.
    pub fn largest_moves(&self, limit: usize, min_points: f64) -> Vec<Move> {
        let measured: Vec<usize> = (0..self.totals.len())
            .filter(|&v| self.totals[v].is_some())
            .collect();
        let share = |row: &Row, v: usize| row.cells[v].as_ref().map(|c| c.share);
        let mut moves: Vec<Move> = self
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| r.level == Level::Method)
            .filter_map(|(i, row)| {
                measured
                    .windows(2)
                    .filter_map(|w| {
                        Some(Move {
                            row: i,
                            before: w[0],
                            after: w[1],
                            from: share(row, w[0])?,
                            to: share(row, w[1])?,
                        })
                    })
                    .max_by(|a, b| (a.to - a.from).abs().total_cmp(&(b.to - b.from).abs()))
            })
            .filter(|m| (m.to - m.from).abs() >= min_points)
            .collect();
        moves.sort_by(|a, b| {
            (b.to - b.from)
                .abs()
                .total_cmp(&(a.to - a.from).abs())
                .then(a.row.cmp(&b.row))
        });
        moves.truncate(limit);
        moves
    }
}

#[cfg(test)]
mod tests;
