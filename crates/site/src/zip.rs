//! `--zip`: the whole site as one archive, for mailing. Entries are sorted
//! and carry a fixed timestamp, so the same site gives the same bytes.
//!
//! The zip is written to a temporary file beside its target
//! (`.NAME.perfatlas-tmp-PID`) and renamed into place only when complete; a
//! failed write removes it, and one left by a killed build is removed by
//! the next build that writes the same zip ([`remove_stale`]), or by the
//! next build of the same site, with or without `--zip`: while the zip is
//! written, the site being written names it in a file ([`PENDING`]), which
//! that build finds with the killed build's staging directory
//! ([`remove_pending`]).

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;

use super::MARKER;
use model::error::BuildError;
use render::{Body, SiteFiles};

/// The marker entry's text, the zip's first entry.
const MARKER_TEXT: &[u8] = b"This directory was written by perfatlas; perfatlas may replace it.\n";

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
/// while rendering are read from the site at `site`.
pub fn write_zip(path: &Path, files: &SiteFiles, site: &Path) -> Result<(), BuildError> {
    prepare(path, files, site)?.commit()
}

/// A complete zip beside its target, not in place yet: [`PendingZip::commit`]
/// renames it there; dropped uncommitted, it is removed.
#[derive(Debug)]
pub struct PendingZip {
    tmp: PathBuf,
    path: PathBuf,
    committed: bool,
}

impl PendingZip {
    /// Renames the zip into place.
    pub fn commit(mut self) -> Result<(), BuildError> {
        fs::rename(&self.tmp, &self.path).map_err(|e| BuildError::io(&self.path, e))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PendingZip {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// The file in a site being written that names the temporary zip written
/// beside it, removed once the zip is in place.
pub const PENDING: &str = ".perfatlas-zip-pending";

/// Records in the site being written at `site` that the zip's temporary
/// file is `tmp` (an absolute path where it can be made one).
fn note_pending(site: &Path, tmp: &Path) -> Result<(), BuildError> {
    let (parent, _) = super::parent_and_name(tmp);
    let named = fs::canonicalize(&parent)
        .ok()
        .zip(tmp.file_name())
        .map_or_else(|| tmp.to_path_buf(), |(dir, name)| dir.join(name));
    let note = site.join(PENDING);
    fs::write(&note, named.to_string_lossy().as_bytes()).map_err(|e| BuildError::io(&note, e))
}

/// Removes the note of a pending zip from the site at `site` (the zip is
/// in place, or was removed).
pub fn forget_pending(site: &Path) {
    let _ = fs::remove_file(site.join(PENDING));
}

/// Removes the temporary zip that the site (or staging directory) at
/// `site` names as pending, when it is one perfatlas wrote (named
/// `.NAME.perfatlas-tmp-PID`, starting with the marker entry) and its
/// build no longer runs; then the note. Returns the zip removed.
pub fn remove_pending(site: &Path) -> Option<PathBuf> {
    let note = site.join(PENDING);
    let named = PathBuf::from(fs::read_to_string(&note).ok()?.trim_end());
    let pid = named
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| n.starts_with('.'))
        .and_then(|n| n.rsplit_once(".perfatlas-tmp-"))
        .map(|(_, digits)| digits)
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<u32>().ok())?;
    if pid == std::process::id() || super::process_runs(pid) {
        return None;
    }
    let ours =
        fs::symlink_metadata(&named).is_ok_and(|m| m.is_file()) && starts_with_marker(&named);
    let removed = ours && fs::remove_file(&named).is_ok();
    let gone = removed || !named.exists();
    if gone {
        let _ = fs::remove_file(&note);
    }
    removed.then_some(named)
}

/// The temporary file's name for the zip at `path`.
fn tmp_path(path: &Path) -> PathBuf {
    let (parent, name) = super::parent_and_name(path);
    parent.join(format!(".{name}.perfatlas-tmp-{}", std::process::id()))
}

/// Writes the zip of `files` to a temporary file beside `path`; errors
/// name `path`, and leave nothing behind.
pub fn prepare(path: &Path, files: &SiteFiles, site: &Path) -> Result<PendingZip, BuildError> {
    let tmp = tmp_path(path);
    note_pending(site, &tmp)?;
    let io = |e: std::io::Error| BuildError::io(path, e);
    let zerr = |e: zip::result::ZipError| match e {
        zip::result::ZipError::Io(e) => BuildError::io(path, e),
        e => BuildError::io(path, std::io::Error::other(e)),
    };
    let file = fs::File::create(&tmp).map_err(io)?;
    let pending = PendingZip {
        tmp,
        path: path.to_path_buf(),
        committed: false,
    };
    let mut zip = zip::ZipWriter::new(Quiet::new(std::io::BufWriter::new(file)));
    // Level 9: 2.3% smaller than the default 6 on the sample site, for a
    // report meant to be mailed; the zip is written once per build.
    let options = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(9))
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644);
    let result = (|| {
        zip.start_file(MARKER, options).map_err(zerr)?;
        zip.write_all(MARKER_TEXT).map_err(io)?;
        for (name, body) in files.iter() {
            zip.start_file(name.as_str(), options).map_err(zerr)?;
            match body {
                Body::Bytes(bytes) => zip.write_all(bytes).map_err(io)?,
                Body::Kept(_) | Body::Written(_) => {
                    let kept = site.join(name);
                    let bytes = fs::read(&kept).map_err(|e| BuildError::io(&kept, e))?;
                    zip.write_all(&bytes).map_err(io)?;
                }
            }
        }
        let mut out = zip.finish().map_err(zerr)?.inner;
        out.flush().map_err(io)?;
        out.get_ref().sync_all().map_err(io)
    })();
    result.map(|()| pending)
}

/// Removes the temporary zips that builds no longer running left beside
/// `path`: files named `.NAME.perfatlas-tmp-PID` whose first entry is
/// perfatlas's marker and whose PID is no running process. Returns them.
pub fn remove_stale(path: &Path) -> Vec<PathBuf> {
    let (parent, name) = super::parent_and_name(path);
    let prefix = format!(".{name}.perfatlas-tmp-");
    let Ok(entries) = fs::read_dir(&parent) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let pid = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<u32>().ok());
        let Some(pid) = pid else {
            continue;
        };
        let path = entry.path();
        let is_file = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if !is_file
            || !starts_with_marker(&path)
            || pid == std::process::id()
            || super::process_runs(pid)
        {
            continue;
        }
        if fs::remove_file(&path).is_ok() {
            removed.push(path);
        }
    }
    removed.sort();
    removed
}

/// Whether the file begins with a zip local header for the marker entry,
/// as every zip perfatlas writes does.
fn starts_with_marker(path: &Path) -> bool {
    let mut head = [0u8; 30 + MARKER.len()];
    let read = fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    read.is_ok()
        && head[..4] == *b"PK\x03\x04"
        && usize::from(u16::from_le_bytes([head[26], head[27]])) == MARKER.len()
        && head[30..] == *MARKER.as_bytes()
}

/// A writer that, once a write has failed, takes every further write and
/// seek without doing it: the zip writer finishes the archive when dropped
/// after an error, and would otherwise print that second failure. The
/// position is kept as if the writes had been done.
struct Quiet<W> {
    inner: W,
    failed: bool,
    pos: u64,
    len: u64,
}

impl<W> Quiet<W> {
    fn new(inner: W) -> Quiet<W> {
        Quiet {
            inner,
            failed: false,
            pos: 0,
            len: 0,
        }
    }

    fn moved(&mut self, pos: u64) -> u64 {
        self.pos = pos;
        self.len = self.len.max(pos);
        pos
    }
}

impl<W: Write> Write for Quiet<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.failed {
            self.moved(self.pos + buf.len() as u64);
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Ok(n) => {
                self.moved(self.pos + n as u64);
                Ok(n)
            }
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.failed {
            return Ok(());
        }
        self.inner.flush().inspect_err(|_| self.failed = true)
    }
}

impl<W: Seek> Seek for Quiet<W> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        if self.failed {
            let pos = match to {
                SeekFrom::Start(n) => n,
                SeekFrom::Current(d) => self.pos.saturating_add_signed(d),
                SeekFrom::End(d) => self.len.saturating_add_signed(d),
            };
            return Ok(self.moved(pos));
        }
        match self.inner.seek(to) {
            Ok(pos) => Ok(self.moved(pos)),
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }
}
