#![no_main]
//! Any bytes as a measurement file: sniffing, every measurement reader it
//! leads to, JSON or text (`go test -bench` output is read as lines), with
//! a plain path and a Criterion-shaped one, which names the benchmark, and
//! the native writer on whatever parses, whose output must be recognised
//! again. `fuzz/run-all.sh` seeds it with every fixture, the Go and Bencher
//! Metric Format ones and JMH's (a JSON array) among them.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::measurements::{is_tool_byproduct, sniff_and_parse, write_native};
fuzz_target!(|data: &[u8]| {
    for path in ["fuzz.json", "criterion/group/function 1/new/sample.json"] {
        let _ = is_tool_byproduct(path);
        if let Some(Ok(file)) = sniff_and_parse(path, data) {
            let json = write_native(&file.benchmarks);
            assert!(sniff_and_parse("again.json", json.as_bytes()).is_some());
        }
    }
});
