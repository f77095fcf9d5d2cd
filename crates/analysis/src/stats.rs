//! The statistics behind the regression report (PRCA, section 3): a
//! sample's mean with its confidence interval, and the comparison of two
//! samples by Welch's t-test (the default) or one-way ANOVA, each giving the
//! p-value, the difference of means with its confidence interval and the
//! relative change.
//!
//! Pure functions over raw samples; every figure is checked against SciPy
//! in `tests/fixtures/stats/` (see `make_vectors.py` there).

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, FisherSnedecor, StudentsT};

use model::Moments;

pub use config::Test;

/// One sample's size, mean, standard deviation and the confidence interval
/// of its mean (Student's t; `None` below two values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub sd: f64,
    pub ci: Option<(f64, f64)>,
}

/// Two samples compared: `b` (the newer) against `a`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Comparison {
    pub test: Test,
    pub confidence: f64,
    /// t for Welch's test, F for ANOVA.
    pub statistic: f64,
    /// Degrees of freedom (Welch–Satterthwaite for Welch; within-groups
    /// for ANOVA).
    pub df: f64,
    pub p_value: f64,
    /// mean(b) − mean(a).
    pub difference: f64,
    /// Standard error of `difference` (its confidence interval is
    /// [`Comparison::ci`]).
    pub se: f64,
    /// `difference / mean(a)`; `None` when mean(a) is 0.
    pub relative: Option<f64>,
}

impl Comparison {
    /// The test rejects equal means at the comparison's confidence.
    pub fn significant(&self) -> bool {
        self.p_value < 1.0 - self.confidence
    }

    /// Confidence interval of `difference`. Computed on demand: the
    /// quantile behind it is the costly part of a comparison, and most
    /// comparisons (every version against the one before) only need the
    /// verdict.
    pub fn ci(&self) -> (f64, f64) {
        let half = t_critical(self.df, self.confidence) * self.se;
        (self.difference - half, self.difference + half)
    }
}

/// Result of a one-way ANOVA over any number of groups.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Anova {
    pub f: f64,
    pub df_between: f64,
    pub df_within: f64,
    pub p_value: f64,
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Sum of squared deviations from the mean (two passes, for accuracy).
fn squared_deviations(xs: &[f64], m: f64) -> f64 {
    xs.iter().map(|x| (x - m) * (x - m)).sum()
}

/// The two-sided critical value of Student's t at `confidence`.
fn t_critical(df: f64, confidence: f64) -> f64 {
    if df.fract() == 0.0 && (1.0..=MEMO_DF as f64).contains(&df) {
        return memo_t_critical(df as usize, confidence);
    }
    compute_t_critical(df, confidence)
}

/// Whole degrees of freedom up to this many are remembered per thread.
const MEMO_DF: usize = 1024;

/// [`compute_t_critical`] for whole degrees of freedom, remembered: every
/// version's confidence interval with the same number of runs needs the
/// same quantile, and computing it is far costlier than the rest of a
/// summary.
fn memo_t_critical(df: usize, confidence: f64) -> f64 {
    thread_local! {
        static MEMO: RefCell<FxHashMap<(usize, u64), f64>> = RefCell::default();
    }
    MEMO.with(|memo| {
        *memo
            .borrow_mut()
            .entry((df, confidence.to_bits()))
            .or_insert_with(|| compute_t_critical(df as f64, confidence))
    })
}

fn compute_t_critical(df: f64, confidence: f64) -> f64 {
    match StudentsT::new(0.0, 1.0, df) {
        Ok(t) => t.inverse_cdf(0.5 + confidence / 2.0),
        Err(_) => f64::NAN,
    }
}

/// Two-sided p-value of a t statistic.
/// The two-sided p-value of Student's t statistic `t` with `df` degrees
/// of freedom.
pub fn t_p_value(t: f64, df: f64) -> f64 {
    if t.is_infinite() {
        return 0.0;
    }
    if t.is_nan() {
        // Overflowing variances; statrs would panic on it.
        return f64::NAN;
    }
    match StudentsT::new(0.0, 1.0, df) {
        Ok(dist) => (2.0 * dist.sf(t.abs())).min(1.0),
        Err(_) => f64::NAN,
    }
}

/// Mean, standard deviation and confidence interval of one sample; `None`
/// for an empty one.
pub fn summary(xs: &[f64], confidence: f64) -> Option<Summary> {
    summary_of(&Moments::of(xs), confidence)
}

/// [`summary`] of a sample from its moments.
pub fn summary_of(m: &Moments, confidence: f64) -> Option<Summary> {
    if m.n == 0 {
        return None;
    }
    if m.n < 2 {
        return Some(Summary {
            n: 1,
            mean: m.mean,
            sd: 0.0,
            ci: None,
        });
    }
    let sd = m.variance.sqrt();
    let half = t_critical((m.n - 1) as f64, confidence) * sd / (m.n as f64).sqrt();
    Some(Summary {
        n: m.n,
        mean: m.mean,
        sd,
        ci: Some((m.mean - half, m.mean + half)),
    })
}

/// Compares `b` with `a` by `test`; `None` when either side has fewer than
/// two values (no variance can be estimated).
pub fn compare(test: Test, a: &[f64], b: &[f64], confidence: f64) -> Option<Comparison> {
    match test {
        Test::Anova => anova_pair(a, b, confidence),
        Test::Welch | Test::ChangePoint | Test::PredictionInterval => welch(a, b, confidence),
    }
}

/// Whether `b` differs significantly from `a` — exactly
/// `compare(test, a, b, confidence)?.significant()` — with the difference
/// of means. For Welch's test the p-value is computed only when t is close
/// to the critical value: the critical values at the whole degrees of
/// freedom either side of Welch's bracket the one at its fractional
/// degrees of freedom, so a t clearly outside the bracket is decided
/// without the p-value (the costly part when judging every version
/// against the one before).
pub fn significant_difference(
    test: Test,
    a: &[f64],
    b: &[f64],
    confidence: f64,
) -> Option<(bool, f64)> {
    significant_difference_of(test, (a, &Moments::of(a)), (b, &Moments::of(b)), confidence)
}

/// [`significant_difference`] of two samples given with their moments
/// (Welch's test reads only the moments).
pub fn significant_difference_of(
    test: Test,
    (a, moments_a): (&[f64], &Moments),
    (b, moments_b): (&[f64], &Moments),
    confidence: f64,
) -> Option<(bool, f64)> {
    let w = match test {
        Test::Anova => {
            return compare(test, a, b, confidence).map(|c| (c.significant(), c.difference))
        }
        Test::Welch | Test::ChangePoint | Test::PredictionInterval => {
            WelchParts::of(moments_a, moments_b)?
        }
    };
    let exact = || t_p_value(w.t, w.df) < 1.0 - confidence;
    let bracket = (w.df.floor() >= 1.0 && w.df.ceil() <= MEMO_DF as f64 && w.se > 0.0).then(|| {
        (
            t_critical(w.df.ceil(), confidence),
            t_critical(w.df.floor(), confidence),
        )
    });
    let significant = match bracket {
        Some((_, high)) if w.t.abs() > high * (1.0 + BRACKET_MARGIN) => true,
        Some((low, _)) if w.t.abs() < low * (1.0 - BRACKET_MARGIN) => false,
        _ => exact(),
    };
    Some((significant, w.difference))
}

/// How far (relatively) outside the bracket of critical values a t must be
/// to be decided without its p-value: far beyond the error of the
/// computed quantiles and p-values.
const BRACKET_MARGIN: f64 = 1e-6;

/// What Welch's test computes before its p-value.
struct WelchParts {
    mean_a: f64,
    difference: f64,
    se: f64,
    df: f64,
    t: f64,
}

impl WelchParts {
    fn of(a: &Moments, b: &Moments) -> Option<WelchParts> {
        if a.n < 2 || b.n < 2 {
            return None;
        }
        let (ma, mb) = (a.mean, b.mean);
        let (qa, qb) = (a.variance / a.n as f64, b.variance / b.n as f64);
        let se = (qa + qb).sqrt();
        let difference = mb - ma;
        let df = if se == 0.0 {
            (a.n + b.n - 2) as f64
        } else {
            (qa + qb).powi(2) / (qa * qa / (a.n - 1) as f64 + qb * qb / (b.n - 1) as f64)
        };
        Some(WelchParts {
            mean_a: ma,
            difference,
            se,
            df,
            t: t_statistic(difference, se),
        })
    }
}

/// Welch's t-test of `b` against `a`.
pub fn welch(a: &[f64], b: &[f64], confidence: f64) -> Option<Comparison> {
    let w = WelchParts::of(&Moments::of(a), &Moments::of(b))?;
    Some(Comparison {
        test: Test::Welch,
        confidence,
        statistic: w.t,
        df: w.df,
        p_value: t_p_value(w.t, w.df),
        difference: w.difference,
        se: w.se,
        relative: relative(w.difference, w.mean_a),
    })
}

/// t = difference / standard error, with equal constant samples giving 0
/// and different constant samples ±∞.
fn t_statistic(difference: f64, se: f64) -> f64 {
    if se > 0.0 {
        difference / se
    } else if difference == 0.0 {
        0.0
    } else {
        difference.signum() * f64::INFINITY
    }
}

fn relative(difference: f64, base: f64) -> Option<f64> {
    (base != 0.0).then(|| difference / base)
}

/// One-way ANOVA of two groups, with the pooled-variance interval of the
/// difference of means.
fn anova_pair(a: &[f64], b: &[f64], confidence: f64) -> Option<Comparison> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let result = anova(&[a, b])?;
    let (ma, mb) = (mean(a), mean(b));
    let pooled = (squared_deviations(a, ma) + squared_deviations(b, mb)) / result.df_within;
    let se = (pooled * (1.0 / a.len() as f64 + 1.0 / b.len() as f64)).sqrt();
    let difference = mb - ma;
    Some(Comparison {
        test: Test::Anova,
        confidence,
        statistic: result.f,
        df: result.df_within,
        p_value: result.p_value,
        difference,
        se,
        relative: relative(difference, ma),
    })
}

/// One-way ANOVA over `groups`; `None` with fewer than two groups or no
/// within-group degrees of freedom.
pub fn anova(groups: &[&[f64]]) -> Option<Anova> {
    let groups: Vec<&[f64]> = groups.iter().copied().filter(|g| !g.is_empty()).collect();
    let total: usize = groups.iter().map(|g| g.len()).sum();
    if groups.len() < 2 || total <= groups.len() {
        return None;
    }
    let grand = groups.iter().map(|g| g.iter().sum::<f64>()).sum::<f64>() / total as f64;
    let between: f64 = groups
        .iter()
        .map(|g| g.len() as f64 * (mean(g) - grand).powi(2))
        .sum();
    let within: f64 = groups.iter().map(|g| squared_deviations(g, mean(g))).sum();
    let df_between = (groups.len() - 1) as f64;
    let df_within = (total - groups.len()) as f64;
    let (f, p_value) = if within > 0.0 {
        let f = (between / df_between) / (within / df_within);
        // A NaN F (sums of squares overflowing to infinity) has no
        // p-value; statrs would panic on it.
        let p = FisherSnedecor::new(df_between, df_within)
            .ok()
            .filter(|_| !f.is_nan())
            .map_or(f64::NAN, |d| d.sf(f));
        (f, p)
    } else if between > 0.0 {
        (f64::INFINITY, 0.0)
    } else {
        (0.0, 1.0)
    };
    Some(Anova {
        f,
        df_between,
        df_within,
        p_value,
    })
}

#[cfg(test)]
mod tests;
