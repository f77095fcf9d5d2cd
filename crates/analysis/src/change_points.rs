//! Change points of a series with one value per version: where its level
//! steps, for the histories most CI systems keep (github-action-benchmark's
//! `data.js`, asv results without samples, one `go test -bench` run per
//! commit), which give no repeated runs for a test between two versions.
//! The series' own noise is the model: a step is reported when the values
//! on its two sides differ beyond what the spread within each side
//! explains.
//!
//! Two passes, both deterministic, as in Apache Otava's (formerly Hunter)
//! split-and-test approach (Fleming et al., ICPE 2023):
//!
//! 1. **Candidates** by binary segmentation: within a stretch, the split
//!    with the largest pooled-variance t statistic between the values
//!    before and after it (found in one pass over prefix sums), kept when
//!    its own p-value is below the level; then both halves are searched
//!    the same way.
//! 2. **Pruning**: each candidate is tested again between its neighbours
//!    (the values since the previous change point against those up to the
//!    next) with Welch's t-test, its p-value multiplied by the positions
//!    between those neighbours; the weakest candidate is removed while
//!    one fails, and its neighbours are tested again. A candidate also
//!    fails when the medians of its two sides differ by less than the
//!    smallest practical change, so one outlier never makes a step.
//!
//! Both passes test the logarithms of a positive series, since
//! performance noise is relative. A level must hold for `min_segment`
//! values on each side. The p-values
//! left take part in the build's false-discovery control like the tests
//! between repeated runs.

use super::stats::{self, Comparison};
use config::Test;

/// How change points are searched for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// A change point's p-value (after the search's correction) must be
    /// below 1 − confidence.
    pub confidence: f64,
    /// Fewest values on each side of a change point.
    pub min_segment: usize,
    /// Smallest relative change of level reported (of the means and of
    /// the medians).
    pub min_change: f64,
}

/// A step in the series' level.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ChangePoint {
    /// Index of the first value at the new level.
    pub index: usize,
    /// The stretch before it: from this index up to `index`.
    pub from: usize,
    /// The stretch after it: from `index` up to (not including) this one.
    pub to: usize,
    /// Welch's test of the stretch after against the stretch before; its
    /// p-value is multiplied by the positions the step was searched among
    /// (at most 1), and its `test` is [`Test::ChangePoint`].
    pub comparison: Comparison,
}

/// The change points of `values`, in order.
pub fn detect(values: &[f64], settings: &Settings) -> Vec<ChangePoint> {
    if settings.min_segment == 0 || values.len() < 2 * settings.min_segment {
        return Vec::new();
    }
    if values.iter().any(|v| !v.is_finite()) {
        return Vec::new();
    }
    // Performance noise is relative (a value twice as large varies twice
    // as much), so positive series are tested on their logarithms; the
    // sizes reported stay those of the values.
    let scale: Vec<f64> = if values.iter().all(|&v| v > 0.0) {
        values.iter().map(|v| v.ln()).collect()
    } else {
        values.to_vec()
    };
    let candidates = candidates(&scale, settings);
    prune(values, &scale, candidates, settings)
}

/// Prefix sums of the values and their squares, shifted by the first
/// value so that sums of squares keep their precision.
struct Prefix {
    sum: Vec<f64>,
    squares: Vec<f64>,
}

impl Prefix {
    fn of(values: &[f64]) -> Prefix {
        let shift = values[0];
        let mut sum = Vec::with_capacity(values.len() + 1);
        let mut squares = Vec::with_capacity(values.len() + 1);
        let (mut s, mut q) = (0.0, 0.0);
        sum.push(0.0);
        squares.push(0.0);
        for v in values {
            let x = v - shift;
            s += x;
            q += x * x;
            sum.push(s);
            squares.push(q);
        }
        Prefix { sum, squares }
    }

    /// The count, mean (shifted) and sum of squared deviations of
    /// `values[a..b]`.
    fn stretch(&self, a: usize, b: usize) -> (f64, f64, f64) {
        let n = (b - a) as f64;
        let s = self.sum[b] - self.sum[a];
        let q = self.squares[b] - self.squares[a];
        let mean = s / n;
        (n, mean, (q - s * mean).max(0.0))
    }
}

/// Binary segmentation: every split whose own p-value is below the level,
/// in order. The search's correction is left to the pruning, so that a
/// level that steps up and back down, which no single split of the whole
/// stretch separates well, is still split at both of its ends.
fn candidates(values: &[f64], settings: &Settings) -> Vec<usize> {
    let prefix = Prefix::of(values);
    let alpha = 1.0 - settings.confidence;
    let m = settings.min_segment;
    let mut found = Vec::new();
    let mut stretches = vec![(0, values.len())];
    while let Some((a, b)) = stretches.pop() {
        if b - a < 2 * m {
            continue;
        }
        let Some((at, t)) = best_split(&prefix, a, b, m) else {
            continue;
        };
        if stats::t_p_value(t, (b - a - 2) as f64) < alpha {
            found.push(at);
            stretches.push((a, at));
            stretches.push((at, b));
        }
    }
    found.sort_unstable();
    found
}

/// The split of `values[a..b]` with the largest pooled-variance t
/// statistic (each side at least `m` long), and that statistic; `None`
/// when no split separates anything (every value equal).
fn best_split(prefix: &Prefix, a: usize, b: usize, m: usize) -> Option<(usize, f64)> {
    let mut best: Option<(usize, f64)> = None;
    for at in a + m..=b - m {
        let (n1, mean1, ss1) = prefix.stretch(a, at);
        let (n2, mean2, ss2) = prefix.stretch(at, b);
        let difference = mean2 - mean1;
        let pooled = (ss1 + ss2) / (n1 + n2 - 2.0);
        let se = (pooled * (1.0 / n1 + 1.0 / n2)).sqrt();
        let t = if se > 0.0 {
            difference.abs() / se
        } else if difference != 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        if t > 0.0 && best.is_none_or(|(_, b)| t > b) {
            best = Some((at, t));
        }
    }
    best
}

/// Candidates tested again between their neighbours, the weakest removed
/// while one fails; after a removal only its two neighbours are tested
/// again.
fn prune(
    values: &[f64],
    scale: &[f64],
    mut kept: Vec<usize>,
    settings: &Settings,
) -> Vec<ChangePoint> {
    let test = |kept: &[usize], i: usize| {
        let from = if i == 0 { 0 } else { kept[i - 1] };
        let to = kept.get(i + 1).copied().unwrap_or(values.len());
        test_step((values, scale), (from, kept[i], to), settings)
    };
    let mut tested: Vec<(ChangePoint, bool)> = (0..kept.len()).map(|i| test(&kept, i)).collect();
    loop {
        let weakest = tested
            .iter()
            .enumerate()
            .filter(|(_, (_, passes))| !passes)
            .max_by(|(_, (a, _)), (_, (b, _))| {
                a.comparison
                    .p_value
                    .total_cmp(&b.comparison.p_value)
                    .then(b.index.cmp(&a.index))
            })
            .map(|(i, _)| i);
        let Some(i) = weakest else {
            return tested.into_iter().map(|(c, _)| c).collect();
        };
        kept.remove(i);
        tested.remove(i);
        for j in [i.checked_sub(1), Some(i)].into_iter().flatten() {
            if j < kept.len() {
                tested[j] = test(&kept, j);
            }
        }
    }
}

/// The step at `at` between `values[from..at]` and `values[at..to]`, and
/// whether it passes: significant on the test's scale (`scale`, the
/// logarithms of positive values) after the search's correction, and at
/// least the smallest practical change in both its means and its medians.
/// The comparison's figures are those of the values, its p-value that of
/// the scale.
fn test_step(
    (values, scale): (&[f64], &[f64]),
    (from, at, to): (usize, usize, usize),
    settings: &Settings,
) -> (ChangePoint, bool) {
    let (before, after) = (&values[from..at], &values[at..to]);
    let positions = (to - from).saturating_sub(2 * settings.min_segment) + 1;
    let p_on_scale = stats::welch(&scale[from..at], &scale[at..to], settings.confidence)
        .map_or(1.0, |c| c.p_value);
    let comparison = match stats::welch(before, after, settings.confidence) {
        Some(c) => Comparison {
            test: Test::ChangePoint,
            p_value: (p_on_scale * positions as f64).min(1.0),
            ..c
        },
        None => Comparison {
            test: Test::ChangePoint,
            confidence: settings.confidence,
            statistic: 0.0,
            df: 0.0,
            p_value: 1.0,
            difference: 0.0,
            se: 0.0,
            relative: None,
        },
    };
    let large = |a: f64, b: f64| relative_size(a, b) >= settings.min_change;
    let means = large(mean(before), mean(after));
    let medians = large(median(before), median(after));
    let same_way =
        (mean(after) - mean(before)).signum() == (median(after) - median(before)).signum();
    let passes = comparison.p_value < 1.0 - settings.confidence && means && medians && same_way;
    let point = ChangePoint {
        index: at,
        from,
        to,
        comparison,
    };
    (point, passes)
}

/// |b − a| / |a|; any change from 0 is of infinite size, none is 0.
pub fn relative_size(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else if a == 0.0 {
        f64::INFINITY
    } else {
        ((b - a) / a).abs()
    }
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// The median (the mean of the two middle values for an even count).
pub fn median(xs: &[f64]) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests;
