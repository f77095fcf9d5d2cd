#![no_main]
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{pyinstrument::Pyinstrument, Format, Input};
fuzz_target!(|data: &[u8]| {
    let _ = perfatlas::input::parse_bytes("pyinstrument.json", data);
    // Past the sniffing too, so mutations that lose the signature still reach the reader.
    let _ = Pyinstrument.parse(&Input {
        file_name: "pyinstrument.json",
        bytes: data,
    });
});
