//! The changes of a series: each pair judged a change, named by its later
//! version, with what its figures compare and the later change that undid
//! it.

use super::*;

/// How a change was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    /// Two consecutive versions, both measured, compared directly.
    Adjacent,
    /// Two measured versions with `unmeasured` versions between them that
    /// have no figures: the responsible version is one of those or the
    /// later one (`perfatlas bisect` narrows it by PRCA's probing).
    Gap { unmeasured: usize },
}

/// What a change's figures compare.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Basis {
    /// The two versions' independent runs.
    Runs,
    /// The two versions' values, equal within each version.
    Exact,
    /// The newest value against the prediction interval of the `window`
    /// values before it (a history of one value per version).
    NewValue { window: usize },
    /// The intervals the tool recorded around each version's value, apart
    /// (as `asv compare` reads them): where there are too few runs for a
    /// test and too little history for change points.
    Intervals { before: Interval, after: Interval },
    /// A change point: the values of the versions `from` up to the one
    /// before the change against those from the change up to `to`
    /// (version indices, both included).
    ChangePoint {
        from: usize,
        to: usize,
        before_count: usize,
        after_count: usize,
    },
}

/// A later change in the other direction that took a change back.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Undone {
    /// Version index of the change that took it back.
    pub by: usize,
    /// The mean there against the mean before the change, (x − before) /
    /// before: near 0 when fully undone.
    pub relative_to_before: f64,
}

/// A regression or improvement with the version responsible for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub benchmark: String,
    pub direction: Direction,
    pub severity: Severity,
    /// Version indices: the last one before the change and the responsible
    /// one.
    pub before: usize,
    pub after: usize,
    pub method: Method,
    /// What the figures compare.
    pub basis: Basis,
    /// `after` against `before` (for a change point, the level after
    /// against the level before); `None` for an exact comparison.
    pub comparison: Option<Comparison>,
    /// (after − before) / before of the means compared.
    pub relative: Option<f64>,
    pub categories: (String, String),
    /// A later change that took at least half of this one back.
    pub undone: Option<Undone>,
}

impl Change {
    /// Sort key: major first, then the largest relative change.
    pub fn severity_key(&self) -> (Severity, i64) {
        let relative = self
            .relative
            .filter(|r| r.is_finite())
            .map(|r| (r.abs() * 1e6) as i64)
            .unwrap_or(i64::MAX);
        (self.severity, relative)
    }
}

/// The figures of pair `i` (point `i` against point `i − 1`) as judged:
/// the test between their runs, the change point's test between the
/// levels, or nothing for an exact comparison or a pair that is no
/// change point.
pub fn pair_comparison(
    series: &Series,
    judging: &Judging,
    i: usize,
    settings: &Settings,
) -> Option<Comparison> {
    let points = &series.points;
    let (a, b) = (points.get(i.checked_sub(1)?)?, points.get(i)?);
    match judging {
        Judging::Runs => judge(a, b, None, series.better, settings).1,
        Judging::Exact => None,
        Judging::ChangePoints { found } => match found.iter().find(|c| c.index == i) {
            Some(c) => Some(c.comparison),
            None if i + 1 == points.len() => {
                judge_new_value(series, judging, i, i, None, settings).1
            }
            None => None,
        },
    }
}

/// Every regression and improvement of `series`: each pair of consecutive
/// points whose verdict (`verdicts`, one per pair) is a change, named by
/// its later version, with the later change that undid it, if any.
pub fn find_changes(
    series: &Series,
    judging: &Judging,
    categories: Option<&Categories>,
    verdicts: &[Verdict],
    settings: &Settings,
) -> Vec<Change> {
    let name = |v: f64| {
        categories
            .map(|c| c.name_of(v).to_string())
            .unwrap_or_default()
    };
    let mut found: Vec<(usize, Change)> = Vec::new();
    for (i, (w, verdict)) in series.points.windows(2).zip(verdicts).enumerate() {
        let Verdict::Change {
            direction,
            severity,
        } = *verdict
        else {
            continue;
        };
        let (a, b) = (&w[0], &w[1]);
        let comparison = pair_comparison(series, judging, i + 1, settings);
        let apart = match (a.interval.as_deref(), b.interval.as_deref()) {
            (Some(&before), Some(&after)) => Some(Basis::Intervals { before, after }),
            _ => None,
        };
        let (basis, levels) = match judging {
            Judging::Runs if by_intervals(a, b, settings) => {
                (apart.unwrap_or(Basis::Runs), (mean(a), mean(b)))
            }
            Judging::Runs => (Basis::Runs, (mean(a), mean(b))),
            Judging::Exact => (Basis::Exact, (mean(a), mean(b))),
            Judging::ChangePoints { found } => match found.iter().find(|c| c.index == i + 1) {
                None if i + 2 == series.points.len()
                    && window_before(series, judging, i + 1, settings).len() >= 3 =>
                {
                    let window = window_before(series, judging, i + 1, settings);
                    let m = model::Moments::of(&window).mean;
                    (
                        Basis::NewValue {
                            window: window.len(),
                        },
                        (m, mean(b)),
                    )
                }
                Some(c) => {
                    let (before, after) = level_points(series, c);
                    (
                        Basis::ChangePoint {
                            from: series.points[c.from].version,
                            to: series.points[c.to - 1].version,
                            before_count: c.index - c.from,
                            after_count: c.to - c.index,
                        },
                        (mean(&before), mean(&after)),
                    )
                }
                None => match apart {
                    Some(basis) => (basis, (mean(a), mean(b))),
                    None => continue,
                },
            },
        };
        let method = match b.version - a.version {
            1 => Method::Adjacent,
            n => Method::Gap { unmeasured: n - 1 },
        };
        let relative = (levels.0 != 0.0).then(|| (levels.1 - levels.0) / levels.0);
        found.push((
            i,
            Change {
                benchmark: series.benchmark.clone(),
                direction,
                severity,
                before: a.version,
                after: b.version,
                method,
                basis,
                comparison,
                relative,
                categories: (name(levels.0), name(levels.1)),
                undone: None,
            },
        ));
    }
    let undone: Vec<Option<Undone>> = found
        .iter()
        .map(|(i, c)| undone_by(series, &found, *i, c))
        .collect();
    found
        .into_iter()
        .zip(undone)
        .map(|((_, c), undone)| Change { undone, ..c })
        .collect()
}

/// The first later change in the other direction after which the series
/// has come back at least half-way to where it was before change `c` (at
/// pair `i`).
fn undone_by(series: &Series, found: &[(usize, Change)], i: usize, c: &Change) -> Option<Undone> {
    let before = mean(&series.points[i]);
    let after = mean(&series.points[i + 1]);
    let half_way = before + (after - before) / 2.0;
    found
        .iter()
        .filter(|(j, later)| *j > i && later.direction != c.direction)
        .find_map(|(j, later)| {
            let there = mean(&series.points[j + 1]);
            let back = if after > before {
                there <= half_way
            } else {
                there >= half_way
            };
            (back && before != 0.0).then(|| Undone {
                by: later.after,
                relative_to_before: (there - before) / before,
            })
        })
}
