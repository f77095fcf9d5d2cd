//! `perfatlas check`'s report formats, read by what reads them: the JSON
//! validated against its documented schema (`docs/check-format.schema.json`)
//! by Python's `jsonschema`, the JUnit XML by `junitparser` (the library of
//! GitHub's "publish unit test results" action), and the Markdown as a
//! pull-request comment needs it (marker first, names escaped).
//!
//! The history is `sample-data/moment` cut to 2.17.1 and 2.18.0: the
//! release whose RFC 2822 parsing made moment about five times slower,
//! found in moment's own history (issue 10's notes), so the check fails.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::perfatlas;

/// moment 2.17.1 and 2.18.0, as captured (a fresh copy per test).
fn moment_regression(dir: &Path) -> PathBuf {
    let input = dir.join("moment");
    for version in ["2.17.1", "2.18.0"] {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("sample-data/moment")
            .join(version);
        let to = input.join(version);
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    std::fs::write(input.join("perfatlas.toml"), "title = \"moment (npm)\"\n").unwrap();
    input
}

fn check(input: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all: Vec<&OsStr> = vec!["check".as_ref(), input.as_os_str()];
    all.extend(args.iter().map(OsStr::new));
    let out = perfatlas(&all);
    (
        out.status.code(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `script` with python3, the report on its standard input; `None`
/// when python3 or `module` is missing (a failure under CI, where
/// `.ci/run` installs them).
fn python(module: &str, script: &str, report: &str) -> Option<String> {
    let has = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var_os("CI").is_none(),
            "python3 with {module} is needed (pip install {module}; .ci/run installs it)"
        );
        eprintln!("skipped: python3 with {module} not found");
        return None;
    }
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(report.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{module} rejected the report:\n{}\n{report}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/check-format.schema.json")
}

/// Prints "valid", or "invalid: " and the first error.
const VALIDATE: &str = "import json, sys, jsonschema
schema = json.load(open(SCHEMA))
jsonschema.Draft202012Validator.check_schema(schema)
try:
    jsonschema.Draft202012Validator(schema).validate(json.load(sys.stdin))
    print('valid')
except jsonschema.ValidationError as e:
    print('invalid:', e.message)";

/// What `jsonschema` says of `report`, `None` without it (outside CI).
fn schema_verdict(report: &str) -> Option<String> {
    let script = VALIDATE.replace("SCHEMA", &format!("{:?}", schema().to_str().unwrap()));
    python("jsonschema", &script, report).map(|out| out.trim().to_string())
}

fn validate(report: &str) {
    if let Some(verdict) = schema_verdict(report) {
        assert_eq!(verdict, "valid", "{report}");
    }
}

#[test]
fn json_reports_follow_the_documented_schema() {
    let dir = tempfile::tempdir().unwrap();
    let input = moment_regression(dir.path());
    // A failing check, with a skipped input.
    std::fs::write(input.join("2.18.0/cpu.4.cpuprofile"), "{\"nodes\": [").unwrap();
    let (code, json, stderr) = check(&input, &["--format", "json"]);
    assert_eq!(code, Some(1), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["format"], "perfatlas-check");
    assert_eq!(v["format_version"], 2);
    assert_eq!(v["failed"], true);
    assert_eq!(v["fail_on"], "major");
    let cpu = &v["benchmarks"][0];
    assert_eq!(cpu["benchmark"], "cpu");
    assert_eq!(cpu["verdict"], "change");
    assert_eq!(cpu["direction"], "regression");
    assert_eq!(cpu["severity"], "major");
    assert!(cpu["relative"].as_f64().unwrap() > 3.0, "{cpu}");
    assert_eq!(v["benchmarks"][1]["verdict"], "not_enough_data");
    assert!(v["benchmarks"][1]["reason"]
        .as_str()
        .unwrap()
        .contains("independent run"));
    assert_eq!(v["skipped"][0]["file"], "2.18.0/cpu.4.cpuprofile");
    validate(&json);
    // A passing check on the other sample history, and one that never fails.
    let (code, json, _) = check(&common::sample_data(), &["--format", "json"]);
    assert_eq!(code, Some(0));
    validate(&json);
    let (code, json, _) = check(&input, &["--format", "json", "--fail-on", "never"]);
    assert_eq!(code, Some(0));
    assert!(json.contains("\"failed\": false"));
    validate(&json);
    // The schema catches what it must: a field of the wrong type.
    let broken = json.replacen("\"failed\": false", "\"failed\": \"no\"", 1);
    if let Some(verdict) = schema_verdict(&broken) {
        assert!(verdict.starts_with("invalid:"), "{verdict}");
    }
}

#[test]
fn every_field_of_the_schema_is_documented() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/check-format.md"))
            .unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema()).unwrap()).unwrap();
    let mut fields: Vec<String> = Vec::new();
    for props in [
        &schema["properties"],
        &schema["$defs"]["benchmark"]["properties"],
        &schema["$defs"]["skipped"]["properties"],
        &schema["$defs"]["change"]["properties"],
        &schema["$defs"]["root_cause"]["properties"],
    ] {
        fields.extend(props.as_object().unwrap().keys().cloned());
    }
    for field in fields {
        assert!(
            doc.contains(&format!("`{field}`")),
            "docs/check-format.md does not describe `{field}`"
        );
    }
}

#[test]
fn junit_reports_are_read_by_junitparser() {
    let dir = tempfile::tempdir().unwrap();
    let input = moment_regression(dir.path());
    let (code, xml, stderr) = check(&input, &["--format", "junit"]);
    assert_eq!(code, Some(1), "{stderr}");
    let read = "import sys
from junitparser import JUnitXml, Failure, Skipped
xml = JUnitXml.fromstring(sys.stdin.read())
for suite in xml:
    print('suite', suite.name, suite.tests, suite.failures, suite.skipped, suite.errors)
    for case in suite:
        kinds = [type(r).__name__ + ':' + (r.type or '') + ':' + (r.message or '') for r in case.result]
        print('case', case.classname, case.name, '|'.join(kinds))";
    let Some(out) = python("junitparser", read, &xml) else {
        return;
    };
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0], "suite perfatlas check: 2.18.0 against 2.17.1 3 2 1 0",
        "{out}"
    );
    assert!(
        lines[1].starts_with("case perfatlas.check cpu Failure:major regression:major regression: 523 ms → 3.05 s (+482.7%, p < 0.0001)"),
        "{out}"
    );
    assert_eq!(
        lines[2],
        "case perfatlas.check heap Skipped::not enough data: 1 earlier value at this level (at least 3 needed to judge a single new value, or 3 independent runs in both versions)",
        "{out}"
    );
    assert!(
        lines[3].starts_with("case perfatlas.check node bench.mjs Failure:major regression:"),
        "{out}"
    );
    // Below --fail-on nothing fails, and the XML says so.
    let (code, xml, _) = check(&input, &["--format", "junit", "--fail-on", "never"]);
    assert_eq!(code, Some(0));
    let out = python("junitparser", read, &xml).unwrap();
    assert!(
        out.starts_with("suite perfatlas check: 2.18.0 against 2.17.1 3 0 1 0"),
        "{out}"
    );
}

#[test]
fn markdown_starts_with_the_marker_and_escapes_names() {
    let dir = tempfile::tempdir().unwrap();
    let input = moment_regression(dir.path());
    // A benchmark whose name is markup: its profiles renamed.
    for version in ["2.17.1", "2.18.0"] {
        for rep in 1..=3 {
            let v = input.join(version);
            std::fs::rename(
                v.join(format!("cpu.{rep}.cpuprofile")),
                v.join(format!("<img src=x>|<details>.{rep}.cpuprofile")),
            )
            .unwrap();
        }
    }
    let (code, md, stderr) = check(
        &input,
        &[
            "--format",
            "markdown",
            "--site-url",
            "https://example.org/moment report/",
        ],
    );
    assert_eq!(code, Some(1), "{stderr}");
    let mut lines = md.lines();
    assert_eq!(lines.next(), Some("<!-- perfatlas-check -->"));
    assert_eq!(
        lines.next(),
        Some("<!-- perfatlas-findings regressions=2 improvements=0 failed=true -->")
    );
    assert_eq!(
        lines.next(),
        Some("### perfatlas check failed: 2 major regressions")
    );
    assert!(
        md.contains("[Full report](<https://example.org/moment%20report/index.html>)"),
        "{md}"
    );
    assert!(
        md.contains("| | benchmark | before → after | change | root cause | see |"),
        "{md}"
    );
    assert!(
        md.contains("<code>&lt;img src=x&gt;\\|&lt;details&gt;</code>"),
        "the name is text, its | escaped:\n{md}"
    );
    assert!(!md.contains("<img"), "{md}");
    assert_eq!(md.matches("<details>").count(), 1, "{md}");
    assert!(md.contains("| **MAJOR** |"), "{md}");
    assert!(
        md.contains("| 523 ms → 3.05 s | +482.7% (5.8× slower), p &lt; 0.0001 |"),
        "{md}"
    );
    // The benchmark without a verdict is counted, and listed folded.
    assert!(
        md.contains("1 benchmark without enough data to judge (listed below)."),
        "{md}"
    );
    // Every table row has the header's six cells.
    for row in md.lines().filter(|l| l.starts_with("| ")) {
        let cells = row.replace("\\|", "").matches('|').count();
        assert_eq!(cells, 7, "{row}");
    }
}

/// The published site's address in the stories' tests.
const SITE: &str = "https://example.org/perf";

#[test]
fn every_format_tells_the_regressions_story() {
    // moment 2.17.1 → 2.18.0 with moment's own history: RFC 2822 parsing,
    // added in 2.18.0 (`configFromRFC2822`), made every call slower
    // (sample-data/moment/FINDINGS.md, from moment's changelog and source).
    let dir = tempfile::tempdir().unwrap();
    let input = moment_regression(dir.path());
    let repo = common::clone_bundle(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/moment/history.bundle"),
        &dir.path().join("repo"),
    );
    let repo = repo.to_str().unwrap();
    let args = |format: &'static str| ["--format", format, "--repo", repo, "--site-url", SITE];
    let (code, json, stderr) = check(&input, &args("json"));
    assert_eq!(code, Some(1), "{stderr}");
    validate(&json);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["site_url"], SITE);
    let story = &v["benchmarks"][0]["change"];
    assert_eq!(story["responsible"], "2.18.0", "{story}");
    assert_eq!(story["since"], "2.17.1", "{story}");
    assert_eq!(
        story["root_cause"]["function"], "configFromRFC2822",
        "{story}"
    );
    assert_eq!(story["root_cause"]["modified"], true, "{story}");
    assert!(
        story["root_cause"]["share"].as_f64().unwrap() > 0.5,
        "{story}"
    );
    assert_eq!(story["page"], "regressions/cpu/2.17.1--2.18.0.html");
    assert_eq!(story["flame_diff"], "flamediff/cpu/2.17.1--2.18.0.html");
    // The wall-clock benchmark is explained by the same profiles.
    let wall = &v["benchmarks"][2];
    assert_eq!(wall["benchmark"], "node bench.mjs");
    assert_eq!(wall["change"]["root_cause"]["profiled"], "cpu", "{wall}");
    assert!(v["benchmarks"][1]["change"].is_null());
    // The pages named are the site's, built from the same history.
    let site = dir.path().join("site");
    let out = common::build(&input, &site, &["--repo", repo]);
    assert!(out.status.success(), "{out:?}");
    for b in v["benchmarks"].as_array().unwrap() {
        for page in [&b["change"]["page"], &b["change"]["flame_diff"]] {
            if let Some(page) = page.as_str() {
                assert!(site.join(page).is_file(), "{page} is not in the site");
            }
        }
    }
    let root_cause = "root cause: configFromRFC2822 (moment/moment.js) explains";
    let (_, text, _) = check(&input, &args("text"));
    assert!(text.contains(root_cause), "{text}");
    assert!(
        text.contains(&format!("see {SITE}/regressions/cpu/2.17.1--2.18.0.html and {SITE}/flamediff/cpu/2.17.1--2.18.0.html")),
        "{text}"
    );
    let (_, xml, _) = check(&input, &args("junit"));
    let failure = xml
        .lines()
        .find(|l| l.contains("<failure") && l.contains("cpu"))
        .unwrap_or_else(|| panic!("{xml}"));
    assert!(failure.contains(root_cause), "{failure}");
    let (_, md, _) = check(&input, &args("markdown"));
    assert!(
        md.contains("| <code>configFromRFC2822</code> (moment/moment.js) explains 83%, modified ● | [regression](<https://example.org/perf/regressions/cpu/2.17.1--2.18.0.html>) · [flame diff](<https://example.org/perf/flamediff/cpu/2.17.1--2.18.0.html>) |"),
        "{md}"
    );
}

/// A history of `n` benchmarks over two versions, five runs each: the
/// first `regressions` twice as slow in the second version, the next
/// `improvements` twice as fast, the rest the same; long names, as
/// parameterised benchmarks have.
fn wide_history(dir: &Path, n: usize, regressions: usize, improvements: usize) -> PathBuf {
    let input = dir.join("wide");
    let name = |i: usize| {
        format!(
            "suite_{:02}/parse_document[size=1048576,mode=strict,case={i:04}]",
            i % 37
        )
    };
    for (v, version) in ["1.0.0", "1.1.0"].iter().enumerate() {
        let mut lines = Vec::new();
        for i in 0..n {
            let factor = match i {
                i if v == 1 && i < regressions => 2.0,
                i if v == 1 && i < regressions + improvements => 0.5,
                _ => 1.0,
            };
            let runs: Vec<String> = (0..5)
                .map(|r| {
                    format!(
                        "{:.4}",
                        (10.0 + i as f64 % 7.0) * factor * (1.0 + 0.002 * r as f64)
                    )
                })
                .collect();
            lines.push(format!(
                "{{\"name\": \"{}\", \"unit\": \"ms\", \"runs\": [{}]}}",
                name(i),
                runs.join(", ")
            ));
        }
        let folder = input.join(version);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("bench.json"),
            format!(
                "{{\"perfatlas_measurements\": 1,\n \"benchmarks\": [\n{}]}}\n",
                lines.join(",\n")
            ),
        )
        .unwrap();
    }
    input
}

/// The comment rendered by markdown-it (a CommonMark and GitHub-table
/// renderer from PyPI): the table's body rows with their cell counts, and
/// every link's address, one per line.
const RENDER: &str = "import sys, re
from markdown_it import MarkdownIt
html = MarkdownIt('commonmark', {'html': True}).enable('table').render(sys.stdin.read())
tables = html.count('<table>')
print('tables', tables)
body = html.split('<tbody>', 1)[1].split('</tbody>', 1)[0] if tables else ''
for row in re.findall(r'<tr>(.*?)</tr>', body, re.S):
    print('row', row.count('<td'))
for href in re.findall(r'href=\"([^\"]*)\"', html):
    print('href', href)";

#[test]
fn a_comment_for_2000_benchmarks_fits_and_leads_with_every_regression() {
    let dir = tempfile::tempdir().unwrap();
    let input = wide_history(dir.path(), 2000, 60, 15);
    let (code, md, stderr) = check(&input, &["--format", "markdown", "--site-url", SITE]);
    assert_eq!(code, Some(1), "{stderr}");
    let chars = md.chars().count();
    assert!(chars <= 65_000, "{chars} characters");
    // Every regression and improvement is a row of the table; the rest is
    // counted in one line and its list cut at a whole line, with a count.
    let table: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(table.len(), 1 + 75, "header and 75 changes");
    assert!(
        table[1..61].iter().all(|r| r.contains("2.0× slower")),
        "regressions first"
    );
    assert!(table[61..].iter().all(|r| r.contains("2.0× faster")));
    assert!(
        md.contains("1925 benchmarks without a change (listed below)."),
        "{md}"
    );
    let cut = md
        .lines()
        .find(|l| l.starts_with("- … and "))
        .unwrap_or_else(|| panic!("no stated cut"));
    assert!(
        cut.ends_with("more, see the [report](<https://example.org/perf/index.html>)."),
        "{cut}"
    );
    assert!(md.trim_end().ends_with("</details>"), "the fold is closed");
    let listed = md
        .lines()
        .filter(|l| l.starts_with("- [<code>suite_"))
        .count();
    let more: usize = cut["- … and ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(listed + more, 1925, "{cut}");

    let Some(rendered) = python("markdown_it", RENDER, &md) else {
        return;
    };
    let mut lines = rendered.lines();
    assert_eq!(lines.next(), Some("tables 1"), "{rendered}");
    let rows: Vec<&str> = rendered.lines().filter(|l| l.starts_with("row ")).collect();
    assert_eq!(rows.len(), 75);
    assert!(rows.iter().all(|r| *r == "row 6"), "{rows:?}");
    // Every link leads into the site, to a page the build wrote.
    let site = dir.path().join("site");
    let out = common::build(&input, &site, &[]);
    assert!(out.status.success(), "{out:?}");
    let hrefs: Vec<&str> = rendered
        .lines()
        .filter_map(|l| l.strip_prefix("href "))
        .collect();
    assert!(hrefs.len() > 75 * 2, "{}", hrefs.len());
    for href in hrefs {
        let path = href
            .strip_prefix("https://example.org/perf/")
            .unwrap_or_else(|| panic!("{href} is outside the site"));
        let path = common::percent_decoded(path);
        assert!(site.join(&path).is_file(), "{path} is not in the site");
    }

    // A tighter limit cuts the table itself, at a row, and says so.
    let (_, md, _) = check(
        &input,
        &[
            "--format",
            "markdown",
            "--site-url",
            SITE,
            "--max-chars",
            "8000",
        ],
    );
    assert!(md.chars().count() <= 8000, "{}", md.chars().count());
    let cut = md
        .lines()
        .find(|l| l.starts_with("… and "))
        .unwrap_or_else(|| panic!("{md}"));
    let shown = md.lines().filter(|l| l.starts_with("| ")).count() - 1;
    assert_eq!(
        cut,
        format!(
            "… and {} more changes, see the [report](<https://example.org/perf/index.html>).",
            75 - shown
        )
    );
}
