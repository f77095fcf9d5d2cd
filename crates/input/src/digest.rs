//! Digests: everything a build reads from one version folder, parsed, in
//! one checksummed file (`NAME.padigest`, `docs/digest-format.md`). A
//! release's CI job writes its digest (`perfatlas digest VERSION_DIR`); a
//! version folder holding only a digest is read exactly as if it held the
//! raw files, so a site built from digests is the site built from the
//! inputs, byte for byte.
//!
//! What a digest keeps: `version.toml`'s text; every input file's path
//! inside the version and what reading it gave (the parsed profile or
//! measurements as [`crate::records`] encodes them for the build cache, or
//! the error that made it skipped; tool by-products are listed but not
//! read, as a build does); what the walk skipped (dangling links, …); and
//! the field executions of `field/` as the build reads them, with their
//! problems.
//!
//! Layout: the magic `PADIGEST`, the format version (u32, little-endian),
//! the perfatlas version (a length byte, then UTF-8), the XXH3-64 checksum
//! of the rest (u64, little-endian), then the postcard encoding of
//! [`Record`], compressed with zlib. The parsed records inside are tied to
//! the perfatlas version that wrote them: another version refuses the
//! digest and says so.

use std::io::{Read, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::envelope::{framed, unframed, EnvelopeError};
use crate::field::{read_field_dir, FieldRead};
use crate::load::{read_input, NoCache};
use crate::records;
use crate::walk;
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

/// What a digest says about itself, for `perfatlas digest`'s summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    /// Field executions kept.
    pub executions: usize,
    pub skipped: usize,
    pub input_bytes: u64,
    pub digest_bytes: u64,
}

/// Reads the version folder `dir` as a build would and returns its digest.
pub fn write_version(dir: &Path) -> Result<(Vec<u8>, Summary), BuildError> {
    let meta = std::fs::metadata(dir).map_err(|e| BuildError::io(dir, e))?;
    if !meta.is_dir() {
        return Err(BuildError::Usage(format!(
            "{}: not a version folder",
            dir.display()
        )));
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (files, walk_skipped) = walk::version_files(dir);
    if let Some(f) = files.iter().find(|f| is_digest(&f.relative)) {
        return Err(BuildError::Usage(format!(
            "{}: already holds a digest ({}); digest its raw files instead",
            dir.display(),
            f.relative
        )));
    }
    let version_toml = match std::fs::read(dir.join("version.toml")) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
            BuildError::Usage(format!(
                "{}: not UTF-8 text",
                dir.join("version.toml").display()
            ))
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(BuildError::io(dir.join("version.toml"), e)),
    };
    let mut input_bytes = version_toml.as_ref().map_or(0, |t| t.len() as u64);
    let mut record = Record {
        written_from: name,
        version_toml,
        files: Vec::with_capacity(files.len()),
        walk_skipped: walk_skipped
            .into_iter()
            .map(|s| (s.file, s.reason))
            .collect(),
        field: None,
    };
    for f in &files {
        input_bytes += std::fs::metadata(&f.path).map_or(0, |m| m.len());
        let read = match crate::measurements::is_tool_byproduct(&f.relative) {
            true => FileRead::NotRead,
            false => match read_input(&f.path, &f.relative, &NoCache) {
                Ok((loaded, _)) => FileRead::Loaded(records::encode(&loaded)),
                Err(e) => FileRead::Failed(records::warning_record(&e)),
            },
        };
        record.files.push(FileRecord {
            within: f.relative.clone(),
            read,
        });
    }
    let field_dir = dir.join("field");
    if field_dir.is_dir() {
        input_bytes += std::fs::read_dir(&field_dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| e.metadata().ok())
                    .filter(|m| m.is_file())
                    .map(|m| m.len())
                    .sum::<u64>()
            })
            .unwrap_or(0);
        let read = read_field_dir(&field_dir, &format!("{}/field", record.written_from));
        let prefix = format!("{}/", record.written_from);
        let within = |p: &str| p.strip_prefix(&prefix).unwrap_or(p).to_string();
        record.field = Some(FieldRecord {
            executions: read
                .executions
                .into_iter()
                .map(|e| Execution {
                    source: within(&e.source),
                    ..e
                })
                .collect(),
            warnings: read
                .warnings
                .iter()
                .map(|(file, e)| (within(file), records::warning_record(e)))
                .collect(),
        });
    }
    let bytes = encode(&record)?;
    let summary = Summary {
        files: record.files.len(),
        executions: record.field.as_ref().map_or(0, |f| f.executions.len()),
        skipped: record
            .files
            .iter()
            .filter(|f| matches!(f.read, FileRead::Failed(_)))
            .count()
            + record.walk_skipped.len()
            + record.field.as_ref().map_or(0, |f| f.warnings.len()),
        input_bytes,
        digest_bytes: bytes.len() as u64,
    };
    Ok((bytes, summary))
}

/// Whether a file name is a digest's.
pub fn is_digest(name: &str) -> bool {
    name.rsplit('/')
        .next()
        .and_then(|n| n.strip_suffix(EXTENSION))
        .is_some_and(|stem| stem.ends_with('.') && stem.len() > 1)
}

fn encode(record: &Record) -> Result<Vec<u8>, BuildError> {
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
