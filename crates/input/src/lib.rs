//! Reading inputs: the directory walk, version order, format sniffing, and
//! one parser per format. This is the only code that touches input bytes.
//!
//! Every format implements [`Format`]; adding one means a new file and one
//! line in [`FORMATS`]. A parser returns a [`Parsed`] profile whose frames
//! live in its own [`FrameTable`]; the loader merges them into the history's
//! shared table.

pub mod bundles;
pub mod call_graph;
pub mod callgrind;
pub mod convert;
pub mod cpuprofile;
pub mod dhat;
pub mod digest;
mod envelope;
pub mod field;
pub mod firefox_profiler;
pub mod folded;
pub mod gprof;
pub mod heapprofile;
pub mod imports;
pub mod jfr;
pub mod json_pull;
pub mod load;
pub mod massif;
pub mod measurements;
pub mod names;
pub mod native;
pub mod perf_script;
pub mod pprof;
pub mod pstats;
pub mod pyinstrument;
pub mod pyisession;
pub mod records;
pub mod sniff;
pub mod source_map;
pub mod speedscope;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
pub mod text;
pub mod trace_events;
mod unrecognised;
mod valgrind_frame;
pub mod walk;

use model::error::ParseError;
use model::limits::LimitHit;
use model::{FrameTable, Profile};

/// A profile as one parser produced it, with its own frame table.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub frames: FrameTable,
    pub profile: Profile,
    /// Parts of the input that were skipped (bad lines, unknown records),
    /// each with its place. The profile holds everything else.
    pub warnings: Vec<ParseError>,
    /// What the file says besides its samples, for exports to write back.
    pub header: ProfileHeader,
}

impl Parsed {
    pub fn new(frames: FrameTable, profile: Profile) -> Parsed {
        Parsed {
            frames,
            profile,
            warnings: Vec::new(),
            header: ProfileHeader::default(),
        }
    }
}

/// What a profile file says besides its samples, kept so that `convert`
/// writes it back and a viewer opens the export as it opens the original.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileHeader {
    /// The metric the profiler's own viewers show first, when that is not
    /// the first: pprof's `default_sample_type` (by pprof's rule the last
    /// sample type when the file names none), a V8 CPU profile's time.
    pub default_metric: Option<usize>,
    /// pprof's `time_nanos` (when the profile was taken) and
    /// `duration_nanos`; 0 when not known.
    pub time_nanos: i64,
    pub duration_nanos: i64,
    /// pprof's `period_type` (type, unit) and `period`, as written.
    pub period: Option<(String, String, i64)>,
}

/// The data of one input file after gzip has been undone.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The file name (not the path), a hint only: content decides.
    pub file_name: &'a str,
    pub bytes: &'a [u8],
}

/// One input format.
pub trait Format: Sync {
    /// Short name shown on pages, e.g. `pprof`.
    fn name(&self) -> &'static str;
    /// True when `input` looks like this format. Must be cheap: look at the
    /// first few kilobytes only.
    fn sniff(&self, input: &Input) -> bool;
    /// Parses the whole input.
    fn parse(&self, input: &Input) -> Result<Parsed, ParseError>;
    /// [`Format::parse`] with its last steps, those that need the parsed
    /// profile but not the input's bytes (the line fold), left to
    /// [`Unfinished::finish`]: the loader frees a big file's bytes first,
    /// so that they and the folded tree are never held at once.
    fn parse_unfinished(&self, input: &Input) -> Result<Unfinished, ParseError> {
        self.parse(input).map(Unfinished::done)
    }
}

/// A parsed profile and the steps left to finish it (see
/// [`Format::parse_unfinished`]).
pub struct Unfinished {
    parsed: Parsed,
    finish: fn(Parsed) -> Parsed,
}

impl Unfinished {
    /// A profile with nothing left to do.
    pub fn done(parsed: Parsed) -> Unfinished {
        Unfinished {
            parsed,
            finish: |p| p,
        }
    }

    /// A profile that `finish` finishes.
    pub fn then(parsed: Parsed, finish: fn(Parsed) -> Parsed) -> Unfinished {
        Unfinished { parsed, finish }
    }

    pub fn finish(self) -> Parsed {
        (self.finish)(self.parsed)
    }
}

/// `parsed` with one frame per function ([`model::fold_sampled_lines`]):
/// the last step of most readers.
pub(crate) fn fold_lines(parsed: Parsed) -> Parsed {
    let (frames, profile) = model::fold_sampled_lines(parsed.frames, parsed.profile);
    Parsed {
        frames,
        profile,
        ..parsed
    }
}

/// Every format, in sniffing order: the most specific signatures first.
pub static FORMATS: &[&dyn Format] = &[
    &native::Native,
    &speedscope::Speedscope,
    // Before the other JSON formats: its signature (`meta` with
    // `preprocessedProfileVersion`) is the most specific.
    &firefox_profiler::FirefoxProfiler,
    // Before heapprofile and cpuprofile: its events may embed either's
    // keys.
    &trace_events::TraceEvents,
    // Before cpuprofile: both are JSON objects with V8 call frames.
    &heapprofile::HeapProfile,
    &cpuprofile::CpuProfile,
    &jfr::Jfr,
    &dhat::Dhat,
    &massif::Massif,
    &pyinstrument::Pyinstrument,
    &pyisession::Pyisession,
    // Before pprof, which claims any binary `.prof` file.
    &pstats::Pstats,
    &pprof::Pprof,
    &perf_script::PerfScript,
    &callgrind::Callgrind,
    &gprof::Gprof,
    &folded::Folded,
];

/// Looks up a format by name (for `--from`).
pub fn format_named(name: &str) -> Option<&'static dyn Format> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// Decompresses if needed, picks the profile format by content and parses.
pub fn parse_bytes(file_name: &str, bytes: &[u8]) -> Result<(&'static str, Parsed), ParseError> {
    let bytes = unwrapped(bytes)?;
    parse_profile(file_name, &bytes)
}

/// Reads the binary JFR recording at `path` (see [`jfr`]): unlike every
/// other format it is read by the JDK's `jfr` tool, which needs the file.
pub fn parse_jfr_recording(path: &std::path::Path) -> Result<(&'static str, Parsed), ParseError> {
    Ok((jfr::Jfr.name(), checked(jfr::read_recording(path)?)?))
}

/// What one input file held.
#[derive(Debug)]
pub enum Loaded {
    /// A profile, and the name of the format that read it (boxed: it is
    /// large beside a measurement file, and moved around in a Vec).
    Profile(&'static str, Box<Parsed>),
    /// Repeated measurements from a benchmark tool, reduced to what a
    /// build reads of them.
    Measurements(measurements::Reduced),
}

/// Decompresses if needed and reads a measurement file or a profile.
/// `relative_path` (inside the version) names Criterion's benchmarks.
pub fn load_bytes(
    relative_path: &str,
    file_name: &str,
    bytes: &[u8],
) -> Result<Loaded, ParseError> {
    load_bytes_unfinished(relative_path, file_name, bytes)?.finish()
}

/// [`load_bytes`] with a profile's last steps left to
/// [`UnfinishedLoad::finish`], for a caller that frees `bytes` first (and
/// with them the decompressed copy, already freed on return).
pub fn load_bytes_unfinished(
    relative_path: &str,
    file_name: &str,
    bytes: &[u8],
) -> Result<UnfinishedLoad, ParseError> {
    let bytes = unwrapped(bytes)?;
    staged_or_unfinished(Some(relative_path), file_name, &bytes)?
        .read_samples(&pprof::Buffer(&bytes))
}

/// [`load_bytes_unfinished`], but a pprof profile is left before its
/// samples ([`pprof::Staged`]): the caller frees `bytes`, then has the
/// samples read from the file again ([`StagedLoad::read_samples`]; from
/// the decompressed stream when the file is gzipped), so that a big
/// profile's bytes and its call tree are never held at once.
pub fn load_bytes_staged(
    relative_path: &str,
    file_name: &str,
    bytes: &[u8],
) -> Result<StagedLoad, ParseError> {
    staged_or_unfinished(Some(relative_path), file_name, &unwrapped(bytes)?)
}

/// What [`load_bytes_staged`] read.
pub enum StagedLoad {
    Ready(UnfinishedLoad),
    /// A pprof profile whose samples are still to be read from its bytes.
    PprofSamples(Box<pprof::Staged>),
}

impl StagedLoad {
    /// The load, with a pprof profile's samples read from `source` (the
    /// bytes [`load_bytes_staged`] was given, or the same bytes again).
    pub fn read_samples(self, source: &dyn pprof::Source) -> Result<UnfinishedLoad, ParseError> {
        match self {
            StagedLoad::Ready(load) => Ok(load),
            StagedLoad::PprofSamples(staged) => {
                let parsed = staged.read_samples(source)?;
                Ok(UnfinishedLoad::Profile(
                    pprof::Pprof.name(),
                    Box::new(parsed),
                ))
            }
        }
    }
}

/// A profile read from `bytes` (decompressed), a pprof profile up to its
/// samples; or, given the file's path within its version, a measurement
/// file.
fn staged_or_unfinished(
    relative_path: Option<&str>,
    file_name: &str,
    bytes: &[u8],
) -> Result<StagedLoad, ParseError> {
    let measured = relative_path.and_then(|path| measurements::sniff_and_parse(path, bytes));
    if let Some(read) = measured {
        return read.map(|file| {
            StagedLoad::Ready(UnfinishedLoad::Done(Loaded::Measurements(
                measurements::Reduced::of(file),
            )))
        });
    }
    let input = Input { file_name, bytes };
    let format = sniffed_format(&input)?;
    if format.name() == pprof::Pprof.name() {
        return Ok(StagedLoad::PprofSamples(Box::new(pprof::stage(bytes)?)));
    }
    Ok(StagedLoad::Ready(UnfinishedLoad::Profile(
        format.name(),
        Box::new(format.parse_unfinished(&input)?),
    )))
}

/// What [`load_bytes_unfinished`] read.
pub enum UnfinishedLoad {
    Done(Loaded),
    Profile(&'static str, Box<Unfinished>),
}

impl UnfinishedLoad {
    /// The profile finished and checked against the limits.
    pub fn finish(self) -> Result<Loaded, ParseError> {
        match self {
            UnfinishedLoad::Done(loaded) => Ok(loaded),
            UnfinishedLoad::Profile(format, unfinished) => {
                let parsed = checked((*unfinished).finish())?;
                Ok(Loaded::Profile(format, Box::new(parsed)))
            }
        }
    }
}

/// The bytes with gzip undone; an empty file is an error.
fn unwrapped(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, ParseError> {
    let bytes = if text::is_gzip(bytes) {
        std::borrow::Cow::Owned(text::gunzip(bytes)?)
    } else {
        std::borrow::Cow::Borrowed(bytes)
    };
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ParseError::whole("the file is empty"));
    }
    Ok(bytes)
}

fn parse_profile(file_name: &str, bytes: &[u8]) -> Result<(&'static str, Parsed), ParseError> {
    let input = Input { file_name, bytes };
    let format = sniffed_format(&input)?;
    Ok((format.name(), checked(format.parse(&input)?)?))
}

/// [`parse_bytes`] (a profile, never a measurement file), but a pprof
/// profile is left before its samples, as [`load_bytes_staged`] leaves it.
pub fn parse_bytes_staged(file_name: &str, bytes: &[u8]) -> Result<StagedLoad, ParseError> {
    staged_or_unfinished(None, file_name, &unwrapped(bytes)?)
}

/// The first format whose signature `input` has, or why none reads it.
/// Whether a file whose first bytes are `head` reads as pprof: not as
/// measurements (given its path within its version), nor as a format
/// sniffed before pprof.
pub(crate) fn reads_as_pprof(relative_path: Option<&str>, file_name: &str, head: &[u8]) -> bool {
    !measured_by_head(relative_path, head) && sniffs_as(pprof::Pprof.name(), file_name, head)
}

/// Whether a file whose first bytes are `head` reads as measurements,
/// given its path within its version.
pub(crate) fn measured_by_head(relative_path: Option<&str>, head: &[u8]) -> bool {
    relative_path.is_some_and(|path| measurements::sniff_and_parse(path, head).is_some())
}

/// Whether `bytes` are sniffed as the format named `format` (and not as
/// one sniffed before it).
pub(crate) fn sniffs_as(format: &str, file_name: &str, bytes: &[u8]) -> bool {
    let input = Input { file_name, bytes };
    sniffed_format(&input).is_ok_and(|found| found.name() == format)
}

fn sniffed_format(input: &Input) -> Result<&'static dyn Format, ParseError> {
    let found = FORMATS.iter().find(|f| f.sniff(input)).copied();
    found.ok_or_else(|| {
        if let Some(hint) = known_unread_format(input.bytes) {
            return ParseError::whole(hint);
        }
        ParseError::whole(unrecognised::message(input.bytes))
    })
}

/// What a file is when it is a format people have that perfatlas does not
/// read, with what to do: said instead of "unrecognised format".
fn known_unread_format(bytes: &[u8]) -> Option<String> {
    if bytes.starts_with(b"PERFILE2") {
        return Some(
            "a perf.data file (perf record's binary output), which perfatlas reads as text: run `perf script -i FILE > FILE.perf` and give that instead".into(),
        );
    }
    None
}

/// Rejects a file whose frames or tree ran into a limit of
/// [`model::limits`]; otherwise lifts the limits, so the analysis
/// can grow the structures further (merges, derived trees), and gives
/// back the tree's spare capacity.
/// `parsed`, checked against the limits ([`check_limits`]).
fn checked(mut parsed: Parsed) -> Result<Parsed, ParseError> {
    check_limits(&mut parsed)?;
    Ok(parsed)
}

fn check_limits(parsed: &mut Parsed) -> Result<(), ParseError> {
    if parsed.frames.over_limit() {
        return Err(ParseError::whole(LimitHit::Frames.message()));
    }
    if let Some(hit) = parsed.profile.tree.over_limit() {
        return Err(ParseError::whole(hit.message()));
    }
    parsed.frames.unbound();
    parsed.profile.tree.unbound();
    mark_cut_stacks(parsed);
    parsed.profile.tree.shrink_to_fit();
    Ok(())
}

/// Names the nodes that hold stacks cut at the depth limit
/// ([`model::limits::MAX_DEPTH`]), keeps only the frames the tree still
/// uses, and says what was cut.
fn mark_cut_stacks(parsed: &mut Parsed) {
    let places = parsed.profile.tree.cut_nodes().len();
    if places == 0 {
        return;
    }
    let name = model::limits::cut_frame_name();
    let cut = parsed.frames.intern(model::Frame::named(name.clone()));
    parsed.profile.tree.name_cuts(cut);
    drop_unused_frames(parsed);
    let limit = model::limits::thousands(u64::from(model::limits::MAX_DEPTH));
    let at = match places {
        1 => "at one place".to_string(),
        n => format!("at {} places", model::limits::thousands(n as u64)),
    };
    parsed.warnings.push(ParseError::whole(format!(
        "stacks deeper than {limit} frames, the limit, were cut there ({at}): their samples are counted in the frame `{name}`, the functions below it are not shown"
    )));
}

/// Drops the frames no node of the tree names (the frames of a stack's
/// cut part, which would otherwise each cost a matrix row and page
/// sections).
fn drop_unused_frames(parsed: &mut Parsed) {
    let tree = &parsed.profile.tree;
    let mut used = vec![false; parsed.frames.len()];
    for node in tree.node_ids() {
        if let Some(slot) = tree.frame(node).and_then(|f| used.get_mut(f.0 as usize)) {
            *slot = true;
        }
    }
    let mut kept = FrameTable::default();
    let map: Vec<model::FrameId> = parsed
        .frames
        .iter()
        .map(|(id, frame)| match used[id.0 as usize] {
            true => kept.intern(frame.clone()),
            false => model::FrameId(0),
        })
        .collect();
    parsed.profile.tree.remap_frames(&map);
    parsed.frames = kept;
}

/// The first `n` bytes of `bytes`, for sniffing.
pub fn head(bytes: &[u8], n: usize) -> &[u8] {
    &bytes[..bytes.len().min(n)]
}
