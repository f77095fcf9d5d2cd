//! The false-discovery-rate control over every comparison of a build
//! (Benjamini–Hochberg): which changes hold, and which are held back.

use super::*;

/// The false-discovery-rate control of a build.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fdr {
    /// Benjamini–Hochberg in force (else each test alone).
    pub in_force: bool,
    /// The rate controlled (1 − confidence).
    pub rate: f64,
    /// Comparisons made in the build (the family).
    pub tests: usize,
    /// The largest p-value still called a change; `None`: none is.
    pub threshold: Option<f64>,
    /// Changes at the test's own confidence that the control held back.
    pub held_back: usize,
}

/// Benjamini–Hochberg over `p_values` (the candidates) of a family of
/// `tests` comparisons at `rate`: the largest p-value that is a discovery.
pub fn benjamini_hochberg(p_values: &[f64], tests: usize, rate: f64) -> Option<f64> {
    let mut sorted: Vec<f64> = p_values.iter().copied().filter(|p| p.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let m = tests.max(sorted.len()) as f64;
    sorted
        .iter()
        .enumerate()
        .filter(|&(k, &p)| p <= (k + 1) as f64 / m * rate)
        .map(|(_, &p)| p)
        .next_back()
}

/// The verdicts of every benchmark's pairs after the false-discovery
/// control (when `in_force`) over all of them: a change whose p-value is
/// above the Benjamini–Hochberg threshold is held back. Exact
/// comparisons are no tests and are kept as they are.
pub fn controlled<T: AsRef<[PairTest]>>(
    tests: &[T],
    in_force: bool,
    rate: f64,
) -> (Vec<Vec<Verdict>>, Fdr) {
    let mut control = Control::over(tests.iter().map(AsRef::as_ref), in_force, rate);
    let verdicts = tests
        .iter()
        .map(|pairs| control.verdicts(pairs.as_ref()))
        .collect();
    (verdicts, control.fdr())
}

/// The false-discovery control of a build, applied benchmark by
/// benchmark ([`Control::verdicts`]), so that a long history's tests can
/// be freed as each benchmark's verdicts are made.
pub struct Control {
    in_force: bool,
    rate: f64,
    family: usize,
    threshold: Option<f64>,
    held_back: usize,
}

impl Control {
    /// The threshold over every benchmark's tests.
    pub fn over<'a>(
        tests: impl Iterator<Item = &'a [PairTest]> + Clone,
        in_force: bool,
        rate: f64,
    ) -> Control {
        let family = tests.clone().flatten().filter(|t| t.tested()).count();
        let candidates: Vec<f64> = tests
            .flatten()
            .filter(|t| matches!(t.verdict, Verdict::Change { .. }))
            .filter_map(|t| t.p_value)
            .collect();
        Control {
            in_force,
            rate,
            family,
            threshold: benjamini_hochberg(&candidates, family, rate),
            held_back: 0,
        }
    }

    /// One benchmark's verdicts after the control.
    pub fn verdicts(&mut self, pairs: &[PairTest]) -> Vec<Verdict> {
        pairs
            .iter()
            .map(|t| {
                let discovered = t.p_value.zip(self.threshold).is_some_and(|(p, th)| p <= th);
                match &t.verdict {
                    Verdict::Change { .. } if self.in_force && !t.untested && !discovered => {
                        self.held_back += 1;
                        Verdict::HeldBack {
                            p_value: t.p_value.unwrap_or(f64::NAN),
                        }
                    }
                    v => v.clone(),
                }
            })
            .collect()
    }

    /// The control's figures, once every benchmark's verdicts are made.
    pub fn fdr(&self) -> Fdr {
        Fdr {
            in_force: self.in_force,
            rate: self.rate,
            tests: self.family,
            threshold: self.threshold,
            held_back: if self.in_force { self.held_back } else { 0 },
        }
    }
}
