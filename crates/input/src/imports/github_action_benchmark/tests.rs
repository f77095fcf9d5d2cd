use super::*;
use model::error::Place;

/// `tests/fixtures/history/github-action-benchmark/shogi_core-data.js`: a
/// `data.js` the action wrote (see the README beside it).
fn fixture() -> Vec<u8> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/history/github-action-benchmark/shogi_core-data.js");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_text(text: &str) -> Result<ImportedHistory, InputError> {
    read("data.js", text.as_bytes())
}

#[test]
fn the_fixture_gives_every_commit_and_value_as_the_file_holds_it() {
    let bytes = fixture();
    assert!(sniff(&bytes));
    let history = read("data.js", &bytes).unwrap();
    assert!(history.warnings.is_empty(), "{:?}", history.warnings);
    // The same file read independently: the JSON after the prefix.
    let text = String::from_utf8(bytes).unwrap();
    let doc: Value =
        serde_json::from_str(text.strip_prefix("window.BENCHMARK_DATA = ").unwrap()).unwrap();
    let entries = doc["entries"]["Benchmark result (shogi_legality_lite)"]
        .as_array()
        .unwrap();
    assert_eq!(history.versions.len(), entries.len());
    assert_eq!(history.versions.len(), 3);
    for (version, entry) in history.versions.iter().zip(entries) {
        assert_eq!(version.revision, entry["commit"]["id"].as_str().unwrap());
        assert_eq!(
            version.date.as_deref(),
            entry["commit"]["timestamp"].as_str()
        );
        let benches = entry["benches"].as_array().unwrap();
        assert_eq!(version.benchmarks.len(), benches.len());
        for bench in benches {
            let name = bench["name"].as_str().unwrap();
            let b = version
                .benchmarks
                .iter()
                .find(|b| b.name == name)
                .unwrap_or_else(|| panic!("{name}"));
            assert_eq!(bench["unit"], "ns/iter");
            assert_eq!(b.unit, "s");
            assert_eq!(b.runs, vec![vec![bench["value"].as_f64().unwrap() / 1e9]]);
            assert!(!b.in_process);
            assert_eq!(
                b.note,
                "github-action-benchmark value (tool cargo, ns/iter)"
            );
        }
    }
    // As cargo bench printed it: `test bitboard::tests::pop_bench ... bench: 86 ns/iter (+/- 0)`.
    let first = &history.versions[0];
    assert_eq!(first.revision, "4345684813975ee7255514cacaca671dbad719f3");
    assert_eq!(
        first.summary,
        "Merge pull request #30 from rust-shogi-crates/fix/publishing-benchmark-results"
    );
    assert_eq!(first.benchmarks[0].name, "bitboard::tests::pop_bench");
    assert_eq!(first.benchmarks[0].runs, vec![vec![86e-9]]);
    assert_eq!(
        history.versions[2].benchmarks[1].name,
        "bitboard::tests::shift_down_bench"
    );
    assert_eq!(history.versions[2].benchmarks[1].runs, vec![vec![20253e-9]]);
    assert!(history.notes[0].contains("15 values from 3 runs of 3 commits"));
    assert!(history.notes[0].contains("judged by its change points"));
    // `(+/- 0)`, as the action wrote it (`± 0`), is the value's interval.
    assert_eq!(
        first.benchmarks[0].interval,
        model::Interval::new(86e-9, 86e-9)
    );
    assert!(
        history.notes[1].starts_with("15 ranges the tools printed"),
        "{:?}",
        history.notes
    );
}

#[test]
fn the_json_form_without_the_prefix_reads_the_same() {
    let bytes = fixture();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let json = text.strip_prefix("window.BENCHMARK_DATA = ").unwrap();
    assert!(sniff(json.as_bytes()));
    assert_eq!(
        read("data.json", json.as_bytes()).unwrap().versions,
        read("data.js", &bytes).unwrap().versions
    );
}

const TWO_SUITES: &str = r#"window.BENCHMARK_DATA = {"entries": {
 "go": [{"commit": {"id": "bbb", "message": "second", "timestamp": "2024-01-02T00:00:00Z"}, "date": 20, "tool": "go",
         "benches": [{"name": "BenchmarkA", "value": 5102, "unit": "ns/op\t    2346 B/op\t      43 allocs/op"},
                     {"name": "BenchmarkA - B/op", "value": 2346, "unit": "B/op"}]},
        {"commit": {"id": "aaa", "message": "first\n\nbody", "timestamp": "2024-01-01T00:00:00Z"}, "date": 10, "tool": "go",
         "benches": [{"name": "BenchmarkA", "value": 5000, "unit": "ns/op"}]},
        {"commit": {"id": "bbb"}, "date": 30, "tool": "go",
         "benches": [{"name": "BenchmarkA", "value": 5200, "unit": "ns/op"}]}],
 "py": [{"commit": {"id": "aaa"}, "date": 11, "tool": "pytest",
         "benches": [{"name": "test_x", "value": 200, "unit": "iter/sec", "range": "stddev: 0.0001", "extra": "mean: 5 msec"},
                     {"name": "test_y", "value": 0, "unit": "ops/sec"},
                     {"name": "test_z", "value": "fast", "unit": "ms"}]}]}};
"#;

#[test]
fn runs_of_one_commit_merge_and_suites_prefix_their_names() {
    let history = read_text(TWO_SUITES).unwrap();
    let revisions: Vec<&str> = history
        .versions
        .iter()
        .map(|v| v.revision.as_str())
        .collect();
    assert_eq!(revisions, ["aaa", "bbb"], "by the earliest run");
    let a = &history.versions[0];
    assert_eq!(a.summary, "first");
    assert_eq!(a.date.as_deref(), Some("2024-01-01T00:00:00Z"));
    let names: Vec<&str> = a.benchmarks.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["go / BenchmarkA", "py / test_x"]);
    // iter/sec: seconds per iteration, pytest's mean.
    assert_eq!(a.benchmarks[1].runs, vec![vec![0.005]]);
    assert!(a.benchmarks[1]
        .note
        .contains("iter/sec) as seconds per operation"));
    let b = &history.versions[1];
    assert_eq!(b.benchmarks[0].name, "go / BenchmarkA");
    assert_eq!(b.benchmarks[0].runs, vec![vec![5102e-9], vec![5200e-9]]);
    assert_eq!(b.benchmarks[1].name, "go / BenchmarkA - B/op");
    assert_eq!(b.benchmarks[1].unit, "B/op");
    assert_eq!(b.benchmarks[1].runs, vec![vec![2346.0]]);
    let warned: Vec<String> = history.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        warned,
        [
            "data.js: $.entries[\"py\"][0].benches[1].value: 0 cannot be a measurement in s; the value is left out",
            "data.js: $.entries[\"py\"][0].benches[2].value: expected a number, found a string; the value is left out",
        ]
    );
    assert!(history.notes.iter().any(|n| n.contains("`stddev: 0.0001`")));
    assert!(history
        .notes
        .iter()
        .any(|n| n.contains("1 values in `B/op` are kept as written")));
}

#[test]
fn units_become_seconds_where_they_are_times() {
    let s = |unit: &str, v: f64| convert(unit, v);
    assert_eq!(s("ns/iter", 86.0).1, Some(86e-9));
    assert_eq!(s("ms", 2.0).1, Some(0.002));
    assert_eq!(s("us/op", 3.0).1, Some(3e-6));
    assert_eq!(s("ops/sec", 4.0).1, Some(0.25));
    assert_eq!(s("ops/ms", 4.0).1, Some(0.00025));
    assert_eq!(s("sec", 1.5).1, Some(1.5));
    let kept = s("MB/s", 7.0);
    assert_eq!(
        (kept.0.as_str(), kept.1, kept.2),
        ("MB/s", Some(7.0), Figure::Kept)
    );
}

#[test]
fn hostile_files_are_errors_naming_the_file_and_place() {
    let text = String::from_utf8(fixture()).unwrap();
    let truncated = &text[..text.len() / 2];
    let e = read_text(truncated).unwrap_err();
    assert_eq!(e.file, "data.js");
    assert!(matches!(e.error.place, Place::Line(_)), "{e}");
    let cases = [
        (
            r#"window.BENCHMARK_DATA = {"lastUpdate": 1}"#,
            "$.entries: missing: the benchmark suites",
        ),
        (
            r#"window.BENCHMARK_DATA = {"entries": {"s": {}}}"#,
            "$.entries[\"s\"]: expected an array, found an object",
        ),
        (
            r#"window.BENCHMARK_DATA = {"entries": {"s": [{"benches": []}]}}"#,
            "$.entries[\"s\"][0].commit: missing: the commit this run measured",
        ),
        (
            r#"window.BENCHMARK_DATA = {"entries": {"s": [{"commit": {"id": 7}, "benches": []}]}}"#,
            "$.entries[\"s\"][0].commit.id: expected a string, found a number",
        ),
        (
            r#"window.BENCHMARK_DATA = {"entries": {"s": [{"commit": {"id": "a"}, "benches": [{"name": "x", "value": 1}]}]}}"#,
            "$.entries[\"s\"][0].benches[0].unit: missing: the value's unit",
        ),
        (
            r#"window.BENCHMARK_DATA = {"entries": {"s": [{"commit": {"id": "a"}, "date": "today", "benches": []}]}}"#,
            "$.entries[\"s\"][0].date: expected a number (milliseconds since 1970), found a string",
        ),
        (
            "window.BENCHMARK_DATA",
            "line 1: expected `window.BENCHMARK_DATA = ` followed by the data",
        ),
        ("window.BENCHMARK_DATA = ", "no data after the prefix"),
        ("[1, 2]", "$: expected an object, found an array"),
    ];
    for (text, expected) in cases {
        let e = read_text(text).unwrap_err();
        assert_eq!(e.to_string(), format!("data.js: {expected}"), "{text}");
    }
}

#[test]
fn ranges_become_intervals_converted_as_their_values() {
    let data = r#"window.BENCHMARK_DATA = {"entries": {"s": [
 {"commit": {"id": "aaa"}, "date": 1, "tool": "cargo",
  "benches": [{"name": "a", "value": 1200, "unit": "ns/iter", "range": "± 1,100"},
              {"name": "b", "value": 500, "unit": "ops/sec", "range": "±10%"},
              {"name": "c", "value": 7, "unit": "items", "range": "+/- 2"},
              {"name": "d", "value": 5, "unit": "ms", "range": "stddev: 0.2"},
              {"name": "e", "value": 10, "unit": "ops/sec", "range": "± 20"}]}]}};"#;
    let history = read("data.js", data.as_bytes()).unwrap();
    let b = &history.versions[0].benchmarks;
    let interval = |i: usize| b[i].interval.map(|i| (i.low, i.high));
    let close = |x: Option<(f64, f64)>, y: (f64, f64)| {
        x.is_some_and(|x| (x.0 - y.0).abs() < 1e-15 && (x.1 - y.1).abs() < 1e-15)
    };
    // 1200 ± 1100 ns, in seconds.
    assert!(close(interval(0), (100e-9, 2300e-9)), "{:?}", interval(0));
    // 500 ops/s ± 10% is 450 to 550 ops/s: 1/550 to 1/450 s per operation.
    assert!(
        close(interval(1), (1.0 / 550.0, 1.0 / 450.0)),
        "{:?}",
        interval(1)
    );
    assert_eq!(interval(2), Some((5.0, 9.0)));
    // A standard deviation is not an interval; a rate interval reaching
    // zero has no inverse.
    assert_eq!(interval(3), None);
    assert_eq!(interval(4), None);
    assert!(history
        .notes
        .iter()
        .any(|n| n.starts_with("3 ranges the tools printed")));
    assert!(
        history
            .notes
            .iter()
            .any(|n| n.contains("2 ranges are left out (e.g. `stddev: 0.2`)")),
        "{:?}",
        history.notes
    );
}
