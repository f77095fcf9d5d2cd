//! How Valgrind's tools name a code location, shared by the DHAT
//! ([`super::dhat`]) and massif ([`super::massif`]) readers:
//!
//! ```text
//! 0x1091B0: make_buffer (alloc.c:12)
//! 0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)
//! 0x4011C2: ??? (in /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)
//! 0x10A2F3: std::vector<int>::push_back(int const&) (stl_vector.h:1198)
//! ```
//!
//! An address, the function (demangled, so it may hold parentheses and
//! spaces), then in parentheses either `FILE:LINE` (with debug
//! information) or `in OBJECT`. The location is read from the end of the
//! string, so a C++ name's own parentheses stay in the function. A string
//! that is not of this shape becomes a frame named by the whole string.
//!
//! `FILE:LINE` is the line being executed in that function (the call, or
//! the allocation), not where the function starts: readers fold frames of
//! one function into one ([`model::fold_sampled_lines`]). `in OBJECT`
//! becomes the frame's module; such a frame has no file.

use model::Frame;

/// The frame a Valgrind location string names.
pub fn parse(text: &str) -> Frame {
    let rest = strip_address(text);
    let (function, place) = split_place(rest);
    let function = match function.trim() {
        "" => "???",
        f => f,
    };
    let mut frame = Frame::named(function);
    match place {
        Some(Place::Source(file, line)) => {
            frame.file = Some(file.to_string());
            frame.line = Some(line);
        }
        Some(Place::Object(object)) => frame.module = Some(object.to_string()),
        None => {}
    }
    frame
}

/// True when the location is in one of Valgrind's own preloaded objects
/// (`vgpreload_dhat-amd64-linux.so`, `vgpreload_massif-…`): the
/// replacement `malloc`, `calloc`, `realloc`, `operator new`, `memcpy`, …
/// through which the tool sees the program's calls.
pub fn is_tool_replacement(frame: &Frame) -> bool {
    frame.module.as_deref().is_some_and(|object| {
        object
            .rsplit('/')
            .next()
            .is_some_and(|name| name.starts_with("vgpreload_"))
    })
}

enum Place<'a> {
    Source(&'a str, u32),
    Object(&'a str),
}

/// The text after `0xHEX: `, or all of it when it does not start so.
fn strip_address(text: &str) -> &str {
    let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) else {
        return text;
    };
    match hex.split_once(": ") {
        Some((digits, rest)) if digits.bytes().all(|b| b.is_ascii_hexdigit()) => rest,
        _ => text,
    }
}

/// The function and the location in the last ` (…)` of `text`, when that
/// is a location (`FILE:LINE` with a number, or `in OBJECT`).
fn split_place(text: &str) -> (&str, Option<Place<'_>>) {
    let Some(inner) = text.strip_suffix(')') else {
        return (text, None);
    };
    let Some(open) = inner.rfind(" (") else {
        return (text, None);
    };
    let (function, place) = (&inner[..open], &inner[open + 2..]);
    if let Some(object) = place.strip_prefix("in ") {
        return (function, Some(Place::Object(object)));
    }
    match place.rsplit_once(':') {
        Some((file, line)) if !file.is_empty() => match line.parse::<u32>() {
            Ok(line) => (function, Some(Place::Source(file, line))),
            Err(_) => (text, None),
        },
        _ => (text, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_locations_give_file_and_line() {
        let f = parse("0x1091B0: make_buffer (alloc.c:12)");
        assert_eq!(f.function, "make_buffer");
        assert_eq!(f.file.as_deref(), Some("alloc.c"));
        assert_eq!(f.line, Some(12));
        assert_eq!(f.module, None);
    }

    #[test]
    fn objects_become_modules_and_tool_replacements_are_known() {
        let f = parse("0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)");
        assert_eq!(f.function, "malloc");
        assert_eq!(f.file, None);
        assert!(is_tool_replacement(&f));
        let libc = parse("0x48FA9A9: ??? (in /usr/lib/x86_64-linux-gnu/libc.so.6)");
        assert_eq!(libc.function, "???");
        assert!(!is_tool_replacement(&libc));
    }

    #[test]
    fn cpp_names_keep_their_parentheses() {
        let f = parse("0x10A2F3: std::vector<int>::push_back(int const&) (stl_vector.h:1198)");
        assert_eq!(f.function, "std::vector<int>::push_back(int const&)");
        assert_eq!(f.line, Some(1198));
        let g = parse("0x10A2F3: (anonymous namespace)::run()");
        assert_eq!(g.function, "(anonymous namespace)::run()");
        assert_eq!(g.file, None);
    }

    #[test]
    fn other_text_is_a_name() {
        assert_eq!(parse("[root]").function, "[root]");
        assert_eq!(parse("0xZZ: f (a.c:1)").function, "0xZZ: f");
        assert_eq!(parse("0x1: f (a.c:x)").function, "f (a.c:x)");
        assert_eq!(parse("0x1: ").function, "???");
        assert_eq!(parse("0x1: f (a.c:99999999999)").line, None);
    }
}
