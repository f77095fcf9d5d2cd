//! A profile page stores its profile's tree, and its script
//! (`assets/shapes.js`) derives the bottom-up and flat flame graphs and
//! tree tables from it. The script must derive exactly what perfatlas
//! computes (`analysis::shapes`, `analysis::flame`, `render::tree_table`):
//! the same frames in the same order with the same names, locations,
//! colours and values, and the same table rows.
//!
//! Sites built with `PERFATLAS_TEST_SHIP_DERIVED` store both;
//! `tests/derive_parity/compare.cjs`, run by node, derives every graph and
//! table of every profile page and compares. Inputs: the sample data (two
//! histories), the first-contact history, one version holding a real file
//! of every profile format among the fixtures and, when present, every
//! file of the shared corpus.
//!
//! Without node the test is skipped with a note, except under `CI`, where
//! it fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn node_available() -> bool {
    let found = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        if std::env::var_os("CI").is_some() {
            panic!("node is needed to compare derived views (apt-get install -y nodejs)");
        }
        eprintln!("derive_parity: node not found; skipped");
    }
    found
}

/// Builds `input` into `out` storing derived frames and rows as well.
fn build_storing_both(input: &Path, out: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .args(["build".as_ref(), input.as_os_str(), "-o".as_ref()])
        .arg(out)
        .arg("--no-cache")
        .env("PERFATLAS_TEST_SHIP_DERIVED", "1")
        .output()
        .expect("run perfatlas");
    assert!(
        out.join("index.html").is_file(),
        "{} did not build: {}",
        input.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One version holding a real file of each profile format the fixtures
/// have (each becomes a benchmark of its own).
fn fixtures_history(dir: &Path) -> PathBuf {
    let fixtures = repo().join("tests/fixtures");
    let version = dir.join("fixtures/1.0");
    std::fs::create_dir_all(&version).unwrap();
    for file in [
        "pstats/workload-py311.prof",
        "chrome-trace/busy-page.trace.json.gz",
        "cpp-perf/prog.perf.txt",
        "cpp-perf/prog.folded",
        "async-profiler/alloc-collapsed.txt",
        "heapprofile/alloc.heapprofile",
        "jfr/alloc.jfr",
        "pprof/go-demo/1.0/demo.cpu.pb.gz",
        "pprof/go-demo/1.0/demo-heap.heap.pb.gz",
    ] {
        let from = fixtures.join(file);
        let name = file.replace('/', "_");
        std::fs::copy(&from, version.join(name)).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    dir.join("fixtures")
}

/// One version holding every file of the shared corpus, when it is there.
fn corpus_history(dir: &Path) -> Option<PathBuf> {
    let corpus = repo().join("../shared/corpus");
    if !corpus.is_dir() {
        return None;
    }
    let version = dir.join("corpus/1.0");
    std::fs::create_dir_all(&version).unwrap();
    for entry in walkdir::WalkDir::new(&corpus).into_iter().flatten() {
        let name = entry.file_name().to_string_lossy();
        if !entry.file_type().is_file() || name.starts_with("LICENSE") || name.ends_with(".md") {
            continue;
        }
        let rel = entry.path().strip_prefix(&corpus).unwrap();
        let flat = rel.to_string_lossy().replace('/', "_");
        std::fs::copy(entry.path(), version.join(flat)).unwrap();
    }
    Some(dir.join("corpus"))
}

#[test]
fn the_page_script_derives_the_frames_and_rows_perfatlas_computes() {
    if !node_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = vec![
        common::sample_data(),
        repo().join("sample-data/moment"),
        repo().join("tests/data/first-contact"),
        fixtures_history(dir.path()),
    ];
    inputs.extend(corpus_history(dir.path()));
    let mut sites = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let out = dir.path().join(format!("site-{i}"));
        build_storing_both(input, &out);
        sites.push(out);
    }
    let output = Command::new("node")
        .arg(repo().join("tests/derive_parity/compare.cjs"))
        .args(&sites)
        .output()
        .expect("run node");
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "derived views differ from perfatlas's:\n{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Every site had pages whose views were derived.
    assert_eq!(
        report
            .lines()
            .filter(|l| l.contains(" 0 differences"))
            .count(),
        sites.len(),
        "{report}"
    );
}

#[test]
fn a_page_stores_the_tree_instead_of_the_derived_frames() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    common::build_site(&common::sample_data(), &out);
    let page =
        std::fs::read_to_string(out.join("profiles/convert-extensions/3.7/r1.html")).unwrap();
    let json = page
        .split("<script type=\"application/json\" id=\"pa-views\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .unwrap();
    let views: serde_json::Value = serde_json::from_str(json).unwrap();
    assert!(views["tree"]["parent"]
        .as_array()
        .is_some_and(|p| p.len() > 10));
    let mut derived = 0;
    for view in views["views"].as_array().unwrap() {
        for graph in view["graphs"].as_array().unwrap() {
            let data = &graph["data"];
            match view["shape"].as_str().unwrap() {
                "top-down" => assert!(data["derive"].is_null() && !data["frames_at"].is_null()),
                _ => {
                    assert!(!data["derive"].is_null() && data["frames_at"].is_null());
                    derived += 1;
                }
            }
        }
    }
    // Two metrics × two shapes × exclusive and inclusive.
    assert_eq!(derived, 8);
    let tables = views["tables"].as_array().unwrap();
    let derived_tables: Vec<_> = tables.iter().filter(|t| !t["derive"].is_null()).collect();
    assert_eq!(derived_tables.len(), 4);
    assert!(derived_tables
        .iter()
        .all(|t| t["rows"].as_array().unwrap().is_empty()));
    assert!(page.contains("assets/shapes.js"));
    assert!(out.join("assets/shapes.js").is_file());
}
