//! `perfatlas convert`: any supported input to folded stacks or the native
//! JSON format.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::{BuildError, InputError};
use crate::input::{self, Parsed};

/// Output formats of `convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Folded,
    Json,
}

/// Reads `path` and writes it as `target`. For folded output, `metric`
/// picks the metric by name (default: the first).
pub fn convert_file(
    path: &Path,
    target: Target,
    metric: Option<&str>,
) -> Result<(Parsed, String), BuildError> {
    let (_, parsed) = input::load::read_and_parse(path).map_err(|error| InputError {
        file: path.display().to_string(),
        error,
    })?;
    let text = match target {
        Target::Folded => {
            let m = match metric {
                None => 0,
                Some(name) => parsed
                    .profile
                    .metrics
                    .iter()
                    .position(|m| m.name == name)
                    .ok_or_else(|| {
                        let names: Vec<_> = parsed
                            .profile
                            .metrics
                            .iter()
                            .map(|m| m.name.as_str())
                            .collect();
                        BuildError::Usage(format!(
                            "no metric named {name:?}; the profile has: {}",
                            names.join(", ")
                        ))
                    })?,
            };
            to_folded(&parsed, m)
        }
        Target::Json => input::native::to_json(&parsed),
    };
    Ok((parsed, text))
}

/// Folded stacks of one metric: one line per node with a non-zero self
/// value, frames root-first joined by `;`, in tree order. `;` and line
/// breaks inside names are replaced so every line parses back. Samples
/// without any frame (root self value) are written as ` N`, as py-spy does.
pub fn to_folded(parsed: &Parsed, metric: usize) -> String {
    let tree = &parsed.profile.tree;
    let mut out = String::new();
    for node in tree.node_ids() {
        let value = tree.self_value(node, metric);
        if value == 0.0 {
            continue;
        }
        let names: Vec<String> = tree
            .stack_of(node)
            .into_iter()
            .map(|f| {
                let frame = parsed.frames.get(f);
                let name = match frame.location() {
                    Some(loc) if frame.line.is_some() => format!("{} ({loc})", frame.function),
                    _ => frame.function.clone(),
                };
                name.replace([';', '\n', '\r'], "_")
            })
            .collect();
        let _ = writeln!(out, "{} {}", names.join(";"), format_count(value));
    }
    out
}

fn format_count(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
