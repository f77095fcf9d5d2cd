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
pub mod code_links;
pub mod compare_page;
pub mod component_page;
pub mod diff_page;
pub mod display_names;
pub mod field_page;
pub mod flame_diff_page;
pub mod flame_plan;
pub mod flame_svg;
pub mod flame_view;
pub mod format;
pub mod function_home;
pub mod index_page;
pub mod json_delta;
pub mod matrix_page;
pub mod matrix_svg;
pub mod page_kind;
pub mod pages;
pub mod paths;
pub mod profile_links;
pub mod profile_page;
pub mod profile_views;
pub mod regression_page;
pub mod reuse;
pub mod series_svg;
pub mod series_table;
pub mod shape_source;
pub mod site_files;
pub mod source_page;
pub mod svg;
pub mod timeline_page;
pub mod timeline_svg;
pub mod tree_table;
pub mod verdict_words;
pub mod version_page;
pub mod views;

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::Serialize;

use analysis::report::Analysis;
use config::Config;
use config::ThemeChoice;
use model::error::BuildError;
use model::History;
use reuse::PageStore;
use vcs::sources::Sources;

pub use site_files::{Body, FileSink, SiteFiles};

/// The templates every page kind may use (a kind's own are in its file,
/// [`pages::PageKind::templates`]).
const SHARED_TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../templates/base.html")),
    ("graph.html", include_str!("../templates/graph.html")),
    (
        "tree_table.html",
        include_str!("../templates/tree_table.html"),
    ),
    (
        "view_switch.html",
        include_str!("../templates/view_switch.html"),
    ),
    ("diff_key.html", include_str!("../templates/diff_key.html")),
    (
        "cause_line.html",
        include_str!("../templates/cause_line.html"),
    ),
];
/// The site's scripts and style sheet, by name.
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
];
/// The scripts every page loads (the kinds' own are theirs,
/// [`page_kind::PageKind::scripts`]).
const PAGE_ASSETS: [&str; 2] = ["perfatlas.js", "perfatlas.css"];
/// The style sheets of the embedded themes, in [`config::THEMES`] order.
const THEME_CSS: [&str; 3] = [
    include_str!("../themes/light/theme.css"),
    include_str!("../themes/dark/theme.css"),
    include_str!("../themes/colorblind/theme.css"),
];

/// How a build renders, every option in one place: each enters the
/// renderer's fingerprint, so a page kept from a build with other options
/// is never reused.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// Directory of templates (and `assets/`) overriding the built-in ones.
    pub templates: Option<std::path::PathBuf>,
    pub theme: ThemeChoice,
    /// Flame graphs and allocation trees also get a standalone `.svg`
    /// (`--svg-files`).
    pub svg_files: bool,
    /// Every repetition keeps a page of its own (`--repetition-pages`).
    pub repetition_pages: bool,
    /// Test hook: pages store the frames their script derives as well, so
    /// that a test can compare the two (`PERFATLAS_TEST_SHIP_DERIVED`, see
    /// [`shape_source::SHIP_BOTH_VAR`]).
    pub ship_derived: bool,
}

/// Templates, assets and themes for one build.
pub struct Renderer {
    tera: tera::Tera,
    assets: BTreeMap<String, String>,
    /// (name, css) in menu order; the first is the default.
    themes: Vec<(String, String)>,
    /// Digest of the templates, assets and themes, for page reuse.
    fingerprint: u128,
    /// Whether flame graphs and allocation trees also get a standalone
    /// `.svg` file beside their page (`--svg-files`).
    svg_files: bool,
    /// Whether each repetition of a version keeps a page of its own, even
    /// when its version's aggregate page shows its views
    /// (`--repetition-pages`).
    repetition_pages: bool,
    /// The test hook of [`RenderOptions::ship_derived`].
    ship_derived: bool,
}

impl Renderer {
    /// Loads the built-in templates, then overrides from `templates_dir`,
    /// and puts the chosen theme first.
    pub fn new(options: &RenderOptions) -> Result<Renderer, BuildError> {
        let (templates_dir, theme, svg_files) = (
            options.templates.as_deref(),
            &options.theme,
            options.svg_files,
        );
        let kinds = pages::KINDS.iter().flat_map(|kind| kind.templates());
        let mut sources: BTreeMap<String, String> = SHARED_TEMPLATES
            .iter()
            .chain(kinds)
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect();
        let kind_scripts = pages::KINDS.iter().flat_map(|kind| kind.scripts());
        let mut assets: BTreeMap<String, String> = ASSETS
            .iter()
            .chain(kind_scripts)
            .map(|(n, s)| (n.to_string(), s.to_string()))
            .collect();
        if let Some(dir) = templates_dir {
            override_from(dir, &mut sources, "html")?;
            override_from(&dir.join("assets"), &mut assets, "")?;
        }
        let mut tera = tera::Tera::default();
        tera.autoescape_on(vec![".html"]);
        tera.set_escape_fn(escape_html);
        tera.register_filter("code_spans", code_spans_filter);
        tera.register_filter("grouped", grouped_filter);
        tera.add_raw_templates(sources.iter().map(|(n, s)| (n.as_str(), s.as_str())))
            .map_err(|e| template_error("templates", e))?;
        let mut themes: Vec<(String, String)> = config::THEMES
            .iter()
            .zip(THEME_CSS)
            .map(|(n, c)| (n.to_string(), c.to_string()))
            .collect();
        match theme {
            ThemeChoice::Builtin(name) => {
                let i = themes.iter().position(|(n, _)| n == name).ok_or_else(|| {
                    BuildError::Internal(format!("theme {name:?} is not embedded"))
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
        let mut digest = reuse::KeyHasher::new("renderer");
        for (name, text) in sources.iter().chain(&assets) {
            digest.str(name).str(text);
        }
        for (name, css) in &themes {
            digest.str(name).str(css);
        }
        digest.str(if svg_files {
            "svg files"
        } else {
            "no svg files"
        });
        let mut fingerprint = digest.finish();
        for (on, what) in [
            (options.repetition_pages, "renderer with repetition pages"),
            (options.ship_derived, "renderer storing derived frames"),
        ] {
            if on {
                let mut digest = reuse::KeyHasher::new(what);
                digest.u128(fingerprint);
                fingerprint = digest.finish();
            }
        }
        Ok(Renderer {
            tera,
            assets,
            themes,
            fingerprint,
            svg_files,
            repetition_pages: options.repetition_pages,
            ship_derived: options.ship_derived,
        })
    }

    /// Whether pages store the frames their script derives as well (the
    /// test hook).
    pub fn ship_derived(&self) -> bool {
        self.ship_derived
    }

    /// Whether every repetition has a page of its own.
    pub fn repetition_pages(&self) -> bool {
        self.repetition_pages
    }

    /// Renders template `name` with `context`.
    pub fn render<T: Serialize>(&self, name: &str, context: &T) -> Result<String, BuildError> {
        let ctx = tera::Context::from_serialize(context).map_err(|e| template_error(name, e))?;
        self.tera
            .render(name, &ctx)
            .map_err(|e| template_error(name, e))
    }

    /// Whether standalone `.svg` files are written beside the pages.
    pub fn svg_files(&self) -> bool {
        self.svg_files
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
/// Whole numbers are written without a fraction (`928`, not `928.0`):
/// the script reads the same number, in fewer bytes.
pub fn json_for_script<T: Serialize>(value: &T) -> String {
    let mut out = Vec::new();
    let mut writer = serde_json::Serializer::with_formatter(&mut out, WholeNumbers);
    let json = match value.serialize(&mut writer) {
        Ok(()) => String::from_utf8(out).unwrap_or_else(|_| "null".to_string()),
        Err(_) => "null".to_string(),
    };
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// JSON's compact form, with whole floating-point numbers written as
/// integers (up to 2^53, where every integer is exact; not -0).
struct WholeNumbers;

impl serde_json::ser::Formatter for WholeNumbers {
    fn write_f64<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        value: f64,
    ) -> std::io::Result<()> {
        if value.fract() == 0.0
            && value.abs() < 9.0e15
            && !(value == 0.0 && value.is_sign_negative())
        {
            return serde_json::ser::CompactFormatter.write_i64(writer, value as i64);
        }
        serde_json::ser::CompactFormatter.write_f64(writer, value)
    }
}

/// A link in a page's navigation; `current` marks the page itself.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct Link {
    pub label: String,
    pub href: String,
    pub current: bool,
}

/// The `code_spans` filter: plain text (notes, verdicts) escaped, each
/// `` `name` `` in it shown as code, as the terminal shows it in
/// backticks. The result is safe HTML.
fn code_spans_filter(
    value: &tera::Value,
    _: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let text = value
        .as_str()
        .ok_or_else(|| tera::Error::msg("code_spans: not a string"))?;
    Ok(tera::Value::String(code_spans(text)))
}

/// The `grouped` filter: a number with its thousands grouped
/// (`3,191,302`), as the pages' script writes it (`format::grouped`).
fn grouped_filter(
    value: &tera::Value,
    _: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let number = value
        .as_f64()
        .ok_or_else(|| tera::Error::msg("grouped: not a number"))?;
    Ok(tera::Value::String(format::grouped(number)))
}

/// `text` as HTML: escaped, with each pair of backticks a `<code>`
/// element; a lone backtick stays as it is.
pub fn code_spans(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        out.push_str(&escape_html(&rest[..open]));
        out.push_str("<code>");
        out.push_str(&escape_html(&rest[open + 1..open + 1 + len]));
        out.push_str("</code>");
        rest = &rest[open + 2 + len..];
    }
    out.push_str(&escape_html(rest));
    out
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

/// Every file of the site, rendered from the history and its analysis:
/// the assets and themes, then the jobs of every page kind ([`pages::KINDS`])
/// in parallel.
pub fn site_files(
    history: &History,
    config: &Config,
    renderer: &Renderer,
    analysis: &Analysis,
    sources: &Sources,
    output: &Output,
) -> Result<SiteFiles, BuildError> {
    let site = pages::SitePlan::new(history, config, renderer, analysis, sources, output.pages);
    let mut files = static_files(&site);
    let jobs = pages::jobs(&site);
    instrument::progress::stage("rendering pages", jobs.len());
    let rendered: Vec<Result<Vec<(String, Body)>, BuildError>> =
        instrument::timings::phase("pages", || {
            jobs.par_iter()
                .with_max_len(1)
                .map(|job| {
                    let pages = run(job, output);
                    instrument::progress::advance(1);
                    pages
                })
                .collect()
        });
    for group in rendered {
        files.extend(group?);
    }
    Ok(files)
}

/// The scripts, the style sheet and the themes the pages use.
fn static_files(site: &pages::SitePlan) -> SiteFiles {
    let renderer = site.renderer;
    let mut files = SiteFiles::new();
    let scripts = pages::KINDS
        .iter()
        .filter(|kind| kind.needs_scripts(site))
        .flat_map(|kind| kind.scripts().iter().map(|(name, _)| *name));
    for name in PAGE_ASSETS.into_iter().chain(scripts) {
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
    files
}

/// The files of one page group: (site path, bytes).
pub type Rendered = Result<Vec<(String, Vec<u8>)>, BuildError>;

/// Renders one job (or keeps its files from the previous site) and hands
/// what it rendered to the sink.
fn run(job: &pages::Job, output: &Output) -> Result<Vec<(String, Body)>, BuildError> {
    let files = match job.key {
        Some(key) => output.pages.get_or_render(key, &*job.render)?,
        None => site_files::rendered((job.render)()?).collect(),
    };
    site_files::spill(files, output.sink)
}

/// Where the pages go: kept from the previous site when `pages` finds them
/// unchanged, else rendered and handed at once to `sink` (when given), so
/// the build never holds them all in memory.
pub struct Output<'a> {
    pub pages: &'a dyn PageStore,
    pub sink: Option<&'a dyn FileSink>,
}

#[cfg(test)]
mod tests {
    use super::{code_spans, json_for_script};

    #[test]
    fn backticks_become_code_and_markup_stays_text() {
        assert_eq!(
            code_spans("set `[regressions] min_change` for <b>"),
            "set <code>[regressions] min_change</code> for &lt;b&gt;"
        );
        assert_eq!(
            code_spans("`<script>` and a lone ` tick"),
            "<code>&lt;script&gt;</code> and a lone ` tick"
        );
    }

    #[test]
    fn script_json_writes_whole_numbers_as_integers_and_escapes_markup() {
        let value = serde_json::json!({"h": 928.0, "v": [0.5, -2.0, -0.0, 1e17, 1260000000.0], "n": "</script>&"});
        assert_eq!(
            json_for_script(&value),
            r#"{"h":928,"n":"\u003c/script\u003e\u0026","v":[0.5,-2,-0.0,1e+17,1260000000]}"#
        );
        let back: serde_json::Value = serde_json::from_str(&json_for_script(&value)).unwrap();
        assert_eq!(back["v"][4].as_f64(), Some(1.26e9));
    }
}
