//! One flame graph placed on a page: its layout, the inline SVG, the
//! standalone `.svg` written beside the page, the data the page script
//! reads (tooltips, zoom, search) and the note about merged frames. Used by
//! the profile, aggregate and differential pages alike.

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::code_links::{CodeLinks, LocationLinks};
use super::flame_svg::{self, Decor, FlameSvgInput, Words};
use super::format::{percent, with_unit};
use super::Renderer;
use analysis::flame::{self, FlameBudget, FlameGraph};
use config::FlameConfig;
use model::{CallTree, FrameId, FrameTable, Unit};

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
#[derive(Serialize, Clone)]
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
    layout_sharing(spec, budget, None)
}

/// [`layout`], with the subtree sizes of the tree's other layouts
/// ([`flame::SubtreeSizes`]).
pub fn layout_sharing(
    spec: &GraphSpec,
    budget: FlameBudget,
    sizes: Option<&flame::SubtreeSizes>,
) -> FlameGraph {
    match spec.inclusive {
        Some(inclusive) => {
            let values = (spec.metric, inclusive);
            flame::layout_sharing(spec.tree, spec.frames, values, budget, sizes)
        }
        None => flame::layout(spec.tree, spec.frames, spec.metric, budget),
    }
}

/// Extra per-frame data for the page script, by key (`diff`, `agg`).
pub type Extra = BTreeMap<&'static str, serde_json::Value>;

/// A graph the page's script draws from data (one of a page's views not
/// shown without JavaScript), its names, locations and links in `tables`,
/// which the page's graphs share; and its standalone SVG (`--svg-files`).
pub fn script_graph(
    spec: &GraphSpec,
    graph: &FlameGraph,
    (decor, extra): (Option<&[Decor]>, Extra),
    tables: &mut Tables,
    renderer: &Renderer,
) -> (ScriptGraph, Option<(String, Vec<u8>)>) {
    let percent_of = spec.percent_of.unwrap_or(graph.total);
    let input = svg_input(spec, graph, decor, percent_of);
    let standalone = standalone(&input, &spec.svg_path, renderer);
    let view = view(spec, graph, &standalone, percent_of);
    let graph = ScriptGraph {
        label: spec.label.clone(),
        height: flame_svg::height(graph),
        data: page_data(spec, graph, percent_of, extra, tables),
        view,
    };
    (graph, standalone)
}

/// The data of a graph the page's script draws in place of another (a
/// differential graph on the older version's widths): no SVG, no view;
/// its names and locations go into `tables`.
pub fn page_data_only(
    spec: &GraphSpec,
    graph: &FlameGraph,
    extra: Extra,
    tables: &mut Tables,
) -> PageData {
    let percent_of = spec.percent_of.unwrap_or(graph.total);
    page_data(spec, graph, percent_of, extra, tables)
}

/// The graph a page shows without JavaScript, drawn inline, whose data
/// is one of the page's [`script_graph`]s.
pub fn inline_view(
    spec: &GraphSpec,
    script: &ScriptGraph,
    graph: &FlameGraph,
    decor: Option<&[Decor]>,
) -> GraphView {
    let input = svg_input(spec, graph, decor, script.data.total);
    GraphView {
        svg: flame_svg::inline_svg(&input),
        ..script.view.clone()
    }
}

fn svg_input<'a>(
    spec: &'a GraphSpec,
    graph: &'a FlameGraph,
    decor: Option<&'a [Decor]>,
    percent_of: f64,
) -> FlameSvgInput<'a> {
    FlameSvgInput {
        graph,
        frames: spec.frames,
        unit: spec.unit,
        label: &spec.label,
        id: &spec.id,
        words: spec.words,
        decor,
        percent_of,
    }
}

/// The standalone SVG file, with `--svg-files`.
fn standalone(input: &FlameSvgInput, path: &str, renderer: &Renderer) -> Option<(String, Vec<u8>)> {
    if !renderer.svg_files() {
        return None;
    }
    let style = format!(
        "{}\n{}",
        renderer.theme_css(renderer.default_theme()),
        renderer.asset("perfatlas.css")
    );
    let svg = flame_svg::standalone_svg(input, &style, renderer.asset("flame-standalone.js"));
    Some((path.to_string(), svg.into_bytes()))
}

/// Everything of the view but its inline SVG and data.
fn view(
    spec: &GraphSpec,
    graph: &FlameGraph,
    standalone: &Option<(String, Vec<u8>)>,
    percent_of: f64,
) -> GraphView {
    GraphView {
        title: spec.title.clone(),
        note: spec.note.clone(),
        id: spec.id.clone(),
        svg: String::new(),
        svg_href: match standalone {
            Some(_) => crate::paths::file_name(&spec.svg_path),
            None => String::new(),
        },
        save_name: crate::paths::file_name(&spec.svg_path),
        merged_note: merged_note(graph, spec.unit, percent_of),
        drawn_frames: graph.rects.len(),
        empty: graph.total <= 0.0,
    }
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

/// A graph of a page's views, for the page's script to draw.
#[derive(Serialize)]
pub struct ScriptGraph {
    #[serde(flatten)]
    pub view: GraphView,
    /// Accessible label of the SVG.
    pub label: String,
    pub height: f64,
    pub data: PageData,
}

/// Per-rectangle data the page script needs to draw a graph and for its
/// tooltips, zoom and search: `[parent, name index, location index, self,
/// total, colour]`, colour being the class `c<colour>`, or -1 for the root
/// and -2 for a box of merged frames.
#[derive(Serialize)]
pub struct PageData {
    unit: String,
    pub total: f64,
    words: &'static str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    names: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<String>,
    /// Per location: the source page (with `#L<line>`), the editor link
    /// and the method section, "" when there is none (see
    /// [`LocationLinks`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    links: Vec<LocationLinks>,
    #[serde(skip_serializing_if = "Option::is_none")]
    frames: Option<Vec<FrameRow>>,
    /// Index of the frames in the page's shared list, when they are there
    /// instead (see [`super::views`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    frames_at: Option<usize>,
    /// The frames' values are this many times smaller than the profile's
    /// (the largest power of ten dividing them all: sampled times are
    /// whole multiples of the interval); absent for 1.
    #[serde(skip_serializing_if = "is_one")]
    scale: f64,
    /// A bottom-up or flat graph the page's script derives from the
    /// profile's tree (see [`super::shape_source`]) instead of reading
    /// stored frames.
    #[serde(skip_serializing_if = "Option::is_none")]
    derive: Option<Derive>,
    #[serde(flatten)]
    extra: Extra,
}

/// Which derived graph the script draws: `analysis::shapes`' shape and
/// values, laid out within `max_frames`.
#[derive(Serialize, Clone, Copy, Debug, PartialEq)]
pub struct Derive {
    pub shape: &'static str,
    pub values: &'static str,
    pub max_frames: usize,
}

fn is_one(v: &f64) -> bool {
    *v == 1.0
}

/// The largest power of ten, up to 10^9, that divides every value.
pub(crate) fn common_scale(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let mut scale = 1e9;
    while scale > 1.0 {
        if values
            .clone()
            .all(|v| v.fract() == 0.0 && (v / scale).fract() == 0.0)
        {
            return scale;
        }
        scale /= 10.0;
    }
    1.0
}

/// `v` to nine significant digits: frame values only place boxes (to a
/// hundredth of a pixel) and add up search results, and means such as
/// `3333333.3333333335` were a third of a differential page. Whole values
/// stay as they are.
pub fn significant(v: f64) -> f64 {
    if v.fract() == 0.0 || !v.is_finite() || v == 0.0 {
        return v;
    }
    let digits = 8 - v.abs().log10().floor() as i32;
    match digits {
        0..=300 => {
            let p = 10f64.powi(digits);
            (v * p).round() / p
        }
        // A billion and more (times in nanoseconds, scaled samples):
        // `1439999999.9999995` is `1440000000`.
        -300..=-1 => {
            let p = 10f64.powi(-digits);
            (v / p).round() * p
        }
        _ => v,
    }
}

/// One frame of page data.
pub type FrameRow = (i64, usize, usize, Number, Number, i8);

impl PageData {
    /// Moves the frames to a page's shared list: `place` stores them and
    /// says where.
    /// Marks the graph as derived by the page's script: its frames are
    /// dropped unless `keep_frames` (for tests that compare the two).
    pub fn derive_instead(&mut self, derive: Derive, keep_frames: bool) {
        self.derive = Some(derive);
        if !keep_frames {
            // A differential graph's per-frame changes are derived too.
            self.frames = None;
            self.extra.remove("diff");
        }
    }

    /// Replaces the extra data under `key` (`agg`, once the script
    /// derives its per-frame part).
    pub fn set_extra(&mut self, key: &'static str, value: serde_json::Value) {
        self.extra.insert(key, value);
    }

    pub fn share_frames(&mut self, place: impl FnOnce(Vec<FrameRow>) -> usize) {
        if let Some(frames) = self.frames.take() {
            self.frames_at = Some(place(frames));
        }
    }
}

/// A value in page data: integral values without a fraction (most are),
/// which keeps the data a third shorter.
#[derive(Clone, Copy)]
pub struct Number(pub f64);

impl Serialize for Number {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.fract() == 0.0 && v.abs() < 9.0e15 {
            s.serialize_i64(v as i64)
        } else {
            s.serialize_f64(v)
        }
    }
}

/// A value as JSON, as [`Number`] writes it.
pub fn number_json(v: f64) -> serde_json::Value {
    serde_json::to_value(Number(v)).unwrap_or(serde_json::Value::Null)
}

/// Names, locations and their links, as indices in page data: one set per
/// graph, or one shared by every graph of a page's views.
#[derive(Clone)]
pub struct Tables {
    names: Interner,
    /// Full names (see `model::Frame::full_name`) by name index, for
    /// names that have one; such names are not shared with the others.
    full: HashMap<usize, String>,
    full_index: HashMap<(String, String), usize>,
    /// Locations, each with its links in `links`: a location appears once
    /// per distinct set of links (two functions of one file, which share
    /// their location once lines are folded, link different methods and
    /// lines).
    locations: Vec<String>,
    links: Vec<LocationLinks>,
    /// The first index of each location (see [`Tables::find_location`]).
    first_location: FxHashMap<String, usize>,
    /// The index of each (location, links).
    location_index: FxHashMap<(String, LocationLinks), usize>,
    /// The index each frame was given (its location and links are the
    /// same wherever the page shows it).
    by_frame: FxHashMap<FrameId, usize>,
    /// The `[flame] editor` template: editor links the script can make
    /// from their location are stored as "" (see [`Tables::location`]).
    editor: String,
}

impl Tables {
    /// Tables whose editor links the script makes from `editor`.
    pub fn with_editor(editor: &str) -> Tables {
        let none = (String::new(), LocationLinks::default());
        Tables {
            names: Interner::default(),
            full: HashMap::new(),
            full_index: HashMap::new(),
            locations: vec![String::new()],
            links: vec![LocationLinks::default()],
            first_location: FxHashMap::from_iter([(String::new(), 0)]),
            location_index: FxHashMap::from_iter([(none, 0)]),
            by_frame: FxHashMap::default(),
            editor: editor.to_string(),
        }
    }

    /// Index of a location with its links.
    pub fn location(&mut self, location: String, links: LocationLinks) -> usize {
        // No location and no link: entry 0 (the root, merged frames).
        if location.is_empty() && links == LocationLinks::default() {
            return 0;
        }
        let mut links = links;
        links.editor = self.compact_editor(&location, links.editor);
        let key = (location, links);
        if let Some(&i) = self.location_index.get(&key) {
            return i;
        }
        let i = self.locations.len();
        self.first_location.entry(key.0.clone()).or_insert(i);
        self.locations.push(key.0.clone());
        self.links.push(key.1.clone());
        self.location_index.insert(key, i);
        i
    }

    /// Index of `frame`'s location with its links, made on the frame's
    /// first sight (`None`: a row without a frame).
    pub fn frame_location(
        &mut self,
        frame: Option<FrameId>,
        location: impl FnOnce() -> String,
        links: impl FnOnce() -> LocationLinks,
    ) -> usize {
        let Some(frame) = frame else {
            return self.location(location(), links());
        };
        if let Some(&i) = self.by_frame.get(&frame) {
            return i;
        }
        let i = self.location(location(), links());
        self.by_frame.insert(frame, i);
        i
    }

    /// An editor link as stored: "" when the script makes the same link
    /// from the location and the template (a link per location was a
    /// twentieth of a profile page), "-" for no link, else the link.
    fn compact_editor(&self, location: &str, editor: String) -> String {
        if self.editor.is_empty() {
            return editor;
        }
        if editor.is_empty() {
            return "-".to_string();
        }
        match super::code_links::editor_link_of_location(&self.editor, location) {
            Some(made) if made == editor => String::new(),
            _ => editor,
        }
    }

    /// The editor template the page's script needs.
    pub fn editor(&self) -> &str {
        &self.editor
    }

    pub fn name(&mut self, name: String) -> usize {
        self.names.get(name)
    }

    /// Index of a name that has a full name besides (tooltips show both).
    pub fn name_with_full(&mut self, name: String, full: Option<&str>) -> usize {
        let Some(full) = full else {
            return self.name(name);
        };
        let key = (name, full.to_string());
        if let Some(&i) = self.full_index.get(&key) {
            return i;
        }
        let i = self.names.list.len();
        self.names.list.push(key.0.clone());
        self.full.insert(i, key.1.clone());
        self.full_index.insert(key, i);
        i
    }

    /// The index of `name` if the tables hold it (as a name without a
    /// full name).
    pub fn find_name(&self, name: &str) -> Option<usize> {
        self.names.index.get(name).copied()
    }

    /// The index of `location` if the tables hold it.
    pub fn find_location(&self, location: &str) -> Option<usize> {
        self.first_location.get(location).copied()
    }

    /// `names`, `locations` and `links`, for a page's view data.
    pub fn into_parts(self) -> (Vec<String>, Vec<String>, Vec<LocationLinks>) {
        (self.names.list, self.locations, self.links)
    }

    /// How many names and locations there are.
    pub fn lengths(&self) -> (usize, usize) {
        (self.names.list.len(), self.locations.len())
    }

    /// The full name of every name index ("" for none), or nothing when
    /// no name has one.
    pub fn full_names(&self) -> Vec<String> {
        if self.full.is_empty() {
            return Vec::new();
        }
        (0..self.names.list.len())
            .map(|i| self.full.get(&i).cloned().unwrap_or_default())
            .collect()
    }
}

fn page_data(
    spec: &GraphSpec,
    graph: &FlameGraph,
    percent_of: f64,
    extra: Extra,
    tables: &mut Tables,
) -> PageData {
    let scale = common_scale(graph.rects.iter().flat_map(|r| [r.self_value, r.total]));
    let frames = graph
        .rects
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let label = flame_svg::frame_label(spec.frames, r);
            let colour = match (i, r.node) {
                (0, _) => -1,
                (_, None) => -2,
                _ => flame_svg::colour_index(&label) as i8,
            };
            let full = r
                .frame
                .and_then(|f| spec.frames.get(f).full_name.as_deref());
            let name = tables.name_with_full(label, full);
            // Made only for a frame the tables do not hold yet.
            let location = || {
                r.frame
                    .and_then(|f| spec.frames.get(f).location())
                    .unwrap_or_default()
            };
            let loc = tables.frame_location(r.frame, location, || match (spec.code, r.frame) {
                (Some(code), Some(f)) => code.of(spec.frames, f),
                _ => Default::default(),
            });
            (
                r.parent.map_or(-1, |p| p as i64),
                name,
                loc,
                Number(significant(r.self_value / scale)),
                Number(significant(r.total / scale)),
                colour,
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
        names: Vec::new(),
        locations: Vec::new(),
        links: Vec::new(),
        frames: Some(frames),
        frames_at: None,
        scale,
        derive: None,
        extra,
    }
}

/// Strings by index in first-seen order; looked up once per frame of
/// every view of a page, so by a fast hash (the order does not depend on
/// it).
#[derive(Default, Clone)]
struct Interner {
    list: Vec<String>,
    index: FxHashMap<String, usize>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_nine_significant_digits_and_whole_values_stay_whole() {
        assert_eq!(significant(3333333.3333333335), 3333333.33);
        assert_eq!(significant(120.33333333333333), 120.333333);
        assert_eq!(significant(0.000123456789123), 0.000123456789);
        assert_eq!(significant(-2.0 / 3.0), -0.666666667);
        assert_eq!(significant(1439999999.9999995), 1440000000.0);
        assert_eq!(significant(-1526666666.6666665), -1526666670.0);
        for whole in [0.0, 1.0, 1260000000.0, 36893488147419103232.0] {
            assert_eq!(significant(whole), whole);
        }
        // Written as the shortest decimal of the rounded value.
        assert_eq!(
            serde_json::to_string(&Number(significant(120.33333333333333))).unwrap(),
            "120.333333"
        );
        assert_eq!(
            serde_json::to_string(&Number(1.26e9)).unwrap(),
            "1260000000"
        );
    }

    #[test]
    fn editor_links_the_script_can_make_are_not_stored() {
        let mut t = Tables::with_editor("vscode://file/{path}:{line}");
        let link = |e: &str| {
            let e = e.to_string();
            LocationLinks::code(String::new(), e)
        };
        let made = t.location(
            "<frozen importlib._bootstrap>:1176".into(),
            link("vscode://file/%3Cfrozen%20importlib._bootstrap%3E:1176"),
        );
        // A line 0 is not in the location: the link says it, so it stays.
        let kept = t.location("/app/x.py".into(), link("vscode://file/app/x.py:0"));
        let none = t.location("[native]".into(), link(""));
        let (_, _, links) = t.into_parts();
        assert_eq!(links[made].editor, "");
        assert_eq!(links[kept].editor, "vscode://file/app/x.py:0");
        assert_eq!(links[none].editor, "-");
        assert_eq!(
            crate::code_links::editor_link_of_location("e://{path}#{line}", "/a b/c.py"),
            Some("e://a%20b/c.py#1".to_string())
        );
        assert_eq!(
            crate::code_links::editor_link_of_location("e://{path}#{line}", "/a/c.py:12"),
            Some("e://a/c.py#12".to_string())
        );
        assert_eq!(
            crate::code_links::editor_link_of_location(
                "vscode://file/{path}:{line}",
                "file:///w/node_modules/m/m.js:7"
            ),
            Some("vscode://file/w/node_modules/m/m.js:7".to_string())
        );
    }
}
