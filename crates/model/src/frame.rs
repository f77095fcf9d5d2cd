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

/// `frame` with its text fields passed through [`visible`] and shortened
/// past [`MAX_SHOWN_NAME`] and [`MAX_SHOWN_PATH`] (a tooltip has the name
/// up to [`MAX_TOOLTIP_NAME`]): the table stores what pages show, keyed by
/// what the profiler wrote, so no name makes a page larger than its
/// profile.
fn visible_frame(frame: &Frame) -> Frame {
    let show = |s: &str| visible(s).into_owned();
    let function = show(&frame.function);
    let full_name = frame.full_name.as_deref().map(show);
    let (function, full_name) = match shortened(&function, MAX_SHOWN_NAME) {
        Some(short) => (short, Some(full_name.unwrap_or(function))),
        None => (function, full_name),
    };
    let capped = |s: String, max| shortened(&s, max).unwrap_or(s);
    Frame {
        function,
        full_name: full_name.map(|n| capped(n, MAX_TOOLTIP_NAME)),
        file: frame
            .file
            .as_deref()
            .map(|f| capped(show(f), MAX_SHOWN_PATH)),
        module: frame
            .module
            .as_deref()
            .map(|m| capped(show(m), MAX_SHOWN_PATH)),
        ..frame.clone()
    }
}

/// Characters of a function name shown whole; a longer one is shown as its
/// first this many, `…` and a hash of the whole (two long names that
/// differ only past the cut stay apart).
pub const MAX_SHOWN_NAME: usize = 500;
/// Characters of a name a tooltip shows; past it, the same cut.
pub const MAX_TOOLTIP_NAME: usize = 8_192;
/// Characters of a file or module path shown whole.
pub const MAX_SHOWN_PATH: usize = 1_000;

/// Characters the cut's mark takes at most: `… [N bytes, #HASH]`.
const CUT_MARK: usize = 48;

/// `text` as at most `max` characters: cut, with `…`, its size and a hash
/// of the whole; `None` when it is no longer than that. A shortened text
/// is not shortened again.
pub fn shortened(text: &str, max: usize) -> Option<String> {
    if text.len() <= max {
        return None;
    }
    text.char_indices().nth(max)?;
    let (cut, _) = text.char_indices().nth(max - CUT_MARK)?;
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    hasher.write(text.as_bytes());
    Some(format!(
        "{}… [{} bytes, #{:016x}]",
        &text[..cut],
        text.len(),
        hasher.finish()
    ))
}

/// Index of a frame in a [`FrameTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FrameId(pub u32);

/// Interns frames: equal frames get equal ids, ids are dense from 0.
///
/// Each frame is held once: the index holds ids (and 32 bits of their
/// hash) only, hashed by the frame as the profiler wrote it, which is
/// the stored frame itself unless
/// [`visible_frame`] changed it (a control character, a name past the
/// cut); only those few keep their written form beside it (`written`).
/// Holding every frame twice, as key and as value, was most of the
/// memory of a profile with a million distinct names.
#[derive(Debug, Default, Clone)]
pub struct FrameTable {
    frames: Frames,
    /// Each frame's id and tag ([`frame_tag`]).
    index: hashbrown::HashTable<(u32, FrameId)>,
    /// The frame as written, for the frames stored changed.
    written: FxHashMap<FrameId, Frame>,
    /// Most frames, for tables of one input file (see [`super::limits`]).
    max_frames: Option<usize>,
    limit_hit: bool,
}

/// A table's frames in id order: a clone shares those it has (the shape
/// frames of a history start as a copy of its table, a million frames on
/// a big input) and keeps only the frames added after it.
#[derive(Debug, Default)]
struct Frames {
    shared: std::sync::Arc<Vec<Frame>>,
    own: Vec<Frame>,
}

impl Clone for Frames {
    fn clone(&self) -> Frames {
        let shared = match self.own.is_empty() {
            true => self.shared.clone(),
            false => std::sync::Arc::new(self.iter().cloned().collect()),
        };
        Frames {
            shared,
            own: Vec::new(),
        }
    }
}

impl std::ops::Index<usize> for Frames {
    type Output = Frame;
    fn index(&self, i: usize) -> &Frame {
        match i.checked_sub(self.shared.len()) {
            None => &self.shared[i],
            Some(own) => &self.own[own],
        }
    }
}

impl Frames {
    fn len(&self) -> usize {
        self.shared.len() + self.own.len()
    }

    fn push(&mut self, frame: Frame) {
        match std::sync::Arc::get_mut(&mut self.shared) {
            Some(unshared) if self.own.is_empty() => unshared.push(frame),
            _ => self.own.push(frame),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Frame> {
        self.shared.iter().chain(&self.own)
    }

    fn shrink_to_fit(&mut self) {
        if let Some(unshared) = std::sync::Arc::get_mut(&mut self.shared) {
            unshared.shrink_to_fit();
        }
        self.own.shrink_to_fit();
    }

    fn into_vec(self) -> Vec<Frame> {
        let mut all = std::sync::Arc::try_unwrap(self.shared).unwrap_or_else(|s| (*s).clone());
        all.extend(self.own);
        all
    }
}

/// 32 bits of a frame's hash, kept in the index beside its id: the table
/// grows (and shrinks) from them without hashing its frames again, which
/// hashed every frame's strings at each doubling (2% of a build of
/// 60,000 names, three tables of them).
fn frame_tag(frame: &Frame) -> u32 {
    use std::hash::BuildHasher;
    // Fx mixes its high bits best.
    (rustc_hash::FxBuildHasher.hash_one(frame) >> 32) as u32
}

/// The hash the index keeps a frame of tag `tag` under: the tag spread
/// over 64 bits (an odd multiplier, so distinct tags stay distinct).
fn tag_hash(tag: u32) -> u64 {
    u64::from(tag).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Whether [`visible_frame`] keeps `frame` as it is.
fn shown_as_written(frame: &Frame) -> bool {
    let plain = |s: &str, max: usize| {
        matches!(visible(s), std::borrow::Cow::Borrowed(_))
            && (s.len() <= max || s.chars().nth(max).is_none())
    };
    let plain_path = |s: &Option<String>| s.as_deref().is_none_or(|s| plain(s, MAX_SHOWN_PATH));
    plain(&frame.function, MAX_SHOWN_NAME)
        && frame
            .full_name
            .as_deref()
            .is_none_or(|n| plain(n, MAX_TOOLTIP_NAME))
        && plain_path(&frame.file)
        && plain_path(&frame.module)
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
        let tag = frame_tag(&frame);
        let (frames, written) = (&self.frames, &self.written);
        let key_of = |id: FrameId| written.get(&id).unwrap_or(&frames[id.0 as usize]);
        let same = |&(t, id): &(u32, FrameId)| t == tag && *key_of(id) == frame;
        if let Some(&(_, id)) = self.index.find(tag_hash(tag), same) {
            return id;
        }
        if self.max_frames.is_some_and(|max| self.frames.len() >= max) {
            // Full: the file will be rejected; any valid id keeps it going.
            self.limit_hit = true;
            return FrameId(self.frames.len().saturating_sub(1) as u32);
        }
        let id = FrameId(self.frames.len() as u32);
        if shown_as_written(&frame) {
            self.frames.push(frame);
        } else {
            self.frames.push(visible_frame(&frame));
            self.written.insert(id, frame);
        }
        self.index
            .insert_unique(tag_hash(tag), (tag, id), |&(t, _)| tag_hash(t));
        id
    }

    /// Gives back the room kept for frames to come: a table complete
    /// (the history's once loaded, the shape frames once made) holds up to
    /// half as much again as its frames when its vector grew by doubling.
    pub fn shrink_to_fit(&mut self) {
        self.frames.shrink_to_fit();
        self.index.shrink_to_fit(|&(t, _)| tag_hash(t));
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
        self.frames.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = (FrameId, &Frame)> {
        self.frames
            .iter()
            .enumerate()
            .map(|(i, f)| (FrameId(i as u32), f))
    }

    /// Interns `frame` as it is shown: as [`absorb`](Self::absorb)ing a
    /// table that interned it does (those tables keep frames as shown).
    pub fn intern_shown(&mut self, frame: Frame) -> FrameId {
        match shown_as_written(&frame) {
            true => self.intern(frame),
            false => self.intern(visible_frame(&frame)),
        }
    }

    /// Adds every frame of `other` and returns, for each id of `other`, its
    /// id in `self`.
    pub fn absorb(&mut self, other: FrameTable) -> Vec<FrameId> {
        other
            .frames
            .into_vec()
            .into_iter()
            .map(|f| self.intern(f))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_shortened_for_display_and_kept_apart_by_their_hash() {
        let long = |tail: &str| format!("{}{tail}", "ns::Class::".repeat(100));
        let mut t = FrameTable::new();
        let a = t.intern_name(&long("a"));
        let b = t.intern_name(&long("b"));
        assert_ne!(a, b);
        let (fa, fb) = (t.get(a), t.get(b));
        assert!(fa.function.starts_with("ns::Class::"));
        assert!(fa.function.contains("… [1101 bytes, #"), "{}", fa.function);
        assert_ne!(fa.function, fb.function, "the hash tells them apart");
        assert_eq!(
            fa.full_name.as_deref(),
            Some(long("a").as_str()),
            "the tooltip has it whole"
        );
        // Past the tooltip's cap, the tooltip is cut too.
        let huge = "x".repeat(50_000);
        let h = t.intern_name(&huge);
        let full = t.get(h).full_name.as_deref().unwrap();
        assert!(full.len() <= 8_192 && full.ends_with(']'), "{}", full.len());
        // What was shortened stays as it is when interned again.
        let again = t.get(a).clone();
        let mut u = FrameTable::new();
        let id = u.intern(again.clone());
        assert_eq!(u.get(id).function, again.function);
        // Short names, and a multi-byte name under the cut, are as written.
        let main = t.intern_name("main");
        assert_eq!(t.get(main).function, "main");
        assert_eq!(shortened(&"é".repeat(400), 500), None);
    }

    /// Through the index's growth (each doubling places the frames by the
    /// tags kept, not by hashing them again), its shrinking and a clone,
    /// every frame is found again under its id, and a frame written with a
    /// control character is found as written.
    #[test]
    fn frames_are_found_again_after_the_table_grows_and_shrinks() {
        let mut t = FrameTable::new();
        let name = |i: usize| format!("ns{}::Class{}::method_{i}", i % 7, i % 113);
        let ids: Vec<FrameId> = (0..20_000).map(|i| t.intern_name(&name(i))).collect();
        let odd = t.intern_name("tab\there");
        assert_eq!(t.len(), 20_001);
        t.shrink_to_fit();
        let copy = t.clone();
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(t.intern_name(&name(i)), id);
            assert_eq!(copy.get(id).function, name(i));
        }
        assert_eq!(t.intern_name("tab\there"), odd);
        assert_eq!(t.len(), 20_001);
    }

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
