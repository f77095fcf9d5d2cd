//! Conclusions on a real history (issue 18): `sample-data/moment`, nine
//! npm releases of moment profiled with `node --cpu-prof` and timed with
//! hyperfine, the harness installed beside each release so that every
//! path holds the version. The expected answers come from moment's own
//! source history (`sample-data/moment/FINDINGS.md`, `history.bundle`),
//! not from perfatlas: the RFC 2822 comment-stripping regex came in with
//! 2.18.0 (inline in `configFromRFC2822`, later `preprocessRFC2822`) and
//! was fixed in 2.29.4 (CVE-2022-31129).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::build;

fn moment() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/moment")
}

/// The moment source history as a repository (from its bundle).
fn clone_history(dir: &Path) -> PathBuf {
    let repo = dir.join("moment-history");
    let status = Command::new("git")
        .args(["clone", "-q"])
        .arg(moment().join("history.bundle"))
        .arg(&repo)
        .status()
        .expect("git (Debian's git package) is needed for this test");
    assert!(status.success());
    repo
}

fn text(html: &str) -> String {
    common::html_text(html)
}

/// Counts of the drawn frames' tags (`tA`, `tD`, …) of a diff's SVG.
fn tag_counts(svg: &str) -> std::collections::BTreeMap<char, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for g in svg.split("<g class=\"f ").skip(1) {
        let class = g.split('"').next().unwrap_or("");
        if let Some(t) = class.split(' ').find_map(|c| c.strip_prefix('t')) {
            *counts.entry(t.chars().next().unwrap_or('?')).or_insert(0) += 1;
        }
    }
    counts
}

#[test]
fn the_regression_and_its_fix_are_found_with_the_changed_method() {
    let work = tempfile::tempdir().unwrap();
    let repo = clone_history(work.path());
    let site = work.path().join("site");
    let out = build(
        &moment(),
        &site,
        &["--repo", repo.to_str().unwrap(), "--svg-files"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = text(&std::fs::read_to_string(site.join("index.html")).unwrap());

    // Both the regression and the fix, for the profiles and for the
    // hyperfine command run from each install directory.
    for bench in ["cpu", "node bench.mjs"] {
        assert!(
            index.contains(&format!("major regression in 2.18.0 {bench}")),
            "{index}"
        );
        assert!(
            index.contains(&format!("major improvement in 2.29.4 {bench}")),
            "{index}"
        );
    }
    // Nothing else: the ends of the history are equal, and the smaller
    // 2.19.0 speed-up (p ≈ 0.03 with ten runs here) is not claimed.
    assert_eq!(index.matches("regression in ").count(), 2, "{index}");
    assert_eq!(index.matches("improvement in ").count(), 2, "{index}");
    assert!(index.contains("undone in 2.29.4"), "{index}");

    // The root cause is the method moment's history names, modified there.
    assert!(
        index.contains("Root cause: configFromRFC2822 (moment/moment.js) explains")
            && index.contains("modified in 2.18.0 ●"),
        "{index}"
    );
    assert!(
        index.contains("Explained by: preprocessRFC2822 (moment/moment.js)")
            && index.contains("modified in 2.29.4 ●"),
        "{index}"
    );

    // The measured benchmark's page shows the profiles' root cause.
    let slug = std::fs::read_dir(site.join("regressions"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("node_bench.mjs"))
        .expect("a regression page of the hyperfine benchmark");
    let measured = text(
        &std::fs::read_to_string(site.join(format!("regressions/{slug}/2.17.1--2.18.0.html")))
            .unwrap(),
    );
    assert!(
        measured.contains("profiled benchmark cpu")
            && measured.contains("Root cause configFromRFC2822 (moment/moment.js): +")
            && !measured.contains('`'),
        "{measured}"
    );

    // The top-down diff of the fix matches functions across the install
    // paths: before issue 18, 361 of its 445 drawn frames were [A] or [D].
    let svg = std::fs::read_to_string(site.join("flamediff/cpu/2.29.3--2.29.4.cpu.svg")).unwrap();
    let tags = tag_counts(&svg);
    let drawn: usize = tags.values().sum();
    let added_or_deleted = tags.get(&'A').unwrap_or(&0) + tags.get(&'D').unwrap_or(&0);
    assert!(
        added_or_deleted * 2 < drawn,
        "{added_or_deleted} of {drawn} frames added or deleted: {tags:?}"
    );
    assert!(
        svg.contains("[−] preprocessRFC2822"),
        "the fixed method shrank"
    );
}
