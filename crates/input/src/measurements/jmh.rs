//! JMH's JSON results (`java -jar benchmarks.jar -rf json`, by default
//! `jmh-result.json`; Gradle's and Maven's JMH plugins write the same):
//!
//! ```text
//! [{"jmhVersion": "1.37", "benchmark": "org.example.ParseBench.parse", "mode": "avgt",
//!   "threads": 1, "forks": 2, "jvm", "jvmArgs", …, "measurementIterations": 5,
//!   "params": {"size": "100", "cached": "true"},
//!   "primaryMetric": {"score": 27.51, "scoreError": 2.99, "scoreConfidence": […],
//!                     "scorePercentiles": {…}, "scoreUnit": "ns/op",
//!                     "rawData": [[26.67, 26.81, …], [26.42, 32.96, …]]},
//!   "secondaryMetrics": {"·gc.alloc.rate.norm": {"score", "scoreUnit": "B/op",
//!                                                 "rawData": [[…], […]]}}}, …]
//! ```
//!
//! Each element is one benchmark run by JMH in one mode with one set of
//! `@Param` values. `rawData` holds one array per fork (a JVM process of
//! its own: an independent run) of the scores of that fork's measurement
//! iterations (samples taken inside the run, so `in_process = true`);
//! JMH's `score` is their mean. In `sample` mode JMH writes
//! `rawDataHistogram` instead, per fork and iteration a list of
//! `[time, count]`: every sampled invocation is a sample (a file of more
//! than [`MAX_HISTOGRAM_SAMPLES`] in one benchmark is read as one sample
//! per iteration, its mean, with a warning).
//!
//! Units: times per operation (`ns/op` … `s/op`, also `min`, `hr` and
//! `day`; `avgt`, `sample` and `ss` modes) become seconds; throughputs
//! (`ops/s`, `ops/ms`, `ops/us`, `ops/ns`; `thrpt` mode) become seconds per
//! operation, 1 / value, since perfatlas has no "higher is better" and reads
//! a higher value as slower (as the github-action-benchmark importer does
//! with `ops/sec`). Other units are kept as written.
//!
//! Names: `Class.method` (JMH's own table prints the same), the whole
//! `benchmark` when two packages share one; `@Param` values follow in name
//! order (as JMH writes them), `Class.method(cached=true, size=100)`. The same benchmark
//! in several modes (`-bm avgt,thrpt`) gets its mode, `Class.method [avgt]`.
//! Secondary metrics (profilers' `-prof gc`, `@AuxCounters`, `@Group`
//! members) are benchmarks of their own, in name order, `NAME (gc.alloc.rate.norm)` (the
//! leading `·` left out), times converted as above and `B/op` in bytes; the
//! percentiles that `sample` mode adds (`method·p0.50`) summarise the
//! primary samples and are not read, and a secondary metric without a value
//! (`-prof perfasm` writes `NaN` and empty arrays) is left out with a
//! warning.

use serde_json::{Map, Value};

use super::{array, object, required, string, Collected, Measured};
use model::error::ParseError;

pub(super) const NAME: &str = "jmh";

/// Most samples read from one benchmark's `rawDataHistogram`; past it,
/// each iteration becomes one sample, its mean.
pub(super) const MAX_HISTOGRAM_SAMPLES: u64 = 1_000_000;

/// A JSON array whose first element has a top-level `jmhVersion` (JMH
/// 1.19 and later) or both `benchmark` and `primaryMetric` (older files).
pub(super) fn sniff(head: &str) -> bool {
    let keys = first_element_keys(head);
    let has = |k: &str| keys.contains(&k);
    has("jmhVersion") || (has("benchmark") && has("primaryMetric"))
}

/// The member names of the first element of the array `head` opens, as far
/// as the head goes; none when `head` is not an array of objects.
pub(super) fn first_element_keys(head: &str) -> Vec<&str> {
    let Some(rest) = head.strip_prefix('[') else {
        return Vec::new();
    };
    let rest = rest.trim_start();
    if !rest.starts_with('{') {
        return Vec::new();
    }
    let mut keys = Vec::new();
    let mut depth = 0usize;
    let mut expect_key = false;
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' => {
                depth += 1;
                expect_key = c == '{' && depth == 1;
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            ',' => expect_key = depth == 1,
            '"' => {
                let Some(end) = string_end(&mut chars) else {
                    break;
                };
                if expect_key {
                    keys.push(&rest[i + 1..end]);
                    expect_key = false;
                }
            }
            _ => {}
        }
    }
    keys
}

/// Passes over a string literal's body; the index of its closing quote.
fn string_end(chars: &mut std::str::CharIndices) -> Option<usize> {
    let mut escaped = false;
    for (j, c) in chars {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(j),
            _ => {}
        }
    }
    None
}

/// One element of the file, read.
struct Result_ {
    path: String,
    /// `benchmark` as written.
    benchmark: String,
    /// `(size=100, cached=true)`, or empty.
    params: String,
    mode: String,
    /// The primary metric (`label` `None`), then the secondary ones.
    series: Vec<Series>,
}

/// One metric of a result: its runs, in perfatlas's unit.
struct Series {
    /// The secondary metric's name, `·` left out; `None` for the primary.
    label: Option<String>,
    unit: String,
    runs: Vec<Vec<f64>>,
    note: String,
}

pub(super) fn read(doc: &Value, _path: &str, out: &mut Collected) -> Result<(), ParseError> {
    let results = array(doc, "$")?;
    let mut read = Vec::with_capacity(results.len());
    for (i, result) in results.iter().enumerate() {
        read.push(read_result(result, &format!("$[{i}]"), out)?);
    }
    let names = names(&read);
    for (result, name) in read.into_iter().zip(names) {
        for series in result.series {
            let name = match &series.label {
                None => name.clone(),
                Some(label) => format!("{name} ({label})"),
            };
            out.benchmark(
                result.path.clone(),
                Measured {
                    name,
                    unit: series.unit,
                    runs: series.runs,
                    in_process: true,
                    note: series.note,
                    interval: None,
                },
            );
        }
    }
    Ok(())
}

fn read_result(value: &Value, path: &str, out: &mut Collected) -> Result<Result_, ParseError> {
    let result = object(value, path)?;
    let benchmark = required(result, path, "benchmark", "the benchmark's name")?;
    let benchmark = string(benchmark, &format!("{path}.benchmark"))?.to_string();
    let mode = match result.get("mode") {
        Some(mode) => string(mode, &format!("{path}.mode"))?.to_string(),
        None => String::new(),
    };
    let params = params(result, path)?;
    let metric_path = format!("{path}.primaryMetric");
    let primary = required(
        result,
        path,
        "primaryMetric",
        "the benchmark's measurements",
    )?;
    let primary = object(primary, &metric_path)?;
    let mut series = vec![primary_series(primary, &metric_path, &mode, out)?];
    if let Some(secondary) = result.get("secondaryMetrics") {
        let secondary_path = format!("{path}.secondaryMetrics");
        for (name, metric) in object(secondary, &secondary_path)? {
            if mode == "sample" && is_percentile(name) {
                continue;
            }
            let metric_path = format!("{secondary_path}[{}]", quoted(name));
            if let Some(s) = secondary_series(name, metric, &metric_path, out)? {
                series.push(s);
            }
        }
    }
    Ok(Result_ {
        path: path.to_string(),
        benchmark,
        params,
        mode,
        series,
    })
}

/// `(k=v, k2=v2)` from `params`, in name order; empty without any.
fn params(result: &Map<String, Value>, path: &str) -> Result<String, ParseError> {
    let Some(params) = result.get("params") else {
        return Ok(String::new());
    };
    let params = object(params, &format!("{path}.params"))?;
    if params.is_empty() {
        return Ok(String::new());
    }
    let pairs: Vec<String> = params
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect();
    Ok(format!("({})", pairs.join(", ")))
}

/// A JSON string literal of `key`, for paths.
fn quoted(key: &str) -> String {
    Value::String(key.to_string()).to_string()
}

/// `method·p0.50` & co., the percentiles `sample` mode adds.
fn is_percentile(name: &str) -> bool {
    name.rsplit_once("·p")
        .is_some_and(|(_, q)| !q.is_empty() && q.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
}

fn primary_series(
    metric: &Map<String, Value>,
    path: &str,
    mode: &str,
    out: &mut Collected,
) -> Result<Series, ParseError> {
    let printed = unit_of(metric, path)?;
    let figure = Figure::of(printed);
    let (runs, what) = match metric.get("rawDataHistogram") {
        Some(histogram) if !metric.contains_key("rawData") => {
            let hpath = format!("{path}.rawDataHistogram");
            (
                histogram_runs(histogram, &hpath, &figure, out)?,
                "sampled invocation times",
            )
        }
        _ => {
            let raw = required(
                metric,
                path,
                "rawData",
                "the score of each measurement iteration, per fork \
                 (rawDataHistogram in sample mode)",
            )?;
            let rpath = format!("{path}.rawData");
            (
                raw_runs(raw, &rpath, &figure, out)?,
                "score per measurement iteration",
            )
        }
    };
    let mode = if mode.is_empty() {
        String::new()
    } else {
        format!(" {mode}")
    };
    let note = format!(
        "JMH{mode} {what} ({printed}{}); {}",
        figure.conversion(),
        forks_note(runs.len())
    );
    Ok(Series {
        label: None,
        unit: figure.unit(printed),
        runs,
        note,
    })
}

fn secondary_series(
    name: &str,
    metric: &Value,
    path: &str,
    out: &mut Collected,
) -> Result<Option<Series>, ParseError> {
    let metric = object(metric, path)?;
    let printed = unit_of(metric, path)?;
    let figure = Figure::of(printed);
    let raw = required(
        metric,
        path,
        "rawData",
        "the metric's value per iteration, per fork",
    )?;
    let rpath = format!("{path}.rawData");
    if array(raw, &rpath)?.iter().all(is_empty_array) {
        out.warn(
            rpath,
            format!("{name}: no values (a profiler that reports text, such as perfasm?); left out"),
        );
        return Ok(None);
    }
    let runs = raw_runs(raw, &rpath, &figure, out)?;
    let label = name.trim_start_matches('·').to_string();
    let note = format!(
        "JMH secondary metric {label} per measurement iteration ({printed}{}); {}",
        figure.conversion(),
        forks_note(runs.len())
    );
    Ok(Some(Series {
        label: Some(label),
        unit: figure.unit(printed),
        runs,
        note,
    }))
}

fn is_empty_array(value: &Value) -> bool {
    value.as_array().is_some_and(Vec::is_empty)
}

fn unit_of<'a>(metric: &'a Map<String, Value>, path: &str) -> Result<&'a str, ParseError> {
    let unit = required(metric, path, "scoreUnit", "the unit of the scores")?;
    string(unit, &format!("{path}.scoreUnit"))
}

/// Which figure a run is: how many forks there were.
fn forks_note(forks: usize) -> String {
    match forks {
        1 => "a single fork, its iterations as samples (-f N gives N runs)".to_string(),
        n => format!("one run per fork ({n}), its iterations as samples"),
    }
}

/// `rawData`: per fork, one value per iteration.
fn raw_runs(
    raw: &Value,
    path: &str,
    figure: &Figure,
    out: &mut Collected,
) -> Result<Vec<Vec<f64>>, ParseError> {
    let mut runs = Vec::new();
    for (f, fork) in array(raw, path)?.iter().enumerate() {
        let fork_path = format!("{path}[{f}]");
        let mut samples = Vec::new();
        for (i, value) in array(fork, &fork_path)?.iter().enumerate() {
            if let Some(v) = figure.sample(value, &format!("{fork_path}[{i}]"), out) {
                samples.push(v);
            }
        }
        out.run(&mut runs, samples, &fork_path);
    }
    Ok(runs)
}

/// One iteration of a histogram: `(value in perfatlas's unit, count)`.
type Iteration = Vec<(f64, u64)>;

/// `rawDataHistogram`: per fork, per iteration, `[value, count]` pairs.
fn histogram_runs(
    histogram: &Value,
    path: &str,
    figure: &Figure,
    out: &mut Collected,
) -> Result<Vec<Vec<f64>>, ParseError> {
    let mut forks: Vec<(String, Vec<Iteration>)> = Vec::new();
    let mut total: u64 = 0;
    for (f, fork) in array(histogram, path)?.iter().enumerate() {
        let fork_path = format!("{path}[{f}]");
        let mut iterations = Vec::new();
        for (i, iteration) in array(fork, &fork_path)?.iter().enumerate() {
            let pairs = histogram_pairs(iteration, &format!("{fork_path}[{i}]"), figure, out)?;
            total = pairs.iter().fold(total, |t, &(_, c)| t.saturating_add(c));
            iterations.push(pairs);
        }
        forks.push((fork_path, iterations));
    }
    let expand = total <= MAX_HISTOGRAM_SAMPLES;
    if !expand {
        out.warn(
            path,
            format!(
                "{total} sampled invocations, more than {MAX_HISTOGRAM_SAMPLES}: \
                 each iteration is read as one sample, its mean"
            ),
        );
    }
    let mut runs = Vec::new();
    for (fork_path, iterations) in forks {
        let samples = iterations
            .iter()
            .flat_map(|pairs| iteration_samples(pairs, expand))
            .collect();
        out.run(&mut runs, samples, &fork_path);
    }
    Ok(runs)
}

fn histogram_pairs(
    iteration: &Value,
    path: &str,
    figure: &Figure,
    out: &mut Collected,
) -> Result<Iteration, ParseError> {
    let mut pairs = Vec::new();
    for (k, pair) in array(iteration, path)?.iter().enumerate() {
        let pair_path = format!("{path}[{k}]");
        let (value, count) = match array(pair, &pair_path)? {
            [value, count] => (value, count),
            _ => {
                return Err(ParseError::json(
                    pair_path,
                    "expected a [value, count] pair",
                ))
            }
        };
        let Some(count) = count_of(count, &format!("{pair_path}[1]"), out) else {
            continue;
        };
        if let Some(v) = figure.sample(value, &format!("{pair_path}[0]"), out) {
            pairs.push((v, count));
        }
    }
    Ok(pairs)
}

/// A histogram count: a whole number, not negative.
fn count_of(value: &Value, path: &str, out: &mut Collected) -> Option<u64> {
    let count = value.as_u64();
    if count.is_none() {
        out.warn(
            path,
            format!("{value} is not a count (a whole number); the entry is left out"),
        );
    }
    count
}

/// The samples of one iteration: every value `count` times, or the
/// iteration's mean once.
fn iteration_samples(pairs: &[(f64, u64)], expand: bool) -> Vec<f64> {
    if expand {
        return pairs
            .iter()
            .flat_map(|&(v, c)| std::iter::repeat_n(v, c as usize))
            .collect();
    }
    let n: f64 = pairs.iter().map(|&(_, c)| c as f64).sum();
    let sum: f64 = pairs.iter().map(|&(v, c)| v * c as f64).sum();
    if n > 0.0 && (sum / n).is_finite() {
        vec![sum / n]
    } else {
        Vec::new()
    }
}

/// How a unit's values become perfatlas's: the factor time units are
/// divided by to give seconds.
enum Figure {
    /// A time per operation, or a time: seconds = value / factor.
    Time(f64),
    /// Operations per time: seconds per operation = 1 / (value × factor).
    Rate(f64),
    /// `B/op`: bytes.
    Bytes,
    /// Anything else, as written.
    Kept,
}

impl Figure {
    fn of(unit: &str) -> Figure {
        if unit == "B/op" {
            return Figure::Bytes;
        }
        if let Some(per) = unit.strip_suffix("/op").and_then(per_second) {
            return Figure::Time(per);
        }
        if let Some(per) = unit.strip_prefix("ops/").and_then(per_second) {
            return Figure::Rate(per);
        }
        per_second(unit).map_or(Figure::Kept, Figure::Time)
    }

    fn unit(&self, printed: &str) -> String {
        match self {
            Figure::Time(_) | Figure::Rate(_) => "s",
            Figure::Bytes => "bytes",
            Figure::Kept => printed,
        }
        .to_string()
    }

    /// What was done to the printed figure, for notes.
    fn conversion(&self) -> &'static str {
        match self {
            Figure::Rate(_) => {
                " as seconds per operation, 1 / value: perfatlas reads a higher value as slower"
            }
            _ => "",
        }
    }

    /// A value in perfatlas's unit, or `None` with a warning at `path`.
    fn sample(&self, value: &Value, path: &str, out: &mut Collected) -> Option<f64> {
        match *self {
            Figure::Time(per) => out.sample(value, path, per),
            Figure::Bytes | Figure::Kept => out.sample(value, path, 1.0),
            Figure::Rate(per) => {
                let seconds = 1.0 / (out.sample(value, path, 1.0)? * per);
                if seconds.is_finite() {
                    Some(seconds)
                } else {
                    out.warn(
                        path,
                        format!(
                            "a throughput of {value} has no finite time per operation; \
                             the sample is left out"
                        ),
                    );
                    None
                }
            }
        }
    }
}

/// The factor a time in `unit` is divided by to give seconds, for JMH's
/// time units (`TimeUnit`'s labels).
fn per_second(unit: &str) -> Option<f64> {
    super::per_second(unit).or(match unit {
        "min" => Some(1.0 / 60.0),
        "hr" => Some(1.0 / 3600.0),
        "day" => Some(1.0 / 86400.0),
        _ => None,
    })
}

/// Each result's name: `Class.method` (the whole `benchmark` where two
/// packages share it), its params, and its mode where the same benchmark
/// ran in several.
fn names(results: &[Result_]) -> Vec<String> {
    let mut full_of: rustc_hash::FxHashMap<&str, &str> = Default::default();
    let mut shared: rustc_hash::FxHashSet<&str> = Default::default();
    for r in results {
        let short = short_name(&r.benchmark);
        if *full_of.entry(short).or_insert(&r.benchmark) != r.benchmark {
            shared.insert(short);
        }
    }
    let base: Vec<String> = results
        .iter()
        .map(|r| {
            let short = short_name(&r.benchmark);
            let name = if shared.contains(short) {
                &r.benchmark
            } else {
                short
            };
            format!("{name}{}", r.params)
        })
        .collect();
    let mut mode_of: rustc_hash::FxHashMap<&str, &str> = Default::default();
    let mut several_modes: rustc_hash::FxHashSet<&str> = Default::default();
    for (r, name) in results.iter().zip(&base) {
        if *mode_of.entry(name).or_insert(&r.mode) != r.mode {
            several_modes.insert(name);
        }
    }
    results
        .iter()
        .zip(&base)
        .map(|(r, name)| {
            if several_modes.contains(name.as_str()) {
                format!("{name} [{}]", r.mode)
            } else {
                name.clone()
            }
        })
        .collect()
}

/// `Class.method` of `package.Class.method`.
fn short_name(benchmark: &str) -> &str {
    match benchmark.rmatch_indices('.').nth(1) {
        Some((i, _)) => &benchmark[i + 1..],
        None => benchmark,
    }
}

#[cfg(test)]
mod tests;
