//! The page kinds of a site, in one list ([`KINDS`]), and what every kind
//! renders from ([`Site`]).
//!
//! A page kind is a file of this crate with a unit struct implementing
//! [`PageKind`]: it turns the site into [`Job`]s, each rendering one page
//! or a group of pages drawn together (a profile's shapes, a page and its
//! standalone SVG), and names its templates. Adding a page kind is that
//! file (with its template in `templates/`), one line in [`KINDS`], and its
//! URLs in [`crate::paths`]. Jobs of every kind run in parallel;
//! the files they give are handed to the site's sink at once, so the build
//! never holds every page in memory.

use std::collections::BTreeMap;

use analysis::allocation::trees::Trees;
use analysis::report::Analysis;
use config::Config;
use model::error::BuildError;
use model::History;
use vcs::sources::Sources;

use crate::aggregate_page::{self, AggregatePlan};
use crate::allocation_page;
use crate::flame_diff_page::{self, DiffPlan};
use crate::profile_page;
use crate::profile_plan;
use crate::reuse::{self, PageStore};
use crate::source_page::SourceLinks;
use crate::{Rendered, Renderer};

/// Every page kind, in the order their jobs are listed.
pub const KINDS: &[&dyn PageKind] = &[
    &profile_page::ProfilePages,
    &aggregate_page::AggregatePages,
    &flame_diff_page::FlameDiffPages,
    &crate::source_page::SourcePages,
    &crate::matrix_page::MatrixPages,
    &crate::timeline_page::TimelinePages,
    &crate::component_page::ComponentPages,
    &crate::diff_page::DiffPages,
    &crate::field_page::FieldPages,
    &allocation_page::AllocationPages,
    &crate::benchmark_page::BenchmarkPages,
    &crate::regression_page::RegressionPages,
    &crate::index_page::IndexPage,
];

/// One kind of page.
pub trait PageKind: Sync {
    /// The kind's own templates, (name, text), embedded with
    /// `include_str!`; `--templates DIR` overrides them by name.
    fn templates(&self) -> &'static [(&'static str, &'static str)];
    /// What the kind is called in phase timings (`PERFATLAS_TIMINGS`).
    fn name(&self) -> &'static str;
    /// The jobs that render every page of this kind in `site`.
    fn jobs<'a>(&self, site: &'a Site<'a>) -> Vec<Job<'a>>;
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
pub struct Site<'a> {
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
    pub profiles: profile_plan::Plan,
    pub links: SourceLinks<'a>,
    /// The allocation-site trees (the analysis's).
    pub allocations: &'a Trees,
    pub aggregates: Vec<AggregatePlan>,
    pub flame_diffs: Vec<DiffPlan>,
    /// Differential pages by (benchmark, version index), as (label, path).
    pub diff_links: BTreeMap<(String, usize), Vec<(String, String)>>,
}

impl<'a> Site<'a> {
    /// Plans the pages of `history`.
    pub fn new(
        history: &'a History,
        config: &'a Config,
        renderer: &'a Renderer,
        analysis: &'a Analysis,
        sources: &'a Sources,
        store: &'a dyn PageStore,
    ) -> Site<'a> {
        let inputs = store
            .enabled()
            .then(|| reuse::Inputs::new(history, config, renderer, &analysis.frames, sources));
        let flame_diffs = flame_diff_page::plan(history, config);
        Site {
            history,
            config,
            renderer,
            analysis,
            sources,
            store,
            inputs,
            profiles: profile_plan::plan(history, renderer.repetition_pages()),
            links: SourceLinks::new(history, sources, &config.flame.editor),
            allocations: &analysis.allocations,
            aggregates: aggregate_page::plan(history, config),
            diff_links: flame_diff_page::links_by_version(history, &flame_diffs),
            flame_diffs,
        }
    }

    /// Every job of every kind, in [`KINDS`] order.
    pub fn jobs(&'a self) -> Vec<Job<'a>> {
        KINDS
            .iter()
            .flat_map(|kind| trace::timings::phase(kind.name(), || kind.jobs(self)))
            .collect()
    }
}
