//! What a page kind is, below every kind: the [`PageKind`] trait, the
//! [`Job`]s a kind renders its pages in, and the [`SitePlan`] every kind
//! renders from (the history, its analysis, and the plans several kinds
//! share, computed once). The list of kinds is [`crate::pages::KINDS`].

use std::collections::BTreeMap;

use analysis::allocation::trees::Trees;
use analysis::report::Analysis;
use config::Config;
use model::error::BuildError;
use model::History;
use vcs::sources::Sources;

use crate::code_links::SourceLinks;
use crate::flame_plan::{self, AggregatePlan, DiffPlan};
use crate::reuse::{self, PageStore};
use crate::{Rendered, Renderer};

/// One kind of page.
pub trait PageKind: Sync {
    /// The kind's own templates, (name, text), embedded with
    /// `include_str!`; `--templates DIR` overrides them by name.
    fn templates(&self) -> &'static [(&'static str, &'static str)];
    /// The scripts the kind's pages load, (name, text), embedded with
    /// `include_str!` and written to `assets/`; `--templates DIR/assets`
    /// overrides them by name. Scripts every page loads are the
    /// renderer's.
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Whether `site` has pages of this kind that need its scripts (they
    /// are not written otherwise).
    fn needs_scripts(&self, _site: &SitePlan) -> bool {
        true
    }
    /// What the kind is called in phase timings (`PERFATLAS_TIMINGS`).
    fn name(&self) -> &'static str;
    /// The jobs that render every page of this kind in `site`.
    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>>;
}

/// One page, or a group of pages rendered together.
pub struct Job<'a> {
    /// The page-reuse key (see [`crate::reuse`]): a group with a key is
    /// kept from the previous site when its inputs did not change.
    pub key: Option<u128>,
    pub render: Box<dyn Fn() -> Rendered + Send + Sync + 'a>,
}

impl<'a> Job<'a> {
    /// A job rendered in every build.
    pub fn new(render: impl Fn() -> Rendered + Send + Sync + 'a) -> Job<'a> {
        Job {
            key: None,
            render: Box::new(render),
        }
    }

    /// A job of one file.
    pub fn file(
        render: impl Fn() -> Result<(String, Vec<u8>), BuildError> + Send + Sync + 'a,
    ) -> Job<'a> {
        Job::new(move || render().map(|file| vec![file]))
    }

    /// A job a rebuild may keep (`key` is `None` when the store keeps
    /// nothing).
    pub fn keyed(key: Option<u128>, render: impl Fn() -> Rendered + Send + Sync + 'a) -> Job<'a> {
        Job {
            key,
            render: Box::new(render),
        }
    }
}

/// What the pages of a site are rendered from: the history, its analysis,
/// and the plans several kinds share (computed once).
pub struct SitePlan<'a> {
    pub history: &'a History,
    pub config: &'a Config,
    pub renderer: &'a Renderer,
    pub analysis: &'a Analysis,
    pub sources: &'a Sources,
    /// Where kept page groups come from.
    pub store: &'a dyn PageStore,
    /// The digests page-reuse keys are made of, when the store keeps pages.
    pub inputs: Option<reuse::Inputs>,
    /// Every profile page (metric × shape of each profile).
    pub profiles: flame_plan::Plan,
    pub links: SourceLinks<'a>,
    /// The allocation-site trees (the analysis's).
    pub allocations: &'a Trees,
    pub aggregates: Vec<AggregatePlan>,
    pub flame_diffs: Vec<DiffPlan>,
    /// Differential pages by (benchmark, version index), as (label, path).
    pub diff_links: BTreeMap<(String, usize), Vec<(String, String)>>,
    /// Where each function's method section is.
    pub homes: crate::function_home::FunctionHomes<'a>,
}

impl<'a> SitePlan<'a> {
    /// Plans the pages of `history`.
    pub fn new(
        history: &'a History,
        config: &'a Config,
        renderer: &'a Renderer,
        analysis: &'a Analysis,
        sources: &'a Sources,
        store: &'a dyn PageStore,
    ) -> SitePlan<'a> {
        let links = SourceLinks::new(history, sources, &config.flame.editor);
        let inputs = store
            .enabled()
            .then(|| reuse::Inputs::new(history, config, renderer, &analysis.frames, &links));
        let flame_diffs = flame_plan::diff_plan(history, config);
        SitePlan {
            history,
            config,
            renderer,
            analysis,
            sources,
            store,
            inputs,
            profiles: flame_plan::plan(history, renderer.repetition_pages()),
            links,
            allocations: &analysis.allocations,
            aggregates: flame_plan::aggregate_plan(history, config),
            diff_links: flame_plan::links_by_version(history, &flame_diffs),
            flame_diffs,
            homes: crate::function_home::FunctionHomes::new(
                &analysis.evolution,
                &analysis.frames,
                history.frames.len(),
            ),
        }
    }
}
