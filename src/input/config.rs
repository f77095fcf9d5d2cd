//! `perfatlas.toml` (the history's settings) and `version.toml` (one
//! version's label, date and revision).

use std::path::Path;

use serde::Deserialize;

use crate::error::BuildError;

/// Settings from `perfatlas.toml`. Every field is optional.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Report title; defaults to the input directory's name.
    pub title: Option<String>,
    /// Explicit version order (directory names). Versions found but not
    /// listed come after, in natural order.
    #[serde(default)]
    pub versions: Vec<String>,
    /// Flame-graph settings.
    #[serde(default)]
    pub flame: FlameConfig,
}

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FlameConfig {
    /// Most frames drawn in one flame graph; narrower frames are merged.
    pub max_frames: usize,
    /// Frames narrower than this many pixels at the default width are merged.
    pub min_width_px: f64,
}

impl Default for FlameConfig {
    fn default() -> FlameConfig {
        FlameConfig {
            max_frames: 20_000,
            min_width_px: 0.1,
        }
    }
}

/// Settings from a version's `version.toml`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct VersionConfig {
    pub label: Option<String>,
    /// `YYYY-MM-DD`.
    pub date: Option<String>,
    pub revision: Option<String>,
}

fn read_toml<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|e| BuildError::io(path, e))?;
    toml::from_str(&text).map_err(|e| BuildError::Config {
        path: path.to_path_buf(),
        message: toml_message(&text, &e),
    })
}

/// The TOML error with its line and column instead of a byte span.
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => msg,
    }
}

impl Config {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Config, BuildError> {
        let config: Config = read_toml(path)?;
        if config.flame.max_frames == 0 {
            return Err(BuildError::Config {
                path: path.to_path_buf(),
                message: "flame.max_frames must be at least 1".into(),
            });
        }
        Ok(config)
    }
}

impl VersionConfig {
    pub fn read(path: &Path) -> Result<VersionConfig, BuildError> {
        let config: VersionConfig = read_toml(path)?;
        if let Some(date) = &config.date {
            if !is_iso_date(date) {
                return Err(BuildError::Config {
                    path: path.to_path_buf(),
                    message: format!("date {date:?} is not YYYY-MM-DD"),
                });
            }
        }
        Ok(config)
    }
}

fn is_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_and_bad_dates_are_reported_with_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("perfatlas.toml");
        std::fs::write(&p, "title = \"x\"\nversoins = [\"1\"]\n").unwrap();
        let e = Config::read(&p).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("versoins"), "{e}");
        let v = dir.path().join("version.toml");
        std::fs::write(&v, "date = \"2020/01/01\"\n").unwrap();
        assert!(VersionConfig::read(&v)
            .unwrap_err()
            .to_string()
            .contains("YYYY-MM-DD"));
        std::fs::write(&v, "date = \"2020-01-31\"\nrevision = \"v1\"\n").unwrap();
        assert_eq!(
            VersionConfig::read(&v).unwrap().revision.as_deref(),
            Some("v1")
        );
    }
}
