//! Folded (collapsed) stacks, as written by FlameGraph's stackcollapse
//! scripts, inferno, async-profiler, py-spy (`--format raw`) and others:
//! one line per distinct stack, frames root-first separated by `;`, then a
//! space and a sample count.
//!
//! CRLF line ends and UTF-16 with a byte-order mark are accepted. A line
//! without a count, with a negative or non-numeric count, or with an empty
//! stack is skipped and reported with its line number. A frame written as
//! `name (file:line)` (py-spy) keeps its file and line.

use rustc_hash::FxHashMap;

use super::{text, Format, Input, Parsed};
use crate::error::ParseError;
use crate::model::{Frame, FrameId, FrameTable, Metric, NodeId, Profile, Unit};

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
        const WINDOW: usize = 8192;
        let head = super::head(input.bytes, WINDOW);
        let text = text::decode_text(head);
        let mut lines: Vec<&str> = text.split('\n').collect();
        if input.bytes.len() > head.len() {
            lines.pop(); // may be cut short
        }
        let lines: Vec<&str> = lines
            .into_iter()
            .map(str::trim_end)
            .filter(|l| !l.trim_start().is_empty())
            .take(50)
            .collect();
        if lines.is_empty() && !text::is_utf16(input.bytes) {
            // The first line is longer than the window (a very deep
            // stack): it must read like frames, and the last line like a
            // folded line.
            let starts_like_stack =
                text.contains(';') && !text.trim_start().starts_with(['{', '[', '<']);
            let tail = &input.bytes[input.bytes.len().saturating_sub(256)..];
            let tail = String::from_utf8_lossy(tail);
            return starts_like_stack
                && tail
                    .trim_end()
                    .rsplit('\n')
                    .next()
                    .is_some_and(|l| split_count(l).is_some());
        }
        let valid = lines.iter().filter(|l| split_count(l).is_some()).count();
        valid > 0 && valid * 2 >= lines.len()
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let chunks = split_chunks(&data, CHUNK_BYTES);
        if chunks.len() == 1 {
            return read_chunk(&data).0.finish();
        }
        // Big files: chunks of whole lines parsed in parallel, then merged
        // in file order (chunk boundaries depend on the size only, so the
        // result does not depend on the number of threads).
        use rayon::prelude::*;
        let parts: Vec<(FoldedReader, usize)> = chunks.par_iter().map(|c| read_chunk(c)).collect();
        merge_chunks(parts)
    }
}

/// Files larger than twice this are parsed in chunks of about this size.
const CHUNK_BYTES: usize = 16 << 20;

/// `data` cut after a newline roughly every `size` bytes.
fn split_chunks(data: &str, size: usize) -> Vec<&str> {
    if data.len() < 2 * size {
        return vec![data];
    }
    let mut chunks = Vec::new();
    let mut rest = data;
    while rest.len() > size {
        let Some(cut) = rest[size..].find('\n') else {
            break;
        };
        let (head, tail) = rest.split_at(size + cut + 1);
        chunks.push(head);
        rest = tail;
    }
    if !rest.is_empty() {
        chunks.push(rest);
    }
    chunks
}

/// Reads one chunk; also returns how many newlines it holds.
fn read_chunk(chunk: &str) -> (FoldedReader<'_>, usize) {
    let mut reader = FoldedReader {
        frames: FrameTable::new(),
        ..FoldedReader::default()
    };
    let mut pieces = 0;
    for (i, line) in chunk.split('\n').enumerate() {
        reader.read_line(i + 1, line);
        pieces = i + 1;
    }
    (reader, pieces.saturating_sub(1))
}

/// Merges chunk readers in order: frames absorbed, trees merged by path,
/// warnings' line numbers made absolute.
fn merge_chunks(parts: Vec<(FoldedReader, usize)>) -> Result<Parsed, ParseError> {
    let mut base: Option<(FrameTable, Profile)> = None;
    let mut warnings = Vec::new();
    let mut offset = 0;
    for (reader, newlines) in parts {
        warnings.extend(reader.warnings.into_iter().map(|mut w| {
            if let crate::error::Place::Line(n) = &mut w.place {
                *n += offset;
            }
            w
        }));
        offset += newlines;
        let Some(profile) = reader.profile else {
            continue;
        };
        match &mut base {
            None => base = Some((reader.frames, profile)),
            Some((frames, into)) => {
                let map = frames.absorb(reader.frames);
                into.tree.absorb(&profile.tree, &map);
            }
        }
    }
    match base {
        Some((frames, profile)) => Ok(Parsed {
            frames,
            profile,
            warnings,
        }),
        None => Err(warnings
            .into_iter()
            .next()
            .unwrap_or_else(|| ParseError::whole("no stacks found"))),
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
    if let Some(open) = text
        .strip_suffix(')')
        .and_then(|t| t.rfind(" (").map(|i| (i, t)))
    {
        let (i, t) = open;
        let inner = &t[i + 2..];
        if let Some((file, line)) = inner.rsplit_once(':') {
            if let Ok(line) = line.parse::<u32>() {
                if !file.is_empty() {
                    return Frame {
                        function: t[..i].to_string(),
                        file: Some(file.to_string()),
                        line: Some(line),
                        module: None,
                        start_line: None,
                        source_hash: None,
                    };
                }
            }
        }
    }
    Frame::named(text)
}

/// Reads lines into one profile. Collapsed stacks are usually sorted, so
/// consecutive lines share long prefixes: the frames and tree nodes of the
/// previous line are reused up to the first frame that differs.
#[derive(Default)]
struct FoldedReader<'a> {
    frames: FrameTable,
    by_text: FxHashMap<&'a str, FrameId>,
    profile: Option<Profile>,
    previous: Vec<(&'a str, NodeId)>,
    warnings: Vec<ParseError>,
}

impl<'a> FoldedReader<'a> {
    fn read_line(&mut self, number: usize, line: &'a str) {
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
        let profile = self
            .profile
            .get_or_insert_with(|| Profile::new(vec![Metric::new("samples", Unit::Samples)]));
        let mut node = NodeId::ROOT;
        let mut depth = 0;
        // An empty stack (a sample with no frames) counts at the root.
        for part in stack.split(';').filter(|p| !p.is_empty()) {
            match self.previous.get(depth) {
                Some(&(text, n)) if text == part => node = n,
                _ => {
                    self.previous.truncate(depth);
                    let frame = match self.by_text.get(part) {
                        Some(&id) => id,
                        None => {
                            let id = self.frames.intern(frame_from_text(part));
                            self.by_text.insert(part, id);
                            id
                        }
                    };
                    node = profile.tree.child(node, frame);
                    self.previous.push((part, node));
                }
            }
            depth += 1;
        }
        self.previous.truncate(depth);
        profile.tree.add_self(node, 0, count);
    }

    fn finish(self) -> Result<Parsed, ParseError> {
        match self.profile {
            Some(profile) => Ok(Parsed {
                frames: self.frames,
                profile,
                warnings: self.warnings,
            }),
            None => Err(self
                .warnings
                .into_iter()
                .next()
                .unwrap_or_else(|| ParseError::whole("no stacks found"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Parsed {
        Folded
            .parse(&Input {
                file_name: "x.folded",
                bytes: text.as_bytes(),
            })
            .unwrap()
    }

    // First lines of ../shared/corpus/speedscope/stackcollapse/simple.txt
    #[test]
    fn merges_paths_and_counts_samples() {
        let p = parse("a;b;c 1\r\na;b;c 1\na;b;d 4\na;b;c 3\na;b 5\n");
        assert_eq!(p.profile.tree.total(0), 14.0);
        let a = p.profile.tree.children(NodeId::ROOT)[0];
        assert_eq!(p.frames.get(p.profile.tree.frame(a).unwrap()).function, "a");
        assert_eq!(p.profile.tree.inclusive(0)[a.index()], 14.0);
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn chunked_parsing_gives_the_same_profile_and_line_numbers() {
        let mut text = String::new();
        for i in 0..3_000 {
            text.push_str(&format!("main;f{};g{} {}\n", i % 17, i % 5, 1 + i % 3));
            if i == 2_500 {
                text.push_str("not a count\n");
            }
        }
        let whole = parse(&text);
        let (whole_tree, whole_frames) = (&whole.profile.tree, &whole.frames);
        let parts: Vec<(FoldedReader, usize)> = split_chunks(&text, 4096)
            .iter()
            .map(|c| read_chunk(c))
            .collect();
        assert!(parts.len() > 5);
        let chunked = merge_chunks(parts).unwrap();
        assert_eq!(chunked.profile.tree.total(0), whole_tree.total(0));
        assert_eq!(chunked.profile.tree.len(), whole_tree.len());
        assert_eq!(chunked.frames.len(), whole_frames.len());
        let lines = |p: &Parsed| {
            p.warnings
                .iter()
                .map(|w| w.place.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(lines(&chunked), lines(&whole));
        assert_eq!(lines(&whole), vec![crate::error::Place::Line(2_502)]);
    }

    #[test]
    fn bad_lines_are_skipped_with_their_line_number() {
        let p = parse("a;b 1\nnot a count\na;c -3\n 7\na;b 2\n");
        let lines: Vec<_> = p.warnings.iter().map(|w| w.place.clone()).collect();
        use crate::error::Place::Line;
        assert_eq!(lines, vec![Line(2), Line(3)]);
        // ` 7` is py-spy's sample without frames: it counts at the root.
        assert_eq!(p.profile.tree.total(0), 10.0);
        assert_eq!(p.profile.tree.self_value(NodeId::ROOT, 0), 7.0);
    }

    #[test]
    fn py_spy_frames_keep_file_and_line() {
        let f = frame_from_text("convert (markdown/core.py:250)");
        assert_eq!(
            (f.function.as_str(), f.file.as_deref(), f.line),
            ("convert", Some("markdown/core.py"), Some(250))
        );
        assert_eq!(
            frame_from_text("<module> (bench.py:3)").function,
            "<module>"
        );
        assert_eq!(frame_from_text("f (x)").function, "f (x)");
    }

    #[test]
    fn file_without_any_stack_is_an_error() {
        let e = Folded
            .parse(&Input {
                file_name: "x",
                bytes: b"garbage\n",
            })
            .unwrap_err();
        assert_eq!(e.place, crate::error::Place::Line(1));
    }
}
