#![no_main]
//! Source Map v3 files and bundles' `sourceMappingURL` comments: parsing
//! never panics, and every lookup answers with a source the map lists.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::source_map::{mapping_url, MapRef, SourceMap};

fn check(map: &SourceMap) {
    let lines = map.generated_lines().min(64) as u32;
    for line in 0..=lines {
        for column in [0, 1, 2, 7, 40, 1000, u32::MAX] {
            if let Some(found) = map.original(line, column) {
                assert!((found.source_index as usize) < map.source_count());
                assert_eq!(map.source(found.source_index), Some(found.source));
                let _ = map.source_content(found.source_index);
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(map) = SourceMap::parse("fuzz/out.js.map", data) {
        check(&map);
    }
    if let Ok(Some(MapRef::Inline(bytes))) = mapping_url(data) {
        if let Ok(map) = SourceMap::parse("fuzz/inline", &bytes) {
            check(&map);
        }
    }
});
