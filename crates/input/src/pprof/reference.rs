//! The decoder this module had before the streaming reader: prost decodes
//! the whole message, then every reference is checked. Kept for tests as
//! an oracle: on any input, valid or not, the streaming reader must give
//! the same profile or the same error.

use std::collections::HashMap;

use super::{pb, record_heap_allocations};
use crate::Parsed;
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, Metric, Profile, Unit};

/// Decodes `bytes` the old way.
pub fn read(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let message = <pb::Profile as prost::Message>::decode(bytes)
        .map_err(|e| ParseError::whole(format!("not a valid pprof profile: {e}")))?;
    convert(&message)
}

/// Turns a decoded message into a profile, checking every reference.
fn convert(p: &pb::Profile) -> Result<Parsed, ParseError> {
    let strings = Strings::new(&p.string_table)?;
    if p.sample_type.is_empty() {
        return Err(ParseError::whole(
            "not a valid pprof profile: no sample types",
        ));
    }

    // Metrics, and the factor that brings each one's values to its unit.
    let mut metrics = Vec::with_capacity(p.sample_type.len());
    let mut scale = Vec::with_capacity(p.sample_type.len());
    for (i, vt) in p.sample_type.iter().enumerate() {
        let name = strings.get(vt.r#type, || format!("sample_type[{i}].type"))?;
        let unit_name = strings.get(vt.unit, || format!("sample_type[{i}].unit"))?;
        let unit = Unit::parse(&unit_name);
        scale.push(if unit == Unit::Nanoseconds {
            Unit::nanoseconds_per(&unit_name).unwrap_or(1.0)
        } else {
            1.0
        });
        let name = if name.is_empty() {
            format!("value{i}")
        } else {
            name
        };
        metrics.push(Metric::new(name, unit));
    }

    let mut warnings = Vec::new();

    // Mappings: id → module name (basename of the file) and address range.
    let mut mappings: HashMap<u64, MappingInfo> = HashMap::with_capacity(p.mapping.len());
    for (i, m) in p.mapping.iter().enumerate() {
        let file = strings.get(m.filename, || format!("mapping[{i}].filename"))?;
        let module = basename(&file).map(str::to_string);
        let info = MappingInfo {
            module,
            start: m.memory_start,
            limit: m.memory_limit,
            offset: m.file_offset,
        };
        if m.id == 0 || mappings.insert(m.id, info).is_some() {
            return Err(ParseError::field(
                format!("mapping[{i}].id"),
                format!("mapping id {} is zero or used twice", m.id),
            ));
        }
    }

    // Functions: id → (name, file).
    let mut functions: HashMap<u64, FunctionInfo> = HashMap::with_capacity(p.function.len());
    for (i, f) in p.function.iter().enumerate() {
        let mut name = strings.get(f.name, || format!("function[{i}].name"))?;
        let system_name = strings.get(f.system_name, || format!("function[{i}].system_name"))?;
        if name.is_empty() {
            name = system_name.clone();
        }
        let (name, full_name) = super::dictionary::readable_names(name, &system_name);
        let file = strings.get(f.filename, || format!("function[{i}].filename"))?;
        let info = FunctionInfo {
            name,
            full_name,
            file: (!file.is_empty()).then_some(file),
            start_line: u32::try_from(f.start_line).ok().filter(|&l| l > 0),
        };
        if f.id == 0 || functions.insert(f.id, info).is_some() {
            return Err(ParseError::field(
                format!("function[{i}].id"),
                format!("function id {} is zero or used twice", f.id),
            ));
        }
    }

    // Locations: id → the run of frame ids it expands to, outermost first,
    // computed once so each sample costs only its own length.
    let mut frames = FrameTable::new();
    let mut expanded: Vec<FrameId> = Vec::new();
    let mut locations: HashMap<u64, (usize, usize)> = HashMap::with_capacity(p.location.len());
    for (i, loc) in p.location.iter().enumerate() {
        let mapping = match loc.mapping_id {
            0 => None,
            id => match mappings.get(&id) {
                Some(m) => Some(m),
                None => {
                    warnings.push(ParseError::field(
                        format!("location[{i}].mapping_id"),
                        format!("mapping id {id} does not exist; location read without its module"),
                    ));
                    None
                }
            },
        };
        let module = mapping.and_then(|m| m.module.clone());
        let start = expanded.len();
        if loc.line.is_empty() {
            expanded.push(frames.intern(Frame {
                function: address_name(loc.address, mapping),
                file: None,
                line: None,
                module,
                start_line: None,
                start_column: None,
                source_hash: None,
                full_name: None,
            }));
        } else {
            // line[0] is the innermost call: walk backwards for root-first.
            for (j, line) in loc.line.iter().enumerate().rev() {
                let function = functions.get(&line.function_id).ok_or_else(|| {
                    ParseError::field(
                        format!("location[{i}].line[{j}].function_id"),
                        format!("function id {} does not exist", line.function_id),
                    )
                })?;
                let name = if function.name.is_empty() {
                    address_name(loc.address, mapping)
                } else {
                    function.name.clone()
                };
                let frame = Frame {
                    function: name,
                    file: function.file.clone(),
                    line: u32::try_from(line.line).ok().filter(|&l| l > 0),
                    module: module.clone(),
                    start_line: function.start_line,
                    start_column: None,
                    source_hash: None,
                    full_name: function.full_name.clone(),
                };
                expanded.push(frames.intern(frame));
            }
        }
        if loc.id == 0 || locations.insert(loc.id, (start, expanded.len())).is_some() {
            return Err(ParseError::field(
                format!("location[{i}].id"),
                format!("location id {} is zero or used twice", loc.id),
            ));
        }
    }

    let mut profile = Profile::new(metrics);
    let mut stack: Vec<FrameId> = Vec::new();
    let mut values: Vec<f64> = vec![0.0; scale.len()];
    for (i, sample) in p.sample.iter().enumerate() {
        if sample.value.len() != scale.len() {
            return Err(ParseError::field(
                format!("sample[{i}].value"),
                format!(
                    "sample has {} values but the profile has {} sample types",
                    sample.value.len(),
                    scale.len()
                ),
            ));
        }
        stack.clear();
        for (j, id) in sample.location_id.iter().enumerate().rev() {
            let &(start, end) = locations.get(id).ok_or_else(|| {
                ParseError::field(
                    format!("sample[{i}].location_id[{j}]"),
                    format!("location id {id} does not exist"),
                )
            })?;
            stack.extend_from_slice(&expanded[start..end]);
        }
        for ((v, &raw), &factor) in values.iter_mut().zip(&sample.value).zip(&scale) {
            *v = raw as f64 * factor;
        }
        profile.tree.add_stack(stack.iter().copied(), &values);
    }
    let (frames, mut profile) = model::fold_sampled_lines(frames, profile);
    record_heap_allocations(&mut profile, &frames);

    let string = |i: i64| {
        let bytes = p.string_table.get(usize::try_from(i).ok()?)?;
        Some(String::from_utf8_lossy(bytes).into_owned())
    };
    let named = (p.default_sample_type != 0)
        .then(|| {
            p.sample_type
                .iter()
                .position(|t| t.r#type == p.default_sample_type)
        })
        .flatten();
    let (t, u) = p
        .period_type
        .as_ref()
        .map_or((0, 0), |t| (t.r#type, t.unit));
    let period = match (t, u, p.period) {
        (0, 0, 0) => None,
        _ => string(t).zip(string(u)).map(|(t, u)| (t, u, p.period)),
    };
    Ok(Parsed {
        frames,
        profile,
        warnings,
        header: crate::ProfileHeader {
            default_metric: named.or(p.sample_type.len().checked_sub(1)),
            time_nanos: p.time_nanos,
            duration_nanos: p.duration_nanos,
            period,
        },
    })
}

struct MappingInfo {
    module: Option<String>,
    start: u64,
    limit: u64,
    offset: u64,
}

struct FunctionInfo {
    name: String,
    full_name: Option<String>,
    file: Option<String>,
    start_line: Option<u32>,
}

/// Name for code known only by its address: `module+0xoffset` (the offset in
/// the mapped file, so it stays the same across runs with address-space
/// randomisation), or `0xaddress` without a mapping or module name.
fn address_name(address: u64, mapping: Option<&MappingInfo>) -> String {
    match mapping {
        Some(MappingInfo {
            module: Some(module),
            start,
            limit,
            offset,
        }) => {
            let in_file = if (*start..*limit).contains(&address) {
                address - start + offset
            } else {
                address
            };
            format!("{module}+{in_file:#x}")
        }
        _ => format!("{address:#x}"),
    }
}

/// Last component of a `/` or `\` separated path; `None` when empty.
fn basename(path: &str) -> Option<&str> {
    path.rsplit(['/', '\\']).find(|part| !part.is_empty())
}

/// The string table, with checked lookups.
struct Strings<'a> {
    table: &'a [Vec<u8>],
}

impl<'a> Strings<'a> {
    fn new(table: &'a [Vec<u8>]) -> Result<Strings<'a>, ParseError> {
        match table.first() {
            None => Err(ParseError::field(
                "string_table",
                "the string table is empty (entry 0 must be the empty string)",
            )),
            Some(first) if !first.is_empty() => Err(ParseError::field(
                "string_table[0]",
                format!(
                    "entry 0 must be the empty string, found {:?}",
                    String::from_utf8_lossy(first)
                ),
            )),
            Some(_) => Ok(Strings { table }),
        }
    }

    /// String number `index`; `field` names the referring field for errors.
    fn get(&self, index: i64, field: impl FnOnce() -> String) -> Result<String, ParseError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.table.get(i))
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .ok_or_else(|| {
                ParseError::field(
                    field(),
                    format!(
                        "string index {index} is out of range (string table has {} entries)",
                        self.table.len()
                    ),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use prost::Message;

    use super::pb;
    use crate::{text, Parsed};
    use model::error::ParseError;

    /// Everything a parse gives, written out so two parses compare as text.
    fn fingerprint(result: &Result<Parsed, ParseError>) -> String {
        let p = match result {
            Err(e) => return format!("error {:?}: {}", e.place, e.message),
            Ok(p) => p,
        };
        let tree = &p.profile.tree;
        let mut out = format!(
            "metrics {:?}\nheader {:?}\nwarnings {:?}\nlimit {:?}\n",
            p.profile.metrics,
            p.header,
            p.warnings,
            (p.frames.over_limit(), tree.over_limit()),
        );
        // Not the struct's Debug: its hash-map indexes print in any order.
        if let Some(a) = &p.profile.allocations {
            out += &format!("allocations {}\n", crate::test_support::allocations_text(a));
        }
        for (id, frame) in p.frames.iter() {
            out += &format!("frame {} {frame:?}\n", id.0);
        }
        for (node, line, values) in p.profile.line_self.iter().flat_map(|t| t.iter()) {
            out += &format!("line {} {line} {values:?}\n", node.0);
        }
        for node in tree.node_ids() {
            let values: Vec<u64> = (0..tree.metric_count())
                .map(|m| tree.self_value(node, m).to_bits())
                .collect();
            out += &format!(
                "node {} {:?} {:?} {:?} {values:?}\n",
                node.0,
                tree.frame(node),
                tree.parent(node),
                tree.children(node)
            );
        }
        out
    }

    /// The new reader's error without the byte offset it adds to prost's
    /// text (`(at byte N)`, which must lie within the input).
    fn without_offset(
        result: Result<Parsed, ParseError>,
        len: usize,
    ) -> Result<Parsed, ParseError> {
        result.map_err(|mut e| {
            if let Some(start) = e.message.find(" (at byte ") {
                let at = e.message[start + 10..]
                    .strip_suffix(')')
                    .and_then(|n| n.parse::<usize>().ok());
                assert!(
                    at.is_some_and(|at| at <= len),
                    "bad offset in {:?} (input of {len} bytes)",
                    e.message
                );
                e.message.truncate(start);
            }
            e
        })
    }

    fn assert_same(bytes: &[u8], what: &str) {
        let old = fingerprint(&super::read(bytes));
        let new = fingerprint(&without_offset(super::super::read(bytes), bytes.len()));
        if old != new {
            let (o, n) = old
                .lines()
                .zip(new.lines())
                .find(|(o, n)| o != n)
                .unwrap_or(("(shorter)", "(shorter)"));
            let at = o.bytes().zip(n.bytes()).take_while(|(a, b)| a == b).count();
            let from = at.saturating_sub(200);
            panic!(
                "{what}: streaming reader differs\nold: …{}\nnew: …{}",
                &o[from..(at + 200).min(o.len())],
                &n[from..(at + 200).min(n.len())]
            );
        }
    }

    fn fixtures() -> Vec<(String, Vec<u8>)> {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("tests/fixtures/pprof/go-demo/1.0");
        let mut files: Vec<(String, Vec<u8>)> = ["demo.cpu.pb.gz", "demo-heap.heap.pb.gz"]
            .iter()
            .map(|name| (name.to_string(), std::fs::read(dir.join(name)).unwrap()))
            .collect();
        if let Some(bytes) = crate::test_support::corpus("speedscope/pprof/simple.prof") {
            files.push(("simple.prof".into(), bytes));
        }
        files
            .into_iter()
            .map(|(name, bytes)| (name, text::gunzip(&bytes).unwrap()))
            .collect()
    }

    /// Deterministic pseudo-random numbers (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[test]
    fn real_profiles_and_every_prefix_read_the_same() {
        for (name, raw) in fixtures() {
            assert_same(&raw, &name);
            for cut in 0..raw.len() {
                assert_same(&raw[..cut], &format!("{name} cut at {cut}"));
            }
        }
    }

    #[test]
    fn malformed_profiles_say_where_reading_stopped() {
        for (name, raw) in fixtures() {
            for cut in [raw.len() / 3, raw.len() - 1] {
                let Err(e) = super::super::read(&raw[..cut]) else {
                    panic!("{name} cut at {cut} read without an error");
                };
                assert!(
                    e.message
                        .starts_with("not a valid pprof profile: failed to decode")
                        && e.message.contains(" (at byte "),
                    "{name} cut at {cut}: {}",
                    e.message
                );
            }
        }
    }

    #[test]
    fn damaged_profiles_read_the_same() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (name, raw) in fixtures() {
            for round in 0..3000 {
                let mut bytes = raw.clone();
                for _ in 0..1 + rng.below(3) {
                    let at = rng.below(bytes.len());
                    match rng.below(4) {
                        0 => bytes[at] = rng.next() as u8,
                        1 => bytes[at] ^= 1 << rng.below(8),
                        2 => {
                            bytes.remove(at);
                        }
                        _ => bytes.insert(at, rng.next() as u8),
                    }
                }
                assert_same(&bytes, &format!("{name} damage round {round}"));
            }
            // Two messages one after the other are one merged message.
            let mut twice = raw.clone();
            twice.extend_from_slice(&raw);
            assert_same(&twice, &format!("{name} twice"));
        }
    }

    /// A profile of `samples` random stacks over a small program, with
    /// labels, inlined lines, a location without lines and fields written
    /// in Go's order (samples between the locations they use).
    fn synthetic(samples: usize, seed: u64) -> pb::Profile {
        let mut rng = Rng(seed);
        let mut p = pb::Profile::default();
        let strings = [
            "",
            "samples",
            "count",
            "cpu",
            "nanoseconds",
            "main.go",
            "/lib/libc.so.6",
            "key",
            "value",
        ];
        p.string_table = strings.iter().map(|s| s.as_bytes().to_vec()).collect();
        for name in 0..300 {
            p.string_table
                .push(format!("pkg.function{name}").into_bytes());
        }
        p.sample_type = vec![
            pb::ValueType { r#type: 1, unit: 2 },
            pb::ValueType { r#type: 3, unit: 4 },
        ];
        p.mapping.push(pb::Mapping {
            id: 1,
            memory_start: 0x1000,
            memory_limit: 0x9000,
            filename: 6,
            ..Default::default()
        });
        for id in 1..=300u64 {
            p.function.push(pb::Function {
                id,
                name: 8 + id as i64,
                filename: 5,
                start_line: id as i64,
                ..Default::default()
            });
        }
        for id in 1..=900u64 {
            let mut line: Vec<pb::Line> = (0..1 + rng.below(3) / 2)
                .map(|_| pb::Line {
                    function_id: 1 + rng.below(300) as u64,
                    line: rng.below(40) as i64,
                    column: 0,
                })
                .collect();
            if id % 97 == 0 {
                line.clear();
            }
            p.location.push(pb::Location {
                id,
                mapping_id: 1,
                address: 0x1000 + id * 16,
                line,
                is_folded: false,
            });
        }
        for _ in 0..samples {
            let depth = rng.below(12);
            // Stacks share prefixes: the outer frames come from few ids.
            let location_id = (0..depth)
                .map(|d| 1 + ((rng.below(900) >> (8usize.saturating_sub(d))) as u64))
                .collect();
            let n = 1 + rng.below(5) as i64;
            p.sample.push(pb::Sample {
                location_id,
                value: vec![n, n * 10_000_000],
                label: vec![pb::Label {
                    key: 7,
                    str: 8,
                    num: 0,
                    num_unit: 0,
                }],
            });
        }
        p
    }

    /// Reads `bytes` with up to `threads` chunks; the new reader's result
    /// (byte offsets included) must not depend on the number of threads.
    fn with_threads(threads: usize, bytes: &[u8]) -> (String, String) {
        let read_on = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| super::super::read(bytes))
        };
        let new = read_on(threads);
        assert_eq!(fingerprint(&new), fingerprint(&read_on(1)));
        let new = fingerprint(&without_offset(new, bytes.len()));
        (fingerprint(&super::read(bytes)), new)
    }

    #[test]
    fn samples_split_between_threads_give_the_sequential_tree() {
        let p = synthetic(150_000, 7);
        let bytes = p.encode_to_vec();
        let (old, new) = with_threads(8, &bytes);
        assert!(old == new, "{old:.3000}\n---\n{new:.3000}");
        assert!(old.contains("node 2000 "), "a tree worth splitting");
    }

    #[test]
    fn the_first_problem_wins_across_threads() {
        // A bad reference early, a malformed sample late: malformed wins.
        let mut p = synthetic(150_000, 11);
        p.sample[20_000].location_id.push(77_777);
        let mut bytes = p.encode_to_vec();
        let (old, new) = with_threads(8, &bytes);
        assert_eq!(old, new);
        assert!(
            old.contains("location id 77777 does not exist"),
            "{old:.300}"
        );
        // Damage a sample near the end: its length runs past the file.
        let at = bytes.len() - 3000;
        let tail = bytes.split_off(at);
        bytes.extend_from_slice(&[0x12, 0xff, 0xff, 0x03]);
        bytes.extend_from_slice(&tail);
        let (old, new) = with_threads(8, &bytes);
        assert_eq!(old, new);
        assert!(old.contains("not a valid pprof profile"), "{old:.300}");
        // Two bad references in different chunks: the first one wins.
        let mut p = synthetic(150_000, 13);
        p.sample[140_000].value.push(1);
        p.sample[90_000].location_id.push(55_555);
        let (old, new) = with_threads(8, &p.encode_to_vec());
        assert_eq!(old, new);
        assert!(old.contains("sample[90000]"), "{old:.300}");
    }

    /// The profile (or error, with its byte offset) of `bytes` with the
    /// samples read `segment_bytes` at a time.
    fn in_segments(bytes: &[u8], segment_bytes: usize) -> String {
        let read = super::super::stage(bytes).and_then(|staged| {
            staged.read_samples_in_segments(&super::super::Buffer(bytes), segment_bytes)
        });
        fingerprint(&read.map(crate::Unfinished::finish))
    }

    /// Where sample `index` starts, in a profile prost wrote (samples
    /// one after the other, after the sample types).
    fn sample_position(bytes: &[u8], index: usize) -> usize {
        let mut r = super::super::wire::Reader::new(bytes);
        let mut seen = 0;
        loop {
            let at = r.pos();
            let (tag, wire) = r.key().unwrap();
            if tag == 2 {
                if seen == index {
                    return at;
                }
                seen += 1;
            }
            r.skip(wire, tag, 100).unwrap();
        }
    }

    #[test]
    fn samples_read_a_segment_at_a_time_give_what_one_read_gives() {
        let p = synthetic(150_000, 7);
        let bytes = p.encode_to_vec();
        let whole = fingerprint(&super::super::read(&bytes));
        // One segment per bookmark (1,024 samples), a few, and one.
        for segment_bytes in [1, 1 << 20, usize::MAX] {
            assert!(
                in_segments(&bytes, segment_bytes) == whole,
                "{segment_bytes}"
            );
        }
        // The last sample of the first segment, damaged: its location ids
        // claim more bytes than the sample has, so a sequential read goes
        // on into the next samples (the next segment) and fails there.
        let at = sample_position(&bytes, crate::pprof::outline::BOOKMARK_EVERY - 1);
        let mut damaged = bytes.clone();
        // Key, length, then the packed location ids' key and length.
        assert_eq!(damaged[at + 2], 0x0a, "location ids come first");
        damaged[at + 3] += 60;
        let old = fingerprint(&super::read(&damaged));
        let new = super::super::read(&damaged);
        let new_whole = fingerprint(&new);
        assert_eq!(old, fingerprint(&without_offset(new, damaged.len())));
        assert!(old.contains("not a valid pprof profile"), "{old:.300}");
        for segment_bytes in [1, 1 << 20] {
            assert_eq!(
                in_segments(&damaged, segment_bytes),
                new_whole,
                "{segment_bytes}"
            );
        }
    }

    #[test]
    fn a_limit_met_in_one_chunk_is_met_as_in_one_piece() {
        let mut p = synthetic(70_000, 17);
        let deep = model::limits::MAX_DEPTH as usize + 5;
        p.sample[60_000].location_id = (0..deep).map(|i| 1 + (i % 900) as u64).collect();
        let (old, new) = with_threads(4, &p.encode_to_vec());
        assert_eq!(old, new);
        // Past the depth limit a stack is cut, not the file refused.
        assert!(old.contains("limit (false, None)"), "{old:.300}");
    }
}
