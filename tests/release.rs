//! perfatlas as a release: every crate of the workspace packages for
//! crates.io with its licences and README (`cargo package`), `cargo
//! install` gives a binary that builds the sample data, and the workflows
//! name the action by the repository `Cargo.toml` gives.
//!
//! The tests run the real cargo, offline (the registry cache that built
//! these tests holds every dependency). Outside CI a missing cargo skips
//! them with a note; under CI (env `CI` set) it fails them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn show(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The cargo that runs these tests (`CARGO`), else the one on PATH; `None`
/// (the test returns) when there is none outside CI.
fn cargo() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from);
    match Command::new(&cargo).arg("--version").output() {
        Ok(out) if out.status.success() => Some(cargo),
        other => {
            let why = format!("cargo cannot be run: {other:?}");
            if std::env::var_os("CI").is_some() {
                panic!("{why}; under CI it is required");
            }
            eprintln!("skipped: {why}");
            None
        }
    }
}

/// The workspace's packages: the root's and each `crates/*`'s name.
fn packages() -> Vec<(String, PathBuf)> {
    let mut dirs = vec![root()];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    crates.sort();
    dirs.extend(crates);
    dirs.into_iter()
        .map(|dir| {
            let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            let manifest: toml::Table = toml::from_str(&text).unwrap();
            let name = manifest["package"]["name"].as_str().unwrap().to_string();
            (name, dir)
        })
        .collect()
}

fn workspace_version() -> String {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    manifest["workspace"]["package"]["version"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The files of a `.crate` (a gzipped tar), unpacked under `into`.
fn unpack(krate: &Path, into: &Path) -> Vec<String> {
    std::fs::create_dir_all(into).unwrap();
    let out = Command::new("tar")
        .arg("-xzf")
        .arg(krate)
        .arg("-C")
        .arg(into)
        .output()
        .expect("run tar");
    assert!(out.status.success(), "{}", show(&out));
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(into) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(into).unwrap();
            files.push(rel.to_string_lossy().into_owned());
        }
    }
    files.sort();
    files
}

/// The paths a crate's sources embed (`include_str!`/`include_bytes!`),
/// relative to the crate, with whether the including code is a test.
fn embedded(dir: &Path) -> Vec<(PathBuf, bool)> {
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(dir.join("src")) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let in_tests_file = path.file_name().is_some_and(|n| n == "tests.rs");
        for mac in ["include_str!(\"", "include_bytes!(\""] {
            for (at, _) in text.match_indices(mac) {
                let rest = &text[at + mac.len()..];
                let rel = &rest[..rest.find('"').unwrap()];
                let test = in_tests_file || text[..at].contains("#[cfg(test)]");
                found.push((path.parent().unwrap().join(rel), test));
            }
        }
    }
    found
}

/// `cargo package --workspace`: every crate packages (path dependencies
/// carry versions, metadata is complete) and each holds LICENSE-MIT,
/// LICENSE-APACHE (the root's texts), its README and every file its code
/// embeds.
#[test]
fn every_crate_packages_with_its_licences_readme_and_embedded_files() {
    let Some(cargo) = cargo() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("target");
    let out = Command::new(&cargo)
        .current_dir(root())
        .args(["package", "--workspace", "--no-verify", "--locked"])
        .args(["--offline", "--allow-dirty", "--target-dir"])
        .arg(&target)
        .output()
        .expect("run cargo package");
    assert!(out.status.success(), "{}", show(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("manifest has no"),
        "metadata is missing: {stderr}"
    );
    let version = workspace_version();
    let mit = std::fs::read(root().join("LICENSE-MIT")).unwrap();
    let apache = std::fs::read(root().join("LICENSE-APACHE")).unwrap();
    assert!(String::from_utf8_lossy(&mit).contains("Copyright (c) the perfatlas authors"));
    assert!(String::from_utf8_lossy(&apache).contains("Apache License\n"));
    for (name, dir) in packages() {
        let krate = target.join(format!("package/{name}-{version}.crate"));
        let unpacked = tmp.path().join("unpacked");
        let files = unpack(&krate, &unpacked);
        let base = unpacked.join(format!("{name}-{version}"));
        for (file, text) in [("LICENSE-MIT", &mit), ("LICENSE-APACHE", &apache)] {
            let packed = std::fs::read(base.join(file))
                .unwrap_or_else(|e| panic!("{name}: no {file} in its package ({e}): {files:?}"));
            assert_eq!(&packed, text, "{name}: {file} is the root's text");
        }
        let readme = std::fs::read_to_string(base.join("README.md"))
            .unwrap_or_else(|e| panic!("{name}: no README.md ({e}): {files:?}"));
        assert!(readme.starts_with(&format!("# {name}")), "{name}: {readme}");
        for (path, test) in embedded(&dir) {
            let path = std::fs::canonicalize(&path)
                .unwrap_or_else(|e| panic!("{name}: {}: {e}", path.display()));
            match path.strip_prefix(std::fs::canonicalize(&dir).unwrap()) {
                Ok(rel) => assert!(
                    base.join(rel).is_file(),
                    "{name} embeds {} but its package lacks it",
                    rel.display()
                ),
                Err(_) => assert!(
                    test,
                    "{name} embeds {} from outside its directory: the package cannot hold it",
                    path.display()
                ),
            }
        }
        std::fs::remove_dir_all(&unpacked).unwrap();
    }
}

/// `cargo install --path .` into a fresh root: the binary says its version
/// and builds the sample data. It is the release profile (stripped), built
/// in its own target directory so a run of it is not disturbed by others.
#[test]
fn cargo_install_gives_a_binary_that_builds_the_sample_data() {
    let Some(cargo) = cargo() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let install = tmp.path().join("root");
    let out = Command::new(&cargo)
        .current_dir(root())
        .args(["install", "--locked", "--offline", "--path", "."])
        .arg("--root")
        .arg(&install)
        .arg("--target-dir")
        .arg(root().join("target/install-test"))
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .expect("run cargo install");
    assert!(out.status.success(), "{}", show(&out));
    let bin = install.join("bin/perfatlas");
    let bytes = std::fs::read(&bin).unwrap();
    if cfg!(target_os = "linux") {
        let sections = elf_sections(&bytes).expect("an ELF64 binary");
        assert!(sections.iter().any(|s| s == ".text"), "{sections:?}");
        let unstripped: Vec<&String> = sections
            .iter()
            .filter(|s| *s == ".symtab" || s.starts_with(".debug_"))
            .collect();
        assert!(
            unstripped.is_empty(),
            "the installed binary ({} bytes) is stripped, but has {unstripped:?}",
            bytes.len()
        );
    }
    let out = Command::new(&bin).arg("--version").output().unwrap();
    assert!(out.status.success(), "{}", show(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("perfatlas {}", workspace_version())
    );
    let site = tmp.path().join("site");
    let out = Command::new(&bin)
        .arg("build")
        .arg(root().join("sample-data/python-markdown"))
        .arg("-o")
        .arg(&site)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    for version in ["3.2.2", "3.7"] {
        assert!(index.contains(version), "the index lists version {version}");
    }
}

/// The section names of a little-endian ELF64 file (Linux on x86-64 and
/// aarch64); `None` for anything else.
fn elf_sections(bytes: &[u8]) -> Option<Vec<String>> {
    if bytes.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let int = |at: usize, len: usize| -> Option<usize> {
        let mut le = [0u8; 8];
        le[..len].copy_from_slice(bytes.get(at..at + len)?);
        usize::try_from(u64::from_le_bytes(le)).ok()
    };
    let (offset, size) = (int(0x28, 8)?, int(0x3a, 2)?);
    let (count, names_index) = (int(0x3c, 2)?, int(0x3e, 2)?);
    let header = |i: usize| offset + i * size;
    let names = int(header(names_index) + 0x18, 8)?;
    (0..count)
        .map(|i| {
            let start = names + int(header(i), 4)?;
            let len = bytes.get(start..)?.iter().position(|&b| b == 0)?;
            Some(String::from_utf8_lossy(&bytes[start..start + len]).into_owned())
        })
        .collect()
}

/// `OWNER/REPO` of `Cargo.toml`'s `[workspace.package] repository`.
fn repository() -> String {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    let url = manifest["workspace"]["package"]["repository"]
        .as_str()
        .unwrap();
    url.strip_prefix("https://github.com/")
        .unwrap_or_else(|| panic!("{url} is not a GitHub repository"))
        .trim_end_matches('/')
        .to_string()
}

/// The one name a repository owner replaces: every crate inherits the
/// repository, and every reference to an action that is not GitHub's own
/// (`actions/…`) in the workflows, `action.yml` and the documents is
/// `OWNER/REPO@REF` of that repository.
#[test]
fn the_repository_is_named_once_and_the_workflows_use_it() {
    let repository = repository();
    for (name, dir) in packages().into_iter().skip(1) {
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(
            text.contains("repository.workspace = true"),
            "{name} inherits the repository"
        );
    }
    let mut files = vec![root().join("README.md"), root().join("action.yml")];
    for dir in ["docs", "examples/workflows"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            files.push(entry.unwrap().path());
        }
    }
    let mut seen = 0;
    for file in files.iter().filter(|f| {
        f.extension()
            .is_some_and(|x| x == "md" || x == "yml" || x == "yaml")
    }) {
        let text = std::fs::read_to_string(file).unwrap();
        for word in text.split(|c: char| c.is_whitespace() || c == '`') {
            let Some((action, _reference)) = word.split_once('@') else {
                continue;
            };
            let parts: Vec<&str> = action.split('/').collect();
            if parts.len() < 2 || parts[0] == "actions" || parts.iter().any(|p| p.is_empty()) {
                continue;
            }
            seen += 1;
            assert_eq!(
                format!("{}/{}", parts[0], parts[1]),
                repository,
                "{}: {word} names another repository than Cargo.toml's",
                file.display()
            );
        }
    }
    assert!(seen >= 2, "the example workflow uses the action");
    let release = std::fs::read_to_string(root().join("examples/workflows/release.yml")).unwrap();
    assert!(
        release.contains("cargo install --locked perfatlas") && !release.contains("--git"),
        "the release workflow installs perfatlas from crates.io, naming no repository"
    );
}
