//! A benchmark's page: its series over the versions (chart and table), where
//! the figures came from, the categories, each version's verdict against
//! the one before it, and the regressions and improvements found with their
//! probes. A long history's table keeps to the budget of [`series_table`].

use serde::Serialize;

use super::format::measured;
use super::series_table::{self, Line};
use super::{paths, series_svg, Common, Renderer};
use analysis::regression::{Categories, Change, Point, Series, Verdict};
use analysis::regression_report::{BenchmarkReport, RegressionReport};
use analysis::root_cause::RootCause;
use analysis::stats::Comparison;
use model::error::BuildError;
use model::History;

use crate::page_kind::{Job, PageKind, SitePlan};
use crate::verdict_words::{
    categories_note, change_row, fdr_note, judging_note, min_change_note, untested_word,
    verdict_text, ChangeRow,
};

#[derive(Serialize, Default)]
struct Row {
    /// Set on a line that stands for versions left out: what they hold.
    gap: Option<String>,
    version: String,
    /// The row's id, which the chart's point of the version links to.
    anchor: String,
    /// The version's page, and the merged profile of the benchmark (or
    /// of the benchmark profiled for it) in the version.
    version_href: String,
    profile_href: Option<String>,
    runs: usize,
    samples: Option<usize>,
    mean: String,
    interval: String,
    sd: String,
    category: String,
    verdict: String,
    verdict_class: &'static str,
    sources: String,
    notes: String,
}

#[derive(Serialize)]
struct View {
    #[serde(flatten)]
    common: Common,
    benchmark: String,
    origin: String,
    method: String,
    categories: String,
    chart: String,
    rows: Vec<Row>,
    /// Set when the table is cut: what it shows.
    budget: Option<Budget>,
    /// What a long series' chart draws.
    chart_note: Option<String>,
    changes: Vec<ChangeRow>,
    in_process_note: Option<String>,
    /// At least two versions have enough runs to be compared.
    judgeable: bool,
}

#[derive(Serialize)]
struct Budget {
    shown: usize,
    versions: usize,
    max_rows: usize,
    latest: usize,
}

/// The benchmark's page; its table has at most `table_rows` version rows
/// (0: a row per version).
pub fn render(
    history: &History,
    report: &RegressionReport,
    bench: &BenchmarkReport,
    table_rows: usize,
    renderer: &Renderer,
    site: &SitePlan,
) -> Result<(String, Vec<u8>), BuildError> {
    let page = paths::benchmark_page(&bench.series.benchmark);
    let series = &bench.series;
    let settings = &report.settings;
    let mut found: Vec<(&Change, Option<&RootCause>)> = report
        .changes
        .iter()
        .zip(&report.causes)
        .filter(|(c, _)| c.benchmark == series.benchmark)
        .map(|(c, cause)| (c, cause.as_ref()))
        .collect();
    found.sort_by_key(|(c, _)| c.after);
    let found_changes: Vec<&Change> = found.iter().map(|(c, _)| *c).collect();
    let (lines, marked) = table_lines(series, &bench.adjacent, &found_changes, table_rows);
    let shown = lines.iter().filter(|l| matches!(l, Line::Point(_))).count();
    let profiled = bench
        .explained_by
        .as_ref()
        .map_or(series.benchmark.as_str(), |(b, _)| b.as_str());
    let profile_of = |v: usize| {
        site.aggregates
            .iter()
            .find(|a| a.version == v && a.title == profiled && !a.subtitle.is_empty())
            .map(|a| format!("../{}", a.path))
    };
    let rows = lines
        .iter()
        .map(|line| match *line {
            Line::Point(i) => row(
                history,
                &series.unit,
                &series.points[i],
                bench
                    .against_previous(i, settings)
                    .map(|v| (v, untested_word(bench, i)))
                    .as_ref(),
                bench.categories.as_ref(),
                settings.confidence,
                profile_of(series.points[i].version),
            ),
            Line::Gap { from, to } => gap_row(history, bench, from, to),
        })
        .collect();
    let changes = found
        .iter()
        .map(|(c, cause)| change_row(history, c, *cause, &page, site))
        .collect();
    let view = View {
        common: Common::new(renderer, history, &page),
        benchmark: series.benchmark.clone(),
        origin: series.origin.describe(),
        method: format!(
            "{} {} {}",
            judging_note(bench, settings),
            min_change_note(settings),
            fdr_note(&report.fdr)
        ),
        categories: categories_note(history, bench.categories.as_ref(), &series.unit),
        chart: series_svg::chart(
            series,
            bench.categories.as_ref(),
            &history.versions,
            (None, &|v| format!("#{}", super::paths::version_anchor(&history.versions[v].name))),
            &marked,
            settings.confidence,
        ),
        rows,
        chart_note: series_svg::long_series_note(series.points.len(), settings.confidence),
        budget: (shown < series.points.len()).then_some(Budget {
            shown,
            versions: series.points.len(),
            max_rows: table_rows,
            latest: series_table::LATEST,
        }),
        changes,
        judgeable: bench.adjacent.iter().any(Verdict::judged),
        in_process_note: series.points.iter().any(|p| p.in_process).then(|| {
            "Samples taken inside one process (Criterion's iterations, pytest-benchmark's rounds) are not independent: each run counts once, with the mean of its samples. Save several runs per version (one file each) for a verdict.".to_string()
        }),
    };
    Ok((page, renderer.render("benchmark.html", &view)?.into_bytes()))
}

/// The table's lines (the points around each change found and each
/// significant step, within the budget), and the points a long chart marks:
/// the first, the last and those around each change found.
fn table_lines(
    series: &Series,
    adjacent: &[Verdict],
    found: &[&Change],
    table_rows: usize,
) -> (Vec<Line>, Vec<usize>) {
    let position = |version: usize| {
        series
            .points
            .binary_search_by_key(&version, |p| p.version)
            .ok()
    };
    let changes: Vec<(usize, usize)> = found
        .iter()
        .filter_map(|c| Some((position(c.before)?, position(c.after)?)))
        .collect();
    let steps: Vec<usize> = adjacent
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v, Verdict::Change { .. }))
        .map(|(j, _)| j + 1)
        .collect();
    let n = series.points.len();
    let mut marked: Vec<usize> = changes.iter().flat_map(|&(b, a)| [b, a]).collect();
    marked.extend([0, n.saturating_sub(1)]);
    (series_table::lines(n, table_rows, &changes, &steps), marked)
}

/// The line standing for points `from..=to`: how many versions, which,
/// the range of their means and their verdicts counted.
fn gap_row(history: &History, bench: &BenchmarkReport, from: usize, to: usize) -> Row {
    let points = &bench.series.points[from..=to];
    let label = |p: &Point| history.versions[p.version].label.as_str();
    let means = points.iter().filter_map(Point::mean);
    let (lo, hi) = means.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
        (lo.min(m), hi.max(m))
    });
    let unit = &bench.series.unit;
    let range = if lo <= hi {
        format!("; means {} – {}", measured(lo, unit), measured(hi, unit))
    } else {
        String::new()
    };
    // The first point is always shown, so every point here has a verdict.
    let verdicts = bench.adjacent[from.saturating_sub(1)..to].iter();
    Row {
        gap: Some(format!(
            "{} versions not shown ({} … {}){range}; against the version before: {}",
            points.len(),
            label(&points[0]),
            label(&points[points.len() - 1]),
            series_table::tally(verdicts)
        )),
        ..Row::default()
    }
}

/// A point's verdict against the one before, with the test's figures,
/// and the words of a change told without a test ([`untested_word`]).
type Judged<'a> = ((Verdict, Option<Comparison>), Option<&'a str>);

fn row(
    history: &History,
    unit: &str,
    p: &Point,
    verdict: Option<&Judged>,
    categories: Option<&Categories>,
    confidence: f64,
    profile_href: Option<String>,
) -> Row {
    let s = p.summary(confidence);
    let (verdict, verdict_class) = match verdict {
        None => ("first".to_string(), "pa-muted"),
        Some((v, how)) => verdict_text(v, *how),
    };
    Row {
        gap: None,
        version: history.versions[p.version].label.clone(),
        anchor: super::paths::version_anchor(&history.versions[p.version].name),
        version_href: format!(
            "../{}",
            super::paths::version_page(&history.versions[p.version].name)
        ),
        profile_href,
        runs: p.values.len(),
        samples: (p.samples != p.values.len()).then_some(p.samples),
        mean: s.map(|s| measured(s.mean, unit)).unwrap_or_default(),
        interval: match (s.and_then(|s| s.ci), p.interval.as_deref()) {
            (Some((lo, hi)), _) => format!("{} – {}", measured(lo, unit), measured(hi, unit)),
            (None, Some(i)) => format!(
                "{} – {} (recorded)",
                measured(i.low, unit),
                measured(i.high, unit)
            ),
            (None, None) => "—".into(),
        },
        sd: s
            .filter(|s| s.n > 1)
            .map(|s| measured(s.sd, unit))
            .unwrap_or_else(|| "—".into()),
        category: match (categories, s) {
            (Some(c), Some(s)) => c.name_of(s.mean).to_string(),
            _ => String::new(),
        },
        verdict,
        verdict_class,
        sources: summarise_sources(&p.sources),
        notes: p.notes.join("; "),
    }
}

fn summarise_sources(sources: &[&str]) -> String {
    match sources.len() {
        0 => String::new(),
        1..=3 => sources.join(", "),
        n => format!("{}, … ({n} files)", sources[..2].join(", ")),
    }
}

/// A page per benchmark with measurements: its series and changes.
pub struct BenchmarkPages;

impl PageKind for BenchmarkPages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "benchmark.html",
            include_str!("../templates/benchmark.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "benchmark pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let report = &site.analysis.regressions;
        let rows = site.config.regressions.table_rows;
        report
            .benchmarks
            .iter()
            .filter(|b| !b.series.points.is_empty())
            .map(|b| Job::file(move || render(site.history, report, b, rows, site.renderer, site)))
            .collect()
    }
}
