//! C++ symbols in real perf output (`tests/fixtures/cpp-perf/`, see its
//! README): `perf script --no-demangle` text and the same collapsed by
//! `inferno-collapse-perf` keep g++'s mangled names. perfatlas must
//!
//! - give every `_Z…` frame a short label and c++filt's full name
//!   (`symbols.cxxfilt.tsv`, written by GNU c++filt 2.40);
//! - count what `perf report` counts: 88 samples, an event count of
//!   352,000,000, and every symbol's self share as perf prints it;
//! - show the label in flame graphs and the full name in their tooltips.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use perfatlas::input::Parsed;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cpp-perf")
        .join(name)
}

fn read(name: &str) -> Parsed {
    perfatlas::convert::read_file(&fixture(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// mangled → c++filt's demangling.
fn cxxfilt() -> BTreeMap<String, String> {
    std::fs::read_to_string(fixture("symbols.cxxfilt.tsv"))
        .unwrap()
        .lines()
        .map(|l| {
            let (m, d) = l.split_once('\t').unwrap();
            (m.to_string(), d.to_string())
        })
        .collect()
}

/// cpp_demangle and c++filt differ in one place: the return type of the
/// function enclosing a lambda inside template arguments.
fn as_cxxfilt(full: &str) -> String {
    full.replace("<void shapes::", "<shapes::")
}

#[test]
fn every_mangled_frame_has_a_label_and_cxxfilts_full_name() {
    let expected = cxxfilt();
    for file in ["prog.perf.txt", "prog.folded"] {
        let parsed = read(file);
        let mut seen = Vec::new();
        for (_, frame) in parsed.frames.iter() {
            assert!(!frame.function.starts_with("_Z"), "{file}: {frame:?}");
            if let Some(full) = &frame.full_name {
                let full = as_cxxfilt(full);
                assert!(
                    expected.values().any(|d| *d == full),
                    "{file}: {full} is not c++filt's reading of any symbol"
                );
                assert!(!frame.function.contains('('), "{file}: {}", frame.function);
                assert!(
                    frame.function.len() < full.len(),
                    "{file}: {}",
                    frame.function
                );
                seen.push(full);
            }
        }
        seen.sort();
        seen.dedup();
        let mut all: Vec<&String> = expected.values().collect();
        all.sort();
        assert_eq!(seen.iter().collect::<Vec<_>>(), all, "{file}");
    }
    let parsed = read("prog.perf.txt");
    let sum = parsed
        .frames
        .iter()
        .find(|(_, f)| f.function == "shapes::Accumulator<…>::sum")
        .expect("the label of _ZNK6shapes11AccumulatorIdE3sumEv")
        .1;
    assert_eq!(
        sum.full_name.as_deref(),
        Some("shapes::Accumulator<double>::sum() const")
    );
}

/// `perf report --no-children --sort sym`: (share in percent, symbol).
fn perf_report() -> (f64, f64, Vec<(f64, String)>) {
    let text = std::fs::read_to_string(fixture("perf-report.txt")).unwrap();
    let mut samples = 0.0;
    let mut events = 0.0;
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# Samples: ") {
            samples = rest.split_whitespace().next().unwrap().parse().unwrap();
        } else if let Some(rest) = line.strip_prefix("# Event count (approx.): ") {
            events = rest.trim().parse().unwrap();
        } else if let Some((pct, rest)) = line.trim().split_once("%  ") {
            let symbol = rest.split_once("] ").unwrap().1.trim();
            rows.push((pct.parse().unwrap(), symbol.to_string()));
        }
    }
    (samples, events, rows)
}

#[test]
fn totals_and_self_shares_are_perf_reports() {
    let (samples, events, rows) = perf_report();
    assert_eq!((samples, events), (88.0, 352_000_000.0));
    let parsed = read("prog.perf.txt");
    let metric = |name: &str| {
        let m = parsed.profile.metrics.iter().position(|m| m.name == name);
        m.unwrap_or_else(|| panic!("no metric {name}"))
    };
    let (count, period) = (metric("samples"), metric("cpu-clock"));
    assert_eq!(parsed.profile.tree.total(count), samples);
    assert_eq!(parsed.profile.tree.total(period), events);
    // perf groups by symbol; perfatlas's frame of a C++ symbol is known by
    // its full name, any other by its function name.
    let demangled = cxxfilt();
    let tree = &parsed.profile.tree;
    let mut by_symbol: BTreeMap<String, f64> = BTreeMap::new();
    for node in tree.node_ids() {
        if let Some(f) = tree.frame(node) {
            let frame = parsed.frames.get(f);
            let key = match &frame.full_name {
                Some(full) => as_cxxfilt(full),
                None => frame.function.clone(),
            };
            *by_symbol.entry(key).or_default() += tree.self_value(node, count);
        }
    }
    assert!(rows.len() >= 10, "{rows:?}");
    for (pct, symbol) in &rows {
        let key = demangled.get(symbol).unwrap_or(symbol);
        let share = 100.0 * by_symbol.get(key).copied().unwrap_or(0.0) / samples;
        assert!(
            (share - pct).abs() < 0.006,
            "{symbol}: perf report {pct}%, perfatlas {share:.2}%"
        );
    }
}

#[test]
fn flame_graphs_show_labels_and_tooltips_the_full_names() {
    let dir = tempfile::tempdir().unwrap();
    let version = dir.path().join("input/1.0");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::copy(fixture("prog.perf.txt"), version.join("prog.perf.txt")).unwrap();
    let site = dir.path().join("site");
    common::build_site(&dir.path().join("input"), &site);
    let page = std::fs::read_to_string(site.join("profiles/prog/1.0/r1.html")).unwrap();
    // The inline graph: a label in a box, the full name in its tooltip
    // (escaped), and both in the script's data.
    assert!(
        page.contains(">shapes::Accumulator&lt;…&gt;::sum</text>"),
        "label"
    );
    assert!(
        page.contains(
            "shapes::Accumulator&lt;…&gt;::sum\nshapes::Accumulator&lt;double&gt;::sum() const"
        ),
        "tooltip"
    );
    assert!(page.contains("\"full\":["), "full names in the view data");
    assert!(
        page.contains(r#""shapes::Accumulator\u003cdouble\u003e::sum() const""#),
        "full names in the view data"
    );
    assert!(!page.contains("_ZNK6shapes"), "a mangled name is left");
}
