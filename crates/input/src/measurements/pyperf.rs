//! pyperf's JSON (`python -m pyperf timeit -o FILE`, a `pyperf.Runner`
//! script with `-o FILE`; pyperformance writes the same):
//!
//! ```text
//! {"benchmarks": [{"metadata": {"name": "sort-2000", …},
//!                  "runs": [{"metadata": {…}, "warmups": [[loops, value], …]},
//!                           {"metadata": {…}, "warmups": […], "values": [seconds, …]}, …]}],
//!  "metadata": {"unit": "second", "loops": 512, "name": …, …},
//!  "version": "1.0"}
//! ```
//!
//! Each run is a worker process pyperf spawned, so each is one run here
//! and its `values` (one figure per value: the time of its loops divided
//! by them, in seconds) are that run's samples. Warmups are left out, as
//! pyperf leaves them out of its statistics; a run with warmups only (the
//! calibration run) holds no values and is skipped without a warning. The
//! name and unit are the benchmark's `metadata`, else the file's (a file
//! of one benchmark keeps them at the top). Units: `second` is time;
//! `byte` and `integer` keep their own unit.

use serde_json::{Map, Value};

use super::{array, object, required, string, Collected, Measured};
use crate::sniff::has_key;
use model::error::ParseError;

pub(super) const NAME: &str = "pyperf";

/// A pyperf file: its benchmarks hold runs of `values` and `warmups`.
pub(super) fn sniff(head: &str) -> bool {
    has_key(head, "benchmarks")
        && has_key(head, "runs")
        && (has_key(head, "warmups") || has_key(head, "values"))
}

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let root = object(doc, "$")?;
    let common = match root.get("metadata") {
        Some(m) => Some(object(m, "$.metadata")?),
        None => None,
    };
    let benchmarks = required(root, "$", "benchmarks", "pyperf's list of benchmarks")?;
    for (i, benchmark) in array(benchmarks, "$.benchmarks")?.iter().enumerate() {
        read_benchmark(benchmark, &format!("$.benchmarks[{i}]"), common, out)?;
    }
    Ok(())
}

/// `key` of the benchmark's metadata, else of the file's.
fn metadata<'a>(
    own: Option<&'a Map<String, Value>>,
    common: Option<&'a Map<String, Value>>,
    key: &str,
) -> Option<&'a Value> {
    own.and_then(|m| m.get(key))
        .or_else(|| common.and_then(|m| m.get(key)))
}

fn read_benchmark(
    benchmark: &Value,
    path: &str,
    common: Option<&Map<String, Value>>,
    out: &mut Collected,
) -> Result<(), ParseError> {
    let benchmark = object(benchmark, path)?;
    let own = match benchmark.get("metadata") {
        Some(m) => Some(object(m, &format!("{path}.metadata"))?),
        None => None,
    };
    let name = match metadata(own, common, "name") {
        Some(name) => string(name, &format!("{path}.metadata.name"))?.to_string(),
        None => {
            return Err(ParseError::json(
                format!("{path}.metadata.name"),
                "the benchmark has no name (pyperf names it in its metadata or the file's)",
            ))
        }
    };
    let unit = match metadata(own, common, "unit").and_then(Value::as_str) {
        None | Some("second") => "s",
        Some("byte") => "bytes",
        Some("integer") => "count",
        Some(other) => other,
    }
    .to_string();
    let runs_path = format!("{path}.runs");
    let listed = array(
        required(benchmark, path, "runs", "the benchmark's runs")?,
        &runs_path,
    )?;
    let mut runs = Vec::new();
    for (j, run) in listed.iter().enumerate() {
        let run_path = format!("{runs_path}[{j}]");
        let Some(values) = object(run, &run_path)?.get("values") else {
            continue; // a calibration run: warmups only
        };
        let values_path = format!("{run_path}.values");
        let samples: Vec<f64> = array(values, &values_path)?
            .iter()
            .enumerate()
            .filter_map(|(k, v)| out.sample(v, &format!("{values_path}[{k}]"), 1.0))
            .collect();
        out.run(&mut runs, samples, &values_path);
    }
    if runs.is_empty() {
        out.warn(
            path,
            "no run with values (calibration runs only); the benchmark is left out",
        );
        return Ok(());
    }
    out.benchmark(
        path,
        Measured {
            name,
            unit,
            runs,
            in_process: false,
            note: "pyperf values of each worker process (warmups left out)".to_string(),
            interval: None,
        },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("bench.json", text.as_bytes()).expect("sniffed as measurements")
    }

    /// Each run's `values` of benchmark `i` of a fixture, read
    /// independently of the reader (runs without values left out).
    fn values(file: &str, i: usize) -> Vec<Vec<f64>> {
        let doc: Value = serde_json::from_slice(&fixture(file)).unwrap();
        doc["benchmarks"][i]["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r.get("values"))
            .map(|v| {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn reads_each_worker_process_as_a_run() {
        let file = sniff_and_parse("suite.json", &fixture("pyperf-suite.json"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "pyperf");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["sort-2000", "sum-2000"]);
        for (i, b) in file.benchmarks.iter().enumerate() {
            // `pyperf stats`: "Number of run with values: 10", "Number of
            // value per run: 2" (--fast); the calibration run is left out.
            assert_eq!(b.runs, values("pyperf-suite.json", i));
            assert_eq!(b.runs.len(), 10);
            assert!(b.runs.iter().all(|r| r.len() == 2));
            assert_eq!((b.unit.as_str(), b.in_process), ("s", false));
        }
        // `pyperf show`: sort-2000 247 us ± 21 us, sum-2000 10.5 us ± 0.2 us.
        let mean = |b: &Measured| {
            let all: Vec<f64> = b.runs.concat();
            all.iter().sum::<f64>() / all.len() as f64
        };
        assert!((mean(&file.benchmarks[0]) - 247e-6).abs() < 1e-6);
        assert!((mean(&file.benchmarks[1]) - 10.5e-6).abs() < 0.1e-6);
    }

    #[test]
    fn a_timeit_file_names_its_benchmark_at_the_top() {
        let file = sniff_and_parse("timeit.json", &fixture("pyperf-timeit.json"))
            .unwrap()
            .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        let b = &file.benchmarks[0];
        assert_eq!(b.name, "timeit");
        assert_eq!(b.runs, values("pyperf-timeit.json", 0));
        // `pyperf show`: Mean +- std dev: 246 us +- 32 us.
        let all: Vec<f64> = b.runs.concat();
        let mean = all.iter().sum::<f64>() / all.len() as f64;
        assert!((mean - 246e-6).abs() < 1e-6, "{mean}");
    }

    #[test]
    fn units_bad_values_and_shapes() {
        let file = parse(
            r#"{"benchmarks": [{"metadata": {"name": "rss", "unit": "byte"},
                                "runs": [{"warmups": [[1, 5]]}, {"values": [100, -1, 300]}]},
                               {"metadata": {"name": "calibration-only"}, "runs": [{"warmups": [[1, 2.0]]}]}],
                "version": "1.0"}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        assert_eq!(file.benchmarks[0].unit, "bytes");
        assert_eq!(file.benchmarks[0].runs, vec![vec![100.0, 300.0]]);
        let places: Vec<String> = file.warnings.iter().map(|w| w.place.to_string()).collect();
        assert_eq!(
            places,
            ["$.benchmarks[0].runs[1].values[1]", "$.benchmarks[1]"]
        );
        let e = parse(r#"{"benchmarks": [{"runs": [{"values": [1]}]}]}"#).unwrap_err();
        assert_eq!(e.to_string(), "$.benchmarks[0].metadata.name: the benchmark has no name (pyperf names it in its metadata or the file's)");
        let e = parse(r#"{"benchmarks": [{"metadata": {"name": "a"}, "runs": [{"values": 3}]}]}"#)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.benchmarks[0].runs[0].values: expected an array, found a number"
        );
        let real = String::from_utf8(fixture("pyperf-suite.json")).unwrap();
        assert!(parse(&real[..real.len() / 2]).is_err());
    }
}
