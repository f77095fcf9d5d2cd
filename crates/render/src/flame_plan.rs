//! What every flame page shares, below the page kinds that use it: the
//! plans of the profile pages (where each profile's views are: a page of
//! its own, or its version's aggregate page), of the aggregate pages and
//! of the differential pages, the three shapes, and the context a flame
//! page renders with. The page kinds and the views' data read it; none of
//! them reads another page kind for it.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::code_links::SourceLinks;
use super::{paths, shape_source, Renderer};
use analysis::aggregate;
use analysis::shapes::{self, ShapeFrames};
use config::Config;
use model::{CallTree, History, ProfileEntry, Unit};

use crate::Link;

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
#[derive(Clone, Copy)]
pub struct Context<'a> {
    pub history: &'a History,
    pub config: &'a Config,
    pub renderer: &'a Renderer,
    pub plan: &'a Plan,
    pub frames: &'a ShapeFrames,
    /// Differential pages by (benchmark, version index), as (label, path).
    pub diffs: &'a BTreeMap<(String, usize), Vec<(String, String)>>,
    pub links: &'a SourceLinks<'a>,
    /// Where functions have their method sections (frames link there).
    pub homes: &'a crate::function_home::FunctionHomes<'a>,
    /// An aggregate page's mean profile, laid out as a profile is: entry
    /// [`Context::mean_entry`] (one past the history's), named
    /// [`MEAN_NAME`].
    pub mean: Option<&'a ProfileEntry>,
    /// The profiles' inclusive values as the matrix's sums computed them.
    pub inclusive: &'a analysis::evolution::HeldInclusive,
}

/// What the mean profile of an aggregate page is called in its views.
pub const MEAN_NAME: &str = "all merged";

impl<'a> Context<'a> {
    /// Profile entry `i`: the history's, or the mean profile.
    pub fn entry(&self, i: usize) -> &'a ProfileEntry {
        match (self.history.profiles.get(i), self.mean) {
            (Some(entry), _) | (None, Some(entry)) => entry,
            (None, None) => &self.history.profiles[i],
        }
    }

    /// The entry index that stands for the mean profile.
    pub fn mean_entry(&self) -> usize {
        self.history.profiles.len()
    }

    /// How entry `i` is named among its version's profiles (`r2`).
    pub fn rep_name(&self, i: usize) -> &'a str {
        self.plan.rep_names.get(i).map_or(MEAN_NAME, String::as_str)
    }

    /// The name of entry `i`'s standalone SVG files (`--svg-files`).
    pub fn svg_name(&self, i: usize) -> &'a str {
        self.plan.rep_names.get(i).map_or("mean", String::as_str)
    }
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

/// One aggregate page: the profiles of a benchmark in a version (or of a
/// configured set), every metric they share a view (see [`super::views`]).
#[derive(Debug, Clone)]
pub struct AggregatePlan {
    /// What is merged, e.g. the benchmark's name or the set's.
    pub title: String,
    /// E.g. "in 3.6"; empty for a configured set.
    pub subtitle: String,
    /// Each metric with the profiles merged for it (indices into
    /// `History::profiles`); the first is the default view's.
    pub metrics: Vec<(String, Vec<usize>)>,
    /// The version whose sources code links use.
    pub version: usize,
    pub path: String,
}

/// The site path of the view of `metric` on the aggregate page of
/// `benchmark` in `version`, when there is one.
pub fn aggregate_link(
    history: &History,
    benchmark: &str,
    version: usize,
    metric: &str,
) -> Option<String> {
    let metrics = version_metrics(history, benchmark, version);
    let at = metrics.iter().position(|(name, _)| name == metric)?;
    let page = paths::aggregate_page(benchmark, &history.versions[version].name);
    Some(paths::profile_view(
        &page,
        (at > 0).then_some(metric),
        Shape::TopDown,
    ))
}

/// One page per (benchmark, version) with several profiles of a metric,
/// and one per configured set.
pub fn aggregate_plan(history: &History, config: &Config) -> Vec<AggregatePlan> {
    let mut out: Vec<AggregatePlan> = Vec::new();
    for entry in &history.profiles {
        let version = &history.versions[entry.version];
        let path = paths::aggregate_page(&entry.benchmark, &version.name);
        if out.iter().any(|p| p.path == path) {
            continue;
        }
        let metrics = version_metrics(history, &entry.benchmark, entry.version);
        if metrics.is_empty() {
            continue;
        }
        out.push(AggregatePlan {
            title: entry.benchmark.clone(),
            subtitle: format!("in {}", version.label),
            metrics,
            version: entry.version,
            path,
        });
    }
    out.extend(configured_sets(history, config));
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Pages for the sets of `[[flame.aggregates]]`: every profile of the
/// named benchmarks (`*` matches any run of characters) in the named
/// versions (all when none are named), per metric they share.
fn configured_sets(history: &History, config: &Config) -> Vec<AggregatePlan> {
    let mut out = Vec::new();
    for set in &config.flame.aggregates {
        let entries: Vec<usize> = (0..history.profiles.len())
            .filter(|&i| {
                let p = &history.profiles[i];
                set.benchmarks.iter().any(|b| glob_match(b, &p.benchmark))
                    && (set.versions.is_empty()
                        || set.versions.contains(&history.versions[p.version].name))
            })
            .collect();
        let Some(&first) = entries.first() else {
            continue;
        };
        let metrics: Vec<(String, Vec<usize>)> = history.profiles[first]
            .profile
            .metrics
            .iter()
            .map(|metric| {
                let with_metric = entries
                    .iter()
                    .copied()
                    .filter(|&i| {
                        history.profiles[i]
                            .profile
                            .metrics
                            .iter()
                            .any(|m| m.name == metric.name)
                    })
                    .collect();
                (metric.name.clone(), with_metric)
            })
            .collect();
        out.push(AggregatePlan {
            title: set.name.clone(),
            subtitle: String::new(),
            version: history.profiles[first].version,
            metrics,
            path: paths::aggregate_set_page(&set.name),
        });
    }
    out
}

/// `pattern` with `*` standing for any run of characters.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

/// One differential page.
#[derive(Debug, Clone)]
pub struct DiffPlan {
    pub benchmark: String,
    pub old: usize,
    pub new: usize,
    /// The metrics both versions have; the first is the default view's.
    pub metrics: Vec<String>,
    pub path: String,
    /// The benchmark's pages of the consecutive pairs before and after
    /// this one, as (label, site path).
    pub neighbours: [Option<(String, String)>; 2],
}

/// Pages for consecutive versions of every benchmark and for the pairs in
/// `[flame] diffs` whose versions share a metric.
pub fn diff_plan(history: &History, config: &Config) -> Vec<DiffPlan> {
    let mut pairs: Vec<(String, usize, usize)> = Vec::new();
    for benchmark in history.benchmarks() {
        let versions = versions_of(history, &benchmark);
        for w in versions.windows(2) {
            pairs.push((benchmark.clone(), w[0], w[1]));
        }
        for [old, new] in &config.flame.diffs {
            let find = |name: &str| {
                versions
                    .iter()
                    .copied()
                    .find(|&v| history.versions[v].name == *name)
            };
            if let (Some(o), Some(n)) = (find(old), find(new)) {
                if !pairs.contains(&(benchmark.clone(), o, n)) {
                    pairs.push((benchmark.clone(), o, n));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (benchmark, old, new) in pairs {
        let metrics = common_metrics(history, &benchmark, old, new);
        if metrics.is_empty() {
            continue;
        }
        out.push(DiffPlan {
            path: paths::flame_diff_page(
                &benchmark,
                &history.versions[old].name,
                &history.versions[new].name,
            ),
            benchmark,
            old,
            new,
            metrics,
            neighbours: [None, None],
        });
    }
    link_neighbours(history, &mut out);
    out
}

/// The links to the pairs before and after `p`, from its page.
pub(crate) fn neighbour_links(p: &DiffPlan) -> Vec<Link> {
    let [before, after] = &p.neighbours;
    let link = |(label, path): &(String, String), text: String| Link {
        label: text.replace("{}", label),
        href: paths::link_from(&p.path, path),
        current: false,
    };
    let mut out = Vec::new();
    out.extend(before.as_ref().map(|b| link(b, "← {}".to_string())));
    out.extend(after.as_ref().map(|a| link(a, "{} →".to_string())));
    out
}

/// Links each pair page to the benchmark's pair pages just before and
/// after it: the one ending where it starts and the one starting where it
/// ends.
pub(crate) fn link_neighbours(history: &History, plans: &mut [DiffPlan]) {
    let link = |p: &DiffPlan| {
        let label = format!(
            "{} → {}",
            history.versions[p.old].label, history.versions[p.new].label
        );
        (label, p.path.clone())
    };
    let found: Vec<[Option<(String, String)>; 2]> = plans
        .iter()
        .map(|p| {
            let same = |q: &&DiffPlan| q.benchmark == p.benchmark && q.path != p.path;
            let before = plans
                .iter()
                .filter(same)
                .find(|q| q.new == p.old && q.old < p.old);
            let after = plans
                .iter()
                .filter(same)
                .find(|q| q.old == p.new && q.new > p.new);
            [before.map(link), after.map(link)]
        })
        .collect();
    for (p, n) in plans.iter_mut().zip(found) {
        p.neighbours = n;
    }
}

pub(crate) fn versions_of(history: &History, benchmark: &str) -> Vec<usize> {
    let mut v: Vec<usize> = history
        .profiles
        .iter()
        .filter(|p| p.benchmark == benchmark)
        .map(|p| p.version)
        .collect();
    v.sort();
    v.dedup();
    v
}

pub(crate) fn metric_names(history: &History, benchmark: &str, version: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for p in history
        .profiles
        .iter()
        .filter(|p| p.benchmark == benchmark && p.version == version)
    {
        for m in &p.profile.metrics {
            if !names.contains(&m.name) {
                names.push(m.name.clone());
            }
        }
    }
    names
}

pub(crate) fn common_metrics(
    history: &History,
    benchmark: &str,
    old: usize,
    new: usize,
) -> Vec<String> {
    let later = metric_names(history, benchmark, new);
    metric_names(history, benchmark, old)
        .into_iter()
        .filter(|m| later.contains(m))
        .collect()
}

/// For each (benchmark, version), the diff pages it takes part in.
pub fn links_by_version(
    history: &History,
    plan: &[DiffPlan],
) -> BTreeMap<(String, usize), Vec<(String, String)>> {
    let mut out: BTreeMap<(String, usize), Vec<(String, String)>> = BTreeMap::new();
    for p in plan {
        let (old, new) = (
            &history.versions[p.old].label,
            &history.versions[p.new].label,
        );
        out.entry((p.benchmark.clone(), p.new))
            .or_default()
            .push((format!("{old} → {new}"), p.path.clone()));
        out.entry((p.benchmark.clone(), p.old))
            .or_default()
            .push((format!("{old} → {new}"), p.path.clone()));
    }
    out
}

/// The single-metric trees of a version's repetitions of a benchmark,
/// with their entry indices, in input order.
pub fn version_trees(
    history: &History,
    benchmark: &str,
    version: usize,
    metric: &str,
) -> (Vec<usize>, Vec<CallTree>, Option<Unit>) {
    let mut entries = Vec::new();
    let mut trees = Vec::new();
    let mut unit = None;
    for (i, entry) in history.profiles.iter().enumerate() {
        if entry.benchmark != benchmark || entry.version != version {
            continue;
        }
        if let Some(m) = entry.profile.metrics.iter().position(|m| m.name == metric) {
            unit.get_or_insert_with(|| entry.profile.metrics[m].unit.clone());
            entries.push(i);
            trees.push(entry.profile.tree.project(m));
        }
    }
    (entries, trees, unit)
}

/// The mean of a version's profiles of a benchmark for one metric, by
/// function (see [`shapes::by_function`]), with the number of profiles and
/// the unit: computed once and shared by every diff page of the version.
pub struct VersionMean {
    pub tree: CallTree,
    pub count: usize,
    pub unit: Option<Unit>,
}

/// The mean of the profiles of (benchmark, version) for a metric, by
/// function: what a differential page compares.
pub fn version_mean(
    history: &History,
    frames: &ShapeFrames,
    (benchmark, version, metric): (&str, usize, &str),
) -> VersionMean {
    let (_, mut trees, unit) = version_trees(history, benchmark, version, metric);
    let count = trees.len();
    let mean = if count == 1 {
        trees.pop().unwrap_or_else(|| CallTree::new(1))
    } else {
        let refs: Vec<&CallTree> = trees.iter().collect();
        let agg = aggregate::aggregate(&refs);
        agg.tree.project(agg.mean_metric())
    };
    let tree = shapes::by_function(&mean, frames);
    VersionMean { tree, count, unit }
}

/// Whether `benchmark` has two profiles or more to compare (its compare
/// page exists).
pub fn comparable(history: &History, benchmark: &str) -> bool {
    history
        .profiles
        .iter()
        .filter(|p| p.benchmark == benchmark)
        .take(2)
        .count()
        == 2
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_runs_of_characters() {
        assert!(glob_match("convert-*", "convert-basic"));
        assert!(glob_match("*-basic", "convert-basic"));
        assert!(glob_match("c*v*t-b*c", "convert-basic"));
        assert!(glob_match("convert-basic", "convert-basic"));
        assert!(!glob_match("convert-basic", "convert-basics"));
        assert!(!glob_match("*-extensions", "convert-basic"));
        assert!(!glob_match("ab*ba", "aba"));
    }
}
