#![no_main]
//! Any bytes that parse, exported by `convert --to pprof` and `--to
//! speedscope`: writing never fails or panics, and perfatlas reads both
//! files back with the same metrics.
use libfuzzer_sys::fuzz_target;
use perfatlas::convert::{write, Target};

fuzz_target!(|data: &[u8]| {
    let Ok((_, parsed)) = perfatlas::input::parse_bytes("fuzz", data) else {
        return;
    };
    if parsed.profile.metrics.is_empty() {
        return;
    }
    for (target, name) in [
        (Target::Pprof, "out.pb.gz"),
        (Target::Speedscope, "out.speedscope.json"),
    ] {
        let mut out = Vec::new();
        write(&parsed, target, Some(0), "fuzz", &mut out).expect("writing to a Vec");
        match perfatlas::input::parse_bytes(name, &out) {
            Ok((_, back)) => assert_eq!(
                back.profile.metrics.len(),
                if target == Target::Speedscope { 1 } else { parsed.profile.metrics.len() },
                "{name}"
            ),
            Err(e) => panic!("{name} written by perfatlas does not read back: {e}"),
        }
    }
});
