//! The regression report of a whole history: every benchmark's series,
//! categories and version-to-version verdicts (one verdict per pair, after
//! the build's false-discovery-rate control, the same on every page and in
//! `check`), every regression and improvement with its responsible
//! version, and a call-tree root cause for each, most severe first.

use rayon::prelude::*;
use serde::Serialize;

use super::regression::{
    self, Categories, Change, Direction, Fdr, Judging, Series, Settings, Verdict,
};
use super::root_cause::{self, RootCause};
use super::shapes::ShapeFrames;
use super::stats::Comparison;
use config::{BenchmarkConfig, Config};
use model::{FrameId, History};

/// One benchmark's figures and verdicts.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkReport {
    pub series: Series,
    pub categories: Option<Categories>,
    /// How its versions are told apart: by runs, exactly, or by change
    /// points.
    pub judging: Judging,
    /// Each point against the one before it (one fewer than the points),
    /// after the build's false-discovery control; the test's figures of
    /// one pair: [`BenchmarkReport::against_previous`].
    pub adjacent: Vec<Verdict>,
    /// For each pair of `adjacent`, whether it was decided without a test
    /// (exact values, or the intervals the tool recorded).
    pub untested: Vec<bool>,
    /// The profiled benchmark whose call trees explain its changes, and
    /// why that one.
    pub explained_by: Option<(String, String)>,
}

impl BenchmarkReport {
    /// Point `i` against point `i - 1`: the build's verdict, with the
    /// test's figures; `None` for the first point.
    pub fn against_previous(
        &self,
        i: usize,
        settings: &Settings,
    ) -> Option<(Verdict, Option<Comparison>)> {
        let comparison = regression::pair_comparison(&self.series, &self.judging, i, settings);
        Some((self.adjacent.get(i.checked_sub(1)?)?.clone(), comparison))
    }
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct RegressionReport {
    pub settings: Settings,
    /// The false-discovery-rate control in force.
    pub fdr: Fdr,
    /// In benchmark-name order.
    pub benchmarks: Vec<BenchmarkReport>,
    /// Regressions most severe first, then improvements likewise.
    pub changes: Vec<Change>,
    /// For each change: its root cause.
    pub causes: Vec<Option<RootCause>>,
}

impl RegressionReport {
    pub fn regressions(&self) -> impl Iterator<Item = (usize, &Change)> {
        self.changes
            .iter()
            .enumerate()
            .filter(|(_, c)| c.direction == Direction::Regression)
    }

    /// The report of benchmark `name` (benchmarks are in name order).
    pub fn benchmark(&self, name: &str) -> Option<&BenchmarkReport> {
        let i = self
            .benchmarks
            .binary_search_by(|b| b.series.benchmark.as_str().cmp(name))
            .ok()?;
        Some(&self.benchmarks[i])
    }
}

/// Every benchmark's series and verdicts, with the false-discovery control
/// over all of them: what the report and `check` both judge by.
pub fn verdicts(
    history: &History,
    all: &Config,
    series: Vec<Series>,
) -> (Settings, Vec<BenchmarkReport>, Fdr) {
    let (config, names) = (&all.regressions, &all.benchmarks[..]);
    let settings = Settings::from_config(config);
    type Judged = (
        Series,
        Option<Categories>,
        Judging,
        Vec<regression::PairTest>,
    );
    let judged: Vec<Judged> = series
        .into_par_iter()
        .map(|series| {
            let categories = Categories::for_series(&series, config);
            let judging = Judging::choose(&series, &settings);
            let tests = regression::pair_tests(&series, &judging, categories.as_ref(), &settings);
            (series, categories, judging, tests)
        })
        .collect();
    let mut control = regression::Control::over(
        judged.iter().map(|j| &j.3[..]),
        config.fdr,
        1.0 - config.confidence,
    );
    // Each benchmark's tests are freed as its verdicts are made (a long
    // history has millions of pairs).
    let benchmarks = judged
        .into_iter()
        .map(|(series, categories, judging, tests)| {
            let adjacent = control.verdicts(&tests);
            let untested = tests.iter().map(|t| t.untested).collect();
            drop(tests);
            BenchmarkReport {
                explained_by: explaining_profiles(history, &series, names),
                series,
                categories,
                judging,
                adjacent,
                untested,
            }
        })
        .collect();
    let fdr = control.fdr();
    (settings, benchmarks, fdr)
}

/// `modified(version, frame)`: the version changed the frame's method
/// (against the version before it). `series`: the benchmarks' series
/// ([`regression::series_named`] or [`regression::take_series`]).
pub fn build(
    history: &History,
    config: &Config,
    frames: &ShapeFrames,
    modified: &(dyn Fn(usize, FrameId) -> bool + Sync),
    series: Vec<Series>,
) -> RegressionReport {
    let rc = &config.regressions;
    let (settings, benchmarks, fdr) = verdicts(history, config, series);
    let mut changes: Vec<Change> = benchmarks
        .par_iter()
        .flat_map_iter(|b| {
            regression::find_changes(
                &b.series,
                &b.judging,
                b.categories.as_ref(),
                &b.adjacent,
                &settings,
            )
        })
        .collect();
    changes.sort_by(|a, b| {
        (a.direction as u8)
            .cmp(&(b.direction as u8))
            .then(b.severity_key().cmp(&a.severity_key()))
            .then(a.benchmark.cmp(&b.benchmark))
            .then(a.after.cmp(&b.after))
    });
    let explained = |name: &str| {
        benchmarks
            .binary_search_by(|b| b.series.benchmark.as_str().cmp(name))
            .ok()
            .and_then(|i| benchmarks[i].explained_by.as_ref())
            .map(|(profiled, _)| profiled.clone())
    };
    let causes = changes
        .par_iter()
        .map(|c| {
            let profiled = explained(&c.benchmark)?;
            // Changes of every version after `before` up to `after`.
            let changed = |f: FrameId| (c.before + 1..=c.after).any(|v| modified(v, f));
            Some(root_cause::analyse(
                history,
                frames,
                &profiled,
                (c.before, c.after),
                c.direction,
                rc.min_repetitions,
                &settings,
                &changed,
            ))
        })
        .collect();
    RegressionReport {
        settings,
        fdr,
        benchmarks,
        changes,
        causes,
    }
}

/// The profiled benchmark whose call trees explain `series`, and why: the
/// benchmark itself when it was profiled; else the `profiles` of its
/// `[[benchmarks]]` entry; else the one benchmark profiled in every version
/// folder that measured it.
fn explaining_profiles(
    history: &History,
    series: &Series,
    names: &[BenchmarkConfig],
) -> Option<(String, String)> {
    let profiled = |name: &str| history.profiles.iter().any(|p| p.benchmark == name);
    if let regression::Origin::ProfileTotals { .. } = series.origin {
        return Some((series.benchmark.clone(), "its own profiles".into()));
    }
    let configured = names
        .iter()
        .find(|c| c.display.as_deref() == Some(&series.benchmark) || c.name == series.benchmark)
        .and_then(|c| c.profiles.clone());
    if let Some(name) = configured {
        return profiled(&name).then(|| (name, "configured in `[[benchmarks]]`".into()));
    }
    if profiled(&series.benchmark) {
        return Some((series.benchmark.clone(), "profiles of the same name".into()));
    }
    // Profiles of time (or samples): a heap profile beside them explains
    // no duration.
    let timed = |p: &&model::ProfileEntry| {
        p.profile
            .metrics
            .first()
            .is_some_and(|m| matches!(m.unit, model::Unit::Nanoseconds | model::Unit::Samples))
    };
    let mut only: Option<&str> = None;
    for point in &series.points {
        let mut here = history
            .profiles
            .iter()
            .filter(|p| p.version == point.version)
            .filter(timed)
            .map(|p| p.benchmark.as_str());
        let first = here.next()?;
        if here.any(|b| b != first) || only.is_some_and(|o| o != first) {
            return None;
        }
        only = Some(first);
    }
    only.map(|b| {
        (
            b.to_string(),
            "the one benchmark with time profiles in every version it was measured in".into(),
        )
    })
}
