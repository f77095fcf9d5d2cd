//! A single new value (the PR case): against the prediction interval of
//! the window of values before it, or a version against another by their
//! runs.

use super::*;

/// Judges version `newer` against `older` for one series (the CI gate):
/// by their runs, or exactly when the series is exact. A newer version
/// with a single value is judged by [`judge_new_value`] instead.
pub fn judge_versions(
    series: &Series,
    judging: &Judging,
    older: usize,
    newer: usize,
    categories: Option<&Categories>,
    settings: &Settings,
) -> (Verdict, Option<Comparison>) {
    match (series.point_of(older), series.point_of(newer)) {
        (Some(a), Some(b)) if *judging == Judging::Exact => (
            exact_verdict(a, b, categories, series.better, settings),
            None,
        ),
        (Some(a), Some(b)) => judge(a, b, categories, series.better, settings),
        (a, _) => (
            Verdict::NotEnoughData {
                reason: format!(
                    "no figures for the {} version",
                    if a.is_none() { "older" } else { "newer" }
                ),
            },
            None,
        ),
    }
}

/// The window a new value at point `newest` is judged against: the values
/// of the points before it since the series' last change point before
/// it, the last `settings.window` of them.
pub fn window_before(
    series: &Series,
    judging: &Judging,
    newest: usize,
    settings: &Settings,
) -> Vec<f64> {
    let since = match judging {
        Judging::ChangePoints { found } => found
            .iter()
            .map(|c| c.index)
            .filter(|&i| i < newest)
            .max()
            .unwrap_or(0),
        _ => 0,
    };
    let start = since.max(newest.saturating_sub(settings.window));
    series.points[start..newest].iter().map(mean).collect()
}

/// One new value (point `newest`'s mean) against the prediction interval
/// of the window of values before point `window_end` ([`window_before`]),
/// as Bencher's t-test thresholds judge a new run: t = (x − m) /
/// (s √(1 + 1/n)) with n − 1 degrees of freedom.
pub fn judge_new_value(
    series: &Series,
    judging: &Judging,
    window_end: usize,
    newest: usize,
    categories: Option<&Categories>,
    settings: &Settings,
) -> (Verdict, Option<Comparison>) {
    let window = window_before(series, judging, window_end, settings);
    let n = window.len();
    let previous = window_end.checked_sub(1).and_then(|i| series.points.get(i));
    if let (true, Some(a), Some(b)) = (n < 3, previous, series.points.get(newest)) {
        if let Some(v) = interval_verdict(a, b, categories, series.better, settings) {
            return (v, None);
        }
    }
    if n < 3 {
        return (
            Verdict::NotEnoughData {
                reason: format!(
                    "{n} earlier value{} at this level (at least 3 needed to judge a single new value, or {} independent runs in both versions)",
                    if n == 1 { "" } else { "s" },
                    settings.min_runs
                ),
            },
            None,
        );
    }
    let Some(x) = series.points.get(newest).map(mean) else {
        return (
            Verdict::NotEnoughData {
                reason: "no figures for the newer version".into(),
            },
            None,
        );
    };
    let m = model::Moments::of(&window);
    let se = (m.variance * (1.0 + 1.0 / n as f64)).sqrt();
    let difference = x - m.mean;
    let statistic = if se > 0.0 {
        difference / se
    } else if difference == 0.0 {
        0.0
    } else {
        difference.signum() * f64::INFINITY
    };
    let df = (n - 1) as f64;
    let comparison = Comparison {
        test: Test::PredictionInterval,
        confidence: settings.confidence,
        statistic,
        df,
        p_value: stats::t_p_value(statistic, df),
        difference,
        se,
        relative: (m.mean != 0.0).then(|| difference / m.mean),
    };
    if !comparison.significant() {
        return (Verdict::NoChange, Some(comparison));
    }
    let level = Point {
        version: series.points[window_end - 1].version,
        samples: n,
        values: window.into(),
        interval: None,
        in_process: false,
        sources: Names::default(),
        notes: Names::default(),
    };
    let verdict = change_of_size(
        &level,
        &series.points[newest],
        categories,
        series.better,
        difference,
        settings,
    );
    (verdict, Some(comparison))
}
