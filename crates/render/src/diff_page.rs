//! The source diff of one version against the one before it, from the git
//! repository: every changed file with its hunks, added lines blue and
//! removed lines grey as in the matrix's popups. Bounded in size; the
//! page names the two revisions so the rest is one `git diff` away.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;

use super::format::percent;
use super::{paths, Common};
use crate::Link;
use analysis::line_costs::{Cost, VersionCosts};
use analysis::modifications::VersionChanges;
use model::error::BuildError;
use vcs::{FileDiff, FileStatus, Hunk, LineKind};

use crate::page_kind::{Job, PageKind, SitePlan};

/// Most diff lines one page shows: with files in the order of their cost,
/// the lines cut are those of code the profiles never ran (a generated
/// bundle's re-indentation, a lock file), and the page stays under 1 MB.
const LINE_BUDGET: usize = 6_000;
/// Most characters of one diff line shown (a minified bundle is one line).
const LINE_CHARS: usize = 400;

#[derive(Serialize)]
struct LineView {
    kind: &'static str,
    old: String,
    new: String,
    text: String,
}

#[derive(Serialize)]
struct HunkView {
    header: String,
    /// The share of a benchmark's time spent on the hunk's lines in this
    /// version (own time, the largest over benchmarks), "" when none.
    cost: String,
    /// The modified methods the hunk is in, each linked to its section.
    methods: Vec<Link>,
    lines: Vec<LineView>,
}

#[derive(Serialize)]
struct FileView {
    name: String,
    status: &'static str,
    binary: bool,
    cost: String,
    /// The file's source page in this version, with each line's cost.
    source: Option<String>,
    /// How the profiles name the file, when they ran it (the name every
    /// profile page shows).
    profiled_as: Option<String>,
    hunks: Vec<HunkView>,
}

#[derive(Serialize)]
struct DiffView {
    #[serde(flatten)]
    common: Common,
    version: String,
    previous: String,
    revisions: Option<(String, String)>,
    version_href: String,
    files: Vec<FileView>,
    costs_known: bool,
    shown_lines: usize,
    cut: bool,
}

/// What a diff page needs of the rest of the site: the costs of the
/// version's lines, its source pages and the methods' sections.
struct Context<'a> {
    site: &'a SitePlan<'a>,
    changes: &'a VersionChanges,
    costs: Option<&'a VersionCosts>,
    v: usize,
    root: String,
}

/// Renders the diff page of version `v` at `path`: files, and hunks in
/// each, ordered by the time spent on their lines in `v`.
fn render(cx: &Context, path: &str) -> Result<Vec<u8>, BuildError> {
    let history = cx.site.history;
    let mut files: Vec<(FileCosts, &FileDiff)> = cx
        .changes
        .files
        .iter()
        .map(|f| (file_costs(cx, f), f))
        .collect();
    // Costliest first; equal ones (all those never run: an empty sum is
    // −0.0, which total_cmp would set apart) keep the repository's order.
    files.sort_by(|a, b| b.0.total.partial_cmp(&a.0.total).unwrap_or(Ordering::Equal));
    let mut budget = LINE_BUDGET;
    let mut cut = false;
    let files = files
        .into_iter()
        .map(|(costs, f)| file_view(cx, f, &costs, (&mut budget, &mut cut)))
        .collect();
    let version = &history.versions[cx.v];
    let view = DiffView {
        common: Common::new(cx.site.renderer, history, path),
        version: version.label.clone(),
        previous: cx
            .v
            .checked_sub(1)
            .map(|p| history.versions[p].label.clone())
            .unwrap_or_default(),
        revisions: cx.changes.revisions.clone(),
        version_href: format!("{}{}", cx.root, paths::version_page(&version.name)),
        files,
        costs_known: cx.costs.is_some_and(|c| !c.files.is_empty()),
        shown_lines: LINE_BUDGET - budget,
        cut,
    };
    Ok(cx.site.renderer.render("diff.html", &view)?.into_bytes())
}

fn file_view(
    cx: &Context,
    f: &FileDiff,
    costs: &FileCosts,
    (budget, cut): (&mut usize, &mut bool),
) -> FileView {
    let name = match (&f.old_path, &f.new_path) {
        (Some(o), Some(n)) if o != n => format!("{o} → {n}"),
        (_, Some(n)) => n.clone(),
        (Some(o), None) => o.clone(),
        (None, None) => String::new(),
    };
    let mut hunks: Vec<(f64, &Hunk)> = f
        .hunks
        .iter()
        .map(|h| (hunk_cost(h, &costs.lines), h))
        .collect();
    hunks.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal));
    let hunks = hunks
        .into_iter()
        .map(|(cost, h)| {
            let take = h.lines.len().min(*budget);
            *cut |= take < h.lines.len();
            *budget -= take;
            HunkView {
                header: h.header.clone(),
                cost: shown_share(cost),
                methods: hunk_methods(cx, f, h),
                lines: h.lines[..take].iter().map(line_view).collect(),
            }
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
        cost: shown_share(costs.total),
        source: costs
            .source
            .map(|i| format!("{}{}", cx.root, cx.site.links.paths[i])),
        profiled_as: f
            .new_path
            .as_deref()
            .and_then(|p| cx.site.links.profiled_as(cx.v, p)),
        hunks,
    }
}

fn line_view(l: &vcs::DiffLine) -> LineView {
    let (kind, sign) = match l.kind {
        LineKind::Added => ("add", '+'),
        LineKind::Removed => ("del", '-'),
        LineKind::Context => ("ctx", ' '),
    };
    LineView {
        kind,
        old: l.old_line.map(|n| n.to_string()).unwrap_or_default(),
        new: l.new_line.map(|n| n.to_string()).unwrap_or_default(),
        text: match l.text.char_indices().nth(LINE_CHARS) {
            Some((cut, _)) => format!("{sign}{}…", &l.text[..cut]),
            None => format!("{sign}{}", l.text),
        },
    }
}

fn shown_share(share: f64) -> String {
    if share > 0.0 {
        percent(share, 1.0)
    } else {
        String::new()
    }
}

/// The source file of version `v` at repository path `repo_path`.
fn source_index(cx: &Context, repo_path: &str) -> Option<usize> {
    cx.site.links.source_at(cx.v, repo_path)
}

/// A changed file's source in this version and the time spent on it.
#[derive(Default)]
struct FileCosts {
    /// Its source file, when the site has it.
    source: Option<usize>,
    /// Each line: the largest share of a benchmark's time spent on it.
    lines: BTreeMap<u32, f64>,
    /// Over its hunks' lines.
    total: f64,
}

/// The costs of a changed file, computed once for its place in the
/// order and its hunks.
fn file_costs(cx: &Context, f: &FileDiff) -> FileCosts {
    let Some(source) = f.new_path.as_deref().and_then(|p| source_index(cx, p)) else {
        return FileCosts::default();
    };
    let lines = line_shares(cx, source);
    FileCosts {
        source: Some(source),
        total: f.hunks.iter().map(|h| hunk_cost(h, &lines)).sum(),
        lines,
    }
}

/// Each line of source file `i` in this version: the largest share of a
/// benchmark's time spent on it (own time), over the names profiles give
/// the file.
fn line_shares(cx: &Context, i: usize) -> BTreeMap<u32, f64> {
    let mut out: BTreeMap<u32, f64> = BTreeMap::new();
    let Some(costs) = cx.costs else {
        return out;
    };
    let grand: Vec<f64> = costs.benchmarks.iter().map(|b| b.3).collect();
    for name in &cx.site.links.sources.files[i].profile_paths {
        for (line, per_bench) in costs.files.get(name).into_iter().flatten() {
            let share = own_share(per_bench, &grand);
            let at = out.entry(*line).or_insert(0.0);
            *at = at.max(share);
        }
    }
    out
}

fn own_share(costs: &[Cost], grand: &[f64]) -> f64 {
    costs
        .iter()
        .zip(grand)
        .filter(|(_, g)| **g > 0.0)
        .map(|(c, g)| c.self_value / g)
        .fold(0.0, f64::max)
}

/// The time spent on the hunk's lines as they are in this version.
fn hunk_cost(h: &Hunk, lines: &BTreeMap<u32, f64>) -> f64 {
    h.lines
        .iter()
        .filter_map(|l| l.new_line)
        .filter_map(|n| lines.get(&n))
        .sum()
}

/// The modified methods of the file whose range meets the hunk's new
/// lines, linked to their sections.
fn hunk_methods(cx: &Context, f: &FileDiff, h: &Hunk) -> Vec<Link> {
    let Some(path) = f.new_path.as_deref() else {
        return Vec::new();
    };
    let new_lines: Vec<u32> = h.lines.iter().filter_map(|l| l.new_line).collect();
    let (Some(&first), Some(&last)) = (new_lines.first(), new_lines.last()) else {
        return Vec::new();
    };
    cx.changes
        .modified
        .iter()
        .filter(|(_, m)| m.file == path)
        .filter(|(_, m)| {
            m.range
                .as_ref()
                .is_some_and(|r| r.0 <= last && first <= r.1)
        })
        .filter_map(|(comp, _)| {
            Some(Link {
                label: cx.site.homes.name(*comp).to_string(),
                href: format!("{}{}", cx.root, cx.site.homes.any_page(*comp)?),
                current: false,
            })
        })
        .collect()
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
                    let path = paths::source_diff_page(&site.history.versions[v].name);
                    let cx = Context {
                        site,
                        changes,
                        costs: site.analysis.line_costs.get(&v),
                        v,
                        root: paths::root_of(&path),
                    };
                    Ok((path.clone(), render(&cx, &path)?))
                })
            })
            .collect()
    }
}
