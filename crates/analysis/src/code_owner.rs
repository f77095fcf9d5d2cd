//! Which function's code ran a node of a calling-context tree. An engine
//! names some of the work it does for a function with frames of their own
//! that say nothing about where the code is: V8's `RegExp: ^( {0,3}…` (one
//! per regular expression run), builtins, `(garbage collector)`. Such a
//! frame (neither file nor module) counts for its nearest caller that has
//! one: the function whose code ran it. One with no such caller
//! (`(program)`, `(idle)`, a garbage collection at the top of the stack, or
//! every frame of a profile that records names alone) counts for itself.
//!
//! Root causes and the evolution matrix both ask this module, so a
//! function's cost is the same on both.

use model::{CallTree, Frame, FrameId, NodeId};

/// Whether `frame` says where its code is (a file or a module).
pub fn is_placed(frame: &Frame) -> bool {
    frame.file.is_some() || frame.module.is_some()
}

/// For every node of `tree` (indexed by node), the frame whose code ran
/// it: its own frame when `placed`, else that of its nearest placed
/// ancestor, else its own. The root has none.
pub fn owners(tree: &CallTree, placed: impl Fn(FrameId) -> bool) -> Vec<Option<FrameId>> {
    owners_as(tree, |f| (placed(f), Some(f)), None)
}

/// [`owners`], each owner given as what `of` says of its frame (whether
/// it is placed, and a value standing for it, such as its method), and
/// `none` where there is no owner: one pass, without the frames' list in
/// between, and a value type as small as the caller's.
pub fn owners_as<T: Copy>(tree: &CallTree, of: impl Fn(FrameId) -> (bool, T), none: T) -> Vec<T> {
    let mut owner: Vec<T> = vec![none; tree.len()];
    // Whether a node's callees inherit nothing from it: the root, a node
    // without a frame, and one that counts for itself with no placed
    // frame on its path. (Else its owner is the nearest placed frame on
    // its path, itself included: a bit per node rather than a second
    // column of owners, 26 MB on a 3.2 M-node profile.)
    let mut passes_nothing = vec![true; tree.len()];
    for n in tree.node_ids().skip(1) {
        let Some(f) = tree.frame(n) else { continue };
        let inherited = tree
            .parent(n)
            .filter(|p| !passes_nothing[p.index()])
            .map(|p| owner[p.index()]);
        let (placed, value) = of(f);
        let (own, passes) = match (placed, inherited) {
            (true, _) => (value, true),
            (false, Some(o)) => (o, true),
            (false, None) => (value, false),
        };
        owner[n.index()] = own;
        passes_nothing[n.index()] = !passes;
    }
    owner
}

/// The owner of node `n` in `owners`' answer.
pub fn owner_of(owners: &[Option<FrameId>], n: NodeId) -> Option<FrameId> {
    owners.get(n.index()).copied().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{FrameTable, Metric, Profile, Unit};

    /// Frames as a V8 `.cpuprofile` names them: `lex` in a file, a regular
    /// expression and the garbage collector without one.
    #[test]
    fn engine_frames_count_for_the_function_that_ran_them() {
        let mut frames = FrameTable::new();
        let placed = |name: &str| Frame {
            function: name.into(),
            file: Some("file:///w/node_modules/marked/src/Lexer.js".into()),
            ..Frame::default()
        };
        let lex = frames.intern(placed("lex"));
        let regexp = frames.intern_name("RegExp: ^( {0,3}>)");
        let gc = frames.intern_name("(garbage collector)");
        let mut p = Profile::new(vec![Metric::new("samples", Unit::Samples)]);
        let in_lex = p.tree.add_stack([lex, regexp], &[3.0]);
        let top_gc = p.tree.add_stack([gc], &[2.0]);
        let gc_in_regexp = p.tree.add_stack([lex, regexp, gc], &[1.0]);
        // Under a frame that counts for itself, an engine frame counts for
        // itself too; under a placed one below it, for that one.
        let regexp_in_gc = p.tree.add_stack([gc, regexp], &[1.0]);
        let regexp_in_lex_in_gc = p.tree.add_stack([gc, lex, regexp], &[1.0]);
        let o = owners(&p.tree, |f| is_placed(frames.get(f)));
        assert_eq!(owner_of(&o, regexp_in_gc), Some(regexp));
        assert_eq!(owner_of(&o, regexp_in_lex_in_gc), Some(lex));
        assert_eq!(owner_of(&o, in_lex), Some(lex));
        assert_eq!(owner_of(&o, gc_in_regexp), Some(lex));
        assert_eq!(owner_of(&o, top_gc), Some(gc));
        assert_eq!(owner_of(&o, NodeId::ROOT), None);
    }
}
