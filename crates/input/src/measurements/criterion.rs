//! Criterion.rs's raw samples, `target/criterion/<group>/<function…>/new/sample.json`:
//!
//! ```text
//! {"sampling_mode": "Linear" | "Flat", "iters": [n, …], "times": [total ns, …]}
//! ```
//!
//! Sample `i` ran `iters[i]` iterations in `times[i]` nanoseconds, so its
//! per-iteration time is `times[i] / iters[i]` (in seconds here). One file
//! is ONE run (one process) whose samples are in-process iterations.
//!
//! The file does not name its benchmark; its directories do: the components
//! after the first one named `criterion` (or all of them when there is
//! none), without the final `new`, joined by `/` — `fib/fib 20`, or
//! `fib-param/fib/10` for a parameter. Criterion's other files
//! (`benchmark.json`, `estimates.json`, baselines, `report/`) are
//! [`super::is_tool_byproduct`]s.

use serde_json::Value;

use super::{array, object, required, Collected, Measured};
use crate::sniff::has_key;
use model::error::ParseError;

pub(super) const NAME: &str = "criterion";

pub(super) fn sniff(head: &str) -> bool {
    has_key(head, "iters") && (has_key(head, "times") || has_key(head, "sampling_mode"))
}

pub(super) fn read(
    doc: &Value,
    relative_path: &str,
    out: &mut Collected,
) -> Result<(), ParseError> {
    let name = name_from_path(relative_path)?;
    let root = object(doc, "$")?;
    let iters = array(
        required(root, "$", "iters", "the iterations of each sample")?,
        "$.iters",
    )?;
    let times = array(
        required(root, "$", "times", "the total time of each sample")?,
        "$.times",
    )?;
    if iters.len() != times.len() {
        return Err(ParseError::json(
            "$.times",
            format!(
                "{} times for {} iteration counts; Criterion writes one of each per sample",
                times.len(),
                iters.len()
            ),
        ));
    }
    let mut samples = Vec::with_capacity(times.len());
    for (i, (n, t)) in iters.iter().zip(times).enumerate() {
        let iterations = iteration_count(n, &format!("$.iters[{i}]"), out);
        let nanoseconds = out.sample(t, &format!("$.times[{i}]"), 1.0);
        if let (Some(n), Some(total)) = (iterations, nanoseconds) {
            let seconds = total / n / 1e9;
            if seconds.is_finite() {
                samples.push(seconds);
            } else {
                out.warn(
                    format!("$.times[{i}]"),
                    format!("{total} ns in {n} iterations is out of range; the sample is left out"),
                );
            }
        }
    }
    let mut runs = Vec::new();
    out.run(&mut runs, samples, "$.times");
    let mode = match root.get("sampling_mode") {
        Some(Value::String(mode)) => format!(", {mode} sampling"),
        _ => String::new(),
    };
    out.benchmark(
        "$",
        Measured {
            name,
            unit: "s".to_string(),
            runs,
            in_process: true,
            note: format!(
                "Criterion time per iteration of each sample (times / iters in new/sample.json{mode})"
            ),
            interval: None,
        },
    );
    Ok(())
}

/// An iteration count: a finite number above 0, else a warning.
fn iteration_count(value: &Value, path: &str, out: &mut Collected) -> Option<f64> {
    match value.as_f64() {
        Some(n) if n.is_finite() && n > 0.0 => Some(n),
        Some(n) => {
            out.warn(
                path,
                format!("{n} iterations: the sample has no time per iteration and is left out"),
            );
            None
        }
        None => {
            out.warn(
                path,
                format!(
                    "expected an iteration count, found {}; the sample is left out",
                    super::kind(value)
                ),
            );
            None
        }
    }
}

/// The benchmark's name from the file's directories (see the module docs).
fn name_from_path(relative_path: &str) -> Result<String, ParseError> {
    let parts = super::components(relative_path);
    let dirs = parts.split_last().map_or(&[][..], |(_, dirs)| dirs);
    let after = match dirs.iter().position(|d| *d == "criterion") {
        Some(i) => &dirs[i + 1..],
        None => dirs,
    };
    let named = match after.split_last() {
        Some((&"new", rest)) => rest,
        _ => after,
    };
    if named.is_empty() {
        return Err(ParseError::whole(format!(
            "a Criterion sample file is named by its directories \
             (criterion/<group>/<function>/new/sample.json), but {relative_path:?} has none"
        )));
    }
    Ok(named.join("/"))
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, is_tool_byproduct, sniff_and_parse, MeasurementFile};
    use super::*;
    use model::error::Place;

    const FIB20: &str = "criterion/fib/fib 20/new/sample.json";
    const PARAM: &str = "criterion/fib-param/fib/10/new/sample.json";

    fn parse(path: &str, text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse(path, text.as_bytes()).expect("sniffed as measurements")
    }

    /// `(iters, times)` of a fixture, read independently of the reader.
    fn raw(file: &str) -> (Vec<f64>, Vec<f64>) {
        let doc: Value = serde_json::from_slice(&fixture(file)).unwrap();
        let numbers = |key: &str| -> Vec<f64> {
            doc[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        (numbers("iters"), numbers("times"))
    }

    #[test]
    fn reads_a_real_sample_file_as_one_run_of_per_iteration_times() {
        let file = sniff_and_parse(FIB20, &fixture(FIB20)).unwrap().unwrap();
        assert_eq!(file.format, "criterion");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let [b] = &file.benchmarks[..] else {
            panic!("{:?}", file.benchmarks)
        };
        assert_eq!(b.name, "fib/fib 20");
        assert_eq!((b.unit.as_str(), b.in_process), ("s", true));
        assert_eq!(b.runs.len(), 1);
        let (iters, times) = raw(FIB20);
        // `sample_size(10)`, linear sampling: d, 2d, … 10d iterations.
        assert_eq!(b.runs[0].len(), 10);
        assert_eq!(iters[1], 2.0 * iters[0]);
        assert_eq!(b.runs[0][0], times[0] / iters[0] / 1e9);
        assert_eq!(b.runs[0][9], times[9] / iters[9] / 1e9);
        // fib(20) takes microseconds, not nanoseconds or milliseconds.
        assert!(
            b.runs[0].iter().all(|&s| s > 1e-6 && s < 1e-3),
            "{:?}",
            b.runs
        );
        assert!(b.note.contains("Linear sampling"), "{}", b.note);
    }

    #[test]
    fn a_parameter_is_a_third_name_component() {
        let file = sniff_and_parse(PARAM, &fixture(PARAM)).unwrap().unwrap();
        let b = &file.benchmarks[0];
        assert_eq!(b.name, "fib-param/fib/10");
        let (iters, times) = raw(PARAM);
        // Flat sampling: the same iteration count in every sample.
        assert!(iters.iter().all(|&n| n == iters[0]));
        assert_eq!(b.runs[0].len(), 10);
        assert_eq!(b.runs[0][3], times[3] / iters[3] / 1e9);
        assert!(b.note.contains("Flat sampling"), "{}", b.note);
    }

    #[test]
    fn names_come_from_the_directories() {
        let name = |p: &str| name_from_path(p);
        assert_eq!(name("target/criterion/g/f/new/sample.json").unwrap(), "g/f");
        assert_eq!(name("g/f/new/sample.json").unwrap(), "g/f");
        assert_eq!(name("g\\f\\new\\sample.json").unwrap(), "g/f");
        assert_eq!(name("./criterion/g/sample.json").unwrap(), "g");
        assert_eq!(
            name("criterion/criterion/f/new/sample.json").unwrap(),
            "criterion/f"
        );
        assert!(name("sample.json").is_err());
        assert!(name("criterion/new/sample.json").is_err());
        assert!(name("").is_err());
    }

    #[test]
    fn byproducts_beside_the_samples_are_recognised() {
        for path in [
            "criterion/fib/fib 20/new/benchmark.json",
            "criterion/fib/fib 20/new/estimates.json",
            "criterion/fib/fib 20/new/tukey.json",
            "criterion/fib/fib 20/base/sample.json",
            "criterion/fib/fib 20/change/estimates.json",
            "criterion/fib/fib 20/report/index.html",
            "criterion/fib/report/violin.svg",
            "criterion/report/index.html",
            "criterion/fib/fib 20/main/sample.json",
            "fib/fib 20/base/sample.json",
            "fib/fib 20/new/estimates.json",
        ] {
            assert!(is_tool_byproduct(path), "{path}");
        }
        for path in [
            FIB20,
            PARAM,
            "fib/fib 20/new/sample.json",
            "benchmark.json",
            "hyperfine/benchmark.json",
            "parse/sample.json",
            "fib/fib 20/main/sample.json",
            "report/parse.folded",
            "",
        ] {
            assert!(!is_tool_byproduct(path), "{path}");
        }
        // Each byproduct in the fixture is one, and none of them is a
        // measurement file by content.
        for path in [
            "criterion/fib/fib 20/new/benchmark.json",
            "criterion/fib/fib 20/new/estimates.json",
            "criterion/fib/fib 20/new/tukey.json",
            "criterion/fib/fib 20/change/estimates.json",
            "criterion/fib/fib 20/report/index.html",
        ] {
            assert!(is_tool_byproduct(path), "{path}");
            assert!(sniff_and_parse(path, &fixture(path)).is_none(), "{path}");
        }
        // The baseline's samples are readable but left to is_tool_byproduct.
        let base = "criterion/fib/fib 20/base/sample.json";
        assert!(is_tool_byproduct(base));
        assert!(sniff_and_parse(base, &fixture(base)).unwrap().is_ok());
    }

    #[test]
    fn bad_counts_and_times_are_warnings() {
        let file = parse(
            "c/g/f/new/sample.json",
            r#"{"sampling_mode":"Linear","iters":[2.0,0.0,4.0,-1,"x",2],"times":[4000.0,5.0,-8.0,1.0,1.0,null]}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks[0].name, "c/g/f");
        assert_eq!(file.benchmarks[0].runs, vec![vec![2000.0 / 1e9]]);
        let places: Vec<Place> = file.warnings.iter().map(|w| w.place.clone()).collect();
        let json = |p: &str| Place::Json(p.into());
        assert_eq!(
            places,
            [
                json("$.iters[1]"),
                json("$.times[2]"),
                json("$.iters[3]"),
                json("$.iters[4]"),
                json("$.times[5]")
            ]
        );
    }

    #[test]
    fn wrong_shapes_are_errors() {
        let e = parse("g/f/new/sample.json", r#"{"iters":[1,2],"times":[1]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.times".into()));
        let e = parse(
            "g/f/new/sample.json",
            r#"{"iters":[1],"sampling_mode":"Flat"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.times: missing: the total time of each sample"
        );
        let e = parse("g/f/new/sample.json", r#"{"iters":{},"times":[]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.iters".into()));
        let e = parse("g/f/new/sample.json", r#"{"iters":[],"times":[]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.times".into()), "{e}");
        let e = parse("sample.json", r#"{"iters":[1],"times":[1]}"#).unwrap_err();
        assert_eq!(e.place, Place::Whole);
        let real = fixture(FIB20);
        let e = parse(
            FIB20,
            std::str::from_utf8(&real[..real.len() - 20]).unwrap(),
        )
        .unwrap_err();
        assert!(matches!(e.place, Place::Line(1)), "{e}");
    }
}
