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
mod common;
#[path = "browser_steps/field.rs"]
mod field;
#[path = "browser_steps/flame.rs"]
mod flame;
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
            step_index_to_profile,
        ),
        (
            "hover shows a tooltip with independent numbers",
            step_hover_tooltip,
        ),
        ("click zooms, reset unzooms", step_click_zoom),
        ("search highlights and reports the share", step_search),
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
        ("flame: tree table sorts and folds", flame::step_tree_table),
        (
            "flame: code link to a highlighted line",
            flame::step_source_line,
        ),
        ("flame: 10,000-deep stacks", flame::step_deep_stacks),
        ("theme switch to dark", step_theme),
        (
            "matrix: fold and unfold, show hidden",
            matrix::step_fold_unfold,
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
            "hostile names stay text on every page kind",
            hostile::step_markup_names_stay_text,
        ),
        (
            "repetitions are views of their aggregate page",
            repetitions::step_repetition_views,
        ),
        ("no errors and no network", step_no_errors_no_network),
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

// ---------------------------------------------------------------------------
// steps

/// index → r1 link of the last version → profile page whose total is the
/// sum of the folded file's counts.
fn step_index_to_profile(ctx: &Ctx) {
    let version = ctx.last_version();
    ctx.open(&ctx.site.join("index.html"));
    ctx.tab
        .wait_for_element("table.pa-matrix")
        .expect("matrix table");

    // The matrix's last column is the last configured version.
    let headers = ctx.js("Array.from(document.querySelectorAll('.pa-matrix thead th')).map(function (t) { return t.textContent.trim(); })");
    let headers: Vec<&str> = headers
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(
        headers.last().copied(),
        Some(version.as_str()),
        "matrix headers {headers:?}"
    );
    let column = headers.len() - 1; // th[0] is "benchmark", cells start at 1

    // Narrower than the table, its box scrolls and the names stay at its
    // left edge.
    let fixed = ctx.js(
        "(function () { var box = document.querySelector('table.pa-matrix').parentElement;
           box.style.width = '320px'; box.scrollLeft = 200;
           var name = box.querySelector('tbody th').getBoundingClientRect().left - box.getBoundingClientRect().left;
           var r = [box.scrollLeft, name]; box.style.width = ''; box.scrollLeft = 0; return r; })()",
    );
    assert!(fixed[0].as_f64().unwrap() > 0.0, "the box scrolls: {fixed}");
    assert!(
        fixed[1].as_f64().unwrap().abs() <= 2.0,
        "names in view: {fixed}"
    );

    // Find the row of the benchmark and the r1 link in that column.
    let row = ctx.js(&format!(
        "Array.from(document.querySelectorAll('.pa-matrix tbody tr')).findIndex(function (tr) {{ return tr.querySelector('th').textContent.trim() === '{BENCH}'; }})"
    ));
    let row = row.as_i64().unwrap();
    assert!(row >= 0, "no {BENCH} row in the matrix");
    let selector = format!(
        ".pa-matrix tbody tr:nth-child({}) td:nth-child({}) .pa-reps a",
        row + 1,
        column + 1
    );
    let links = ctx
        .tab
        .wait_for_elements(&selector)
        .expect("repetition links");
    let labels: Vec<String> = links
        .iter()
        .map(|a| a.get_inner_text().unwrap().trim().to_string())
        .collect();
    assert_eq!(
        labels,
        ["r1", "r2", "r3"],
        "repetition links of {BENCH} {version}"
    );
    ctx.screenshot("01-index");

    links[0].click().expect("click r1");
    ctx.tab
        .wait_for_element("#pa-flame-0")
        .expect("profile page");
    let url = ctx.tab.get_url();
    assert!(
        url.ends_with(&format!("/{BENCH}/{version}/r1.html")),
        "landed on {url}"
    );

    let expected: u64 = read_folded(&ctx.folded(&version, 1))
        .iter()
        .map(|l| l.count)
        .sum();
    let shown = ctx
        .tab
        .wait_for_element("#pa-total")
        .unwrap()
        .get_inner_text()
        .unwrap();
    assert_eq!(first_number(&shown), expected, "#pa-total shows {shown:?}");
    assert_eq!(shown.trim(), format!("{} samples", grouped(expected)));

    // The JSON the script works from agrees too.
    let data = ctx.page_data();
    assert_eq!(
        data["total"].as_f64(),
        Some(expected as f64),
        "pa-data total"
    );
    ctx.screenshot("02-profile");
}

/// Hover the widest non-root frame: the tooltip shows its name, location
/// and share, computed here from the folded file.
fn step_hover_tooltip(ctx: &Ctx) {
    let version = ctx.last_version();
    ctx.open(&ctx.profile_page(&version, 1));
    ctx.tab
        .wait_for_element("#pa-flame-0 g.f[data-i=\"1\"]")
        .unwrap();
    let data = ctx.page_data();
    let fr = frames(&data);
    // The widest child of the root.
    let i = (1..fr.len())
        .filter(|&j| fr[j].parent == 0)
        .max_by(|&a, &b| fr[a].total.partial_cmp(&fr[b].total).unwrap())
        .expect("a non-root frame");
    let (name, location) = (fr[i].name.clone(), fr[i].location.clone());

    // Independent numbers: stacks whose outermost frame is this one.
    let folded = read_folded(&ctx.folded(&version, 1));
    let full = if location.is_empty() {
        name.clone()
    } else {
        format!("{name} ({location})")
    };
    let n: u64 = folded
        .iter()
        .filter(|l| l.frames.first() == Some(&full))
        .map(|l| l.count)
        .sum();
    let all: u64 = folded.iter().map(|l| l.count).sum();
    assert!(n > 0, "no folded stack starts with {full:?}");
    let total_line = format!(
        "total: {} samples ({})",
        grouped(n),
        percent(n as f64, all as f64)
    );

    assert_eq!(
        ctx.js("document.getElementById('pa-tip').hidden"),
        Value::Bool(true),
        "tooltip hidden before hovering"
    );
    let p = ctx.frame_center(i);
    ctx.tab.move_mouse_to_point(p).expect("move mouse");
    ctx.wait_js(
        "!document.getElementById('pa-tip').hidden",
        "the tooltip to show",
    );

    let tip = ctx.js(
        "(function () { var t = document.getElementById('pa-tip'), b = t.getBoundingClientRect(), s = getComputedStyle(t);
           return { lines: Array.from(t.children).filter(function (c) { return c.tagName !== 'BR'; }).map(function (c) { return c.textContent; }),
                    text: t.innerText, display: s.display, visibility: s.visibility,
                    left: b.left, top: b.top, right: b.right, bottom: b.bottom, w: innerWidth, h: innerHeight,
                    details: document.querySelector('#pa-flame-0-section .pa-details').textContent }; })()",
    );
    let lines: Vec<String> = tip["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    assert_ne!(tip["display"], "none", "tooltip is display:none: {tip}");
    assert_ne!(tip["visibility"], "hidden", "tooltip is invisible: {tip}");
    assert_eq!(
        lines.first(),
        Some(&name),
        "tooltip's first line is the frame name: {lines:?}"
    );
    assert!(
        lines.contains(&location),
        "tooltip shows the location {location:?}: {lines:?}"
    );
    assert!(
        lines.contains(&total_line),
        "tooltip shows {total_line:?}: {lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("self: ")),
        "tooltip shows self: {lines:?}"
    );
    assert_eq!(
        tip["details"].as_str().unwrap(),
        lines.join(" · "),
        "#pa-details mirrors the tooltip"
    );
    // It sits on screen, just below-right of the pointer.
    let f = |k: &str| tip[k].as_f64().unwrap();
    assert!(
        f("left") >= 0.0 && f("top") >= 0.0 && f("right") <= f("w") && f("bottom") <= f("h"),
        "tooltip is (partly) off-screen: {tip}"
    );
    assert!(
        f("top") > p.y && f("top") < p.y + 40.0,
        "tooltip is not just below the pointer at {p:?}: {tip}"
    );
    ctx.screenshot("03-hover");

    // Moving off the graph hides it again.
    ctx.tab
        .move_mouse_to_point(Point { x: 5.0, y: 5.0 })
        .unwrap();
    ctx.wait_js(
        "document.getElementById('pa-tip').hidden",
        "the tooltip to hide",
    );
}

/// Click a frame at depth ≥ 2: it fills the width, unrelated frames hide;
/// reset brings everything back.
fn step_click_zoom(ctx: &Ctx) {
    let version = ctx.last_version();
    ctx.open(&ctx.profile_page(&version, 1));
    ctx.tab.wait_for_element("#pa-flame-0 g.f").unwrap();
    let data = ctx.page_data();
    let fr = frames(&data);
    let ancestors = |mut j: usize| {
        let mut set = HashSet::new();
        loop {
            set.insert(j);
            if fr[j].parent < 0 {
                return set;
            }
            j = fr[j].parent as usize;
        }
    };
    let all_anc: Vec<HashSet<usize>> = (0..fr.len()).map(ancestors).collect();
    // Widest frame at depth >= 2 and at most 3/4 of the total (so the zoom
    // is plain to see) that leaves something outside its subtree (neither
    // an ancestor nor a descendant).
    let root_total = fr[0].total;
    let target = (0..fr.len())
        .filter(|&j| depth(&fr, j) >= 2 && fr[j].total <= 0.75 * root_total)
        .filter(|&j| (0..fr.len()).any(|k| !all_anc[j].contains(&k) && !all_anc[k].contains(&j)))
        .max_by(|&a, &b| fr[a].total.partial_cmp(&fr[b].total).unwrap())
        .expect("a frame to zoom into");
    let expect_hidden: Vec<usize> = (0..fr.len())
        .filter(|&k| !all_anc[target].contains(&k) && !all_anc[k].contains(&target))
        .collect();
    let original_width = ctx.js_str(&format!(
        "document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"] rect').getAttribute('width')"
    ));

    let p = ctx.frame_center(target);
    ctx.tab.click_point(p).expect("click frame");
    ctx.wait_js(
        &format!("document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"] rect').getAttribute('width') === '1200.00'"),
        "the clicked frame to fill the width",
    );
    ctx.tab
        .move_mouse_to_point(Point { x: 5.0, y: 5.0 })
        .unwrap();
    ctx.wait_js(
        "document.getElementById('pa-tip').hidden",
        "the tooltip to hide",
    );
    ctx.screenshot("04-zoom");
    let state = ctx.js(&format!(
        "(function () {{ var g = document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"]'), r = g.querySelector('rect'), t = g.querySelector('text');
            var svg = document.getElementById('pa-flame-0').getBoundingClientRect();
            return {{ x: r.getAttribute('x'), shownWidth: r.getBoundingClientRect().width, svgWidth: svg.width,
                     label: t ? t.textContent : null, zoomed: g.classList.contains('pa-zoomed'),
                     hidden: Array.from(document.querySelectorAll('#pa-flame-0 g.f.pa-hidden')).map(function (h) {{ return +h.getAttribute('data-i'); }}),
                     hiddenDisplayed: Array.from(document.querySelectorAll('#pa-flame-0 g.f.pa-hidden')).filter(function (h) {{ return getComputedStyle(h).display !== 'none'; }}).length }}; }})()"
    ));
    assert_eq!(
        state["x"], "0.00",
        "zoomed frame starts at the left edge: {state}"
    );
    assert!(
        (state["shownWidth"].as_f64().unwrap() - state["svgWidth"].as_f64().unwrap()).abs() < 1.0,
        "zoomed frame spans the graph on screen: {state}"
    );
    assert_eq!(
        state["label"].as_str(),
        Some(fr[target].name.as_str()),
        "zoomed frame shows its full name"
    );
    assert_eq!(state["zoomed"], true, "zoomed frame is marked pa-zoomed");
    let mut hidden: Vec<usize> = state["hidden"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_u64().unwrap() as usize)
        .collect();
    hidden.sort();
    assert!(!hidden.is_empty(), "zooming hid nothing");
    let describe = |v: Vec<usize>| -> Vec<String> {
        v.into_iter()
            .map(|k| format!("{k} {} ({})", fr[k].name, fr[k].total))
            .collect()
    };
    let wrongly_hidden = describe(
        hidden
            .iter()
            .copied()
            .filter(|k| !expect_hidden.contains(k))
            .collect(),
    );
    let wrongly_shown = describe(
        expect_hidden
            .iter()
            .copied()
            .filter(|k| !hidden.contains(k))
            .collect(),
    );
    assert!(
        wrongly_hidden.is_empty() && wrongly_shown.is_empty(),
        "zooming into frame {target} {:?} must hide exactly the frames outside its subtree and ancestors; \
         hidden although inside: {wrongly_hidden:?}; shown although outside: {wrongly_shown:?}",
        fr[target].name
    );
    assert_eq!(
        state["hiddenDisplayed"], 0,
        "pa-hidden frames are not displayed"
    );
    // Children scale with the zoomed frame.
    for c in (0..fr.len()).filter(|&c| fr[c].parent == target as i64) {
        let w = ctx.js_str(&format!(
            "document.querySelector('#pa-flame-0 g.f[data-i=\"{c}\"] rect').getAttribute('width')"
        ));
        let want = fr[c].total / fr[target].total * 1200.0;
        assert!(
            (w.parse::<f64>().unwrap() - want).abs() < 0.02,
            "child {c} of the zoomed frame is {w} wide, expected {want:.2}"
        );
    }

    ctx.tab
        .find_element("#pa-reset")
        .unwrap()
        .click()
        .expect("click reset");
    ctx.wait_js(
        "document.querySelectorAll('#pa-flame-0 g.f.pa-hidden').length === 0",
        "reset to unhide all frames",
    );
    let after = ctx.js_str(&format!(
        "document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"] rect').getAttribute('width')"
    ));
    assert_eq!(
        after.parse::<f64>().unwrap(),
        original_width.parse::<f64>().unwrap(),
        "reset restores the frame's width"
    );
    assert_eq!(
        ctx.js("document.querySelectorAll('#pa-flame-0 g.pa-zoomed').length"),
        0
    );
}

/// Type "Inline" + Enter: matches highlight, the result line counts them
/// and reports their share, recomputed here from pa-data.
fn step_search(ctx: &Ctx) {
    let version = ctx.last_version();
    ctx.open(&ctx.profile_page(&version, 1));
    let input = ctx.tab.wait_for_element("#pa-search").unwrap();
    let data = ctx.page_data();
    let fr = frames(&data);
    let total = data["total"].as_f64().unwrap();

    let query = "Inline";
    let hit: Vec<bool> = fr
        .iter()
        .enumerate()
        .map(|(j, f)| j > 0 && f.name.to_lowercase().contains(&query.to_lowercase()))
        .collect();
    let covered = |mut j: usize| {
        while fr[j].parent >= 0 {
            j = fr[j].parent as usize;
            if hit[j] {
                return true;
            }
        }
        false
    };
    let count = hit.iter().filter(|h| **h).count();
    let sum: f64 = (0..fr.len())
        .filter(|&j| hit[j] && !covered(j))
        .map(|j| fr[j].total)
        .sum();
    assert!(count > 0, "sample data has no {query} frames");
    let expected = format!(
        "{count} matching frame{}: {} samples, {} of the total",
        if count == 1 { "" } else { "s" },
        grouped(sum as u64),
        percent(sum, total)
    );

    input.click().unwrap();
    ctx.tab.type_str(query).unwrap();
    ctx.tab.press_key("Enter").unwrap();
    ctx.wait_js(
        "document.getElementById('pa-search-result').textContent !== ''",
        "the search result",
    );
    let result = ctx
        .tab
        .find_element("#pa-search-result")
        .unwrap()
        .get_inner_text()
        .unwrap();
    let shape = regex_like_shape(&result);
    assert!(
        shape,
        "search result {result:?} does not read like 'N matching frames: ... of the total'"
    );
    assert_eq!(result, expected, "search result text");

    let highlighted = ctx.js("Array.from(document.querySelectorAll('#pa-flame-0 g.pa-hl')).map(function (g) { return +g.getAttribute('data-i'); })");
    let mut highlighted: Vec<usize> = highlighted
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    highlighted.sort();
    let want: Vec<usize> = (0..fr.len()).filter(|&j| hit[j]).collect();
    assert_eq!(highlighted, want, "highlighted frames");
    // Highlighted boxes are painted in the highlight colour.
    let fills = ctx.js(
        "(function () { var hl = document.querySelector('#pa-flame-0 g.pa-hl rect'), other = document.querySelector('#pa-flame-0 g.f:not(.pa-hl) rect');
           return [getComputedStyle(hl).fill, getComputedStyle(other).fill]; })()",
    );
    assert_ne!(
        fills[0], fills[1],
        "highlighted frames look different: {fills}"
    );
    ctx.screenshot("05-search");
    ctx.flame_closeup("05b-light-flame-closeup");

    // Clearing the box (debounced input) clears highlights and the result.
    ctx.js("(function () { var s = document.getElementById('pa-search'); s.select(); return true; })()");
    ctx.tab.press_key("Backspace").unwrap();
    // No Enter this time: the 120 ms debounce runs the search; poll for it.
    ctx.wait_js(
        "document.getElementById('pa-search-result').textContent === '' && document.querySelectorAll('#pa-flame-0 g.pa-hl').length === 0",
        "clearing the search",
    );
}

/// "N matching frame(s): ... of the total" without a regex crate.
fn regex_like_shape(s: &str) -> bool {
    let Some((n, rest)) = s.split_once(' ') else {
        return false;
    };
    !n.is_empty()
        && n.chars().all(|c| c.is_ascii_digit())
        && (rest.starts_with("matching frames: ") || rest.starts_with("matching frame: "))
        && rest.ends_with(" of the total")
}

/// Pick "dark": the theme stylesheet swaps and the page turns dark; the
/// choice survives navigation.
fn step_theme(ctx: &Ctx) {
    let version = ctx.last_version();
    ctx.open(&ctx.profile_page(&version, 1));
    let select = ctx.tab.wait_for_element("#pa-theme-select").unwrap();
    let before = ctx.js_str("getComputedStyle(document.body).backgroundColor");
    assert!(
        luminance(&before) > 0.5,
        "default theme is light, body background {before}"
    );

    // Choose with the keyboard, as a user without a mouse would: focus the
    // closed select and type the option's first letters.
    select.focus().unwrap();
    ctx.tab.type_str("dark").unwrap();
    ctx.wait_js(
        "document.getElementById('pa-theme-select').value === 'dark'",
        "the select to read dark",
    );
    let href = ctx.js_str("document.getElementById('pa-theme').getAttribute('href')");
    assert!(
        href.ends_with("assets/theme-dark.css"),
        "theme link href {href}"
    );
    assert_eq!(
        ctx.js_str("document.documentElement.getAttribute('data-theme')"),
        "dark"
    );
    ctx.wait_js(
        &format!("getComputedStyle(document.body).backgroundColor !== '{before}'"),
        "the dark stylesheet to apply",
    );
    let after = ctx.js_str("getComputedStyle(document.body).backgroundColor");
    assert!(
        luminance(&after) < 0.2,
        "dark theme body background {after}"
    );
    let fg = ctx.js_str("getComputedStyle(document.body).color");
    assert!(luminance(&fg) > 0.6, "dark theme text colour {fg} is light");
    ctx.tab
        .move_mouse_to_point(Point { x: 5.0, y: 5.0 })
        .unwrap();
    ctx.screenshot("06-dark-profile");
    ctx.flame_closeup("06b-dark-flame-closeup");

    // The choice is remembered on the next page.
    ctx.open(&ctx.site.join("index.html"));
    ctx.wait_js(
        "document.documentElement.getAttribute('data-theme') === 'dark'",
        "the stored theme to apply on the index",
    );
    ctx.wait_js(
        &format!("getComputedStyle(document.body).backgroundColor === '{after}'"),
        "the index to turn dark",
    );
    ctx.screenshot("07-dark-index");

    // Back to light so later runs in this profile start clean.
    ctx.js("(function () { var s = document.getElementById('pa-theme-select'); s.value = 'light'; s.dispatchEvent(new Event('change')); return true; })()");
}

/// Relative luminance (0..1) of a CSS `rgb(r, g, b)` colour.
fn luminance(css: &str) -> f64 {
    let inner = css
        .trim_start_matches("rgba(")
        .trim_start_matches("rgb(")
        .trim_end_matches(')');
    let c: Vec<f64> = inner
        .split(',')
        .take(3)
        .map(|v| {
            v.trim()
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("colour {css}"))
                / 255.0
        })
        .collect();
    let lin = |v: f64| {
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])
}

/// Over everything above: only file:// requests, no exceptions, no console
/// or log errors.
fn step_no_errors_no_network(ctx: &Ctx) {
    // Make sure the last page's events have arrived.
    ctx.open(&ctx.site.join("index.html"));
    let o = ctx.observed.lock().unwrap();
    assert!(
        !o.requests.is_empty(),
        "no requests were observed at all: is the Network domain enabled?"
    );
    let foreign: Vec<&String> = o
        .requests
        .iter()
        .filter(|u| !u.starts_with("file://"))
        .collect();
    assert!(foreign.is_empty(), "non-file requests: {foreign:?}");
    assert!(
        o.exceptions.is_empty(),
        "uncaught exceptions: {:?}",
        o.exceptions
    );
    assert!(
        o.console_errors.is_empty(),
        "console errors: {:?}",
        o.console_errors
    );
    assert!(o.log_errors.is_empty(), "log errors: {:?}", o.log_errors);
    assert!(o.dialogs.is_empty(), "dialogs opened: {:?}", o.dialogs);
    // Every page asset that was asked for exists in the site.
    for u in &o.requests {
        let path = Path::new(
            u.trim_start_matches("file://")
                .split(['?', '#'])
                .next()
                .unwrap(),
        );
        assert!(path.exists(), "requested file does not exist: {u}");
    }
    println!("{} requests, all file://", o.requests.len());
}
