//! Methods modified between commits of a real (test) repository.

use super::{is_modified, method_range, MethodSite};
use vcs::test_repo::{commit, fixture, patterns, tag, Fixture, V4};
use vcs::{FileStatus, PathMap, Repo};

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
