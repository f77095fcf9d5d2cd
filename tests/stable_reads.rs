//! A profile being rewritten while builds run (issue 42): a folded file
//! rewritten in whole lines, with pauses, while 20 builds read it. Each
//! build either reads a complete file (every sample) or skips it, saying a
//! program may still be writing it; none publishes part of it.

mod common;

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The lines of the profile: 2,000 stacks, 1 to 2,000 samples each.
fn lines() -> Vec<String> {
    (1..=2000)
        .map(|i| format!("main;parse_{};step_{} {i}\n", i % 97, i % 13))
        .collect()
}

/// Samples in all: 1 + 2 + … + 2,000.
const TOTAL: u64 = 2000 * 2001 / 2;

/// Rewrites `path` again and again, line by line in chunks with short
/// pauses between them, and between rewrites a short or a long pause (so
/// some builds find it complete and settled), until `stop`.
fn rewrite_until(path: &Path, stop: &AtomicBool) {
    let lines = lines();
    for round in 0.. {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut f = std::fs::File::create(path).unwrap();
        for chunk in lines.chunks(250) {
            f.write_all(chunk.concat().as_bytes()).unwrap();
            f.flush().unwrap();
            std::thread::sleep(Duration::from_millis(15));
        }
        drop(f);
        let pause = if round % 3 == 2 { 1500 } else { 30 };
        std::thread::sleep(Duration::from_millis(pause));
    }
}

/// The samples the site's profile page counts for the version ("2,001,000
/// samples"), or `None` when the file was skipped.
fn published_total(site: &Path) -> Option<u64> {
    let page = std::fs::read_to_string(site.join("profiles/cpu/2.0/r1.html")).ok()?;
    let at = page.find("id=\"pa-total\">")? + "id=\"pa-total\">".len();
    let text = &page[at..at + page[at..].find('<')?];
    let number = text.strip_suffix(" samples").unwrap_or(text);
    Some(
        number
            .replace(',', "")
            .parse()
            .unwrap_or_else(|_| panic!("{text}")),
    )
}

#[test]
fn no_build_publishes_part_of_a_file_being_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    std::fs::create_dir_all(input.join("1.0")).unwrap();
    std::fs::create_dir_all(input.join("2.0")).unwrap();
    std::fs::write(input.join("1.0/cpu.folded"), lines().concat()).unwrap();
    let live = input.join("2.0/cpu.folded");
    std::fs::write(&live, lines().concat()).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, live) = (stop.clone(), live.clone());
        std::thread::spawn(move || rewrite_until(&live, &stop))
    };
    let (mut whole, mut skipped) = (0, 0);
    for i in 0..20 {
        let site = dir.path().join(format!("site-{i}"));
        let out = common::build(&input, &site, &["--no-cache"]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(matches!(out.status.code(), Some(0 | 1)), "{stderr}");
        match published_total(&site) {
            None => {
                let pages: Vec<_> = walkdir::WalkDir::new(site.join("profiles"))
                    .into_iter()
                    .filter_map(|e| e.ok())
                    .map(|e| e.path().display().to_string())
                    .collect();
                assert!(
                    stderr.contains("2.0/cpu.folded") && stderr.contains("may still be writing it"),
                    "{stderr}\n{pages:?}"
                );
                skipped += 1;
            }
            Some(total) => {
                assert_eq!(
                    total, TOTAL,
                    "build {i} published part of the file:\n{stderr}"
                );
                whole += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    eprintln!("{whole} builds read the whole file, {skipped} skipped it");
    assert_eq!(whole + skipped, 20);
}

/// Four sparse 2 GB files (0 bytes on disk; issue 42: 2.1 GB of memory
/// each to be called unrecognised) are refused from their first bytes.
#[test]
fn sparse_files_are_refused_without_being_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    for v in ["1.0", "2.0"] {
        std::fs::create_dir_all(input.join(v)).unwrap();
        std::fs::write(input.join(v).join("cpu.folded"), lines().concat()).unwrap();
    }
    for i in 0..4 {
        let f = std::fs::File::create(input.join(format!("2.0/big{i}.cpuprofile"))).unwrap();
        f.set_len(2_000 << 20).unwrap();
    }
    let site = dir.path().join("site");
    let out = std::process::Command::new("prlimit")
        .arg("--as=1500000000")
        .arg(env!("CARGO_BIN_EXE_perfatlas"))
        .arg("build")
        .arg(&input)
        .arg("-o")
        .arg(&site)
        .output();
    let out = match out {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "prlimit (util-linux): {e}"
            );
            return;
        }
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for i in 0..4 {
        assert!(
            stderr.contains(&format!(
                "2.0/big{i}.cpuprofile: unrecognised format: its first 64 KiB are zero bytes"
            )),
            "{stderr}"
        );
    }
    assert!(site.join("profiles/cpu/2.0/r1.html").is_file());
}

/// `version.toml` and field files are read the same way: one being
/// rewritten is skipped with the reason, never half-read.
#[test]
fn a_version_toml_being_rewritten_is_skipped_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    for v in ["1.0", "2.0"] {
        std::fs::create_dir_all(input.join(v)).unwrap();
        std::fs::write(input.join(v).join("cpu.folded"), lines().concat()).unwrap();
    }
    let toml = input.join("2.0/version.toml");
    std::fs::write(&toml, "label = \"two\"\n").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, toml) = (stop.clone(), toml.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::fs::write(&toml, "label = \"two\"\n").unwrap();
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let out = common::build(&input, &dir.path().join("site"), &["--no-cache"]);
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("skipped: 2.0/version.toml: ")
            && stderr.contains("may still be writing it"),
        "{stderr}"
    );
}
