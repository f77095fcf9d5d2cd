//! The `perfatlas` command line: parses arguments, calls the library, prints
//! errors once and maps them to exit codes (0 built, notes or not; 1 built
//! with skipped inputs; 2 nothing built).

mod allocator;
mod progress_bar;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use perfatlas::config;
use perfatlas::{BuildError, BuildOptions, ThemeChoice};

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
    Build {
        /// Input directory: one subdirectory per version.
        input: PathBuf,
        /// Output directory for the site.
        #[arg(short, long)]
        output: PathBuf,
        /// Config file (default: INPUT/perfatlas.toml when present).
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long, default_value = config::THEMES[0], help = config::THEME_HELP)]
        theme: String,
        /// Directory of templates overriding the built-in ones by name.
        #[arg(long)]
        templates: Option<PathBuf>,
        /// Fail when any input, or part of one, cannot be read (notes on
        /// inputs read whole do not count).
        #[arg(long)]
        strict: bool,
        /// No progress line and no summary; skipped inputs and errors are
        /// still printed. (Progress is shown only when standard error is
        /// a terminal.)
        #[arg(short, long)]
        quiet: bool,
        /// Replace an output directory that perfatlas did not create.
        #[arg(long)]
        force: bool,
        /// Also write the site as one zip file.
        #[arg(long)]
        zip: Option<PathBuf>,
        /// Worker threads (default: one per core).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        /// Git repository of the profiled program: modified methods and
        /// source diffs per version (versions map to revisions by
        /// version.toml `revision`, else a tag named like the version).
        #[arg(long)]
        repo: Option<PathBuf>,
        /// Hide matrix components below this share (percent) in every
        /// version (default 2, or `matrix.min_share`).
        #[arg(long)]
        min_share: Option<f64>,
        /// Source files for code links, looked up as DIR/VERSION/PATH then
        /// DIR/PATH (default: from --repo at each version's revision).
        #[arg(long, value_name = "DIR")]
        sources: Option<PathBuf>,
        /// Parse every input again and keep no build cache (by default the
        /// parsed inputs are kept in SITE/.perfatlas-cache, so a rebuild
        /// parses only new or changed files).
        #[arg(long)]
        no_cache: bool,
        /// When another build is writing the same output, wait for it to
        /// finish (by default the build fails at once, exit 2).
        #[arg(long)]
        wait: bool,
        /// Also write each flame graph and allocation tree as a standalone
        /// .svg file beside its page (by default the pages offer "Save as
        /// SVG", which saves the chart as it is shown, and the site is a
        /// third lighter).
        #[arg(long)]
        svg_files: bool,
        /// Also write a page for each repetition of a version, readable
        /// without JavaScript (by default a version's repetitions are views
        /// of its aggregate page, which its script draws, and the site is a
        /// sixth lighter).
        #[arg(long)]
        repetition_pages: bool,
    },
    /// Convert one profile to folded stacks, the native JSON, pprof or
    /// speedscope, on stdout.
    #[command(
        after_help = "Examples:\n  perfatlas convert some.cpuprofile --to folded > some.folded\n  perfatlas convert cpu.pb.gz --to json --metric cpu -o cpu.json\n  perfatlas convert perf.script --to pprof -o perf.pb.gz && go tool pprof -top perf.pb.gz\n  perfatlas convert app.cpuprofile --to speedscope -o app.speedscope.json"
    )]
    Convert {
        /// Input profile (any supported format, gzip or not).
        input: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "folded")]
        to: To,
        /// Metric: the one folded output writes (default: the profile's
        /// first), the only one speedscope output writes (default: all),
        /// pprof's default sample type (all are written).
        #[arg(long)]
        metric: Option<String>,
        /// Write here instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Write one version folder, parsed, to a digest that builds the same site
    ///
    /// A digest holds everything a build reads from the folder; a version
    /// folder holding only its digest builds the same site as the raw files
    /// (docs/digest-format.md).
    #[command(
        after_help = "Examples:\n  perfatlas digest profiles/1.4.0 -o 1.4.0.padigest\n  mkdir -p history/1.4.0 && mv 1.4.0.padigest history/1.4.0/ && perfatlas build history -o site\n\nA digest is read only by the perfatlas version that wrote it.\n\nExit codes: 0 written, 1 written but some inputs could not be read (they are listed, and the build lists them too), 2 nothing written."
    )]
    Digest {
        /// The version folder (a folder of INPUT, as `build` reads it).
        version: PathBuf,
        /// The digest file to write (NAME.padigest).
        #[arg(short, long)]
        output: PathBuf,
    },
    /// CI gate: judge the newest version against the one before it.
    #[command(
        after_help = "Examples:\n  perfatlas check profiles\n  perfatlas check profiles --fail-on minor --format markdown >> \"$GITHUB_STEP_SUMMARY\"\n  perfatlas check profiles --baseline 1.2.0 --format json\n  perfatlas check profiles --format markdown --site-url https://me.github.io/app > comment.md\n  perfatlas check profiles --format junit > perfatlas-junit.xml\n\nExit codes: 0 no regression at or above --fail-on, 1 there is one (or, with --fail-on major,unjudged, a benchmark could not be judged), 2 error."
    )]
    Check {
        /// Input directory: one subdirectory per version.
        input: PathBuf,
        /// Config file (default: INPUT/perfatlas.toml when present).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Compare against this version (name or label) instead of the one
        /// before the newest.
        #[arg(long)]
        baseline: Option<String>,
        /// Fail (exit 1) on a regression of at least this severity; add
        /// `unjudged` (`--fail-on major,unjudged`) to fail also when a
        /// benchmark measured in the newest version could not be judged.
        #[arg(long, value_enum, value_delimiter = ',', default_value = "major")]
        fail_on: Vec<FailOnArg>,
        /// Report format, on stdout: json is documented in
        /// docs/check-format.md; markdown starts with the line
        /// `<!-- perfatlas-check -->` by which a workflow finds (and edits)
        /// its earlier pull-request comment; junit is JUnit XML for CI test
        /// reports.
        #[arg(long, value_enum, default_value = "text")]
        format: CheckFormat,
        /// Address of the published report: the Markdown report links to
        /// it and to each benchmark's page.
        #[arg(long, value_name = "URL")]
        site_url: Option<String>,
    },
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

INPUT_DIR must be new, empty, or written by an earlier import (which is replaced whole). A commit with one value per benchmark gets \"not enough data\" for regression verdicts: they need 3 runs per version.\n\nExit codes: 0 imported, 1 imported but some values were left out (each is printed), 2 nothing written."
    )]
    Import {
        /// [FORMAT] SOURCE: the history's format (asv or
        /// github-action-benchmark), then the history.
        #[arg(num_args = 1..=2, required = true, value_name = "SOURCE")]
        args: Vec<PathBuf>,
        /// The input directory to write.
        #[arg(short, long, value_name = "INPUT_DIR")]
        output: PathBuf,
        /// asv: the project's git repository; commits are ordered as in its
        /// history (default: by the results' dates).
        #[arg(long, value_name = "GIT_DIR")]
        repo: Option<PathBuf>,
        /// asv: the machine whose results to import (default: the only one).
        #[arg(long, value_name = "NAME")]
        machine: Option<String>,
    },
    /// Find the commit that made a command slower, measuring commits in
    /// temporary git worktrees.
    #[command(
        after_help = "CMD runs through `sh -c` in a temporary worktree of each probed commit and either prints a time on its last stdout line (seconds, or with a unit: 12.5 ms) or writes hyperfine JSON to the file named by $PERFATLAS_OUT. A commit is slower when Welch's t-test at 99% confidence says so. Your working tree, index, HEAD and branches are never touched.\n\nExamples:\n  perfatlas bisect --repo . --good v1.2 --bad HEAD --run 'make -s && ./bench'\n  perfatlas bisect --repo ~/src/app --good v1.2 --bad v1.3 --runs 1 \\\n      --run 'cargo build -q --release && hyperfine -N --runs 10 --export-json \"$PERFATLAS_OUT\" target/release/app' --into profiles\n\nExit codes: 0 the responsible commit was found, 1 bad is not slower than good, 2 error."
    )]
    Bisect {
        /// The repository (a work tree or a bare repository); only read.
        #[arg(long)]
        repo: PathBuf,
        /// A revision without the slowdown.
        #[arg(long)]
        good: String,
        /// A later revision with it (good must be its ancestor).
        #[arg(long)]
        bad: String,
        /// The command that measures one run.
        #[arg(long, value_name = "CMD")]
        run: String,
        /// Runs of CMD per commit.
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Store each measured commit as a version folder of INPUT.
        #[arg(long, value_name = "INPUT")]
        into: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum FailOnArg {
    Major,
    Minor,
    Never,
    Unjudged,
}

#[derive(Clone, Copy, ValueEnum)]
enum CheckFormat {
    Text,
    Json,
    Markdown,
    Junit,
}

#[derive(Clone, Copy, ValueEnum)]
enum To {
    /// Folded stacks of one metric (FlameGraph, inferno).
    Folded,
    /// perfatlas's native JSON, everything the model holds.
    Json,
    /// Gzipped pprof profile.proto, every metric a sample type (go tool pprof).
    Pprof,
    /// speedscope JSON, a profile per metric (speedscope.app).
    Speedscope,
}

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
        Err(e) if e.kind() == perfatlas::error::ErrorKind::Internal => {
            eprintln!(
                "perfatlas: {e}\n\
                 perfatlas: please report it with the command and, if you can, the input file"
            );
            ExitCode::from(101)
        }
        Err(e) => {
            eprintln!("perfatlas: error: {e}");
            ExitCode::from(2)
        }
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
        Command::Build {
            input,
            output,
            config,
            theme,
            templates,
            strict,
            quiet,
            force,
            zip,
            jobs,
            repo,
            min_share,
            sources,
            no_cache,
            wait,
            svg_files,
            repetition_pages,
        } => {
            if let Some(j) = jobs {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(j.max(1))
                    .build_global()
                    .map_err(|e| BuildError::Usage(format!("-j {j}: {e}")))?;
            }
            let theme = ThemeChoice::parse(&theme).map_err(BuildError::Usage)?;
            let options = BuildOptions {
                input,
                output: output.clone(),
                config,
                theme,
                templates,
                strict,
                force,
                zip,
                repo,
                min_share,
                sources,
                no_cache,
                wait,
                svg_files,
                repetition_pages,
            };
            progress_bar::install(quiet);
            let built = perfatlas::build_with_progress(&options, &mut |line| {
                progress_bar::say(&format!("perfatlas: {line}"))
            });
            trace::progress::finish();
            let report = built?;
            for s in &report.skipped {
                eprintln!("perfatlas: skipped: {s}");
            }
            if quiet {
                return Ok(exit_code(&report));
            }
            // Remarks on inputs read whole (the exit code ignores them),
            // also listed on the index.
            for note in &report.notes {
                eprintln!("perfatlas: note: {note}");
            }
            eprintln!(
                "perfatlas: wrote {} to {}{}",
                summary(&report),
                output.display(),
                if report.skipped.is_empty() {
                    String::new()
                } else {
                    format!(
                        " ({} in {}; listed on the index page)",
                        counted(report.skipped.len(), "problem"),
                        counted(perfatlas::model::skipped_files(&report.skipped), "input"),
                    )
                }
            );
            Ok(exit_code(&report))
        }
        Command::Check {
            input,
            config,
            baseline,
            fail_on,
            format,
            site_url,
        } => check(input, config, baseline, fail_on, (format, site_url)),
        Command::Bisect {
            repo,
            good,
            bad,
            run,
            runs,
            into,
        } => {
            let mut options = perfatlas::bisect::BisectOptions::new(repo, good, bad, run);
            options.runs = runs;
            options.into = into;
            bisect(options)
        }
        Command::Digest { version, output } => digest(&version, &output),
        Command::Import {
            mut args,
            output,
            repo,
            machine,
        } => {
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
        Command::Convert {
            input,
            to,
            metric,
            output,
        } => {
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
                    let mut file =
                        std::fs::File::create(&path).map_err(|e| BuildError::io(&path, e))?;
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
    }
}

/// A build's exit code: 1 when something was skipped, else 0 (notes do
/// not count).
fn exit_code(report: &perfatlas::BuildReport) -> ExitCode {
    match report.skipped.is_empty() {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    }
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

/// `perfatlas import`: notes and left-out values on stderr, then what was
/// written.
fn import(options: perfatlas::import::ImportOptions) -> Result<ExitCode, BuildError> {
    let report = perfatlas::import::import(&options)?;
    for w in &report.warnings {
        eprintln!("perfatlas: skipped: {w}");
    }
    for note in &report.notes {
        eprintln!("perfatlas: note: {note}");
    }
    eprintln!(
        "perfatlas: imported {} with {} from {} ({}) into {}{}",
        counted(report.versions.len(), "commit"),
        counted(report.benchmarks, "benchmark"),
        options.source.display(),
        report.format,
        options.output.display(),
        if report.order_file {
            " (perfatlas.toml lists them in history order)"
        } else {
            ""
        }
    );
    Ok(if report.warnings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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

/// `1 profile`, `3 profiles`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `622 pages for 24 profiles in 3 versions`.
fn summary(report: &perfatlas::BuildReport) -> String {
    let measurements = match report.measurement_files {
        0 => String::new(),
        n => format!(" and {}", counted(n, "measurement file")),
    };
    let cached = match report.cached {
        (0, _) => String::new(),
        (hits, parsed) => format!(
            " ({hits} of {} input files unchanged, from the build cache)",
            hits + parsed
        ),
    };
    let kept = match report.pages_kept {
        (0, _) => String::new(),
        (kept, rendered) => format!(
            "; {kept} of {} flame-graph page groups unchanged, kept from the previous site",
            kept + rendered
        ),
    };
    format!(
        "{} for {}{measurements} in {}{cached}{kept}",
        counted(report.pages, "page"),
        counted(report.profiles, "profile"),
        counted(report.versions, "version")
    )
}
