//! `perfatlas bisect`: finds the commit that made a command slower.
//!
//! This module owns measuring commits for a bisection and reporting it:
//! checking each commit out in a temporary worktree of its own (`checkout`),
//! running the command there `runs` times (`measure`), keeping the
//! measurements as versions with `--into` (`record`) and the
//! [`BisectReport`]. Which commit to measure next is
//! [`vcs::commit_search`]'s; whether one is slower is the caller's judge.
//!
//! Good and bad are measured first; when bad is not slower the report says
//! there is no regression between them and nothing else is measured.
//! Otherwise each probe is compared with the current good commit. No commit
//! is measured twice.
//!
//! Each run is `sh -c CMD` in the commit's worktree, stdin closed, with
//! `PERFATLAS_OUT` naming a file that does not exist yet. CMD reports its
//! time either as hyperfine JSON written to `$PERFATLAS_OUT` (every entry of
//! `results[0].times` is a sample of that run), or, when it wrote nothing
//! there, as a number on its last non-empty stdout line: seconds, or with a
//! unit `ns`, `us`, `µs`, `ms` or `s`. A run that exits non-zero or reports
//! no time stops the bisection with an error naming the commit, the run and
//! the last lines of its stderr. The judge gets every sample of every run.
//!
//! The user's working tree, index, HEAD and refs are never touched;
//! checkout hooks do not run. A bisection interrupted by SIGINT (Ctrl-C)
//! or SIGTERM stops the command and removes its worktree when the caller's
//! signal handler calls [`clean_up_interrupted`] (the binary does); one
//! killed outright (SIGKILL) cannot, and the next bisection in the same
//! repository removes what it left.

mod checkout;
mod interrupt;
mod measure;
mod record;

// Shared with `import`, which writes version folders too.
pub(crate) use measure::shorten;
pub(crate) use record::toml_string;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use interrupt::clean_up_interrupted;
pub use measure::RunTimes;
pub use vcs::commit_search::Judgement;
use vcs::commit_search::{Dag, DagCommit};
use vcs::{Repo, VcsError};

/// Everything `perfatlas bisect` needs.
#[derive(Debug, Clone, PartialEq)]
pub struct BisectOptions {
    /// The repository (its top directory, or a bare repository).
    pub repo: PathBuf,
    /// A revision without the regression.
    pub good: String,
    /// A later revision with it; good must be its ancestor.
    pub bad: String,
    /// Shell command run in the checked-out commit; see the module
    /// documentation for how it reports a time.
    pub run: String,
    /// Runs per commit.
    pub runs: usize,
    /// Directory of versions to add every measured commit to.
    pub into: Option<PathBuf>,
    /// For the caller's judge (e.g. a Welch t-test); checked to be in (0, 1).
    pub confidence: f64,
}

impl BisectOptions {
    /// Options with 5 runs per commit, confidence 0.99 and no `--into`.
    pub fn new(
        repo: impl Into<PathBuf>,
        good: impl Into<String>,
        bad: impl Into<String>,
        run: impl Into<String>,
    ) -> BisectOptions {
        BisectOptions {
            repo: repo.into(),
            good: good.into(),
            bad: bad.into(),
            run: run.into(),
            runs: 5,
            into: None,
            confidence: 0.99,
        }
    }
}

/// A commit as the report names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitInfo {
    /// 40 hex digits.
    pub oid: String,
    /// The first 10 of them.
    pub short: String,
    /// The subject line.
    pub summary: String,
}

/// One probe: a commit measured and compared with the current good one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    pub commit: CommitInfo,
    /// The good commit it was compared with.
    pub compared_with: CommitInfo,
    /// Mean of the probe's samples, seconds.
    pub mean: f64,
    /// Mean of the good commit's samples, seconds.
    pub compared_mean: f64,
    pub judgement: Judgement,
    /// The probe's weight in the filtered set, and the set's size.
    pub weight: usize,
    pub candidates: usize,
}

/// What a bisection found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BisectReport {
    pub good: CommitInfo,
    /// Mean of good's samples, seconds.
    pub good_mean: f64,
    pub bad: CommitInfo,
    pub bad_mean: f64,
    /// The commit that made things slower; `None` when bad is not slower
    /// than good (no regression between them, nothing bisected).
    pub responsible: Option<CommitInfo>,
    /// The probes in order.
    pub probes: Vec<Probe>,
    /// Version folders written with `--into`, in the order measured.
    pub written: Vec<PathBuf>,
}

/// Why a bisection stopped.
#[derive(Debug, thiserror::Error)]
pub enum BisectError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Vcs(#[from] VcsError),
    #[error("git was not found on PATH: perfatlas bisect checks commits out with the git command line; install git or add it to PATH")]
    GitMissing,
    #[error("{command}: {message}")]
    Git { command: String, message: String },
    /// The measured command failed or reported no time.
    #[error("commit {commit} ({summary}), run {run} of {runs}: {message}{}", stderr_tail(.stderr))]
    Run {
        commit: String,
        summary: String,
        run: usize,
        runs: usize,
        message: String,
        /// Its last stderr lines.
        stderr: String,
    },
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} exists with different content and is not overwritten; remove it or choose another --into", .0.display())]
    VersionExists(PathBuf),
}

impl BisectError {
    fn io(path: impl Into<PathBuf>, source: std::io::Error) -> BisectError {
        BisectError::Io {
            path: path.into(),
            source,
        }
    }
}

fn stderr_tail(stderr: &str) -> String {
    if stderr.is_empty() {
        "; it wrote nothing on stderr".to_string()
    } else {
        format!(
            "; last lines of its stderr:\n  {}",
            stderr.replace('\n', "\n  ")
        )
    }
}

/// Bisects `options.good`..`options.bad` by measuring commits with
/// `options.run`. `judge(good samples, candidate samples)` says whether the
/// candidate is slower; `progress` gets one line per thing done.
pub fn run(
    options: &BisectOptions,
    judge: &dyn Fn(&[f64], &[f64]) -> Judgement,
    progress: &mut dyn FnMut(&str),
) -> Result<BisectReport, BisectError> {
    check_options(options)?;
    checkout::require_git(checkout::GIT)?;
    let repo = Repo::open(&options.repo)?;
    let (dag, good, bad) = repo.bisect_graph(&options.good, &options.bad)?;
    if let Some(into) = &options.into {
        record::prepare(into)?;
    }
    checkout::remove_stale(&options.repo, progress);
    let mut session = Session {
        options,
        dag: &dag,
        scratch: checkout::Scratch::new()?,
        benchmark: record::benchmark_name(&options.run),
        measured: HashMap::new(),
        written: Vec::new(),
        progress,
    };
    session.measure(good, "good")?;
    session.measure(bad, "bad")?;
    let endpoints = judge(&session.samples(good), &session.samples(bad));
    let mut report = BisectReport {
        good: session.info(good)?,
        good_mean: session.mean(good),
        bad: session.info(bad)?,
        bad_mean: session.mean(bad),
        responsible: None,
        probes: Vec::new(),
        written: Vec::new(),
    };
    if endpoints == Judgement::Slower {
        bisect_between(&mut session, judge, good, bad, &mut report)?;
    } else {
        session.say(&format!(
            "bad {} is not slower than good {}: no regression between them",
            report.bad.short, report.good.short
        ));
    }
    report.written = std::mem::take(&mut session.written);
    Ok(report)
}

fn check_options(options: &BisectOptions) -> Result<(), BisectError> {
    if options.runs == 0 {
        return Err(BisectError::Usage("--runs must be at least 1".into()));
    }
    if !(options.confidence > 0.0 && options.confidence < 1.0) {
        return Err(BisectError::Usage(format!(
            "confidence {}: expected a number between 0 and 1",
            options.confidence
        )));
    }
    if options.run.trim().is_empty() {
        return Err(BisectError::Usage("--run: the command is empty".into()));
    }
    Ok(())
}

/// The bisection proper, once bad is known to be slower than good; fills
/// `report.responsible` and `report.probes`.
fn bisect_between(
    session: &mut Session<'_>,
    judge: &dyn Fn(&[f64], &[f64]) -> Judgement,
    good: usize,
    bad: usize,
    report: &mut BisectReport,
) -> Result<(), BisectError> {
    let dag = session.dag;
    let between = vcs::commit_search::filtered(dag, good, bad)
        .len()
        .saturating_sub(1);
    session.say(&format!(
        "bad is slower; {between} commit(s) lie between good and bad (about {} step(s))",
        usize::BITS - between.leading_zeros()
    ));
    let mut step = 0;
    let outcome = vcs::commit_search::bisect(dag, good, bad, &mut |good, probe| {
        step += 1;
        session.measure(probe, &format!("step {step}"))?;
        let judgement = judge(&session.samples(good), &session.samples(probe));
        let (probe_short, good_short) = (
            session.commit(probe)?.short.clone(),
            session.commit(good)?.short.clone(),
        );
        let line = format!(
            "step {step}: {probe_short} is {judgement} than {good_short} ({} vs {})",
            format_seconds(session.mean(probe)),
            format_seconds(session.mean(good)),
        );
        session.say(&line);
        Ok::<Judgement, BisectError>(judgement)
    })?;
    for s in &outcome.steps {
        report.probes.push(Probe {
            commit: session.info(s.probe)?,
            compared_with: session.info(s.good)?,
            mean: session.mean(s.probe),
            compared_mean: session.mean(s.good),
            judgement: s.judgement,
            weight: s.weight,
            candidates: s.candidates,
        });
    }
    report.responsible = Some(session.info(outcome.responsible)?);
    Ok(())
}

/// The state of one bisection: what was measured, and where.
struct Session<'a> {
    options: &'a BisectOptions,
    dag: &'a Dag,
    scratch: checkout::Scratch,
    benchmark: String,
    measured: HashMap<usize, Vec<RunTimes>>,
    written: Vec<PathBuf>,
    progress: &'a mut dyn FnMut(&str),
}

impl Session<'_> {
    fn say(&mut self, line: &str) {
        (self.progress)(line);
    }

    fn commit(&self, index: usize) -> Result<&DagCommit, BisectError> {
        self.dag
            .commit(index)
            .ok_or_else(|| BisectError::Vcs(VcsError::Graph(format!("no commit at index {index}"))))
    }

    fn info(&self, index: usize) -> Result<CommitInfo, BisectError> {
        let c = self.commit(index)?;
        Ok(CommitInfo {
            oid: c.oid.clone(),
            short: c.short.clone(),
            summary: c.summary.clone(),
        })
    }

    /// Every sample of the commit's runs (empty when not measured).
    fn samples(&self, index: usize) -> Vec<f64> {
        self.measured
            .get(&index)
            .map(|runs| runs.iter().flat_map(|r| r.samples()).copied().collect())
            .unwrap_or_default()
    }

    fn mean(&self, index: usize) -> f64 {
        let samples = self.samples(index);
        samples.iter().sum::<f64>() / samples.len() as f64
    }

    /// Measures the commit unless it was measured already, and records it
    /// with `--into`. `role` is for the progress line.
    fn measure(&mut self, index: usize, role: &str) -> Result<(), BisectError> {
        if self.measured.contains_key(&index) {
            return Ok(());
        }
        let commit = self.commit(index)?.clone();
        self.say(&format!(
            "{role}: measuring {} {} ({} runs)",
            commit.short,
            measure::shorten(&commit.summary, 60),
            self.options.runs
        ));
        let dir = self
            .scratch
            .path()
            .join(format!("{index}-{}", commit.short));
        let worktree = checkout::Worktree::add(&self.options.repo, dir, &commit.oid)?;
        let runs = self.run_all(&commit, worktree.path());
        if let Err(e) = worktree.remove() {
            self.say(&format!("warning: could not remove a worktree: {e}"));
        }
        let runs = runs?;
        if let Some(into) = &self.options.into {
            let name = record::folder_name(index, self.dag.len(), &commit.short);
            let files = [
                ("timings.json", record::timings_json(&self.benchmark, &runs)),
                ("version.toml", record::version_toml(&commit)),
            ];
            self.written
                .push(record::write_version(into, &name, &files)?);
        }
        self.measured.insert(index, runs);
        let line = format!(
            "{role}: {} mean {}",
            commit.short,
            format_seconds(self.mean(index))
        );
        self.say(&line);
        Ok(())
    }

    /// `runs` runs of the command in `dir`.
    fn run_all(&self, commit: &DagCommit, dir: &Path) -> Result<Vec<RunTimes>, BisectError> {
        let runs = self.options.runs;
        (1..=runs)
            .map(|run| {
                let out = self
                    .scratch
                    .path()
                    .join(format!("out-{}-{run}.json", commit.short));
                measure::run_once(&self.options.run, dir, &out).map_err(|f| BisectError::Run {
                    commit: commit.short.clone(),
                    summary: measure::shorten(&commit.summary, 60),
                    run,
                    runs,
                    message: f.message,
                    stderr: f.stderr,
                })
            })
            .collect()
    }
}

impl BisectReport {
    /// Whether bad was slower than good (and so a commit was found).
    pub fn regression_found(&self) -> bool {
        self.responsible.is_some()
    }

    /// The end points, a plain-text table of the probes and the responsible
    /// commit (or that there was no regression).
    pub fn table(&self) -> String {
        let mut out = String::new();
        let endpoint = |role: &str, c: &CommitInfo, mean: f64| {
            format!(
                "{role:<5} {}  {:>10}  {}\n",
                c.short,
                format_seconds(mean),
                measure::shorten(&c.summary, 50)
            )
        };
        out.push_str(&endpoint("good", &self.good, self.good_mean));
        out.push_str(&endpoint("bad", &self.bad, self.bad_mean));
        let Some(responsible) = &self.responsible else {
            out.push_str(&format!(
                "no regression: bad {} is not slower than good {}\n",
                self.bad.short, self.good.short
            ));
            return out;
        };
        if !self.probes.is_empty() {
            out.push_str(&format!(
                "\n{:>4}  {:<10}  {:<10}  {:>10}  {:>10}  {:>6}  {:>7}  {}\n",
                "step",
                "probe",
                "against",
                "probe mean",
                "good mean",
                "ratio",
                "weight",
                "judgement"
            ));
        }
        for (i, p) in self.probes.iter().enumerate() {
            let ratio = if p.compared_mean > 0.0 {
                format!("{:.2}", p.mean / p.compared_mean)
            } else {
                "-".to_string()
            };
            out.push_str(&format!(
                "{:>4}  {:<10}  {:<10}  {:>10}  {:>10}  {ratio:>6}  {:>7}  {}\n",
                i + 1,
                p.commit.short,
                p.compared_with.short,
                format_seconds(p.mean),
                format_seconds(p.compared_mean),
                format!("{}/{}", p.weight, p.candidates),
                p.judgement
            ));
        }
        out.push_str(&format!(
            "\nresponsible: {} {}\n",
            responsible.short, responsible.summary
        ));
        out
    }
}

/// Seconds in the unit that reads best: `1.234 s`, `30.12 ms`, `250.0 µs`.
fn format_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "-".to_string();
    }
    let (value, unit) = if seconds >= 1.0 {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    let decimals = if value >= 100.0 {
        1
    } else if value >= 10.0 {
        2
    } else {
        3
    };
    format!("{value:.decimals$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(short: &str) -> CommitInfo {
        CommitInfo {
            oid: format!("{short}000000"),
            short: short.into(),
            summary: format!("summary of {short}"),
        }
    }

    #[test]
    fn the_table_lists_probes_and_the_responsible_commit() {
        let report = BisectReport {
            good: info("aaaaaaaaaa"),
            good_mean: 0.030,
            bad: info("bbbbbbbbbb"),
            bad_mean: 0.120,
            responsible: Some(info("cccccccccc")),
            probes: vec![Probe {
                commit: info("cccccccccc"),
                compared_with: info("aaaaaaaaaa"),
                mean: 0.121,
                compared_mean: 0.030,
                judgement: Judgement::Slower,
                weight: 2,
                candidates: 5,
            }],
            written: vec![],
        };
        let table = report.table();
        assert!(
            table.contains("good  aaaaaaaaaa    30.00 ms  summary of aaaaaaaaaa"),
            "{table}"
        );
        assert!(
            table.contains(
                "   1  cccccccccc  aaaaaaaaaa    121.0 ms    30.00 ms    4.03      2/5  slower"
            ),
            "{table}"
        );
        assert!(
            table.ends_with("responsible: cccccccccc summary of cccccccccc\n"),
            "{table}"
        );

        let none = BisectReport {
            responsible: None,
            probes: vec![],
            ..report
        };
        assert!(!none.regression_found());
        assert!(none
            .table()
            .contains("no regression: bad bbbbbbbbbb is not slower than good aaaaaaaaaa"));
    }

    #[test]
    fn seconds_read_in_a_fitting_unit() {
        assert_eq!(format_seconds(1.5), "1.500 s");
        assert_eq!(format_seconds(0.0301), "30.10 ms");
        assert_eq!(format_seconds(0.00025), "250.0 µs");
        assert_eq!(format_seconds(0.0), "0.000 ns");
        assert_eq!(format_seconds(f64::NAN), "-");
    }

    #[test]
    fn bad_options_are_refused_before_anything_runs() {
        let mut options = BisectOptions::new("/nonexistent", "a", "b", "true");
        options.runs = 0;
        let judge = |_: &[f64], _: &[f64]| Judgement::NotSlower;
        let e = run(&options, &judge, &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("--runs"), "{e}");
        options.runs = 5;
        options.confidence = 1.0;
        assert!(matches!(
            run(&options, &judge, &mut |_| {}),
            Err(BisectError::Usage(_))
        ));
        options.confidence = 0.99;
        options.run = " ".into();
        assert!(matches!(
            run(&options, &judge, &mut |_| {}),
            Err(BisectError::Usage(_))
        ));
    }
}
