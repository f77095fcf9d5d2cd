//! The `perfatlas` command line: parses arguments, calls the library, prints
//! errors once and maps them to exit codes (0 built, notes or not; 1 built
//! with skipped inputs; 2 nothing built).

mod allocator;
mod commands;
mod progress_bar;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use perfatlas::BuildError;

#[derive(Parser)]
#[command(
    name = "perfatlas",
    version,
    about = "Static reports of how a program's performance evolved, from the profiles you already have"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the report site from a directory of versions.
    #[command(
        after_help = "Examples:\n  perfatlas build sample-data/python-markdown -o site\n  perfatlas build profiles -o site --theme dark --zip report.zip\n\nExit codes: 0 built (notes on inputs read whole do not count), 1 built but some inputs or parts of them were skipped (listed on the index page), 2 nothing built."
    )]
    Build(commands::build::BuildArgs),
    /// Convert one profile to folded stacks, the native JSON, pprof or
    /// speedscope, on stdout.
    #[command(
        after_help = "Examples:\n  perfatlas convert some.cpuprofile --to folded > some.folded\n  perfatlas convert cpu.pb.gz --to json --metric cpu -o cpu.json\n  perfatlas convert perf.script --to pprof -o perf.pb.gz && go tool pprof -top perf.pb.gz\n  perfatlas convert app.cpuprofile --to speedscope -o app.speedscope.json"
    )]
    Convert(commands::convert::ConvertArgs),
    /// Archive one version folder in one file that builds the same site
    ///
    /// A digest keeps the folder's raw files (version.toml, every input,
    /// field/), compressed; a version folder holding only its digest builds
    /// the same site as the raw files, with this perfatlas or any later one
    /// (docs/digest-format.md).
    #[command(
        after_help = "Examples:\n  perfatlas digest profiles/1.4.0 -o 1.4.0.padigest\n  mkdir -p history/1.4.0 && mv 1.4.0.padigest history/1.4.0/ && perfatlas build history -o site\n\nExit codes: 0 written, 1 written but some inputs could not be read (they are listed, and the build lists them too), 2 nothing written."
    )]
    Digest(commands::digest::DigestArgs),
    /// CI gate: judge the newest version against the one before it.
    #[command(
        after_help = "Examples:\n  perfatlas check profiles\n  perfatlas check profiles --fail-on minor --format markdown >> \"$GITHUB_STEP_SUMMARY\"\n  perfatlas check profiles --baseline 1.2.0 --format json\n  perfatlas check profiles --format markdown --site-url https://me.github.io/app > comment.md\n  perfatlas check profiles --format junit > perfatlas-junit.xml\n\nExit codes: 0 no regression at or above --fail-on, 1 there is one (or, with --fail-on major,unjudged, a benchmark could not be judged), 2 error."
    )]
    Check(commands::check::CheckArgs),
    /// Write a benchmark history from another tool (asv, github-action-benchmark) as an input directory
    ///
    /// Each commit becomes a version folder, NNN-<short id>/, with its
    /// version.toml and its measurements in perfatlas's measurement JSON;
    /// `perfatlas build INPUT_DIR -o SITE` then reads it.
    #[command(
        override_usage = "perfatlas import [FORMAT] SOURCE -o INPUT_DIR [--repo GIT_DIR] [--machine NAME]",
        after_help = "FORMAT is recognised from SOURCE when left out:
  asv                      an asv results directory (or the asv project holding results/)
  github-action-benchmark  the action's data.js (or its JSON file)

Examples:
  perfatlas import asv ~/src/app/.asv/results --repo ~/src/app -o history
  perfatlas import gh-pages/dev/bench/data.js -o history && perfatlas build history -o site

INPUT_DIR must be new, empty, or written by an earlier import (which is replaced whole). A commit with one value per benchmark is judged by the change points of the history (a level must hold for 3 commits), or, between two commits only, by the intervals the tool recorded; 3 runs per commit give a test between two commits.\n\nExit codes: 0 imported, 1 imported but some values were left out (each is printed), 2 nothing written."
    )]
    Import(commands::import::ImportArgs),
    /// Find the commit that made a command slower, measuring commits in
    /// temporary git worktrees.
    #[command(
        after_help = "CMD runs through `sh -c` in a temporary worktree of each probed commit and either prints a time on its last stdout line (seconds, or with a unit: 12.5 ms) or writes hyperfine JSON to the file named by $PERFATLAS_OUT. A commit is slower when Welch's t-test at 99% confidence says so. Your working tree, index, HEAD and branches are never touched.\n\nExamples:\n  perfatlas bisect --repo . --good v1.2 --bad HEAD --run 'make -s && ./bench'\n  perfatlas bisect --repo ~/src/app --good v1.2 --bad v1.3 --runs 1 \\\n      --run 'cargo build -q --release && hyperfine -N --runs 10 --export-json \"$PERFATLAS_OUT\" target/release/app' --into profiles\n\nExit codes: 0 the responsible commit was found, 1 bad is not slower than good, 2 error."
    )]
    Bisect(commands::bisect::BisectArgs),
}

/// Big blocks are mapped on huge pages (see [`allocator`]).
#[global_allocator]
static GLOBAL: allocator::LargeBlocks = allocator::LargeBlocks;

fn main() -> ExitCode {
    allocator::tune();
    report_panics_as_bugs();
    // Past a file-size limit (`ulimit -f`) the default action of SIGXFSZ
    // kills the process, leaving its staging directory; ignored, the write
    // fails with EFBIG, which names the file and cleans up like any other
    // write error.
    // SAFETY: setting a signal's disposition to SIG_IGN, before any thread.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(cli) {
        Ok(code) => code,
        // The reader of standard output went away (`… | head`): what it
        // wanted was written; exit quietly, as Unix tools do.
        Err(BuildError::Io { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(e) if e.kind() == perfatlas::error::ErrorKind::Internal => {
            eprintln!(
                "perfatlas: {e}\n\
                 perfatlas: please report it with the command and, if you can, the input file"
            );
            ExitCode::from(101)
        }
        Err(e) => {
            eprintln!("perfatlas: error: {e}{}", flag_hint(&e));
            ExitCode::from(2)
        }
    }
}

/// What the command line offers for an error the library reports without
/// knowing the command line.
fn flag_hint(e: &BuildError) -> &'static str {
    match e {
        BuildError::OutputNotOurs(_) => "; use --force to replace it",
        BuildError::Strict { .. } => " (--strict)",
        BuildError::Busy { .. } => ", or pass --wait to wait for it",
        _ => "",
    }
}

/// A panic is a bug in perfatlas, never the input's fault (inputs get
/// errors): say so plainly, with where it happened, and exit 101 (Rust's
/// panic exit code). RUST_BACKTRACE still adds the backtrace.
fn report_panics_as_bugs() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        eprintln!(
            "perfatlas: internal error (a bug in perfatlas, not in your input): {info}\n\
             perfatlas: please report it with the command and, if you can, the input file"
        );
        if std::env::var_os("RUST_BACKTRACE").is_some() {
            default(info);
        }
    }));
}

fn run(cli: Cli) -> Result<ExitCode, BuildError> {
    match cli.command {
        Command::Build(args) => commands::build::run(args),
        Command::Convert(args) => commands::convert::run(args),
        Command::Digest(args) => commands::digest::run(args),
        Command::Check(args) => commands::check::run(args),
        Command::Import(args) => commands::import::run(args),
        Command::Bisect(args) => commands::bisect::run(args),
    }
}
