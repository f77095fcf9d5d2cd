//! Browser step for the regression report: a history of four versions of
//! one benchmark, four profile repetitions each, where version 3.0 makes
//! `tokenize` (under `main → parse`) much slower. The index must list the
//! regression first, its page must name 3.0, draw the series with the pair
//! highlighted, show the flagged call path down to `tokenize`, and every
//! link on it must resolve.

use std::path::Path;

use super::Ctx;

/// Folded profiles: `tokenize` costs 40 samples before 3.0 and 160 from
/// it; everything else stays, with a small deterministic jitter.
fn write_input(dir: &Path) {
    for (v, version) in ["1.0", "2.0", "3.0", "4.0"].iter().enumerate() {
        let d = dir.join(version);
        std::fs::create_dir_all(&d).unwrap();
        let tokenize = if v >= 2 { 160 } else { 40 };
        for rep in 1..=4u32 {
            let j = |base: u32| base + (rep * 7 + v as u32 * 3) % 5;
            let text = format!(
                "main;parse;tokenize {}\nmain;parse;build_tree {}\nmain;render {}\nmain {}\n",
                j(tokenize),
                j(60),
                j(90),
                j(10)
            );
            std::fs::write(d.join(format!("parse.{rep}.folded")), text).unwrap();
        }
    }
}

pub fn step_regression_page(ctx: &Ctx) {
    // Beside the main site, so it outlives the step (the last step checks
    // that every file the browser requested exists).
    let work = ctx.site.parent().unwrap().join("regression");
    let input = work.join("input");
    write_input(&input);
    let site = work.join("site");
    let out = crate::common::build(&input, &site, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    ctx.open(&site.join("index.html"));
    let first = ctx.js(
        "(function () { var a = document.querySelector('#regressions ol.pa-changes li a');
            return a ? [a.textContent, a.getAttribute('href')] : null; })()",
    );
    assert_eq!(first[0], "major regression in 3.0", "{first}");
    ctx.tab
        .find_element("#regressions ol.pa-changes li a")
        .expect("regression link")
        .click()
        .expect("click");
    ctx.wait_js(
        "document.getElementById('pa-responsible') !== null",
        "the regression page",
    );
    assert_eq!(
        ctx.js_str("document.getElementById('pa-responsible').textContent"),
        "3.0"
    );
    let change = ctx.js_str("document.getElementById('pa-change').textContent");
    assert!(change.contains("Category"), "{change}");

    // The series: four points, 2.0 and 3.0 highlighted.
    let points = ctx.js(
        "Array.from(document.querySelectorAll('svg.pa-series g.pa-point')).map(function (g) {
            return [g.getAttribute('data-version'), g.getAttribute('class')]; })",
    );
    let points = points.as_array().unwrap();
    assert_eq!(points.len(), 4, "{points:?}");
    assert!(points[1][1].as_str().unwrap().contains("pa-before"));
    assert!(points[2][1].as_str().unwrap().contains("pa-responsible"));
    let title =
        ctx.js_str("document.querySelectorAll('svg.pa-series g.pa-point title')[2].textContent");
    assert!(
        title.starts_with("3.0: mean ") && title.ends_with("4 runs"),
        "{title}"
    );

    // The flagged path: all → main → parse → tokenize, tokenize the
    // candidate; render and build_tree compared and cleared.
    let flagged = ctx.js(
        "Array.from(document.querySelectorAll('.pa-cause-row.pa-flagged code')).map(function (c) { return c.textContent; })",
    );
    assert_eq!(
        flagged,
        serde_json::json!(["all", "main", "parse", "tokenize"])
    );
    let candidate = ctx.js(
        "Array.from(document.querySelectorAll('.pa-cause-row.pa-candidate code')).map(function (c) { return c.textContent; })",
    );
    assert_eq!(candidate, serde_json::json!(["tokenize"]));
    let cleared = ctx.js(
        "Array.from(document.querySelectorAll('.pa-cause-row.pa-unflagged code')).map(function (c) { return c.textContent; }).sort()",
    );
    assert_eq!(cleared, serde_json::json!(["build_tree", "render"]));

    // Every link resolves to a file of the site.
    let hrefs = ctx.js(
        // (The chart's points are SVG links, whose `href` is no string.)
        "Array.from(document.querySelectorAll('main a[href]')).map(function (a) { return new URL(a.getAttribute('href'), location.href).href; })",
    );
    let hrefs = hrefs.as_array().unwrap();
    assert!(
        hrefs
            .iter()
            .any(|h| h.as_str().unwrap().contains("/flamediff/")),
        "{hrefs:?}"
    );
    for h in hrefs {
        let url = h.as_str().unwrap();
        let path = url.trim_start_matches("file://").split('#').next().unwrap();
        assert!(Path::new(path).is_file(), "{url} does not resolve");
    }
    ctx.screenshot("regression-page");

    // The benchmark page lists the same regression and every version.
    ctx.open(&site.join("benchmarks/parse.html"));
    let rows = ctx.js("document.querySelectorAll('.pa-series-table tbody tr').length");
    assert_eq!(rows, 4);
    let verdicts = ctx.js(
        "Array.from(document.querySelectorAll('.pa-series-table tbody tr td:nth-child(7)')).map(function (t) { return t.textContent.split(' (')[0]; })",
    );
    assert_eq!(
        verdicts,
        serde_json::json!([
            "first",
            "no significant change",
            "major regression",
            "no significant change"
        ])
    );
}
