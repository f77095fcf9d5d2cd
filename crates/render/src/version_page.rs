//! What changed in one version, on one page: the changes it is
//! responsible for (with their root causes), every benchmark's verdict
//! against the version before, and the methods its code changes modified.
//! The release note of a version's performance, reached from the index's
//! table of versions; each line links to the page with the details.

use serde::Serialize;

use super::series_table::Tally;
use super::verdict_words::{change_row, untested_word, verdict_text, ChangeRow};
use super::{paths, Common, Renderer};
use crate::Link;
use analysis::regression::{Direction, Verdict};
use analysis::report::Analysis;
use model::error::BuildError;
use model::History;

use crate::page_kind::{Job, PageKind, SitePlan};

/// Most methods a page lists; the rest are counted.
const METHODS_SHOWN: usize = 200;

/// One benchmark's verdict in this version.
#[derive(Serialize)]
struct BenchmarkLine {
    name: String,
    href: String,
    verdict: String,
    class: &'static str,
}

#[derive(Serialize)]
struct View {
    #[serde(flatten)]
    common: Common,
    version: String,
    previous: Option<String>,
    date: Option<String>,
    revision: Option<String>,
    regressions: Vec<ChangeRow>,
    improvements: Vec<ChangeRow>,
    /// Benchmarks that changed or could not be judged here.
    listed: Vec<BenchmarkLine>,
    /// The verdicts of every benchmark measured here, counted.
    tally: String,
    /// Where this version's code-change data comes from, or why there is
    /// none.
    code_note: String,
    methods: Vec<MethodLine>,
    methods_total: usize,
    methods_more: usize,
    diff_href: Option<String>,
    /// The merged profile page of each benchmark profiled here.
    profiles: Vec<Link>,
    /// The versions before and after.
    neighbours: Vec<Link>,
}

/// A method modified in the version, linked to its section.
#[derive(Serialize)]
struct MethodLine {
    name: String,
    href: Option<String>,
    added: bool,
    file: String,
}

/// The verdicts of one version against the one before, benchmark by
/// benchmark.
#[derive(Default)]
struct Judged {
    /// Every benchmark's verdict here, counted.
    tally: Tally,
    /// (benchmark, point) of those that changed or could not be judged.
    listed: Vec<(usize, usize)>,
}

/// Every version's [`Judged`], in one pass over the points (a version's
/// page looking each benchmark's point up was most of a long history's
/// page time: versions x benchmarks searches).
fn judged_by_version(analysis: &Analysis, versions: usize) -> Vec<Judged> {
    let mut by_version: Vec<Judged> = (0..versions).map(|_| Judged::default()).collect();
    for (b, bench) in analysis.regressions.benchmarks.iter().enumerate() {
        for (i, p) in bench.series.points.iter().enumerate().skip(1) {
            let (Some(here), Some(verdict)) =
                (by_version.get_mut(p.version), bench.adjacent.get(i - 1))
            else {
                continue;
            };
            here.tally.add(verdict);
            if !matches!(verdict, Verdict::NoChange | Verdict::Negligible { .. }) {
                here.listed.push((b, i));
            }
        }
    }
    by_version
}

/// Renders the page of version `v` at `path`.
fn render(
    history: &History,
    analysis: &Analysis,
    v: usize,
    judged: &Judged,
    path: &str,
    renderer: &Renderer,
    site: &SitePlan,
) -> Result<Vec<u8>, BuildError> {
    let report = &analysis.regressions;
    let root = paths::root_of(path);
    let (regressions, improvements): (Vec<_>, Vec<_>) = report
        .changes
        .iter()
        .zip(&report.causes)
        .filter(|(c, _)| c.after == v)
        .map(|(c, cause)| {
            (
                c.direction,
                change_row(history, c, cause.as_ref(), path, site),
            )
        })
        .partition(|(d, _)| *d == Direction::Regression);
    let settings = &report.settings;
    let mut listed = Vec::new();
    for &(b, i) in &judged.listed {
        let b = &report.benchmarks[b];
        // The test's figures, only for the benchmarks listed.
        if let Some(judged) = b.against_previous(i, settings) {
            let (verdict, class) = verdict_text(&judged, untested_word(b, i));
            listed.push(BenchmarkLine {
                name: b.series.benchmark.clone(),
                href: format!(
                    "{root}{}#{}",
                    paths::benchmark_page(&b.series.benchmark),
                    paths::version_anchor(&history.versions[v].name)
                ),
                verdict,
                class,
            });
        }
    }
    let changes = analysis.evolution.modifications.versions.get(v);
    let hierarchy = &analysis.evolution.hierarchy;
    let mut methods: Vec<MethodLine> = changes
        .map(|c| {
            c.modified
                .iter()
                .map(|(comp, m)| MethodLine {
                    name: hierarchy.get(*comp).name.clone(),
                    href: site.homes.any_page(*comp).map(|p| format!("{root}{p}")),
                    added: m.added,
                    file: m.file.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    methods.sort_by(|a, b| (&a.name, &a.file).cmp(&(&b.name, &b.file)));
    let methods_total = methods.len();
    let methods_more = methods_total.saturating_sub(METHODS_SHOWN);
    methods.truncate(METHODS_SHOWN);
    let version = &history.versions[v];
    let view = View {
        common: Common::new(renderer, history, path),
        version: version.label.clone(),
        previous: v.checked_sub(1).map(|p| history.versions[p].label.clone()),
        date: version.date.clone(),
        revision: version.revision.clone(),
        regressions: regressions.into_iter().map(|(_, r)| r).collect(),
        improvements: improvements.into_iter().map(|(_, r)| r).collect(),
        listed,
        tally: judged.tally.words(),
        code_note: changes.map(|c| c.note.clone()).unwrap_or_default(),
        methods,
        methods_total,
        methods_more,
        diff_href: changes
            .filter(|c| !c.files.is_empty())
            .map(|_| format!("{root}{}", paths::source_diff_page(&version.name))),
        profiles: site
            .aggregates
            .iter()
            .filter(|a| a.version == v && !a.subtitle.is_empty())
            .map(|a| Link {
                label: a.title.clone(),
                href: format!("{root}{}", a.path),
                current: false,
            })
            .collect(),
        neighbours: [v.checked_sub(1), Some(v + 1)]
            .into_iter()
            .flatten()
            .filter_map(|n| history.versions.get(n))
            .map(|n| Link {
                label: n.label.clone(),
                href: format!("{root}{}", paths::version_page(&n.name)),
                current: false,
            })
            .collect(),
    };
    Ok(renderer.render("version.html", &view)?.into_bytes())
}

/// A page per version: what changed in it.
pub struct VersionPages;

impl PageKind for VersionPages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[("version.html", include_str!("../templates/version.html"))]
    }

    fn name(&self) -> &'static str {
        "version pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let versions = site.history.versions.len();
        let judged = std::sync::Arc::new(judged_by_version(site.analysis, versions));
        (0..versions)
            .map(|v| {
                let judged = judged.clone();
                Job::file(move || {
                    let path = paths::version_page(&site.history.versions[v].name);
                    let html = render(
                        site.history,
                        site.analysis,
                        v,
                        &judged[v],
                        &path,
                        site.renderer,
                        site,
                    )?;
                    Ok((path, html))
                })
            })
            .collect()
    }
}
