//! Every derived result a site is rendered from, computed once and in
//! order after the history is read: function identities, the frames of the
//! flame-graph shapes, the regression report (with its root causes), the
//! evolution matrices, the allocation-site trees and source line costs.
//! The render stage only reads them.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;

use config::Config;
use model::{FrameId, FunctionIds, History};

use crate::allocation::trees::Trees;
use crate::evolution::{EvolutionPlan, MatrixUrls};
use crate::hierarchy::Hierarchy;
use crate::line_costs::{self, VersionCosts};
use crate::modifications::Modifications;
use crate::regression_report::{self, RegressionReport};
use crate::shapes::ShapeFrames;
use instrument::timings::phase;

/// The analysis of one history.
pub struct Analysis {
    /// One function across versions (identity rules of `[identity]`).
    pub ids: FunctionIds,
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
    /// line costs are counted for `source_versions`.
    pub fn new(
        history: &History,
        config: &Config,
        ids: FunctionIds,
        hierarchy: Hierarchy,
        modifications: Modifications,
        urls: &dyn MatrixUrls,
        source_versions: &BTreeSet<usize>,
    ) -> Analysis {
        let frames = phase("shapes", || ShapeFrames::new(&history.frames, &ids));
        let regressions = phase("regressions", || {
            let modified = |version: usize, frame: FrameId| {
                modifications
                    .versions
                    .get(version)
                    .is_some_and(|v| v.modified.contains_key(&hierarchy.method_of(frame)))
            };
            regression_report::build(history, config, &frames, &modified)
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
            ids,
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
