//! Faults, run on the real binary: a build killed at any point, two builds
//! crowding one output, a full disk, a file-size limit, a read-only output,
//! an input that changes while it is read, and a bisection interrupted by
//! SIGINT or SIGTERM. Each test checks what a user would: the old site's
//! bytes, the exit code, the message naming the file and the OS error, and
//! that nothing is left beside the output.
//!
//! Builds are stopped at known points with the `PERFATLAS_TEST_PAUSE` hook
//! (see `crates/instrument/src/pause.rs`) rather than with timers. The disk tests mount
//! small tmpfs file systems (we run as root); where mounting is not
//! possible they say why and are skipped, except under `CI=true`, where
//! they fail.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;
use common::sample_data;

const BIN: &str = env!("CARGO_BIN_EXE_perfatlas");

/// Every file of a tree, the build cache and the marker included: relative
/// path → bytes.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(root).unwrap();
            out.insert(
                rel.to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            );
        }
    }
    out
}

/// Asserts two trees hold the same files with the same bytes, naming the
/// first difference.
fn assert_same_tree(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>, what: &str) {
    let got_names: Vec<_> = got.keys().collect();
    let want_names: Vec<_> = want.keys().collect();
    if got_names != want_names {
        let extra: Vec<_> = got
            .keys()
            .filter(|k| !want.contains_key(*k))
            .take(5)
            .collect();
        let missing: Vec<_> = want
            .keys()
            .filter(|k| !got.contains_key(*k))
            .take(5)
            .collect();
        panic!("{what}: files differ; extra {extra:?}, missing {missing:?}");
    }
    for (name, bytes) in want {
        assert!(got[name] == *bytes, "{what}: {name} differs");
    }
}

/// Names of everything perfatlas leaves beside an output while it works:
/// staging directories, old sites, temporary zips, the lock.
fn debris(parent: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".perfatlas-"))
        .collect();
    names.sort();
    names
}

/// A small input: `versions` versions of two folded profiles whose frames
/// depend on `tag`, so two tags give two different sites.
fn tiny_input(dir: &Path, tag: &str, versions: usize) -> PathBuf {
    let input = dir.join(format!("input-{tag}"));
    for v in 1..=versions {
        let version = input.join(format!("1.{v}"));
        std::fs::create_dir_all(&version).unwrap();
        let mut a = String::new();
        for i in 0..20 {
            a.push_str(&format!("main;{tag}_parse;{tag}_step{i} {}\n", 10 + i * v));
        }
        std::fs::write(version.join("parse.folded"), a).unwrap();
        std::fs::write(
            version.join("render.folded"),
            format!(
                "main;{tag}_render;draw {}\nmain;{tag}_render;layout 7\n",
                5 * v
            ),
        )
        .unwrap();
    }
    input
}

/// A build running in the background, its stderr collected as it comes.
struct Running {
    child: Child,
    stderr: Arc<Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Running {
    fn start(mut command: Command) -> Running {
        command.stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = command.spawn().expect("start perfatlas");
        let mut pipe = child.stderr.take().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Running {
            child,
            stderr,
            reader: Some(reader),
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Waits until stderr contains `text`; fails when the process ends
    /// first or two minutes pass.
    fn wait_for(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if self.stderr().contains(text) {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                std::thread::sleep(Duration::from_millis(100));
                if self.stderr().contains(text) {
                    return;
                }
                panic!(
                    "perfatlas ended ({status}) before saying {text:?}; stderr:\n{}",
                    self.stderr()
                );
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("no {text:?} within two minutes; stderr:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits for the end (killing it after `limit`): exit code (`None` when
    /// killed by a signal) and all of stderr.
    fn finish_within(mut self, limit: Duration) -> (Option<i32>, String) {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "perfatlas still ran after {limit:?}; killed; stderr:\n{}",
                    self.stderr()
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
        (status.code(), self.stderr())
    }

    fn finish(self) -> (Option<i32>, String) {
        self.finish_within(Duration::from_secs(300))
    }

    /// SIGKILL, and wait until it is gone (reaped, so its PID is free).
    fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        if let Some(reader) = self.reader.take() {
            reader.join().unwrap();
        }
    }
}

impl Drop for Running {
    /// A test that failed half-way does not leave a paused build behind.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `perfatlas build INPUT -o OUT EXTRA…` with `PERFATLAS_TEST_PAUSE` set
/// to `pause` (when given) and resumed by `resume` appearing.
fn build_command(
    input: &Path,
    out: &Path,
    extra: &[&OsStr],
    pause: Option<&str>,
    resume: Option<&Path>,
) -> Command {
    let mut command = Command::new(BIN);
    command
        .arg("build")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(extra);
    command.env_remove("PERFATLAS_TEST_PAUSE");
    command.env_remove("PERFATLAS_TEST_RESUME");
    if let Some(pause) = pause {
        command.env("PERFATLAS_TEST_PAUSE", pause);
    }
    if let Some(resume) = resume {
        command.env("PERFATLAS_TEST_RESUME", resume);
    }
    command
}

/// Runs a build to its end: exit code and stderr.
fn build(input: &Path, out: &Path, extra: &[&OsStr]) -> (Option<i32>, String) {
    Running::start(build_command(input, out, extra, None, None)).finish()
}

/// Builds and expects success (exit 0, or 1 for the sample data, some of
/// whose inputs are reported as skipped).
fn build_ok(input: &Path, out: &Path) {
    let (code, stderr) = build(input, out, &[]);
    assert!(
        code == Some(0) || code == Some(1),
        "build of {} into {} failed ({code:?}):\n{stderr}",
        input.display(),
        out.display()
    );
}

/// The site a clean build of `input` gives, built in `scratch`.
fn clean_site(input: &Path, scratch: &Path) -> BTreeMap<String, Vec<u8>> {
    let out = scratch.join(format!(
        "clean-{}",
        input.file_name().unwrap().to_string_lossy()
    ));
    if !out.exists() {
        build_ok(input, &out);
    }
    snapshot(&out)
}

/// A PID that no process has: the kernel's `pid_max`, one above the
/// highest PID it hands out (a reaped child's PID could be reused by the
/// time the build looks, on a machine that starts many processes).
fn dead_pid() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(4_194_304)
}

// ---------------------------------------------------------------------------
// Killed builds

/// Kills a rebuild at each pause point and checks what is left: before the
/// swap the old site, byte for byte; after it the complete new site; and
/// after the next build nothing beside the output.
#[test]
fn a_killed_build_keeps_the_old_site_and_the_next_build_removes_its_debris() {
    let dir = tempfile::tempdir().unwrap();
    let old_input = tiny_input(dir.path(), "old", 3);
    let new_input = tiny_input(dir.path(), "new", 4);
    let new_site = clean_site(&new_input, dir.path());
    let parent = dir.path().join("www");
    let out = parent.join("site");
    for phase in ["read", "render", "swap", "swapped"] {
        if out.exists() {
            std::fs::remove_dir_all(&out).unwrap();
        }
        build_ok(&old_input, &out);
        let old_site = snapshot(&out);
        let mut running = Running::start(build_command(&new_input, &out, &[], Some(phase), None));
        running.wait_for(&format!("test pause at {phase}"));
        running.kill9();
        if phase == "swapped" {
            assert_same_tree(&snapshot(&out), &new_site, "killed after the swap");
        } else {
            assert_same_tree(&snapshot(&out), &old_site, &format!("killed at {phase}"));
        }
        let (code, stderr) = build(&new_input, &out, &[]);
        assert_eq!(
            code,
            Some(0),
            "the build after a kill at {phase}:\n{stderr}"
        );
        assert_same_tree(&snapshot(&out), &new_site, "rebuilt");
        assert_eq!(
            debris(&parent),
            Vec::<String>::new(),
            "left beside the output after a kill at {phase} and a rebuild; stderr of the rebuild:\n{stderr}"
        );
    }
}

/// The case: the sample data's rebuild killed while it renders
/// leaves a big staging directory, which the next build removes (and says
/// so).
#[test]
fn a_sample_data_rebuild_killed_while_rendering_is_cleaned_up_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    let old_input = tiny_input(dir.path(), "old", 2);
    build_ok(&old_input, &out);
    let old_site = snapshot(&out);
    let mut running = Running::start(build_command(
        &sample_data(),
        &out,
        &[],
        Some("render"),
        None,
    ));
    running.wait_for("test pause at render");
    let pid = running.pid();
    running.kill9();
    assert_same_tree(&snapshot(&out), &old_site, "killed while rendering");
    let staging = dir.path().join(format!(".site.perfatlas-tmp-{pid}"));
    assert!(staging.is_dir(), "the killed build's staging directory");
    let (code, stderr) = build(&sample_data(), &out, &[]);
    assert!(code == Some(0) || code == Some(1), "{stderr}");
    assert!(
        !staging.exists(),
        "staging directory still there:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!(".site.perfatlas-tmp-{pid}")) && stderr.contains("removed"),
        "the rebuild says what it removed:\n{stderr}"
    );
    assert_eq!(debris(dir.path()), Vec::<String>::new());
    assert!(out.join("index.html").is_file());
}

/// Without the hook: the sample data's rebuild killed after growing
/// delays (fractions of the time a clean build took), so that kills also land where no pause point is (inside the
/// swap, while the old site is deleted). After each kill the output is a
/// whole site, the old one or the new one; after a last build, nothing is
/// left beside it.
#[test]
fn sample_data_rebuilds_killed_at_random_moments_leave_a_whole_site() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean");
    let started = Instant::now();
    build_ok(&sample_data(), &clean);
    let took = started.elapsed();
    let new_site = common::read_tree(&clean);
    let parent = dir.path().join("www");
    let out = parent.join("site");
    let old_input = tiny_input(dir.path(), "old", 2);
    let mut outcomes = Vec::new();
    // Fractions of a clean build's time, denser towards the end, where
    // the site is written and swapped.
    for percent in [10, 40, 70, 85, 92, 96, 99, 102] {
        let delay_ms = (took.as_millis() * percent / 100) as u64;
        build_ok(&old_input, &out);
        let old_site = common::read_tree(&out);
        let mut running = Running::start(build_command(&sample_data(), &out, &[], None, None));
        std::thread::sleep(Duration::from_millis(delay_ms));
        let finished = running.child.try_wait().unwrap().is_some();
        running.kill9();
        let now = common::read_tree(&out);
        let outcome = if now == old_site {
            "old"
        } else if now == new_site {
            "new"
        } else {
            panic!("killed after {delay_ms} ms: the output is neither the old nor the new site")
        };
        outcomes.push(format!(
            "{delay_ms} ms: {outcome}{}",
            if finished { " (had finished)" } else { "" }
        ));
    }
    eprintln!("kills: {}", outcomes.join(", "));
    build_ok(&sample_data(), &out);
    assert!(common::read_tree(&out) == new_site, "the last build's site");
    assert_eq!(debris(&parent), Vec::<String>::new());
}

/// Only perfatlas's own stale staging directories are removed: the name
/// pattern, a dead owner, and the marker (or nothing at all) must be there.
#[test]
fn only_stale_staging_directories_of_perfatlas_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let input = tiny_input(dir.path(), "x", 2);
    let parent = dir.path().join("www");
    std::fs::create_dir_all(&parent).unwrap();
    let out = parent.join("site");
    let dead = dead_pid();
    let alive = std::process::id();
    let make = |name: String, marker: bool| {
        let d = parent.join(name);
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/page.html"), "x").unwrap();
        if marker {
            std::fs::write(d.join(".perfatlas-site"), "marker").unwrap();
        }
        d
    };
    let stale = make(format!(".site.perfatlas-tmp-{dead}"), true);
    let stale_old = make(format!(".site.perfatlas-old-{dead}"), true);
    let no_marker = make(format!(".site.perfatlas-tmp-{dead}0"), false);
    let live_owner = make(format!(".site.perfatlas-tmp-{alive}"), true);
    let other_output = make(format!(".docs.perfatlas-tmp-{dead}"), true);
    let not_a_pid = make(".site.perfatlas-tmp-12x".to_string(), true);
    // Killed between creating its staging directory and the marker.
    let empty = parent.join(format!(".site.perfatlas-tmp-{dead}1"));
    std::fs::create_dir(&empty).unwrap();
    let (code, stderr) = build(&input, &out, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        !empty.exists(),
        "empty stale staging directory kept:\n{stderr}"
    );
    assert!(!stale.exists(), "stale staging directory kept:\n{stderr}");
    assert!(!stale_old.exists(), "stale old site kept:\n{stderr}");
    for kept in [&no_marker, &live_owner, &other_output, &not_a_pid] {
        assert!(
            kept.join("sub/page.html").is_file(),
            "{} was removed",
            kept.display()
        );
    }
}

// ---------------------------------------------------------------------------
// Concurrent builds

#[test]
fn a_second_build_into_the_same_output_fails_at_once_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let first_input = tiny_input(dir.path(), "first", 2);
    let second_input = tiny_input(dir.path(), "second", 3);
    let want = clean_site(&first_input, dir.path());
    let out = dir.path().join("site");
    let resume = dir.path().join("resume");
    let mut first = Running::start(build_command(
        &first_input,
        &out,
        &[],
        Some("render"),
        Some(&resume),
    ));
    first.wait_for("test pause at render");
    let started = Instant::now();
    let (code, stderr) = build(&second_input, &out, &[]);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the second build did not fail at once"
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("another perfatlas build (PID {})", first.pid())),
        "{stderr}"
    );
    assert!(stderr.contains(&out.display().to_string()), "{stderr}");
    assert!(stderr.contains("--wait"), "{stderr}");
    std::fs::write(&resume, "").unwrap();
    let (code, stderr) = first.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_same_tree(&snapshot(&out), &want, "the first build's site");
    assert_eq!(debris(dir.path()), Vec::<String>::new());
}

#[test]
fn with_wait_concurrent_builds_take_turns_and_the_last_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    let first_input = tiny_input(dir.path(), "first", 2);
    let second_input = tiny_input(dir.path(), "second", 3);
    let want = clean_site(&second_input, dir.path());
    let out = dir.path().join("site");
    let resume = dir.path().join("resume");
    let wait: &[&OsStr] = &["--wait".as_ref()];
    let mut first = Running::start(build_command(
        &first_input,
        &out,
        wait,
        Some("swap"),
        Some(&resume),
    ));
    first.wait_for("test pause at swap");
    let mut second = Running::start(build_command(&second_input, &out, wait, None, None));
    second.wait_for(&format!(
        "waiting for another perfatlas build (PID {})",
        first.pid()
    ));
    std::fs::write(&resume, "").unwrap();
    let (code, stderr) = first.finish();
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stderr) = second.finish();
    assert_eq!(code, Some(0), "{stderr}");
    assert_same_tree(&snapshot(&out), &want, "after both builds");
    assert_eq!(debris(dir.path()), Vec::<String>::new());

    // Four at once, without pauses: every one succeeds and the site is one
    // of the clean builds, whole.
    let inputs: Vec<PathBuf> = (0..4)
        .map(|i| tiny_input(dir.path(), &format!("crowd{i}"), 2 + i % 2))
        .collect();
    let sites: Vec<_> = inputs.iter().map(|i| clean_site(i, dir.path())).collect();
    let running: Vec<Running> = inputs
        .iter()
        .map(|i| Running::start(build_command(i, &out, wait, None, None)))
        .collect();
    for r in running {
        let (code, stderr) = r.finish();
        assert_eq!(code, Some(0), "{stderr}");
    }
    let now = snapshot(&out);
    assert!(
        sites.contains(&now),
        "the site after four concurrent builds is none of their clean sites"
    );
    assert_eq!(debris(dir.path()), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// Full disks, file-size limits, read-only outputs

/// A tmpfs mounted for the length of a test, unmounted on drop (also when
/// the test fails).
struct Mount {
    dir: PathBuf,
}

impl Mount {
    fn tmpfs(dir: &Path, size: &str) -> Result<Mount, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Mount {
            dir: dir.to_path_buf(),
        })
    }

    fn read_only(&self) {
        let out = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "remount,ro: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// Skips a test that needs what this machine lacks, saying why; under
/// `CI=true` fails instead.
fn unavailable(why: &str) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{why} (CI=true: not skipped)");
    }
    eprintln!("note: {why}; test skipped");
}

/// What a failed write must leave: exit 2, the file and the OS error named,
/// the old site's bytes, nothing beside the output.
fn assert_failed_cleanly(
    code: Option<i32>,
    stderr: &str,
    os_error: &str,
    under: &Path,
    out: &Path,
    old_site: &BTreeMap<String, Vec<u8>>,
) {
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(os_error), "no {os_error:?} in:\n{stderr}");
    assert!(
        stderr.contains(&under.display().to_string()),
        "no file under {} named in:\n{stderr}",
        under.display()
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_same_tree(&snapshot(out), old_site, "the old site");
    assert_eq!(
        debris(out.parent().unwrap()),
        Vec::<String>::new(),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_fails_the_build_and_keeps_the_old_site() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    // Room for the small site (its scripts and styles most of it) and 1 MiB
    // more, not for the sample data's (5.8 MB and its build cache on
    // 2026-11-26): sized from the small site built elsewhere first, so the
    // test keeps failing the build as the sites get lighter.
    let probe = dir.path().join("probe");
    build_ok(&tiny_input(dir.path(), "probe", 2), &probe);
    let small: usize = snapshot(&probe).values().map(Vec::len).sum();
    let size = format!("{}k", small / 1024 + 1024);
    let mount = match Mount::tmpfs(&mnt, &size) {
        Ok(m) => m,
        Err(e) => return unavailable(&format!("cannot mount a small tmpfs ({e})")),
    };
    let out = mnt.join("site");
    build_ok(&tiny_input(dir.path(), "old", 2), &out);
    let old_site = snapshot(&out);
    let (code, stderr) = build(&sample_data(), &out, &[]);
    assert_failed_cleanly(
        code,
        &stderr,
        "No space left on device",
        &mnt,
        &out,
        &old_site,
    );
    drop(mount);
}

/// A file-size limit (`ulimit -f`) with SIGXFSZ at its default action: the
/// build must turn the signal into a write error (EFBIG), not die of it.
#[test]
fn a_file_size_limit_fails_the_build_and_keeps_the_old_site() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("site");
    build_ok(&tiny_input(dir.path(), "old", 2), &out);
    let old_site = snapshot(&out);
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("trap - XFSZ; ulimit -f 64 && exec \"$0\" \"$@\"")
        .arg(BIN)
        .arg("build")
        .arg(sample_data())
        .arg("-o")
        .arg(&out);
    let (code, stderr) = Running::start(command).finish();
    assert_failed_cleanly(code, &stderr, "File too large", dir.path(), &out, &old_site);
}

#[test]
fn a_read_only_output_fails_the_build_and_keeps_the_old_site() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("ro");
    let mount = match Mount::tmpfs(&mnt, "16m") {
        Ok(m) => m,
        Err(e) => return unavailable(&format!("cannot mount a tmpfs ({e})")),
    };
    let out = mnt.join("site");
    let input = tiny_input(dir.path(), "old", 2);
    build_ok(&input, &out);
    let old_site = snapshot(&out);
    mount.read_only();
    let (code, stderr) = build(&tiny_input(dir.path(), "new", 3), &out, &[]);
    assert_failed_cleanly(
        code,
        &stderr,
        "Read-only file system",
        &mnt,
        &out,
        &old_site,
    );
    drop(mount);
}

/// A permission refused: the build runs as `nobody` (via `setpriv`) into
/// a directory only root may write.
#[test]
fn a_permission_refused_fails_the_build_and_keeps_the_old_site() {
    use std::os::unix::fs::PermissionsExt;
    if !Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return unavailable("setpriv (util-linux) is not installed");
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return unavailable("not root: cannot run a build as another user");
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let input = tiny_input(dir.path(), "new", 2);
    let parent = dir.path().join("www");
    let out = parent.join("site");
    build_ok(&tiny_input(dir.path(), "old", 2), &out);
    let old_site = snapshot(&out);
    let mut command = Command::new("setpriv");
    command
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            BIN,
            "build",
        ])
        .arg(&input)
        .arg("-o")
        .arg(&out);
    let (code, stderr) = Running::start(command).finish();
    assert_failed_cleanly(code, &stderr, "Permission denied", &parent, &out, &old_site);
}

/// `--zip` onto a full disk: exit 2, no partial zip, the old zip and the
/// old site as they were.
#[test]
fn a_zip_on_a_full_disk_leaves_no_partial_zip_and_the_old_site() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("small");
    // The sample site zips to about 0.75 MB (2026-11-26, seventh session;
    // 1.7 MB earlier that day), the tiny one's to a few KB.
    let mount = match Mount::tmpfs(&mnt, "256k") {
        Ok(m) => m,
        Err(e) => return unavailable(&format!("cannot mount a small tmpfs ({e})")),
    };
    let out = dir.path().join("site");
    let zip = mnt.join("report.zip");
    let zip_arg: Vec<&OsStr> = vec!["--zip".as_ref(), zip.as_os_str()];
    let (code, stderr) = build(&tiny_input(dir.path(), "old", 2), &out, &zip_arg);
    assert_eq!(code, Some(0), "{stderr}");
    let old_site = snapshot(&out);
    let old_zip = std::fs::read(&zip).unwrap();
    let (code, stderr) = build(&sample_data(), &out, &zip_arg);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert!(stderr.contains(&zip.display().to_string()), "{stderr}");
    assert_eq!(std::fs::read(&zip).unwrap(), old_zip, "the old zip");
    assert_same_tree(&snapshot(&out), &old_site, "the old site");
    let in_mnt: Vec<_> = std::fs::read_dir(&mnt)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(in_mnt, vec!["report.zip".to_string()], "{stderr}");
    assert_eq!(debris(dir.path()), Vec::<String>::new(), "{stderr}");
    drop(mount);
}

// ---------------------------------------------------------------------------
// Inputs that change while they are read

fn one_file_input(dir: &Path) -> (PathBuf, PathBuf) {
    let input = dir.join("input");
    std::fs::create_dir_all(input.join("1.0")).unwrap();
    let file = input.join("1.0/parse.folded");
    std::fs::write(&file, "main;parse 5\nmain;lex 3\n").unwrap();
    (input, file)
}

#[test]
fn an_input_that_changes_while_it_is_read_is_skipped_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (input, file) = one_file_input(dir.path());
    let out = dir.path().join("site");
    let resume = dir.path().join("resume");
    let mut running = Running::start(build_command(
        &input,
        &out,
        &[],
        Some("read"),
        Some(&resume),
    ));
    running.wait_for("test pause at read");
    // The profiler is still writing: the file grows.
    std::fs::write(&file, "main;parse 5\nmain;lex 3\nmain;emit 9\n").unwrap();
    std::fs::write(&resume, "").unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("skipped: 1.0/parse.folded: changed while it was read"),
        "{stderr}"
    );
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(index.contains("changed while it was read"), "index page");

    // The same with the file removed meanwhile.
    std::fs::remove_file(&resume).unwrap();
    let mut running = Running::start(build_command(
        &input,
        &out,
        &["--no-cache".as_ref()],
        Some("read"),
        Some(&resume),
    ));
    running.wait_for("test pause at read");
    std::fs::remove_file(&file).unwrap();
    std::fs::write(&resume, "").unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("skipped: 1.0/parse.folded: disappeared while it was read"),
        "{stderr}"
    );
}

/// A big folded file is parsed as it is read, a chunk at a time: one that
/// grows while it is read is skipped all the same, not published with
/// the stacks read before it grew.
#[test]
fn a_big_folded_file_that_grows_while_it_is_parsed_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let (input, file) = one_file_input(dir.path());
    let line = "main;ns1::Parser::parse;ns2::Lexer::next_token;ns3::Buffer::fill 1\n";
    let big = line.repeat((33 << 20) / line.len());
    std::fs::write(&file, &big).unwrap();
    let out = dir.path().join("site");
    let resume = dir.path().join("resume");
    let mut running = Running::start(build_command(
        &input,
        &out,
        &[],
        Some("read"),
        Some(&resume),
    ));
    running.wait_for("test pause at read");
    let mut appending = std::fs::OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap();
    std::io::Write::write_all(&mut appending, b"main;emit 9\n").unwrap();
    std::fs::write(&resume, "").unwrap();
    let (code, stderr) = running.finish();
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("skipped: 1.0/parse.folded: changed while it was read"),
        "{stderr}"
    );
}

/// A named pipe among the inputs would block the build on opening it:
/// it is skipped, named, and the build goes on.
#[test]
fn a_named_pipe_among_the_inputs_is_skipped_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let (input, _) = one_file_input(dir.path());
    let fifo = input.join("1.0/live.folded");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let out = dir.path().join("site");
    let (code, stderr) = Running::start(build_command(&input, &out, &[], None, None))
        .finish_within(Duration::from_secs(60));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("skipped: 1.0/live.folded: not a regular file"),
        "{stderr}"
    );
}

// ---------------------------------------------------------------------------
// Interrupted bisections

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@invalid")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Interrupts a real bisection while it measures (the command has started
/// and sleeps), with `signal`; the worktree, its registration and the
/// scratch directory must be gone, the exit code 128 + signal.
fn interrupt_bisect(signal: i32, name: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "1\n").unwrap();
    git(&repo, &["add", "a.txt"]);
    git(&repo, &["commit", "-q", "-m", "good"]);
    std::fs::write(repo.join("a.txt"), "2\n").unwrap();
    git(&repo, &["commit", "-q", "-am", "bad"]);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let started = dir.path().join("started");
    let worktrees_before = git(&repo, &["worktree", "list", "--porcelain"]);
    let mut command = Command::new(BIN);
    command
        .args(["bisect", "--repo"])
        .arg(&repo)
        .args(["--good", "HEAD~1", "--bad", "HEAD", "--runs", "1", "--run"])
        .arg("pwd > \"$STARTED\"; sleep 120; echo 1")
        .env("STARTED", &started)
        .env("TMPDIR", &tmp);
    let running = Running::start(command);
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(&started).map_or(true, |s| s.trim().is_empty()) {
        assert!(Instant::now() < deadline, "{}", running.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
    let worktree = PathBuf::from(std::fs::read_to_string(&started).unwrap().trim());
    assert!(worktree.is_dir());
    // SAFETY: kill(2) on our own child's PID.
    let sent = unsafe { libc::kill(running.pid() as i32, signal) };
    assert_eq!(sent, 0);
    let (got, stderr) = running.finish_within(Duration::from_secs(30));
    assert_eq!(got, Some(code), "exit code after {name}:\n{stderr}");
    assert!(
        stderr.contains(&format!("interrupted ({name})")),
        "{stderr}"
    );
    assert!(
        stderr.contains("removed worktree") && stderr.contains(&worktree.display().to_string()),
        "{stderr}"
    );
    assert!(!worktree.exists(), "worktree directory left:\n{stderr}");
    assert_eq!(
        git(&repo, &["worktree", "list", "--porcelain"]),
        worktrees_before,
        "worktree still registered:\n{stderr}"
    );
    let scratch: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(scratch.is_empty(), "left in the temp dir: {scratch:?}");
}

#[test]
fn bisect_interrupted_by_sigint_removes_its_worktree() {
    interrupt_bisect(libc::SIGINT, "SIGINT", 130);
}

#[test]
fn bisect_interrupted_by_sigterm_removes_its_worktree() {
    interrupt_bisect(libc::SIGTERM, "SIGTERM", 143);
}
