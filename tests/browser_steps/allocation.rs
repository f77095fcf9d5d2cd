//! Browser step for allocation sites, on the paper's running example
//! (tests/fixtures/allocation/canvas.json, every figure known) in two
//! versions, plus a generated benchmark with a deep pass-through chain, a
//! wide node of small branches and classes named like markup.

use std::path::Path;

use serde_json::{json, Value};

use super::Ctx;

const EVIL: &str = "</script><img src=x onerror=\"window.__pwned=7;alert(7)\">";

/// A native profile: `main` calls a chain `c0 → … → c9` ending in `leaf`
/// (500 objects of `Big`), and `wide`, whose 40 children make 1 object
/// each of a class named like markup.
fn generated() -> String {
    let mut frames = vec![json!({"function": "main"})];
    let mut nodes = vec![json!({"frame": 0, "parent": null, "self": [0]})];
    let mut sites = Vec::new();
    for d in 0..10 {
        frames.push(json!({ "function": format!("c{d}") }));
        nodes.push(json!({"frame": frames.len() - 1, "parent": nodes.len() - 1, "self": [0]}));
    }
    frames.push(json!({"function": "leaf"}));
    nodes.push(json!({"frame": frames.len() - 1, "parent": nodes.len() - 1, "self": [500]}));
    sites.push(json!({"node": nodes.len() - 1, "class": "Big", "count": 500, "bytes": 8000}));
    frames.push(json!({"function": "wide"}));
    let wide = nodes.len();
    nodes.push(json!({"frame": frames.len() - 1, "parent": 0, "self": [0]}));
    for k in 0..40 {
        frames.push(json!({ "function": format!("small{k}") }));
        nodes.push(json!({"frame": frames.len() - 1, "parent": wide, "self": [1]}));
        sites.push(json!({"node": nodes.len() - 1, "class": EVIL, "count": 1, "bytes": 16}));
    }
    // The format key first: files are recognised by their first kilobyte.
    let body = json!({
        "metrics": [{"name": "alloc_objects", "unit": "objects"}],
        "frames": frames, "nodes": nodes,
        "allocations": {"counts": "objects", "sites": sites},
    })
    .to_string();
    format!("{{\"perfatlas\":1,{}", &body[1..])
}

/// Writes the input versions, and a source directory holding the
/// running example's `Canvas.java` (for the code links).
fn write_input(dir: &Path, sources: &Path) {
    let canvas = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/allocation/canvas.json"),
    )
    .unwrap();
    // 2.0 makes 30 boxes instead of 8 in createBoxes: Box (38) overtakes
    // Circle (30), so a palette ranked per page would swap their colours.
    let more_boxes = canvas.replacen(
        "{\"node\": 7, \"class\": \"Box\", \"count\": 8, \"bytes\": 256}",
        "{\"node\": 7, \"class\": \"Box\", \"count\": 30, \"bytes\": 960}",
        1,
    );
    assert_ne!(more_boxes, canvas);
    for (version, text) in [("1.0", &canvas), ("2.0", &more_boxes)] {
        let v = dir.join(version);
        std::fs::create_dir_all(&v).unwrap();
        std::fs::write(v.join("canvas.json"), text).unwrap();
        std::fs::write(v.join("generated.json"), generated()).unwrap();
    }
    // A Go heap profile (pprof records no type) in 1.0.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pprof/go-demo/1.0/demo-heap.heap.pb.gz"),
        dir.join("1.0/demo-heap.heap.pb.gz"),
    )
    .unwrap();
    std::fs::create_dir_all(sources).unwrap();
    let java: String = (1..=30)
        .map(|l| format!("// Canvas.java line {l}\n"))
        .collect();
    std::fs::write(sources.join("Canvas.java"), java).unwrap();
}

fn labels(ctx: &Ctx, selector: &str) -> Vec<String> {
    let v = ctx.js(&format!(
        "Array.from(document.querySelectorAll('svg.al-tree {selector}')).map(function (g) {{ return g.querySelector('text').textContent; }})"
    ));
    serde_json::from_value(v).unwrap()
}

fn drawn(ctx: &Ctx) -> usize {
    ctx.js("document.querySelectorAll('svg.al-tree .al-item').length")
        .as_u64()
        .unwrap() as usize
}

fn row_event(ctx: &Ctx, class: &str, event: &str) {
    ctx.js(&format!(
        "(function () {{ var row = Array.from(document.querySelectorAll('.al-class')).find(function (r) {{ return r.querySelector('.al-name').textContent === {name}; }});
            row.dispatchEvent(new MouseEvent('{event}', {{bubbles: true, cancelable: true}})); return true; }})()",
        name = serde_json::to_string(class).unwrap()
    ));
}

/// Hovers the `n`th item labelled `label` and returns the popup's rows as
/// [class, amount, memory, allocation line (null without a line column),
/// created here].
fn popup_rows(ctx: &Ctx, label: &str, n: usize) -> Value {
    ctx.js(&format!(
        "(function () {{ var g = Array.from(document.querySelectorAll('svg.al-tree .al-item')).filter(function (g) {{ return g.querySelector('text').textContent === {label}; }})[{n}];
            g.querySelector('rect').dispatchEvent(new MouseEvent('mouseover', {{bubbles: true, clientX: 10, clientY: 10}}));
            var p = document.getElementById('al-popup');
            if (p.hidden) return null;
            return Array.from(p.querySelectorAll('tr')).slice(1).map(function (tr) {{
              return [tr.cells[1].textContent, tr.cells[2].textContent, tr.cells[3].textContent,
                tr.cells[4] ? tr.cells[4].textContent : null, tr.className === 'al-direct']; }}); }})()",
        label = serde_json::to_string(label).unwrap()
    ))
}

/// class name → colour, from the class list and from every box drawn.
fn colours(ctx: &Ctx) -> Value {
    ctx.js("(function () { var out = {}, names = {};
            document.querySelectorAll('.al-class').forEach(function (r) {
              var c = r.getAttribute('data-class'); if (c < 0) return;
              names[c] = r.querySelector('.al-name').textContent;
              out[names[c]] = getComputedStyle(r.querySelector('.al-swatch')).backgroundColor; });
            document.querySelectorAll('svg.al-tree .al-cls').forEach(function (b) {
              var name = names[b.getAttribute('data-class')];
              var fill = getComputedStyle(b).fill;
              if (out[name] !== fill) out[name] = 'MISMATCH ' + out[name] + ' / ' + fill; });
            return out; })()")
}

/// The hue, in degrees, of a computed `rgb(r, g, b)` colour.
fn hue_of(rgb: &str) -> f64 {
    let v: Vec<f64> = rgb
        .trim_start_matches("rgb(")
        .trim_end_matches(')')
        .split(',')
        .map(|c| c.trim().parse::<f64>().unwrap() / 255.0)
        .collect();
    let (r, g, b) = (v[0], v[1], v[2]);
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    let d = max - min;
    if d == 0.0 {
        return 0.0;
    }
    let h = if max == r {
        ((g - b) / d).rem_euclid(6.0)
    } else if max == g {
        (b - r) / d + 2.0
    } else {
        (r - g) / d + 4.0
    };
    h * 60.0
}

pub fn step_allocation_pages(ctx: &Ctx) {
    let input = ctx.site.parent().unwrap().join("alloc-input");
    let sources = ctx.site.parent().unwrap().join("alloc-sources");
    let site = ctx.site.parent().unwrap().join("alloc-site");
    let _ = std::fs::remove_dir_all(&input);
    write_input(&input, &sources);
    let sources_arg = sources.to_str().unwrap();
    let out = crate::common::build(&input, &site, &["--force", "--sources", sources_arg]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The index links to both versions of both benchmarks.
    ctx.open(&site.join("index.html"));
    let links = ctx.js("Array.from(document.querySelectorAll('#allocations a')).map(function (a) { return a.getAttribute('href'); })");
    assert_eq!(
        links,
        json!([
            "alloc/canvas/1.0.html",
            "alloc/canvas/2.0.html",
            "alloc/demo-heap/1.0.html",
            "alloc/generated/1.0.html",
            "alloc/generated/2.0.html"
        ])
    );

    // A pprof heap profile names the allocating function instead of a
    // class, and the page says so; its counts are objects, with what was
    // still live at the end.
    ctx.open(&site.join("alloc/demo-heap/1.0.html"));
    let text = ctx.js_str("document.querySelector('main').textContent");
    assert!(
        text.contains("This profiler records no allocated type: each box stands for the allocating function itself."),
        "{text}"
    );
    assert!(text.contains("children are in order of first appearance"));
    assert!(text.contains("every edge has the same width"));
    let heads = ctx.js("Array.from(document.querySelectorAll('.al-class-table th')).map(function (th) { return th.textContent; })");
    assert_eq!(
        heads,
        json!([
            "✓",
            "allocating function",
            "instances",
            "memory",
            "live at end"
        ])
    );
    let first = ctx.js_str("document.querySelector('svg.al-tree .al-item:not(.al-more) rect.al-cls').closest('.al-item').querySelector('text').textContent");
    popup_rows(ctx, &first, 0);
    let head = ctx.js_str("document.querySelector('#al-popup th:nth-child(2)').textContent");
    assert_eq!(head, "allocating function (● created here)");

    ctx.open(&site.join("alloc/canvas/1.0.html"));
    let text = ctx.js_str("document.querySelector('main').textContent");
    assert!(
        text.contains("Children are in call order, top to bottom."),
        "{text}"
    );
    assert!(!text.contains("same width"), "{text}");
    // Fig. 1: eleven contexts; the class list sorted by instances.
    assert_eq!(drawn(ctx), 11);
    let classes = ctx.js("Array.from(document.querySelectorAll('.al-class')).map(function (r) { return [r.querySelector('.al-name').textContent, r.cells[2].textContent]; })");
    assert_eq!(
        classes,
        json!([
            ["Circle", "30"],
            ["Box", "16"],
            ["Canvas", "1"],
            ["ShapeFactory", "1"]
        ])
    );

    // Hover Box: the paths that create a Box stay, the others are shaded.
    let lit = ".al-item:not(.al-shaded)";
    row_event(ctx, "Box", "mouseenter");
    assert_eq!(
        labels(ctx, ".al-item.al-shaded"),
        [
            "Canvas.<init>",
            "Canvas.createCircles",
            "Canvas.createShape",
            "ShapeFactory.create"
        ]
    );
    assert_eq!(labels(ctx, lit).len(), 7);
    row_event(ctx, "Box", "mouseleave");
    assert_eq!(labels(ctx, ".al-item.al-shaded").len(), 0);
    // Click fixes the highlight: leaving and pointing at another class
    // keep it; a second click releases it.
    row_event(ctx, "Box", "click");
    row_event(ctx, "Box", "mouseleave");
    row_event(ctx, "Circle", "mouseenter");
    assert_eq!(labels(ctx, ".al-item.al-shaded").len(), 4);
    ctx.screenshot("60-allocation-highlight");
    row_event(ctx, "Circle", "mouseleave");
    row_event(ctx, "Box", "click");
    row_event(ctx, "Box", "mouseleave");
    assert_eq!(labels(ctx, ".al-item.al-shaded").len(), 0);

    // Popups: the lower create makes both classes directly, each at its
    // own line, called 23 times; main creates the Canvas directly (line
    // 27) and the rest below.
    let rows = popup_rows(ctx, "ShapeFactory.create", 2);
    assert_eq!(
        rows,
        json!([
            ["● Circle", "15", "360 B", "line 8", true],
            ["● Box", "8", "256 B", "line 10", true]
        ])
    );
    let text = ctx.js_str("document.getElementById('al-popup').textContent");
    assert!(text.contains("calls from its context: 23"), "{text}");
    let rows = popup_rows(ctx, "Canvas.main", 0);
    assert_eq!(
        rows,
        json!([
            ["Circle", "30", "720 B", "", false],
            ["Box", "16", "512 B", "", false],
            ["● Canvas", "1", "24 B", "line 27", true],
            ["ShapeFactory", "1", "16 B", "", false]
        ])
    );

    // A context links to its method's line on the source page.
    let href = ctx.js_str("(function () { var g = Array.from(document.querySelectorAll('svg.al-tree .al-item')).filter(function (g) { return g.querySelector('text').textContent === 'ShapeFactory.create'; })[2]; return g.parentNode.getAttribute('href'); })()");
    assert_eq!(href, "../../source/1.0/Canvas.java.html#L8");
    let source = std::fs::read_to_string(site.join("source/1.0/Canvas.java.html")).unwrap();
    assert!(
        source.contains("id=\"L8\""),
        "no line anchor in the source page"
    );
    assert!(source.contains("// Canvas.java line 8"));

    // The memory metrics have their flame graphs, linked from the page,
    // and the evolution matrix a memory matrix beside the one in objects.
    let flames = ctx.js("Array.from(document.querySelectorAll('a')).filter(function (a) { return a.textContent.indexOf('flame graph: ') === 0; }).map(function (a) { return [a.textContent, a.getAttribute('href')]; })");
    assert_eq!(
        flames,
        json!([
            [
                "flame graph: alloc_objects",
                "../../profiles/canvas/1.0/r1.html"
            ],
            [
                "flame graph: alloc_space",
                "../../profiles/canvas/1.0/r1.html#metric=alloc_space"
            ]
        ])
    );
    assert!(site.join("profiles/canvas/1.0/r1.html").is_file());
    let memory = std::fs::read_to_string(site.join("matrix/b/canvas/memory/index.html")).unwrap();
    assert!(memory.contains("canvas (memory)") && memory.contains("alloc_space"));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("href=\"matrix/b/canvas/memory/index.html\""));

    // The colour-blind theme colours contexts from pale blue to dark
    // orange: none of the eight steps is red or green.
    let bins = |ctx: &Ctx| {
        ctx.js(
            "(function () { var svg = document.querySelector('svg.al-tree'), out = [];
            for (var i = 0; i < 8; i++) {
              var g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
              g.setAttribute('class', 'al-item al-h' + i);
              var r = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
              r.setAttribute('class', 'al-ctx');
              g.appendChild(r); svg.appendChild(g);
              out.push(getComputedStyle(r).fill); svg.removeChild(g);
            }
            return out; })()",
        )
    };
    let light = bins(ctx);
    assert_eq!(
        light[7],
        json!("rgb(215, 48, 39)"),
        "light: most memory is red"
    );
    assert_eq!(light[0], json!("rgb(69, 117, 180)"), "light: least is blue");
    ctx.js("(function () { var s = document.getElementById('pa-theme-select'); s.value = 'colorblind'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(
        "getComputedStyle(document.querySelector('svg.al-tree .al-h7 .al-ctx')).fill === 'rgb(179, 71, 0)'",
        "colorblind: most memory is dark orange",
    );
    for (i, fill) in bins(ctx).as_array().unwrap().iter().enumerate() {
        let hue = hue_of(fill.as_str().unwrap());
        assert!(
            (20.0..=45.0).contains(&hue) || (195.0..=220.0).contains(&hue),
            "colorblind step {i}: {fill} (hue {hue:.0}) is neither blue nor orange"
        );
    }
    ctx.screenshot("63-allocation-colorblind");
    ctx.js("(function () { var s = document.getElementById('pa-theme-select'); s.value = 'light'; s.dispatchEvent(new Event('change')); return true; })()");
    ctx.wait_js(
        "getComputedStyle(document.querySelector('svg.al-tree .al-h7 .al-ctx')).fill === 'rgb(215, 48, 39)'",
        "back to the light theme",
    );

    // Exclusion: unticking Box removes its boxes and createBoxes' branch.
    let box_index = ctx.js_str("Array.from(document.querySelectorAll('.al-class')).find(function (r) { return r.querySelector('.al-name').textContent === 'Box'; }).getAttribute('data-class')");
    ctx.js("(function () { var b = Array.from(document.querySelectorAll('.al-class')).find(function (r) { return r.querySelector('.al-name').textContent === 'Box'; }).querySelector('.al-show'); b.click(); return true; })()");
    assert_eq!(drawn(ctx), 8);
    assert!(!labels(ctx, ".al-item").contains(&"Canvas.createBoxes".to_string()));
    let boxes = ctx.js(&format!(
        "document.querySelectorAll('svg.al-tree .al-cls[data-class=\"{box_index}\"]').length"
    ));
    assert_eq!(boxes, json!(0));
    ctx.screenshot("61-allocation-excluded");
    ctx.js("(function () { var b = Array.from(document.querySelectorAll('.al-class')).find(function (r) { return r.querySelector('.al-name').textContent === 'Box'; }).querySelector('.al-show'); b.click(); return true; })()");
    assert_eq!(drawn(ctx), 11);
    // Right-click excludes too (and again restores).
    row_event(ctx, "Circle", "contextmenu");
    assert_eq!(drawn(ctx), 8);
    row_event(ctx, "Circle", "contextmenu");
    assert_eq!(drawn(ctx), 11);
    // "Below 2 instances" drops Canvas and ShapeFactory: the constructor's
    // branch goes, main stays (it calls the others); reset restores all.
    ctx.js("(function () { var i = document.getElementById('al-below'); i.value = '2'; i.dispatchEvent(new Event('input')); return true; })()");
    assert_eq!(drawn(ctx), 10);
    assert!(!labels(ctx, ".al-item").contains(&"Canvas.<init>".to_string()));
    ctx.js("document.getElementById('al-reset').click(), true");
    assert_eq!(drawn(ctx), 11);

    // Class colours are the same on every page: in both versions (whose
    // class rankings differ), in the list and the tree, and in the SVG
    // "Save as SVG" writes.
    let first = colours(ctx);
    assert!(!first.to_string().contains("MISMATCH"), "{first}");
    ctx.open(&site.join("alloc/canvas/2.0.html"));
    let second = colours(ctx);
    assert_eq!(first, second);
    let change = ctx.js("Array.from(document.querySelectorAll('.al-class')).map(function (r) { return [r.querySelector('.al-name').textContent, r.cells[r.cells.length - 1].textContent]; })");
    // Box: 16 → 38 (createBoxes makes 30 instead of 8), now first.
    assert_eq!(
        change,
        json!([
            ["Box", "+137.5%"],
            ["Circle", "no change"],
            ["Canvas", "no change"],
            ["ShapeFactory", "no change"]
        ])
    );
    // "Save as SVG" writes the tree as shown, with the page's colours in
    // each element: the file opens on its own with the same class colours.
    assert_eq!(
        ctx.js("document.querySelector('button.pa-save-svg').getAttribute('data-target')"),
        json!("svg.al-tree")
    );
    let saved = ctx.js_str("window.perfatlasSvgText(document.querySelector('svg.al-tree'))");
    let indices: Vec<(String, String)> = first
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, colour)| {
            let index = ctx.js_str(&format!(
                "Array.from(document.querySelectorAll('.al-class')).find(function (r) {{ return r.querySelector('.al-name').textContent === {}; }}).getAttribute('data-class')",
                serde_json::to_string(name).unwrap()
            ));
            (index, colour.as_str().unwrap().to_string())
        })
        .collect();
    let file = site.join("saved-canvas-2.0.svg");
    std::fs::write(&file, &saved).unwrap();
    ctx.open_svg(&file);
    assert_eq!(ctx.js("document.documentElement.localName"), json!("svg"));
    for (index, colour) in &indices {
        let rgb = ctx.js_str(&format!(
            "getComputedStyle(document.querySelector('.al-cls[data-class=\"{index}\"]')).fill"
        ));
        assert_eq!(&rgb, colour, "class {index} in the saved SVG");
    }
    ctx.screenshot("64-allocation-saved-svg");
    ctx.open(&site.join("alloc/canvas/2.0.html"));
    for (name, colour) in first.as_object().unwrap() {
        let index = ctx.js_str(&format!(
            "Array.from(document.querySelectorAll('.al-class')).find(function (r) {{ return r.querySelector('.al-name').textContent === {}; }}).getAttribute('data-class')",
            serde_json::to_string(name).unwrap()
        ));
        let rgb = ctx.js_str(&format!(
            "(function () {{ var d = document.createElement('div'); d.style.color = getComputedStyle(document.querySelector('svg.al-tree .al-cls[data-class=\"{index}\"]')).fill; return d.style.color; }})()"
        ));
        assert_eq!(&Value::String(rgb), colour, "{name}");
    }

    // Collapsed parts: the chain opens into its ten contexts, the group of
    // forty small branches into forty; markup in names stays text.
    ctx.open(&site.join("alloc/generated/1.0.html"));
    let items = labels(ctx, ".al-item");
    assert!(items.contains(&"⋯ 10 calls deep".to_string()), "{items:?}");
    assert!(items.contains(&"+40 contexts".to_string()), "{items:?}");
    let before = drawn(ctx);
    let open = |label: &str| {
        ctx.js(&format!(
            "(function () {{ var g = Array.from(document.querySelectorAll('svg.al-tree .al-item')).find(function (g) {{ return g.querySelector('text').textContent === '{label}'; }});
                g.dispatchEvent(new MouseEvent('click', {{bubbles: true, cancelable: true}})); return true; }})()"
        ))
    };
    open("⋯ 10 calls deep");
    assert_eq!(drawn(ctx), before + 9);
    open("+40 contexts");
    assert_eq!(drawn(ctx), before + 9 + 39);
    // In a box narrower and lower than the tree, keeping a class scrolls
    // the box to the context that creates it.
    ctx.js("(function () { var w = document.getElementById('al-tree-wrap'); w.style.width = '260px'; w.style.flex = 'none'; w.style.maxHeight = '140px'; w.scrollLeft = 0; w.scrollTop = 0; return true; })()");
    let leaf_in_view = "(function () { var w = document.getElementById('al-tree-wrap').getBoundingClientRect();
        var g = Array.from(document.querySelectorAll('svg.al-tree .al-item')).find(function (g) { return g.querySelector('text').textContent === 'leaf'; });
        var b = g.querySelector('rect').getBoundingClientRect();
        return b.left >= w.left && b.right <= w.right && b.top >= w.top && b.bottom <= w.bottom; })()";
    assert_eq!(
        ctx.js(leaf_in_view),
        json!(false),
        "the tree is wider than the box"
    );
    row_event(ctx, "Big", "click");
    assert_eq!(
        ctx.js(leaf_in_view),
        json!(true),
        "the context creating Big is in view"
    );
    row_event(ctx, "Big", "click");
    ctx.js("(function () { var w = document.getElementById('al-tree-wrap'); w.style.width = ''; w.style.flex = ''; w.style.maxHeight = ''; return true; })()");
    let names = ctx.js("Array.from(document.querySelectorAll('.al-name')).map(function (n) { return n.textContent; })");
    assert!(names.as_array().unwrap().contains(&json!(EVIL)), "{names}");
    let rows = popup_rows(ctx, "small3", 0);
    assert_eq!(rows[0][0], json!(format!("● {EVIL}")));
    // The input has no lines: no line column.
    assert_eq!(rows[0][3], Value::Null);
    assert_eq!(ctx.js("window.__pwned === undefined"), json!(true));
    ctx.screenshot("62-allocation-expanded");
}
