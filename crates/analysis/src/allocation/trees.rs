//! The allocation-site trees of a whole history: one per benchmark and
//! version that has allocation sites, and the class colours they share (so
//! a class has one colour on every page).

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::palette::Palette;
use super::AllocTree;
use model::History;

/// The allocation-site tree of one benchmark in one version.
pub struct Entry {
    pub benchmark: String,
    pub version: usize,
    pub tree: AllocTree,
}

/// Every tree of the history, by benchmark then version, and the class
/// colours they share.
pub struct Trees {
    pub entries: Vec<Entry>,
    pub palette: Palette,
}

impl Trees {
    pub fn new(history: &History) -> Trees {
        let keys: Vec<(String, usize)> = history
            .benchmarks()
            .into_iter()
            .flat_map(|b| (0..history.versions.len()).map(move |v| (b.clone(), v)))
            .collect();
        let entries: Vec<Entry> = keys
            .into_par_iter()
            .filter_map(|(benchmark, version)| {
                let profiles: Vec<_> = history
                    .profiles_of(&benchmark, version)
                    .map(|p| &p.profile)
                    .collect();
                let tree = super::build(&profiles, &history.frames)?;
                Some(Entry {
                    benchmark,
                    version,
                    tree,
                })
            })
            .collect();
        let mut totals: BTreeMap<String, f64> = BTreeMap::new();
        for e in &entries {
            for (name, t) in e.tree.classes.iter().zip(e.tree.class_totals()) {
                *totals.entry(name.clone()).or_default() += e.tree.rank_amount(t);
            }
        }
        let palette = Palette::new(&totals);
        Trees { entries, palette }
    }

    /// The entry of `benchmark` before `at` (same benchmark, earlier version).
    pub fn previous(&self, at: usize) -> Option<&Entry> {
        let e = &self.entries[at];
        at.checked_sub(1)
            .map(|p| &self.entries[p])
            .filter(|p| p.benchmark == e.benchmark)
    }

    pub fn next(&self, at: usize) -> Option<&Entry> {
        let e = &self.entries[at];
        self.entries
            .get(at + 1)
            .filter(|n| n.benchmark == e.benchmark)
    }
}
