//! Differential flame-graph pages (EasyView VI-A-b): for each pair of
//! consecutive versions of a benchmark (and each pair named in the
//! configuration), one page with every metric and shape as a view (see
//! [`super::views`]), the mean profile of the old version against the new
//! one's. Graphs are drawn on the newer version's widths (its frames as
//! wide as in its own profile, search shares of its total), the older as
//! the comparison; the page script redraws them on the older version's
//! widths, where deleted frames show ([`Side`]). Frames carry the tags
//! `[A]`, `[D]`, `[+]`, `[−]` in their labels and a diverging colour
//! through grey; tooltips and the tree table give both versions' values
//! and the absolute and relative changes of the inclusive and the
//! exclusive value, and the page script switches the colouring between the
//! two.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;

use super::code_links::{CodeLinks, MethodHomes, SourceLinks};
use super::flame_plan::{neighbour_links, DiffPlan, Shape};
use super::flame_svg::{self, Decor, Words};
use super::flame_view::{self, Derive, GraphSpec, GraphView};
use super::format::{percent, with_unit};
use super::shape_source::{self, DiffSource, PageTrees, SourceBuilder};
use super::tree_table::{self, Column, RowBudget, TableView};
use super::views::{self, ScriptView, TableDerive, Views};
use super::{paths, reuse, Common, Renderer};
pub use crate::flame_plan::{version_mean, VersionMean};
use crate::Link;
use analysis::flame_diff::{self, Change, FlameDiff, Side, Tag, TABLE_METRIC};
use analysis::matrix::delta_step;
use analysis::shapes::{self, ShapeFrames, Values};
use config::Config;
use model::error::BuildError;
use model::{CallTree, History, NodeId, Unit};

use crate::page_kind::{Job, PageKind, SitePlan};
use rayon::prelude::*;

/// What differs between the metrics of a page.
#[derive(Serialize)]
struct MetricPart {
    old_count: usize,
    new_count: usize,
    old_aggregate: Option<String>,
    new_aggregate: Option<String>,
}

/// The facts of one view: the metric's change and the tags' counts.
#[derive(Serialize)]
struct ViewFacts {
    metric: String,
    change: String,
    counts: Vec<(String, usize)>,
}

#[derive(Serialize)]
struct DiffView {
    #[serde(flatten)]
    common: Common,
    benchmark: String,
    /// Breadcrumb: the benchmark's row on the index.
    benchmark_href: String,
    /// The pairs before and after, as links from this page.
    neighbours: Vec<Link>,
    /// Regression pages of the pair and the benchmark's matrix.
    related: Vec<Link>,
    old: String,
    new: String,
    /// The default view's metric.
    metric: String,
    normalised: bool,
    parts: Vec<MetricPart>,
    facts: Vec<ViewFacts>,
    shapes: Vec<Link>,
    metrics: Vec<Link>,
    graph: Option<GraphView>,
    table: TableView,
    views_json: String,
}

/// (benchmark, version, metric) → the version's mean.
pub type Means = BTreeMap<(String, usize, String), VersionMean>;

/// The means every page of `plan` needs, computed in parallel.
pub fn means(history: &History, frames: &ShapeFrames, plan: &[DiffPlan]) -> Means {
    use rayon::prelude::*;
    let mut keys: Vec<(String, usize, String)> = plan
        .iter()
        .flat_map(|p| {
            p.metrics
                .iter()
                .flat_map(|m| [p.old, p.new].map(|v| (p.benchmark.clone(), v, m.clone())))
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys.into_par_iter()
        .map(|key| {
            let mean = version_mean(history, frames, (&key.0, key.1, &key.2));
            (key, mean)
        })
        .collect()
}

/// A version's mean in the page's shape.
fn shaped<'a>(
    mean: &'a VersionMean,
    frames: &ShapeFrames,
    shape: Shape,
    min_fraction: f64,
) -> Cow<'a, CallTree> {
    match shape {
        Shape::TopDown => Cow::Borrowed(&mean.tree),
        Shape::BottomUp => {
            Cow::Owned(shapes::bottom_up(&mean.tree, frames, Values::Exclusive, min_fraction).tree)
        }
        Shape::Flat => Cow::Owned(shapes::flat(&mean.tree, frames, Values::Exclusive)),
    }
}

/// What a differential page is drawn from.
pub struct DiffInputs<'a> {
    pub frames: &'a ShapeFrames,
    pub means: &'a Means,
    /// Source and editor links; frames link to the newer version's code.
    pub links: &'a SourceLinks<'a>,
    /// Method sections; frames link to the newer version's section.
    pub homes: &'a crate::function_home::FunctionHomes<'a>,
    /// Pages about the pair elsewhere in the site (its regression pages,
    /// the benchmark's matrix), as (label, site path).
    pub related: Vec<(String, String)>,
}

/// The pages a pair page links besides its neighbours: each change found
/// for the pair (in its own benchmark's series, or in a measured one its
/// call trees explain), the newer version's source diff and the
/// benchmark's evolution matrix.
pub fn related(
    site: &crate::page_kind::SitePlan,
    source_diffs: &[bool],
    p: &DiffPlan,
) -> Vec<(String, String)> {
    let history = site.history;
    let report = &site.analysis.regressions;
    let mut out = Vec::new();
    for (i, c) in report.changes.iter().enumerate() {
        let explained = report.causes[i]
            .as_ref()
            .is_some_and(|x| x.benchmark == p.benchmark);
        if c.before == p.old && c.after == p.new && (c.benchmark == p.benchmark || explained) {
            out.push((
                format!(
                    "{} {} of {}",
                    super::verdict_words::kind_word(c.direction).to_lowercase(),
                    history.versions[c.after].label,
                    c.benchmark
                ),
                paths::change_page(
                    c,
                    &history.versions[c.before].name,
                    &history.versions[c.after].name,
                ),
            ));
        }
    }
    if source_diffs.get(p.new).copied().unwrap_or(false) {
        out.push((
            format!("source diff of {}", history.versions[p.new].label),
            paths::source_diff_page(&history.versions[p.new].name),
        ));
    }
    if crate::flame_plan::comparable(history, &p.benchmark) {
        let name = |v: usize| history.versions[v].name.as_str();
        out.push((
            "any other pair".to_string(),
            paths::compare_view(&p.benchmark, Some(name(p.old)), name(p.new)),
        ));
    }
    let matrix = site
        .analysis
        .evolution
        .scopes
        .iter()
        .find(|s| s.scope.benchmarks == [p.benchmark.clone()]);
    if let Some(scope) = matrix {
        out.push((
            format!("evolution matrix of {}", p.benchmark),
            crate::paths::ScopePaths::matrix_path(scope),
        ));
    }
    out
}

pub fn render(
    history: &History,
    config: &Config,
    renderer: &Renderer,
    inputs: &DiffInputs,
    p: &DiffPlan,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let (frames, means) = (inputs.frames, inputs.means);
    let (old_v, new_v) = (&history.versions[p.old], &history.versions[p.new]);
    let common = Common::new(renderer, history, &p.path);
    let code = CodeLinks {
        links: inputs.links,
        version: p.new,
        root: common.root.clone(),
        origin: Some(frames),
        method: Some(MethodHomes {
            homes: inputs.homes,
            benchmark: &p.benchmark,
            version: &new_v.name,
        }),
    };
    let mut views = Views::new(
        p.metrics.iter().map(String::as_str),
        inputs.links.editor_template(),
    );
    let mut files = Vec::new();
    let (mut parts, mut facts) = (Vec::new(), Vec::new());
    let (mut graph, mut table) = (None, None);
    // Pages of small means store them, and the script derives every
    // view's frames and tables (see `shape_source`).
    let derived = p.metrics.iter().all(|metric| {
        [p.old, p.new].iter().all(|&v| {
            means
                .get(&(p.benchmark.clone(), v, metric.clone()))
                .is_some_and(|mean| mean.tree.len() <= shape_source::MAX_NODES)
        })
    });
    let ship_both = renderer.ship_derived();
    let budget = flame_view::budget(&config.flame);
    let mut source = SourceBuilder::new(frames);
    for (m, metric) in p.metrics.iter().enumerate() {
        let mean_of = |v: usize| {
            means
                .get(&(p.benchmark.clone(), v, metric.clone()))
                .ok_or_else(|| {
                    BuildError::Internal(format!("no mean for {} in version {v}", p.benchmark))
                })
        };
        let (old_mean, new_mean) = (mean_of(p.old)?, mean_of(p.new)?);
        if derived {
            source.add(&old_mean.tree);
            source.add(&new_mean.tree);
        }
        parts.push(MetricPart {
            old_count: old_mean.count,
            new_count: new_mean.count,
            old_aggregate: aggregate_link(history, p, metric, p.old, &common.root),
            new_aggregate: aggregate_link(history, p, metric, p.new, &common.root),
        });
        let view_of = |shape| DiffOf {
            p,
            metric,
            shape,
            old: old_mean,
            new: new_mean,
            derived,
        };
        // The three shapes' trees, differences and layouts in parallel;
        // their names and locations go into the page's tables in order.
        let prepared: Vec<Prepared> = Shape::ALL
            .par_iter()
            .map(|&shape| {
                let view = view_of(shape);
                let svg_files = renderer.svg_files();
                prepare(
                    history,
                    config,
                    frames,
                    (&code, ship_both, svg_files),
                    &view,
                )
            })
            .collect();
        for (shape, prepared) in Shape::ALL.into_iter().zip(prepared) {
            let view = view_of(shape);
            let mut drawn = finish(
                history,
                (config, frames, renderer),
                &code,
                &view,
                prepared,
                &mut views,
            );
            if derived {
                let derive = Derive {
                    shape: shape.name(),
                    values: "exclusive",
                    max_frames: budget.max_frames,
                };
                drawn.script.data.derive_instead(derive, ship_both);
            }
            files.extend(drawn.svg);
            facts.push(drawn.facts);
            let table_index = match Views::is_default(m, shape) {
                true if derived => {
                    graph = drawn.inline;
                    let derive = TableDerive {
                        shape: shape.name(),
                        metric: m,
                    };
                    let html = drawn.html_table.unwrap_or_else(|| drawn.table.clone());
                    let tables = (drawn.table, html);
                    let (html, k) = views.derived_default_table(tables, derive, ship_both);
                    table = Some(html);
                    k
                }
                true => {
                    graph = drawn.inline;
                    table = Some(drawn.table);
                    -1
                }
                false if derived => {
                    let derive = TableDerive {
                        shape: shape.name(),
                        metric: m,
                    };
                    views.derived_table(drawn.table, derive, ship_both)
                }
                false => views.table(drawn.table),
            };
            views.push(ScriptView {
                metric: m,
                shape: shape.name(),
                title: format!(
                    "{} · {} → {} · {metric} · {} — {}",
                    p.benchmark,
                    old_v.label,
                    new_v.label,
                    shape.name(),
                    history.title
                ),
                heading: format!("{} → {}, {}", old_v.label, new_v.label, shape.name()),
                graphs: vec![drawn.script],
                table: table_index,
            });
        }
    }
    if derived {
        let diff = DiffSource {
            normalise: config.flame.diff_normalise,
        };
        let link = |f| code.of(&frames.table, f);
        let trees = PageTrees::Diff(diff);
        let source = source.finish(budget.min_fraction, trees, &mut views.tables, link);
        views.set_tree(source);
    }
    let table = table.ok_or_else(|| BuildError::Internal(format!("no metric in {}", p.path)))?;
    let html = renderer.render(
        "flamediff.html",
        &DiffView {
            benchmark: p.benchmark.clone(),
            benchmark_href: format!(
                "{}index.html#{}",
                common.root,
                paths::benchmark_anchor(&p.benchmark)
            ),
            neighbours: neighbour_links(p),
            related: inputs
                .related
                .iter()
                .map(|(label, path)| Link {
                    label: label.clone(),
                    href: paths::link_from(&p.path, path),
                    current: false,
                })
                .collect(),
            old: old_v.label.clone(),
            new: new_v.label.clone(),
            metric: p.metrics.first().cloned().unwrap_or_default(),
            normalised: config.flame.diff_normalise,
            parts,
            facts,
            shapes: views::shape_links(),
            metrics: views::metric_links(p.metrics.iter().map(String::as_str)),
            graph,
            table,
            views_json: views.into_json(),
            common,
        },
    )?;
    files.insert(0, (p.path.clone(), html.into_bytes()));
    Ok(files)
}

/// One view of a differential page: a metric's means in a shape.
struct DiffOf<'a> {
    p: &'a DiffPlan,
    metric: &'a str,
    shape: Shape,
    old: &'a VersionMean,
    new: &'a VersionMean,
    /// Whether the page's script derives the views (the default table is
    /// then also written as HTML with `tree_table::HTML_ROWS`).
    derived: bool,
}

impl DiffOf<'_> {
    /// Whether this is the page's default view (first metric, top-down).
    fn is_default(&self) -> bool {
        let m = self.p.metrics.iter().position(|m| m == self.metric);
        Views::is_default(m.unwrap_or(0), self.shape)
    }
}

/// A view drawn: its graph for the script (and inline, for the default
/// view), its standalone SVG, facts and tree table.
struct Drawn {
    script: flame_view::ScriptGraph,
    inline: Option<GraphView>,
    svg: Option<(String, Vec<u8>)>,
    facts: ViewFacts,
    table: TableView,
    /// The default view's table as HTML for readers without JavaScript,
    /// when the script writes it again (see `tree_table::HTML_ROWS`).
    html_table: Option<TableView>,
}

/// The part of a view's drawing that needs no page tables, so the shapes
/// of a metric are prepared in parallel: the shaped means, their
/// difference, its layout, decoration and tree tables.
struct Prepared {
    diff: FlameDiff,
    unit: Unit,
    shown_unit: Unit,
    /// The graph on the newer version's widths, and on the older's when
    /// the page ships it (a page whose script derives its views derives
    /// that too).
    newer: SideGraph,
    older: Option<SideGraph>,
    counts: Vec<(String, usize)>,
    table: TableView,
    html_table: Option<TableView>,
}

/// A view's graph drawn on one version's widths, with its per-frame data
/// (see [`frame_data`]) and, where an SVG of it is written, its decoration
/// (see [`decorate`]).
struct SideGraph {
    graph: analysis::flame::FlameGraph,
    decor: Option<Vec<Decor>>,
    data: Vec<serde_json::Value>,
}

fn prepare(
    history: &History,
    config: &Config,
    frames: &ShapeFrames,
    (code, ship_both, svg_files): (&CodeLinks, bool, bool),
    view: &DiffOf,
) -> Prepared {
    let min_fraction = flame_view::budget(&config.flame).min_fraction;
    let unit = view
        .old
        .unit
        .clone()
        .or(view.new.unit.clone())
        .unwrap_or(Unit::Count);
    let old_tree = shaped(view.old, frames, view.shape, min_fraction);
    let new_tree = shaped(view.new, frames, view.shape, min_fraction);
    let normalise = config.flame.diff_normalise;
    let diff = flame_diff::diff(&old_tree, &new_tree, normalise);
    let shown_unit = if normalise {
        Unit::Other("% of total".into())
    } else {
        unit.clone()
    };
    let show = |v: f64| value_text(v, &unit, normalise);
    let (old_v, new_v) = (&history.versions[view.p.old], &history.versions[view.p.new]);
    let labels = (!normalise).then_some((old_v.label.as_str(), new_v.label.as_str()));
    // Only the newer side is ever drawn as SVG: inline on the default
    // view, and as a file of every view with `--svg-files`. Tooltips are
    // text for each of up to `max_frames` boxes, most of a page's work
    // when written for views nobody draws.
    let drawn = |side: Side| side == Side::New && (view.is_default() || svg_files);
    // A page whose script derives its views stores neither side's numbers
    // per frame nor its tables' rows (see `derive_instead` and
    // `Views::derived_table`): they are not made.
    let script_derives = view.derived && !ship_both;
    let side_graph = |side: Side| {
        let graph = flame_view::layout(
            &spec(history, frames, code, view, (&diff, &shown_unit, side)),
            flame_view::budget(&config.flame),
        );
        let decor = drawn(side).then(|| decorate(&diff, &graph, &show, (labels, svg_files)));
        let data = match script_derives {
            true => Vec::new(),
            false => frame_data(&diff, &graph),
        };
        SideGraph { graph, decor, data }
    };
    let (newer, older) = (side_graph(Side::New), side_graph(Side::Old));
    // Tags are counted over the frames drawn on either side, so deleted
    // frames (drawn only on the older widths) are counted too.
    let counts = tag_counts(&diff, [&newer.graph, &older.graph]);
    let older = (!view.derived || ship_both).then_some(older);
    let table_of = |rows, with_rows| {
        let rows = (code, rows, with_rows);
        table(&diff, &frames.table, (&unit, normalise), rows)
    };
    let html_table =
        (view.is_default() && view.derived).then(|| table_of(tree_table::HTML_ROWS, true));
    Prepared {
        table: table_of(tree_table::ROWS, !script_derives),
        html_table,
        diff,
        unit,
        shown_unit,
        newer,
        older,
        counts,
    }
}

/// The graph of `view`, drawn from `diff` in `unit`.
fn spec<'a>(
    history: &History,
    frames: &'a ShapeFrames,
    code: &'a CodeLinks<'a>,
    view: &DiffOf,
    (diff, unit, side): (&'a FlameDiff, &'a Unit, Side),
) -> GraphSpec<'a> {
    let (p, shape, metric) = (view.p, view.shape, view.metric);
    let (old_v, new_v) = (&history.versions[p.old], &history.versions[p.new]);
    let (shown, other) = match side {
        Side::New => (new_v, old_v),
        Side::Old => (old_v, new_v),
    };
    let absent = match side {
        Side::New => "deleted",
        Side::Old => "added",
    };
    let absent = format!("{absent} in {}", new_v.label);
    GraphSpec {
        tree: &diff.tree,
        metric: side.metric(),
        inclusive: None,
        frames: &frames.table,
        unit,
        title: format!("Differential flame graph, {}, {}", shape.name(), metric),
        note: Some(format!(
            "Functions of {} and {} matched by their whole call path from the root (names and files; line numbers ignored, since they move when code changes). Widths are {}'s: each frame is as wide as its share of {}'s total; colour and tag compare it with {}. Frames {absent} have no width here (see the key). Each frame's tooltip starts with its tag and gives both versions' values.",
            old_v.label, new_v.label, shown.label, shown.label, other.label
        )),
        label: format!("{}: {} → {}, {}", p.benchmark, old_v.label, new_v.label, metric),
        id: "pa-flame-0".to_string(),
        svg_path: format!(
            "{}{}.svg",
            paths::flame_diff_prefix(&p.benchmark, &old_v.name, &new_v.name),
            paths::slug(metric) + shape.suffix()
        ),
        words: Words::Value,
        percent_of: None,
        code: Some(code),
    }
}

/// A prepared view with its names and locations added to the page's
/// tables (in view order, so the tables come out the same every time).
fn finish(
    history: &History,
    (config, frames, renderer): (&Config, &ShapeFrames, &Renderer),
    code: &CodeLinks,
    view: &DiffOf,
    p: Prepared,
    views: &mut Views,
) -> Drawn {
    let spec_of = |side| spec(history, frames, code, view, (&p.diff, &p.shown_unit, side));
    // The two versions' totals, older first: tooltips give each frame's
    // share of both.
    let totals: Vec<serde_json::Value> = [Side::Old, Side::New]
        .map(|side| flame_view::number_json(flame_view::significant(side.total(&p.diff))))
        .to_vec();
    let extra_of = |data: Vec<serde_json::Value>| {
        let mut extra = flame_view::Extra::new();
        extra.insert("diff", serde_json::Value::Array(data));
        extra.insert("diff_unit", p.unit.name().into());
        extra.insert("normalised", config.flame.diff_normalise.into());
        extra.insert("totals", totals.clone().into());
        extra
    };
    let mut extra = extra_of(p.newer.data);
    extra.insert("older_note", spec_of(Side::Old).note.into());
    if let Some(older) = p.older {
        // The same graph on the older version's widths, for the script to
        // draw when asked (a page whose script derives views derives it).
        let data = flame_view::page_data_only(
            &spec_of(Side::Old),
            &older.graph,
            extra_of(older.data),
            &mut views.tables,
        );
        extra.insert("older", serde_json::to_value(data).unwrap_or_default());
    }
    let spec = spec_of(Side::New);
    let decor = p.newer.decor.as_deref();
    let graph = &p.newer.graph;
    let (script, svg) =
        flame_view::script_graph(&spec, graph, (decor, extra), &mut views.tables, renderer);
    let inline = view
        .is_default()
        .then(|| flame_view::inline_view(&spec, &script, graph, decor));
    let old_to_new = Change {
        old: p.diff.old_total,
        new: p.diff.new_total,
    };
    Drawn {
        script,
        inline,
        svg,
        facts: ViewFacts {
            metric: view.metric.to_string(),
            change: change_text(old_to_new, &|v| with_unit(v, &p.unit)),
            counts: p.counts,
        },
        table: p.table,
        html_table: p.html_table,
    }
}

/// The count of frames by tag, over the frames drawn on either version's
/// widths (each once).
fn tag_counts(diff: &FlameDiff, graphs: [&analysis::flame::FlameGraph; 2]) -> Vec<(String, usize)> {
    let mut seen = vec![false; diff.tree.len()];
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for rect in graphs.iter().flat_map(|g| &g.rects) {
        let Some(node) = rect.node.filter(|_| rect.frame.is_some()) else {
            continue;
        };
        if !std::mem::replace(&mut seen[node.index()], true) {
            *counts
                .entry(as_shown(diff.inclusive(node)).tag().mark())
                .or_insert(0) += 1;
        }
    }
    counts
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// Per rectangle, its data for the page script: `[old, new, old self,
/// new self]`, from which the script writes tags, colours and changes as
/// [`decorate`] does (`null` for the root and merged boxes).
fn frame_data(diff: &FlameDiff, graph: &analysis::flame::FlameGraph) -> Vec<serde_json::Value> {
    graph
        .rects
        .iter()
        .map(|rect| match rect.node.filter(|_| rect.frame.is_some()) {
            Some(node) => {
                let (inc, exc) = (
                    as_shown(diff.inclusive(node)),
                    as_shown(diff.exclusive(node)),
                );
                serde_json::Value::Array(
                    [inc.old, inc.new, exc.old, exc.new]
                        .map(flame_view::number_json)
                        .to_vec(),
                )
            }
            None => serde_json::Value::Null,
        })
        .collect()
}

/// Per rectangle, its decoration in the SVG: colour and tag classes, and
/// tooltip numbers. With the versions' labels (values not normalised),
/// tooltips give each frame's share of both versions' totals. Without
/// `every_line` (no standalone file is written), only what a page's
/// inline graph shows: the first line, for the frames it titles.
fn decorate(
    diff: &FlameDiff,
    graph: &analysis::flame::FlameGraph,
    show: &dyn Fn(f64) -> String,
    (labels, every_line): (Option<(&str, &str)>, bool),
) -> Vec<Decor> {
    let totals = [Side::Old, Side::New].map(|side| flame_view::significant(side.total(diff)));
    let decor_of = |rect: &analysis::flame::FlameRect| {
        let Some(node) = rect.node.filter(|_| rect.frame.is_some()) else {
            return Decor {
                class: if rect.node.is_none() {
                    "m".into()
                } else {
                    "r d0".into()
                },
                prefix: String::new(),
                numbers: root_numbers(diff, show),
            };
        };
        let (inc, exc) = (
            as_shown(diff.inclusive(node)),
            as_shown(diff.exclusive(node)),
        );
        let class = format!("{} t{}", colour_class(inc), tag_letter(inc.tag()));
        let prefix = inc.tag().mark().to_string();
        if !every_line {
            let numbers = match flame_svg::titled_in_page(rect) {
                true => format!("{}: {}", inc.tag().word(), change_text(inc, show)),
                false => String::new(),
            };
            return Decor {
                class,
                prefix,
                numbers,
            };
        }
        let shares = match labels {
            Some((old, new)) => format!(
                "\nshare: {} of {old} → {} of {new}",
                percent(inc.old, totals[0]),
                percent(inc.new, totals[1])
            ),
            None => String::new(),
        };
        Decor {
            class,
            prefix,
            numbers: format!(
                "{}: {}\nself {}: {}{shares}",
                inc.tag().word(),
                change_text(inc, show),
                exc.tag().word(),
                change_text(exc, show)
            ),
        }
    };
    graph.rects.iter().map(decor_of).collect()
}

/// The page-reuse key of a differential page: its plan, both versions,
/// and the contents of their profiles.
pub fn key(
    history: &History,
    p: &DiffPlan,
    (profiles, related, homes): (&super::flame_plan::Plan, &[(String, String)], u128),
    inputs: &reuse::Inputs,
) -> u128 {
    let mut d = reuse::KeyHasher::new("differential page");
    d.u128(inputs.salt)
        .u128(inputs.sources[p.new])
        .u128(homes)
        .debug(&(&p.benchmark, &p.metrics, &p.path, &p.neighbours, related));
    for version in [p.old, p.new] {
        d.debug(&history.versions[version]);
        for metric in &p.metrics {
            d.debug(&aggregate_link(history, p, metric, version, ""));
        }
        for &e in profiles.entries_of(&p.benchmark, version) {
            d.u128(inputs.profiles[e]);
        }
    }
    d.finish()
}

/// The aggregate page of a version in the pair, when it has one.
fn aggregate_link(
    history: &History,
    p: &DiffPlan,
    metric: &str,
    version: usize,
    root: &str,
) -> Option<String> {
    super::flame_plan::aggregate_link(history, &p.benchmark, version, metric)
        .map(|link| format!("{root}{link}"))
}

/// A change as pages show it: both values to nine significant digits,
/// the same in the SVG, the tree table and the data the script reads, so
/// a mean that differs from the other version's only in its last bits
/// (summed in another order) is unchanged, not grown.
fn as_shown(c: Change) -> Change {
    Change {
        old: flame_view::significant(c.old),
        new: flame_view::significant(c.new),
    }
}

fn tag_letter(tag: Tag) -> &'static str {
    match tag {
        Tag::Added => "A",
        Tag::Deleted => "D",
        Tag::Grew => "P",
        Tag::Shrank => "M",
        Tag::Same => "S",
    }
}

/// Diverging colour class through grey: `dp1`…`dp5` slower, `dm1`…`dm5`
/// faster, `d0` unchanged; added and deleted frames take the ends.
pub fn colour_class(change: Change) -> String {
    let step = match change.tag() {
        Tag::Added => 5,
        Tag::Deleted => -5,
        Tag::Same => 0,
        _ => change.relative().map_or(0, delta_step),
    };
    match step {
        0 => "d0".to_string(),
        s if s > 0 => format!("dp{s}"),
        s => format!("dm{}", -s),
    }
}

fn value_text(v: f64, unit: &Unit, normalised: bool) -> String {
    if normalised {
        format!("{:.2}% of total", v * 100.0)
    } else {
        with_unit(v, unit)
    }
}

/// "120 → 150 samples (+30, +25.0%)".
fn change_text(c: Change, show: &dyn Fn(f64) -> String) -> String {
    let delta = c.delta();
    let sign = if delta > 0.0 {
        "+"
    } else if delta < 0.0 {
        "−"
    } else {
        "±"
    };
    let relative = match c.relative() {
        Some(r) => format!(", {sign}{:.1}%", (r * 100.0).abs()),
        None => String::new(),
    };
    format!(
        "{} → {} ({sign}{}{relative})",
        show(c.old),
        show(c.new),
        show(delta.abs())
    )
}

fn root_numbers(diff: &FlameDiff, show: &dyn Fn(f64) -> String) -> String {
    format!("all: {}", change_text(diff.inclusive(NodeId::ROOT), show))
}

fn table(
    diff: &FlameDiff,
    frames: &model::FrameTable,
    (unit, normalised): (&Unit, bool),
    (code, rows, with_rows): (&CodeLinks, RowBudget, bool),
) -> TableView {
    let tree = &diff.tree;
    let (old_inc, new_inc) = (tree.inclusive(0), tree.inclusive(1));
    let shown = if normalised {
        Unit::Other("% of total".into())
    } else {
        unit.clone()
    };
    let column = |heading: &str, values: Vec<f64>| Column {
        heading: heading.to_string(),
        values: if normalised {
            values
                .iter()
                .map(|v| v * 100.0)
                .collect::<Vec<f64>>()
                .into()
        } else {
            values.into()
        },
        unit: &shown,
        percent_of: None,
    };
    let selfs = |m: usize| {
        tree.node_ids()
            .map(|n| tree.self_value(n, m))
            .collect::<Vec<f64>>()
    };
    let delta = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(o, n)| n - o).collect::<Vec<f64>>();
    let (old_self, new_self) = (selfs(0), selfs(1));
    let columns = vec![
        column("old", old_inc.clone()),
        column("new", new_inc.clone()),
        column("change", delta(&old_inc, &new_inc)),
        column("old self", old_self.clone()),
        column("new self", new_self.clone()),
        column("self change", delta(&old_self, &new_self)),
    ];
    let mut view = tree_table::build(
        "Tree table of the difference".to_string(),
        tree,
        frames,
        (TABLE_METRIC, None),
        &columns,
        usize::MAX,
        (Some(code), rows, with_rows, None),
    );
    for row in &mut view.rows {
        if let Some(n) = row.node.filter(|n| *n != NodeId::ROOT) {
            row.name = format!("{} {}", as_shown(diff.inclusive(n)).tag().mark(), row.name);
        }
    }
    view
}

/// The differential flame graphs of consecutive versions and of the
/// configured pairs.
pub struct FlameDiffPages;

impl PageKind for FlameDiffPages {
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("shapes.js", include_str!("../templates/assets/shapes.js")),
            ("flame.js", include_str!("../templates/assets/flame.js")),
        ]
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "flamediff.html",
            include_str!("../templates/flamediff.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "differential pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let plans = &site.flame_diffs;
        let source_diffs = site.analysis.source_diffs();
        let related: Vec<Vec<(String, String)>> = plans
            .iter()
            .map(|p| related(site, &source_diffs, p))
            .collect();
        let keys: Vec<Option<u128>> = plans
            .par_iter()
            .zip(&related)
            .map(|(p, related)| {
                site.inputs.as_ref().map(|i| {
                    let trees = [p.old, p.new].into_iter().flat_map(|v| {
                        site.profiles
                            .entries_of(&p.benchmark, v)
                            .iter()
                            .map(|&e| &site.history.profiles[e].profile.tree)
                    });
                    let homes = site.homes.links_digest(&p.benchmark, trees);
                    key(site.history, p, (&site.profiles, related, homes), i)
                })
            })
            .collect();
        // Means only for the pages rendered again.
        let to_render: Vec<DiffPlan> = plans
            .iter()
            .zip(&keys)
            .filter(|(_, key)| !key.is_some_and(|k| site.store.has(k)))
            .map(|(p, _)| p.clone())
            .collect();
        let means = std::sync::Arc::new(means(site.history, &site.analysis.frames, &to_render));
        plans
            .iter()
            .zip(keys)
            .zip(related)
            .map(|((page, key), related)| {
                let means = means.clone();
                Job::keyed(key, move || {
                    let inputs = DiffInputs {
                        frames: &site.analysis.frames,
                        means: &means,
                        links: &site.links,
                        homes: &site.homes,
                        related: related.clone(),
                    };
                    render(site.history, site.config, site.renderer, &inputs, page)
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
