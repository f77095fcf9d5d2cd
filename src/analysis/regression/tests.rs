use super::*;
use crate::input::measurements::{Measured, MeasurementFile, Reduced};

/// A point of five runs around `level` (±1%, fixed pattern).
fn point(version: usize, level: f64) -> Point {
    let values: Vec<f64> = [0.99, 1.005, 1.0, 1.01, 0.995]
        .iter()
        .map(|f| f * level)
        .collect();
    Point {
        version,
        summary: stats::summary(&values, 0.99),
        samples: values.len(),
        values: values.into(),
        in_process: false,
        sources: vec![],
        notes: vec![],
    }
}

fn series_of(levels: &[f64]) -> Series {
    Series {
        benchmark: "fib".into(),
        unit: "s".into(),
        origin: Origin::Measurements {
            formats: vec!["hyperfine".into()],
        },
        points: levels
            .iter()
            .enumerate()
            .map(|(i, &l)| point(i, l))
            .collect(),
    }
}

fn settings() -> Settings {
    Settings::from_config(&RegressionConfig::default())
}

/// Probes as (good, probe, changed against good).
type Probes = Vec<(usize, usize, bool)>;

/// (responsible version, probes) of each regression.
fn regressions(levels: &[f64]) -> Vec<(usize, Probes)> {
    let s = series_of(levels);
    let cats = Categories::for_series(&s, &RegressionConfig::default());
    find_changes(&s, cats.as_ref(), &settings())
        .into_iter()
        .filter(|c| c.direction == Direction::Regression)
        .map(|c| {
            let probes = c
                .probes
                .iter()
                .map(|p| (p.good, p.probe, p.changed))
                .collect();
            (c.after, probes)
        })
        .collect()
}

// The four controlled experiments of PRCA section 5.1 over r1..r6
// (indices 0..5), with the probes the paper describes.

#[test]
fn simple_regression_at_r5() {
    let found = regressions(&[10.0, 10.0, 10.0, 10.0, 20.0, 20.0]);
    // r1–r3 not rejected, then r3–r4 not, then r4–r5 rejected.
    assert_eq!(
        found,
        vec![(4, vec![(0, 2, false), (2, 3, false), (3, 4, true)])]
    );
}

#[test]
fn improvement_then_regression_finds_r4() {
    let found = regressions(&[10.0, 10.0, 5.0, 20.0, 20.0, 20.0]);
    assert_eq!(found[0].0, 3);
    // r1–r3 differs but r3 is faster: the search goes on with (r3, r6).
    assert_eq!(found[0].1[..2], [(0, 2, false), (2, 3, true)]);
}

#[test]
fn regression_then_improvement_finds_r4() {
    let found = regressions(&[10.0, 10.0, 10.0, 30.0, 20.0, 20.0]);
    assert_eq!(found[0].0, 3);
}

#[test]
fn oscillation_finds_r3() {
    let found = regressions(&[10.0, 10.0, 20.0, 10.0, 20.0, 20.0]);
    assert_eq!(found[0], (2, vec![(0, 2, true), (0, 1, false)]));
}

#[test]
fn two_regressions_are_both_reported_with_the_improvement() {
    let s = series_of(&[10.0, 20.0, 20.0, 20.0, 40.0, 40.0, 30.0, 30.0]);
    let cats = Categories::for_series(&s, &RegressionConfig::default()).unwrap();
    let changes = find_changes(&s, Some(&cats), &settings());
    let got: Vec<(Direction, usize, Severity)> = changes
        .iter()
        .map(|c| (c.direction, c.after, c.severity))
        .collect();
    assert_eq!(
        got,
        vec![
            // ×2: from "as first measured" (< 15) to 1.5× (< 30): major.
            (Direction::Regression, 1, Severity::Major),
            (Direction::Regression, 4, Severity::Major),
            // 40 → 30: both ≥ 3× 10: within the category.
            (Direction::Improvement, 6, Severity::Minor),
        ]
    );
    assert_eq!(cats.names[0], "as first measured");
    assert!((cats.edges[0] - 15.0).abs() < 1e-9 && (cats.edges[1] - 30.0).abs() < 1e-9);
}

#[test]
fn a_minor_regression_stays_in_its_category() {
    let s = series_of(&[10.0, 10.0, 11.0, 11.0]);
    let cats = Categories::for_series(&s, &RegressionConfig::default()).unwrap();
    let changes = find_changes(&s, Some(&cats), &settings());
    assert_eq!(changes.len(), 1);
    assert_eq!(
        (changes[0].after, changes[0].severity),
        (2, Severity::Minor)
    );
    let c = changes[0].comparison.unwrap();
    assert!((c.relative.unwrap() - 0.1).abs() < 1e-9);
    let ci = c.ci();
    assert!(ci.0 > 0.0 && ci.1 > ci.0);
}

#[test]
fn configured_categories_decide_major() {
    let config = toml::from_str::<RegressionConfig>(
        "categories = [{name = \"fast\", below = \"10ms\"}, {name = \"medium\", below = 0.1}, {name = \"slow\"}]",
    )
    .unwrap();
    let s = series_of(&[0.005, 0.005, 0.009, 0.011]);
    let cats = Categories::for_series(&s, &config).unwrap();
    assert_eq!(cats.edges, vec![0.01, 0.1]);
    let changes = find_changes(&s, Some(&cats), &settings());
    let got: Vec<_> = changes.iter().map(|c| (c.after, c.severity)).collect();
    assert_eq!(got, vec![(2, Severity::Minor), (3, Severity::Major)]);
    assert_eq!(changes[1].categories, ("fast".into(), "medium".into()));
}

#[test]
fn too_few_runs_give_no_verdict() {
    let mut s = series_of(&[10.0, 20.0]);
    s.points[1].values = s.points[1].values[..2].to_vec().into();
    let (verdict, c) = judge(&s.points[0], &s.points[1], None, &settings());
    assert!(c.is_none());
    let Verdict::NotEnoughData { reason } = verdict else {
        panic!("{verdict:?}")
    };
    assert_eq!(reason, "2 independent runs (at least 3 needed)");
    assert!(find_changes(&s, None, &settings()).is_empty());
}

#[test]
fn one_criterion_run_is_one_run_however_many_samples() {
    let history = History {
        versions: vec![Default::default(), Default::default()],
        measurements: (0..2)
            .map(|v| {
                // As a build reads Criterion's sample.json: one run of 100
                // in-process samples, reduced to its mean.
                let read = Reduced::of(MeasurementFile {
                    format: "criterion",
                    benchmarks: vec![Measured {
                        name: "fib".into(),
                        unit: "s".into(),
                        runs: vec![(0..100).map(|i| 1.0 + v as f64 + i as f64 * 1e-3).collect()],
                        in_process: true,
                        note: String::new(),
                    }],
                    warnings: Vec::new(),
                });
                let b = &read.benchmarks[0];
                crate::model::MeasurementEntry {
                    version: v,
                    benchmark: "fib".into(),
                    unit: read.unit_of(b).into(),
                    run_means: b.means.clone(),
                    samples: b.samples,
                    in_process: b.in_process,
                    multi_sample: b.multi_sample,
                    source: format!("v{v}/criterion/fib/new/sample.json").into(),
                    format: "criterion",
                    note: read.note_of(b).into(),
                }
            })
            .collect(),
        ..History::default()
    };
    let all = series(&history, &RegressionConfig::default());
    assert_eq!(all[0].points[0].values.len(), 1);
    assert_eq!(all[0].points[0].samples, 100);
    let (verdict, _) = judge(&all[0].points[0], &all[0].points[1], None, &settings());
    assert_eq!(
        verdict,
        Verdict::NotEnoughData {
            reason: "1 independent run (at least 3 needed); its 100 samples were taken inside one process and are not independent".into()
        }
    );
}

#[test]
fn linear_probe_weights_follow_the_paper() {
    // N = 5 (r2..r6 between r1 and r6): weights 1,2,2,1,0 → r3 (index 2).
    assert_eq!(next_linear_probe(0, 5), Some((2, 2)));
    assert_eq!(next_linear_probe(2, 5), Some((3, 1)));
    assert_eq!(next_linear_probe(3, 5), Some((4, 1)));
    assert_eq!(next_linear_probe(3, 4), None);
}
