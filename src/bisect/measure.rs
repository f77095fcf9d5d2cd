//! One run of the measured command and the time it reports.
//!
//! The command runs as `sh -c CMD` in the commit's worktree, stdin closed,
//! with `PERFATLAS_OUT` naming a file that does not exist yet. It reports
//! either
//! - hyperfine JSON written to `$PERFATLAS_OUT` (`hyperfine --export-json
//!   "$PERFATLAS_OUT" …`): every entry of `results[0].times` (seconds) is a
//!   sample of this run; or, when it wrote nothing there,
//! - a number on its last non-empty stdout line: seconds, or with a unit
//!   `ns`, `us`, `µs`, `ms` or `s` (a space before the unit is allowed).
//!
//! A run that exits non-zero or reports no time is a [`RunFailure`]; nothing
//! is skipped silently.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::Serialize;

use super::checkout::GIT_LOCATION_VARS;

/// What one run reported, in seconds: one number, or hyperfine's samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum RunTimes {
    Single(f64),
    Samples(Vec<f64>),
}

impl RunTimes {
    pub fn samples(&self) -> &[f64] {
        match self {
            RunTimes::Single(x) => std::slice::from_ref(x),
            RunTimes::Samples(xs) => xs,
        }
    }
}

/// Why a run gave no time: the message and the last lines of its stderr.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RunFailure {
    pub message: String,
    pub stderr: String,
}

/// Lines of stderr kept for a failure.
const STDERR_LINES: usize = 10;

/// Runs `sh -c cmd` in `dir` with `PERFATLAS_OUT=out_file` and reads the
/// time it reports. `out_file` is removed afterwards.
pub(super) fn run_once(cmd: &str, dir: &Path, out_file: &Path) -> Result<RunTimes, RunFailure> {
    let _ = std::fs::remove_file(out_file);
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(cmd)
        .current_dir(dir)
        .env("PERFATLAS_OUT", out_file)
        .stdin(Stdio::null());
    for var in GIT_LOCATION_VARS {
        command.env_remove(var);
    }
    // A process group of its own, so that an interrupted bisection can stop
    // the command and everything it started (see `interrupt`).
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let child = {
        let mut made = super::interrupt::made();
        let child = command.spawn().map_err(|e| RunFailure {
            message: format!("could not start sh: {e}"),
            stderr: String::new(),
        })?;
        made.child = Some(child.id());
        child
    };
    let output = child.wait_with_output();
    super::interrupt::made().child = None;
    let output = output.map_err(|e| RunFailure {
        message: format!("could not read the output of sh: {e}"),
        stderr: String::new(),
    })?;
    let written = std::fs::read(out_file).ok();
    let _ = std::fs::remove_file(out_file);
    let stderr = last_lines(&String::from_utf8_lossy(&output.stderr), STDERR_LINES);
    let fail = |message: String| RunFailure {
        message,
        stderr: stderr.clone(),
    };
    if !output.status.success() {
        return Err(fail(match output.status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was killed by a signal".to_string(),
        }));
    }
    if let Some(bytes) = written {
        return hyperfine_times(&bytes)
            .map(RunTimes::Samples)
            .map_err(|m| fail(format!("$PERFATLAS_OUT: {m}")));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().rev().find(|l| !l.trim().is_empty()) {
        None => Err(fail(
            "printed nothing on stdout and wrote nothing to $PERFATLAS_OUT".to_string(),
        )),
        Some(line) => parse_seconds(line).map(RunTimes::Single).ok_or_else(|| {
            fail(format!(
                "its last stdout line {:?} is not a time (seconds, or a number with ns, us, µs, ms or s)",
                shorten(line.trim(), 80)
            ))
        }),
    }
}

/// `0.0123`, `12.3ms`, `12.3 ms`, `1e-3 s` → seconds; `None` for anything
/// else, negative or not finite.
pub(super) fn parse_seconds(line: &str) -> Option<f64> {
    const UNITS: [(&str, f64); 5] = [
        ("ns", 1e-9),
        ("us", 1e-6),
        ("µs", 1e-6),
        ("ms", 1e-3),
        ("s", 1.0),
    ];
    let line = line.trim();
    let (number, scale) = UNITS
        .iter()
        .find_map(|(unit, scale)| line.strip_suffix(unit).map(|n| (n.trim_end(), *scale)))
        .unwrap_or((line, 1.0));
    // Rust also reads "inf" and "NaN"; only plain numbers are times.
    if !number
        .bytes()
        .all(|b| b.is_ascii_digit() || b".eE+-".contains(&b))
    {
        return None;
    }
    let seconds = number.parse::<f64>().ok()? * scale;
    (seconds.is_finite() && seconds >= 0.0).then_some(seconds)
}

/// `results[0].times` of hyperfine's JSON export, seconds.
pub(super) fn hyperfine_times(bytes: &[u8]) -> Result<Vec<f64>, String> {
    let value: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let times = value
        .pointer("/results/0/times")
        .and_then(|t| t.as_array())
        .ok_or("no results[0].times array (expected hyperfine --export-json output)")?;
    let times: Vec<f64> = times
        .iter()
        .map(|t| t.as_f64().filter(|x| x.is_finite() && *x >= 0.0))
        .collect::<Option<_>>()
        .ok_or("results[0].times holds something other than non-negative numbers")?;
    if times.is_empty() {
        return Err("results[0].times is empty".to_string());
    }
    Ok(times)
}

/// The last `n` non-empty lines of `text`, each shortened.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(n);
    lines[start..]
        .iter()
        .map(|l| shorten(l.trim_end(), 300))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` cut to `max` characters, with `…` when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_with_and_without_units() {
        let cases = [
            ("0.0123", Some(0.0123)),
            ("  12.5ms \r", Some(0.0125)),
            ("12.5 ms", Some(0.0125)),
            ("250us", Some(250e-6)),
            ("250µs", Some(250e-6)),
            ("7ns", Some(7e-9)),
            ("1e-3 s", Some(1e-3)),
            ("3s", Some(3.0)),
            ("-1", None),
            ("inf", None),
            ("NaN", None),
            ("fast", None),
            ("12 parsecs", None),
            ("", None),
            ("ms", None),
        ];
        for (line, expected) in cases {
            let got = parse_seconds(line);
            match (got, expected) {
                (Some(g), Some(e)) => assert!((g - e).abs() < 1e-15, "{line:?}: {g} vs {e}"),
                (g, e) => assert_eq!(g, e, "{line:?}"),
            }
        }
    }

    #[test]
    fn hyperfine_json_gives_every_sample_and_bad_json_says_why() {
        let json = br#"{"results":[{"command":"x","mean":0.02,"times":[0.01,0.02,0.03]}]}"#;
        assert_eq!(hyperfine_times(json).unwrap(), [0.01, 0.02, 0.03]);
        assert!(hyperfine_times(b"{").unwrap_err().contains("not JSON"));
        assert!(hyperfine_times(br#"{"results":[]}"#)
            .unwrap_err()
            .contains("results[0].times"));
        assert!(hyperfine_times(br#"{"results":[{"times":[]}]}"#)
            .unwrap_err()
            .contains("empty"));
        assert!(hyperfine_times(br#"{"results":[{"times":["a"]}]}"#).is_err());
    }

    #[test]
    fn a_run_reports_through_stdout_or_perfatlas_out_or_fails_with_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.json");
        let run = |cmd: &str| run_once(cmd, dir.path(), &out);
        assert_eq!(
            run("echo building; echo '30 ms'; echo").unwrap(),
            RunTimes::Single(0.03)
        );
        let hyperfine = r#"echo 'Time (mean): 20 ms'; printf '{"results":[{"times":[0.02,0.025]}]}' > "$PERFATLAS_OUT""#;
        assert_eq!(
            run(hyperfine).unwrap(),
            RunTimes::Samples(vec![0.02, 0.025])
        );
        assert!(!out.exists(), "the out file is removed after each run");
        assert!(run("pwd").unwrap_err().message.contains("is not a time"));
        let failed = run("echo one >&2; echo two >&2; exit 3").unwrap_err();
        assert_eq!(failed.message, "exited with status 3");
        assert_eq!(failed.stderr, "one\ntwo");
        assert!(run("true").unwrap_err().message.contains("printed nothing"));
    }
}
