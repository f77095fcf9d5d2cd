//! The pages a build writes for the evolution matrix, allocations and
//! profiles of real inputs: methods changed in git, class pages, heap and
//! JFR allocation classes, a cProfile file (part of `tests/cli.rs`).

use super::*;

/// The matrix data embedded in a matrix page.
fn matrix_data(page: &[u8]) -> serde_json::Value {
    let text = String::from_utf8_lossy(page);
    let start = text
        .find("id=\"pa-matrix-data\">")
        .expect("matrix data element")
        + "id=\"pa-matrix-data\">".len();
    let end = start + text[start..].find("</script>").unwrap();
    common::matrix_rows_written_out(
        serde_json::from_str(&text[start..end]).expect("matrix data is JSON"),
    )
}

/// `[mean, modified]` of a matrix cell (absent: None).
fn cell(c: &serde_json::Value) -> Option<(f64, u64)> {
    match c {
        serde_json::Value::Array(a) => Some((a[0].as_f64()?, a[4].as_u64()?)),
        n if n.as_f64() == Some(0.0) => None,
        n => Some((n.as_f64()?, 0)),
    }
}

#[test]
fn matrix_marks_methods_changed_in_git_and_says_when_it_cannot() {
    let dir = tempfile::tempdir().unwrap();
    // The sample data plus a version 3.8 that has no tag in the history.
    let input = dir.path().join("data");
    for entry in walkdir::WalkDir::new(sample_data()) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(sample_data()).unwrap();
        let to = input.join(rel);
        if entry.file_type().is_dir() {
            fs::create_dir_all(&to).unwrap();
        } else {
            fs::copy(entry.path(), &to).unwrap();
        }
    }
    fs::create_dir_all(input.join("3.8")).unwrap();
    fs::copy(
        input.join("3.7/convert-basic.1.folded"),
        input.join("3.8/convert-basic.1.folded"),
    )
    .unwrap();
    let repo = dir.path().join("repo");
    let cloned = Command::new("git")
        .args(["clone", "-q"])
        .arg(sample_data().join("history.bundle"))
        .arg(&repo)
        .status()
        .unwrap();
    assert!(cloned.success());
    let out = dir.path().join("site");
    let o = build(&input, &out, &["--repo", repo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tree = read_tree(&out);

    // Python-Markdown 3.6 rewrote how the toc extension renders headings
    // (render_inner_html runs every postprocessor per heading): the
    // matrix shows TocTreeprocessor.run modified there and much slower.
    let data = matrix_data(&tree["matrix/b/convert-extensions/index.html"]);
    let labels: Vec<&str> = data["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["label"].as_str().unwrap())
        .collect();
    let v36 = labels.iter().position(|l| *l == "3.6").unwrap();
    let row = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["n"] == "TocTreeprocessor.run")
        .expect("a row for TocTreeprocessor.run");
    let (before, _) = cell(&row["c"][v36 - 1]).unwrap();
    let (after, modified) = cell(&row["c"][v36]).unwrap();
    assert_eq!(modified, 1, "TocTreeprocessor.run is modified in 3.6");
    assert!(after > 2.0 * before, "{before} → {after}");
    let new_helper = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["n"] == "render_inner_html")
        .expect("render_inner_html row");
    assert_eq!(cell(&new_helper["c"][v36 - 1]), None, "absent before 3.6");
    assert_eq!(cell(&new_helper["c"][v36]).unwrap().1, 1);
    // Its popup carries the source diff, and the full diff page exists.
    let has_diff =
        data["diffs"].as_object().unwrap().iter().any(|(k, d)| {
            k.ends_with(&format!(":{v36}")) && d["file"] == "markdown/extensions/toc.py"
        });
    assert!(has_diff);
    let diff_page = String::from_utf8_lossy(&tree["diffs/3.6.html"]).into_owned();
    assert!(diff_page.contains("markdown/extensions/toc.py"));
    assert!(diff_page.contains("def render_inner_html(el: etree.Element, md: Markdown) -&gt; str:"));

    // 3.8 has no tag: no change data, and the page says why.
    let matrix = String::from_utf8_lossy(&tree["matrix/b/convert-basic/index.html"]).into_owned();
    assert!(
        matrix.contains("3.8: no change data: version 3.8 has no revision"),
        "header note for 3.8"
    );
    let basic = matrix_data(&tree["matrix/b/convert-basic/index.html"]);
    assert_eq!(basic["versions"][6]["known"], false);
    assert_eq!(basic["versions"][5]["known"], true);
}

/// The matrix's methods are sections of their class's page: one file per
/// class, package and the project, none per method. Every row's link, and
/// every glyph's (the row's link and `#v-<version>`, as the matrix's
/// script makes it), names a section of a page that exists; ids are
/// unique on every component page; each "Save as SVG" selects the graph
/// of its own section; a class's page shows the class, then lists its
/// methods, then has a section for each, with its source diffs.
#[test]
fn matrix_methods_are_sections_of_their_class_page() {
    let dir = tempfile::tempdir().unwrap();
    let repo = common::clone_sample_history(dir.path());
    let out = dir.path().join("site");
    let o = build(&sample_data(), &out, &["--repo", repo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tree = read_tree(&out);
    let text = |p: &str| String::from_utf8_lossy(&tree[p]).into_owned();
    let ids_of = |html: &str| -> Vec<String> {
        html.split(" id=\"")
            .skip(1)
            .map(|r| r[..r.find('"').unwrap()].to_string())
            .collect()
    };
    let components: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("matrix/") && k.contains("/c/") && k.ends_with(".html"))
        .collect();
    let (mut methods, mut graphs) = (0, 0);
    for page in &components {
        let file = page.rsplit('/').next().unwrap();
        assert!(
            ["project-", "pkg-", "class-"]
                .iter()
                .any(|l| file.starts_with(l)),
            "{page}: a page of its own for a method"
        );
        let html = text(page);
        let ids = ids_of(&html);
        let unique: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "{page}: an id twice");
        // The script draws each graph from its version's column of its
        // block's table of callers and callees by version (which readers
        // without it see), or the version has no calls. Sections are the
        // versions the component ran in, each naming its column.
        for block in html.split("<div class=\"pa-mscroll pa-comp-row\">").skip(1) {
            let sections: Vec<&str> = block.split("<section class=\"pa-version").collect();
            let columns = sections[0].matches("<th data-n=\"").count();
            for section in &sections[1..] {
                let column: usize = section
                    .split_once(" data-k=\"")
                    .and_then(|(_, k)| k.split('"').next()?.parse().ok())
                    .expect("a section names its column");
                if section.contains("<div class=\"pa-cg-wrap\"></div>") {
                    assert!(
                        column < columns || section.contains("No calls recorded."),
                        "{page}: column {column} of {columns}"
                    );
                    graphs += 1;
                }
            }
        }
        let Some(first) = html.find("<section class=\"pa-method\"") else {
            assert!(!html.contains("id=\"pa-methods\""), "{page}");
            continue;
        };
        // The class's own versions, the list of its methods, then each.
        let own = html.find(" id=\"v-").unwrap();
        let list = html.find(" id=\"pa-methods\"").unwrap();
        assert!(own < list && list < first, "{page}");
        for section in html[first..]
            .split("<section class=\"pa-method\" id=\"")
            .skip(1)
        {
            let anchor = &section[..section.find('"').unwrap()];
            assert!(anchor.starts_with("m-"), "{page}: {anchor}");
            assert!(
                html[list..first].contains(&format!("<a href=\"#{anchor}\">")),
                "{page}: {anchor} is not in the list of methods"
            );
            methods += 1;
        }
    }
    // One page per component: a benchmark's matrix links the pages of
    // the matrix over all benchmarks.
    assert!(methods > 60, "{methods} method sections");
    assert!(graphs > 100, "{graphs} call graphs");
    // Every row of every matrix, and every glyph of it, leads to its
    // section.
    let matrices: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("matrix/") && k.ends_with("/index.html"))
        .collect();
    assert!(matrices.len() >= 3, "{matrices:?}");
    let mut glyphs = 0;
    for matrix in matrices {
        let data = matrix_data(&tree[matrix.as_str()]);
        let root = "../".repeat(matrix.matches('/').count());
        let versions: Vec<&str> = data["versions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["has"] == true)
            .map(|v| v["slug"].as_str().unwrap())
            .collect();
        for row in data["rows"].as_array().unwrap() {
            let Some(href) = row["h"].as_str() else {
                continue;
            };
            let (file, fragment) = href.split_once('#').unwrap_or((href, ""));
            let file = file.strip_prefix(&root).unwrap_or(file);
            let page = text(file);
            // The row's path, where the data leaves it out as the script
            // derives it, is the one its page names.
            let path = row["p"].as_str().unwrap();
            assert!(
                page.contains(&format!(
                    "<p class=\"pa-muted\"><code>{}</code>",
                    common::html_escaped(path)
                )),
                "{matrix}: path {path} of {href}"
            );
            if !fragment.is_empty() {
                assert!(
                    page.contains(&format!("<section class=\"pa-method\" id=\"{fragment}\">")),
                    "{matrix}: {href}"
                );
            }
            for slug in &versions {
                let glyph = format!("{href}#v-{slug}");
                let id = glyph.split_once('#').unwrap().1;
                assert!(
                    page.contains(&format!(" id=\"{id}\"")),
                    "{matrix}: glyph {glyph}"
                );
                glyphs += 1;
            }
        }
    }
    assert!(glyphs > 500, "{glyphs}");
    // TocTreeprocessor.run, modified in 3.6: its section of toc.py's page
    // shows the diff there, and the list of methods says so.
    let data = matrix_data(&tree["matrix/b/convert-extensions/index.html"]);
    let row = data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["n"] == "TocTreeprocessor.run")
        .unwrap();
    let (file, anchor) = row["h"].as_str().unwrap().split_once('#').unwrap();
    assert_eq!(anchor, "m-TocTreeprocessor.run");
    let file = file.strip_prefix("../../../").unwrap();
    assert!(file.contains("/c/class-toc_py-"), "{file}");
    let page = text(file);
    let at = page
        .find(&format!(" id=\"{anchor}#v-3.6\""))
        .expect("a section for 3.6 in the method's");
    let section = &page[at..];
    let section = &section[..section.find("</section>").unwrap()];
    assert!(
        section.contains(
            "<span class=\"pa-tag\">modified</span> <code>markdown/extensions/toc.py</code>"
        ),
        "{section}"
    );
    assert!(section.contains("<span class=\"pa-dl add\">"));
    assert!(page.contains(&format!(
        "<tr><td><a href=\"#{anchor}\">TocTreeprocessor.run</a></td>"
    )));
    let listed = &page[page.find("id=\"pa-methods\"").unwrap()..];
    let listed = &listed[listed.find(&format!("<a href=\"#{anchor}\">")).unwrap()..];
    let listed = &listed[..listed.find("</tr>").unwrap()];
    assert!(listed.contains("3.6"), "{listed}");
    // The version labels over the method's glyphs are the page's own
    // (which lead to the class's sections), copied there by the script,
    // which points them at the method's (the browser test checks).
    assert!(page.contains("href=\"#v-3.6\""));
    let method = &page[page
        .find(&format!("<section class=\"pa-method\" id=\"{anchor}\">"))
        .unwrap()..];
    assert!(method.contains("<div class=\"pa-mhead\" hidden></div>"));
}

/// A V8 heap profile as node 20 writes it (tests/fixtures/heapprofile, a
/// real capture): 6 of its 439 samples (243,696 bytes) name node 74, which
/// V8 created after it wrote the tree (ids end at 73). Those samples are
/// counted on the profile's pages, on the allocation page and in the
/// build's summary, and the input is not skipped: exit code 0.
#[test]
fn heap_profile_samples_past_the_tree_are_noted_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heapprofile/alloc.heapprofile");
    fs::copy(fixture, input.join("1.0/alloc.heapprofile")).unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("skipped"), "{err}");
    let note = "6 samples (238 KiB) name nodes that V8 created after it wrote the call tree \
                (allocations sampled while it wrote the profile): they are not placed, and no \
                figure counts them.";
    assert!(
        err.contains(&format!("perfatlas: note: 1.0/alloc.heapprofile: {note}\n")),
        "{err}"
    );
    let tree = read_tree(&out);
    let text = |path: &str| String::from_utf8_lossy(&tree[path]).into_owned();
    // The profile's page (every shape and metric) says it.
    let profile_pages: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("profiles/alloc/1.0/") && k.ends_with(".html"))
        .collect();
    assert_eq!(profile_pages.len(), 1, "{profile_pages:?}");
    for page in profile_pages {
        assert!(
            text(page).contains(&format!(
                "<dt>note</dt><dd class=\"pa-input-note\">{note}</dd>"
            )),
            "{page}"
        );
    }
    assert!(text("alloc/alloc/1.0.html").contains(&format!(
        "<p class=\"pa-note pa-input-note\">1.0/alloc.heapprofile: {note}</p>"
    )));
    // The index lists no skipped input.
    assert!(!text("index.html").contains("alloc.heapprofile: "));
}

/// The class list of an allocation page, top to bottom.
fn class_list(page: &str) -> Vec<String> {
    page.split("<span class=\"al-name\">")
        .skip(1)
        .map(|s| s.split('<').next().unwrap().to_string())
        .collect()
}

/// JFR's `jdk.ObjectAllocationSample` events weigh each sample by the bytes
/// it stands for: the class list (and the class colours) follow the
/// weights, as JFR's own tools rank classes, not the sample counts. The
/// order is computed here from the `jfr print --json` output itself
/// (tests/fixtures/jfr/alloc.json.gz): `shapes.Box` (49 samples, 335 MB)
/// comes first and `shapes.Circle` (57 samples, the most, but 15.6 MB)
/// fifth.
#[test]
fn jfr_allocation_classes_are_ranked_by_sampled_weight() {
    use std::io::Read;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jfr/alloc.json.gz");
    let mut json = String::new();
    flate2::read::GzDecoder::new(fs::File::open(&fixture).unwrap())
        .read_to_string(&mut json)
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let mut by_class: std::collections::BTreeMap<String, (u64, f64)> = Default::default();
    for e in v["recording"]["events"].as_array().unwrap() {
        let name = e["values"]["objectClass"]["name"].as_str().unwrap();
        // As Java writes the names: `[B` is `byte[]`, `[Lx;` is `x[]`.
        let shown = match name.strip_prefix('[') {
            Some("B") => "byte[]".to_string(),
            Some(l) => format!("{}[]", l.trim_start_matches('L').trim_end_matches(';')),
            None => name.to_string(),
        }
        .replace('/', ".");
        let slot = by_class.entry(shown).or_default();
        slot.0 += 1;
        slot.1 += e["values"]["weight"].as_f64().unwrap();
    }
    let mut want: Vec<(String, (u64, f64))> = by_class.into_iter().collect();
    want.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1).then_with(|| a.0.cmp(&b.0)));
    let want: Vec<String> = want.into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        want,
        [
            "shapes.Box",
            "byte[]",
            "java.lang.String",
            "java.util.concurrent.ConcurrentHashMap$Node[]",
            "shapes.Circle",
            "java.util.concurrent.CopyOnWriteArrayList$COWIterator",
        ]
    );

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    fs::copy(&fixture, input.join("1.0/shapes.json.gz")).unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = fs::read_to_string(out.join("alloc/shapes/1.0.html")).unwrap();
    assert!(
        page.contains("<p class=\"pa-muted al-ranking\">Classes ranked by allocated bytes (sampled weights).</p>"),
        "{page}"
    );
    assert_eq!(class_list(&page), want);
    // The first class gets the palette's first colour (Okabe–Ito orange).
    let first_row = page.split("<tr class=\"al-class\"").nth(1).unwrap();
    assert!(
        first_row.contains("shapes.Box") && first_row.contains("background:#E69F00"),
        "{first_row}"
    );
}

/// A version directory with a cProfile file (`python -m cProfile -o`,
/// CPython 3.11, tests/fixtures/pstats/) builds: the file is read as
/// pstats, not as pprof (which claims binary `.prof` files), and the
/// profile page lists the function with the most own time, `words`, with
/// its file and line.
#[test]
fn a_cprofile_file_builds_and_its_page_lists_the_top_function() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pstats/workload-py311.prof");
    fs::copy(fixture, input.join("1.0/workload.prof")).unwrap();
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("skipped"), "{err}");
    let tree = read_tree(&out);
    let pages: Vec<&String> = tree
        .keys()
        .filter(|k| k.starts_with("profiles/workload/1.0") && k.ends_with(".html"))
        .collect();
    assert!(!pages.is_empty(), "{:?}", tree.keys().collect::<Vec<_>>());
    let page = String::from_utf8_lossy(&tree[pages[0]]).into_owned();
    assert!(page.contains("pstats"), "the format is named");
    assert!(page.contains("words"), "{}", pages[0]);
    assert!(page.contains("workload.py:27"), "{}", pages[0]);
    // The real call counts have a column of the top-down tree table:
    // main calls round_trip 40 times (pstats' print_callers).
    assert!(page.contains(r#"data-col="2">calls</th>"#), "calls column");
    let row = page
        .lines()
        .find(|l| l.contains("round_trip <code>workload.py:33</code>"))
        .expect("round_trip's row");
    assert!(row.ends_with(r#"<td data-v="40">40</td></tr>"#), "{row}");
}

/// A benchmark's matrix links the component pages of the matrix over all
/// benchmarks (one page per component, not one per matrix); each such page
/// shows the component's row in every benchmark's matrix. Rows below the
/// share threshold are data the matrix's script draws, not HTML.
#[test]
fn benchmark_matrices_share_the_component_pages_over_all_benchmarks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let o = build(&sample_data(), &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tree = read_tree(&out);
    let text = |p: &str| String::from_utf8_lossy(&tree[p]).into_owned();
    assert!(
        !tree
            .keys()
            .any(|k| k.starts_with("matrix/b/") && k.contains("/c/")),
        "no component page in a benchmark's matrix"
    );
    for bench in ["convert-basic", "convert-extensions"] {
        let page = format!("matrix/b/{bench}/index.html");
        let data = matrix_data(&tree[page.as_str()]);
        let rows = data["rows"].as_array().unwrap();
        let mut linked = 0;
        for row in rows {
            let Some(href) = row["h"].as_str() else {
                continue;
            };
            let target = href
                .strip_prefix("../../../")
                .unwrap_or_else(|| panic!("{href}"));
            let (file, id) = target.split_once('#').unwrap_or((target, ""));
            assert!(file.starts_with("matrix/all/c/"), "{page}: {href}");
            let html = text(file);
            assert!(
                id.is_empty() || html.contains(&format!(" id=\"{id}\"")),
                "{href}"
            );
            // The component's row in this benchmark's matrix is on it.
            assert!(
                html.contains(&format!(
                    "<a href=\"../../../{page}\">{bench}</a></div><svg class=\"pa-gl\""
                )),
                "{href}: no row of {bench}"
            );
            linked += 1;
        }
        assert!(linked > 20, "{page}: {linked} rows link a component page");
        // Minor rows: in the data with their place, not in the HTML.
        let html = text(&page);
        let minor = rows.iter().filter(|r| r["x"].is_array()).count();
        assert!(minor > 100, "{page}: {minor}");
        assert!(!html.contains("pa-row pa-minor"), "{page}");
        assert!(
            html.contains(&format!("Show the {minor} components below 2%")),
            "{page}"
        );
        assert!(html.contains(&format!(
            "The {minor} components below 2% of every version are drawn by the page's script"
        )));
        assert!(data["glyphs"]["max"].as_f64().unwrap() > 0.0, "{page}");
        // Its timeline pages link the other benchmark's page of the version.
        let other = if bench == "convert-basic" {
            "convert-extensions"
        } else {
            "convert-basic"
        };
        let timeline = text(&format!("matrix/b/{bench}/timeline/3.7.html"));
        assert!(
            timeline.contains(&format!(
                "<a href=\"../../../../matrix/b/{other}/timeline/3.7.html\">{other}</a>"
            )),
            "{bench}: no link to {other}'s timelines"
        );
    }
    // The matrix over all benchmarks has no timelines of its own: its
    // version header links its benchmarks'.
    assert!(!tree.keys().any(|k| k.starts_with("matrix/all/timeline/")));
    let all = text("matrix/all/index.html");
    let linked: Vec<&str> = all
        .match_indices("\" class=\"pa-vh\"")
        .map(|(at, _)| &all[all[..at].rfind("href=\"").unwrap() + 6..at])
        .collect();
    assert_eq!(linked.len(), 6, "{linked:?}");
    for href in linked {
        let target = href.strip_prefix("../../").unwrap();
        assert!(
            target.starts_with("matrix/b/") && tree.contains_key(target),
            "{href}"
        );
    }
}
