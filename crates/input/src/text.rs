//! Byte-level decoding shared by every format: gzip, byte-order marks,
//! UTF-16, and invalid UTF-8 (kept, with U+FFFD in place of bad bytes).

use std::borrow::Cow;
use std::io::Read;

use model::error::ParseError;

use model::limits::MAX_DECOMPRESSED;

/// Largest size gzip data may expand to: [`MAX_DECOMPRESSED`] unless the
/// command line said otherwise ([`set_gzip_limit`]).
static GZIP_LIMIT: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(MAX_DECOMPRESSED);

/// Sets the largest size gzip data may expand to (`build --gzip-limit`).
pub fn set_gzip_limit(bytes: u64) {
    GZIP_LIMIT.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// The largest size gzip data may expand to.
pub fn gzip_limit() -> u64 {
    GZIP_LIMIT.load(std::sync::atomic::Ordering::Relaxed)
}

/// True when `bytes` starts with the gzip magic.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Decompresses gzip data (several members are concatenated). The data
/// is first expanded into nothing, counting, so that data expanding past
/// [`gzip_limit`] (a gzip bomb: gigabytes from a few megabytes) is
/// refused without holding any of it.
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, ParseError> {
    let limit = gzip_limit();
    let size = expanded_size(bytes, limit)?;
    let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let decoder = flate2::read::MultiGzDecoder::new(bytes);
    match decoder.take(limit + 1).read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > limit => Err(over_gzip_limit(limit)),
        Ok(_) => Ok(out),
        Err(e) => Err(corrupt(&e, out.len() as u64)),
    }
}

/// How many bytes gzip data expands to, counted without keeping them;
/// an error past `limit` or for corrupt data.
fn expanded_size(bytes: &[u8], limit: u64) -> Result<u64, ParseError> {
    let decoder = flate2::read::MultiGzDecoder::new(bytes);
    let mut counted = CountingSink(0);
    match std::io::copy(&mut decoder.take(limit + 1), &mut counted) {
        Ok(n) if n > limit => Err(over_gzip_limit(limit)),
        Ok(n) => Ok(n),
        Err(e) => Err(corrupt(&e, counted.0)),
    }
}

/// A writer that keeps nothing and counts what it was given.
pub(crate) struct CountingSink(pub(crate) u64);

impl std::io::Write for CountingSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn over_gzip_limit(limit: u64) -> ParseError {
    ParseError::whole(format!(
        "gzip data expands beyond {} MiB, the limit for compressed data (a gzip bomb?); not read. `perfatlas build --gzip-limit MIB` raises it",
        limit >> 20
    ))
}

fn corrupt(e: &std::io::Error, after: u64) -> ParseError {
    ParseError::whole(format!(
        "corrupt or truncated gzip data ({e}) after {after} decompressed bytes"
    ))
}

/// The size gzip data says it expands to (its last member's, modulo
/// 4 GiB): an estimate only, which hostile data may get wrong.
pub fn stated_gzip_size(trailer: [u8; 4]) -> u64 {
    u64::from(u32::from_le_bytes(trailer))
}

/// Decodes text: UTF-8 (BOM stripped) or UTF-16 with a BOM. Invalid UTF-8
/// sequences become U+FFFD rather than failing the file.
pub fn decode_text(bytes: &[u8]) -> Cow<'_, str> {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return Cow::Owned(decode_utf16(rest, u16::from_le_bytes));
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return Cow::Owned(decode_utf16(rest, u16::from_be_bytes));
    }
    String::from_utf8_lossy(bytes)
}

fn decode_utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let units = bytes.chunks_exact(2).map(|c| unit([c[0], c[1]]));
    char::decode_utf16(units)
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// True when the data starts with a UTF-16 byte-order mark.
pub fn is_utf16(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_with_bom_and_invalid_utf8_decode() {
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("a;b 1\n".encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
        assert_eq!(decode_text(&le), "a;b 1\n");
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("x 2".encode_utf16().flat_map(|u| u.to_be_bytes()))
            .collect();
        assert_eq!(decode_text(&be), "x 2");
        assert_eq!(decode_text(b"f\xffo 1"), "f\u{FFFD}o 1");
    }

    #[test]
    fn truncated_gzip_is_an_error_not_a_panic() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&[7u8; 10000]).unwrap();
        let gz = enc.finish().unwrap();
        assert_eq!(gunzip(&gz).unwrap().len(), 10000);
        let err = gunzip(&gz[..gz.len() / 2]).unwrap_err();
        assert!(err.message.contains("truncated"), "{err}");
    }

    #[test]
    fn gzip_past_the_limit_is_refused_naming_the_limit_and_the_flag() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&vec![b'x'; 3 << 20]).unwrap();
        let gz = enc.finish().unwrap();
        // Counted, not held: a limit below the data refuses it.
        assert_eq!(expanded_size(&gz, 4 << 20).unwrap(), 3 << 20);
        let err = expanded_size(&gz, 2 << 20).unwrap_err();
        assert!(
            err.message
                .contains("expands beyond 2 MiB, the limit for compressed data")
                && err.message.contains("--gzip-limit MIB"),
            "{err}"
        );
        assert_eq!(
            stated_gzip_size(gz[gz.len() - 4..].try_into().unwrap()),
            3 << 20
        );
    }
}
