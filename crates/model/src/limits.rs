//! Resource limits for one input file, so a hostile or accidental input
//! (a generated stack of a million distinct functions, a gzip bomb) fails
//! with a clear message instead of exhausting memory. Each is far above
//! what real profilers write; the README lists them.
//!
//! Parsers build their frame table and tree with [`FrameTable::new`] and
//! [`Profile::new`](super::Profile::new), which carry these limits: past a
//! limit the structure stops growing and remembers it, and the file is then
//! rejected as a whole (`input::parse_bytes`). Stacks deeper than
//! [`MAX_DEPTH`] are not a reason to reject: they are cut there, what ran
//! deeper counted in one frame that says so, and the file is read with a
//! warning. Tables and trees built by the analysis have no limits.
//!
//! [`FrameTable::new`]: super::FrameTable::new

/// Largest input file read, compressed or not.
pub const MAX_INPUT_BYTES: u64 = 2 << 30;
/// Largest size a gzip input may expand to, by default (`build
/// --gzip-limit` sets another). Lower than the file size limit: a plain
/// file's memory is bounded by what is on disk, a gzip file's only by
/// this (a 3.7 MB gzip of 1.9 GiB of folded lines cost 2.3 GB to read).
/// Expansion is counted before any of it is kept, so data past it is
/// refused without memory.
pub const MAX_DECOMPRESSED: u64 = 512 << 20;
/// Bytes of input (files as read, gzip data as expanded) that the
/// parallel reads of a build hold at once: reads that would go past it
/// wait, and a file bigger than it is read alone. Memory then grows with
/// the inputs' sizes, not with `-j` times the size limit.
pub const READ_BUDGET: u64 = 1 << 30;
/// Most distinct frames (function, file, line) in one file. Memory grows by
/// about 2 KB per distinct frame across the pages that show it.
pub const MAX_FRAMES: usize = 1_000_000;
/// Most calling contexts (call-tree nodes) in one file: about 200 bytes
/// each while building the site.
pub const MAX_CONTEXTS: usize = 10_000_000;
/// Deepest stack kept, in frames: a deeper one is cut there (profilers
/// cut theirs far sooner: perf at 127 frames, async-profiler at 2,048),
/// and the frames past it are counted in one frame
/// ([`cut_frame_name`]). A stack of a million distinct frames cost 2.7 GB
/// and 31 s to build; cut here, 0.3 GB and 3.6 s.
pub const MAX_DEPTH: u32 = 100_000;

/// The name of the frame that holds what ran deeper than [`MAX_DEPTH`].
pub fn cut_frame_name() -> String {
    format!("[frames deeper than {}]", thousands(u64::from(MAX_DEPTH)))
}

/// Which limit a frame table or tree ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitHit {
    Frames,
    Contexts,
}

impl LimitHit {
    /// The sentence shown for a file rejected by this limit.
    pub fn message(self) -> String {
        let (what, limit) = match self {
            LimitHit::Frames => ("distinct frames", MAX_FRAMES as u64),
            LimitHit::Contexts => ("calling contexts", MAX_CONTEXTS as u64),
        };
        format!(
            "more than {} {what}, the limit for one file; the file is skipped",
            thousands(limit)
        )
    }
}

/// `n` with a comma between each group of three digits.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_limit() {
        assert_eq!(
            LimitHit::Frames.message(),
            "more than 1,000,000 distinct frames, the limit for one file; the file is skipped"
        );
        assert!(LimitHit::Contexts
            .message()
            .contains("10,000,000 calling contexts"));
        assert_eq!(cut_frame_name(), "[frames deeper than 100,000]");
    }
}
