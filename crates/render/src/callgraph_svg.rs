//! SVG of the call graph around one component in one version: callers on
//! the left, the component in the middle, callees on the right. An edge is
//! blue and solid when added in this version, grey and dashed when deleted
//! since the previous one, black when kept (theme colours); its label says
//! the same in words and gives the value through the call.

use super::matrix_svg::truncate;
use super::svg::{coord, SvgWriter};
use analysis::callgraph::{EdgeState, Neighbour};

const WIDTH: f64 = 960.0;
const BOX_W: f64 = 290.0;
const MID_W: f64 = 240.0;
const LINE: f64 = 26.0;
const BOX_H: f64 = 20.0;
const CHARS: usize = 38;

/// A neighbour as drawn: its name, its page (when it has one) and its
/// value text.
pub struct Node<'a> {
    pub neighbour: &'a Neighbour,
    pub name: String,
    pub href: Option<String>,
    pub value: String,
}

/// The call graph; `more` counts callers and callees left out.
pub fn call_graph(
    center: &str,
    callers: &[Node],
    callees: &[Node],
    more: (usize, usize),
    label: &str,
) -> String {
    let lines_left = callers.len() + usize::from(more.0 > 0);
    let lines_right = callees.len() + usize::from(more.1 > 0);
    let rows = lines_left.max(lines_right).max(1);
    let height = rows as f64 * LINE + 10.0;
    let mid_x = (WIDTH - MID_W) / 2.0;
    let mid_y = height / 2.0 - BOX_H / 2.0;
    let mut w = SvgWriter::with_capacity(2048 + (callers.len() + callees.len()) * 600);
    w.open(
        "svg",
        &[
            ("xmlns", "http://www.w3.org/2000/svg"),
            ("class", "pa-cg"),
            ("width", &coord(WIDTH)),
            ("height", &coord(height)),
            (
                "viewBox",
                &format!("0 0 {} {}", coord(WIDTH), coord(height)),
            ),
            ("role", "img"),
            ("aria-label", label),
        ],
    );
    let top = |n: usize| (height - n as f64 * LINE) / 2.0 + (LINE - BOX_H) / 2.0;
    let y0 = top(lines_left);
    let mut labels = Vec::with_capacity(callers.len() + callees.len());
    for (i, node) in callers.iter().enumerate() {
        let y = y0 + i as f64 * LINE;
        labels.push(edge(
            &mut w,
            node,
            (BOX_W, y + BOX_H / 2.0),
            (mid_x, mid_y + BOX_H / 2.0),
            true,
        ));
        neighbour_box(&mut w, node, 0.0, y);
    }
    if more.0 > 0 {
        more_text(&mut w, more.0, 4.0, y0 + callers.len() as f64 * LINE + 14.0);
    }
    let y1 = top(lines_right);
    let right_x = WIDTH - BOX_W;
    for (i, node) in callees.iter().enumerate() {
        let y = y1 + i as f64 * LINE;
        labels.push(edge(
            &mut w,
            node,
            (mid_x + MID_W, mid_y + BOX_H / 2.0),
            (right_x, y + BOX_H / 2.0),
            false,
        ));
        neighbour_box(&mut w, node, right_x, y);
    }
    if more.1 > 0 {
        more_text(
            &mut w,
            more.1,
            right_x + 4.0,
            y1 + callees.len() as f64 * LINE + 14.0,
        );
    }
    // Labels after every edge, each on a halo of the background: written
    // with its own edge, a label was struck through by the edges drawn
    // after it.
    for label in &labels {
        label.write(&mut w);
    }
    w.open("g", &[("class", "pa-cg-self")]);
    w.empty(
        "rect",
        &[
            ("x", &coord(mid_x)),
            ("y", &coord(mid_y)),
            ("width", &coord(MID_W)),
            ("height", &coord(BOX_H)),
            ("rx", "3"),
        ],
    );
    w.element(
        "text",
        &[("x", &coord(mid_x + 6.0)), ("y", &coord(mid_y + 14.0))],
        &truncate(center, 32),
    );
    w.close("g");
    if callers.is_empty() && callees.is_empty() {
        w.element(
            "text",
            &[
                ("x", "8"),
                ("y", &coord(mid_y + 14.0)),
                ("class", "pa-cg-none"),
            ],
            "no calls recorded",
        );
    }
    w.close("svg");
    w.finish()
}

fn state_class(s: EdgeState) -> &'static str {
    match s {
        EdgeState::Added => "e-added",
        EdgeState::Deleted => "e-deleted",
        EdgeState::Kept => "e-kept",
    }
}

fn state_word(s: EdgeState) -> &'static str {
    match s {
        EdgeState::Added => "new ",
        EdgeState::Deleted => "gone ",
        EdgeState::Kept => "",
    }
}

/// An edge's label: where, how anchored, what, and its edge's class.
struct EdgeLabel {
    x: f64,
    y: f64,
    anchor: &'static str,
    text: String,
    class: &'static str,
}

impl EdgeLabel {
    fn write(&self, w: &mut SvgWriter) {
        w.element(
            "text",
            &[
                ("class", &format!("pa-cg-label {}", self.class)),
                ("x", &coord(self.x)),
                ("y", &coord(self.y)),
                ("text-anchor", self.anchor),
            ],
            &self.text,
        );
    }
}

/// Draws an edge; returns its label, to be written over every edge.
fn edge(w: &mut SvgWriter, node: &Node, from: (f64, f64), to: (f64, f64), left: bool) -> EdgeLabel {
    let cx = (from.0 + to.0) / 2.0;
    let d = format!(
        "M{} {} C{} {} {} {} {} {}",
        coord(from.0),
        coord(from.1),
        coord(cx),
        coord(from.1),
        coord(cx),
        coord(to.1),
        coord(to.0),
        coord(to.1)
    );
    // No tooltip: the edge's label says its state and value, the box at
    // its end names the neighbour.
    let class = state_class(node.neighbour.state);
    w.empty("path", &[("class", class), ("d", &d)]);
    let (tx, anchor) = if left {
        (from.0 + 6.0, "start")
    } else {
        (to.0 - 6.0, "end")
    };
    let ty = if left { from.1 - 4.0 } else { to.1 - 4.0 };
    EdgeLabel {
        x: tx,
        y: ty,
        anchor,
        text: format!("{}{}", state_word(node.neighbour.state), node.value),
        class,
    }
}

fn neighbour_box(w: &mut SvgWriter, node: &Node, x: f64, y: f64) {
    let class = format!("pa-cg-n {}", state_class(node.neighbour.state));
    if let Some(href) = &node.href {
        w.open("a", &[("href", href)]);
    }
    w.open("g", &[("class", &class)]);
    let label = truncate(&node.name, CHARS);
    // A tooltip only where the box cuts the name short.
    if label != node.name {
        w.element("title", &[], &node.name);
    }
    w.empty(
        "rect",
        &[
            ("x", &coord(x)),
            ("y", &coord(y)),
            ("width", &coord(BOX_W)),
            ("height", &coord(BOX_H)),
            ("rx", "3"),
        ],
    );
    w.element(
        "text",
        &[("x", &coord(x + 6.0)), ("y", &coord(y + 14.0))],
        &label,
    );
    w.close("g");
    if node.href.is_some() {
        w.close("a");
    }
}

fn more_text(w: &mut SvgWriter, n: usize, x: f64, y: f64) {
    w.element(
        "text",
        &[("x", &coord(x)), ("y", &coord(y)), ("class", "pa-cg-more")],
        &format!("+ {n} more (see the table)"),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::hierarchy::CompId;

    #[test]
    fn deleted_edges_are_dashed_by_class_and_named_in_words() {
        let gone = Neighbour {
            comp: CompId(2),
            value: 0.0,
            before: 3.0,
            state: EdgeState::Deleted,
        };
        let svg = call_graph(
            "B",
            &[Node {
                neighbour: &gone,
                name: "<A>".into(),
                href: None,
                value: "0 samples".into(),
            }],
            &[],
            (0, 0),
            "call graph",
        );
        assert!(svg.contains(r#"<path class="e-deleted""#));
        assert!(svg.contains("gone 0 samples"));
        assert!(svg.contains("&lt;A&gt;"));
        assert!(!svg.contains("<A>"));
    }
}
