//! Chrome trace-event files that hold V8 CPU profiles: the JSON that
//! DevTools' Performance panel saves ("Save profile…"), `chrome
//! --trace-startup --trace-startup-format=json` writes, and the DevTools
//! protocol's `Tracing` domain returns, when the
//! `disabled-by-default-v8.cpu_profiler` category was on:
//!
//! ```text
//! {"traceEvents": [ …,
//!   {"name": "Profile", "ph": "P", "pid", "tid", "id": "0x1",
//!    "args": {"data": {"startTime": µs}}},
//!   {"name": "ProfileChunk", "ph": "P", "pid", "id": "0x1",
//!    "args": {"data": {"cpuProfile": {"nodes": [{"id", "parent", "callFrame"}],
//!                                     "samples": [node ids]},
//!                      "timeDeltas": [µs]}}}, … ]}
//! ```
//!
//! or the same events as a bare array (whose closing `]` may be missing, as
//! the format allows). A profile is the `Profile` event and the
//! `ProfileChunk` events with its process and `id`, in file order: each
//! chunk adds the nodes first sampled in it and continues the samples and
//! their time deltas. The assembled profile is read like a `.cpuprofile`
//! (see [`crate::cpuprofile`]: `cpu` and `samples`, and a timeline), with
//! error places pointing into the chunk events.
//!
//! A file with several profiles (one per profiled thread or process) gets
//! one tree, each profile under a root frame named after its thread
//! (`CrRendererMain (pid 19996)`), and no timeline. Every other event is
//! skipped unread.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::cpuprofile::{self, json_error, RawNode};
use super::sniff::JsonHead;
use super::{text, Format, Input, Parsed};
use model::error::{ParseError, Place};
use model::{Frame, FrameTable, Profile};

pub struct TraceEvents;

impl Format for TraceEvents {
    fn name(&self) -> &'static str {
        "chrome-trace"
    }

    fn sniff(&self, input: &Input) -> bool {
        let head = JsonHead::new(input.bytes, 4096);
        let opener = head.opener();
        let head = head.document();
        match opener {
            Some('[') => head.contains("\"ph\"") && head.contains("\"ts\""),
            // `traceEvents` before any `nodes`: a cpuprofile never has it.
            Some('{') => match (head.find("\"traceEvents\""), head.find("\"nodes\"")) {
                (Some(t), Some(n)) => t < n,
                (Some(_), None) => true,
                _ => false,
            },
            _ => false,
        }
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let data = data.trim_start_matches('\u{feff}');
        let closed = closed_array(data);
        let (events, prefix) = read_events(closed.as_deref().unwrap_or(data))?;
        let profiles = assemble(&events, prefix)?;
        if profiles.is_empty() {
            return Err(ParseError::whole(
                "a trace-event file without V8 CPU profile samples (no `ProfileChunk` events): \
                 record with the `disabled-by-default-v8.cpu_profiler` category, as DevTools' \
                 Performance panel does, or save a .cpuprofile",
            ));
        }
        let threads = thread_names(&events);
        let mut read = Vec::with_capacity(profiles.len());
        for p in profiles {
            let label = p.label(&threads);
            let parsed = p.read(prefix)?;
            read.push((label, parsed));
        }
        Ok(merge(read))
    }
}

/// One trace event, its fields as JSON text: only profile events are
/// read further.
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pid: Option<&'a RawValue>,
    #[serde(default, borrow)]
    tid: Option<&'a RawValue>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Object<'a> {
    #[serde(rename = "traceEvents", borrow)]
    trace_events: Option<Vec<Event<'a>>>,
}

#[derive(Deserialize)]
struct Args {
    data: Option<Data>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Data {
    start_time: Option<f64>,
    end_time: Option<f64>,
    cpu_profile: Option<ChunkProfile>,
    time_deltas: Option<Vec<f64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ChunkProfile {
    nodes: Option<Vec<RawNode>>,
    samples: Option<Vec<i64>>,
    end_time: Option<f64>,
}

#[derive(Deserialize)]
struct ThreadName {
    name: Option<String>,
}

/// The array format may end without its `]` (a trace cut at the end of
/// an event, as Chrome writes them): such an array, closed.
fn closed_array(data: &str) -> Option<String> {
    let body = data.trim_end();
    if !body.trim_start().starts_with('[') || body.ends_with(']') {
        return None;
    }
    Some(format!("{}]", body.trim_end_matches(',')))
}

/// The events, and the JSON path of their array.
fn read_events(data: &str) -> Result<(Vec<Event<'_>>, &'static str), ParseError> {
    if data.trim_start().starts_with('[') {
        let events: Vec<Event> = serde_json::from_str(data).map_err(json_error)?;
        return Ok((events, "$"));
    }
    let object: Object = serde_json::from_str(data).map_err(json_error)?;
    match object.trace_events {
        Some(events) => Ok((events, "$.traceEvents")),
        None => Err(ParseError::json("$", "expected a `traceEvents` array")),
    }
}

/// `(pid, tid)` → the thread's name, from `thread_name` metadata events.
fn thread_names(events: &[Event]) -> HashMap<(String, String), String> {
    let mut names = HashMap::new();
    for e in events {
        if e.name.as_deref() != Some("thread_name") {
            continue;
        }
        let (Some(pid), Some(tid), Some(args)) = (e.pid, e.tid, e.args) else {
            continue;
        };
        if let Ok(ThreadName { name: Some(name) }) = serde_json::from_str(args.get()) {
            names.insert((key(pid), key(tid)), name);
        }
    }
    names
}

/// A pid, tid or id as text (numbers and strings alike).
fn key(v: &RawValue) -> String {
    v.get().trim_matches('"').to_string()
}

/// One profile's parts, gathered from its events.
struct Assembled {
    pid: String,
    id: String,
    tid: Option<String>,
    start_time: Option<f64>,
    end_time: Option<f64>,
    nodes: Vec<RawNode>,
    samples: Vec<i64>,
    deltas: Vec<f64>,
    /// (first index in `nodes`, event index) per chunk with nodes.
    node_chunks: Vec<(usize, usize)>,
    /// (first index in `samples`, event index) per chunk with samples.
    sample_chunks: Vec<(usize, usize)>,
}

/// The profiles of the file with samples, in the order their first event
/// comes.
fn assemble(events: &[Event], prefix: &str) -> Result<Vec<Assembled>, ParseError> {
    let mut order: Vec<Assembled> = Vec::new();
    let mut by_key: HashMap<(String, String), usize> = HashMap::new();
    for (k, e) in events.iter().enumerate() {
        let chunk = match e.name.as_deref() {
            Some("Profile") => false,
            Some("ProfileChunk") => true,
            _ => continue,
        };
        let at = format!("{prefix}[{k}]");
        let pid = e.pid.map(key).unwrap_or_default();
        let id = e.id.map(key).unwrap_or_default();
        let i = *by_key.entry((pid.clone(), id.clone())).or_insert_with(|| {
            order.push(Assembled::new(pid, id));
            order.len() - 1
        });
        let data = match e.args {
            Some(args) => {
                serde_json::from_str::<Args>(args.get())
                    .map_err(|err| ParseError::json(format!("{at}.args"), format!("{err}")))?
                    .data
            }
            None => None,
        };
        let Some(data) = data else { continue };
        let p = &mut order[i];
        if chunk {
            p.add_chunk(k, &at, data)?;
        } else {
            p.tid = e.tid.map(key);
            p.start_time = data.start_time.or(p.start_time);
        }
    }
    order.retain(|p| !p.samples.is_empty());
    Ok(order)
}

impl Assembled {
    fn new(pid: String, id: String) -> Assembled {
        Assembled {
            pid,
            id,
            tid: None,
            start_time: None,
            end_time: None,
            nodes: Vec::new(),
            samples: Vec::new(),
            deltas: Vec::new(),
            node_chunks: Vec::new(),
            sample_chunks: Vec::new(),
        }
    }

    /// Adds chunk event `k` (at JSON path `at`).
    fn add_chunk(&mut self, k: usize, at: &str, data: Data) -> Result<(), ParseError> {
        let profile = data.cpu_profile;
        let (nodes, samples, end) = match profile {
            Some(p) => (
                p.nodes.unwrap_or_default(),
                p.samples.unwrap_or_default(),
                p.end_time,
            ),
            None => (Vec::new(), Vec::new(), None),
        };
        let deltas = data.time_deltas.unwrap_or_default();
        if deltas.len() != samples.len() {
            return Err(ParseError::json(
                format!("{at}.args.data.timeDeltas"),
                format!(
                    "has {} entries but the chunk's `cpuProfile.samples` has {}",
                    deltas.len(),
                    samples.len()
                ),
            ));
        }
        if !nodes.is_empty() {
            self.node_chunks.push((self.nodes.len(), k));
            self.nodes.extend(nodes);
        }
        if !samples.is_empty() {
            self.sample_chunks.push((self.samples.len(), k));
            self.samples.extend(samples);
            self.deltas.extend(deltas);
        }
        self.end_time = end.or(data.end_time).or(self.end_time);
        Ok(())
    }

    /// The root frame's name when the file has several profiles.
    fn label(&self, threads: &HashMap<(String, String), String>) -> String {
        let thread = self
            .tid
            .as_ref()
            .and_then(|tid| threads.get(&(self.pid.clone(), tid.clone())));
        match thread {
            Some(name) => format!("{name} (pid {})", self.pid),
            None => format!("profile {} (pid {})", self.id, self.pid),
        }
    }

    /// Reads the profile as a `.cpuprofile`, with error places moved to
    /// the chunk events under `prefix`.
    fn read(self, prefix: &str) -> Result<Parsed, ParseError> {
        let Assembled {
            nodes,
            samples,
            deltas,
            start_time,
            end_time,
            node_chunks,
            sample_chunks,
            ..
        } = self;
        if nodes.is_empty() {
            let k = sample_chunks.first().map_or(0, |c| c.1);
            return Err(ParseError::json(
                format!("{prefix}[{k}].args.data.cpuProfile"),
                "the profile's chunks have samples but no `nodes`",
            ));
        }
        cpuprofile::from_parts(nodes, samples, deltas, start_time, end_time).map_err(|e| {
            relocate(
                e,
                prefix,
                &[
                    ("$.nodes[", "nodes", &node_chunks),
                    ("$.samples[", "samples", &sample_chunks),
                ],
            )
        })
    }
}

/// An array of the assembled profile: its path prefix there (`$.nodes[`),
/// its field in a chunk, and (first index, event index) per chunk.
type ChunkedArray<'a> = (&'a str, &'a str, &'a [(usize, usize)]);

/// An error of the assembled profile at `$.nodes[i]…` or `$.samples[i]…`
/// placed in the chunk event that holds entry `i`.
fn relocate(e: ParseError, prefix: &str, arrays: &[ChunkedArray]) -> ParseError {
    let Place::Json(path) = &e.place else {
        return e;
    };
    for (start, field, chunks) in arrays {
        let Some(rest) = path.strip_prefix(start) else {
            continue;
        };
        let Some((index, rest)) = rest.split_once(']') else {
            continue;
        };
        let Ok(i) = index.parse::<usize>() else {
            continue;
        };
        let Some(&(first, k)) = chunks.iter().rev().find(|(first, _)| *first <= i) else {
            continue;
        };
        let place = format!(
            "{prefix}[{k}].args.data.cpuProfile.{field}[{}]{rest}",
            i - first
        );
        return ParseError::json(place, e.message);
    }
    e
}

/// One profile as it is; several each under a frame named `label`.
fn merge(mut read: Vec<(String, Parsed)>) -> Parsed {
    if read.len() == 1 {
        if let Some((_, parsed)) = read.pop() {
            return parsed;
        }
    }
    let metrics = read
        .first()
        .map(|(_, p)| p.profile.metrics.clone())
        .unwrap_or_default();
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(metrics);
    for (label, parsed) in read {
        let base = frames.intern(Frame::named(label));
        let map = frames.absorb(parsed.frames);
        let tree = &parsed.profile.tree;
        let count = profile.metrics.len().min(tree.metric_count());
        for node in tree.node_ids() {
            let values: Vec<f64> = (0..count).map(|m| tree.self_value(node, m)).collect();
            if values.iter().all(|&v| v == 0.0) {
                continue;
            }
            let stack = tree.stack_of(node);
            let path = std::iter::once(base).chain(stack.iter().map(|f| map[f.0 as usize]));
            profile.tree.add_stack(path, &values);
        }
        profile.notes.extend(parsed.profile.notes);
    }
    Parsed::new(frames, profile)
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::NodeId;

    fn parse(text: &str) -> Result<Parsed, ParseError> {
        let (format, parsed) = crate::parse_bytes("trace.json", text.as_bytes())?;
        assert_eq!(format, "chrome-trace");
        Ok(parsed)
    }

    fn function(p: &Parsed, node: NodeId) -> &str {
        &p.frames.get(p.profile.tree.frame(node).unwrap()).function
    }

    /// The trace's own figures for one profile, computed from its JSON
    /// apart from the reader: samples, and the time they span plus one
    /// mean interval (the last sample's length when no end time is given).
    fn own_figures(events: &[serde_json::Value], pid: i64) -> (f64, f64) {
        let mut times = Vec::new();
        let mut t = 0.0;
        for e in events {
            if e["name"] == "ProfileChunk" && e["pid"] == pid {
                for d in e["args"]["data"]["timeDeltas"].as_array().unwrap() {
                    t += d.as_f64().unwrap();
                    times.push(t);
                }
            }
        }
        let n = times.len() as f64;
        let max = times.iter().copied().fold(f64::MIN, f64::max);
        let min = times.iter().copied().fold(f64::MAX, f64::min);
        let span = max - min;
        (n, (span + span / (n - 1.0)) * 1000.0)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * a.abs().max(b.abs())
    }

    /// tests/fixtures/chrome-trace: headless chromium 156 loading
    /// busy.html, with the headless shell's own page profiled too.
    #[test]
    fn chromium_startup_trace_reads_both_renderers() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/chrome-trace"
        );
        let text = std::fs::read_to_string(format!("{dir}/trace.json")).unwrap();
        let summary = std::fs::read_to_string(format!("{dir}/trace-summary.txt")).unwrap();
        let p = parse(&text).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let events = json["traceEvents"].as_array().unwrap();
        let mut pids: Vec<i64> = events
            .iter()
            .filter(|e| e["name"] == "Profile")
            .map(|e| e["pid"].as_i64().unwrap())
            .collect();
        pids.sort();
        let tree = &p.profile.tree;
        let (cpu, samples) = (0, 1);
        assert_eq!(p.profile.metrics[cpu].name, "cpu");
        let mut expected = (0.0, 0.0);
        for pid in &pids {
            let (n, t) = own_figures(events, *pid);
            expected.0 += n;
            expected.1 += t;
            // Each profile under its thread, as trace-summary.txt counts it.
            let root = *tree
                .children(NodeId::ROOT)
                .iter()
                .find(|&&r| function(&p, r) == format!("CrRendererMain (pid {pid})"))
                .unwrap_or_else(|| panic!("no root frame for pid {pid}"));
            assert_eq!(tree.inclusive(samples)[root.index()], n, "pid {pid}");
            assert!(
                summary.contains(&format!("pid {pid} id 0x1: samples {n} ")),
                "{summary}"
            );
        }
        assert_eq!(tree.total(samples), expected.0);
        assert!(
            close(tree.total(cpu), expected.1),
            "{} vs {}",
            tree.total(cpu),
            expected.1
        );
        // The top self function of the page's profile is busyLoop, with
        // the samples trace-summary.txt counts for it.
        let line = summary
            .lines()
            .find(|l| l.contains("top busyLoop"))
            .unwrap();
        let count: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        let busy: f64 = tree
            .node_ids()
            .filter(|&n| tree.frame(n).is_some_and(|_| function(&p, n) == "busyLoop"))
            .map(|n| tree.self_value(n, samples))
            .sum();
        assert_eq!(busy, count);
        let frame = p
            .frames
            .iter()
            .find(|(_, f)| f.function == "busyLoop")
            .unwrap()
            .1;
        assert!(frame
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with("/busy.html")));
        assert_eq!(frame.line, Some(12));
        assert!(p.profile.timeline.is_none());
    }

    /// DevTools' Performance panel export (Chrome 116), from the shared
    /// corpus: one profile, no root frame, samples in time order.
    #[test]
    fn devtools_performance_export_reads_as_its_samples() {
        let Some(bytes) =
            crate::test_support::corpus("speedscope/Chrome/116/Trace-20230603T221323.json")
        else {
            return;
        };
        let text = String::from_utf8(bytes).unwrap();
        let p = parse(&text).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let events = json["traceEvents"].as_array().unwrap();
        let pid = events.iter().find(|e| e["name"] == "Profile").unwrap()["pid"]
            .as_i64()
            .unwrap();
        let (n, t) = own_figures(events, pid);
        assert_eq!(n, 1600.0);
        assert_eq!(p.profile.tree.total(1), n);
        assert!(
            close(p.profile.tree.total(0), t),
            "{} vs {t}",
            p.profile.tree.total(0)
        );
        assert!(p.profile.timeline.is_some());
    }

    const CHUNKS: &str = r#"[
      {"name": "thread_name", "ph": "M", "pid": 7, "tid": 1, "args": {"name": "main"}},
      {"name": "Profile", "ph": "P", "pid": 7, "tid": 1, "id": "0x1", "ts": 5, "args": {"data": {"startTime": 100}}},
      {"name": "ProfileChunk", "ph": "P", "pid": 7, "tid": 2, "id": "0x1", "ts": 6, "args": {"data": {
        "cpuProfile": {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)"}},
                                 {"id": 2, "parent": 1, "callFrame": {"functionName": "f", "url": "a.js", "lineNumber": 0}}],
                       "samples": [2, 2]},
        "timeDeltas": [10, 10]}}},
      {"name": "ProfileChunk", "ph": "P", "pid": 7, "tid": 2, "id": "0x1", "ts": 7, "args": {"data": {
        "cpuProfile": {"nodes": [{"id": 3, "parent": 2, "callFrame": {"functionName": "g"}}], "samples": [3, 2]},
        "timeDeltas": [10, 10]}}}"#;

    #[test]
    fn chunks_continue_each_other_and_an_unclosed_array_reads() {
        let p = parse(CHUNKS).unwrap();
        assert_eq!(p.profile.totals(), vec![40_000.0, 4.0]);
        let f = p.profile.tree.children(NodeId::ROOT)[0];
        assert_eq!(function(&p, f), "f");
        assert_eq!(function(&p, p.profile.tree.children(f)[0]), "g");
        let closed = format!("{CHUNKS}]");
        assert_eq!(parse(&closed).unwrap().profile.totals(), p.profile.totals());
        let object = format!("{{\"traceEvents\": {closed}}}");
        assert_eq!(parse(&object).unwrap().profile.totals(), p.profile.totals());
    }

    #[test]
    fn broken_chunks_name_the_event() {
        let place = |text: &str| parse(text).unwrap_err();
        let e = place(&CHUNKS.replace(
            "\"timeDeltas\": [10, 10]}}},\n      {\"name\": \"ProfileChunk\"",
            "\"timeDeltas\": [10]}}},\n      {\"name\": \"ProfileChunk\"",
        ));
        assert_eq!(
            e.place,
            Place::Json("$[2].args.data.timeDeltas".into()),
            "{e}"
        );
        let e = place(&CHUNKS.replace("\"samples\": [3, 2]", "\"samples\": [3, 9]"));
        assert_eq!(
            e.place,
            Place::Json("$[3].args.data.cpuProfile.samples[1]".into()),
            "{e}"
        );
        assert!(e.message.contains("node id 9"), "{e}");
        let e = place(&CHUNKS.replace("{\"id\": 3, \"parent\": 2", "{\"id\": 3, \"parent\": 5"));
        assert_eq!(
            e.place,
            Place::Json("$[3].args.data.cpuProfile.nodes[0].parent".into()),
            "{e}"
        );
        let e = place(&CHUNKS.replace("\"samples\": [3, 2]}", "\"samples\": \"x\"}"));
        assert_eq!(e.place, Place::Json("$[3].args".into()), "{e}");
        let e = place(&CHUNKS.replace("\"nodes\": [{\"id\": 3, \"parent\": 2, \"callFrame\": {\"functionName\": \"g\"}}], ", "").replace("\"cpuProfile\": {\"nodes\": [{\"id\": 1, \"callFrame\": {\"functionName\": \"(root)\"}},\n                                 {\"id\": 2, \"parent\": 1, \"callFrame\": {\"functionName\": \"f\", \"url\": \"a.js\", \"lineNumber\": 0}}],", "\"cpuProfile\": {"));
        assert_eq!(
            e.place,
            Place::Json("$[2].args.data.cpuProfile".into()),
            "{e}"
        );
        let e = place(r#"{"traceEvents": [{"name": "a", "ph": "X", "ts": 1}]}"#);
        assert!(e.message.contains("no `ProfileChunk` events"), "{e}");
        // Truncated inside an event: an error at its line.
        let cut = &CHUNKS[..CHUNKS.len() / 2];
        let e = place(cut);
        assert!(matches!(e.place, Place::Line(_)), "{e}");
        let e = place(r#"{"traceEvents": 3}"#);
        assert!(matches!(e.place, Place::Line(1)), "{e}");
    }
}
