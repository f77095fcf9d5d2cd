//! Aggregate view (EasyView sections V-A-c and VI-A-b): several profiles
//! (a version's repetitions, threads, snapshots) merged by path into one
//! tree whose nodes carry each profile's value and their sum, min, max and
//! mean.

use model::{CallTree, NodeId};

use super::shapes;

/// Profiles merged by path, one metric each.
#[derive(Debug, Clone)]
pub struct Aggregate {
    /// Metric `k` is profile `k`'s value; metric `count` is the mean.
    pub tree: CallTree,
    pub count: usize,
    /// Inclusive values of each profile, indexed `[profile][node]`.
    inclusive: Vec<Vec<f64>>,
}

/// Statistics of one node over the profiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    pub sum: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

/// Merges single-metric trees.
pub fn aggregate(trees: &[&CallTree]) -> Aggregate {
    let tree = shapes::merge(trees, &[]);
    let count = trees.len();
    let inclusive = (0..count).map(|k| tree.inclusive(k)).collect();
    Aggregate {
        tree,
        count,
        inclusive,
    }
}

impl Aggregate {
    /// Metric of [`Aggregate::tree`] holding the mean (the drawn width).
    pub fn mean_metric(&self) -> usize {
        self.count
    }

    /// Inclusive value of `node` in each profile (0 where it is absent).
    pub fn values(&self, node: NodeId) -> Vec<f64> {
        self.inclusive.iter().map(|v| v[node.index()]).collect()
    }

    pub fn stats(&self, node: NodeId) -> Stats {
        stats(&self.values(node))
    }

    /// [`Aggregate::stats`] of every node, in node order.
    pub fn all_stats(&self) -> Vec<Stats> {
        let mut values = vec![0.0; self.count];
        (0..self.tree.len())
            .map(|n| {
                for (k, v) in values.iter_mut().enumerate() {
                    *v = self.inclusive[k][n];
                }
                stats(&values)
            })
            .collect()
    }
}

/// Sum, min, max and mean of `values` (zeros for none).
pub fn stats(values: &[f64]) -> Stats {
    if values.is_empty() {
        return Stats {
            sum: 0.0,
            min: 0.0,
            max: 0.0,
            mean: 0.0,
        };
    }
    let sum: f64 = values.iter().sum();
    Stats {
        sum,
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean: sum / values.len() as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{FrameId, FrameTable};

    #[test]
    fn nodes_carry_each_profiles_value_and_their_statistics() {
        let mut frames = FrameTable::new();
        let mut build = |stacks: &[(&str, f64)]| {
            let mut t = CallTree::new(1);
            for (s, v) in stacks {
                let ids: Vec<FrameId> = s.split(';').map(|f| frames.intern_name(f)).collect();
                t.add_stack(ids, &[*v]);
            }
            t
        };
        let r1 = build(&[("main;a", 4.0), ("main", 2.0)]);
        let r2 = build(&[("main;a", 6.0)]);
        let r3 = build(&[("main;b", 3.0)]);
        let agg = aggregate(&[&r1, &r2, &r3]);
        let main = agg.tree.children(NodeId::ROOT)[0];
        let a = agg.tree.children(main)[0];
        assert_eq!(agg.values(a), vec![4.0, 6.0, 0.0]);
        assert_eq!(
            agg.stats(a),
            Stats {
                sum: 10.0,
                min: 0.0,
                max: 6.0,
                mean: 10.0 / 3.0
            }
        );
        assert_eq!(agg.stats(main).min, 3.0);
        // The drawn width is the mean inclusive value.
        let mean = agg.tree.inclusive(agg.mean_metric());
        assert_eq!(mean[main.index()], 5.0);
        assert_eq!(mean[0], agg.stats(NodeId::ROOT).mean);
    }
}
