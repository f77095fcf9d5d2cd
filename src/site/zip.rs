//! `--zip`: the whole site as one archive, for mailing. Entries are sorted
//! and carry a fixed timestamp, so the same site gives the same bytes.

use std::io::Write;
use std::path::Path;

use zip::write::SimpleFileOptions;

use super::MARKER;
use crate::error::BuildError;
use crate::render::SiteFiles;

/// Writes `files` (and the marker) into a zip at `path`, via a temporary
/// file renamed into place.
pub fn write_zip(path: &Path, files: &SiteFiles) -> Result<(), BuildError> {
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
        for (name, bytes) in files {
            zip.start_file(name.as_str(), options).map_err(zerr)?;
            zip.write_all(bytes).map_err(io)?;
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
