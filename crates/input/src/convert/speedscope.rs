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
//! * A time metric of a profile with a timeline (a `.cpuprofile`, a Chrome
//!   trace, speedscope's own) whose intervals add up to it is written in
//!   time order, one sample per interval, so speedscope's "Time Order"
//!   view shows the run as it went.
//! * Any other metric has one sample per calling context with a positive
//!   self value, root-first frame indices, weighted by that value, in tree
//!   order; "Time Order" shows these stacks grouped. Negative values
//!   (pprof differences) are left out: speedscope has no negative weights.
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
        // The profile of the metric the original's viewers open on.
        active_profile_index: parsed
            .header
            .default_metric
            .and_then(|d| metrics.iter().position(|&m| m == d))
            .unwrap_or(0),
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
    let (samples, weights) = match in_time_order(parsed, m) {
        Some(ordered) => ordered,
        None => grouped(tree, m),
    };
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

/// One sample per calling context with a positive self value (speedscope
/// has no negative weights, as pprof differences have), in tree order.
fn grouped(tree: &CallTree, m: usize) -> (Vec<Vec<u32>>, Vec<f64>) {
    let mut samples = Vec::new();
    let mut weights = Vec::new();
    for node in tree.node_ids() {
        let value = tree.self_value(node, m);
        if value > 0.0 {
            samples.push(root_first(tree, node));
            weights.push(value);
        }
    }
    (samples, weights)
}

/// The profile's timeline as samples of metric `m`, when the timeline's
/// intervals are that metric: a time metric whose total they add up to.
/// speedscope's "Time Order" view then shows the run as it went.
fn in_time_order(parsed: &Parsed, m: usize) -> Option<(Vec<Vec<u32>>, Vec<f64>)> {
    let timeline = parsed.profile.timeline.as_ref()?;
    if parsed.profile.metrics[m].unit != Unit::Nanoseconds || timeline.samples.is_empty() {
        return None;
    }
    let tree = &parsed.profile.tree;
    let sum: f64 = timeline.samples.iter().map(|s| s.duration_ns).sum();
    let total = tree.total(m);
    let positive = timeline.samples.iter().all(|s| s.duration_ns > 0.0);
    if !positive || (sum - total).abs() > 1e-9 * total.abs().max(1.0) {
        return None;
    }
    let samples = timeline
        .samples
        .iter()
        .map(|s| root_first(tree, s.node))
        .collect();
    let weights = timeline.samples.iter().map(|s| s.duration_ns).collect();
    Some((samples, weights))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.cpuprofile` of samples a, b, a: its time metric is written in
    /// that order, its count grouped, and both read back.
    #[test]
    fn time_metrics_with_a_timeline_keep_the_time_order() {
        let text = r#"{"nodes":[
            {"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[2,3]},
            {"id":2,"callFrame":{"functionName":"a","url":"x.js","lineNumber":0}},
            {"id":3,"callFrame":{"functionName":"b","url":"x.js","lineNumber":4}}],
            "startTime":0,"endTime":40,"samples":[2,3,2],"timeDeltas":[10,10,10]}"#;
        let (_, parsed) = crate::parse_bytes("x.cpuprofile", text.as_bytes()).unwrap();
        let mut out = Vec::new();
        write(&parsed, "x", &[0, 1], &mut out).unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let frames = &json["shared"]["frames"];
        let names = |p: usize| -> Vec<String> {
            json["profiles"][p]["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| {
                    frames[s[0].as_u64().unwrap() as usize]["name"]
                        .as_str()
                        .unwrap()
                        .to_string()
                })
                .collect()
        };
        assert_eq!(names(0), ["a", "b", "a"]);
        assert_eq!(
            json["profiles"][0]["weights"],
            serde_json::json!([10000.0, 10000.0, 10000.0])
        );
        assert_eq!(names(1), ["a", "b"]);
        let (_, back) = crate::parse_bytes("x.speedscope.json", &out).unwrap();
        assert_eq!(back.profile.totals(), parsed.profile.totals());
    }
}
