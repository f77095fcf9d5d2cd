#![no_main]
use libfuzzer_sys::fuzz_target;
fuzz_target!(|data: &[u8]| {
    let _ = perfatlas::input::parse_bytes("fuzz.json", data);
});
