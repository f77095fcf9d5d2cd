//! SVG of an execution timeline (Performance Evolution Matrix, section
//! III-D): one bar per fixed time frame, its height the component's share
//! of that frame, in this version (blue, in front) over the previous
//! version (grey, behind).

use super::svg::{coord, SvgWriter};

/// Draws `now` over `before` in a `width` × `height` box: each version's
/// bars as one path, and one title giving every frame's shares (a
/// rectangle and a title per bar were most of a timeline page's bytes).
pub fn timeline(
    now: &[f64],
    before: Option<&[f64]>,
    width: f64,
    height: f64,
    label: &str,
) -> String {
    let n = now.len().max(before.map_or(0, |b| b.len())).max(1);
    let step = width / n as f64;
    let mut w = SvgWriter::with_capacity(n * 80 + 256);
    w.open(
        "svg",
        &[
            ("class", "pa-tl"),
            ("width", &coord(width)),
            ("height", &coord(height)),
            (
                "viewBox",
                &format!("0 0 {} {}", coord(width), coord(height)),
            ),
            ("role", "img"),
            ("aria-label", label),
        ],
    );
    w.element("title", &[], &shares_text(now, before));
    w.empty(
        "rect",
        &[
            ("width", &coord(width)),
            ("height", &coord(height)),
            ("class", "pa-tl-bg"),
        ],
    );
    // Each bar is a vertical line up from the bottom, as wide as the bar
    // (its stroke): two numbers a bar instead of a rectangle's four.
    let bottom = coord(height);
    let bars = |shares: &[f64], bar: f64, inset: f64| -> String {
        let mut d = String::with_capacity(shares.len() * 16);
        for (i, share) in shares.iter().enumerate() {
            let h = share.clamp(0.0, 1.0) * (height - 1.0);
            if h > 0.0 {
                d.push_str(&format!(
                    "M{} {bottom}V{}",
                    coord(i as f64 * step + inset + bar / 2.0),
                    coord(height - h)
                ));
            }
        }
        d
    };
    for (shares, class, inset) in [
        (before.unwrap_or(&[]), "tl-prev", 0.5),
        (now, "tl-now", step * 0.22),
    ] {
        let bar = (step - 2.0 * inset).max(0.5);
        let d = bars(shares, bar, inset);
        if !d.is_empty() {
            w.empty(
                "path",
                &[("d", &d), ("class", class), ("stroke-width", &coord(bar))],
            );
        }
    }
    w.close("svg");
    w.finish()
}

/// "share of each time frame, this version (previous version): 1: 26%
/// (30%) · 2–19: 100% (100%) · …": consecutive frames that read the same
/// are given once, as a range (a long run at 100% was most of the text).
fn shares_text(now: &[f64], before: Option<&[f64]>) -> String {
    let text = |i: usize| match before.and_then(|b| b.get(i)) {
        Some(p) => format!("{:.0}% ({:.0}%)", now[i] * 100.0, p * 100.0),
        None => format!("{:.0}%", now[i] * 100.0),
    };
    let mut runs: Vec<(usize, usize, String)> = Vec::new();
    for i in 0..now.len() {
        let t = text(i);
        match runs.last_mut() {
            Some((_, last, same)) if *same == t => *last = i,
            _ => runs.push((i, i, t)),
        }
    }
    let frames: Vec<String> = runs
        .into_iter()
        .map(|(first, last, t)| match first == last {
            true => format!("{}: {t}", first + 1),
            false => format!("{}–{}: {t}", first + 1, last + 1),
        })
        .collect();
    let lead = match before {
        Some(_) => "share of each time frame, this version (previous version)",
        None => "share of each time frame",
    };
    format!("{lead}: {}", frames.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_with_share_and_the_previous_version_sits_behind() {
        let svg = timeline(&[0.5, 1.0], Some(&[1.0, 0.0]), 40.0, 21.0, "t");
        let prev = svg.find("tl-prev").unwrap();
        let now = svg.find("tl-now").unwrap();
        assert!(prev < now, "previous drawn first");
        // Half share: half of the 20 usable pixels; the previous version's
        // zero share draws no bar.
        assert!(
            svg.contains(r#"<path d="M10 21V11M30 21V1" class="tl-now" stroke-width="11.2"/>"#),
            "{svg}"
        );
        assert!(
            svg.contains(r#"<path d="M10 21V1" class="tl-prev" stroke-width="19"/>"#),
            "{svg}"
        );
        assert!(svg.contains(
            "<title>share of each time frame, this version (previous version): 1: 50% (100%) · 2: 100% (0%)</title>"
        ));
    }

    #[test]
    fn frames_that_read_the_same_are_named_once_as_a_range() {
        let now = [1.0, 1.0, 0.996, 0.5, 1.0];
        let svg = timeline(&now, None, 50.0, 21.0, "t");
        assert!(
            svg.contains("<title>share of each time frame: 1–3: 100% · 4: 50% · 5: 100%</title>"),
            "{svg}"
        );
        let before = [1.0, 0.9, 1.0, 0.5, 1.0];
        let svg = timeline(&now, Some(&before), 50.0, 21.0, "t");
        assert!(
            svg.contains(
                "<title>share of each time frame, this version (previous version): \
                 1: 100% (100%) · 2: 100% (90%) · 3: 100% (100%) · 4: 50% (50%) · 5: 100% (100%)</title>"
            ),
            "{svg}"
        );
    }
}
