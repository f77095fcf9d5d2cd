//! `perfatlas import`: another tool's benchmark history as an input
//! directory.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use perfatlas::BuildError;

use super::counted;

/// The arguments of `perfatlas import`.
#[derive(Args)]
pub struct ImportArgs {
    /// [FORMAT] SOURCE: the history's format (asv or
    /// github-action-benchmark), then the history.
    #[arg(num_args = 1..=2, required = true, value_name = "SOURCE")]
    pub args: Vec<PathBuf>,
    /// The input directory to write.
    #[arg(short, long, value_name = "INPUT_DIR")]
    pub output: PathBuf,
    /// asv: the project's git repository; commits are ordered as in its
    /// history (default: by the results' dates).
    #[arg(long, value_name = "GIT_DIR")]
    pub repo: Option<PathBuf>,
    /// asv: the machine whose results to import (default: the only one).
    #[arg(long, value_name = "NAME")]
    pub machine: Option<String>,
}

pub fn run(args: ImportArgs) -> Result<ExitCode, BuildError> {
    let ImportArgs {
        mut args,
        output,
        repo,
        machine,
    } = args;
    let source = args.pop().unwrap_or_default();
    let format = args.pop().map(|f| f.to_string_lossy().into_owned());
    import(perfatlas::import::ImportOptions {
        format,
        source,
        output,
        repo,
        machine,
    })
}

/// `perfatlas import`: left-out values, notes and left-out commits on
/// stderr, then what was written; exit 1 when anything was left out.
fn import(options: perfatlas::import::ImportOptions) -> Result<ExitCode, BuildError> {
    let report = perfatlas::import::import(&options)?;
    for w in &report.warnings {
        eprintln!("perfatlas: skipped: {w}");
    }
    for note in &report.notes {
        eprintln!("perfatlas: note: {note}");
    }
    for commit in &report.left_out {
        eprintln!(
            "perfatlas: left out: commit {}: {}",
            commit.revision, commit.reason
        );
    }
    eprintln!(
        "perfatlas: imported {} with {} from {} ({}) into {}{}{}",
        counted(report.versions.len(), "commit"),
        counted(report.benchmarks, "benchmark"),
        options.source.display(),
        report.format,
        options.output.display(),
        if report.order_file {
            " (perfatlas.toml lists them in history order)"
        } else {
            ""
        },
        match report.left_out.len() {
            0 => String::new(),
            n => format!("; {} left out (no usable results)", counted(n, "commit")),
        }
    );
    Ok(
        if report.warnings.is_empty() && report.left_out.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}
