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

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::stats::{self, Comparison, Summary, Test};
use config::{BenchmarkConfig, RegressionConfig};
use model::{History, MeasurementEntry, ProfileEntry, RunMeans, Unit};

/// The settings every comparison uses.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Settings {
    pub test: Test,
    pub confidence: f64,
    pub min_runs: usize,
}

impl Settings {
    pub fn from_config(config: &RegressionConfig) -> Settings {
        Settings {
            test: Test::parse(&config.test).unwrap_or_default(),
            confidence: config.confidence,
            min_runs: config.min_runs,
        }
    }
}

/// Where a series' figures come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// Measurement files written by benchmark tools.
    Measurements { formats: Vec<String> },
    /// One value per profile repetition: the profile's total of `metric`.
    ProfileTotals { metric: String },
}

impl Origin {
    pub fn describe(&self) -> String {
        match self {
            Origin::Measurements { formats } => format!("measurements ({})", formats.join(", ")),
            Origin::ProfileTotals { metric } => {
                format!("profile totals ({metric}), one per repetition")
            }
        }
    }
}

/// One version's figures for one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// Index into the history's versions.
    pub version: usize,
    /// One value per independent run (the mean of the run's samples).
    pub values: RunMeans,
    /// Samples read in all, counting in-process ones.
    pub samples: usize,
    /// Some run holds several in-process samples.
    pub in_process: bool,
    pub summary: Option<Summary>,
    /// Files the figures came from.
    pub sources: Vec<Arc<str>>,
    /// Readers' notes on which figure was taken.
    pub notes: Vec<Arc<str>>,
}

/// A benchmark's points in version order (versions without data left out).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub benchmark: String,
    /// `s` for times (seconds), else the unit's name.
    pub unit: String,
    pub origin: Origin,
    pub points: Vec<Point>,
}

impl Series {
    /// Points are in version order, so a version's point is found by
    /// binary search.
    fn point_of(&self, version: usize) -> Option<&Point> {
        let i = self
            .points
            .binary_search_by_key(&version, |p| p.version)
            .ok()?;
        Some(&self.points[i])
    }

    /// The mean of a version's runs, when it has figures.
    pub fn mean_at(&self, version: usize) -> Option<f64> {
        self.point_of(version)?.summary.map(|s| s.mean)
    }
}

/// Every benchmark's series: from its measurement files when it has any,
/// else from its profiles' totals. In benchmark-name order, built in
/// parallel. The measurements are in benchmark order already, so each
/// benchmark's are found as runs of equal names rather than gathered one
/// by one (millions of entries in a long history).
pub fn series(history: &History, config: &RegressionConfig) -> Vec<Series> {
    series_named(history, config, &[])
}

/// [`series`], measured benchmarks shown under their configured
/// `display` names (`[[benchmarks]]`), in name order.
pub fn series_named(
    history: &History,
    config: &RegressionConfig,
    configured: &[BenchmarkConfig],
) -> Vec<Series> {
    let mut measured: FxHashMap<&str, Vec<&MeasurementEntry>> = FxHashMap::default();
    for run in history
        .measurements
        .chunk_by(|a, b| a.benchmark == b.benchmark)
    {
        measured
            .entry(&run[0].benchmark)
            .or_default()
            .extend(run.iter());
    }
    let profiled = group_by_benchmark(history.profiles.iter(), |p| &p.benchmark);
    let mut names: Vec<&str> = measured.keys().chain(profiled.keys()).copied().collect();
    names.sort_unstable();
    names.dedup();
    let mut all: Vec<Series> = names
        .into_par_iter()
        .filter_map(|name| match measured.get(name) {
            Some(entries) => measured_series(history, name, entries, config.confidence),
            None => profile_series(history, name, profiled.get(name)?, config),
        })
        .collect();
    let shown = |b: &str| {
        names_of(b, configured)
            .and_then(|c| c.display.clone())
            .filter(|d| !d.is_empty())
    };
    let mut renamed = false;
    for s in &mut all {
        if let Some(d) = shown(&s.benchmark) {
            s.benchmark = d;
            renamed = true;
        }
    }
    if renamed {
        all.sort_by(|a, b| a.benchmark.cmp(&b.benchmark));
    }
    all
}

/// The `[[benchmarks]]` entry of benchmark `name`, by its read name.
pub fn names_of<'a>(name: &str, config: &'a [BenchmarkConfig]) -> Option<&'a BenchmarkConfig> {
    config.iter().find(|c| c.name == name)
}

/// The items of each benchmark, in the order given.
fn group_by_benchmark<'a, T>(
    items: impl Iterator<Item = &'a T>,
    name: impl Fn(&'a T) -> &'a String,
) -> FxHashMap<&'a str, Vec<&'a T>> {
    let mut groups: FxHashMap<&str, Vec<&T>> = FxHashMap::default();
    for item in items {
        groups.entry(name(item).as_str()).or_default().push(item);
    }
    groups
}

/// `entries` (one benchmark's, in history order) grouped by version, in
/// version order; within a version, in history order.
fn by_version<'a, T>(entries: &[&'a T], version: impl Fn(&T) -> usize) -> Vec<Vec<&'a T>> {
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|e| version(e));
    sorted
        .chunk_by(|a, b| version(a) == version(b))
        .map(<[&T]>::to_vec)
        .collect()
}

fn measured_series(
    history: &History,
    benchmark: &str,
    entries: &[&MeasurementEntry],
    confidence: f64,
) -> Option<Series> {
    let unit = entries.first()?.unit.clone();
    let mut formats: Vec<&str> = entries.iter().map(|m| m.format).collect();
    formats.sort_unstable();
    formats.dedup();
    let formats: Vec<String> = formats.into_iter().map(str::to_string).collect();
    let mut sorted;
    let entries = if entries.windows(2).all(|w| w[0].version <= w[1].version) {
        entries
    } else {
        sorted = entries.to_vec();
        sorted.sort_by_key(|m| m.version);
        &sorted[..]
    };
    let points = entries
        .chunk_by(|a, b| a.version == b.version)
        .filter_map(|here| measured_point(history, here, &unit, confidence))
        .collect();
    Some(Series {
        benchmark: benchmark.to_string(),
        unit: unit.to_string(),
        origin: Origin::Measurements { formats },
        points,
    })
}

/// The point of one version from its entries (of one benchmark), counting
/// only those in `unit`.
fn measured_point(
    history: &History,
    here: &[&MeasurementEntry],
    unit: &Arc<str>,
    confidence: f64,
) -> Option<Point> {
    let version = here.first()?.version;
    if version >= history.versions.len() {
        return None;
    }
    let in_unit = || here.iter().filter(|m| m.unit == *unit);
    let first = in_unit().next()?;
    // One file's runs are shared as they are, with the moments taken
    // when the file was read; several files' runs are joined.
    let values: RunMeans = if here.len() == 1 {
        first.run_means.clone()
    } else {
        in_unit()
            .flat_map(|m| m.run_means.iter().copied())
            .collect::<Vec<f64>>()
            .into()
    };
    let mut notes: Vec<Arc<str>> = in_unit()
        .filter(|m| !m.note.is_empty())
        .map(|m| m.note.clone())
        .collect();
    notes.sort();
    notes.dedup();
    Some(Point {
        version,
        summary: stats::summary_of(values.moments(), confidence),
        values,
        samples: in_unit().map(|m| m.samples as usize).sum(),
        in_process: in_unit().any(|m| m.in_process) && in_unit().any(|m| m.multi_sample),
        sources: in_unit().map(|m| m.source.clone()).collect(),
        notes,
    })
}

fn profile_series(
    history: &History,
    benchmark: &str,
    entries: &[&ProfileEntry],
    config: &RegressionConfig,
) -> Option<Series> {
    let first = entries.first()?;
    let metric_name = config.metric.clone().unwrap_or_else(|| {
        first
            .profile
            .metrics
            .first()
            .map(|m| m.name.clone())
            .unwrap_or_default()
    });
    let metric = first
        .profile
        .metrics
        .iter()
        .find(|m| m.name == metric_name)?
        .clone();
    let (unit, scale) = match metric.unit {
        Unit::Nanoseconds => ("s".to_string(), 1e-9),
        ref other => (other.name().to_string(), 1.0),
    };
    let mut points = Vec::new();
    for here in by_version(entries, |p| p.version) {
        let version = here[0].version;
        if version >= history.versions.len() {
            continue;
        }
        let mut values = Vec::new();
        let mut sources = Vec::new();
        for entry in here {
            let Some(m) = entry.profile.metrics.iter().position(|x| *x == metric) else {
                continue;
            };
            values.push(entry.profile.tree.total(m) * scale);
            sources.push(Arc::from(entry.source.as_str()));
        }
        if values.is_empty() {
            continue;
        }
        points.push(Point {
            version,
            summary: stats::summary(&values, config.confidence),
            samples: values.len(),
            values: values.into(),
            in_process: false,
            sources,
            notes: Vec::new(),
        });
    }
    Some(Series {
        benchmark: benchmark.to_string(),
        unit,
        origin: Origin::ProfileTotals {
            metric: metric.name,
        },
        points,
    })
}

/// Named bands of a series' values, fastest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Categories {
    pub names: Vec<String>,
    /// Upper edge of every band but the last, rising.
    pub edges: Vec<f64>,
    /// The version whose mean the bands were derived from; `None` when
    /// configured.
    pub derived_from: Option<usize>,
}

impl Categories {
    pub fn of(&self, value: f64) -> usize {
        self.edges.iter().take_while(|&&edge| value >= edge).count()
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
            });
        }
        let first = series.points.iter().find(|p| p.summary.is_some())?;
        let base = first.summary?.mean;
        let mut names = vec!["as first measured".to_string()];
        names.extend(
            config
                .auto_bands
                .iter()
                .map(|f| format!("{f}× slower or more")),
        );
        Some(Categories {
            names,
            edges: config.auto_bands.iter().map(|f| f * base).collect(),
            derived_from: Some(first.version),
        })
    }
}

/// Slower or faster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Regression,
    Improvement,
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
    NotEnoughData {
        reason: String,
    },
}

/// Compares the newer point `b` with `a`.
pub fn judge(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    settings: &Settings,
) -> (Verdict, Option<Comparison>) {
    if let Some(reason) = too_little(a, settings).or_else(|| too_little(b, settings)) {
        return (Verdict::NotEnoughData { reason }, None);
    }
    let c = stats::compare(settings.test, &a.values, &b.values, settings.confidence);
    let significance = c.map(|c| (c.significant(), c.difference));
    (verdict_of(a, b, categories, significance), c)
}

/// [`judge`]'s verdict alone, computed more cheaply (the test's p-value
/// only when its statistic is near the critical value): for judging every
/// version against the one before.
pub fn verdict(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    settings: &Settings,
) -> Verdict {
    if let Some(reason) = too_little(a, settings).or_else(|| too_little(b, settings)) {
        return Verdict::NotEnoughData { reason };
    }
    let significance = stats::significant_difference_of(
        settings.test,
        (&a.values, a.values.moments()),
        (&b.values, b.values.moments()),
        settings.confidence,
    );
    verdict_of(a, b, categories, significance)
}

/// The verdict on two points with enough runs, from whether they differ
/// significantly and the difference of their means (`None`: no variance
/// can be estimated).
fn verdict_of(
    a: &Point,
    b: &Point,
    categories: Option<&Categories>,
    significance: Option<(bool, f64)>,
) -> Verdict {
    let Some((significant, difference)) = significance else {
        return Verdict::NotEnoughData {
            reason: "no variance can be estimated".into(),
        };
    };
    if !significant {
        return Verdict::NoChange;
    }
    let direction = if difference > 0.0 {
        Direction::Regression
    } else {
        Direction::Improvement
    };
    let (before, after) = (mean(a), mean(b));
    let severity = match categories {
        Some(cat) if cat.of(before) != cat.of(after) => Severity::Major,
        _ => Severity::Minor,
    };
    Verdict::Change {
        direction,
        severity,
    }
}

fn mean(p: &Point) -> f64 {
    p.summary.map(|s| s.mean).unwrap_or(f64::NAN)
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

/// How a change was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    /// Two consecutive versions, both measured, compared directly.
    Adjacent,
    /// Two measured versions with `unmeasured` versions between them that
    /// have no figures: the responsible version is one of those or the
    /// later one (`perfatlas bisect` narrows it by PRCA's probing).
    Gap { unmeasured: usize },
}

/// A later change in the other direction that took a change back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Undone {
    /// Version index of the change that took it back.
    pub by: usize,
    /// The mean there against the mean before the change, (x − before) /
    /// before: near 0 when fully undone.
    pub relative_to_before: f64,
}

/// A regression or improvement with the version responsible for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub benchmark: String,
    pub direction: Direction,
    pub severity: Severity,
    /// Version indices: the last one before the change and the responsible
    /// one.
    pub before: usize,
    pub after: usize,
    pub method: Method,
    /// `after` against `before`.
    pub comparison: Option<Comparison>,
    pub categories: (String, String),
    /// A later change that took at least half of this one back.
    pub undone: Option<Undone>,
}

impl Change {
    /// Sort key: major first, then the largest relative change.
    pub fn severity_key(&self) -> (Severity, i64) {
        let relative = self
            .comparison
            .and_then(|c| c.relative)
            .map(|r| (r.abs() * 1e6) as i64)
            .unwrap_or(0);
        (self.severity, relative)
    }
}

/// One point against the one before it, before the build's false-discovery
/// control: the verdict at the test's own confidence and, where that found
/// a change, the exact p-value.
#[derive(Debug, Clone, PartialEq)]
pub struct PairTest {
    pub verdict: Verdict,
    pub p_value: Option<f64>,
}

impl PairTest {
    /// Whether a test was made (both points had enough runs and variance).
    pub fn tested(&self) -> bool {
        matches!(self.verdict, Verdict::Change { .. } | Verdict::NoChange)
    }
}

/// Every point of `series` against the one before it, at the test's own
/// confidence (the p-value only where a change was found: only those can
/// survive a false-discovery control at the same level).
pub fn pair_tests(
    series: &Series,
    categories: Option<&Categories>,
    settings: &Settings,
) -> Vec<PairTest> {
    series
        .points
        .windows(2)
        .map(|w| {
            let verdict = verdict(&w[0], &w[1], categories, settings);
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
            PairTest { verdict, p_value }
        })
        .collect()
}

/// The false-discovery-rate control of a build.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fdr {
    /// Benjamini–Hochberg in force (else each test alone).
    pub in_force: bool,
    /// The rate controlled (1 − confidence).
    pub rate: f64,
    /// Comparisons made in the build (the family).
    pub tests: usize,
    /// The largest p-value still called a change; `None`: none is.
    pub threshold: Option<f64>,
    /// Changes at the test's own confidence that the control held back.
    pub held_back: usize,
}

/// Benjamini–Hochberg over `p_values` (the candidates) of a family of
/// `tests` comparisons at `rate`: the largest p-value that is a discovery.
pub fn benjamini_hochberg(p_values: &[f64], tests: usize, rate: f64) -> Option<f64> {
    let mut sorted: Vec<f64> = p_values.iter().copied().filter(|p| p.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let m = tests.max(sorted.len()) as f64;
    sorted
        .iter()
        .enumerate()
        .filter(|&(k, &p)| p <= (k + 1) as f64 / m * rate)
        .map(|(_, &p)| p)
        .next_back()
}

/// The verdicts of every benchmark's pairs after the false-discovery
/// control (when `in_force`) over all of them: a change whose p-value is
/// above the Benjamini–Hochberg threshold becomes no change.
pub fn controlled(tests: &[Vec<PairTest>], in_force: bool, rate: f64) -> (Vec<Vec<Verdict>>, Fdr) {
    let family = tests.iter().flatten().filter(|t| t.tested()).count();
    let candidates: Vec<f64> = tests.iter().flatten().filter_map(|t| t.p_value).collect();
    let threshold = benjamini_hochberg(&candidates, family, rate);
    let mut held_back = 0;
    let verdicts = tests
        .iter()
        .map(|pairs| {
            pairs
                .iter()
                .map(|t| {
                    let discovered = t.p_value.zip(threshold).is_some_and(|(p, th)| p <= th);
                    match &t.verdict {
                        Verdict::Change { .. } if in_force && !discovered => {
                            held_back += 1;
                            Verdict::NoChange
                        }
                        v => v.clone(),
                    }
                })
                .collect()
        })
        .collect();
    let fdr = Fdr {
        in_force,
        rate,
        tests: family,
        threshold,
        held_back: if in_force { held_back } else { 0 },
    };
    (verdicts, fdr)
}

/// Every regression and improvement of `series`: each pair of consecutive
/// points whose verdict (`verdicts`, one per pair) is a change, named by
/// its later version, with the later change that undid it, if any.
pub fn find_changes(
    series: &Series,
    categories: Option<&Categories>,
    verdicts: &[Verdict],
    settings: &Settings,
) -> Vec<Change> {
    let name = |p: &Point| {
        categories
            .map(|c| c.name_of(mean(p)).to_string())
            .unwrap_or_default()
    };
    let mut found: Vec<(usize, Change)> = Vec::new();
    for (i, (w, verdict)) in series.points.windows(2).zip(verdicts).enumerate() {
        let Verdict::Change {
            direction,
            severity,
        } = *verdict
        else {
            continue;
        };
        let (a, b) = (&w[0], &w[1]);
        let comparison = stats::compare(settings.test, &a.values, &b.values, settings.confidence);
        let method = match b.version - a.version {
            1 => Method::Adjacent,
            n => Method::Gap { unmeasured: n - 1 },
        };
        found.push((
            i,
            Change {
                benchmark: series.benchmark.clone(),
                direction,
                severity,
                before: a.version,
                after: b.version,
                method,
                comparison,
                categories: (name(a), name(b)),
                undone: None,
            },
        ));
    }
    let undone: Vec<Option<Undone>> = found
        .iter()
        .map(|(i, c)| undone_by(series, &found, *i, c))
        .collect();
    found
        .into_iter()
        .zip(undone)
        .map(|((_, c), undone)| Change { undone, ..c })
        .collect()
}

/// The first later change in the other direction after which the series
/// has come back at least half-way to where it was before change `c` (at
/// pair `i`).
fn undone_by(series: &Series, found: &[(usize, Change)], i: usize, c: &Change) -> Option<Undone> {
    let before = mean(&series.points[i]);
    let after = mean(&series.points[i + 1]);
    let half_way = before + (after - before) / 2.0;
    found
        .iter()
        .filter(|(j, later)| *j > i && later.direction != c.direction)
        .find_map(|(j, later)| {
            let there = mean(&series.points[j + 1]);
            let back = match c.direction {
                Direction::Regression => there <= half_way,
                Direction::Improvement => there >= half_way,
            };
            (back && before != 0.0).then(|| Undone {
                by: later.after,
                relative_to_before: (there - before) / before,
            })
        })
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

/// Judges version `newer` against `older` for one series (the CI gate).
pub fn judge_versions(
    series: &Series,
    older: usize,
    newer: usize,
    categories: Option<&Categories>,
    settings: &Settings,
) -> (Verdict, Option<Comparison>) {
    match (series.point_of(older), series.point_of(newer)) {
        (Some(a), Some(b)) => judge(a, b, categories, settings),
        (a, _) => (
            Verdict::NotEnoughData {
                reason: format!(
                    "no figures for the {} version",
                    if a.is_none() { "older" } else { "newer" }
                ),
            },
            None,
        ),
    }
}

#[cfg(test)]
mod tests;
