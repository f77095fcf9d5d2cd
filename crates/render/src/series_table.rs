//! The budget of a benchmark's per-version table (`[regressions]
//! table_rows`, 60 by default). A history of up to that many versions shows
//! every version; a longer one shows that many at most — the first, the
//! latest [`LATEST`], the versions around each change found (one on either
//! side) and each version that differs significantly from the one before —
//! and sums up every run of versions left out in one line (how many, the
//! range of their means, their verdicts counted), so every total stays
//! exact.

use analysis::regression::{Direction, Severity, Verdict};

/// The newest versions always shown when the table is cut.
pub const LATEST: usize = 10;

/// One line of the table, in version order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The point at this position of the series.
    Point(usize),
    /// The points `from..=to`, left out.
    Gap { from: usize, to: usize },
}

/// The lines of a table of `n` points with at most `max_rows` rows (0: no
/// limit; the first and the latest [`LATEST`] points are shown whatever
/// the limit). `changes`: (before, after) point positions of each change
/// found; `steps`: positions whose point differs significantly from the
/// one before.
pub fn lines(n: usize, max_rows: usize, changes: &[(usize, usize)], steps: &[usize]) -> Vec<Line> {
    let shown = shown(n, max_rows, changes, steps);
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if shown[i] {
            out.push(Line::Point(i));
            i += 1;
            continue;
        }
        let from = i;
        while i < n && !shown[i] {
            i += 1;
        }
        out.push(Line::Gap { from, to: i - 1 });
    }
    out
}

/// Which points get a row: whole groups, most important first, while the
/// budget lasts (the first group always fits).
fn shown(n: usize, max_rows: usize, changes: &[(usize, usize)], steps: &[usize]) -> Vec<bool> {
    if max_rows == 0 || n <= max_rows {
        return vec![true; n];
    }
    let last = n - 1;
    let around = |from: usize, to: usize| from.saturating_sub(1)..=(to + 1).min(last);
    let mut groups = vec![(0..=0)
        .chain(n.saturating_sub(LATEST)..=last)
        .collect::<Vec<_>>()];
    groups.extend(changes.iter().map(|&(b, a)| around(b, a).collect()));
    groups.extend(steps.iter().map(|&s| vec![s]));
    let mut shown = vec![false; n];
    let mut count = 0;
    for group in groups {
        let new = group.iter().filter(|&&i| i < n && !shown[i]).count();
        if count > 0 && count + new > max_rows {
            continue;
        }
        for i in group.into_iter().filter(|&i| i < n) {
            shown[i] = true;
        }
        count += new;
    }
    shown
}

/// How many verdicts of each kind a run of versions holds, in words,
/// e.g. `309 no significant change, 2 not enough data`.
pub fn tally<'a>(verdicts: impl Iterator<Item = &'a Verdict>) -> String {
    let mut counts = Tally::default();
    for v in verdicts {
        counts.add(v);
    }
    counts.words()
}

/// Verdicts counted by kind, for [`tally`]'s words.
#[derive(Default, Clone, Copy)]
pub struct Tally([u32; 8]);

impl Tally {
    pub fn add(&mut self, v: &Verdict) {
        let k = match v {
            Verdict::NoChange => 0,
            Verdict::NotEnoughData { .. } => 1,
            Verdict::HeldBack { .. } => 6,
            Verdict::Negligible { .. } => 7,
            Verdict::Change {
                direction,
                severity,
            } => match (direction, severity) {
                (Direction::Regression, Severity::Major) => 2,
                (Direction::Regression, Severity::Minor) => 3,
                (Direction::Improvement, Severity::Major) => 4,
                (Direction::Improvement, Severity::Minor) => 5,
            },
        };
        self.0[k] += 1;
    }

    /// The counts in words, e.g. `12 no significant changes, 1 major
    /// regression`.
    pub fn words(&self) -> String {
        let counts = self.0;
        let words = [
            "no significant change",
            "not enough data",
            "major regression",
            "minor regression",
            "major improvement",
            "minor improvement",
            "held back by false-discovery control",
            "below the practical size",
        ];
        let parts: Vec<String> = counts
            .iter()
            .zip(words)
            .filter(|(&c, _)| c > 0)
            .map(|(&c, w)| {
                let plural =
                    c > 1 && (w.contains("change") || w.contains("ment") || w.contains("sion"));
                format!("{c} {w}{}", if plural { "s" } else { "" })
            })
            .collect();
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tables_show_every_version() {
        let lines = lines(60, 60, &[(3, 4)], &[]);
        assert_eq!(lines.len(), 60);
        assert!(lines.iter().all(|l| matches!(l, Line::Point(_))));
        assert_eq!(super::lines(1000, 0, &[], &[]).len(), 1000);
    }

    #[test]
    fn long_tables_keep_the_ends_the_changes_and_the_steps() {
        let lines = lines(1000, 60, &[(499, 500)], &[700]);
        let points: Vec<usize> = lines
            .iter()
            .filter_map(|l| match l {
                Line::Point(i) => Some(*i),
                Line::Gap { .. } => None,
            })
            .collect();
        let mut expected = vec![0, 498, 499, 500, 501, 700];
        expected.extend(990..1000);
        assert_eq!(points, expected);
        assert_eq!(
            lines[..4],
            [
                Line::Point(0),
                Line::Gap { from: 1, to: 497 },
                Line::Point(498),
                Line::Point(499)
            ]
        );
        // Every point is in exactly one line.
        let covered: usize = lines
            .iter()
            .map(|l| match l {
                Line::Point(_) => 1,
                Line::Gap { from, to } => to - from + 1,
            })
            .sum();
        assert_eq!(covered, 1000);
    }

    #[test]
    fn the_budget_holds_with_many_steps() {
        let steps: Vec<usize> = (1..1000).step_by(3).collect();
        let lines = lines(1000, 60, &[(10, 11)], &steps);
        let rows = lines.iter().filter(|l| matches!(l, Line::Point(_))).count();
        assert_eq!(rows, 60);
        assert!(lines.contains(&Line::Point(11)));
    }

    #[test]
    fn tallies_name_every_kind_once() {
        let v = [
            Verdict::NoChange,
            Verdict::NoChange,
            Verdict::NotEnoughData { reason: "x".into() },
            Verdict::Change {
                direction: Direction::Regression,
                severity: Severity::Minor,
            },
        ];
        assert_eq!(
            tally(v.iter()),
            "2 no significant changes, 1 not enough data, 1 minor regression"
        );
    }
}
