//! Digests: a version folder holding only its `.padigest` builds exactly
//! the site its raw files build, byte for byte, on the sample histories
//! (with and without `--repo`) and on the marked history as its release
//! scripts wrote it (notes, an out-of-order sample); and a digest that
//! cannot be trusted is skipped with its reason, never half read.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::{perfatlas, read_tree};

/// Digests every version folder of `input` into a new input directory of
/// the same name under `into` (`NAME/VERSION/VERSION.padigest`; the name
/// is the site's title when no configuration gives one), the
/// configuration copied; `raw` versions are copied as they are instead.
fn digested(input: &Path, into: &Path, raw: &[&str]) -> PathBuf {
    let out = into.join("digests").join(input.file_name().unwrap());
    std::fs::create_dir_all(&out).unwrap();
    for entry in std::fs::read_dir(input).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !path.is_dir() {
            if name == "perfatlas.toml" {
                std::fs::copy(&path, out.join(&name)).unwrap();
            }
            continue;
        }
        let version = out.join(&name);
        std::fs::create_dir_all(&version).unwrap();
        if raw.contains(&name.as_str()) {
            copy_dir(&path, &version);
            continue;
        }
        let file = version.join(format!("{name}.padigest"));
        let done = perfatlas(&[
            OsStr::new("digest"),
            path.as_os_str(),
            OsStr::new("-o"),
            file.as_os_str(),
        ]);
        assert!(
            done.status.code() == Some(0),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Builds `input` into `out` (fresh, no cache): exit code and stderr.
fn build(input: &Path, out: &Path, extra: &[&OsStr]) -> (Option<i32>, String) {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("build"),
        input.as_os_str(),
        OsStr::new("-o"),
        out.as_os_str(),
        OsStr::new("--no-cache"),
    ];
    args.extend(extra);
    let done = perfatlas(&args);
    (
        done.status.code(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
    )
}

/// The raw and the digested history build the same bytes, exit code and
/// messages (paths aside).
fn assert_same_site(raw: &Path, dir: &Path, keep_raw: &[&str], extra: &[&OsStr]) {
    let digests = digested(raw, dir, keep_raw);
    let (a, b) = (dir.join("from-raw"), dir.join("from-digests"));
    let (code_a, err_a) = build(raw, &a, extra);
    let (code_b, err_b) = build(&digests, &b, extra);
    assert_eq!(code_a, code_b, "{err_a}\n---\n{err_b}");
    let mask = |s: &str, input: &Path, out: &Path| {
        s.replace(&input.display().to_string(), "INPUT")
            .replace(&out.display().to_string(), "OUT")
    };
    assert_eq!(mask(&err_a, raw, &a), mask(&err_b, &digests, &b));
    let (site_a, site_b) = (read_tree(&a), read_tree(&b));
    assert!(site_a.len() > 10);
    let differ: Vec<&String> = site_a
        .keys()
        .chain(site_b.keys())
        .filter(|k| site_a.get(*k) != site_b.get(*k))
        .collect();
    assert!(differ.is_empty(), "pages that differ: {differ:?}");
}

#[test]
fn the_python_markdown_history_from_digests_is_the_same_site_with_and_without_repo() {
    let dir = tempfile::tempdir().unwrap();
    let data = common::sample_data();
    assert_same_site(&data, &dir.path().join("plain"), &[], &[]);
    let repo = common::clone_sample_history(dir.path());
    assert_same_site(
        &data,
        &dir.path().join("repo"),
        &[],
        &[OsStr::new("--repo"), repo.as_os_str()],
    );
    // Some versions as digests, the others raw (an archive that keeps
    // old releases as digests and the newest as files).
    assert_same_site(&data, &dir.path().join("mixed"), &["3.6", "3.7"], &[]);
}

#[test]
fn moment_and_the_marked_release_history_from_digests_are_the_same_sites() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert_same_site(
        &root.join("sample-data/moment"),
        &dir.path().join("moment"),
        &[],
        &[],
    );
    // version.toml files with keys perfatlas does not read, RFC 3339
    // dates, cpu-N repetitions and a sample out of time order: the notes
    // and the exit code come from the digests as from the files.
    assert_same_site(
        &root.join("tests/data/first-contact"),
        &dir.path().join("marked"),
        &[],
        &[],
    );
}

#[test]
fn field_executions_and_allocation_profiles_from_digests_are_the_same_sites() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Coverage and properties of 13 real executions (field/), and JFR and
    // heap allocation profiles.
    for (example, name) in [("field-example", "field"), ("alloc-example", "alloc")] {
        assert_same_site(
            &root.join("sample-data").join(example).join("report"),
            &dir.path().join(name),
            &[],
            &[],
        );
    }
}

#[test]
fn a_digest_that_cannot_be_trusted_is_skipped_with_its_reason() {
    let dir = tempfile::tempdir().unwrap();
    let digests = digested(&common::sample_data(), dir.path(), &[]);
    let file = digests.join("3.7/3.7.padigest");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let (code, stderr) = build(&digests, &dir.path().join("site"), &[]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "3.7/3.7.padigest: its checksum does not match: the file is damaged or cut short"
        ),
        "{stderr}"
    );
    // Cut short, and not a digest at all.
    std::fs::write(&file, &bytes[..20]).unwrap();
    let (_, stderr) = build(&digests, &dir.path().join("site2"), &[]);
    assert!(
        stderr.contains("3.7/3.7.padigest: cut short in its header"),
        "{stderr}"
    );
    std::fs::write(&file, b"main 1\n").unwrap();
    let (_, stderr) = build(&digests, &dir.path().join("site3"), &[]);
    assert!(
        stderr.contains("3.7/3.7.padigest: not a perfatlas digest"),
        "{stderr}"
    );
    // Written by another perfatlas: said, not misread.
    let mut other = std::fs::read(digests.join("3.6/3.6.padigest")).unwrap();
    other[13] ^= 1;
    std::fs::write(&file, &other).unwrap();
    let (_, stderr) = build(&digests, &dir.path().join("site4"), &[]);
    assert!(
        stderr.contains(
            "which reads only its own digests: write the digest again from the raw files"
        ),
        "{stderr}"
    );
    // Beside raw files, a digest is not read (a version holds one or the
    // other) and the raw files are.
    std::fs::write(&file, &bytes).unwrap();
    std::fs::copy(
        common::sample_data().join("3.7/timings.1.json"),
        digests.join("3.7/timings.1.json"),
    )
    .unwrap();
    let (code, stderr) = build(&digests, &dir.path().join("site5"), &[]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("3.7/3.7.padigest: a digest beside other input files is not read"),
        "{stderr}"
    );
}

#[test]
fn digest_wants_its_extension_and_keeps_unreadable_inputs_as_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let version = common::sample_data().join("3.7");
    let run = |out: &Path, from: &Path| {
        let done = perfatlas(&[
            OsStr::new("digest"),
            from.as_os_str(),
            OsStr::new("-o"),
            out.as_os_str(),
        ]);
        (
            done.status.code(),
            String::from_utf8_lossy(&done.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&dir.path().join("3.7.zip"), &version);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("a digest's name ends in .padigest"),
        "{stderr}"
    );
    let version_dir = dir.path().join("in/1.0");
    std::fs::create_dir_all(&version_dir).unwrap();
    std::fs::write(version_dir.join("x.folded"), "main 1\n").unwrap();
    // An unreadable input is kept as skipped, and the digest says so.
    std::fs::write(version_dir.join("y.cpuprofile"), "{\"nodes\": [").unwrap();
    let out = dir.path().join("1.0.padigest");
    let (code, stderr) = run(&out, &version_dir);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("2 files (1 could not be read"), "{stderr}");
    assert!(out.is_file());
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
