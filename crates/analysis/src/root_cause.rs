//! Call-tree root cause of a change (PRCA, sections 4.2–4.3): the call
//! trees of the version before and the responsible version, each made of
//! functions (see [`model::identity`]: a frame's line or the
//! version in its path never makes it another function), are compared
//! breadth-first, node by node, on the inclusive value each profile
//! repetition gives the node. The search descends into every node that
//! changed significantly in the change's direction; a node is a candidate
//! when none of its callees did, or when its own (exclusive) change is
//! significant and a large share of the whole. A callee present in one
//! version only changes a node's shape only when its own difference is
//! significant. Beside the path, every function's own change over the
//! whole profile ranks where the difference went; the first significant
//! one that explains most of it is the root cause. Functions the
//! responsible version modified are marked, like the paper's black dot.

use serde::Serialize;

use super::code_owner;
use super::regression::{Direction, Settings};
use super::shapes::{self, ShapeFrames};
use super::stats::{self, Summary};
use model::{CallTree, FrameId, History, NodeId};

/// Most nodes compared per root cause, and most callees compared per node.
const MAX_NODES: usize = 400;
const MAX_CALLEES: usize = 40;
/// Most functions listed by their own change, and fewest share of the
/// difference a listed function explains.
const MAX_FUNCTIONS: usize = 12;
const MIN_FUNCTION_SHARE: f64 = 0.01;
/// A node whose own change is significant and at least this share of the
/// whole difference is a candidate even when a callee changed too.
const CANDIDATE_SHARE: f64 = 0.1;
/// The least share of the difference a function must explain to be named
/// the root cause; below it the change is diffuse and the page lists the
/// largest contributors instead.
pub const MIN_CAUSE_SHARE: f64 = 0.2;

/// One compared node of the call tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CauseNode {
    /// Index of the caller in [`RootCause::nodes`]; `None` for the root.
    pub parent: Option<usize>,
    /// A function frame of the shape frames; `None` for the root ("all").
    #[serde(skip)]
    pub frame: Option<FrameId>,
    pub name: String,
    pub file: Option<String>,
    pub before: Option<Summary>,
    pub after: Option<Summary>,
    pub p_value: Option<f64>,
    pub relative: Option<f64>,
    /// Significantly changed in the change's direction: part of the
    /// suspected path.
    pub flagged: bool,
    /// A callee present in one version only changed significantly.
    pub shape_changed: bool,
    /// Flagged with no flagged callee, or flagged with a large significant
    /// change of its own.
    pub candidate: bool,
    /// The responsible version modified this function.
    pub modified: bool,
    /// Its own (exclusive) change as a share of the whole difference.
    pub self_share: Option<f64>,
    /// Callees not compared (beyond the per-node bound).
    pub callees_left: usize,
}

/// One function's own (exclusive) change over the whole profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CauseFunction {
    #[serde(skip)]
    pub frame: FrameId,
    pub name: String,
    pub file: Option<String>,
    pub before: Option<Summary>,
    pub after: Option<Summary>,
    /// Mean after − mean before.
    pub delta: f64,
    /// `delta` as a share of the whole profile's difference.
    pub share: f64,
    pub p_value: Option<f64>,
    pub significant: bool,
    pub modified: bool,
}

/// The outcome for one change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RootCause {
    /// The profiled benchmark compared.
    pub benchmark: String,
    pub direction: Direction,
    /// Compared nodes, breadth-first; empty when `none` says why.
    pub nodes: Vec<CauseNode>,
    /// Functions by their own change, largest share first.
    pub functions: Vec<CauseFunction>,
    /// Index into `functions` of the root cause: the first whose own
    /// change is significant and in the change's direction.
    pub cause: Option<usize>,
    /// Why there is no root cause, when there is none.
    pub none: Option<String>,
    pub metric: String,
    /// The metric's unit name (`nanoseconds`, `samples`, …).
    pub unit: String,
    pub repetitions: (usize, usize),
}

impl RootCause {
    /// The function that explains most of the change, when one does.
    pub fn main_function(&self) -> Option<&CauseFunction> {
        self.functions.get(self.cause?)
    }
}

/// One version's repetitions of a benchmark, by function, with inclusive
/// and self values of one metric.
struct Side {
    trees: Vec<CallTree>,
    inclusive: Vec<Vec<f64>>,
}

impl Side {
    fn new(
        history: &History,
        frames: &ShapeFrames,
        benchmark: &str,
        version: usize,
        metric: &str,
    ) -> Side {
        let mut trees = Vec::new();
        let mut inclusive = Vec::new();
        for entry in history
            .profiles
            .iter()
            .filter(|p| p.benchmark == benchmark && p.version == version)
        {
            if let Some(m) = entry.profile.metrics.iter().position(|x| x.name == metric) {
                let tree = entry.profile.tree.project(m);
                let tree = shapes::by_function(&tree, frames);
                inclusive.push(tree.inclusive(0));
                trees.push(tree);
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

    /// Per repetition: the node's own value.
    fn self_values(&self, nodes: &[Option<NodeId>]) -> Vec<f64> {
        nodes
            .iter()
            .zip(&self.trees)
            .map(|(n, t)| n.map(|n| t.self_value(n, 0)).unwrap_or(0.0))
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

    /// Per repetition: each function's own value over the whole tree,
    /// engine frames counted for the function that ran them
    /// ([`crate::code_owner`]).
    fn function_totals(&self, frames: &ShapeFrames) -> Vec<rustc_hash::FxHashMap<FrameId, f64>> {
        let placed = |f: FrameId| code_owner::is_placed(frames.table.get(f));
        self.trees
            .iter()
            .map(|t| {
                let mut totals = rustc_hash::FxHashMap::default();
                let owners = code_owner::owners(t, placed);
                for n in t.node_ids().skip(1) {
                    if let Some(o) = code_owner::owner_of(&owners, n) {
                        *totals.entry(o).or_default() += t.self_value(n, 0);
                    }
                }
                totals
            })
            .collect()
    }
}

/// Compares the call trees of `benchmark` in versions `before` and
/// `after` for a change in `direction`. `modified` says whether the
/// responsible version changed a history frame's method.
#[allow(clippy::too_many_arguments)]
pub fn analyse(
    history: &History,
    frames: &ShapeFrames,
    benchmark: &str,
    (before, after): (usize, usize),
    direction: Direction,
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
    let old = Side::new(history, frames, benchmark, before, &metric);
    let new = Side::new(history, frames, benchmark, after, &metric);
    let repetitions = (old.trees.len(), new.trees.len());
    let mut cause = RootCause {
        benchmark: benchmark.to_string(),
        direction,
        nodes: Vec::new(),
        functions: Vec::new(),
        cause: None,
        none: None,
        metric,
        unit,
        repetitions,
    };
    if repetitions.0 < min_repetitions || repetitions.1 < min_repetitions {
        cause.none = Some(format!(
            "a call-tree comparison needs at least {min_repetitions} profile repetitions of `{benchmark}` in both versions; there are {} and {}",
            repetitions.0, repetitions.1
        ));
        return cause;
    }
    let search = Search {
        frames,
        old: &old,
        new: &new,
        settings,
        direction,
        modified,
    };
    search.breadth_first(&mut cause.nodes);
    cause.functions = search.functions();
    if !cause.nodes.first().is_some_and(|n| n.flagged) {
        // No root cause for a change the profiles themselves do not show.
        let word = match direction {
            Direction::Regression => "slower",
            Direction::Improvement => "faster",
        };
        cause.none = Some(format!(
            "the profiles' totals ({}) of `{benchmark}` are not significantly {word} in the later version, so no function is named; the largest contributors are listed",
            cause.metric
        ));
        return cause;
    }
    cause.cause = cause.functions.iter().position(|f| f.significant);
    if let Some(f) = cause.main_function().filter(|f| f.share < MIN_CAUSE_SHARE) {
        cause.none = Some(format!(
            "the change is diffuse: no function explains {:.0}% or more of it (the largest significant one, `{}`, explains {:.0}%); the largest contributors are listed",
            MIN_CAUSE_SHARE * 100.0,
            f.name,
            f.share * 100.0
        ));
        cause.cause = None;
    }
    cause
}

/// What one comparison needs.
struct Search<'a> {
    frames: &'a ShapeFrames,
    old: &'a Side,
    new: &'a Side,
    settings: &'a Settings,
    direction: Direction,
    modified: &'a dyn Fn(FrameId) -> bool,
}

impl Search<'_> {
    /// Significantly changed in the search's direction, with the test.
    fn changed(&self, a: &[f64], b: &[f64]) -> (bool, Option<stats::Comparison>) {
        let s = self.settings;
        let c = stats::compare(s.test, a, b, s.confidence);
        let toward = |d: f64| match self.direction {
            Direction::Regression => d > 0.0,
            Direction::Improvement => d < 0.0,
        };
        let hit = match c {
            Some(c) => c.significant() && toward(c.difference),
            // No variance on either side: absent in every repetition of
            // one version, the same value in all of the other.
            None => constant_shift(a, b) && toward(mean(b) - mean(a)),
        };
        (hit, c)
    }

    /// The whole profile's difference (mean after − mean before).
    fn total_delta(&self) -> f64 {
        let root = |side: &Side| side.values(&vec![Some(NodeId::ROOT); side.trees.len()]);
        mean(&root(self.new)) - mean(&root(self.old))
    }

    fn breadth_first(&self, nodes: &mut Vec<CauseNode>) {
        let (old, new) = (self.old, self.new);
        let total = self.total_delta();
        let root_old = vec![Some(NodeId::ROOT); old.trees.len()];
        let root_new = vec![Some(NodeId::ROOT); new.trees.len()];
        let mut queue = std::collections::VecDeque::new();
        queue.push_back((None, None, root_old, root_new));
        let confidence = self.settings.confidence;
        while let Some((parent, frame, at_old, at_new)) = queue.pop_front() {
            if nodes.len() >= MAX_NODES {
                break;
            }
            let (a, b) = (old.values(&at_old), new.values(&at_new));
            let (flagged, comparison) = self.changed(&a, &b);
            let (sa, sb) = (old.self_values(&at_old), new.self_values(&at_new));
            let self_delta = mean(&sb) - mean(&sa);
            let self_share = (frame.is_some() && total != 0.0).then(|| self_delta / total);
            let own_change = frame.is_some() && self.changed(&sa, &sb).0;
            let callees_old = old.callees(&at_old);
            let callees_new = new.callees(&at_new);
            let shape_changed = frame.is_some()
                && self.one_sided_change(&at_old, &at_new, &callees_old, &callees_new);
            let shown = frame.map(|f| self.frames.table.get(f));
            let index = nodes.len();
            nodes.push(CauseNode {
                parent,
                frame,
                name: shown.map_or_else(|| "all".into(), |f| f.function.clone()),
                file: shown.and_then(|f| f.file.clone()),
                before: stats::summary(&a, confidence),
                after: stats::summary(&b, confidence),
                p_value: comparison.map(|c| c.p_value),
                relative: comparison.and_then(|c| c.relative),
                flagged,
                shape_changed,
                candidate: flagged
                    && own_change
                    && self_share.is_some_and(|s| s >= CANDIDATE_SHARE),
                modified: flagged && frame.is_some_and(|f| (self.modified)(self.frames.origin(f))),
                self_share,
                callees_left: 0,
            });
            if !flagged {
                continue;
            }
            let mut callees = callees_old;
            callees.extend(callees_new);
            callees.sort_unstable();
            callees.dedup();
            // The largest callees first, so the bound drops the least.
            let size = |f: FrameId| {
                let v = new.values(&new.child(&at_new, f));
                let w = old.values(&old.child(&at_old, f));
                v.iter().sum::<f64>().max(w.iter().sum::<f64>())
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

    /// Whether a callee present in one version only differs significantly
    /// (a handful of samples of a new callee is not a new shape).
    fn one_sided_change(
        &self,
        at_old: &[Option<NodeId>],
        at_new: &[Option<NodeId>],
        callees_old: &[FrameId],
        callees_new: &[FrameId],
    ) -> bool {
        let only_one = callees_old
            .iter()
            .filter(|f| callees_new.binary_search(f).is_err())
            .chain(
                callees_new
                    .iter()
                    .filter(|f| callees_old.binary_search(f).is_err()),
            );
        only_one.into_iter().any(|&f| {
            let a = self.old.values(&self.old.child(at_old, f));
            let b = self.new.values(&self.new.child(at_new, f));
            let c = stats::compare(self.settings.test, &a, &b, self.settings.confidence);
            match c {
                Some(c) => c.significant(),
                None => constant_shift(&a, &b),
            }
        })
    }

    /// Every function's own change over the whole profile, the largest in
    /// the search's direction first.
    fn functions(&self) -> Vec<CauseFunction> {
        let total = self.total_delta();
        if total == 0.0 {
            return Vec::new();
        }
        let (old, new) = (
            self.old.function_totals(self.frames),
            self.new.function_totals(self.frames),
        );
        let mut all: Vec<FrameId> = old
            .iter()
            .chain(&new)
            .flat_map(|m| m.keys().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        let per_rep = |side: &[rustc_hash::FxHashMap<FrameId, f64>], f: FrameId| -> Vec<f64> {
            side.iter()
                .map(|m| m.get(&f).copied().unwrap_or(0.0))
                .collect()
        };
        let mut ranked: Vec<(f64, FrameId, Vec<f64>, Vec<f64>)> = all
            .into_iter()
            .map(|f| {
                let (a, b) = (per_rep(&old, f), per_rep(&new, f));
                ((mean(&b) - mean(&a)) / total, f, a, b)
            })
            .filter(|(share, ..)| *share >= MIN_FUNCTION_SHARE)
            .collect();
        ranked.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
        ranked.truncate(MAX_FUNCTIONS);
        let confidence = self.settings.confidence;
        let tested: Vec<(bool, Option<stats::Comparison>)> = ranked
            .iter()
            .map(|(_, _, a, b)| self.changed(a, b))
            .collect();
        // The functions' tests are one family: Benjamini–Hochberg over
        // them at the test's level, so that the first of a dozen to pass
        // alone is not named by chance. A change without variance (absent
        // in every repetition of one side) is exact and stays.
        let p_values: Vec<f64> = tested
            .iter()
            .filter(|(hit, _)| *hit)
            .filter_map(|(_, c)| c.map(|c| c.p_value))
            .collect();
        let threshold =
            super::regression::benjamini_hochberg(&p_values, tested.len(), 1.0 - confidence);
        ranked
            .into_iter()
            .zip(tested)
            .map(|((share, f, a, b), (hit, c))| {
                let significant = hit
                    && match c {
                        Some(c) => threshold.is_some_and(|t| c.p_value <= t),
                        None => true,
                    };
                let shown = self.frames.table.get(f);
                CauseFunction {
                    frame: f,
                    name: shown.function.clone(),
                    file: shown.file.clone(),
                    before: stats::summary(&a, confidence),
                    after: stats::summary(&b, confidence),
                    delta: mean(&b) - mean(&a),
                    share,
                    p_value: c.map(|c| c.p_value),
                    significant,
                    modified: (self.modified)(self.frames.origin(f)),
                }
            })
            .collect()
    }
}

/// Two groups of at least two values, each constant, that differ: a
/// change no t-test can measure (there is no variance) but no noise
/// explains either.
fn constant_shift(a: &[f64], b: &[f64]) -> bool {
    let constant = |x: &[f64]| x.len() > 1 && x.iter().all(|v| *v == x[0]);
    constant(a) && constant(b) && a[0] != b[0]
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    xs.iter().sum::<f64>() / xs.len() as f64
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
    use config::RegressionConfig;
    use model::{Metric, Profile, ProfileEntry, Unit};

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
        let ids = model::FunctionIds::new(h, &Default::default());
        let frames = ShapeFrames::new(&h.frames, &ids);
        analyse(
            h,
            &frames,
            "testFoo",
            (0, 1),
            Direction::Regression,
            2,
            &settings,
            modified,
        )
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
        // fem's own time is 90 of the 90 added: the root cause.
        let main = cause.main_function().unwrap();
        assert_eq!(main.name, "fem");
        assert!((main.share - 1.0).abs() < 0.05, "{}", main.share);
        assert!(main.modified);
    }

    #[test]
    fn a_new_callee_changes_the_shape_and_the_search_goes_on_below() {
        let cause = run(&history(5, true), &|_| false);
        // sort is new in every repetition: a candidate too, but fem's own
        // time explains the change.
        assert_eq!(names(&cause, |n| n.candidate), ["fem", "sort"]);
        assert_eq!(cause.main_function().unwrap().name, "fem");
        let fem = cause.nodes.iter().find(|n| n.name == "fem").unwrap();
        assert!(fem.shape_changed, "sort is new, in every repetition");
        // fem's callees are compared: none got slower.
        assert_eq!(
            names(&cause, |n| n
                .parent
                .is_some_and(|p| cause.nodes[p].name == "fem")),
            ["wug", "qux", "sort"]
        );
    }

    #[test]
    fn the_same_function_on_another_line_or_install_path_is_matched() {
        // The harness's frame names the version in its path, and the
        // library's function moved down by seven lines.
        let mut h = History::default();
        for v in ["1.0", "1.1"] {
            h.versions.push(model::Version {
                name: v.into(),
                label: v.into(),
                ..Default::default()
            });
        }
        for (version, lex, line) in [(0, 10.0, 90), (1, 100.0, 97)] {
            let v = ["1.0", "1.1"][version];
            for rep in 1..=3u32 {
                let mut p = Profile::new(vec![Metric::new("cpu", Unit::Nanoseconds)]);
                let frame = |f: &str, file: String, l: u32| model::Frame {
                    function: f.into(),
                    file: Some(file),
                    line: Some(l),
                    start_line: Some(l),
                    ..Default::default()
                };
                let main =
                    h.frames
                        .intern(frame("(anonymous)", format!("/w/install/{v}/bench.mjs"), 1));
                let lex_f = h.frames.intern(frame(
                    "lex",
                    format!("/w/install/{v}/node_modules/lib/Lexer.js"),
                    line,
                ));
                let j = 1.0 + rep as f64 * 0.02;
                p.tree.add_stack([main], &[5.0 * j]);
                p.tree.add_stack([main, lex_f], &[lex * j]);
                h.profiles.push(ProfileEntry {
                    version,
                    benchmark: "cpu".into(),
                    repetition: rep,
                    source: format!("{v}/cpu.{rep}"),
                    format: "test",
                    profile: p,
                });
            }
        }
        let settings = Settings::from_config(&RegressionConfig::default());
        let rules = model::PathRules::of_history(&h, &[]);
        let ids = model::FunctionIds::new(&h, &rules);
        let frames = ShapeFrames::new(&h.frames, &ids);
        let cause = analyse(
            &h,
            &frames,
            "cpu",
            (0, 1),
            Direction::Regression,
            2,
            &settings,
            &|_| false,
        );
        assert_eq!(names(&cause, |n| n.flagged), ["all", "(anonymous)", "lex"]);
        assert_eq!(names(&cause, |n| n.candidate), ["lex"]);
        assert_eq!(cause.main_function().unwrap().name, "lex");
        assert_eq!(
            cause.main_function().unwrap().file.as_deref(),
            Some("lib/Lexer.js")
        );
    }

    #[test]
    fn one_repetition_gives_a_reason_instead() {
        let cause = run(&history(1, false), &|_| false);
        assert!(cause.nodes.is_empty());
        assert_eq!(
            cause.none.as_deref(),
            Some("a call-tree comparison needs at least 2 profile repetitions of `testFoo` in both versions; there are 1 and 1")
        );
    }
}
