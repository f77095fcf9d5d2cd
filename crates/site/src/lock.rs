//! One build at a time per output: an advisory lock on a file beside the
//! output (`.SITE.perfatlas-lock`, in the directory the staging directory
//! is made in), taken before the build reads the previous site and held
//! until the new one is in place.
//!
//! The lock is `flock(2)`: the kernel drops it when its holder exits, even
//! when killed, so a lock file left by a dead build never blocks anyone.
//! The holder writes its PID into the file so that a second build can say
//! whose build it waits for. The holder removes the file when it is done,
//! while still holding the lock; a build that was waiting on the removed
//! file notices (the path no longer names the file it locked) and takes a
//! fresh one, so two builds never both believe they hold the lock.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use model::error::BuildError;

/// The lock of the build writing `output`.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    file: File,
}

/// The lock file's path for `output`: `.NAME.perfatlas-lock` beside it.
pub fn lock_path(output: &Path) -> PathBuf {
    let (parent, name) = super::parent_and_name(output);
    parent.join(format!(".{name}.perfatlas-lock"))
}

impl OutputLock {
    /// Takes the lock of `output`. When another build holds it: with
    /// `wait`, calls `waiting` with that build's PID (when known) and waits
    /// for it; without, fails with [`BuildError::Busy`].
    pub fn acquire(
        output: &Path,
        wait: bool,
        waiting: &mut dyn FnMut(Option<u32>),
    ) -> Result<OutputLock, BuildError> {
        let path = lock_path(output);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| BuildError::io(parent, e))?;
        }
        loop {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| BuildError::io(&path, e))?;
            match flock(&file, false) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let holder = holder_pid(&file);
                    if !wait {
                        return Err(BuildError::Busy {
                            output: output.to_path_buf(),
                            lock: path,
                            pid: holder,
                        });
                    }
                    waiting(holder);
                    flock(&file, true).map_err(|e| BuildError::io(&path, e))?;
                }
                Err(e) if unsupported(&e) => {
                    // A file system without locks (some network mounts):
                    // build without one rather than not at all.
                }
                Err(e) => return Err(BuildError::io(&path, e)),
            }
            if !still_named(&file, &path) {
                // The holder removed the file as we waited; lock afresh.
                continue;
            }
            let mut lock = OutputLock { path, file };
            lock.write_pid()
                .map_err(|e| BuildError::io(&lock.path, e))?;
            return Ok(lock);
        }
    }

    fn write_pid(&mut self) -> std::io::Result<()> {
        self.file.set_len(0)?;
        self.file.seek(SeekFrom::Start(0))?;
        writeln!(self.file, "{}", std::process::id())
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Removed while still held (the file closes after this), so a
        // build that waits on it sees it gone and locks a new one.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `flock(LOCK_EX)`, waiting or not; EINTR retried.
fn flock(file: &File, wait: bool) -> std::io::Result<()> {
    let op = if wait {
        libc::LOCK_EX
    } else {
        libc::LOCK_EX | libc::LOCK_NB
    };
    loop {
        // SAFETY: flock on a descriptor this `File` owns.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

fn unsupported(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::ENOLCK) | Some(libc::EOPNOTSUPP) | Some(libc::ENOSYS)
    )
}

/// Whether `path` still names the file `file` has open.
fn still_named(file: &File, path: &Path) -> bool {
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The PID the holder wrote; it writes it right after locking, so an empty
/// file is read again a few times.
fn holder_pid(file: &File) -> Option<u32> {
    for _ in 0..20 {
        let mut text = String::new();
        let mut reader = file;
        if reader.seek(SeekFrom::Start(0)).is_ok() && reader.read_to_string(&mut text).is_ok() {
            if let Ok(pid) = text.trim().parse::<u32>() {
                return Some(pid);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_fails_or_waits_and_the_file_goes_with_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        let first = OutputLock::acquire(&out, false, &mut |_| {}).unwrap();
        let path = lock_path(&out);
        assert_eq!(path, dir.path().join(".site.perfatlas-lock"));
        let e = OutputLock::acquire(&out, false, &mut |_| {}).unwrap_err();
        match e {
            BuildError::Busy { pid, .. } => assert_eq!(pid, Some(std::process::id())),
            other => panic!("{other}"),
        }
        let (told, heard) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn(move || {
            OutputLock::acquire(&out, true, &mut |pid| told.send(pid).unwrap()).unwrap()
        });
        // The waiter has found the lock taken, and says by whom.
        assert_eq!(heard.recv().unwrap(), Some(std::process::id()));
        drop(first);
        let second = waiter.join().unwrap();
        assert!(path.is_file());
        drop(second);
        assert!(!path.exists());
    }
}
