//! A profile page stores its profile's tree, and its script
//! (`assets/shapes.js`) derives its flame graphs (top-down, bottom-up,
//! flat) and the tree tables not written as HTML from it; a differential
//! page stores each metric's old and new means and derives every view; an
//! aggregate page stores the profiles it merges and derives the merge.
//! The script must derive exactly what perfatlas computes
//! (`analysis::shapes`, `analysis::flame_diff`, `analysis::aggregate`,
//! `analysis::flame`, `render::tree_table`): the same frames in the same
//! order with the same names, locations, colours and values (and per-frame
//! changes and per-profile values), and the same table rows.
//!
//! Sites built with `PERFATLAS_TEST_SHIP_DERIVED` store both;
//! `tests/derive_parity/compare.cjs`, run by node, derives every graph and
//! table of every profile page and compares. Inputs: the sample data (two
//! histories), the first-contact history, one version holding a real file
//! of every profile format among the fixtures and, when present, every
//! file of the shared corpus.
//!
//! A component page draws its call graphs and execution timelines in the
//! same way (`assets/component.js`, from its tables of callers and callees
//! and its shares), and must draw the SVG `render::callgraph_svg` and
//! `render::timeline_svg` draw, byte for byte: such sites store those
//! too, and `tests/derive_parity/components.cjs` compares every section of
//! every component page of the two sample histories.
//!
//! Without node the tests are skipped with a note, except under `CI`,
//! where they fail.

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
    let output = common::build_storing_derived(input, out, &["--no-cache"]);
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
    let report = run_over_sites(
        dir.path(),
        &inputs,
        "compare.cjs",
        "derived views differ from perfatlas's",
    );
    // Every site had pages whose views were derived.
    assert_eq!(
        report
            .lines()
            .filter(|l| l.contains(" 0 differences"))
            .count(),
        inputs.len(),
        "{report}"
    );
    // The sample data's repetitions after the first are stored as their
    // differences from it, and were compared too.
    let sample = report.lines().next().unwrap_or_default();
    assert!(
        sample.contains("repetitions made whole") && !sample.contains(" 0 repetitions made whole"),
        "{report}"
    );
}

/// Builds each input into `dir/site-N` storing what the scripts derive
/// and what perfatlas computed, runs `tests/derive_parity/SCRIPT` over the
/// sites under node, and gives its report; fails with `what` when the
/// script does.
fn run_over_sites(dir: &Path, inputs: &[PathBuf], script: &str, what: &str) -> String {
    let mut sites = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let out = dir.join(format!("site-{i}"));
        build_storing_both(input, &out);
        sites.push(out);
    }
    let output = Command::new("node")
        .arg(repo().join("tests/derive_parity").join(script))
        .args(&sites)
        .output()
        .expect("run node");
    let report = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what}:\n{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    report
}

#[test]
fn the_component_script_draws_the_svg_perfatlas_draws() {
    if !node_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let inputs = [common::sample_data(), repo().join("sample-data/moment")];
    let report = run_over_sites(
        dir.path(),
        &inputs,
        "components.cjs",
        "drawn call graphs or timelines differ from perfatlas's",
    );
    // Both sites had component pages with graphs and timelines drawn.
    let compared: Vec<&str> = report
        .lines()
        .filter(|l| l.contains(" 0 differences") && !l.contains(" 0 timelines"))
        .collect();
    assert_eq!(compared.len(), inputs.len(), "{report}");
}

/// The `#pa-views` data of a built page.
fn views_of(page: &Path) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    assert!(html.contains("assets/shapes.js"), "{}", page.display());
    // The HTML table is for reading without JavaScript, down to 1% (its
    // flame graph has every context); the script writes and sorts the
    // whole one, down to 0.2%.
    assert!(
        html.contains("contexts below 1% or beyond")
            && html.contains("(with JavaScript, the table goes down to 0.2%)"),
        "{}",
        page.display()
    );
    let table = html.split("id=\"pa-table\"").nth(1).unwrap();
    let table = table.split("</table>").next().unwrap();
    assert!(table.contains("<td style=\"--d:1\">"), "{}", page.display());
    assert!(!table.contains("data-v="), "{}", page.display());
    let json = html
        .split("<script type=\"application/json\" id=\"pa-views\">")
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .unwrap();
    serde_json::from_str(json).unwrap()
}

/// Tree `k` of a page's stored trees.
fn views_of_page_tree(page: &serde_json::Value, k: usize) -> &serde_json::Value {
    &page["tree"]["trees"][k]
}

/// The views a repetition's page would store, as its version's aggregate
/// page stores them.
fn repetition_views_of(page: &Path, rep: &str) -> serde_json::Value {
    let html = std::fs::read_to_string(page).unwrap();
    let open =
        format!("<script type=\"application/json\" class=\"pa-rep-views\" data-rep=\"{rep}\">");
    let json = html
        .split(open.as_str())
        .nth(1)
        .and_then(|rest| rest.split("</script>").next())
        .unwrap_or_else(|| panic!("no views of {rep} in {}", page.display()));
    serde_json::from_str(json).unwrap()
}

#[test]
fn pages_store_their_trees_instead_of_the_derived_frames() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    common::build_site(&common::sample_data(), &out);
    assert!(out.join("assets/shapes.js").is_file());

    // A repetition (time and samples), a view of its version's aggregate
    // page: its views as its own page would store them, but derived from
    // the page's stored tree of it, their names and locations extending
    // the page's; every graph and every table derived.
    let aggregate = out.join("profiles/convert-extensions/3.7/all.html");
    let views = repetition_views_of(&aggregate, "r1");
    assert!(views["tree"].is_null());
    assert_eq!(views["page_tree"], 0);
    let (names, locations) = (views["base"][0].as_u64(), views["base"][1].as_u64());
    let page = views_of(&aggregate);
    assert_eq!(names, Some(page["names"].as_array().unwrap().len() as u64));
    assert_eq!(
        locations,
        Some(page["locations"].as_array().unwrap().len() as u64)
    );
    assert_eq!(
        views_of_page_tree(&page, 0)["parent"]
            .as_array()
            .map(|p| p.len() > 10),
        Some(true)
    );
    assert!(views["frames"].as_array().unwrap().is_empty());
    assert_eq!(views["heaviest"].as_array().map(Vec::len), Some(2));
    let graphs: Vec<&serde_json::Value> = views["views"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|v| v["graphs"].as_array().unwrap())
        .collect();
    // Two metrics × (top-down + bottom-up and flat, exclusive and
    // inclusive).
    assert_eq!(graphs.len(), 10);
    assert!(graphs
        .iter()
        .all(|g| !g["data"]["derive"].is_null() && g["data"]["frames_at"].is_null()));
    let derived_tables = |views: &serde_json::Value| -> usize {
        let tables = views["tables"].as_array().unwrap();
        let derived: Vec<_> = tables.iter().filter(|t| !t["derive"].is_null()).collect();
        assert!(derived
            .iter()
            .all(|t| t["rows"].as_array().unwrap().is_empty()));
        derived.len()
    };
    assert_eq!(derived_tables(&views), 6);
    assert!(views["views"][0]["table"].as_i64().unwrap() >= 0);

    // A differential page: each metric's old and new means; no frames and
    // no per-frame changes stored, every table derived.
    let views = views_of(&out.join("flamediff/convert-extensions/3.6--3.7.html"));
    assert_eq!(views["tree"]["trees"].as_array().unwrap().len(), 4);
    assert_eq!(views["tree"]["diff"]["normalise"], false);
    assert!(views["frames"].as_array().unwrap().is_empty());
    for view in views["views"].as_array().unwrap() {
        let data = &view["graphs"][0]["data"];
        assert!(
            !data["derive"].is_null() && data["diff"].is_null(),
            "{view}"
        );
    }
    assert_eq!(derived_tables(&views), 6);

    // An aggregate page: its three repetitions' trees and their mean (whose
    // bottom-up and flat views the page's script draws), each stored once
    // for both metrics; per-frame values in each profile derived, their
    // labels stored.
    let views = views_of(&out.join("profiles/convert-extensions/3.7/all.html"));
    assert_eq!(views["tree"]["trees"].as_array().unwrap().len(), 4);
    assert_eq!(
        views["tree"]["agg"],
        serde_json::json!([[[0, 0], [1, 0], [2, 0]], [[0, 1], [1, 1], [2, 1]]])
    );
    assert!(views["frames"].as_array().unwrap().is_empty());
    for view in views["views"].as_array().unwrap() {
        let data = &view["graphs"][0]["data"];
        assert!(!data["derive"].is_null(), "{view}");
        assert_eq!(
            data["agg"],
            serde_json::json!({"labels": ["r1", "r2", "r3"]})
        );
    }
    assert_eq!(derived_tables(&views), 2);
}
