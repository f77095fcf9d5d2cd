//! What every flame page shares, below the page kinds that use it: the
//! plan of the profile pages (where each profile's views are: a page of
//! its own, or its version's aggregate page), the three shapes, and the
//! context a flame page renders with. The profile, aggregate and
//! differential pages and the views' data read it; none of them reads
//! another page kind for it.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::source_page::SourceLinks;
use super::{paths, shape_source, Renderer};
use analysis::shapes::ShapeFrames;
use config::Config;
use model::{History, ProfileEntry};

/// The three shapes of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Shape {
    TopDown,
    BottomUp,
    Flat,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::TopDown, Shape::BottomUp, Shape::Flat];

    /// Suffix of the page's file name before `.html`.
    pub fn suffix(self) -> &'static str {
        match self {
            Shape::TopDown => "",
            Shape::BottomUp => ".bottom-up",
            Shape::Flat => ".flat",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Shape::TopDown => "top-down",
            Shape::BottomUp => "bottom-up",
            Shape::Flat => "flat",
        }
    }
}

/// Files of the site to write: (site-relative path, bytes).
pub type SiteFiles = Vec<(String, Vec<u8>)>;

/// One page to write: a profile's, unless its version's aggregate page
/// shows its views instead (`shown_in`).
#[derive(Debug, Clone)]
pub struct PagePlan {
    /// Index into `History::profiles`.
    pub entry: usize,
    /// Site-relative path of the HTML page (the one it would have, when
    /// the aggregate page shows it: links on its views are made for it).
    pub path: String,
    /// The aggregate page whose script shows this profile's views, as a
    /// repetition of the version (see `shown_in_aggregates`).
    pub shown_in: Option<String>,
}

/// Every profile page, and where each profile's pages are.
#[derive(Debug, Default)]
pub struct Plan {
    pub pages: Vec<PagePlan>,
    /// For each profile entry, the links to its top-down views in metric
    /// order (the page, with the metric in the fragment but for the first).
    pub by_entry: Vec<Vec<String>>,
    /// For each profile entry, its short name among the profiles of the
    /// same benchmark and version (`r1`, `r2`, `r2-b` for duplicates).
    pub rep_names: Vec<String>,
    /// For each benchmark, its versions with profiles in order, each with
    /// its entries in history order.
    pub by_benchmark: BTreeMap<String, Vec<VersionEntries>>,
}

/// A version (index into `History::versions`) and its profile entries.
pub type VersionEntries = (usize, Vec<usize>);

/// Decides the path of every profile page.
/// With `repetition_pages`, every profile has a page of its own.
pub fn plan(history: &History, repetition_pages: bool) -> Plan {
    let mut plan = Plan::default();
    let mut used: HashMap<String, usize> = HashMap::new();
    let shown_in = match repetition_pages {
        true => vec![None; history.profiles.len()],
        false => shown_in_aggregates(history),
    };
    for (i, entry) in history.profiles.iter().enumerate() {
        let dir = paths::profile_dir(&entry.benchmark, &history.versions[entry.version].name);
        let base = format!("r{}", entry.repetition);
        let n = used.entry(format!("{dir}/{base}")).or_insert(0);
        *n += 1;
        let rep = if *n == 1 {
            base
        } else {
            format!("{base}-{}", *n)
        };
        let page = paths::profile_page(&dir, &rep);
        let views = entry.profile.metrics.iter().enumerate().map(|(m, metric)| {
            let metric = (m > 0).then_some(metric.name.as_str());
            match &shown_in[i] {
                Some(aggregate) => paths::repetition_view(aggregate, &rep, metric),
                None => paths::profile_view(&page, metric, Shape::TopDown),
            }
        });
        plan.by_entry.push(views.collect());
        plan.pages.push(PagePlan {
            entry: i,
            path: page,
            shown_in: shown_in[i].clone(),
        });
        plan.rep_names.push(rep);
    }
    plan.by_benchmark = entries_by_benchmark(history);
    plan
}

/// For each profile, the aggregate page that shows its views instead of a
/// page of its own: a version's repetitions are one page, its merged view
/// the default and each repetition's every metric and shape a view its
/// script derives. That takes an aggregate page over the same metrics as
/// each repetition, and repetitions whose views the script can derive
/// (small trees whose bottom-up trees are never cut, see
/// [`shape_source::derivable_from_the_start`]); otherwise every
/// repetition of the version keeps its page.
fn shown_in_aggregates(history: &History) -> Vec<Option<String>> {
    let mut out = vec![None; history.profiles.len()];
    for (benchmark, versions) in entries_by_benchmark(history) {
        for (version, entries) in versions {
            let metrics = version_metrics(history, &benchmark, version);
            let names: Vec<&str> = metrics.iter().map(|(m, _)| m.as_str()).collect();
            let fits = |e: &usize| {
                let profile = &history.profiles[*e].profile;
                profile
                    .metrics
                    .iter()
                    .map(|m| m.name.as_str())
                    .eq(names.iter().copied())
                    && shape_source::derivable_from_the_start(&profile.tree)
            };
            if names.is_empty() || !entries.iter().all(fits) {
                continue;
            }
            let page = paths::aggregate_page(&benchmark, &history.versions[version].name);
            for e in entries {
                out[e] = Some(page.clone());
            }
        }
    }
    out
}

impl Plan {
    /// The profile entries of `benchmark` in `version`, in history order.
    pub fn entries_of(&self, benchmark: &str, version: usize) -> &[usize] {
        self.by_benchmark
            .get(benchmark)
            .and_then(|versions| {
                let at = versions.binary_search_by_key(&version, |(v, _)| *v).ok()?;
                Some(versions[at].1.as_slice())
            })
            .unwrap_or(&[])
    }
}

/// For each benchmark, its versions in order with their entries.
fn entries_by_benchmark(history: &History) -> BTreeMap<String, Vec<VersionEntries>> {
    let mut grouped: BTreeMap<&str, BTreeMap<usize, Vec<usize>>> = BTreeMap::new();
    for (i, entry) in history.profiles.iter().enumerate() {
        grouped
            .entry(&entry.benchmark)
            .or_default()
            .entry(entry.version)
            .or_default()
            .push(i);
    }
    grouped
        .into_iter()
        .map(|(b, versions)| (b.to_string(), versions.into_iter().collect()))
        .collect()
}

/// The versions of `entry`'s benchmark, and where `entry`'s is among them.
pub(crate) fn versions_around<'a>(
    plan: &'a Plan,
    entry: &ProfileEntry,
) -> Option<(&'a [VersionEntries], usize)> {
    let versions = plan.by_benchmark.get(&entry.benchmark)?;
    let at = versions
        .binary_search_by_key(&entry.version, |(v, _)| *v)
        .ok()?;
    Some((versions, at))
}

/// What every profile page render needs.
pub struct Context<'a> {
    pub history: &'a History,
    pub config: &'a Config,
    pub renderer: &'a Renderer,
    pub plan: &'a Plan,
    pub frames: &'a ShapeFrames,
    /// Differential pages by (benchmark, version index), as (label, path).
    pub diffs: &'a BTreeMap<(String, usize), Vec<(String, String)>>,
    pub links: &'a SourceLinks<'a>,
}

/// Groups pages by profile, in plan order.
pub fn by_profile(plan: &Plan) -> Vec<Vec<&PagePlan>> {
    plan.pages
        .iter()
        .filter(|p| p.shown_in.is_none())
        .map(|p| vec![p])
        .collect()
}

/// The metrics of `benchmark` in `version` that several profiles have (a
/// single profile needs no aggregate), each with those profiles, in the
/// order the profiles name them.
pub(crate) fn version_metrics(
    history: &History,
    benchmark: &str,
    version: usize,
) -> Vec<(String, Vec<usize>)> {
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, p) in history.profiles.iter().enumerate() {
        if p.benchmark != benchmark || p.version != version {
            continue;
        }
        for m in &p.profile.metrics {
            match out.iter_mut().find(|(name, _)| *name == m.name) {
                Some((_, entries)) => entries.push(i),
                None => out.push((m.name.clone(), vec![i])),
            }
        }
    }
    out.retain(|(_, entries)| entries.len() > 1);
    out
}
