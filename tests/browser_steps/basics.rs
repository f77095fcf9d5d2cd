//! The first steps a reader takes on the sample site: from the index to a
//! profile, a tooltip, a zoom, a search, the theme, and no error or
//! network request on any page (part of `tests/browser.rs`).

use super::*;

/// index → r1 link of the last version → profile page whose total is the
/// sum of the folded file's counts.
pub fn step_index_to_profile(ctx: &Ctx) {
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
pub fn step_hover_tooltip(ctx: &Ctx) {
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

    // Independent numbers: stacks whose outermost frame is this function
    // (py-spy writes `name (file:line)`; a box is a function, whatever
    // line each sample was taken on).
    let folded = read_folded(&ctx.folded(&version, 1));
    let file = location
        .rsplit_once(':')
        .filter(|(_, l)| l.parse::<u32>().is_ok())
        .map_or(location.as_str(), |(f, _)| f);
    let same_function = |frame: &String| match frame.strip_suffix(')') {
        _ if location.is_empty() => *frame == name,
        Some(rest) => rest.rsplit_once(" (").is_some_and(|(n, at)| {
            n == name && (at == file || at.starts_with(&format!("{file}:")))
        }),
        None => false,
    };
    let full = format!("{name} ({file}:…)");
    let n: u64 = folded
        .iter()
        .filter(|l| l.frames.first().is_some_and(same_function))
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
pub fn step_click_zoom(ctx: &Ctx) {
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
pub fn step_search(ctx: &Ctx) {
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
pub fn step_theme(ctx: &Ctx) {
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
pub fn step_no_errors_no_network(ctx: &Ctx) {
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
