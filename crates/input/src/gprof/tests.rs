//! The reader against reports GNU gprof 2.40 wrote (tests/fixtures/gprof),
//! checked with gprof's flat profile (`-p`) and call graph (`-q`) of the
//! same gmon.out, and against truncated and corrupt reports.

use std::path::Path;

use super::*;
use model::NodeId;

fn fixture(name: &str) -> String {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/gprof"
    ));
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn parse(text: &str) -> Result<Parsed, ParseError> {
    Gprof.parse(&Input {
        file_name: "report.txt",
        bytes: text.as_bytes(),
    })
}

/// gprof -p's rows: (name, self seconds).
fn flat_rows() -> Vec<(String, f64)> {
    let text = fixture("prog-flat.gprof.txt");
    text.lines()
        .skip_while(|l| !l.trim_start().starts_with("time "))
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[w.len() - 1].to_string(), w[2].parse().unwrap())
        })
        .collect()
}

fn own(parsed: &Parsed, name: &str) -> f64 {
    let tree = &parsed.profile.tree;
    tree.node_ids()
        .filter(|n| {
            tree.frame(*n)
                .is_some_and(|f| parsed.frames.get(f).function == name)
        })
        .map(|n| tree.self_value(n, 0))
        .sum()
}

/// (parent's function, self nanoseconds) of every node of `name`.
fn contexts(parsed: &Parsed, name: &str) -> Vec<(String, f64)> {
    let tree = &parsed.profile.tree;
    tree.node_ids()
        .filter(|n| {
            tree.frame(*n)
                .is_some_and(|f| parsed.frames.get(f).function == name)
        })
        .map(|n| {
            let parent = tree.parent(n).and_then(|p| tree.frame(p));
            let parent = parent.map_or(String::new(), |p| parsed.frames.get(p).function.clone());
            (parent, tree.self_value(n, 0))
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

#[test]
fn every_report_shape_gives_gprofs_flat_self_times() {
    let rows = flat_rows();
    assert_eq!(rows.len(), 7);
    let sum: f64 = rows.iter().map(|(_, s)| s).sum();
    for name in [
        "prog.gprof.txt",
        "prog-brief.gprof.txt",
        "prog-flat.gprof.txt",
        "prog-graph.gprof.txt",
    ] {
        let parsed = parse(&fixture(name)).unwrap();
        assert_eq!(
            parsed.profile.metrics,
            vec![Metric::new("time", Unit::Nanoseconds)]
        );
        for (function, seconds) in &rows {
            assert!(
                close(own(&parsed, function), seconds * 1e9),
                "{name}: {function}"
            );
        }
        assert!(close(parsed.profile.tree.total(0), sum * 1e9), "{name}");
    }
}

/// gprof -q: checksum's 0.27 s split 0.20 to parse (3 of its 4 calls)
/// and 0.07 to render; main spontaneous; the is_even/is_odd cycle under
/// main; fib's recursion folded.
#[test]
fn the_tree_follows_gprofs_call_graph() {
    let parsed = parse(&fixture("prog-brief.gprof.txt")).unwrap();
    assert_eq!(
        contexts(&parsed, "checksum"),
        vec![
            ("parse".to_string(), 0.20e9),
            ("render".to_string(), 0.07e9)
        ]
    );
    assert_eq!(
        contexts(&parsed, "is_odd"),
        vec![("is_even".to_string(), 0.67e9)]
    );
    assert_eq!(
        contexts(&parsed, "is_even"),
        vec![("main".to_string(), 0.18e9)]
    );
    assert_eq!(contexts(&parsed, "fib"), vec![("main".to_string(), 0.31e9)]);
    assert_eq!(
        contexts(&parsed, "frame_dummy"),
        vec![(String::new(), 0.12e9)]
    );
    let tree = &parsed.profile.tree;
    let main = tree
        .children(NodeId::ROOT)
        .iter()
        .copied()
        .find(|n| parsed.frames.get(tree.frame(*n).unwrap()).function == "main")
        .unwrap();
    // gprof -q: main [1] 0.00 self, 1.72 children; the flat rows its
    // callees' time comes from are each rounded to 0.01 s.
    let main_inclusive = tree.inclusive(0)[main.index()];
    assert!(
        (main_inclusive - 1.72e9).abs() <= 0.011e9,
        "{main_inclusive}"
    );
    let frame = parsed
        .frames
        .iter()
        .find(|(_, f)| f.function == "checksum")
        .unwrap()
        .1;
    assert_eq!(frame.file.as_deref(), Some("prog.c"));
    // Calls along arcs: main → fib 20000, parse → checksum 3.
    let calls = parsed.profile.call_counts.as_ref().unwrap();
    let node = |parent: &str, name: &str| {
        tree.node_ids()
            .find(|n| {
                let f = tree
                    .frame(*n)
                    .map(|f| parsed.frames.get(f).function.as_str());
                let p = tree
                    .parent(*n)
                    .and_then(|p| tree.frame(p))
                    .map(|f| parsed.frames.get(f).function.as_str());
                f == Some(name) && p == Some(parent)
            })
            .unwrap()
    };
    assert_eq!(calls[node("main", "fib").index()], 20000.0);
    assert_eq!(calls[node("parse", "checksum").index()], 3.0);
}

#[test]
fn a_truncated_report_names_the_line() {
    let full = fixture("prog-brief.gprof.txt");
    let lines: Vec<&str> = full.lines().collect();
    let first_dash = lines.iter().position(|l| l.starts_with("---")).unwrap();
    // Cut inside the first entry after the first dashed line.
    let cut = lines[..first_dash + 3].join("\n");
    let e = parse(&cut).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("line {}: the call graph ends inside an entry (no closing dashed line): the report is truncated", first_dash + 3)
    );
    // Cut after the first entry: its callees' entries are missing.
    let cut = lines[..=first_dash].join("\n") + "\n";
    let e = parse(&cut).unwrap_err().to_string();
    assert!(
        e.contains("the call graph has no entry [")
            && e.contains("the report is truncated or edited"),
        "{e}"
    );
}

#[test]
fn corrupt_rows_are_errors_naming_the_line() {
    let flat = fixture("prog-flat.gprof.txt");
    let bad = flat.replacen(" 36.47      0.67     0.67", " 36.47      0.67     x.67", 1);
    let e = parse(&bad).unwrap_err().to_string();
    assert!(e.starts_with("line 6: expected a flat-profile row"), "{e}");
    let graph = fixture("prog-graph.gprof.txt");
    let bad = graph.replacen("[1]     93.5", "[1]     93.5 <svg onload=alert(1)>", 1);
    let e = parse(&bad).unwrap_err().to_string();
    assert!(e.contains("expected a call-graph line"), "{e}");
    assert_eq!(
        parse("Flat profile:\n\nEach sample counts as 0.01 seconds.\n")
            .unwrap_err()
            .to_string(),
        "no flat profile or call graph rows: expected gprof's report (`gprof PROG gmon.out`)"
    );
}

#[test]
fn hostile_input_never_panics() {
    let full = fixture("prog.gprof.txt");
    for cut in (0..full.len()).step_by(97) {
        if full.is_char_boundary(cut) {
            let _ = parse(&full[..cut]);
        }
    }
    let _ = parse("Flat profile:\n time x\n 1 2 3 [ ]\nCall graph\nindex\n[1] 1 1 1 a [1]\n 1 1 1/1 a [1]\n----\n");
}

#[test]
fn sniffing_claims_gprof_reports_only() {
    let yes = |text: &str| {
        Gprof.sniff(&Input {
            file_name: "x",
            bytes: text.as_bytes(),
        })
    };
    for name in [
        "prog.gprof.txt",
        "prog-brief.gprof.txt",
        "prog-flat.gprof.txt",
        "prog-graph.gprof.txt",
    ] {
        assert!(yes(&fixture(name)), "{name}");
    }
    assert!(!yes("Flat profile:\nmain;work 5\n"));
    assert!(!yes("main;work 5\n"));
    assert!(!yes("# callgrind format\nevents: Ir\n"));
}
