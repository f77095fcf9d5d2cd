//! Tree-to-tree diffs turned into plain [`FileDiff`] values.

use super::{line_text, DiffLine, FileDiff, FileStatus, Hunk, LineKind, Repo, Resolved, VcsError};

impl Repo {
    /// The diff `old` → `new` of the two commits' trees, with git's default
    /// rename detection (50% similarity), 3 context lines and the indent
    /// heuristic (as `git diff` does by default). Every changed file is
    /// listed, sorted by new path (old path for deleted files). Binary files
    /// have `binary = true` and no hunks.
    pub fn diff(&self, old: &Resolved, new: &Resolved) -> Result<Vec<FileDiff>, VcsError> {
        self.diff_trees(old, new, false)
    }

    /// [`Repo::diff`] ignoring whitespace (`git diff -w`): the changes to
    /// code, which decide whether a method was modified. A file a
    /// formatter or a bundler re-indented has no hunks here.
    pub fn code_diff(&self, old: &Resolved, new: &Resolved) -> Result<Vec<FileDiff>, VcsError> {
        self.diff_trees(old, new, true)
    }

    fn diff_trees(
        &self,
        old: &Resolved,
        new: &Resolved,
        ignore_whitespace: bool,
    ) -> Result<Vec<FileDiff>, VcsError> {
        let old_tree = self.tree_of(old)?;
        let new_tree = self.tree_of(new)?;
        let diff_error = |e: git2::Error| VcsError::Commit {
            repo: self.path.clone(),
            commit: new.commit.clone(),
            message: format!("diff against {}: {}", old.short, e.message()),
        };
        let mut options = git2::DiffOptions::new();
        options
            .context_lines(3)
            .indent_heuristic(true)
            .ignore_whitespace(ignore_whitespace);
        let mut diff = self
            .repo
            .diff_tree_to_tree(Some(&old_tree), Some(&new_tree), Some(&mut options))
            .map_err(diff_error)?;
        diff.find_similar(Some(git2::DiffFindOptions::new().renames(true)))
            .map_err(diff_error)?;

        let mut files = Vec::with_capacity(diff.deltas().len());
        for index in 0..diff.deltas().len() {
            let Some(delta) = diff.get_delta(index) else {
                continue;
            };
            let path = |file: git2::DiffFile<'_>| {
                file.path_bytes()
                    .map(|p| String::from_utf8_lossy(p).into_owned())
            };
            let (status, old_path, new_path) = match delta.status() {
                git2::Delta::Added | git2::Delta::Copied => {
                    (FileStatus::Added, None, path(delta.new_file()))
                }
                git2::Delta::Deleted => (FileStatus::Deleted, path(delta.old_file()), None),
                git2::Delta::Renamed => (
                    FileStatus::Renamed,
                    path(delta.old_file()),
                    path(delta.new_file()),
                ),
                git2::Delta::Modified | git2::Delta::Typechange => (
                    FileStatus::Modified,
                    path(delta.old_file()),
                    path(delta.new_file()),
                ),
                // Not produced by a tree-to-tree diff.
                _ => continue,
            };
            let patch = git2::Patch::from_diff(&diff, index).map_err(diff_error)?;
            // Binary detection happens while the patch is generated, so the
            // patch's delta knows more than the diff's.
            let binary = delta.flags().is_binary()
                || patch
                    .as_ref()
                    .is_some_and(|p| p.delta().flags().is_binary());
            let hunks = match &patch {
                Some(patch) if !binary => hunks_of(patch).map_err(diff_error)?,
                _ => Vec::new(),
            };
            files.push(FileDiff {
                old_path,
                new_path,
                status,
                binary,
                hunks,
            });
        }
        files.sort_by(|a, b| {
            let key = |f: &FileDiff| {
                (
                    f.new_path.clone().or(f.old_path.clone()),
                    f.old_path.clone(),
                )
            };
            key(a).cmp(&key(b))
        });
        Ok(files)
    }
}

/// The diff of two texts (a function's source where it was and where it
/// is, when it moved to another file), as git diffs two files: 3 context
/// lines and the indent heuristic, whitespace ignored (a function moved
/// into a bundle is indented anew). Line numbers count from 1 in each
/// text.
pub fn diff_texts(old_path: &str, old: &str, new_path: &str, new: &str) -> FileDiff {
    let mut options = git2::DiffOptions::new();
    options
        .context_lines(3)
        .indent_heuristic(true)
        .ignore_whitespace(true);
    let patch = git2::Patch::from_buffers(
        old.as_bytes(),
        Some(std::path::Path::new(old_path)),
        new.as_bytes(),
        Some(std::path::Path::new(new_path)),
        Some(&mut options),
    );
    let hunks = patch
        .ok()
        .and_then(|p| hunks_of(&p).ok())
        .unwrap_or_default();
    FileDiff {
        old_path: Some(old_path.to_string()),
        new_path: Some(new_path.to_string()),
        status: FileStatus::Modified,
        binary: false,
        hunks,
    }
}

fn hunks_of(patch: &git2::Patch<'_>) -> Result<Vec<Hunk>, git2::Error> {
    let mut hunks = Vec::with_capacity(patch.num_hunks());
    for h in 0..patch.num_hunks() {
        let (hunk, count) = patch.hunk(h)?;
        let mut lines = Vec::with_capacity(count);
        for l in 0..count {
            let line = patch.line_in_hunk(h, l)?;
            let kind = match line.origin_value() {
                git2::DiffLineType::Context => LineKind::Context,
                git2::DiffLineType::Addition => LineKind::Added,
                git2::DiffLineType::Deletion => LineKind::Removed,
                // "\ No newline at end of file" markers are not lines.
                _ => continue,
            };
            lines.push(DiffLine {
                kind,
                old_line: line.old_lineno(),
                new_line: line.new_lineno(),
                text: line_text(line.content()),
            });
        }
        hunks.push(Hunk {
            old_start: hunk.old_start(),
            old_lines: hunk.old_lines(),
            new_start: hunk.new_start(),
            new_lines: hunk.new_lines(),
            header: line_text(hunk.header()),
            lines,
        });
    }
    Ok(hunks)
}
