//! The execution-timelines page of one version in one matrix (opened from a
//! version's column header): every visible component, in the matrix's
//! order, with its share of each time frame of the run over the previous
//! version's (Performance Evolution Matrix, section III-D, Figure 5).
//!
//! A time axis belongs to one benchmark's runs, so only a benchmark's
//! matrix has timeline pages: the matrix over all benchmarks links each
//! version to its benchmarks' pages (`matrix_page::timelines_of`), and each
//! page links the same version's page of the other benchmarks.

use serde::Serialize;

use super::{timeline_svg, Common, Renderer};
use crate::paths::ScopePaths;
use crate::Link;
use analysis::evolution::EvolutionPlan;
use config::MatrixConfig;
use model::error::BuildError;
use model::History;

use crate::page_kind::{Job, PageKind, SitePlan};

#[derive(Serialize)]
struct TimelineRow {
    name: String,
    path_name: String,
    href: Option<String>,
    indent: u32,
    svg: Option<String>,
}

#[derive(Serialize)]
struct TimelineView {
    #[serde(flatten)]
    common: Common,
    scope: String,
    matrix_href: String,
    version: String,
    previous: Option<String>,
    versions: Vec<Link>,
    /// The same version's page of each benchmark, when there are several.
    benchmarks: Vec<Link>,
    note: String,
    rows: Vec<TimelineRow>,
}

/// Renders the timelines page of version `v` of scope `s`.
pub fn render(
    history: &History,
    plan: &EvolutionPlan,
    s: usize,
    v: usize,
    config: &MatrixConfig,
    renderer: &Renderer,
) -> Result<(String, Vec<u8>), BuildError> {
    let sp = &plan.scopes[s];
    let version = &history.versions[v];
    let path = sp.timeline_path(&version.name);
    let common = Common::new(renderer, history, &path);
    let root = common.root.clone();
    let previous = sp.scope.previous(v);
    let frames = config.timeline_frames;
    let zero = vec![0.0; frames];
    let now = sp.timelines[v].as_ref();
    let before = previous.and_then(|p| sp.timelines[p].as_ref());
    let rows = sp
        .matrix
        .rows
        .iter()
        .filter(|r| r.visible && now.is_some())
        .map(|r| {
            let name = plan.hierarchy.get(r.comp).name.clone();
            let svg = now.and_then(|t| {
                let shares = t.shares.get(&r.comp)?;
                let prev = before.map(|b| b.shares.get(&r.comp).unwrap_or(&zero).as_slice());
                Some(timeline_svg::timeline(
                    shares,
                    prev,
                    (frames * 12) as f64,
                    30.0,
                    &format!("timeline of {name}"),
                ))
            });
            TimelineRow {
                path_name: plan.hierarchy.path_name(r.comp),
                href: sp.pages.get(&r.comp).map(|p| format!("{root}{p}")),
                indent: (r.level.depth() as u32 - 1) * 16,
                svg,
                name,
            }
        })
        .collect();
    let note = match now {
        Some(t) => format!(
            "Each bar is one of {frames} equal time frames of the run; its height is the share of that frame spent in the component (blue, this version; a container shows the largest of its methods), over the previous version's (grey). From {} of {} profiles; an empty row did not run.",
            t.with_order, t.profiles
        ),
        None => "No profile of this version records a time order (folded stacks and pprof do not), so there are no timelines.".to_string(),
    };
    let view = TimelineView {
        scope: sp.scope.name.clone(),
        matrix_href: format!("{root}{}", sp.matrix_path()),
        version: version.label.clone(),
        previous: previous.map(|p| history.versions[p].label.clone()),
        versions: history
            .versions
            .iter()
            .enumerate()
            .filter(|(u, _)| sp.scope.has(*u))
            .map(|(u, ver)| Link {
                label: ver.label.clone(),
                href: format!("{root}{}", sp.timeline_path(&ver.name)),
                current: u == v,
            })
            .collect(),
        benchmarks: plan
            .scopes
            .iter()
            .find(|all| all.members.contains(&s))
            .map(|all| {
                all.members
                    .iter()
                    .filter(|&&m| plan.scopes[m].scope.has(v))
                    .map(|&m| Link {
                        label: plan.scopes[m].scope.name.clone(),
                        href: format!("{root}{}", plan.scopes[m].timeline_path(&version.name)),
                        current: m == s,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        note,
        rows,
        common,
    };
    Ok((path, renderer.render("timelines.html", &view)?.into_bytes()))
}

/// The timelines of every scope at every version it has.
pub struct TimelinePages;

impl PageKind for TimelinePages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "timelines.html",
            include_str!("../templates/timelines.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "timeline pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let evolution = &site.analysis.evolution;
        let mut jobs = Vec::new();
        // The matrix over all benchmarks links its benchmarks' pages.
        for (s, sp) in evolution.scopes.iter().enumerate() {
            if !sp.members.is_empty() {
                continue;
            }
            for v in (0..site.history.versions.len()).filter(|&v| sp.scope.has(v)) {
                jobs.push(Job::file(move || {
                    let config = &site.config.matrix;
                    render(site.history, evolution, s, v, config, site.renderer)
                }));
            }
        }
        jobs
    }
}
