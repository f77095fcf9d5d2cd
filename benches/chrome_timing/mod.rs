//! Page timings in Debian's headless chromium over file://, shared by the
//! browser benches: first contentful paint, DOM interactive and the end of
//! the load event (the page's script has run), from the page's own
//! Performance timeline.

use std::path::{Path, PathBuf};
use std::time::Duration;

use headless_chrome::{Browser, LaunchOptions, Tab};

/// Milliseconds from navigation start.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub first_paint: f64,
    pub interactive: f64,
    pub loaded: f64,
}

/// Chromium (`$CHROME`, else `/usr/bin/chromium`) with a fresh profile
/// in `profile_dir`; `None` when it is not installed.
pub fn launch(profile_dir: &Path) -> Option<Browser> {
    let chrome = std::env::var_os("CHROME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !chrome.is_file() {
        return None;
    }
    let options = LaunchOptions::default_builder()
        .path(Some(chrome))
        .headless(true)
        .sandbox(false)
        .user_data_dir(Some(profile_dir.to_path_buf()))
        .window_size(Some((1400, 1000)))
        .idle_browser_timeout(Duration::from_secs(600))
        .args(
            [
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ]
            .iter()
            .map(std::ffi::OsStr::new)
            .collect(),
        )
        .build()
        .expect("launch options");
    Some(Browser::new(options).expect("chromium"))
}

/// Opens `page` fresh (after about:blank) and reads its timings once the
/// footer is there and the load event has ended.
#[allow(dead_code)] // Each bench includes this module; not all use both.
pub fn time_page(tab: &Tab, page: &Path) -> Option<Timing> {
    time_view(tab, page, "")
}

/// [`time_page`] for the page opened with `fragment` (e.g.
/// `shape=bottom-up`: a view its script draws while the page loads).
#[allow(dead_code)]
pub fn time_view(tab: &Tab, page: &Path, fragment: &str) -> Option<Timing> {
    let mut url = format!("file://{}", page.canonicalize().ok()?.display());
    if !fragment.is_empty() {
        url = format!("{url}#{fragment}");
    }
    tab.navigate_to("about:blank").ok()?;
    tab.wait_until_navigated().ok()?;
    tab.navigate_to(&url).ok()?;
    tab.wait_until_navigated().ok()?;
    tab.wait_for_element("footer.pa-foot").ok()?;
    for _ in 0..600 {
        let v = tab
            .evaluate(
                "JSON.stringify((function () { var n = performance.getEntriesByType('navigation')[0];
                   var fcp = performance.getEntriesByName('first-contentful-paint')[0];
                   return [fcp ? fcp.startTime : -1, n.domInteractive, n.loadEventEnd]; })())",
                false,
            )
            .ok()?;
        let text = v.value.and_then(|x| x.as_str().map(str::to_string))?;
        let t: Vec<f64> = serde_json::from_str(&text).ok()?;
        if t.len() == 3 && t[2] > 0.0 && t[0] >= 0.0 {
            return Some(Timing {
                first_paint: t[0],
                interactive: t[1],
                loaded: t[2],
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// The median of each timing over `runs`.
pub fn median(runs: &[Timing]) -> Option<Timing> {
    if runs.is_empty() {
        return None;
    }
    let mid = |f: fn(&Timing) -> f64| {
        let mut v: Vec<f64> = runs.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Some(Timing {
        first_paint: mid(|t| t.first_paint),
        interactive: mid(|t| t.interactive),
        loaded: mid(|t| t.loaded),
    })
}
