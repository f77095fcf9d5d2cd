//! The records part of an archive: a version folder as a build read it
//! (every input file's parsed profile or measurements, the field
//! executions, what was skipped), so that the perfatlas that wrote it
//! builds without parsing again. Only a perfatlas with the same
//! [`super::RecordsKey`] uses them; any other reads the raw part.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use crate::field::FieldRead;
use crate::records;
use crate::Loaded;
use model::error::{BuildError, ParseError};
use model::field::Execution;
use model::Skipped;

/// Bumped when [`Record`] changes.
pub const LAYOUT: u32 = 1;
/// Most bytes a records part may decompress to.
const MAX_RECORD_BYTES: u64 = model::limits::MAX_INPUT_BYTES;
/// brotli's quality and window, as for the raw part.
const QUALITY: u32 = 9;
const WINDOW_BITS: u32 = 24;

/// A [`crate::records::warning_record`]: (place tag, number, text, message).
type ErrorRecord = (u8, u64, String, String);

/// What a records part holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    /// The version folder's name when the archive was written (the build
    /// names the version by the folder that holds the archive).
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

pub(crate) fn encode(record: &Record) -> Result<Vec<u8>, BuildError> {
    let payload = postcard::to_stdvec(record)
        .map_err(|e| BuildError::Usage(format!("cannot encode the records: {e}")))?;
    let mut out = Vec::new();
    let mut z = brotli::CompressorWriter::new(&mut out, 64 << 10, QUALITY, WINDOW_BITS);
    z.write_all(&payload)
        .and_then(|_| z.flush())
        .map_err(|e| BuildError::Usage(format!("cannot compress the records: {e}")))?;
    drop(z);
    Ok(out)
}

/// The records from a records part's compressed bytes, or why they cannot
/// be read.
pub fn decode(part: &[u8]) -> Result<Record, String> {
    let mut payload = Vec::new();
    brotli::Decompressor::new(part, 64 << 10)
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
                ParseError::whole("its entry in the archive's records cannot be read".to_string())
            }),
            FileRead::Failed(e) => Err(records::warning_of(e.clone()).unwrap_or_else(|| {
                ParseError::whole("its entry in the archive's records cannot be read".to_string())
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
                        ParseError::whole(
                            "its entry in the archive's records cannot be read".to_string(),
                        )
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
