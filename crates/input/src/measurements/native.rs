//! perfatlas's own measurement JSON, documented in
//! `docs/measurements-format.md`:
//!
//! ```text
//! {"perfatlas_measurements": 1,
//!  "benchmarks": [{"name": "parse", "unit": "ms", "in_process": false, "note": "…",
//!                  "runs": [12.1, 12.3, [11.9, 12.0]]}]}
//! ```
//!
//! A number in `runs` is one run with one sample; an array is one run's
//! in-process samples. Time units (`ns`, `us`, `ms`, `s` and their long
//! names) are normalised to seconds; any other unit is kept as written.
//! [`to_json`] writes the same shape deterministically, in seconds.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::{array, object, required, string, Collected, Measured};
use crate::sniff::has_key;
use model::error::ParseError;

pub(super) const NAME: &str = "native-measurements";

/// The format version this perfatlas reads and writes.
pub const VERSION: u64 = 1;

/// The key that marks the format; its value is the version.
const KEY: &str = "perfatlas_measurements";

pub(super) fn sniff(head: &str) -> bool {
    has_key(head, KEY)
}

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let root = object(doc, "$")?;
    check_version(root)?;
    let benchmarks = required(root, "$", "benchmarks", "the list of benchmarks")?;
    for (i, benchmark) in array(benchmarks, "$.benchmarks")?.iter().enumerate() {
        read_benchmark(benchmark, &format!("$.benchmarks[{i}]"), out)?;
    }
    Ok(())
}

fn check_version(root: &Map<String, Value>) -> Result<(), ParseError> {
    let version = required(root, "$", KEY, "the format version")?;
    match version.as_u64() {
        Some(VERSION) => Ok(()),
        _ if version.is_number() => Err(ParseError::json(
            format!("$.{KEY}"),
            format!(
                "unsupported measurement format version {version} (this perfatlas reads {VERSION})"
            ),
        )),
        _ => Err(ParseError::json(
            format!("$.{KEY}"),
            format!(
                "expected the format version number {VERSION}, found {}",
                super::kind(version)
            ),
        )),
    }
}

fn read_benchmark(benchmark: &Value, path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let benchmark = object(benchmark, path)?;
    let name = string(
        required(benchmark, path, "name", "the benchmark's name")?,
        &format!("{path}.name"),
    )?;
    let unit_path = format!("{path}.unit");
    let unit = string(
        required(benchmark, path, "unit", "the unit of the values")?,
        &unit_path,
    )?;
    if unit.trim().is_empty() {
        return Err(ParseError::json(unit_path, "the unit is empty"));
    }
    let per_second = super::per_second(unit);
    let in_process = match benchmark.get("in_process") {
        None => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| super::wrong_shape(v, &format!("{path}.in_process"), "true or false"))?,
    };
    let note = match benchmark.get("note") {
        None => "",
        Some(v) => string(v, &format!("{path}.note"))?,
    };
    let runs_path = format!("{path}.runs");
    let runs_value = required(benchmark, path, "runs", "the runs and their samples")?;
    let mut runs = Vec::new();
    for (j, run) in array(runs_value, &runs_path)?.iter().enumerate() {
        let run_path = format!("{runs_path}[{j}]");
        match run {
            Value::Array(samples) => {
                let mut kept = Vec::with_capacity(samples.len());
                for (k, s) in samples.iter().enumerate() {
                    kept.extend(out.sample(
                        s,
                        &format!("{run_path}[{k}]"),
                        per_second.unwrap_or(1.0),
                    ));
                }
                out.run(&mut runs, kept, &run_path);
            }
            Value::Object(_) | Value::String(_) | Value::Bool(_) => {
                return Err(super::wrong_shape(
                    run,
                    &run_path,
                    "a number or an array of numbers",
                ));
            }
            sample => runs.extend(
                out.sample(sample, &run_path, per_second.unwrap_or(1.0))
                    .map(|s| vec![s]),
            ),
        }
    }
    let interval = match benchmark.get("interval") {
        None | Some(Value::Null) => None,
        Some(v) => read_interval(v, &format!("{path}.interval"), out)
            .and_then(|i| i.scaled(1.0 / per_second.unwrap_or(1.0))),
    };
    out.benchmark(
        path,
        Measured {
            name: name.to_string(),
            unit: if per_second.is_some() { "s" } else { unit }.to_string(),
            runs,
            in_process,
            note: note.to_string(),
            interval,
        },
    );
    Ok(())
}

/// `[low, high]`, in the benchmark's unit; a warning and `None` when it is
/// not two finite numbers in order (the benchmark is kept without it).
fn read_interval(v: &Value, path: &str, out: &mut Collected) -> Option<model::Interval> {
    let pair = v.as_array().filter(|a| a.len() == 2);
    let interval = pair.and_then(|a| model::Interval::new(a[0].as_f64()?, a[1].as_f64()?));
    if interval.is_none() {
        out.warn(
            path,
            "expected [low, high], two numbers with low ≤ high; the interval is left out",
        );
    }
    interval
}

/// Writes benchmarks in this format: one benchmark per line, in the given
/// order, numbers in Rust's shortest round-trip form, so equal benchmarks
/// give equal bytes. A run of one sample is written as a number. Values
/// that are not finite are written as `null` (read back as a warning).
pub fn to_json(benchmarks: &[Measured]) -> String {
    let mut out = format!("{{\"{KEY}\":{VERSION},\n\"benchmarks\":[");
    for (i, b) in benchmarks.iter().enumerate() {
        out.push_str(if i > 0 { ",\n" } else { "\n" });
        let _ = write!(
            out,
            "{{\"name\":{},\"unit\":{},\"in_process\":{},\"note\":{},\"runs\":[",
            json_string(&b.name),
            json_string(&b.unit),
            b.in_process,
            json_string(&b.note)
        );
        for (j, run) in b.runs.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            match &run[..] {
                [one] => number(&mut out, *one),
                samples => {
                    out.push('[');
                    for (k, &s) in samples.iter().enumerate() {
                        if k > 0 {
                            out.push(',');
                        }
                        number(&mut out, s);
                    }
                    out.push(']');
                }
            }
        }
        out.push(']');
        if let Some(i) = b.interval {
            out.push_str(",\"interval\":[");
            number(&mut out, i.low);
            out.push(',');
            number(&mut out, i.high);
            out.push(']');
        }
        out.push('}');
    }
    out.push_str("]}\n");
    out
}

/// A number as JSON: Rust's shortest round-trip form, which never uses an
/// exponent; `null` when not finite.
fn number(out: &mut String, v: f64) {
    if v.is_finite() {
        let _ = write!(out, "{v}");
    } else {
        out.push_str("null");
    }
}

fn json_string(s: &str) -> String {
    // Serialising a string cannot fail.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

#[cfg(test)]
mod tests {
    use super::super::{sniff_and_parse, write_native, MeasurementFile};
    use super::*;
    use model::error::Place;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("m.json", text.as_bytes()).expect("sniffed as measurements")
    }

    const EXAMPLE: &str = r#"{"perfatlas_measurements": 1,
 "benchmarks": [{"name": "parse", "unit": "ms", "runs": [12.1, 12.3, [11.9, 12.0]]},
                {"name": "render", "unit": "instructions", "in_process": true,
                 "note": "perf stat instructions:u", "runs": [[1500000, 1500020]]}]}"#;

    #[test]
    fn reads_the_documented_example() {
        let file = parse(EXAMPLE).unwrap();
        assert_eq!(file.format, "native-measurements");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let parse = &file.benchmarks[0];
        assert_eq!(parse.name, "parse");
        assert_eq!(parse.unit, "s");
        assert_eq!(
            parse.runs,
            vec![
                vec![12.1 / 1e3],
                vec![12.3 / 1e3],
                vec![11.9 / 1e3, 12.0 / 1e3]
            ]
        );
        assert!(!parse.in_process);
        assert_eq!(parse.note, "");
        let render = &file.benchmarks[1];
        assert_eq!(render.unit, "instructions");
        assert_eq!(render.runs, vec![vec![1_500_000.0, 1_500_020.0]]);
        assert!(render.in_process);
        assert_eq!(render.note, "perf stat instructions:u");
    }

    #[test]
    fn write_native_round_trips_and_is_deterministic() {
        let first = parse(EXAMPLE).unwrap().benchmarks;
        let json = write_native(&first);
        assert_eq!(
            json,
            "{\"perfatlas_measurements\":1,\n\"benchmarks\":[\n\
             {\"name\":\"parse\",\"unit\":\"s\",\"in_process\":false,\"note\":\"\",\"runs\":[0.0121,0.0123,[0.0119,0.012]]},\n\
             {\"name\":\"render\",\"unit\":\"instructions\",\"in_process\":true,\"note\":\"perf stat instructions:u\",\"runs\":[[1500000,1500020]]}]}\n"
        );
        let second = parse(&json).unwrap().benchmarks;
        assert_eq!(second, first);
        assert_eq!(write_native(&second), json);
        // Every reader's output survives the trip. Not always bit for bit:
        // serde_json (without its `float_roundtrip` feature) may read a
        // decimal one unit in the last place off.
        for file in [
            "hyperfine.json",
            "google-benchmark.json",
            "pytest-benchmark.json",
        ] {
            let read = sniff_and_parse(file, &super::super::fixture(file))
                .unwrap()
                .unwrap();
            let again = parse(&write_native(&read.benchmarks)).unwrap();
            assert_eq!(again.benchmarks.len(), read.benchmarks.len(), "{file}");
            for (a, b) in again.benchmarks.iter().zip(&read.benchmarks) {
                assert_eq!(
                    (&a.name, &a.unit, a.in_process, &a.note),
                    (&b.name, &b.unit, b.in_process, &b.note)
                );
                let shape = |m: &Measured| m.runs.iter().map(Vec::len).collect::<Vec<_>>();
                assert_eq!(shape(a), shape(b), "{file}");
                for (x, y) in a.runs.iter().flatten().zip(b.runs.iter().flatten()) {
                    assert!((x - y).abs() <= y.abs() * 1e-15, "{file}: {x} != {y}");
                }
            }
        }
        let odd = [Measured {
            name: "\"q\"\n\u{e9}".into(),
            unit: "s".into(),
            runs: vec![vec![f64::NAN, 1e-300, 5e-324]],
            in_process: true,
            note: String::new(),
            interval: None,
        }];
        let back = parse(&write_native(&odd)).unwrap();
        assert_eq!(back.benchmarks[0].name, odd[0].name);
        assert_eq!(back.benchmarks[0].runs, vec![vec![1e-300, 5e-324]]);
        assert_eq!(
            back.warnings[0].place,
            Place::Json("$.benchmarks[0].runs[0][0]".into())
        );
        assert_eq!(
            write_native(&[]),
            "{\"perfatlas_measurements\":1,\n\"benchmarks\":[]}\n"
        );
    }

    #[test]
    fn intervals_are_written_read_back_and_questioned() {
        let with = [Measured {
            name: "time_work".into(),
            unit: "s".into(),
            runs: vec![vec![0.000378]],
            in_process: false,
            note: "asv result".into(),
            interval: model::Interval::new(-0.0001, 0.000393),
        }];
        let text = write_native(&with);
        assert!(
            text.contains(r#""runs":[0.000378],"interval":[-0.0001,0.000393]}"#),
            "{text}"
        );
        assert_eq!(parse(&text).unwrap().benchmarks, with);
        // In the file's unit, converted as the values are.
        let read = parse(
            r#"{"perfatlas_measurements": 1, "benchmarks": [{"name": "a", "unit": "ms", "runs": [2], "interval": [1, 3]}]}"#,
        )
        .unwrap();
        assert_eq!(
            read.benchmarks[0].interval,
            model::Interval::new(0.001, 0.003)
        );
        let read = parse(
            r#"{"perfatlas_measurements": 1, "benchmarks": [{"name": "a", "unit": "s", "runs": [2], "interval": [3, 1]}]}"#,
        )
        .unwrap();
        assert_eq!(read.benchmarks[0].interval, None);
        assert_eq!(
            read.warnings[0].to_string(),
            "$.benchmarks[0].interval: expected [low, high], two numbers with low ≤ high; the interval is left out"
        );
    }

    #[test]
    fn versions_units_and_shapes_are_checked() {
        let e = parse(r#"{"perfatlas_measurements": 2, "benchmarks": []}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.perfatlas_measurements: unsupported measurement format version 2 (this perfatlas reads 1)"
        );
        let e = parse(r#"{"perfatlas_measurements": "1"}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.perfatlas_measurements".into()));
        let e =
            parse(r#"{"perfatlas_measurements": 1, "benchmarks": [{"name": "a", "runs": [1]}]}"#)
                .unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.benchmarks[0].unit: missing: the unit of the values"
        );
        let e = parse(r#"{"perfatlas_measurements": 1, "benchmarks": [{"name": "a", "unit": " ", "runs": [1]}]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks[0].unit".into()));
        let e = parse(r#"{"perfatlas_measurements": 1, "benchmarks": [{"name": "a", "unit": "s", "runs": [1, "2"]}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.benchmarks[0].runs[1]: expected a number or an array of numbers, found a string"
        );
        let e = parse(r#"{"perfatlas_measurements": 1, "benchmarks": [{"name": "a", "unit": "s", "in_process": 1, "runs": [1]}]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.benchmarks[0].in_process".into()));
        let e = parse("{\"perfatlas_measurements\": 1,\n\"benchmarks\": [{\"name\": \"a\",")
            .unwrap_err();
        assert_eq!(e.place, Place::Line(2), "{e}");
    }

    #[test]
    fn bad_samples_and_empty_runs_are_warnings() {
        let file = parse(
            r#"{"perfatlas_measurements": 1, "benchmarks": [
                {"name": "a", "unit": "us", "runs": [-1, [], [2, null, [3]], 4]},
                {"name": "a", "unit": "us", "runs": [5]},
                {"name": "a", "unit": "bytes", "runs": [6]},
                {"name": "b", "unit": "s", "runs": []}]}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        assert_eq!(
            file.benchmarks[0].runs,
            vec![vec![2.0 / 1e6], vec![4.0 / 1e6], vec![5.0 / 1e6]]
        );
        let places: Vec<String> = file.warnings.iter().map(|w| w.place.to_string()).collect();
        assert_eq!(
            places,
            [
                "$.benchmarks[0].runs[0]",
                "$.benchmarks[0].runs[1]",
                "$.benchmarks[0].runs[2][1]",
                "$.benchmarks[0].runs[2][2]",
                "$.benchmarks[2]",
                "$.benchmarks[3]",
            ]
        );
        assert!(
            file.warnings[4].message.contains("unit \"bytes\""),
            "{}",
            file.warnings[4]
        );
    }
}
