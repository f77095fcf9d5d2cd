//! A benchmark's page: its series over the versions (chart and table), where
//! the figures came from, the categories, each version's verdict against
//! the one before it, and the regressions and improvements found with their
//! probes.

use serde::Serialize;

use super::format::{measured, p_value, signed_percent};
use super::{paths, series_svg, Common, Renderer};
use crate::analysis::regression::{Categories, Direction, Point, Verdict};
use crate::analysis::regression_report::{BenchmarkReport, RegressionReport};
use crate::analysis::stats::Comparison;
use crate::error::BuildError;
use crate::model::History;

pub fn path(benchmark: &str) -> String {
    format!("benchmarks/{}.html", paths::slug(benchmark))
}

/// A regression's page.
pub fn regression_path(benchmark: &str, before: &str, after: &str) -> String {
    format!(
        "regressions/{}/{}--{}.html",
        paths::slug(benchmark),
        paths::slug(before),
        paths::slug(after)
    )
}

#[derive(Serialize)]
struct Row {
    version: String,
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
    changes: Vec<ChangeRow>,
    in_process_note: Option<String>,
    /// At least two versions have enough runs to be compared.
    judgeable: bool,
}

pub fn render(
    history: &History,
    report: &RegressionReport,
    bench: &BenchmarkReport,
    renderer: &Renderer,
) -> Result<(String, Vec<u8>), BuildError> {
    let page = path(&bench.series.benchmark);
    let series = &bench.series;
    let settings = &report.settings;
    let mut rows = Vec::new();
    for (i, p) in series.points.iter().enumerate() {
        let verdict = if i == 0 {
            None
        } else {
            Some(&bench.adjacent[i - 1])
        };
        rows.push(row(
            history,
            &series.unit,
            p,
            verdict,
            bench.categories.as_ref(),
        ));
    }
    let changes = report
        .changes
        .iter()
        .filter(|c| c.benchmark == series.benchmark)
        .map(|c| change_row(history, c, &page))
        .collect();
    let view = View {
        common: Common::new(renderer, history, &page),
        benchmark: series.benchmark.clone(),
        origin: series.origin.describe(),
        method: method_note(settings.test.label(), settings.confidence, settings.min_runs),
        categories: categories_note(history, bench.categories.as_ref(), &series.unit),
        chart: series_svg::chart(series, bench.categories.as_ref(), &history.versions, None, settings.confidence),
        rows,
        changes,
        judgeable: series
            .points
            .iter()
            .filter(|p| p.values.len() >= settings.min_runs)
            .count()
            >= 2,
        in_process_note: series.points.iter().any(|p| p.in_process).then(|| {
            "Samples taken inside one process (Criterion's iterations, pytest-benchmark's rounds) are not independent: each run counts once, with the mean of its samples. Save several runs per version (one file each) for a verdict.".to_string()
        }),
    };
    Ok((page, renderer.render("benchmark.html", &view)?.into_bytes()))
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
        let range = match (k.checked_sub(1).map(|j| c.edges[j]), c.edges.get(k)) {
            (None, Some(hi)) => format!("below {}", measured(*hi, unit)),
            (Some(lo), Some(hi)) => format!("{} to {}", measured(lo, unit), measured(*hi, unit)),
            (Some(lo), None) => format!("{} and above", measured(lo, unit)),
            (None, None) => "everything".into(),
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

fn row(
    history: &History,
    unit: &str,
    p: &Point,
    verdict: Option<&(Verdict, Option<Comparison>)>,
    categories: Option<&Categories>,
) -> Row {
    let s = p.summary;
    let (verdict, verdict_class) = match verdict {
        None => ("first".to_string(), "pa-muted"),
        Some(v) => verdict_text(v),
    };
    Row {
        version: history.versions[p.version].label.clone(),
        runs: p.values.len(),
        samples: (p.samples != p.values.len()).then_some(p.samples),
        mean: s.map(|s| measured(s.mean, unit)).unwrap_or_default(),
        interval: s
            .and_then(|s| s.ci)
            .map(|(lo, hi)| format!("{} – {}", measured(lo, unit), measured(hi, unit)))
            .unwrap_or_else(|| "—".into()),
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

fn summarise_sources(sources: &[String]) -> String {
    match sources.len() {
        0 => String::new(),
        1..=3 => sources.join(", "),
        n => format!("{}, … ({n} files)", sources[..2].join(", ")),
    }
}

/// A verdict in words, with its CSS class.
pub fn verdict_text((verdict, c): &(Verdict, Option<Comparison>)) -> (String, &'static str) {
    let figures = c
        .map(|c| {
            format!(
                "{}, {}",
                c.relative.map(signed_percent).unwrap_or_default(),
                p_value(c.p_value)
            )
        })
        .unwrap_or_default();
    match verdict {
        Verdict::Change {
            direction,
            severity,
        } => {
            let (word, class) = match direction {
                Direction::Regression => ("regression", "pa-bad"),
                Direction::Improvement => ("improvement", "pa-good"),
            };
            (
                format!("{} {word} ({figures})", severity_word(*severity)),
                class,
            )
        }
        Verdict::NoChange => (format!("no significant change ({figures})"), "pa-muted"),
        Verdict::NotEnoughData { reason } => (format!("not enough data: {reason}"), "pa-muted"),
    }
}

pub fn severity_word(s: crate::analysis::regression::Severity) -> &'static str {
    match s {
        crate::analysis::regression::Severity::Major => "major",
        crate::analysis::regression::Severity::Minor => "minor",
    }
}

/// A change as one line, linking to its page (regressions) from `page`.
pub fn change_row(
    history: &History,
    c: &crate::analysis::regression::Change,
    page: &str,
) -> ChangeRow {
    let name = |v: usize| history.versions[v].name.as_str();
    let label = |v: usize| history.versions[v].label.as_str();
    let regression = c.direction == Direction::Regression;
    let figures = c
        .comparison
        .map(|x| {
            format!(
                "{}, {}",
                x.relative.map(signed_percent).unwrap_or_default(),
                p_value(x.p_value)
            )
        })
        .unwrap_or_default();
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
            "{} → {} ({figures}{category}); found by {} probe{} between {} and {}",
            label(c.before),
            label(c.after),
            c.probes.len(),
            if c.probes.len() == 1 { "" } else { "s" },
            label(c.span.0),
            label(c.span.1)
        ),
        href: regression.then(|| {
            format!(
                "{}{}",
                paths::root_of(page),
                regression_path(&c.benchmark, name(c.before), name(c.after))
            )
        }),
    }
}
