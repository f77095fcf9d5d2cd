//! Browser tests: build the sample site with the real binary, open it in
//! Debian's headless chromium over `file://`, and check what a user sees:
//! navigation, totals, tooltips, zoom, search, theme switching, and that
//! the page neither errors nor touches the network.
//!
//! One browser serves every step (startup is slow); each step runs under
//! `catch_unwind` so one failure does not hide the others, and the test
//! fails at the end listing every failed step.
//!
//! Chromium: `$CHROME` or `/usr/bin/chromium`. When it is missing the test
//! is skipped with a note, except under `CI`, where it fails.
//!
//! Screenshots land in `<target>/browser-artifacts/`.

#[path = "browser_steps/allocation.rs"]
mod allocation;
#[path = "browser_steps/answer.rs"]
mod answer;
#[path = "browser_steps/basics.rs"]
mod basics;
mod common;
#[path = "browser_steps/compare.rs"]
mod compare;
#[path = "browser_steps/field.rs"]
mod field;
#[path = "browser_steps/flame.rs"]
mod flame;
#[path = "browser_steps/flame_nav.rs"]
mod flame_nav;
#[path = "browser_steps/hostile.rs"]
mod hostile;
#[path = "browser_steps/matrix.rs"]
mod matrix;
#[path = "browser_steps/regression.rs"]
mod regression;
#[path = "browser_steps/repetitions.rs"]
mod repetitions;

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use headless_chrome::browser::tab::point::Point;
use headless_chrome::protocol::cdp::types::Event;
use headless_chrome::protocol::cdp::{Log, Network, Page};
use headless_chrome::{Browser, LaunchOptions, Tab};
use serde_json::Value;

use common::{
    build_site_with, clone_sample_history, configured_versions, grouped, percent, read_folded,
    read_tree, sample_data,
};

const BENCH: &str = "convert-basic";
const TIMEOUT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// harness

/// What the page did behind the user's back, collected from CDP events.
/// A named sub-step of the browser test.
type Step = (&'static str, fn(&Ctx));

#[derive(Default, Debug)]
struct Observed {
    requests: Vec<String>,
    exceptions: Vec<String>,
    console_errors: Vec<String>,
    log_errors: Vec<String>,
    /// Messages of `alert`/`confirm`/`prompt` dialogs (dismissed at once).
    dialogs: Vec<String>,
}

struct Ctx {
    _browser: Browser,
    tab: Arc<Tab>,
    site: PathBuf,
    data: PathBuf,
    artifacts: PathBuf,
    observed: Arc<Mutex<Observed>>,
    shots: Mutex<Vec<PathBuf>>,
}

fn chrome_path() -> Option<PathBuf> {
    let p = std::env::var_os("CHROME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    p.is_file().then_some(p)
}

fn launch(chrome: PathBuf, profile_dir: &Path) -> Browser {
    let args: Vec<&std::ffi::OsStr> = [
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    .iter()
    .map(std::ffi::OsStr::new)
    .collect();
    let options = LaunchOptions::default_builder()
        .path(Some(chrome))
        .headless(true)
        .sandbox(false)
        .user_data_dir(Some(profile_dir.to_path_buf()))
        .window_size(Some((1400, 1000)))
        .idle_browser_timeout(Duration::from_secs(600))
        .args(args)
        .build()
        .expect("launch options");
    Browser::new(options).expect("start chromium")
}

fn file_url(path: &Path) -> String {
    let abs = path
        .canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    format!("file://{}", abs.display())
}

impl Ctx {
    /// Opens an SVG file of its own (a saved chart).
    fn open_svg(&self, path: &Path) {
        self.tab.navigate_to(&file_url(path)).expect("navigate");
        self.tab
            .wait_until_navigated()
            .expect("navigation finished");
        self.tab.wait_for_element("svg").expect("svg rendered");
    }

    /// Opens a view of a page: `fragment` is e.g. `shape=bottom-up`
    /// (empty: the page as it opens).
    fn open_view(&self, path: &Path, fragment: &str) {
        if fragment.is_empty() {
            return self.open(path);
        }
        // From another document, so that the page loads afresh even when
        // it is the one open (a fragment alone would not reload it).
        self.tab.navigate_to("about:blank").expect("navigate");
        self.tab.wait_until_navigated().expect("blank page");
        self.load(&format!("{}#{fragment}", file_url(path)));
    }

    fn open(&self, path: &Path) {
        self.load(&file_url(path));
    }

    /// Navigates to a site page and waits until it is rendered.
    fn load(&self, url: &str) {
        self.tab.navigate_to(url).expect("navigate");
        self.tab
            .wait_until_navigated()
            .expect("navigation finished");
        self.tab
            .wait_for_element("footer.pa-foot")
            .expect("page rendered");
    }

    /// Shows another view of the open page (`hash`, e.g. `#shape=flat`)
    /// and waits until `ready` (a script expression) holds.
    fn switch_view(&self, hash: &str, ready: &str, what: &str) {
        self.js(&format!("(location.hash = '{hash}', true)"));
        self.wait_js(ready, what);
    }

    fn profile_page(&self, version: &str, rep: u32) -> PathBuf {
        self.site
            .join(format!("profiles/{BENCH}/{version}/r{rep}.html"))
    }

    fn folded(&self, version: &str, rep: u32) -> PathBuf {
        self.data.join(format!("{version}/{BENCH}.{rep}.folded"))
    }

    fn last_version(&self) -> String {
        configured_versions(&self.data)
            .pop()
            .expect("at least one version")
    }

    /// Evaluates `expr` in the page; it must produce a JSON-serialisable
    /// value, returned parsed.
    fn js(&self, expr: &str) -> Value {
        let wrapped = format!("JSON.stringify((function () {{ return ({expr}); }})())");
        let obj = self
            .tab
            .evaluate(&wrapped, false)
            .unwrap_or_else(|e| panic!("evaluate {expr}: {e}"));
        match obj.value {
            Some(Value::String(s)) => serde_json::from_str(&s).expect("JSON from page"),
            other => panic!(
                "evaluate {expr}: no value ({other:?}, {:?})",
                obj.description
            ),
        }
    }

    fn js_str(&self, expr: &str) -> String {
        match self.js(expr) {
            Value::String(s) => s,
            other => panic!("{expr}: expected a string, got {other}"),
        }
    }

    /// Polls a JS condition (for effects that are not new elements, such
    /// as a stylesheet finishing to load).
    fn wait_js(&self, cond: &str, what: &str) {
        let start = Instant::now();
        loop {
            if self.js(cond) == Value::Bool(true) {
                return;
            }
            assert!(
                start.elapsed() < TIMEOUT,
                "timed out waiting for {what} ({cond})"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The page data of the first graph shown (names, locations, frames),
    /// as the page script holds it.
    fn page_data(&self) -> Value {
        self.graph_data(0)
    }

    /// The page data of graph `k` of the view shown.
    fn graph_data(&self, k: usize) -> Value {
        let text = self.js_str(&format!("JSON.stringify(window.perfatlasGraphData({k}))"));
        serde_json::from_str(&text).expect("graph data is JSON")
    }

    /// Scrolls frame `i` into view and returns the centre of its rect in
    /// viewport coordinates.
    fn frame_center(&self, i: usize) -> Point {
        let v = self.js(&format!(
            "(function () {{ var r = document.querySelector('#pa-flame-0 g.f[data-i=\"{i}\"] rect');
               r.scrollIntoView({{block: 'center'}});
               var b = r.getBoundingClientRect();
               return [b.left + b.width / 2, b.top + b.height / 2, b.width, b.height]; }})()"
        ));
        let n = |k: usize| v[k].as_f64().expect("number");
        assert!(
            n(2) > 4.0 && n(3) > 4.0,
            "frame {i} is too small to point at: {v}"
        );
        Point { x: n(0), y: n(1) }
    }

    fn screenshot(&self, name: &str) {
        let png = self
            .tab
            .capture_screenshot(Page::CaptureScreenshotFormatOption::Png, None, None, true)
            .expect("screenshot");
        let path = self.artifacts.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write screenshot");
        println!("screenshot: {}", path.display());
        self.shots.lock().unwrap().push(path);
    }

    /// A magnified close-up of the top-left corner of the flame graph, to
    /// judge label legibility.
    fn flame_closeup(&self, name: &str) {
        let b = self.js(
            "(function () { var s = document.getElementById('pa-flame-0'); s.scrollIntoView(); var b = s.getBoundingClientRect();
               return [b.left + scrollX, b.top + scrollY]; })()",
        );
        let clip = Page::Viewport {
            x: b[0].as_f64().unwrap(),
            y: b[1].as_f64().unwrap(),
            width: 600.0,
            height: 160.0,
            scale: 3.0,
        };
        let png = self
            .tab
            .capture_screenshot(
                Page::CaptureScreenshotFormatOption::Png,
                None,
                Some(clip),
                true,
            )
            .expect("screenshot");
        let path = self.artifacts.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("write screenshot");
        println!("screenshot: {}", path.display());
        self.shots.lock().unwrap().push(path);
    }
}

/// Frames of pa-data as (parent, name, location, self, total).
struct Frame {
    parent: i64,
    name: String,
    location: String,
    total: f64,
}

fn frames(data: &Value) -> Vec<Frame> {
    let names = data["names"].as_array().expect("names");
    let locations = data["locations"].as_array().expect("locations");
    data["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| Frame {
            parent: f[0].as_i64().expect("parent"),
            name: names[f[1].as_u64().unwrap() as usize]
                .as_str()
                .unwrap()
                .to_string(),
            location: locations[f[2].as_u64().unwrap() as usize]
                .as_str()
                .unwrap_or("")
                .to_string(),
            total: f[4].as_f64().expect("total"),
        })
        .collect()
}

fn depth(frames: &[Frame], mut i: usize) -> usize {
    let mut d = 0;
    while frames[i].parent >= 0 {
        i = frames[i].parent as usize;
        d += 1;
    }
    d
}

fn first_number(s: &str) -> u64 {
    let digits: String = s
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(|c| *c != ',')
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number in {s:?}"))
}

// ---------------------------------------------------------------------------
// the test

#[test]
fn report_site_in_a_browser() {
    let Some(chrome) = chrome_path() else {
        let msg = "chromium not found (set $CHROME or install /usr/bin/chromium)";
        if std::env::var_os("CI").is_some() {
            panic!("browser tests cannot run on CI: {msg}");
        }
        eprintln!("note: skipping browser tests: {msg}");
        return;
    };

    let site_dir = tempfile::tempdir().expect("tempdir");
    let site = site_dir.path().join("site");
    let data = sample_data();
    let repo = clone_sample_history(site_dir.path());
    // Every repetition with a page of its own, for the steps that test
    // them; `repetitions` builds the default site too.
    build_site_with(
        &data,
        &site,
        &[
            "--repo".as_ref(),
            repo.as_os_str(),
            "--repetition-pages".as_ref(),
        ],
    );

    let artifacts = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target dir")
        .join("browser-artifacts");
    std::fs::create_dir_all(&artifacts).expect("artifacts dir");

    let profile_dir = tempfile::tempdir().expect("profile dir");
    let browser = launch(chrome, profile_dir.path());
    let tab = browser.new_tab().expect("tab");
    tab.set_default_timeout(TIMEOUT);

    // Record requests, exceptions and console errors for the whole session.
    let observed = Arc::new(Mutex::new(Observed::default()));
    {
        let observed = Arc::clone(&observed);
        let dialog_tab = Arc::clone(&tab);
        tab.add_event_listener(Arc::new(move |event: &Event| {
            let mut o = observed.lock().unwrap();
            match event {
                Event::PageJavascriptDialogOpening(e) => {
                    o.dialogs.push(e.params.message.clone());
                    let _ = dialog_tab.get_dialog().dismiss();
                }
                Event::NetworkRequestWillBeSent(e) => o.requests.push(e.params.request.url.clone()),
                Event::RuntimeExceptionThrown(e) => {
                    let d = &e.params.exception_details;
                    let what = d
                        .exception
                        .as_ref()
                        .and_then(|x| x.description.clone())
                        .unwrap_or_default();
                    o.exceptions.push(format!(
                        "{} {} ({:?}:{})",
                        d.text, what, d.url, d.line_number
                    ));
                }
                Event::RuntimeConsoleAPICalled(e) => {
                    let t = format!("{:?}", e.params.Type);
                    if t.contains("Error") || t.contains("Assert") {
                        let args: Vec<String> = e
                            .params
                            .args
                            .iter()
                            .map(|a| {
                                a.value
                                    .as_ref()
                                    .map(|v| v.to_string())
                                    .or(a.description.clone())
                                    .unwrap_or_default()
                            })
                            .collect();
                        o.console_errors.push(args.join(" "));
                    }
                }
                Event::LogEntryAdded(e) if e.params.entry.level == Log::LogEntryLevel::Error => {
                    o.log_errors.push(format!(
                        "{} ({:?})",
                        e.params.entry.text, e.params.entry.url
                    ));
                }
                _ => {}
            }
        }))
        .expect("event listener");
    }
    tab.call_method(Network::Enable {
        max_total_buffer_size: None,
        max_resource_buffer_size: None,
        max_post_data_size: None,
        report_direct_socket_traffic: None,
        enable_durable_messages: None,
    })
    .expect("Network.enable");
    tab.enable_log().expect("Log.enable");
    tab.enable_runtime().expect("Runtime.enable");

    let ctx = Ctx {
        _browser: browser,
        tab,
        site,
        data,
        artifacts,
        observed,
        shots: Mutex::new(Vec::new()),
    };

    let steps: &[Step] = &[
        (
            "index link leads to the profile and its total",
            basics::step_index_to_profile,
        ),
        (
            "hover shows a tooltip with independent numbers",
            basics::step_hover_tooltip,
        ),
        ("click zooms, reset unzooms", basics::step_click_zoom),
        (
            "search highlights and reports the share",
            basics::step_search,
        ),
        (
            "flame: the URL fragment restores search and zoom",
            flame::step_fragment_restores_state,
        ),
        ("flame: zoom, then Back", flame::step_zoom_and_back),
        ("flame: save as SVG", flame::step_save_as_svg),
        ("flame: bottom-up sums", flame::step_bottom_up_sums),
        (
            "flame: views drawn by the script match the HTML",
            flame::step_views_match_the_html,
        ),
        (
            "flame: diff tags and the self switch",
            flame::step_diff_tags,
        ),
        (
            "flame: diff widths of the newer or the older version",
            flame::step_diff_widths,
        ),
        ("flame: tree table sorts and folds", flame::step_tree_table),
        (
            "flame: code link to a highlighted line",
            flame::step_source_line,
        ),
        ("flame: 10,000-deep stacks", flame::step_deep_stacks),
        (
            "flame nav: wheel zoom, pan, drag and keys",
            flame_nav::step_wheel_pan_keys,
        ),
        (
            "flame nav: sandwich of a function",
            flame_nav::step_sandwich,
        ),
        (
            "flame nav: sandwich of a differential graph",
            flame_nav::step_diff_sandwich,
        ),
        (
            "flame nav: a 12,000-frame graph zooms smoothly",
            flame_nav::step_big_graph_smooth,
        ),
        (
            "flame nav: a standalone SVG zooms and pans",
            flame_nav::step_standalone_svg,
        ),
        ("theme switch to dark", basics::step_theme),
        (
            "matrix: fold and unfold, show hidden",
            matrix::step_fold_unfold,
        ),
        (
            "matrix: opens on the program, what moved most first",
            matrix::step_opens_on_the_program,
        ),
        (
            "matrix: popup with source diff",
            matrix::step_popup_with_diff,
        ),
        (
            "matrix: version header and glyph click",
            matrix::step_header_and_glyph_click,
        ),
        (
            "component page: script-drawn graphs, tables without it",
            matrix::step_component_page_script,
        ),
        (
            "matrix: themes recolour the Δ scale",
            matrix::step_matrix_themes,
        ),
        (
            "field: bands, selection, filter, collapse, bug line",
            field::step_field_pages,
        ),
        (
            "allocation: highlight, fixed highlight, exclusion, popups, colours, expanders",
            allocation::step_allocation_pages,
        ),
        (
            "regression: index, page, flagged path, links",
            regression::step_regression_page,
        ),
        (
            "answer to code: root cause → method → line; crawl",
            answer::step_answer_to_code,
        ),
        (
            "hostile names stay text on every page kind",
            hostile::step_markup_names_stay_text,
        ),
        (
            "compare any two: built pairs drawn alike, repetitions, links",
            compare::step_compare_any_two,
        ),
        (
            "repetitions are views of their aggregate page",
            repetitions::step_repetition_views,
        ),
        (
            "no errors and no network",
            basics::step_no_errors_no_network,
        ),
        (
            "crawl a site given by PERFATLAS_CRAWL_SITE",
            answer::step_crawl_given_site,
        ),
    ];
    // BROWSER_STEPS=substring runs only the matching steps (while working
    // on one); CI runs them all.
    let only = std::env::var("BROWSER_STEPS").ok();
    let mut failed = Vec::new();
    for (name, step) in steps {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        println!("--- {name}");
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| step(&ctx))) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failed.push(format!("{name}: {msg}"));
        }
    }
    println!("screenshots in {}:", ctx.artifacts.display());
    for p in ctx.shots.lock().unwrap().iter() {
        println!("  {}", p.display());
    }
    assert!(
        failed.is_empty(),
        "{} browser step(s) failed:\n  {}",
        failed.len(),
        failed.join("\n  ")
    );
}
