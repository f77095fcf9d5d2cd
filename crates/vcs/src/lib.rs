//! The optional git repository behind a history of versions.
//!
//! This module owns everything that reads git: which commit a version is
//! ([`Repo::resolve`]), the source diff between two versions
//! ([`Repo::diff`], as plain [`FileDiff`] values), the text of a file at a
//! version ([`Repo::file_text`]) and the files a version has
//! ([`Repo::paths`]), the commit graph a performance bisection walks
//! ([`commit_search::bisect`]), and the whole history in order ([`Repo::history`]). Nothing else in perfatlas links against libgit2; the
//! analysis works on the plain values defined here.
//!
//! The repository is only read, never written, and never fetched: libgit2 is
//! built without network transports. A [`Repo`] is not `Sync`; use it from one
//! thread.

pub mod commit_search;
mod diff;
mod history;
mod path_map;
mod resolve;
pub mod sources;
#[cfg(any(test, feature = "test-support"))]
pub mod test_repo;

pub use diff::diff_texts;
pub use history::HistoryCommit;
pub use path_map::PathMap;

use std::path::{Path, PathBuf};

use serde::Serialize;

/// A git repository opened for reading.
pub struct Repo {
    repo: git2::Repository,
    /// The path as the user gave it, for messages.
    path: PathBuf,
}

/// The commit a version was resolved to, and by which rule.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Resolved {
    /// 40 lower-case hex digits.
    pub commit: String,
    /// The first 10 hex digits of `commit`.
    pub short: String,
    /// How the commit was found, for the page: `version.toml revision "3.7"`,
    /// `tag v3.7`, `tag release-3.7 (pattern release-{version})`.
    pub how: String,
    /// The commit's subject line (lossily decoded).
    pub summary: String,
}

/// What a diff did to one file.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    Added,
    Deleted,
    Modified,
    Renamed,
}

/// One line of a hunk.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

/// One line of a hunk with its numbers on the old and the new side.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiffLine {
    pub kind: LineKind,
    /// 1-based line in the old file; `None` for added lines.
    pub old_line: Option<u32>,
    /// 1-based line in the new file; `None` for removed lines.
    pub new_line: Option<u32>,
    /// The line without its line ending (`\n` or `\r\n`); invalid UTF-8 is
    /// decoded lossily.
    pub text: String,
}

/// One hunk as in a unified diff (`@@ -old_start,old_lines +new_start,new_lines @@`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    /// The `@@ … @@ context` line without its line ending.
    pub header: String,
    pub lines: Vec<DiffLine>,
}

/// The diff of one file between two commits.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileDiff {
    /// Path in the old commit; `None` for added files.
    pub old_path: Option<String>,
    /// Path in the new commit; `None` for deleted files.
    pub new_path: Option<String>,
    pub status: FileStatus,
    /// Binary files have no hunks.
    pub binary: bool,
    pub hunks: Vec<Hunk>,
}

/// Why the repository could not answer. Every message names the repository
/// and the revision or commit involved.
#[derive(Debug, thiserror::Error)]
pub enum VcsError {
    #[error("{}: not a git repository: {message}", .path.display())]
    Open { path: PathBuf, message: String },
    #[error("{}: revision \"{revision}\" does not name a commit: {message}", .repo.display())]
    Revision {
        repo: PathBuf,
        revision: String,
        message: String,
    },
    #[error("{}: tag {tag} does not point to a commit: {message}", .repo.display())]
    Tag {
        repo: PathBuf,
        tag: String,
        message: String,
    },
    #[error("{}: tag pattern \"{pattern}\" does not contain {{version}}", .repo.display())]
    Pattern { repo: PathBuf, pattern: String },
    #[error("{}: commit {commit}: {message}", .repo.display())]
    Commit {
        repo: PathBuf,
        commit: String,
        message: String,
    },
    /// A graph given as named nodes ([`commit_search::Dag::from_edges`]) that is
    /// not one: unknown parent, duplicate name, cycle.
    #[error("commit graph: {0}")]
    Graph(String),
}

impl Repo {
    /// Opens the repository at `path`: a work tree (its top directory) or a
    /// bare repository. Parent directories are not searched, so a profile
    /// directory inside some other repository is never picked up by mistake.
    pub fn open(path: &Path) -> Result<Repo, VcsError> {
        match git2::Repository::open(path) {
            Ok(repo) => Ok(Repo {
                repo,
                path: path.to_path_buf(),
            }),
            Err(e) => Err(VcsError::Open {
                path: path.to_path_buf(),
                message: e.message().to_string(),
            }),
        }
    }

    /// The path the repository was opened with.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The tree of `at`'s commit.
    fn tree_of(&self, at: &Resolved) -> Result<git2::Tree<'_>, VcsError> {
        let commit_error = |e: git2::Error| VcsError::Commit {
            repo: self.path.clone(),
            commit: at.commit.clone(),
            message: e.message().to_string(),
        };
        let oid = git2::Oid::from_str(&at.commit).map_err(commit_error)?;
        let commit = self.repo.find_commit(oid).map_err(commit_error)?;
        commit.tree().map_err(commit_error)
    }

    /// File contents at that commit; `None` when the path is missing, is
    /// not a file, or is binary. Invalid UTF-8 is decoded lossily.
    pub fn file_text(&self, at: &Resolved, path: &str) -> Option<String> {
        let tree = self.tree_of(at).ok()?;
        let entry = tree.get_path(Path::new(path)).ok()?;
        let object = entry.to_object(&self.repo).ok()?;
        let blob = object.as_blob()?;
        if blob.is_binary() {
            return None;
        }
        Some(String::from_utf8_lossy(blob.content()).into_owned())
    }

    /// Every blob path in the commit's tree, sorted, `/`-separated
    /// (submodules and directories are not listed).
    pub fn paths(&self, at: &Resolved) -> Result<Vec<String>, VcsError> {
        let tree_error = |e: git2::Error| VcsError::Commit {
            repo: self.path.clone(),
            commit: at.commit.clone(),
            message: format!("reading its tree: {}", e.message()),
        };
        // An explicit walk rather than `Tree::walk`, which stops at the first
        // directory name that is not UTF-8; here such names are lossy.
        let mut paths = Vec::new();
        let mut pending = vec![(String::new(), self.tree_of(at)?)];
        while let Some((prefix, tree)) = pending.pop() {
            for entry in tree.iter() {
                let path = format!("{prefix}{}", String::from_utf8_lossy(entry.name_bytes()));
                match entry.kind() {
                    Some(git2::ObjectType::Blob) => paths.push(path),
                    Some(git2::ObjectType::Tree) => {
                        let sub = self.repo.find_tree(entry.id()).map_err(tree_error)?;
                        pending.push((format!("{path}/"), sub));
                    }
                    _ => {}
                }
            }
        }
        paths.sort();
        Ok(paths)
    }
}

/// Lossy UTF-8 of `bytes` without a trailing `\n` or `\r\n`.
fn line_text(bytes: &[u8]) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    // Tabs kept; other control characters and bidi overrides become
    // visible marks, as in every name the site shows.
    String::from_utf8_lossy(bytes)
        .split('\t')
        .map(|part| model::visible(part))
        .collect::<Vec<_>>()
        .join("\t")
}

#[cfg(test)]
mod tests;
