//! A profile: metrics, its calling-context tree, and (where the input has
//! one) the time order of its samples.

use serde::{Deserialize, Serialize};

use super::allocation::{Allocations, ClassSource, CountKind};
use super::frame::FrameTable;
use super::line_self::LineSelf;
use super::tree::{CallTree, NodeId};

/// What a metric counts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Samples,
    Nanoseconds,
    Bytes,
    Objects,
    Count,
    #[serde(untagged)]
    Other(String),
}

impl Unit {
    /// Maps a unit name as profilers write it ("nanoseconds", "ms", "bytes",
    /// "count", …) to a unit; time units other than nanoseconds are reported
    /// by [`Unit::nanoseconds_per`] so values can be scaled.
    pub fn parse(name: &str) -> Unit {
        match name.to_ascii_lowercase().as_str() {
            "samples" | "sample" => Unit::Samples,
            "nanoseconds" | "ns" | "microseconds" | "us" | "milliseconds" | "ms" | "seconds"
            | "s" => Unit::Nanoseconds,
            "bytes" | "byte" => Unit::Bytes,
            "objects" | "object" => Unit::Objects,
            "count" | "none" | "" => Unit::Count,
            // As written: `MB/s` is not `mb/s`, nor `Mbit` `mbit`.
            _ => Unit::Other(name.to_string()),
        }
    }

    /// Factor that converts a value in the time unit `name` to nanoseconds.
    pub fn nanoseconds_per(name: &str) -> Option<f64> {
        match name.to_ascii_lowercase().as_str() {
            "nanoseconds" | "ns" => Some(1.0),
            "microseconds" | "us" => Some(1e3),
            "milliseconds" | "ms" => Some(1e6),
            "seconds" | "s" => Some(1e9),
            _ => None,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Unit::Samples => "samples",
            Unit::Nanoseconds => "nanoseconds",
            Unit::Bytes => "bytes",
            Unit::Objects => "objects",
            Unit::Count => "count",
            Unit::Other(s) => s,
        }
    }
}

/// A named quantity with a unit, e.g. `cpu` in nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub unit: Unit,
}

impl Metric {
    pub fn new(name: impl Into<String>, unit: Unit) -> Metric {
        Metric {
            name: name.into(),
            unit,
        }
    }
}

/// One interval of the run spent in one calling context (the leaf node).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimelineSample {
    /// Start, in nanoseconds from the start of the profile.
    pub start_ns: f64,
    /// Length of the interval in nanoseconds (0 when the profiler gives
    /// instants only).
    pub duration_ns: f64,
    pub node: NodeId,
}

/// The time order of a profile's samples, kept for execution timelines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub samples: Vec<TimelineSample>,
}

/// A parsed profile.
#[derive(Debug, Clone)]
pub struct Profile {
    pub metrics: Vec<Metric>,
    pub tree: CallTree,
    /// Present when the input records when each sample happened.
    pub timeline: Option<Timeline>,
    /// Present when the input records what each context allocates.
    pub allocations: Option<Box<Allocations>>,
    /// Per tree node, the calls the profiler counted from the node's
    /// caller (its parent's function) into its function, over every
    /// calling context; for a top-level node, all calls of its function.
    /// Only inputs that count calls have them (Python's cProfile); `None`
    /// elsewhere. Indexed by node id.
    pub call_counts: Option<Vec<f64>>,
    /// Where on its function's lines each node's self value was spent,
    /// when the input says (V8's `positionTicks`); `None` elsewhere. The
    /// tree keeps one frame per function whatever the lines.
    pub line_self: Option<LineSelf>,
    /// Per tree node, whether its function was inlined into its caller
    /// (the parent's function) at this call, as pprof records inlining:
    /// the lines of one location. Kept so an export gives `go tool pprof`
    /// its `(inline)` marks back; `None` when the input does not say.
    /// Indexed by node id.
    pub inlined: Option<Vec<bool>>,
    /// What the reader of the profile's pages should know about the input
    /// that the tree cannot show and that is no fault of the file (a fault
    /// is a warning, and makes the input "skipped"): e.g. samples a V8 heap
    /// profile could not place. Whole sentences, shown on the profile's
    /// pages and in the build's summary.
    pub notes: Vec<String>,
}

impl Profile {
    /// A profile being read from one input file: its tree is
    /// [`bounded`](CallTree::bounded) until the file has been checked.
    pub fn new(metrics: Vec<Metric>) -> Profile {
        let tree = CallTree::bounded(metrics.len());
        Profile {
            metrics,
            tree,
            timeline: None,
            allocations: None,
            call_counts: None,
            line_self: None,
            inlined: None,
            notes: Vec::new(),
        }
    }

    /// Allocation sites read from self values, for inputs that record no
    /// allocated type (pprof heap, V8 heap profiles): every context with a
    /// non-zero self value of the `count` or `bytes` metric allocated
    /// "objects of" its own function. `live` names the metrics of what is
    /// still in use (pprof `inuse_objects`, `inuse_space`).
    pub fn allocations_by_function(
        &mut self,
        frames: &FrameTable,
        count: Option<usize>,
        bytes: Option<usize>,
        live: (Option<usize>, Option<usize>),
    ) {
        let kind = if count.is_some() {
            CountKind::Objects
        } else {
            CountKind::Unknown
        };
        let mut alloc = Allocations::new(kind, bytes.is_some(), ClassSource::AllocatingFunction);
        let value = |m: Option<usize>, node: NodeId| m.map(|m| self.tree.self_value(node, m));
        for node in self.tree.node_ids() {
            let Some(frame) = self.tree.frame(node) else {
                continue;
            };
            let (c, b) = (value(count, node), value(bytes, node));
            let (lc, lb) = (value(live.0, node), value(live.1, node));
            let any = [c, b, lc, lb].iter().any(|v| v.is_some_and(|v| v > 0.0));
            if !any {
                continue;
            }
            let class = alloc.class(&frames.get(frame).function);
            let i = alloc.add(node, class, c.unwrap_or(0.0), b.unwrap_or(0.0));
            alloc.sites[i].live_count = lc;
            alloc.sites[i].live_bytes = lb;
        }
        if !alloc.is_empty() {
            self.allocations = Some(Box::new(alloc));
        }
    }

    /// Totals per metric, in metric order.
    pub fn totals(&self) -> Vec<f64> {
        (0..self.metrics.len())
            .map(|m| self.tree.total(m))
            .collect()
    }
}
