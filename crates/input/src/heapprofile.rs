//! V8 sampling heap profiles (`.heapprofile`), as written by
//! `node --heap-prof`, Chrome DevTools' "Allocation sampling" and the
//! DevTools protocol's `HeapProfiler.stopSampling`:
//!
//! ```text
//! {"head": {"callFrame": {"functionName", "scriptId", "url", "lineNumber", "columnNumber"},
//!           "selfSize": bytes, "id": n, "children": [ …same… ]},
//!  "samples": [{"size": bytes, "nodeId": n, "ordinal": n}, …]}
//! ```
//!
//! Older Chrome versions write neither `samples` nor `id`.
//!
//! The call tree is nested JSON, one object and one `children` array per
//! frame, so real stacks go deeper than serde_json's recursion limit. The
//! file is read with [`super::json_pull`] instead, which keeps its open
//! containers on the heap: a 100,000-frame stack reads like any other, and
//! the tree's own depth limit ([`model::limits::MAX_DEPTH`]) is
//! what bounds it.
//!
//! Metrics: `alloc_space` (bytes, from `selfSize`) and, when the file has
//! `samples`, `alloc_samples` (how many samples each context took).
//! Samples naming an id above every node of the tree are allocations V8
//! sampled while it wrote the profile, after the tree (node 20 captures
//! have a few): they cannot be placed, and are counted in a note on the
//! profile ([`Profile::notes`]), not a warning, so a normal capture is not
//! a skipped input. A sample naming another unknown id, or none, is
//! skipped with a warning. V8
//! scales `selfSize` up from its samples to estimate all the bytes
//! allocated there; by default it also forgets a sample once its object is
//! garbage-collected, so unless the recording asked to keep those
//! (`includeObjectsCollectedByMajorGC` / `…MinorGC`) the figures are the
//! sampled allocations still alive when the profile was written.
//!
//! Frames follow [`super::cpuprofile`]: `url` is the file, the 0-based
//! `lineNumber` becomes a 1-based line, an empty function name is
//! `(anonymous)`, and a parentless `(root)` is the tree's root.
//!
//! V8 records no allocated type, so allocation sites name the allocating
//! function instead ([`model::ClassSource::AllocatingFunction`]), counted in
//! samples; children are in order of first appearance (no time order).

use std::collections::HashMap;

use super::json_pull::{Event, Pull};
use super::sniff::{has_key, JsonHead};
use super::{cpuprofile, text, Format, Input, Parsed};
use model::error::ParseError;
use model::{CountKind, FrameTable, Metric, NodeId, Profile, Unit};

pub struct HeapProfile;

impl Format for HeapProfile {
    fn name(&self) -> &'static str {
        "heapprofile"
    }

    /// A JSON object whose first few kilobytes have the keys `head`,
    /// `callFrame` and `selfSize`, and not the `nodes` or `hitCount` keys
    /// of a `.cpuprofile` (whose old format has a nested `head` too).
    fn sniff(&self, input: &Input) -> bool {
        let Some(head) = JsonHead::object(input.bytes, 4096) else {
            return false;
        };
        let head = head.document();
        has_key(head, "head")
            && has_key(head, "callFrame")
            && has_key(head, "selfSize")
            && !has_key(head, "nodes")
            && !has_key(head, "hitCount")
    }

    fn parse(&self, input: &Input) -> Result<Parsed, ParseError> {
        let data = text::decode_text(input.bytes);
        let data = data.trim_start_matches('\u{feff}');
        let raw = read(data)?;
        build(raw)
    }
}

/// One node of the nested tree, flattened (parents come before children).
struct RawNode {
    function: Option<String>,
    url: Option<String>,
    line: Option<f64>,
    column: Option<f64>,
    self_size: Option<f64>,
    id: Option<f64>,
    /// Index of the parent node; `None` for `head`.
    parent: Option<u32>,
    /// Position in the parent's `children`, for JSON paths.
    position: u32,
}

struct RawSample {
    node_id: Option<f64>,
    /// Bytes of the sampled allocation.
    size: Option<f64>,
    index: u32,
}

struct RawProfile {
    nodes: Vec<RawNode>,
    samples: Option<Vec<RawSample>>,
}

/// Where the reader is inside the document.
enum Context {
    /// The top-level object.
    Top,
    /// A node object (index into `nodes`).
    Node(usize),
    /// A node's `callFrame` object.
    CallFrame(usize),
    /// A node's `children` array, with the position of the next child.
    Children(usize, u32),
    /// The `samples` array, with the index of the next sample.
    Samples(u32),
    /// One sample object.
    Sample,
}

/// The JSON path of node `i`, shortened in the middle for deep nodes.
fn node_path(nodes: &[RawNode], i: usize) -> String {
    let mut steps = Vec::new();
    let mut n = i;
    while let Some(p) = nodes[n].parent {
        steps.push(nodes[n].position);
        n = p as usize;
    }
    steps.reverse();
    const KEEP: usize = 8;
    let mut path = String::from("$.head");
    if steps.len() > 3 * KEEP {
        for s in &steps[..KEEP] {
            path.push_str(&format!(".children[{s}]"));
        }
        path.push_str(&format!(".…{} levels…", steps.len() - 2 * KEEP));
        for s in &steps[steps.len() - KEEP..] {
            path.push_str(&format!(".children[{s}]"));
        }
    } else {
        for s in &steps {
            path.push_str(&format!(".children[{s}]"));
        }
    }
    path
}

fn read(data: &str) -> Result<RawProfile, ParseError> {
    let mut reader = Reader {
        pull: Pull::new(data),
        nodes: Vec::new(),
        samples: None,
        seen_head: false,
    };
    reader.open_document()?;
    let mut stack = vec![Context::Top];
    while let Some(context) = stack.last_mut() {
        let event = match reader.pull.next_event() {
            Ok(Some(e)) => e,
            Ok(None) => break,
            Err(e) => return Err(reader.pull.syntax(e)),
        };
        let step = match (context, event) {
            (Context::Top, Event::Key(key)) => reader.top_member(&key)?,
            (Context::Top, _) => Step::Leave,
            (Context::Node(i), Event::Key(key)) => reader.node_member(*i, &key)?,
            (Context::Node(i), _) => reader.end_node(*i)?,
            (Context::CallFrame(i), Event::Key(key)) => {
                reader.call_frame_member(*i, key.into_owned())?
            }
            (Context::CallFrame(_), _) => Step::Leave,
            (Context::Children(parent, position), Event::ObjectStart) => {
                let (parent, at) = (*parent, *position);
                *position += 1;
                reader.nodes.push(RawNode::new(Some(parent as u32), at));
                Step::Enter(Context::Node(reader.nodes.len() - 1))
            }
            (Context::Children(_, _), Event::ArrayEnd) => Step::Leave,
            (Context::Children(parent, position), other) => {
                return Err(ParseError::json(
                    format!("{}.children[{position}]", node_path(&reader.nodes, *parent)),
                    format!("expected a node object, found {}", other.describe()),
                ));
            }
            (Context::Samples(index), Event::ObjectStart) => {
                let at = *index;
                *index += 1;
                if let Some(list) = reader.samples.as_mut() {
                    list.push(RawSample {
                        node_id: None,
                        size: None,
                        index: at,
                    });
                }
                Step::Enter(Context::Sample)
            }
            (Context::Samples(_), Event::ArrayEnd) => Step::Leave,
            (Context::Samples(index), other) => {
                return Err(ParseError::json(
                    format!("$.samples[{index}]"),
                    format!("expected a sample object, found {}", other.describe()),
                ));
            }
            (Context::Sample, Event::Key(key)) => reader.sample_member(key.into_owned())?,
            (Context::Sample, _) => Step::Leave,
        };
        match step {
            Step::Stay => {}
            Step::Enter(inner) => stack.push(inner),
            Step::Leave => {
                stack.pop();
            }
        }
    }
    reader.finish()
}

/// What an event does to the stack of contexts.
enum Step {
    Stay,
    /// A member's value opens a container to read.
    Enter(Context),
    /// The current container ended.
    Leave,
}

/// The document read so far, and where the reader is in it.
struct Reader<'a> {
    pull: Pull<'a>,
    nodes: Vec<RawNode>,
    samples: Option<Vec<RawSample>>,
    seen_head: bool,
}

impl<'a> Reader<'a> {
    /// The document must be an object.
    fn open_document(&mut self) -> Result<(), ParseError> {
        match self.value()? {
            Some(Event::ObjectStart) => Ok(()),
            Some(other) => Err(ParseError::json(
                "$",
                format!(
                    "expected an object with a `head` tree (a V8 heap profile), found {}",
                    other.describe()
                ),
            )),
            None => Err(ParseError::whole("the file is empty")),
        }
    }

    /// The next event: the value after a key, which the caller checks
    /// against what the key needs.
    fn value(&mut self) -> Result<Option<Event<'a>>, ParseError> {
        self.pull.next_event().map_err(|e| self.pull.syntax(e))
    }

    /// Skips the value of a member that is not read.
    fn skip_value(&mut self) -> Result<Step, ParseError> {
        self.pull.skip_value().map_err(|e| self.pull.syntax(e))?;
        Ok(Step::Stay)
    }

    /// A member of the top-level object: `head` (the tree, once) or
    /// `samples`.
    fn top_member(&mut self, key: &str) -> Result<Step, ParseError> {
        match key {
            "head" => {
                let at = self.pull.offset();
                match self.value()? {
                    Some(Event::ObjectStart) if !self.seen_head => {
                        self.seen_head = true;
                        self.nodes.push(RawNode::new(None, 0));
                        Ok(Step::Enter(Context::Node(0)))
                    }
                    Some(Event::ObjectStart) => {
                        Err(self.pull.error_at(at, "`head` is given twice"))
                    }
                    Some(other) => Err(ParseError::json(
                        "$.head",
                        format!("expected the root node object, found {}", other.describe()),
                    )),
                    None => Err(truncated(&self.pull)),
                }
            }
            "samples" => match self.value()? {
                Some(Event::ArrayStart) => {
                    self.samples = Some(Vec::new());
                    Ok(Step::Enter(Context::Samples(0)))
                }
                Some(Event::Null) => Ok(Step::Stay),
                Some(other) => Err(ParseError::json(
                    "$.samples",
                    format!("expected an array of samples, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            _ => self.skip_value(),
        }
    }

    /// A member of node `i`: its `callFrame`, `selfSize`, `id` or
    /// `children`.
    fn node_member(&mut self, i: usize, key: &str) -> Result<Step, ParseError> {
        match key {
            "callFrame" => match self.value()? {
                Some(Event::ObjectStart) => Ok(Step::Enter(Context::CallFrame(i))),
                Some(Event::Null) => Ok(Step::Stay),
                Some(other) => Err(ParseError::json(
                    format!("{}.callFrame", node_path(&self.nodes, i)),
                    format!("expected an object, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            "selfSize" => match self.value()? {
                Some(Event::Number(n)) if n.is_finite() && n >= 0.0 => {
                    self.nodes[i].self_size = Some(n);
                    Ok(Step::Stay)
                }
                Some(Event::Number(n)) => Err(ParseError::json(
                    format!("{}.selfSize", node_path(&self.nodes, i)),
                    format!("selfSize {n} is not a non-negative number of bytes"),
                )),
                Some(other) => Err(ParseError::json(
                    format!("{}.selfSize", node_path(&self.nodes, i)),
                    format!("expected a number of bytes, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            "id" => match self.value()? {
                Some(Event::Number(n)) => {
                    self.nodes[i].id = Some(n);
                    Ok(Step::Stay)
                }
                Some(other) => Err(ParseError::json(
                    format!("{}.id", node_path(&self.nodes, i)),
                    format!("expected a number, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            "children" => match self.value()? {
                Some(Event::ArrayStart) => Ok(Step::Enter(Context::Children(i, 0))),
                Some(Event::Null) => Ok(Step::Stay),
                Some(other) => Err(ParseError::json(
                    format!("{}.children", node_path(&self.nodes, i)),
                    format!("expected an array of nodes, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            _ => self.skip_value(),
        }
    }

    /// Node `i`'s object ended: it must have said how many bytes it holds.
    fn end_node(&self, i: usize) -> Result<Step, ParseError> {
        if self.nodes[i].self_size.is_none() {
            return Err(ParseError::json(
                node_path(&self.nodes, i),
                "the node has no `selfSize` (bytes allocated there)",
            ));
        }
        Ok(Step::Leave)
    }

    /// A member of node `i`'s `callFrame`: `functionName`, `url` or
    /// `lineNumber`.
    fn call_frame_member(&mut self, i: usize, field: String) -> Result<Step, ParseError> {
        match field.as_str() {
            "functionName" | "url" => match self.value()? {
                Some(Event::String(s)) => {
                    let s = Some(s.into_owned());
                    if field == "url" {
                        self.nodes[i].url = s;
                    } else {
                        self.nodes[i].function = s;
                    }
                    Ok(Step::Stay)
                }
                Some(Event::Null) => Ok(Step::Stay),
                Some(other) => Err(ParseError::json(
                    format!("{}.callFrame.{field}", node_path(&self.nodes, i)),
                    format!("expected a string, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            "lineNumber" | "columnNumber" => match self.value()? {
                Some(Event::Number(n)) => {
                    match field.as_str() {
                        "lineNumber" => self.nodes[i].line = Some(n),
                        _ => self.nodes[i].column = Some(n),
                    }
                    Ok(Step::Stay)
                }
                Some(Event::Null) => Ok(Step::Stay),
                Some(other) => Err(ParseError::json(
                    format!("{}.callFrame.{field}", node_path(&self.nodes, i)),
                    format!("expected a number, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            _ => self.skip_value(),
        }
    }

    /// A member of the last sample: `nodeId` or `size`.
    fn sample_member(&mut self, field: String) -> Result<Step, ParseError> {
        let index = self
            .samples
            .as_ref()
            .and_then(|s| s.last())
            .map_or(0, |s| s.index);
        match field.as_str() {
            "nodeId" | "size" => match self.value()? {
                Some(Event::Number(n)) => {
                    if let Some(s) = self.samples.as_mut().and_then(|s| s.last_mut()) {
                        if field == "nodeId" {
                            s.node_id = Some(n);
                        } else {
                            s.size = Some(n);
                        }
                    }
                    Ok(Step::Stay)
                }
                Some(other) => Err(ParseError::json(
                    format!("$.samples[{index}].{field}"),
                    format!("expected a number, found {}", other.describe()),
                )),
                None => Err(truncated(&self.pull)),
            },
            _ => self.skip_value(),
        }
    }

    /// Nothing may follow the top-level object, which must have had a
    /// `head`.
    fn finish(mut self) -> Result<RawProfile, ParseError> {
        if let Err(e) = self.pull.next_event() {
            return Err(self.pull.syntax(e));
        }
        if !self.seen_head {
            return Err(ParseError::json(
                "$",
                "expected a `head` member holding the call tree (a V8 heap profile)",
            ));
        }
        Ok(RawProfile {
            nodes: self.nodes,
            samples: self.samples,
        })
    }
}

fn truncated(pull: &Pull) -> ParseError {
    pull.error_at(
        pull.offset(),
        "invalid JSON: unexpected end of the data (the file is truncated)",
    )
}

impl RawNode {
    fn new(parent: Option<u32>, position: u32) -> RawNode {
        RawNode {
            function: None,
            url: None,
            line: None,
            column: None,
            self_size: None,
            id: None,
            parent,
            position,
        }
    }
}

fn build(raw: RawProfile) -> Result<Parsed, ParseError> {
    let RawProfile { mut nodes, samples } = raw;
    let mut metrics = vec![Metric::new("alloc_space", Unit::Bytes)];
    if samples.is_some() {
        metrics.push(Metric::new("alloc_samples", Unit::Samples));
    }
    let (space, count) = (0, samples.as_ref().map(|_| 1));
    let mut frames = FrameTable::new();
    let mut profile = Profile::new(metrics);
    let mut tree_node: Vec<NodeId> = Vec::with_capacity(nodes.len());
    // Node ids, for samples; a node without an id cannot be sampled.
    let mut by_id: HashMap<i64, usize> = HashMap::new();
    for i in 0..nodes.len() {
        let (function, url) = (nodes[i].function.take(), nodes[i].url.take());
        let node = &nodes[i];
        let frame = cpuprofile::make_frame(function, url, node.line, node.column);
        let at = match node.parent {
            None if frame.function == "(root)" => NodeId::ROOT,
            None => profile.tree.child(NodeId::ROOT, frames.intern(frame)),
            Some(p) => {
                let under = tree_node[p as usize];
                profile.tree.child(under, frames.intern(frame))
            }
        };
        tree_node.push(at);
        profile
            .tree
            .add_self(at, space, node.self_size.unwrap_or(0.0));
        if let Some(id) = node.id {
            if id.fract() != 0.0 || !id.is_finite() || id.abs() > 9.0e15 {
                return Err(ParseError::json(
                    format!("{}.id", node_path(&nodes, i)),
                    format!("node id {id} is not an integer"),
                ));
            }
            if let Some(&first) = by_id.get(&(id as i64)) {
                return Err(ParseError::json(
                    format!("{}.id", node_path(&nodes, i)),
                    format!(
                        "node id {id} is used twice (first by {})",
                        node_path(&nodes, first)
                    ),
                ));
            }
            by_id.insert(id as i64, i);
        }
    }
    let mut warnings = Vec::new();
    if let (Some(samples), Some(count)) = (samples, count) {
        // V8 numbers its nodes as it creates them, writes the tree, then
        // lists the samples: samples of allocations made while it wrote
        // (nodes created after the tree) name ids above every id in the
        // tree. They cannot be placed: counted and noted, not warned about
        // (a normal capture has a few). Any other sample without a node is
        // a fault of the file.
        let newest = by_id.keys().copied().max();
        let mut unknown: Vec<u32> = Vec::new();
        let (mut late, mut late_bytes) = (0u64, 0.0);
        for s in &samples {
            let id = s.node_id.filter(|id| id.fract() == 0.0 && id.is_finite());
            match id.and_then(|id| by_id.get(&(id as i64))) {
                Some(&i) => profile.tree.add_self(tree_node[i], count, 1.0),
                None if id
                    .zip(newest)
                    .is_some_and(|(id, newest)| id > newest as f64) =>
                {
                    late += 1;
                    late_bytes += s.size.filter(|b| b.is_finite() && *b > 0.0).unwrap_or(0.0);
                }
                None => unknown.push(s.index),
            }
        }
        if late > 0 {
            profile.notes.push(late_note(late, late_bytes));
        }
        if let Some(&first) = unknown.first() {
            let what = match samples
                .iter()
                .find(|s| s.index == first)
                .and_then(|s| s.node_id)
            {
                Some(id) => format!("names node id {id}, which is not in the tree"),
                None => "has no `nodeId`".to_string(),
            };
            let others = match unknown.len() {
                1 => String::new(),
                n => format!(" ({} more samples without a node were skipped too)", n - 1),
            };
            warnings.push(ParseError::json(
                format!("$.samples[{first}].nodeId"),
                format!("the sample {what}; skipped{others}"),
            ));
        }
    }
    profile.allocations_by_function(&frames, count, Some(space), (None, None));
    if let Some(alloc) = profile.allocations.as_mut() {
        if count.is_some() {
            alloc.count_kind = CountKind::Samples;
        }
        alloc.call_order = false;
    }
    Ok(Parsed {
        frames,
        profile,
        warnings,
        header: Default::default(),
    })
}

/// The note on samples naming nodes created after the tree:
/// "6 samples (238 KiB) name nodes …". Sizes are written as the pages
/// write bytes (three significant digits, binary units).
fn late_note(samples: u64, bytes: f64) -> String {
    let (value, unit) = match bytes {
        b if b >= 1024.0 * 1024.0 => (b / (1024.0 * 1024.0), "MiB"),
        b if b >= 1024.0 => (b / 1024.0, "KiB"),
        b => (b, "B"),
    };
    let digits = match value {
        v if v >= 100.0 || unit == "B" => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    let size = match bytes > 0.0 {
        true => format!(" ({value:.digits$} {unit})"),
        false => String::new(),
    };
    let (noun, verb, they, them) = match samples {
        1 => ("sample", "names a node", "it is", "it"),
        _ => ("samples", "name nodes", "they are", "them"),
    };
    format!(
        "{samples} {noun}{size} {verb} that V8 created after it wrote the call tree \
         (allocations sampled while it wrote the profile): {they} not placed, and no \
         figure counts {them}."
    )
}

#[cfg(test)]
mod tests;
