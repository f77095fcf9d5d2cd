//! Benchmark histories: one source that holds the measurements of many
//! commits, as other tools keep them (airspeed velocity's results
//! directory, github-action-benchmark's `data.js`). `perfatlas import`
//! turns one into perfatlas's input layout, a version directory per commit.
//!
//! This module owns the shape every history reader returns
//! ([`ImportedHistory`]: versions in history order, each with its commit
//! and its benchmarks as [`Measured`] values, the shape of perfatlas's
//! measurement JSON), recognising a source by content ([`sniff`]), and the
//! helpers the readers share. The readers are pure functions from bytes to
//! an [`ImportedHistory`], one file per format; reading the files from disk
//! and writing the input directory are the command's.

pub mod asv;
pub mod github_action_benchmark;

use crate::measurements::Measured;
use model::error::{InputError, ParseError};

/// One commit (or version) of an imported history.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedVersion {
    /// The commit id as the source gives it (full hash where it has one).
    pub revision: String,
    /// The commit's subject line, when the source keeps it.
    pub summary: String,
    /// RFC 3339 date-time (or `YYYY-MM-DD`) of the commit, when known.
    pub date: Option<String>,
    /// Its benchmarks, names unique, in a stable order.
    pub benchmarks: Vec<Measured>,
}

/// A history read from one source.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedHistory {
    /// `asv` or `github-action-benchmark`.
    pub format: &'static str,
    /// Oldest first.
    pub versions: Vec<ImportedVersion>,
    /// Remarks on the whole import: which figure was taken, what the
    /// source had that perfatlas cannot keep.
    pub notes: Vec<String>,
    /// Values and benchmarks left out, each with its file and place.
    pub warnings: Vec<InputError>,
    /// Benchmarks the source says are better higher (github-action-benchmark's
    /// `customBiggerIsBetter`), in name order.
    pub higher_is_better: Vec<String>,
}

/// The history formats, by the name `perfatlas import` takes.
pub const FORMATS: [&str; 2] = [asv::NAME, github_action_benchmark::NAME];

/// Which history format a file is, by its content (a directory is asv's
/// when [`asv::find_results`] finds its results in it).
pub fn sniff(bytes: &[u8]) -> Option<&'static str> {
    github_action_benchmark::sniff(bytes).then_some(github_action_benchmark::NAME)
}

/// Most warnings listed for one import; the rest are counted in one more.
const MAX_WARNINGS: usize = 200;

/// Gathers warnings, capped at [`MAX_WARNINGS`].
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    listed: Vec<InputError>,
    unlisted: usize,
}

impl Warnings {
    pub(crate) fn push(&mut self, file: &str, error: ParseError) {
        if self.listed.len() < MAX_WARNINGS {
            self.listed.push(InputError {
                file: file.to_string(),
                error,
            });
        } else {
            self.unlisted += 1;
        }
    }

    pub(crate) fn finish(mut self, file: &str) -> Vec<InputError> {
        if self.unlisted > 0 {
            self.listed.push(InputError {
                file: file.to_string(),
                error: ParseError::whole(format!("and {} more warnings", self.unlisted)),
            });
        }
        self.listed
    }
}

/// A value kept as a sample: a finite number, not negative (-0 is 0).
pub(crate) fn sample(value: f64) -> Option<f64> {
    (value.is_finite() && value >= 0.0).then_some(value + 0.0)
}

/// Milliseconds since the Unix epoch as an RFC 3339 date-time in UTC
/// (`2024-01-02T10:00:00Z`); `None` out of the years 0–9999.
pub(crate) fn rfc3339_from_millis(millis: f64) -> Option<String> {
    if !millis.is_finite() {
        return None;
    }
    let seconds = (millis / 1000.0).floor();
    // Years 0 to 9999.
    if !(-62_167_219_200.0..253_402_300_800.0).contains(&seconds) {
        return None;
    }
    let seconds = seconds as i64;
    let (days, rest) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (y, m, d) = config::civil_from_days(days);
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_milliseconds() {
        assert_eq!(
            rfc3339_from_millis(1_704_189_600_000.0).as_deref(),
            Some("2024-01-02T10:00:00Z")
        );
        assert_eq!(
            rfc3339_from_millis(951_825_599_999.0).as_deref(),
            Some("2000-02-29T11:59:59Z")
        );
        assert_eq!(
            rfc3339_from_millis(-1.0).as_deref(),
            Some("1969-12-31T23:59:59Z")
        );
        assert_eq!(rfc3339_from_millis(f64::NAN), None);
        assert_eq!(rfc3339_from_millis(1e300), None);
    }
}
