//! A profile's contributing nodes summed per function: the flat tree's
//! functions and the bottom-up tree's first level are the same sums, taken
//! once for both (a pass over millions of nodes for inclusive values).

use model::FrameId;

use super::{ShapeInputs, ValueOf, Values};

/// Per function, in the order functions are first seen among the
/// contributing nodes (see `ShapeInputs::contributing`), the sum of their
/// values in every metric.
pub(super) struct FunctionSums {
    /// Group + 1 (0: none) per shape frame.
    pub slot: Vec<u32>,
    /// Per group, its function, and the frame of its first node (the flat
    /// tree names its module and file after it).
    pub functions: Vec<FrameId>,
    pub first_frames: Vec<FrameId>,
    /// `metrics` values per group, group after group.
    pub sums: Vec<f64>,
    /// Whether some contributing node has no frame.
    pub frameless: bool,
}

/// What the sums do with a contributing node that has no frame (only a
/// stack cut at a depth limit of 0 makes one).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Frameless {
    /// Counted under frame 0, as the bottom-up tree groups it.
    AsFrameZero,
    /// Left out, as the flat tree does.
    Skipped,
}

impl FunctionSums {
    pub(super) fn of(inputs: &ShapeInputs, values: Values, frameless: Frameless) -> FunctionSums {
        let tree = inputs.tree;
        let metrics = tree.metric_count();
        let function = inputs.function();
        let value = ValueOf::new(inputs, values);
        let mut out = FunctionSums {
            slot: vec![0; inputs.frames.table.len().max(1)],
            functions: Vec::new(),
            first_frames: Vec::new(),
            sums: Vec::new(),
            frameless: false,
        };
        for &n in inputs.contributing(values) {
            // (A node has a function when it has a frame; the frame itself
            // is read from the tree's nodes only for a function's first.)
            let f = match function.of(n) {
                Some(f) => f,
                None => {
                    out.frameless = true;
                    if frameless == Frameless::Skipped {
                        continue;
                    }
                    FrameId(0)
                }
            };
            let at = &mut out.slot[f.0 as usize];
            if *at == 0 {
                out.functions.push(f);
                out.first_frames.push(tree.frame(n).unwrap_or(FrameId(0)));
                out.sums.resize(out.sums.len() + metrics, 0.0);
                *at = out.functions.len() as u32;
            }
            let g = *at as usize - 1;
            for (m, s) in out.sums[g * metrics..(g + 1) * metrics]
                .iter_mut()
                .enumerate()
            {
                *s += value.of(n, m);
            }
        }
        out
    }

    /// The group of function `f`, if any node had it.
    pub fn group(&self, f: FrameId) -> Option<usize> {
        match self.slot.get(f.0 as usize) {
            Some(&at) if at > 0 => Some(at as usize - 1),
            _ => None,
        }
    }
}
