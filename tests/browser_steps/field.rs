//! Browser step for field executions, on the real data set of
//! `sample-data/field-example` (36 executions of a small billing program
//! measured with coverage.py, 8 failing; the planted bug is
//! `billing/dates.py:25`). Figures are computed here from the LCOV and
//! properties files with a few lines of parsing, independently of
//! perfatlas.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::Ctx;

const BUG_FILE: &str = "program/billing/dates.py";
const BUG_LINE: u32 = 25;

/// The WCAG contrast ratio of two computed colours (`rgb(r, g, b)`).
fn contrast(a: &str, b: &str) -> f64 {
    let luminance = |c: &str| {
        let v: Vec<f64> = c
            .trim_start_matches("rgba(")
            .trim_start_matches("rgb(")
            .trim_end_matches(')')
            .split(',')
            .take(3)
            .map(|x| x.trim().parse::<f64>().unwrap() / 255.0)
            .map(|x| {
                if x <= 0.03928 {
                    x / 12.92
                } else {
                    ((x + 0.055) / 1.055).powf(2.4)
                }
            })
            .collect();
        0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]
    };
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-data/field-example")
}

/// (execution id, failed, {(file, line): count}) for every execution.
type Runs = Vec<(String, bool, BTreeMap<(String, u32), u64>)>;

fn read_runs(field: &Path) -> Runs {
    let mut ids: Vec<String> = std::fs::read_dir(field)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".info").map(str::to_string)
        })
        .collect();
    ids.sort();
    ids.into_iter()
        .map(|id| {
            let props = std::fs::read_to_string(field.join(format!("{id}.properties"))).unwrap();
            let failed = props
                .lines()
                .any(|l| l.starts_with("outcome=") && l != "outcome=normal");
            let mut lines = BTreeMap::new();
            let mut file = String::new();
            for l in std::fs::read_to_string(field.join(format!("{id}.info")))
                .unwrap()
                .lines()
            {
                if let Some(f) = l.strip_prefix("SF:") {
                    file = f.to_string();
                } else if let Some(d) = l.strip_prefix("DA:") {
                    let mut parts = d.split(',');
                    let line: u32 = parts.next().unwrap().parse().unwrap();
                    let count: u64 = parts.next().unwrap().parse().unwrap();
                    *lines.entry((file.clone(), line)).or_insert(0) += count;
                }
            }
            (id, failed, lines)
        })
        .collect()
}

/// The Tarantula hue of a field colour, `hsl(calc(var(--fm-h0) +
/// var(--fm-hk) * HUE),…)`.
fn hue(css: &str) -> Option<f64> {
    css.strip_prefix("hsl(calc(var(--fm-h0) + var(--fm-hk) * ")?
        .split(')')
        .next()?
        .parse()
        .ok()
}

pub fn step_field_pages(ctx: &Ctx) {
    let report = example().join("report");
    let runs = read_runs(&report.join("1.0/field"));
    let failing = runs.iter().filter(|r| r.1).count();
    assert_eq!((runs.len(), failing), (36, 8));
    let site = ctx.site.parent().unwrap().join("field-site");
    let out = crate::common::build(&report, &site, &["--sources", example().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // System level: one band per execution, the failing ones marked.
    ctx.open(&site.join("field/1.0/index.html"));
    let bands = ctx.js("[document.querySelectorAll('.fm-band').length, document.querySelectorAll('.fm-band.fm-failed').length]");
    assert_eq!(bands, serde_json::json!([36, 8]));
    // The script recomputed every tile for all executions: the same cells
    // as the server drew (compare with the page's source).
    let html = std::fs::read_to_string(site.join("field/1.0/index.html")).unwrap();
    let server_cells = html.matches("<rect x=").count();
    let dom_cells = ctx.js("document.querySelectorAll('svg.fm-map .fm-cells rect').length");
    assert_eq!(dom_cells, serde_json::json!(server_cells));
    let tiles = ctx
        .js("document.querySelectorAll('a.fm-tile').length")
        .as_u64()
        .unwrap();
    assert_eq!(tiles, 8, "the billing package has 8 files");
    // Tile names are legible on any tile: at least 11 px, their glyphs
    // and the halo around them far apart in luminance (WCAG ratio ≥ 7).
    let labels = ctx.js(
        "Array.from(document.querySelectorAll('.fm-tile-label')).map(function (t) {
           var s = getComputedStyle(t); return [parseFloat(s.fontSize), s.fill, s.stroke, s.paintOrder]; })",
    );
    let labels = labels.as_array().unwrap();
    assert!(!labels.is_empty());
    for l in labels {
        assert!(l[0].as_f64().unwrap() >= 11.0, "{l}");
        let ratio = contrast(l[1].as_str().unwrap(), l[2].as_str().unwrap());
        assert!(ratio >= 7.0, "text and halo contrast {ratio:.1}: {l}");
        assert!(l[3].as_str().unwrap().starts_with("stroke"), "{l}");
    }
    ctx.screenshot("50-field-system");

    // Select one failing band: only failures selected, so every executed
    // line is red (hue 0) or grey.
    ctx.js("document.querySelector('.fm-band.fm-failed').dispatchEvent(new MouseEvent('click', {bubbles: true})), true");
    let selection = ctx.js_str("document.getElementById('fm-selection').textContent");
    assert!(
        selection.starts_with("1 of 36 executions selected (1 failed)"),
        "{selection}"
    );
    let fills = ctx.js("Array.from(document.querySelectorAll('a.fm-tile .fm-cells rect')).map(function (r) { return r.getAttribute('fill'); })");
    for f in fills.as_array().unwrap() {
        let f = f.as_str().unwrap();
        assert!(
            f == "var(--field-none)" || hue(f).is_some_and(|h| h < 10.1),
            "{f}"
        );
    }
    // A filter selects the executions it matches; a bad one says where.
    ctx.js("document.getElementById('fm-all').click(), true");
    ctx.js("document.getElementById('fm-filter').value = 'user.id = u03 and', document.querySelector('#fm-filter-form button[type=submit]').click(), true");
    let error = ctx.js_str("document.getElementById('fm-filter-error').textContent");
    assert!(error.starts_with("column 18"), "{error}");
    ctx.js("document.getElementById('fm-filter').value = 'user.id = u03', document.querySelector('#fm-filter-form button[type=submit]').click(), true");
    let u03 = runs.iter().filter(|r| {
        std::fs::read_to_string(report.join(format!("1.0/field/{}.properties", r.0)))
            .unwrap()
            .contains("user.id=u03\n")
    });
    let (n, failed) = u03.fold((0, 0), |(n, f), r| (n + 1, f + r.1 as usize));
    let selection = ctx.js_str("document.getElementById('fm-selection').textContent");
    assert!(
        selection.starts_with(&format!("{n} of 36 executions selected ({failed} failed)")),
        "{selection}"
    );
    // Collapse the sub-package into one tile and back.
    let visible = "document.querySelectorAll('a.fm-tile:not(.fm-hidden)').length";
    ctx.js("document.querySelector('.fm-dir-toggle[data-dir=\"program/billing/output\"]').click(), true");
    assert_eq!(ctx.js(visible), serde_json::json!(5));
    ctx.js("document.querySelector('.fm-dir-toggle[data-dir=\"program/billing/output\"]').click(), true");
    assert_eq!(ctx.js(visible), serde_json::json!(8));

    // Statement level: the bug line's statistics and colour.
    let ran: Vec<&(String, bool, _)> = runs
        .iter()
        .filter(|r| {
            r.2.get(&(BUG_FILE.to_string(), BUG_LINE))
                .is_some_and(|c| *c > 0)
        })
        .collect();
    let ran_failed = ran.iter().filter(|r| r.1).count();
    ctx.open(
        &site
            .join("field/1.0/files/program_billing_dates.py-")
            .with_file_name(
                std::fs::read_dir(site.join("field/1.0/files"))
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .find(|n| n.starts_with("program_billing_dates.py"))
                    .unwrap(),
            ),
    );
    let source_left = "document.querySelector('.fm-source').getBoundingClientRect().left";
    let before = ctx.js(source_left).as_f64().unwrap();
    ctx.js(&format!("document.querySelector('.fm-line[data-line=\"{BUG_LINE}\"]').dispatchEvent(new MouseEvent('mouseenter')), true"));
    // Pointing at a line leaves the source where it is.
    assert_eq!(
        ctx.js(source_left).as_f64().unwrap(),
        before,
        "the source pane moved"
    );
    // The colour marker sits left of the line numbers, covering none.
    let clear = ctx.js(&format!(
        "(function () {{ var l = document.querySelector('.fm-line[data-line=\"{BUG_LINE}\"]');
           var marker = parseFloat(getComputedStyle(l).boxShadow.match(/(-?[0-9.]+)px/g)[0]);
           return l.querySelector('.ln').getBoundingClientRect().left - l.getBoundingClientRect().left - marker; }})()"
    ));
    assert!(
        clear.as_f64().unwrap() >= 1.0,
        "marker over the line number: {clear}"
    );
    let stats = ctx.js_str("document.getElementById('fm-stats').textContent");
    assert_eq!(
        stats,
        format!(
            "line {BUG_LINE}: executed by {} of 36 executions; of these, {} ended normally and {ran_failed} with an exception; {} times in all",
            ran.len(),
            ran.len() - ran_failed,
            ran.len()
        )
    );
    // The failing line stands out: the reddest executed line of the file.
    let hues = ctx.js("Array.from(document.querySelectorAll('.fm-line.fm-exec')).map(function (l) { return [+l.getAttribute('data-line'), l.style.getPropertyValue('--line-colour')]; })");
    let mut reddest = (f64::MAX, 0);
    for pair in hues.as_array().unwrap() {
        let h = hue(pair[1].as_str().unwrap()).unwrap_or(f64::MAX);
        if h < reddest.0 {
            reddest = (h, pair[0].as_u64().unwrap());
        }
    }
    assert_eq!(reddest.1, BUG_LINE as u64, "{hues}");
    // The file-level view: hovering it shows the full-size lines there.
    ctx.js(&format!(
        "(function () {{ var m = document.querySelector('svg.fm-mini'), b = m.getBoundingClientRect();
            m.dispatchEvent(new MouseEvent('mousemove', {{clientX: b.left + 5, clientY: b.top + ({BUG_LINE} - 1) * 3 + 1, bubbles: true}})); return true; }})()"
    ));
    let lens = ctx.js_str("document.getElementById('fm-lens').textContent");
    assert!(
        lens.contains("start = start.replace(year=as_of.year)"),
        "{lens}"
    );
    assert_eq!(
        ctx.js(source_left).as_f64().unwrap(),
        before,
        "the lens pushed the source"
    );
    ctx.screenshot("51-field-file");

    // A summarized view: one band per Python version.
    ctx.open(
        &site
            .join("field/1.0/view-by_Python_version-")
            .with_file_name(
                std::fs::read_dir(site.join("field/1.0"))
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .find(|n| n.starts_with("view-by_Python_version"))
                    .unwrap(),
            ),
    );
    let mut versions: Vec<String> = runs
        .iter()
        .map(|r| {
            let props =
                std::fs::read_to_string(report.join(format!("1.0/field/{}.properties", r.0)))
                    .unwrap();
            props
                .lines()
                .find_map(|l| l.strip_prefix("runtime.version="))
                .unwrap()
                .to_string()
        })
        .collect();
    versions.sort();
    versions.dedup();
    assert_eq!(
        ctx.js("document.querySelectorAll('.fm-band').length"),
        serde_json::json!(versions.len())
    );
    let first = ctx.js_str("document.querySelector('.fm-band title').textContent");
    assert!(
        first.contains(&format!("runtime.version = {}", versions[0])),
        "{first}"
    );
}
