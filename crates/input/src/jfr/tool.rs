//! Binary recordings (`FLR\0…`), read by running the JDK's own
//! `jfr print --json` on the file and streaming its output into the JSON
//! reader: no temporary file, and memory for the events kept, not for the
//! text. The tool is found on `PATH`, else in `$JAVA_HOME/bin`.

use std::ffi::OsString;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, Stdio};

use super::{Parsed, CONVERT};
use model::error::ParseError;
use model::visible;

/// The allocation events asked of `jfr print`.
const EVENTS: &str =
    "jdk.ObjectAllocationSample,jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB";
/// Whole stacks: JFR records at most 2048 frames.
const STACK_DEPTH: &str = "2048";
/// Lines of the tool's error output quoted in a message.
const STDERR_LINES: usize = 5;

/// Reads the binary recording at `path` through `jfr print --json`.
pub fn read_recording(path: &Path) -> Result<Parsed, ParseError> {
    let tool = find_jfr(std::env::var_os("PATH"), std::env::var_os("JAVA_HOME"));
    read_with(tool.as_deref(), path)
}

/// The `jfr` executable in one of the `PATH` directories, else in
/// `JAVA_HOME/bin`.
pub(super) fn find_jfr(path: Option<OsString>, java_home: Option<OsString>) -> Option<PathBuf> {
    let name = if cfg!(windows) { "jfr.exe" } else { "jfr" };
    let on_path = path
        .iter()
        .flat_map(std::env::split_paths)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name));
    let in_home = java_home.map(|home| PathBuf::from(home).join("bin").join(name));
    on_path.chain(in_home).find(|candidate| candidate.is_file())
}

fn no_tool() -> ParseError {
    ParseError::whole(format!(
        "binary JFR recording, but the JDK's `jfr` tool is not on PATH nor in \
         $JAVA_HOME/bin (install a JDK, or convert it yourself: {CONVERT})"
    ))
}

/// Runs `tool print --json …` on `path` and reads its output.
pub(super) fn read_with(tool: Option<&Path>, path: &Path) -> Result<Parsed, ParseError> {
    let tool = tool.ok_or_else(no_tool)?;
    let mut child = Command::new(tool)
        .args(["print", "--json", "--stack-depth", STACK_DEPTH])
        .args(["--events", EVENTS])
        .arg(as_argument(path))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            ParseError::whole(format!(
                "binary JFR recording, but `{}` could not be run: {e}",
                tool.display()
            ))
        })?;
    let stderr = child
        .stderr
        .take()
        .map(|err| std::thread::spawn(move || first_lines(err)));
    let parsed = match child.stdout.as_mut() {
        Some(out) => read_output(out),
        None => Err(ParseError::whole("`jfr print` gave no output")),
    };
    let status = child
        .wait()
        .map_err(|e| ParseError::whole(format!("waiting for `{}` failed: {e}", tool.display())))?;
    let stderr = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    if !status.success() {
        let said = if stderr.is_empty() {
            String::new()
        } else {
            format!(": {stderr}")
        };
        return Err(ParseError::whole(format!(
            "`{} print` failed ({status}){said}",
            tool.display()
        )));
    }
    parsed.map_err(|e| {
        ParseError::new(
            e.place,
            format!("in the output of `jfr print`: {}", e.message),
        )
    })
}

/// Parses the tool's output; on an error, reads the rest so the tool is
/// not left blocked on a full pipe.
fn read_output(out: &mut ChildStdout) -> Result<Parsed, ParseError> {
    let parsed = super::read_from(serde_json::de::IoRead::new(BufReader::new(&mut *out)));
    if parsed.is_err() {
        let _ = std::io::copy(out, &mut std::io::sink());
    }
    parsed
}

/// A relative path as `./path`, so a name starting with `-` is not taken
/// for an option.
fn as_argument(path: &Path) -> PathBuf {
    if path.is_relative() {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    }
}

/// The first non-empty lines of the tool's error output, as one line of
/// visible text; the rest is read and dropped.
fn first_lines(mut err: impl Read) -> String {
    let mut head = Vec::new();
    let _ = (&mut err).take(16 * 1024).read_to_end(&mut head);
    let _ = std::io::copy(&mut err, &mut std::io::sink());
    let text = String::from_utf8_lossy(&head);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(STDERR_LINES)
        .collect();
    visible(&lines.join(" / ")).into_owned()
}
