//! What to say about a file no format recognised: what it looks like (a
//! JSON object and its first keys, an XML document and its root, text and
//! how many of its lines read as folded stacks, binary data) and the
//! formats of that kind, the closest candidates, instead of every format
//! perfatlas reads.
//!
//! This module owns the message only. Each format's signature stays with
//! its reader; the kind of each format is listed here, and a test checks
//! that every reader is listed.

use super::{folded, measurements, sniff, text};

/// What a file's first bytes look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Json,
    Xml,
    Text,
    Binary,
}

/// The profile formats read from files of each kind, by [`super::Format`]
/// name. JFR is both: the JSON of `jfr print --json` and the recording.
const PROFILE_KINDS: &[(&str, &[Kind])] = &[
    ("native", &[Kind::Json]),
    ("speedscope", &[Kind::Json]),
    ("firefox-profiler", &[Kind::Json]),
    ("chrome-trace", &[Kind::Json]),
    ("heapprofile", &[Kind::Json]),
    ("cpuprofile", &[Kind::Json]),
    ("jfr", &[Kind::Json, Kind::Binary]),
    ("dhat", &[Kind::Json]),
    ("massif", &[Kind::Text]),
    ("pyinstrument", &[Kind::Json]),
    ("pyisession", &[Kind::Json]),
    ("pstats", &[Kind::Binary]),
    ("pprof", &[Kind::Binary]),
    ("perf-script", &[Kind::Text]),
    ("callgrind", &[Kind::Text]),
    ("gprof", &[Kind::Text]),
    ("folded", &[Kind::Text]),
];

/// How much of the file is looked at.
const WINDOW: usize = 8192;

/// The message for a file no format recognised: "unrecognised format: "
/// then what the file looks like and the formats of its kind.
pub fn message(bytes: &[u8]) -> String {
    let kind = kind_of(bytes);
    let looks = match kind {
        Kind::Json => json_description(bytes),
        Kind::Xml => xml_description(bytes),
        Kind::Text => text_description(bytes),
        Kind::Binary => "binary data that no binary format reads".to_string(),
    };
    let mut candidates: Vec<&str> = PROFILE_KINDS
        .iter()
        .filter(|(_, kinds)| kinds.contains(&kind))
        .map(|(name, _)| *name)
        .collect();
    let tools = match kind {
        Kind::Json => measurements::json_tool_labels(),
        Kind::Xml | Kind::Text => measurements::text_tool_labels()
            .into_iter()
            .filter(|label| (kind == Kind::Xml) == label.contains("XML"))
            .collect(),
        Kind::Binary => Vec::new(),
    };
    if kind == Kind::Xml {
        candidates.clear();
    }
    let mut said = format!("unrecognised format: {looks}");
    if !candidates.is_empty() {
        said.push_str(&format!(
            "; the closest formats read: {}",
            candidates.join(", ")
        ));
    }
    if !tools.is_empty() {
        let joiner = if candidates.is_empty() {
            "; the closest formats read: measurements from"
        } else {
            "; or measurements from"
        };
        said.push_str(&format!("{joiner} {}", tools.join(", ")));
    }
    said
}

fn kind_of(bytes: &[u8]) -> Kind {
    let head = super::head(bytes, WINDOW);
    let looks_binary = !text::is_utf16(head)
        && (std::str::from_utf8(head).is_err_and(|e| e.valid_up_to() + 4 < head.len())
            || head
                .iter()
                .any(|&b| b < 0x09 || (0x0e..0x20).contains(&b) && b != 0x1b));
    if looks_binary {
        return Kind::Binary;
    }
    match sniff::JsonHead::new(bytes, WINDOW).opener() {
        Some('{' | '[') => Kind::Json,
        Some('<') => Kind::Xml,
        _ => Kind::Text,
    }
}

/// "a JSON object (keys `a`, `b`, …) that …" (its first top-level keys).
fn json_description(bytes: &[u8]) -> String {
    let head = sniff::JsonHead::new(bytes, WINDOW);
    let document = head.document();
    let shape = if document.starts_with('[') {
        "array"
    } else {
        "object"
    };
    let keys = top_level_keys(document, 6);
    if keys.is_empty() {
        return format!("a JSON {shape} that no JSON format reads");
    }
    let keys: Vec<String> = keys.iter().map(|k| format!("`{}`", shorten(k))).collect();
    format!(
        "a JSON {shape} (keys {}) that no JSON format reads",
        keys.join(", ")
    )
}

/// The first `n` distinct keys of the objects directly inside the
/// document (the object itself, or an array's first objects), as far as
/// the start of the file shows them.
fn top_level_keys(document: &str, n: usize) -> Vec<String> {
    let wanted_depth = if document.starts_with('[') { 2 } else { 1 };
    let mut keys: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut chars = document.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth = depth.saturating_sub(1),
            '"' => {
                let start = at + 1;
                let mut end = None;
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => {
                            end = Some(i);
                            break;
                        }
                        _ => {}
                    }
                }
                let Some(end) = end else { break };
                let rest = document[end + 1..].trim_start();
                let is_key = rest.starts_with(':');
                let key = &document[start..end];
                if is_key && depth == wanted_depth && !keys.iter().any(|k| k == key) {
                    keys.push(key.to_string());
                    if keys.len() == n {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    keys
}

/// "an XML document (root `<name>`) that …".
fn xml_description(bytes: &[u8]) -> String {
    let head = sniff::JsonHead::new(bytes, WINDOW);
    let root = head
        .document()
        .split('<')
        .skip(1)
        .find(|tag| !tag.starts_with(['?', '!']))
        .map(|tag| {
            tag.split(|c: char| c.is_whitespace() || c == '>' || c == '/')
                .next()
                .unwrap_or_default()
                .to_string()
        });
    match root {
        Some(root) if !root.is_empty() => {
            format!(
                "an XML document (root `<{}>`) that no XML format reads",
                shorten(&root)
            )
        }
        _ => "an XML document that no XML format reads".to_string(),
    }
}

/// "text in which N of the first M lines read as folded stacks (…)", when
/// at least a tenth of them do; otherwise "text that no text format reads".
/// Prose has the odd line that ends in a number ("… 200 versions × 3"), and
/// such a line reads as a one-frame stack: counting it would point a
/// changelog's reader at the folded format.
fn text_description(bytes: &[u8]) -> String {
    let (stacks, lines) = folded::stack_lines_at_start(bytes);
    if stacks == 0 || stacks * 10 < lines {
        return "text that no text format reads".to_string();
    }
    format!(
        "text in which {stacks} of the first {lines} lines read as folded stacks \
         (`frame;frame;… count`), where at least half must"
    )
}

/// At most 40 characters of a name from the file, for the message.
fn shorten(name: &str) -> String {
    match name.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &name[..at]),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FORMATS;

    #[test]
    fn every_profile_format_has_a_kind() {
        for format in FORMATS {
            assert!(
                PROFILE_KINDS.iter().any(|(name, _)| *name == format.name()),
                "{} is not in PROFILE_KINDS",
                format.name()
            );
        }
    }

    #[test]
    fn a_json_object_names_its_keys_and_the_json_formats() {
        let said = message(br#"{"foo": {"x": 1}, "bar": [1, 2], "baz\"q": 3}"#);
        assert!(
            said.contains("a JSON object (keys `foo`, `bar`, `baz\\\"q`)"),
            "{said}"
        );
        assert!(
            said.contains("speedscope, firefox-profiler, chrome-trace"),
            "{said}"
        );
        assert!(said.contains("Criterion"), "{said}");
        assert!(!said.contains("folded"), "{said}");
        assert!(!said.contains("go test -bench"), "{said}");
    }

    #[test]
    fn an_array_names_its_objects_keys() {
        let said = message(br#"[{"name": "a", "value": 1}, {"name": "b", "unit": "ms"}]"#);
        assert!(
            said.contains("a JSON array (keys `name`, `value`, `unit`)"),
            "{said}"
        );
    }

    #[test]
    fn prose_with_one_line_ending_in_a_number_is_text_no_format_reads() {
        let mut prose = String::from("A history of 200 versions × 3\n");
        for i in 0..18 {
            prose.push_str(&format!("Line {i} of the changelog, in words.\n"));
        }
        let said = message(prose.as_bytes());
        assert!(said.contains("text that no text format reads"), "{said}");
        // Two lines in twenty are a tenth: counted.
        let said = message(format!("main;work 5\n{prose}").as_bytes());
        assert!(
            said.contains("2 of the first 20 lines read as folded stacks"),
            "{said}"
        );
    }

    #[test]
    fn text_says_how_many_lines_read_as_folded_stacks() {
        let said = message(b"a;b 1\nhello world\nfoo;bar 3\nsome text\nmore: text\nlast line\n");
        assert!(
            said.contains("2 of the first 6 lines read as folded stacks"),
            "{said}"
        );
        assert!(
            said.contains("perf-script, callgrind, gprof, folded"),
            "{said}"
        );
        assert!(said.contains("go test -bench"), "{said}");
        assert!(!said.contains("speedscope"), "{said}");
        assert!(!said.contains("Catch2"), "{said}");
    }

    #[test]
    fn xml_names_its_root_and_the_xml_reader() {
        let said = message(b"<?xml version=\"1.0\"?>\n<testsuites name=\"x\"><a/></testsuites>");
        assert!(said.contains("(root `<testsuites>`)"), "{said}");
        assert!(
            said.contains("measurements from Catch2 (XML reporter)"),
            "{said}"
        );
        assert!(!said.contains("folded"), "{said}");
    }

    #[test]
    fn binary_data_names_the_binary_formats_only() {
        let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7919 % 251) as u8).collect();
        let said = message(&bytes);
        assert!(said.contains("binary data"), "{said}");
        assert!(said.contains("jfr, pstats, pprof"), "{said}");
        assert!(!said.contains("measurements"), "{said}");
    }

    #[test]
    fn a_long_key_is_shortened() {
        let key = "k".repeat(500);
        let said = message(format!("{{\"{key}\": 1}}").as_bytes());
        assert!(said.len() < 600, "{said}");
        assert!(said.contains(&format!("`{}…`", "k".repeat(40))), "{said}");
    }
}
