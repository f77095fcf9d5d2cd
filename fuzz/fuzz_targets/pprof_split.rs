#![no_main]
//! A pprof profile split as it is streamed (`pprof::split`, what a build
//! does with a big file) reads only when the whole file reads, and then as
//! the same profile: a file that does not split is read whole, whose
//! errors name the place. Gzipped seeds are decompressed first.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::{pprof, records, text, Loaded};

fuzz_target!(|data: &[u8]| {
    let unzipped;
    let bytes = match text::is_gzip(data) {
        true => match text::gunzip(data) {
            Ok(b) => {
                unzipped = b;
                &unzipped[..]
            }
            Err(_) => return,
        },
        false => data,
    };
    let Ok(Some(split)) = pprof::split(bytes, u64::MAX) else {
        return;
    };
    let Some(staged) = pprof::stage_split(&split) else {
        return;
    };
    let Ok(read) = staged.read_samples(&pprof::Buffer(bytes)) else {
        return;
    };
    let streamed = read.finish();
    let whole = pprof::read_whole(bytes).expect("read split, so it reads whole");
    let entry = |parsed| records::encode(&Loaded::Profile("pprof", Box::new(parsed)));
    assert!(entry(streamed) == entry(whole), "read split, it differs");
});
