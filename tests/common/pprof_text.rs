//! Reading `go tool pprof -top` output, shared by the tests that compare
//! perfatlas's numbers with Go's pprof (`tests/pprof_top.rs`,
//! `tests/convert_export.rs`).

use std::path::Path;
use std::process::Command;

/// True when `go` runs; otherwise a note (or a failure under `CI`).
pub fn go_available() -> bool {
    if Command::new("go").arg("version").output().is_ok() {
        return true;
    }
    let msg = "go not found on PATH (apt-get install golang-go)";
    if std::env::var_os("CI").is_some() {
        panic!("pprof comparison cannot run on CI: {msg}");
    }
    eprintln!("note: skipping the go tool pprof comparison: {msg}");
    false
}

pub fn run_pprof_top(file: &Path, metric: &str, nodecount: usize, tmp: &Path) -> String {
    let sample_index = format!("-sample_index={metric}");
    run_pprof_top_with(file, nodecount, &[&sample_index], tmp)
}

/// `go tool pprof -top` of `file` with `extra` options besides the row
/// count, its output.
pub fn run_pprof_top_with(file: &Path, nodecount: usize, extra: &[&str], tmp: &Path) -> String {
    let output = Command::new("go")
        .args(["tool", "pprof", "-top"])
        .arg(format!("-nodecount={nodecount}"))
        // Names as the file has them: no binaries looked up, no C++
        // demangling of its own.
        .arg("-symbolize=none")
        .args(extra)
        .arg(file)
        // pprof keeps downloaded binaries and saved profiles here.
        .env("PPROF_TMPDIR", tmp)
        .output()
        .expect("run go tool pprof");
    assert!(
        output.status.success(),
        "go tool pprof -top {} failed:\n{}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("pprof output is UTF-8")
}

/// A printed value in perfatlas's base unit (nanoseconds, bytes, or a
/// count) and how far the true value can be from it given the rounding.
#[derive(Clone, Copy, Debug)]
pub struct Quantity {
    pub value: f64,
    pub tolerance: f64,
}

impl std::fmt::Display for Quantity {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} (±{})", self.value, self.tolerance)
    }
}

/// True when two rounded printouts can be of the same value.
pub fn agree(a: Quantity, b: Quantity) -> bool {
    let slack = 1e-9 * a.value.abs().max(b.value.abs());
    (a.value - b.value).abs() <= a.tolerance + b.tolerance + slack
}

/// True when `a` is larger than `b` whatever the rounding.
pub fn clearly_above(a: Quantity, b: Quantity) -> bool {
    a.value - a.tolerance > b.value + b.tolerance
}

/// `1770ms`, `0.35s`, `975.81MB`, `2009.95kB`, `1114` (pprof) or `2.19 s`,
/// `90.0 ms`, `976 MiB`, `1,114`, `150 samples` (perfatlas) in the base
/// unit. The tolerance is half a unit in the last printed decimal, taking at
/// least `min_decimals` decimals: pprof prints `%.2f` and trims `.00`, so
/// its `3MB` means 3.00 MB. pprof's kB/MB/GB are powers of 1024, like
/// perfatlas's KiB/MiB/GiB.
pub fn parse_quantity(text: &str, min_decimals: i32) -> Quantity {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '-')))
        .unwrap_or(text.len());
    let (number, unit) = (text[..split].replace(',', ""), text[split..].trim());
    let factor = match unit {
        "" | "samples" | "objects" | "B" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "mins" => 60e9,
        "hrs" => 3600e9,
        "kB" | "KiB" => 1024.0,
        "MB" | "MiB" => 1024.0 * 1024.0,
        "GB" | "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TB" | "TiB" => 1024f64.powi(4),
        other => panic!("unknown unit {other:?} in {text:?}"),
    };
    let value: f64 = number
        .parse()
        .unwrap_or_else(|e| panic!("bad number in {text:?}: {e}"));
    let decimals = number
        .split_once('.')
        .map_or(0, |(_, frac)| frac.len() as i32)
        .max(min_decimals);
    Quantity {
        value: value * factor,
        tolerance: 0.5 * 10f64.powi(-decimals) * factor,
    }
}

/// What `go tool pprof -top` printed.
pub struct PprofTop {
    pub total: Quantity,
    pub total_text: String,
    /// "Dropped N nodes (cum <= X)": nodes at most this heavy are missing.
    pub dropped_at_most: Option<Quantity>,
    pub rows: Vec<PprofRow>,
}

pub struct PprofRow {
    pub name: String,
    pub flat: Quantity,
    pub cum: Quantity,
}

pub fn parse_pprof_top(text: &str) -> PprofTop {
    let q = |s: &str| parse_quantity(s, 2);
    let mut total = None;
    let mut dropped_at_most = None;
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Showing nodes accounting for ") {
            let (_, of) = rest.rsplit_once(" of ").expect("'of X total'");
            total = Some(of.strip_suffix(" total").expect("'X total'"));
        } else if let Some(rest) = line.strip_prefix("Dropped ") {
            if let Some((_, cum)) = rest.split_once("nodes (cum <= ") {
                dropped_at_most = Some(q(cum.trim_end_matches(')')));
            }
        } else if line.trim_start().starts_with("flat  flat%") {
            in_table = true;
        } else if in_table && !line.trim().is_empty() {
            // flat flat% sum% cum cum% name — the name may hold spaces.
            let mut fields = Vec::new();
            let mut rest = line.trim();
            for _ in 0..5 {
                let (field, more) = rest.split_once(char::is_whitespace).expect("6 columns");
                fields.push(field);
                rest = more.trim_start();
            }
            let name = rest
                .trim_end_matches(" (inline)")
                .trim_end_matches(" (partial-inline)");
            rows.push(PprofRow {
                name: name.to_string(),
                flat: q(fields[0]),
                cum: q(fields[3]),
            });
        }
    }
    let total = total.unwrap_or_else(|| panic!("no 'Showing nodes' line in:\n{text}"));
    PprofTop {
        total: q(total),
        total_text: total.to_string(),
        dropped_at_most,
        rows,
    }
}
