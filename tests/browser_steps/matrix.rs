//! Browser steps for the evolution matrix, its component pages and its
//! timelines, on the sample site built with the sample data's git history.

use headless_chrome::browser::tab::point::Point;
use serde_json::Value;

use super::Ctx;

const MATRIX: &str = "matrix/b/convert-extensions/index.html";

fn configured_count(ctx: &Ctx) -> usize {
    super::configured_versions(&ctx.data).len()
}

fn matrix_data(ctx: &Ctx) -> Value {
    let text = ctx.js_str("document.getElementById('pa-matrix-data').textContent");
    crate::common::matrix_rows_written_out(
        serde_json::from_str(&text).expect("pa-matrix-data is JSON"),
    )
}

/// Number of matrix rows the reader can see.
fn shown_rows(ctx: &Ctx) -> u64 {
    ctx.js("Array.prototype.filter.call(document.querySelectorAll('#pa-matrix .pa-row'), function (r) { return getComputedStyle(r).display !== 'none'; }).length")
        .as_u64()
        .expect("count")
}

/// Centre of glyph `v` in row `r`, scrolled into view.
fn glyph_point(ctx: &Ctx, r: u64, v: u64) -> Point {
    let b = ctx.js(&format!(
        "(function () {{ var s = document.querySelector('#pa-matrix .pa-row[data-r=\"{r}\"] svg.pa-gl');
           s.scrollIntoView({{block: 'center', inline: 'center'}});
           var b = s.getBoundingClientRect(); return [b.left, b.top, b.height, b.width / s.viewBox.baseVal.width]; }})()"
    ));
    let n = |k: usize| b[k].as_f64().expect("number");
    // Columns are 26 units wide, stretched to the matrix's width.
    Point {
        x: n(0) + (v as f64 * 26.0 + 13.0) * n(3),
        y: n(1) + n(2) - 6.0,
    }
}

/// The glyphs use the width beside the names: with few versions the
/// columns widen, and each version's header label stays over its column.
fn glyphs_fill_the_width(ctx: &Ctx) {
    let at = ctx.js(
        "(function () { var box = document.querySelector('.pa-mscroll'), name = box.querySelector('.pa-name');
           var row = document.querySelector('#pa-matrix svg.pa-gl').getBoundingClientRect();
           var head = Array.from(document.querySelectorAll('.pa-mhead svg.pa-gh text')).map(function (t) {
             var b = t.getBoundingClientRect(); return b.left; });
           return { free: box.clientWidth - name.offsetWidth, glyphs: row.width, left: row.left, labels: head }; })()",
    );
    let n = |k: &str| at[k].as_f64().unwrap();
    let versions = configured_count(ctx) as f64;
    assert!(n("glyphs") > versions * 26.0 * 1.5, "glyphs widen: {at}");
    assert!(n("glyphs") <= n("free"), "and fit beside the names: {at}");
    let column = n("glyphs") / versions;
    for (v, left) in at["labels"].as_array().unwrap().iter().enumerate() {
        let left = left.as_f64().unwrap();
        let centre = n("left") + (v as f64 + 0.5) * column;
        assert!(
            (left - centre).abs() < column / 2.0 + 6.0,
            "label {v} over its column: {at}"
        );
    }
}

/// Scrolled down and across, the matrix keeps its version headers and
/// its component names in view: both stick to the matrix's own box,
/// which is the one that scrolls.
fn headers_stay_in_view(ctx: &Ctx) {
    let at = ctx.js(
        "(function () { var box = document.querySelector('.pa-mscroll');
           box.scrollIntoView(); box.scrollTop = 600; box.scrollLeft = 400;
           var b = box.getBoundingClientRect(), h = document.querySelector('.pa-mhead').getBoundingClientRect();
           var label = document.querySelector('.pa-mhead text').getBoundingClientRect();
           var name = document.querySelector('#pa-matrix .pa-row .pa-name').getBoundingClientRect();
           var r = { scrolled: box.scrollTop, box: b.top, head: h.top, label: label.bottom, left: b.left, name: name.left,
                     tall: box.scrollHeight > box.clientHeight, viewport: innerHeight };
           box.scrollTop = 0; box.scrollLeft = 0; return r; })()",
    );
    let n = |k: &str| at[k].as_f64().unwrap_or(f64::NAN);
    assert!(
        at["tall"].as_bool() == Some(true),
        "the matrix is taller than its box: {at}"
    );
    assert!(n("scrolled") > 0.0, "{at}");
    assert!(
        (n("head") - n("box")).abs() <= 2.0,
        "version headers at the top of the box: {at}"
    );
    assert!(
        n("label") > n("box") && n("label") < n("viewport"),
        "a version label in view: {at}"
    );
    assert!(
        (n("name") - n("left")).abs() <= 2.0,
        "names at the left of the box: {at}"
    );
    // Scrolled to the end of the matrix and then of the page, the version
    // header is still wholly in the window (it sat 7 px above it).
    let end = ctx.js(
        "(function () { var box = document.querySelector('.pa-mscroll');
           box.scrollTop = box.scrollHeight; window.scrollTo(0, document.documentElement.scrollHeight);
           var h = document.querySelector('.pa-mhead').getBoundingClientRect();
           var r = { head: h.top, bottom: h.bottom, page: window.scrollY, viewport: innerHeight };
           box.scrollTop = 0; window.scrollTo(0, 0); return r; })()",
    );
    let e = |k: &str| end[k].as_f64().unwrap_or(f64::NAN);
    assert!(e("page") > 0.0, "the page scrolls: {end}");
    assert!(
        e("head") >= 0.0 && e("bottom") <= e("viewport"),
        "the version header wholly in view at the end of the page: {end}"
    );
}

/// Per method (`name (file)` as folded stacks name it) of each version,
/// its share of the version's samples: each stack counts once for every
/// method on it, however often it recurs.
fn method_shares(ctx: &Ctx, bench: &str) -> Vec<std::collections::BTreeMap<String, f64>> {
    use std::collections::{BTreeMap, BTreeSet};
    super::configured_versions(&ctx.data)
        .iter()
        .map(|v| {
            let mut total = 0.0;
            let mut per: BTreeMap<String, f64> = BTreeMap::new();
            for e in std::fs::read_dir(ctx.data.join(v)).unwrap().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !(name.starts_with(&format!("{bench}.")) && name.ends_with(".folded")) {
                    continue;
                }
                for line in super::read_folded(&e.path()) {
                    total += line.count as f64;
                    let methods: BTreeSet<String> = line
                        .frames
                        .iter()
                        .map(|f| match f.rsplit_once(':') {
                            Some((m, _)) => m.to_string(),
                            None => f.clone(),
                        })
                        .collect();
                    for m in methods {
                        *per.entry(m).or_default() += line.count as f64;
                    }
                }
            }
            per.values_mut().for_each(|x| *x /= total);
            per
        })
        .collect()
}

/// The matrix opens on the program under test: the library's package
/// first, the bench script (and the standard library, which the
/// repository does not hold) after it, and as the first method the one
/// whose share moved most between two consecutive versions, worked out
/// here from the folded stacks, within the matrix's first screen.
pub fn step_opens_on_the_program(ctx: &Ctx) {
    let bench = super::BENCH;
    let shares = method_shares(ctx, bench);
    // (method name, largest move in whole points) of the library's methods.
    let mut moves: Vec<(String, f64)> = Vec::new();
    for (key, _) in shares.iter().flatten() {
        if !key.contains("(markdown/") || moves.iter().any(|m| &m.0 == key) {
            continue;
        }
        let largest = shares
            .windows(2)
            .filter_map(|w| Some((w[1].get(key)? - w[0].get(key)?).abs()))
            .fold(0.0, f64::max);
        moves.push((key.clone(), (largest * 100.0).round()));
    }
    let top = moves.iter().map(|m| m.1).fold(0.0, f64::max);
    assert!(top >= 5.0, "a method of the library moved: {moves:?}");
    let expected: Vec<String> = moves
        .iter()
        .filter(|m| m.1 == top)
        .map(|m| m.0.split(" (").next().unwrap().to_string())
        .collect();
    ctx.open(&ctx.site.join(format!("matrix/b/{bench}/index.html")));
    let seen = ctx.js(
        "(function () { var box = document.querySelector('.pa-mscroll'), b = box.getBoundingClientRect();
           var rows = Array.from(document.querySelectorAll('#pa-matrix .pa-row'));
           var name = function (r) { return r.querySelector('.pa-name').firstElementChild.textContent; };
           var shown = rows.filter(function (r) { return getComputedStyle(r).display !== 'none'; });
           var method = shown.filter(function (r) { return r.getAttribute('data-l') === '4'; })[0];
           var m = method.getBoundingClientRect();
           return { packages: shown.filter(function (r) { return r.getAttribute('data-l') === '2'; }).map(name),
                    all: rows.filter(function (r) { return r.getAttribute('data-l') === '2'; }).map(name),
                    method: name(method), inBox: m.bottom <= b.top + box.clientHeight,
                    harness: Array.from(document.querySelectorAll('#pa-matrix .pa-origin')).map(function (o) { return name(o.closest('.pa-row')); }) }; })()",
    );
    let list = |k: &str| -> Vec<String> {
        seen[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap().to_string())
            .collect()
    };
    let packages = list("packages");
    assert_eq!(
        packages.first().map(String::as_str),
        Some("markdown"),
        "{seen}"
    );
    // The bench script's package and the standard library's (`html`,
    // `re`: py-spy writes their paths relative too) are the harness's,
    // after the library's, folded at first.
    let all = list("all");
    let pos = |n: &str| all.iter().position(|p| p == n);
    for harness in ["(no package)", "html"] {
        assert!(
            pos(harness) > pos("markdown"),
            "{harness} after markdown: {seen}"
        );
        assert!(
            list("harness").iter().any(|h| h == harness),
            "{harness} marked: {seen}"
        );
    }
    assert!(
        expected.contains(&list_one(&seen, "method")),
        "the first method is the one that moved most ({expected:?}, {top} points): {seen}"
    );
    assert_eq!(
        seen["inBox"],
        Value::Bool(true),
        "on the first screen: {seen}"
    );
    ctx.screenshot("20d-matrix-opens-on-the-program");
}

fn list_one(v: &Value, k: &str) -> String {
    v[k].as_str().unwrap_or_default().to_string()
}

/// Folding a package hides exactly its descendants; unfolding shows them.
pub fn step_fold_unfold(ctx: &Ctx) {
    ctx.open(&ctx.site.join(MATRIX));
    glyphs_fill_the_width(ctx);
    headers_stay_in_view(ctx);
    // The harness's packages start folded: open them, so every row above
    // the threshold shows.
    ctx.js("(function () { document.querySelectorAll('#pa-matrix .pa-fold[aria-expanded=\"false\"]').forEach(function (b) { b.click(); }); return true; })()");
    let before = shown_rows(ctx);
    // The first package row that has children.
    let info = ctx.js(
        "(function () { var rows = Array.prototype.slice.call(document.querySelectorAll('#pa-matrix .pa-row'));
           for (var i = 0; i < rows.length; i++) {
             if (rows[i].getAttribute('data-l') !== '2' || !rows[i].querySelector('.pa-fold')) continue;
             var n = 0;
             for (var j = i + 1; j < rows.length && +rows[j].getAttribute('data-l') > 2; j++)
               if (getComputedStyle(rows[j]).display !== 'none') n++;
             return [rows[i].getAttribute('data-r'), n];
           } return null; })()",
    );
    let r = info[0].as_str().expect("a package row").to_string();
    let descendants = info[1].as_u64().unwrap();
    assert!(descendants > 0, "package row {r} shows no descendants");
    let button = format!("#pa-matrix .pa-row[data-r=\"{r}\"] .pa-fold");
    ctx.tab.wait_for_element(&button).unwrap().click().unwrap();
    assert_eq!(
        ctx.js_str(&format!(
            "document.querySelector('{}').getAttribute('aria-expanded')",
            button.replace('"', "\\\"")
        )),
        "false"
    );
    assert_eq!(
        shown_rows(ctx),
        before - descendants,
        "folding hides the descendants"
    );
    ctx.screenshot("20-matrix-folded");
    ctx.tab.wait_for_element(&button).unwrap().click().unwrap();
    assert_eq!(shown_rows(ctx), before, "unfolding shows them again");

    // The hidden components are counted and can be shown.
    let hidden = ctx
        .js("document.querySelectorAll('#pa-matrix .pa-minor').length")
        .as_u64()
        .unwrap();
    let label = ctx.js_str("document.querySelector('label[for=pa-show-minor]').textContent");
    assert!(
        label.contains(&format!("Show the {hidden} component")),
        "{label}"
    );
    ctx.tab
        .wait_for_element("#pa-show-minor")
        .unwrap()
        .click()
        .unwrap();
    assert_eq!(
        shown_rows(ctx),
        before + hidden,
        "the checkbox shows the hidden components"
    );
    // Their rows are drawn by the script from the page's data, in their
    // place in the tree (under a visible parent) and with their glyphs.
    let drawn = ctx.js(
        "(function () { var rows = document.querySelectorAll('#pa-matrix .pa-minor'), ok = 0;
           rows.forEach(function (r) {
             var box = r.querySelector('svg.pa-gl path');
             var prev = r.previousElementSibling;
             if (box && box.getBoundingClientRect().height > 0 && prev && +prev.getAttribute('data-l') >= +r.getAttribute('data-l') - 1) ok++;
           });
           return [rows.length, ok]; })()",
    );
    assert_eq!(
        drawn,
        serde_json::json!([hidden, hidden]),
        "minor rows drawn in place"
    );
    ctx.screenshot("20b-matrix-minor-rows");
    // "Save as SVG" saves the rows shown, names and glyphs, as an SVG
    // that opens on its own.
    let saved = ctx.js_str("window.perfatlasMatrixSvg()");
    assert!(
        saved.starts_with("<?xml") && saved.contains("class=\"pa-matrix-svg\""),
        "{}",
        &saved[..200.min(saved.len())]
    );
    let file = ctx.artifacts.join("matrix-saved.svg");
    std::fs::write(&file, &saved).unwrap();
    ctx.tab.navigate_to(&super::file_url(&file)).unwrap();
    ctx.tab.wait_until_navigated().unwrap();
    let opened = ctx.js(
        "(function () { var r = document.documentElement, b = r.getBoundingClientRect();
           return [r.tagName, document.querySelectorAll('svg > text').length, document.querySelectorAll('g path, g rect').length > 0, b.height > 1000]; })()",
    );
    assert_eq!(
        opened,
        serde_json::json!(["svg", before + hidden, true, true]),
        "the saved matrix opens on its own with every row shown"
    );
    ctx.screenshot("20c-matrix-saved-svg");
    ctx.open(&ctx.site.join(MATRIX));
    ctx.tab
        .wait_for_element("#pa-show-minor")
        .unwrap()
        .click()
        .unwrap();
}

/// Hovering a modified method's glyph shows its numbers and its source
/// diff; the numbers are the embedded data's.
pub fn step_popup_with_diff(ctx: &Ctx) {
    ctx.open(&ctx.site.join(MATRIX));
    let data = matrix_data(ctx);
    let diffs = data["diffs"].as_object().expect("diffs");
    // Unfold everything, then take a shown row's modified method with
    // added lines (rows below the share threshold stay hidden).
    ctx.js("(function () { document.querySelectorAll('#pa-matrix .pa-fold').forEach(function (b) { if (b.getAttribute('aria-expanded') !== 'true') b.click(); }); return true; })()");
    let shown = |r: &str| {
        ctx.js(&format!(
            "getComputedStyle(document.querySelector('#pa-matrix .pa-row[data-r=\"{r}\"]')).display !== 'none'"
        )) == Value::Bool(true)
    };
    let (key, diff) = diffs
        .iter()
        .find(|(k, d)| {
            d["lines"]
                .as_array()
                .is_some_and(|l| l.iter().any(|x| x[0] == "+"))
                && shown(k.split(':').next().unwrap())
        })
        .expect("a shown modified method with added lines (is the site built with --repo?)");
    let (r, v) = key.split_once(':').unwrap();
    let (r, v): (u64, u64) = (r.parse().unwrap(), v.parse().unwrap());
    let row_index = ctx
        .js(&format!("Array.prototype.indexOf.call(document.querySelectorAll('#pa-matrix .pa-row'), document.querySelector('#pa-matrix .pa-row[data-r=\"{r}\"]'))"))
        .as_u64()
        .unwrap() as usize;
    let row = &data["rows"][row_index];
    let p = glyph_point(ctx, r, v);
    ctx.tab.move_mouse_to_point(p).unwrap();
    // Scrolling the glyph into view can leave the popup of the row the
    // pointer was over first: the move is sent to the glyph itself too,
    // and the popup waited for is the glyph's.
    ctx.js(&format!(
        "(function () {{ var s = document.querySelector('#pa-matrix .pa-row[data-r=\"{r}\"] svg.pa-gl');
           s.dispatchEvent(new MouseEvent('mousemove', {{ bubbles: true, clientX: {x}, clientY: {y} }})); return true; }})()",
        x = p.x,
        y = p.y
    ));
    let path = row["p"].as_str().unwrap();
    ctx.wait_js(
        &format!(
            "(function () {{ var t = document.getElementById('pa-mtip'); return !t.hidden && t.innerText.indexOf({}) >= 0; }})()",
            serde_json::to_string(path).unwrap()
        ),
        "the glyph popup naming the component",
    );
    let text = ctx.js_str("document.getElementById('pa-mtip').innerText");
    let cell = &row["c"][v as usize];
    let modified = if cell.is_number() {
        0
    } else {
        cell[4].as_u64().unwrap()
    };
    let version = data["versions"][v as usize]["label"].as_str().unwrap();
    assert!(
        text.contains(row["p"].as_str().unwrap()),
        "popup names the component {}: {text}",
        row["p"]
    );
    assert!(text.contains(&format!("version {version}")), "{text}");
    assert!(
        text.contains(&format!("modified methods: {modified}")),
        "{text}"
    );
    let added = diff["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l[0] == "+")
        .unwrap()[3]
        .as_str()
        .unwrap()
        .trim()
        .to_string();
    assert!(
        text.contains(&added),
        "popup shows the added line {added:?}: {text}"
    );
    // Added lines are coloured as additions.
    let colour =
        ctx.js_str("getComputedStyle(document.querySelector('#pa-mtip .pa-dl.add')).color");
    let del = ctx.js_str("getComputedStyle(document.querySelector('#pa-mtip pre')).color");
    assert_ne!(colour, del, "added lines stand out");
    ctx.screenshot("21-matrix-diff-popup");
}

/// A version header opens that version's timelines; clicking a glyph opens
/// the component page at that version.
pub fn step_header_and_glyph_click(ctx: &Ctx) {
    ctx.open(&ctx.site.join(MATRIX));
    let version = ctx.last_version();
    let last = configured_count(ctx) - 1;
    let label = ctx.js_str(&format!(
        "document.querySelector('.pa-gh a text[data-v=\"{last}\"]').lastChild.textContent"
    ));
    assert_eq!(
        label, version,
        "the last header link names the last version"
    );
    let tip = ctx.js_str(&format!(
        "document.querySelector('.pa-gh a text[data-v=\"{last}\"] title').textContent"
    ));
    assert!(
        tip.contains("from git"),
        "the header says where change data comes from: {tip}"
    );
    ctx.js(&format!("(function () {{ document.querySelector('.pa-gh a text[data-v=\"{last}\"]').dispatchEvent(new MouseEvent('click', {{bubbles: true}})); return true; }})()"));
    ctx.tab.wait_until_navigated().unwrap();
    ctx.tab.wait_for_element("#pa-tl-note").unwrap();
    let url = ctx.tab.get_url();
    assert!(url.ends_with(&format!("timeline/{version}.html")), "{url}");
    let bars = ctx
        .js("document.querySelectorAll('.pa-tl .tl-now').length")
        .as_u64()
        .unwrap();
    assert!(bars > 0, "speedscope input has a time order: bars drawn");
    let shares = ctx.js_str("document.querySelector('.pa-tl title').textContent");
    assert!(
        (shares.starts_with("share of each time frame: 1")
            || shares.starts_with("share of each time frame, this version (previous version): 1"))
            && (shares.contains(" · 20: ") || shares.contains("–20: ")),
        "a timeline's title gives every frame's share (frames that read alike as a range): {shares}"
    );
    ctx.screenshot("22-timelines");

    // Glyph click on a method's row → its section of its class's page,
    // scrolled to that version.
    ctx.open(&ctx.site.join(MATRIX));
    let data = matrix_data(ctx);
    let v = data["versions"].as_array().unwrap().len() as u64 - 1;
    let r = ctx.js_str(
        "document.querySelector('#pa-matrix .pa-row[data-l=\"4\"]').getAttribute('data-r')",
    );
    let p = glyph_point(ctx, r.parse().unwrap(), v);
    ctx.tab.move_mouse_to_point(p).unwrap();
    ctx.tab.click_point(p).unwrap();
    ctx.tab.wait_until_navigated().unwrap();
    ctx.tab.wait_for_element("section.pa-method").unwrap();
    let url = ctx.tab.get_url();
    let slug = data["versions"][v as usize]["slug"].as_str().unwrap();
    assert!(
        url.contains("/c/class-") && url.contains("#m-") && url.ends_with(&format!("#v-{slug}")),
        "{url}"
    );
    // The version's section: the one the fragment names, in the method's
    // section, with the page's ids unique.
    let section = "document.getElementById(decodeURIComponent(location.hash.slice(1)))";
    let found = ctx.js(&format!(
        "(function () {{ var s = {section}; var m = s && s.closest('section.pa-method');
           var ids = Array.from(document.querySelectorAll('[id]')).map(function (e) {{ return e.id; }});
           return [!!s && s.classList.contains('pa-version'), !!m && s.id === m.id + '#v-{slug}',
                   new Set(ids).size === ids.length, s === document.querySelector(':target')]; }})()"
    ));
    assert_eq!(
        found,
        serde_json::json!([true, true, true, true]),
        "the method's version section, the page's target, ids unique"
    );
    let in_view = ctx.js(&format!(
        "(function () {{ var b = {section}.getBoundingClientRect(); return b.top >= -2 && b.top < innerHeight / 2; }})()"
    ));
    assert_eq!(
        in_view,
        Value::Bool(true),
        "the version's section is scrolled into view"
    );
    // The call graph is drawn, with every edge state named in words, and
    // its "Save as SVG" selects it (not a graph of another section).
    let edges = ctx
        .js(&format!("{section}.querySelectorAll('.pa-cg path').length"))
        .as_u64()
        .unwrap();
    assert!(edges > 0, "call graph edges drawn");
    let saves_its_own = ctx.js(&format!(
        "(function () {{ var s = {section}; var b = s.querySelector('button.pa-save-svg');
           return !!b && document.querySelector(b.getAttribute('data-target')) === s.querySelector('.pa-cg-wrap svg'); }})()"
    ));
    assert_eq!(
        saves_its_own,
        Value::Bool(true),
        "Save as SVG of the section"
    );
    // Edge labels are drawn over every edge, on a halo of the page's
    // background, so no edge strikes one through.
    let labels = ctx.js(
        "(function () { var out = [];
           document.querySelectorAll('.pa-cg').forEach(function (svg) {
             var paths = svg.querySelectorAll('path'), last = paths[paths.length - 1];
             svg.querySelectorAll('text.pa-cg-label').forEach(function (t) {
               out.push([!last || !!(last.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING),
                         getComputedStyle(t).paintOrder, getComputedStyle(t).stroke]); }); });
           return out; })()",
    );
    let labels = labels.as_array().unwrap();
    assert!(
        labels.len() >= edges as usize,
        "a label per edge: {labels:?}"
    );
    for l in labels {
        assert_eq!(l[0], Value::Bool(true), "label after every edge: {l}");
        assert!(l[1].as_str().unwrap().starts_with("stroke"), "{l}");
        assert_ne!(l[2], "none", "{l}");
    }
    ctx.screenshot("23-component-page");
}

/// A class's component page: its script draws each call graph (from the
/// section's table of callers and callees) and timeline, which "Save as
/// SVG" saves; a copy without that script says so, and a copy without any
/// script shows the tables open, each edge's state in words.
pub fn step_component_page_script(ctx: &Ctx) {
    let dir = ctx.site.join("matrix/all/c");
    let page = dir.join(
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("class-blockparser_py-") && n.ends_with(".html"))
            .min()
            .expect("the blockparser.py class page"),
    );
    ctx.open(&page);
    let count = |sel: &str| {
        ctx.js(&format!("document.querySelectorAll('{sel}').length"))
            .as_u64()
            .unwrap()
    };
    let graphs = count(".pa-cg-wrap");
    assert!(graphs > 0, "sections with a call graph");
    assert_eq!(
        count(".pa-cg-wrap > svg.pa-cg"),
        graphs,
        "every call graph drawn"
    );
    assert!(count("svg.pa-cg rect") > graphs, "boxes drawn");
    assert!(count("svg.pa-cg path") > 0, "edges drawn");
    let timelines = count(".pa-tl-wrap");
    assert!(timelines > 0, "sections with a timeline");
    assert_eq!(
        count(".pa-tl-wrap > svg.pa-tl"),
        timelines,
        "every timeline drawn"
    );
    assert!(count("svg.pa-tl path.tl-now") > 0, "timeline bars drawn");
    // Each method's version header is the page's, leading to the method's
    // own sections.
    let headers = ctx.js(
        "(function () { var n = 0, ok = 0;
           document.querySelectorAll('section.pa-method').forEach(function (m) {
             var links = m.querySelectorAll('.pa-mhead a.pa-vh');
             n++;
             if (links.length && !m.querySelector('.pa-mhead[hidden]') && Array.prototype.every.call(links, function (a) {
               var id = decodeURIComponent(a.getAttribute('href').slice(1));
               return id.indexOf(m.id + '#v-') === 0 && document.getElementById(id) !== null; })) ok++;
           });
           return [n > 0, n === ok]; })()",
    );
    assert_eq!(headers, serde_json::json!([true, true]), "method headers");
    assert_eq!(count("#pa-comp-js"), 0, "no note that the script failed");
    assert_eq!(
        count("details.pa-calls[open]"),
        0,
        "tables folded under the graphs"
    );
    // The box of a neighbour links to its page; its name is text.
    let linked = ctx.js_str("document.querySelector('svg.pa-cg a').getAttribute('href')");
    assert!(
        linked.ends_with(".html") || linked.starts_with('#'),
        "{linked}"
    );
    // "Save as SVG" of the first section saves its drawn graph.
    let saved = ctx.js_str(
        "(function () { var b = document.querySelector('button.pa-save-svg');
           return window.perfatlasSvgText(document.querySelector(b.getAttribute('data-target'))); })()",
    );
    assert!(
        saved.starts_with("<?xml") && saved.contains("class=\"pa-cg\"") && saved.contains("<path"),
        "{saved}"
    );
    ctx.screenshot("23b-component-page-drawn");

    let html = std::fs::read_to_string(&page).unwrap();
    let tag = "<script src=\"../../../assets/component.js\"></script>";
    assert!(html.contains(tag), "the page loads component.js");
    // Without assets/component.js: the page says so, the tables stay.
    let without = page.with_file_name("no-component-script.html");
    std::fs::write(&without, html.replace(tag, "")).unwrap();
    ctx.open(&without);
    let note = ctx.js_str("document.getElementById('pa-comp-js').innerText");
    assert!(
        note.contains("assets/component.js, which could not be loaded"),
        "{note}"
    );
    assert_eq!(count("svg.pa-cg"), 0);
    assert_tables_shown(ctx, graphs);
    // Without any script: the tables, and the sentence for such readers.
    let mut bare = html.clone();
    while let Some(at) = bare.find("<script src=") {
        let end = at + bare[at..].find("</script>").unwrap() + "</script>".len();
        bare.replace_range(at..end, "");
    }
    let without = page.with_file_name("no-scripts.html");
    std::fs::write(&without, bare).unwrap();
    ctx.open(&without);
    let note = ctx.js_str("document.getElementById('pa-comp-js').innerText");
    assert!(
        note.starts_with(
            "Without JavaScript, each component's table of callers and callees by version"
        ),
        "{note}"
    );
    assert_tables_shown(ctx, graphs);
    ctx.screenshot("23c-component-page-without-js");
    // (The copies stay: the network step checks every file asked for.)
}

/// Every block with a call graph shows its table of callers and callees
/// by version (or its graphs say there are none), each cell's state a
/// class the page's key explains (textContent and layout: a method's
/// section is not laid out until it nears the view).
fn assert_tables_shown(ctx: &Ctx, graphs: u64) {
    let shown = ctx.js(
        "(function () { var blocks = 0, shown = 0, cells = true, drawn = 0;
           document.querySelectorAll('.pa-comp-row').forEach(function (row) {
             var sections = [], e = row.nextElementSibling, d = null;
             if (e && e.matches('details.pa-calls')) { d = e; e = e.nextElementSibling; }
             for (; e && e.classList.contains('pa-version'); e = e.nextElementSibling) sections.push(e);
             var withGraph = sections.filter(function (s) { return s.querySelector('.pa-cg-wrap'); });
             drawn += withGraph.length;
             if (!withGraph.length) return;
             blocks++;
             if (d && d.open && d.querySelector('table.pa-ct').getBoundingClientRect().height > 0) shown++;
             else if (!d && withGraph.every(function (s) { return /No calls recorded/.test(s.textContent); })) shown++;
             if (d) d.querySelectorAll('tbody td:not(:first-child)').forEach(function (td) {
               cells = cells && /^(|e-added|e-deleted)$/.test(td.className) && (td.className === '' || td.textContent !== ''); });
           });
           return [drawn, shown === blocks, cells]; })()",
    );
    assert_eq!(
        shown,
        serde_json::json!([graphs, true, true]),
        "tables shown"
    );
}

/// The colour-blind theme recolours the Δ scale to blue–orange, and the
/// dark theme keeps the glyphs readable.
pub fn step_matrix_themes(ctx: &Ctx) {
    ctx.open(&ctx.site.join(MATRIX));
    let fill = |class: &str| {
        ctx.js_str(&format!(
            "getComputedStyle(document.querySelector('.pa-legend rect.{class}')).fill"
        ))
    };
    assert_eq!(fill("dp5"), "rgb(215, 48, 31)", "light: slower is red");
    assert_eq!(fill("dm5"), "rgb(26, 152, 80)", "light: faster is green");
    ctx.js("(function () { var s = document.getElementById('pa-theme-select'); s.value = 'colorblind'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(
        "getComputedStyle(document.querySelector('.pa-legend rect.dp5')).fill === 'rgb(230, 97, 1)'",
        "colorblind: slower is orange",
    );
    assert_eq!(
        fill("dm5"),
        "rgb(33, 102, 172)",
        "colorblind: faster is blue"
    );
    ctx.screenshot("24-matrix-colorblind");
    ctx.js("(function () { var s = document.getElementById('pa-theme-select'); s.value = 'dark'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(
        "getComputedStyle(document.querySelector('.pa-legend rect.dp5')).fill === 'rgb(240, 96, 60)'",
        "dark theme Δ scale",
    );
    ctx.screenshot("25-matrix-dark");
    ctx.js("(function () { var s = document.getElementById('pa-theme-select'); s.value = 'light'; s.dispatchEvent(new Event('change')); return true; })()");
}
