//! Every derived result a site is rendered from, computed once and in
//! order after the history is read: function identities, the frames of the
//! flame-graph shapes, the regression report (with its root causes), the
//! evolution matrices, the allocation-site trees and source line costs.
//! The render stage only reads them.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use config::Config;
use model::{FrameId, FunctionIds, History, IdentityNotes};

use crate::allocation::trees::Trees;
use crate::evolution::{EvolutionPlan, MatrixUrls};
use crate::hierarchy::Hierarchy;
use crate::line_costs::{self, VersionCosts};
use crate::modifications::Modifications;
use crate::regression::Series;
use crate::regression_report::{self, RegressionReport};
use crate::shapes::ShapeFrames;
use instrument::timings::phase;

/// The regression report of `history` with its root causes, a function
/// counting as changed in a version when `modifications` say its method
/// was: what the site shows and `check` reports.
pub fn regressions(
    history: &History,
    config: &Config,
    frames: &ShapeFrames,
    (hierarchy, modifications): (&Hierarchy, &Modifications),
    series: Vec<Series>,
) -> RegressionReport {
    let modified =
        |version: usize, frame: FrameId| modified_in(modifications, hierarchy, version, frame);
    regression_report::build(history, config, frames, &modified, series)
}

/// Whether `version` modified the method of `frame`.
fn modified_in(
    modifications: &Modifications,
    hierarchy: &Hierarchy,
    version: usize,
    frame: FrameId,
) -> bool {
    modifications
        .versions
        .get(version)
        .is_some_and(|v| v.modified.contains_key(&hierarchy.method_of(frame)))
}

/// What root causes are computed from, for `check`: the regression report
/// as the site has it, and the root cause of any other pair of versions
/// (a `--baseline` other than the version before).
pub struct CauseFinder {
    pub frames: ShapeFrames,
    pub hierarchy: Hierarchy,
    pub modifications: Modifications,
}

impl CauseFinder {
    pub fn report(&self, history: &History, config: &Config) -> RegressionReport {
        regressions(
            history,
            config,
            &self.frames,
            (&self.hierarchy, &self.modifications),
            crate::regression::series_named(history, config),
        )
    }

    /// The root cause of a change of `profiled` from `before` to `after`,
    /// a function counting as modified when a version after `before` up
    /// to `after` changed its method.
    pub fn cause(
        &self,
        history: &History,
        config: &Config,
        profiled: &str,
        (before, after): (usize, usize),
        direction: crate::regression::Direction,
    ) -> crate::root_cause::RootCause {
        let settings = crate::regression::Settings::from_config(&config.regressions);
        let changed = |f: FrameId| {
            (before + 1..=after).any(|v| modified_in(&self.modifications, &self.hierarchy, v, f))
        };
        crate::root_cause::analyse(
            history,
            &self.frames,
            profiled,
            (before, after),
            direction,
            config.regressions.min_repetitions,
            &settings,
            &changed,
        )
    }
}

/// The analysis of one history.
pub struct Analysis {
    /// What finding one function across versions (identity rules of
    /// `[identity]`) changed, for the pages' notes.
    pub identity: IdentityNotes,
    /// The frame table of the flame-graph shapes (functions, files,
    /// modules, and the frames standing for merged callers).
    pub frames: ShapeFrames,
    pub regressions: RegressionReport,
    /// The matrices; holds the component hierarchy and the modified
    /// methods of each version.
    pub evolution: EvolutionPlan,
    /// The allocation-site trees of every benchmark and version.
    pub allocations: Trees,
    /// The cost of each source line, for the versions with source files.
    pub line_costs: BTreeMap<usize, VersionCosts>,
}

impl Analysis {
    /// Analyses `history`; `modifications` come from the repository or
    /// the inputs' source hashes, `urls` names the matrices' pages, and
    /// line costs are counted for `source_versions`; `series` are the
    /// benchmarks' series ([`crate::regression::take_series`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        history: &History,
        config: &Config,
        ids: FunctionIds,
        hierarchy: Hierarchy,
        modifications: Modifications,
        urls: &dyn MatrixUrls,
        source_versions: &BTreeSet<usize>,
        series: Vec<Series>,
    ) -> Analysis {
        let frames = phase("shapes", || ShapeFrames::new(&history.frames, &ids));
        let identity = ids.into_notes();
        let regressions = phase("regressions", || {
            regressions(
                history,
                config,
                &frames,
                (&hierarchy, &modifications),
                series,
            )
        });
        let evolution = phase("evolution_plan", || {
            EvolutionPlan::new(history, &config.matrix, hierarchy, modifications, urls)
        });
        let allocations = phase("allocation_trees", || Trees::new(history));
        let line_costs = phase("line_costs", || {
            source_versions
                .par_iter()
                .map(|&v| (v, line_costs::version_costs(history, v)))
                .collect()
        });
        Analysis {
            identity,
            frames,
            regressions,
            evolution,
            allocations,
            line_costs,
        }
    }

    /// Per version, whether it has a source diff page.
    pub fn source_diffs(&self) -> Vec<bool> {
        self.evolution
            .modifications
            .versions
            .iter()
            .map(|v| !v.files.is_empty())
            .collect()
    }
}
