//! A decoder for the part of Python's `marshal` format that `pstats` files
//! use, as CPython 3.8–3.13 writes it (marshal version 4): dicts, tuples
//! (long and small), lists, strings (short ascii, interned, ascii, unicode,
//! bytes), ints (32-bit and arbitrary-precision longs), binary and text
//! floats, `None`/`True`/`False`, and back-references (`r`, and the
//! `FLAG_REF` bit that registers an object for them).
//!
//! Values go into an arena and a back-reference yields the id of the value
//! it names, so a file of references to references cannot make the decoder
//! copy anything. Every error names the byte offset of the object that
//! could not be read. Anything else (code objects, sets, complex numbers)
//! is an error naming its type code.

use model::error::ParseError;

/// Index of a value in a [`Decoded`] arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Id(u32);

/// One decoded object.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    /// Any integer; arbitrary-precision ones are rounded to the nearest
    /// double (they are call counts here).
    Int(f64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Tuple(Vec<Id>),
    List(Vec<Id>),
    Dict(Vec<(Id, Id)>),
}

impl Value {
    /// What the value is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Bytes(_) => "bytes",
            Value::Tuple(_) => "a tuple",
            Value::List(_) => "a list",
            Value::Dict(_) => "a dict",
        }
    }
}

/// Every value of one file, each with the byte offset of its type code.
#[derive(Debug, Default)]
pub struct Decoded {
    values: Vec<(Value, u64)>,
}

impl Decoded {
    pub fn get(&self, id: Id) -> &Value {
        &self.values[id.0 as usize].0
    }

    /// The byte offset where value `id` starts.
    pub fn offset(&self, id: Id) -> u64 {
        self.values[id.0 as usize].1
    }
}

/// Containers nested deeper than this are refused (a pstats file nests
/// four deep; CPython itself stops at 2000).
pub const MAX_NESTING: usize = 100;

const FLAG_REF: u8 = 0x80;

/// Decodes the one object at the start of `bytes`; returns the arena, the
/// object's id and the number of bytes it took.
pub fn decode(bytes: &[u8]) -> Result<(Decoded, Id, usize), ParseError> {
    let mut reader = Reader {
        bytes,
        pos: 0,
        decoded: Decoded::default(),
        refs: Vec::new(),
    };
    let id = reader.value(0)?;
    Ok((reader.decoded, id, reader.pos))
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    decoded: Decoded,
    /// Objects registered by `FLAG_REF`, in order; `None` while the
    /// object is still being read.
    refs: Vec<Option<Id>>,
}

impl Reader<'_> {
    fn error(&self, at: usize, message: impl Into<String>) -> ParseError {
        ParseError::byte(at as u64, message)
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], ParseError> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.error(
                self.pos,
                format!(
                    "the file ends inside {what}: {n} bytes expected, {} left (truncated?)",
                    self.bytes.len() - self.pos
                ),
            ));
        };
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn u8(&mut self, what: &str) -> Result<u8, ParseError> {
        Ok(self.take(1, what)?[0])
    }

    fn i32(&mut self, what: &str) -> Result<i32, ParseError> {
        let b = self.take(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A length or count: a non-negative 32-bit integer.
    fn len(&mut self, what: &str) -> Result<usize, ParseError> {
        let at = self.pos;
        let n = self.i32(what)?;
        usize::try_from(n).map_err(|_| self.error(at, format!("negative length {n} of {what}")))
    }

    fn push(&mut self, value: Value, at: usize) -> Id {
        let id = Id(self.decoded.values.len() as u32);
        self.decoded.values.push((value, at as u64));
        id
    }

    /// Reads one object; `depth` is how many containers enclose it.
    fn value(&mut self, depth: usize) -> Result<Id, ParseError> {
        let at = self.pos;
        let code = self.u8("an object")?;
        let (flagged, code) = (code & FLAG_REF != 0, code & !FLAG_REF);
        let slot = flagged.then(|| {
            self.refs.push(None);
            self.refs.len() - 1
        });
        let id = match code {
            b'r' => return self.reference(at),
            b'{' | b'(' | b')' | b'[' => {
                if depth >= MAX_NESTING {
                    return Err(self.error(
                        at,
                        format!("objects nested deeper than {MAX_NESTING} levels"),
                    ));
                }
                let value = self.container(code, depth + 1)?;
                self.push(value, at)
            }
            _ => {
                let value = self.scalar(code, at)?;
                self.push(value, at)
            }
        };
        if let Some(slot) = slot {
            self.refs[slot] = Some(id);
        }
        Ok(id)
    }

    fn reference(&mut self, at: usize) -> Result<Id, ParseError> {
        let index = self.len("a back-reference")?;
        match self.refs.get(index) {
            Some(Some(id)) => Ok(*id),
            Some(None) => Err(self.error(
                at,
                format!("back-reference {index} names an object that contains it"),
            )),
            None => Err(self.error(
                at,
                format!(
                    "back-reference {index} names no object ({} registered so far)",
                    self.refs.len()
                ),
            )),
        }
    }

    fn container(&mut self, code: u8, depth: usize) -> Result<Value, ParseError> {
        if code == b'{' {
            return self.dict(depth);
        }
        let n = match code {
            b')' => usize::from(self.u8("a small tuple's length")?),
            _ => self.len("a tuple's or list's length")?,
        };
        // Every item takes at least one byte: a length beyond the file is
        // found when the file runs out, without reserving memory for it.
        let mut items = Vec::with_capacity(n.min(self.bytes.len() - self.pos));
        for _ in 0..n {
            items.push(self.value(depth)?);
        }
        Ok(match code {
            b'[' => Value::List(items),
            _ => Value::Tuple(items),
        })
    }

    /// Key and value pairs up to the `0` (NULL) code.
    fn dict(&mut self, depth: usize) -> Result<Value, ParseError> {
        let mut pairs = Vec::new();
        loop {
            if self.bytes.get(self.pos) == Some(&b'0') {
                self.pos += 1;
                return Ok(Value::Dict(pairs));
            }
            if self.pos >= self.bytes.len() {
                return Err(self.error(
                    self.pos,
                    "the file ends inside a dict: its end mark (0) is missing (truncated?)",
                ));
            }
            let key = self.value(depth)?;
            let value = self.value(depth)?;
            pairs.push((key, value));
        }
    }

    fn scalar(&mut self, code: u8, at: usize) -> Result<Value, ParseError> {
        Ok(match code {
            b'N' => Value::None,
            b'T' => Value::Bool(true),
            b'F' => Value::Bool(false),
            b'i' => Value::Int(f64::from(self.i32("an integer")?)),
            b'l' => Value::Int(self.long(at)?),
            b'g' => {
                let b = self.take(8, "a float")?;
                let mut le = [0u8; 8];
                le.copy_from_slice(b);
                Value::Float(f64::from_le_bytes(le))
            }
            b'f' => Value::Float(self.text_float(at)?),
            b'z' | b'Z' => {
                let n = usize::from(self.u8("a string's length")?);
                Value::Str(self.text(n)?)
            }
            b'a' | b'A' | b'u' | b't' => {
                let n = self.len("a string's length")?;
                Value::Str(self.text(n)?)
            }
            b's' => {
                let n = self.len("a bytes object's length")?;
                Value::Bytes(self.take(n, "a bytes object")?.to_vec())
            }
            other => return Err(self.error(at, unsupported(other))),
        })
    }

    /// A string of `n` bytes of UTF-8 (ASCII is a subset); invalid bytes
    /// (lone surrogates, which CPython writes with `surrogatepass`) become
    /// U+FFFD.
    fn text(&mut self, n: usize) -> Result<String, ParseError> {
        let bytes = self.take(n, "a string")?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    /// An arbitrary-precision integer: a signed digit count, then that many
    /// 15-bit digits, least significant first.
    fn long(&mut self, at: usize) -> Result<f64, ParseError> {
        let n = self.i32("a long integer's size")?;
        let digits = n.unsigned_abs() as usize;
        let bytes = self.take(digits.saturating_mul(2), "a long integer")?;
        let mut value = 0.0f64;
        for pair in bytes.chunks_exact(2).rev() {
            let digit = u16::from_le_bytes([pair[0], pair[1]]);
            if digit >= 1 << 15 {
                return Err(self.error(at, format!("long integer digit {digit} is not below 2^15")));
            }
            value = value * 32768.0 + f64::from(digit);
        }
        if !value.is_finite() {
            return Err(self.error(at, "integer too large for a double"));
        }
        Ok(if n < 0 { -value } else { value })
    }

    /// A float written as text (marshal versions before 2).
    fn text_float(&mut self, at: usize) -> Result<f64, ParseError> {
        let n = usize::from(self.u8("a float's length")?);
        let text = self.take(n, "a float")?;
        std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<f64>().ok())
            .ok_or_else(|| self.error(at, "a float written as text that is not a number"))
    }
}

/// The message for a type code outside what pstats files hold.
fn unsupported(code: u8) -> String {
    let name = match code {
        b'c' => "a code object",
        b'<' | b'>' => "a set",
        b'x' | b'y' => "a complex number",
        b'S' => "StopIteration",
        b'.' => "Ellipsis",
        b'I' => "a 64-bit integer (marshal version 0)",
        b'0' => "a NULL marker outside a dict",
        b':' => "a slice",
        _ => "",
    };
    let shown = if code.is_ascii_graphic() {
        format!("'{}' (0x{code:02x})", code as char)
    } else {
        format!("0x{code:02x}")
    };
    if name.is_empty() {
        format!("unknown marshal type code {shown}")
    } else {
        format!("marshal type code {shown}, {name}, has no place in a pstats file")
    }
}
