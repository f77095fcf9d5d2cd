//! A small repository made for tests: commits that modify, add, delete
//! and rename functions, tagged the three ways versions find their commit.
//! For this crate's tests and, with the `test-support` feature, the tests
//! of the analysis that reads it.

use std::path::Path;

use crate::Repo;

pub const V1: &str = "\
def f(x):
    y = x + 1
    return y


def g(items):
    total = 0
    for i in items:
        total += i
    return total


def h():
    return 'h'


class Parser:
    def parse(self, text):
        return text.split()
";

/// 1.1: only f's body changes.
pub const V2: &str = "\
def f(x):
    y = x + 2
    return y


def g(items):
    total = 0
    for i in items:
        total += i
    return total


def h():
    return 'h'


class Parser:
    def parse(self, text):
        return text.split()
";

/// 1.2: h is deleted, k is added at the end.
pub const V3: &str = "\
def f(x):
    y = x + 2
    return y


def g(items):
    total = 0
    for i in items:
        total += i
    return total


class Parser:
    def parse(self, text):
        return text.split()


def k():
    return 'k'
";

/// 1.3 (file renamed a.py → b.py): Parser.parse renamed to tokens, a line
/// removed inside g.
pub const V4: &str = "\
def f(x):
    y = x + 2
    return y


def g(items):
    total = 0
    for i in items:
        total += i
    return total


class Parser:
    def tokens(self, text):
        return text.split()


def k():
    return 'k'
";

pub fn commit(repo: &git2::Repository, files: &[(&str, &str)], message: &str) -> git2::Oid {
    let mut index = repo.index().unwrap();
    index.clear().unwrap();
    let workdir = repo.workdir().unwrap().to_path_buf();
    for (path, text) in files {
        let full = workdir.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(&full, text).unwrap();
        index.add_path(Path::new(path)).unwrap();
    }
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let sig = git2::Signature::new("t", "t@invalid", &git2::Time::new(1_600_000_000, 0)).unwrap();
    let parents: Vec<git2::Commit> = repo
        .head()
        .ok()
        .and_then(|h| h.peel_to_commit().ok())
        .into_iter()
        .collect();
    let parent_refs: Vec<&git2::Commit> = parents.iter().collect();
    repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &parent_refs)
        .unwrap()
}

pub fn tag(repo: &git2::Repository, name: &str, oid: git2::Oid, annotated: bool) {
    let obj = repo.find_object(oid, None).unwrap();
    if annotated {
        let sig =
            git2::Signature::new("t", "t@invalid", &git2::Time::new(1_600_000_000, 0)).unwrap();
        repo.tag(name, &obj, &sig, name, false).unwrap();
    } else {
        repo.tag_lightweight(name, &obj, false).unwrap();
    }
}

pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub repo: Repo,
    pub commits: Vec<git2::Oid>,
}

pub fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let g = git2::Repository::init(dir.path()).unwrap();
    let c1 = commit(&g, &[("src/a.py", V1), ("README", "x\n")], "1.0");
    tag(&g, "1.0", c1, false);
    let c2 = commit(&g, &[("src/a.py", V2), ("README", "x\n")], "1.1");
    tag(&g, "v1.1", c2, true);
    let c3 = commit(&g, &[("src/a.py", V3), ("README", "x\n")], "1.2");
    tag(&g, "release-1.2", c3, false);
    let c4 = commit(&g, &[("src/b.py", V4), ("README", "x\n")], "1.3");
    tag(&g, "1.3", c4, false);
    let repo = Repo::open(dir.path()).unwrap();
    Fixture {
        _dir: dir,
        repo,
        commits: vec![c1, c2, c3, c4],
    }
}

/// The tag pattern of the test repository's `release-1.2`.
pub fn patterns() -> Vec<String> {
    vec!["release-{version}".to_string()]
}
