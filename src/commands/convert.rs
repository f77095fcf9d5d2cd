//! `perfatlas convert`: one profile to folded stacks, the native JSON,
//! pprof or speedscope.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use perfatlas::BuildError;

/// The arguments of `perfatlas convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// Input profile (any supported format, gzip or not).
    pub input: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value = "folded")]
    pub to: To,
    /// Metric: the one folded output writes (default: the profile's
    /// first), the only one speedscope output writes (default: all),
    /// pprof's default sample type (all are written).
    #[arg(long)]
    pub metric: Option<String>,
    /// Write here instead of stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// One frame per sampled line (`name (file:line)`), as pprof's
    /// `-lines` (by default one frame per function).
    #[arg(long)]
    pub lines: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum To {
    /// Folded stacks of one metric (FlameGraph, inferno).
    Folded,
    /// perfatlas's native JSON, everything the model holds.
    Json,
    /// Gzipped pprof profile.proto, every metric a sample type (go tool pprof).
    Pprof,
    /// speedscope JSON, a profile per metric (speedscope.app).
    Speedscope,
}

pub fn run(args: ConvertArgs) -> Result<ExitCode, BuildError> {
    let ConvertArgs {
        input,
        to,
        metric,
        output,
        lines,
    } = args;
    perfatlas::model::set_line_granularity(lines);
    let target = match to {
        To::Folded => perfatlas::convert::Target::Folded,
        To::Json => perfatlas::convert::Target::Json,
        To::Pprof => perfatlas::convert::Target::Pprof,
        To::Speedscope => perfatlas::convert::Target::Speedscope,
    };
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parsed = perfatlas::convert::read_file(&input)?;
    let m = perfatlas::convert::pick_metric(&parsed, metric.as_deref())?;
    for w in &parsed.warnings {
        eprintln!("perfatlas: skipped: {}: {w}", input.display());
    }
    for note in &parsed.profile.notes {
        eprintln!("perfatlas: note: {}: {note}", input.display());
    }
    // The file is created only once the input has parsed.
    match output {
        Some(path) => {
            let mut file = std::fs::File::create(&path).map_err(|e| BuildError::io(&path, e))?;
            perfatlas::convert::write(&parsed, target, m, &name, &mut file)
                .map_err(|e| BuildError::io(&path, e))?;
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            perfatlas::convert::write(&parsed, target, m, &name, &mut stdout)
                .map_err(|e| BuildError::io("<stdout>", e))?;
        }
    }
    Ok(if parsed.warnings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
