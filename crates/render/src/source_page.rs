//! Source pages (EasyView VI-B, code links): one per source file of a
//! version, each line with an anchor (`#L12`, highlighted when targeted)
//! and, in the margin, the share of each benchmark's time spent on that
//! line (self) and with it on the stack (total). Frames link here from
//! flame-graph details and tree tables; an editor link (a configurable
//! `vscode://` template) opens the file where it was profiled.

use std::collections::BTreeMap;

use serde::Serialize;

use super::format::{percent, with_unit};
use super::{Common, Renderer};
use analysis::line_costs::{Cost, VersionCosts};
use model::error::BuildError;
use model::History;
use vcs::sources::SourceFile;

use crate::code_links::{editor_link, SourceLinks};
use crate::page_kind::{Job, PageKind, SitePlan};

#[derive(Serialize)]
struct LineRow {
    number: u32,
    text: String,
    costs: Vec<CostCell>,
    heat: u8,
}

#[derive(Serialize)]
struct CostCell {
    text: String,
    title: String,
}

#[derive(Serialize)]
struct SourceView {
    #[serde(flatten)]
    common: Common,
    path: String,
    /// The paths profiles name the file by, as pages show them
    /// ([`crate::display_names`]); as written, for the tooltip.
    profile_path: String,
    profile_path_title: String,
    version: String,
    revision: Option<String>,
    editor: Option<String>,
    benchmarks: Vec<String>,
    lines: Vec<LineRow>,
    costly_lines: usize,
    /// The component pages of the file's classes, one per matrix.
    matrix: Vec<crate::Link>,
    /// What changed in the version.
    version_href: String,
    /// The file's page in every version with it (this one current).
    versions: Vec<crate::Link>,
}

/// Renders the page of `sources.files[index]`.
pub fn render(
    history: &History,
    renderer: &Renderer,
    (links, matrix): (&SourceLinks, &[(String, String)]),
    costs: &BTreeMap<usize, VersionCosts>,
    index: usize,
) -> Result<(String, Vec<u8>), BuildError> {
    let file: &SourceFile = &links.sources.files[index];
    let path = links.paths[index].clone();
    let version = &history.versions[file.version];
    let empty = VersionCosts::default();
    let version_costs = costs.get(&file.version).unwrap_or(&empty);
    let by_line = merged_costs(version_costs, &file.profile_paths);
    let lines: Vec<LineRow> = file
        .text
        .lines()
        .enumerate()
        .map(|(i, text)| {
            let number = i as u32 + 1;
            line_row(number, text, by_line.get(&number), version_costs)
        })
        .collect();
    // The editor opens the file where it was profiled: prefer an absolute path.
    let editor_path = file
        .profile_paths
        .iter()
        .find(|p| p.starts_with('/'))
        .unwrap_or(&file.profile_paths[0]);
    let view = SourceView {
        common: Common::new(renderer, history, &path),
        path: file.shown_path.clone(),
        profile_path: crate::display_names::shown_files(&file.profile_paths),
        profile_path_title: file.profile_paths.join(", "),
        version: version.label.clone(),
        revision: version.revision.clone(),
        editor: editor_link(links.editor, editor_path, 1),
        benchmarks: version_costs
            .benchmarks
            .iter()
            .map(|(b, m, _, _)| format!("{b} ({m})"))
            .collect(),
        costly_lines: lines.iter().filter(|l| l.heat > 0).count(),
        lines,
        version_href: super::paths::link_from(&path, &super::paths::version_page(&version.name)),
        versions: other_versions(history, links, index, &path),
        matrix: matrix
            .iter()
            .map(|(label, target)| crate::Link {
                label: label.clone(),
                href: super::paths::link_from(&path, target),
                current: false,
            })
            .collect(),
    };
    let html = renderer.render("source.html", &view)?;
    Ok((path, html.into_bytes()))
}

/// The pages of the same file (repository path) in every version that has
/// it, in version order, linked from the page at `page`.
fn other_versions(
    history: &History,
    links: &SourceLinks,
    index: usize,
    page: &str,
) -> Vec<crate::Link> {
    let shown = &links.sources.files[index].shown_path;
    let mut same: Vec<usize> = (0..links.sources.files.len())
        .filter(|&i| links.sources.files[i].shown_path == *shown)
        .collect();
    same.sort_by_key(|&i| links.sources.files[i].version);
    same.into_iter()
        .map(|i| crate::Link {
            label: history.versions[links.sources.files[i].version]
                .label
                .clone(),
            href: super::paths::link_from(page, &links.paths[i]),
            current: i == index,
        })
        .collect()
}

fn merged_costs(costs: &VersionCosts, profile_paths: &[String]) -> BTreeMap<u32, Vec<Cost>> {
    let mut out: BTreeMap<u32, Vec<Cost>> = BTreeMap::new();
    for lines in profile_paths.iter().filter_map(|p| costs.files.get(p)) {
        for (line, row) in lines {
            let slot = out
                .entry(*line)
                .or_insert_with(|| vec![Cost::default(); row.len()]);
            for (s, c) in slot.iter_mut().zip(row) {
                s.self_value += c.self_value;
                s.total += c.total;
            }
        }
    }
    out
}

fn line_row(number: u32, text: &str, costs: Option<&Vec<Cost>>, version: &VersionCosts) -> LineRow {
    let mut row = LineRow {
        number,
        // Tabs as spaces; other control characters and bidi overrides
        // shown as marks (a "Trojan Source" line cannot hide its reorder).
        text: model::visible(&text.replace('\t', "    ")).into_owned(),
        costs: Vec::new(),
        heat: 0,
    };
    let mut top_share: f64 = 0.0;
    for (k, (benchmark, _, unit, total)) in version.benchmarks.iter().enumerate() {
        let cost = costs.and_then(|c| c.get(k)).copied().unwrap_or_default();
        if cost.total <= 0.0 && cost.self_value <= 0.0 {
            row.costs.push(CostCell {
                text: String::new(),
                title: String::new(),
            });
            continue;
        }
        top_share = top_share.max(if *total > 0.0 {
            cost.total / total
        } else {
            0.0
        });
        row.costs.push(CostCell {
            text: format!(
                "{} / {}",
                percent(cost.self_value, *total),
                percent(cost.total, *total)
            ),
            title: format!(
                "{benchmark}: self {}, total {} (mean over repetitions)",
                with_unit(cost.self_value, unit),
                with_unit(cost.total, unit)
            ),
        });
    }
    row.heat = match top_share {
        s if s <= 0.0 => 0,
        s if s < 0.01 => 1,
        s if s < 0.05 => 2,
        s if s < 0.15 => 3,
        s if s < 0.40 => 4,
        _ => 5,
    };
    row
}

/// One page per source file found, with each version's line costs.
pub struct SourcePages;

impl PageKind for SourcePages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[("source.html", include_str!("../templates/source.html"))]
    }

    fn name(&self) -> &'static str {
        "source pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let costs = &site.analysis.line_costs;
        let matrix = std::sync::Arc::new(matrix_links(site));
        (0..site.sources.files.len())
            .map(|i| {
                let matrix = matrix.clone();
                Job::file(move || {
                    render(
                        site.history,
                        site.renderer,
                        (&site.links, &matrix[i]),
                        costs,
                        i,
                    )
                })
            })
            .collect()
    }
}

/// Per source file, (label, site path) of the component page of each
/// class whose frames the file holds, in every matrix that has one: the
/// way from a line of code to its row's history.
fn matrix_links(site: &SitePlan) -> Vec<Vec<(String, String)>> {
    use analysis::hierarchy::Level;
    let evolution = &site.analysis.evolution;
    let hierarchy = &evolution.hierarchy;
    let mut frames_of: std::collections::HashMap<&str, Vec<model::FrameId>> = Default::default();
    for (id, frame) in site.history.frames.iter() {
        if let Some(file) = frame.file.as_deref() {
            frames_of.entry(file).or_default().push(id);
        }
    }
    site.sources
        .files
        .iter()
        .map(|file| {
            let mut classes: Vec<_> = file
                .profile_paths
                .iter()
                .flat_map(|p| frames_of.get(p.as_str()).into_iter().flatten())
                .map(|&f| hierarchy.at_level(hierarchy.method_of(f), Level::Class))
                .collect();
            classes.sort();
            classes.dedup();
            let mut out = Vec::new();
            for class in classes {
                // A benchmark's matrix may link the page of the matrix over
                // all benchmarks: each page once, under the matrix it is in.
                for scope in &evolution.scopes {
                    let own = format!("{}/c/", scope.dir);
                    if let Some(page) = scope.pages.get(&class).filter(|p| p.starts_with(&own)) {
                        out.push((
                            format!("{} ({})", hierarchy.get(class).name, scope.scope.name),
                            page.clone(),
                        ));
                    }
                }
            }
            out
        })
        .collect()
}
