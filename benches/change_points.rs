//! perfatlas's change points of the series in a JSON file, in the shape
//! `benches/changepoints_reference.py` prints for the reference detectors,
//! so that `benches/changepoints_compare.sh` can set them side by side:
//!
//! ```text
//! cargo bench --bench change_points -- SERIES.json > ours.json
//! ```
//!
//! SERIES.json: `{"series": [{"name", "values": [...], "better"}]}`.
//! Printed: `{"tools": {"perfatlas": "…"}, "series": {NAME: {"perfatlas":
//! [{"index", "pvalue"}], "perfatlas_fdr": [...]}}, "seconds": S}` where
//! `perfatlas_fdr` keeps the change points that survive the
//! Benjamini–Hochberg control over the whole file, as a build does (each
//! series counts one comparison per change point and one for the search).

use std::time::Instant;

use analysis::change_points::{self, Settings};
use analysis::regression::benjamini_hochberg;
use serde_json::{json, Map, Value};

fn main() {
    let Some(path) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench --bench change_points -- SERIES.json");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path).expect("read the series file");
    let doc: Value = serde_json::from_str(&text).expect("a JSON series file");
    let series: Vec<(String, Vec<f64>)> = doc["series"]
        .as_array()
        .expect("\"series\": [...]")
        .iter()
        .map(|s| {
            let values = s["values"]
                .as_array()
                .expect("\"values\"")
                .iter()
                .map(|v| v.as_f64().unwrap_or(f64::NAN))
                .collect();
            (s["name"].as_str().unwrap_or("").to_string(), values)
        })
        .collect();
    let settings = Settings {
        confidence: 0.99,
        min_segment: 3,
        min_change: 0.02,
    };
    let started = Instant::now();
    let found: Vec<Vec<change_points::ChangePoint>> = series
        .iter()
        .map(|(_, values)| change_points::detect(values, &settings))
        .collect();
    let seconds = started.elapsed().as_secs_f64();
    let family: usize = found.iter().map(|f| f.len() + 1).sum();
    let p_values: Vec<f64> = found
        .iter()
        .flatten()
        .map(|c| c.comparison.p_value)
        .collect();
    let threshold = benjamini_hochberg(&p_values, family, 1.0 - settings.confidence);
    let mut out = Map::new();
    for ((name, _), points) in series.iter().zip(&found) {
        let listed = |keep: &dyn Fn(f64) -> bool| -> Vec<Value> {
            points
                .iter()
                .filter(|c| keep(c.comparison.p_value))
                .map(|c| json!({"index": c.index, "pvalue": c.comparison.p_value}))
                .collect()
        };
        out.insert(
            name.clone(),
            json!({
                "perfatlas": listed(&|_| true),
                "perfatlas_fdr": listed(&|p| threshold.is_some_and(|t| p <= t)),
            }),
        );
    }
    let report = json!({
        "tools": {"perfatlas": "change_points::detect, confidence 0.99, min_segment 3, min_change 0.02; perfatlas_fdr: Benjamini-Hochberg at 1% over the file"},
        "series": out,
        "seconds": seconds,
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
