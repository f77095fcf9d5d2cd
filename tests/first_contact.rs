//! Issue 20's first contact, from the command line: a history as other
//! people's scripts write it (version.toml keys of their own, RFC 3339
//! dates, runs named `cpu-1`…`cpu-3`, V8 samples out of time order) builds
//! with exit 0, every version's date and revision, notes kept apart from
//! what was skipped; and progress only on a terminal.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

use common::build;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small history: `v1` and `v2`, each with runs `cpu-1` and `cpu-2` of
/// folded stacks and a `version.toml` as a release script writes it.
fn scripted_history(dir: &Path, date_v2: &str) -> PathBuf {
    let input = dir.join("in");
    for (v, date) in [("v1", "\"2024-04-19T05:13:02Z\""), ("v2", date_v2)] {
        fs::create_dir_all(input.join(v)).unwrap();
        for run in 1..=2 {
            fs::write(
                input.join(format!("{v}/cpu-{run}.folded")),
                "main;parse 7\nmain 3\n",
            )
            .unwrap();
        }
        fs::write(
            input.join(format!("{v}/version.toml")),
            format!(
                "# written by release.sh\ntag = \"{v}\"\nnode_version = \"v20.11.1\"\ndate = {date}\nrevision = \"rev-{v}\"\n\n[build]\nnpm = \"10.2.4\"\n"
            ),
        )
        .unwrap();
    }
    input
}

/// tests/data/first-contact: marked 4.0.0, 9.0.0 and 12.0.0 captured by
/// its capture.sh with node --cpu-prof and hyperfine, files exactly as
/// they wrote them (see its README).
fn marked_history() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/first-contact")
}

#[test]
fn a_history_captured_by_someone_else_s_scripts_builds_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let o = build(&marked_history(), &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("skipped"), "{err}");
    // V8 wrote one sample out of time order (its README): a note.
    assert!(
        err.contains(
            "perfatlas: note: 12.0.0/cpu-3.cpuprofile: $.timeDeltas: 1 sample(s) go back in time;"
        ),
        "{err}"
    );
    // The same remark on every version.toml: one line naming the folders.
    assert!(
        err.contains(
            "perfatlas: note: 3 files named version.toml (4.0.0, 9.0.0, 12.0.0): line 2: 4 keys perfatlas does not read"
        ),
        "{err}"
    );
    assert!(
        err.ends_with(&format!(
            "perfatlas: 0 regressions and 2 improvements found; open {}\n",
            std::path::absolute(out.join("index.html"))
                .unwrap()
                .display()
        )),
        "{err}"
    );
    for v in ["4.0.0", "9.0.0", "12.0.0"] {
        // cpu-1…cpu-3: three repetitions of `cpu`, views of the version's
        // aggregate page.
        let aggregate = std::fs::read_to_string(out.join(format!("profiles/cpu/{v}/all.html")))
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        for r in 1..=3 {
            assert!(
                aggregate.contains(&format!("class=\"pa-rep-views\" data-rep=\"r{r}\"")),
                "{v} r{r}"
            );
        }
    }
    assert!(!out.join("profiles/cpu-1").exists());
    // Every version's day and revision, in release order, as the fixture's
    // README lists them.
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    // No literal Markdown: names in backticks in notes and verdicts are
    // shown as code.
    assert!(
        !common::html_text(&index).contains('`'),
        "a backtick on the index"
    );
    assert!(index.contains("<code>[regressions] min_change</code>"));
    let at = |fact: &str| {
        index
            .find(fact)
            .unwrap_or_else(|| panic!("{fact} not on the index"))
    };
    let rows = [
        at("<td>2021-11-02</td><td><code>v4.0.0</code>"),
        at("<td>2023-09-09</td><td><code>v9.0.0</code>"),
        at("<td>2024-02-03</td><td><code>v12.0.0</code>"),
    ];
    assert!(
        rows.windows(2).all(|w| w[0] < w[1]),
        "versions in release order"
    );
    // Three version.toml files, the sample out of time order, and the
    // bundle's same-named functions (marked's `Lexer.lex` and `lex`):
    // each numbered, and the note says why.
    assert!(
        index.contains("5 notes</a>"),
        "the summary counts the notes"
    );
    assert!(
        index.contains("numbered in the order they start, on every page: <code>code#1</code>, <code>code#2</code>"),
        "the numbered functions are explained"
    );
    assert!(!index.contains("problem"), "nothing is listed as a problem");
    // The first lines say what the newest version did.
    assert!(
        index.contains("<strong>Newest version:</strong> marked 12.0.0 against marked 9.0.0, 2 benchmarks measured in both:"),
        "a summary of the newest version"
    );
    // Each benchmark's history at a glance: a line through the mean of
    // each of the three versions, next to the newest verdict.
    let table = &index[at("class=\"pa-table pa-index-series\"")..];
    let row = &table[table
        .find("<th scope=\"row\"><a href=\"benchmarks/cpu.html\">cpu</a>")
        .expect("a row for cpu")..];
    let points = row
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(points.split(' ').count(), 3, "{points}");
    assert!(
        row.contains("newest: "),
        "the line's title gives the newest verdict"
    );
    // The notes are listed apart, with file, place and text.
    let notes = &index[at("id=\"notes\"")..];
    assert!(
        notes.contains("<code>12.0.0/cpu-3.cpuprofile</code>"),
        "{notes}"
    );
}

#[test]
fn a_release_script_s_version_toml_keeps_its_date_and_revision_and_is_noted() {
    let dir = tempfile::tempdir().unwrap();
    let input = scripted_history(dir.path(), "2024-05-02");
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("skipped"), "{err}");
    assert!(
        err.contains(
            "perfatlas: note: v1/version.toml: line 2: 3 keys perfatlas does not read, kept in the file only: `tag` (line 2), `node_version` (line 3), `build` (line 7); perfatlas reads label, date, revision\n"
        ),
        "{err}"
    );
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    for fact in [
        "2024-04-19",
        "2024-05-02",
        "rev-v1",
        "rev-v2",
        "id=\"notes\"",
        "2 notes</a>",
    ] {
        assert!(index.contains(fact), "{fact} not on the index");
    }
    // `cpu-1` and `cpu-2` are two runs of `cpu`, not two benchmarks.
    let aggregate = fs::read_to_string(out.join("profiles/cpu/v2/all.html")).unwrap();
    assert!(aggregate.contains("class=\"pa-rep-views\" data-rep=\"r2\""));
    assert!(!out.join("profiles/cpu-1").exists());
    // --strict fails on skipped inputs only: notes are not problems.
    let o = build(&input, &out, &["--strict"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn a_date_that_cannot_be_read_is_skipped_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = scripted_history(dir.path(), "\"last Tuesday\"");
    let out = dir.path().join("site");
    let o = build(&input, &out, &[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "perfatlas: skipped: v2/version.toml: line 4: `date` \"last Tuesday\" is not a date"
        ),
        "{err}"
    );
    // The revision of the same file is still read.
    let index = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("rev-v2"));
    assert_eq!(build(&input, &out, &["--strict"]).status.code(), Some(2));
}

#[test]
fn progress_is_shown_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let input = scripted_history(dir.path(), "2024-05-02");
    let out = dir.path().join("site");
    // A pipe, as in CI logs: the same lines as without progress.
    let err = stderr(&build(&input, &out, &[]));
    assert!(
        !err.contains("reading inputs") && !err.contains('\r'),
        "{err}"
    );
    assert!(err.contains("perfatlas: wrote "), "{err}");
    let quiet = build(&input, &out, &["--quiet"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(
        stderr(&quiet),
        "",
        "--quiet prints nothing when nothing went wrong"
    );

    // A terminal, through util-linux's `script` (Debian: bsdutils).
    let Ok(script) = which("script") else {
        eprintln!("no `script` command: the terminal half is not run");
        return;
    };
    let on_terminal = |extra: &str| {
        let command = format!(
            "{} build {} -o {} {extra}",
            env!("CARGO_BIN_EXE_perfatlas"),
            input.display(),
            out.display()
        );
        let o = Command::new(&script)
            .args(["-qec", &command, "/dev/null"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let shown = on_terminal("");
    for stage in ["reading inputs", "rendering pages", "perfatlas: wrote "] {
        assert!(shown.contains(stage), "{stage:?} not in {shown:?}");
    }
    let quiet = on_terminal("--quiet");
    assert!(
        !quiet.contains("reading inputs") && !quiet.contains("wrote"),
        "{quiet:?}"
    );
}

fn which(program: &str) -> Result<PathBuf, ()> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .ok_or(())
}

/// Every HTML page of a site: (path, path inside the site, text).
fn html_pages(site: &Path) -> Vec<(PathBuf, String, String)> {
    walkdir::WalkDir::new(site)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
        .map(|p| {
            let rel = p.strip_prefix(site).unwrap().to_string_lossy().into_owned();
            let text = fs::read_to_string(&p).unwrap();
            (p, rel, text)
        })
        .collect()
}

/// The `href` of every link in `html`, in order.
fn hrefs(html: &str) -> impl Iterator<Item = &str> {
    html.split("href=\"")
        .skip(1)
        .map(|h| &h[..h.find('"').unwrap()])
}

/// `href`, from the page at `page`, names a file of the site and, when it
/// has a fragment that is not a view (`#metric=…`), an id in that file.
fn assert_resolves(page: &Path, href: &str, what: &str) {
    let (file, fragment) = href.split_once('#').unwrap_or((href, ""));
    let file = file.split_once('?').map_or(file, |(f, _)| f);
    let target = match file {
        "" => page.to_path_buf(),
        f => page.parent().unwrap().join(f),
    };
    let text =
        fs::read_to_string(&target).unwrap_or_else(|_| panic!("{what} {href} leads nowhere"));
    if !fragment.is_empty() && !fragment.contains('=') {
        assert!(
            text.contains(&format!("id=\"{fragment}\"")),
            "{what} {href}: no such id"
        );
    }
}

/// The breadcrumbs of `page`: (label, href) of every part after the site
/// title, href empty for plain text.
fn crumbs(page: &str) -> Vec<(String, String)> {
    let Some(start) = page.find("<nav class=\"pa-crumbs\">") else {
        return Vec::new();
    };
    let nav = &page[start..start + page[start..].find("</nav>").unwrap()];
    nav.split(" › ")
        .skip(1)
        .map(|part| {
            let href = part
                .split_once("href=\"")
                .map(|(_, rest)| rest[..rest.find('"').unwrap()].to_string())
                .unwrap_or_default();
            let mut label = String::new();
            let mut in_tag = false;
            for c in part.chars() {
                match c {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    c if !in_tag => label.push(c),
                    _ => {}
                }
            }
            (label, href)
        })
        .collect()
}

#[test]
fn every_breadcrumb_but_the_page_itself_is_a_link_that_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let repo = common::clone_sample_history(dir.path());
    let out = dir.path().join("site");
    let o = build(
        &common::sample_data(),
        &out,
        &["--repo", repo.to_str().unwrap()],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let mut kinds = std::collections::BTreeSet::new();
    for (path, rel, page) in html_pages(&out) {
        kinds.insert(rel.split('/').next().unwrap().to_string());
        let parts = crumbs(&page);
        for (label, href) in parts.iter().take(parts.len().saturating_sub(1)) {
            assert!(
                !href.is_empty(),
                "{rel}: breadcrumb {label:?} is not a link"
            );
            assert_resolves(&path, href, &format!("{rel}: breadcrumb {label:?}"));
        }
        // Every link of the page's navigation (versions, repetitions,
        // pairs, "…" for versions left out) resolves too.
        for nav in page.split("<nav ").skip(1) {
            for href in hrefs(&nav[..nav.find("</nav>").unwrap()]) {
                assert_resolves(&path, href, &format!("{rel}: navigation link"));
            }
        }
    }
    let gap = fs::read_to_string(out.join("profiles/convert-basic/3.7/all.html")).unwrap();
    assert!(
        gap.contains("<a href=\"../../../index.html#b-convert-basic\" data-plain title=\"the versions left out"),
        "the \"…\" of the version links leads to every version"
    );
    for kind in ["profiles", "flamediff", "matrix", "source", "benchmarks"] {
        assert!(kinds.contains(kind), "no {kind} pages looked at: {kinds:?}");
    }
}

/// The path a reader follows from a regression to the code: the
/// regression page's root-cause function links to its hottest line in
/// the newer version's source, and the differential page of the same
/// pair links its frames to the code too. On the moment history, whose
/// 2.18.0 made date parsing slower in configFromRFC2822 (moment's own
/// changelog and the sample's FINDINGS.md).
#[test]
fn regression_to_diff_to_source_by_links() {
    let dir = tempfile::tempdir().unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/moment");
    let repo = dir.path().join("moment-history");
    let cloned = Command::new("git")
        .args(["clone", "-q"])
        .arg(data.join("history.bundle"))
        .arg(&repo)
        .status()
        .unwrap();
    assert!(cloned.success());
    let out = dir.path().join("site");
    let o = build(&data, &out, &["--repo", repo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = out.join("regressions/cpu/2.17.1--2.18.0.html");
    let html = fs::read_to_string(&page).unwrap();
    // The function's hottest line: where V8's positionTicks (summed over
    // the version's three profiles, as DevTools sums them) put most of its
    // own time.
    let mut ticks: BTreeMap<u64, f64> = BTreeMap::new();
    for run in 1..=3 {
        let profile = fs::read(data.join(format!("2.18.0/cpu.{run}.cpuprofile"))).unwrap();
        let profile: serde_json::Value = serde_json::from_slice(&profile).unwrap();
        for node in profile["nodes"].as_array().unwrap() {
            if node["callFrame"]["functionName"] != "configFromRFC2822" {
                continue;
            }
            for t in node["positionTicks"].as_array().into_iter().flatten() {
                *ticks.entry(t["line"].as_u64().unwrap()).or_default() +=
                    t["ticks"].as_f64().unwrap();
            }
        }
    }
    let most = ticks.values().cloned().fold(0.0, f64::max);
    let hottest = ticks
        .iter()
        .find(|(_, &t)| t == most)
        .unwrap()
        .0
        .to_string();
    // The root cause's row of the functions table: its name links to its
    // method's section of 2.18.0 on the matrix's component page, its file
    // to the function's hottest line.
    let name = "class=\"pa-home\">configFromRFC2822</a></code></td>";
    let at = html.find(name).expect("the root cause is listed");
    let home = html[..at]
        .rsplit_once("href=\"")
        .unwrap()
        .1
        .split('"')
        .next()
        .unwrap();
    assert!(
        home.contains("/c/class-") && home.ends_with("#m-configFromRFC2822%23v-2.18.0"),
        "{home}"
    );
    let row = &html[at..];
    let href = row
        .split_once("href=\"")
        .unwrap()
        .1
        .split('"')
        .next()
        .unwrap();
    let (file, line) = href.split_once("#L").unwrap();
    assert_eq!(line, hottest, "{href}: {ticks:?}");
    let source = fs::read_to_string(page.parent().unwrap().join(file)).unwrap();
    let row_of = |line: &str| {
        let at = source
            .find(&format!("id=\"L{line}\""))
            .expect("the line is on the source page");
        &source[at..at + source[at..].find('\n').unwrap()]
    };
    // Inside the function: its first line comes a little before.
    let start = (1..=80)
        .map(|back| line.parse::<u32>().unwrap() - back)
        .find(|l| row_of(&l.to_string()).contains("function configFromRFC2822"))
        .unwrap_or_else(|| panic!("{href}: {}", row_of(line)));
    assert!(start < line.parse().unwrap());
    // From the code to the file's row of the matrix: its component page.
    // The CPU profiles and the heap profile are measured in different
    // metrics, so there is no matrix over all benchmarks (issue 37: never
    // a sum of CPU samples and allocation samples); cpu's matrix has it.
    assert!(!hrefs(&source).any(|h| h.contains("matrix/all/")));
    let component = hrefs(&source)
        .find(|h| h.contains("matrix/b/cpu/c/"))
        .expect("the source page links the file's component page");
    let source_page = page.parent().unwrap().join(file);
    let component = fs::read_to_string(source_page.parent().unwrap().join(component)).unwrap();
    assert!(component.contains("evolution matrix: cpu"));
    // The chart's points open their version's figures on the benchmark
    // page.
    let point = hrefs(&html)
        .find(|h| h.ends_with("#v-2.18.0"))
        .expect("the 2.18.0 point is a link");
    let (file, id) = point.split_once('#').unwrap();
    let figures = fs::read_to_string(page.parent().unwrap().join(file)).unwrap();
    let row = &figures[figures.find(&format!("<tr id=\"{id}\">")).expect("the row")..];
    // Its version links to what changed in it, and to its profiles.
    assert!(
        row.starts_with(&format!(
            "<tr id=\"{id}\"><td><a href=\"../versions/2.18.0.html\" title=\"what changed in 2.18.0\">2.18.0</a> <a href=\"../profiles/cpu/2.18.0/all.html\""
        )),
        "{}",
        &row[..200]
    );
    // The page links the flame-graph diff of the pair, whose frames link
    // to the code.
    let diff = hrefs(&html)
        .find(|h| h.contains("flamediff/cpu/2.17.1--2.18.0.html"))
        .expect("a link to the flame-graph diff");
    let diff = fs::read_to_string(page.parent().unwrap().join(diff)).unwrap();
    assert!(
        diff.contains("class=\"pa-src\""),
        "the diff links to source"
    );
    // Its tree rows link each function to its method section too: the
    // root cause's row to the section the regression page links.
    let cause_row = diff
        .split("<tr")
        .find(|row| row.contains("] configFromRFC2822 <a"))
        .expect("the root cause has a row in the diff's tree table");
    let method = hrefs(cause_row)
        .find(|h| cause_row.contains(&format!("href=\"{h}\" class=\"pa-method\"")))
        .expect("the row links the function's method section");
    assert_eq!(method, home, "{cause_row}");
    // And back: the pair page links the regression and the matrix.
    assert!(
        diff.contains("<a href=\"../../regressions/cpu/2.17.1--2.18.0.html\" data-plain>regression 2.18.0 of cpu</a>"),
        "the diff links back to the regression"
    );
    assert!(diff.contains("data-plain>evolution matrix of cpu</a>"));
    assert!(
        diff.contains("<a href=\"../../diffs/2.18.0.html\" data-plain>source diff of 2.18.0</a>")
    );
    // One name per file: the source diff gives each file its repository
    // path and the name profile pages use; the component page's changed
    // method names the file as profiles do, the repository path its
    // tooltip (issue 43).
    let sources = fs::read_to_string(out.join("diffs/2.18.0.html")).unwrap();
    let header = sources.split("<h3><code>").nth(1).expect("a changed file");
    let (repo_path, rest) = header.split_once("</code>").unwrap();
    let profiled = rest
        .strip_prefix(" <span class=\"pa-muted\">profiled as <code>")
        .and_then(|r| r.split_once("</code>"))
        .map(|(name, _)| name)
        .unwrap_or_else(|| {
            panic!(
                "the costliest changed file was profiled: {}",
                &header[..200]
            )
        });
    assert!(!profiled.contains("file://"), "{profiled}");
    assert!(
        component.contains(&format!(
            "<code title=\"{repo_path} in the repository\">{profiled}</code>"
        )),
        "the component page names {repo_path} as {profiled}"
    );
}
