//! `perfatlas check`: the CI gate's report on stdout, exit 1 when it failed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use perfatlas::BuildError;

/// The arguments of `perfatlas check`.
#[derive(Args)]
pub struct CheckArgs {
    /// Input directory: one subdirectory per version.
    pub input: PathBuf,
    /// Config file (default: INPUT/perfatlas.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Compare against this version (name or label) instead of the one
    /// before the newest.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Fail (exit 1) on a regression of at least this severity; add
    /// `unjudged` (`--fail-on major,unjudged`) to fail also when a
    /// benchmark measured in the newest version could not be judged.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "major")]
    pub fail_on: Vec<FailOnArg>,
    /// Report format, on stdout: json is documented in
    /// docs/check-format.md; markdown starts with the line
    /// `<!-- perfatlas-check -->` by which a workflow finds (and edits)
    /// its earlier pull-request comment; junit is JUnit XML for CI test
    /// reports.
    #[arg(long, value_enum, default_value = "text")]
    pub format: CheckFormat,
    /// Address of the published report: the Markdown report links to
    /// it and to each benchmark's page.
    #[arg(long, value_name = "URL")]
    pub site_url: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum FailOnArg {
    Major,
    Minor,
    Never,
    Unjudged,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum CheckFormat {
    Text,
    Json,
    Markdown,
    Junit,
}

pub fn run(args: CheckArgs) -> Result<ExitCode, BuildError> {
    let CheckArgs {
        input,
        config,
        baseline,
        fail_on,
        format,
        site_url,
    } = args;
    check(input, config, baseline, fail_on, (format, site_url))
}

/// `perfatlas check`: prints the report, exit 1 when it failed.
fn check(
    input: PathBuf,
    config: Option<PathBuf>,
    baseline: Option<String>,
    fail_on: Vec<FailOnArg>,
    (format, site_url): (CheckFormat, Option<String>),
) -> Result<ExitCode, BuildError> {
    let options = perfatlas::check::CheckOptions {
        input,
        config,
        baseline,
        fail_on: fail_on
            .iter()
            .rev()
            .find_map(|f| match f {
                FailOnArg::Major => Some(perfatlas::check::FailOn::Major),
                FailOnArg::Minor => Some(perfatlas::check::FailOn::Minor),
                FailOnArg::Never => Some(perfatlas::check::FailOn::Never),
                FailOnArg::Unjudged => None,
            })
            .unwrap_or(perfatlas::check::FailOn::Major),
        fail_on_unjudged: fail_on.iter().any(|f| matches!(f, FailOnArg::Unjudged)),
    };
    let report = perfatlas::check::check(&options)?;
    for s in &report.skipped {
        eprintln!("perfatlas: skipped: {s}");
    }
    let text = match format {
        CheckFormat::Text => report.text(),
        CheckFormat::Markdown => report.markdown(site_url.as_deref()),
        CheckFormat::Junit => report.junit(),
        CheckFormat::Json => report
            .json()
            .map_err(|e| BuildError::Usage(format!("cannot write the report as JSON: {e}")))?,
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| BuildError::io("<stdout>", e))?;
    Ok(if report.failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
