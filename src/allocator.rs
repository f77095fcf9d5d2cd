//! How the C library's allocator (glibc's malloc) is set for a build.
//!
//! A build of a big profile allocates and frees many large blocks in turn
//! (an input's bytes, a tree's per-node columns, each shape's occurrence
//! lists). By default glibc gives every block of more than 128 KiB to
//! `mmap` and back to the system when it is freed, so the next such
//! block is fresh memory again: a page fault and a cleared page for every
//! 4 KiB touched, a third of the CPU time of the 125 MB folded bench. With
//! blocks up to 32 MiB kept in the heap and reused, one arena per core,
//! that bench builds in 0.70 s instead of 0.76 s (median of 10 alternating
//! runs) for 323 MB at its peak instead of 281 MB, well under inferno's
//! 243 MB × 1.5.
//!
//! Blocks of 4 MiB and more now go to `mmap` again: the tree's columns
//! and shapes of a big profile are far larger, and kept in the heap they
//! left holes the pages then grew around. With 4 MiB the folded bench
//! peaks at 260 MiB instead of 276 MiB at the same speed (0.75 s against
//! 0.77 s, 7 alternating runs; the 20,000-name shape 1.18 s against
//! 1.15 s, 361 MiB against 364 MiB).

/// Blocks up to this size come from the heap and are reused once freed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 4 << 20;

/// Free memory at the top of the heap beyond this goes back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: libc::c_int = 64 << 20;

/// Sets the allocator up; call first, before any other thread starts.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let arenas = libc::c_int::try_from(cores.max(2)).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only changes the allocator's parameters, and no
        // other thread exists yet. A parameter it refuses stays as it was.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
            libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}
