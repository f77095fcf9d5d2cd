//! The index page: what was read (versions, benchmarks, formats), totals of
//! every benchmark in every version with links to its profile pages, and
//! every input that was skipped, with its place and reason.
//!
//! Budget of the list of benchmarks with figures: up to [`SERIES_ROWS`]
//! benchmarks, a table row each with its newest verdict; beyond, the
//! verdicts are counted, the table keeps (up to [`SERIES_ROWS`]) the
//! benchmarks whose newest version changed or could not be judged, and
//! every other benchmark is one plain link.

use std::collections::BTreeMap;

use serde::Serialize;

use super::flame_plan::Plan;
use super::format::{grouped, with_unit};
use super::verdict_words::{self, change_row, method_note, verdict_text, ChangeRow};
use super::{series_table, Common};
use crate::paths::{self, ScopePaths};
use analysis::regression::{Direction, Point, Settings, Verdict};
use analysis::regression_report::{BenchmarkReport, RegressionReport};
use analysis::totals::cell_totals;
use model::error::BuildError;
use model::{History, Skipped};

use crate::page_kind::{Job, PageKind, SitePlan};

#[derive(Serialize)]
struct VersionRow {
    label: String,
    name: String,
    /// The page of what changed in it.
    href: String,
    date: Option<String>,
    revision: Option<String>,
    profiles: usize,
}

#[derive(Serialize)]
struct Total {
    metric: String,
    /// False when the value's unit already names the metric
    /// (`169 samples`, not `samples 169 samples`).
    show_metric: bool,
    mean: String,
    /// `min – max over N repetitions`, when there is more than one.
    spread: Option<String>,
}

#[derive(Serialize)]
struct RepLink {
    label: String,
    href: String,
}

#[derive(Serialize)]
struct Cell {
    totals: Vec<Total>,
    links: Vec<RepLink>,
}

#[derive(Serialize)]
struct BenchmarkRow {
    name: String,
    /// The row's id (see [`paths::benchmark_anchor`]).
    anchor: String,
    /// One per version, `None` where the benchmark has no profile.
    cells: Vec<Option<Cell>>,
}

#[derive(Serialize)]
struct FormatRow {
    name: String,
    files: usize,
}

#[derive(Serialize)]
struct MatrixLink {
    label: String,
    href: String,
    components: usize,
    hidden: usize,
}

#[derive(Serialize)]
struct IndexView {
    #[serde(flatten)]
    common: Common,
    matrices: Vec<MatrixLink>,
    /// Configured aggregate pages: (label, href).
    aggregate_sets: Vec<(String, String)>,
    changes_note: String,
    versions: Vec<VersionRow>,
    benchmarks: Vec<BenchmarkRow>,
    formats: Vec<FormatRow>,
    profile_count: usize,
    measurement_files: usize,
    skipped: Vec<Skipped>,
    skipped_files: usize,
    /// Remarks on inputs read whole: listed apart from what was skipped.
    notes: Vec<model::Note>,
    regressions: Vec<ChangeRow>,
    improvements: Vec<ChangeRow>,
    /// The table's rows.
    series: Vec<SeriesLink>,
    /// Benchmarks with figures, in all.
    series_total: usize,
    /// Set when the list is over its budget.
    series_budget: Option<SeriesBudget>,
    /// The newest version against the one before, in one sentence.
    newest: Option<String>,
    regression_method: String,
    /// (version label, href, executions, failed)
    field: Vec<(String, String, usize, usize)>,
    /// Per benchmark with allocation data: (benchmark, [(version, path)]).
    allocations: Vec<(String, Vec<(String, String)>)>,
}

/// Most benchmarks listed as table rows.
pub const SERIES_ROWS: usize = 200;

#[derive(Serialize)]
struct SeriesBudget {
    max_rows: usize,
    /// The newest verdicts counted, in words.
    tally: String,
    /// The benchmarks left out of the table: (name, href).
    others: Vec<(String, String)>,
}

#[derive(Serialize)]
struct SeriesLink {
    name: String,
    href: String,
    origin: String,
    /// The history at a glance: the mean of every version, as a line.
    sparkline: String,
    latest: String,
    latest_class: &'static str,
}

/// The allocation pages, grouped by benchmark.
fn allocation_links(
    history: &History,
    plan: &analysis::allocation::trees::Trees,
) -> Vec<(String, Vec<(String, String)>)> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for e in &plan.entries {
        let version = &history.versions[e.version];
        let link = (
            version.label.clone(),
            super::paths::allocation_page(&e.benchmark, &version.name),
        );
        match out.last_mut() {
            Some((b, links)) if *b == e.benchmark => links.push(link),
            _ => out.push((e.benchmark.clone(), vec![link])),
        }
    }
    out
}

pub fn render(site: &SitePlan, aggregate_sets: &[(String, String)]) -> Result<String, BuildError> {
    let (history, renderer, plan) = (site.history, site.renderer, &site.profiles);
    let (evolution, report) = (&site.analysis.evolution, &site.analysis.regressions);
    let allocations = site.allocations;
    let (regressions, improvements) = report
        .changes
        .iter()
        .zip(&report.causes)
        .map(|(c, cause)| {
            (
                c.direction,
                change_row(history, c, cause.as_ref(), "index.html", site),
            )
        })
        .partition::<Vec<_>, _>(|(d, _)| *d == Direction::Regression);
    let settings = &report.settings;
    let with_figures: Vec<&BenchmarkReport> = report
        .benchmarks
        .iter()
        .filter(|b| !b.series.points.is_empty())
        .collect();
    let (series, series_budget) = series_list(&with_figures, settings);
    let newest = newest_summary(history, &with_figures);
    let measurement_sources = history.measurement_sources();
    let view = IndexView {
        regressions: regressions.into_iter().map(|(_, r)| r).collect(),
        improvements: improvements.into_iter().map(|(_, r)| r).collect(),
        series,
        series_total: with_figures.len(),
        series_budget,
        newest,
        allocations: allocation_links(history, allocations),
        field: history
            .field
            .iter()
            .map(|set| {
                let version = &history.versions[set.version];
                (
                    version.label.clone(),
                    super::paths::field_page(&version.name),
                    set.executions.len(),
                    set.executions.iter().filter(|e| e.failed()).count(),
                )
            })
            .collect(),
        regression_method: format!(
            "{}{} {} {}",
            method_note(
                settings.test.label(),
                settings.confidence,
                settings.min_runs
            ),
            judging_counts(report),
            verdict_words::min_change_note(settings),
            verdict_words::fdr_note(&report.fdr)
        ),
        aggregate_sets: aggregate_sets.to_vec(),
        matrices: evolution
            .scopes
            .iter()
            .map(|s| MatrixLink {
                label: s.scope.name.clone(),
                href: s.matrix_path(),
                components: s.matrix.rows.iter().filter(|r| r.visible).count(),
                hidden: s.matrix.hidden,
            })
            .collect(),
        changes_note: super::matrix_svg::changes_note(evolution),
        common: Common::new(renderer, history, "index.html"),
        versions: history
            .versions
            .iter()
            .enumerate()
            .map(|(i, v)| VersionRow {
                label: v.label.clone(),
                name: v.name.clone(),
                href: paths::version_page(&v.name),
                date: v.date.clone(),
                revision: v.revision.clone(),
                profiles: history.profiles.iter().filter(|p| p.version == i).count(),
            })
            .collect(),
        benchmarks: history
            .benchmarks()
            .iter()
            .map(|b| benchmark_row(history, plan, b))
            .collect(),
        formats: format_rows(history, &measurement_sources),
        profile_count: history.profiles.len(),
        measurement_files: measurement_sources.len(),
        skipped: history.skipped.clone(),
        skipped_files: model::skipped_files(&history.skipped),
        notes: history.notes(),
    };
    renderer.render("index.html", &view)
}

fn benchmark_row(history: &History, plan: &Plan, benchmark: &str) -> BenchmarkRow {
    let cells = (0..history.versions.len())
        .map(|v| {
            let links: Vec<RepLink> = history
                .profiles
                .iter()
                .enumerate()
                .filter(|(_, p)| p.benchmark == benchmark && p.version == v)
                .filter_map(|(i, _)| {
                    Some(RepLink {
                        label: plan.rep_names[i].clone(),
                        href: plan.by_entry[i].first()?.clone(),
                    })
                })
                .collect();
            if links.is_empty() {
                return None;
            }
            let totals = cell_totals(history, benchmark, v)
                .into_iter()
                .map(|t| {
                    let unit = &t.unit;
                    Total {
                        show_metric: t.metric != unit.name(),
                        metric: t.metric,
                        mean: with_unit(t.mean, unit),
                        spread: (t.repetitions > 1).then(|| {
                            format!(
                                "{} – {} over {} repetitions",
                                with_unit(t.min, unit),
                                with_unit(t.max, unit),
                                grouped(t.repetitions as f64)
                            )
                        }),
                    }
                })
                .collect();
            Some(Cell { totals, links })
        })
        .collect();
    BenchmarkRow {
        name: benchmark.to_string(),
        anchor: paths::benchmark_anchor(benchmark),
        cells,
    }
}

/// How the benchmarks were judged, when not all by their runs: " Of the
/// 5 benchmarks, 5 have one value per version and are judged by change
/// points …".
fn judging_counts(report: &RegressionReport) -> String {
    use analysis::regression::Judging;
    let count =
        |f: &dyn Fn(&Judging) -> bool| report.benchmarks.iter().filter(|b| f(&b.judging)).count();
    let points = count(&|j| matches!(j, Judging::ChangePoints { .. }));
    let exact = count(&|j| *j == Judging::Exact);
    if points + exact == 0 {
        return String::new();
    }
    let mut parts = Vec::new();
    if points > 0 {
        parts.push(format!(
            "{points} with fewer runs in most versions are judged by change points over their history (a level must hold for {} versions; the newest value against the values before it)",
            report.settings.min_segment
        ));
    }
    if exact > 0 {
        parts.push(format!(
            "{exact} whose runs are equal within every version are compared exactly"
        ));
    }
    format!(
        " Of the {} benchmarks, {}.",
        report.benchmarks.len(),
        parts.join("; ")
    )
}

/// The table rows of the benchmarks with figures, within the budget, and
/// what the budget left out.
fn series_list(
    benchmarks: &[&BenchmarkReport],
    settings: &Settings,
) -> (Vec<SeriesLink>, Option<SeriesBudget>) {
    if benchmarks.len() <= SERIES_ROWS {
        let rows = benchmarks.iter().map(|b| series_link(b, settings));
        return (rows.collect(), None);
    }
    let noteworthy = |b: &BenchmarkReport| !matches!(b.adjacent.last(), Some(Verdict::NoChange));
    let mut rows = Vec::new();
    let mut others = Vec::new();
    for b in benchmarks {
        if noteworthy(b) && rows.len() < SERIES_ROWS {
            rows.push(series_link(b, settings));
        } else {
            others.push((
                b.series.benchmark.clone(),
                paths::benchmark_page(&b.series.benchmark),
            ));
        }
    }
    let single = benchmarks.iter().filter(|b| b.adjacent.is_empty()).count();
    let mut tally = series_table::tally(benchmarks.iter().filter_map(|b| b.adjacent.last()));
    if single > 0 {
        tally.push_str(&format!(", {single} with one version only"));
    }
    let budget = SeriesBudget {
        max_rows: SERIES_ROWS,
        tally,
        others,
    };
    (rows, Some(budget))
}

fn series_link(b: &BenchmarkReport, settings: &Settings) -> SeriesLink {
    let newest = b.series.points.len().saturating_sub(1);
    let (latest, latest_class) = match b.against_previous(newest, settings) {
        Some(v) => verdict_text(&v, verdict_words::untested_word(b, newest)),
        None => ("one version only".to_string(), "pa-muted"),
    };
    SeriesLink {
        name: b.series.benchmark.clone(),
        href: paths::benchmark_page(&b.series.benchmark),
        origin: b.series.origin.describe(),
        sparkline: sparkline(history_means(b), &latest),
        latest,
        latest_class,
    }
}

/// "2.30.1 against 2.29.4: 3 benchmarks measured; no significant change
/// ×3": the verdicts of the benchmarks measured in the newest version and
/// the one before it.
fn newest_summary(history: &History, benchmarks: &[&BenchmarkReport]) -> Option<String> {
    let newest = history.versions.len().checked_sub(1)?;
    let previous = newest.checked_sub(1)?;
    let verdicts: Vec<&analysis::regression::Verdict> = benchmarks
        .iter()
        .filter(|b| {
            let last_two: Vec<usize> = b
                .series
                .points
                .iter()
                .rev()
                .take(2)
                .map(|p| p.version)
                .collect();
            last_two == [newest, previous]
        })
        .filter_map(|b| b.adjacent.last())
        .collect();
    if verdicts.is_empty() {
        return None;
    }
    let n = verdicts.len();
    Some(format!(
        "{} against {}, {n} benchmark{} measured in both: {}.",
        history.versions[newest].label,
        history.versions[previous].label,
        if n == 1 { "" } else { "s" },
        series_table::tally(verdicts.into_iter())
    ))
}

/// The means of a benchmark's versions with figures, in version order.
fn history_means(b: &BenchmarkReport) -> Vec<f64> {
    b.series.points.iter().filter_map(Point::mean).collect()
}

/// A small line of `means` (the last one dotted), scaled from zero to the
/// largest, as inline SVG; its title says what it draws.
fn sparkline(means: Vec<f64>, latest: &str) -> String {
    use super::svg::coord;
    let (width, height) = (96.0, 18.0);
    let top = means.iter().copied().fold(0.0f64, f64::max);
    if means.len() < 2 || top <= 0.0 {
        return String::new();
    }
    let step = (width - 4.0) / (means.len() - 1) as f64;
    let at = |i: usize, v: f64| {
        (
            2.0 + i as f64 * step,
            height - 2.0 - v / top * (height - 4.0),
        )
    };
    let line: Vec<String> = means
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let (x, y) = at(i, *v);
            format!("{},{}", coord(x), coord(y))
        })
        .collect();
    let (lx, ly) = at(means.len() - 1, means[means.len() - 1]);
    let mut w = super::svg::SvgWriter::with_capacity(256 + line.len() * 12);
    w.open(
        "svg",
        &[
            ("class", "pa-spark"),
            ("width", &coord(width)),
            ("height", &coord(height)),
            (
                "viewBox",
                &format!("0 0 {} {}", coord(width), coord(height)),
            ),
            ("role", "img"),
            ("aria-label", "mean of each version"),
        ],
    );
    w.element(
        "title",
        &[],
        &format!(
            "mean of each of {} versions, from zero; newest: {latest}",
            means.len()
        ),
    );
    w.empty("polyline", &[("points", &line.join(" "))]);
    w.empty(
        "circle",
        &[("cx", &coord(lx)), ("cy", &coord(ly)), ("r", "2")],
    );
    w.close("svg");
    w.finish()
}

fn format_rows(history: &History, measurement_sources: &[(&'static str, &str)]) -> Vec<FormatRow> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &history.profiles {
        *counts.entry(p.format).or_insert(0) += 1;
    }
    for &(format, _) in measurement_sources {
        *counts.entry(format).or_insert(0) += 1;
    }
    counts
        .into_iter()
        .map(|(name, files)| FormatRow {
            name: name.to_string(),
            files,
        })
        .collect()
}

/// The site's front page.
pub struct IndexPage;

impl PageKind for IndexPage {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[("index.html", include_str!("../templates/index.html"))]
    }

    fn name(&self) -> &'static str {
        "index"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        vec![Job::file(move || {
            let html = render(site, &aggregate_sets(&site.aggregates))?;
            Ok(("index.html".to_string(), html.into_bytes()))
        })]
    }
}

/// The configured aggregate pages, as (label, path).
fn aggregate_sets(aggregates: &[crate::flame_plan::AggregatePlan]) -> Vec<(String, String)> {
    aggregates
        .iter()
        .filter(|p| p.subtitle.is_empty())
        .map(|p| {
            (
                format!(
                    "{}: {} ({} profiles)",
                    p.title,
                    p.metrics
                        .iter()
                        .map(|(m, _)| m.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    p.metrics.first().map_or(0, |(_, e)| e.len())
                ),
                p.path.clone(),
            )
        })
        .collect()
}
