//! `perfatlas import`: a benchmark history kept by another tool (asv's
//! results directory, github-action-benchmark's `data.js`) written as an
//! input directory that `perfatlas build` reads.
//!
//! The readers are in [`input::imports`]; this module picks the format,
//! orders asv's commits by `--repo` when given, and writes: one folder per
//! commit, `NNN-<short id>/` (NNN its zero-padded place in the history, so
//! the folders sort in history order) holding `version.toml` (`revision`,
//! `date`, `label`) and `<format>.measurements.json` (perfatlas's
//! measurement JSON), and a `perfatlas.toml` listing the folders when the
//! commits' dates would order them otherwise.
//!
//! A commit without one usable value (asv writes a failed benchmark's result
//! as `null`; a commit whose every benchmark failed has none) is left out and
//! listed in [`ImportReport::left_out`]: `perfatlas build` refuses a
//! measurement file without benchmarks, so such a folder would break it.
//!
//! The directory is written like a site: staged beside its place, marked
//! as an import ([`site::IMPORT`]) and swapped in whole, under a lock. A
//! directory that is not empty and not marked as an import is refused.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use input::imports::{self, asv, github_action_benchmark, ImportedHistory, ImportedVersion};
use model::error::{BuildError, InputError};

/// Everything `perfatlas import` needs.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// `asv` or `github-action-benchmark`; recognised from the source when
    /// `None`.
    pub format: Option<String>,
    pub source: PathBuf,
    pub output: PathBuf,
    /// asv: the project's git repository, for the commits' order.
    pub repo: Option<PathBuf>,
    /// asv: the machine whose results to import.
    pub machine: Option<String>,
}

/// What an import wrote.
#[derive(Debug, Clone)]
pub struct ImportReport {
    pub format: &'static str,
    /// The version folders written, in history order.
    pub versions: Vec<String>,
    /// Distinct benchmark names over all versions.
    pub benchmarks: usize,
    /// Whether a `perfatlas.toml` gives the order.
    pub order_file: bool,
    pub notes: Vec<String>,
    /// Values and benchmarks left out.
    pub warnings: Vec<InputError>,
    /// Commits left out, oldest first, each with the reason.
    pub left_out: Vec<LeftOut>,
}

/// A commit of the source that no version folder holds.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// The commit id as the source gives it.
    pub revision: String,
    pub reason: &'static str,
}

/// Why a commit without values is left out.
const NO_VALUES: &str = "no benchmark has a usable value (each failed, was skipped or was not run)";

/// Reads the history at `options.source` and writes it to
/// `options.output`.
pub fn import(options: &ImportOptions) -> Result<ImportReport, BuildError> {
    let format = format_of(options)?;
    site::check_apart(&options.source, &options.output, "output directory")?;
    check_ours(&options.output)?;
    let mut history = read(format, options)?;
    let left_out = leave_out_empty(&mut history);
    if history.versions.is_empty() {
        return Err(BuildError::Usage(format!(
            "{}: no commits with results to import{}",
            options.source.display(),
            match left_out.len() {
                0 => String::new(),
                n => format!(" ({n} left out: {NO_VALUES})"),
            }
        )));
    }
    let _lock = site::lock::OutputLock::acquire(&options.output, false, &mut |_| {})?;
    site::remove_stale_marked(&options.output, site::IMPORT)?;
    let mut report = write(history, &options.output)?;
    report.left_out = left_out;
    Ok(report)
}

/// Takes the commits without a benchmark out of `history`, which the
/// build would refuse as version folders.
fn leave_out_empty(history: &mut ImportedHistory) -> Vec<LeftOut> {
    let (kept, empty): (Vec<_>, Vec<_>) = std::mem::take(&mut history.versions)
        .into_iter()
        .partition(|v| !v.benchmarks.is_empty());
    history.versions = kept;
    empty
        .into_iter()
        .map(|v| LeftOut {
            revision: v.revision,
            reason: NO_VALUES,
        })
        .collect()
}

/// The format named, or recognised from the source.
fn format_of(options: &ImportOptions) -> Result<&'static str, BuildError> {
    if let Some(name) = &options.format {
        return imports::FORMATS
            .iter()
            .find(|f| *f == name)
            .copied()
            .ok_or_else(|| {
                BuildError::Usage(format!(
                    "unknown history format {name:?} (known: {})",
                    imports::FORMATS.join(", ")
                ))
            });
    }
    let source = &options.source;
    if source.is_dir() {
        return match asv::find_results(source) {
            Some(_) => Ok(asv::NAME),
            None => Err(BuildError::Usage(format!(
                "{}: a directory, but not asv results (no benchmarks.json in it or in its results/)",
                source.display()
            ))),
        };
    }
    let bytes = std::fs::read(source).map_err(|e| BuildError::io(source, e))?;
    imports::sniff(&bytes).ok_or_else(|| {
        BuildError::Usage(format!(
            "{}: not a history perfatlas recognises; name its format ({})",
            source.display(),
            imports::FORMATS.join(" or ")
        ))
    })
}

/// Refuses a non-empty output that no import wrote.
fn check_ours(output: &Path) -> Result<(), BuildError> {
    match site::check_replaceable_marked(output, false, site::IMPORT) {
        Err(BuildError::OutputNotOurs(_)) => {
            let what = if output.join(site::SITE.file).is_file() {
                "a site written by `perfatlas build`"
            } else {
                "not written by `perfatlas import`"
            };
            Err(BuildError::Usage(format!(
                "{} is not empty and is {what}; import into a new or empty directory (an import replaces only a directory an earlier import wrote)",
                output.display()
            )))
        }
        other => other,
    }
}

/// The history, read by the format's reader.
fn read(format: &'static str, options: &ImportOptions) -> Result<ImportedHistory, BuildError> {
    if format == github_action_benchmark::NAME {
        for (given, flag) in [
            (options.repo.is_some(), "--repo"),
            (options.machine.is_some(), "--machine"),
        ] {
            if given {
                return Err(BuildError::Usage(format!(
                    "{flag} is for asv results only (a data.js keeps its commits in order)"
                )));
            }
        }
        let bytes =
            std::fs::read(&options.source).map_err(|e| BuildError::io(&options.source, e))?;
        let name = options.source.display().to_string();
        return Ok(github_action_benchmark::read(&name, &bytes)?);
    }
    let results = asv::gather(&options.source, options.machine.as_deref())?;
    let Some(repo) = &options.repo else {
        return Ok(asv::read(&results, None)?);
    };
    let opened = vcs::Repo::open(repo)
        .map_err(|e| BuildError::Usage(format!("--repo {}: {e}", repo.display())))?;
    let commits = opened
        .history()
        .map_err(|e| BuildError::Usage(format!("--repo {}: {e}", repo.display())))?;
    let order: Vec<String> = commits.iter().map(|c| c.oid.clone()).collect();
    let mut history = asv::read(&results, Some(&order))?;
    for version in &mut history.versions {
        if let Some(c) = commits
            .iter()
            .find(|c| c.oid.eq_ignore_ascii_case(&version.revision))
        {
            version.summary = c.summary.clone();
        }
    }
    Ok(history)
}

/// Writes the input directory, staged and swapped in whole.
fn write(history: ImportedHistory, output: &Path) -> Result<ImportReport, BuildError> {
    let staging = site::Staging::begin_marked(output, false, site::IMPORT)?;
    let width = history
        .versions
        .len()
        .saturating_sub(1)
        .to_string()
        .len()
        .max(3);
    let mut names = Vec::with_capacity(history.versions.len());
    let mut days = Vec::with_capacity(history.versions.len());
    let mut notes = history.notes;
    let mut benchmarks = BTreeSet::new();
    let file = format!("{}.measurements.json", history.format);
    for (i, version) in history.versions.iter().enumerate() {
        let name = format!("{i:0width$}-{}", short(&version.revision));
        let (toml, day) = version_toml(version, &name, &mut notes);
        staging.write(&format!("{name}/version.toml"), toml.as_bytes())?;
        let json = input::measurements::write_native(&version.benchmarks);
        staging.write(&format!("{name}/{file}"), json.as_bytes())?;
        benchmarks.extend(version.benchmarks.iter().map(|b| b.name.as_str()));
        names.push(name);
        days.push(day);
    }
    let order_file = !dates_keep_the_order(&names, &days);
    let mut settings = String::new();
    if order_file {
        settings.push_str(&order_toml(&names));
    }
    settings.push_str(&directions_toml(&history.higher_is_better));
    if !settings.is_empty() {
        staging.write("perfatlas.toml", settings.as_bytes())?;
    }
    staging.swap()?;
    Ok(ImportReport {
        format: history.format,
        benchmarks: benchmarks.len(),
        versions: names,
        order_file,
        notes,
        warnings: history.warnings,
        left_out: Vec::new(),
    })
}

/// The first 10 characters of a commit id that are safe in a folder name
/// (others become `_`); `commit` when there are none.
fn short(revision: &str) -> String {
    let safe: String = revision
        .chars()
        .take(10)
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if safe.is_empty() {
        "commit".to_string()
    } else {
        safe
    }
}

/// A version's `version.toml` and the day perfatlas reads from it. A date
/// the build would not read is left out, with a note.
fn version_toml(
    version: &ImportedVersion,
    name: &str,
    notes: &mut Vec<String>,
) -> (String, Option<String>) {
    let short = short(&version.revision);
    let label = match version.summary.trim() {
        "" => short,
        summary => format!("{short} {}", crate::bisect::shorten(summary, 50)),
    };
    let base = format!(
        "revision = {}\nlabel = {}\n",
        crate::bisect::toml_string(&version.revision),
        crate::bisect::toml_string(&label)
    );
    let Some(date) = &version.date else {
        return (base, None);
    };
    let text = format!("{base}date = {}\n", crate::bisect::toml_string(date));
    let day = config::VersionConfig::parse(&text, Path::new("version.toml"))
        .ok()
        .and_then(|(parsed, _)| parsed.date);
    if day.is_none() {
        notes.push(format!(
            "{name}: the date {date:?} is not a date perfatlas reads; left out"
        ));
        return (base, None);
    }
    (text, day)
}

/// Whether the build's own order (by day when every version has one, then
/// by name; else by name) is the history's.
fn dates_keep_the_order(names: &[String], days: &[Option<String>]) -> bool {
    if days.iter().any(Option::is_none) {
        return true; // names alone, which sort in history order
    }
    let _ = names;
    days.windows(2).all(|w| w[0] <= w[1])
}

/// `[metrics."NAME"] direction = "higher"` for each benchmark the source
/// says is better higher.
fn directions_toml(higher: &[String]) -> String {
    let mut text = String::new();
    for name in higher {
        if text.is_empty() {
            text.push_str(
                "\n# Written by `perfatlas import`: the source says these are better higher.\n",
            );
        }
        text.push_str(&format!(
            "[metrics.{}]\ndirection = \"higher\"\n",
            crate::bisect::toml_string(name)
        ));
    }
    text
}

/// `perfatlas.toml` listing the versions in history order.
fn order_toml(names: &[String]) -> String {
    let mut text = String::from(
        "# Written by `perfatlas import`: the commits in history order (their dates\n# would order them otherwise).\nversions = [\n",
    );
    for name in names {
        text.push_str(&format!("  {},\n", crate::bisect::toml_string(name)));
    }
    text.push_str("]\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_are_safe_and_dates_decide_the_order_file() {
        assert_eq!(short("0689280ab90e3a3999d6"), "0689280ab9");
        assert_eq!(short("../../x"), "______x");
        assert_eq!(short(""), "commit");
        let names: Vec<String> = ["000-a", "001-b"].map(String::from).to_vec();
        let day = |d: &str| Some(d.to_string());
        assert!(dates_keep_the_order(
            &names,
            &[day("2024-01-01"), day("2024-01-01")]
        ));
        assert!(!dates_keep_the_order(
            &names,
            &[day("2024-01-02"), day("2024-01-01")]
        ));
        assert!(dates_keep_the_order(&names, &[day("2024-01-02"), None]));
        assert_eq!(
            order_toml(&names),
            "# Written by `perfatlas import`: the commits in history order (their dates\n# would order them otherwise).\nversions = [\n  \"000-a\",\n  \"001-b\",\n]\n"
        );
    }

    #[test]
    fn commits_without_benchmarks_are_left_out_in_order() {
        let version = |revision: &str, benchmarks: usize| ImportedVersion {
            revision: revision.into(),
            summary: String::new(),
            date: None,
            benchmarks: (0..benchmarks)
                .map(|i| input::measurements::Measured {
                    name: format!("b{i}"),
                    unit: "s".into(),
                    in_process: false,
                    note: String::new(),
                    runs: vec![vec![1.0]],
                    interval: None,
                })
                .collect(),
        };
        let mut history = ImportedHistory {
            format: "asv",
            versions: vec![version("a", 0), version("b", 2), version("c", 0)],
            notes: vec![],
            warnings: vec![],
            higher_is_better: vec![],
        };
        let left_out = leave_out_empty(&mut history);
        let revisions: Vec<&str> = left_out.iter().map(|l| l.revision.as_str()).collect();
        assert_eq!(revisions, ["a", "c"]);
        assert_eq!(history.versions.len(), 1);
        assert_eq!(history.versions[0].revision, "b");
    }

    #[test]
    fn a_date_the_build_cannot_read_is_left_out_with_a_note() {
        let mut version = ImportedVersion {
            revision: "abc".into(),
            summary: "fix \"it\"".into(),
            date: Some("yesterday".into()),
            benchmarks: vec![],
        };
        let mut notes = vec![];
        let (text, day) = version_toml(&version, "000-abc", &mut notes);
        assert_eq!(text, "revision = \"abc\"\nlabel = \"abc fix \\\"it\\\"\"\n");
        assert_eq!(day, None);
        assert_eq!(notes.len(), 1);
        version.date = Some("2022-06-03T23:16:14+09:00".into());
        let (text, day) = version_toml(&version, "000-abc", &mut notes);
        assert!(
            text.ends_with("date = \"2022-06-03T23:16:14+09:00\"\n"),
            "{text}"
        );
        assert_eq!(day.as_deref(), Some("2022-06-03"));
    }
}
