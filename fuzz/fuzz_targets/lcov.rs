#![no_main]
//! Any bytes as a field execution's files, the reader picked by the first
//! byte: `<` Cobertura XML, `{` JSON properties, anything else both LCOV
//! and `key=value` properties (so the real files seeded from
//! tests/fixtures/field reach their own reader). Whatever parses must keep
//! the readers' promises: source files sorted by path, each once; lines
//! sorted, each once, numbered from 1; functions sorted by line and name.
use libfuzzer_sys::fuzz_target;
use perfatlas::input::field::{cobertura, lcov, properties, FileCoverage};

fn check(files: &[FileCoverage]) {
    assert!(files.windows(2).all(|w| w[0].path < w[1].path));
    for file in files {
        assert!(file.lines.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(file.lines.first().is_none_or(|(line, _)| *line > 0));
        assert!(file
            .functions
            .windows(2)
            .all(|w| (w[0].line, &w[0].name) < (w[1].line, &w[1].name)));
    }
}

fuzz_target!(|data: &[u8]| {
    match data.first() {
        Some(b'<') => {
            if let Ok((files, _)) = cobertura::parse(data) {
                check(&files);
            }
        }
        Some(b'{') => {
            let _ = properties::parse_json(data);
        }
        _ => {
            if let Ok((files, _)) = lcov::parse(data) {
                check(&files);
            }
            let _ = properties::parse_properties(data);
        }
    }
});
