//! Repeated measurements of one benchmark in one version, as read from a
//! benchmark tool's output (hyperfine, Criterion, Google Benchmark,
//! pytest-benchmark, the native measurement JSON).

/// One file's measurements of one benchmark in one version.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasurementEntry {
    /// Index into [`super::History::versions`].
    pub version: usize,
    pub benchmark: String,
    /// `s` for any time (values are normalised to seconds), else the unit
    /// as the tool gave it.
    pub unit: String,
    /// One entry per independent run (a separate process); each holds the
    /// raw samples taken inside that run.
    pub runs: Vec<Vec<f64>>,
    /// Samples inside a run are in-process iterations (not independent).
    pub in_process: bool,
    /// Path relative to the input directory.
    pub source: String,
    /// The tool that wrote it, e.g. `hyperfine`.
    pub format: &'static str,
    /// Which figure was taken, in the reader's words.
    pub note: String,
}
