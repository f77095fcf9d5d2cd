//! pytest-benchmark's JSON (`--benchmark-json=FILE`, or the files of
//! `--benchmark-save`/`--benchmark-autosave` with `--benchmark-save-data`):
//!
//! ```text
//! {"machine_info": {…}, "commit_info": {…},
//!  "benchmarks": [{"group", "name": "test_fib10", "fullname": "test_fib.py::test_fib10",
//!                  "params", "options": {…},
//!                  "stats": {"min", "max", "mean", …, "rounds": 7, "iterations": 1,
//!                            "data": [seconds, …]}}],
//!  "datetime", "version"}
//! ```
//!
//! A benchmark is named by its `fullname` (else `name`). `stats.data` holds
//! one figure per round: the round's time divided by its iterations, in
//! seconds. The whole file is one process, so each benchmark is ONE run whose
//! samples are its rounds (`in_process = true`). Saved files without
//! `--benchmark-save-data` hold only the statistics, which are not read: the
//! file is an error saying how to keep the data.

use serde_json::Value;

use super::{array, object, required, string, Collected, Measured};
use crate::sniff::has_key;
use model::error::ParseError;

pub(super) const NAME: &str = "pytest-benchmark";

pub(super) fn sniff(head: &str) -> bool {
    has_key(head, "machine_info") || (has_key(head, "commit_info") && has_key(head, "benchmarks"))
}

const SAVE_DATA: &str = "pytest-benchmark kept only the statistics, not the time of each round: \
                         save with --benchmark-save-data (or write --benchmark-json)";

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let root = object(doc, "$")?;
    let benchmarks = required(
        root,
        "$",
        "benchmarks",
        "pytest-benchmark's list of benchmarks",
    )?;
    let benchmarks = array(benchmarks, "$.benchmarks")?;
    let mut without_data = Vec::new();
    for (i, benchmark) in benchmarks.iter().enumerate() {
        let path = format!("$.benchmarks[{i}]");
        if !read_benchmark(benchmark, &path, out)? {
            without_data.push(format!("{path}.stats.data"));
        }
    }
    match without_data.first() {
        Some(first) if without_data.len() == benchmarks.len() => {
            Err(ParseError::json(first.clone(), SAVE_DATA))
        }
        _ => {
            for place in without_data {
                out.warn(place, format!("{SAVE_DATA}; the benchmark is left out"));
            }
            Ok(())
        }
    }
}

/// Reads one benchmark; false when it has no `stats.data`.
fn read_benchmark(benchmark: &Value, path: &str, out: &mut Collected) -> Result<bool, ParseError> {
    let benchmark = object(benchmark, path)?;
    let name = match benchmark.get("fullname") {
        Some(name) => string(name, &format!("{path}.fullname"))?,
        None => string(
            required(benchmark, path, "name", "the benchmark's name")?,
            &format!("{path}.name"),
        )?,
    };
    let stats_path = format!("{path}.stats");
    let stats = object(
        required(benchmark, path, "stats", "the benchmark's statistics")?,
        &stats_path,
    )?;
    let Some(data) = stats.get("data") else {
        return Ok(false);
    };
    let data_path = format!("{stats_path}.data");
    let mut samples = Vec::new();
    for (j, d) in array(data, &data_path)?.iter().enumerate() {
        if let Some(seconds) = out.sample(d, &format!("{data_path}[{j}]"), 1.0) {
            samples.push(seconds);
        }
    }
    let mut runs = Vec::new();
    out.run(&mut runs, samples, &data_path);
    out.benchmark(
        path,
        Measured {
            name: name.to_string(),
            unit: "s".to_string(),
            runs,
            in_process: true,
            note: "pytest-benchmark time per iteration of each round (stats.data)".to_string(),
            interval: None,
        },
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;
    use model::error::Place;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("0001_x.json", text.as_bytes()).expect("sniffed as measurements")
    }

    /// `stats.data` and `stats.rounds` of a fixture's benchmark, read
    /// independently of the reader.
    fn data(i: usize) -> (Vec<f64>, u64) {
        let doc: Value = serde_json::from_slice(&fixture("pytest-benchmark.json")).unwrap();
        let stats = &doc["benchmarks"][i]["stats"];
        let data = stats["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        (data, stats["rounds"].as_u64().unwrap())
    }

    #[test]
    fn reads_rounds_as_one_in_process_run() {
        let file = sniff_and_parse("out.json", &fixture("pytest-benchmark.json"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "pytest-benchmark");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            ["test_fib.py::test_fib10", "test_fib.py::test_fib15"]
        );
        for (i, b) in file.benchmarks.iter().enumerate() {
            let (data, rounds) = data(i);
            assert_eq!(b.runs, vec![data.clone()]);
            assert_eq!(b.runs[0].len() as u64, rounds);
            assert_eq!((b.unit.as_str(), b.in_process), ("s", true));
        }
        // `--benchmark-min-rounds=7`; the pedantic test asked for 5 rounds.
        assert_eq!(file.benchmarks[0].runs[0].len(), 7);
        assert_eq!(file.benchmarks[1].runs[0].len(), 5);
        // Per iteration: fib(15) is about 11 times fib(10), though it ran 3
        // iterations per round.
        let mean = |r: &[f64]| r.iter().sum::<f64>() / r.len() as f64;
        let ratio = mean(&file.benchmarks[1].runs[0]) / mean(&file.benchmarks[0].runs[0]);
        assert!(ratio > 5.0 && ratio < 25.0, "{ratio}");
    }

    #[test]
    fn statistics_only_is_an_error_that_says_what_to_do() {
        let e = sniff_and_parse(
            "0001_nodata.json",
            &fixture("pytest-benchmark-saved-without-data.json"),
        )
        .unwrap()
        .unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks[0].stats.data".into()));
        assert!(e.message.contains("--benchmark-save-data"), "{e}");
        // With some data left, the others are warnings.
        let file = parse(
            r#"{"machine_info": {}, "benchmarks": [{"name": "a", "stats": {"mean": 1}},
                                                   {"name": "b", "stats": {"data": [1, 2]}}]}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks[0].name, "b");
        assert_eq!(file.benchmarks[0].runs, vec![vec![1.0, 2.0]]);
        assert_eq!(file.warnings.len(), 1);
        assert_eq!(
            file.warnings[0].place,
            Place::Json("$.benchmarks[0].stats.data".into())
        );
    }

    #[test]
    fn bad_rounds_are_warnings_and_shapes_errors() {
        let file = parse(
            r#"{"machine_info": {}, "benchmarks": [{"fullname": "t.py::a", "name": "a", "stats": {"data": [0.5, -0.5, NaN, 0.25]}},
                                                   {"fullname": "t.py::b", "stats": {"data": []}}]}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        assert_eq!(file.benchmarks[0].runs, vec![vec![0.5, 0.25]]);
        let places: Vec<String> = file.warnings.iter().map(|w| w.place.to_string()).collect();
        assert_eq!(
            places,
            [
                "$.benchmarks[0].stats.data[1]",
                "$.benchmarks[0].stats.data[2]",
                "$.benchmarks[1].stats.data",
                "$.benchmarks[1]",
            ]
        );
        let e =
            parse(r#"{"machine_info": {}, "benchmarks": [{"name": "a", "stats": {"data": {}}}]}"#)
                .unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.benchmarks[0].stats.data: expected an array, found an object"
        );
        let e = parse(r#"{"machine_info": {}, "benchmarks": [{"name": "a"}]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks[0].stats".into()));
        let e = parse(r#"{"machine_info": {}, "benchmarks": [{"stats": {}}]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks[0].name".into()));
        let e = parse(r#"{"machine_info": {}}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks".into()));
        let real = String::from_utf8(fixture("pytest-benchmark.json")).unwrap();
        let e = parse(&real[..real.len() - 500]).unwrap_err();
        assert!(matches!(e.place, Place::Line(_)), "{e}");
    }
}
