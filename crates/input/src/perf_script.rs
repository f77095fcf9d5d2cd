//! Linux `perf script` text output (the default fields of `perf script`
//! after `perf record -g`).
//!
//! Samples are blocks separated by blank lines. A block starts with a header
//!
//! ```text
//! java 10488  9962.502413:   10101010 cpu-clock:
//! V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:
//! ```
//!
//! (command name, which may contain spaces; pid or pid/tid; optional
//! `[cpu]`; timestamp in seconds with a colon; optional period; optional
//! event name with `:modifiers:`), followed by one line per frame, leaf
//! first: `<hex address> <symbol>+0x<offset> (<dso>)`. Without `-g` the
//! single frame is on the header line itself.
//!
//! Each block becomes one stack, root first, under a root-level frame named
//! after the command (as inferno's and FlameGraph's collapse-perf do by
//! default). Metrics: `samples` (one per block) and, per event name whose
//! headers all carry a period, a metric named after the event holding the
//! summed periods (nanoseconds for `cpu-clock` and `task-clock`, a count
//! otherwise). The timestamps become the profile's timeline.
//!
//! With `-F +srcline`, the `file:line` perf prints under a frame gives the
//! frame its file, and the line its sample was taken at goes to the
//! profile's line table: a function stays one frame (see
//! [`model::fold_sampled_lines`]).
//!
//! `# ` comment lines (`perf script --header`) are skipped. A block whose
//! header or frame lines cannot be read is skipped as a whole and reported
//! with its line number. Symbols are kept as perf printed them (mangled Rust
//! names stay mangled); only the `+0x…` offset is removed.

use std::collections::HashMap;

use super::{text, Format, Input, Parsed};
use model::error::ParseError;
use model::{Frame, FrameId, FrameTable, Metric, NodeId, Profile, Timeline, TimelineSample, Unit};

pub struct PerfScript;

impl Format for PerfScript {
    fn name(&self) -> &'static str {
        "perf-script"
    }

    fn sniff(&self, input: &Input) -> bool {
        let head = text::decode_text(super::head(input.bytes, 8192));
        let mut lines = head
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.trim_start().is_empty() && !l.trim_start().starts_with('#'));
        let Some(first) = lines.next() else {
            return false;
        };
        let Some(header) = parse_header(first) else {
            return false;
        };
        if header
            .inline_frame
            .is_some_and(|f| parse_frame(f).is_some())
        {
            return true;
        }
        // The next line must be an indented frame line (the head may cut a
        // line short, but the second line of a perf-script file is short).
        lines
            .next()
            .is_some_and(|l| l.starts_with([' ', '\t']) && parse_frame(l).is_some())
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let mut reader = Reader::default();
        for (i, line) in data.split('\n').enumerate() {
            reader.read_line(i + 1, line);
        }
        reader.finish()
    }
}

/// The parts of a sample header line.
#[derive(Debug, Clone, PartialEq)]
struct Header<'a> {
    comm: &'a str,
    /// Timestamp in nanoseconds.
    time_ns: u64,
    period: Option<f64>,
    /// Event name without modifiers (`cpu-clock` for `cpu-clock:uhH:`).
    event: Option<&'a str>,
    /// Text after the event: the only frame when the sample has no call
    /// chain, or tracepoint arguments.
    inline_frame: Option<&'a str>,
}

/// Words of `line` with their byte ranges.
fn words(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, line.len()));
    }
    out
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `1234` or `1234/5678`.
fn is_pid(s: &str) -> bool {
    match s.split_once('/') {
        Some((pid, tid)) => all_digits(pid) && all_digits(tid),
        None => all_digits(s),
    }
}

/// `[003]`.
fn is_cpu(s: &str) -> bool {
    s.strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .is_some_and(all_digits)
}

/// `9962.502413:` as nanoseconds; `None` when not a timestamp or too large.
fn timestamp_ns(s: &str) -> Option<u64> {
    let (secs, frac) = s.strip_suffix(':')?.split_once('.')?;
    if !all_digits(secs) || !all_digits(frac) {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    // Up to nanosecond precision; further digits are dropped.
    let mut nanos: u64 = 0;
    for i in 0..9 {
        let digit = frac.as_bytes().get(i).map_or(0, |b| u64::from(b - b'0'));
        nanos = nanos * 10 + digit;
    }
    secs.checked_mul(1_000_000_000)?.checked_add(nanos)
}

/// Modifier letters perf appends to event names (`cycles:uppp`).
fn is_modifier(s: &str) -> bool {
    !s.is_empty() && s.len() <= 8 && s.bytes().all(|b| b"ukhIGHpPSDWebx".contains(&b))
}

/// `cpu-clock:uhH:` → `cpu-clock`, `sched:sched_switch:` stays
/// `sched:sched_switch`.
fn event_name(token: &str) -> &str {
    let name = token.trim_end_matches(':');
    match name.rsplit_once(':') {
        Some((base, modifiers)) if !base.is_empty() && is_modifier(modifiers) => base,
        _ => name,
    }
}

fn parse_header(line: &str) -> Option<Header<'_>> {
    // Cheap rejection of most frame lines: a header has a `.digits:` time.
    if !line.contains(':') || !line.contains('.') {
        return None;
    }
    let w = words(line);
    let word = |i: usize| -> &str { w.get(i).map_or("", |&(s, e)| &line[s..e]) };
    // The command name may contain spaces and digits: the pid is the first
    // word after it that is followed by an optional `[cpu]` and a timestamp.
    for i in 1..w.len() {
        if !is_pid(word(i)) {
            continue;
        }
        let mut next = i + 1;
        if is_cpu(word(next)) {
            next += 1;
        }
        let Some(time_ns) = timestamp_ns(word(next)) else {
            continue;
        };
        let comm = line[..w[i].0].trim();
        next += 1;
        let mut period = None;
        let mut event = None;
        if all_digits(word(next)) && word(next + 1).ends_with(':') {
            period = word(next).parse::<f64>().ok();
            next += 1;
        }
        if word(next).ends_with(':') {
            event = Some(event_name(word(next))).filter(|e| !e.is_empty());
            next += 1;
        }
        let inline_frame = w
            .get(next)
            .map(|&(s, _)| line[s..].trim())
            .filter(|t| !t.is_empty());
        return Some(Header {
            comm,
            time_ns,
            period,
            event,
            inline_frame,
        });
    }
    None
}

/// A frame line `<hex address> <symbol> (<dso>)` as (symbol, dso). The
/// symbol may be empty and may contain spaces and parentheses; the dso is
/// the last balanced parenthesised group, preceded by a blank.
fn parse_frame(line: &str) -> Option<(&str, Option<&str>)> {
    let line = line.trim();
    let (address, rest) = match line.find(char::is_whitespace) {
        Some(i) => (&line[..i], &line[i..]),
        None => (line, ""),
    };
    let hex = address.strip_prefix("0x").unwrap_or(address);
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let rest = rest.trim();
    if let Some(open) = dso_start(rest) {
        let symbol = rest[..open].trim();
        let dso = &rest[open + 1..rest.len() - 1];
        return Some((symbol, Some(dso)));
    }
    Some((rest, None))
}

/// Byte index of the `(` opening the final balanced group of `s` when `s`
/// ends with `)` and that `(` starts `s` or follows a blank.
fn dso_start(s: &str) -> Option<usize> {
    if !s.ends_with(')') {
        return None;
    }
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate().rev() {
        match b {
            b')' => depth += 1,
            b'(' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    let before = s[..i].chars().next_back();
                    return match before {
                        None => Some(i),
                        Some(c) if c.is_whitespace() => Some(i),
                        Some(_) => None,
                    };
                }
            }
            _ => {}
        }
    }
    None
}

/// Drops a `+0x1f3` offset as perf writes it after symbol names.
fn strip_offset(symbol: &str) -> &str {
    match symbol.rfind("+0x") {
        Some(i)
            if i > 0
                && symbol[i + 3..].bytes().all(|b| b.is_ascii_hexdigit())
                && symbol.len() > i + 3 =>
        {
            &symbol[..i]
        }
        _ => symbol,
    }
}

/// The file name of a dso path; `None` for perf's placeholders.
fn module_of(dso: &str) -> Option<&str> {
    let dso = dso.trim();
    if dso.is_empty() || dso == "[unknown]" || dso == "inlined" {
        return None;
    }
    let base = dso.rsplit('/').next().unwrap_or(dso);
    Some(if base.is_empty() { dso } else { base })
}

/// One sample, its stack stored in [`Reader::stacks`].
struct Sample {
    /// Range in `stacks` (root first, command frame included).
    stack: (usize, usize),
    time_ns: u64,
    event: Option<usize>,
    period: Option<f64>,
}

struct Event {
    name: String,
    all_have_period: bool,
}

/// The block being read.
struct Block {
    line: usize,
    comm: FrameId,
    time_ns: u64,
    event: Option<usize>,
    period: Option<f64>,
    /// Leaf first, as perf prints them.
    frames: Vec<FrameId>,
    /// A blank line was seen after the header (some perf versions print one
    /// before the call chain).
    blank_seen: bool,
    /// The last frame had its srcline (`-F +srcline`) already.
    located: bool,
}

enum State {
    Idle,
    InBlock(Block),
    /// After a bad line: skip until a blank line or a header.
    Skipping,
}

struct Reader {
    frames: FrameTable,
    by_key: HashMap<String, FrameId>,
    key: String,
    events: Vec<Event>,
    event_index: HashMap<String, usize>,
    samples: Vec<Sample>,
    stacks: Vec<FrameId>,
    warnings: Vec<ParseError>,
    state: State,
    files: SourceFiles,
}

impl Default for Reader {
    fn default() -> Reader {
        Reader {
            frames: FrameTable::new(),
            by_key: HashMap::new(),
            key: String::new(),
            events: Vec::new(),
            event_index: HashMap::new(),
            samples: Vec::new(),
            stacks: Vec::new(),
            warnings: Vec::new(),
            state: State::Idle,
            files: SourceFiles::default(),
        }
    }
}

impl Reader {
    fn read_line(&mut self, number: usize, line: &str) {
        let line = line.trim_end();
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            return;
        }
        if trimmed.is_empty() {
            match &mut self.state {
                State::InBlock(block) if block.frames.is_empty() => block.blank_seen = true,
                State::InBlock(_) => self.end_block(),
                State::Skipping => self.state = State::Idle,
                State::Idle => {}
            }
            return;
        }
        if let Some(header) = parse_header(line) {
            self.end_block();
            self.start_block(number, header);
            return;
        }
        match &mut self.state {
            State::InBlock(block) => match parse_frame(line) {
                Some((symbol, dso)) => {
                    let id = intern(
                        &mut self.frames,
                        &mut self.by_key,
                        &mut self.key,
                        symbol,
                        dso,
                    );
                    block.frames.push(id);
                    block.located = false;
                }
                None if !block.frames.is_empty() && !block.located => {
                    match parse_srcline(trimmed) {
                        Some(at) => {
                            block.located = true;
                            if let Some(last) = block.frames.last_mut() {
                                *last = self.files.locate(&mut self.frames, *last, at);
                            }
                        }
                        None => self.skip_block(number, trimmed),
                    }
                }
                None => self.skip_block(number, trimmed),
            },
            State::Skipping => {}
            State::Idle => {
                let message = if parse_frame(line).is_some() {
                    "stack frame outside any sample (no header line before it); lines skipped up to the next blank line".to_string()
                } else {
                    format!(
                        "expected a sample header `command pid time: [period] event:`, found {}; lines skipped up to the next blank line",
                        excerpt(trimmed)
                    )
                };
                self.warnings.push(ParseError::line(number, message));
                self.state = State::Skipping;
            }
        }
    }

    /// Skips the block being read for its bad line `trimmed`.
    fn skip_block(&mut self, number: usize, trimmed: &str) {
        if let State::InBlock(block) = &self.state {
            let header_line = block.line;
            self.warnings.push(ParseError::line(
                        number,
                        format!(
                            "expected a stack frame `<address> <symbol> (<library>)`, found {}; sample of line {header_line} skipped",
                            excerpt(trimmed)
                        ),
                    ));
        }
        self.state = State::Skipping;
    }

    fn start_block(&mut self, number: usize, header: Header) {
        let comm = self.frames.intern(Frame::named(header.comm));
        let event = header.event.map(|name| match self.event_index.get(name) {
            Some(&i) => i,
            None => {
                self.events.push(Event {
                    name: name.to_string(),
                    all_have_period: true,
                });
                self.event_index
                    .insert(name.to_string(), self.events.len() - 1);
                self.events.len() - 1
            }
        });
        if let Some(e) = event {
            if header.period.is_none() {
                self.events[e].all_have_period = false;
            }
        }
        let mut block = Block {
            line: number,
            comm,
            time_ns: header.time_ns,
            event,
            period: header.period,
            frames: Vec::new(),
            blank_seen: false,
            located: false,
        };
        // Without a call chain the only frame is on the header line;
        // anything else there (tracepoint arguments) is not a frame.
        if let Some((symbol, dso)) = header.inline_frame.and_then(parse_frame) {
            block.frames.push(intern(
                &mut self.frames,
                &mut self.by_key,
                &mut self.key,
                symbol,
                dso,
            ));
        }
        self.state = State::InBlock(block);
    }

    /// Stores the block being read, if any.
    fn end_block(&mut self) {
        let State::InBlock(block) = std::mem::replace(&mut self.state, State::Idle) else {
            return;
        };
        let start = self.stacks.len();
        self.stacks.push(block.comm);
        self.stacks.extend(block.frames.iter().rev());
        self.samples.push(Sample {
            stack: (start, self.stacks.len()),
            time_ns: block.time_ns,
            event: block.event,
            period: block.period,
        });
    }

    fn finish(mut self) -> Result<Parsed, ParseError> {
        self.end_block();
        if self.samples.is_empty() {
            return Err(self
                .warnings
                .into_iter()
                .next()
                .unwrap_or_else(|| ParseError::whole("no perf script samples found")));
        }
        let mut metrics = vec![Metric::new("samples", Unit::Samples)];
        // For each event, its metric index when it has one.
        let mut event_metric = vec![None; self.events.len()];
        for (i, event) in self.events.iter().enumerate() {
            if event.all_have_period {
                let unit = match event.name.as_str() {
                    "cpu-clock" | "task-clock" => Unit::Nanoseconds,
                    _ => Unit::Count,
                };
                event_metric[i] = Some(metrics.len());
                metrics.push(Metric::new(event.name.clone(), unit));
            }
        }
        let mut profile = Profile::new(metrics);
        let first_ns = self.samples.iter().map(|s| s.time_ns).min().unwrap_or(0);
        let mut timeline = Vec::with_capacity(self.samples.len());
        let mut values = vec![0.0; profile.metrics.len()];
        for sample in &self.samples {
            values.iter_mut().for_each(|v| *v = 0.0);
            values[0] = 1.0;
            if let (Some(m), Some(period)) =
                (sample.event.and_then(|e| event_metric[e]), sample.period)
            {
                values[m] = period;
            }
            let stack = &self.stacks[sample.stack.0..sample.stack.1];
            let node: NodeId = profile.tree.add_stack(stack.iter().copied(), &values);
            timeline.push(TimelineSample {
                start_ns: (sample.time_ns - first_ns) as f64,
                duration_ns: 0.0,
                node,
            });
        }
        profile.timeline = Some(Timeline { samples: timeline });
        let (frames, profile) = model::fold_sampled_lines(self.frames, profile);
        Ok(Parsed {
            frames,
            profile,
            warnings: self.warnings,
            header: Default::default(),
        })
    }
}

/// Interns the frame for `symbol` in `dso`, reusing ids by text.
fn intern(
    frames: &mut FrameTable,
    by_key: &mut HashMap<String, FrameId>,
    key: &mut String,
    symbol: &str,
    dso: Option<&str>,
) -> FrameId {
    key.clear();
    key.push_str(symbol);
    key.push('\0');
    key.push_str(dso.unwrap_or("\0"));
    if let Some(&id) = by_key.get(key.as_str()) {
        return id;
    }
    let module = dso.and_then(module_of);
    let function = strip_offset(symbol);
    // As inferno's collapse-perf: an unknown symbol is named after its
    // library, so unknown frames of different libraries stay apart.
    let (function, full_name) = match (function, module) {
        ("" | "[unknown]", Some(m)) => (format!("[{m}]"), None),
        ("", None) => ("[unknown]".to_string(), None),
        (f, _) => {
            let (label, full) = super::names::symbol(f);
            (label.into_owned(), full)
        }
    };
    let frame = Frame {
        function,
        file: None,
        line: None,
        module: module.map(str::to_string),
        start_line: None,
        start_column: None,
        source_hash: None,
        full_name,
    };
    let id = frames.intern(frame);
    by_key.insert(key.clone(), id);
    id
}

/// A srcline as `perf script -F +srcline` prints it under a frame:
/// `Some(Some((file, line)))` for `file.c:12` (a ` (discriminator N)`
/// after it dropped), `Some(None)` for a place perf could not name (`??:0`,
/// `[kernel.kallsyms][ffffffff81000c82]`), `None` for any other text.
fn parse_srcline(text: &str) -> Option<Option<(&str, u32)>> {
    let text = match text.rfind(" (discriminator ") {
        Some(i) if text.ends_with(')') => &text[..i],
        _ => text,
    };
    if text.starts_with('[') && text.ends_with(']') || text == "??:?" {
        return Some(None);
    }
    let (file, line) = text.rsplit_once(':')?;
    if line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let line: u32 = line.parse().ok()?;
    Some((line > 0 && !file.is_empty() && file != "??").then_some((file, line)))
}

/// Frames with the srcline of their sample. A function is one file: the
/// first its srclines name (a line of code inlined from another file,
/// such as a header, keeps the frame without a line), so that joining a
/// function's lines leaves one frame per function.
#[derive(Default)]
struct SourceFiles {
    file_of: HashMap<FrameId, String>,
}

impl SourceFiles {
    /// Frame `base` (a symbol in its library) at `file:line`, or in its
    /// file at no known line when perf could not name the place.
    fn locate(
        &mut self,
        frames: &mut FrameTable,
        base: FrameId,
        at: Option<(&str, u32)>,
    ) -> FrameId {
        let first = match at {
            Some((file, _)) => self.file_of.entry(base).or_insert_with(|| file.to_string()),
            None => match self.file_of.get(&base) {
                Some(first) => first,
                None => return base,
            },
        };
        let located = Frame {
            file: Some(first.clone()),
            line: at.filter(|(file, _)| file == first).map(|(_, line)| line),
            ..frames.get(base).clone()
        };
        frames.intern(located)
    }
}

/// The start of a line for messages, cut at a character boundary.
fn excerpt(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        format!("`{s}`")
    } else {
        format!("`{}…`", s.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests;
