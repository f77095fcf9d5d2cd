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
        "timing {name}: {:.3} s (CPU {:.3} s, resident {} MB, peak {} MB)",
        start.elapsed().as_secs_f64(),
        process_cpu_seconds() - cpu,
        resident_mb(),
        peak_resident_mb()
    );
    out
}

/// The process's resident memory now, in MB (0 where unknown).
fn resident_mb() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * page_bytes() / 1_000_000
}

#[cfg(unix)]
fn page_bytes() -> u64 {
    // SAFETY: sysconf only reads a system setting.
    u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

#[cfg(not(unix))]
fn page_bytes() -> u64 {
    4096
}

/// The process's peak resident memory so far, in MB (0 where unknown).
#[cfg(unix)]
fn peak_resident_mb() -> u64 {
    u64::try_from(rusage().ru_maxrss).unwrap_or(0) * 1024 / 1_000_000
}

/// The process's resource use so far, every thread's.
#[cfg(unix)]
fn rusage() -> libc::rusage {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    }
}

#[cfg(not(unix))]
fn peak_resident_mb() -> u64 {
    0
}

/// The process's user and system time so far, every thread's (what a
/// phase adds to it is the CPU it took, parallel work included).
#[cfg(unix)]
fn process_cpu_seconds() -> f64 {
    let usage = rusage();
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

#[cfg(not(unix))]
fn process_cpu_seconds() -> f64 {
    0.0
}
