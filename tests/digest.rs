//! Digests (archives): a version folder holding only its `.padigest`
//! builds exactly the site its raw files build, byte for byte, on the
//! sample histories (with and without `--repo`) and on the marked history
//! as its release scripts wrote it (notes, an out-of-order sample),
//! whether the archive holds the raw files only (the default), this
//! perfatlas's records too, or records keyed for another perfatlas version
//! (as a later release reads an archive: from the raw files); the default
//! archive is no larger than `tar -czf` of the folder; and an archive
//! that cannot be trusted is skipped with its reason, never half read.

mod common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{perfatlas, read_tree};
use perfatlas::input::digest::{self, RecordsKey};

/// How each version's archive is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    /// `perfatlas digest`: the raw files only.
    Raw,
    /// `perfatlas digest --records`: this perfatlas's records too.
    Records,
    /// `--records`, then the records keyed for perfatlas 99.0.0: what a
    /// later perfatlas meets reading this version's archive.
    ForALaterVersion,
}

/// The records' key of a later perfatlas.
fn later_key() -> RecordsKey {
    RecordsKey {
        perfatlas: "99.0.0".into(),
        ..RecordsKey::this()
    }
}

/// `perfatlas digest VERSION -o FILE`, as `written`; its exit code and
/// stderr.
fn digest_one(version: &Path, file: &Path, written: Written) -> (Option<i32>, String) {
    let mut args = vec![
        OsStr::new("digest"),
        version.as_os_str(),
        OsStr::new("-o"),
        file.as_os_str(),
    ];
    if written != Written::Raw {
        args.push(OsStr::new("--records"));
    }
    let done = perfatlas(&args);
    if written == Written::ForALaterVersion && file.is_file() {
        let bytes = std::fs::read(file).unwrap();
        let rekeyed = digest::rekey(&bytes, &later_key()).unwrap();
        let (key, _) = digest::open(&rekeyed).unwrap().records.unwrap();
        assert_ne!(key, RecordsKey::this());
        std::fs::write(file, rekeyed).unwrap();
    }
    (
        done.status.code(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
    )
}

/// Digests every version folder of `input` into a new input directory of
/// the same name under `into` (`NAME/VERSION/VERSION.padigest`; the name
/// is the site's title when no configuration gives one), the
/// configuration copied; `raw` versions are copied as they are instead.
fn digested(input: &Path, into: &Path, raw: &[&str], written: Written) -> PathBuf {
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
        let (code, stderr) = digest_one(&path, &version.join(format!("{name}.padigest")), written);
        assert!(code == Some(0) || code == Some(1), "{stderr}");
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

/// The raw history and the digested one, for each way of writing the
/// archives, build the same bytes, exit code and messages (paths aside).
fn assert_same_site(raw: &Path, dir: &Path, keep_raw: &[&str], extra: &[&OsStr], ways: &[Written]) {
    let from_raw = dir.join("from-raw");
    let (code_a, err_a) = build(raw, &from_raw, extra);
    let site_a = read_tree(&from_raw);
    assert!(site_a.len() > 10);
    let mask = |s: &str, input: &Path, out: &Path| {
        s.replace(&input.display().to_string(), "INPUT")
            .replace(&out.display().to_string(), "OUT")
    };
    for &written in ways {
        let into = dir.join(format!("{written:?}"));
        let digests = digested(raw, &into, keep_raw, written);
        let out = into.join("site");
        let (code_b, err_b) = build(&digests, &out, extra);
        assert_eq!(code_a, code_b, "{written:?}: {err_a}\n---\n{err_b}");
        assert_eq!(
            mask(&err_a, raw, &from_raw),
            mask(&err_b, &digests, &out),
            "{written:?}"
        );
        let site_b = read_tree(&out);
        let differ: Vec<&String> = site_a
            .keys()
            .chain(site_b.keys())
            .filter(|k| site_a.get(*k) != site_b.get(*k))
            .collect();
        assert!(
            differ.is_empty(),
            "{written:?}: pages that differ: {differ:?}"
        );
    }
}

#[test]
fn the_python_markdown_history_from_digests_is_the_same_site_with_and_without_repo() {
    let dir = tempfile::tempdir().unwrap();
    let data = common::sample_data();
    use Written::*;
    assert_same_site(
        &data,
        &dir.path().join("plain"),
        &[],
        &[],
        &[Raw, Records, ForALaterVersion],
    );
    let repo = common::clone_sample_history(dir.path());
    assert_same_site(
        &data,
        &dir.path().join("repo"),
        &[],
        &[OsStr::new("--repo"), repo.as_os_str()],
        &[Raw],
    );
    // Some versions as digests, the others raw (an archive that keeps
    // old releases as digests and the newest as files).
    assert_same_site(
        &data,
        &dir.path().join("mixed"),
        &["3.6", "3.7"],
        &[],
        &[Raw, Records],
    );
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
        &[Written::Raw, Written::ForALaterVersion],
    );
    // version.toml files with keys perfatlas does not read, RFC 3339
    // dates, cpu-N repetitions and a sample out of time order: the notes
    // and the exit code come from the digests as from the files.
    assert_same_site(
        &root.join("tests/data/first-contact"),
        &dir.path().join("marked"),
        &[],
        &[],
        &[Written::Raw, Written::Records],
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
            &[Written::Raw, Written::Records],
        );
    }
}

/// A history whose versions hold what a build skips or lists without
/// reading: a dangling link, a broken profile, a folder and a stray file
/// in `field/`, a Criterion directory with its by-products, a
/// `version.toml` with a key perfatlas does not read.
fn awkward_history(dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = dir.join("awkward");
    let one = input.join("1.0");
    std::fs::create_dir_all(one.join("field/nested")).unwrap();
    std::fs::write(one.join("a.folded"), "main;parse 3\nmain;render 1\n").unwrap();
    std::fs::write(one.join("b.cpuprofile"), "{\"nodes\": [").unwrap();
    std::fs::write(
        one.join("version.toml"),
        "label = \"one\"\nowner = \"me\"\n",
    )
    .unwrap();
    std::fs::write(one.join("field/stray.txt"), "x").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("nowhere.folded", one.join("gone.folded")).unwrap();
    let two = input.join("2.0");
    std::fs::create_dir_all(&two).unwrap();
    std::fs::write(two.join("a.folded"), "main;parse 5\nmain;render 1\n").unwrap();
    copy_dir(&root.join("tests/fixtures/measurements/criterion"), &{
        let c = two.join("criterion");
        std::fs::create_dir_all(&c).unwrap();
        c
    });
    input
}

#[test]
fn what_a_build_skips_or_leaves_unread_is_the_same_from_digests() {
    let dir = tempfile::tempdir().unwrap();
    let input = awkward_history(dir.path());
    assert_same_site(
        &input,
        dir.path(),
        &[],
        &[],
        &[Written::Raw, Written::Records],
    );
}

/// `tar -czf` of a version folder: its size in bytes.
fn tar_gz_bytes(version: &Path, into: &Path) -> u64 {
    let file = into.join("version.tar.gz");
    let done = Command::new("tar")
        .arg("-czf")
        .arg(&file)
        .arg("-C")
        .arg(version.parent().unwrap())
        .arg(version.file_name().unwrap())
        .status()
        .expect("run tar");
    assert!(done.success());
    std::fs::metadata(&file).unwrap().len()
}

#[test]
fn a_digest_is_no_larger_than_its_folder_gzipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for history in ["python-markdown", "moment"] {
        let (mut gz_total, mut digest_total) = (0, 0);
        for entry in std::fs::read_dir(root.join("sample-data").join(history)).unwrap() {
            let version = entry.unwrap().path();
            if !version.is_dir() {
                continue;
            }
            let file = dir.path().join("v.padigest");
            let (code, stderr) = digest_one(&version, &file, Written::Raw);
            assert_eq!(code, Some(0), "{stderr}");
            let gz = tar_gz_bytes(&version, dir.path());
            let digest = std::fs::metadata(&file).unwrap().len();
            assert!(
                digest <= gz,
                "{}: a {digest}-byte digest, {gz} bytes as tar.gz",
                version.display()
            );
            gz_total += gz;
            digest_total += digest;
        }
        eprintln!("{history}: digests {digest_total} bytes, tar.gz {gz_total} bytes");
        // A third smaller, give or take: brotli's window spans a version.
        assert!(
            digest_total * 10 < gz_total * 9,
            "{digest_total} vs {gz_total}"
        );
    }
}

#[test]
fn a_digest_that_cannot_be_trusted_is_skipped_with_its_reason_and_place() {
    let dir = tempfile::tempdir().unwrap();
    let digests = digested(&common::sample_data(), dir.path(), &[], Written::Raw);
    let file = digests.join("3.7/3.7.padigest");
    let bytes = std::fs::read(&file).unwrap();
    let skipped_as = |content: &[u8], site: &str| {
        std::fs::write(&file, content).unwrap();
        let (code, stderr) = build(&digests, &dir.path().join(site), &[]);
        assert_eq!(code, Some(1), "{stderr}");
        stderr
    };
    let mut damaged = bytes.clone();
    damaged[bytes.len() / 2] ^= 0x40;
    let stderr = skipped_as(&damaged, "damaged");
    assert!(
        stderr.contains("3.7/3.7.padigest: its checksum does not match: the file is damaged"),
        "{stderr}"
    );
    // Cut short (a download that stopped), in its body and in its header.
    let cut = bytes.len() - 100;
    let stderr = skipped_as(&bytes[..cut], "cut");
    assert!(
        stderr.contains(&format!(
            "3.7/3.7.padigest: byte {cut}: cut short: the file ends at byte {cut}, its header says it has {} bytes",
            bytes.len()
        )),
        "{stderr}"
    );
    let stderr = skipped_as(&bytes[..20], "header");
    assert!(
        stderr.contains("3.7/3.7.padigest: byte 20: cut short in its header"),
        "{stderr}"
    );
    let stderr = skipped_as(b"main 1\n", "not");
    assert!(
        stderr.contains("3.7/3.7.padigest: not a perfatlas archive"),
        "{stderr}"
    );
    // A digest of format 1 (parsed records only, by perfatlas 0.1.0).
    let mut old = b"PADIGEST".to_vec();
    old.extend_from_slice(&1u32.to_le_bytes());
    old.extend_from_slice(b"\x050.1.0");
    old.extend_from_slice(&[0; 40]);
    let stderr = skipped_as(&old, "old");
    assert!(
        stderr.contains("3.7/3.7.padigest: a digest of format 1, written by perfatlas 0.1.0")
            && stderr.contains("write it again from the raw files with `perfatlas digest`"),
        "{stderr}"
    );
    // Beside raw files, a digest is not read (a version holds one or the
    // other) and the raw files are.
    std::fs::copy(
        common::sample_data().join("3.7/timings.1.json"),
        digests.join("3.7/timings.1.json"),
    )
    .unwrap();
    let stderr = skipped_as(&bytes, "beside");
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
