use super::*;

/// Gaussian noise from a fixed seed (xorshift and Box–Muller), so every
/// run of a test sees the same series.
fn noise(seed: u64, n: usize, sd: f64) -> Vec<f64> {
    let mut state = seed.max(1);
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let (u, v) = (uniform(), uniform());
            sd * (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        })
        .collect()
}

fn settings() -> Settings {
    Settings {
        confidence: 0.99,
        min_segment: 3,
        min_change: 0.02,
    }
}

fn steps(values: &[f64]) -> Vec<usize> {
    detect(values, &settings())
        .iter()
        .map(|c| c.index)
        .collect()
}

fn level(at: f64, noise: &[f64]) -> Vec<f64> {
    noise.iter().map(|e| at * (1.0 + e)).collect()
}

#[test]
fn a_planted_step_is_found_at_its_first_value() {
    let mut values = level(1.0, &noise(1, 40, 0.02));
    values.extend(level(1.3, &noise(2, 40, 0.02)));
    assert_eq!(steps(&values), [40]);
    let c = detect(&values, &settings())[0];
    assert_eq!((c.from, c.to), (0, 80));
    assert!(c.comparison.p_value < 1e-10, "{c:?}");
    assert!((c.comparison.relative.unwrap() - 0.3).abs() < 0.02);
    assert_eq!(c.comparison.test, Test::ChangePoint);
}

#[test]
fn a_step_up_and_back_down_is_two_change_points() {
    let mut values = level(1.0, &noise(3, 20, 0.03));
    values.extend(level(2.0, &noise(4, 15, 0.03)));
    values.extend(level(1.0, &noise(5, 20, 0.03)));
    assert_eq!(steps(&values), [20, 35]);
}

#[test]
fn flat_noisy_series_have_no_change_point() {
    for seed in 1..=200 {
        let values = level(5.0, &noise(seed, 100, 0.05));
        assert_eq!(steps(&values), Vec::<usize>::new(), "seed {seed}");
    }
}

#[test]
fn one_outlier_is_not_a_step() {
    for at in [0, 1, 10, 25, 48, 49] {
        let mut values = level(1.0, &noise(7, 50, 0.01));
        values[at] = 10.0;
        assert_eq!(steps(&values), Vec::<usize>::new(), "outlier at {at}");
    }
}

#[test]
fn two_outliers_in_a_row_are_not_a_step() {
    let mut values = level(1.0, &noise(8, 50, 0.01));
    values[20] = 9.0;
    values[21] = 11.0;
    assert_eq!(steps(&values), Vec::<usize>::new());
}

#[test]
fn a_step_must_hold_for_min_segment_values() {
    let mut values = level(1.0, &noise(9, 30, 0.01));
    values.extend([2.0, 2.0]);
    assert_eq!(steps(&values), Vec::<usize>::new());
    values.push(2.0);
    assert_eq!(steps(&values), [30]);
}

#[test]
fn exact_counters_step_by_any_practical_amount() {
    let mut values = vec![49032.0; 10];
    values.extend([60000.0; 10]);
    assert_eq!(steps(&values), [10]);
    let tiny: Vec<f64> = (0..20)
        .map(|i| if i < 10 { 49032.0 } else { 49033.0 })
        .collect();
    assert_eq!(
        steps(&tiny),
        Vec::<usize>::new(),
        "1 B in 49 KB is below 2%"
    );
    let from_zero: Vec<f64> = (0..20).map(|i| if i < 10 { 0.0 } else { 1.0 }).collect();
    assert_eq!(steps(&from_zero), [10]);
}

#[test]
fn a_small_step_below_the_practical_size_is_not_reported() {
    let mut values = level(1.0, &noise(10, 200, 0.001));
    values.extend(level(1.01, &noise(11, 200, 0.001)));
    assert_eq!(steps(&values), Vec::<usize>::new());
}

#[test]
fn too_short_series_and_non_finite_values_have_none() {
    assert!(steps(&[1.0, 2.0, 3.0, 4.0, 5.0]).is_empty());
    assert!(steps(&[]).is_empty());
    let mut values = vec![1.0; 10];
    values.extend([2.0; 10]);
    values[3] = f64::NAN;
    assert!(steps(&values).is_empty());
}

#[test]
fn relative_size_and_median() {
    assert_eq!(relative_size(2.0, 3.0), 0.5);
    assert_eq!(relative_size(0.0, 0.0), 0.0);
    assert_eq!(relative_size(0.0, 1.0), f64::INFINITY);
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
}

#[test]
fn change_points_are_ordered_in_bounds_and_hold_their_levels() {
    // Random lengths, levels, steps and noise (fixed seeds): whatever is
    // found lies inside the series, in order, each level at least
    // min_segment long, each step at least the practical size.
    for seed in 1..=300u64 {
        let n = 6 + (seed as usize * 37) % 200;
        let e = noise(seed, n, 0.01 + (seed % 7) as f64 * 0.01);
        let mut values: Vec<f64> = e.iter().map(|x| 10.0 * (1.0 + x)).collect();
        for (k, v) in values.iter_mut().enumerate() {
            if k >= n / 3 && seed % 3 != 0 {
                *v *= 1.0 + (seed % 5) as f64 * 0.2;
            }
            if k >= 2 * n / 3 && seed % 4 == 0 {
                *v *= 0.5;
            }
        }
        let found = detect(&values, &settings());
        let mut last = 0;
        for c in &found {
            assert!(
                c.index >= last + 3 && c.index + 3 <= n,
                "seed {seed}: {found:?}"
            );
            assert!(c.from < c.index && c.index < c.to && c.to <= n);
            assert!(c.comparison.p_value < 0.01);
            assert!(
                c.comparison.relative.is_some_and(|r| r.abs() >= 0.02),
                "seed {seed}: {c:?}"
            );
            last = c.index;
        }
    }
}
