//! The reader against the session pyinstrument 5.1.3 saved for
//! tests/fixtures/pyinstrument/capture/, checked with the report
//! pyinstrument rendered from that same session (`--load … -r json
//! --show-all`, read here with serde_json, not perfatlas's report reader),
//! and against broken files.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;
use crate::parse_bytes;
use model::error::Place;

fn fixture(name: &str) -> String {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/pyinstrument"
    ));
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// Seconds per call path (function names from the root, `Class.name` as
/// pyinstrument's reports name methods) of pyinstrument's JSON report;
/// its `[self]` markers are time of their parent, not a path.
fn report_paths(report: &str) -> BTreeMap<Vec<String>, f64> {
    fn walk(f: &serde_json::Value, path: &mut Vec<String>, out: &mut BTreeMap<Vec<String>, f64>) {
        let function = f["function"].as_str().unwrap();
        if function == "[self]" {
            return;
        }
        let name = match f["class_name"].as_str() {
            Some(class) if !class.is_empty() => format!("{class}.{function}"),
            _ => function.to_string(),
        };
        path.push(name);
        *out.entry(path.clone()).or_default() += f["time"].as_f64().unwrap();
        for child in f["children"].as_array().unwrap() {
            walk(child, path, out);
        }
        path.pop();
    }
    let doc: serde_json::Value = serde_json::from_str(report).unwrap();
    let mut out = BTreeMap::new();
    walk(&doc["root_frame"], &mut Vec::new(), &mut out);
    out
}

/// Seconds per call path of a parsed profile (inclusive).
fn parsed_paths(parsed: &Parsed) -> BTreeMap<Vec<String>, f64> {
    let tree = &parsed.profile.tree;
    let inclusive = tree.inclusive(0);
    let mut out = BTreeMap::new();
    for node in tree.node_ids().skip(1) {
        let mut path = Vec::new();
        let mut at = Some(node);
        while let Some(n) = at.filter(|&n| n != NodeId::ROOT) {
            let frame = parsed.frames.get(tree.frame(n).unwrap());
            path.push(frame.function.clone());
            at = tree.parent(n);
        }
        path.reverse();
        *out.entry(path).or_default() += inclusive[node.index()] / 1e9;
    }
    out
}

#[test]
fn a_session_reads_as_pyinstruments_show_all_report_of_it() {
    let (format, parsed) = parse_bytes(
        "workload.pyisession",
        fixture("workload.pyisession").as_bytes(),
    )
    .unwrap();
    assert_eq!(format, "pyisession");
    let expected = report_paths(&fixture("workload.show-all.json"));
    let got = parsed_paths(&parsed);
    // The report's root is the script's module, 1.774 s of 1.784 s.
    let root = vec!["<module>".to_string()];
    assert!((got[&root] - 1.773_801).abs() < 2e-6, "{}", got[&root]);
    assert_eq!(
        got.keys().filter(|p| p.len() == 1).count(),
        1,
        "one root: the launcher's frames are left out"
    );
    for (path, seconds) in &expected {
        let ours = got
            .get(path)
            .unwrap_or_else(|| panic!("no path {path:?} in the session's tree"));
        // The report's times have six decimals.
        assert!(
            (ours - seconds).abs() < 2e-6,
            "{path:?}: {ours} vs {seconds}"
        );
    }
    assert!(expected.len() > 20, "{}", expected.len());
    // checksum, under encode_records: 0.990 s in pyinstrument's text report.
    let checksum = got
        .iter()
        .find(|(p, _)| p.ends_with(&["encode_records".into(), "checksum".into()]))
        .unwrap();
    assert!((checksum.1 - 0.990).abs() < 5e-4, "{}", checksum.1);
    let note = &parsed.profile.notes[0];
    assert!(note.contains("205 samples over 1.793 s"), "{note}");
    assert!(
        note.contains("2 samples (0.010 s) ran in the profiler's launcher"),
        "{note}"
    );
}

#[test]
fn sampled_lines_go_to_the_line_table_with_one_frame_per_function() {
    let (_, parsed) = parse_bytes(
        "workload.pyisession",
        fixture("workload.pyisession").as_bytes(),
    )
    .unwrap();
    let names: Vec<&str> = parsed
        .frames
        .iter()
        .map(|(_, f)| f.function.as_str())
        .filter(|n| *n == "checksum")
        .collect();
    assert_eq!(names.len(), 1, "checksum is one frame whatever its lines");
    assert!(parsed.profile.line_self.is_some());
    let encoder = parsed
        .frames
        .iter()
        .find(|(_, f)| f.function == "JSONEncoder.encode")
        .expect("the class attribute names the method");
    assert!(encoder
        .1
        .file
        .as_deref()
        .unwrap()
        .ends_with("json/encoder.py"));
}

#[test]
fn sniffs_sessions_only() {
    let sniff = |text: &str| {
        Pyisession.sniff(&Input {
            file_name: "x",
            bytes: text.as_bytes(),
        })
    };
    assert!(sniff(&fixture("workload.pyisession")));
    assert!(!sniff(&fixture("workload.json")));
    assert!(!sniff(
        r#"{"duration": 1, "sample_count": 2, "root_frame": {}}"#
    ));
}

#[test]
fn a_truncated_session_is_an_error_at_its_line() {
    let text = fixture("workload.pyisession");
    let cut = &text[..text.len() / 2];
    let e = parse_bytes("s.pyisession", cut.as_bytes()).unwrap_err();
    assert!(matches!(e.place, Place::Line(_)), "{e}");
    assert!(e.message.contains("EOF"), "{e}");
}

#[test]
fn a_negative_time_is_named_by_its_record() {
    let text = r#"{"duration": 1, "sample_count": 2, "start_call_stack": [],
        "frame_records": [[["main\u0000a.py\u00001"], 0.5], [["main\u0000a.py\u00001"], -1]]}"#;
    let e = parse_bytes("s.pyisession", text.as_bytes()).unwrap_err();
    assert!(e.to_string().contains("frame_records[1][1]"), "{e}");
}

#[test]
fn hostile_identifiers_never_panic() {
    let deep: Vec<String> = (0..50_000)
        .map(|i| format!("\"f{i}\\u0000<b>.py\\u0000x\\u0001l\\u0001c\""))
        .collect();
    let text = format!(
        r#"{{"duration": 1, "sample_count": 3, "start_call_stack": ["\u0001", ""],
        "frame_records": [[[{}], 1.0], [["", "\u0000\u0000\u0000\u0001l99999999999"], 0.1], [[], 0.2]]}}"#,
        deep.join(",")
    );
    let (_, parsed) = parse_bytes("s.pyisession", text.as_bytes()).unwrap();
    assert!(parsed.profile.tree.len() > 1000);
}
