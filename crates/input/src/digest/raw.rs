//! The raw part of an archive: the files of a version folder as they were,
//! byte for byte, in one solid brotli stream (a 16 MiB window, so the
//! repetitions of a benchmark, which differ little, compress against each
//! other), and what could not be kept, with the reason a build gives.
//!
//! The stream is a sequence of entries, each a tag byte:
//! - `1` a file: its path inside the version (u32 length, then the bytes
//!   of the name as the file system gave them, `/`-separated), its length
//!   (u64), its bytes;
//! - `2` something a build lists as skipped and the archive cannot hold (a
//!   dangling link, a named pipe): its path as a build names it (u32
//!   length, UTF-8), the reason (u32 length, UTF-8);
//! - `0` the end; nothing follows it.
//!
//! All numbers little-endian. Reading checks every path (relative, no `..`)
//! and bounds what the stream may unpack to.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// brotli's quality: 9 writes about 10 MB/s and compresses a third better
/// than gzip on the sample histories; 10 and 11 gain 2 to 5 % more at a
/// tenth and a twentieth of the speed.
const QUALITY: u32 = 9;
/// A 16 MiB window (2^24 bytes, brotli's largest standard one).
const WINDOW_BITS: u32 = 24;
const BUFFER: usize = 64 << 10;

const END: u8 = 0;
const FILE: u8 = 1;
const UNREADABLE: u8 = 2;

/// Most bytes one file in an archive may hold: the input limit, which a
/// build refuses files over anyway.
pub const MAX_FILE_BYTES: u64 = model::limits::MAX_INPUT_BYTES;
/// Most bytes one archive's files may hold together.
pub const MAX_TOTAL_BYTES: u64 = 8 * MAX_FILE_BYTES;
/// Longest path kept, in bytes.
const MAX_PATH_BYTES: u32 = 4096;

/// Writes the raw part, entry by entry.
pub(crate) struct RawWriter {
    stream: brotli::CompressorWriter<Vec<u8>>,
    /// Bytes of the files written.
    pub bytes: u64,
}

impl RawWriter {
    pub fn new() -> RawWriter {
        RawWriter {
            stream: brotli::CompressorWriter::new(Vec::new(), BUFFER, QUALITY, WINDOW_BITS),
            bytes: 0,
        }
    }

    /// A file, `within` the version, whose `len` bytes `content` gives.
    pub fn file(&mut self, within: &[u8], len: u64, content: &mut dyn Read) -> io::Result<()> {
        self.stream.write_all(&[FILE])?;
        write_bytes(&mut self.stream, within)?;
        self.stream.write_all(&len.to_le_bytes())?;
        let copied = io::copy(&mut content.take(len), &mut self.stream)?;
        if copied != len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{len} bytes before, {copied} read"),
            ));
        }
        self.bytes += len;
        Ok(())
    }

    /// Something a build lists as skipped, `within` the version, and why.
    pub fn unreadable(&mut self, within: &str, reason: &str) -> io::Result<()> {
        self.stream.write_all(&[UNREADABLE])?;
        write_bytes(&mut self.stream, within.as_bytes())?;
        write_bytes(&mut self.stream, reason.as_bytes())
    }

    /// The compressed stream, ended.
    pub fn finish(mut self) -> io::Result<Vec<u8>> {
        self.stream.write_all(&[END])?;
        self.stream.flush()?;
        Ok(self.stream.into_inner())
    }
}

fn write_bytes(out: &mut dyn Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(&(bytes.len() as u32).to_le_bytes())?;
    out.write_all(bytes)
}

/// What reading the raw part meets, in stream order.
pub trait Visit {
    /// A file at `path` (checked: relative, inside the version) whose
    /// `len` bytes `content` gives. What it leaves unread is skipped.
    fn file(&mut self, path: &Path, len: u64, content: &mut dyn Read) -> io::Result<()>;
    /// Something a build lists as skipped: its path inside the version,
    /// as the build names it, and the reason.
    fn unreadable(&mut self, within: String, reason: String);
}

/// Why the raw part cannot be read: where (the entry, counted from 1, and
/// its path when known) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawError {
    pub place: String,
    pub message: String,
}

/// Reads the compressed raw part `part`, giving each entry to `visit`.
pub fn read(part: &[u8], visit: &mut dyn Visit) -> Result<(), RawError> {
    let mut stream = brotli::Decompressor::new(part, BUFFER);
    let mut total = 0u64;
    let mut n = 0u64;
    loop {
        n += 1;
        let at = |path: Option<&str>| match path {
            Some(p) => format!("entry {n} (`{p}`)"),
            None => format!("entry {n}"),
        };
        let fail = |path: Option<&str>, message: String| RawError {
            place: at(path),
            message,
        };
        let tag = read_array::<1>(&mut stream).map_err(|e| fail(None, broken(&e)))?[0];
        match tag {
            END => return check_ended(&mut stream).map_err(|m| fail(None, m)),
            FILE => {
                let name = read_bytes(&mut stream).map_err(|e| fail(None, broken(&e)))?;
                let shown = String::from_utf8_lossy(&name).into_owned();
                let path = checked_path(&name).map_err(|m| fail(Some(&shown), m))?;
                let len = u64::from_le_bytes(
                    read_array::<8>(&mut stream).map_err(|e| fail(Some(&shown), broken(&e)))?,
                );
                total = total.saturating_add(len);
                if len > MAX_FILE_BYTES || total > MAX_TOTAL_BYTES {
                    return Err(fail(
                        Some(&shown),
                        format!(
                            "over the limits of an archive ({} GiB a file, {} GiB in all)",
                            MAX_FILE_BYTES >> 30,
                            MAX_TOTAL_BYTES >> 30
                        ),
                    ));
                }
                let mut content = Watched {
                    inner: (&mut stream).take(len),
                    failed: false,
                };
                visit
                    .file(&path, len, &mut content)
                    .and_then(|_| io::copy(&mut content, &mut io::sink()))
                    .map_err(|e| match content.failed {
                        true => fail(Some(&shown), broken(&e)),
                        false => fail(Some(&shown), format!("cannot be extracted: {e}")),
                    })?;
                if content.inner.limit() > 0 {
                    return Err(fail(
                        Some(&shown),
                        format!(
                            "cut short: {} of its {len} bytes are missing",
                            content.inner.limit()
                        ),
                    ));
                }
            }
            UNREADABLE => {
                let within = read_text(&mut stream).map_err(|e| fail(None, broken(&e)))?;
                let reason = read_text(&mut stream).map_err(|e| fail(Some(&within), broken(&e)))?;
                visit.unreadable(within, reason);
            }
            other => return Err(fail(None, format!("unknown entry kind {other}"))),
        }
    }
}

/// A file's bytes in the stream, remembering whether reading them failed
/// (the stream is damaged) rather than what they were given to.
struct Watched<R> {
    inner: R,
    failed: bool,
}

impl<R: Read> Read for Watched<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf);
        self.failed |= read.is_err();
        read
    }
}

/// What a failed read of the stream says.
fn broken(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => "cut short".to_string(),
        _ => format!("cannot be decompressed: {e}"),
    }
}

/// Nothing may follow the end entry.
fn check_ended(stream: &mut dyn Read) -> Result<(), String> {
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => Ok(()),
        Ok(_) => Err("bytes follow the end of its raw part".to_string()),
        Err(e) => Err(broken(&e)),
    }
}

fn read_array<const N: usize>(stream: &mut dyn Read) -> io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    stream.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn read_bytes(stream: &mut dyn Read) -> io::Result<Vec<u8>> {
    let len = u32::from_le_bytes(read_array::<4>(stream)?);
    if len > MAX_PATH_BYTES.max(1 << 16) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a name or reason of {len} bytes"),
        ));
    }
    let mut bytes = vec![0u8; len as usize];
    stream.read_exact(&mut bytes)?;
    Ok(bytes)
}

fn read_text(stream: &mut dyn Read) -> io::Result<String> {
    Ok(String::from_utf8_lossy(&read_bytes(stream)?).into_owned())
}

/// `name` as a path inside the version: `/`-separated parts, none empty,
/// `.` or `..`, no NUL byte.
fn checked_path(name: &[u8]) -> Result<PathBuf, String> {
    let bad = name.is_empty()
        || name.len() > MAX_PATH_BYTES as usize
        || name.contains(&0)
        || name
            .split(|&b| b == b'/')
            .any(|part| part.is_empty() || part == b"." || part == b"..");
    if bad {
        return Err("its path is not a relative path inside the version".to_string());
    }
    Ok(path_of(name))
}

/// A path inside the version from its bytes in an archive.
#[cfg(unix)]
fn path_of(name: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(name))
}

#[cfg(not(unix))]
fn path_of(name: &[u8]) -> PathBuf {
    String::from_utf8_lossy(name).split('/').collect()
}

/// The bytes an archive keeps for `path`, relative to the version: its
/// parts joined by `/`, each as the file system names it.
pub(crate) fn name_of(path: &Path) -> Vec<u8> {
    let parts = path.components().map(|c| {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            c.as_os_str().as_bytes().to_vec()
        }
        #[cfg(not(unix))]
        {
            c.as_os_str().to_string_lossy().into_owned().into_bytes()
        }
    });
    parts.collect::<Vec<_>>().join(&b'/')
}

/// Writes every file of the raw part under `dir` (a new, empty folder)
/// and gives what the archive lists as skipped. Files are created new: a
/// path listed twice, or under a file, fails.
pub fn extract(part: &[u8], dir: &Path) -> Result<Vec<(String, String)>, RawError> {
    struct Extract<'a> {
        dir: &'a Path,
        unreadable: Vec<(String, String)>,
    }
    impl Visit for Extract<'_> {
        fn file(&mut self, path: &Path, _: u64, content: &mut dyn Read) -> io::Result<()> {
            let target = self.dir.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&target)?;
            io::copy(content, &mut file)?;
            Ok(())
        }
        fn unreadable(&mut self, within: String, reason: String) {
            self.unreadable.push((within, reason));
        }
    }
    let mut visit = Extract {
        dir,
        unreadable: Vec::new(),
    };
    read(part, &mut visit)?;
    Ok(visit.unreadable)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files and skipped things as a visit lists them.
    #[derive(Default)]
    struct Listed(Vec<String>);

    impl Visit for Listed {
        fn file(&mut self, path: &Path, len: u64, content: &mut dyn Read) -> io::Result<()> {
            let mut text = String::new();
            content.read_to_string(&mut text)?;
            self.0.push(format!("{} ({len}): {text}", path.display()));
            Ok(())
        }
        fn unreadable(&mut self, within: String, reason: String) {
            self.0.push(format!("{within}: {reason}"));
        }
    }

    fn part(entries: &[(&str, Option<&str>)]) -> Vec<u8> {
        let mut w = RawWriter::new();
        for (path, text) in entries {
            match text {
                Some(t) => w
                    .file(path.as_bytes(), t.len() as u64, &mut t.as_bytes())
                    .unwrap(),
                None => w.unreadable(path, "a dangling symbolic link").unwrap(),
            }
        }
        w.finish().unwrap()
    }

    #[test]
    fn entries_come_back_in_order() {
        let bytes = part(&[
            ("version.toml", Some("label = \"1\"")),
            ("sub/a.folded", Some("main 1\n")),
            ("gone.json", None),
        ]);
        let mut listed = Listed::default();
        read(&bytes, &mut listed).unwrap();
        assert_eq!(
            listed.0,
            [
                "version.toml (11): label = \"1\"",
                "sub/a.folded (7): main 1\n",
                "gone.json: a dangling symbolic link"
            ]
        );
    }

    #[test]
    fn paths_leaving_the_version_and_cut_streams_are_refused() {
        for bad in ["../x", "/etc/passwd", "a//b", "a/./b", ""] {
            let bytes = part(&[("ok", Some("1")), (bad, Some("2"))]);
            let e = read(&bytes, &mut Listed::default()).unwrap_err();
            assert_eq!(e.place, format!("entry 2 (`{bad}`)"));
            assert!(e.message.contains("not a relative path"), "{e:?}");
        }
        let bytes = part(&[("a", Some("1234"))]);
        let e = read(&bytes[..bytes.len() / 2], &mut Listed::default()).unwrap_err();
        assert_eq!(e.place, "entry 1");
        assert!(
            e.message.contains("cut short") || e.message.starts_with("cannot be decompressed"),
            "{e:?}"
        );
    }

    #[test]
    fn extracting_twice_to_one_path_fails() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = part(&[("a/b", Some("1")), ("a/b", Some("2"))]);
        let e = extract(&bytes, dir.path()).unwrap_err();
        assert_eq!(e.place, "entry 2 (`a/b`)");
        let dir = tempfile::tempdir().unwrap();
        let bytes = part(&[("a/b", Some("1")), ("c", None)]);
        assert_eq!(
            extract(&bytes, dir.path()).unwrap(),
            [("c".to_string(), "a dangling symbolic link".to_string())]
        );
        assert_eq!(std::fs::read(dir.path().join("a/b")).unwrap(), b"1");
    }
}
