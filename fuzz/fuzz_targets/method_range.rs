#![no_main]
//! Any source text (a repository's file is as untrusted as a profile) and
//! any sampled lines: finding a method's range and judging a diff never
//! panics, and a found range is ordered.
use libfuzzer_sys::fuzz_target;
use perfatlas::analysis::method_lines::{method_range, MethodSite};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let line = u16::from_le_bytes([data[0], data[1]]) as u32;
    let start = (data[2] & 1 == 1).then_some(line);
    let text = String::from_utf8_lossy(&data[4..]);
    for (file, name) in [
        ("a.py", "C.run"),
        ("a.go", "p.(*T).Run"),
        ("a.js", "run"),
        ("a.txt", "<module>"),
    ] {
        let site = MethodSite {
            file: file.into(),
            name: name.into(),
            start_line: start,
            sampled_lines: vec![line.max(1), line.saturating_add(data[3] as u32).max(1)],
        };
        if let Some(r) = method_range(&site, Some(&text)) {
            assert!(r.first <= r.last, "{r:?}");
        }
    }
});
