use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::*;
use crate::test_support::corpus;

fn parse(text: &str) -> Result<Parsed, ParseError> {
    FirefoxProfiler.parse(&Input {
        file_name: "profile.json",
        bytes: text.as_bytes(),
    })
}

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/fixtures/firefox-profiler/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn name(p: &Parsed, node: NodeId) -> &str {
    match p.profile.tree.frame(node) {
        Some(f) => &p.frames.get(f).function,
        None => "",
    }
}

/// Per function name: (self, total) of `metric`, from perfatlas's tree;
/// a function counted once per sample however often it is on the stack.
fn self_and_total(p: &Parsed, metric: usize) -> BTreeMap<String, (f64, f64)> {
    let tree = &p.profile.tree;
    let mut out: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for n in tree.node_ids() {
        let v = tree.self_value(n, metric);
        if v == 0.0 {
            continue;
        }
        out.entry(name(p, n).to_string()).or_default().0 += v;
        let mut seen = BTreeSet::new();
        let mut at = Some(n);
        while let Some(node) = at {
            if tree.frame(node).is_some() && seen.insert(name(p, node).to_string()) {
                out.entry(name(p, node).to_string()).or_default().1 += v;
            }
            at = tree.parent(node);
        }
    }
    out
}

/// The same figures computed straight from the file's JSON, without the
/// reader: every sample's stack walked through `prefix`, its leaf
/// function's name getting the sample as self, every function on it as
/// total (columnar tables, thread string arrays: the fixtures' layout).
fn expected_from_json(bytes: &[u8]) -> BTreeMap<String, (f64, f64)> {
    let doc: Value = serde_json::from_slice(bytes).unwrap();
    let mut out: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for thread in doc["threads"].as_array().unwrap() {
        let strings = thread["stringArray"].as_array().unwrap();
        let func_name = |frame: usize| {
            let func = thread["frameTable"]["func"][frame].as_u64().unwrap() as usize;
            let s = thread["funcTable"]["name"][func].as_u64().unwrap() as usize;
            strings[s].as_str().unwrap().to_string()
        };
        let samples = &thread["samples"];
        for (k, stack) in samples["stack"].as_array().unwrap().iter().enumerate() {
            let Some(mut s) = stack.as_u64() else {
                continue;
            };
            let w = samples["weight"][k].as_f64().unwrap_or(1.0);
            let mut names = Vec::new();
            loop {
                let frame = thread["stackTable"]["frame"][s as usize].as_u64().unwrap();
                names.push(func_name(frame as usize));
                match thread["stackTable"]["prefix"][s as usize].as_u64() {
                    Some(p) => s = p,
                    None => break,
                }
            }
            out.entry(names[0].clone()).or_default().0 += w;
            let distinct: BTreeSet<&String> = names.iter().collect();
            for n in distinct {
                out.entry(n.clone()).or_default().1 += w;
            }
        }
    }
    out
}

/// The profiler's own version-17 upgrade fixture: three threads of seven
/// samples each, a native and a JS function among them.
#[test]
fn version_17_fixture_matches_its_json() {
    let bytes = fixture("processed-17a.json");
    let (format, p) = crate::parse_bytes("processed-17a.json", &bytes).unwrap();
    assert_eq!(format, "firefox-profiler");
    let metrics: Vec<&str> = p.profile.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(metrics, ["time", "samples"]);
    // 21 samples at meta.interval = 1 ms.
    assert_eq!(p.profile.tree.total(1), 21.0);
    assert_eq!(p.profile.tree.total(0), 21e6);

    let mut got = self_and_total(&p, 1);
    // The thread frames are perfatlas's, not functions of the file.
    got.retain(|k, _| !k.contains("(pid "));
    let want = expected_from_json(&bytes);
    assert_eq!(got, want);
    // The hottest functions by self samples: the two native addresses,
    // two samples per thread each.
    assert_eq!(want["0x100000f84"], (6.0, 18.0));
    assert_eq!(want["0x100001a45"], (6.0, 6.0));
    assert_eq!(want["(root)"], (3.0, 21.0));

    let threads: Vec<&str> = p
        .profile
        .tree
        .children(NodeId::ROOT)
        .iter()
        .map(|&n| name(&p, n))
        .collect();
    assert_eq!(
        threads,
        [
            "GeckoMain (pid Unknown Process 1)",
            "Compositor (pid Unknown Process 2)",
            "GeckoMain (pid Unknown Process 3)"
        ]
    );
    // The JS function keeps its script and line; the native one its
    // library.
    let frob = p
        .frames
        .iter()
        .find(|(_, f)| f.function == "frobnicate")
        .unwrap()
        .1;
    assert_eq!(frob.file.as_deref(), Some("chrome://blargh"));
    assert_eq!(frob.line, Some(34));
    assert_eq!(frob.start_line, Some(34));
    let native = p
        .frames
        .iter()
        .find(|(_, f)| f.function == "0x100000f84")
        .unwrap()
        .1;
    assert_eq!(native.module.as_deref(), Some("firefox"));
    // The timeline is one thread's seven samples, 1 ms apart.
    let timeline = &p.profile.timeline.as_ref().unwrap().samples;
    assert_eq!(timeline.len(), 7);
    assert_eq!(timeline[6].start_ns, 6e6);
}

#[test]
fn processed_profiles_before_the_version_field_are_refused_with_the_way_out() {
    let bytes = fixture("processed-1.json");
    let err = crate::parse_bytes("processed-1.json", &bytes).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("meta.version 3"), "{text}");
    assert!(text.contains("profiler.firefox.com"), "{text}");
    assert!(text.contains("$.meta"), "{text}");
}

#[test]
fn gecko_profiles_are_refused_with_their_version() {
    let gecko = r#"{"meta": {"version": 27, "interval": 1, "startTime": 0},
        "threads": [{"name": "GeckoMain", "samples": {"schema": {"stack": 0}, "data": [[0]]}}]}"#;
    assert!(FirefoxProfiler.sniff(&Input {
        file_name: "p.json",
        bytes: gecko.as_bytes()
    }));
    let text = parse(gecko).unwrap_err().to_string();
    assert!(text.contains("meta.version 27"), "{text}");
    assert!(text.contains("save it again"), "{text}");
}

#[test]
fn a_truncated_file_names_its_line() {
    let bytes = fixture("processed-17a.json");
    let half = &bytes[..bytes.len() / 2];
    let err = crate::parse_bytes("processed-17a.json", half).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("line "), "{text}");
    assert!(text.contains("EOF"), "{text}");
}

/// A minimal current profile: one thread, strings shared, times as deltas.
fn modern(stack: Value, prefix: Value, samples: Value) -> String {
    json!({
        "meta": {"version": 31, "preprocessedProfileVersion": 58, "interval": 2.0,
                 "sampleUnits": {"time": "ms"}},
        "shared": {"stringArray": ["main", "work", "app.js", "<script>alert(1)</script>"],
                   "sources": {"length": 1, "uuid": [null], "filename": [2]}},
        "threads": [{
            "name": "GeckoMain", "pid": "7", "tid": 7,
            "samples": samples,
            "stackTable": {"length": 2, "frame": stack, "prefix": prefix},
            "frameTable": {"length": 3, "func": [0, 1, 2], "line": [null, 12, null]},
            "funcTable": {"length": 3, "name": [0, 1, 3], "source": [0, 0, null],
                          "lineNumber": [1, 10, null], "resource": [-1, -1, -1]}
        }]
    })
    .to_string()
}

#[test]
fn shared_strings_sources_deltas_and_weights_are_read() {
    let text = modern(
        json!([0, 1]),
        json!([null, 0]),
        json!({"length": 3, "stack": [1, 1, null], "timeDeltas": [5, 2, 2],
               "weight": [3, null, 1], "weightType": "samples"}),
    );
    let p = parse(&text).unwrap();
    // Weights 3 and 1 (null): 4 samples of 2 ms; the stackless one left out.
    assert_eq!(p.profile.tree.total(1), 4.0);
    assert_eq!(p.profile.tree.total(0), 8e6);
    let work = p
        .frames
        .iter()
        .find(|(_, f)| f.function == "work")
        .unwrap()
        .1;
    assert_eq!(work.file.as_deref(), Some("app.js"));
    assert_eq!(work.start_line, Some(10));
    let timeline = &p.profile.timeline.as_ref().unwrap().samples;
    assert_eq!(timeline.len(), 2);
    assert_eq!(timeline[1].start_ns, 2e6);
    assert!(p
        .profile
        .notes
        .iter()
        .any(|n| n.contains("1 sample(s) without a stack")));
}

#[test]
fn tracing_and_bytes_weights_give_their_own_metric() {
    for (kind, metric, total) in [("tracing-ms", "time", 4.5e6), ("bytes", "bytes", 4.5)] {
        let text = modern(
            json!([0, 1]),
            json!([null, 0]),
            json!({"length": 2, "stack": [0, 1], "time": [0, 1],
                   "weight": [1.5, 3], "weightType": kind}),
        );
        let p = parse(&text).unwrap();
        assert_eq!(p.profile.metrics.len(), 1, "{kind}");
        assert_eq!(p.profile.metrics[0].name, metric);
        assert_eq!(p.profile.tree.total(0), total);
    }
}

#[test]
fn hostile_indices_are_errors_at_their_place() {
    let cases = [
        // A prefix cycle: 0 -> 1 -> 0.
        (
            json!([0, 1]),
            json!([1, 0]),
            json!([0]),
            "prefixes form a cycle",
        ),
        (
            json!([0, 1]),
            json!([null, 5]),
            json!([1]),
            "$.threads[0].stackTable.prefix[1]",
        ),
        (
            json!([0, 9]),
            json!([null, 0]),
            json!([1]),
            "$.threads[0].stackTable.frame[1]",
        ),
        (
            json!([0, 1]),
            json!([null, 0]),
            json!([4]),
            "$.threads[0].samples.stack[0]",
        ),
        (
            json!([0, 1]),
            json!([null, 0]),
            json!([-1]),
            "stack index -1",
        ),
        (
            json!([0, 1]),
            json!([null, 0]),
            json!([0.5]),
            "stack index 0.5",
        ),
    ];
    for (frames, prefix, stack, says) in cases {
        let text = modern(
            frames,
            prefix,
            json!({"length": 1, "stack": stack, "time": [0]}),
        );
        let err = parse(&text).unwrap_err().to_string();
        assert!(err.contains(says), "{says:?} not in {err}");
    }
}

#[test]
fn a_function_name_out_of_the_strings_is_an_error() {
    let text = json!({
        "meta": {"preprocessedProfileVersion": 47, "interval": 1},
        "threads": [{"stringArray": ["a"],
            "samples": {"stack": [0], "time": [0]},
            "stackTable": {"frame": [0], "prefix": [null]},
            "frameTable": {"func": [0]},
            "funcTable": {"name": [99]}}]
    })
    .to_string();
    let err = parse(&text).unwrap_err().to_string();
    assert!(err.contains("$.threads[0].funcTable.name[0]"), "{err}");
    assert!(err.contains("string index 99"), "{err}");
}

#[test]
fn deep_stacks_do_not_overflow() {
    let depth = 200_000;
    let frame: Vec<usize> = vec![0; depth];
    let prefix: Vec<Value> = (0..depth)
        .map(|i| if i == 0 { Value::Null } else { json!(i - 1) })
        .collect();
    let text = json!({
        "meta": {"preprocessedProfileVersion": 47, "interval": 1},
        "threads": [{"stringArray": ["f"],
            "samples": {"stack": [depth - 1], "time": [0]},
            "stackTable": {"frame": frame, "prefix": prefix},
            "frameTable": {"func": [0]},
            "funcTable": {"name": [0]}}]
    })
    .to_string();
    let (_, p) = crate::parse_bytes("deep.json", text.as_bytes()).unwrap();
    assert_eq!(p.profile.tree.total(1), 1.0);
}

#[test]
fn names_with_markup_are_kept_as_text() {
    let text = modern(
        json!([0, 2]),
        json!([null, 0]),
        json!({"length": 1, "stack": [1], "time": [0]}),
    );
    let p = parse(&text).unwrap();
    assert!(p
        .frames
        .iter()
        .any(|(_, f)| f.function == "<script>alert(1)</script>"));
}

#[test]
fn no_samples_is_an_error() {
    let text = modern(
        json!([0, 1]),
        json!([null, 0]),
        json!({"stack": [null], "time": [0]}),
    );
    let err = parse(&text).unwrap_err().to_string();
    assert!(err.contains("no samples"), "{err}");
}

/// Detection both ways: the other JSON formats' real files are not
/// claimed, and the Firefox files go to this reader alone.
#[test]
fn sniffing_is_precise_both_ways() {
    for name in ["processed-17a.json", "processed-1.json"] {
        let bytes = fixture(name);
        let input = Input {
            file_name: name,
            bytes: &bytes,
        };
        let claimed: Vec<&str> = crate::FORMATS
            .iter()
            .filter(|f| f.sniff(&input))
            .map(|f| f.name())
            .collect();
        assert_eq!(claimed, ["firefox-profiler"], "{name}");
        assert!(crate::measurements::sniff_and_parse(name, &bytes).is_none());
    }
    let others = [
        "speedscope/speedscope/0.6.0/two-sampled.speedscope.json",
        "speedscope/Chrome/116/Trace-20230603T221323.json",
        "speedscope/trace-event/multi-thread-with-samples.json",
        "speedscope/node/10.11.0/example.cpuprofile",
        "speedscope/Chrome/69/Heap-20181005T144546.heapprofile",
    ];
    for rel in others {
        let Some(bytes) = corpus(rel) else { continue };
        let input = Input {
            file_name: rel,
            bytes: &bytes,
        };
        assert!(!FirefoxProfiler.sniff(&input), "{rel}");
    }
    let chrome = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/chrome-trace/busy-page.trace.json.gz"
    ))
    .unwrap();
    let chrome = crate::text::gunzip(&chrome).unwrap();
    assert!(!FirefoxProfiler.sniff(&Input {
        file_name: "t.json",
        bytes: &chrome
    }));
    // A JSON document that merely mentions the key in a string value.
    let mention = br#"{"meta": {"note": "preprocessedProfileVersion"}}"#;
    assert!(!FirefoxProfiler.sniff(&Input {
        file_name: "x.json",
        bytes: mention
    }));
}
