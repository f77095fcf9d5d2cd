//! The matrix page (one per benchmark, and one over all benchmarks): the
//! component tree down the side, versions across, a glyph per component and
//! version, with the data for popups embedded. Its "Save as SVG" control
//! (matrix.js) saves the matrix as the reader sees it; with
//! `--svg-files` the whole matrix is also written as a standalone SVG
//! beside the page.

use serde::Serialize;

use crate::Link;

use super::format::percent;
use super::matrix_svg::{self, changes_note, header_labels, GlyphScale, StandaloneRow};
use super::{json_for_script, Common, Renderer};
use crate::paths::{self, ScopePaths};
use analysis::evolution::{EvolutionPlan, ScopePlan};
use analysis::hierarchy::Level;
use analysis::matrix::Cell;
use config::MatrixConfig;
use model::error::BuildError;
use model::History;

use crate::page_kind::{Job, PageKind, SitePlan};

/// Above this many glyphs a page leaves out the per-glyph native tooltips
/// (the script's popups still give every number).
const TITLE_BUDGET: usize = 40_000;
/// Most rows hidden below the share threshold that a page still carries.
const MINOR_ROW_BUDGET: usize = 5_000;
/// Most modified-method names listed in a container's popup.
const MODIFIED_NAMES: usize = 10;

#[derive(Serialize)]
struct RowView {
    index: usize,
    level: u8,
    indent: u32,
    name: String,
    path_name: String,
    href: Option<String>,
    has_children: bool,
    expanded: bool,
    /// "harness" or "engine" for a package that is not the program's.
    origin: Option<&'static str>,
    deep: bool,
    minor: bool,
    share: String,
    glyphs: String,
}

#[derive(Serialize)]
struct MatrixView {
    #[serde(flatten)]
    common: Common,
    scope: String,
    scopes: Vec<Link>,
    metric: String,
    /// The methods whose share moved most.
    moves: Vec<MoveView>,
    /// The legend's ends: "faster" and "slower", or in memory "less
    /// memory" and "more memory".
    less: &'static str,
    more: &'static str,
    unit_note: Option<String>,
    header_svg: String,
    header_width: u32,
    rows: Vec<RowView>,
    hidden: usize,
    hidden_omitted: usize,
    /// Rows above the share threshold hidden by `[matrix] max_rows`.
    capped: usize,
    max_rows: usize,
    min_share: String,
    depth: u8,
    step_small: u32,
    step_large: u32,
    changes_note: String,
    titles_note: Option<String>,
    svg_href: String,
    /// The file name "Save as SVG" offers.
    save_name: String,
    data_json: String,
    empty: bool,
}

/// A method whose share moved most between two versions.
#[derive(Serialize)]
struct MoveView {
    name: String,
    /// Its place: class and package.
    path: String,
    href: Option<String>,
    before: String,
    after: String,
    from: String,
    to: String,
    modified: bool,
}

/// Most methods the list of largest moves names.
const MOVES_SHOWN: usize = 8;
/// The smallest move listed: two points of a version's total.
const MOVE_MIN: f64 = 0.02;

/// The methods whose share moved most, each linked to its section of the
/// version it moved in.
fn moves(history: &History, plan: &EvolutionPlan, sp: &ScopePlan, root: &str) -> Vec<MoveView> {
    sp.matrix
        .largest_moves(MOVES_SHOWN, MOVE_MIN)
        .into_iter()
        .map(|m| {
            let row = &sp.matrix.rows[m.row];
            let comp = plan.hierarchy.get(row.comp);
            let after = &history.versions[m.after];
            let parent = comp.parent.map(|p| plan.hierarchy.path_name(p));
            MoveView {
                name: comp.name.clone(),
                path: parent.unwrap_or_default(),
                href: sp
                    .pages
                    .get(&row.comp)
                    .map(|p| format!("{root}{}", crate::function_home::at_version(p, &after.name))),
                before: history.versions[m.before].label.clone(),
                after: after.label.clone(),
                from: percent(m.from, 1.0),
                to: percent(m.to, 1.0),
                modified: row.cells[m.after]
                    .as_ref()
                    .and_then(|c| c.modified)
                    .unwrap_or(0)
                    > 0,
            }
        })
        .collect()
}

/// Per-row popup data: `[mean, min, max, reps, delta|null, modified|null]`
/// per version, 0 where absent.
#[derive(Serialize)]
struct RowData {
    n: String,
    /// The row's path, where the script cannot derive it from the rows
    /// above (see [`leave_out_derivable`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    p: Option<String>,
    /// The row's component page, after `PageData::hb`.
    #[serde(skip_serializing_if = "Option::is_none")]
    h: Option<String>,
    /// The level of a row the page writes (a row the script draws has it
    /// in `x`).
    #[serde(skip_serializing_if = "Option::is_none")]
    l: Option<u8>,
    c: Vec<serde_json::Value>,
    /// A row below the share threshold, which the script draws: its row
    /// index, level, peak share and whether it has children.
    #[serde(skip_serializing_if = "Option::is_none")]
    x: Option<(usize, u8, String, bool)>,
}

/// What the script needs to draw a row's glyphs as `matrix_svg` does.
#[derive(Serialize)]
struct GlyphData {
    /// The time of the tallest glyph's bottom box.
    max: f64,
    /// `[matrix] modified_steps`.
    steps: [u32; 2],
    /// `[matrix] depth`: rows deeper start folded.
    depth: u8,
    /// The sizes `matrix_svg` draws with.
    geometry: matrix_svg::Geometry,
}

#[derive(Serialize)]
struct DiffData {
    file: String,
    range: String,
    added: bool,
    truncated: bool,
    lines: Vec<(String, Option<u32>, Option<u32>, String)>,
    full: Option<String>,
}

#[derive(Serialize)]
struct VersionData {
    label: String,
    slug: String,
    total: f64,
    /// The scope has profiles in this version.
    has: bool,
    /// The version has change data.
    known: bool,
}

#[derive(Serialize)]
struct PageData {
    unit: String,
    /// What every row's `h` starts with, left out of them.
    hb: String,
    versions: Vec<VersionData>,
    rows: Vec<RowData>,
    glyphs: GlyphData,
    /// `"row:version"` → diff of a modified method.
    diffs: std::collections::BTreeMap<String, DiffData>,
    /// `"row:version"` → names of the modified methods of a container.
    mods: std::collections::BTreeMap<String, Vec<String>>,
}

/// Links to every scope's matrix, for the page header.
pub fn scope_links(plan: &EvolutionPlan, current: usize, root: &str) -> Vec<Link> {
    plan.scopes
        .iter()
        .enumerate()
        .map(|(i, s)| Link {
            label: s.scope.name.clone(),
            href: format!("{root}{}", s.matrix_path()),
            current: i == current,
        })
        .collect()
}

/// Renders the matrix page of scope `s`, and with `--svg-files` its
/// standalone SVG.
pub fn render(
    history: &History,
    plan: &EvolutionPlan,
    s: usize,
    config: &MatrixConfig,
    renderer: &Renderer,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let sp = &plan.scopes[s];
    let path = sp.matrix_path();
    let common = Common::new(renderer, history, &path);
    let root = common.root.clone();
    let m = &sp.matrix;
    let scale = GlyphScale {
        max_time: m.max_time,
        modified_steps: config.modified_steps,
        unit: &sp.scope.unit,
    };
    let labels = header_labels(history, plan, sp, |name| {
        format!(
            "{root}{}",
            timelines_of(history, plan, sp, name).timeline_path(name)
        )
    });
    let kept = rows_kept(sp);
    let glyph_count: usize = kept
        .iter()
        .map(|&i| m.rows[i].cells.iter().flatten().count())
        .sum();
    let with_titles = glyph_count <= TITLE_BUDGET;
    // Rows below the share threshold are drawn by the script from the
    // page's data (`x`), only when the reader asks for them.
    let mut rows = Vec::with_capacity(kept.len());
    for &i in kept.iter().filter(|&&i| m.rows[i].visible) {
        rows.push(row_view(
            history,
            plan,
            sp,
            i,
            &scale,
            with_titles,
            config,
            &root,
        ));
    }
    let data = page_data(history, plan, sp, &kept, &root, config);
    let svg_path = path.replace(".html", ".svg");
    let svg = renderer.svg_files().then(|| {
        let style = format!(
            "{}\n{}",
            renderer.theme_css(renderer.default_theme()),
            renderer.asset("perfatlas.css")
        );
        let standalone_rows: Vec<StandaloneRow> = kept
            .iter()
            .filter(|&&i| m.rows[i].visible)
            .map(|&i| StandaloneRow {
                name: &plan.hierarchy.get(m.rows[i].comp).name,
                depth: m.rows[i].level.depth(),
                cells: &m.rows[i].cells,
            })
            .collect();
        let title = format!("{}: evolution matrix of {}", history.title, sp.scope.name);
        matrix_svg::standalone(&standalone_rows, &labels, &scale, &title, &style)
    });
    let view = MatrixView {
        scopes: scope_links(plan, s, &root),
        scope: sp.scope.name.clone(),
        metric: sp.scope.metric.clone(),
        moves: moves(history, plan, sp, &root),
        less: match sp.scope.unit {
            model::Unit::Bytes | model::Unit::Objects => "less memory",
            _ => "faster",
        },
        more: match sp.scope.unit {
            model::Unit::Bytes | model::Unit::Objects => "more memory",
            _ => "slower",
        },
        unit_note: match (sp.scope.units_agree, left_out(history, &sp.scope.benchmarks)) {
            (false, _) => Some(
                "These profiles share no time metric, so each profile's first metric is used and sums mix units.".to_string(),
            ),
            (true, left) if !left.is_empty() && sp.scope.benchmarks.len() > 1 => Some(format!(
                "Over the {} benchmarks measured in {} ({}). Left out, as measured in another metric (values of different metrics are never added): {}; each has its own matrix.",
                sp.scope.benchmarks.len(),
                sp.scope.metric,
                sp.scope.unit.name(),
                left.join(", ")
            )),
            _ => None,
        },
        header_svg: matrix_svg::header_svg(&labels),
        header_width: (labels.len() as f64 * matrix_svg::COLUMN) as u32,
        hidden: m.hidden,
        hidden_omitted: m.rows.len() - kept.len(),
        capped: m.capped,
        max_rows: config.max_rows,
        min_share: format!("{}%", config.min_share),
        depth: config.depth,
        step_small: config.modified_steps[0],
        step_large: config.modified_steps[1],
        changes_note: changes_note(plan),
        titles_note: (!with_titles).then(|| {
            format!("{glyph_count} glyphs: native tooltips are left out to keep the page light; hover with scripts on for the numbers.")
        }),
        svg_href: match svg {
            Some(_) => "index.svg".into(),
            None => String::new(),
        },
        save_name: format!("matrix-{}.svg", paths::slug(&sp.scope.name)),
        data_json: json_for_script(&data),
        empty: m.rows.is_empty(),
        rows,
        common,
    };
    let html = renderer.render("matrix.html", &view)?;
    let mut files = vec![(path, html.into_bytes())];
    files.extend(svg.map(|svg| (svg_path, svg.into_bytes())));
    Ok(files)
}

/// The history's benchmarks with profiles that a matrix over several
/// leaves out.
fn left_out(history: &History, included: &[String]) -> Vec<String> {
    history
        .benchmarks()
        .into_iter()
        .filter(|b| !included.contains(b))
        .collect()
}

/// The scope whose timelines page of version `name` a matrix's header
/// links: its own, or for the matrix over all benchmarks (which has none,
/// see `timeline_page`) its first benchmark's that has a time order in
/// that version (else its first benchmark's with profiles there).
pub fn timelines_of<'a>(
    history: &History,
    plan: &'a EvolutionPlan,
    sp: &'a ScopePlan,
    name: &str,
) -> &'a ScopePlan {
    let Some(v) = history.versions.iter().position(|ver| ver.name == name) else {
        return sp;
    };
    let members = || {
        sp.members
            .iter()
            .map(|&m| &plan.scopes[m])
            .filter(|m| m.scope.has(v))
    };
    members()
        .find(|m| m.timelines[v].is_some())
        .or_else(|| members().next())
        .unwrap_or(sp)
}

/// Rows the page carries: every visible row, and the largest hidden ones
/// up to the budget (a kept row's parent always has at least its share).
fn rows_kept(sp: &ScopePlan) -> Vec<usize> {
    let rows = &sp.matrix.rows;
    let mut minor: Vec<usize> = (0..rows.len()).filter(|&i| !rows[i].visible).collect();
    minor.sort_by(|&a, &b| {
        rows[b]
            .peak_share
            .total_cmp(&rows[a].peak_share)
            .then(a.cmp(&b))
    });
    let mut keep = vec![false; rows.len()];
    for (i, r) in rows.iter().enumerate() {
        keep[i] = r.visible;
    }
    for &i in minor.iter().take(MINOR_ROW_BUDGET) {
        let mut at = Some(i);
        while let Some(a) = at {
            keep[a] = true;
            at = rows[a].parent;
        }
    }
    (0..rows.len()).filter(|&i| keep[i]).collect()
}

#[allow(clippy::too_many_arguments)]
fn row_view(
    history: &History,
    plan: &EvolutionPlan,
    sp: &ScopePlan,
    i: usize,
    scale: &GlyphScale,
    with_titles: bool,
    config: &MatrixConfig,
    root: &str,
) -> RowView {
    let row = &sp.matrix.rows[i];
    let comp = plan.hierarchy.get(row.comp);
    let level = row.level.depth();
    let total_of = |v: usize| sp.matrix.totals[v].unwrap_or(0.0);
    let title = |v: usize, cell: &Cell| {
        matrix_svg::cell_summary(
            &history.versions[v].label,
            cell,
            (&sp.scope.unit, total_of(v)),
            plan.modifications.any_known(),
        )
    };
    let titles: Option<matrix_svg::CellTitle> = if with_titles { Some(&title) } else { None };
    let mut path_name = plan.hierarchy.path_name(row.comp);
    let origin = match row.level {
        Level::Package => comp.origin.label(),
        _ => None,
    };
    RowView {
        index: i,
        level,
        indent: (level as u32 - 1) * 16,
        name: comp.name.clone(),
        href: sp.pages.get(&row.comp).map(|p| format!("{root}{p}")),
        has_children: !row.children.is_empty(),
        // The harness's and the engine's packages start folded: the
        // matrix opens on the program's code (without JavaScript every
        // row shows, after the program's).
        expanded: level < config.depth && (row.level != Level::Package || origin.is_none()),
        origin,
        deep: level > config.depth,
        minor: !row.visible,
        share: percent(row.peak_share, 1.0),
        glyphs: matrix_svg::row_svg(&row.cells, scale, titles, &path_name),
        path_name: match crate::display_names::numbered_reason(&comp.name) {
            Some(why) => {
                path_name.push_str(" — ");
                path_name.push_str(&why);
                path_name
            }
            None => path_name,
        },
    }
}

fn page_data(
    history: &History,
    plan: &EvolutionPlan,
    sp: &ScopePlan,
    kept: &[usize],
    root: &str,
    config: &MatrixConfig,
) -> PageData {
    let m = &sp.matrix;
    let mut diffs = std::collections::BTreeMap::new();
    let mut mods = std::collections::BTreeMap::new();
    let mut rows = kept
        .iter()
        .map(|&i| {
            let row = &m.rows[i];
            for (v, cell) in row.cells.iter().enumerate() {
                let Some(cell) = cell else { continue };
                if cell.modified.unwrap_or(0) == 0 {
                    continue;
                }
                let changes = &plan.modifications.versions[v];
                let key = format!("{i}:{v}");
                if row.level == Level::Method {
                    if let Some(change) = changes.modified.get(&row.comp) {
                        diffs.insert(key, diff_data(history, change, changes, v, root));
                    }
                } else {
                    let names: Vec<String> = changes
                        .modified
                        .keys()
                        .filter(|c| {
                            sp.row_of.contains_key(c)
                                && plan.hierarchy.at_level(**c, row.level) == row.comp
                        })
                        .take(MODIFIED_NAMES)
                        .map(|c| plan.hierarchy.get(*c).name.clone())
                        .collect();
                    mods.insert(key, names);
                }
            }
            RowData {
                n: plan.hierarchy.get(row.comp).name.clone(),
                p: Some(plan.hierarchy.path_name(row.comp)),
                h: sp.pages.get(&row.comp).map(|p| format!("{root}{p}")),
                l: row.visible.then(|| row.level.depth()),
                c: row.cells.iter().map(cell_json).collect(),
                x: (!row.visible).then(|| {
                    (
                        i,
                        row.level.depth(),
                        percent(row.peak_share, 1.0),
                        !row.children.is_empty(),
                    )
                }),
            }
        })
        .collect::<Vec<RowData>>();
    leave_out_derivable(&mut rows);
    let hb = href_base(&mut rows);
    PageData {
        unit: sp.scope.unit.name().to_string(),
        hb,
        versions: history
            .versions
            .iter()
            .enumerate()
            .map(|(v, ver)| VersionData {
                label: ver.label.clone(),
                slug: super::paths::slug(&ver.name),
                total: m.totals[v].unwrap_or(0.0),
                has: sp.scope.has(v),
                known: m.changes_known[v],
            })
            .collect(),
        rows,
        glyphs: GlyphData {
            max: m.max_time,
            steps: config.modified_steps,
            depth: config.depth,
            geometry: matrix_svg::GEOMETRY,
        },
        diffs,
        mods,
    }
}

/// Leaves out each row's path where the script derives the same from
/// the rows above (`rowPaths` in matrix.js): the path of the last row
/// one level up, then the row's name; the project, a package, or a row
/// without a row one level up, is its name alone (as `path_name`, which
/// leaves the project out).
fn leave_out_derivable(rows: &mut [RowData]) {
    let mut above: Vec<Option<String>> = Vec::new();
    for row in rows {
        let level = usize::from(row.l.or(row.x.as_ref().map(|x| x.1)).unwrap_or(0));
        above.resize(level, None);
        let derived = match (level, above.last()) {
            (3.., Some(Some(parent))) => format!("{parent} › {}", row.n),
            _ => row.n.clone(),
        };
        let path = row.p.take().unwrap_or_default();
        if path != derived {
            row.p = Some(path.clone());
        }
        above.push(Some(path));
    }
}

/// The directory every row's component page is in, left out of their
/// `h` (the script puts it back); empty when they are in several.
fn href_base(rows: &mut [RowData]) -> String {
    let mut hrefs = rows.iter().filter_map(|r| r.h.as_deref());
    let Some(first) = hrefs.next() else {
        return String::new();
    };
    let base = &first[..first.rfind('/').map_or(0, |i| i + 1)];
    if !hrefs.all(|h| h.starts_with(base)) {
        return String::new();
    }
    let base = base.to_string();
    for h in rows.iter_mut().filter_map(|r| r.h.as_mut()) {
        h.drain(..base.len());
    }
    base
}

/// Rounds to 5 significant digits so the embedded data stays small.
fn round5(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return 0.0;
    }
    let digits = 4 - v.abs().log10().floor() as i32;
    let f = 10f64.powi(digits);
    (v * f).round() / f
}

/// `0` when absent; the mean alone when there is nothing else to say (one
/// repetition, no modified method); else `[mean, min, max, repetitions,
/// modified]`. Δ is not stored: the script derives it from the previous
/// version's mean exactly as the matrix does.
fn cell_json(cell: &Option<Cell>) -> serde_json::Value {
    match cell {
        None => serde_json::Value::from(0),
        Some(c) if c.reps == 1 && c.modified.unwrap_or(0) == 0 => {
            serde_json::Value::from(round5(c.mean))
        }
        Some(c) => serde_json::json!([
            round5(c.mean),
            round5(c.min),
            round5(c.max),
            c.reps,
            c.modified.unwrap_or(0)
        ]),
    }
}

fn diff_data(
    history: &History,
    change: &analysis::modifications::MethodChange,
    changes: &analysis::modifications::VersionChanges,
    v: usize,
    root: &str,
) -> DiffData {
    DiffData {
        file: change.file.clone(),
        range: change
            .range
            .as_ref()
            .map(|(a, b, rule)| format!("lines {a}–{b} ({rule})"))
            .unwrap_or_default(),
        added: change.added,
        truncated: change.truncated,
        lines: change
            .lines
            .iter()
            .map(|l| (l.kind.to_string(), l.old, l.new, l.text.clone()))
            .collect(),
        full: (!changes.files.is_empty()).then(|| {
            format!(
                "{root}{}",
                paths::source_diff_page(&history.versions[v].name)
            )
        }),
    }
}

/// The evolution matrix of every scope (each benchmark, all benchmarks,
/// and their memory matrices).
pub struct MatrixPages;

impl PageKind for MatrixPages {
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[("matrix.js", include_str!("../templates/assets/matrix.js"))]
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[("matrix.html", include_str!("../templates/matrix.html"))]
    }

    fn name(&self) -> &'static str {
        "matrix pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let evolution = &site.analysis.evolution;
        (0..evolution.scopes.len())
            .map(|s| {
                Job::new(move || {
                    render(
                        site.history,
                        evolution,
                        s,
                        &site.config.matrix,
                        site.renderer,
                    )
                })
            })
            .collect()
    }
}
