//! Per-line costs for source pages: for each source line of a version, the
//! time spent executing it (self) and with it on the stack (total, each
//! sample once even under recursion), per benchmark, as the mean over the
//! version's repetitions.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::scope::Scope;
use model::{CallTree, FrameId, History, NodeId, Unit};

/// Self and total of one line in one benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cost {
    pub self_value: f64,
    pub total: f64,
}

/// The costs of one version's lines.
#[derive(Debug, Clone, Default)]
pub struct VersionCosts {
    /// Benchmarks with profiles in the version: name, metric, unit, and the
    /// mean total of the metric.
    pub benchmarks: Vec<(String, String, Unit, f64)>,
    /// File (as profiles name it) → line → one cost per benchmark.
    pub files: BTreeMap<String, BTreeMap<u32, Vec<Cost>>>,
}

/// Per-line costs of every file in `version`.
pub fn version_costs(history: &History, version: usize) -> VersionCosts {
    let mut out = VersionCosts::default();
    let count = |b: &str| {
        history
            .profiles
            .iter()
            .filter(|p| p.benchmark == b && p.version == version)
            .count()
    };
    let benchmarks: Vec<String> = history
        .benchmarks()
        .into_iter()
        .filter(|b| count(b) > 0)
        .collect();
    for (k, benchmark) in benchmarks.iter().enumerate() {
        let scope = Scope::new(history, benchmark, std::slice::from_ref(benchmark));
        let entries: Vec<(usize, usize)> = scope.entries(version).collect();
        let reps = entries.len().max(1) as f64;
        let mut per_frame: FxHashMap<FrameId, Cost> = FxHashMap::default();
        let mut grand = 0.0;
        for &(e, m) in &entries {
            let tree = &history.profiles[e].profile.tree;
            grand += tree.total(m) / reps;
            add_frame_costs(tree, m, 1.0 / reps, &mut per_frame);
        }
        out.benchmarks.push((
            benchmark.clone(),
            scope.metric.clone(),
            scope.unit.clone(),
            grand,
        ));
        for (frame, cost) in per_frame {
            let f = history.frames.get(frame);
            let (Some(file), Some(line)) = (&f.file, f.line) else {
                continue;
            };
            let row = out
                .files
                .entry(file.clone())
                .or_default()
                .entry(line)
                .or_insert_with(|| vec![Cost::default(); benchmarks.len()]);
            row[k].self_value += cost.self_value;
            row[k].total += cost.total;
        }
    }
    out
}

/// Adds each frame's self value and its total at outermost occurrences,
/// times `weight`. Depth-first without recursion.
fn add_frame_costs(
    tree: &CallTree,
    metric: usize,
    weight: f64,
    out: &mut FxHashMap<FrameId, Cost>,
) {
    let inclusive = tree.inclusive(metric);
    let mut on_path: FxHashMap<FrameId, u32> = FxHashMap::default();
    let mut stack: Vec<(NodeId, bool)> = vec![(NodeId::ROOT, true)];
    while let Some((node, entering)) = stack.pop() {
        let frame = tree.frame(node);
        if !entering {
            if let Some(c) = frame.and_then(|f| on_path.get_mut(&f)) {
                *c -= 1;
            }
            continue;
        }
        if let Some(f) = frame {
            let depth = on_path.entry(f).or_insert(0);
            let cost = out.entry(f).or_default();
            cost.self_value += tree.self_value(node, metric) * weight;
            if *depth == 0 {
                cost.total += inclusive[node.index()] * weight;
            }
            *depth += 1;
        }
        stack.push((node, false));
        stack.extend(tree.children(node).iter().rev().map(|c| (*c, true)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{Frame, FrameTable};

    #[test]
    fn a_recursive_line_counts_its_samples_once() {
        let mut frames = FrameTable::new();
        let at = |frames: &mut FrameTable, line| {
            frames.intern(Frame {
                function: "f".into(),
                file: Some("a.py".into()),
                line: Some(line),
                ..Frame::default()
            })
        };
        let (l1, l2) = (at(&mut frames, 1), at(&mut frames, 2));
        let mut tree = CallTree::new(1);
        tree.add_stack([l1, l1, l2], &[3.0]);
        tree.add_stack([l1], &[1.0]);
        let mut out = FxHashMap::default();
        add_frame_costs(&tree, 0, 0.5, &mut out);
        assert_eq!(
            out[&l1],
            Cost {
                self_value: 0.5,
                total: 2.0
            }
        );
        assert_eq!(
            out[&l2],
            Cost {
                self_value: 1.5,
                total: 1.5
            }
        );
    }
}
