//! Symbol names as native profilers write them: Rust and C++ mangling
//! undone, so the same function reads the same whichever tool captured it.
//!
//! A C++ symbol (Itanium ABI, `_Z…`, as g++ and clang write it on Linux)
//! has two readings: the full one, as `c++filt` prints it
//! (`void shapes::sort_by_name<int>(std::vector<std::pair<…>, …>&)`), kept
//! for tooltips as the frame's `full_name`, and a label for flame graphs
//! and tables: the qualified name without return type or parameter list,
//! every template argument list collapsed to `<…>`
//! (`shapes::sort_by_name<…>`), as `go tool pprof` shortens them.

use std::borrow::Cow;

use cpp_demangle::{DemangleOptions, Symbol};

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

/// A symbol as a frame shows it: `(label, full name)`. Rust symbols are
/// demangled (no full name: the label is the whole name); C++ symbols get
/// a short label and their full demangled name; anything else, or a
/// symbol that does not demangle, stays as it is.
pub fn symbol(name: &str) -> (Cow<'_, str>, Option<String>) {
    let rust = demangle(name);
    if matches!(rust, Cow::Owned(_)) {
        return (rust, None);
    }
    match demangle_cpp(name) {
        Some((label, full)) => (Cow::Owned(label), Some(full)),
        None => (Cow::Borrowed(name), None),
    }
}

/// A C++ symbol's label and full demangled name, or `None` when `name` is
/// not one (it must start with `_Z` and demangle whole).
pub fn demangle_cpp(name: &str) -> Option<(String, String)> {
    if !name.starts_with("_Z") {
        return None;
    }
    let symbol = Symbol::new(name).ok()?;
    let full = symbol.demangle().ok()?;
    let short = DemangleOptions::new().no_params().no_return_type();
    let bare = symbol.demangle_with_options(&short).ok()?;
    Some((collapse_templates(&bare), full))
}

/// `name` with each outermost `<…>` (a template argument list) replaced by
/// `<…>`. The `<` and `>` of operator names (`operator<`, `operator<<=`,
/// `operator->`, `operator<=>`) are not brackets; an unbalanced name is
/// returned as it is.
fn collapse_templates(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut depth = 0usize;
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(op) = operator_at(rest) {
            if depth == 0 {
                out.push_str(op);
            }
            rest = &rest[op.len()..];
            continue;
        }
        match c {
            '<' => {
                if depth == 0 {
                    out.push_str("<…>");
                }
                depth += 1;
            }
            '>' if depth > 0 => depth -= 1,
            '>' => return name.to_string(),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
        rest = &rest[c.len_utf8()..];
    }
    if depth == 0 {
        out
    } else {
        name.to_string()
    }
}

/// The operator name at the start of `s` whose symbol holds `<` or `>`
/// (`operator<<=` before `operator<<` before `operator<`).
fn operator_at(s: &str) -> Option<&'static str> {
    const OPERATORS: [&str; 9] = [
        "operator<=>",
        "operator<<=",
        "operator>>=",
        "operator<<",
        "operator>>",
        "operator<=",
        "operator>=",
        "operator->",
        "operator<",
    ];
    if !s.starts_with("operator") {
        return None;
    }
    OPERATORS
        .iter()
        .chain(&["operator>"])
        .find(|op| s.starts_with(**op))
        .copied()
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

    /// Every C++ symbol of the perf fixture (`tests/fixtures/cpp-perf/`):
    /// the full name is c++filt's, and the label is it without return
    /// type, parameters and template arguments.
    #[test]
    fn cpp_symbols_of_the_fixture_read_as_cxxfilt_prints_them() {
        let tsv = include_str!("../../../tests/fixtures/cpp-perf/symbols.cxxfilt.tsv");
        let mut checked = 0;
        for line in tsv.lines() {
            let (mangled, cxxfilt) = line.split_once('\t').unwrap();
            let (label, full) = demangle_cpp(mangled).unwrap_or_else(|| panic!("{mangled}"));
            // One known difference: cpp_demangle writes the return type of
            // the function enclosing a lambda (`void f<int>(…)::{lambda…}`)
            // where c++filt leaves it out. Nothing else may differ.
            let known = full.replace("<void shapes::", "<shapes::");
            assert_eq!(known, cxxfilt, "{mangled}");
            assert!(!label.contains('(') || label.contains("{lambda"), "{label}");
            assert!(
                cxxfilt.contains(label.split("<…>").next().unwrap()),
                "{label}"
            );
            checked += 1;
        }
        assert!(checked >= 8, "{checked} symbols");
        let label = |s: &str| demangle_cpp(s).unwrap().0;
        assert_eq!(
            label("_ZNK6shapes11AccumulatorIdE3sumEv"),
            "shapes::Accumulator<…>::sum"
        );
        assert_eq!(label("_ZN6shapes4workEi"), "shapes::work");
        assert_eq!(
            label("_ZN6shapes12sort_by_nameIiEEvRSt6vectorISt4pairINSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEET_ESaISA_EE"),
            "shapes::sort_by_name<…>"
        );
        assert_eq!(
            label("_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base"),
            "std::_Rb_tree_increment"
        );
    }

    #[test]
    fn operators_are_not_template_brackets() {
        assert_eq!(collapse_templates("a::operator<<"), "a::operator<<");
        assert_eq!(
            collapse_templates("a<int>::operator< <b<c>>"),
            "a<…>::operator< <…>"
        );
        assert_eq!(collapse_templates("x::operator->"), "x::operator->");
        assert_eq!(
            collapse_templates("std::less<void>::operator()"),
            "std::less<…>::operator()"
        );
        assert_eq!(collapse_templates("unbalanced<"), "unbalanced<");
        assert_eq!(collapse_templates("unbalanced>"), "unbalanced>");
        let (label, full) = demangle_cpp("_ZlsRSoRK1A").unwrap();
        assert_eq!(
            (label.as_str(), full.as_str()),
            ("operator<<", "operator<<(std::ostream&, A const&)")
        );
    }

    #[test]
    fn symbol_picks_the_reading() {
        assert_eq!(symbol("main"), (Cow::Borrowed("main"), None));
        assert_eq!(symbol("_Z"), (Cow::Borrowed("_Z"), None));
        assert_eq!(
            symbol("_Znot a symbol"),
            (Cow::Borrowed("_Znot a symbol"), None)
        );
        let (label, full) = symbol("_ZN6shapes4workEi");
        assert_eq!(
            (label.as_ref(), full.as_deref()),
            ("shapes::work", Some("shapes::work(int)"))
        );
        let (label, full) = symbol("_ZN4core3ptr13drop_in_place17h0123456789abcdefE");
        assert_eq!((label.as_ref(), full), ("core::ptr::drop_in_place", None));
    }
}
