//! A small pull parser for JSON documents that nest deeper than a
//! recursive parser can safely go.
//!
//! serde_json parses nested values by recursion and refuses documents
//! nested more than 128 levels; lifting that limit would let a hostile file
//! overflow the thread's stack. Formats that write a call tree as nested
//! objects (V8's `.heapprofile`: one object and one `children` array per
//! frame) reach that limit at about 60 frames, which real stacks exceed.
//! This parser keeps its open containers in a `Vec` (one byte each), so
//! depth costs heap memory in proportion to the input and nothing else.
//!
//! It yields one [`Event`] at a time and checks the grammar as it goes;
//! a syntax error carries the byte offset where it was found, which
//! [`Pull::error_at`] turns into a line and column.

use std::borrow::Cow;

use model::error::ParseError;

/// One step through the document.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    ObjectStart,
    ObjectEnd,
    ArrayStart,
    ArrayEnd,
    /// A member name; the member's value follows.
    Key(Cow<'a, str>),
    String(Cow<'a, str>),
    Number(f64),
    Bool(bool),
    Null,
}

impl Event<'_> {
    /// What the event is, for "expected …, found …" messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Event::ObjectStart => "an object",
            Event::ArrayStart => "an array",
            Event::ObjectEnd | Event::ArrayEnd => "the end of a container",
            Event::Key(_) => "a member name",
            Event::String(_) => "a string",
            Event::Number(_) => "a number",
            Event::Bool(_) => "a boolean",
            Event::Null => "null",
        }
    }
}

/// What the grammar allows next.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// A value (the document's, an array element's or a member's).
    Value,
    /// Just after `[`: a value or `]`.
    ValueOrEnd,
    /// Just after `{`: a member name or `}`.
    KeyOrEnd,
    /// After `,` in an object: a member name.
    Key,
    /// After a value inside a container: `,` or the container's end.
    CommaOrEnd,
    /// After the document's value: nothing but whitespace.
    Eof,
}

/// A pull parser over one JSON text.
pub struct Pull<'a> {
    text: &'a str,
    pos: usize,
    /// Open containers: `{` or `[`.
    open: Vec<u8>,
    expect: Expect,
}

/// A syntax error at a byte offset of the text.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

type Step<'a> = Result<Option<Event<'a>>, SyntaxError>;

impl<'a> Pull<'a> {
    pub fn new(text: &'a str) -> Pull<'a> {
        Pull {
            text,
            pos: 0,
            open: Vec::new(),
            expect: Expect::Value,
        }
    }

    /// Byte offset of the next unread character.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// How many containers are open.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// A [`ParseError`] at the line and column of byte `offset`.
    pub fn error_at(&self, offset: usize, message: impl std::fmt::Display) -> ParseError {
        let mut end = offset.min(self.text.len());
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &self.text[..end];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ParseError::line(line, format!("column {column}: {message}"))
    }

    /// Turns a syntax error into a [`ParseError`] with its line and column.
    pub fn syntax(&self, e: SyntaxError) -> ParseError {
        self.error_at(e.offset, format!("invalid JSON: {}", e.message))
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            offset: self.pos,
            message: message.into(),
        })
    }

    fn skip_whitespace(&mut self) {
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() && matches!(bytes[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The next event, or `None` at the end of a complete document.
    pub fn next_event(&mut self) -> Step<'a> {
        self.skip_whitespace();
        let Some(c) = self.peek() else {
            return match self.expect {
                Expect::Eof => Ok(None),
                _ if self.open.is_empty() && self.pos == 0 => self.fail("the text is empty"),
                _ => self.fail("unexpected end of the data (the file is truncated)"),
            };
        };
        match self.expect {
            Expect::Eof => self.fail(format!(
                "unexpected {} after the end of the document",
                shown(c)
            )),
            Expect::CommaOrEnd => match (c, self.open.last()) {
                (b',', Some(&b'{')) => {
                    self.pos += 1;
                    self.expect = Expect::Key;
                    self.next_event()
                }
                (b',', _) => {
                    self.pos += 1;
                    self.expect = Expect::Value;
                    self.next_event()
                }
                (b'}', Some(&b'{')) | (b']', Some(&b'[')) => self.close(c),
                (_, Some(&b'{')) => self.fail(format!("expected `,` or `}}`, found {}", shown(c))),
                _ => self.fail(format!("expected `,` or `]`, found {}", shown(c))),
            },
            Expect::KeyOrEnd | Expect::Key => match c {
                b'}' if self.expect == Expect::KeyOrEnd => self.close(c),
                b'"' => {
                    let key = self.string()?;
                    self.skip_whitespace();
                    if self.peek() != Some(b':') {
                        return match self.peek() {
                            Some(c) => self.fail(format!(
                                "expected `:` after a member name, found {}",
                                shown(c)
                            )),
                            None => self.fail("unexpected end of the data (the file is truncated)"),
                        };
                    }
                    self.pos += 1;
                    self.expect = Expect::Value;
                    Ok(Some(Event::Key(key)))
                }
                _ => self.fail(format!(
                    "expected a member name in quotes, found {}",
                    shown(c)
                )),
            },
            Expect::ValueOrEnd if c == b']' => self.close(c),
            Expect::Value | Expect::ValueOrEnd => self.value(c),
        }
    }

    fn close(&mut self, c: u8) -> Step<'a> {
        self.pos += 1;
        self.open.pop();
        self.after_value();
        Ok(Some(if c == b'}' {
            Event::ObjectEnd
        } else {
            Event::ArrayEnd
        }))
    }

    fn after_value(&mut self) {
        self.expect = if self.open.is_empty() {
            Expect::Eof
        } else {
            Expect::CommaOrEnd
        };
    }

    fn value(&mut self, c: u8) -> Step<'a> {
        let event = match c {
            b'{' => {
                self.pos += 1;
                self.open.push(b'{');
                self.expect = Expect::KeyOrEnd;
                return Ok(Some(Event::ObjectStart));
            }
            b'[' => {
                self.pos += 1;
                self.open.push(b'[');
                self.expect = Expect::ValueOrEnd;
                return Ok(Some(Event::ArrayStart));
            }
            b'"' => Event::String(self.string()?),
            b'-' | b'0'..=b'9' => Event::Number(self.number()?),
            b't' => self.literal("true", Event::Bool(true))?,
            b'f' => self.literal("false", Event::Bool(false))?,
            b'n' => self.literal("null", Event::Null)?,
            _ => return self.fail(format!("expected a value, found {}", shown(c))),
        };
        self.after_value();
        Ok(Some(event))
    }

    fn literal(&mut self, word: &str, event: Event<'a>) -> Result<Event<'a>, SyntaxError> {
        if self.text[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(event)
        } else {
            self.fail(format!(
                "expected a value, found {}",
                shown(self.peek().unwrap_or(b' '))
            ))
        }
    }

    fn number(&mut self) -> Result<f64, SyntaxError> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut end = start;
        while end < bytes.len()
            && matches!(bytes[end], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
        {
            end += 1;
        }
        let digits = &self.text[start..end];
        // Rust's float syntax is a superset of JSON's for these characters
        // (it also takes `1.` and `+1` inside an exponent): JSON's rules are
        // checked first.
        let json_shape = {
            let body = digits.strip_prefix('-').unwrap_or(digits);
            let (mantissa, exponent) = match body.find(['e', 'E']) {
                Some(i) => (&body[..i], Some(&body[i + 1..])),
                None => (body, None),
            };
            let (int, frac) = match mantissa.split_once('.') {
                Some((i, f)) => (i, Some(f)),
                None => (mantissa, None),
            };
            let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            all_digits(int)
                && (int == "0" || !int.starts_with('0'))
                && frac.is_none_or(all_digits)
                && exponent.is_none_or(|e| all_digits(e.strip_prefix(['+', '-']).unwrap_or(e)))
        };
        match digits.parse::<f64>() {
            Ok(v) if json_shape => {
                self.pos = end;
                Ok(v)
            }
            _ => self.fail(format!("`{}` is not a number", shorten(digits))),
        }
    }

    /// A string starting at the opening quote; borrowed when it has no
    /// escapes.
    fn string(&mut self) -> Result<Cow<'a, str>, SyntaxError> {
        let text = self.text;
        let bytes = text.as_bytes();
        let start = self.pos + 1;
        let mut i = start;
        while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\\' && bytes[i] >= 0x20 {
            i += 1;
        }
        if bytes.get(i) == Some(&b'"') {
            self.pos = i + 1;
            return Ok(Cow::Borrowed(&text[start..i]));
        }
        let mut out = String::from(&text[start..i]);
        loop {
            match bytes.get(i) {
                None => {
                    self.pos = i;
                    return self.fail(
                        "unexpected end of the data inside a string (the file is truncated)",
                    );
                }
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    let Some(&e) = bytes.get(i + 1) else {
                        self.pos = i + 1;
                        return self.fail(
                            "unexpected end of the data inside a string (the file is truncated)",
                        );
                    };
                    i += 2;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let Some(unit) = hex4(bytes, i) else {
                                self.pos = i;
                                return self.fail("expected four hex digits after `\\u`");
                            };
                            i += 4;
                            let mut c = None;
                            if (0xD800..0xDC00).contains(&unit)
                                && bytes.get(i) == Some(&b'\\')
                                && bytes.get(i + 1) == Some(&b'u')
                            {
                                if let Some(low) =
                                    hex4(bytes, i + 2).filter(|l| (0xDC00..0xE000).contains(l))
                                {
                                    let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                    c = char::from_u32(code);
                                    i += 6;
                                }
                            }
                            // A lone surrogate is kept visible as U+FFFD.
                            out.push(c.or_else(|| char::from_u32(unit)).unwrap_or('\u{FFFD}'));
                        }
                        other => {
                            self.pos = i - 1;
                            return self.fail(format!("unknown escape `\\{}`", shown_char(other)));
                        }
                    }
                }
                Some(&b) if b < 0x20 => {
                    self.pos = i;
                    return self.fail("control character inside a string (it must be escaped)");
                }
                Some(_) => {
                    let run_start = i;
                    while i < bytes.len()
                        && bytes[i] != b'"'
                        && bytes[i] != b'\\'
                        && bytes[i] >= 0x20
                    {
                        i += 1;
                    }
                    out.push_str(&text[run_start..i]);
                }
            }
        }
    }

    /// Skips the value that comes next (after a [`Event::Key`], or an
    /// array element), however deeply it nests, without recursion.
    pub fn skip_value(&mut self) -> Result<(), SyntaxError> {
        let depth = self.open.len();
        loop {
            if self.next_event()?.is_none() {
                return self.fail("unexpected end of the data (the file is truncated)");
            }
            if self.open.len() == depth {
                return Ok(());
            }
        }
    }
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

fn shown(c: u8) -> String {
    match c {
        b'{' | b'}' | b'[' | b']' | b',' | b':' | b'"' => format!("`{}`", c as char),
        _ => format!("`{}`", shown_char(c)),
    }
}

fn shown_char(c: u8) -> String {
    if c.is_ascii_graphic() {
        (c as char).to_string()
    } else {
        format!("\\x{c:02x}")
    }
}

fn shorten(s: &str) -> &str {
    let mut end = s.len().min(40);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::error::Place;

    fn events(text: &str) -> Result<Vec<Event<'_>>, SyntaxError> {
        let mut p = Pull::new(text);
        let mut out = Vec::new();
        while let Some(e) = p.next_event()? {
            out.push(e);
        }
        Ok(out)
    }

    #[test]
    fn reads_every_kind_of_value() {
        use Event::*;
        let e =
            events(r#" {"a": [1, -2.5e3, true, false, null, "x\"\u00e9\ud83d\ude00"], "b": {}} "#)
                .unwrap();
        assert_eq!(
            e,
            vec![
                ObjectStart,
                Key("a".into()),
                ArrayStart,
                Number(1.0),
                Number(-2500.0),
                Bool(true),
                Bool(false),
                Null,
                String("x\"é😀".into()),
                ArrayEnd,
                Key("b".into()),
                ObjectStart,
                ObjectEnd,
                ObjectEnd,
            ]
        );
        assert_eq!(events("[]").unwrap(), vec![ArrayStart, ArrayEnd]);
        assert_eq!(events("7").unwrap(), vec![Number(7.0)]);
    }

    #[test]
    fn syntax_errors_have_a_place() {
        for bad in [
            "",
            "{",
            r#"{"a" 1}"#,
            r#"{"a":1,}"#,
            "[1,]",
            "[1 2]",
            "[01]",
            "[1.]",
            "[.5]",
            "[+1]",
            "[-]",
            "[1e]",
            "[tru]",
            r#"["a"#,
            "[\"a\nb\"]",
            r#"["\x"]"#,
            r#"["\u12"]"#,
            "{} {}",
            "{]",
            "[}",
            r#"{1:2}"#,
        ] {
            assert!(events(bad).is_err(), "{bad:?} was accepted");
        }
        let text = "{\"a\": [1,\n  2,\n  ";
        let mut p = Pull::new(text);
        let e = loop {
            match p.next_event() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("accepted"),
                Err(e) => break p.syntax(e),
            }
        };
        assert_eq!(e.place, Place::Line(3));
        assert!(
            e.message
                .starts_with("column 3: invalid JSON: unexpected end"),
            "{e}"
        );
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let e = events(r#"["\ud800x", "\udc00"]"#).unwrap();
        assert_eq!(e[1], Event::String("\u{FFFD}x".into()));
        assert_eq!(e[2], Event::String("\u{FFFD}".into()));
    }

    #[test]
    fn deep_nesting_costs_no_stack() {
        let n = 1_000_000;
        let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let mut p = Pull::new(&text);
        let mut deepest = 0;
        while p.next_event().unwrap().is_some() {
            deepest = deepest.max(p.depth());
        }
        assert_eq!(deepest, n);
        // skip_value over the same nesting.
        let text = format!(
            r#"{{"skip": {}1{}, "keep": 1}}"#,
            "[{\"a\":".repeat(n),
            "}]".repeat(n)
        );
        let mut p = Pull::new(&text);
        assert_eq!(p.next_event().unwrap(), Some(Event::ObjectStart));
        assert_eq!(p.next_event().unwrap(), Some(Event::Key("skip".into())));
        p.skip_value().unwrap();
        assert_eq!(p.next_event().unwrap(), Some(Event::Key("keep".into())));
        assert_eq!(p.next_event().unwrap(), Some(Event::Number(1.0)));
    }

    #[test]
    fn error_columns_count_characters() {
        let p = Pull::new("{\"é\": x}");
        let e = p.error_at(7, "here");
        assert_eq!(e.place, Place::Line(1));
        assert!(e.message.starts_with("column 7:"), "{e}");
    }
}
