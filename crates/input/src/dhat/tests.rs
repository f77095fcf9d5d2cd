//! The reader against files DHAT (Valgrind 3.19) wrote for
//! tests/fixtures/valgrind/capture/, checked with DHAT's own summary on
//! stderr, and against broken files.

use std::path::Path;

use super::*;
use crate::parse_bytes;
use model::error::Place;
use model::NodeId;

fn fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/valgrind"
    ));
    std::fs::read(dir.join(name)).unwrap()
}

fn parse(text: &str) -> Result<Parsed, ParseError> {
    Dhat.parse(&Input {
        file_name: "dhat.out.1",
        bytes: text.as_bytes(),
    })
}

/// The numbers of DHAT's stderr line that starts with `label`, e.g.
/// `At t-gmax: 454,027 bytes in 266 blocks` → [454027, 266].
fn summary_line(stderr: &str, label: &str) -> Vec<f64> {
    let line = stderr
        .lines()
        .map(|l| l.split_once("== ").map_or(l, |(_, rest)| rest))
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} line"));
    line[label.len()..]
        .split_whitespace()
        .filter_map(|w| w.replace(',', "").parse().ok())
        .collect()
}

fn metric(p: &Parsed, name: &str) -> usize {
    p.profile
        .metrics
        .iter()
        .position(|m| m.name == name)
        .unwrap()
}

/// Inclusive `metric` of the node reached by the functions `path` from
/// the root.
fn at_path(p: &Parsed, path: &[&str], metric: usize) -> f64 {
    let tree = &p.profile.tree;
    let mut node = NodeId::ROOT;
    for name in path {
        node = *tree
            .children(node)
            .iter()
            .find(|&&c| p.frames.get(tree.frame(c).unwrap()).function == *name)
            .unwrap_or_else(|| panic!("no {name} in {path:?}"));
    }
    tree.inclusive(metric)[node.index()]
}

#[test]
fn heap_totals_are_dhats_own_summary() {
    let stderr = String::from_utf8(fixture("alloc.dhat.stderr")).unwrap();
    let (format, p) = parse_bytes("dhat.out.1", &fixture("alloc.dhat.json")).unwrap();
    assert_eq!(format, "dhat");
    let totals = p.profile.totals();
    let total = summary_line(&stderr, "Total:");
    assert_eq!(totals[metric(&p, "total_bytes")], total[0]);
    assert_eq!(totals[metric(&p, "total_blocks")], total[1]);
    assert_eq!(
        totals[metric(&p, "peak_bytes")],
        summary_line(&stderr, "At t-gmax:")[0]
    );
    let end = summary_line(&stderr, "At t-end:");
    assert_eq!(totals[metric(&p, "end_bytes")], end[0]);
    assert_eq!(totals[metric(&p, "end_blocks")], end[1]);
}

/// The program points' own figures (what DHAT's viewer shows per point):
/// `grow`'s realloc loop, and `make_buffer` reached from two callers.
#[test]
fn heap_points_keep_their_stacks_without_the_allocator() {
    let p = Dhat
        .parse(&Input {
            file_name: "dhat.out.1",
            bytes: &fixture("alloc.dhat.json"),
        })
        .unwrap();
    let (bytes, blocks, peak) = (
        metric(&p, "total_bytes"),
        metric(&p, "total_blocks"),
        metric(&p, "peak_bytes"),
    );
    assert_eq!(at_path(&p, &["main", "grow"], bytes), 23_121_616.0);
    assert_eq!(at_path(&p, &["main", "grow"], blocks), 301.0);
    assert_eq!(at_path(&p, &["main", "grow"], peak), 153_616.0);
    let table = ["main", "load_table", "make_buffer"];
    let record = ["main", "read_record", "make_buffer"];
    assert_eq!(at_path(&p, &table, bytes), 51_200.0);
    assert_eq!(at_path(&p, &record, bytes), 247_530.0);
    assert_eq!(at_path(&p, &record, metric(&p, "end_bytes")), 124_215.0);
    assert!(
        p.frames.iter().all(|(_, f)| f.function != "malloc"
            && f.function != "calloc"
            && f.function != "[root]"),
        "Valgrind's replacement allocator and [root] are not frames"
    );
    let grow = p
        .frames
        .iter()
        .find(|(_, f)| f.function == "grow")
        .unwrap()
        .1;
    assert_eq!(grow.file.as_deref(), Some("alloc.c"));
    // One site per allocating function and context: make_buffer twice.
    let alloc = p.profile.allocations.as_ref().unwrap();
    let make_buffer = alloc
        .classes
        .iter()
        .position(|c| c == "make_buffer")
        .unwrap();
    let sites: Vec<_> = alloc
        .sites
        .iter()
        .filter(|s| s.class as usize == make_buffer)
        .collect();
    assert_eq!(sites.len(), 2);
    let bytes: f64 = sites.iter().map(|s| s.bytes).sum();
    assert_eq!(bytes, 298_730.0);
    assert_eq!(alloc.totals(), (20_566.0, 24_706_059.0));
}

#[test]
fn copy_and_ad_hoc_modes_have_their_own_metrics() {
    let stderr = String::from_utf8(fixture("alloc.dhat-copy.stderr")).unwrap();
    let (_, copy) = parse_bytes("x", &fixture("alloc.dhat-copy.json")).unwrap();
    let names: Vec<_> = copy
        .profile
        .metrics
        .iter()
        .map(|m| m.name.as_str())
        .collect();
    assert_eq!(names, ["copied_bytes", "copies"]);
    assert_eq!(copy.profile.totals(), summary_line(&stderr, "Total:"));
    assert!(copy.profile.allocations.is_none());

    let stderr = String::from_utf8(fixture("adhoc.dhat.stderr")).unwrap();
    let (_, adhoc) = parse_bytes("x", &fixture("adhoc.dhat.json")).unwrap();
    assert_eq!(adhoc.profile.totals(), summary_line(&stderr, "Total:"));
    // parse() is called from two lines of main: one function, one node.
    assert_eq!(at_path(&adhoc, &["main", "parse"], 0), 330.0);
    assert_eq!(at_path(&adhoc, &["main", "emit"], 1), 50.0);
}

#[test]
fn a_truncated_file_is_an_error_at_its_end() {
    let text = String::from_utf8(fixture("alloc.dhat.json")).unwrap();
    let cut = &text[..text.len() / 2];
    let e = parse(cut).unwrap_err();
    let lines = cut.lines().count();
    assert!(matches!(e.place, Place::Line(n) if n + 1 >= lines), "{e}");
    assert!(e.message.contains("EOF"), "{e}");
}

#[test]
fn a_frame_index_outside_the_table_is_named() {
    let text = r#"{"dhatFileVersion":2,"mode":"heap","bklt":true,
        "pps":[{"tb":8,"tbk":1,"gb":8,"eb":0,"ebk":0,"fs":[1]},{"tb":8,"tbk":1,"gb":0,"eb":0,"ebk":0,"fs":[1,7]}],
        "ftbl":["[root]","0x1: f (a.c:1)"]}"#;
    let e = parse(text).unwrap_err();
    assert_eq!(e.place, Place::Json("$.pps[1].fs[1]".into()));
    assert!(e.message.contains("frame index 7"), "{e}");
}

#[test]
fn missing_or_wrong_members_are_named() {
    let no_gb = r#"{"dhatFileVersion":2,"mode":"heap","bklt":true,
        "pps":[{"tb":8,"tbk":1,"eb":0,"ebk":0,"fs":[]}],"ftbl":["[root]"]}"#;
    let e = parse(no_gb).unwrap_err();
    assert_eq!(e.place, Place::Json("$.pps[0]".into()));
    assert!(e.message.contains("`gb`"), "{e}");

    let mode = r#"{"dhatFileVersion":2,"mode":"<b>x</b>","pps":[],"ftbl":[]}"#;
    let e = parse(mode).unwrap_err();
    assert_eq!(e.place, Place::Json("$.mode".into()));

    let negative =
        r#"{"dhatFileVersion":2,"mode":"copy","pps":[{"tb":-1,"tbk":1,"fs":[]}],"ftbl":[]}"#;
    let e = parse(negative).unwrap_err();
    assert!(matches!(e.place, Place::Line(1)), "{e}");

    let huge = r#"{"dhatFileVersion":2,"mode":"copy","pps":[{"tb":99999999999999999999999,"tbk":1,"fs":[]}],"ftbl":[]}"#;
    assert!(parse(huge).is_err());
}

#[test]
fn hostile_names_stay_text_and_the_file_is_sniffed_by_its_key() {
    let text = r#"{"dhatFileVersion":2,"mode":"copy",
        "pps":[{"tb":5,"tbk":1,"fs":[1]}],
        "ftbl":["[root]","0x1: </script><svg onload=alert(1)> (x.c:3)"]}"#;
    let p = parse(text).unwrap();
    let (_, frame) = p.frames.iter().next().unwrap();
    assert_eq!(frame.function, "</script><svg onload=alert(1)>");
    let input = Input {
        file_name: "x",
        bytes: text.as_bytes(),
    };
    assert!(Dhat.sniff(&input));
    let other = Input {
        file_name: "x",
        bytes: br#"{"pps":[],"ftbl":[]}"#,
    };
    assert!(!Dhat.sniff(&other));
}
