//! Whose code a component is: the program under test, the harness and
//! runtime that drive it, or the engine. The matrix lists the program's
//! components first, so it opens on the code a reader can change.
//!
//! Told from a function's version-independent file ([`model::identity`]):
//!
//! - **engine**: no file and no module (V8's `(garbage collector)`,
//!   `(program)`, `(idle)`; what a caller ran counts for that caller, see
//!   [`crate::code_owner`]);
//! - **harness**: the runtime's own code, named by a scheme or in angle
//!   brackets (`node:internal/main`, `<frozen importlib._bootstrap>`); a
//!   path that stays absolute once made version-independent — the same
//!   file in every version, outside the installed program (the bench
//!   script beside the installs, the standard library); a file named for
//!   benchmarks or tests (`bench.py`, `bench-fixed.js`, `test/…`,
//!   `…_test.go`, `….spec.js`);
//! - **program**: every other file: a path inside an installed package or
//!   a version's directory (made relative by the identity rules), or one
//!   the profile recorded relative to the program's root; and code known
//!   only by its module (a native binary).
//!
//! With a repository (`--repo`) a file is the program's when the
//! repository holds it in some version, and the harness's otherwise:
//! py-spy writes the standard library's paths relative too
//! (`html/parser.py`), and only the repository tells them from the
//! program's (`markdown/core.py`).
//!
//! When no file is the program's by these rules (every version profiled
//! from one checkout, so every path is absolute), absolute paths count as
//! the program's: only the runtime and bench or test files are the
//! harness then. A profile of names alone (folded stacks without files)
//! is the program's throughout.

use model::Frame;

/// Whose code a component is, in the order the matrix lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Origin {
    #[default]
    Program,
    Harness,
    Engine,
}

impl Origin {
    /// A word for the reader, `None` for the program's own code.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Origin::Program => None,
            Origin::Harness => Some("harness"),
            Origin::Engine => Some("engine"),
        }
    }
}

/// What a function's file says about it, before the history-wide fallback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    Program,
    /// Code known only by its module (a native binary): the program's.
    Module,
    /// An absolute path: the harness, unless nothing is the program's.
    Absolute,
    Harness,
    Engine,
}

/// The place of `function` (its file version-independent).
pub fn place(function: &Frame) -> Place {
    let Some(file) = function.file.as_deref() else {
        return match function.module {
            Some(_) => Place::Module,
            None => Place::Engine,
        };
    };
    if runtime_file(file) || bench_or_test(file) {
        Place::Harness
    } else if absolute(file) {
        Place::Absolute
    } else {
        Place::Program
    }
}

/// The origins of places seen across a history: absolute paths are the
/// harness when some file is the program's, else the program.
pub fn origins(places: &[Place]) -> Vec<Origin> {
    let any_program = places.contains(&Place::Program);
    let any_file = places.iter().any(|p| *p != Place::Engine);
    places
        .iter()
        .map(|p| match p {
            Place::Program | Place::Module => Origin::Program,
            Place::Absolute if any_program => Origin::Harness,
            Place::Absolute => Origin::Program,
            Place::Harness => Origin::Harness,
            Place::Engine if any_file => Origin::Engine,
            Place::Engine => Origin::Program,
        })
        .collect()
}

/// `node:fs`, `node:internal/main`, `<frozen importlib._bootstrap>`,
/// `<string>`: the runtime's own code, no file of the program's.
fn runtime_file(file: &str) -> bool {
    if file.starts_with('<') && file.ends_with('>') {
        return true;
    }
    match file.split_once(':') {
        Some((scheme, rest)) => {
            scheme.len() > 1
                && scheme.bytes().all(|b| b.is_ascii_lowercase())
                && !rest.starts_with("//")
        }
        None => false,
    }
}

/// `/w/bench.js`, `C:\w\bench.js`, `\\host\share\x.py`.
fn absolute(file: &str) -> bool {
    let b = file.as_bytes();
    file.starts_with('/')
        || file.starts_with('\\')
        || (b.len() > 2
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

/// Directories that hold a project's tests and benchmarks.
const HARNESS_DIRS: [&str; 8] = [
    "test",
    "tests",
    "__tests__",
    "spec",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
];

/// A file in a test or benchmark directory, or named for one:
/// `bench.py`, `bench-fixed.js`, `test_core.py`, `core_test.go`,
/// `lexer.spec.ts`, `parse.bench.mjs`.
fn bench_or_test(file: &str) -> bool {
    let mut parts: Vec<&str> = file.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    if parts
        .iter()
        .any(|d| HARNESS_DIRS.contains(&d.to_ascii_lowercase().as_str()))
    {
        return true;
    }
    let name = name.to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    let words: Vec<&str> = stem.split(['-', '_']).collect();
    let first = words.first().copied().unwrap_or("");
    let last = words.last().copied().unwrap_or("");
    matches!(
        first,
        "bench" | "benchmark" | "benchmarks" | "test" | "tests"
    ) || matches!(last, "bench" | "benchmark" | "test" | "tests")
        || name
            .split('.')
            .skip(1)
            .any(|part| matches!(part, "test" | "spec" | "bench"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(file: &str) -> Place {
        place(&Frame {
            function: "f".into(),
            file: Some(file.into()),
            ..Frame::default()
        })
    }

    /// Files as the sample histories and the captured marked history
    /// name them, made version-independent.
    #[test]
    fn files_of_the_program_the_harness_and_the_runtime() {
        assert_eq!(at("marked/src/Tokenizer.js"), Place::Program);
        assert_eq!(at("markdown/core.py"), Place::Program);
        assert_eq!(at("moment/moment.js"), Place::Program);
        assert_eq!(at("/work/data/marked-work/bench-fixed.js"), Place::Harness);
        assert_eq!(at("bench.py"), Place::Harness);
        assert_eq!(at("/tmp/pa-js/bench.mjs"), Place::Harness);
        assert_eq!(at("node:internal/modules/cjs/loader"), Place::Harness);
        assert_eq!(at("<frozen importlib._bootstrap>"), Place::Harness);
        assert_eq!(at("test/specs/run.js"), Place::Harness);
        assert_eq!(at("pkg/lexer_test.go"), Place::Harness);
        assert_eq!(at("src/lexer.spec.ts"), Place::Harness);
        assert_eq!(
            at("/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py"),
            Place::Absolute
        );
        assert_eq!(at("C:\\w\\app.py"), Place::Absolute);
        // Not a bench file: the words are whole.
        assert_eq!(at("src/benchmarker.js"), Place::Program);
        assert_eq!(at("src/attestation.py"), Place::Program);
        assert_eq!(place(&Frame::named("(garbage collector)")), Place::Engine);
    }

    #[test]
    fn absolute_paths_are_the_program_when_nothing_else_is() {
        let with = origins(&[Place::Program, Place::Absolute, Place::Harness]);
        assert_eq!(with, [Origin::Program, Origin::Harness, Origin::Harness]);
        let without = origins(&[Place::Absolute, Place::Harness, Place::Engine]);
        assert_eq!(without, [Origin::Program, Origin::Harness, Origin::Engine]);
        let names_alone = origins(&[Place::Engine, Place::Engine]);
        assert_eq!(names_alone, [Origin::Program, Origin::Program]);
    }
}
