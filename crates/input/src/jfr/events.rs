//! Reading `jfr print --json` output one event at a time.
//!
//! The document is `{"recording": {"events": [ … ]}}`. It is streamed: each
//! event is parsed on its own into a [`serde_json::Value`], turned into an
//! [`Event`] (or a warning with its JSON path) and dropped, so a long
//! recording with deep stacks needs memory for the events it keeps, not
//! for the text. The same code reads a file's bytes and the output of the
//! `jfr` tool.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::names::{java_class_name, parse_instant, Instant};
use model::error::ParseError;
use model::Frame;

/// The allocation event types this reader understands.
pub const SAMPLE: &str = "jdk.ObjectAllocationSample";
pub const IN_NEW_TLAB: &str = "jdk.ObjectAllocationInNewTLAB";
pub const OUTSIDE_TLAB: &str = "jdk.ObjectAllocationOutsideTLAB";

/// Which kind of allocation event an [`Event`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `jdk.ObjectAllocationSample` (JDK 16 and later): bytes are the weight.
    Sample,
    /// `jdk.ObjectAllocationInNewTLAB` / `…OutsideTLAB` (JDK 11–15): bytes
    /// are the allocation's size.
    Tlab,
}

/// One allocation event, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: Kind,
    pub time: Instant,
    /// The class as a Java user reads it (see [`java_class_name`]).
    pub class: String,
    pub bytes: f64,
    /// `None` when the event has no stack trace (`"stackTrace": null`).
    pub stack: Option<Stack>,
}

/// A stack trace, leaf first as JFR writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Stack {
    pub frames: Vec<Frame>,
    /// JFR cut the stack when recording (deeper than its `stackdepth`).
    pub truncated: bool,
}

/// What one entry of `recording.events` held.
#[derive(Debug, Clone, PartialEq)]
pub enum Read {
    Allocation(Event),
    /// An event of another type, by type name.
    Other(String),
}

/// Streams the events of a `jfr print --json` document from `reader`,
/// calling `each` with every event's index and value. Errors are about the
/// document as a whole: invalid or truncated JSON (with its line), or a
/// structure that is not a recording (with its JSON path).
pub fn stream<'de, R: serde_json::de::Read<'de>>(
    reader: R,
    each: &mut dyn FnMut(usize, Value),
) -> Result<(), ParseError> {
    let mut de = serde_json::Deserializer::new(reader);
    let mut shape = None;
    let seed = Root {
        each,
        shape: &mut shape,
    };
    let result = seed.deserialize(&mut de).and_then(|()| de.end());
    match (shape, result) {
        (Some(e), _) => Err(e),
        (None, Err(e)) => Err(super::super::cpuprofile::json_error(e)),
        (None, Ok(())) => Ok(()),
    }
}

const EXPECTING: &str =
    "the output of `jfr print --json`: an object {\"recording\": {\"events\": [...]}}";

/// `$`: an object with a `recording` key.
struct Root<'a> {
    each: &'a mut dyn FnMut(usize, Value),
    /// A structure error with its JSON path, preferred over serde's text.
    shape: &'a mut Option<ParseError>,
}

impl<'de> DeserializeSeed<'de> for Root<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Root<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(EXPECTING)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "recording" && !found {
                found = true;
                map.next_value_seed(Recording {
                    each: &mut *self.each,
                    shape: &mut *self.shape,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !found {
            return Err(shape_error(
                self.shape,
                "$",
                format!("no `recording` key; expected {EXPECTING}"),
            ));
        }
        Ok(())
    }
}

/// `$.recording`: an object with an `events` array.
struct Recording<'a> {
    each: &'a mut dyn FnMut(usize, Value),
    shape: &'a mut Option<ParseError>,
}

impl<'de> DeserializeSeed<'de> for Recording<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Recording<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("`recording` to be an object with an `events` array")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut found = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "events" && !found {
                found = true;
                map.next_value_seed(Events { each: self.each })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !found {
            return Err(shape_error(
                self.shape,
                "$.recording",
                "no `events` array; expected the output of `jfr print --json`",
            ));
        }
        Ok(())
    }
}

/// `$.recording.events`: an array, each element handed to `each`.
struct Events<'a> {
    each: &'a mut dyn FnMut(usize, Value),
}

impl<'de> DeserializeSeed<'de> for Events<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Events<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("`recording.events` to be an array of events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0;
        while let Some(event) = seq.next_element::<Value>()? {
            (self.each)(index, event);
            index += 1;
        }
        Ok(())
    }
}

/// Records a structure error at `path` and returns the serde error that
/// stops the parse.
fn shape_error<E: de::Error>(
    slot: &mut Option<ParseError>,
    path: &str,
    message: impl Into<String>,
) -> E {
    let message = message.into();
    *slot = Some(ParseError::json(path, message.clone()));
    E::custom(message)
}

/// Reads entry `index` of `recording.events`. An error is about this
/// event only (the caller skips it with a warning).
pub fn read_event(index: usize, event: &Value) -> Result<Read, ParseError> {
    let at = format!("$.recording.events[{index}]");
    let kind = match event.get("type") {
        Some(Value::String(t)) if t == SAMPLE => Kind::Sample,
        Some(Value::String(t)) if t == IN_NEW_TLAB || t == OUTSIDE_TLAB => Kind::Tlab,
        Some(Value::String(t)) => return Ok(Read::Other(t.clone())),
        other => return Err(wrong(&format!("{at}.type"), "an event type name", other)),
    };
    let at = format!("{at}.values");
    let values = match event.get("values") {
        Some(v @ Value::Object(_)) => v,
        other => return Err(wrong(&at, "an object of event values", other)),
    };
    let time = match values.get("startTime") {
        Some(Value::String(s)) => parse_instant(s).ok_or_else(|| {
            ParseError::json(
                format!("{at}.startTime"),
                format!("{s:?} is not a date-time like 2024-09-17T19:51:05.608398375+01:00"),
            )
        })?,
        other => return Err(wrong(&format!("{at}.startTime"), "a date-time", other)),
    };
    let class = match values.get("objectClass") {
        None | Some(Value::Null) => {
            return Err(ParseError::json(
                format!("{at}.objectClass"),
                "missing: the allocated class (an object with a `name`)",
            ))
        }
        Some(class @ Value::Object(_)) => match class.get("name") {
            Some(Value::String(name)) => java_class_name(name),
            other => {
                return Err(wrong(
                    &format!("{at}.objectClass.name"),
                    "a class name",
                    other,
                ))
            }
        },
        other => {
            return Err(wrong(
                &format!("{at}.objectClass"),
                "an object with the class `name`",
                other,
            ))
        }
    };
    let bytes_key = match kind {
        Kind::Sample => "weight",
        Kind::Tlab => "allocationSize",
    };
    let bytes = byte_count(&format!("{at}.{bytes_key}"), values.get(bytes_key))?;
    let stack = read_stack(&format!("{at}.stackTrace"), values.get("stackTrace"))?;
    Ok(Read::Allocation(Event {
        kind,
        time,
        class,
        bytes,
        stack,
    }))
}

/// A count of bytes: a finite number ≥ 0.
fn byte_count(at: &str, value: Option<&Value>) -> Result<f64, ParseError> {
    match value.and_then(Value::as_f64) {
        Some(b) if b.is_finite() && b >= 0.0 => Ok(b),
        Some(b) => Err(ParseError::json(
            at,
            format!("{b} is not a number of bytes (expected 0 or more)"),
        )),
        None => Err(wrong(at, "a number of bytes", value)),
    }
}

fn read_stack(at: &str, value: Option<&Value>) -> Result<Option<Stack>, ParseError> {
    let stack = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(v @ Value::Object(_)) => v,
        other => return Err(wrong(at, "a stack trace object or null", other)),
    };
    let truncated = match stack.get("truncated") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        other => return Err(wrong(&format!("{at}.truncated"), "true or false", other)),
    };
    let frames = match stack.get("frames") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(frames)) => frames.as_slice(),
        other => return Err(wrong(&format!("{at}.frames"), "an array of frames", other)),
    };
    let frames = frames
        .iter()
        .enumerate()
        .map(|(i, f)| read_frame(&format!("{at}.frames[{i}]"), f))
        .collect::<Result<Vec<_>, _>>()?;
    if frames.is_empty() && !truncated {
        return Ok(None);
    }
    Ok(Some(Stack { frames, truncated }))
}

/// `{"method": {"type": {"name": "pkg/Class"}, "name": "m"}, "lineNumber": 12}`
/// → `pkg.Class.m` at line 12. A native frame (`{"pc": N}`, newer JDKs)
/// is named by its address.
fn read_frame(at: &str, frame: &Value) -> Result<Frame, ParseError> {
    let Some(method) = frame.get("method").filter(|m| !m.is_null()) else {
        if let Some(pc) = frame.get("pc").and_then(Value::as_u64) {
            return Ok(Frame::named(format!("(native code at {pc:#x})")));
        }
        return Err(wrong(
            &format!("{at}.method"),
            "a method object",
            frame.get("method"),
        ));
    };
    let name = match method.get("name") {
        Some(Value::String(n)) => n.as_str(),
        other => return Err(wrong(&format!("{at}.method.name"), "a method name", other)),
    };
    let function = match method.get("type").filter(|t| !t.is_null()) {
        None => name.to_string(),
        Some(t) => match t.get("name") {
            Some(Value::String(class)) => format!("{}.{name}", java_class_name(class)),
            other => {
                return Err(wrong(
                    &format!("{at}.method.type.name"),
                    "a class name",
                    other,
                ))
            }
        },
    };
    let line = match frame.get("lineNumber") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_i64().filter(|l| *l > 0 && *l <= i64::from(u32::MAX)),
        other => return Err(wrong(&format!("{at}.lineNumber"), "a line number", other)),
    };
    Ok(Frame {
        function,
        line: line.map(|l| l as u32),
        ..Frame::default()
    })
}

/// "expected X, found Y" at `at`.
fn wrong(at: &str, expected: &str, found: Option<&Value>) -> ParseError {
    let found = match found {
        None => "nothing (the key is missing)".to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(Value::Bool(b)) => format!("{b}"),
        Some(Value::Number(n)) => format!("the number {n}"),
        Some(Value::String(s)) => {
            let short: String = s.chars().take(40).collect();
            let more = if short.len() < s.len() { "…" } else { "" };
            format!("the string {short:?}{more}")
        }
        Some(Value::Array(_)) => "an array".to_string(),
        Some(Value::Object(_)) => "an object".to_string(),
    };
    ParseError::json(at, format!("expected {expected}, found {found}"))
}
