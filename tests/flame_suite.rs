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
    // A call path of 3.6 missing from 3.7, as wide as possible, has no
    // width on 3.7's widths (the SVG's), and is drawn on 3.6's, which the
    // page stores for its script, with its values (old, new) = (x, 0); one
    // only in 3.7 is tagged [A].
    let svg = page(&out, "flamediff/convert-basic/3.6--3.7.samples.svg");
    let gone = old_paths
        .difference(&new_paths)
        .min_by_key(|p| p.len())
        .expect("a deleted path");
    let name = escaped(gone.last().unwrap().split(" (").next().unwrap());
    assert!(
        !svg.contains(&format!("<title>[D] {name}\n")),
        "deleted frame {name} of {gone:?} has no width on the newer widths"
    );
    let older = &view_graph(&html, "samples", "top-down", 0)["older"];
    let views = script_json(&html, "pa-views");
    let unescaped = gone.last().unwrap().split(" (").next().unwrap();
    let drawn_deleted = older["frames"]
        .as_array()
        .unwrap()
        .iter()
        .zip(older["diff"].as_array().unwrap())
        .any(|(f, d)| {
            views["names"][f[1].as_u64().unwrap() as usize] == unescaped
                && d[0].as_f64().unwrap() > 0.0
                && d[1].as_f64() == Some(0.0)
        });
    assert!(
        drawn_deleted,
        "deleted frame {unescaped} is drawn on the older widths"
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
    // Counts of tags under the title are of the frames drawn on either
    // version's widths: [A] frames are drawn only on the newer's, [D]
    // frames only on the older's.
    let data = view_graph(&html, "samples", "top-down", 0);
    let with_tag = |data: &serde_json::Value, tag: fn(f64, f64) -> bool| {
        data["diff"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| !d.is_null() && tag(d[0].as_f64().unwrap(), d[1].as_f64().unwrap()))
            .count()
    };
    let counts: std::collections::BTreeMap<String, usize> = html
        .split("id=\"pa-tag-counts\">")
        .nth(1)
        .unwrap()
        .split("</dd>")
        .next()
        .unwrap()
        .split(" · ")
        .map(|c| {
            let (tag, n) = c.rsplit_once(' ').unwrap();
            (tag.to_string(), n.parse::<usize>().unwrap())
        })
        .collect();
    assert_eq!(counts["[A]"], with_tag(&data, |o, n| o == 0.0 && n != 0.0));
    assert_eq!(with_tag(&data, |o, n| n == 0.0 && o != 0.0), 0);
    assert_eq!(
        counts["[D]"],
        with_tag(&data["older"], |o, n| n == 0.0 && o != 0.0)
    );
    let drawn = data["diff"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d.is_null())
        .count();
    assert!(counts.values().sum::<usize>() >= drawn, "{counts:?}");
}

/// The numbers of the issue: version 1.0 spends 10 samples in `f` and 90
/// in `g`; version 2.0 spends 100 in `f` (ten times slower) and 90 in `g`.
fn ten_times_slower(dir: &Path) -> std::path::PathBuf {
    let input = dir.join("input");
    for (version, f) in [("1.0", 10), ("2.0", 100)] {
        fs::create_dir_all(input.join(version)).unwrap();
        fs::write(
            input.join(version).join("work.folded"),
            format!("main;f {f}\nmain;g 90\n"),
        )
        .unwrap();
    }
    input
}

#[test]
fn a_function_ten_times_slower_is_as_wide_as_in_the_newer_version() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    // Storing the frames the script derives (tests/derive_parity.rs
    // checks it derives these).
    build_storing_derived(&ten_times_slower(dir.path()), &out, &["--svg-files"]);
    let html = page(&out, "flamediff/work/1.0--2.0.html");
    // The graph written as HTML: f is 100/190 of the 1,200-pixel width
    // (the mean of the two versions drew it at 55/145, 455.17 px).
    let f = html
        .split("<title>[+] f\n")
        .nth(1)
        .expect("f tagged as grown");
    assert!(
        f.starts_with("grew: 10 samples → 100 samples (+90 samples, +900.0%)</title>"),
        "f's tooltip gives both versions' values and the change: {}",
        &f[..200.min(f.len())]
    );
    // The standalone SVG's tooltips have every line: the shares too.
    let svg = page(&out, "flamediff/work/1.0--2.0.samples.svg");
    assert!(
        svg.contains("share: 10.00% of 1.0 → 52.63% of 2.0</title>"),
        "{svg}"
    );
    let width = f
        .split("width=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(width, format!("{:.2}", 1200.0 * 100.0 / 190.0));
    assert_eq!(width, "631.58");
    // The data the script draws and searches: the newer total (search
    // shares are of it), and the older widths it draws when switched.
    let views = script_json(&html, "pa-views");
    let data = view_graph(&html, "samples", "top-down", 0);
    let value_of = |data: &serde_json::Value, name: &str| {
        let scale = data["scale"].as_f64().unwrap_or(1.0);
        data["frames"]
            .as_array()
            .unwrap()
            .iter()
            .find(|fr| views["names"][fr[1].as_u64().unwrap() as usize] == name)
            .map(|fr| fr[4].as_f64().unwrap() * scale)
    };
    let shares = |data: &serde_json::Value| {
        (
            value_of(data, "f").unwrap(),
            data["total"].as_f64().unwrap(),
        )
    };
    assert_eq!(shares(&data), (100.0, 190.0));
    assert_eq!(shares(&data["older"]), (10.0, 100.0));
    assert_eq!(data["totals"], serde_json::json!([100, 190]));
    // The key says how deleted frames are shown.
    assert!(html.contains("[D] deleted: no width on 2.0's widths; listed in the tree table below"));
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
    // markdown() is one frame at the line it spends most on, which holds
    // its total: every convert-basic sample of 3.7 but the ones outside
    // markdown() (at line 482 or 481, its constructor call).
    let mut on_line = 0;
    let mut all = 0;
    for rep in 1..=3 {
        for l in read_folded(&sample_data().join(format!("3.7/convert-basic.{rep}.folded"))) {
            all += l.count;
            if l.frames
                .iter()
                .any(|f| f.starts_with("markdown (markdown/core.py:"))
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
    // The table's note counts the merged contexts as the page's other
    // counts are written, thousands grouped.
    let counts: Vec<&str> = html
        .split(" contexts below ")
        .skip(1)
        .zip(html.split(" contexts below "))
        .map(|(_, before)| before.rsplit([' ', '>']).next().unwrap_or(""))
        .collect();
    assert!(!counts.is_empty(), "a table note on the page");
    assert!(
        counts.iter().any(|c| c.contains(','))
            && counts.iter().all(|c| c.len() < 4 || c.contains(',')),
        "merged contexts counted as {counts:?}"
    );
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
