//! The text that Rust's built-in bench harness (libtest, `cargo bench` on
//! `#[bench]` functions) prints:
//!
//! ```text
//! running 3 tests
//! test benches::fib_is_right ... ignored
//! test benches::fib_10 ... bench:         139.25 ns/iter (+/- 762.62)
//! test benches::fib_15 ... bench:       3,993.88 ns/iter (+/- 1,467.67)
//! test benches::parse  ... bench:       1,234 ns/iter (+/- 56) = 830 MB/s
//!
//! test result: ok. 0 passed; 0 failed; 1 ignored; 2 measured; 0 filtered out; finished in 4.61s
//! ```
//!
//! A result line gives one figure per benchmark: the median time per
//! iteration of the samples libtest took, and `+/-` their spread (the
//! largest minus the smallest after trimming outliers). So a file is one
//! run of one sample per benchmark, like a CI history's value per commit,
//! and the spread becomes the value's interval (`median ± spread`, as the
//! github-action-benchmark import reads cargo's ranges), converted to
//! seconds as the value is. Numbers keep their thousands separators
//! (`3,993.88`); older toolchains print whole nanoseconds. A throughput
//! that `b.bytes` adds (`= 830 MB/s`) is a benchmark of its own, `NAME
//! (MB/s)`. Every other line (`running`, `test result:`, tests that are
//! not benchmarks, build output) is not data and is passed over.

use model::error::{ParseError, Place};
use model::Interval;

use super::{Collected, Measured};

pub(super) const NAME: &str = "libtest-bench";

const MARK: &str = " ... bench:";

/// A result line in the first kilobytes.
pub(super) fn sniff(head: &str) -> bool {
    head.lines()
        .any(|line| line.starts_with("test ") && line.contains(MARK))
}

pub(super) fn read(text: &str, out: &mut Collected) -> Result<(), ParseError> {
    let mut found = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, result)) = rest.split_once(MARK) else {
            continue;
        };
        found += 1;
        match result_of(result) {
            Ok(result) => add(name.trim(), result, i + 1, out),
            Err(why) => out.warn_at(
                Place::Line(i + 1),
                format!("not a bench result ({why}); the line is left out"),
            ),
        }
    }
    if found == 0 {
        return Err(ParseError::whole(
            "no bench result lines (`test NAME ... bench: N ns/iter (+/- D)`): \
             did `cargo bench` run #[bench] functions, or was the output cut off?",
        ));
    }
    Ok(())
}

/// A result: nanoseconds per iteration, their spread, and the throughput
/// in MB/s when the line gives one.
struct BenchResult {
    nanos: f64,
    spread: f64,
    throughput: Option<f64>,
}

fn result_of(text: &str) -> Result<BenchResult, String> {
    let text = text.trim();
    let (nanos, rest) = text.split_once(" ns/iter").ok_or("no `ns/iter` figure")?;
    let nanos = number(nanos)?;
    let rest = rest.trim_start();
    let inner = rest
        .strip_prefix("(+/-")
        .and_then(|r| r.split_once(')'))
        .ok_or("no `(+/- spread)`")?;
    let spread = number(inner.0)?;
    let throughput = match inner.1.trim().strip_prefix('=') {
        None => None,
        Some(t) => Some(number(
            t.trim()
                .strip_suffix("MB/s")
                .ok_or("a throughput not in MB/s")?,
        )?),
    };
    Ok(BenchResult {
        nanos,
        spread,
        throughput,
    })
}

/// A number as libtest prints it, thousands separated by commas.
fn number(text: &str) -> Result<f64, String> {
    let text = text.trim();
    match text.replace(',', "").parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a number of nanoseconds")),
    }
}

fn add(name: &str, r: BenchResult, line: usize, out: &mut Collected) {
    let interval = Interval::new(
        ((r.nanos - r.spread) / 1e9).max(0.0),
        (r.nanos + r.spread) / 1e9,
    );
    out.benchmark_at(
        Place::Line(line),
        Measured::one_value(
            name.to_string(),
            (r.nanos / 1e9, "s"),
            "libtest's median time per iteration, its `+/-` spread as the interval",
            interval,
        ),
    );
    if let Some(mb) = r.throughput {
        out.benchmark_at(
            Place::Line(line),
            Measured::one_value(
                format!("{name} (MB/s)"),
                (mb, "MB/s"),
                "libtest's throughput (`b.bytes`)",
                None,
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, sniff_and_parse, MeasurementFile};
    use super::*;

    fn parse(text: &str) -> Result<MeasurementFile, ParseError> {
        sniff_and_parse("bench.txt", text.as_bytes()).expect("sniffed as measurements")
    }

    #[test]
    fn reads_cargo_bench_output_as_one_value_per_benchmark() {
        let file = sniff_and_parse("bench.txt", &fixture("libtest-bench.txt"))
            .unwrap()
            .unwrap();
        assert_eq!(file.format, "libtest-bench");
        assert!(file.warnings.is_empty(), "{:?}", file.warnings);
        let text = String::from_utf8(fixture("libtest-bench.txt")).unwrap();
        // The figures as printed, read here by splitting the lines.
        let printed: Vec<(String, f64, f64)> = text
            .lines()
            .filter(|l| l.contains("ns/iter"))
            .map(|l| {
                let name = l["test ".len()..l.find(" ...").unwrap()].to_string();
                let words: Vec<&str> = l.split_whitespace().collect();
                let at = words.iter().position(|w| *w == "ns/iter").unwrap();
                let n = |w: &str| {
                    w.trim_end_matches(')')
                        .replace(',', "")
                        .parse::<f64>()
                        .unwrap()
                };
                (name, n(words[at - 1]), n(words[at + 2]))
            })
            .collect();
        assert_eq!(printed.len(), 2);
        assert_eq!(file.benchmarks.len(), 2);
        for (b, (name, median, spread)) in file.benchmarks.iter().zip(&printed) {
            assert_eq!(&b.name, name);
            assert_eq!(b.runs, vec![vec![median / 1e9]]);
            let i = b.interval.expect("the spread");
            assert!((i.high - (median + spread) / 1e9).abs() < 1e-15);
            assert!(i.low >= 0.0 && i.low <= median / 1e9);
        }
        // fib(15) does about 11 times fib(10)'s calls.
        let ratio = printed[1].1 / printed[0].1;
        assert!(ratio > 5.0 && ratio < 60.0, "{ratio}");
    }

    #[test]
    fn throughput_whole_nanoseconds_and_bad_lines() {
        let file = parse(
            "running 2 tests\n\
             test parse ... bench:       1,234 ns/iter (+/- 56) = 830 MB/s\n\
             test broken ... bench:  fast ns/iter (+/- 1)\n\
             test result: ok.\n",
        )
        .unwrap();
        let names: Vec<&str> = file.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["parse", "parse (MB/s)"]);
        assert_eq!(file.benchmarks[0].runs, vec![vec![1234e-9]]);
        assert_eq!(file.benchmarks[1].runs, vec![vec![830.0]]);
        assert_eq!(file.warnings.len(), 1);
        assert_eq!(file.warnings[0].place, Place::Line(3));
        assert!(
            file.warnings[0].message.contains("`fast` is not a number"),
            "{}",
            file.warnings[0]
        );
        let real = String::from_utf8(fixture("libtest-bench.txt")).unwrap();
        let cut = &real[..real.find("fib_15").unwrap()];
        let file = parse(cut).unwrap();
        assert_eq!(file.benchmarks.len(), 1, "a cut file keeps its whole lines");
    }
}
