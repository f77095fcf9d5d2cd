#![no_main]
//! Chrome trace-event files with V8 profile chunks: any bytes read as
//! one, whatever the sniffer says; errors, never panics.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{trace_events::TraceEvents, Format, Input};

fuzz_target!(|data: &[u8]| {
    let input = Input {
        file_name: "trace.json",
        bytes: data,
    };
    let _ = TraceEvents.sniff(&input);
    if let Ok(parsed) = TraceEvents.parse(&input) {
        let _ = perfatlas::convert::to_folded(&parsed, 0);
    }
});
