//! HTML and SVG for each page kind. Templates and themes are embedded in
//! the binary; `--templates DIR` replaces any of them by file name and
//! `--theme DIR` adds a theme from a directory holding `theme.css`.
//!
//! Each page kind has its own file with a view model (numbers already
//! formatted) and the function that renders it; templates only place text.

pub mod aggregate_page;
pub mod allocation_page;
pub mod benchmark_page;
pub mod callgraph_svg;
pub mod component_page;
pub mod diff_page;
pub mod field_page;
pub mod flame_diff_page;
pub mod flame_svg;
pub mod flame_view;
pub mod format;
pub mod index_page;
pub mod matrix_page;
pub mod matrix_svg;
pub mod paths;
pub mod profile_page;
pub mod quick_number;
pub mod regression_page;
pub mod reuse;
pub mod series_svg;
pub mod series_table;
pub mod site_files;
pub mod source_page;
pub mod svg;
pub mod timeline_page;
pub mod timeline_svg;
pub mod tree_table;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use analysis::evolution::EvolutionPlan;
use analysis::line_costs::{self, VersionCosts};
use analysis::regression_report::RegressionReport;
use analysis::report::Analysis;
use analysis::shapes::ShapeFrames;
use config::Config;
use config::ThemeChoice;
use model::error::BuildError;
use model::{History, Unit};
use reuse::PageStore;
use source_page::SourceLinks;
use vcs::sources::Sources;

pub use site_files::{Body, FileSink, SiteFiles};

/// Built-in templates and static assets, by name.
const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../templates/base.html")),
    ("index.html", include_str!("../templates/index.html")),
    ("profile.html", include_str!("../templates/profile.html")),
    ("matrix.html", include_str!("../templates/matrix.html")),
    (
        "component.html",
        include_str!("../templates/component.html"),
    ),
    (
        "timelines.html",
        include_str!("../templates/timelines.html"),
    ),
    ("diff.html", include_str!("../templates/diff.html")),
    (
        "aggregate.html",
        include_str!("../templates/aggregate.html"),
    ),
    (
        "flamediff.html",
        include_str!("../templates/flamediff.html"),
    ),
    ("graph.html", include_str!("../templates/graph.html")),
    (
        "benchmark.html",
        include_str!("../templates/benchmark.html"),
    ),
    (
        "regression.html",
        include_str!("../templates/regression.html"),
    ),
    (
        "allocation.html",
        include_str!("../templates/allocation.html"),
    ),
    ("field.html", include_str!("../templates/field.html")),
    (
        "field_file.html",
        include_str!("../templates/field_file.html"),
    ),
    ("source.html", include_str!("../templates/source.html")),
    (
        "tree_table.html",
        include_str!("../templates/tree_table.html"),
    ),
];
const ASSETS: &[(&str, &str)] = &[
    (
        "perfatlas.js",
        include_str!("../templates/assets/perfatlas.js"),
    ),
    (
        "perfatlas.css",
        include_str!("../templates/assets/perfatlas.css"),
    ),
    (
        "flame-standalone.js",
        include_str!("../templates/assets/flame-standalone.js"),
    ),
    (
        "allocation.js",
        include_str!("../templates/assets/allocation.js"),
    ),
    ("field.js", include_str!("../templates/assets/field.js")),
    (
        "field-filter.js",
        include_str!("../templates/assets/field-filter.js"),
    ),
];
/// Built-in themes, in the order the theme menu lists them.
const THEMES: &[(&str, &str)] = &[
    ("light", include_str!("../themes/light/theme.css")),
    ("dark", include_str!("../themes/dark/theme.css")),
    ("colorblind", include_str!("../themes/colorblind/theme.css")),
];

/// Templates, assets and themes for one build.
pub struct Renderer {
    tera: tera::Tera,
    assets: BTreeMap<String, String>,
    /// (name, css) in menu order; the first is the default.
    themes: Vec<(String, String)>,
    /// Digest of the templates, assets and themes, for page reuse.
    fingerprint: u128,
}

impl Renderer {
    /// Loads the built-in templates, then overrides from `templates_dir`,
    /// and puts the chosen theme first.
    pub fn new(templates_dir: Option<&Path>, theme: &ThemeChoice) -> Result<Renderer, BuildError> {
        let mut sources: BTreeMap<String, String> = TEMPLATES
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect();
        let mut assets: BTreeMap<String, String> = ASSETS
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect();
        if let Some(dir) = templates_dir {
            override_from(dir, &mut sources, "html")?;
            override_from(&dir.join("assets"), &mut assets, "")?;
        }
        let mut tera = tera::Tera::default();
        tera.autoescape_on(vec![".html"]);
        tera.set_escape_fn(escape_html);
        tera.add_raw_templates(sources.iter().map(|(n, s)| (n.as_str(), s.as_str())))
            .map_err(|e| template_error("templates", e))?;
        let mut themes: Vec<(String, String)> = THEMES
            .iter()
            .map(|(n, c)| (n.to_string(), c.to_string()))
            .collect();
        match theme {
            ThemeChoice::Builtin(name) => {
                let i = themes.iter().position(|(n, _)| n == name).ok_or_else(|| {
                    BuildError::Usage(format!(
                        "unknown theme {name:?}: use light, dark, colorblind or a directory"
                    ))
                })?;
                let chosen = themes.remove(i);
                themes.insert(0, chosen);
            }
            ThemeChoice::Dir(dir) => {
                let path = dir.join("theme.css");
                let css = std::fs::read_to_string(&path).map_err(|e| BuildError::io(&path, e))?;
                let name = paths::slug(
                    &dir.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "custom".into()),
                );
                themes.retain(|(n, _)| *n != name);
                themes.insert(0, (name, css));
            }
        }
        let mut digest = reuse::Digest::new("renderer");
        for (name, text) in sources.iter().chain(&assets) {
            digest.str(name).str(text);
        }
        for (name, css) in &themes {
            digest.str(name).str(css);
        }
        let fingerprint = digest.finish();
        Ok(Renderer {
            tera,
            assets,
            themes,
            fingerprint,
        })
    }

    /// Renders template `name` with `context`.
    pub fn render<T: Serialize>(&self, name: &str, context: &T) -> Result<String, BuildError> {
        let ctx = tera::Context::from_serialize(context).map_err(|e| template_error(name, e))?;
        self.tera
            .render(name, &ctx)
            .map_err(|e| template_error(name, e))
    }

    /// A digest of every template, asset and theme this renderer uses.
    pub fn fingerprint(&self) -> u128 {
        self.fingerprint
    }

    pub fn asset(&self, name: &str) -> &str {
        self.assets.get(name).map(String::as_str).unwrap_or("")
    }

    pub fn default_theme(&self) -> &str {
        &self.themes[0].0
    }

    pub fn theme_names(&self) -> Vec<String> {
        self.themes.iter().map(|(n, _)| n.clone()).collect()
    }

    pub fn theme_css(&self, name: &str) -> &str {
        self.themes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.as_str())
            .unwrap_or("")
    }
}

fn override_from(
    dir: &Path,
    map: &mut BTreeMap<String, String>,
    only_ext: &str,
) -> Result<(), BuildError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !only_ext.is_empty() => {
            return Err(BuildError::io(dir, e));
        }
        Err(_) => return Ok(()),
    };
    for entry in entries {
        let entry = entry.map_err(|e| BuildError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let matches = only_ext.is_empty() || name.ends_with(&format!(".{only_ext}"));
        if matches && entry.path().is_file() {
            let text = std::fs::read_to_string(entry.path())
                .map_err(|e| BuildError::io(entry.path(), e))?;
            map.insert(name, text);
        }
    }
    Ok(())
}

fn template_error(name: &str, e: tera::Error) -> BuildError {
    use std::error::Error;
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    BuildError::Template {
        name: name.to_string(),
        message,
    }
}

/// HTML escaping for template output: the five characters that matter in
/// text and quoted attributes (Tera's default also rewrites `/`, which only
/// makes paths unreadable).
fn escape_html(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in input.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Serialises `value` for a `<script type="application/json">` element:
/// `<`, `>` and `&` are written as JSON escapes so no name can close the
/// element or open a comment.
pub fn json_for_script<T: Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".to_string());
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// Fields every page's template gets.
#[derive(Serialize)]
pub struct Common {
    /// Prefix leading back to the site root, e.g. `../../`.
    pub root: String,
    pub site_title: String,
    pub theme: String,
    pub themes: Vec<String>,
    pub generator: &'static str,
}

impl Common {
    pub fn new(renderer: &Renderer, history: &History, page_path: &str) -> Common {
        Common {
            root: paths::root_of(page_path),
            site_title: history.title.clone(),
            theme: renderer.default_theme().to_string(),
            themes: renderer.theme_names(),
            generator: concat!("perfatlas ", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// Every file of the site, rendered from the history and its analysis
/// (pages in parallel).
pub fn site_files(
    history: &History,
    config: &Config,
    renderer: &Renderer,
    analysis: &Analysis,
    sources: &Sources,
    output: &Output,
) -> Result<SiteFiles, BuildError> {
    let mut files = SiteFiles::new();
    let frames = &analysis.frames;
    let evolution = &analysis.evolution;
    let regressions = &analysis.regressions;
    let field_assets: &[&str] = if history.field.is_empty() {
        &[]
    } else {
        &["field.js", "field-filter.js"]
    };
    let allocations = allocation_page::Plan::new(history);
    let allocation_assets: &[&str] = if allocations.entries.is_empty() {
        &[]
    } else {
        &["allocation.js"]
    };
    let assets = ["perfatlas.js", "perfatlas.css"].iter().chain(field_assets);
    for &name in assets.chain(allocation_assets) {
        files.insert(
            format!("assets/{name}"),
            renderer.asset(name).as_bytes().to_vec(),
        );
    }
    for theme in renderer.theme_names() {
        files.insert(
            format!("assets/theme-{theme}.css"),
            renderer.theme_css(&theme).as_bytes().to_vec(),
        );
    }
    let plan = profile_page::plan(history);
    let links = SourceLinks::new(history, sources, &config.flame.editor);
    let source_diffs = analysis.source_diffs();
    // The evolution pages and the flame-graph pages share nothing: they
    // are rendered side by side.
    let ((flame, source), matrix) = rayon::join(
        || {
            (
                trace::timings::phase("flame_pages", || {
                    flame_pages(
                        history,
                        config,
                        renderer,
                        &plan,
                        frames,
                        (&links, sources),
                        output,
                    )
                }),
                source_pages(history, renderer, &links, sources),
            )
        },
        || {
            trace::timings::phase("evolution_pages", || {
                evolution_pages(history, config, renderer, &plan, evolution)
            })
        },
    );
    for page in flame {
        files.extend(page?);
    }
    for page in matrix {
        files.extend(site_files::rendered(page?));
    }
    for page in source {
        let (path, html) = page?;
        files.insert(path, html);
    }
    let flame_diffs: BTreeSet<String> = files
        .keys()
        .filter(|k| k.starts_with("flamediff/"))
        .cloned()
        .collect();
    for page in field_page::pages(history, &config.field.views, renderer, sources) {
        let (path, html) = page?;
        files.insert(path, html);
    }
    let memory_pages =
        |benchmark: &str, version: usize| memory_flame_pages(history, &plan, benchmark, version);
    for page in allocation_page::pages(history, renderer, &allocations, &links, &memory_pages) {
        files.extend(site_files::rendered(page?));
    }
    let table_rows = config.regressions.table_rows;
    let pages = trace::timings::phase("benchmark_pages", || {
        regression_pages(
            history,
            renderer,
            regressions,
            table_rows,
            &flame_diffs,
            &source_diffs,
        )
    });
    for page in pages {
        let (path, html) = page?;
        files.insert(path, html);
    }
    let index = trace::timings::phase("index", || {
        index_page::render(
            history,
            renderer,
            &plan,
            evolution,
            &aggregate_sets(history, config),
            regressions,
            &allocations,
        )
    })?;
    files.insert("index.html".to_string(), index.into_bytes());
    Ok(files)
}

/// The flame-graph pages of the memory metrics (bytes, objects) of the
/// first repetition of `benchmark` in `version`, as (metric, path).
fn memory_flame_pages(
    history: &History,
    plan: &profile_page::Plan,
    benchmark: &str,
    version: usize,
) -> Vec<(String, String)> {
    let Some(i) = history
        .profiles
        .iter()
        .position(|p| p.benchmark == benchmark && p.version == version)
    else {
        return Vec::new();
    };
    history.profiles[i]
        .profile
        .metrics
        .iter()
        .zip(&plan.by_entry[i])
        .filter(|(m, _)| {
            matches!(m.unit, Unit::Bytes | Unit::Objects) || m.name.starts_with("alloc")
        })
        .map(|(m, path)| (m.name.clone(), path.clone()))
        .collect()
}

/// The files of one page group: (site path, bytes).
pub type Rendered = Result<Vec<(String, Vec<u8>)>, BuildError>;

/// A page per benchmark with figures, and one per regression.
fn regression_pages(
    history: &History,
    renderer: &Renderer,
    report: &RegressionReport,
    table_rows: usize,
    flame_diffs: &BTreeSet<String>,
    source_diffs: &[bool],
) -> Vec<Result<(String, Vec<u8>), BuildError>> {
    let benchmarks = report
        .benchmarks
        .par_iter()
        .filter(|b| !b.series.points.is_empty())
        .map(|b| benchmark_page::render(history, report, b, table_rows, renderer));
    let regressions = (0..report.changes.len()).collect::<Vec<_>>();
    let pages = regressions
        .par_iter()
        .map(|&i| regression_page::render(history, report, i, renderer, flame_diffs, source_diffs));
    benchmarks.chain(pages).collect()
}

/// The configured aggregate pages, as (label, path) for the index.
fn aggregate_sets(history: &History, config: &Config) -> Vec<(String, String)> {
    aggregate_page::plan(history, config)
        .into_iter()
        .filter(|p| p.subtitle.is_empty())
        .map(|p| {
            (
                format!("{}: {} ({} profiles)", p.title, p.metric, p.entries.len()),
                p.path,
            )
        })
        .collect()
}

/// One page per source file found, with each version's line costs.
fn source_pages(
    history: &History,
    renderer: &Renderer,
    links: &SourceLinks,
    sources: &Sources,
) -> Vec<Result<(String, Vec<u8>), BuildError>> {
    let versions: std::collections::BTreeSet<usize> =
        sources.files.iter().map(|f| f.version).collect();
    let costs: BTreeMap<usize, VersionCosts> = versions
        .into_par_iter()
        .map(|v| (v, line_costs::version_costs(history, v)))
        .collect();
    (0..sources.files.len())
        .into_par_iter()
        .map(|i| source_page::render(history, renderer, links, &costs, i))
        .collect()
}

/// Where the flame-graph pages go: kept from the previous site when
/// `pages` finds them unchanged, else rendered and handed at once to
/// `sink` (when given), so the build never holds them all in memory.
pub struct Output<'a> {
    pub pages: &'a dyn PageStore,
    pub sink: Option<&'a dyn FileSink>,
}

/// Profile pages of every shape, aggregates and differential pages,
/// rendered in parallel (see [`Output`]).
fn flame_pages(
    history: &History,
    config: &Config,
    renderer: &Renderer,
    plan: &profile_page::Plan,
    frames: &ShapeFrames,
    (links, sources): (&SourceLinks, &Sources),
    output: &Output,
) -> Vec<Result<Vec<(String, Body)>, BuildError>> {
    let reuse = output.pages;
    let inputs = reuse
        .enabled()
        .then(|| reuse::Inputs::new(history, config, renderer, frames, sources));
    let inputs = inputs.as_ref();
    let diffs = flame_diff_page::plan(history, config);
    let diff_links = flame_diff_page::links_by_version(history, &diffs);
    let cx = profile_page::Context {
        history,
        config,
        renderer,
        plan,
        frames,
        diffs: &diff_links,
        links,
    };
    let kept_or_render = |key: Option<u128>, render: &dyn Fn() -> Rendered| {
        let files = match key {
            Some(key) => reuse.get_or_render(key, render)?,
            None => site_files::rendered(render()?).collect(),
        };
        site_files::spill(files, output.sink)
    };
    let aggregates = aggregate_page::plan(history, config);
    let mut out: Vec<_> = profile_page::by_profile(plan)
        .par_iter()
        .map(|pages| {
            let key = inputs.map(|i| profile_page::group_key(&cx, pages, i));
            kept_or_render(key, &|| profile_page::render_profile(&cx, pages))
        })
        .collect();
    out.extend(
        aggregates
            .par_iter()
            .map(|page| {
                let key = inputs.map(|i| aggregate_page::key(history, plan, page, i));
                kept_or_render(key, &|| {
                    aggregate_page::render(history, config, renderer, plan, links, page)
                })
            })
            .collect::<Vec<_>>(),
    );
    let diff_keys: Vec<Option<u128>> = diffs
        .par_iter()
        .map(|p| inputs.map(|i| flame_diff_page::key(history, &diffs, p, plan, i)))
        .collect();
    // Means only for the pages rendered again.
    let to_render: Vec<flame_diff_page::DiffPlan> = diffs
        .iter()
        .zip(&diff_keys)
        .filter(|(_, key)| !key.is_some_and(|k| reuse.has(k)))
        .map(|(p, _)| p.clone())
        .collect();
    let means = flame_diff_page::means(history, frames, &to_render);
    out.extend(
        diffs
            .par_iter()
            .zip(&diff_keys)
            .map(|(page, key)| {
                kept_or_render(*key, &|| {
                    flame_diff_page::render(history, config, renderer, frames, &means, &diffs, page)
                })
            })
            .collect::<Vec<_>>(),
    );
    out
}

/// Matrix, component, timeline and diff pages, rendered in parallel.
fn evolution_pages(
    history: &History,
    config: &Config,
    renderer: &Renderer,
    profiles: &profile_page::Plan,
    evolution: &EvolutionPlan,
) -> Vec<Rendered> {
    let mc = &config.matrix;
    let mut jobs: Vec<Box<dyn Fn() -> Rendered + Send + Sync + '_>> = Vec::new();
    for (s, sp) in evolution.scopes.iter().enumerate() {
        jobs.push(Box::new(move || {
            matrix_page::render(history, evolution, s, mc, renderer)
        }));
        for v in (0..history.versions.len()).filter(|&v| sp.scope.has(v)) {
            jobs.push(Box::new(move || {
                timeline_page::render(history, evolution, s, v, mc, renderer).map(|f| vec![f])
            }));
        }
        let mut comps: Vec<_> = sp.pages.keys().copied().collect();
        comps.sort();
        for comp in comps {
            jobs.push(Box::new(move || {
                let cx = component_page::PageContext {
                    history,
                    plan: evolution,
                    scope: sp,
                    profiles,
                    config: mc,
                    renderer,
                };
                component_page::render(&cx, comp)
            }));
        }
    }
    for (v, changes) in evolution.modifications.versions.iter().enumerate() {
        if changes.files.is_empty() {
            continue;
        }
        jobs.push(Box::new(move || {
            let path = matrix_page::diff_path(&history.versions[v].name);
            let html = diff_page::render(history, changes, v, &path, renderer)?;
            Ok(vec![(path, html)])
        }));
    }
    jobs.par_iter().map(|job| job()).collect()
}
