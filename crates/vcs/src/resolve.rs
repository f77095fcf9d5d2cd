//! Version name → commit: the `version.toml` revision when given, else a tag
//! named after the version. Never a guess: no fuzzy tag matching, no dates.

use super::{Repo, Resolved, VcsError};

impl Repo {
    /// The commit of `version`.
    ///
    /// `revision` (from `version.toml`) wins when `Some`: any revspec (tag,
    /// branch, sha, `HEAD~2`), peeled to a commit; an unresolvable revision
    /// is an error naming it. Otherwise the first existing tag of `{version}`,
    /// `v{version}`, then each of `patterns` with `{version}` replaced
    /// (patterns name tags, e.g. `release-{version}`; a pattern without
    /// `{version}` is an error, since it would give every version the same
    /// commit). `Ok(None)` when no tag matches.
    /// The commit `revision` (any revspec) names; an error naming the
    /// revision when it names none.
    pub(super) fn commit_of(&self, revision: &str) -> Result<git2::Commit<'_>, VcsError> {
        let revision_error = |e: git2::Error| VcsError::Revision {
            repo: self.path.clone(),
            revision: revision.to_string(),
            message: e.message().to_string(),
        };
        let object = self
            .repo
            .revparse_single(revision)
            .map_err(revision_error)?;
        object.peel_to_commit().map_err(revision_error)
    }

    pub fn resolve(
        &self,
        version: &str,
        revision: Option<&str>,
        patterns: &[String],
    ) -> Result<Option<Resolved>, VcsError> {
        if let Some(revision) = revision {
            let commit = self.commit_of(revision)?;
            return Ok(Some(resolved(
                &commit,
                format!("version.toml revision \"{revision}\""),
            )));
        }
        let mut candidates = vec![
            (version.to_string(), format!("tag {version}")),
            (format!("v{version}"), format!("tag v{version}")),
        ];
        for pattern in patterns {
            if !pattern.contains("{version}") {
                return Err(VcsError::Pattern {
                    repo: self.path.clone(),
                    pattern: pattern.clone(),
                });
            }
            let tag = pattern.replace("{version}", version);
            let how = format!("tag {tag} (pattern {pattern})");
            candidates.push((tag, how));
        }
        for (tag, how) in candidates {
            if let Some(commit) = self.tag_commit(&tag)? {
                return Ok(Some(resolved(&commit, how)));
            }
        }
        Ok(None)
    }

    /// The commit tag `tag` points to (through annotated tags), `None` when
    /// there is no such tag (or the name cannot be a tag).
    fn tag_commit(&self, tag: &str) -> Result<Option<git2::Commit<'_>>, VcsError> {
        let name = format!("refs/tags/{tag}");
        if tag.is_empty() || !git2::Reference::is_valid_name(&name) {
            return Ok(None);
        }
        let tag_error = |e: git2::Error| VcsError::Tag {
            repo: self.path.clone(),
            tag: tag.to_string(),
            message: e.message().to_string(),
        };
        match self.repo.find_reference(&name) {
            Ok(reference) => reference.peel_to_commit().map(Some).map_err(tag_error),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(tag_error(e)),
        }
    }
}

fn resolved(commit: &git2::Commit<'_>, how: String) -> Resolved {
    let hex = commit.id().to_string();
    Resolved {
        short: hex.chars().take(10).collect(),
        commit: hex,
        how,
        summary: commit
            .summary_bytes()
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .unwrap_or_default(),
    }
}
