//! Valgrind DHAT profiles (`dhat.out.PID`, from `valgrind --tool=dhat`),
//! the JSON file DHAT's viewer (`dh_view.html`) loads:
//!
//! ```text
//! {"dhatFileVersion": 2, "mode": "heap" | "copy" | "ad-hoc", "verb": "Allocated",
//!  "bklt": true, "bkacc": true, "tu": "instrs", "cmd": "./prog", "pid": 1234,
//!  "te": …, "tg": …,
//!  "pps": [{"tb": bytes, "tbk": blocks, "tl": …, "mb", "mbk", "gb", "gbk",
//!           "eb", "ebk", "rb", "wb", "acc": […], "fs": [frame index, … innermost first]}, …],
//!  "ftbl": ["[root]", "0x1091B0: make_buffer (alloc.c:12)", …]}
//! ```
//!
//! Each program point (`pps[i]`) is one allocation stack with DHAT's own
//! totals for it; the file is DHAT's per-point summary, and its sums are
//! the figures DHAT prints on exit ("Total: N bytes in M blocks", "At
//! t-gmax: …", "At t-end: …"). A point becomes one stack of the tree, its
//! values the self values of its innermost frame.
//!
//! Metrics by mode:
//!
//! - `heap`: `total_bytes` (`tb`) and `total_blocks` (`tbk`), everything
//!   allocated; `peak_bytes` (`gb`), what was live at the global peak
//!   (t-gmax); `end_bytes` and `end_blocks` (`eb`, `ebk`), what was still
//!   live at exit (t-end). The last three exist only when DHAT tracked
//!   block lifetimes (`bklt`).
//!   `mb` (each point's own maximum, at a different time for each point),
//!   reads, writes and access counts are not read. Allocation sites are
//!   the allocating functions ([`model::ClassSource::AllocatingFunction`]),
//!   counted in blocks, sized in bytes, with `end_blocks` and `end_bytes`
//!   as what was still live.
//! - `copy`: `copied_bytes` (`tb`) and `copies` (`tbk`).
//! - `ad-hoc`: `units` (`tb`) and `events` (`tbk`), the weights and counts
//!   of `DHAT_AD_HOC_EVENT`.
//!
//! Frames are parsed from the `ftbl` strings ([`super::valgrind_frame`]).
//! `ftbl[0]` is DHAT's `[root]`, the root of its viewer's tree: a point
//! naming it has that frame skipped. The innermost frames in Valgrind's own
//! preloaded objects (its replacement `malloc`, `calloc`, `memcpy`, …) are
//! left out, as massif and `ms_print` leave out the allocation functions:
//! the allocating function is then the program's own caller, and the
//! allocation page names it instead of `malloc` for every site.

use serde::Deserialize;

use super::cpuprofile::json_error;
use super::sniff::{has_key, JsonHead};
use super::{text, valgrind_frame, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, Metric, Profile, Unit};

pub struct Dhat;

impl Format for Dhat {
    fn name(&self) -> &'static str {
        "dhat"
    }

    /// A JSON object with DHAT's `dhatFileVersion` key, which DHAT writes
    /// first.
    fn sniff(&self, input: &Input) -> bool {
        JsonHead::object(input.bytes, 4096)
            .is_some_and(|head| has_key(head.document(), "dhatFileVersion"))
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let data = data.trim_start_matches('\u{feff}');
        let raw: RawFile = serde_json::from_str(data).map_err(json_error)?;
        build(raw)
    }
}

/// The file as DHAT writes it, with the members perfatlas reads.
#[derive(Deserialize)]
struct RawFile {
    #[serde(rename = "dhatFileVersion")]
    version: u64,
    mode: String,
    /// Whether block lifetimes were tracked (`gb`, `eb` present).
    #[serde(default)]
    bklt: bool,
    pps: Vec<RawPoint>,
    ftbl: Vec<String>,
}

/// One program point.
#[derive(Deserialize)]
struct RawPoint {
    tb: u64,
    tbk: u64,
    gb: Option<u64>,
    eb: Option<u64>,
    ebk: Option<u64>,
    fs: Vec<u64>,
}

/// What a file's mode makes of `tb`, `tbk`, `gb` and `eb`.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Heap { lifetimes: bool },
    Copy,
    AdHoc,
}

impl Mode {
    fn of(raw: &RawFile) -> Result<Mode, ParseError> {
        match raw.mode.as_str() {
            "heap" => Ok(Mode::Heap {
                lifetimes: raw.bklt,
            }),
            "copy" => Ok(Mode::Copy),
            "ad-hoc" => Ok(Mode::AdHoc),
            other => Err(ParseError::json(
                "$.mode",
                format!(
                    "unknown DHAT mode {:?} (expected \"heap\", \"copy\" or \"ad-hoc\")",
                    model::visible(other)
                ),
            )),
        }
    }

    fn metrics(self) -> Vec<Metric> {
        match self {
            Mode::Heap { lifetimes } => {
                let mut metrics = vec![
                    Metric::new("total_bytes", Unit::Bytes),
                    Metric::new("total_blocks", Unit::Objects),
                ];
                if lifetimes {
                    metrics.push(Metric::new("peak_bytes", Unit::Bytes));
                    metrics.push(Metric::new("end_bytes", Unit::Bytes));
                    metrics.push(Metric::new("end_blocks", Unit::Objects));
                }
                metrics
            }
            Mode::Copy => vec![
                Metric::new("copied_bytes", Unit::Bytes),
                Metric::new("copies", Unit::Count),
            ],
            Mode::AdHoc => vec![
                Metric::new("units", Unit::Count),
                Metric::new("events", Unit::Count),
            ],
        }
    }

    /// The values of point `i`, in metric order.
    fn values(self, point: &RawPoint, i: usize) -> Result<Vec<f64>, ParseError> {
        let mut values = vec![point.tb as f64, point.tbk as f64];
        if self == (Mode::Heap { lifetimes: true }) {
            for (key, value) in [("gb", point.gb), ("eb", point.eb), ("ebk", point.ebk)] {
                let value = value.ok_or_else(|| {
                    ParseError::json(
                        format!("$.pps[{i}]"),
                        format!("the program point has no `{key}`, though the file tracked block lifetimes (`bklt`)"),
                    )
                })?;
                values.push(value as f64);
            }
        }
        Ok(values)
    }
}

fn build(raw: RawFile) -> Result<Parsed, ParseError> {
    let mode = Mode::of(&raw)?;
    let mut table = Table::new(&raw.ftbl);
    let mut profile = Profile::new(mode.metrics());
    if raw.version != 2 {
        profile.notes.push(format!(
            "dhatFileVersion {} (perfatlas was checked on version 2, as Valgrind 3.19 writes it)",
            raw.version
        ));
    }
    for (i, point) in raw.pps.iter().enumerate() {
        let stack = table.stack_of(point, i)?;
        let values = mode.values(point, i)?;
        profile.tree.add_stack(stack, &values);
    }
    let (frames, mut profile) = model::fold_sampled_lines(table.frames, profile);
    if let Mode::Heap { lifetimes } = mode {
        let end = match lifetimes {
            true => (Some(4), Some(3)),
            false => (None, None),
        };
        profile.allocations_by_function(&frames, Some(1), Some(0), end);
    }
    Ok(Parsed::new(frames, profile))
}

/// An `ftbl` entry.
enum Entry {
    /// DHAT's `[root]` (`ftbl[0]`).
    Root,
    /// A frame, and whether it is one of Valgrind's replacement functions.
    Frame(Frame, bool),
}

/// The `ftbl` entries, each frame interned the first time a point uses it
/// (so the profile has no frame that no stack holds).
struct Table {
    entries: Vec<Entry>,
    ids: Vec<Option<FrameId>>,
    frames: FrameTable,
}

impl Table {
    fn new(ftbl: &[String]) -> Table {
        let entries: Vec<Entry> = ftbl
            .iter()
            .enumerate()
            .map(|(i, text)| match i == 0 && text == "[root]" {
                true => Entry::Root,
                false => {
                    let frame = valgrind_frame::parse(text);
                    let replacement = valgrind_frame::is_tool_replacement(&frame);
                    Entry::Frame(frame, replacement)
                }
            })
            .collect();
        Table {
            ids: vec![None; entries.len()],
            entries,
            frames: FrameTable::new(),
        }
    }

    /// The stack of point `i`, outermost frame first, without `[root]`
    /// and the innermost replacement functions.
    fn stack_of(&mut self, point: &RawPoint, i: usize) -> Result<Vec<FrameId>, ParseError> {
        let mut stack = Vec::with_capacity(point.fs.len());
        for (j, &index) in point.fs.iter().enumerate() {
            let k = usize::try_from(index)
                .ok()
                .filter(|&k| k < self.entries.len())
                .ok_or_else(|| {
                    ParseError::json(
                        format!("$.pps[{i}].fs[{j}]"),
                        format!(
                            "frame index {index} is not in `ftbl`, which has {} frames",
                            self.entries.len()
                        ),
                    )
                })?;
            match &self.entries[k] {
                Entry::Root => {}
                Entry::Frame(_, true) if stack.is_empty() => {}
                Entry::Frame(frame, _) => {
                    let id = *self.ids[k].get_or_insert_with(|| self.frames.intern(frame.clone()));
                    stack.push(id);
                }
            }
        }
        stack.reverse();
        Ok(stack)
    }
}

#[cfg(test)]
mod tests;
