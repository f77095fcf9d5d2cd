//! The component pages: one per class, package and the project that is
//! ever visible in a matrix, each method a section of its class's page
//! (`<class page>#m-<name>`), so a history writes a file per class rather
//! than per method. With several benchmarks the pages are the matrix over
//! all benchmarks' ([`ScopePlan::members`]), each block also showing the
//! component's row in every benchmark's matrix. A component's content is
//! its row of the matrix, its table of callers and callees by version,
//! then one section per version with its numbers, the call graph around it
//! (callers left, callees right, edges added / deleted / kept), its
//! execution timeline over the previous version's, its modified methods
//! with their source diffs, and links to the flame graphs of that version.
//! A class's page shows the class, a list of its methods, then each
//! method.
//!
//! The page stores what its script (`assets/component.js`) draws from
//! rather than the drawings: a section's call graph is drawn from its
//! version's column of the block's table of callers and callees (what a
//! reader without JavaScript sees; [`calls_table`]),
//! its execution timeline from its shares (`data-s`, kept to
//! `timeline.rs`'s `kept_share`) over the previous section's. The script draws what
//! `callgraph_svg` and `timeline_svg` draw; sites built with
//! `PERFATLAS_TEST_SHIP_DERIVED` hold both for `tests/derive_parity.rs`.
//! A note most sections share (where changes come from, how many profiles
//! a timeline has) is said once for the page ([`said_once`]), and so is
//! the version header: the script copies the page's above each method.
//!
//! Each call graph can be saved as SVG from the page; with `--svg-files`
//! the call graphs of the page (its component's, then its methods') are
//! also written, stacked, as one standalone SVG beside it.

use serde::Serialize;

use super::callgraph_svg::{self, Node};
use super::flame_plan::Plan;
use super::matrix_svg::header_labels;
use super::matrix_svg::{self, GlyphScale};
use super::svg::{coord, SvgWriter};
use super::{paths, Common, Renderer};
use crate::code_links::SourceLinks;
use crate::function_home::FunctionHomes;
use crate::paths::ScopePaths;
use crate::Link;
use analysis::callgraph::{neighbours, EdgeState, Neighbour};
use analysis::evolution::{EvolutionPlan, ScopePlan};
use analysis::hierarchy::{CompId, Level};
use analysis::modifications::MethodChange;
use config::MatrixConfig;
use model::error::BuildError;
use model::{FrameId, History};

use crate::page_kind::{Job, PageKind, SitePlan};
use timeline::timeline_of;

mod timeline;

/// Most callers (and callees) of one version listed in a block's table.
const TABLE_ROWS: usize = 100;

/// A block's callers and callees over its versions: a row per neighbour, a
/// column per version section. Each version's call graph is drawn from its
/// column (by the page's script), which readers without it see instead.
#[derive(Serialize, Default)]
struct CallsTable {
    columns: Vec<CallsColumn>,
    callers: Vec<CallsRow>,
    callees: Vec<CallsRow>,
}

#[derive(Serialize)]
struct CallsColumn {
    label: String,
    /// How many callers and callees the version has.
    n: (usize, usize),
    /// The rows its call graph draws, in order (at most the graph's
    /// limit on each side): caller rows, `|`, callee rows.
    order: String,
}

#[derive(Serialize)]
struct CallsRow {
    name: String,
    href: Option<String>,
    cells: Vec<CallsCell>,
}

/// The value through a call in one version: empty when there is none; a
/// gone call (class `e-deleted`) shows its value in the previous version.
#[derive(Serialize, Default, Clone)]
struct CallsCell {
    class: &'static str,
    text: String,
}

#[derive(Serialize)]
struct DiffLineView {
    kind: &'static str,
    old: String,
    new: String,
    text: String,
}

#[derive(Serialize)]
struct ModifiedView {
    name: String,
    href: Option<String>,
    /// The file as every other page names it (the profiled path's short
    /// form), and the repository's path when that differs (the tooltip).
    file: String,
    repo_file: Option<String>,
    range: String,
    added: bool,
    truncated: bool,
    lines: Vec<DiffLineView>,
}

#[derive(Serialize)]
struct Section {
    /// Unique on the page: `v-<version>`, or `<method anchor>#v-<version>`
    /// in a method's section ([`paths::version_section_id`]).
    id: String,
    label: String,
    present: bool,
    /// Shown open: the version where the component costs most, and those
    /// where it was modified; the others are one line until opened.
    open: bool,
    summary: Option<String>,
    /// Whether the section has a call graph: when the calls differ from
    /// the previous version's (or there is none); otherwise
    /// `same_calls_as` names the version drawn last. The page's script
    /// draws it from the table of callers and callees.
    graph: bool,
    /// The call graph as perfatlas draws it, kept only for `--svg-files`
    /// and for the parity test (`PERFATLAS_TEST_SHIP_DERIVED`).
    call_graph: Option<String>,
    same_calls_as: Option<Link>,
    /// The section has a call graph and the version no callers or callees.
    no_calls: bool,
    /// The component's share of each time frame, as the script reads
    /// them (`data-s`), when the version has a time order.
    shares: Option<String>,
    /// The timeline as perfatlas draws it, for the parity test only.
    timeline: Option<String>,
    /// "from 3 of 6 profiles", or why there is no timeline; empty when
    /// the page says it once for every section ([`said_once`]).
    timeline_from: String,
    timeline_missing: String,
    changes_note: String,
    modified: Vec<ModifiedView>,
    full_diff: Option<String>,
    flames: Vec<Link>,
    /// A method's source in this version, at its first line.
    source: Option<Link>,
    /// In a method's section: the page's own section of this version,
    /// which lists the flame graphs (said once for every method).
    flames_at: Option<String>,
}

/// A component's row of glyphs in one benchmark's matrix.
#[derive(Serialize)]
struct BenchmarkRow {
    name: String,
    /// That benchmark's matrix.
    href: String,
    row_svg: String,
}

/// One component's content on a page: the page's own component, or one of
/// its methods in a section of its own.
#[derive(Serialize)]
struct Block {
    /// The id of a method's section; empty for the page's own component.
    anchor: String,
    /// A link to the block from the page (the list of methods uses it).
    href: String,
    name: String,
    /// Why a numbered name (`lex#2`) has its number, for its tooltip.
    why: Option<String>,
    level: &'static str,
    path_name: String,
    header_svg: String,
    row_svg: String,
    /// The component's row in each benchmark's matrix, on a page of the
    /// matrix over all benchmarks.
    benchmarks: Vec<BenchmarkRow>,
    calls: CallsTable,
    edge_level: &'static str,
    /// Heading tags of the version sections and of their parts: one level
    /// deeper in a method's section, under the method's own heading.
    hv: &'static str,
    hs: &'static str,
    /// The largest share of a version the component takes.
    share: String,
    /// The versions where the component (or a method of it) was modified.
    changed_in: Vec<String>,
    /// Sections of the versions the component ran in.
    sections: Vec<Section>,
    /// The versions it did not run in, one line: each label with its
    /// section's id (`href`), which glyph-less links may still name.
    absent: Vec<Link>,
}

#[derive(Serialize)]
struct ComponentView {
    #[serde(flatten)]
    common: Common,
    scope: String,
    matrix_href: String,
    /// The pages of the component's ancestors, from the project down.
    parents: Vec<Link>,
    name: String,
    level: &'static str,
    path_name: String,
    metric: String,
    svg_href: String,
    /// The page's own component, then each method shown on the page.
    blocks: Vec<Block>,
    /// How many of the blocks are methods (listed after the first).
    methods: usize,
    /// Whether any version has change data (the list of methods then
    /// says where each was modified).
    changes_known: bool,
    /// Most neighbours a call graph draws on each side, and the time
    /// frames of a timeline (for the script).
    edges: usize,
    frames: usize,
    /// Whether any section has a timeline.
    timelines: bool,
    /// The notes most sections share, said once for the page.
    usual: UsualNotes,
    /// Whether the sections hold the Rust-drawn graphs too (the test hook).
    ship_reference: bool,
}

/// The per-section notes the page says once: each the note most sections
/// have (those sections then say nothing), empty when none is shared.
#[derive(Serialize, Default)]
struct UsualNotes {
    timeline_from: String,
    timeline_missing: String,
    changes: String,
}

/// Context shared by every component page of one scope.
pub struct PageContext<'a> {
    pub history: &'a History,
    pub plan: &'a EvolutionPlan,
    pub scope: &'a ScopePlan,
    pub profiles: &'a Plan,
    pub config: &'a MatrixConfig,
    pub renderer: &'a Renderer,
    /// The frames each method was made of, and where sources are.
    pub homes: &'a FunctionHomes<'a>,
    pub links: &'a SourceLinks<'a>,
    /// Which lines ran in each version (see [`analysis::line_costs`]).
    pub line_costs: &'a std::collections::BTreeMap<usize, analysis::line_costs::VersionCosts>,
}

/// Renders the page of `comp` (a class, package or the project), with
/// a section for each of its rows whose component page is a section of
/// this page (a class's methods), and the page's standalone call-graph
/// SVG.
pub fn render(cx: &PageContext, comp: CompId) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let sp = cx.scope;
    let Some(path) = sp.pages.get(&comp) else {
        return Ok(Vec::new());
    };
    let Some(&row_index) = sp.row_of.get(&comp) else {
        return Ok(Vec::new());
    };
    let row = &sp.matrix.rows[row_index];
    let common = Common::new(cx.renderer, cx.history, path);
    let own_prefix = format!("{path}#");
    let mut blocks = vec![block(cx, comp, row_index, path, None)];
    for &child in &row.children {
        let member = sp.matrix.rows[child].comp;
        let Some(anchor) = sp
            .pages
            .get(&member)
            .and_then(|p| p.strip_prefix(&own_prefix))
        else {
            continue;
        };
        blocks.push(block(cx, member, child, path, Some(anchor)));
    }
    let svg_path = path.replace(".html", ".svg");
    let path_name = cx.plan.hierarchy.path_name(comp);
    let standalone = cx
        .renderer
        .svg_files()
        .then(|| standalone(cx, &blocks, &path_name));
    let mut parents = Vec::new();
    let mut at = row.parent;
    while let Some(p) = at {
        let parent = sp.matrix.rows[p].comp;
        if let Some(page) = sp.pages.get(&parent) {
            parents.push(Link {
                label: cx.plan.hierarchy.get(parent).name.clone(),
                href: paths::link_from(path, page),
                current: false,
            });
        }
        at = sp.matrix.rows[p].parent;
    }
    parents.reverse();
    let usual = said_once(&mut blocks);
    let view = ComponentView {
        scope: sp.scope.name.clone(),
        matrix_href: format!("{}{}", common.root, sp.matrix_path()),
        parents,
        name: cx.plan.hierarchy.get(comp).name.clone(),
        level: level_word(row.level),
        path_name,
        metric: sp.scope.metric.clone(),
        svg_href: match standalone {
            Some(_) => paths::file_name(&svg_path),
            None => String::new(),
        },
        methods: blocks.len() - 1,
        changes_known: sp.matrix.changes_known.iter().any(|k| *k),
        edges: cx.config.call_graph_edges,
        frames: cx.config.timeline_frames,
        timelines: blocks
            .iter()
            .any(|b| b.sections.iter().any(|s| s.shares.is_some())),
        usual,
        ship_reference: cx.renderer.ship_derived(),
        blocks,
        common,
    };
    let html = cx.renderer.render("component.html", &view)?;
    let mut files = vec![(path.clone(), html.into_bytes())];
    files.extend(standalone.map(|svg| (svg_path, svg.into_bytes())));
    Ok(files)
}

/// The content of `comp` on the page at `page`: the page's own (no
/// `anchor`) or a method's section with id `anchor`.
fn block(
    cx: &PageContext,
    comp: CompId,
    row_index: usize,
    page: &str,
    anchor: Option<&str>,
) -> Block {
    let sp = cx.scope;
    let row = &sp.matrix.rows[row_index];
    let root = paths::root_of(page);
    let scale = GlyphScale {
        max_time: sp.matrix.max_time,
        modified_steps: cx.config.modified_steps,
        unit: &sp.scope.unit,
    };
    let path_name = cx.plan.hierarchy.path_name(comp);
    let mut sections: Vec<Section> = Vec::new();
    let mut calls: Vec<VersionCalls> = Vec::new();
    let mut last_drawn: Option<Link> = None;
    for v in (0..cx.history.versions.len()).filter(|&v| sp.scope.has(v)) {
        let (mut s, callers, callees) = section(cx, comp, row_index, (v, page), &root, anchor);
        calls.push((s.label.clone(), callers, callees));
        if s.graph && s.present {
            last_drawn = Some(Link {
                label: s.label.clone(),
                href: paths::fragment_href(&s.id),
                current: false,
            });
        } else {
            s.same_calls_as = last_drawn.as_ref().map(|l| Link {
                label: l.label.clone(),
                href: l.href.clone(),
                current: false,
            });
        }
        sections.push(s);
    }
    // The heaviest version is open too.
    let heaviest = row
        .cells
        .iter()
        .enumerate()
        .filter_map(|(v, c)| Some((v, c.as_ref()?.share)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(v, _)| paths::version_section_id(anchor, &cx.history.versions[v].name));
    for s in &mut sections {
        s.open |= heaviest.as_ref() == Some(&s.id);
    }
    let nested = anchor.is_some();
    Block {
        anchor: anchor.unwrap_or_default().to_string(),
        href: anchor.map(paths::fragment_href).unwrap_or_default(),
        name: cx.plan.hierarchy.get(comp).name.clone(),
        level: level_word(row.level),
        // The version header is the page's own component's: the script
        // copies it above each method's row, its links pointed at the
        // method's sections.
        header_svg: match anchor {
            None => matrix_svg::header_svg(&header_labels(cx.history, cx.plan, sp, |name| {
                paths::fragment_href(&paths::version_section_id(None, name))
            })),
            Some(_) => String::new(),
        },
        // Each glyph's numbers are its version section's first line, which
        // its header label links: the row carries no tooltips.
        row_svg: matrix_svg::row_svg(&row.cells, &scale, None, &path_name),
        benchmarks: benchmark_rows(cx, comp, &root),
        calls: calls_table(cx, page, &calls),
        edge_level: match row.level {
            Level::Project | Level::Method => "method",
            Level::Class => "class",
            Level::Package => "package",
        },
        hv: if nested { "h3" } else { "h2" },
        hs: if nested { "h4" } else { "h3" },
        share: super::format::percent(row.peak_share, 1.0),
        changed_in: row
            .cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.as_ref().and_then(|c| c.modified).unwrap_or(0) > 0)
            .map(|(v, _)| cx.history.versions[v].label.clone())
            .collect(),
        path_name,
        why: crate::display_names::numbered_reason(&cx.plan.hierarchy.get(comp).name),
        absent: sections
            .iter()
            .filter(|s| !s.present)
            .map(|s| Link {
                label: s.label.clone(),
                href: s.id.clone(),
                current: false,
            })
            .collect(),
        sections,
    }
}

/// The rows of `comp` in the matrices of the benchmarks whose components
/// have their pages in this scope, each on its own matrix's scale.
fn benchmark_rows(cx: &PageContext, comp: CompId, root: &str) -> Vec<BenchmarkRow> {
    let changes_known = cx.plan.modifications.any_known();
    cx.scope
        .members
        .iter()
        .filter_map(|&m| {
            let member = &cx.plan.scopes[m];
            let row = &member.matrix.rows[*member.row_of.get(&comp)?];
            let scale = GlyphScale {
                max_time: member.matrix.max_time,
                modified_steps: cx.config.modified_steps,
                unit: &member.scope.unit,
            };
            let title = |v: usize, cell: &analysis::matrix::Cell| {
                matrix_svg::cell_summary(
                    &cx.history.versions[v].label,
                    cell,
                    (&member.scope.unit, member.matrix.totals[v].unwrap_or(0.0)),
                    changes_known,
                )
            };
            let label = format!(
                "{} in {}",
                cx.plan.hierarchy.get(comp).name,
                member.scope.name
            );
            Some(BenchmarkRow {
                name: member.scope.name.clone(),
                href: format!("{root}{}", member.matrix_path()),
                row_svg: matrix_svg::row_svg(&row.cells, &scale, Some(&title), &label),
            })
        })
        .collect()
}

fn level_word(level: Level) -> &'static str {
    match level {
        Level::Project => "project",
        Level::Package => "package",
        Level::Class => "class",
        Level::Method => "method",
    }
}

/// A link from the page at `page` to the component page (or section)
/// `target`: its fragment alone when the section is on this page.
fn href_from(page: &str, target: &str) -> String {
    match target.split_once('#') {
        Some((file, id)) if file == page => paths::fragment_href(id),
        _ => paths::link_from(page, target),
    }
}

/// The section of version `v` of `comp` on the page at `page`, in the
/// method section `anchor` if any.
fn section(
    cx: &PageContext,
    comp: CompId,
    row_index: usize,
    (v, page): (usize, &str),
    root: &str,
    anchor: Option<&str>,
) -> (Section, Vec<Neighbour>, Vec<Neighbour>) {
    let sp = cx.scope;
    let row = &sp.matrix.rows[row_index];
    let version = &cx.history.versions[v];
    let cell = row.cells[v].as_ref();
    let previous = sp.scope.previous(v);
    let level = row.level;
    let (callers, callees) = neighbours(
        sp.edges_for(v, level),
        previous.map(|p| sp.edges_for(p, level)),
        comp,
    );
    let limit = cx.config.call_graph_edges;
    let node = |n: &'_ Neighbour| -> (String, Option<String>) {
        (
            cx.plan.hierarchy.get(n.comp).name.clone(),
            sp.pages.get(&n.comp).map(|p| href_from(page, p)),
        )
    };
    let left_nodes = drawn(&callers, limit, &node, sp);
    let right_nodes = drawn(&callees, limit, &node, sp);
    let center = cx.plan.hierarchy.get(comp).name.clone();
    let calls_changed = previous.is_none()
        || callers
            .iter()
            .chain(&callees)
            .any(|n| n.state != EdgeState::Kept);
    let keep_svg = cx.renderer.svg_files() || cx.renderer.ship_derived();
    let call_graph = (calls_changed && keep_svg).then(|| {
        callgraph_svg::call_graph(
            &center,
            &left_nodes,
            &right_nodes,
            (
                callers.len().saturating_sub(limit),
                callees.len().saturating_sub(limit),
            ),
            &format!("calls of {center} in {}", version.label),
        )
    });
    // Drawn over the previous version's when the component ran there (a
    // version it did not run in has no section to compare with).
    let ran_before = previous.filter(|&p| row.cells[p].is_some());
    let timeline = timeline_of(cx, comp, v, ran_before);
    let flames = flame_links(cx, v, root);
    let flames_at = (anchor.is_some() && !flames.is_empty())
        .then(|| paths::fragment_href(&paths::version_section_id(None, &version.name)));
    let changes = &cx.plan.modifications.versions[v];
    let modified: Vec<ModifiedView> = changes
        .modified
        .iter()
        .filter(|(m, _)| {
            sp.row_of.contains_key(m) && cx.plan.hierarchy.at_level(**m, level) == comp
        })
        .map(|(m, change)| modified_view(cx, (*m, v), change, page))
        .collect();
    let section = Section {
        id: paths::version_section_id(anchor, &version.name),
        label: version.label.clone(),
        present: cell.is_some(),
        open: cell.is_some_and(|c| c.modified.unwrap_or(0) > 0),
        summary: cell.map(|c| {
            matrix_svg::cell_summary(
                &version.label,
                c,
                (&sp.scope.unit, sp.matrix.totals[v].unwrap_or(0.0)),
                cx.plan.modifications.any_known(),
            )
        }),
        graph: calls_changed,
        call_graph,
        same_calls_as: None,
        no_calls: calls_changed && callers.is_empty() && callees.is_empty(),
        shares: timeline.shares,
        timeline: timeline.svg,
        timeline_from: timeline.from,
        timeline_missing: timeline.missing,
        changes_note: changes.note.clone(),
        modified,
        flames_at,
        full_diff: (!changes.files.is_empty())
            .then(|| format!("{root}{}", paths::source_diff_page(&version.name))),
        flames: match anchor {
            None => flames,
            Some(_) => Vec::new(),
        },
        source: match (level, cell) {
            (Level::Method, Some(_)) => method_source(cx, comp, v, root),
            _ => None,
        },
    };
    (section, callers, callees)
}

/// The source of method `comp` in version `v`, at the first line of its
/// frames that ran in `v`, when the site has it.
fn method_source(cx: &PageContext, comp: CompId, v: usize, root: &str) -> Option<Link> {
    let frames = &cx.history.frames;
    let ran = |f: FrameId| {
        let frame = frames.get(f);
        let lines = cx.line_costs.get(&v)?.files.get(frame.file.as_deref()?)?;
        lines.get(&frame.line?).map(|_| ())
    };
    let (frame, href) = cx
        .homes
        .frames(comp)
        .iter()
        .filter(|&&f| ran(f).is_some())
        .filter_map(|&f| Some((f, cx.links.source(frames, v, f)?)))
        .min_by_key(|(f, _)| frames.get(*f).line.unwrap_or(u32::MAX))?;
    let f = frames.get(frame);
    let file = crate::display_names::shown_file(f.file.as_deref().unwrap_or_default()).into_owned();
    // The line the link lands on: the method's hottest when its profiles
    // say where its time went.
    let line = href.rsplit_once("#L").map(|(_, l)| l.to_string());
    Some(Link {
        label: match line {
            Some(line) => format!("{file}:{line}"),
            None => file,
        },
        href: format!("{root}{href}"),
        current: false,
    })
}

/// A version section's label, callers and callees (largest first).
type VersionCalls = (String, Vec<Neighbour>, Vec<Neighbour>);

/// The table of a block's callers and callees over its version sections
/// (`calls`: each section's label and neighbours, largest first): a row
/// for each neighbour among the [`TABLE_ROWS`] largest of any version, in
/// the order they first appear, a cell per version.
fn calls_table(cx: &PageContext, page: &str, calls: &[VersionCalls]) -> CallsTable {
    let sp = cx.scope;
    let limit = cx.config.call_graph_edges;
    let columns = calls.len();
    let side = |pick: &dyn Fn(&VersionCalls) -> &[Neighbour]| {
        let mut rows: Vec<CallsRow> = Vec::new();
        let mut index: std::collections::HashMap<CompId, usize> = Default::default();
        let mut orders: Vec<Vec<usize>> = Vec::new();
        for (k, call) in calls.iter().enumerate() {
            let list = pick(call);
            let mut order = Vec::new();
            for (i, n) in list.iter().take(TABLE_ROWS).enumerate() {
                let r = *index.entry(n.comp).or_insert_with(|| {
                    rows.push(CallsRow {
                        name: cx.plan.hierarchy.get(n.comp).name.clone(),
                        href: sp.pages.get(&n.comp).map(|p| href_from(page, p)),
                        cells: vec![CallsCell::default(); columns],
                    });
                    rows.len() - 1
                });
                rows[r].cells[k] = CallsCell {
                    class: match n.state {
                        EdgeState::Added => "e-added",
                        EdgeState::Deleted => "e-deleted",
                        EdgeState::Kept => "",
                    },
                    text: value_text(sp, n),
                };
                if i < limit {
                    order.push(r);
                }
            }
            orders.push(order);
        }
        (rows, orders)
    };
    let (callers, caller_orders) = side(&|c| &c.1);
    let (callees, callee_orders) = side(&|c| &c.2);
    let words = |o: &[usize]| {
        o.iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    CallsTable {
        columns: calls
            .iter()
            .enumerate()
            .map(|(k, (label, l, r))| CallsColumn {
                label: label.clone(),
                n: (l.len(), r.len()),
                order: format!("{}|{}", words(&caller_orders[k]), words(&callee_orders[k])),
            })
            .collect(),
        callers,
        callees,
    }
}

/// The first `limit` neighbours as the call graph draws them.
fn drawn<'a>(
    list: &'a [Neighbour],
    limit: usize,
    node: &dyn Fn(&Neighbour) -> (String, Option<String>),
    sp: &ScopePlan,
) -> Vec<Node<'a>> {
    list.iter()
        .take(limit)
        .map(|n| {
            let (name, href) = node(n);
            Node {
                neighbour: n,
                name,
                href,
                value: value_text(sp, n),
            }
        })
        .collect()
}

fn value_text(sp: &ScopePlan, n: &Neighbour) -> String {
    let v = if n.state == EdgeState::Deleted {
        n.before
    } else {
        n.value
    };
    super::format::with_unit(v, &sp.scope.unit)
}

/// Says once for the page each note most of its sections share: the
/// sections with it are left without it, and the page states it.
fn said_once(blocks: &mut [Block]) -> UsualNotes {
    type Field = fn(&mut Section) -> &mut String;
    let fields: [Field; 3] = [
        |s| &mut s.timeline_from,
        |s| &mut s.timeline_missing,
        |s| &mut s.changes_note,
    ];
    let mut usual = fields.map(|field| {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for s in blocks.iter_mut().flat_map(|b| b.sections.iter_mut()) {
            let note = field(s);
            if note.is_empty() {
                continue;
            }
            match counts.iter_mut().find(|(n, _)| n == note) {
                Some((_, c)) => *c += 1,
                None => counts.push((note.clone(), 1)),
            }
        }
        // The most frequent note, the first of equals.
        let best = counts.iter().map(|(_, c)| *c).max().unwrap_or(0);
        let note = counts
            .into_iter()
            .find(|(_, c)| *c == best)
            .map(|(n, _)| n)
            .unwrap_or_default();
        for s in blocks.iter_mut().flat_map(|b| b.sections.iter_mut()) {
            let text = field(s);
            if *text == note {
                text.clear();
            }
        }
        note
    });
    UsualNotes {
        timeline_from: std::mem::take(&mut usual[0]),
        timeline_missing: std::mem::take(&mut usual[1]),
        changes: std::mem::take(&mut usual[2]),
    }
}

/// Method `m`'s change in version `v`, as its section shows it.
fn modified_view(
    cx: &PageContext,
    (m, v): (CompId, usize),
    change: &MethodChange,
    page: &str,
) -> ModifiedView {
    // The file as profile pages name it, when the profiles ran it.
    let shown = cx.links.profiled_as(v, &change.file);
    ModifiedView {
        name: cx.plan.hierarchy.get(m).name.clone(),
        href: cx.scope.pages.get(&m).map(|p| href_from(page, p)),
        file: shown.clone().unwrap_or_else(|| change.file.clone()),
        repo_file: shown
            .filter(|s| *s != change.file)
            .map(|_| change.file.clone()),
        range: change
            .range
            .as_ref()
            .map(|(a, b, rule)| format!("lines {a}–{b}, found by {rule}"))
            .unwrap_or_default(),
        added: change.added,
        truncated: change.truncated,
        lines: change
            .lines
            .iter()
            .map(|l| DiffLineView {
                kind: match l.kind {
                    '+' => "add",
                    '-' => "del",
                    _ => "ctx",
                },
                old: l.old.map(|n| n.to_string()).unwrap_or_default(),
                new: l.new.map(|n| n.to_string()).unwrap_or_default(),
                text: format!("{}{}", l.kind, l.text),
            })
            .collect(),
    }
}

/// The flame-graph pages of the scope's benchmarks in version `v`, one per
/// repetition, for the scope's metric.
fn flame_links(cx: &PageContext, v: usize, root: &str) -> Vec<Link> {
    let sp = cx.scope;
    let several = sp.scope.benchmarks.len() > 1;
    sp.scope
        .entries(v)
        .filter_map(|(e, metric)| {
            let href = cx.profiles.by_entry[e].get(metric)?;
            let entry = &cx.history.profiles[e];
            let rep = &cx.profiles.rep_names[e];
            Some(Link {
                label: if several {
                    format!("{} {rep}", entry.benchmark)
                } else {
                    rep.clone()
                },
                href: format!("{root}{href}"),
                current: false,
            })
        })
        .collect()
}

/// The call graphs of the versions where the calls changed, of every
/// component on the page in its order, stacked, with the page's style
/// embedded.
fn standalone(cx: &PageContext, blocks: &[Block], name: &str) -> String {
    let style = format!(
        "{}\n{}",
        cx.renderer.theme_css(cx.renderer.default_theme()),
        cx.renderer.asset("perfatlas.css")
    );
    let graphs: Vec<(&Block, &Section, &str)> = blocks
        .iter()
        .flat_map(|b| b.sections.iter().map(move |s| (b, s)))
        .filter_map(|(b, s)| Some((b, s, s.call_graph.as_deref()?)))
        .collect();
    let total: f64 = graphs.iter().map(|g| svg_height(g.2) + 24.0).sum::<f64>() + 8.0;
    let mut w = SvgWriter::with_capacity(style.len() + graphs.len() * 4096);
    let label = match blocks.len() {
        0 | 1 => format!("call graphs of {name}"),
        _ => format!("call graphs of {name} and its methods"),
    };
    w.open(
        "svg",
        &[
            ("xmlns", "http://www.w3.org/2000/svg"),
            ("class", "pa-cg-all"),
            ("width", "960"),
            ("height", &coord(total)),
            ("viewBox", &format!("0 0 960 {}", coord(total))),
            ("role", "img"),
            ("aria-label", &label),
        ],
    );
    w.open("style", &[]).cdata(&style).close("style").newline();
    w.empty(
        "rect",
        &[("width", "100%"), ("height", "100%"), ("class", "pa-bg")],
    );
    let mut y = 0.0;
    let mut body = w.finish();
    for (b, s, graph) in graphs {
        let summary = s.summary.as_deref().unwrap_or("absent");
        let mut t = SvgWriter::new();
        t.element(
            "text",
            &[("x", "4"), ("y", &coord(y + 16.0)), ("class", "pa-rn")],
            &match b.anchor.is_empty() {
                true => format!("{}: {summary}", s.label),
                false => format!("{} · {}: {summary}", b.name, s.label),
            },
        );
        body.push_str(&t.finish());
        // The inline graph is a complete <svg>: nest it at its offset.
        body.push_str(&graph.replacen(
            "<svg ",
            &format!("<svg x=\"0\" y=\"{}\" ", coord(y + 22.0)),
            1,
        ));
        body.push('\n');
        y += svg_height(graph) + 24.0;
    }
    body.push_str("</svg>\n");
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{body}")
}

/// The `height` attribute of an `<svg>` this module wrote.
fn svg_height(svg: &str) -> f64 {
    svg.split("height=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0)
}

/// A page per class, package and project a matrix shows; its methods are
/// sections of their class's page.
pub struct ComponentPages;

impl PageKind for ComponentPages {
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "component.js",
            include_str!("../templates/assets/component.js"),
        )]
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[(
            "component.html",
            include_str!("../templates/component.html"),
        )]
    }

    fn name(&self) -> &'static str {
        "component pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let evolution = &site.analysis.evolution;
        let mut jobs = Vec::new();
        for sp in &evolution.scopes {
            // The components with a page of their own (a section's URL
            // has a fragment) in this scope's directory: a benchmark's
            // matrix links the pages of the matrix over all benchmarks.
            let own = format!("{}/c/", sp.dir);
            let mut comps: Vec<_> = sp
                .pages
                .iter()
                .filter(|(_, page)| !page.contains('#') && page.starts_with(&own))
                .map(|(c, _)| *c)
                .collect();
            comps.sort();
            for comp in comps {
                jobs.push(Job::new(move || {
                    let cx = PageContext {
                        history: site.history,
                        plan: evolution,
                        scope: sp,
                        profiles: &site.profiles,
                        config: &site.config.matrix,
                        renderer: site.renderer,
                        homes: &site.homes,
                        links: &site.links,
                        line_costs: &site.analysis.line_costs,
                    };
                    render(&cx, comp)
                }));
            }
        }
        jobs
    }
}
