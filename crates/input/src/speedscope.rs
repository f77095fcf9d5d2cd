//! speedscope's own JSON format (<https://www.speedscope.app/file-format-schema.json>),
//! written by speedscope's export, py-spy (`--format speedscope`), rbspy,
//! Austin, pyinstrument and others:
//!
//! ```text
//! {"$schema": "…speedscope…", "shared": {"frames": [{"name", "file"?, "line"?, "col"?}]},
//!  "profiles": [{"type": "sampled", "name", "unit", "startValue", "endValue",
//!                "samples": [[frame index, … root first]], "weights": [...]}
//!             | {"type": "evented", "name", "unit", "startValue", "endValue",
//!                "events": [{"type": "O" | "C", "at", "frame"}]}]}
//! ```
//!
//! All profiles of a file (usually one per thread) are merged into one call
//! tree; with more than one, each profile's stacks sit under a root-level
//! frame named after the profile. The metric follows the unit: `time` in
//! nanoseconds for time units, `bytes`, or `samples` for `none`. Sampled
//! profiles add a `samples` count.
//!
//! Files perfatlas wrote (`perfatlas convert --to speedscope`, with
//! `"exporter": "perfatlas …"`) hold one profile per metric: each profile
//! becomes a metric of that name and they share one tree.
//!
//! A frame's `line` with a `col` is where its function starts (speedscope's
//! import of a V8 profile); without one it is where the sample was taken
//! (py-spy), and a function is one frame whatever its lines, its self values
//! on those lines in the profile's line table (see
//! [`model::fold_sampled_lines`]).
//!
//! Evented profiles must nest, as speedscope requires: closing a frame that
//! is not on top of the stack, an `at` going backwards, and frames still open
//! at the end are errors naming the event.

use serde::Deserialize;

use super::convert::speedscope::EXPORTER;
use super::cpuprofile::json_error;
use super::sniff::JsonHead;
use super::{text, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, Metric, NodeId, Profile, Timeline, TimelineSample, Unit};

pub struct Speedscope;

impl Format for Speedscope {
    fn name(&self) -> &'static str {
        "speedscope"
    }

    fn sniff(&self, input: &Input) -> bool {
        let Some(head) = JsonHead::object(input.bytes, 4096) else {
            return false;
        };
        let head = head.document();
        let schema = head.find("\"$schema\"").is_some_and(|i| {
            let rest = head[i..]
                .char_indices()
                .take_while(|&(k, _)| k < 200)
                .map(|(_, c)| c);
            rest.collect::<String>().contains("speedscope")
        });
        schema || (head.contains("\"shared\"") && head.contains("\"profiles\""))
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let data = data.trim_start_matches('\u{feff}');
        let raw: RawFile = serde_json::from_str(data).map_err(json_error)?;
        build(raw)
    }
}

#[derive(Deserialize)]
struct RawFile {
    exporter: Option<String>,
    shared: Option<Shared>,
    profiles: Option<Vec<RawProfile>>,
}

#[derive(Deserialize, Default)]
struct Shared {
    #[serde(default)]
    frames: Vec<RawFrame>,
}

#[derive(Deserialize)]
struct RawFrame {
    name: Option<String>,
    file: Option<String>,
    line: Option<f64>,
    col: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawProfile {
    #[serde(rename = "type")]
    kind: Option<String>,
    name: Option<String>,
    unit: Option<String>,
    start_value: Option<f64>,
    samples: Option<Vec<Vec<i64>>>,
    weights: Option<Vec<f64>>,
    events: Option<Vec<RawEvent>>,
}

#[derive(Deserialize)]
struct RawEvent {
    #[serde(rename = "type")]
    kind: String,
    at: f64,
    frame: i64,
}

/// What the file's values measure.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Time,
    Bytes,
    Plain,
}

fn kind_of(unit: &str) -> (Kind, f64) {
    if let Some(scale) = Unit::nanoseconds_per(unit) {
        return (Kind::Time, scale);
    }
    match unit.to_ascii_lowercase().as_str() {
        "bytes" | "byte" => (Kind::Bytes, 1.0),
        _ => (Kind::Plain, 1.0),
    }
}

fn build(raw: RawFile) -> Result<Parsed, ParseError> {
    let Some(profiles) = raw.profiles else {
        return Err(ParseError::json(
            "$",
            "expected a `profiles` array (a speedscope file)",
        ));
    };
    if profiles.is_empty() {
        return Err(ParseError::json("$.profiles", "the file has no profiles"));
    }
    let shared = raw.shared.unwrap_or_default();

    let mut frames = FrameTable::new();
    let frame_ids = intern_shared_frames(shared.frames, &mut frames);

    // One metric for the whole file, from the first profile's unit; the
    // others must measure the same kind of thing.
    let first_unit = profiles[0]
        .unit
        .clone()
        .unwrap_or_else(|| "none".to_string());
    let (kind, _) = kind_of(&first_unit);
    let per_metric = raw
        .exporter
        .as_deref()
        .is_some_and(|e| e.split(' ').next() == Some(EXPORTER));
    let (metrics, count_metric) = if per_metric {
        (metric_per_profile(&profiles), None)
    } else {
        file_metrics(kind, &profiles)
    };
    let mut merged = Merged {
        frames,
        frame_ids,
        profile: Profile::new(metrics),
        timeline: Vec::new(),
        count_metric,
    };
    let several = profiles.len() > 1;
    for (p, raw) in profiles.into_iter().enumerate() {
        if per_metric {
            merged.add_metric_profile(p, raw)?;
        } else {
            merged.add_profile(p, raw, kind, &first_unit, several)?;
        }
    }
    let Merged {
        frames,
        mut profile,
        timeline,
        ..
    } = merged;
    if !timeline.is_empty() {
        profile.timeline = Some(Timeline { samples: timeline });
    }
    let (frames, profile) = model::fold_sampled_lines(frames, profile);
    Ok(Parsed::new(frames, profile))
}

/// The file's shared frames, interned in order: a frame's index in the
/// file is its index here.
fn intern_shared_frames(shared: Vec<RawFrame>, frames: &mut FrameTable) -> Vec<FrameId> {
    shared
        .into_iter()
        .map(|f| {
            let function = match f.name {
                Some(n) if !n.is_empty() => n,
                _ => "(anonymous)".to_string(),
            };
            let number = |v: Option<f64>| {
                v.filter(|l| l.is_finite() && *l >= 1.0 && *l <= u32::MAX as f64)
                    .map(|l| l as u32)
            };
            let line = number(f.line);
            // With a column, the position is where the function starts
            // (speedscope's import of a V8 profile); without, where the
            // sample was taken (py-spy).
            let start_column = number(f.col).filter(|_| line.is_some());
            frames.intern(Frame {
                function,
                file: f.file.filter(|s| !s.is_empty()),
                line,
                module: None,
                start_line: start_column.and(line),
                start_column,
                source_hash: None,
                full_name: None,
            })
        })
        .collect()
}

/// The metrics of a file perfatlas wrote: one per profile, named after it.
fn metric_per_profile(profiles: &[RawProfile]) -> Vec<Metric> {
    profiles
        .iter()
        .enumerate()
        .map(|(p, raw)| {
            let name = match raw.name.as_deref() {
                Some(n) if !n.is_empty() => n.to_string(),
                _ => format!("profile {p}"),
            };
            let unit = match kind_of(raw.unit.as_deref().unwrap_or("none")).0 {
                Kind::Time => Unit::Nanoseconds,
                Kind::Bytes => Unit::Bytes,
                Kind::Plain => Unit::Count,
            };
            Metric::new(name, unit)
        })
        .collect()
}

/// The file's metrics for values of `kind`, and the index of the `samples`
/// count when there is one besides them.
fn file_metrics(kind: Kind, profiles: &[RawProfile]) -> (Vec<Metric>, Option<usize>) {
    let mut metrics = vec![match kind {
        Kind::Time => Metric::new("time", Unit::Nanoseconds),
        Kind::Bytes => Metric::new("bytes", Unit::Bytes),
        Kind::Plain => Metric::new("samples", Unit::Count),
    }];
    let any_sampled = profiles
        .iter()
        .any(|p| p.kind.as_deref() == Some("sampled"));
    // A second `samples` count for sampled profiles, unless the main metric
    // already has that name.
    let count_metric = (any_sampled && kind != Kind::Plain).then(|| {
        metrics.push(Metric::new("samples", Unit::Samples));
        1
    });
    (metrics, count_metric)
}

/// The profiles of the file merged into one tree, as they are added.
struct Merged {
    frames: FrameTable,
    /// The file's shared frames, by index.
    frame_ids: Vec<FrameId>,
    profile: Profile,
    timeline: Vec<TimelineSample>,
    /// The metric counting samples, besides the main one.
    count_metric: Option<usize>,
}

/// Where one profile of the file goes.
struct Target {
    /// The profile's JSON path.
    at: String,
    /// The node its stacks start under.
    base: NodeId,
    /// Nanoseconds (or bytes, or counts) per unit of its values.
    scale: f64,
    keep_timeline: bool,
    /// The metric its values add to.
    metric: usize,
}

impl Merged {
    /// Adds profile `p` of the file, whose values must be of `kind` like the
    /// first profile's (`first_unit`).
    fn add_profile(
        &mut self,
        p: usize,
        raw: RawProfile,
        kind: Kind,
        first_unit: &str,
        several: bool,
    ) -> Result<(), ParseError> {
        let at = format!("$.profiles[{p}]");
        let unit = raw.unit.clone().unwrap_or_else(|| "none".to_string());
        let (this_kind, scale) = kind_of(&unit);
        if this_kind != kind {
            return Err(ParseError::json(
                format!("{at}.unit"),
                format!("unit {unit:?} does not measure the same thing as the first profile's {first_unit:?}"),
            ));
        }
        let base = if several {
            let name = match raw.name.as_deref() {
                Some(n) if !n.is_empty() => n.to_string(),
                _ => format!("profile {p}"),
            };
            let thread = self.frames.intern(Frame::named(name));
            self.profile.tree.child(NodeId::ROOT, thread)
        } else {
            NodeId::ROOT
        };
        // Timelines only make sense for one profile measured in time.
        let keep_timeline = !several && kind == Kind::Time;
        let target = Target {
            at,
            base,
            scale,
            keep_timeline,
            metric: 0,
        };
        self.add_typed(&target, raw)
    }

    /// Profile `p` of a file perfatlas wrote: the values of metric `p`,
    /// stacks from the root.
    fn add_metric_profile(&mut self, p: usize, raw: RawProfile) -> Result<(), ParseError> {
        let (_, scale) = kind_of(raw.unit.as_deref().unwrap_or("none"));
        let target = Target {
            at: format!("$.profiles[{p}]"),
            base: NodeId::ROOT,
            scale,
            keep_timeline: false,
            metric: p,
        };
        self.add_typed(&target, raw)
    }

    /// A sampled or evented profile, as its `type` says.
    fn add_typed(&mut self, target: &Target, raw: RawProfile) -> Result<(), ParseError> {
        match raw.kind.as_deref() {
            Some("sampled") => self.add_sampled(target, raw),
            Some("evented") => self.add_evented(target, raw),
            Some(other) => Err(ParseError::json(
                format!("{}.type", target.at),
                format!("profile type {other:?} is neither \"sampled\" nor \"evented\""),
            )),
            None => Err(ParseError::json(
                target.at.as_str(),
                "profile has no `type`",
            )),
        }
    }

    /// The shared frame at `index`; `path` names the reference.
    fn frame_at(&self, index: i64, path: &dyn Fn() -> String) -> Result<FrameId, ParseError> {
        let frame_ids = &self.frame_ids;
        usize::try_from(index)
            .ok()
            .and_then(|i| frame_ids.get(i).copied())
            .ok_or_else(|| {
                ParseError::json(
                    path(),
                    format!(
                        "frame index {index} is out of range (the file has {} shared frames)",
                        frame_ids.len()
                    ),
                )
            })
    }

    /// A sampled profile: each stack of `samples` with its weight.
    fn add_sampled(&mut self, target: &Target, raw: RawProfile) -> Result<(), ParseError> {
        let Target {
            at,
            base,
            scale,
            keep_timeline,
            metric,
        } = target;
        let samples = raw.samples.unwrap_or_default();
        let Some(weights) = raw.weights else {
            return Err(ParseError::json(
                at.as_str(),
                "sampled profile has no `weights`",
            ));
        };
        if weights.len() != samples.len() {
            return Err(ParseError::json(
                format!("{at}.weights"),
                format!(
                    "has {} entries but `samples` has {}",
                    weights.len(),
                    samples.len()
                ),
            ));
        }
        let mut start = 0.0;
        for (s, (stack, &w)) in samples.iter().zip(&weights).enumerate() {
            if !(w.is_finite() && w >= 0.0) {
                return Err(ParseError::json(
                    format!("{at}.weights[{s}]"),
                    "weight is not a non-negative number",
                ));
            }
            // An empty stack (py-spy: no Python frames) counts at
            // the root (or the profile's own node).
            let mut node = *base;
            for (k, &f) in stack.iter().enumerate() {
                let frame = self.frame_at(f, &|| format!("{at}.samples[{s}][{k}]"))?;
                node = self.profile.tree.child(node, frame);
            }
            let value = w * scale;
            self.profile.tree.add_self(node, *metric, value);
            if let Some(m) = self.count_metric {
                self.profile.tree.add_self(node, m, 1.0);
            }
            if *keep_timeline {
                self.timeline.push(TimelineSample {
                    start_ns: start,
                    duration_ns: value,
                    node,
                });
                start += value;
            }
        }
        Ok(())
    }

    /// An evented profile: frames opened and closed, properly nested, each
    /// open frame's self time the time while it is on top.
    fn add_evented(&mut self, target: &Target, raw: RawProfile) -> Result<(), ParseError> {
        let Target { at, base, .. } = target;
        let events = raw.events.unwrap_or_default();
        let origin = raw
            .start_value
            .filter(|v| v.is_finite())
            .or_else(|| events.first().map(|e| e.at))
            .unwrap_or(0.0);
        // (frame index, node, index of the opening event)
        let mut stack: Vec<(i64, NodeId, usize)> = Vec::new();
        let mut last_at: Option<f64> = None;
        for (k, e) in events.iter().enumerate() {
            let here = || format!("{at}.events[{k}]");
            if !e.at.is_finite() {
                return Err(ParseError::json(
                    format!("{}.at", here()),
                    "`at` is not a finite number",
                ));
            }
            if let Some(prev) = last_at {
                if e.at < prev {
                    return Err(ParseError::json(
                        here(),
                        format!("event at {} comes before the previous event at {prev}; events must be in time order", e.at),
                    ));
                }
                if let Some(&(_, top, _)) = stack.last() {
                    self.add_time_on_top(target, top, prev, e.at - prev, origin);
                }
            }
            last_at = Some(e.at);
            let frame = self.frame_at(e.frame, &|| format!("{}.frame", here()))?;
            match e.kind.as_str() {
                "O" => {
                    let parent = stack.last().map_or(*base, |s| s.1);
                    stack.push((e.frame, self.profile.tree.child(parent, frame), k));
                }
                "C" => self.close(&mut stack, e, frame, &here)?,
                other => {
                    return Err(ParseError::json(
                        format!("{}.type", here()),
                        format!("event type {other:?} is neither \"O\" (open) nor \"C\" (close)"),
                    ))
                }
            }
        }
        if let Some(&(f, _, k)) = stack.last() {
            let name = self
                .frame_at(f, &|| String::new())
                .map(|f| self.frames.get(f).function.clone())
                .unwrap_or_default();
            return Err(ParseError::json(
                format!("{at}.events[{k}]"),
                format!("frame {f} ({name}) opened here is never closed ({} frame(s) still open at the end)", stack.len()),
            ));
        }
        Ok(())
    }

    /// Time since the previous event (at `prev`) belongs to the top.
    fn add_time_on_top(&mut self, target: &Target, top: NodeId, prev: f64, span: f64, origin: f64) {
        let Target {
            scale,
            keep_timeline,
            metric,
            ..
        } = *target;
        let value = span * scale;
        if value > 0.0 {
            self.profile.tree.add_self(top, metric, value);
            if keep_timeline {
                self.timeline.push(TimelineSample {
                    start_ns: (prev - origin) * scale,
                    duration_ns: value,
                    node: top,
                });
            }
        }
    }

    /// Closes the frame on top of `stack`, which must be the event's.
    fn close(
        &self,
        stack: &mut Vec<(i64, NodeId, usize)>,
        e: &RawEvent,
        frame: FrameId,
        here: &dyn Fn() -> String,
    ) -> Result<(), ParseError> {
        match stack.last() {
            None => Err(ParseError::json(
                here(),
                format!(
                    "closes frame {} ({}) but no frame is open",
                    e.frame,
                    self.frames.get(frame).function
                ),
            )),
            Some(&(top, _, _)) if top != e.frame => {
                let top_name = self
                    .frame_at(top, here)
                    .map(|f| self.frames.get(f).function.clone())
                    .unwrap_or_default();
                Err(ParseError::json(
                    here(),
                    format!(
                        "closes frame {} ({}) but frame {top} ({top_name}) is on top of the stack; events must nest",
                        e.frame,
                        self.frames.get(frame).function
                    ),
                ))
            }
            Some(_) => {
                stack.pop();
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::error::Place;

    fn parse(text: &str) -> Result<Parsed, ParseError> {
        Speedscope.parse(&Input {
            file_name: "x.speedscope.json",
            bytes: text.as_bytes(),
        })
    }

    fn read(paths: &[String]) -> Option<Vec<u8>> {
        for p in paths {
            if let Ok(b) = std::fs::read(p) {
                return Some(b);
            }
        }
        eprintln!("note: {} not found; test skipped", paths[0]);
        None
    }

    use crate::test_support::corpus;

    fn function(p: &Parsed, node: NodeId) -> &str {
        &p.frames.get(p.profile.tree.frame(node).unwrap()).function
    }

    fn parse_file(bytes: &[u8]) -> Result<Parsed, ParseError> {
        let (name, p) = crate::parse_bytes("x.speedscope.json", bytes)?;
        assert_eq!(name, "speedscope");
        Ok(p)
    }

    #[test]
    fn files_perfatlas_wrote_have_a_metric_per_profile() {
        let text = r#"{"exporter": "perfatlas 0.1.0",
            "shared": {"frames": [{"name": "main"}, {"name": "work", "file": "w.c", "line": 3}]},
            "profiles": [
              {"type": "sampled", "name": "cpu", "unit": "milliseconds",
               "samples": [[0, 1], [0]], "weights": [2, 1]},
              {"type": "sampled", "name": "alloc_space", "unit": "bytes",
               "samples": [[0, 1]], "weights": [4096]},
              {"type": "evented", "name": "wall", "unit": "nanoseconds", "startValue": 0,
               "events": [{"type": "O", "at": 0, "frame": 0}, {"type": "C", "at": 5, "frame": 0}]}]}"#;
        let p = parse(text).unwrap();
        let metrics: Vec<(&str, &Unit)> = p
            .profile
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), &m.unit))
            .collect();
        assert_eq!(
            metrics,
            [
                ("cpu", &Unit::Nanoseconds),
                ("alloc_space", &Unit::Bytes),
                ("wall", &Unit::Nanoseconds)
            ]
        );
        assert_eq!(p.profile.totals(), vec![3e6, 4096.0, 5.0]);
        // No frame per profile: every stack starts at the root.
        let roots = p.profile.tree.children(NodeId::ROOT);
        assert_eq!(roots.len(), 1);
        assert_eq!(function(&p, roots[0]), "main");
        assert!(p.profile.timeline.is_none());
    }

    #[test]
    fn a_perfatlas_file_with_a_bad_frame_index_names_the_sample() {
        let text = r#"{"exporter": "perfatlas 0.1.0", "shared": {"frames": [{"name": "main"}]},
            "profiles": [{"type": "sampled", "name": "cpu", "unit": "none",
                          "samples": [[0], [0, 7]], "weights": [1, 1]}]}"#;
        let e = parse(text).unwrap_err();
        assert_eq!(e.place, Place::Json("$.profiles[0].samples[1][1]".into()));
        assert!(e.message.contains("frame index 7 is out of range"), "{e}");
    }

    #[test]
    fn v0_0_1_evented() {
        let Some(bytes) = corpus("speedscope/speedscope/0.0.1/simple.speedscope.json") else {
            return;
        };
        let p = parse_file(&bytes).unwrap();
        // unit "none": one `samples` count metric, no timeline.
        assert_eq!(p.profile.metrics, vec![Metric::new("samples", Unit::Count)]);
        // python3 -c "import json;e=json.load(open('simple.speedscope.json'))['profiles'][0]['events'];print(e[-1]['at']-e[0]['at'])"  → 14
        assert_eq!(p.profile.tree.total(0), 14.0);
        let a = p.profile.tree.children(NodeId::ROOT)[0];
        let b = p.profile.tree.children(a)[0];
        assert_eq!((function(&p, a), function(&p, b)), ("a", "b"));
        // c: 0..2 and 6..9; d: 2..6; b itself: 9..14
        let kids: Vec<(&str, f64)> = p
            .profile
            .tree
            .children(b)
            .iter()
            .map(|&n| (function(&p, n), p.profile.tree.self_value(n, 0)))
            .collect();
        assert_eq!(kids, vec![("c", 5.0), ("d", 4.0)]);
        assert_eq!(p.profile.tree.self_value(b, 0), 5.0);
        assert!(p.profile.timeline.is_none());
    }

    #[test]
    fn v0_1_2_sampled() {
        let Some(bytes) = corpus("speedscope/speedscope/0.1.2/simple-sampled.speedscope.json")
        else {
            return;
        };
        let p = parse_file(&bytes).unwrap();
        assert_eq!(p.profile.metrics[0], Metric::new("time", Unit::Nanoseconds));
        // python3 -c "import json;p=json.load(open('simple-sampled.speedscope.json'))['profiles'][0];print(sum(p['weights']),len(p['samples']))"  → 14 5  (seconds)
        assert_eq!(p.profile.totals(), vec![14e9, 5.0]);
        let tl = &p.profile.timeline.as_ref().unwrap().samples;
        assert_eq!(
            tl.iter().map(|s| s.start_ns / 1e9).collect::<Vec<_>>(),
            vec![0.0, 1.0, 2.0, 6.0, 9.0]
        );
        assert_eq!(function(&p, tl[2].node), "d");
    }

    #[test]
    fn v0_6_0_two_profiles_become_two_threads() {
        let Some(bytes) = corpus("speedscope/speedscope/0.6.0/two-sampled.speedscope.json") else {
            return;
        };
        let p = parse_file(&bytes).unwrap();
        // python3 -c "import json;ps=json.load(open('two-sampled.speedscope.json'))['profiles'];print(sum(sum(p['weights']) for p in ps),sum(len(p['samples']) for p in ps))"  → 28 10
        assert_eq!(p.profile.totals(), vec![28e9, 10.0]);
        let threads: Vec<&str> = p
            .profile
            .tree
            .children(NodeId::ROOT)
            .iter()
            .map(|&n| function(&p, n))
            .collect();
        assert_eq!(threads, vec!["one", "two"]);
        let inc = p.profile.tree.inclusive(0);
        assert_eq!(inc[p.profile.tree.children(NodeId::ROOT)[1].index()], 14e9);
        assert!(p.profile.timeline.is_none());
    }

    #[test]
    fn invalid_out_of_order_events() {
        let Some(bytes) = corpus("speedscope/speedscope/invalid/out-of-order-events.json") else {
            return;
        };
        let e = parse_file(&bytes).unwrap_err();
        // Events 2–4 open B, A, A; event 5 closes the second A; event 6 closes B
        // while the A of event 3 is still on top (speedscope: "Tried to leave frame B while frame A was at the top").
        assert_eq!(
            e.place,
            Place::Json("$.profiles[0].events[6]".into()),
            "{e}"
        );
        assert!(e.message.contains("is on top"), "{e}");
    }

    #[test]
    fn invalid_incomplete_trace() {
        let Some(bytes) = corpus("speedscope/speedscope/invalid/incomplete-trace.json") else {
            return;
        };
        let e = parse_file(&bytes).unwrap_err();
        assert_eq!(
            e.place,
            Place::Json("$.profiles[0].events[0]".into()),
            "{e}"
        );
        assert!(e.message.contains("never closed"), "{e}");
    }

    #[test]
    fn py_spy_output() {
        let rel = "sample-data/python-markdown/3.7/convert-extensions.1.speedscope.json";
        let Some(bytes) = read(&[
            format!("{}/{rel}", concat!(env!("CARGO_MANIFEST_DIR"), "/../..")),
            format!("/work/main/{rel}"),
        ]) else {
            return;
        };
        let p = parse_file(&bytes).unwrap();
        // python3 -c "import json;p=json.load(open('convert-extensions.1.speedscope.json'))['profiles'][0];print(len(p['samples']),sum(p['weights']),set(p['weights']),sum(1 for s in p['samples'] if not s))"
        // → 148 1.480000000000001 {0.01} 1   (148 × 0.01 s = 1.48 s)
        let totals = p.profile.totals();
        assert_eq!(totals[1], 148.0);
        assert!((totals[0] - 1_480_000_000.0).abs() < 1.0, "{}", totals[0]);
        // The empty sample counts at the root.
        assert_eq!(p.profile.tree.self_value(NodeId::ROOT, 1), 1.0);
        let top = p.profile.tree.children(NodeId::ROOT)[0];
        let f = p.frames.get(p.profile.tree.frame(top).unwrap());
        assert_eq!((f.function.as_str(), f.line), ("<module>", Some(105)));
        assert_eq!(p.profile.timeline.as_ref().unwrap().samples.len(), 148);
    }

    #[test]
    fn frame_index_out_of_range_is_an_error_with_its_path() {
        let doc = |samples: &str| {
            format!(
                r#"{{"shared":{{"frames":[{{"name":"a"}}]}},"profiles":[{{"type":"sampled","name":"p","unit":"none","startValue":0,"endValue":1,"samples":{samples},"weights":[1,1]}}]}}"#
            )
        };
        let e = parse(&doc("[[0],[0,1]]")).unwrap_err();
        assert_eq!(e.place, Place::Json("$.profiles[0].samples[1][1]".into()));
        let e = parse(&doc("[[0],[-1]]")).unwrap_err();
        assert_eq!(e.place, Place::Json("$.profiles[0].samples[1][0]".into()));
        let p = parse(&doc("[[],[0]]")).unwrap();
        assert_eq!(p.profile.tree.self_value(NodeId::ROOT, 0), 1.0);
        let e = parse(r#"{"shared":{"frames":[]},"profiles":[{"type":"evented","unit":"ms","events":[{"type":"O","frame":3,"at":0}]}]}"#)
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.profiles[0].events[0].frame".into()));
    }

    #[test]
    fn evented_errors() {
        let doc = |events: &str| {
            format!(
                r#"{{"shared":{{"frames":[{{"name":"A"}},{{"name":"B"}}]}},"profiles":[{{"type":"evented","name":"p","unit":"milliseconds","startValue":0,"endValue":9,"events":[{events}]}}]}}"#
            )
        };
        let e = parse(&doc(
            r#"{"type":"O","frame":0,"at":5},{"type":"C","frame":0,"at":4}"#,
        ))
        .unwrap_err();
        assert_eq!(e.place, Place::Json("$.profiles[0].events[1]".into()));
        assert!(e.message.contains("time order"), "{e}");
        let e = parse(&doc(r#"{"type":"C","frame":0,"at":5}"#)).unwrap_err();
        assert!(e.message.contains("no frame is open"), "{e}");
        let e = parse(&doc(r#"{"type":"X","frame":0,"at":5}"#)).unwrap_err();
        assert_eq!(e.place, Place::Json("$.profiles[0].events[0].type".into()));
        let p = parse(&doc(
            r#"{"type":"O","frame":0,"at":1},{"type":"O","frame":1,"at":2},{"type":"C","frame":1,"at":5},{"type":"C","frame":0,"at":6}"#,
        ))
        .unwrap();
        assert_eq!(p.profile.totals(), vec![5e6]);
        let tl = &p.profile.timeline.as_ref().unwrap().samples;
        let spans: Vec<(f64, f64)> = tl
            .iter()
            .map(|s| (s.start_ns / 1e6, s.duration_ns / 1e6))
            .collect();
        assert_eq!(spans, vec![(1.0, 1.0), (2.0, 3.0), (5.0, 1.0)]);
    }

    #[test]
    fn units_must_agree_and_type_errors_have_a_line() {
        let e = parse(r#"{"shared":{"frames":[]},"profiles":[{"type":"sampled","unit":"bytes","samples":[],"weights":[]},{"type":"sampled","unit":"seconds","samples":[],"weights":[]}]}"#)
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.profiles[1].unit".into()));
        let e = parse("{\"shared\":{\"frames\":[]},\n\"profiles\":[{\"type\":\"sampled\",\"samples\":[[\"x\"]],\"weights\":[1]}]}").unwrap_err();
        assert_eq!(e.place, Place::Line(2));
        let p = parse(r#"{"shared":{"frames":[{"name":"m"}]},"profiles":[{"type":"sampled","unit":"bytes","samples":[[0]],"weights":[64]}]}"#)
            .unwrap();
        assert_eq!(
            p.profile.metrics,
            vec![
                Metric::new("bytes", Unit::Bytes),
                Metric::new("samples", Unit::Samples)
            ]
        );
        assert_eq!(p.profile.totals(), vec![64.0, 1.0]);
    }

    #[test]
    fn a_100000_deep_stack_does_not_overflow() {
        let n = 100_000;
        let frames = (0..n)
            .map(|i| format!(r#"{{"name":"f{i}"}}"#))
            .collect::<Vec<_>>()
            .join(",");
        let stack = (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
        let opens = (0..n)
            .map(|i| format!(r#"{{"type":"O","frame":{i},"at":{i}}}"#))
            .collect::<Vec<_>>()
            .join(",");
        let closes = (0..n)
            .rev()
            .map(|i| format!(r#"{{"type":"C","frame":{i},"at":{}}}"#, 2 * n - i))
            .collect::<Vec<_>>()
            .join(",");
        let s = format!(
            r#"{{"shared":{{"frames":[{frames}]}},"profiles":[{{"type":"sampled","unit":"none","samples":[[{stack}]],"weights":[1]}},{{"type":"evented","unit":"none","events":[{opens},{closes}]}}]}}"#
        );
        let p = parse(&s).unwrap();
        // Two threads, each a chain of n frames, under their own frames.
        assert_eq!(p.profile.tree.len(), 1 + 2 * (n + 1));
        // sampled: 1; evented: from 0 to 2n
        assert_eq!(p.profile.tree.total(0), 1.0 + 2.0 * n as f64);
    }

    #[test]
    fn sniffing() {
        let yes = |s: &str| {
            Speedscope.sniff(&Input {
                file_name: "x",
                bytes: s.as_bytes(),
            })
        };
        assert!(yes(
            r#"{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[]}"#
        ));
        assert!(yes(r#"{"profiles":[],"shared":{"frames":[]}}"#));
        assert!(!yes(r#"{"nodes":[],"samples":[]}"#));
        assert!(!yes("a;b 1\n"));
        let multibyte = format!(r#"{{"$schema":"{}"}}"#, "é".repeat(300));
        assert!(!yes(&multibyte));
    }

    #[test]
    fn garbage_never_panics() {
        for s in [
            "{",
            "{}",
            "null",
            r#"{"profiles":[]}"#,
            r#"{"profiles":[{}]}"#,
            r#"{"profiles":[{"type":"sampled"}]}"#,
            r#"{"profiles":[{"type":"evented","events":[{"type":"C","frame":-5,"at":1}]}]}"#,
            r#"{"profiles":[{"type":"sampled","samples":[[0]],"weights":[-1]}],"shared":{"frames":[{}]}}"#,
        ] {
            let _ = parse(s);
        }
    }
}
