use super::*;
use crate::test_support::corpus;

fn parse(text: &str) -> Result<Parsed, ParseError> {
    TraceEvents.parse(&Input {
        file_name: "trace.json",
        bytes: text.as_bytes(),
    })
}

fn fixture() -> Vec<u8> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/chrome-trace/busy-page.trace.json.gz"
    );
    std::fs::read(path).expect("the chrome-trace fixture")
}

/// `key=value` of the fixture's summary.txt (written by capture/summary.py
/// from the trace's events, without perfatlas), on the line starting with
/// `line`.
fn summary(line: &str, key: &str) -> f64 {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/chrome-trace/summary.txt"
    );
    let text = std::fs::read_to_string(path).expect("summary.txt");
    let row = text
        .lines()
        .find(|l| l.starts_with(line))
        .unwrap_or_else(|| panic!("no line {line:?} in {text}"));
    row.split_whitespace()
        .find_map(|w| w.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {row:?}"))
}

fn name(p: &Parsed, node: NodeId) -> &str {
    match p.profile.tree.frame(node) {
        Some(f) => &p.frames.get(f).function,
        None => "",
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// Chromium 156 (Debian) tracing a page that sorts for 0.7 s: three
/// renderer processes, each with its own V8 profile.
#[test]
fn chromium_trace_gives_every_profile_under_its_thread() {
    let (format, p) = crate::parse_bytes("busy-page.trace.json.gz", &fixture()).unwrap();
    assert_eq!(format, "chrome-trace");
    let metrics: Vec<&str> = p.profile.metrics.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(metrics, ["cpu", "samples"]);
    let tree = &p.profile.tree;
    assert_eq!(tree.total(1), summary("total", "samples"));
    assert!(
        close(tree.total(0), summary("total", "cpu_ns")),
        "{}",
        tree.total(0)
    );
    // One frame per profile, named after the profiled thread.
    let threads: Vec<&str> = tree
        .children(NodeId::ROOT)
        .iter()
        .map(|&n| name(&p, n))
        .collect();
    assert_eq!(threads.len(), 3, "{threads:?}");
    assert!(
        threads
            .iter()
            .all(|t| t.starts_with("CrRendererMain (pid ")),
        "{threads:?}"
    );
    // The page's process: its samples, and sortMany's own time, as the
    // trace's events add up.
    let page = tree
        .children(NodeId::ROOT)
        .iter()
        .copied()
        .find(|&n| {
            tree.node_ids()
                .any(|m| name(&p, m) == "sortMany" && is_under(&p, m, n))
        })
        .expect("a thread running sortMany");
    let pid = name(&p, page)
        .trim_start_matches("CrRendererMain (pid ")
        .trim_end_matches(')')
        .to_string();
    let line = format!("profile pid={pid} ");
    let samples = tree.inclusive(1)[page.index()];
    assert_eq!(samples, summary(&line, "samples"));
    let sort_self: f64 = tree
        .node_ids()
        .filter(|&n| name(&p, n) == "sortMany")
        .map(|n| tree.self_value(n, 0))
        .sum();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/chrome-trace/summary.txt"
    ))
    .unwrap();
    let expected = text
        .lines()
        .find(|l| l.starts_with(&line))
        .and_then(|l| l.split("sortMany ").nth(1))
        .and_then(|v| v.split(',').next())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .expect("sortMany's self time in summary.txt");
    assert!(
        (sort_self - expected).abs() < 1.0,
        "{sort_self} vs {expected}"
    );
    // Frames keep the page's file and line.
    let f = tree
        .node_ids()
        .find(|&n| name(&p, n) == "sortMany")
        .and_then(|n| tree.frame(n))
        .unwrap();
    let frame = p.frames.get(f);
    assert!(
        frame.file.as_deref().unwrap_or("").ends_with("busy.html"),
        "{frame:?}"
    );
    assert_eq!(frame.line, Some(3));
    // The timeline is the page's process's: most samples outside (idle).
    let timeline = p.profile.timeline.as_ref().expect("a timeline");
    assert!(timeline.samples.iter().all(|s| is_under(&p, s.node, page)));
    assert_eq!(timeline.samples.len() as f64, samples);
    assert!(p.profile.notes.iter().any(|n| n.contains("3 V8 profiles")));
}

fn is_under(p: &Parsed, mut node: NodeId, top: NodeId) -> bool {
    while let Some(parent) = p.profile.tree.parent(node) {
        if parent == top {
            return true;
        }
        node = parent;
    }
    false
}

/// Chrome 116's Performance panel "Save profile" (from speedscope's test
/// files): one profile, read as it is. cpu from the chunks' deltas with
/// python3 (each sample until the next, the last the mean interval).
#[test]
fn devtools_performance_panel_export() {
    let Some(bytes) = corpus("speedscope/Chrome/116/Trace-20230603T221323.json") else {
        return;
    };
    let (format, p) = crate::parse_bytes("Trace.json", &bytes).unwrap();
    assert_eq!(format, "chrome-trace");
    assert_eq!(p.profile.tree.total(1), 1600.0);
    assert!(close(p.profile.tree.total(0), 265_304_815.509_693_6));
    let roots: Vec<&str> = p
        .profile
        .tree
        .children(NodeId::ROOT)
        .iter()
        .map(|&n| name(&p, n))
        .collect();
    assert!(roots.contains(&"(program)"), "{roots:?}");
}

/// Hermes writes `samples` and `stackFrames` beside its events.
#[test]
fn hermes_sampled_stacks_are_read_by_thread() {
    let Some(bytes) = corpus("speedscope/trace-event/multi-thread-with-samples.json") else {
        return;
    };
    let (format, p) = crate::parse_bytes("trace.json", &bytes).unwrap();
    assert_eq!(format, "chrome-trace");
    let tree = &p.profile.tree;
    assert_eq!(tree.total(0), 8.0);
    let threads: Vec<(String, f64)> = tree
        .children(NodeId::ROOT)
        .iter()
        .map(|&n| (name(&p, n).to_string(), tree.inclusive(0)[n.index()]))
        .collect();
    assert_eq!(
        threads,
        [
            ("mqt_js (pid 7512, tid 1)".to_string(), 3.0),
            ("pid 7512, tid 2".to_string(), 5.0)
        ]
    );
}

const PROFILE: &str = r#"{"name":"Profile","ph":"P","pid":1,"tid":1,"id":"0x1","ts":0,"args":{"data":{"startTime":100}}}"#;

fn chunk(nodes: &str, samples: &str, deltas: &str) -> String {
    format!(
        r#"{{"name":"ProfileChunk","ph":"P","pid":1,"tid":2,"id":"0x1","ts":1,"args":{{"data":{{"cpuProfile":{{"nodes":[{nodes}],"samples":[{samples}]}},"timeDeltas":[{deltas}]}}}}}}"#
    )
}

const ROOT: &str = r#"{"id":1,"callFrame":{"functionName":"(root)"}}"#;
const MAIN: &str =
    r#"{"id":2,"parent":1,"callFrame":{"functionName":"main","url":"a.js","lineNumber":4}}"#;

#[test]
fn chunks_of_a_bare_event_array_join_into_one_profile() {
    let text = format!(
        "[{PROFILE},{},{}]",
        chunk(ROOT, "1", "10"),
        chunk(MAIN, "2,2", "5,5")
    );
    let p = parse(&text).unwrap();
    assert_eq!(p.profile.tree.total(1), 3.0);
    // At 110, 115 and 120 µs: 5 µs each, the last one the mean interval.
    assert_eq!(p.profile.tree.total(0), 15_000.0);
    let main = p
        .profile
        .tree
        .node_ids()
        .find(|&n| name(&p, n) == "main")
        .unwrap();
    assert_eq!(p.profile.tree.self_value(main, 1), 2.0);
}

#[test]
fn faults_name_the_event_and_field() {
    let deltas = format!("[{PROFILE},{}]", chunk(ROOT, "1,1", "10"));
    let e = parse(&deltas).unwrap_err();
    assert_eq!(e.place.to_string(), "$[1].args.data.timeDeltas");
    assert!(e.message.contains("has 1 entries"), "{e}");

    let unknown = format!(
        "{{\"traceEvents\":[{PROFILE},{}]}}",
        chunk(ROOT, "1,7", "1,1")
    );
    let e = parse(&unknown).unwrap_err();
    assert_eq!(
        e.place.to_string(),
        "$.traceEvents[1].args.data.cpuProfile.samples[1]"
    );
    assert!(e.message.contains("node id 7"), "{e}");

    let orphan = r#"{"id":3,"parent":9,"callFrame":{"functionName":"x"}}"#;
    let e = parse(&format!(
        "[{PROFILE},{}]",
        chunk(&format!("{ROOT},{orphan}"), "1", "1")
    ))
    .unwrap_err();
    assert!(
        e.to_string().contains("$[1].args.data.cpuProfile.nodes[1]"),
        "{e}"
    );

    let wrong = r#"[{"name":"ProfileChunk","ph":"P","pid":1,"id":"0x1","args":{"data":{"cpuProfile":{"samples":"x"}}}}]"#;
    let e = parse(wrong).unwrap_err();
    assert_eq!(e.place.to_string(), "$[0]");
    assert!(e.message.contains("invalid type"), "{e}");

    let none = r#"{"traceEvents":[{"name":"a","ph":"X","ts":1,"pid":1,"tid":1}]}"#;
    let e = parse(none).unwrap_err();
    assert!(e.message.contains("no V8 CPU profile samples"), "{e}");
}

#[test]
fn a_truncated_trace_is_an_error_with_its_line() {
    let text = format!(
        "{{\"traceEvents\":[\n{PROFILE},\n{}]}}",
        chunk(ROOT, "1", "10")
    );
    for cut in (1..text.len()).step_by(7) {
        let Some(head) = text.get(..cut) else {
            continue;
        };
        assert!(parse(head).is_err(), "cut at {cut}");
    }
    let e = parse(&text[..text.len() / 2]).unwrap_err();
    assert!(e.to_string().starts_with("line "), "{e}");
}

#[test]
fn sniffing_claims_traces_and_leaves_cpuprofiles() {
    let sniff = |t: &str| {
        TraceEvents.sniff(&Input {
            file_name: "x.json",
            bytes: t.as_bytes(),
        })
    };
    assert!(sniff(&format!("[{PROFILE}]")));
    assert!(sniff(r#"{"traceEvents": [], "metadata": {}}"#));
    assert!(!sniff(r#"{"nodes": [], "samples": [], "traceEvents": []}"#));
    assert!(!sniff(
        r#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":0}"#
    ));
    assert!(!sniff("a;b 1\n"));
}

#[test]
fn garbage_never_panics() {
    let base = format!(
        "[{PROFILE},{}]",
        chunk(&format!("{ROOT},{MAIN}"), "1,2", "1,2")
    );
    let bytes = base.as_bytes();
    for i in 0..bytes.len() {
        let mut b = bytes.to_vec();
        b[i] = b[i].wrapping_add(13);
        let _ = TraceEvents.parse(&Input {
            file_name: "t",
            bytes: &b,
        });
    }
}

/// A trace gives the line of each sample (`lines`) instead of
/// `positionTicks`: counted by line for `sortMany` (read here with
/// serde_json alone, each sample's node looked up in its profile's
/// chunks), they are the line table's samples, and `sortMany`'s own cpu
/// is all on its lines (the whole function is on line 3).
#[test]
fn the_lines_of_samples_become_the_line_table() {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(&fixture()[..])
        .read_to_string(&mut text)
        .unwrap();
    let raw: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut names: HashMap<(String, String, i64), String> = HashMap::new();
    let mut expected: BTreeMap<u32, f64> = BTreeMap::new();
    for e in raw["traceEvents"].as_array().unwrap() {
        if e["name"] != "ProfileChunk" {
            continue;
        }
        let key = |id: &serde_json::Value| {
            (
                e["pid"].to_string(),
                e["id"].to_string(),
                id.as_i64().unwrap(),
            )
        };
        let data = &e["args"]["data"];
        for n in data["cpuProfile"]["nodes"].as_array().into_iter().flatten() {
            let name = n["callFrame"]["functionName"].as_str().unwrap();
            names.insert(key(&n["id"]), name.to_string());
        }
        let samples = data["cpuProfile"]["samples"]
            .as_array()
            .into_iter()
            .flatten();
        let lines = data["lines"].as_array().into_iter().flatten();
        for (s, line) in samples.zip(lines) {
            let line = line.as_u64().unwrap() as u32;
            if line > 0 && names[&key(s)] == "sortMany" {
                *expected.entry(line).or_default() += 1.0;
            }
        }
    }
    assert_eq!(expected, BTreeMap::from([(3, 6710.0)]));

    let (_, p) = crate::parse_bytes("busy-page.trace.json.gz", &fixture()).unwrap();
    let table = p.profile.line_self.as_ref().expect("a line table");
    let tree = &p.profile.tree;
    let sort_many = |n: NodeId| name(&p, n) == "sortMany";
    let mut parsed: BTreeMap<u32, f64> = BTreeMap::new();
    let mut cpu = 0.0;
    for (_, line, values) in table.iter().filter(|(n, _, _)| sort_many(*n)) {
        *parsed.entry(line).or_default() += values[1];
        cpu += values[0];
    }
    assert_eq!(parsed, expected);
    let own: f64 = tree
        .node_ids()
        .filter(|&n| sort_many(n))
        .map(|n| tree.self_value(n, 0))
        .sum();
    assert!(close(cpu, own), "{cpu} of {own}");
}
