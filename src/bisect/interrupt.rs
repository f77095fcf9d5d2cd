//! A bisection interrupted by SIGINT or SIGTERM: what it has made (its
//! worktrees, their registration in the user's repository, its scratch
//! directory, the measured command's processes) is recorded here as it is
//! made, and [`clean_up_interrupted`] removes it. The binary calls that
//! from its signal handler thread, then exits 128 + the signal's number.
//!
//! Worktrees are added and removed with the record locked, so an
//! interruption never finds one half made or half removed: it waits for
//! the git command in progress.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// What the running bisection has made.
pub(super) struct Made {
    /// (repository, worktree directory)
    pub(super) worktrees: Vec<(PathBuf, PathBuf)>,
    pub(super) scratch: Vec<PathBuf>,
    /// The measured command's process, leader of its own process group.
    pub(super) child: Option<u32>,
}

static MADE: Mutex<Made> = Mutex::new(Made {
    worktrees: Vec::new(),
    scratch: Vec::new(),
    child: None,
});

/// The record, locked.
pub(super) fn made() -> MutexGuard<'static, Made> {
    MADE.lock().unwrap_or_else(|e| e.into_inner())
}

impl Made {
    pub(super) fn forget_worktree(&mut self, dir: &std::path::Path) {
        self.worktrees.retain(|(_, d)| d != dir);
    }
}

/// Stops the measured command and removes every worktree and scratch
/// directory of the running bisection; for a process about to exit on a
/// signal. Returns one line per thing done, for the user. Afterwards the
/// bisection can add nothing more (the record stays locked).
pub fn clean_up_interrupted() -> Vec<String> {
    let mut made = made();
    let mut lines = Vec::new();
    if let Some(pid) = made.child.take() {
        stop_group(pid);
        lines.push(format!("stopped the measured command (PID {pid})"));
    }
    for (repo, dir) in std::mem::take(&mut made.worktrees) {
        match super::checkout::remove_worktree(&repo, &dir) {
            Ok(()) => lines.push(format!(
                "removed worktree {} from {}",
                dir.display(),
                repo.display()
            )),
            Err(e) => lines.push(format!("could not remove worktree {}: {e}", dir.display())),
        }
    }
    for dir in std::mem::take(&mut made.scratch) {
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => lines.push(format!("removed {}", dir.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => lines.push(format!("could not remove {}: {e}", dir.display())),
        }
    }
    // Nothing may be added after this.
    std::mem::forget(made);
    lines
}

/// Kills the process group led by `pid` and waits (two seconds at most)
/// until its leader has gone.
fn stop_group(pid: u32) {
    let Ok(id) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) of the process group our child leads.
    unsafe {
        libc::kill(-id, libc::SIGKILL);
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    while site::process_runs(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
}
