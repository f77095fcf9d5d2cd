//! The evolution part of the site, planned before any page is written: the
//! component hierarchy, each profile's facts (computed once, in parallel),
//! one matrix per benchmark plus one over all benchmarks, each scope's
//! timelines and call edges per version, and where every page lives (as
//! [`MatrixUrls`] names it).

use std::collections::HashMap;

use rayon::prelude::*;

use crate::callgraph::{version_edges, Edges};
use crate::hierarchy::{CompId, Hierarchy, Level};
use crate::matrix::{self, Matrix};
use crate::modifications::Modifications;
use crate::profile_facts::{
    all_facts, call_edges, method_facts, ProfileFacts, WalkColumns, WalkInputs, WantedCalls,
};
use crate::scope::Scope;
use crate::timeline::{version_timelines, VersionTimelines};
use config::MatrixConfig;
use model::History;

/// One matrix and everything its pages need.
pub struct ScopePlan {
    pub scope: Scope,
    pub matrix: Matrix,
    /// Site directory of the scope's pages, e.g. `matrix/b/convert-basic`.
    pub dir: String,
    /// Per version, when any profile there has a time order.
    pub timelines: Vec<Option<VersionTimelines>>,
    /// Per version, edges at the method, class and package levels.
    pub edges: Vec<[Edges; 3]>,
    /// Row index of each component in the matrix.
    pub row_of: HashMap<CompId, usize>,
    /// Component page of every row that is ever visible. A URL with a
    /// fragment (`page#id`) is a section of its parent row's page, which
    /// then has a page too. A benchmark's matrix links the pages of the
    /// matrix over all benchmarks ([`ScopePlan::members`]); only the pages
    /// under [`ScopePlan::dir`] are this scope's own.
    pub pages: HashMap<CompId, String>,
    /// The scopes of single benchmarks whose components have their pages
    /// here (this is the matrix over all benchmarks, in the same metric):
    /// a page shows each benchmark's row of its component too.
    pub members: Vec<usize>,
}

/// Where the pages of each matrix live. The render stage owns every URL
/// (`render::paths`); the plan records the ones it is given.
pub trait MatrixUrls: Sync {
    /// Site directory of one benchmark's matrix, or (`None`) of the matrix
    /// over all benchmarks.
    fn scope_dir(&self, benchmark: Option<&str>) -> String;
    /// Site directory of the memory matrix of the scope at `dir`.
    fn memory_dir(&self, dir: &str) -> String;
    /// The page of component `comp` of the matrix at `dir`, or its section
    /// (`page#id`) on the page of its parent.
    fn component_page(&self, dir: &str, hierarchy: &Hierarchy, comp: CompId) -> String;
}

impl ScopePlan {
    /// Edges of version `v` at the level of `comp`'s level (methods for the
    /// project, which has no callers of its own).
    pub fn edges_for(&self, v: usize, level: Level) -> &Edges {
        let l = match level {
            Level::Method | Level::Project => 0,
            Level::Class => 1,
            Level::Package => 2,
        };
        &self.edges[v][l]
    }
}

pub struct EvolutionPlan {
    pub hierarchy: Hierarchy,
    pub modifications: Modifications,
    pub scopes: Vec<ScopePlan>,
    /// The inclusive values the matrix's sums read, kept for the
    /// profiles' pages.
    pub inclusive: HeldInclusive,
}

/// Every node's inclusive value per metric (and a big tree's subtree
/// sizes), per profile, as the matrix's sums computed them (when the
/// walks' inputs were held, see [`HELD_WALK_NODES`]): the profile's page
/// draws the same columns (see [`WalkColumns`]).
#[derive(Default)]
pub struct HeldInclusive(std::sync::Mutex<Vec<Option<Columns>>>);

/// What one profile's page takes from its walk.
pub type Columns = WalkColumns;

impl HeldInclusive {
    /// The columns of profile `entry` (its index in the history), handed
    /// to the first page that asks.
    pub fn take(&self, entry: usize) -> Option<Columns> {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        held.get_mut(entry).and_then(Option::take)
    }
}

impl EvolutionPlan {
    /// Plans every matrix of `history`.
    pub fn new(
        history: &History,
        config: &MatrixConfig,
        hierarchy: Hierarchy,
        modifications: Modifications,
        urls: &dyn MatrixUrls,
    ) -> EvolutionPlan {
        let inputs = (hierarchy, modifications);
        EvolutionPlan::planned(history, config, inputs, urls, EDGES_APART_FROM)
    }

    /// [`EvolutionPlan::new`], counting call edges apart for hierarchies
    /// of at least `edges_apart_from` components.
    fn planned(
        history: &History,
        config: &MatrixConfig,
        (mut hierarchy, modifications): (Hierarchy, Modifications),
        urls: &dyn MatrixUrls,
        edges_apart_from: usize,
    ) -> EvolutionPlan {
        if let Some(held) = &modifications.in_repository {
            hierarchy.place_by_repository(held);
        }
        // With many components, the facts without call edges first: the
        // edges are counted once the matrices say which components have
        // pages ([`call_edges`]).
        let edges_apart = hierarchy.len() >= edges_apart_from;
        // What the walks read is held from one to the other when it is
        // small enough.
        let nodes: usize = history.profiles.iter().map(|p| p.profile.tree.len()).sum();
        let hold = nodes <= HELD_WALK_NODES;
        let frames = config.timeline_frames;
        let (mut facts, held): (Vec<ProfileFacts>, Vec<Option<WalkInputs>>) =
            instrument::timings::phase("facts", || {
                history
                    .profiles
                    .par_iter()
                    .map(|p| {
                        let inputs = WalkInputs::new(&p.profile.tree, &hierarchy);
                        let facts = match edges_apart {
                            true => method_facts(&p.profile, (&hierarchy, &inputs), frames),
                            false => all_facts(&p.profile, (&hierarchy, &inputs), frames),
                        };
                        (facts, hold.then_some(inputs))
                    })
                    .unzip()
            });
        // Without edges counted apart, only the inclusive values are kept.
        let (held, mut inclusive): (_, Vec<_>) = match edges_apart {
            true => (held, Vec::new()),
            false => {
                let inclusive = held.into_iter().map(|h| h.map(WalkInputs::into_columns));
                (Vec::new(), inclusive.collect())
            }
        };
        let benchmarks = history.benchmarks();
        let scopes: Vec<(String, Vec<String>, String)> = benchmarks
            .iter()
            .map(|b| (b.clone(), vec![b.clone()], urls.scope_dir(Some(b))))
            .collect();
        let sets = modifications.sets();
        // Each scope measured in time, then (where profiles carry
        // allocation bytes) a second matrix of the same scope in memory.
        let mut scopes: Vec<(Scope, String, bool)> = scopes
            .into_iter()
            .flat_map(|(name, benches, dir)| {
                let memory = Scope::memory(history, &format!("{name} (memory)"), &benches)
                    .map(|s| (s, urls.memory_dir(&dir), true));
                std::iter::once((Scope::new(history, &name, &benches), dir, false)).chain(memory)
            })
            .collect();
        // Over all benchmarks: those measured in one metric, never a sum
        // of different ones; in memory, only when all of those have bytes.
        let together = Scope::comparable(history, "all benchmarks", &benchmarks);
        let all = together.is_some();
        if let Some(scope) = together {
            let dir = urls.scope_dir(None);
            let members = scope.benchmarks.clone();
            let memory = Scope::memory(history, "all benchmarks (memory)", &members)
                .map(|s| (s, urls.memory_dir(&dir), true));
            scopes.push((scope, dir, false));
            scopes.extend(memory);
        }
        let memory: Vec<bool> = scopes.iter().map(|s| s.2).collect();
        let mut scopes: Vec<ScopePlan> = scopes
            .into_par_iter()
            .map(|(scope, dir, _)| plan_scope(scope, dir, &hierarchy, &facts, &sets, config, urls))
            .collect();
        if all {
            share_component_pages(&mut scopes, &memory, &hierarchy, urls);
        }
        if edges_apart {
            inclusive = count_call_edges(history, &hierarchy, (&mut facts, held), &scopes);
        }
        add_scope_edges(&facts, &mut scopes);
        EvolutionPlan {
            hierarchy,
            modifications,
            scopes,
            inclusive: HeldInclusive(std::sync::Mutex::new(inclusive)),
        }
    }
}

fn plan_scope(
    scope: Scope,
    dir: String,
    hierarchy: &Hierarchy,
    facts: &[ProfileFacts],
    modified: &[Option<std::collections::BTreeSet<CompId>>],
    config: &MatrixConfig,
    urls: &dyn MatrixUrls,
) -> ScopePlan {
    let mut matrix = matrix::build(&scope, hierarchy, facts, modified, config.min_share);
    matrix::cap_visible_rows(&mut matrix, config.max_rows);
    let versions = scope.versions.len();
    let timelines = (0..versions)
        .map(|v| version_timelines(&scope, hierarchy, facts, v))
        .collect();
    let row_of = matrix
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.comp, i))
        .collect();
    let mut pages = HashMap::new();
    for r in matrix.rows.iter().filter(|r| r.visible) {
        let page = urls.component_page(&dir, hierarchy, r.comp);
        // A section of its parent's page (a method of its class's): that
        // page is written too, even were the parent's row hidden.
        if let (true, Some(p)) = (page.contains('#'), r.parent) {
            let parent = matrix.rows[p].comp;
            pages
                .entry(parent)
                .or_insert_with(|| urls.component_page(&dir, hierarchy, parent));
        }
        pages.insert(r.comp, page);
    }
    ScopePlan {
        scope,
        matrix,
        dir,
        timelines,
        edges: Vec::new(),
        row_of,
        pages,
        members: Vec::new(),
    }
}

/// Hierarchies of at least this many components have their call edges
/// counted apart, around the components with pages only. A profile's
/// edges are then too many for the processor's cache (on 20,000 methods,
/// 157,000 edges at three levels: most of the facts' time is misses on
/// their tables), and a second walk for the few with pages costs less.
/// With fewer (the 7,000 of a 4,000-function profile), counting every
/// edge in the first walk is faster than walking again (a 3.5 M-node
/// tree: 0.10 s against 0.15 s).
const EDGES_APART_FROM: usize = 16_384;

/// Histories of at most this many tree nodes in all hold what the facts'
/// walk read (16 bytes a node and metric) until the call edges are
/// counted, rather than making it again: on the 3.2 M-node cpp shape,
/// 50 MB held in a phase that peaks far lower than the load.
const HELD_WALK_NODES: usize = 4_000_000;

/// Counts the call edges around every component with a page (the only
/// edges a page draws, see [`call_edges`]) into `facts`, from the walk
/// inputs `held` for each profile (made again where none is); the
/// inclusive values of those held, for the profiles' pages.
fn count_call_edges(
    history: &History,
    hierarchy: &Hierarchy,
    (facts, held): (&mut [ProfileFacts], Vec<Option<WalkInputs>>),
    scopes: &[ScopePlan],
) -> Vec<Option<Columns>> {
    let paged = scopes.iter().flat_map(|sp| sp.pages.keys().copied());
    let wanted = WantedCalls::new(hierarchy, paged);
    instrument::timings::phase("call edges", || {
        facts
            .par_iter_mut()
            .zip(held)
            .zip(&history.profiles)
            .map(|((f, held), p)| {
                let kept = held.is_some();
                let inputs = held.unwrap_or_else(|| WalkInputs::new(&p.profile.tree, hierarchy));
                f.edges = call_edges(&p.profile, (hierarchy, &inputs), &wanted);
                kept.then(|| inputs.into_columns())
            })
            .collect()
    })
}

/// Gives each scope its call edges per version.
fn add_scope_edges(facts: &[ProfileFacts], scopes: &mut [ScopePlan]) {
    scopes.par_iter_mut().for_each(|sp| {
        sp.edges = (0..sp.scope.versions.len())
            .map(|v| {
                [Level::Method, Level::Class, Level::Package]
                    .map(|level| version_edges(&sp.scope, facts, v, level))
            })
            .collect();
    });
}

/// Gives each benchmark's components the pages of the matrix over all
/// benchmarks in the same metric (time, or memory), so that a history
/// writes one page per component rather than one per matrix: the page
/// there shows the component over all benchmarks, with each benchmark's
/// row. `scopes` holds the single-benchmark scopes first (each followed
/// by its memory scope, if any), then the matrix over all benchmarks and
/// its memory matrix; `memory` says which scopes are memory matrices. A
/// component the matrix over all benchmarks has no row for keeps its page
/// in its benchmark's matrix.
fn share_component_pages(
    scopes: &mut [ScopePlan],
    memory: &[bool],
    hierarchy: &Hierarchy,
    urls: &dyn MatrixUrls,
) {
    let all_dir = urls.scope_dir(None);
    let Some(first_all) = scopes.iter().position(|s| s.dir == all_dir) else {
        return;
    };
    let (members, alls) = scopes.split_at_mut(first_all);
    for (m, member) in members.iter_mut().enumerate() {
        let in_all = |a: usize| {
            member
                .scope
                .benchmarks
                .iter()
                .all(|b| alls[a].scope.benchmarks.contains(b))
        };
        let Some(a) = (0..alls.len()).find(|&a| memory[first_all + a] == memory[m] && in_all(a))
        else {
            continue;
        };
        let all = &mut alls[a];
        all.members.push(m);
        for (comp, page) in member.pages.iter_mut() {
            let Some(&row) = all.row_of.get(comp) else {
                continue;
            };
            let shared = urls.component_page(&all.dir, hierarchy, *comp);
            if let (true, Some(p)) = (shared.contains('#'), all.matrix.rows[row].parent) {
                let parent = all.matrix.rows[p].comp;
                all.pages
                    .entry(parent)
                    .or_insert_with(|| urls.component_page(&all.dir, hierarchy, parent));
            }
            all.pages.entry(*comp).or_insert_with(|| shared.clone());
            *page = shared;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::callgraph::neighbours;

    /// Pages under `matrix/`, a method as a section of its class's page.
    struct Urls;

    impl MatrixUrls for Urls {
        fn scope_dir(&self, benchmark: Option<&str>) -> String {
            format!("matrix/{}", benchmark.unwrap_or("all"))
        }

        fn memory_dir(&self, dir: &str) -> String {
            format!("{dir}/memory")
        }

        fn component_page(&self, dir: &str, hierarchy: &Hierarchy, comp: CompId) -> String {
            let c = hierarchy.get(comp);
            match (c.level, c.parent) {
                (Level::Method, Some(class)) => format!("{dir}/c/{}.html#{}", class.0, comp.0),
                _ => format!("{dir}/c/{}.html", comp.0),
            }
        }
    }

    /// Two versions of profiles whose 36 functions are in 6 files of 3
    /// packages, called in every order.
    fn history() -> History {
        let mut x = 3u64;
        let mut next = move |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let mut texts = Vec::new();
        for _ in 0..2 {
            let mut text = String::new();
            for _ in 0..300 {
                let depth = 1 + next(6);
                let frames: Vec<String> = (0..depth)
                    .map(|_| {
                        let f = next(36);
                        format!("f{f} (pkg{}/mod{}.py:{})", f % 3, f % 2, f + 1)
                    })
                    .collect();
                text.push_str(&format!("{} {}\n", frames.join(";"), 1 + next(9)));
            }
            texts.push(text);
        }
        input::test_support::history_from_folded(&[
            ("1.0", "bench", 1, &texts[0]),
            ("2.0", "bench", 1, &texts[1]),
        ])
    }

    /// Call edges counted apart, around the components with pages only,
    /// give every page the callers and callees that all edges give it.
    #[test]
    fn edges_counted_apart_draw_the_same_call_graphs() {
        let history = history();
        let config = MatrixConfig {
            max_rows: 6,
            min_share: 0.0,
            ..MatrixConfig::default()
        };
        let plan = |edges_apart_from: usize| {
            let hierarchy = Hierarchy::plain(&history.frames, "proj");
            let modifications = Modifications::unknown(history.versions.len(), "");
            let inputs = (hierarchy, modifications);
            EvolutionPlan::planned(&history, &config, inputs, &Urls, edges_apart_from)
        };
        let (apart, together) = (plan(0), plan(usize::MAX));
        let mut drawn = 0;
        for (a, t) in apart.scopes.iter().zip(&together.scopes) {
            assert!(!a.pages.is_empty() && a.pages.len() < a.row_of.len());
            assert_ne!(a.edges, t.edges, "fewer edges are counted apart");
            for &comp in a.pages.keys() {
                let level = a.matrix.rows[a.row_of[&comp]].level;
                for v in 0..history.versions.len() {
                    let previous = v.checked_sub(1);
                    let around = |sp: &ScopePlan| {
                        neighbours(
                            sp.edges_for(v, level),
                            previous.map(|p| sp.edges_for(p, level)),
                            comp,
                        )
                    };
                    let (callers, callees) = around(a);
                    assert_eq!((&callers, &callees), (&around(t).0, &around(t).1));
                    drawn += callers.len() + callees.len();
                }
            }
        }
        assert!(drawn > 0);
    }

    /// The matrix's sums keep every profile's inclusive values for its
    /// page, with call edges counted apart or not: each the tree's own,
    /// handed to the first page that asks.
    #[test]
    fn the_inclusive_values_summed_are_kept_for_the_pages() {
        let history = history();
        for edges_apart_from in [0, usize::MAX] {
            let hierarchy = Hierarchy::plain(&history.frames, "proj");
            let modifications = Modifications::unknown(history.versions.len(), "");
            let inputs = (hierarchy, modifications);
            let config = MatrixConfig::default();
            let plan = EvolutionPlan::planned(&history, &config, inputs, &Urls, edges_apart_from);
            for (i, p) in history.profiles.iter().enumerate() {
                let tree = &p.profile.tree;
                let held = plan.inclusive.take(i).expect("held");
                let own: Vec<Vec<f64>> = (0..tree.metric_count())
                    .map(|m| tree.inclusive(m))
                    .collect();
                assert_eq!(
                    *held.inclusive, own,
                    "profile {i}, edges apart from {edges_apart_from}"
                );
                assert!(plan.inclusive.take(i).is_none(), "handed twice");
            }
            assert!(plan.inclusive.take(history.profiles.len()).is_none());
        }
    }
}
