//! End-to-end tests of the `perfatlas` binary: what a user gets from
//! `build` and `convert`, and the output guarantees (deterministic,
//! self-contained, escaped, atomic, exit codes).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
#[path = "cli_steps/pages.rs"]
mod pages;
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
                .filter(|name| name != "pages.manifest" && !name.starts_with("gathered-"))
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
    // The added version measures what 3.6 measured: a release whose
    // profiles make the matrix show another method changes every page
    // that links that method's section (all of them, here), so it could
    // not tell kept pages from rendered ones.
    let added = input.join("3.7");
    fs::create_dir_all(&added).unwrap();
    for entry in fs::read_dir(input.join("3.6")).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), added.join(entry.file_name())).unwrap();
    }
    fs::write(
        added.join("version.toml"),
        "date = \"2024-06-01\"\nrevision = \"3.7\"\n",
    )
    .unwrap();
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
    // Every file but version.toml is an input; the timings are
    // measurements, which the gathered measurements hold rather than an
    // entry each.
    let names_in = |v: &str| -> Vec<String> {
        fs::read_dir(input.join(v))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name != "version.toml")
            .collect()
    };
    let files_in = |v: &str| names_in(v).len();
    let profiles_in = |v: &str| {
        names_in(v)
            .iter()
            .filter(|n| !n.starts_with("timings"))
            .count()
    };
    let measurements = files_in("3.6") + files_in("3.7") - profiles_in("3.6") - profiles_in("3.7");
    let site = dir.path().join("site");
    let first = build(&input, &site, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert!(
        !stderr(&first).contains("build cache"),
        "{}",
        stderr(&first)
    );
    let entries = cache_entries(&site);
    assert_eq!(entries.len(), profiles_in("3.6") + profiles_in("3.7"));

    // Same input: everything from the cache.
    let again = build(&input, &site, &[]);
    let n = files_in("3.6") + files_in("3.7");
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
    // Without the gathered measurements, the measurements are parsed
    // again (they have their own test below).
    fs::remove_file(site.join(".perfatlas-cache/gathered-measurements")).unwrap();
    let damaged = site.join(".perfatlas-cache").join(&entries[0]);
    let mut bytes = fs::read(&damaged).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    fs::write(&damaged, &bytes).unwrap();
    let grown = build(&input, &site, &[]);
    assert!(
        stderr(&grown).contains(&format!(
            "({} of {} input files unchanged",
            n - measurements - 1,
            n + 2
        )),
        "{}",
        stderr(&grown)
    );
    assert_ne!(
        fs::read(&damaged).unwrap(),
        bytes,
        "the damaged entry is written again"
    );
    // The new profile's entry; the new timings are gathered.
    assert_eq!(cache_entries(&site).len(), entries.len() + 1);
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

/// A measurement history grown by a version takes its unchanged files'
/// entries from the gathered measurements the previous build kept (the
/// base file kept as it was, the rest written beside it), and gives the
/// site a build without any cache gives; so does a build whose gathered
/// measurements are damaged, or whose older file changed.
#[cfg(unix)]
#[test]
fn a_grown_measurement_history_takes_its_unchanged_files_from_the_gathered_measurements() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    let moment = sample_data().join("../moment");
    let mut versions: Vec<PathBuf> = fs::read_dir(&moment)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    versions.sort();
    let (last, older) = versions.split_last().unwrap();
    let copy_version = |from: &Path| {
        let to = input.join(from.file_name().unwrap());
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with("bench.") || name == "version.toml" {
                fs::copy(&path, to.join(name)).unwrap();
            }
        }
    };
    older.iter().for_each(|v| copy_version(v));
    let site = dir.path().join("site");
    let cache = site.join(".perfatlas-cache");
    let first = build(&input, &site, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    let base = inode(&cache.join("gathered-measurements"));
    assert!(!cache.join("gathered-measurements-since").exists());
    // The files of the versions built, measurements all: the gathered
    // measurements hold them, with no entry of their own.
    assert!(cache_entries(&site).is_empty());
    let n: usize = older
        .iter()
        .map(|v| {
            fs::read_dir(input.join(v.file_name().unwrap()))
                .unwrap()
                .count()
                - 1
        })
        .sum();

    copy_version(last);
    let grown = build(&input, &site, &[]);
    assert!(
        stderr(&grown).contains(&format!("({n} of "))
            && stderr(&grown).contains("input files unchanged"),
        "{}",
        stderr(&grown)
    );
    assert_eq!(inode(&cache.join("gathered-measurements")), base);
    assert!(cache.join("gathered-measurements-since").is_file());
    assert!(cache_entries(&site).is_empty());
    let fresh = dir.path().join("fresh");
    build(&input, &fresh, &["--no-cache"]);
    assert_same_site_pages(&site, &fresh);

    // An older file changed, and the file since the base damaged.
    let older_file = input
        .join(older[1].file_name().unwrap())
        .join("bench.1.json");
    let text = fs::read_to_string(&older_file).unwrap();
    fs::remove_file(&older_file).unwrap();
    fs::write(
        &older_file,
        text.replacen("\"mean\": 0.", "\"mean\": 9.", 1)
            .replace("\n        0.", "\n        7."),
    )
    .unwrap();
    let since = cache.join("gathered-measurements-since");
    let mut bytes = fs::read(&since).unwrap();
    bytes[20] ^= 0xff;
    fs::remove_file(&since).unwrap();
    fs::write(&since, bytes).unwrap();
    let changed = build(&input, &site, &[]);
    assert!(changed.status.code() != Some(2), "{}", stderr(&changed));
    let fresh = dir.path().join("fresh2");
    build(&input, &fresh, &["--no-cache"]);
    assert_same_site_pages(&site, &fresh);
}

/// [`assert_same_site`] for the pages: a rebuild's site holds its build
/// cache, a build without one does not.
fn assert_same_site_pages(rebuilt: &Path, fresh: &Path) {
    let (mut a, b) = (read_tree(rebuilt), read_tree(fresh));
    a.retain(|k, _| !k.starts_with(".perfatlas-cache"));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(
            v == &b[k],
            "{k} differs between the rebuilt and the fresh site"
        );
    }
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
