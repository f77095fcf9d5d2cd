//! Verdicts on every history users bring (issue 37): real public
//! histories of one value per commit (`tests/fixtures/history/one-value/`,
//! each with the steps read off its series and its commits), throughput
//! metrics that must be judged the right way round, exact counters that
//! must not be put through a t-test, and a `check` that never says
//! "passed" when it could judge nothing.

mod common;

use std::path::{Path, PathBuf};

use common::{build, perfatlas};
use serde_json::Value;

fn one_value_fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history/one-value")
        .join(name)
}

/// `perfatlas import github-action-benchmark DATA_JS -o DIR`.
fn import_data_js(fixture: &str, dir: &Path) -> PathBuf {
    let input = dir.join(fixture);
    let data = one_value_fixture(fixture).join("data.js");
    let out = perfatlas(&[
        "import".as_ref(),
        "github-action-benchmark".as_ref(),
        data.as_os_str(),
        "-o".as_ref(),
        input.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    input
}

/// The text of an HTML fragment ([`common::html_text`]), with no space
/// left before a colon that followed a tag.
fn text(html: &str) -> String {
    common::html_text(html).replace(" :", ":")
}

/// A change the index lists: "major regression in 7efbe84aaf …".
#[derive(Debug, Clone, PartialEq)]
struct Listed {
    line: String,
    regression: bool,
}

/// The regressions and improvements the index page lists, one line each.
fn listed_changes(site: &Path) -> Vec<Listed> {
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    index
        .split("<li")
        .skip(1)
        .filter_map(|li| {
            let open = li.find('>')?;
            let head = &li[..open];
            let regression = head.contains("pa-bad");
            (regression || head.contains("pa-good")).then(|| Listed {
                line: text(&li[open + 1..li.find("</li>").unwrap_or(li.len())]),
                regression,
            })
        })
        .filter(|l| l.line.contains(" regression in ") || l.line.contains(" improvement in "))
        .collect()
}

/// Whether `listed` names `benchmark` changed at commit `sha`.
fn names(listed: &Listed, benchmark: &str, sha: &str) -> bool {
    let at = format!(" in {}", &sha[..10]);
    listed.line.contains(&at) && listed.line.contains(&format!(" {benchmark}: "))
}

/// The expected steps of a fixture: (benchmark, responsible commit, the
/// value went up, the metric is better lower).
fn expected_steps(fixture: &str) -> (Vec<(String, String, bool, bool)>, Value) {
    let path = one_value_fixture(fixture).join("expected.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let steps = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["benchmark"].as_str().unwrap().to_string(),
                s["responsible_commit"].as_str().unwrap().to_string(),
                s["direction"] == "up",
                s["better"] == "lower",
            )
        })
        .collect();
    (steps, doc)
}

/// Every listed change is an expected step or one of the fixture's
/// "ambiguous" commits (a staircase of optimisations where tests assert
/// nothing either way), in the right direction.
fn assert_nothing_unexpected(fixture: &str, listed: &[Listed]) {
    let (steps, doc) = expected_steps(fixture);
    let ambiguous: Vec<(String, String)> = doc["ambiguous"]
        .as_array()
        .map(|a| {
            a.iter()
                .flat_map(|x| {
                    let bench = x["benchmark"].as_str().unwrap().to_string();
                    let note = x["note"].as_str().unwrap_or("");
                    let mut shas: Vec<String> = note
                        .split(|c: char| !c.is_ascii_hexdigit())
                        .filter(|w| w.len() == 7)
                        .map(str::to_string)
                        .collect();
                    shas.push(x["commit"].as_str().unwrap()[..7].to_string());
                    shas.into_iter().map(move |s| (bench.clone(), s))
                })
                .collect()
        })
        .unwrap_or_default();
    for l in listed {
        let expected = steps
            .iter()
            .any(|(b, sha, up, lower)| names(l, b, sha) && l.regression == (*up == *lower));
        let allowed = ambiguous
            .iter()
            .any(|(b, sha)| l.line.contains(&format!(" in {sha}")) && l.line.contains(b.as_str()));
        assert!(
            expected || allowed,
            "{fixture}: not a step of the series: {}",
            l.line
        );
    }
}

#[test]
fn lineguard_steps_are_reported_with_their_commit_and_direction() {
    let tmp = tempfile::tempdir().unwrap();
    let input = import_data_js("lineguard", tmp.path());
    let site = tmp.path().join("site");
    let out = build(&input, &site, &["-q"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = listed_changes(&site);
    let (steps, _) = expected_steps("lineguard");
    assert_eq!(steps.len(), 6);
    for (bench, sha, up, lower) in &steps {
        let found = listed.iter().find(|l| names(l, bench, sha));
        let found = found.unwrap_or_else(|| panic!("{bench} at {sha} not listed: {listed:#?}"));
        assert_eq!(found.regression, up == lower, "{}", found.line);
        assert!(found.line.contains("change point:"), "{}", found.line);
    }
    // Besides the steps, only the newest commit may be listed, judged as
    // `check` judges it (its value against the ones before it) and said
    // so: Small files' last value is 28% below the ones before it.
    let (newest, steps_listed): (Vec<&Listed>, Vec<&Listed>) = listed.iter().partition(|l| {
        l.line
            .contains("the newest value against the prediction interval")
    });
    assert_eq!(steps_listed.len(), steps.len(), "{listed:#?}");
    for l in &newest {
        assert!(l.line.contains(" in 8a9efacf9b"), "{}", l.line);
    }
    let steps_listed: Vec<Listed> = steps_listed.into_iter().cloned().collect();
    assert_nothing_unexpected("lineguard", &steps_listed);
    // The index says how the benchmarks were judged.
    let index = text(&std::fs::read_to_string(site.join("index.html")).unwrap());
    assert!(
        index.contains(
            "Of the 5 benchmarks, 5 with fewer runs in most versions are judged by change points"
        ),
        "{index}"
    );
    // The benchmark page says how its versions were judged.
    let page = std::fs::read_dir(site.join("benchmarks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("Large_files"))
        .unwrap();
    let page = text(&std::fs::read_to_string(page).unwrap());
    assert!(page.contains("change-point detection"), "{page}");
    assert!(page.contains("lower is better"), "{page}");
}

#[test]
fn a_flat_history_of_one_value_per_commit_has_no_change() {
    let tmp = tempfile::tempdir().unwrap();
    let input = import_data_js("expire_map", tmp.path());
    let site = tmp.path().join("site");
    build(&input, &site, &["-q"]);
    assert_eq!(listed_changes(&site), Vec::new());
}

#[test]
fn a_staircase_of_optimisations_reports_improvements_only() {
    let tmp = tempfile::tempdir().unwrap();
    let input = import_data_js("shogi_legality_lite", tmp.path());
    let site = tmp.path().join("site");
    build(&input, &site, &["-q"]);
    let listed = listed_changes(&site);
    assert!(listed.iter().all(|l| !l.regression), "{listed:#?}");
    // "Enable lto" halves perft_2 and perft_3 and holds.
    for bench in ["perft::tests::bench_perft_2", "perft::tests::bench_perft_3"] {
        assert!(
            listed
                .iter()
                .any(|l| names(l, bench, "36d2bb00b04a0c8eaa2bdc555dc7b77b00c55adb")),
            "{bench}: {listed:#?}"
        );
    }
    assert_nothing_unexpected("shogi_legality_lite", &listed);
}

/// `perfatlas check INPUT --format json EXTRA…`: the report and the exit
/// code.
/// `git clone FIXTURE/history.bundle DIR/repo`: a captured library's
/// repository, as `--repo` reads it.
fn clone_history(fixture: &Path, dir: &Path) -> PathBuf {
    common::clone_bundle(&fixture.join("history.bundle"), &dir.join("repo"))
}

fn check_json(input: &Path, extra: &[&str]) -> (Value, i32) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "check".as_ref(),
        input.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    let out = perfatlas(&args);
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (report, out.status.code().unwrap())
}

fn benchmark<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["benchmark"] == name)
        .unwrap_or_else(|| panic!("{name} not in {report:#}"))
}

#[test]
fn check_judges_a_single_new_value_against_recent_history() {
    let tmp = tempfile::tempdir().unwrap();
    let input = import_data_js("lineguard", tmp.path());
    let (report, code) = check_json(&input, &[]);
    assert_eq!(report["judged"], 5, "{report:#}");
    assert_eq!(report["unjudged"], 0);
    let large = benchmark(&report, "Large files (10x10MB)");
    assert_eq!(large["verdict"], "no_change", "{large:#}");
    assert!(large["method"]
        .as_str()
        .unwrap()
        .contains("prediction interval"));
    assert_eq!(large["better"], "lower");
    assert_eq!(code, 0);
}

/// Writes `files` (path → text) under `dir`.
fn write_all(dir: &Path, files: &[(String, String)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

#[test]
fn check_without_any_verdict_never_says_passed() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    // Two versions, one BMF value each: nothing can be judged.
    write_all(
        &input,
        &[
            (
                "1.0/bmf.json".into(),
                r#"{"fib": {"latency": {"value": 100.0}}}"#.into(),
            ),
            (
                "1.1/bmf.json".into(),
                r#"{"fib": {"latency": {"value": 5000.0}}}"#.into(),
            ),
        ],
    );
    let (report, code) = check_json(&input, &[]);
    assert_eq!(
        (report["judged"].as_u64(), report["unjudged"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(code, 0);
    let out = perfatlas(&[
        "check".as_ref(),
        input.as_os_str(),
        "--format".as_ref(),
        "markdown".as_ref(),
    ]);
    let markdown = String::from_utf8_lossy(&out.stdout);
    assert!(!markdown.contains("passed"), "{markdown}");
    assert!(
        markdown.contains("no verdict: 1 of 1 benchmark could not be judged"),
        "{markdown}"
    );
    let out = perfatlas(&["check".as_ref(), input.as_os_str()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("no verdict: 1 of 1 benchmark without enough data"),
        "{text}"
    );
    assert!(
        text.contains("at least 3"),
        "the reason says what would be enough: {text}"
    );
    let (report, code) = check_json(&input, &["--fail-on", "major,unjudged"]);
    assert_eq!((report["failed"].as_bool(), code), (Some(true), 1));
}

/// `go test -bench` output of `runs` runs of one benchmark.
fn go_bench(ns: f64, mb_per_s: f64, bytes: u64, runs: usize) -> String {
    let mut out = String::from("goos: linux\ngoarch: amd64\npkg: example.com/hash\n");
    for i in 0..runs {
        let wobble = 1.0 + (i as f64 - 2.0) * 0.002;
        out.push_str(&format!(
            "BenchmarkHash-2 \t  100000\t {:.1} ns/op\t {:.2} MB/s\t {bytes} B/op\t 3 allocs/op\n",
            ns * wobble,
            mb_per_s / wobble
        ));
    }
    out.push_str("PASS\nok  \texample.com/hash\t2.1s\n");
    out
}

#[test]
fn halved_throughput_fails_check_and_a_byte_more_per_op_does_not() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    write_all(
        &input,
        &[
            ("1.0/bench.txt".into(), go_bench(15427.0, 1219.92, 49032, 5)),
            ("1.1/bench.txt".into(), go_bench(30854.0, 609.96, 49033, 5)),
        ],
    );
    let (report, code) = check_json(&input, &[]);
    let throughput = benchmark(&report, "BenchmarkHash (MB/s)");
    assert_eq!(throughput["better"], "higher", "{throughput:#}");
    assert_eq!(
        (
            &throughput["verdict"],
            &throughput["direction"],
            &throughput["severity"]
        ),
        (&"change".into(), &"regression".into(), &"major".into()),
        "{throughput:#}"
    );
    let time = benchmark(&report, "BenchmarkHash");
    assert_eq!(time["direction"], "regression", "{time:#}");
    let bytes = benchmark(&report, "BenchmarkHash (B/op)");
    assert_eq!(bytes["verdict"], "negligible", "{bytes:#}");
    assert!(
        bytes["method"].as_str().unwrap().starts_with("exact"),
        "{bytes:#}"
    );
    assert_eq!(code, 1);
    // The page's words follow the direction.
    let site = tmp.path().join("site");
    build(&input, &site, &["-q"]);
    let listed = listed_changes(&site);
    let line = &listed
        .iter()
        .find(|l| l.line.contains("BenchmarkHash (MB/s)"))
        .unwrap()
        .line;
    assert!(line.starts_with("major regression in 1.1"), "{line}");
    assert!(line.contains("1.5× less or worse"), "{line}");
    // Units keep their case.
    let page = std::fs::read_dir(site.join("benchmarks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("MB_s"))
        .unwrap();
    let page = text(&std::fs::read_to_string(page).unwrap());
    assert!(page.contains("mean 609.96 MB/s"), "{page}");
    assert!(!page.contains("mb/s"), "{page}");
    // The bands read from the best down: lower is worse.
    assert!(
        page.contains("as first measured: 813.29 MB/s and above; 1.5× less or worse: 406.64 MB/s to 813.29 MB/s; 3× less or worse: below 406.64 MB/s"),
        "{page}"
    );
    assert!(line.contains("−50.0%"), "{line}");
    assert!(
        !listed.iter().any(|l| l.line.contains("(B/op)")),
        "{listed:#?}"
    );
}

#[test]
fn bencher_throughput_that_halves_is_a_regression() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let mut files = Vec::new();
    for v in 0..3 {
        for run in 0..3 {
            let value = if v < 2 {
                1000.0 + run as f64
            } else {
                500.0 + run as f64
            };
            files.push((
                format!("{v}/run{run}.json"),
                format!(r#"{{"parse": {{"throughput": {{"value": {value}}}}}}}"#),
            ));
        }
    }
    write_all(&input, &files);
    let (report, code) = check_json(&input, &[]);
    let b = benchmark(&report, "parse (throughput)");
    assert_eq!(
        (&b["direction"], &b["better"]),
        (&"regression".into(), &"higher".into()),
        "{b:#}"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_configured_direction_turns_a_unit_the_other_way() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let mut files = vec![(
        "perfatlas.toml".to_string(),
        "[metrics.score]\ndirection = \"higher\"\n".to_string(),
    )];
    for (v, level) in [(0, 80.0), (1, 40.0)] {
        let runs: Vec<String> = (0..4)
            .map(|r| format!("{}", level + r as f64 * 0.1))
            .collect();
        files.push((
            format!("{v}/m.json"),
            format!(
                r#"{{"perfatlas_measurements": 1, "benchmarks": [{{"name": "game", "unit": "score", "runs": [{}]}}]}}"#,
                runs.join(", ")
            ),
        ));
    }
    write_all(&input, &files);
    let (report, code) = check_json(&input, &[]);
    let b = benchmark(&report, "game");
    assert_eq!(
        (&b["direction"], &b["better"]),
        (&"regression".into(), &"higher".into()),
        "{b:#}"
    );
    assert_eq!(code, 1);
}

#[test]
fn check_reads_derived_metrics_as_build_does() {
    // Issue 41: `[metrics]` formulas were applied by build only.
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    let mut files = vec![(
        "perfatlas.toml".to_string(),
        "[metrics]\ndouble = \"samples * 2\"\n\n[regressions]\nmetric = \"double\"\n".to_string(),
    )];
    for (v, level) in [("1.0", 100), ("1.1", 400)] {
        for r in 1..=3 {
            files.push((
                format!("{v}/app.{r}.folded"),
                format!("main;parse {}\nmain;render {}\n", level + r, level - r),
            ));
        }
    }
    write_all(&input, &files);
    let (report, code) = check_json(&input, &[]);
    let b = benchmark(&report, "app");
    assert_eq!(
        (&b["verdict"], &b["severity"]),
        (&"change".into(), &"major".into()),
        "{b:#}"
    );
    assert!(b["figures"].as_str().unwrap().contains("double"), "{b:#}");
    assert_eq!(code, 1);
}

#[test]
fn a_library_moved_into_a_bundle_keeps_its_functions_through_the_source_map() {
    // tests/fixtures/bundle-move: textkit runs from src/ in 1.0.0 and from
    // an esbuild bundle with a source map after; 1.2.0 makes tokenize
    // (src/tokenize.js) slower. The bundle and its map are read from the
    // library's repository at each release.
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundle-move");
    let tmp = tempfile::tempdir().unwrap();
    let repo = clone_history(&fixture, tmp.path());
    let site = tmp.path().join("site");
    let out = build(&fixture, &site, &["--repo", repo.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("frames of `lib/textkit.esm.js` mapped to their sources through `lib/textkit.esm.js.map`"),
        "{stderr}"
    );
    let index = text(&std::fs::read_to_string(site.join("index.html")).unwrap());
    assert!(index.contains("major regression in 1.2.0 bench"), "{index}");
    assert!(
        index.contains("Root cause: tokenize (src/tokenize.js) explains"),
        "{index}"
    );
    assert!(index.contains("modified in 1.2.0 ●"), "{index}");
    // The page of what changed in 1.2.0, linked from the index's versions:
    // its regression with the root cause, and the method its commit
    // modified.
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(html.contains("<a href=\"versions/1.2.0.html\">1.2.0</a>"));
    let page = text(&std::fs::read_to_string(site.join("versions/1.2.0.html")).unwrap());
    assert!(
        page.contains("What changed in 1.2.0 against 1.1.0"),
        "{page}"
    );
    assert!(
        page.contains("major regression in 1.2.0 bench: 1.1.0 → 1.2.0"),
        "{page}"
    );
    assert!(
        page.contains("Root cause: tokenize (src/tokenize.js)"),
        "{page}"
    );
    assert!(
        page.contains("1 profiled method modified: tokenize — src/tokenize.js"),
        "{page}"
    );
    let first = text(&std::fs::read_to_string(site.join("versions/1.0.0.html")).unwrap());
    assert!(
        first.contains("The first version: nothing to compare it with."),
        "{first}"
    );
    // One component for the file, whichever release ran it from the
    // bundle: the bundle has no row of its own.
    let components: Vec<String> = std::fs::read_dir(site.join("matrix/b/bench/c"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        components
            .iter()
            .any(|c| c.starts_with("class-tokenize_js-")),
        "{components:?}"
    );
    assert!(
        !components.iter().any(|c| c.contains("textkit_esm")),
        "{components:?}"
    );
    // Without the repository, the bundle and its map cannot be read: the
    // frames keep the bundle's places, and its functions are matched by
    // name to the file no profile samples after the move.
    let site = tmp.path().join("site-without-repo");
    let out = build(&fixture, &site, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("from 1.1.0 on, 3 functions (countWords, tokenize, topWords) sampled in `lib/textkit.esm.js` are matched by name to `src/tokenize.js`"),
        "{stderr}"
    );
    let index = text(&std::fs::read_to_string(site.join("index.html")).unwrap());
    assert!(
        index.contains("Root cause: tokenize (src/tokenize.js) explains"),
        "{index}"
    );
}

#[test]
fn a_library_moved_into_a_bundle_without_a_source_map_is_matched_by_name() {
    // The same history, its repository rewritten without the source map
    // (as a library that ships no map): the functions are matched by name
    // across the move, and "modified" follows them: nothing in 1.1.0
    // (src/tokenize.js did not change; only the bundle was added), tokenize
    // in 1.2.0.
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundle-move");
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("input");
    for version in ["1.0.0", "1.1.0", "1.2.0", "1.3.0"] {
        std::fs::create_dir_all(input.join(version)).unwrap();
        for entry in std::fs::read_dir(fixture.join(version)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_owned();
            let text = std::fs::read(&path).unwrap();
            let text = match name.to_str() {
                // Found by the rewritten tags (v1.1.0, …), not the old ids.
                Some("version.toml") => String::from_utf8(text)
                    .unwrap()
                    .lines()
                    .filter(|l| !l.starts_with("revision"))
                    .map(|l| format!("{l}\n"))
                    .collect::<String>()
                    .into_bytes(),
                _ => text,
            };
            std::fs::write(input.join(version).join(name), text).unwrap();
        }
    }
    let repo = tmp.path().join("repo");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&repo)
            .env("FILTER_BRANCH_SQUELCH_WARNING", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    std::fs::create_dir_all(&repo).unwrap();
    git(&[
        "clone",
        "-q",
        fixture.join("history.bundle").to_str().unwrap(),
        ".",
    ]);
    git(&[
        "filter-branch",
        "-f",
        "--index-filter",
        "git rm -q --cached --ignore-unmatch lib/textkit.esm.js.map",
        "--tag-name-filter",
        "cat",
        "--",
        "--all",
    ]);
    let site = tmp.path().join("site");
    let out = build(&input, &site, &["--repo", repo.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("`lib/textkit.esm.js.map` was not found"),
        "{stderr}"
    );
    assert!(
        stderr.contains("matched by name to `src/tokenize.js`"),
        "{stderr}"
    );
    let index = text(&std::fs::read_to_string(site.join("index.html")).unwrap());
    assert!(index.contains("major regression in 1.2.0 bench"), "{index}");
    assert!(
        index.contains("Root cause: tokenize (src/tokenize.js) explains"),
        "{index}"
    );
    assert!(index.contains("modified in 1.2.0 ●"), "{index}");
    // One row for tokenize across the move, and no modified method in the
    // release that only added the bundle.
    let components = site.join("matrix/b/bench/c");
    let tokenize = std::fs::read_dir(&components)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains("class-tokenize_js-"))
        .expect("a component for src/tokenize.js");
    let page = text(&std::fs::read_to_string(tokenize).unwrap());
    assert!(page.contains("1.1.0: 49.9 ms"), "{page}");
    assert!(!page.contains("before it moved"), "{page}");
    let at_move = &page[page.find("1.1.0: 49.9 ms").unwrap()..];
    assert!(
        at_move[..300].contains("0 modified methods"),
        "{}",
        &at_move[..300]
    );
}

#[test]
fn the_matrix_over_all_benchmarks_never_adds_different_metrics() {
    // Two CPU-profiled benchmarks and one heap-profiled benchmark (real
    // profiles of sample-data/moment): the matrix over all benchmarks adds
    // the two in CPU time and says the heap one is left out; before, it
    // added CPU samples to allocation samples.
    let moment = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-data/moment");
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in");
    for v in ["2.17.1", "2.18.0"] {
        let dir = input.join(v);
        std::fs::create_dir_all(&dir).unwrap();
        for n in 1..=2 {
            let cpu = moment.join(v).join(format!("cpu.{n}.cpuprofile"));
            std::fs::copy(&cpu, dir.join(format!("cpu.{n}.cpuprofile"))).unwrap();
            std::fs::copy(&cpu, dir.join(format!("parse.{n}.cpuprofile"))).unwrap();
        }
        std::fs::copy(
            moment.join(v).join("heap.1.heapprofile"),
            dir.join("heap.heapprofile"),
        )
        .unwrap();
    }
    let site = tmp.path().join("site");
    let out = build(&input, &site, &["-q"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let all = text(&std::fs::read_to_string(site.join("matrix/all/index.html")).unwrap());
    assert!(
        all.contains("Over the 2 benchmarks measured in cpu (nanoseconds). Left out, as measured in another metric (values of different metrics are never added): heap"),
        "{all}"
    );
}

/// `perfatlas import asv` of `tests/fixtures/history/asv-summary/` (asv's
/// default results: a median and its 99% interval per commit, no samples;
/// commit 5 makes `time_work` slower, `time_build` never changes).
fn import_asv_summary(dir: &Path) -> PathBuf {
    let input = dir.join("asv");
    let source =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history/asv-summary");
    let out = perfatlas(&[
        "import".as_ref(),
        "asv".as_ref(),
        source.as_os_str(),
        "-o".as_ref(),
        input.as_os_str(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    input
}

#[test]
fn asv_intervals_judge_two_commits_as_asv_compare_does() {
    let tmp = tempfile::tempdir().unwrap();
    let input = import_asv_summary(tmp.path());
    // Only the commit before the slowdown and the slowdown itself: too
    // short a history for change points, so the intervals asv recorded
    // decide. `asv compare 282b43ee f9d84d53` (asv-compare/ in the
    // fixture) marks time_work `+` (445±40 µs against 1.18±0.1 ms) and
    // nothing else.
    for entry in std::fs::read_dir(&input).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let keep = name.contains("282b43ee") || name.contains("f9d84d53");
        if path.is_dir() && !keep {
            std::fs::remove_dir_all(&path).unwrap();
        }
    }
    let (report, code) = check_json(&input, &["--fail-on", "minor"]);
    let work = benchmark(&report, "benchmarks.TimeSuite.time_work");
    assert_eq!(
        (&work["verdict"], &work["direction"]),
        (&Value::from("change"), &Value::from("regression")),
        "{work:#}"
    );
    assert!(
        work["method"]
            .as_str()
            .unwrap()
            .contains("intervals the tool recorded"),
        "{work:#}"
    );
    for b in report["benchmarks"].as_array().unwrap() {
        if b["benchmark"] != "benchmarks.TimeSuite.time_work" {
            assert_eq!(b["verdict"], "no_change", "{b:#}");
        }
    }
    assert_eq!(report["judged"], 5, "{report:#}");
    assert_eq!(code, 1);
    // The site says the same, and how it was told.
    let site = tmp.path().join("site");
    let out = build(&input, &site, &["-q"]);
    assert!(out.status.success());
    let index = text(&std::fs::read_to_string(site.join("index.html")).unwrap());
    assert!(
        index.contains("major regression in f9d84d5309 benchmarks.TimeSuite.time_work"),
        "{index}"
    );
    assert!(
        index.contains("major regression (recorded intervals apart)"),
        "{index}"
    );
}

#[test]
fn a_noisy_asv_history_reports_no_change_where_the_code_never_changed() {
    // Over all 10 commits the history's own noise decides (change points),
    // as asv's own graphs do (its step detection, weighted by these
    // intervals or not, finds no step in any of these series: the
    // machine's noise between commits is larger than within a run). So
    // time_build, whose code never changed, has no change, though
    // `asv compare` of neighbouring commits marks five of its pairs apart.
    let tmp = tempfile::tempdir().unwrap();
    let input = import_asv_summary(tmp.path());
    let site = tmp.path().join("site");
    let out = build(&input, &site, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = listed_changes(&site);
    assert!(
        listed.iter().all(|l| !l.line.contains("time_build")),
        "{listed:?}"
    );
    // The benchmark page shows each value's recorded interval.
    let pages: Vec<PathBuf> = std::fs::read_dir(site.join("benchmarks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("time_work"))
        .collect();
    let page = std::fs::read_to_string(&pages[0]).unwrap();
    assert!(text(&page).contains("(recorded)"), "{}", pages[0].display());
}

#[test]
fn a_minified_bundle_is_mapped_function_by_function_by_its_columns() {
    // tests/fixtures/bundle-move-minified: the same history with
    // `esbuild --minify`: the whole library on one line, its functions
    // renamed `c`, `i`, `u`. V8 gives each call frame its column, and the
    // map at that column names the source function.
    let fixture =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundle-move-minified");
    let tmp = tempfile::tempdir().unwrap();
    let repo = clone_history(&fixture, tmp.path());
    let site = tmp.path().join("site");
    let out = build(&fixture, &site, &["--repo", repo.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = text(&std::fs::read_to_string(site.join("index.html")).unwrap());
    assert!(index.contains("major regression in 1.2.0 bench"), "{index}");
    assert!(
        index.contains("Root cause: tokenize (src/tokenize.js) explains"),
        "{index}"
    );
    assert!(index.contains("modified in 1.2.0 ●"), "{index}");
    // Each function its own component, by its source name.
    let components: Vec<String> = std::fs::read_dir(site.join("matrix/b/bench/c"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let methods = std::fs::read_dir(site.join("matrix/b/bench/c"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    for name in ["tokenize", "countWords", "topWords"] {
        assert!(methods.contains(name), "{name} in {components:?}");
    }
    assert!(
        !components.iter().any(|c| c.contains("textkit_esm")),
        "{components:?}"
    );
}

/// The words the site uses for a `check` JSON verdict (the start of the
/// index's "newest version against the one before" cell).
fn site_words(b: &Value) -> String {
    match b["verdict"].as_str().unwrap() {
        "change" => format!(
            "{} {}",
            b["severity"].as_str().unwrap(),
            b["direction"].as_str().unwrap()
        ),
        // A test's words, or how it was told without one.
        "no_change"
            if b["method"]
                .as_str()
                .is_some_and(|m| m.contains("intervals")) =>
        {
            "no change (the recorded intervals overlap)".into()
        }
        "no_change" if b["method"].as_str().is_some_and(|m| m.starts_with("exact")) => {
            "no change (equal values)".into()
        }
        "no_change" => "no significant change".into(),
        "negligible" => "no change of practical size".into(),
        "held_back" => "held back by false-discovery control".into(),
        "not_enough_data" => "not enough data".into(),
        other => panic!("verdict {other}"),
    }
}

#[test]
fn check_and_the_site_agree_on_every_sample_history() {
    // One read path: for each sample history, `check` (newest against the
    // version before) says what the site's index says of each benchmark's
    // newest version.
    let tmp = tempfile::tempdir().unwrap();
    let samples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-data");
    let mut compared = 0;
    for entry in std::fs::read_dir(&samples).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        // field-example keeps its report's input under report/.
        let input = match dir.join("report").is_dir() {
            true => dir.join("report"),
            false => dir,
        };
        let site = tmp.path().join(&name);
        let out = build(&input, &site, &["-q"]);
        assert!(out.status.success(), "{name}");
        let html = std::fs::read_to_string(site.join("index.html")).unwrap();
        let out = perfatlas(&[
            "check".as_ref(),
            input.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
            "--fail-on".as_ref(),
            "never".as_ref(),
        ]);
        if !out.status.success() {
            // One version only: nothing to check, and the site says so.
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("1 version found"),
                "{name}"
            );
            continue;
        }
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        for b in report["benchmarks"].as_array().unwrap() {
            let benchmark = b["benchmark"].as_str().unwrap();
            let row = html
                .split("<tr><th scope=\"row\">")
                .find(|r| text(r.split("</th>").next().unwrap()) == benchmark)
                .unwrap_or_else(|| panic!("{name}: no index row for {benchmark}"));
            let cell = row.split("</td><td class=\"").nth(1).unwrap();
            let cell = text(
                cell.split_once("\">")
                    .unwrap()
                    .1
                    .split("</td>")
                    .next()
                    .unwrap(),
            );
            assert!(
                cell.starts_with(&site_words(b)),
                "{name}: {benchmark}: check says {} {}, the site {cell}",
                b["verdict"],
                site_words(b)
            );
            compared += 1;
        }
    }
    assert!(compared >= 3, "{compared}");
}
