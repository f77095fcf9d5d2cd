//! BenchmarkTools.jl's JSON, as `BenchmarkTools.save(file, results)`
//! writes it:
//!
//! ```text
//! [{"Julia": "1.11.3", "BenchmarkTools": {"major": 1, "minor": 6, …}},
//!  [["BenchmarkGroup", {"data": {"inference": ["BenchmarkGroup", {"data": {…}, "tags": []}],
//!                                "sum":  ["Trial", {"params": ["Parameters", {"evals": 1, …}],
//!                                                   "times": [1.11e7, …], "gctimes": […],
//!                                                   "memory": 20139464, "allocs": 93636}],
//!                                "fit":  ["TrialEstimate", {"time": 6774.67, "gctime": 0.0,
//!                                                           "memory": 9536, "allocs": 40, …}]},
//!                       "tags": []}]]]
//! ```
//!
//! and the bare `["BenchmarkGroup", {…}]` that `JSON.print(io, results)`
//! writes with BenchmarkTools loaded (the same value without the version
//! envelope). Type names are `BenchmarkGroup`, `Trial`, `TrialEstimate`
//! (BenchmarkTools 1.x) or with a `BenchmarkTools.` prefix (older files).
//!
//! A benchmark is named by its path through the groups, the keys joined by
//! `/` as written (`inference/4/32`; a tuple key stays the text Julia wrote
//! for it). A `Trial` is one run (one Julia process) whose samples are its
//! `times`, in nanoseconds per evaluation (BenchmarkTools has already
//! divided each sample by `params.evals`), in-process. A `TrialEstimate`
//! (what `median(results)` or `minimum(results)` saves) is one value, its
//! `time`. `memory` (bytes allocated per evaluation) and `allocs` are the
//! same in every sample of a trial: each is a benchmark of its own, `NAME
//! (memory)` in bytes and `NAME (allocs)` in allocations, one value. Other
//! saved values (`TrialRatio`, `TrialJudgement`, `Parameters` of a tuning
//! file) hold no measurements and are left out with a warning.

use serde_json::{Map, Value};

use super::jmh::first_element_keys;
use super::{array, kind, object, string, Collected, Measured};
use model::error::ParseError;

pub(super) const NAME: &str = "benchmarktools";

/// The type names of BenchmarkTools values a file may hold at its top.
const TOP_TYPES: [&str; 3] = ["BenchmarkGroup", "Trial", "TrialEstimate"];

/// `save`'s envelope (an array whose first element is an object with
/// `Julia` and `BenchmarkTools`) or a bare value
/// (`["BenchmarkGroup", {`).
pub(super) fn sniff(head: &str) -> bool {
    let keys = first_element_keys(head);
    (keys.contains(&"Julia") && keys.contains(&"BenchmarkTools")) || is_bare_value(head)
}

/// `head` opens with `["TYPE", {` for one of [`TOP_TYPES`].
fn is_bare_value(head: &str) -> bool {
    let Some(rest) = head.strip_prefix('[') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix('"') else {
        return false;
    };
    let Some((name, rest)) = rest.split_once('"') else {
        return false;
    };
    let Some(rest) = rest.trim_start().strip_prefix(',') else {
        return false;
    };
    TOP_TYPES.contains(&type_name(name)) && rest.trim_start().starts_with('{')
}

/// A type name without the `BenchmarkTools.` module prefix.
fn type_name(name: &str) -> &str {
    name.strip_prefix("BenchmarkTools.").unwrap_or(name)
}

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let top = array(doc, "$")?;
    if !top.first().is_some_and(Value::is_object) {
        return read_value(doc, "$", "", out);
    }
    let values = top.get(1).ok_or_else(|| {
        ParseError::json("$[1]", "missing: the saved values after the version object")
    })?;
    let values = array(values, "$[1]")?;
    for (i, value) in values.iter().enumerate() {
        // Several values saved in one file are told apart by their place.
        let prefix = match values.len() {
            1 => String::new(),
            _ => i.to_string(),
        };
        read_value(value, &format!("$[1][{i}]"), &prefix, out)?;
    }
    Ok(())
}

/// One `["TYPE", {fields}]` value named `name` (its group path).
fn read_value(
    value: &Value,
    path: &str,
    name: &str,
    out: &mut Collected,
) -> Result<(), ParseError> {
    let pair = array(value, path)?;
    let (Some(type_value), Some(fields)) = (pair.first(), pair.get(1)) else {
        return Err(ParseError::json(
            path,
            "expected a [\"TYPE\", {fields}] pair of BenchmarkTools",
        ));
    };
    let type_value = string(type_value, &format!("{path}[0]"))?;
    let fields_path = format!("{path}[1]");
    let fields = object(fields, &fields_path)?;
    match type_name(type_value) {
        "BenchmarkGroup" => read_group(fields, &fields_path, name, out),
        "Trial" => {
            read_trial(fields, &fields_path, name, out);
            Ok(())
        }
        "TrialEstimate" => {
            read_estimate(fields, &fields_path, name, out);
            Ok(())
        }
        other => {
            out.warn(
                path,
                format!("{}: a {other} holds no measurements; left out", shown(name)),
            );
            Ok(())
        }
    }
}

/// The name as messages show it; the file's top value has none.
fn shown(name: &str) -> &str {
    if name.is_empty() {
        "the top value"
    } else {
        name
    }
}

fn read_group(
    fields: &Map<String, Value>,
    path: &str,
    name: &str,
    out: &mut Collected,
) -> Result<(), ParseError> {
    let Some(data) = fields.get("data") else {
        return Err(ParseError::json(
            format!("{path}.data"),
            "missing: the group's benchmarks",
        ));
    };
    let data_path = format!("{path}.data");
    for (key, value) in object(data, &data_path)? {
        let child = match name {
            "" => key.clone(),
            _ => format!("{name}/{key}"),
        };
        read_value(value, &format!("{data_path}[{}]", quoted(key)), &child, out)?;
    }
    Ok(())
}

/// A key as a JSON string, for paths.
fn quoted(key: &str) -> String {
    Value::String(key.to_string()).to_string()
}

fn read_trial(fields: &Map<String, Value>, path: &str, name: &str, out: &mut Collected) {
    let times_path = format!("{path}.times");
    let samples = match fields.get("times") {
        Some(Value::Array(times)) => times
            .iter()
            .enumerate()
            .filter_map(|(i, t)| out.sample(t, &format!("{times_path}[{i}]"), 1e9))
            .collect(),
        other => {
            let found = other.map_or("nothing", kind);
            out.warn(
                &times_path,
                format!("expected the trial's times, an array; found {found}"),
            );
            Vec::new()
        }
    };
    let mut runs = Vec::new();
    out.run(&mut runs, samples, &times_path);
    out.benchmark(
        path,
        Measured {
            name: benchmark_name(name),
            unit: "s".to_string(),
            runs,
            in_process: true,
            note: "BenchmarkTools Trial times (ns per evaluation); one run".to_string(),
            interval: None,
        },
    );
    read_allocations(fields, path, name, "Trial", out);
}

fn read_estimate(fields: &Map<String, Value>, path: &str, name: &str, out: &mut Collected) {
    let time = fields.get("time").unwrap_or(&Value::Null);
    let runs = out
        .sample(time, &format!("{path}.time"), 1e9)
        .map(|t| vec![vec![t]])
        .unwrap_or_default();
    out.benchmark(
        path,
        Measured {
            runs,
            ..Measured::one_value(
                benchmark_name(name),
                (0.0, "s"),
                "BenchmarkTools TrialEstimate time (the one estimate saved: median, \
                 minimum or mean of the trial)",
                None,
            )
        },
    );
    read_allocations(fields, path, name, "TrialEstimate", out);
}

/// `memory` and `allocs` of a trial or estimate, each a benchmark of one
/// value.
fn read_allocations(
    fields: &Map<String, Value>,
    path: &str,
    name: &str,
    what: &str,
    out: &mut Collected,
) {
    for (key, unit) in [("memory", "bytes"), ("allocs", "allocs")] {
        let Some(value) = fields.get(key) else {
            continue;
        };
        let place = format!("{path}.{key}");
        if let Some(v) = out.sample(value, &place, 1.0) {
            out.benchmark(
                place,
                Measured::one_value(
                    format!("{} ({key})", benchmark_name(name)),
                    (v, unit),
                    &format!("BenchmarkTools {what} {key} (per evaluation)"),
                    None,
                ),
            );
        }
    }
}

/// A trial saved alone (no group) is named `trial`.
fn benchmark_name(name: &str) -> String {
    match name {
        "" => "trial".to_string(),
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use model::error::Place;
    use serde_json::Value;

    fn parse(bytes: &[u8]) -> MeasurementFile {
        let file = sniff_and_parse("results.json", bytes)
            .expect("sniffed")
            .expect("read");
        assert_eq!(file.format, "benchmarktools");
        file
    }

    fn runs_of<'a>(file: &'a MeasurementFile, name: &str) -> &'a [Vec<f64>] {
        &file
            .benchmarks
            .iter()
            .find(|b| b.name == name)
            .unwrap_or_else(|| panic!("{name}"))
            .runs
    }

    #[test]
    fn a_trial_is_one_run_of_its_times() {
        let bytes = fixture("benchmarktools/mlogit-results.json");
        let file = parse(&bytes);
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        // The raw array, read with serde_json alone.
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        let trial = &doc[1]["data"]["mlogit"][1];
        let times: Vec<f64> = trial["times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect();
        let runs = runs_of(&file, "mlogit");
        assert_eq!(runs.len(), 1);
        let ns: Vec<f64> = runs[0].iter().map(|s| s * 1e9).collect();
        assert_eq!(ns.len(), times.len());
        assert_eq!(ns.len(), 312);
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        assert!((min(&ns) - min(&times)).abs() < 1e-3, "{}", min(&ns));
        assert!((max(&ns) - max(&times)).abs() < 1e-3, "{}", max(&ns));
        // As @benchmark's display would print them: min 10.931 ms, max 39.926 ms.
        assert_eq!(format!("{:.3}", min(&ns) / 1e6), "10.931");
        assert_eq!(format!("{:.3}", max(&ns) / 1e6), "39.926");
        assert_eq!(runs_of(&file, "mlogit (memory)"), [vec![20139464.0]]);
        assert_eq!(runs_of(&file, "mlogit (allocs)"), [vec![93636.0]]);
    }

    #[test]
    fn saved_estimates_are_one_value_named_by_their_group_path() {
        let file = parse(&fixture("benchmarktools/pioran-output.json"));
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let mut names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names.len(), 12);
        assert_eq!(
            names[..4],
            [
                "inference/2/32",
                "inference/2/32 (allocs)",
                "inference/2/32 (memory)",
                "inference/2/64"
            ]
        );
        for (name, ns, memory, allocs) in [
            ("inference/4/32", 6774.666666666667, 9536.0, 40.0),
            ("inference/4/64", 13130.0, 16944.0, 41.0),
            ("inference/2/32", 5758.111111111111, 6032.0, 38.0),
            ("inference/2/64", 7752.4, 10288.0, 41.0),
        ] {
            let runs = runs_of(&file, name);
            assert!((runs[0][0] * 1e9 - ns).abs() < 1e-6, "{name}");
            assert_eq!(runs_of(&file, &format!("{name} (memory)")), [vec![memory]]);
            assert_eq!(runs_of(&file, &format!("{name} (allocs)")), [vec![allocs]]);
        }
    }

    #[test]
    fn older_type_names_tuple_keys_and_values_without_measurements() {
        let text = r#"[{"Julia":"0.6.0","BenchmarkTools":"0.2.0"},[["BenchmarkTools.BenchmarkGroup",{"tags":[],"data":{
            "(\"sum\", 10)":["BenchmarkTools.Trial",{"params":[],"times":[3.0,1.0,2.0],"gctimes":[0,0,0],"memory":0,"allocs":0}],
            "judged":["BenchmarkTools.TrialJudgement",{"ratio":[]}]}}]]]"#;
        let file = parse(text.as_bytes());
        let runs = runs_of(&file, "(\"sum\", 10)");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].len(), 3);
        assert_eq!(file.warnings.len(), 1);
        assert!(file.warnings[0]
            .message
            .contains("TrialJudgement holds no measurements"));
        assert_eq!(
            file.warnings[0].place,
            Place::Json("$[1][0][1].data[\"judged\"]".into())
        );
    }

    #[test]
    fn bad_values_are_warnings_and_wrong_shapes_errors() {
        let text =
            r#"["BenchmarkGroup",{"data":{"a":["Trial",{"times":[1,-2,"x",null],"memory":-1}]}}]"#;
        let file = parse(text.as_bytes());
        assert_eq!(runs_of(&file, "a"), [vec![1e-9]]);
        assert_eq!(file.warnings.len(), 4, "{:?}", file.warnings);
        for (text, place) in [
            (r#"["BenchmarkGroup",{"tags":[]}]"#, "$[1].data"),
            (r#"["BenchmarkGroup",{"data":[]}]"#, "$[1].data"),
            (
                r#"["BenchmarkGroup",{"data":{"a":"b"}}]"#,
                "$[1].data[\"a\"]",
            ),
            (r#"[{"Julia":"1","BenchmarkTools":"1"}]"#, "$[1]"),
        ] {
            let e = sniff_and_parse("r.json", text.as_bytes())
                .unwrap()
                .unwrap_err();
            assert_eq!(e.place, Place::Json(place.into()), "{text}: {e}");
        }
    }

    #[test]
    fn a_truncated_file_is_an_error_at_its_end() {
        for rel in [
            "benchmarktools/mlogit-results.json",
            "benchmarktools/pioran-output.json",
        ] {
            let bytes = fixture(rel);
            let e = sniff_and_parse("r.json", &bytes[..bytes.len() / 2])
                .expect("still sniffed")
                .unwrap_err();
            assert_eq!(e.place, Place::Line(1), "{rel}: {e}");
            assert!(e.message.contains("EOF while parsing"), "{e}");
        }
    }

    #[test]
    fn only_benchmarktools_shapes_are_sniffed() {
        for head in [
            r#"["BenchmarkGroup",{"data":{}}]"#,
            r#"[ "BenchmarkTools.Trial" , {"times":[]}]"#,
            r#"[{"Julia":"1.7.0","BenchmarkTools":"1.0.0"},[]]"#,
        ] {
            assert!(super::sniff(head), "{head}");
        }
        for head in [
            r#"["Parameters",{"evals":1}]"#,
            r#"["BenchmarkGroup"]"#,
            r#"[{"Julia":"1.7.0"}]"#,
            r#"[{"ph":"X","name":"BenchmarkGroup"}]"#,
            r#"{"BenchmarkGroup":{"data":{}}}"#,
            "",
        ] {
            assert!(!super::sniff(head), "{head}");
        }
    }
}
