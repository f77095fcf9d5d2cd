//! Totals per benchmark, version and metric, over repetitions.

use model::{History, Unit};

/// Total of one metric over the repetitions of one benchmark in one version.
#[derive(Debug, Clone, PartialEq)]
pub struct CellTotal {
    pub metric: String,
    pub unit: Unit,
    /// Mean over repetitions.
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub repetitions: usize,
}

/// Totals of `benchmark` in `version`, one per metric name (in the order
/// metrics first appear), over every repetition that has that metric.
pub fn cell_totals(history: &History, benchmark: &str, version: usize) -> Vec<CellTotal> {
    let mut out: Vec<(String, Unit, Vec<f64>)> = Vec::new();
    for entry in history.profiles_of(benchmark, version) {
        for (m, metric) in entry.profile.metrics.iter().enumerate() {
            let value = entry.profile.tree.total(m);
            match out
                .iter_mut()
                .find(|(n, u, _)| *n == metric.name && *u == metric.unit)
            {
                Some((_, _, values)) => values.push(value),
                None => out.push((metric.name.clone(), metric.unit.clone(), vec![value])),
            }
        }
    }
    out.into_iter()
        .map(|(metric, unit, values)| CellTotal {
            metric,
            unit,
            mean: values.iter().sum::<f64>() / values.len() as f64,
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            repetitions: values.len(),
        })
        .collect()
}
