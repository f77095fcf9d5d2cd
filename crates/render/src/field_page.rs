//! Field-execution pages (Gammatella): per version, the system level (a
//! squarified treemap of the covered files, grouped by directory, each tile
//! showing its lines' hue/brightness distribution in the fixed layout of
//! section 2.2) with the execution bar, and a page per file with the file
//! level (SeeSoft miniature) and the statement level (the source, coloured,
//! with per-line figures). Named views (`[[field.views]]`) get their own
//! system page, pre-filtered and summarized. The data the pages' script
//! needs to recompute a selection is embedded when it fits the budget.

use std::collections::BTreeMap;

use serde::Serialize;

use super::svg::{coord, SvgWriter};
use super::{json_for_script, paths, Common, Renderer};
use analysis::field::{self, Colour, Colouring, FileStats, Totals};
use analysis::field_filter::{self, ViewConfig};
use analysis::treemap::{self, Node, Rect};
use model::error::BuildError;
use model::field::{Execution, FieldSet};
use model::History;
use vcs::sources::Sources;

use crate::page_kind::{Job, PageKind, SitePlan};

/// Largest embedded selection data; beyond it, only pre-rendered views.
pub const DATA_BUDGET: usize = 4 << 20;
const MAP_W: f64 = 960.0;
const MAP_H: f64 = 540.0;
const BAND_W: f64 = 8.0;
const BAR_H: f64 = 28.0;

/// What one page shows: which executions, as which bands.
struct Selection<'a> {
    title: String,
    filter: Option<String>,
    group_by: Vec<String>,
    chosen: Vec<&'a Execution>,
}

#[derive(Serialize)]
struct BandView {
    colour: String,
    title: String,
    members: Vec<usize>,
    failed: bool,
}

#[derive(Serialize, Clone)]
struct ViewLink {
    name: String,
    href: String,
    filter: String,
    group_by: String,
}

#[derive(Serialize)]
struct SystemView {
    #[serde(flatten)]
    common: Common,
    version: String,
    title: String,
    filter: String,
    group_by: String,
    executions: usize,
    chosen: usize,
    failed: usize,
    bar: String,
    map: String,
    views: Vec<ViewLink>,
    data: Option<String>,
    over_budget: Option<String>,
    sources_note: Option<String>,
    files: Vec<(String, String, usize, usize)>,
    directories: Vec<String>,
}

#[derive(Serialize)]
struct LineView {
    number: u32,
    text: String,
    colour: String,
    executable: bool,
    stats: String,
    count: String,
}

#[derive(Serialize)]
struct FileView {
    #[serde(flatten)]
    common: Common,
    version: String,
    path: String,
    system_href: String,
    executions: usize,
    failed: usize,
    bar: String,
    lines: Vec<LineView>,
    miniature: String,
    has_source: bool,
    data: Option<String>,
    file_index: usize,
}

/// Every field page of every version.
pub fn pages(
    history: &History,
    views: &[ViewConfig],
    renderer: &Renderer,
    sources: &Sources,
) -> Vec<Result<(String, Vec<u8>), BuildError>> {
    let mut out = Vec::new();
    for set in &history.field {
        let version = &history.versions[set.version].name;
        let all: Vec<&Execution> = set.executions.iter().collect();
        let (files, _) = field::line_stats(&all);
        let data = embedded_data(set, &files, version);
        let mut selections = vec![Selection {
            title: "all executions".into(),
            filter: None,
            group_by: Vec::new(),
            chosen: all.clone(),
        }];
        for v in views {
            let filter = v
                .filter
                .as_deref()
                .and_then(|f| field_filter::parse(f).ok());
            selections.push(Selection {
                title: v.name.clone(),
                filter: v.filter.clone(),
                group_by: v.group_by.clone(),
                chosen: all
                    .iter()
                    .copied()
                    .filter(|e| filter.as_ref().is_none_or(|f| f.matches(&e.properties)))
                    .collect(),
            });
        }
        let links: Vec<ViewLink> = views
            .iter()
            .map(|v| ViewLink {
                name: v.name.clone(),
                href: format!("../../{}", paths::field_view_page(version, &v.name)),
                filter: v.filter.clone().unwrap_or_default(),
                group_by: v.group_by.join(", "),
            })
            .collect();
        for (i, sel) in selections.iter().enumerate() {
            let page = if i == 0 {
                paths::field_page(version)
            } else {
                paths::field_view_page(version, &sel.title)
            };
            out.push(system_page(
                history, set, &files, sel, &page, &links, &data, renderer, sources,
            ));
        }
        for (i, f) in files.iter().enumerate() {
            out.push(file_page(history, set, f, i, &data, renderer, sources));
        }
    }
    out
}

/// The JSON the script recomputes selections from, or why it is left out.
fn embedded_data(set: &FieldSet, files: &[FileStats], version: &str) -> Result<String, String> {
    #[derive(Serialize)]
    struct Exec<'a> {
        id: &'a str,
        outcome: &'a str,
        failed: bool,
        props: &'a BTreeMap<String, String>,
    }
    #[derive(Serialize)]
    struct File<'a> {
        path: &'a str,
        href: String,
        lines: Vec<u32>,
    }
    let index: BTreeMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let line_index: Vec<BTreeMap<u32, usize>> = files
        .iter()
        .map(|f| {
            f.lines
                .iter()
                .enumerate()
                .map(|(i, l)| (l.line, i))
                .collect()
        })
        .collect();
    // Per execution: [file, [line index, count, …]] for executed lines.
    let cov: Vec<Vec<(usize, Vec<u64>)>> = set
        .executions
        .iter()
        .map(|e| {
            e.files
                .iter()
                .filter_map(|f| {
                    let fi = *index.get(f.path.as_str())?;
                    let flat: Vec<u64> = f
                        .lines
                        .iter()
                        .filter(|l| l.1 > 0)
                        .flat_map(|&(line, count)| {
                            [line_index[fi][&line] as u64, count.min(1 << 53)]
                        })
                        .collect();
                    Some((fi, flat))
                })
                .collect()
        })
        .collect();
    let value = serde_json::json!({
        "executions": set.executions.iter().map(|e| Exec { id: &e.id, outcome: &e.outcome, failed: e.failed(), props: &e.properties }).collect::<Vec<_>>(),
        "files": files.iter().map(|f| File { path: &f.path, href: format!("../../{}", paths::field_file_page(version, &f.path)), lines: f.lines.iter().map(|l| l.line).collect() }).collect::<Vec<_>>(),
        "cov": cov,
        "hueBins": field::HUE_BINS,
        "brightnessBins": field::BRIGHTNESS_BINS,
        "minBrightness": field::MIN_BRIGHTNESS,
    });
    let text = json_for_script(&value);
    if text.len() > DATA_BUDGET {
        return Err(format!(
            "The executions' data ({} MB) is over the {} MB budget for recomputing selections in the page: only the pre-rendered views (perfatlas.toml [[field.views]]) are available.",
            text.len() >> 20,
            DATA_BUDGET >> 20
        ));
    }
    Ok(text)
}

#[allow(clippy::too_many_arguments)]
fn system_page(
    history: &History,
    set: &FieldSet,
    all_files: &[FileStats],
    sel: &Selection,
    page: &str,
    links: &[ViewLink],
    data: &Result<String, String>,
    renderer: &Renderer,
    sources: &Sources,
) -> Result<(String, Vec<u8>), BuildError> {
    let (files, totals) = field::line_stats(&sel.chosen);
    // Tiles keep every file (sized by executable lines over all
    // executions); colours come from the selection.
    let by_path: BTreeMap<&str, &FileStats> = files.iter().map(|f| (f.path.as_str(), f)).collect();
    let colours = tile_colours(all_files, &by_path, &totals);
    let version = &history.versions[set.version];
    let missing_sources = all_files
        .iter()
        .filter(|f| sources.get(set.version, &f.path).is_none())
        .count();
    let view = SystemView {
        common: Common::new(renderer, history, page),
        version: version.label.clone(),
        title: sel.title.clone(),
        filter: sel.filter.clone().unwrap_or_default(),
        group_by: sel.group_by.join(", "),
        executions: set.executions.len(),
        chosen: sel.chosen.len(),
        failed: totals.failed as usize,
        bar: execution_bar(set, sel),
        map: treemap_svg(all_files, &colours, &history.versions[set.version].name),
        views: links.to_vec(),
        data: data.as_ref().ok().cloned(),
        over_budget: data.as_ref().err().cloned(),
        sources_note: (missing_sources > 0).then(|| {
            format!("{missing_sources} of {} files have no source text (give --repo or --sources): their file pages show line numbers and figures only.", all_files.len())
        }),
        directories: directories(all_files),
        files: all_files
            .iter()
            .map(|f| {
                let executed = by_path.get(f.path.as_str()).map_or(0, |s| s.lines.iter().filter(|l| l.executed_by > 0).count());
                (f.path.clone(), format!("../../{}", paths::field_file_page(&version.name, &f.path)), f.lines.len(), executed)
            })
            .collect(),
    };
    Ok((
        page.to_string(),
        renderer.render("field.html", &view)?.into_bytes(),
    ))
}

/// Every directory holding a file, parents first.
fn directories(files: &[FileStats]) -> Vec<String> {
    let mut dirs = hierarchy(files).1;
    dirs.sort();
    dirs
}

/// Each file's line colours under the selection (unexecuted where the
/// selection never ran a line).
fn tile_colours(
    all: &[FileStats],
    chosen: &BTreeMap<&str, &FileStats>,
    totals: &Totals,
) -> Vec<Vec<Option<Colour>>> {
    all.iter()
        .map(|f| {
            let mine: BTreeMap<u32, &field::LineStats> = chosen
                .get(f.path.as_str())
                .map(|m| m.lines.iter().map(|l| (l.line, l)).collect())
                .unwrap_or_default();
            f.lines
                .iter()
                .map(|l| mine.get(&l.line).and_then(|s| field::tarantula(s, totals)))
                .collect()
        })
        .collect()
}

/// Bands: one per execution, or one per group when summarized (average
/// colour, the members' common properties as the title).
fn execution_bar(set: &FieldSet, sel: &Selection) -> String {
    let chosen_ids: std::collections::BTreeSet<&str> =
        sel.chosen.iter().map(|e| e.id.as_str()).collect();
    let index_of: BTreeMap<&str, usize> = set
        .executions
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let bands: Vec<BandView> = if sel.group_by.is_empty() {
        set.executions
            .iter()
            .enumerate()
            .filter(|(_, e)| chosen_ids.contains(e.id.as_str()))
            .map(|(i, e)| BandView {
                colour: field::css(Some(field::band(e, Colouring::Tarantula, 0))),
                title: band_title(e),
                members: vec![i],
                failed: e.failed(),
            })
            .collect()
    } else {
        let props: Vec<&BTreeMap<String, String>> =
            sel.chosen.iter().map(|e| &e.properties).collect();
        field_filter::group_by(&props, &sel.group_by)
            .into_iter()
            .map(|g| {
                let members: Vec<&Execution> = g.members.iter().map(|&m| sel.chosen[m]).collect();
                let colours: Vec<Colour> = members
                    .iter()
                    .map(|e| field::band(e, Colouring::Tarantula, 0))
                    .collect();
                let failed = members.iter().filter(|e| e.failed()).count();
                let common: Vec<String> =
                    g.common.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                BandView {
                    colour: field::css(field::average(&colours)),
                    title: format!(
                        "{} executions ({failed} failed)\n{}",
                        members.len(),
                        common.join("\n")
                    ),
                    members: members.iter().map(|e| index_of[e.id.as_str()]).collect(),
                    failed: failed > 0,
                }
            })
            .collect()
    };
    let mut w = SvgWriter::new();
    let width = (bands.len() as f64 * BAND_W).max(BAND_W);
    w.open(
        "svg",
        &[
            ("class", "fm-bar"),
            ("width", &coord(width)),
            ("height", &coord(BAR_H)),
            ("role", "img"),
            ("aria-label", "execution bar"),
        ],
    );
    for (i, b) in bands.iter().enumerate() {
        let members: Vec<String> = b.members.iter().map(|m| m.to_string()).collect();
        w.open(
            "rect",
            &[
                (
                    "class",
                    if b.failed {
                        "fm-band fm-failed"
                    } else {
                        "fm-band"
                    },
                ),
                ("x", &coord(i as f64 * BAND_W)),
                ("y", "0"),
                ("width", &coord(BAND_W - 1.0)),
                ("height", &coord(BAR_H)),
                ("fill", &b.colour),
                ("data-members", &members.join(",")),
            ],
        );
        w.element("title", &[], &b.title);
        w.close("rect");
    }
    w.close("svg");
    w.finish()
}

fn band_title(e: &Execution) -> String {
    let mut lines = vec![format!("{}: {}", e.id, e.outcome)];
    lines.extend(e.properties.iter().map(|(k, v)| format!("{k} = {v}")));
    lines.join("\n")
}

/// Directories and files as a treemap node tree; ids: files 0..n, then
/// directories.
fn hierarchy(files: &[FileStats]) -> (Node, Vec<String>) {
    let mut dirs: Vec<String> = Vec::new();
    let mut root = Node {
        value: 0.0,
        children: Vec::new(),
        id: usize::MAX,
    };
    for (i, f) in files.iter().enumerate() {
        let parts: Vec<&str> = f.path.split('/').collect();
        let mut node = &mut root;
        let mut prefix = String::new();
        for dir in &parts[..parts.len() - 1] {
            prefix = if prefix.is_empty() {
                dir.to_string()
            } else {
                format!("{prefix}/{dir}")
            };
            let pos = node
                .children
                .iter()
                .position(|c| c.id >= files.len() && dirs[c.id - files.len()] == prefix);
            let pos = match pos {
                Some(p) => p,
                None => {
                    dirs.push(prefix.clone());
                    node.children.push(Node {
                        value: 0.0,
                        children: Vec::new(),
                        id: files.len() + dirs.len() - 1,
                    });
                    node.children.len() - 1
                }
            };
            node.children[pos].value += f.lines.len() as f64;
            node = &mut node.children[pos];
        }
        node.children.push(Node {
            value: f.lines.len() as f64,
            children: Vec::new(),
            id: i,
        });
        root.value += f.lines.len() as f64;
    }
    (root, dirs)
}

fn treemap_svg(files: &[FileStats], colours: &[Vec<Option<Colour>>], version: &str) -> String {
    let (root, dirs) = hierarchy(files);
    let area = Rect {
        x0: 0.0,
        y0: 0.0,
        x1: MAP_W,
        y1: MAP_H,
    };
    let placed = treemap::layout(&root, area, (1.0 + 5f64.sqrt()) / 2.0, 2.0);
    let mut w = SvgWriter::with_capacity(files.len() * 800 + 1024);
    w.open(
        "svg",
        &[
            ("class", "fm-map"),
            ("width", &coord(MAP_W)),
            ("height", &coord(MAP_H)),
            ("viewBox", &format!("0 0 {} {}", coord(MAP_W), coord(MAP_H))),
            ("role", "img"),
            ("aria-label", "treemap of the files"),
        ],
    );
    // Directories first (outlines, labels, and their summed cells for
    // when they are collapsed), then files.
    for &(id, r, depth) in placed
        .iter()
        .filter(|(id, _, _)| *id != usize::MAX && *id >= files.len())
    {
        let dir = &dirs[id - files.len()];
        let members: Vec<usize> = (0..files.len())
            .filter(|&i| files[i].path.starts_with(&format!("{dir}/")))
            .collect();
        let all: Vec<Option<Colour>> = members
            .iter()
            .flat_map(|&i| colours[i].iter().copied())
            .collect();
        w.open(
            "g",
            &[
                ("class", "fm-dir"),
                ("data-dir", dir),
                ("data-depth", &depth.to_string()),
            ],
        );
        w.element(
            "title",
            &[],
            &format!(
                "{dir}/: {} files, {} lines (click to collapse or expand)",
                members.len(),
                all.len()
            ),
        );
        w.empty(
            "rect",
            &[
                ("class", "fm-dir-box"),
                ("x", &coord(r.x0)),
                ("y", &coord(r.y0)),
                ("width", &coord(r.x1 - r.x0)),
                ("height", &coord(r.y1 - r.y0)),
            ],
        );
        w.open("g", &[("class", "fm-cells fm-dir-cells")]);
        cells(&mut w, &field::bins(&all), r);
        w.close("g");
        w.element(
            "text",
            &[
                ("class", "fm-dir-label"),
                ("x", &coord(r.x0 + 3.0)),
                ("y", &coord(r.y0 + 11.0)),
            ],
            &format!("{dir}/"),
        );
        w.close("g");
    }
    for &(id, r, _) in placed.iter().filter(|(id, _, _)| *id < files.len()) {
        let f = &files[id];
        let executed = colours[id].iter().filter(|c| c.is_some()).count();
        let href = format!("../../{}", paths::field_file_page(version, &f.path));
        w.open(
            "a",
            &[
                ("href", &href),
                ("class", "fm-tile"),
                ("data-file", &id.to_string()),
            ],
        );
        w.element(
            "title",
            &[],
            &format!(
                "{}: {} executable lines, {executed} executed",
                f.path,
                f.lines.len()
            ),
        );
        w.open("g", &[("class", "fm-cells")]);
        cells(&mut w, &field::bins(&colours[id]), r);
        w.close("g");
        w.empty(
            "rect",
            &[
                ("class", "fm-tile-box"),
                ("x", &coord(r.x0)),
                ("y", &coord(r.y0)),
                ("width", &coord(r.x1 - r.x0)),
                ("height", &coord(r.y1 - r.y0)),
                ("data-x0", &coord(r.x0)),
                ("data-y0", &coord(r.y0)),
                ("data-x1", &coord(r.x1)),
                ("data-y1", &coord(r.y1)),
            ],
        );
        let name = f.path.rsplit('/').next().unwrap_or(&f.path);
        if r.x1 - r.x0 > 40.0 && r.y1 - r.y0 > 14.0 {
            w.element(
                "text",
                &[
                    ("class", "fm-tile-label"),
                    ("x", &coord(r.x0 + 3.0)),
                    ("y", &coord(r.y1 - 4.0)),
                ],
                name,
            );
        }
        w.close("a");
    }
    w.close("svg");
    w.finish()
}

/// The colour blocks of a tile, each drawn in its bin's central colour.
fn cells(w: &mut SvgWriter, bins: &[Vec<usize>], r: Rect) {
    for c in treemap::tile_cells(bins, r) {
        let colour = if c.hue_bin >= field::HUE_BINS {
            None
        } else {
            Some(Colour {
                hue: (c.hue_bin as f64 + 0.5) * 120.0 / field::HUE_BINS as f64,
                brightness: 1.0
                    - (c.brightness_bin as f64 + 0.5) * (1.0 - field::MIN_BRIGHTNESS)
                        / field::BRIGHTNESS_BINS as f64,
            })
        };
        w.empty(
            "rect",
            &[
                ("x", &coord(c.rect.x0)),
                ("y", &coord(c.rect.y0)),
                ("width", &coord(c.rect.x1 - c.rect.x0)),
                ("height", &coord(c.rect.y1 - c.rect.y0)),
                ("fill", &field::css(colour)),
            ],
        );
    }
}

fn file_page(
    history: &History,
    set: &FieldSet,
    file: &FileStats,
    index: usize,
    data: &Result<String, String>,
    renderer: &Renderer,
    sources: &Sources,
) -> Result<(String, Vec<u8>), BuildError> {
    let version = &history.versions[set.version];
    let page = paths::field_file_page(&version.name, &file.path);
    let all: Vec<&Execution> = set.executions.iter().collect();
    let totals = field::totals(&all);
    let text = sources
        .get(set.version, &file.path)
        .map(|i| sources.files[i].text.as_str());
    let by_line: BTreeMap<u32, &field::LineStats> =
        file.lines.iter().map(|l| (l.line, l)).collect();
    let last = file.lines.last().map_or(0, |l| l.line);
    let source_lines: Vec<&str> = text.map(|t| t.lines().collect()).unwrap_or_default();
    let count = (source_lines.len() as u32).max(last);
    let lines: Vec<LineView> = (1..=count)
        .map(|n| {
            let stats = by_line.get(&n);
            let colour = stats.and_then(|s| field::tarantula(s, &totals));
            LineView {
                number: n,
                text: model::visible(source_lines.get(n as usize - 1).copied().unwrap_or(""))
                    .replace('\t', "    "),
                colour: if stats.is_some() {
                    field::css(colour)
                } else {
                    String::new()
                },
                executable: stats.is_some(),
                stats: stats.map(|s| statistics(s, &totals)).unwrap_or_default(),
                count: stats
                    .filter(|s| s.count > 0)
                    .map(|s| super::format::grouped(s.count as f64))
                    .unwrap_or_default(),
            }
        })
        .collect();
    let view = FileView {
        common: Common::new(renderer, history, &page),
        version: version.label.clone(),
        path: file.path.clone(),
        system_href: format!(
            "{}{}",
            paths::root_of(&page),
            paths::field_page(&version.name)
        ),
        executions: totals.executions as usize,
        failed: totals.failed as usize,
        bar: execution_bar(
            set,
            &Selection {
                title: String::new(),
                filter: None,
                group_by: Vec::new(),
                chosen: all.clone(),
            },
        ),
        miniature: miniature(&lines),
        has_source: text.is_some(),
        lines,
        data: data.as_ref().ok().cloned(),
        file_index: index,
    };
    Ok((
        page,
        renderer.render("field_file.html", &view)?.into_bytes(),
    ))
}

/// The statistics panel's words for a line.
fn statistics(s: &field::LineStats, t: &Totals) -> String {
    format!(
        "executed by {} of {} executions; of these, {} ended normally and {} with an exception; {} times in all",
        s.executed_by,
        t.executions,
        s.passed(),
        s.failed,
        super::format::grouped(s.count as f64)
    )
}

/// SeeSoft: one thin line per source line, as long as the line's text.
fn miniature(lines: &[LineView]) -> String {
    let height = (lines.len() as f64 * 3.0).max(3.0);
    let mut w = SvgWriter::with_capacity(lines.len() * 120 + 256);
    w.open(
        "svg",
        &[
            ("class", "fm-mini"),
            ("width", "120"),
            ("height", &coord(height)),
            ("role", "img"),
            ("aria-label", "file-level view"),
        ],
    );
    for l in lines {
        let indent = l.text.len() - l.text.trim_start().len();
        let len = l
            .text
            .trim()
            .chars()
            .count()
            .clamp(if l.executable { 4 } else { 0 }, 100) as f64;
        if len == 0.0 {
            continue;
        }
        let fill = if l.executable {
            l.colour.as_str()
        } else {
            "var(--border)"
        };
        w.empty(
            "rect",
            &[
                ("class", "fm-mini-line"),
                ("data-line", &l.number.to_string()),
                ("x", &coord((indent as f64).min(60.0))),
                ("y", &coord((l.number - 1) as f64 * 3.0)),
                ("width", &coord(len)),
                ("height", "2"),
                ("fill", fill),
            ],
        );
    }
    w.close("svg");
    w.finish()
}

/// The field-execution pages of every version with field data.
pub struct FieldPages;

impl PageKind for FieldPages {
    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            (
                "field-filter.js",
                include_str!("../templates/assets/field-filter.js"),
            ),
            ("field.js", include_str!("../templates/assets/field.js")),
        ]
    }

    fn needs_scripts(&self, site: &SitePlan) -> bool {
        !site.history.field.is_empty()
    }

    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("field.html", include_str!("../templates/field.html")),
            (
                "field_file.html",
                include_str!("../templates/field_file.html"),
            ),
        ]
    }

    fn name(&self) -> &'static str {
        "field pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        if site.history.field.is_empty() {
            return Vec::new();
        }
        vec![Job::new(move || {
            let views = &site.config.field.views;
            pages(site.history, views, site.renderer, site.sources)
                .into_iter()
                .collect()
        })]
    }
}
