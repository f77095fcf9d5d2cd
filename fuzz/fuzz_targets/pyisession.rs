#![no_main]
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{pyisession::Pyisession, Format, Input};
fuzz_target!(|data: &[u8]| {
    let _ = perfatlas::input::parse_bytes("run.pyisession", data);
    // Past the sniffing too, so mutations that lose the signature still reach the reader.
    let _ = Pyisession.parse(&Input {
        file_name: "run.pyisession",
        bytes: data,
    });
});
