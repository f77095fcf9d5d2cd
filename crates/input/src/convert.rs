//! `perfatlas convert`: any supported input to folded stacks, the native
//! JSON format, pprof (`convert/pprof.rs`) or speedscope
//! (`convert/speedscope.rs`).
//!
//! A profile's line self values (V8's `positionTicks`, pprof's and
//! py-spy's sampled lines) are written to the native JSON and to pprof (a
//! location per line, which readers join back into one function). Folded
//! stacks and speedscope have no place for them: their frames are one per
//! function, named with the line where the function starts (or the line
//! it spends most on).
//!
//! Folded output is streamed to a writer: it is often ten times the size of
//! the profile it comes from (every line repeats its whole stack), so a
//! gigabyte profile must not be turned into one string first.

use std::io::{self, Write};
use std::path::Path;

mod pprof;
pub mod speedscope;

use crate::Parsed;
use model::error::{BuildError, InputError};
use model::FrameId;

/// Output formats of `convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Folded,
    Json,
    /// gzipped `profile.proto`, every metric a sample type.
    Pprof,
    /// speedscope JSON, a profile per metric.
    Speedscope,
}

/// Reads and parses `path` (any supported format, gzip or not).
pub fn read_file(path: &Path) -> Result<Parsed, BuildError> {
    let (_, parsed) = crate::load::read_and_parse(path).map_err(|error| InputError {
        file: path.display().to_string(),
        error,
    })?;
    Ok(parsed)
}

/// The index of the metric named `metric`, or `None` when none is named.
pub fn pick_metric(parsed: &Parsed, metric: Option<&str>) -> Result<Option<usize>, BuildError> {
    let Some(name) = metric else {
        return Ok(None);
    };
    let metrics = &parsed.profile.metrics;
    match metrics.iter().position(|m| m.name == name) {
        Some(m) => Ok(Some(m)),
        None => {
            let names: Vec<_> = metrics.iter().map(|m| m.name.as_str()).collect();
            Err(BuildError::Usage(format!(
                "no metric named {name:?}; the profile has: {}",
                names.join(", ")
            )))
        }
    }
}

/// Writes `parsed` as `target`. `metric` is the one from [`pick_metric`]:
/// folded output writes it (default: the first metric), speedscope only
/// it (default: all), pprof all with it as the default sample type; the
/// native JSON always has all. `name` (the input file's name) titles a
/// speedscope file.
pub fn write(
    parsed: &Parsed,
    target: Target,
    metric: Option<usize>,
    name: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    match target {
        Target::Folded => write_folded(parsed, metric.unwrap_or(0), out),
        Target::Json => out.write_all(crate::native::to_json(parsed).as_bytes()),
        Target::Pprof => pprof::write(parsed, metric, out),
        Target::Speedscope => {
            let metrics: Vec<usize> = match metric {
                Some(m) => vec![m],
                None => (0..parsed.profile.metrics.len()).collect(),
            };
            speedscope::write(parsed, name, &metrics, out)
        }
    }
}

/// Folded stacks of one metric as a string (see [`write_folded`]).
pub fn to_folded(parsed: &Parsed, metric: usize) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_folded(parsed, metric, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Folded stacks of one metric: one line per node with a non-zero self
/// value, frames root-first joined by `;`, in tree order. `;` and line
/// breaks inside names are replaced so every line parses back. Samples
/// without any frame (root self value) are written as ` N`, as py-spy does.
pub fn write_folded(parsed: &Parsed, metric: usize, out: &mut dyn Write) -> io::Result<()> {
    let tree = &parsed.profile.tree;
    let names = folded_names(parsed);
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    let mut stack: Vec<FrameId> = Vec::new();
    for node in tree.node_ids() {
        let value = tree.self_value(node, metric);
        if value == 0.0 {
            continue;
        }
        stack.clear();
        let mut at = Some(node);
        while let Some(n) = at {
            match tree.frame(n) {
                Some(frame) => stack.push(frame),
                None => break,
            }
            at = tree.parent(n);
        }
        for (i, frame) in stack.iter().rev().enumerate() {
            if i > 0 {
                out.write_all(b";")?;
            }
            out.write_all(names[frame.0 as usize].as_bytes())?;
        }
        writeln!(out, " {}", format_count(value))?;
    }
    out.flush()
}

/// Every frame's name as folded output writes it, by frame id: the
/// function, with its location when the line is known.
fn folded_names(parsed: &Parsed) -> Vec<String> {
    parsed
        .frames
        .iter()
        .map(|(_, frame)| {
            let name = match frame.location() {
                Some(loc) if frame.line.is_some() => format!("{} ({loc})", frame.function),
                _ => frame.function.clone(),
            };
            name.replace([';', '\n', '\r'], "_")
        })
        .collect()
}

/// A count as folded stacks write it: a whole number when the value is
/// one up to floating-point noise (costs a call graph shares among callers
/// sum to 15.999999999999998), else at most six decimals.
fn format_count(v: f64) -> String {
    let whole = v.round();
    if (v - whole).abs() <= 1e-9 * v.abs().max(1.0) && whole.abs() < 1e15 {
        format!("{}", whole as i64)
    } else {
        format!("{}", (v * 1e6).round() / 1e6)
    }
}
