//! Folded (collapsed) stacks, as written by FlameGraph's stackcollapse
//! scripts, inferno, async-profiler, py-spy (`--format raw`) and others:
//! one line per distinct stack, frames root-first separated by `;`, then a
//! space and a sample count.
//!
//! CRLF line ends and UTF-16 with a byte-order mark are accepted. A line
//! without a count, with a negative or non-numeric count, or with an empty
//! stack is skipped and reported with its line number. A frame written as
//! `name (file:line)` (py-spy) keeps its file; the line is where the
//! sample was taken, so a function is one frame whatever its lines, its
//! self values on those lines in the profile's line table (see
//! [`model::fold_sampled_lines`]).
//!
//! # async-profiler allocation output
//!
//! `asprof -e alloc -o collapsed` ends every stack with the allocated
//! class: `java/lang/Thread.run;Foo.bar;java.lang.String_[i] 12`, where
//! `_[i]` marks an object allocated in a new TLAB and `_[k]` one allocated
//! outside a TLAB (with HotSpot's TLAB callbacks; with JVMTI sampling some
//! versions write only `_[i]`, or `_[k]` for objects the VM itself
//! allocated). async-profiler writes such class names dotted (the
//! method frames keep the JVM's `/`), arrays as `byte[]` or
//! `java.lang.Object[]`, and hidden classes with a `/0x…` or `+0x…` suffix
//! (`Foo$$Lambda+0x00007f…`). The same suffixes mean something else in CPU
//! profiles: FlameGraph's `stackcollapse-perf.pl --all` and async-profiler
//! itself append `_[k]` to kernel frames and `_[i]` to inlined ones.
//!
//! A file is read as allocation output when, over the whole file:
//! - every stack's leaf ends in `_[i]` or `_[k]` (leaves that are wholly a
//!   bracketed pseudo-frame such as `[frame_buffer_overflow]` or
//!   `[unknown]` are let through, and count at that frame without a class),
//! - every such leaf, without its suffix, reads as a Java class name: an
//!   array (`[]` after a primitive type or a class name), or
//!   dot-separated identifiers (letters, digits, `_`, `$`) whose last part
//!   starts with a capital letter or holds a `$`, or a single capitalised
//!   identifier (a class in the default package), and
//! - at least one leaf is an array or a dotted class name.
//!
//! Kernel symbols fail the second test (`tcp_rtt_estimator`,
//! `finish_task_switch.isra.0`, `do_syscall_64` are lowercase or end in a
//! number), and so do method frames (`java/lang/String.hashCode` has a `/`,
//! C++ names have `::`), so a CPU profile, whose leaves are mostly user-space
//! frames without any suffix, is never taken for allocation output.
//!
//! Then each class leaf is removed from its stack: its count becomes the
//! self value of the allocating method (the frame before it, or the root
//! for a stack of the class alone) in the metric `alloc_samples`, and an
//! allocation site of that class, counted in samples, with no bytes. When
//! the file has any `_[k]` leaf, a second metric
//! `alloc_samples_outside_tlab` holds the part allocated outside a TLAB,
//! so class names stay one per type.
//!
//! Limits, all of which fall back to plain folded stacks or misname units:
//! - async-profiler counts samples by default and bytes with `--total`;
//!   the file cannot tell which, and the counts are taken as samples.
//! - With `--dot` (dotted method names) async-profiler writes class leaves
//!   without a suffix: such files read as plain folded stacks, the class a
//!   leaf frame.
//! - Classes whose simple name starts with a lowercase letter (and has no
//!   `$`) are not recognised, and the file reads as plain folded stacks.
//! - Lock profiles (`-e lock`) end their stacks with the lock's class and
//!   `_[i]` just like allocation output: they are read as allocations.
//! - A CPU profile whose every leaf carries `_[i]` or `_[k]` and looks like
//!   a class (say, inlined exported Go functions `pkg.Func_[i]` and
//!   nothing else) would be misread; real CPU profiles have other leaves.

use rustc_hash::FxHashMap;

#[cfg(test)]
use chunks::parse_chunks_folding;
use chunks::{parse_chunks, split_chunks, utf8_chunks, CHUNK_BYTES};

use super::{text, Format, Input, Parsed, Unfinished};
use model::error::ParseError;
use model::limits::{LimitHit, MAX_DEPTH};
use model::{
    Allocations, ClassSource, CountKind, Frame, FrameId, FrameTable, Metric, NodeId, Profile, Unit,
};

pub struct Folded;

impl Format for Folded {
    fn name(&self) -> &'static str {
        "folded"
    }

    /// Folded when at least half of the first 50 complete lines are
    /// `stack count` lines (comments and a few bad lines are tolerated;
    /// callgrind's `key: value` headers and `fl=` lines are not). When the
    /// first line is longer than the sniffing window (very deep stacks),
    /// the file's last line decides.
    fn sniff(&self, input: &Input) -> bool {
        let head = super::head(input.bytes, SNIFF_WINDOW);
        let text = text::decode_text(head);
        let lines = sniffed_lines(&text, input.bytes.len() > head.len());
        if lines.is_empty() && !text::is_utf16(input.bytes) {
            // The first line is longer than the window (a very deep
            // stack): it must read like frames, and the last line like a
            // folded line.
            let starts_like_stack =
                text.contains(';') && !text.trim_start().starts_with(['{', '[', '<']);
            let tail = &input.bytes[input.bytes.len().saturating_sub(SNIFF_TAIL)..];
            let tail = String::from_utf8_lossy(tail);
            return starts_like_stack
                && tail
                    .trim_end()
                    .rsplit('\n')
                    .next()
                    .is_some_and(|l| split_count(l).is_some());
        }
        if lines
            .first()
            .is_some_and(|l| super::callgrind::starts_like_callgrind(l))
        {
            return false;
        }
        let (valid, total) = stack_lines(&lines);
        valid > 0 && valid * 2 >= total
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        self.parse_unfinished(input).map(Unfinished::finish)
    }

    fn parse_unfinished(&self, input: &Input) -> Result<Unfinished, ParseError> {
        // Big files are read in chunks of whole lines on every core (chunk
        // boundaries depend on the size only, so the result does not
        // depend on the number of threads), then built into one tree in
        // file order, with one node per function from the start (the line
        // fold is done while the tree is built).
        let parsed = match utf8_chunks(input.bytes, CHUNK_BYTES) {
            Some(chunks) => parse_text(&chunks),
            None => parse_text(&split_chunks(&text::decode_text(input.bytes), CHUNK_BYTES)),
        }?;
        Ok(Unfinished::done(parsed))
    }
}

/// How much of the start of a file sniffing looks at.
const SNIFF_WINDOW: usize = 8192;

/// Bytes at a file's end whose last line decides when its first line is
/// longer than [`SNIFF_WINDOW`].
const SNIFF_TAIL: usize = 256;

/// The bytes that every format sniffs as it sniffs a whole file longer
/// than [`SNIFF_WINDOW`] and [`SNIFF_TAIL`] together, given the file's
/// first bytes (`head`, at least the window) and its last [`SNIFF_TAIL`]
/// bytes or more (`tail`): the other formats look at the first 8 KiB at
/// most, and folded stacks at the window and, when the first line is
/// longer, the file's last line.
pub(crate) fn sniffed_ends(head: &[u8], tail: &[u8]) -> Vec<u8> {
    let head = &head[..head.len().min(SNIFF_WINDOW)];
    let tail = &tail[tail.len().saturating_sub(SNIFF_TAIL)..];
    [head, tail].concat()
}

/// The first 50 non-blank lines of `text`, the start of a file (the last
/// left out when the file goes on past it: it may be cut short).
fn sniffed_lines(text: &str, cut: bool) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if cut {
        lines.pop();
    }
    lines
        .into_iter()
        .map(str::trim_end)
        .filter(|l| !l.trim_start().is_empty())
        .take(50)
        .collect()
}

/// How many of `lines` read as folded stacks, of how many.
fn stack_lines(lines: &[&str]) -> (usize, usize) {
    let valid = lines.iter().filter(|l| reads_as_stack(l)).count();
    (valid, lines.len())
}

/// How many of the first lines of a file read as folded stacks, of how
/// many were looked at: said when no format recognised the file.
pub fn stack_lines_at_start(bytes: &[u8]) -> (usize, usize) {
    let head = super::head(bytes, SNIFF_WINDOW);
    let text = text::decode_text(head);
    stack_lines(&sniffed_lines(&text, bytes.len() > head.len()))
}

/// A line that is a folded stack and count, with a stack that names a
/// frame: a stack of only digits and signs (`0 5`, `+3 2`, `* 4`) is a
/// cost line of some other format, not evidence of this one.
fn reads_as_stack(line: &str) -> bool {
    split_count(line).is_some_and(|(stack, _)| {
        !stack
            .trim()
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '*' | ' '))
    })
}

/// The profile of `chunks`, one frame per sampled line (before the line
/// fold).
fn parse_text(chunks: &[&str]) -> Result<Parsed, ParseError> {
    let mode = survey(chunks.iter().flat_map(|c| c.split('\n')));
    parse_chunks(chunks, mode)
}

/// How a file's stacks are read, decided once for the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Mode {
    /// Plain folded stacks: one `samples` metric.
    #[default]
    Samples,
    /// async-profiler allocation output (see the module doc); with a
    /// second metric for `_[k]` leaves when the file has any.
    Allocations { outside_tlab: bool },
}

impl Mode {
    fn metrics(self) -> Vec<Metric> {
        match self {
            Mode::Samples => vec![Metric::new("samples", Unit::Samples)],
            Mode::Allocations { outside_tlab } => {
                let mut metrics = vec![Metric::new("alloc_samples", Unit::Samples)];
                if outside_tlab {
                    metrics.push(Metric::new("alloc_samples_outside_tlab", Unit::Samples));
                }
                metrics
            }
        }
    }
}

/// Reads every line's leaf to decide whether the file is async-profiler
/// allocation output (the rule is in the module doc). Stops at the first
/// leaf that rules it out, so a CPU profile costs a line or two.
fn survey<'a>(lines: impl Iterator<Item = &'a str>) -> Mode {
    match read_leaves(lines) {
        Leaves::Classes {
            dotted: true,
            outside_tlab,
        } => Mode::Allocations { outside_tlab },
        _ => Mode::Samples,
    }
}

/// What the leaves of some lines say about allocation output.
#[derive(Debug, PartialEq, Eq)]
enum Leaves {
    /// A leaf is not a class: the file is not allocation output, whatever
    /// its other lines hold.
    NotAllocations,
    /// Every leaf is a class (or a pseudo-frame); whether one is an array
    /// or dotted, and whether one was allocated outside a TLAB.
    Classes { dotted: bool, outside_tlab: bool },
}

/// The leaves of `lines`, read up to the first that is not a class.
fn read_leaves<'a>(lines: impl Iterator<Item = &'a str>) -> Leaves {
    let (mut dotted, mut outside_tlab) = (false, false);
    for line in lines {
        let Some((stack, _)) = split_count(line.trim_end()) else {
            continue; // bad lines are reported when read
        };
        let (_, leaf) = split_leaf(stack);
        if leaf.is_empty() || is_pseudo_frame(leaf) {
            continue;
        }
        let Some((class, outside)) = class_leaf(leaf) else {
            return Leaves::NotAllocations;
        };
        match class_shape(class) {
            Shape::NotAClass => return Leaves::NotAllocations,
            Shape::Dotted => dotted = true,
            Shape::Simple => {}
        }
        outside_tlab |= outside;
    }
    Leaves::Classes {
        dotted,
        outside_tlab,
    }
}

/// `stack` without its leaf frame, and the leaf (trailing `;` ignored).
fn split_leaf(stack: &str) -> (&str, &str) {
    let stack = stack.trim_end_matches(';');
    match stack.rsplit_once(';') {
        Some((rest, leaf)) => (rest, leaf),
        None => ("", stack),
    }
}

/// async-profiler's pseudo-frames: `[unknown]`, `[frame_buffer_overflow]`,
/// `[main tid=1]`, …
fn is_pseudo_frame(frame: &str) -> bool {
    frame.starts_with('[') && frame.ends_with(']')
}

/// A leaf `Name_[i]` or `Name_[k]` whose name reads as a class: the name,
/// and whether it was allocated outside a TLAB (`_[k]`).
fn class_leaf(leaf: &str) -> Option<(&str, bool)> {
    let (name, outside) = match (leaf.strip_suffix("_[i]"), leaf.strip_suffix("_[k]")) {
        (Some(name), _) => (name, false),
        (_, Some(name)) => (name, true),
        _ => return None,
    };
    (class_shape(name) != Shape::NotAClass).then_some((name, outside))
}

/// How much a name looks like a Java class name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// An array, or a dotted name ending in a capitalised or `$` part.
    Dotted,
    /// One capitalised identifier: a class in the default package, but
    /// also what some kernel symbols look like (`SyS_write`).
    Simple,
    NotAClass,
}

const PRIMITIVES: [&str; 8] = [
    "boolean", "byte", "char", "short", "int", "long", "float", "double",
];

fn class_shape(name: &str) -> Shape {
    // Arrays: `byte[]`, `java.lang.String[][]`, `Foo[]`.
    let mut element = name;
    let mut dimensions = 0;
    while let Some(e) = element.strip_suffix("[]") {
        element = e;
        dimensions += 1;
    }
    if dimensions > 0 {
        return if PRIMITIVES.contains(&element) || class_shape(element) != Shape::NotAClass {
            Shape::Dotted
        } else {
            Shape::NotAClass
        };
    }
    // Hidden classes: `Foo$$Lambda$14/0x0000000800c02a00` (JDK 15+) or
    // `Foo$$Lambda+0x00007f6fdda4bac0` (JDK 21+).
    let body = match name.find(['/', '+']) {
        Some(i) => {
            let tail = &name[i + 1..];
            let hex_like = tail.starts_with(|c: char| c.is_ascii_digit())
                && tail.chars().all(|c| c.is_ascii_alphanumeric());
            if !hex_like {
                return Shape::NotAClass;
            }
            &name[..i]
        }
        None => name,
    };
    let identifier = |part: &str| {
        part.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
            && part
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    let parts: Vec<&str> = body.split('.').collect();
    if !parts.iter().all(|p| identifier(p)) {
        return Shape::NotAClass;
    }
    let last = parts[parts.len() - 1];
    let capitalised = last.starts_with(char::is_uppercase);
    match parts.len() {
        1 if capitalised => Shape::Simple,
        1 => Shape::NotAClass,
        _ if capitalised || last.contains('$') => Shape::Dotted,
        _ => Shape::NotAClass,
    }
}

/// Splits `stack count` at the last run of whitespace; `None` when the line
/// has no numeric count.
fn split_count(line: &str) -> Option<(&str, f64)> {
    let cut = line.rfind([' ', '\t'])?;
    let count: f64 = line[cut + 1..].parse().ok()?;
    Some((line[..cut].trim(), count))
}

/// Splits `name (file:line)` into its parts; other names stay whole.
pub fn frame_from_text(text: &str) -> Frame {
    match name_file_line(text) {
        Some((name, file, line)) => Frame {
            file: Some(file.to_string()),
            line: Some(line),
            ..named_frame(name)
        },
        None => named_frame(text),
    }
}

/// The name, file and line of a `name (file:line)` text.
fn name_file_line(text: &str) -> Option<(&str, &str, u32)> {
    let t = text.strip_suffix(')')?;
    let i = t.rfind(" (")?;
    let (file, line) = t[i + 2..].rsplit_once(':')?;
    let line = line.parse::<u32>().ok()?;
    (!file.is_empty()).then_some((&t[..i], file, line))
}

/// A frame of this name, demangled when it is a Rust or C++ symbol (as
/// `inferno-collapse-perf` and `stackcollapse-perf.pl` leave them with
/// `perf script --no-demangle`).
fn named_frame(name: &str) -> Frame {
    let (function, full_name) = super::names::symbol(name);
    Frame {
        function: function.into_owned(),
        full_name,
        ..Frame::default()
    }
}

/// One chunk's lines read into frame ids, before any tree is built.
/// Collapsed stacks are usually sorted, so consecutive lines share long
/// prefixes: each line keeps only how many leading frames it shares with
/// the line before (found by one comparison of the two lines' bytes) and
/// the ids of the frames after those.
struct ChunkStacks {
    /// Frame text → id, local to the chunk (a frame is made of its text
    /// only when the file's table has not seen the text: [`TreeBuilder`]).
    /// The keys are copies, one after another in an arena: comparing
    /// against the first occurrence in a big input would miss the cache
    /// on nearly every lookup, and the chunk's bytes can be reused once
    /// it is read (see [`stream`]).
    by_text: text_ids::TextIds,
    /// The text of each id, in `by_text`'s arena.
    texts: Vec<text_ids::Span>,
    lines: Vec<StackLine>,
    /// Allocation output: the class leaves' names, one after another.
    classes: String,
    /// The new frames of every line, one after the other.
    ids: Vec<FrameId>,
    warnings: Vec<ParseError>,
    /// Newlines in the chunk (line numbers of the next chunk start after).
    newlines: usize,
    mode: Mode,
    /// Where each non-empty frame of the last stack read ends, and their
    /// ids.
    previous_ends: Vec<usize>,
    path: Vec<FrameId>,
    /// What the line fold needs of each frame: its line, whether a node
    /// of the tree of lines would have it, and its weight there (see
    /// [`model::FoldWhileBuilding`]); whether any frame has a line.
    line_of: Vec<Option<u32>>,
    used: Vec<bool>,
    weight: Vec<f64>,
    any_line: bool,
}

/// One line that holds a stack.
struct StackLine {
    /// Leading frames shared with the previous stack of the chunk.
    shared: u32,
    /// End of this line's new frames in [`ChunkStacks::ids`].
    ids_end: u32,
    count: f64,
    /// Allocation output: the class leaf (in [`ChunkStacks::classes`]),
    /// and whether it was allocated outside a TLAB.
    class: Option<(text_ids::Span, bool)>,
    /// The line of the leaf's frame (of the frame the samples count in, past
    /// the depth limit).
    line: Option<u32>,
}

impl ChunkStacks {
    fn read(chunk: &str, mode: Mode) -> ChunkStacks {
        let mut out = ChunkStacks {
            by_text: text_ids::TextIds::default(),
            texts: Vec::new(),
            lines: Vec::new(),
            classes: String::new(),
            ids: Vec::new(),
            warnings: Vec::new(),
            newlines: 0,
            mode,
            previous_ends: Vec::new(),
            path: Vec::new(),
            line_of: Vec::new(),
            used: Vec::new(),
            weight: Vec::new(),
            any_line: false,
        };
        let mut pieces = 0;
        let mut previous = "";
        for (i, line) in chunk.split('\n').enumerate() {
            out.read_line(i + 1, line, &mut previous);
            pieces = i + 1;
        }
        out.newlines = pieces.saturating_sub(1);
        out
    }

    /// Reads line `number`; `previous` is the last stack read before it,
    /// and becomes this line's.
    fn read_line<'a>(&mut self, number: usize, line: &'a str, previous: &mut &'a str) {
        // Leading blanks matter: py-spy writes ` 4` for samples with no frames.
        let line = line.trim_end();
        if line.trim_start().is_empty() {
            return;
        }
        let Some((stack, count)) = split_count(line) else {
            self.warnings.push(ParseError::line(
                number,
                "expected `frame;frame;… count`, found no sample count; line skipped",
            ));
            return;
        };
        if !(count.is_finite() && count >= 0.0) {
            self.warnings.push(ParseError::line(
                number,
                format!("sample count {count} is not a non-negative number; line skipped"),
            ));
            return;
        }
        // Allocation output: the class leaf comes off the stack.
        let (stack, class) = match self.mode {
            Mode::Samples => (stack, None),
            Mode::Allocations { .. } => {
                let (rest, leaf) = split_leaf(stack);
                match class_leaf(leaf) {
                    Some((name, outside)) => (rest, Some((self.class_span(name), outside))),
                    None => (stack, None),
                }
            }
        };
        let shared = self.shared_frames(previous, stack);
        self.previous_ends.truncate(shared);
        self.path.truncate(shared);
        // The frames after the shared ones; an empty stack (a sample with
        // no frames) counts at the root.
        let from = match shared {
            0 => 0,
            n => self.previous_ends[n - 1],
        };
        let mut at = from;
        for part in stack[from..].split(';') {
            if self.previous_ends.len() > MAX_DEPTH as usize {
                // Cut by the tree at the depth limit: the frames past it
                // are not named (see `model::limits::MAX_DEPTH`).
                break;
            }
            let end = at + part.len();
            at = end + 1;
            if part.is_empty() {
                continue;
            }
            let id = match self.by_text.get(part) {
                Some(id) => id,
                None => self.new_frame(part),
            };
            self.ids.push(id);
            // A frame past the depth limit names no node: its samples count
            // in the cut node, which has its parent's frame.
            if self.previous_ends.len() < MAX_DEPTH as usize {
                self.used[id.0 as usize] = true;
            }
            self.previous_ends.push(end);
            self.path.push(id);
        }
        *previous = stack;
        let leaf = self.path.len().min(MAX_DEPTH as usize).checked_sub(1);
        let line = leaf.and_then(|i| self.line_of[self.path[i].0 as usize]);
        if self.any_line {
            self.weigh_path(count);
        }
        self.lines.push(StackLine {
            shared: shared as u32,
            ids_end: self.ids.len() as u32,
            count,
            class,
            line,
        });
    }

    /// The id of a frame text not seen before in this chunk.
    fn new_frame(&mut self, text: &str) -> FrameId {
        let line = name_file_line(text).map(|(_, _, line)| line);
        let id = FrameId(self.texts.len() as u32);
        self.texts.push(self.by_text.insert(text, id));
        self.line_of.push(line);
        self.used.push(false);
        self.weight.push(0.0);
        self.any_line |= line.is_some();
        id
    }

    /// `name` kept with the chunk's class leaves.
    fn class_span(&mut self, name: &str) -> text_ids::Span {
        text_ids::Span::push(&mut self.classes, name)
    }

    /// Adds `count` to the weight of every frame with a line on the
    /// current stack, once per node of the tree of lines it names (past
    /// the depth limit, the cut node names its parent's frame).
    fn weigh_path(&mut self, count: f64) {
        let last = MAX_DEPTH as usize - 1;
        for depth in 0..self.path.len() {
            let f = self.path[depth.min(last)].0 as usize;
            if self.line_of[f].is_some() {
                self.weight[f] += count;
            }
        }
    }

    /// How many leading non-empty frames `stack` shares with the previous
    /// stack, `previous`: those that end before the first byte where the two differ,
    /// or right at it when both stacks end a frame there.
    fn shared_frames(&self, previous: &str, stack: &str) -> usize {
        let (a, b) = (previous.as_bytes(), stack.as_bytes());
        let same = common_prefix(a, b);
        let ends_frame = |s: &[u8]| same == s.len() || s[same] == b';';
        let mut shared = self.previous_ends.partition_point(|&e| e < same);
        if self.previous_ends.get(shared) == Some(&same) && ends_frame(a) && ends_frame(b) {
            shared += 1;
        }
        shared
    }
}

/// Length of the longest common prefix of `a` and `b`, eight bytes at a
/// time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let word = |s: &[u8]| u64::from_le_bytes(s[i..i + 8].try_into().unwrap_or_default());
        let diff = word(a) ^ word(b);
        if diff != 0 {
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// Builds the profile from chunks read in file order: frames joined into
/// one table, stacks added to one tree.
struct TreeBuilder {
    mode: Mode,
    frames: FrameTable,
    profile: Option<Profile>,
    warnings: Vec<ParseError>,
    /// Lines before the current chunk.
    line_offset: usize,
    /// Allocation output only: the sites, and each class leaf's index.
    allocations: Option<Allocations>,
    class_of: FxHashMap<Box<str>, u32>,
    /// Frame text → id in `frames`, for the texts of the chunks added
    /// (copies: a chunk's bytes are gone once it is read).
    by_text: text_ids::TextIds,
    /// Nodes are one per function from the start.
    fold: model::FoldWhileBuilding,
}

impl TreeBuilder {
    fn new(mode: Mode, fold: model::FoldWhileBuilding) -> TreeBuilder {
        TreeBuilder {
            mode,
            fold,
            frames: FrameTable::new(),
            profile: None,
            warnings: Vec::new(),
            line_offset: 0,
            allocations: None,
            class_of: FxHashMap::default(),
            by_text: text_ids::TextIds::default(),
        }
    }

    /// The ids in `frames` of a chunk's frame texts (in the chunk's id
    /// order), a frame made and interned (as shown) only for a text the
    /// chunks before did not have: a frame is what its text reads as, and
    /// every chunk of a big profile names most of its functions again
    /// (making and interning them was most of a chunk's reading after its
    /// bytes, and 4 ms a chunk of this thread).
    fn absorb(&mut self, chunk: &ChunkStacks) -> Vec<FrameId> {
        let mut map = Vec::with_capacity(chunk.texts.len());
        for &span in &chunk.texts {
            let text = chunk.by_text.text(span);
            let id = match self.by_text.get(text) {
                Some(id) => id,
                None => {
                    let id = self.frames.intern_shown(frame_from_text(text));
                    self.by_text.insert(text, id);
                    id
                }
            };
            map.push(id);
        }
        map
    }

    /// Adds the next chunk: its frames, its stacks and its warnings.
    fn add(&mut self, mut chunk: ChunkStacks) -> Result<(), ParseError> {
        let offset = self.line_offset;
        self.warnings.extend(
            std::mem::take(&mut chunk.warnings)
                .into_iter()
                .map(|mut w| {
                    if let model::error::Place::Line(n) = &mut w.place {
                        *n += offset;
                    }
                    w
                }),
        );
        self.line_offset += chunk.newlines;
        let map = self.absorb(&chunk);
        if self.frames.over_limit() {
            return Err(ParseError::whole(LimitHit::Frames.message()));
        }
        self.fold.add_frames(&self.frames);
        for (i, &f) in map.iter().enumerate() {
            if chunk.used.get(i) == Some(&true) {
                self.fold.used(f);
            }
            if let Some(&w) = chunk.weight.get(i).filter(|w| **w != 0.0) {
                self.fold.weigh(f, w);
            }
        }
        let map: Vec<FrameId> = map.iter().map(|&f| self.fold.function(f)).collect();
        // Every frame of the chunk not shared with the line before may be
        // a new node (for sorted stacks nearly every one is).
        if !chunk.lines.is_empty() {
            let mode = self.mode;
            self.profile
                .get_or_insert_with(|| Profile::new(mode.metrics()))
                .tree
                .reserve_nodes(chunk.ids.len());
        }
        // The nodes of the previous stack's frames, the root first.
        let mut path: Vec<NodeId> = vec![NodeId::ROOT];
        let mut start = 0;
        for line in chunk.lines {
            let mode = self.mode;
            let profile = self
                .profile
                .get_or_insert_with(|| Profile::new(mode.metrics()));
            path.truncate(line.shared as usize + 1);
            let mut node = path[path.len() - 1];
            for id in &chunk.ids[start..line.ids_end as usize] {
                node = profile.tree.child(node, map[id.0 as usize]);
                path.push(node);
            }
            start = line.ids_end as usize;
            profile.tree.add_self(node, 0, line.count);
            if let Some(at) = line.line {
                let outside = matches!(
                    (line.class, mode),
                    (Some((_, true)), Mode::Allocations { outside_tlab: true })
                );
                let values = [line.count, if outside { line.count } else { 0.0 }];
                self.fold.sampled(node, at, values);
            }
            if let Some((name, outside_tlab)) = line.class {
                self.add_site(node, name.of(&chunk.classes), outside_tlab, line.count);
            }
        }
        Ok(())
    }

    /// Allocation output: `count` objects of class `name` at `node`.
    fn add_site(&mut self, node: NodeId, name: &str, outside_tlab: bool, count: f64) {
        let Mode::Allocations {
            outside_tlab: split,
        } = self.mode
        else {
            return;
        };
        if let (true, true, Some(profile)) = (outside_tlab, split, self.profile.as_mut()) {
            profile.tree.add_self(node, 1, count);
        }
        let alloc = self.allocations.get_or_insert_with(|| {
            Allocations::new(CountKind::Samples, false, ClassSource::Recorded)
        });
        let class = match self.class_of.get(name) {
            Some(&class) => class,
            None => {
                let class = alloc.class(name);
                self.class_of.insert(name.into(), class);
                class
            }
        };
        alloc.add(node, class, count, 0.0);
    }

    fn finish(self) -> Result<Parsed, ParseError> {
        match self.profile {
            Some(mut profile) => {
                profile.allocations = self.allocations.filter(|a| !a.is_empty()).map(Box::new);
                let (frames, profile) = self.fold.finish(self.frames, profile);
                Ok(Parsed {
                    frames,
                    profile,
                    warnings: self.warnings,
                    header: Default::default(),
                })
            }
            None => Err(self
                .warnings
                .into_iter()
                .next()
                .unwrap_or_else(|| ParseError::whole("no stacks found"))),
        }
    }
}

mod chunks;
pub mod stream;
mod text_ids;

#[cfg(test)]
mod tests;
