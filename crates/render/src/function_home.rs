//! Where a function lives on the site: its method's section on a
//! component page of the evolution matrix (the page that has its glyphs,
//! its callers and callees, and its source changes by version), and the
//! profile frames the method was made of (so a method's section can link
//! to its source). Every page that names a function (the index's root
//! cause, the change pages' tables and call-tree walk, the differential
//! pages' rows, the source diffs' hunks) links it through here, so a
//! reader goes from an answer to the code in one click.

use std::collections::HashMap;

use analysis::evolution::EvolutionPlan;
use analysis::hierarchy::{CompId, Level};
use analysis::shapes::ShapeFrames;
use model::{CallTree, FrameId};

/// The homes of every function of a site.
pub struct FunctionHomes<'a> {
    plan: &'a EvolutionPlan,
    shapes: &'a ShapeFrames,
    /// Each benchmark's matrix in time (not its memory matrix).
    time_scope: HashMap<&'a str, usize>,
    /// The matrix over all benchmarks in time, when there is one.
    all_scope: Option<usize>,
    /// Method → the history frames it was made of.
    frames_of: HashMap<CompId, Vec<FrameId>>,
}

impl<'a> FunctionHomes<'a> {
    pub fn new(plan: &'a EvolutionPlan, shapes: &'a ShapeFrames, frames: usize) -> Self {
        let mut time_scope = HashMap::new();
        let mut all_scope = None;
        for (i, sp) in plan.scopes.iter().enumerate() {
            if sp.scope.unit == model::Unit::Bytes {
                continue;
            }
            match sp.scope.benchmarks.as_slice() {
                [one] if sp.scope.name == *one => {
                    time_scope.entry(one.as_str()).or_insert(i);
                }
                _ => all_scope = all_scope.or(Some(i)),
            }
        }
        let mut frames_of: HashMap<CompId, Vec<FrameId>> = HashMap::new();
        for f in 0..frames {
            let frame = FrameId(f as u32);
            frames_of
                .entry(plan.hierarchy.method_of(frame))
                .or_default()
                .push(frame);
        }
        FunctionHomes {
            plan,
            shapes,
            time_scope,
            all_scope,
            frames_of,
        }
    }

    /// The method of `frame`: a history frame, or a function frame of the
    /// shapes (differential pages, root causes), which stands for the
    /// history frames it was made from.
    /// `None` for a frame made from no history frame (such as the
    /// shapes' "(no stack)").
    pub fn method(&self, frame: FrameId) -> Option<CompId> {
        self.plan
            .hierarchy
            .method_of_known(self.shapes.origin(frame))
    }

    /// Site path of the section of `frame`'s method, in the matrix of
    /// `benchmark` (else the matrix over all benchmarks), when the matrix
    /// shows it.
    pub fn method_page(&self, benchmark: &str, frame: FrameId) -> Option<&'a str> {
        let method = self.method(frame)?;
        if self.plan.hierarchy.get(method).level != Level::Method {
            return None;
        }
        let scopes = self.time_scope.get(benchmark).copied().into_iter();
        scopes
            .chain(self.all_scope)
            .find_map(|s| self.plan.scopes[s].pages.get(&method))
            .map(String::as_str)
    }

    /// A digest of the method sections the frames of `trees` link to in
    /// `benchmark`'s matrix, for the reuse keys of pages that link them: a
    /// page reused from the last build must not link a section the matrix
    /// moved or dropped, and a page whose functions' sections did not
    /// change is not rendered again when another function gains one.
    ///
    /// Each distinct frame counts once, in the order the trees first
    /// reach it (the trees' own digests say which frames those are): a
    /// deep tree repeats its few thousand functions over millions of
    /// nodes.
    pub fn links_digest<'t>(
        &self,
        benchmark: &str,
        trees: impl IntoIterator<Item = &'t CallTree>,
    ) -> u128 {
        let mut d = crate::reuse::KeyHasher::new("method sections linked");
        let mut seen: Vec<bool> = Vec::new();
        for tree in trees {
            for node in tree.node_ids() {
                let Some(frame) = tree.frame(node) else {
                    continue;
                };
                let i = frame.0 as usize;
                if i >= seen.len() {
                    seen.resize(i + 1, false);
                }
                if !std::mem::replace(&mut seen[i], true) {
                    d.str(self.method_page(benchmark, frame).unwrap_or(""));
                }
            }
        }
        d.finish()
    }

    /// Site path of the section of method `method` in any matrix in time
    /// (the one over all benchmarks first), when one shows it.
    pub fn any_page(&self, method: CompId) -> Option<&'a str> {
        let mut benchmarks: Vec<usize> = self.time_scope.values().copied().collect();
        benchmarks.sort_unstable();
        self.all_scope
            .into_iter()
            .chain(benchmarks)
            .find_map(|s| self.plan.scopes[s].pages.get(&method))
            .map(String::as_str)
    }

    /// The name of `method` as its section is headed.
    pub fn name(&self, method: CompId) -> &'a str {
        &self.plan.hierarchy.get(method).name
    }

    /// The history frames `method` was made of, in frame order.
    pub fn frames(&self, method: CompId) -> &[FrameId] {
        self.frames_of.get(&method).map_or(&[], Vec::as_slice)
    }
}

/// A method section's address narrowed to its section of `version`
/// (`page#m-x` → `page#m-x%23v-1.2`), where the version's figures, diff
/// and source link are; other pages unchanged.
pub fn at_version(page: &str, version: &str) -> String {
    match page.split_once('#') {
        Some((file, anchor)) => format!(
            "{file}{}",
            crate::paths::fragment_href(&crate::paths::version_section_id(Some(anchor), version))
        ),
        None => page.to_string(),
    }
}

/// The two links of a function named on the page whose way back to the
/// site root is `root`: its method's section of `version` in
/// `benchmark`'s matrix, and its source in `version` at its line (each `None` when the site has
/// no such page).
pub fn function_links(
    site: &crate::page_kind::SitePlan,
    root: &str,
    (benchmark, version): (&str, usize),
    frame: FrameId,
) -> (Option<String>, Option<String>) {
    let method = site.homes.method_page(benchmark, frame).map(|p| {
        format!(
            "{root}{}",
            at_version(p, &site.history.versions[version].name)
        )
    });
    let shapes = &site.analysis.frames;
    // The profile frame's file first (where the profiler saw it), else
    // the function's version-independent file (a bundle's source), else
    // any frame of its method with a source in `version` (the one the
    // shapes keep may be another version's install path).
    let method_frames = site
        .homes
        .method(frame)
        .map_or(&[][..], |m| site.homes.frames(m));
    let source = [shapes.origin(frame), frame]
        .into_iter()
        .chain(method_frames.iter().copied())
        .find_map(|f| site.links.source(&shapes.table, version, f))
        .map(|p| format!("{root}{p}"));
    (method, source)
}
