#![no_main]
//! Any bytes as BenchmarkDotNet's JSON: as a whole file, and as the
//! `Benchmarks` member of a file whose head is BenchmarkDotNet's (so the
//! reader, not only the sniffing, sees every input), and the native writer
//! on whatever parses, whose output must be recognised again.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::measurements::{sniff_and_parse, write_native};
fuzz_target!(|data: &[u8]| {
    let mut wrapped = br#"{"Title":"f","HostEnvironmentInfo":{},"Benchmarks":"#.to_vec();
    wrapped.extend_from_slice(data);
    wrapped.push(b'}');
    for bytes in [data, &wrapped[..]] {
        if let Some(Ok(file)) = sniff_and_parse("f-report-full.json", bytes) {
            let json = write_native(&file.benchmarks);
            assert!(sniff_and_parse("again.json", json.as_bytes()).is_some());
        }
    }
});
