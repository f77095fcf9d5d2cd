//! A minimal XML writer for SVG. All escaping of SVG text and attribute
//! values happens here, nowhere else.

use std::fmt::Write as _;

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
fn escape_into(out: &mut String, text: &str, attribute: bool) {
    for ch in text.chars() {
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
}

/// Formats a coordinate with at most two decimals, without trailing zeros,
/// so output is identical on every machine.
pub fn coord(v: f64) -> String {
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
    fn coordinates_are_short_and_stable() {
        assert_eq!(coord(12.0), "12");
        assert_eq!(coord(0.126), "0.13");
        assert_eq!(coord(-0.001), "0");
        assert_eq!(coord(1199.999), "1200");
    }
}
