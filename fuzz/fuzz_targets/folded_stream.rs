#![no_main]
//! Folded stacks parsed as they are read a chunk at a time (what a build
//! does with a big file) give what the same chunks give cut beforehand
//! (what it does with a file read whole): the same profile and warnings,
//! the same error, or both find the text is not UTF-8.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::folded::stream::{parse_both_ways, streams, Unstreamed};

fuzz_target!(|data: &[u8]| {
    if !streams(data) {
        return;
    }
    let size = (data.len() / 3).max(1);
    match parse_both_ways(data, size) {
        (Err(Unstreamed::NotUtf8), None) => {}
        (Ok(streamed), Some(Ok(cut))) => {
            assert_eq!(format!("{streamed:?}"), format!("{cut:?}"), "profiles differ")
        }
        (Err(Unstreamed::Parse(streamed)), Some(Err(cut))) => {
            assert_eq!(streamed.message, cut.message, "errors differ")
        }
        (streamed, cut) => panic!("streamed: {streamed:?}; cut: {cut:?}"),
    }
});
