//! `perfatlas check`: the CI gate. Judges the newest version against the
//! one before it (or a chosen baseline) for every benchmark with figures,
//! and reports in text, JSON (a versioned format, `docs/check-format.md`),
//! Markdown (a GitHub job summary or one sticky pull-request comment) or
//! JUnit XML (GitLab, Jenkins and other CI systems).

mod junit;
mod markdown;
mod story;

pub use markdown::COMMENT_LIMIT;
pub use story::{CauseStory, ChangeStory};

use std::path::PathBuf;

use serde::Serialize;

use analysis::regression::{self, Direction, Judging, Series, Settings, Severity, Verdict};
use analysis::regression_report::BenchmarkReport;
use analysis::stats::Comparison;
use model::error::BuildError;
use model::{Better, Skipped};
use render::format::{measured, p_value, signed_percent};

/// What the JSON report says it is, and its version: bumped when a field
/// changes meaning or goes away (new fields do not bump it).
pub const FORMAT: &str = "perfatlas-check";
pub const FORMAT_VERSION: u32 = 2;

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
    /// Also fail when a benchmark measured in the newest version could
    /// not be judged (`--fail-on …,unjudged`).
    pub fail_on_unjudged: bool,
    /// Git repository of the profiled program: root causes say whether
    /// the version modified the function (as `build --repo`).
    pub repo: Option<PathBuf>,
    /// Source files, for mapping bundled frames (as `build --sources`).
    pub sources: Option<PathBuf>,
    /// Address of the published site, which the reports link to.
    pub site_url: Option<String>,
}

/// One benchmark's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkCheck {
    pub benchmark: String,
    pub figures: String,
    pub unit: String,
    /// Which way the figure improves: `lower` or `higher`.
    pub better: Better,
    /// How the newest version was judged, in words.
    pub method: String,
    pub baseline_mean: Option<f64>,
    pub newest_mean: Option<f64>,
    /// What the newest mean was compared with: the baseline's mean, or
    /// the mean of the `window` values before it.
    pub reference_mean: Option<f64>,
    /// Judged against the prediction interval of this many earlier values.
    pub window: Option<usize>,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub relative: Option<f64>,
    pub p_value: Option<f64>,
    pub interval: Option<(f64, f64)>,
    /// For a regression or improvement: the responsible version, what
    /// found it, its root cause and its pages.
    pub change: Option<ChangeStory>,
}

/// The whole check.
#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub format: &'static str,
    pub format_version: u32,
    pub baseline: String,
    pub newest: String,
    /// The published site the stories' pages are relative to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_url: Option<String>,
    pub test: &'static str,
    pub confidence: f64,
    pub benchmarks: Vec<BenchmarkCheck>,
    pub skipped: Vec<Skipped>,
    pub fail_on: FailOn,
    pub fail_on_unjudged: bool,
    /// Benchmarks with a verdict (a change, none, or one below the
    /// practical size).
    pub judged: usize,
    /// Benchmarks without one (not enough data).
    pub unjudged: usize,
    /// True when a regression at or above `--fail-on` was found, or with
    /// `unjudged` in `--fail-on`, a benchmark could not be judged.
    pub failed: bool,
}

pub fn check(options: &CheckOptions) -> Result<CheckReport, BuildError> {
    let config = crate::read_settings(&options.input, options.config.as_deref(), None)?;
    let (mut history, _) = crate::read_history(
        &options.input,
        options.config.as_deref(),
        false,
        &config,
        &input::load::NoCache,
    )?;
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
    let finder = crate::cause_finder(
        &crate::BuildOptions {
            repo: options.repo.clone(),
            sources: options.sources.clone(),
            ..Default::default()
        },
        &config,
        &mut history,
    )?;
    let site = finder.report(&history, &config);
    let diff_pages = render::flame_plan::diff_plan(&history, &config);
    let teller = story::Teller {
        history: &history,
        config: &config,
        finder: &finder,
        site: &site,
        diff_pages: &diff_pages,
        baseline,
        newest,
    };
    let (settings, reports) = (&site.settings, &site.benchmarks);
    let default_baseline = options.baseline.is_none();
    let benchmarks: Vec<BenchmarkCheck> = reports
        .iter()
        .map(|report| {
            let (verdict, c, method, window) =
                judge_newest(report, (baseline, newest), default_baseline, settings);
            let series = &report.series;
            let reference_mean = match &window {
                Some(w) => Some(w.iter().sum::<f64>() / w.len() as f64),
                None => series.mean_at(baseline),
            };
            BenchmarkCheck {
                benchmark: series.benchmark.clone(),
                figures: series.origin.describe(),
                unit: series.unit.clone(),
                better: series.better,
                method,
                baseline_mean: series.mean_at(baseline),
                newest_mean: series.mean_at(newest),
                reference_mean,
                window: window.as_ref().map(Vec::len),
                relative: c.and_then(|c| c.relative).or_else(|| {
                    let (a, b) = (reference_mean?, series.mean_at(newest)?);
                    (a != 0.0).then(|| (b - a) / a)
                }),
                p_value: c.map(|c| c.p_value),
                interval: c
                    .filter(|c| c.test != config::Test::PredictionInterval)
                    .map(|c| c.ci()),
                change: match verdict {
                    Verdict::Change { direction, .. } => Some(teller.story(report, direction)),
                    _ => None,
                },
                verdict,
            }
        })
        .collect();
    let measured_newest = |b: &BenchmarkCheck| b.newest_mean.is_some();
    let judged = benchmarks.iter().filter(|b| b.verdict.judged()).count();
    let unjudged = benchmarks.len() - judged;
    let failed = benchmarks
        .iter()
        .any(|b| fails(&b.verdict, options.fail_on))
        || options.fail_on_unjudged
            && benchmarks
                .iter()
                .any(|b| measured_newest(b) && !b.verdict.judged());
    Ok(CheckReport {
        format: FORMAT,
        format_version: FORMAT_VERSION,
        baseline: history.versions[baseline].label.clone(),
        newest: history.versions[newest].label.clone(),
        site_url: options.site_url.clone(),
        test: settings.test.label(),
        confidence: settings.confidence,
        benchmarks,
        skipped: history.skipped,
        fail_on: options.fail_on,
        fail_on_unjudged: options.fail_on_unjudged,
        judged,
        unjudged,
        failed,
    })
}

/// The newest version of one benchmark against the baseline: the build's
/// verdict when the baseline is the version before and both have enough
/// runs (the same as the pages, after the false-discovery control); an
/// exact comparison for a series of equal runs; a test between the two
/// versions' runs when both have enough; else the newest value against
/// the window of values before it (the baseline and those before it, since
/// the last change point). With the method in words.
fn judge_newest(
    report: &BenchmarkReport,
    (baseline, newest): (usize, usize),
    default_baseline: bool,
    settings: &Settings,
) -> (Verdict, Option<Comparison>, String, Option<Vec<f64>>) {
    let series = &report.series;
    let categories = report.categories.as_ref();
    let judging = &report.judging;
    let at = |v: usize| series.points.binary_search_by_key(&v, |p| p.version).ok();
    let runs = |i: Option<usize>| i.map_or(0, |i| series.points[i].values.len());
    let (b, n) = (at(baseline), at(newest));
    let enough = runs(b) >= settings.min_runs && runs(n) >= settings.min_runs;
    let last_pair = n.is_some_and(|n| n + 1 == series.points.len() && n >= 1 && b == Some(n - 1));
    let n = match n {
        Some(n) if *judging != Judging::Exact && !enough => n,
        _ => {
            let (mut verdict, c) =
                regression::judge_versions(series, judging, baseline, newest, categories, settings);
            let judged_by_runs = matches!(judging, Judging::Runs | Judging::Exact);
            if default_baseline && last_pair && judged_by_runs {
                if let Some(v) = report.adjacent.last() {
                    verdict = v.clone();
                }
            }
            return (
                verdict,
                c,
                judging_words(judging, settings, series, false),
                None,
            );
        }
    };
    let window_end = match b {
        Some(b) if b < n => b + 1,
        _ => n,
    };
    let (verdict, c) =
        regression::judge_new_value(series, judging, window_end, n, categories, settings);
    let window = regression::window_before(series, judging, window_end, settings);
    let recorded = |i: usize| {
        series
            .points
            .get(i)
            .and_then(|p| p.interval.as_deref().copied())
    };
    if window.len() < 3 && recorded(window_end.wrapping_sub(1)).is_some() && recorded(n).is_some() {
        let words = format!(
            "the intervals the tool recorded around the two values, apart or not, as `asv compare` reads them ({})",
            series.better.describe()
        );
        return (verdict, c, words, None);
    }
    let words = judging_words(judging, settings, series, true);
    (verdict, c, words, Some(window))
}

/// How a benchmark's newest version was judged, in words.
fn judging_words(judging: &Judging, settings: &Settings, series: &Series, window: bool) -> String {
    let better = series.better.describe();
    if window {
        return format!(
            "the newest value against the prediction interval of up to {} values before it at the same level ({better})",
            settings.window
        );
    }
    match judging {
        Judging::Exact => format!("exact: every version's runs are equal ({better})"),
        _ => format!(
            "{} between the two versions' runs ({better})",
            settings.test.label()
        ),
    }
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

    /// One line: what was found; when nothing could be judged, says so
    /// first ("no verdict: 10 of 10 benchmarks without enough data").
    pub fn headline(&self) -> String {
        if self.judged == 0 {
            return format!(
                "{} against {}: no verdict: {} of {} benchmark{} without enough data to judge",
                self.newest,
                self.baseline,
                self.unjudged,
                self.benchmarks.len(),
                plural(self.benchmarks.len())
            );
        }
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
            if let Some(story) = self.story_words(b) {
                out.push_str(&format!("  {:<12} {story}\n", ""));
            }
        }
        let windowed = self.benchmarks.iter().any(|b| b.window.is_some());
        out.push_str(&format!(
            "({}{} at {}% confidence)\n",
            self.test,
            if windowed {
                "; a single new value against the prediction interval of the values before it"
            } else {
                ""
            },
            self.confidence * 100.0
        ));
        out
    }

    /// A change's story in one line: the responsible version, what found
    /// it, its root cause and its pages ("responsible: 3.0.0 (since
    /// 2.1.3), found by …; root cause: list (src/Tokenizer.js) explains
    /// 83% of the difference, modified ●; see …").
    pub fn story_words(&self, b: &BenchmarkCheck) -> Option<String> {
        let story = b.change.as_ref()?;
        let mut out = format!(
            "responsible: {} (since {}{}), found by {}",
            story.responsible,
            story.since,
            match story.unmeasured_between {
                0 => String::new(),
                n => format!(
                    "; or one of the {n} version{} between, not measured",
                    plural(n)
                ),
            },
            story.found_by
        );
        match (&story.root_cause, &story.no_root_cause) {
            (Some(c), _) => out.push_str(&format!("; root cause: {}", c.words())),
            (None, Some(why)) => out.push_str(&format!("; no root cause: {why}")),
            (None, None) => {}
        }
        let site = self.site_url.as_deref().map(|s| s.trim_end_matches('/'));
        let pages: Vec<String> = [&story.page, &story.flame_diff]
            .into_iter()
            .flatten()
            .map(|p| match site {
                Some(site) => format!("{site}/{p}"),
                None => p.clone(),
            })
            .collect();
        if !pages.is_empty() {
            out.push_str(&format!(
                "; see {}{}",
                pages.join(" and "),
                if site.is_none() { " in the site" } else { "" }
            ));
        }
        Some(out)
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
        Verdict::HeldBack { .. } => "held back by false-discovery control",
        Verdict::Negligible { .. } => "below the practical size",
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
        Verdict::NoChange | Verdict::HeldBack { .. } | Verdict::Negligible { .. } => "ok",
        Verdict::NotEnoughData { .. } => "no verdict",
    }
}

pub(crate) fn details(b: &BenchmarkCheck) -> String {
    let mean = |m: Option<f64>| {
        m.map(|m| measured(m, &b.unit))
            .unwrap_or_else(|| "—".into())
    };
    let figures: Vec<String> = [b.relative.map(signed_percent), b.p_value.map(p_value)]
        .into_iter()
        .flatten()
        .collect();
    let figures = if figures.is_empty() {
        String::new()
    } else {
        format!(" ({})", figures.join(", "))
    };
    let against = match b.window {
        Some(n) => format!(", against the mean of the {n} values before it"),
        None => String::new(),
    };
    let moved = format!(
        "{} → {}{figures}{against}",
        mean(b.reference_mean),
        mean(b.newest_mean)
    );
    match &b.verdict {
        Verdict::NotEnoughData { reason } => format!("not enough data: {reason}"),
        Verdict::HeldBack { .. } => {
            format!("{moved}: significant alone, held back by false-discovery control")
        }
        Verdict::Negligible { .. } => format!("{moved}: below the practical size"),
        _ => moved,
    }
}
