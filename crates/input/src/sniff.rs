//! The preamble the JSON formats share when they sniff: read the first
//! bytes of a file, find where the document starts (past byte-order marks
//! and whitespace) and ask whether a key is there.
//!
//! This module owns only how the start of a file is read and searched. The
//! signature of each format (which keys, in which combination, and what
//! rules another format out) stays with its parser.
//!
//! There are two readings of the start, and they do not recognise the same
//! files, so each format picks the one it has always used:
//!
//! * [`JsonHead`]: the window decoded as text (UTF-8, or UTF-16 after its
//!   byte-order mark), then leading U+FEFF and then Unicode whitespace
//!   skipped; keys are found with [`has_key`] (Unicode whitespace may come
//!   before the colon).
//!   Used by `cpuprofile`, `speedscope`, `heapprofile` and the measurement
//!   readers, which all parse decoded text.
//! * [`opening_byte`] and [`has_key_in_bytes`]: the raw bytes, past one
//!   UTF-8 byte-order mark and ASCII whitespace only, so a UTF-16 file never
//!   opens with `{`. Used by `native` (whose reader parses the bytes as
//!   UTF-8) and `jfr` (which then searches the decoded window).
//!
//! The window, how many bytes are looked at, is each caller's own: 1 KiB
//! for `native`, 4 KiB for the V8 formats, speedscope and JFR, 8 KiB for
//! measurements.

use std::borrow::Cow;

use super::text;

/// The first `window` bytes of a file, decoded as text.
pub struct JsonHead<'a> {
    text: Cow<'a, str>,
}

impl<'a> JsonHead<'a> {
    /// Decodes the first `window` bytes of `bytes` (see
    /// [`text::decode_text`]).
    pub fn new(bytes: &'a [u8], window: usize) -> JsonHead<'a> {
        JsonHead {
            text: text::decode_text(super::head(bytes, window)),
        }
    }

    /// The head when its document is a JSON object (opens with `{`).
    pub fn object(bytes: &'a [u8], window: usize) -> Option<JsonHead<'a>> {
        Some(JsonHead::new(bytes, window)).filter(|head| head.opener() == Some('{'))
    }

    /// The decoded window, as read.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The decoded window from the document's first character: leading
    /// U+FEFF (byte-order marks), then whitespace, left out. A mark after
    /// the whitespace is not skipped.
    pub fn document(&self) -> &str {
        self.text.trim_start_matches('\u{feff}').trim_start()
    }

    /// The document's first character: `{` for an object, `[` for an array.
    pub fn opener(&self) -> Option<char> {
        self.document().chars().next()
    }
}

/// True when `text` has `"key"` followed by a colon (a member name, not a
/// string value such as a function called `nodes`). Unicode whitespace may
/// come between the two.
pub fn has_key(text: &str, key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    text.match_indices(&quoted)
        .any(|(i, _)| text[i + quoted.len()..].trim_start().starts_with(':'))
}

/// The first byte that is not ASCII whitespace, after an optional UTF-8
/// byte-order mark.
pub fn opening_byte(bytes: &[u8]) -> Option<u8> {
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    bytes.iter().copied().find(|b| !b.is_ascii_whitespace())
}

/// True when `bytes` has `"key"` followed by a colon, with only ASCII
/// whitespace between the two.
pub fn has_key_in_bytes(bytes: &[u8], key: &str) -> bool {
    let quoted = format!("\"{key}\"");
    let quoted = quoted.as_bytes();
    bytes.windows(quoted.len()).enumerate().any(|(i, w)| {
        w == quoted
            && bytes[i + quoted.len()..]
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                == Some(&b':')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_starts_past_marks_and_whitespace() {
        let head = JsonHead::new("\u{feff}\u{feff} \n\u{a0}{\"a\": 1}".as_bytes(), 4096);
        assert_eq!(head.document(), "{\"a\": 1}");
        assert_eq!(head.opener(), Some('{'));
        assert_eq!(
            JsonHead::new(" \u{feff}{}".as_bytes(), 4096).opener(),
            Some('\u{feff}')
        );
        assert!(JsonHead::object(b"  [1]", 4096).is_none());
        assert!(JsonHead::object(b"", 4096).is_none());
        // UTF-16 is decoded.
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(" {}".encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
        assert_eq!(JsonHead::new(&utf16, 4096).opener(), Some('{'));
        // Only the window is read.
        assert_eq!(JsonHead::new(b"   {", 3).opener(), None);
    }

    #[test]
    fn the_byte_reading_is_narrower() {
        assert_eq!(opening_byte(b"\xEF\xBB\xBF \t\r\n{"), Some(b'{'));
        assert_eq!(opening_byte(b"\xFF\xFE{\0"), Some(0xFF));
        assert_eq!(opening_byte("\u{a0}{".as_bytes()), Some(0xC2));
        assert_eq!(opening_byte(b" \n"), None);
    }

    #[test]
    fn keys_need_a_colon() {
        assert!(has_key("{\"nodes\" \u{a0}: []}", "nodes"));
        assert!(!has_key("{\"name\": \"nodes\"}", "nodes"));
        assert!(has_key_in_bytes(b"{\"nodes\" \n: []}", "nodes"));
        assert!(!has_key_in_bytes(
            "{\"nodes\"\u{a0}: []}".as_bytes(),
            "nodes"
        ));
        assert!(!has_key_in_bytes(b"{\"name\": \"nodes\"}", "nodes"));
    }
}
