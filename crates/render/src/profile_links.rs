//! The links of a profile's views to the same benchmark elsewhere: its
//! version's other repetitions, its other versions, and the differential
//! pages of its version. Shared by the pages that show a profile's views
//! (its profile page, its version's aggregate page as a repetition, and
//! the aggregate page's own mean profile); calls no page kind.

use model::{History, ProfileEntry};

use crate::flame_plan::{aggregate_link, versions_around, Context, PagePlan, Plan};
use crate::paths::{self, file_name};
use crate::Link;

/// The link to another entry's view of the same metric name (top-down),
/// else to its page.
fn page_for(history: &History, plan: &Plan, entry: usize, metric_name: &str) -> Option<String> {
    let m = history.profiles[entry]
        .profile
        .metrics
        .iter()
        .position(|m| m.name == metric_name)
        .unwrap_or(0);
    plan.by_entry[entry].get(m).cloned()
}

/// The name of the default view's metric of `entry`.
fn default_metric(entry: &ProfileEntry) -> &str {
    entry
        .profile
        .metrics
        .first()
        .map_or("", |m| m.name.as_str())
}

/// Links to the version's repetitions, the page's own current.
pub(crate) fn repetition_links(cx: &Context, page: &PagePlan) -> Vec<Link> {
    let (history, plan) = (cx.history, cx.plan);
    let entry = cx.entry(page.entry);
    let metric = default_metric(entry);
    let Some((versions, at)) = versions_around(plan, entry) else {
        return Vec::new();
    };
    versions[at]
        .1
        .iter()
        .filter_map(|&i| {
            let href = file_name(&page_for(history, plan, i, metric)?);
            Some(Link {
                label: plan.rep_names[i].clone(),
                href,
                current: i == page.entry,
            })
        })
        .collect()
}

/// How many versions either side of the page's own its version links
/// show (with the first version, and "…" for the ones left out), so pages
/// stay small over long histories and adding a version changes only the
/// pages of the last few.
pub const VERSION_WINDOW: usize = 3;

/// Links to the benchmark's versions around the page's: a profile's go to
/// the first profile of each version, the mean profile's (an aggregate
/// page's) to each version's aggregate page.
pub(crate) fn version_links(cx: &Context, page: &PagePlan, root: &str) -> Vec<Link> {
    let (history, plan) = (cx.history, cx.plan);
    let entry = cx.entry(page.entry);
    let metric = default_metric(entry);
    let Some((versions, at)) = versions_around(plan, entry) else {
        return Vec::new();
    };
    let mean = page.entry == cx.mean_entry();
    let low = at.saturating_sub(VERSION_WINDOW);
    let high = (at + VERSION_WINDOW).min(versions.len() - 1);
    let shown = (low > 0).then_some(0).into_iter().chain(low..=high);
    // The versions left out are all on the benchmark's row of the index.
    let gap = || Link {
        label: "…".to_string(),
        href: format!(
            "{root}index.html#{}",
            paths::benchmark_anchor(&entry.benchmark)
        ),
        current: false,
    };
    let mut links = Vec::new();
    let mut previous: Option<usize> = None;
    for i in shown {
        if previous.is_some_and(|p| i > p + 1) {
            links.push(gap());
        }
        previous = Some(i);
        let (v, entries) = &versions[i];
        let merged = || aggregate_link(history, &entry.benchmark, *v, metric);
        let Some(href) = mean
            .then(merged)
            .flatten()
            .or_else(|| page_for(history, plan, entries[0], metric))
        else {
            continue;
        };
        links.push(Link {
            label: history.versions[*v].label.clone(),
            href: format!("{root}{href}"),
            current: *v == entry.version,
        });
    }
    if high + 1 < versions.len() {
        links.push(gap());
    }
    links
}

/// Differential pages that involve this profile's version.
pub(crate) fn diff_links(cx: &Context, entry: &ProfileEntry, root: &str) -> Vec<Link> {
    let Some(list) = cx.diffs.get(&(entry.benchmark.clone(), entry.version)) else {
        return Vec::new();
    };
    list.iter()
        .map(|(label, path)| Link {
            label: label.clone(),
            href: format!("{root}{path}"),
            current: false,
        })
        .collect()
}
