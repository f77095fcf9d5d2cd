//! Field executions (Gammatella): one run of the deployed program each,
//! with its line coverage, its properties (OS, runtime version, user…)
//! and its outcome (`normal` or the uncaught exception's type).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A function's coverage as the coverage file gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCoverage {
    pub name: String,
    pub line: u32,
    pub end_line: Option<u32>,
    pub count: u64,
}

/// One source file's coverage in one execution.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileCoverage {
    /// As the coverage file names it.
    pub path: String,
    /// Executable line → times executed, sorted by line.
    pub lines: Vec<(u32, u64)>,
    pub functions: Vec<FunctionCoverage>,
}

/// One execution of the program in the field.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Execution {
    pub id: String,
    pub properties: BTreeMap<String, String>,
    /// `normal`, or the type of the uncaught exception.
    pub outcome: String,
    /// Sorted by path, each path once.
    pub files: Vec<FileCoverage>,
    /// The coverage file, relative to the input directory.
    pub source: String,
}

impl Execution {
    /// Ended with an uncaught exception.
    pub fn failed(&self) -> bool {
        self.outcome != "normal"
    }
}

/// The executions of one version.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldSet {
    pub version: usize,
    /// Sorted by id.
    pub executions: Vec<Execution>,
}
