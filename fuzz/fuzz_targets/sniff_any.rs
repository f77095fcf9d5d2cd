#![no_main]
//! Any bytes, any format: sniffing, gzip, every parser it leads to, and the
//! flame-graph layout of whatever parses.
use libfuzzer_sys::fuzz_target;
fuzz_target!(|data: &[u8]| {
    if let Ok((_, parsed)) = perfatlas::input::parse_bytes("fuzz", data) {
        let budget = perfatlas::analysis::flame::FlameBudget {
            max_frames: 2000,
            min_fraction: 0.0,
        };
        for m in 0..parsed.profile.metrics.len() {
            let _ =
                perfatlas::analysis::flame::layout(&parsed.profile.tree, &parsed.frames, m, budget);
        }
        let _ = perfatlas::convert::to_folded(&parsed, 0);
    }
});
