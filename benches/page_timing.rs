//! Time to first render and to interactive of the largest page of each
//! kind in a built site (profiles, flame-graph diffs, matrices, benchmarks,
//! regressions, allocation sites, field views, sources, the index), in
//! Debian's headless chromium over file://, median of RUNS fresh loads.
//! Prints a Markdown table; asserts nothing.
//!
//!     cargo bench --bench page_timing -- SITE
//!     RUNS=9 cargo bench --bench page_timing -- SITE

mod chrome_timing;

use headless_chrome::Tab;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The kind of a page: its top directory (matrix pages split into the
/// matrix itself, component pages and timelines), or `index`.
fn kind_of(rel: &str) -> String {
    let parts: Vec<&str> = rel.split('/').collect();
    match parts.as_slice() {
        [_] => "index".to_string(),
        ["matrix", .., "c", _] => "matrix component".to_string(),
        ["matrix", .., "timeline", _] => "matrix timeline".to_string(),
        ["profiles", .., "all.html"] => "profile aggregate".to_string(),
        [top, ..] => top.to_string(),
        [] => String::new(),
    }
}

/// The largest page of each kind, as (kind, (bytes, path)).
fn largest_pages(site: &Path) -> BTreeMap<String, (u64, PathBuf)> {
    let mut largest: BTreeMap<String, (u64, PathBuf)> = BTreeMap::new();
    let walk = walkdir::WalkDir::new(site)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".perfatlas-cache")
        .flatten();
    for entry in walk {
        let path = entry.path();
        if !entry.file_type().is_file() || path.extension() != Some("html".as_ref()) {
            continue;
        }
        let rel = path.strip_prefix(site).unwrap_or(path).to_string_lossy();
        let size = entry.metadata().map_or(0, |m| m.len());
        let slot = largest.entry(kind_of(&rel)).or_insert((0, PathBuf::new()));
        if size > slot.0 {
            *slot = (size, path.to_path_buf());
        }
    }
    largest
}

fn main() {
    let site = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .expect("usage: cargo bench --bench page_timing -- SITE");
    let runs: usize = std::env::var("RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let profile = tempfile::tempdir().expect("temporary directory");
    let Some(browser) = chrome_timing::launch(profile.path()) else {
        println!("chromium not found");
        return;
    };
    let tab = browser.new_tab().expect("tab");
    tab.set_default_timeout(Duration::from_secs(120));
    println!("| kind | largest page | size | first contentful paint | interactive | load end |");
    println!("|---|---|---:|---:|---:|---:|");
    for (kind, (size, page)) in largest_pages(&site) {
        // Pages with views are also timed opening on their heaviest view
        // (bottom-up: two graphs and a table), which the script draws
        // before the load event ends; an aggregate page on a repetition's
        // (its views read and joined with the page's first).
        let fragments: &[&str] = match kind.as_str() {
            "profiles" | "flamediff" => &["", "shape=bottom-up"],
            "profile aggregate" => &["", "rep=r1&shape=bottom-up"],
            _ => &[""],
        };
        for fragment in fragments {
            row(&tab, &site, (&kind, size, &page), fragment, runs);
        }
    }
}

/// One line of the table: the page (opened at `fragment`) and its median
/// timings.
fn row(
    tab: &Tab,
    site: &Path,
    (kind, size, page): (&str, u64, &Path),
    fragment: &str,
    runs: usize,
) {
    let timings: Vec<_> = (0..runs)
        .filter_map(|_| chrome_timing::time_view(tab, page, fragment))
        .collect();
    let mut rel = page
        .strip_prefix(site)
        .unwrap_or(page)
        .display()
        .to_string();
    if !fragment.is_empty() {
        rel = format!("{rel}#{fragment}");
    }
    {
        match chrome_timing::median(&timings) {
            Some(t) => println!(
                "| {kind} | `{rel}` | {:.0} KB | {:.0} ms | {:.0} ms | {:.0} ms |",
                size as f64 / 1024.0,
                t.first_paint,
                t.interactive,
                t.loaded
            ),
            None => println!(
                "| {kind} | `{rel}` | {:.0} KB | no timings | | |",
                size as f64 / 1024.0
            ),
        }
    }
}
