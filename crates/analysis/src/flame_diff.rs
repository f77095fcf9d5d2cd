//! Differential flame graphs (EasyView section VI-A-b): two profiles merged
//! by whole path from the root, every node tagged `[A]` added, `[D]` deleted,
//! `[+]` grew or `[−]` shrank, by its inclusive or its exclusive value.
//!
//! The graph is drawn on one version's values, the newer by default (as
//! Brendan Gregg's differential flame graphs and inferno's `--diff` draw
//! the second profile's widths), so a frame ten times slower is as wide
//! as it is in the newer profile; the older version's values are the
//! comparison, given by colour and tag. [`Side::Old`] draws the same
//! tree on the older version's values instead, where deleted frames have
//! their width (added ones have none). The tree table orders and prunes
//! its rows by the mean of the two ([`TABLE_METRIC`]), so frames of
//! either version have rows. With `normalise`, each profile's values are
//! divided by its total first: shares are compared instead of amounts.

use model::{CallTree, NodeId};

use super::shapes;

/// How a node changed from the old profile to the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    Added,
    Deleted,
    Grew,
    Shrank,
    Same,
}

impl Tag {
    pub fn of(old: f64, new: f64) -> Tag {
        match (old, new) {
            (o, n) if o == 0.0 && n != 0.0 => Tag::Added,
            (o, n) if n == 0.0 && o != 0.0 => Tag::Deleted,
            (o, n) if n > o => Tag::Grew,
            (o, n) if n < o => Tag::Shrank,
            _ => Tag::Same,
        }
    }

    /// The bracketed tag shown before a frame's name.
    pub fn mark(self) -> &'static str {
        match self {
            Tag::Added => "[A]",
            Tag::Deleted => "[D]",
            Tag::Grew => "[+]",
            Tag::Shrank => "[−]",
            Tag::Same => "[=]",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Tag::Added => "added",
            Tag::Deleted => "deleted",
            Tag::Grew => "grew",
            Tag::Shrank => "shrank",
            Tag::Same => "unchanged",
        }
    }
}

/// Old and new values of one node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    pub old: f64,
    pub new: f64,
}

impl Change {
    pub fn tag(self) -> Tag {
        Tag::of(self.old, self.new)
    }

    pub fn delta(self) -> f64 {
        self.new - self.old
    }

    /// (new − old) / old; `None` when the node is new.
    pub fn relative(self) -> Option<f64> {
        (self.old != 0.0).then(|| (self.new - self.old) / self.old)
    }
}

/// Two single-metric trees merged for a differential view.
#[derive(Debug, Clone)]
pub struct FlameDiff {
    /// Metrics: 0 old, 1 new, 2 their mean (the table's order).
    pub tree: CallTree,
    old_inclusive: Vec<f64>,
    new_inclusive: Vec<f64>,
    pub old_total: f64,
    pub new_total: f64,
    pub normalised: bool,
}

/// The version whose values a differential graph's widths are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Old,
    New,
}

impl Side {
    /// Both, the default (newer) first.
    pub const ALL: [Side; 2] = [Side::New, Side::Old];

    /// Metric of [`FlameDiff::tree`] that widths are drawn from.
    pub fn metric(self) -> usize {
        match self {
            Side::Old => 0,
            Side::New => 1,
        }
    }

    /// This side's total of `diff` (1 when normalised and not empty).
    pub fn total(self, diff: &FlameDiff) -> f64 {
        let root = diff.inclusive(NodeId::ROOT);
        match self {
            Side::Old => root.old,
            Side::New => root.new,
        }
    }
}

/// Metric of [`FlameDiff::tree`] the tree table is ordered and pruned by:
/// the mean of the two versions, so deleted and added frames both have
/// rows.
pub const TABLE_METRIC: usize = 2;

/// Diffs `old` and `new` (each with one metric).
pub fn diff(old: &CallTree, new: &CallTree, normalise: bool) -> FlameDiff {
    let (old_total, new_total) = (old.total(0), new.total(0));
    let scale = if normalise {
        [share_factor(old_total), share_factor(new_total)]
    } else {
        [1.0, 1.0]
    };
    let tree = shapes::merge(&[old, new], &scale);
    FlameDiff {
        old_inclusive: tree.inclusive(0),
        new_inclusive: tree.inclusive(1),
        tree,
        old_total,
        new_total,
        normalised: normalise,
    }
}

fn share_factor(total: f64) -> f64 {
    if total > 0.0 {
        1.0 / total
    } else {
        0.0
    }
}

impl FlameDiff {
    /// Inclusive old and new values (shares when normalised).
    pub fn inclusive(&self, node: NodeId) -> Change {
        Change {
            old: self.old_inclusive[node.index()],
            new: self.new_inclusive[node.index()],
        }
    }

    /// Exclusive old and new values (shares when normalised).
    pub fn exclusive(&self, node: NodeId) -> Change {
        Change {
            old: self.tree.self_value(node, 0),
            new: self.tree.self_value(node, 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{FrameId, FrameTable};

    fn tree(frames: &mut FrameTable, stacks: &[(&str, f64)]) -> CallTree {
        let mut t = CallTree::new(1);
        for (s, v) in stacks {
            let ids: Vec<FrameId> = s.split(';').map(|f| frames.intern_name(f)).collect();
            t.add_stack(ids, &[*v]);
        }
        t
    }

    fn node(d: &FlameDiff, frames: &FrameTable, path: &str) -> NodeId {
        path.split(';').fold(NodeId::ROOT, |n, name| {
            let f = frames.iter().find(|(_, f)| f.function == name).unwrap().0;
            d.tree
                .find_child(n, f)
                .unwrap_or_else(|| panic!("no {path}"))
        })
    }

    #[test]
    fn frames_only_in_the_old_profile_are_deleted_and_keep_their_older_width() {
        let mut frames = FrameTable::new();
        let old = tree(&mut frames, &[("main;parse", 6.0), ("main;render", 4.0)]);
        let new = tree(&mut frames, &[("main;render", 7.0), ("main;cache", 1.0)]);
        let d = diff(&old, &new, false);
        let parse = node(&d, &frames, "main;parse");
        assert_eq!(d.inclusive(parse).tag(), Tag::Deleted);
        assert_eq!(d.tree.inclusive(TABLE_METRIC)[parse.index()], 3.0);
        // Drawn on the newer version it has no width; on the older, its own.
        assert_eq!(d.tree.inclusive(Side::New.metric())[parse.index()], 0.0);
        assert_eq!(d.tree.inclusive(Side::Old.metric())[parse.index()], 6.0);
        let cache = node(&d, &frames, "main;cache");
        assert_eq!(d.inclusive(cache).tag(), Tag::Added);
        assert_eq!(d.inclusive(cache).relative(), None);
        let render = node(&d, &frames, "main;render");
        assert_eq!(d.inclusive(render).tag(), Tag::Grew);
        assert_eq!(d.inclusive(render).relative(), Some(0.75));
        let main = node(&d, &frames, "main");
        // main shrank overall (10 → 8) though its own self value is unchanged.
        assert_eq!(d.inclusive(main).tag(), Tag::Shrank);
        assert_eq!(d.exclusive(main).tag(), Tag::Same);
        assert_eq!(d.inclusive(main).delta(), -2.0);
    }

    #[test]
    fn a_function_ten_times_slower_is_drawn_at_its_newer_width() {
        let mut frames = FrameTable::new();
        let old = tree(&mut frames, &[("main;f", 10.0), ("main;g", 90.0)]);
        let new = tree(&mut frames, &[("main;f", 100.0), ("main;g", 90.0)]);
        let d = diff(&old, &new, false);
        let f = node(&d, &frames, "main;f");
        let width = |side: Side| {
            let inc = d.tree.inclusive(side.metric());
            inc[f.index()] / inc[0]
        };
        assert_eq!(width(Side::New), 100.0 / 190.0);
        assert_eq!(width(Side::Old), 10.0 / 100.0);
        assert_eq!((Side::Old.total(&d), Side::New.total(&d)), (100.0, 190.0));
    }

    #[test]
    fn recursive_frames_match_level_by_level() {
        let mut frames = FrameTable::new();
        let old = tree(&mut frames, &[("main;f;f", 2.0), ("main;f", 1.0)]);
        let new = tree(&mut frames, &[("main;f;f;f", 2.0), ("main;f", 1.0)]);
        let d = diff(&old, &new, false);
        let inner = node(&d, &frames, "main;f;f");
        assert_eq!(d.exclusive(inner).tag(), Tag::Deleted);
        assert_eq!(d.inclusive(inner).tag(), Tag::Same);
        let innermost = node(&d, &frames, "main;f;f;f");
        assert_eq!(d.inclusive(innermost).tag(), Tag::Added);
        assert_eq!(d.inclusive(innermost).new, 2.0);
    }

    #[test]
    fn normalising_compares_shares() {
        let mut frames = FrameTable::new();
        let old = tree(&mut frames, &[("main;a", 1.0), ("main;b", 1.0)]);
        let new = tree(&mut frames, &[("main;a", 3.0), ("main;b", 1.0)]);
        let raw = diff(&old, &new, false);
        let b = node(&raw, &frames, "main;b");
        assert_eq!(raw.inclusive(b).tag(), Tag::Same);
        let shares = diff(&old, &new, true);
        let b = node(&shares, &frames, "main;b");
        assert_eq!(
            shares.inclusive(b),
            Change {
                old: 0.5,
                new: 0.25
            }
        );
        assert_eq!(shares.inclusive(b).tag(), Tag::Shrank);
        assert_eq!(shares.tree.inclusive(TABLE_METRIC)[0], 1.0);
        assert_eq!(Side::New.total(&shares), 1.0);
        assert_eq!(Side::Old.total(&shares), 1.0);
    }
}
