//! perfatlas's own JSON format: everything the model holds (metrics,
//! frames, the calling-context tree with one self value per metric, and the
//! optional timeline, allocation sites and line self values), documented
//! in `docs/native-format.md`.
//!
//! [`to_json`] writes it deterministically (tree order, one node per line);
//! [`Native`] reads it back. The top-level `"perfatlas"` key holds the
//! format version; this reader reads version 1 and rejects others with a
//! clear message. Unknown keys are ignored so later minor additions stay
//! readable.

use std::fmt::Write as _;

use serde::Deserialize;

use super::{sniff, Format, Input, Parsed};
use model::error::ParseError;
use model::{
    Allocations, ClassSource, CountKind, Frame, FrameId, FrameTable, LineSelf, Metric, NodeId,
    Profile, Timeline, TimelineSample,
};

/// The native format version this perfatlas reads and writes.
pub const VERSION: u64 = 1;

pub struct Native;

impl Format for Native {
    fn name(&self) -> &'static str {
        "native"
    }

    fn sniff(&self, input: &Input) -> bool {
        let head = super::head(input.bytes, 1024);
        sniff::opening_byte(head) == Some(b'{') && sniff::has_key_in_bytes(head, "perfatlas")
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let bytes = input
            .bytes
            .strip_prefix(&[0xEF, 0xBB, 0xBF])
            .unwrap_or(input.bytes);
        check_version(bytes)?;
        let doc: Document = serde_json::from_slice(bytes).map_err(json_error)?;
        build(doc)
    }
}

#[derive(Deserialize)]
struct VersionOnly {
    perfatlas: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Document {
    metrics: Vec<Metric>,
    frames: Vec<Frame>,
    nodes: Vec<NodeRecord>,
    #[serde(default)]
    root_self: Option<Vec<f64>>,
    #[serde(default)]
    timeline: Option<Vec<SampleRecord>>,
    #[serde(default)]
    allocations: Option<AllocationsRecord>,
}

/// `$.allocations`: what each calling context instantiates directly.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllocationsRecord {
    /// "objects" (default), "samples" or "none".
    #[serde(default)]
    counts: Option<String>,
    /// False when the sites carry no byte sizes.
    #[serde(default = "yes")]
    bytes: bool,
    #[serde(default)]
    bytes_note: Option<String>,
    /// True when the class names are the allocating functions' names.
    #[serde(default)]
    classes_are_functions: bool,
    /// True when children are listed in call order.
    #[serde(default)]
    call_order: bool,
    sites: Vec<SiteRecord>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SiteRecord {
    node: Option<u64>,
    class: String,
    #[serde(default)]
    count: f64,
    #[serde(default)]
    bytes: f64,
    #[serde(default)]
    live_count: Option<f64>,
    #[serde(default)]
    live_bytes: Option<f64>,
}

#[derive(Deserialize)]
struct NodeRecord {
    frame: u64,
    parent: Option<u64>,
    #[serde(rename = "self")]
    self_values: Vec<f64>,
    /// Calls into this context from its parent's (instrumenting profilers).
    #[serde(default)]
    calls: Option<f64>,
    /// `[line, value per metric…]`: the self value by line of the frame's
    /// file (V8's `positionTicks`).
    #[serde(default)]
    lines: Option<Vec<Vec<f64>>>,
}

#[derive(Deserialize)]
struct SampleRecord {
    start: f64,
    #[serde(default)]
    duration: f64,
    #[serde(default)]
    node: Option<u64>,
}

/// A serde_json error as a parse error at its line.
fn json_error(e: serde_json::Error) -> ParseError {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    if e.line() == 0 {
        ParseError::whole(format!("invalid native JSON: {message}"))
    } else {
        ParseError::line(
            e.line(),
            format!("invalid native JSON (column {}): {message}", e.column()),
        )
    }
}

fn check_version(bytes: &[u8]) -> Result<(), ParseError> {
    let doc: VersionOnly = serde_json::from_slice(bytes).map_err(json_error)?;
    match doc.perfatlas {
        None => Err(ParseError::json(
            "$.perfatlas",
            format!("missing: a native file starts with \"perfatlas\": {VERSION}"),
        )),
        Some(v) if v.as_u64() == Some(VERSION) => Ok(()),
        Some(v) if v.is_number() => Err(ParseError::json(
            "$.perfatlas",
            format!("unsupported native format version {v} (this perfatlas reads {VERSION})"),
        )),
        Some(v) => Err(ParseError::json(
            "$.perfatlas",
            format!("expected the format version number {VERSION}, found {v}"),
        )),
    }
}

fn build(doc: Document) -> Result<Parsed, ParseError> {
    if doc.metrics.is_empty() {
        return Err(ParseError::json(
            "$.metrics",
            "at least one metric is required",
        ));
    }
    let metric_count = doc.metrics.len();
    let mut frames = FrameTable::new();
    // Equal frames written twice share one id.
    let frame_ids: Vec<FrameId> = doc.frames.into_iter().map(|f| frames.intern(f)).collect();
    let mut profile = Profile::new(doc.metrics);
    let check_len = |values: &[f64], path: String| -> Result<(), ParseError> {
        if values.len() == metric_count {
            Ok(())
        } else {
            Err(ParseError::json(
                path,
                format!(
                    "has {} value(s), expected one per metric ({metric_count})",
                    values.len()
                ),
            ))
        }
    };
    if let Some(values) = &doc.root_self {
        check_len(values, "$.root_self".to_string())?;
        for (m, &v) in values.iter().enumerate() {
            profile.tree.add_self(NodeId::ROOT, m, v);
        }
    }
    // For each record, the tree node it became.
    let mut node_ids: Vec<NodeId> = Vec::with_capacity(doc.nodes.len());
    for (i, node) in doc.nodes.iter().enumerate() {
        let frame = usize::try_from(node.frame)
            .ok()
            .and_then(|f| frame_ids.get(f))
            .copied()
            .ok_or_else(|| {
                ParseError::json(
                    format!("$.nodes[{i}].frame"),
                    format!(
                        "frame {} does not exist ({} frames)",
                        node.frame,
                        frame_ids.len()
                    ),
                )
            })?;
        let parent = match node.parent {
            None => NodeId::ROOT,
            Some(p) => usize::try_from(p).ok().and_then(|p| node_ids.get(p)).copied().ok_or_else(|| {
                ParseError::json(
                    format!("$.nodes[{i}].parent"),
                    format!("parent {p} does not come before node {i} (parents must be listed before their children)"),
                )
            })?,
        };
        check_len(&node.self_values, format!("$.nodes[{i}].self"))?;
        let id = profile.tree.child(parent, frame);
        for (m, &v) in node.self_values.iter().enumerate() {
            profile.tree.add_self(id, m, v);
        }
        node_ids.push(id);
    }
    profile.line_self = read_lines(&doc.nodes, &node_ids, metric_count)?;
    if let Some(samples) = doc.timeline {
        let mut timeline = Vec::with_capacity(samples.len());
        for (i, s) in samples.iter().enumerate() {
            let node = match s.node {
                None => NodeId::ROOT,
                Some(n) => usize::try_from(n)
                    .ok()
                    .and_then(|n| node_ids.get(n))
                    .copied()
                    .ok_or_else(|| {
                        ParseError::json(
                            format!("$.timeline[{i}].node"),
                            format!("node {n} does not exist ({} nodes)", node_ids.len()),
                        )
                    })?,
            };
            if s.duration < 0.0 {
                return Err(ParseError::json(
                    format!("$.timeline[{i}].duration"),
                    "must not be negative",
                ));
            }
            timeline.push(TimelineSample {
                start_ns: s.start,
                duration_ns: s.duration,
                node,
            });
        }
        profile.timeline = Some(Timeline { samples: timeline });
    }
    let calls: Vec<(NodeId, f64)> = doc
        .nodes
        .iter()
        .zip(&node_ids)
        .filter_map(|(n, &id)| n.calls.map(|c| (id, c)))
        .collect();
    if let Some(record) = doc.allocations {
        let mut alloc = read_allocations(record, &node_ids)?;
        for (i, &(id, c)) in calls.iter().enumerate() {
            if !(c.is_finite() && c >= 0.0) {
                return Err(ParseError::json(
                    format!("$.nodes[{i}].calls"),
                    "must be a count ≥ 0",
                ));
            }
            alloc.set_calls(id, c, profile.tree.len());
        }
        profile.allocations = Some(Box::new(alloc));
    }
    Ok(Parsed::new(frames, profile))
}

/// The line table of the nodes' `lines`, `None` when no node has any.
fn read_lines(
    nodes: &[NodeRecord],
    node_ids: &[NodeId],
    metric_count: usize,
) -> Result<Option<LineSelf>, ParseError> {
    let mut entries = Vec::new();
    for (i, (node, &id)) in nodes.iter().zip(node_ids).enumerate() {
        for (k, entry) in node.lines.iter().flatten().enumerate() {
            let path = format!("$.nodes[{i}].lines[{k}]");
            let line = entry.first().copied().unwrap_or(0.0);
            if !(line >= 1.0 && line < u32::MAX as f64 && line.fract() == 0.0) {
                return Err(ParseError::json(path, "must start with a line number ≥ 1"));
            }
            let values = &entry[1..];
            if values.len() != metric_count || values.iter().any(|v| !v.is_finite()) {
                return Err(ParseError::json(
                    path,
                    format!("must hold the line and one finite value per metric ({metric_count})"),
                ));
            }
            entries.push((id, line as u32, values));
        }
    }
    Ok((!entries.is_empty()).then(|| LineSelf::from_entries(metric_count, entries)))
}

/// The node a record index (or `null` for the root) names.
fn node_at(index: Option<u64>, node_ids: &[NodeId], path: String) -> Result<NodeId, ParseError> {
    match index {
        None => Ok(NodeId::ROOT),
        Some(n) => usize::try_from(n)
            .ok()
            .and_then(|n| node_ids.get(n))
            .copied()
            .ok_or_else(|| {
                ParseError::json(
                    path,
                    format!("node {n} does not exist ({} nodes)", node_ids.len()),
                )
            }),
    }
}

fn read_allocations(
    record: AllocationsRecord,
    node_ids: &[NodeId],
) -> Result<Allocations, ParseError> {
    let count_kind = match record.counts.as_deref() {
        None | Some("objects") => CountKind::Objects,
        Some("samples") => CountKind::Samples,
        Some("none") => CountKind::Unknown,
        Some(other) => {
            return Err(ParseError::json(
                "$.allocations.counts",
                format!("expected \"objects\", \"samples\" or \"none\", found {other:?}"),
            ))
        }
    };
    let source = if record.classes_are_functions {
        ClassSource::AllocatingFunction
    } else {
        ClassSource::Recorded
    };
    let mut alloc = Allocations::new(count_kind, record.bytes, source);
    alloc.bytes_note = record.bytes_note;
    alloc.call_order = record.call_order;
    for (i, site) in record.sites.iter().enumerate() {
        let path = |key: &str| format!("$.allocations.sites[{i}].{key}");
        let node = node_at(site.node, node_ids, path("node"))?;
        let amounts = [
            ("count", Some(site.count)),
            ("bytes", Some(site.bytes)),
            ("live_count", site.live_count),
            ("live_bytes", site.live_bytes),
        ];
        for (key, value) in amounts {
            if value.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                return Err(ParseError::json(path(key), "must be a finite number ≥ 0"));
            }
        }
        let class = alloc.class(&site.class);
        let at = alloc.add(node, class, site.count, site.bytes);
        let merged = &mut alloc.sites[at];
        if let Some(v) = site.live_count {
            *merged.live_count.get_or_insert(0.0) += v;
        }
        if let Some(v) = site.live_bytes {
            *merged.live_bytes.get_or_insert(0.0) += v;
        }
    }
    Ok(alloc)
}

/// A number as JSON: integers without a fraction, others in Rust's shortest
/// round-trip form (never an exponent, so always valid JSON); non-finite
/// values, which the model never holds, as 0.
fn number(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push('0');
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        let _ = write!(out, "{}", v as i64);
    } else {
        let _ = write!(out, "{v}");
    }
}

fn numbers(out: &mut String, values: impl Iterator<Item = f64>) {
    out.push('[');
    for (i, v) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        number(out, v);
    }
    out.push(']');
}

fn json_string<T: serde::Serialize + ?Sized>(value: &T) -> String {
    // Serialising strings, frames and units cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_string())
}

/// Serialises a parsed profile as native JSON: compact, one frame, node or
/// timeline sample per line, in tree order, so equal profiles give equal
/// bytes and diffs stay readable.
pub fn to_json(parsed: &Parsed) -> String {
    let profile = &parsed.profile;
    let tree = &profile.tree;
    let metric_count = profile.metrics.len();
    let calls = profile.allocations.as_ref().and_then(|a| a.calls.as_ref());
    let mut out = String::new();
    let _ = write!(out, "{{\"perfatlas\":{VERSION},\n\"metrics\":[");
    for (i, m) in profile.metrics.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "\n{{\"name\":{},\"unit\":{}}}",
            json_string(&m.name),
            json_string(&m.unit)
        );
    }
    out.push_str("],\n\"frames\":[");
    for (i, (_, frame)) in parsed.frames.iter().enumerate() {
        out.push_str(if i > 0 { ",\n" } else { "\n" });
        out.push_str(&json_string(frame));
    }
    out.push_str("],\n");
    if (0..metric_count).any(|m| tree.self_value(NodeId::ROOT, m) != 0.0) {
        out.push_str("\"root_self\":");
        numbers(
            &mut out,
            (0..metric_count).map(|m| tree.self_value(NodeId::ROOT, m)),
        );
        out.push_str(",\n");
    }
    out.push_str("\"nodes\":[");
    // Node records are the tree's nodes without the root, so record i is
    // tree node i + 1.
    for node in tree.node_ids().skip(1) {
        out.push_str(if node.index() > 1 { ",\n" } else { "\n" });
        let frame = tree.frame(node).map_or(0, |f| f.0);
        let _ = write!(out, "{{\"frame\":{frame},\"parent\":");
        match tree.parent(node) {
            Some(p) if p != NodeId::ROOT => {
                let _ = write!(out, "{}", p.index() - 1);
            }
            _ => out.push_str("null"),
        }
        out.push_str(",\"self\":");
        numbers(
            &mut out,
            (0..metric_count).map(|m| tree.self_value(node, m)),
        );
        if let Some(c) = calls
            .and_then(|c| c.get(node.index()))
            .filter(|&&c| c > 0.0)
        {
            out.push_str(",\"calls\":");
            number(&mut out, *c);
        }
        if let Some(table) = &profile.line_self {
            write_lines(&mut out, table, node, metric_count);
        }
        out.push('}');
    }
    out.push(']');
    if let Some(timeline) = &profile.timeline {
        out.push_str(",\n\"timeline\":[");
        for (i, s) in timeline.samples.iter().enumerate() {
            out.push_str(if i > 0 { ",\n" } else { "\n" });
            out.push_str("{\"start\":");
            number(&mut out, s.start_ns);
            out.push_str(",\"duration\":");
            number(&mut out, s.duration_ns);
            out.push_str(",\"node\":");
            if s.node == NodeId::ROOT {
                out.push_str("null");
            } else {
                let _ = write!(out, "{}", s.node.index() - 1);
            }
            out.push('}');
        }
        out.push(']');
    }
    if let Some(alloc) = &profile.allocations {
        write_allocations(&mut out, alloc);
    }
    out.push_str("}\n");
    out
}

/// A node's `"lines"`, when its table has any: `[line, value per metric…]`
/// (0 for metrics the table does not have).
fn write_lines(out: &mut String, table: &LineSelf, node: NodeId, metric_count: usize) {
    let mut lines = table.lines_of(node).peekable();
    if lines.peek().is_none() {
        return;
    }
    out.push_str(",\"lines\":[");
    for (k, (line, values)) in lines.enumerate() {
        if k > 0 {
            out.push(',');
        }
        let padded = (0..metric_count).map(|m| values.get(m).copied().unwrap_or(0.0));
        numbers(out, std::iter::once(f64::from(line)).chain(padded));
    }
    out.push(']');
}

/// `$.allocations`, one site per line, nodes as record indices.
fn write_allocations(out: &mut String, alloc: &Allocations) {
    let counts = match alloc.count_kind {
        CountKind::Objects => "objects",
        CountKind::Samples => "samples",
        CountKind::Unknown => "none",
    };
    let _ = write!(
        out,
        ",\n\"allocations\":{{\"counts\":\"{counts}\",\"bytes\":{},\"classes_are_functions\":{},\"call_order\":{}",
        alloc.bytes_known,
        alloc.class_source == ClassSource::AllocatingFunction,
        alloc.call_order
    );
    if let Some(note) = &alloc.bytes_note {
        let _ = write!(out, ",\"bytes_note\":{}", json_string(note));
    }
    out.push_str(",\"sites\":[");
    for (i, site) in alloc.sites.iter().enumerate() {
        out.push_str(if i > 0 { ",\n" } else { "\n" });
        out.push_str("{\"node\":");
        if site.node == NodeId::ROOT {
            out.push_str("null");
        } else {
            let _ = write!(out, "{}", site.node.index() - 1);
        }
        let _ = write!(
            out,
            ",\"class\":{},\"count\":",
            json_string(&alloc.classes[site.class as usize])
        );
        number(out, site.count);
        out.push_str(",\"bytes\":");
        number(out, site.bytes);
        for (key, value) in [
            ("live_count", site.live_count),
            ("live_bytes", site.live_bytes),
        ] {
            if let Some(v) = value {
                let _ = write!(out, ",\"{key}\":");
                number(out, v);
            }
        }
        out.push('}');
    }
    out.push_str("]}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::to_folded;
    use crate::folded::Folded;
    use model::error::Place;
    use model::Unit;

    fn read(text: &str) -> Result<Parsed, ParseError> {
        Native.parse(&Input {
            file_name: "x.json",
            bytes: text.as_bytes(),
        })
    }

    fn sniff(text: &str) -> bool {
        Native.sniff(&Input {
            file_name: "x.json",
            bytes: text.as_bytes(),
        })
    }

    const EXAMPLE: &str = r#"{ "perfatlas": 1,
  "metrics": [{"name": "cpu", "unit": "nanoseconds"}],
  "frames": [{"function": "main", "file": "main.c", "line": 3, "module": "app"}, {"function": "work"}],
  "nodes": [{"frame": 0, "parent": null, "self": [10]}, {"frame": 1, "parent": 0, "self": [5]}],
  "timeline": [{"start": 0, "duration": 1000, "node": 1}]
}"#;

    #[test]
    fn reads_the_documented_example() {
        let p = read(EXAMPLE).unwrap();
        assert_eq!(
            p.profile.metrics,
            vec![Metric::new("cpu", Unit::Nanoseconds)]
        );
        assert_eq!(p.profile.totals(), vec![15.0]);
        assert_eq!(
            to_folded(&p, 0),
            "main (main.c:3) 10\nmain (main.c:3);work 5\n"
        );
        let main = p.frames.get(FrameId(0));
        assert_eq!(
            (main.file.as_deref(), main.line, main.module.as_deref()),
            (Some("main.c"), Some(3), Some("app"))
        );
        let tl = p.profile.timeline.as_ref().unwrap();
        assert_eq!(
            tl.samples,
            vec![TimelineSample {
                start_ns: 0.0,
                duration_ns: 1000.0,
                node: NodeId(2)
            }]
        );
        assert!(sniff(EXAMPLE));
    }

    #[test]
    fn sniff_needs_an_object_with_the_key() {
        assert!(sniff("\u{feff}  {\n\"perfatlas\" : 1}"));
        assert!(!sniff("[{\"perfatlas\": 1}]"));
        assert!(!sniff(
            "{\"shared\": {\"frames\": [{\"name\": \"perfatlas\"}]}}"
        ));
        assert!(!sniff("a;b 1\n"));
    }

    #[test]
    fn round_trip_from_folded_keeps_totals_and_stacks() {
        // ` 7` is a sample without frames: a root self value.
        let text = "a;b;c 1\na;b;c 1\na;b;d 4\na;b 5\n 7\nx (f.py:3);y 2\n";
        let first = Folded
            .parse(&Input {
                file_name: "x.folded",
                bytes: text.as_bytes(),
            })
            .unwrap();
        let json = to_json(&first);
        let second = read(&json).unwrap();
        assert_eq!(second.profile.totals(), first.profile.totals());
        assert_eq!(second.profile.metrics, first.profile.metrics);
        assert_eq!(to_folded(&second, 0), to_folded(&first, 0));
        assert_eq!(second.profile.tree.self_value(NodeId::ROOT, 0), 7.0);
        // Deterministic, and a fixed point after one trip.
        assert_eq!(to_json(&second), json);
        assert_eq!(to_json(&first), json);
        assert!(sniff(&json));
        assert!(json.starts_with("{\"perfatlas\":1,\n"), "{json}");
        assert!(
            json.contains("\n{\"frame\":1,\"parent\":0,\"self\":[5]},\n"),
            "{json}"
        );
        assert!(json.contains("\n\"root_self\":[7],\n"), "{json}");
    }

    #[test]
    fn round_trip_keeps_metrics_units_and_timeline() {
        let text = "app 7 10.000000: 1000 cpu-clock:\n\t3 leaf+0x1 (/usr/lib/libx.so)\n\t2 mid (/bin/app)\n\n\
                    app 7 10.000500: 3000 cpu-clock:\n\t2 mid (/bin/app)\n\n\
                    app 7 10.0010005: 5 cycles:\n\t4 \"q\\\"\u{e9}\" (/bin/app)\n";
        let first = crate::perf_script::PerfScript
            .parse(&Input {
                file_name: "x",
                bytes: text.as_bytes(),
            })
            .unwrap();
        let second = read(&to_json(&first)).unwrap();
        assert_eq!(second.profile.metrics, first.profile.metrics);
        assert_eq!(second.profile.totals(), first.profile.totals());
        for m in 0..first.profile.metrics.len() {
            assert_eq!(to_folded(&second, m), to_folded(&first, m));
        }
        assert_eq!(second.profile.timeline, first.profile.timeline);
        let frames = |p: &Parsed| p.frames.iter().map(|(_, f)| f.clone()).collect::<Vec<_>>();
        assert_eq!(frames(&second), frames(&first));
        assert_eq!(to_json(&second), to_json(&first));
    }

    #[test]
    fn other_units_round_trip() {
        let p = read(r#"{"perfatlas":1,"metrics":[{"name":"a","unit":"bytes"},{"name":"b","unit":"widgets"}],"frames":[{"function":"f"}],"nodes":[{"frame":0,"parent":null,"self":[1.5,2]}]}"#).unwrap();
        assert_eq!(p.profile.metrics[1].unit, Unit::Other("widgets".into()));
        let again = read(&to_json(&p)).unwrap();
        assert_eq!(again.profile.metrics, p.profile.metrics);
        assert_eq!(again.profile.totals(), vec![1.5, 2.0]);
    }

    #[test]
    fn unknown_version_is_refused_clearly() {
        let e = read(r#"{"perfatlas": 2, "whatever": []}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.perfatlas: unsupported native format version 2 (this perfatlas reads 1)"
        );
        let e = read(r#"{"perfatlas": "1"}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.perfatlas".into()));
        let e = read(r#"{"metrics": []}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.perfatlas".into()));
    }

    fn doc(nodes: &str) -> String {
        format!(
            r#"{{"perfatlas":1,"metrics":[{{"name":"s","unit":"samples"}}],"frames":[{{"function":"f"}},{{"function":"g"}}],"nodes":[{nodes}]}}"#
        )
    }

    #[test]
    fn structural_errors_have_json_paths() {
        let node = r#"{"frame":0,"parent":null,"self":[1]}"#;
        let six = [node; 5].join(",");
        let e = read(&doc(&format!(
            r#"{six},{{"frame":1,"parent":5,"self":[1]}}"#
        )))
        .unwrap_err();
        assert_eq!(e.place, Place::Json("$.nodes[5].parent".into()));
        assert!(
            e.message
                .contains("parents must be listed before their children"),
            "{e}"
        );
        let e = read(&doc(&format!(
            r#"{node},{{"frame":2,"parent":0,"self":[1]}}"#
        )))
        .unwrap_err();
        assert_eq!(e.place, Place::Json("$.nodes[1].frame".into()));
        let e = read(&doc(r#"{"frame":0,"parent":null,"self":[1,2]}"#)).unwrap_err();
        assert_eq!(e.place, Place::Json("$.nodes[0].self".into()));
        let e = read(r#"{"perfatlas":1,"metrics":[],"frames":[],"nodes":[]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.metrics".into()));
        let with_timeline = format!(
            "{},\"timeline\":[{{\"start\":0,\"node\":3}}]}}",
            doc(node).trim_end_matches('}')
        );
        let e = read(&with_timeline).unwrap_err();
        assert_eq!(e.place, Place::Json("$.timeline[0].node".into()));
        // Type and syntax errors give the line.
        let e = read("{\"perfatlas\":1,\n\"metrics\":[{\"name\":\"s\",\"unit\":\"samples\"}],\n\"frames\":[],\n\"nodes\":[{\"frame\":-1}]}").unwrap_err();
        assert_eq!(e.place, Place::Line(4), "{e}");
        let e = read("{\"perfatlas\":1,\n\"metrics\":[").unwrap_err();
        assert_eq!(e.place, Place::Line(2), "{e}");
    }

    fn canvas() -> String {
        let path = concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/tests/fixtures/allocation/canvas.json"
        );
        std::fs::read_to_string(path).unwrap()
    }

    #[test]
    fn allocations_and_calls_are_read_and_round_trip() {
        let parsed = read(&canvas()).unwrap();
        let alloc = parsed.profile.allocations.as_deref().unwrap();
        assert_eq!(alloc.classes, ["Canvas", "ShapeFactory", "Circle", "Box"]);
        assert_eq!(alloc.totals(), (48.0, 1272.0));
        assert!(alloc.call_order);
        let calls = alloc.calls.as_ref().unwrap();
        assert_eq!(calls.iter().sum::<f64>(), 54.0);
        let again = read(&to_json(&parsed)).unwrap();
        assert_eq!(again.profile.allocations, parsed.profile.allocations);
        assert_eq!(to_json(&again), to_json(&parsed));
        // A heap profile's allocation sites survive `convert --to json`.
        let dir = concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/tests/fixtures/pprof/go-demo/1.0"
        );
        let bytes = std::fs::read(format!("{dir}/demo-heap.heap.pb.gz")).unwrap();
        let (_, heap) = crate::parse_bytes("h.pb.gz", &bytes).unwrap();
        let back = read(&to_json(&heap)).unwrap();
        assert_eq!(back.profile.allocations, heap.profile.allocations);
    }

    /// `convert --to json` of a `.cpuprofile` keeps its line self values
    /// (V8's positionTicks): the same lines and sample counts, and cpu
    /// shares to serde_json's float parsing (within an ulp or so).
    #[test]
    fn line_self_values_round_trip() {
        let path = concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/tests/data/first-contact/4.0.0/cpu-1.cpuprofile"
        );
        let (_, parsed) =
            crate::parse_bytes("cpu.cpuprofile", &std::fs::read(path).unwrap()).unwrap();
        let before = parsed.profile.line_self.as_ref().unwrap();
        let again = read(&to_json(&parsed)).unwrap();
        let after = again.profile.line_self.as_ref().unwrap();
        assert_eq!(after.len(), before.len());
        for ((n, l, v), (n2, l2, v2)) in before.iter().zip(after.iter()) {
            assert_eq!((n, l, v[1]), (n2, l2, v2[1]));
            assert!((v[0] - v2[0]).abs() <= 1e-12 * v[0], "{v:?} {v2:?}");
        }
        // A record's lines merge with those of a record of the same node.
        let two = doc(r#"{"frame":0,"parent":null,"self":[5],"lines":[[3,2]]},
               {"frame":0,"parent":null,"self":[1],"lines":[[3,1],[4,1]]}"#);
        let table = read(&two).unwrap().profile.line_self.unwrap();
        let entries: Vec<(u32, Vec<f64>)> = table.iter().map(|(_, l, v)| (l, v.to_vec())).collect();
        assert_eq!(entries, [(3, vec![3.0]), (4, vec![1.0])]);
    }

    #[test]
    fn bad_lines_have_json_paths() {
        for lines in ["[[0,1]]", "[[2.5,1]]", "[[3]]", "[[3,1,2]]", "[[]]"] {
            let text = doc(&format!(
                r#"{{"frame":0,"parent":null,"self":[1]}},{{"frame":1,"parent":0,"self":[1],"lines":{lines}}}"#
            ));
            let e = read(&text).unwrap_err();
            assert_eq!(
                e.place,
                Place::Json("$.nodes[1].lines[0]".into()),
                "{lines}"
            );
        }
    }

    #[test]
    fn bad_allocation_records_have_json_paths() {
        let text = canvas();
        let cases = [
            (
                "\"node\": 10, \"class\": \"Box\"",
                "\"node\": 99, \"class\": \"Box\"",
                "$.allocations.sites[5].node: node 99 does not exist",
            ),
            (
                "\"counts\": \"objects\"",
                "\"counts\": \"gallons\"",
                "$.allocations.counts: expected",
            ),
            (
                "\"count\": 8, \"bytes\": 256}\n ]",
                "\"count\": -8, \"bytes\": 256}\n ]",
                "$.allocations.sites[5].count: must be",
            ),
        ];
        for (from, to, want) in cases {
            assert!(text.contains(from), "{from}");
            let err = read(&text.replacen(from, to, 1)).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
    }

    #[test]
    fn never_panics_on_odd_input() {
        let deep = format!(
            "{{\"perfatlas\":1,\"x\":{}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        for text in [deep.as_str(), "{\"perfatlas\":1e400}", "{\"perfatlas\":1, \"metrics\":[{\"name\":\"a\",\"unit\":\"count\"}],\"frames\":[{\"function\":\"f\"}],\"nodes\":[{\"frame\":18446744073709551615,\"parent\":18446744073709551615,\"self\":[1]}]}", "{\"perfatlas\":-1}", "\u{feff}{\"perfatlas\":1.0}"] {
            let _ = read(text);
            let _ = sniff(text);
        }
        // A long chain is read without recursion.
        let mut chain = String::new();
        for i in 0..50_000 {
            if i > 0 {
                chain.push(',');
            }
            let parent = if i == 0 {
                "null".to_string()
            } else {
                (i - 1).to_string()
            };
            let _ = write!(
                chain,
                r#"{{"frame":{},"parent":{parent},"self":[1]}}"#,
                i % 2
            );
        }
        let p = read(&doc(&chain)).unwrap();
        assert_eq!(p.profile.tree.len(), 50_001);
        assert_eq!(read(&to_json(&p)).unwrap().profile.totals(), vec![50_000.0]);
    }
}
