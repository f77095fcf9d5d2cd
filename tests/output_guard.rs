//! What a build may replace, and what it says when the old site will not
//! go (issue 42): `--force` never deletes a home, a git work tree or a
//! folder of documents; a `--zip` inside the output and an output that is
//! a mount point are refused before any work, with the fix; a previous
//! site that cannot be removed is refused before the swap, and one that
//! cannot be removed after it is a warning with the command that removes
//! it, never a failed build with the new site already in place.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::read_tree;

const BIN: &str = env!("CARGO_BIN_EXE_perfatlas");

/// A small real history: three versions of sample-data/python-markdown.
fn small_input(dir: &Path) -> PathBuf {
    let input = dir.join("input");
    let from = common::sample_data();
    let mut versions: Vec<PathBuf> = std::fs::read_dir(&from)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    versions.sort();
    for v in versions.iter().take(3) {
        let to = input.join(v.file_name().unwrap());
        std::fs::create_dir_all(&to).unwrap();
        for f in std::fs::read_dir(v).unwrap() {
            let f = f.unwrap();
            if f.path().is_file() {
                std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
            }
        }
    }
    input
}

/// `perfatlas build INPUT -o OUT ARGS…` with `HOME` set to `home`: exit
/// code and standard error.
fn build(input: &Path, out: &Path, args: &[&str], home: &Path) -> (Option<i32>, String) {
    let o = Command::new(BIN)
        .arg("build")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(args)
        .env("HOME", home)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Skips a test this machine cannot run, saying why; under `CI=true` fails.
fn unavailable(why: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{why} (CI=true: not skipped)"
    );
    eprintln!("note: {why}; test skipped");
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn force_never_deletes_a_home_a_git_work_tree_or_documents() {
    let dir = tempfile::tempdir().unwrap();
    let input = small_input(dir.path());
    // A stand-in home directory, as `--force -o $HOME` would meet it.
    let home = dir.path().join("home");
    std::fs::create_dir_all(dir.path().join("h/home")).unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_ed25519"), "secret").unwrap();
    std::fs::write(home.join(".bashrc"), "alias x=y").unwrap();
    let before = read_tree(&home);
    let (code, stderr) = build(&input, &home, &["--force"], &home);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("it is the home directory"), "{stderr}");
    assert_eq!(read_tree(&home), before, "the home is as it was");
    // A directory above the home holds it.
    let (code, stderr) = build(
        &input,
        &dir.path().join("h"),
        &["--force"],
        &dir.path().join("h/home"),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("it holds the home directory"), "{stderr}");

    // A git work tree, and a folder of documents beside HTML.
    let tree = dir.path().join("project");
    std::fs::create_dir_all(tree.join(".git")).unwrap();
    std::fs::write(tree.join("index.html"), "<p>").unwrap();
    let (code, stderr) = build(&input, &tree, &["--force"], &home);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(".git makes it a git work tree"), "{stderr}");
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(docs.join("2024")).unwrap();
    std::fs::write(docs.join("index.html"), "<p>").unwrap();
    std::fs::write(docs.join("2024/thesis.docx"), "words").unwrap();
    let (code, stderr) = build(&input, &docs, &["--force"], &home);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("it holds 2024/thesis.docx, which no web site is made of"),
        "{stderr}"
    );
    assert!(docs.join("2024/thesis.docx").is_file());

    // Another tool's site (HTML, CSS, images, GitHub Pages' CNAME) is
    // what --force is for.
    let other = dir.path().join("other-site");
    std::fs::create_dir_all(other.join("img")).unwrap();
    for (name, text) in [
        ("index.html", "<p>"),
        ("style.css", "p{}"),
        ("CNAME", "perf.example.org"),
        ("img/logo.png", "png"),
    ] {
        std::fs::write(other.join(name), text).unwrap();
    }
    let (code, stderr) = build(&input, &other, &["--force"], &home);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(other.join(".perfatlas-site").is_file());
    assert!(!other.join("style.css").exists());
}

#[test]
fn a_zip_inside_the_output_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let input = small_input(dir.path());
    let site = dir.path().join("site");
    let (code, stderr) = build(&input, &site, &[], dir.path());
    assert_eq!(code, Some(0), "{stderr}");
    let old = read_tree(&site);
    let zip = site.join("report.zip");
    let (code, stderr) = build(&input, &site, &["--zip", zip.to_str().unwrap()], dir.path());
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("is inside the output directory")
            && stderr.contains("choose a path outside it"),
        "{stderr}"
    );
    assert_eq!(read_tree(&site), old);
}

#[test]
fn an_output_that_is_a_mount_point_is_refused_at_once_with_the_fix() {
    if !is_root() {
        return unavailable("not root: cannot mount a tmpfs");
    }
    let dir = tempfile::tempdir().unwrap();
    let input = small_input(dir.path());
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64m", "tmpfs"])
        .arg(&out)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        return unavailable("mount -t tmpfs is not permitted here");
    }
    let (code, stderr) = build(&input, &out, &[], dir.path());
    let _ = Command::new("umount").arg("-l").arg(&out).status();
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is a mount point"), "{stderr}");
    assert!(stderr.contains("Mount the directory above it"), "{stderr}");
    assert!(!stderr.contains("Device or resource busy"), "{stderr}");
}

/// A build run as `nobody`, for whom permissions hold (root ignores them).
fn as_nobody(args: &[&std::ffi::OsStr]) -> Command {
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN])
        .args(args);
    c
}

/// A directory `nobody` owns, under a fresh temporary directory it can
/// reach; `None` when this machine cannot run builds as another user.
fn nobodys_dir() -> Option<(tempfile::TempDir, PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    let has_setpriv = Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_setpriv || !is_root() {
        unavailable("setpriv and root are needed to run a build as nobody");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let www = dir.path().join("www");
    std::fs::create_dir_all(&www).unwrap();
    let ok = Command::new("chown")
        .args(["65534:65534"])
        .arg(&www)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok);
    Some((dir, www))
}

/// A paused build, killed if the test ends before it does.
struct Paused(std::process::Child);

impl Drop for Paused {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn run(mut c: Command) -> (Option<i32>, String) {
    let o = c.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_previous_site_that_cannot_be_removed_is_refused_before_any_work() {
    let Some((dir, www)) = nobodys_dir() else {
        return;
    };
    let input = small_input(dir.path());
    let site = www.join("site");
    let args = [
        "build".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        site.as_os_str(),
    ];
    let (code, stderr) = run(as_nobody(&args));
    assert_eq!(code, Some(0), "{stderr}");
    chmod(&site.join("benchmarks"), 0o555);
    let old = read_tree(&site);
    let (code, stderr) = run(as_nobody(&args));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("benchmarks is not writable") && stderr.contains("chmod -R u+w"),
        "{stderr}"
    );
    assert_eq!(read_tree(&site), old, "the previous site is untouched");
    let beside: Vec<String> = std::fs::read_dir(&www)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(beside, ["site"], "nothing left beside it");
    chmod(&site.join("benchmarks"), 0o755);
}

#[test]
fn an_old_site_that_cannot_be_removed_after_the_swap_is_a_warning_and_the_next_build_goes_on() {
    let Some((dir, www)) = nobodys_dir() else {
        return;
    };
    let input = small_input(dir.path());
    let site = www.join("site");
    let args = [
        "build".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        site.as_os_str(),
        "--no-cache".as_ref(),
    ];
    let (code, stderr) = run(as_nobody(&args));
    assert_eq!(code, Some(0), "{stderr}");
    // The second build stops once the new site is in place; then the old
    // site (now beside it) loses its write permission, as if another
    // user's process had made it so.
    let resume = dir.path().join("resume");
    let mut child = Paused(
        as_nobody(&args)
            .env("PERFATLAS_TEST_PAUSE", "swapped")
            .env("PERFATLAS_TEST_RESUME", &resume)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut err = BufReader::new(child.0.stderr.take().unwrap());
    let mut said = String::new();
    loop {
        let mut line = String::new();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "the build ended before its pause:\n{said}"
        );
        said.push_str(&line);
        if line.contains("test pause at swapped") {
            break;
        }
    }
    let leftover: PathBuf = std::fs::read_dir(&www)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            p.is_dir()
                && (name.starts_with(".site.perfatlas-tmp-")
                    || name.starts_with(".site.perfatlas-old-"))
        })
        .expect("the old site beside the new one");
    chmod(&leftover.join("benchmarks"), 0o555);
    std::fs::write(&resume, "").unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let code = child.0.wait().unwrap().code();
    said.push_str(&rest);
    assert_eq!(code, Some(0), "the build succeeded:\n{said}");
    assert!(
        said.contains("perfatlas: warning: the new site is in place; the previous one"),
        "{said}"
    );
    assert!(
        said.contains(&format!("rm -rf {}", leftover.display())),
        "{said}"
    );
    assert!(site.join("index.html").is_file());

    // The next build is not blocked by it: it says so again and builds.
    let (code, stderr) = run(as_nobody(&args));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("could not be removed"), "{stderr}");
    // Once it can be removed, the next build removes it.
    chmod(&leftover.join("benchmarks"), 0o755);
    let (code, stderr) = run(as_nobody(&args));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("left by a build that was interrupted"),
        "{stderr}"
    );
    assert!(!leftover.exists());
}
