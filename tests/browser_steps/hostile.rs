//! Browser step for hostile names: a site built from profiles whose
//! function names, file names and benchmark file name are markup, opened
//! page kind by page kind, hovered, clicked and searched. Nothing may open a
//! dialog, set the canary, or add an element the pages do not have; the
//! names must be on screen as text.

use std::path::Path;

use super::Ctx;

/// Each payload sets `window.__pwned` and opens a dialog if it ever runs.
const NAMES: [&str; 4] = [
    "<img src=x onerror=\"window.__pwned=1;alert(1)\">",
    "</script><script>window.__pwned=2;alert(2)</script>",
    "\"onmouseover=\"window.__pwned=3;alert(3)\" x=\"",
    "javascript:window.__pwned=4;alert(4)",
];

/// Two versions of the same benchmark in two formats, so the matrix,
/// component pages, diff pages and timelines all have hostile names.
fn write_input(dir: &Path) {
    let stack = NAMES.join(";");
    for (version, extra) in [("1.0", 3), ("2.0", 9)] {
        let v = dir.join(version);
        std::fs::create_dir_all(&v).unwrap();
        // Two repetitions: their views are drawn on the aggregate page.
        for file in ["evil.folded", "evil.2.folded"] {
            std::fs::write(
                v.join(file),
                format!("main;{stack} 5\nmain;{} {extra}\nmain 1\n", NAMES[1]),
            )
            .unwrap();
        }
        // Measurements of a benchmark named like markup (hyperfine's shape).
        let times: Vec<String> = (0..4).map(|i| format!("0.0{}{i}", extra)).collect();
        std::fs::write(
            v.join("timings.json"),
            format!(
                "{{\"results\":[{{\"command\":{},\"mean\":0.05,\"times\":[{}]}}]}}",
                serde_json::to_string(NAMES[0]).unwrap(),
                times.join(",")
            ),
        )
        .unwrap();
        let frames: Vec<String> = NAMES
            .iter()
            .map(|n| {
                format!(
                    "{{\"name\":{},\"file\":{},\"line\":3}}",
                    serde_json::to_string(n).unwrap(),
                    serde_json::to_string(&format!("src/{n}.py")).unwrap()
                )
            })
            .collect();
        std::fs::write(
            v.join("timed.speedscope.json"),
            format!(
                "{{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\
                 \"shared\":{{\"frames\":[{}]}},\
                 \"profiles\":[{{\"type\":\"evented\",\"name\":\"<b>p</b>\",\"unit\":\"milliseconds\",\
                 \"startValue\":0,\"endValue\":{extra},\"events\":[\
                 {{\"type\":\"O\",\"frame\":0,\"at\":0}},{{\"type\":\"O\",\"frame\":1,\"at\":1}},\
                 {{\"type\":\"O\",\"frame\":2,\"at\":1}},{{\"type\":\"O\",\"frame\":3,\"at\":2}},\
                 {{\"type\":\"C\",\"frame\":3,\"at\":{extra}}},{{\"type\":\"C\",\"frame\":2,\"at\":{extra}}},\
                 {{\"type\":\"C\",\"frame\":1,\"at\":{extra}}},{{\"type\":\"C\",\"frame\":0,\"at\":{extra}}}]}}]}}",
                frames.join(",")
            ),
        )
        .unwrap();
    }
}

/// Hovers every drawn element, clicks the flame frames (zoom) and searches
/// for markup, then checks that nothing ran.
fn poke(ctx: &Ctx, page: &Path, fragment: &str) {
    ctx.open_view(page, fragment);
    ctx.js(
        "(function () {
            var all = document.querySelectorAll('svg g, .pa-row, .pa-name, td, a, button');
            for (var i = 0; i < all.length && i < 3000; i++) {
                ['mouseover', 'mouseenter', 'mousemove'].forEach(function (t) {
                    all[i].dispatchEvent(new MouseEvent(t, {bubbles: true, clientX: 10, clientY: 10}));
                });
            }
            var frames = document.querySelectorAll('svg.pa-flame g.f');
            for (var j = 0; j < frames.length && j < 50; j++) {
                frames[j].dispatchEvent(new MouseEvent('click', {bubbles: true}));
            }
            var search = document.querySelector('input[type=search]');
            if (search) {
                search.value = '<img';
                search.dispatchEvent(new Event('input', {bubbles: true}));
            }
            return true;
        })()",
    );
    let verdict = ctx.js("(function () {
            var handlers = Array.from(document.querySelectorAll('*')).filter(function (e) {
                return Array.from(e.attributes).some(function (a) { return /^on/i.test(a.name); });
            }).map(function (e) { return e.outerHTML.slice(0, 120); });
            var links = Array.from(document.querySelectorAll('[href]')).map(function (a) {
                return a.getAttribute('href');
            }).filter(function (h) { return /^\\s*javascript:/i.test(h); });
            return {
                pwned: window.__pwned === undefined ? null : window.__pwned,
                handlers: handlers,
                javascript_links: links,
                // Scripts other than the site's own files in assets/ and a
                // compare page's data scripts (compare/BENCH/VERSION.js, slugs).
                scripts: Array.prototype.filter.call(
                    document.querySelectorAll('script:not([type=\"application/json\"])'),
                    function (s) {
                        var src = s.getAttribute('src') || '';
                        return !/(^|[/])assets[/][a-z-]+[.]js$/.test(src) &&
                            !/^([.][.][/])*compare[/][A-Za-z0-9._-]+[/][A-Za-z0-9._-]+[.]js$/.test(src);
                    }).length,
                imgs: document.querySelectorAll('img').length
            };
        })()");
    let name = format!("{}#{fragment}", page.display());
    assert_eq!(
        verdict["pwned"],
        serde_json::Value::Null,
        "{name}: {verdict}"
    );
    assert_eq!(
        verdict["handlers"].as_array().unwrap().len(),
        0,
        "{name}: {verdict}"
    );
    assert_eq!(
        verdict["javascript_links"].as_array().unwrap().len(),
        0,
        "{name}: {verdict}"
    );
    assert_eq!(
        verdict["imgs"].as_u64(),
        Some(0),
        "{name}: an <img> appeared"
    );
    assert!(
        verdict["scripts"].as_u64() == Some(0),
        "{name}: only the site's own script runs: {verdict}"
    );
    assert!(
        ctx.observed.lock().unwrap().dialogs.is_empty(),
        "{name}: a dialog opened"
    );
}

/// Which kind of page a site path is (one of each is opened).
fn page_kind(path: &str) -> String {
    let kind = match path.split('/').next().unwrap_or("") {
        "index.html" => "index",
        "matrix" if path.contains("/c/") => "component",
        "matrix" if path.contains("timeline") => "timeline",
        "matrix" => "matrix",
        other => other,
    };
    kind.to_string()
}

pub fn step_markup_names_stay_text(ctx: &Ctx) {
    let dir = ctx.site.parent().unwrap().join("hostile");
    write_input(&dir.join("input"));
    let site = dir.join("site");
    super::build_site_with(&dir.join("input"), &site, &[]);
    let tree = super::read_tree(&site);
    let mut kinds = std::collections::BTreeMap::new();
    for path in tree.keys().filter(|p| p.ends_with(".html")) {
        kinds
            .entry(page_kind(path))
            .or_insert_with(|| (path.clone(), String::new()));
    }
    // A profile page of its own (a single repetition), and a version's
    // repetitions as views of its aggregate page.
    let timed = tree
        .keys()
        .find(|p| p.starts_with("profiles/timed/2.0/r1.") && page_kind(p) == "profiles")
        .expect("the speedscope profile's page")
        .clone();
    kinds.insert("profiles".to_string(), (timed.clone(), String::new()));
    let aggregate = "profiles/evil/2.0/all.html".to_string();
    assert!(
        String::from_utf8_lossy(&tree[&aggregate])
            .contains("class=\"pa-rep-views\" data-rep=\"r2\""),
        "the repetitions' views"
    );
    for view in ["rep=r2", "rep=r2&shape=bottom-up", "rep=r2&shape=flat"] {
        kinds.insert(
            format!("repetition {view}"),
            (aggregate.clone(), view.to_string()),
        );
    }
    // The views a profile and a differential page's script draws.
    for kind in ["profiles", "flamediff"] {
        let Some((path, _)) = kinds.get(kind).cloned() else {
            continue;
        };
        for shape in ["bottom-up", "flat"] {
            kinds.insert(
                format!("{kind} {shape}"),
                (path.clone(), format!("shape={shape}")),
            );
        }
    }
    for required in [
        "index",
        "profiles",
        "profiles bottom-up",
        "profiles flat",
        "matrix",
        "component",
        "timeline",
        "flamediff",
        "benchmarks",
        "regressions",
    ] {
        assert!(
            kinds.contains_key(required),
            "no {required} page: {kinds:?}"
        );
    }
    // Every component page of the matrix (the evil methods are sections
    // of their class's page, one each).
    let components: Vec<&String> = tree
        .keys()
        .filter(|p| p.starts_with("matrix/") && p.contains("/c/") && p.ends_with(".html"))
        .collect();
    let method_sections: usize = components
        .iter()
        .map(|p| {
            String::from_utf8_lossy(&tree[p.as_str()])
                .matches("<section class=\"pa-method\"")
                .count()
        })
        .sum();
    assert!(
        method_sections >= NAMES.len(),
        "{method_sections} method sections in {components:?}"
    );
    for (page, fragment) in kinds.values() {
        poke(ctx, &site.join(page), fragment);
    }
    for page in components {
        poke(ctx, &site.join(page), "");
    }
    // The names are on the page as text a reader can see (the speedscope
    // file keeps them whole; folded splits them at `;`).
    ctx.open(&site.join(&timed));
    let text = ctx.js_str("document.body.innerText");
    for n in NAMES {
        assert!(text.contains(n), "{n:?} is not shown as text");
    }
    ctx.screenshot("40-hostile-names");
    // The measured benchmark named like markup, on its regression page.
    let regression = kinds["regressions"].0.clone();
    ctx.open(&site.join(&regression));
    let text = ctx.js_str("document.querySelector('main').innerText");
    assert!(text.contains(NAMES[0]), "{regression}: {text}");
}
