//! Allocation sites: which classes each calling context instantiates
//! directly, how many objects and how many bytes, as far as the input
//! records them (Allocation Sites paper, section III).
//!
//! A profile with allocation data keeps its calling-context tree of
//! *methods* (so flame graphs and matrices show memory like any other
//! metric) and lists here, per node, the classes allocated directly in that
//! context. Profilers that record no type (pprof heap, V8's sampling heap
//! profiler) name the allocating function instead, and say so through
//! [`ClassSource::AllocatingFunction`].

use std::collections::HashMap;

use super::tree::NodeId;
use super::visible::visible;

/// What an allocation site's `count` counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountKind {
    /// Every object (instrumenting profilers, pprof `alloc_objects`).
    Objects,
    /// Sampled allocations (JFR, V8, async-profiler): proportional to the
    /// objects created only as far as the sampler is fair.
    Samples,
    /// No counts: class boxes are sized by bytes instead.
    Unknown,
}

impl CountKind {
    /// How pages name the count, e.g. "objects".
    pub fn noun(self) -> &'static str {
        match self {
            CountKind::Objects => "objects",
            CountKind::Samples => "sampled allocations",
            CountKind::Unknown => "bytes",
        }
    }
}

/// Where the "class" of an allocation site comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassSource {
    /// The profiler recorded the allocated type.
    Recorded,
    /// No type is recorded; the allocating function stands in for it.
    AllocatingFunction,
}

/// The objects of one class created directly in one calling context.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AllocationSite {
    pub node: NodeId,
    /// Index into [`Allocations::classes`].
    pub class: u32,
    /// Objects or samples, see [`Allocations::count_kind`].
    pub count: f64,
    /// Bytes allocated (0 when [`Allocations::bytes_known`] is false).
    pub bytes: f64,
    /// Objects (or samples) of these still alive when the profile was
    /// taken, where the input knows (pprof `inuse_objects`).
    pub live_count: Option<f64>,
    /// Bytes of these still alive when the profile was taken.
    pub live_bytes: Option<f64>,
}

/// The allocation data of one profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocations {
    /// Class names, as [`visible`] text, each once.
    pub classes: Vec<String>,
    pub sites: Vec<AllocationSite>,
    pub count_kind: CountKind,
    pub bytes_known: bool,
    /// What the bytes mean when it is not simply "bytes allocated", e.g.
    /// JFR's weight. Shown on the page.
    pub bytes_note: Option<String>,
    pub class_source: ClassSource,
    /// Calls into each node from its parent's context, indexed by node,
    /// when the profiler counts calls.
    pub calls: Option<Vec<f64>>,
    /// True when the tree's children are in call order (the input records
    /// time); otherwise they are in order of first appearance.
    pub call_order: bool,
    class_index: HashMap<String, u32>,
    /// (node, class) → index into `sites`, so that [`add`](Self::add) stays
    /// constant-time on files with hundreds of thousands of sites.
    site_index: HashMap<(NodeId, u32), usize>,
}

impl Allocations {
    pub fn new(count_kind: CountKind, bytes_known: bool, class_source: ClassSource) -> Self {
        Allocations {
            classes: Vec::new(),
            sites: Vec::new(),
            count_kind,
            bytes_known,
            bytes_note: None,
            class_source,
            calls: None,
            call_order: false,
            class_index: HashMap::new(),
            site_index: HashMap::new(),
        }
    }

    /// The index of class `name` (as the profiler wrote it), added when new.
    pub fn class(&mut self, name: &str) -> u32 {
        let shown = visible(name).into_owned();
        if let Some(&i) = self.class_index.get(&shown) {
            return i;
        }
        let i = self.classes.len() as u32;
        self.class_index.insert(shown.clone(), i);
        self.classes.push(shown);
        i
    }

    /// Adds `count` objects of `bytes` of class `class` at `node`, merged
    /// with an earlier site of the same node and class. Non-finite or
    /// negative amounts are taken as 0 (parsers reject them with a place).
    pub fn add(&mut self, node: NodeId, class: u32, count: f64, bytes: f64) -> usize {
        let clean = |v: f64| if v.is_finite() && v > 0.0 { v } else { 0.0 };
        // Sites pushed onto the public `sites` directly are missing from the
        // index (or moved): then, and only then, the list is searched.
        let same = |s: &AllocationSite| s.node == node && s.class == class;
        let found = match self.site_index.get(&(node, class)) {
            Some(&i) if self.sites.get(i).is_some_and(same) => Some(i),
            None if self.site_index.len() == self.sites.len() => None,
            _ => self.sites.iter().rposition(same),
        };
        if let Some(i) = found {
            self.sites[i].count += clean(count);
            self.sites[i].bytes += clean(bytes);
            self.site_index.insert((node, class), i);
            return i;
        }
        self.sites.push(AllocationSite {
            node,
            class,
            count: clean(count),
            bytes: clean(bytes),
            live_count: None,
            live_bytes: None,
        });
        let i = self.sites.len() - 1;
        self.site_index.insert((node, class), i);
        i
    }

    /// Sets the calls into `node` from its parent's context.
    pub fn set_calls(&mut self, node: NodeId, calls: f64, node_count: usize) {
        let list = self.calls.get_or_insert_with(Vec::new);
        if list.len() < node_count {
            list.resize(node_count, 0.0);
        }
        if let Some(slot) = list.get_mut(node.index()) {
            *slot = if calls.is_finite() && calls > 0.0 {
                calls
            } else {
                0.0
            };
        }
    }

    /// Total count and bytes over every site.
    pub fn totals(&self) -> (f64, f64) {
        self.sites
            .iter()
            .fold((0.0, 0.0), |(c, b), s| (c + s.count, b + s.bytes))
    }

    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_of_one_node_and_class_merge_and_classes_are_interned() {
        let mut a = Allocations::new(CountKind::Objects, true, ClassSource::Recorded);
        let s = a.class("java.lang.String");
        let b = a.class("byte[]");
        assert_eq!(a.class("java.lang.String"), s);
        a.add(NodeId(1), s, 2.0, 48.0);
        a.add(NodeId(1), b, 1.0, 16.0);
        a.add(NodeId(1), s, 1.0, 24.0);
        a.add(NodeId(2), s, f64::NAN, -5.0);
        assert_eq!(a.sites.len(), 3);
        assert_eq!(a.sites[0].count, 3.0);
        assert_eq!(a.sites[0].bytes, 72.0);
        assert_eq!(a.sites[2].count, 0.0);
        assert_eq!(a.totals(), (4.0, 88.0));
        assert_eq!(a.classes, ["java.lang.String", "byte[]"]);
    }

    #[test]
    fn sites_pushed_directly_are_still_merged() {
        let mut a = Allocations::new(CountKind::Objects, true, ClassSource::Recorded);
        let s = a.class("S");
        a.add(NodeId(1), s, 1.0, 8.0);
        a.sites.push(AllocationSite {
            node: NodeId(2),
            class: s,
            count: 1.0,
            bytes: 8.0,
            live_count: None,
            live_bytes: None,
        });
        a.add(NodeId(2), s, 1.0, 8.0);
        a.add(NodeId(1), s, 1.0, 8.0);
        assert_eq!(a.sites.len(), 2);
        assert_eq!(a.totals(), (4.0, 32.0));
        // Many distinct sites: each is added once, in order.
        for n in 3..20_003 {
            a.add(NodeId(n), s, 1.0, 0.0);
        }
        assert_eq!(a.sites.len(), 20_002);
        assert_eq!(a.sites[20_001].node, NodeId(20_002));
    }

    #[test]
    fn class_names_are_kept_as_visible_text() {
        let mut a = Allocations::new(CountKind::Samples, true, ClassSource::Recorded);
        let i = a.class("Evil\u{0}</script>");
        assert!(!a.classes[i as usize].contains('\u{0}'));
        assert!(a.classes[i as usize].contains("</script>"));
    }
}
