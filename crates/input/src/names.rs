//! Symbol names as native profilers write them: Rust mangling undone, so
//! the same function reads the same whichever tool captured it.

use std::borrow::Cow;

/// Demangles a Rust symbol (legacy `_ZN…E` or v0 `_R…`), dropping the hash
/// suffix; any other name is returned as it is.
pub fn demangle(name: &str) -> Cow<'_, str> {
    let looks_rust = name.starts_with("_R") || (name.starts_with("_ZN") && name.ends_with('E'));
    if !looks_rust {
        return Cow::Borrowed(name);
    }
    match rustc_demangle::try_demangle(name) {
        Ok(d) => Cow::Owned(format!("{d:#}")),
        Err(_) => Cow::Borrowed(name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_symbols_from_the_corpus_demangle() {
        // ../shared/corpus/speedscope/linux-perf/rust-mangled.linux-perf.txt
        assert_eq!(
            demangle("_RINvNtCse0yjq9ZQveU_3std2rt10lang_startuECs8K9WJNlS7Dz_5trace"),
            "std::rt::lang_start::<()>"
        );
        assert_eq!(
            demangle("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
            "core::ptr::drop_in_place"
        );
        assert_eq!(demangle("_Z4betav"), "_Z4betav");
        assert_eq!(demangle("main"), "main");
    }
}
