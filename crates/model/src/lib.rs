//! The generic representation every input is turned into.
//!
//! A [`Profile`] is a calling-context tree ([`CallTree`]) whose nodes point at
//! interned [`Frame`]s and carry one self value per [`Metric`]; inclusive
//! values are derived; where the input says on which lines of its function
//! a node's self value was spent, a [`LineSelf`] table beside the tree
//! holds it. A [`History`] holds every profile of every benchmark
//! and version, with one [`FrameTable`] shared by all of them so the same
//! method has the same id in every version.

pub mod allocation;
mod component;
pub mod error;
pub mod field;
mod frame;
mod history;
pub mod identity;
mod interned;
pub mod limits;
mod line_fold;
mod line_self;
mod measurement;
mod profile;
mod tree;
mod visible;

pub use allocation::{AllocationSite, Allocations, ClassSource, CountKind};
pub use component::{component_path, stable_path, Component, Language};
pub use error::{BuildError, ErrorKind, InputError, ParseError, Place};
pub use frame::{Frame, FrameId, FrameTable};
pub use history::{skipped_files, Benchmark, History, Note, ProfileEntry, Skipped, Version};
pub use identity::{FunctionIds, IdentityNotes, PathRules};
pub use interned::intern;
pub use line_fold::{
    fold_sampled_lines, line_granularity, set_line_granularity, FoldWhileBuilding,
};
pub use line_self::LineSelf;
pub use measurement::{Better, Interval, MeasuredBenchmark, MeasurementEntry, Moments, RunMeans};
pub use profile::{Metric, Profile, Timeline, TimelineSample, Unit};
pub use tree::{CallTree, NodeId, Visit};
pub use visible::visible;
