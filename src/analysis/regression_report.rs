//! The regression report of a whole history: every benchmark's series,
//! categories and version-to-version verdicts, every regression and
//! improvement with its responsible version, and a call-tree root cause for
//! each regression, most severe first.

use rayon::prelude::*;
use serde::Serialize;

use super::regression::{self, Categories, Change, Direction, Series, Settings, Verdict};
use super::root_cause::{self, RootCause};
use super::stats::Comparison;
use crate::input::config::RegressionConfig;
use crate::model::{FrameId, History};

/// One benchmark's figures and verdicts.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkReport {
    pub series: Series,
    pub categories: Option<Categories>,
    /// Each point against the one before it (one fewer than the points);
    /// the test's figures of one pair: [`BenchmarkReport::against_previous`].
    pub adjacent: Vec<Verdict>,
}

impl BenchmarkReport {
    /// Point `i` against point `i - 1`, with the test's figures; `None`
    /// for the first point.
    pub fn against_previous(
        &self,
        i: usize,
        settings: &Settings,
    ) -> Option<(Verdict, Option<Comparison>)> {
        let points = &self.series.points;
        let (a, b) = (points.get(i.checked_sub(1)?)?, points.get(i)?);
        Some(regression::judge(a, b, self.categories.as_ref(), settings))
    }
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct RegressionReport {
    pub settings: Settings,
    /// In benchmark-name order.
    pub benchmarks: Vec<BenchmarkReport>,
    /// Regressions most severe first, then improvements likewise.
    pub changes: Vec<Change>,
    /// For each change: its root cause (regressions only).
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

/// `modified(version, frame)`: the version changed the frame's method
/// (against the version before it).
pub fn build(
    history: &History,
    config: &RegressionConfig,
    modified: &(dyn Fn(usize, FrameId) -> bool + Sync),
) -> RegressionReport {
    let settings = Settings::from_config(config);
    let benchmarks: Vec<BenchmarkReport> = regression::series(history, config)
        .into_par_iter()
        .map(|series| {
            let categories = Categories::for_series(&series, config);
            let adjacent = regression::adjacent(&series, categories.as_ref(), &settings);
            BenchmarkReport {
                series,
                categories,
                adjacent,
            }
        })
        .collect();
    let mut changes: Vec<Change> = benchmarks
        .par_iter()
        .flat_map_iter(|b| regression::find_changes(&b.series, b.categories.as_ref(), &settings))
        .collect();
    changes.sort_by(|a, b| {
        (a.direction as u8)
            .cmp(&(b.direction as u8))
            .then(b.severity_key().cmp(&a.severity_key()))
            .then(a.benchmark.cmp(&b.benchmark))
            .then(a.after.cmp(&b.after))
    });
    let causes = changes
        .par_iter()
        .map(|c| {
            (c.direction == Direction::Regression).then(|| {
                // Changes of every version after `before` up to `after`.
                let changed = |f: FrameId| (c.before + 1..=c.after).any(|v| modified(v, f));
                root_cause::analyse(
                    history,
                    &c.benchmark,
                    c.before,
                    c.after,
                    config.min_repetitions,
                    &settings,
                    &changed,
                )
            })
        })
        .collect();
    RegressionReport {
        settings,
        benchmarks,
        changes,
        causes,
    }
}
