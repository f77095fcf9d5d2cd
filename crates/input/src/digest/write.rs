//! Writing an archive: the version folder's raw files, as a build would
//! read them, into the raw part; every input parsed as a build parses it,
//! to say what a build will skip and, when asked, to keep as the records
//! part.

use std::io::Read;
use std::path::Path;

use super::format::*;
use super::parsed::{self, FieldRecord, FileRead, FileRecord, Record};
use super::raw::{name_of, RawWriter, MAX_FILE_BYTES};
use crate::field::{classify, read_field_dir};
use crate::load::{not_a_regular_file, read_input, NoCache};
use crate::records;
use crate::walk::{self, InputFile};
use model::error::BuildError;
use model::field::Execution;

/// What an archive says about itself, for `perfatlas digest`'s summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    /// Field executions kept.
    pub executions: usize,
    /// Inputs a build will list as skipped.
    pub skipped: usize,
    /// Bytes of the files kept.
    pub input_bytes: u64,
    pub digest_bytes: u64,
    /// Whether the records part was written.
    pub records: bool,
}

/// The archive of the version folder `dir`, with the parsed records when
/// `with_records` (and `version.toml`, if any, is UTF-8 text).
pub fn write_version(dir: &Path, with_records: bool) -> Result<(Vec<u8>, Summary), BuildError> {
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
            "{}: already holds an archive ({}); archive its raw files instead",
            dir.display(),
            f.relative
        )));
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| BuildError::io(path, e)
    };
    let mut raw = RawWriter::new();
    let toml_path = dir.join("version.toml");
    let version_toml = match toml_path.is_file() {
        true => Some(std::fs::read(&toml_path).map_err(io(&toml_path))?),
        false => None,
    };
    if let Some(bytes) = &version_toml {
        raw.file(b"version.toml", bytes.len() as u64, &mut &bytes[..])
            .map_err(io(&toml_path))?;
    }
    let inputs: Vec<&InputFile> = files
        .iter()
        .filter(|f| !crate::measurements::is_tool_byproduct(&f.relative))
        .collect();
    for f in &inputs {
        keep_input(&mut raw, dir, f)?;
    }
    for s in &walk_skipped {
        raw.unreadable(&s.file, &s.reason).map_err(io(dir))?;
    }
    let field_dir = dir.join("field");
    if field_dir.is_dir() {
        keep_field(&mut raw, &field_dir)?;
    }
    let input_bytes = raw.bytes;
    let raw = raw.finish().map_err(io(dir))?;

    let record = Record {
        written_from: name,
        version_toml: version_toml.and_then(|b| String::from_utf8(b).ok()),
        files: read_all(&files),
        walk_skipped: walk_skipped
            .into_iter()
            .map(|s| (s.file, s.reason))
            .collect(),
        field: None,
    };
    let record = with_field(record, &field_dir);
    let toml_unreadable = record.version_toml.is_none() && toml_path.is_file();
    let records = match with_records && !toml_unreadable {
        true => Some(parsed::encode(&record)?),
        false => None,
    };
    let key = RecordsKey::this();
    let bytes = assemble(&raw, records.as_deref().map(|r| (&key, r)));
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
        records: records.is_some(),
    };
    Ok((bytes, summary))
}

/// Keeps an input file in the raw part or, when a build could not read
/// it either, why (as the build says it).
fn keep_input(raw: &mut RawWriter, dir: &Path, f: &InputFile) -> Result<(), BuildError> {
    let within = f.path.strip_prefix(dir).unwrap_or(&f.path);
    let why_not = match std::fs::metadata(&f.path) {
        Err(e) => Some(format!("cannot be read: {e}")),
        Ok(meta) if !meta.is_file() => Some(not_a_regular_file(&meta)),
        Ok(meta) if meta.len() > MAX_FILE_BYTES => Some(format!(
            "{} bytes is over the {} GiB input limit",
            meta.len(),
            MAX_FILE_BYTES >> 30
        )),
        Ok(_) => None,
    };
    let result = match why_not {
        Some(reason) => raw.unreadable(&f.relative, &reason),
        None => match std::fs::File::open(&f.path) {
            Err(e) => raw.unreadable(&f.relative, &format!("cannot be read: {e}")),
            Ok(file) => return keep_file(raw, within, &f.path, file),
        },
    };
    result.map_err(|e| BuildError::io(&f.path, e))
}

/// Copies an open file into the raw part, refusing one that changes
/// meanwhile (a profiler still writing it).
fn keep_file(
    raw: &mut RawWriter,
    within: &Path,
    path: &Path,
    mut file: std::fs::File,
) -> Result<(), BuildError> {
    let stamp = |file: &std::fs::File| {
        file.metadata()
            .map(|m| (m.len(), m.modified().ok()))
            .map_err(|e| BuildError::io(path, e))
    };
    let before = stamp(&file)?;
    let copied = raw.file(&name_of(within), before.0, &mut file as &mut dyn Read);
    let grew = file.read(&mut [0u8; 1]).is_ok_and(|n| n > 0);
    if copied.is_err() || grew || stamp(&file)? != before {
        return Err(BuildError::Usage(format!(
            "{}: changed while it was read; a program may still be writing it: archive it again once it is complete",
            path.display()
        )));
    }
    Ok(())
}

/// Keeps the files of `field/` a build reads, and why it skips the others.
fn keep_field(raw: &mut RawWriter, field_dir: &Path) -> Result<(), BuildError> {
    let io = |e: std::io::Error| BuildError::io(field_dir, e);
    let mut entries: Vec<std::fs::DirEntry> = std::fs::read_dir(field_dir)
        .map_err(io)?
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = model::visible(&entry.file_name().to_string_lossy()).into_owned();
        let path = entry.path();
        match classify(&path, &name) {
            Ok(None) => {}
            Err(reason) => raw
                .unreadable(&format!("field/{name}"), &reason)
                .map_err(io)?,
            Ok(Some(_)) => {
                let file = std::fs::File::open(&path).map_err(|e| BuildError::io(&path, e))?;
                let within = Path::new("field").join(entry.file_name());
                keep_file(raw, &within, &path, file)?;
            }
        }
    }
    Ok(())
}

/// Every input file read as a build reads it (tool by-products listed,
/// not read).
fn read_all(files: &[InputFile]) -> Vec<FileRecord> {
    let cost = |f: &InputFile| crate::load::read_cost(&f.path);
    crate::load::map_within_budget(files, cost, |f| FileRecord {
        within: f.relative.clone(),
        read: match crate::measurements::is_tool_byproduct(&f.relative) {
            true => FileRead::NotRead,
            false => match read_input(&f.path, &f.relative, &NoCache) {
                Ok((loaded, _)) => FileRead::Loaded(records::encode(&loaded)),
                Err(e) => FileRead::Failed(records::warning_record(&e)),
            },
        },
    })
}

/// The record with the field executions of `field_dir`, read as a build
/// reads them, when the folder has one.
fn with_field(mut record: Record, field_dir: &Path) -> Record {
    if !field_dir.is_dir() {
        return record;
    }
    let read = read_field_dir(field_dir, &format!("{}/field", record.written_from));
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
    record
}
