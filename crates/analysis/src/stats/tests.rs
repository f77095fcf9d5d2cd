//! Every figure against SciPy's (tests/fixtures/stats/vectors.json, made by
//! make_vectors.py beside it), plus the edge cases SciPy does not cover.

use super::*;
use serde_json::Value;

fn vectors() -> Value {
    let text = include_str!("../../../../tests/fixtures/stats/vectors.json");
    serde_json::from_str(text).unwrap()
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn pair_of(v: &Value) -> (f64, f64) {
    let xs = numbers(v);
    (xs[0], xs[1])
}

/// Relative agreement to 1e-7 (p-values below 1e-12 to 1e-19 absolute).
fn close(ours: f64, theirs: f64, what: &str) {
    let err = (ours - theirs).abs();
    assert!(
        err <= 1e-7 * theirs.abs() || (what.ends_with(" p") && err < 1e-19),
        "{what}: perfatlas {ours:e}, SciPy {theirs:e}"
    );
}

fn close_pair(ours: (f64, f64), theirs: (f64, f64), what: &str) {
    close(ours.0, theirs.0, &format!("{what} low"));
    close(ours.1, theirs.1, &format!("{what} high"));
}

#[test]
fn welch_matches_scipy() {
    let v = vectors();
    let pairs = v["pairs"].as_object().unwrap();
    assert!(pairs.len() >= 8);
    for (name, case) in pairs {
        let (a, b) = (numbers(&case["a"]), numbers(&case["b"]));
        for confidence in [0.99, 0.95] {
            let w = welch(&a, &b, confidence).unwrap();
            let r = &case["welch"];
            close(w.statistic, r["t"].as_f64().unwrap(), &format!("{name} t"));
            close(w.df, r["df"].as_f64().unwrap(), &format!("{name} df"));
            close(w.p_value, r["p"].as_f64().unwrap(), &format!("{name} p"));
            let key = format!("ci_{confidence}");
            close_pair(w.ci(), pair_of(&r[&key]), &format!("{name} {key}"));
        }
    }
}

#[test]
fn anova_of_two_groups_matches_scipy() {
    let v = vectors();
    for (name, case) in v["pairs"].as_object().unwrap() {
        let (a, b) = (numbers(&case["a"]), numbers(&case["b"]));
        let r = &case["pooled"];
        for confidence in [0.99, 0.95] {
            let c = compare(Test::Anova, &a, &b, confidence).unwrap();
            close(c.statistic, r["f"].as_f64().unwrap(), &format!("{name} F"));
            close(c.p_value, r["p"].as_f64().unwrap(), &format!("{name} p"));
            close(c.df, r["df"].as_f64().unwrap(), &format!("{name} df"));
            let key = format!("ci_{confidence}");
            close_pair(c.ci(), pair_of(&r[&key]), &format!("{name} {key}"));
        }
    }
}

#[test]
fn anova_of_many_groups_matches_scipy() {
    let v = vectors();
    for (name, case) in v["groups"].as_object().unwrap() {
        let groups: Vec<Vec<f64>> = case["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(numbers)
            .collect();
        let refs: Vec<&[f64]> = groups.iter().map(Vec::as_slice).collect();
        let r = anova(&refs).unwrap();
        close(r.f, case["f"].as_f64().unwrap(), &format!("{name} F"));
        close(r.p_value, case["p"].as_f64().unwrap(), &format!("{name} p"));
    }
}

#[test]
fn mean_intervals_match_scipy() {
    let v = vectors();
    for (name, case) in v["pairs"].as_object().unwrap() {
        for confidence in [0.99, 0.95] {
            let expected = case["mean_ci"][confidence.to_string()].as_array().unwrap();
            for (side, xs) in [&case["a"], &case["b"]].into_iter().enumerate() {
                let s = summary(&numbers(xs), confidence).unwrap();
                let what = format!("{name} side {side} at {confidence}");
                close_pair(s.ci.unwrap(), pair_of(&expected[side]), &what);
            }
        }
    }
}

#[test]
fn the_reference_cases_cover_both_verdicts() {
    // Guards the vectors themselves: a clear slowdown is significant at 99%,
    // three noisy runs each are not.
    let v = vectors();
    let verdict = |name: &str| {
        let case = &v["pairs"][name];
        welch(&numbers(&case["a"]), &numbers(&case["b"]), 0.99)
            .unwrap()
            .significant()
    };
    assert!(verdict("seconds_slowdown"));
    assert!(verdict("improvement"));
    assert!(!verdict("three_each_noise"));
}

#[test]
fn one_value_per_side_gives_no_verdict() {
    assert!(welch(&[1.0], &[2.0, 3.0], 0.99).is_none());
    assert!(compare(Test::Anova, &[1.0, 2.0], &[3.0], 0.99).is_none());
    assert!(summary(&[], 0.99).is_none());
    assert_eq!(summary(&[4.0], 0.99).unwrap().ci, None);
}

#[test]
fn constant_samples_are_decided_without_nan() {
    let same = welch(&[2.0, 2.0, 2.0], &[2.0, 2.0], 0.99).unwrap();
    assert_eq!((same.statistic, same.p_value), (0.0, 1.0));
    assert!(!same.significant());
    let apart = welch(&[2.0, 2.0, 2.0], &[3.0, 3.0], 0.99).unwrap();
    assert_eq!(apart.p_value, 0.0);
    assert!(apart.significant());
    assert_eq!(apart.ci(), (1.0, 1.0));
    let anova_apart = compare(Test::Anova, &[2.0, 2.0], &[3.0, 3.0], 0.99).unwrap();
    assert_eq!(anova_apart.p_value, 0.0);
}

#[test]
fn relative_change_is_against_the_older_mean() {
    let c = welch(&[10.0, 10.2, 9.8], &[15.0, 15.3, 14.7], 0.99).unwrap();
    assert!((c.relative.unwrap() - 0.5).abs() < 1e-12);
    assert!(welch(&[0.0, 0.0], &[1.0, 2.0], 0.99)
        .unwrap()
        .relative
        .is_none());
}

/// A small deterministic generator for the sampled cases below.
struct Xorshift(u64);

impl Xorshift {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() * n as f64) as usize
    }
}

/// Both ways of deciding agree, and on the same difference.
fn same_decision(test: Test, a: &[f64], b: &[f64], confidence: f64) {
    let full = compare(test, a, b, confidence).map(|c| (c.significant(), c.difference));
    let quick = significant_difference(test, a, b, confidence);
    assert_eq!(
        full.map(|(s, _)| s),
        quick.map(|(s, _)| s),
        "{test:?} {a:?} {b:?} at {confidence}"
    );
    if let (Some((_, d1)), Some((_, d2))) = (full, quick) {
        assert!(d1 == d2 || (d1.is_nan() && d2.is_nan()));
    }
}

#[test]
fn quick_significance_matches_the_p_value_on_random_samples() {
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let mut decided = [0usize; 2];
    for _ in 0..200_000 {
        let (na, nb) = (2 + rng.below(11), 2 + rng.below(11));
        let (sa, sb) = (0.001 + rng.next(), 0.001 + 3.0 * rng.next());
        let a: Vec<f64> = (0..na).map(|_| 100.0 + sa * (rng.next() - 0.5)).collect();
        // Shifts from none to a few standard errors, so many t land close
        // to the critical value.
        let shift = rng.next() * 2.0 * (sa + sb);
        let b: Vec<f64> = (0..nb)
            .map(|_| 100.0 + shift + sb * (rng.next() - 0.5))
            .collect();
        let confidence = [0.9, 0.95, 0.99, 0.999][rng.below(4)];
        same_decision(Test::Welch, &a, &b, confidence);
        let full = compare(Test::Welch, &a, &b, confidence).unwrap();
        decided[full.significant() as usize] += 1;
    }
    assert!(decided[0] > 10_000 && decided[1] > 10_000, "{decided:?}");
}

#[test]
fn quick_significance_matches_the_p_value_at_the_edges() {
    let cases: &[(&[f64], &[f64])] = &[
        (&[1.0], &[2.0, 3.0]),
        (&[2.0, 2.0, 2.0], &[2.0, 2.0]),
        (&[2.0, 2.0, 2.0], &[3.0, 3.0]),
        (&[2.0, 2.0], &[2.0, 2.000_000_000_001]),
        (&[0.0, 0.0], &[1.0, 2.0]),
        (&[1e-300, 2e-300], &[3e-300, 4e-300]),
        (&[1e300, 1.5e300], &[1e300, 1.7e300]),
        (&[f64::MAX, f64::MAX], &[0.0, 1.0]),
        (&[f64::NAN, 1.0], &[1.0, 2.0]),
        (&[f64::INFINITY, 1.0], &[1.0, 2.0]),
        (&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]),
    ];
    for (a, b) in cases {
        for confidence in [0.5, 0.9, 0.95, 0.99, 0.999_999, 1.0, 0.0] {
            for test in [Test::Welch, Test::Anova] {
                same_decision(test, a, b, confidence);
                same_decision(test, b, a, confidence);
            }
        }
    }
}

/// The premise of the quick decision: a t just beyond the critical value of
/// a whole df is decided the same by the p-value at any df a little above
/// it, and one just short of the critical value of a whole df the same at
/// any df a little below it.
#[test]
fn critical_values_of_whole_df_bracket_the_p_value() {
    for confidence in [0.9, 0.95, 0.99, 0.999] {
        let alpha = 1.0 - confidence;
        for d in 1..=MEMO_DF {
            let df = d as f64;
            let beyond = t_critical(df, confidence) * (1.0 + BRACKET_MARGIN);
            assert!(t_p_value(beyond, df + 1e-9) < alpha, "{d} at {confidence}");
            let short = t_critical(df, confidence) * (1.0 - BRACKET_MARGIN);
            assert!(t_p_value(short, df - 1e-9) >= alpha, "{d} at {confidence}");
        }
    }
}
