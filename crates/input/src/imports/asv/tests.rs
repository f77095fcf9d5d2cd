use super::*;
use model::error::Place;

/// `tests/fixtures/history/asv/`: results asv wrote (see the README there).
fn fixture_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/fixtures/history/asv")
}

fn fixture() -> Results {
    gather(&fixture_dir(), None).unwrap()
}

/// The commits, oldest first, as `git log` listed them at capture.
fn git_log() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(fixture_dir().join("git-log.txt")).unwrap();
    let mut commits: Vec<(String, String)> = text
        .lines()
        .map(|l| {
            let mut parts = l.splitn(3, ' ');
            let hash = parts.next().unwrap().to_string();
            (hash, parts.next().unwrap().to_string())
        })
        .collect();
    commits.reverse();
    commits
}

/// The `samples:` lists `asv show --details` printed for `benchmark` at
/// `commit`: one list per parameter combination, as Python wrote them.
fn shown_samples(commit: &str, benchmark: &str) -> Vec<Vec<f64>> {
    let path = fixture_dir().join(format!("asv-show/{}.txt", &commit[..8]));
    let text = std::fs::read_to_string(path).unwrap();
    let section = text
        .split("\n\n")
        .skip_while(|s| !s.starts_with(&format!("{benchmark} [")))
        .find(|s| s.contains("samples: "))
        .unwrap_or_else(|| panic!("{benchmark} in asv show of {commit}"));
    let line = section
        .lines()
        .find_map(|l| l.trim().strip_prefix("samples: "))
        .unwrap();
    serde_json::from_str(line).unwrap()
}

/// The value `asv show` printed under `benchmark` (its second line).
fn shown_value(commit: &str, benchmark: &str) -> String {
    let path = fixture_dir().join(format!("asv-show/{}.txt", &commit[..8]));
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find(&format!("\n{benchmark} [")).unwrap();
    text[start..].lines().nth(2).unwrap().trim().to_string()
}

fn find<'a>(version: &'a ImportedVersion, name: &str) -> &'a Measured {
    version
        .benchmarks
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("{name} in {:?}", version.benchmarks))
}

#[test]
fn every_commit_in_date_order_with_the_samples_asv_show_prints() {
    let results = fixture();
    assert_eq!(results.machine, "fixture-box");
    assert_eq!(results.files.len(), 4);
    let history = read(&results, None).unwrap();
    assert!(history.warnings.is_empty(), "{:?}", history.warnings);
    let log = git_log();
    let revisions: Vec<&str> = history
        .versions
        .iter()
        .map(|v| v.revision.as_str())
        .collect();
    let expected: Vec<&str> = log.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(revisions, expected);
    for (version, (hash, date)) in history.versions.iter().zip(&log) {
        // git prints `2024-01-02T10:00:00Z`; asv kept the same instant.
        assert_eq!(version.date.as_deref(), Some(date.as_str()));
        let names: Vec<&str> = version.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "benchmarks.Params.time_build(n=200, kind='list')",
                "benchmarks.Params.time_build(n=200, kind='tuple')",
                "benchmarks.Params.time_build(n=2000, kind='list')",
                "benchmarks.Params.time_build(n=2000, kind='tuple')",
                "benchmarks.TimeSuite.time_work",
                "benchmarks.mem_table",
                "benchmarks.track_items",
            ]
        );
        // Every sample asv show lists, in order; time_work's 12 are its 3
        // processes of 4, time_build's 2 processes cannot be told apart.
        let work = find(version, "benchmarks.TimeSuite.time_work");
        let shown = shown_samples(hash, "benchmarks.TimeSuite.time_work");
        assert_eq!(work.runs.len(), 3);
        assert!(work.runs.iter().all(|r| r.len() == 4));
        assert_eq!(work.runs.concat(), shown[0]);
        assert_eq!(work.unit, "s");
        assert!(work.in_process);
        let build = shown_samples(hash, "benchmarks.Params.time_build");
        assert_eq!(build.len(), 4);
        for (b, shown) in version.benchmarks[..4].iter().zip(build) {
            assert_eq!(b.runs, vec![shown], "{}", b.name);
            assert_eq!(
                b.note,
                "asv samples (per call) of all its processes, as one run, with asv's 99% confidence interval (stats_ci_99_a/b)"
            );
        }
        let items = find(version, "benchmarks.track_items");
        assert_eq!(items.unit, "items");
        assert_eq!(
            items.runs,
            vec![vec![shown_value(hash, "benchmarks.track_items")
                .parse::<f64>()
                .unwrap()]]
        );
        assert!(!items.in_process);
        let table = find(version, "benchmarks.mem_table");
        assert_eq!(table.unit, "bytes");
        assert_eq!(shown_value(hash, "benchmarks.mem_table"), "4.06k");
        assert_eq!(table.runs, vec![vec![4056.0]]);
        assert_eq!(table.note, "asv memory value");
    }
    // The track_ values the capture's commits return: 10, 12, 12, 15.
    let items: Vec<f64> = history
        .versions
        .iter()
        .map(|v| find(v, "benchmarks.track_items").runs[0][0])
        .collect();
    assert_eq!(items, [10.0, 12.0, 12.0, 15.0]);
    assert_eq!(history.notes[0], "machine fixture-box: 4 commits");
    assert!(history
        .notes
        .iter()
        .any(|n| n.starts_with("1 benchmarks: asv's raw samples, each of")));
    assert!(history
        .notes
        .iter()
        .any(|n| n.starts_with("4 benchmarks: asv's raw samples, all")));
    assert!(history
        .notes
        .iter()
        .any(|n| n.starts_with("2 benchmarks: asv's result value only")));
}

#[test]
fn a_given_order_wins_over_dates_and_must_hold_every_commit() {
    let results = fixture();
    let mut order: Vec<String> = git_log().into_iter().map(|(h, _)| h).collect();
    order.reverse();
    let history = read(&results, Some(&order)).unwrap();
    let revisions: Vec<&str> = history
        .versions
        .iter()
        .map(|v| v.revision.as_str())
        .collect();
    assert_eq!(revisions, order);
    let e = read(&results, Some(&order[1..])).unwrap_err();
    assert!(e.file.starts_with("fixture-box/3f0ddf69-"), "{e}");
    assert!(
        e.to_string().contains("is not in the repository's history"),
        "{e}"
    );
}

#[test]
fn several_machines_need_a_choice() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    for m in ["a", "b"] {
        std::fs::create_dir_all(results.join(m)).unwrap();
        std::fs::write(results.join(m).join("machine.json"), "{}").unwrap();
    }
    std::fs::write(results.join("benchmarks.json"), "{}").unwrap();
    let e = gather(dir.path(), None).unwrap_err().to_string();
    assert!(e.contains("choose one with --machine NAME (a, b)"), "{e}");
    let e = gather(dir.path(), Some("c")).unwrap_err().to_string();
    assert!(e.contains("--machine c: no such machine"), "{e}");
    assert_eq!(gather(dir.path(), Some("b")).unwrap().machine, "b");
    let e = gather(&dir.path().join("nothing"), None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not an asv results directory"), "{e}");
}

fn with_file(text: &str) -> Result<ImportedHistory, InputError> {
    let mut results = fixture();
    results.files.truncate(1);
    results.files[0].bytes = text.as_bytes().to_vec();
    read(&results, None)
}

#[test]
fn hostile_files_are_errors_naming_the_file_and_place() {
    let results = fixture();
    let real = String::from_utf8(results.files[0].bytes.clone()).unwrap();
    let e = with_file(&real[..real.len() / 2]).unwrap_err();
    assert!(e.file.starts_with("fixture-box/"), "{e}");
    assert!(matches!(e.error.place, Place::Line(_)), "{e}");
    let head = r#""commit_hash": "ab", "date": 1, "version": 2"#;
    let cases = [
        (r#"{"commit_hash": "ab", "date": 1}"#.to_string(), "$.version: missing: the result format version"),
        (r#"{"version": 1}"#.to_string(), "$.version: asv result format version 1 (asv before 0.5); `asv update` converts the results to version 2"),
        (format!(r#"{{{head}}}"#), "$.result_columns: missing: the names of each row's columns"),
        (format!(r#"{{{head}, "result_columns": ["result"], "results": {{}}}}"#), "$.result_columns: no `params` column"),
        (r#"{"commit_hash": "ab", "date": "monday", "version": 2}"#.to_string(), "$.date: expected milliseconds since 1970, found a string"),
        (
            format!(r#"{{{head}, "result_columns": ["result", "params"], "results": {{"benchmarks.track_items": {{}}}}}}"#),
            "$.results[\"benchmarks.track_items\"]: expected an array, found an object",
        ),
        (
            format!(r#"{{{head}, "result_columns": ["result", "params"], "results": {{"benchmarks.Params.time_build": [[1, 2], [["1", "2"], ["'a'"]]]}}}}"#),
            "$.results[\"benchmarks.Params.time_build\"][0]: 2 values for 2 parameter combinations",
        ),
    ];
    for (text, expected) in &cases[..6] {
        let e = with_file(text).unwrap_err();
        assert!(e.file.starts_with("fixture-box/"), "{e}");
        assert_eq!(e.error.to_string(), *expected, "{text}");
    }
    // 2 values for 2 combinations read fine: the last case is not an error.
    assert!(with_file(&cases[6].0).is_ok());
    let three = format!(
        r#"{{{head}, "result_columns": ["result", "params"], "results": {{"benchmarks.Params.time_build": [[1, 2, 3], [["1", "2"], ["'a'"]]]}}}}"#
    );
    let e = with_file(&three).unwrap_err();
    assert_eq!(
        e.error.to_string(),
        "$.results[\"benchmarks.Params.time_build\"][0]: 3 values for 2 parameter combinations"
    );
}

#[test]
fn values_that_are_not_measurements_are_left_out_with_a_warning() {
    let text = r#"{"commit_hash": "ab", "date": 1, "version": 2,
        "result_columns": ["result", "params", "samples"],
        "results": {"benchmarks.track_items": [[-3]],
                    "benchmarks.TimeSuite.time_work": [[1], [], [[0.5, NaN, "x"]]],
                    "benchmarks.gone": [[1]],
                    "benchmarks.mem_table": [[null]]}}"#;
    let history = with_file(text).unwrap();
    let warned: Vec<String> = history
        .warnings
        .iter()
        .map(|w| w.error.to_string())
        .collect();
    assert_eq!(
        warned,
        [
            "$.results[\"benchmarks.TimeSuite.time_work\"][2][0][1]: null (NaN or infinity?) is not a measurement; left out",
            "$.results[\"benchmarks.TimeSuite.time_work\"][2][0][2]: a string is not a measurement; left out",
            "$.results[\"benchmarks.gone\"]: not in benchmarks.json (a benchmark since removed?); left out",
            "$.results[\"benchmarks.mem_table\"]: benchmarks.mem_table: asv recorded no value (failed, skipped or not run); left out",
            "$.results[\"benchmarks.track_items\"][0][0]: -3 is not a measurement; left out",
            "$.results[\"benchmarks.track_items\"]: benchmarks.track_items: asv recorded no value (failed, skipped or not run); left out",
        ]
    );
    let v = &history.versions[0];
    assert_eq!(v.date.as_deref(), Some("1970-01-01T00:00:00Z"));
    assert_eq!(v.benchmarks.len(), 1);
    assert_eq!(v.benchmarks[0].runs, vec![vec![0.5]]);
}

/// The `ci_99:` intervals `asv show --details` printed for `benchmark` at
/// `commit`, in seconds (asv rounds them to three digits).
fn shown_intervals(commit: &str, benchmark: &str) -> Vec<(f64, f64)> {
    let path = fixture_dir().join(format!("asv-show/{}.txt", &commit[..8]));
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find(&format!("\n{benchmark} [")).unwrap();
    let line = text[start..]
        .lines()
        .find_map(|l| l.trim().strip_prefix("ci_99: "))
        .unwrap();
    let seconds = |s: &str| {
        let s = s.trim();
        let (number, per) = [("μs", 1e6), ("ms", 1e3), ("ns", 1e9), ("s", 1.0)]
            .into_iter()
            .find_map(|(u, per)| s.strip_suffix(u).map(|n| (n, per)))
            .unwrap();
        number.parse::<f64>().unwrap() / per
    };
    line.split("), (")
        .map(|pair| {
            let pair = pair.trim_matches(|c| c == '(' || c == ')');
            let (low, high) = pair.split_once(", ").unwrap();
            (seconds(low), seconds(high))
        })
        .collect()
}

#[test]
fn asv_confidence_intervals_are_kept_as_asv_show_prints_them() {
    let history = read(&fixture(), None).unwrap();
    let near = |a: f64, b: f64| (a - b).abs() <= 0.006 * b.abs();
    for version in &history.versions {
        let work = find(version, "benchmarks.TimeSuite.time_work");
        let interval = work.interval.expect("time_work has asv's ci_99");
        let shown = shown_intervals(&version.revision, "benchmarks.TimeSuite.time_work");
        assert!(
            near(interval.low, shown[0].0) && near(interval.high, shown[0].1),
            "{interval:?} against {shown:?}"
        );
        assert!(
            work.note.contains("99% confidence interval"),
            "{}",
            work.note
        );
        // Parameterised: each combination its own interval, in asv's order.
        let shown = shown_intervals(&version.revision, "benchmarks.Params.time_build");
        let combos = ["(n=200, kind='list')", "(n=200, kind='tuple')"];
        for (combo, (low, high)) in combos.iter().zip(&shown) {
            let b = find(version, &format!("benchmarks.Params.time_build{combo}"));
            let i = b.interval.unwrap();
            assert!(near(i.low, *low) && near(i.high, *high), "{combo}: {i:?}");
        }
        // track_ and mem_ values have no interval.
        assert_eq!(find(version, "benchmarks.track_items").interval, None);
    }
}
