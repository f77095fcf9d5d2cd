//! `perfatlas bisect`: progress on stderr, the table of probes on stdout,
//! and clean-up on SIGINT and SIGTERM.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use perfatlas::BuildError;

/// The arguments of `perfatlas bisect`.
#[derive(Args)]
pub struct BisectArgs {
    /// The repository (a work tree or a bare repository); only read.
    #[arg(long)]
    pub repo: PathBuf,
    /// A revision without the slowdown.
    #[arg(long)]
    pub good: String,
    /// A later revision with it (good must be its ancestor).
    #[arg(long)]
    pub bad: String,
    /// The command that measures one run.
    #[arg(long, value_name = "CMD")]
    pub run: String,
    /// Runs of CMD per commit.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Store each measured commit as a version folder of INPUT.
    #[arg(long, value_name = "INPUT")]
    pub into: Option<PathBuf>,
}

pub fn run(args: BisectArgs) -> Result<ExitCode, BuildError> {
    let BisectArgs {
        repo,
        good,
        bad,
        run,
        runs,
        into,
    } = args;
    let mut options = perfatlas::bisect::BisectOptions::new(repo, good, bad, run);
    options.runs = runs;
    options.into = into;
    bisect(options)
}

/// On SIGINT or SIGTERM during a bisection: stop the measured command,
/// remove the worktree and the scratch directory, say so, and exit 128 +
/// the signal's number (130, 143), as a shell reports such a death.
fn clean_up_bisect_on_signals() -> Result<(), BuildError> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])
        .map_err(|e| BuildError::Usage(format!("cannot handle SIGINT and SIGTERM: {e}")))?;
    std::thread::Builder::new()
        .name("perfatlas-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let name = if signal == SIGINT {
                    "SIGINT"
                } else {
                    "SIGTERM"
                };
                eprintln!("perfatlas: interrupted ({name}); cleaning up");
                for line in perfatlas::bisect::clean_up_interrupted() {
                    eprintln!("perfatlas: {line}");
                }
                std::process::exit(128 + signal);
            }
        })
        .map_err(|e| BuildError::Usage(format!("cannot start the signal thread: {e}")))?;
    Ok(())
}

/// `perfatlas bisect`: progress on stderr, the table on stdout.
fn bisect(options: perfatlas::bisect::BisectOptions) -> Result<ExitCode, BuildError> {
    clean_up_bisect_on_signals()?;
    use perfatlas::analysis::stats;
    use perfatlas::vcs::commit_search::Judgement;
    let confidence = options.confidence;
    // Slower: Welch's t-test rejects equal means and the candidate's mean is
    // higher. Fewer than two samples a side cannot be tested.
    let judge = |good: &[f64], candidate: &[f64]| match stats::welch(good, candidate, confidence) {
        Some(c) if c.significant() && c.difference > 0.0 => Judgement::Slower,
        _ => Judgement::NotSlower,
    };
    let mut progress = |line: &str| eprintln!("perfatlas: {line}");
    let report = perfatlas::bisect::run(&options, &judge, &mut progress)
        .map_err(|e| BuildError::Usage(e.to_string()))?;
    std::io::stdout()
        .lock()
        .write_all(report.table().as_bytes())
        .map_err(|e| BuildError::io("<stdout>", e))?;
    Ok(if report.regression_found() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
