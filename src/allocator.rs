//! The process's allocator: how glibc's malloc is set for a build, and
//! big blocks mapped on huge pages.
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
//!
//! Those big blocks are mapped here ([`LargeBlocks`]) rather than by
//! malloc: each starts on a huge page and is advised to use transparent
//! huge pages (`MADV_HUGEPAGE`). Where the system's policy is `madvise`
//! (the bench machine's, and Ubuntu's default), a big block is then
//! faulted in 2 MiB at a time instead of 4 KiB: the 20,000-name folded
//! bench takes 25,000 page faults instead of 154,000, 0.18 s of system
//! time instead of 0.30 s, and builds in 0.75 s instead of 0.83 s (median
//! of 9 alternating runs) at the same peak. Where the policy is `always`,
//! the alignment lets a block's first and last 2 MiB use huge pages too;
//! where it is `never`, the advice does nothing.
//!
//! Not under a hypervisor that takes free memory back (a virtio balloon
//! whose driver reports free pages, [`free_pages_reported`]): the kernel
//! takes a huge page from the free blocks of 2 MiB, which are the ones it
//! has reported and the host has taken, and every one faulted in is then
//! the host's to find again, where 4 KiB pages mostly come from memory
//! freed a moment ago. On such a VM the 20,000-name folded bench built
//! in 0.51–1.04 s with the advice after 3 idle seconds (0.5–0.7 s of
//! system time in most runs) and in 0.55–0.57 s without it, which is
//! also its median right after another run (0.56 s against 0.67 s).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether big blocks are advised to use huge pages (see the module doc);
/// [`tune`] decides.
static ADVISE_HUGE_PAGES: AtomicBool = AtomicBool::new(true);

/// Blocks up to this size come from the heap and are reused once freed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 4 << 20;

/// Free memory at the top of the heap beyond this goes back to the system.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: libc::c_int = 64 << 20;

/// Sets the allocator up; call first, before any other thread starts.
pub fn tune() {
    let reported = free_pages_reported(std::path::Path::new("/sys/bus/virtio/devices"));
    ADVISE_HUGE_PAGES.store(!reported, Ordering::Relaxed);
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

/// The global allocator: blocks of [`LARGE_BLOCK`] bytes or more are
/// mapped on their own, huge-page aligned and advised to use huge pages;
/// the others come from the C library's malloc.
pub struct LargeBlocks;

/// Blocks at least this big are mapped by [`LargeBlocks`] (the same size
/// from which malloc would map them itself: [`MMAP_THRESHOLD`]).
const LARGE_BLOCK: usize = 4 << 20;

/// The size and alignment of a transparent huge page on x86-64 and arm64.
const HUGE_PAGE: usize = 2 << 20;

/// Alignment `mmap` and `mremap` always give.
const PAGE: usize = 4096;

fn is_large(size: usize, align: usize) -> bool {
    cfg!(target_os = "linux") && size >= LARGE_BLOCK && align <= PAGE
}

/// `size` rounded up to whole pages: the length of a block's mapping.
fn mapped_len(size: usize) -> usize {
    size.div_ceil(PAGE) * PAGE
}

// SAFETY: blocks are either malloc's (small, or over-aligned) or mappings of
// their own, told apart by the size and alignment of the layout, which the
// caller gives the same at every call for one block ([`GlobalAlloc`]'s
// contract). Mapped blocks are fresh anonymous memory, zeroed and page
// aligned, unmapped once, and never handed out twice.
unsafe impl GlobalAlloc for LargeBlocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size(), layout.align()) {
            map_large(layout.size())
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size(), layout.align()) {
            map_large(layout.size()) // anonymous mappings are zeroed
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(layout.size(), layout.align()) {
            unsafe { unmap_large(ptr, layout.size()) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (is_large(layout.size(), align), is_large(new_size, align)) {
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            (true, true) => unsafe { remap_large(ptr, layout.size(), new_size) },
            _ => unsafe { move_block(self, ptr, layout, new_size) },
        }
    }
}

/// A block moved between malloc and a mapping of its own: allocated anew,
/// copied, the old one freed.
unsafe fn move_block(
    alloc: &LargeBlocks,
    ptr: *mut u8,
    layout: Layout,
    new_size: usize,
) -> *mut u8 {
    // SAFETY (of the layout): the caller's new size and old alignment make
    // a valid layout (`GlobalAlloc::realloc`'s contract).
    let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
    let new = unsafe { alloc.alloc(new_layout) };
    if !new.is_null() {
        unsafe {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            alloc.dealloc(ptr, layout);
        }
    }
    new
}

/// A fresh mapping of `size` bytes starting on a huge page, advised to
/// use huge pages; null when the system has no memory for it.
#[cfg(target_os = "linux")]
fn map_large(size: usize) -> *mut u8 {
    let len = mapped_len(size);
    let Some(reserved) = len.checked_add(HUGE_PAGE) else {
        return std::ptr::null_mut();
    };
    // SAFETY: a new private anonymous mapping; no existing memory is named.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            reserved,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    let base = base as usize;
    let start = base.next_multiple_of(HUGE_PAGE);
    // SAFETY: the head before `start` and the tail after `start + len` are
    // parts of the mapping just made, which nothing else uses; the advice
    // only changes how the block's pages are backed.
    unsafe {
        if start > base {
            libc::munmap(base as *mut libc::c_void, start - base);
        }
        let tail = base + reserved - (start + len);
        if tail > 0 {
            libc::munmap((start + len) as *mut libc::c_void, tail);
        }
        if ADVISE_HUGE_PAGES.load(Ordering::Relaxed) {
            libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
    start as *mut u8
}

#[cfg(not(target_os = "linux"))]
fn map_large(_size: usize) -> *mut u8 {
    unreachable_large()
}

/// Unmaps a block [`map_large`] or [`remap_large`] made for `size` bytes.
unsafe fn unmap_large(ptr: *mut u8, size: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: the caller's block, a mapping of `mapped_len(size)` bytes.
    unsafe {
        libc::munmap(ptr.cast(), mapped_len(size));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, size, unreachable_large());
}

/// A mapped block grown or shrunk to `new_size` bytes, moved by the
/// kernel when it cannot grow in place (its pages move with it, nothing
/// is copied, and the huge-page advice stays); null when it cannot.
unsafe fn remap_large(ptr: *mut u8, size: usize, new_size: usize) -> *mut u8 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the caller's block, a mapping of `mapped_len(size)` bytes.
        let moved = unsafe {
            libc::mremap(
                ptr.cast(),
                mapped_len(size),
                mapped_len(new_size),
                libc::MREMAP_MAYMOVE,
            )
        };
        if moved == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        moved.cast()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (ptr, size, new_size);
        unreachable_large()
    }
}

/// Outside Linux no block is large ([`is_large`]).
#[cfg(not(target_os = "linux"))]
fn unreachable_large() -> *mut u8 {
    std::ptr::null_mut()
}

/// Whether a virtio balloon device among `devices` (sysfs's virtio
/// devices) has a driver that reports free pages to the host: device 5
/// with feature bit 5 (`VIRTIO_BALLOON_F_REPORTING`) negotiated, the
/// features file listing the bits as `0`s and `1`s from bit 0.
fn free_pages_reported(devices: &std::path::Path) -> bool {
    let Ok(entries) = std::fs::read_dir(devices) else {
        return false;
    };
    entries.flatten().any(|device| {
        let dir = device.path();
        let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        read("device").trim() == "0x0005"
            && read("features").as_bytes().get(5) == Some(&b'1')
            && dir.join("driver").exists()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(size: usize, align: usize) -> Layout {
        Layout::from_size_align(size, align).unwrap()
    }

    /// Fills `len` bytes at `ptr` with a pattern of their offsets.
    unsafe fn fill(ptr: *mut u8, len: usize) {
        for i in (0..len).step_by(4093) {
            unsafe { *ptr.add(i) = (i % 251) as u8 };
        }
    }

    /// Whether the first `len` bytes at `ptr` hold [`fill`]'s pattern.
    unsafe fn filled(ptr: *const u8, len: usize) -> bool {
        (0..len)
            .step_by(4093)
            .all(|i| unsafe { *ptr.add(i) } == (i % 251) as u8)
    }

    /// Whether the mapping that holds `ptr` has the huge-page advice: `hg`
    /// among its `VmFlags` in `/proc/self/smaps`.
    #[cfg(target_os = "linux")]
    fn advised_huge(ptr: *const u8) -> bool {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let at = ptr as usize;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_once(' ').map_or(line, |(r, _)| r);
            if let Some((start, end)) = range.split_once('-') {
                if let (Ok(s), Ok(e)) = (
                    usize::from_str_radix(start, 16),
                    usize::from_str_radix(end, 16),
                ) {
                    inside = (s..e).contains(&at);
                    continue;
                }
            }
            if inside && line.starts_with("VmFlags:") {
                return line.split_whitespace().any(|f| f == "hg");
            }
        }
        false
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_large_block_starts_on_a_huge_page_and_keeps_its_bytes_as_it_grows_and_shrinks() {
        let a = LargeBlocks;
        let size = LARGE_BLOCK + 12_345;
        unsafe {
            let p = a.alloc(layout(size, 8));
            assert!(!p.is_null());
            assert_eq!(
                p as usize % HUGE_PAGE,
                0,
                "a fresh mapping starts on a huge page"
            );
            assert!(advised_huge(p), "the mapping is advised to use huge pages");
            fill(p, size);
            let grown = a.realloc(p, layout(size, 8), 3 * size);
            assert!(!grown.is_null());
            assert!(filled(grown, size), "growing keeps the bytes");
            *grown.add(3 * size - 1) = 7;
            let shrunk = a.realloc(grown, layout(3 * size, 8), size);
            assert!(filled(shrunk, size), "shrinking keeps the bytes");
            // Down to malloc, and back up to a mapping.
            let small = a.realloc(shrunk, layout(size, 8), 4096);
            assert!(
                filled(small, 4096),
                "a block moved to malloc keeps its bytes"
            );
            let large = a.realloc(small, layout(4096, 8), size);
            assert!(
                filled(large, 4096),
                "a block moved to a mapping keeps its bytes"
            );
            a.dealloc(large, layout(size, 8));
        }
    }

    /// A balloon reporting free pages is found by its device id, its
    /// negotiated feature bit and its bound driver; another device with
    /// the same bit, a balloon without it or without a driver is not.
    #[test]
    fn free_page_reporting_is_told_by_the_balloon_s_features() {
        let dir = tempfile::tempdir().unwrap();
        let device = |name: &str, id: &str, features: &str, driver: bool| {
            let d = dir.path().join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("device"), format!("{id}\n")).unwrap();
            std::fs::write(d.join("features"), format!("{features}\n")).unwrap();
            if driver {
                std::fs::create_dir_all(d.join("driver")).unwrap();
            }
        };
        // This VM's own: the balloon's features as sysfs gave them.
        let reporting = "0110010100000000000000000000000010000000";
        let net = "1100010110111011000000000000010010000000";
        device("virtio2", "0x0001", net, true);
        assert!(!free_pages_reported(dir.path()), "a network device's bit 5");
        device(
            "virtio0",
            "0x0005",
            "0110000100000000000000000000000010000000",
            true,
        );
        assert!(!free_pages_reported(dir.path()), "a balloon without it");
        device("virtio1", "0x0005", reporting, false);
        assert!(!free_pages_reported(dir.path()), "a balloon with no driver");
        device("virtio3", "0x0005", reporting, true);
        assert!(free_pages_reported(dir.path()));
        assert!(!free_pages_reported(&dir.path().join("none")));
    }

    #[test]
    fn zeroed_blocks_are_zero_large_or_small() {
        let a = LargeBlocks;
        for size in [100, LARGE_BLOCK - 1, LARGE_BLOCK, 3 * LARGE_BLOCK + 1] {
            unsafe {
                let p = a.alloc_zeroed(layout(size, 8));
                assert!(!p.is_null());
                assert!(
                    (0..size).step_by(997).all(|i| *p.add(i) == 0),
                    "{size} bytes"
                );
                assert_eq!(*p.add(size - 1), 0);
                a.dealloc(p, layout(size, 8));
            }
        }
    }

    #[test]
    fn over_aligned_blocks_are_mallocs_and_keep_their_alignment() {
        let a = LargeBlocks;
        let l = layout(LARGE_BLOCK * 2, 1 << 16);
        assert!(!is_large(l.size(), l.align()));
        unsafe {
            let p = a.alloc(l);
            assert_eq!(p as usize % (1 << 16), 0);
            fill(p, l.size());
            let q = a.realloc(p, l, l.size() * 2);
            assert_eq!(q as usize % (1 << 16), 0);
            assert!(filled(q, l.size()));
            a.dealloc(q, layout(l.size() * 2, 1 << 16));
        }
    }

    #[test]
    fn vectors_in_this_process_grow_through_both_kinds_of_block() {
        // The test binary runs on `LargeBlocks` (see `main.rs`).
        let mut v: Vec<u64> = Vec::new();
        for i in 0..(3 * LARGE_BLOCK / 8) as u64 {
            v.push(i);
        }
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
        v.truncate(10);
        v.shrink_to_fit();
        assert_eq!(v, (0..10).collect::<Vec<u64>>());
    }
}
