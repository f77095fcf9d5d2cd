//! The lines that benchmark.js prints for each benchmark
//! (`String(event.target)` in a suite's `cycle` handler, as its README and
//! most projects' `bench.js` do):
//!
//! ```text
//! fib(10) x 714,601 ops/sec ±2.45% (59 runs sampled)
//! RegExp#test x 21,163,149 ops/sec ±2.73% (77 runs sampled)
//! Fastest is RegExp#test
//! ```
//!
//! A result line gives one figure per benchmark: the mean rate over the
//! samples benchmark.js took, and `±` its relative margin of error (the
//! 95% confidence interval's half-width as a share of the mean). The
//! samples themselves are not printed, so a file is one run of one value
//! per benchmark. perfatlas reads a higher value as slower, so the rate
//! becomes seconds per operation (1 / rate), and the margin the interval
//! of that value (`1 / (rate × (1 ± margin))`), as the
//! github-action-benchmark import reads benchmark.js's `±N%` ranges.
//! Every other line (`Fastest is …`, logs) is not data and is passed over.

use model::error::{ParseError, Place};
use model::Interval;

use super::{Collected, Measured};

pub(super) const NAME: &str = "benchmark.js";

const RATE: &str = " ops/sec ±";

/// A result line in the first kilobytes.
pub(super) fn sniff(head: &str) -> bool {
    head.lines()
        .any(|line| line.contains(RATE) && line.contains(" runs sampled)"))
}

pub(super) fn read(text: &str, out: &mut Collected) -> Result<(), ParseError> {
    let mut found = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if !line.contains(RATE) {
            continue;
        }
        found += 1;
        match result_of(line) {
            Ok((name, rate, margin)) => add(name, rate, margin, i + 1, out),
            Err(why) => out.warn_at(
                Place::Line(i + 1),
                format!("not a benchmark.js result ({why}); the line is left out"),
            ),
        }
    }
    if found == 0 {
        return Err(ParseError::whole(
            "no benchmark.js result lines (`NAME x N ops/sec ±M% (K runs sampled)`): \
             did the suite print each cycle's String(event.target)?",
        ));
    }
    Ok(())
}

/// The name, rate (operations per second) and relative margin of a line.
fn result_of(line: &str) -> Result<(&str, f64, f64), String> {
    let (before, after) = line.split_once(RATE).ok_or("no `ops/sec ±`")?;
    let (name, rate) = before.rsplit_once(" x ").ok_or("no `NAME x RATE`")?;
    let rate = rate.trim().replace(',', "");
    let rate: f64 = match rate.parse() {
        Ok(r) if f64::is_finite(r) && r > 0.0 => r,
        _ => return Err(format!("`{rate}` is not a rate above 0")),
    };
    let margin = after
        .split_once('%')
        .and_then(|(m, _)| m.trim().parse::<f64>().ok())
        .filter(|m| m.is_finite() && (0.0..100.0).contains(m))
        .ok_or("no `±N%` margin below 100%")?;
    Ok((name.trim(), rate, margin / 100.0))
}

fn add(name: &str, rate: f64, margin: f64, line: usize, out: &mut Collected) {
    out.benchmark_at(
        Place::Line(line),
        Measured::one_value(
            name.to_string(),
            (1.0 / rate, "s"),
            "benchmark.js's mean rate as seconds per operation (1 / ops/sec), \
             its ±% margin of error as the interval",
            Interval::new(1.0 / (rate * (1.0 + margin)), 1.0 / (rate * (1.0 - margin))),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("bench.txt", text.as_bytes()).expect("sniffed as measurements")
    }

    #[test]
    fn reads_each_cycle_line_as_seconds_per_operation() {
        let file = sniff_and_parse("bench.txt", &fixture("benchmark-js.txt"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "benchmark.js");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["fib(10)", "fib(15)", "RegExp#test"]);
        // As printed: fib(10) x 714,601 ops/sec ±2.45% (59 runs sampled).
        let fib10 = &file.benchmarks[0];
        assert_eq!(fib10.runs, vec![vec![1.0 / 714_601.0]]);
        let i = fib10.interval.expect("the margin");
        assert!((i.low - 1.0 / (714_601.0 * 1.0245)).abs() < 1e-15);
        assert!((i.high - 1.0 / (714_601.0 * 0.9755)).abs() < 1e-15);
        // fib(15) makes about 11 times fib(10)'s calls: its time per
        // operation is that much longer.
        let ratio = file.benchmarks[1].runs[0][0] / fib10.runs[0][0];
        assert!(ratio > 5.0 && ratio < 25.0, "{ratio}");
    }

    #[test]
    fn names_with_x_and_bad_lines() {
        let file = parse(
            "a x b x 1,000 ops/sec ±1.00% (90 runs sampled)\n\
             broken x fast ops/sec ±1.00% (90 runs sampled)\n\
             zero x 0 ops/sec ±1.00% (1 runs sampled)\n\
             Fastest is a x b\n",
        )
        .unwrap();
        assert_eq!(file.benchmarks.len(), 1);
        assert_eq!(file.benchmarks[0].name, "a x b");
        assert_eq!(file.benchmarks[0].runs, vec![vec![0.001]]);
        let places: Vec<Place> = file.warnings.iter().map(|w| w.place.clone()).collect();
        assert_eq!(places, [Place::Line(2), Place::Line(3)]);
    }
}
