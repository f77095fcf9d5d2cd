#![no_main]
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{heapprofile::HeapProfile, Format, Input};
fuzz_target!(|data: &[u8]| {
    let _ = perfatlas::input::parse_bytes("fuzz.heapprofile", data);
    // Past the sniffing too, so mutations that lose a key still reach the reader.
    let _ = HeapProfile.parse(&Input {
        file_name: "fuzz.heapprofile",
        bytes: data,
    });
});
