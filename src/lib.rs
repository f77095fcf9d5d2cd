//! perfatlas turns a directory of versioned performance data into a
//! self-contained static site.
//!
//! Data flows one way through the stages, each a module:
//!
//! - [`input`]: directory walk, version order, format sniffing, one parser
//!   per format (the only code that touches input bytes);
//! - [`model`]: calling-context trees, frames, metrics, versions;
//! - [`analysis`]: pure functions from the model to figures (flame-graph
//!   layout, totals);
//! - [`render`]: HTML (Tera templates) and SVG for each page kind;
//! - [`site`]: the output tree, written atomically, and its zip.
//!
//! [`build`] runs them all; [`convert`] turns one input into folded stacks
//! or the native JSON; [`check`] is the CI gate on the newest version;
//! [`bisect`] finds the commit that made a command
//! slower, measuring commits in temporary git worktrees.

pub mod analysis;
pub mod bisect;
pub mod check;
pub mod convert;
pub mod error;
pub mod input;
pub mod model;
pub mod render;
pub mod site;
#[cfg(test)]
mod test_support;
pub mod vcs;

use std::path::PathBuf;

pub use error::{BuildError, InputError, ParseError, Place};

/// Which theme the site starts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThemeChoice {
    /// One of the embedded themes: `light`, `dark`, `colorblind`.
    Builtin(String),
    /// A directory holding a `theme.css`.
    Dir(PathBuf),
}

impl Default for ThemeChoice {
    fn default() -> ThemeChoice {
        ThemeChoice::Builtin("light".into())
    }
}

/// Everything `perfatlas build` needs, already validated.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    pub input: PathBuf,
    pub output: PathBuf,
    pub config: Option<PathBuf>,
    pub theme: ThemeChoice,
    pub templates: Option<PathBuf>,
    pub strict: bool,
    pub force: bool,
    pub zip: Option<PathBuf>,
    /// Git repository of the profiled program, for modified methods.
    pub repo: Option<PathBuf>,
    /// Overrides `matrix.min_share` (percent).
    pub min_share: Option<f64>,
    /// Directory of source files for code links (else `repo`).
    pub sources: Option<PathBuf>,
    /// Parse every input file again, and write no build cache.
    pub no_cache: bool,
    /// When another build is writing the same output, wait for it
    /// instead of failing at once.
    pub wait: bool,
}

/// What a build did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub versions: usize,
    pub profiles: usize,
    /// Files of repeated measurements read.
    pub measurement_files: usize,
    pub pages: usize,
    pub skipped: Vec<model::Skipped>,
    /// The notes of the profiles read ([`model::Profile::notes`]), as
    /// (input file, note), in the order of the profiles.
    pub notes: Vec<(String, String)>,
    /// Input files taken from the build cache, and input files parsed.
    pub cached: (usize, usize),
    /// Groups of flame-graph pages kept from the previous site, and
    /// rendered.
    pub pages_kept: (usize, usize),
}

/// Reads `options.input`, renders every page and writes the site.
pub fn build(options: &BuildOptions) -> Result<BuildReport, BuildError> {
    build_with_progress(options, &mut |_| {})
}

/// [`build`], telling `progress` what it does besides building: waiting
/// for another build of the same output, removing what killed builds left.
pub fn build_with_progress(
    options: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<BuildReport, BuildError> {
    check_input_dir(&options.input)?;
    // Refusals first, before any work (writing checks them again).
    site::check_apart(&options.input, &options.output, "output directory")?;
    site::check_replaceable(&options.output, options.force)?;
    if let Some(zip) = &options.zip {
        site::check_apart(&options.input, zip, "--zip")?;
        site::zip::check_replaceable(zip, options.force)?;
    }
    // Held until the new site is in place: before the previous site is
    // read for the cache, so that no other build swaps it meanwhile.
    let output = options.output.display();
    let _lock = site::lock::OutputLock::acquire(&options.output, options.wait, &mut |pid| {
        progress(&format!(
            "waiting for another perfatlas build ({}) writing {output}",
            pid.map_or_else(|| "PID unknown".to_string(), |p| format!("PID {p}"))
        ))
    })?;
    let mut stale = site::remove_stale(&options.output)?;
    if let Some(zip) = &options.zip {
        stale.extend(site::zip::remove_stale(zip));
    }
    for path in stale {
        progress(&format!(
            "removed {}, left by a build that was interrupted",
            path.display()
        ));
    }
    let mut config = input::load::read_config(&options.input, options.config.as_deref())?;
    if let Some(share) = options.min_share {
        if !(0.0..=100.0).contains(&share) {
            return Err(BuildError::Usage(format!(
                "--min-share {share}: expected a percentage from 0 to 100"
            )));
        }
        config.matrix.min_share = share;
    }
    let derived = analysis::derived_metrics::parse_all(&config.metrics)
        .map_err(|message| config_error(options, message))?;
    let cache = match options.no_cache {
        true => input::cache::Cache::disabled(),
        false => input::cache::Cache::for_site(&options.output),
    };
    let mut history = site::timings::phase("load", || {
        input::load::load_history_cached(&options.input, &config, &cache)
    })?;
    analysis::derived_metrics::apply(&mut history, &derived)
        .map_err(|message| config_error(options, message))?;
    let history = history;
    if options.strict && !history.skipped.is_empty() {
        let s = &history.skipped[0];
        let first = format!(
            "{}{}: {}",
            s.file,
            if s.place.is_empty() {
                String::new()
            } else {
                format!(": {}", s.place)
            },
            s.reason
        );
        return Err(BuildError::Strict {
            skipped: history.skipped.len(),
            first,
        });
    }
    let renderer = render::Renderer::new(options.templates.as_deref(), &options.theme)?;
    let reuse = match options.no_cache {
        true => render::reuse::PageReuse::disabled(),
        false => render::reuse::PageReuse::for_site(&options.output),
    };
    let ids = site::timings::phase("identity", || {
        let rules = model::PathRules::of_history(&history, &config.identity.rewrites());
        model::FunctionIds::new(&history, &rules)
    });
    let hierarchy = site::timings::phase("hierarchy", || {
        analysis::hierarchy::Hierarchy::new(&history.frames, &ids, &history.title)
    });
    let modifications = code_changes(options, &config, &history, &hierarchy)?;
    let sources = source_texts(options, &config, &history)?;
    let staging = site::Staging::begin(&options.output, options.force)?;
    let files = site::timings::phase("render", || {
        render::site_files(
            &history,
            &config,
            &renderer,
            &ids,
            hierarchy,
            modifications,
            &sources,
            &render::Output {
                reuse: &reuse,
                staging: Some(&staging),
            },
        )
    })?;
    site::pause::point("render");
    let pages = files.keys().filter(|k| k.ends_with(".html")).count();
    let cached = cache.counts();
    let mut entries = cache.into_entries();
    if let Some(manifest) = reuse.manifest() {
        entries.insert(
            render::reuse::MANIFEST.to_string(),
            input::cache::Written::New(manifest),
        );
    }
    site::timings::phase("write", || staging.write_rest(&files, entries))?;
    // The zip before the swap: a zip that cannot be written (a full disk)
    // fails the build with the previous site and zip untouched.
    let zip = match &options.zip {
        Some(zip) => {
            site::zip::check_replaceable(zip, options.force)?;
            Some(site::zip::prepare(zip, &files, staging.dir())?)
        }
        None => None,
    };
    site::timings::phase("swap", || staging.swap())?;
    if let Some(zip) = zip {
        zip.commit()?;
    }
    site::timings::phase("drop", || drop(files));
    let mut history = history;
    let report = BuildReport {
        versions: history.versions.len(),
        profiles: history.profiles.len(),
        measurement_files: history.measurement_files(),
        pages,
        skipped: std::mem::take(&mut history.skipped),
        notes: history
            .profiles
            .iter()
            .flat_map(|p| {
                p.profile
                    .notes
                    .iter()
                    .map(|n| (p.source.clone(), n.clone()))
            })
            .collect(),
        cached,
        pages_kept: reuse.counts(),
    };
    drop_in_background(history);
    Ok(report)
}

/// Frees the history on a thread of its own: a long measurement history is
/// millions of small allocations, and freeing them took seconds the build's
/// caller does not need to wait for (a process that exits first leaves the
/// freeing to the system).
fn drop_in_background(history: model::History) {
    // When no thread can be started, `spawn` drops the history here.
    let _ = std::thread::Builder::new()
        .name("perfatlas-drop".into())
        .spawn(move || drop(history));
}

/// The input must be an existing directory.
fn check_input_dir(input: &std::path::Path) -> Result<(), BuildError> {
    match std::fs::metadata(input) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(BuildError::Usage(format!(
            "{}: is a file, not a directory of versions (see the README's input layout)",
            input.display()
        ))),
        Err(e) => Err(BuildError::io(input, e)),
    }
}

/// An error in the settings, naming the file they came from.
fn config_error(options: &BuildOptions, message: String) -> BuildError {
    BuildError::Config {
        path: options
            .config
            .clone()
            .unwrap_or_else(|| options.input.join("perfatlas.toml")),
        message,
    }
}

/// Source files for code links: from `--sources`, else `--repo`, else none.
fn source_texts(
    options: &BuildOptions,
    config: &input::config::Config,
    history: &model::History,
) -> Result<input::sources::Sources, BuildError> {
    if let Some(dir) = &options.sources {
        if !dir.is_dir() {
            return Err(BuildError::Usage(format!(
                "--sources {}: not a directory",
                dir.display()
            )));
        }
        return Ok(input::sources::from_dir(dir, history, &config.vcs));
    }
    if let Some(path) = &options.repo {
        let repo = vcs::Repo::open(path)
            .map_err(|e| BuildError::Usage(format!("--repo {}: {e}", path.display())))?;
        return Ok(input::sources::from_repo(&repo, history, &config.vcs));
    }
    Ok(input::sources::Sources::default())
}

/// Which methods each version modified: from `--repo` when given, else
/// from source hashes in the inputs.
fn code_changes(
    options: &BuildOptions,
    config: &input::config::Config,
    history: &model::History,
    hierarchy: &analysis::hierarchy::Hierarchy,
) -> Result<analysis::modifications::Modifications, BuildError> {
    if let Some(path) = &options.repo {
        let repo = vcs::Repo::open(path)
            .map_err(|e| BuildError::Usage(format!("--repo {}: {e}", path.display())))?;
        return Ok(analysis::modifications::from_git(
            &repo,
            history,
            hierarchy,
            &config.vcs,
            config.matrix.diff_popup_lines,
        ));
    }
    let from_hashes = analysis::modifications::from_source_hashes(history, hierarchy);
    if from_hashes.any_known() {
        Ok(from_hashes)
    } else {
        Ok(analysis::modifications::Modifications::unknown(
            history.versions.len(),
            "no --repo given and no source hashes in the inputs",
        ))
    }
}
