#![no_main]
//! The build cache's gathered measurements, read as a build that takes
//! every file they cover would read them (the file since the base file is
//! decoded by the same code).
use libfuzzer_sys::fuzz_target;
use perfatlas::input::load::{read_gathered, GATHERED_FILE};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("perfatlas-fuzz-gathered-{}", std::process::id()));
    if std::fs::create_dir_all(&dir).is_ok() && std::fs::write(dir.join(GATHERED_FILE), data).is_ok() {
        let _ = read_gathered(&dir);
    }
});
