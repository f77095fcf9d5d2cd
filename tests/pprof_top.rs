//! perfatlas's numbers for real pprof files against Go's own reader,
//! `go tool pprof -top -nodecount=20 -sample_index=METRIC FILE`.
//!
//! Inputs: the profiles Go's `runtime/pprof` wrote in
//! `tests/fixtures/pprof/go-demo/` (see the README there) and the corpus
//! file `../shared/corpus/speedscope/pprof/simple.prof` when present.
//! For every metric of every file the test builds the site with the real
//! binary and checks, on the profile page:
//!
//! - the total (`#pa-total`) equals pprof's "of X total";
//! - the "Heaviest functions by self" table agrees with pprof's `flat` and
//!   `cum` columns for every function pprof lists with a non-zero flat
//!   value: same names, same order (equal values may swap), values equal
//!   within the rounding of both printouts;
//! - every function the table lists above pprof's cut-off is in pprof's
//!   list too, so perfatlas has no function pprof does not.
//!
//! pprof groups by function name, perfatlas by (name, file); they agree for
//! Go code, and a name listed twice by perfatlas is reported.
//!
//! `go` comes from Debian's golang-go. When it is missing the test is
//! skipped with a note, except under `CI`, where it fails.

mod common;

use common::pprof_text::*;

use std::path::{Path, PathBuf};

/// Rows perfatlas's table shows (`top_by_self(…, 30)`).
const PAGE_ROWS: usize = 30;
/// Rows asked of pprof.
const NODECOUNT: usize = 20;

/// One input: where it is, the benchmark it becomes, its metrics.
struct Case {
    path: PathBuf,
    /// File name inside the version directory of the test's input.
    name: &'static str,
    benchmark: &'static str,
    metrics: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pprof/go-demo/1.0");
    let mut cases = vec![
        Case {
            path: fixtures.join("demo.cpu.pb.gz"),
            name: "demo.cpu.pb.gz",
            benchmark: "demo",
            metrics: &["samples", "cpu"],
        },
        Case {
            path: fixtures.join("demo-heap.heap.pb.gz"),
            name: "demo-heap.heap.pb.gz",
            benchmark: "demo-heap",
            metrics: &[
                "alloc_objects",
                "alloc_space",
                "inuse_objects",
                "inuse_space",
            ],
        },
    ];
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let simple = corpus.join("speedscope/pprof/simple.prof");
    if simple.is_file() {
        cases.push(Case {
            path: simple,
            name: "simple.prof",
            benchmark: "simple",
            metrics: &["samples", "cpu"],
        });
    } else if std::env::var_os("CI").is_some() {
        panic!("{} is missing in CI", simple.display());
    } else {
        eprintln!("note: ../shared/corpus not found; simple.prof not compared");
    }
    cases
}

#[test]
fn totals_and_heaviest_functions_match_go_tool_pprof_top() {
    if !go_available() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    let version = input.join("1.0");
    std::fs::create_dir_all(&version).unwrap();
    let cases = cases();
    for case in &cases {
        std::fs::copy(&case.path, version.join(case.name))
            .unwrap_or_else(|e| panic!("copy {}: {e}", case.path.display()));
    }
    let site = dir.path().join("site");
    common::build_site(&input, &site);

    let mut problems = Vec::new();
    let mut compared = 0;
    for case in &cases {
        for metric in case.metrics {
            let label = format!("{} {metric}", case.name);
            let page_path = site.join(format!("profiles/{}/1.0/r1.html", case.benchmark));
            let Ok(html) = std::fs::read_to_string(&page_path) else {
                problems.push(format!(
                    "{label}: no page {} (input skipped? see the site's index.html)",
                    page_path.display()
                ));
                continue;
            };
            let top = parse_pprof_top(&run_pprof_top(&case.path, metric, NODECOUNT, dir.path()));
            // The page holds every metric's total and heaviest functions
            // (as HTML: the script shows the one of the view chosen).
            let part = metric_part(&html, metric);
            let total_text = page_total(&html, &part);
            let page = Page {
                total: page_quantity(&total_text),
                total_text,
                rows: parse_page_table(&html, metric),
            };
            let (found, matched) = compare(&label, &page, &top);
            problems.extend(found);
            compared += matched;
        }
    }
    assert!(
        problems.is_empty(),
        "perfatlas and `go tool pprof -top` disagree:\n{}",
        problems.join("\n")
    );
    assert!(compared >= 40, "only {compared} functions compared");
}

/// A value as perfatlas prints it (`with_unit` in `crates/render/src/format.rs`):
/// scaled units with three significant digits, counts and unscaled
/// nanoseconds or bytes with up to two decimals (trailing zeros trimmed).
fn page_quantity(text: &str) -> Quantity {
    let scaled = ["s", "ms", "µs", "KiB", "MiB", "GiB"]
        .iter()
        .any(|unit| text.ends_with(&format!(" {unit}")));
    parse_quantity(text, if scaled { 0 } else { 2 })
}

/// What a profile page shows.
struct Page {
    total: Quantity,
    total_text: String,
    rows: Vec<PageRow>,
}

struct PageRow {
    name: String,
    self_value: Quantity,
    total: Quantity,
}

/// The `data-metric` index of `metric`'s parts of a profile page: that of
/// the section of its heaviest functions.
fn metric_part(html: &str, metric: &str) -> String {
    let heading = format!("<h2>Heaviest functions by self {metric}</h2>");
    let at = html.find(&heading).unwrap_or_else(|| panic!("{heading}"));
    let section = html[..at].rfind("<section").expect("<section");
    let attr = &html[section..at];
    let from = attr.find("data-metric=\"").expect("data-metric") + 13;
    attr[from..from + attr[from..].find('"').unwrap()].to_string()
}

/// The text of the page's total of the metric whose parts are `part`.
fn page_total(html: &str, part: &str) -> String {
    let open = format!("<dd data-metric=\"{part}\" data-id=\"pa-total\"");
    let start = html.find(&open).unwrap_or_else(|| panic!("{open}"));
    let start = start + html[start..].find('>').unwrap() + 1;
    let end = start + html[start..].find("</dd>").expect("</dd>");
    unescape(&html[start..end])
}

/// The rows of `<table class="pa-table pa-heavy">`: name, file, self,
/// self%, total, total%.
fn parse_page_table(html: &str, metric: &str) -> Vec<PageRow> {
    let heading = format!("<h2>Heaviest functions by self {metric}</h2>");
    let at = html.find(&heading).expect("heaviest functions");
    let start = at
        + html[at..]
            .find("<table class=\"pa-table pa-heavy\">")
            .expect("heaviest-functions table");
    let table = &html[start..start + html[start..].find("</table>").expect("</table>")];
    let body = &table[table.find("<tbody>").expect("<tbody>")..];
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            let cells = cells(row);
            assert_eq!(cells.len(), 6, "row with 6 cells: {row}");
            PageRow {
                name: cells[0].clone(),
                self_value: page_quantity(&cells[2]),
                total: page_quantity(&cells[4]),
            }
        })
        .collect()
}

/// The text of each `<td …>…</td>` of a row, tags inside removed.
fn cells(row: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = row;
    while let Some(open) = rest.find("<td") {
        let after = &rest[open..];
        let content = &after[after.find('>').expect("<td …>") + 1..];
        let end = content.find("</td>").expect("</td>");
        let text = content[..end].replace("<code>", "").replace("</code>", "");
        out.push(unescape(&text));
        rest = &content[end..];
    }
    out
}

/// Undoes perfatlas's HTML escaping (`crates/render/src/lib.rs`, `escape_html`).
fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Compares one page with pprof's listing; returns the disagreements and
/// how many functions were compared.
fn compare(label: &str, page: &Page, top: &PprofTop) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    if !agree(page.total, top.total) {
        problems.push(format!(
            "{label}: total {} on the page, pprof {}",
            page.total, top.total
        ));
    }
    // pprof's functions with a flat value, and where the page lists each.
    let listed: Vec<&PprofRow> = top.rows.iter().filter(|r| r.flat.value != 0.0).collect();
    let mut positions = Vec::new();
    for row in &listed {
        let at: Vec<usize> = (0..page.rows.len())
            .filter(|&i| page.rows[i].name == row.name)
            .collect();
        match at[..] {
            [i] => {
                let p = &page.rows[i];
                if !agree(p.self_value, row.flat) || !agree(p.total, row.cum) {
                    problems.push(format!(
                        "{label}: {}: self {} total {} on the page, pprof flat {} cum {}",
                        row.name, p.self_value, p.total, row.flat, row.cum
                    ));
                }
                positions.push((i, row));
            }
            [] => {
                // Equal to the table's last row: cut off among equals.
                let tie_at_cut = page.rows.len() == PAGE_ROWS
                    && agree(page.rows[PAGE_ROWS - 1].self_value, row.flat);
                if !tie_at_cut {
                    problems.push(format!(
                        "{label}: {} (pprof flat {}) is not in the page's table",
                        row.name, row.flat
                    ));
                }
            }
            _ => problems.push(format!(
                "{label}: {} is listed {} times on the page (grouped by file), once by pprof",
                row.name,
                at.len()
            )),
        }
    }
    // Same order, except among values equal within rounding: every pair
    // pprof ranks with clearly different values comes in that order.
    for (k, (at_a, a)) in positions.iter().enumerate() {
        for (at_b, b) in &positions[k + 1..] {
            if at_a > at_b && clearly_above(a.flat, b.flat) {
                problems.push(format!(
                    "{label}: pprof ranks {} above {}, the page below",
                    a.name, b.name
                ));
            }
        }
    }
    // Everything heavier than pprof's cut-off must be in pprof's list.
    let cut = if listed.len() == NODECOUNT {
        Some(listed[NODECOUNT - 1].flat)
    } else {
        top.dropped_at_most
    };
    for p in &page.rows {
        let above_cut = cut.map_or(p.self_value.value > 0.0, |c| clearly_above(p.self_value, c));
        if above_cut && !listed.iter().any(|r| r.name == p.name) {
            problems.push(format!(
                "{label}: {} (self {}) is on the page but not in pprof's top",
                p.name, p.self_value
            ));
        }
    }
    if listed.is_empty() {
        problems.push(format!(
            "{label}: pprof lists no function with a flat value"
        ));
    }
    eprintln!(
        "{label}: total {} = pprof {}; {} of {} functions with flat > 0 compared",
        page.total_text,
        top.total_text,
        positions.len(),
        listed.len()
    );
    (problems, positions.len())
}

#[test]
fn quantities_parse_in_base_units_with_their_rounding() {
    let q = parse_quantity("1770ms", 2);
    assert_eq!((q.value, q.tolerance), (1.77e9, 0.005e6));
    let q = parse_quantity("90.0 ms", 0);
    assert_eq!((q.value, q.tolerance), (90e6, 0.05e6));
    assert_eq!(parse_quantity("2009.95kB", 2).value, 2009.95 * 1024.0);
    assert_eq!(
        parse_quantity("976 MiB", 0).tolerance,
        0.5 * 1024.0 * 1024.0
    );
    let q = page_quantity("1,114");
    assert_eq!((q.value, q.tolerance), (1114.0, 0.005));
    assert_eq!(page_quantity("12.4 MiB").tolerance, 0.05 * 1024.0 * 1024.0);
    assert_eq!(parse_quantity("150 samples", 0).value, 150.0);
    assert!(agree(
        parse_quantity("0.35s", 2),
        parse_quantity("350 ms", 0)
    ));
    assert!(!agree(
        parse_quantity("0.35s", 2),
        parse_quantity("360 ms", 0)
    ));
}

#[test]
fn pprof_top_rows_keep_names_with_spaces_and_drop_inline_marks() {
    let top = parse_pprof_top(
        "Type: alloc_space\n\
         Showing nodes accounting for 1471.94MB, 98.67% of 1491.76MB total\n\
         Dropped 53 nodes (cum <= 7.46MB)\n\
         \x20     flat  flat%   sum%        cum   cum%\n\
         \x20 975.81MB 65.41% 65.41%   975.81MB 65.41%  main.allocate (inline)\n\
         \x20        0     0% 98.67%    40.36MB  2.71%  encoding/json.(*encodeState).marshal\n\
         \x20    0.13MB 0.0084% 98.67%    88.76MB  5.95%  pkg.F[go.shape.int] (partial-inline)\n",
    );
    assert_eq!(top.total.value, 1491.76 * 1024.0 * 1024.0);
    assert_eq!(top.dropped_at_most.unwrap().value, 7.46 * 1024.0 * 1024.0);
    let names: Vec<&str> = top.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "main.allocate",
            "encoding/json.(*encodeState).marshal",
            "pkg.F[go.shape.int]"
        ]
    );
    assert_eq!(top.rows[1].cum.value, 40.36 * 1024.0 * 1024.0);
}
