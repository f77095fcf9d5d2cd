//! The views of one profile, shared by the pages that show them (its own
//! profile page, or its version's aggregate page as one repetition):
//! every metric and shape laid out as flame graphs, tree tables and the
//! heaviest functions, the navigation and facts above them, and the
//! page-reuse key of a profile's pages. Page kinds call it; it calls no
//! page kind.

use std::sync::{Arc, OnceLock};

use serde::Serialize;

use crate::Link;

use super::code_links::{CodeLinks, MethodHomes};
use super::flame_svg::Words;
use super::flame_view::{self, Derive, GraphSpec, GraphView, Tables};
use super::format::{percent, with_unit};
use super::tree_table::{self, TableView};
use super::views::{self, ScriptView, TableDerive, Views};
use super::{paths, profile_links, reuse, shape_source, Common};
use analysis::flame::{self, FlameGraph};
use analysis::shapes::{self, ShapeFrames, Values};
use model::error::BuildError;
use model::{CallTree, NodeId, ProfileEntry, Unit};

use crate::flame_plan::{Context, PagePlan, Shape, SiteFiles};
use crate::page_kind::SitePlan;
use rayon::prelude::*;

mod table;
use table::{table, Merged};

#[derive(Serialize)]
struct TopRow {
    name: String,
    location: String,
    self_value: String,
    self_share: String,
    total_value: String,
    total_share: String,
    /// The self and total values the texts show.
    #[serde(skip)]
    values: (f64, f64),
}

/// The parts of a page that depend on the metric shown: the script shows
/// the current metric's and hides the others.
#[derive(Serialize)]
struct MetricPart {
    name: String,
    total: String,
    aggregate_href: Option<String>,
}

/// Everything a profile page shows besides its graphs, tree tables and
/// heaviest functions: cheap to compute, and (with the profile's content)
/// what [page reuse](super::reuse) keys on.
#[derive(Serialize)]
struct Nav {
    #[serde(flatten)]
    common: Common,
    benchmark: String,
    version: String,
    version_date: Option<String>,
    version_revision: Option<String>,
    repetition: String,
    source: String,
    format: String,
    /// [`model::Profile::notes`] of the input.
    input_notes: Vec<String>,
    /// The metric of the default view.
    metric: String,
    metrics: Vec<Link>,
    shapes: Vec<Link>,
    /// Links to the default view of the other repetitions and versions
    /// (the script points them at the view shown).
    repetitions: Vec<Link>,
    versions: Vec<Link>,
    all_versions_href: String,
    /// Breadcrumbs: the benchmark's row on the index, and the version's
    /// merged page (else the index's versions).
    benchmark_href: String,
    version_href: String,
    parts: Vec<MetricPart>,
    /// Differential pages of the version and its neighbours.
    diffs: Vec<Link>,
    /// The benchmark's compare page, opened on this profile (or the
    /// version's mean) as the newer of the two.
    compare_href: Option<String>,
}

/// The heaviest functions by one metric's self value.
#[derive(Serialize)]
struct Top {
    metric: String,
    rows: Vec<TopRow>,
    /// The metric's unit and the profile's total of it.
    #[serde(skip)]
    unit: Unit,
    #[serde(skip)]
    total: f64,
}

/// The heaviest functions of one metric as a repetition's views store them
/// on its aggregate page, for the script to write (`flame.js`
/// `writeHeaviest`, as `templates/heaviest.html` writes them): rows of
/// name, file, self and total. Names and files the views' tables hold are
/// stored as their index there.
#[derive(Serialize)]
struct ScriptTop<'a> {
    metric: &'a str,
    unit: &'a str,
    of: f64,
    rows: Vec<(Text<'a>, Text<'a>, f64, f64)>,
}

/// A string, or its index in a table of the page's views.
#[derive(Serialize)]
#[serde(untagged)]
enum Text<'a> {
    At(usize),
    Is(&'a str),
}

fn script_tops(tops: &[Top], tables: &Tables) -> serde_json::Value {
    let text = |at: Option<usize>, s| at.map_or(Text::Is(s), Text::At);
    let tops: Vec<ScriptTop> = tops
        .iter()
        .map(|t| ScriptTop {
            metric: &t.metric,
            unit: t.unit.name(),
            of: t.total,
            rows: t
                .rows
                .iter()
                .map(|r| {
                    (
                        text(tables.find_name(&r.name), &r.name),
                        text(tables.find_location(&r.location), &r.location),
                        r.values.0,
                        r.values.1,
                    )
                })
                .collect(),
        })
        .collect();
    serde_json::to_value(tops).unwrap_or_default()
}

#[derive(Serialize)]
pub(crate) struct ProfileView {
    #[serde(flatten)]
    nav: Nav,
    /// The default view's graph, drawn inline.
    graphs: Vec<GraphView>,
    /// The default view's tree table.
    table: TableView,
    tops: Vec<Top>,
    empty: bool,
    /// Every view, for the page script (see the module docs).
    views_json: String,
}

/// The page-reuse key of one profile's page.
pub fn group_key(cx: &Context, pages: &[&PagePlan], inputs: &reuse::Inputs) -> u128 {
    let mut d = reuse::KeyHasher::new("profile pages");
    d.u128(inputs.salt);
    if let Some(first) = pages.first() {
        let entry = &cx.history.profiles[first.entry];
        d.u128(inputs.profiles[first.entry])
            .u128(inputs.sources[entry.version])
            .u128(
                cx.homes
                    .links_digest(&entry.benchmark, [&entry.profile.tree]),
            );
    }
    // A profile's totals (a sum over its nodes) once for its pages.
    let mut totals: Option<(usize, Vec<f64>)> = None;
    for page in pages {
        if totals
            .as_ref()
            .is_none_or(|(entry, _)| *entry != page.entry)
        {
            let profile = &cx.history.profiles[page.entry].profile;
            totals = Some((page.entry, profile.totals()));
        }
        let of_page = totals.as_ref().map_or(&[][..], |(_, t)| t.as_slice());
        d.str(&page.path).json(&nav(cx, page, of_page));
    }
    d.finish()
}

/// The trees of each shape (top-down, bottom-up, flat) of a profile,
/// each carrying every metric, kept while the views laid out from them
/// borrow them; and its exclusive and inclusive flat trees merged, which
/// give the heaviest functions.
#[derive(Default)]
pub(crate) struct ShapeCells<'a> {
    trees: [OnceLock<ShapeTrees<'a>>; 3],
    heaviest: OnceLock<CallTree>,
    /// The profile's total per metric (each a sum over every node, wanted
    /// by every view).
    totals: OnceLock<Vec<f64>>,
}

impl<'a> ShapeCells<'a> {
    fn of(&self, shape: Shape) -> Option<&ShapeTrees<'a>> {
        self.trees[shape_index(shape)].get()
    }

    fn totals(&self, entry: &ProfileEntry) -> &[f64] {
        self.totals.get_or_init(|| entry.profile.totals())
    }
}

/// Computes the profile's trees of each shape into `cells` and lays out
/// its views, each shape's as soon as its trees are ready; the views come
/// in page order (per metric, per shape). The inclusive bottom-up tree
/// takes longest (about as long as the rest together on a large profile):
/// it starts at once on this thread, while the pool computes the other
/// trees and lays out the top-down and flat views.
pub(crate) fn lay_out_shapes<'a>(
    cx: &Context<'a>,
    page: &'a PagePlan,
    cells: &'a ShapeCells<'a>,
    code: &'a CodeLinks<'a>,
) -> Vec<LaidOut<'a>> {
    let entry: &'a ProfileEntry = cx.entry(page.entry);
    let tree = &entry.profile.tree;
    let min_fraction = flame_view::budget(&cx.config.flame).min_fraction;
    // Known before the bottom-up trees are built: then they cannot be cut,
    // and `assemble` finds the views derivable.
    let script_derives =
        !cx.renderer.ship_derived() && shape_source::derivable_from_the_start(tree);
    // (The mean profile of an aggregate page, one past the history's
    // entries, has none held.)
    let held = cx.inclusive.take(page.entry);
    let (held_inclusive, held_sizes) = match held {
        Some(h) => (Some(h.inclusive), h.sizes),
        None => (None, None),
    };
    let lay = move |shape: Shape, trees: ShapeTrees<'a>| -> Vec<LaidOut<'a>> {
        let trees: &'a ShapeTrees<'a> = cells.trees[shape_index(shape)].get_or_init(|| trees);
        // The shape's table tree, made by the first metric's table that
        // wants it and freed once the shape is laid out; and the subtree
        // sizes of the profile's tree, for its graphs and table.
        let merged = OnceLock::new();
        let sizes = flame::SubtreeSizes::held(tree, held_sizes.clone());
        (0..entry.profile.metrics.len())
            .into_par_iter()
            .map(|metric| {
                let totals = cells.totals(entry);
                let view = ViewOf {
                    metric,
                    shape,
                    page,
                };
                let shared = (trees, &merged, totals, &sizes);
                lay_out(cx, &view, shared, (code, script_derives))
            })
            .collect()
    };
    let inputs = shapes::ShapeInputs::with_inclusive(tree, cx.frames, held_inclusive);
    let (bottom_up_inclusive, ((top_down, flat), bottom_up_exclusive)) = rayon::join(
        || shapes::bottom_up_from(&inputs, Values::Inclusive, min_fraction),
        || {
            rayon::join(
                || {
                    rayon::join(
                        || lay(Shape::TopDown, ShapeTrees::top_down(entry, &inputs)),
                        || {
                            let (exclusive, inclusive) = rayon::join(
                                || shapes::flat_from(&inputs, Values::Exclusive),
                                || shapes::flat_from(&inputs, Values::Inclusive),
                            );
                            let heaviest = shapes::merge(&[&exclusive, &inclusive], &[]);
                            cells.heaviest.get_or_init(|| heaviest);
                            lay(
                                Shape::Flat,
                                ShapeTrees::derived(entry, exclusive, inclusive, None),
                            )
                        },
                    )
                },
                || shapes::bottom_up_from(&inputs, Values::Exclusive, min_fraction),
            )
        },
    );
    let (e, i) = (bottom_up_exclusive, bottom_up_inclusive);
    let cut_depth = e.cut_depth.or(i.cut_depth);
    let bottom_up = lay(
        Shape::BottomUp,
        ShapeTrees::derived(entry, e.tree, i.tree, cut_depth),
    );
    in_page_order([top_down, bottom_up, flat])
}

/// Views laid out per shape (in [`Shape::ALL`] order, each per metric) in
/// page order: per metric, per shape.
fn in_page_order<T>(by_shape: [Vec<T>; 3]) -> Vec<T> {
    let mut shapes = by_shape.map(|views| views.into_iter());
    let mut out = Vec::new();
    loop {
        let before = out.len();
        out.extend(shapes.iter_mut().filter_map(|views| views.next()));
        if out.len() == before {
            return out;
        }
    }
}

/// The links from a page's frames to their source.
pub(crate) fn code_links<'a>(cx: &Context<'a>, page: &PagePlan) -> CodeLinks<'a> {
    let entry = cx.entry(page.entry);
    CodeLinks {
        links: cx.links,
        version: entry.version,
        root: paths::root_of(&page.path),
        origin: None,
        method: Some(MethodHomes {
            homes: cx.homes,
            benchmark: &entry.benchmark,
            version: &cx.history.versions[entry.version].name,
        }),
    }
}

/// A repetition's views as its version's aggregate page shows them (see
/// `shown_in_aggregates`): what its own page would store for its script,
/// every view derived from its tree, with its heaviest functions; its
/// facts and links as HTML for the page to show with them; and its
/// standalone SVG files (`--svg-files`).
#[derive(Serialize)]
pub struct RepetitionView {
    pub name: String,
    pub views_json: String,
    /// The repetition whose views `views_json` stores its differences
    /// from (see [`super::json_delta`]), if it does.
    pub like: Option<String>,
    /// Facts and links, shown above the graph.
    pub head: String,
    #[serde(skip)]
    pub files: SiteFiles,
}

/// The views of the profile of `page`, for its aggregate page: with
/// `page_tables`, they extend the page's own tables and are derived from
/// its stored tree `k` instead of storing their own.
pub fn repetition_view(
    cx: &Context,
    page: &PagePlan,
    page_tables: Option<(&Tables, usize)>,
) -> Result<RepetitionView, BuildError> {
    let (view, files) = views_on_aggregate(cx, page, page_tables)?;
    Ok(RepetitionView {
        name: cx.rep_name(page.entry).to_string(),
        head: cx.renderer.render("repetition.html", &view)?,
        views_json: view.views_json,
        like: None,
        files,
    })
}

fn views_on_aggregate(
    cx: &Context,
    page: &PagePlan,
    page_tables: Option<(&Tables, usize)>,
) -> Result<(ProfileView, SiteFiles), BuildError> {
    let code = code_links(cx, page);
    let cells = ShapeCells::default();
    let laid_out = lay_out_shapes(cx, page, &cells, &code);
    assemble(cx, page, (&cells, laid_out, &code), page_tables)
}

/// An aggregate page's mean profile ([`Context::mean`]) as the page shows
/// it: its views (every shape and metric) for the script, as a
/// repetition's are stored; and as HTML its links to the benchmark's
/// other versions and differential pages, and its heaviest functions.
pub struct MeanView {
    pub views_json: String,
    pub navs: String,
    pub heaviest: String,
    pub files: SiteFiles,
}

/// The views of the mean profile of `page` (see [`MeanView`]), extending
/// the page's tables and derived from its stored tree `k` as a
/// repetition's are ([`repetition_view`]).
pub fn mean_view(
    cx: &Context,
    page: &PagePlan,
    page_tables: Option<(&Tables, usize)>,
) -> Result<MeanView, BuildError> {
    let (view, files) = views_on_aggregate(cx, page, page_tables)?;
    Ok(MeanView {
        navs: cx.renderer.render("profile_navs.html", &view)?,
        heaviest: cx.renderer.render("heaviest.html", &view)?,
        views_json: view.views_json,
        files,
    })
}

/// The navigation and facts of `page`.
fn nav(cx: &Context, page: &PagePlan, totals: &[f64]) -> Nav {
    let history = cx.history;
    let entry = cx.entry(page.entry);
    let version = &history.versions[entry.version];
    let common = Common::new(cx.renderer, history, &page.path);
    let metrics = &entry.profile.metrics;
    let parts: Vec<MetricPart> = metrics
        .iter()
        .enumerate()
        .map(|(m, metric)| MetricPart {
            name: metric.name.clone(),
            total: with_unit(totals.get(m).copied().unwrap_or(0.0), &metric.unit),
            aggregate_href: super::flame_plan::aggregate_link(
                history,
                &entry.benchmark,
                entry.version,
                &metric.name,
            )
            .map(|link| format!("{}{link}", common.root)),
        })
        .collect();
    Nav {
        benchmark: entry.benchmark.clone(),
        version: version.label.clone(),
        version_date: version.date.clone(),
        version_revision: version.revision.clone(),
        repetition: cx.rep_name(page.entry).to_string(),
        source: entry.source.clone(),
        format: entry.format.to_string(),
        input_notes: entry.profile.notes.clone(),
        metric: metrics.first().map(|m| m.name.clone()).unwrap_or_default(),
        metrics: views::metric_links(metrics.iter().map(|m| m.name.as_str())),
        shapes: views::shape_links(),
        repetitions: profile_links::repetition_links(cx, page),
        versions: profile_links::version_links(cx, page, &common.root),
        all_versions_href: format!(
            "{}index.html#{}",
            common.root,
            paths::benchmark_anchor(&entry.benchmark)
        ),
        benchmark_href: format!(
            "{}index.html#{}",
            common.root,
            paths::benchmark_anchor(&entry.benchmark)
        ),
        version_href: parts
            .iter()
            .find_map(|p| p.aggregate_href.clone())
            .unwrap_or_else(|| format!("{}index.html#versions", common.root)),
        parts,
        diffs: profile_links::diff_links(cx, entry, &common.root),
        compare_href: compare_href(cx, page, &common.root),
        common,
    }
}

/// The link to the benchmark's compare page with `page`'s profile (its
/// repetition, or the version's mean) as the newer one.
fn compare_href(cx: &Context, page: &PagePlan, root: &str) -> Option<String> {
    let history = cx.history;
    let entry = cx.entry(page.entry);
    if !super::flame_plan::comparable(history, &entry.benchmark) {
        return None;
    }
    let version = &history.versions[entry.version].name;
    let mean = cx.rep_name(page.entry) == super::flame_plan::MEAN_NAME;
    let several = history
        .profiles
        .iter()
        .filter(|p| p.benchmark == entry.benchmark && p.version == entry.version)
        .count()
        > 1;
    let key = match mean || !several {
        true => version.clone(),
        false => format!("{version}/r{}", entry.repetition),
    };
    Some(format!(
        "{root}{}",
        paths::compare_view(&entry.benchmark, None, &key)
    ))
}

/// The page of a profile (its views for the script, its default view as
/// HTML, its facts) and its standalone SVG files.
pub(crate) fn assemble(
    cx: &Context,
    page: &PagePlan,
    (cells, laid_out, code): (&ShapeCells, Vec<LaidOut>, &CodeLinks),
    page_tables: Option<(&Tables, usize)>,
) -> Result<(ProfileView, SiteFiles), BuildError> {
    let entry = cx.entry(page.entry);
    let top_down = cells
        .of(Shape::TopDown)
        .ok_or_else(|| BuildError::Internal(format!("no top-down tree for {}", page.path)))?;
    let cut_depth = cells.of(Shape::BottomUp).and_then(|t| t.cut_depth);
    // The views were laid out side by side; their data is added in page
    // order, so the page's name and location tables come out the same
    // every time.
    let metric_names = entry.profile.metrics.iter().map(|m| m.name.as_str());
    let mut views = match page_tables {
        Some((tables, _)) => Views::extending(metric_names, tables.clone()),
        None => Views::new(metric_names, cx.links.editor_template()),
    };
    let tree = &entry.profile.tree;
    let derived = shape_source::derivable(tree, cut_depth);
    let ship_both = cx.renderer.ship_derived();
    let budget = flame_view::budget(&cx.config.flame);
    // Tables with derived-metric or call-count columns are stored: the
    // script does not evaluate formulas.
    let metrics = entry.profile.metrics.len();
    let (mut files, mut inline, mut default_table) = (Vec::new(), Vec::new(), None);
    for view in laid_out {
        let mut graphs = Vec::new();
        let max_frames = (budget.max_frames / view.graphs.len().max(1)).max(1);
        for (k, (spec, graph)) in view.graphs.iter().enumerate() {
            let (mut script, svg) = flame_view::script_graph(
                spec,
                graph,
                (None, Default::default()),
                &mut views.tables,
                cx.renderer,
            );
            // A repetition's views on its aggregate page have no HTML view.
            if Views::is_default(view.metric, view.shape) && page_tables.is_none() {
                inline.push(flame_view::inline_view(spec, &script, graph, None));
            }
            if derived {
                // Top-down's one graph is inclusive; the others' second.
                let values = match view.shape {
                    Shape::TopDown => "inclusive",
                    _ => ["exclusive", "inclusive"][k.min(1)],
                };
                let derive = Derive {
                    shape: view.shape.name(),
                    values,
                    max_frames,
                };
                script.data.derive_instead(derive, ship_both);
            }
            graphs.push(script);
            files.extend(svg);
        }
        let derive = (derived && view.table.columns.len() == 2 * metrics).then(|| TableDerive {
            shape: view.shape.name(),
            metric: view.metric,
        });
        let table = match (Views::is_default(view.metric, view.shape), derive) {
            (true, Some(derive)) => {
                let of = ViewOf {
                    metric: view.metric,
                    shape: view.shape,
                    page,
                };
                let html = table(
                    cx,
                    &of,
                    (top_down, &OnceLock::new(), cells.totals(entry)),
                    (code, tree_table::HTML_ROWS, false),
                    &flame::SubtreeSizes::new(&entry.profile.tree),
                );
                let (html, k) = views.derived_default_table((view.table, html), derive, ship_both);
                default_table = Some(html);
                k
            }
            (true, None) => {
                default_table = Some(view.table);
                -1
            }
            (false, Some(derive)) => views.derived_table(view.table, derive, ship_both),
            (false, None) => views.table(view.table),
        };
        views.push(ScriptView {
            table,
            graphs,
            ..view.script
        });
    }
    if let (true, Some((_, k))) = (derived, page_tables) {
        views.set_page_tree(k);
    } else if derived {
        let link = |f| code.of(&cx.frames.table, f);
        let source = shape_source::build(
            tree,
            cx.frames,
            budget.min_fraction,
            &mut views.tables,
            link,
        );
        views.set_tree(source);
    }
    let totals = cells.totals(entry);
    let tops = tops(cx, entry, (cells.heaviest.get(), totals));
    if page_tables.is_some() {
        // On the aggregate page the script writes them (they are hidden
        // without it, with the repetition's views).
        views.set_heaviest(script_tops(&tops, &views.tables));
    }
    let view = ProfileView {
        nav: nav(cx, page, totals),
        table: default_table
            .ok_or_else(|| BuildError::Internal(format!("no default view in {}", page.path)))?,
        tops,
        empty: totals.first().is_none_or(|t| *t <= 0.0),
        graphs: inline,
        views_json: views.into_json(),
    };
    Ok((view, files))
}

/// A view laid out: its graphs, its tree table, and what the script
/// shows of it besides (title, heading).
pub(crate) struct LaidOut<'a> {
    metric: usize,
    shape: Shape,
    graphs: Vec<(GraphSpec<'a>, FlameGraph)>,
    table: TableView,
    /// The view's title and heading (graphs and table added later).
    script: ScriptView,
}

fn lay_out<'a>(
    cx: &Context<'a>,
    view: &ViewOf,
    (trees, merged, totals, sizes): (
        &'a ShapeTrees,
        &OnceLock<Merged>,
        &[f64],
        &flame::SubtreeSizes,
    ),
    (code, script_derives): (&'a CodeLinks<'a>, bool),
) -> LaidOut<'a> {
    let total = totals[view.metric];
    let history = cx.history;
    let entry = cx.entry(view.page.entry);
    let version = &history.versions[entry.version];
    let rep = cx.rep_name(view.page.entry);
    let metric = &entry.profile.metrics[view.metric];
    let label = format!(
        "{} {} {rep}: {}",
        entry.benchmark, version.label, metric.name
    );
    let specs = graph_specs(cx, view, trees, &label, total, code);
    // The page budget is shared by the view's graphs.
    let mut budget = flame_view::budget(&cx.config.flame);
    budget.max_frames = (budget.max_frames / specs.len().max(1)).max(1);
    // The graphs and the table are independent: a large profile's
    // top-down graph and table are each a walk of its whole tree.
    let (graphs, table) = rayon::join(
        || {
            specs
                .into_par_iter()
                .map(|spec| {
                    let graph = flame_view::layout_sharing(&spec, budget, Some(sizes));
                    (spec, graph)
                })
                .collect()
        },
        || {
            let rows = (code, tree_table::ROWS, script_derives);
            table(cx, view, (trees, merged, totals), rows, sizes)
        },
    );
    let shape = view.shape.name();
    LaidOut {
        metric: view.metric,
        shape: view.shape,
        graphs,
        table,
        script: ScriptView {
            metric: view.metric,
            shape,
            title: format!(
                "{} · {} · {rep} · {} · {shape} — {}",
                entry.benchmark, version.label, metric.name, history.title
            ),
            heading: format!("in {}, {shape}", version.label),
            graphs: Vec::new(),
            table: -1,
        },
    }
}

fn shape_index(shape: Shape) -> usize {
    Shape::ALL.iter().position(|s| *s == shape).unwrap_or(0)
}

/// The heaviest functions by each metric's self value.
fn tops(
    cx: &Context,
    entry: &ProfileEntry,
    (heaviest, totals): (Option<&CallTree>, &[f64]),
) -> Vec<Top> {
    entry
        .profile
        .metrics
        .iter()
        .enumerate()
        .map(|(m, metric)| Top {
            metric: metric.name.clone(),
            unit: metric.unit.clone(),
            total: totals[m],
            rows: match heaviest {
                Some(merged) => {
                    top_by_self(cx.frames, entry, (merged, totals[m], &metric.unit), m, 30)
                }
                None => Vec::new(),
            },
        })
        .collect()
}

/// One view of a profile page.
struct ViewOf<'a> {
    metric: usize,
    shape: Shape,
    page: &'a PagePlan,
}

/// Inclusive values (shared with the other shapes' inputs) and self values
/// of every node, per metric; the self values are copied out of the tree
/// only when it has several metrics (one metric's are its own, borrowed
/// by [`ShapeTrees::self_columns`]: 25 MB on a 3.2 M-node profile).
type NodeValues = (Arc<Vec<Vec<f64>>>, Vec<Vec<f64>>);

/// The trees one view draws: for top-down the profile's own (with every
/// node's values, shared by the page's graph and table); for the other
/// shapes the exclusive and the inclusive tree. (The flat trees merged,
/// for the heaviest functions, are kept beside them in [`ShapeCells`].)
struct ShapeTrees<'a> {
    entry: &'a ProfileEntry,
    exclusive: Option<CallTree>,
    inclusive: Option<CallTree>,
    cut_depth: Option<usize>,
    /// Top-down: inclusive and exclusive values of every node, per metric.
    values: Option<NodeValues>,
}

impl<'a> ShapeTrees<'a> {
    fn top_down(entry: &'a ProfileEntry, inputs: &shapes::ShapeInputs) -> ShapeTrees<'a> {
        let tree = &entry.profile.tree;
        let exclusive = match tree.only_self_column() {
            Some(_) => Vec::new(),
            None => (0..tree.metric_count())
                .map(|m| tree.node_ids().map(|n| tree.self_value(n, m)).collect())
                .collect(),
        };
        ShapeTrees {
            entry,
            exclusive: None,
            inclusive: None,
            cut_depth: None,
            values: Some((inputs.inclusive_shared().clone(), exclusive)),
        }
    }

    /// Top-down: the self values of every node, per metric.
    fn self_columns(&self) -> Vec<&[f64]> {
        let tree = &self.entry.profile.tree;
        match (tree.only_self_column(), &self.values) {
            (Some(only), _) => vec![only],
            (None, Some((_, copied))) => copied.iter().map(Vec::as_slice).collect(),
            (None, None) => Vec::new(),
        }
    }

    fn derived(
        entry: &'a ProfileEntry,
        exclusive: CallTree,
        inclusive: CallTree,
        cut_depth: Option<usize>,
    ) -> ShapeTrees<'a> {
        ShapeTrees {
            entry,
            exclusive: Some(exclusive),
            inclusive: Some(inclusive),
            cut_depth,
            values: None,
        }
    }
}

fn graph_specs<'a>(
    cx: &Context<'a>,
    view: &ViewOf,
    trees: &'a ShapeTrees,
    label: &str,
    total: f64,
    code: &'a CodeLinks<'a>,
) -> Vec<GraphSpec<'a>> {
    let metric = &trees.entry.profile.metrics[view.metric];
    let dir = view.page.path.rsplit_once('/').map_or("", |(d, _)| d);
    let rep = cx.svg_name(view.page.entry);
    let stem = paths::view_svg_stem(dir, rep, &metric.name, view.shape);
    let shape = view.shape;
    // The top-down graph's tree is the profile's, whose inclusive values
    // the trees carry; the other shapes' trees are small.
    let inclusive = match (shape, &trees.values) {
        (Shape::TopDown, Some((inclusive, _))) => inclusive.get(view.metric).map(Vec::as_slice),
        _ => None,
    };
    let spec = |tree: &'a CallTree, kind: &str, title: String, note: Option<String>, id: usize| {
        GraphSpec {
            tree,
            metric: view.metric,
            inclusive,
            frames: &cx.frames.table,
            unit: &metric.unit,
            title,
            note,
            label: format!("{label} ({} {kind})", shape.name()),
            id: format!("pa-flame-{id}"),
            svg_path: if id == 0 {
                format!("{stem}.svg")
            } else {
                format!("{stem}.{kind}.svg")
            },
            words: if shape == Shape::TopDown {
                Words::TotalSelf
            } else {
                Words::Value
            },
            percent_of: Some(total),
            code: Some(code),
        }
    };
    let cut = trees.cut_depth.map(|d| {
        format!(" Caller chains longer than {d} frames are cut; their values stay in the last frame shown.")
    });
    let name = &metric.name;
    match (shape, &trees.exclusive, &trees.inclusive) {
        (Shape::BottomUp, Some(e), Some(i)) => vec![
            spec(e, "exclusive", format!("Bottom-up flame graph, exclusive {name}"),
                Some(format!("Roots are the functions where {name} is spent (their own cost); above each, the callers that led there.{}", cut.clone().unwrap_or_default())), 0),
            spec(i, "inclusive", format!("Bottom-up flame graph, inclusive {name}"),
                Some(format!("Roots are all functions with their cost including callees (each sample once per function, even under recursion); above each, its callers. A sample counts for every function on its stack, so the roots add up to more than the total; percentages are of the profile's total.{}", cut.unwrap_or_default())), 1),
        ],
        (Shape::Flat, Some(e), Some(i)) => vec![
            spec(e, "exclusive", format!("Flat flame graph, exclusive {name}"),
                Some("Modules, then files, then functions, by each function's own cost; call paths are ignored.".to_string()), 0),
            spec(i, "inclusive", format!("Flat flame graph, inclusive {name}"),
                Some("Modules, then files, then functions, by each function's cost including its callees (each sample once per function). A file's width is the sum of its functions', so the graph adds up to more than the total; percentages are of the profile's total.".to_string()), 1),
        ],
        _ => vec![spec(
            &trees.entry.profile.tree,
            "inclusive",
            format!("Flame graph, top-down, inclusive {name}"),
            Some("Each box is a function in a calling context; its width is its share of the total, and the gap under it is its own (exclusive) cost. Hover for details, click to zoom.".to_string()),
            0,
        )],
    }
}

/// The heaviest functions: the `n` with the largest self value and the
/// `n` with the largest total, each summed over every context they appear
/// in (total counts each sample once even under recursion), by self value
/// then total. A function that spends its time in its callees (cProfile's
/// `main`, 95% cumulative, 0.06% own) is kept as `pstats` sorted by
/// cumulative time and `pprof -top -cum` list it. These are the function
/// rows of the flat trees; `merged` is the exclusive and the inclusive
/// flat tree merged.
fn top_by_self(
    frames: &ShapeFrames,
    entry: &ProfileEntry,
    (merged, grand, unit): (&CallTree, f64, &Unit),
    metric: usize,
    n: usize,
) -> Vec<TopRow> {
    // The merged tree has the profile's exclusive metrics, then its
    // inclusive ones.
    let per = entry.profile.tree.metric_count();
    let (self_by, total_by) = (merged.inclusive(metric), merged.inclusive(per + metric));
    let functions: Vec<NodeId> = merged
        .node_ids()
        .filter(|&n| merged.depth(n) == 3)
        .collect();
    let heaviest = |by: &[f64]| -> Vec<NodeId> {
        let mut rows: Vec<NodeId> = functions
            .iter()
            .copied()
            .filter(|n| by[n.index()] > 0.0)
            .collect();
        rows.sort_by(|a, b| by[b.index()].total_cmp(&by[a.index()]).then(a.cmp(b)));
        rows.truncate(n);
        rows
    };
    let mut rows = heaviest(&self_by);
    rows.extend(heaviest(&total_by));
    rows.sort_by(|a, b| {
        self_by[b.index()]
            .total_cmp(&self_by[a.index()])
            .then(total_by[b.index()].total_cmp(&total_by[a.index()]))
            .then(a.cmp(b))
    });
    rows.dedup();
    rows.into_iter()
        .filter_map(|node| {
            let frame = frames.table.get(merged.frame(node)?);
            Some(TopRow {
                name: frame.function.clone(),
                location: frame.file.clone().unwrap_or_default(),
                self_value: with_unit(self_by[node.index()], unit),
                self_share: percent(self_by[node.index()], grand),
                total_value: with_unit(total_by[node.index()], unit),
                total_share: percent(total_by[node.index()], grand),
                values: (self_by[node.index()], total_by[node.index()]),
            })
        })
        .collect()
}

/// What a profile's pages are drawn from.
pub(crate) fn context<'a>(site: &'a SitePlan<'a>) -> Context<'a> {
    Context {
        history: site.history,
        config: site.config,
        renderer: site.renderer,
        plan: &site.profiles,
        frames: &site.analysis.frames,
        diffs: &site.diff_links,
        links: &site.links,
        homes: &site.homes,
        mean: None,
        inclusive: &site.analysis.evolution.inclusive,
    }
}
