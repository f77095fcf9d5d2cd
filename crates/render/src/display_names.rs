//! How a page shows a file: one short name for it on every page, the
//! version-independent path [`model::identity`] gives it
//! (`marked/src/Tokenizer.js` for
//! `file:///w/install/3.0.8/node_modules/marked/src/Tokenizer.js`), with
//! the path the profiler wrote in the element's tooltip. No page shows a
//! raw `file://` install path as text.

use std::borrow::Cow;

use model::PathRules;

/// The short name of `file` (a profile's path, or `path:line`): the
/// `file://` prefix and the install directories the identity rules
/// remove without knowing the versions (an installed package's
/// directories, a temporary directory) left out; the line kept.
pub fn shown_file(file: &str) -> Cow<'_, str> {
    let rules = PathRules::default();
    match rules.stable_file(file).0 {
        Cow::Borrowed(b) if b.len() == file.len() => Cow::Borrowed(file),
        other => Cow::Owned(other.into_owned()),
    }
}

/// `paths` as pages show them ([`shown_file`]), each once, joined by
/// commas: a file several profiles name differently.
pub fn shown_files(paths: &[String]) -> String {
    let mut shown: Vec<String> = Vec::new();
    for p in paths {
        let s = shown_file(p).into_owned();
        if !shown.contains(&s) {
            shown.push(s);
        }
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paths as the captured marked history and the Python sample's
    /// speedscope files hold them.
    #[test]
    fn install_paths_show_short_and_version_independent() {
        assert_eq!(
            shown_file(
                "file:///work/data/marked-work/3.0.8/node_modules/marked/src/Tokenizer.js:168"
            ),
            "marked/src/Tokenizer.js:168"
        );
        assert_eq!(
            shown_file("/tmp/pa-venv/markdown-3.6/lib/python3.11/site-packages/markdown/core.py"),
            "markdown/core.py"
        );
        assert_eq!(
            shown_file("file:///work/data/marked-work/bench-fixed.js:1"),
            "/work/data/marked-work/bench-fixed.js:1"
        );
        assert_eq!(
            shown_file("node:internal/main/run_main_module:1"),
            "node:internal/main/run_main_module:1"
        );
        assert_eq!(shown_file("markdown/core.py:357"), "markdown/core.py:357");
    }
}

/// Why a function's name ends in `#2`: functions of one name that start
/// at different lines of one file are numbered in the order they start
/// ([`model::identity`]). `None` for a name without a number.
pub fn numbered_reason(name: &str) -> Option<String> {
    let (base, n) = name.rsplit_once('#')?;
    if base.is_empty() || n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(format!(
        "{name}: the {} function named {base} in its file, counted from the top — several functions of that name start at different lines of it",
        ordinal(n)
    ))
}

fn ordinal(n: &str) -> String {
    let suffix = match (
        n.len() > 1 && n.as_bytes()[n.len() - 2] == b'1',
        n.as_bytes()[n.len() - 1],
    ) {
        (true, _) => "th",
        (_, b'1') => "st",
        (_, b'2') => "nd",
        (_, b'3') => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
mod numbered_tests {
    use super::*;

    #[test]
    fn a_numbered_name_says_why() {
        let why = numbered_reason("lex#2").unwrap();
        assert!(
            why.starts_with("lex#2: the 2nd function named lex"),
            "{why}"
        );
        assert!(numbered_reason("lex").is_none());
        assert!(numbered_reason("a#b").is_none());
        assert!(numbered_reason("x#11").unwrap().contains("11th"));
    }
}
