//! Line costs of V8 profiles (issue 43): a source page puts a function's
//! own time on the lines V8's `positionTicks` give, the line Chrome
//! DevTools' Sources panel shows hottest, and a function's code links land
//! on its hottest line, not on the line where it starts. Expected lines
//! are read from the raw profiles with serde_json alone.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::build;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// The positionTicks of `profile`, summed by line over the nodes whose
/// call frame `keep` accepts (url, function), as DevTools sums them.
fn ticks_by_line(profile: &Path, keep: &dyn Fn(&str, &str) -> bool) -> BTreeMap<u32, f64> {
    let raw: serde_json::Value = serde_json::from_slice(&fs::read(profile).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    for node in raw["nodes"].as_array().unwrap() {
        let frame = &node["callFrame"];
        let (url, function) = (frame["url"].as_str(), frame["functionName"].as_str());
        if !keep(url.unwrap_or(""), function.unwrap_or("")) {
            continue;
        }
        for t in node["positionTicks"].as_array().into_iter().flatten() {
            *out.entry(t["line"].as_u64().unwrap() as u32).or_default() +=
                t["ticks"].as_f64().unwrap();
        }
    }
    out
}

/// The line with the most.
fn hottest(by_line: &BTreeMap<u32, f64>) -> u32 {
    let max = by_line.values().cloned().fold(0.0, f64::max);
    *by_line.iter().find(|(_, &v)| v == max).unwrap().0
}

/// (line, self share in percent, code) of each row of a source page with
/// costs, from its first benchmark's "self / total" cell.
fn rows(html: &str) -> Vec<(u32, f64, String)> {
    html.split("<tr id=\"L")
        .skip(1)
        .filter_map(|row| {
            let row = &row[..row.find("</tr>")?];
            let line = row[..row.find('"')?].parse().ok()?;
            let cell = row.split("class=\"pa-cost\"").nth(1)?;
            let text = &cell[cell.find('>')? + 1..cell.find("</td>")?];
            let self_share = text.split('%').next()?.trim().parse().ok()?;
            let code = row.rsplit("<td>").next()?.split("</td>").next()?;
            Some((line, self_share, common::html_text(code)))
        })
        .collect()
}

/// The row with the largest self share.
fn hottest_row(html: &str) -> (u32, f64, String) {
    rows(html)
        .into_iter()
        .fold(None, |best: Option<(u32, f64, String)>, r| match best {
            Some(b) if b.1 >= r.1 => Some(b),
            _ => Some(r),
        })
        .expect("a row with costs")
}

/// The source links to a line that a profile page gives the frames of
/// `function` (frames standing for a whole function, in bottom-up and
/// flat shapes, link to the file).
fn links_of(page: &str, function: &str) -> Vec<String> {
    let open = "id=\"pa-views\">";
    let start = page.find(open).unwrap() + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    let views: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
    let mut links: Vec<String> = views["tree"]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| views["names"][f[0].as_u64().unwrap() as usize] == function)
        .map(|f| &views["links"][f[1].as_u64().unwrap() as usize][0])
        .filter_map(|l| l.as_str().filter(|l| l.contains("#L")).map(str::to_string))
        .collect();
    links.sort();
    links.dedup();
    links
}

/// tests/fixtures/line-ticks: node 20's `--cpu-prof` on a program whose
/// `checksum` (starting on line 6) spends its time on line 10.
#[test]
fn the_source_page_and_code_links_show_the_line_devtools_shows() {
    let input = fixture("line-ticks/input");
    let profile = input.join("1.0.0/checksum.1.cpuprofile");
    let in_file = |url: &str, _: &str| url.ends_with("/checksum.js");
    let devtools = ticks_by_line(&profile, &in_file);
    let line = hottest(&devtools);
    let checksum = ticks_by_line(&profile, &|url, f| in_file(url, f) && f == "checksum");
    assert_eq!(
        hottest(&checksum),
        line,
        "checksum holds the file's hottest line"
    );
    assert_eq!(
        (line, checksum[&line], checksum.values().sum::<f64>()),
        (10, 741.0, 748.0)
    );

    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("site");
    let sources = fixture("line-ticks/src");
    let out = build(&input, &site, &["--sources", sources.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = fs::read_to_string(site.join("source/1.0.0/checksum.js.html")).unwrap();
    let (row, share, code) = hottest_row(&page);
    assert_eq!(row, line, "{code}");
    assert!(
        code.contains("sum = (sum * 31 + data[i]) % 1000003;"),
        "{code}"
    );
    assert!(share > 80.0, "{share}");
    // The function's first line keeps its total, not its own time.
    let start = rows(&page).into_iter().find(|r| r.0 == 6).unwrap();
    assert_eq!(start.1, 0.0, "{}", start.2);

    let profile_page = fs::read_to_string(site.join("profiles/checksum/1.0.0/r1.html")).unwrap();
    assert_eq!(
        links_of(&profile_page, "checksum"),
        [format!("../../../source/1.0.0/checksum.js.html#L{line}")]
    );
}

/// tests/fixtures/bundle-move: textkit 1.2.0 runs from an esbuild bundle
/// with a source map, and its `tokenize` makes a regular expression for
/// every character. The bundle's hottest line (by its positionTicks over
/// the three runs) is that statement; through the map, the source page of
/// src/tokenize.js shows it as its hottest row, and tokenize links there.
/// In the minified bundle (one line, no column in positionTicks) the
/// lines say nothing: tokenize's own time stays on its first line.
#[test]
fn bundle_lines_land_on_their_sources_through_the_map() {
    let tmp = tempfile::tempdir().unwrap();
    for (dir, minified) in [("bundle-move", false), ("bundle-move-minified", true)] {
        let input = fixture(dir);
        let repo = tmp.path().join(format!("{dir}-repo"));
        let cloned = std::process::Command::new("git")
            .args(["clone", "-q"])
            .arg(input.join("history.bundle"))
            .arg(&repo)
            .status()
            .unwrap();
        assert!(cloned.success());
        let mut in_bundle = BTreeMap::new();
        for run in 1..=3 {
            let profile = input.join(format!("1.2.0/bench.{run}.cpuprofile"));
            let keep = |url: &str, _: &str| url.ends_with("/lib/textkit.esm.js");
            for (line, ticks) in ticks_by_line(&profile, &keep) {
                *in_bundle.entry(line).or_insert(0.0) += ticks;
            }
        }
        let bundle = std::process::Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["show", "v1.2.0:lib/textkit.esm.js"])
            .output()
            .unwrap();
        let bundle = String::from_utf8(bundle.stdout).unwrap();
        let hot_statement = bundle
            .lines()
            .nth(hottest(&in_bundle) as usize - 1)
            .unwrap();

        let site = tmp.path().join(format!("{dir}-site"));
        let out = build(&input, &site, &["--repo", repo.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let page = fs::read_to_string(site.join("source/1.2.0/src/tokenize.js.html")).unwrap();
        let (row, _, code) = hottest_row(&page);
        let profile_page = fs::read_to_string(site.join("profiles/bench/1.2.0/all.html")).unwrap();
        let links = links_of(&profile_page, "tokenize");
        if minified {
            assert_eq!(
                in_bundle.keys().collect::<Vec<_>>(),
                [&1],
                "all code is on line 1"
            );
            assert!(hot_statement.contains("function c(n){"), "{hot_statement}");
            assert!(
                code.contains("export function tokenize(text) {"),
                "{dir}: {code}"
            );
            assert_eq!(links, ["../../../source/1.2.0/src/tokenize.js.html#L6"]);
        } else {
            // esbuild writes the source's quotes as double quotes.
            let same =
                |a: &str, b: &str| a.trim().replace('\'', "\"") == b.trim().replace('\'', "\"");
            assert!(same(&code, hot_statement), "{code} | {hot_statement}");
            assert!(code.contains("new RegExp("), "{code}");
            assert_eq!(
                links,
                [format!("../../../source/1.2.0/src/tokenize.js.html#L{row}")]
            );
        }
    }
}
