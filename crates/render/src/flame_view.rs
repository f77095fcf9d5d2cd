//! One flame graph placed on a page: its layout, the inline SVG, the
//! standalone `.svg` written beside the page, the data the page script
//! reads (tooltips, zoom, search) and the note about merged frames. Used by
//! the profile, aggregate and differential pages alike.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::flame_svg::{self, Decor, FlameSvgInput, Words};
use super::format::{percent, with_unit};
use super::source_page::CodeLinks;
use super::{json_for_script, Renderer};
use analysis::flame::{self, FlameBudget, FlameGraph};
use config::FlameConfig;
use model::{CallTree, FrameTable, Unit};

/// What to draw.
pub struct GraphSpec<'a> {
    pub tree: &'a CallTree,
    pub metric: usize,
    /// The tree's inclusive values of `metric`, when the caller has them.
    pub inclusive: Option<&'a [f64]>,
    pub frames: &'a FrameTable,
    pub unit: &'a Unit,
    /// Heading above the graph.
    pub title: String,
    /// A sentence under the heading saying how to read it.
    pub note: Option<String>,
    /// Accessible label of the SVG.
    pub label: String,
    /// Element id, unique on the page.
    pub id: String,
    /// Site path of the standalone SVG.
    pub svg_path: String,
    pub words: Words,
    /// Denominator of percentages; the graph's own total when `None`.
    pub percent_of: Option<f64>,
    /// Source and editor links of frames, when the page has them.
    pub code: Option<&'a CodeLinks<'a>>,
}

/// A graph as a template places it.
#[derive(Serialize)]
pub struct GraphView {
    pub title: String,
    pub note: Option<String>,
    pub id: String,
    pub svg: String,
    /// The standalone SVG beside the page (`--svg-files`), else empty:
    /// the page offers "Save as SVG" instead.
    pub svg_href: String,
    /// File name "Save as SVG" suggests.
    pub save_name: String,
    pub data_json: String,
    pub merged_note: Option<String>,
    pub drawn_frames: usize,
    pub empty: bool,
}

/// The page budget from the configuration.
pub fn budget(config: &FlameConfig) -> FlameBudget {
    FlameBudget {
        max_frames: config.max_frames,
        min_fraction: config.min_width_px / flame_svg::WIDTH,
    }
}

/// Lays the graph out (callers that decorate frames need it first).
pub fn layout(spec: &GraphSpec, budget: FlameBudget) -> FlameGraph {
    match spec.inclusive {
        Some(inclusive) => {
            flame::layout_with(spec.tree, spec.frames, spec.metric, inclusive, budget)
        }
        None => flame::layout(spec.tree, spec.frames, spec.metric, budget),
    }
}

/// Extra per-frame data for the page script, by key (`diff`, `agg`).
pub type Extra = BTreeMap<&'static str, serde_json::Value>;

/// The inline view and the standalone SVG file `(path, bytes)`.
pub fn render(
    spec: &GraphSpec,
    graph: &FlameGraph,
    decor: Option<&[Decor]>,
    extra: Extra,
    renderer: &Renderer,
) -> (GraphView, Option<(String, Vec<u8>)>) {
    let percent_of = spec.percent_of.unwrap_or(graph.total);
    let input = FlameSvgInput {
        graph,
        frames: spec.frames,
        unit: spec.unit,
        label: &spec.label,
        id: &spec.id,
        words: spec.words,
        decor,
        percent_of,
    };
    let style = format!(
        "{}\n{}",
        renderer.theme_css(renderer.default_theme()),
        renderer.asset("perfatlas.css")
    );
    let (inline, standalone) = match renderer.svg_files() {
        true => {
            let (inline, standalone) =
                flame_svg::both_svgs(&input, &style, renderer.asset("flame-standalone.js"));
            (
                inline,
                Some((spec.svg_path.clone(), standalone.into_bytes())),
            )
        }
        false => (flame_svg::inline_svg(&input), None),
    };
    let data = page_data(spec, graph, percent_of, extra);
    let view = GraphView {
        title: spec.title.clone(),
        note: spec.note.clone(),
        id: spec.id.clone(),
        svg: inline,
        svg_href: match standalone {
            Some(_) => crate::paths::file_name(&spec.svg_path),
            None => String::new(),
        },
        save_name: crate::paths::file_name(&spec.svg_path),
        data_json: json_for_script(&data),
        merged_note: merged_note(graph, spec.unit, percent_of),
        drawn_frames: graph.rects.len(),
        empty: graph.total <= 0.0,
    };
    (view, standalone)
}

fn merged_note(graph: &FlameGraph, unit: &Unit, percent_of: f64) -> Option<String> {
    (graph.merged_nodes > 0).then(|| {
        format!(
            "{} frames too narrow to draw are merged into grey \"merged\" boxes under their callers; together {} ({} of the total).",
            super::format::grouped(graph.merged_nodes as f64),
            with_unit(graph.merged_value, unit),
            percent(graph.merged_value, percent_of)
        )
    })
}

/// Per-rectangle data the page script needs for tooltips, zoom and search:
/// `[parent, name index, location index, self, total]`.
#[derive(Serialize)]
struct PageData {
    unit: String,
    total: f64,
    words: &'static str,
    names: Vec<String>,
    locations: Vec<String>,
    /// Per location: the source page (with `#L<line>`) and the editor
    /// link, "" when there is none.
    links: Vec<(String, String)>,
    frames: Vec<(i64, usize, usize, f64, f64)>,
    #[serde(flatten)]
    extra: Extra,
}

fn page_data(spec: &GraphSpec, graph: &FlameGraph, percent_of: f64, extra: Extra) -> PageData {
    let mut names = Interner::default();
    let mut locations = Interner::default();
    let mut links = vec![(String::new(), String::new())];
    locations.get(String::new());
    let frames = graph
        .rects
        .iter()
        .map(|r| {
            let name = names.get(flame_svg::frame_label(spec.frames, r));
            let loc = locations.get(
                r.frame
                    .and_then(|f| spec.frames.get(f).location())
                    .unwrap_or_default(),
            );
            if loc == links.len() {
                let link = match (spec.code, r.frame) {
                    (Some(code), Some(f)) => code.of(spec.frames, f),
                    _ => Default::default(),
                };
                links.push(link);
            }
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
        unit: spec.unit.name().to_string(),
        total: percent_of,
        words: match spec.words {
            Words::TotalSelf => "total-self",
            Words::Value => "value",
        },
        names: names.list,
        locations: locations.list,
        links,
        frames,
        extra,
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
