//! Tests of the pprof reader: the files of the shared corpus, and profiles
//! built with [`super::pb`] for the odd cases (inlined lines, locations
//! without lines, bad references, sniffing).

use super::pb;
use super::*;
use model::error::Place;
use model::NodeId;
use prost::Message;

/// Every stack with a self value, as `a;b;c` root first, with its values.
fn stacks(p: &Parsed) -> Vec<(String, Vec<f64>)> {
    let tree = &p.profile.tree;
    let metrics = tree.metric_count();
    let mut out: Vec<(String, Vec<f64>)> = tree
        .node_ids()
        .filter(|&n| n != NodeId::ROOT)
        .map(|n| {
            let names: Vec<&str> = tree
                .stack_of(n)
                .iter()
                .map(|&f| p.frames.get(f).function.as_str())
                .collect();
            (
                names.join(";"),
                (0..metrics)
                    .map(|m| tree.self_value(n, m))
                    .collect::<Vec<f64>>(),
            )
        })
        .filter(|(_, v)| v.iter().any(|&x| x != 0.0))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn corpus_bytes() -> Option<Vec<u8>> {
    crate::test_support::corpus("speedscope/pprof/simple.prof")
}

// Expected figures computed independently of this parser with a
// minimal hand-written protobuf decoder in Python (varints and
// length-delimited fields only, no protobuf library):
//   python3 decode.py /work/shared/corpus/speedscope/pprof/simple.prof
// which gunzips, decodes sample_type/sample/location/function/string_table,
// sums each value column and joins function names root-first per sample.
// It printed: sample types [('samples','count'), ('cpu','nanoseconds')],
// 9 samples, 30 locations, 25 functions, totals [150, 1500000000], and
// the stacks listed below. Cross-checked with Go 1.19's pprof:
//   go tool pprof -raw /work/shared/corpus/speedscope/pprof/simple.prof
// (sample rows 14+26+27+11+25+22+22+1+2 = 150 samples, cpu = 10 ms each).
#[test]
fn corpus_simple_prof_matches_independent_decoder() {
    let Some(bytes) = corpus_bytes() else { return };
    let (format, parsed) = crate::parse_bytes("simple.prof", &bytes).unwrap();
    assert_eq!(format, "pprof");
    let metrics: Vec<(&str, &Unit)> = parsed
        .profile
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), &m.unit))
        .collect();
    assert_eq!(
        metrics,
        vec![("samples", &Unit::Count), ("cpu", &Unit::Nanoseconds)]
    );
    assert_eq!(parsed.profile.totals(), vec![150.0, 1_500_000_000.0]);
    assert!(parsed.profile.timeline.is_none());
    assert!(parsed.warnings.is_empty());
    let expected: Vec<(String, Vec<f64>)> = [
        (26.0, "runtime.main;main.main;main.alpha"),
        (25.0, "runtime.main;main.main;main.beta"),
        (22.0, "runtime.main;main.main;main.delta"),
        (22.0, "runtime.main;main.main;main.delta;main.alpha"),
        (14.0, "runtime.main;main.main;main.delta;main.beta"),
        (27.0, "runtime.main;main.main;main.gamma"),
        (11.0, "runtime.morestack;runtime.newstack;runtime.duffcopy"),
        (2.0, "runtime.mstart;runtime.mstart1;runtime.sysmon;runtime.usleep"),
        (
            1.0,
            "runtime.timerproc;runtime.goroutineReady;runtime.goready;runtime.systemstack;runtime.goready.func1;\
             runtime.ready;runtime.wakep;runtime.startm;runtime.notewakeup;runtime.semawakeup;\
             runtime.mach_semrelease;runtime.mach_semaphore_signal",
        ),
    ]
    .into_iter()
    .map(|(n, s)| (s.to_string(), vec![n, n * 10_000_000.0]))
    .collect();
    let mut expected = expected;
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(stacks(&parsed), expected);
    // Frames carry their source file and line.
    let alpha = parsed
        .frames
        .iter()
        .find(|(_, f)| f.function == "main.alpha")
        .map(|(_, f)| f.clone())
        .unwrap();
    assert!(
        alpha.file.as_deref().is_some_and(|f| f.ends_with(".go")),
        "{alpha:?}"
    );
    assert!(alpha.line.is_some());
}

/// The Go heap profile of tests/fixtures/pprof (written by
/// `pprof.WriteHeapProfile`): every allocating function becomes an
/// allocation site of its own "class", with the objects and bytes of
/// `alloc_*` and what was still live from `inuse_*`; a CPU profile has
/// no allocation data.
#[test]
fn go_heap_profile_has_allocation_sites_by_function() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/pprof/go-demo/1.0");
    let bytes = std::fs::read(dir.join("demo-heap.heap.pb.gz")).unwrap();
    let (_, parsed) = crate::parse_bytes("demo-heap.heap.pb.gz", &bytes).unwrap();
    let p = &parsed.profile;
    let alloc = p
        .allocations
        .as_deref()
        .expect("heap profile has allocation sites");
    assert_eq!(alloc.class_source, model::ClassSource::AllocatingFunction);
    assert_eq!(alloc.count_kind, model::CountKind::Objects);
    let totals = p.totals();
    assert_eq!(alloc.totals(), (totals[0], totals[1]));
    let live: f64 = alloc.sites.iter().filter_map(|s| s.live_bytes).sum();
    assert_eq!(live, totals[3]);
    assert!(live > 0.0 && live < totals[1]);
    for site in &alloc.sites {
        let frame = parsed.frames.get(p.tree.frame(site.node).unwrap());
        assert_eq!(alloc.classes[site.class as usize], frame.function);
    }
    let cpu = std::fs::read(dir.join("demo.cpu.pb.gz")).unwrap();
    let (_, cpu) = crate::parse_bytes("demo.cpu.pb.gz", &cpu).unwrap();
    assert!(cpu.profile.allocations.is_none());
}

#[test]
fn truncated_corpus_is_an_error_not_a_panic() {
    let Some(bytes) = corpus_bytes() else { return };
    let raw = if text::is_gzip(&bytes) {
        text::gunzip(&bytes).unwrap()
    } else {
        bytes
    };
    for cut in [raw.len() / 2, raw.len() - 1, 1, 3] {
        let input = Input {
            file_name: "x.pb.gz",
            bytes: &raw[..cut],
        };
        let e = Pprof.parse(&input).unwrap_err();
        assert!(e.message.contains("pprof"), "{e}");
    }
    // Every prefix: never a panic.
    for cut in 0..raw.len() {
        let _ = Pprof.parse(&Input {
            file_name: "x.pb",
            bytes: &raw[..cut],
        });
    }
}

/// A small builder for synthesized profiles.
#[derive(Default)]
struct Builder {
    p: pb::Profile,
}

impl Builder {
    fn new(types: &[(&str, &str)]) -> Builder {
        let mut b = Builder::default();
        b.p.string_table.push(Vec::new());
        for (t, u) in types {
            let vt = pb::ValueType {
                r#type: b.s(t),
                unit: b.s(u),
            };
            b.p.sample_type.push(vt);
        }
        b
    }
    fn s(&mut self, s: &str) -> i64 {
        if let Some(i) = self.p.string_table.iter().position(|x| x == s.as_bytes()) {
            return i as i64;
        }
        self.p.string_table.push(s.as_bytes().to_vec());
        (self.p.string_table.len() - 1) as i64
    }
    fn function(&mut self, id: u64, name: &str, file: &str) {
        let f = pb::Function {
            id,
            name: self.s(name),
            filename: self.s(file),
            ..Default::default()
        };
        self.p.function.push(f);
    }
    /// `lines`: (function id, line), innermost first as in pprof.
    fn location(&mut self, id: u64, mapping_id: u64, address: u64, lines: &[(u64, i64)]) {
        let line = lines
            .iter()
            .map(|&(function_id, line)| pb::Line {
                function_id,
                line,
                column: 0,
            })
            .collect();
        self.p.location.push(pb::Location {
            id,
            mapping_id,
            address,
            line,
            is_folded: false,
        });
    }
    fn sample(&mut self, leaf_first: &[u64], value: &[i64]) {
        self.p.sample.push(pb::Sample {
            location_id: leaf_first.to_vec(),
            value: value.to_vec(),
            label: vec![],
        });
    }
    fn bytes(&self) -> Vec<u8> {
        self.p.encode_to_vec()
    }
    fn parse(&self) -> Result<Parsed, ParseError> {
        let bytes = self.bytes();
        let input = Input {
            file_name: "synth",
            bytes: &bytes,
        };
        assert!(Pprof.sniff(&input), "synthesized profile not sniffed");
        Pprof.parse(&input)
    }
}

#[test]
fn inlined_lines_expand_outermost_first() {
    let mut b = Builder::new(&[("cpu", "milliseconds")]);
    b.function(1, "main", "main.go");
    b.function(2, "outer", "lib.go");
    b.function(3, "inlined_mid", "lib.go");
    b.function(4, "inlined_leaf", "lib.go");
    b.location(10, 0, 0x10, &[(1, 5)]);
    // Innermost first: leaf was inlined into mid, mid into outer.
    b.location(20, 0, 0x20, &[(4, 40), (3, 30), (2, 20)]);
    b.sample(&[20, 10], &[3]);
    b.sample(&[10], &[-1]);
    let p = b.parse().unwrap();
    assert_eq!(
        p.profile.metrics,
        vec![Metric::new("cpu", Unit::Nanoseconds)]
    );
    assert_eq!(
        stacks(&p),
        vec![
            ("main".to_string(), vec![-1e6]),
            ("main;outer;inlined_mid;inlined_leaf".to_string(), vec![3e6]),
        ]
    );
    let leaf = p
        .frames
        .iter()
        .find(|(_, f)| f.function == "inlined_leaf")
        .map(|(_, f)| f.clone())
        .unwrap();
    assert_eq!(
        leaf,
        Frame {
            function: "inlined_leaf".into(),
            file: Some("lib.go".into()),
            line: Some(40),
            module: None,
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        }
    );
    assert_eq!(p.profile.totals(), vec![2e6]);
}

#[test]
fn locations_without_lines_are_named_by_module_and_offset() {
    let mut b = Builder::new(&[("samples", "count")]);
    let libc = b.s("/lib/x86_64-linux-gnu/libc.so.6");
    b.p.mapping.push(pb::Mapping {
        id: 1,
        memory_start: 0x7f00_0000_0000,
        memory_limit: 0x7f00_0010_0000,
        file_offset: 0x1000,
        filename: libc,
        ..Default::default()
    });
    b.location(1, 1, 0x7f00_0000_0234, &[]);
    b.location(2, 0, 0xdead, &[]);
    b.sample(&[1, 2], &[1]);
    let p = b.parse().unwrap();
    assert_eq!(
        stacks(&p),
        vec![("0xdead;libc.so.6+0x1234".to_string(), vec![1.0])]
    );
    let f = p
        .frames
        .iter()
        .find(|(_, f)| f.function.starts_with("libc"))
        .map(|(_, f)| f.clone())
        .unwrap();
    assert_eq!(f.module.as_deref(), Some("libc.so.6"));
}

#[test]
fn out_of_range_string_index_names_the_field() {
    let mut b = Builder::new(&[("samples", "count")]);
    b.function(1, "a", "a.go");
    b.function(2, "b", "b.go");
    b.function(3, "c", "c.go");
    b.function(4, "d", "d.go");
    b.p.function[3].name = 999;
    let n = b.p.string_table.len();
    let e = b.parse().unwrap_err();
    assert_eq!(e.place, Place::Field("function[3].name".into()));
    assert_eq!(
        e.message,
        format!("string index 999 is out of range (string table has {n} entries)")
    );

    let mut b = Builder::new(&[("samples", "count")]);
    b.p.sample_type[0].unit = -1;
    assert_eq!(
        b.parse().unwrap_err().place,
        Place::Field("sample_type[0].unit".into())
    );
}

#[test]
fn unknown_ids_name_the_sample_or_location() {
    let mut b = Builder::new(&[("samples", "count")]);
    b.function(1, "a", "a.go");
    b.location(1, 0, 0, &[(1, 1)]);
    for _ in 0..12 {
        b.sample(&[1], &[1]);
    }
    b.sample(&[77, 1], &[1]);
    let e = b.parse().unwrap_err();
    assert_eq!(e.place, Place::Field("sample[12].location_id[0]".into()));
    // The offset of the sample's field in the profile follows.
    assert!(
        e.message
            .starts_with("location id 77 does not exist (at byte "),
        "{e}"
    );

    let mut b = Builder::new(&[("samples", "count")]);
    b.function(1, "a", "a.go");
    b.location(1, 0, 0, &[(1, 1), (5, 2)]);
    let e = b.parse().unwrap_err();
    assert_eq!(
        e,
        ParseError::field(
            "location[0].line[1].function_id",
            "function id 5 does not exist"
        )
    );

    // A missing mapping only loses the module name.
    let mut b = Builder::new(&[("samples", "count")]);
    b.function(1, "a", "a.go");
    b.location(1, 9, 0, &[(1, 1)]);
    b.sample(&[1], &[4]);
    let p = b.parse().unwrap();
    assert_eq!(p.warnings.len(), 1);
    assert_eq!(
        p.warnings[0].place,
        Place::Field("location[0].mapping_id".into())
    );
    assert_eq!(p.profile.totals(), vec![4.0]);
}

#[test]
fn value_count_must_match_sample_types() {
    let mut b = Builder::new(&[("samples", "count"), ("cpu", "nanoseconds")]);
    b.function(1, "a", "a.go");
    b.location(1, 0, 0, &[(1, 1)]);
    b.sample(&[1], &[1, 10]);
    b.sample(&[1], &[1]);
    let e = b.parse().unwrap_err();
    assert_eq!(e.place, Place::Field("sample[1].value".into()));
}

#[test]
fn bad_string_table_and_missing_sample_types_are_errors() {
    let mut b = Builder::new(&[("samples", "count")]);
    b.p.string_table[0] = b"oops".to_vec();
    assert_eq!(
        b.parse().unwrap_err().place,
        Place::Field("string_table[0]".into())
    );

    let mut b = Builder::new(&[]);
    b.s("something");
    let bytes = b.bytes();
    let e = Pprof
        .parse(&Input {
            file_name: "x.pb",
            bytes: &bytes,
        })
        .unwrap_err();
    assert!(e.message.contains("no sample types"), "{e}");

    let e = Pprof
        .parse(&Input {
            file_name: "x.pb",
            bytes: b"\xff\xff\xff",
        })
        .unwrap_err();
    assert!(e.message.starts_with("not a valid pprof profile: "), "{e}");
}

#[test]
fn sniffing() {
    let yes = |name: &str, bytes: &[u8]| {
        Pprof.sniff(&Input {
            file_name: name,
            bytes,
        })
    };
    assert!(!yes("x.folded", b"\na;b 1\n"));
    assert!(!yes("x.prof", b"\na;b 1\n"));
    assert!(!yes("x.json", b"{\"a\": 1}"));
    assert!(!yes("x.prof", b"main;f 3\n"));
    assert!(!yes("x.prof", b"\xff\xfea\0;\0b\0 \x001\0"));
    assert!(yes("x.prof", b"\x12\x80\x81\xff"));
    assert!(!yes("x.txt", b"\x12\x80\x81\xff"));
    // sample_type { type: 1, unit: 2 }
    assert!(yes("anything", b"\x0a\x04\x08\x01\x10\x02"));
    // Go's runtime/pprof, whatever the file is called: a CPU profile
    // starts with time_nanos, a heap profile with period_type and period.
    let go_cpu = b"\x48\x91\xa5\x95\xea\x9e\x95\xae\xf5\x18\x0a\x04\x08\x01\x10\x02";
    let go_heap = b"\x5a\x04\x08\x01\x10\x02\x60\x80\x80\x04\x0a\x04\x08\x03\x10\x04";
    assert!(yes("demo.cpu.pb.gz", go_cpu));
    assert!(yes("cpu.out", go_heap));
    // Header fields alone, or followed by anything but a sample_type, or
    // text that happens to start with the same letters, are not enough.
    assert!(!yes("x", &go_heap[..10]));
    assert!(!yes("x", b"\x48\x01\x12\x04\x08\x01\x10\x02"));
    assert!(!yes("x", b"Hello;world 3\n"));
    assert!(!yes("x", b"Z\x04\x08\x01\x10\x02P\x01"));
    assert!(!yes(
        "x",
        b"\x48\x01\x48\x01\x48\x01\x48\x01\x48\x01\x0a\x04\x08\x01\x10\x02"
    ));
    // A sample_type length near u64::MAX (found by fuzz/fuzz_targets/convert.rs)
    // is no sample_type, and no overflow.
    assert!(!yes(
        "x",
        b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x23\x0a\x23\x23\x0a\x0a"
    ));
    // The whole pipeline on text still picks a text format or fails.
    assert!(!matches!(
        crate::parse_bytes("x.folded", b"\na;b 1\n"),
        Ok(("pprof", _))
    ));
}

#[test]
fn cpp_names_get_a_label_and_system_names_stay_as_full_names() {
    let mut b = Builder::new(&[("samples", "count")]);
    // A mangled name (as perf_to_profile writes them), a demangled name
    // with its mangled system name, and a Go name.
    b.function(1, "_ZNK6shapes11AccumulatorIdE3sumEv", "prog.cpp");
    b.function(2, "shapes::work(int)", "prog.cpp");
    let mangled = b.s("_ZN6shapes4workEi");
    b.p.function[1].system_name = mangled;
    b.function(3, "main.main", "main.go");
    let go = b.s("main.main");
    b.p.function[2].system_name = go;
    for id in 1..=3 {
        b.location(id, 0, 0, &[(id, 1)]);
        b.sample(&[id], &[1]);
    }
    let p = b.parse().unwrap();
    let names: Vec<(&str, Option<&str>)> = p
        .frames
        .iter()
        .map(|(_, f)| (f.function.as_str(), f.full_name.as_deref()))
        .collect();
    assert_eq!(
        names,
        [
            (
                "shapes::Accumulator<…>::sum",
                Some("shapes::Accumulator<double>::sum() const")
            ),
            // Already demangled: kept as the exporter wrote it.
            ("shapes::work(int)", None),
            ("main.main", None),
        ]
    );
}

/// The real profiles of the tests and the corpus, decompressed, plus one
/// with inlined lines: Go's `runtime/pprof` writes each location and
/// function just before the first sample that uses it, so samples and the
/// other fields interleave.
fn real_profiles() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/pprof/go-demo/1.0");
    let mut all: Vec<Vec<u8>> = ["demo.cpu.pb.gz", "demo-heap.heap.pb.gz"]
        .iter()
        .map(|f| text::gunzip(&std::fs::read(dir.join(f)).unwrap()).unwrap())
        .collect();
    all.extend(corpus_bytes().map(|b| match text::is_gzip(&b) {
        true => text::gunzip(&b).unwrap(),
        false => b,
    }));
    let mut b = Builder::new(&[("cpu", "milliseconds")]);
    b.function(1, "main", "main.go");
    b.function(2, "outer", "lib.go");
    b.location(10, 0, 0x10, &[(1, 5)]);
    b.location(20, 0, 0x20, &[(2, 20), (1, 6)]);
    b.sample(&[20, 10], &[3]);
    all.push(b.bytes());
    all
}

/// Everything of a profile as text, the allocation sites' hash-map
/// indexes (whose order varies between runs) left out.
fn canonical(parsed: &Parsed) -> String {
    let mut parsed = parsed.clone();
    let allocations = parsed
        .profile
        .allocations
        .take()
        .map(|a| crate::test_support::allocations_text(&a));
    format!("{parsed:?} {allocations:?}")
}

/// `a` and `b` equal, else the place they first differ.
fn assert_same(a: &str, b: &str, what: &str) {
    if let Some(at) = a.bytes().zip(b.bytes()).position(|(x, y)| x != y) {
        let around = |s: &str| s[at.saturating_sub(200)..(at + 200).min(s.len())].to_string();
        panic!("{what}: split {}\nwhole {}", around(a), around(b));
    }
    assert_eq!(a.len(), b.len(), "{what}");
}

/// The profile of `bytes` read split as it is streamed, when it reads so.
fn read_split(bytes: &[u8]) -> Option<Parsed> {
    let split = split(bytes, u64::MAX).ok()??;
    assert_eq!(split.len, bytes.len());
    let staged = stage_split(&split)?;
    staged
        .read_samples(&Buffer(bytes))
        .ok()
        .map(Unfinished::finish)
}

#[test]
fn a_profile_split_as_it_is_streamed_reads_as_when_read_whole() {
    let profiles = real_profiles();
    assert!(profiles.len() >= 3);
    for bytes in &profiles {
        let whole = read(bytes).unwrap();
        let split = split(&bytes[..], u64::MAX).unwrap().unwrap();
        // Only the samples are left out, and the samples are there.
        assert!(split.rest.len() < bytes.len());
        assert_eq!(
            split.samples.count as usize,
            pb::Profile::decode(&bytes[..]).unwrap().sample.len()
        );
        let streamed = read_split(bytes).expect("a valid profile reads split");
        assert_same(&canonical(&streamed), &canonical(&whole), "a valid profile");
    }
    // A stream longer than its limit is not split.
    let bytes = &profiles[0];
    assert!(split(&bytes[..], bytes.len() as u64 - 1).unwrap().is_none());
    assert!(split(&bytes[..], bytes.len() as u64).unwrap().is_some());
}

/// A broken profile is never read split unless it reads whole the same:
/// the caller reads a profile that does not split whole, whose errors
/// name the place in the file.
#[test]
fn a_broken_profile_reads_split_only_as_it_reads_whole() {
    for bytes in real_profiles() {
        let step = (bytes.len() / 400).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let cut = &bytes[..cut];
            if let Some(streamed) = read_split(cut) {
                let whole = read(cut).expect("read split, so it reads whole");
                assert_same(&canonical(&streamed), &canonical(&whole), "cut");
            }
        }
        // One byte changed here and there.
        for at in (0..bytes.len()).step_by(step) {
            let mut changed = bytes.clone();
            changed[at] ^= 0x5a;
            if let Some(streamed) = read_split(&changed) {
                let whole = read(&changed).expect("read split, so it reads whole");
                assert_same(
                    &canonical(&streamed),
                    &canonical(&whole),
                    &format!("byte {at} changed"),
                );
            }
        }
    }
    // A group at the top level: prost reads it, splitting does not.
    let mut grouped = real_profiles().remove(0);
    grouped.extend([0x7b, 0x7c]); // field 15: start group, end group
    assert!(split(&grouped[..], u64::MAX).unwrap().is_none());
}
