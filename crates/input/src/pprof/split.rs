//! A profile's top-level fields split as they are read from a stream:
//! everything but the samples is kept, byte for byte and in order, and
//! the samples are only stepped over, with the first pass's bookmarks
//! ([`super::outline`]) counted in the stream's positions. The first pass
//! then reads the kept bytes, and the second pass reads the samples from
//! the file again ([`super::Staged::read_samples`]): a big profile is
//! never held whole, only its strings, functions and locations, a tenth
//! of it or less.
//!
//! This step only finds where fields start and end. Anything it does not
//! expect (a group, a varint past ten bytes, a field cut short) stops it
//! with `None`: the caller then reads the file whole, whose first pass
//! words the error exactly as it always has.

use std::io::Read;

use super::outline::{SampleSpans, BOOKMARK_EVERY};

/// A profile split into its samples' places and the rest of its bytes.
pub struct Split {
    /// Every top-level field but the samples, in file order.
    pub(super) rest: Vec<u8>,
    /// Where the samples are, in the stream's positions.
    pub(super) samples: SampleSpans,
    /// The stream's length.
    pub len: usize,
}

/// Reads at most `limit` bytes of `stream` and splits them; `None` when
/// the stream is longer, or its top-level fields do not read.
pub fn split(stream: impl Read, limit: u64) -> std::io::Result<Option<Split>> {
    let mut bytes = Bytes::new(stream.take(limit.saturating_add(1)));
    let mut split = Split {
        rest: Vec::new(),
        samples: SampleSpans::default(),
        len: 0,
    };
    let mut key_bytes = Vec::with_capacity(10);
    while let Some(at) = bytes.field_start()? {
        key_bytes.clear();
        let Some(key) = bytes.varint(Some(&mut key_bytes))? else {
            return Ok(None);
        };
        let (tag, wire) = (key >> 3, key & 7);
        let read = match (tag, wire) {
            (0, _) => false,
            (2, 2) => step_over_sample(&mut bytes, &mut split.samples, at)?,
            (2, _) => false,
            _ => {
                split.rest.extend_from_slice(&key_bytes);
                keep_body(&mut bytes, wire, &mut split.rest)?
            }
        };
        if !read {
            return Ok(None);
        }
    }
    split.len = bytes.pos;
    Ok((bytes.pos as u64 <= limit).then_some(split))
}

/// Steps over the body of the sample whose key starts at `at`.
fn step_over_sample<R: Read>(
    bytes: &mut Bytes<R>,
    spans: &mut SampleSpans,
    at: usize,
) -> std::io::Result<bool> {
    let Some(len) = bytes.varint(None)? else {
        return Ok(false);
    };
    if spans.count.is_multiple_of(BOOKMARK_EVERY) {
        spans.bookmarks.push((at, spans.count));
    }
    if !bytes.copy(len, None)? {
        return Ok(false);
    }
    spans.count += 1;
    spans.end = bytes.pos;
    Ok(true)
}

/// Copies the body of a field of wire type `wire` into `rest`.
fn keep_body<R: Read>(
    bytes: &mut Bytes<R>,
    wire: u64,
    rest: &mut Vec<u8>,
) -> std::io::Result<bool> {
    match wire {
        0 => Ok(bytes.varint(Some(rest))?.is_some()),
        1 => bytes.copy(8, Some(rest)),
        2 => match bytes.varint(Some(rest))? {
            Some(len) => bytes.copy(len, Some(rest)),
            None => Ok(false),
        },
        5 => bytes.copy(4, Some(rest)),
        // Groups, and wire types that do not exist.
        _ => Ok(false),
    }
}

/// A stream read through a buffer, with its position.
struct Bytes<R> {
    stream: R,
    buf: Vec<u8>,
    /// The unread part of `buf`: `buf[at..filled]`.
    at: usize,
    filled: usize,
    /// Bytes consumed from the stream's start.
    pos: usize,
}

/// Bytes read from the stream at a time.
const BUFFER_BYTES: usize = 1 << 20;

impl<R: Read> Bytes<R> {
    fn new(stream: R) -> Bytes<R> {
        Bytes {
            stream,
            buf: vec![0; BUFFER_BYTES],
            at: 0,
            filled: 0,
            pos: 0,
        }
    }

    /// Refills the buffer when it is used up; false at the stream's end.
    fn fill(&mut self) -> std::io::Result<bool> {
        if self.at < self.filled {
            return Ok(true);
        }
        loop {
            match self.stream.read(&mut self.buf) {
                Ok(n) => {
                    (self.at, self.filled) = (0, n);
                    return Ok(n > 0);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The position of the next field, or `None` at the stream's end.
    fn field_start(&mut self) -> std::io::Result<Option<usize>> {
        Ok(self.fill()?.then_some(self.pos))
    }

    fn byte(&mut self) -> std::io::Result<Option<u8>> {
        if !self.fill()? {
            return Ok(None);
        }
        let b = self.buf[self.at];
        self.at += 1;
        self.pos += 1;
        Ok(Some(b))
    }

    /// A varint of at most ten bytes, its bytes appended to `keep` when
    /// given; `None` when it is longer or cut short.
    fn varint(&mut self, mut keep: Option<&mut Vec<u8>>) -> std::io::Result<Option<u64>> {
        let mut value = 0u64;
        for i in 0..10 {
            let Some(b) = self.byte()? else {
                return Ok(None);
            };
            if let Some(keep) = keep.as_deref_mut() {
                keep.push(b);
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(Some(value));
            }
        }
        Ok(None)
    }

    /// Consumes `n` bytes, appended to `keep` when given; false when the
    /// stream ends first.
    fn copy(&mut self, mut n: u64, mut keep: Option<&mut Vec<u8>>) -> std::io::Result<bool> {
        while n > 0 {
            if !self.fill()? {
                return Ok(false);
            }
            let take = (self.filled - self.at).min(usize::try_from(n).unwrap_or(usize::MAX));
            if let Some(keep) = keep.as_deref_mut() {
                keep.extend_from_slice(&self.buf[self.at..self.at + take]);
            }
            self.at += take;
            self.pos += take;
            n -= take as u64;
        }
        Ok(true)
    }
}
