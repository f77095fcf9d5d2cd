#![no_main]
use libfuzzer_sys::fuzz_target;
fuzz_target!(|data: &[u8]| {
    // The reader and the profile it builds (sniffing would turn most
    // inputs away), then the whole path.
    if let Ok(report) = perfatlas::input::gprof::report(data) {
        let _ = perfatlas::input::gprof::profile(&report);
    }
    let _ = perfatlas::input::parse_bytes("report.txt", data);
});
