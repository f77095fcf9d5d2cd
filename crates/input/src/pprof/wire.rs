//! The protobuf wire format, read in place: varints, keys, length-delimited
//! fields and skipping unknown fields, with the same acceptance rules and
//! the same error texts as `prost` (which read these files before, and
//! still defines the message structs in [`super::pb`]):
//!
//! * a sub-message is read from the whole remaining buffer and must end
//!   exactly at its declared length ("delimited length exceeded"
//!   otherwise), so a field running past its message fails as it did;
//! * repeated numbers are accepted packed or not;
//! * nested groups in unknown fields count against a recursion limit of
//!   100, one level per message or group;
//! * the error text is `failed to decode Protobuf message: ` followed by
//!   the fields from the innermost out (`Sample.location_id: Profile.sample:
//!   buffer underflow`), and then, unlike prost, the byte offset in the
//!   (uncompressed) profile where reading stopped: `(at byte 1234)`.

use std::fmt;

/// Wire types, named as prost's `Debug` prints them (they appear in
/// error texts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireType {
    Varint = 0,
    SixtyFourBit = 1,
    LengthDelimited = 2,
    StartGroup = 3,
    EndGroup = 4,
    ThirtyTwoBit = 5,
}

/// What went wrong, worded as prost words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    InvalidVarint,
    RecursionLimitReached,
    InvalidWireType(u64),
    InvalidKey(u64),
    InvalidTag,
    UnexpectedWireType {
        actual: WireType,
        expected: WireType,
    },
    BufferUnderflow,
    DelimitedLengthExceeded,
    UnexpectedEndGroupTag,
}

/// A decoding failure and the fields it happened in, innermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    kind: Kind,
    stack: Vec<(&'static str, &'static str)>,
    /// Where the reader was when it gave up, from the start of the
    /// profile.
    at: Option<usize>,
}

impl DecodeError {
    /// The error of a reader over a part of the profile starting at byte
    /// `base`, placed in the whole profile.
    #[cold]
    pub fn shifted(mut self, base: usize) -> DecodeError {
        if let Some(at) = &mut self.at {
            *at += base;
        }
        self
    }

    /// Adds the field the error happened in (called on the way out).
    #[cold]
    pub fn within(mut self, message: &'static str, field: &'static str) -> DecodeError {
        self.stack.push((message, field));
        self
    }
}

impl From<Kind> for DecodeError {
    #[cold]
    fn from(kind: Kind) -> DecodeError {
        DecodeError {
            kind,
            stack: Vec::new(),
            at: None,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("failed to decode Protobuf message: ")?;
        for (message, field) in &self.stack {
            write!(f, "{message}.{field}: ")?;
        }
        match &self.kind {
            Kind::InvalidVarint => f.write_str("invalid varint"),
            Kind::RecursionLimitReached => f.write_str("recursion limit reached"),
            Kind::InvalidWireType(value) => write!(f, "invalid wire type value: {value}"),
            Kind::InvalidKey(key) => write!(f, "invalid key value: {key}"),
            Kind::InvalidTag => f.write_str("invalid tag value: 0"),
            Kind::UnexpectedWireType { actual, expected } => {
                write!(f, "invalid wire type: {actual:?} (expected {expected:?})")
            }
            Kind::BufferUnderflow => f.write_str("buffer underflow"),
            Kind::DelimitedLengthExceeded => f.write_str("delimited length exceeded"),
            Kind::UnexpectedEndGroupTag => f.write_str("unexpected end group tag"),
        }?;
        match self.at {
            Some(at) => write!(f, " (at byte {at})"),
            None => Ok(()),
        }
    }
}

pub type Result<T> = std::result::Result<T, DecodeError>;

/// Nesting allowed below the top-level message (prost's recursion limit).
pub const RECURSION_LIMIT: u32 = 100;

/// A cursor over the whole message. Sub-messages are read through the same
/// cursor with an end position, never a shorter slice, as prost does.
#[derive(Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    /// An error of `kind` at the cursor's position.
    #[cold]
    fn fail(&self, kind: Kind) -> DecodeError {
        DecodeError {
            kind,
            stack: Vec::new(),
            at: Some(self.pos),
        }
    }

    #[inline(always)]
    fn expect(&self, actual: WireType, expected: WireType) -> Result<()> {
        if actual == expected {
            Ok(())
        } else {
            Err(self.fail(Kind::UnexpectedWireType { actual, expected }))
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn has_remaining(&self) -> bool {
        self.pos < self.bytes.len()
    }

    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// A varint: at most 10 bytes, the tenth below 2.
    #[inline(always)]
    pub fn varint(&mut self) -> Result<u64> {
        match self.bytes.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Ok(u64::from(b))
            }
            _ => self.varint_long(),
        }
    }

    #[inline]
    fn varint_long(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for (count, &byte) in self.bytes[self.pos..].iter().take(10).enumerate() {
            value |= u64::from(byte & 0x7f) << (count * 7);
            if byte < 0x80 {
                if count == 9 && byte >= 0x02 {
                    break;
                }
                self.pos += count + 1;
                return Ok(value);
            }
        }
        Err(self.fail(Kind::InvalidVarint))
    }

    /// A field key: (field number, wire type).
    #[inline(always)]
    pub fn key(&mut self) -> Result<(u32, WireType)> {
        let key = self.varint()?;
        if key > u64::from(u32::MAX) {
            return Err(self.fail(Kind::InvalidKey(key)));
        }
        let wire = match key & 7 {
            0 => WireType::Varint,
            1 => WireType::SixtyFourBit,
            2 => WireType::LengthDelimited,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::ThirtyTwoBit,
            value => return Err(self.fail(Kind::InvalidWireType(value))),
        };
        let tag = key as u32 >> 3;
        if tag == 0 {
            return Err(self.fail(Kind::InvalidTag));
        }
        Ok((tag, wire))
    }

    /// The length of a length-delimited field, checked against what is
    /// left; returns the position where the field ends.
    #[inline(always)]
    pub fn length(&mut self) -> Result<usize> {
        let len = self.varint()?;
        if len > self.remaining() as u64 {
            return Err(self.fail(Kind::BufferUnderflow));
        }
        Ok(self.pos + len as usize)
    }

    /// The fields of a sub-message: `field` is called for each key until
    /// the declared length is used up, which must be exactly.
    #[inline]
    pub fn message(
        &mut self,
        wire: WireType,
        depth: u32,
        mut field: impl FnMut(&mut Reader<'a>, u32, WireType, u32) -> Result<()>,
    ) -> Result<()> {
        self.expect(wire, WireType::LengthDelimited)?;
        if depth == 0 {
            return Err(self.fail(Kind::RecursionLimitReached));
        }
        let end = self.length()?;
        while self.pos < end {
            let (tag, wire) = self.key()?;
            field(self, tag, wire, depth - 1)?;
        }
        if self.pos != end {
            return Err(self.fail(Kind::DelimitedLengthExceeded));
        }
        Ok(())
    }

    /// Where a sub-message ends, after checking its wire type and length;
    /// the cursor is at its first field.
    #[inline]
    pub fn message_extent(&mut self, wire: WireType) -> Result<usize> {
        self.expect(wire, WireType::LengthDelimited)?;
        self.length()
    }

    /// Moves the cursor (to the end of a field stepped over).
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// A scalar varint field (int64, uint64, bool: the caller converts).
    #[inline(always)]
    pub fn scalar(&mut self, wire: WireType) -> Result<u64> {
        self.expect(wire, WireType::Varint)?;
        self.varint()
    }

    /// A repeated varint field, packed or not; `each` gets every value.
    #[inline]
    pub fn repeated(&mut self, wire: WireType, mut each: impl FnMut(u64)) -> Result<()> {
        if wire == WireType::LengthDelimited {
            let end = self.length()?;
            while self.pos < end {
                each(self.varint()?);
            }
            if self.pos != end {
                return Err(self.fail(Kind::DelimitedLengthExceeded));
            }
            Ok(())
        } else {
            self.expect(wire, WireType::Varint)?;
            each(self.varint()?);
            Ok(())
        }
    }

    /// A `bytes` field: the range it occupies in the buffer.
    #[inline]
    pub fn bytes_field(&mut self, wire: WireType) -> Result<(usize, usize)> {
        self.expect(wire, WireType::LengthDelimited)?;
        let end = self.length()?;
        let start = self.pos;
        self.pos = end;
        Ok((start, end))
    }

    /// Skips a field this reader does not use (groups included).
    pub fn skip(&mut self, wire: WireType, tag: u32, depth: u32) -> Result<()> {
        if depth == 0 {
            return Err(self.fail(Kind::RecursionLimitReached));
        }
        let len = match wire {
            WireType::Varint => self.varint().map(|_| 0)?,
            WireType::ThirtyTwoBit => 4,
            WireType::SixtyFourBit => 8,
            WireType::LengthDelimited => self.varint()?,
            WireType::StartGroup => loop {
                let (inner_tag, inner_wire) = self.key()?;
                if inner_wire == WireType::EndGroup {
                    if inner_tag != tag {
                        return Err(self.fail(Kind::UnexpectedEndGroupTag));
                    }
                    break 0;
                }
                self.skip(inner_wire, inner_tag, depth - 1)?;
            },
            WireType::EndGroup => return Err(self.fail(Kind::UnexpectedEndGroupTag)),
        };
        if len > self.remaining() as u64 {
            return Err(self.fail(Kind::BufferUnderflow));
        }
        self.pos += len as usize;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_follow_prost() {
        let read = |b: &[u8]| Reader::new(b).varint().map_err(|e| e.kind);
        assert_eq!(read(&[0x05]), Ok(5));
        assert_eq!(read(&[0x96, 0x01]), Ok(150));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(read(&max), Ok(u64::MAX));
        let mut too_big = max;
        too_big[9] = 0x02;
        assert_eq!(read(&too_big), Err(Kind::InvalidVarint));
        assert_eq!(read(&[0x80, 0x80]), Err(Kind::InvalidVarint));
        assert_eq!(read(&[]), Err(Kind::InvalidVarint));
    }

    #[test]
    fn errors_name_fields_innermost_first() {
        let e = DecodeError::from(Kind::BufferUnderflow)
            .within("Sample", "location_id")
            .within("Profile", "sample");
        assert_eq!(
            e.to_string(),
            "failed to decode Protobuf message: Sample.location_id: Profile.sample: buffer underflow"
        );
        let e = DecodeError::from(Kind::UnexpectedWireType {
            actual: WireType::Varint,
            expected: WireType::LengthDelimited,
        });
        assert!(e
            .to_string()
            .ends_with("invalid wire type: Varint (expected LengthDelimited)"));
    }

    #[test]
    fn errors_say_where_reading_stopped() {
        // A length of 5 with 2 bytes left, read after a one-byte key.
        let bytes = [0x0a, 0x05, 0x08, 0x01];
        let mut reader = Reader::new(&bytes);
        let (_, wire) = reader.key().unwrap();
        let e = reader
            .bytes_field(wire)
            .unwrap_err()
            .within("Profile", "sample_type");
        assert_eq!(
            e.to_string(),
            "failed to decode Protobuf message: Profile.sample_type: buffer underflow (at byte 2)"
        );
    }
}
