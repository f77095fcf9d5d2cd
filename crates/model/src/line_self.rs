//! Self values split by source line, beside a calling-context tree: where
//! in its function each node's own time went (V8's `positionTicks`, what
//! Chrome DevTools' Sources panel shows per line). A node keeps one frame,
//! its function, so flame graphs and matrices show one box and one row
//! per function; source pages read the lines from here.

use std::collections::BTreeMap;

use super::tree::NodeId;

/// Per tree node, its self value on each line of its frame's file, one
/// value per metric (the metrics the parser gave; metrics added later,
/// such as derived ones, have none). Entries are sorted by (node, line),
/// each pair once. A node's lines hold at most its self value: what they
/// do not hold stays on its frame's own line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineSelf {
    metric_count: usize,
    keys: Vec<(NodeId, u32)>,
    /// `metric_count` values per key, in key order.
    values: Vec<f64>,
}

impl LineSelf {
    /// The table of `entries` (node, line, one value per metric); a
    /// (node, line) given more than once adds up. Values past
    /// `metric_count` are ignored, missing ones are 0.
    pub fn from_entries<V: AsRef<[f64]>>(
        metric_count: usize,
        entries: impl IntoIterator<Item = (NodeId, u32, V)>,
    ) -> LineSelf {
        let mut sums: BTreeMap<(NodeId, u32), Vec<f64>> = BTreeMap::new();
        for (node, line, values) in entries {
            let sum = sums
                .entry((node, line))
                .or_insert_with(|| vec![0.0; metric_count]);
            for (s, v) in sum.iter_mut().zip(values.as_ref()) {
                *s += v;
            }
        }
        let mut table = LineSelf {
            metric_count,
            keys: Vec::with_capacity(sums.len()),
            values: Vec::with_capacity(sums.len() * metric_count),
        };
        for (key, values) in sums {
            table.keys.push(key);
            table.values.extend(values);
        }
        table
    }

    pub fn metric_count(&self) -> usize {
        self.metric_count
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Every entry: (node, line, one value per metric), in (node, line)
    /// order.
    pub fn iter(&self) -> impl Iterator<Item = (NodeId, u32, &[f64])> {
        self.keys
            .iter()
            .enumerate()
            .map(|(i, &(node, line))| (node, line, self.at(i)))
    }

    /// The lines of `node`, in line order, with their values.
    pub fn lines_of(&self, node: NodeId) -> impl Iterator<Item = (u32, &[f64])> {
        let start = self.keys.partition_point(|&(n, _)| n < node);
        let end = start + self.keys[start..].partition_point(|&(n, _)| n == node);
        (start..end).map(|i| (self.keys[i].1, self.at(i)))
    }

    fn at(&self, i: usize) -> &[f64] {
        &self.values[i * self.metric_count..(i + 1) * self.metric_count]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_add_up_by_node_and_line_and_are_found_by_node() {
        let (a, b) = (NodeId(2), NodeId(5));
        let table = LineSelf::from_entries(
            2,
            [
                (b, 7, vec![1.0, 10.0]),
                (a, 3, vec![2.0, 20.0]),
                (b, 7, vec![0.5, 5.0]),
                (b, 4, vec![1.0]),
            ],
        );
        assert_eq!(table.len(), 3);
        let lines: Vec<(u32, Vec<f64>)> = table.lines_of(b).map(|(l, v)| (l, v.to_vec())).collect();
        assert_eq!(lines, [(4, vec![1.0, 0.0]), (7, vec![1.5, 15.0])]);
        assert_eq!(table.lines_of(a).count(), 1);
        assert_eq!(table.lines_of(NodeId(3)).count(), 0);
        assert_eq!(table.lines_of(NodeId(9)).count(), 0);
        let keys: Vec<(NodeId, u32)> = table.iter().map(|(n, l, _)| (n, l)).collect();
        assert_eq!(keys, [(a, 3), (b, 4), (b, 7)]);
    }
}
