//! github-action-benchmark's history: the `data.js` the action keeps on a
//! GitHub Pages branch (`window.BENCHMARK_DATA = {…}`), or the same object
//! as plain JSON (its `external-data-json-path` file):
//!
//! ```text
//! window.BENCHMARK_DATA = {"lastUpdate": 1654332736524, "repoUrl": "…",
//!   "entries": {"<suite>": [{"commit": {"id", "message", "timestamp", "url", …},
//!                            "date": 1654265838841, "tool": "cargo",
//!                            "benches": [{"name", "value", "unit", "range"?, "extra"?}]}]}}
//! ```
//!
//! Each entry is one run of the suite's benchmarks at one commit: one
//! value per benchmark. Entries of the same commit (a job run again, or
//! several suites) are one version, each entry another run. Versions are in
//! the order the action recorded them (the earliest `date` of their
//! entries). With more than one suite, benchmark names are
//! `suite / name`.
//!
//! Units: times (`ns`, `us`, `ms`, `s`, `sec`, `nsec`, `usec`, `msec`,
//! alone or per `iter`, `op` or `call`: cargo's `ns/iter`, go's `ns/op`)
//! become seconds; rates (`ops/sec`, pytest's `iter/sec`) become seconds
//! per operation (1 / value), since perfatlas reads a higher value as
//! slower; other units are kept as written. Only the unit's first word
//! counts (old versions of the action wrote go's `-benchmem` columns into
//! it: `ns/op\t 2346 B/op\t 43 allocs/op`). A `range` of the form `± 319`
//! (cargo's `+/-` spread, in the value's unit) or `±1.23%` (benchmark.js's
//! relative margin of error) becomes the value's interval, converted as
//! the value is; other ranges (`stddev: …`) and `extra` are left out, with
//! a note.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{sample, ImportedHistory, ImportedVersion, Warnings};
use crate::cpuprofile::json_error;
use crate::measurements::{array, kind, object, per_second, required, string, Measured};
use model::error::{InputError, ParseError};
use model::Interval;

/// One bench as read: name, unit, value, note, interval.
type Bench = (String, String, f64, String, Option<Interval>);

pub const NAME: &str = "github-action-benchmark";

/// The assignment the action writes before the JSON.
const PREFIX: &str = "window.BENCHMARK_DATA";

/// True for a `data.js` (or its JSON form: an object whose first keys
/// are the action's `lastUpdate`, `repoUrl` or `entries`).
pub fn sniff(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(crate::head(bytes, 4096));
    let head = head.trim_start_matches('\u{feff}').trim_start();
    if head.starts_with(PREFIX) {
        return true;
    }
    head.starts_with('{')
        && ["\"lastUpdate\"", "\"repoUrl\""]
            .iter()
            .any(|k| head.contains(k))
        && head.contains("\"entries\"")
}

/// Reads a `data.js` (or its JSON form) named `file`.
pub fn read(file: &str, bytes: &[u8]) -> Result<ImportedHistory, InputError> {
    let at = |error| InputError {
        file: file.to_string(),
        error,
    };
    let doc = parse(bytes).map_err(at)?;
    let root = object(&doc, "$").map_err(at)?;
    let entries = required(root, "$", "entries", "the benchmark suites").map_err(at)?;
    let suites = object(entries, "$.entries").map_err(at)?;
    let mut reading = Reading::default();
    let prefixed = suites.len() > 1;
    for (suite, runs) in suites {
        let path = format!("$.entries[{}]", json_string(suite));
        let prefix = if prefixed { Some(suite.as_str()) } else { None };
        for (i, entry) in array(runs, &path).map_err(at)?.iter().enumerate() {
            reading
                .entry(entry, &format!("{path}[{i}]"), prefix, file)
                .map_err(at)?;
        }
    }
    Ok(reading.finish(file))
}

/// The JSON after the `window.BENCHMARK_DATA =` prefix (and before a
/// closing `;`). Lines stay where they were, so error places hold.
fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}');
    let json = match text.trim_start().strip_prefix(PREFIX) {
        None => text.to_string(),
        Some(rest) => {
            let rest = rest.trim_start_matches([' ', '\t']);
            let Some(rest) = rest.strip_prefix('=') else {
                return Err(ParseError::line(
                    1,
                    format!("expected `{PREFIX} = ` followed by the data"),
                ));
            };
            // Keep the prefix's width so columns on line 1 stay right.
            let lead = text.len() - rest.len();
            let body = rest.trim_end().strip_suffix(';').unwrap_or(rest);
            format!("{}{body}", " ".repeat(lead))
        }
    };
    if json.trim().is_empty() {
        return Err(ParseError::whole("no data after the prefix"));
    }
    serde_json::from_str(&json).map_err(json_error)
}

/// A commit's runs as they are read.
struct Commit {
    order: (f64, usize),
    summary: String,
    date: Option<String>,
    benchmarks: BTreeMap<String, Measured>,
}

/// What the entries gave so far.
#[derive(Default)]
struct Reading {
    commits: BTreeMap<String, Commit>,
    entries: usize,
    values: usize,
    /// Ranges kept as intervals; the first range left out, and how many.
    ranges_kept: usize,
    ranges_left: Option<(String, usize)>,
    tools: BTreeMap<String, usize>,
    /// Values kept in their own unit: (better lower, better higher).
    kept_units: BTreeMap<String, (usize, usize)>,
    /// Benchmarks of `customBiggerIsBetter` entries.
    higher_is_better: std::collections::BTreeSet<String>,
    warnings: Warnings,
}

impl Reading {
    fn entry(
        &mut self,
        entry: &Value,
        path: &str,
        suite: Option<&str>,
        file: &str,
    ) -> Result<(), ParseError> {
        let entry = object(entry, path)?;
        let commit_path = format!("{path}.commit");
        let commit = object(
            required(entry, path, "commit", "the commit this run measured")?,
            &commit_path,
        )?;
        let id = string(
            required(commit, &commit_path, "id", "the commit id")?,
            &format!("{commit_path}.id"),
        )?;
        if id.trim().is_empty() {
            return Err(ParseError::json(
                format!("{commit_path}.id"),
                "the commit id is empty",
            ));
        }
        let tool = optional_string(entry, path, "tool")?.unwrap_or("");
        *self.tools.entry(tool.to_string()).or_default() += 1;
        let ran_at = match entry.get("date") {
            None | Some(Value::Null) => f64::INFINITY,
            Some(v) => v.as_f64().ok_or_else(|| {
                crate::measurements::wrong_shape(
                    v,
                    &format!("{path}.date"),
                    "a number (milliseconds since 1970)",
                )
            })?,
        };
        let order = (ran_at, self.entries);
        self.entries += 1;
        let benches_path = format!("{path}.benches");
        let benches = array(
            required(entry, path, "benches", "the benchmarks' values")?,
            &benches_path,
        )?;
        let known = self.commits.contains_key(id);
        if !known {
            let summary = optional_string(commit, &commit_path, "message")?
                .unwrap_or("")
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            let date = optional_string(commit, &commit_path, "timestamp")?.map(str::to_string);
            self.commits.insert(
                id.to_string(),
                Commit {
                    order,
                    summary,
                    date,
                    benchmarks: BTreeMap::new(),
                },
            );
        }
        let mut values = Vec::with_capacity(benches.len());
        for (j, bench) in benches.iter().enumerate() {
            let bench_path = format!("{benches_path}[{j}]");
            if let Some(v) = self.bench(bench, &bench_path, suite, tool, file)? {
                values.push((v, bench_path));
            }
        }
        let Some(commit) = self.commits.get_mut(id) else {
            return Ok(());
        };
        if order.0 < commit.order.0 {
            commit.order = order;
        }
        for ((name, unit, seconds, note, interval), bench_path) in values {
            let measured = commit
                .benchmarks
                .entry(name.clone())
                .or_insert_with(|| Measured {
                    name,
                    unit: unit.clone(),
                    runs: Vec::new(),
                    in_process: false,
                    note,
                    interval,
                });
            if measured.unit == unit {
                if !measured.runs.is_empty() {
                    // An interval stands for one value; several runs have none.
                    measured.interval = None;
                }
                measured.runs.push(vec![seconds]);
            } else {
                let message = format!(
                    "`{}` was measured in {} in an earlier run of commit {id}, here in {unit}; the value is left out",
                    measured.name, measured.unit
                );
                self.warnings.push(
                    file,
                    ParseError::json(format!("{bench_path}.unit"), message),
                );
            }
        }
        Ok(())
    }

    /// One bench: its name, unit, value and note, or `None` with a warning
    /// when its value cannot be kept.
    fn bench(
        &mut self,
        bench: &Value,
        path: &str,
        suite: Option<&str>,
        tool: &str,
        file: &str,
    ) -> Result<Option<Bench>, ParseError> {
        let bench = object(bench, path)?;
        let name = string(
            required(bench, path, "name", "the benchmark's name")?,
            &format!("{path}.name"),
        )?;
        let unit = string(
            required(bench, path, "unit", "the value's unit")?,
            &format!("{path}.unit"),
        )?;
        let value_path = format!("{path}.value");
        let value = required(bench, path, "value", "the measured value")?;
        let range = optional_string(bench, path, "range")?;
        let Some(raw) = value.as_f64() else {
            self.warnings.push(
                file,
                ParseError::json(
                    value_path,
                    format!(
                        "expected a number, found {}; the value is left out",
                        kind(value)
                    ),
                ),
            );
            return Ok(None);
        };
        if unit.trim().is_empty() {
            self.warnings.push(
                file,
                ParseError::json(
                    format!("{path}.unit"),
                    "the unit is empty; the value is left out",
                ),
            );
            return Ok(None);
        }
        let interval = range.and_then(|r| self.interval(r, raw, unit));
        let (unit, converted, figure) = convert(unit, raw);
        let Some(v) = converted.and_then(sample) else {
            self.warnings.push(
                file,
                ParseError::json(
                    value_path,
                    format!("{raw} cannot be a measurement in {unit}; the value is left out"),
                ),
            );
            return Ok(None);
        };
        self.values += 1;
        let name = match suite {
            Some(suite) => format!("{suite} / {name}"),
            None => name.to_string(),
        };
        if figure == Figure::Kept {
            let bigger = tool == "customBiggerIsBetter";
            let counts = self.kept_units.entry(unit.clone()).or_default();
            if bigger {
                counts.1 += 1;
                self.higher_is_better.insert(name.clone());
            } else {
                counts.0 += 1;
            }
        }
        let tool = match tool {
            "" => String::new(),
            tool => format!("tool {tool}, "),
        };
        let note = match figure {
            Figure::Time(from) => format!("github-action-benchmark value ({tool}{from})"),
            Figure::Rate(from) => format!(
                "github-action-benchmark value ({tool}{from}) as seconds per operation (1 / value)"
            ),
            Figure::Kept => format!("github-action-benchmark value ({tool}kept as written)"),
        };
        Ok(Some((name, unit, v, note, interval)))
    }

    /// The interval `range` gives around `raw` (in the bench's `unit`),
    /// converted as the value is; counted as kept or left out.
    fn interval(&mut self, range: &str, raw: f64, unit: &str) -> Option<Interval> {
        let interval = raw_interval(range, raw).and_then(|(low, high)| {
            let (a, b) = (convert(unit, low).1?, convert(unit, high).1?);
            // A rate's interval inverts (1 / value), and a rate at or
            // below zero has none.
            let rate = matches!(convert(unit, raw).2, Figure::Rate(_));
            if rate && low <= 0.0 {
                return None;
            }
            Interval::new(a.min(b), a.max(b))
        });
        match interval {
            Some(_) => self.ranges_kept += 1,
            None => {
                let left = self
                    .ranges_left
                    .get_or_insert_with(|| (range.to_string(), 0));
                left.1 += 1;
            }
        }
        interval
    }

    fn finish(self, file: &str) -> ImportedHistory {
        let mut commits: Vec<(String, Commit)> = self.commits.into_iter().collect();
        commits.sort_by(|(_, a), (_, b)| {
            a.order
                .0
                .total_cmp(&b.order.0)
                .then(a.order.1.cmp(&b.order.1))
        });
        let versions: Vec<ImportedVersion> = commits
            .into_iter()
            .map(|(revision, c)| ImportedVersion {
                revision,
                summary: c.summary,
                date: c.date,
                benchmarks: c.benchmarks.into_values().collect(),
            })
            .collect();
        let mut notes = vec![format!(
            "{} values from {} runs of {} commits; each is one run of one sample, so the history is judged by its change points (a level must hold for 3 commits; [regressions] min_segment), and a commit benchmarked 3 times or more by a test between two commits ([regressions] min_runs)",
            self.values,
            self.entries,
            versions.len()
        )];
        if self.ranges_kept > 0 {
            notes.push(format!(
                "{} ranges the tools printed (`± N`, `±N%`) are kept as the values' intervals: two commits whose intervals do not overlap differ",
                self.ranges_kept
            ));
        }
        if let Some((example, count)) = self.ranges_left {
            notes.push(format!(
                "{count} ranges are left out (e.g. `{example}`): perfatlas keeps a range only as `± N` or `±N%`, and a rate's only while its low end is above zero"
            ));
        }
        for (unit, &(lower, higher)) in &self.kept_units {
            if lower > 0 {
                notes.push(format!(
                    "{lower} values in `{unit}` are kept as written, a lower value better (unless `[metrics.\"{unit}\"] direction = \"higher\"`)"
                ));
            }
            if higher > 0 {
                notes.push(format!(
                    "{higher} values in `{unit}` from `customBiggerIsBetter` are kept as written, a higher value better (perfatlas.toml says so for each benchmark)"
                ));
            }
        }
        ImportedHistory {
            format: NAME,
            versions,
            notes,
            warnings: self.warnings.finish(file),
            higher_is_better: self.higher_is_better.into_iter().collect(),
        }
    }
}

/// Which figure a value is, for its note.
#[derive(Debug, PartialEq)]
enum Figure {
    /// A time, in the given unit.
    Time(String),
    /// Operations per time unit, inverted.
    Rate(String),
    /// Not a time: kept as written.
    Kept,
}

/// A value in `unit` as perfatlas keeps it: the unit it is written in
/// (`s`, or the first word of `unit`), the value (`None` when a rate of 0
/// cannot be inverted), and which figure it is.
/// `raw ± spread` from a range string: `± 319` or `+/- 319` (commas
/// allowed, in the value's unit) or `±1.5%` (of the value).
fn raw_interval(range: &str, raw: f64) -> Option<(f64, f64)> {
    let rest = range.trim();
    let rest = rest
        .strip_prefix('±')
        .or_else(|| rest.strip_prefix("+/-"))?
        .trim();
    let spread = match rest.strip_suffix('%') {
        Some(percent) => raw.abs() * percent.trim().parse::<f64>().ok()? / 100.0,
        None => rest.replace(',', "").parse::<f64>().ok()?,
    };
    (spread.is_finite() && spread >= 0.0).then_some((raw - spread, raw + spread))
}

fn convert(unit: &str, value: f64) -> (String, Option<f64>, Figure) {
    let word = unit.split_whitespace().next().unwrap_or("");
    let (top, per) = match word.split_once('/') {
        Some((top, per)) => (top, Some(per)),
        None => (word, None),
    };
    const PER_RUN: [&str; 5] = ["iter", "op", "call", "iteration", "operation"];
    const COUNTS: [&str; 8] = [
        "ops",
        "op",
        "iter",
        "iters",
        "iterations",
        "calls",
        "runs",
        "operations",
    ];
    match (time_factor(top), per) {
        (Some(f), None) => ("s".into(), Some(value / f), Figure::Time(word.into())),
        (Some(f), Some(p)) if PER_RUN.contains(&p) => {
            ("s".into(), Some(value / f), Figure::Time(word.into()))
        }
        (None, Some(p)) if COUNTS.contains(&top) && time_factor(p).is_some() => {
            let f = time_factor(p).unwrap_or(1.0);
            let seconds = (value > 0.0).then(|| 1.0 / (value * f));
            ("s".into(), seconds, Figure::Rate(word.into()))
        }
        _ => (word.to_string(), Some(value), Figure::Kept),
    }
}

/// The factor a time in `unit` is divided by to give seconds.
fn time_factor(unit: &str) -> Option<f64> {
    match unit {
        "sec" | "secs" => Some(1.0),
        "msec" => Some(1e3),
        "usec" => Some(1e6),
        "nsec" => Some(1e9),
        other => per_second(other),
    }
}

fn optional_string<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    key: &str,
) -> Result<Option<&'a str>, ParseError> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => string(v, &format!("{path}.{key}")).map(Some),
    }
}

/// A JSON string literal, for paths that name a key.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests;
