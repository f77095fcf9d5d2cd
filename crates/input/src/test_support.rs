//! Helpers shared by unit tests.

/// Bytes of a file of the shared corpus (`../shared/corpus/REL`), or `None`
/// with a note when the corpus is not beside the checkout (it always is in
/// CI, where a missing corpus fails `tests/corpus.rs`).
pub fn corpus(rel: &str) -> Option<Vec<u8>> {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("../shared/corpus")
        .join(rel);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("note: corpus file {rel} not found; test skipped");
            None
        }
    }
}

/// A history built from folded stacks: `(version, benchmark, repetition,
/// folded text)`, versions in the order they first appear.
pub fn history_from_folded(profiles: &[(&str, &str, u32, &str)]) -> model::History {
    use model::{History, ProfileEntry, Version};
    let mut history = History {
        title: "test".into(),
        ..History::default()
    };
    for (version, benchmark, repetition, text) in profiles {
        let v = match history.versions.iter().position(|x| x.name == *version) {
            Some(v) => v,
            None => {
                history.versions.push(Version {
                    name: version.to_string(),
                    label: version.to_string(),
                    ..Version::default()
                });
                history.versions.len() - 1
            }
        };
        let (format, parsed) = crate::parse_bytes("t.folded", text.as_bytes())
            .unwrap_or_else(|e| panic!("{version}/{benchmark}: {e:?}"));
        let map = history.frames.absorb(parsed.frames);
        let mut profile = parsed.profile;
        profile.tree.remap_frames(&map);
        history.profiles.push(ProfileEntry {
            version: v,
            benchmark: benchmark.to_string(),
            repetition: *repetition,
            source: format!("{version}/{benchmark}.{repetition}.folded"),
            format,
            profile,
        });
    }
    history
}

/// A profile's allocation sites as text, without their hash-map indexes
/// (whose `Debug` order varies between two maps of the same content).
pub fn allocations_text(a: &model::Allocations) -> String {
    format!(
        "{:?} {:?} {:?} {} {:?} {:?} {:?} {}",
        a.classes,
        a.sites,
        a.count_kind,
        a.bytes_known,
        a.bytes_note,
        a.class_source,
        a.calls,
        a.call_order
    )
}
