#![no_main]
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{massif::Massif, Format, Input};
fuzz_target!(|data: &[u8]| {
    let _ = perfatlas::input::parse_bytes("massif.out.1", data);
    // Past the sniffing too, so mutations that lose the signature still reach the reader.
    let _ = Massif.parse(&Input {
        file_name: "massif.out.1",
        bytes: data,
    });
});
