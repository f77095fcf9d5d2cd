//! A small repository made in the test: commits that modify, add, delete
//! and rename functions, tagged the three ways versions find their commit.

use std::path::Path;

use super::*;
use crate::analysis::changes::{is_modified, method_range, MethodSite, PathMap};

const V1: &str = "\
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
const V2: &str = "\
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
const V3: &str = "\
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
const V4: &str = "\
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

fn commit(repo: &git2::Repository, files: &[(&str, &str)], message: &str) -> git2::Oid {
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

fn tag(repo: &git2::Repository, name: &str, oid: git2::Oid, annotated: bool) {
    let obj = repo.find_object(oid, None).unwrap();
    if annotated {
        let sig =
            git2::Signature::new("t", "t@invalid", &git2::Time::new(1_600_000_000, 0)).unwrap();
        repo.tag(name, &obj, &sig, name, false).unwrap();
    } else {
        repo.tag_lightweight(name, &obj, false).unwrap();
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    repo: Repo,
    commits: Vec<git2::Oid>,
}

fn fixture() -> Fixture {
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

fn patterns() -> Vec<String> {
    vec!["release-{version}".to_string()]
}

#[test]
fn versions_resolve_by_revision_then_tag_then_pattern_and_never_guess() {
    let f = fixture();
    let r = |v: &str, rev: Option<&str>| f.repo.resolve(v, rev, &patterns());
    let one = r("1.0", None).unwrap().unwrap();
    assert_eq!(one.commit, f.commits[0].to_string());
    assert_eq!(one.how, "tag 1.0");
    assert_eq!(one.short.len(), 10);
    let v11 = r("1.1", None).unwrap().unwrap();
    assert_eq!(
        (v11.commit.clone(), v11.how.as_str()),
        (f.commits[1].to_string(), "tag v1.1")
    );
    assert_eq!(v11.summary, "1.1");
    let v12 = r("1.2", None).unwrap().unwrap();
    assert_eq!(v12.how, "tag release-1.2 (pattern release-{version})");
    // version.toml's revision wins, any revspec.
    let back = r("1.3", Some("HEAD~3")).unwrap().unwrap();
    assert_eq!(back.commit, f.commits[0].to_string());
    // A revision that names nothing is an error naming it; a missing tag is
    // no revision at all.
    let e = r("1.3", Some("no-such-rev")).unwrap_err().to_string();
    assert!(e.contains("no-such-rev"), "{e}");
    assert_eq!(r("9.9", None).unwrap(), None);
    assert!(f.repo.resolve("1.0", None, &["fixed".into()]).is_err());
    assert!(Repo::open(Path::new("/nonexistent/repo")).is_err());
}

fn site(name: &str, sampled: &[u32]) -> MethodSite {
    MethodSite {
        file: String::new(),
        name: name.into(),
        start_line: None,
        sampled_lines: sampled.to_vec(),
    }
}

/// The methods (by name) the diff old → new modified, judged on the new
/// source with the given sampled lines.
fn modified(
    f: &Fixture,
    old: &str,
    new: &str,
    file: &str,
    methods: &[(&str, &[u32])],
) -> Vec<String> {
    let (o, n) = (
        f.repo.resolve(old, None, &patterns()).unwrap().unwrap(),
        f.repo.resolve(new, None, &patterns()).unwrap().unwrap(),
    );
    let diff = f.repo.diff(&o, &n).unwrap();
    let source = f.repo.file_text(&n, file).unwrap();
    let Some(fd) = diff.iter().find(|d| d.new_path.as_deref() == Some(file)) else {
        return Vec::new();
    };
    methods
        .iter()
        .filter(|(name, lines)| {
            let mut s = site(name, lines);
            s.file = file.into();
            method_range(&s, Some(&source)).is_some_and(|r| is_modified(&r, fd))
        })
        .map(|(name, _)| name.to_string())
        .collect()
}

#[test]
fn a_body_change_modifies_only_that_function() {
    let f = fixture();
    let all: &[(&str, &[u32])] = &[
        ("f", &[2]),
        ("g", &[9]),
        ("h", &[14]),
        ("Parser.parse", &[19]),
    ];
    assert_eq!(modified(&f, "1.0", "1.1", "src/a.py", all), ["f"]);
}

#[test]
fn an_added_function_is_modified_and_a_deleted_one_moves_nothing_else() {
    let f = fixture();
    let all: &[(&str, &[u32])] = &[
        ("f", &[2]),
        ("g", &[9]),
        ("Parser.parse", &[15]),
        ("k", &[19]),
    ];
    assert_eq!(modified(&f, "1.1", "1.2", "src/a.py", all), ["k"]);
}

#[test]
fn a_rename_is_followed_and_only_the_renamed_method_counts() {
    let f = fixture();
    let (o, n) = (
        f.repo.resolve("1.2", None, &patterns()).unwrap().unwrap(),
        f.repo.resolve("1.3", None, &patterns()).unwrap().unwrap(),
    );
    let diff = f.repo.diff(&o, &n).unwrap();
    let renamed = diff
        .iter()
        .find(|d| d.status == FileStatus::Renamed)
        .unwrap();
    assert_eq!(renamed.old_path.as_deref(), Some("src/a.py"));
    assert_eq!(renamed.new_path.as_deref(), Some("src/b.py"));
    let all: &[(&str, &[u32])] = &[
        ("f", &[2]),
        ("g", &[9]),
        ("Parser.tokens", &[15]),
        ("k", &[19]),
    ];
    assert_eq!(
        modified(&f, "1.2", "1.3", "src/b.py", all),
        ["Parser.tokens"]
    );
    assert_eq!(f.repo.paths(&n).unwrap(), ["README", "src/b.py"]);
    // Profiles name the file by an absolute path: the suffix finds it.
    let map = PathMap::new(Vec::new(), f.repo.paths(&n).unwrap());
    assert_eq!(
        map.map("/home/ci/proj/src/b.py").as_deref(),
        Some("src/b.py")
    );
    assert!(f.repo.file_text(&n, "src/a.py").is_none());
}

#[test]
fn a_pure_deletion_inside_a_function_modifies_it() {
    // A commit removing one line of g, judged alone.
    let dir = tempfile::tempdir().unwrap();
    let g = git2::Repository::init(dir.path()).unwrap();
    let c1 = commit(&g, &[("a.py", V4)], "one");
    tag(&g, "1", c1, false);
    let without = V4.replace("        total += i\n", "");
    let c2 = commit(&g, &[("a.py", &without)], "two");
    tag(&g, "2", c2, false);
    let f = Fixture {
        repo: Repo::open(dir.path()).unwrap(),
        _dir: dir,
        commits: vec![c1, c2],
    };
    let all: &[(&str, &[u32])] = &[
        ("f", &[2]),
        ("g", &[9]),
        ("Parser.tokens", &[14]),
        ("k", &[18]),
    ];
    assert_eq!(modified(&f, "1", "2", "a.py", all), ["g"]);
}
