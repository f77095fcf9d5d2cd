//! Every figure against SciPy's (tests/fixtures/stats/vectors.json, made by
//! make_vectors.py beside it), plus the edge cases SciPy does not cover.

use super::*;
use serde_json::Value;

fn vectors() -> Value {
    let text = include_str!("../../../tests/fixtures/stats/vectors.json");
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
