//! Browser steps for the compare page (compare_page.rs, assets/compare.js):
//! any two versions or repetitions compared in the page. A pair the site
//! built a differential page for is drawn frame for frame and row for row
//! as that page draws it, in every shape; a pair of repetitions (no page
//! built) compares the two profiles' own totals; a profile page's link
//! opens it on that profile.

use super::{Ctx, BENCH};

/// Every graph's boxes (x, width, label, classes) and every tree-table
/// row of the view shown.
const DRAWN: &str = "[Array.prototype.map.call(document.querySelectorAll('#pa-graphs svg.pa-flame'), function (s) {
    return Array.prototype.map.call(s.querySelectorAll('g.f'), function (g) {
      var r = g.querySelector('rect'), t = g.querySelector('text');
      return [r.getAttribute('x'), r.getAttribute('width'), t ? t.textContent : '', g.getAttribute('class')];
    });
  }),
  Array.prototype.map.call(document.querySelectorAll('#pa-table tbody tr'), function (r) { return r.textContent; })]";

const DRAWN_READY: &str = "!!document.querySelector('#pa-graphs svg.pa-flame g.f') && !!document.querySelector('#pa-table tbody tr')";

pub fn step_compare_any_two(ctx: &Ctx) {
    let dir = ctx.site.join(format!("flamediff/{BENCH}"));
    let mut built: Vec<String> = std::fs::read_dir(&dir)
        .expect("differential pages")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".html") && n.contains("--"))
        .collect();
    built.sort();
    let page = built.first().expect("a differential page");
    let (old, new) = page
        .trim_end_matches(".html")
        .split_once("--")
        .expect("OLD--NEW.html");
    let compare = ctx.site.join(format!("compare/{BENCH}.html"));
    for fragment in [
        "",
        "shape=bottom-up",
        "shape=flat",
        "side=old",
        "mode=exclusive",
    ] {
        ctx.open_view(&dir.join(page), fragment);
        ctx.wait_js(DRAWN_READY, "the differential page drawn");
        let expected = ctx.js(DRAWN);
        let url = format!(
            "{}?old={old}&new={new}{}",
            super::file_url(&compare),
            if fragment.is_empty() {
                String::new()
            } else {
                format!("#{fragment}")
            }
        );
        ctx.tab.navigate_to("about:blank").expect("navigate");
        ctx.tab.wait_until_navigated().expect("blank page");
        ctx.load(&url);
        ctx.wait_js(DRAWN_READY, "the compare page drawn");
        let drawn = ctx.js(DRAWN);
        assert!(
            drawn[0][0].as_array().is_some_and(|g| g.len() > 3),
            "{fragment}: {drawn}"
        );
        assert_eq!(
            drawn, expected,
            "{old} → {new} {fragment:?}: the compare page draws the built differential page"
        );
        if fragment.is_empty() {
            ctx.screenshot("compare-any-two");
        }
    }

    // Two repetitions of one version: no differential page is built for
    // them; the totals compared are each profile's own.
    let version = ctx.last_version();
    let total_of = |rep: u32| {
        ctx.open(&ctx.profile_page(&version, rep));
        ctx.page_data()["frames"][0][4]
            .as_f64()
            .expect("root total")
    };
    let (r1, r2) = (total_of(1), total_of(2));
    ctx.tab.navigate_to("about:blank").expect("navigate");
    ctx.tab.wait_until_navigated().expect("blank page");
    ctx.load(&format!(
        "{}?old={version}%2Fr1&new={version}%2Fr2",
        super::file_url(&compare)
    ));
    ctx.wait_js(DRAWN_READY, "the repetitions compared");
    let data = ctx.page_data();
    let totals = &data["totals"];
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(1.0);
    assert!(
        near(totals[0].as_f64().unwrap(), r1) && near(totals[1].as_f64().unwrap(), r2),
        "r1 {r1} and r2 {r2} against the compared totals {totals}"
    );
    assert!(
        near(data["frames"][0][4].as_f64().unwrap(), r2),
        "the root is as wide as r2's total"
    );

    // From a profile page: its "with any other…" link opens the compare
    // page with that profile as the newer one.
    ctx.open(&ctx.profile_page(&version, 2));
    let href = ctx.js_str(
        "(document.querySelector('nav[aria-label=\"differential views\"] a[href*=\"compare/\"]') || {href: ''}).href",
    );
    assert!(
        href.contains(&format!("new={version}%2Fr2")),
        "the profile page links the compare page: {href}"
    );
    ctx.load(&href);
    ctx.wait_js(DRAWN_READY, "the compare page from a profile page");
    assert_eq!(
        ctx.js_str("document.getElementById('pa-compare-new').value"),
        format!("{version}/r2")
    );
    assert_ne!(
        ctx.js_str("document.getElementById('pa-compare-old').value"),
        format!("{version}/r2"),
        "the older one is another profile"
    );
}
