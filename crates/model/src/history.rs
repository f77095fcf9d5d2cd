//! A history: the ordered versions, the benchmarks, every profile read, the
//! shared frame table, and the inputs that were skipped (with why).

use std::collections::BTreeSet;

use serde::Serialize;

use super::frame::FrameTable;
use super::profile::Profile;

/// One version directory of the input.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Version {
    /// The directory name; the version's identity.
    pub name: String,
    /// Display label (`version.toml` `label`, else the name).
    pub label: String,
    /// Release or capture date, `YYYY-MM-DD`, when known.
    pub date: Option<String>,
    /// Source revision (git commit, tag) when known.
    pub revision: Option<String>,
}

/// A benchmark: profiles with the same name across versions.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Benchmark {
    pub name: String,
}

/// One parsed input file.
#[derive(Debug, Clone)]
pub struct ProfileEntry {
    /// Index into [`History::versions`].
    pub version: usize,
    pub benchmark: String,
    /// Repetition number, 1-based.
    pub repetition: u32,
    /// Path relative to the input directory, with `/` separators.
    pub source: String,
    /// Name of the format that read it (e.g. `pprof`).
    pub format: &'static str,
    pub profile: Profile,
}

/// An input that could not be read, and why.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Skipped {
    /// Path relative to the input directory.
    pub file: String,
    /// Line, byte offset or JSON path; empty when the whole file is at fault.
    pub place: String,
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    /// `FILE: PLACE: REASON`, or `FILE: REASON` when the whole file is at
    /// fault: how every command reports an input it could not read.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_at(f, &self.file, &self.place, &self.reason)
    }
}

/// A remark on an input that was read whole: samples put back in time
/// order, keys of a `version.toml` that perfatlas does not read. Shown on
/// the terminal and the index; unlike [`Skipped`], nothing was left out,
/// so it does not change the exit code.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Note {
    /// Path relative to the input directory.
    pub file: String,
    /// Line or JSON path; empty when the remark is about the whole file.
    pub place: String,
    pub text: String,
}

impl std::fmt::Display for Note {
    /// `FILE: PLACE: TEXT`, as [`Skipped`] is written.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_at(f, &self.file, &self.place, &self.text)
    }
}

fn write_at(
    f: &mut std::fmt::Formatter<'_>,
    file: &str,
    place: &str,
    text: &str,
) -> std::fmt::Result {
    match place.is_empty() {
        true => write!(f, "{file}: {text}"),
        false => write!(f, "{file}: {place}: {text}"),
    }
}

/// How many distinct files `skipped` names (a file can have several
/// problems, e.g. several bad lines).
pub fn skipped_files(skipped: &[Skipped]) -> usize {
    let mut files: Vec<&str> = skipped.iter().map(|s| s.file.as_str()).collect();
    files.sort_unstable();
    files.dedup();
    files.len()
}

/// Everything read from one input directory.
#[derive(Debug, Default)]
pub struct History {
    pub title: String,
    pub versions: Vec<Version>,
    pub frames: FrameTable,
    /// Sorted by (benchmark, version, repetition, source).
    pub profiles: Vec<ProfileEntry>,
    /// Repeated measurements from benchmark tools: each benchmark's, in
    /// name order.
    pub measurements: Vec<super::MeasuredBenchmark>,
    /// (format, file) of every file that gave measurements, sorted, each
    /// once.
    pub measured_files: Vec<(&'static str, String)>,
    /// Field executions, one set per version that has a `field/` folder.
    pub field: Vec<super::field::FieldSet>,
    /// Sorted by file.
    pub skipped: Vec<Skipped>,
    /// Remarks on inputs read whole that are not profiles (`version.toml`);
    /// profiles carry theirs ([`Profile::notes`]). See [`History::notes`].
    pub input_notes: Vec<Note>,
}

impl History {
    /// Every remark on an input read whole: the versions' files', then
    /// each profile's in profile order.
    pub fn notes(&self) -> Vec<Note> {
        let profiles = self.profiles.iter().flat_map(|p| {
            p.profile.notes.iter().map(|text| Note {
                file: p.source.clone(),
                place: String::new(),
                text: text.clone(),
            })
        });
        self.input_notes.iter().cloned().chain(profiles).collect()
    }

    /// The measurement files read, as (format, file), each once, sorted.
    pub fn measurement_sources(&self) -> Vec<(&'static str, &str)> {
        self.measured_files
            .iter()
            .map(|(format, file)| (*format, file.as_str()))
            .collect()
    }

    /// How many files the measurements came from.
    pub fn measurement_files(&self) -> usize {
        self.measured_files.len()
    }

    /// Benchmark names in sorted order.
    pub fn benchmarks(&self) -> Vec<String> {
        let set: BTreeSet<&str> = self.profiles.iter().map(|p| p.benchmark.as_str()).collect();
        set.into_iter().map(str::to_string).collect()
    }

    /// Profiles of `benchmark` in `version`, in repetition order.
    pub fn profiles_of<'a>(
        &'a self,
        benchmark: &'a str,
        version: usize,
    ) -> impl Iterator<Item = &'a ProfileEntry> + 'a {
        self.profiles
            .iter()
            .filter(move |p| p.benchmark == benchmark && p.version == version)
    }

    /// Names of the formats that were read, sorted, without repeats.
    pub fn formats(&self) -> Vec<&'static str> {
        let set: BTreeSet<&'static str> = self.profiles.iter().map(|p| p.format).collect();
        set.into_iter().collect()
    }
}
