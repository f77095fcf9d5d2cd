//! The source diff of one version against the one before it, from the git
//! repository: every changed file with its hunks, added lines blue and
//! removed lines grey as in the matrix's popups. Bounded in size; the
//! page names the two revisions so the rest is one `git diff` away.

use serde::Serialize;

use super::{Common, Renderer};
use analysis::modifications::VersionChanges;
use model::error::BuildError;
use model::History;
use vcs::{FileStatus, LineKind};

use crate::page_kind::{Job, PageKind, SitePlan};

/// Most diff lines one page shows.
const LINE_BUDGET: usize = 20_000;

#[derive(Serialize)]
struct LineView {
    kind: &'static str,
    old: String,
    new: String,
    text: String,
}

#[derive(Serialize)]
struct FileView {
    name: String,
    status: &'static str,
    binary: bool,
    hunks: Vec<(String, Vec<LineView>)>,
}

#[derive(Serialize)]
struct DiffView {
    #[serde(flatten)]
    common: Common,
    version: String,
    previous: String,
    revisions: Option<(String, String)>,
    files: Vec<FileView>,
    shown_lines: usize,
    cut: bool,
}

/// Renders the diff page of version `v` at `path`.
pub fn render(
    history: &History,
    changes: &VersionChanges,
    v: usize,
    path: &str,
    renderer: &Renderer,
) -> Result<Vec<u8>, BuildError> {
    let mut budget = LINE_BUDGET;
    let mut cut = false;
    let files = changes
        .files
        .iter()
        .map(|f| {
            let name = match (&f.old_path, &f.new_path) {
                (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
                (_, Some(n)) => n.clone(),
                (Some(o), None) => o.clone(),
                (None, None) => String::new(),
            };
            let hunks = f
                .hunks
                .iter()
                .map(|h| {
                    let take = h.lines.len().min(budget);
                    cut |= take < h.lines.len();
                    budget -= take;
                    let lines = h.lines[..take]
                        .iter()
                        .map(|l| {
                            let (kind, sign) = match l.kind {
                                LineKind::Added => ("add", '+'),
                                LineKind::Removed => ("del", '-'),
                                LineKind::Context => ("ctx", ' '),
                            };
                            LineView {
                                kind,
                                old: l.old_line.map(|n| n.to_string()).unwrap_or_default(),
                                new: l.new_line.map(|n| n.to_string()).unwrap_or_default(),
                                text: format!("{sign}{}", l.text),
                            }
                        })
                        .collect();
                    (h.header.clone(), lines)
                })
                .collect();
            FileView {
                name,
                status: match f.status {
                    FileStatus::Added => "added",
                    FileStatus::Deleted => "deleted",
                    FileStatus::Modified => "modified",
                    FileStatus::Renamed => "renamed",
                },
                binary: f.binary,
                hunks,
            }
        })
        .collect();
    let view = DiffView {
        common: Common::new(renderer, history, path),
        version: history.versions[v].label.clone(),
        previous: v
            .checked_sub(1)
            .map(|p| history.versions[p].label.clone())
            .unwrap_or_default(),
        revisions: changes.revisions.clone(),
        files,
        shown_lines: LINE_BUDGET - budget,
        cut,
    };
    Ok(renderer.render("diff.html", &view)?.into_bytes())
}

/// The source diff of every version with one.
pub struct DiffPages;

impl PageKind for DiffPages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[("diff.html", include_str!("../templates/diff.html"))]
    }

    fn name(&self) -> &'static str {
        "source diff pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let versions = &site.analysis.evolution.modifications.versions;
        versions
            .iter()
            .enumerate()
            .filter(|(_, changes)| !changes.files.is_empty())
            .map(|(v, changes)| {
                Job::file(move || {
                    let path = crate::paths::source_diff_page(&site.history.versions[v].name);
                    let html = render(site.history, changes, v, &path, site.renderer)?;
                    Ok((path, html))
                })
            })
            .collect()
    }
}
