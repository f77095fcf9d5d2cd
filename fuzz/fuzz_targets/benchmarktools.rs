#![no_main]
//! Any bytes as BenchmarkTools.jl's JSON: as a whole file, and as the
//! saved values of a file whose head is `BenchmarkTools.save`'s envelope
//! (so the reader, not only the sniffing, sees every input), and the
//! native writer on whatever parses, whose output must be recognised
//! again.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::measurements::{sniff_and_parse, write_native};
fuzz_target!(|data: &[u8]| {
    let mut wrapped = br#"[{"Julia":"1.11.3","BenchmarkTools":"1.6.0"},"#.to_vec();
    wrapped.extend_from_slice(data);
    wrapped.push(b']');
    for bytes in [data, &wrapped[..]] {
        if let Some(Ok(file)) = sniff_and_parse("results.json", bytes) {
            let json = write_native(&file.benchmarks);
            assert!(sniff_and_parse("again.json", json.as_bytes()).is_some());
        }
    }
});
