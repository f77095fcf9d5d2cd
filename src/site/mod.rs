//! The output tree. A site is written into a temporary directory beside the
//! output and moved into place only when complete, so a failed build leaves
//! the previous site untouched. A marker file says perfatlas wrote a
//! directory; any other non-empty directory is replaced only with `--force`.

pub mod pause;
pub mod timings;
pub mod zip;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::BuildError;
use crate::input::cache::Written;
use crate::render::{Body, SiteFiles};

/// Name of the marker file at the root of every site perfatlas writes.
pub const MARKER: &str = ".perfatlas-site";

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

/// Writes `files` as the site at `output`.
pub fn write_site(output: &Path, files: &SiteFiles, force: bool) -> Result<(), BuildError> {
    write_site_with_cache(output, files, force, BTreeMap::new())
}

/// Writes `files` as the site at `output`, with the build cache's entries
/// in its [`cache::DIR`](crate::input::cache::DIR).
pub fn write_site_with_cache(
    output: &Path,
    files: &SiteFiles,
    force: bool,
    cache: BTreeMap<String, Written>,
) -> Result<(), BuildError> {
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
    finished: bool,
}

impl Staging {
    /// Checks that `output` may be replaced and creates the temporary
    /// directory with the marker.
    pub fn begin(output: &Path, force: bool) -> Result<Staging, BuildError> {
        check_replaceable(output, force)?;
        let parent = match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(|e| BuildError::io(&parent, e))?;
        let name = output
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "site".into());
        let dir = parent.join(format!(".{name}.perfatlas-tmp-{}", std::process::id()));
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(|e| BuildError::io(&dir, e))?;
        }
        let staging = Staging {
            dir,
            output: output.to_path_buf(),
            parent,
            name,
            finished: false,
        };
        fs::create_dir_all(&staging.dir).map_err(|e| BuildError::io(&staging.dir, e))?;
        let marker = staging.dir.join(MARKER);
        fs::write(
            &marker,
            b"This directory was written by perfatlas; perfatlas may replace it.\n",
        )
        .map_err(|e| BuildError::io(&marker, e))?;
        Ok(staging)
    }

    /// Writes one file of the site now.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), BuildError> {
        let path = self.dir.join(rel);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| BuildError::io(dir, e))?;
        }
        fs::write(&path, bytes).map_err(|e| BuildError::io(&path, e))
    }

    /// Writes the rest of `files` and the cache entries, and moves the
    /// site into place.
    pub fn finish(
        mut self,
        files: &SiteFiles,
        cache: BTreeMap<String, Written>,
    ) -> Result<(), BuildError> {
        write_tree(&self.dir, files)?;
        write_cache(&self.dir, cache)?;
        pause::point("swap");
        swap_into_place(&self.dir, &self.output, &self.parent, &self.name)?;
        self.finished = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.finished {
            let _ = fs::remove_dir_all(&self.dir);
        }
    }
}

/// Refuses a non-empty directory without the marker (unless `force`), and
/// anything at `output` that is not a directory.
pub fn check_replaceable(output: &Path, force: bool) -> Result<(), BuildError> {
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
    if empty || output.join(MARKER).is_file() || force {
        Ok(())
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
    let dir = root.join(crate::input::cache::DIR);
    fs::create_dir_all(&dir).map_err(|e| BuildError::io(&dir, e))?;
    for (name, written) in entries {
        let path = dir.join(name);
        let done = match written {
            Written::Kept(old) => link_or_copy(&old, &path),
            Written::New(bytes) => fs::write(&path, bytes),
        };
        done.map_err(|e| BuildError::io(&path, e))?;
    }
    Ok(())
}

/// Moves the old site aside, the new one in, then deletes the old one.
fn swap_into_place(
    staging: &Path,
    output: &Path,
    parent: &Path,
    name: &str,
) -> Result<(), BuildError> {
    if !output.exists() {
        return fs::rename(staging, output).map_err(|e| BuildError::io(output, e));
    }
    let old = parent.join(format!(".{name}.perfatlas-old-{}", std::process::id()));
    fs::rename(output, &old).map_err(|e| BuildError::io(output, e))?;
    if let Err(e) = fs::rename(staging, output) {
        let _ = fs::rename(&old, output);
        return Err(BuildError::io(output, e));
    }
    pause::point("swapped");
    fs::remove_dir_all(&old).map_err(|e| BuildError::io(&old, e))
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
}
