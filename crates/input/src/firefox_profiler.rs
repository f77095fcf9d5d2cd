//! The Firefox Profiler's processed profile format: what
//! profiler.firefox.com saves ("Download" / "Upload"), what samply writes,
//! and what other tools write to be opened there:
//!
//! ```text
//! {"meta": {"preprocessedProfileVersion": N, "interval": ms, …},
//!  "threads": [{"name", "pid", "tid",
//!               "samples": {"stack": [i|null], "time": [ms] | "timeDeltas": [ms],
//!                           "weight"?: [n|null], "weightType"?: "samples"|"tracing-ms"|"bytes"},
//!               "stackTable": {"frame": [i], "prefix": [i|null]},
//!               "frameTable": {"func": [i], "line": [n|null]},
//!               "funcTable": {"name": [s], "fileName": [s|null], "lineNumber": [n|null],
//!                             "resource": [i]},
//!               "resourceTable": {"name": [s]},
//!               "stringArray": ["…"]}, …],
//!  "shared": {"stringArray": ["…"], "sources"?: {"filename": [s]}}}
//! ```
//!
//! Every table is columnar (one array per column, `length` rows); `i` is
//! an index into another table, `s` an index into the strings (the
//! thread's `stringArray`, or from version 56 on `shared.stringArray`;
//! from version 58 a function's file is `funcTable.source`, an index into
//! `shared.sources`). A table missing from a thread is looked up in
//! `shared`, where later versions may move it.
//!
//! What is read, for every version that has `meta.preprocessedProfileVersion`
//! (written against the layouts of versions 17 to 58): each thread's
//! samples and the stacks they name. A frame is its function (`funcTable`
//! name, file and `lineNumber` where it starts, its resource's name as the
//! module) at the frame's `line`, where it was executing; frames of one
//! function at different lines become one frame with per-line self costs
//! ([`model::fold_sampled_lines`]). Metrics follow `samples.weightType`:
//!
//! * `samples` (or none): `time`, each sample's weight (1 when `weight` is
//!   absent or null) times `meta.interval` — the Firefox Profiler's own
//!   "running time" of a call node — and `samples`, the weights summed;
//!   without a usable interval, `samples` alone;
//! * `tracing-ms`: `time`, the weights as milliseconds;
//! * `bytes`: `bytes`, the weights.
//!
//! Threads with samples of the first such thread's weight type are read;
//! one alone is the whole tree, several each sit under a frame naming the
//! thread (`GeckoMain (pid 4242, tid 4242)`, as the Chrome trace reader
//! does). Samples without a stack (`null`) are left out, as the profiler's
//! call tree leaves them out; a note counts them. The timeline is the
//! busiest thread's (most samples), from `time` or the running sum of
//! `timeDeltas` (version 50 on), when `meta.sampleUnits.time` is `ms`.
//!
//! Not read: markers, counters (memory, power, …), the JS tracer, JS
//! allocations and native allocations tables, screenshots, categories,
//! libraries and addresses (an unsymbolicated frame keeps its `0x…`
//! name), and `meta` beyond the interval and sample units.
//!
//! The Gecko profile format (what Firefox hands the profiler before
//! processing) and processed profiles older than the
//! `preprocessedProfileVersion` field (`meta.version` alone) are refused
//! with the version and how to upgrade them: open the file in
//! profiler.firefox.com and save it again.
//!
//! Indices are checked: a stack's prefix chain that loops, or any index
//! out of its table, is an error at its JSON path. Stacks are resolved
//! without recursion, so a deep one cannot overflow the thread's stack.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::cpuprofile::json_error;
use super::sniff::{has_key, JsonHead};
use super::{text, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, Metric, NodeId, Profile, Timeline, TimelineSample, Unit};

pub struct FirefoxProfiler;

/// How many bytes the sniff reads: a profile's `meta` (categories with
/// their subcategories, marker schemas) can run to kilobytes before the
/// version key.
const SNIFF_WINDOW: usize = 16 * 1024;

impl Format for FirefoxProfiler {
    fn name(&self) -> &'static str {
        "firefox-profiler"
    }

    fn sniff(&self, input: &Input) -> bool {
        let Some(head) = JsonHead::object(input.bytes, SNIFF_WINDOW) else {
            return false;
        };
        let doc = head.document();
        if !has_key(doc, "meta") {
            return false;
        }
        has_key(doc, "preprocessedProfileVersion") || opens_as_gecko_profile(doc)
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let data = data.trim_start_matches('\u{feff}');
        let file: File = serde_json::from_str(data).map_err(json_error)?;
        let meta = file
            .meta
            .ok_or_else(|| ParseError::json("$", "expected a `meta` object"))?;
        check_version(&meta)?;
        let threads = file
            .threads
            .ok_or_else(|| ParseError::json("$", "expected a `threads` array"))?;
        let shared = match file.shared {
            Some(raw) => serde_json::from_str(raw.get()).map_err(|e| at("$.shared".into(), e))?,
            None => Shared::default(),
        };
        build(&meta, &threads, &shared)
    }
}

/// A Gecko profile, or a processed one from before the version field:
/// the document's first key is `meta`, holding `version` and `interval`.
fn opens_as_gecko_profile(doc: &str) -> bool {
    let first_key = doc[1..].trim_start().starts_with("\"meta\"");
    first_key && has_key(doc, "version") && has_key(doc, "interval")
}

/// The file: its `meta`, its threads (read one by one, for their paths)
/// and the tables threads share.
#[derive(Deserialize)]
struct File<'a> {
    #[serde(default)]
    meta: Option<Meta>,
    #[serde(borrow, default)]
    threads: Option<Vec<&'a RawValue>>,
    #[serde(borrow, default)]
    shared: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    #[serde(default)]
    version: Option<serde_json::Value>,
    #[serde(default)]
    preprocessed_profile_version: Option<serde_json::Value>,
    #[serde(default)]
    interval: Option<serde_json::Value>,
    #[serde(default)]
    sample_units: Option<SampleUnits>,
}

#[derive(Deserialize)]
struct SampleUnits {
    #[serde(default)]
    time: Option<String>,
}

/// A column: one entry per row, an index, a number or null.
type Column = Vec<Option<f64>>;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Shared {
    #[serde(default)]
    string_array: Option<Vec<String>>,
    #[serde(default)]
    sources: Option<Sources>,
    #[serde(default)]
    stack_table: Option<StackTable>,
    #[serde(default)]
    frame_table: Option<FrameColumns>,
    #[serde(default)]
    func_table: Option<FuncTable>,
    #[serde(default)]
    resource_table: Option<ResourceTable>,
}

#[derive(Deserialize)]
struct Sources {
    #[serde(default, alias = "fileName")]
    filename: Option<Column>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Thread {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    pid: Option<serde_json::Value>,
    #[serde(default)]
    tid: Option<serde_json::Value>,
    #[serde(default)]
    samples: Option<Samples>,
    #[serde(default)]
    stack_table: Option<StackTable>,
    #[serde(default)]
    frame_table: Option<FrameColumns>,
    #[serde(default)]
    func_table: Option<FuncTable>,
    #[serde(default)]
    resource_table: Option<ResourceTable>,
    #[serde(default)]
    string_array: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Samples {
    #[serde(default)]
    stack: Column,
    #[serde(default)]
    time: Option<Column>,
    #[serde(default)]
    time_deltas: Option<Column>,
    #[serde(default)]
    weight: Option<Column>,
    #[serde(default)]
    weight_type: Option<String>,
}

#[derive(Deserialize)]
struct StackTable {
    #[serde(default)]
    frame: Column,
    #[serde(default)]
    prefix: Column,
}

#[derive(Deserialize)]
struct FrameColumns {
    #[serde(default)]
    func: Column,
    #[serde(default)]
    line: Option<Column>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FuncTable {
    #[serde(default)]
    name: Column,
    #[serde(default)]
    file_name: Option<Column>,
    #[serde(default)]
    source: Option<Column>,
    #[serde(default)]
    line_number: Option<Column>,
    #[serde(default)]
    resource: Option<Column>,
}

#[derive(Deserialize)]
struct ResourceTable {
    #[serde(default)]
    name: Option<Column>,
}

/// A JSON error inside the part at `path` (its line and column would count
/// from the part's own start, so they are left out).
fn at(path: String, e: serde_json::Error) -> ParseError {
    let full = e.to_string();
    let message = full.split(" at line ").next().unwrap_or(&full);
    ParseError::json(path, message.to_string())
}

/// Refuses the formats before `preprocessedProfileVersion`, saying how to
/// upgrade them.
fn check_version(meta: &Meta) -> Result<(), ParseError> {
    if let Some(v) = &meta.preprocessed_profile_version {
        if v.as_f64().is_some_and(|v| v.is_finite() && v >= 0.0) {
            return Ok(());
        }
        return Err(ParseError::json(
            "$.meta.preprocessedProfileVersion",
            format!("expected a version number, found {v}"),
        ));
    }
    let version = meta
        .version
        .as_ref()
        .map_or_else(|| "none".to_string(), |v| v.to_string());
    Err(ParseError::json(
        "$.meta",
        format!(
            "a Firefox profile in the Gecko format or an old processed format (meta.version {version}, \
             no preprocessedProfileVersion), which perfatlas does not read: open it in \
             profiler.firefox.com and save it again (Upload / Download) to get a current processed profile"
        ),
    ))
}

/// What a thread's samples are weighed in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Weight {
    Samples,
    TracingMs,
    Bytes,
}

impl Weight {
    fn of(name: Option<&str>) -> Option<Weight> {
        match name {
            None | Some("samples") => Some(Weight::Samples),
            Some("tracing-ms") => Some(Weight::TracingMs),
            Some("bytes") => Some(Weight::Bytes),
            Some(_) => None,
        }
    }

    fn metrics(self, interval_ns: Option<f64>) -> Vec<Metric> {
        match (self, interval_ns) {
            (Weight::Samples, Some(_)) => vec![
                Metric::new("time", Unit::Nanoseconds),
                Metric::new("samples", Unit::Samples),
            ],
            (Weight::Samples, None) => vec![Metric::new("samples", Unit::Samples)],
            (Weight::TracingMs, _) => vec![Metric::new("time", Unit::Nanoseconds)],
            (Weight::Bytes, _) => vec![Metric::new("bytes", Unit::Bytes)],
        }
    }

    /// The metric values of a sample of weight `w`.
    fn values(self, w: f64, interval_ns: Option<f64>, out: &mut Vec<f64>) {
        out.clear();
        match (self, interval_ns) {
            (Weight::Samples, Some(ns)) => out.extend([w * ns, w]),
            (Weight::Samples, None) | (Weight::Bytes, _) => out.push(w),
            (Weight::TracingMs, _) => out.push(w * 1e6),
        }
    }
}

/// One thread parsed, with where it sits in the file.
struct ThreadIn {
    index: usize,
    thread: Thread,
    weight: Weight,
}

fn build(meta: &Meta, raw: &[&RawValue], shared: &Shared) -> Result<Parsed, ParseError> {
    let interval_ns = meta
        .interval
        .as_ref()
        .and_then(|v| v.as_f64())
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(|ms| ms * 1e6);
    let timed = meta
        .sample_units
        .as_ref()
        .and_then(|u| u.time.as_deref())
        .is_none_or(|t| t == "ms");
    let mut threads = Vec::new();
    let mut notes = Vec::new();
    for (index, value) in raw.iter().enumerate() {
        let path = format!("$.threads[{index}]");
        let thread: Thread = serde_json::from_str(value.get()).map_err(|e| at(path.clone(), e))?;
        let Some(samples) = &thread.samples else {
            continue;
        };
        if samples.stack.iter().all(Option::is_none) {
            continue;
        }
        let weight = Weight::of(samples.weight_type.as_deref()).ok_or_else(|| {
            ParseError::json(
                format!("{path}.samples.weightType"),
                format!(
                    "unknown weight type {:?} (expected samples, tracing-ms or bytes)",
                    samples.weight_type.as_deref().unwrap_or_default()
                ),
            )
        })?;
        threads.push(ThreadIn {
            index,
            thread,
            weight,
        });
    }
    let Some(first) = threads.first().map(|t| t.weight) else {
        return Err(ParseError::whole(
            "the profile has no samples with a stack in any thread",
        ));
    };
    let other = threads.iter().filter(|t| t.weight != first).count();
    if other > 0 {
        notes.push(format!(
            "{other} thread(s) weigh their samples in another unit than the first thread and are not shown"
        ));
        threads.retain(|t| t.weight == first);
    }
    let mut out = Builder {
        frames: FrameTable::new(),
        profile: Profile::new(first.metrics(interval_ns)),
        weight: first,
        interval_ns,
        values: Vec::new(),
        without_stack: 0,
    };
    let busiest = busiest_thread(&threads);
    let several = threads.len() > 1;
    let labels = thread_labels(&threads);
    for (k, t) in threads.iter().enumerate() {
        let top = match several {
            true => {
                let frame = out.frames.intern(Frame::named(&labels[k]));
                out.profile.tree.child(NodeId::ROOT, frame)
            }
            false => NodeId::ROOT,
        };
        let keep_timeline = k == busiest && timed && first != Weight::Bytes;
        out.thread(t, shared, top, keep_timeline)?;
    }
    if several {
        notes.push(format!(
            "the profile holds {} threads with samples, each under a frame naming its thread; the timeline is the busiest one's",
            threads.len()
        ));
    }
    if out.without_stack > 0 {
        notes.push(format!(
            "{} sample(s) without a stack are not shown",
            out.without_stack
        ));
    }
    if first == Weight::Samples && interval_ns.is_none() {
        notes.push("the profile gives no sampling interval (meta.interval): samples are counted, not timed".into());
    }
    out.profile.notes.extend(notes);
    let (frames, profile) = model::fold_sampled_lines(out.frames, out.profile);
    Ok(Parsed::new(frames, profile))
}

/// The index (among `threads`) of the one with most samples with a stack.
fn busiest_thread(threads: &[ThreadIn]) -> usize {
    let count = |t: &ThreadIn| {
        t.thread
            .samples
            .as_ref()
            .map_or(0, |s| s.stack.iter().flatten().count())
    };
    let mut best = 0;
    for (k, t) in threads.iter().enumerate() {
        if count(t) > count(&threads[best]) {
            best = k;
        }
    }
    best
}

/// `GeckoMain (pid 4242, tid 4243)`: the thread's name and ids, as far as
/// the file gives them.
fn thread_labels(threads: &[ThreadIn]) -> Vec<String> {
    threads
        .iter()
        .map(|t| {
            let name = t
                .thread
                .name
                .clone()
                .unwrap_or_else(|| format!("thread {}", t.index));
            let ids: Vec<String> = [("pid", &t.thread.pid), ("tid", &t.thread.tid)]
                .into_iter()
                .filter_map(|(key, v)| v.as_ref().map(|v| format!("{key} {}", id_text(v))))
                .collect();
            match ids.is_empty() {
                true => name,
                false => format!("{name} ({})", ids.join(", ")),
            }
        })
        .collect()
}

/// A pid or tid as written: a string without its quotes.
fn id_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The tables one thread's stacks are read from: its own, else the
/// shared ones.
struct Tables<'a> {
    path: String,
    strings: &'a [String],
    strings_path: &'static str,
    stacks: &'a StackTable,
    frames: &'a FrameColumns,
    funcs: &'a FuncTable,
    resources: Option<&'a ResourceTable>,
    sources: Option<&'a Sources>,
}

impl<'a> Tables<'a> {
    fn of(t: &'a ThreadIn, shared: &'a Shared) -> Result<Tables<'a>, ParseError> {
        let path = format!("$.threads[{}]", t.index);
        let th = &t.thread;
        let missing = |table: &str| {
            ParseError::json(
                path.clone(),
                format!("no `{table}` (neither in the thread nor in `shared`)"),
            )
        };
        let (strings, strings_path) = match (&th.string_array, &shared.string_array) {
            (Some(s), _) => (s.as_slice(), "stringArray"),
            (None, Some(s)) => (s.as_slice(), "$.shared.stringArray"),
            (None, None) => return Err(missing("stringArray")),
        };
        Ok(Tables {
            strings,
            strings_path,
            stacks: th
                .stack_table
                .as_ref()
                .or(shared.stack_table.as_ref())
                .ok_or_else(|| missing("stackTable"))?,
            frames: th
                .frame_table
                .as_ref()
                .or(shared.frame_table.as_ref())
                .ok_or_else(|| missing("frameTable"))?,
            funcs: th
                .func_table
                .as_ref()
                .or(shared.func_table.as_ref())
                .ok_or_else(|| missing("funcTable"))?,
            resources: th
                .resource_table
                .as_ref()
                .or(shared.resource_table.as_ref()),
            sources: shared.sources.as_ref(),
            path,
        })
    }

    /// The string at index `i` of `column[row]`, checked.
    fn string(
        &self,
        column: &Column,
        row: usize,
        place: &str,
    ) -> Result<Option<&'a str>, ParseError> {
        let Some(Some(v)) = column.get(row) else {
            return Ok(None);
        };
        let i = index(*v, self.strings.len()).ok_or_else(|| {
            ParseError::json(
                format!("{}.{place}[{row}]", self.path),
                format!(
                    "string index {v} is out of range ({} has {} strings)",
                    self.strings_path,
                    self.strings.len()
                ),
            )
        })?;
        Ok(Some(self.strings[i].as_str()))
    }

    /// The frame of `frameTable` row `row`.
    fn frame(&self, row: usize) -> Result<Frame, ParseError> {
        let func = self.frames.func.get(row).copied().flatten();
        let func = func
            .and_then(|f| index(f, self.funcs.name.len()))
            .ok_or_else(|| {
                ParseError::json(
                    format!("{}.frameTable.func[{row}]", self.path),
                    format!(
                        "function index {} is out of range (funcTable has {} rows)",
                        number_text(func),
                        self.funcs.name.len()
                    ),
                )
            })?;
        let name = self
            .string(&self.funcs.name, func, "funcTable.name")?
            .unwrap_or("(unnamed)");
        let start_line = self.funcs.line_number.as_ref().and_then(|l| line(l, func));
        let executing = self.frames.line.as_ref().and_then(|l| line(l, row));
        Ok(Frame {
            function: name.to_string(),
            file: self.file(func)?,
            line: executing.or(start_line),
            start_line,
            module: self.module(func)?,
            ..Frame::default()
        })
    }

    /// A function's file: `fileName`, or (version 58 on) its source's.
    fn file(&self, func: usize) -> Result<Option<String>, ParseError> {
        if let Some(names) = &self.funcs.file_name {
            return Ok(self
                .string(names, func, "funcTable.fileName")?
                .map(str::to_string));
        }
        let (Some(source), Some(Some(names))) = (
            &self.funcs.source,
            self.sources.map(|s| s.filename.as_ref()),
        ) else {
            return Ok(None);
        };
        let Some(Some(s)) = source.get(func) else {
            return Ok(None);
        };
        let s = index(*s, names.len()).ok_or_else(|| {
            ParseError::json(
                format!("{}.funcTable.source[{func}]", self.path),
                format!(
                    "source index {s} is out of range (shared.sources has {} rows)",
                    names.len()
                ),
            )
        })?;
        Ok(self
            .string(names, s, "$.shared.sources.filename")?
            .map(str::to_string))
    }

    /// The name of a function's resource (its library or script host).
    fn module(&self, func: usize) -> Result<Option<String>, ParseError> {
        let (Some(resource), Some(Some(names))) = (
            &self.funcs.resource,
            self.resources.map(|r| r.name.as_ref()),
        ) else {
            return Ok(None);
        };
        // -1 (no resource) and anything outside the table name none.
        let Some(r) = resource
            .get(func)
            .copied()
            .flatten()
            .and_then(|r| index(r, names.len()))
        else {
            return Ok(None);
        };
        Ok(self
            .string(names, r, "resourceTable.name")?
            .map(str::to_string))
    }
}

/// A 1-based line, when the column has one there.
fn line(column: &Column, row: usize) -> Option<u32> {
    column
        .get(row)
        .copied()
        .flatten()
        .filter(|l| l.is_finite() && *l >= 1.0 && *l <= f64::from(u32::MAX))
        .map(|l| l as u32)
}

/// `v` as an index into a table of `len` rows.
fn index(v: f64, len: usize) -> Option<usize> {
    (v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < len as f64).then_some(v as usize)
}

fn number_text(v: Option<f64>) -> String {
    v.map_or_else(|| "null".to_string(), |v| v.to_string())
}

/// The profile being built, thread by thread.
struct Builder {
    frames: FrameTable,
    profile: Profile,
    weight: Weight,
    interval_ns: Option<f64>,
    values: Vec<f64>,
    without_stack: usize,
}

impl Builder {
    /// Adds a thread's samples under `top`.
    fn thread(
        &mut self,
        t: &ThreadIn,
        shared: &Shared,
        top: NodeId,
        keep_timeline: bool,
    ) -> Result<(), ParseError> {
        let tables = Tables::of(t, shared)?;
        let Some(samples) = &t.thread.samples else {
            return Ok(());
        };
        let n = samples.stack.len();
        let path = &tables.path;
        if let Some(w) = &samples.weight {
            check_len(w.len(), n, &format!("{path}.samples.weight"))?;
        }
        let times = if keep_timeline {
            sample_times(samples, n, path)?
        } else {
            None
        };
        let mut stacks = StackNodes::new(tables.stacks.frame.len(), tables.frames.func.len());
        let mut timeline = Vec::new();
        for (k, stack) in samples.stack.iter().enumerate() {
            let Some(stack) = stack else {
                self.without_stack += 1;
                continue;
            };
            let node = stacks.node(*stack, k, top, &tables, self)?;
            let w = sample_weight(samples, k, path)?;
            self.weight.values(w, self.interval_ns, &mut self.values);
            for (m, v) in self.values.iter().enumerate() {
                self.profile.tree.add_self(node, m, *v);
            }
            if let Some(times) = &times {
                timeline.push(TimelineSample {
                    start_ns: (times[k] - times[0]) * 1e6,
                    duration_ns: self.interval_ns.unwrap_or(0.0),
                    node,
                });
            }
        }
        if keep_timeline && !timeline.is_empty() {
            self.profile.timeline = Some(Timeline { samples: timeline });
        }
        Ok(())
    }
}

fn check_len(len: usize, n: usize, path: &str) -> Result<(), ParseError> {
    if len == n {
        return Ok(());
    }
    Err(ParseError::json(
        path,
        format!("has {len} entries but `samples.stack` has {n}"),
    ))
}

/// A sample's weight: its `weight` entry, 1 when there is none.
fn sample_weight(samples: &Samples, k: usize, path: &str) -> Result<f64, ParseError> {
    let Some(Some(w)) = samples.weight.as_ref().map(|w| w.get(k).copied().flatten()) else {
        return Ok(1.0);
    };
    if w.is_finite() && w >= 0.0 {
        return Ok(w);
    }
    Err(ParseError::json(
        format!("{path}.samples.weight[{k}]"),
        "weight is not a non-negative number",
    ))
}

/// Each sample's time in milliseconds, from `time` or the running sum of
/// `timeDeltas`; `None` when the thread has neither.
fn sample_times(samples: &Samples, n: usize, path: &str) -> Result<Option<Vec<f64>>, ParseError> {
    let (column, deltas, name) = match (&samples.time, &samples.time_deltas) {
        (Some(t), _) => (t, false, "time"),
        (None, Some(d)) => (d, true, "timeDeltas"),
        (None, None) => return Ok(None),
    };
    check_len(column.len(), n, &format!("{path}.samples.{name}"))?;
    let mut times = Vec::with_capacity(n);
    let mut now = 0.0;
    for (k, v) in column.iter().enumerate() {
        let v = v.filter(|v| v.is_finite()).ok_or_else(|| {
            ParseError::json(format!("{path}.samples.{name}[{k}]"), "not a number")
        })?;
        now = if deltas { now + v } else { v };
        times.push(now);
    }
    Ok(Some(times))
}

/// The tree node of each stack and the frame of each frame row of one
/// thread, resolved once.
struct StackNodes {
    nodes: Vec<Option<NodeId>>,
    frames: Vec<Option<FrameId>>,
    chain: Vec<usize>,
}

impl StackNodes {
    fn new(stacks: usize, frames: usize) -> StackNodes {
        StackNodes {
            nodes: vec![None; stacks],
            frames: vec![None; frames],
            chain: Vec::new(),
        }
    }

    /// The node of stack `stack` (sample `k`'s): its prefix chain walked up
    /// to a resolved stack or a root, then made from the top down.
    fn node(
        &mut self,
        stack: f64,
        k: usize,
        top: NodeId,
        tables: &Tables,
        out: &mut Builder,
    ) -> Result<NodeId, ParseError> {
        let len = self.nodes.len();
        let first = index(stack, len).ok_or_else(|| {
            ParseError::json(
                format!("{}.samples.stack[{k}]", tables.path),
                format!("stack index {stack} is out of range (stackTable has {len} rows)"),
            )
        })?;
        self.chain.clear();
        let mut at = Some(first);
        let mut parent = top;
        while let Some(s) = at {
            if let Some(node) = self.nodes[s] {
                parent = node;
                break;
            }
            if self.chain.len() >= len {
                return Err(ParseError::json(
                    format!("{}.stackTable.prefix[{s}]", tables.path),
                    "the stack's prefixes form a cycle",
                ));
            }
            self.chain.push(s);
            at = prefix(tables, s, len)?;
        }
        while let Some(s) = self.chain.pop() {
            let frame = self.frame_of(tables, s, out)?;
            parent = out.profile.tree.child(parent, frame);
            self.nodes[s] = Some(parent);
        }
        Ok(parent)
    }

    /// The frame of stack row `s`.
    fn frame_of(
        &mut self,
        tables: &Tables,
        s: usize,
        out: &mut Builder,
    ) -> Result<FrameId, ParseError> {
        let row = tables.stacks.frame.get(s).copied().flatten();
        let row = row
            .and_then(|f| index(f, self.frames.len()))
            .ok_or_else(|| {
                ParseError::json(
                    format!("{}.stackTable.frame[{s}]", tables.path),
                    format!(
                        "frame index {} is out of range (frameTable has {} rows)",
                        number_text(row),
                        self.frames.len()
                    ),
                )
            })?;
        if let Some(id) = self.frames[row] {
            return Ok(id);
        }
        let id = out.frames.intern(tables.frame(row)?);
        self.frames[row] = Some(id);
        Ok(id)
    }
}

/// Stack `s`'s prefix, checked; `None` for a root.
fn prefix(tables: &Tables, s: usize, len: usize) -> Result<Option<usize>, ParseError> {
    match tables.stacks.prefix.get(s).copied().flatten() {
        None => Ok(None),
        Some(p) => index(p, len).map(Some).ok_or_else(|| {
            ParseError::json(
                format!("{}.stackTable.prefix[{s}]", tables.path),
                format!("prefix {p} is out of range (stackTable has {len} rows)"),
            )
        }),
    }
}

#[cfg(test)]
mod tests;
