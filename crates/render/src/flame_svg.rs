//! SVG for a laid-out top-down flame graph (root at the top, callees
//! below). The same frames are written inline in a page and as a standalone
//! `.svg` file with its own style and zoom script.
//!
//! Without scripts every frame still shows its name (where it fits) and,
//! when it is at least [`MIN_TITLE_WIDTH`] wide, a native tooltip
//! (`<title>`) with its numbers.

use std::fmt::Write as _;

use super::format::{percent, with_unit};
use super::svg::{coord, SvgWriter};
use analysis::flame::{FlameGraph, FlameRect};
use model::{FrameTable, Unit};

pub const WIDTH: f64 = 1200.0;
pub const FRAME_HEIGHT: f64 = 16.0;
const TEXT_PAD: f64 = 3.0;
/// Approximate advance of one character at the 12px font used.
const CHAR_WIDTH: f64 = 7.0;
/// Frames narrower than this (px of the 1200-px graph, a third of a
/// percent) get no native tooltip in a page: they are hard to hover without
/// zooming in, which needs the page's script, whose tooltips come from the
/// page data. Below 2 px they were a quarter of a bottom-up page's bytes;
/// from 2 to 4 px they were 12% of python-markdown's site (a single sample
/// of a 300-sample profile is 4 px). Standalone files keep every title:
/// their own script zooms.
pub const MIN_TITLE_WIDTH: f64 = 4.0;
/// Number of colour classes (`c0` … `c11`) the themes define.
pub const PALETTE_SIZE: u64 = 12;

/// What the writer needs besides the layout.
pub struct FlameSvgInput<'a> {
    pub graph: &'a FlameGraph,
    pub frames: &'a FrameTable,
    pub unit: &'a Unit,
    /// Accessible label, e.g. "convert-basic 3.7 r1: samples".
    pub label: &'a str,
    /// Element id of the inline SVG.
    pub id: &'a str,
    pub words: Words,
    /// Per-rectangle class, tag and tooltip numbers (differential graphs);
    /// `None` colours frames by name.
    pub decor: Option<&'a [Decor]>,
    /// What percentages are of: the profile's total (for inclusive
    /// bottom-up and flat graphs, whose roots add up to more).
    pub percent_of: f64,
}

/// How a tooltip names a frame's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// "total" and "self" (top-down trees).
    TotalSelf,
    /// One "value" (bottom-up and flat trees, whose self values mean
    /// little).
    Value,
}

/// Overrides for one rectangle of a graph not coloured by name.
#[derive(Debug, Clone, Default)]
pub struct Decor {
    pub class: String,
    /// Shown before the name in the tooltip, e.g. "[+]".
    pub prefix: String,
    /// Replaces the tooltip's numbers.
    pub numbers: String,
}

/// Height of the drawing in pixels.
pub fn height(graph: &FlameGraph) -> f64 {
    (graph.max_depth as f64 + 1.0) * FRAME_HEIGHT
}

/// How much a graph's frames carry besides their boxes and labels.
#[derive(Debug, Clone, Copy)]
struct Markup {
    /// Frames narrower than this (px) get no native tooltip.
    min_title: f64,
    /// Every number in the tooltip, or only the first line of them: in a
    /// page the tree table below the graph has a row with the rest, and
    /// the page script's tooltip shows them all.
    full_titles: bool,
    /// `data-i` on every frame; in a page the script numbers the frames
    /// itself (they are in pre-order), saving the attribute.
    indices: bool,
}

/// In a page: short titles on frames wide enough to hover, no indices.
const IN_PAGE: Markup = Markup {
    min_title: MIN_TITLE_WIDTH,
    full_titles: false,
    indices: false,
};

/// In a standalone file: everything, its own script reads `data-i`.
const STANDALONE: Markup = Markup {
    min_title: 0.0,
    full_titles: true,
    indices: true,
};

/// The `<svg>` element to place inside a page.
pub fn inline_svg(input: &FlameSvgInput) -> String {
    inline_svg_with(input, &frames_markup(input, IN_PAGE))
}

/// The standalone document (with its own `style` and `script`, and a
/// title on every frame).
pub fn standalone_svg(input: &FlameSvgInput, style: &str, script: &str) -> String {
    standalone_svg_with(input, &frames_markup(input, STANDALONE), style, script)
}

/// Every frame's `<g>` group, one per line.
fn frames_markup(input: &FlameSvgInput, markup: Markup) -> String {
    let mut w = SvgWriter::with_capacity(input.graph.rects.len() * 220);
    write_frames(&mut w, input, markup);
    w.finish()
}

fn inline_svg_with(input: &FlameSvgInput, frames: &str) -> String {
    let mut w = SvgWriter::with_capacity(512);
    open_svg(&mut w, input, &[("id", input.id), ("class", "pa-flame")]);
    let mut out = w.finish();
    out.reserve(frames.len() + 8);
    out.push_str(frames);
    out.push_str("</svg>");
    out
}

fn standalone_svg_with(input: &FlameSvgInput, frames: &str, style: &str, script: &str) -> String {
    const XML_DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>";
    let mut head = SvgWriter::with_capacity(style.len() + 512);
    open_svg(&mut head, input, &[("class", "pa-flame pa-standalone")]);
    head.open("style", &[])
        .cdata(style)
        .close("style")
        .newline();
    let mut tail = SvgWriter::with_capacity(script.len() + 64);
    tail.open("script", &[]).cdata(script).close("script");
    tail.close("svg").newline();
    let (head, tail) = (head.finish(), tail.finish());
    let mut out =
        String::with_capacity(XML_DECLARATION.len() + head.len() + frames.len() + tail.len());
    out.push_str(XML_DECLARATION);
    out.push_str(&head);
    out.push_str(frames);
    out.push_str(&tail);
    out
}

fn open_svg(w: &mut SvgWriter, input: &FlameSvgInput, extra: &[(&str, &str)]) {
    let h = coord(height(input.graph));
    let view_box = format!("0 0 {} {h}", coord(WIDTH));
    let mut attrs: Vec<(&str, &str)> = vec![
        ("xmlns", "http://www.w3.org/2000/svg"),
        ("viewBox", &view_box),
        ("width", "1200"),
        ("height", &h),
        ("role", "img"),
        ("aria-label", input.label),
    ];
    attrs.extend_from_slice(extra);
    w.open("svg", &attrs).newline();
}

fn write_frames(w: &mut SvgWriter, input: &FlameSvgInput, markup: Markup) {
    for (i, rect) in input.graph.rects.iter().enumerate() {
        write_frame(w, input, i, rect, markup);
        w.newline();
    }
}

fn write_frame(
    w: &mut SvgWriter,
    input: &FlameSvgInput,
    index: usize,
    rect: &FlameRect,
    markup: Markup,
) {
    let decor = input.decor.and_then(|d| d.get(index));
    let name = frame_label(input.frames, rect);
    let class = match (rect.node, rect.frame, decor) {
        (None, _, _) => "f m".to_string(),
        (_, _, Some(d)) => format!("f {}", d.class),
        (Some(_), None, None) => "f r".to_string(),
        (Some(_), Some(_), None) => format!("f c{}", colour_index(&name)),
    };
    // The tag ("[+]") leads the tooltip, not the label: a label cut to
    // fit read "[+] .." and hid the name.
    let tagged: std::borrow::Cow<str> = match decor.filter(|d| !d.prefix.is_empty()) {
        Some(d) => format!("{} {name}", d.prefix).into(),
        None => name.as_str().into(),
    };
    let (x, width) = (rect.x * WIDTH, rect.width * WIDTH);
    let y = rect.depth as f64 * FRAME_HEIGHT;
    let id = index.to_string();
    if markup.indices {
        w.open("g", &[("class", &class), ("data-i", &id)]);
    } else {
        w.open("g", &[("class", &class)]);
    }
    if titled(rect, markup) {
        let title = tooltip(input, rect, &tagged, decor, markup.full_titles);
        w.element("title", &[], &title);
    }
    w.empty_at(
        "rect",
        &[
            ("x", x),
            ("y", y),
            ("width", width),
            ("height", FRAME_HEIGHT - 1.0),
        ],
    );
    let fits = ((width - 2.0 * TEXT_PAD) / CHAR_WIDTH).floor() as usize;
    if fits >= 3 {
        w.open_at(
            "text",
            &[("x", x + TEXT_PAD), ("y", y + FRAME_HEIGHT - 5.0)],
        )
        .text(&truncate(&name, fits))
        .close("text");
    }
    w.close("g");
}

/// Whether a frame gets a native tooltip: when wide enough to hover.
fn titled(rect: &FlameRect, markup: Markup) -> bool {
    rect.width * WIDTH >= markup.min_title
}

/// Whether a frame drawn inline in a page gets a tooltip, and so needs
/// its decoration's numbers; that tooltip shows only their first line
/// (see [`Markup::full_titles`]). A standalone file titles every frame
/// with every line.
pub fn titled_in_page(rect: &FlameRect) -> bool {
    titled(rect, IN_PAGE)
}

/// The name a rectangle shows.
pub fn frame_label(frames: &FrameTable, rect: &FlameRect) -> String {
    match (rect.node, rect.frame) {
        (None, _) => format!("[{} narrow frames merged]", rect.merged),
        (Some(_), None) => "all".to_string(),
        (Some(_), Some(f)) => frames.get(f).function.clone(),
    }
}

/// A frame's name, location and numbers; with `full` false, only the
/// first line of numbers.
fn tooltip(
    input: &FlameSvgInput,
    rect: &FlameRect,
    name: &str,
    decor: Option<&Decor>,
    full: bool,
) -> String {
    let total = input.percent_of;
    let mut t = name.to_string();
    if let Some(whole) = rect
        .frame
        .and_then(|f| input.frames.get(f).full_name.as_deref())
    {
        t.push('\n');
        t.push_str(whole);
    }
    if let Some(loc) = rect.frame.and_then(|f| input.frames.get(f).location()) {
        t.push('\n');
        t.push_str(&loc);
    }
    if let Some(d) = decor {
        let numbers = match full {
            true => d.numbers.as_str(),
            false => d.numbers.lines().next().unwrap_or(""),
        };
        t.push('\n');
        t.push_str(numbers);
        return t;
    }
    if input.words == Words::Value {
        let _ = write!(
            t,
            "\nvalue: {} ({})",
            with_unit(rect.total, input.unit),
            percent(rect.total, total)
        );
        return t;
    }
    let _ = write!(
        t,
        "\ntotal: {} ({})",
        with_unit(rect.total, input.unit),
        percent(rect.total, total)
    );
    if full {
        let _ = write!(
            t,
            "\nself: {} ({})",
            with_unit(rect.self_value, input.unit),
            percent(rect.self_value, total)
        );
    }
    t
}

/// Stable colour class for a name: the same function has the same colour
/// on every page.
pub fn colour_index(name: &str) -> u64 {
    super::paths::fnv1a(name.as_bytes()) % PALETTE_SIZE
}

fn truncate(name: &str, chars: usize) -> std::borrow::Cow<'_, str> {
    if name.len() <= chars || name.chars().count() <= chars {
        return name.into();
    }
    let mut s: String = name.chars().take(chars.saturating_sub(2)).collect();
    s.push_str("..");
    s.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::flame::{layout, FlameBudget};
    use model::{CallTree, Frame};

    #[test]
    fn frames_become_rects_with_titles_and_escaped_names() {
        let mut frames = FrameTable::new();
        let evil = frames.intern(Frame::named("</script><svg onload=alert(1)>"));
        let main = frames.intern(Frame {
            function: "main".into(),
            file: Some("m.c".into()),
            line: Some(7),
            module: None,
            start_line: None,
            start_column: None,
            source_hash: None,
            full_name: None,
        });
        let mut t = CallTree::new(1);
        t.add_stack([main, evil], &[3.0]);
        t.add_stack([main], &[1.0]);
        let g = layout(
            &t,
            &frames,
            0,
            FlameBudget {
                max_frames: 100,
                min_fraction: 0.0,
            },
        );
        let input = FlameSvgInput {
            graph: &g,
            frames: &frames,
            unit: &Unit::Samples,
            label: "x",
            id: "g",
            words: Words::TotalSelf,
            decor: None,
            percent_of: g.total,
        };
        let svg = inline_svg(&input);
        assert!(!svg.contains("<svg onload"));
        assert!(svg.contains("&lt;/script&gt;&lt;svg onload=alert(1)&gt;"));
        // In a page the title stops at the first numbers (the table and
        // the script have the rest), and the script numbers the frames.
        assert!(svg.contains("<title>main\nm.c:7\ntotal: 4 samples (100.00%)</title>"));
        assert!(!svg.contains("data-i"));
        // The callee sits one row below its caller and spans 3/4 of the width.
        assert!(
            svg.contains(r#"<rect x="0" y="32" width="900" height="15"/>"#),
            "{svg}"
        );
        assert_eq!(svg.matches("<g ").count(), 3);
        let file = standalone_svg(&input, "", "");
        assert!(file.contains("main\nm.c:7\ntotal: 4 samples (100.00%)\nself: 1 samples (25.00%)"));
        assert!(file.contains(r#"data-i="2""#));
    }
}
