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
    let start = Instant::now();
    let out = f();
    eprintln!("timing {name}: {:.3} s", start.elapsed().as_secs_f64());
    out
}
