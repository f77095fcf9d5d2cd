//! The digest file format: what a digest holds ([`Record`]), its layout,
//! and reading it back. The walk reads digests through this module only;
//! writing one ([`super::write`]) reads a version folder as a build does.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use crate::envelope::{framed, unframed, EnvelopeError};
use crate::field::FieldRead;
use crate::records;
use crate::Loaded;
use model::error::{BuildError, ParseError};
use model::field::Execution;
use model::Skipped;

/// The file name's extension.
pub const EXTENSION: &str = "padigest";
/// Bumped when the layout or [`Record`] changes.
pub const FORMAT: u32 = 1;
const MAGIC: &[u8; 8] = b"PADIGEST";
/// Most bytes a digest may decompress to.
const MAX_RECORD_BYTES: u64 = model::limits::MAX_INPUT_BYTES;

/// A [`crate::records::warning_record`]: (place tag, number, text, message).
type ErrorRecord = (u8, u64, String, String);

/// What a digest holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    /// The version folder's name when the digest was written (the build
    /// names the version by the folder that holds the digest).
    pub written_from: String,
    /// `version.toml`'s text, when there is one.
    pub version_toml: Option<String>,
    /// Every input file, in walk order.
    pub files: Vec<FileRecord>,
    /// What the walk skipped: (path inside the version, reason).
    pub walk_skipped: Vec<(String, String)>,
    /// The executions of `field/`, when the folder has one.
    pub field: Option<FieldRecord>,
}

/// A version's field executions, paths inside the version.
#[derive(Debug, Serialize, Deserialize)]
pub struct FieldRecord {
    pub executions: Vec<Execution>,
    pub warnings: Vec<(String, ErrorRecord)>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct FileRecord {
    /// Path inside the version, `/`-separated.
    pub within: String,
    pub read: FileRead,
}

/// What reading a file gave.
#[derive(Debug, Serialize, Deserialize)]
pub enum FileRead {
    /// A tool's by-product, which builds list but do not read.
    NotRead,
    /// A [`crate::records`] entry.
    Loaded(Vec<u8>),
    /// Why it was skipped.
    Failed(ErrorRecord),
}

/// Whether a file name is a digest's.
pub fn is_digest(name: &str) -> bool {
    name.rsplit('/')
        .next()
        .and_then(|n| n.strip_suffix(EXTENSION))
        .is_some_and(|stem| stem.ends_with('.') && stem.len() > 1)
}

pub(crate) fn encode(record: &Record) -> Result<Vec<u8>, BuildError> {
    let payload = postcard::to_stdvec(record)
        .map_err(|e| BuildError::Usage(format!("cannot encode the digest: {e}")))?;
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&payload)
        .and_then(|_| z.finish())
        .map(|compressed| framed(MAGIC, FORMAT, &compressed))
        .map_err(|e| BuildError::Usage(format!("cannot compress the digest: {e}")))
}

/// A digest's record, or why it cannot be read (said to the reader as is:
/// a skipped input's reason).
pub fn decode(bytes: &[u8]) -> Result<Record, String> {
    let ours = env!("CARGO_PKG_VERSION");
    let body = unframed(MAGIC, FORMAT, bytes).map_err(|e| match e {
        EnvelopeError::NotOurs => "not a perfatlas digest (it does not start with PADIGEST)".to_string(),
        EnvelopeError::Short => "cut short in its header".to_string(),
        EnvelopeError::Format(format) => format!(
            "digest format {format}; this perfatlas reads format {FORMAT}: write the digest again with this perfatlas"
        ),
        EnvelopeError::Version(version) => format!(
            "written by perfatlas {version}; this is perfatlas {ours}, which reads only its own digests: write the digest again from the raw files"
        ),
        EnvelopeError::Checksum => {
            "its checksum does not match: the file is damaged or cut short".to_string()
        }
    })?;
    decode_body(body)
}

/// The record from a digest's compressed body, its header and checksum
/// already checked (public for the fuzz target, which cannot forge
/// checksums).
pub fn decode_body(body: &[u8]) -> Result<Record, String> {
    let mut payload = Vec::new();
    flate2::read::ZlibDecoder::new(body)
        .take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut payload)
        .map_err(|e| format!("cannot be decompressed: {e}"))?;
    if payload.len() as u64 > MAX_RECORD_BYTES {
        return Err(format!(
            "decompresses to more than {MAX_RECORD_BYTES} bytes"
        ));
    }
    postcard::from_bytes(&payload).map_err(|e| format!("cannot be decoded: {e}"))
}

impl FileRecord {
    /// What a build reads of this file: the parsed input, or why it was
    /// skipped.
    pub fn loaded(&self) -> Result<Loaded, ParseError> {
        match &self.read {
            FileRead::Loaded(entry) => records::decode(entry).ok_or_else(|| {
                ParseError::whole("its entry in the digest cannot be read".to_string())
            }),
            FileRead::Failed(e) => Err(records::warning_of(e.clone()).unwrap_or_else(|| {
                ParseError::whole("its entry in the digest cannot be read".to_string())
            })),
            FileRead::NotRead => Err(ParseError::whole(
                "a tool's by-product, not read".to_string(),
            )),
        }
    }
}

impl Record {
    /// The field executions of `version`, as reading its `field/` gives
    /// them.
    pub fn field(&self, version: &str) -> Option<FieldRead> {
        let field = self.field.as_ref()?;
        let path = |within: &str| format!("{version}/{within}");
        Some(FieldRead {
            executions: field
                .executions
                .iter()
                .map(|e| Execution {
                    source: path(&e.source),
                    ..e.clone()
                })
                .collect(),
            warnings: field
                .warnings
                .iter()
                .map(|(file, e)| {
                    let e = records::warning_of(e.clone()).unwrap_or_else(|| {
                        ParseError::whole("its entry in the digest cannot be read".to_string())
                    });
                    (path(file), e)
                })
                .collect(),
        })
    }

    /// What the walk skipped, as skipped inputs of `version`.
    pub fn walk_skipped(&self, version: &str) -> Vec<Skipped> {
        self.walk_skipped
            .iter()
            .map(|(file, reason)| Skipped {
                file: format!("{version}/{file}"),
                place: String::new(),
                reason: reason.clone(),
            })
            .collect()
    }
}
