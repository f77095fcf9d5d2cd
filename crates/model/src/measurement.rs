//! Repeated measurements of one benchmark in one version, as read from a
//! benchmark tool's output (hyperfine, Criterion, Google Benchmark,
//! pytest-benchmark, the native measurement JSON), reduced to one mean per
//! run (see `input::measurements::reduced`).
//!
//! A long benchmark history has millions of entries and a few thousand
//! distinct names, units, notes and files, so those are shared, not copied
//! into every entry: names by `Arc` (one per benchmark), units, notes and
//! files [interned](super::intern) (copied per entry without a count).

use std::ops::Range;
use std::sync::Arc;

/// One benchmark's measurements: every file's entry of it, in (version,
/// file) order, as a build reads them. A long history's series are made
/// benchmark by benchmark, each freeing its entries as it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredBenchmark {
    /// As shown ([`super::visible()`]).
    pub name: Arc<str>,
    pub entries: Vec<MeasurementEntry>,
}

/// One file's measurements of one benchmark in one version.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasurementEntry {
    /// Index into [`super::History::versions`].
    pub version: usize,
    /// `s` for any time (values are normalised to seconds), else the unit
    /// as the tool gave it.
    pub unit: &'static str,
    /// The mean of each independent run's samples (a run is a separate
    /// process), in run order.
    pub run_means: RunMeans,
    /// Samples read in all, counting in-process ones.
    pub samples: u64,
    /// Samples inside a run are in-process iterations (not independent).
    pub in_process: bool,
    /// Some run holds more than one sample.
    pub multi_sample: bool,
    /// Path relative to the input directory.
    pub source: &'static str,
    /// The tool that wrote it, e.g. `hyperfine`.
    pub format: &'static str,
    /// Which figure was taken, in the reader's words.
    pub note: &'static str,
    /// The interval the tool recorded around its figure, when it gives
    /// one figure with its spread rather than the samples (boxed: few
    /// tools record one, and a long history has millions of entries).
    pub interval: Option<Box<Interval>>,
}

/// An interval a tool recorded around a figure it reports alone, in the
/// benchmark's unit (seconds for times): asv's 99% confidence interval of
/// its median, the `± range` a github-action-benchmark entry keeps. Two
/// versions whose intervals do not overlap differ, as `asv compare` reads
/// them; overlapping ones cannot be told apart.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// `low..=high` when both are finite and in order.
    pub fn new(low: f64, high: f64) -> Option<Interval> {
        (low.is_finite() && high.is_finite() && low <= high).then_some(Interval { low, high })
    }

    /// Both scaled by `factor` (a unit conversion; a positive factor).
    pub fn scaled(self, factor: f64) -> Option<Interval> {
        Interval::new(self.low * factor, self.high * factor)
    }

    /// The two intervals share a value.
    pub fn overlaps(&self, other: &Interval) -> bool {
        self.low <= other.high && other.low <= self.high
    }
}

/// Which way a metric improves: every verdict (regression or improvement)
/// and every category band follows it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Times, bytes, counts: a rise is a regression.
    #[default]
    Lower,
    /// Throughputs and scores: a drop is a regression.
    Higher,
}

impl Better {
    /// `higher` or `lower` (the configuration's words; anything else is
    /// `None`).
    pub fn parse(word: &str) -> Option<Better> {
        match word.trim().to_ascii_lowercase().as_str() {
            "lower" | "lower_is_better" | "smaller" => Some(Better::Lower),
            "higher" | "higher_is_better" | "bigger" | "larger" => Some(Better::Higher),
            _ => None,
        }
    }

    /// The direction a unit says by itself: a rate (`ops/s`, `MB/s`,
    /// `MiB/s`, `iter/sec`, `req/s`, `items per second`, `ops/ms`, `Hz`)
    /// or a named throughput or score is better higher; `None` for any
    /// other unit (times, bytes, counts), which are better lower unless a
    /// file or the configuration says otherwise.
    pub fn of_unit(unit: &str) -> Option<Better> {
        let u = unit.trim().to_ascii_lowercase();
        let per_time = [
            "s", "sec", "second", "seconds", "ms", "msec", "us", "µs", "ns", "min", "h",
        ];
        let rate = u
            .rsplit_once('/')
            .is_some_and(|(top, per)| !top.is_empty() && per_time.contains(&per.trim()))
            || u.rsplit_once(" per ")
                .is_some_and(|(_, per)| per_time.contains(&per.trim()));
        let named = [
            "throughput",
            "thrpt",
            "hz",
            "fps",
            "score",
            "ops",
            "qps",
            "rps",
            "tps",
        ];
        (rate || named.contains(&u.as_str())).then_some(Better::Higher)
    }

    /// `lower is better` / `higher is better`, for pages.
    pub fn describe(self) -> &'static str {
        match self {
            Better::Lower => "lower is better",
            Better::Higher => "higher is better",
        }
    }
}

/// The run means of one entry or one version: a part of an array that
/// several share (a file's run means), with its [`Moments`] taken when it
/// was made. Judging every version against the one before needs only the
/// moments, so a long history's values are read once, file by file, and
/// not again benchmark by benchmark. Kept small (48 bytes: the part's
/// bounds as 32-bit numbers, its size the part's length): a long history
/// holds millions.
#[derive(Clone)]
pub struct RunMeans {
    all: Arc<[f64]>,
    start: u32,
    end: u32,
    mean: f64,
    variance: f64,
    largest: f64,
}

impl RunMeans {
    /// The means at `range` in `all`; a range outside `all` holds none.
    /// A part whose bounds do not fit 32 bits is copied into an array of
    /// its own.
    pub fn new(all: Arc<[f64]>, range: Range<usize>) -> RunMeans {
        let Some(part) = all.get(range.clone()) else {
            return RunMeans::of_part(all, 0, 0);
        };
        match (u32::try_from(range.start), u32::try_from(range.end)) {
            (Ok(start), Ok(end)) => RunMeans::of_part(all, start, end),
            _ => {
                let own: Arc<[f64]> = part.into();
                let end = u32::try_from(own.len()).unwrap_or(u32::MAX);
                RunMeans::of_part(own, 0, end)
            }
        }
    }

    fn of_part(all: Arc<[f64]>, start: u32, end: u32) -> RunMeans {
        let m = Moments::of(&all[start as usize..end as usize]);
        RunMeans {
            all,
            start,
            end,
            mean: m.mean,
            variance: m.variance,
            largest: m.largest,
        }
    }

    pub fn as_slice(&self) -> &[f64] {
        &self.all[self.start as usize..self.end as usize]
    }

    pub fn moments(&self) -> Moments {
        Moments {
            n: (self.end - self.start) as usize,
            mean: self.mean,
            variance: self.variance,
            largest: self.largest,
        }
    }
}

impl std::ops::Deref for RunMeans {
    type Target = [f64];

    fn deref(&self) -> &[f64] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a RunMeans {
    type Item = &'a f64;
    type IntoIter = std::slice::Iter<'a, f64>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl std::fmt::Debug for RunMeans {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.as_slice().fmt(f)
    }
}

impl Default for RunMeans {
    fn default() -> RunMeans {
        Vec::new().into()
    }
}

impl From<Vec<f64>> for RunMeans {
    fn from(means: Vec<f64>) -> RunMeans {
        let range = 0..means.len();
        RunMeans::new(means.into(), range)
    }
}

impl PartialEq for RunMeans {
    fn eq(&self, other: &RunMeans) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl serde::Serialize for RunMeans {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

/// A sample's size, mean, variance and largest value: what summaries,
/// Welch's test and chart scales read of it. Every figure computed from a
/// sample goes through [`Moments::of`], so a figure is the same whether
/// the sample was read again or its moments kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    pub n: usize,
    /// `NaN` for no values.
    pub mean: f64,
    /// The sample variance (divided by n − 1, two passes for accuracy); 0
    /// below two values.
    pub variance: f64,
    /// −∞ for no values.
    pub largest: f64,
}

impl Moments {
    pub fn of(xs: &[f64]) -> Moments {
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let variance = if n < 2 {
            0.0
        } else {
            xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64
        };
        Moments {
            n,
            mean,
            variance,
            largest: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        }
    }
}
