//! The CPU-profile readers of call graphs, end to end: callgrind files
//! (tests/fixtures/callgrind) and gprof reports (tests/fixtures/gprof),
//! converted to folded stacks and built into a site, with their totals
//! and top functions checked against the tool's own figures
//! (callgrind_annotate's and gprof's, saved beside the fixtures).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
}

/// `perfatlas convert FILE --to folded`: per function (the last frame,
/// without its location) its own total, and the sum of all stacks.
fn convert_to_folded(file: &Path) -> (BTreeMap<String, f64>, f64) {
    let out = common::convert_to_folded(file);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("skipped"), "{stderr}");
    let mut own = BTreeMap::new();
    let mut total = 0.0;
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        let count: f64 = count.parse().unwrap();
        let leaf = stack.rsplit(';').next().unwrap();
        let name = leaf.split(" (").next().unwrap().to_string();
        *own.entry(name).or_default() += count;
        total += count;
    }
    (own, total)
}

/// A row of callgrind_annotate: its first figure, and the function.
fn annotate_rows(file: &Path) -> Vec<(f64, String)> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| l.contains(" prog.c:") || l.contains("PROGRAM TOTALS"))
        .map(|l| {
            let figure = l.split_whitespace().next().unwrap().replace(',', "");
            let name = l
                .split(" [")
                .next()
                .unwrap()
                .rsplit([':', ' '])
                .next()
                .unwrap();
            (figure.parse().unwrap(), name.to_string())
        })
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// A file named as valgrind names it, `callgrind.out.PID`: converted, its
/// stacks' own instructions per prog.c function are callgrind_annotate's,
/// and their total its PROGRAM TOTALS.
#[test]
fn a_callgrind_out_file_converts_to_stacks_with_callgrind_annotates_figures() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("callgrind.out.17905");
    std::fs::copy(fixtures("callgrind").join("prog.callgrind.out"), &file).unwrap();
    let (own, total) = convert_to_folded(&file);
    let rows = annotate_rows(&fixtures("callgrind").join("prog.callgrind.out.annotate.txt"));
    let (program, _) = rows.iter().find(|(_, n)| n == "TOTALS").unwrap();
    assert!(close(total, *program), "{total} vs {program}");
    let mut checked = 0;
    for (figure, name) in rows.iter().filter(|(_, n)| n != "TOTALS") {
        assert!(
            close(own[name], *figure),
            "{name}: {} vs {figure}",
            own[name]
        );
        checked += 1;
    }
    assert_eq!(checked, 10);
    // The top function of both: fib's recursion level 2.
    let top = own.iter().max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
    assert_eq!(top.0, "fib'2");
}

/// `build --strict` on a versions directory holding one callgrind file
/// per version succeeds, and the pages name the functions.
#[test]
fn a_build_of_callgrind_files_succeeds_with_strict() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    std::fs::create_dir_all(input.join("1.0")).unwrap();
    std::fs::create_dir_all(input.join("1.1")).unwrap();
    let cg = fixtures("callgrind");
    std::fs::copy(
        cg.join("prog.callgrind.out"),
        input.join("1.0/callgrind.out.1"),
    )
    .unwrap();
    std::fs::copy(
        cg.join("prog-instr.callgrind.out.gz"),
        input.join("1.1/callgrind.out.2.gz"),
    )
    .unwrap();
    let site = dir.path().join("site");
    let out = common::build(&input, &site, &["--strict"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("callgrind"), "format not named on the index");
}

/// gprof's report, full and brief: converted, each function's own time
/// is its `gprof -p` self seconds, and the stacks follow `gprof -q`
/// (checksum under parse and render).
#[test]
fn a_gprof_report_converts_to_stacks_with_gprofs_figures() {
    let dir = fixtures("gprof");
    let flat = std::fs::read_to_string(dir.join("prog-flat.gprof.txt")).unwrap();
    let rows: Vec<(String, f64)> = flat
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("time "))
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (
                w[w.len() - 1].to_string(),
                w[2].parse::<f64>().unwrap() * 1e9,
            )
        })
        .collect();
    for name in ["prog.gprof.txt", "prog-brief.gprof.txt"] {
        let (own, total) = convert_to_folded(&dir.join(name));
        for (function, ns) in &rows {
            assert!(close(own[function], *ns), "{name}: {function}");
        }
        let sum: f64 = rows.iter().map(|(_, ns)| ns).sum();
        assert!(close(total, sum), "{name}");
        let top = own.iter().max_by(|a, b| a.1.total_cmp(b.1)).unwrap();
        assert_eq!(top.0, "is_odd");
    }
}

/// `build --strict` on a directory with a gprof report and a callgrind
/// file of the same program succeeds.
#[test]
fn a_build_of_gprof_reports_succeeds_with_strict() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    std::fs::create_dir_all(input.join("1.0")).unwrap();
    std::fs::copy(
        fixtures("gprof").join("prog.gprof.txt"),
        input.join("1.0/report.txt"),
    )
    .unwrap();
    std::fs::copy(
        fixtures("callgrind").join("prog.callgrind.out"),
        input.join("1.0/callgrind.out.7"),
    )
    .unwrap();
    let site = dir.path().join("site");
    let out = common::build(&input, &site, &["--strict"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
