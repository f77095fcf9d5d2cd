//! The profile pages: one per (benchmark, version, repetition, metric,
//! shape). Top-down shows the inclusive flame graph and the heaviest
//! functions; bottom-up and flat show an exclusive and an inclusive flame
//! graph (EasyView VI-A-a). Each has a tree table of its shape with every
//! metric, links to the other metrics, shapes, repetitions and versions,
//! the version's aggregate, and the differential views to its neighbours.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::flame_svg::Words;
use super::flame_view::{self, file_name, GraphSpec, GraphView};
use super::format::{percent, with_unit};
use super::source_page::{CodeLinks, SourceLinks};
use super::tree_table::{self, Column, TableView};
use super::{paths, Common, Renderer};
use crate::analysis::derived_metrics;
use crate::analysis::shapes::{self, ShapeFrames, Values};
use crate::error::BuildError;
use crate::input::config::Config;
use crate::model::{CallTree, History, NodeId, ProfileEntry, Unit};

/// The three shapes of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Shape {
    TopDown,
    BottomUp,
    Flat,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::TopDown, Shape::BottomUp, Shape::Flat];

    /// Suffix of the page's file name before `.html`.
    pub fn suffix(self) -> &'static str {
        match self {
            Shape::TopDown => "",
            Shape::BottomUp => ".bottom-up",
            Shape::Flat => ".flat",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::TopDown => "top-down",
            Shape::BottomUp => "bottom-up",
            Shape::Flat => "flat",
        }
    }
}

/// One page to write.
#[derive(Debug, Clone)]
pub struct PagePlan {
    /// Index into `History::profiles`.
    pub entry: usize,
    pub metric: usize,
    pub shape: Shape,
    /// Site-relative path of the HTML page.
    pub path: String,
}

/// Every profile page, and where each profile's pages are.
#[derive(Debug, Default)]
pub struct Plan {
    pub pages: Vec<PagePlan>,
    /// For each profile entry, its top-down pages' paths in metric order.
    pub by_entry: Vec<Vec<String>>,
    /// For each profile entry, its short name among the profiles of the
    /// same benchmark and version (`r1`, `r2`, `r2-b` for duplicates).
    pub rep_names: Vec<String>,
}

/// Decides the path of every profile page.
pub fn plan(history: &History) -> Plan {
    let mut plan = Plan::default();
    let mut used: HashMap<String, usize> = HashMap::new();
    for (i, entry) in history.profiles.iter().enumerate() {
        let dir = paths::profile_dir(&entry.benchmark, &history.versions[entry.version].name);
        let base = format!("r{}", entry.repetition);
        let n = used.entry(format!("{dir}/{base}")).or_insert(0);
        *n += 1;
        let rep = if *n == 1 {
            base
        } else {
            format!("{base}-{}", *n)
        };
        let mut metric_pages = Vec::new();
        for (m, metric) in entry.profile.metrics.iter().enumerate() {
            let stem = format!("{dir}/{rep}.{}", paths::slug(&metric.name));
            for shape in Shape::ALL {
                plan.pages.push(PagePlan {
                    entry: i,
                    metric: m,
                    shape,
                    path: format!("{stem}{}.html", shape.suffix()),
                });
            }
            metric_pages.push(format!("{stem}.html"));
        }
        plan.by_entry.push(metric_pages);
        plan.rep_names.push(rep);
    }
    plan
}

/// The page of `shape` beside a top-down page path.
pub fn shape_path(top_down: &str, shape: Shape) -> String {
    match top_down.strip_suffix(".html") {
        Some(stem) => format!("{stem}{}.html", shape.suffix()),
        None => top_down.to_string(),
    }
}

/// What every profile page render needs.
pub struct Context<'a> {
    pub history: &'a History,
    pub config: &'a Config,
    pub renderer: &'a Renderer,
    pub plan: &'a Plan,
    pub frames: &'a ShapeFrames,
    /// Differential pages by (benchmark, version index), as (label, path).
    pub diffs: &'a BTreeMap<(String, usize), Vec<(String, String)>>,
    pub links: &'a SourceLinks<'a>,
}

#[derive(Serialize)]
pub struct Link {
    pub label: String,
    pub href: String,
    pub current: bool,
}

#[derive(Serialize)]
struct TopRow {
    name: String,
    location: String,
    self_value: String,
    self_share: String,
    total_value: String,
    total_share: String,
}

#[derive(Serialize)]
struct ProfileView {
    #[serde(flatten)]
    common: Common,
    benchmark: String,
    version: String,
    version_date: Option<String>,
    version_revision: Option<String>,
    repetition: String,
    source: String,
    format: String,
    metric: String,
    shape: &'static str,
    total: String,
    metrics: Vec<Link>,
    shapes: Vec<Link>,
    repetitions: Vec<Link>,
    versions: Vec<Link>,
    aggregate_href: Option<String>,
    diffs: Vec<Link>,
    graphs: Vec<GraphView>,
    table: TableView,
    top: Vec<TopRow>,
    empty: bool,
}

/// Renders one page and its standalone SVGs.
/// Renders the pages of one profile and shape, one per metric, deriving
/// the shape's trees (which carry every metric) once.
pub fn render_shape(
    cx: &Context,
    pages: &[&PagePlan],
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let name = pages.first().map_or("", |p| p.shape.name());
    crate::site::timings::phase(name, || render_shape_pages(cx, pages))
}

fn render_shape_pages(
    cx: &Context,
    pages: &[&PagePlan],
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let Some(first) = pages.first() else {
        return Ok(Vec::new());
    };
    let entry = &cx.history.profiles[first.entry];
    let min_fraction = flame_view::budget(&cx.config.flame).min_fraction;
    let trees = ShapeTrees::new(entry, cx.frames, first.shape, min_fraction);
    let mut files = Vec::new();
    for page in pages {
        files.extend(render(cx, page, &trees)?);
    }
    Ok(files)
}

/// Groups pages by (profile, shape), in plan order.
pub fn by_shape(plan: &Plan) -> Vec<Vec<&PagePlan>> {
    let mut groups: Vec<Vec<&PagePlan>> = Vec::new();
    let mut index: HashMap<(usize, Shape), usize> = HashMap::new();
    for page in &plan.pages {
        let i = *index.entry((page.entry, page.shape)).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[i].push(page);
    }
    groups
}

fn render(
    cx: &Context,
    page: &PagePlan,
    trees: &ShapeTrees,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let history = cx.history;
    let entry = &history.profiles[page.entry];
    let metric = &entry.profile.metrics[page.metric];
    let version = &history.versions[entry.version];
    let label = format!(
        "{} {} {}: {}",
        entry.benchmark, version.label, cx.plan.rep_names[page.entry], metric.name
    );
    let total = entry.profile.tree.total(page.metric);
    let code = CodeLinks {
        links: cx.links,
        version: entry.version,
        root: paths::root_of(&page.path),
    };
    let mut files = Vec::new();
    let mut graphs = Vec::new();
    let specs = graph_specs(cx, page, trees, &label, total, &code);
    // The page budget is shared by the page's graphs.
    let mut budget = flame_view::budget(&cx.config.flame);
    budget.max_frames = (budget.max_frames / specs.len().max(1)).max(1);
    for spec in specs {
        let graph = flame_view::layout(&spec, budget);
        let (view, svg) = flame_view::render(&spec, &graph, None, Default::default(), cx.renderer);
        graphs.push(view);
        files.push(svg);
    }
    let common = Common::new(cx.renderer, history, &page.path);
    let top_down_path = &cx.plan.by_entry[page.entry][page.metric];
    let view = ProfileView {
        benchmark: entry.benchmark.clone(),
        version: version.label.clone(),
        version_date: version.date.clone(),
        version_revision: version.revision.clone(),
        repetition: cx.plan.rep_names[page.entry].clone(),
        source: entry.source.clone(),
        format: entry.format.to_string(),
        metric: metric.name.clone(),
        shape: page.shape.name(),
        total: with_unit(total, &metric.unit),
        metrics: metric_links(cx.plan, page),
        shapes: shape_links(top_down_path, page.shape),
        repetitions: repetition_links(history, cx.plan, page),
        versions: version_links(history, cx.plan, page, &common.root),
        aggregate_href: super::aggregate_page::exists(
            history,
            &entry.benchmark,
            entry.version,
            &metric.name,
        )
        .then(|| {
            format!(
                "{}{}",
                common.root,
                paths::aggregate_page(&entry.benchmark, &version.name, &metric.name)
            )
        }),
        diffs: diff_links(cx, entry, &metric.name, page.shape, &common.root),
        table: table(cx, page, trees, &code),
        top: if page.shape == Shape::TopDown {
            top_by_self(cx.frames, entry, page.metric, 30)
        } else {
            Vec::new()
        },
        empty: total <= 0.0,
        graphs,
        common,
    };
    let html = cx.renderer.render("profile.html", &view)?;
    files.insert(0, (page.path.clone(), html.into_bytes()));
    Ok(files)
}

/// The trees one page draws: for top-down the profile's own; for the
/// other shapes the exclusive and the inclusive tree.
struct ShapeTrees<'a> {
    entry: &'a ProfileEntry,
    exclusive: Option<CallTree>,
    inclusive: Option<CallTree>,
    cut_depth: Option<usize>,
}

impl<'a> ShapeTrees<'a> {
    fn new(
        entry: &'a ProfileEntry,
        frames: &ShapeFrames,
        shape: Shape,
        min_fraction: f64,
    ) -> ShapeTrees<'a> {
        let tree = &entry.profile.tree;
        let (exclusive, inclusive, cut_depth) = match shape {
            Shape::TopDown => (None, None, None),
            Shape::BottomUp => {
                let e = shapes::bottom_up(tree, frames, Values::Exclusive, min_fraction);
                let i = shapes::bottom_up(tree, frames, Values::Inclusive, min_fraction);
                (Some(e.tree), Some(i.tree), e.cut_depth.or(i.cut_depth))
            }
            Shape::Flat => (
                Some(shapes::flat(tree, frames, Values::Exclusive)),
                Some(shapes::flat(tree, frames, Values::Inclusive)),
                None,
            ),
        };
        ShapeTrees {
            entry,
            exclusive,
            inclusive,
            cut_depth,
        }
    }
}

fn graph_specs<'a>(
    cx: &Context<'a>,
    page: &PagePlan,
    trees: &'a ShapeTrees,
    label: &str,
    total: f64,
    code: &'a CodeLinks<'a>,
) -> Vec<GraphSpec<'a>> {
    let metric = &trees.entry.profile.metrics[page.metric];
    let stem = page.path.trim_end_matches(".html");
    let spec = |tree: &'a CallTree, kind: &str, title: String, note: Option<String>, id: usize| {
        GraphSpec {
            tree,
            metric: page.metric,
            frames: &cx.frames.table,
            unit: &metric.unit,
            title,
            note,
            label: format!("{label} ({} {kind})", page.shape.name()),
            id: format!("pa-flame-{id}"),
            svg_path: if id == 0 {
                format!("{stem}.svg")
            } else {
                format!("{stem}.{kind}.svg")
            },
            words: if page.shape == Shape::TopDown {
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
    match (page.shape, &trees.exclusive, &trees.inclusive) {
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

/// The tree table of the page's shape: total and self per metric for
/// top-down, inclusive and exclusive per metric for the others, then the
/// derived metrics that are not additive.
fn table(cx: &Context, page: &PagePlan, trees: &ShapeTrees, code: &CodeLinks) -> TableView {
    let profile = &trees.entry.profile;
    let frames = &cx.frames.table;
    let totals = profile.totals();
    let caption = format!("Tree table, {}", page.shape.name());
    let merged;
    let (tree, inclusive, exclusive, words) = match (&trees.inclusive, &trees.exclusive) {
        (Some(i), Some(e)) => {
            merged = shapes::merge(&[i, e], &[]);
            let per = profile.metrics.len();
            let inclusive: Vec<Vec<f64>> = (0..per).map(|m| merged.inclusive(m)).collect();
            let exclusive: Vec<Vec<f64>> = (0..per).map(|m| merged.inclusive(per + m)).collect();
            (&merged, inclusive, exclusive, ["inclusive", "exclusive"])
        }
        _ => {
            let (inclusive, exclusive) = derived_metrics::tree_values(&profile.tree);
            (&profile.tree, inclusive, exclusive, ["total", "self"])
        }
    };
    let mut columns = Vec::new();
    for (m, metric) in profile.metrics.iter().enumerate() {
        for (word, values) in words.iter().zip([&inclusive[m], &exclusive[m]]) {
            columns.push(Column {
                heading: format!("{} {word}", metric.name),
                values: values.clone(),
                unit: &metric.unit,
                percent_of: Some(totals[m]),
            });
        }
    }
    let derived = derived_metrics::parse_all(&cx.config.metrics).unwrap_or_default();
    let evaluated = derived_metrics::evaluate(profile, &derived, &inclusive, &exclusive);
    let mut notes = Vec::new();
    for e in &evaluated {
        for (word, values) in words.iter().zip([&e.inclusive, &e.exclusive]) {
            columns.push(Column {
                heading: format!("{} {word}", e.name),
                values: values.iter().map(|v| v.unwrap_or(f64::NAN)).collect(),
                unit: &Unit::Count,
                percent_of: None,
            });
        }
        notes.push(match &e.zero_division {
            Some(z) => format!(
                "{} = {}; \"n/a\" where the formula divides by zero ({z}).",
                e.name, e.text
            ),
            None => format!("{} = {}.", e.name, e.text),
        });
    }
    let mut view = tree_table::build(
        caption,
        tree,
        frames,
        page.metric,
        &columns,
        2 * page.metric,
        Some(code),
    );
    view.notes = notes;
    view
}

fn metric_links(plan: &Plan, page: &PagePlan) -> Vec<Link> {
    plan.pages
        .iter()
        .filter(|p| p.entry == page.entry && p.shape == page.shape)
        .map(|p| Link {
            label: metric_label(&p.path),
            href: file_name(&p.path),
            current: p.metric == page.metric,
        })
        .collect()
}

/// The metric part of a page's file name, for link labels.
fn metric_label(path: &str) -> String {
    let name = file_name(path);
    let stem = name.trim_end_matches(".html");
    let stem = stem
        .strip_suffix(".bottom-up")
        .or_else(|| stem.strip_suffix(".flat"))
        .unwrap_or(stem);
    stem.split_once('.').map_or(stem, |(_, m)| m).to_string()
}

fn shape_links(top_down: &str, current: Shape) -> Vec<Link> {
    Shape::ALL
        .iter()
        .map(|&s| Link {
            label: s.name().to_string(),
            href: file_name(&shape_path(top_down, s)),
            current: s == current,
        })
        .collect()
}

/// The page for the same metric name and shape in another entry, else its
/// first metric's.
fn page_for(
    history: &History,
    plan: &Plan,
    entry: usize,
    metric_name: &str,
    shape: Shape,
) -> Option<String> {
    let m = history.profiles[entry]
        .profile
        .metrics
        .iter()
        .position(|m| m.name == metric_name)
        .unwrap_or(0);
    plan.by_entry[entry].get(m).map(|p| shape_path(p, shape))
}

fn repetition_links(history: &History, plan: &Plan, page: &PagePlan) -> Vec<Link> {
    let entry = &history.profiles[page.entry];
    let metric = &entry.profile.metrics[page.metric].name;
    (0..history.profiles.len())
        .filter(|&i| {
            history.profiles[i].benchmark == entry.benchmark
                && history.profiles[i].version == entry.version
        })
        .filter_map(|i| {
            let href = file_name(&page_for(history, plan, i, metric, page.shape)?);
            Some(Link {
                label: plan.rep_names[i].clone(),
                href,
                current: i == page.entry,
            })
        })
        .collect()
}

fn version_links(history: &History, plan: &Plan, page: &PagePlan, root: &str) -> Vec<Link> {
    let entry = &history.profiles[page.entry];
    let metric = &entry.profile.metrics[page.metric].name;
    let mut first: BTreeMap<usize, usize> = BTreeMap::new();
    for (i, p) in history.profiles.iter().enumerate() {
        if p.benchmark == entry.benchmark {
            first.entry(p.version).or_insert(i);
        }
    }
    first
        .into_iter()
        .filter_map(|(v, i)| {
            let href = format!("{root}{}", page_for(history, plan, i, metric, page.shape)?);
            Some(Link {
                label: history.versions[v].label.clone(),
                href,
                current: v == entry.version,
            })
        })
        .collect()
}

/// Differential pages that involve this profile's version, for its metric
/// and shape.
fn diff_links(
    cx: &Context,
    entry: &ProfileEntry,
    metric: &str,
    shape: Shape,
    root: &str,
) -> Vec<Link> {
    let Some(list) = cx.diffs.get(&(entry.benchmark.clone(), entry.version)) else {
        return Vec::new();
    };
    list.iter()
        .filter(|(_, path)| path.contains(&format!(".{}.", paths::slug(metric))))
        .map(|(label, path)| Link {
            label: label.clone(),
            href: format!("{root}{}", shape_path(path, shape)),
            current: false,
        })
        .collect()
}

/// The functions with the largest self value, summed over every context
/// they appear in; total counts each sample once even under recursion.
/// These are the function rows of the flat trees.
fn top_by_self(frames: &ShapeFrames, entry: &ProfileEntry, metric: usize, n: usize) -> Vec<TopRow> {
    let tree = &entry.profile.tree;
    let grand = tree.total(metric);
    let exclusive = shapes::flat(tree, frames, Values::Exclusive);
    let inclusive = shapes::flat(tree, frames, Values::Inclusive);
    let merged = shapes::merge(&[&exclusive, &inclusive], &[]);
    let per = tree.metric_count();
    let (self_by, total_by) = (merged.inclusive(metric), merged.inclusive(per + metric));
    let mut rows: Vec<NodeId> = merged
        .node_ids()
        .filter(|&n| merged.depth(n) == 3 && self_by[n.index()] > 0.0)
        .collect();
    rows.sort_by(|a, b| {
        self_by[b.index()]
            .total_cmp(&self_by[a.index()])
            .then(a.cmp(b))
    });
    let unit = &entry.profile.metrics[metric].unit;
    rows.into_iter()
        .take(n)
        .filter_map(|node| {
            let frame = frames.table.get(merged.frame(node)?);
            Some(TopRow {
                name: frame.function.clone(),
                location: frame.file.clone().unwrap_or_default(),
                self_value: with_unit(self_by[node.index()], unit),
                self_share: percent(self_by[node.index()], grand),
                total_value: with_unit(total_by[node.index()], unit),
                total_share: percent(total_by[node.index()], grand),
            })
        })
        .collect()
}
