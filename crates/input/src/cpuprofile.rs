//! Chrome / V8 `.cpuprofile` files, as written by `node --cpu-prof`, the
//! Chrome DevTools JavaScript profiler and the `Profiler.Profile` type of the
//! DevTools protocol:
//!
//! ```text
//! {"nodes": [{"id", "callFrame": {"functionName", "url", "lineNumber", …},
//!             "hitCount"?, "children"?: [ids], "parent"?: id}, …],
//!  "startTime": µs, "endTime": µs, "samples": [node ids], "timeDeltas": [µs]}
//! ```
//!
//! The older V8 C++ API format (v8-profiler, node 10 and before) with a
//! nested `head` tree and absolute `timestamps` is read as well.
//!
//! The tree comes from the `children` (or `parent`) links; node ids are
//! arbitrary. Links to unknown ids, a node listed under two parents, and
//! cycles are errors with their JSON path. Every walk uses an explicit stack,
//! so a deep profile cannot overflow the thread's stack.
//!
//! With `samples` and timing, two metrics are produced: `cpu` (nanoseconds,
//! each sample weighted by the time to the next one) and `samples`, plus a
//! timeline. Without them, `hitCount` gives the `samples` metric alone.
//!
//! Chrome trace-event files, whose `ProfileChunk` events carry the same
//! nodes and samples in pieces, are read by
//! [`trace_events`](super::trace_events), which joins the pieces and hands
//! them to [`build_profile`].

use std::collections::HashMap;

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::sniff::JsonHead;
use super::{text, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameTable, Metric, NodeId, Profile, Timeline, TimelineSample, Unit};

pub struct CpuProfile;

const TRACE_EVENTS_MESSAGE: &str =
    "this is a Chrome trace-event file, read as the chrome-trace format, not as a .cpuprofile";

impl Format for CpuProfile {
    fn name(&self) -> &'static str {
        "cpuprofile"
    }

    fn sniff(&self, input: &Input) -> bool {
        let head = JsonHead::new(input.bytes, 4096);
        let opener = head.opener();
        let head = head.document();
        match opener {
            // Trace-event files are the chrome-trace format's.
            Some('{') if opens_with_trace_events(head) => false,
            Some('{') => {
                if head.contains("\"$schema\"") && head.contains("speedscope") {
                    return false;
                }
                let new = head.contains("\"nodes\"")
                    && (head.contains("\"callFrame\"")
                        || head.contains("\"startTime\"")
                        || head.contains("\"samples\""));
                // Old format; a V8 heap profile also has a `head` but its
                // nodes carry `selfSize` instead of `hitCount`.
                let old = head.contains("\"head\"")
                    && head.contains("\"hitCount\"")
                    && !head.contains("\"selfSize\"");
                new || old
            }
            _ => false,
        }
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let data = data.trim_start_matches('\u{feff}');
        if data.trim_start().starts_with('[') || opens_with_trace_events(data) {
            return Err(ParseError::whole(TRACE_EVENTS_MESSAGE));
        }
        let raw: RawProfile = serde_json::from_str(data).map_err(json_error)?;
        build_profile(raw)
    }
}

/// Turns a serde_json error into a [`ParseError`] at its line, with the
/// column in the message.
pub(crate) fn json_error(e: serde_json::Error) -> ParseError {
    let full = e.to_string();
    // serde_json appends " at line L column C"; the place says it already.
    let message = match full.rfind(" at line ") {
        Some(i) => &full[..i],
        None => &full[..],
    };
    if e.line() == 0 {
        ParseError::whole(format!("invalid JSON: {message}"))
    } else {
        ParseError::line(e.line(), format!("column {}: {message}", e.column()))
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawProfile {
    pub(crate) nodes: Option<Vec<RawNode>>,
    /// Old format: the tree as nested objects.
    head: Option<OldNode>,
    pub(crate) start_time: Option<f64>,
    end_time: Option<f64>,
    pub(crate) samples: Option<Vec<i64>>,
    pub(crate) time_deltas: Option<Vec<f64>>,
    /// Old format: absolute sample times in microseconds.
    timestamps: Option<Vec<f64>>,
    trace_events: Option<IgnoredAny>,
    /// Where each of `nodes` is in the file, when not at `$.nodes[i]`
    /// (nodes joined from a trace's chunks).
    #[serde(skip)]
    pub(crate) node_paths: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawNode {
    pub(crate) id: i64,
    #[serde(default)]
    call_frame: CallFrame,
    hit_count: Option<f64>,
    children: Option<Vec<i64>>,
    /// Trace-event profile chunks link nodes to their parent instead.
    parent: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CallFrame {
    #[serde(default)]
    function_name: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    line_number: Option<f64>,
    #[serde(default)]
    column_number: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct OldNode {
    id: i64,
    #[serde(default)]
    function_name: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    line_number: Option<f64>,
    #[serde(default)]
    column_number: Option<f64>,
    hit_count: Option<f64>,
    #[serde(default)]
    children: Vec<OldNode>,
}

/// A node in flat form with the JSON path of its entry, for messages.
struct FlatNode {
    id: i64,
    frame: Frame,
    hit_count: f64,
    path: String,
    /// (child id, JSON path of the reference)
    children: Vec<(i64, String)>,
    parent: Option<(i64, String)>,
}

/// A frame from a V8 call frame (shared with the heap profile reader).
pub(crate) fn make_frame(
    function: Option<String>,
    url: Option<String>,
    line: Option<f64>,
    column: Option<f64>,
) -> Frame {
    let function = match function {
        Some(f) if !f.is_empty() => f,
        _ => "(anonymous)".to_string(),
    };
    let file = url.filter(|u| !u.is_empty());
    // lineNumber and columnNumber are 0-based; -1 means unknown.
    let one_based = |n: Option<f64>| {
        n.filter(|n| n.is_finite() && *n >= 0.0 && *n < u32::MAX as f64)
            .map(|n| n as u32 + 1)
    };
    let line = one_based(line);
    let start_column = line.and(one_based(column));
    Frame {
        function,
        file,
        line,
        module: None,
        // A call frame's line is where its function starts.
        start_line: line,
        start_column,
        source_hash: None,
        full_name: None,
    }
}

/// Flattens the old nested `head` tree (iteratively) into flat nodes.
fn flatten_old(head: OldNode) -> Vec<FlatNode> {
    let mut out = Vec::new();
    let mut stack = vec![(head, "$.head".to_string())];
    while let Some((node, path)) = stack.pop() {
        let children: Vec<(i64, String)> = node
            .children
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id, format!("{path}.children[{i}].id")))
            .collect();
        for (i, child) in node.children.into_iter().enumerate().rev() {
            stack.push((child, format!("{path}.children[{i}]")));
        }
        out.push(FlatNode {
            id: node.id,
            frame: make_frame(
                node.function_name,
                node.url,
                node.line_number,
                node.column_number,
            ),
            hit_count: node.hit_count.unwrap_or(0.0),
            path,
            children,
            parent: None,
        });
    }
    out
}

fn flatten_new(nodes: Vec<RawNode>, paths: Option<Vec<String>>) -> Vec<FlatNode> {
    let mut paths = paths.unwrap_or_default().into_iter();
    nodes
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let path = paths.next().unwrap_or_else(|| format!("$.nodes[{i}]"));
            FlatNode {
                id: n.id,
                frame: make_frame(
                    n.call_frame.function_name,
                    n.call_frame.url,
                    n.call_frame.line_number,
                    n.call_frame.column_number,
                ),
                hit_count: n.hit_count.unwrap_or(0.0),
                children: n
                    .children
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                    .map(|(j, c)| (c, format!("{path}.children[{j}]")))
                    .collect(),
                parent: n.parent.map(|p| (p, format!("{path}.parent"))),
                path,
            }
        })
        .collect()
}

/// An object whose `traceEvents` key comes before any `nodes` key is a
/// trace-event file, even when it embeds profile chunks or `samples`.
pub(crate) fn opens_with_trace_events(data: &str) -> bool {
    let mut end = data.len().min(4096);
    while !data.is_char_boundary(end) {
        end -= 1;
    }
    let head = &data[..end];
    match (head.find("\"traceEvents\""), head.find("\"nodes\"")) {
        (Some(t), Some(n)) => t < n,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The profile of a parsed `.cpuprofile` (or of a trace's joined chunks).
pub(crate) fn build_profile(raw: RawProfile) -> Result<Parsed, ParseError> {
    let RawProfile {
        nodes,
        head,
        start_time,
        end_time,
        samples,
        time_deltas,
        timestamps,
        trace_events,
        node_paths,
    } = raw;
    // Sample times are absolute `timestamps` (old format) rather than deltas.
    let from_stamps = time_deltas.is_none();
    let nodes = flat_nodes(nodes, head, trace_events.is_some(), node_paths)?;
    let index = index_by_id(&nodes)?;
    let links = Links::of(&nodes, &index)?;

    let metrics_have_time = samples.is_some() && (time_deltas.is_some() || timestamps.is_some());
    let metrics = metrics(metrics_have_time);
    let samples_metric = metrics.len() - 1;
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(metrics);
    let tree_node = walk_from_roots(&nodes, &links, &mut frames, &mut profile)?;
    let node_of = |id: i64, path: String| -> Result<NodeId, ParseError> {
        index.get(&id).and_then(|&i| tree_node[i]).ok_or_else(|| {
            ParseError::json(
                path,
                format!("sample refers to node id {id}, which is not a node"),
            )
        })
    };

    match samples {
        Some(samples) if metrics_have_time => {
            let times = sample_times(&samples, time_deltas.as_deref(), timestamps, start_time)?;
            let order = in_time_order(&times, samples.len(), from_stamps, &mut profile.notes);
            let end = if from_stamps {
                times.get(samples.len()).copied()
            } else {
                end_time
            };
            let timeline = add_timed_samples(
                &order,
                &samples,
                end,
                &node_of,
                &mut profile,
                samples_metric,
            )?;
            profile.timeline = Some(Timeline { samples: timeline });
        }
        Some(samples) => {
            for (s, &id) in samples.iter().enumerate() {
                let node = node_of(id, format!("$.samples[{s}]"))?;
                profile.tree.add_self(node, samples_metric, 1.0);
            }
        }
        None => add_hit_counts(&nodes, &tree_node, &mut profile, samples_metric)?,
    }
    Ok(Parsed::new(frames, profile))
}

/// `cpu` and `samples` for samples with their times, else `samples` alone.
fn metrics(have_time: bool) -> Vec<Metric> {
    if have_time {
        vec![
            Metric::new("cpu", Unit::Nanoseconds),
            Metric::new("samples", Unit::Samples),
        ]
    } else {
        vec![Metric::new("samples", Unit::Samples)]
    }
}

/// The nodes in flat form, from the new format's `nodes` or the old
/// format's nested `head`; at least one.
fn flat_nodes(
    nodes: Option<Vec<RawNode>>,
    head: Option<OldNode>,
    trace_events: bool,
    node_paths: Option<Vec<String>>,
) -> Result<Vec<FlatNode>, ParseError> {
    let nodes = match (nodes, head) {
        (Some(nodes), _) => flatten_new(nodes, node_paths),
        (None, Some(head)) => flatten_old(head),
        (None, None) if trace_events => return Err(ParseError::whole(TRACE_EVENTS_MESSAGE)),
        (None, None) => {
            return Err(ParseError::json(
                "$",
                "expected a `nodes` array (a .cpuprofile)",
            ))
        }
    };
    if nodes.is_empty() {
        return Err(ParseError::json("$.nodes", "the profile has no nodes"));
    }
    Ok(nodes)
}

/// Id → index, rejecting duplicates.
fn index_by_id(nodes: &[FlatNode]) -> Result<HashMap<i64, usize>, ParseError> {
    let mut index: HashMap<i64, usize> = HashMap::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        if let Some(&first) = index.get(&n.id) {
            return Err(ParseError::json(
                format!("{}.id", n.path),
                format!(
                    "node id {} is used twice (first by {})",
                    n.id, nodes[first].path
                ),
            ));
        }
        index.insert(n.id, i);
    }
    Ok(index)
}

/// The tree's shape: the parent and the children of every node (by index).
struct Links {
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
}

impl Links {
    /// Parent of every node, from `children` and `parent` links.
    fn of(nodes: &[FlatNode], index: &HashMap<i64, usize>) -> Result<Links, ParseError> {
        let mut links = Links {
            parent: vec![None; nodes.len()],
            children: vec![Vec::new(); nodes.len()],
        };
        for (i, n) in nodes.iter().enumerate() {
            for (child_id, path) in &n.children {
                let Some(&c) = index.get(child_id) else {
                    return Err(ParseError::json(
                        path.as_str(),
                        format!("child id {child_id} is not the id of any node"),
                    ));
                };
                links.link(nodes, i, c, path)?;
            }
            if let Some((parent_id, path)) = &n.parent {
                let Some(&p) = index.get(parent_id) else {
                    return Err(ParseError::json(
                        path.as_str(),
                        format!("parent id {parent_id} is not the id of any node"),
                    ));
                };
                links.link(nodes, p, i, path)?;
            }
        }
        Ok(links)
    }

    /// Makes `c` a child of `p`; `path` is where the file says so.
    fn link(
        &mut self,
        nodes: &[FlatNode],
        p: usize,
        c: usize,
        path: &str,
    ) -> Result<(), ParseError> {
        let parent = &mut self.parent;
        if p == c {
            return Err(ParseError::json(
                path,
                format!(
                    "node id {} lists itself as its child (a cycle)",
                    nodes[c].id
                ),
            ));
        }
        match parent[c] {
            Some(q) if q == p => Ok(()), // same link given both ways
            Some(q) => {
                // Is `c` an ancestor of `p` (by the links seen so far)?
                let mut a = Some(p);
                let mut steps = 0;
                while let Some(x) = a {
                    if x == c {
                        return Err(ParseError::json(
                            path,
                            format!(
                                "node id {} is listed as a child of its own descendant (a cycle)",
                                nodes[c].id
                            ),
                        ));
                    }
                    steps += 1;
                    if steps > parent.len() {
                        break;
                    }
                    a = parent[x];
                }
                Err(ParseError::json(
                    path,
                    format!(
                        "node id {} already has a parent ({}); a node can have only one",
                        nodes[c].id, nodes[q].path
                    ),
                ))
            }
            None => {
                parent[c] = Some(p);
                self.children[p].push(c);
                Ok(())
            }
        }
    }
}

/// Walk from the roots, top-down, with an explicit stack. A node is
/// skipped (its children go to the tree's root) when it is a parentless
/// "(root)". Gives the tree node of every flat node; a node the walk never
/// reaches hangs off a cycle, which is an error.
fn walk_from_roots(
    nodes: &[FlatNode],
    links: &Links,
    frames: &mut FrameTable,
    profile: &mut Profile,
) -> Result<Vec<Option<NodeId>>, ParseError> {
    let Links { parent, children } = links;
    let mut tree_node: Vec<Option<NodeId>> = vec![None; nodes.len()];
    let mut stack: Vec<usize> = Vec::new();
    for root in (0..nodes.len()).rev().filter(|&i| parent[i].is_none()) {
        stack.push(root);
    }
    let mut visited = 0usize;
    while let Some(i) = stack.pop() {
        visited += 1;
        let node = match parent[i] {
            None if nodes[i].frame.function == "(root)" => NodeId::ROOT,
            p => {
                let under = p.and_then(|p| tree_node[p]).unwrap_or(NodeId::ROOT);
                let frame = frames.intern(nodes[i].frame.clone());
                profile.tree.child(under, frame)
            }
        };
        tree_node[i] = Some(node);
        stack.extend(children[i].iter().rev().copied());
    }
    if visited < nodes.len() {
        return Err(cycle_error(nodes, parent, &tree_node));
    }
    Ok(tree_node)
}

/// The error for nodes the walk from the roots did not reach.
fn cycle_error(
    nodes: &[FlatNode],
    parent: &[Option<usize>],
    tree_node: &[Option<NodeId>],
) -> ParseError {
    // Every node has at most one parent, so the unvisited ones hang off
    // a cycle: follow parents from one of them until a node repeats.
    let start = tree_node.iter().position(Option::is_none).unwrap_or(0);
    let mut seen = vec![false; nodes.len()];
    let mut n = start;
    while !seen[n] {
        seen[n] = true;
        match parent[n] {
            Some(p) => n = p,
            None => break,
        }
    }
    let p = parent[n].unwrap_or(n);
    let path =
        link_path(&nodes[p], nodes[n].id).unwrap_or_else(|| format!("{}.parent", nodes[n].path));
    ParseError::json(
        path,
        format!(
            "node id {} is its own ancestor (the children links form a cycle)",
            nodes[n].id
        ),
    )
}

/// Sample times in microseconds: from `timeDeltas` added up from
/// `startTime`, else the old format's absolute `timestamps` (which may
/// carry one more, the end of the last sample). Every one is finite.
fn sample_times(
    samples: &[i64],
    time_deltas: Option<&[f64]>,
    timestamps: Option<Vec<f64>>,
    start_time: Option<f64>,
) -> Result<Vec<f64>, ParseError> {
    let from_stamps = time_deltas.is_none();
    let times: Vec<f64> = if let Some(deltas) = time_deltas {
        if deltas.len() != samples.len() {
            return Err(ParseError::json(
                "$.timeDeltas",
                format!(
                    "has {} entries but `samples` has {}",
                    deltas.len(),
                    samples.len()
                ),
            ));
        }
        let mut t = start_time.unwrap_or(0.0);
        deltas
            .iter()
            .map(|d| {
                t += d;
                t
            })
            .collect()
    } else {
        let stamps = timestamps.unwrap_or_default();
        // The old format may carry one more timestamp than samples:
        // the end of the last sample.
        if stamps.len() != samples.len() && stamps.len() != samples.len() + 1 {
            return Err(ParseError::json(
                "$.timestamps",
                format!(
                    "has {} entries but `samples` has {}",
                    stamps.len(),
                    samples.len()
                ),
            ));
        }
        stamps
    };
    if let Some(i) = times.iter().position(|t| !t.is_finite()) {
        let field = if from_stamps {
            "timestamps"
        } else {
            "timeDeltas"
        };
        return Err(ParseError::json(
            format!("$.{field}[{i}]"),
            "the sample time is not a finite number",
        ));
    }
    Ok(times)
}

/// The first `count` samples as (time, sample index), in time order; a
/// warning when the file had them out of order.
/// Samples in time order, with a note when some were not: Chrome and
/// Node record a few negative deltas in ordinary profiles, so this is a
/// remark about a profile read whole, not a part skipped.
fn in_time_order(
    times: &[f64],
    count: usize,
    from_stamps: bool,
    notes: &mut Vec<String>,
) -> Vec<(f64, usize)> {
    let mut order: Vec<(f64, usize)> = times.iter().copied().zip(0..count).collect();
    if order.windows(2).any(|w| w[1].0 < w[0].0) {
        // Chrome occasionally records negative deltas; DevTools
        // sorts samples by time, and so do we (stable).
        let backwards = order.windows(2).filter(|w| w[1].0 < w[0].0).count();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        let field = if from_stamps {
            "$.timestamps"
        } else {
            "$.timeDeltas"
        };
        notes.push(format!(
            "{field}: {backwards} sample(s) go back in time; samples were put in time order, as Chrome DevTools does"
        ));
    }
    order
}

/// Adds the samples, in time `order`, to both metrics: each weighs the time
/// to the next one. Gives the timeline.
fn add_timed_samples(
    order: &[(f64, usize)],
    samples: &[i64],
    end: Option<f64>,
    node_of: &dyn Fn(i64, String) -> Result<NodeId, ParseError>,
    profile: &mut Profile,
    samples_metric: usize,
) -> Result<Vec<TimelineSample>, ParseError> {
    let n = order.len();
    // The last sample has no next one. Its length is the time to
    // `endTime` (or the extra old-format timestamp) when that is not
    // before it, else the mean interval of the other samples.
    let mean = if n >= 2 {
        (order[n - 1].0 - order[0].0) / (n - 1) as f64
    } else {
        0.0
    };
    let last_length = |t: f64| match end {
        Some(e) if e.is_finite() && e >= t => e - t,
        _ => mean,
    };
    let first = order.first().map_or(0.0, |s| s.0);
    let mut timeline = Vec::with_capacity(n);
    for k in 0..n {
        let (t, s) = order[k];
        let length_us = match order.get(k + 1) {
            Some(&(next, _)) => next - t,
            None => last_length(t),
        };
        let node = node_of(samples[s], format!("$.samples[{s}]"))?;
        let ns = length_us * 1000.0;
        profile.tree.add_self(node, 0, ns);
        profile.tree.add_self(node, samples_metric, 1.0);
        timeline.push(TimelineSample {
            start_ns: (t - first) * 1000.0,
            duration_ns: ns,
            node,
        });
    }
    Ok(timeline)
}

/// Without samples, each node's `hitCount` is its count of samples.
fn add_hit_counts(
    nodes: &[FlatNode],
    tree_node: &[Option<NodeId>],
    profile: &mut Profile,
    samples_metric: usize,
) -> Result<(), ParseError> {
    for (i, n) in nodes.iter().enumerate() {
        if !(n.hit_count.is_finite() && n.hit_count >= 0.0) {
            return Err(ParseError::json(
                format!("{}.hitCount", n.path),
                "hitCount is not a non-negative number",
            ));
        }
        if let Some(node) = tree_node[i] {
            profile.tree.add_self(node, samples_metric, n.hit_count);
        }
    }
    Ok(())
}

/// The path of the reference from `parent` to the child with id `child`.
fn link_path(parent: &FlatNode, child: i64) -> Option<String> {
    parent
        .children
        .iter()
        .find(|(c, _)| *c == child)
        .map(|(_, p)| p.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::error::Place;

    fn parse(text: &str) -> Result<Parsed, ParseError> {
        CpuProfile.parse(&Input {
            file_name: "x.cpuprofile",
            bytes: text.as_bytes(),
        })
    }

    use crate::test_support::corpus;

    fn function(p: &Parsed, node: NodeId) -> &str {
        &p.frames.get(p.profile.tree.frame(node).unwrap()).function
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn chrome_65_simple() {
        let Some(bytes) = corpus("speedscope/Chrome/65/simple.cpuprofile") else {
            return;
        };
        let input = Input {
            file_name: "simple.cpuprofile",
            bytes: &bytes,
        };
        assert!(CpuProfile.sniff(&input));
        let p = CpuProfile.parse(&input).unwrap();
        assert_eq!(p.profile.metrics[0].name, "cpu");
        // python3 -c "import json;d=json.load(open('simple.cpuprofile'));print(len(d['samples']), d['endTime']-d['startTime']-d['timeDeltas'][0])"
        // → 29 36317   (the last sample runs to endTime, so the total is endTime - first sample)
        assert_eq!(p.profile.tree.total(1), 29.0);
        assert!(
            close(p.profile.tree.total(0), 36317.0 * 1000.0),
            "{}",
            p.profile.tree.total(0)
        );
        // (root) is skipped: its only child, the anonymous script, is a root child.
        let roots = p.profile.tree.children(NodeId::ROOT);
        assert_eq!(roots.len(), 1);
        assert_eq!(function(&p, roots[0]), "(anonymous)");
        let a = p.profile.tree.children(roots[0])[0];
        assert_eq!(function(&p, a), "a");
        let fa = p.frames.get(p.profile.tree.frame(a).unwrap());
        assert_eq!((fa.file.as_deref(), fa.line), (None, Some(1)));
        let tl = p.profile.timeline.as_ref().unwrap();
        assert_eq!(tl.samples.len(), 29);
        assert_eq!(tl.samples[0].start_ns, 0.0);
        // timeDeltas[1] = 1060 µs
        assert_eq!(tl.samples[0].duration_ns, 1_060_000.0);
        assert_eq!(tl.samples[1].start_ns, 1_060_000.0);
        assert_eq!(function(&p, tl.samples[5].node), "d");
    }

    #[test]
    fn chrome_65_sucrase() {
        let Some(bytes) = corpus("speedscope/Chrome/65/sucrase.cpuprofile") else {
            return;
        };
        let (name, p) = crate::parse_bytes("sucrase.cpuprofile", &bytes).unwrap();
        assert_eq!(name, "cpuprofile");
        // python3 -c "import json;d=json.load(open('sucrase.cpuprofile'));print(len(d['samples']), d['endTime']-d['startTime']-d['timeDeltas'][0])"
        // → 17138 22003906   (no negative deltas in this file; endTime is after the last sample)
        assert_eq!(p.profile.tree.total(1), 17138.0);
        assert!(
            close(p.profile.tree.total(0), 22003906.0 * 1000.0),
            "{}",
            p.profile.tree.total(0)
        );
        assert_eq!(p.profile.timeline.as_ref().unwrap().samples.len(), 17138);
        assert!(p.warnings.is_empty());
        let names: Vec<&str> = p
            .profile
            .tree
            .children(NodeId::ROOT)
            .iter()
            .map(|&n| function(&p, n))
            .collect();
        assert!(
            names.contains(&"(program)") && names.contains(&"(garbage collector)"),
            "{names:?}"
        );
    }

    #[test]
    fn node_10_old_format() {
        let Some(bytes) = corpus("speedscope/node/10.11.0/example.cpuprofile") else {
            return;
        };
        let (name, p) = crate::parse_bytes("example.cpuprofile", &bytes).unwrap();
        assert_eq!(name, "cpuprofile");
        // python3 -c "import json;d=json.load(open('example.cpuprofile'));t=d['timestamps'];print(len(d['samples']),len(t),t[-1]-t[0])"
        // → 29 30 45920   (30 timestamps: the last one ends the last sample)
        assert_eq!(p.profile.tree.total(1), 29.0);
        assert!(
            close(p.profile.tree.total(0), 45920.0 * 1000.0),
            "{}",
            p.profile.tree.total(0)
        );
        let roots = p.profile.tree.children(NodeId::ROOT);
        assert_eq!(function(&p, p.profile.tree.children(roots[0])[0]), "a");
    }

    #[test]
    fn trace_event_object_with_multibyte_text_at_the_window_edge_is_left_to_chrome_trace() {
        let mut text = String::from("{\"traceEvents\": [{\"name\": \"");
        while text.len() < 4095 {
            text.push('a');
        }
        text.push_str("éé\"}], \"nodes\": []}");
        let input = Input {
            file_name: "t.json",
            bytes: text.as_bytes(),
        };
        assert!(!CpuProfile.sniff(&input));
        let e = CpuProfile.parse(&input).unwrap_err();
        assert_eq!(e.message, TRACE_EVENTS_MESSAGE);
    }

    #[test]
    fn chrome_trace_events_are_read_as_chrome_trace() {
        let Some(bytes) = corpus("speedscope/Chrome/116/Trace-20230603T221323.json") else {
            return;
        };
        let (format, _) = crate::parse_bytes("Trace.json", &bytes).unwrap();
        assert_eq!(format, "chrome-trace");
        let e = parse(r#"[{"ph":"X","ts":1,"name":"a"}]"#).unwrap_err();
        assert_eq!(e.message, TRACE_EVENTS_MESSAGE);
    }

    #[test]
    fn call_frames_keep_the_column_where_their_function_starts() {
        // As node --cpu-prof wrote a minified esbuild bundle (tests/fixtures/
        // bundle-move-minified): `function c(n){…}function i(n){…}` on one
        // line, V8's columns at each parameter list.
        let p = parse(
            r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
                {"id":2,"callFrame":{"functionName":"c","url":"file:///t.js","lineNumber":0,"columnNumber":10},"hitCount":3},
                {"id":3,"callFrame":{"functionName":"i","url":"file:///t.js","lineNumber":0,"columnNumber":227},"hitCount":1}]}"#,
        )
        .unwrap();
        let at = |k: usize| {
            let node = p.profile.tree.children(NodeId::ROOT)[k];
            let f = p.frames.get(p.profile.tree.frame(node).unwrap());
            (f.function.clone(), f.start_line, f.start_column)
        };
        assert_eq!(at(0), ("c".to_string(), Some(1), Some(11)));
        assert_eq!(at(1), ("i".to_string(), Some(1), Some(228)));
    }

    #[test]
    fn hit_counts_without_samples() {
        let p = parse(
            r#"{"nodes":[{"id":10,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[7]},
                {"id":7,"callFrame":{"functionName":"main","url":"file:///a.js","lineNumber":4},"hitCount":3,"children":[3]},
                {"id":3,"callFrame":{"functionName":"","url":"","lineNumber":0},"hitCount":2}]}"#,
        )
        .unwrap();
        assert_eq!(
            p.profile.metrics,
            vec![Metric::new("samples", Unit::Samples)]
        );
        assert_eq!(p.profile.tree.total(0), 5.0);
        let main = p.profile.tree.children(NodeId::ROOT)[0];
        let f = p.frames.get(p.profile.tree.frame(main).unwrap());
        assert_eq!(
            (f.function.as_str(), f.file.as_deref(), f.line),
            ("main", Some("file:///a.js"), Some(5))
        );
        assert!(p.profile.timeline.is_none());
    }

    #[test]
    fn unknown_child_id_is_an_error_with_its_path() {
        let e = parse(r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{},"children":[5]}]}"#)
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.nodes[1].children[0]".into()));
        assert!(e.message.contains("5"), "{e}");
    }

    #[test]
    fn cycles_are_errors_with_their_path() {
        let e = parse(r#"{"nodes":[{"id":1,"callFrame":{},"children":[1]}]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.nodes[0].children[0]".into()));
        assert!(e.message.contains("cycle"), "{e}");
        // 2 → 3 → 4 → 2, hanging apart from the root 1.
        let e = parse(
            r#"{"nodes":[{"id":1,"callFrame":{}},{"id":2,"callFrame":{},"children":[3]},
                {"id":3,"callFrame":{},"children":[4]},{"id":4,"callFrame":{},"children":[2]}]}"#,
        )
        .unwrap_err();
        assert!(
            matches!(&e.place, Place::Json(p) if p.starts_with("$.nodes[") && p.contains(".children[0]")),
            "{e}"
        );
        assert!(e.message.contains("cycle"), "{e}");
        // A child listed under two parents.
        let e = parse(r#"{"nodes":[{"id":1,"callFrame":{},"children":[2,3]},{"id":2,"callFrame":{},"children":[3]},{"id":3,"callFrame":{}}]}"#)
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.nodes[1].children[0]".into()));
    }

    #[test]
    fn bad_sample_ids_and_lengths_are_errors() {
        let e = parse(r#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":0,"endTime":5,"samples":[1,9],"timeDeltas":[1,1]}"#)
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.samples[1]".into()));
        let e = parse(
            r#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":0,"samples":[1,1],"timeDeltas":[1]}"#,
        )
        .unwrap_err();
        assert_eq!(e.place, Place::Json("$.timeDeltas".into()));
        let e = parse(r#"{"nodes":[{"id":1,"callFrame":{}}],"samples":["x"]}"#).unwrap_err();
        assert_eq!(e.place, Place::Line(1));
        assert!(e.message.starts_with("column "), "{e}");
    }

    #[test]
    fn last_sample_uses_mean_when_end_time_is_missing_and_negative_deltas_are_sorted() {
        let p = parse(
            r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2,3]},{"id":2,"callFrame":{"functionName":"a"}},{"id":3,"callFrame":{"functionName":"b"}}],
                "startTime":100,"samples":[2,3,2],"timeDeltas":[0,30,-10]}"#,
        )
        .unwrap();
        // times 100, 130, 120 → sorted 100(a), 120(a), 130(b); b gets the mean 15.
        assert_eq!(p.profile.tree.total(0), (20.0 + 10.0 + 15.0) * 1000.0);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(
            p.profile.notes,
            ["$.timeDeltas: 1 sample(s) go back in time; samples were put in time order, as Chrome DevTools does"]
        );
        let tl = &p.profile.timeline.as_ref().unwrap().samples;
        assert_eq!(
            tl.iter().map(|s| s.start_ns).collect::<Vec<_>>(),
            vec![0.0, 20_000.0, 30_000.0]
        );
    }

    #[test]
    fn a_100000_deep_chain_does_not_overflow() {
        let n = 100_000;
        let mut s = String::from(r#"{"nodes":["#);
        for i in 1..=n {
            if i > 1 {
                s.push(',');
            }
            if i < n {
                s.push_str(&format!(
                    r#"{{"id":{i},"callFrame":{{"functionName":"f{i}"}},"children":[{}]}}"#,
                    i + 1
                ));
            } else {
                s.push_str(&format!(
                    r#"{{"id":{i},"callFrame":{{"functionName":"f{i}"}},"hitCount":1}}"#
                ));
            }
        }
        s.push_str("]}");
        let p = parse(&s).unwrap();
        assert_eq!(p.profile.tree.len(), n + 1);
        assert_eq!(p.profile.tree.total(0), 1.0);
        // A chain closed into a loop deep down is still found.
        let looped = s.replacen(r#""hitCount":1"#, r#""children":[50000]"#, 1);
        let e = parse(&looped).unwrap_err();
        assert!(e.message.contains("cycle"), "{e}");
        // The old nested format is bounded by serde_json's depth limit: an error, not a crash.
        let mut old = String::from(r#"{"head":"#);
        for i in 0..10_000 {
            old.push_str(&format!(r#"{{"id":{i},"hitCount":1,"children":["#));
        }
        old.push_str(&"]}".repeat(10_000));
        old.push('}');
        assert!(parse(&old).is_err());
    }

    #[test]
    fn sniffing() {
        let yes = |s: &str| {
            CpuProfile.sniff(&Input {
                file_name: "x",
                bytes: s.as_bytes(),
            })
        };
        assert!(yes(r#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":1}"#));
        assert!(!yes(
            r#"{"$schema":"https://www.speedscope.app/file-format-schema.json","nodes":[],"samples":[]}"#
        ));
        assert!(!yes(
            r#"{"head":{"callFrame":{},"selfSize":0,"children":[]}}"#
        ));
        assert!(!yes("a;b 1\n"));
    }

    #[test]
    fn garbage_never_panics() {
        for s in [
            "{",
            "{}",
            "[]",
            "null",
            r#"{"nodes":[]}"#,
            r#"{"nodes":[{"id":1}],"samples":[1],"timeDeltas":[1e308,1e308]}"#,
            r#"{"nodes":[{"id":1,"hitCount":-1}]}"#,
            r#"{"nodes":[{"id":1,"parent":1}]}"#,
            r#"{"nodes":[{"id":1},{"id":1}]}"#,
        ] {
            let _ = parse(s);
        }
    }
}
