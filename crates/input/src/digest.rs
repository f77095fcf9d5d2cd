//! Digests: everything a build reads from one version folder, parsed, in
//! one checksummed file (`NAME.padigest`, `docs/digest-format.md`). A
//! release's CI job writes its digest (`perfatlas digest VERSION_DIR`); a
//! version folder holding only a digest is read exactly as if it held the
//! raw files, so a site built from digests is the site built from the
//! inputs, byte for byte.
//!
//! What a digest keeps: `version.toml`'s text; every input file's path
//! inside the version and what reading it gave (the parsed profile or
//! measurements as [`crate::records`] encodes them for the build cache, or
//! the error that made it skipped; tool by-products are listed but not
//! read, as a build does); what the walk skipped (dangling links, …); and
//! the field executions of `field/` as the build reads them, with their
//! problems.
//!
//! Layout: the magic `PADIGEST`, the format version (u32, little-endian),
//! the perfatlas version (a length byte, then UTF-8), the XXH3-64 checksum
//! of the rest (u64, little-endian), then the postcard encoding of
//! [`Record`], compressed with zlib. The parsed records inside are tied to
//! the perfatlas version that wrote them: another version refuses the
//! digest and says so.

pub mod format;
mod write;

pub use format::*;
pub use write::{write_version, Summary};
