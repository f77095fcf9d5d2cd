//! A minimal XML writer for SVG. All escaping of SVG text and attribute
//! values happens here, nowhere else.

use std::fmt::Write as _;

use super::format::{digit, hundredths, push_digits};

/// Builds an SVG (or any XML) document into a string.
#[derive(Default)]
pub struct SvgWriter {
    out: String,
}

impl SvgWriter {
    pub fn new() -> SvgWriter {
        SvgWriter::default()
    }

    pub fn with_capacity(n: usize) -> SvgWriter {
        SvgWriter {
            out: String::with_capacity(n),
        }
    }

    /// `<tag a="v" …>`
    pub fn open(&mut self, tag: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.start(tag, attrs);
        self.out.push('>');
        self
    }

    /// `<tag a="v" …/>`
    pub fn empty(&mut self, tag: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.start(tag, attrs);
        self.out.push_str("/>");
        self
    }

    /// `<tag a="coord(v)" …/>`: numeric attributes written straight in
    /// (a coordinate never needs escaping).
    pub fn empty_at(&mut self, tag: &str, coords: &[(&str, f64)]) -> &mut Self {
        self.start_at(tag, coords);
        self.out.push_str("/>");
        self
    }

    /// `<tag a="coord(v)" …>`, as [`SvgWriter::empty_at`].
    pub fn open_at(&mut self, tag: &str, coords: &[(&str, f64)]) -> &mut Self {
        self.start_at(tag, coords);
        self.out.push('>');
        self
    }

    pub fn close(&mut self, tag: &str) -> &mut Self {
        let _ = write!(self.out, "</{tag}>");
        self
    }

    /// Escaped character data.
    pub fn text(&mut self, text: &str) -> &mut Self {
        escape_into(&mut self.out, text, false);
        self
    }

    /// `<tag attrs>text</tag>`
    pub fn element(&mut self, tag: &str, attrs: &[(&str, &str)], text: &str) -> &mut Self {
        self.open(tag, attrs).text(text).close(tag)
    }

    /// Raw markup the caller produced with this writer or from trusted,
    /// embedded files (scripts, styles) — never profile data. A `]]>` in
    /// `code` would end the CDATA section early, so it is split.
    pub fn cdata(&mut self, code: &str) -> &mut Self {
        self.out.push_str("<![CDATA[");
        self.out.push_str(&code.replace("]]>", "]]]]><![CDATA[>"));
        self.out.push_str("]]>");
        self
    }

    pub fn newline(&mut self) -> &mut Self {
        self.out.push('\n');
        self
    }

    pub fn finish(self) -> String {
        self.out
    }

    fn start_at(&mut self, tag: &str, coords: &[(&str, f64)]) {
        self.out.push('<');
        self.out.push_str(tag);
        for (k, v) in coords {
            self.out.push(' ');
            self.out.push_str(k);
            self.out.push_str("=\"");
            push_coord(&mut self.out, *v);
            self.out.push('"');
        }
    }

    fn start(&mut self, tag: &str, attrs: &[(&str, &str)]) {
        self.out.push('<');
        self.out.push_str(tag);
        for (k, v) in attrs {
            self.out.push(' ');
            self.out.push_str(k);
            self.out.push_str("=\"");
            escape_into(&mut self.out, v, true);
            self.out.push('"');
        }
    }
}

/// Escapes `<`, `>`, `&`, and in attributes the quotes; control characters
/// that XML forbids become U+FFFD so the document stays well-formed.
/// `text` as XML character data: markup escaped, characters XML does not
/// allow replaced by U+FFFD. For XML written outside an [`SvgWriter`]
/// (the check's JUnit report) and for Markdown that may hold HTML.
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text, false);
    out
}

/// `text` as a double-quoted XML attribute value, as [`escape_text`] and
/// with quotes and line breaks as references.
pub fn escape_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(&mut out, text, true);
    out
}

/// Runs of bytes that need no care are copied whole; a byte that may
/// need care starts a character looked at on its own (`0xEF` leads
/// U+F000–U+FFFF, which hold U+FFFE and U+FFFF).
fn escape_into(out: &mut String, text: &str, attribute: bool) {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(skip) = bytes[start..].iter().position(|&b| may_need_care(b)) {
        let at = start + skip;
        out.push_str(&text[start..at]);
        let Some(ch) = text[at..].chars().next() else {
            return;
        };
        escape_char(out, ch, attribute);
        start = at + ch.len_utf8();
    }
    out.push_str(&text[start..]);
}

fn may_need_care(b: u8) -> bool {
    b < 0x20 || matches!(b, b'<' | b'>' | b'&' | b'"' | b'\'' | 0xEF)
}

fn escape_char(out: &mut String, ch: char, attribute: bool) {
    match ch {
        '<' => out.push_str("&lt;"),
        '>' => out.push_str("&gt;"),
        '&' => out.push_str("&amp;"),
        '"' if attribute => out.push_str("&quot;"),
        '\'' if attribute => out.push_str("&#39;"),
        '\n' if attribute => out.push_str("&#10;"),
        '\t' | '\n' | '\r' => out.push(ch),
        c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
        c => out.push(c),
    }
}

/// Formats a coordinate with at most two decimals, without trailing zeros,
/// so output is identical on every machine.
pub fn coord(v: f64) -> String {
    let mut out = String::with_capacity(8);
    push_coord(&mut out, v);
    out
}

/// Appends [`coord`]`(v)`: whole hundredths written digit by digit when
/// [`hundredths`] is sure of them, else `format!` trimmed.
pub fn push_coord(out: &mut String, v: f64) {
    let Some(n) = hundredths(v) else {
        out.push_str(&coord_by_format(v));
        return;
    };
    if n == 0 {
        out.push('0');
        return;
    }
    if v.is_sign_negative() {
        out.push('-');
    }
    push_digits(out, n / 100);
    let decimals = n % 100;
    if decimals != 0 {
        out.push('.');
        out.push(digit(decimals / 10));
        if decimals % 10 != 0 {
            out.push(digit(decimals));
        }
    }
}

fn coord_by_format(v: f64) -> String {
    let s = format!("{:.2}", v);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_stay_text() {
        let mut w = SvgWriter::new();
        w.element(
            "text",
            &[("data-n", "a\"b'<c>")],
            "</script><svg onload=alert(1)>&\u{1}",
        );
        assert_eq!(
            w.finish(),
            "<text data-n=\"a&quot;b&#39;&lt;c&gt;\">&lt;/script&gt;&lt;svg onload=alert(1)&gt;&amp;\u{FFFD}</text>"
        );
    }

    #[test]
    fn coordinate_attributes_read_like_string_ones() {
        let mut by_coord = SvgWriter::new();
        by_coord
            .open_at("text", &[("x", 1.5), ("y", -0.001)])
            .close("text")
            .empty_at("rect", &[("width", 1199.999)]);
        let mut by_string = SvgWriter::new();
        by_string
            .open("text", &[("x", &coord(1.5)), ("y", &coord(-0.001))])
            .close("text")
            .empty("rect", &[("width", &coord(1199.999))]);
        assert_eq!(by_coord.finish(), by_string.finish());
    }

    #[test]
    fn coordinates_are_short_and_stable() {
        assert_eq!(coord(12.0), "12");
        assert_eq!(coord(0.126), "0.13");
        assert_eq!(coord(-0.001), "0");
        assert_eq!(coord(1199.999), "1200");
    }

    #[test]
    fn fast_coordinates_match_the_formatted_ones() {
        for v in crate::format::tests::awkward_values() {
            assert_eq!(coord(v), coord_by_format(v), "{v:e}");
        }
    }

    #[test]
    fn escaping_matches_character_by_character() {
        let texts = [
            "plain",
            "a<b>&c\"d'e\nf\tg\r\u{1}h\u{FFFE}i\u{FFFF}j\u{F000}k\u{FFFD}é漢🙂",
            "",
            "<",
            "\u{FFFF}",
            "ends with é",
        ];
        for text in texts {
            for attribute in [false, true] {
                let mut fast = String::new();
                escape_into(&mut fast, text, attribute);
                let mut slow = String::new();
                for ch in text.chars() {
                    escape_char(&mut slow, ch, attribute);
                }
                assert_eq!(fast, slow);
            }
        }
    }
}
