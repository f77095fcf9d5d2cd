//! The page kinds of a site, in one list ([`KINDS`]), and the jobs of
//! them all. What a kind is and renders from ([`PageKind`], [`SitePlan`],
//! [`Job`]) is in [`crate::page_kind`], below the kinds: a kind imports
//! that, never this list.
//!
//! A page kind is a file of this crate with a unit struct implementing
//! [`PageKind`]: it turns the site into [`Job`]s, each rendering one page
//! or a group of pages drawn together (a profile's shapes, a page and its
//! standalone SVG), and names its templates. Adding a page kind is that
//! file (with its template in `templates/`), one line in [`KINDS`], and its
//! URLs in [`crate::paths`]. Jobs of every kind run in parallel;
//! the files they give are handed to the site's sink at once, so the build
//! never holds every page in memory.

use crate::aggregate_page;
use crate::allocation_page;
use crate::flame_diff_page;
pub use crate::page_kind::{Job, PageKind, SitePlan};
use crate::profile_page;

/// Every page kind, in the order their jobs are listed.
pub const KINDS: &[&dyn PageKind] = &[
    &profile_page::ProfilePages,
    &aggregate_page::AggregatePages,
    &flame_diff_page::FlameDiffPages,
    &crate::compare_page::ComparePages,
    &crate::source_page::SourcePages,
    &crate::matrix_page::MatrixPages,
    &crate::timeline_page::TimelinePages,
    &crate::component_page::ComponentPages,
    &crate::diff_page::DiffPages,
    &crate::field_page::FieldPages,
    &allocation_page::AllocationPages,
    &crate::benchmark_page::BenchmarkPages,
    &crate::regression_page::RegressionPages,
    &crate::version_page::VersionPages,
    &crate::index_page::IndexPage,
];

/// Every job of every kind of `site`, in [`KINDS`] order.
pub fn jobs<'a>(site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
    KINDS
        .iter()
        .flat_map(|kind| instrument::timings::phase(kind.name(), || kind.jobs(site)))
        .collect()
}
