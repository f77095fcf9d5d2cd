//! End-to-end tests of the `perfatlas` binary: what a user gets from
//! `build` and `convert`, and the output guarantees (deterministic,
//! self-contained, escaped, atomic, exit codes).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{assert_self_contained, read_tree, sample_data};

fn perfatlas(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .args(args)
        .output()
        .expect("run perfatlas")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn build(input: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "build",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    perfatlas(&args)
}

/// A version directory with folded stacks whose function names are markup.
fn hostile_input(dir: &Path) -> PathBuf {
    let input = dir.join("hostile");
    fs::create_dir_all(input.join("1.0")).unwrap();
    fs::create_dir_all(input.join("1.1")).unwrap();
    let evil = "</script><svg onload=alert(1)>";
    fs::write(
        input.join("1.0/bench.folded"),
        format!("main;{evil};\"quoted\" & 'single' 5\nmain;ok 3\n"),
    )
    .unwrap();
    fs::write(
        input.join("1.1/bench.folded"),
        format!("main;{evil} 2\nmain;ok 7\n"),
    )
    .unwrap();
    fs::write(
        input.join("1.1/<img src=x onerror=alert(2)>.folded"),
        "a;b 1\n",
    )
    .unwrap();
    input
}

#[test]
fn sample_data_builds_twice_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let first = build(&sample_data(), &a, &[]);
    assert!(
        first.status.code() == Some(0) || first.status.code() == Some(1),
        "{}",
        stderr(&first)
    );
    build(&sample_data(), &b, &[]);
    let (ta, tb) = (read_tree(&a), read_tree(&b));
    assert_eq!(ta.keys().collect::<Vec<_>>(), tb.keys().collect::<Vec<_>>());
    for (k, v) in &ta {
        assert!(v == &tb[k], "{k} differs between two builds");
    }
    assert!(ta.contains_key("index.html"));
    // Charts are saved from their pages; standalone files only on request.
    assert!(
        !ta.keys().any(|k| k.ends_with(".svg")),
        "a standalone SVG without --svg-files"
    );
}

#[test]
fn standalone_flame_graph_svgs_only_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, with) = (dir.path().join("plain"), dir.path().join("with"));
    build(&sample_data(), &plain, &[]);
    build(&sample_data(), &with, &["--svg-files"]);
    let flame_svgs = |site: &Path| {
        read_tree(site)
            .into_keys()
            .filter(|k| {
                (k.starts_with("profiles/") || k.starts_with("flamediff/")) && k.ends_with(".svg")
            })
            .count()
    };
    // By default a page offers "Save as SVG" (its script serialises the
    // chart); with --svg-files each graph also has its file, linked.
    assert_eq!(flame_svgs(&plain), 0);
    assert!(flame_svgs(&with) > 100, "{}", flame_svgs(&with));
    // The same for the stacked call graphs of the matrix's component
    // pages, whose sections each offer "Save as SVG": one file per page,
    // a class's holding its methods' graphs after its own.
    let component_files = |site: &Path, ext: &str| {
        read_tree(site)
            .into_keys()
            .filter(|k| k.starts_with("matrix/") && k.contains("/c/") && k.ends_with(ext))
            .collect::<Vec<_>>()
    };
    assert_eq!(component_files(&plain, ".svg").len(), 0);
    let pages = component_files(&with, ".html");
    let svgs = component_files(&with, ".svg");
    assert!(pages.len() > 30, "{}", pages.len());
    assert_eq!(
        svgs,
        pages
            .iter()
            .map(|p| p.replace(".html", ".svg"))
            .collect::<Vec<_>>()
    );
    let class = "matrix/all/c/class-blockparser_py-bc12df32d0afaa22";
    let class_page = fs::read_to_string(with.join(format!("{class}.html"))).unwrap();
    assert!(class_page.contains("<a href=\"class-blockparser_py-bc12df32d0afaa22.svg\">"));
    let stacked = fs::read_to_string(with.join(format!("{class}.svg"))).unwrap();
    assert!(
        stacked.contains("aria-label=\"call graphs of markdown › blockparser.py and its methods\"")
    );
    assert!(stacked.contains(">3.2.2: "), "the class's own graphs");
    assert!(
        stacked.contains(">BlockParser.parseBlocks · 3.2.2: "),
        "its methods' graphs"
    );
    // A version's repetitions are views of its aggregate page, each view's
    // graphs with their files as on a page of its own.
    let page = "profiles/convert-basic/3.7/all.html";
    let plain_page = fs::read_to_string(plain.join(page)).unwrap();
    assert!(plain_page.contains("class=\"pa-save-svg\""));
    assert!(!plain_page.contains("Standalone SVG"));
    let with_page = fs::read_to_string(with.join(page)).unwrap();
    assert!(with_page.contains("Standalone SVG</a>"));
    assert!(with_page.contains(r#""svg_href":"r1.samples.svg""#));
    // Every view's graphs have their files, the ones the script draws too.
    for file in [
        "r1.samples.svg",
        "r1.samples.bottom-up.svg",
        "r1.samples.bottom-up.inclusive.svg",
        "r1.samples.flat.inclusive.svg",
    ] {
        assert!(
            with.join("profiles/convert-basic/3.7").join(file).is_file(),
            "{file}"
        );
    }
    assert!(with_page.contains(r#""svg_href":"r1.samples.bottom-up.svg""#));
}

#[test]
fn site_is_self_contained_and_links_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    build(&sample_data(), &out, &[]);
    let tree = read_tree(&out);
    assert_self_contained(&tree, &dir.path().to_string_lossy(), &[]);
}

#[test]
fn hostile_names_render_as_text_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let input = hostile_input(dir.path());
    let before = read_tree(&input);
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tree = read_tree(&out);
    let mut pages = 0;
    for (path, bytes) in &tree {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains("<svg onload"),
            "{path} contains live markup from a name"
        );
        assert!(
            !text.contains("<img src=x"),
            "{path} contains live markup from a file name"
        );
        assert!(!text.contains("</script><svg"), "{path}");
        if path.ends_with(".html") && path.starts_with("profiles/") && path.contains("bench") {
            pages += 1;
            // Shown as text in the SVG title/text and escaped in the JSON.
            assert!(
                text.contains("&lt;/script&gt;&lt;svg onload=alert(1)&gt;"),
                "{path}"
            );
            assert!(
                text.contains("\\u003c/script\\u003e\\u003csvg onload=alert(1)\\u003e"),
                "{path}"
            );
        }
    }
    assert!(pages >= 2);
    // The matrix and the evil method's component page show it as text too.
    let matrix = String::from_utf8_lossy(&tree["matrix/b/bench/index.html"]).into_owned();
    assert!(matrix.contains("&lt;/script&gt;&lt;svg onload=alert(1)&gt;"));
    assert!(matrix.contains("\\u003c/script\\u003e\\u003csvg onload=alert(1)\\u003e"));
    let evil_sections: usize = tree
        .iter()
        .filter(|(p, _)| p.starts_with("matrix/") && p.contains("/c/") && p.ends_with(".html"))
        .map(|(_, b)| {
            String::from_utf8_lossy(b)
                .matches("<h2>&lt;/script&gt;&lt;svg onload=alert(1)&gt; <span")
                .count()
        })
        .sum();
    assert_eq!(
        evil_sections, 1,
        "one section of its class's page for the markup-named method"
    );
    // The input directory is untouched.
    assert_eq!(read_tree(&input), before);
}

#[test]
fn skipped_inputs_are_listed_with_place_and_exit_code_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("v1")).unwrap();
    fs::write(input.join("v1/good.folded"), "a;b 3\n").unwrap();
    fs::write(
        input.join("v1/half.folded"),
        "a;b 3\nthis line has no count\na 1\n",
    )
    .unwrap();
    fs::write(input.join("v1/junk.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("v1/half.folded: line 2:"), "{err}");
    assert!(err.contains("v1/junk.bin: unrecognised format"), "{err}");
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        index.contains("v1/junk.bin")
            && index.contains("line 2")
            && index.contains("unrecognised format")
    );

    // --strict: nothing built, the previous site stays as it was.
    let before = read_tree(&out);
    let o = build(&input, &out, &["--strict"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--strict"), "{}", stderr(&o));
    assert_eq!(read_tree(&out), before);
}

#[test]
fn refuses_to_replace_a_directory_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("docs");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("precious.txt"), "keep me").unwrap();
    let o = build(&sample_data(), &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(
        fs::read_to_string(out.join("precious.txt")).unwrap(),
        "keep me"
    );
    // Nothing was left beside it either.
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    let o = build(&sample_data(), &out, &["--force"]);
    assert!(o.status.code() != Some(2), "{}", stderr(&o));
    assert!(!out.join("precious.txt").exists());
}

/// Names of the files in a site's build cache.
fn cache_entries(site: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(site.join(".perfatlas-cache"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|name| name != "pages.manifest")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Input `dir/input` with the sample data's versions `versions`.
fn sample_versions(dir: &Path, versions: &[&str]) -> PathBuf {
    let input = dir.join("input");
    for version in versions {
        let to = input.join(version);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(sample_data().join(version)).unwrap() {
            let entry = entry.unwrap();
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    input
}

/// The inode of a site file: a page kept from the previous site is a hard
/// link to the same file.
#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&fs::metadata(path).unwrap())
}

/// The sites of a rebuild and of a build without cache or reuse hold the
/// same files with the same bytes.
fn assert_same_site(rebuilt: &Path, fresh: &Path) {
    let (a, b) = (read_tree(rebuilt), read_tree(fresh));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(
            v == &b[k],
            "{k} differs between the rebuilt and the fresh site"
        );
    }
}

/// A rebuild keeps the flame-graph pages whose inputs did not change
/// (hard links to the previous site's files), renders the others, and
/// gives exactly the site a build from scratch gives.
#[cfg(unix)]
#[test]
fn rebuilds_keep_unchanged_pages_and_give_the_same_site() {
    let dir = tempfile::tempdir().unwrap();
    let input = sample_versions(dir.path(), &["3.2.2", "3.3.7", "3.4.4", "3.5.2", "3.6"]);
    let site = dir.path().join("site");
    let first = build(&input, &site, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(!stderr(&first).contains("kept from the previous site"));
    let early = site.join("profiles/convert-basic/3.2.2/all.html");
    let changed = site.join("profiles/convert-basic/3.4.4/all.html");
    let (early_inode, changed_inode) = (inode(&early), inode(&changed));

    // Nothing changed: every group kept.
    let again = build(&input, &site, &[]);
    let kept = stderr(&again);
    let groups = kept
        .split("; ")
        .nth(1)
        .and_then(|s| s.split(" of ").next())
        .unwrap_or_else(|| panic!("{kept}"));
    assert!(
        kept.contains(&format!(
            "{groups} of {groups} flame-graph page groups unchanged"
        )),
        "{kept}"
    );
    assert_eq!(inode(&early), early_inode);

    // One profile changed in the middle, a version added at the end and a
    // kept page edited by hand: the changed profile's pages, the last
    // versions' (their version links change) and the edited page are
    // rendered again, the rest kept.
    let middle = input.join("3.4.4/convert-basic.1.folded");
    let mut folded = fs::read_to_string(&middle).unwrap();
    folded.push_str("main;changed 3\n");
    fs::write(&middle, folded).unwrap();
    let _ = sample_versions(dir.path(), &["3.7"]);
    let edited = site.join("profiles/convert-basic/3.3.7/all.html");
    fs::write(&edited, "edited").unwrap();
    let grown = build(&input, &site, &[]);
    assert_eq!(grown.status.code(), Some(0), "{}", stderr(&grown));
    assert!(
        stderr(&grown).contains("kept from the previous site"),
        "{}",
        stderr(&grown)
    );
    assert_eq!(inode(&early), early_inode, "an unchanged page is kept");
    assert_ne!(
        inode(&changed),
        changed_inode,
        "a changed profile's page is rendered"
    );
    assert!(fs::read_to_string(&changed).unwrap().contains("changed"));
    assert_ne!(fs::read_to_string(&edited).unwrap(), "edited");
    let version_links =
        fs::read_to_string(site.join("profiles/convert-basic/3.6/all.html")).unwrap();
    assert!(
        version_links.contains(">3.7</a>"),
        "the next version is linked"
    );

    let fresh = dir.path().join("fresh");
    build(&input, &fresh, &["--no-cache"]);
    assert_same_site(&site, &fresh);

    // A zip written by a rebuild holds the kept pages too.
    let zip_path = dir.path().join("report.zip");
    build(&input, &site, &["--zip", zip_path.to_str().unwrap()]);
    let mut archive = zip::ZipArchive::new(fs::File::open(&zip_path).unwrap()).unwrap();
    let mut bytes = Vec::new();
    let name = "profiles/convert-basic/3.2.2/all.html";
    std::io::Read::read_to_end(&mut archive.by_name(name).unwrap(), &mut bytes).unwrap();
    assert_eq!(bytes, fs::read(&early).unwrap());

    // Another configuration renders everything again.
    fs::write(input.join("perfatlas.toml"), "title = \"Other\"\n").unwrap();
    let other = build(&input, &site, &[]);
    assert!(
        !stderr(&other).contains("kept from the previous site"),
        "{}",
        stderr(&other)
    );
}

/// A rebuild takes unchanged inputs from the build cache in the site,
/// parses only what is new or whose entry does not check out, and writes
/// exactly what a build without the cache writes.
#[test]
fn rebuilds_parse_only_new_files_and_give_the_same_site() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    for version in ["3.6", "3.7"] {
        let to = input.join(version);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(sample_data().join(version)).unwrap() {
            let entry = entry.unwrap();
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    // Every file but version.toml is an input.
    let files_in = |v: &str| fs::read_dir(input.join(v)).unwrap().count() - 1;
    let site = dir.path().join("site");
    let first = build(&input, &site, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(
        !stderr(&first).contains("build cache"),
        "{}",
        stderr(&first)
    );
    let entries = cache_entries(&site);
    assert_eq!(entries.len(), files_in("3.6") + files_in("3.7"));

    // Same input: everything from the cache.
    let again = build(&input, &site, &[]);
    let n = entries.len();
    assert!(
        stderr(&again).contains(&format!(
            "({n} of {n} input files unchanged, from the build cache)"
        )),
        "{}",
        stderr(&again)
    );

    // One more version, and one entry damaged: the new files and the
    // damaged one are parsed, the rest taken; the site is what a build
    // without any cache gives, and the damaged entry is replaced.
    let to = input.join("3.8");
    fs::create_dir_all(&to).unwrap();
    // New bytes (a copy under the same name would share its entry).
    let mut folded = fs::read_to_string(sample_data().join("3.7/convert-basic.1.folded")).unwrap();
    folded.push_str("new;frame 1\n");
    fs::write(to.join("convert-basic.1.folded"), folded).unwrap();
    fs::copy(
        sample_data().join("3.7/timings.2.json"),
        to.join("timings.1.json"),
    )
    .unwrap();
    let damaged = site.join(".perfatlas-cache").join(&entries[0]);
    let mut bytes = fs::read(&damaged).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    fs::write(&damaged, &bytes).unwrap();
    let grown = build(&input, &site, &[]);
    assert!(
        stderr(&grown).contains(&format!("({} of {} input files unchanged", n - 1, n + 2)),
        "{}",
        stderr(&grown)
    );
    assert_ne!(
        fs::read(&damaged).unwrap(),
        bytes,
        "the damaged entry is written again"
    );
    assert_eq!(cache_entries(&site).len(), n + 2);
    let fresh = dir.path().join("fresh");
    let uncached = build(&input, &fresh, &["--no-cache"]);
    assert!(!fresh.join(".perfatlas-cache").exists());
    // The same pages and inputs either way.
    let counts = |o: &Output| {
        stderr(o)
            .split(" versions")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(counts(&uncached), counts(&grown));
    let (cached_tree, fresh_tree) = (read_tree(&site), read_tree(&fresh));
    assert_eq!(
        cached_tree.keys().collect::<Vec<_>>(),
        fresh_tree.keys().collect::<Vec<_>>()
    );
    for (k, v) in &cached_tree {
        assert!(
            v == &fresh_tree[k],
            "{k} differs between the cached and the uncached build"
        );
    }
    // Removing a version drops its entries from the cache.
    fs::remove_dir_all(&to).unwrap();
    build(&input, &site, &[]);
    assert_eq!(cache_entries(&site), entries);
}

#[test]
fn zip_holds_the_same_files_as_the_site() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let zip_path = dir.path().join("report.zip");
    build(&sample_data(), &out, &["--zip", zip_path.to_str().unwrap()]);
    let tree = read_tree(&out);
    let mut archive = zip::ZipArchive::new(fs::File::open(&zip_path).unwrap()).unwrap();
    assert_eq!(archive.len(), tree.len());
    let mut f = archive.by_name("index.html").unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut f, &mut bytes).unwrap();
    assert_eq!(bytes, tree["index.html"]);
}

#[test]
fn theme_and_template_overrides_are_used() {
    let dir = tempfile::tempdir().unwrap();
    let templates = dir.path().join("tpl");
    fs::create_dir_all(&templates).unwrap();
    let base = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/render/templates/base.html"),
    )
    .unwrap();
    fs::write(
        templates.join("base.html"),
        base.replace("<main>", "<main><p id=\"custom-banner\">Team report</p>"),
    )
    .unwrap();
    let theme = dir.path().join("corporate");
    fs::create_dir_all(&theme).unwrap();
    fs::write(theme.join("theme.css"), ":root { --bg: #fafaf0; }").unwrap();
    let out = dir.path().join("site");
    let o = build(
        &sample_data(),
        &out,
        &[
            "--templates",
            templates.to_str().unwrap(),
            "--theme",
            theme.to_str().unwrap(),
        ],
    );
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("custom-banner"));
    assert!(index.contains("assets/theme-corporate.css"));
    assert_eq!(
        fs::read_to_string(out.join("assets/theme-corporate.css")).unwrap(),
        ":root { --bg: #fafaf0; }"
    );

    let o = build(&sample_data(), &dir.path().join("x"), &["--theme", "dark"]);
    assert_ne!(o.status.code(), Some(2));
    assert!(fs::read_to_string(dir.path().join("x/index.html"))
        .unwrap()
        .contains("assets/theme-dark.css\""));

    // A misspelt theme is named as such, before anything is read or
    // written (it used to fail later on a missing drak/theme.css).
    let o = build(&sample_data(), &dir.path().join("y"), &["--theme", "drak"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("--theme \"drak\": not a theme (light, dark, colorblind)"),
        "{e}"
    );
    assert!(!dir.path().join("y").exists());
}

#[test]
fn usage_errors_exit_two_with_a_message() {
    let o = perfatlas(&[
        "build",
        "/nonexistent/perfatlas-input",
        "-o",
        "/tmp/never-written",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/perfatlas-input"));
    assert!(!Path::new("/tmp/never-written").exists());
    let o = perfatlas(&["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn convert_folded_round_trips_the_sample_totals() {
    let file = sample_data().join("3.7/convert-basic.1.folded");
    let text = fs::read_to_string(&file).unwrap();
    let expected: f64 = text
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    let o = perfatlas(&["convert", file.to_str().unwrap(), "--to", "folded"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    let got: f64 = out
        .lines()
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(got, expected);
    assert!(out.contains("Markdown.convert (markdown/core.py:"));
    let o = perfatlas(&[
        "convert",
        file.to_str().unwrap(),
        "--to",
        "folded",
        "--metric",
        "nope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("samples"));
}

/// The matrix data embedded in a matrix page.
fn matrix_data(page: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(page);
    let start = text
        .find("id=\"pa-matrix-data\">")
        .expect("matrix data element")
        + "id=\"pa-matrix-data\">".len();
    let end = start + text[start..].find("</script>").unwrap();
    common::matrix_rows_written_out(
        serde_json::from_str(&text[start..end]).expect("matrix data is JSON"),
    )
}

/// `[mean, modified]` of a matrix cell (absent: None).
fn cell(c: &serde_json::Value) -> Option<(f64, u64)> {
    match c {
        serde_json::Value::Array(a) => Some((a[0].as_f64()?, a[4].as_u64()?)),
        n if n.as_f64() == Some(0.0) => None,
        n => Some((n.as_f64()?, 0)),
    }
}

#[test]
fn matrix_marks_methods_changed_in_git_and_says_when_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    // The sample data plus a version 3.8 that has no tag in the history.
    let input = dir.path().join("data");
    for entry in walkdir::WalkDir::new(sample_data()) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(sample_data()).unwrap();
        let to = input.join(rel);
        if entry.file_type().is_dir() {
            fs::create_dir_all(&to).unwrap();
        } else {
            fs::copy(entry.path(), &to).unwrap();
        }
    }
    fs::create_dir_all(input.join("3.8")).unwrap();
    fs::copy(
        input.join("3.7/convert-basic.1.folded"),
        input.join("3.8/convert-basic.1.folded"),
    )
    .unwrap();
    let repo = dir.path().join("repo");
    let cloned = Command::new("git")
        .args(["clone", "-q"])
        .arg(sample_data().join("history.bundle"))
        .arg(&repo)
        .status()
        .unwrap();
    assert!(cloned.success());
    let out = dir.path().join("site");
    let o = build(&input, &out, &["--repo", repo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tree = read_tree(&out);

    // Python-Markdown 3.6 rewrote how the toc extension renders headings
    // (render_inner_html runs every postprocessor per heading): the
    // matrix shows TocTreeprocessor.run modified there and much slower.
    let data = matrix_data(&tree["matrix/b/convert-extensions/index.html"]);
    let labels: Vec<&str> = data["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["label"].as_str().unwrap())
        .collect();
    let v36 = labels.iter().position(|l| *l == "3.6").unwrap();
    let row = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["n"] == "TocTreeprocessor.run")
        .expect("a row for TocTreeprocessor.run");
    let (before, _) = cell(&row["c"][v36 - 1]).unwrap();
    let (after, modified) = cell(&row["c"][v36]).unwrap();
    assert_eq!(modified, 1, "TocTreeprocessor.run is modified in 3.6");
    assert!(after > 2.0 * before, "{before} → {after}");
    let new_helper = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["n"] == "render_inner_html")
        .expect("render_inner_html row");
    assert_eq!(cell(&new_helper["c"][v36 - 1]), None, "absent before 3.6");
    assert_eq!(cell(&new_helper["c"][v36]).unwrap().1, 1);
    // Its popup carries the source diff, and the full diff page exists.
    let has_diff =
        data["diffs"].as_object().unwrap().iter().any(|(k, d)| {
            k.ends_with(&format!(":{v36}")) && d["file"] == "markdown/extensions/toc.py"
        });
    assert!(has_diff);
    let diff_page = String::from_utf8_lossy(&tree["diffs/3.6.html"]).into_owned();
    assert!(diff_page.contains("markdown/extensions/toc.py"));
    assert!(diff_page.contains("def render_inner_html(el: etree.Element, md: Markdown) -&gt; str:"));

    // 3.8 has no tag: no change data, and the page says why.
    let matrix = String::from_utf8_lossy(&tree["matrix/b/convert-basic/index.html"]).into_owned();
    assert!(
        matrix.contains("3.8: no change data: version 3.8 has no revision"),
        "header note for 3.8"
    );
    let basic = matrix_data(&tree["matrix/b/convert-basic/index.html"]);
    assert_eq!(basic["versions"][6]["known"], false);
    assert_eq!(basic["versions"][5]["known"], true);
}

/// The matrix's methods are sections of their class's page: one file per
/// class, package and the project, none per method. Every row's link, and
/// every glyph's (the row's link and `#v-<version>`, as the matrix's
/// script makes it), names a section of a page that exists; ids are
/// unique on every component page; each "Save as SVG" selects the graph
/// of its own section; a class's page shows the class, then lists its
/// methods, then has a section for each, with its source diffs.
#[test]
fn matrix_methods_are_sections_of_their_class_page() {
    let dir = tempfile::tempdir().unwrap();
    let repo = common::clone_sample_history(dir.path());
    let out = dir.path().join("site");
    let o = build(&sample_data(), &out, &["--repo", repo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tree = read_tree(&out);
    let text = |p: &str| String::from_utf8_lossy(&tree[p]).into_owned();
    let ids_of = |html: &str| -> Vec<String> {
        html.split(" id=\"")
            .skip(1)
            .map(|r| r[..r.find('"').unwrap()].to_string())
            .collect()
    };
    let components: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("matrix/") && k.contains("/c/") && k.ends_with(".html"))
        .collect();
    let (mut methods, mut graphs) = (0, 0);
    for page in &components {
        let file = page.rsplit('/').next().unwrap();
        assert!(
            ["project-", "pkg-", "class-"]
                .iter()
                .any(|l| file.starts_with(l)),
            "{page}: a page of its own for a method"
        );
        let html = text(page);
        let ids = ids_of(&html);
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{page}: an id twice");
        // The script draws each graph from its version's column of its
        // block's table of callers and callees by version (which readers
        // without it see), or the version has no calls.
        for block in html.split("<div class=\"pa-mscroll pa-comp-row\">").skip(1) {
            let sections: Vec<&str> = block.split("<section class=\"pa-version").collect();
            let columns = sections[0].matches("<th data-n=\"").count();
            for section in &sections[1..] {
                if section.contains("<div class=\"pa-cg-wrap\"></div>") {
                    assert!(
                        columns == sections.len() - 1 || section.contains("No calls recorded."),
                        "{page}: {columns} columns for {} sections",
                        sections.len() - 1
                    );
                    graphs += 1;
                }
            }
        }
        let Some(first) = html.find("<section class=\"pa-method\"") else {
            assert!(!html.contains("id=\"pa-methods\""), "{page}");
            continue;
        };
        // The class's own versions, the list of its methods, then each.
        let own = html.find(" id=\"v-").unwrap();
        let list = html.find(" id=\"pa-methods\"").unwrap();
        assert!(own < list && list < first, "{page}");
        for section in html[first..]
            .split("<section class=\"pa-method\" id=\"")
            .skip(1)
        {
            let anchor = &section[..section.find('"').unwrap()];
            assert!(anchor.starts_with("m-"), "{page}: {anchor}");
            assert!(
                html[list..first].contains(&format!("<a href=\"#{anchor}\">")),
                "{page}: {anchor} is not in the list of methods"
            );
            methods += 1;
        }
    }
    // One page per component: a benchmark's matrix links the pages of
    // the matrix over all benchmarks.
    assert!(methods > 60, "{methods} method sections");
    assert!(graphs > 100, "{graphs} call graphs");
    // Every row of every matrix, and every glyph of it, leads to its
    // section.
    let matrices: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("matrix/") && k.ends_with("/index.html"))
        .collect();
    assert!(matrices.len() >= 3, "{matrices:?}");
    let mut glyphs = 0;
    for matrix in matrices {
        let data = matrix_data(&tree[matrix.as_str()]);
        let root = "../".repeat(matrix.matches('/').count());
        let versions: Vec<&str> = data["versions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["has"] == true)
            .map(|v| v["slug"].as_str().unwrap())
            .collect();
        for row in data["rows"].as_array().unwrap() {
            let Some(href) = row["h"].as_str() else {
                continue;
            };
            let (file, fragment) = href.split_once('#').unwrap_or((href, ""));
            let file = file.strip_prefix(&root).unwrap_or(file);
            let page = text(file);
            // The row's path, where the data leaves it out as the script
            // derives it, is the one its page names.
            let path = row["p"].as_str().unwrap();
            assert!(
                page.contains(&format!(
                    "<p class=\"pa-muted\"><code>{}</code>",
                    common::html_escaped(path)
                )),
                "{matrix}: path {path} of {href}"
            );
            if !fragment.is_empty() {
                assert!(
                    page.contains(&format!("<section class=\"pa-method\" id=\"{fragment}\">")),
                    "{matrix}: {href}"
                );
            }
            for slug in &versions {
                let glyph = format!("{href}#v-{slug}");
                let id = glyph.split_once('#').unwrap().1;
                assert!(
                    page.contains(&format!(" id=\"{id}\">")),
                    "{matrix}: glyph {glyph}"
                );
                glyphs += 1;
            }
        }
    }
    assert!(glyphs > 500, "{glyphs}");
    // TocTreeprocessor.run, modified in 3.6: its section of toc.py's page
    // shows the diff there, and the list of methods says so.
    let data = matrix_data(&tree["matrix/b/convert-extensions/index.html"]);
    let row = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["n"] == "TocTreeprocessor.run")
        .unwrap();
    let (file, anchor) = row["h"].as_str().unwrap().split_once('#').unwrap();
    assert_eq!(anchor, "m-TocTreeprocessor.run");
    let file = file.strip_prefix("../../../").unwrap();
    assert!(file.contains("/c/class-toc_py-"), "{file}");
    let page = text(file);
    let at = page
        .find(&format!(" id=\"{anchor}#v-3.6\">"))
        .expect("a section for 3.6 in the method's");
    let section = &page[at..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(
        section.contains(
            "<span class=\"pa-tag\">modified</span> <code>markdown/extensions/toc.py</code>"
        ),
        "{section}"
    );
    assert!(section.contains("<span class=\"pa-dl add\">"));
    assert!(page.contains(&format!(
        "<tr><td><a href=\"#{anchor}\">TocTreeprocessor.run</a></td>"
    )));
    let listed = &page[page.find("id=\"pa-methods\"").unwrap()..];
    let listed = &listed[listed.find(&format!("<a href=\"#{anchor}\">")).unwrap()..];
    let listed = &listed[..listed.find("</tr>").unwrap()];
    assert!(listed.contains("3.6"), "{listed}");
    // The version labels over the method's glyphs are the page's own
    // (which lead to the class's sections), copied there by the script,
    // which points them at the method's (the browser test checks).
    assert!(page.contains("href=\"#v-3.6\""));
    let method = &page[page
        .find(&format!("<section class=\"pa-method\" id=\"{anchor}\">"))
        .unwrap()..];
    assert!(method.contains("<div class=\"pa-mhead\" hidden></div>"));
}

/// A V8 heap profile as node 20 writes it (tests/fixtures/heapprofile, a
/// real capture): 6 of its 439 samples (243,696 bytes) name node 74, which
/// V8 created after it wrote the tree (ids end at 73). Those samples are
/// counted on the profile's pages, on the allocation page and in the
/// build's summary, and the input is not skipped: exit code 0.
#[test]
fn heap_profile_samples_past_the_tree_are_noted_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heapprofile/alloc.heapprofile");
    fs::copy(fixture, input.join("1.0/alloc.heapprofile")).unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("skipped"), "{err}");
    let note = "6 samples (238 KiB) name nodes that V8 created after it wrote the call tree \
                (allocations sampled while it wrote the profile): they are not placed, and no \
                figure counts them.";
    assert!(
        err.contains(&format!("perfatlas: note: 1.0/alloc.heapprofile: {note}\n")),
        "{err}"
    );
    let tree = read_tree(&out);
    let text = |path: &str| String::from_utf8_lossy(&tree[path]).into_owned();
    // The profile's page (every shape and metric) says it.
    let profile_pages: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("profiles/alloc/1.0/") && k.ends_with(".html"))
        .collect();
    assert_eq!(profile_pages.len(), 1, "{profile_pages:?}");
    for page in profile_pages {
        assert!(
            text(page).contains(&format!(
                "<dt>note</dt><dd class=\"pa-input-note\">{note}</dd>"
            )),
            "{page}"
        );
    }
    assert!(text("alloc/alloc/1.0.html").contains(&format!(
        "<p class=\"pa-note pa-input-note\">1.0/alloc.heapprofile: {note}</p>"
    )));
    // The index lists no skipped input.
    assert!(!text("index.html").contains("alloc.heapprofile: "));
}

/// The class list of an allocation page, top to bottom.
fn class_list(page: &str) -> Vec<String> {
    page.split("<span class=\"al-name\">")
        .skip(1)
        .map(|s| s.split('<').next().unwrap().to_string())
        .collect()
}

/// JFR's `jdk.ObjectAllocationSample` events weigh each sample by the bytes
/// it stands for: the class list (and the class colours) follow the
/// weights, as JFR's own tools rank classes, not the sample counts. The
/// order is computed here from the `jfr print --json` output itself
/// (tests/fixtures/jfr/alloc.json.gz): `shapes.Box` (49 samples, 335 MB)
/// comes first and `shapes.Circle` (57 samples, the most, but 15.6 MB)
/// fifth.
#[test]
fn jfr_allocation_classes_are_ranked_by_sampled_weight() {
    use std::io::Read;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jfr/alloc.json.gz");
    let mut json = String::new();
    flate2::read::GzDecoder::new(fs::File::open(&fixture).unwrap())
        .read_to_string(&mut json)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut by_class: std::collections::BTreeMap<String, (u64, f64)> = Default::default();
    for e in v["recording"]["events"].as_array().unwrap() {
        let name = e["values"]["objectClass"]["name"].as_str().unwrap();
        // As Java writes the names: `[B` is `byte[]`, `[Lx;` is `x[]`.
        let shown = match name.strip_prefix('[') {
            Some("B") => "byte[]".to_string(),
            Some(l) => format!("{}[]", l.trim_start_matches('L').trim_end_matches(';')),
            None => name.to_string(),
        }
        .replace('/', ".");
        let slot = by_class.entry(shown).or_default();
        slot.0 += 1;
        slot.1 += e["values"]["weight"].as_f64().unwrap();
    }
    let mut want: Vec<(String, (u64, f64))> = by_class.into_iter().collect();
    want.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1).then_with(|| a.0.cmp(&b.0)));
    let want: Vec<String> = want.into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        want,
        [
            "shapes.Box",
            "byte[]",
            "java.lang.String",
            "java.util.concurrent.ConcurrentHashMap$Node[]",
            "shapes.Circle",
            "java.util.concurrent.CopyOnWriteArrayList$COWIterator",
        ]
    );

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    fs::copy(&fixture, input.join("1.0/shapes.json.gz")).unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = fs::read_to_string(out.join("alloc/shapes/1.0.html")).unwrap();
    assert!(
        page.contains("<p class=\"pa-muted al-ranking\">Classes ranked by allocated bytes (sampled weights).</p>"),
        "{page}"
    );
    assert_eq!(class_list(&page), want);
    // The first class gets the palette's first colour (Okabe–Ito orange).
    let first_row = page.split("<tr class=\"al-class\"").nth(1).unwrap();
    assert!(
        first_row.contains("shapes.Box") && first_row.contains("background:#E69F00"),
        "{first_row}"
    );
}

/// A version directory with a cProfile file (`python -m cProfile -o`,
/// CPython 3.11, tests/fixtures/pstats/) builds: the file is read as
/// pstats, not as pprof (which claims binary `.prof` files), and the
/// profile page lists the function with the most own time, `words`, with
/// its file and line.
#[test]
fn a_cprofile_file_builds_and_its_page_lists_the_top_function() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pstats/workload-py311.prof");
    fs::copy(fixture, input.join("1.0/workload.prof")).unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("skipped"), "{err}");
    let tree = read_tree(&out);
    let pages: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("profiles/workload/1.0") && k.ends_with(".html"))
        .collect();
    assert!(!pages.is_empty(), "{:?}", tree.keys().collect::<Vec<_>>());
    let page = String::from_utf8_lossy(&tree[pages[0]]).into_owned();
    assert!(page.contains("pstats"), "the format is named");
    assert!(page.contains("words"), "{}", pages[0]);
    assert!(page.contains("workload.py:27"), "{}", pages[0]);
    // The real call counts have a column of the top-down tree table:
    // main calls round_trip 40 times (pstats' print_callers).
    assert!(page.contains(r#"data-col="2">calls</th>"#), "calls column");
    let row = page
        .lines()
        .find(|l| l.contains("round_trip <code>workload.py:33</code>"))
        .expect("round_trip's row");
    assert!(row.ends_with(r#"<td data-v="40">40</td></tr>"#), "{row}");
}

/// A benchmark's matrix links the component pages of the matrix over all
/// benchmarks (one page per component, not one per matrix); each such page
/// shows the component's row in every benchmark's matrix. Rows below the
/// share threshold are data the matrix's script draws, not HTML.
#[test]
fn benchmark_matrices_share_the_component_pages_over_all_benchmarks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let o = build(&sample_data(), &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tree = read_tree(&out);
    let text = |p: &str| String::from_utf8_lossy(&tree[p]).into_owned();
    assert!(
        !tree
            .keys()
            .any(|k| k.starts_with("matrix/b/") && k.contains("/c/")),
        "no component page in a benchmark's matrix"
    );
    for bench in ["convert-basic", "convert-extensions"] {
        let page = format!("matrix/b/{bench}/index.html");
        let data = matrix_data(&tree[page.as_str()]);
        let rows = data["rows"].as_array().unwrap();
        let mut linked = 0;
        for row in rows {
            let Some(href) = row["h"].as_str() else {
                continue;
            };
            let target = href
                .strip_prefix("../../../")
                .unwrap_or_else(|| panic!("{href}"));
            let (file, id) = target.split_once('#').unwrap_or((target, ""));
            assert!(file.starts_with("matrix/all/c/"), "{page}: {href}");
            let html = text(file);
            assert!(
                id.is_empty() || html.contains(&format!(" id=\"{id}\"")),
                "{href}"
            );
            // The component's row in this benchmark's matrix is on it.
            assert!(
                html.contains(&format!(
                    "<a href=\"../../../{page}\">{bench}</a></div><svg class=\"pa-gl\""
                )),
                "{href}: no row of {bench}"
            );
            linked += 1;
        }
        assert!(linked > 20, "{page}: {linked} rows link a component page");
        // Minor rows: in the data with their place, not in the HTML.
        let html = text(&page);
        let minor = rows.iter().filter(|r| r["x"].is_array()).count();
        assert!(minor > 100, "{page}: {minor}");
        assert!(!html.contains("pa-row pa-minor"), "{page}");
        assert!(
            html.contains(&format!("Show the {minor} components below 2%")),
            "{page}"
        );
        assert!(html.contains(&format!(
            "The {minor} components below 2% of every version are drawn by the page's script"
        )));
        assert!(data["glyphs"]["max"].as_f64().unwrap() > 0.0, "{page}");
        // Its timeline pages link the other benchmark's page of the version.
        let other = if bench == "convert-basic" {
            "convert-extensions"
        } else {
            "convert-basic"
        };
        let timeline = text(&format!("matrix/b/{bench}/timeline/3.7.html"));
        assert!(
            timeline.contains(&format!(
                "<a href=\"../../../../matrix/b/{other}/timeline/3.7.html\">{other}</a>"
            )),
            "{bench}: no link to {other}'s timelines"
        );
    }
    // The matrix over all benchmarks has no timelines of its own: its
    // version header links its benchmarks'.
    assert!(!tree.keys().any(|k| k.starts_with("matrix/all/timeline/")));
    let all = text("matrix/all/index.html");
    let linked: Vec<&str> = all
        .match_indices("\" class=\"pa-vh\"")
        .map(|(at, _)| &all[all[..at].rfind("href=\"").unwrap() + 6..at])
        .collect();
    assert_eq!(linked.len(), 6, "{linked:?}");
    for href in linked {
        let target = href.strip_prefix("../../").unwrap();
        assert!(
            target.starts_with("matrix/b/") && tree.contains_key(target),
            "{href}"
        );
    }
}
