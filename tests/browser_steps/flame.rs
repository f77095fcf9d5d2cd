//! Browser steps for the flame-graph suite: state in the URL fragment,
//! zoom and Back, bottom-up sums, differential tags and their switch, tree
//! table sorting and folding, and code links to highlighted source lines.

use serde_json::Value;

use super::{frames, Ctx};

pub const DIFF: &str = "flamediff/convert-extensions/3.5.2--3.6.html";

/// The frame (index) with the largest total at depth 3 or more that has
/// children: a good zoom target.
fn zoom_target(data: &Value) -> usize {
    let fr = frames(data);
    let depth = |mut i: usize| {
        let mut d = 0;
        while fr[i].parent >= 0 {
            i = fr[i].parent as usize;
            d += 1;
        }
        d
    };
    let has_children = |i: usize| fr.iter().any(|f| f.parent == i as i64);
    (1..fr.len())
        .filter(|&i| depth(i) >= 3 && has_children(i) && fr[i].total < fr[0].total)
        .max_by(|&a, &b| fr[a].total.total_cmp(&fr[b].total).then(b.cmp(&a)))
        .expect("a zoom target")
}

/// The search result text computed from the page data: frames whose name
/// contains `q` (case-insensitively), each sample counted once.
fn expected_search(data: &Value, q: &str) -> String {
    let fr = frames(data);
    let q = q.to_lowercase();
    let hit: Vec<bool> = fr
        .iter()
        .enumerate()
        .map(|(i, f)| i > 0 && f.name.to_lowercase().contains(&q))
        .collect();
    let covered = |mut i: usize| {
        while fr[i].parent >= 0 {
            i = fr[i].parent as usize;
            if hit[i] {
                return true;
            }
        }
        false
    };
    let count = hit.iter().filter(|h| **h).count();
    let sum: f64 = (0..fr.len())
        .filter(|&i| hit[i] && !covered(i))
        .map(|i| fr[i].total)
        .sum();
    let total = data["total"].as_f64().unwrap();
    format!(
        "{count} matching frames: {} samples, {} of the total",
        super::grouped(sum.round() as u64),
        super::percent(sum, total)
    )
}

fn width_of(ctx: &Ctx, i: usize) -> String {
    ctx.js_str(&format!(
        "document.querySelector('#pa-flame-0 g.f[data-i=\"{i}\"] rect').getAttribute('width')"
    ))
}

/// A link with `#search=…&zoom=…` opens the page searched and zoomed.
pub fn step_fragment_restores_state(ctx: &Ctx) {
    let page = ctx.profile_page(&ctx.last_version(), 1);
    ctx.open(&page);
    let data = ctx.page_data();
    let target = zoom_target(&data);
    let url = format!("{}#search=Inline&zoom=0.{target}", super::file_url(&page));
    ctx.tab.navigate_to("about:blank").unwrap();
    ctx.tab.wait_until_navigated().unwrap();
    ctx.tab.navigate_to(&url).unwrap();
    ctx.tab.wait_until_navigated().unwrap();
    ctx.tab.wait_for_element("footer.pa-foot").unwrap();
    ctx.wait_js(
        &format!("document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"] rect').getAttribute('width') === '1200.00'"),
        "the frame named in the fragment fills the width",
    );
    assert_eq!(
        ctx.js_str("document.getElementById('pa-search').value"),
        "Inline"
    );
    assert_eq!(
        ctx.js_str("document.getElementById('pa-search-result').textContent"),
        expected_search(&data, "Inline"),
        "search result restored from the fragment"
    );
    let hidden = ctx
        .js("document.querySelectorAll('#pa-flame-0 g.f.pa-hidden').length")
        .as_u64()
        .unwrap();
    assert!(hidden > 0, "frames outside the zoomed subtree are hidden");
    ctx.screenshot("30-fragment-zoom-search");
}

/// Clicking a frame zooms and adds a history entry; Back unzooms.
pub fn step_zoom_and_back(ctx: &Ctx) {
    let page = ctx.profile_page(&ctx.last_version(), 1);
    ctx.open(&page);
    let data = ctx.page_data();
    let target = zoom_target(&data);
    let before = width_of(ctx, target);
    let point = ctx.frame_center(target);
    ctx.tab.click_point(point).unwrap();
    ctx.wait_js(
        &format!("document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"] rect').getAttribute('width') === '1200.00'"),
        "click zooms",
    );
    assert_eq!(ctx.js_str("location.hash"), format!("#zoom=0.{target}"));
    ctx.js("(history.back(), true)");
    ctx.wait_js(
        &format!("document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"] rect').getAttribute('width') === '{before}' && document.querySelectorAll('#pa-flame-0 g.f.pa-hidden').length === 0"),
        "Back restores the unzoomed graph",
    );
}

/// "Save as SVG" saves the graph as it is shown (here zoomed): a file that
/// opens on its own, with the page's frames and colours, and the zoom.
pub fn step_save_as_svg(ctx: &Ctx) {
    let page = ctx.profile_page(&ctx.last_version(), 1);
    ctx.open(&page);
    let data = ctx.page_data();
    let target = zoom_target(&data);
    ctx.js(&format!(
        "(location.hash = '#zoom=0.{target}', dispatchEvent(new HashChangeEvent('hashchange')), true)"
    ));
    ctx.wait_js(
        &format!("document.querySelector('#pa-flame-0 g.f[data-i=\"{target}\"] rect').getAttribute('width') === '1200.00'"),
        "zoomed",
    );
    assert_eq!(
        ctx.js("document.querySelector('#pa-flame-0-section button.pa-save-svg').getAttribute('data-target')"),
        serde_json::json!("#pa-flame-0")
    );
    let shown = ctx.js("document.querySelectorAll('#pa-flame-0 g.f:not(.pa-hidden)').length");
    let fill = ctx.js_str("getComputedStyle(document.querySelector('#pa-flame-0 g.f rect')).fill");
    let saved = ctx.js_str("window.perfatlasSvgText(document.getElementById('pa-flame-0'))");
    let file = ctx.site.join("saved-flame.svg");
    std::fs::write(&file, &saved).unwrap();
    ctx.open_svg(&file);
    assert_eq!(
        ctx.js("document.documentElement.localName"),
        serde_json::json!("svg")
    );
    assert_eq!(
        ctx.js("Array.from(document.querySelectorAll('g.f')).filter(function (g) { return getComputedStyle(g).display !== 'none'; }).length"),
        shown
    );
    assert_eq!(
        ctx.js_str("getComputedStyle(document.querySelector('g.f rect')).fill"),
        fill
    );
    assert_eq!(
        ctx.js_str(&format!(
            "document.querySelector('g.f[data-i=\"{target}\"] rect').getAttribute('width')"
        )),
        "1200.00",
        "the saved graph is zoomed as it was shown"
    );
    ctx.screenshot("36-saved-flame-svg");
}

/// The exclusive bottom-up graph's roots add up to the profile's total;
/// the inclusive one's roots to more.
pub fn step_bottom_up_sums(ctx: &Ctx) {
    let page = ctx.profile_page(&ctx.last_version(), 1);
    ctx.open_view(&page, "shape=bottom-up");
    ctx.wait_js(
        "!!document.getElementById('pa-flame-1')",
        "the inclusive graph drawn",
    );
    let sums = ctx.js(
        "[0, 1].map(function (k) { var d = window.perfatlasGraphData(k);
           var roots = d.frames.filter(function (f) { return f[0] === 0; });
           return [roots.reduce(function (s, f) { return s + f[4]; }, 0), d.total]; })",
    );
    let (exclusive, total) = (sums[0][0].as_f64().unwrap(), sums[0][1].as_f64().unwrap());
    assert!(
        (exclusive - total).abs() < 1e-6,
        "exclusive roots {exclusive} = total {total}"
    );
    assert!(
        sums[1][0].as_f64().unwrap() > total,
        "inclusive roots exceed the total"
    );
    // Opened with the view in its fragment, the script writes the view's
    // tree table once, each row with one fold button at most.
    assert_eq!(
        ctx.js_str("document.querySelector('#pa-tables h2').textContent"),
        "Tree table, bottom-up"
    );
    assert_eq!(
        ctx.js("document.querySelectorAll('#pa-table .pa-tt + .pa-tt').length")
            .as_u64(),
        Some(0),
        "one fold button per row"
    );
    assert!(
        ctx.js("document.querySelectorAll('#pa-table .pa-tt').length")
            .as_u64()
            .unwrap()
            > 5
    );
    // The bottom-up table reads by where time is spent: the root's
    // children by their own (exclusive) cost, heaviest first, merged rows
    // last; the root shows the profile's total, and the inclusive headings
    // say their shares overlap.
    let table = ctx.js(
        "(function () { var t = document.getElementById('pa-table');
           var root = t.querySelector('tbody tr[data-p=\"-1\"]');
           var kids = Array.from(t.querySelectorAll('tbody tr[data-p=\"' + root.getAttribute('data-i') + '\"]'));
           return { sorted: t.querySelector('th[aria-sort=descending]').getAttribute('data-col'),
                    heads: Array.from(t.querySelectorAll('th')).map(function (h) { return h.textContent; }),
                    root: root.cells[1].textContent,
                    kids: kids.map(function (r) { return [+r.cells[2].getAttribute('data-v'), r.classList.contains('pa-merged')]; }) }; })()",
    );
    assert_eq!(table["sorted"], "1", "{table}");
    assert!(
        table["root"].as_str().unwrap().ends_with("(100.00%)"),
        "{table}"
    );
    assert!(
        table["heads"][1]
            .as_str()
            .unwrap()
            .contains("(shares overlap)"),
        "{table}"
    );
    let kids: Vec<(f64, bool)> = table["kids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k[0].as_f64().unwrap(), k[1].as_bool().unwrap()))
        .collect();
    assert!(kids.len() > 3, "{table}");
    let drawn: Vec<f64> = kids.iter().filter(|k| !k.1).map(|k| k.0).collect();
    assert!(
        drawn.windows(2).all(|w| w[0] >= w[1]),
        "heaviest first: {kids:?}"
    );
    assert!(
        kids.iter().skip_while(|k| !k.1).all(|k| k.1),
        "merged rows last: {kids:?}"
    );
    ctx.screenshot("31-bottom-up");

    // A copy of the page cut short inside its view data: the page says
    // so, and still shows the graph written as HTML.
    let html = std::fs::read_to_string(&page).unwrap();
    let start = html.find("id=\"pa-views\">").unwrap();
    let end = start + html[start..].find("</script>").unwrap();
    let broken = page.with_file_name("r1-cut.html");
    std::fs::write(&broken, format!("{}{}", &html[..start + 400], &html[end..])).unwrap();
    ctx.open_view(&broken, "shape=bottom-up");
    let note = ctx.js_str("(document.querySelector('.pa-views-missing') || {}).textContent || ''");
    assert!(note.contains("could not be read"), "{note}");
    assert_html_graph_kept(ctx);

    // The views are derived by assets/shapes.js: a copy of the page
    // without it says so instead of drawing an empty graph, and keeps the
    // graph written as HTML.
    let script = html
        .find("<script src=\"../../../assets/shapes.js\"></script>")
        .expect("the page loads shapes.js");
    let without = page.with_file_name("r1-no-shapes.html");
    let tag_len = "<script src=\"../../../assets/shapes.js\"></script>".len();
    std::fs::write(
        &without,
        format!("{}{}", &html[..script], &html[script + tag_len..]),
    )
    .unwrap();
    ctx.open_view(&without, "shape=bottom-up");
    let note = ctx.js_str("(document.querySelector('.pa-shapes-missing') || {}).textContent || ''");
    assert!(
        note.contains("views are drawn by assets/shapes.js, which could not be loaded"),
        "{note}"
    );
    assert_html_graph_kept(ctx);
    // (Left in the site: the network step checks every file the browser
    // asked for still exists.)
}

/// The flame graph written as HTML is on the page (when the page's data
/// or script is missing, it is what the reader still has).
fn assert_html_graph_kept(ctx: &Ctx) {
    assert!(
        ctx.js("document.querySelectorAll('#pa-flame-0 g.f').length")
            .as_u64()
            .unwrap()
            > 10,
        "the HTML graph is still there"
    );
}

/// What a reader sees of the view shown: every frame's class, rectangle
/// and label, the tree table's rows (text and sort keys), the heading and
/// the total.
const VIEW_SNAPSHOT: &str = "(function () {
    var frames = Array.from(document.querySelectorAll('#pa-flame-0 g.f')).map(function (g) {
        var r = g.querySelector('rect'), t = g.querySelector('text');
        return [g.getAttribute('class'), g.getAttribute('data-i'), r.getAttribute('x'), r.getAttribute('y'),
                r.getAttribute('width'), t ? t.textContent : null, t ? t.getAttribute('x') : null];
    });
    var rows = Array.from(document.querySelectorAll('#pa-table tr')).map(function (r) {
        return [r.getAttribute('data-i'), r.getAttribute('data-p'), r.className, r.innerText,
                Array.from(r.querySelectorAll('[data-v]')).map(function (c) { return c.getAttribute('data-v'); }).join(' ')];
    });
    return { frames: frames, rows: rows, heading: document.getElementById('pa-view-heading').textContent,
             total: document.getElementById('pa-total').textContent,
             height: document.getElementById('pa-flame-0').getAttribute('height') };
})()";

/// The views the page script draws look exactly like the HTML written for
/// the default view: the top-down graph drawn again by the script after
/// another view is the one the page was written with, and (time and
/// samples being proportional in a speedscope profile) the samples view's
/// graph and tree table are the time view's, drawn by the script.
pub fn step_views_match_the_html(ctx: &Ctx) {
    let version = ctx.last_version();
    let page = ctx
        .site
        .join(format!("profiles/convert-extensions/{version}/r1.html"));
    ctx.open(&page);
    let written = ctx.js(VIEW_SNAPSHOT);
    assert!(
        written["frames"].as_array().unwrap().len() > 50,
        "{written}"
    );
    assert!(written["rows"].as_array().unwrap().len() > 50);
    ctx.switch_view(
        "#shape=flat",
        "document.getElementById('pa-view-heading').textContent.indexOf('flat') >= 0",
        "the flat view",
    );
    assert_eq!(
        ctx.js_str("document.querySelector('nav[aria-label=shape] strong').textContent"),
        "flat"
    );
    ctx.switch_view(
        "#",
        "document.getElementById('pa-view-heading').textContent.indexOf('top-down') >= 0",
        "the default view again",
    );
    let drawn = ctx.js(VIEW_SNAPSHOT);
    assert_eq!(
        drawn["frames"], written["frames"],
        "the script draws the top-down graph as the HTML has it"
    );
    assert_eq!(drawn["height"], written["height"]);
    ctx.switch_view(
        "#metric=samples",
        "document.querySelector('nav[aria-label=metric] strong').textContent === 'samples'",
        "the samples view",
    );
    let samples = ctx.js(VIEW_SNAPSHOT);
    assert_eq!(
        samples["rows"], written["rows"],
        "the script writes the tree table as the HTML has it"
    );
    let geometry = |v: &Value| -> Vec<Value> {
        v["frames"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| Value::from(f.as_array().unwrap()[..6].to_vec()))
            .collect()
    };
    assert_eq!(geometry(&samples), geometry(&written));
    assert!(
        samples["total"].as_str().unwrap().ends_with(" samples"),
        "{}",
        samples["total"]
    );
    assert!(ctx
        .js_str("document.title")
        .contains(" · samples · top-down"));
    // A zoomed frame's editor link, which the script makes from its
    // location and the [flame] editor template (the page stores no link
    // when they give the same).
    let target = zoom_target(&ctx.page_data());
    ctx.js(&format!(
        "(location.hash = '#metric=samples&zoom=0.{target}', true)"
    ));
    ctx.wait_js(
        "!!document.querySelector('.pa-details a.pa-editor')",
        "the editor link",
    );
    let editor =
        ctx.js_str("document.querySelector('.pa-details a.pa-editor').getAttribute('href')");
    let location = &super::frames(&ctx.page_data())[target].location;
    assert_eq!(
        Some(editor.clone()),
        perfatlas::render::code_links::editor_link_of_location(
            "vscode://file/{path}:{line}",
            location
        ),
        "{location}"
    );
    assert!(editor.starts_with("vscode://file/"), "{editor}");
    // And every location of the page: the script makes each link as Rust
    // would.
    let made = ctx.js(
        "window.perfatlasGraphData(0).locations.map(function (l) { return [l, window.perfatlasEditorLink(l)]; })",
    );
    let made = made.as_array().unwrap();
    assert!(made.len() > 20, "{}", made.len());
    for pair in made {
        let location = pair[0].as_str().unwrap();
        let expected = perfatlas::render::code_links::editor_link_of_location(
            "vscode://file/{path}:{line}",
            location,
        )
        .unwrap_or_default();
        assert_eq!(pair[1].as_str().unwrap(), expected, "{location}");
    }
    // Links to the other repetitions keep the view.
    let other =
        ctx.js_str("document.querySelector('nav[aria-label=repetition] a').getAttribute('href')");
    assert!(other.ends_with(".html#metric=samples"), "{other}");
    ctx.screenshot("37-samples-view");

    // The aggregate page: each row's histogram has a bar per repetition,
    // as high as its value against the row's largest (at least 0.5 px),
    // and names every value; in the HTML (time) and drawn by the script
    // (samples) alike.
    ctx.open(&page.with_file_name("all.html"));
    let check = "(function () { var bad = [], n = 0;
        document.querySelectorAll('#pa-table svg.pa-hist').forEach(function (s) {
          var values = s.querySelector('title').textContent.split(' · ').map(function (p) {
            return +p.split(': ')[1].replace(/,/g, ''); });
          var max = Math.max.apply(null, values.concat([0])), d = '';
          values.forEach(function (v, k) {
            var h = Math.max(max > 0 ? v / max * 16 : 0, 0.5), c = function (x) { return String(Math.round(x * 100) / 100); };
            d += 'M' + c(k * 7) + ' ' + c(16 - h) + 'h6v' + c(h) + 'h-6z'; });
          n++;
          if (s.querySelector('path').getAttribute('d') !== d) bad.push([s.outerHTML, d]);
        });
        return [n, bad.slice(0, 2)]; })()";
    let written = ctx.js(check);
    assert!(written[0].as_u64().unwrap() > 50, "{written}");
    assert_eq!(written[1], serde_json::json!([]), "{written}");
    let title = ctx.js_str("document.querySelector('#pa-table svg.pa-hist title').textContent");
    assert!(
        title.starts_with("r1: ") && title.contains(" · r3: "),
        "{title}"
    );
    ctx.switch_view(
        "#metric=samples",
        "document.querySelector('nav[aria-label=metric] strong').textContent === 'samples'",
        "the aggregate's samples view",
    );
    let drawn = ctx.js(check);
    assert!(drawn[0].as_u64().unwrap() > 50, "{drawn}");
    assert_eq!(
        drawn[1],
        serde_json::json!([]),
        "histograms drawn by the script: {drawn}"
    );
}

/// Differential page: tags in labels and counts, deleted frames drawn,
/// the inclusive/self switch re-tags and recolours.
pub fn step_diff_tags(ctx: &Ctx) {
    ctx.open(&ctx.site.join(DIFF));
    let counts = ctx.js_str("document.getElementById('pa-tag-counts').textContent");
    for tag in ["[A]", "[D]", "[+]", "[−]"] {
        assert!(counts.contains(tag), "tag counts {counts:?} name {tag}");
    }
    let labels = ctx.js("Array.from(document.querySelectorAll('#pa-flame-0 g.f text')).map(function (t) { return t.textContent; })");
    let labels: Vec<&str> = labels
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // Labels keep the name; the tag leads the tooltip (a cut label read
    // "[+] .." and hid the name).
    assert!(labels.len() > 20, "{labels:?}");
    assert!(
        !labels
            .iter()
            .any(|l| ["[A] ", "[D] ", "[+] ", "[−] ", "[=] "]
                .iter()
                .any(|t| l.starts_with(t))),
        "no label starts with a tag: {labels:?}"
    );
    // The colour key: one entry per tag, drawn in the theme's colours.
    let key = ctx.js(
        "Array.from(document.querySelectorAll('.pa-diff-key li')).map(function (li) {
           var r = li.querySelector('rect'); return [li.textContent.trim(), getComputedStyle(r).fill]; })",
    );
    let key = key.as_array().unwrap();
    assert_eq!(key.len(), 5, "{key:?}");
    for (entry, tag) in key.iter().zip(["[A]", "[+]", "[=]", "[−]", "[D]"]) {
        assert!(entry[0].as_str().unwrap().starts_with(tag), "{key:?}");
        assert!(entry[1].as_str().unwrap().starts_with("rgb("), "{key:?}");
    }
    assert_ne!(key[1][1], key[3][1], "grew and shrank differ in colour");
    // A frame whose inclusive and self tags differ.
    let i = ctx
        .js("(function () { var d = window.perfatlasGraphData(0);
           for (var i = 0; i < d.diff.length; i++) { var r = d.diff[i];
             var t = document.querySelector('#pa-flame-0 g.f[data-i=\"' + i + '\"] text');
             if (r && r[0] !== r[1] && r[2] !== r[3] && t && t.textContent.length > 6) return i; }
           return -1; })()")
        .as_i64()
        .unwrap();
    assert!(
        i > 0,
        "a frame whose self change differs from its inclusive change"
    );
    let row = ctx.js(&format!("window.perfatlasGraphData(0).diff[{i}]"));
    let frame = format!("#pa-flame-0 g.f[data-i=\"{i}\"]");
    let label_is_the_name = format!(
        "(function () {{ var d = window.perfatlasGraphData(0), t = document.querySelector('{frame} text').textContent.replace(/\\.\\.$/, '');
           return d.names[d.frames[{i}][1]].indexOf(t) === 0; }})()"
    );
    assert_eq!(ctx.js(&label_is_the_name), Value::Bool(true));
    assert!(ctx
        .js_str(&format!(
            "document.querySelector('{frame} title').textContent"
        ))
        .starts_with(row[0].as_str().unwrap()));
    ctx.js("(function () { var s = document.getElementById('pa-diff-mode'); s.value = 'exclusive'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(
        &format!(
            "document.querySelector('{frame}').classList.contains('{}')",
            row[3].as_str().unwrap()
        ),
        "self colouring applied",
    );
    // Hovered, the frame's tooltip now leads with its self tag.
    let p = ctx.frame_center(i as usize);
    ctx.tab.move_mouse_to_point(p).expect("move mouse");
    ctx.wait_js(
        "!document.getElementById('pa-tip').hidden",
        "the tooltip to show",
    );
    let tip = ctx.js_str("document.getElementById('pa-tip').textContent");
    assert!(tip.starts_with(row[1].as_str().unwrap()), "{tip:?} {row}");
    assert_eq!(ctx.js(&label_is_the_name), Value::Bool(true));
    assert!(ctx.js_str("location.hash").contains("mode=exclusive"));
    ctx.screenshot("32-diff-self");
    // The script writes the tags and changes from the values (the data
    // carries numbers only), as the page's SVG has them in its titles
    // (which, in a page, stop at the inclusive change: the self change is
    // written by the same function from the self values).
    let mismatched = ctx.js(
        "(function () { var d = window.perfatlasGraphData(0), bad = [], seen = 0;
           document.querySelectorAll('#pa-flame-0 g.f').forEach(function (g) {
             var t = g.querySelector('title'), r = d.diff[+g.getAttribute('data-i')];
             if (!t || !r) return;
             seen++;
             if (t.textContent.indexOf(r[4]) < 0 ||
                 t.textContent.indexOf(r[0] + ' ') !== 0) bad.push([t.textContent, r]);
           });
           return [seen, bad.slice(0, 3)]; })()",
    );
    assert!(mismatched[0].as_u64().unwrap() > 50, "{mismatched}");
    assert_eq!(mismatched[1], serde_json::json!([]), "{mismatched}");
    // Last (the script draws frames without the titles read above):
    // deleted frames have no width on the newer version's widths (the
    // default) and are drawn on the older's.
    let deleted = "Array.from(document.querySelectorAll('#pa-flame-0 g.f.tD rect')).filter(function (r) { return +r.getAttribute('width') > 0 && getComputedStyle(r).display !== 'none'; }).length";
    assert_eq!(
        ctx.js(deleted).as_u64(),
        Some(0),
        "no deleted frame on the newer widths"
    );
    ctx.js("(function () { var s = document.getElementById('pa-diff-side'); s.value = 'old'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(
        &format!("{deleted} > 0"),
        "deleted frames drawn on the older widths",
    );
    assert!(ctx.js_str("location.hash").contains("side=old"));
    ctx.js("(function () { var s = document.getElementById('pa-diff-side'); s.value = 'new'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(&format!("{deleted} === 0"), "the newer widths again");
}

/// Sorting a tree-table column orders siblings by it; ▾ folds a subtree.
pub fn step_tree_table(ctx: &Ctx) {
    ctx.open(&ctx.profile_page(&ctx.last_version(), 1));
    let order = |ctx: &Ctx| {
        // The children of the first row that has several (a profile's
        // root may have one: the outermost function).
        ctx.js("(function () { var rows = Array.from(document.querySelectorAll('#pa-table tbody tr'));
                  var parent = rows.map(function (r) { return r.getAttribute('data-i'); }).find(function (id) {
                    return rows.filter(function (r) { return r.getAttribute('data-p') === id; }).length > 1; });
                  return rows.filter(function (r) { return r.getAttribute('data-p') === parent; }).map(function (r) { return +r.cells[2].getAttribute('data-v'); }); })()")
    };
    ctx.js("(document.querySelector('#pa-table th[data-col=\"1\"]').click(), true)");
    let desc: Vec<f64> = order(ctx)
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(desc.len() > 1, "a row has several children: {desc:?}");
    assert!(
        desc.windows(2).all(|w| w[0] >= w[1]),
        "descending by self: {desc:?}"
    );
    ctx.js("(document.querySelector('#pa-table th[data-col=\"1\"]').click(), true)");
    let asc: Vec<f64> = order(ctx)
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!(
        asc.windows(2).all(|w| w[0] <= w[1]),
        "ascending by self: {asc:?}"
    );
    // Fold the root: only it stays visible.
    ctx.js("(document.querySelector('#pa-table tbody tr[data-p=\"-1\"] .pa-tt').click(), true)");
    let visible = ctx.js("Array.from(document.querySelectorAll('#pa-table tbody tr')).filter(function (r) { return !r.hidden; }).length");
    assert_eq!(
        visible.as_u64(),
        Some(1),
        "folding the root hides every other row"
    );
    ctx.screenshot("33-tree-table");
}

/// A tree-table location opens its source page at the line, highlighted,
/// with its cost in the margin.
pub fn step_source_line(ctx: &Ctx) {
    ctx.open(&ctx.profile_page(&ctx.last_version(), 1));
    let href = ctx.js_str("document.querySelector('#pa-table a.pa-src').getAttribute('href')");
    let line = href.rsplit_once("#L").expect("a line anchor").1.to_string();
    ctx.js("(document.querySelector('#pa-table a.pa-src').click(), true)");
    ctx.tab.wait_until_navigated().unwrap();
    ctx.tab.wait_for_element("table.pa-source").unwrap();
    assert_eq!(
        ctx.js_str("document.querySelector(':target').id"),
        format!("L{line}")
    );
    let bg = ctx.js_str(&format!(
        "getComputedStyle(document.querySelector('#L{line} td:first-child')).backgroundColor"
    ));
    assert_eq!(bg, "rgb(255, 243, 168)", "the line is highlighted");
    let cost = ctx.js_str(&format!("Array.from(document.querySelectorAll('#L{line} td.pa-cost')).map(function (c) {{ return c.textContent; }}).join('|')"));
    assert!(
        cost.contains('%'),
        "the line has its cost in the margin: {cost:?}"
    );
    ctx.screenshot("34-source-line");
}

/// A profile with a 12,000-frame stack and 10,000-deep recursion: every
/// shape's page loads, draws within the budget and zooms.
pub fn step_deep_stacks(ctx: &Ctx) {
    let dir = ctx.site.parent().unwrap().join("deep");
    std::fs::create_dir_all(dir.join("input/1.0")).unwrap();
    let chain: Vec<String> = (0..12_000).map(|i| format!("f{i}")).collect();
    let recursive = vec!["rec"; 10_000].join(";");
    std::fs::write(
        dir.join("input/1.0/deep.folded"),
        format!("{} 3\n{recursive} 2\nmain 1\n", chain.join(";")),
    )
    .unwrap();
    let site = dir.join("site");
    super::build_site_with(&dir.join("input"), &site, &[]);
    let page = site.join("profiles/deep/1.0/r1.html");
    for shape in ["", "shape=bottom-up", "shape=flat"] {
        ctx.open_view(&page, shape);
        ctx.wait_js("performance.timing.loadEventEnd > 0", "the load event");
        let frames = ctx
            .js("document.querySelectorAll('svg.pa-flame g.f').length")
            .as_u64()
            .unwrap();
        let times = ctx.js("(function () { var t = performance.timing, p = performance.getEntriesByName('first-contentful-paint')[0];
            return [p ? Math.round(p.startTime) : -1, t.domInteractive - t.navigationStart, t.loadEventEnd - t.navigationStart]; })()");
        println!(
            "deep{shape}: {frames} frames; first contentful paint, interactive, load (ms): {times}"
        );
        assert!(
            frames > 0 && frames <= 12_000,
            "{shape}: {frames} frames drawn"
        );
    }
    // Zoom into the deepest drawn frame of the top-down graph.
    ctx.open(&page);
    let last = ctx
        .js("document.querySelectorAll('#pa-flame-0 g.f').length - 1")
        .as_u64()
        .unwrap();
    ctx.js(&format!("(location.hash = '#zoom=0.{last}', true)"));
    ctx.wait_js(
        &format!("document.querySelector('#pa-flame-0 g.f[data-i=\"{last}\"] rect').getAttribute('width') === '1200.00'"),
        "the deepest frame zooms",
    );
    ctx.screenshot("35-deep-stack");
}

/// The numbers (1.0: `f` 10, `g` 90; 2.0: `f` 100, `g` 90): on the
/// newer widths `f` is 100/190 of the graph and a search for it gives
/// 52.63% of 2.0's total; switched to the older widths, 10/100 and 10.00%
/// of 1.0's. The tooltip gives both versions' values and the change.
pub fn step_diff_widths(ctx: &Ctx) {
    let dir = ctx.site.parent().unwrap().join("ten-times");
    for (version, f) in [("1.0", 10), ("2.0", 100)] {
        std::fs::create_dir_all(dir.join("input").join(version)).unwrap();
        std::fs::write(
            dir.join("input").join(version).join("work.folded"),
            format!("main;f {f}\nmain;g 90\n"),
        )
        .unwrap();
    }
    let site = dir.join("site");
    super::build_site_with(&dir.join("input"), &site, &[]);
    ctx.open(&site.join("flamediff/work/1.0--2.0.html"));
    let width_of_f = "(function () { var d = window.perfatlasGraphData(0), w = null;
        document.querySelectorAll('#pa-flame-0 g.f').forEach(function (g) {
          if (d.names[d.frames[+g.getAttribute('data-i')][1]] === 'f') w = g.querySelector('rect').getAttribute('width'); });
        return w; })()";
    assert_eq!(ctx.js_str(width_of_f), "631.58", "100/190 of 1,200 px");
    let search = |q: &str| {
        ctx.js(&format!(
            "(function () {{ var s = document.getElementById('pa-search'); s.value = '{q}';
               s.dispatchEvent(new KeyboardEvent('keydown', {{ key: 'Enter' }})); return true; }})()"
        ));
        ctx.js_str("document.getElementById('pa-search-result').textContent")
    };
    assert_eq!(
        search("f"),
        "1 matching frame: 100 samples, 52.63% of 2.0's total; in 1.0: 1 matching frame: 10 samples, 10.00% of its total"
    );
    // Hovered, f gives both versions' values, the change and the shares.
    let i = ctx
        .js("(function () { var d = window.perfatlasGraphData(0);
               for (var i = 0; i < d.frames.length; i++) if (d.names[d.frames[i][1]] === 'f') return i; return -1; })()")
        .as_i64()
        .unwrap();
    ctx.tab
        .move_mouse_to_point(ctx.frame_center(i as usize))
        .expect("move mouse");
    ctx.wait_js(
        "!document.getElementById('pa-tip').hidden",
        "the tooltip to show",
    );
    let tip = ctx.js_str("document.getElementById('pa-tip').innerText");
    for line in [
        "[+] f",
        "inclusive: 10 samples → 100 samples (+90 samples, +900.0%)",
        "share: 10.00% of 1.0 → 52.63% of 2.0",
    ] {
        assert!(tip.lines().any(|l| l == line), "{line:?} in {tip:?}");
    }
    ctx.screenshot("33-diff-newer-widths");
    // Drawn on the older version's widths.
    ctx.js("(function () { var s = document.getElementById('pa-diff-side'); s.value = 'old'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(
        &format!("{width_of_f} === '120'"),
        "f at 10/100 of 1,200 px",
    );
    assert!(ctx.js_str("location.hash").contains("side=old"));
    assert_eq!(
        search("f"),
        "1 matching frame: 10 samples, 10.00% of 1.0's total; in 2.0: 1 matching frame: 100 samples, 52.63% of its total"
    );
    ctx.screenshot("33-diff-older-widths");
    // The fragment keeps the choice.
    ctx.open_view(&site.join("flamediff/work/1.0--2.0.html"), "side=old");
    ctx.wait_js(&format!("{width_of_f} === '120'"), "side=old restored");
    assert_eq!(
        ctx.js_str("document.getElementById('pa-diff-side').value"),
        "old"
    );
}
