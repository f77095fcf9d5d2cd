//! Tests on real recordings (tests/fixtures/jfr/, see its README, and the
//! shared corpus) and on small hand-made documents for the odd cases.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::*;
use crate::test_support::corpus;
use crate::{load::read_and_parse, parse_bytes};
use model::error::Place;

fn fixture(name: &str) -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/jfr")
        .join(name)
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The fixture's JSON, read independently of the parser.
fn fixture_json(name: &str) -> Value {
    let bytes = crate::text::gunzip(&fixture_bytes(name)).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

fn events_of<'a>(json: &'a Value, kind: &str) -> Vec<&'a Value> {
    json["recording"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == kind)
        .collect()
}

/// The `jfr` tool, or `None` with a note (a failure under CI, which
/// installs a JDK).
fn jfr_tool() -> Option<PathBuf> {
    let found = tool::find_jfr(std::env::var_os("PATH"), std::env::var_os("JAVA_HOME"));
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the JDK's `jfr` is needed under CI"
        );
        eprintln!("note: `jfr` is not on PATH; binary-recording test skipped");
    }
    found
}

/// 1-based line of the first line of Alloc.java containing `text`.
fn java_line(text: &str) -> u32 {
    let source = std::fs::read_to_string(fixture("capture/Alloc.java")).unwrap();
    let i = source
        .lines()
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("{text} not in Alloc.java"));
    i as u32 + 1
}

fn parse(json: &str) -> Result<Parsed, ParseError> {
    parse_json(json.as_bytes())
}

fn function(p: &Parsed, node: NodeId) -> &str {
    &p.frames.get(p.profile.tree.frame(node).unwrap()).function
}

fn frame(p: &Parsed, node: NodeId) -> &Frame {
    p.frames.get(p.profile.tree.frame(node).unwrap())
}

fn alloc(p: &Parsed) -> &Allocations {
    p.profile.allocations.as_deref().expect("allocations")
}

/// The sites of class `name`: (allocating frame, count, bytes).
fn sites_of<'a>(p: &'a Parsed, name: &str) -> Vec<(&'a Frame, f64, f64)> {
    let a = alloc(p);
    let class = a
        .classes
        .iter()
        .position(|c| c == name)
        .unwrap_or(usize::MAX);
    a.sites
        .iter()
        .filter(|s| s.class as usize == class)
        .map(|s| (frame(p, s.node), s.count, s.bytes))
        .collect()
}

/// A one-event document; `values` is the inside of `"values": {…}`.
fn one_event(kind: &str, values: &str) -> String {
    format!(r#"{{"recording": {{"events": [{{"type": "{kind}", "values": {{{values}}}}}]}}}}"#)
}

const FRAMES: &str = r#""stackTrace": {"truncated": false, "frames": [
    {"method": {"type": {"name": "shapes/Canvas"}, "name": "newCircle"}, "lineNumber": 60},
    {"method": {"type": {"name": "shapes/Alloc"}, "name": "main"}, "lineNumber": 17}]}"#;

#[test]
fn the_fixture_recording_shows_every_sample_class_and_byte() {
    let json = fixture_json("alloc.json.gz");
    let events = events_of(&json, events::SAMPLE);
    let weight: f64 = events
        .iter()
        .map(|e| e["values"]["weight"].as_f64().unwrap())
        .sum();
    // gzip is undone by the loader; content picks the format.
    let (format, p) = parse_bytes("alloc.json.gz", &fixture_bytes("alloc.json.gz")).unwrap();
    assert_eq!(format, "jfr");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(
        p.profile.metrics,
        [
            Metric::new("alloc_samples", Unit::Samples),
            Metric::new("alloc_weight", Unit::Bytes)
        ]
    );
    assert_eq!(p.profile.tree.total(0), events.len() as f64);
    assert_eq!(p.profile.tree.total(1), weight);
    let a = alloc(&p);
    assert_eq!(a.totals(), (events.len() as f64, weight));
    assert_eq!(a.count_kind, CountKind::Samples);
    assert_eq!(a.class_source, ClassSource::Recorded);
    assert!(a.bytes_known && a.call_order);
    assert_eq!(a.bytes_note.as_deref(), Some(WEIGHT_NOTE));
    for class in ["shapes.Circle", "shapes.Box", "byte[]", "java.lang.String"] {
        assert!(
            a.classes.iter().any(|c| c == class),
            "{class}: {:?}",
            a.classes
        );
    }
    assert!(!a
        .classes
        .iter()
        .any(|c| c.contains('/') || c.starts_with('[')));
    // Each class at the method and line of Alloc.java that allocates it.
    for (class, method, new) in [
        ("shapes.Circle", "shapes.Canvas.newCircle", "new Circle("),
        ("shapes.Box", "shapes.Canvas.newBox", "new Box("),
        ("byte[]", "shapes.Canvas.render", "new byte["),
    ] {
        let sites = sites_of(&p, class);
        let here: Vec<_> = sites.iter().filter(|s| s.0.function == method).collect();
        assert!(!here.is_empty(), "{class}: {sites:?}");
        for (f, count, _) in here {
            assert!(*count >= 1.0, "{f:?}");
        }
        // The allocating line is in the line table, the method one frame.
        let table = p.profile.line_self.as_ref().expect("a line table");
        let a = alloc(&p);
        let class_id = a.classes.iter().position(|c| c == class).unwrap() as u32;
        for site in a.sites.iter().filter(|s| s.class == class_id) {
            if frame(&p, site.node).function != method {
                continue;
            }
            let lines: Vec<u32> = table.lines_of(site.node).map(|(l, _)| l).collect();
            assert_eq!(lines, [java_line(new)], "{class}");
        }
    }
}

#[test]
fn children_come_in_call_order() {
    let (_, p) = parse_bytes("alloc.json.gz", &fixture_bytes("alloc.json.gz")).unwrap();
    let tree = &p.profile.tree;
    // main calls the four phases from four lines, one after the other:
    // one box for main (its lines are not names), the phases in call order.
    let mains: Vec<NodeId> = tree
        .children(NodeId::ROOT)
        .iter()
        .copied()
        .filter(|&n| function(&p, n) == "shapes.Alloc.main")
        .collect();
    assert_eq!(mains.len(), 1, "one frame per method");
    let callees: Vec<&str> = tree
        .children(mains[0])
        .iter()
        .map(|&n| function(&p, n))
        .collect();
    assert_eq!(
        callees,
        [
            "shapes.Canvas.drawCircles",
            "shapes.Canvas.drawBoxes",
            "shapes.Canvas.render",
            "shapes.Canvas.label"
        ]
    );
}

#[test]
fn events_are_ordered_by_parsed_time_not_by_text_or_file_order() {
    // Written out of order, in three shapes and two offsets: b (18:00:00Z)
    // comes first, then a (19:30+01:00 = 18:30Z), then c (18:45:00.5Z).
    let event = |time: &str, method: &str| {
        format!(
            r#"{{"type": "jdk.ObjectAllocationSample", "values": {{"startTime": "{time}",
                "objectClass": {{"name": "[B"}}, "weight": 8, "stackTrace": {{"frames": [
                {{"method": {{"type": {{"name": "p/C"}}, "name": "{method}"}}, "lineNumber": 3}}]}}}}}}"#
        )
    };
    let doc = format!(
        r#"{{"recording": {{"events": [{}, {}, {}]}}}}"#,
        event("2024-01-01T19:30+01:00", "a"),
        event("2024-01-01T18:45:00.5Z", "c"),
        event("2024-01-01T18:00:00Z", "b"),
    );
    let p = parse(&doc).unwrap();
    let order: Vec<&str> = p
        .profile
        .tree
        .children(NodeId::ROOT)
        .iter()
        .map(|&n| function(&p, n))
        .collect();
    assert_eq!(order, ["p.C.b", "p.C.a", "p.C.c"]);
}

#[test]
fn tlab_events_count_allocation_sizes_without_a_weight_note() {
    let json = fixture_json("tlab.json.gz");
    let events = events_of(&json, events::IN_NEW_TLAB);
    assert!(!events.is_empty());
    let bytes: f64 = events
        .iter()
        .map(|e| e["values"]["allocationSize"].as_f64().unwrap())
        .sum();
    let (format, p) = parse_bytes("tlab.json.gz", &fixture_bytes("tlab.json.gz")).unwrap();
    assert_eq!(format, "jfr");
    assert_eq!(
        p.profile.metrics[1],
        Metric::new("alloc_bytes", Unit::Bytes)
    );
    assert_eq!(p.profile.tree.total(0), events.len() as f64);
    assert_eq!(p.profile.tree.total(1), bytes);
    let a = alloc(&p);
    assert_eq!(a.bytes_note, None);
    let circles = sites_of(&p, "shapes.Circle");
    assert!(circles
        .iter()
        .any(|(f, _, _)| f.function == "shapes.Canvas.newCircle"
            && f.line == Some(java_line("new Circle("))));
}

#[test]
fn samples_win_over_tlab_events_of_the_same_recording() {
    let doc = format!(
        r#"{{"recording": {{"events": [
            {{"type": "jdk.ObjectAllocationInNewTLAB", "values": {{"startTime": "2024-01-01T00:00Z",
              "objectClass": {{"name": "java/lang/Object"}}, "allocationSize": 16, "tlabSize": 512, {FRAMES}}}}},
            {{"type": "jdk.ObjectAllocationSample", "values": {{"startTime": "2024-01-01T00:00:01Z",
              "objectClass": {{"name": "shapes/Circle"}}, "weight": 1000, {FRAMES}}}}}]}}}}"#
    );
    let p = parse(&doc).unwrap();
    assert_eq!(p.profile.tree.total(1), 1000.0);
    assert_eq!(alloc(&p).classes, ["shapes.Circle"]);
    // Read whole: a remark, not a part skipped.
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.profile.notes.len(), 1);
    assert!(
        p.profile.notes[0].contains("1 TLAB allocation event ("),
        "{:?}",
        p.profile.notes
    );
}

#[test]
fn a_recording_without_allocation_events_says_how_to_record_them() {
    let json: Value = serde_json::from_slice(&fixture_bytes("thread-allocation-statistics.json"))
        .expect("fixture");
    let n = events_of(&json, "jdk.ThreadAllocationStatistics").len();
    let e = parse_bytes(
        "t.json",
        &fixture_bytes("thread-allocation-statistics.json"),
    )
    .unwrap_err();
    assert_eq!(e.place, Place::Whole);
    assert!(
        e.message.starts_with(
            "no allocation events (jdk.ObjectAllocationSample) in this recording \
             (it has only jdk.ThreadAllocationStatistics ×"
        ),
        "{e}"
    );
    assert!(e.message.contains(&format!("×{n})")), "{e}");
    assert!(e.message.contains("-XX:StartFlightRecording"), "{e}");
    let e = parse(r#"{"recording": {"events": []}}"#).unwrap_err();
    assert!(e.message.contains("(it has no events at all)"), "{e}");
}

#[test]
fn a_cut_off_file_is_an_error_at_its_line() {
    let text = crate::text::gunzip(&fixture_bytes("alloc.json.gz")).unwrap();
    let half = &text[..text.len() / 2];
    let lines = half.iter().filter(|&&b| b == b'\n').count() + 1;
    let e = parse_bytes("alloc.json", half).unwrap_err();
    assert_eq!(e.place, Place::Line(lines), "{e}");
    assert!(e.message.contains("EOF"), "{e}");
}

#[test]
fn missing_and_cut_stacks_are_shown_as_such() {
    let doc = r#"{"recording": {"events": [
            {"type": "jdk.ObjectAllocationSample", "values": {"startTime": "2024-01-01T00:00Z",
              "objectClass": {"name": "java/lang/String"}, "weight": 5, "stackTrace": null}},
            {"type": "jdk.ObjectAllocationSample", "values": {"startTime": "2024-01-01T00:01Z",
              "objectClass": {"name": "[I"}, "weight": 7, "stackTrace": {"truncated": true, "frames": [
                {"method": {"type": {"name": "p/Deep"}, "name": "leaf"}, "lineNumber": 9},
                {"method": {"type": {"name": "p/Deep"}, "name": "caller"}, "lineNumber": -1}]}}}]}}"#;
    let p = parse(doc).unwrap();
    let tree = &p.profile.tree;
    let roots = tree.children(NodeId::ROOT);
    assert_eq!(function(&p, roots[0]), NO_STACK);
    assert_eq!(tree.self_value(roots[0], 1), 5.0);
    assert_eq!(function(&p, roots[1]), TRUNCATED_STACK);
    let caller = tree.children(roots[1])[0];
    assert_eq!(
        (function(&p, caller), frame(&p, caller).line),
        ("p.Deep.caller", None)
    );
    let leaf = tree.children(caller)[0];
    assert_eq!(
        (function(&p, leaf), frame(&p, leaf).line),
        ("p.Deep.leaf", Some(9))
    );
    assert_eq!(sites_of(&p, "int[]"), [(frame(&p, leaf), 1.0, 7.0)]);
    assert_eq!(sites_of(&p, "java.lang.String")[0].0.function, NO_STACK);
}

#[test]
fn a_bad_event_is_skipped_with_its_json_path() {
    let good = format!(
        r#""startTime": "2024-01-01T00:00Z", "objectClass": {{"name": "A"}}, "weight": 1, {FRAMES}"#
    );
    let cases = [
        (
            r#""startTime": "2024-01-01T00:00Z", "weight": 1"#,
            "objectClass",
            "missing",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": "A"}, "weight": -3"#,
            "weight",
            "-3",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": "A"}, "weight": "9""#,
            "weight",
            "the string \"9\"",
        ),
        (
            r#""startTime": "yesterday", "objectClass": {"name": "A"}, "weight": 1"#,
            "startTime",
            "\"yesterday\"",
        ),
        (
            r#""objectClass": {"name": "A"}, "weight": 1"#,
            "startTime",
            "missing",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": 5}, "weight": 1"#,
            "objectClass.name",
            "the number 5",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": "A", "weight": 1"#,
            "objectClass",
            "the string",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": "A"}, "weight": 1, "stackTrace": {"frames": 3}"#,
            "stackTrace.frames",
            "the number 3",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": "A"}, "weight": 1, "stackTrace": {"truncated": "no", "frames": []}"#,
            "stackTrace.truncated",
            "the string",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": "A"}, "weight": 1, "stackTrace": {"frames": [{"method": {"name": "m", "type": {"name": "T"}}}, {"lineNumber": 2}]}"#,
            "stackTrace.frames[1].method",
            "missing",
        ),
        (
            r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": "A"}, "weight": 1, "stackTrace": {"frames": [{"method": {"name": "m", "type": {"name": "T"}}, "lineNumber": "7"}]}"#,
            "stackTrace.frames[0].lineNumber",
            "the string",
        ),
    ];
    for (bad, field, said) in cases {
        let doc = format!(
            r#"{{"recording": {{"events": [
                {{"type": "jdk.ObjectAllocationSample", "values": {{{good}}}}},
                {{"type": "jdk.ObjectAllocationSample", "values": {{{bad}}}}}]}}}}"#
        );
        let p = parse(&doc).unwrap_or_else(|e| panic!("{bad}: {e}"));
        assert_eq!(p.profile.tree.total(0), 1.0, "{bad}");
        assert_eq!(p.warnings.len(), 1, "{bad}");
        let w = &p.warnings[0];
        assert_eq!(
            w.place,
            Place::Json(format!("$.recording.events[1].values.{field}")),
            "{bad}: {w}"
        );
        assert!(w.message.contains(said), "{bad}: {w}");
        // Alone, the bad event leaves nothing: an error at the same place.
        let e = parse(&one_event(events::SAMPLE, bad)).unwrap_err();
        assert_eq!(
            e.place,
            Place::Json(format!("$.recording.events[0].values.{field}"))
        );
        assert!(
            e.message
                .starts_with("no readable allocation event: 1 skipped"),
            "{e}"
        );
    }
    // An event whose type or values are not what JFR writes.
    let doc = r#"{"recording": {"events": [{"type": 3}, {"type": "jdk.ObjectAllocationSample", "values": []}]}}"#;
    let e = parse(doc).unwrap_err();
    assert_eq!(e.place, Place::Json("$.recording.events[0].type".into()));
}

#[test]
fn warnings_are_bounded() {
    let bad = r#"{"type": "jdk.ObjectAllocationSample", "values": {"weight": 1}}"#;
    let good = format!(
        r#"{{"type": "jdk.ObjectAllocationSample", "values": {{"startTime": "2024-01-01T00:00Z", "objectClass": {{"name": "A"}}, "weight": 1, {FRAMES}}}}}"#
    );
    let mut events = vec![bad; 250];
    events.push(&good);
    let doc = format!(r#"{{"recording": {{"events": [{}]}}}}"#, events.join(","));
    let p = parse(&doc).unwrap();
    assert_eq!(p.warnings.len(), MAX_WARNINGS + 1);
    assert!(
        p.warnings[MAX_WARNINGS]
            .message
            .starts_with("150 more events were skipped"),
        "{}",
        p.warnings[MAX_WARNINGS]
    );
}

#[test]
fn documents_that_are_not_recordings_fail_with_a_place() {
    for (doc, place) in [
        (r#"{"foo": 1}"#, Place::Json("$".into())),
        (
            r#"{"recording": {"chunks": []}}"#,
            Place::Json("$.recording".into()),
        ),
        (r#"{"recording": 5}"#, Place::Line(1)),
        (r#"{"recording": {"events": {}}}"#, Place::Line(1)),
        ("[]", Place::Line(1)),
        (r#"{"recording": {"events": []}} trailing"#, Place::Line(1)),
    ] {
        let e = parse(doc).unwrap_err();
        assert_eq!(e.place, place, "{doc}: {e}");
    }
    let e = parse(r#"{"recording": 5}"#).unwrap_err();
    assert!(e.message.contains("`recording` to be an object"), "{e}");
}

#[test]
fn hostile_names_stay_visible_text() {
    let doc = one_event(
        events::SAMPLE,
        r#""startTime": "2024-01-01T00:00Z", "objectClass": {"name": "</script><svg onload=alert(1)>"},
           "weight": 1, "stackTrace": {"frames": [{"method": {"type": {"name": "evil/K\u0000\u001b[31m"},
           "name": "<img src=x onerror=alert(2)>"}, "lineNumber": 1}]}"#,
    );
    let p = parse(&doc).unwrap();
    assert_eq!(alloc(&p).classes, ["</script><svg onload=alert(1)>"]);
    let leaf = p.profile.tree.children(NodeId::ROOT)[0];
    // The NUL and ESC shown as control pictures; markup kept as text (the
    // class name is not an internal name, so its slashes stay).
    assert_eq!(
        function(&p, leaf),
        "evil/K\u{2400}\u{241b}[31m.<img src=x onerror=alert(2)>"
    );
}

#[test]
fn stacks_cut_by_jfr_print_get_a_warning() {
    let frame = r#"{"method": {"type": {"name": "p/C"}, "name": "m"}, "lineNumber": 1}"#;
    let doc = |depth: usize| {
        one_event(
            events::SAMPLE,
            &format!(
                r#""startTime": "2024-01-01T00:00Z", "objectClass": {{"name": "A"}}, "weight": 1,
                   "stackTrace": {{"truncated": false, "frames": [{}]}}"#,
                vec![frame; depth].join(",")
            ),
        )
    };
    let p = parse(&doc(5)).unwrap();
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.profile.notes.len(), 1);
    assert!(
        p.profile.notes[0].contains("--stack-depth"),
        "{:?}",
        p.profile.notes
    );
    assert!(parse(&doc(4)).unwrap().profile.notes.is_empty());
    assert!(parse(&doc(6)).unwrap().profile.notes.is_empty());
}

#[test]
fn sniffing() {
    let yes = |bytes: &[u8]| {
        Jfr.sniff(&Input {
            file_name: "x",
            bytes,
        })
    };
    assert!(yes(&fixture_bytes("thread-allocation-statistics.json")));
    assert!(yes(
        &crate::text::gunzip(&fixture_bytes("alloc.json.gz")).unwrap()
    ));
    assert!(yes(&fixture_bytes("alloc.jfr")));
    assert!(yes(b"{\"recording\": {\n  \"events\": []\n  }\n}"));
    assert!(!yes(
        br#"{"nodes":[{"id":1,"callFrame":{}}],"startTime":1}"#
    ));
    assert!(!yes(br#"{"recording": {"events": [{"type": "x"}]}}"#));
    assert!(!yes(b"FLR"));
    assert!(!yes(b"a;b 1\n"));
}

#[test]
fn binary_bytes_without_a_path_say_how_to_convert() {
    // Gzipped, or handed over as bytes: the `jfr` tool needs the file.
    let e = parse_bytes("alloc.jfr", &fixture_bytes("alloc.jfr")).unwrap_err();
    assert_eq!(e.place, Place::Whole);
    assert!(e.message.starts_with("binary JFR recording"), "{e}");
    assert!(e.message.contains(CONVERT), "{e}");
}

#[test]
fn without_the_tool_a_binary_recording_is_a_clear_error() {
    let e = tool::read_with(None, &fixture("alloc.jfr")).unwrap_err();
    assert!(
        e.message.starts_with(
            "binary JFR recording, but the JDK's `jfr` tool is not on PATH nor in $JAVA_HOME/bin"
        ),
        "{e}"
    );
    assert!(e.message.contains(CONVERT), "{e}");
    // PATH first, then JAVA_HOME/bin.
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(bin.join("jfr"), "").unwrap();
    let empty = tempfile::tempdir().unwrap();
    let home = Some(dir.path().as_os_str().to_owned());
    let path = Some(empty.path().as_os_str().to_owned());
    assert_eq!(tool::find_jfr(path.clone(), None), None);
    assert_eq!(tool::find_jfr(path, home), Some(bin.join("jfr")));
    let both = std::env::join_paths([empty.path(), bin.as_path()]).unwrap();
    assert_eq!(tool::find_jfr(Some(both), None), Some(bin.join("jfr")));
}

#[test]
fn the_binary_fixture_reads_like_its_json() {
    let Some(jfr) = jfr_tool() else { return };
    let json = fixture_json("alloc.json.gz");
    let events = events_of(&json, events::SAMPLE);
    let weight: f64 = events
        .iter()
        .map(|e| e["values"]["weight"].as_f64().unwrap())
        .sum();
    let p = tool::read_with(Some(&jfr), &fixture("alloc.jfr")).unwrap();
    assert_eq!(p.profile.tree.total(0), events.len() as f64);
    assert_eq!(p.profile.tree.total(1), weight);
    let (_, from_json) = parse_bytes("alloc.json.gz", &fixture_bytes("alloc.json.gz")).unwrap();
    assert_eq!(alloc(&p).classes, alloc(&from_json).classes);
    assert_eq!(p.profile.tree.len(), from_json.profile.tree.len());
}

#[test]
fn a_broken_binary_recording_reports_what_jfr_said() {
    let Some(jfr) = jfr_tool() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.jfr");
    std::fs::write(&cut, &fixture_bytes("alloc.jfr")[..50_000]).unwrap();
    let e = tool::read_with(Some(&jfr), &cut).unwrap_err();
    assert!(e.message.contains("print` failed (exit status: 1)"), "{e}");
    assert!(e.message.contains("could not read recording"), "{e}");
}

#[test]
fn heavy_jfr_from_the_corpus_through_the_loader() {
    const REL: &str = "speedscope/java-flight-recorder/heavy.jfr";
    if corpus(REL).is_none() || jfr_tool().is_none() {
        return;
    }
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("../shared/corpus")
        .join(REL);
    let (format, p) = read_and_parse(&path).unwrap();
    assert_eq!(format, "jfr");
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    // jfr print --json --stack-depth 2048 --events jdk.ObjectAllocationSample heavy.jfr
    // | python3: 25 events, weights summing to 878277960, two without a stack.
    assert_eq!(p.profile.tree.total(0), 25.0);
    assert_eq!(p.profile.tree.total(1), 878_277_960.0);
    let mut classes = alloc(&p).classes.clone();
    classes.sort();
    assert_eq!(
        classes,
        [
            "int[]",
            "java.lang.String",
            "java.util.ArrayList",
            "java.util.ArrayList$Itr",
            "java.util.concurrent.ConcurrentHashMap$Node[]"
        ]
    );
    let ints: f64 = sites_of(&p, "int[]").iter().map(|s| s.1).sum();
    assert_eq!(ints, 20.0);
    let no_stack = p
        .profile
        .tree
        .children(NodeId::ROOT)
        .iter()
        .find(|&&n| function(&p, n) == NO_STACK)
        .copied()
        .unwrap();
    assert_eq!(p.profile.tree.self_value(no_stack, 0), 2.0);
}

#[test]
fn heavy_jfr_printed_with_default_depth_gets_the_depth_warning() {
    const REL: &str = "speedscope/java-flight-recorder/heavy.jfr";
    if corpus(REL).is_none() {
        return;
    }
    let Some(jfr) = jfr_tool() else { return };
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("../shared/corpus")
        .join(REL);
    let out = std::process::Command::new(jfr)
        .args(["print", "--json", "--events", events::SAMPLE])
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let p = parse_json(&out.stdout).unwrap();
    assert_eq!(p.profile.tree.total(0), 25.0);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    assert_eq!(p.profile.notes.len(), 1);
    assert!(
        p.profile.notes[0].contains("deeper than 5 frames"),
        "{:?}",
        p.profile.notes
    );
}

#[test]
fn garbage_never_panics() {
    for s in [
        "{",
        "{}",
        "null",
        r#"{"recording": null}"#,
        r#"{"recording": {"events": null}}"#,
        r#"{"recording": {"events": [null, 1, "x", [], {}]}}"#,
        r#"{"recording": {"events": [{"type": "jdk.ObjectAllocationSample", "values": {"startTime": "2024-01-01T00:00Z", "objectClass": {"name": "[[[[L;"}, "weight": 1e400}}]}}"#,
        r#"{"recording": {"events": [{"type": "jdk.ObjectAllocationSample", "values": {"startTime": "9999-12-31T23:59:59.999999999-18:00", "objectClass": {"name": "["}, "weight": 18446744073709551616, "stackTrace": {"truncated": true}}}]}}"#,
        r#"{"recording": {"events": [{"type": "jdk.ObjectAllocationSample", "values": {"startTime": "0000-01-01T00:00Z", "objectClass": {"name": ""}, "weight": 0, "stackTrace": {"frames": [{"pc": 4096}, {"method": null}]}}}]}}"#,
    ] {
        let _ = parse(s);
    }
    let deep = format!(
        r#"{{"recording": {{"events": [{}1{}]}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let _ = parse(&deep);
}

#[test]
fn a_version_directory_with_a_binary_recording_loads_it() {
    let Some(_) = jfr_tool() else { return };
    let input = tempfile::tempdir().unwrap();
    let version = input.path().join("1.0");
    std::fs::create_dir(&version).unwrap();
    std::fs::copy(fixture("alloc.jfr"), version.join("canvas.jfr")).unwrap();
    let config = config::Config::default();
    let history = crate::load::load_history(input.path(), &config).unwrap();
    assert!(history.skipped.is_empty(), "{:?}", history.skipped);
    let entry = &history.profiles[0];
    assert_eq!(
        (
            entry.format,
            entry.benchmark.as_str(),
            entry.source.as_str()
        ),
        ("jfr", "canvas", "1.0/canvas.jfr")
    );
    let classes = &entry.profile.allocations.as_ref().unwrap().classes;
    assert!(classes.iter().any(|c| c == "shapes.Circle"), "{classes:?}");
}
