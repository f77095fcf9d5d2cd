//! Giving freed memory back to the system while a build runs.
//!
//! glibc's malloc keeps blocks of up to 4 MiB in its heap (see the
//! binary's allocator settings) and keeps the pages of freed ones: memory
//! freed while a step fills a new structure of its own (a long
//! measurement history's per-file benchmarks, moved into the history's
//! entries, and those moved into its series' points) would stay counted until reused, so the step's peak would be
//! both structures whole. [`release_free`] hands those pages back.

/// Returns the pages of freed blocks to the system (glibc's
/// `malloc_trim`); nothing elsewhere.
pub fn release_free() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only reads and changes the allocator's own
    // state, under its locks; it is safe to call from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}
