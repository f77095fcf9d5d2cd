//! pyinstrument's JSON report (`pyinstrument -r json -o out.json
//! script.py`, or `--load SESSION -r json`):
//!
//! ```text
//! {"start_time": …, "duration": seconds, "sample_count": n,
//!  "target_description": "Program: script.py", "cpu_time": seconds,
//!  "root_frame": {"function", "file_path_short", "file_path", "line_no",
//!                 "time": seconds, "await_time", "is_application_code",
//!                 "class_name"?, "group_id"?, "children": [ …same… ]}}
//! ```
//!
//! The report is pyinstrument's processed call tree (its default
//! processors drop importlib and pyinstrument's own frames and nodes below
//! its threshold; `--show-all` keeps more), not the raw samples. Each
//! frame becomes a node; the metric is `time` in nanoseconds, a node's
//! self value its `time` less its children's, so the tree's total is the
//! root's `time` and a node's inclusive value its `time`, as pyinstrument's
//! text report prints them. A child named `[self]` (pyinstrument's own
//! marker for the time a function spends in itself) adds to its parent's
//! self time instead of being a node. A child whose time is more than its
//! parent's, beyond the rounding of the six decimals pyinstrument writes,
//! is an error naming the frame.
//!
//! Frames: the function, prefixed with `class_name.` when there is one (as
//! the text report shows `JSONEncoder.encode`); `file_path` as the file
//! (`file_path_short` when it is empty); `line_no`, the line where the
//! function starts, as both line and start line. `await_time`,
//! `is_application_code` and `group_id` (the text report's collapsed
//! library groups) are not read. The run's duration, samples and CPU time
//! are a note on the profile.
//!
//! The tree is nested JSON, one object per frame: it is read with
//! [`super::json_pull`], so deep recursion reads like any other stack.
//!
//! A saved session (`-r pyisession`, `.pyisession`: the raw samples) is
//! read by [`super::pyisession`].

use super::json_pull::{Event, Pull};
use super::sniff::{has_key, JsonHead};
use super::{text, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameTable, Metric, NodeId, Profile, Unit};

pub struct Pyinstrument;

impl Format for Pyinstrument {
    fn name(&self) -> &'static str {
        "pyinstrument"
    }

    /// A JSON object whose first keys are pyinstrument's run summary
    /// (`duration`, `sample_count`) with a `root_frame` (a saved session
    /// is [`super::pyisession`]'s).
    fn sniff(&self, input: &Input) -> bool {
        let Some(head) = JsonHead::object(input.bytes, 4096) else {
            return false;
        };
        let head = head.document();
        has_key(head, "sample_count") && has_key(head, "duration") && has_key(head, "root_frame")
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let report = read(data.trim_start_matches('\u{feff}'))?;
        build(report)
    }
}

/// One frame of the tree, flattened (parents before children).
#[derive(Default)]
struct RawFrame {
    function: Option<String>,
    class_name: Option<String>,
    file_path: Option<String>,
    file_path_short: Option<String>,
    line_no: Option<f64>,
    time: Option<f64>,
    /// Index of the parent frame; `None` for `root_frame`.
    parent: Option<usize>,
    /// Position in the parent's `children`, for JSON paths.
    position: usize,
    has_children: bool,
}

/// The run's summary and its frames.
#[derive(Default)]
struct Report {
    duration: Option<f64>,
    sample_count: Option<f64>,
    cpu_time: Option<f64>,
    frames: Vec<RawFrame>,
    seen_root: bool,
}

/// Where the reader is.
enum Context {
    Top,
    /// A frame object.
    Frame(usize),
    /// A frame's `children`, with the position of the next child.
    Children(usize, usize),
}

fn read(data: &str) -> Result<Report, ParseError> {
    let mut pull = Pull::new(data);
    match next(&mut pull)? {
        Some(Event::ObjectStart) => {}
        Some(other) => {
            return Err(ParseError::json(
                "$",
                format!(
                    "expected pyinstrument's report object, found {}",
                    other.describe()
                ),
            ))
        }
        None => return Err(ParseError::whole("the file is empty")),
    }
    let mut report = Report::default();
    let mut stack = vec![Context::Top];
    while let Some(context) = stack.last_mut() {
        let Some(event) = next(&mut pull)? else {
            break;
        };
        let enter = match (context, event) {
            (Context::Top, Event::Key(key)) => top_member(&mut pull, &mut report, &key)?,
            (Context::Frame(i), Event::Key(key)) => {
                let i = *i;
                frame_member(&mut pull, &mut report, i, &key)?
            }
            (Context::Children(parent, position), Event::ObjectStart) => {
                let (parent, at) = (*parent, *position);
                *position += 1;
                report.frames.push(RawFrame {
                    parent: Some(parent),
                    position: at,
                    ..RawFrame::default()
                });
                Some(Context::Frame(report.frames.len() - 1))
            }
            (Context::Children(parent, position), Event::ArrayEnd) => {
                report.frames[*parent].has_children = *position > 0;
                stack.pop();
                continue;
            }
            (Context::Children(parent, position), other) => {
                return Err(ParseError::json(
                    format!("{}.children[{position}]", path(&report.frames, *parent)),
                    format!("expected a frame object, found {}", other.describe()),
                ))
            }
            (Context::Frame(i), _) => {
                check_frame(&report.frames, *i)?;
                stack.pop();
                continue;
            }
            (Context::Top, _) => {
                stack.pop();
                continue;
            }
        };
        if let Some(inner) = enter {
            stack.push(inner);
        }
    }
    if let Err(e) = pull.next_event() {
        return Err(pull.syntax(e));
    }
    if !report.seen_root {
        return Err(ParseError::json(
            "$",
            "expected a `root_frame` member holding the call tree (a pyinstrument JSON report)",
        ));
    }
    Ok(report)
}

fn next<'a>(pull: &mut Pull<'a>) -> Result<Option<Event<'a>>, ParseError> {
    pull.next_event().map_err(|e| pull.syntax(e))
}

/// The value of a member, which must not be the end of the data.
fn value<'a>(pull: &mut Pull<'a>) -> Result<Event<'a>, ParseError> {
    next(pull)?.ok_or_else(|| {
        pull.error_at(
            pull.offset(),
            "invalid JSON: unexpected end of the data (the file is truncated)",
        )
    })
}

fn skip(pull: &mut Pull) -> Result<Option<Context>, ParseError> {
    pull.skip_value().map_err(|e| pull.syntax(e))?;
    Ok(None)
}

/// A member of the report: the summary numbers or `root_frame`.
fn top_member(
    pull: &mut Pull,
    report: &mut Report,
    key: &str,
) -> Result<Option<Context>, ParseError> {
    let slot = match key {
        "duration" => &mut report.duration,
        "sample_count" => &mut report.sample_count,
        "cpu_time" => &mut report.cpu_time,
        "root_frame" => {
            return match value(pull)? {
                Event::ObjectStart if !report.seen_root => {
                    report.seen_root = true;
                    report.frames.push(RawFrame::default());
                    Ok(Some(Context::Frame(0)))
                }
                Event::Null if !report.seen_root => {
                    report.seen_root = true;
                    Ok(None)
                }
                Event::ObjectStart | Event::Null => {
                    Err(pull.error_at(pull.offset(), "`root_frame` is given twice"))
                }
                other => Err(ParseError::json(
                    "$.root_frame",
                    format!("expected a frame object, found {}", other.describe()),
                )),
            };
        }
        _ => return skip(pull),
    };
    match value(pull)? {
        Event::Number(n) => *slot = Some(n),
        Event::Null => {}
        other => {
            return Err(ParseError::json(
                format!("$.{key}"),
                format!("expected a number, found {}", other.describe()),
            ))
        }
    }
    Ok(None)
}

/// A member of frame `i`.
fn frame_member(
    pull: &mut Pull,
    report: &mut Report,
    i: usize,
    key: &str,
) -> Result<Option<Context>, ParseError> {
    let frames = &mut report.frames;
    let at = || format!("{}.{key}", path(frames, i));
    match key {
        "function" | "class_name" | "file_path" | "file_path_short" => {
            let text = match value(pull)? {
                Event::String(s) => s.into_owned(),
                Event::Null => return Ok(None),
                other => {
                    return Err(ParseError::json(
                        at(),
                        format!("expected a string, found {}", other.describe()),
                    ))
                }
            };
            let frame = &mut frames[i];
            let slot = match key {
                "function" => &mut frame.function,
                "class_name" => &mut frame.class_name,
                "file_path" => &mut frame.file_path,
                _ => &mut frame.file_path_short,
            };
            *slot = Some(text);
            Ok(None)
        }
        "line_no" | "time" => {
            let n = match value(pull)? {
                Event::Number(n) if n.is_finite() && n >= 0.0 => n,
                Event::Number(n) => {
                    return Err(ParseError::json(
                        at(),
                        format!("{n} is not a non-negative number"),
                    ))
                }
                other => {
                    return Err(ParseError::json(
                        at(),
                        format!("expected a number, found {}", other.describe()),
                    ))
                }
            };
            match key {
                "time" => frames[i].time = Some(n),
                _ => frames[i].line_no = Some(n),
            }
            Ok(None)
        }
        "children" => match value(pull)? {
            Event::ArrayStart => Ok(Some(Context::Children(i, 0))),
            Event::Null => Ok(None),
            other => Err(ParseError::json(
                at(),
                format!("expected an array of frames, found {}", other.describe()),
            )),
        },
        _ => skip(pull),
    }
}

/// A frame's object ended: it must have said its function and time.
fn check_frame(frames: &[RawFrame], i: usize) -> Result<(), ParseError> {
    let missing = match (&frames[i].function, frames[i].time) {
        (None, _) => "`function`",
        (_, None) => "`time`",
        _ => return Ok(()),
    };
    Err(ParseError::json(
        path(frames, i),
        format!("the frame has no {missing}"),
    ))
}

/// The JSON path of frame `i`, shortened in the middle for deep frames.
fn path(frames: &[RawFrame], i: usize) -> String {
    let mut steps = Vec::new();
    let mut at = i;
    while let Some(parent) = frames[at].parent {
        steps.push(frames[at].position);
        at = parent;
    }
    steps.reverse();
    const KEEP: usize = 8;
    let step = |s: &usize| format!(".children[{s}]");
    let mut text = String::from("$.root_frame");
    if steps.len() > 3 * KEEP {
        steps[..KEEP].iter().for_each(|s| text.push_str(&step(s)));
        text.push_str(&format!(".…{} levels…", steps.len() - 2 * KEEP));
        steps[steps.len() - KEEP..]
            .iter()
            .for_each(|s| text.push_str(&step(s)));
    } else {
        steps.iter().for_each(|s| text.push_str(&step(s)));
    }
    text
}

/// True for pyinstrument's `[self]` marker: its time is its parent's own.
fn is_self_marker(frame: &RawFrame) -> bool {
    frame.function.as_deref() == Some("[self]")
        && frame.parent.is_some()
        && !frame.has_children
        && frame.file_path.as_deref().unwrap_or("").is_empty()
}

/// Seconds as whole nanoseconds.
fn nanoseconds(seconds: f64) -> f64 {
    (seconds * 1e9).round()
}

fn build(report: Report) -> Result<Parsed, ParseError> {
    let raw = &report.frames;
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(vec![Metric::new("time", Unit::Nanoseconds)]);
    let mut children_time = vec![0.0; raw.len()];
    let mut children = vec![0usize; raw.len()];
    for frame in raw.iter().filter(|f| !is_self_marker(f)) {
        if let Some(p) = frame.parent {
            children_time[p] += nanoseconds(frame.time.unwrap_or(0.0));
            children[p] += 1;
        }
    }
    let mut nodes: Vec<NodeId> = Vec::with_capacity(raw.len());
    for (i, frame) in raw.iter().enumerate() {
        let parent = frame.parent.map_or(NodeId::ROOT, |p| nodes[p]);
        if is_self_marker(frame) {
            nodes.push(parent);
            continue;
        }
        let node = profile
            .tree
            .child(parent, frames.intern(model_frame(frame)));
        nodes.push(node);
        let time = nanoseconds(frame.time.unwrap_or(0.0));
        let own = time - children_time[i];
        // Each of the times is rounded to a microsecond.
        let rounding = 1e3 * (children[i] as f64 + 1.0);
        if own < -rounding {
            return Err(ParseError::json(
                format!("{}.time", path(raw, i)),
                format!(
                    "the frame's children take {:.6} s, more than its own time of {:.6} s",
                    children_time[i] / 1e9,
                    time / 1e9
                ),
            ));
        }
        profile.tree.add_self(node, 0, own.max(0.0));
    }
    profile.notes.push(summary_note(&report));
    Ok(Parsed::new(frames, profile))
}

fn model_frame(raw: &RawFrame) -> Frame {
    let function = raw.function.as_deref().unwrap_or_default();
    let mut frame = Frame::named(match &raw.class_name {
        Some(class) if !class.is_empty() => format!("{class}.{function}"),
        _ => function.to_string(),
    });
    let file = [&raw.file_path, &raw.file_path_short]
        .into_iter()
        .flatten()
        .find(|f| !f.is_empty());
    frame.file = file.cloned();
    let line = raw
        .line_no
        .filter(|&l| l >= 1.0 && l <= f64::from(u32::MAX))
        .map(|l| l as u32);
    frame.line = line;
    frame.start_line = line;
    frame
}

/// "pyinstrument: 205 samples over 1.793 s (CPU time 0.815 s)."
fn summary_note(report: &Report) -> String {
    let mut note = String::from("pyinstrument's report");
    if let Some(samples) = report.sample_count {
        note.push_str(&format!(": {samples} samples"));
    }
    if let Some(duration) = report.duration {
        note.push_str(&format!(" over {duration:.3} s"));
    }
    if let Some(cpu) = report.cpu_time {
        note.push_str(&format!(" (CPU time {cpu:.3} s)"));
    }
    if !report.frames.is_empty() {
        note.push_str("; the tree is pyinstrument's processed one, as its JSON report holds it");
    } else {
        note.push_str("; no frames (`root_frame` is null)");
    }
    note.push('.');
    note
}

#[cfg(test)]
mod tests;
