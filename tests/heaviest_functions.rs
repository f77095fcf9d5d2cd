//! A profile page's heaviest functions keep the functions heavy by their
//! total as well as by their own time (issue 39 item 4): on a real
//! cProfile file, every function of `pstats` sorted by cumulative time
//! (`workload-py311.cumulative.txt`, its top 10) has a row, although
//! `main` (95% cumulative) and `<module>` spend almost nothing themselves.

mod common;

use std::fs;
use std::path::Path;

/// (function, cumulative seconds) of each row of a `print_stats` listing,
/// named as perfatlas names them: the function of `file:line(function)`,
/// a built-in as pstats prints it.
fn pstats_rows(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .skip_while(|l| !l.trim_start().starts_with("ncalls"))
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let cumulative: f64 = fields[3].parse().unwrap();
            let place = fields[5..].join(" ");
            let name = match place.strip_prefix('{') {
                Some(_) => place,
                None => {
                    let open = place.rfind('(').unwrap();
                    place[open + 1..place.len() - 1].to_string()
                }
            };
            (name, cumulative)
        })
        .collect()
}

/// (function, self share, total share) of the first heaviest-functions
/// table of a page; names without their `#N` (functions of one name in
/// one file numbered by their start).
fn heaviest_rows(page: &str) -> Vec<(String, f64, f64)> {
    let start = page
        .find("Heaviest functions by self")
        .expect("a heaviest table");
    let table = &page[start..start + page[start..].find("</table>").unwrap()];
    let share = |cell: &str| -> f64 {
        common::html_text(cell)
            .trim_end_matches('%')
            .parse()
            .unwrap()
    };
    table
        .split("<tr><td>")
        .skip(1)
        .map(|row| {
            let cells: Vec<&str> = row.split("</td>").collect();
            let name = common::html_text(cells[0]);
            let name = match name.rsplit_once('#') {
                Some((base, n)) if n.bytes().all(|b| b.is_ascii_digit()) => base.to_string(),
                _ => name,
            };
            (name, share(cells[3]), share(cells[5]))
        })
        .collect()
}

#[test]
fn functions_heavy_by_cumulative_time_have_a_row() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pstats");
    let tmp = tempfile::tempdir().unwrap();
    let version = tmp.path().join("input/1.0");
    fs::create_dir_all(&version).unwrap();
    fs::copy(
        fixtures.join("workload-py311.prof"),
        version.join("workload.prof"),
    )
    .unwrap();
    let site = tmp.path().join("site");
    let out = common::build(&tmp.path().join("input"), &site, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = fs::read_to_string(site.join("profiles/workload/1.0/r1.html")).unwrap();
    let rows = heaviest_rows(&page);
    let listing = fs::read_to_string(fixtures.join("workload-py311.cumulative.txt")).unwrap();
    let by_cumulative = pstats_rows(&listing);
    assert_eq!(by_cumulative.len(), 10);
    for (name, cumulative) in &by_cumulative {
        assert!(
            rows.iter().any(|r| &r.0 == name),
            "{name} ({cumulative} s cumulative) has no row: {rows:?}"
        );
    }
    // main: nearly all of the run below it, almost none of its own.
    let main = rows.iter().find(|r| r.0 == "main").unwrap();
    assert!(main.2 > 90.0 && main.1 < 1.0, "{main:?}");
    // Still ordered by self time: the heaviest by its own time first.
    let selfs: Vec<f64> = rows.iter().map(|r| r.1).collect();
    assert!(selfs.windows(2).all(|w| w[0] >= w[1]), "{selfs:?}");
    assert_eq!(rows[0].0, "words");
}

/// A Firefox Profiler processed profile (the profiler's version-17 upgrade
/// fixture) built as a version directory: the profile page's heaviest
/// function is the native frame the raw JSON gives most self samples —
/// `0x100000f84` of the `firefox` library, 2 samples in each of the two
/// threads whose resource is `firefox`, 4 of the file's 21 at 1 ms.
#[test]
fn a_firefox_profile_page_shows_its_hottest_function() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/firefox-profiler/processed-17a.json");
    let tmp = tempfile::tempdir().unwrap();
    let version = tmp.path().join("input/1.0");
    fs::create_dir_all(&version).unwrap();
    fs::copy(&fixture, version.join("processed-17a.json")).unwrap();
    let site = tmp.path().join("site");
    common::build_ok(&tmp.path().join("input"), &site, &[]);
    let page = fs::read_to_string(site.join("profiles/processed-17a/1.0/r1.html")).unwrap();
    let rows = heaviest_rows(&page);
    assert_eq!(rows[0].0, "0x100000f84");
    assert!((rows[0].1 - 19.05).abs() < 0.01, "{rows:?}");
    assert!(page.contains("frobnicate"));
}
