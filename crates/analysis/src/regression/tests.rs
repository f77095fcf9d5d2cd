use super::*;
use input::measurements::{Measured, MeasurementFile, Reduced};

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

/// Every change of a series, each pair judged alone (no false-discovery
/// control: a single series).
fn changes_of(s: &Series, cats: Option<&Categories>) -> Vec<Change> {
    let tests = pair_tests(s, cats, &settings());
    let (verdicts, _) = controlled(&[tests], false, 0.01);
    find_changes(s, cats, &verdicts[0], &settings())
}

/// (direction, responsible version, undone by) of each change.
fn found(levels: &[f64]) -> Vec<(Direction, usize, Option<usize>)> {
    let s = series_of(levels);
    let cats = Categories::for_series(&s, &RegressionConfig::default());
    changes_of(&s, cats.as_ref())
        .into_iter()
        .map(|c| (c.direction, c.after, c.undone.map(|u| u.by)))
        .collect()
}

use Direction::{Improvement as Imp, Regression as Reg};

// The four controlled experiments of PRCA section 5.1 over r1..r6
// (indices 0..5): the paper's answer is found, and with every version
// measured every other significant step is found too.

#[test]
fn simple_regression_at_r5() {
    assert_eq!(
        found(&[10.0, 10.0, 10.0, 10.0, 20.0, 20.0]),
        [(Reg, 4, None)]
    );
}

#[test]
fn improvement_then_regression_finds_r4() {
    assert_eq!(
        found(&[10.0, 10.0, 5.0, 20.0, 20.0, 20.0]),
        [(Imp, 2, Some(3)), (Reg, 3, None)]
    );
}

#[test]
fn regression_then_improvement_finds_r4() {
    // 30 → 20 takes back half of the 10 → 30 step: undone (half-way).
    assert_eq!(
        found(&[10.0, 10.0, 10.0, 30.0, 20.0, 20.0]),
        [(Reg, 3, Some(4)), (Imp, 4, None)]
    );
    assert_eq!(
        found(&[10.0, 10.0, 10.0, 30.0, 25.0, 25.0])[0],
        (Reg, 3, None)
    );
}

#[test]
fn oscillation_finds_r3_undone_at_r4_and_r5() {
    // The paper's bisection stops at r3 (section 6 discusses the rest).
    assert_eq!(
        found(&[10.0, 10.0, 20.0, 10.0, 20.0, 20.0]),
        [(Reg, 2, Some(3)), (Imp, 3, Some(4)), (Reg, 4, None)]
    );
}

#[test]
fn a_slowdown_later_undone_is_reported_with_the_undoing_version() {
    // 1.06 s → 10.5 s → back two versions later: the ends are equal.
    let got = found(&[1.06, 1.05, 10.5, 10.4, 1.07, 1.06]);
    assert_eq!(got, [(Reg, 2, Some(4)), (Imp, 4, None)]);
    let s = series_of(&[1.06, 1.05, 10.5, 10.4, 1.07, 1.06]);
    let c = &changes_of(&s, None)[0];
    assert_eq!(c.method, Method::Adjacent);
    assert!(c.undone.as_ref().unwrap().relative_to_before.abs() < 0.05);
}

#[test]
fn a_change_across_unmeasured_versions_says_so() {
    let mut s = series_of(&[10.0, 10.0, 20.0]);
    s.points[2].version = 5;
    let c = changes_of(&s, None);
    assert_eq!(c.len(), 1);
    assert_eq!((c[0].before, c[0].after), (1, 5));
    assert_eq!(c[0].method, Method::Gap { unmeasured: 3 });
}

#[test]
fn benjamini_hochberg_follows_its_definition() {
    // Sorted p: .001 .008 .039 .041 .042, m = 10, q = .05: thresholds
    // k/10 × .05 = .005 .010 .015 .020 .025: the second is the last below.
    let p = [0.039, 0.001, 0.041, 0.008, 0.042];
    assert_eq!(benjamini_hochberg(&p, 10, 0.05), Some(0.008));
    assert_eq!(benjamini_hochberg(&[0.02], 10, 0.05), None);
    assert_eq!(benjamini_hochberg(&[], 10, 0.05), None);
}

#[test]
fn the_false_discovery_control_holds_back_a_borderline_pair_everywhere() {
    // One clear change and one borderline one among many quiet pairs.
    let mut levels = vec![10.0; 30];
    for l in levels.iter_mut().skip(10) {
        *l = 20.0;
    }
    let mut s = series_of(&levels);
    // Pair 20→21 differs a little: significant alone at 99%, not among 29.
    let a: Vec<f64> = [0.99, 1.005, 1.0, 1.01, 0.995]
        .iter()
        .map(|f| f * 20.0)
        .collect();
    let b: Vec<f64> = [1.012, 1.026, 1.019, 1.031, 1.015]
        .iter()
        .map(|f| f * 20.0)
        .collect();
    s.points[20].values = a.into();
    s.points[21].values = b.clone().into();
    s.points[21].summary = stats::summary(&b, 0.99);
    let tests = pair_tests(&s, None, &settings());
    let alone = tests
        .iter()
        .filter(|t| matches!(t.verdict, Verdict::Change { .. }))
        .count();
    let p21 = tests[20].p_value.unwrap();
    // The step up at 20→21 and back down at 21→22.
    assert_eq!(alone, 3, "p of the borderline pair: {p21}");
    let (verdicts, fdr) = controlled(&[tests], true, 0.01);
    let kept: Vec<usize> = verdicts[0]
        .iter()
        .enumerate()
        .filter(|(_, v)| matches!(v, Verdict::Change { .. }))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(kept, [10], "only the clear change, p21 = {p21}, {fdr:?}");
    assert_eq!((fdr.tests, fdr.held_back), (29, 2));
}

#[test]
fn two_regressions_are_both_reported_with_the_improvement() {
    let s = series_of(&[10.0, 20.0, 20.0, 20.0, 40.0, 40.0, 30.0, 30.0]);
    let cats = Categories::for_series(&s, &RegressionConfig::default()).unwrap();
    let changes = changes_of(&s, Some(&cats));
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
    let changes = changes_of(&s, Some(&cats));
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
    let changes = changes_of(&s, Some(&cats));
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
    assert!(changes_of(&s, None).is_empty());
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
                model::MeasurementEntry {
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
