//! Commits checked out for measuring, each in a temporary git worktree of
//! its own, made and removed with the git command line.
//!
//! The user's working tree, index, HEAD and refs are never touched: a
//! worktree is added detached (`git worktree add --detach --force DIR OID`)
//! and removed with `git worktree remove --force`, which also drops its
//! entry under `.git/worktrees`. Hooks are switched off for these commands
//! (a checkout hook has no business running for a measurement), and git's
//! location variables (`GIT_DIR`, `GIT_INDEX_FILE`, …) are cleared so that
//! `-C REPO` alone decides the repository.
//!
//! Worktrees live in a scratch directory named `perfatlas-bisect-<pid>-…`
//! under the system temp directory. A bisection stopped by an error or a
//! panic removes its worktrees as it unwinds, and one interrupted by
//! SIGINT or SIGTERM from the signal handler (see `interrupt`); one killed
//! outright (SIGKILL) cannot, so each bisection first removes the
//! worktrees that a bisection no longer running left in the same
//! repository.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::BisectError;

/// The git command line program.
pub(super) const GIT: &str = "git";

/// Variables that would make git look somewhere other than `-C REPO`; the
/// measured command does not get them either.
pub(super) const GIT_LOCATION_VARS: [&str; 7] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_PREFIX",
];

/// Prefix of our scratch directories' names.
const SCRATCH_PREFIX: &str = "perfatlas-bisect-";

/// Fails with [`BisectError::GitMissing`] when `program` cannot be started.
pub(super) fn require_git(program: &str) -> Result<(), BisectError> {
    match Command::new(program).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(BisectError::Git {
            command: format!("{program} --version"),
            message: last_line(&out.stderr),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(BisectError::GitMissing),
        Err(e) => Err(BisectError::Git {
            command: format!("{program} --version"),
            message: e.to_string(),
        }),
    }
}

/// Runs `git -C repo args…` without hooks and returns its stdout.
fn git(repo: &Path, args: &[&OsStr]) -> Result<String, BisectError> {
    let mut command = Command::new(GIT);
    command
        .arg("-C")
        .arg(repo)
        .args(["-c", "core.hooksPath=/dev/null"])
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(std::process::Stdio::null());
    for var in GIT_LOCATION_VARS {
        command.env_remove(var);
    }
    let shown = || {
        let words: Vec<_> = args.iter().map(|a| a.to_string_lossy()).collect();
        format!("git -C {} {}", repo.display(), words.join(" "))
    };
    let out = command.output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => BisectError::GitMissing,
        _ => BisectError::Git {
            command: shown(),
            message: e.to_string(),
        },
    })?;
    if !out.status.success() {
        return Err(BisectError::Git {
            command: shown(),
            message: last_line(&out.stderr),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The last non-empty line of a command's output.
fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no message)")
        .trim()
        .to_string()
}

/// Our directory under the system temp directory, removed on drop.
pub(super) struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    pub(super) fn new() -> Result<Scratch, BisectError> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir =
            std::env::temp_dir().join(format!("{SCRATCH_PREFIX}{}-{nanos}", std::process::id()));
        let mut made = super::interrupt::made();
        std::fs::create_dir_all(&dir).map_err(|e| BisectError::io(&dir, e))?;
        made.scratch.push(dir.clone());
        Ok(Scratch { dir })
    }

    pub(super) fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let mut made = super::interrupt::made();
        let _ = std::fs::remove_dir_all(&self.dir);
        made.scratch.retain(|d| *d != self.dir);
    }
}

/// A detached worktree at one commit; removed by [`Worktree::remove`] or,
/// failing that, on drop.
pub(super) struct Worktree<'a> {
    repo: &'a Path,
    dir: PathBuf,
    removed: bool,
}

impl<'a> Worktree<'a> {
    /// Checks `oid` out into `dir`, which must not exist yet.
    pub(super) fn add(
        repo: &'a Path,
        dir: PathBuf,
        oid: &str,
    ) -> Result<Worktree<'a>, BisectError> {
        // Recorded before git runs, so that an interruption also removes a
        // worktree git had half made.
        let mut made = super::interrupt::made();
        made.worktrees.push((repo.to_path_buf(), dir.clone()));
        let added = git(
            repo,
            &[
                "worktree".as_ref(),
                "add".as_ref(),
                "--detach".as_ref(),
                "--force".as_ref(),
                dir.as_os_str(),
                oid.as_ref(),
            ],
        );
        if let Err(e) = added {
            let _ = remove_worktree(repo, &dir);
            made.forget_worktree(&dir);
            return Err(e);
        }
        Ok(Worktree {
            repo,
            dir,
            removed: false,
        })
    }

    pub(super) fn path(&self) -> &Path {
        &self.dir
    }

    /// Removes the worktree and its entry in the repository.
    pub(super) fn remove(mut self) -> Result<(), BisectError> {
        self.removed = true;
        let mut made = super::interrupt::made();
        let removed = remove_worktree(self.repo, &self.dir);
        made.forget_worktree(&self.dir);
        removed
    }
}

impl Drop for Worktree<'_> {
    fn drop(&mut self) {
        if !self.removed {
            let mut made = super::interrupt::made();
            let _ = remove_worktree(self.repo, &self.dir);
            made.forget_worktree(&self.dir);
        }
    }
}

/// `git worktree remove --force DIR`; when that fails because the
/// directory is already gone, `git worktree prune` drops the entry.
pub(super) fn remove_worktree(repo: &Path, dir: &Path) -> Result<(), BisectError> {
    let removed = git(
        repo,
        &[
            "worktree".as_ref(),
            "remove".as_ref(),
            "--force".as_ref(),
            dir.as_os_str(),
        ],
    );
    match removed {
        Err(_) if !dir.exists() => git(repo, &["worktree".as_ref(), "prune".as_ref()]).map(|_| ()),
        other => other.map(|_| ()),
    }
}

/// Removes the worktrees of `repo` that a bisection which is no longer
/// running left behind (it was killed), with their scratch directories;
/// tells `progress` about each. Best effort: where it cannot tell whether a
/// process still runs (no `/proc`), it leaves everything alone.
pub(super) fn remove_stale(repo: &Path, progress: &mut dyn FnMut(&str)) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(list) = git(
        repo,
        &["worktree".as_ref(), "list".as_ref(), "--porcelain".as_ref()],
    ) else {
        return;
    };
    for dir in list.lines().filter_map(|l| l.strip_prefix("worktree ")) {
        let dir = Path::new(dir);
        let Some(scratch) = dir.parent() else {
            continue;
        };
        let owner = scratch
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(SCRATCH_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        let Some(pid) = owner else {
            continue;
        };
        if Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        if remove_worktree(repo, dir).is_ok() {
            let _ = std::fs::remove_dir_all(scratch);
            progress(&format!(
                "removed worktree {} left by an interrupted bisection",
                dir.display()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_git_is_named_as_such() {
        let e = require_git("perfatlas-test-no-such-git").unwrap_err();
        assert!(matches!(e, BisectError::GitMissing), "{e}");
        assert!(e.to_string().contains("git was not found on PATH"), "{e}");
    }
}
