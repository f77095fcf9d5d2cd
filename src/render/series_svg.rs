//! The time-series chart of one benchmark (PRCA's Fig. 3 and 7): each
//! version's mean with its confidence interval and its runs, the category
//! bands as dashed lines, and optionally the pair of versions around a
//! regression highlighted.

use super::format::{grouped, measured};
use super::svg::{coord, SvgWriter};
use crate::analysis::regression::{Categories, Series};
use crate::model::Version;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 120.0;
const TOP: f64 = 22.0;
const BOTTOM: f64 = 64.0;
/// Above this many versions the runs are not drawn and labels thin out.
const DETAILED_POINTS: usize = 120;

/// The chart; `highlight` is (before, responsible) as version indices.
pub fn chart(
    series: &Series,
    categories: Option<&Categories>,
    versions: &[Version],
    highlight: Option<(usize, usize)>,
    confidence: f64,
) -> String {
    let n = series.points.len().max(1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let step = plot_w / n as f64;
    let top_value = top_of(series, categories);
    let x = |i: usize| LEFT + (i as f64 + 0.5) * step;
    let y = |v: f64| TOP + plot_h * (1.0 - (v / top_value).clamp(0.0, 1.0));
    let mut w = SvgWriter::with_capacity(n * 400 + 2048);
    let label = format!(
        "{}: {} per version",
        series.benchmark,
        series.origin.describe()
    );
    w.open(
        "svg",
        &[
            ("class", "pa-series"),
            ("width", &coord(WIDTH)),
            ("height", &coord(HEIGHT)),
            (
                "viewBox",
                &format!("0 0 {} {}", coord(WIDTH), coord(HEIGHT)),
            ),
            ("role", "img"),
            ("aria-label", &label),
        ],
    );
    axis(&mut w, top_value, &series.unit, &y);
    if let Some(c) = categories {
        bands(&mut w, c, top_value, &y);
    }
    let means: Vec<String> = series
        .points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| Some(format!("{},{}", coord(x(i)), coord(y(p.summary?.mean)))))
        .collect();
    w.empty(
        "polyline",
        &[("class", "pa-series-line"), ("points", &means.join(" "))],
    );
    let detailed = n <= DETAILED_POINTS;
    for (i, p) in series.points.iter().enumerate() {
        let Some(s) = p.summary else { continue };
        let role = match highlight {
            Some((_, after)) if after == p.version => "pa-responsible",
            Some((before, _)) if before == p.version => "pa-before",
            _ => "",
        };
        let version = &versions[p.version].label;
        w.open(
            "g",
            &[
                ("class", &format!("pa-point {role}")),
                ("data-version", version),
                ("data-mean", &s.mean.to_string()),
            ],
        );
        let ci =
            s.ci.map(|(lo, hi)| {
                format!(
                    ", {}% interval {} – {}",
                    100.0 * confidence,
                    measured(lo, &series.unit),
                    measured(hi, &series.unit)
                )
            })
            .unwrap_or_default();
        w.element(
            "title",
            &[],
            &format!(
                "{version}: mean {}{ci}, {} run{}",
                measured(s.mean, &series.unit),
                p.values.len(),
                if p.values.len() == 1 { "" } else { "s" }
            ),
        );
        if let Some((lo, hi)) = s.ci {
            let xs = coord(x(i));
            w.empty(
                "line",
                &[
                    ("class", "pa-ci"),
                    ("x1", &xs),
                    ("x2", &xs),
                    ("y1", &coord(y(lo))),
                    ("y2", &coord(y(hi))),
                ],
            );
        }
        if detailed && p.values.len() <= 60 {
            for v in &p.values {
                w.empty(
                    "circle",
                    &[
                        ("class", "pa-run"),
                        ("cx", &coord(x(i) + step.min(24.0) * 0.18)),
                        ("cy", &coord(y(*v))),
                        ("r", "1.6"),
                    ],
                );
            }
        }
        w.empty(
            "circle",
            &[
                ("class", "pa-mean"),
                ("cx", &coord(x(i))),
                ("cy", &coord(y(s.mean))),
                ("r", if role.is_empty() { "3.5" } else { "5" }),
            ],
        );
        w.close("g");
        version_label(&mut w, version, x(i), n, i);
    }
    w.close("svg");
    w.finish()
}

/// The value at the top of the plot: above every interval, run and band
/// edge that matters.
fn top_of(series: &Series, categories: Option<&Categories>) -> f64 {
    let mut top = 0.0_f64;
    for p in &series.points {
        if let Some(s) = p.summary {
            top = top.max(s.ci.map_or(s.mean, |c| c.1));
        }
        for v in &p.values {
            top = top.max(*v);
        }
    }
    if let Some(c) = categories {
        // Show the next edge above the data when it is close.
        if let Some(edge) = c.edges.iter().find(|&&e| e > top && e < top * 1.6) {
            top = *edge;
        }
    }
    if top > 0.0 {
        top * 1.08
    } else {
        1.0
    }
}

/// Grid lines at round values (1, 2 or 5 × a power of ten), labelled in
/// the series' unit (times scaled, other units named once at the top).
fn axis(w: &mut SvgWriter, top: f64, unit: &str, y: &dyn Fn(f64) -> f64) {
    let step = nice_step(top / 4.0);
    let mut k = 0;
    while step > 0.0 && k as f64 * step <= top && k <= 10 {
        let v = k as f64 * step;
        let yy = coord(y(v));
        w.empty(
            "line",
            &[
                ("class", "pa-grid"),
                ("x1", &coord(LEFT)),
                ("x2", &coord(WIDTH - RIGHT)),
                ("y1", &yy),
                ("y2", &yy),
            ],
        );
        let label = if unit == "s" && v > 0.0 {
            measured(v, unit)
        } else {
            grouped(v)
        };
        w.element(
            "text",
            &[
                ("class", "pa-axis"),
                ("x", &coord(LEFT - 6.0)),
                ("y", &coord(y(v) + 4.0)),
                ("text-anchor", "end"),
            ],
            &label,
        );
        k += 1;
    }
    if unit != "s" {
        w.element(
            "text",
            &[
                ("class", "pa-axis"),
                ("x", &coord(LEFT - 6.0)),
                ("y", &coord(TOP - 2.0)),
                ("text-anchor", "end"),
            ],
            unit,
        );
    }
}

/// The round step (1, 2 or 5 × 10^k) at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw > 0.0 && raw.is_finite()) {
        return 0.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|&s| s >= raw * 0.999_999)
        .unwrap_or(10.0 * power)
}

fn bands(w: &mut SvgWriter, c: &Categories, top: f64, y: &dyn Fn(f64) -> f64) {
    for (k, edge) in c.edges.iter().enumerate() {
        if *edge > top {
            break;
        }
        let yy = coord(y(*edge));
        w.empty(
            "line",
            &[
                ("class", "pa-band-edge"),
                ("x1", &coord(LEFT)),
                ("x2", &coord(WIDTH - RIGHT)),
                ("y1", &yy),
                ("y2", &yy),
            ],
        );
        for (name, dy) in [(&c.names[k], 12.0), (&c.names[k + 1], -4.0)] {
            w.element(
                "text",
                &[
                    ("class", "pa-band-name"),
                    ("x", &coord(WIDTH - RIGHT + 4.0)),
                    ("y", &coord(y(*edge) + dy)),
                ],
                name,
            );
        }
    }
}

fn version_label(w: &mut SvgWriter, label: &str, x: f64, n: usize, i: usize) {
    let every = n.div_ceil(DETAILED_POINTS / 2).max(1);
    if i % every != 0 {
        return;
    }
    let short: String = label.chars().take(14).collect();
    let yy = HEIGHT - BOTTOM + 12.0;
    w.element(
        "text",
        &[
            ("class", "pa-axis"),
            ("x", &coord(x)),
            ("y", &coord(yy)),
            ("text-anchor", "end"),
            (
                "transform",
                &format!("rotate(-40 {} {})", coord(x), coord(yy)),
            ),
        ],
        &short,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_steps_are_round() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(1.3), 2.0);
        assert_eq!(nice_step(86.0), 100.0);
        assert_eq!(nice_step(0.0031), 0.005);
        assert_eq!(nice_step(0.0), 0.0);
    }
}
