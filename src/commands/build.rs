//! `perfatlas build`: the site from a directory of versions, with a
//! progress line, the notes and skipped inputs, and the exit code.

use std::process::ExitCode;

use clap::Args;
use perfatlas::{config, BuildError, BuildOptions, ThemeChoice};

use super::counted;
use crate::progress_bar;
use std::path::PathBuf;

/// The arguments of `perfatlas build`.
#[derive(Args)]
pub struct BuildArgs {
    /// Input directory: one subdirectory per version.
    pub input: PathBuf,
    /// Output directory for the site.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Config file (default: INPUT/perfatlas.toml when present).
    #[arg(long)]
    pub config: Option<PathBuf>,
    #[arg(long, default_value = config::THEMES[0], help = config::THEME_HELP)]
    pub theme: String,
    /// Directory of templates overriding the built-in ones by name.
    #[arg(long)]
    pub templates: Option<PathBuf>,
    /// Fail when any input, or part of one, cannot be read (notes on
    /// inputs read whole do not count).
    #[arg(long)]
    pub strict: bool,
    /// No progress line and no summary; skipped inputs and errors are
    /// still printed. (Progress is shown only when standard error is
    /// a terminal.)
    #[arg(short, long)]
    pub quiet: bool,
    /// Replace an output directory that perfatlas did not create.
    #[arg(long)]
    pub force: bool,
    /// Also write the site as one zip file.
    #[arg(long)]
    pub zip: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Git repository of the profiled program: modified methods and
    /// source diffs per version (versions map to revisions by
    /// version.toml `revision`, else a tag named like the version).
    #[arg(long)]
    pub repo: Option<PathBuf>,
    /// Hide matrix components below this share (percent) in every
    /// version (default 2, or `matrix.min_share`).
    #[arg(long)]
    pub min_share: Option<f64>,
    /// Source files for code links, looked up as DIR/VERSION/PATH then
    /// DIR/PATH (default: from --repo at each version's revision).
    #[arg(long, value_name = "DIR")]
    pub sources: Option<PathBuf>,
    /// Parse every input again and keep no build cache (by default the
    /// parsed inputs are kept in SITE/.perfatlas-cache, so a rebuild
    /// parses only new or changed files).
    #[arg(long)]
    pub no_cache: bool,
    /// When another build is writing the same output, wait for it to
    /// finish (by default the build fails at once, exit 2).
    #[arg(long)]
    pub wait: bool,
    /// Also write each flame graph and allocation tree as a standalone
    /// .svg file beside its page (by default the pages offer "Save as
    /// SVG", which saves the chart as it is shown, and the site is a
    /// third lighter).
    #[arg(long)]
    pub svg_files: bool,
    /// Also write a page for each repetition of a version, readable
    /// without JavaScript (by default a version's repetitions are views
    /// of its aggregate page, which its script draws, and the site is a
    /// sixth lighter).
    #[arg(long)]
    pub repetition_pages: bool,
    /// Follow no symbolic link out of the input directory (a version
    /// folder or file linked from elsewhere is skipped, saying so): for a
    /// history from an untrusted upload, which must not read the system.
    #[arg(long)]
    pub no_follow_links: bool,
    /// Largest size, in MiB, a gzip input may expand to (default 512):
    /// data expanding past it is refused before any of it is kept (a
    /// gzip bomb costs no memory).
    #[arg(long, value_name = "MIB")]
    pub gzip_limit: Option<u64>,
    /// One frame per sampled line, as pprof's `-lines` draws them (by
    /// default a function is one frame, its lines in the source pages'
    /// line table).
    #[arg(long)]
    pub lines: bool,
}

pub fn run(args: BuildArgs) -> Result<ExitCode, BuildError> {
    let BuildArgs {
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
        no_follow_links,
        gzip_limit,
        lines,
    } = args;
    perfatlas::model::set_line_granularity(lines);
    if let Some(mib) = gzip_limit {
        perfatlas::input::text::set_gzip_limit(mib.saturating_mul(1 << 20));
    }
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
        no_follow_links,
    };
    progress_bar::install(quiet);
    let built = perfatlas::build_with_progress(&options, &mut |line| {
        progress_bar::say(&format!("perfatlas: {line}"))
    });
    instrument::progress::finish();
    let report = built?;
    for s in &report.skipped {
        eprintln!("perfatlas: skipped: {s}");
    }
    for w in &report.warnings {
        eprintln!("perfatlas: warning: {w}");
    }
    if quiet {
        return Ok(exit_code(&report));
    }
    // Remarks on inputs read whole (the exit code ignores them),
    // also listed on the index.
    for line in super::notes::lines(&report.notes) {
        eprintln!("perfatlas: note: {line}");
    }
    eprintln!(
        "perfatlas: wrote {} to {}{}{}",
        summary(&report),
        output.display(),
        reused(&report),
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
    eprintln!("perfatlas: {}", findings_line(&report, &output));
    Ok(exit_code(&report))
}

/// What a reader does next: how many changes the report found, and the
/// page to open.
fn findings_line(report: &perfatlas::BuildReport, output: &std::path::Path) -> String {
    let index = std::path::absolute(output.join("index.html"))
        .unwrap_or_else(|_| output.join("index.html"));
    let found = match report.findings {
        (0, 0) => "no regression or improvement found".to_string(),
        (r, i) => format!(
            "{} and {} found",
            counted(r, "regression"),
            counted(i, "improvement")
        ),
    };
    format!("{found}; open {}", index.display())
}

/// A build's exit code: 1 when something was skipped, else 0 (notes do
/// not count).
fn exit_code(report: &perfatlas::BuildReport) -> ExitCode {
    match report.skipped.is_empty() {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    }
}

/// `622 pages for 24 profiles in 3 versions`, naming only what the input
/// has besides profiles (`22 pages for 30 field executions in 1 version`).
fn summary(report: &perfatlas::BuildReport) -> String {
    let mut read: Vec<String> = [
        (report.profiles, "profile"),
        (report.measurement_files, "measurement file"),
        (report.field_executions, "field execution"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| counted(*n, what))
    .collect();
    if read.is_empty() {
        read.push(counted(0, "profile"));
    }
    let last = read.pop().unwrap_or_default();
    let read = match read.is_empty() {
        true => last,
        false => format!("{} and {last}", read.join(", ")),
    };
    format!(
        "{} for {read} in {}",
        counted(report.pages, "page"),
        counted(report.versions, "version")
    )
}

/// What the build took from the build cache and the previous site.
fn reused(report: &perfatlas::BuildReport) -> String {
    format!("{}{}", cached(report), kept(report))
}

fn cached(report: &perfatlas::BuildReport) -> String {
    match report.cached {
        (0, _) => String::new(),
        (hits, parsed) => format!(
            " ({hits} of {} input files unchanged, from the build cache)",
            hits + parsed
        ),
    }
}

fn kept(report: &perfatlas::BuildReport) -> String {
    match report.pages_kept {
        (0, _) => String::new(),
        (kept, rendered) => format!(
            "; {kept} of {} flame-graph page groups unchanged, kept from the previous site",
            kept + rendered
        ),
    }
}
