#![no_main]
//! Any formula text (a config file is as untrusted as a profile): parsing,
//! binding and evaluating it on ordinary and extreme values never panics,
//! and a parsed formula names only metrics it can be bound to.
use libfuzzer_sys::fuzz_target;
use perfatlas::analysis::formula::parse;

const NAMES: [&str; 4] = ["a", "b", "alloc_space", "wall.time"];

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(formula) = parse(&text) else {
        return;
    };
    let _ = formula.is_additive();
    let used = formula.metric_names();
    let Ok(bound) = formula.bind(&NAMES) else {
        assert!(used.iter().any(|name| !NAMES.contains(name)), "{used:?}");
        return;
    };
    for value in [
        0.0,
        -0.0,
        1.0,
        -2.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
    ] {
        let _ = bound.eval(&[value; 4]);
        let _ = bound.eval(&[1.0, value, 0.0, value]);
    }
    let _ = bound.eval(&[]);
});
