//! Field executions: runs of the deployed program, each with the coverage
//! it recorded and the properties it was run with (Gammatella: Orso,
//! Jones, Harrold, "Visualization of Program-Execution Data for Deployed
//! Software", SoftVis 2003, section 2). They are not profiles and not
//! measurements: a version directory keeps them apart, in `field/`:
//!
//! ```text
//! VERSION/field/NAME.info          coverage of execution NAME: LCOV tracefile
//! VERSION/field/NAME.xml           … or Cobertura XML
//! VERSION/field/NAME.properties    its properties: key=value lines
//! VERSION/field/NAME.json          … or a flat JSON object
//! ```
//!
//! This module owns that folder: which of its files form an execution,
//! the execution's outcome, and the types every reader fills. The formats
//! are read in [`lcov`], [`cobertura`] and [`properties`].
//!
//! - `NAME` (the file name up to its last `.`) is the execution's id; the
//!   coverage file makes the execution. `.info` wins over `.xml` and
//!   `.properties` over `.json` when both are there (the other is listed as
//!   ignored). Gzip is undone first.
//! - The property `outcome` is `normal` or the type of the uncaught
//!   exception that ended the run (`ValueError`). Without it the outcome is
//!   [`NORMAL`], with a warning. A coverage file without a properties file
//!   is still an execution: no properties, outcome normal, a warning.
//! - A coverage file that cannot be read leaves its execution out; so does
//!   a properties file that cannot be read (an unknown outcome must not
//!   count as normal). Both are listed with the file and place.
//! - Hidden files and `*.md` are not read. Anything else (other files,
//!   folders, properties without coverage) is listed as skipped.
//!
//! Each file is read whole, up to the input limit
//! ([`MAX_INPUT_BYTES`]); each file lists at most 100 warnings.

pub mod cobertura;
pub mod lcov;
pub mod properties;
mod tally;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::text;
use model::error::ParseError;
use model::limits::MAX_INPUT_BYTES;
use model::visible;

/// The outcome of an execution that ended without an uncaught exception.
pub const NORMAL: &str = "normal";

pub use model::field::{Execution, FileCoverage, FunctionCoverage};

/// The executions of one version, and the problems met reading them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldRead {
    /// Sorted by id.
    pub executions: Vec<Execution>,
    /// (file relative to the input directory, problem), sorted by file.
    pub warnings: Vec<(String, ParseError)>,
}

/// Reads every execution in `field_dir` (a version's `field/` folder).
/// `relative_prefix` is that folder relative to the input directory
/// (`1.0/field`); messages and [`Execution::source`] use it. A missing
/// folder holds no executions.
pub fn read_field_dir(field_dir: &Path, relative_prefix: &str) -> FieldRead {
    let mut warnings = Vec::new();
    let groups = list(field_dir, relative_prefix, &mut warnings);
    let read: Vec<(Option<Execution>, Problems)> = groups
        .into_par_iter()
        .map(|(id, files)| read_execution(id, files))
        .collect();
    let mut executions = Vec::new();
    for (execution, problems) in read {
        executions.extend(execution);
        warnings.extend(problems);
    }
    warnings.sort_by(|a, b| a.0.cmp(&b.0));
    FieldRead {
        executions,
        warnings,
    }
}

/// Problems, each with the file it was met in (relative to the input).
type Problems = Vec<(String, ParseError)>;

/// What a file in `field/` holds, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Lcov,
    Cobertura,
    Properties,
    Json,
}

impl Kind {
    fn of(extension: &str) -> Option<Kind> {
        match extension.to_ascii_lowercase().as_str() {
            "info" => Some(Kind::Lcov),
            "xml" => Some(Kind::Cobertura),
            "properties" => Some(Kind::Properties),
            "json" => Some(Kind::Json),
            _ => None,
        }
    }

    fn is_coverage(self) -> bool {
        matches!(self, Kind::Lcov | Kind::Cobertura)
    }
}

/// One file of an execution.
#[derive(Debug, Clone)]
struct FieldFile {
    kind: Kind,
    path: PathBuf,
    /// Relative to the input directory.
    relative: String,
}

/// The files of one execution id, in [`Kind`] order.
type Group = Vec<FieldFile>;

/// Groups the folder's files by execution id (sorted); files that are not
/// an execution's are listed in `warnings`.
fn list(field_dir: &Path, prefix: &str, warnings: &mut Problems) -> Vec<(String, Group)> {
    let entries = match std::fs::read_dir(field_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            warnings.push((prefix.to_string(), cannot_read(&e)));
            return Vec::new();
        }
    };
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                warnings.push((prefix.to_string(), cannot_read(&e)));
                continue;
            }
        };
        let name = visible(&entry.file_name().to_string_lossy()).into_owned();
        let relative = format!("{prefix}/{name}");
        match classify(&entry.path(), &name) {
            Ok(Some((id, kind))) => groups.entry(id).or_default().push(FieldFile {
                kind,
                path: entry.path(),
                relative,
            }),
            Ok(None) => {}
            Err(reason) => warnings.push((relative, ParseError::whole(reason))),
        }
    }
    for files in groups.values_mut() {
        files.sort_by(|a, b| (a.kind, &a.relative).cmp(&(b.kind, &b.relative)));
    }
    groups.into_iter().collect()
}

/// A file's execution id and kind; `None` for files not read silently
/// (hidden, `*.md`); an error says why any other entry is skipped.
pub(crate) fn classify(path: &Path, name: &str) -> Result<Option<(String, Kind)>, String> {
    if name.starts_with('.') || name.ends_with(".md") {
        return Ok(None);
    }
    if path.is_dir() {
        return Err(
            "a folder inside field/ is not read: an execution's files lie directly in field/"
                .to_string(),
        );
    }
    if !path.is_file() {
        let dangling = path
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink());
        return Err(if dangling {
            "a dangling symbolic link".to_string()
        } else {
            "not a regular file".to_string()
        });
    }
    let kind = name
        .rsplit_once('.')
        .filter(|(stem, _)| !stem.is_empty())
        .and_then(|(stem, ext)| Some((stem.to_string(), Kind::of(ext)?)));
    kind.map(Some).ok_or_else(|| {
        "not a field-execution file: expected NAME.info or NAME.xml (coverage), \
         NAME.properties or NAME.json (its properties)"
            .to_string()
    })
}

/// Reads one execution's files: `None` when it cannot be made, and the
/// problems met either way.
fn read_execution(id: String, files: Group) -> (Option<Execution>, Problems) {
    let mut problems = Vec::new();
    let execution =
        pick(&id, files, &mut problems).and_then(|picked| read_picked(id, picked, &mut problems));
    (execution, problems)
}

/// The files an execution is read from.
struct Picked {
    coverage: FieldFile,
    properties: Option<FieldFile>,
}

/// The first coverage file and the first properties file of an execution
/// (in [`Kind`] order); the others are listed as ignored. `None` without a
/// coverage file.
fn pick(id: &str, files: Group, problems: &mut Problems) -> Option<Picked> {
    let (coverage, properties): (Group, Group) =
        files.into_iter().partition(|f| f.kind.is_coverage());
    let Some(first) = coverage.first() else {
        for file in properties {
            let message = format!(
                "properties of execution {id}, which has no coverage file (NAME.info or NAME.xml); ignored"
            );
            problems.push((file.relative, ParseError::whole(message)));
        }
        return None;
    };
    let mut ignore = |used: &FieldFile, extra: &[FieldFile]| {
        for file in extra {
            let message = format!(
                "execution {id} is read from {}; this file is ignored",
                used.relative
            );
            problems.push((file.relative.clone(), ParseError::whole(message)));
        }
    };
    ignore(first, &coverage[1..]);
    if let Some(used) = properties.first() {
        ignore(used, &properties[1..]);
    }
    Some(Picked {
        coverage: coverage.into_iter().next()?,
        properties: properties.into_iter().next(),
    })
}

/// Reads the picked files into an execution; `None` when either cannot be
/// read.
fn read_picked(id: String, picked: Picked, problems: &mut Problems) -> Option<Execution> {
    let Picked {
        coverage,
        properties: properties_file,
    } = picked;
    let files = match read_coverage(&coverage) {
        Ok((files, warnings)) => {
            problems.extend(warnings.into_iter().map(|w| (coverage.relative.clone(), w)));
            files
        }
        Err(e) => {
            problems.push((coverage.relative, e));
            return None;
        }
    };
    let properties = match &properties_file {
        None => {
            let message = "no properties file (NAME.properties or NAME.json): the execution has no properties and its outcome is taken as normal";
            problems.push((coverage.relative.clone(), ParseError::whole(message)));
            BTreeMap::new()
        }
        Some(file) => match read_properties(file) {
            Ok((properties, warnings)) => {
                problems.extend(warnings.into_iter().map(|w| (file.relative.clone(), w)));
                properties
            }
            Err(e) => {
                let message = format!("{}; execution {id} is left out", e.message);
                problems.push((file.relative.clone(), ParseError::new(e.place, message)));
                return None;
            }
        },
    };
    let outcome = outcome(&properties).unwrap_or_else(|| {
        if let Some(file) = &properties_file {
            let message = "no `outcome` property: the outcome is taken as normal";
            problems.push((file.relative.clone(), ParseError::whole(message)));
        }
        NORMAL.to_string()
    });
    Some(Execution {
        id,
        properties,
        outcome,
        files,
        source: coverage.relative,
    })
}

/// The `outcome` property, unless it is missing or blank.
fn outcome(properties: &BTreeMap<String, String>) -> Option<String> {
    let value = properties.get("outcome")?.trim();
    (!value.is_empty()).then(|| value.to_string())
}

type CoverageRead = (Vec<FileCoverage>, Vec<ParseError>);

fn read_coverage(file: &FieldFile) -> Result<CoverageRead, ParseError> {
    let bytes = read_bounded(&file.path)?;
    match file.kind {
        Kind::Cobertura => cobertura::parse(&bytes),
        _ => lcov::parse(&bytes),
    }
}

fn read_properties(file: &FieldFile) -> Result<properties::Read, ParseError> {
    let bytes = read_bounded(&file.path)?;
    match file.kind {
        Kind::Json => properties::parse_json(&bytes),
        _ => properties::parse_properties(&bytes),
    }
}

/// The file's bytes, gzip undone, refusing files over the input limit and
/// files that change while read or just before (see
/// [`crate::load::read_stable`]).
fn read_bounded(path: &Path) -> Result<Vec<u8>, ParseError> {
    crate::load::read_stable(path, read_limited)
}

fn read_limited(path: &Path) -> Result<Vec<u8>, ParseError> {
    let file = std::fs::File::open(path).map_err(|e| cannot_read(&e))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot_read(&e))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(ParseError::whole(format!(
            "over the {} GiB input limit",
            MAX_INPUT_BYTES >> 30
        )));
    }
    if text::is_gzip(&bytes) {
        return text::gunzip(&bytes);
    }
    Ok(bytes)
}

fn cannot_read(e: &std::io::Error) -> ParseError {
    ParseError::whole(format!("cannot be read: {e}"))
}

/// Bytes of `tests/fixtures/field/NAME`, files real tools wrote.
#[cfg(test)]
fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("tests/fixtures/field")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
