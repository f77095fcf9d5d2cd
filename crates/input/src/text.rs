//! Byte-level decoding shared by every format: gzip, byte-order marks,
//! UTF-16, and invalid UTF-8 (kept, with U+FFFD in place of bad bytes).

use std::borrow::Cow;
use std::io::Read;

use model::error::ParseError;

use model::limits::MAX_DECOMPRESSED;

/// True when `bytes` starts with the gzip magic.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Decompresses gzip data (several members are concatenated).
pub fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, ParseError> {
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(4));
    let decoder = flate2::read::MultiGzDecoder::new(bytes);
    match decoder.take(MAX_DECOMPRESSED + 1).read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > MAX_DECOMPRESSED => Err(ParseError::whole(format!(
            "gzip data expands beyond the {} GiB limit",
            MAX_DECOMPRESSED >> 30
        ))),
        Ok(_) => Ok(out),
        Err(e) => Err(ParseError::whole(format!(
            "corrupt or truncated gzip data ({e}) after {} decompressed bytes",
            out.len()
        ))),
    }
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
}
