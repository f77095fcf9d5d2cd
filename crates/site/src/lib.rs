//! The output tree. A site is written into a temporary directory beside the
//! output and moved into place only when complete, so a failed build leaves
//! the previous site untouched. A marker file says perfatlas wrote a
//! directory; any other non-empty directory is replaced only with `--force`.
//!
//! One build at a time writes an output ([`lock`]). A build that was killed
//! leaves its staging directory (`.SITE.perfatlas-tmp-PID`, holding the
//! marker, or empty) behind; the next build into the same output removes it
//! ([`remove_stale`]) once its owner no longer runs. Directories perfatlas
//! removes lose their marker last, so a killed removal is recognised too.

pub mod guard;
pub mod lock;
pub mod page_cache;
pub mod parse_cache;
pub mod zip;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::parse_cache::Written;
use model::error::BuildError;
use render::{Body, FileSink, SiteFiles};

/// Name of the marker file at the root of every site perfatlas writes.
pub const MARKER: &str = ".perfatlas-site";

/// The marker file that says perfatlas wrote a directory, and may replace
/// it: one kind per kind of directory, so that a build never replaces an
/// imported input directory, nor `perfatlas import` a site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    /// The file's name, at the directory's root.
    pub file: &'static str,
    /// Its content.
    pub text: &'static [u8],
}

/// The marker of a site (`perfatlas build`).
pub const SITE: Marker = Marker {
    file: MARKER,
    text: b"This directory was written by perfatlas; perfatlas may replace it.\n",
};

/// The marker of an input directory written by `perfatlas import`.
pub const IMPORT: Marker = Marker {
    file: ".perfatlas-import",
    text:
        b"This input directory was written by `perfatlas import`; a later import may replace it.\n",
};

/// Refuses an output (site directory or zip file) that is the input
/// directory, lies inside it, or contains it: a site is replaced wholesale,
/// so an output holding the input would delete it, and perfatlas never
/// writes inside its input. Symbolic links are resolved first; `--force`
/// does not lift this.
pub fn check_apart(input: &Path, output: &Path, what: &str) -> Result<(), BuildError> {
    let input_real = resolve(input);
    let output_real = resolve(output);
    let problem = if output_real == input_real {
        "is the input directory"
    } else if output_real.starts_with(&input_real) {
        "is inside the input directory"
    } else if input_real.starts_with(&output_real) {
        "contains the input directory"
    } else {
        return Ok(());
    };
    Err(BuildError::Usage(format!(
        "{what} {} {problem} ({}); choose a path outside it",
        output.display(),
        input.display()
    )))
}

/// `path` made absolute with symbolic links resolved, as far as it exists;
/// the parts that do not exist yet are appended unresolved.
fn resolve(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// The directory a site's staging directory and lock go in (the output's
/// parent, `.` for a bare name) and the output's name.
pub(crate) fn parent_and_name(output: &Path) -> (PathBuf, String) {
    let parent = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "site".into());
    (parent, name)
}

/// The two kinds of directory a build makes beside its output, named
/// `.NAME.perfatlas-KIND-PID`: the site being written, and (where the
/// swap cannot be atomic) the previous site moved aside.
const BESIDE_KINDS: [&str; 2] = ["tmp", "old"];

/// Removes what builds that no longer run left beside `output`: a
/// directory named `.NAME.perfatlas-tmp-PID` or `.NAME.perfatlas-old-PID`
/// (NAME the output's name, PID digits) that holds perfatlas's marker file
/// (or is empty) and whose PID is no running process. Anything else (no marker, a
/// running owner, another output's name, a link) is left alone. Returns
/// the directories removed. Called with the output's lock held, so no
/// live build of this output can own one of them.
pub fn remove_stale(output: &Path) -> Result<Stale, BuildError> {
    remove_stale_marked(output, SITE)
}

/// What [`remove_stale`] did: the directories removed, and for each one
/// that could not be, a warning with the command that removes it (a build
/// goes on beside it).
#[derive(Debug, Default)]
pub struct Stale {
    pub removed: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// [`remove_stale`] for a directory of another kind, known by `marker`.
pub fn remove_stale_marked(output: &Path, marker: Marker) -> Result<Stale, BuildError> {
    let (parent, name) = parent_and_name(output);
    let entries = match fs::read_dir(&parent) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Stale::default()),
        Err(e) => return Err(BuildError::io(&parent, e)),
    };
    let prefix = format!(".{name}.perfatlas-");
    let mut stale = Stale::default();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let owner = BESIDE_KINDS.iter().find_map(|kind| {
            let digits = rest.strip_prefix(kind)?.strip_prefix('-')?;
            match digits.bytes().all(|b| b.is_ascii_digit()) {
                true => digits.parse::<u32>().ok(),
                false => None,
            }
        });
        let Some(pid) = owner else {
            continue;
        };
        let path = entry.path();
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let marked = fs::symlink_metadata(path.join(marker.file)).is_ok_and(|m| m.is_file());
        // Empty: killed between creating the directory and its marker.
        let empty = is_dir && fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none());
        if !is_dir || !(marked || empty) || pid == std::process::id() || process_runs(pid) {
            continue;
        }
        // The zip it was writing beside it, which a build without that
        // `--zip` would not look for.
        stale.removed.extend(zip::remove_pending(&path));
        match remove_marked_dir(&path, marker) {
            Ok(()) => stale.removed.push(path),
            Err(e) => stale.warnings.push(guard::leftover_warning(&path, &e)),
        }
    }
    stale.removed.sort();
    stale.warnings.sort();
    Ok(stale)
}

/// Whether process `pid` still runs: it exists and has not exited (a
/// zombie waiting for its parent has). In doubt, yes.
pub fn process_runs(pid: u32) -> bool {
    let Ok(id) = libc::pid_t::try_from(pid) else {
        return true;
    };
    if id <= 0 {
        return true;
    }
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    if unsafe { libc::kill(id, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    {
        return false;
    }
    !is_zombie(pid)
}

/// A process that has exited but not been waited for, per `/proc`.
fn is_zombie(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .and_then(|i| stat[i + 1..].trim_start().chars().next())
            == Some('Z')
    })
}

/// Writes `files` as the site at `output`.
pub fn write_site(
    output: &Path,
    files: &SiteFiles,
    force: bool,
) -> Result<Vec<String>, BuildError> {
    write_site_with_cache(output, files, force, BTreeMap::new())
}

/// Writes `files` as the site at `output`, with the build cache's entries
/// in its [`cache::DIR`](crate::parse_cache::DIR).
pub fn write_site_with_cache(
    output: &Path,
    files: &SiteFiles,
    force: bool,
    cache: BTreeMap<String, Written>,
) -> Result<Vec<String>, BuildError> {
    Staging::begin(output, force)?.finish(files, cache)
}

/// A site being written: a temporary directory beside the output that
/// pages can be written into as soon as they are rendered (so a build
/// never holds the whole site in memory), moved into place by
/// [`Staging::finish`] and removed if dropped unfinished.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    output: PathBuf,
    parent: PathBuf,
    name: String,
    marker: Marker,
    finished: bool,
}

impl Staging {
    /// Checks that `output` may be replaced and creates the temporary
    /// directory with the marker.
    pub fn begin(output: &Path, force: bool) -> Result<Staging, BuildError> {
        Staging::begin_marked(output, force, SITE)
    }

    /// [`Staging::begin`] for a directory of another kind, known by
    /// `marker`.
    pub fn begin_marked(output: &Path, force: bool, marker: Marker) -> Result<Staging, BuildError> {
        check_replaceable_marked(output, force, marker)?;
        guard::check_not_mount_point(output)?;
        guard::check_removable(output)?;
        let (parent, name) = parent_and_name(output);
        fs::create_dir_all(&parent).map_err(|e| BuildError::io(&parent, e))?;
        let dir = parent.join(format!(".{name}.perfatlas-tmp-{}", std::process::id()));
        if dir.exists() {
            remove_marked_dir(&dir, marker)?;
        }
        let staging = Staging {
            dir,
            output: output.to_path_buf(),
            parent,
            name,
            marker,
            finished: false,
        };
        fs::create_dir_all(&staging.dir).map_err(|e| BuildError::io(&staging.dir, e))?;
        let path = staging.dir.join(marker.file);
        fs::write(&path, marker.text).map_err(|e| BuildError::io(&path, e))?;
        Ok(staging)
    }

    /// Writes one file of the site now.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), BuildError> {
        self.write_with(rel, &|file| std::io::Write::write_all(file, bytes))
    }

    /// Writes one file of the site now, as `write` writes it.
    pub fn write_with(
        &self,
        rel: &str,
        write: &dyn Fn(&mut fs::File) -> std::io::Result<()>,
    ) -> Result<(), BuildError> {
        let path = self.dir.join(rel);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| BuildError::io(dir, e))?;
        }
        fs::File::create(&path)
            .and_then(|mut file| write(&mut file))
            .map_err(|e| BuildError::io(&path, e))
    }

    /// The staging directory: the new site as far as it is written.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes the rest of `files` and the cache entries, and moves the
    /// site into place.
    pub fn finish(
        self,
        files: &SiteFiles,
        cache: BTreeMap<String, Written>,
    ) -> Result<Vec<String>, BuildError> {
        self.write_rest(files, cache)?;
        self.swap()
    }

    /// Writes the rest of `files` and the cache entries.
    pub fn write_rest(
        &self,
        files: &SiteFiles,
        cache: BTreeMap<String, Written>,
    ) -> Result<(), BuildError> {
        write_tree(&self.dir, files)?;
        write_cache(&self.dir, cache)
    }

    /// Moves the complete site into place. Once it is, a previous site
    /// that cannot be removed is a warning (returned), not a failure: the
    /// build succeeded, and the warning says how to remove what is left.
    pub fn swap(mut self) -> Result<Vec<String>, BuildError> {
        instrument::pause::point("swap");
        guard::check_removable(&self.output)?;
        let warnings = swap_into_place(
            &self.dir,
            &self.output,
            &self.parent,
            &self.name,
            self.marker,
        )?;
        self.finished = true;
        Ok(warnings)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.finished {
            let _ = remove_marked_dir(&self.dir, self.marker);
        }
    }
}

/// Removes a directory perfatlas wrote, its marker last: a removal cut
/// short (the process killed) leaves either a marked directory or an empty
/// one, both of which [`remove_stale`] recognises as its own later.
fn remove_marked_dir(dir: &Path, marker: Marker) -> Result<(), BuildError> {
    let entries = fs::read_dir(dir).map_err(|e| BuildError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| BuildError::io(dir, e))?;
        if entry.file_name() == marker.file {
            continue;
        }
        let path = entry.path();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        match is_dir {
            true => fs::remove_dir_all(&path),
            false => fs::remove_file(&path),
        }
        .map_err(|e| BuildError::io(&path, e))?;
    }
    let marker = dir.join(marker.file);
    match fs::remove_file(&marker) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(BuildError::io(&marker, e)),
    }
    fs::remove_dir(dir).map_err(|e| BuildError::io(dir, e))
}

/// Refuses a non-empty directory without the marker (unless `force`), and
/// anything at `output` that is not a directory.
pub fn check_replaceable(output: &Path, force: bool) -> Result<(), BuildError> {
    check_replaceable_marked(output, force, SITE)
}

/// [`check_replaceable`] for a directory of another kind, known by
/// `marker`.
pub fn check_replaceable_marked(
    output: &Path,
    force: bool,
    marker: Marker,
) -> Result<(), BuildError> {
    let meta = match fs::symlink_metadata(output) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(BuildError::io(output, e)),
    };
    if !meta.is_dir() {
        return Err(BuildError::Usage(format!(
            "{} exists and is not a directory",
            output.display()
        )));
    }
    let empty = fs::read_dir(output)
        .map_err(|e| BuildError::io(output, e))?
        .next()
        .is_none();
    if empty || output.join(marker.file).is_file() {
        Ok(())
    } else if force {
        guard::check_force_target(output, marker == SITE)
    } else {
        Err(BuildError::OutputNotOurs(output.to_path_buf()))
    }
}

/// Writes the files not written yet: rendered bytes, and links to the
/// previous site's kept files.
fn write_tree(root: &Path, files: &SiteFiles) -> Result<(), BuildError> {
    for (rel, body) in files.iter() {
        if let Body::Written(_) = body {
            continue;
        }
        let path = root.join(rel);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| BuildError::io(dir, e))?;
        }
        match body {
            Body::Bytes(bytes) => fs::write(&path, bytes),
            Body::Kept(old) => link_or_copy(old, &path),
            Body::Written(_) => Ok(()),
        }
        .map_err(|e| BuildError::io(&path, e))?;
    }
    Ok(())
}

/// Hard-links `old` at `new`, or copies it where links are not possible
/// (another file system, a file system without links).
fn link_or_copy(old: &Path, new: &Path) -> std::io::Result<()> {
    fs::hard_link(old, new).or_else(|_| fs::copy(old, new).map(drop))
}

/// The cache entries: unchanged ones hard-linked from the previous site
/// (copied where links are not possible), new ones written.
fn write_cache(root: &Path, entries: BTreeMap<String, Written>) -> Result<(), BuildError> {
    if entries.is_empty() {
        return Ok(());
    }
    let dir = root.join(crate::parse_cache::DIR);
    fs::create_dir_all(&dir).map_err(|e| BuildError::io(&dir, e))?;
    for (name, written) in entries {
        let path = dir.join(name);
        let done = match written {
            Written::Kept(old) => link_or_copy(&old, &path),
            Written::New(bytes) => fs::write(&path, bytes),
            Written::Staged => continue,
        };
        done.map_err(|e| BuildError::io(&path, e))?;
    }
    Ok(())
}

/// Puts the staging directory in place of the output. Where the system
/// can, the two are exchanged in one step (`renameat2` with
/// `RENAME_EXCHANGE`), so at every moment the output is a complete site, the
/// old or the new; the old one, now under the staging name, is then
/// deleted. Elsewhere the old site is moved aside, the new one in, and the
/// old one deleted. Once the new site is in place, an old one that cannot
/// be deleted is a warning (returned) with the command that removes it.
fn swap_into_place(
    staging: &Path,
    output: &Path,
    parent: &Path,
    name: &str,
    marker: Marker,
) -> Result<Vec<String>, BuildError> {
    if fs::symlink_metadata(output).is_err() {
        fs::rename(staging, output).map_err(|e| BuildError::io(output, e))?;
        return Ok(Vec::new());
    }
    let old = match exchange(staging, output) {
        Ok(()) => staging.to_path_buf(),
        Err(e) if !exchange_unsupported(&e) => return Err(BuildError::io(output, e)),
        Err(_) => {
            let old = parent.join(format!(".{name}.perfatlas-old-{}", std::process::id()));
            fs::rename(output, &old).map_err(|e| BuildError::io(output, e))?;
            if let Err(e) = fs::rename(staging, output) {
                let _ = fs::rename(&old, output);
                return Err(BuildError::io(output, e));
            }
            old
        }
    };
    instrument::pause::point("swapped");
    Ok(match remove_marked_dir(&old, marker) {
        Ok(()) => Vec::new(),
        Err(e) => vec![format!(
            "the new site is in place; the previous one {}",
            guard::leftover_warning(&old, &e)
        )],
    })
}

/// Exchanges two paths atomically.
impl FileSink for Staging {
    fn write(&self, path: &str, bytes: &[u8]) -> Result<(), BuildError> {
        Staging::write(self, path, bytes)
    }
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: two NUL-terminated paths that live across the call.
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    match done {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The errors of a system or file system without an atomic exchange.
fn exchange_unsupported(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::Unsupported
        || matches!(
            e.raw_os_error(),
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP)
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(content: &str) -> SiteFiles {
        let mut f = SiteFiles::new();
        f.insert("index.html".into(), content.as_bytes().to_vec());
        f.insert("a/b.html".into(), b"b".to_vec());
        f
    }

    #[test]
    fn replaces_its_own_site_and_refuses_a_foreign_directory() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        write_site(&out, &files("one"), false).unwrap();
        write_site(&out, &files("two"), false).unwrap();
        assert_eq!(fs::read_to_string(out.join("index.html")).unwrap(), "two");
        // Nothing left beside the output.
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("site")]);

        let foreign = dir.path().join("docs");
        fs::create_dir(&foreign).unwrap();
        fs::write(foreign.join("keep.txt"), "mine").unwrap();
        let err = write_site(&foreign, &files("x"), false).unwrap_err();
        assert!(matches!(err, BuildError::OutputNotOurs(_)));
        assert_eq!(
            fs::read_to_string(foreign.join("keep.txt")).unwrap(),
            "mine"
        );
        write_site(&foreign, &files("x"), true).unwrap();
        assert!(!foreign.join("keep.txt").exists());
    }

    #[test]
    fn a_site_and_an_imported_input_never_replace_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let imported = dir.path().join("imported");
        let staging = Staging::begin_marked(&imported, false, IMPORT).unwrap();
        staging.write("1.0/version.toml", b"x").unwrap();
        staging.swap().unwrap();
        assert!(imported.join(IMPORT.file).is_file());
        assert!(!imported.join(MARKER).exists());
        let err = write_site(&imported, &files("x"), false).unwrap_err();
        assert!(matches!(err, BuildError::OutputNotOurs(_)), "{err}");
        let site = dir.path().join("site");
        write_site(&site, &files("x"), false).unwrap();
        let err = Staging::begin_marked(&site, false, IMPORT).unwrap_err();
        assert!(matches!(err, BuildError::OutputNotOurs(_)), "{err}");
        // An import replaces its own directory.
        let again = Staging::begin_marked(&imported, false, IMPORT).unwrap();
        again.write("2.0/version.toml", b"y").unwrap();
        again.swap().unwrap();
        assert!(imported.join("2.0/version.toml").is_file());
        assert!(!imported.join("1.0").exists());
    }
}
