#![no_main]
use libfuzzer_sys::fuzz_target;
fuzz_target!(|data: &[u8]| {
    // The reader itself (sniffing would turn most inputs away), then the
    // whole path with a `.prof` name, which pprof would also claim.
    let _ = perfatlas::input::pstats::read(data);
    let _ = perfatlas::input::parse_bytes("fuzz.prof", data);
});
