//! The profile page: one per (benchmark, version, repetition, metric), with
//! a top-down flame graph (inline SVG, and a standalone `.svg` beside it),
//! the heaviest functions by self value, and links to the other metrics,
//! repetitions and versions of the same benchmark.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::flame_svg::{self, FlameSvgInput};
use super::format::{percent, with_unit};
use super::{json_for_script, paths, Common, Renderer};
use crate::analysis::flame::{self, FlameBudget, FlameGraph};
use crate::error::BuildError;
use crate::input::config::Config;
use crate::model::{FrameId, History, NodeId, ProfileEntry};

/// One page to write.
#[derive(Debug, Clone)]
pub struct PagePlan {
    /// Index into `History::profiles`.
    pub entry: usize,
    pub metric: usize,
    /// Site-relative path of the HTML page.
    pub path: String,
}

/// Every profile page, and where each profile's pages are.
#[derive(Debug, Default)]
pub struct Plan {
    pub pages: Vec<PagePlan>,
    /// For each profile entry, its pages' paths in metric order.
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
            let path = format!("{dir}/{rep}.{}.html", paths::slug(&metric.name));
            plan.pages.push(PagePlan {
                entry: i,
                metric: m,
                path: path.clone(),
            });
            metric_pages.push(path);
        }
        plan.by_entry.push(metric_pages);
        plan.rep_names.push(rep);
    }
    plan
}

#[derive(Serialize)]
struct Link {
    label: String,
    href: String,
    current: bool,
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
    unit: String,
    total: String,
    metrics: Vec<Link>,
    repetitions: Vec<Link>,
    versions: Vec<Link>,
    flame_svg: String,
    svg_href: String,
    drawn_frames: usize,
    merged_note: Option<String>,
    top: Vec<TopRow>,
    data_json: String,
    empty: bool,
}

/// Renders one page and its standalone SVG.
pub fn render(
    history: &History,
    config: &Config,
    renderer: &Renderer,
    plan: &Plan,
    page: &PagePlan,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let entry = &history.profiles[page.entry];
    let metric = &entry.profile.metrics[page.metric];
    let budget = FlameBudget {
        max_frames: config.flame.max_frames,
        min_fraction: config.flame.min_width_px / flame_svg::WIDTH,
    };
    let graph = flame::layout(&entry.profile.tree, &history.frames, page.metric, budget);
    let version = &history.versions[entry.version];
    let label = format!(
        "{} {} {}: {}",
        entry.benchmark, version.label, plan.rep_names[page.entry], metric.name
    );
    let svg_input = FlameSvgInput {
        graph: &graph,
        frames: &history.frames,
        unit: &metric.unit,
        label: &label,
    };
    let svg_path = page.path.replace(".html", ".svg");
    let common = Common::new(renderer, history, &page.path);
    let view = ProfileView {
        benchmark: entry.benchmark.clone(),
        version: version.label.clone(),
        version_date: version.date.clone(),
        version_revision: version.revision.clone(),
        repetition: plan.rep_names[page.entry].clone(),
        source: entry.source.clone(),
        format: entry.format.to_string(),
        metric: metric.name.clone(),
        unit: metric.unit.name().to_string(),
        total: with_unit(graph.total, &metric.unit),
        metrics: metric_links(entry, plan, page, &common.root),
        repetitions: repetition_links(history, plan, page, &common.root),
        versions: version_links(history, plan, page, &common.root),
        flame_svg: flame_svg::inline_svg(&svg_input),
        svg_href: file_name(&svg_path),
        drawn_frames: graph.rects.len(),
        merged_note: merged_note(&graph, &metric.unit),
        top: top_by_self(history, entry, page.metric, 30),
        data_json: json_for_script(&page_data(history, &graph, metric.unit.name())),
        empty: graph.total <= 0.0,
        common,
    };
    let html = renderer.render("profile.html", &view)?;
    let style = format!(
        "{}\n{}",
        renderer.theme_css(renderer.default_theme()),
        renderer.asset("perfatlas.css")
    );
    let svg = flame_svg::standalone_svg(&svg_input, &style, renderer.asset("flame-standalone.js"));
    Ok(vec![
        (page.path.clone(), html.into_bytes()),
        (svg_path, svg.into_bytes()),
    ])
}

fn file_name(path: &str) -> String {
    path.rsplit('/').next().unwrap_or(path).to_string()
}

fn metric_links(entry: &ProfileEntry, plan: &Plan, page: &PagePlan, _root: &str) -> Vec<Link> {
    entry
        .profile
        .metrics
        .iter()
        .zip(&plan.by_entry[page.entry])
        .enumerate()
        .map(|(m, (metric, path))| Link {
            label: metric.name.clone(),
            href: file_name(path),
            current: m == page.metric,
        })
        .collect()
}

/// The page for the same metric name in another entry, else its first page.
fn page_for(history: &History, plan: &Plan, entry: usize, metric_name: &str) -> Option<String> {
    let m = history.profiles[entry]
        .profile
        .metrics
        .iter()
        .position(|m| m.name == metric_name)
        .unwrap_or(0);
    plan.by_entry[entry].get(m).cloned()
}

fn repetition_links(history: &History, plan: &Plan, page: &PagePlan, _root: &str) -> Vec<Link> {
    let entry = &history.profiles[page.entry];
    let metric = &entry.profile.metrics[page.metric].name;
    (0..history.profiles.len())
        .filter(|&i| {
            history.profiles[i].benchmark == entry.benchmark
                && history.profiles[i].version == entry.version
        })
        .filter_map(|i| {
            let href = file_name(&page_for(history, plan, i, metric)?);
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
            let href = format!("{root}{}", page_for(history, plan, i, metric)?);
            Some(Link {
                label: history.versions[v].label.clone(),
                href,
                current: v == entry.version,
            })
        })
        .collect()
}

fn merged_note(graph: &FlameGraph, unit: &crate::model::Unit) -> Option<String> {
    (graph.merged_nodes > 0).then(|| {
        format!(
            "{} frames too narrow to draw are merged into grey \"merged\" boxes under their callers; together {} ({} of the total).",
            super::format::grouped(graph.merged_nodes as f64),
            with_unit(graph.merged_value, unit),
            percent(graph.merged_value, graph.total)
        )
    })
}

/// The functions with the largest self value, summed over every context
/// they appear in; total counts each sample once even under recursion.
fn top_by_self(history: &History, entry: &ProfileEntry, metric: usize, n: usize) -> Vec<TopRow> {
    let tree = &entry.profile.tree;
    let inclusive = tree.inclusive(metric);
    let grand = inclusive[0];
    // Functions are (name, file): frames that differ only by line merge.
    let mut function_of = vec![u32::MAX; history.frames.len()];
    let mut functions: Vec<FrameId> = Vec::new();
    let mut by_key: HashMap<(&str, Option<&str>), u32> = HashMap::new();
    let mut function_id = |f: FrameId| -> usize {
        let slot = &mut function_of[f.0 as usize];
        if *slot == u32::MAX {
            let frame = history.frames.get(f);
            *slot = *by_key
                .entry((frame.function.as_str(), frame.file.as_deref()))
                .or_insert_with(|| {
                    functions.push(f);
                    (functions.len() - 1) as u32
                });
        }
        *slot as usize
    };
    let (mut self_by, mut total_by, mut on_path) =
        (Vec::<f64>::new(), Vec::<f64>::new(), Vec::<u32>::new());
    // Depth-first with a count of each function on the current path, so a
    // recursive call adds its total only at its outermost occurrence.
    let mut stack: Vec<(NodeId, bool)> = tree
        .children(NodeId::ROOT)
        .iter()
        .rev()
        .map(|c| (*c, true))
        .collect();
    while let Some((node, entering)) = stack.pop() {
        let Some(frame) = tree.frame(node) else {
            continue;
        };
        let f = function_id(frame);
        if f >= self_by.len() {
            self_by.resize(f + 1, 0.0);
            total_by.resize(f + 1, 0.0);
            on_path.resize(f + 1, 0);
        }
        if !entering {
            on_path[f] = on_path[f].saturating_sub(1);
            continue;
        }
        self_by[f] += tree.self_value(node, metric);
        if on_path[f] == 0 {
            total_by[f] += inclusive[node.index()];
        }
        on_path[f] += 1;
        stack.push((node, false));
        stack.extend(tree.children(node).iter().rev().map(|c| (*c, true)));
    }
    let mut rows: Vec<(usize, f64)> = self_by
        .iter()
        .copied()
        .enumerate()
        .filter(|(_, v)| *v > 0.0)
        .collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let unit = &entry.profile.metrics[metric].unit;
    rows.into_iter()
        .take(n)
        .map(|(f, v)| {
            let frame = history.frames.get(functions[f]);
            TopRow {
                name: frame.function.clone(),
                location: frame.file.clone().unwrap_or_default(),
                self_value: with_unit(v, unit),
                self_share: percent(v, grand),
                total_value: with_unit(total_by[f], unit),
                total_share: percent(total_by[f], grand),
            }
        })
        .collect()
}

/// Per-rectangle data the page script needs for tooltips, zoom and search:
/// `[parent, name index, location index, self, total]`.
#[derive(Serialize)]
struct PageData {
    unit: String,
    total: f64,
    names: Vec<String>,
    locations: Vec<String>,
    frames: Vec<(i64, usize, usize, f64, f64)>,
}

fn page_data(history: &History, graph: &FlameGraph, unit: &str) -> PageData {
    let mut names = Interner::default();
    let mut locations = Interner::default();
    locations.get(String::new());
    let frames = graph
        .rects
        .iter()
        .map(|r| {
            let name = names.get(flame_svg::frame_label(&history.frames, r));
            let loc = locations.get(
                r.frame
                    .and_then(|f| history.frames.get(f).location())
                    .unwrap_or_default(),
            );
            (
                r.parent.map_or(-1, |p| p as i64),
                name,
                loc,
                r.self_value,
                r.total,
            )
        })
        .collect();
    PageData {
        unit: unit.to_string(),
        total: graph.total,
        names: names.list,
        locations: locations.list,
        frames,
    }
}

#[derive(Default)]
struct Interner {
    list: Vec<String>,
    index: HashMap<String, usize>,
}

impl Interner {
    fn get(&mut self, s: String) -> usize {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        self.list.push(s.clone());
        self.index.insert(s, self.list.len() - 1);
        self.list.len() - 1
    }
}
