#![no_main]
//! Digests (`.padigest`): the framed file, its compressed body without the
//! checksum in the way, and the parsed-file records inside.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{digest, records};

fuzz_target!(|data: &[u8]| {
    let _ = digest::decode(data);
    if let Ok(record) = digest::decode_body(data) {
        for file in &record.files {
            let _ = file.loaded();
        }
        let _ = record.walk_skipped("v");
    }
    let _ = records::decode(data);
});
