//! End-to-end tests of the flame-graph suite on real profiles: differential
//! pages against version means computed straight from the folded files,
//! derived metrics on a real Go heap profile, code links from a sources
//! directory, and very deep stacks within the page budget.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use common::{
    assert_self_contained, build, build_storing_derived, read_folded, read_tree, sample_data,
};

fn page(out: &Path, path: &str) -> String {
    fs::read_to_string(out.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The JSON of `<script id="ID">` in a page.
fn script_json(html: &str, id: &str) -> serde_json::Value {
    let open = format!("id=\"{id}\">");
    let start = html.find(&open).expect("data script") + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).expect("page data is JSON")
}

/// The page data of graph `k` of a view (metric `metric` by name, `shape`)
/// of a page with views: profile and differential pages keep every
/// view's graphs in `#pa-views`, names and locations in shared tables.
fn view_graph(html: &str, metric: &str, shape: &str, k: usize) -> serde_json::Value {
    let views = script_json(html, "pa-views");
    let m = views["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .position(|s| s == metric)
        .unwrap_or_else(|| panic!("metric {metric} in {}", views["metrics"]));
    let view = views["views"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["metric"] == m && v["shape"] == shape)
        .unwrap_or_else(|| panic!("view {metric} {shape}"));
    let mut data = view["graphs"][k]["data"].clone();
    if let Some(at) = data["frames_at"].as_u64() {
        data["frames"] = views["frames"][at as usize].clone();
    }
    data
}

/// How the report prints a sample count: grouped, at most two decimals.
fn samples(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let grouped = common::grouped(int.parse().unwrap());
    if frac.is_empty() {
        format!("{grouped} samples")
    } else {
        format!("{grouped}.{frac} samples")
    }
}

/// A folded frame `name (file:line)` as the function `name (file)`.
fn escaped(name: &str) -> String {
    name.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn function_of(frame: &str) -> String {
    match frame.rsplit_once(':') {
        Some((head, tail)) if tail.ends_with(')') => format!("{head})"),
        _ => frame.to_string(),
    }
}

/// Mean total and the set of function-level call paths of a version.
fn version_facts(version: &str) -> (f64, BTreeSet<Vec<String>>) {
    let mut total = 0;
    let mut paths = BTreeSet::new();
    for rep in 1..=3 {
        let file = sample_data().join(format!("{version}/convert-basic.{rep}.folded"));
        for line in read_folded(&file) {
            total += line.count;
            let stack: Vec<String> = line.frames.iter().map(|f| function_of(f)).collect();
            for k in 1..=stack.len() {
                paths.insert(stack[..k].to_vec());
            }
        }
    }
    (total as f64 / 3.0, paths)
}

#[test]
fn diff_pages_compare_version_means_and_tag_deleted_paths() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    // With the standalone files, whose frames all carry their tooltip (a
    // page leaves it out of frames too narrow to hover), and the per-frame
    // changes the page script derives stored.
    build_storing_derived(&sample_data(), &out, &["--svg-files"]);
    let (old_mean, old_paths) = version_facts("3.6");
    let (new_mean, new_paths) = version_facts("3.7");
    let html = page(&out, "flamediff/convert-basic/3.6--3.7.html");
    let total = html.split("id=\"pa-total\">").nth(1).unwrap();
    let expected = format!("{} → {}", samples(old_mean), samples(new_mean));
    assert!(
        total.starts_with(&expected),
        "diff total {:?} starts with {expected:?}",
        &total[..80.min(total.len())]
    );
    // A call path of 3.6 missing from 3.7, as wide as possible, is drawn
    // and tagged [D]; one only in 3.7 is tagged [A].
    let svg = page(&out, "flamediff/convert-basic/3.6--3.7.samples.svg");
    let gone = old_paths
        .difference(&new_paths)
        .min_by_key(|p| p.len())
        .expect("a deleted path");
    let name = escaped(gone.last().unwrap().split(" (").next().unwrap());
    assert!(
        svg.contains(&format!("<title>[D] {name}\n")),
        "deleted frame {name} of {gone:?} is drawn with its tag"
    );
    let added = new_paths
        .difference(&old_paths)
        .min_by_key(|p| p.len())
        .expect("an added path");
    let name = escaped(added.last().unwrap().split(" (").next().unwrap());
    assert!(
        svg.contains(&format!("<title>[A] {name}\n")),
        "added frame {name}"
    );
    // The other shapes of the same diff draw tagged frames too.
    for shape in ["bottom-up", "flat"] {
        let other = page(
            &out,
            &format!("flamediff/convert-basic/3.6--3.7.samples.{shape}.svg"),
        );
        assert!(
            other.contains("<title>[+] ") && other.contains("<title>[−] "),
            "{shape} diff tags"
        );
    }
    // Counts of tags under the title add up to the frames drawn.
    let data = view_graph(&html, "samples", "top-down", 0);
    let tagged = data["diff"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d.is_null())
        .count();
    let counted: usize = html
        .split("id=\"pa-tag-counts\">")
        .nth(1)
        .unwrap()
        .split("</dd>")
        .next()
        .unwrap()
        .split(" · ")
        .map(|c| c.rsplit(' ').next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(counted, tagged);
}

fn heap_fixture(dir: &Path, metrics: &str) -> std::path::PathBuf {
    let input = dir.join("go-demo");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pprof/go-demo/1.0");
    fs::create_dir_all(input.join("1.0")).unwrap();
    for f in fs::read_dir(&src).unwrap() {
        let f = f.unwrap();
        fs::copy(f.path(), input.join("1.0").join(f.file_name())).unwrap();
    }
    fs::write(
        input.join("perfatlas.toml"),
        format!("[metrics]\n{metrics}\n"),
    )
    .unwrap();
    input
}

#[test]
fn derived_metrics_become_pages_or_table_columns_and_bad_ones_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let input = heap_fixture(
        dir.path(),
        "bytes_per_object = \"alloc_space / alloc_objects\"\nalloc_kib = \"alloc_space / 1024\"",
    );
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let total = |metric: &str| {
        let html = page(&out, "profiles/demo-heap/1.0/r1.html");
        view_graph(&html, metric, "top-down", 0)["total"]
            .as_f64()
            .unwrap()
    };
    let (space, objects) = (total("alloc_space"), total("alloc_objects"));
    assert!(space > 0.0 && objects > 0.0);
    // Additive: a metric of its own, with pages.
    assert!((total("alloc_kib") - space / 1024.0).abs() < 1e-6 * space);
    // A ratio: columns of the tree table; the root row is space / objects.
    // The table written as HTML is the first metric's, alloc_objects.
    let html = page(&out, "profiles/demo-heap/1.0/r1.html");
    assert!(html.contains("alloc_objects · top-down"));
    assert!(html.contains(
        "<th scope=\"col\" class=\"pa-num\" data-col=\"10\">bytes_per_object total</th>"
    ));
    let root = html.split("<tbody>\n<tr>").nth(1).unwrap();
    let cells: Vec<&str> = root
        .split("data-v=\"")
        .skip(1)
        .map(|c| c.split('"').next().unwrap())
        .collect();
    let ratio: f64 = cells[10].parse().unwrap();
    assert!(
        (ratio - space / objects).abs() < 1e-6,
        "{ratio} vs {}",
        space / objects
    );
    assert!(html.contains("division by zero: alloc_objects is 0"));

    for (formula, message) in [
        (
            "bpo = \"alloc_spac / alloc_objects\"",
            "unknown metric \"alloc_spac\"",
        ),
        ("bpo = \"alloc_space / (2 - 2)\"", "division by zero"),
        ("bpo = \"alloc_space / \"", "column 15"),
    ] {
        let bad = dir.path().join("bad");
        let _ = fs::remove_dir_all(&bad);
        fs::create_dir_all(&bad).unwrap();
        let input = heap_fixture(&bad, formula);
        let o = build(&input, &bad.join("site"), &[]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{formula}: {err}");
        assert!(
            err.contains("perfatlas.toml")
                && err.contains("[metrics] bpo")
                && err.contains(message),
            "{formula}: {err}"
        );
    }
}

#[test]
fn sources_directory_gives_code_links_that_resolve_and_editor_links() {
    let dir = tempfile::tempdir().unwrap();
    let history = common::clone_sample_history(dir.path());
    let show = |spec: &str| {
        let o = Command::new("git")
            .arg("-C")
            .arg(&history)
            .args(["show", spec])
            .output()
            .expect("git show");
        assert!(o.status.success());
        o.stdout
    };
    // Only core.py of 3.7, under DIR/3.7/.
    let sources = dir.path().join("src");
    fs::create_dir_all(sources.join("3.7/markdown")).unwrap();
    fs::write(
        sources.join("3.7/markdown/core.py"),
        show("3.7:markdown/core.py"),
    )
    .unwrap();
    let config = dir.path().join("perfatlas.toml");
    let base = fs::read_to_string(sample_data().join("perfatlas.toml")).unwrap();
    fs::write(
        &config,
        format!("{base}\n[flame]\neditor = \"myeditor://open?file={{path}}&line={{line}}\"\n"),
    )
    .unwrap();
    let out = dir.path().join("site");
    let o = build(
        &sample_data(),
        &out,
        &[
            "--sources",
            sources.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let tree = read_tree(&out);
    assert_self_contained(&tree, &dir.path().to_string_lossy(), &["myeditor://"]);
    let sources_pages: Vec<&String> = tree.keys().filter(|k| k.starts_with("source/")).collect();
    assert_eq!(sources_pages, ["source/3.7/markdown/core.py.html"]);
    let profile = page(&out, "profiles/convert-basic/3.7/all.html");
    // markdown() calls convert at core.py:482 in 3.7.
    assert!(profile.contains("href=\"../../../source/3.7/markdown/core.py.html#L482\""));
    assert!(
        !profile.contains("blockparser.py.html"),
        "no link to a file that is not there"
    );
    let source = page(&out, "source/3.7/markdown/core.py.html");
    assert!(
        source.contains("<tr id=\"L482\" class=\"h5\">"),
        "the hottest line is marked"
    );
    assert!(source.contains("href=\"myeditor://open?file="));
    let line = source
        .split("<tr id=\"L482\"")
        .nth(1)
        .unwrap()
        .split("</tr>")
        .next()
        .unwrap();
    assert!(line.contains("return md.convert(text)"), "{line}");
    // The line is on the stack of every convert-basic sample of 3.7 but
    // the ones outside markdown(): its total share is that fraction.
    let mut on_line = 0;
    let mut all = 0;
    for rep in 1..=3 {
        for l in read_folded(&sample_data().join(format!("3.7/convert-basic.{rep}.folded"))) {
            all += l.count;
            if l.frames
                .iter()
                .any(|f| f == "markdown (markdown/core.py:482)")
            {
                on_line += l.count;
            }
        }
    }
    let share = common::percent(on_line as f64, all as f64);
    assert!(
        line.contains(&format!("0.00% / {share}")),
        "{line} has {share}"
    );
}

#[test]
fn very_deep_stacks_build_within_the_page_budget() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("deep");
    fs::create_dir_all(input.join("1.0")).unwrap();
    let chain: Vec<String> = (0..12_000).map(|i| format!("f{i}")).collect();
    let recursive: Vec<&str> = std::iter::repeat_n("rec", 10_000).collect();
    fs::write(
        input.join("1.0/deep.folded"),
        format!("{} 3\n{} 2\nmain 1\n", chain.join(";"), recursive.join(";")),
    )
    .unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let html = page(&out, "profiles/deep/1.0/r1.html");
    let frames = html.matches("<g class=\"f").count();
    assert!(
        frames > 0 && frames <= 12_000,
        "{frames} frames drawn on the page"
    );
    for (shape, graphs) in [("top-down", 1), ("bottom-up", 2), ("flat", 2)] {
        let mut drawn = 0;
        for k in 0..graphs {
            drawn += view_graph(&html, "samples", shape, k)["frames"]
                .as_array()
                .unwrap()
                .len();
        }
        assert!(drawn <= 12_000, "{shape}: {drawn} frames in one view");
    }
    let bottom_up = &html;
    // In the inclusive graph each of the 12,000 functions is 1/12,000 of
    // the width, below a tenth of a pixel: they are merged while building.
    assert!(
        bottom_up.contains("(narrower callers)"),
        "narrow roots merged"
    );
    let top_down = &html;
    assert!(top_down.contains("id=\"pa-total\">6 samples"));
}

#[test]
fn configured_sets_merge_profiles_across_versions() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("perfatlas.toml");
    let base = fs::read_to_string(sample_data().join("perfatlas.toml")).unwrap();
    fs::write(
        &config,
        format!("{base}\n[[flame.aggregates]]\nname = \"basic-late\"\nbenchmarks = [\"convert-b*\"]\nversions = [\"3.6\", \"3.7\"]\n"),
    )
    .unwrap();
    let out = dir.path().join("site");
    // Each frame's value in each profile, which the page script derives,
    // stored.
    let o = build_storing_derived(
        &sample_data(),
        &out,
        &["--config", config.to_str().unwrap()],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(page(&out, "index.html").contains("href=\"aggregates/basic-late.html\""));
    let html = page(&out, "aggregates/basic-late.html");
    let data = view_graph(&html, "samples", "top-down", 0);
    let mut totals = Vec::new();
    for version in ["3.6", "3.7"] {
        for rep in 1..=3 {
            let file = sample_data().join(format!("{version}/convert-basic.{rep}.folded"));
            totals.push(read_folded(&file).iter().map(|l| l.count).sum::<u64>() as f64);
        }
    }
    let mean = totals.iter().sum::<f64>() / 6.0;
    assert!((data["total"].as_f64().unwrap() - mean).abs() < 1e-9);
    // The root's histogram holds each profile's total, in version order.
    let root: Vec<f64> = data["agg"]["values"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(root, totals);
    assert_eq!(data["agg"]["labels"][3], "3.7 r1");
}
