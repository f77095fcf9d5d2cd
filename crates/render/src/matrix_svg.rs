//! SVG for the evolution matrix: the row of glyphs of one component, the
//! version header, and the whole matrix as a standalone drawing.
//!
//! A glyph is two boxes (Performance Evolution Matrix, section III-C): the
//! top box's width is the number of modified methods in four steps, the
//! bottom box's height is the component's time on one scale for the whole
//! matrix, its colour class (`dm5` … `d0` … `dp5`, `dn` when there is no
//! previous value) is Δtime on a diverging scale that the theme colours.

use std::fmt::Write as _;

use super::format::{percent, with_unit};
use super::svg::{coord, SvgWriter};
use analysis::evolution::{EvolutionPlan, ScopePlan};
use analysis::matrix::{delta_step, modified_step, Cell};
use model::{History, Unit};

/// Width of one version's column.
pub const COLUMN: f64 = 26.0;
/// Height of one row of glyphs.
pub const ROW: f64 = 36.0;
const GLYPH: f64 = 18.0;
const TOP: f64 = 5.0;
const BOTTOM_MAX: f64 = ROW - TOP - 5.0;
const MIN_HEIGHT: f64 = 3.0;
/// Top box widths for modified-method steps 0–3.
const TOP_WIDTHS: [f64; 4] = [0.0, 6.0, 12.0, GLYPH];
/// Height of the version header.
pub const HEADER: f64 = 64.0;

/// The glyph geometry the matrix script draws rows with, as this module
/// draws them: written into the page's data, so the script has no copy.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct Geometry {
    pub column: f64,
    pub row: f64,
    pub glyph: f64,
    pub top: f64,
    pub bottom_max: f64,
    pub min_height: f64,
    pub top_widths: [f64; 4],
}

/// This module's glyph geometry.
pub const GEOMETRY: Geometry = Geometry {
    column: COLUMN,
    row: ROW,
    glyph: GLYPH,
    top: TOP,
    bottom_max: BOTTOM_MAX,
    min_height: MIN_HEIGHT,
    top_widths: TOP_WIDTHS,
};

/// How glyphs are drawn: the matrix-wide scale and thresholds.
pub struct GlyphScale<'a> {
    pub max_time: f64,
    pub modified_steps: [u32; 2],
    pub unit: &'a Unit,
}

/// The native tooltip of the cell of version `v`.
pub type CellTitle<'a> = &'a dyn Fn(usize, &Cell) -> String;

/// The colour class of a cell.
pub fn delta_class(cell: &Cell) -> String {
    match cell.delta.map(delta_step) {
        None => "dn".to_string(),
        Some(0) => "d0".to_string(),
        Some(s) if s < 0 => format!("dm{}", -s),
        Some(s) => format!("dp{s}"),
    }
}

/// `+12.3%`, `−4.0%`, or `new` when there is nothing to compare with.
pub fn delta_text(delta: Option<f64>) -> String {
    match delta {
        None => "no previous value".to_string(),
        Some(d) if d >= 0.0 => format!("+{:.1}%", d * 100.0),
        Some(d) => format!("−{:.1}%", -d * 100.0),
    }
}

/// The one-line summary of a cell (native tooltip, tables).
/// `changes_known`: whether any version has change data; when none has,
/// the page says so once and the summaries do not.
pub fn cell_summary(
    version: &str,
    cell: &Cell,
    (unit, total): (&Unit, f64),
    changes_known: bool,
) -> String {
    let mut s = format!(
        "{version}: {} ({} of the version), Δ {}",
        with_unit(cell.mean, unit),
        percent(cell.mean, total),
        delta_text(cell.delta)
    );
    if cell.reps > 1 {
        s.push_str(&format!(
            ", {} – {} over {} repetitions",
            with_unit(cell.min, unit),
            with_unit(cell.max, unit),
            cell.reps
        ));
    }
    match cell.modified {
        Some(n) => s.push_str(&format!(", {n} modified method{}", plural(n))),
        None if changes_known => s.push_str(", no change data"),
        None => {}
    }
    s
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Where a glyph's boxes go: the bottom box (x, y, height) and the top
/// box's width (0 for none).
fn glyph_boxes(v: usize, cell: &Cell, scale: &GlyphScale, x0: f64, y: f64) -> (f64, f64, f64, f64) {
    let x = x0 + v as f64 * COLUMN + (COLUMN - GLYPH) / 2.0;
    // At least MIN_HEIGHT, so even a tiny component's colour shows.
    let h = if scale.max_time > 0.0 {
        (cell.mean / scale.max_time * BOTTOM_MAX).clamp(MIN_HEIGHT, BOTTOM_MAX)
    } else {
        MIN_HEIGHT
    };
    let step = cell
        .modified
        .map_or(0, |m| modified_step(m, scale.modified_steps));
    (x, y + ROW - 2.0 - h, h, TOP_WIDTHS[step as usize])
}

/// Draws the glyphs of one row at vertical offset `y`. With `titles`, each
/// glyph is its own group with a native tooltip; without, the boxes of one
/// colour are one path, which keeps large matrices small.
pub fn glyphs(
    w: &mut SvgWriter,
    cells: &[Option<Cell>],
    scale: &GlyphScale,
    x0: f64,
    y: f64,
    titles: Option<CellTitle>,
) {
    let Some(titles) = titles else {
        glyph_paths(w, cells, scale, x0, y);
        return;
    };
    for (v, cell) in cells.iter().enumerate() {
        let Some(cell) = cell else { continue };
        let (x, bottom_y, h, top_w) = glyph_boxes(v, cell, scale, x0, y);
        w.open("g", &[]);
        w.element("title", &[], &titles(v, cell));
        w.empty(
            "rect",
            &[
                ("x", &coord(x)),
                ("y", &coord(bottom_y)),
                ("width", &coord(GLYPH)),
                ("height", &coord(h)),
                ("class", &delta_class(cell)),
            ],
        );
        if top_w > 0.0 {
            w.empty(
                "rect",
                &[
                    ("x", &coord(x + (GLYPH - top_w) / 2.0)),
                    ("y", &coord(bottom_y - TOP - 1.0)),
                    ("width", &coord(top_w)),
                    ("height", &coord(TOP)),
                    ("class", "mod"),
                ],
            );
        }
        w.close("g");
    }
}

fn glyph_paths(w: &mut SvgWriter, cells: &[Option<Cell>], scale: &GlyphScale, x0: f64, y: f64) {
    let mut paths: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for (v, cell) in cells.iter().enumerate() {
        let Some(cell) = cell else { continue };
        let (x, bottom_y, h, top_w) = glyph_boxes(v, cell, scale, x0, y);
        let d = paths.entry(delta_class(cell)).or_default();
        let _ = write!(
            d,
            "M{} {}h{}v{}h-{}z",
            coord(x),
            coord(bottom_y),
            coord(GLYPH),
            coord(h),
            coord(GLYPH)
        );
        if top_w > 0.0 {
            let d = paths.entry("mod".into()).or_default();
            let _ = write!(
                d,
                "M{} {}h{}v{}h-{}z",
                coord(x + (GLYPH - top_w) / 2.0),
                coord(bottom_y - TOP - 1.0),
                coord(top_w),
                coord(TOP),
                coord(top_w)
            );
        }
    }
    for (class, d) in &paths {
        w.empty("path", &[("class", class), ("d", d)]);
    }
}

/// An inline `<svg>` holding one row of glyphs.
pub fn row_svg(
    cells: &[Option<Cell>],
    scale: &GlyphScale,
    titles: Option<CellTitle>,
    label: &str,
) -> String {
    let width = coord(cells.len() as f64 * COLUMN);
    let mut w = SvgWriter::with_capacity(cells.len() * 90 + 128);
    w.open(
        "svg",
        &[
            ("class", "pa-gl"),
            ("width", &width),
            ("height", &coord(ROW)),
            ("viewBox", &format!("0 0 {width} {}", coord(ROW))),
            ("role", "img"),
            ("aria-label", label),
        ],
    );
    glyphs(&mut w, cells, scale, 0.0, 0.0, titles);
    w.close("svg");
    w.finish()
}

/// A version label in the header: its text and where it links.
pub struct HeaderLabel<'a> {
    pub label: &'a str,
    pub href: Option<String>,
    /// Native tooltip: where the version's change data comes from.
    pub note: Option<&'a str>,
}

/// The version header: labels slanted upwards, each linking to that
/// version's execution timelines.
pub fn header(w: &mut SvgWriter, labels: &[HeaderLabel], x0: f64, y: f64) {
    for (v, l) in labels.iter().enumerate() {
        let x = x0 + v as f64 * COLUMN + COLUMN / 2.0 + 4.0;
        let yb = y + HEADER - 6.0;
        let transform = format!("rotate(-40 {} {})", coord(x), coord(yb));
        if let Some(href) = &l.href {
            w.open("a", &[("href", href), ("class", "pa-vh")]);
        }
        w.open(
            "text",
            &[
                ("x", &coord(x)),
                ("y", &coord(yb)),
                ("transform", &transform),
                ("data-v", &v.to_string()),
            ],
        );
        if let Some(note) = l.note {
            w.element("title", &[], &format!("{}: {note}", l.label));
        }
        w.text(&truncate(l.label, 14)).close("text");
        if l.href.is_some() {
            w.close("a");
        }
    }
}

/// The header as an inline `<svg>`.
pub fn header_svg(labels: &[HeaderLabel]) -> String {
    let width = coord(labels.len() as f64 * COLUMN + 60.0);
    let mut w = SvgWriter::with_capacity(labels.len() * 160 + 128);
    w.open(
        "svg",
        &[
            ("class", "pa-gh"),
            ("width", &width),
            ("height", &coord(HEADER)),
            ("viewBox", &format!("0 0 {width} {}", coord(HEADER))),
        ],
    );
    header(&mut w, labels, 0.0, 0.0);
    w.close("svg");
    w.finish()
}

/// `s` cut to `max` characters, with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// One row of the standalone matrix drawing.
pub struct StandaloneRow<'a> {
    pub name: &'a str,
    pub depth: u8,
    pub cells: &'a [Option<Cell>],
}

/// The whole matrix as one standalone SVG (names, header and glyphs), with
/// the page's style embedded.
pub fn standalone(
    rows: &[StandaloneRow],
    labels: &[HeaderLabel],
    scale: &GlyphScale,
    title: &str,
    style: &str,
) -> String {
    const NAMES: f64 = 360.0;
    let width = NAMES + labels.len() as f64 * COLUMN + 60.0;
    let height = HEADER + rows.len() as f64 * ROW + 8.0;
    let mut w = SvgWriter::with_capacity(rows.len() * labels.len() * 60 + style.len() + 512);
    w.open(
        "svg",
        &[
            ("xmlns", "http://www.w3.org/2000/svg"),
            ("class", "pa-matrix-svg"),
            ("width", &coord(width)),
            ("height", &coord(height)),
            (
                "viewBox",
                &format!("0 0 {} {}", coord(width), coord(height)),
            ),
            ("role", "img"),
            ("aria-label", title),
        ],
    );
    w.open("style", &[]).cdata(style).close("style").newline();
    w.empty(
        "rect",
        &[("width", "100%"), ("height", "100%"), ("class", "pa-bg")],
    );
    header(&mut w, labels, NAMES, 0.0);
    w.newline();
    for (i, row) in rows.iter().enumerate() {
        let y = HEADER + i as f64 * ROW;
        w.element(
            "text",
            &[
                (
                    "x",
                    &coord(4.0 + (row.depth.saturating_sub(1)) as f64 * 14.0),
                ),
                ("y", &coord(y + ROW / 2.0 + 4.0)),
                ("class", "pa-rn"),
            ],
            &truncate(row.name, 48 - 2 * row.depth as usize),
        );
        glyphs(&mut w, row.cells, scale, NAMES, y, None);
        w.newline();
    }
    w.close("svg").newline();
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{}", w.finish())
}

/// The version header of a scope's glyph rows: each version with profiles
/// links to `href(version name)`, and every label's tooltip says where its
/// change data comes from.
pub fn header_labels<'a>(
    history: &'a History,
    plan: &'a EvolutionPlan,
    sp: &ScopePlan,
    href: impl Fn(&str) -> String,
) -> Vec<HeaderLabel<'a>> {
    history
        .versions
        .iter()
        .enumerate()
        .map(|(v, ver)| HeaderLabel {
            label: &ver.label,
            note: Some(plan.modifications.versions[v].note.as_str()),
            href: sp.scope.has(v).then(|| href(&ver.name)),
        })
        .collect()
}

/// One sentence on where change data comes from, for the page.
pub fn changes_note(plan: &EvolutionPlan) -> String {
    let known = plan
        .modifications
        .versions
        .iter()
        .filter(|v| v.known)
        .count();
    if known == 0 {
        let why = plan
            .modifications
            .versions
            .get(1)
            .map(|v| v.note.clone())
            .unwrap_or_else(|| "only one version".into());
        format!("No change data ({why}): top boxes are not drawn.")
    } else {
        format!(
            "Change data for {known} of {} versions; a version without it draws no top boxes (its column header says why on hover).",
            plan.modifications.versions.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use analysis::hierarchy::CompId;

    fn cell(mean: f64, delta: Option<f64>, modified: Option<u32>) -> Cell {
        Cell {
            mean,
            min: mean,
            max: mean,
            reps: 1,
            share: 0.5,
            delta,
            modified,
            via: CompId(1),
        }
    }

    #[test]
    fn glyph_geometry_follows_time_and_modified_steps() {
        let scale = GlyphScale {
            max_time: 100.0,
            modified_steps: [5, 10],
            unit: &Unit::Samples,
        };
        let cells = vec![
            Some(cell(100.0, None, Some(0))),
            None,
            Some(cell(50.0, Some(1.0), Some(7))),
        ];
        let title = |_: usize, _: &Cell| String::from("t");
        let svg = row_svg(&cells, &scale, Some(&title), "row");
        // Full height for the largest time, half for half of it.
        assert!(
            svg.contains(r#"<rect x="4" y="8" width="18" height="26" class="dn"/>"#),
            "{svg}"
        );
        assert!(
            svg.contains(r#"<rect x="56" y="21" width="18" height="13" class="dp5"/>"#),
            "{svg}"
        );
        // 7 modified methods: the medium top box, centred, above the bottom box.
        assert!(
            svg.contains(r#"<rect x="59" y="15" width="12" height="5" class="mod"/>"#),
            "{svg}"
        );
        // No glyph where the component is absent.
        assert_eq!(svg.matches("<rect").count(), 3);
        // Without tooltips the same boxes are paths, one per colour class.
        let compact = row_svg(&cells, &scale, None, "row");
        assert!(
            compact.contains(r#"<path class="dn" d="M4 8h18v26h-18z"/>"#),
            "{compact}"
        );
        assert!(
            compact.contains(r#"<path class="dp5" d="M56 21h18v13h-18z"/>"#),
            "{compact}"
        );
        assert!(
            compact.contains(r#"<path class="mod" d="M59 15h12v5h-12z"/>"#),
            "{compact}"
        );
    }

    #[test]
    fn summaries_say_what_is_unknown() {
        let c = cell(1500.0, Some(-0.25), None);
        assert_eq!(
            cell_summary("3.7", &c, (&Unit::Samples, 3000.0), true),
            "3.7: 1,500 samples (50.00% of the version), Δ −25.0%, no change data"
        );
        // With no change data anywhere, the page says it once.
        assert_eq!(
            cell_summary("3.7", &c, (&Unit::Samples, 3000.0), false),
            "3.7: 1,500 samples (50.00% of the version), Δ −25.0%"
        );
        assert_eq!(delta_class(&c), "dm2");
    }
}
