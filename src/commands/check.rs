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
    /// Address of the published report: every format links each change
    /// to its page and flame diff there.
    #[arg(long, value_name = "URL")]
    pub site_url: Option<String>,
    /// Git repository of the profiled program, as `build --repo`: root
    /// causes say whether the version modified the function (●).
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// Directory of source files, as `build --sources` (bundled frames
    /// are mapped to their sources through the bundles' source maps).
    #[arg(long)]
    pub sources: Option<PathBuf>,
    /// The Markdown report's length limit in characters (GitHub refuses a
    /// comment over 65,536); what does not fit is counted, not cut mid-row.
    #[arg(long, value_name = "CHARS", default_value_t = perfatlas::check::COMMENT_LIMIT)]
    pub max_chars: usize,
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
    let options = options(&args);
    check(&options, args.format, args.max_chars)
}

/// The command line, as the library takes it.
fn options(args: &CheckArgs) -> perfatlas::check::CheckOptions {
    let fail_on = &args.fail_on;
    perfatlas::check::CheckOptions {
        input: args.input.clone(),
        config: args.config.clone(),
        baseline: args.baseline.clone(),
        repo: args.repo.clone(),
        sources: args.sources.clone(),
        site_url: args.site_url.clone(),
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
    }
}

/// `perfatlas check`: prints the report, exit 1 when it failed.
fn check(
    options: &perfatlas::check::CheckOptions,
    format: CheckFormat,
    max_chars: usize,
) -> Result<ExitCode, BuildError> {
    let report = perfatlas::check::check(options)?;
    for s in &report.skipped {
        eprintln!("perfatlas: skipped: {s}");
    }
    let text = match format {
        CheckFormat::Text => report.text(),
        CheckFormat::Markdown => report.markdown(max_chars),
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
