//! `--zip`: the whole site as one archive, for mailing. Entries are sorted
//! and carry a fixed timestamp, so the same site gives the same bytes.

use std::io::Write;
use std::path::Path;

use zip::write::SimpleFileOptions;

use super::MARKER;
use crate::error::BuildError;
use crate::render::{Body, SiteFiles};

/// Refuses to replace an existing file at `path` that is not a zip perfatlas
/// wrote (one holding the marker entry), unless `force`.
pub fn check_replaceable(path: &Path, force: bool) -> Result<(), BuildError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(BuildError::io(path, e)),
    };
    if meta.is_dir() {
        return Err(BuildError::Usage(format!(
            "--zip {} is a directory",
            path.display()
        )));
    }
    let ours = std::fs::File::open(path)
        .ok()
        .and_then(|f| zip::ZipArchive::new(f).ok())
        .is_some_and(|mut z| z.by_name(MARKER).is_ok());
    if ours || force || meta.len() == 0 {
        Ok(())
    } else {
        Err(BuildError::Usage(format!(
            "--zip {} exists and was not written by perfatlas; use --force to replace it",
            path.display()
        )))
    }
}

/// Writes `files` (and the marker) into a zip at `path`, via a temporary
/// file renamed into place. Files kept from the previous site or written
/// while rendering are read from the new site at `site`.
pub fn write_zip(path: &Path, files: &SiteFiles, site: &Path) -> Result<(), BuildError> {
    let tmp = path.with_extension("zip.perfatlas-tmp");
    let io = |e: std::io::Error| BuildError::io(path, e);
    let zerr = |e: zip::result::ZipError| BuildError::io(path, std::io::Error::other(e));
    let file = std::fs::File::create(&tmp).map_err(io)?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(file));
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let result = (|| {
        zip.start_file(MARKER, options).map_err(zerr)?;
        zip.write_all(b"This directory was written by perfatlas; perfatlas may replace it.\n")
            .map_err(io)?;
        for (name, body) in files.iter() {
            zip.start_file(name.as_str(), options).map_err(zerr)?;
            match body {
                Body::Bytes(bytes) => zip.write_all(bytes).map_err(io)?,
                Body::Kept(_) | Body::Written(_) => {
                    let kept = site.join(name);
                    let bytes = std::fs::read(&kept).map_err(|e| BuildError::io(&kept, e))?;
                    zip.write_all(&bytes).map_err(io)?;
                }
            }
        }
        zip.finish().map_err(zerr)?.flush().map_err(io)
    })();
    match result {
        Ok(()) => std::fs::rename(&tmp, path).map_err(io),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}
