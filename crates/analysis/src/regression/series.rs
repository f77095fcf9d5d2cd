//! A benchmark's series: its points (one per version with figures) from
//! the measurement files or the profile totals, and which way it improves.

use super::*;

/// Where a series' figures come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// Measurement files written by benchmark tools.
    Measurements { formats: Vec<String> },
    /// One value per profile repetition: the profile's total of `metric`.
    ProfileTotals { metric: String },
}

impl Origin {
    pub fn describe(&self) -> String {
        match self {
            Origin::Measurements { formats } => format!("measurements ({})", formats.join(", ")),
            Origin::ProfileTotals { metric } => {
                format!("profile totals ({metric}), one per repetition")
            }
        }
    }
}

/// One version's figures for one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// Index into the history's versions.
    pub version: usize,
    /// One value per independent run (the mean of the run's samples).
    pub values: RunMeans,
    /// Samples read in all, counting in-process ones.
    pub samples: usize,
    /// Some run holds several in-process samples.
    pub in_process: bool,
    /// The interval the tool recorded around a figure it gave alone
    /// (asv's 99% confidence interval), when one file gave this point
    /// (boxed: few tools record one, and a long history has millions of
    /// points).
    pub interval: Option<Box<Interval>>,
    /// Files the figures came from.
    pub sources: Names,
    /// Readers' notes on which figure was taken.
    pub notes: Names,
}

/// A point's files, or its notes: almost always one, held without an
/// allocation of its own (a long history has millions of points).
#[derive(Clone, PartialEq, Default)]
pub enum Names {
    #[default]
    None,
    One(&'static str),
    Many(Box<[&'static str]>),
}

impl From<Vec<&'static str>> for Names {
    fn from(mut names: Vec<&'static str>) -> Names {
        match names.len() {
            0 => Names::None,
            1 => Names::One(names.remove(0)),
            _ => Names::Many(names.into()),
        }
    }
}

impl std::ops::Deref for Names {
    type Target = [&'static str];

    fn deref(&self) -> &[&'static str] {
        match self {
            Names::None => &[],
            Names::One(name) => std::slice::from_ref(name),
            Names::Many(names) => names,
        }
    }
}

impl std::fmt::Debug for Names {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for Names {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl Point {
    /// The mean of the version's runs; `None` when it has none.
    pub fn mean(&self) -> Option<f64> {
        let m = self.values.moments();
        (m.n > 0).then_some(m.mean)
    }

    /// The version's summary at `confidence`, from the moments its runs
    /// were read with (not kept: a long history has millions of points,
    /// and a page reads the summaries of a few).
    pub fn summary(&self, confidence: f64) -> Option<Summary> {
        stats::summary_of(&self.values.moments(), confidence)
    }
}

/// A benchmark's points in version order (versions without data left out).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    pub benchmark: String,
    /// `s` for times (seconds), else the unit's name.
    pub unit: String,
    pub origin: Origin,
    /// Which way the figure improves.
    pub better: Better,
    pub points: Vec<Point>,
}

impl Series {
    /// Points are in version order, so a version's point is found by
    /// binary search.
    pub(crate) fn point_of(&self, version: usize) -> Option<&Point> {
        let i = self
            .points
            .binary_search_by_key(&version, |p| p.version)
            .ok()?;
        Some(&self.points[i])
    }

    /// The mean of a version's runs, when it has figures.
    pub fn mean_at(&self, version: usize) -> Option<f64> {
        self.point_of(version)?.mean()
    }
}

/// Every benchmark's series: from its measurement files when it has any,
/// else from its profiles' totals. In benchmark-name order, built in
/// parallel.
pub fn series(history: &History, config: &RegressionConfig) -> Vec<Series> {
    let config = Config {
        regressions: config.clone(),
        ..Config::default()
    };
    series_named(history, &config)
}

/// [`series()`], measured benchmarks shown under their configured
/// `display` names (`[[benchmarks]]`), in name order, each with its
/// direction ([`direction_of`]).
pub fn series_named(history: &History, settings: &Config) -> Vec<Series> {
    let measured = measured_of(history, &history.measurements);
    named(history, measured, settings)
}

/// [`series_named()`], taking the history's measurements (it keeps none):
/// each benchmark's entries are moved into its points and freed as its
/// series is made, so a long history never holds its entries and its
/// series' points at once (at 2,000 benchmarks x 1,000 versions the two
/// were most of a build's memory).
pub fn take_series(history: &mut History, settings: &Config) -> Vec<Series> {
    let mut taken = in_series_order(std::mem::take(&mut history.measurements));
    let history = &*history;
    // In batches, their freed entries given back before the next: the
    // threads that make the points free entries another thread allocated,
    // whose room they would not reuse.
    let batch = taken.len().div_ceil(TAKEN_BATCHES).max(1);
    let mut measured = Vec::with_capacity(taken.len());
    while !taken.is_empty() {
        let last = taken.split_off(taken.len().saturating_sub(batch));
        measured.par_extend(
            last.into_par_iter()
                .filter_map(|b| owned_series(history, b)),
        );
        instrument::memory::release_free();
    }
    named(history, measured, settings)
}

/// How many batches [`take_series`] makes a history's series in.
const TAKEN_BATCHES: usize = 16;

/// `measured` in the order a build gathers it: names in order, each once
/// (a name given twice has its parts joined in the order given), each
/// benchmark's entries in version order (a version's keep theirs).
fn in_series_order(mut measured: Vec<MeasuredBenchmark>) -> Vec<MeasuredBenchmark> {
    if !measured.is_sorted_by(|a, b| a.name < b.name) {
        // Stable, so the parts of one name stay in the order given.
        measured.sort_by(|a, b| a.name.cmp(&b.name));
        measured.dedup_by(|later, kept| {
            let same = later.name == kept.name;
            if same {
                kept.entries.append(&mut later.entries);
            }
            same
        });
    }
    for benchmark in &mut measured {
        if !benchmark.entries.is_sorted_by_key(|e| e.version) {
            benchmark.entries.sort_by_key(|e| e.version);
        }
    }
    measured
}

/// The series of the benchmarks measured in `measured`, each from its
/// entries in history order (a name given twice is one benchmark), built
/// in parallel.
fn measured_of(history: &History, measured: &[MeasuredBenchmark]) -> Vec<Series> {
    let mut by_name: FxHashMap<&str, Vec<&MeasurementEntry>> = FxHashMap::default();
    for benchmark in measured {
        by_name
            .entry(&benchmark.name)
            .or_default()
            .extend(&benchmark.entries);
    }
    by_name
        .into_par_iter()
        .filter_map(|(name, entries)| measured_series(history, name, &entries))
        .collect()
}

/// The series of one benchmark from its entries, given in version order,
/// each moved into its point: a version that one file measured, as almost
/// all are, takes the entry's figures, file and note as they are.
fn owned_series(history: &History, measured: MeasuredBenchmark) -> Option<Series> {
    let entries = measured.entries;
    let unit = entries.first()?.unit;
    let formats = formats_of(entries.iter().map(|e| e.format));
    let versions = entries.chunk_by(|a, b| a.version == b.version).count();
    let points = if versions == entries.len() {
        points_in_place(history, entries, unit)
    } else {
        points_joined(history, entries, unit, versions)
    };
    Some(Series {
        benchmark: measured.name.to_string(),
        unit: unit.to_string(),
        origin: Origin::Measurements { formats },
        better: Better::Lower,
        points,
    })
}

/// The tools that wrote a benchmark's entries, each once, sorted.
fn formats_of(formats: impl Iterator<Item = &'static str>) -> Vec<String> {
    let mut formats: Vec<&str> = formats.collect();
    formats.sort_unstable();
    formats.dedup();
    formats.into_iter().map(str::to_string).collect()
}

/// The points of entries of one version each, made where the entries
/// were: a point is no larger than an entry, so the standard library's
/// in-place collection reuses the entries' memory rather than asking for
/// (and faulting in) as much again; the tail a point leaves unused is
/// given back.
fn points_in_place(history: &History, entries: Vec<MeasurementEntry>, unit: &str) -> Vec<Point> {
    // What the standard library needs to collect in place; a point grown
    // past an entry would silently double this phase's memory.
    const _: () = assert!(
        size_of::<Point>() <= size_of::<MeasurementEntry>()
            && align_of::<Point>() == align_of::<MeasurementEntry>()
    );
    let mut points: Vec<Point> = entries
        .into_iter()
        .filter_map(|entry| point_of_entry(history, entry, unit))
        .collect();
    points.shrink_to_fit();
    points
}

/// The points of entries in version order, the entries of a version that
/// several files measured joined into one point.
fn points_joined(
    history: &History,
    entries: Vec<MeasurementEntry>,
    unit: &str,
    versions: usize,
) -> Vec<Point> {
    let mut points = Vec::with_capacity(versions);
    let mut entries = entries.into_iter().peekable();
    let mut here: Vec<MeasurementEntry> = Vec::new();
    while let Some(entry) = entries.next() {
        let last_of_version = entries.peek().is_none_or(|n| n.version != entry.version);
        if here.is_empty() && last_of_version {
            points.extend(point_of_entry(history, entry, unit));
            continue;
        }
        here.push(entry);
        if last_of_version {
            let refs: Vec<&MeasurementEntry> = here.iter().collect();
            points.extend(measured_point(history, &refs, unit));
            here.clear();
        }
    }
    points
}

/// The point of a version that one entry measured, when in `unit`: what
/// [`measured_point`] makes of one entry, moved rather than copied.
fn point_of_entry(history: &History, entry: MeasurementEntry, unit: &str) -> Option<Point> {
    if entry.version >= history.versions.len() || entry.unit != unit {
        return None;
    }
    Some(Point {
        version: entry.version,
        values: entry.run_means,
        samples: entry.samples as usize,
        in_process: entry.in_process && entry.multi_sample,
        interval: entry.interval,
        sources: Names::One(entry.source),
        notes: match entry.note.is_empty() {
            true => Names::None,
            false => Names::One(entry.note),
        },
    })
}

/// `measured` and the series of the benchmarks only profiled, directed
/// and named as configured, in name order.
fn named(history: &History, measured: Vec<Series>, settings: &Config) -> Vec<Series> {
    let (config, configured) = (&settings.regressions, &settings.benchmarks[..]);
    let profiled = group_by_benchmark(history.profiles.iter(), |p| &p.benchmark);
    let have: rustc_hash::FxHashSet<&str> = measured.iter().map(|s| s.benchmark.as_str()).collect();
    let only_profiled: Vec<(&str, &Vec<&ProfileEntry>)> = profiled
        .iter()
        .filter(|(name, _)| !have.contains(*name))
        .map(|(name, entries)| (*name, entries))
        .collect();
    let from_profiles: Vec<Series> = only_profiled
        .into_par_iter()
        .filter_map(|(name, entries)| profile_series(history, name, entries, config))
        .collect();
    drop(have);
    let mut all = measured;
    all.extend(from_profiles);
    // Names are unique, so this is the order of their names.
    all.sort_unstable_by(|a, b| a.benchmark.cmp(&b.benchmark));
    let shown = |b: &str| {
        names_of(b, configured)
            .and_then(|c| c.display.clone())
            .filter(|d| !d.is_empty())
    };
    let mut renamed = false;
    for s in &mut all {
        s.better = direction_of(s, settings);
        if let Some(d) = shown(&s.benchmark) {
            s.benchmark = d;
            renamed = true;
        }
    }
    if renamed {
        all.sort_by(|a, b| a.benchmark.cmp(&b.benchmark));
    }
    all
}

/// Which way a series improves: as `[metrics.NAME] direction` says for
/// its benchmark, profile metric or unit, else as its unit says (rates and
/// scores are better higher), else lower.
pub fn direction_of(series: &Series, config: &Config) -> Better {
    let metric = match &series.origin {
        Origin::ProfileTotals { metric } => Some(metric.as_str()),
        Origin::Measurements { .. } => None,
    };
    let unit_of_name = series
        .benchmark
        .strip_suffix(')')
        .and_then(|b| b.rsplit_once(" ("))
        .map(|(_, unit)| unit);
    let names = [
        Some(series.benchmark.as_str()),
        metric,
        unit_of_name,
        Some(series.unit.as_str()),
    ];
    config
        .direction_of(names.into_iter().flatten())
        .or_else(|| Better::of_unit(&series.unit))
        .or_else(|| unit_of_name.and_then(Better::of_unit))
        .unwrap_or_default()
}

/// The `[[benchmarks]]` entry of benchmark `name`, by its read name.
pub fn names_of<'a>(name: &str, config: &'a [BenchmarkConfig]) -> Option<&'a BenchmarkConfig> {
    config.iter().find(|c| c.name == name)
}

/// The items of each benchmark, in the order given.
fn group_by_benchmark<'a, T>(
    items: impl Iterator<Item = &'a T>,
    name: impl Fn(&'a T) -> &'a String,
) -> FxHashMap<&'a str, Vec<&'a T>> {
    let mut groups: FxHashMap<&str, Vec<&T>> = FxHashMap::default();
    for item in items {
        groups.entry(name(item).as_str()).or_default().push(item);
    }
    groups
}

/// `entries` (one benchmark's, in history order) grouped by version, in
/// version order; within a version, in history order.
fn by_version<'a, T>(entries: &[&'a T], version: impl Fn(&T) -> usize) -> Vec<Vec<&'a T>> {
    let mut sorted = entries.to_vec();
    sorted.sort_by_key(|e| version(e));
    sorted
        .chunk_by(|a, b| version(a) == version(b))
        .map(<[&T]>::to_vec)
        .collect()
}

fn measured_series(
    history: &History,
    benchmark: &str,
    entries: &[&MeasurementEntry],
) -> Option<Series> {
    let unit = entries.first()?.unit;
    let formats = formats_of(entries.iter().map(|m| m.format));
    let mut sorted;
    let entries = if entries.windows(2).all(|w| w[0].version <= w[1].version) {
        entries
    } else {
        sorted = entries.to_vec();
        sorted.sort_by_key(|m| m.version);
        &sorted[..]
    };
    // Sized to the versions (a long history's points are most of the
    // analysis' memory: a growing vector would hold up to twice them).
    let mut points = Vec::with_capacity(entries.chunk_by(|a, b| a.version == b.version).count());
    points.extend(
        entries
            .chunk_by(|a, b| a.version == b.version)
            .filter_map(|here| measured_point(history, here, unit)),
    );
    Some(Series {
        benchmark: benchmark.to_string(),
        unit: unit.to_string(),
        origin: Origin::Measurements { formats },
        better: Better::Lower,
        points,
    })
}

/// The point of one version from its entries (of one benchmark), counting
/// only those in `unit`.
fn measured_point(history: &History, here: &[&MeasurementEntry], unit: &str) -> Option<Point> {
    let version = here.first()?.version;
    if version >= history.versions.len() {
        return None;
    }
    let in_unit = || here.iter().filter(|m| m.unit == unit);
    let first = in_unit().next()?;
    // One file's runs are shared as they are, with the moments taken
    // when the file was read; several files' runs are joined.
    let values: RunMeans = if here.len() == 1 {
        first.run_means.clone()
    } else {
        in_unit()
            .flat_map(|m| m.run_means.iter().copied())
            .collect::<Vec<f64>>()
            .into()
    };
    let mut notes: Vec<&'static str> = in_unit()
        .filter(|m| !m.note.is_empty())
        .map(|m| m.note)
        .collect();
    notes.sort();
    notes.dedup();
    Some(Point {
        version,
        values,
        samples: in_unit().map(|m| m.samples as usize).sum(),
        interval: if here.len() == 1 {
            first.interval.clone()
        } else {
            None
        },
        in_process: in_unit().any(|m| m.in_process) && in_unit().any(|m| m.multi_sample),
        sources: sources_of(here, unit),
        notes: notes.into(),
    })
}

/// The files of a point's entries in `unit`.
fn sources_of(here: &[&MeasurementEntry], unit: &str) -> Names {
    let mut in_unit = here.iter().filter(|m| m.unit == unit);
    match (in_unit.next(), in_unit.next()) {
        (None, _) => Names::None,
        (Some(only), None) => Names::One(only.source),
        _ => Names::Many(
            here.iter()
                .filter(|m| m.unit == unit)
                .map(|m| m.source)
                .collect(),
        ),
    }
}

fn profile_series(
    history: &History,
    benchmark: &str,
    entries: &[&ProfileEntry],
    config: &RegressionConfig,
) -> Option<Series> {
    let first = entries.first()?;
    let metric_name = config.metric.clone().unwrap_or_else(|| {
        first
            .profile
            .metrics
            .first()
            .map(|m| m.name.clone())
            .unwrap_or_default()
    });
    let metric = first
        .profile
        .metrics
        .iter()
        .find(|m| m.name == metric_name)?
        .clone();
    let (unit, scale) = match metric.unit {
        Unit::Nanoseconds => ("s".to_string(), 1e-9),
        ref other => (other.name().to_string(), 1.0),
    };
    let mut points = Vec::new();
    for here in by_version(entries, |p| p.version) {
        let version = here[0].version;
        if version >= history.versions.len() {
            continue;
        }
        let mut values = Vec::new();
        let mut sources = Vec::new();
        for entry in here {
            let Some(m) = entry.profile.metrics.iter().position(|x| *x == metric) else {
                continue;
            };
            values.push(entry.profile.tree.total(m) * scale);
            sources.push(model::intern(&entry.source));
        }
        if values.is_empty() {
            continue;
        }
        points.push(Point {
            version,
            samples: values.len(),
            values: values.into(),
            interval: None,
            in_process: false,
            sources: sources.into(),
            notes: Names::default(),
        });
    }
    Some(Series {
        benchmark: benchmark.to_string(),
        unit,
        origin: Origin::ProfileTotals {
            metric: metric.name,
        },
        better: Better::Lower,
        points,
    })
}
