//! Regression detection over the ordered versions (PRCA, sections 3 and
//! 4.1): each benchmark's series of repeated samples, the categories that
//! separate major from minor changes, the verdict on a pair of versions
//! with a false-discovery-rate control over every pair of a build, and the
//! changes: every pair of consecutive measured versions that differs
//! significantly, named by its later version, and marked when a later
//! change undid it. (PRCA's probing search is for versions that were not
//! measured: `perfatlas bisect` measures the commits it probes.)
//!
//! The unit of replication is an independent run: a hyperfine run, a
//! profile repetition, a Google Benchmark repetition. Samples taken inside
//! one process (Criterion's iterations, pytest-benchmark's rounds) are
//! averaged into their run's one value and never counted as runs.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::change_points::{self, relative_size, ChangePoint};
use super::stats::{self, Comparison, Summary, Test};
use config::{BenchmarkConfig, Config, RegressionConfig};
use model::{
    Better, History, Interval, MeasuredBenchmark, MeasurementEntry, ProfileEntry, RunMeans, Unit,
};

mod changes;
mod fdr;
mod new_value;
mod series;

pub use changes::*;
pub use fdr::*;
pub use new_value::*;
pub use series::*;

/// The settings every comparison uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Settings {
    pub test: Test,
    pub confidence: f64,
    pub min_runs: usize,
    /// The smallest relative change reported.
    pub min_change: f64,
    /// Fewest versions on each side of a change point.
    pub min_segment: usize,
    /// Most values before a single new value that `check` judges it by.
    pub window: usize,
}

impl Settings {
    pub fn from_config(config: &RegressionConfig) -> Settings {
        Settings {
            test: Test::parse(&config.test).unwrap_or_default(),
            confidence: config.confidence,
            min_runs: config.min_runs,
            min_change: config.min_change,
            min_segment: config.min_segment,
            window: config.window,
        }
    }

    fn change_points(&self) -> change_points::Settings {
        change_points::Settings {
            confidence: self.confidence,
            min_segment: self.min_segment,
            min_change: self.min_change,
        }
    }
}

/// Named bands of a series' values, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Categories {
    pub names: Vec<String>,
    /// The edge between each band and the next: rising for a figure
    /// better lower (each band's upper edge), falling for one better
    /// higher (each band's lower edge).
    pub edges: Vec<f64>,
    /// The version whose mean the bands were derived from; `None` when
    /// configured.
    pub derived_from: Option<usize>,
    /// Which way the figure improves.
    pub better: Better,
}

impl Categories {
    pub fn of(&self, value: f64) -> usize {
        match self.better {
            Better::Lower => self.edges.iter().take_while(|&&edge| value >= edge).count(),
            Better::Higher => self.edges.iter().take_while(|&&edge| value <= edge).count(),
        }
    }

    /// The edges rising and the bands' names from the lowest values up
    /// (for a figure better higher, the worst band first).
    pub fn rising(&self) -> (Vec<f64>, Vec<&str>) {
        let mut edges = self.edges.clone();
        let mut names: Vec<&str> = self.names.iter().map(String::as_str).collect();
        if self.better == Better::Higher {
            edges.reverse();
            names.reverse();
        }
        (edges, names)
    }

    /// The name of the category `value` falls in.
    pub fn name_of(&self, value: f64) -> &str {
        let names = &self.names;
        names
            .get(self.of(value))
            .or(names.last())
            .map_or("", String::as_str)
    }

    /// A configured set, or bands at `auto_bands` × the first version's
    /// mean when none is configured. `None` without data or for a
    /// configured set in another unit than times.
    pub fn for_series(series: &Series, config: &RegressionConfig) -> Option<Categories> {
        if !config.categories.is_empty() {
            let edges = config
                .categories
                .iter()
                .filter_map(|c| c.below.as_ref()?.value().ok())
                .collect();
            return Some(Categories {
                names: config.categories.iter().map(|c| c.name.clone()).collect(),
                edges,
                derived_from: None,
                better: Better::Lower,
            });
        }
        let first = series.points.iter().find(|p| p.mean().is_some())?;
        let base = first.mean()?;
        let mut names = vec!["as first measured".to_string()];
        let worse = match (series.better, series.unit.as_str()) {
            (Better::Higher, _) => "less or worse",
            (Better::Lower, "s") => "slower or more",
            (Better::Lower, "bytes") => "the memory or more",
            (Better::Lower, _) => "more or worse",
        };
        names.extend(config.auto_bands.iter().map(|f| format!("{f}× {worse}")));
        let edge = |f: &f64| match series.better {
            Better::Lower => f * base,
            Better::Higher => base / f,
        };
        Some(Categories {
            names,
            edges: config.auto_bands.iter().map(edge).collect(),
            derived_from: Some(first.version),
            better: series.better,
        })
    }
}

/// A regression or an improvement, in the series' own direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Regression,
    Improvement,
}

impl Direction {
    /// The direction of a change by `difference` (later − earlier) in a
    /// figure that improves `better`.
    pub fn of(difference: f64, better: Better) -> Direction {
        match (difference > 0.0, better) {
            (true, Better::Lower) | (false, Better::Higher) => Direction::Regression,
            _ => Direction::Improvement,
        }
    }
}

/// Major: the category changed; minor: significant within the category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Minor,
    Major,
}

/// The verdict on a pair of versions.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Change {
        direction: Direction,
        severity: Severity,
    },
    NoChange,
    /// Significant at the test's own level, but held back by the build's
    /// false-discovery-rate control.
    HeldBack {
        /// The p-value of the test alone.
        #[serde(rename = "p_value_alone")]
        p_value: f64,
    },
    /// A difference smaller than the smallest practical change
    /// (`regressions.min_change`), whatever its p-value.
    Negligible {
        /// (after − before) / before.
        #[serde(rename = "size")]
        relative: f64,
    },
    NotEnoughData {
        reason: String,
    },
}

impl Verdict {
    /// Whether the pair was judged (a change or none, of any size).
    pub fn judged(&self) -> bool {
        !matches!(self, Verdict::NotEnoughData { .. })
    }
}

/// How a series' versions are told apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Judging {
    /// Each version's independent runs against the previous version's
    /// (Welch's t-test or ANOVA).
    Runs,
    /// Every version's runs are equal (an allocation count, bytes per
    /// operation, an instruction count): versions are compared exactly.
    Exact,
    /// Too few runs per version for a test: the steps of the history of
    /// each version's value ([`change_points`]).
    ChangePoints { found: Vec<ChangePoint> },
}

impl Judging {
    /// Runs when at least half the points have `min_runs` independent
    /// runs; exact when at least half have two or more runs and no point
    /// varies; change points otherwise.
    pub fn choose(series: &Series, settings: &Settings) -> Judging {
        let points = &series.points;
        let repeated = points.iter().filter(|p| p.values.len() >= 2).count();
        let constant = points
            .iter()
            .all(|p| p.values.len() < 2 || p.values.moments().variance == 0.0);
        if repeated > 0 && 2 * repeated >= points.len() && constant {
            return Judging::Exact;
        }
        let enough = points
            .iter()
            .filter(|p| p.values.len() >= settings.min_runs)
            .count();
        if 2 * enough >= points.len() && enough > 0 {
            return Judging::Runs;
        }
        let means: Vec<f64> = points.iter().map(mean).collect();
        Judging::ChangePoints {
            found: change_points::detect(&means, &settings.change_points()),
        }
    }

    /// How it was judged, in words, for pages and reports.
    pub fn describe(&self, settings: &Settings) -> String {
        match self {
            Judging::Runs => format!(
                "{} between the independent runs of two versions",
                settings.test.label()
            ),
            Judging::Exact => "exact comparison: every version's runs are equal".into(),
            Judging::ChangePoints { .. } => format!(
                "change-point detection over the history (one value per version; a level must hold for {} versions)",
                settings.min_segment
            ),
        }
    }
}

fn mean(p: &Point) -> f64 {
    p.mean().unwrap_or(f64::NAN)
}

/// Why a point cannot be judged, if it cannot.
fn too_little(p: &Point, settings: &Settings) -> Option<String> {
    let runs = p.values.len();
    if runs >= settings.min_runs {
        return None;
    }
    let mut reason = format!(
        "{} independent run{} (at least {} needed)",
        runs,
        if runs == 1 { "" } else { "s" },
        settings.min_runs
    );
    if p.in_process {
        reason.push_str(&format!(
            "; its {} samples were taken inside one process and are not independent",
            p.samples
        ));
    }
    Some(reason)
}

/// Compares the newer point `b` with `a` by their runs, in the series'
/// direction.
pub fn judge(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    better: Better,
    settings: &Settings,
) -> (Verdict, Option<Comparison>) {
    if let Some(reason) = too_little(a, settings).or_else(|| too_little(b, settings)) {
        let by_intervals = interval_verdict(a, b, categories, better, settings);
        return (
            by_intervals.unwrap_or(Verdict::NotEnoughData { reason }),
            None,
        );
    }
    let c = stats::compare(settings.test, &a.values, &b.values, settings.confidence);
    let significance = c.map(|c| (c.significant(), c.difference));
    (
        verdict_of(a, b, categories, better, significance, settings),
        c,
    )
}

/// [`judge`]'s verdict alone, computed more cheaply (the test's p-value
/// only when its statistic is near the critical value): for judging every
/// version against the one before.
pub fn verdict(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    better: Better,
    settings: &Settings,
) -> Verdict {
    if let Some(reason) = too_little(a, settings).or_else(|| too_little(b, settings)) {
        let by_intervals = interval_verdict(a, b, categories, better, settings);
        return by_intervals.unwrap_or(Verdict::NotEnoughData { reason });
    }
    let significance = stats::significant_difference_of(
        settings.test,
        (&a.values, &a.values.moments()),
        (&b.values, &b.values.moments()),
        settings.confidence,
    );
    verdict_of(a, b, categories, better, significance, settings)
}

/// The verdict on two points with enough runs, from whether they differ
/// significantly and the difference of their means (`None`: no variance
/// can be estimated).
fn verdict_of(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    better: Better,
    significance: Option<(bool, f64)>,
    settings: &Settings,
) -> Verdict {
    let Some((significant, difference)) = significance else {
        return Verdict::NotEnoughData {
            reason: "no variance can be estimated".into(),
        };
    };
    if !significant {
        return Verdict::NoChange;
    }
    change_of_size(a, b, categories, better, difference, settings)
}

/// A change from `a` to `b` (already known to be real), or negligible
/// when smaller than the practical size.
fn change_of_size(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    better: Better,
    difference: f64,
    settings: &Settings,
) -> Verdict {
    let (before, after) = (mean(a), mean(b));
    let size = relative_size(before, after);
    if size < settings.min_change {
        return Verdict::Negligible {
            relative: if before == 0.0 {
                0.0
            } else {
                (after - before) / before
            },
        };
    }
    let severity = match categories {
        Some(cat) if cat.of(before) != cat.of(after) => Severity::Major,
        _ => Severity::Minor,
    };
    Verdict::Change {
        direction: Direction::of(difference, better),
        severity,
    }
}

/// Two points judged by the intervals their tool recorded, as `asv compare`
/// judges two commits: intervals apart are a change (when of practical
/// size), overlapping ones no change. `None` unless both points have an
/// interval.
pub fn interval_verdict(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    better: Better,
    settings: &Settings,
) -> Option<Verdict> {
    let (x, y) = (a.interval.as_deref()?, b.interval.as_deref()?);
    Some(match x.overlaps(y) {
        true => Verdict::NoChange,
        false => change_of_size(a, b, categories, better, mean(b) - mean(a), settings),
    })
}

/// Two points too short of runs for a test, judged by their intervals.
fn by_intervals(a: &Point, b: &Point, settings: &Settings) -> bool {
    let short = too_little(a, settings).is_some() || too_little(b, settings).is_some();
    short && a.interval.is_some() && b.interval.is_some()
}

/// Two points of a series whose every version's runs are equal:
/// different values are a change, no test needed.
fn exact_verdict(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    better: Better,
    settings: &Settings,
) -> Verdict {
    let (before, after) = (mean(a), mean(b));
    if before == after {
        return Verdict::NoChange;
    }
    change_of_size(a, b, categories, better, after - before, settings)
}

/// One point against the one before it, before the build's false-discovery
/// control: the verdict at the test's own confidence and, where that found
/// a change, the exact p-value.
#[derive(Debug, Clone, PartialEq)]
pub struct PairTest {
    pub verdict: Verdict,
    pub p_value: Option<f64>,
    /// Decided without a test (exact values, or intervals the tool
    /// recorded): no p-value, no member of the family, never held back.
    pub untested: bool,
    /// Counts as one comparison of the build's family. Every pair judged
    /// by its runs does; a series judged by change points counts each
    /// change point and one more for the search that found no other (its
    /// p-values are already corrected for the positions searched).
    pub counted: bool,
}

impl PairTest {
    /// Whether a test was made (both points had enough runs and variance)
    /// and counts in the family.
    pub fn tested(&self) -> bool {
        !self.untested
            && self.counted
            && matches!(
                self.verdict,
                Verdict::Change { .. } | Verdict::NoChange | Verdict::Negligible { .. }
            )
    }
}

/// Every point of `series` against the one before it, judged as
/// `judging` says, at the test's own confidence (the p-value only where a
/// change was found: only those can survive a false-discovery control at
/// the same level).
pub fn pair_tests(
    series: &Series,
    judging: &Judging,
    categories: Option<&Categories>,
    settings: &Settings,
) -> Vec<PairTest> {
    let better = series.better;
    let points = &series.points;
    match judging {
        Judging::Runs => points
            .windows(2)
            .map(|w| {
                let verdict = verdict(&w[0], &w[1], categories, better, settings);
                let p_value = match verdict {
                    Verdict::Change { .. } => stats::compare(
                        settings.test,
                        &w[0].values,
                        &w[1].values,
                        settings.confidence,
                    )
                    .map(|c| c.p_value),
                    _ => None,
                };
                let untested = by_intervals(&w[0], &w[1], settings);
                PairTest {
                    verdict,
                    p_value,
                    untested,
                    counted: !untested,
                }
            })
            .collect(),
        Judging::Exact => points
            .windows(2)
            .map(|w| PairTest {
                verdict: exact_verdict(&w[0], &w[1], categories, better, settings),
                p_value: None,
                untested: true,
                counted: false,
            })
            .collect(),
        Judging::ChangePoints { found } => change_point_tests(series, found, categories, settings),
    }
}

/// The pairs of a series judged by its change points: a change at each,
/// no change elsewhere; too few versions, or too near either end of the
/// history for a level to have held, is not enough data.
fn change_point_tests(
    series: &Series,
    found: &[ChangePoint],
    categories: Option<&Categories>,
    settings: &Settings,
) -> Vec<PairTest> {
    let n = series.points.len();
    let m = settings.min_segment;
    let mut search_counted = false;
    let judging = Judging::ChangePoints {
        found: found.to_vec(),
    };
    let points = &series.points;
    (1..n)
        .map(|i| {
            let at = found.iter().find(|c| c.index == i);
            let (a, b) = (&points[i - 1], &points[i]);
            // Too short a history for change points: two versions are
            // compared by the intervals their tool recorded, if any.
            let intervals = (n < 2 * m)
                .then(|| interval_verdict(a, b, categories, series.better, settings))
                .flatten();
            let mut untested = false;
            let (verdict, p_value) = match at {
                Some(c) => {
                    let levels = level_points(series, c);
                    let v = change_of_size(
                        &levels.0,
                        &levels.1,
                        categories,
                        series.better,
                        c.comparison.difference,
                        settings,
                    );
                    (v, Some(c.comparison.p_value))
                }
                // The newest value, which no step can have held after yet,
                // is judged as `check` judges it: against the values
                // before it.
                None if i == n - 1 && window_before(series, &judging, i, settings).len() >= 3 => {
                    let (v, c) = judge_new_value(series, &judging, i, i, categories, settings);
                    let p = c.filter(|_| matches!(v, Verdict::Change { .. }));
                    (v, p.map(|c| c.p_value))
                }
                None if intervals.is_some() => {
                    untested = true;
                    (intervals.clone().unwrap_or(Verdict::NoChange), None)
                }
                None if n < 2 * m => (
                    Verdict::NotEnoughData {
                        reason: too_short(series, settings),
                    },
                    None,
                ),
                None if i < m || i > n - m => (
                    Verdict::NotEnoughData {
                        reason: format!(
                            "too near the {} to tell a step from noise (a level must hold for {m} versions on each side)",
                            if i < m { "start" } else { "end" }
                        ),
                    },
                    None,
                ),
                None => (Verdict::NoChange, None),
            };
            let newest_test = i == n - 1 && verdict.judged() && !untested;
            let counted = !untested
                && (p_value.is_some()
                    || newest_test
                    || (verdict == Verdict::NoChange
                        && !std::mem::replace(&mut search_counted, true)));
            PairTest {
                verdict,
                p_value,
                untested,
                counted,
            }
        })
        .collect()
}

/// Why a series judged by change points is too short for any, and what
/// would be enough.
fn too_short(series: &Series, settings: &Settings) -> String {
    let n = series.points.len();
    let newest = series.points.last().map_or(0, |p| p.values.len());
    let what = if series.points.iter().all(|p| p.values.len() == 1) {
        format!("{n} versions of one value each")
    } else {
        format!(
            "{n} versions, most with fewer than {} independent runs (the newest has {newest})",
            settings.min_runs
        )
    };
    format!(
        "{what}: change-point detection needs at least {} versions, or {} runs in each of two versions for a test between them",
        2 * settings.min_segment,
        settings.min_runs
    )
}

/// The two levels of a change point as points: the mean of each side's
/// values stands for it (categories and sizes are read from them).
fn level_points(series: &Series, c: &ChangePoint) -> (Point, Point) {
    let level = |range: std::ops::Range<usize>| {
        let values: Vec<f64> = series.points[range.clone()].iter().map(mean).collect();
        Point {
            version: series.points[range.end - 1].version,
            samples: values.len(),
            values: values.into(),
            interval: None,
            in_process: false,
            sources: Names::default(),
            notes: Names::default(),
        }
    };
    (level(c.from..c.index), level(c.index..c.to))
}

/// Section 4.1 on a linear history: the filtered set is good+1..=bad; the
/// k-th of its N members has a = k ancestors in it; the probe has the
/// highest w = min(a + 1, N − (a + 1)), the earliest on ties. `None` when
/// good and bad are adjacent. (`perfatlas bisect` probes the commit graph
/// by the same weights, see [`vcs::commit_search`].)
pub fn next_linear_probe(good: usize, bad: usize) -> Option<(usize, usize)> {
    let n = bad - good;
    (0..n)
        .map(|a| (good + 1 + a, (a + 1).min(n - (a + 1))))
        .filter(|&(_, w)| w > 0)
        .max_by_key(|&(i, w)| (w, std::cmp::Reverse(i)))
}

#[cfg(test)]
mod tests;
