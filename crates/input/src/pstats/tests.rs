//! The reader against files written by CPython's cProfile (3.8, 3.11,
//! 3.13), each checked with pstats' own summary of it, and against
//! hostile files built byte by byte.

use std::path::Path;

use super::*;
use crate::{parse_bytes, Input};
use model::NodeId;

fn fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/pstats"
    ));
    std::fs::read(dir.join(name)).unwrap()
}

/// A frame as pstats prints it: `file:line(function)` or `{built-in …}`.
fn label(frame: &Frame) -> String {
    match &frame.file {
        Some(file) => format!("{file}:{}({})", frame.line.unwrap_or(0), frame.function),
        None => frame.function.clone(),
    }
}

/// What `print_stats` printed: (calls, primitive calls, seconds) and the
/// rows (ncalls, tottime, cumtime, label).
struct Summary {
    calls: String,
    primitive: String,
    seconds: String,
    rows: Vec<(String, String, String, String)>,
}

fn summary(text: &str) -> Summary {
    let head = text
        .lines()
        .find(|l| l.contains("function calls"))
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>();
    // "248126 function calls (66589 primitive calls) in 0.058 seconds"
    let rows = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("ncalls"))
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let label = f[5..].join(" ");
            (f[0].to_string(), f[1].to_string(), f[3].to_string(), label)
        })
        .collect();
    Summary {
        calls: head[0].to_string(),
        primitive: head[3].trim_start_matches('(').to_string(),
        seconds: head[head.len() - 2].to_string(),
        rows,
    }
}

/// Per function: the sum of the self values of its nodes (seconds), and
/// of the inclusive values of its outermost nodes (no ancestor of the same
/// function).
fn per_function(parsed: &Parsed) -> FxHashMap<FrameId, (f64, f64)> {
    let tree = &parsed.profile.tree;
    let inclusive = tree.inclusive(0);
    let mut out: FxHashMap<FrameId, (f64, f64)> = FxHashMap::default();
    for node in tree.node_ids().skip(1) {
        let frame = tree.frame(node).unwrap();
        let e = out.entry(frame).or_default();
        e.0 += tree.self_value(node, 0) / 1e9;
        let outer = tree.stack_of(node).iter().filter(|f| **f == frame).count() == 1;
        if outer {
            e.1 += inclusive[node.index()] / 1e9;
        }
    }
    out
}

fn check_fixture(tag: &str) {
    let bytes = fixture(&format!("workload-{tag}.prof"));
    let text = String::from_utf8(fixture(&format!("workload-{tag}.txt"))).unwrap();
    let want = summary(&text);
    let (format, _) = parse_bytes("workload.prof", &bytes).unwrap();
    assert_eq!(format, "pstats", "{tag}: recognised before pprof's .prof");
    let read = read(&bytes).unwrap();
    let stats = &read.stats;

    // "N function calls (M primitive calls) in X seconds"
    let sum = |f: fn(&Stat) -> f64| stats.functions.iter().map(|x| f(&x.stat)).sum::<f64>();
    assert_eq!(format!("{}", sum(|s| s.calls)), want.calls, "{tag}");
    assert_eq!(
        format!("{}", sum(|s| s.primitive_calls)),
        want.primitive,
        "{tag}"
    );
    assert_eq!(format!("{:.3}", sum(|s| s.tottime)), want.seconds, "{tag}");
    let total = read.parsed.profile.tree.total(0) / 1e9;
    assert_eq!(
        format!("{total:.3}"),
        want.seconds,
        "{tag}: the tree's total"
    );
    assert!(
        (total - sum(|s| s.tottime)).abs() < 1e-9,
        "{tag}: nothing lost"
    );

    let frames = &read.parsed.frames;
    let by_label: FxHashMap<String, FrameId> =
        frames.iter().map(|(id, f)| (label(f), id)).collect();
    let tree_sums = per_function(&read.parsed);
    assert_eq!(want.rows.len(), 15, "{tag}");
    for (ncalls, tottime, cumtime, name) in &want.rows {
        let id = by_label[name];
        let f = stats
            .functions
            .iter()
            .find(|f| label(&f.frame) == *name)
            .unwrap();
        let counts = if f.stat.calls == f.stat.primitive_calls {
            format!("{}", f.stat.calls)
        } else {
            format!("{}/{}", f.stat.calls, f.stat.primitive_calls)
        };
        assert_eq!(&counts, ncalls, "{tag} {name}");
        assert_eq!(&format!("{:.3}", f.stat.tottime), tottime, "{tag} {name}");
        assert_eq!(&format!("{:.3}", f.stat.cumtime), cumtime, "{tag} {name}");
        let (own, cumulative) = tree_sums[&id];
        assert_eq!(
            &format!("{own:.3}"),
            tottime,
            "{tag} {name}: self in the tree"
        );
        // The tree's cumulative time is an estimate: within a millisecond
        // or 10% of pstats' own, except inside a cycle of several
        // functions (words → sum → <genexpr> → words), where the tree
        // keeps the whole cycle under its entry and the others show less.
        let cum: f64 = cumtime.parse().unwrap();
        let near = (cumulative - cum).abs() <= 0.001f64.max(cum * 0.1);
        let cycle_member = [
            "{built-in method builtins.sum}",
            "workload.py:29(<genexpr>)",
        ];
        if cycle_member.contains(&name.as_str()) {
            assert!(cumulative < cum, "{tag} {name}: {cumulative} vs {cum}");
        } else {
            assert!(
                near,
                "{tag} {name}: cumulative {cumulative} in the tree, {cum} in pstats"
            );
        }
        let calls = read.calls.functions.iter().find(|c| c.0 == id).unwrap();
        assert_eq!((calls.1, calls.2), (f.stat.calls, f.stat.primitive_calls));
    }
}

#[test]
fn cpython_3_8_files_match_pstats_summary() {
    check_fixture("py38");
}

#[test]
fn cpython_3_11_files_match_pstats_summary() {
    check_fixture("py311");
}

#[test]
fn cpython_3_13_files_match_pstats_summary() {
    check_fixture("py313");
}

#[test]
fn frames_keep_file_and_line_and_builtins_read_as_pstats_prints_them() {
    let read = read(&fixture("workload-py311.prof")).unwrap();
    let frames = &read.parsed.frames;
    let fib = frames.iter().find(|(_, f)| f.function == "fib").unwrap().1;
    assert_eq!(fib.file.as_deref(), Some("workload.py"));
    assert_eq!((fib.line, fib.start_line), (Some(9), Some(9)));
    assert!(frames
        .iter()
        .any(|(_, f)| f.function == "{built-in method builtins.exec}" && f.file.is_none()));
    assert!(frames
        .iter()
        .any(|(_, f)| f.function == "{method 'findall' of 're.Pattern' objects}"));
    // The tree starts where `python -m cProfile` starts: exec, then the
    // script's module.
    let tree = &read.parsed.profile.tree;
    let roots: Vec<&str> = tree
        .children(NodeId::ROOT)
        .iter()
        .map(|n| frames.get(tree.frame(*n).unwrap()).function.as_str())
        .collect();
    assert!(
        roots.contains(&"{built-in method builtins.exec}"),
        "{roots:?}"
    );
    assert!(!read.parsed.profile.notes.is_empty());
}

#[test]
fn call_counts_of_edges_are_kept() {
    let read = read(&fixture("workload-py311.prof")).unwrap();
    let id = |name: &str| {
        read.parsed
            .frames
            .iter()
            .find(|(_, f)| f.function == name && f.file.as_deref() == Some("workload.py"))
            .unwrap()
            .0
    };
    let edge = |a: FrameId, b: FrameId| {
        read.calls
            .edges
            .iter()
            .find(|e| e.0 == a && e.1 == b)
            .map(|e| (e.2, e.3))
    };
    // As pstats' print_callers shows them (calls/primitive calls): main()
    // calls round_trip 40 times; fib calls itself 57312 times (57313
    // calls, one of them from main).
    assert_eq!(edge(id("main"), id("round_trip")), Some((40.0, 40.0)));
    assert_eq!(edge(id("fib"), id("fib")), Some((57312.0, 2.0)));
    assert_eq!(edge(id("main"), id("fib")), Some((1.0, 1.0)));
    assert_eq!(edge(id("is_even"), id("is_odd")), Some((900.0, 59.0)));
    assert_eq!(edge(id("is_odd"), id("is_even")), Some((870.0, 58.0)));
    // Each tree node carries the count of its edge: from its parent's
    // function into its own (all contexts), for the pages' calls column.
    let tree = &read.parsed.profile.tree;
    let calls = read.parsed.profile.call_counts.as_deref().unwrap();
    assert_eq!(calls.len(), tree.len());
    assert!(calls[0].is_nan(), "the root is no function");
    let under = |parent: &str, child: &str| -> Vec<f64> {
        tree.node_ids()
            .filter(|&n| tree.frame(n) == Some(id(child)))
            .filter(|&n| tree.parent(n).and_then(|p| tree.frame(p)) == Some(id(parent)))
            .map(|n| calls[n.index()])
            .collect()
    };
    assert!(!under("is_even", "is_odd").is_empty());
    assert!(under("is_even", "is_odd").iter().all(|&c| c == 900.0));
    assert!(under("main", "round_trip").iter().all(|&c| c == 40.0));
}

// ---- hostile files, built byte by byte ----

fn s(text: &str) -> Vec<u8> {
    let mut out = vec![b'z', text.len() as u8];
    out.extend_from_slice(text.as_bytes());
    out
}

fn i(n: i32) -> Vec<u8> {
    let mut out = vec![b'i'];
    out.extend_from_slice(&n.to_le_bytes());
    out
}

fn g(x: f64) -> Vec<u8> {
    let mut out = vec![b'g'];
    out.extend_from_slice(&x.to_le_bytes());
    out
}

fn tuple(items: &[Vec<u8>]) -> Vec<u8> {
    let mut out = vec![b')', items.len() as u8];
    items.iter().for_each(|x| out.extend_from_slice(x));
    out
}

fn dict(pairs: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![b'{'];
    for (k, v) in pairs {
        out.extend_from_slice(k);
        out.extend_from_slice(v);
    }
    out.push(b'0');
    out
}

fn key(name: &str) -> Vec<u8> {
    tuple(&[s("app.py"), i(1), s(name)])
}

/// One function's entry: (cc, nc, tt, ct, callers).
fn entry(cc: i32, nc: i32, tt: f64, ct: f64, callers: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    tuple(&[i(cc), i(nc), g(tt), g(ct), dict(callers)])
}

/// A caller's part, in cProfile's order: (nc, cc, tt, ct).
fn edge(nc: i32, cc: i32, tt: f64, ct: f64) -> Vec<u8> {
    tuple(&[i(nc), i(cc), g(tt), g(ct)])
}

fn sniffs(bytes: &[u8]) -> bool {
    Pstats.sniff(&Input {
        file_name: "x.prof",
        bytes,
    })
}

#[test]
fn a_small_graph_becomes_a_tree_whose_self_times_add_up() {
    // main → a (1 s of 3 s), main → b (2 s); a and b call c, whose 1 s
    // of own time is shared 1:3 by the edges' cumulative times.
    let file = dict(&[
        (key("main"), entry(1, 1, 0.5, 3.5, &[])),
        (
            key("a"),
            entry(1, 1, 0.5, 1.0, &[(key("main"), edge(1, 1, 0.5, 1.0))]),
        ),
        (
            key("b"),
            entry(1, 1, 0.5, 2.0, &[(key("main"), edge(1, 1, 0.5, 2.0))]),
        ),
        (
            key("c"),
            entry(
                4,
                4,
                2.0,
                2.0,
                &[
                    (key("a"), edge(1, 1, 0.5, 0.5)),
                    (key("b"), edge(3, 3, 1.5, 1.5)),
                ],
            ),
        ),
    ]);
    assert!(sniffs(&file));
    let read = read(&file).unwrap();
    let tree = &read.parsed.profile.tree;
    assert_eq!(tree.total(0), 3.5e9);
    let c = read
        .parsed
        .frames
        .iter()
        .find(|(_, f)| f.function == "c")
        .unwrap()
        .0;
    let mut selfs: Vec<f64> = tree
        .node_ids()
        .filter(|n| tree.frame(*n) == Some(c))
        .map(|n| tree.self_value(n, 0) / 1e9)
        .collect();
    selfs.sort_by(f64::total_cmp);
    assert_eq!(selfs, [0.5, 1.5]);
    assert_eq!(tree.inclusive(0)[0], 3.5e9);
}

#[test]
fn recursion_and_cycles_end_and_keep_their_time() {
    // f calls itself; g and h call each other and nothing else calls them.
    let file = dict(&[
        (
            key("f"),
            entry(1, 50, 1.0, 1.0, &[(key("f"), edge(49, 0, 0.9, 0.9))]),
        ),
        (
            key("g"),
            entry(0, 5, 2.0, 3.0, &[(key("h"), edge(5, 0, 2.0, 3.0))]),
        ),
        (
            key("h"),
            entry(0, 5, 1.0, 3.0, &[(key("g"), edge(5, 0, 1.0, 3.0))]),
        ),
    ]);
    let read = read(&file).unwrap();
    let tree = &read.parsed.profile.tree;
    assert_eq!(tree.total(0), 4.0e9);
    assert_eq!(tree.len(), 4, "f, g and h, each once under the root");
}

#[test]
fn a_deep_chain_stops_at_the_depth_limit_and_says_so() {
    let n = 2000;
    let mut pairs = vec![(key("f0"), entry(1, 1, 1.0, n as f64, &[]))];
    for k in 1..n {
        let caller = key(&format!("f{}", k - 1));
        let rest = (n - k) as f64;
        pairs.push((
            key(&format!("f{k}")),
            entry(1, 1, 1.0, rest, &[(caller, edge(1, 1, 1.0, rest))]),
        ));
    }
    let read = read(&dict(&pairs)).unwrap();
    let tree = &read.parsed.profile.tree;
    assert_eq!(
        tree.total(0),
        n as f64 * 1e9,
        "deeper time stays in the tree"
    );
    assert!(tree
        .node_ids()
        .all(|x| tree.depth(x) <= crate::call_graph::MAX_DEPTH));
    assert!(read
        .parsed
        .profile
        .notes
        .iter()
        .any(|s| s.contains("levels")));
}

#[test]
fn huge_counts_are_read_and_absurd_integers_refused() {
    // 2^60 calls, as a marshal long: 5 digits of 15 bits.
    let mut long = vec![b'l'];
    long.extend_from_slice(&5i32.to_le_bytes());
    for d in [0u16, 0, 0, 0, 1] {
        long.extend_from_slice(&d.to_le_bytes());
    }
    let big = tuple(&[long.clone(), long, g(1.0), g(1.0), dict(&[])]);
    let read = read(&dict(&[(key("f"), big)])).unwrap();
    assert_eq!(read.stats.functions[0].stat.calls, 2f64.powi(60));

    let mut absurd = vec![b'l'];
    absurd.extend_from_slice(&100i32.to_le_bytes());
    absurd.extend(std::iter::repeat_n(0x7f, 200));
    let bad = tuple(&[absurd, i(1), g(1.0), g(1.0), dict(&[])]);
    let file = dict(&[(key("f"), bad)]);
    let err = super::read(&file).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "byte {}: integer too large for a double",
            key("f").len() + 3
        )
    );
}

#[test]
fn a_truncated_file_names_the_byte_where_it_ends() {
    let bytes = fixture("workload-py38.prof");
    for cut in (3..bytes.len()).step_by(97) {
        let err = read(&bytes[..cut]).unwrap_err();
        let model::Place::Byte(at) = err.place else {
            panic!("{err}");
        };
        assert!(at as usize <= cut, "{cut}: {err}");
        assert!(err.message.contains("ends inside"), "{cut}: {err}");
    }
    let err = parse_bytes("cut.prof", &bytes[..bytes.len() - 1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "byte {}: the file ends inside a dict: its end mark (0) is missing (truncated?)",
            bytes.len() - 1
        )
    );
}

#[test]
fn other_marshal_data_is_refused_with_its_place() {
    // A list of the right tuples is not taken for a pstats file…
    let list = [vec![b'[', 1, 0, 0, 0], key("f")].concat();
    assert!(!sniffs(&list));
    assert!(parse_bytes("list.prof", &list)
        .unwrap_err()
        .to_string()
        .contains("unrecognised"));
    // …and says what it is when read as one.
    let err = read(&list).unwrap_err();
    assert_eq!(
        err.to_string(),
        "byte 0: expected the statistics dict {(file, line, function): …}, found a list"
    );
    // A dict whose entry is of the wrong shape names the entry.
    let file = dict(&[(key("f"), tuple(&[i(1), i(1), g(0.0), g(0.0)]))]);
    let err = read(&file).unwrap_err();
    let at = 1 + key("f").len();
    assert_eq!(
        err.to_string(),
        format!("byte {at}: expected a tuple (primitive calls, calls, tottime, cumtime, callers), found a tuple of 4 items")
    );
    // A code object (what a .pyc holds) is not read.
    let err = read(&[b'{', b')', 3, 0xe3]).unwrap_err();
    assert!(
        err.to_string().starts_with("byte 3: marshal type code"),
        "{err}"
    );
    // Bytes after the dict.
    let err = read(&[dict(&[]), vec![b'N']].concat()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "byte 2: 1 bytes after the statistics dict, which should end the file"
    );
}

#[test]
fn references_and_nesting_are_bounded() {
    // A back-reference to nothing, and one to the dict that holds it.
    let err = read(&[b'{', b'r', 0, 0, 0, 0]).unwrap_err();
    assert!(
        err.to_string().contains("back-reference 0 names no object"),
        "{err}"
    );
    let err = read(&[0xfb, b'r', 0, 0, 0, 0]).unwrap_err();
    assert!(err.to_string().contains("contains it"), "{err}");
    // Tuples nested 10,000 deep.
    let mut deep = vec![b'{'];
    deep.extend(std::iter::repeat_n([b')', 1], 10_000).flatten());
    let err = read(&deep).unwrap_err();
    assert!(err.to_string().contains("nested deeper than 100"), "{err}");
    // A tuple claiming 2^31-1 items in a short file.
    let err = read(&[b'{', b'(', 0xff, 0xff, 0xff, 0x7f, b'N']).unwrap_err();
    assert!(err.message.contains("ends inside"), "{err}");
}

#[test]
fn sniffing_is_strict() {
    assert!(sniffs(&fixture("workload-py313.prof")));
    assert!(sniffs(b"{0"));
    assert!(!sniffs(b"{\"nodes\": []}"));
    assert!(!sniffs(b"{)"));
    assert!(!sniffs(b"main;f 1\n"));
    let empty = read(b"{0").unwrap();
    assert_eq!(empty.parsed.profile.tree.len(), 1);
}
