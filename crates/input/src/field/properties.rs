//! The properties of one field execution (the Java version, the user, the
//! operating system, the outcome, …: Gammatella's key/value pairs), in
//! either of two files:
//!
//! - `NAME.properties`: `key=value` lines. Key and value are trimmed; the
//!   value may hold `=` and spaces; blank lines and lines starting with `#`
//!   are skipped. A line without `=` or with an empty key is skipped with a
//!   warning naming its line.
//! - `NAME.json`: one flat JSON object. String values are kept; numbers
//!   and booleans are kept as their text, exactly as written (`1.50` stays
//!   `1.50`). A null, array or object value is skipped with a warning at
//!   its JSON path. Anything but an object is an error.
//!
//! This module owns reading both into one map. A key given twice keeps its
//! last value, with a warning. Filters compare values as text, so no value
//! is converted.

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::tally::{excerpt, Warnings};
use crate::cpuprofile::json_error;
use crate::text;
use model::error::{ParseError, Place};

/// Properties by key, and the parts of the file that were skipped.
pub type Read = (BTreeMap<String, String>, Vec<ParseError>);

/// Reads a `key=value` properties file. An empty file is no properties.
pub fn parse_properties(bytes: &[u8]) -> Result<Read, ParseError> {
    let data = text::decode_text(bytes);
    let data = data.trim_start_matches('\u{feff}');
    let mut found = Found::default();
    for (i, line) in data.lines().enumerate() {
        let n = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            found.warn(ParseError::line(
                n,
                format!("expected key=value, found `{}`", excerpt(line)),
            ));
            continue;
        };
        let key = key.trim();
        if key.is_empty() {
            found.warn(ParseError::line(n, "the key is empty; skipped"));
            continue;
        }
        found.insert(key, value.trim().to_string(), Place::Line(n));
    }
    Ok(found.finish())
}

/// Reads a flat JSON object of strings, numbers and booleans.
pub fn parse_json(bytes: &[u8]) -> Result<Read, ParseError> {
    let data = text::decode_text(bytes);
    let data = data.trim_start_matches('\u{feff}');
    if data.trim().is_empty() {
        return Err(ParseError::whole("the file is empty"));
    }
    if !data.trim_start().starts_with('{') {
        return Err(ParseError::json(
            "$",
            "expected an object of properties, e.g. {\"outcome\": \"normal\"}",
        ));
    }
    let object: Vec<(String, &RawValue)> = serde_json::from_str::<JsonObject>(data)
        .map_err(json_error)?
        .0;
    let mut found = Found::default();
    for (key, raw) in object {
        let path = json_path(&key);
        match scalar_text(raw) {
            Ok(value) => found.insert(&key, value, Place::Json(path)),
            Err(kind) => found.warn(ParseError::json(
                path,
                format!("expected a string, number or boolean, found {kind}; skipped"),
            )),
        }
    }
    Ok(found.finish())
}

/// A JSON object's members in file order, duplicates included, each value
/// as written.
struct JsonObject<'a>(Vec<(String, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for JsonObject<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(MembersVisitor(std::marker::PhantomData))
    }
}

struct MembersVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> serde::de::Visitor<'de> for MembersVisitor<'a> {
    type Value = JsonObject<'a>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object of properties")
    }

    fn visit_map<M: serde::de::MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
            members.push((key, value));
        }
        Ok(JsonObject(members))
    }
}

/// A scalar value's text: a string's contents, a number or boolean as
/// written. Otherwise what the value is, for the warning.
fn scalar_text(raw: &RawValue) -> Result<String, &'static str> {
    let text = raw.get().trim();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(text).map_err(|_| "a broken string"),
        Some(b'-' | b'0'..=b'9') | Some(b't' | b'f') => Ok(text.to_string()),
        Some(b'n') => Err("null"),
        Some(b'[') => Err("an array"),
        Some(b'{') => Err("an object"),
        _ => Err("an unknown value"),
    }
}

/// `$.key`, or `$["key"]` for a key that is not a plain name
/// (`$["user.id"]`).
fn json_path(key: &str) -> String {
    let plain = !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!("$.{key}")
    } else {
        format!("$[{}]", serde_json::Value::from(key))
    }
}

/// What a properties reader gathers.
#[derive(Default)]
struct Found {
    properties: BTreeMap<String, String>,
    warnings: Warnings,
}

impl Found {
    /// Sets `key`; a key already set gets the new value and a warning at
    /// `place`.
    fn insert(&mut self, key: &str, value: String, place: Place) {
        if self.properties.insert(key.to_string(), value).is_some() {
            let message = format!(
                "the key `{}` is given again; this value replaces the earlier one",
                excerpt(key)
            );
            self.warn(ParseError::new(place, message));
        }
    }

    fn warn(&mut self, warning: ParseError) {
        self.warnings.push(warning);
    }

    fn finish(self) -> Read {
        (self.properties, self.warnings.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    fn props(text: &str) -> Read {
        parse_properties(text.as_bytes()).unwrap()
    }

    #[test]
    fn properties_lines_trim_and_keep_equals_signs() {
        // Gammatella's Table 1, as a properties file.
        let (p, warnings) = props(
            "# properties of one run\njava.version = 1.4.1 01\r\nuser.id=nXrPEQ7zq8w5JY9FAfThrFn\n\n\
             os.name = Linux\n  ! not a pair\nquery = a=b\n=orphan\nos.name=Linux 6\n",
        );
        assert_eq!(p["java.version"], "1.4.1 01");
        assert_eq!(p["user.id"], "nXrPEQ7zq8w5JY9FAfThrFn");
        assert_eq!(p["query"], "a=b");
        assert_eq!(p["os.name"], "Linux 6");
        assert_eq!(p.len(), 4);
        let messages: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            messages,
            [
                "line 6: expected key=value, found `! not a pair`",
                "line 8: the key is empty; skipped",
                "line 9: the key `os.name` is given again; this value replaces the earlier one",
            ]
        );
        assert_eq!(props(""), (BTreeMap::new(), vec![]));
    }

    #[test]
    fn the_fixtures_properties_name_the_outcome() {
        let (p, w) = parse_properties(&fixture("coveragepy-valueerror.properties")).unwrap();
        assert!(w.is_empty());
        assert_eq!(p["outcome"], "ValueError");
        assert_eq!(p["args"], "hello 42");
    }

    #[test]
    fn json_keeps_numbers_as_written_and_skips_nesting() {
        let (p, warnings) = parse_json(
            br#"{"outcome": "ValueError", "java.version": "1.4.1_01", "heap": 1.50,
                 "n": -3e2, "big": 123456789012345678901234567890, "ok": true,
                 "none": null, "list": [1], "obj": {"a": 1}, "n": 4, "esc": "a\"b\u00e9"}"#,
        )
        .unwrap();
        assert_eq!(p["outcome"], "ValueError");
        assert_eq!(p["heap"], "1.50");
        assert_eq!(p["n"], "4");
        assert_eq!(p["big"], "123456789012345678901234567890");
        assert_eq!(p["ok"], "true");
        assert_eq!(p["esc"], "a\"bé");
        assert_eq!(p.len(), 7);
        let messages: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            messages,
            [
                "$.none: expected a string, number or boolean, found null; skipped",
                "$.list: expected a string, number or boolean, found an array; skipped",
                "$.obj: expected a string, number or boolean, found an object; skipped",
                "$.n: the key `n` is given again; this value replaces the earlier one",
            ]
        );
        let (_, w) = parse_json(br#"{"java.version": 1, "java.version": 2}"#).unwrap();
        assert_eq!(w[0].place, Place::Json(r#"$["java.version"]"#.into()));
    }

    #[test]
    fn json_that_is_not_an_object_is_an_error() {
        let e = parse_json(b"[1, 2]").unwrap_err();
        assert_eq!(e.place, Place::Json("$".into()));
        let e = parse_json(b"{\"outcome\": \"normal\",\n \"x\": }").unwrap_err();
        assert_eq!(e.place, Place::Line(2));
        let e = parse_json(b"{\"outcome\": \"nor").unwrap_err();
        assert!(matches!(e.place, Place::Line(1)), "{e}");
        assert_eq!(parse_json(b"").unwrap_err().message, "the file is empty");
        let e = parse_json(b"{} {}").unwrap_err();
        assert!(e.message.contains("trailing"), "{e}");
    }
}
