//! A measurement file reduced to what the analysis reads of it: for each
//! benchmark, one mean per run, how many samples were read, and whether
//! they were taken inside one process. This is what a build keeps of a
//! measurement file and what the build cache stores: a long benchmark
//! history holds millions of benchmark-in-a-version entries, and their raw
//! in-process samples were never used beyond their run's mean.
//!
//! A file's benchmark names and run means are kept one after another in
//! one string and one shared array, and its units and notes once each in a
//! table, so that a file of thousands of benchmarks is a handful of
//! allocations, whether parsed or read back from the cache. Each
//! benchmark's [`RunMeans`] takes its moments as the file is read (files
//! are read side by side), so the analysis need not read them again.

use std::ops::Range;
use std::sync::Arc;

use super::{Measured, MeasurementFile};
use model::error::ParseError;
use model::RunMeans;

/// One benchmark of a measurement file, reduced.
#[derive(Debug, Clone, PartialEq)]
pub struct ReducedBenchmark {
    /// Where its name is in [`Reduced::names`].
    pub name: Range<usize>,
    /// Index into [`Reduced::units`].
    pub unit: u32,
    /// Index into [`Reduced::notes`].
    pub note: u32,
    /// The mean of each run's samples, in run order (runs without samples
    /// are left out): a part of one array that the file's benchmarks share.
    pub means: RunMeans,
    /// Samples read in all, counting in-process ones.
    pub samples: u64,
    /// The samples inside a run are in-process iterations.
    pub in_process: bool,
    /// Some run holds more than one sample.
    pub multi_sample: bool,
    /// The interval the tool recorded around its figure, if any.
    pub interval: Option<model::Interval>,
}

/// A measurement file, reduced (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct Reduced {
    /// The reader's name, as in [`MeasurementFile::format`].
    pub format: &'static str,
    /// Distinct units, in order of first use.
    pub units: Vec<String>,
    /// Distinct notes, in order of first use.
    pub notes: Vec<String>,
    /// Every benchmark's name, one after another.
    pub names: String,
    /// In the order the file lists them.
    pub benchmarks: Vec<ReducedBenchmark>,
    /// Parts of the file that were left out, each with its place.
    pub warnings: Vec<ParseError>,
}

impl Reduced {
    /// Reduces what a reader gave.
    pub fn of(file: MeasurementFile) -> Reduced {
        let mut units = Vec::new();
        let mut notes = Vec::new();
        let mut names = String::new();
        let mut run_means = Vec::new();
        let mut parts = Vec::with_capacity(file.benchmarks.len());
        let mut benchmarks = Vec::with_capacity(file.benchmarks.len());
        for measured in file.benchmarks {
            let Measured {
                name,
                unit,
                runs,
                in_process,
                note,
                interval,
            } = measured;
            // (No list of them: one allocation per benchmark, two million
            // in a history of 1,000 files of 2,000 benchmarks.)
            let runs = || runs.iter().filter(|r| !r.is_empty());
            let (name_at, runs_at) = (names.len(), run_means.len());
            names.push_str(&name);
            run_means.extend(runs().map(|r| run_mean(r)));
            parts.push(runs_at..run_means.len());
            benchmarks.push(ReducedBenchmark {
                name: name_at..names.len(),
                unit: index_in(&mut units, unit),
                note: index_in(&mut notes, note),
                means: RunMeans::default(),
                samples: runs().map(|r| r.len() as u64).sum(),
                in_process,
                multi_sample: runs().any(|r| r.len() > 1),
                interval,
            });
        }
        let shared: Arc<[f64]> = run_means.into();
        for (b, part) in benchmarks.iter_mut().zip(parts) {
            b.means = RunMeans::new(shared.clone(), part);
        }
        Reduced {
            format: file.format,
            units,
            notes,
            names,
            benchmarks,
            warnings: file.warnings,
        }
    }

    /// The name of `benchmark`.
    pub fn name_of(&self, benchmark: &ReducedBenchmark) -> &str {
        self.names.get(benchmark.name.clone()).unwrap_or("")
    }

    /// The unit of `benchmark`.
    pub fn unit_of(&self, benchmark: &ReducedBenchmark) -> &str {
        self.units
            .get(benchmark.unit as usize)
            .map_or("", String::as_str)
    }

    /// The note of `benchmark`.
    pub fn note_of(&self, benchmark: &ReducedBenchmark) -> &str {
        self.notes
            .get(benchmark.note as usize)
            .map_or("", String::as_str)
    }
}

/// The one value of a run: the mean of its samples.
pub fn run_mean(samples: &[f64]) -> f64 {
    samples.iter().sum::<f64>() / samples.len() as f64
}

/// The position of `value` in `table`, added at the end when new.
fn index_in(table: &mut Vec<String>, value: String) -> u32 {
    let at = match table.iter().position(|t| *t == value) {
        Some(at) => at,
        None => {
            table.push(value);
            table.len() - 1
        }
    };
    at as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(name: &str, unit: &str, runs: Vec<Vec<f64>>, note: &str) -> Measured {
        Measured {
            name: name.into(),
            unit: unit.into(),
            runs,
            in_process: false,
            note: note.into(),
            interval: None,
        }
    }

    #[test]
    fn runs_become_their_means_and_empty_runs_are_left_out() {
        let file = MeasurementFile {
            format: "hyperfine",
            benchmarks: vec![
                measured("α", "s", vec![vec![1.0, 2.0, 6.0], vec![], vec![4.0]], ""),
                measured("b", "instructions", vec![vec![5.0]], "counted"),
                measured("c", "s", vec![vec![0.5], vec![1.5]], ""),
            ],
            warnings: Vec::new(),
        };
        let r = Reduced::of(file);
        let [a, b, c] = &r.benchmarks[..] else {
            panic!("{r:?}")
        };
        assert_eq!(r.name_of(a), "α");
        assert_eq!(a.means.as_slice(), [3.0, 4.0]);
        assert_eq!((a.samples, a.multi_sample), (4, true));
        assert_eq!(
            (r.name_of(b), r.unit_of(b), r.note_of(b)),
            ("b", "instructions", "counted")
        );
        assert_eq!(b.means.as_slice(), [5.0]);
        assert_eq!((r.name_of(c), r.unit_of(c), r.note_of(c)), ("c", "s", ""));
        assert_eq!(c.means.as_slice(), [0.5, 1.5]);
        assert_eq!((c.samples, c.multi_sample), (2, false));
        assert_eq!(r.units, vec!["s", "instructions"]);
        assert_eq!(r.notes, vec!["", "counted"]);
    }
}
