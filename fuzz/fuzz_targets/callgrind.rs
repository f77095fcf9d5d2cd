#![no_main]
use libfuzzer_sys::fuzz_target;
fuzz_target!(|data: &[u8]| {
    // The reader and the profile it builds (sniffing would turn most
    // inputs away), then the whole path under valgrind's file name.
    if let Ok(costs) = perfatlas::input::callgrind::read(data) {
        let _ = perfatlas::input::callgrind::profile(&costs);
    }
    let _ = perfatlas::input::parse_bytes("callgrind.out.1", data);
});
