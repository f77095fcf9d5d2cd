#![no_main]
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{firefox_profiler::FirefoxProfiler, Format, Input};
// The Firefox Profiler reader itself, whatever sniffing would say: its
// version check, the tables' index checks and the prefix-chain walk.
fuzz_target!(|data: &[u8]| {
    let _ = FirefoxProfiler.parse(&Input {
        file_name: "fuzz.json",
        bytes: data,
    });
});
