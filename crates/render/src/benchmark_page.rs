//! A benchmark's page: its series over the versions (chart and table), where
//! the figures came from, the categories, each version's verdict against
//! the one before it, and the regressions and improvements found with their
//! probes. A long history's table keeps to the budget of [`series_table`].

use serde::Serialize;

use super::format::{measured, p_value, signed_percent};
use super::series_table::{self, Line};
use super::{paths, series_svg, Common, Renderer};
use analysis::regression::{
    Basis, Categories, Change, Direction, Fdr, Judging, Method, Point, Series, Settings, Verdict,
};
use analysis::regression_report::{BenchmarkReport, RegressionReport};
use analysis::root_cause::RootCause;
use analysis::stats::Comparison;
use model::error::BuildError;
use model::{Better, History};

use crate::pages::{Job, PageKind, Site};

/// The function that explains most of a change, with its share of the
/// difference and whether `after` modified it.
pub fn cause_summary(cause: &RootCause, after: &str) -> Option<String> {
    let f = cause.main_function()?;
    Some(format!(
        "{}{} explains {:.0}% of the difference{}",
        f.name,
        f.file
            .as_deref()
            .map(|x| format!(" ({x})"))
            .unwrap_or_default(),
        f.share * 100.0,
        if f.modified {
            format!(", modified in {after} ●")
        } else {
            String::new()
        }
    ))
}

/// Which false-discovery control is in force, in one sentence.
pub fn fdr_note(fdr: &Fdr) -> String {
    if !fdr.in_force {
        return format!(
            "No false-discovery-rate control: each of the {} comparisons of this build stands alone (`[regressions] fdr = false`).",
            fdr.tests
        );
    }
    let held = match fdr.held_back {
        0 => String::new(),
        n => format!(
            " {n} difference{} significant alone {} not reported because of it.",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" }
        ),
    };
    format!(
        "Benjamini–Hochberg false-discovery-rate control at {}% over the {} version-to-version comparisons of this build.{held}",
        format!("{:.4}", fdr.rate * 100.0).trim_end_matches('0').trim_end_matches('.'),
        fdr.tests
    )
}

#[derive(Serialize, Default)]
struct Row {
    /// Set on a line that stands for versions left out: what they hold.
    gap: Option<String>,
    version: String,
    /// The row's id, which the chart's point of the version links to.
    anchor: String,
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
pub struct ChangeRow {
    pub label: String,
    pub benchmark: String,
    pub class: &'static str,
    pub summary: String,
    pub href: Option<String>,
    /// The function that explains most of the change, in one line.
    pub cause: Option<String>,
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
            ),
            Line::Gap { from, to } => gap_row(history, bench, from, to),
        })
        .collect();
    let changes = found
        .iter()
        .map(|(c, cause)| change_row(history, c, *cause, &page))
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
    let means = points.iter().filter_map(|p| p.summary.map(|s| s.mean));
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

/// How this benchmark's versions are told apart, and which way it
/// improves.
pub fn judging_note(bench: &BenchmarkReport, settings: &Settings) -> String {
    let better = bench.series.better.describe();
    match bench.judging {
        Judging::Runs => format!(
            "{} ({better}).",
            method_note(settings.test.label(), settings.confidence, settings.min_runs)
                .trim_end_matches('.')
        ),
        Judging::Exact => format!(
            "Every version's runs are equal (a count, not a timing), so versions are compared exactly, without a test ({better})."
        ),
        Judging::ChangePoints { .. } => format!(
            "Fewer than {} independent runs in most versions, so the history's steps are found by change-point detection over the versions' values ({better}): a step is reported when the values on its two sides differ by Welch's t-test at {}% confidence, its p-value multiplied by the positions searched, and both its means and medians move; a level must hold for {} versions on each side.",
            settings.min_runs,
            settings.confidence * 100.0,
            settings.min_segment
        ),
    }
}

/// The practical size below which no change is reported.
pub fn min_change_note(settings: &Settings) -> String {
    format!(
        "Changes smaller than {}% are not reported, whatever their p-value (`[regressions] min_change`).",
        format!("{:.2}", settings.min_change * 100.0)
            .trim_end_matches('0')
            .trim_end_matches('.')
    )
}

pub fn method_note(test: &str, confidence: f64, min_runs: usize) -> String {
    format!(
        "Versions differ when {test} rejects equal means at {}% confidence; intervals are {}% confidence intervals; a verdict needs at least {min_runs} independent runs per version.",
        confidence * 100.0,
        confidence * 100.0
    )
}

pub fn categories_note(history: &History, c: Option<&Categories>, unit: &str) -> String {
    let Some(c) = c else {
        return "No categories: there are no figures.".into();
    };
    let mut parts = Vec::new();
    for (k, name) in c.names.iter().enumerate() {
        // Band k lies between edge k − 1 and edge k: below edge k for a
        // figure better lower, above it for one better higher.
        let (previous, next) = (
            k.checked_sub(1).map(|j| c.edges[j]),
            c.edges.get(k).copied(),
        );
        let range = match (c.better, previous, next) {
            (_, None, None) => "everything".into(),
            (Better::Lower, None, Some(hi)) => format!("below {}", measured(hi, unit)),
            (Better::Lower, Some(lo), None) => format!("{} and above", measured(lo, unit)),
            (Better::Higher, None, Some(lo)) => format!("{} and above", measured(lo, unit)),
            (Better::Higher, Some(hi), None) => format!("below {}", measured(hi, unit)),
            (Better::Lower, Some(lo), Some(hi)) | (Better::Higher, Some(hi), Some(lo)) => {
                format!("{} to {}", measured(lo, unit), measured(hi, unit))
            }
        };
        parts.push(format!("{name}: {range}"));
    }
    let from = match c.derived_from {
        Some(v) => format!(
            "derived from the mean of the first version with figures ({})",
            history.versions[v].label
        ),
        None => "configured in perfatlas.toml".into(),
    };
    format!("Categories ({from}): {}. A major change crosses a category; a minor one is significant within it.", parts.join("; "))
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
) -> Row {
    let s = p.summary;
    let (verdict, verdict_class) = match verdict {
        None => ("first".to_string(), "pa-muted"),
        Some((v, how)) => verdict_text(v, *how),
    };
    Row {
        gap: None,
        version: history.versions[p.version].label.clone(),
        anchor: super::paths::version_anchor(&history.versions[p.version].name),
        runs: p.values.len(),
        samples: (p.samples != p.values.len()).then_some(p.samples),
        mean: s.map(|s| measured(s.mean, unit)).unwrap_or_default(),
        interval: match (s.and_then(|s| s.ci), p.interval) {
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

fn summarise_sources(sources: &[std::sync::Arc<str>]) -> String {
    match sources.len() {
        0 => String::new(),
        1..=3 => sources.join(", "),
        n => format!("{}, … ({n} files)", sources[..2].join(", ")),
    }
}

/// The figures of a comparison in brackets (its relative change and
/// p-value, those it has), or nothing.
fn bracketed(c: Option<&Comparison>) -> String {
    let Some(c) = c else {
        return String::new();
    };
    let parts: Vec<String> = [c.relative.map(signed_percent), Some(p_value(c.p_value))]
        .into_iter()
        .flatten()
        .collect();
    format!(" ({})", parts.join(", "))
}

/// A verdict in words, with its CSS class.
/// How point `i` of a benchmark was told from the one before without a
/// test, for its verdict's words: `exact`, or by the intervals its tool
/// recorded; `None` when a test decided (or nothing did).
pub fn untested_word(bench: &BenchmarkReport, i: usize) -> Option<&'static str> {
    let points = &bench.series.points;
    let recorded = |k: usize| points.get(k).is_some_and(|p| p.interval.is_some());
    match &bench.judging {
        Judging::Exact => Some("exact"),
        _ if i > 0 && recorded(i - 1) && recorded(i) => Some("recorded intervals apart"),
        _ => None,
    }
}

/// A verdict in words, with the test's figures (or `how`, the words of a
/// change told without a test), and its class.
pub fn verdict_text(
    (verdict, c): &(Verdict, Option<Comparison>),
    how: Option<&str>,
) -> (String, &'static str) {
    let figures = bracketed(c.as_ref());
    match verdict {
        Verdict::Change {
            direction,
            severity,
        } => {
            let (word, class) = match direction {
                Direction::Regression => ("regression", "pa-bad"),
                Direction::Improvement => ("improvement", "pa-good"),
            };
            let untested = match (c, how) {
                (None, Some(how)) => format!(" ({how})"),
                _ => String::new(),
            };
            (
                format!("{} {word}{figures}{untested}", severity_word(*severity)),
                class,
            )
        }
        Verdict::NoChange => (format!("no significant change{figures}"), "pa-muted"),
        Verdict::HeldBack { p_value: p } => (
            format!(
                "held back by false-discovery control ({}{})",
                c.and_then(|c| c.relative)
                    .map(|r| format!("{}, ", signed_percent(r)))
                    .unwrap_or_default(),
                p_value(*p)
            ),
            "pa-muted",
        ),
        Verdict::Negligible { relative } => (
            format!(
                "no change of practical size ({}{})",
                signed_percent(*relative),
                c.map(|c| format!(", {}", p_value(c.p_value)))
                    .unwrap_or_default()
            ),
            "pa-muted",
        ),
        Verdict::NotEnoughData { reason } => (format!("not enough data: {reason}"), "pa-muted"),
    }
}

pub fn severity_word(s: analysis::regression::Severity) -> &'static str {
    match s {
        analysis::regression::Severity::Major => "major",
        analysis::regression::Severity::Minor => "minor",
    }
}

/// A change as one line, linking to its page (regressions) from `page`.
pub fn change_row(
    history: &History,
    c: &analysis::regression::Change,
    cause: Option<&RootCause>,
    page: &str,
) -> ChangeRow {
    let name = |v: usize| history.versions[v].name.as_str();
    let label = |v: usize| history.versions[v].label.as_str();
    let regression = c.direction == Direction::Regression;
    let figures = [
        c.relative.map(signed_percent),
        c.comparison.map(|x| p_value(x.p_value)),
        found_by(history, c),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<String>>()
    .join(", ");
    let category = if c.categories.0 != c.categories.1 {
        format!("; {} → {}", c.categories.0, c.categories.1)
    } else {
        String::new()
    };
    ChangeRow {
        benchmark: c.benchmark.clone(),
        label: format!(
            "{} {} in {}",
            severity_word(c.severity),
            if regression {
                "regression"
            } else {
                "improvement"
            },
            label(c.after)
        ),
        class: if regression { "pa-bad" } else { "pa-good" },
        summary: format!(
            "{} → {} ({figures}{category}){}{}",
            label(c.before),
            label(c.after),
            match c.method {
                Method::Adjacent => String::new(),
                Method::Gap { unmeasured } => format!(
                    "; {unmeasured} version{} between not measured",
                    if unmeasured == 1 { "" } else { "s" }
                ),
            },
            c.undone
                .as_ref()
                .map(|u| format!("; undone in {}", label(u.by)))
                .unwrap_or_default()
        ),
        href: Some(format!(
            "{}{}",
            paths::root_of(page),
            paths::change_page(c, name(c.before), name(c.after))
        )),
        cause: cause.and_then(|x| cause_summary(x, label(c.after))),
    }
}

/// What found a change, in words, when it is not a test between two
/// versions' runs.
pub fn found_by(history: &History, c: &analysis::regression::Change) -> Option<String> {
    let label = |v: usize| history.versions[v].label.as_str();
    match &c.basis {
        Basis::Runs => None,
        Basis::Exact => Some("exact: equal runs within each version".into()),
        Basis::NewValue { window } => Some(format!(
            "the newest value against the prediction interval of the {window} before it"
        )),
        Basis::Intervals { .. } => {
            Some("the intervals the tool recorded around the two values do not overlap".into())
        }
        Basis::ChangePoint {
            from,
            to,
            before_count,
            after_count,
        } => Some(format!(
            "change point: {before_count} version{} from {} against {after_count} up to {}",
            if *before_count == 1 { "" } else { "s" },
            label(*from),
            label(*to)
        )),
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

    fn jobs<'a>(&self, site: &'a Site<'a>) -> Vec<Job<'a>> {
        let report = &site.analysis.regressions;
        let rows = site.config.regressions.table_rows;
        report
            .benchmarks
            .iter()
            .filter(|b| !b.series.points.is_empty())
            .map(|b| Job::file(move || render(site.history, report, b, rows, site.renderer)))
            .collect()
    }
}
