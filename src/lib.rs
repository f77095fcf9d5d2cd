//! perfatlas turns a directory of versioned performance data into a
//! self-contained static site.
//!
//! Data flows one way through the stages, each a crate of the workspace
//! (re-exported here under its name):
//!
//! - [`model`]: calling-context trees, frames, metrics, versions, and the
//!   errors every stage returns;
//! - [`config`]: the settings as typed values;
//! - [`input`]: directory walk, version order, format sniffing, one parser
//!   per format (the only code that touches input bytes);
//! - [`vcs`]: the profiled program's git history and source files;
//! - [`analysis`]: pure functions from the model to figures, gathered in
//!   [`analysis::report::Analysis`];
//! - [`render`]: view models to HTML and SVG, one file per page kind, in a
//!   registry ([`render::pages::KINDS`]);
//! - [`site`]: the output tree, written atomically, its zip and caches.
//!
//! [`build`] is the pipeline that runs them; [`convert`] turns one input
//! into folded stacks or the native JSON; [`check`] is the CI gate on the
//! newest version; [`bisect`] finds the commit that made a command slower,
//! measuring commits in temporary git worktrees; [`import`] writes another
//! tool's benchmark history as an input directory.

pub mod bisect;
pub mod check;
pub mod import;

use std::path::{Path, PathBuf};

use instrument::timings::phase;

pub use analysis;
pub use config;
pub use config::ThemeChoice;
pub use input;
pub use input::convert;
pub use model;
pub use model::error;
pub use model::error::{BuildError, ErrorKind, InputError, ParseError, Place};
pub use render;
pub use site;
pub use vcs;

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
    /// Write flame graphs and allocation trees also as standalone `.svg`
    /// files beside their pages.
    pub svg_files: bool,
    /// Write a page for every repetition of a version, readable without
    /// JavaScript, besides the views its version's aggregate page shows.
    pub repetition_pages: bool,
    /// Follow no symbolic link out of the input directory.
    pub no_follow_links: bool,
}

/// What a build did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    pub versions: usize,
    pub profiles: usize,
    /// Files of repeated measurements read.
    pub measurement_files: usize,
    /// Field executions read (Gammatella's).
    pub field_executions: usize,
    pub pages: usize,
    pub skipped: Vec<model::Skipped>,
    /// Remarks on inputs read whole ([`model::History::notes`]): not
    /// problems, so they leave the exit code alone.
    pub notes: Vec<model::Note>,
    /// Input files taken from the build cache, and input files parsed.
    pub cached: (usize, usize),
    /// Groups of flame-graph pages kept from the previous site, and
    /// rendered.
    pub pages_kept: (usize, usize),
    /// Regressions and improvements found (each listed on the index).
    pub findings: (usize, usize),
    /// What went wrong after the new site was in place (a previous site
    /// that could not be removed, with the command that removes it): the
    /// build succeeded, and these are said.
    pub warnings: Vec<String>,
}

/// Reads `options.input`, renders every page and writes the site.
pub fn build(options: &BuildOptions) -> Result<BuildReport, BuildError> {
    build_with_progress(options, &mut |_| {})
}

/// [`build`], telling `progress` what it does besides building: waiting
/// for another build of the same output, removing what killed builds left.
///
/// The pipeline: read (settings, then every input) → analyse (every
/// derived result, once, in order) → render (pages to bytes) → write (the
/// site crate owns the output tree: staging, zip, swap, caches).
pub fn build_with_progress(
    options: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<BuildReport, BuildError> {
    let _lock = claim_output(options, progress)?;
    let mut config = read_settings(&options.input, options.config.as_deref(), options.min_share)?;
    config.input.no_outside_links = options.no_follow_links;
    // The new site is begun before the inputs are read, so the build
    // cache's new entries go into it as they are made.
    let staging = site::Staging::begin(&options.output, options.force)?;
    let parse_cache = match options.no_cache {
        true => site::parse_cache::Cache::disabled(),
        false => {
            let mut cache = site::parse_cache::Cache::for_site(&options.output);
            cache.write_into(staging.dir());
            cache
        }
    };
    // The templates are parsed while the inputs are read: that leaves a
    // core idle at its end, the tree of a big file being built on one.
    let (loaded, renderer) = rayon::join(
        || {
            phase("load", || {
                read_history(
                    &options.input,
                    options.config.as_deref(),
                    options.strict,
                    &config,
                    &parse_cache,
                )
            })
        },
        || {
            render::Renderer::new(&render::RenderOptions {
                templates: options.templates.clone(),
                theme: options.theme.clone(),
                svg_files: options.svg_files,
                repetition_pages: options.repetition_pages,
                ship_derived: std::env::var_os(render::shape_source::SHIP_BOTH_VAR).is_some(),
            })
        },
    );
    let (mut history, deferred) = loaded?;
    let renderer = renderer?;
    instrument::progress::stage("analysing", 0);
    // Frames of bundled JavaScript are mapped to their sources before
    // anything compares versions. The build cache keeps the profiles as
    // read (a map can change while the profile does not), so their
    // entries are written first when any frame is mapped.
    let maps = phase("source maps", || bundle_maps(options, &config, &history))?;
    let deferred = if maps.0.is_empty() {
        Some(deferred)
    } else {
        stage_cache_entries(deferred, &history, &parse_cache, &staging)?;
        let notes = input::bundles::map_frames(&mut history, &maps.0);
        history.input_notes.extend(notes);
        None
    };
    history.input_notes.extend(maps.1);
    // The series take the measurements out of the history: a long
    // history's entries are freed as its series are made.
    let series = phase("series", || {
        analysis::regression::take_series(&mut history, &config)
    });
    let (analysis, sources) = analyse(options, &config, &history, series)?;
    // The analysis' passes over a long history (a test per pair of
    // versions) leave freed blocks that the pages would not reuse.
    phase("release", instrument::memory::release_free);
    let moved: Vec<model::Note> = analysis
        .identity
        .moved
        .iter()
        .map(|m| m.note(&history))
        .collect();
    history.input_notes.extend(moved);
    history
        .input_notes
        .extend(numbered_notes(&analysis.identity.split));
    let page_cache = match options.no_cache {
        true => site::page_cache::PageReuse::disabled(),
        false => site::page_cache::PageReuse::for_site(&options.output),
    };
    // The parsed profiles' cache entries are encoded and written beside the
    // pages, whose end leaves a core idle (a big profile's page finishing
    // on one); beside the analysis, as before, they took its memory
    // highest for no gain in time.
    let (files, staged) = rayon::join(
        || {
            phase("render", || {
                render::site_files(
                    &history,
                    &config,
                    &renderer,
                    &analysis,
                    &sources,
                    &render::Output {
                        pages: &page_cache,
                        sink: Some(&staging),
                    },
                )
            })
        },
        || match deferred {
            Some(deferred) => stage_cache_entries(deferred, &history, &parse_cache, &staging),
            None => Ok(()),
        },
    );
    let files = files?;
    staged?;
    instrument::pause::point("render");
    let pages = files.keys().filter(|k| k.ends_with(".html")).count();
    let cached = parse_cache.counts();
    let mut caches = parse_cache.into_entries();
    if let Some(manifest) = page_cache.manifest() {
        caches.insert(
            site::page_cache::MANIFEST.to_string(),
            site::parse_cache::Written::New(manifest),
        );
    }
    let warnings = write_site(options, staging, &files, caches)?;
    phase("drop", || drop(files));
    let findings = findings(&analysis.regressions);
    drop_in_background(analysis);
    let mut built = report(history, pages, cached, page_cache.counts());
    built.findings = findings;
    built.warnings = warnings;
    Ok(built)
}

/// Refuses what must not be replaced, before any work (writing checks
/// again), takes the output's lock (held until the new site is in place,
/// so no other build swaps it meanwhile) and removes what killed builds
/// left.
fn claim_output(
    options: &BuildOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<site::lock::OutputLock, BuildError> {
    check_input_dir(&options.input)?;
    site::check_apart(&options.input, &options.output, "output directory")?;
    site::check_replaceable(&options.output, options.force)?;
    if let Some(zip) = &options.zip {
        site::check_apart(&options.input, zip, "--zip")?;
        site::guard::check_zip_outside(&options.output, zip)?;
        site::zip::check_replaceable(zip, options.force)?;
    }
    site::guard::check_not_mount_point(&options.output)?;
    site::guard::check_removable(&options.output)?;
    let output = options.output.display();
    let lock = site::lock::OutputLock::acquire(&options.output, options.wait, &mut |pid| {
        progress(&format!(
            "waiting for another perfatlas build ({}) writing {output}",
            pid.map_or_else(|| "PID unknown".to_string(), |p| format!("PID {p}"))
        ))
    })?;
    let site::Stale {
        mut removed,
        warnings,
    } = site::remove_stale(&options.output)?;
    if let Some(zip) = &options.zip {
        removed.extend(site::zip::remove_stale(zip));
    }
    // A build killed between putting its site in place and its zip.
    removed.extend(site::zip::remove_pending(&options.output));
    for path in removed {
        progress(&format!(
            "removed {}, left by a build that was interrupted",
            path.display()
        ));
    }
    for warning in warnings {
        progress(&format!("warning: {warning}"));
    }
    Ok(lock)
}

/// Encodes the cache entries of the profiles this build parsed and writes
/// them into the new site.
fn stage_cache_entries(
    deferred: input::load::Deferred,
    history: &model::History,
    cache: &site::parse_cache::Cache,
    staging: &site::Staging,
) -> Result<(), BuildError> {
    deferred.encode_each(history, |key, entry| {
        staging.write_with(&format!("{}/{key}", site::parse_cache::DIR), entry)?;
        cache.staged(key);
        Ok(())
    })
}

/// The settings: `explicit` or `INPUT/perfatlas.toml` (else defaults),
/// checked whole, with `--min-share` applied.
pub fn read_settings(
    input: &Path,
    explicit: Option<&Path>,
    min_share: Option<f64>,
) -> Result<config::Config, BuildError> {
    let mut config = input::load::read_config(input, explicit)?;
    let path = || settings_path(input, explicit);
    for view in &config.field.views {
        analysis::field_filter::check_view(view).map_err(|message| BuildError::Config {
            path: path(),
            message,
        })?;
    }
    if let Some(share) = min_share {
        if !config::is_percentage(share) {
            return Err(BuildError::Usage(format!(
                "--min-share {share}: expected a percentage from 0 to 100"
            )));
        }
        config.matrix.min_share = share;
    }
    Ok(config)
}

/// The settings file errors name: `explicit`, else `INPUT/perfatlas.toml`.
fn settings_path(input: &Path, explicit: Option<&Path>) -> PathBuf {
    explicit.map_or_else(|| input.join("perfatlas.toml"), Path::to_path_buf)
}

/// Every version and input, with the derived metrics added; with
/// `strict`, the first input that could not be read stops the build. The
/// one read path of `build`, `check` and `digest`, so that each judges the
/// same history.
pub fn read_history(
    input: &Path,
    explicit: Option<&Path>,
    strict: bool,
    config: &config::Config,
    cache: &dyn input::load::ParseCache,
) -> Result<(model::History, input::load::Deferred), BuildError> {
    let config_error = |message| BuildError::Config {
        path: settings_path(input, explicit),
        message,
    };
    let derived = analysis::derived_metrics::parse_all(&config.formulas()).map_err(config_error)?;
    let (mut history, deferred) = input::load::load_history_cached(input, config, cache)?;
    analysis::derived_metrics::apply(&mut history, &derived).map_err(config_error)?;
    if strict && !history.skipped.is_empty() {
        return Err(BuildError::Strict {
            skipped: model::skipped_files(&history.skipped),
            first: history.skipped[0].to_string(),
        });
    }
    Ok((history, deferred))
}

/// The analysis of the history, and the source texts for code links.
fn analyse(
    options: &BuildOptions,
    config: &config::Config,
    history: &model::History,
    series: Vec<analysis::regression::Series>,
) -> Result<(analysis::report::Analysis, vcs::sources::Sources), BuildError> {
    let repo = open_repo(options)?;
    let (ids, hierarchy) = identities(config, history);
    let modifications = code_changes(repo.as_ref(), config, history, &hierarchy);
    let sources = source_texts(options, repo.as_ref(), config, history)?;
    let analysis = analysis::report::Analysis::new(
        history,
        config,
        ids,
        hierarchy,
        modifications,
        &render::paths::MatrixPages,
        &sources.files.iter().map(|f| f.version).collect(),
        series,
    );
    Ok((analysis, sources))
}

/// One function across versions (`[identity]`), and the component
/// hierarchy the matrices and modified methods are counted in.
fn identities(
    config: &config::Config,
    history: &model::History,
) -> (model::FunctionIds, analysis::hierarchy::Hierarchy) {
    let ids = phase("identity", || {
        let rules = model::PathRules::of_history(history, &config.identity.rewrites());
        model::FunctionIds::new(history, &rules)
    });
    let hierarchy = phase("hierarchy", || {
        analysis::hierarchy::Hierarchy::new(&history.frames, &ids, &history.title)
    });
    (ids, hierarchy)
}

/// What the root causes of `check` are computed from, as `build` computes
/// them (bundled frames mapped to their sources, modified methods from
/// `options.repo` or the inputs' source hashes), without the pages. Reads
/// `options.repo` and `options.sources` only.
pub fn cause_finder(
    options: &BuildOptions,
    config: &config::Config,
    history: &mut model::History,
) -> Result<analysis::report::CauseFinder, BuildError> {
    let (maps, _) = bundle_maps(options, config, history)?;
    if !maps.is_empty() {
        input::bundles::map_frames(history, &maps);
    }
    let repo = open_repo(options)?;
    let (ids, hierarchy) = identities(config, history);
    let modifications = code_changes(repo.as_ref(), config, history, &hierarchy);
    Ok(analysis::report::CauseFinder {
        frames: analysis::shapes::ShapeFrames::new(&history.frames, &ids),
        hierarchy,
        modifications,
    })
}

/// Writes what was not written yet, the zip (before the swap: a zip that
/// cannot be written, a full disk, fails the build with the previous site
/// and zip untouched), then puts the new site in place.
fn write_site(
    options: &BuildOptions,
    staging: site::Staging,
    files: &render::SiteFiles,
    caches: std::collections::BTreeMap<String, site::parse_cache::Written>,
) -> Result<Vec<String>, BuildError> {
    instrument::progress::stage("writing the site", 0);
    phase("write", || staging.write_rest(files, caches))?;
    let zip = match &options.zip {
        Some(zip) => {
            site::zip::check_replaceable(zip, options.force)?;
            Some(site::zip::prepare(zip, files, staging.dir())?)
        }
        None => None,
    };
    let mut warnings = phase("swap", || staging.swap())?;
    // The site is in place: what goes wrong now is told, not a failure of
    // a build that changed the site.
    if let Some(zip) = zip {
        if let Err(e) = zip.commit() {
            warnings.push(format!("the new site is in place, but its zip is not: {e}"));
        }
        site::zip::forget_pending(&options.output);
    }
    Ok(warnings)
}

/// Why functions are shown as `lex#1`, `lex#2`: several functions of one
/// name start at different lines of one file in a version. One note per
/// file.
fn numbered_notes(split: &[(String, String, usize)]) -> Vec<model::Note> {
    let mut by_file: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    // The runtime's own code (`node:internal/…`) is no reader's concern.
    let builtin = |f: &str| {
        f.split_once(':')
            .is_some_and(|(s, rest)| s.len() > 1 && !s.contains('/') && !rest.starts_with("//"))
    };
    for (name, file, count) in split.iter().filter(|(_, f, _)| !builtin(f)) {
        by_file.entry(file).or_default().push(match count {
            2 => format!("`{name}#1`, `{name}#2`"),
            _ => format!("`{name}#1` … `{name}#{count}`"),
        });
    }
    by_file
        .into_iter()
        .map(|(file, names)| model::Note {
            file: file.to_string(),
            place: String::new(),
            text: format!(
                "functions of one name start at different lines of this file in a version, so each is numbered in the order they start, on every page: {}",
                names.join(", ")
            ),
        })
        .collect()
}

/// The regressions and improvements a build found.
fn findings(report: &analysis::regression_report::RegressionReport) -> (usize, usize) {
    use analysis::regression::Direction;
    let regressions = report
        .changes
        .iter()
        .filter(|c| c.direction == Direction::Regression)
        .count();
    (regressions, report.changes.len() - regressions)
}

/// What the build did; the history is freed in the background.
fn report(
    mut history: model::History,
    pages: usize,
    cached: (usize, usize),
    pages_kept: (usize, usize),
) -> BuildReport {
    let report = BuildReport {
        versions: history.versions.len(),
        profiles: history.profiles.len(),
        measurement_files: history.measurement_files(),
        field_executions: history.field.iter().map(|f| f.executions.len()).sum(),
        pages,
        skipped: std::mem::take(&mut history.skipped),
        notes: history.notes(),
        cached,
        pages_kept,
        findings: (0, 0),
        warnings: Vec::new(),
    };
    drop_in_background(history);
    report
}

/// Frees `value` (the history, the analysis) on a thread of its own: a
/// long measurement history and its series are millions of small
/// allocations, and freeing them took time the build's caller does not
/// need to wait for (a process that exits first leaves the freeing to the
/// system).
fn drop_in_background<T: Send + 'static>(value: T) {
    // When no thread can be started, `spawn` drops the value here.
    let _ = std::thread::Builder::new()
        .name("perfatlas-drop".into())
        .spawn(move || drop(value));
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

/// Source files for code links: from `--sources`, else `--repo`, else none.
fn source_texts(
    options: &BuildOptions,
    repo: Option<&vcs::Repo>,
    config: &config::Config,
    history: &model::History,
) -> Result<vcs::sources::Sources, BuildError> {
    if let Some(dir) = &options.sources {
        if !dir.is_dir() {
            return Err(BuildError::Usage(format!(
                "--sources {}: not a directory",
                dir.display()
            )));
        }
        return Ok(vcs::sources::from_dir(dir, history, &config.vcs));
    }
    Ok(match repo {
        Some(repo) => vcs::sources::from_repo(repo, history, &config.vcs),
        None => vcs::sources::Sources::default(),
    })
}

/// `--repo`, opened.
fn open_repo(options: &BuildOptions) -> Result<Option<vcs::Repo>, BuildError> {
    options
        .repo
        .as_ref()
        .map(|path| {
            vcs::Repo::open(path)
                .map_err(|e| BuildError::Usage(format!("--repo {}: {e}", path.display())))
        })
        .transpose()
}

/// The source maps of the JavaScript bundles the profiles ran, read where
/// their sources are read (`--sources DIR`, else `--repo` at each
/// version's revision): the map a bundle's `sourceMappingURL` comment
/// names, inline or beside it. With notes on maps named but not found or
/// not readable.
fn bundle_maps(
    options: &BuildOptions,
    config: &config::Config,
    history: &model::History,
) -> Result<(Vec<input::bundles::BundleMap>, Vec<model::Note>), BuildError> {
    use input::source_map::{mapping_url, MapRef, SourceMap};
    let scripts = (0..history.frames.len() as u32).any(|i| {
        history
            .frames
            .get(model::FrameId(i))
            .file
            .as_deref()
            .is_some_and(is_script)
    });
    if !scripts || (options.sources.is_none() && options.repo.is_none()) {
        return Ok((Vec::new(), Vec::new()));
    }
    let repo = open_repo(options)?;
    // Only the scripts: the other sources are read once, for the pages.
    let sources = match (&options.sources, &repo) {
        (Some(dir), _) => vcs::sources::from_dir_where(dir, history, &config.vcs, &is_script),
        (None, Some(repo)) => vcs::sources::from_repo_where(repo, history, &config.vcs, &is_script),
        (None, None) => return Ok((Vec::new(), Vec::new())),
    };
    let read = |version: usize, path: &str| -> Option<String> {
        let v = &history.versions[version];
        if let Some(dir) = &options.sources {
            return [dir.join(&v.name).join(path), dir.join(path)]
                .iter()
                .find_map(|p| std::fs::read_to_string(p).ok());
        }
        let repo = repo.as_ref()?;
        let at = repo
            .resolve(&v.name, v.revision.as_deref(), &config.vcs.tag_patterns)
            .ok()??;
        repo.file_text(&at, path)
    };
    let mut maps = Vec::new();
    let mut notes = Vec::new();
    let mut note = |file: &str, text: String| {
        notes.push(model::Note {
            file: file.to_string(),
            place: String::new(),
            text,
        })
    };
    for file in sources.files.iter().filter(|f| is_script(&f.shown_path)) {
        let (map_path, bytes) = match mapping_url(file.text.as_bytes()) {
            Ok(None) => continue,
            Err(e) => {
                note(
                    &file.shown_path,
                    format!("its source map cannot be read: {e}"),
                );
                continue;
            }
            Ok(Some(MapRef::Inline(bytes))) => (file.shown_path.clone(), bytes),
            Ok(Some(MapRef::Url(url))) => {
                let Some(path) = beside(&file.shown_path, &url) else {
                    continue;
                };
                match read(file.version, &path) {
                    Some(text) => (path, text.into_bytes()),
                    None => {
                        note(
                            &file.shown_path,
                            format!("its source map `{path}` was not found; its frames keep the bundle's places"),
                        );
                        continue;
                    }
                }
            }
        };
        match SourceMap::parse(&map_path, &bytes) {
            Ok(map) => maps.push(input::bundles::BundleMap {
                version: file.version,
                profile_paths: file.profile_paths.clone(),
                bundle: file.shown_path.clone(),
                map_path,
                map,
            }),
            Err(e) => note(
                &file.shown_path,
                format!("its source map cannot be read: {e}"),
            ),
        }
    }
    Ok((maps, notes))
}

/// A JavaScript file, by its extension.
fn is_script(path: &str) -> bool {
    [".js", ".mjs", ".cjs"].iter().any(|e| path.ends_with(e))
}

/// `url` (relative, as a `sourceMappingURL` is) from the directory of
/// `file`, with `.` and `..` resolved; `None` for an absolute URL or one
/// that leaves the tree.
fn beside(file: &str, url: &str) -> Option<String> {
    if url.contains("://") || url.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    for part in url.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// Which methods each version modified: from `--repo` when given, else
/// from source hashes in the inputs.
fn code_changes(
    repo: Option<&vcs::Repo>,
    config: &config::Config,
    history: &model::History,
    hierarchy: &analysis::hierarchy::Hierarchy,
) -> analysis::modifications::Modifications {
    use analysis::modifications::{from_git, from_source_hashes, Modifications};
    if let Some(repo) = repo {
        return from_git(
            repo,
            history,
            hierarchy,
            &config.vcs,
            config.matrix.diff_popup_lines,
        );
    }
    let from_hashes = from_source_hashes(history, hierarchy);
    if from_hashes.any_known() {
        from_hashes
    } else {
        Modifications::unknown(
            history.versions.len(),
            "no --repo given and no source hashes in the inputs",
        )
    }
}
