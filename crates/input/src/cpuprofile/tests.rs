use super::*;
use model::error::Place;
use std::collections::BTreeMap;

fn parse(text: &str) -> Result<Parsed, ParseError> {
    CpuProfile.parse(&Input {
        file_name: "x.cpuprofile",
        bytes: text.as_bytes(),
    })
}

use crate::test_support::corpus;

fn function(p: &Parsed, node: NodeId) -> &str {
    &p.frames.get(p.profile.tree.frame(node).unwrap()).function
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn chrome_65_simple() {
    let Some(bytes) = corpus("speedscope/Chrome/65/simple.cpuprofile") else {
        return;
    };
    let input = Input {
        file_name: "simple.cpuprofile",
        bytes: &bytes,
    };
    assert!(CpuProfile.sniff(&input));
    let p = CpuProfile.parse(&input).unwrap();
    assert_eq!(p.profile.metrics[0].name, "cpu");
    // python3 -c "import json;d=json.load(open('simple.cpuprofile'));print(len(d['samples']), d['endTime']-d['startTime']-d['timeDeltas'][0])"
    // → 29 36317   (the last sample runs to endTime, so the total is endTime - first sample)
    assert_eq!(p.profile.tree.total(1), 29.0);
    assert!(
        close(p.profile.tree.total(0), 36317.0 * 1000.0),
        "{}",
        p.profile.tree.total(0)
    );
    // (root) is skipped: its only child, the anonymous script, is a root child.
    let roots = p.profile.tree.children(NodeId::ROOT);
    assert_eq!(roots.len(), 1);
    assert_eq!(function(&p, roots[0]), "(anonymous)");
    let a = p.profile.tree.children(roots[0])[0];
    assert_eq!(function(&p, a), "a");
    let fa = p.frames.get(p.profile.tree.frame(a).unwrap());
    assert_eq!((fa.file.as_deref(), fa.line), (None, Some(1)));
    let tl = p.profile.timeline.as_ref().unwrap();
    assert_eq!(tl.samples.len(), 29);
    assert_eq!(tl.samples[0].start_ns, 0.0);
    // timeDeltas[1] = 1060 µs
    assert_eq!(tl.samples[0].duration_ns, 1_060_000.0);
    assert_eq!(tl.samples[1].start_ns, 1_060_000.0);
    assert_eq!(function(&p, tl.samples[5].node), "d");
}

#[test]
fn chrome_65_sucrase() {
    let Some(bytes) = corpus("speedscope/Chrome/65/sucrase.cpuprofile") else {
        return;
    };
    let (name, p) = crate::parse_bytes("sucrase.cpuprofile", &bytes).unwrap();
    assert_eq!(name, "cpuprofile");
    // python3 -c "import json;d=json.load(open('sucrase.cpuprofile'));print(len(d['samples']), d['endTime']-d['startTime']-d['timeDeltas'][0])"
    // → 17138 22003906   (no negative deltas in this file; endTime is after the last sample)
    assert_eq!(p.profile.tree.total(1), 17138.0);
    assert!(
        close(p.profile.tree.total(0), 22003906.0 * 1000.0),
        "{}",
        p.profile.tree.total(0)
    );
    assert_eq!(p.profile.timeline.as_ref().unwrap().samples.len(), 17138);
    assert!(p.warnings.is_empty());
    let names: Vec<&str> = p
        .profile
        .tree
        .children(NodeId::ROOT)
        .iter()
        .map(|&n| function(&p, n))
        .collect();
    assert!(
        names.contains(&"(program)") && names.contains(&"(garbage collector)"),
        "{names:?}"
    );
}

#[test]
fn node_10_old_format() {
    let Some(bytes) = corpus("speedscope/node/10.11.0/example.cpuprofile") else {
        return;
    };
    let (name, p) = crate::parse_bytes("example.cpuprofile", &bytes).unwrap();
    assert_eq!(name, "cpuprofile");
    // python3 -c "import json;d=json.load(open('example.cpuprofile'));t=d['timestamps'];print(len(d['samples']),len(t),t[-1]-t[0])"
    // → 29 30 45920   (30 timestamps: the last one ends the last sample)
    assert_eq!(p.profile.tree.total(1), 29.0);
    assert!(
        close(p.profile.tree.total(0), 45920.0 * 1000.0),
        "{}",
        p.profile.tree.total(0)
    );
    let roots = p.profile.tree.children(NodeId::ROOT);
    assert_eq!(function(&p, p.profile.tree.children(roots[0])[0]), "a");
}

#[test]
fn trace_event_object_with_multibyte_text_at_the_window_edge_is_left_to_chrome_trace() {
    let mut text = String::from("{\"traceEvents\": [{\"name\": \"");
    while text.len() < 4095 {
        text.push('a');
    }
    text.push_str("éé\"}], \"nodes\": []}");
    let input = Input {
        file_name: "t.json",
        bytes: text.as_bytes(),
    };
    assert!(!CpuProfile.sniff(&input));
    let e = CpuProfile.parse(&input).unwrap_err();
    assert_eq!(e.message, TRACE_EVENTS_MESSAGE);
}

#[test]
fn chrome_trace_events_are_read_as_chrome_trace() {
    let Some(bytes) = corpus("speedscope/Chrome/116/Trace-20230603T221323.json") else {
        return;
    };
    let (format, _) = crate::parse_bytes("Trace.json", &bytes).unwrap();
    assert_eq!(format, "chrome-trace");
    let e = parse(r#"[{"ph":"X","ts":1,"name":"a"}]"#).unwrap_err();
    assert_eq!(e.message, TRACE_EVENTS_MESSAGE);
}

#[test]
fn call_frames_keep_the_column_where_their_function_starts() {
    // As node --cpu-prof wrote a minified esbuild bundle (tests/fixtures/
    // bundle-move-minified): `function c(n){…}function i(n){…}` on one
    // line, V8's columns at each parameter list.
    let p = parse(
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
            {"id":2,"callFrame":{"functionName":"c","url":"file:///t.js","lineNumber":0,"columnNumber":10},"hitCount":3},
            {"id":3,"callFrame":{"functionName":"i","url":"file:///t.js","lineNumber":0,"columnNumber":227},"hitCount":1}]}"#,
    )
    .unwrap();
    let at = |k: usize| {
        let node = p.profile.tree.children(NodeId::ROOT)[k];
        let f = p.frames.get(p.profile.tree.frame(node).unwrap());
        (f.function.clone(), f.start_line, f.start_column)
    };
    assert_eq!(at(0), ("c".to_string(), Some(1), Some(11)));
    assert_eq!(at(1), ("i".to_string(), Some(1), Some(228)));
}

#[test]
fn hit_counts_without_samples() {
    let p = parse(
        r#"{"nodes":[{"id":10,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[7]},
            {"id":7,"callFrame":{"functionName":"main","url":"file:///a.js","lineNumber":4},"hitCount":3,"children":[3]},
            {"id":3,"callFrame":{"functionName":"","url":"","lineNumber":0},"hitCount":2}]}"#,
    )
    .unwrap();
    assert_eq!(
        p.profile.metrics,
        vec![Metric::new("samples", Unit::Samples)]
    );
    assert_eq!(p.profile.tree.total(0), 5.0);
    let main = p.profile.tree.children(NodeId::ROOT)[0];
    let f = p.frames.get(p.profile.tree.frame(main).unwrap());
    assert_eq!(
        (f.function.as_str(), f.file.as_deref(), f.line),
        ("main", Some("file:///a.js"), Some(5))
    );
    assert!(p.profile.timeline.is_none());
}

#[test]
fn unknown_child_id_is_an_error_with_its_path() {
    let e = parse(r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{},"children":[5]}]}"#)
        .unwrap_err();
    assert_eq!(e.place, Place::Json("$.nodes[1].children[0]".into()));
    assert!(e.message.contains("5"), "{e}");
}

#[test]
fn cycles_are_errors_with_their_path() {
    let e = parse(r#"{"nodes":[{"id":1,"callFrame":{},"children":[1]}]}"#).unwrap_err();
    assert_eq!(e.place, Place::Json("$.nodes[0].children[0]".into()));
    assert!(e.message.contains("cycle"), "{e}");
    // 2 → 3 → 4 → 2, hanging apart from the root 1.
    let e = parse(
        r#"{"nodes":[{"id":1,"callFrame":{}},{"id":2,"callFrame":{},"children":[3]},
            {"id":3,"callFrame":{},"children":[4]},{"id":4,"callFrame":{},"children":[2]}]}"#,
    )
    .unwrap_err();
    assert!(
        matches!(&e.place, Place::Json(p) if p.starts_with("$.nodes[") && p.contains(".children[0]")),
        "{e}"
    );
    assert!(e.message.contains("cycle"), "{e}");
    // A child listed under two parents.
    let e = parse(r#"{"nodes":[{"id":1,"callFrame":{},"children":[2,3]},{"id":2,"callFrame":{},"children":[3]},{"id":3,"callFrame":{}}]}"#)
        .unwrap_err();
    assert_eq!(e.place, Place::Json("$.nodes[1].children[0]".into()));
}

#[test]
fn bad_sample_ids_and_lengths_are_errors() {
    let e = parse(r#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":0,"endTime":5,"samples":[1,9],"timeDeltas":[1,1]}"#)
        .unwrap_err();
    assert_eq!(e.place, Place::Json("$.samples[1]".into()));
    let e = parse(
        r#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":0,"samples":[1,1],"timeDeltas":[1]}"#,
    )
    .unwrap_err();
    assert_eq!(e.place, Place::Json("$.timeDeltas".into()));
    let e = parse(r#"{"nodes":[{"id":1,"callFrame":{}}],"samples":["x"]}"#).unwrap_err();
    assert_eq!(e.place, Place::Line(1));
    assert!(e.message.starts_with("column "), "{e}");
}

#[test]
fn last_sample_uses_mean_when_end_time_is_missing_and_negative_deltas_are_sorted() {
    let p = parse(
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2,3]},{"id":2,"callFrame":{"functionName":"a"}},{"id":3,"callFrame":{"functionName":"b"}}],
            "startTime":100,"samples":[2,3,2],"timeDeltas":[0,30,-10]}"#,
    )
    .unwrap();
    // times 100, 130, 120 → sorted 100(a), 120(a), 130(b); b gets the mean 15.
    assert_eq!(p.profile.tree.total(0), (20.0 + 10.0 + 15.0) * 1000.0);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(
        p.profile.notes,
        ["$.timeDeltas: 1 sample(s) go back in time; samples were put in time order, as Chrome DevTools does"]
    );
    let tl = &p.profile.timeline.as_ref().unwrap().samples;
    assert_eq!(
        tl.iter().map(|s| s.start_ns).collect::<Vec<_>>(),
        vec![0.0, 20_000.0, 30_000.0]
    );
}

#[test]
fn a_100000_deep_chain_does_not_overflow() {
    let n = 100_000;
    let mut s = String::from(r#"{"nodes":["#);
    for i in 1..=n {
        if i > 1 {
            s.push(',');
        }
        if i < n {
            s.push_str(&format!(
                r#"{{"id":{i},"callFrame":{{"functionName":"f{i}"}},"children":[{}]}}"#,
                i + 1
            ));
        } else {
            s.push_str(&format!(
                r#"{{"id":{i},"callFrame":{{"functionName":"f{i}"}},"hitCount":1}}"#
            ));
        }
    }
    s.push_str("]}");
    let p = parse(&s).unwrap();
    assert_eq!(p.profile.tree.len(), n + 1);
    assert_eq!(p.profile.tree.total(0), 1.0);
    // A chain closed into a loop deep down is still found.
    let looped = s.replacen(r#""hitCount":1"#, r#""children":[50000]"#, 1);
    let e = parse(&looped).unwrap_err();
    assert!(e.message.contains("cycle"), "{e}");
    // The old nested format is bounded by serde_json's depth limit: an error, not a crash.
    let mut old = String::from(r#"{"head":"#);
    for i in 0..10_000 {
        old.push_str(&format!(r#"{{"id":{i},"hitCount":1,"children":["#));
    }
    old.push_str(&"]}".repeat(10_000));
    old.push('}');
    assert!(parse(&old).is_err());
}

#[test]
fn sniffing() {
    let yes = |s: &str| {
        CpuProfile.sniff(&Input {
            file_name: "x",
            bytes: s.as_bytes(),
        })
    };
    assert!(yes(r#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":1}"#));
    assert!(!yes(
        r#"{"$schema":"https://www.speedscope.app/file-format-schema.json","nodes":[],"samples":[]}"#
    ));
    assert!(!yes(
        r#"{"head":{"callFrame":{},"selfSize":0,"children":[]}}"#
    ));
    assert!(!yes("a;b 1\n"));
}

#[test]
fn garbage_never_panics() {
    for s in [
        "{",
        "{}",
        "[]",
        "null",
        r#"{"nodes":[]}"#,
        r#"{"nodes":[{"id":1}],"samples":[1],"timeDeltas":[1e308,1e308]}"#,
        r#"{"nodes":[{"id":1,"hitCount":-1}]}"#,
        r#"{"nodes":[{"id":1,"parent":1}]}"#,
        r#"{"nodes":[{"id":1},{"id":1}]}"#,
    ] {
        let _ = parse(s);
    }
}

/// `node --cpu-prof` (node 20) on marked 4.0.0: the positionTicks of
/// `list`, added up by line over its V8 nodes as DevTools' Sources panel
/// does (read here with serde_json alone), are the sample counts of the
/// profile's line table; the function stays one frame at its first line.
#[test]
fn position_ticks_are_the_line_samples_devtools_shows() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/first-contact/4.0.0/cpu-1.cpuprofile"
    );
    let bytes = std::fs::read(path).unwrap();
    let url = "file:///tmp/fc-work/4.0.0/node_modules/marked/lib/marked.cjs";
    let raw: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let mut expected: BTreeMap<u32, f64> = BTreeMap::new();
    for node in raw["nodes"].as_array().unwrap() {
        let frame = &node["callFrame"];
        if frame["functionName"] != "list" || frame["url"] != url {
            continue;
        }
        for t in node["positionTicks"].as_array().into_iter().flatten() {
            *expected
                .entry(t["line"].as_u64().unwrap() as u32)
                .or_default() += t["ticks"].as_f64().unwrap();
        }
    }
    assert_eq!(expected.values().sum::<f64>(), 329.0);
    assert_eq!(expected[&568], 290.0, "list's hot line");

    let p = parse(std::str::from_utf8(&bytes).unwrap()).unwrap();
    let list: Vec<(model::FrameId, &Frame)> = p
        .frames
        .iter()
        .filter(|(_, f)| f.function == "list" && f.file.as_deref() == Some(url))
        .collect();
    assert_eq!(
        list.len(),
        1,
        "one frame for the function, whatever its lines"
    );
    let (list, frame) = list[0];
    assert_eq!(frame.line, Some(534), "where list starts (lineNumber 533)");
    let tree = &p.profile.tree;
    let table = p.profile.line_self.as_ref().expect("a line table");
    let mut parsed: BTreeMap<u32, f64> = BTreeMap::new();
    for (node, line, values) in table.iter() {
        if tree.frame(node) == Some(list) {
            *parsed.entry(line).or_default() += values[1];
        }
    }
    assert_eq!(parsed, expected);
    // Every tick has a line: each node's own cpu is all on its lines.
    for node in tree.node_ids().filter(|&n| tree.frame(n) == Some(list)) {
        let on_lines: f64 = table.lines_of(node).map(|(_, v)| v[0]).sum();
        assert!(close(on_lines, tree.self_value(node, 0)), "{node:?}");
    }
}

/// One function under one caller in two V8 nodes (its code before and
/// after optimisation) joins one tree node; each node's cpu is split by
/// its own ticks. Ticks short of a node's samples leave the rest to the
/// function's line; ticks beyond them are scaled down to them.
#[test]
fn each_node_splits_its_own_self_by_its_own_ticks() {
    let p = parse(
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1},"children":[2,3,4,5]},
            {"id":2,"callFrame":{"functionName":"f","url":"a.js","lineNumber":4},"positionTicks":[{"line":6,"ticks":2},{"line":7,"ticks":1}]},
            {"id":3,"callFrame":{"functionName":"f","url":"a.js","lineNumber":4},"positionTicks":[{"line":7,"ticks":1}]},
            {"id":4,"callFrame":{"functionName":"g","url":"a.js","lineNumber":19},"positionTicks":[{"line":21,"ticks":1}]},
            {"id":5,"callFrame":{"functionName":"h","url":"a.js","lineNumber":29},"positionTicks":[{"line":31,"ticks":4}]}],
          "startTime":0,"endTime":140,"samples":[2,2,2,3,4,4,5,5],"timeDeltas":[0,10,10,10,70,10,10,10]}"#,
    )
    .unwrap();
    let tree = &p.profile.tree;
    let table = p.profile.line_self.as_ref().unwrap();
    let lines = |k: usize| {
        let node = tree.children(NodeId::ROOT)[k];
        let lines: Vec<(u32, Vec<f64>)> =
            table.lines_of(node).map(|(l, v)| (l, v.to_vec())).collect();
        (function(&p, node).to_string(), lines)
    };
    assert_eq!(tree.children(NodeId::ROOT).len(), 3, "f is one node");
    // f: node 2 has 30 µs in 3 samples, node 3 70 µs in 1.
    assert_eq!(
        lines(0),
        (
            "f".into(),
            vec![(6, vec![20_000.0, 2.0]), (7, vec![80_000.0, 2.0])]
        )
    );
    // g: 1 tick of 2 samples.
    assert_eq!(lines(1), ("g".into(), vec![(21, vec![20_000.0, 1.0])]));
    // h: 4 ticks of 2 samples.
    assert_eq!(lines(2), ("h".into(), vec![(31, vec![20_000.0, 2.0])]));
}

#[test]
fn bad_ticks_are_errors_with_their_path_and_odd_lines_are_no_lines() {
    let e = parse(
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"f"},"hitCount":2,"positionTicks":[{"line":3,"ticks":-1}]}]}"#,
    )
    .unwrap_err();
    assert_eq!(
        e.place,
        Place::Json("$.nodes[0].positionTicks[0].ticks".into())
    );
    let p = parse(
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"f"},"hitCount":4,"positionTicks":[{"line":0,"ticks":1},{"line":2.5e12,"ticks":1},{"line":3,"ticks":2}]}]}"#,
    )
    .unwrap();
    let table = p.profile.line_self.unwrap();
    let entries: Vec<(u32, Vec<f64>)> = table.iter().map(|(_, l, v)| (l, v.to_vec())).collect();
    assert_eq!(entries, [(3, vec![2.0])]);
    // Without positionTicks there is no table.
    let p = parse(r#"{"nodes":[{"id":1,"callFrame":{"functionName":"f"},"hitCount":4}]}"#).unwrap();
    assert!(p.profile.line_self.is_none());
}
