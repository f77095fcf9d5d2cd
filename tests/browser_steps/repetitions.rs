//! Browser steps for a version's repetitions shown as views of its
//! aggregate page, the default (the main site of the browser test is
//! built with `--repetition-pages`, so that the other steps exercise those
//! pages): each repetition's every view is drawn as its own page draws it,
//! with its facts, and the page goes back to the merged view.

use super::common::build_site_with;
use super::{Ctx, BENCH};

/// Every graph's boxes (x, width, label), every tree-table row and the
/// heaviest functions of the view shown, and the page title. A row's
/// method link is left out: the two pages compared are of two sites, one
/// built with `--repo`, whose matrices show different methods.
const DRAWN: &str = "[document.title,
  Array.prototype.map.call(document.querySelectorAll('#pa-graphs svg.pa-flame'), function (s) {
    return Array.prototype.map.call(s.querySelectorAll('g.f'), function (g) {
      var r = g.querySelector('rect'), t = g.querySelector('text');
      return [r.getAttribute('x'), r.getAttribute('width'), t ? t.textContent : ''];
    });
  }),
  Array.prototype.map.call(document.querySelectorAll('#pa-table tbody tr'), function (r) {
    var c = r.cloneNode(true);
    c.querySelectorAll('a.pa-method').forEach(function (a) { a.remove(); });
    return c.textContent;
  }),
  Array.prototype.filter.call(document.querySelectorAll('.pa-heavy-section'), function (s) { return !s.closest('[hidden]'); })
    .map(function (s) { return Array.prototype.map.call(s.querySelectorAll('h2, th, td'), function (c) { return c.textContent; }); })]";

pub fn step_repetition_views(ctx: &Ctx) {
    let site = ctx.site.with_file_name("site-default");
    if !site.join("index.html").is_file() {
        build_site_with(&ctx.data, &site, &[]);
    }
    let version = ctx.last_version();
    let dir = format!("profiles/{BENCH}/{version}");
    assert!(!site.join(format!("{dir}/r2.html")).exists());
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(
        index.contains(&format!("{dir}/all.html#rep=r2")),
        "the index links a repetition to its view"
    );
    let aggregate = site.join(format!("{dir}/all.html"));
    for fragment in ["", "shape=bottom-up", "shape=flat"] {
        ctx.open_view(&ctx.profile_page(&version, 2), fragment);
        let own_page = ctx.js(DRAWN);
        let view = match fragment {
            "" => "rep=r2".to_string(),
            f => format!("rep=r2&{f}"),
        };
        ctx.open_view(&aggregate, &view);
        ctx.wait_js(
            "document.title.indexOf(' r2 ') > 0",
            "the repetition's view",
        );
        let drawn = ctx.js(DRAWN);
        assert!(
            drawn[1][0].as_array().is_some_and(|g| g.len() > 10),
            "{fragment}: {drawn}"
        );
        if fragment.is_empty() {
            assert!(
                drawn[3][0].as_array().is_some_and(|cells| cells.len() > 30),
                "the heaviest functions: {drawn}"
            );
        }
        assert_eq!(drawn, own_page, "r2 {fragment:?}: as its own page draws it");
    }
    // The repetition's facts and heaviest functions, the switch marking it;
    // the merged facts hidden.
    let shown = |selector: &str| {
        ctx.js(&format!(
            "Array.prototype.filter.call(document.querySelectorAll('{selector}'), function (e) {{ return !e.closest('[hidden]'); }}).length"
        ))
        .as_u64()
        .unwrap()
    };
    assert_eq!(
        ctx.js_str("document.querySelector('nav[aria-label=\"repetition\"] strong').textContent"),
        "r2"
    );
    assert_eq!(shown(".pa-rep-block[data-rep=\"r2\"]"), 2);
    assert_eq!(shown(".pa-rep-block[data-rep=\"r1\"]"), 0);
    assert_eq!(shown(".pa-merged-only"), 0);
    assert_eq!(shown("nav[aria-label=\"shape\"]"), 1);
    assert!(ctx
        .js_str("document.querySelector('.pa-rep-block[data-rep=\"r2\"]').textContent")
        .contains(&format!("{BENCH}.2.folded")));
    // The total shown is the repetition's, the one element with its id.
    assert_eq!(
        ctx.js("document.querySelectorAll('[id=\"pa-total\"]').length")
            .as_u64(),
        Some(1)
    );
    assert_eq!(
        ctx.js_str(
            "document.getElementById('pa-total').closest('.pa-rep-block').getAttribute('data-rep')"
        ),
        "r2"
    );
    ctx.screenshot("60-repetition-view");
    // "all merged" goes back to the merged view.
    ctx.js("(document.querySelector('nav[aria-label=\"repetition\"] a').click(), true)");
    ctx.wait_js(
        "document.title.indexOf('profiles merged') > 0",
        "the merged view again",
    );
    assert_eq!(shown(".pa-rep-block"), 0);
    // The merged view's graphs, its version links and its heaviest
    // functions (a repetition has its own).
    assert_eq!(shown(".pa-merged-only"), 3);
    assert!(ctx
        .js("!!document.getElementById('pa-total').closest('.pa-merged-only')")
        .as_bool()
        .unwrap_or(false));
    assert!(
        ctx.js("document.querySelectorAll('#pa-graphs g.f').length")
            .as_u64()
            > Some(10)
    );
    // The merged page is a full page: its shapes (the mean profile's
    // bottom-up view on request), and links to its other versions.
    assert_eq!(shown("nav[aria-label=\"shape\"]"), 1);
    assert!(shown("nav[aria-label=\"version\"] a") >= 2);
    let merged = aggregate.clone();
    ctx.open_view(&merged, "shape=bottom-up");
    ctx.wait_js(
        "location.hash === '#shape=bottom-up' && !!document.querySelector('nav[aria-label=\"shape\"] [aria-current]')",
        "the merged page's bottom-up view",
    );
    assert_eq!(
        ctx.js_str(
            "document.querySelector('nav[aria-label=\"shape\"] [aria-current]').textContent"
        ),
        "bottom-up"
    );
    ctx.screenshot("61-merged-bottom-up");

    // A page whose repetition's views are cut short says so and shows
    // the merged view.
    let html = std::fs::read_to_string(&aggregate).unwrap();
    // (r3's are stored as their differences from r1's: data-like.)
    let open = "class=\"pa-rep-views\" data-rep=\"r3\" data-like=\"r1\">";
    let cut_at = html.find(open).expect("r3's views") + open.len() + 40;
    let end = cut_at + html[cut_at..].find("</script>").unwrap();
    let cut = aggregate.with_file_name("cut.html");
    std::fs::write(&cut, format!("{}{}", &html[..cut_at], &html[end..])).unwrap();
    ctx.open_view(&cut, "rep=r3");
    assert!(
        ctx.js_str("(document.querySelector('.pa-views-missing') || {}).textContent || ''")
            .contains("The views of repetition r3 could not be read"),
        "the page says r3's views are missing"
    );
    assert!(ctx.js_str("document.title").contains("profiles merged"));
}
