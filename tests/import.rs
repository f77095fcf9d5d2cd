//! `perfatlas import` end to end: the histories real tools wrote
//! (`tests/fixtures/history/`) imported, then built; the site lists every
//! commit as a version with every benchmark, with the values the tools
//! recorded; and the directory rules (no foreign directory is written into,
//! an import replaces its own).

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::{build, perfatlas};

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history")
        .join(rel)
}

fn import(args: &[&OsStr]) -> std::process::Output {
    let mut all = vec![OsStr::new("import")];
    all.extend_from_slice(args);
    perfatlas(&all)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A page's text without tags and scripts, spaces collapsed.
fn page_text(path: &Path) -> String {
    let html = std::fs::read_to_string(path).unwrap();
    let mut out = String::new();
    let mut rest = html.as_str();
    while let Some(start) = rest.find('<') {
        out.push_str(&rest[..start]);
        let skip = if rest[start..].starts_with("<script") {
            rest[start..]
                .find("</script>")
                .map_or(rest.len() - start, |e| e + 9)
        } else {
            rest[start..]
                .find('>')
                .map_or(rest.len() - start, |e| e + 1)
        };
        out.push(' ');
        rest = &rest[start + skip..];
    }
    out.push_str(rest);
    out.replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The page of `benchmark` under `site/benchmarks/` (named after it).
fn benchmark_page(site: &Path, stem: &str) -> PathBuf {
    std::fs::read_dir(site.join("benchmarks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name == format!("{stem}.html") || name.starts_with(&format!("{stem}-"))
        })
        .unwrap_or_else(|| panic!("no page for {stem}"))
}

#[test]
fn a_data_js_imports_and_builds_with_every_commit_and_value() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    let source = fixture("github-action-benchmark/shogi_core-data.js");
    let done = import(&[source.as_os_str(), "-o".as_ref(), input.as_os_str()]);
    let stderr = text(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("imported 3 commits with 5 benchmarks from")
            && stderr.contains("(github-action-benchmark)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("so the history is judged by its change points"),
        "{stderr}"
    );
    let version = std::fs::read_to_string(input.join("000-4345684813/version.toml")).unwrap();
    assert!(version.contains("revision = \"4345684813975ee7255514cacaca671dbad719f3\"\n"));
    assert!(version.contains("date = \"2022-06-03T23:16:14+09:00\"\n"));
    assert!(
        !input.join("perfatlas.toml").exists(),
        "the dates keep the order"
    );

    let site = dir.path().join("site");
    let built = build(&input, &site, &[]);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    let index = page_text(&site.join("index.html"));
    assert!(
        index.contains("3 measurement files of 5 benchmarks in 3 versions"),
        "{index}"
    );
    for (folder, revision) in [
        ("000-4345684813", "4345684813975ee7255514cacaca671dbad719f3"),
        ("001-3ba8f5bbac", "3ba8f5bbacb2b3e7503820607a16df960756027d"),
        ("002-29b84c7400", "29b84c7400dfd0880b687c601b269bf72fdeba38"),
    ] {
        assert!(index.contains(&format!("({folder})")), "{folder}");
        assert!(index.contains(revision), "{revision}");
    }
    for bench in [
        "pop_bench",
        "shift_down_bench",
        "shift_left_bench",
        "shift_right_bench",
        "shift_up_bench",
    ] {
        assert!(
            index.contains(&format!("bitboard::tests::{bench}")),
            "{bench}"
        );
    }
    // cargo bench printed 86, 91 and 98 ns/iter for pop_bench.
    let pop = page_text(&benchmark_page(&site, "bitboard__tests__pop_bench"));
    for (label, mean) in [
        ("4345684813", "86 ns"),
        ("3ba8f5bbac", "91 ns"),
        ("29b84c7400", "98 ns"),
    ] {
        assert!(
            pop.contains(&format!("{label} Merge pull request")),
            "{label}"
        );
        assert!(
            pop.contains(&format!(": mean {mean}, 1 run")),
            "{mean}: {pop}"
        );
    }
}

#[test]
fn asv_results_import_and_build_with_every_commit_and_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("history");
    let source = fixture("asv");
    let done = import(&[
        "asv".as_ref(),
        source.as_os_str(),
        "-o".as_ref(),
        input.as_os_str(),
    ]);
    let stderr = text(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("imported 4 commits with 7 benchmarks"),
        "{stderr}"
    );
    let site = dir.path().join("site");
    let built = build(&input, &site, &[]);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    let index = page_text(&site.join("index.html"));
    assert!(
        index.contains("4 measurement files of 7 benchmarks in 4 versions"),
        "{index}"
    );
    let log = std::fs::read_to_string(fixture("asv/git-log.txt")).unwrap();
    for (i, line) in log.lines().rev().enumerate() {
        let hash = line.split(' ').next().unwrap();
        assert!(
            index.contains(&format!("({i:03}-{})", &hash[..10])),
            "{hash}"
        );
        assert!(index.contains(hash), "{hash}");
    }
    for name in [
        "benchmarks.Params.time_build(n=200, kind='list')",
        "benchmarks.Params.time_build(n=2000, kind='tuple')",
        "benchmarks.TimeSuite.time_work",
        "benchmarks.mem_table",
        "benchmarks.track_items",
    ] {
        assert!(index.contains(name), "{name}");
    }
    // time_work: asv's 3 processes per commit are 3 runs, so it gets verdicts.
    let work = page_text(&benchmark_page(&site, "benchmarks.TimeSuite.time_work"));
    assert_eq!(work.matches(", 3 runs").count(), 4, "{work}");
    let items = page_text(&benchmark_page(&site, "benchmarks.track_items"));
    for value in ["mean 10 items", "mean 12 items", "mean 15 items"] {
        assert!(items.contains(value), "{value}: {items}");
    }
}

/// Copies `from` into `to`, files and directories.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// asv's fixture with a fifth commit whose every benchmark failed (asv
/// wrote its results as `null`; `tests/fixtures/history/asv-failed/`): the
/// commit is left out and named, and the build takes what was written.
#[test]
fn a_commit_whose_every_asv_benchmark_failed_is_left_out_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    copy_tree(&fixture("asv/results"), &results);
    let failed = "28cebe9e-existing-py_tmp_perfatlas-asv-capture_venv_bin_python.json";
    std::fs::copy(
        fixture("asv-failed").join(failed),
        results.join("fixture-box").join(failed),
    )
    .unwrap();
    let input = dir.path().join("history");
    let done = import(&[results.as_os_str(), "-o".as_ref(), input.as_os_str()]);
    let stderr = text(&done.stderr);
    assert_eq!(
        done.status.code(),
        Some(1),
        "values were left out: {stderr}"
    );
    assert!(
        stderr.contains(
            "perfatlas: left out: commit 28cebe9e825e0fbf017b7a01bf09a1f3ac50d20d: no benchmark has a usable value"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("benchmarks.TimeSuite.time_work: asv recorded no value"),
        "the failed values are listed too: {stderr}"
    );
    assert!(
        stderr.contains("imported 4 commits with 7 benchmarks")
            && stderr.contains("; 1 commit left out (no usable results)"),
        "{stderr}"
    );
    let folders: Vec<String> = std::fs::read_dir(&input)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(folders.len(), 4, "{folders:?}");
    assert!(
        folders.iter().all(|f| !f.contains("28cebe9e")),
        "{folders:?}"
    );

    let site = dir.path().join("site");
    let built = build(&input, &site, &[]);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    let index = page_text(&site.join("index.html"));
    assert!(
        index.contains("4 measurement files of 7 benchmarks in 4 versions"),
        "{index}"
    );

    // Only failed commits: nothing is written, and the error says why.
    let only = dir.path().join("only-failed");
    copy_tree(&fixture("asv/results"), &only);
    for entry in std::fs::read_dir(only.join("fixture-box")).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() != "machine.json" {
            std::fs::remove_file(path).unwrap();
        }
    }
    std::fs::copy(
        fixture("asv-failed").join(failed),
        only.join("fixture-box").join(failed),
    )
    .unwrap();
    let out = dir.path().join("never");
    let done = import(&[only.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(done.status.code(), Some(2), "{}", text(&done.stderr));
    assert!(
        text(&done.stderr).contains(
            "no commits with results to import (1 left out: no benchmark has a usable value"
        ),
        "{}",
        text(&done.stderr)
    );
    assert!(!out.exists());
}

#[test]
fn only_a_new_empty_or_imported_directory_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixture("github-action-benchmark/shogi_core-data.js");
    let foreign = dir.path().join("mine");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "keep").unwrap();
    let done = import(&[source.as_os_str(), "-o".as_ref(), foreign.as_os_str()]);
    assert_eq!(done.status.code(), Some(2));
    assert!(
        text(&done.stderr).contains("is not empty and is not written by `perfatlas import`"),
        "{}",
        text(&done.stderr)
    );
    assert_eq!(std::fs::read_dir(&foreign).unwrap().count(), 1);

    // An import replaces its own directory whole.
    let input = dir.path().join("history");
    for _ in 0..2 {
        let done = import(&[source.as_os_str(), "-o".as_ref(), input.as_os_str()]);
        assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "nothing left beside it: {names:?}");
    // A site is not an import, and an import is not a site.
    let site = dir.path().join("site");
    assert_eq!(build(&input, &site, &[]).status.code(), Some(0));
    let done = import(&[source.as_os_str(), "-o".as_ref(), site.as_os_str()]);
    assert!(text(&done.stderr).contains("a site written by `perfatlas build`"));
    let other = dir.path().join("other");
    std::fs::create_dir_all(other.join("1.0")).unwrap();
    let done = build(&other, &input, &[]);
    assert_eq!(done.status.code(), Some(2), "{}", text(&done.stderr));
    assert!(input.join("000-4345684813/version.toml").is_file());

    // Hostile and unknown sources: exit 2, nothing written.
    let broken = dir.path().join("data.js");
    std::fs::write(
        &broken,
        "window.BENCHMARK_DATA = {\"entries\": {\"s\": [{\"commit\"",
    )
    .unwrap();
    let out = dir.path().join("never");
    let done = import(&[broken.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert_eq!(done.status.code(), Some(2));
    assert!(
        text(&done.stderr).contains("data.js: line 1: column"),
        "{}",
        text(&done.stderr)
    );
    let done = import(&[
        OsStr::new("nonsense"),
        broken.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(text(&done.stderr).contains("unknown history format \"nonsense\""));
    let done = import(&[
        site.join("index.html").as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(text(&done.stderr).contains("not a history perfatlas recognises"));
    assert!(!out.exists());
}
