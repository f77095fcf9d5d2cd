//! Error types. Parsers return [`ParseError`] (a place in the input and what
//! was expected); the loader wraps it into [`InputError`] with the file name;
//! anything that stops a whole build is a [`BuildError`], of one
//! [`ErrorKind`]: usage, input, or internal (a bug, exit 101).

use std::fmt;
use std::path::PathBuf;

/// Where in an input file a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The file as a whole (empty, unrecognised, too large, …).
    Whole,
    /// 1-based line number.
    Line(usize),
    /// Byte offset from the start of the (decompressed) data.
    Byte(u64),
    /// A JSON path such as `$.nodes[3].callFrame.functionName`.
    Json(String),
    /// A field path in a binary message, e.g. `sample[12].location_id[0]`.
    Field(String),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Whole => Ok(()),
            Place::Line(n) => write!(f, "line {n}"),
            Place::Byte(n) => write!(f, "byte {n}"),
            Place::Json(p) => write!(f, "{p}"),
            Place::Field(p) => write!(f, "field {p}"),
        }
    }
}

/// A problem found while parsing one input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", place_prefix(.place))]
pub struct ParseError {
    pub place: Place,
    pub message: String,
}

fn place_prefix(place: &Place) -> String {
    match place {
        Place::Whole => String::new(),
        p => format!("{p}: "),
    }
}

impl ParseError {
    pub fn new(place: Place, message: impl Into<String>) -> ParseError {
        ParseError {
            place,
            message: message.into(),
        }
    }
    pub fn whole(message: impl Into<String>) -> ParseError {
        ParseError::new(Place::Whole, message)
    }
    pub fn line(line: usize, message: impl Into<String>) -> ParseError {
        ParseError::new(Place::Line(line), message)
    }
    pub fn byte(offset: u64, message: impl Into<String>) -> ParseError {
        ParseError::new(Place::Byte(offset), message)
    }
    pub fn json(path: impl Into<String>, message: impl Into<String>) -> ParseError {
        ParseError::new(Place::Json(path.into()), message)
    }
    pub fn field(path: impl Into<String>, message: impl Into<String>) -> ParseError {
        ParseError::new(Place::Field(path.into()), message)
    }
}

/// A parse error with the file it happened in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {error}")]
pub struct InputError {
    /// Path as the user should see it (relative to the input directory).
    pub file: String,
    pub error: ParseError,
}

/// Anything that stops a build or a conversion.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    /// The command line or the way it names files is wrong.
    #[error("{0}")]
    Usage(String),
    /// A bug in perfatlas, not in its input: exit 101, like a panic.
    #[error("internal error (a bug in perfatlas, not in your input): {0}")]
    Internal(String),
    /// The command line adds how to replace it anyway (`--force`).
    #[error("{} exists, is not empty and was not written by perfatlas", .0.display())]
    OutputNotOurs(PathBuf),
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    /// Strictness was asked for (the command line's `--strict`).
    #[error(
        "{skipped} input file(s) could not be read and strictness is asked for; first: {first}"
    )]
    Strict { skipped: usize, first: String },
    /// Another build holds the output's lock.
    /// The command line adds how to wait for it (`--wait`).
    #[error("another perfatlas build ({}) is writing {} (lock {}); run again when it is done", .pid.map_or_else(|| "PID unknown".to_string(), |p| format!("PID {p}")), .output.display(), .lock.display())]
    Busy {
        output: PathBuf,
        lock: PathBuf,
        pid: Option<u32>,
    },
}

/// Who can fix an error: the command line, the input (files, settings,
/// the machine's state), or perfatlas itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    Usage,
    Input,
    Internal,
}

impl BuildError {
    /// Who can fix this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BuildError::Usage(_) | BuildError::OutputNotOurs(_) | BuildError::Busy { .. } => {
                ErrorKind::Usage
            }
            BuildError::Internal(_) => ErrorKind::Internal,
            BuildError::Io { .. }
            | BuildError::Input(_)
            | BuildError::Config { .. }
            | BuildError::Template { .. }
            | BuildError::Strict { .. } => ErrorKind::Input,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> BuildError {
        BuildError::Io {
            path: path.into(),
            source,
        }
    }
}
