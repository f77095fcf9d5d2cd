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
//! A node's `positionTicks` (`[{"line", "ticks"}]`, 1-based lines of its
//! script) count its own samples by the line that was executing, which
//! Chrome DevTools' Sources panel shows per line. They become the
//! profile's [`LineSelf`] table, never frames of their own (a function
//! stays one frame, its `lineNumber` where it starts): on each line,
//! `samples` gets the ticks (scaled down only if they add up to more than
//! the node's samples) and `cpu` the node's own cpu in proportion to the
//! ticks. What the ticks do not cover (samples V8 counted after the ticks,
//! ticks without a line) stays on the function's line. Ticks are kept per
//! V8 node, before nodes of one function under one caller (its code
//! before and after optimisation) join in one tree node.
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
use model::{Frame, FrameTable, LineSelf, Metric, NodeId, Profile, Timeline, TimelineSample, Unit};

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
    /// Samples taken while this node was executing, by line.
    pub(crate) position_ticks: Option<Vec<RawTicks>>,
}

/// One entry of a node's `positionTicks`.
#[derive(Deserialize)]
pub(crate) struct RawTicks {
    /// 1-based line of the node's script; anything else is no line.
    pub(crate) line: Option<f64>,
    pub(crate) ticks: Option<f64>,
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
    /// Its `positionTicks` (none in the old format).
    ticks: Vec<RawTicks>,
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
            ticks: Vec::new(),
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
                ticks: n.position_ticks.unwrap_or_default(),
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
    let mut by_node = NodeSelf::new(&nodes, metrics.len());
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(metrics);
    let placed = walk_from_roots(&nodes, &links, &mut frames, &mut profile)?;
    let node_of = |id: i64, path: String| -> Result<(usize, NodeId), ParseError> {
        let at = |&i: &usize| Some((i, placed.node[i]?));
        index.get(&id).and_then(at).ok_or_else(|| {
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
                (&mut profile, &mut by_node),
                samples_metric,
            )?;
            profile.timeline = Some(Timeline { samples: timeline });
        }
        Some(samples) => {
            for (s, &id) in samples.iter().enumerate() {
                let at = node_of(id, format!("$.samples[{s}]"))?;
                by_node.add(&mut profile.tree, at, samples_metric, 1.0);
            }
        }
        None => add_hit_counts(&nodes, &placed.node, &mut profile, &mut by_node)?,
    }
    profile.line_self = line_table(&nodes, &placed.own, &by_node, samples_metric)?;
    Ok(Parsed::new(frames, profile))
}

/// Self values per V8 node, beside the tree's: a tree node may join
/// several V8 nodes, and each node's `positionTicks` split its own self
/// values. Empty, and never added to, when no node has ticks.
struct NodeSelf {
    metrics: usize,
    values: Vec<f64>,
}

impl NodeSelf {
    fn new(nodes: &[FlatNode], metrics: usize) -> NodeSelf {
        let any = nodes.iter().any(|n| !n.ticks.is_empty());
        NodeSelf {
            metrics,
            values: if any {
                vec![0.0; nodes.len() * metrics]
            } else {
                Vec::new()
            },
        }
    }

    /// Adds `value` to metric `m` of V8 node `i` and of its tree node.
    fn add(
        &mut self,
        tree: &mut model::CallTree,
        (i, node): (usize, NodeId),
        m: usize,
        value: f64,
    ) {
        tree.add_self(node, m, value);
        if let Some(v) = self.values.get_mut(i * self.metrics + m) {
            if value.is_finite() {
                *v += value;
            }
        }
    }

    /// The self values of V8 node `i`, one per metric.
    fn of(&self, i: usize) -> &[f64] {
        self.values
            .get(i * self.metrics..(i + 1) * self.metrics)
            .unwrap_or(&[])
    }
}

/// The profile's line table from the nodes' `positionTicks` (see the
/// module's documentation), `None` when no node has any. A node folded
/// into another at the tree's limits keeps its self values there, on that
/// node's function line.
fn line_table(
    nodes: &[FlatNode],
    own: &[Option<NodeId>],
    by_node: &NodeSelf,
    samples_metric: usize,
) -> Result<Option<LineSelf>, ParseError> {
    let mut entries: Vec<(NodeId, u32, Vec<f64>)> = Vec::new();
    for (i, n) in nodes.iter().enumerate() {
        let ticks = ticks_of(n)?;
        let total: f64 = ticks.iter().map(|t| t.1).sum();
        let (Some(node), true) = (own[i], total > 0.0) else {
            continue;
        };
        let self_values = by_node.of(i);
        let Some(&samples) = self_values.get(samples_metric) else {
            continue;
        };
        // Ticks are samples: as many as V8 counted, never more than the
        // node's own.
        let scale = (samples / total).min(1.0);
        for (line, t) in ticks {
            let values: Vec<f64> = self_values
                .iter()
                .enumerate()
                .map(|(m, &v)| match m == samples_metric {
                    true => t * scale,
                    false => v * t / total,
                })
                .collect();
            if let (Some(line), true) = (line, values.iter().any(|&v| v != 0.0)) {
                entries.push((node, line, values));
            }
        }
    }
    let metrics = by_node.metrics;
    Ok((!entries.is_empty()).then(|| LineSelf::from_entries(metrics, entries)))
}

/// A node's `positionTicks` as (line, ticks); a line that is not a 1-based
/// line number is none.
fn ticks_of(n: &FlatNode) -> Result<Vec<(Option<u32>, f64)>, ParseError> {
    let line = |l: f64| (l.is_finite() && l >= 1.0 && l < u32::MAX as f64).then_some(l as u32);
    n.ticks
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let ticks = t
                .ticks
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| {
                    ParseError::json(
                        format!("{}.positionTicks[{k}].ticks", n.path),
                        "ticks is not a non-negative number",
                    )
                })?;
            Ok((t.line.and_then(line), ticks))
        })
        .collect()
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

/// Where each flat node went in the tree.
struct Placed {
    /// Its tree node.
    node: Vec<Option<NodeId>>,
    /// Its tree node when that node is of its own frame: not the root
    /// (for a parentless "(root)"), nor the parent the tree's limits
    /// folded it into.
    own: Vec<Option<NodeId>>,
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
) -> Result<Placed, ParseError> {
    let Links { parent, children } = links;
    let mut placed = Placed {
        node: vec![None; nodes.len()],
        own: vec![None; nodes.len()],
    };
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
                let under = p.and_then(|p| placed.node[p]).unwrap_or(NodeId::ROOT);
                let frame = frames.intern(nodes[i].frame.clone());
                let node = profile.tree.child(under, frame);
                placed.own[i] = (profile.tree.frame(node) == Some(frame)).then_some(node);
                node
            }
        };
        placed.node[i] = Some(node);
        stack.extend(children[i].iter().rev().copied());
    }
    if visited < nodes.len() {
        return Err(cycle_error(nodes, parent, &placed.node));
    }
    Ok(placed)
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
    node_of: &dyn Fn(i64, String) -> Result<(usize, NodeId), ParseError>,
    (profile, by_node): (&mut Profile, &mut NodeSelf),
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
        let at = node_of(samples[s], format!("$.samples[{s}]"))?;
        let ns = length_us * 1000.0;
        by_node.add(&mut profile.tree, at, 0, ns);
        by_node.add(&mut profile.tree, at, samples_metric, 1.0);
        let node = at.1;
        timeline.push(TimelineSample {
            start_ns: (t - first) * 1000.0,
            duration_ns: ns,
            node,
        });
    }
    Ok(timeline)
}

/// Without samples, each node's `hitCount` is its count of samples (the
/// one metric).
fn add_hit_counts(
    nodes: &[FlatNode],
    tree_node: &[Option<NodeId>],
    profile: &mut Profile,
    by_node: &mut NodeSelf,
) -> Result<(), ParseError> {
    for (i, n) in nodes.iter().enumerate() {
        if !(n.hit_count.is_finite() && n.hit_count >= 0.0) {
            return Err(ParseError::json(
                format!("{}.hitCount", n.path),
                "hitCount is not a non-negative number",
            ));
        }
        if let Some(node) = tree_node[i] {
            by_node.add(&mut profile.tree, (i, node), 0, n.hit_count);
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
mod tests;
