#![no_main]
//! Names perfatlas takes from the input directory and from profiles: a
//! file's benchmark and repetition, the natural order of version names,
//! the visible form of control and bidi characters, file-name slugs, and
//! Rust and C++ symbol demangling.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (benchmark, repetition) = perfatlas::input::walk::benchmark_and_repetition(&text);
    assert!(repetition >= 1);
    assert!(text.is_empty() || !benchmark.is_empty());
    let mid = (text.len() / 2..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let (a, b) = text.split_at(mid);
    let ab = perfatlas::input::walk::natural_cmp(a, b);
    assert_eq!(
        ab.reverse(),
        perfatlas::input::walk::natural_cmp(b, a),
        "antisymmetric"
    );
    let shown = perfatlas::model::visible(&text);
    assert_eq!(perfatlas::model::visible(&shown), shown, "idempotent");
    assert!(!shown
        .chars()
        .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)));
    let (label, full) = perfatlas::input::names::symbol(&text);
    if let Some(full) = full {
        assert!(text.starts_with("_Z") && !full.is_empty() && !label.is_empty());
    }
    let slug = perfatlas::render::paths::slug(&text);
    assert!(!slug.contains('/') && !slug.starts_with('.') && !slug.is_empty());
});
