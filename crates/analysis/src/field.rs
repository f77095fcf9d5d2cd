//! Field-execution figures (Gammatella, sections 2.2 and 4): per source
//! line, how many of the selected executions ran it and how many of those
//! failed; the Tarantula colouring for failures and the hotspot colouring
//! for execution counts; the hue/brightness bins a treemap tile is drawn
//! from; and each execution's band colour.
//!
//! Colours are hue in degrees from red (0) to green (120) and brightness
//! from [`MIN_BRIGHTNESS`] to 1; lines no selected execution ran have no
//! colour (drawn grey). The page's script recomputes the same figures for
//! a selection of executions (`templates/assets/field.js`).

use std::collections::BTreeMap;

use serde::Serialize;

use model::field::Execution;

/// Dimmest brightness used (the paper's perceptible minimum).
pub const MIN_BRIGHTNESS: f64 = 0.3;
/// Hue columns and brightness rows of a treemap tile (plus one column for
/// lines no execution ran).
pub const HUE_BINS: usize = 12;
pub const BRIGHTNESS_BINS: usize = 4;

/// Which figure colours the lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Colouring {
    /// Jones, Harrold and Stasko: red for lines mostly run by failing
    /// executions, green for lines mostly run by passing ones.
    Tarantula,
    /// Red for the lines executed most often, green for the least.
    Hotspot,
}

/// One executable line over the selected executions.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct LineStats {
    pub line: u32,
    /// Executions that ran it (count > 0), and how many of them failed.
    pub executed_by: u32,
    pub failed: u32,
    /// Times executed in all, saturating.
    pub count: u64,
}

impl LineStats {
    pub fn passed(&self) -> u32 {
        self.executed_by - self.failed
    }
}

/// One source file: every line any selected execution reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileStats {
    pub path: String,
    pub lines: Vec<LineStats>,
}

/// How many executions were selected, and how they ended.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Totals {
    pub executions: u32,
    pub failed: u32,
}

impl Totals {
    pub fn passed(&self) -> u32 {
        self.executions - self.failed
    }
}

/// A line's or band's colour.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Colour {
    pub hue: f64,
    pub brightness: f64,
}

/// Per-file, per-line figures of `executions`, files sorted by path.
pub fn line_stats(executions: &[&Execution]) -> (Vec<FileStats>, Totals) {
    let mut files: BTreeMap<&str, BTreeMap<u32, LineStats>> = BTreeMap::new();
    for e in executions {
        for f in &e.files {
            let lines = files.entry(f.path.as_str()).or_default();
            for &(line, count) in &f.lines {
                let s = lines.entry(line).or_insert(LineStats {
                    line,
                    ..LineStats::default()
                });
                s.count = s.count.saturating_add(count);
                if count > 0 {
                    s.executed_by += 1;
                    if e.failed() {
                        s.failed += 1;
                    }
                }
            }
        }
    }
    let totals = totals(executions);
    let files = files
        .into_iter()
        .map(|(path, lines)| FileStats {
            path: path.to_string(),
            lines: lines.into_values().collect(),
        })
        .collect();
    (files, totals)
}

/// How many executions there are and how many failed.
pub fn totals(executions: &[&Execution]) -> Totals {
    Totals {
        executions: executions.len() as u32,
        failed: executions.iter().filter(|e| e.failed()).count() as u32,
    }
}

/// Tarantula: hue = 120 × %passed / (%passed + %failed), brightness from
/// the larger of the two shares; `None` for a line no execution ran.
pub fn tarantula(s: &LineStats, t: &Totals) -> Option<Colour> {
    if s.executed_by == 0 {
        return None;
    }
    let share = |n: u32, of: u32| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let (p, f) = (share(s.passed(), t.passed()), share(s.failed, t.failed));
    Some(Colour {
        hue: 120.0 * p / (p + f),
        brightness: brightness(p.max(f)),
    })
}

/// Hotspots: the line's total count normalised over 0–120, red (0) for
/// the most executed; constant brightness.
pub fn hotspot(s: &LineStats, max_count: u64) -> Option<Colour> {
    if s.executed_by == 0 || s.count == 0 {
        return None;
    }
    let score = s.count as f64 / max_count.max(1) as f64;
    Some(Colour {
        hue: 120.0 * (1.0 - score),
        brightness: 1.0,
    })
}

fn brightness(share: f64) -> f64 {
    MIN_BRIGHTNESS + (1.0 - MIN_BRIGHTNESS) * share.clamp(0.0, 1.0)
}

/// The colour of every line of `files` under `colouring`.
pub fn colours(
    files: &[FileStats],
    totals: &Totals,
    colouring: Colouring,
) -> Vec<Vec<Option<Colour>>> {
    let max = files
        .iter()
        .flat_map(|f| f.lines.iter().map(|l| l.count))
        .max()
        .unwrap_or(0);
    files
        .iter()
        .map(|f| {
            f.lines
                .iter()
                .map(|l| match colouring {
                    Colouring::Tarantula => tarantula(l, totals),
                    Colouring::Hotspot => hotspot(l, max),
                })
                .collect()
        })
        .collect()
}

/// Line counts per [hue column][brightness row] for a tile; the last
/// column holds the lines without colour (not executed).
pub fn bins(colours: &[Option<Colour>]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![0usize; BRIGHTNESS_BINS]; HUE_BINS + 1];
    for c in colours {
        match c {
            Some(c) => {
                let h = ((c.hue / 120.0 * HUE_BINS as f64) as usize).min(HUE_BINS - 1);
                let b = (((1.0 - c.brightness) / (1.0 - MIN_BRIGHTNESS) * BRIGHTNESS_BINS as f64)
                    as usize)
                    .min(BRIGHTNESS_BINS - 1);
                out[h][b] += 1;
            }
            None => out[HUE_BINS][0] += 1,
        }
    }
    out
}

/// An execution's band: red for a failure, green for a normal end
/// (Tarantula); for hotspots, its total count against the largest.
pub fn band(e: &Execution, colouring: Colouring, max_total: u64) -> Colour {
    match colouring {
        Colouring::Tarantula => Colour {
            hue: if e.failed() { 0.0 } else { 120.0 },
            brightness: 1.0,
        },
        Colouring::Hotspot => Colour {
            hue: 120.0 * (1.0 - total_count(e) as f64 / max_total.max(1) as f64),
            brightness: 1.0,
        },
    }
}

/// All line counts of an execution, saturating.
pub fn total_count(e: &Execution) -> u64 {
    e.files
        .iter()
        .flat_map(|f| f.lines.iter().map(|l| l.1))
        .fold(0u64, |a, b| a.saturating_add(b))
}

/// The average colour of a group of bands (a summarized group).
pub fn average(colours: &[Colour]) -> Option<Colour> {
    if colours.is_empty() {
        return None;
    }
    let n = colours.len() as f64;
    Some(Colour {
        hue: colours.iter().map(|c| c.hue).sum::<f64>() / n,
        brightness: colours.iter().map(|c| c.brightness).sum::<f64>() / n,
    })
}

/// CSS for a colour: HSL with full saturation and lightness from the
/// brightness (HSV value → HSL lightness at saturation 1: L = V / 2). The
/// hue goes through the theme's `--fm-h0 + --fm-hk × hue`, so the
/// colour-blind theme can map red–green onto orange–blue.
pub fn css(c: Option<Colour>) -> String {
    match c {
        Some(c) => format!(
            "hsl(calc(var(--fm-h0) + var(--fm-hk) * {:.0}),100%,{:.0}%)",
            c.hue,
            c.brightness * 50.0
        ),
        None => "var(--field-none)".to_string(),
    }
}

#[cfg(test)]
mod tests;
