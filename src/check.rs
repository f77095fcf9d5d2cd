//! `perfatlas check`: the CI gate. Judges the newest version against the
//! one before it (or a chosen baseline) for every benchmark with figures,
//! and reports in text, JSON (a versioned format, `docs/check-format.md`),
//! Markdown (a GitHub job summary or one sticky pull-request comment) or
//! JUnit XML (GitLab, Jenkins and other CI systems).

mod junit;
mod markdown;

use std::path::PathBuf;

use serde::Serialize;

use analysis::regression::{self, Direction, Severity, Verdict};
use input;
use model::error::BuildError;
use model::Skipped;
use render::format::{measured, p_value, signed_percent};

/// What the JSON report says it is, and its version: bumped when a field
/// changes meaning or goes away (new fields do not bump it).
pub const FORMAT: &str = "perfatlas-check";
pub const FORMAT_VERSION: u32 = 1;

/// From which severity a regression fails the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailOn {
    Major,
    Minor,
    Never,
}

#[derive(Debug, Clone)]
pub struct CheckOptions {
    pub input: PathBuf,
    pub config: Option<PathBuf>,
    /// Version name or label to compare against (default: the one before
    /// the newest).
    pub baseline: Option<String>,
    pub fail_on: FailOn,
}

/// One benchmark's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkCheck {
    pub benchmark: String,
    pub figures: String,
    pub unit: String,
    pub baseline_mean: Option<f64>,
    pub newest_mean: Option<f64>,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub relative: Option<f64>,
    pub p_value: Option<f64>,
    pub interval: Option<(f64, f64)>,
}

/// The whole check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub format: &'static str,
    pub format_version: u32,
    pub baseline: String,
    pub newest: String,
    pub test: &'static str,
    pub confidence: f64,
    pub benchmarks: Vec<BenchmarkCheck>,
    pub skipped: Vec<Skipped>,
    pub fail_on: FailOn,
    /// True when a regression at or above `--fail-on` was found.
    pub failed: bool,
}

pub fn check(options: &CheckOptions) -> Result<CheckReport, BuildError> {
    let config = input::load::read_config(&options.input, options.config.as_deref())?;
    let history = input::load::load_history(&options.input, &config)?;
    let n = history.versions.len();
    if n < 2 {
        return Err(BuildError::Usage(format!(
            "{}: {} version{} found; a check compares the newest with an older one",
            options.input.display(),
            n,
            if n == 1 { "" } else { "s" }
        )));
    }
    let newest = n - 1;
    let baseline = match &options.baseline {
        None => newest - 1,
        Some(name) => history
            .versions
            .iter()
            .position(|v| &v.name == name || &v.label == name)
            .filter(|&b| b != newest)
            .ok_or_else(|| {
                BuildError::Usage(format!(
                    "--baseline {name}: no such version other than the newest ({})",
                    history.versions[newest].name
                ))
            })?,
    };
    // The same verdicts as the build's pages (one per pair, after the
    // false-discovery control) when the baseline is the version before
    // the newest; a chosen baseline is one comparison of its own.
    let (settings, reports, _) =
        analysis::regression_report::verdicts(&history, &config.regressions, &config.benchmarks);
    let benchmarks: Vec<BenchmarkCheck> = reports
        .iter()
        .map(|report| {
            let series = &report.series;
            let categories = report.categories.as_ref();
            let (mut verdict, c) =
                regression::judge_versions(series, baseline, newest, categories, &settings);
            let points = &series.points;
            let last_pair = points.len() >= 2
                && points[points.len() - 1].version == newest
                && points[points.len() - 2].version == baseline;
            if options.baseline.is_none() && last_pair {
                if let Some(v) = report.adjacent.last() {
                    verdict = v.clone();
                }
            }
            BenchmarkCheck {
                benchmark: series.benchmark.clone(),
                figures: series.origin.describe(),
                unit: series.unit.clone(),
                baseline_mean: series.mean_at(baseline),
                newest_mean: series.mean_at(newest),
                verdict,
                relative: c.and_then(|c| c.relative),
                p_value: c.map(|c| c.p_value),
                interval: c.map(|c| c.ci()),
            }
        })
        .collect();
    let failed = benchmarks
        .iter()
        .any(|b| fails(&b.verdict, options.fail_on));
    Ok(CheckReport {
        format: FORMAT,
        format_version: FORMAT_VERSION,
        baseline: history.versions[baseline].label.clone(),
        newest: history.versions[newest].label.clone(),
        test: settings.test.label(),
        confidence: settings.confidence,
        benchmarks,
        skipped: history.skipped,
        fail_on: options.fail_on,
        failed,
    })
}

fn fails(verdict: &Verdict, fail_on: FailOn) -> bool {
    match verdict {
        Verdict::Change {
            direction: Direction::Regression,
            severity,
        } => match fail_on {
            FailOn::Never => false,
            FailOn::Minor => true,
            FailOn::Major => *severity == Severity::Major,
        },
        _ => false,
    }
}

impl CheckReport {
    fn count(&self, direction: Direction, severity: Severity) -> usize {
        self.benchmarks
            .iter()
            .filter(|b| {
                b.verdict
                    == Verdict::Change {
                        direction,
                        severity,
                    }
            })
            .count()
    }

    /// One line: what was found.
    pub fn headline(&self) -> String {
        let (major, minor) = (
            self.count(Direction::Regression, Severity::Major),
            self.count(Direction::Regression, Severity::Minor),
        );
        let improvements = self.count(Direction::Improvement, Severity::Major)
            + self.count(Direction::Improvement, Severity::Minor);
        let undecided = self
            .benchmarks
            .iter()
            .filter(|b| matches!(b.verdict, Verdict::NotEnoughData { .. }))
            .count();
        format!(
            "{} against {}: {major} major regression{}, {minor} minor regression{}, {improvements} improvement{}, {undecided} without enough data, {} benchmark{} in all",
            self.newest,
            self.baseline,
            plural(major),
            plural(minor),
            plural(improvements),
            self.benchmarks.len(),
            plural(self.benchmarks.len())
        )
    }

    pub fn text(&self) -> String {
        let mut out = format!("perfatlas check: {}\n", self.headline());
        for b in &self.benchmarks {
            out.push_str(&format!(
                "  {:<12} {}: {}\n",
                status(&b.verdict),
                b.benchmark,
                details(b)
            ));
        }
        out.push_str(&format!(
            "({} at {}% confidence)\n",
            self.test,
            self.confidence * 100.0
        ));
        out
    }

    /// The report as JSON (`docs/check-format.md`), ending in a newline.
    pub fn json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self).map(|json| json + "\n")
    }

    /// The benchmarks that fail the check.
    pub fn failures(&self) -> impl Iterator<Item = &BenchmarkCheck> {
        self.benchmarks
            .iter()
            .filter(|b| fails(&b.verdict, self.fail_on))
    }

    pub(crate) fn figures_sources(&self) -> String {
        let mut f: Vec<&str> = self.benchmarks.iter().map(|b| b.figures.as_str()).collect();
        f.sort_unstable();
        f.dedup();
        f.join("; ")
    }
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The verdict's category in words: "major regression", "no change"…
pub(crate) fn category(v: &Verdict) -> &'static str {
    match v {
        Verdict::Change {
            direction: Direction::Regression,
            severity: Severity::Major,
        } => "major regression",
        Verdict::Change {
            direction: Direction::Regression,
            severity: Severity::Minor,
        } => "minor regression",
        Verdict::Change {
            direction: Direction::Improvement,
            severity: Severity::Major,
        } => "major improvement",
        Verdict::Change {
            direction: Direction::Improvement,
            severity: Severity::Minor,
        } => "minor improvement",
        Verdict::NoChange => "no change",
        Verdict::NotEnoughData { .. } => "not enough data",
    }
}

pub(crate) fn status(v: &Verdict) -> &'static str {
    match v {
        Verdict::Change {
            direction: Direction::Regression,
            severity: Severity::Major,
        } => "MAJOR",
        Verdict::Change {
            direction: Direction::Regression,
            ..
        } => "minor",
        Verdict::Change { .. } => "improved",
        Verdict::NoChange => "ok",
        Verdict::NotEnoughData { .. } => "no verdict",
    }
}

pub(crate) fn details(b: &BenchmarkCheck) -> String {
    let mean = |m: Option<f64>| {
        m.map(|m| measured(m, &b.unit))
            .unwrap_or_else(|| "—".into())
    };
    match &b.verdict {
        Verdict::NotEnoughData { reason } => format!("not enough data: {reason}"),
        _ => format!(
            "{} → {} ({}, {})",
            mean(b.baseline_mean),
            mean(b.newest_mean),
            b.relative.map(signed_percent).unwrap_or_default(),
            b.p_value.map(p_value).unwrap_or_default()
        ),
    }
}
