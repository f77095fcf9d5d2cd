//! The site's files before they are written: each one either rendered in
//! this build or kept unchanged from the previous site (see
//! [`super::reuse`]), in a sorted map so the output is written (and zipped)
//! in a fixed order.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where a file's contents come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// Rendered in this build.
    Bytes(Vec<u8>),
    /// The previous site's file, unchanged: hard-linked (or copied) into the
    /// new site. The path is in the previous site, which is replaced when
    /// the new one is in place.
    Kept(PathBuf),
    /// Already written into the new site (this many bytes), to keep the
    /// build's memory bounded.
    Written(u64),
}

/// Every file of the site: relative path → contents.
#[derive(Debug, Default)]
pub struct SiteFiles {
    files: BTreeMap<String, Body>,
}

impl SiteFiles {
    pub fn new() -> SiteFiles {
        SiteFiles::default()
    }

    /// Adds (or replaces) a rendered file.
    pub fn insert(&mut self, path: String, bytes: Vec<u8>) {
        self.files.insert(path, Body::Bytes(bytes));
    }

    /// Adds rendered or kept files.
    pub fn extend(&mut self, files: impl IntoIterator<Item = (String, Body)>) {
        self.files.extend(files);
    }

    /// Site-relative paths, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.files.keys()
    }

    /// (path, contents), sorted by path.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Body)> {
        self.files.iter()
    }
}

/// Rendered files as site files.
pub fn rendered(files: Vec<(String, Vec<u8>)>) -> impl Iterator<Item = (String, Body)> {
    files.into_iter().map(|(p, b)| (p, Body::Bytes(b)))
}

/// Where rendered files go at once, before the whole site is rendered (the
/// site's staging directory), to keep the build's memory bounded.
pub trait FileSink: Sync {
    /// Writes `bytes` as the site file `path`.
    fn write(&self, path: &str, bytes: &[u8]) -> Result<(), model::error::BuildError>;
}

/// Hands the rendered files among `files` to `sink` now (when there is
/// one), leaving their sizes.
pub fn spill(
    files: Vec<(String, Body)>,
    sink: Option<&dyn FileSink>,
) -> Result<Vec<(String, Body)>, model::error::BuildError> {
    let Some(staging) = sink else {
        return Ok(files);
    };
    files
        .into_iter()
        .map(|(path, body)| match body {
            Body::Bytes(bytes) => {
                staging.write(&path, &bytes)?;
                Ok((path, Body::Written(bytes.len() as u64)))
            }
            other => Ok((path, other)),
        })
        .collect()
}
