//! Allocation-site pages (Allocation Sites paper, section III): one per
//! benchmark and version with allocation data, at
//! `alloc/BENCHMARK/VERSION.html`, with the tree as inline SVG (also
//! written beside the page as a standalone `.svg`), the class list with
//! each class's change since the previous version, and the data the
//! page's script needs to exclude classes, highlight paths and expand
//! collapsed parts.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::Link;

use super::code_links::SourceLinks;
use super::format::{grouped, signed_percent, with_unit};
use super::svg::{coord, SvgWriter};
use super::{json_for_script, paths, Common, Rendered, Renderer};
use analysis::allocation::layout::{self, Layout, Scale};
use analysis::allocation::trees::{Entry, Trees};
use analysis::allocation::view::{self, Choice, Item, ItemKind};
use analysis::allocation::AllocTree;
use model::{ClassSource, CountKind, FrameTable, History, Unit};

use crate::page_kind::{Job, PageKind, SitePlan};

#[derive(Serialize)]
struct ClassRow {
    index: i64,
    name: String,
    colour: String,
    count: String,
    bytes: String,
    live: String,
    /// Bar width in percent of the largest class.
    bar: String,
    change: String,
    /// "pa-bad" for more, "pa-good" for fewer, "" otherwise.
    change_class: String,
}

#[derive(Serialize)]
struct PageView {
    #[serde(flatten)]
    common: Common,
    benchmark: String,
    version: String,
    notes: Vec<String>,
    /// The notes of the inputs (`FILE: note`), e.g. samples a V8 heap
    /// profile could not place.
    input_notes: Vec<String>,
    totals: String,
    drawn: String,
    svg: String,
    /// The standalone SVG (`--svg-files`), else empty ("Save as SVG").
    svg_href: String,
    save_name: String,
    classes: Vec<ClassRow>,
    /// What the class list is ranked by, as a sentence.
    ranking: String,
    below_unit: String,
    /// "class", or "allocating function" when the input records no type.
    class_noun: &'static str,
    has_live: bool,
    previous: Option<Link>,
    next: Option<Link>,
    flame: Vec<Link>,
    data: String,
}

/// The memory flame-graph pages of a benchmark in a version, as (metric,
/// site path).
pub type MemoryPages<'a> = dyn Fn(&str, usize) -> Vec<(String, String)> + Sync + 'a;

/// Renders every allocation page and its standalone SVG.
pub fn pages(
    history: &History,
    renderer: &Renderer,
    plan: &Trees,
    links: &SourceLinks,
    flame_pages: &MemoryPages<'_>,
) -> Vec<Rendered> {
    (0..plan.entries.len())
        .into_par_iter()
        .map(|i| render(history, renderer, plan, i, links, flame_pages))
        .collect()
}

fn render(
    history: &History,
    renderer: &Renderer,
    plan: &Trees,
    at: usize,
    links: &SourceLinks,
    flame_pages: &MemoryPages<'_>,
) -> Rendered {
    let entry = &plan.entries[at];
    let tree = &entry.tree;
    let version = &history.versions[entry.version];
    let path = paths::allocation_page(&entry.benchmark, &version.name);
    let common = Common::new(renderer, history, &path);
    let colours: Vec<String> = tree
        .classes
        .iter()
        .map(|c| plan.palette.colour(c))
        .collect();
    let items = view::items(tree, &Choice::initial());
    let scale = Scale::of(tree);
    let geometry = layout::layout(tree, &items, &scale);
    let hrefs = node_links(tree, &history.frames, links, entry.version, &common.root);
    let svg = tree_svg(
        tree,
        &items,
        &geometry,
        &colours,
        &hrefs,
        &history.frames,
        false,
    );
    let svg_path = path.replace(".html", ".svg");
    let page_link = |e: &Entry| Link {
        label: history.versions[e.version].label.clone(),
        href: format!(
            "{}{}",
            common.root,
            paths::allocation_page(&e.benchmark, &history.versions[e.version].name)
        ),
        current: false,
    };
    let view = PageView {
        benchmark: entry.benchmark.clone(),
        version: version.label.clone(),
        notes: notes(tree),
        input_notes: history
            .profiles_of(&entry.benchmark, entry.version)
            .flat_map(|p| p.profile.notes.iter().map(|n| format!("{}: {n}", p.source)))
            .collect(),
        totals: totals_text(tree),
        drawn: drawn_text(tree, &items),
        svg: svg.clone(),
        svg_href: match renderer.svg_files() {
            true => paths::file_name(&svg_path),
            false => String::new(),
        },
        save_name: paths::file_name(&svg_path),
        classes: class_rows(tree, plan.previous(at).map(|p| &p.tree), &colours),
        ranking: ranking_text(tree),
        has_live: class_live(tree).iter().any(Option::is_some),
        class_noun: class_noun(tree),
        below_unit: match tree.count_kind {
            CountKind::Objects => "instances",
            CountKind::Samples => "samples",
            CountKind::Unknown => "bytes",
        }
        .to_string(),
        previous: plan.previous(at).map(page_link),
        next: plan.next(at).map(page_link),
        flame: flame_pages(&entry.benchmark, entry.version)
            .into_iter()
            .map(|(label, p)| Link {
                label,
                href: format!("{}{p}", common.root),
                current: false,
            })
            .collect(),
        data: json_for_script(&page_data(tree, &colours, &hrefs, &history.frames)),
        common,
    };
    let html = renderer.render("allocation.html", &view)?;
    if !renderer.svg_files() {
        return Ok(vec![(path, html.into_bytes())]);
    }
    let standalone = tree_svg(
        tree,
        &items,
        &geometry,
        &colours,
        &hrefs,
        &history.frames,
        true,
    );
    Ok(vec![
        (path, html.into_bytes()),
        (svg_path, standalone.into_bytes()),
    ])
}

/// What the class list's and the popups' rows are.
fn class_noun(tree: &AllocTree) -> &'static str {
    match tree.class_source {
        ClassSource::Recorded => "class",
        ClassSource::AllocatingFunction => "allocating function",
    }
}

/// What the counts, classes, bytes and order mean for this input.
fn notes(tree: &AllocTree) -> Vec<String> {
    let mut notes = Vec::new();
    notes.push(match tree.count_kind {
        CountKind::Objects => "Box area ∝ objects created.".to_string(),
        CountKind::Samples => "Box area ∝ sampled allocations: the profiler records a sample of the allocations, so counts are proportional to the objects created only as far as its sampling is fair.".to_string(),
        CountKind::Unknown => "The input has no object counts: box area ∝ bytes allocated.".to_string(),
    });
    if tree.class_source == ClassSource::AllocatingFunction {
        notes.push("This profiler records no allocated type: each box stands for the allocating function itself.".to_string());
    }
    if let Some(note) = &tree.bytes_note {
        notes.push(format!("Memory: {note}."));
    }
    if !tree.bytes_known {
        notes.push("The input has no sizes: memory is not shown.".to_string());
    }
    notes.push(if tree.call_order {
        "Children are in call order, top to bottom.".to_string()
    } else {
        "The input has no time order: children are in order of first appearance, top to bottom."
            .to_string()
    });
    if tree.repetitions > 1 {
        notes.push(format!(
            "Figures are the mean of {} repetitions.",
            tree.repetitions
        ));
    }
    if !tree.has_calls() {
        notes.push("The input has no call counts: every edge has the same width.".to_string());
    }
    notes
}

/// "Classes ranked by allocated bytes (sampled weights)."
fn ranking_text(tree: &AllocTree) -> String {
    let what = match tree.class_source {
        ClassSource::Recorded => "Classes",
        ClassSource::AllocatingFunction => "Allocating functions",
    };
    format!("{what} ranked by {}.", tree.ranking())
}

fn count_text(tree: &AllocTree, count: f64) -> String {
    match tree.count_kind {
        CountKind::Unknown => "—".to_string(),
        _ => grouped(count),
    }
}

fn bytes_text(tree: &AllocTree, bytes: f64) -> String {
    if tree.bytes_known {
        with_unit(bytes, &Unit::Bytes)
    } else {
        "—".to_string()
    }
}

fn totals_text(tree: &AllocTree) -> String {
    let (count, bytes) = tree.inclusive()[0];
    let mut parts = Vec::new();
    if tree.count_kind != CountKind::Unknown {
        parts.push(format!("{} {}", grouped(count), tree.count_kind.noun()));
    }
    if tree.bytes_known {
        parts.push(with_unit(bytes, &Unit::Bytes));
    }
    format!(
        "{} of {} classes, created in {} calling contexts",
        parts.join(", "),
        tree.classes.len(),
        tree.nodes.len() - 1
    )
}

fn drawn_text(tree: &AllocTree, items: &[Item]) -> String {
    let chains = items
        .iter()
        .filter(|i| matches!(i.kind, ItemKind::Chain(_)))
        .count();
    let groups = items
        .iter()
        .filter(|i| matches!(i.kind, ItemKind::Group(_)))
        .count();
    if chains + groups == 0 {
        return String::new();
    }
    format!(
        "{} of {} contexts drawn: {chains} chain{} of contexts that only pass calls on, and {groups} group{} of branches under {} of the total each, are collapsed (click ⋯ or + to open them).",
        items.len() - chains - groups - 1,
        tree.nodes.len() - 1,
        if chains == 1 { "" } else { "s" },
        if groups == 1 { "" } else { "s" },
        super::format::percent(view::DEFAULT_SHARE, 1.0),
    )
}

/// The class list: ranked by [`AllocTree::ranking`] (allocated bytes where
/// the input has sampled weights, instances where it has exact counts),
/// then classes gone since the previous version.
fn class_rows(tree: &AllocTree, previous: Option<&AllocTree>, colours: &[String]) -> Vec<ClassRow> {
    let by_bytes = tree.by_bytes();
    let size = |t: (f64, f64)| if by_bytes { t.1 } else { t.0 };
    let rank = |t: (f64, f64)| tree.rank_amount(t);
    let totals = tree.class_totals();
    let live = class_live(tree);
    let before: BTreeMap<&str, f64> = previous
        .map(|p| {
            p.classes
                .iter()
                .map(String::as_str)
                .zip(
                    p.class_totals()
                        .into_iter()
                        .map(|t| if p.by_bytes() { t.1 } else { t.0 }),
                )
                .collect()
        })
        .unwrap_or_default();
    // Sampled counts depend on how long the profiler ran and its throttle,
    // not only on the program: compare each class's share of the samples.
    let shares = tree.count_kind == CountKind::Samples;
    let share_base = |sizes: &mut dyn Iterator<Item = f64>| {
        if shares {
            sizes.sum::<f64>().max(f64::MIN_POSITIVE)
        } else {
            1.0
        }
    };
    let now_scale = share_base(&mut totals.iter().map(|&t| size(t)));
    let before_scale = share_base(&mut before.values().copied());
    let before: BTreeMap<&str, f64> = before
        .into_iter()
        .map(|(k, v)| (k, v / before_scale))
        .collect();
    let largest = totals.iter().map(|&t| rank(t)).fold(0.0, f64::max);
    let mut order: Vec<usize> = (0..tree.classes.len()).collect();
    order.sort_by(|&a, &b| {
        rank(totals[b])
            .total_cmp(&rank(totals[a]))
            .then_with(|| tree.classes[a].cmp(&tree.classes[b]))
    });
    let mut rows: Vec<ClassRow> = order
        .into_iter()
        .map(|c| {
            let now = size(totals[c]) / now_scale;
            let (change, change_class) = match (previous, before.get(tree.classes[c].as_str())) {
                (None, _) => (String::new(), ""),
                (Some(_), None) => ("new".to_string(), "pa-bad"),
                (Some(_), Some(&was)) if was > 0.0 => {
                    let rel = (now - was) / was;
                    match rel {
                        r if r > 0.0 => (signed_percent(r), "pa-bad"),
                        r if r < 0.0 => (signed_percent(r), "pa-good"),
                        _ => ("no change".to_string(), ""),
                    }
                }
                (Some(_), Some(_)) => ("new".to_string(), "pa-bad"),
            };
            ClassRow {
                index: c as i64,
                name: tree.classes[c].clone(),
                colour: colours[c].clone(),
                count: count_text(tree, totals[c].0),
                bytes: bytes_text(tree, totals[c].1),
                live: live[c]
                    .map(|(lc, lb)| live_text(tree, lc, lb))
                    .unwrap_or_default(),
                // The ranked amount against the largest class's: the bars
                // shorten down the list (`now` may be a share).
                bar: format!(
                    "{:.1}",
                    if largest > 0.0 {
                        rank(totals[c]) / largest * 100.0
                    } else {
                        0.0
                    }
                ),
                change,
                change_class: change_class.to_string(),
            }
        })
        .collect();
    let present: std::collections::BTreeSet<&str> =
        tree.classes.iter().map(String::as_str).collect();
    for (name, &was) in &before {
        if !present.contains(name) {
            rows.push(ClassRow {
                index: -1,
                name: name.to_string(),
                colour: String::new(),
                count: count_text(tree, 0.0),
                bytes: bytes_text(tree, 0.0),
                live: String::new(),
                bar: "0".to_string(),
                change: if shares {
                    format!(
                        "gone (was {} of the samples)",
                        super::format::percent(was, 1.0)
                    )
                } else {
                    format!("gone (was {})", grouped(was))
                },
                change_class: "pa-good".to_string(),
            });
        }
    }
    rows
}

/// Live (count, bytes) per class, where the input records lifetimes.
fn class_live(tree: &AllocTree) -> Vec<Option<(f64, f64)>> {
    let mut live: Vec<Option<(f64, f64)>> = vec![None; tree.classes.len()];
    for a in tree.nodes.iter().flat_map(|n| &n.direct) {
        if a.live_count.is_some() || a.live_bytes.is_some() {
            let slot = live[a.class].get_or_insert((0.0, 0.0));
            slot.0 += a.live_count.unwrap_or(0.0);
            slot.1 += a.live_bytes.unwrap_or(0.0);
        }
    }
    live
}

fn live_text(tree: &AllocTree, count: f64, bytes: f64) -> String {
    match (tree.count_kind, tree.bytes_known) {
        (CountKind::Unknown, _) => bytes_text(tree, bytes),
        (_, true) => format!("{} ({})", grouped(count), with_unit(bytes, &Unit::Bytes)),
        (_, false) => grouped(count),
    }
}

/// The source-page link of every node, when sources are available.
fn node_links(
    tree: &AllocTree,
    frames: &FrameTable,
    links: &SourceLinks,
    version: usize,
    root: &str,
) -> Vec<Option<String>> {
    tree.nodes
        .iter()
        .map(|n| {
            let frame = n.frame?;
            links
                .source(frames, version, frame)
                .map(|p| format!("{root}{p}"))
        })
        .collect()
}

/// The location of a node's method, "file:line" or "file".
fn location(tree: &AllocTree, node: usize, frames: &FrameTable) -> Option<String> {
    let frame = frames.get(tree.nodes[node].frame?);
    frame.file.clone()
}

/// The tooltip of an item, for readers without the script.
fn item_title(tree: &AllocTree, item: &Item, frames: &FrameTable) -> String {
    let by_bytes = tree.by_bytes();
    let mut lines = Vec::new();
    match &item.kind {
        ItemKind::Node(n) => {
            let node = &tree.nodes[*n];
            lines.push(node.label.clone());
            if let Some(file) = location(tree, *n, frames) {
                lines.push(file);
            }
            if let Some(calls) = node.calls {
                lines.push(format!("calls from its context: {}", grouped(calls)));
            }
            for a in node
                .direct
                .iter()
                .filter(|a| item.direct.iter().any(|d| d.0 == a.class))
            {
                let at = if a.lines.is_empty() {
                    String::new()
                } else {
                    let l: Vec<String> = a.lines.iter().map(u32::to_string).collect();
                    format!(" at line {}", l.join(", "))
                };
                lines.push(format!(
                    "creates {} {}{}{at}",
                    if by_bytes {
                        bytes_text(tree, a.bytes)
                    } else {
                        grouped(a.count)
                    },
                    tree.classes[a.class],
                    if tree.bytes_known && !by_bytes {
                        format!(" ({})", bytes_text(tree, a.bytes))
                    } else {
                        String::new()
                    },
                ));
            }
        }
        ItemKind::Chain(nodes) => {
            lines.push(format!("{} contexts that only pass calls on:", nodes.len()));
            lines.extend(nodes.iter().map(|&n| tree.nodes[n].label.clone()));
        }
        ItemKind::Group(nodes) => {
            lines.push(format!(
                "{} branches, each under {} of the total:",
                nodes.len(),
                super::format::percent(view::DEFAULT_SHARE, 1.0)
            ));
            lines.extend(nodes.iter().take(20).map(|&n| tree.nodes[n].label.clone()));
            if nodes.len() > 20 {
                lines.push(format!("… and {} more", nodes.len() - 20));
            }
        }
    }
    let unit = if by_bytes {
        "bytes".to_string()
    } else {
        tree.count_kind.noun().to_string()
    };
    lines.push(format!(
        "in total: {} {unit}",
        if by_bytes {
            bytes_text(tree, item.inclusive)
        } else {
            grouped(item.inclusive)
        }
    ));
    lines.join("\n")
}

/// Colours of the eight node bins, least to most memory, for the
/// standalone SVG (pages take them from the theme).
const BIN_COLOURS: [&str; layout::BINS] = [
    "#4575b4", "#6a8fc4", "#91a9d1", "#b7bfd6", "#d9b7b7", "#e79483", "#e26a53", "#d73027",
];

/// The tree as SVG. `standalone` adds the XML namespace declarations and
/// a style sheet so the file stands on its own.
fn tree_svg(
    tree: &AllocTree,
    items: &[Item],
    geometry: &Layout,
    colours: &[String],
    hrefs: &[Option<String>],
    frames: &FrameTable,
    standalone: bool,
) -> String {
    let mut w = SvgWriter::with_capacity(256 * items.len() + 1024);
    let (width, height) = (coord(geometry.width), coord(geometry.height));
    let view_box = format!("0 0 {width} {height}");
    let mut attrs: Vec<(&str, &str)> = vec![
        ("class", "al-tree"),
        ("width", &width),
        ("height", &height),
        ("viewBox", &view_box),
        ("role", "img"),
        ("aria-label", "allocation-site tree"),
    ];
    if standalone {
        attrs.push(("xmlns", "http://www.w3.org/2000/svg"));
        attrs.push(("xmlns:xlink", "http://www.w3.org/1999/xlink"));
    }
    w.open("svg", &attrs);
    if standalone {
        let mut style = String::from(
            "text{font:11px monospace;fill:#1d1d1f}.al-ctx{stroke:#555;stroke-width:.5}.al-cls{stroke:#222;stroke-width:.5}.al-edge{fill:none;stroke:#888}.al-more .al-ctx{stroke-dasharray:2 2;fill:#eee}",
        );
        for (i, c) in BIN_COLOURS.iter().enumerate() {
            style.push_str(&format!(".al-h{i} .al-ctx{{fill:{c}}}"));
        }
        w.open("style", &[]).cdata(&style).close("style");
    }
    w.open("g", &[("class", "al-edges")]);
    for e in &geometry.edges {
        let (a, b) = (&geometry.items[e.from], &geometry.items[e.to]);
        // From the end of the parent's label, so no edge crosses text.
        let label_end = layout::LABEL_GAP + layout::CHAR_W * a.label.chars().count() as f64 + 2.0;
        let (x1, y1) = (a.x + a.w + label_end, a.y + a.h / 2.0);
        let (x2, y2) = (b.x, b.y + b.h / 2.0);
        let mid = (x1 + x2) / 2.0;
        let d = format!(
            "M{} {}C{} {} {} {} {} {}",
            coord(x1),
            coord(y1),
            coord(mid),
            coord(y1),
            coord(mid),
            coord(y2),
            coord(x2),
            coord(y2)
        );
        let to = e.to.to_string();
        w.empty(
            "path",
            &[
                ("class", "al-edge"),
                ("data-to", &to),
                ("d", &d),
                ("stroke-width", &coord(e.width)),
            ],
        );
    }
    w.close("g");
    w.open("g", &[("class", "al-items")]);
    for (i, (item, p)) in items.iter().zip(&geometry.items).enumerate() {
        let kind_class = match item.kind {
            ItemKind::Node(_) => format!("al-item al-h{}", p.bin),
            _ => format!("al-item al-more al-h{}", p.bin),
        };
        let index = i.to_string();
        let transform = format!("translate({},{})", coord(p.x), coord(p.y));
        let href = match item.kind {
            ItemKind::Node(n) => hrefs[n].as_deref(),
            _ => None,
        };
        if let Some(href) = href {
            w.open("a", &[("href", href)]);
        }
        w.open(
            "g",
            &[
                ("class", &kind_class),
                ("data-item", &index),
                ("transform", &transform),
                ("tabindex", "0"),
            ],
        );
        w.element("title", &[], &item_title(tree, item, frames));
        w.empty(
            "rect",
            &[
                ("class", "al-ctx"),
                ("width", &coord(p.w)),
                ("height", &coord(p.h)),
                ("rx", "2"),
            ],
        );
        for b in &p.boxes {
            let class = b.class.to_string();
            w.empty(
                "rect",
                &[
                    ("class", "al-cls"),
                    ("data-class", &class),
                    ("x", &coord(b.x)),
                    ("y", &coord(b.y)),
                    ("width", &coord(b.side)),
                    ("height", &coord(b.side)),
                    ("fill", &colours[b.class]),
                ],
            );
        }
        let (tx, ty) = (coord(p.w + layout::LABEL_GAP), coord(p.h / 2.0 + 4.0));
        w.element("text", &[("x", &tx), ("y", &ty)], &p.label);
        w.close("g");
        if href.is_some() {
            w.close("a");
        }
    }
    w.close("g");
    w.close("svg");
    w.finish()
}

/// One node for the script, as a JSON array: [parent (-1 for the root),
/// label, calls, [[class, count, bytes, lines]], file, source href].
#[derive(Serialize)]
struct NodeData(
    i64,
    String,
    Option<f64>,
    Vec<(usize, f64, f64, Vec<u32>)>,
    Option<String>,
    Option<String>,
);

/// What the page's script needs: the whole tree, compactly.
#[derive(Serialize)]
struct PageData {
    classes: Vec<(String, String)>,
    nodes: Vec<NodeData>,
    by_bytes: bool,
    /// Popups list classes by bytes (see [`AllocTree::ranks_by_bytes`]).
    rank_by_bytes: bool,
    bytes_known: bool,
    count_noun: &'static str,
    class_noun: &'static str,
    share: f64,
}

fn page_data(
    tree: &AllocTree,
    colours: &[String],
    hrefs: &[Option<String>],
    frames: &FrameTable,
) -> PageData {
    PageData {
        classes: tree
            .classes
            .iter()
            .cloned()
            .zip(colours.iter().cloned())
            .collect(),
        nodes: tree
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                NodeData(
                    n.parent.map_or(-1, |p| p as i64),
                    n.label.clone(),
                    n.calls,
                    n.direct
                        .iter()
                        .map(|a| (a.class, a.count, a.bytes, a.lines.iter().copied().collect()))
                        .collect(),
                    location(tree, i, frames),
                    hrefs[i].clone(),
                )
            })
            .collect(),
        by_bytes: tree.by_bytes(),
        rank_by_bytes: tree.ranks_by_bytes(),
        bytes_known: tree.bytes_known,
        count_noun: tree.count_kind.noun(),
        class_noun: class_noun(tree),
        share: view::DEFAULT_SHARE,
    }
}

/// The allocation-site pages of every profile with allocation sites.
pub struct AllocationPages;

impl PageKind for AllocationPages {
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "allocation.js",
            include_str!("../templates/assets/allocation.js"),
        )]
    }

    fn needs_scripts(&self, site: &SitePlan) -> bool {
        !site.allocations.entries.is_empty()
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "allocation.html",
            include_str!("../templates/allocation.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "allocation pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        (0..site.allocations.entries.len())
            .map(|i| {
                Job::new(move || {
                    let memory_pages = |benchmark: &str, version: usize| {
                        memory_flame_pages(site.history, &site.profiles, benchmark, version)
                    };
                    let plan = &site.allocations;
                    render(
                        site.history,
                        site.renderer,
                        plan,
                        i,
                        &site.links,
                        &memory_pages,
                    )
                })
            })
            .collect()
    }
}

/// The flame-graph pages of the memory metrics (bytes, objects) of the
/// first repetition of `benchmark` in `version`, as (metric, path).
fn memory_flame_pages(
    history: &History,
    plan: &crate::flame_plan::Plan,
    benchmark: &str,
    version: usize,
) -> Vec<(String, String)> {
    let Some(i) = history
        .profiles
        .iter()
        .position(|p| p.benchmark == benchmark && p.version == version)
    else {
        return Vec::new();
    };
    history.profiles[i]
        .profile
        .metrics
        .iter()
        .zip(&plan.by_entry[i])
        .filter(|(m, _)| {
            matches!(m.unit, Unit::Bytes | Unit::Objects) || m.name.starts_with("alloc")
        })
        .map(|(m, path)| (m.name.clone(), path.clone()))
        .collect()
}

#[cfg(test)]
mod tests;
