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
        samples: values.len(),
        values: values.into(),
        interval: None,
        in_process: false,
        sources: Names::default(),
        notes: Names::default(),
    }
}

fn series_of(levels: &[f64]) -> Series {
    Series {
        benchmark: "fib".into(),
        unit: "s".into(),
        origin: Origin::Measurements {
            formats: vec!["hyperfine".into()],
        },
        better: Better::Lower,
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
    let judging = Judging::choose(s, &settings());
    let tests = pair_tests(s, &judging, cats, &settings());
    let (verdicts, _) = controlled(&[tests], false, 0.01);
    find_changes(s, &judging, cats, &verdicts[0], &settings())
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
    let tests = pair_tests(&s, &Judging::Runs, None, &settings());
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
    // Held back, and said so with the p-value.
    assert!(
        matches!(verdicts[0][20], Verdict::HeldBack { p_value } if p_value == p21),
        "{:?}",
        verdicts[0][20]
    );
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
    let (verdict, c) = judge(&s.points[0], &s.points[1], None, Better::Lower, &settings());
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
        measurements: vec![model::MeasuredBenchmark {
            name: "fib".into(),
            entries: (0..2)
                .map(|v| {
                    // As a build reads Criterion's sample.json: one run of 100
                    // in-process samples, reduced to its mean.
                    let read = Reduced::of(MeasurementFile {
                        format: "criterion",
                        benchmarks: vec![Measured {
                            name: "fib".into(),
                            unit: "s".into(),
                            runs: vec![(0..100)
                                .map(|i| 1.0 + v as f64 + i as f64 * 1e-3)
                                .collect()],
                            in_process: true,
                            note: String::new(),
                            interval: None,
                        }],
                        warnings: Vec::new(),
                    });
                    let b = &read.benchmarks[0];
                    model::MeasurementEntry {
                        version: v,
                        unit: model::intern(read.unit_of(b)),
                        run_means: b.means.clone(),
                        samples: b.samples,
                        in_process: b.in_process,
                        multi_sample: b.multi_sample,
                        source: model::intern(&format!("v{v}/criterion/fib/new/sample.json")),
                        format: "criterion",
                        note: model::intern(read.note_of(b)),
                        interval: b.interval.map(Box::new),
                    }
                })
                .collect(),
        }],
        ..History::default()
    };
    let all = series(&history, &RegressionConfig::default());
    assert_eq!(all[0].points[0].values.len(), 1);
    assert_eq!(all[0].points[0].samples, 100);
    let (verdict, _) = judge(
        &all[0].points[0],
        &all[0].points[1],
        None,
        Better::Lower,
        &settings(),
    );
    assert_eq!(
        verdict,
        Verdict::NotEnoughData {
            reason: "1 independent run (at least 3 needed); its 100 samples were taken inside one process and are not independent".into()
        }
    );
}

/// An entry of version `v` from `file`, of runs `runs`.
fn entry(v: usize, file: &str, unit: &str, runs: &[f64]) -> model::MeasurementEntry {
    model::MeasurementEntry {
        version: v,
        unit: model::intern(unit),
        run_means: runs.to_vec().into(),
        samples: runs.len() as u64,
        in_process: false,
        multi_sample: false,
        source: model::intern(&format!("v{v}/{file}")),
        format: if file.ends_with(".csv") {
            "native"
        } else {
            "hyperfine"
        },
        note: "",
        interval: None,
    }
}

#[test]
fn taking_the_measurements_gives_the_series_read_from_them() {
    let history = mixed_measurements();
    let read = series_named(&history, &Config::default());
    let a = &read[0];
    assert_eq!(
        a.points.iter().map(|p| p.version).collect::<Vec<_>>(),
        [0, 1, 3]
    );
    assert_eq!(&a.points[0].notes[..], ["hyperfine mean"]);
    assert_eq!(a.points[1].values.len(), 3, "two files' runs joined");
    assert_eq!(a.points[1].sources.len(), 2);
    assert_eq!(
        a.points[2].interval.as_deref(),
        model::Interval::new(1.9, 2.1).as_ref()
    );
    assert!(read[1].points[0].in_process);
    let c = &read[2];
    assert_eq!(
        c.points.iter().map(|p| p.version).collect::<Vec<_>>(),
        [0, 3]
    );
    assert_eq!(&c.points[0].notes[..], ["hyperfine mean"]);
    assert_eq!(&c.points[1].sources[..], ["v3/c.json"]);
    assert_eq!(
        c.points[1].interval.as_deref(),
        model::Interval::new(3.9, 4.1).as_ref()
    );
    let Origin::Measurements { formats } = &a.origin else {
        panic!("{:?}", a.origin)
    };
    assert_eq!(formats, &["hyperfine", "native"]);

    assert_eq!(
        take_series(&mut mixed_measurements(), &Config::default()),
        read
    );
    let mut shuffled = mixed_measurements();
    shuffled.measurements.reverse();
    assert_eq!(take_series(&mut shuffled, &Config::default()), read);
    assert!(shuffled.measurements.is_empty(), "the history keeps none");
    // One benchmark's entries given in two parts are one series.
    let mut split = mixed_measurements();
    let later = split.measurements[0].entries.split_off(4);
    split.measurements.push(model::MeasuredBenchmark {
        name: "a".into(),
        entries: later,
    });
    assert_eq!(take_series(&mut split, &Config::default()), read);
}

/// Three benchmarks' entries: versions measured by one file, by two, in
/// another unit, with an interval, and past the history's versions.
fn mixed_measurements() -> History {
    let mut a0 = entry(0, "a.json", "s", &[1.0, 1.1, 0.9]);
    a0.note = "hyperfine mean";
    let mut a3 = entry(3, "a.json", "s", &[2.0]);
    a3.interval = model::Interval::new(1.9, 2.1).map(Box::new);
    let mut b0 = entry(0, "b.json", "s", &[5.0, 5.5]);
    (b0.in_process, b0.multi_sample) = (true, true);
    let mut c0 = entry(0, "c.json", "s", &[3.0, 3.1]);
    c0.note = "hyperfine mean";
    let mut c3 = entry(3, "c.json", "s", &[4.0]);
    c3.interval = model::Interval::new(3.9, 4.1).map(Box::new);
    History {
        versions: vec![Default::default(); 5],
        // In the order a build gathers them: benchmark, version, file.
        measurements: vec![
            model::MeasuredBenchmark {
                name: "a".into(),
                entries: vec![
                    a0,
                    entry(1, "a.json", "s", &[1.0, 1.2]),
                    entry(1, "more.csv", "s", &[1.4]),
                    // Another unit than the series' first: counted in its formats only.
                    entry(2, "a.csv", "ms", &[900.0]),
                    a3,
                    // A version the history does not have.
                    entry(7, "a.json", "s", &[1.0]),
                ],
            },
            model::MeasuredBenchmark {
                name: "b".into(),
                entries: vec![b0],
            },
            // One file a version: its points made in its entries' memory,
            // with the same entries left out.
            model::MeasuredBenchmark {
                name: "c".into(),
                entries: vec![
                    c0,
                    entry(2, "c.csv", "ms", &[900.0]),
                    c3,
                    entry(7, "c.json", "s", &[1.0]),
                ],
            },
        ],
        ..History::default()
    }
}

#[test]
fn linear_probe_weights_follow_the_paper() {
    // N = 5 (r2..r6 between r1 and r6): weights 1,2,2,1,0 → r3 (index 2).
    assert_eq!(next_linear_probe(0, 5), Some((2, 2)));
    assert_eq!(next_linear_probe(2, 5), Some((3, 1)));
    assert_eq!(next_linear_probe(3, 5), Some((4, 1)));
    assert_eq!(next_linear_probe(3, 4), None);
}

/// A series of one value per version (every point a single run).
fn single_values(values: &[f64], unit: &str) -> Series {
    let mut s = series_of(values);
    for (p, &v) in s.points.iter_mut().zip(values) {
        p.values = vec![v].into();
    }
    s.unit = unit.into();
    s
}

#[test]
fn one_value_per_version_is_judged_by_its_change_points() {
    let mut values = vec![1.0e-3, 1.02e-3, 0.98e-3, 1.01e-3, 0.99e-3];
    values.extend([5.7e-2, 5.8e-2, 5.6e-2, 5.75e-2, 5.65e-2, 5.7e-2]);
    let s = single_values(&values, "s");
    let judging = Judging::choose(&s, &settings());
    assert!(
        matches!(judging, Judging::ChangePoints { .. }),
        "{judging:?}"
    );
    let changes = changes_of(&s, None);
    assert_eq!(changes.len(), 1, "{changes:?}");
    let c = &changes[0];
    assert_eq!((c.direction, c.before, c.after), (Reg, 4, 5));
    assert!(matches!(
        c.basis,
        Basis::ChangePoint {
            from: 0,
            to: 10,
            before_count: 5,
            after_count: 6
        }
    ));
    assert!((c.relative.unwrap() - 56.0).abs() < 1.0, "{:?}", c.relative);
}

#[test]
fn a_higher_is_better_drop_is_a_regression_with_its_own_categories() {
    // go test -bench MB/s: 1,219.92 → 609.96 is a halving of throughput.
    let mut s = series_of(&[1219.92, 1219.92, 609.96, 609.96]);
    s.unit = "MB/s".into();
    s.better = Better::Higher;
    let cats = Categories::for_series(&s, &RegressionConfig::default()).unwrap();
    assert_eq!(cats.names[1], "1.5× less or worse");
    assert_eq!(cats.of(1219.92), 0);
    assert_eq!(cats.of(609.96), 1, "{cats:?}");
    let changes = changes_of(&s, Some(&cats));
    assert_eq!(changes.len(), 1);
    assert_eq!(
        (changes[0].direction, changes[0].severity),
        (Reg, Severity::Major)
    );
    let (rising, names) = cats.rising();
    assert!(rising[0] < rising[1]);
    assert_eq!(names[0], "3× less or worse");
}

#[test]
fn rates_say_their_direction_and_the_configuration_wins() {
    let mut s = series_of(&[1.0, 1.0]);
    s.unit = "ops/s".into();
    let config = Config::default();
    assert_eq!(direction_of(&s, &config), Better::Higher);
    s.unit = "MiB/s".into();
    assert_eq!(direction_of(&s, &config), Better::Higher);
    s.unit = "s".into();
    assert_eq!(direction_of(&s, &config), Better::Lower);
    s.unit = "score".into();
    let config: Config = toml::from_str("[metrics.fib]\ndirection = \"higher\"").unwrap();
    s.unit = "points".into();
    assert_eq!(direction_of(&s, &config), Better::Higher);
}

#[test]
fn constant_counters_are_compared_exactly() {
    // B/op: 49032 in 5 runs, then 49033 in 5 runs: no t-test, and 1 B in
    // 49 KB is below the practical size.
    let mut s = series_of(&[49032.0, 49033.0, 60000.0]);
    for p in &mut s.points {
        let v = p.values[0].round();
        p.values = vec![v; 5].into();
    }
    s.unit = "bytes".into();
    let judging = Judging::choose(&s, &settings());
    assert_eq!(judging, Judging::Exact);
    let tests = pair_tests(&s, &judging, None, &settings());
    assert!(
        matches!(tests[0].verdict, Verdict::Negligible { .. }),
        "{:?}",
        tests[0]
    );
    assert!(matches!(
        tests[1].verdict,
        Verdict::Change { direction: Reg, .. }
    ));
    assert!(tests.iter().all(|t| t.untested && t.p_value.is_none()));
    // An exact change is no test of the family and is never held back.
    let (verdicts, fdr) = controlled(&[tests], true, 0.01);
    assert_eq!(fdr.tests, 0);
    assert!(matches!(verdicts[0][1], Verdict::Change { .. }));
    let changes = find_changes(&s, &judging, None, &verdicts[0], &settings());
    assert_eq!(changes[0].basis, Basis::Exact);
    assert!(changes[0].comparison.is_none());
}

#[test]
fn a_significant_change_below_the_practical_size_is_negligible() {
    let mut s = series_of(&[10.0, 10.1]);
    for (p, level) in s.points.iter_mut().zip([10.0, 10.1]) {
        let values: Vec<f64> = [0.9999, 1.0, 1.0001, 1.0, 1.0]
            .iter()
            .map(|f| f * level)
            .collect();
        p.values = values.into();
    }
    let (verdict, c) = judge(&s.points[0], &s.points[1], None, Better::Lower, &settings());
    assert!(c.unwrap().significant());
    assert!(matches!(verdict, Verdict::Negligible { relative } if (relative - 0.01).abs() < 1e-9));
}

#[test]
fn a_new_single_value_is_judged_against_the_window_before_it() {
    let mut values: Vec<f64> = (0..20).map(|i| 100.0 + (i % 5) as f64).collect();
    values.push(150.0);
    let s = single_values(&values, "s");
    let judging = Judging::choose(&s, &settings());
    let (verdict, c) = judge_new_value(&s, &judging, 20, 20, None, &settings());
    assert!(
        matches!(verdict, Verdict::Change { direction: Reg, .. }),
        "{verdict:?}"
    );
    assert_eq!(c.unwrap().test, Test::PredictionInterval);
    // Within the window's spread: no change.
    let mut quiet = values.clone();
    quiet[20] = 103.0;
    let s = single_values(&quiet, "s");
    let (verdict, _) = judge_new_value(&s, &judging, 20, 20, None, &settings());
    assert_eq!(verdict, Verdict::NoChange);
    // Two earlier values are too few, and the reason says what is enough.
    let s = single_values(&[1.0, 1.0, 2.0], "s");
    let (verdict, _) = judge_new_value(&s, &judging, 2, 2, None, &settings());
    assert!(
        matches!(verdict, Verdict::NotEnoughData { ref reason } if reason.contains("at least 3"))
    );
}

/// One value per version with the interval its tool recorded (asv's 99%
/// confidence interval of the median, as in the asv fixture's results).
fn with_intervals(values: &[(f64, f64, f64)]) -> Series {
    let mut s = single_values(&values.iter().map(|v| v.0).collect::<Vec<_>>(), "s");
    for (p, &(_, low, high)) in s.points.iter_mut().zip(values) {
        p.interval = model::Interval::new(low, high).map(Box::new);
    }
    s
}

#[test]
fn two_versions_with_recorded_intervals_are_compared_as_asv_compare_does() {
    // time_work of the asv-summary fixture: 425±9 µs, then 488±5 µs (its
    // `asv compare` marks the pair `+`, ratio 1.15).
    let s = with_intervals(&[(425e-6, 416e-6, 434e-6), (488e-6, 483e-6, 493e-6)]);
    let judging = Judging::choose(&s, &settings());
    let tests = pair_tests(&s, &judging, None, &settings());
    assert!(
        matches!(tests[0].verdict, Verdict::Change { direction: Reg, .. }),
        "{tests:?}"
    );
    // Decided without a test: never held back, no member of the family.
    assert!(tests[0].untested && !tests[0].tested());
    let (verdicts, fdr) = controlled(&[tests], true, 0.01);
    assert!(matches!(verdicts[0][0], Verdict::Change { .. }));
    assert_eq!((fdr.tests, fdr.held_back), (0, 0));
    let changes = changes_of(&s, None);
    assert!(
        matches!(changes[0].basis, Basis::Intervals { before, .. } if before.low == 416e-6),
        "{changes:?}"
    );
    // Overlapping intervals: no change, however far apart the values.
    let s = with_intervals(&[(427e-6, 27e-6, 827e-6), (1.22e-3, 0.62e-3, 1.82e-3)]);
    let judging = Judging::choose(&s, &settings());
    let tests = pair_tests(&s, &judging, None, &settings());
    assert_eq!(tests[0].verdict, Verdict::NoChange);
    // Apart but below the practical size: negligible.
    let s = with_intervals(&[(100.0, 99.9, 100.1), (100.5, 100.4, 100.6)]);
    let judging = Judging::choose(&s, &settings());
    let tests = pair_tests(&s, &judging, None, &settings());
    assert!(
        matches!(tests[0].verdict, Verdict::Negligible { .. }),
        "{tests:?}"
    );
    // The newest value with too little history before it is compared by
    // the intervals too (the PR case of a two-version history).
    let s = with_intervals(&[(1.0, 0.9, 1.1), (2.0, 1.9, 2.1)]);
    let (verdict, c) = judge_new_value(&s, &judging, 1, 1, None, &settings());
    assert!(
        matches!(verdict, Verdict::Change { direction: Reg, .. }),
        "{verdict:?}"
    );
    assert!(c.is_none());
}

#[test]
fn a_long_history_with_intervals_is_still_judged_by_its_change_points() {
    // Ten versions whose intervals are narrow and often apart from the
    // neighbour's (drift between runs), one real step at version 5: the
    // history's own noise decides, not each pair's intervals.
    let values = [1.00, 1.04, 0.97, 1.02, 0.99, 1.50, 1.53, 1.47, 1.52, 1.49];
    let s = with_intervals(&values.map(|v| (v, v - 0.005, v + 0.005)));
    let judging = Judging::choose(&s, &settings());
    assert!(
        matches!(judging, Judging::ChangePoints { .. }),
        "{judging:?}"
    );
    let changes = changes_of(&s, None);
    let found: Vec<(Direction, usize)> = changes.iter().map(|c| (c.direction, c.after)).collect();
    assert_eq!(found, vec![(Reg, 5)], "{changes:?}");
}
