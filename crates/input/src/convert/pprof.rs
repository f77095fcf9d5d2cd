//! `convert --to pprof`: a profile as pprof's `profile.proto`, gzipped as
//! Go's `runtime/pprof` writes it, for `go tool pprof` and other pprof
//! viewers.
//!
//! * Every metric is a sample type, named and with its unit as perfatlas
//!   has them (`nanoseconds`, `bytes`, `samples`, `count`, …).
//! * A function per distinct (name, full name, file, first line): its
//!   `name` is the frame's name (a C++ symbol's short label), its
//!   `system_name` the full name when there is one; a location per
//!   distinct frame, with one line (the frame's line, else 0); a mapping
//!   per module named by a frame. A call the profile records as inlined
//!   ([`model::Profile::inlined`]) shares its caller's location, one line
//!   per frame, innermost first, as pprof lists inlined calls (its
//!   `(inline)` marks come back).
//! * A sample per calling context with a non-zero self value, its
//!   locations leaf first; where the profile's line table puts a context's
//!   self value on lines of its function, a sample per line, whose leaf
//!   location has that line (as `runtime/pprof` writes them, and as
//!   perfatlas reads them back: one function, its lines in the table). Values are rounded to integers (pprof's values
//!   are `int64`); perfatlas's time metrics are in nanoseconds already.
//!   Self values at the root (samples with no frame) become a sample
//!   without locations.
//! * The file's header as read (see [`crate::ProfileHeader`]): when it was
//!   taken, for how long, the sampling period, and the sample type its
//!   viewers open on (`default_sample_type`, which `--metric` overrides).
//! * The time order of samples (a timeline) has no place in pprof and is
//!   not written.
//!
//! Strings are deduplicated in one table (index 0 is the empty string, as
//! the format requires). The message is built with the `pb` structs the
//! reader's tests use, so writer and reader share one schema.

use std::collections::HashMap;
use std::io::{self, Write};

use crate::pprof::pb;
use crate::Parsed;
use model::{Frame, FrameId, NodeId};

/// Writes `parsed` as a gzipped `profile.proto`; `default` is the index of
/// the metric viewers show first (pprof's `default_sample_type`), else the
/// one the original file's viewers showed first, else perfatlas's first
/// (always written: without it pprof opens on the last sample type).
pub fn write(parsed: &Parsed, default: Option<usize>, out: &mut dyn Write) -> io::Result<()> {
    let mut message = profile(parsed);
    let default = default.or(parsed.header.default_metric).or(Some(0));
    if let Some(t) = default.and_then(|m| message.sample_type.get(m)) {
        message.default_sample_type = t.r#type;
    }
    let bytes = prost::Message::encode_to_vec(&message);
    let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
    gz.write_all(&bytes)?;
    gz.finish()?.flush()
}

/// The profile as a pprof message.
pub fn profile(parsed: &Parsed) -> pb::Profile {
    let mut b = Builder::default();
    b.string("");
    let sample_type = parsed
        .profile
        .metrics
        .iter()
        .map(|m| pb::ValueType {
            r#type: b.string(&m.name),
            unit: b.string(m.unit.name()),
        })
        .collect();
    let locations: Vec<u64> = parsed
        .frames
        .iter()
        .map(|(_, frame)| b.location(frame))
        .collect();
    let sample = samples(parsed, &mut b, &locations);
    let header = &parsed.header;
    let period_type = header.period.as_ref().map(|(t, u, _)| pb::ValueType {
        r#type: b.string(t),
        unit: b.string(u),
    });
    pb::Profile {
        sample_type,
        sample,
        time_nanos: header.time_nanos,
        duration_nanos: header.duration_nanos,
        period_type,
        period: header.period.as_ref().map_or(0, |p| p.2),
        mapping: b.mappings,
        location: b.locations,
        function: b.functions,
        string_table: b.strings.into_iter().map(String::into_bytes).collect(),
        ..pb::Profile::default()
    }
}

/// One sample per node with a non-zero self value, in tree order; a node
/// whose self value the profile's line table puts on lines has one sample
/// per line (its leaf location at that line) and one for the rest.
fn samples(parsed: &Parsed, b: &mut Builder, locations: &[u64]) -> Vec<pb::Sample> {
    let tree = &parsed.profile.tree;
    let metrics = parsed.profile.metrics.len();
    let mut out = Vec::new();
    for node in tree.node_ids() {
        let mut rest: Vec<f64> = (0..metrics).map(|m| tree.self_value(node, m)).collect();
        if rest.iter().all(|&v| to_int(v) == 0) {
            continue;
        }
        let stack = leaf_first(parsed, b, node, locations);
        let on_lines = parsed
            .profile
            .line_self
            .iter()
            .flat_map(|t| t.lines_of(node));
        for (line, values) in on_lines {
            if stack.is_empty() {
                break;
            }
            let value: Vec<i64> = (0..metrics)
                .map(|m| values.get(m).copied().unwrap_or(0.0))
                .zip(rest.iter_mut())
                .map(|(v, r)| {
                    *r -= v;
                    to_int(v)
                })
                .collect();
            let mut location_id = stack.clone();
            location_id[0] = location_of(parsed, b, node, Some(line), locations).0;
            out.push(pb::Sample {
                location_id,
                value,
                label: Vec::new(),
            });
        }
        let value: Vec<i64> = rest.into_iter().map(to_int).collect();
        if value.iter().any(|&v| v != 0) {
            out.push(pb::Sample {
                location_id: stack,
                value,
                label: Vec::new(),
            });
        }
    }
    out
}

/// The location ids of `node`'s stack, leaf first (the root has none).
fn leaf_first(parsed: &Parsed, b: &mut Builder, node: NodeId, locations: &[u64]) -> Vec<u64> {
    let tree = &parsed.profile.tree;
    let mut ids = Vec::with_capacity(tree.depth(node) as usize);
    let mut at = node;
    while tree.frame(at).is_some() {
        let (id, top) = location_of(parsed, b, at, None, locations);
        ids.push(id);
        match tree.parent(top) {
            Some(parent) => at = parent,
            None => break,
        }
    }
    ids
}

/// The location of `node` (a node with a frame), at `line` when given,
/// and the outermost node it holds: a call the profile records as inlined
/// ([`model::Profile::inlined`]) shares its caller's location, as pprof
/// lists inlined calls (its lines, innermost first).
fn location_of(
    parsed: &Parsed,
    b: &mut Builder,
    node: NodeId,
    line: Option<u32>,
    locations: &[u64],
) -> (u64, NodeId) {
    let tree = &parsed.profile.tree;
    let inlined = |n: NodeId| {
        let flags = parsed.profile.inlined.as_deref();
        flags
            .and_then(|f| f.get(n.index()))
            .copied()
            .unwrap_or(false)
    };
    let mut chain = Vec::new();
    let mut at = node;
    while let Some(frame) = tree.frame(at) {
        chain.push((frame, if at == node { line } else { None }));
        match tree.parent(at) {
            Some(parent) if inlined(at) && tree.frame(parent).is_some() => at = parent,
            _ => break,
        }
    }
    let id = match chain.as_slice() {
        [(frame, None)] => locations[frame.0 as usize],
        _ => b.chain_location(parsed, &chain),
    };
    (id, at)
}

/// A value rounded to pprof's `int64` (saturating; NaN is 0).
fn to_int(v: f64) -> i64 {
    v.round() as i64
}

/// The tables of the message as they fill.
#[derive(Default)]
struct Builder {
    strings: Vec<String>,
    string_ids: HashMap<String, i64>,
    functions: Vec<pb::Function>,
    function_ids: HashMap<(i64, i64, i64, i64), u64>,
    mappings: Vec<pb::Mapping>,
    mapping_ids: HashMap<i64, u64>,
    locations: Vec<pb::Location>,
    /// The locations written for a frame at a sampled line or for an
    /// inlined chain: (frame id, line or 0 for the frame's own), innermost
    /// first → location id.
    chains: HashMap<Vec<(u32, u32)>, u64>,
}

impl Builder {
    fn string(&mut self, s: &str) -> i64 {
        if let Some(&id) = self.string_ids.get(s) {
            return id;
        }
        let id = self.strings.len() as i64;
        self.strings.push(s.to_string());
        self.string_ids.insert(s.to_string(), id);
        id
    }

    /// The location of `chain` (frames innermost first, the first at a
    /// sampled line when given), added when new: one line per frame.
    fn chain_location(&mut self, parsed: &Parsed, chain: &[(FrameId, Option<u32>)]) -> u64 {
        let key: Vec<(u32, u32)> = chain.iter().map(|(f, l)| (f.0, l.unwrap_or(0))).collect();
        if let Some(&location) = self.chains.get(&key) {
            return location;
        }
        let frames: Vec<Frame> = chain
            .iter()
            .map(|&(f, line)| Frame {
                line: line.or(parsed.frames.get(f).line),
                ..parsed.frames.get(f).clone()
            })
            .collect();
        let location = self.location_of_lines(&frames);
        self.chains.insert(key, location);
        location
    }

    /// A new location for `frame` (frames are distinct already).
    fn location(&mut self, frame: &Frame) -> u64 {
        self.location_of_lines(std::slice::from_ref(frame))
    }

    /// A new location with a line per frame (innermost first), in the
    /// module of the innermost.
    fn location_of_lines(&mut self, frames: &[Frame]) -> u64 {
        let line = frames
            .iter()
            .map(|frame| pb::Line {
                function_id: self.function(frame),
                line: frame.line.map_or(0, i64::from),
                column: 0,
            })
            .collect();
        let module = frames.first().and_then(|f| f.module.as_deref());
        let mapping_id = module.map_or(0, |m| self.mapping(m));
        let id = self.locations.len() as u64 + 1;
        self.locations.push(pb::Location {
            id,
            mapping_id,
            address: 0,
            line,
            is_folded: false,
        });
        id
    }

    fn function(&mut self, frame: &Frame) -> u64 {
        let name = self.string(&frame.function);
        let system_name = match &frame.full_name {
            Some(full) => self.string(full),
            None => name,
        };
        let file = self.string(frame.file.as_deref().unwrap_or(""));
        let start = frame.start_line.map_or(0, i64::from);
        let next = self.functions.len() as u64 + 1;
        let key = (name, system_name, file, start);
        let id = *self.function_ids.entry(key).or_insert(next);
        if id == next {
            self.functions.push(pb::Function {
                id,
                name,
                system_name,
                filename: file,
                start_line: start,
            });
        }
        id
    }

    fn mapping(&mut self, module: &str) -> u64 {
        let filename = self.string(module);
        let next = self.mappings.len() as u64 + 1;
        let id = *self.mapping_ids.entry(filename).or_insert(next);
        if id == next {
            self.mappings.push(pb::Mapping {
                id,
                filename,
                has_functions: true,
                has_filenames: true,
                has_line_numbers: true,
                ..pb::Mapping::default()
            });
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::to_folded;
    use model::{FrameTable, Metric, Profile, Unit};

    /// Folded lines of every metric, sorted (tree order may differ).
    fn folded(parsed: &Parsed) -> Vec<Vec<String>> {
        (0..parsed.profile.metrics.len())
            .map(|m| {
                let mut lines: Vec<String> =
                    to_folded(parsed, m).lines().map(String::from).collect();
                lines.sort();
                lines
            })
            .collect()
    }

    fn read_back(parsed: &Parsed) -> Parsed {
        let mut bytes = Vec::new();
        write(parsed, None, &mut bytes).unwrap();
        assert!(crate::text::is_gzip(&bytes));
        let (format, back) = crate::parse_bytes("out.pb.gz", &bytes).unwrap();
        assert_eq!(format, "pprof");
        back
    }

    /// A Go allocation profile opens on `alloc_space`, its third of four
    /// sample types (`runtime/pprof` names it in `default_sample_type`);
    /// the export opens on it too, and keeps when, for how long and at
    /// which period the profile was taken.
    #[test]
    fn the_header_and_the_sample_type_viewers_open_on_read_back() {
        let mut frames = FrameTable::new();
        let main = frames.intern(Frame {
            function: "main".into(),
            ..Frame::default()
        });
        let metrics = [
            "alloc_objects",
            "alloc_space",
            "inuse_objects",
            "inuse_space",
        ];
        let mut profile = Profile::new(
            metrics
                .iter()
                .map(|m| {
                    Metric::new(
                        *m,
                        if m.ends_with("space") {
                            Unit::Bytes
                        } else {
                            Unit::Count
                        },
                    )
                })
                .collect(),
        );
        profile.tree.add_stack([main], &[3.0, 4096.0, 1.0, 1024.0]);
        let mut parsed = Parsed::new(frames, profile);
        parsed.header = crate::ProfileHeader {
            default_metric: Some(1),
            time_nanos: 1_795_000_000_000_000_000,
            duration_nanos: 2_020_000_000,
            period: Some(("space".into(), "bytes".into(), 524_288)),
        };
        let back = read_back(&parsed);
        assert_eq!(back.header, parsed.header);
        // Without a default in the file, pprof opens on the last type; the
        // export names perfatlas's first metric instead of leaving it out.
        parsed.header = crate::ProfileHeader::default();
        let back = read_back(&parsed);
        assert_eq!(back.header.default_metric, Some(0));
        assert_eq!(back.header.period, None);
    }

    #[test]
    fn every_metric_frame_field_and_root_sample_reads_back() {
        let mut frames = FrameTable::new();
        let main = frames.intern(Frame {
            function: "main".into(),
            file: Some("main.go".into()),
            line: Some(12),
            module: Some("demo".into()),
            start_line: Some(10),
            start_column: None,
            source_hash: None,
            full_name: None,
        });
        let work = frames.intern(Frame {
            function: "work".into(),
            file: Some("work.go".into()),
            line: Some(3),
            start_line: Some(1),
            ..Frame::default()
        });
        let work_other_line = frames.intern(Frame {
            line: Some(4),
            ..frames.get(work).clone()
        });
        let bare = frames.intern(Frame::named("0x1234"));
        let cpp = frames.intern(Frame {
            function: "shapes::work".into(),
            full_name: Some("shapes::work(int)".into()),
            ..Frame::default()
        });
        let mut profile = Profile::new(vec![
            Metric::new("cpu", Unit::Nanoseconds),
            Metric::new("alloc_space", Unit::Bytes),
            Metric::new("samples", Unit::Samples),
        ]);
        let tree = &mut profile.tree;
        let m = tree.child(NodeId::ROOT, main);
        let w = tree.child(m, work);
        let w2 = tree.child(m, work_other_line);
        let b = tree.child(w, bare);
        let c = tree.child(m, cpp);
        tree.add_self(c, 2, 2.0);
        tree.add_self(w, 0, 1_000_000.0);
        tree.add_self(w2, 1, 4096.0);
        tree.add_self(b, 2, 3.0);
        tree.add_self(NodeId::ROOT, 2, 1.0);
        let parsed = Parsed::new(frames, profile);
        let (main_frame, cpp_frame) = (
            parsed.frames.get(main).clone(),
            parsed.frames.get(cpp).clone(),
        );
        let back = read_back(&parsed);
        assert_eq!(back.profile.metrics, parsed.profile.metrics);
        assert_eq!(back.profile.totals(), vec![1e6, 4096.0, 6.0]);
        // Read back by function: `work` at lines 3 and 4 is one frame
        // (at its start line), its lines in the line table.
        let (frames, profile) = model::fold_sampled_lines(parsed.frames, parsed.profile);
        let parsed = Parsed::new(frames, profile);
        assert_eq!(folded(&back), folded(&parsed));
        assert_eq!(back.profile.line_self, parsed.profile.line_self);
        let lines: Vec<(u32, Vec<f64>)> = back
            .profile
            .line_self
            .iter()
            .flat_map(|t| t.iter().map(|(_, l, v)| (l, v.to_vec())))
            .collect();
        assert_eq!(
            lines,
            [(3, vec![1e6, 0.0, 0.0]), (4, vec![0.0, 4096.0, 0.0])]
        );
        let frames: Vec<&Frame> = back.frames.iter().map(|(_, f)| f).collect();
        let main_at_start = Frame {
            line: Some(10),
            ..main_frame
        };
        assert!(frames.contains(&&main_at_start), "{frames:?}");
        assert_eq!(frames.iter().filter(|f| f.function == "work").count(), 1);
        assert!(frames
            .iter()
            .any(|f| f.function == "work" && f.line == Some(1)));
        // The full name travels as the function's system name.
        assert!(frames.contains(&&cpp_frame), "{frames:?}");
    }

    #[test]
    fn go_profiles_read_back_with_the_same_stacks() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/pprof/go-demo/1.0"
        );
        for name in ["demo.cpu.pb.gz", "demo-heap.heap.pb.gz"] {
            let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
            let (_, parsed) = crate::parse_bytes(name, &bytes).unwrap();
            let back = read_back(&parsed);
            assert_eq!(back.profile.metrics, parsed.profile.metrics, "{name}");
            assert_eq!(back.profile.totals(), parsed.profile.totals(), "{name}");
            assert_eq!(folded(&back), folded(&parsed), "{name}");
        }
    }
}
