//! `--into INPUT`: one version folder per measured commit, in the layout
//! `perfatlas build` reads.
//!
//! `INPUT/<n>-<short oid>/` holds `timings.json` (the native measurement
//! shape: `{"perfatlas_measurements": 1, "benchmarks": [{"name", "unit":
//! "s", "runs": […]}]}`, a number per run, or an array for a run that gave
//! several samples) and `version.toml` (`revision`, committer `date`,
//! `label`). `n` is the commit's zero-padded index in the topological order
//! of the bisection's graph, so the natural order of the names is
//! ancestor-first within one bisection; indices of bisections over
//! different ranges are not comparable.
//!
//! A folder appears complete or not at all: it is staged in a hidden
//! `.NAME.perfatlas-tmp-PID` folder (hidden folders are not versions) and
//! renamed into place. An existing folder is never overwritten: the same
//! content is fine, different content is an error.

use std::path::{Path, PathBuf};

use super::measure::{shorten, RunTimes};
use super::BisectError;
use vcs::commit_search::DagCommit;

/// Creates `into` when missing; it must be a directory.
pub(super) fn prepare(into: &Path) -> Result<(), BisectError> {
    if into.exists() && !into.is_dir() {
        return Err(BisectError::Usage(format!(
            "--into {}: not a directory",
            into.display()
        )));
    }
    std::fs::create_dir_all(into).map_err(|e| BisectError::io(into, e))
}

/// `<index>-<short>`, the index zero-padded to the digits of `count - 1`
/// (at least 3).
pub(super) fn folder_name(index: usize, count: usize, short: &str) -> String {
    let width = count.saturating_sub(1).to_string().len().max(3);
    format!("{index:0width$}-{short}")
}

/// The benchmark's name from the command: the file stem of its first word
/// that names a script or a path (`sh bench/work.sh` → `work`,
/// `hyperfine … ./target/release/app` → `app`); `bisect` when none does
/// (`cargo bench`).
pub(super) fn benchmark_name(cmd: &str) -> String {
    const SCRIPTS: [&str; 8] = ["sh", "bash", "py", "js", "rb", "pl", "lua", "php"];
    let names_a_file = |w: &&str| {
        let extension = Path::new(w).extension().and_then(|e| e.to_str());
        w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.+/~-".contains(c))
            && !w.starts_with('-')
            && !w.starts_with("/dev/")
            && (w.contains('/') || extension.is_some_and(|e| SCRIPTS.contains(&e)))
    };
    let stem = cmd
        .split_whitespace()
        .map(|w| w.trim_matches(['\'', '"', ';', '&', '|', '(', ')']))
        .find(names_a_file)
        .and_then(|w| Path::new(w).file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem.is_empty() || stem.starts_with('.') {
        "bisect".to_string()
    } else {
        stem
    }
}

/// The native measurement JSON of one benchmark's runs, in seconds.
pub(super) fn timings_json(benchmark: &str, runs: &[RunTimes]) -> String {
    let value = serde_json::json!({
        "perfatlas_measurements": 1,
        "benchmarks": [{ "name": benchmark, "unit": "s", "runs": runs }],
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}

/// `revision`, `date` and `label` of a commit's `version.toml`.
pub(super) fn version_toml(commit: &DagCommit) -> String {
    let label = if commit.summary.is_empty() {
        commit.short.clone()
    } else {
        format!("{} {}", commit.short, shorten(&commit.summary, 50))
    };
    format!(
        "revision = {}\ndate = {}\nlabel = {}\n",
        toml_string(&commit.oid),
        toml_string(&commit.date()),
        toml_string(&label)
    )
}

/// A TOML basic string.
pub(crate) fn toml_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push('\t'),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes `into/name` holding `files` (name, text); returns its path.
pub(super) fn write_version(
    into: &Path,
    name: &str,
    files: &[(&str, String)],
) -> Result<PathBuf, BisectError> {
    let target = into.join(name);
    if target.exists() {
        return if same_content(&target, files) {
            Ok(target)
        } else {
            Err(BisectError::VersionExists(target))
        };
    }
    let staging = into.join(format!(".{name}.perfatlas-tmp-{}", std::process::id()));
    let staged = stage(&staging, files)
        .and_then(|()| std::fs::rename(&staging, &target).map_err(|e| BisectError::io(&target, e)));
    if staged.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    staged.map(|()| target)
}

/// A fresh `staging` folder holding `files`.
fn stage(staging: &Path, files: &[(&str, String)]) -> Result<(), BisectError> {
    match std::fs::remove_dir_all(staging) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(BisectError::io(staging, e))
        }
        _ => {}
    }
    std::fs::create_dir(staging).map_err(|e| BisectError::io(staging, e))?;
    for (file, text) in files {
        let path = staging.join(file);
        std::fs::write(&path, text).map_err(|e| BisectError::io(&path, e))?;
    }
    Ok(())
}

/// Whether `dir` holds exactly `files`, byte for byte.
fn same_content(dir: &Path, files: &[(&str, String)]) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.count() == files.len()
        && files
            .iter()
            .all(|(file, text)| std::fs::read(dir.join(file)).is_ok_and(|b| b == text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use config::VersionConfig;

    fn commit(summary: &str) -> DagCommit {
        DagCommit {
            oid: "0123456789abcdef0123456789abcdef01234567".into(),
            short: "0123456789".into(),
            summary: summary.into(),
            time: 1_600_000_000,
            offset_minutes: 0,
            parents: vec![],
        }
    }

    #[test]
    fn version_toml_reads_back_whatever_the_summary_holds() {
        let hostile =
            "say \"hi\" \\ tab\there\u{7f}\u{1b}[31m and a very long tail that goes on and on";
        let text = version_toml(&commit(hostile));
        let (parsed, remarks) = VersionConfig::parse(&text, Path::new("version.toml")).unwrap();
        assert!(remarks.is_empty(), "{remarks:?}");
        assert_eq!(
            parsed.revision.as_deref(),
            Some("0123456789abcdef0123456789abcdef01234567")
        );
        assert_eq!(parsed.date.as_deref(), Some("2020-09-13"));
        let label = parsed.label.unwrap();
        assert!(
            label.starts_with("0123456789 say \"hi\" \\ tab\there"),
            "{label}"
        );
        assert!(label.ends_with('…'), "{label}");
        let (empty, _) = VersionConfig::parse(&version_toml(&commit("")), Path::new("v")).unwrap();
        assert_eq!(empty.label.as_deref(), Some("0123456789"));
    }

    #[test]
    fn timings_hold_a_number_per_run_and_an_array_per_sampled_run() {
        let runs = [RunTimes::Single(0.5), RunTimes::Samples(vec![0.25, 0.75])];
        let value: serde_json::Value = serde_json::from_str(&timings_json("work", &runs)).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"perfatlas_measurements": 1, "benchmarks": [
                {"name": "work", "unit": "s", "runs": [0.5, [0.25, 0.75]]}]})
        );
    }

    #[test]
    fn benchmark_names_come_from_the_command() {
        assert_eq!(benchmark_name("sh work.sh"), "work");
        assert_eq!(benchmark_name("./bench/parse.py --n 100"), "parse");
        assert_eq!(
            benchmark_name("hyperfine --export-json \"$PERFATLAS_OUT\" './target/release/app'"),
            "app"
        );
        assert_eq!(benchmark_name("make && ./run data/input.txt"), "run");
        assert_eq!(
            benchmark_name("python3 bench.py data/input.txt > /dev/null"),
            "bench"
        );
        assert_eq!(benchmark_name("X=1 $CMD 5"), "bisect");
        assert_eq!(benchmark_name("cargo bench"), "bisect");
        assert_eq!(
            benchmark_name(r#"printf '{"times":[1]}' > "$PERFATLAS_OUT""#),
            "bisect"
        );
        assert_eq!(benchmark_name("../"), "bisect");
        assert_eq!(benchmark_name(""), "bisect");
    }

    #[test]
    fn folders_sort_naturally_and_are_never_overwritten() {
        assert_eq!(folder_name(7, 12, "abc"), "007-abc");
        assert_eq!(folder_name(7, 1001, "abc"), "0007-abc");
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("timings.json", "{}\n".to_string()),
            ("version.toml", "x\n".to_string()),
        ];
        let written = write_version(dir.path(), "001-abc", &files).unwrap();
        assert_eq!(
            std::fs::read_to_string(written.join("version.toml")).unwrap(),
            "x\n"
        );
        write_version(dir.path(), "001-abc", &files).expect("the same content again is fine");
        let other = [
            ("timings.json", "[]\n".to_string()),
            ("version.toml", "x\n".to_string()),
        ];
        let e = write_version(dir.path(), "001-abc", &other).unwrap_err();
        assert!(matches!(e, BisectError::VersionExists(_)), "{e}");
        assert_eq!(
            std::fs::read_to_string(written.join("timings.json")).unwrap(),
            "{}\n"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["001-abc"], "no staging folder left");
    }
}
