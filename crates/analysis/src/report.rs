//! Every derived result a site is rendered from, computed once and in
//! order after the history is read: function identities, the frames of the
//! flame-graph shapes, the regression report (with its root causes) and the
//! evolution matrices. The render stage only reads them.

use config::Config;
use model::{FrameId, FunctionIds, History};

use crate::evolution::{EvolutionPlan, MatrixUrls};
use crate::hierarchy::Hierarchy;
use crate::modifications::Modifications;
use crate::regression_report::{self, RegressionReport};
use crate::shapes::ShapeFrames;
use trace::timings::phase;

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
}

impl Analysis {
    /// Analyses `history`; `modifications` come from the repository or
    /// the inputs' source hashes, `urls` names the matrices' pages.
    pub fn new(
        history: &History,
        config: &Config,
        ids: FunctionIds,
        hierarchy: Hierarchy,
        modifications: Modifications,
        urls: &dyn MatrixUrls,
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
        Analysis {
            ids,
            frames,
            regressions,
            evolution,
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
