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

use super::change_points::{self, relative_size, ChangePoint};
use super::stats::{self, Comparison, Summary, Test};
use config::{BenchmarkConfig, Config, RegressionConfig};
use model::{Better, History, Interval, MeasurementEntry, ProfileEntry, RunMeans, Unit};

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
    /// The interval the tool recorded around a figure it gave alone
    /// (asv's 99% confidence interval), when one file gave this point.
    pub interval: Option<Interval>,
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
    /// Which way the figure improves.
    pub better: Better,
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
    let config = Config {
        regressions: config.clone(),
        ..Config::default()
    };
    series_named(history, &config)
}

/// [`series`], measured benchmarks shown under their configured
/// `display` names (`[[benchmarks]]`), in name order, each with its
/// direction ([`direction_of`]).
pub fn series_named(history: &History, settings: &Config) -> Vec<Series> {
    let (config, configured) = (&settings.regressions, &settings.benchmarks[..]);
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
        s.better = direction_of(s, settings);
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

/// Which way a series improves: as `[metrics.NAME] direction` says for
/// its benchmark, profile metric or unit, else as its unit says (rates and
/// scores are better higher), else lower.
pub fn direction_of(series: &Series, config: &Config) -> Better {
    let metric = match &series.origin {
        Origin::ProfileTotals { metric } => Some(metric.as_str()),
        Origin::Measurements { .. } => None,
    };
    let unit_of_name = series
        .benchmark
        .strip_suffix(')')
        .and_then(|b| b.rsplit_once(" ("))
        .map(|(_, unit)| unit);
    let names = [
        Some(series.benchmark.as_str()),
        metric,
        unit_of_name,
        Some(series.unit.as_str()),
    ];
    config
        .direction_of(names.into_iter().flatten())
        .or_else(|| Better::of_unit(&series.unit))
        .or_else(|| unit_of_name.and_then(Better::of_unit))
        .unwrap_or_default()
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
        better: Better::Lower,
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
        interval: if here.len() == 1 {
            first.interval
        } else {
            None
        },
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
            interval: None,
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
        better: Better::Lower,
        points,
    })
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
        let first = series.points.iter().find(|p| p.summary.is_some())?;
        let base = first.summary?.mean;
        let mut names = vec!["as first measured".to_string()];
        let worse = match (series.better, series.unit.as_str()) {
            (Better::Higher, _) => "less or worse",
            (Better::Lower, "s") => "slower or more",
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
        (&a.values, a.values.moments()),
        (&b.values, b.values.moments()),
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
    let (x, y) = (a.interval?, b.interval?);
    Some(match x.overlaps(&y) {
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

/// What a change's figures compare.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Basis {
    /// The two versions' independent runs.
    Runs,
    /// The two versions' values, equal within each version.
    Exact,
    /// The newest value against the prediction interval of the `window`
    /// values before it (a history of one value per version).
    NewValue { window: usize },
    /// The intervals the tool recorded around each version's value, apart
    /// (as `asv compare` reads them): where there are too few runs for a
    /// test and too little history for change points.
    Intervals { before: Interval, after: Interval },
    /// A change point: the values of the versions `from` up to the one
    /// before the change against those from the change up to `to`
    /// (version indices, both included).
    ChangePoint {
        from: usize,
        to: usize,
        before_count: usize,
        after_count: usize,
    },
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
    /// What the figures compare.
    pub basis: Basis,
    /// `after` against `before` (for a change point, the level after
    /// against the level before); `None` for an exact comparison.
    pub comparison: Option<Comparison>,
    /// (after − before) / before of the means compared.
    pub relative: Option<f64>,
    pub categories: (String, String),
    /// A later change that took at least half of this one back.
    pub undone: Option<Undone>,
}

impl Change {
    /// Sort key: major first, then the largest relative change.
    pub fn severity_key(&self) -> (Severity, i64) {
        let relative = self
            .relative
            .filter(|r| r.is_finite())
            .map(|r| (r.abs() * 1e6) as i64)
            .unwrap_or(i64::MAX);
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
            summary: stats::summary(&values, c.comparison.confidence),
            samples: values.len(),
            values: values.into(),
            interval: None,
            in_process: false,
            sources: Vec::new(),
            notes: Vec::new(),
        }
    };
    (level(c.from..c.index), level(c.index..c.to))
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
/// above the Benjamini–Hochberg threshold is held back. Exact
/// comparisons are no tests and are kept as they are.
pub fn controlled(tests: &[Vec<PairTest>], in_force: bool, rate: f64) -> (Vec<Vec<Verdict>>, Fdr) {
    let family = tests.iter().flatten().filter(|t| t.tested()).count();
    let candidates: Vec<f64> = tests
        .iter()
        .flatten()
        .filter(|t| matches!(t.verdict, Verdict::Change { .. }))
        .filter_map(|t| t.p_value)
        .collect();
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
                        Verdict::Change { .. } if in_force && !t.untested && !discovered => {
                            held_back += 1;
                            Verdict::HeldBack {
                                p_value: t.p_value.unwrap_or(f64::NAN),
                            }
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

/// The figures of pair `i` (point `i` against point `i − 1`) as judged:
/// the test between their runs, the change point's test between the
/// levels, or nothing for an exact comparison or a pair that is no
/// change point.
pub fn pair_comparison(
    series: &Series,
    judging: &Judging,
    i: usize,
    settings: &Settings,
) -> Option<Comparison> {
    let points = &series.points;
    let (a, b) = (points.get(i.checked_sub(1)?)?, points.get(i)?);
    match judging {
        Judging::Runs => judge(a, b, None, series.better, settings).1,
        Judging::Exact => None,
        Judging::ChangePoints { found } => match found.iter().find(|c| c.index == i) {
            Some(c) => Some(c.comparison),
            None if i + 1 == points.len() => {
                judge_new_value(series, judging, i, i, None, settings).1
            }
            None => None,
        },
    }
}

/// Every regression and improvement of `series`: each pair of consecutive
/// points whose verdict (`verdicts`, one per pair) is a change, named by
/// its later version, with the later change that undid it, if any.
pub fn find_changes(
    series: &Series,
    judging: &Judging,
    categories: Option<&Categories>,
    verdicts: &[Verdict],
    settings: &Settings,
) -> Vec<Change> {
    let name = |v: f64| {
        categories
            .map(|c| c.name_of(v).to_string())
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
        let comparison = pair_comparison(series, judging, i + 1, settings);
        let apart = match (a.interval, b.interval) {
            (Some(before), Some(after)) => Some(Basis::Intervals { before, after }),
            _ => None,
        };
        let (basis, levels) = match judging {
            Judging::Runs if by_intervals(a, b, settings) => {
                (apart.unwrap_or(Basis::Runs), (mean(a), mean(b)))
            }
            Judging::Runs => (Basis::Runs, (mean(a), mean(b))),
            Judging::Exact => (Basis::Exact, (mean(a), mean(b))),
            Judging::ChangePoints { found } => match found.iter().find(|c| c.index == i + 1) {
                None if i + 2 == series.points.len()
                    && window_before(series, judging, i + 1, settings).len() >= 3 =>
                {
                    let window = window_before(series, judging, i + 1, settings);
                    let m = model::Moments::of(&window).mean;
                    (
                        Basis::NewValue {
                            window: window.len(),
                        },
                        (m, mean(b)),
                    )
                }
                Some(c) => {
                    let (before, after) = level_points(series, c);
                    (
                        Basis::ChangePoint {
                            from: series.points[c.from].version,
                            to: series.points[c.to - 1].version,
                            before_count: c.index - c.from,
                            after_count: c.to - c.index,
                        },
                        (mean(&before), mean(&after)),
                    )
                }
                None => match apart {
                    Some(basis) => (basis, (mean(a), mean(b))),
                    None => continue,
                },
            },
        };
        let method = match b.version - a.version {
            1 => Method::Adjacent,
            n => Method::Gap { unmeasured: n - 1 },
        };
        let relative = (levels.0 != 0.0).then(|| (levels.1 - levels.0) / levels.0);
        found.push((
            i,
            Change {
                benchmark: series.benchmark.clone(),
                direction,
                severity,
                before: a.version,
                after: b.version,
                method,
                basis,
                comparison,
                relative,
                categories: (name(levels.0), name(levels.1)),
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
            let back = if after > before {
                there <= half_way
            } else {
                there >= half_way
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

/// Judges version `newer` against `older` for one series (the CI gate):
/// by their runs, or exactly when the series is exact. A newer version
/// with a single value is judged by [`judge_new_value`] instead.
pub fn judge_versions(
    series: &Series,
    judging: &Judging,
    older: usize,
    newer: usize,
    categories: Option<&Categories>,
    settings: &Settings,
) -> (Verdict, Option<Comparison>) {
    match (series.point_of(older), series.point_of(newer)) {
        (Some(a), Some(b)) if *judging == Judging::Exact => (
            exact_verdict(a, b, categories, series.better, settings),
            None,
        ),
        (Some(a), Some(b)) => judge(a, b, categories, series.better, settings),
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

/// The window a new value at point `newest` is judged against: the values
/// of the points before it since the series' last change point before
/// it, the last `settings.window` of them.
pub fn window_before(
    series: &Series,
    judging: &Judging,
    newest: usize,
    settings: &Settings,
) -> Vec<f64> {
    let since = match judging {
        Judging::ChangePoints { found } => found
            .iter()
            .map(|c| c.index)
            .filter(|&i| i < newest)
            .max()
            .unwrap_or(0),
        _ => 0,
    };
    let start = since.max(newest.saturating_sub(settings.window));
    series.points[start..newest].iter().map(mean).collect()
}

/// One new value (point `newest`'s mean) against the prediction interval
/// of the window of values before point `window_end` ([`window_before`]),
/// as Bencher's t-test thresholds judge a new run: t = (x − m) /
/// (s √(1 + 1/n)) with n − 1 degrees of freedom.
pub fn judge_new_value(
    series: &Series,
    judging: &Judging,
    window_end: usize,
    newest: usize,
    categories: Option<&Categories>,
    settings: &Settings,
) -> (Verdict, Option<Comparison>) {
    let window = window_before(series, judging, window_end, settings);
    let n = window.len();
    let previous = window_end.checked_sub(1).and_then(|i| series.points.get(i));
    if let (true, Some(a), Some(b)) = (n < 3, previous, series.points.get(newest)) {
        if let Some(v) = interval_verdict(a, b, categories, series.better, settings) {
            return (v, None);
        }
    }
    if n < 3 {
        return (
            Verdict::NotEnoughData {
                reason: format!(
                    "{n} earlier value{} at this level (at least 3 needed to judge a single new value, or {} independent runs in both versions)",
                    if n == 1 { "" } else { "s" },
                    settings.min_runs
                ),
            },
            None,
        );
    }
    let Some(x) = series.points.get(newest).map(mean) else {
        return (
            Verdict::NotEnoughData {
                reason: "no figures for the newer version".into(),
            },
            None,
        );
    };
    let m = model::Moments::of(&window);
    let se = (m.variance * (1.0 + 1.0 / n as f64)).sqrt();
    let difference = x - m.mean;
    let statistic = if se > 0.0 {
        difference / se
    } else if difference == 0.0 {
        0.0
    } else {
        difference.signum() * f64::INFINITY
    };
    let df = (n - 1) as f64;
    let comparison = Comparison {
        test: Test::PredictionInterval,
        confidence: settings.confidence,
        statistic,
        df,
        p_value: stats::t_p_value(statistic, df),
        difference,
        se,
        relative: (m.mean != 0.0).then(|| difference / m.mean),
    };
    if !comparison.significant() {
        return (Verdict::NoChange, Some(comparison));
    }
    let level = Point {
        version: series.points[window_end - 1].version,
        summary: stats::summary(&window, settings.confidence),
        samples: n,
        values: window.into(),
        interval: None,
        in_process: false,
        sources: Vec::new(),
        notes: Vec::new(),
    };
    let verdict = change_of_size(
        &level,
        &series.points[newest],
        categories,
        series.better,
        difference,
        settings,
    );
    (verdict, Some(comparison))
}

#[cfg(test)]
mod tests;
