//! Repeated benchmark measurements: the timings that benchmark tools write
//! (hyperfine, Criterion, Google Benchmark, pytest-benchmark, pyperf,
//! `go test -bench`, libtest's `cargo bench`, benchmark.js, Catch2's XML,
//! Bencher Metric Format, JMH, BenchmarkDotNet, BenchmarkTools.jl) and
//! perfatlas's own measurement
//! JSON. They are not profiles: a file holds
//! benchmarks, each with its runs and the raw samples inside each run, and
//! nothing about where the time went.
//!
//! This module owns recognising such files by content
//! ([`sniff_and_parse`]), naming the tools' files that carry no samples of
//! their own ([`is_tool_byproduct`]), the shared types, and the checks every
//! reader applies: a sample is a finite number, not negative (otherwise a
//! warning names its JSON path and the value is left out); a run without
//! samples and a benchmark without runs are left out with a warning; a
//! wrong shape is an error at its JSON path; at most 100 warnings are listed
//! per file, the rest counted. One file per format; each says
//! in [`Measured::note`] which figure of the tool's output it took.
//!
//! Most formats are JSON objects (`READERS`, sniffed by their keys); JMH's
//! and BenchmarkTools.jl's are JSON arrays, and only the readers of arrays are asked about a file
//! that opens with `[` (a Chrome trace's bare array of events is never
//! taken for an object format). The ones written as lines of text
//! (`TEXT_READERS`: `go test -bench`) are tried on files that open with
//! neither, or with a `[` no array reader claims, and place their problems
//! by line instead of JSON path.

pub mod benchmark_js;
pub mod benchmarkdotnet;
pub mod benchmarktools;
pub mod bmf;
pub mod catch2;
pub mod criterion;
pub mod go_bench;
pub mod google_benchmark;
pub mod hyperfine;
pub mod jmh;
pub mod libtest;
pub mod native;
mod native_fast;
pub mod pyperf;
pub mod pytest_benchmark;
pub mod reduced;

pub use reduced::{Reduced, ReducedBenchmark};

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::cpuprofile::json_error;
use super::sniff::{has_key, JsonHead};
use super::text;
use model::error::{ParseError, Place};

/// One benchmark's measurements in one file.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub name: String,
    /// `"s"` for any time unit (values normalised to seconds); otherwise
    /// the unit as given, e.g. `"instructions"`.
    pub unit: String,
    /// One entry per independent run (a separate process); each holds the
    /// samples taken inside that run, raw, not averaged.
    pub runs: Vec<Vec<f64>>,
    /// True when the samples inside a run are in-process iterations
    /// (Criterion, pytest-benchmark).
    pub in_process: bool,
    /// Which figure of the tool's output was taken, e.g. "Google Benchmark
    /// real_time per iteration".
    pub note: String,
    /// The interval the tool recorded around a figure it gives alone
    /// (asv's 99% confidence interval), in the benchmark's unit.
    pub interval: Option<model::Interval>,
}

impl Measured {
    /// A benchmark of which a file gives one figure (a tool's median or
    /// mean, its samples not printed): one run of one value.
    fn one_value(
        name: String,
        (value, unit): (f64, &str),
        note: &str,
        interval: Option<model::Interval>,
    ) -> Measured {
        Measured {
            name,
            unit: unit.to_string(),
            runs: vec![vec![value]],
            in_process: false,
            note: note.to_string(),
            interval,
        }
    }
}

/// The benchmarks of one measurement file.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasurementFile {
    /// `hyperfine`, `criterion`, `google-benchmark`, `pytest-benchmark`,
    /// `pyperf`, `go-test-bench`, `libtest-bench`, `benchmark.js`,
    /// `catch2-xml`, `bencher-metric-format`, `jmh`, `benchmarkdotnet`,
    /// `benchmarktools` or `native-measurements`.
    pub format: &'static str,
    /// In the order the file lists them; names are unique (entries of the
    /// same name are merged).
    pub benchmarks: Vec<Measured>,
    /// Parts of the file that were left out, each with its place.
    pub warnings: Vec<ParseError>,
}

/// How many bytes of a file sniffing looks at.
const HEAD: usize = 8192;

/// One measurement format: its name, its content signature (on the decoded
/// head of the file) and its reader.
struct Reader {
    name: &'static str,
    /// The tool's name as people write it, for messages.
    label: &'static str,
    /// The document's first character: `{` for the object formats, `[`
    /// for the array ones.
    opener: char,
    sniff: fn(&str) -> bool,
    read: fn(&Value, &str, &mut Collected) -> Result<(), ParseError>,
    /// A quicker reading of well-formed files that gives the same
    /// benchmarks, or `None` to leave the file to `read`.
    fast: Option<QuickReader>,
}

/// Reads well-formed text into all its benchmarks, in order, or says
/// `None`.
type QuickReader = fn(&str) -> Option<Vec<Measured>>;

/// Every measurement format, in sniffing order: the most specific
/// signatures first.
static READERS: &[Reader] = &[
    Reader {
        name: native::NAME,
        label: "perfatlas measurement JSON",
        opener: '{',
        sniff: native::sniff,
        read: native::read,
        fast: Some(native_fast::read),
    },
    Reader {
        name: criterion::NAME,
        label: "Criterion",
        opener: '{',
        sniff: criterion::sniff,
        read: criterion::read,
        fast: None,
    },
    Reader {
        name: hyperfine::NAME,
        label: "hyperfine",
        opener: '{',
        sniff: hyperfine::sniff,
        read: hyperfine::read,
        fast: None,
    },
    Reader {
        name: pytest_benchmark::NAME,
        label: "pytest-benchmark",
        opener: '{',
        sniff: pytest_benchmark::sniff,
        read: pytest_benchmark::read,
        fast: None,
    },
    Reader {
        name: pyperf::NAME,
        label: "pyperf",
        opener: '{',
        sniff: pyperf::sniff,
        read: pyperf::read,
        fast: None,
    },
    Reader {
        name: google_benchmark::NAME,
        label: "Google Benchmark",
        opener: '{',
        sniff: google_benchmark::sniff,
        read: google_benchmark::read,
        fast: None,
    },
    Reader {
        name: benchmarkdotnet::NAME,
        label: "BenchmarkDotNet",
        opener: '{',
        sniff: benchmarkdotnet::sniff,
        read: benchmarkdotnet::read,
        fast: None,
    },
    Reader {
        name: jmh::NAME,
        label: "JMH",
        opener: '[',
        sniff: jmh::sniff,
        read: jmh::read,
        fast: None,
    },
    Reader {
        name: benchmarktools::NAME,
        label: "BenchmarkTools.jl",
        opener: '[',
        sniff: benchmarktools::sniff,
        read: benchmarktools::read,
        fast: None,
    },
    // Last: its signature is a shape (an object of objects of objects
    // holding a numeric `value`), not a key of its own.
    Reader {
        name: bmf::NAME,
        label: "Bencher Metric Format",
        opener: '{',
        sniff: bmf::sniff,
        read: bmf::read,
        fast: None,
    },
];

/// One measurement format written as lines of text: its name, its
/// signature (on the decoded head of the file) and its reader, which gets
/// the whole decoded text.
struct TextReader {
    name: &'static str,
    label: &'static str,
    sniff: fn(&str) -> bool,
    read: fn(&str, &mut Collected) -> Result<(), ParseError>,
}

/// Every text measurement format, in sniffing order.
static TEXT_READERS: &[TextReader] = &[
    TextReader {
        name: go_bench::NAME,
        label: "go test -bench",
        sniff: go_bench::sniff,
        read: go_bench::read,
    },
    TextReader {
        name: benchmark_js::NAME,
        label: "benchmark.js",
        sniff: benchmark_js::sniff,
        read: benchmark_js::read,
    },
    TextReader {
        name: catch2::NAME,
        label: "Catch2 (XML reporter)",
        sniff: catch2::sniff,
        read: catch2::read,
    },
    TextReader {
        name: libtest::NAME,
        label: "cargo bench (libtest)",
        sniff: libtest::sniff,
        read: libtest::read,
    },
];

/// The tools whose JSON measurement files are read, as people name them,
/// in sniffing order (for the message about a file nothing recognised).
pub fn json_tool_labels() -> Vec<&'static str> {
    READERS.iter().map(|r| r.label).collect()
}

/// The tools whose text (or XML) measurement files are read.
pub fn text_tool_labels() -> Vec<&'static str> {
    TEXT_READERS.iter().map(|r| r.label).collect()
}

/// The reader's name `name`, as the `&'static str` a [`MeasurementFile`]
/// carries (for the build cache).
pub fn format_named(name: &str) -> Option<&'static str> {
    let json = READERS.iter().map(|r| r.name);
    let text = TEXT_READERS.iter().map(|r| r.name);
    json.chain(text).find(|&n| n == name)
}

/// Recognises a measurement file by content (its first few kilobytes) and
/// reads it. `relative_path` is the file's path relative to the version
/// directory (`/`-separated; Criterion names its benchmarks by it). Gzip
/// must already be undone.
///
/// `None`: not a measurement file (let the profile readers try).
/// `Some(Err)`: it is one, but broken.
pub fn sniff_and_parse(
    relative_path: &str,
    bytes: &[u8],
) -> Option<Result<MeasurementFile, ParseError>> {
    let head = JsonHead::new(bytes, HEAD);
    let head = head.document();
    let opener = head.chars().next();
    if opener == Some('{') && looks_like_profile(head) {
        return None;
    }
    let json = READERS
        .iter()
        .find(|r| Some(r.opener) == opener && (r.sniff)(head));
    if let Some(reader) = json {
        return Some(parse_with(reader, relative_path, bytes));
    }
    if opener == Some('{') {
        return None;
    }
    let reader = TEXT_READERS.iter().find(|r| (r.sniff)(head))?;
    Some(parse_text_with(reader, bytes))
}

fn parse_text_with(reader: &TextReader, bytes: &[u8]) -> Result<MeasurementFile, ParseError> {
    let mut collected = Collected::default();
    (reader.read)(&decoded(bytes), &mut collected)?;
    collected.finish(reader.name)
}

/// Signatures of the JSON profile formats, which are never measurements.
fn looks_like_profile(head: &str) -> bool {
    has_key(head, "perfatlas")
        || has_key(head, "traceEvents")
        || has_key(head, "callFrame")
        || (has_key(head, "$schema") && head.contains("speedscope"))
        || (has_key(head, "shared") && has_key(head, "profiles"))
}

fn parse_with(
    reader: &Reader,
    relative_path: &str,
    bytes: &[u8],
) -> Result<MeasurementFile, ParseError> {
    if let Some(benchmarks) = reader.fast.and_then(|fast| fast(&decoded(bytes))) {
        return Collected::of(benchmarks).finish(reader.name);
    }
    let doc = parse_json(bytes)?;
    let mut collected = Collected::default();
    (reader.read)(&doc, relative_path, &mut collected)?;
    collected.finish(reader.name)
}

/// True for files that belong to a measurement tool's output but carry no
/// samples to read: the loader ignores them silently. These are Criterion's
/// files besides `new/sample.json`: `benchmark.json`, `estimates.json` and
/// `tukey.json`, the samples of saved baselines (`base/sample.json`, or any
/// `<baseline>/sample.json` under a `criterion` directory), `change/`, and
/// the `report/` pages (HTML and SVG).
///
/// Only Criterion's directory shape counts: a `benchmark.json` directly in a
/// version directory, or in a folder that is not `new`, `base` or `change`
/// outside a `criterion` directory, is an input like any other.
pub fn is_tool_byproduct(relative_path: &str) -> bool {
    let parts = components(relative_path);
    let Some((file, dirs)) = parts.split_last() else {
        return false;
    };
    if dirs.contains(&"report") && (file.ends_with(".html") || file.ends_with(".svg")) {
        return true;
    }
    let criterion_files = [
        "benchmark.json",
        "estimates.json",
        "tukey.json",
        "sample.json",
    ];
    let Some((&parent, above)) = dirs.split_last() else {
        return false;
    };
    if !criterion_files.contains(file) || above.is_empty() {
        return false;
    }
    if parent == "new" {
        return *file != "sample.json";
    }
    // Any other parent is a baseline (`base` unless `--save-baseline NAME`)
    // or `change`; outside `target/criterion` only the default names are
    // recognised.
    parent == "base" || parent == "change" || above.contains(&"criterion")
}

/// Writes benchmarks as perfatlas's measurement JSON (see
/// `docs/measurements-format.md`): deterministic, one benchmark per line,
/// in the given order. Meant for `perfatlas bisect --into`.
pub fn write_native(benchmarks: &[Measured]) -> String {
    native::to_json(benchmarks)
}

/// The non-empty path components of `path`, split at `/` and `\`.
fn components(path: &str) -> Vec<&str> {
    path.split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

/// Parses a whole file as JSON: UTF-8 or UTF-16 with a byte-order mark.
/// The bare `NaN`, `Infinity` and `-Infinity` that Python's `json` module
/// and Google Benchmark write are read as `null`, so they become warnings
/// at their place rather than a syntax error for the whole file.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Value, ParseError> {
    let data = decoded(bytes);
    let data = non_finite_as_null(&data);
    serde_json::from_str(&data).map_err(json_error)
}

/// The text of a file: UTF-8 or UTF-16 with a byte-order mark, the mark
/// left out.
fn decoded(bytes: &[u8]) -> Cow<'_, str> {
    match text::decode_text(bytes) {
        Cow::Borrowed(data) => Cow::Borrowed(data.trim_start_matches('\u{feff}')),
        Cow::Owned(data) => Cow::Owned(data.trim_start_matches('\u{feff}').to_string()),
    }
}

/// Replaces the tokens `NaN`, `-NaN`, `Infinity` and `-Infinity` outside
/// strings by `null` (lines stay where they were, so error places hold).
fn non_finite_as_null(data: &str) -> Cow<'_, str> {
    if !data.contains("NaN") && !data.contains("Infinity") {
        return Cow::Borrowed(data);
    }
    let mut out = String::with_capacity(data.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = data;
    while let Some(c) = rest.chars().next() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if let Some(token) = ["-Infinity", "Infinity", "-NaN", "NaN"]
            .into_iter()
            .find(|t| rest.starts_with(t))
        {
            out.push_str("null");
            rest = &rest[token.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The factor a time in `unit` is divided by to give seconds, for the
/// time units the tools write.
pub(crate) fn per_second(unit: &str) -> Option<f64> {
    match unit {
        "ns" | "nanoseconds" => Some(1e9),
        "us" | "µs" | "μs" | "microseconds" => Some(1e6),
        "ms" | "milliseconds" => Some(1e3),
        "s" | "seconds" => Some(1.0),
        _ => None,
    }
}

/// What a JSON value is, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn wrong_shape(value: &Value, path: &str, expected: &str) -> ParseError {
    ParseError::json(path, format!("expected {expected}, found {}", kind(value)))
}

pub(crate) fn object<'a>(
    value: &'a Value,
    path: &str,
) -> Result<&'a Map<String, Value>, ParseError> {
    value
        .as_object()
        .ok_or_else(|| wrong_shape(value, path, "an object"))
}

pub(crate) fn array<'a>(value: &'a Value, path: &str) -> Result<&'a [Value], ParseError> {
    value
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| wrong_shape(value, path, "an array"))
}

pub(crate) fn string<'a>(value: &'a Value, path: &str) -> Result<&'a str, ParseError> {
    value
        .as_str()
        .ok_or_else(|| wrong_shape(value, path, "a string"))
}

/// The value of a key that must be there.
pub(crate) fn required<'a>(
    object: &'a Map<String, Value>,
    path: &str,
    key: &str,
    what: &str,
) -> Result<&'a Value, ParseError> {
    object
        .get(key)
        .ok_or_else(|| ParseError::json(format!("{path}.{key}"), format!("missing: {what}")))
}

/// Most warnings listed for one file; the rest are counted in one more.
/// A file of millions of bad values must not become millions of messages.
const MAX_WARNINGS: usize = 100;

/// What a reader gathers: benchmarks (each with the place it came from: a
/// JSON path, or a line of a text format) in file order, and the parts it
/// left out.
#[derive(Default)]
struct Collected {
    /// Each benchmark with its place; none for those of the quick reader
    /// (`native_fast`), which reads every benchmark of the file in order:
    /// the place of the `i`th is `$.benchmarks[i]`, written out only for a
    /// warning (a history of 1,000 files × 2,000 benchmarks formatted two
    /// million paths for none).
    benchmarks: Vec<(Option<Place>, Measured)>,
    warnings: Vec<ParseError>,
    /// Warnings beyond [`MAX_WARNINGS`], counted only.
    unlisted: usize,
}

impl Collected {
    /// Every benchmark of a native file, in order, read without warnings.
    fn of(benchmarks: Vec<Measured>) -> Collected {
        Collected {
            benchmarks: benchmarks.into_iter().map(|m| (None, m)).collect(),
            ..Collected::default()
        }
    }

    /// A warning at a JSON path.
    fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.warn_at(Place::Json(path.into()), message);
    }

    fn warn_at(&mut self, place: Place, message: impl Into<String>) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(ParseError::new(place, message));
        } else {
            self.unlisted += 1;
        }
    }

    /// A sample in seconds (`per_second` from [`per_second`]; 1 for other
    /// units): a finite number, not negative. Anything else is a warning at
    /// `path`, and `None`.
    fn sample(&mut self, value: &Value, path: &str, per_second: f64) -> Option<f64> {
        let Some(v) = value.as_f64() else {
            let found = match value {
                Value::Null => "null (NaN or infinity?)",
                other => kind(other),
            };
            self.warn(
                path,
                format!("expected a number, found {found}; the sample is left out"),
            );
            return None;
        };
        let seconds = v / per_second;
        if !seconds.is_finite() {
            self.warn(path, format!("{v} is out of range; the sample is left out"));
            None
        } else if seconds < 0.0 {
            self.warn(path, format!("{v} is negative; the sample is left out"));
            None
        } else {
            // -0 is 0.
            Some(seconds + 0.0)
        }
    }

    /// Adds a run unless no sample of it was usable.
    fn run(&mut self, runs: &mut Vec<Vec<f64>>, samples: Vec<f64>, path: &str) {
        if samples.is_empty() {
            self.warn(path, "no usable samples; the run is left out");
        } else {
            runs.push(samples);
        }
    }

    /// A benchmark read at a JSON path.
    fn benchmark(&mut self, path: impl Into<String>, measured: Measured) {
        self.benchmark_at(Place::Json(path.into()), measured);
    }

    fn benchmark_at(&mut self, place: Place, measured: Measured) {
        self.benchmarks.push((Some(place), measured));
    }

    /// Merges benchmarks of the same name, leaves out those without runs
    /// (with a warning), and fails when nothing is left.
    fn finish(mut self, format: &'static str) -> Result<MeasurementFile, ParseError> {
        let mut benchmarks: Vec<Measured> = Vec::new();
        // Each name's benchmark, found by the name it holds (no copy of
        // every name as a key).
        let mut index: hashbrown::HashTable<usize> = hashbrown::HashTable::new();
        let hash = |name: &str| {
            use std::hash::BuildHasher;
            rustc_hash::FxBuildHasher.hash_one(name)
        };
        for (i, (place, m)) in std::mem::take(&mut self.benchmarks).into_iter().enumerate() {
            let place = || place.unwrap_or_else(|| Place::Json(format!("$.benchmarks[{i}]")));
            if m.runs.is_empty() {
                self.warn_at(
                    place(),
                    format!("{}: no usable runs; the benchmark is left out", m.name),
                );
                continue;
            }
            let found = index
                .find(hash(&m.name), |&b| benchmarks[b].name == m.name)
                .copied();
            match found {
                Some(b)
                    if benchmarks[b].unit == m.unit && benchmarks[b].in_process == m.in_process =>
                {
                    benchmarks[b].runs.extend(m.runs);
                    // An interval stands for one figure; joined runs have none.
                    benchmarks[b].interval = None;
                }
                Some(b) => self.warn_at(
                    place(),
                    format!(
                        "{}: listed again as {}, but first as {}; left out",
                        m.name,
                        describe(&m),
                        describe(&benchmarks[b])
                    ),
                ),
                None => {
                    let at = benchmarks.len();
                    index.insert_unique(hash(&m.name), at, |&b| hash(&benchmarks[b].name));
                    benchmarks.push(m);
                }
            }
        }
        let problems = self.warnings.len() + self.unlisted;
        if benchmarks.is_empty() {
            return Err(match self.warnings.first() {
                Some(first) => ParseError::new(
                    first.place.clone(),
                    format!(
                        "no usable measurements in the file ({problems} problem(s); the first: {})",
                        first.message
                    ),
                ),
                None => ParseError::whole("the file holds no benchmarks"),
            });
        }
        if self.unlisted > 0 {
            self.warnings.push(ParseError::whole(format!(
                "{} more problem(s) not listed ({problems} in all)",
                self.unlisted
            )));
        }
        Ok(MeasurementFile {
            format,
            benchmarks,
            warnings: self.warnings,
        })
    }
}

/// A benchmark's unit and kind of samples, for messages.
fn describe(m: &Measured) -> String {
    let kind = if m.in_process {
        "in-process samples"
    } else {
        "separate runs"
    };
    format!("{kind} in unit {:?}", m.unit)
}

/// Bytes of `tests/fixtures/measurements/REL`, files real tools wrote.
#[cfg(test)]
fn fixture(rel: &str) -> Vec<u8> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/measurements")
        .join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
