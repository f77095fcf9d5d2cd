//! JDK Flight Recorder allocation samples: the JSON that
//! `jfr print --json` writes, and binary `.jfr` recordings read through
//! that same command.
//!
//! ```text
//! {"recording": {"events": [
//!   {"type": "jdk.ObjectAllocationSample",
//!    "values": {"startTime": "2024-09-17T19:51:05.621768960+01:00",
//!               "objectClass": {"name": "java/lang/String", …},
//!               "weight": 2616,
//!               "stackTrace": {"truncated": false,
//!                              "frames": [{"method": {"type": {"name": "pkg/Class"},
//!                                                     "name": "method", …},
//!                                          "lineNumber": 12, …}, …]}, …}}, …]}}
//! ```
//!
//! Events of type `jdk.ObjectAllocationSample` (JDK 16 and later, on by
//! default) are read; so are `jdk.ObjectAllocationInNewTLAB` and
//! `jdk.ObjectAllocationOutsideTLAB` (JDK 11–15), but only from a file
//! without samples, since both describe the same allocations. Other event
//! types are counted and otherwise ignored; a file with no allocation
//! event at all is an error that says how to record one.
//!
//! Every event becomes one stack, root first (JFR writes the leaf first),
//! with frames named `pkg.Class.method`, one per method: the lines are
//! kept in the profile's line table (see [`model::fold_sampled_lines`]),
//! where the leaf's line is where the object was allocated. `"stackTrace": null` puts the
//! allocation at a frame `(no stack)`; a stack JFR cut short
//! (`"truncated": true`) gets a `(truncated stack)` frame at its root.
//! Class names are shown as Java reads them (`byte[]`, not `[B`; see
//! [`names::java_class_name`]).
//!
//! Metrics: `alloc_samples` (one per event) and, in bytes, `alloc_weight`
//! for samples (the event's `weight`) or `alloc_bytes` for TLAB events (the
//! `allocationSize`). The allocation sites list each class per allocating
//! context. A sample's weight is not the object's size: it is what the
//! thread allocated since its previous sample, which the page says.
//!
//! Events are sorted by `startTime` (parsed, since `OffsetDateTime` text
//! changes shape and offset) before the tree is built, so children appear
//! in the order they were first called, and the allocation data says so.
//!
//! A bad event (a missing class, a negative weight, a wrong type) is
//! skipped with a warning naming its JSON path; a document that is not a
//! recording at all, or invalid JSON, fails the file.
//!
//! `jfr print` keeps only 5 frames of every stack unless given
//! `--stack-depth`, and still writes `"truncated": false`; a file whose
//! deepest stack has exactly 5 frames gets a warning saying so.

mod events;
mod names;
mod tool;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use super::sniff::{self, JsonHead};
use super::{text, Format, Input, Parsed};
use events::{Event, Kind, Read};
use model::error::ParseError;
use model::{
    AllocationSite, Allocations, ClassSource, CountKind, Frame, FrameId, FrameTable, Metric,
    NodeId, Profile, Unit,
};
use names::Instant;

pub use names::java_class_name;
pub use tool::read_recording;

pub struct Jfr;

/// The first bytes of a binary recording.
const MAGIC: &[u8] = b"FLR\0";

/// How to turn a binary recording into what this reader takes.
pub const CONVERT: &str =
    "jfr print --json --stack-depth 2048 --events jdk.ObjectAllocationSample FILE > FILE.json";

/// What a sample's bytes mean, shown beside them.
pub const WEIGHT_NOTE: &str = "JFR weight: the bytes the thread allocated since its previous \
     sample, an estimate of the allocation pressure this sample stands for, not the size of \
     the sampled object";

/// Frame names for allocations without a whole stack.
pub const NO_STACK: &str = "(no stack)";
pub const TRUNCATED_STACK: &str = "(truncated stack)";

/// Frames per stack that `jfr print` keeps without `--stack-depth`.
const PRINT_DEFAULT_DEPTH: usize = 5;
/// Warnings listed one by one; further ones are counted.
const MAX_WARNINGS: usize = 100;
/// Other event types named in the "no allocation events" message.
const MAX_OTHER_TYPES: usize = 50;

/// True when `bytes` is a binary JFR recording.
pub fn is_binary_recording(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

impl Format for Jfr {
    fn name(&self) -> &'static str {
        "jfr"
    }

    fn sniff(&self, input: &Input) -> bool {
        if is_binary_recording(input.bytes) {
            return true;
        }
        if sniff::opening_byte(input.bytes) != Some(b'{') {
            return false;
        }
        let head = JsonHead::new(input.bytes, 4096);
        let compact: String = head.text().chars().filter(|c| !c.is_whitespace()).collect();
        compact.contains("\"recording\":{")
            && compact.contains("\"events\":[")
            && (compact.contains("\"type\":\"jdk.") || compact.contains("\"events\":[]"))
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        if is_binary_recording(input.bytes) {
            return Err(ParseError::whole(format!(
                "binary JFR recording: perfatlas reads these through the JDK's `jfr` tool, \
                 which needs the file itself (not gzipped); convert it yourself: {CONVERT}"
            )));
        }
        parse_json(input.bytes)
    }
}

/// Reads `jfr print --json` output from bytes.
pub fn parse_json(bytes: &[u8]) -> Result<Parsed, ParseError> {
    let data = text::decode_text(bytes);
    let data = data.trim_start_matches('\u{feff}');
    read_from(serde_json::de::StrRead::new(data))
}

/// Reads `jfr print --json` output from any JSON source, streaming.
fn read_from<'de, R: serde_json::de::Read<'de>>(reader: R) -> Result<Parsed, ParseError> {
    let mut builder = Builder::new();
    events::stream(reader, &mut |index, event| builder.event(index, &event))?;
    builder.finish()
}

/// An allocation event kept for the tree: its stack is interned, root first.
struct Pending {
    time: Instant,
    index: usize,
    class: String,
    bytes: f64,
    stack: Vec<FrameId>,
    /// Frames JFR recorded (markers not counted).
    depth: usize,
    truncated: bool,
}

struct Builder {
    frames: FrameTable,
    samples: Vec<Pending>,
    tlab: Vec<Pending>,
    /// Events of other types, by type (at most [`MAX_OTHER_TYPES`] names).
    others: BTreeMap<String, usize>,
    other_count: usize,
    warnings: Vec<ParseError>,
    unlisted_warnings: usize,
}

impl Builder {
    fn new() -> Builder {
        Builder {
            frames: FrameTable::new(),
            samples: Vec::new(),
            tlab: Vec::new(),
            others: BTreeMap::new(),
            other_count: 0,
            warnings: Vec::new(),
            unlisted_warnings: 0,
        }
    }

    fn event(&mut self, index: usize, event: &Value) {
        match events::read_event(index, event) {
            Ok(Read::Allocation(e)) => {
                let kind = e.kind;
                let pending = self.pending(index, e);
                match kind {
                    Kind::Sample => self.samples.push(pending),
                    Kind::Tlab => self.tlab.push(pending),
                }
            }
            Ok(Read::Other(kind)) => {
                self.other_count += 1;
                if self.others.len() < MAX_OTHER_TYPES || self.others.contains_key(&kind) {
                    *self.others.entry(kind).or_default() += 1;
                }
            }
            Err(problem) => self.warn(problem),
        }
    }

    fn warn(&mut self, problem: ParseError) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(problem);
        } else {
            self.unlisted_warnings += 1;
        }
    }

    fn pending(&mut self, index: usize, event: Event) -> Pending {
        let mut stack = Vec::new();
        let (depth, truncated) = match event.stack {
            None => {
                stack.push(self.frames.intern(Frame::named(NO_STACK)));
                (0, false)
            }
            Some(s) => {
                if s.truncated {
                    stack.push(self.frames.intern(Frame::named(TRUNCATED_STACK)));
                }
                let depth = s.frames.len();
                stack.extend(s.frames.into_iter().rev().map(|f| self.frames.intern(f)));
                (depth, s.truncated)
            }
        };
        Pending {
            time: event.time,
            index,
            class: event.class,
            bytes: event.bytes,
            stack,
            depth,
            truncated,
        }
    }

    fn finish(mut self) -> Result<Parsed, ParseError> {
        // Remarks on a recording read whole (see `Profile::notes`).
        let mut notes = Vec::new();
        let samples = std::mem::take(&mut self.samples);
        let tlab = std::mem::take(&mut self.tlab);
        let (kind, mut chosen) = if samples.is_empty() {
            (Kind::Tlab, tlab)
        } else {
            if !tlab.is_empty() {
                let (n, s) = (tlab.len(), if tlab.len() == 1 { "" } else { "s" });
                notes.push(format!(
                    "{n} TLAB allocation event{s} ({IN_NEW_TLAB}, {OUTSIDE_TLAB}) not counted: \
                     the recording also has {SAMPLE} events, which sample the same allocations",
                    IN_NEW_TLAB = events::IN_NEW_TLAB,
                    OUTSIDE_TLAB = events::OUTSIDE_TLAB,
                    SAMPLE = events::SAMPLE,
                ));
            }
            (Kind::Sample, samples)
        };
        if chosen.is_empty() {
            return Err(self.nothing_to_show());
        }
        if self.unlisted_warnings > 0 {
            self.warnings.push(ParseError::whole(format!(
                "{} more events were skipped (only the first {MAX_WARNINGS} are listed)",
                self.unlisted_warnings
            )));
        }
        notes.extend(print_depth_note(&chosen));
        chosen.sort_by_key(|p| (p.time, p.index));
        let mut profile = build_profile(kind, &chosen);
        profile.notes = notes;
        let (frames, profile) = model::fold_sampled_lines(self.frames, profile);
        let mut parsed = Parsed::new(frames, profile);
        parsed.warnings = self.warnings;
        Ok(parsed)
    }

    /// The error for a file without a readable allocation event.
    fn nothing_to_show(&self) -> ParseError {
        if let Some(first) = self.warnings.first() {
            let skipped = self.warnings.len() + self.unlisted_warnings;
            return ParseError::new(
                first.place.clone(),
                format!(
                    "no readable allocation event: {skipped} skipped, the first because: {}",
                    first.message
                ),
            );
        }
        let had = if self.other_count == 0 {
            " (it has no events at all)".to_string()
        } else {
            let listed: Vec<String> = self
                .others
                .iter()
                .map(|(kind, n)| format!("{kind} ×{n}"))
                .collect();
            let more = self.other_count - self.others.values().sum::<usize>();
            let more = if more > 0 {
                format!(" and {more} of other types")
            } else {
                String::new()
            };
            format!(" (it has only {}{more})", listed.join(", "))
        };
        ParseError::whole(format!(
            "no allocation events ({}) in this recording{had}; record with \
             -XX:StartFlightRecording and the default or profile settings (JDK 16 and \
             later; on JDK 11 to 15, settings=profile), and print them with: {CONVERT}",
            events::SAMPLE
        ))
    }
}

/// A note when the stacks look cut by `jfr print`'s default depth.
fn print_depth_note(events: &[Pending]) -> Option<String> {
    let deepest = events
        .iter()
        .filter(|p| !p.truncated)
        .map(|p| p.depth)
        .max()?;
    (deepest == PRINT_DEFAULT_DEPTH).then(|| {
        format!(
            "no stack is deeper than {PRINT_DEFAULT_DEPTH} frames, the default of `jfr print`: \
             the callers above them are probably missing; print the recording with \
             --stack-depth 2048 (e.g. {CONVERT})"
        )
    })
}

/// The tree, metrics and allocation sites of `events`, in time order.
fn build_profile(kind: Kind, events: &[Pending]) -> Profile {
    let bytes_metric = match kind {
        Kind::Sample => "alloc_weight",
        Kind::Tlab => "alloc_bytes",
    };
    let mut profile = Profile::new(vec![
        Metric::new("alloc_samples", Unit::Samples),
        Metric::new(bytes_metric, Unit::Bytes),
    ]);
    let mut alloc = Allocations::new(CountKind::Samples, true, ClassSource::Recorded);
    alloc.bytes_note = (kind == Kind::Sample).then(|| WEIGHT_NOTE.to_string());
    alloc.call_order = true;
    // (node, class) → index in `alloc.sites`, so each event is one lookup.
    let mut site_of: HashMap<(NodeId, u32), usize> = HashMap::new();
    for event in events {
        let node = profile.tree.path(event.stack.iter().copied());
        profile.tree.add_self(node, 0, 1.0);
        profile.tree.add_self(node, 1, event.bytes);
        let class = alloc.class(&event.class);
        match site_of.get(&(node, class)) {
            Some(&i) => {
                alloc.sites[i].count += 1.0;
                alloc.sites[i].bytes += event.bytes;
            }
            None => {
                site_of.insert((node, class), alloc.sites.len());
                alloc.sites.push(AllocationSite {
                    node,
                    class,
                    count: 1.0,
                    bytes: event.bytes,
                    live_count: None,
                    live_bytes: None,
                });
            }
        }
    }
    profile.allocations = Some(Box::new(alloc));
    profile
}
