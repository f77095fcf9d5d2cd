//! hyperfine's `--export-json` files:
//!
//! ```text
//! {"results": [{"command": "fib20", "mean": …, "stddev": …, "median": …,
//!               "user": …, "system": …, "min": …, "max": …,
//!               "times": [seconds, …], "exit_codes": [0, …]}]}
//! ```
//!
//! Each result is a benchmark named by its `command` (hyperfine writes the
//! `--command-name` there when one is given), with every path in it
//! shortened to its file name (`node /ci/install/2.29.4/bench.mjs` →
//! `node bench.mjs`): the same command run from each version's install
//! directory is one benchmark. `[[benchmarks]] display` renames it. Every element of `times` is
//! the wall-clock time of one process: its own run with one sample. The
//! summary figures are not read. A run whose `exit_codes` entry is not 0
//! (hyperfine `-i`) is kept, with one warning per benchmark.

use serde_json::Value;

use super::{array, object, required, string, Collected, Measured};
use crate::sniff::has_key;
use model::error::ParseError;

pub(super) const NAME: &str = "hyperfine";

pub(super) fn sniff(head: &str) -> bool {
    has_key(head, "results") && has_key(head, "command")
}

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let root = super::object(doc, "$")?;
    let results = required(root, "$", "results", "hyperfine's list of results")?;
    let results = array(results, "$.results")?;
    if results.is_empty() {
        return Err(ParseError::json(
            "$.results",
            "hyperfine recorded no results",
        ));
    }
    for (i, result) in results.iter().enumerate() {
        read_result(result, &format!("$.results[{i}]"), out)?;
    }
    Ok(())
}

fn read_result(result: &Value, path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let result = object(result, path)?;
    let command = required(result, path, "command", "the command or its name")?;
    let name = string(command, &format!("{path}.command"))?;
    let times = required(result, path, "times", "the time of each run")?;
    let times = array(times, &format!("{path}.times"))?;
    let mut runs = Vec::with_capacity(times.len());
    for (j, t) in times.iter().enumerate() {
        if let Some(seconds) = out.sample(t, &format!("{path}.times[{j}]"), 1.0) {
            runs.push(vec![seconds]);
        }
    }
    if let Some(codes) = result.get("exit_codes") {
        check_exit_codes(codes, &format!("{path}.exit_codes"), out)?;
    }
    out.benchmark(
        path,
        Measured {
            name: command_name(name),
            unit: "s".to_string(),
            runs,
            in_process: false,
            note: "hyperfine wall-clock time of each run of the command (`times`)".to_string(),
            interval: None,
        },
    );
    Ok(())
}

/// `command` with each word that is a path cut to its last part.
pub(crate) fn command_name(command: &str) -> String {
    let words: Vec<&str> = command.split(' ').collect();
    if !words.iter().any(|w| w.contains('/')) {
        return command.to_string();
    }
    words
        .iter()
        .map(|w| {
            let trimmed = w.trim_end_matches('/');
            match trimmed.rfind('/') {
                Some(i) if i + 1 < trimmed.len() => &trimmed[i + 1..],
                _ => w,
            }
        })
        .collect::<Vec<&str>>()
        .join(" ")
}

/// One warning for the runs that failed, at the first of them.
fn check_exit_codes(codes: &Value, path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let codes = array(codes, path)?;
    let failed: Vec<(usize, &Value)> = codes
        .iter()
        .enumerate()
        .filter(|(_, c)| c.as_i64() != Some(0))
        .collect();
    let Some(&(first, code)) = failed.first() else {
        return Ok(());
    };
    let how = match code {
        Value::Null => "ended without an exit code (killed by a signal)".to_string(),
        Value::Number(n) => format!("exited with code {n}"),
        other => format!("has an exit code that is {}", super::kind(other)),
    };
    out.warn(
        format!("{path}[{first}]"),
        format!(
            "run {} {how}; {} of {} runs failed and are kept",
            first + 1,
            failed.len(),
            codes.len()
        ),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse};
    use model::error::Place;

    fn parse(text: &str) -> Result<super::super::MeasurementFile, model::error::ParseError> {
        sniff_and_parse("hyperfine.json", text.as_bytes()).expect("sniffed as measurements")
    }

    /// `times` of a fixture, read independently of the reader.
    fn times(file: &str, result: usize) -> Vec<f64> {
        let doc: serde_json::Value = serde_json::from_slice(&fixture(file)).unwrap();
        doc["results"][result]["times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_f64().unwrap())
            .collect()
    }

    #[test]
    fn reads_a_real_export_one_run_per_time() {
        let file = sniff_and_parse("hyperfine.json", &fixture("hyperfine.json"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "hyperfine");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["fib20", "fib22"]);
        for (i, b) in file.benchmarks.iter().enumerate() {
            // `--runs 5`: five processes, one sample each, in seconds.
            assert_eq!(b.runs.len(), 5);
            assert!(b.runs.iter().all(|r| r.len() == 1));
            let expected: Vec<Vec<f64>> = times("hyperfine.json", i)
                .into_iter()
                .map(|t| vec![t])
                .collect();
            assert_eq!(b.runs, expected);
            assert_eq!(b.unit, "s");
            assert!(!b.in_process);
            assert!(b.note.contains("times"), "{}", b.note);
        }
        // A python3 start-up is between 1 ms and 10 s on any machine.
        assert!(file.benchmarks[0].runs[0][0] > 1e-3 && file.benchmarks[0].runs[0][0] < 10.0);
    }

    #[test]
    fn failed_runs_are_kept_with_one_warning() {
        let file = sniff_and_parse("x.json", &fixture("hyperfine-exit-codes.json"))
            .unwrap()
            .unwrap();
        assert_eq!(file.benchmarks.len(), 2);
        assert_eq!(file.benchmarks[1].name, "exits-3");
        assert_eq!(file.benchmarks[1].runs.len(), 3);
        assert_eq!(file.warnings.len(), 1, "{:?}", file.warnings);
        let w = &file.warnings[0];
        assert_eq!(w.place, Place::Json("$.results[1].exit_codes[0]".into()));
        assert_eq!(
            w.message,
            "run 1 exited with code 3; 3 of 3 runs failed and are kept"
        );
        // hyperfine subtracts the shell's start-up time; it may write 0.
        assert!(file.benchmarks[0].runs.iter().all(|r| r[0] >= 0.0));
    }

    #[test]
    fn bad_samples_are_warnings_with_their_path() {
        let file = parse(
            r#"{"results": [{"command": "a", "times": [0.5, -1, null, "x", 1e300, 0.25], "exit_codes": [0, null, 0, 0, 0, 0]},
                            {"command": "b", "times": []}]}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        assert_eq!(
            file.benchmarks[0].runs,
            vec![vec![0.5], vec![1e300], vec![0.25]]
        );
        let places: Vec<String> = file.warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            places,
            [
                "$.results[0].times[1]: -1 is negative; the sample is left out",
                "$.results[0].times[2]: expected a number, found null (NaN or infinity?); the sample is left out",
                "$.results[0].times[3]: expected a number, found a string; the sample is left out",
                "$.results[0].exit_codes[1]: run 2 ended without an exit code (killed by a signal); 1 of 6 runs failed and are kept",
                "$.results[1]: b: no usable runs; the benchmark is left out",
            ]
        );
    }

    #[test]
    fn nan_and_infinity_tokens_are_warnings_not_a_broken_file() {
        let file = parse("{\"results\": [{\"command\": \"NaN Infinity\", \"times\": [NaN, 1, -Infinity, Infinity]}]}").unwrap();
        assert_eq!(file.benchmarks[0].name, "NaN Infinity");

        assert_eq!(file.benchmarks[0].runs, vec![vec![1.0]]);
        assert_eq!(file.warnings.len(), 3);
        assert_eq!(
            file.warnings[0].place,
            Place::Json("$.results[0].times[0]".into())
        );
    }

    #[test]
    fn wrong_shapes_and_truncation_are_errors_with_a_place() {
        let e = parse(r#"{"results": [{"command": "a", "times": 3}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.results[0].times: expected an array, found a number"
        );
        let e = parse(r#"{"results": [{"command": 7, "times": []}]}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.results[0].command".into()));
        let e = parse(r#"{"results": [{"command": "a"}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.results[0].times: missing: the time of each run"
        );
        let e = parse(r#"{"results": [], "command": 1}"#).unwrap_err();
        assert_eq!(e.place, Place::Json("$.results".into()));
        let e = parse(r#"{"results": [{"command": "a", "times": [1], "exit_codes": {}}]}"#)
            .unwrap_err();
        assert_eq!(e.place, Place::Json("$.results[0].exit_codes".into()));
        let e = parse(r#"{"results": [{"command": "a", "times": [-1]}]}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "$.results[0].times[0]: no usable measurements in the file (2 problem(s); the first: -1 is negative; the sample is left out)"
        );
        let real = String::from_utf8(fixture("hyperfine.json")).unwrap();
        let cut = &real[..real.len() / 2];
        let e = parse(cut).unwrap_err();
        assert!(matches!(e.place, Place::Line(n) if n > 1), "{e}");
        assert!(e.message.contains("EOF"), "{e}");
    }

    #[test]
    fn same_command_twice_is_one_benchmark() {
        let file = parse(
            r#"{"results": [{"command": "a", "times": [1]}, {"command": "a", "times": [2, 3]}]}"#,
        )
        .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        assert_eq!(
            file.benchmarks[0].runs,
            vec![vec![1.0], vec![2.0], vec![3.0]]
        );
    }

    #[test]
    fn commands_run_from_install_directories_are_one_benchmark() {
        // sample-data/moment, hyperfine 1.15 without --command-name.
        use super::command_name;
        assert_eq!(
            command_name("node /tmp/pa-js/install/2.18.0/bench.mjs"),
            "node bench.mjs"
        );
        assert_eq!(
            command_name("/usr/bin/python3 bench.py --size 4 /data/corpus.md"),
            "python3 bench.py --size 4 corpus.md"
        );
        assert_eq!(command_name("convert-basic"), "convert-basic");
    }
}
