//! BenchmarkDotNet's JSON exports (`*-report-full.json`,
//! `*-report-full-compressed.json`, `*-report-brief.json`, `*-report.json`
//! in `BenchmarkDotNet.Artifacts/results/`):
//!
//! ```text
//! {"Title": "…-20260208-040854",
//!  "HostEnvironmentInfo": {"BenchmarkDotNetVersion": "0.14.0", …},
//!  "Benchmarks": [{"DisplayInfo": "Type.Method: ShortRun(IterationCount=5, …)",
//!                  "Type", "Method", "Parameters": "N=10",
//!                  "FullName": "Namespace.Type.Method(N: 10)",
//!                  "Statistics": {"N": 4, "Mean": 94.84, "Median", …,
//!                                 "ConfidenceInterval": {"Lower", "Upper", …}},
//!                  "Memory": {"Gen0Collections", …, "BytesAllocatedPerOperation": 528},
//!                  "Measurements": [{"IterationMode": "Workload", "IterationStage": "Result",
//!                                    "LaunchIndex": 1, "IterationIndex": 1,
//!                                    "Operations": 8388608, "Nanoseconds": 782054561}, …]}, …]}
//! ```
//!
//! A benchmark is named by its `FullName` (which carries the parameters);
//! when several jobs ran the same benchmark, the job from `DisplayInfo`
//! follows in brackets. Its samples are the `Workload`/`Result`
//! measurements, one per iteration, as time per operation (`Nanoseconds /
//! Operations`, in seconds): BenchmarkDotNet's `Result` stage is the
//! `Actual` iterations with the overhead subtracted and the outliers it
//! removes left out, and `Statistics` (its own summary, `Mean` in
//! nanoseconds) is computed from exactly these. Files from before the
//! `Result` stage existed are read from `Workload`/`Actual`. Each launch
//! (`LaunchIndex`, a process of its own) is a run; the iterations inside it
//! are in-process samples.
//!
//! `Memory.BytesAllocatedPerOperation` (the `[MemoryDiagnoser]`'s
//! Allocated column) is a benchmark of its own, `NAME (B/op)` in bytes, one
//! value per file. A file exported without measurements (the brief
//! exporter, `excludeMeasurements`) gives `Statistics.Mean` as one value,
//! its `ConfidenceInterval` as the interval. A benchmark that failed
//! (BenchmarkDotNet prints `NA`) has neither and is left out with a
//! warning.

use serde_json::{Map, Value};

use super::{array, object, required, Collected, Measured};
use crate::sniff::has_key;
use model::error::ParseError;
use model::Interval;

pub(super) const NAME: &str = "benchmarkdotnet";

/// `Benchmarks` (the key case tells it from Google Benchmark's
/// `benchmarks`) with `HostEnvironmentInfo`, or, in a file whose keys were
/// reordered (sorted by a JSON tool, which puts `Benchmarks` first), with a
/// benchmark's `FullName` and its `IterationMode` or `Statistics`.
pub(super) fn sniff(head: &str) -> bool {
    let has = |key: &str| has_key(head, key);
    has("Benchmarks")
        && (has("HostEnvironmentInfo")
            || (has("FullName") && (has("IterationMode") || has("Statistics"))))
}

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let root = object(doc, "$")?;
    let benchmarks = required(
        root,
        "$",
        "Benchmarks",
        "BenchmarkDotNet's list of benchmarks",
    )?;
    let benchmarks = array(benchmarks, "$.Benchmarks")?;
    let mut entries = Vec::with_capacity(benchmarks.len());
    for (i, benchmark) in benchmarks.iter().enumerate() {
        let path = format!("$.Benchmarks[{i}]");
        entries.push((object(benchmark, &path)?, path));
    }
    let names: Vec<String> = entries.iter().map(|(b, _)| full_name(b)).collect();
    for ((benchmark, path), name) in entries.iter().zip(&names) {
        let shared = names.iter().filter(|n| *n == name).count() > 1;
        let name = match (shared, job(benchmark)) {
            (true, Some(job)) => format!("{name} [{job}]"),
            _ => name.clone(),
        };
        read_benchmark(benchmark, path, name, out)?;
    }
    Ok(())
}

/// `FullName`, else `Type.Method` with the `Parameters`.
fn full_name(benchmark: &Map<String, Value>) -> String {
    let text = |key: &str| benchmark.get(key).and_then(Value::as_str).unwrap_or("");
    if !text("FullName").is_empty() {
        return text("FullName").to_string();
    }
    let name = [text("Namespace"), text("Type"), text("Method")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(".");
    match text("Parameters") {
        "" => name,
        params => format!("{name}({params})"),
    }
}

/// The job of `DisplayInfo` (`Type.Method: Job(…)`), what follows `: `.
fn job(benchmark: &Map<String, Value>) -> Option<&str> {
    let info = benchmark.get("DisplayInfo")?.as_str()?;
    info.split_once(": ")
        .map(|(_, job)| job)
        .filter(|j| !j.is_empty())
}

fn read_benchmark(
    benchmark: &Map<String, Value>,
    path: &str,
    name: String,
    out: &mut Collected,
) -> Result<(), ParseError> {
    let measured = match benchmark.get("Measurements") {
        Some(m) if !array(m, &format!("{path}.Measurements"))?.is_empty() => {
            from_measurements(m, path, name.clone(), out)?
        }
        _ => from_statistics(benchmark, name.clone()),
    };
    out.benchmark(path, measured);
    if let Some(bytes) = allocated(benchmark, path, out) {
        out.benchmark(
            format!("{path}.Memory.BytesAllocatedPerOperation"),
            Measured::one_value(
                format!("{name} (B/op)"),
                (bytes, "bytes"),
                "BenchmarkDotNet Memory.BytesAllocatedPerOperation (MemoryDiagnoser's Allocated)",
                None,
            ),
        );
    }
    Ok(())
}

/// The stage the samples come from: `Result` when the benchmark has it,
/// else `Actual`.
fn sample_stage(rows: &[Value]) -> &'static str {
    let is_result =
        |row: &Value| row.get("IterationStage").and_then(Value::as_str) == Some("Result");
    if rows.iter().any(is_result) {
        "Result"
    } else {
        "Actual"
    }
}

fn from_measurements(
    rows: &Value,
    path: &str,
    name: String,
    out: &mut Collected,
) -> Result<Measured, ParseError> {
    let rows_path = format!("{path}.Measurements");
    let rows = array(rows, &rows_path)?;
    let stage = sample_stage(rows);
    // Launch index -> samples, in the order launches first appear.
    let mut launches: Vec<(i64, Vec<f64>)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let row_path = format!("{rows_path}[{i}]");
        let row = object(row, &row_path)?;
        let text = |key: &str| row.get(key).and_then(Value::as_str);
        if text("IterationMode") != Some("Workload") || text("IterationStage") != Some(stage) {
            continue;
        }
        let Some(sample) = per_operation(row, &row_path, out) else {
            continue;
        };
        let launch = row.get("LaunchIndex").and_then(Value::as_i64).unwrap_or(1);
        match launches.iter_mut().find(|(l, _)| *l == launch) {
            Some((_, samples)) => samples.push(sample),
            None => launches.push((launch, vec![sample])),
        }
    }
    Ok(Measured {
        name,
        unit: "s".to_string(),
        runs: launches.into_iter().map(|(_, samples)| samples).collect(),
        in_process: true,
        note: format!(
            "BenchmarkDotNet Workload/{stage} measurements, Nanoseconds / Operations; \
             one run per launch"
        ),
        interval: None,
    })
}

/// One measurement's time per operation, in seconds; a warning and `None`
/// when its numbers are unusable.
fn per_operation(row: &Map<String, Value>, path: &str, out: &mut Collected) -> Option<f64> {
    let operations = row.get("Operations").and_then(Value::as_f64);
    let Some(operations) = operations.filter(|o| o.is_finite() && *o >= 1.0) else {
        out.warn(
            format!("{path}.Operations"),
            "expected a positive number of operations; the measurement is left out",
        );
        return None;
    };
    let nanoseconds = row.get("Nanoseconds").unwrap_or(&Value::Null);
    let seconds = out.sample(nanoseconds, &format!("{path}.Nanoseconds"), 1e9)?;
    Some(seconds / operations)
}

/// `Statistics.Mean` as one value, for a file without measurements; no
/// runs when it has no mean either (a failed benchmark).
fn from_statistics(benchmark: &Map<String, Value>, name: String) -> Measured {
    let statistics = benchmark.get("Statistics").and_then(Value::as_object);
    let number = |object: Option<&Map<String, Value>>, key: &str| {
        object?
            .get(key)?
            .as_f64()
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    let Some(mean) = number(statistics, "Mean") else {
        return Measured {
            name,
            unit: "s".to_string(),
            runs: Vec::new(),
            in_process: false,
            note: String::new(),
            interval: None,
        };
    };
    let ci = statistics
        .and_then(|s| s.get("ConfidenceInterval"))
        .and_then(Value::as_object);
    let interval = number(ci, "Lower")
        .zip(number(ci, "Upper"))
        .and_then(|(low, high)| Interval::new(low / 1e9, high / 1e9));
    let n = number(statistics, "N").unwrap_or(0.0);
    Measured::one_value(
        name,
        (mean / 1e9, "s"),
        &format!(
            "BenchmarkDotNet Statistics.Mean of {n} iterations (the file has no \
             Measurements), its ConfidenceInterval as the interval"
        ),
        interval,
    )
}

/// `Memory.BytesAllocatedPerOperation`, when the MemoryDiagnoser measured
/// it.
fn allocated(benchmark: &Map<String, Value>, path: &str, out: &mut Collected) -> Option<f64> {
    let memory = benchmark.get("Memory")?.as_object()?;
    let bytes = memory.get("BytesAllocatedPerOperation")?;
    let place = format!("{path}.Memory.BytesAllocatedPerOperation");
    out.sample(bytes, &place, 1.0)
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use model::error::Place;
    use serde_json::Value;

    const NEEDLR: &str =
        "benchmarkdotnet/needlr-TypeRegistrationBenchmarks-report-full-compressed.json";
    const FANTOMAS: &str = "benchmarkdotnet/fantomas-codeprinter-report-full.json";

    fn parse(bytes: &[u8]) -> MeasurementFile {
        let file = sniff_and_parse("x-report-full.json", bytes)
            .expect("sniffed")
            .expect("read");
        assert_eq!(file.format, "benchmarkdotnet");
        file
    }

    fn benchmark<'a>(file: &'a MeasurementFile, name: &str) -> &'a super::Measured {
        file.benchmarks
            .iter()
            .find(|b| b.name == name)
            .unwrap_or_else(|| panic!("{name} not among {:?}", names(file)))
    }

    fn names(file: &MeasurementFile) -> Vec<&str> {
        file.benchmarks.iter().map(|b| b.name.as_str()).collect()
    }

    /// Every sample, in nanoseconds.
    fn samples_ns(m: &super::Measured) -> Vec<f64> {
        m.runs.iter().flatten().map(|s| s * 1e9).collect()
    }

    /// `Statistics.{key}` of each benchmark, by `FullName`, read with
    /// serde_json alone.
    fn statistics(bytes: &[u8], key: &str) -> Vec<(String, f64)> {
        let doc: Value = serde_json::from_slice(bytes).unwrap();
        doc["Benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                let name = b["FullName"].as_str().unwrap().to_string();
                (name, b["Statistics"][key].as_f64().unwrap())
            })
            .collect()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
    }

    #[test]
    fn the_mean_of_the_samples_is_benchmarkdotnets_own_mean() {
        for rel in [NEEDLR, FANTOMAS] {
            let bytes = fixture(rel);
            let file = parse(&bytes);
            assert!(file.warnings.is_empty(), "{rel}: {:?}", file.warnings);
            let means = statistics(&bytes, "Mean");
            let counts = statistics(&bytes, "N");
            assert_eq!(file.benchmarks.len(), 2 * means.len(), "{:?}", names(&file));
            for ((name, mean), (_, n)) in means.iter().zip(&counts) {
                let m = benchmark(&file, name);
                let samples = samples_ns(m);
                assert_eq!(samples.len() as f64, *n, "{name}");
                let ours = samples.iter().sum::<f64>() / samples.len() as f64;
                assert!(
                    close(ours, *mean),
                    "{name}: {ours} vs Statistics.Mean {mean}"
                );
                assert_eq!(m.unit, "s");
                assert!(m.in_process);
                assert_eq!(m.runs.len(), 1, "one launch");
            }
        }
    }

    /// The rows of BenchmarkDotNet's GitHub-markdown table: (Method, Mean
    /// in ns, Allocated in bytes), as it printed them.
    fn github_table(text: &str) -> Vec<(String, String, String)> {
        let rows: Vec<Vec<&str>> = text
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.split('|').map(str::trim).collect())
            .collect();
        let header = &rows[0];
        let column = |name: &str| header.iter().position(|c| *c == name).unwrap();
        let (method, mean, allocated) = (column("Method"), column("Mean"), column("Allocated"));
        rows[2..]
            .iter()
            .map(|r| {
                let number = |c: &str, unit: &str| c.strip_suffix(unit).unwrap().replace(',', "");
                (
                    r[method].to_string(),
                    number(r[mean], " ns"),
                    number(r[allocated], " B"),
                )
            })
            .collect()
    }

    #[test]
    fn figures_match_the_table_benchmarkdotnet_printed() {
        let file = parse(&fixture(NEEDLR));
        let table = fixture("benchmarkdotnet/needlr-TypeRegistrationBenchmarks-report-github.md");
        let table = github_table(&String::from_utf8(table).unwrap());
        assert_eq!(table.len(), 3);
        let prefix = "NexusLabs.Needlr.Benchmarks.Benchmarks.TypeRegistrationBenchmarks.";
        for (method, mean, allocated) in table {
            let m = benchmark(&file, &format!("{prefix}{method}"));
            let samples = samples_ns(m);
            let ours = samples.iter().sum::<f64>() / samples.len() as f64;
            assert_eq!(format!("{ours:.2}"), mean, "{method}");
            let bytes = benchmark(&file, &format!("{prefix}{method} (B/op)"));
            assert_eq!(bytes.unit, "bytes");
            assert_eq!(bytes.runs, vec![vec![allocated.parse::<f64>().unwrap()]]);
        }
    }

    #[test]
    fn the_outlier_benchmarkdotnet_removed_stays_out() {
        // ManualDI's Actual iteration 3 (874291478 ns) was an outlier:
        // its Result stage has 4 iterations of the 5.
        let file = parse(&fixture(NEEDLR));
        let name = "NexusLabs.Needlr.Benchmarks.Benchmarks.TypeRegistrationBenchmarks.ManualDI_RegisterTypes";
        let samples = samples_ns(benchmark(&file, name));
        assert_eq!(samples.len(), 4);
        assert!(close(samples[0], 782054561.0 / 8388608.0));
        assert!(benchmark(&file, name).note.contains("Workload/Result"));
    }

    /// The fixture with every benchmark's `Measurements` removed, as the
    /// brief exporter writes it.
    fn without_measurements(bytes: &[u8]) -> Vec<u8> {
        let mut doc: Value = serde_json::from_slice(bytes).unwrap();
        for b in doc["Benchmarks"].as_array_mut().unwrap() {
            b.as_object_mut().unwrap().remove("Measurements");
        }
        serde_json::to_vec(&doc).unwrap()
    }

    #[test]
    fn a_file_without_measurements_gives_the_mean_and_its_interval() {
        let bytes = fixture(NEEDLR);
        let file = parse(&without_measurements(&bytes));
        for (name, mean) in statistics(&bytes, "Mean") {
            let m = benchmark(&file, &name);
            assert_eq!(m.runs.len(), 1);
            assert!(close(m.runs[0][0] * 1e9, mean), "{name}");
            let interval = m.interval.expect("the confidence interval");
            assert!(interval.low * 1e9 < mean && mean < interval.high * 1e9);
            assert!(m.note.contains("Statistics.Mean"), "{}", m.note);
        }
    }

    #[test]
    fn only_result_rows_count_and_actual_is_the_fallback() {
        let bytes = fixture(FANTOMAS);
        let text = String::from_utf8(bytes).unwrap();
        // Without a Result stage (older files), the Actual rows are read.
        let actual_only = text.replace("\"Result\"", "\"Warmup\"");
        let file = parse(actual_only.as_bytes());
        let m = benchmark(&file, "Fantomas.Benchmarks.Runners+CodePrinterTest.Format");
        assert_eq!(samples_ns(m).len(), 5);
        assert!(m.note.contains("Workload/Actual"), "{}", m.note);
    }

    #[test]
    fn launches_are_runs_and_jobs_tell_benchmarks_apart() {
        let row = |launch: u32, ns: u64| {
            format!(
                r#"{{"IterationMode":"Workload","IterationStage":"Result","LaunchIndex":{launch},"IterationIndex":1,"Operations":4,"Nanoseconds":{ns}}}"#
            )
        };
        let bench = |job: &str, rows: &[String]| {
            format!(
                r#"{{"DisplayInfo":"T.M: {job}","FullName":"N.T.M","Statistics":null,"Measurements":[{}]}}"#,
                rows.join(",")
            )
        };
        let text = format!(
            r#"{{"Title":"t","HostEnvironmentInfo":{{}},"Benchmarks":[{},{}]}}"#,
            bench(
                "Job-A(Runtime=.NET 8.0)",
                &[row(1, 40), row(1, 48), row(2, 44)]
            ),
            bench("Job-B(Runtime=.NET 9.0)", &[row(1, 20)]),
        );
        let file = parse(text.as_bytes());
        assert_eq!(
            names(&file),
            [
                "N.T.M [Job-A(Runtime=.NET 8.0)]",
                "N.T.M [Job-B(Runtime=.NET 9.0)]"
            ]
        );
        let a = &file.benchmarks[0];
        assert_eq!(a.runs.len(), 2);
        assert!(close(a.runs[0][1] * 1e9, 12.0));
        assert!(close(a.runs[1][0] * 1e9, 11.0));
    }

    #[test]
    fn a_failed_benchmark_is_left_out_with_a_warning() {
        let text = r#"{"Title":"t","HostEnvironmentInfo":{},"Benchmarks":[
            {"FullName":"T.Failed","Statistics":null,"Memory":{"BytesAllocatedPerOperation":-1},"Measurements":[]},
            {"FullName":"T.Ok","Statistics":{"N":1,"Mean":5}}]}"#;
        let file = parse(text.as_bytes());
        assert_eq!(names(&file), ["T.Ok"]);
        let messages: Vec<String> = file.warnings.iter().map(ToString::to_string).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains("T.Failed: no usable runs")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("-1 is negative")),
            "{messages:?}"
        );
    }

    #[test]
    fn bad_rows_are_warnings_at_their_place() {
        let text = r#"{"HostEnvironmentInfo":{},"Benchmarks":[{"FullName":"T.M","Measurements":[
            {"IterationMode":"Workload","IterationStage":"Result","Operations":0,"Nanoseconds":5},
            {"IterationMode":"Workload","IterationStage":"Result","Operations":1,"Nanoseconds":"x"},
            {"IterationMode":"Workload","IterationStage":"Result","Operations":1e308,"Nanoseconds":1e308},
            {"IterationMode":"Workload","IterationStage":"Result","Operations":2,"Nanoseconds":8}]}]}"#;
        let file = parse(text.as_bytes());
        let ns = samples_ns(&file.benchmarks[0]);
        assert!(close(ns[0], 1.0) && close(ns[1], 4.0), "{ns:?}");
        let places: Vec<&Place> = file.warnings.iter().map(|w| &w.place).collect();
        assert_eq!(
            places,
            [
                &Place::Json("$.Benchmarks[0].Measurements[0].Operations".into()),
                &Place::Json("$.Benchmarks[0].Measurements[1].Nanoseconds".into()),
            ]
        );
    }

    #[test]
    fn a_truncated_file_is_an_error_at_its_end() {
        for rel in [NEEDLR, FANTOMAS] {
            let bytes = fixture(rel);
            let cut = &bytes[..bytes.len() * 2 / 3];
            let e = sniff_and_parse("x.json", cut)
                .expect("still sniffed")
                .unwrap_err();
            let lines = cut.iter().filter(|&&b| b == b'\n').count() + 1;
            assert_eq!(e.place, Place::Line(lines), "{rel}: {e}");
            assert!(e.message.contains("EOF while parsing"), "{e}");
        }
    }

    #[test]
    fn a_file_with_sorted_keys_is_still_recognised() {
        let doc: Value = serde_json::from_slice(&fixture(NEEDLR)).unwrap();
        // serde_json's map sorts keys: `Benchmarks` first, the host info
        // past the first 8 KiB.
        let sorted = serde_json::to_vec(&doc).unwrap();
        assert_eq!(parse(&sorted).benchmarks.len(), 6);
        assert_eq!(parse(&without_measurements(&sorted)).benchmarks.len(), 6);
        assert!(!super::sniff(r#"{"Benchmarks": [{"FullName": "x"}]}"#));
    }

    #[test]
    fn a_wrong_shape_is_an_error_at_its_path() {
        let e = sniff_and_parse("x.json", br#"{"HostEnvironmentInfo":{},"Benchmarks":{}}"#)
            .unwrap()
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.Benchmarks".into()), "{e}");
        let e = sniff_and_parse(
            "x.json",
            br#"{"HostEnvironmentInfo":{},"Benchmarks":[{"FullName":"a","Measurements":[1]}]}"#,
        )
        .unwrap()
        .unwrap_err();
        assert_eq!(
            e.place,
            Place::Json("$.Benchmarks[0].Measurements[0]".into()),
            "{e}"
        );
    }
}
