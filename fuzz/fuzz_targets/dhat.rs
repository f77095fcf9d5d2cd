#![no_main]
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{dhat::Dhat, Format, Input};
fuzz_target!(|data: &[u8]| {
    let _ = perfatlas::input::parse_bytes("dhat.out.1", data);
    // Past the sniffing too, so mutations that lose the signature still reach the reader.
    let _ = Dhat.parse(&Input {
        file_name: "dhat.out.1",
        bytes: data,
    });
});
