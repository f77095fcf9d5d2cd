//! Field executions end to end with the real binary: the billing example
//! (figures on the index and the pages), a malformed LCOV line reported
//! with its place, and hostile property values and file paths that must
//! stay text.

mod common;

use std::path::{Path, PathBuf};

use common::build;

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("sample-data/field-example")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_billing_example_builds_with_its_views_and_files() {
    let out_dir = tempfile::tempdir().unwrap();
    let site = out_dir.path().join("site");
    let sources = example();
    let out = build(
        &example().join("report"),
        &site,
        &["--sources", sources.to_str().unwrap()],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let index = read(&site.join("index.html"));
    assert!(index.contains(r#"<a href="field/1.0/index.html">billing 1.0</a>: 36 executions, 8 ended with an exception"#), "{index}");
    let system = read(&site.join("field/1.0/index.html"));
    assert!(system.contains("36 of 36 executions; 8 ended with an exception."));
    // Three named views, each a page; eight files, each a page with its
    // source (found through --sources).
    for view in [
        "view-by_Python_version-",
        "view-failures_without_user_errors-",
        "view-user_u03-",
    ] {
        assert!(system.contains(view), "{view}");
    }
    let files: Vec<String> = std::fs::read_dir(site.join("field/1.0/files"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 8, "{files:?}");
    let dates = files
        .iter()
        .find(|f| f.starts_with("program_billing_dates.py"))
        .unwrap();
    let page = read(&site.join("field/1.0/files").join(dates));
    assert!(page.contains("start = start.replace(year=as_of.year)"));
    // Without KeyError (user errors): 34 executions, 6 failures.
    let view = std::fs::read_dir(site.join("field/1.0"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.to_string_lossy()
                .contains("view-failures_without_user_errors")
        })
        .unwrap();
    let view = read(&view);
    assert!(view.contains("34 of 36 executions matching <code>outcome != KeyError</code>; 6 ended with an exception."), "{}", &view[..2000.min(view.len())]);
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn bad_lines_are_reported_and_markup_stays_text() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    let evil = "<img src=x onerror=alert(1)>";
    write(
        &input.join("1.0/field/run-1.info"),
        &format!("SF:src/{evil}.py\nDA:1,3\nDA:2,0\nDA:oops\nend_of_record\n"),
    );
    write(
        &input.join("1.0/field/run-1.properties"),
        &format!("user.id={evil}\noutcome=</script><script>alert(2)</script>\n"),
    );
    write(
        &input.join("1.0/field/run-2.info"),
        "SF:src/ok.py\nDA:1,1\nend_of_record\n",
    );
    write(
        &input.join("1.0/field/run-2.properties"),
        "outcome=normal\n",
    );
    let site = dir.path().join("site");
    let out = build(&input, &site, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("1.0/field/run-1.info: line 4"), "{stderr}");
    let mut pages = vec![site.join("index.html"), site.join("field/1.0/index.html")];
    pages.extend(
        std::fs::read_dir(site.join("field/1.0/files"))
            .unwrap()
            .map(|e| e.unwrap().path()),
    );
    assert_eq!(pages.len(), 4);
    for page in pages {
        let html = read(&page);
        assert!(!html.contains("<img"), "{}: live <img>", page.display());
        assert!(
            !html.contains("<script>alert"),
            "{}: live script",
            page.display()
        );
        assert_eq!(
            html.matches("<script").count(),
            html.matches("</script>").count()
        );
    }
    let system = read(&site.join("field/1.0/index.html"));
    assert!(
        system.contains("user.id = &lt;img src=x onerror=alert(1)&gt;"),
        "the property is shown as text"
    );
}
