//! A test hook: `PERFATLAS_TEST_PAUSE=PHASE[,PHASE…]` makes a build stop at
//! the named points, so the fault tests (`tests/faults.rs`) can kill it,
//! start a second build or change an input at a known moment instead of
//! guessing with timers. Never set in normal use; without the variable a
//! pause point costs one environment look-up.
//!
//! At a listed point the build prints `perfatlas: test pause at PHASE (pid
//! N)` on stderr and waits until the file named by `PERFATLAS_TEST_RESUME`
//! exists (without that variable, until it is killed; ten minutes at
//! most either way). The points:
//!
//! - `read`: an input file was read, before it is checked for changes and
//!   parsed (every file pauses, so tests use one input file);
//! - `render`: the pages were rendered (those written while rendering are
//!   in the staging directory), before the rest are written;
//! - `swap`: the staging directory is complete (and the `--zip` written
//!   beside its target), before it is swapped in;
//! - `swapped`: the new site is in place, the old one not yet removed.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The variable naming the points.
pub const VAR: &str = "PERFATLAS_TEST_PAUSE";
/// The variable naming the file whose existence ends a pause.
pub const RESUME_VAR: &str = "PERFATLAS_TEST_RESUME";

/// Pauses here when `phase` is listed in [`VAR`].
pub fn point(phase: &str) {
    let Some(list) = std::env::var_os(VAR) else {
        return;
    };
    if !list.to_string_lossy().split(',').any(|p| p.trim() == phase) {
        return;
    }
    eprintln!(
        "perfatlas: test pause at {phase} (pid {})",
        std::process::id()
    );
    let resume = std::env::var_os(RESUME_VAR).map(PathBuf::from);
    let deadline = Instant::now() + Duration::from_secs(600);
    while Instant::now() < deadline {
        if resume.as_ref().is_some_and(|r| r.exists()) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
