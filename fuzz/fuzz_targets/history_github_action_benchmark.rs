#![no_main]
//! Any bytes as github-action-benchmark's `data.js`: sniffing and the
//! reader must give a history or an error, never panic; whatever it reads
//! writes as native measurements that are recognised again.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::imports::github_action_benchmark::{read, sniff};
use perfatlas::input::measurements::{sniff_and_parse, write_native};

fuzz_target!(|data: &[u8]| {
    let _ = sniff(data);
    if let Ok(history) = read("data.js", data) {
        for version in &history.versions {
            let json = write_native(&version.benchmarks);
            assert!(sniff_and_parse("again.json", json.as_bytes()).is_some());
        }
    }
});
