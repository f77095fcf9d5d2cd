//! How frames link to code, for every page that shows frames: the source
//! page of a frame's file and line in its version ([`SourceLinks`], per
//! site; [`CodeLinks`], per page), and the editor link a configured
//! template makes of a location. The source page kind renders the pages
//! these links point at.
//!
//! A frame links to its own line, except a function whose profiles say
//! on which of its lines its self time went (V8's `positionTicks`): it
//! links to the line with the most ([`analysis::line_costs::hottest_lines`]),
//! the hottest row of its code on the source page, where a V8 frame's own
//! line is only where the function starts.

use rayon::prelude::*;

use super::paths;
use crate::function_home::{at_version, FunctionHomes};
use analysis::line_costs::{hottest_lines, HottestLines};
use model::{FrameId, FrameTable, History};
use vcs::sources::Sources;

/// Where source pages are, and how frames link to them.
pub struct SourceLinks<'a> {
    pub(crate) sources: &'a Sources,
    pub(crate) paths: Vec<String>,
    pub(crate) editor: &'a str,
    /// Per version, the hottest line of its functions with line self
    /// values (empty for versions without source files).
    hottest: Vec<HottestLines>,
}

impl<'a> SourceLinks<'a> {
    pub fn new(history: &History, sources: &'a Sources, editor: &'a str) -> SourceLinks<'a> {
        let paths = sources
            .files
            .iter()
            .map(|f| paths::source_page(&history.versions[f.version].name, &f.shown_path))
            .collect();
        let with_sources: std::collections::BTreeSet<usize> =
            sources.files.iter().map(|f| f.version).collect();
        let hottest = (0..history.versions.len())
            .into_par_iter()
            .map(|v| match with_sources.contains(&v) {
                true => hottest_lines(history, v),
                false => HottestLines::default(),
            })
            .collect();
        SourceLinks {
            sources,
            paths,
            editor,
            hottest,
        }
    }

    /// Site path (with `#L<line>`) of `frame`'s line in `version`, when
    /// its source is available: its function's hottest line when its
    /// profiles put self values on its lines, else its own.
    pub fn source(&self, frames: &FrameTable, version: usize, frame: FrameId) -> Option<String> {
        let f = frames.get(frame);
        let i = self.sources.get(version, f.file.as_deref()?)?;
        let hottest = self.hottest.get(version).and_then(|h| h.get(frame));
        Some(match hottest.or(f.line).filter(|l| *l > 0) {
            Some(line) => format!("{}#L{line}", self.paths[i]),
            None => self.paths[i].clone(),
        })
    }

    /// The index of the source file of `version` at repository path
    /// `repo_path`, when the site has it.
    pub fn source_at(&self, version: usize, repo_path: &str) -> Option<usize> {
        self.sources
            .files
            .iter()
            .position(|f| f.version == version && f.shown_path == repo_path)
    }

    /// How the profiles of `version` name the file at repository path
    /// `repo_path`, as every profile page shows it
    /// ([`crate::display_names::shown_file`]; several names joined), when
    /// they ran it and the site has its source.
    pub fn profiled_as(&self, version: usize, repo_path: &str) -> Option<String> {
        let file = &self.sources.files[self.source_at(version, repo_path)?];
        Some(crate::display_names::shown_files(&file.profile_paths)).filter(|s| !s.is_empty())
    }

    /// The hottest lines of `version`'s functions (empty without sources).
    pub fn hottest(&self, version: usize) -> Option<&HottestLines> {
        self.hottest.get(version)
    }

    /// The editor link of `frame`, from the configured template.
    /// The `[flame] editor` template ("" when there is none).
    pub fn editor_template(&self) -> &str {
        self.editor
    }

    pub fn editor(&self, frames: &FrameTable, frame: FrameId) -> Option<String> {
        let f = frames.get(frame);
        editor_link(self.editor, f.file.as_deref()?, f.line.unwrap_or(1))
    }
}

/// Code links of one page: frames of `version`, hrefs relative to the
/// page (`root` leads back to the site root).
pub struct CodeLinks<'a> {
    pub links: &'a SourceLinks<'a>,
    pub version: usize,
    pub root: String,
    /// For pages whose frames are functions (differential pages, root
    /// causes): each links to the code of a profile frame it was made
    /// from, whose file is the profiler's and whose line is a sampled one.
    pub origin: Option<&'a analysis::shapes::ShapeFrames>,
    /// Where the page's functions have their method section, when the
    /// page links them there (see [`MethodHomes`]).
    pub method: Option<MethodHomes<'a>>,
}

/// The method sections a page's frames link to: each function's section
/// of `version` in `benchmark`'s evolution matrix.
#[derive(Clone, Copy)]
pub struct MethodHomes<'a> {
    pub homes: &'a FunctionHomes<'a>,
    pub benchmark: &'a str,
    /// The version's name (section anchors are made of it).
    pub version: &'a str,
}

impl<'a> MethodHomes<'a> {
    /// The homes of `benchmark`'s functions in `version` of `site`.
    pub fn of(
        site: &'a crate::page_kind::SitePlan<'_>,
        benchmark: &'a str,
        version: usize,
    ) -> Self {
        MethodHomes {
            homes: &site.homes,
            benchmark,
            version: &site.history.versions[version].name,
        }
    }
}

/// The links of one location as page data stores them: `[source,
/// editor]`, with the function's method section third when the page
/// links it (`assets/flame.js` reads the third as optional).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LocationLinks {
    pub source: String,
    pub editor: String,
    pub method: String,
}

impl LocationLinks {
    /// Links to a source page and an editor, no method.
    pub fn code(source: String, editor: String) -> LocationLinks {
        LocationLinks {
            source,
            editor,
            method: String::new(),
        }
    }
}

impl serde::Serialize for LocationLinks {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let with_method = !self.method.is_empty();
        let mut seq = s.serialize_seq(Some(2 + usize::from(with_method)))?;
        seq.serialize_element(&self.source)?;
        seq.serialize_element(&self.editor)?;
        if with_method {
            seq.serialize_element(&self.method)?;
        }
        seq.end()
    }
}

impl CodeLinks<'_> {
    /// The links of `frame`: source page, editor and method section, each
    /// empty when there is none.
    pub fn of(&self, frames: &FrameTable, frame: FrameId) -> LocationLinks {
        let method = self.method_of(frame).unwrap_or_default();
        let frame = self.origin.map_or(frame, |o| o.origin(frame));
        let source = self
            .links
            .source(frames, self.version, frame)
            .map(|p| format!("{}{p}", self.root))
            .unwrap_or_default();
        let editor = self.links.editor(frames, frame).unwrap_or_default();
        LocationLinks {
            source,
            editor,
            method,
        }
    }

    /// The href of `frame`'s method section, when the page links it and
    /// the matrix shows the method.
    pub fn method_of(&self, frame: FrameId) -> Option<String> {
        let m = self.method?;
        let page = m.homes.method_page(m.benchmark, frame)?;
        Some(format!("{}{}", self.root, at_version(page, m.version)))
    }
}

/// The editor link the page script makes of a location (`path:line`, or
/// `path` meaning line 1), as `assets/flame.js` does.
pub fn editor_link_of_location(template: &str, location: &str) -> Option<String> {
    let parsed = location
        .rsplit_once(':')
        .filter(|(_, line)| !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|(path, line)| Some((path, line.parse::<u32>().ok().filter(|l| *l > 0)?)));
    let (path, line) = parsed.unwrap_or((location, 1));
    editor_link(template, path, line)
}

/// Fills `{path}` and `{line}`; `None` when the template is empty. The path
/// is percent-encoded where a URL needs it.
pub fn editor_link(template: &str, path: &str, line: u32) -> Option<String> {
    if template.is_empty() || path.is_empty() {
        return None;
    }
    // A file:// URL (V8's script URLs) names a local path.
    let path = path.strip_prefix("file://").unwrap_or(path);
    let encoded: String = path
        .trim_start_matches('/')
        .chars()
        .map(|c| match c {
            'A'..='Z' | 'a'..='z' | '0'..='9' | '/' | '.' | '_' | '-' | '~' | ':' => c.to_string(),
            c => c.to_string().bytes().map(|b| format!("%{b:02X}")).collect(),
        })
        .collect();
    Some(
        template
            .replace("{path}", &encoded)
            .replace("{line}", &line.to_string()),
    )
}
