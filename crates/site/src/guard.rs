//! What an output directory must be before a build replaces it, checked
//! before any work: a directory the swap can replace (not a mount point),
//! whose old content can be removed once the new site is in place, and,
//! with `--force`, one that looks like a web site (never a home, `/`, a git
//! work tree or a folder of documents). Each refusal says what was found
//! and what to do.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use model::error::BuildError;

/// Extensions of the files a web site is made of; `--force` replaces a
/// directory holding only these (and [`SITE_NAMES`]).
const SITE_EXTENSIONS: [&str; 22] = [
    "html", "htm", "xhtml", "svg", "css", "js", "mjs", "map", "json", "txt", "xml", "png", "jpg",
    "jpeg", "gif", "webp", "ico", "woff", "woff2", "ttf", "zip", "gz",
];

/// Files without a site extension that static sites hold (GitHub Pages'
/// `CNAME` and `.nojekyll`, perfatlas's own marker).
const SITE_NAMES: [&str; 4] = ["CNAME", ".nojekyll", ".perfatlas-site", "LICENSE"];

/// Directories without a site look that sites hold: perfatlas's build
/// cache, GitHub's `.well-known`.
const SITE_DIRS: [&str; 2] = [".perfatlas-cache", ".well-known"];

/// How many entries `--force` looks at before it says the directory is too
/// big to be sure of.
const FORCE_LOOK_LIMIT: usize = 200_000;

/// Refuses, with `--force`, a directory perfatlas did not write that must
/// not be deleted: `/`, the home directory or one above it, a git work
/// tree, a hidden directory inside (`.ssh/`), and with `site_only` any
/// file a web site is not made of (an imported input holds profiles).
pub fn check_force_target(output: &Path, site_only: bool) -> Result<(), BuildError> {
    let Some(found) = not_replaceable(output, site_only) else {
        return Ok(());
    };
    Err(BuildError::Usage(format!(
        "--force: {} was not written by perfatlas and does not look like {}: {found}. Its content would be deleted; choose a new or empty directory",
        output.display(),
        if site_only { "a web site" } else { "an input directory" }
    )))
}

/// What makes `dir` something `--force` must not delete, if anything.
fn not_replaceable(dir: &Path, site_only: bool) -> Option<String> {
    let real = dir.canonicalize().ok()?;
    if real.parent().is_none() {
        return Some("it is the root directory".into());
    }
    if let Some(home) = std::env::var_os("HOME").and_then(|h| PathBuf::from(h).canonicalize().ok())
    {
        if home.starts_with(&real) {
            return Some(match home == real {
                true => "it is the home directory".into(),
                false => format!("it holds the home directory {}", home.display()),
            });
        }
    }
    let mut seen = 0;
    let mut stack = vec![real.clone()];
    while let Some(d) = stack.pop() {
        let entries = fs::read_dir(&d).ok()?;
        for entry in entries.flatten() {
            seen += 1;
            if seen > FORCE_LOOK_LIMIT {
                return Some(format!("it holds more than {FORCE_LOOK_LIMIT} entries"));
            }
            let path = entry.path();
            let shown = path
                .strip_prefix(&real)
                .unwrap_or(&path)
                .display()
                .to_string();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().ok()?;
            if name == ".git" {
                return Some(format!("{shown} makes it a git work tree"));
            }
            if kind.is_dir() {
                if name.starts_with('.') && !SITE_DIRS.contains(&name.as_str()) {
                    return Some(format!("it holds {shown}/, a hidden directory"));
                }
                stack.push(path);
            } else if site_only && !site_file(&name) {
                return Some(format!("it holds {shown}, which no web site is made of"));
            }
        }
    }
    None
}

/// A file name a web site holds.
fn site_file(name: &str) -> bool {
    if SITE_NAMES.contains(&name) {
        return true;
    }
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            SITE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        }
        _ => false,
    }
}

/// Refuses an output that is a mount point: the new site replaces the
/// directory whole (a rename), which the system refuses for a mount point
/// ("Device or resource busy"), after all the work.
pub fn check_not_mount_point(output: &Path) -> Result<(), BuildError> {
    let Ok(meta) = fs::symlink_metadata(output) else {
        return Ok(());
    };
    if !meta.is_dir() {
        return Ok(());
    }
    let real = output
        .canonicalize()
        .map_err(|e| BuildError::io(output, e))?;
    let Some(parent) = real.parent() else {
        return Ok(());
    };
    let other_device = fs::metadata(parent).is_ok_and(|p| p.dev() != meta.dev());
    if !(other_device || listed_as_mount(&real)) {
        return Ok(());
    }
    Err(BuildError::Usage(format!(
        "{} is a mount point (a container volume such as `-v ./site:{}`?): a build replaces its output directory whole, which a mount point cannot be. Mount the directory above it instead and build into a directory inside (`-v ./www:/www`, then `-o /www/site`)",
        output.display(),
        real.display()
    )))
}

/// Whether `/proc/self/mountinfo` lists `dir` as a mount point (a bind
/// mount of the same file system has the same device as its parent).
fn listed_as_mount(dir: &Path) -> bool {
    let Ok(info) = fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    let wanted = dir.to_string_lossy();
    info.lines()
        .filter_map(|line| line.split(' ').nth(4))
        .any(|point| unescape_mount(point) == wanted)
}

/// A mount point as mountinfo writes it: space, tab, newline and backslash
/// as octal escapes.
fn unescape_mount(s: &str) -> String {
    s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// Refuses a `--zip` inside the output directory or equal to it: the site
/// replaces the output whole, the zip with it.
pub fn check_zip_outside(output: &Path, zip: &Path) -> Result<(), BuildError> {
    let (out, zip_real) = (crate::resolve(output), crate::resolve(zip));
    if zip_real.starts_with(&out) {
        return Err(BuildError::Usage(format!(
            "--zip {} is inside the output directory {}, which each build replaces whole (the zip with it); choose a path outside it",
            zip.display(),
            output.display()
        )));
    }
    Ok(())
}

/// Refuses an existing output whose content could not be removed after the
/// swap: a directory in it this process may not write to. Checked before
/// any work and again before the swap, so a build never puts a new site in
/// place and then fails on the old one.
pub fn check_removable(output: &Path) -> Result<(), BuildError> {
    let Ok(meta) = fs::symlink_metadata(output) else {
        return Ok(());
    };
    if !meta.is_dir() {
        return Ok(());
    }
    let mut stack = vec![output.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if let Err(e) = writable(&dir) {
            return Err(BuildError::Usage(format!(
                "{}: the previous site cannot be replaced: {} is not writable ({e}), so what it holds could not be removed after the new site is in place; make it writable (`chmod -R u+w {}`) or remove it, then build again. Nothing was built; the previous site is untouched",
                output.display(),
                dir.display(),
                shell_word(output)
            )));
        }
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
    Ok(())
}

/// Whether this process may remove and add entries of `dir`, and if not,
/// why (permission, a read-only file system).
fn writable(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return Ok(());
    };
    // SAFETY: a NUL-terminated path that lives across the call.
    match unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// `path` quoted for a POSIX shell.
pub fn shell_word(path: &Path) -> String {
    let s = path.display().to_string();
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@".contains(&b))
    {
        return s;
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// What to say when a directory perfatlas moved aside could not be
/// removed: the error and the command that removes it.
pub fn leftover_warning(path: &Path, error: &BuildError) -> String {
    format!(
        "{} could not be removed ({error}); remove it with: chmod -R u+w {p} && rm -rf {p}",
        path.display(),
        p = shell_word(path)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_files_are_known_by_their_extension_and_documents_are_not() {
        for name in [
            "index.html",
            "a.SVG",
            "app.js",
            "CNAME",
            ".nojekyll",
            "x.json.gz",
        ] {
            assert!(site_file(name), "{name}");
        }
        for name in [
            ".bashrc",
            "id_rsa",
            "thesis.docx",
            "Makefile",
            "notes.md",
            ".html",
        ] {
            assert!(!site_file(name), "{name}");
        }
    }

    #[test]
    fn shell_words_are_quoted_when_needed() {
        assert_eq!(shell_word(Path::new("/srv/site")), "/srv/site");
        assert_eq!(
            shell_word(Path::new("/srv/my site's")),
            "'/srv/my site'\\''s'"
        );
    }

    #[test]
    fn mount_points_are_unescaped_as_mountinfo_writes_them() {
        assert_eq!(unescape_mount("/mnt/a\\040b\\134c"), "/mnt/a b\\c");
    }
}
