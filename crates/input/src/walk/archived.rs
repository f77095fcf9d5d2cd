//! A version folder that holds an archive (`NAME.padigest`) and no other
//! input: its records when they are this perfatlas's, otherwise its raw
//! files unpacked into a temporary folder and walked as any version
//! folder is, so every later perfatlas reads them with its own walk and
//! parsers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{benchmark_and_repetition, list_files, skip, InputFile, VersionDir};
use crate::digest::{self, raw, Record, RecordsKey};
use model::Skipped;

/// The version `name` at `path`, whose walk listed `files`: the archive's
/// contents in place of the folder's when it holds one and nothing else
/// read; what was skipped on the way.
pub(super) fn open_version(
    name: String,
    path: PathBuf,
    files: Vec<InputFile>,
) -> (VersionDir, Vec<Skipped>) {
    let mut skipped = Vec::new();
    let mut dir = VersionDir {
        name,
        path,
        files: Vec::new(),
        digest: None,
        unpacked: None,
    };
    let (mut archives, rest): (Vec<InputFile>, Vec<InputFile>) = files
        .into_iter()
        .partition(|f| digest::is_digest(&f.relative));
    let refused = match (archives.len(), rest.is_empty()) {
        (0, _) => None,
        (1, true) => {
            open_archive(&mut dir, archives.remove(0), &mut skipped);
            return (dir, skipped);
        }
        (1, false) => Some(
            "a digest beside other input files is not read (a version folder holds one or the other)",
        ),
        _ => Some(
            "a version folder holds one digest and no other input files; this one is not read",
        ),
    };
    if let Some(reason) = refused {
        skipped.extend(archives.iter().map(|d| skip(&d.relative, reason)));
    }
    dir.files = rest;
    (dir, skipped)
}

/// Reads the archive `file` into `dir`: its records, when keyed for this
/// perfatlas and readable, else its unpacked raw files. An archive that
/// cannot be read leaves the version empty, with the reason skipped.
fn open_archive(dir: &mut VersionDir, file: InputFile, skipped: &mut Vec<Skipped>) {
    let fail = |place: String, reason: String| Skipped {
        file: file.relative.clone(),
        place,
        reason,
    };
    let bytes = match std::fs::read(&file.path) {
        Ok(bytes) => bytes,
        Err(e) => return skipped.push(fail(String::new(), format!("cannot be read: {e}"))),
    };
    let archive = match digest::open(&bytes) {
        Ok(archive) => archive,
        Err(e) => return skipped.push(fail(e.place, e.message)),
    };
    let ours = RecordsKey::this();
    let record = archive
        .records
        .filter(|(key, _)| *key == ours)
        .and_then(|(_, part)| digest::parsed::decode(part).ok());
    match record {
        Some(record) => use_records(dir, &file.path, record, skipped),
        None => {
            if let Err((place, reason)) = unpack(dir, archive.raw, skipped) {
                skipped.push(fail(place, reason));
            }
        }
    }
}

/// The records' files in place of the folder's.
fn use_records(dir: &mut VersionDir, archive: &Path, record: Record, skipped: &mut Vec<Skipped>) {
    skipped.extend(record.walk_skipped(&dir.name));
    dir.files = record
        .files
        .iter()
        .enumerate()
        .map(|(k, f)| {
            let (benchmark, repetition) = benchmark_and_repetition(&f.within);
            InputFile {
                path: archive.to_path_buf(),
                relative: format!("{}/{}", dir.name, f.within),
                benchmark,
                repetition,
                digested: Some(k),
            }
        })
        .collect();
    dir.digest = Some(Arc::new(record));
}

/// Unpacks the raw part into a new temporary folder and walks it: the
/// version's path becomes the unpacked folder (its `version.toml` and
/// `field/` are read there), its files are the unpacked ones.
fn unpack(
    dir: &mut VersionDir,
    raw_part: &[u8],
    skipped: &mut Vec<Skipped>,
) -> Result<(), (String, String)> {
    let temp = tempfile::Builder::new()
        .prefix("perfatlas-archive-")
        .tempdir()
        .map_err(|e| {
            (
                String::new(),
                format!("cannot make a temporary folder to unpack it into: {e}"),
            )
        })?;
    let version = temp.path().join(&dir.name);
    let unreadable = std::fs::create_dir(&version)
        .map_err(|e| raw::RawError {
            place: String::new(),
            message: format!("cannot be unpacked: {e}"),
        })
        .and_then(|_| raw::extract(raw_part, &version))
        .map_err(|e| (e.place, format!("its raw part: {}", e.message)))?;
    let root = temp
        .path()
        .canonicalize()
        .unwrap_or(temp.path().to_path_buf());
    dir.files = list_files(temp.path(), &root, &version, skipped);
    skipped.extend(
        unreadable
            .into_iter()
            .map(|(within, reason)| skip(&format!("{}/{within}", dir.name), &reason)),
    );
    dir.path = version;
    dir.unpacked = Some(Arc::new(temp));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::find_versions;
    use crate::digest::{rekey, write_version, RecordsKey};

    /// An input directory whose version `1.0` holds only the archive
    /// `bytes`.
    fn history_of(bytes: &[u8]) -> tempfile::TempDir {
        let input = tempfile::tempdir().unwrap();
        std::fs::create_dir(input.path().join("1.0")).unwrap();
        std::fs::write(input.path().join("1.0/1.0.padigest"), bytes).unwrap();
        input
    }

    fn archive_with_records() -> Vec<u8> {
        let raw = tempfile::tempdir().unwrap();
        let version = raw.path().join("1.0");
        std::fs::create_dir_all(version.join("sub")).unwrap();
        std::fs::write(version.join("a.folded"), "main;f 1\n").unwrap();
        std::fs::write(version.join("sub/b.folded"), "main;g 2\n").unwrap();
        std::fs::write(version.join("version.toml"), "label = \"one\"\n").unwrap();
        write_version(&version, true).unwrap().0
    }

    #[test]
    fn this_perfatlas_reads_its_records_and_another_unpacks_the_raw_files() {
        let input = history_of(&archive_with_records());
        let (versions, skipped) =
            find_versions(input.path(), &config::InputConfig::default()).unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        let relative = |v: &super::VersionDir| -> Vec<String> {
            v.files.iter().map(|f| f.relative.clone()).collect()
        };
        assert!(versions[0].digest.is_some() && versions[0].unpacked.is_none());
        assert_eq!(relative(&versions[0]), ["1.0/a.folded", "1.0/sub/b.folded"]);

        let later = RecordsKey {
            perfatlas: "99.0.0".into(),
            ..RecordsKey::this()
        };
        let input = history_of(&rekey(&archive_with_records(), &later).unwrap());
        let (versions, skipped) =
            find_versions(input.path(), &config::InputConfig::default()).unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        let v = &versions[0];
        assert!(v.digest.is_none() && v.unpacked.is_some());
        assert_eq!(relative(v), ["1.0/a.folded", "1.0/sub/b.folded"]);
        assert_eq!(
            std::fs::read_to_string(v.path.join("version.toml")).unwrap(),
            "label = \"one\"\n"
        );
        let unpacked = v.path.clone();
        drop(versions);
        assert!(!unpacked.exists(), "the unpacked folder is removed");
    }

    #[test]
    fn a_damaged_archive_is_skipped_with_its_place() {
        let bytes = archive_with_records();
        let input = history_of(&bytes[..bytes.len() - 10]);
        let (versions, skipped) =
            find_versions(input.path(), &config::InputConfig::default()).unwrap();
        assert!(versions[0].files.is_empty());
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].file, "1.0/1.0.padigest");
        assert_eq!(skipped[0].place, format!("byte {}", bytes.len() - 10));
        assert!(skipped[0].reason.starts_with("cut short"), "{skipped:?}");
    }
}
