//! Source Map v3 (ECMA-426, <https://tc39.es/source-map/>): reads a `.map`
//! file into per-line lookup tables, and finds a bundle's map reference.
//!
//! This module owns the mapping from a generated position (a frame in a
//! bundle, 0-based line and column as V8 reports them) to its original
//! source position and name, the way browser devtools and Mozilla's
//! `source-map` library (`originalPositionFor`, greatest-lower-bound bias)
//! do it. It reads bytes given to it and never opens files.
//!
//! Hostile maps are ordinary input: every problem is an [`InputError`]
//! naming the map and the place (a JSON path, and for `mappings` the
//! generated line, segment and byte), and memory is bounded by
//! [`MAX_SEGMENTS`].

use serde::Deserialize;

use model::error::{InputError, ParseError};

/// The most segments (and the most generated lines) a map may hold: each
/// segment costs 20 bytes once decoded, so this bounds a map at about 1 GB.
pub const MAX_SEGMENTS: usize = 50_000_000;

/// A parsed source map. Index maps (`sections`) are flattened into one.
#[derive(Debug, Clone)]
pub struct SourceMap {
    /// Each source's resolved path; `None` for a `null` entry.
    sources: Vec<Option<String>>,
    /// `sourcesContent`, by source index.
    contents: Vec<Option<String>>,
    names: Vec<String>,
    /// Generated line `l` holds `segments[line_starts[l]..line_starts[l + 1]]`.
    line_starts: Vec<u32>,
    /// Every line's segments, sorted by generated column, one per column.
    segments: Vec<Segment>,
}

/// One mapping segment, its indices absolute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    column: u32,
    /// [`NONE`] for a segment that maps to no source (one field).
    source: u32,
    line: u32,
    original_column: u32,
    /// [`NONE`] when the segment names nothing.
    name: u32,
}

const NONE: u32 = u32::MAX;

impl Segment {
    /// Order among segments at one generated column, the last wins: by
    /// original position, a named one after an unnamed one, and one
    /// without a source after all (as Mozilla's `source-map` 0.7 chooses).
    fn tie_key(&self) -> (bool, u32, u32, u32, u32) {
        (
            self.source == NONE,
            self.source,
            self.line,
            self.original_column,
            self.name.wrapping_add(1),
        )
    }
}

/// Where a generated position came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Original<'a> {
    /// The resolved path: `sourceRoot` + source, `webpack://`,
    /// `webpack-internal://` and `file://` removed, `.` and `..` segments
    /// resolved, relative sources joined to the map's directory.
    pub source: &'a str,
    /// Index into the map's sources, for [`SourceMap::source_content`].
    pub source_index: u32,
    /// 0-based.
    pub line: u32,
    /// 0-based.
    pub column: u32,
    pub name: Option<&'a str>,
}

/// What a bundle's `sourceMappingURL` comment points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapRef {
    /// A `data:` URL, decoded: the map's JSON bytes.
    Inline(Vec<u8>),
    /// Any other URL, as written (relative to the bundle, usually).
    Url(String),
}

impl SourceMap {
    /// Parses the JSON text of a `.map` file. `map_path` names the map in
    /// messages, and relative sources are resolved against its directory.
    pub fn parse(map_path: &str, text: &[u8]) -> Result<SourceMap, InputError> {
        parse_map(map_path, text).map_err(|error| InputError {
            file: map_path.to_string(),
            error,
        })
    }

    /// The original position of generated `line` and `column` (0-based):
    /// the last segment at or before the column on that line. `None` when
    /// there is none, or it maps to no source.
    pub fn original(&self, line: u32, column: u32) -> Option<Original<'_>> {
        let line = line as usize;
        let start = *self.line_starts.get(line)? as usize;
        let end = *self.line_starts.get(line + 1)? as usize;
        let on_line = &self.segments[start..end];
        let after = on_line.partition_point(|s| s.column <= column);
        let segment = on_line[..after].last()?;
        let source = self.sources.get(segment.source as usize)?.as_deref()?;
        Some(Original {
            source,
            source_index: segment.source,
            line: segment.line,
            column: segment.original_column,
            name: self.names.get(segment.name as usize).map(String::as_str),
        })
    }

    /// The original source and line (0-based) of the whole generated
    /// `line` (0-based): the one line every segment on it that maps to a
    /// source maps to. `None` when they map to several (a minified
    /// bundle's line holds code from many) or there is none.
    pub fn original_line(&self, line: u32) -> Option<(&str, u32)> {
        let line = line as usize;
        let start = *self.line_starts.get(line)? as usize;
        let end = *self.line_starts.get(line + 1)? as usize;
        let mut mapped = self.segments[start..end]
            .iter()
            .filter(|s| s.source != NONE);
        let first = mapped.next()?;
        if mapped.any(|s| (s.source, s.line) != (first.source, first.line)) {
            return None;
        }
        let source = self.sources.get(first.source as usize)?.as_deref()?;
        Some((source, first.line))
    }

    /// The resolved path of source `source_index`.
    pub fn source(&self, source_index: u32) -> Option<&str> {
        self.sources.get(source_index as usize)?.as_deref()
    }

    /// The text of source `source_index` when the map embeds it
    /// (`sourcesContent`).
    pub fn source_content(&self, source_index: u32) -> Option<&str> {
        self.contents.get(source_index as usize)?.as_deref()
    }

    /// How many sources the map lists.
    pub fn source_count(&self) -> usize {
        self.sources.len()
    }

    /// How many generated lines have a place in the map (the last one with
    /// a segment, plus those before it).
    pub fn generated_lines(&self) -> usize {
        self.line_starts.len().saturating_sub(1)
    }
}

/// The JSON of a map, regular or index.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawMap {
    version: Option<serde_json::Value>,
    source_root: Option<String>,
    sources: Option<Vec<Option<String>>>,
    sources_content: Option<Vec<Option<String>>>,
    #[serde(default)]
    names: Vec<String>,
    mappings: Option<String>,
    sections: Option<Vec<RawSection>>,
}

#[derive(Deserialize)]
struct RawSection {
    offset: Option<RawOffset>,
    map: Option<Box<RawMap>>,
    url: Option<String>,
}

#[derive(Deserialize)]
struct RawOffset {
    line: u32,
    column: u32,
}

fn parse_map(map_path: &str, text: &[u8]) -> Result<SourceMap, ParseError> {
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    // The spec lets a map start with `)]}'` (against XSSI); that line is
    // skipped.
    let text = if text.starts_with(b")]}'") {
        match text.iter().position(|&b| b == b'\n') {
            Some(i) => &text[i + 1..],
            None => &[],
        }
    } else {
        text
    };
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        None => return Err(ParseError::whole("the file is empty")),
        Some(b'{') => {}
        Some(&other) => {
            return Err(ParseError::json(
                "$",
                format!(
                    "a source map is a JSON object; this text starts with {}",
                    show_byte(other)
                ),
            ))
        }
    }
    let raw: RawMap = serde_json::from_slice(text).map_err(super::cpuprofile::json_error)?;
    // The directory with its final `/`, or nothing.
    let dir = match map_path.rfind('/') {
        Some(i) => &map_path[..=i],
        None => "",
    };
    match raw.sections {
        Some(_) => flatten_index_map(dir, raw),
        None => regular_map(dir, raw, "$", &mut Budget::new()),
    }
}

fn check_version(raw: &RawMap, at: &str) -> Result<(), ParseError> {
    match &raw.version {
        Some(v) if v == 3 || v == "3" => Ok(()),
        Some(v) => Err(ParseError::json(
            format!("{at}.version"),
            format!("source map version {v} is not supported (only 3)"),
        )),
        None => Err(ParseError::json(
            at,
            "no `version`: not a source map (expected \"version\": 3)",
        )),
    }
}

/// How many segments and lines may still be decoded.
struct Budget {
    left: usize,
}

impl Budget {
    fn new() -> Budget {
        Budget { left: MAX_SEGMENTS }
    }

    /// Takes `n`, or says what went past the budget (`what` is called
    /// only then).
    fn take(
        &mut self,
        n: usize,
        at: &str,
        what: impl FnOnce() -> String,
    ) -> Result<(), ParseError> {
        if n > self.left {
            return Err(ParseError::json(
                format!("{at}.mappings"),
                format!(
                    "{}: more than {MAX_SEGMENTS} segments and lines in all; refused to bound memory",
                    what()
                ),
            ));
        }
        self.left -= n;
        Ok(())
    }
}

/// A map with `mappings` (not an index map); `at` is its JSON path.
fn regular_map(
    dir: &str,
    raw: RawMap,
    at: &str,
    budget: &mut Budget,
) -> Result<SourceMap, ParseError> {
    check_version(&raw, at)?;
    if raw.sections.is_some() {
        return Err(ParseError::json(
            format!("{at}.sections"),
            "an index map inside an index map is not allowed",
        ));
    }
    let Some(raw_sources) = raw.sources else {
        return Err(ParseError::json(at, "no `sources`"));
    };
    let Some(mappings) = raw.mappings else {
        return Err(ParseError::json(at, "no `mappings`"));
    };
    let root = raw.source_root.as_deref().unwrap_or("");
    let sources: Vec<Option<String>> = raw_sources
        .iter()
        .map(|s| s.as_deref().map(|s| resolve_source(dir, root, s)))
        .collect();
    let mut contents = raw.sources_content.unwrap_or_default();
    if contents.len() > sources.len() {
        return Err(ParseError::json(
            format!("{at}.sourcesContent"),
            format!("{} entries for {} sources", contents.len(), sources.len()),
        ));
    }
    contents.resize(sources.len(), None);
    let (line_starts, segments) = decode_mappings(
        mappings.as_bytes(),
        sources.len(),
        raw.names.len(),
        at,
        budget,
    )?;
    Ok(SourceMap {
        sources,
        contents,
        names: raw.names,
        line_starts,
        segments,
    })
}

/// Decodes `mappings` into line starts and sorted segments.
fn decode_mappings(
    text: &[u8],
    source_count: usize,
    name_count: usize,
    at: &str,
    budget: &mut Budget,
) -> Result<(Vec<u32>, Vec<Segment>), ParseError> {
    let lines = text.iter().filter(|&&b| b == b';').count() + 1;
    budget.take(lines, at, || format!("{lines} generated lines"))?;
    let separators = text.iter().filter(|&&b| b == b',').count() + lines;
    let mut line_starts = Vec::with_capacity(lines + 1);
    let mut segments: Vec<Segment> = Vec::with_capacity(separators.min(budget.left));
    let place = |line: usize, segment: usize, byte: usize, message: String| {
        ParseError::json(
            format!("{at}.mappings"),
            format!(
                "generated line {}, segment {} (byte {byte} of the string): {message}",
                line + 1,
                segment + 1
            ),
        )
    };
    // Fields after the generated column are relative across lines.
    let (mut source, mut line, mut column, mut name) = (0i64, 0i64, 0i64, 0i64);
    let mut pos = 0;
    for (l, line_text) in text.split(|&b| b == b';').enumerate() {
        line_starts.push(segments.len() as u32);
        let line_begin = segments.len();
        let mut generated = 0i64;
        let mut sorted = true;
        for (s, segment_text) in line_text.split(|&b| b == b',').enumerate() {
            let segment_pos = pos;
            pos += segment_text.len() + 1;
            if segment_text.is_empty() {
                continue;
            }
            let mut fields = [0i64; 5];
            let mut count = 0;
            let mut rest = segment_text;
            while !rest.is_empty() {
                if count == 5 {
                    return Err(place(
                        l,
                        s,
                        segment_pos,
                        "more than 5 fields (a segment has 1, 4 or 5)".into(),
                    ));
                }
                let (value, used) = vlq(rest).map_err(|(i, m)| {
                    place(l, s, segment_pos + (segment_text.len() - rest.len()) + i, m)
                })?;
                fields[count] = value;
                count += 1;
                rest = &rest[used..];
            }
            if count != 1 && count != 4 && count != 5 {
                return Err(place(
                    l,
                    s,
                    segment_pos,
                    format!("{count} fields (a segment has 1, 4 or 5)"),
                ));
            }
            let previous = generated;
            generated += fields[0];
            let in_range = |v: i64, what: &str| -> Result<u32, ParseError> {
                if (0..NONE as i64).contains(&v) {
                    Ok(v as u32)
                } else {
                    Err(place(
                        l,
                        s,
                        segment_pos,
                        format!("{what} {v} is out of range"),
                    ))
                }
            };
            let mut segment = Segment {
                column: in_range(generated, "generated column")?,
                source: NONE,
                line: 0,
                original_column: 0,
                name: NONE,
            };
            sorted &= generated >= previous;
            if count >= 4 {
                source += fields[1];
                line += fields[2];
                column += fields[3];
                if !(0..source_count as i64).contains(&source) {
                    return Err(place(
                        l,
                        s,
                        segment_pos,
                        format!("source index {source} is out of range ({source_count} sources)"),
                    ));
                }
                segment.source = source as u32;
                segment.line = in_range(line, "original line")?;
                segment.original_column = in_range(column, "original column")?;
            }
            if count == 5 {
                name += fields[4];
                if !(0..name_count as i64).contains(&name) {
                    return Err(place(
                        l,
                        s,
                        segment_pos,
                        format!("name index {name} is out of range ({name_count} names)"),
                    ));
                }
                segment.name = name as u32;
            }
            budget.take(1, at, || format!("at generated line {}", l + 1))?;
            segments.push(segment);
        }
        let on_line = &mut segments[line_begin..];
        if !sorted {
            on_line.sort_by_key(|s| s.column);
        }
        let kept = keep_one_per_column(on_line);
        segments.truncate(line_begin + kept);
    }
    line_starts.push(segments.len() as u32);
    // Lines past the last segment need no entry.
    while line_starts.len() >= 2 && line_starts[line_starts.len() - 2] == segments.len() as u32 {
        line_starts.pop();
    }
    segments.shrink_to_fit();
    Ok((line_starts, segments))
}

/// Keeps, of each run of segments at one column (sorted by column), the
/// one [`Segment::tie_key`] ranks last, at the front of `line`; returns
/// how many were kept.
fn keep_one_per_column(line: &mut [Segment]) -> usize {
    let mut kept = 0;
    for i in 0..line.len() {
        if kept > 0 && line[kept - 1].column == line[i].column {
            if line[i].tie_key() >= line[kept - 1].tie_key() {
                line[kept - 1] = line[i];
            }
        } else {
            line[kept] = line[i];
            kept += 1;
        }
    }
    kept
}

/// The base64 alphabet's value of each byte; 255 for bytes outside it.
const BASE64: [u8; 256] = {
    let mut table = [255u8; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// One base64 VLQ value at the start of `text`, and how many bytes it
/// took; on error, the offset in `text` and a message.
fn vlq(text: &[u8]) -> Result<(i64, usize), (usize, String)> {
    let mut value: u64 = 0;
    let mut shift = 0;
    for (i, &byte) in text.iter().enumerate() {
        let digit = BASE64[byte as usize];
        if digit == 255 {
            return Err((i, format!("{} is not a base64 digit", show_byte(byte))));
        }
        value |= u64::from(digit & 0x1f) << shift;
        if digit & 0x20 == 0 {
            let magnitude = (value >> 1) as i64;
            if magnitude > i64::from(i32::MAX) {
                return Err((0, "a value does not fit in 32 bits".into()));
            }
            // `-0` is read as 0, as every common decoder does.
            let value = if value & 1 == 1 {
                -magnitude
            } else {
                magnitude
            };
            return Ok((value, i + 1));
        }
        shift += 5;
        if shift > 30 {
            return Err((0, "a value does not fit in 32 bits".into()));
        }
    }
    Err((text.len(), "the segment ends inside a value".into()))
}

fn show_byte(byte: u8) -> String {
    if byte.is_ascii_graphic() {
        format!("{:?}", byte as char)
    } else {
        format!("byte 0x{byte:02x}")
    }
}

/// An index map's sections in one map: each section's segments moved by
/// its offset, its sources and names appended to the ones before.
fn flatten_index_map(dir: &str, raw: RawMap) -> Result<SourceMap, ParseError> {
    check_version(&raw, "$")?;
    if raw.mappings.is_some() {
        return Err(ParseError::json(
            "$",
            "both `sections` and `mappings`: a map is an index map or a regular one",
        ));
    }
    let sections = raw.sections.unwrap_or_default();
    let mut budget = Budget::new();
    let mut offsets = Vec::with_capacity(sections.len());
    let mut maps = Vec::with_capacity(sections.len());
    for (i, section) in sections.into_iter().enumerate() {
        let at = format!("$.sections[{i}]");
        let Some(offset) = section.offset else {
            return Err(ParseError::json(at, "no `offset`"));
        };
        let offset = (offset.line, offset.column);
        if let Some(&before) = offsets.last() {
            if offset < before {
                return Err(ParseError::json(
                    format!("{at}.offset"),
                    format!(
                        "line {} column {} comes before the previous section's line {} column {}",
                        offset.0, offset.1, before.0, before.1
                    ),
                ));
            }
        }
        let map = match (section.map, section.url) {
            (Some(map), _) => map,
            (None, Some(url)) => {
                return Err(ParseError::json(
                    format!("{at}.url"),
                    format!("sections that point at another map ({url:?}) are not supported; the map must be embedded"),
                ))
            }
            (None, None) => return Err(ParseError::json(at, "no `map`")),
        };
        maps.push(regular_map(dir, *map, &format!("{at}.map"), &mut budget)?);
        offsets.push(offset);
    }
    let mut flat = SourceMap {
        sources: Vec::new(),
        contents: Vec::new(),
        names: Vec::new(),
        line_starts: vec![0],
        segments: Vec::new(),
    };
    for (i, map) in maps.into_iter().enumerate() {
        let (first_line, first_column) = offsets[i];
        let end = offsets.get(i + 1).copied().unwrap_or((NONE, NONE));
        let source_base = flat.sources.len() as u32;
        let name_base = flat.names.len() as u32;
        if u64::from(source_base) + map.sources.len() as u64 >= u64::from(NONE)
            || u64::from(name_base) + map.names.len() as u64 >= u64::from(NONE)
        {
            return Err(ParseError::json(
                format!("$.sections[{i}]"),
                "too many sources or names",
            ));
        }
        // A section starts where the one before ends: a position at or
        // after its offset must not fall back to the previous section's
        // segments, so it opens with a segment mapping to no source unless
        // one of its own starts there.
        let opens =
            map.line_starts.len() >= 2 && map.line_starts[1] > 0 && map.segments[0].column == 0;
        if i > 0 && !opens {
            flat.push_line(
                first_line,
                [Segment {
                    column: first_column,
                    source: NONE,
                    line: 0,
                    original_column: 0,
                    name: NONE,
                }],
            );
        }
        for l in 0..map.generated_lines() {
            let Some(line) = first_line.checked_add(l as u32).filter(|&l| l < NONE) else {
                break;
            };
            let shift = if l == 0 { first_column } else { 0 };
            let on_line =
                &map.segments[map.line_starts[l] as usize..map.line_starts[l + 1] as usize];
            let moved = on_line.iter().filter_map(|s| {
                let column = s.column.checked_add(shift).filter(|&c| c < NONE)?;
                if (line, column) >= end {
                    return None;
                }
                Some(Segment {
                    column,
                    source: if s.source == NONE {
                        NONE
                    } else {
                        s.source + source_base
                    },
                    name: if s.name == NONE {
                        NONE
                    } else {
                        s.name + name_base
                    },
                    ..*s
                })
            });
            flat.push_line(line, moved);
        }
        flat.sources.extend(map.sources);
        flat.contents.extend(map.contents);
        flat.names.extend(map.names);
    }
    Ok(flat)
}

impl SourceMap {
    /// Appends `segments` (sorted, after every segment already there) to
    /// generated `line`, which is the last line so far or after it.
    fn push_line(&mut self, line: u32, segments: impl IntoIterator<Item = Segment>) {
        let before = self.segments.len();
        self.segments.extend(segments);
        if self.segments.len() == before {
            return;
        }
        // `line_starts` ends with the end of the last line: open lines up
        // to `line`, then move its end.
        let total = self.segments.len() as u32;
        while self.line_starts.len() <= line as usize + 1 {
            self.line_starts.push(before as u32);
        }
        if let Some(end) = self.line_starts.last_mut() {
            *end = total;
        }
    }
}

/// The path of source `source` of a map in directory `dir` with
/// `sourceRoot` `root`: see [`Original::source`].
fn resolve_source(dir: &str, root: &str, source: &str) -> String {
    let joined;
    let full = if root.is_empty() || scheme_of(source).is_some() {
        source
    } else {
        let slash = if root.ends_with('/') || source.starts_with('/') {
            ""
        } else {
            "/"
        };
        joined = format!("{root}{slash}{source}");
        &joined
    };
    for prefix in ["webpack://", "webpack-internal://"] {
        if let Some(rest) = strip_prefix_ignore_case(full, prefix) {
            // `webpack:///./src/a.js` (no namespace) is as relative as
            // `webpack://app/./src/a.js`.
            return normalise_path(rest.trim_start_matches('/'));
        }
    }
    if let Some(rest) = strip_prefix_ignore_case(full, "file://") {
        // `file:///home/a.js`, or `file://host/share/a.js`.
        let rest = if rest.starts_with('/') {
            rest.to_string()
        } else {
            format!("//{rest}")
        };
        return normalise_path(&rest);
    }
    if let Some(scheme) = scheme_of(full) {
        // Another URL, or a drive letter: kept as it is, dots resolved.
        let (head, rest) = full.split_at(scheme.len() + 1);
        let (authority, path) = match rest.strip_prefix("//") {
            Some(after) => match after.find('/') {
                Some(i) => (&rest[..2 + i], &after[i..]),
                None => (rest, ""),
            },
            None => ("", rest),
        };
        return format!("{head}{authority}{}", normalise_path(path));
    }
    if full.starts_with('/') {
        normalise_path(full)
    } else {
        normalise_path(&format!("{dir}{full}"))
    }
}

/// The URL scheme `source` starts with (`http` in `http://x`), if any.
fn scheme_of(source: &str) -> Option<&str> {
    let colon = source.find(':')?;
    let scheme = &source[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}

/// `path` with empty and `.` segments dropped and `..` resolved; leading
/// `..` of a relative path stay, an absolute path stops at its root.
fn normalise_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let unc = path.starts_with("//");
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            part => parts.push(part),
        }
    }
    let body = parts.join("/");
    match (unc, absolute) {
        (true, _) => format!("//{body}"),
        (false, true) => format!("/{body}"),
        (false, false) => body,
    }
}

/// The reference in a bundle's last `//# sourceMappingURL=` (or `//@`)
/// comment: `Ok(None)` when there is none; a `data:` URL is decoded (an
/// error when it cannot be, at its line of the bundle).
pub fn mapping_url(bundle: &[u8]) -> Result<Option<MapRef>, ParseError> {
    const KEY: &[u8] = b"sourceMappingURL=";
    let line_count = bundle.iter().filter(|&&b| b == b'\n').count() + 1;
    for (back, line) in bundle.rsplit(|&b| b == b'\n').enumerate() {
        let line_number = line_count - back;
        let Some(at) = find_last(line, KEY) else {
            continue;
        };
        // `//# ` or `//@ ` before the key, blanks allowed between.
        let before = trim_end(&line[..at]);
        let Some(before) = before
            .strip_suffix(b"#")
            .or_else(|| before.strip_suffix(b"@"))
        else {
            continue;
        };
        if !before.ends_with(b"//") {
            continue;
        }
        let value = trim_end(&line[at + KEY.len()..]);
        let value = trim_start(value);
        if value.is_empty() || value.iter().any(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let Ok(url) = std::str::from_utf8(value) else {
            return Err(ParseError::line(
                line_number,
                "the sourceMappingURL is not valid UTF-8",
            ));
        };
        return match strip_prefix_ignore_case(url, "data:") {
            Some(data) => decode_data_url(data)
                .map(|bytes| Some(MapRef::Inline(bytes)))
                .map_err(|m| ParseError::line(line_number, format!("inline source map: {m}"))),
            None => Ok(Some(MapRef::Url(url.to_string()))),
        };
    }
    Ok(None)
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &bytes[..end]
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// The bytes of a `data:` URL after `data:`: base64 when its media type
/// says `;base64`, percent-encoded otherwise.
fn decode_data_url(data: &str) -> Result<Vec<u8>, String> {
    let Some((media, body)) = data.split_once(',') else {
        return Err("the data: URL has no `,`".into());
    };
    let media = media.to_ascii_lowercase();
    let mut params = media.split(';');
    let kind = params.next().unwrap_or("");
    if !matches!(kind, "application/json" | "text/plain" | "") {
        return Err(format!("media type {kind:?} is not JSON"));
    }
    if params.any(|p| p == "base64") {
        decode_base64(body.as_bytes())
    } else {
        decode_percent(body.as_bytes())
    }
}

/// Standard base64 (`+/`), `=` padding optional.
fn decode_base64(text: &[u8]) -> Result<Vec<u8>, String> {
    let text = text
        .strip_suffix(b"==")
        .or_else(|| text.strip_suffix(b"="))
        .unwrap_or(text);
    if text.len() % 4 == 1 {
        return Err("base64 text of impossible length".into());
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    for (c, chunk) in text.chunks(4).enumerate() {
        let mut word = 0u32;
        for (i, &byte) in chunk.iter().enumerate() {
            let digit = BASE64[byte as usize];
            if digit == 255 {
                return Err(format!(
                    "{} at character {} is not a base64 digit",
                    show_byte(byte),
                    c * 4 + i
                ));
            }
            word |= u32::from(digit) << (18 - 6 * i);
        }
        let bytes = word.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Ok(out)
}

fn decode_percent(text: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            let hex = text
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("bad percent escape at character {i}"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
