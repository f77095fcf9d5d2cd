//! The repository's whole history as one list, oldest first: the order in
//! which `perfatlas import --repo` places the commits of a benchmark
//! history.

use super::{Repo, VcsError};

/// A commit of [`Repo::history`].
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryCommit {
    /// 40 lower-case hex digits.
    pub oid: String,
    /// The subject line (lossily decoded).
    pub summary: String,
}

impl Repo {
    /// Every commit reachable from HEAD or any reference, in a
    /// topological order, parents before children (among commits free to
    /// come next, the older first), with its subject line.
    pub fn history(&self) -> Result<Vec<HistoryCommit>, VcsError> {
        let error = |e: git2::Error| VcsError::Open {
            path: self.path.clone(),
            message: e.message().to_string(),
        };
        let mut walk = self.repo.revwalk().map_err(error)?;
        walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::TIME | git2::Sort::REVERSE)
            .map_err(error)?;
        // An empty repository has no HEAD to push.
        let _ = walk.push_head();
        walk.push_glob("*").map_err(error)?;
        let mut commits = Vec::new();
        for oid in walk {
            let oid = oid.map_err(error)?;
            let commit = self.repo.find_commit(oid).map_err(error)?;
            commits.push(HistoryCommit {
                oid: oid.to_string(),
                summary: String::from_utf8_lossy(commit.summary_bytes().unwrap_or_default())
                    .into_owned(),
            });
        }
        Ok(commits)
    }
}

#[cfg(test)]
mod tests {
    use crate::test_repo::commit;

    #[test]
    fn oldest_first_with_summaries() {
        let dir = tempfile::tempdir().unwrap();
        let git = git2::Repository::init(dir.path()).unwrap();
        let a = commit(&git, &[("a.txt", "1")], "first");
        let b = commit(&git, &[("a.txt", "2")], "second\n\nbody");
        let c = commit(&git, &[("a.txt", "3")], "third");
        let repo = crate::Repo::open(dir.path()).unwrap();
        let history = repo.history().unwrap();
        let oids: Vec<String> = history.iter().map(|c| c.oid.clone()).collect();
        assert_eq!(oids, [a.to_string(), b.to_string(), c.to_string()]);
        assert_eq!(history[1].summary, "second");
    }
}
