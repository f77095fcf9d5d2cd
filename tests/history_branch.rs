//! The history on a data branch (`action/history.sh`; docs/github-actions.md,
//! "History"), run as the action runs it, with bash and the git CLI,
//! against a local bare repository standing in for GitHub. Every "run" is
//! its own shallow clone (`git clone --depth 1`, as actions/checkout makes
//! one) that knows the bare repository as `origin`; the version folders
//! are real sample data (sample-data/python-markdown).
//!
//! git is an external tool: without it a test says so and passes, except
//! under CI (env `CI` set), where it fails; `.ci/run` installs it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BRANCH: &str = "perfatlas-history";
const BOT: &str = "github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A version folder of the sample data.
fn sample(version: &str) -> PathBuf {
    root().join("sample-data/python-markdown").join(version)
}

/// Whether git is there; a failure under CI, where `.ci/run` installs it.
fn have_git() -> bool {
    let found = Command::new("git").arg("--version").output();
    if matches!(&found, Ok(o) if o.status.success()) {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("git not found; under CI it is required (.ci/run installs it)");
    }
    eprintln!("skipped: git not found (install Debian's git to run this test)");
    false
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A bare repository standing in for GitHub, with one commit on main, and
/// a home of its own so that no git configuration of this machine counts.
struct Lab {
    dir: tempfile::TempDir,
}

impl Lab {
    fn new() -> Lab {
        let lab = Lab {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir(lab.path("home")).unwrap();
        lab.git(
            lab.dir.path(),
            &["init", "-q", "--bare", "-b", "main", "remote.git"],
        );
        let seed = lab.path("seed");
        lab.git(lab.dir.path(), &["init", "-q", "-b", "main", "seed"]);
        std::fs::write(seed.join("README.md"), "# a project with benchmarks\n").unwrap();
        std::fs::write(seed.join(".gitignore"), "/target\n").unwrap();
        lab.git(&seed, &["add", "."]);
        lab.git(
            &seed,
            &["-c", "user.name=Dev", "-c", "user.email=dev@example.org"]
                .into_iter()
                .chain(["commit", "-q", "-m", "The code"])
                .collect::<Vec<_>>(),
        );
        let url = lab.url();
        lab.git(&seed, &["push", "-q", &url, "main"]);
        lab
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn url(&self) -> String {
        format!("file://{}", self.path("remote.git").display())
    }

    /// A command with only what the runner would give it: PATH, a home of
    /// the lab's own, no system git configuration.
    fn command(&self, program: &str, dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path("home"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C");
        cmd
    }

    fn git(&self, dir: &Path, args: &[&str]) -> String {
        let out = self.command("git", dir).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?} in {dir:?}:\n{}",
            show(&out)
        );
        stdout(&out)
    }

    /// A fresh shallow clone of main, as actions/checkout makes.
    fn checkout(&self, name: &str) -> PathBuf {
        self.git(
            self.dir.path(),
            &["clone", "-q", "--depth", "1", &self.url(), name],
        );
        self.path(name)
    }

    /// `bash action/history.sh VERB` in `clone`, as action.yml runs it on a
    /// push to main (INPUT perf-history, history-save auto), with `env`
    /// added or overriding.
    fn history(&self, clone: &Path, verb: &str, env: &[(&str, &str)]) -> Command {
        let mut cmd = self.command("bash", clone);
        cmd.arg(root().join("action/history.sh"))
            .arg(verb)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", "push")
            .env("GITHUB_REF", "refs/heads/main")
            .env("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")
            .env("GITHUB_REPOSITORY", "octo-org/octo-repo")
            .env("GITHUB_RUN_ID", "4242")
            .env("PERFATLAS_DEFAULT_BRANCH", "main")
            .env("RUNNER_TEMP", self.dir.path())
            .env("INPUT_INPUT", "perf-history")
            .env("INPUT_HISTORY_BRANCH", BRANCH)
            .env("INPUT_HISTORY_SAVE", "auto")
            .env("PERFATLAS_HISTORY_BACKOFF_MS", "50");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    fn run(&self, clone: &Path, verb: &str, env: &[(&str, &str)]) -> Output {
        self.history(clone, verb, env).output().unwrap()
    }

    /// The data branch's commits on the remote, newest first, or none.
    fn branch_log(&self) -> Vec<String> {
        let heads = self.git(&self.path("remote.git"), &["branch", "--list", BRANCH]);
        if heads.trim().is_empty() {
            return Vec::new();
        }
        self.git(
            &self.path("remote.git"),
            &["log", "--first-parent", "--format=%H", BRANCH],
        )
        .lines()
        .map(str::to_string)
        .collect()
    }

    /// Names at the top of a commit's tree, and what a commit added there.
    fn top(&self, rev: &str) -> Vec<String> {
        let out = self.git(&self.path("remote.git"), &["ls-tree", "--name-only", rev]);
        out.lines().map(str::to_string).collect()
    }
}

/// Copies a sample version folder into `clone/perf-history/NAME`, as the
/// workflow's benchmark step writes this run's version.
fn benchmark(clone: &Path, name: &str, version: &str) {
    copy_dir(&sample(version), &clone.join("perf-history").join(name));
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file under `dir`, relative, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

fn wait_for(path: &Path, children: &mut [&mut Child]) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while !path.exists() {
        for child in children.iter_mut() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("a save ended ({status}) before reaching its gate {path:?}");
            }
        }
        assert!(Instant::now() < deadline, "no save reached {path:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Three runs save run-1, run-2 and run-3; run-2 and run-3 race (both
/// fetched the branch with run-1 before either pushed, held at a gate),
/// so one push is rejected and retried. A fresh clone then restores all
/// three, byte for byte, and the site built from them lists all three.
#[test]
fn three_runs_two_of_them_racing_every_version_reaches_the_next_site() {
    if !have_git() {
        return;
    }
    let lab = Lab::new();

    // Run 1: the history's first run.
    let one = lab.checkout("run-1");
    benchmark(&one, "run-1", "3.2.2");
    let out = lab.run(&one, "restore", &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stdout(&out).contains("no branch 'perfatlas-history'"),
        "{}",
        show(&out)
    );
    let out = lab.run(&one, "save", &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(stdout(&out).contains("(a new branch)"), "{}", show(&out));

    // Runs 2 and 3, each in its own clone, both restore run-1, then race.
    let (two, three) = (lab.checkout("run-2"), lab.checkout("run-3"));
    benchmark(&two, "run-2", "3.3.7");
    benchmark(&three, "run-3", "3.4.4");
    for clone in [&two, &three] {
        let out = lab.run(clone, "restore", &[]);
        assert!(out.status.success(), "{}", show(&out));
        assert!(clone.join("perf-history/run-1/version.toml").is_file());
    }
    let gate = |n: &str| lab.path(&format!("gate-{n}"));
    let spawn = |clone: &Path, n: &str| {
        lab.history(
            clone,
            "save",
            &[("PERFATLAS_HISTORY_TEST_GATE", gate(n).to_str().unwrap())],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
    };
    let mut save2 = spawn(&two, "2");
    let mut save3 = spawn(&three, "3");
    // Both have fetched the branch (run-1 only) and committed on it.
    wait_for(
        &gate("2").with_extension("waiting"),
        &mut [&mut save2, &mut save3],
    );
    wait_for(
        &gate("3").with_extension("waiting"),
        &mut [&mut save2, &mut save3],
    );
    std::fs::write(gate("2"), "").unwrap();
    let out2 = save2.wait_with_output().unwrap();
    std::fs::write(gate("3"), "").unwrap();
    let out3 = save3.wait_with_output().unwrap();
    assert!(out2.status.success(), "{}", show(&out2));
    assert!(out3.status.success(), "{}", show(&out3));
    assert!(!stdout(&out2).contains("push rejected"), "{}", show(&out2));
    assert!(
        stdout(&out3).contains("push rejected, retrying"),
        "run-3 committed on the tip without run-2, so its first push must be rejected\n{}",
        show(&out3)
    );

    // The branch: one commit per run, each adding its own folder, by the bot.
    let log = lab.branch_log();
    assert_eq!(log.len(), 3, "{log:?}");
    let bare = lab.path("remote.git");
    for (commit, added) in log.iter().zip(["run-3", "run-2", "run-1"]) {
        let author = lab.git(&bare, &["log", "-1", "--format=%an <%ae>", commit]);
        assert_eq!(author.trim(), BOT);
        let subject = lab.git(&bare, &["log", "-1", "--format=%s", commit]);
        assert_eq!(subject.trim(), format!("perfatlas history: add {added}"));
        let changed = lab.git(
            &bare,
            &[
                "diff-tree",
                "--root",
                "--no-commit-id",
                "--name-only",
                commit,
            ],
        );
        let mut changed: Vec<&str> = changed.lines().collect();
        changed.retain(|n| *n != "README.md");
        assert_eq!(changed, [added], "commit {commit}");
    }
    assert_eq!(lab.top(BRANCH), ["README.md", "run-1", "run-2", "run-3"]);

    // The next run: a fresh clone restores every version, byte for byte.
    let four = lab.checkout("run-4");
    let out = lab.run(&four, "restore", &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stdout(&out).contains("restored 3 version(s)"),
        "{}",
        show(&out)
    );
    let restored = four.join("perf-history");
    for (name, version) in [("run-1", "3.2.2"), ("run-2", "3.3.7"), ("run-3", "3.4.4")] {
        let (got, want) = (files(&restored.join(name)), files(&sample(version)));
        assert!(!want.is_empty());
        assert!(
            got == want,
            "{name} differs from sample-data/python-markdown/{version}"
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(&restored)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["run-1", "run-2", "run-3"]);

    // And the site built from the restored history lists all three.
    let site = lab.path("site");
    let out = Command::new(env!("CARGO_BIN_EXE_perfatlas"))
        .arg("build")
        .arg(&restored)
        .arg("-o")
        .arg(&site)
        .output()
        .unwrap();
    assert!(out.status.success(), "perfatlas build:\n{}", show(&out));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    for name in ["run-1", "run-2", "run-3"] {
        assert!(index.contains(name), "{name} is not on the site's index");
    }
}

/// Before the first save there is no branch: restore says so and goes
/// on. A version this run wrote is never replaced by the branch's copy,
/// and a saved version is never rewritten by a later run.
#[test]
fn restore_without_a_branch_goes_on_and_no_version_is_overwritten() {
    if !have_git() {
        return;
    }
    let lab = Lab::new();
    let first = lab.checkout("first");
    benchmark(&first, "run-1", "3.6");
    let out = lab.run(&first, "restore", &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stdout(&out).contains("this is the history's first run"),
        "{}",
        show(&out)
    );
    assert_eq!(
        files(&first.join("perf-history")),
        files(&sample("3.6"))
            .into_iter()
            .map(|(p, b)| (Path::new("run-1").join(p), b))
            .collect::<Vec<_>>(),
        "restore without a branch leaves INPUT as the run wrote it"
    );
    let out = lab.run(&first, "save", &[]);
    assert!(out.status.success(), "{}", show(&out));

    // A re-run writes run-1 again, from other measurements.
    let again = lab.checkout("again");
    benchmark(&again, "run-1", "3.7");
    let out = lab.run(&again, "restore", &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stdout(&out).contains("kept this run's own run-1"),
        "{}",
        show(&out)
    );
    assert!(files(&again.join("perf-history/run-1")) == files(&sample("3.7")));
    let before = lab.branch_log();
    let out = lab.run(&again, "save", &[]);
    assert!(out.status.success(), "{}", show(&out));
    assert!(
        stdout(&out).contains("already holds a version 'run-1' with other files"),
        "{}",
        show(&out)
    );
    assert_eq!(
        lab.branch_log(),
        before,
        "a saved version is never rewritten"
    );
}

/// Saving works beside the user's work in progress and leaves it alone:
/// status, index, HEAD, branches and shallowness as they were.
#[test]
fn save_leaves_the_checkout_as_it_was() {
    if !have_git() {
        return;
    }
    let lab = Lab::new();
    let clone = lab.checkout("work");
    benchmark(&clone, "run-1", "3.5.2");
    std::fs::write(clone.join("README.md"), "# edited, not staged\n").unwrap();
    std::fs::write(clone.join("staged.txt"), "staged\n").unwrap();
    lab.git(&clone, &["add", "staged.txt"]);
    let state = || {
        (
            lab.git(
                &clone,
                &["status", "--porcelain=v1", "--untracked-files=all"],
            ),
            lab.git(&clone, &["rev-parse", "HEAD"]),
            lab.git(&clone, &["symbolic-ref", "HEAD"]),
            lab.git(&clone, &["for-each-ref", "refs/heads", "refs/tags"]),
            lab.git(&clone, &["rev-parse", "--is-shallow-repository"]),
            std::fs::read(clone.join(".git/index")).unwrap(),
        )
    };
    let before = state();
    assert!(
        before.0.contains("?? perf-history/run-1/version.toml"),
        "{}",
        before.0
    );
    assert_eq!(
        before.4.trim(),
        "true",
        "the clone is shallow, as actions/checkout's"
    );
    for verb in ["restore", "save", "restore"] {
        let out = lab.run(&clone, verb, &[]);
        assert!(out.status.success(), "{verb}:\n{}", show(&out));
        assert!(state() == before, "{verb} changed the checkout");
    }
    assert_eq!(lab.branch_log().len(), 1);
    assert_eq!(lab.top(BRANCH), ["README.md", "run-1"]);
    let readme = lab.git(
        &lab.path("remote.git"),
        &["show", &format!("{BRANCH}:README.md")],
    );
    assert!(
        readme.contains("git log --stat origin/perfatlas-history"),
        "{readme}"
    );
}

/// history-save auto saves pushes to the default branch only; false never
/// saves; an empty history-branch turns history off; a wrong value fails.
#[test]
fn history_save_follows_the_event_and_the_inputs() {
    if !have_git() {
        return;
    }
    let lab = Lab::new();
    let clone = lab.checkout("pr");
    benchmark(&clone, "run-9", "3.7");
    let not_saved: [&[(&str, &str)]; 4] = [
        &[
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("GITHUB_REF", "refs/pull/7/merge"),
        ],
        &[("GITHUB_REF", "refs/heads/feature")],
        &[("INPUT_HISTORY_SAVE", "false")],
        &[("INPUT_HISTORY_BRANCH", "")],
    ];
    for env in not_saved {
        let out = lab.run(&clone, "save", env);
        assert!(out.status.success(), "{env:?}\n{}", show(&out));
        assert!(
            stdout(&out).contains("not saved") || stdout(&out).contains("history is off"),
            "{env:?}\n{}",
            show(&out)
        );
        assert!(
            lab.branch_log().is_empty(),
            "{env:?} saved:\n{}",
            show(&out)
        );
    }
    for verb in ["restore", "save"] {
        let out = lab.run(&clone, verb, &[("INPUT_HISTORY_SAVE", "sometimes")]);
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert!(
            stdout(&out).contains("::error::")
                && stdout(&out).contains("history-save must be auto, true or false"),
            "{}",
            show(&out)
        );
    }
    // A pull request saves only when told to.
    let out = lab.run(
        &clone,
        "save",
        &[
            ("GITHUB_EVENT_NAME", "pull_request"),
            ("INPUT_HISTORY_SAVE", "true"),
        ],
    );
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(lab.top(BRANCH), ["README.md", "run-9"]);
}

/// action.yml restores the history before the build and saves it after
/// the check, before the step that fails the job on a regression.
#[test]
fn action_yml_restores_before_the_build_and_saves_before_failing() {
    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let at = |needle: &str| {
        action
            .find(needle)
            .unwrap_or_else(|| panic!("action.yml has no {needle:?}"))
    };
    let restore = at("action/history.sh\" restore");
    let save = at("action/history.sh\" save");
    assert!(at("- name: Put perfatlas on PATH") < restore);
    assert!(restore < at("- name: perfatlas build"));
    assert!(at("- name: perfatlas check") < save);
    assert!(save < at("- name: Fail on regression"));
    for input in [
        "  history-branch:\n",
        "    default: perfatlas-history\n",
        "  history-save:\n",
        "    default: auto\n",
    ] {
        at(input);
    }
    assert!(root().join("action/history.sh").is_file());
}

/// A push the remote refuses for another reason than a moved branch (here
/// a hook, on GitHub a token without `contents: write`) is not retried:
/// the step fails and says what to add.
#[test]
fn a_refused_push_fails_the_step_and_names_the_permission() {
    if !have_git() {
        return;
    }
    let lab = Lab::new();
    let hook = lab.path("remote.git/hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'refusing: read-only token' >&2\nexit 1\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let clone = lab.checkout("read-only");
    benchmark(&clone, "run-1", "3.6");
    let out = lab.run(&clone, "save", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let text = stdout(&out);
    assert!(!text.contains("push rejected, retrying"), "{}", show(&out));
    assert!(
        text.contains("::error::") && text.contains("contents: write"),
        "{}",
        show(&out)
    );
    assert!(lab.branch_log().is_empty());
}
