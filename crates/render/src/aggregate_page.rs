//! The aggregate page of a benchmark's version (EasyView VI-A-b): its
//! repetitions merged by path into one flame graph whose widths are the
//! mean, with sum, min, max and mean per frame, a small histogram of the
//! frame's value in each repetition, and a tree table with the same
//! figures.

use serde::Serialize;

use super::flame_svg::{colour_index, frame_label, Decor, Words};
use super::flame_view::{self, GraphSpec, GraphView};
use super::format::{grouped, percent, with_unit};
use super::profile_page::Plan;
use super::source_page::{CodeLinks, SourceLinks};
use super::tree_table::{self, Column, TableView};
use super::{paths, reuse, Common, Renderer};
use crate::Link;
use analysis::aggregate::{self, Aggregate};
use config::Config;
use model::error::BuildError;
use model::{CallTree, FrameTable, History, Unit};

use crate::pages::{Job, PageKind, Site};
use rayon::prelude::*;

/// One aggregate page: the profiles of `benchmark` in `version` that have
/// `metric`.
#[derive(Debug, Clone)]
pub struct AggregatePlan {
    /// What is merged, e.g. the benchmark's name or the set's.
    pub title: String,
    /// E.g. "in 3.6"; empty for a configured set.
    pub subtitle: String,
    /// The profiles merged (indices into `History::profiles`).
    pub entries: Vec<usize>,
    /// The version whose sources code links use.
    pub version: usize,
    pub metric: String,
    pub path: String,
}

/// Whether `benchmark` has several profiles with `metric` in `version`
/// (a single profile needs no aggregate page).
pub fn exists(history: &History, benchmark: &str, version: usize, metric: &str) -> bool {
    history
        .profiles
        .iter()
        .filter(|p| p.benchmark == benchmark && p.version == version)
        .filter(|p| p.profile.metrics.iter().any(|m| m.name == metric))
        .nth(1)
        .is_some()
}

/// One page per (benchmark, version, metric name) with several profiles,
/// and one per configured set and metric.
pub fn plan(history: &History, config: &Config) -> Vec<AggregatePlan> {
    let mut out: Vec<AggregatePlan> = Vec::new();
    for entry in &history.profiles {
        for metric in &entry.profile.metrics {
            if !exists(history, &entry.benchmark, entry.version, &metric.name) {
                continue;
            }
            let version = &history.versions[entry.version].name;
            let path = paths::aggregate_page(&entry.benchmark, version, &metric.name);
            if !out.iter().any(|p| p.path == path) {
                let (entries, _, _) =
                    version_trees(history, &entry.benchmark, entry.version, &metric.name);
                out.push(AggregatePlan {
                    title: entry.benchmark.clone(),
                    subtitle: format!("in {}", history.versions[entry.version].label),
                    entries,
                    version: entry.version,
                    metric: metric.name.clone(),
                    path,
                });
            }
        }
    }
    out.extend(configured_sets(history, config));
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Pages for the sets of `[[flame.aggregates]]`: every profile of the
/// named benchmarks (`*` matches any run of characters) in the named
/// versions (all when none are named), per metric they share.
fn configured_sets(history: &History, config: &Config) -> Vec<AggregatePlan> {
    let mut out = Vec::new();
    for set in &config.flame.aggregates {
        let entries: Vec<usize> = (0..history.profiles.len())
            .filter(|&i| {
                let p = &history.profiles[i];
                set.benchmarks.iter().any(|b| glob_match(b, &p.benchmark))
                    && (set.versions.is_empty()
                        || set.versions.contains(&history.versions[p.version].name))
            })
            .collect();
        let Some(&first) = entries.first() else {
            continue;
        };
        for metric in &history.profiles[first].profile.metrics {
            let with_metric: Vec<usize> = entries
                .iter()
                .copied()
                .filter(|&i| {
                    history.profiles[i]
                        .profile
                        .metrics
                        .iter()
                        .any(|m| m.name == metric.name)
                })
                .collect();
            out.push(AggregatePlan {
                title: set.name.clone(),
                subtitle: String::new(),
                version: history.profiles[with_metric[0]].version,
                entries: with_metric,
                metric: metric.name.clone(),
                path: paths::aggregate_set_page(&set.name, &metric.name),
            });
        }
    }
    out
}

/// `pattern` with `*` standing for any run of characters.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// The single-metric trees of a version's repetitions of a benchmark,
/// with their entry indices, in input order.
pub fn version_trees(
    history: &History,
    benchmark: &str,
    version: usize,
    metric: &str,
) -> (Vec<usize>, Vec<CallTree>, Option<Unit>) {
    let mut entries = Vec::new();
    let mut trees = Vec::new();
    let mut unit = None;
    for (i, entry) in history.profiles.iter().enumerate() {
        if entry.benchmark != benchmark || entry.version != version {
            continue;
        }
        if let Some(m) = entry.profile.metrics.iter().position(|m| m.name == metric) {
            unit.get_or_insert_with(|| entry.profile.metrics[m].unit.clone());
            entries.push(i);
            trees.push(entry.profile.tree.project(m));
        }
    }
    (entries, trees, unit)
}

#[derive(Serialize)]
struct AggregateView {
    #[serde(flatten)]
    common: Common,
    title: String,
    subtitle: String,
    metric: String,
    count: usize,
    mean_total: String,
    profiles: Vec<Link>,
    graph: GraphView,
    table: TableView,
}

pub fn render(
    history: &History,
    config: &Config,
    renderer: &Renderer,
    profiles: &Plan,
    links: &SourceLinks,
    page: &AggregatePlan,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let entries = &page.entries;
    let (trees, unit) = entry_trees(history, entries, &page.metric);
    let refs: Vec<&CallTree> = trees.iter().collect();
    let agg = aggregate::aggregate(&refs);
    let labels = profile_labels(history, profiles, page);
    let code = CodeLinks {
        links,
        version: page.version,
        root: paths::root_of(&page.path),
    };
    let spec = GraphSpec {
        tree: &agg.tree,
        metric: agg.mean_metric(),
        inclusive: None,
        frames: &history.frames,
        unit: &unit,
        title: format!("Flame graph of the mean over {} profiles", agg.count),
        note: Some("Each frame's width is its mean inclusive value over the profiles; hover for sum, min, max and a histogram of its value in each profile.".to_string()),
        label: format!("{} {}: mean {} over {} profiles", page.title, page.subtitle, page.metric, agg.count),
        id: "pa-flame-0".to_string(),
        svg_path: page.path.replace(".html", ".svg"),
        words: Words::TotalSelf,
        percent_of: None,
        code: Some(&code),
    };
    let graph = flame_view::layout(&spec, flame_view::budget(&config.flame));
    let mean_total = graph.total;
    let mut decor = Vec::with_capacity(graph.rects.len());
    let mut values = Vec::with_capacity(graph.rects.len());
    for rect in &graph.rects {
        let name = frame_label(&history.frames, rect);
        let per_profile = rect.node.map(|n| agg.values(n));
        decor.push(Decor {
            class: match (rect.node, rect.frame) {
                (None, _) => "m".to_string(),
                (_, None) => "r".to_string(),
                _ => format!("c{}", colour_index(&name)),
            },
            prefix: String::new(),
            numbers: numbers(
                per_profile.as_deref(),
                rect.total,
                mean_total,
                &labels,
                &unit,
            ),
        });
        values.push(per_profile);
    }
    let mut extra = flame_view::Extra::new();
    extra.insert(
        "agg",
        serde_json::json!({ "labels": labels, "values": values }),
    );
    let (view, svg) = flame_view::render(&spec, &graph, Some(&decor), extra, renderer);
    let common = Common::new(renderer, history, &page.path);
    let table = table(&agg, &history.frames, &unit, &labels, &code);
    let profile_links = entries
        .iter()
        .zip(&labels)
        .filter_map(|(&e, label)| {
            let m = history.profiles[e]
                .profile
                .metrics
                .iter()
                .position(|m| m.name == page.metric)?;
            Some(Link {
                label: label.clone(),
                href: format!("{}{}", common.root, profiles.by_entry[e].get(m)?),
                current: false,
            })
        })
        .collect();
    let html = renderer.render(
        "aggregate.html",
        &AggregateView {
            title: page.title.clone(),
            subtitle: page.subtitle.clone(),
            metric: page.metric.clone(),
            count: agg.count,
            mean_total: with_unit(mean_total, &unit),
            profiles: profile_links,
            graph: view,
            table,
            common,
        },
    )?;
    let mut files = vec![(page.path.clone(), html.into_bytes())];
    files.extend(svg);
    Ok(files)
}

/// The page-reuse key of an aggregate page: its plan, the merged profiles'
/// contents, labels and pages, and the version's sources.
pub fn key(
    history: &History,
    profiles: &Plan,
    page: &AggregatePlan,
    inputs: &reuse::Inputs,
) -> u128 {
    let mut d = reuse::Digest::new("aggregate page");
    d.u128(inputs.salt)
        .u128(inputs.sources[page.version])
        .str(&page.path)
        .str(&page.title)
        .str(&page.subtitle)
        .str(&page.metric);
    for &e in &page.entries {
        d.u128(inputs.profiles[e]).debug(&profiles.by_entry[e]);
    }
    d.debug(&profile_labels(history, profiles, page));
    d.finish()
}

/// The single-metric trees of `entries` and the metric's unit.
fn entry_trees(history: &History, entries: &[usize], metric: &str) -> (Vec<CallTree>, Unit) {
    let mut unit = None;
    let trees = entries
        .iter()
        .filter_map(|&e| {
            let p = &history.profiles[e].profile;
            let m = p.metrics.iter().position(|x| x.name == metric)?;
            unit.get_or_insert_with(|| p.metrics[m].unit.clone());
            Some(p.tree.project(m))
        })
        .collect();
    (trees, unit.unwrap_or(Unit::Count))
}

/// How each merged profile is named: its repetition within one version,
/// else benchmark, version and repetition.
fn profile_labels(history: &History, profiles: &Plan, page: &AggregatePlan) -> Vec<String> {
    let one_version = page
        .entries
        .iter()
        .all(|&e| history.profiles[e].version == page.version);
    let one_benchmark = page
        .entries
        .iter()
        .all(|&e| history.profiles[e].benchmark == history.profiles[page.entries[0]].benchmark);
    page.entries
        .iter()
        .map(|&e| {
            let p = &history.profiles[e];
            let rep = &profiles.rep_names[e];
            match (one_benchmark, one_version) {
                (true, true) => rep.clone(),
                (true, false) => format!("{} {rep}", history.versions[p.version].label),
                _ => format!(
                    "{} {} {rep}",
                    p.benchmark, history.versions[p.version].label
                ),
            }
        })
        .collect()
}

/// Tooltip numbers of one frame.
fn numbers(
    values: Option<&[f64]>,
    mean: f64,
    total: f64,
    labels: &[String],
    unit: &Unit,
) -> String {
    let Some(values) = values else {
        return format!("mean: {} ({})", with_unit(mean, unit), percent(mean, total));
    };
    let s = aggregate::stats(values);
    let each: Vec<String> = labels
        .iter()
        .zip(values)
        .map(|(l, v)| format!("{l} {}", grouped(*v)))
        .collect();
    format!(
        "mean: {} ({})\nmin: {}  max: {}  sum: {}\neach: {}",
        with_unit(s.mean, unit),
        percent(s.mean, total),
        with_unit(s.min, unit),
        with_unit(s.max, unit),
        with_unit(s.sum, unit),
        each.join(", ")
    )
}

fn table(
    agg: &Aggregate,
    frames: &FrameTable,
    unit: &Unit,
    labels: &[String],
    code: &CodeLinks,
) -> TableView {
    let stats = agg.all_stats();
    let mean_total = stats.first().map_or(0.0, |s| s.mean);
    let column = |heading: &str, pick: fn(&aggregate::Stats) -> f64, share: bool| Column {
        heading: heading.to_string(),
        values: stats.iter().map(pick).collect::<Vec<f64>>().into(),
        unit,
        percent_of: share.then_some(mean_total),
    };
    let columns = [
        column("mean", |s| s.mean, true),
        column("min", |s| s.min, false),
        column("max", |s| s.max, false),
        column("sum", |s| s.sum, false),
    ];
    let mut view = tree_table::build(
        "Tree table of the merged profiles".to_string(),
        &agg.tree,
        frames,
        (agg.mean_metric(), None),
        &columns,
        0,
        Some(code),
    );
    // One histogram per row: the node's value in each profile.
    for row in &mut view.rows {
        if let Some(n) = row.node {
            row.extra_html = Some(tree_table::histogram_svg(&agg.values(n), labels));
        }
    }
    view.columns.push("each profile".to_string());
    view
}

/// The pages of a version's repetitions merged, and the configured
/// aggregates across benchmarks.
pub struct AggregatePages;

impl PageKind for AggregatePages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "aggregate.html",
            include_str!("../templates/aggregate.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "aggregate pages"
    }

    fn jobs<'a>(&self, site: &'a Site<'a>) -> Vec<Job<'a>> {
        site.aggregates
            .par_iter()
            .map(|page| {
                let key = site
                    .inputs
                    .as_ref()
                    .map(|i| key(site.history, &site.profiles, page, i));
                Job::keyed(key, move || {
                    render(
                        site.history,
                        site.config,
                        site.renderer,
                        &site.profiles,
                        &site.links,
                        page,
                    )
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_runs_of_characters() {
        assert!(glob_match("convert-*", "convert-basic"));
        assert!(glob_match("*-basic", "convert-basic"));
        assert!(glob_match("c*v*t-b*c", "convert-basic"));
        assert!(glob_match("convert-basic", "convert-basic"));
        assert!(!glob_match("convert-basic", "convert-basics"));
        assert!(!glob_match("*-extensions", "convert-basic"));
        assert!(!glob_match("ab*ba", "aba"));
    }
}
