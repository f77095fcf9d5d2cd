#![no_main]
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{trace_events::TraceEvents, Format, Input};
// The Chrome trace reader itself, whatever sniffing would say: its event
// walk, the chunks' joining and the cpuprofile reader behind it.
fuzz_target!(|data: &[u8]| {
    let _ = TraceEvents.parse(&Input {
        file_name: "fuzz.json",
        bytes: data,
    });
});
