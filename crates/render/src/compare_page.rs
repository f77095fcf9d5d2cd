//! The compare page of a benchmark (`compare/BENCH.html`): any two of its
//! versions, or of their repetitions, as a differential flame graph drawn
//! in the page — the pairs the site did not build a differential page for.
//!
//! Per version, a data script (`compare/BENCH/VERSION.js`, a script so that
//! a page opened over `file://` can load it) holds the version's trees by
//! function for every metric: the mean of its profiles (what a
//! differential page compares) and each repetition. They are stored as a
//! differential page stores its trees ([`crate::shape_source`]), with each
//! frame's name, location and links. The page's script
//! (`assets/compare.js`) loads the two chosen, merges their frames by the
//! site's frame ids (one per function identity; every data script is
//! written by every build, so ids agree), and hands `assets/flame.js` the views a differential
//! page of that pair would store, so graphs, tooltips, search, shapes and
//! tree tables are the built differential pages' (the browser suite
//! compares the two frame for frame).
//!
//! Without JavaScript the page lists the differential pages that were
//! built.

use serde::Serialize;

use super::code_links::{CodeLinks, MethodHomes};
use super::flame_plan::{self, comparable, version_mean, version_trees};
use super::flame_view::{self, Tables};
use super::page_kind::{Job, PageKind, SitePlan};
use super::paths;
use super::shape_source::{PageTrees, SourceBuilder};
use super::{Common, Link};
use analysis::shapes::{self, ShapeFrames};
use model::error::BuildError;
use model::History;

/// A benchmark's compare page, as its template reads it.
#[derive(Serialize)]
struct ComparePage {
    #[serde(flatten)]
    common: Common,
    benchmark: String,
    benchmark_href: String,
    /// The differential pages built for the benchmark (the page's content
    /// without JavaScript).
    built: Vec<Link>,
    /// The page's settings for its script, as JSON.
    config_json: String,
    metrics: Vec<Link>,
    shapes: Vec<Link>,
    metric: String,
}

/// What `assets/compare.js` reads from the page.
#[derive(Serialize)]
struct CompareConfig {
    benchmark: String,
    /// Metric names, their units and slugs (as the fragment names them),
    /// in the order of the page's metric switch.
    metrics: Vec<(String, String, String)>,
    /// Every version with profiles, oldest first.
    versions: Vec<VersionEntry>,
    normalise: bool,
    max_frames: usize,
    min_fraction: f64,
    editor: String,
}

#[derive(Serialize)]
struct VersionEntry {
    name: String,
    label: String,
    /// The version's data script, relative to the page.
    script: String,
    /// Its repetitions' numbers (the data holds a tree for each when there
    /// are two or more).
    repetitions: Vec<u32>,
}

/// A version's data script's content, as `compare.js` reads it.
#[derive(Serialize)]
struct VersionData {
    names: Vec<String>,
    full: Vec<String>,
    locations: Vec<String>,
    links: Vec<crate::code_links::LocationLinks>,
    source: super::shape_source::ShapeSource,
    /// The mean (`key` = the version's name) and each repetition
    /// (`name/rN`): per metric of the page, its tree in `source`, or -1.
    entries: Vec<DataEntry>,
}

#[derive(Serialize)]
struct DataEntry {
    key: String,
    /// How many profiles the entry's trees are the mean of.
    count: usize,
    /// Per metric: the tree's index in the source, [`NO_TREE`] or
    /// [`TOO_LARGE`].
    trees: Vec<i64>,
}

/// The entry has no profile of the metric.
const NO_TREE: i64 = -1;
/// The entry's tree is larger than [`MAX_COMPARED_NODES`]: not stored.
const TOO_LARGE: i64 = -2;
/// Most nodes of a tree a compare page's script merges and lays out (ten
/// times what a profile page's script derives its views from: merging two
/// trees takes a step per node).
const MAX_COMPARED_NODES: usize = 10 * super::shape_source::MAX_NODES;

/// `tree` added to the data, or [`TOO_LARGE`].
fn stored(builder: &mut SourceBuilder, tree: &model::CallTree) -> i64 {
    match tree.len() <= MAX_COMPARED_NODES {
        true => builder.add(tree) as i64,
        false => TOO_LARGE,
    }
}

/// The metrics of `benchmark` over all versions, in first-seen order, with
/// their units.
fn benchmark_metrics(history: &History, benchmark: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for p in history.profiles.iter().filter(|p| p.benchmark == benchmark) {
        for m in &p.profile.metrics {
            if !out.iter().any(|(name, _)| *name == m.name) {
                out.push((m.name.clone(), m.unit.name().to_string()));
            }
        }
    }
    out
}

/// The repetitions of `benchmark` in `version`, in order.
fn repetitions(history: &History, benchmark: &str, version: usize) -> Vec<u32> {
    let mut reps: Vec<u32> = history
        .profiles
        .iter()
        .filter(|p| p.benchmark == benchmark && p.version == version)
        .map(|p| p.repetition)
        .collect();
    reps.sort_unstable();
    reps.dedup();
    reps
}

fn render_page(site: &SitePlan, benchmark: &str) -> Result<(String, Vec<u8>), BuildError> {
    let history = site.history;
    let path = paths::compare_page(benchmark);
    let common = Common::new(site.renderer, history, &path);
    let metrics = benchmark_metrics(history, benchmark);
    let budget = flame_view::budget(&site.config.flame);
    let versions = flame_plan::versions_of(history, benchmark)
        .into_iter()
        .map(|v| VersionEntry {
            name: history.versions[v].name.clone(),
            label: history.versions[v].label.clone(),
            script: paths::link_from(
                &path,
                &paths::compare_data(benchmark, &history.versions[v].name),
            ),
            repetitions: repetitions(history, benchmark, v),
        })
        .collect();
    let config = CompareConfig {
        benchmark: benchmark.to_string(),
        metrics: metrics
            .iter()
            .map(|(m, unit)| (m.clone(), unit.clone(), paths::slug(m)))
            .collect(),
        versions,
        normalise: site.config.flame.diff_normalise,
        max_frames: budget.max_frames,
        min_fraction: budget.min_fraction,
        editor: site.links.editor_template().to_string(),
    };
    let built = site
        .flame_diffs
        .iter()
        .filter(|p| p.benchmark == benchmark)
        .map(|p| Link {
            label: format!(
                "{} → {}",
                history.versions[p.old].label, history.versions[p.new].label
            ),
            href: paths::link_from(&path, &p.path),
            current: false,
        })
        .collect();
    let html = site.renderer.render(
        "compare.html",
        &ComparePage {
            benchmark: benchmark.to_string(),
            benchmark_href: format!(
                "{}index.html#{}",
                common.root,
                paths::benchmark_anchor(benchmark)
            ),
            built,
            config_json: super::json_for_script(&config),
            metrics: super::views::metric_links(metrics.iter().map(|(m, _)| m.as_str())),
            shapes: super::views::shape_links(),
            metric: metrics.first().map(|m| m.0.clone()).unwrap_or_default(),
            common,
        },
    )?;
    Ok((path, html.into_bytes()))
}

/// The data script of `benchmark` in `version`.
fn render_data(
    site: &SitePlan,
    benchmark: &str,
    version: usize,
) -> Result<(String, Vec<u8>), BuildError> {
    let history = site.history;
    let frames: &ShapeFrames = &site.analysis.frames;
    let page = paths::compare_page(benchmark);
    let metrics = benchmark_metrics(history, benchmark);
    let reps = repetitions(history, benchmark, version);
    let mut builder = SourceBuilder::with_ids(frames);
    let mut entries = vec![DataEntry {
        key: history.versions[version].name.clone(),
        count: 0,
        trees: Vec::new(),
    }];
    if reps.len() > 1 {
        entries.extend(reps.iter().map(|r| DataEntry {
            key: format!("{}/r{r}", history.versions[version].name),
            count: 1,
            trees: Vec::new(),
        }));
    }
    for (metric, _) in &metrics {
        let (entry_ids, trees, _) = version_trees(history, benchmark, version, metric);
        if trees.is_empty() {
            entries.iter_mut().for_each(|e| e.trees.push(NO_TREE));
            continue;
        }
        let mean = version_mean(history, frames, (benchmark, version, metric));
        entries[0].count = entries[0].count.max(mean.count);
        entries[0].trees.push(stored(&mut builder, &mean.tree));
        for (k, r) in reps.iter().enumerate().filter(|_| reps.len() > 1) {
            let tree = entry_ids
                .iter()
                .position(|&i| history.profiles[i].repetition == *r)
                .map(|at| stored(&mut builder, &shapes::by_function(&trees[at], frames)));
            entries[k + 1].trees.push(tree.unwrap_or(NO_TREE));
        }
    }
    let code = CodeLinks {
        links: &site.links,
        version,
        root: paths::root_of(&page),
        origin: Some(frames),
        method: Some(MethodHomes::of(site, benchmark, version)),
    };
    let mut tables = Tables::with_editor(site.links.editor_template());
    let min_fraction = flame_view::budget(&site.config.flame).min_fraction;
    let source = builder.finish(min_fraction, PageTrees::Profile, &mut tables, |f| {
        code.of(&frames.table, f)
    });
    let full = tables.full_names();
    let (names, locations, links) = tables.into_parts();
    let data = VersionData {
        names,
        full,
        locations,
        links,
        source,
        entries,
    };
    // JSON is a JavaScript expression (U+2028/2029 are valid in strings
    // since ES2019); in a script file nothing ends at `</script>`.
    let text = format!(
        "perfatlasCompare.add({}, {});\n",
        super::json_for_script(&history.versions[version].name),
        super::json_for_script(&data)
    );
    Ok((
        paths::compare_data(benchmark, &history.versions[version].name),
        text.into_bytes(),
    ))
}

/// Compare pages and their data, one page per benchmark with two profiles
/// or more.
pub struct ComparePages;

impl PageKind for ComparePages {
    fn templates(&self) -> &'static [(&'static str, &'static str)] {
        &[("compare.html", include_str!("../templates/compare.html"))]
    }

    fn scripts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("compare.js", include_str!("../templates/assets/compare.js")),
            ("shapes.js", include_str!("../templates/assets/shapes.js")),
            ("flame.js", include_str!("../templates/assets/flame.js")),
        ]
    }

    fn needs_scripts(&self, site: &SitePlan) -> bool {
        site.history
            .benchmarks()
            .iter()
            .any(|b| comparable(site.history, b))
    }

    fn name(&self) -> &'static str {
        "compare pages"
    }

    fn jobs<'a>(&self, site: &'a SitePlan<'a>) -> Vec<Job<'a>> {
        let mut jobs = Vec::new();
        for benchmark in site.history.benchmarks() {
            if !comparable(site.history, &benchmark) {
                continue;
            }
            for v in flame_plan::versions_of(site.history, &benchmark) {
                let b = benchmark.clone();
                jobs.push(Job::file(move || render_data(site, &b, v)));
            }
            jobs.push(Job::file(move || render_page(site, &benchmark)));
        }
        jobs
    }
}
