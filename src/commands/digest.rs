//! `perfatlas digest`: one version folder, parsed, in one file.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use perfatlas::BuildError;

/// The arguments of `perfatlas digest`.
#[derive(Args)]
pub struct DigestArgs {
    /// The version folder (a folder of INPUT, as `build` reads it).
    pub version: PathBuf,
    /// The digest file to write (NAME.padigest).
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn run(args: DigestArgs) -> Result<ExitCode, BuildError> {
    digest(&args.version, &args.output)
}

/// `perfatlas digest`: the digest written next to its final name, then
/// moved there, so a reader never sees half a file.
fn digest(version: &std::path::Path, output: &std::path::Path) -> Result<ExitCode, BuildError> {
    if !output
        .file_name()
        .is_some_and(|n| perfatlas::input::digest::is_digest(&n.to_string_lossy()))
    {
        return Err(BuildError::Usage(format!(
            "{}: a digest's name ends in .{} (the build recognises it by that)",
            output.display(),
            perfatlas::input::digest::EXTENSION
        )));
    }
    let (bytes, summary) = perfatlas::input::digest::write_version(version)?;
    let tmp = output.with_extension(format!(
        "{}.tmp-{}",
        perfatlas::input::digest::EXTENSION,
        std::process::id()
    ));
    std::fs::write(&tmp, &bytes)
        .and_then(|_| std::fs::rename(&tmp, output))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            BuildError::io(output, e)
        })?;
    eprintln!(
        "perfatlas: {}: {} file{}{}{}, {} bytes of input in a {}-byte digest",
        output.display(),
        summary.files,
        if summary.files == 1 { "" } else { "s" },
        match summary.executions {
            0 => String::new(),
            n => format!(" and {n} field execution{}", if n == 1 { "" } else { "s" }),
        },
        match summary.skipped {
            0 => String::new(),
            n => format!(" ({n} could not be read: a build lists them)"),
        },
        summary.input_bytes,
        summary.digest_bytes
    );
    Ok(match summary.skipped {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}
