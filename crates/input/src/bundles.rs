//! Frames of bundled JavaScript mapped back to their sources, as browser
//! devtools do: a library that from one release on runs from a bundle
//! (`lib/marked.esm.js`) instead of its sources (`src/Tokenizer.js`)
//! keeps its functions' identity, so matrix rows, diffs, root causes and
//! "modified" marks follow the code rather than the file it ran from.
//!
//! The build finds each version's bundles and their maps (the
//! `//# sourceMappingURL` comment, a map beside the bundle, read from the
//! same repository revision or sources directory as the bundle); this
//! module parses the maps ([`crate::source_map`]) and rewrites the frames
//! of the profiles of that version: a frame in a mapped bundle takes the
//! original file and line of the mapping at the place V8 gives for its
//! function's start (line and column, so the functions of a minified
//! bundle's one long line are told apart; without a column, the last
//! mapping on the line, which is the function's own line in a bundle that
//! keeps one function per line, as unminified bundles do). Its name is the
//! one the map gives the place V8 gives (a minified bundle's `c` is the
//! source's `tokenize`), else V8's.
//!
//! A mapped frame's line self values (V8's `positionTicks`, lines of the
//! bundle) move to the original lines: a bundle line keeps its value when
//! the map takes the whole line to one line of the frame's original file,
//! as an unminified bundle's lines are; otherwise (a minified bundle's
//! one line holds code of many, and V8 gives no column) it is dropped and
//! stays on the function's line.

use std::collections::HashMap;

use crate::source_map::SourceMap;
use model::{Frame, FrameId, FrameTable, History, LineSelf, Note, Profile};

/// One bundle's map in one version.
pub struct BundleMap {
    /// Index into the history's versions.
    pub version: usize,
    /// The bundle as the profiles' frames name it (each of its names).
    pub profile_paths: Vec<String>,
    /// The bundle's path in the repository or sources directory.
    pub bundle: String,
    /// The map's path there (or the bundle's, for an inline map).
    pub map_path: String,
    pub map: SourceMap,
}

/// Rewrites the frames of every profile whose version has a map for the
/// frame's file; returns a note per bundle on how many frames it mapped.
pub fn map_frames(history: &mut History, maps: &[BundleMap]) -> Vec<Note> {
    let mut by_file: HashMap<(usize, &str), usize> = HashMap::new();
    for (i, m) in maps.iter().enumerate() {
        for p in &m.profile_paths {
            by_file.insert((m.version, p.as_str()), i);
        }
    }
    let mut mapped = vec![0usize; maps.len()];
    let mut notes_for: Vec<Vec<String>> = vec![Vec::new(); maps.len()];
    for p in 0..history.profiles.len() {
        let version = history.profiles[p].version;
        let frame_ids: Vec<FrameId> = {
            let tree = &history.profiles[p].profile.tree;
            let mut ids: Vec<FrameId> = tree
                .node_ids()
                .skip(1)
                .filter_map(|n| tree.frame(n))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let mut remap: Vec<(FrameId, FrameId, usize)> = Vec::new();
        for id in frame_ids {
            let frame = history.frames.get(id).clone();
            let Some(&m) = frame
                .file
                .as_deref()
                .and_then(|f| by_file.get(&(version, f)))
            else {
                continue;
            };
            let Some(original) = original_frame(&frame, &maps[m].map) else {
                continue;
            };
            let new = history.frames.intern(original);
            if new != id {
                remap.push((id, new, m));
                mapped[m] += 1;
            }
        }
        if remap.is_empty() {
            continue;
        }
        let mut table: Vec<FrameId> = (0..history.frames.len() as u32).map(FrameId).collect();
        for &(old, new, _) in &remap {
            table[old.0 as usize] = new;
        }
        let profile = &mut history.profiles[p].profile;
        if let Some(lines) = &profile.line_self {
            profile.line_self = Some(mapped_lines(lines, profile, &remap, maps, &history.frames));
        }
        profile.tree.remap_frames(&table);
    }
    for (i, m) in maps.iter().enumerate() {
        if mapped[i] > 0 {
            notes_for[i].push(format!(
                "{} frame{} of `{}` mapped to their sources through `{}`",
                mapped[i],
                if mapped[i] == 1 { "" } else { "s" },
                m.bundle,
                m.map_path
            ));
        }
    }
    maps.iter()
        .zip(notes_for)
        .flat_map(|(m, texts)| {
            let file = format!("{} ({})", m.bundle, history_label(history, m.version));
            texts.into_iter().map(move |text| Note {
                file: file.clone(),
                place: String::new(),
                text,
            })
        })
        .collect()
}

fn history_label(history: &History, version: usize) -> String {
    history
        .versions
        .get(version)
        .map_or_else(String::new, |v| v.label.clone())
}

/// `lines` of `profile`, whose tree still names the frames before
/// `moved` (old frame, new frame, map), with the lines of the moved frames
/// taken through their maps (see the module's documentation).
fn mapped_lines(
    lines: &LineSelf,
    profile: &Profile,
    moved: &[(FrameId, FrameId, usize)],
    maps: &[BundleMap],
    frames: &FrameTable,
) -> LineSelf {
    let by_old: HashMap<FrameId, (FrameId, usize)> =
        moved.iter().map(|&(old, new, m)| (old, (new, m))).collect();
    let entries = lines.iter().filter_map(|(node, line, values)| {
        let Some(&(new, m)) = profile.tree.frame(node).and_then(|f| by_old.get(&f)) else {
            return Some((node, line, values));
        };
        let (source, original) = maps[m].map.original_line(line.checked_sub(1)?)?;
        (frames.get(new).file.as_deref() == Some(source)).then_some((node, original + 1, values))
    });
    LineSelf::from_entries(lines.metric_count(), entries)
}

/// `frame` (in a bundle) at its original place, when the map has one for
/// its line.
fn original_frame(frame: &Frame, map: &SourceMap) -> Option<Frame> {
    let line = frame.start_line.or(frame.line)?.checked_sub(1)?;
    let column = match (frame.start_line, frame.start_column) {
        (Some(_), Some(c)) => c - 1,
        _ => u32::MAX,
    };
    let at = map.original(line, column)?;
    let precise = column != u32::MAX;
    let function = match (frame.function.as_str(), at.name) {
        ("(anonymous)" | "", Some(name)) => name.to_string(),
        (_, Some(name)) if precise => name.to_string(),
        _ => frame.function.clone(),
    };
    Some(Frame {
        function,
        file: Some(at.source.to_string()),
        line: Some(at.line + 1),
        start_line: Some(at.line + 1),
        start_column: Some(at.column + 1),
        ..frame.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::{CallTree, Metric, Profile, ProfileEntry, Unit, Version};

    /// A bundle of two functions on lines 2 and 5 (1-based), mapped to
    /// `src/a.js` lines 10 and 20 (VLQ by hand: line 2 `AASA`: column 0,
    /// source 0, original line +9; line 5 `AAUA`: original line +10).
    const MAP: &str = r#"{"version": 3, "sources": ["../src/a.js"], "names": [],
        "mappings": ";AASA;;;AAUA"}"#;

    fn history() -> History {
        let mut h = History {
            versions: vec![Version::default()],
            ..History::default()
        };
        let mut tree = CallTree::new(1);
        let bundle = |name: &str, line| Frame {
            function: name.into(),
            file: Some("lib/bundle.js".into()),
            line: Some(line),
            start_line: Some(line),
            ..Frame::default()
        };
        let f = h.frames.intern(bundle("first", 2));
        let g = h.frames.intern(bundle("second", 5));
        let n = tree.path([f, g]);
        tree.add_self(n, 0, 3.0);
        let mut profile = Profile::new(vec![Metric::new("samples", Unit::Samples)]);
        profile.tree = tree;
        h.profiles.push(ProfileEntry {
            version: 0,
            benchmark: "b".into(),
            repetition: 1,
            source: "0/b.cpuprofile".into(),
            format: "cpuprofile",
            profile,
        });
        h
    }

    /// `lib/bundle.js` of version 0 and its map.
    fn bundle_map(map: SourceMap) -> BundleMap {
        BundleMap {
            version: 0,
            profile_paths: vec!["lib/bundle.js".into()],
            bundle: "lib/bundle.js".into(),
            map_path: "lib/bundle.js.map".into(),
            map,
        }
    }

    #[test]
    fn bundle_frames_take_their_original_file_and_line() {
        let mut h = history();
        let map = SourceMap::parse("lib/bundle.js.map", MAP.as_bytes()).unwrap();
        let notes = map_frames(&mut h, &[bundle_map(map)]);
        let tree = &h.profiles[0].profile.tree;
        let frames: Vec<&Frame> = tree
            .node_ids()
            .skip(1)
            .filter_map(|n| tree.frame(n))
            .map(|f| h.frames.get(f))
            .collect();
        let places: Vec<(&str, Option<&str>, Option<u32>)> = frames
            .iter()
            .map(|f| (f.function.as_str(), f.file.as_deref(), f.line))
            .collect();
        assert_eq!(
            places,
            [
                ("first", Some("src/a.js"), Some(10)),
                ("second", Some("src/a.js"), Some(20))
            ]
        );
        assert_eq!(notes.len(), 1);
        assert!(notes[0]
            .text
            .starts_with("2 frames of `lib/bundle.js` mapped"));
    }

    /// Line self values of a mapped frame move to the lines of its
    /// source; a bundle line holding code from several lines, or none,
    /// drops its value (it stays on the function's line).
    #[test]
    fn line_self_values_follow_the_map() {
        // Bundle lines (1-based) 2 → src/a.js 10, 3 → 11, 4 → 12 and 13.
        let map = r#"{"version": 3, "sources": ["../src/a.js"], "names": [],
            "mappings": ";AASA;AACA;AACA,IACA"}"#;
        let map = SourceMap::parse("lib/bundle.js.map", map.as_bytes()).unwrap();
        let mut h = history();
        let profile = &mut h.profiles[0].profile;
        let first = profile.tree.children(model::NodeId::ROOT)[0];
        let entries = [(3, [1.0]), (4, [2.0]), (9, [4.0])].map(|(line, v)| (first, line, v));
        profile.line_self = Some(LineSelf::from_entries(1, entries));
        map_frames(&mut h, &[bundle_map(map)]);
        let table = h.profiles[0].profile.line_self.as_ref().unwrap();
        let lines: Vec<(u32, Vec<f64>)> = table
            .lines_of(first)
            .map(|(l, v)| (l, v.to_vec()))
            .collect();
        assert_eq!(lines, [(11, vec![1.0])]);
    }

    #[test]
    fn frames_of_other_versions_and_files_stay() {
        let mut h = history();
        let map = SourceMap::parse("lib/bundle.js.map", MAP.as_bytes()).unwrap();
        let notes = map_frames(
            &mut h,
            &[BundleMap {
                version: 1,
                profile_paths: vec!["lib/bundle.js".into()],
                bundle: "lib/bundle.js".into(),
                map_path: "lib/bundle.js.map".into(),
                map,
            }],
        );
        assert!(notes.is_empty());
        let tree = &h.profiles[0].profile.tree;
        let first = tree.frame(tree.node_ids().nth(1).unwrap()).unwrap();
        assert_eq!(h.frames.get(first).file.as_deref(), Some("lib/bundle.js"));
    }
}
