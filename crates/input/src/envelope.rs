//! The envelope perfatlas puts around the bytes it keeps for itself (build
//! cache entries, digests): a magic string, a format version (u32,
//! little-endian), the perfatlas version that wrote them (a length byte,
//! then UTF-8), and the XXH3-64 checksum of the body (u64, little-endian).

use xxhash_rust::xxh3::xxh3_64;

/// Why framed bytes cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EnvelopeError {
    /// They do not start with the magic string.
    NotOurs,
    /// They end inside the header.
    Short,
    /// Another format version.
    Format(u32),
    /// Another perfatlas version.
    Version(String),
    /// The body does not match its checksum.
    Checksum,
}

/// `body` behind the header (for tests; entries are written by
/// [`framed_by`]).
#[cfg(test)]
pub(crate) fn framed(magic: &[u8], format: u32, body: &[u8]) -> Vec<u8> {
    framed_by(magic, format, body.len(), |mut out| {
        out.extend_from_slice(body);
        Some(out)
    })
}

/// A body of about `body_len` bytes behind the header, appended by `write`
/// to the vector it is given (the header in it): a big body (a profile's
/// cache entry) is then never copied, nor held twice. An empty vector when
/// `write` fails.
pub(crate) fn framed_by(
    magic: &[u8],
    format: u32,
    body_len: usize,
    write: impl FnOnce(Vec<u8>) -> Option<Vec<u8>>,
) -> Vec<u8> {
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let mut out = Vec::with_capacity(body_len + magic.len() + 24);
    out.extend_from_slice(magic);
    out.extend_from_slice(&format.to_le_bytes());
    out.push(version.len() as u8);
    out.extend_from_slice(version);
    let sum_at = out.len();
    out.extend_from_slice(&[0; 8]);
    let body_at = out.len();
    let Some(mut out) = write(out).filter(|out| out.len() >= body_at) else {
        return Vec::new();
    };
    let sum = xxh3_64(&out[body_at..]);
    out[sum_at..body_at].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Writes the header and then the body `write` gives to `file` as it is
/// given, through a buffer, the checksum computed on the way and put in
/// the header at the end: a big body (a profile's cache entry) is never
/// held in memory. The bytes are those [`framed_by`] gives.
pub(crate) fn write_framed(
    magic: &[u8],
    format: u32,
    file: &mut std::fs::File,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    let version = env!("CARGO_PKG_VERSION").as_bytes();
    let mut header = Vec::with_capacity(magic.len() + 13 + version.len());
    header.extend_from_slice(magic);
    header.extend_from_slice(&format.to_le_bytes());
    header.push(version.len() as u8);
    header.extend_from_slice(version);
    let sum_at = header.len() as u64;
    header.extend_from_slice(&[0; 8]);
    file.write_all(&header)?;
    // Hashed as the buffer is written out, in chunks of up to 1 MiB: the
    // serializer's writes are a few bytes each, and hashing each on its
    // own cost more than the hash of the whole.
    let mut body = std::io::BufWriter::with_capacity(
        1 << 20,
        Summed {
            out: &mut *file,
            sum: xxhash_rust::xxh3::Xxh3::new(),
        },
    );
    write(&mut body)?;
    let summed = body.into_inner().map_err(|e| e.into_error())?;
    let sum = summed.sum.digest();
    file.seek(SeekFrom::Start(sum_at))?;
    file.write_all(&sum.to_le_bytes())
}

/// A writer that hashes what it passes on.
struct Summed<W> {
    out: W,
    sum: xxhash_rust::xxh3::Xxh3,
}

impl<W: std::io::Write> std::io::Write for Summed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.sum.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The body of `bytes`, when its header is this perfatlas's and
/// `format`, and the body matches its checksum.
pub(crate) fn unframed<'a>(
    magic: &[u8],
    format: u32,
    bytes: &'a [u8],
) -> Result<&'a [u8], EnvelopeError> {
    let rest = bytes.strip_prefix(magic).ok_or(EnvelopeError::NotOurs)?;
    let (found, rest) = rest.split_at_checked(4).ok_or(EnvelopeError::Short)?;
    let found = u32::from_le_bytes(found.try_into().map_err(|_| EnvelopeError::Short)?);
    if found != format {
        return Err(EnvelopeError::Format(found));
    }
    let (&len, rest) = rest.split_first().ok_or(EnvelopeError::Short)?;
    let (version, rest) = rest
        .split_at_checked(len as usize)
        .ok_or(EnvelopeError::Short)?;
    if version != env!("CARGO_PKG_VERSION").as_bytes() {
        return Err(EnvelopeError::Version(
            String::from_utf8_lossy(version).into_owned(),
        ));
    }
    let (sum, body) = rest.split_at_checked(8).ok_or(EnvelopeError::Short)?;
    if sum != xxh3_64(body).to_le_bytes() {
        return Err(EnvelopeError::Checksum);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_gives_back_its_body_and_refuses_any_change() {
        let bytes = framed(b"MAGIC", 7, b"body");
        assert_eq!(unframed(b"MAGIC", 7, &bytes), Ok(&b"body"[..]));
        assert_eq!(unframed(b"OTHER", 7, &bytes), Err(EnvelopeError::NotOurs));
        assert_eq!(unframed(b"MAGIC", 8, &bytes), Err(EnvelopeError::Format(7)));
        assert_eq!(
            unframed(b"MAGIC", 7, &bytes[..8]),
            Err(EnvelopeError::Short)
        );
        let mut damaged = bytes.clone();
        *damaged.last_mut().unwrap() ^= 1;
        assert_eq!(
            unframed(b"MAGIC", 7, &damaged),
            Err(EnvelopeError::Checksum)
        );
        let mut other = bytes;
        other[10] ^= 1;
        assert!(matches!(
            unframed(b"MAGIC", 7, &other),
            Err(EnvelopeError::Version(_))
        ));
    }

    #[test]
    fn a_body_written_behind_the_header_is_framed_as_a_copied_one() {
        let written = framed_by(b"MAGIC", 7, 2, |mut out| {
            out.extend_from_slice(b"a longer body than announced");
            Some(out)
        });
        assert_eq!(
            written,
            framed(b"MAGIC", 7, b"a longer body than announced")
        );
        // A write that fails, or loses the header, gives nothing to keep.
        assert!(framed_by(b"MAGIC", 7, 4, |_| None).is_empty());
        assert!(framed_by(b"MAGIC", 7, 4, |_| Some(b"body".to_vec())).is_empty());
    }
}
