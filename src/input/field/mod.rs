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
//! This module owns the types every reader fills. LCOV is read in
//! [`lcov`], Cobertura XML in [`cobertura`].

pub mod cobertura;
pub mod lcov;
mod tally;

use std::collections::BTreeMap;

use crate::error::ParseError;

/// The outcome of an execution that ended without an uncaught exception.
pub const NORMAL: &str = "normal";

/// One function of a source file: where it starts and how often it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionCoverage {
    pub name: String,
    /// First line, 1-based.
    pub line: u32,
    /// Last line, when the coverage file gives it.
    pub end_line: Option<u32>,
    /// Calls (LCOV `FNDA`/`FNA`; Cobertura: the method's `hits`, else its
    /// first line's).
    pub count: u64,
}

/// What one execution covered of one source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCoverage {
    /// As the coverage file names it (LCOV `SF`, Cobertura `filename`).
    pub path: String,
    /// Line → execution count, sorted by line; every instrumented line,
    /// the ones that did not run with 0.
    pub lines: Vec<(u32, u64)>,
    /// Sorted by start line, then name.
    pub functions: Vec<FunctionCoverage>,
}

/// One run of the deployed program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execution {
    /// `NAME` of its files.
    pub id: String,
    /// Every property as text (`outcome` included when given).
    pub properties: BTreeMap<String, String>,
    /// [`NORMAL`], or the type of the uncaught exception.
    pub outcome: String,
    /// Sorted by path, each path once.
    pub files: Vec<FileCoverage>,
    /// The coverage file, relative to the input directory.
    pub source: String,
}

/// The executions of one version, and the problems met reading them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldRead {
    /// Sorted by id.
    pub executions: Vec<Execution>,
    /// (file relative to the input directory, problem), sorted by file.
    pub warnings: Vec<(String, ParseError)>,
}

/// Bytes of `tests/fixtures/field/NAME`, files real tools wrote.
#[cfg(test)]
fn fixture(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/field")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
