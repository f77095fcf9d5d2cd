//! Versions resolved to commits in the test repository.

use std::path::Path;

use super::*;
use crate::test_repo::{fixture, patterns};

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
