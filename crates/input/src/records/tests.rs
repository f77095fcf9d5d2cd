//! The records give back exactly what the parsers gave, for real files of
//! every format, and never trust an entry that does not check out.

use super::*;
use crate::native::to_json;
use std::path::Path;

fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel)).unwrap()
}

/// The file read as a build reads it.
fn load(rel: &str) -> Loaded {
    let name = rel.rsplit('/').next().unwrap();
    crate::load_bytes(name, name, &fixture(rel)).unwrap()
}

/// Everything a loaded file holds, as comparable text.
fn describe(loaded: &Loaded) -> String {
    match loaded {
        Loaded::Profile(format, parsed) => {
            format!("{format}\n{}\n{:?}", to_json(parsed), parsed.warnings)
        }
        Loaded::Measurements(m) => format!("{m:?}"),
    }
}

const FILES: &[&str] = &[
    "tests/fixtures/pprof/go-demo/1.0/demo-heap.heap.pb.gz",
    "tests/fixtures/pprof/go-demo/1.0/demo.cpu.pb.gz",
    "tests/fixtures/allocation/canvas.json",
    "tests/fixtures/jfr/alloc.json.gz",
    "tests/fixtures/heapprofile/alloc.heapprofile",
    "tests/fixtures/async-profiler/alloc-collapsed.txt",
    "sample-data/python-markdown/3.7/convert-basic.1.folded",
    "sample-data/python-markdown/3.7/convert-extensions.1.speedscope.json",
    "sample-data/python-markdown/3.7/timings.1.json",
    "tests/fixtures/measurements/google-benchmark.json",
    "tests/data/first-contact/4.0.0/cpu-1.cpuprofile",
    "tests/fixtures/chrome-trace/busy-page.trace.json.gz",
];

#[test]
fn every_format_comes_back_exactly_as_parsed() {
    for rel in FILES {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
        if !path.exists() {
            panic!("fixture {rel} is missing");
        }
        let loaded = load(rel);
        let again = decode(&encode(&loaded)).unwrap_or_else(|| panic!("{rel} did not decode"));
        assert!(describe(&again) == describe(&loaded), "{rel} differs");
        if let (Loaded::Profile(_, a), Loaded::Profile(_, b)) = (&again, &loaded) {
            let seen = |p: &Parsed| {
                p.profile
                    .allocations
                    .as_deref()
                    .map(crate::test_support::allocations_text)
            };
            assert!(seen(a) == seen(b), "{rel}: allocations");
            assert!(
                a.profile.line_self == b.profile.line_self,
                "{rel}: line self values"
            );
            if rel.contains("cpuprofile") || rel.contains("trace") {
                assert!(a.profile.line_self.is_some(), "{rel}: V8 lines are kept");
            }
            assert_eq!(a.profile.notes, b.profile.notes, "{rel}: notes");
            // The V8 capture has samples it cannot place, and says so.
            if rel.ends_with(".heapprofile") {
                assert_eq!(a.profile.notes.len(), 1, "{rel}");
            }
        }
    }
}

#[test]
fn entries_that_do_not_check_out_are_ignored() {
    let entry = encode(&load("tests/fixtures/allocation/canvas.json"));
    assert!(decode(&entry).is_some());
    // A flipped payload byte, a cut entry, another format or perfatlas
    // version, and garbage all read as "not cached".
    let mut flipped = entry.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    assert!(decode(&flipped).is_none());
    assert!(decode(&entry[..entry.len() / 2]).is_none());
    let mut other_format = entry.clone();
    other_format[MAGIC.len()] ^= 1;
    assert!(decode(&other_format).is_none());
    let mut other_version = entry.clone();
    other_version[MAGIC.len() + 5] ^= 1;
    assert!(decode(&other_version).is_none());
    for junk in [&b""[..], b"PACACHE\n", &[0xff; 64]] {
        assert!(decode(junk).is_none());
    }
}

/// A measurement entry whose checksum holds but whose parts do not fit
/// together (a bug, or a hand-made file) is not trusted either.
#[test]
fn measurement_entries_whose_parts_do_not_fit_are_ignored() {
    let entry = |names: &str, means: Vec<f64>, benchmarks: Vec<MeasuredRecord>| {
        crate::envelope::framed(
            MAGIC,
            FORMAT,
            &postcard::to_stdvec(&Entry::Measurements(CachedMeasurements {
                format: "hyperfine".into(),
                units: vec!["s".into()],
                notes: vec![String::new()],
                names: names.into(),
                run_means: means,
                benchmarks,
                intervals: Vec::new(),
                warnings: Vec::new(),
            }))
            .unwrap(),
        )
    };
    let good = entry(
        "ab",
        vec![1.0, 2.0, 3.0],
        vec![(1, 0, 0, 2, 2, false, false), (1, 0, 0, 1, 1, false, false)],
    );
    let Some(Loaded::Measurements(m)) = decode(&good) else {
        panic!("a well-formed entry did not decode")
    };
    assert_eq!(m.name_of(&m.benchmarks[1]), "b");
    assert_eq!(m.benchmarks[0].means.as_slice(), [1.0, 2.0]);
    assert_eq!(m.benchmarks[1].means.moments().mean, 3.0);
    let bad = [
        // A name longer than the names.
        entry("ab", vec![1.0], vec![(3, 0, 0, 1, 1, false, false)]),
        // More runs than means.
        entry("a", vec![1.0], vec![(1, 0, 0, 2, 2, false, false)]),
        // Means or names left over.
        entry("a", vec![1.0, 2.0], vec![(1, 0, 0, 1, 1, false, false)]),
        entry("ab", vec![1.0], vec![(1, 0, 0, 1, 1, false, false)]),
        // A unit or note outside the tables.
        entry("a", vec![1.0], vec![(1, 1, 0, 1, 1, false, false)]),
        entry("a", vec![1.0], vec![(1, 0, 1, 1, 1, false, false)]),
        // A name cut inside a character.
        entry("é", vec![1.0], vec![(1, 0, 0, 1, 1, false, false)]),
    ];
    for (i, bytes) in bad.iter().enumerate() {
        assert!(decode(bytes).is_none(), "bad entry {i} was trusted");
    }
}

/// Self values go as varints only when every one comes back bit for bit:
/// whole numbers up to 2^53; a fraction, −0, NaN or a larger number keeps
/// every value as an f64.
#[test]
fn self_values_come_back_bit_for_bit() {
    let round_trip = |values: Vec<f64>| {
        let bytes = postcard::to_stdvec(&Numbers::of(values.clone())).unwrap();
        let back: Numbers = postcard::from_bytes(&bytes).unwrap();
        let whole = matches!(back, Numbers::Whole(_));
        let back = back.into_values();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&values), "{values:?}");
        whole
    };
    assert!(round_trip(vec![0.0, 1.0, 1000.0, 9_007_199_254_740_992.0]));
    assert!(!round_trip(vec![1.0, 0.5]));
    assert!(!round_trip(vec![1.0, -0.0]));
    assert!(!round_trip(vec![1.0, f64::NAN]));
    assert!(!round_trip(vec![1.0, -3.0]));
    assert!(!round_trip(vec![1.0, 1e300]));
}

/// A profile's entry is written from the profile as it is read, without
/// its record: the bytes are the record's, for every format (allocation
/// sites, line tables, notes, warnings), with frames renumbered, and with
/// self values that are not all whole numbers.
#[test]
fn a_profile_entry_written_as_it_is_read_is_its_records_bytes() {
    let record_bytes = |parts: ProfileParts, local_of: &dyn Fn(FrameId) -> u32| {
        framed_entry(&Entry::Profile(profile_record(parts, local_of)))
    };
    let (mut profiles, mut with_lines) = (0, 0);
    for rel in FILES {
        let Loaded::Profile(format, mut parsed) = load(rel) else {
            continue;
        };
        profiles += 1;
        with_lines += usize::from(
            parsed
                .profile
                .line_self
                .as_ref()
                .is_some_and(|t| !t.is_empty()),
        );
        let renumbered = |f: FrameId| f.0 ^ 1;
        for local_of in [&(|f: FrameId| f.0) as &dyn Fn(FrameId) -> u32, &renumbered] {
            let streamed = encode_profile(ProfileParts::of(format, &parsed), local_of);
            let recorded = record_bytes(ProfileParts::of(format, &parsed), local_of);
            assert!(!streamed.is_empty() && streamed == recorded, "{rel}");
            // Written to a file as it is encoded: the same bytes.
            let mut file = tempfile::tempfile().unwrap();
            write_profile(&ProfileParts::of(format, &parsed), local_of, &mut file).unwrap();
            let mut written = Vec::new();
            std::io::Seek::rewind(&mut file).unwrap();
            std::io::Read::read_to_end(&mut file, &mut written).unwrap();
            assert!(written == streamed, "{rel}: the entry written to a file");
        }
        // One fraction: every self value is written as an f64.
        let last = NodeId(parsed.profile.tree.len() as u32 - 1);
        parsed.profile.tree.add_self(last, 0, 0.25);
        let streamed = encode_profile(ProfileParts::of(format, &parsed), |f| f.0);
        assert_eq!(
            streamed,
            record_bytes(ProfileParts::of(format, &parsed), &|f| f.0),
            "{rel}"
        );
        let again = decode(&streamed).unwrap();
        assert_eq!(
            describe(&again),
            describe(&Loaded::Profile(format, parsed.clone())),
            "{rel}"
        );
        // A line table with one fraction: its values are written as f64s.
        let metrics = parsed.profile.tree.metric_count();
        let lines = [
            (last, 7, vec![0.5; metrics]),
            (NodeId::ROOT, 3, vec![2.0; metrics]),
        ];
        parsed.profile.line_self = Some(model::LineSelf::from_entries(metrics, lines));
        let streamed = encode_profile(ProfileParts::of(format, &parsed), |f| f.0);
        let recorded = record_bytes(ProfileParts::of(format, &parsed), &|f| f.0);
        assert!(streamed == recorded, "{rel}: a fractional line table");
    }
    assert!(profiles >= 9);
    // Real line tables (pprof, py-spy): whole numbers.
    assert!(with_lines >= 2, "{with_lines} profiles with line tables");
}
