//! Call graphs around a component (Performance Evolution Matrix, section
//! III-E): who calls it and whom it calls in a version, each edge told
//! apart as added in this version, deleted since the previous one, or kept.
//! Class and package edges come from method edges (a class calls another
//! when one of its methods calls one of the other's).
//!
//! Edge values are the scope's metric (samples or time spent through the
//! call, recursion counted once), averaged over repetitions.

use std::collections::HashMap;

use serde::Serialize;

use super::hierarchy::{CompId, Level};
use super::profile_facts::{Edge, ProfileFacts, EDGE_LEVELS};
use super::scope::Scope;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EdgeState {
    Added,
    Deleted,
    Kept,
}

/// A caller or callee of the component.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbour {
    pub comp: CompId,
    /// Value through the call in this version (0 when deleted).
    pub value: f64,
    /// Value in the previous version (0 when added).
    pub before: f64,
    pub state: EdgeState,
}

/// Edges of one level in one version of a scope, each with its value, kept
/// sorted from both ends so that a component's callers and callees are
/// found by binary search: a component page must not scan every edge (a
/// stack of a million distinct functions has a million edges, and as many
/// sections).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Edges {
    /// (caller, callee, value), by caller then callee.
    from: Vec<(CompId, CompId, f64)>,
    /// (callee, caller, value), by callee then caller.
    to: Vec<(CompId, CompId, f64)>,
}

impl Edges {
    fn of(map: HashMap<Edge, f64>) -> Edges {
        let mut from: Vec<(CompId, CompId, f64)> =
            map.into_iter().map(|((a, b), v)| (a, b, v)).collect();
        from.sort_unstable_by_key(|&(a, b, _)| (a, b));
        Edges::from_sorted(from)
    }

    /// The edges of `from`, sorted by caller then callee, each once.
    fn from_sorted(from: Vec<(CompId, CompId, f64)>) -> Edges {
        let mut to: Vec<(CompId, CompId, f64)> = from.iter().map(|&(a, b, v)| (b, a, v)).collect();
        to.sort_unstable_by_key(|&(b, a, _)| (b, a));
        Edges { from, to }
    }

    /// The components that call `comp` (`incoming`) or that it calls, with
    /// the value through each call.
    fn around(&self, comp: CompId, incoming: bool) -> impl Iterator<Item = (CompId, f64)> + '_ {
        let sorted = if incoming { &self.to } else { &self.from };
        let start = sorted.partition_point(|e| e.0 < comp);
        let end = start + sorted[start..].partition_point(|e| e.0 == comp);
        sorted[start..end].iter().map(|&(_, other, v)| (other, v))
    }
}

impl<const N: usize> From<[(Edge, f64); N]> for Edges {
    fn from(edges: [(Edge, f64); N]) -> Edges {
        Edges::of(edges.into_iter().collect())
    }
}

/// The edges at `level` in version `v`: mean over each benchmark's
/// repetitions, summed over benchmarks.
pub fn version_edges(scope: &Scope, facts: &[ProfileFacts], v: usize, level: Level) -> Edges {
    let Some(l) = EDGE_LEVELS.iter().position(|x| *x == level) else {
        return Edges::default();
    };
    // Every profile's edges are sorted: one profile's are the version's
    // as they are; several profiles' are sorted together (stably, so each
    // edge's values are added in profile order) and added up.
    let mut pairs: Vec<(Edge, f64)> = Vec::new();
    let mut profiles = 0;
    for reps in &scope.versions[v] {
        let n = reps.entries.len() as f64;
        for &(entry, metric) in &reps.entries {
            profiles += 1;
            let edges = facts[entry].edges[l].iter();
            pairs.extend(
                edges.map(|(e, values)| (e, values.get(metric).copied().unwrap_or(0.0) / n)),
            );
        }
    }
    if profiles > 1 {
        pairs.sort_by_key(|p| p.0);
    }
    let mut from: Vec<(CompId, CompId, f64)> = Vec::with_capacity(pairs.len());
    for ((a, b), value) in pairs {
        match from.last_mut() {
            Some(last) if (last.0, last.1) == (a, b) => last.2 += value,
            // From 0.0 as a sum begins (a -0.0 value counts as 0.0).
            _ => from.push((a, b, 0.0 + value)),
        }
    }
    Edges::from_sorted(from)
}

/// Callers and callees of `comp`, largest first; with `before`, each edge
/// is added, deleted or kept relative to it (without, all are kept).
pub fn neighbours(
    now: &Edges,
    before: Option<&Edges>,
    comp: CompId,
) -> (Vec<Neighbour>, Vec<Neighbour>) {
    let side = |incoming: bool| -> Vec<Neighbour> {
        let mut map: HashMap<CompId, (f64, f64)> = HashMap::new();
        for (o, v) in now.around(comp, incoming) {
            map.entry(o).or_default().0 += v;
        }
        for (o, v) in before.into_iter().flat_map(|b| b.around(comp, incoming)) {
            map.entry(o).or_default().1 += v;
        }
        let mut list: Vec<Neighbour> = map
            .into_iter()
            .map(|(c, (value, was))| Neighbour {
                comp: c,
                value,
                before: was,
                state: match (before.is_some(), value > 0.0, was > 0.0) {
                    (false, _, _) | (true, true, true) => EdgeState::Kept,
                    (true, true, false) => EdgeState::Added,
                    (true, false, _) => EdgeState::Deleted,
                },
            })
            .collect();
        list.sort_by(|a, b| {
            b.value
                .max(b.before)
                .total_cmp(&a.value.max(a.before))
                .then_with(|| a.comp.cmp(&b.comp))
        });
        list
    };
    (side(true), side(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_are_added_deleted_or_kept() {
        let (a, b, c, d) = (CompId(1), CompId(2), CompId(3), CompId(4));
        let before: Edges = [((a, b), 5.0), ((b, c), 3.0)].into();
        let now: Edges = [((a, b), 6.0), ((b, d), 2.0), ((c, b), 1.0)].into();
        let (callers, callees) = neighbours(&now, Some(&before), b);
        assert_eq!(
            callers
                .iter()
                .map(|n| (n.comp, n.state))
                .collect::<Vec<_>>(),
            [(a, EdgeState::Kept), (c, EdgeState::Added)]
        );
        assert_eq!(
            callees
                .iter()
                .map(|n| (n.comp, n.state, n.value, n.before))
                .collect::<Vec<_>>(),
            [
                (c, EdgeState::Deleted, 0.0, 3.0),
                (d, EdgeState::Added, 2.0, 0.0)
            ]
        );
        let (first, _) = neighbours(&now, None, b);
        assert!(first.iter().all(|n| n.state == EdgeState::Kept));
    }
}
