//! The reader against reports pyinstrument 5.1.3 wrote for
//! tests/fixtures/pyinstrument/capture/, checked with pyinstrument's own
//! text report of the same session, and against broken files.

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

fn parse(text: &str) -> Result<Parsed, ParseError> {
    Pyinstrument.parse(&Input {
        file_name: "out.json",
        bytes: text.as_bytes(),
    })
}

/// One line of pyinstrument's text tree: depth, seconds, function.
struct TextLine {
    depth: usize,
    seconds: f64,
    function: String,
}

/// The call tree of a `-r text --unicode` report: each line is
/// `PREFIX SECONDS FUNCTION  FILE:LINE`, the prefix three characters per
/// level (`├─ `, `│  `, `└─ `, spaces).
fn text_tree(report: &str) -> Vec<TextLine> {
    let start = report
        .lines()
        .position(|l| l.starts_with("Program:"))
        .unwrap();
    report
        .lines()
        .skip(start + 1)
        .filter(|l| !l.trim().is_empty())
        .take_while(|l| !l.starts_with("To view"))
        .filter_map(|line| {
            let body = line.trim_start_matches([' ', '│', '├', '└', '─']);
            let prefix = line.chars().count() - body.chars().count();
            let (seconds, rest) = body.split_once(' ')?;
            let function = rest.split("  ").next()?.trim().to_string();
            Some(TextLine {
                depth: prefix / 3,
                seconds: seconds.parse().ok()?,
                function,
            })
        })
        .collect()
}

fn function(p: &Parsed, node: NodeId) -> &str {
    &p.frames.get(p.profile.tree.frame(node).unwrap()).function
}

/// Every line of pyinstrument's `--show-all` text report is a node of the
/// tree read from its `--show-all` JSON with the same time (or, for
/// `[self]`, the parent's self time), to the report's three decimals.
#[test]
fn the_tree_is_pyinstruments_own_text_report() {
    let (format, p) = parse_bytes("x.json", fixture("workload.show-all.json").as_bytes()).unwrap();
    assert_eq!(format, "pyinstrument");
    let tree = &p.profile.tree;
    let inclusive = tree.inclusive(0);
    let lines = text_tree(&fixture("workload.show-all.txt"));
    assert!(lines.len() > 20);
    // The node of each depth on the current path.
    let mut path: Vec<NodeId> = vec![NodeId::ROOT];
    for line in &lines {
        let parent = path[line.depth];
        let (node, seconds) = if line.function == "[self]" {
            (parent, tree.self_value(parent, 0) / 1e9)
        } else {
            let node = *tree
                .children(parent)
                .iter()
                .find(|&&c| function(&p, c) == line.function)
                .unwrap_or_else(|| panic!("no {} under {:?}", line.function, parent));
            path.truncate(line.depth + 1);
            path.push(node);
            (node, inclusive[node.index()] / 1e9)
        };
        assert!(
            (seconds - line.seconds).abs() <= 0.0005 + 1e-9,
            "{}: {seconds} vs pyinstrument's {}",
            function(&p, node),
            line.seconds
        );
    }
    let root = lines[0].seconds;
    assert!((p.profile.totals()[0] / 1e9 - root).abs() <= 0.0005);
}

/// The hot function of the default report, over its two callers.
#[test]
fn the_default_report_has_the_hot_function_and_the_total() {
    let p = parse(&fixture("workload.json")).unwrap();
    let lines = text_tree(&fixture("workload.txt"));
    let checksum_text: f64 = lines
        .iter()
        .filter(|l| l.function == "checksum")
        .map(|l| l.seconds)
        .sum();
    let tree = &p.profile.tree;
    let checksum: f64 = tree
        .node_ids()
        .filter(|&n| n != NodeId::ROOT && function(&p, n) == "checksum")
        .map(|n| tree.self_value(n, 0))
        .sum();
    assert!(
        (checksum / 1e9 - checksum_text).abs() <= 0.001,
        "{checksum}"
    );
    assert!(checksum / p.profile.totals()[0] > 0.8);
    assert!((p.profile.totals()[0] / 1e9 - lines[0].seconds).abs() <= 0.0005);
    let encode = p
        .frames
        .iter()
        .find(|(_, f)| f.function == "JSONEncoder.encode")
        .map(|(_, f)| f.clone())
        .unwrap();
    assert!(encode.file.unwrap().ends_with("json/encoder.py"));
    assert_eq!(encode.start_line, Some(183));
    assert!(
        p.profile.notes[0].contains("205 samples"),
        "{:?}",
        p.profile.notes
    );
}

#[test]
fn a_truncated_report_is_an_error_at_its_end() {
    let text = fixture("workload.json");
    let cut = &text[..text.len() * 2 / 3];
    let e = parse(cut).unwrap_err();
    assert!(matches!(e.place, Place::Line(_)), "{e}");
    assert!(
        e.message.contains("truncated") || e.message.contains("end"),
        "{e}"
    );
}

const HEAD: &str =
    r#"{"start_time": 1.0, "duration": 1.0, "sample_count": 3, "cpu_time": 1.0, "root_frame": "#;

fn frame(name: &str, time: f64, children: &str) -> String {
    format!(
        r#"{{"function": "{name}", "file_path_short": "a.py", "file_path": "/src/a.py", "line_no": 3, "time": {time}, "children": [{children}]}}"#
    )
}

#[test]
fn broken_frames_are_named_by_their_path() {
    let heavy = frame("child", 2.0, "");
    let text = format!(
        "{HEAD}{}}}",
        frame("main", 1.0, &format!("{},{heavy}", frame("a", 0.1, "")))
    );
    let e = parse(&text).unwrap_err();
    assert_eq!(e.place, Place::Json("$.root_frame.time".into()), "{e}");

    let no_time = r#"{"function": "f", "children": []}"#;
    let text = format!("{HEAD}{}}}", frame("main", 1.0, no_time));
    let e = parse(&text).unwrap_err();
    assert_eq!(
        e.place,
        Place::Json("$.root_frame.children[0]".into()),
        "{e}"
    );

    let text = format!("{HEAD}{}}}", frame("main", -1.0, ""));
    assert!(parse(&text).is_err());
    let text = format!("{HEAD}{}}}", frame("main", 1.0, "3"));
    let e = parse(&text).unwrap_err();
    assert!(e.message.contains("expected a frame object"), "{e}");
    assert!(parse(r#"{"duration": 1, "sample_count": 1}"#).is_err());
}

#[test]
fn self_markers_deep_recursion_markup_and_empty_reports() {
    let marker = r#"{"function": "[self]", "file_path_short": "", "file_path": "", "line_no": 0, "time": 0.25, "children": []}"#;
    let name = "</script><svg onload=alert(1)>";
    let text = format!(
        "{HEAD}{}}}",
        frame(name, 1.0, &format!("{marker},{}", frame("g", 0.5, "")))
    );
    let p = parse(&text).unwrap();
    assert_eq!(p.frames.len(), 2);
    let root = p.profile.tree.children(NodeId::ROOT)[0];
    assert_eq!(function(&p, root), name);
    assert_eq!(p.profile.tree.self_value(root, 0), 0.5e9);

    let depth = 5000;
    let mut text = String::from(HEAD);
    for _ in 0..depth {
        text.push_str(
            r#"{"function": "f", "file_path": "a.py", "line_no": 1, "time": 1.0, "children": ["#,
        );
    }
    text.push_str(&"]}".repeat(depth));
    text.push('}');
    let p = parse(&text).unwrap();
    assert_eq!(p.profile.tree.len(), depth + 1);
    assert_eq!(p.profile.totals(), [1e9]);

    let p = parse(r#"{"duration": 0.0, "sample_count": 0, "root_frame": null}"#).unwrap();
    assert_eq!(p.profile.totals(), [0.0]);
    assert!(p.profile.notes[0].contains("no frames"));
}

#[test]
fn sniffs_reports_not_sessions() {
    let sniff = |text: &str| {
        Pyinstrument.sniff(&Input {
            file_name: "x",
            bytes: text.as_bytes(),
        })
    };
    assert!(sniff(&fixture("workload.json")));
    // A session is the session reader's.
    assert!(!sniff(&fixture("workload.pyisession")));
    assert!(!sniff(r#"{"duration": 1, "root_frame": {}}"#));
}
