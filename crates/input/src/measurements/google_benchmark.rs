//! Google Benchmark's JSON (`--benchmark_format=json` or
//! `--benchmark_out=FILE`):
//!
//! ```text
//! {"context": {"date", "host_name", "executable", "num_cpus", …},
//!  "benchmarks": [{"name": "BM_Fib/10", "run_name": "BM_Fib/10",
//!                  "run_type": "iteration", "repetitions": 3, "repetition_index": 0,
//!                  "iterations": 198657, "real_time": 115.05, "cpu_time": 70.3,
//!                  "time_unit": "ns"},
//!                 {"name": "BM_Fib/10_mean", "run_type": "aggregate",
//!                  "aggregate_name": "mean", …}, …]}
//! ```
//!
//! Only `iteration` rows are read; `aggregate` rows (mean, median, stddev,
//! cv, BigO, RMS) are summaries of them. Rows are grouped into benchmarks
//! by `run_name` (else `name`). Each row is one repetition, taken as one
//! run with one sample: `real_time`, which Google Benchmark reports per
//! iteration, in `time_unit` (default `ns`), converted to seconds.
//! Repetitions run one after another in the same process; they are the
//! nearest thing to independent runs the file holds, so a benchmark with
//! several is `in_process = false`, and one with a single repetition says
//! so in its note. Rows with `error_occurred` or `skipped` are left out with
//! a warning.

use serde_json::{Map, Value};

use super::{array, object, required, string, Collected, Measured};
use crate::sniff::has_key;
use model::error::ParseError;

pub(super) const NAME: &str = "google-benchmark";

pub(super) fn sniff(head: &str) -> bool {
    has_key(head, "context") && has_key(head, "benchmarks")
}

/// The iteration rows of one benchmark.
struct Group {
    name: String,
    /// Path of its first row.
    path: String,
    runs: Vec<Vec<f64>>,
    rows: usize,
    /// Rows that failed or were skipped: how many, and the first one's
    /// path and reason.
    failed: usize,
    first_failure: Option<(String, String)>,
}

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let root = object(doc, "$")?;
    let rows = required(root, "$", "benchmarks", "Google Benchmark's list of runs")?;
    let rows = array(rows, "$.benchmarks")?;
    let mut groups: Vec<Group> = Vec::new();
    let mut index: rustc_hash::FxHashMap<String, usize> = Default::default();
    let mut aggregates = 0;
    for (i, row) in rows.iter().enumerate() {
        let path = format!("$.benchmarks[{i}]");
        let row = object(row, &path)?;
        match row_kind(row, &path, out)? {
            RowKind::Iteration => {}
            RowKind::Aggregate => {
                aggregates += 1;
                continue;
            }
            RowKind::Unknown => continue,
        }
        let name = row_name(row, &path)?;
        let g = *index.entry(name.to_string()).or_insert_with(|| {
            groups.push(Group {
                name: name.to_string(),
                path: path.clone(),
                runs: Vec::new(),
                rows: 0,
                failed: 0,
                first_failure: None,
            });
            groups.len() - 1
        });
        let group = &mut groups[g];
        group.rows += 1;
        if let Some(failure) = failure(row, &path) {
            group.failed += 1;
            group.first_failure.get_or_insert(failure);
            continue;
        }
        if let Some(seconds) = real_time(row, &path, out)? {
            group.runs.push(vec![seconds]);
        }
    }
    if groups.is_empty() && aggregates > 0 {
        return Err(ParseError::json(
            "$.benchmarks",
            "only aggregate rows (mean, median, stddev, …): the file was written with \
             --benchmark_report_aggregates_only; run without it to keep each repetition",
        ));
    }
    for group in groups {
        finish_group(group, out);
    }
    Ok(())
}

enum RowKind {
    Iteration,
    Aggregate,
    Unknown,
}

/// Suffixes of aggregate rows' names in files older than `run_type`.
const AGGREGATE_SUFFIXES: [&str; 6] = ["_mean", "_median", "_stddev", "_cv", "_BigO", "_RMS"];

fn row_kind(
    row: &Map<String, Value>,
    path: &str,
    out: &mut Collected,
) -> Result<RowKind, ParseError> {
    match row.get("run_type") {
        Some(kind) => match string(kind, &format!("{path}.run_type"))? {
            "iteration" => Ok(RowKind::Iteration),
            "aggregate" => Ok(RowKind::Aggregate),
            other => {
                out.warn(
                    format!("{path}.run_type"),
                    format!("unknown run_type {other:?} (expected \"iteration\" or \"aggregate\"); the row is left out"),
                );
                Ok(RowKind::Unknown)
            }
        },
        None => {
            let name = row.get("name").and_then(Value::as_str).unwrap_or("");
            if row.contains_key("aggregate_name")
                || AGGREGATE_SUFFIXES.iter().any(|s| name.ends_with(s))
            {
                Ok(RowKind::Aggregate)
            } else {
                Ok(RowKind::Iteration)
            }
        }
    }
}

fn row_name<'a>(row: &'a Map<String, Value>, path: &str) -> Result<&'a str, ParseError> {
    match row.get("run_name") {
        Some(name) => string(name, &format!("{path}.run_name")),
        None => string(
            required(row, path, "name", "the benchmark's name")?,
            &format!("{path}.name"),
        ),
    }
}

/// The place and reason when Google Benchmark reports that the row failed
/// (`SkipWithError`) or was skipped (`SkipWithMessage`).
fn failure(row: &Map<String, Value>, path: &str) -> Option<(String, String)> {
    for (flag, message, what) in [
        ("error_occurred", "error_message", "reported an error"),
        ("skipped", "skip_message", "was skipped"),
    ] {
        if row.get(flag).and_then(Value::as_bool) == Some(true) {
            let reason = match row.get(message).and_then(Value::as_str) {
                Some(m) if !m.is_empty() => format!("{what}: {m:?}"),
                _ => what.to_string(),
            };
            return Some((format!("{path}.{flag}"), reason));
        }
    }
    None
}

/// The row's `real_time` in seconds, or `None` (with a warning) when it or
/// its unit is unusable.
fn real_time(
    row: &Map<String, Value>,
    path: &str,
    out: &mut Collected,
) -> Result<Option<f64>, ParseError> {
    let unit = match row.get("time_unit") {
        Some(unit) => string(unit, &format!("{path}.time_unit"))?,
        None => "ns",
    };
    let Some(per_second) = super::per_second(unit) else {
        out.warn(
            format!("{path}.time_unit"),
            format!(
                "unknown time unit {unit:?} (expected ns, us, ms or s); the repetition is left out"
            ),
        );
        return Ok(None);
    };
    let time = required(row, path, "real_time", "the time per iteration")?;
    Ok(out.sample(time, &format!("{path}.real_time"), per_second))
}

fn finish_group(group: Group, out: &mut Collected) {
    if let Some((place, reason)) = &group.first_failure {
        out.warn(
            place.clone(),
            format!(
                "{}: {} of {} repetitions left out; the first {reason}",
                group.name, group.failed, group.rows
            ),
        );
    }
    let several = group.runs.len() > 1;
    let note = if several {
        "Google Benchmark real_time per iteration; one run per repetition"
    } else {
        "Google Benchmark real_time per iteration; a single repetition \
         (--benchmark_repetitions=N gives N runs)"
    };
    out.benchmark(
        group.path,
        Measured {
            name: group.name,
            unit: "s".to_string(),
            runs: group.runs,
            in_process: !several,
            note: note.to_string(),
            interval: None,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;
    use model::error::Place;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("bench.json", text.as_bytes()).expect("sniffed as measurements")
    }

    /// `(real_time, time_unit)` of the fixture's iteration rows named
    /// `name`, read independently of the reader.
    fn iteration_rows(file: &str, name: &str) -> Vec<(f64, String)> {
        let doc: Value = serde_json::from_slice(&fixture(file)).unwrap();
        doc["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["run_type"] == "iteration" && r["name"] == name)
            .map(|r| {
                (
                    r["real_time"].as_f64().unwrap(),
                    r["time_unit"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn reads_repetitions_and_skips_aggregates() {
        let file = sniff_and_parse("gb.json", &fixture("google-benchmark.json"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "google-benchmark");
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        // No `BM_Fib/10_mean` & co., and BM_Fails has no usable repetition.
        assert_eq!(names, ["BM_Fib/10", "BM_Fib/15", "BM_FibMicros"]);
        for b in &file.benchmarks {
            // `--benchmark_repetitions=3`: three runs of one sample each.
            assert_eq!(b.runs.len(), 3, "{}", b.name);
            assert!(b.runs.iter().all(|r| r.len() == 1));
            assert_eq!((b.unit.as_str(), b.in_process), ("s", false));
            assert!(b.note.contains("real_time per iteration"), "{}", b.note);
        }
        let rows = iteration_rows("google-benchmark.json", "BM_Fib/10");
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].1, "ns");
        assert_eq!(file.benchmarks[0].runs[0][0], rows[0].0 / 1e9);
        assert_eq!(file.benchmarks[0].runs[2][0], rows[2].0 / 1e9);
        let micros = iteration_rows("google-benchmark.json", "BM_FibMicros");
        assert_eq!(micros[1].1, "us");
        assert_eq!(file.benchmarks[2].runs[1][0], micros[1].0 / 1e6);
        // fib(15) is slower than fib(10), both well under a millisecond.
        assert!(file.benchmarks[1].runs[0][0] > file.benchmarks[0].runs[0][0]);
        assert!(file.benchmarks[1].runs[0][0] < 1e-3);
    }

    #[test]
    fn failed_repetitions_are_one_warning_and_the_benchmark_is_dropped() {
        let file = sniff_and_parse("gb.json", &fixture("google-benchmark.json"))
            .unwrap()
            .unwrap();
        let messages: Vec<String> = file.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            messages,
            [
                "$.benchmarks[21].error_occurred: BM_Fails: 3 of 3 repetitions left out; the first reported an error: \"no input file\"",
                "$.benchmarks[21]: BM_Fails: no usable runs; the benchmark is left out",
            ]
        );
    }

    #[test]
    fn one_repetition_says_so() {
        let file = sniff_and_parse("x", &fixture("google-benchmark-one-repetition.json"))
            .unwrap()
            .unwrap();
        let [b] = &file.benchmarks[..] else {
            panic!("{:?}", file.benchmarks)
        };
        assert_eq!(b.name, "BM_Fib/10");
        assert_eq!(b.runs.len(), 1);
        assert_eq!(
            b.runs[0][0],
            iteration_rows("google-benchmark-one-repetition.json", "BM_Fib/10")[0].0 / 1e9
        );
        assert!(b.in_process);
        assert!(b.note.contains("single repetition"), "{}", b.note);
    }

    #[test]
    fn aggregates_only_is_a_clear_error() {
        let e = sniff_and_parse("x", &fixture("google-benchmark-aggregates-only.json"))
            .unwrap()
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks".into()));
        assert!(
            e.message.contains("--benchmark_report_aggregates_only"),
            "{e}"
        );
    }

    #[test]
    fn old_files_without_run_type_and_odd_rows() {
        let file = parse(
            r#"{"context": {}, "benchmarks": [
                {"name": "BM_a", "iterations": 1, "real_time": 2, "time_unit": "ms"},
                {"name": "BM_a", "iterations": 1, "real_time": 4, "time_unit": "ms"},
                {"name": "BM_a_mean", "real_time": 3, "time_unit": "ms"},
                {"name": "BM_b", "run_type": "iteration", "real_time": 5, "time_unit": "fortnights"},
                {"name": "BM_b", "run_type": "iteration", "real_time": -5},
                {"name": "BM_b", "run_type": "iteration", "real_time": 7, "skipped": true, "skip_message": "later"},
                {"name": "BM_b", "run_type": "iteration", "real_time": 9},
                {"name": "BM_c", "run_type": "summary", "real_time": 1}]}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks.len(), 2);
        assert_eq!(
            file.benchmarks[0].runs,
            vec![vec![2.0 / 1e3], vec![4.0 / 1e3]]
        );
        assert_eq!(file.benchmarks[1].runs, vec![vec![9.0 / 1e9]]);
        let places: Vec<String> = file.warnings.iter().map(|w| w.place.to_string()).collect();
        assert_eq!(
            places,
            [
                "$.benchmarks[3].time_unit",
                "$.benchmarks[4].real_time",
                "$.benchmarks[7].run_type",
                "$.benchmarks[5].skipped",
            ]
        );
        assert!(
            file.warnings[3].message.contains("was skipped: \"later\""),
            "{:?}",
            file.warnings[3]
        );
    }

    #[test]
    fn wrong_shapes_are_errors_with_a_path() {
        let e = parse(r#"{"context": {}, "benchmarks": {}}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks".into()));
        let e =
            parse(r#"{"context": {}, "benchmarks": [{"run_type": "iteration", "real_time": 1}]}"#)
                .unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.benchmarks[0].name: missing: the benchmark's name"
        );
        let e =
            parse(r#"{"context": {}, "benchmarks": [{"name": "a", "run_type": 1}]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks[0].run_type".into()));
        let e = parse(r#"{"context": {}, "benchmarks": [{"name": "a", "time_unit": "ns"}]}"#)
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks[0].real_time".into()));
        let e = parse(r#"{"context": {}, "benchmarks": []}"#).unwrap_err();
        assert_eq!(e.to_string(), "the file holds no benchmarks");
        let real = String::from_utf8(fixture("google-benchmark.json")).unwrap();
        let e = parse(&real[..real.len() - 300]).unwrap_err();
        assert!(matches!(e.place, Place::Line(_)), "{e}");
    }
}
