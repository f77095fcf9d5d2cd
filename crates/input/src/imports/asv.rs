//! airspeed velocity (asv) results: the `results/` directory of an asv
//! project, `results/benchmarks.json` (every benchmark's `type`, `unit`,
//! `param_names`, `rounds`, `repeat`) and one directory per machine holding
//! `machine.json` and one file per commit and environment,
//! `<commit prefix>-<environment>.json`, in asv's result format version 2:
//!
//! ```text
//! {"commit_hash": "0689…", "env_name": "…", "date": 1704189600000, "version": 2,
//!  "result_columns": ["result", "params", …, "samples", …],
//!  "results": {"benchmarks.Params.time_build": [[1.7e-06, …], [["200", "2000"], ["'list'", "'tuple'"]], …]}}
//! ```
//!
//! Each row of `results` holds the columns named by `result_columns` (asv
//! leaves trailing empty columns out). A parameterised benchmark's values
//! are listed for every combination of its `params`, the last parameter
//! varying fastest; each combination becomes a benchmark of its own,
//! `name(n=200, kind='list')` (values as asv writes them, Python `repr`).
//!
//! What is kept per commit: the raw `samples` when asv recorded them
//! (`asv run --record-samples`), otherwise the `result` (asv's median of
//! its samples, or a `track_`/`mem_` value), one run of one sample. asv
//! runs a benchmark in `rounds` processes and appends their samples; when
//! `benchmarks.json` gives a fixed `repeat` and the count is `rounds ×
//! repeat`, each process's samples are one run, otherwise all of them are
//! one run (asv does not record which process took which). asv's 99%
//! confidence interval of the result (`stats_ci_99_a/b`) is kept as the
//! value's interval, by which two commits are told apart where there are
//! too few runs for a test and too short a history for change points (as
//! `asv compare` does); the quartiles (`stats_q_25/75`) are not kept. Units: asv's
//! `seconds` become `s`; `bytes` and a `track_` benchmark's own unit are
//! kept. Several environments of one commit stay apart: benchmark names
//! get ` [environment]` when the machine has more than one.
//!
//! [`gather`] reads the directory (the only I/O here); [`read`] is pure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{rfc3339_from_millis, sample, ImportedHistory, ImportedVersion, Warnings};
use crate::measurements::{
    array, kind, object, parse_json, per_second, required, string, wrong_shape, Measured,
};
use model::error::{BuildError, InputError, ParseError};

pub const NAME: &str = "asv";

/// The result format version this reader knows (asv 0.5 and later).
const API_VERSION: u64 = 2;

/// One file of the source: its path as messages show it, and its bytes.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The results of one machine, as [`gather`] found them.
#[derive(Debug, Clone)]
pub struct Results {
    pub machine: String,
    pub benchmarks: SourceFile,
    /// The machine's result files, by name.
    pub files: Vec<SourceFile>,
}

/// The results directory of `source`: itself when it holds
/// `benchmarks.json`, else its `results/` (an asv project's directory).
pub fn find_results(source: &Path) -> Option<PathBuf> {
    [source.to_path_buf(), source.join("results")]
        .into_iter()
        .find(|dir| dir.join("benchmarks.json").is_file())
}

/// Reads the results of `machine` (default: the only machine) under
/// `source`.
pub fn gather(source: &Path, machine: Option<&str>) -> Result<Results, BuildError> {
    let dir = find_results(source).ok_or_else(|| {
        BuildError::Usage(format!(
            "{}: not an asv results directory (no benchmarks.json in it or in its results/)",
            source.display()
        ))
    })?;
    let machines = machine_dirs(&dir)?;
    let machine = match (machine, machines.as_slice()) {
        (Some(m), _) if machines.iter().any(|x| x == m) => m.to_string(),
        (Some(m), _) => {
            return Err(BuildError::Usage(format!(
                "--machine {m}: no such machine in {} (it has: {})",
                dir.display(),
                listed(&machines)
            )))
        }
        (None, [only]) => only.clone(),
        (None, []) => {
            return Err(BuildError::Usage(format!(
                "{}: no machine directory with results",
                dir.display()
            )))
        }
        (None, _) => {
            return Err(BuildError::Usage(format!(
                "{}: results of several machines; choose one with --machine NAME ({})",
                dir.display(),
                listed(&machines)
            )))
        }
    };
    let benchmarks = source_file(&dir.join("benchmarks.json"), "benchmarks.json")?;
    let mut names = Vec::new();
    let machine_dir = dir.join(&machine);
    for entry in std::fs::read_dir(&machine_dir).map_err(|e| BuildError::io(&machine_dir, e))? {
        let entry = entry.map_err(|e| BuildError::io(&machine_dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && name != "machine.json" && !name.starts_with('.') {
            names.push(name);
        }
    }
    names.sort();
    let files = names
        .iter()
        .map(|n| source_file(&machine_dir.join(n), &format!("{machine}/{n}")))
        .collect::<Result<_, _>>()?;
    Ok(Results {
        machine,
        benchmarks,
        files,
    })
}

/// The machine directories: those holding asv's `machine.json`.
fn machine_dirs(dir: &Path) -> Result<Vec<String>, BuildError> {
    let mut machines = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| BuildError::io(dir, e))? {
        let entry = entry.map_err(|e| BuildError::io(dir, e))?;
        if entry.path().join("machine.json").is_file() {
            machines.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    machines.sort();
    Ok(machines)
}

fn listed(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

fn source_file(path: &Path, name: &str) -> Result<SourceFile, BuildError> {
    let bytes = std::fs::read(path).map_err(|e| BuildError::io(path, e))?;
    Ok(SourceFile {
        name: name.to_string(),
        bytes,
    })
}

/// What `benchmarks.json` says of one benchmark.
#[derive(Debug, Clone, PartialEq)]
struct Meta {
    kind: String,
    unit: String,
    param_names: Vec<String>,
    /// Processes per run, when a number.
    rounds: Option<u64>,
    /// Samples per process, when fixed.
    repeat: Option<u64>,
}

/// Reads `results`; `order` lists commits oldest first (full hashes, from
/// the project's git), else commits are ordered by the results' `date`.
pub fn read(results: &Results, order: Option<&[String]>) -> Result<ImportedHistory, InputError> {
    let metas = read_benchmarks(&results.benchmarks)?;
    let mut warnings = Warnings::default();
    let mut tally = Tally::default();
    let mut files = Vec::with_capacity(results.files.len());
    for file in &results.files {
        files.push(read_result(file, &metas, &mut warnings, &mut tally)?);
    }
    let several_envs = files.iter().map(|f| &f.env).collect::<BTreeSet<_>>().len() > 1;
    let mut commits: BTreeMap<String, Commit> = BTreeMap::new();
    for f in files {
        let commit = commits.entry(f.commit.clone()).or_insert_with(|| Commit {
            file: f.file.clone(),
            date_ms: f.date_ms,
            benchmarks: BTreeMap::new(),
        });
        commit.date_ms = commit.date_ms.min(f.date_ms);
        for mut b in f.benchmarks {
            if several_envs {
                b.name = format!("{} [{}]", b.name, f.env);
            }
            commit.benchmarks.insert(b.name.clone(), b);
        }
    }
    let versions = in_order(commits, order)?;
    Ok(ImportedHistory {
        format: NAME,
        notes: tally.notes(&results.machine, versions.len()),
        versions,
        warnings: warnings.finish(&results.benchmarks.name),
        higher_is_better: Vec::new(),
    })
}

/// One commit's benchmarks as the files give them.
struct Commit {
    file: String,
    date_ms: f64,
    benchmarks: BTreeMap<String, Measured>,
}

/// The commits oldest first: in `order`, else by date then hash.
fn in_order(
    commits: BTreeMap<String, Commit>,
    order: Option<&[String]>,
) -> Result<Vec<ImportedVersion>, InputError> {
    let mut keyed = Vec::with_capacity(commits.len());
    for (hash, c) in commits {
        let position = match order {
            None => 0,
            Some(order) => order
                .iter()
                .position(|o| o.eq_ignore_ascii_case(&hash))
                .ok_or_else(|| InputError {
                    file: c.file.clone(),
                    error: ParseError::json(
                        "$.commit_hash",
                        format!(
                            "commit {hash} is not in the repository's history (fetch it, or import without --repo to order the commits by date)"
                        ),
                    ),
                })?,
        };
        keyed.push(((position, c.date_ms, hash), c));
    }
    keyed.sort_by(|(a, _), (b, _)| {
        a.0.cmp(&b.0)
            .then(a.1.total_cmp(&b.1))
            .then_with(|| a.2.cmp(&b.2))
    });
    Ok(keyed
        .into_iter()
        .map(|((_, _, revision), c)| ImportedVersion {
            revision,
            summary: String::new(),
            date: rfc3339_from_millis(c.date_ms),
            benchmarks: c.benchmarks.into_values().collect(),
        })
        .collect())
}

/// How each benchmark's figures were taken, for the notes.
#[derive(Default)]
struct Tally {
    split: BTreeSet<String>,
    pooled: BTreeSet<String>,
    results: BTreeSet<String>,
}

/// How a benchmark with one run per commit is judged, for the notes.
const JUDGED: &str = "versions are compared by asv's 99% confidence intervals (stats_ci_99_a/b; apart when they do not overlap, as `asv compare` reads them) where asv recorded them, else by change-point detection over the history";

impl Tally {
    fn notes(&self, machine: &str, commits: usize) -> Vec<String> {
        let mut notes = vec![format!("machine {machine}: {commits} commits")];
        if !self.split.is_empty() {
            notes.push(format!(
                "{} benchmarks: asv's raw samples, each of asv's processes (rounds) one run",
                self.split.len()
            ));
        }
        if !self.pooled.is_empty() {
            notes.push(format!(
                "{} benchmarks: asv's raw samples, all of a commit's as one run (asv does not record which process took which unless `repeat` is a fixed number), so one run per commit: {JUDGED}",
                self.pooled.len()
            ));
        }
        if !self.results.is_empty() {
            notes.push(format!(
                "{} benchmarks: asv's result value only (no samples recorded: `asv run --record-samples` keeps them; track_ and mem_ benchmarks have none), one run of one sample per commit: {JUDGED}",
                self.results.len()
            ));
        }
        notes
    }
}

/// `benchmarks.json`: each benchmark's metadata, by name.
fn read_benchmarks(file: &SourceFile) -> Result<BTreeMap<String, Meta>, InputError> {
    let at = |error| InputError {
        file: file.name.clone(),
        error,
    };
    let doc = parse_json(&file.bytes).map_err(at)?;
    let root = object(&doc, "$").map_err(at)?;
    let mut metas = BTreeMap::new();
    for (name, value) in root {
        if name == "version" {
            continue;
        }
        let path = format!("$[{}]", quoted(name));
        metas.insert(name.clone(), read_meta(value, &path).map_err(at)?);
    }
    Ok(metas)
}

fn read_meta(value: &Value, path: &str) -> Result<Meta, ParseError> {
    let meta = object(value, path)?;
    let text = |key: &str, what: &str| -> Result<String, ParseError> {
        string(required(meta, path, key, what)?, &format!("{path}.{key}")).map(str::to_string)
    };
    let mut param_names = Vec::new();
    if let Some(names) = meta.get("param_names") {
        let names_path = format!("{path}.param_names");
        for (i, n) in array(names, &names_path)?.iter().enumerate() {
            param_names.push(string(n, &format!("{names_path}[{i}]"))?.to_string());
        }
    }
    let unit = text("unit", "the unit of its values")?;
    if unit.trim().is_empty() {
        return Err(ParseError::json(
            format!("{path}.unit"),
            "the unit is empty",
        ));
    }
    Ok(Meta {
        kind: text("type", "the benchmark's type (time, track, memory, …)")?,
        unit,
        param_names,
        rounds: meta.get("rounds").and_then(Value::as_u64),
        repeat: meta
            .get("repeat")
            .and_then(Value::as_u64)
            .filter(|&r| r > 0),
    })
}

/// One result file, read.
struct ResultFile {
    file: String,
    commit: String,
    env: String,
    date_ms: f64,
    benchmarks: Vec<Measured>,
}

fn read_result(
    file: &SourceFile,
    metas: &BTreeMap<String, Meta>,
    warnings: &mut Warnings,
    tally: &mut Tally,
) -> Result<ResultFile, InputError> {
    let at = |error| InputError {
        file: file.name.clone(),
        error,
    };
    let doc = parse_json(&file.bytes).map_err(at)?;
    let root = object(&doc, "$").map_err(at)?;
    check_version(root).map_err(at)?;
    let field = |key: &str, what: &str| required(root, "$", key, what).map_err(at);
    let commit = string(
        field("commit_hash", "the commit measured")?,
        "$.commit_hash",
    )
    .map_err(at)?
    .to_string();
    let env = match root.get("env_name") {
        Some(v) => string(v, "$.env_name").map_err(at)?.to_string(),
        None => String::new(),
    };
    let date = field("date", "the commit's date")?;
    let date_ms = date
        .as_f64()
        .ok_or_else(|| at(wrong_shape(date, "$.date", "milliseconds since 1970")))?;
    let columns =
        read_columns(field("result_columns", "the names of each row's columns")?).map_err(at)?;
    let results = object(field("results", "the benchmarks' results")?, "$.results").map_err(at)?;
    let mut benchmarks = Vec::new();
    for (name, row) in results {
        let path = format!("$.results[{}]", quoted(name));
        let Some(meta) = metas.get(name) else {
            warnings.push(
                &file.name,
                ParseError::json(
                    path,
                    "not in benchmarks.json (a benchmark since removed?); left out",
                ),
            );
            continue;
        };
        let row = Row::new(row, &columns, &path).map_err(at)?;
        let read = read_row(name, meta, &row, &path, &file.name, warnings).map_err(at)?;
        let how = match read.how {
            How::Split => &mut tally.split,
            How::Pooled => &mut tally.pooled,
            How::Result => &mut tally.results,
        };
        how.extend(read.benchmarks.iter().map(|b| b.name.clone()));
        benchmarks.extend(read.benchmarks);
    }
    Ok(ResultFile {
        file: file.name.clone(),
        commit,
        env,
        date_ms,
        benchmarks,
    })
}

fn check_version(root: &Map<String, Value>) -> Result<(), ParseError> {
    let version = required(root, "$", "version", "the result format version")?;
    match version.as_u64() {
        Some(API_VERSION) => Ok(()),
        Some(1) => Err(ParseError::json(
            "$.version",
            "asv result format version 1 (asv before 0.5); `asv update` converts the results to version 2",
        )),
        _ => Err(ParseError::json(
            "$.version",
            format!("unsupported asv result format version {version} (this perfatlas reads {API_VERSION})"),
        )),
    }
}

fn read_columns(value: &Value) -> Result<Vec<String>, ParseError> {
    let mut columns = Vec::new();
    for (i, c) in array(value, "$.result_columns")?.iter().enumerate() {
        columns.push(string(c, &format!("$.result_columns[{i}]"))?.to_string());
    }
    for needed in ["result", "params"] {
        if !columns.iter().any(|c| c == needed) {
            return Err(ParseError::json(
                "$.result_columns",
                format!("no `{needed}` column"),
            ));
        }
    }
    Ok(columns)
}

/// One benchmark's row, by column name.
struct Row<'a> {
    cells: BTreeMap<&'a str, (&'a Value, usize)>,
}

impl<'a> Row<'a> {
    fn new(row: &'a Value, columns: &'a [String], path: &str) -> Result<Row<'a>, ParseError> {
        let values = array(row, path)?;
        if values.len() > columns.len() {
            return Err(ParseError::json(
                path,
                format!(
                    "{} values, but result_columns names {}",
                    values.len(),
                    columns.len()
                ),
            ));
        }
        let cells = columns
            .iter()
            .zip(values)
            .enumerate()
            .map(|(i, (c, v))| (c.as_str(), (v, i)))
            .collect();
        Ok(Row { cells })
    }

    /// The cell of `column`, with its JSON path; `None` when absent or null.
    fn get(&self, column: &str, path: &str) -> Option<(&'a Value, String)> {
        match self.cells.get(column) {
            Some((Value::Null, _)) | None => None,
            Some((v, i)) => Some((v, format!("{path}[{i}]"))),
        }
    }
}

/// How a benchmark's figures were taken.
#[derive(Clone, Copy, PartialEq)]
enum How {
    Split,
    Pooled,
    Result,
}

struct ReadRow {
    benchmarks: Vec<Measured>,
    how: How,
}

/// The benchmarks of one row: one per parameter combination.
fn read_row(
    name: &str,
    meta: &Meta,
    row: &Row,
    path: &str,
    file: &str,
    warnings: &mut Warnings,
) -> Result<ReadRow, ParseError> {
    let combos = combinations(name, meta, row, path)?;
    let results = match row.get("result", path) {
        Some((v, p)) => cells(v, &p, combos.len())?,
        None => vec![None; combos.len()],
    };
    let samples = match row.get("samples", path) {
        Some((v, p)) => cells(v, &p, combos.len())?,
        None => vec![None; combos.len()],
    };
    let intervals = intervals(row, path, combos.len())?;
    let (unit, per) = unit(&meta.unit);
    let how = match samples.iter().any(Option::is_some) {
        false => How::Result,
        true if split_size(meta).is_some() => How::Split,
        true => How::Pooled,
    };
    let mut benchmarks = Vec::new();
    for (j, combo) in combos.into_iter().enumerate() {
        let runs = match (&samples[j], &results[j]) {
            (Some((s, p)), _) => sample_runs(s, p, meta, per, file, warnings)?,
            (None, Some((r, p))) => value(r, p, per, file, warnings).map(|v| vec![vec![v]]),
            (None, None) => None,
        };
        let Some(runs) = runs.filter(|r| !r.is_empty()) else {
            warnings.push(
                file,
                ParseError::json(
                    path,
                    format!(
                        "{combo}: asv recorded no value (failed, skipped or not run); left out"
                    ),
                ),
            );
            continue;
        };
        let from_samples = samples[j].is_some();
        let interval = intervals[j].and_then(|i| i.scaled(1.0 / per));
        benchmarks.push(Measured {
            name: combo,
            unit: unit.clone(),
            in_process: from_samples,
            note: note(meta, how, from_samples, interval.is_some()),
            runs,
            interval,
        });
    }
    Ok(ReadRow { benchmarks, how })
}

fn note(meta: &Meta, how: How, from_samples: bool, interval: bool) -> String {
    let figure = match (from_samples, how) {
        (true, How::Split) => "asv samples (per call), one run per asv process (round)".into(),
        (true, _) => "asv samples (per call) of all its processes, as one run".into(),
        (false, _) if meta.kind == "time" => "asv result (the median of its samples)".into(),
        (false, _) => format!("asv {} value", meta.kind),
    };
    match interval {
        true => format!("{figure}, with asv's 99% confidence interval (stats_ci_99_a/b)"),
        false => figure,
    }
}

/// Per combination, asv's 99% confidence interval of the result
/// (`stats_ci_99_a`, `stats_ci_99_b`) in asv's unit, when both are
/// recorded and finite (asv writes `null` for an interval it could not
/// compute). The low end may be below zero: it is a confidence interval,
/// not a sample.
fn intervals(
    row: &Row,
    path: &str,
    count: usize,
) -> Result<Vec<Option<model::Interval>>, ParseError> {
    let column = |name: &str| -> Result<Vec<Option<f64>>, ParseError> {
        Ok(match row.get(name, path) {
            Some((v, p)) => cells(v, &p, count)?
                .into_iter()
                .map(|c| c.and_then(|(v, _)| v.as_f64()))
                .collect(),
            None => vec![None; count],
        })
    };
    let (a, b) = (column("stats_ci_99_a")?, column("stats_ci_99_b")?);
    Ok(a.into_iter()
        .zip(b)
        .map(|(a, b)| model::Interval::new(a?, b?))
        .collect())
}

/// The samples per asv process when they can be told apart.
fn split_size(meta: &Meta) -> Option<usize> {
    match (meta.rounds, meta.repeat) {
        (Some(rounds), Some(repeat)) if rounds > 1 => usize::try_from(repeat).ok(),
        _ => None,
    }
}

/// One combination's samples as runs.
fn sample_runs(
    samples: &Value,
    path: &str,
    meta: &Meta,
    per: f64,
    file: &str,
    warnings: &mut Warnings,
) -> Result<Option<Vec<Vec<f64>>>, ParseError> {
    let mut kept = Vec::new();
    for (k, s) in array(samples, path)?.iter().enumerate() {
        kept.extend(value(s, &format!("{path}[{k}]"), per, file, warnings));
    }
    let rounds = meta
        .rounds
        .and_then(|r| usize::try_from(r).ok())
        .unwrap_or(1);
    Ok(Some(match split_size(meta) {
        Some(size) if size > 0 && kept.len() == size * rounds => {
            kept.chunks(size).map(<[f64]>::to_vec).collect()
        }
        _ => vec![kept],
    }))
}

/// One value, converted; a warning and `None` when it cannot be one.
fn value(v: &Value, path: &str, per: f64, file: &str, warnings: &mut Warnings) -> Option<f64> {
    let kept = v.as_f64().and_then(|x| sample(x / per));
    if kept.is_none() {
        let found = match v {
            Value::Number(n) => n.to_string(),
            Value::Null => "null (NaN or infinity?)".into(),
            other => kind(other).into(),
        };
        warnings.push(
            file,
            ParseError::json(path, format!("{found} is not a measurement; left out")),
        );
    }
    kept
}

/// Per combination, its cell of a column (or `None`), with its path.
fn cells(
    value: &Value,
    path: &str,
    count: usize,
) -> Result<Vec<Option<(Value, String)>>, ParseError> {
    let items = array(value, path)?;
    if items.len() != count {
        return Err(ParseError::json(
            path,
            format!("{} values for {count} parameter combinations", items.len()),
        ));
    }
    Ok(items
        .iter()
        .enumerate()
        .map(|(i, v)| (!v.is_null()).then(|| (v.clone(), format!("{path}[{i}]"))))
        .collect())
}

/// The names of a row's parameter combinations, in asv's order (the last
/// parameter varying fastest): `name` alone without parameters.
fn combinations(name: &str, meta: &Meta, row: &Row, path: &str) -> Result<Vec<String>, ParseError> {
    let Some((params, params_path)) = row.get("params", path) else {
        return Ok(vec![name.to_string()]);
    };
    let mut lists = Vec::new();
    for (i, list) in array(params, &params_path)?.iter().enumerate() {
        let list_path = format!("{params_path}[{i}]");
        let mut values = Vec::new();
        for (k, v) in array(list, &list_path)?.iter().enumerate() {
            values.push(string(v, &format!("{list_path}[{k}]"))?.to_string());
        }
        lists.push(values);
    }
    if lists.is_empty() {
        return Ok(vec![name.to_string()]);
    }
    let names: Vec<String> = (0..lists.len())
        .map(|i| match meta.param_names.get(i) {
            Some(n) if meta.param_names.len() == lists.len() => n.clone(),
            _ => format!("param{}", i + 1),
        })
        .collect();
    let mut combos: Vec<Vec<&str>> = vec![Vec::new()];
    for list in &lists {
        combos = combos
            .iter()
            .flat_map(|c| {
                list.iter().map(move |v| {
                    let mut next = c.clone();
                    next.push(v.as_str());
                    next
                })
            })
            .collect();
    }
    Ok(combos
        .into_iter()
        .map(|values| {
            let args: Vec<String> = names
                .iter()
                .zip(values)
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            format!("{name}({})", args.join(", "))
        })
        .collect())
}

/// asv's unit as perfatlas keeps it, and the factor values are divided by.
fn unit(unit: &str) -> (String, f64) {
    match per_second(unit) {
        Some(per) => ("s".into(), per),
        None => (unit.to_string(), 1.0),
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

#[cfg(test)]
mod tests;
