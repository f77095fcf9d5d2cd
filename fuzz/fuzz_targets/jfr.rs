#![no_main]
use libfuzzer_sys::fuzz_target;
// The JSON reader directly, whatever the sniffers say (sniff_any covers the
// routing); binary recordings need the `jfr` tool and a path, never run here.
fuzz_target!(|data: &[u8]| {
    let _ = perfatlas::input::jfr::parse_json(data);
});
