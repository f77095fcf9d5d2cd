//! The component hierarchy of a whole history: project → packages →
//! classes → methods, built once from the shared frame table so a method
//! has the same id in every version and benchmark.
//!
//! Frames that differ only by line (or start line, or source hash) belong
//! to the same method; the method is what [`component_path`] derives.

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use crate::origin::{self, Origin, Place};
use model::{component_path, FrameId, FrameTable, FunctionIds};

/// Depth of a component in the hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Project,
    Package,
    Class,
    Method,
}

impl Level {
    /// 1 for the project, 4 for methods (the config's `matrix.depth`).
    pub fn depth(self) -> u8 {
        match self {
            Level::Project => 1,
            Level::Package => 2,
            Level::Class => 3,
            Level::Method => 4,
        }
    }
}

/// Index of a component in a [`Hierarchy`]; `CompId(0)` is the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CompId(pub u32);

impl CompId {
    pub const PROJECT: CompId = CompId(0);
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One component.
#[derive(Debug, Clone)]
pub struct Comp {
    pub level: Level,
    /// Its name at its level: `markdown`, `core.py`, `Markdown.convert`.
    pub name: String,
    /// Unique, stable across versions: the names from the project down,
    /// joined by `\u{1f}`.
    pub key: String,
    pub parent: Option<CompId>,
    /// Whose code it is (a container: the program's when any of its
    /// methods is).
    pub origin: Origin,
}

/// Every component of a history, and the method of every frame.
/// A component's place: package, class, method ("" above its level) and
/// level.
type Key<'a> = (&'a str, &'a str, &'a str, Level);

/// The method a file-less frame counts as: V8 names a node per regular
/// expression it ran (`RegExp: ^( {0,3}…`), hundreds in a parser's
/// profile; they are one method of the engine's, so the matrix has one
/// row for them, not one per expression. Other names are kept.
fn engine_method(name: String) -> String {
    if name.starts_with("RegExp: ") || name == "RegExp:" {
        REGEXPS.to_string()
    } else {
        name
    }
}

/// The method every regular expression V8 ran counts as.
pub const REGEXPS: &str = "(regular expressions)";

#[derive(Debug, Clone)]
pub struct Hierarchy {
    pub comps: Vec<Comp>,
    /// Frame id → its method's component.
    frame_method: Vec<CompId>,
    /// Component → its place, for methods ([`crate::origin`]).
    method_place: Vec<Option<Place>>,
    /// Frame id → whether it says where its code is
    /// ([`crate::code_owner::is_placed`]).
    frame_placed: Vec<bool>,
}

impl Hierarchy {
    /// The hierarchy of `frames` by name and version-independent file alone
    /// (no versions known), as tests build it.
    pub fn plain(frames: &FrameTable, project: &str) -> Hierarchy {
        let ids = FunctionIds::of_frames(frames, &model::PathRules::default());
        Hierarchy::new(frames, &ids, project)
    }

    /// Builds the hierarchy of every frame in `frames`, each placed by its
    /// function as `ids` says (see [`model::identity`]). Component
    /// ids are assigned in key order, so they do not depend on load order.
    pub fn new(frames: &FrameTable, ids: &FunctionIds, project: &str) -> Hierarchy {
        // Each frame's component path, on every core (a name-rich profile
        // has tens of thousands of frames).
        let (paths, places): (Vec<[String; 3]>, Vec<_>) = (0..frames.len() as u32)
            .into_par_iter()
            .map(|i| {
                let id = FrameId(i);
                let function = ids.function(id, frames.get(id));
                let c = component_path(&function);
                let method = match function.file.is_none() && function.module.is_none() {
                    true => engine_method(c.method),
                    false => c.method,
                };
                ([c.package, c.class, method], origin::place(&function))
            })
            .unzip();
        // Sorted keys of every package, class and method (borrowed from
        // the paths: sorting and looking up owned keys was most of the
        // time on big histories).
        // A package's and a class's key are pushed once, not once per
        // frame: a profile of a million functions in a few classes would
        // otherwise sort three million keys, most of them equal.
        let mut keys: Vec<Key> = Vec::with_capacity(paths.len());
        let mut packages: FxHashSet<&str> = FxHashSet::default();
        let mut classes: FxHashSet<(&str, &str)> = FxHashSet::default();
        for [p, c, m] in &paths {
            if packages.insert(p) {
                keys.push((p, "", "", Level::Package));
            }
            if classes.insert((p, c)) {
                keys.push((p, c, "", Level::Class));
            }
            keys.push((p, c, m, Level::Method));
        }
        drop((packages, classes));
        keys.par_sort_unstable();
        keys.dedup();
        let mut comps = vec![Comp {
            level: Level::Project,
            name: project.to_string(),
            key: String::new(),
            parent: None,
            origin: Origin::Program,
        }];
        // A parent's key sorts before its children's, so it has its id
        // when they come.
        let mut ids: FxHashMap<Key, CompId> = FxHashMap::default();
        ids.reserve(keys.len());
        for &(p, c, m, level) in &keys {
            let (name, parent) = match level {
                Level::Package => (p, CompId::PROJECT),
                Level::Class => (c, ids[&(p, "", "", Level::Package)]),
                _ => (m, ids[&(p, c, "", Level::Class)]),
            };
            let key = match level {
                Level::Package => p.to_string(),
                Level::Class => format!("{p}\u{1f}{c}"),
                _ => format!("{p}\u{1f}{c}\u{1f}{m}"),
            };
            ids.insert((p, c, m, level), CompId(comps.len() as u32));
            comps.push(Comp {
                level,
                name: name.to_string(),
                key,
                parent: Some(parent),
                origin: Origin::Engine,
            });
        }
        let frame_method: Vec<CompId> = paths
            .iter()
            .map(|[p, c, m]| ids[&(p.as_str(), c.as_str(), m.as_str(), Level::Method)])
            .collect();
        let method_place = method_places(&comps, &frame_method, &places);
        set_origins(&mut comps, &method_place);
        comps.shrink_to_fit();
        Hierarchy {
            comps,
            frame_method,
            method_place,
            frame_placed: frames
                .iter()
                .map(|(_, f)| crate::code_owner::is_placed(f))
                .collect(),
        }
    }

    /// Tells the program's code by the repository: a method with a file
    /// is the program's when `held` (the methods whose file the
    /// repository holds) has it, and the harness's otherwise (a bench or
    /// test file stays the harness's, code known by its module alone the
    /// program's). When the
    /// repository holds none of them (its paths did not map), the files'
    /// places decide as before.
    pub fn place_by_repository(&mut self, held: &std::collections::BTreeSet<CompId>) {
        if held.is_empty() {
            return;
        }
        let places: Vec<Option<Place>> = self
            .method_place
            .iter()
            .enumerate()
            .map(|(i, p)| {
                p.map(|p| match p {
                    Place::Program | Place::Absolute if held.contains(&CompId(i as u32)) => {
                        Place::Program
                    }
                    Place::Program | Place::Absolute => Place::Harness,
                    other => other,
                })
            })
            .collect();
        set_origins(&mut self.comps, &places);
    }

    pub fn len(&self) -> usize {
        self.comps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.comps.len() <= 1
    }

    pub fn get(&self, id: CompId) -> &Comp {
        &self.comps[id.index()]
    }

    /// The method component of a frame.
    pub fn method_of(&self, frame: FrameId) -> CompId {
        self.frame_method[frame.0 as usize]
    }

    /// How many frames the hierarchy was built with (frame ids below it).
    pub fn frame_count(&self) -> usize {
        self.frame_method.len()
    }

    /// The method component of a frame, `None` for a frame the hierarchy
    /// was not built with (a shape's frame made from no history frame).
    pub fn method_of_known(&self, frame: FrameId) -> Option<CompId> {
        self.frame_method.get(frame.0 as usize).copied()
    }

    /// Whether a frame says where its code is (a frame the hierarchy does
    /// not know counts as placed: it stands for itself).
    pub fn is_placed(&self, frame: FrameId) -> bool {
        self.frame_placed
            .get(frame.0 as usize)
            .copied()
            .unwrap_or(true)
    }

    /// The ancestor of `id` at `level` (itself when already there).
    pub fn at_level(&self, mut id: CompId, level: Level) -> CompId {
        while self.comps[id.index()].level > level {
            match self.comps[id.index()].parent {
                Some(p) => id = p,
                None => break,
            }
        }
        id
    }

    /// Names from the package down, for display: `markdown › core.py ›
    /// Markdown.convert`.
    pub fn path_name(&self, id: CompId) -> String {
        let mut parts = Vec::new();
        let mut at = Some(id);
        while let Some(c) = at {
            if c != CompId::PROJECT {
                parts.push(self.comps[c.index()].name.as_str());
            }
            at = self.comps[c.index()].parent;
        }
        parts.reverse();
        if parts.is_empty() {
            self.comps[0].name.clone()
        } else {
            parts.join(" › ")
        }
    }
}

/// Each method's place: the best of its frames' (`None` for containers).
fn method_places(comps: &[Comp], frame_method: &[CompId], places: &[Place]) -> Vec<Option<Place>> {
    let mut method_place: Vec<Option<Place>> = vec![None; comps.len()];
    for (m, p) in frame_method.iter().zip(places) {
        let slot = &mut method_place[m.index()];
        *slot = Some(slot.map_or(*p, |q| q.min(*p)));
    }
    method_place
}

/// Each method's origin from its place, each container's the best of its
/// methods' (the project is the program's).
fn set_origins(comps: &mut [Comp], method_place: &[Option<Place>]) {
    let methods: Vec<usize> = (0..comps.len())
        .filter(|&i| method_place[i].is_some())
        .collect();
    for c in comps.iter_mut().skip(1) {
        c.origin = Origin::Engine;
    }
    let found: Vec<Place> = methods.iter().filter_map(|&i| method_place[i]).collect();
    for (&i, o) in methods.iter().zip(origin::origins(&found)) {
        comps[i].origin = o;
        let mut at = comps[i].parent;
        while let Some(p) = at.filter(|p| *p != CompId::PROJECT) {
            let parent = &mut comps[p.index()];
            parent.origin = parent.origin.min(o);
            at = parent.parent;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::Frame;

    #[test]
    fn frames_of_one_method_share_a_component_and_ids_follow_keys() {
        let mut frames = FrameTable::new();
        let line = |l: u32| Frame {
            function: "Markdown.convert".into(),
            file: Some("markdown/core.py".into()),
            line: Some(l),
            ..Frame::default()
        };
        let a = frames.intern(line(361));
        let b = frames.intern(line(384));
        let z = frames.intern_name("zlib.compress");
        let h = Hierarchy::plain(&frames, "proj");
        assert_eq!(h.method_of(a), h.method_of(b));
        let m = h.method_of(a);
        assert_eq!(h.get(m).level, Level::Method);
        assert_eq!(h.path_name(m), "markdown › core.py › Markdown.convert");
        let class = h.at_level(m, Level::Class);
        assert_eq!(h.get(class).name, "core.py");
        assert_eq!(h.at_level(m, Level::Project), CompId::PROJECT);
        // Packages sort by name: "markdown" before "zlib".
        let pkg_of = |f| h.at_level(h.method_of(f), Level::Package);
        assert!(pkg_of(a) < pkg_of(z));
    }
}
