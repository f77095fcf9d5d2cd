//! SVG of an execution timeline (Performance Evolution Matrix, section
//! III-D): one bar per fixed time frame, its height the component's share
//! of that frame, in this version (blue, in front) over the previous
//! version (grey, behind).

use super::svg::{coord, SvgWriter};

/// Draws `now` over `before` in a `width` × `height` box.
pub fn timeline(
    now: &[f64],
    before: Option<&[f64]>,
    width: f64,
    height: f64,
    label: &str,
) -> String {
    let n = now.len().max(before.map_or(0, |b| b.len())).max(1);
    let step = width / n as f64;
    let mut w = SvgWriter::with_capacity(n * 160 + 256);
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
    w.empty(
        "rect",
        &[
            ("width", &coord(width)),
            ("height", &coord(height)),
            ("class", "pa-tl-bg"),
        ],
    );
    let bar = |w: &mut SvgWriter,
               i: usize,
               share: f64,
               class: &str,
               inset: f64,
               title: Option<String>| {
        let h = share.clamp(0.0, 1.0) * (height - 1.0);
        if h <= 0.0 {
            return;
        }
        let attrs = [
            ("x", coord(i as f64 * step + inset)),
            ("y", coord(height - h)),
            ("width", coord((step - 2.0 * inset).max(0.5))),
            ("height", coord(h)),
            ("class", class.to_string()),
        ];
        let attrs: Vec<(&str, &str)> = attrs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        match title {
            Some(t) => {
                w.open("rect", &attrs);
                w.element("title", &[], &t);
                w.close("rect");
            }
            None => {
                w.empty("rect", &attrs);
            }
        };
    };
    if let Some(b) = before {
        for (i, s) in b.iter().enumerate() {
            bar(&mut w, i, *s, "tl-prev", 0.5, None);
        }
    }
    for (i, s) in now.iter().enumerate() {
        let title = match before.and_then(|b| b.get(i)) {
            Some(p) => format!(
                "frame {}: {:.0}% (previous version {:.0}%)",
                i + 1,
                s * 100.0,
                p * 100.0
            ),
            None => format!("frame {}: {:.0}%", i + 1, s * 100.0),
        };
        bar(&mut w, i, *s, "tl-now", step * 0.22, Some(title));
    }
    w.close("svg");
    w.finish()
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
        // Half share: half of the 20 usable pixels.
        assert!(
            svg.contains(r#"x="4.4" y="11" width="11.2" height="10" class="tl-now""#),
            "{svg}"
        );
        assert!(svg.contains("frame 2: 100% (previous version 0%)"));
    }
}
