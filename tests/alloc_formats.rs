//! Valgrind's DHAT and massif files and pyinstrument's JSON report through
//! the real binary, with figures from each tool's own summary of the same
//! run (see tests/fixtures/valgrind/README.md and
//! tests/fixtures/pyinstrument/README.md):
//!
//! - `perfatlas convert FILE --to folded`: the folded totals are DHAT's
//!   exit summary (`Total:`, `At t-gmax:`, `At t-end:`), `ms_print`'s peak
//!   and its top entries, pyinstrument's root time and hot function;
//! - `perfatlas build` on a version directory holding the three: every
//!   file read, and allocation pages for the two Valgrind files naming
//!   the program's allocating functions.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// `perfatlas convert FILE --to folded [--metric M]`: (stack, value) lines.
fn folded(file: &Path, metric: Option<&str>) -> Vec<(Vec<String>, f64)> {
    let mut args = vec!["convert", file.to_str().unwrap(), "--to", "folded"];
    if let Some(m) = metric {
        args.extend(["--metric", m]);
    }
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    let out = common::perfatlas(&args);
    assert!(
        out.status.success(),
        "convert {} failed: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let (stack, value) = line.rsplit_once(' ').unwrap();
            let frames = stack.split(';').map(function).collect();
            (frames, value.parse().unwrap())
        })
        .collect()
}

/// `make_buffer (alloc.c:12)` → `make_buffer`.
fn function(frame: &str) -> String {
    frame.split(" (").next().unwrap().to_string()
}

fn total(lines: &[(Vec<String>, f64)]) -> f64 {
    lines.iter().map(|(_, v)| v).sum()
}

/// The value of every stack whose innermost frame is `leaf`.
fn at_leaf(lines: &[(Vec<String>, f64)], leaf: &str) -> f64 {
    lines
        .iter()
        .filter(|(s, _)| s.last().map(String::as_str) == Some(leaf))
        .map(|(_, v)| v)
        .sum()
}

/// The first number after `label` on DHAT's stderr, e.g. `At t-end:`.
fn dhat_figure(label: &str) -> f64 {
    let stderr = std::fs::read_to_string(fixture("valgrind/alloc.dhat.stderr")).unwrap();
    let line = stderr.lines().find(|l| l.contains(label)).unwrap();
    let after = &line[line.find(label).unwrap() + label.len()..];
    after
        .split_whitespace()
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap()
}

#[test]
fn dhat_folded_totals_are_dhats_exit_summary() {
    let file = fixture("valgrind/alloc.dhat.json");
    let all = folded(&file, None);
    assert_eq!(total(&all), dhat_figure("Total:"));
    assert_eq!(total(&folded(&file, Some("total_blocks"))), 20_566.0);
    assert_eq!(
        total(&folded(&file, Some("peak_bytes"))),
        dhat_figure("At t-gmax:")
    );
    assert_eq!(
        total(&folded(&file, Some("end_bytes"))),
        dhat_figure("At t-end:")
    );
    // grow's realloc loop allocates the most; no stack ends in malloc.
    let top = all.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(top.0, ["main", "grow"]);
    assert!(all.iter().all(|(s, _)| s.last().unwrap() != "malloc"));
}

/// `ms_print`'s peak snapshot: the total and the top-level entries.
fn ms_print_peak() -> (f64, BTreeMap<String, f64>) {
    let report = std::fs::read_to_string(fixture("valgrind/alloc.ms_print.txt")).unwrap();
    let bytes = |s: &str| -> f64 { s.replace([',', 'B'], "").parse().unwrap() };
    let start = report
        .lines()
        .position(|l| l.contains("(heap allocation functions)") && l.contains("(454,027B)"))
        .expect("ms_print's peak tree");
    let lines: Vec<&str> = report.lines().skip(start).collect();
    let total = bytes(lines[0].split(['(', ')']).nth(1).unwrap());
    let mut top = BTreeMap::new();
    for line in &lines[1..] {
        if line.is_empty() {
            break;
        }
        let Some(entry) = line.strip_prefix("->") else {
            continue;
        };
        let (figure, what) = entry.split_once(") ").unwrap();
        let figure = bytes(figure.rsplit('(').next().unwrap());
        let name = match what.split_once(": ") {
            Some((_, frame)) => function(frame),
            None => "below threshold".to_string(),
        };
        top.insert(name, figure);
    }
    (total, top)
}

#[test]
fn massif_folded_peak_is_ms_prints_peak() {
    let lines = folded(&fixture("valgrind/alloc.massif.out"), None);
    let (peak, top) = ms_print_peak();
    assert_eq!(total(&lines), peak);
    assert_eq!(at_leaf(&lines, "make_buffer"), top["make_buffer"]);
    assert_eq!(at_leaf(&lines, "grow"), top["grow"]);
    let below: f64 = lines
        .iter()
        .filter(|(s, _)| s[0].contains("below massif's threshold"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(below, top["below threshold"]);
    // make_buffer is reached from two callers, each its own stack.
    let callers: Vec<&str> = lines
        .iter()
        .filter(|(s, _)| s.last().unwrap() == "make_buffer")
        .map(|(s, _)| s[1].as_str())
        .collect();
    assert_eq!(callers.len(), 2, "{callers:?}");
}

/// Seconds on pyinstrument's text line for `function` (the first one).
fn pyinstrument_seconds(report: &str, function: &str) -> Vec<f64> {
    report
        .lines()
        .filter_map(|l| {
            let body = l.trim_start_matches([' ', '│', '├', '└', '─']);
            let (seconds, rest) = body.split_once(' ')?;
            (rest.split("  ").next()? == function).then(|| seconds.parse().ok())?
        })
        .collect()
}

#[test]
fn pyinstrument_folded_has_its_root_time_and_hot_function() {
    let lines = folded(&fixture("pyinstrument/workload.json"), None);
    let report = std::fs::read_to_string(fixture("pyinstrument/workload.txt")).unwrap();
    let root = pyinstrument_seconds(&report, "<module>")[0];
    assert!(
        (total(&lines) / 1e9 - root).abs() <= 0.0005,
        "{}",
        total(&lines)
    );
    let checksum: f64 = pyinstrument_seconds(&report, "checksum").iter().sum();
    assert!((at_leaf(&lines, "checksum") / 1e9 - checksum).abs() <= 0.001);
    let top = lines.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(top.0.last().unwrap(), "checksum");
}

#[test]
fn a_version_directory_of_the_three_builds_allocation_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let version = input.join("1.0");
    std::fs::create_dir_all(&version).unwrap();
    for (from, to) in [
        ("valgrind/alloc.dhat.json", "dhat.out.1"),
        ("valgrind/alloc.massif.out", "massif.out.1"),
        ("pyinstrument/workload.json", "workload.json"),
    ] {
        std::fs::copy(fixture(from), version.join(to)).unwrap();
    }
    let out = tmp.path().join("site");
    let result = common::build(&input, &out, &["--strict"]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    for benchmark in ["dhat", "massif"] {
        let page = out.join(format!("alloc/{benchmark}/1.0.html"));
        let html =
            std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        for function in ["make_buffer", "grow"] {
            assert!(html.contains(function), "{benchmark}: no {function}");
        }
        assert!(!html.contains(">malloc<"), "{benchmark}: malloc as a site");
    }
    assert!(out.join("profiles/workload/1.0/r1.html").is_file());
}
