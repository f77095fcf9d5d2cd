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
                }
                None => {
                    let header_line = block.line;
                    self.warnings.push(ParseError::line(
                        number,
                        format!(
                            "expected a stack frame `<address> <symbol> (<library>)`, found {}; sample of line {header_line} skipped",
                            excerpt(trimmed)
                        ),
                    ));
                    self.state = State::Skipping;
                }
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
        Ok(Parsed {
            frames: self.frames,
            profile,
            warnings: self.warnings,
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
    let function = match (function, module) {
        ("" | "[unknown]", Some(m)) => format!("[{m}]"),
        ("", None) => "[unknown]".to_string(),
        (f, _) => super::names::demangle(f).into_owned(),
    };
    let frame = Frame {
        function,
        file: None,
        line: None,
        module: module.map(str::to_string),
        start_line: None,
        source_hash: None,
    };
    let id = frames.intern(frame);
    by_key.insert(key.clone(), id);
    id
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
mod tests {
    use super::*;
    use model::error::Place;

    fn parse(text: &str) -> Parsed {
        PerfScript
            .parse(&Input {
                file_name: "x.perf",
                bytes: text.as_bytes(),
            })
            .unwrap()
    }

    fn sniff(text: &str) -> bool {
        PerfScript.sniff(&Input {
            file_name: "x",
            bytes: text.as_bytes(),
        })
    }

    /// Reads a corpus file: the absolute path, else relative to the crate;
    /// `None` (with a note) when neither exists.
    use crate::test_support::corpus;

    fn parse_corpus(rel: &str) -> Option<Parsed> {
        let bytes = corpus(rel)?;
        let input = Input {
            file_name: rel,
            bytes: &bytes,
        };
        assert!(PerfScript.sniff(&input), "{rel} not sniffed as perf-script");
        let (format, parsed) = super::super::parse_bytes(rel, &bytes).unwrap();
        assert_eq!(format, "perf-script", "{rel}");
        Some(parsed)
    }

    fn metric(p: &Parsed, name: &str) -> Option<usize> {
        p.profile.metrics.iter().position(|m| m.name == name)
    }

    /// Distinct names of the root's children.
    fn roots(p: &Parsed) -> Vec<String> {
        let tree = &p.profile.tree;
        let mut names: Vec<String> = tree
            .children(NodeId::ROOT)
            .iter()
            .filter_map(|&n| tree.frame(n))
            .map(|f| p.frames.get(f).function.clone())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn header_variants() {
        let h = parse_header("java 10488  9962.502413:   10101010 cpu-clock: ").unwrap();
        assert_eq!(
            (h.comm, h.time_ns, h.period, h.event, h.inline_frame),
            (
                "java",
                9_962_502_413_000,
                Some(10101010.0),
                Some("cpu-clock"),
                None
            )
        );
        let h = parse_header("go  6157  1224.147545:     250000 cpu-clock:uhH: ").unwrap();
        assert_eq!(
            (h.comm, h.event, h.period),
            ("go", Some("cpu-clock"), Some(250000.0))
        );
        let h = parse_header("V8 WorkerThread 24636/25607 [000] 94564.109216: cycles:").unwrap();
        assert_eq!(
            (h.comm, h.event, h.period),
            ("V8 WorkerThread", Some("cycles"), None)
        );
        let h = parse_header("Thread 2 12688/12764 6544038.708352: cpu-clock:").unwrap();
        assert_eq!(h.comm, "Thread 2");
        let h = parse_header("           false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])").unwrap();
        assert_eq!(
            (h.comm, h.event, h.inline_frame),
            (
                "false",
                Some("cycles"),
                Some("ffffffff9b201293 [unknown] ([unknown])")
            )
        );
        let h =
            parse_header("perf 1 [001] 5.000000001: sched:sched_switch: prev_comm=perf").unwrap();
        assert_eq!(
            (h.event, h.period, h.time_ns),
            (Some("sched:sched_switch"), None, 5_000_000_001)
        );
        assert!(
            parse_header("\t    7f89e341d84f __GI___libc_write+0x4f (/usr/lib/libc-2.28.so)")
                .is_none()
        );
        assert!(parse_header("a;b 1").is_none());
        assert!(parse_header("java 12 99999999999999999999.5: cycles:").is_none());
    }

    #[test]
    fn frame_lines() {
        assert_eq!(
            parse_frame("\t    7f89e341d84f __GI___libc_write+0x4f (/usr/lib/libc-2.28.so)"),
            Some(("__GI___libc_write+0x4f", Some("/usr/lib/libc-2.28.so")))
        );
        assert_eq!(
            parse_frame(
                "\t 55d std::function<int (int, int)>::operator() (/home/user/genperf/perf_stacks)"
            ),
            Some((
                "std::function<int (int, int)>::operator()",
                Some("/home/user/genperf/perf_stacks")
            ))
        );
        assert_eq!(
            parse_frame("\t7f1e2215d058  (/lib/libc-2.15.so)"),
            Some(("", Some("/lib/libc-2.15.so")))
        );
        assert_eq!(
            parse_frame("  4004f4 main (/tmp/a.out (deleted))"),
            Some(("main", Some("/tmp/a.out (deleted)")))
        );
        assert_eq!(parse_frame("  4004f4 foo(int)"), Some(("foo(int)", None)));
        assert_eq!(parse_frame("  not-hex main (x)"), None);
        assert_eq!(strip_offset("main+0x1f"), "main");
        assert_eq!(strip_offset("a+0xzz"), "a+0xzz");
        assert_eq!(strip_offset("+0x10"), "+0x10");
        assert_eq!(module_of("/usr/lib/libc-2.28.so"), Some("libc-2.28.so"));
        assert_eq!(module_of("[kernel.kallsyms]"), Some("[kernel.kallsyms]"));
        assert_eq!(module_of("[unknown]"), None);
    }

    #[test]
    fn sniffs_perf_script_only() {
        assert!(sniff(
            "# ========\n# captured on: x\n#\njava 1 1.5: 1 cycles: \n\t  7f main+0x1 (/a/b)\n"
        ));
        assert!(sniff("   false 39654 19115.489713:          1 cycles:u:  ffffffff9b201293 [unknown] ([unknown])\n"));
        assert!(!sniff("a;b 1\na;c 2\n"));
        assert!(!sniff("java 1 1.5: 1 cycles: \n"));
        assert!(!sniff("java 1 1.5: 1 cycles: \nmain 3\n"));
        assert!(!sniff("{\"perfatlas\": 1}"));
    }

    #[test]
    fn builds_root_first_stacks_with_comm_metrics_and_timeline() {
        let p = parse(
            "app 7 [000] 10.000000: 1000 cpu-clock:\n\
             \t  3 leaf+0x1 (/usr/lib/libx.so)\n\
             \t  2 mid (/bin/app)\n\
             \t  1 [unknown] ([unknown])\n\
             \n\
             app 7 [001] 10.000500: 3000 cpu-clock:\n\
             \t  2 mid+0x3 (/bin/app)\n\
             \t  1 [unknown] ([unknown])\n",
        );
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let names: Vec<_> = p
            .profile
            .metrics
            .iter()
            .map(|m| (m.name.as_str(), m.unit.clone()))
            .collect();
        assert_eq!(
            names,
            vec![("samples", Unit::Samples), ("cpu-clock", Unit::Nanoseconds)]
        );
        assert_eq!(p.profile.totals(), vec![2.0, 4000.0]);
        let folded = crate::convert::to_folded(&p, 1);
        assert_eq!(
            folded,
            "app;[unknown];mid 3000\napp;[unknown];mid;leaf 1000\n"
        );
        let tl = &p.profile.timeline.as_ref().unwrap().samples;
        assert_eq!(tl.len(), 2);
        assert_eq!((tl[0].start_ns, tl[1].start_ns), (0.0, 500_000.0));
        let leaf = p.profile.tree.frame(tl[0].node).unwrap();
        assert_eq!(
            p.frames.get(leaf),
            &Frame {
                function: "leaf".into(),
                file: None,
                line: None,
                module: Some("libx.so".into()),
                start_line: None,
                source_hash: None,
            }
        );
        assert_eq!(
            p.frames
                .get(p.profile.tree.frame(tl[1].node).unwrap())
                .function,
            "mid"
        );
    }

    #[test]
    fn events_without_periods_or_mixed_get_their_own_metrics() {
        let p = parse(
            "a 1 1.0: 10 cycles:u:\n\t1 f (x)\n\n\
             a 1 2.0: 5 instructions:u:\n\t1 f (x)\n\n\
             a 1 3.0: 7 cycles:u:\n\t1 g (x)\n\n\
             a 1 4.0: page-faults:\n\t1 g (x)\n",
        );
        let names: Vec<_> = p.profile.metrics.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, vec!["samples", "cycles", "instructions"]);
        assert_eq!(p.profile.totals(), vec![4.0, 17.0, 5.0]);
        assert_eq!(p.profile.metrics[1].unit, Unit::Count);
    }

    #[test]
    fn bad_blocks_are_skipped_with_line_numbers() {
        let p = parse(
            "a 1 1.0: 1 cycles:\n\t1 f (x)\n\n\
             garbage here\n\t1 f (x)\n\n\
             a 1 2.0: 1 cycles:\n\t1 f (x)\n\tnot a frame\n\t2 g (x)\n\n\
             a 1 3.0: 1 cycles:\n\t1 g (x)\n",
        );
        let places: Vec<_> = p.warnings.iter().map(|w| w.place.clone()).collect();
        assert_eq!(places, vec![Place::Line(4), Place::Line(9)]);
        assert!(
            p.warnings[1].message.contains("sample of line 7 skipped"),
            "{}",
            p.warnings[1]
        );
        assert_eq!(p.profile.totals()[0], 2.0);
        assert_eq!(p.profile.timeline.as_ref().unwrap().samples.len(), 2);
    }

    #[test]
    fn no_valid_block_is_an_error() {
        let e = PerfScript
            .parse(&Input {
                file_name: "x",
                bytes: b"nothing here\n\t1 f (x)\n",
            })
            .unwrap_err();
        assert_eq!(e.place, Place::Line(1));
        let e = PerfScript
            .parse(&Input {
                file_name: "x",
                bytes: b"# only comments\n\n",
            })
            .unwrap_err();
        assert_eq!(e.place, Place::Whole);
    }

    #[test]
    fn never_panics_on_odd_bytes() {
        let inputs: [&[u8]; 8] = [
            b"a 1 1.\xff: 1 c:\n\t1 f (x)\n",
            b"a 1 1.0: 1 c:\n\t1 f ((((x)\n\t1 ) (\n\t1 ()\n",
            b"a 1 1.0:\n\t0x (x)\n\t\xf0\x9f\x92\xa9 \xe2\x80\x94 (\xc3\xa9)\n",
            b"\xfe\xff\x00a",
            b"a 1/ 1.0: c:\n",
            b"a 1 [] 1.0: +0x c:\n\t1 +0x (x)\n",
            b"x 1 0.0:",
            b"\t1 f+0x (x)\n\n1 1 1.1:",
        ];
        for bytes in inputs {
            let _ = PerfScript.sniff(&Input {
                file_name: "x",
                bytes,
            });
            let _ = PerfScript.parse(&Input {
                file_name: "x",
                bytes,
            });
        }
        // Deep stacks are handled without recursion.
        let mut deep = String::from("a 1 1.0: 1 c:\n");
        for i in 0..100_000 {
            deep.push_str(&format!("\t{i:x} f{} (x)\n", i % 7));
        }
        assert_eq!(parse(&deep).profile.tree.len(), 100_002);
    }

    // Independent sample counts, from the shell:
    //   grep -cE '^\s*\S.* [0-9]+(/[0-9]+)? +(\[[0-9]+\] +)?[0-9]+\.[0-9]+:' FILE
    // (the same as `grep -cE '^\S.*[0-9]+\.[0-9]+:' FILE` except for
    // single-line-stacks.txt, whose headers start with blanks).
    // Root names (first header word; no command name here has a space):
    //   grep -E 'HEADER_RE' FILE | awk '{print $1}' | sort -u
    // Period sums (the number after the timestamp):
    //   grep -E 'HEADER_RE' FILE | sed -E 's/.*[0-9]+\.[0-9]+: +//' | awk '{s += $1} END {printf "%d", s}'
    // where HEADER_RE is the pattern of the first command.
    #[test]
    fn corpus_inferno_collapse_perf() {
        // (file, samples, root names, (event metric, summed period))
        type Case<'a> = (&'a str, f64, &'a [&'a str], Option<(&'a str, f64)>);
        let cases: [Case; 6] = [
            (
                "inferno/collapse-perf/go-stacks.txt",
                5.0,
                &["go"],
                Some(("cpu-clock", 1_250_000.0)),
            ),
            (
                "inferno/collapse-perf/java-inline.txt",
                22.0,
                &["java"],
                Some(("cpu-clock", 222_222_220.0)),
            ),
            (
                "inferno/collapse-perf/cpp-stacks-std-function.txt",
                46.0,
                &["perf_stacks"],
                Some(("cycles", 80_567_950.0)),
            ),
            (
                "inferno/collapse-perf/single-line-stacks.txt",
                2.0,
                &["false"],
                Some(("cycles", 2.0)),
            ),
            (
                "inferno/collapse-perf/empty-line.txt",
                2.0,
                &["inline-counter"],
                Some(("cpu-clock", 500_000.0)),
            ),
            (
                "inferno/collapse-perf/single-event.txt",
                1.0,
                &["boa_cli"],
                Some(("cpu-clock", 10_101_010.0)),
            ),
        ];
        for (file, samples, comms, period) in cases {
            let Some(p) = parse_corpus(file) else {
                continue;
            };
            assert!(p.warnings.is_empty(), "{file}: {:?}", p.warnings);
            assert_eq!(p.profile.totals()[0], samples, "{file}");
            assert_eq!(roots(&p), comms.to_vec(), "{file}");
            if let Some((name, total)) = period {
                let m = metric(&p, name).unwrap_or_else(|| panic!("{file}: no metric {name}"));
                assert_eq!(p.profile.tree.total(m), total, "{file}");
            }
            assert_eq!(
                p.profile.timeline.as_ref().unwrap().samples.len() as f64,
                samples,
                "{file}"
            );
        }
    }

    #[test]
    fn corpus_empty_line_keeps_the_frames_after_the_blank() {
        let Some(p) = parse_corpus("inferno/collapse-perf/empty-line.txt") else {
            return;
        };
        let folded = crate::convert::to_folded(&p, 0);
        assert_eq!(folded, "inline-counter;main 2\n");
    }

    #[test]
    fn corpus_go_stacks_frames() {
        let Some(p) = parse_corpus("inferno/collapse-perf/go-stacks.txt") else {
            return;
        };
        let folded = crate::convert::to_folded(&p, 0);
        // First block of the file, root first.
        assert!(folded.lines().any(|l| l
            == "go;[unknown];x_cgo_notify_runtime_init_done;runtime.main;main.init;cmd/go/internal/base.init;\
                cmd/go/internal/cfg.init;go/build.init;go/doc.init;text/template.init;text/template.init.ializers;\
                text/template.createValueFuncs;text/template.addValueFuncs;runtime.mapassign_faststr 1"));
        let modules: std::collections::BTreeSet<_> = p
            .frames
            .iter()
            .filter_map(|(_, f)| f.module.clone())
            .collect();
        assert!(modules.contains("go"), "{modules:?}");
    }

    #[test]
    fn corpus_speedscope_linux_perf() {
        let cases: [(&str, f64, &[&str], &str, f64); 5] = [
            (
                "speedscope/linux-perf/simple.linux-perf.txt",
                1.0,
                &["simple-terminat"],
                "cpu-clock",
                1_001_001.0,
            ),
            (
                "speedscope/linux-perf/one-sample.linux-perf.txt",
                1.0,
                &["simple-terminat"],
                "cpu-clock",
                1_001_001.0,
            ),
            (
                "speedscope/linux-perf/simple-with-header.linux-perf.txt",
                136.0,
                &["simple-terminat"],
                "cpu-clock",
                136.0 * 1_001_001.0,
            ),
            (
                "speedscope/linux-perf/forks.linux-perf.txt",
                561.0,
                &["forks", "swapper"],
                "cpu-clock",
                561.0 * 1_001_001.0,
            ),
            (
                "speedscope/linux-perf/rust-mangled.linux-perf.txt",
                96.0,
                &["trace"],
                "task-clock",
                96.0 * 16_949_152.0,
            ),
        ];
        for (file, samples, comms, event, total) in cases {
            let Some(p) = parse_corpus(file) else {
                continue;
            };
            assert!(p.warnings.is_empty(), "{file}: {:?}", p.warnings);
            assert_eq!(p.profile.totals()[0], samples, "{file}");
            assert_eq!(roots(&p), comms.to_vec(), "{file}");
            let m = metric(&p, event).unwrap();
            assert_eq!(p.profile.metrics[m].unit, Unit::Nanoseconds);
            assert_eq!(p.profile.tree.total(m), total, "{file}");
        }
    }

    #[test]
    fn corpus_rust_symbols_are_demangled_and_timeline_starts_at_zero() {
        let Some(p) = parse_corpus("speedscope/linux-perf/rust-mangled.linux-perf.txt") else {
            return;
        };
        assert!(p
            .frames
            .iter()
            .any(|(_, f)| f.function == "std::rt::lang_start::<()>"));
        assert!(!p.frames.iter().any(|(_, f)| f.function.starts_with("_R")));
        let tl = &p.profile.timeline.as_ref().unwrap().samples;
        assert_eq!(tl[0].start_ns, 0.0);
        // 150521.008480 - 150520.991529 s
        assert_eq!(tl[1].start_ns, 16_951_000.0);
        assert!(tl
            .iter()
            .all(|s| s.start_ns >= 0.0 && p.profile.tree.frame(s.node).is_some()));
    }
}
