//! The aggregate page of a benchmark's version (EasyView VI-A-b): its
//! repetitions merged by path into one flame graph whose widths are the
//! mean, with sum, min, max and mean per frame, a small histogram of the
//! frame's value in each repetition, and a tree table with the same
//! figures.
//!
//! It also shows each repetition's own views when the repetitions have no
//! pages of their own (see `profile_page::shown_in_aggregates`): every
//! metric and shape of each, as its page would store them but extending
//! this page's tables and derived from this page's stored tree of it, with
//! its facts, links and heaviest functions; the script shows them when
//! the fragment names one (`#rep=r2&shape=bottom-up`).

use std::collections::HashMap;

use serde::Serialize;

use super::code_links::{CodeLinks, MethodHomes};
use super::flame_plan::{self, AggregatePlan, PagePlan, Plan, SiteFiles};
use super::flame_svg::{self, colour_index, frame_label, Decor, Words};
use super::flame_view::{self, Derive, GraphSpec, GraphView};
use super::format::{grouped, percent, with_unit};
use super::profile_views::{self, RepetitionView};
use super::shape_source::{self, PageTrees, SourceBuilder};
use super::tree_table::{self, Column, RowBudget, TableView};
use super::views::{self, ScriptView, TableDerive, Views};
use super::{paths, reuse, Common};
use crate::Link;
use analysis::aggregate::{self, Aggregate};
use model::error::BuildError;
use model::{CallTree, FrameTable, History, Metric, Profile, ProfileEntry, Unit};

use crate::page_kind::{Job, PageKind, SitePlan};
use rayon::prelude::*;

/// What differs between the metrics of an aggregate page.
#[derive(Serialize)]
struct MetricPart {
    name: String,
    count: usize,
    mean_total: String,
    profiles: Vec<Link>,
}

#[derive(Serialize)]
struct AggregateView {
    #[serde(flatten)]
    common: Common,
    title: String,
    /// Breadcrumb of the title: the benchmark's row on the index, or the
    /// index's list of configured sets.
    title_href: String,
    /// The default view's heading, e.g. "in 3.6, 3 profiles merged".
    heading: String,
    /// The default view's metric.
    metric: String,
    count: usize,
    parts: Vec<MetricPart>,
    metrics: Vec<Link>,
    graph: GraphView,
    table: TableView,
    views_json: String,
    /// The repetitions whose views the page shows (see
    /// `profile_page::shown_in_aggregates`).
    reps: Vec<RepetitionView>,
    shapes: Vec<Link>,
    /// The version's crumb (a version's page, not a configured set's).
    version: Option<Link>,
    /// The mean profile's views, version and differential links, and
    /// heaviest functions (see [`profile_views::MeanView`]).
    mean_views_json: String,
    navs: String,
    heaviest: String,
}

/// The repetitions of the version that `page` shows, in history order.
fn repetitions<'a>(cx: &'a flame_plan::Context, page: &AggregatePlan) -> Vec<&'a PagePlan> {
    cx.plan
        .pages
        .iter()
        .filter(|p| p.shown_in.as_deref() == Some(page.path.as_str()))
        .collect()
}

/// Each repetition's views, facts and standalone SVG files; their views
/// extend the page's tables and use its stored trees (`Stored`) when it
/// stores them.
fn repetition_views(
    cx: &flame_plan::Context,
    reps: &[&PagePlan],
    stored: &Stored,
) -> Result<Vec<RepetitionView>, BuildError> {
    reps.par_iter()
        .map(|rep| {
            let own = stored.tree_of.get(&rep.entry).map(|&k| (&stored.tables, k));
            profile_views::repetition_view(cx, rep, own)
        })
        .collect()
}

/// Every repetition's views after the first stored as their differences
/// from the first's, with its name read as theirs (see
/// [`super::json_delta`]): they share their shape and words, and differ
/// in numbers, labels and heaviest functions.
fn store_as_differences(reps: &mut [RepetitionView]) -> Result<(), BuildError> {
    let Some((first, rest)) = reps.split_first_mut() else {
        return Ok(());
    };
    let parse = |json: &str| {
        serde_json::from_str::<serde_json::Value>(json)
            .map_err(|e| BuildError::Internal(format!("a repetition's views: {e}")))
    };
    let base = parse(&first.views_json)?;
    for rep in rest {
        let rename = (first.name.as_str(), rep.name.as_str());
        let delta = super::json_delta::delta(&base, &parse(&rep.views_json)?, rename);
        rep.views_json = super::json_for_script(&delta);
        rep.like = Some(first.name.clone());
    }
    Ok(())
}

/// What a page stores for its script: the tables of names and locations,
/// and which of its stored trees is each profile's.
struct Stored {
    tables: flame_view::Tables,
    tree_of: HashMap<usize, usize>,
}

/// The page's merged views are top-down; its other shapes, its heaviest
/// functions and its links to other versions are those of the mean
/// profile (the profiles' mean per metric), laid out as a repetition's.
pub fn render(
    cx: &flame_plan::Context,
    page: &AggregatePlan,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let shown = repetitions(cx, page);
    let (view, mut files, stored, mean) = merged_page(cx, page)?;
    let mean_cx = flame_plan::Context {
        mean: Some(&mean),
        ..*cx
    };
    let mean_page = PagePlan {
        entry: mean_cx.mean_entry(),
        path: page.path.clone(),
        shown_in: None,
    };
    let own = stored
        .tree_of
        .get(&mean_page.entry)
        .map(|&k| (&stored.tables, k));
    let mut mean_view = profile_views::mean_view(&mean_cx, &mean_page, own)?;
    files.append(&mut mean_view.files);
    let mut reps = repetition_views(cx, &shown, &stored)?;
    for rep in &mut reps {
        files.append(&mut rep.files);
    }
    store_as_differences(&mut reps)?;
    let html = cx.renderer.render(
        "aggregate.html",
        &AggregateView {
            shapes: views::shape_links(),
            reps,
            mean_views_json: mean_view.views_json,
            navs: mean_view.navs,
            heaviest: mean_view.heaviest,
            ..view
        },
    )?;
    files.insert(0, (page.path.clone(), html.into_bytes()));
    Ok(files)
}

/// The merged views of the page, their standalone SVG files, what the
/// page stores, and the mean profile. The page's trees carry every
/// shape's frames (for the mean's and the repetitions' views).
fn merged_page(
    cx: &flame_plan::Context,
    page: &AggregatePlan,
) -> Result<(AggregateView, SiteFiles, Stored, ProfileEntry), BuildError> {
    let (history, config, renderer, profiles, frames, links) = (
        cx.history,
        cx.config,
        cx.renderer,
        cx.plan,
        cx.frames,
        cx.links,
    );
    let common = Common::new(renderer, history, &page.path);
    let code = CodeLinks {
        links,
        version: page.version,
        root: paths::root_of(&page.path),
        origin: None,
        method: page
            .metrics
            .iter()
            .find_map(|(_, entries)| entries.first())
            .map(|&e| MethodHomes {
                homes: cx.homes,
                benchmark: &history.profiles[e].benchmark,
                version: &history.versions[page.version].name,
            }),
    };
    let mut views = Views::new(
        page.metrics.iter().map(|(m, _)| m.as_str()),
        links.editor_template(),
    );
    let (mut files, mut parts, mut shown) = (Vec::new(), Vec::new(), None);
    // Pages of small profiles store them, and the script merges them and
    // derives every graph and table but the HTML one (see `shape_source`).
    let derived = page.metrics.iter().all(|(_, entries)| {
        entries
            .iter()
            .all(|&e| history.profiles[e].profile.tree.len() <= shape_source::MAX_NODES)
    });
    let ship_both = cx.renderer.ship_derived();
    let budget = flame_view::budget(&config.flame);
    // The mean's and the repetitions' views derive every shape from the
    // page's trees.
    let mut source = SourceBuilder::new(frames);
    let mut tree_of: HashMap<usize, usize> = HashMap::new();
    let (mut merged_trees, mut means) = (Vec::new(), Vec::new());
    for (m, (metric, entries)) in page.metrics.iter().enumerate() {
        let merged = Merged {
            page,
            metric,
            entries,
        };
        let (trees, unit) = entry_trees(history, entries, metric);
        let refs: Vec<&CallTree> = trees.iter().collect();
        let agg = aggregate::aggregate(&refs);
        means.push((agg.tree.project(agg.mean_metric()), unit.clone()));
        let labels = profile_labels(history, profiles, page, entries);
        let spec = graph_spec(history, &merged, &agg, &unit, &code);
        let graph = flame_view::layout(&spec, flame_view::budget(&config.flame));
        // Decorations are drawn in the SVG: inline for the first metric,
        // and as a file of every metric with `--svg-files`.
        let svg_files = renderer.svg_files();
        let decor = (m == 0 || svg_files)
            .then(|| decorate(history, &agg, &graph, (&labels, &unit), svg_files));
        let script_derives = derived && !ship_both;
        let extra = profile_values(&agg, &graph, &labels, script_derives);
        let (mut script, svg) = flame_view::script_graph(
            &spec,
            &graph,
            (decor.as_deref(), extra),
            &mut views.tables,
            renderer,
        );
        if derived {
            merged_trees.push(source_trees(
                history,
                entries,
                metric,
                &mut source,
                &mut tree_of,
            ));
            let derive = Derive {
                shape: "top-down",
                values: "inclusive",
                max_frames: budget.max_frames,
            };
            script.data.derive_instead(derive, ship_both);
        }
        files.extend(svg);
        let table_view = table(
            &agg,
            &history.frames,
            (&unit, &labels),
            (&code, tree_table::ROWS, !script_derives),
        );
        let heading = heading(page, agg.count);
        let table_index = match m {
            0 if derived => {
                let inline = flame_view::inline_view(&spec, &script, &graph, decor.as_deref());
                let derive = TableDerive {
                    shape: "top-down",
                    metric: 0,
                };
                let html = table(
                    &agg,
                    &history.frames,
                    (&unit, &labels),
                    (&code, tree_table::HTML_ROWS, true),
                );
                let (html, k) = views.derived_default_table((table_view, html), derive, ship_both);
                shown = Some((inline, html, heading.clone()));
                k
            }
            0 => {
                let inline = flame_view::inline_view(&spec, &script, &graph, decor.as_deref());
                shown = Some((inline, table_view, heading.clone()));
                -1
            }
            _ if derived => {
                let derive = TableDerive {
                    shape: "top-down",
                    metric: m,
                };
                views.derived_table(table_view, derive, ship_both)
            }
            _ => views.table(table_view),
        };
        views.push(ScriptView {
            metric: m,
            shape: "top-down",
            title: format!(
                "{} {} · {} profiles merged · {metric} — {}",
                page.title, page.subtitle, agg.count, history.title
            ),
            heading,
            graphs: vec![script],
            table: table_index,
        });
        parts.push(MetricPart {
            name: metric.clone(),
            count: agg.count,
            mean_total: with_unit(graph.total, &unit),
            profiles: profile_links(history, profiles, &merged, &labels, &common.root),
        });
    }
    let mean = mean_entry(history, page, means);
    if derived {
        tree_of.insert(history.profiles.len(), source.add(&mean.profile.tree));
        let link = |f| code.of(&frames.table, f);
        let trees = PageTrees::Aggregate(merged_trees);
        let source = source.finish(budget.min_fraction, trees, &mut views.tables, link);
        views.set_tree(source);
    }
    let (graph, table, heading) =
        shown.ok_or_else(|| BuildError::Internal(format!("no metric in {}", page.path)))?;
    let stored = Stored {
        tables: views.tables.clone(),
        tree_of: match derived {
            true => tree_of,
            false => HashMap::new(),
        },
    };
    let view = AggregateView {
        title: page.title.clone(),
        title_href: match page.subtitle.is_empty() {
            true => format!("{}index.html#aggregates", common.root),
            false => format!(
                "{}index.html#{}",
                common.root,
                paths::benchmark_anchor(&page.title)
            ),
        },
        heading,
        metric: page.metrics[0].0.clone(),
        count: page.metrics[0].1.len(),
        metrics: views::metric_links(page.metrics.iter().map(|(m, _)| m.as_str())),
        parts,
        graph,
        table,
        views_json: views.into_json(),
        version: (!page.subtitle.is_empty()).then(|| Link {
            label: history.versions[page.version].label.clone(),
            href: format!(
                "{}{}",
                common.root,
                paths::version_page(&history.versions[page.version].name)
            ),
            current: false,
        }),
        common,
        reps: Vec::new(),
        shapes: Vec::new(),
        mean_views_json: String::new(),
        navs: String::new(),
        heaviest: String::new(),
    };
    Ok((view, files, stored, mean))
}

/// The page's mean profile: per metric, the mean of the profiles merged
/// for it (`means`: each metric's merged tree of means, and its unit),
/// as one tree with every metric.
fn mean_entry(
    history: &History,
    page: &AggregatePlan,
    means: Vec<(CallTree, Unit)>,
) -> ProfileEntry {
    let first = &history.profiles[page.metrics[0].1[0]];
    let (trees, units): (Vec<CallTree>, Vec<Unit>) = means.into_iter().unzip();
    let count = trees.len();
    let tree = match count {
        1 => trees.into_iter().next().unwrap_or_else(|| CallTree::new(1)),
        _ => {
            let refs: Vec<&CallTree> = trees.iter().collect();
            let placement: Vec<(usize, usize, f64)> = (0..count).map(|m| (m, m, 1.0)).collect();
            analysis::shapes::merge(&refs, &[]).remetric(count, &placement)
        }
    };
    let metrics = page
        .metrics
        .iter()
        .zip(units)
        .map(|((name, _), unit)| Metric::new(name.clone(), unit))
        .collect();
    let mut profile = Profile::new(metrics);
    profile.tree = tree;
    ProfileEntry {
        version: page.version,
        benchmark: match page.subtitle.is_empty() {
            true => page.title.clone(),
            false => first.benchmark.clone(),
        },
        repetition: 0,
        source: format!("{} profiles merged", page.metrics[0].1.len()),
        format: first.format,
        profile,
    }
}

/// One metric of an aggregate page.
struct Merged<'a> {
    page: &'a AggregatePlan,
    metric: &'a str,
    entries: &'a [usize],
}

/// "in 3.6, 3 profiles merged".
fn heading(page: &AggregatePlan, count: usize) -> String {
    match page.subtitle.is_empty() {
        true => format!("{count} profiles merged"),
        false => format!("{}, {count} profiles merged", page.subtitle),
    }
}

fn graph_spec<'a>(
    history: &'a History,
    merged: &Merged,
    agg: &'a Aggregate,
    unit: &'a Unit,
    code: &'a CodeLinks,
) -> GraphSpec<'a> {
    let page = merged.page;
    GraphSpec {
        tree: &agg.tree,
        metric: agg.mean_metric(),
        inclusive: None,
        frames: &history.frames,
        unit,
        title: format!("Flame graph of the mean over {} profiles", agg.count),
        note: Some("Each frame's width is its mean inclusive value over the profiles; hover for sum, min, max and a histogram of its value in each profile.".to_string()),
        label: format!(
            "{} {}: mean {} over {} profiles",
            page.title, page.subtitle, merged.metric, agg.count
        ),
        id: "pa-flame-0".to_string(),
        svg_path: format!(
            "{}.{}.svg",
            page.path.trim_end_matches(".html"),
            paths::slug(merged.metric)
        ),
        words: Words::TotalSelf,
        percent_of: None,
        code: Some(code),
    }
}

/// Per rectangle, its colour and tooltip numbers in the SVG. Without
/// `every_line` (no standalone file is written), only what a page's
/// inline graph shows: the first line, for the frames it titles.
fn decorate(
    history: &History,
    agg: &Aggregate,
    graph: &analysis::flame::FlameGraph,
    (labels, unit): (&[String], &Unit),
    every_line: bool,
) -> Vec<Decor> {
    let decor_of = |rect: &analysis::flame::FlameRect| {
        let name = frame_label(&history.frames, rect);
        let class = match (rect.node, rect.frame) {
            (None, _) => "m".to_string(),
            (_, None) => "r".to_string(),
            _ => format!("c{}", colour_index(&name)),
        };
        let per_profile = || rect.node.map(|n| agg.values(n));
        let numbers = match (every_line, flame_svg::titled_in_page(rect)) {
            (true, _) => numbers(
                per_profile().as_deref(),
                rect.total,
                graph.total,
                labels,
                unit,
            ),
            (false, true) => {
                let mean = per_profile().map_or(rect.total, |v| aggregate::stats(&v).mean);
                mean_line(mean, graph.total, unit)
            }
            (false, false) => String::new(),
        };
        Decor {
            class,
            prefix: String::new(),
            numbers,
        }
    };
    graph.rects.iter().map(decor_of).collect()
}

/// The page script's data of the merged graph: the profiles' labels and,
/// unless the script derives them, each rectangle's value in each profile.
fn profile_values(
    agg: &Aggregate,
    graph: &analysis::flame::FlameGraph,
    labels: &[String],
    script_derives: bool,
) -> flame_view::Extra {
    let mut extra = flame_view::Extra::new();
    let data = match script_derives {
        true => serde_json::json!({ "labels": labels }),
        false => {
            let values: Vec<Option<Vec<f64>>> = graph
                .rects
                .iter()
                .map(|rect| rect.node.map(|n| agg.values(n)))
                .collect();
            serde_json::json!({ "labels": labels, "values": values })
        }
    };
    extra.insert("agg", data);
    extra
}

/// Links to the views of the metric of the profiles merged.
fn profile_links(
    history: &History,
    profiles: &Plan,
    merged: &Merged,
    labels: &[String],
    root: &str,
) -> Vec<Link> {
    merged
        .entries
        .iter()
        .zip(labels)
        .filter_map(|(&e, label)| {
            let m = history.profiles[e]
                .profile
                .metrics
                .iter()
                .position(|m| m.name == merged.metric)?;
            Some(Link {
                label: label.clone(),
                href: format!("{root}{}", profiles.by_entry[e].get(m)?),
                current: false,
            })
        })
        .collect()
}

/// The page-reuse key of an aggregate page: its plan, the merged profiles'
/// contents, labels and pages, and the version's sources.
pub fn key(
    history: &History,
    profiles: &Plan,
    page: &AggregatePlan,
    inputs: &reuse::Inputs,
) -> u128 {
    let mut d = reuse::KeyHasher::new("aggregate page");
    d.u128(inputs.salt)
        .u128(inputs.sources[page.version])
        .str(&page.path)
        .str(&page.title)
        .str(&page.subtitle);
    for (metric, entries) in &page.metrics {
        d.str(metric);
        for &e in entries {
            d.u128(inputs.profiles[e]).debug(&profiles.by_entry[e]);
        }
        d.debug(&profile_labels(history, profiles, page, entries));
    }
    d.finish()
}

/// The single-metric trees of `entries` and the metric's unit.
/// The profiles [`entry_trees`] merges, as `[tree, metric]` pairs of the
/// page's stored trees (each profile's whole tree stored once).
fn source_trees(
    history: &History,
    entries: &[usize],
    metric: &str,
    source: &mut SourceBuilder,
    tree_of: &mut HashMap<usize, usize>,
) -> Vec<(usize, usize)> {
    entries
        .iter()
        .filter_map(|&e| {
            let p = &history.profiles[e].profile;
            let m = p.metrics.iter().position(|x| x.name == metric)?;
            let tree = *tree_of.entry(e).or_insert_with(|| source.add(&p.tree));
            Some((tree, m))
        })
        .collect()
}

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
fn profile_labels(
    history: &History,
    profiles: &Plan,
    page: &AggregatePlan,
    entries: &[usize],
) -> Vec<String> {
    let one_version = entries
        .iter()
        .all(|&e| history.profiles[e].version == page.version);
    let one_benchmark = entries
        .iter()
        .all(|&e| history.profiles[e].benchmark == history.profiles[entries[0]].benchmark);
    entries
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
        return mean_line(mean, total, unit);
    };
    let s = aggregate::stats(values);
    let each: Vec<String> = labels
        .iter()
        .zip(values)
        .map(|(l, v)| format!("{l} {}", grouped(*v)))
        .collect();
    format!(
        "{}\nmin: {}  max: {}  sum: {}\neach: {}",
        mean_line(s.mean, total, unit),
        with_unit(s.min, unit),
        with_unit(s.max, unit),
        with_unit(s.sum, unit),
        each.join(", ")
    )
}

/// The first line of a frame's tooltip numbers: its mean and share.
fn mean_line(mean: f64, total: f64, unit: &Unit) -> String {
    format!("mean: {} ({})", with_unit(mean, unit), percent(mean, total))
}

fn table(
    agg: &Aggregate,
    frames: &FrameTable,
    (unit, labels): (&Unit, &[String]),
    (code, rows, with_rows): (&CodeLinks, RowBudget, bool),
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
    // A table the script writes from the page's trees stores no rows.
    let mut view = tree_table::build(
        "Tree table of the merged profiles".to_string(),
        &agg.tree,
        frames,
        (agg.mean_metric(), None),
        &columns,
        0,
        (Some(code), rows, with_rows, None),
    );
    // One histogram per row: the node's value in each profile.
    for row in &mut view.rows {
        if let Some(n) = row.node {
            let values = agg.values(n);
            row.histogram_text = Some(tree_table::histogram_text(&values));
            row.histogram = Some(values);
        }
    }
    view.columns.push("each profile".to_string());
    view.histogram_labels = labels.to_vec();
    view
}

/// The pages of a version's repetitions merged, and the configured
/// aggregates across benchmarks.
pub struct AggregatePages;

impl PageKind for AggregatePages {
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("shapes.js", include_str!("../templates/assets/shapes.js")),
            ("flame.js", include_str!("../templates/assets/flame.js")),
        ]
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "aggregate.html",
            include_str!("../templates/aggregate.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "aggregate pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        site.aggregates
            .par_iter()
            .map(|page| {
                let key = site.inputs.as_ref().map(|i| {
                    let cx = profile_views::context(site);
                    let reps = repetitions(&cx, page);
                    let mut d = reuse::KeyHasher::new("aggregate page with repetitions");
                    d.u128(key(site.history, &site.profiles, page, i))
                        .u128(profile_views::group_key(&cx, &reps, i));
                    // The mean's links: the versions around this one (as
                    // a profile of it links them: adding a version changes
                    // the pages of the last few only), and the
                    // differential pages of this one.
                    if let Some(&e) = page.metrics.first().and_then(|(_, e)| e.first()) {
                        let bench = &site.history.profiles[e].benchmark;
                        let first = PagePlan {
                            entry: e,
                            path: page.path.clone(),
                            shown_in: None,
                        };
                        d.debug(&crate::profile_links::version_links(&cx, &first, ""))
                            .debug(&site.diff_links.get(&(bench.clone(), page.version)));
                        // The method sections the merged profiles' frames
                        // link to.
                        let trees = page
                            .metrics
                            .iter()
                            .flat_map(|(_, entries)| entries)
                            .map(|&e| &site.history.profiles[e].profile.tree);
                        d.u128(site.homes.links_digest(bench, trees));
                    }
                    d.finish()
                });
                Job::keyed(key, move || render(&profile_views::context(site), page))
            })
            .collect()
    }
}
