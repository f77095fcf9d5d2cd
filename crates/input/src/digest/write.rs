//! Writing a digest: a version folder read as a build reads it (the walk,
//! every input parsed, the field executions), encoded as [`super::Record`].

use std::path::Path;

use super::format::*;
use crate::field::read_field_dir;
use crate::load::{read_input, NoCache};
use crate::records;
use crate::walk;
use model::error::BuildError;
use model::field::Execution;

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
