//! Browser step for the path from an answer to the code, on a real
//! captured history (`tests/fixtures/bundle-move`: node `--cpu-prof`
//! profiles of four releases of a small library and the git history they
//! were built from; 1.2.0 rewrites `tokenize` with a `RegExp` per
//! character, see its capture.sh). From the index's first finding a
//! reader reaches the changed lines in one click (the root cause's method
//! section shows its diff) and its source line in two. Beside it, a crawl
//! of the whole site: every link resolves, no page kind is a dead end
//! (each page links to a page other than the index), and no page is over
//! 1 MB. Each page kind's weight and load time are written to the
//! artifacts (`page-weights.txt`), not asserted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::Ctx;

/// Builds the captured history with its repository; the site is kept
/// beside the main one (the last step checks every file requested).
fn build_history(ctx: &Ctx) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundle-move");
    let work = ctx.site.parent().unwrap().join("answer");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let repo = crate::common::clone_bundle(&fixture.join("history.bundle"), &work.join("repo"));
    let site = work.join("site");
    let out = crate::common::build(&fixture, &site, &["--repo", repo.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    site
}

pub fn step_answer_to_code(ctx: &Ctx) {
    let site = build_history(ctx);
    // 1.2.0's source diff: the changed file the profiles ran first, with
    // its share; the files they never ran after it, in the repository's
    // order.
    let diff = std::fs::read_to_string(site.join("diffs/1.2.0.html")).unwrap();
    let list = &diff[diff.find("<ul class=\"pa-files\">").unwrap()..];
    let files: Vec<&str> = list[..list.find("</ul>").unwrap()]
        .split("<li><a href=\"#f")
        .skip(1)
        .filter_map(|p| p.split_once("\">")?.1.split("</a>").next())
        .collect();
    assert_eq!(
        files,
        [
            "src/tokenize.js",
            "lib/textkit.esm.js",
            "lib/textkit.esm.js.map",
            "package.json"
        ],
        "{list}"
    );
    ctx.open(&site.join("index.html"));
    ctx.screenshot("answer-1-index");
    // Click 1: the root cause's name, to its method's section.
    let cause = ctx.js(
        "(function () { var a = document.querySelector('#regressions .pa-cause-line a.pa-home');
            return a ? [a.textContent, a.getAttribute('href')] : null; })()",
    );
    assert_eq!(cause[0], "tokenize", "{cause}");
    ctx.tab
        .find_element("#regressions .pa-cause-line a.pa-home")
        .expect("root cause link")
        .click()
        .expect("click");
    // It lands on the responsible version's part of the method's section.
    ctx.wait_js(
        "document.readyState === 'complete' && location.hash === '#m-tokenize%23v-1.2.0' && document.getElementById('m-tokenize#v-1.2.0') !== null",
        "the section of tokenize in 1.2.0",
    );
    let landed = ctx.js(
        "(function () { var v = document.getElementById('m-tokenize#v-1.2.0'), b = v.getBoundingClientRect();
            var diff = v.querySelector('.pa-diff pre');
            return [Math.round(b.top), innerHeight, v.querySelector('h3').textContent,
                    diff ? diff.textContent : null]; })()",
    );
    let top = landed[0].as_f64().unwrap();
    assert!(
        (0.0..landed[1].as_f64().unwrap() / 2.0).contains(&top),
        "the section is not at the top of the window: {landed}"
    );
    // The changed lines are on that section already: 1.2.0's diff of
    // tokenize, with the RegExp built per character.
    let diff = landed[3].as_str().unwrap_or_default();
    assert!(
        diff.contains("+    const letter = new RegExp('[a-z0-9]');"),
        "the responsible version's diff is not in the section: {landed}"
    );
    ctx.screenshot("answer-2-method-section");
    // Click 2: the source of tokenize in 1.2.0, at its costly line.
    let source = ctx.js_str(
        "document.getElementById('m-tokenize#v-1.2.0').querySelector('a.pa-src').getAttribute('href')",
    );
    assert!(
        source.contains("source/1.2.0/src/tokenize.js.html#L"),
        "{source}"
    );
    let selector = "[id='m-tokenize#v-1.2.0'] a.pa-src";
    ctx.tab
        .find_element(selector)
        .expect("source link")
        .click()
        .expect("click");
    ctx.wait_js(
        "location.pathname.endsWith('/source/1.2.0/src/tokenize.js.html') && location.hash.startsWith('#L')",
        "the source page of tokenize.js in 1.2.0",
    );
    let line = ctx.js(
        "(function () { var l = document.getElementById(location.hash.slice(1));
            return l ? [l.textContent, Math.round(l.getBoundingClientRect().top), innerHeight] : null; })()",
    );
    // It lands on the line V8's positionTicks give most of tokenize's own
    // time: the RegExp built per character, which is the regression.
    assert!(
        line[0]
            .as_str()
            .is_some_and(|t| t.contains("const letter = new RegExp('[a-z0-9]');")),
        "the link does not land on tokenize's costly line: {line}"
    );
    let y = line[1].as_f64().unwrap();
    assert!(
        (0.0..line[2].as_f64().unwrap()).contains(&y),
        "the line is off screen: {line}"
    );
    ctx.screenshot("answer-3-source-line");
    crawl(ctx, &site);
}

/// The crawl below on a site built elsewhere (`PERFATLAS_CRAWL_SITE=DIR`),
/// for a history kept outside the repository (the note's page weights
/// and times per kind); nothing without the variable.
pub fn step_crawl_given_site(ctx: &Ctx) {
    if let Some(site) = std::env::var_os("PERFATLAS_CRAWL_SITE") {
        crawl(ctx, Path::new(&site));
    }
}

/// Every page: its links resolve (files and fragments), it links onward,
/// it is under 1 MB. One page per kind is loaded in the browser and timed.
fn crawl(ctx: &Ctx, site: &Path) {
    let pages = html_files(site);
    let ids: BTreeMap<PathBuf, BTreeSet<String>> = pages
        .iter()
        .map(|p| (p.clone(), ids_of(&std::fs::read_to_string(p).unwrap())))
        .collect();
    let mut problems = Vec::new();
    let mut weights: BTreeMap<String, (u64, PathBuf)> = BTreeMap::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let rel = page
            .strip_prefix(site)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let size = std::fs::metadata(page).unwrap().len();
        if size > 1_000_000 {
            problems.push(format!("{rel}: {size} bytes, over 1 MB"));
        }
        let kind = rel.split('/').next().unwrap_or("").to_string();
        let entry = weights.entry(kind).or_insert((0, page.clone()));
        if size > entry.0 {
            *entry = (size, page.clone());
        }
        let mut onward = false;
        for href in hrefs(&text) {
            let (file, fragment) = href.split_once('#').unwrap_or((&href, ""));
            let file = file.split_once('?').map_or(file, |(f, _)| f);
            if file.is_empty() && fragment.is_empty() {
                continue;
            }
            let target = if file.is_empty() {
                page.clone()
            } else {
                normalize(&page.parent().unwrap().join(file))
            };
            let Some(target_ids) = ids.get(&target) else {
                if !target.exists() {
                    problems.push(format!("{rel}: broken link {href}"));
                }
                continue;
            };
            if !fragment.is_empty() && !fragment.contains('=') {
                let id = fragment.replace("%23", "#");
                if !target_ids.contains(&id) {
                    problems.push(format!("{rel}: no element #{id} for {href}"));
                }
            }
            onward |= target != *page && target != site.join("index.html");
        }
        if !onward {
            problems.push(format!(
                "{rel}: a dead end (links to no page but the index)"
            ));
        }
    }
    let mut report = String::from("kind\tlargest page\tbytes\tinteractive ms\n");
    for (kind, (size, page)) in &weights {
        ctx.open(page);
        // The browser's own count: navigation start to the page's scripts
        // having run (DOMContentLoaded handled).
        let ms = ctx
            .js("performance.timing.domContentLoadedEventEnd - performance.timing.navigationStart")
            .as_i64()
            .unwrap_or(-1);
        let rel = page.strip_prefix(site).unwrap().display();
        report.push_str(&format!("{kind}\t{rel}\t{size}\t{ms}\n"));
    }
    std::fs::write(ctx.artifacts.join("page-weights.txt"), &report).unwrap();
    println!("{report}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn html_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `..` and `.` taken out, without touching the disk.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The `href`s of links to pages (not scripts, styles or other schemes).
fn hrefs(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in html.split("href=\"").skip(1) {
        let Some(end) = part.find('"') else { continue };
        let href = unescape(&part[..end]);
        let external = href.contains("://") || href.starts_with("mailto:");
        let asset = href.ends_with(".css") || href.ends_with(".js") || href.ends_with(".svg");
        if !external && !asset {
            out.push(href);
        }
    }
    out
}

fn ids_of(html: &str) -> BTreeSet<String> {
    html.split(" id=\"")
        .skip(1)
        .filter_map(|p| p.find('"').map(|e| unescape(&p[..e])))
        .collect()
}

/// The text of an attribute as the templates escape it.
fn unescape(s: &str) -> String {
    s.replace("&#x2F;", "/")
        .replace("&#x27;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}
