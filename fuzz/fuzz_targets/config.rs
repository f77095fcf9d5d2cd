#![no_main]
//! `perfatlas.toml` and `version.toml` text: TOML parsing, the checks on
//! each setting, the `[metrics]` formulas, the field views' filters, and the `[flame.aggregates]`
//! benchmark globs matched against names.
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use perfatlas::config::{Config, VersionConfig};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = VersionConfig::parse(text, Path::new("version.toml"));
    if let Ok(config) = Config::parse(text, Path::new("perfatlas.toml")) {
        let _ = perfatlas::analysis::derived_metrics::parse_all(&config.formulas());
        for view in &config.field.views {
            let _ = perfatlas::analysis::field_filter::check_view(view);
        }
        for set in &config.flame.aggregates {
            for pattern in &set.benchmarks {
                for name in ["", "worker-1", "a/b/c", pattern.as_str()] {
                    let _ = perfatlas::render::flame_plan::glob_match(pattern, name);
                }
            }
        }
    }
});
