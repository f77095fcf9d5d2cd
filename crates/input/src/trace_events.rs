//! Chrome trace-event files holding V8 CPU profiles: what Chrome's
//! `--trace-startup` and `chrome://tracing` write, the DevTools protocol's
//! `Tracing` domain returns, and the Performance panel saves ("Save
//! profile"), with the `disabled-by-default-v8.cpu_profiler` category on:
//!
//! ```text
//! {"traceEvents": [                      (or the bare array)
//!   {"name": "Profile", "ph": "P", "pid", "tid", "id": "0x1",
//!    "args": {"data": {"startTime": µs}}},
//!   {"name": "ProfileChunk", "ph": "P", "pid", "id": "0x1",
//!    "args": {"data": {"cpuProfile": {"nodes": [{"id", "parent", "callFrame"}…],
//!                                     "samples": [node ids]},
//!                      "timeDeltas": [µs]}}},
//!   {"name": "thread_name", "ph": "M", "pid", "tid", "args": {"name"}}, …]}
//! ```
//!
//! A profile is the chunks of one `(pid, id)`, in file order: their nodes,
//! samples and time deltas joined make a `.cpuprofile`, which
//! [`cpuprofile`] reads. A chunk's `lines` (beside `timeDeltas`: the
//! 1-based line each sample was taken on, 0 when unknown) counted per node
//! are that node's `positionTicks`, which become the profile's line table
//! as a `.cpuprofile`'s do. A trace of several processes
//! or threads with JavaScript holds one profile each; they are merged into
//! one tree under a frame per thread (`CrRendererMain (pid 4242)`), and the
//! timeline is the busiest profile's (most samples outside `(idle)`).
//! Every other event is skipped unread.
//!
//! A trace without V8 profiles may carry sampled stacks instead, in the
//! trace format's `samples` and `stackFrames` (Hermes writes these): they
//! are read as a `samples` metric under a frame per thread.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::cpuprofile::{self, json_error};
use super::sniff::JsonHead;
use super::{text, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, LineSelf, Metric, NodeId, Profile, Unit};

pub struct TraceEvents;

impl Format for TraceEvents {
    fn name(&self) -> &'static str {
        "chrome-trace"
    }

    fn sniff(&self, input: &Input) -> bool {
        let head = JsonHead::new(input.bytes, 4096);
        match head.opener() {
            Some('[') => {
                let doc = head.document();
                doc.contains("\"ph\"") && doc.contains("\"ts\"")
            }
            Some('{') => cpuprofile::opens_with_trace_events(head.document()),
            _ => false,
        }
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let data = data.trim_start_matches('\u{feff}');
        let (mut file, base) = file_of(data)?;
        let events = file.trace_events.take().unwrap_or_default();
        let found = collect(&events, base)?;
        let stacks = match (file.samples.take(), file.stack_frames.take()) {
            (Some(samples), Some(frames)) if !samples.is_empty() => Some((samples, frames)),
            _ => None,
        };
        build(found, stacks)
    }
}

/// A trace file: its events, and the sampled stacks some tracers (Hermes)
/// write beside them instead of V8 profile chunks.
#[derive(Deserialize, Default)]
struct File<'a> {
    #[serde(rename = "traceEvents", borrow)]
    trace_events: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    samples: Option<Vec<StackSample>>,
    #[serde(rename = "stackFrames", default)]
    stack_frames: Option<HashMap<String, StackFrame>>,
}

/// One entry of `stackFrames`: a frame and its caller's key.
#[derive(Deserialize)]
struct StackFrame {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    parent: Option<IdValue>,
}

/// One entry of `samples`: whose, how heavy, and its stack's leaf.
#[derive(Deserialize)]
struct StackSample {
    #[serde(default)]
    pid: Option<IdValue>,
    #[serde(default)]
    tid: Option<IdValue>,
    #[serde(default)]
    weight: Option<NumberOrText>,
    #[serde(default)]
    sf: Option<IdValue>,
}

/// The file, and the JSON path of the array holding its events.
fn file_of(data: &str) -> Result<(File<'_>, &'static str), ParseError> {
    if data.trim_start().starts_with('[') {
        let events: Vec<&RawValue> = serde_json::from_str(data).map_err(json_error)?;
        let file = File {
            trace_events: Some(events),
            ..File::default()
        };
        return Ok((file, "$"));
    }
    let file: File = serde_json::from_str(data).map_err(json_error)?;
    if file.trace_events.is_none() {
        return Err(ParseError::json("$", "expected a `traceEvents` array"));
    }
    Ok((file, "$.traceEvents"))
}

/// What every event is read for first: which kind it is, and whose.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    ph: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    pid: Option<IdValue>,
    #[serde(default)]
    tid: Option<IdValue>,
    #[serde(default)]
    id: Option<IdValue>,
}

/// A pid, tid or event id: a number, or a string such as `"0x1"`.
#[derive(Deserialize, Clone, PartialEq, Eq, Hash, Debug)]
#[serde(untagged)]
enum IdValue {
    Number(i64),
    Text(String),
}

impl std::fmt::Display for IdValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdValue::Number(n) => write!(f, "{n}"),
            IdValue::Text(s) => f.write_str(s),
        }
    }
}

#[derive(Deserialize)]
struct Args<T> {
    data: T,
}

#[derive(Deserialize)]
struct ProfileEvent {
    args: Args<ProfileData>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProfileData {
    start_time: Option<f64>,
}

#[derive(Deserialize)]
struct ChunkEvent {
    args: Args<ChunkData>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkData {
    #[serde(default)]
    cpu_profile: ChunkProfile,
    #[serde(default)]
    time_deltas: Vec<f64>,
    /// The line of each sample.
    #[serde(default)]
    lines: Option<Vec<f64>>,
}

#[derive(Deserialize, Default)]
struct ChunkProfile {
    #[serde(default)]
    nodes: Vec<cpuprofile::RawNode>,
    #[serde(default)]
    samples: Vec<i64>,
}

#[derive(Deserialize)]
struct NameEvent {
    args: NameArgs,
}

#[derive(Deserialize)]
struct NameArgs {
    name: Option<String>,
}

/// One V8 profile of the trace, as its chunks add up.
struct Found {
    pid: IdValue,
    /// The thread the `Profile` event came from (the profiled thread).
    tid: Option<IdValue>,
    raw: cpuprofile::RawProfile,
    /// Where each node came from, for messages.
    node_paths: Vec<String>,
    /// Where each chunk's samples start in the joined list, and the
    /// chunk's path.
    sample_chunks: Vec<(usize, String)>,
    /// The line of each joined sample (0 for a chunk without `lines`).
    lines: Vec<f64>,
}

/// Everything the profiles need from the trace: their events, and the
/// names of threads and processes.
struct Collected {
    profiles: Vec<Found>,
    thread_names: HashMap<(IdValue, IdValue), String>,
    process_names: HashMap<IdValue, String>,
}

fn collect(events: &[&RawValue], base: &str) -> Result<Collected, ParseError> {
    let mut out = Collected {
        profiles: Vec::new(),
        thread_names: HashMap::new(),
        process_names: HashMap::new(),
    };
    let mut by_key: HashMap<(IdValue, IdValue), usize> = HashMap::new();
    for (k, event) in events.iter().enumerate() {
        let path = || format!("{base}[{k}]");
        let head: Head = serde_json::from_str(event.get()).map_err(|e| at(path(), e))?;
        let (Some(name), Some(ph)) = (head.name.as_deref(), head.ph.as_deref()) else {
            continue;
        };
        match (name, ph) {
            ("Profile", "P") | ("ProfileChunk", "P") => {
                let pid = head.pid.clone().unwrap_or(IdValue::Number(0));
                let id = head.id.clone().unwrap_or(IdValue::Number(0));
                let slot = *by_key.entry((pid.clone(), id)).or_insert_with(|| {
                    out.profiles.push(Found {
                        pid,
                        tid: None,
                        raw: cpuprofile::RawProfile::default(),
                        node_paths: Vec::new(),
                        sample_chunks: Vec::new(),
                        lines: Vec::new(),
                    });
                    out.profiles.len() - 1
                });
                let found = &mut out.profiles[slot];
                if name == "Profile" {
                    let e: ProfileEvent =
                        serde_json::from_str(event.get()).map_err(|e| at(path(), e))?;
                    found.raw.start_time = e.args.data.start_time;
                    found.tid = head.tid.clone();
                } else {
                    let e: ChunkEvent =
                        serde_json::from_str(event.get()).map_err(|e| at(path(), e))?;
                    add_chunk(found, e.args.data, &path())?;
                }
            }
            ("thread_name", "M") | ("process_name", "M") => {
                let e: NameEvent = serde_json::from_str(event.get()).map_err(|e| at(path(), e))?;
                let (Some(pid), Some(label)) = (head.pid.clone(), e.args.name) else {
                    continue;
                };
                match (name, head.tid.clone()) {
                    ("thread_name", Some(tid)) => {
                        out.thread_names.insert((pid, tid), label);
                    }
                    _ => {
                        out.process_names.insert(pid, label);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// A JSON error inside the event at `path` (its line and column would
/// count from the event's own start, so they are left out).
fn at(path: String, e: serde_json::Error) -> ParseError {
    let full = e.to_string();
    let message = full.split(" at line ").next().unwrap_or(&full);
    ParseError::json(path, message.to_string())
}

/// Appends a chunk's nodes, samples and deltas to its profile, checking
/// what the joined profile could no longer place.
fn add_chunk(found: &mut Found, data: ChunkData, path: &str) -> Result<(), ParseError> {
    let ChunkData {
        cpu_profile,
        time_deltas,
        lines,
    } = data;
    if time_deltas.len() != cpu_profile.samples.len() {
        return Err(ParseError::json(
            format!("{path}.args.data.timeDeltas"),
            format!(
                "has {} entries but `cpuProfile.samples` has {}",
                time_deltas.len(),
                cpu_profile.samples.len()
            ),
        ));
    }
    let samples_before = found.raw.samples.as_ref().map_or(0, Vec::len);
    found.sample_chunks.push((samples_before, path.to_string()));
    // Lines that do not go with the samples one for one say nothing.
    let count = cpu_profile.samples.len();
    match lines.filter(|l| l.len() == count) {
        Some(lines) => found.lines.extend(lines),
        None => found.lines.resize(samples_before + count, 0.0),
    }
    found.node_paths.extend(
        (0..cpu_profile.nodes.len()).map(|j| format!("{path}.args.data.cpuProfile.nodes[{j}]")),
    );
    found
        .raw
        .nodes
        .get_or_insert_with(Vec::new)
        .extend(cpu_profile.nodes);
    found
        .raw
        .samples
        .get_or_insert_with(Vec::new)
        .extend(cpu_profile.samples);
    found
        .raw
        .time_deltas
        .get_or_insert_with(Vec::new)
        .extend(time_deltas);
    Ok(())
}

/// The profiles read and merged: one alone as it is, several each under
/// a frame naming its thread. Without V8 profiles, the file's sampled
/// stacks, if any.
fn build(
    found: Collected,
    stacks: Option<(Vec<StackSample>, HashMap<String, StackFrame>)>,
) -> Result<Parsed, ParseError> {
    let Collected {
        profiles,
        thread_names,
        process_names,
    } = found;
    if profiles.is_empty() {
        if let Some((samples, frames)) = stacks {
            return stack_samples(&samples, &frames, &thread_names);
        }
    }
    let mut parsed: Vec<(String, Parsed)> = Vec::new();
    let mut empty = 0usize;
    for f in profiles {
        let has_samples = f.raw.samples.as_ref().is_some_and(|s| !s.is_empty());
        if !has_samples || f.raw.nodes.is_none() {
            empty += 1;
            continue;
        }
        check_samples(&f)?;
        let label = thread_label(&f, &thread_names, &process_names);
        let mut raw = f.raw;
        raw.node_paths = Some(f.node_paths);
        ticks_from_lines(&mut raw, &f.lines);
        let mut one = cpuprofile::build_profile(raw)?;
        // The reader's notes name the joined lists, which the file does
        // not have: say whose they are.
        for note in &mut one.profile.notes {
            *note = note.replace("$.timeDeltas:", &format!("the time deltas of {label}:"));
        }
        parsed.push((label, one));
    }
    let note = (empty > 0)
        .then(|| format!("{empty} profile(s) of the trace recorded no samples and are not shown"));
    let mut out = match parsed.len() {
        0 => {
            return Err(ParseError::whole(
                "the trace has no V8 CPU profile samples (ProfileChunk events); record it with the disabled-by-default-v8.cpu_profiler category",
            ))
        }
        1 => parsed.pop().map(|(_, p)| p).ok_or_else(|| ParseError::whole("no profile"))?,
        _ => merge_threads(parsed),
    };
    out.profile.notes.extend(note);
    Ok(out)
}

/// Sets each node's `positionTicks` from the line of each of its samples
/// (a sample without a line counts as ticks without one), when some
/// sample has a line.
fn ticks_from_lines(raw: &mut cpuprofile::RawProfile, lines: &[f64]) {
    if !lines.iter().any(|&l| l >= 1.0) {
        return;
    }
    let samples = raw.samples.as_deref().unwrap_or_default();
    let mut ticks: BTreeMap<(i64, u32), f64> = BTreeMap::new();
    for (&id, &line) in samples.iter().zip(lines) {
        let line = match line.is_finite() && line >= 1.0 && line < u32::MAX as f64 {
            true => line as u32,
            false => 0,
        };
        *ticks.entry((id, line)).or_default() += 1.0;
    }
    for node in raw.nodes.iter_mut().flatten() {
        let of_node = ticks.range((node.id, 0)..=(node.id, u32::MAX));
        let entries: Vec<cpuprofile::RawTicks> = of_node
            .map(|(&(_, line), &n)| cpuprofile::RawTicks {
                line: Some(f64::from(line)),
                ticks: Some(n),
            })
            .collect();
        if !entries.is_empty() {
            node.position_ticks.get_or_insert(entries);
        }
    }
}

/// Every sample names a node of its profile: an error at the sample's
/// place in its chunk otherwise (the joined profile could only give its
/// place in the joined list).
fn check_samples(f: &Found) -> Result<(), ParseError> {
    let ids: std::collections::HashSet<i64> = f.raw.nodes.iter().flatten().map(|n| n.id).collect();
    let samples = f.raw.samples.as_deref().unwrap_or_default();
    let Some(bad) = samples.iter().position(|id| !ids.contains(id)) else {
        return Ok(());
    };
    let (start, chunk) = f
        .sample_chunks
        .iter()
        .rev()
        .find(|(start, _)| *start <= bad)
        .map_or((0, "$"), |(s, p)| (*s, p.as_str()));
    Err(ParseError::json(
        format!("{chunk}.args.data.cpuProfile.samples[{}]", bad - start),
        format!(
            "sample refers to node id {}, which no chunk of its profile defines",
            samples[bad]
        ),
    ))
}

/// `CrRendererMain (pid 4242)`, or the process's name, or the pid.
fn thread_label(
    f: &Found,
    threads: &HashMap<(IdValue, IdValue), String>,
    processes: &HashMap<IdValue, String>,
) -> String {
    let thread = f
        .tid
        .as_ref()
        .and_then(|tid| threads.get(&(f.pid.clone(), tid.clone())));
    match (thread, processes.get(&f.pid)) {
        (Some(t), _) => format!("{t} (pid {})", f.pid),
        (None, Some(p)) => format!("{p} (pid {})", f.pid),
        (None, None) => format!("pid {}", f.pid),
    }
}

/// One tree of several profiles with the same metrics, each under a frame
/// of its thread's label; the timeline of the one with most samples.
fn merge_threads(mut parsed: Vec<(String, Parsed)>) -> Parsed {
    // Busiest first (samples outside V8's `(idle)`): its timeline is kept.
    parsed.sort_by(|a, b| busy_samples(&b.1).total_cmp(&busy_samples(&a.1)));
    let metrics = parsed[0].1.profile.metrics.clone();
    let metrics_count = metrics.len();
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(metrics);
    let mut timeline = None;
    let mut lines: Vec<(NodeId, u32, Vec<f64>)> = Vec::new();
    let count = parsed.len();
    for (k, (label, p)) in parsed.into_iter().enumerate() {
        let thread = frames.intern(Frame::named(&label));
        let top = profile.tree.child(NodeId::ROOT, thread);
        let map = graft(&p, top, &mut frames, &mut profile);
        lines.extend(grafted_lines(&p, &map, (&frames, &profile)));
        if k == 0 {
            timeline = p.profile.timeline.map(|mut t| {
                for s in &mut t.samples {
                    s.node = map[s.node.index()];
                }
                t
            });
        }
        profile.notes.extend(p.profile.notes);
    }
    profile.timeline = timeline;
    if !lines.is_empty() {
        profile.line_self = Some(LineSelf::from_entries(metrics_count, lines));
    }
    profile.notes.push(format!(
        "the trace holds {count} V8 profiles (one per thread with JavaScript), each under a frame naming its thread; the timeline is the busiest one's (most samples outside (idle))"
    ));
    Parsed::new(frames, profile)
}

/// A profile's samples, but for those of its top-level `(idle)` node.
fn busy_samples(p: &Parsed) -> f64 {
    let tree = &p.profile.tree;
    let m = p.profile.metrics.len() - 1;
    let inclusive = tree.inclusive(m);
    let idle: f64 = tree
        .children(NodeId::ROOT)
        .iter()
        .filter(|&&n| {
            tree.frame(n)
                .is_some_and(|f| p.frames.get(f).function == "(idle)")
        })
        .map(|n| inclusive[n.index()])
        .sum();
    tree.total(m) - idle
}

/// The entries of `p`'s line table at the nodes `map` grafted them to,
/// but for nodes the merged tree's limits folded into another function.
fn grafted_lines(
    p: &Parsed,
    map: &[NodeId],
    (frames, into): (&FrameTable, &Profile),
) -> Vec<(NodeId, u32, Vec<f64>)> {
    let Some(table) = &p.profile.line_self else {
        return Vec::new();
    };
    let frame_of = |n: NodeId| p.profile.tree.frame(n).map(|f| p.frames.get(f));
    let frame_at = |n: NodeId| into.tree.frame(n).map(|f| frames.get(f));
    table
        .iter()
        .filter(|(n, _, _)| frame_of(*n) == frame_at(map[n.index()]))
        .map(|(n, line, values)| (map[n.index()], line, values.to_vec()))
        .collect()
}

/// Copies `p`'s tree under `top`; returns where each of its nodes went.
fn graft(p: &Parsed, top: NodeId, frames: &mut FrameTable, into: &mut Profile) -> Vec<NodeId> {
    let tree = &p.profile.tree;
    let metrics = tree.metric_count().min(into.tree.metric_count());
    let mut map = vec![top; tree.len()];
    for n in tree.node_ids() {
        let at = match (tree.parent(n), tree.frame(n)) {
            (Some(parent), Some(f)) => {
                let frame = frames.intern(p.frames.get(f).clone());
                into.tree.child(map[parent.index()], frame)
            }
            _ => top,
        };
        map[n.index()] = at;
        for m in 0..metrics {
            let v = tree.self_value(n, m);
            if v != 0.0 {
                into.tree.add_self(at, m, v);
            }
        }
    }
    map
}

/// The `samples` and `stackFrames` of a trace (Hermes writes these): each
/// sample's stack is its `sf` frame and that frame's `parent`s, under a
/// frame for its thread; `samples` is the sum of the samples' `weight`
/// (1 when absent).
fn stack_samples(
    samples: &[StackSample],
    stack_frames: &HashMap<String, StackFrame>,
    thread_names: &HashMap<(IdValue, IdValue), String>,
) -> Result<Parsed, ParseError> {
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(vec![Metric::new("samples", Unit::Samples)]);
    let mut stack: Vec<FrameId> = Vec::new();
    for (k, sample) in samples.iter().enumerate() {
        let path = || format!("$.samples[{k}]");
        let weight = match &sample.weight {
            None => 1.0,
            Some(w) => number(w)
                .filter(|w| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| ParseError::json(format!("{}.weight", path()), "not a number"))?,
        };
        let Some(leaf) = &sample.sf else {
            return Err(ParseError::json(
                path(),
                "a sample without `sf` (its stack frame)",
            ));
        };
        stack.clear();
        let mut key = Some(leaf.to_string());
        while let Some(id) = key {
            let Some(f) = stack_frames.get(&id) else {
                return Err(ParseError::json(
                    format!("{}.sf", path()),
                    format!("stack frame {id:?} is not in `stackFrames`"),
                ));
            };
            if stack.len() > stack_frames.len() {
                return Err(ParseError::json(
                    format!("$.stackFrames[{id:?}]"),
                    "the frame's parents form a cycle",
                ));
            }
            stack.push(frames.intern(Frame::named(f.name.as_deref().unwrap_or("(anonymous)"))));
            key = f.parent.as_ref().map(|p| p.to_string());
        }
        let thread = thread_of(sample, thread_names);
        let thread = frames.intern(Frame::named(&thread));
        let mut node = profile.tree.child(NodeId::ROOT, thread);
        for f in stack.iter().rev() {
            node = profile.tree.child(node, *f);
        }
        profile.tree.add_self(node, 0, weight);
    }
    Ok(Parsed::new(frames, profile))
}

/// A sample's thread, by the trace's `thread_name` events.
fn thread_of(sample: &StackSample, names: &HashMap<(IdValue, IdValue), String>) -> String {
    let pid = sample.pid.clone().unwrap_or(IdValue::Number(0));
    let tid = sample.tid.clone().unwrap_or(IdValue::Number(0));
    match names.get(&(pid.clone(), tid.clone())) {
        Some(name) => format!("{name} (pid {pid}, tid {tid})"),
        None => format!("pid {pid}, tid {tid}"),
    }
}

/// A number, written as one or as a string of one (`"1"`).
#[derive(Deserialize)]
#[serde(untagged)]
enum NumberOrText {
    Number(f64),
    Text(String),
}

fn number(v: &NumberOrText) -> Option<f64> {
    match v {
        NumberOrText::Number(n) => Some(*n),
        NumberOrText::Text(t) => t.trim().parse().ok(),
    }
}

#[cfg(test)]
mod tests;
