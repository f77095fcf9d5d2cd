//! The time-series chart of one benchmark (PRCA's Fig. 3 and 7): each
//! version's mean with its confidence interval and its runs, the category
//! bands as dashed lines, and optionally the pair of versions around a
//! regression highlighted.
//!
//! Budget: up to [`DETAILED_POINTS`] versions every version is a point
//! with its interval and a tooltip. Beyond, the versions are drawn in at
//! most [`COLUMNS`] columns of consecutive versions: a line through the
//! range of each column's means and a shaded band over the range of its
//! intervals, so every version is drawn and an outlier stays visible; only
//! the versions given as `marked` and the highlighted pair are points with
//! a tooltip. A chart of 1,000 versions stays near 15 kB.

use super::format::{grouped, measured};
use super::svg::{coord, push_coord, SvgWriter};
use analysis::regression::{Categories, Series};
use model::Version;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 120.0;
const TOP: f64 = 22.0;
const BOTTOM: f64 = 64.0;
/// Above this many versions the runs are not drawn, labels thin out,
/// versions are drawn in columns, and only the marked versions are points.
pub const DETAILED_POINTS: usize = 120;
/// Most columns a long series is drawn in (about 4 pixels each).
pub const COLUMNS: usize = 140;
/// Most version labels under a long series.
const LONG_LABELS: usize = 24;

/// What a long series' chart draws, in words for the page; `None` when
/// every version is a point.
pub fn long_series_note(versions: usize, confidence: f64) -> Option<String> {
    if versions <= DETAILED_POINTS {
        return None;
    }
    let columns = versions.min(COLUMNS);
    Some(format!(
        "The chart draws all {versions} versions in {columns} columns of about {} consecutive versions each: the line spans the range of their means, the shaded band the range of their {}% intervals; points with a tooltip mark the first and the last version and the versions around each change found.",
        versions.div_ceil(columns),
        100.0 * confidence
    ))
}

/// Where a version's point leads, from the version's index.
pub type PointHref<'a> = &'a dyn Fn(usize) -> String;

/// The chart; `highlight` is (before, responsible) as version indices
/// and `point_href` where a version's point leads (its row of figures);
/// `marked`, the point positions drawn as points when the series is longer
/// than [`DETAILED_POINTS`].
pub fn chart(
    series: &Series,
    categories: Option<&Categories>,
    versions: &[Version],
    (highlight, point_href): (Option<(usize, usize)>, PointHref),
    marked: &[usize],
    confidence: f64,
) -> String {
    let n = series.points.len().max(1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let step = plot_w / n as f64;
    let top_value = top_of(series, categories, confidence);
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
    let detailed = n <= DETAILED_POINTS;
    if detailed {
        mean_line(&mut w, series, &x, &y);
    } else {
        let columns = columns(series, &x, confidence);
        interval_band(&mut w, &columns, &y);
        column_line(&mut w, &columns, &y);
    }
    let is_marked = marked_points(series, marked, highlight);
    for (i, p) in series.points.iter().enumerate() {
        if p.mean().is_none() {
            continue;
        }
        if !detailed && !is_marked[i] {
            version_label(&mut w, &versions[p.version].label, x(i), n, i);
            continue;
        }
        let Some(s) = p.summary(confidence) else {
            continue;
        };
        let role = match highlight {
            Some((_, after)) if after == p.version => "pa-responsible",
            Some((before, _)) if before == p.version => "pa-before",
            _ => "",
        };
        let version = &versions[p.version].label;
        w.open(
            "a",
            &[("href", &point_href(p.version)), ("class", "pa-point-link")],
        );
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
        if let Some((lo, hi)) = s.ci.filter(|_| detailed) {
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
        w.close("a");
        version_label(&mut w, version, x(i), n, i);
    }
    w.close("svg");
    w.finish()
}

/// Which points are drawn as points when the series is long: `marked`
/// and the highlighted pair.
fn marked_points(
    series: &Series,
    marked: &[usize],
    highlight: Option<(usize, usize)>,
) -> Vec<bool> {
    let mut out = vec![false; series.points.len()];
    for &i in marked {
        if let Some(m) = out.get_mut(i) {
            *m = true;
        }
    }
    for (i, p) in series.points.iter().enumerate() {
        if highlight.is_some_and(|(b, a)| p.version == b || p.version == a) {
            out[i] = true;
        }
    }
    out
}

/// The line through every version's mean.
fn mean_line(w: &mut SvgWriter, series: &Series, x: &dyn Fn(usize) -> f64, y: &dyn Fn(f64) -> f64) {
    let mut means = String::with_capacity(series.points.len() * 14);
    for (i, p) in series.points.iter().enumerate() {
        let Some(mean) = p.mean() else { continue };
        if !means.is_empty() {
            means.push(' ');
        }
        push_point(&mut means, x(i), y(mean));
    }
    w.empty(
        "polyline",
        &[("class", "pa-series-line"), ("points", &means)],
    );
}

/// Consecutive versions drawn as one column of a long chart.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Column {
    x: f64,
    /// Lowest and highest mean.
    means: (f64, f64),
    /// Lowest lower end and highest upper end of the intervals (the mean
    /// where a version has none).
    interval: (f64, f64),
}

/// At most [`COLUMNS`] columns of consecutive points, in order; `None` for a
/// column without figures.
fn columns(series: &Series, x: &dyn Fn(usize) -> f64, confidence: f64) -> Vec<Option<Column>> {
    let n = series.points.len();
    let count = n.min(COLUMNS);
    (0..count)
        .map(|k| {
            let (from, to) = (k * n / count, (k + 1) * n / count);
            let mut column: Option<Column> = None;
            for p in &series.points[from..to] {
                let Some(s) = p.summary(confidence) else {
                    continue;
                };
                let recorded = p.interval.as_deref().map(|i| (i.low, i.high));
                let (lo, hi) = s.ci.or(recorded).unwrap_or((s.mean, s.mean));
                let c = column.get_or_insert(Column {
                    x: (x(from) + x(to - 1)) / 2.0,
                    means: (s.mean, s.mean),
                    interval: (lo, hi),
                });
                c.means = (c.means.0.min(s.mean), c.means.1.max(s.mean));
                c.interval = (c.interval.0.min(lo), c.interval.1.max(hi));
            }
            column
        })
        .collect()
}

/// The line through the columns: down or up each column's range of means,
/// starting at the end nearer to where the line came from.
fn column_line(w: &mut SvgWriter, columns: &[Option<Column>], y: &dyn Fn(f64) -> f64) {
    let mut d = String::with_capacity(columns.len() * 28);
    let mut last: Option<f64> = None;
    for c in columns {
        let Some(c) = c else {
            last = None;
            continue;
        };
        let (a, b) = (y(c.means.0), y(c.means.1));
        let (first, second) = match last {
            Some(l) if (l - b).abs() < (l - a).abs() => (b, a),
            _ => (a, b),
        };
        d.push(if last.is_none() { 'M' } else { 'L' });
        push_point(&mut d, c.x, first);
        if second != first {
            d.push('L');
            push_point(&mut d, c.x, second);
        }
        last = Some(second);
    }
    w.empty("path", &[("class", "pa-series-line"), ("d", &d)]);
}

/// The columns' intervals as one shaded band: an outline along the upper
/// ends and back along the lower ends, broken at a column without figures.
fn interval_band(w: &mut SvgWriter, columns: &[Option<Column>], y: &dyn Fn(f64) -> f64) {
    let mut d = String::new();
    for run in columns.split(Option::is_none) {
        let run: Vec<&Column> = run.iter().flatten().collect();
        let upper = run.iter().map(|c| (c.x, c.interval.1));
        let lower = run.iter().rev().map(|c| (c.x, c.interval.0));
        for (k, (x, v)) in upper.chain(lower).enumerate() {
            d.push(if k == 0 { 'M' } else { 'L' });
            push_point(&mut d, x, y(v));
        }
        if !run.is_empty() {
            d.push('Z');
        }
    }
    if !d.is_empty() {
        w.empty(
            "path",
            &[
                ("class", "pa-ci-band"),
                ("fill", "currentColor"),
                ("fill-opacity", "0.15"),
                ("stroke", "none"),
                ("d", &d),
            ],
        );
    }
}

/// Appends `x,y` as coordinates.
fn push_point(out: &mut String, x: f64, y: f64) {
    push_coord(out, x);
    out.push(',');
    push_coord(out, y);
}

/// The value at the top of the plot: above every interval, run and band
/// edge that matters.
fn top_of(series: &Series, categories: Option<&Categories>, confidence: f64) -> f64 {
    let mut top = 0.0_f64;
    for p in &series.points {
        if let Some(s) = p.summary(confidence) {
            top = top.max(s.ci.map_or(s.mean, |c| c.1));
        }
        if let Some(i) = &p.interval {
            top = top.max(i.high);
        }
        top = top.max(p.values.moments().largest);
    }
    if let Some(c) = categories {
        // Show the next edge above the data when it is close.
        let (rising, _) = c.rising();
        if let Some(edge) = rising.iter().find(|&&e| e > top && e < top * 1.6) {
            top = *edge;
        }
    }
    if top > 0.0 {
        top * 1.08
    } else {
        1.0
    }
}

/// Grid lines at round values (1, 2 or 5 × a power of ten; of 1024 for
/// bytes), labelled in the series' unit as its table writes it (times and
/// bytes scaled: "20 ms", "2.00 MiB"; other units named once at the top).
fn axis(w: &mut SvgWriter, top: f64, unit: &str, y: &dyn Fn(f64) -> f64) {
    let bytes = unit == "bytes";
    let step = match bytes {
        true => {
            let scale = binary_scale(top);
            nice_step(top / scale / 4.0) * scale
        }
        false => nice_step(top / 4.0),
    };
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
        let label = if (unit == "s" || bytes) && v > 0.0 {
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
    if unit != "s" && !bytes {
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

/// The power of 1024 that `top` bytes are counted in (KiB, MiB, …).
fn binary_scale(top: f64) -> f64 {
    let mut scale = 1.0;
    while top / scale >= 1024.0 && scale < 1024f64.powi(5) {
        scale *= 1024.0;
    }
    scale
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

/// The category edges as dashed lines, and each category's name once, in
/// the middle of its visible span right of the plot. (Named above and
/// below each edge, a category between two edges was written twice, and
/// the two overlapped when the edges were close.) A span too thin for a
/// line of text goes unnamed; the page's sentence on categories names it.
fn bands(w: &mut SvgWriter, c: &Categories, top: f64, y: &dyn Fn(f64) -> f64) {
    let (rising, names) = c.rising();
    let visible: Vec<f64> = rising.into_iter().take_while(|e| *e <= top).collect();
    for edge in &visible {
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
    }
    for (k, name) in names.iter().enumerate().take(visible.len() + 1) {
        let low = if k == 0 { 0.0 } else { visible[k - 1] };
        let high = visible.get(k).copied().unwrap_or(top);
        let (bottom, upper) = (y(low), y(high));
        if bottom - upper < BAND_LABEL_HEIGHT {
            continue;
        }
        w.element(
            "text",
            &[
                ("class", "pa-band-name"),
                ("x", &coord(WIDTH - RIGHT + 4.0)),
                ("y", &coord((bottom + upper) / 2.0 + 4.0)),
            ],
            name,
        );
    }
}

/// The least height, in pixels, of a category span that gets its name.
const BAND_LABEL_HEIGHT: f64 = 12.0;

fn version_label(w: &mut SvgWriter, label: &str, x: f64, n: usize, i: usize) {
    let most = if n <= DETAILED_POINTS {
        DETAILED_POINTS / 2
    } else {
        LONG_LABELS
    };
    let every = n.div_ceil(most).max(1);
    if !i.is_multiple_of(every) {
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

    /// The axis labels `axis` writes for a series in `unit` up to `top`.
    fn axis_labels(top: f64, unit: &str) -> Vec<String> {
        let mut w = SvgWriter::with_capacity(1024);
        axis(&mut w, top, unit, &|v| 200.0 - v / top * 180.0);
        w.finish()
            .split("class=\"pa-axis\"")
            .skip(1)
            .map(|t| t[t.find('>').unwrap() + 1..t.find('<').unwrap()].to_string())
            .collect()
    }

    #[test]
    fn a_memory_axis_is_in_the_units_the_table_uses() {
        // 3.3 MiB of heap: steps of 1 MiB, not of 1,000,000 bytes.
        assert_eq!(
            axis_labels(3.3 * 1024.0 * 1024.0, "bytes"),
            ["0", "1.00 MiB", "2.00 MiB", "3.00 MiB"]
        );
        assert_eq!(axis_labels(3.3, "s"), ["0", "1.00 s", "2.00 s", "3.00 s"]);
        assert_eq!(axis_labels(330.0, "ops"), ["0", "100", "200", "300", "ops"]);
    }

    /// (name, y) of every category name `bands` writes.
    fn band_names(c: &Categories, top: f64) -> Vec<(String, f64)> {
        let y = |v: f64| 10.0 + 200.0 * (1.0 - (v / top).clamp(0.0, 1.0));
        let mut w = SvgWriter::with_capacity(1024);
        bands(&mut w, c, top, &y);
        let svg = w.finish();
        svg.split("<text ")
            .skip(1)
            .map(|t| {
                let y = t.split("y=\"").nth(1).unwrap().split('"').next().unwrap();
                let name = t.split('>').nth(1).unwrap().split('<').next().unwrap();
                (name.to_string(), y.parse().unwrap())
            })
            .collect()
    }

    #[test]
    fn each_category_is_named_once_and_names_never_overlap() {
        let c = Categories {
            names: vec!["fast".into(), "1.5× slower".into(), "3× slower".into()],
            edges: vec![300.0, 320.0],
            derived_from: Some(0),
            better: model::Better::Lower,
        };
        // The middle band is 4 px high at this scale: unnamed, not doubled.
        let names = band_names(&c, 1000.0);
        assert_eq!(
            names.iter().map(|n| n.0.as_str()).collect::<Vec<_>>(),
            ["fast", "3× slower"]
        );
        // Far apart, each band is named once, inside its span.
        let names = band_names(&c, 340.0);
        let mut seen: Vec<&str> = names.iter().map(|n| n.0.as_str()).collect();
        seen.dedup();
        assert_eq!(seen.len(), names.len(), "{names:?}");
        for pair in names.windows(2) {
            assert!(
                (pair[0].1 - pair[1].1).abs() >= BAND_LABEL_HEIGHT,
                "{names:?}"
            );
        }
    }
}
