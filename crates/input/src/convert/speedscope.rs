//! `convert --to speedscope`: a profile as speedscope's JSON file format
//! (<https://www.speedscope.app/file-format-schema.json>), for
//! speedscope.app and the `speedscope` command.
//!
//! * One `"sampled"` profile per metric, named after the metric; its unit
//!   is `nanoseconds` for time, `bytes` for bytes and `none` otherwise
//!   (speedscope knows no other units).
//! * The frames are shared by all profiles: `name`, `file` and `line` of
//!   each perfatlas frame (frames differing only in module or first line
//!   become equal in speedscope).
//! * Each profile has one sample per calling context with a non-zero self
//!   value of its metric, root-first frame indices, weighted by that value,
//!   in tree order. Negative values (pprof differences) are left out:
//!   speedscope has no negative weights. The time order of samples is not written, so
//!   speedscope's "Time Order" view shows the stacks grouped.
//!
//! The `exporter` field says `perfatlas VERSION`; perfatlas's speedscope
//! reader reads such a file back with one metric per profile (see
//! `crate::speedscope`).

use std::io::{self, Write};

use serde::Serialize;

use crate::Parsed;
use model::{CallTree, NodeId, Unit};

/// The `exporter` of files perfatlas writes; the reader looks for it.
pub const EXPORTER: &str = "perfatlas";

#[derive(Serialize)]
struct File<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    exporter: String,
    name: &'a str,
    #[serde(rename = "activeProfileIndex")]
    active_profile_index: usize,
    shared: Shared<'a>,
    profiles: Vec<Profile<'a>>,
}

#[derive(Serialize)]
struct Shared<'a> {
    frames: Vec<Frame<'a>>,
}

#[derive(Serialize)]
struct Frame<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Profile<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    unit: &'static str,
    start_value: f64,
    end_value: f64,
    samples: Vec<Vec<u32>>,
    weights: Vec<f64>,
}

/// Writes `parsed` as a speedscope file named `name` (shown by
/// speedscope as the title). `metrics` are the indices of the metrics to
/// write, each becoming one profile.
pub fn write(
    parsed: &Parsed,
    name: &str,
    metrics: &[usize],
    out: &mut dyn Write,
) -> io::Result<()> {
    let frames = parsed
        .frames
        .iter()
        .map(|(_, f)| Frame {
            name: &f.function,
            file: f.file.as_deref(),
            line: f.line.filter(|&l| l > 0),
        })
        .collect();
    let file = File {
        schema: "https://www.speedscope.app/file-format-schema.json",
        exporter: format!("{EXPORTER} {}", env!("CARGO_PKG_VERSION")),
        name,
        active_profile_index: 0,
        shared: Shared { frames },
        profiles: metrics.iter().map(|&m| profile(parsed, m)).collect(),
    };
    let mut out = io::BufWriter::new(out);
    serde_json::to_writer(&mut out, &file)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// The sampled profile of metric `m`.
fn profile(parsed: &Parsed, m: usize) -> Profile<'_> {
    let metric = &parsed.profile.metrics[m];
    let tree = &parsed.profile.tree;
    let mut samples = Vec::new();
    let mut weights = Vec::new();
    for node in tree.node_ids() {
        let value = tree.self_value(node, m);
        // speedscope has no negative weights (pprof differences).
        if value > 0.0 {
            samples.push(root_first(tree, node));
            weights.push(value);
        }
    }
    Profile {
        kind: "sampled",
        name: &metric.name,
        unit: match metric.unit {
            Unit::Nanoseconds => "nanoseconds",
            Unit::Bytes => "bytes",
            _ => "none",
        },
        start_value: 0.0,
        end_value: weights.iter().sum(),
        samples,
        weights,
    }
}

/// The frame indices of `node`'s stack, root first.
fn root_first(tree: &CallTree, node: NodeId) -> Vec<u32> {
    let mut stack = Vec::with_capacity(tree.depth(node) as usize);
    let mut at = Some(node);
    while let Some(n) = at {
        match tree.frame(n) {
            Some(frame) => stack.push(frame.0),
            None => break,
        }
        at = tree.parent(n);
    }
    stack.reverse();
    stack
}
