//! The reader against the file massif (Valgrind 3.19) wrote for
//! tests/fixtures/valgrind/capture/, checked with `ms_print`'s report of
//! it, and against broken files.

use std::collections::BTreeMap;
use std::path::Path;

use super::*;
use crate::parse_bytes;
use model::error::Place;
use model::NodeId;

fn fixture(name: &str) -> String {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/valgrind"
    ));
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn parse(text: &str) -> Result<Parsed, ParseError> {
    Massif.parse(&Input {
        file_name: "massif.out.1",
        bytes: text.as_bytes(),
    })
}

fn bytes_of(text: &str) -> f64 {
    text.replace(',', "").trim_end_matches('B').parse().unwrap()
}

/// `ms_print`'s peak snapshot: its heap total and its top-level entries
/// (the allocating functions, or "in N places" for those below its
/// threshold) with their bytes.
fn ms_print_peak(report: &str) -> (f64, BTreeMap<String, f64>) {
    let detailed = report
        .lines()
        .find(|l| l.contains("Detailed snapshots:"))
        .unwrap();
    let peak = detailed
        .split([',', '[', ']'])
        .find_map(|s| s.trim().strip_suffix(" (peak)"))
        .unwrap();
    let lines: Vec<&str> = report.lines().collect();
    let row = lines
        .iter()
        .position(|l| l.split_whitespace().next() == Some(peak))
        .unwrap();
    let root = lines[row + 1..]
        .iter()
        .find(|l| l.contains("(heap allocation functions)"))
        .unwrap();
    let total = bytes_of(root.split(['(', ')']).nth(1).unwrap());
    let mut top = BTreeMap::new();
    for line in &lines[row + 2..] {
        if line.starts_with("---") {
            break;
        }
        let Some(entry) = line.strip_prefix("->") else {
            continue;
        };
        let (_, rest) = entry.split_once(" (").unwrap();
        let (bytes, what) = rest.split_once(") ").unwrap();
        let name = match what.split_once(": ") {
            Some((_, frame)) => frame.split(" (").next().unwrap().to_string(),
            None => what.to_string(),
        };
        top.insert(name, bytes_of(bytes));
    }
    (total, top)
}

#[test]
fn the_peak_tree_has_ms_prints_total_and_top_entries() {
    let (format, p) = parse_bytes("massif.out.1", fixture("alloc.massif.out").as_bytes()).unwrap();
    assert_eq!(format, "massif");
    let (total, top) = ms_print_peak(&fixture("alloc.ms_print.txt"));
    assert_eq!(p.profile.totals(), [total]);
    let alloc = p.profile.allocations.as_ref().unwrap();
    let mut by_class: BTreeMap<String, f64> = BTreeMap::new();
    for s in &alloc.sites {
        *by_class
            .entry(alloc.classes[s.class as usize].clone())
            .or_default() += s.bytes;
    }
    let mut below = 0.0;
    for (name, bytes) in &top {
        match name.contains("below ms_print's threshold") {
            true => below += bytes,
            false => assert_eq!(by_class.get(name), Some(bytes), "{name}"),
        }
    }
    // ms_print folds massif's "in 4 places" entry into its own line.
    let places: f64 = by_class
        .iter()
        .filter(|(c, _)| c.contains("below massif's threshold"))
        .map(|(_, b)| b)
        .sum();
    assert_eq!(places, below);
    assert!(
        p.profile.notes[0].contains("peak snapshot (61 of 71"),
        "{:?}",
        p.profile.notes
    );
}

/// `make_buffer` is reached from two callers; the tree is read top-down.
#[test]
fn stacks_run_from_main_to_the_allocating_function() {
    let p = parse(&fixture("alloc.massif.out")).unwrap();
    let tree = &p.profile.tree;
    let name = |n: NodeId| p.frames.get(tree.frame(n).unwrap()).function.clone();
    let inclusive = tree.inclusive(0);
    let main = tree
        .children(NodeId::ROOT)
        .iter()
        .copied()
        .find(|&n| name(n) == "main")
        .unwrap();
    let callees: BTreeMap<String, f64> = tree
        .children(main)
        .iter()
        .map(|&n| (name(n), inclusive[n.index()]))
        .collect();
    assert_eq!(callees["read_record"], 247_530.0);
    assert_eq!(callees["load_table"], 51_200.0);
    assert_eq!(callees["grow"], 153_616.0);
    let read_record = tree
        .children(main)
        .iter()
        .copied()
        .find(|&n| name(n) == "read_record");
    let leaf = tree.children(read_record.unwrap())[0];
    assert_eq!(name(leaf), "make_buffer");
    assert_eq!(tree.self_value(leaf, 0), 247_530.0);
    let frame = p.frames.get(tree.frame(leaf).unwrap());
    assert_eq!(frame.file.as_deref(), Some("alloc.c"));
}

const HEAD: &str = "desc: (none)\ncmd: ./a\ntime_unit: i\n";

fn snapshot(number: u32, heap: u64, kind: &str, tree: &str) -> String {
    format!(
        "#-----------\nsnapshot={number}\n#-----------\ntime={number}0\nmem_heap_B={heap}\n\
         mem_heap_extra_B=8\nmem_stacks_B=0\nheap_tree={kind}\n{tree}"
    )
}

#[test]
fn without_a_peak_the_largest_detailed_snapshot_is_read() {
    let small = "n1: 10 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n n0: 10 0x1: f (a.c:1)\n";
    let large = "n2: 30 (heap allocation functions) malloc/new/new[], --alloc-fns, etc.\n n0: 20 0x2: g (a.c:2)\n n0: 10 in 3 places, all below massif's threshold (1.00%)\n";
    let text = format!(
        "{HEAD}{}{}{}",
        snapshot(0, 10, "detailed", small),
        snapshot(1, 30, "detailed", large),
        snapshot(2, 5, "empty", "")
    );
    let p = parse(&text).unwrap();
    assert_eq!(p.profile.totals(), [30.0]);
    let names: Vec<_> = p.frames.iter().map(|(_, f)| f.function.clone()).collect();
    assert_eq!(names, ["g", "(3 places below massif's threshold)"]);
    assert!(p.profile.notes[0].contains("none is marked peak"));

    let empty = format!("{HEAD}{}", snapshot(0, 0, "empty", ""));
    let p = parse(&empty).unwrap();
    assert_eq!(p.profile.totals(), [0.0]);
    assert!(p.profile.notes[0].contains("has a heap tree"));
}

#[test]
fn a_truncated_file_names_the_line_it_stops_at() {
    let text = fixture("alloc.massif.out");
    let lines: Vec<&str> = text.lines().collect();
    // Inside the peak tree, after make_buffer's first caller.
    let peak = lines.iter().position(|l| *l == "heap_tree=peak").unwrap();
    let cut = lines[..peak + 4].join("\n");
    let e = parse(&cut).unwrap_err();
    assert_eq!(e.place, Place::Line(peak + 4), "{e}");
    assert!(e.message.contains("truncated"), "{e}");
    // Inside a snapshot's fields.
    let cut = lines[..peak - 2].join("\n");
    let e = parse(&cut).unwrap_err();
    assert!(e.message.contains("ends before its `heap_tree=`"), "{e}");
    let e = parse("desc: x\ncmd: y\n").unwrap_err();
    assert!(e.message.contains("time_unit:"), "{e}");
    let e = parse(HEAD).unwrap_err();
    assert!(e.message.contains("no snapshots"), "{e}");
}

#[test]
fn corrupt_entries_are_errors_at_their_line() {
    let cases = [
        (
            "n1: 10 root\n n0: x 0x1: f (a.c:1)\n",
            13,
            "not a whole number",
        ),
        (
            "n1: 10 root\n n0: 11 0x1: f (a.c:1)\n",
            13,
            "add up to more",
        ),
        (
            "n1: 10 root\n  n0: 10 0x1: f (a.c:1)\n",
            13,
            "indented by 1",
        ),
        ("n1: 10 root\nsnapshot=3\n", 13, "heap tree entry"),
        (
            "n1: 10 root\n n0: 99999999999999999999999 f\n",
            13,
            "not a whole number",
        ),
    ];
    for (tree, line, message) in cases {
        let text = format!("{HEAD}{}", snapshot(0, 10, "peak", tree));
        let e = parse(&text).unwrap_err();
        assert_eq!(e.place, Place::Line(line), "{tree}: {e}");
        assert!(e.message.contains(message), "{tree}: {e}");
    }
    let deep: String = (0..=MAX_TREE_DEPTH + 1)
        .map(|d| format!("{}n1: 1 0x1: f{d} (a.c:1)\n", " ".repeat(d)))
        .collect();
    let e = parse(&format!("{HEAD}{}", snapshot(0, 1, "peak", &deep))).unwrap_err();
    assert!(e.message.contains("at most 200"), "{e}");
}

#[test]
fn sniffs_the_header_only() {
    let sniff = |text: &str| {
        Massif.sniff(&Input {
            file_name: "x",
            bytes: text.as_bytes(),
        })
    };
    assert!(sniff(&fixture("alloc.massif.out")));
    assert!(sniff("desc: x\ncmd: y"));
    assert!(!sniff("desc: x\ncmd: y\nevents: Ir\nfl=a.c\n"));
    assert!(!sniff(
        "# callgrind format\nversion: 1\ncreator: x\ndesc: I1 cache\ncmd: y\n"
    ));
    assert!(!sniff("cmd: y\ndesc: x\ntime_unit: i\n"));
}
