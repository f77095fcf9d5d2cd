//! The archive file's layout: a header, the raw part ([`super::raw`]), and
//! the parsed records ([`super::parsed`]) as an optional part keyed by the
//! perfatlas version and record formats that wrote them. [`open`] checks
//! the header and checksum and finds the parts; nothing here decompresses.
//!
//! | bytes | content |
//! |---|---|
//! | 8 | `PADIGEST` |
//! | 4 | format version, u32: `2` (format 1 held parsed records only) |
//! | 1 + n | the perfatlas version that wrote the file: length, UTF-8 |
//! | 8 | the file's length in bytes (u64), so a file cut short says so |
//! | 8 | XXH3-64 of everything after this field |
//! | 8 + r | the raw part: its length (u64), its bytes |
//! | 8 + k | the records part: its length (u64; 0 when there is none); its key (1 + n: perfatlas version; u32: [`crate::records::FORMAT`]; u32: [`super::parsed::LAYOUT`]), then its bytes |
//!
//! Numbers are little-endian.

use xxhash_rust::xxh3::xxh3_64;

/// The file name's extension.
pub const EXTENSION: &str = "padigest";
/// Bumped when the layout changes; a later perfatlas still reads every
/// earlier format from 2 on.
pub const FORMAT: u32 = 2;
const MAGIC: &[u8; 8] = b"PADIGEST";

/// Whether a file name is an archive's.
pub fn is_digest(name: &str) -> bool {
    name.rsplit('/')
        .next()
        .and_then(|n| n.strip_suffix(EXTENSION))
        .is_some_and(|stem| stem.ends_with('.') && stem.len() > 1)
}

/// Which perfatlas can use an archive's records as they are: the one whose
/// version and record formats are these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordsKey {
    pub perfatlas: String,
    /// [`crate::records::FORMAT`]: how a parsed file is encoded.
    pub entries: u32,
    /// [`super::parsed::LAYOUT`]: how a version's records are laid out.
    pub layout: u32,
}

impl RecordsKey {
    /// This perfatlas's key.
    pub fn this() -> RecordsKey {
        RecordsKey {
            perfatlas: env!("CARGO_PKG_VERSION").to_string(),
            entries: crate::records::FORMAT,
            layout: super::parsed::LAYOUT,
        }
    }
}

impl std::fmt::Display for RecordsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "perfatlas {}, records {}.{}",
            self.perfatlas, self.entries, self.layout
        )
    }
}

/// An archive's parts, its header and checksum checked.
#[derive(Debug)]
pub struct Archive<'a> {
    /// The perfatlas version that wrote it.
    pub writer: String,
    /// The raw part, compressed.
    pub raw: &'a [u8],
    /// The records part's key and compressed bytes, when it has one.
    pub records: Option<(RecordsKey, &'a [u8])>,
}

/// Why an archive cannot be read: where (`byte N`, or empty for the whole
/// file) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveError {
    pub place: String,
    pub message: String,
}

impl ArchiveError {
    fn at(offset: usize, message: impl Into<String>) -> ArchiveError {
        ArchiveError {
            place: format!("byte {offset}"),
            message: message.into(),
        }
    }

    fn whole(message: impl Into<String>) -> ArchiveError {
        ArchiveError {
            place: String::new(),
            message: message.into(),
        }
    }
}

/// The file: header, checksum, raw part, then the records part.
pub(crate) fn assemble(raw: &[u8], records: Option<(&RecordsKey, &[u8])>) -> Vec<u8> {
    let mut body = Vec::with_capacity(raw.len() + records.map_or(0, |r| r.1.len()) + 64);
    body.extend_from_slice(&(raw.len() as u64).to_le_bytes());
    body.extend_from_slice(raw);
    match records {
        None => body.extend_from_slice(&0u64.to_le_bytes()),
        Some((key, bytes)) => {
            let mut part = Vec::with_capacity(bytes.len() + 32);
            push_text(&mut part, &key.perfatlas);
            part.extend_from_slice(&key.entries.to_le_bytes());
            part.extend_from_slice(&key.layout.to_le_bytes());
            part.extend_from_slice(bytes);
            body.extend_from_slice(&(part.len() as u64).to_le_bytes());
            body.extend_from_slice(&part);
        }
    }
    let mut out = Vec::with_capacity(body.len() + 300);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    push_text(&mut out, env!("CARGO_PKG_VERSION"));
    let len = out.len() + 16 + body.len();
    out.extend_from_slice(&(len as u64).to_le_bytes());
    out.extend_from_slice(&xxh3_64(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// A short text: its length (one byte), then UTF-8 (cut to 255 bytes).
fn push_text(out: &mut Vec<u8>, text: &str) {
    let bytes = &text.as_bytes()[..text.len().min(255)];
    out.push(bytes.len() as u8);
    out.extend_from_slice(bytes);
}

/// Reads from a byte slice, counting where it is for messages.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], ArchiveError> {
        let rest = &self.bytes[self.at..];
        if rest.len() < n {
            return Err(ArchiveError::at(
                self.bytes.len(),
                format!(
                    "cut short in {what}: it needs {n} bytes from byte {}, the file ends at byte {}",
                    self.at,
                    self.bytes.len()
                ),
            ));
        }
        self.at += n;
        Ok(&rest[..n])
    }

    fn u32(&mut self, what: &str) -> Result<u32, ArchiveError> {
        Ok(u32::from_le_bytes(
            self.take(4, what)?.try_into().unwrap_or_default(),
        ))
    }

    fn u64(&mut self, what: &str) -> Result<u64, ArchiveError> {
        Ok(u64::from_le_bytes(
            self.take(8, what)?.try_into().unwrap_or_default(),
        ))
    }

    fn text(&mut self, what: &str) -> Result<String, ArchiveError> {
        let len = self.take(1, what)?[0] as usize;
        Ok(String::from_utf8_lossy(self.take(len, what)?).into_owned())
    }

    /// A part: its length, then its bytes.
    fn part(&mut self, what: &str) -> Result<&'a [u8], ArchiveError> {
        let len = self.u64(what)?;
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        self.take(len, what)
    }
}

/// The archive in `bytes`: its header read, its checksum checked, its
/// parts found.
pub fn open(bytes: &[u8]) -> Result<Archive<'_>, ArchiveError> {
    if !bytes.starts_with(MAGIC) {
        return Err(ArchiveError::whole(
            "not a perfatlas archive (it does not start with PADIGEST)",
        ));
    }
    let mut cursor = Cursor {
        bytes,
        at: MAGIC.len(),
    };
    let format = cursor.u32("its header")?;
    let writer = cursor.text("its header")?;
    if format != FORMAT {
        return Err(ArchiveError::whole(other_format(format, &writer)));
    }
    let declared = cursor.u64("its header")?;
    let sum = cursor.take(8, "its header")?;
    let len = bytes.len() as u64;
    if len < declared {
        return Err(ArchiveError::at(
            bytes.len(),
            format!(
                "cut short: the file ends at byte {len}, its header says it has {declared} bytes"
            ),
        ));
    }
    if len > declared {
        return Err(ArchiveError::at(
            declared as usize,
            match len - declared {
                1 => "1 byte follows its end".to_string(),
                n => format!("{n} bytes follow its end"),
            },
        ));
    }
    if sum != xxh3_64(&bytes[cursor.at..]).to_le_bytes() {
        return Err(ArchiveError::whole(
            "its checksum does not match: the file is damaged",
        ));
    }
    let parts = parts_at(&mut cursor);
    let (raw, records) = parts?;
    Ok(Archive {
        writer,
        raw,
        records,
    })
}

/// What an archive of another format says.
fn other_format(format: u32, writer: &str) -> String {
    let ours = env!("CARGO_PKG_VERSION");
    match format {
        1 => format!(
            "a digest of format 1, written by perfatlas {writer}, holds parsed records only, \
             which no other version reads; this perfatlas ({ours}) reads archives of format \
             {FORMAT}, which keep the raw files: write it again from the raw files with \
             `perfatlas digest`"
        ),
        _ => format!(
            "archive format {format}, written by perfatlas {writer}; this perfatlas ({ours}) \
             reads formats up to {FORMAT}: build with perfatlas {writer} or later"
        ),
    }
}

type Parts<'a> = (&'a [u8], Option<(RecordsKey, &'a [u8])>);

/// The raw and the records part, from the cursor at the body on.
fn parts_at<'a>(cursor: &mut Cursor<'a>) -> Result<Parts<'a>, ArchiveError> {
    let raw = cursor.part("its raw part")?;
    let records = cursor.part("its records part")?;
    if cursor.at != cursor.bytes.len() {
        return Err(ArchiveError::at(
            cursor.at,
            format!(
                "{} bytes follow its last part",
                cursor.bytes.len() - cursor.at
            ),
        ));
    }
    if records.is_empty() {
        return Ok((raw, None));
    }
    let mut part = Cursor {
        bytes: records,
        at: 0,
    };
    let key = RecordsKey {
        perfatlas: part.text("its records' key")?,
        entries: part.u32("its records' key")?,
        layout: part.u32("its records' key")?,
    };
    Ok((raw, Some((key, &records[part.at..]))))
}

/// The parts of an archive's body (what follows its checksum), unchecked:
/// for the fuzz target, which cannot forge checksums.
pub fn parts_of_body(body: &[u8]) -> Result<Parts<'_>, ArchiveError> {
    parts_at(&mut Cursor { bytes: body, at: 0 })
}

/// `bytes`, an archive, with its records keyed by `key` instead: the
/// archive another perfatlas version would have written (tests use it to
/// read an archive as a later version would).
pub fn rekey(bytes: &[u8], key: &RecordsKey) -> Result<Vec<u8>, ArchiveError> {
    let archive = open(bytes)?;
    Ok(assemble(
        archive.raw,
        archive.records.map(|(_, records)| (key, records)),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_archive_gives_back_its_parts_and_says_what_is_wrong_where() {
        let key = RecordsKey::this();
        let bytes = assemble(b"raw bytes", Some((&key, b"records")));
        let archive = open(&bytes).unwrap();
        assert_eq!(archive.raw, b"raw bytes");
        assert_eq!(archive.records, Some((key.clone(), &b"records"[..])));
        assert_eq!(open(&assemble(b"raw", None)).unwrap().records, None);

        let e = open(&bytes[..bytes.len() - 3]).unwrap_err();
        assert_eq!(e.place, format!("byte {}", bytes.len() - 3));
        assert!(e.message.starts_with("cut short: the file ends"), "{e:?}");
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(open(&longer).unwrap_err().message, "1 byte follows its end");
        let e = open(&bytes[..10]).unwrap_err();
        assert!(e.message.starts_with("cut short in its header"), "{e:?}");
        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        assert_eq!(
            open(&damaged).unwrap_err().message,
            "its checksum does not match: the file is damaged"
        );
        let mut old = bytes.clone();
        old[8] = 1;
        assert!(open(&old)
            .unwrap_err()
            .message
            .contains("write it again from the raw files"));
        old[8] = 3;
        assert!(open(&old).unwrap_err().message.contains("or later"));
    }

    #[test]
    fn rekeying_changes_only_the_key() {
        let bytes = assemble(b"raw", Some((&RecordsKey::this(), b"records")));
        let later = RecordsKey {
            perfatlas: "99.0.0".into(),
            ..RecordsKey::this()
        };
        let again = rekey(&bytes, &later).unwrap();
        let archive = open(&again).unwrap();
        assert_eq!(archive.raw, b"raw");
        assert_eq!(archive.records, Some((later, &b"records"[..])));
    }
}
