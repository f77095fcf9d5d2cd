//! The reader against files valgrind 3.19's callgrind wrote
//! (tests/fixtures/callgrind), each checked with callgrind_annotate's
//! figures for it (saved beside it by capture-prog.sh), and against
//! hand-made and hostile files.

use std::path::Path;

use super::*;
use crate::parse_bytes;
use model::CallTree;

fn fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/callgrind"
    ));
    std::fs::read(dir.join(name)).unwrap()
}

/// callgrind_annotate's row: its figures (percentages skipped) and its
/// label, `file:function [object]`.
fn columns(line: &str) -> (Vec<i128>, String) {
    let mut numbers = Vec::new();
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        if let Ok(n) = w.replace(',', "").parse::<i128>() {
            numbers.push(n);
            words.next();
        } else if w.starts_with('(') || w.ends_with("%)") {
            words.next();
        } else {
            break;
        }
    }
    (numbers, words.collect::<Vec<_>>().join(" "))
}

/// `prog.c:fib [/tmp/…/prog]` → `fib`.
fn function_of(label: &str) -> &str {
    let label = label.split(" [").next().unwrap();
    label.rsplit_once(':').unwrap().1
}

/// Own cost per metric of the function named `name` (every node).
fn own(parsed: &Parsed, name: &str) -> Vec<f64> {
    let tree = &parsed.profile.tree;
    (0..tree.metric_count())
        .map(|m| {
            tree.node_ids()
                .filter(|n| {
                    tree.frame(*n)
                        .is_some_and(|f| parsed.frames.get(f).function == name)
                })
                .map(|n| tree.self_value(n, m))
                .sum()
        })
        .collect()
}

/// Inclusive cost (first metric) of the function named `name`: its
/// outermost nodes' inclusive values.
fn inclusive(parsed: &Parsed, name: &str) -> f64 {
    let tree = &parsed.profile.tree;
    let values = tree.inclusive(0);
    let is = |n: NodeId| {
        tree.frame(n)
            .is_some_and(|f| parsed.frames.get(f).function == name)
    };
    tree.node_ids()
        .filter(|&n| is(n) && !ancestors(tree, n).any(is))
        .map(|n| values[n.index()])
        .sum()
}

fn ancestors(tree: &CallTree, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
    std::iter::successors(tree.parent(n), move |p| tree.parent(*p))
}

fn close(a: f64, b: i128) -> bool {
    (a - b as f64).abs() <= 1e-6 * (b as f64).abs().max(1.0)
}

fn rows(name: &str) -> (Vec<i128>, Vec<(Vec<i128>, String)>) {
    let text = String::from_utf8(fixture(name)).unwrap();
    let totals = text
        .lines()
        .find(|l| l.contains("PROGRAM TOTALS"))
        .map(|l| columns(l).0)
        .unwrap();
    let rows = text
        .lines()
        .filter(|l| l.contains(" prog.c:"))
        .map(columns)
        .collect();
    (totals, rows)
}

fn check_against_annotate(parsed: &Parsed, out: &str) {
    let (totals, own_rows) = rows(&format!("{out}.annotate.txt"));
    let tree = &parsed.profile.tree;
    assert_eq!(totals.len(), tree.metric_count());
    // PROGRAM TOTALS is the file's summary:, which may count 2 more
    // instructions than callgrind charged to functions (its totals:).
    for (m, t) in totals.iter().enumerate() {
        let ours = tree.total(m);
        assert!(
            close(ours, *t) || (t - 2..*t).any(|t| close(ours, t)),
            "{out}: metric {m}: {ours} vs {t}"
        );
    }
    assert!(own_rows.len() >= 10, "{out}: {own_rows:?}");
    for (figures, label) in &own_rows {
        let name = function_of(label);
        let ours = own(parsed, name);
        for (m, want) in figures.iter().enumerate() {
            assert!(
                close(ours[m], *want),
                "{out}: {name} metric {m}: {} vs {want}",
                ours[m]
            );
        }
    }
    // Inclusive: callgrind_annotate --inclusive=yes, for the functions
    // that do not call themselves (it counts recursive calls again).
    let (_, inclusive_rows) = rows(&format!("{out}.inclusive.txt"));
    let mut checked = 0;
    for (figures, label) in &inclusive_rows {
        let name = function_of(label);
        if name.ends_with("'2") || !label.contains(" [") {
            continue;
        }
        let ours = inclusive(parsed, name);
        assert!(
            close(ours, figures[0]),
            "{out}: inclusive {name}: {ours} vs {}",
            figures[0]
        );
        checked += 1;
    }
    assert_eq!(
        checked, 7,
        "{out}: main parse render checksum fib is_even is_odd"
    );
}

#[test]
fn instructions_match_callgrind_annotate() {
    let parsed = Callgrind
        .parse(&Input {
            file_name: "callgrind.out.1",
            bytes: &fixture("prog.callgrind.out"),
        })
        .unwrap();
    assert_eq!(parsed.profile.metrics, vec![Metric::new("Ir", Unit::Count)]);
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    check_against_annotate(&parsed, "prog.callgrind.out");
    // checksum's 416,052 own instructions, split over parse and render by
    // their calls' inclusive costs: parse's three calls over 8,000 bytes,
    // render's one over 2,000 (the calls= lines, callgrind_annotate
    // --tree=caller: 384,039 and 32,013).
    let tree = &parsed.profile.tree;
    let checksum: Vec<(String, f64)> = tree
        .node_ids()
        .filter(|n| {
            tree.frame(*n)
                .is_some_and(|f| parsed.frames.get(f).function == "checksum")
        })
        .map(|n| {
            let parent = tree.frame(tree.parent(n).unwrap()).unwrap();
            (
                parsed.frames.get(parent).function.clone(),
                tree.self_value(n, 0),
            )
        })
        .collect();
    assert_eq!(
        checksum,
        vec![
            ("parse".to_string(), 384_039.0),
            ("render".to_string(), 32_013.0)
        ]
    );
}

#[test]
fn cache_and_branch_events_are_metrics_matching_callgrind_annotate() {
    let parsed = Callgrind
        .parse(&Input {
            file_name: "callgrind.out.2",
            bytes: &fixture("prog-cache.callgrind.out"),
        })
        .unwrap();
    let names: Vec<&str> = parsed
        .profile
        .metrics
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw", "Bc", "Bcm", "Bi",
            "Bim"
        ]
    );
    check_against_annotate(&parsed, "prog-cache.callgrind.out");
    // The file's totals: line; its summary: (PROGRAM TOTALS) says 2 more.
    assert!(close(parsed.profile.tree.total(0), 1_422_189));
    assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
    assert!(
        parsed
            .profile
            .notes
            .iter()
            .any(|n| n.contains("summary counts 2 Ir that callgrind charged to no function")),
        "{:?}",
        parsed.profile.notes
    );
}

/// `positions: instr line`, gzipped, through the loader's gzip path.
#[test]
fn instruction_positions_and_gzip_match_callgrind_annotate() {
    let (format, parsed) = parse_bytes(
        "callgrind.out.3.gz",
        &fixture("prog-instr.callgrind.out.gz"),
    )
    .unwrap();
    assert_eq!(format, "callgrind");
    check_against_annotate(&parsed, "prog-instr.callgrind.out");
}

/// Per-line own costs go to the line table: checksum's loop line
/// (prog.c:31) holds most of its instructions.
#[test]
fn own_costs_are_kept_per_line() {
    let parsed = Callgrind
        .parse(&Input {
            file_name: "callgrind.out.1",
            bytes: &fixture("prog.callgrind.out"),
        })
        .unwrap();
    let lines = parsed.profile.line_self.as_ref().unwrap();
    let tree = &parsed.profile.tree;
    let mut per_line: std::collections::BTreeMap<u32, f64> = Default::default();
    for (node, line, values) in lines.iter() {
        let f = tree.frame(node).unwrap();
        if parsed.frames.get(f).function == "checksum" {
            *per_line.entry(line).or_default() += values[0];
        }
    }
    let sum: f64 = per_line.values().sum();
    assert!(close(sum, 416_052), "{per_line:?}");
    let (top, _) = per_line.iter().max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
    assert!((29..=32).contains(top), "{per_line:?}");
    let checksum = parsed
        .frames
        .iter()
        .find(|(_, f)| f.function == "checksum")
        .unwrap()
        .1;
    assert_eq!(checksum.line, Some(*top));
    assert!(checksum.file.as_deref().unwrap().ends_with("prog.c"));
    assert!(checksum.module.as_deref().unwrap().ends_with("/prog"));
}

/// The example of the format's manual (compressed names, a call into
/// another file): main's inclusive cost is 820.
const MANUAL_EXAMPLE: &str = "\
# callgrind format
events: Instructions

fl=(1) file1.c
fn=(1) main
16 20
cfn=(2) func1
calls=1 50
16 400
cfi=(2) file2.c
cfn=(3) func2
calls=3 20
16 400

fn=(2)
51 100
cfi=(2)
cfn=(3)
calls=2 20
51 300

fl=(2)
fn=(3)
20 700
";

fn parse_text(text: &str) -> Result<Parsed, ParseError> {
    Callgrind.parse(&Input {
        file_name: "callgrind.out",
        bytes: text.as_bytes(),
    })
}

#[test]
fn the_manual_example_reads_with_its_inclusive_costs() {
    let parsed = parse_text(MANUAL_EXAMPLE).unwrap();
    let tree = &parsed.profile.tree;
    assert_eq!(tree.total(0), 820.0);
    assert_eq!(inclusive(&parsed, "main"), 820.0);
    assert_eq!(inclusive(&parsed, "func1"), 400.0);
    assert_eq!(own(&parsed, "func2"), vec![700.0]);
    // func2 under main (400 of its 700) and under func1 (300).
    let func2: Vec<f64> = tree
        .node_ids()
        .filter(|n| {
            tree.frame(*n)
                .is_some_and(|f| parsed.frames.get(f).function == "func2")
        })
        .map(|n| tree.self_value(n, 0))
        .collect();
    assert_eq!(func2, vec![400.0, 300.0]);
    let file = |name: &str| {
        parsed
            .frames
            .iter()
            .find(|(_, f)| f.function == name)
            .and_then(|(_, f)| f.file.clone())
    };
    assert_eq!(file("func2").as_deref(), Some("file2.c"));
    assert_eq!(file("func1").as_deref(), Some("file1.c"));
    // Call counts: main → func2 3 calls, func1 → func2 2.
    let calls = parsed.profile.call_counts.as_ref().unwrap();
    let counts: Vec<f64> = tree
        .node_ids()
        .filter(|n| {
            tree.frame(*n)
                .is_some_and(|f| parsed.frames.get(f).function == "func2")
        })
        .map(|n| calls[n.index()])
        .collect();
    assert_eq!(counts, vec![3.0, 2.0]);
}

/// Xdebug writes `Time_(10ns)` and `Memory_(bytes)`.
#[test]
fn xdebug_units_become_nanoseconds_and_bytes() {
    let text = MANUAL_EXAMPLE.replace(
        "events: Instructions",
        "version: 1\ncreator: xdebug 3.0.2\nevents: Time_(10ns) Memory_(bytes)",
    );
    let parsed = parse_text(&text).unwrap();
    assert_eq!(
        parsed.profile.metrics,
        vec![
            Metric::new("Time", Unit::Nanoseconds),
            Metric::new("Memory", Unit::Bytes)
        ]
    );
    assert_eq!(parsed.profile.tree.total(0), 8200.0);
}

/// Relative positions and `positions: instr line`, hand-made.
#[test]
fn relative_positions_follow_each_subposition() {
    let text = "\
positions: instr line
events: Ir
fl=a.c
fn=f
0x10 5 1
+4 +2 2
* * 3
-2 -3 4
0x20 0 5
";
    let parsed = parse_text(text).unwrap();
    let lines: Vec<(u32, f64)> = parsed
        .profile
        .line_self
        .as_ref()
        .unwrap()
        .iter()
        .map(|(_, l, v)| (l, v[0]))
        .collect();
    // Lines 5, 7 (twice), 4; line 0 is unknown and stays off the table.
    assert_eq!(lines, vec![(4, 4.0), (5, 1.0), (7, 5.0)]);
    assert_eq!(parsed.profile.tree.total(0), 15.0);
}

/// callgrind --collect-jumps=yes: the line after `jump=`/`jcnd=` is a
/// position, not a cost.
#[test]
fn jump_lines_are_skipped_with_their_position() {
    let text = "events: Ir\nfl=a.c\nfn=f\n3 10\njcnd=1/2 +2\n*\n+1 5\njump=4 +2\n*\n";
    let parsed = parse_text(text).unwrap();
    assert_eq!(parsed.profile.tree.total(0), 15.0);
}

fn error(text: &str) -> String {
    parse_text(text).unwrap_err().to_string()
}

#[test]
fn a_truncated_file_is_an_error_naming_the_line() {
    let full = String::from_utf8(fixture("prog.callgrind.out")).unwrap();
    // Cut in the middle: the costs fall short of `summary:` and the
    // closing `totals:` is missing.
    let cut: String = full.lines().take(5000).collect::<Vec<_>>().join("\n");
    let e = error(&cut);
    assert!(
        e.starts_with(
            "line 5000: the file ends without its `totals:` line and the costs add up to"
        ),
        "{e}"
    );
    assert!(
        e.contains("Ir but line 18 says 1422189: it is truncated"),
        "{e}"
    );
    // Cut after a calls= line.
    let at = full.lines().position(|l| l.starts_with("calls=")).unwrap();
    let cut: String = full.lines().take(at + 1).collect::<Vec<_>>().join("\n");
    let e = error(&cut);
    assert_eq!(
        e,
        format!(
            "line {}: the file ends before the cost line of the call on line {}: it is truncated",
            at + 1,
            at + 1
        )
    );
}

#[test]
fn corrupt_lines_are_errors_naming_the_line() {
    let cases = [
        ("events: Ir\nfl=a.c\nfn=(3)\n1 2\n", "line 3: the name (3) is used before it is defined"),
        ("events: Ir\nfl=a.c\nfn=f\n1 2 3\n", "line 4: more costs than the 1 event(s) of the `events:` line"),
        ("events: Ir\nfl=a.c\nfn=f\n1 x\n", "line 4: expected a cost (a number), found `x`"),
        ("events: Ir\nfl=a.c\nfn=f\n+x 1\n", "line 4: expected a position (a number, `+N`, `-N` or `*`), found `+x`"),
        ("events: Ir\n1 2\n", "line 2: a cost line before any `fn=` line"),
        ("# callgrind format\nfl=a.c\nfn=f\n1 2\n", "line 4: a cost line before the `events:` line"),
        ("events: Ir\nfn=f\ncalls=1 2\n", "line 3: `calls=` without a `cfn=` before it"),
        ("events: Ir\nfn=f\ncfn=g\ncalls=1 2\nfn=h\n", "line 5: expected the cost line of the call on line 4, found `fn=h`"),
        ("events: Ir\nfn=f\ncfn=g\ncalls=many\n", "line 4: expected `calls=COUNT POSITION`, found `calls=many`"),
        ("events: Ir\nfn=f\n<svg onload=alert(1)>\n", "line 3: expected a cost line, `key=value` or `key: value`, found `<svg onload=alert(1)>`"),
        ("# callgrind format\ncmd: x\n", "no `events:` line: a callgrind file names its events before its costs"),
        ("events: Ir\nfn=f\n1 99999999999999999999999\n", "line 3: expected a cost (a number), found `99999999999999999999999`"),
    ];
    for (text, want) in cases {
        assert_eq!(error(text), want, "{text}");
    }
}

#[test]
fn hostile_input_never_panics() {
    let full = fixture("prog.callgrind.out");
    for cut in [1, 100, 1000, 10_000, 50_000] {
        let _ = Callgrind.parse(&Input {
            file_name: "x",
            bytes: &full[..cut],
        });
    }
    let mut bad = full.clone();
    for i in (0..bad.len()).step_by(997) {
        bad[i] = 0xff;
    }
    let _ = Callgrind.parse(&Input {
        file_name: "x",
        bytes: &bad,
    });
    // Deep recursion through distinct functions: a chain of 2,000 calls.
    let mut text = String::from("events: Ir\nfl=a.c\n");
    for i in 0..2000 {
        text.push_str(&format!(
            "fn=f{i}\n1 1\ncfn=f{}\ncalls=1 1\n1 {}\n",
            i + 1,
            2000 - i
        ));
    }
    let parsed = parse_text(&text).unwrap();
    assert!(
        parsed
            .profile
            .tree
            .depth(NodeId(parsed.profile.tree.len() as u32 - 1))
            <= call_graph::MAX_DEPTH
    );
    assert!(parsed
        .profile
        .notes
        .iter()
        .any(|n| n.contains("more paths than")));
}

#[test]
fn sniffing_claims_callgrind_files_only() {
    let yes = |text: &str| {
        Callgrind.sniff(&Input {
            file_name: "x",
            bytes: text.as_bytes(),
        })
    };
    assert!(yes(MANUAL_EXAMPLE));
    assert!(yes(
        "version: 1\ncreator: xdebug\ncmd: x.php\nevents: Time_(10ns)\n"
    ));
    assert!(yes("desc: I1 cache:\ncmd: ./prog\nevents: Ir\nfl=a.c\n"));
    assert!(!yes("main;work 5\nmain 3\n"));
    assert!(!yes("version: 1\nsomething else\n"));
    assert!(!yes("{\"events\": 1}"));
    assert!(!yes(""));
}
