//! What inputs cost to read, measured on the binary: a gzip bomb is
//! refused without memory, a stack far past the depth limit is cut and
//! cheap, parallel reads of big files hold about one at a time whatever
//! `-j` says, many distinct names in shallow stacks cost little each, and
//! a zip a killed build left is removed by the next build of the site,
//! `--zip` or not. Peak memory is the child's `VmHWM` (its
//! peak resident set), read from `/proc` while it runs.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_perfatlas");
const MIB: u64 = 1 << 20;

/// Runs `perfatlas ARGS…` to its end: exit code, stderr and peak resident
/// memory in bytes (the last `VmHWM` read before it exited).
fn run_measured(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, u64) {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("PERFATLAS_TEST_PAUSE")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap());
    let (mut peak, deadline) = (0, Instant::now() + Duration::from_secs(600));
    let status = loop {
        if let Some(kib) = vm_hwm_kib(child.id()) {
            peak = peak.max(kib * 1024);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after 10 minutes");
        std::thread::sleep(Duration::from_millis(5));
    };
    (status.code(), reader.join().unwrap(), peak)
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn build_measured(input: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String, u64) {
    run_measured(&common::build_args(input, out, extra))
}

/// A version `1.0` holding `name` with `bytes`.
fn one_file_input(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let input = dir.join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    fs::write(input.join("1.0").join(name), bytes).unwrap();
    input
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

fn skipped_line<'a>(stderr: &'a str, file: &str) -> &'a str {
    let prefix = format!("perfatlas: skipped: {file}: ");
    stderr
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{file} is not reported:\n{stderr}"))
}

#[test]
fn a_gzip_bomb_is_refused_with_its_limit_without_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    // 600 MiB of valid folded lines: one gzip member of 1 MiB, repeated
    // (several members are one gzip stream, as `cat a.gz b.gz` makes).
    let member = gzip(&b"main;run;work;inner_loop 1\n".repeat(MIB as usize / 27 + 1));
    let bomb: Vec<u8> = member.repeat(600);
    assert!(bomb.len() < 10 << 20, "{} bytes on disk", bomb.len());
    let input = one_file_input(dir.path(), "big.folded.gz", &bomb);
    let (code, stderr, peak) = build_measured(&input, &dir.path().join("site"), &[]);
    assert_eq!(code, Some(1), "{stderr}");
    let line = skipped_line(&stderr, "1.0/big.folded.gz");
    assert!(
        line.contains("expands beyond 512 MiB, the limit for compressed data")
            && line.contains("`perfatlas build --gzip-limit MIB` raises it"),
        "{line}"
    );
    // Before: the 600 MiB were expanded in memory, then parsed.
    assert!(peak < 200 * MIB, "{} MiB at the peak", peak / MIB);

    // The flag moves the limit: the same kind of data, 3 MiB of it, is
    // refused under a 2 MiB limit and read without it.
    let small = one_file_input(&dir.path().join("small"), "w.folded.gz", &member.repeat(3));
    let (code, stderr, _) = build_measured(&small, &dir.path().join("s2"), &["--gzip-limit", "2"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(skipped_line(&stderr, "1.0/w.folded.gz").contains("beyond 2 MiB"));
    let (code, stderr, _) = build_measured(&small, &dir.path().join("s3"), &[]);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_stack_past_the_depth_limit_is_cut_with_a_warning_and_stays_cheap() {
    let dir = tempfile::tempdir().unwrap();
    // 300,000 distinct frames in one stack, three times the limit.
    let mut line = (0..300_000)
        .map(|i| format!("f{i}"))
        .collect::<Vec<_>>()
        .join(";");
    line.push_str(" 7\nmain;other 3\n");
    let input = one_file_input(dir.path(), "deep.folded", line.as_bytes());
    let out = dir.path().join("site");
    let (code, stderr, peak) = build_measured(&input, &out, &[]);
    assert_eq!(code, Some(1), "read with a warning:\n{stderr}");
    let warning = skipped_line(&stderr, "1.0/deep.folded");
    assert!(
        warning.contains(
            "stacks deeper than 100,000 frames, the limit, were cut there (at one place)"
        ) && warning.contains("counted in the frame `[frames deeper than 100,000]`"),
        "{warning}"
    );
    let page = fs::read_to_string(out.join("profiles/deep/1.0/r1.html")).unwrap();
    assert!(
        page.contains("[frames deeper than 100,000]"),
        "the cut is shown"
    );
    assert!(!page.contains("f100000<") && !page.contains("\"f200000\""));
    // Nothing lost: the profile's total is all 10 samples.
    assert!(page.contains(">10 samples<"), "the total is whole");
    assert!(peak < 500 * MIB, "{} MiB at the peak", peak / MIB);
}

#[test]
fn many_distinct_names_in_shallow_stacks_cost_little_per_name() {
    let dir = tempfile::tempdir().unwrap();
    // 200,000 distinct functions under 100 workers, each sampled once:
    // a 5 MB file (issue 42: about 500 MiB before, each frame held as
    // key and value of the interner, copied for the parse cache, the
    // shape frames and the matrix; about 300 MiB now).
    let mut text = String::new();
    for i in 0..200_000 {
        text.push_str(&format!("main;worker_{};fn_{i} 1\n", i % 100));
    }
    let input = one_file_input(dir.path(), "cpu.folded", text.as_bytes());
    let out = dir.path().join("site");
    let (code, stderr, peak) = build_measured(&input, &out, &["-j", "2"]);
    assert_eq!(code, Some(0), "{stderr}");
    let page = fs::read_to_string(out.join("profiles/cpu/1.0/r1.html")).unwrap();
    assert!(page.contains(">200,000 samples<"), "the total is whole");
    assert!(peak < 400 * MIB, "{} MiB at the peak", peak / MIB);
}

/// A file of `size` bytes that starts like a cpuprofile and is a hole
/// after (0 bytes on disk): read whole before it can be refused.
fn sparse_profile(path: &Path, size: u64) {
    let mut f = fs::File::create(path).unwrap();
    f.write_all(b"{\"nodes\":[").unwrap();
    f.write_all(&vec![b' '; 70_000]).unwrap();
    f.set_len(size).unwrap();
}

#[test]
fn parallel_reads_of_big_files_hold_about_one_at_a_time_whatever_j_says() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    fs::create_dir_all(input.join("1.0")).unwrap();
    for i in 0..4 {
        sparse_profile(&input.join(format!("1.0/p{i}.cpuprofile")), 600 * MIB);
    }
    let out = dir.path().join("site");
    let (code, stderr, peak) = build_measured(&input, &out, &["-j", "4", "--no-cache"]);
    assert_eq!(code, Some(1), "{stderr}");
    for i in 0..4 {
        assert!(skipped_line(&stderr, &format!("1.0/p{i}.cpuprofile")).contains("unrecognised"));
    }
    // Four at once would hold 2,400 MiB; two of them do not fit the
    // 1 GiB read budget.
    assert!(
        peak < 1100 * MIB,
        "{} MiB at the peak: more than one file read at once",
        peak / MIB
    );
}

/// Starts a build that pauses at `point` (see `instrument::pause`).
fn paused_build(input: &Path, out: &Path, extra: &[&str], point: &str) -> Child {
    let mut child = Command::new(BIN)
        .arg("build")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(extra)
        .env("PERFATLAS_TEST_PAUSE", point)
        .env_remove("PERFATLAS_TEST_RESUME")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let mut said = Vec::new();
    let mut byte = [0u8; 1];
    let wanted = format!("test pause at {point}");
    while !String::from_utf8_lossy(&said).contains(&wanted) {
        let n = std::io::Read::read(&mut stderr, &mut byte).unwrap();
        assert!(
            n > 0,
            "ended before pausing: {}",
            String::from_utf8_lossy(&said)
        );
        said.push(byte[0]);
    }
    child
}

/// Temporary zips beside `zip`.
fn leftovers(zip: &Path) -> Vec<String> {
    let name = zip.file_name().unwrap().to_string_lossy().into_owned();
    let mut left: Vec<String> = fs::read_dir(zip.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.perfatlas-tmp-")))
        .collect();
    left.sort();
    left
}

#[test]
fn a_zip_left_by_a_killed_build_is_removed_by_the_next_build_without_zip() {
    let dir = tempfile::tempdir().unwrap();
    let input = one_file_input(dir.path(), "p.folded", b"main;work 5\nmain 1\n");
    let out = dir.path().join("site");
    let zips = dir.path().join("zips");
    fs::create_dir_all(&zips).unwrap();
    // Killed with the zip written beside its target (before the swap),
    // then with the new site in place and the zip not yet renamed.
    for point in ["swap", "swapped"] {
        let zip = zips.join(format!("{point}.zip"));
        let zip_arg = zip.to_string_lossy().into_owned();
        let mut child = paused_build(&input, &out, &["--zip", &zip_arg], point);
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(
            leftovers(&zip).len(),
            1,
            "{point}: the temporary zip is left"
        );
        // The next build names no zip, or another one.
        let (code, stderr, _) = build_measured(&input, &out, &[]);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(
            leftovers(&zip).is_empty(),
            "{point}: {:?} left",
            leftovers(&zip)
        );
        assert!(
            stderr.contains(&format!(".{point}.zip.perfatlas-tmp-"))
                && stderr.contains("left by a build that was interrupted"),
            "{point}: the removal is said:\n{stderr}"
        );
        assert!(!zip.exists(), "{point}: no zip was completed");
        assert!(!out.join(".perfatlas-zip-pending").exists());
    }
    // A build that completes its zip leaves no note in the site.
    let zip = zips.join("done.zip");
    let (code, stderr, _) = build_measured(&input, &out, &["--zip", zip.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(zip.is_file() && leftovers(&zip).is_empty());
    assert!(!out.join(".perfatlas-zip-pending").exists());
}
