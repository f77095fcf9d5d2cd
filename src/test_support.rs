//! Helpers shared by unit tests.

/// Bytes of a file of the shared corpus (`../shared/corpus/REL`), or `None`
/// with a note when the corpus is not beside the checkout (it always is in
/// CI, where a missing corpus fails `tests/corpus.rs`).
pub fn corpus(rel: &str) -> Option<Vec<u8>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
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
