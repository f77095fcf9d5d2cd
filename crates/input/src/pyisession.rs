//! pyinstrument's saved session (`pyinstrument -r pyisession -o
//! run.pyisession script.py`, or `Profiler.last_session.save`): the raw
//! samples its reports are rendered from.
//!
//! ```text
//! {"start_time": …, "duration": seconds, "sample_count": n,
//!  "start_call_stack": [IDENTIFIER, …], "cpu_time": seconds, …,
//!  "frame_records": [[[IDENTIFIER, …], seconds], …]}
//! ```
//!
//! A record is one sample: its stack, root first, and the time it stands
//! for. An identifier is `function NUL file NUL first-line`, then
//! attributes each after a `\x01`: `c` the class (the frame becomes
//! `Class.function`, as pyinstrument's reports name it), `l` the line the
//! sample was at. The thread is the stack's first identifier
//! (`MainThread NUL <thread> NUL id`).
//!
//! What pyinstrument's reports leave out is left out here too, so a
//! session reads as the report `pyinstrument --load FILE -r json
//! --show-all` of it does: the thread, the stack the profiler was started
//! from (`start_call_stack`), and, when pyinstrument ran a script, its
//! launcher's frames (`<module>` of `<string>` and runpy's, down to
//! `_run_code`, which runs the script). A sample taken before the script
//! ran (the launcher's own start-up, its import machinery) is not the
//! program's: it is counted in a note, not in the tree.
//!
//! Frames: the function, its file, its first line as the start line and
//! the sampled line as the line, so the function is one frame and its
//! lines are the source pages' line costs (see
//! [`model::fold_sampled_lines`]). The metric is `time` in nanoseconds.

use serde::Deserialize;

use super::cpuprofile::json_error;
use super::sniff::{has_key, JsonHead};
use super::{text, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameTable, Metric, NodeId, Profile, Unit};

pub struct Pyisession;

impl Format for Pyisession {
    fn name(&self) -> &'static str {
        "pyisession"
    }

    /// A JSON object with pyinstrument's run summary (`duration`,
    /// `sample_count`) and a session's raw samples (`start_call_stack`
    /// or `frame_records`), not a report's `root_frame`.
    fn sniff(&self, input: &Input) -> bool {
        let Some(head) = JsonHead::object(input.bytes, 4096) else {
            return false;
        };
        let head = head.document();
        has_key(head, "sample_count")
            && has_key(head, "duration")
            && !has_key(head, "root_frame")
            && (has_key(head, "start_call_stack") || has_key(head, "frame_records"))
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let session: Session =
            serde_json::from_str(data.trim_start_matches('\u{feff}')).map_err(json_error)?;
        build(&session)
    }
}

#[derive(Deserialize)]
struct Session {
    duration: Option<f64>,
    sample_count: Option<f64>,
    cpu_time: Option<f64>,
    #[serde(default)]
    start_call_stack: Vec<String>,
    frame_records: Vec<(Vec<String>, f64)>,
}

/// One identifier, split.
struct Identifier<'a> {
    function: &'a str,
    file: &'a str,
    first_line: Option<u32>,
    class: Option<&'a str>,
    line: Option<u32>,
}

fn identifier(text: &str) -> Identifier<'_> {
    let mut attributes = text.split('\u{1}');
    let mut parts = attributes.next().unwrap_or_default().split('\0');
    let function = parts.next().unwrap_or_default();
    let file = parts.next().unwrap_or_default();
    let first_line = parts.next().and_then(line_number);
    let mut id = Identifier {
        function,
        file,
        first_line,
        class: None,
        line: None,
    };
    for attribute in attributes {
        match attribute.split_at_checked(1) {
            Some(("c", class)) if !class.is_empty() => id.class = Some(class),
            Some(("l", line)) => id.line = line_number(line),
            _ => {}
        }
    }
    id
}

fn line_number(text: &str) -> Option<u32> {
    text.parse().ok().filter(|&l| l > 0)
}

/// The identifier without its attributes: the frame, whatever line the
/// sample was at (how a record's start is matched to `start_call_stack`).
fn frame_key(text: &str) -> &str {
    text.split('\u{1}').next().unwrap_or_default()
}

/// pyinstrument's launcher: the code it runs a script through.
fn is_launcher(id: &Identifier) -> bool {
    id.file == "<string>"
        || id.file == "<frozen runpy>"
        || id.file.ends_with("/runpy.py")
        || id.file.ends_with("\\runpy.py")
}

/// The part of a record's stack that is the program's: past the thread,
/// the stack the profiler started from and the launcher's frames. Empty
/// for a sample of the launcher's own start-up: one whose launcher frames
/// do not end in runpy's `_run_code`, which runs the program.
fn program_part<'a>(stack: &'a [String], start: &[String]) -> &'a [String] {
    let is_thread = |s: Option<&String>| s.is_some_and(|s| identifier(s).file == "<thread>");
    // The thread, when the start stack does not list it itself.
    let mut at = usize::from(is_thread(stack.first()) && !is_thread(start.first()));
    let prefix = start
        .iter()
        .zip(&stack[at..])
        .take_while(|(a, b)| frame_key(a) == frame_key(b))
        .count();
    at += prefix;
    let from = at;
    while stack.get(at).is_some_and(|s| is_launcher(&identifier(s))) {
        at += 1;
    }
    let ran_program = at == from || identifier(&stack[at - 1]).function == "_run_code";
    match ran_program {
        true => &stack[at..],
        false => &[],
    }
}

fn build(session: &Session) -> Result<Parsed, ParseError> {
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(vec![Metric::new("time", Unit::Nanoseconds)]);
    let mut outside = (0usize, 0.0f64);
    for (i, (stack, seconds)) in session.frame_records.iter().enumerate() {
        if !seconds.is_finite() || *seconds < 0.0 {
            return Err(ParseError::json(
                format!("$.frame_records[{i}][1]"),
                format!("a sample's time must be a number of seconds ≥ 0, not {seconds}"),
            ));
        }
        let program = program_part(stack, &session.start_call_stack);
        if program.is_empty() {
            outside.0 += 1;
            outside.1 += seconds;
            continue;
        }
        let mut node = NodeId::ROOT;
        for text in program {
            node = profile
                .tree
                .child(node, frames.intern(frame(&identifier(text))));
        }
        profile.tree.add_self(node, 0, seconds * 1e9);
    }
    profile.notes.push(summary_note(session, outside));
    let (frames, profile) = model::fold_sampled_lines(frames, profile);
    Ok(Parsed::new(frames, profile))
}

fn frame(id: &Identifier) -> Frame {
    let mut frame = Frame::named(match id.class {
        Some(class) => format!("{class}.{}", id.function),
        None => id.function.to_string(),
    });
    frame.file = (!id.file.is_empty()).then(|| id.file.to_string());
    frame.start_line = id.first_line;
    frame.line = id.line.or(id.first_line);
    frame
}

/// "pyinstrument session: 205 samples over 1.793 s (CPU time 0.815 s);
/// 2 samples (0.010 s) in pyinstrument's launcher, left out."
fn summary_note(session: &Session, (count, seconds): (usize, f64)) -> String {
    let mut note = String::from("pyinstrument session");
    if let Some(samples) = session.sample_count {
        note.push_str(&format!(": {samples} samples"));
    }
    if let Some(duration) = session.duration {
        note.push_str(&format!(" over {duration:.3} s"));
    }
    if let Some(cpu) = session.cpu_time {
        note.push_str(&format!(" (CPU time {cpu:.3} s)"));
    }
    if count > 0 {
        let s = if count == 1 { "" } else { "s" };
        note.push_str(&format!(
            "; {count} sample{s} ({seconds:.3} s) ran in the profiler's launcher, not the program, and are left out"
        ));
    }
    note.push('.');
    note
}

#[cfg(test)]
mod tests;
