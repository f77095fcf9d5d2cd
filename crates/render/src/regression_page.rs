//! A regression's page, after PRCA's Fig. 7: the benchmark, the change
//! with its test figures and categories, the series with the responsible
//! version highlighted, how it was found (and whether a later version
//! undid it), the functions whose own change explains it, and the call
//! tree of the responsible version with the flagged path, candidates and
//! modified methods; links to the flame-graph diff, the source diff and
//! the matrix. Improvements get the same page.

use serde::Serialize;

use super::code_links::{CodeLinks, MethodHomes, SourceLinks};
use super::format::{factor_words, measured, p_value, signed_percent};
use super::verdict_words::{
    self, categories_note, judging_note, kind_word, min_change_note, severity_word, CauseLine,
};
use super::{paths, series_svg, Common, Renderer};
use analysis::regression::{Basis, Change, Method, Series};
use analysis::regression_report::RegressionReport;
use analysis::root_cause::RootCause;
use model::error::BuildError;
use model::FrameId;
use model::History;

use crate::function_home::{at_version, function_links};
use crate::page_kind::{Job, PageKind, SitePlan};

#[derive(Serialize)]
struct FunctionRow {
    name: String,
    file: String,
    /// The function's source page in the version after, when there is one.
    href: String,
    /// Its method's section on the matrix's component page.
    home: Option<String>,
    before: String,
    after: String,
    delta: String,
    share: String,
    test: String,
    significant: bool,
    modified: bool,
    cause: bool,
}

#[derive(Serialize)]
struct TreeRow {
    indent: usize,
    name: String,
    /// Its method's section on the matrix's component page.
    home: Option<String>,
    mark: &'static str,
    class: String,
    before: String,
    after: String,
    change: String,
    note: String,
    modified: bool,
}

#[derive(Serialize)]
struct View {
    #[serde(flatten)]
    common: Common,
    benchmark: String,
    benchmark_href: String,
    severity: &'static str,
    before: String,
    after: String,
    headline: String,
    interval: String,
    category: String,
    method: String,
    categories: String,
    origin: String,
    tested_method: Option<String>,
    chart: String,
    /// What a long series' chart draws.
    chart_note: Option<String>,
    kind: &'static str,
    found_by: String,
    undone: Option<(String, Option<String>)>,
    fdr: String,
    cause_line: Option<CauseLine>,
    cause_benchmark: String,
    cause_link: String,
    functions: Vec<FunctionRow>,
    tree: Vec<TreeRow>,
    no_cause: Option<String>,
    cause_metric: String,
    repetitions: (usize, usize),
    links: Vec<(String, String)>,
}

/// `flame_diffs`: paths of the differential flame-graph pages the site has.
pub fn render(
    history: &History,
    (report, frames): (&RegressionReport, &analysis::shapes::ShapeFrames),
    index: usize,
    (renderer, code_links): (&Renderer, &SourceLinks),
    flame_diffs: &std::collections::BTreeSet<String>,
    source_diff_versions: &[bool],
    site: &SitePlan,
) -> Result<(String, Vec<u8>), BuildError> {
    let c = &report.changes[index];
    let bench = report.benchmark(&c.benchmark).ok_or_else(|| {
        BuildError::Internal(format!("change of {} without its benchmark", c.benchmark))
    })?;
    let unit = &bench.series.unit;
    let label = |v: usize| history.versions[v].label.clone();
    let name = |v: usize| history.versions[v].name.clone();
    let page = paths::change_page(c, &name(c.before), &name(c.after));
    let root = paths::root_of(&page);
    let cause = report.causes[index].as_ref();
    let mean_of = |v: usize| {
        bench
            .series
            .mean_at(v)
            .map(|m| measured(m, unit))
            .unwrap_or_default()
    };
    let settings = &report.settings;
    let view = View {
        common: Common::new(renderer, history, &page),
        benchmark: c.benchmark.clone(),
        benchmark_href: format!("{root}{}", paths::benchmark_page(&c.benchmark)),
        severity: severity_word(c.severity),
        before: label(c.before),
        after: label(c.after),
        headline: headline(c, (&mean_of(c.before), &mean_of(c.after)), unit),
        interval: c
            .comparison
            .map(|x| {
                format!(
                    "{}% interval of the difference: {} to {}; {} (t/F = {:.3}, df = {:.1}).",
                    x.confidence * 100.0,
                    measured(x.ci().0, unit),
                    measured(x.ci().1, unit),
                    p_value(x.p_value),
                    x.statistic,
                    x.df
                )
            })
            .unwrap_or_default(),
        category: if c.categories.0 == c.categories.1 {
            format!("Within the category “{}”.", c.categories.0)
        } else {
            format!("Category “{}” → “{}”.", c.categories.0, c.categories.1)
        },
        method: format!(
            "{} {}",
            judging_note(bench, settings),
            min_change_note(settings)
        ),
        categories: categories_note(history, bench.categories.as_ref(), unit),
        origin: bench.series.origin.describe(),
        tested_method: cause.and_then(tested_method),
        chart: series_svg::chart(
            &bench.series,
            bench.categories.as_ref(),
            &history.versions,
            (Some((c.before, c.after)), &|v| {
                format!(
                    "{root}{}#{}",
                    paths::benchmark_page(&c.benchmark),
                    paths::version_anchor(&history.versions[v].name)
                )
            }),
            &marked_points(report, &bench.series),
            settings.confidence,
        ),
        chart_note: series_svg::long_series_note(bench.series.points.len(), settings.confidence),
        kind: kind_word(c.direction),
        found_by: found_by(c, &label, &bench.series.unit),
        undone: c.undone.as_ref().map(|u| {
            let back = format!(
                "Undone in {}: the mean came back to {} against {}.",
                label(u.by),
                signed_percent(u.relative_to_before),
                label(c.before)
            );
            let link = report
                .changes
                .iter()
                .find(|x| x.benchmark == c.benchmark && x.after == u.by)
                .map(|x| format!("{root}{}", paths::change_page(x, &name(x.before), &name(x.after))));
            (back, link)
        }),
        fdr: verdict_words::fdr_note(&report.fdr),
        cause_line: cause.and_then(|x| {
            let links = |f| function_links(site, &root, (&x.benchmark, c.after), f);
            cause_line(x, &label(c.after), &links)
        }),
        cause_benchmark: cause.map(|x| x.benchmark.clone()).unwrap_or_default(),
        cause_link: bench
            .explained_by
            .as_ref()
            .filter(|(b, _)| b != &c.benchmark)
            .map(|(b, why)| format!("The call trees are those of the profiled benchmark `{b}` ({why})."))
            .unwrap_or_default(),
        functions: cause
            .map(|cause| {
                let code = CodeLinks {
                    links: code_links,
                    version: c.after,
                    root: root.clone(),
                    origin: Some(frames),
                    method: Some(MethodHomes::of(site, &cause.benchmark, c.after)),
                };
                function_rows(cause, &|f| {
                    let links = code.of(&frames.table, f);
                    (links.source, Some(links.method).filter(|m| !m.is_empty()))
                })
            })
            .unwrap_or_default(),
        tree: cause
            .map(|x| {
                let home = |f| {
                    site.homes
                        .method_page(&x.benchmark, f)
                        .map(|p| format!("{root}{}", at_version(p, &name(c.after))))
                };
                tree_rows(x, &x.unit, &home)
            })
            .unwrap_or_default(),
        no_cause: match cause {
            Some(x) => x.none.clone(),
            None => Some(format!(
                "no profiles explain `{}`: profile it in these versions, or name its profiled benchmark in `[[benchmarks]]` (`profiles = \"…\"`)",
                c.benchmark
            )),
        },
        cause_metric: cause.map(|x| x.metric.clone()).unwrap_or_default(),
        repetitions: cause.map(|x| x.repetitions).unwrap_or((0, 0)),
        links: links(history, c, cause, &root, flame_diffs, source_diff_versions),
    };
    Ok((
        page,
        renderer.render("regression.html", &view)?.into_bytes(),
    ))
}

/// The points a long chart marks: the first, the last, and those around
/// each change found in the benchmark.
fn marked_points(report: &RegressionReport, series: &Series) -> Vec<usize> {
    let position = |version: usize| {
        series
            .points
            .binary_search_by_key(&version, |p| p.version)
            .ok()
    };
    let around = report
        .changes
        .iter()
        .filter(|c| c.benchmark == series.benchmark)
        .flat_map(|c| [position(c.before), position(c.after)]);
    let ends = [Some(0), series.points.len().checked_sub(1)];
    around.chain(ends).flatten().collect()
}

/// How the responsible version was found.
fn found_by(c: &Change, label: &dyn Fn(usize) -> String, unit: &str) -> String {
    match c.basis {
        Basis::Intervals { before, after } => {
            return format!(
                "{} and {} have one value each, too few for a test and too short a history for change points; the tool recorded an interval around each (see the notes for which), {} to {} and {} to {}, and they do not overlap: the two differ, as `asv compare` reads intervals. {} is responsible.",
                label(c.before),
                label(c.after),
                measured(before.low, unit),
                measured(before.high, unit),
                measured(after.low, unit),
                measured(after.high, unit),
                label(c.after)
            )
        }
        Basis::ChangePoint {
            from,
            to,
            before_count,
            after_count,
        } => {
            return format!(
                "A change point of the history (one value per version): the {before_count} version{} from {} to {} against the {after_count} from {} to {}, by Welch's t-test on the logarithms of the values, its p-value multiplied by the positions the step was searched among; the level held for all {after_count}. {} is the first version at the new level.",
                if before_count == 1 { "" } else { "s" },
                label(from),
                label(c.before),
                label(c.after),
                label(to),
                label(c.after)
            )
        }
        Basis::NewValue { window } => {
            return format!(
                "{} is the newest version, with one value: it lies outside the prediction interval of the {window} values before it (since the last change point), as `check` judges a new value. Later versions will tell whether the level holds.",
                label(c.after)
            )
        }
        Basis::Exact => {
            return format!(
                "Every version's runs are equal (a count, not a timing): {} and {} differ exactly, no test needed.",
                label(c.before),
                label(c.after)
            )
        }
        Basis::Runs => {}
    }
    match c.method {
        Method::Adjacent => format!(
            "{} and {} are consecutive versions, both measured, and differ significantly: {} is responsible. Every pair of consecutive versions is compared this way.",
            label(c.before),
            label(c.after),
            label(c.after)
        ),
        Method::Gap { unmeasured } => format!(
            "{} and {} differ significantly, but the {unmeasured} version{} between them {} no figures: the responsible version is one of {} or {}. `perfatlas bisect` narrows it down by measuring commits, chosen by PRCA's weight w = min(a + 1, N − (a + 1)) (section 4.1).",
            label(c.before),
            label(c.after),
            if unmeasured == 1 { "" } else { "s" },
            if unmeasured == 1 { "has" } else { "have" },
            if unmeasured == 1 { "it" } else { "them" },
            label(c.after)
        ),
    }
}

/// One sentence: the function that explains most of the change.
fn cause_line(
    cause: &RootCause,
    after: &str,
    links: &dyn Fn(FrameId) -> (Option<String>, Option<String>),
) -> Option<CauseLine> {
    let f = cause.main_function()?;
    let unit = model::Unit::parse(&cause.unit);
    let (method_href, source_href) = links(f.frame);
    let rest = format!(
        "{} of its own {}, {} of the difference{}.",
        signed_value(f.delta, &unit),
        cause.metric,
        percent(f.share),
        if f.modified {
            format!("; modified in {after} ●")
        } else {
            format!("; not modified in {after} (as far as the sources tell)")
        }
    );
    Some(CauseLine {
        name: f.name.clone(),
        file: f.file.clone(),
        method_href,
        source_href,
        rest: format!(": {rest}"),
    })
}

fn signed_value(v: f64, unit: &model::Unit) -> String {
    let sign = if v < 0.0 { "−" } else { "+" };
    format!("{sign}{}", super::format::with_unit(v.abs(), unit))
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// The functions by their own change, largest share first, each linked
/// to its code as `code` finds it.
fn function_rows(
    cause: &RootCause,
    code: &dyn Fn(FrameId) -> (String, Option<String>),
) -> Vec<FunctionRow> {
    let unit = model::Unit::parse(&cause.unit);
    let value = |s: Option<analysis::stats::Summary>| {
        s.map(|s| super::format::with_unit(s.mean, &unit))
            .unwrap_or_default()
    };
    cause
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| FunctionRow {
            name: f.name.clone(),
            file: f.file.clone().unwrap_or_default(),
            href: code(f.frame).0,
            home: code(f.frame).1,
            before: value(f.before),
            after: value(f.after),
            delta: signed_value(f.delta, &unit),
            share: percent(f.share),
            test: f.p_value.map(p_value).unwrap_or_default(),
            significant: f.significant,
            modified: f.modified,
            cause: cause.cause == Some(i),
        })
        .collect()
}

fn headline(c: &Change, (before, after): (&str, &str), unit: &str) -> String {
    match c.relative {
        Some(r) => match factor_words(r, unit) {
            Some(factor) => format!("Mean {before} → {after} ({}, {factor}).", signed_percent(r)),
            None => format!("Mean {before} → {after} ({}).", signed_percent(r)),
        },
        None => format!("Mean {before} → {after}."),
    }
}

/// The outermost flagged frame: the method the benchmark tests, with
/// its file's name when the method has none of its own (`(anonymous)`
/// is every script's top level).
fn tested_method(cause: &RootCause) -> Option<String> {
    let n = cause
        .nodes
        .iter()
        .find(|n| n.parent == Some(0) && n.flagged)?;
    Some(match (&n.file, n.name.starts_with('(')) {
        (Some(file), true) => {
            let file = file.trim_start_matches("file://");
            format!("{} in {}", n.name, file.rsplit('/').next().unwrap_or(file))
        }
        _ => n.name.clone(),
    })
}

/// The compared nodes in call-tree order, indented by depth.
fn tree_rows(
    cause: &RootCause,
    unit: &str,
    home: &dyn Fn(FrameId) -> Option<String>,
) -> Vec<TreeRow> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); cause.nodes.len()];
    for (i, n) in cause.nodes.iter().enumerate() {
        if let Some(p) = n.parent {
            children[p].push(i);
        }
    }
    let mut rows = Vec::new();
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, depth)) = stack.pop() {
        if i >= cause.nodes.len() {
            break;
        }
        let n = &cause.nodes[i];
        let value = |s: Option<analysis::stats::Summary>| {
            s.map(|s| format_value(s.mean, unit)).unwrap_or_default()
        };
        let mut notes = Vec::new();
        if n.candidate {
            notes.push("candidate root cause".to_string());
        }
        if n.shape_changed {
            notes.push("its callees changed".into());
        }
        if n.modified {
            notes.push("modified in this version".into());
        }
        if n.callees_left > 0 {
            notes.push(format!("{} smaller callees not compared", n.callees_left));
        }
        rows.push(TreeRow {
            indent: depth * 18,
            name: n.name.clone(),
            home: n.frame.and_then(home),
            mark: if n.flagged { "✘" } else { "✓" },
            class: format!(
                "{}{}{}",
                if n.flagged {
                    "pa-flagged"
                } else {
                    "pa-unflagged"
                },
                if n.candidate { " pa-candidate" } else { "" },
                if n.modified { " pa-modified" } else { "" }
            ),
            before: value(n.before),
            after: value(n.after),
            change: match (n.relative, n.p_value) {
                (Some(r), Some(p)) => format!("{} ({})", signed_percent(r), p_value(p)),
                _ => String::new(),
            },
            note: notes.join("; "),
            modified: n.modified,
        });
        for &child in children[i].iter().rev() {
            stack.push((child, depth + 1));
        }
    }
    rows
}

fn format_value(v: f64, unit: &str) -> String {
    super::format::with_unit(v, &model::Unit::parse(unit))
}

fn links(
    history: &History,
    c: &Change,
    cause: Option<&RootCause>,
    root: &str,
    flame_diffs: &std::collections::BTreeSet<String>,
    source_diff_versions: &[bool],
) -> Vec<(String, String)> {
    let (before, after) = (&history.versions[c.before], &history.versions[c.after]);
    let mut out = vec![(
        format!("{} over all versions", c.benchmark),
        format!("{root}{}", paths::benchmark_page(&c.benchmark)),
    )];
    let profiled = cause.map_or(c.benchmark.as_str(), |x| x.benchmark.as_str());
    if let Some(path) = flame_diffs.iter().find(|p| {
        p.starts_with(&paths::flame_diff_prefix(
            profiled,
            &before.name,
            &after.name,
        ))
    }) {
        out.push((
            format!("flame-graph diff {} → {}", before.label, after.label),
            format!("{root}{path}"),
        ));
    }
    if source_diff_versions.get(c.after).copied().unwrap_or(false) {
        out.push((
            format!("source diff of {}", after.label),
            format!("{root}{}", paths::source_diff_page(&after.name)),
        ));
    }
    out.push((
        "evolution matrices".into(),
        format!("{root}index.html#matrices"),
    ));
    out
}

/// A page per change found (regression or improvement), with its root
/// cause.
pub struct RegressionPages;

impl PageKind for RegressionPages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "regression.html",
            include_str!("../templates/regression.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "regression pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let report = &site.analysis.regressions;
        let flame_diffs: std::collections::BTreeSet<String> =
            site.flame_diffs.iter().map(|p| p.path.clone()).collect();
        let flame_diffs = std::sync::Arc::new(flame_diffs);
        let source_diffs = std::sync::Arc::new(site.analysis.source_diffs());
        (0..report.changes.len())
            .map(|i| {
                let (flame_diffs, source_diffs) = (flame_diffs.clone(), source_diffs.clone());
                Job::file(move || {
                    render(
                        site.history,
                        (report, &site.analysis.frames),
                        i,
                        (site.renderer, &site.links),
                        &flame_diffs,
                        &source_diffs,
                        site,
                    )
                })
            })
            .collect()
    }
}
