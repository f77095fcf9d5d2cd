//! Frames (function, file, line, module) and the interner that gives each
//! distinct frame one id.

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

use super::limits::MAX_FRAMES;
use super::visible::visible;

/// One stack frame as the profiler named it. All fields are untrusted text.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, Default)]
pub struct Frame {
    pub function: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// First line of the function's definition, when the input records it
    /// (pprof `Function.start_line`, a `.cpuprofile` call frame's line).
    /// `line` is the executing line where the input has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u32>,
    /// Column (1-based) on `start_line` where the function starts, when
    /// the input records it (a `.cpuprofile` call frame's column): in a
    /// minified bundle many functions start on one line, and a source map
    /// tells them apart only by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_column: Option<u32>,
    /// A hash of the function's source text, when the input carries one
    /// (native JSON): a changed hash between versions marks the method as
    /// modified without a repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_hash: Option<String>,
    /// The whole name when `function` is a shortened label: a C++ symbol's
    /// demangled name with return type, parameters and template arguments
    /// (`function` has `shapes::sort_by_name<…>`), shown in tooltips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_name: Option<String>,
}

impl Frame {
    /// A frame known only by its function name.
    pub fn named(function: impl Into<String>) -> Frame {
        Frame {
            function: function.into(),
            ..Frame::default()
        }
    }

    /// `file:line`, `file`, or `None` when the frame has no location.
    pub fn location(&self) -> Option<String> {
        match (&self.file, self.line) {
            (Some(f), Some(l)) if l > 0 => Some(format!("{f}:{l}")),
            (Some(f), _) => Some(f.clone()),
            _ => None,
        }
    }
}

/// `frame` with its text fields passed through [`visible`]: the table
/// stores what pages show, keyed by what the profiler wrote.
fn visible_frame(frame: &Frame) -> Frame {
    let show = |s: &str| visible(s).into_owned();
    Frame {
        function: show(&frame.function),
        file: frame.file.as_deref().map(show),
        module: frame.module.as_deref().map(show),
        full_name: frame.full_name.as_deref().map(show),
        ..frame.clone()
    }
}

/// Index of a frame in a [`FrameTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FrameId(pub u32);

/// Interns frames: equal frames get equal ids, ids are dense from 0.
#[derive(Debug, Default, Clone)]
pub struct FrameTable {
    frames: Vec<Frame>,
    index: FxHashMap<Frame, FrameId>,
    /// Most frames, for tables of one input file (see [`super::limits`]).
    max_frames: Option<usize>,
    limit_hit: bool,
}

impl FrameTable {
    /// A table for one input file, bounded by [`MAX_FRAMES`]; `default()`
    /// is unbounded.
    pub fn new() -> FrameTable {
        FrameTable {
            max_frames: Some(MAX_FRAMES),
            ..FrameTable::default()
        }
    }

    /// Whether a frame was refused because the table was full.
    pub fn over_limit(&self) -> bool {
        self.limit_hit
    }

    /// Lifts the limit (once the file that filled it has been checked).
    pub fn unbound(&mut self) {
        self.max_frames = None;
    }

    /// The id of `frame`, adding it when new.
    pub fn intern(&mut self, frame: Frame) -> FrameId {
        if let Some(&id) = self.index.get(&frame) {
            return id;
        }
        if self.max_frames.is_some_and(|max| self.frames.len() >= max) {
            // Full: the file will be rejected; any valid id keeps it going.
            self.limit_hit = true;
            return FrameId(self.frames.len().saturating_sub(1) as u32);
        }
        let id = FrameId(self.frames.len() as u32);
        self.frames.push(visible_frame(&frame));
        self.index.insert(frame, id);
        id
    }

    /// Shorthand for interning a frame that has only a function name.
    pub fn intern_name(&mut self, function: &str) -> FrameId {
        self.intern(Frame::named(function))
    }

    pub fn get(&self, id: FrameId) -> &Frame {
        &self.frames[id.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }

    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (FrameId, &Frame)> {
        self.frames
            .iter()
            .enumerate()
            .map(|(i, f)| (FrameId(i as u32), f))
    }

    /// Adds every frame of `other` and returns, for each id of `other`, its
    /// id in `self`.
    pub fn absorb(&mut self, other: FrameTable) -> Vec<FrameId> {
        other.frames.into_iter().map(|f| self.intern(f)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_frames_share_an_id_and_absorb_remaps() {
        let mut a = FrameTable::new();
        let main = a.intern_name("main");
        let f = a.intern(Frame {
            function: "f".into(),
            file: Some("a.c".into()),
            line: Some(3),
            module: None,
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        });
        assert_eq!(a.intern_name("main"), main);
        let mut b = FrameTable::new();
        let g = b.intern_name("g");
        let f2 = b.intern(Frame {
            function: "f".into(),
            file: Some("a.c".into()),
            line: Some(3),
            module: None,
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        });
        let map = a.absorb(b);
        assert_eq!(map[f2.0 as usize], f);
        assert_eq!(a.get(map[g.0 as usize]).function, "g");
        assert_eq!(a.len(), 3);
    }
}
