//! From pstats' call graph to a calling-context tree, with
//! [`crate::call_graph`] (as flame-graph tools for cProfile, flameprof and
//! snakeviz's icicle, do it):
//!
//! - The roots are the functions whose time their callers in the file do
//!   not account for (see [`root_part`]); for `python -m cProfile`,
//!   `builtins.exec`, which runs the script.
//! - A function's `cumtime` is the whole its callee edges share (each
//!   edge's own `cumtime`), and its `tottime` is its own cost.
//! - cProfile counts recursion once in `tottime` and `cumtime`, so cutting
//!   recursion where the function is already on the path loses nothing.
//!   In a cycle of several functions (`a → b → a`) the whole cycle stays
//!   under its entry `a`: `b`'s cumulative time in the tree is then less
//!   than pstats' `cumtime`, which counts the nested `a` calls.

use super::Stats;
use crate::call_graph::{self, Edge, Function, Graph};
use model::{CallTree, FrameId};

/// Grows `tree` (empty, one metric: nanoseconds) from `stats`, whose
/// function `i` has frame `ids[i]`. Returns notes for the reader.
pub fn build(stats: &Stats, ids: &[FrameId], tree: &mut CallTree) -> Vec<String> {
    let functions = &stats.functions;
    let mut graph = Graph::default();
    for (i, (f, &frame)) in functions.iter().zip(ids).enumerate() {
        graph.functions.push(Function {
            frame,
            own: vec![f.stat.tottime * 1e9],
            whole: vec![f.stat.cumtime],
            root: vec![root_part(stats, i)],
        });
    }
    for (g, f) in functions.iter().enumerate() {
        for (caller, stat) in &f.callers {
            graph.edges.push(Edge {
                caller: *caller,
                callee: g,
                cost: vec![stat.cumtime],
            });
        }
    }
    let built = call_graph::build(&graph, tree);
    let mut notes = Vec::new();
    notes.push(
        "cProfile records a call graph, not stacks: this tree shares each function's own time among its callers in proportion to their cumulative time (as flameprof and snakeviz do), so each function's own time is exact but its split across call paths is an estimate; recursion and call cycles are folded into their outermost call.".to_string(),
    );
    if built.cut {
        notes.push(call_graph::cut_note());
    }
    notes
}

/// The part of function `i`'s time that its callers in the file do not
/// account for: all of it (its `cumtime`, or `tottime` when that is 0)
/// when nothing else calls it, else what its `cumtime` exceeds the sum of
/// its callers' parts by (`builtins.exec` runs the script, and the
/// imports the script makes call it again).
fn root_part(stats: &Stats, i: usize) -> f64 {
    let f = &stats.functions[i];
    let mut callers = f.callers.iter().filter(|(c, _)| *c != i).peekable();
    if callers.peek().is_none() {
        return if f.stat.cumtime > 0.0 {
            f.stat.cumtime
        } else {
            f.stat.tottime
        };
    }
    let called: f64 = callers.map(|(_, s)| s.cumtime).sum();
    let rest = f.stat.cumtime - called;
    // Below a millionth, the difference is rounding in the sums.
    if rest > f.stat.cumtime * 1e-6 {
        rest
    } else {
        0.0
    }
}
