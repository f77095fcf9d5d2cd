//! Phase timings on standard error when `PERFATLAS_TIMINGS` is set, for
//! profiling builds (never part of the output).

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("PERFATLAS_TIMINGS").is_some())
}

/// Runs `f`, and prints how long it took under `name` when enabled.
pub fn phase<T>(name: &str, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let (start, cpu) = (Instant::now(), process_cpu_seconds());
    let out = f();
    eprintln!(
        "timing {name}: {:.3} s (CPU {:.3} s)",
        start.elapsed().as_secs_f64(),
        process_cpu_seconds() - cpu
    );
    out
}

/// The process's user and system time so far, every thread's (what a
/// phase adds to it is the CPU it took, parallel work included).
#[cfg(unix)]
fn process_cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

#[cfg(not(unix))]
fn process_cpu_seconds() -> f64 {
    0.0
}
