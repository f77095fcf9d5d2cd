//! The `field/` folder: which files make which execution, outcomes, and
//! what is listed as skipped. Coverage files are the real fixtures.

use std::path::Path;

use super::*;
use model::error::Place;

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(dir.join(name), bytes).unwrap();
}

/// The warnings as `file: place: message` lines.
fn said(read: &FieldRead) -> Vec<String> {
    read.warnings
        .iter()
        .map(|(file, e)| format!("{file}: {e}"))
        .collect()
}

#[test]
fn a_field_folder_of_real_runs() {
    let dir = tempfile::tempdir().unwrap();
    let field = dir.path().join("1.0/field");
    std::fs::create_dir_all(&field).unwrap();
    // Two runs of wordstat.py with the properties make-fixtures.sh wrote,
    // one as LCOV, one as Cobertura with JSON properties; a C run with no
    // properties; one whose properties lack the outcome.
    write(&field, "py-ok.info", &fixture("coveragepy-ok.info"));
    write(
        &field,
        "py-ok.properties",
        &fixture("coveragepy-ok.properties"),
    );
    write(&field, "py-fail.xml", &fixture("coveragepy-valueerror.xml"));
    write(
        &field,
        "py-fail.json",
        br#"{"outcome": "ValueError", "os.name": "Linux", "heap_mb": 12.50}"#,
    );
    write(&field, "c-1.info", &fixture("geninfo-ok.info"));
    write(&field, "c-2.info", &fixture("geninfo-spin.info"));
    write(&field, "c-2.properties", b"# no outcome\nuser.id=7\n");
    write(&field, "README.md", b"notes");
    write(&field, ".hidden", b"x");

    let read = read_field_dir(&field, "1.0/field");
    let ids: Vec<&str> = read.executions.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["c-1", "c-2", "py-fail", "py-ok"]);
    assert_eq!(
        said(&read),
        [
            "1.0/field/c-1.info: no properties file (NAME.properties or NAME.json): the execution has no properties and its outcome is taken as normal",
            "1.0/field/c-2.properties: no `outcome` property: the outcome is taken as normal",
        ]
    );
    let [c1, c2, fail, ok] = &read.executions[..] else {
        panic!("four executions")
    };
    assert_eq!((c1.outcome.as_str(), c1.properties.len()), (NORMAL, 0));
    assert_eq!(c1.source, "1.0/field/c-1.info");
    assert_eq!(c1.files.len(), 3);
    assert_eq!(c2.outcome, NORMAL);
    assert_eq!(c2.properties["user.id"], "7");
    assert_eq!(fail.outcome, "ValueError");
    assert_eq!(fail.properties["heap_mb"], "12.50");
    assert_eq!(fail.source, "1.0/field/py-fail.xml");
    assert_eq!(ok.outcome, "normal");
    assert_eq!(ok.properties["args"], "to be or not to be");
    // Line 9 raises the exception: run by the failing execution only.
    let line9 = |e: &Execution| e.files[0].lines.iter().find(|(l, _)| *l == 9).unwrap().1;
    assert_eq!((line9(fail), line9(ok)), (1, 0));
}

#[test]
fn leftovers_conflicts_and_broken_files_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let field = dir.path().join("field");
    std::fs::create_dir_all(field.join("sub")).unwrap();
    let info = fixture("coveragepy-ok.info");
    write(&field, "both.info", &info);
    write(&field, "both.xml", &fixture("coveragepy-ok.xml"));
    write(&field, "both.properties", b"outcome=normal\n");
    write(&field, "both.json", b"{}");
    write(&field, "lonely.properties", b"outcome=KeyError\n");
    write(&field, "notes.txt", b"x");
    write(&field, "broken.info", b"TN:\nDA:1,1\n");
    write(&field, "bad-props.info", &info);
    write(&field, "bad-props.json", b"{\"outcome\": ");
    write(&field, "odd-line.info", &info);
    write(
        &field,
        "odd-line.properties",
        b"outcome = IndexError\nno equals sign\n",
    );
    write(&field, "run.2024-05-01.info", &info);
    write(&field, "run.2024-05-01.properties", b"outcome=\n");
    std::os::unix::fs::symlink("/nonexistent/x.info", field.join("dangling.info")).unwrap();

    let read = read_field_dir(&field, "2.0/field");
    let ids: Vec<&str> = read.executions.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["both", "odd-line", "run.2024-05-01"]);
    assert_eq!(read.executions[0].source, "2.0/field/both.info");
    assert_eq!(read.executions[1].outcome, "IndexError");
    assert_eq!(read.executions[2].outcome, NORMAL);
    assert_eq!(
        said(&read),
        [
            "2.0/field/bad-props.json: line 1: column 12: EOF while parsing a value; execution bad-props is left out",
            "2.0/field/both.json: execution both is read from 2.0/field/both.properties; this file is ignored",
            "2.0/field/both.xml: execution both is read from 2.0/field/both.info; this file is ignored",
            "2.0/field/broken.info: no SF record: not an LCOV tracefile; the first problem: line 2: DA outside a section (no SF before it)",
            "2.0/field/dangling.info: a dangling symbolic link",
            "2.0/field/lonely.properties: properties of execution lonely, which has no coverage file (NAME.info or NAME.xml); ignored",
            "2.0/field/notes.txt: not a field-execution file: expected NAME.info or NAME.xml (coverage), NAME.properties or NAME.json (its properties)",
            "2.0/field/odd-line.properties: line 2: expected key=value, found `no equals sign`",
            "2.0/field/run.2024-05-01.properties: no `outcome` property: the outcome is taken as normal",
            "2.0/field/sub: a folder inside field/ is not read: an execution's files lie directly in field/",
        ]
    );
}

#[test]
fn a_missing_folder_holds_nothing_and_gzip_is_undone() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        read_field_dir(&dir.path().join("field"), "1.0/field"),
        FieldRead::default()
    );
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&fixture("geninfo-ok.info")).unwrap();
    write(dir.path(), "z.info", &gz.finish().unwrap());
    write(dir.path(), "z.properties", b"outcome=normal");
    let read = read_field_dir(dir.path(), "1.0/field");
    assert!(read.warnings.is_empty(), "{:?}", read.warnings);
    assert_eq!(read.executions[0].files.len(), 3);
}

#[test]
fn a_file_that_is_not_a_file_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.info");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here: nothing to check
    }
    let read = read_field_dir(dir.path(), "f");
    assert_eq!(read.warnings.len(), 1);
    assert_eq!(read.warnings[0].0, "f/pipe.info");
    assert_eq!(read.warnings[0].1.place, Place::Whole);
    assert_eq!(read.warnings[0].1.message, "not a regular file");
}
