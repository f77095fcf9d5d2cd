//! The words of verdicts, shared by every page that states one (the
//! benchmark pages, the change pages, the index): a verdict with its
//! figures, how a change was found, what judged a series, the
//! categories, the practical size and the false-discovery control, and a
//! change's row with its root cause. Page kinds call it; it calls none.

use serde::Serialize;

use super::format::{factor_words, measured, p_value, signed_percent};
use super::paths;
use analysis::regression::{Basis, Categories, Direction, Fdr, Judging, Method, Settings, Verdict};
use analysis::regression_report::BenchmarkReport;
use analysis::root_cause::RootCause;
use analysis::stats::Comparison;
use model::{Better, History};

/// The function that explains most of a change, in one line that links
/// it: its name to its method's section, its file to its source.
#[derive(Serialize)]
pub struct CauseLine {
    pub name: String,
    pub file: Option<String>,
    pub method_href: Option<String>,
    pub source_href: Option<String>,
    /// What follows the name and file: " explains 98% of the
    /// difference, modified in 3.0.8 ●".
    pub rest: String,
}

/// The function that explains most of a change, with its share of the
/// difference and whether `after` modified it; `links` gives its method
/// and source links (see [`crate::function_home::function_links`]).
pub fn cause_summary(
    cause: &RootCause,
    after: &str,
    links: &dyn Fn(model::FrameId) -> (Option<String>, Option<String>),
) -> Option<CauseLine> {
    let f = cause.main_function()?;
    let (method_href, source_href) = links(f.frame);
    Some(CauseLine {
        name: f.name.clone(),
        file: f.file.clone(),
        method_href,
        source_href,
        rest: format!(
            " explains {:.0}% of the difference{}",
            f.share * 100.0,
            if f.modified {
                format!(", modified in {after} ●")
            } else {
                String::new()
            }
        ),
    })
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

#[derive(Serialize)]
pub struct ChangeRow {
    pub label: String,
    pub benchmark: String,
    pub class: &'static str,
    pub summary: String,
    pub href: Option<String>,
    /// The function that explains most of the change, in one line.
    pub cause: Option<CauseLine>,
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

/// How point `i` of a benchmark was told from the one before without a
/// test, for its verdict's words: `exact`, or by the intervals its tool
/// recorded; `None` when a test decided (or nothing did).
pub fn untested_word(bench: &BenchmarkReport, i: usize) -> Option<&'static str> {
    let untested = i > 0 && bench.untested.get(i - 1).copied().unwrap_or(false);
    match &bench.judging {
        Judging::Exact => Some("exact"),
        _ if untested => Some("recorded intervals"),
        _ => None,
    }
}

/// A verdict in words, with the test's figures (or, told without a test,
/// `how`: a change's values were `exact`ly apart or its `recorded
/// intervals` apart; no change, equal values or overlapping intervals),
/// and its class.
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
                (None, Some("recorded intervals")) => " (recorded intervals apart)".to_string(),
                (None, Some(how)) => format!(" ({how})"),
                _ => String::new(),
            };
            (
                format!("{} {word}{figures}{untested}", severity_word(*severity)),
                class,
            )
        }
        Verdict::NoChange => match (c, how) {
            (None, Some("recorded intervals")) => (
                "no change (the recorded intervals overlap)".to_string(),
                "pa-muted",
            ),
            (None, Some("exact")) => ("no change (equal values)".to_string(), "pa-muted"),
            _ => (format!("no significant change{figures}"), "pa-muted"),
        },
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
    site: &crate::page_kind::SitePlan,
) -> ChangeRow {
    let name = |v: usize| history.versions[v].name.as_str();
    let label = |v: usize| history.versions[v].label.as_str();
    let regression = c.direction == Direction::Regression;
    let unit = site
        .analysis
        .regressions
        .benchmark(&c.benchmark)
        .map_or("", |b| b.series.unit.as_str());
    let figures = [
        c.relative.map(signed_percent),
        c.relative.and_then(|r| factor_words(r, unit)),
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
        cause: cause.and_then(|x| {
            let root = paths::root_of(page);
            let links =
                |f| crate::function_home::function_links(site, &root, (&x.benchmark, c.after), f);
            cause_summary(x, label(c.after), &links)
        }),
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

pub fn kind_word(direction: Direction) -> &'static str {
    match direction {
        Direction::Regression => "Regression",
        Direction::Improvement => "Improvement",
    }
}
