//! `perfatlas digest`: one version folder archived in one file.

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
    /// Also keep what this perfatlas parsed, which a build by this same
    /// version reads instead of parsing again (other versions parse the
    /// raw files); makes the digest about twice as large, larger than the
    /// raw files gzipped.
    #[arg(long)]
    pub records: bool,
}

pub fn run(args: DigestArgs) -> Result<ExitCode, BuildError> {
    digest(&args.version, &args.output, args.records)
}

/// `perfatlas digest`: the digest written next to its final name, then
/// moved there, so a reader never sees half a file.
fn digest(
    version: &std::path::Path,
    output: &std::path::Path,
    records: bool,
) -> Result<ExitCode, BuildError> {
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
    let (bytes, summary) = perfatlas::input::digest::write_version(version, records)?;
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
        "perfatlas: {}: {} file{}{}{}, {} bytes of input in a {}-byte digest{}",
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
        summary.digest_bytes,
        match (records, summary.records) {
            (false, _) => "",
            (true, true) => " with this perfatlas's records",
            (true, false) => " (no records: its version.toml is not UTF-8 text, raw files only)",
        }
    );
    Ok(match summary.skipped {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(1),
    })
}
