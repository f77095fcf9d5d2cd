//! Call-tree root cause of a regression (PRCA, sections 4.2–4.3): the call
//! trees of the version before and the responsible version are compared
//! breadth-first, node by node, on the inclusive value each profile
//! repetition gives the node. The search descends only into nodes that got
//! significantly slower; a slower node whose callees changed (a callee only
//! one version has) is a candidate and is not descended into. The flagged
//! nodes form the suspected path; flagged methods the responsible version
//! modified are marked, like the paper's black dot.

use serde::Serialize;

use super::regression::Settings;
use super::stats::{self, Summary};
use crate::model::{CallTree, FrameId, History, NodeId};

/// Most nodes compared per root cause, and most callees compared per node.
const MAX_NODES: usize = 400;
const MAX_CALLEES: usize = 40;

/// One compared node of the call tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CauseNode {
    /// Index of the caller in [`RootCause::nodes`]; `None` for the root.
    pub parent: Option<usize>,
    /// `None` for the root ("all").
    #[serde(skip)]
    pub frame: Option<FrameId>,
    pub name: String,
    pub before: Option<Summary>,
    pub after: Option<Summary>,
    pub p_value: Option<f64>,
    pub relative: Option<f64>,
    /// Significantly slower: part of the suspected path.
    pub flagged: bool,
    /// Its callees differ between the versions.
    pub shape_changed: bool,
    /// Flagged with no flagged callee, or flagged with changed callees.
    pub candidate: bool,
    /// The responsible version modified this method.
    pub modified: bool,
    /// Callees not compared (beyond the per-node bound).
    pub callees_left: usize,
}

/// The outcome for one regression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootCause {
    /// Compared nodes, breadth-first; empty when `none` says why.
    pub nodes: Vec<CauseNode>,
    /// Why there is no root cause, when there is none.
    pub none: Option<String>,
    pub metric: String,
    /// The metric's unit name (`nanoseconds`, `samples`, …).
    pub unit: String,
    pub repetitions: (usize, usize),
}

/// One version's repetitions of a benchmark, with inclusive values.
struct Side<'a> {
    trees: Vec<&'a CallTree>,
    inclusive: Vec<Vec<f64>>,
}

impl<'a> Side<'a> {
    fn new(history: &'a History, benchmark: &str, version: usize, metric: &str) -> Side<'a> {
        let mut trees = Vec::new();
        let mut inclusive = Vec::new();
        for entry in history
            .profiles
            .iter()
            .filter(|p| p.benchmark == benchmark && p.version == version)
        {
            if let Some(m) = entry.profile.metrics.iter().position(|x| x.name == metric) {
                trees.push(&entry.profile.tree);
                inclusive.push(entry.profile.tree.inclusive(m));
            }
        }
        Side { trees, inclusive }
    }

    /// Per repetition: the value of the node (0 where the repetition
    /// lacks it).
    fn values(&self, nodes: &[Option<NodeId>]) -> Vec<f64> {
        nodes
            .iter()
            .zip(&self.inclusive)
            .map(|(n, inc)| n.map(|n| inc[n.index()]).unwrap_or(0.0))
            .collect()
    }

    fn child(&self, nodes: &[Option<NodeId>], frame: FrameId) -> Vec<Option<NodeId>> {
        nodes
            .iter()
            .zip(&self.trees)
            .map(|(n, t)| n.and_then(|n| t.find_child(n, frame)))
            .collect()
    }

    /// Callee frames with a non-zero value in some repetition.
    fn callees(&self, nodes: &[Option<NodeId>]) -> Vec<FrameId> {
        let mut out: Vec<FrameId> = Vec::new();
        for ((n, t), inc) in nodes.iter().zip(&self.trees).zip(&self.inclusive) {
            let Some(n) = n else { continue };
            for &c in t.children(*n) {
                if inc[c.index()] > 0.0 {
                    out.extend(t.frame(c));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Compares the call trees of `benchmark` in versions `before` and `after`.
/// `modified` says whether the responsible version changed a frame's method.
pub fn analyse(
    history: &History,
    benchmark: &str,
    before: usize,
    after: usize,
    min_repetitions: usize,
    settings: &Settings,
    modified: &dyn Fn(FrameId) -> bool,
) -> RootCause {
    let first_metric = history
        .profiles
        .iter()
        .find(|p| p.benchmark == benchmark && p.version == after)
        .and_then(|p| p.profile.metrics.first());
    let metric = first_metric.map(|m| m.name.clone()).unwrap_or_default();
    let unit = first_metric
        .map(|m| m.unit.name().to_string())
        .unwrap_or_default();
    let old = Side::new(history, benchmark, before, &metric);
    let new = Side::new(history, benchmark, after, &metric);
    let repetitions = (old.trees.len(), new.trees.len());
    let mut cause = RootCause {
        nodes: Vec::new(),
        none: None,
        metric,
        unit,
        repetitions,
    };
    if repetitions.0 < min_repetitions || repetitions.1 < min_repetitions {
        cause.none = Some(format!(
            "a call-tree comparison needs at least {min_repetitions} profile repetitions of the benchmark in both versions; there are {} and {}",
            repetitions.0, repetitions.1
        ));
        return cause;
    }
    compare_breadth_first(history, &old, &new, settings, modified, &mut cause.nodes);
    if !cause.nodes.first().is_some_and(|n| n.flagged) {
        cause.none = Some(format!(
            "the profiles' totals ({}) do not differ significantly between the two versions",
            cause.metric
        ));
    }
    cause
}

fn compare_breadth_first(
    history: &History,
    old: &Side,
    new: &Side,
    settings: &Settings,
    modified: &dyn Fn(FrameId) -> bool,
    nodes: &mut Vec<CauseNode>,
) {
    let root_old = vec![Some(NodeId::ROOT); old.trees.len()];
    let root_new = vec![Some(NodeId::ROOT); new.trees.len()];
    let mut queue = std::collections::VecDeque::new();
    queue.push_back((None, None, root_old, root_new));
    while let Some((parent, frame, at_old, at_new)) = queue.pop_front() {
        if nodes.len() >= MAX_NODES {
            break;
        }
        let (a, b) = (old.values(&at_old), new.values(&at_new));
        let comparison = stats::compare(settings.test, &a, &b, settings.confidence);
        let flagged = comparison.is_some_and(|c| c.significant() && c.difference > 0.0);
        let callees_old = old.callees(&at_old);
        let callees_new = new.callees(&at_new);
        let shape_changed = frame.is_some() && callees_old != callees_new;
        let index = nodes.len();
        nodes.push(CauseNode {
            parent,
            frame,
            name: frame
                .map(|f| history.frames.get(f).function.clone())
                .unwrap_or_else(|| "all".into()),
            before: stats::summary(&a, settings.confidence),
            after: stats::summary(&b, settings.confidence),
            p_value: comparison.map(|c| c.p_value),
            relative: comparison.and_then(|c| c.relative),
            flagged,
            shape_changed,
            candidate: flagged && shape_changed,
            modified: flagged && frame.is_some_and(modified),
            callees_left: 0,
        });
        if !flagged || shape_changed {
            continue;
        }
        let mut callees = callees_old;
        callees.extend(callees_new);
        callees.sort_unstable();
        callees.dedup();
        // The largest callees first, so the bound drops the least.
        let size = |f: FrameId| {
            let v = new.values(&new.child(&at_new, f));
            v.iter().sum::<f64>()
        };
        callees.sort_by(|x, y| size(*y).total_cmp(&size(*x)).then(x.cmp(y)));
        nodes[index].callees_left = callees.len().saturating_sub(MAX_CALLEES);
        for f in callees.into_iter().take(MAX_CALLEES) {
            queue.push_back((
                Some(index),
                Some(f),
                old.child(&at_old, f),
                new.child(&at_new, f),
            ));
        }
    }
    mark_candidates(nodes);
}

/// A flagged node none of whose callees is flagged is where the time went.
fn mark_candidates(nodes: &mut [CauseNode]) {
    let mut has_flagged_callee = vec![false; nodes.len()];
    for n in nodes.iter() {
        if let (Some(p), true) = (n.parent, n.flagged) {
            has_flagged_callee[p] = true;
        }
    }
    for (i, n) in nodes.iter_mut().enumerate() {
        if n.flagged && n.frame.is_some() && !has_flagged_callee[i] {
            n.candidate = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::config::RegressionConfig;
    use crate::model::{Metric, Profile, ProfileEntry, Unit};

    /// A profile of foo → {bar, doo → fem → {qux, wug}} (Fig. 5–6) with the
    /// given self times; `extra` adds a callee of fem only this one has.
    fn profile(history: &mut History, version: usize, rep: u32, fem: f64, extra: bool) {
        let mut p = Profile::new(vec![Metric::new("cpu", Unit::Nanoseconds)]);
        let mut id = |n: &str| history.frames.intern_name(n);
        let (foo, bar, doo, fem_f, qux, wug, new) = (
            id("foo"),
            id("bar"),
            id("doo"),
            id("fem"),
            id("qux"),
            id("wug"),
            id("sort"),
        );
        let jitter = 1.0 + rep as f64 * 0.01;
        p.tree.add_stack([foo], &[10.0 * jitter]);
        p.tree.add_stack([foo, bar], &[50.0 * jitter]);
        p.tree.add_stack([foo, doo], &[5.0 * jitter]);
        p.tree.add_stack([foo, doo, fem_f], &[fem * jitter]);
        p.tree.add_stack([foo, doo, fem_f, qux], &[20.0 / jitter]);
        p.tree.add_stack([foo, doo, fem_f, wug], &[30.0 * jitter]);
        if extra {
            p.tree.add_stack([foo, doo, fem_f, new], &[1.0]);
        }
        history.profiles.push(ProfileEntry {
            version,
            benchmark: "testFoo".into(),
            repetition: rep,
            source: format!("v{version}/testFoo.{rep}"),
            format: "test",
            profile: p,
        });
    }

    fn history(reps: u32, extra_in_new: bool) -> History {
        let mut h = History::default();
        for rep in 1..=reps {
            profile(&mut h, 0, rep, 10.0, false);
            profile(&mut h, 1, rep, 100.0, extra_in_new);
        }
        h
    }

    fn run(h: &History, modified: &dyn Fn(FrameId) -> bool) -> RootCause {
        let settings = Settings::from_config(&RegressionConfig::default());
        analyse(h, "testFoo", 0, 1, 2, &settings, modified)
    }

    fn names(cause: &RootCause, pick: impl Fn(&CauseNode) -> bool) -> Vec<&str> {
        cause
            .nodes
            .iter()
            .filter(|n| pick(n))
            .map(|n| n.name.as_str())
            .collect()
    }

    #[test]
    fn the_papers_example_flags_foo_doo_fem() {
        let h = history(5, false);
        let fem = h
            .frames
            .iter()
            .find(|(_, f)| f.function == "fem")
            .unwrap()
            .0;
        let cause = run(&h, &|f| f == fem);
        assert_eq!(cause.none, None);
        assert_eq!(names(&cause, |n| n.flagged), ["all", "foo", "doo", "fem"]);
        // bar, wug and qux (largest first) are compared (✓), not descended into.
        assert_eq!(names(&cause, |n| !n.flagged), ["bar", "wug", "qux"]);
        assert_eq!(names(&cause, |n| n.candidate), ["fem"]);
        assert_eq!(names(&cause, |n| n.modified), ["fem"]);
    }

    #[test]
    fn changed_callees_make_a_candidate_not_descended_into() {
        let cause = run(&history(5, true), &|_| false);
        assert_eq!(names(&cause, |n| n.candidate), ["fem"]);
        assert!(
            cause
                .nodes
                .iter()
                .find(|n| n.name == "fem")
                .unwrap()
                .shape_changed
        );
        assert_eq!(names(&cause, |n| n.name == "qux"), Vec::<&str>::new());
    }

    #[test]
    fn one_repetition_gives_a_reason_instead() {
        let cause = run(&history(1, false), &|_| false);
        assert!(cause.nodes.is_empty());
        assert_eq!(
            cause.none.as_deref(),
            Some("a call-tree comparison needs at least 2 profile repetitions of the benchmark in both versions; there are 1 and 1")
        );
    }
}
