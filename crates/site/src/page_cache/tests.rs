use super::*;

/// A site at `dir` with the marker, the files given and a manifest of
/// `groups`.
fn previous_site(dir: &Path, files: &[(&str, &str)], manifest: &str) {
    std::fs::write(dir.join(crate::MARKER), "x").unwrap();
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let cache = dir.join(crate::parse_cache::DIR);
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join(MANIFEST), manifest).unwrap();
}

fn render_once(files: &[(&str, &str)]) -> Rendered {
    Ok(files
        .iter()
        .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
        .collect())
}

#[test]
fn a_group_is_kept_when_its_key_and_files_match_and_rendered_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    previous_site(
        site,
        &[("p/a.html", "<a>"), ("p/a.svg", "svg!")],
        &format!(
            "{HEADER}\n{:032x}\t3\tp/a.html\n{:032x}\t4\tp/a.svg\n",
            7u128, 7u128
        ),
    );
    let reuse = PageReuse::for_site(site);
    assert!(reuse.has(7));
    let kept = reuse
        .get_or_render(7, || panic!("a kept group is not rendered"))
        .unwrap();
    assert_eq!(
        kept,
        vec![
            ("p/a.html".to_string(), Body::Kept(site.join("p/a.html"))),
            ("p/a.svg".to_string(), Body::Kept(site.join("p/a.svg"))),
        ]
    );
    // Another key renders.
    let new = reuse
        .get_or_render(8, || render_once(&[("p/b.html", "bb")]))
        .unwrap();
    assert_eq!(
        new,
        vec![("p/b.html".to_string(), Body::Bytes(b"bb".to_vec()))]
    );
    assert_eq!(reuse.counts(), (1, 1));
    // The new manifest lists both groups, sorted by key.
    let manifest = String::from_utf8(reuse.manifest().unwrap()).unwrap();
    assert_eq!(
        manifest,
        format!(
            "{HEADER}\n{:032x}\t3\tp/a.html\n{:032x}\t4\tp/a.svg\n{:032x}\t2\tp/b.html\n",
            7u128, 7u128, 8u128
        )
    );
}

#[test]
fn a_resized_or_missing_file_renders_the_group_again() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path();
    previous_site(
        site,
        &[("a.html", "edited by hand")],
        &format!(
            "{HEADER}\n{:032x}\t3\ta.html\n{:032x}\t3\tgone.html\n",
            1u128, 2u128
        ),
    );
    let reuse = PageReuse::for_site(site);
    assert!(!reuse.has(1), "size differs");
    assert!(!reuse.has(2), "file missing");
    let files = reuse
        .get_or_render(1, || render_once(&[("a.html", "new")]))
        .unwrap();
    assert_eq!(files[0].1, Body::Bytes(b"new".to_vec()));
}

#[test]
fn manifests_of_other_versions_or_with_bad_lines_are_ignored() {
    let line = format!("{:032x}\t1\ta.html", 1u128);
    for manifest in [
        format!("perfatlas pages 0 0.0.0\n{line}\n"),
        format!("{HEADER}\n{line}\nnot a line\n"),
        format!("{HEADER}\n{:032x}\t1\t../outside.html\n", 1u128),
        format!("{HEADER}\n{:032x}\t1\t/etc/passwd\n", 1u128),
        format!("{HEADER}\n{:032x}\tbig\ta.html\n", 1u128),
    ] {
        let dir = tempfile::tempdir().unwrap();
        previous_site(dir.path(), &[("a.html", "x")], &manifest);
        assert!(!PageReuse::for_site(dir.path()).has(1), "{manifest}");
    }
    // Without the marker the directory is not a site perfatlas wrote.
    let dir = tempfile::tempdir().unwrap();
    previous_site(
        dir.path(),
        &[("a.html", "x")],
        &format!("{HEADER}\n{line}\n"),
    );
    assert!(PageReuse::for_site(dir.path()).has(1));
    std::fs::remove_file(dir.path().join(crate::MARKER)).unwrap();
    assert!(!PageReuse::for_site(dir.path()).has(1));
}

#[test]
fn disabled_reuse_renders_everything_and_writes_no_manifest() {
    let reuse = PageReuse::disabled();
    assert!(!reuse.enabled());
    let files = reuse
        .get_or_render(1, || render_once(&[("a", "b")]))
        .unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(reuse.manifest(), None);
}
