//! Archives (`NAME.padigest`, `docs/digest-format.md`): one version folder
//! in one checksummed file that any later perfatlas reads. A release's CI
//! job writes its archive (`perfatlas digest VERSION_DIR`); a version
//! folder holding only an archive is read exactly as if it held the raw
//! files, so a site built from archives is the site built from the inputs,
//! byte for byte.
//!
//! An archive holds the folder's raw files ([`raw`]: `version.toml`, every
//! input file, the field executions, as a build would read them, by path
//! inside the version, in one compressed stream) and, when asked for, the
//! records a build made of them ([`parsed`]), keyed by the perfatlas
//! version and record formats that wrote them ([`RecordsKey`]). The
//! perfatlas whose key matches uses the records; any other unpacks the raw
//! files into a temporary folder and reads it as it reads any version
//! folder, through the same walk and parsers ([`crate::walk`]).
//!
//! [`format`](mod@format) owns the file's layout; `write.rs` writes one.

pub mod format;
pub mod parsed;
pub mod raw;
mod write;

pub use format::*;
pub use parsed::Record;
pub use write::{write_version, Summary};
