#![no_main]
//! Any field-execution filter text (a view in `perfatlas.toml` or the
//! page's filter box): parsing never panics, an error points inside the
//! text or just past it, and a filter that parses writes a normalised text
//! that parses back to an equal filter, whose JSON and evaluation on
//! properties made from the same text never panic.
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use perfatlas::analysis::field_filter::parse;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let filter = match parse(text) {
        Ok(filter) => filter,
        Err(error) => {
            assert!(error.column >= 1 && error.column <= text.chars().count() + 1);
            assert!(!error.message.is_empty());
            return;
        }
    };
    let normal = filter.text();
    let reparsed = parse(&normal).unwrap_or_else(|e| panic!("{normal:?} does not parse: {e}"));
    assert_eq!(reparsed, filter, "{normal:?}");
    assert_eq!(reparsed.text(), normal);
    let _ = filter.to_js();
    for properties in property_maps(text) {
        let _ = filter.matches(&properties);
    }
});

/// No properties; each word of the text mapped to the next word; every
/// word mapped to "1".
fn property_maps(text: &str) -> [BTreeMap<String, String>; 3] {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || "()=!<>≠≤≥\"'".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let next = words
        .windows(2)
        .map(|pair| (pair[0].to_string(), pair[1].to_string()))
        .collect();
    let ones = words
        .iter()
        .map(|w| (w.to_string(), "1".to_string()))
        .collect();
    [BTreeMap::new(), next, ones]
}
