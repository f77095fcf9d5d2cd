#![no_main]
//! Digests (`.padigest` archives): the whole file; its body without the
//! checksum in the way (the raw part's stream of entries, the records
//! part); and a raw stream or records part on their own.
use std::io::Read;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use perfatlas::input::digest::{self, parsed, raw};
use perfatlas::input::records;

/// Reads every entry and throws it away.
struct Discard;

impl raw::Visit for Discard {
    fn file(&mut self, _: &Path, _: u64, content: &mut dyn Read) -> std::io::Result<()> {
        std::io::copy(content, &mut std::io::sink()).map(|_| ())
    }
    fn unreadable(&mut self, _: String, _: String) {}
}

fn records_of(part: &[u8]) {
    if let Ok(record) = parsed::decode(part) {
        for file in &record.files {
            let _ = file.loaded();
        }
        let _ = record.walk_skipped("v");
        let _ = record.field("v");
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = digest::open(data);
    if let Ok((raw_part, records)) = digest::parts_of_body(data) {
        let _ = raw::read(raw_part, &mut Discard);
        if let Some((_, part)) = records {
            records_of(part);
        }
    }
    let _ = raw::read(data, &mut Discard);
    records_of(data);
    let _ = records::decode(data);
});
